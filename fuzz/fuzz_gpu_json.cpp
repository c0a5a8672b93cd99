// GPU JSON files (--gpu path/to/gpu.json).
#include <cmath>
#include <cstdint>
#include <string>

#include "fuzz_util.hpp"
#include "kvplan/gpu.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(kvplan::fuzz::as_text(data, size));
  kvplan::fuzz::refuse_cleanly([&] {
    const auto g = kvplan::parse_gpu_json(text, "gpu.json");
    kvplan::fuzz::check(g.memory_bytes > 0, "memory > 0");
    kvplan::fuzz::check(std::isfinite(g.bandwidth_gbps) && g.bandwidth_gbps > 0, "bandwidth > 0");
    kvplan::fuzz::check(std::isfinite(g.price_per_hour) && g.price_per_hour >= 0, "price >= 0");
  });
  return 0;
}
