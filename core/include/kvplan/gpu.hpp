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
//                "nvlink_domain": "<URL>", "gpus_per_node": "<URL>", "node_dram": "<URL>"},
//    "gpus_per_node": 8, "node_dram_gib": 2048}
// cuda_memory_gib is the total an engine's log prints (GiB, as logged; read as the smaller
// bound of its rounding so the budget never grows from it); it needs sources.cuda_memory.
// gpus_per_node and node_dram_gib describe the reference node (a DGX / HGX server, a GB200 NVL72
// compute tray, a cloud instance); each needs its source (sources.gpus_per_node, .node_dram).
//
// Nodes: a tensor-parallel group stays inside one node (NVLink or PCIe inside the box), unless
// the GPU's NVLink domain is larger than a node (GB200 NVL72: 4 GPUs per compute tray, 72 per
// domain), then inside the domain; pipeline stages and replicas go across nodes. So
//   nodes_for(h100, tp 1, 9 groups) = ceil(9 / (8 / 1)) = 2   ("2 nodes (9 GPUs)")
//   nodes_for(gb200, tp 8, 2 groups) = 2 · ceil(8 / 4) = 4
//
// Prices (kvplan plan --prices FILE): CSV with the header gpu,usd_per_hour,date,source or JSON
//   {"kvplan_prices": 1, "prices": [{"gpu": "h100-sxm-80gb", "usd_per_hour": 2.99,
//                                    "date": "2026-01-15", "source": "<URL>"}]}
// USD per GPU-hour, the date the price was read (YYYY-MM-DD) and where.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
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
  // The reference node: GPUs one server or compute tray holds, and its host DRAM (GiB). 0 =
  // unknown.
  std::uint32_t gpus_per_node = 0;
  double node_dram_gib = 0;
  std::string gpus_per_node_source, node_dram_source;  // where each was read
  // Where price_per_hour came from when a price file set it: the date and source it names.
  std::string price_date, price_source;
};

// The largest tensor-parallel group the GPU keeps inside fast links: gpus_per_node, or the NVLink
// domain when that is larger; 0 = unknown (no limit).
std::uint32_t max_tp_span(const GpuSpec& g);
// Nodes that `groups` tensor-parallel groups of `tp` GPUs take (groups = pp · replicas); 0 when
// gpus_per_node is unknown. Throws Error(internal) on overflow.
std::uint32_t nodes_for(const GpuSpec& g, std::uint32_t tp, std::uint64_t groups);

GpuSpec load_gpu(const std::string& id_or_path);
// The text of a file compiled into kvplan from models/ (the presets, and the per-GPU
// per-operation tables under perf/: docs/simulate-step-time.md), by its path there, e.g.
// "perf/moe/h200-141gb.vllm.txt"; nullopt when kvplan has no such file.
std::optional<std::string_view> embedded_data_file(std::string_view path);
GpuSpec parse_gpu_json(const std::string& text, const std::string& source);
std::vector<GpuSpec> list_gpu_presets();

// USD rounded to cents (29.880000000000003 -> 29.88), half away from zero.
double round_cents(double usd);

// One row of a price file.
struct GpuPrice {
  std::string gpu;          // a GPU id
  double usd_per_hour = 0;  // per GPU-hour, > 0
  std::string date;         // YYYY-MM-DD, when the price was read
  std::string source;       // where (a URL)
  std::string field;  // the row's gpu field as errors name it ("line 3, gpu", "/prices/2/gpu")
};
// Parses a price file's text (JSON when it starts with '{', else CSV). Throws Error(source, field)
// naming the row and field: "prices.csv: line 3 usd_per_hour: expected a number > 0, got 'x'".
std::vector<GpuPrice> parse_prices(const std::string& text, const std::string& source);
std::vector<GpuPrice> load_prices(const std::string& path);
// Sets each listed GPU's price_per_hour, price_date and price_source; a GPU id none of `gpus`
// has throws Error(source, row's field) naming it.
void apply_prices(std::vector<GpuSpec>& gpus, const std::vector<GpuPrice>& prices,
                  const std::string& source);

}  // namespace kvplan
