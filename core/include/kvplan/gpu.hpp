// GPU presets: total memory as the driver reports it (nvidia-smi / rocm-smi, bytes), memory
// bandwidth, and the roofline peaks the serving simulator's step-time model needs (dense tensor
// FLOP/s per dtype, interconnect bandwidth). Compiled in from models/gpus/*.json; every figure
// carries its source (docs/gpus.md has the table).
//
//   GpuSpec g = kvplan::load_gpu("h100-sxm-80gb");   // g.memory_bytes == 85520809984
//   g.peak_tflops_bf16 == 989.5   (datasheet "1,979 teraFLOPS*", * with sparsity: dense = half)
//   g.interconnect_gbps == 900    (NVLink, both directions together, as the datasheet lists it)
//
// GPU JSON (schema version 1; unknown keys refused; the roofline fields are optional, 0 or absent
// = unknown, so a file with memory only still loads):
//   {"kvplan_gpu": 1, "id": "h100-sxm-80gb", "source": "<datasheet URL>",
//    "memory_bytes": 85520809984, "cuda_memory_gib": 79.18, "bandwidth_gbps": 3350,
//    "peak_tflops_bf16": 989.5, "peak_tflops_fp8": 1979, "peak_tops_int8": 1979,
//    "interconnect": "nvlink", "interconnect_gbps": 900, "nvlink_domain_gpus": 8,
//    "sources": {"peak_tflops": "<URL>", "interconnect": "<URL>", "cuda_memory": "<URL>",
//                "nvlink_domain": "<URL>"}}
// cuda_memory_gib is the total an engine's log prints (GiB, as logged; read as the smaller
// bound of its rounding so the budget never grows from it); it needs sources.cuda_memory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kvplan {

struct GpuSpec {
  std::string id, name, source;
  std::uint64_t memory_bytes = 0;  // total device memory as the driver reports it
  // Total memory as CUDA reports it to the engine (torch.cuda.mem_get_info()[1], vLLM's
  // total_gpu_memory): less than the driver's figure by what the driver keeps. 0 = unknown.
  // The engines take their fractions of this figure (docs/engine-memory.md).
  std::uint64_t cuda_memory_bytes = 0;
  std::string cuda_memory_source;  // where that figure was seen (a log, with the GPU named)
  // The total an engine sees: the CUDA figure where known, else the driver's.
  std::uint64_t engine_memory_bytes() const {
    return cuda_memory_bytes ? cuda_memory_bytes : memory_bytes;
  }
  double bandwidth_gbps = 0;  // GB/s (1e9 bytes per second), published peak
  double price_per_hour = 0;  // USD per GPU-hour, 0 = unknown (set by --price)
  // Dense (no 2:4 sparsity) tensor-core peaks, 1e12 operations per second; 0 = not supported or
  // unknown. bf16 stands for fp16 too (the same rate on every preset). fp16/bf16 with fp32
  // accumulation, which is what inference GEMMs use (it matters on GeForce cards).
  double peak_tflops_bf16 = 0;
  double peak_tflops_fp8 = 0;
  double peak_tflops_fp4 = 0;
  double peak_tops_int8 = 0;
  // GPU-to-GPU bandwidth per GPU in GB/s, both directions together as vendors list it (NVLink,
  // Infinity Fabric; PCIe for cards without a GPU-to-GPU link). 0 = unknown.
  std::string interconnect;  // "nvlink", "infinity_fabric", "pcie" (informational)
  double interconnect_gbps = 0;
  // GPUs one NVLink domain joins at interconnect_gbps (8 on an HGX board, 72 in a GB200/GB300
  // NVL72 rack); beyond it traffic leaves NVLink. 0 = unknown. Only with interconnect "nvlink".
  std::uint32_t nvlink_domain_gpus = 0;
  std::string peaks_source, interconnect_source;  // URLs of the figures above
  std::string nvlink_domain_source;               // where nvlink_domain_gpus was read
};

GpuSpec load_gpu(const std::string& id_or_path);
GpuSpec parse_gpu_json(const std::string& text, const std::string& source);
std::vector<GpuSpec> list_gpu_presets();

}  // namespace kvplan
