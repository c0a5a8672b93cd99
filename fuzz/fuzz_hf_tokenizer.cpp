// Hugging Face tokenizer.json files (HfTokenizer). The input is the file; an accepted tokenizer
// then encodes a few strings (ASCII, UTF-8, invalid UTF-8, added-token look-alikes), every id must
// lie inside the vocabulary, and the ids decode back both ways without throwing.
#include <algorithm>
#include <cstdint>
#include <string>

#include "fuzz_util.hpp"
#include "kvplan/sim/hf_tokenizer.hpp"

using namespace kvplan;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::MemFile file(data, size);
  fuzz::refuse_cleanly([&] {
    const auto tok = sim::HfTokenizer::load(file.path());
    const std::uint32_t n = tok.size();
    fuzz::check(
        tok.bos_id() < static_cast<std::int64_t>(n) && tok.eos_id() < static_cast<std::int64_t>(n),
        "BOS and EOS inside the vocabulary");
    const std::string texts[] = {
        "", "Once upon a time, there was a girl.", "\xff\xfe ok \xe2\x82\xac \xf0\x9f\x98\x80",
        "a  b\n\n\tc 12345 I'M don't", "<s>x</s> <|endoftext|><|begin_of_text|>"};
    for (const auto& s : texts) {
      const auto ids = tok.encode(s, true, true);
      for (auto id : ids)
        fuzz::check(id >= 0 && static_cast<std::uint32_t>(id) < n,
                    "encode returns ids inside the vocabulary");
      tok.detokenize(ids);
      for (std::size_t i = 0; i < ids.size(); ++i) tok.decode(i ? ids[i - 1] : -1, ids[i]);
    }
  });
  return 0;
}
