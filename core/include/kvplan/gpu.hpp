// GPU presets: total memory as the driver reports it (nvidia-smi / rocm-smi, bytes) and memory
// bandwidth. Compiled in from models/gpus/*.json.
//
//   GpuSpec g = kvplan::load_gpu("h100-sxm-80gb");   // g.memory_bytes == 85520809984
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kvplan {

struct GpuSpec {
  std::string id, name, source;
  std::uint64_t memory_bytes = 0;  // total device memory as the driver reports it
  double bandwidth_gbps = 0;       // GB/s (1e9 bytes per second), published peak
  double price_per_hour = 0;       // USD per GPU-hour, 0 = unknown (set by --price)
};

GpuSpec load_gpu(const std::string& id_or_path);
GpuSpec parse_gpu_json(const std::string& text, const std::string& source);
std::vector<GpuSpec> list_gpu_presets();

}  // namespace kvplan
