// KV tiers beyond the GPU: the host memory an engine's KV offloading pins on each rank and on
// each node, sized as each engine or library sizes it, and whether one node holds it.
//
// The rules (each cited where kv_tiers.cpp applies it; docs/check.md "KV tiers beyond the GPU"):
//   vLLM --kv-offloading-size S (GiB, native backend): one total for the engine instance, split
//     over its tp · pp ranks; every data-parallel engine pins its own S.
//   LMCache max_local_cpu_size C (GiB in its allocator, 5 by default with local_cpu on): every
//     rank runs its own LMCache engine, so a node with r ranks pins r · C (LMCache#2901).
//   SGLang HiCache: --hicache-size G (10^9 bytes) per rank, one budget over its host pools; else
//     --hicache-ratio R (2 by default) times each device pool, per rank.
//   TensorRT-LLM kv_cache_config.host_cache_size B (bytes) per rank: the secondary pool.
//
// Worked example (tests/core/test_kv_tiers.cpp): one node of 8 × H200 with 2 TiB of DRAM; vLLM
// TP 8 with LMCache max_local_cpu_size 300: 8 ranks · 300 · 2^30 = 2,576,980,377,600 bytes pinned
// (2,400 GiB) > 2,199,023,255,552 (2,048 GiB): the node cannot hold it, and check fails it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kvplan/model.hpp"
#include "kvplan/planner.hpp"

namespace kvplan {

// The offloading settings as an engine command line or deployment file states them.
struct HostTierArgs {
  std::optional<double> kv_offloading_gib;           // vLLM --kv-offloading-size
  std::optional<std::string> kv_offloading_backend;  // vLLM --kv-offloading-backend
  std::optional<std::string> kv_connector;           // vLLM --kv-transfer-config kv_connector
  // LMCache, on when a vLLM LMCache connector or SGLang --enable-lmcache runs it; its settings
  // as the engine process reads them (LMCACHE_<KEY> variables, kv_connector_extra_config
  // "lmcache.<key>"): local_cpu, max_local_cpu_size, max_local_disk_size.
  bool lmcache = false;
  std::optional<bool> lmcache_local_cpu;
  std::optional<double> lmcache_cpu_gib, lmcache_disk_gib;
  bool hicache = false;                           // SGLang --enable-hierarchical-cache
  std::optional<double> hicache_ratio;            // --hicache-ratio
  std::optional<double> hicache_size_gb;          // --hicache-size (0 = use the ratio)
  std::optional<std::uint64_t> host_cache_bytes;  // TensorRT-LLM kv_cache_config.host_cache_size
  bool any() const;
  bool operator==(const HostTierArgs&) const = default;
};

// One tier on one rank.
struct HostTier {
  std::string name;     // "LMCache local CPU"
  std::string setting;  // as stated: "max_local_cpu_size 300"
  std::uint64_t bytes_per_rank = 0;
  bool pinned = true;  // page-locked host memory; false: local disk
  bool exact = true;   // false: an upper bound (within one page per pool)
  std::string rule;    // how the engine sizes it, with its source
  // SGLang's HiCache pool: the engine refuses a rank's pool over its share of the host less
  // kSglangHostReserveBytes (pool_host/base.py, host_memory_budget_bytes).
  bool host_share_checked = false;
};

// The node the ranks run on.
struct NodeSpec {
  std::optional<std::uint64_t> memory_bytes;  // host DRAM of one node; empty = unknown
  std::optional<std::uint32_t> gpus;          // GPUs (ranks) per node; empty = 8
  std::string memory_source;                  // the flag, key or preset it came from
  bool operator==(const NodeSpec&) const = default;
};

struct HostMemory {
  std::vector<HostTier> tiers;
  std::uint32_t ranks_per_node = 0;   // min(the deployment's GPUs, node GPUs)
  std::uint64_t pinned_per_rank = 0;  // Σ pinned tiers
  std::uint64_t pinned_per_node = 0;  // · ranks_per_node
  std::uint64_t disk_per_node = 0;    // Σ disk tiers · ranks_per_node
  std::vector<std::string> notes;     // what is not counted, version differences
};

// SGLang keeps this much host memory free beside its HiCache pools
// (HICACHE_HOST_MEMORY_RESERVE_BYTES, python/sglang/srt/mem_cache/pool_host/base.py).
inline constexpr std::uint64_t kSglangHostReserveBytes = std::uint64_t{10} << 30;

// vLLM's offloaded blocks for `cpu_bytes` of --kv-offloading-size over `world` ranks whose one
// block (every KV tensor of the rank) is `block_bytes_per_rank`: one offloaded block takes that
// on each of the world's ranks, so cpu_bytes // (block_bytes_per_rank · world)
// (vllm/v1/kv_offload/cpu/spec.py @ 6dfd8b55, CPUOffloadingSpec). The serving simulator's CPU tier
// counts its blocks with it too. 0 when block_bytes_per_rank or world is 0.
std::uint64_t vllm_offload_blocks(std::uint64_t cpu_bytes, std::uint64_t block_bytes_per_rank,
                                  std::uint64_t world);

// SGLang's _split_hicache_size (python/sglang/srt/mem_cache/hybrid_cache/hybrid_pool_assembler.py
// @382343f860c7df8dc43ecefd7902c940d81c99a9): --hicache-size G (GB) over a hybrid model's host
// pools in proportion to their device pools' bytes, G · bytes_i / Σ bytes (GB each). Empty when
// the pools hold no byte.
std::vector<double> sglang_hicache_split(double size_gb,
                                         const std::vector<std::uint64_t>& device_bytes);

// The tiers `a` sets up for the deployment `in` of `model` whose GPU pool is `c` (SGLang's ratio
// mode mirrors it), on nodes of `node`. Throws Error(source, field) on a size out of range.
HostMemory host_memory(const HostTierArgs& a, const ModelSpec& model, const PlanInput& in,
                       const Capacity& c, const NodeSpec& node, const std::string& source);

}  // namespace kvplan
