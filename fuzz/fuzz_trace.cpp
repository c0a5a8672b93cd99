// Attention traces (.safetensors with kvplan-trace metadata): open, then read the first and last
// row of every layer's q, k and v.
#include <cstdint>
#include <vector>

#include "fuzz_util.hpp"
#include "kvplan/sim/trace.hpp"

using namespace kvplan;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::MemFile file(data, size);
  fuzz::refuse_cleanly([&] {
    const auto t = sim::TraceFile::open(file.path());
    const auto& info = t.info();
    fuzz::check(info.layers >= 1, "at least one layer");
    fuzz::check(info.rope.dims <= info.head_dim, "rope_dims <= head_dim");
    fuzz::check(t.tokens().empty() || t.tokens().size() == info.tokens, "tokens length is T");
    std::vector<float> q(info.q_width()), kv(info.kv_width());
    if (info.tokens == 0) return;
    for (std::uint32_t l = 0; l < info.layers; ++l) {
      for (std::uint64_t tok : {std::uint64_t{0}, info.tokens - 1}) {
        t.read(sim::TraceTensor::q, l, tok, q);
        t.read(sim::TraceTensor::k, l, tok, kv);
        t.read(sim::TraceTensor::v, l, tok, kv);
        sim::apply_rope(info.rope, std::span<float>(q).first(info.head_dim), tok);
      }
    }
  });
  return 0;
}
