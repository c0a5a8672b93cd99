// llama2.c tokenizers (tok512.bin format). The first 4 bytes of the input are the vocabulary size
// the model asks for (at most 2^21, the checkpoint header's own limit); the rest is the file.
// An accepted tokenizer then encodes and decodes a few strings.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "fuzz_util.hpp"
#include "kvplan/sim/llama2c.hpp"

using namespace kvplan;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 4) return 0;
  std::uint32_t vocab = 0;
  std::memcpy(&vocab, data, 4);
  vocab %= (1u << 21) + 1;
  fuzz::MemFile file(data + 4, size - 4);
  fuzz::refuse_cleanly([&] {
    const auto tok = sim::Tokenizer::load(file.path(), vocab);
    fuzz::check(tok.size() == vocab, "one piece per token");
    const std::string texts[] = {"", "Once upon a time", "\xff\xfe ok \xe2\x82\xac", "a  b"};
    for (const auto& s : texts) {
      const auto ids = tok.encode(s, true, true);
      for (auto id : ids)
        fuzz::check(id >= 0 && static_cast<std::uint32_t>(id) < vocab,
                    "encode returns ids inside the vocabulary");
      tok.detokenize(ids);
    }
    for (std::uint32_t i = 0; i < std::min<std::uint32_t>(vocab, 64); ++i)
      tok.decode(1, static_cast<std::int32_t>(i));
  });
  return 0;
}
