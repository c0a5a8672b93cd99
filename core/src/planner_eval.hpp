// Private to core: the planner's evaluator. It fixes one deployment (memory budget, pipeline
// stages, vLLM KV-cache groups, page size) and answers "do B requests of n tokens fit?" cheaply,
// so the solvers can binary-search n and search GPU counts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kvplan/engine_rules.hpp"
#include "kvplan/formula.hpp"
#include "kvplan/planner.hpp"

namespace kvplan::detail {

// Exact products of two 64-bit counts (GCC/Clang's 128-bit integer).
__extension__ typedef unsigned __int128 u128;

// One KV-cache spec type of a stage: full attention (MLA included), sliding with a window,
// chunked with a chunk size, or a recurrent state (kind none).
// A type's geometry (kv_heads, widths: per rank, 0 = the model's) and, once the page size is
// unified (vLLM's unify_kv_cache_spec_page_size), its own block size and its page: the layer's
// page grown to the common one by a larger block or by padding. Layers of one kind whose
// geometry differs and nothing else (vLLM's UniformTypeKVCacheSpecs) become one type of count
// 1 whose page is the sum of theirs.
struct PlanLayerType {
  AttentionKind kind = AttentionKind::full;
  std::uint64_t window = 0;
  std::uint32_t count = 0;  // layers of this type on the stage
  std::uint32_t kv_heads = 0, k_width = 0, v_width = 0;
  std::uint32_t block_size = 0;  // tokens per block of this type; 0 = PlanEval::bs
  std::uint64_t page = 0;        // bytes of one block of one layer; 0 = PlanEval::page
};
struct PlanStage {
  ModelSpec sub;  // the stage's layers (draft layers on the last stage)
  KvCost kv;      // kv_cost of one request at in.context
  std::vector<PlanLayerType> types;
  std::vector<std::size_t> group_types;  // one entry per KV-cache group: index into types
  std::uint32_t cached = 0;              // layers with an attention cache (drafts included)
  std::uint32_t state_layers = 0;        // layers with a recurrent state
  std::uint32_t draft_layers = 0;        // speculative layers on this stage
  std::uint32_t group_size = 0;
  std::uint64_t block_bytes = 0;  // bytes one block id takes over the stage: page · group_size
  // vLLM's GLM-5.3-Flash layout (Vllm::attach_stage_pools): the recurrent groups' pages live in
  // the MLA layers' slots, so a block id costs the MLA and indexer pages alone and a request is
  // charged every group's blocks at that cost; tail_blocks: the kpool tail's one block.
  bool shares_slots = false;
  std::uint32_t tail_blocks = 0;
  std::uint64_t num_blocks = 0;  // this stage's own available // block_bytes
  // SGLang's full / SWA / Mamba pools (planner_sglang.cpp) and TensorRT-LLM's per-window pools
  // (planner_trtllm.cpp), when the stage follows those engines; swa_window: the SWA layers'
  // largest window.
  std::optional<SglangPools> sglang;
  std::uint64_t swa_window = 0;
  bool sglang_all_swa = false;  // every attention layer in the SWA pool
  std::vector<TrtllmWindow> trtllm;
  std::vector<std::vector<std::uint64_t>> trtllm_requested;  // StageCapacity::trtllm_requested
  std::optional<TrtllmStatePool> trtllm_states;              // StageCapacity::trtllm_states
  // The engine sizes this stage by its own pools (SGLang's, TensorRT-LLM's), not uniform pages.
  bool engine_pools() const { return sglang || !trtllm.empty() || trtllm_states; }
};

struct PlanEval {
  using LayerType = PlanLayerType;
  using Stage = PlanStage;

  PlanEval(const ModelSpec& model, const PlanInput& in, const std::string& source);

  KvCostInput make_cost_input(std::uint64_t n, std::uint32_t drafts = 0) const;
  std::uint64_t pages(const LayerType& t, std::uint64_t n) const;  // one layer, one request
  std::uint32_t block_of(const LayerType& t) const { return t.block_size ? t.block_size : bs; }
  std::uint64_t page_of(const LayerType& t) const { return t.page ? t.page : page; }
  std::uint64_t blocks_per_request(const Stage& st, std::uint64_t n) const;  // Σ over groups
  // Blocks of `block` tokens one rank keeps of n tokens under decode context parallelism
  // (each rank holds cdiv(n, shards) of them; 1 shard without it).
  std::uint64_t sharded_blocks(std::uint64_t n, std::uint64_t block) const;
  std::uint64_t startup_bytes(const Stage& st, std::uint64_t n) const;  // Σ over layers · page
  std::uint64_t request_bytes(const Stage& st, std::uint64_t n) const;  // engine's bytes
  // per_replica requests of n tokens fit on every stage.
  bool fits(std::uint64_t n, std::uint64_t per_replica) const;
  // The weights and reserve fit the budget (no shortfall inside or outside it).
  bool loads() const;
  // A model without a KV cache: the requests a replica runs at once (max_num_seqs, or the
  // engine's default), the only bound it has. Throws Error when the engine has no default.
  std::uint64_t attention_free_seqs() const;
  // Blocks requests can use: vLLM keeps one null block out of the pool.
  std::uint64_t usable_blocks() const;
  // One request of n tokens passes the engine's startup check (the auto-fit's test too).
  bool starts(std::uint64_t n) const;
  // The most requests of n tokens one replica holds at once (every stage's pools).
  std::uint64_t requests_at(std::uint64_t n) const;
  // SGLang / TensorRT-LLM: the binding pool of a stage for requests of n tokens, as
  // capacity / need (its "maximum concurrency").
  std::pair<std::uint64_t, std::uint64_t> pool_ratio(const Stage& st, std::uint64_t n) const;
  void attach_engine_pools();  // fills Stage::sglang / Stage::trtllm (after page)
  // Longest n in [1, cap] (cap 0 = 2^40) with fits(n, per_replica), or with starts(n) when
  // `startup`; 0 when n = 1 does not.
  std::uint64_t longest(std::uint64_t per_replica, std::uint64_t cap, bool startup = false) const;

  const ModelSpec& model;
  PlanInput in;
  std::string source;
  std::uint32_t bs = 16;
  std::uint32_t heads = 0;  // KV heads per rank
  std::uint32_t replicas = 1;
  MemoryBudget mem;
  bool paged = true;
  std::uint64_t page = 0;
  std::uint64_t state_bytes = 0;  // one layer's recurrent state, one sequence, one rank
  std::uint64_t min_blocks = 0;   // minimum over stages (vLLM: over all ranks)
  std::vector<Stage> stages;
  const EngineRules* rules = nullptr;  // engine_rules(in)
};

// Engine pools of one stage, once ev.page and ev.bs are known: planner_sglang.cpp,
// planner_trtllm.cpp.
void sglang_stage_pools(const PlanEval& ev, PlanEval::Stage& st);
// The stage's SGLang pools (st.sglang) as HiCache mirrors them; empty without them.
std::vector<SglangDevicePool> sglang_device_pools(const PlanEval& ev, const PlanEval::Stage& st);
void trtllm_stage_pools(const PlanEval& ev, PlanEval::Stage& st);

}  // namespace kvplan::detail
