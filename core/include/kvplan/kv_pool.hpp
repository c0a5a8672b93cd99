// The KV block pool of one replica, as the serving simulator sees it: the same page and block
// arithmetic as `kvplan plan` (planner.hpp), turned into per-sequence functions that a scheduler
// can call every step without re-running the planner or kv_cost.
//
// Worked example (tests/core/test_kv_pool.cpp): llama-3.1-8b, fp16, vLLM V1, block 16, a measured
// 40 GiB of "Available KV cache memory":
//   page           = 16 tokens · 8 heads · (128 + 128) · 2 bytes        = 65536 bytes
//   num_gpu_blocks = 42949672960 // 65536 // 32 layers per group        = 20480
//   usable_blocks  = 20480 − 1 (vLLM's null block)                      = 20479
//   blocks(1000)   = ceil(1000 / 16)                                     = 63 (one group)
//   seq_bytes(1000)= 1000 · 2 · 32 · 8 · 128 · 2                         = 131072000 bytes
//
// Groups follow vLLM's KV-cache groups (kv_cache_utils.py, see docs/deploy.md): each holds
// `layers` layers of one spec type and takes one block from the shared pool per page it needs.
// What one sequence holds in a group after `computed` tokens, with `scheduled` more being
// computed this step (vLLM's allocate_slots after remove_skipped_blocks):
//   full     ceil((computed + scheduled) / bs)
//   sliding  ceil((computed + scheduled) / bs) − max(0, floor((computed − W + 1) / bs))
//            (SlidingWindowManager.remove_skipped_blocks frees the blocks whose tokens are all
//            outside the window; vllm/v1/core/single_type_kv_cache_manager.py@002f3491)
//   chunked  ceil((computed + scheduled) / bs) − floor(floor(computed / C) · C / bs)
//            (the blocks before the current chunk are freed, as for sliding windows)
//   state    a fixed number of pages (1; 2 with mamba_cache_mode align; ceil(n / bs) with all);
//            vLLM only: SGLang's state lives in its Mamba pool, outside the blocks (max_running)
// Under a retention policy (streaming, H2O, SnapKV) a sequence holds retained(policy, n) tokens
// per layer instead of n (capped at the window in sliding/chunked groups): ceil(kept / bs).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kvplan/model.hpp"
#include "kvplan/planner.hpp"

namespace kvplan {

struct KvPoolGroup {
  AttentionKind kind = AttentionKind::full;  // full (MLA too), sliding, chunked; none = state
  std::uint64_t window = 0;                  // sliding: W tokens; chunked: C tokens
  std::uint32_t layers = 0;                  // layers sharing the group's blocks (group size)
  // Blocks a sequence holds whatever its length (vLLM's kpool tail group, KpoolTailSpec: one,
  // in slots the indexer owns, so layers 0); 0 = by kind.
  std::uint32_t fixed_blocks = 0;
};

class KvPool {
 public:
  Engine engine = Engine::vllm;
  std::uint32_t block_size = 0;      // tokens per block (after vLLM's hybrid alignment)
  std::uint64_t page_bytes = 0;      // one block of one layer on one rank
  std::uint64_t num_gpu_blocks = 0;  // the planner's num_gpu_blocks (one replica)
  std::uint64_t usable_blocks = 0;   // vLLM: num_gpu_blocks − 1 (the null block); others: all
  std::vector<KvPoolGroup> groups;   // one per KV-cache group; each takes its own blocks
  RetentionPolicy policy{};
  // Recurrent (Mamba, GDN, ...) layers hold a state per sequence. vLLM pages it in a group of
  // its own (groups[g].kind none); SGLang keeps it in a separate Mamba pool of slots, so its
  // groups hold attention only. max_running: the running requests SGLang's scheduler admits
  // (SglangPools::max_running_requests: its request table, mamba_slots // 3 with the radix
  // cache on, max_total_num_tokens // 2 where --max-running-requests is not given); 0 = no cap
  // (other engines).
  bool recurrent_state = false;
  std::uint64_t max_running = 0;
  // SGLang turned its overlap scheduler off for this model (sglang_overlap_schedule(model, in):
  // a Mamba radix cache resolved to no_buffer); the serving simulator schedules without it.
  bool overlap_off = false;

  // Blocks one sequence holds in group g after `computed` tokens with `scheduled` more being
  // computed (see the header comment). `prefill` is the prompt length (SnapKV).
  std::uint64_t group_blocks(std::size_t g, std::uint64_t computed, std::uint64_t scheduled = 0,
                             std::optional<std::uint64_t> prefill = std::nullopt) const;
  // Σ over groups.
  std::uint64_t blocks(std::uint64_t computed, std::uint64_t scheduled = 0,
                       std::optional<std::uint64_t> prefill = std::nullopt) const;
  // The planner's reservation for one request of n tokens (plan_capacity's blocks_per_request at
  // context n): the most blocks a sequence of n tokens can hold at any step.
  std::uint64_t max_blocks(std::uint64_t n) const;
  // KV bytes (per rank, unpaged, in the pool's format, metadata included) of one sequence of n
  // tokens: equal to kv_cost(...).bytes_per_request with block_size 1, without calling it.
  std::uint64_t seq_bytes(std::uint64_t n,
                          std::optional<std::uint64_t> prefill = std::nullopt) const;
  // True when every group frees nothing as the sequence grows (full attention, full policy).
  bool monotone() const { return monotone_; }
  // True when every group is full attention and no recurrent state is kept (in a group or a
  // pool of its own): the one layout the simulator's prefix cache and TensorRT-LLM's scheduler
  // model.
  bool full_attention_only() const {
    if (recurrent_state) return false;
    for (const KvPoolGroup& g : groups)
      if (g.kind != AttentionKind::full) return false;
    return true;
  }

  struct Impl;
  std::shared_ptr<const Impl> impl;  // the planner's evaluator (private to core)

 private:
  friend KvPool make_kv_pool(const ModelSpec&, const PlanInput&, const std::string&);
  std::uint64_t kept(std::uint64_t n, std::optional<std::uint64_t> prefill) const;
  // seq_bytes = growing_rate · kept + Σ capped rate · min(kept, cap) + state (non-kivi formats).
  struct Capped {
    std::uint64_t rate = 0, cap = 0;
  };
  bool linear_ = true;
  bool monotone_ = true;
  std::uint64_t growing_rate_ = 0;
  std::vector<Capped> capped_;
  // Layers of a kpool indexer (one key per complete pool, plus its tail: formula.hpp
  // indexer_bytes), summed over the stages; not linear in the tokens.
  std::uint64_t kpool_indexer_layers_ = 0;
  std::uint64_t state_bytes_ = 0;
  std::uint64_t state_pages_ = 1;
  bool state_all_ = false;  // mamba_cache_mode all: one state page per block of the sequence
};

// The pool of one replica for the deployment `in` (a paged KV format; pipeline stages under vLLM
// and SGLang: one pool, the fewest blocks any stage has). Throws kvplan::Error naming `source`
// and the field: TensorRT-LLM's stages, stages forming different groups, kivi (no uniform page),
// or a pool without a usable block.
KvPool make_kv_pool(const ModelSpec& model, const PlanInput& in,
                    const std::string& source = "arguments");

}  // namespace kvplan
