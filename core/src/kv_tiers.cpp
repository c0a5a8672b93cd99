#include "kvplan/kv_tiers.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <vector>

#include "kvplan/checked.hpp"
#include "kvplan/engine_rules.hpp"
#include "kvplan/error.hpp"

namespace kvplan {

bool HostTierArgs::any() const {
  return kv_offloading_gib || lmcache || hicache || (host_cache_bytes && *host_cache_bytes > 0);
}

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string num(double v) {
  char b[48];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

// A size the user gave in `unit` bytes, as a whole number of bytes; refused past 2^50 (a PiB:
// no node holds more) and below 0.
std::uint64_t to_bytes(double v, double unit, const std::string& source, const std::string& field) {
  if (!std::isfinite(v) || v < 0 || v * unit > std::ldexp(1.0, 50))
    throw Error(source, field, "is " + num(v) + ": expected a size from 0 to 1 PiB");
  return static_cast<std::uint64_t>(v * unit);
}

// Bytes of one token on the worst rank when every layer is full attention or MLA without
// recurrent state (one pool, tokens · bytes exact); 0 otherwise.
std::uint64_t full_attention_bytes_per_token(const ModelSpec& model, const Capacity& c) {
  if (c.state_layers > 0 || !c.paged || c.block_size == 0) return 0;
  for (const LayerSpec& l : model.layers)
    if ((l.kind != AttentionKind::full && l.kind != AttentionKind::mla) || l.recurrent) return 0;
  std::uint64_t worst = 0;
  for (const StageCapacity& s : c.stages) {
    const std::uint64_t tokens = s.blocks_per_request * c.block_size;
    if (tokens == 0 || s.bytes_per_request % tokens != 0) return 0;
    worst = std::max(worst, s.bytes_per_request / tokens);
  }
  return worst;
}

// vLLM's native OffloadingConnector (vllm/v1/kv_offload/cpu/spec.py @ 6dfd8b55,
// CPUOffloadingSpec.__init__): cpu_bytes_to_use = S · 2^30 (vllm/config/vllm.py
// _post_init_kv_transfer_config); one offloaded block is page · kv_cache_tensors · world_size
// bytes, num_blocks = cpu_bytes_to_use // that, and each rank pins num_blocks · page · tensors.
HostTier vllm_offloading(const HostTierArgs& a, const PlanInput& in, const Capacity& c,
                         const std::string& source) {
  const std::uint64_t total = to_bytes(*a.kv_offloading_gib, kGiB, source, "--kv-offloading-size");
  const std::uint64_t world = std::uint64_t{in.tp} * in.pp;
  HostTier t;
  t.name = "vLLM CPU offloading";
  t.setting = "--kv-offloading-size " + num(*a.kv_offloading_gib) + " (GiB)";
  std::uint32_t tensors = 0;
  for (const StageCapacity& s : c.stages) tensors = std::max(tensors, s.group_size);
  if (c.paged && c.page_bytes > 0 && tensors > 0) {
    const std::uint64_t block = mul(c.page_bytes, tensors);
    t.bytes_per_rank = mul(vllm_offload_blocks(total, block, world), block);
  } else {
    t.bytes_per_rank = total / world;
    t.exact = false;
  }
  t.rule =
      "one total for the instance, over its " + std::to_string(world) +
      " ranks; each data-parallel engine pins its own (vllm/v1/kv_offload/cpu/spec.py@6dfd8b55)";
  return t;
}

// LMCache's local CPU backend: cpu_size · 1024^3 bytes of pinned memory per LMCache engine
// (lmcache/v1/storage_backend/local_cpu_backend.py @ 000620e3, initialize_allocator), one engine
// per vLLM / SGLang worker, so per rank (LMCache#2901, the maintainers' answer); defaults
// local_cpu true, max_local_cpu_size 5.0, max_local_disk_size 0 (lmcache/v1/config.py@3ecd72f8).
void lmcache_tiers(const HostTierArgs& a, HostMemory& m, const std::string& source) {
  if (a.lmcache_local_cpu.value_or(true)) {
    const double gib = a.lmcache_cpu_gib.value_or(5.0);
    m.tiers.push_back(
        {.name = "LMCache local CPU",
         .setting = "max_local_cpu_size " + num(gib) + (a.lmcache_cpu_gib ? "" : " (default)"),
         .bytes_per_rank = to_bytes(gib, kGiB, source, "max_local_cpu_size"),
         .rule = "every worker runs its own LMCache engine (LMCache#2901)"});
  }
  if (a.lmcache_disk_gib && *a.lmcache_disk_gib > 0)
    m.tiers.push_back(
        {.name = "LMCache local disk",
         .setting = "max_local_disk_size " + num(*a.lmcache_disk_gib),
         .bytes_per_rank = to_bytes(*a.lmcache_disk_gib, kGiB, source, "max_local_disk_size"),
         .pinned = false,
         .rule = "every worker its own, on the node's local disk"});
}

// Python's float floor division, x // y for x, y > 0 (float_floor_div, Objects/floatobject.c):
// the quotient of x − fmod(x, y), rounded to the nearest whole number when within half of it.
double py_floordiv(double x, double y) {
  const double mod = std::fmod(x, y);
  const double div = (x - mod) / y;
  double floor = std::floor(div);
  if (div - floor > 0.5) floor += 1.0;
  return floor;
}

// A hybrid model's HiCache host pools on the worst rank (hybrid_pool_assembler.py@382343f8,
// build_hybrid_swa_stack / build_hybrid_mamba_stack): with --hicache-size G each pool takes its
// share (sglang_hicache_split) and holds int(share · 1e9 // bytes per token) tokens, else int(its
// device pool's size · ratio); then size // page + 1 pages (pool_host/base.py, pool_host/mamba.py:
// page 1). nullopt where the plan carries no SGLang pools.
std::optional<std::uint64_t> hybrid_host_bytes(const HostTierArgs& a, const Capacity& c,
                                               double ratio, const std::string& source) {
  const bool by_size = a.hicache_size_gb && *a.hicache_size_gb > 0;
  if (by_size) to_bytes(*a.hicache_size_gb, 1e9, source, "--hicache-size");  // range check
  std::optional<std::uint64_t> worst;
  for (const StageCapacity& s : c.stages) {
    const auto& pools = s.sglang_device_pools;
    if (pools.empty()) continue;
    std::vector<std::uint64_t> device;
    for (const auto& d : pools) {
      if (d.unit_bytes == 0)
        throw Error(ErrorKind::internal, source, "--hicache-size",
                    "SGLang's " + d.name + " pool has no bytes a token");
      device.push_back(d.device_bytes);
    }
    const std::vector<double> shares =
        by_size ? sglang_hicache_split(*a.hicache_size_gb, device) : std::vector<double>{};
    if (by_size && shares.size() != pools.size()) continue;
    std::uint64_t bytes = 0;
    for (std::size_t i = 0; i < pools.size(); ++i) {
      const SglangDevicePool& d = pools[i];
      const double tokens = by_size
                                ? py_floordiv(shares[i] * 1e9, static_cast<double>(d.unit_bytes))
                                : std::floor(static_cast<double>(d.size) * ratio);
      if (!(tokens < std::ldexp(1.0, 60)))
        throw Error(source, by_size ? "--hicache-size" : "--hicache-ratio",
                    "gives a host pool past 2^60 tokens");
      const std::uint64_t page = std::max<std::uint32_t>(d.page, 1);
      const std::uint64_t size = mul(static_cast<std::uint64_t>(tokens) / page + 1, page);
      bytes = add(bytes, mul(size, d.unit_bytes, "host pool bytes"), "host pool bytes");
    }
    worst = std::max(worst.value_or(0), bytes);
  }
  return worst;
}

// SGLang's HiCache host pools (python/sglang/srt/mem_cache/pool_host/base.py @ 712c0617,
// HostKVCache.__init__): --hicache-size G gives int(G · 1e9 // bytes per token) tokens, else
// int(device pool tokens · ratio); then page_num = size // page + 1, size = page_num · page.
HostTier sglang_hicache(const HostTierArgs& a, const ModelSpec& model, const PlanInput& in,
                        const Capacity& c, HostMemory& m, const std::string& source) {
  const double ratio = a.hicache_ratio.value_or(2.0);
  const bool by_size = a.hicache_size_gb && *a.hicache_size_gb > 0;
  if (!std::isfinite(ratio) || ratio <= 0 || ratio > 1000)
    throw Error(source, "--hicache-ratio", "is " + num(ratio) + ": expected (0, 1000]");
  HostTier t;
  t.name = "SGLang HiCache host pool";
  t.host_share_checked = true;
  t.setting = by_size ? "--hicache-size " + num(*a.hicache_size_gb) + " (GB)"
                      : "--hicache-ratio " + num(ratio) + (a.hicache_ratio ? "" : " (default)");
  const std::uint64_t bpt = full_attention_bytes_per_token(model, c);
  const std::uint64_t page = std::max<std::uint32_t>(c.block_size, 1);
  // A sparse-attention (DSA) model's device cell holds its indexer keys too (planner.cpp
  // attention_page); SGLang mirrors them in a host pool of their own beside the KV host pool
  // (python/sglang/srt/mem_cache/pool_host/dsa.py@03ba7b5b7dd249244bd5af01b236fd6449c66e8d,
  // DSAIndexerPoolHost): the KV host pool's size in tokens, (size + page + 1) // page pages of
  // index_head_dim + index_head_dim // 128 · 4 bytes a token in every layer, on top of
  // --hicache-size. The layers are the worst rank's: bpt over one layer's latent and indexer.
  // The host rows mirror the device's latent (MLATokenToKVPoolHost takes the device pool's
  // override_kv_cache_dim): an fp8 DSA latent in SGLang's scaled 656-byte layout where the device
  // keeps it so (calculate_mla_kv_cache_dim, EngineRules::latent_token_bytes), else raw.
  const std::uint64_t index_layer =
      model.index_head_dim > 0 ? indexer_bytes_per_token(model.index_head_dim) : 0;
  std::uint64_t index_layers = 0, latent_row = 0;
  if (index_layer > 0 && model.is_mla()) {
    latent_row = engine_rules(in).latent_token_bytes(model, in).value_or(
        stream_bytes(in.format, StreamRole::latent, model.latent_width(), 1, 1));
    index_layers = bpt / (latent_row + index_layer);
    if (bpt % (latent_row + index_layer) != 0) index_layers = 0;  // not one DSA pool: as before
  }
  if (bpt > 0) {
    const std::uint64_t kv_bpt = index_layers > 0 ? mul(index_layers, latent_row) : bpt;
    const std::uint64_t tokens =
        by_size ? to_bytes(*a.hicache_size_gb, 1e9, source, "--hicache-size") / kv_bpt
                : static_cast<std::uint64_t>(static_cast<double>(c.kv_cache_tokens) * ratio);
    const std::uint64_t size = mul(tokens / page + 1, page);
    t.bytes_per_rank = mul(size, kv_bpt);
    if (index_layers > 0)
      t.bytes_per_rank =
          add(t.bytes_per_rank,
              mul(mul(index_layers, (size + page + 1) / page * page), index_layer, "indexer host"),
              "host pool bytes");
  } else if (const auto worst = hybrid_host_bytes(a, c, ratio, source)) {
    // Several pools (full + sliding, or KV + Mamba state): each its host pool, exact where the
    // stages are alike and no draft or ReplaySSM window rides along (those stay approximate).
    t.bytes_per_rank = *worst;
    t.exact = in.pp == 1 && in.draft_layers == 0 && !in.sglang().linear_replayssm_spec;
    if (by_size && c.state_layers > 0)
      m.notes.push_back(
          "SGLang before PR #32915 (2026-07-30) gives --hicache-size to the KV and to the Mamba "
          "host pool each, twice the budget (sglang#29034)");
  } else {
    // No pool figures (a plan without SGLang's pools): the budget, or the device pool times the
    // ratio; within one page per pool of the pools' sum.
    t.bytes_per_rank = by_size ? to_bytes(*a.hicache_size_gb, 1e9, source, "--hicache-size")
                               : to_bytes(static_cast<double>(c.memory.available_bytes), ratio,
                                          source, "--hicache-ratio");
    t.exact = false;
  }
  t.rule = "every rank its own pools (sglang pool_host/base.py@712c0617)";
  if (in.draft_layers > 0)
    m.notes.push_back("SGLang's draft host pools come on top of this and are not counted");
  if (index_layers > 0)
    m.notes.push_back("SGLang's DSA indexer host pool is counted (pool_host/dsa.py@03ba7b5b)");
  return t;
}

}  // namespace

std::vector<double> sglang_hicache_split(double size_gb,
                                         const std::vector<std::uint64_t>& device_bytes) {
  std::uint64_t total = 0;
  for (const std::uint64_t b : device_bytes) total = add(total, b, "device pool bytes");
  if (total == 0) return {};
  // hicache_size * size_bytes / total: Python's true division of the exact product, which
  // double arithmetic matches while the product stays below 2^53.
  std::vector<double> shares;
  for (const std::uint64_t b : device_bytes)
    shares.push_back(size_gb * static_cast<double>(b) / static_cast<double>(total));
  return shares;
}

std::uint64_t vllm_offload_blocks(std::uint64_t cpu_bytes, std::uint64_t block_bytes_per_rank,
                                  std::uint64_t world) {
  if (block_bytes_per_rank == 0 || world == 0) return 0;
  return cpu_bytes / mul(block_bytes_per_rank, world);
}

HostMemory host_memory(const HostTierArgs& a, const ModelSpec& model, const PlanInput& in,
                       const Capacity& c, const NodeSpec& node, const std::string& source) {
  HostMemory m;
  if (a.kv_offloading_gib && *a.kv_offloading_gib > 0) {
    if (a.kv_offloading_backend.value_or("native") == "lmcache") {
      // vLLM before PR #42865 set LMCache's per-rank size to S / (tp · pp); later vLLM leaves
      // the size to the LMCache server. Either way the instance holds S.
      HostTier t = vllm_offloading(a, in, c, source);
      t.name = "LMCache via --kv-offloading-backend lmcache";
      t.bytes_per_rank = to_bytes(*a.kv_offloading_gib, kGiB, source, "--kv-offloading-size") /
                         (std::uint64_t{in.tp} * in.pp);
      t.exact = false;
      m.tiers.push_back(t);
    } else {
      m.tiers.push_back(vllm_offloading(a, in, c, source));
    }
  }
  if (a.lmcache) lmcache_tiers(a, m, source);
  if (a.hicache) m.tiers.push_back(sglang_hicache(a, model, in, c, m, source));
  if (a.host_cache_bytes && *a.host_cache_bytes > 0)
    // TensorRT-LLM: blocks_in_secondary_pool = host_cache_size // bytes per token //
    // tokens_per_block on each rank's own layers and heads, allocated pinned
    // (tensorrt_llm/_torch/pyexecutor/resource_manager.py @ 001541ba,
    // KVCacheManager.calculate_max_num_blocks): at most host_cache_size per rank.
    m.tiers.push_back(
        {.name = "TensorRT-LLM host cache",
         .setting = "kv_cache_config.host_cache_size " + std::to_string(*a.host_cache_bytes),
         .bytes_per_rank = *a.host_cache_bytes,
         .exact = false,
         .rule = "every rank its own secondary pool (resource_manager.py@001541ba)"});
  const std::uint64_t gpus = in.gpus ? in.gpus : std::uint64_t{in.tp} * in.pp;
  m.ranks_per_node =
      static_cast<std::uint32_t>(std::min<std::uint64_t>(gpus, node.gpus.value_or(8)));
  for (const HostTier& t : m.tiers) {
    const std::uint64_t node_bytes = mul(t.bytes_per_rank, m.ranks_per_node);
    if (t.pinned) {
      m.pinned_per_rank = add(m.pinned_per_rank, t.bytes_per_rank);
      m.pinned_per_node = add(m.pinned_per_node, node_bytes);
    } else {
      m.disk_per_node = add(m.disk_per_node, node_bytes);
    }
  }
  return m;
}

}  // namespace kvplan
