// llama2.c checkpoints ("legacy" float32 export): load, then run one forward step of an accepted
// model through the reference attention.
#include <cmath>
#include <cstdint>

#include "fuzz_util.hpp"
#include "kvplan/sim/llama2c.hpp"

using namespace kvplan;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::MemFile file(data, size);
  fuzz::refuse_cleanly([&] {
    const auto m = sim::Llama2cModel::load(file.path());
    const auto& c = m.config();
    fuzz::check(validate(m.spec()).empty(), "spec() passes validate()");
    sim::ReferenceAttention attn(m);
    sim::Llama2cRunner run(m);
    const auto logits = run.forward(static_cast<std::int32_t>(1 % c.vocab_size), 0, attn);
    fuzz::check(logits.size() == c.vocab_size, "one logit per token");
  });
  return 0;
}
