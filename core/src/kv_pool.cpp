#include "kvplan/kv_pool.hpp"

#include <algorithm>

#include "kvplan/checked.hpp"
#include "kvplan/error.hpp"
#include "kvplan/formula.hpp"
#include "kvplan/report.hpp"
#include "planner_eval.hpp"

namespace kvplan {

struct KvPool::Impl {
  Impl(const ModelSpec& m, const PlanInput& in, const std::string& source)
      : model(m), ev(model, in, source) {}
  ModelSpec model;  // ev keeps a reference to it
  detail::PlanEval ev;
  KvLayout layout;  // kivi's exact bytes (not linear in n)
};

std::uint64_t KvPool::kept(std::uint64_t n, std::optional<std::uint64_t> prefill) const {
  return is_full(policy) ? n : retained(policy, n, prefill);
}

std::uint64_t KvPool::group_blocks(std::size_t g, std::uint64_t computed, std::uint64_t scheduled,
                                   std::optional<std::uint64_t> prefill) const {
  const KvPoolGroup& grp = groups[g];
  if (grp.fixed_blocks) return grp.fixed_blocks;
  const std::uint64_t total = add(computed, scheduled, "sequence tokens");
  if (grp.kind == AttentionKind::none)
    return state_all_ ? ceil_div(total, block_size) : state_pages_;
  if (!is_full(policy)) {
    std::uint64_t k = kept(total, prefill);
    if (grp.kind == AttentionKind::sliding || grp.kind == AttentionKind::chunked)
      k = std::min(k, grp.window);
    return ceil_div(k, block_size);
  }
  const std::uint64_t held = ceil_div(total, block_size);
  std::uint64_t freed = 0;
  if (grp.kind == AttentionKind::sliding && computed + 1 > grp.window) {
    // remove_skipped_blocks: the tokens before computed − W + 1 are outside every future window.
    freed = (computed + 1 - grp.window) / block_size;
  } else if (grp.kind == AttentionKind::chunked) {
    freed = computed / grp.window * grp.window / block_size;  // blocks before the current chunk
  }
  return held - freed;
}

std::uint64_t KvPool::blocks(std::uint64_t computed, std::uint64_t scheduled,
                             std::optional<std::uint64_t> prefill) const {
  std::uint64_t b = 0;
  for (std::size_t g = 0; g < groups.size(); ++g)
    b = add(b, group_blocks(g, computed, scheduled, prefill), "blocks");
  return b;
}

std::uint64_t KvPool::max_blocks(std::uint64_t n) const {
  return impl->ev.blocks_per_request(impl->ev.stages.front(), n);
}

std::uint64_t KvPool::seq_bytes(std::uint64_t n, std::optional<std::uint64_t> prefill) const {
  if (!linear_) return request_bytes(impl->layout, impl->ev.in.format, policy, n, 1, prefill);
  const std::uint64_t k = kept(n, prefill);
  std::uint64_t b = add(mul(growing_rate_, k, "sequence bytes"), state_bytes_, "sequence bytes");
  for (const auto& c : capped_) b = add(b, mul(c.rate, std::min(k, c.cap), "sequence bytes"));
  if (kpool_indexer_layers_ > 0) {
    const ModelSpec& m = impl->model;
    b = add(b,
            mul(indexer_bytes(m.index_head_dim, m.index_kpool, m.index_tail, k),
                kpool_indexer_layers_, "sequence bytes"),
            "sequence bytes");
  }
  return b;
}

KvPool make_kv_pool(const ModelSpec& model, const PlanInput& in, const std::string& source) {
  // Pipeline stages: vLLM's scheduler runs one block pool whose block ids every stage holds, each
  // for its own layers, with the fewest blocks any stage has (get_kv_cache_configs,
  // vllm/v1/core/kv_cache_utils.py@001cabc1: every worker's num_blocks set to the minimum).
  // SGLang's stages run one scheduler's decisions in lockstep (event_loop_pp), so its pool is
  // the stage with the fewest tokens, as plan sizes it. TensorRT-LLM's are not simulated.
  if (in.pp != 1 && in.engine == Engine::trtllm)
    throw Error(source, "pp",
                "the serving simulator runs pipeline stages for vLLM and SGLang only (" +
                    engine_rules(in).label() + " with pp " + std::to_string(in.pp) + ")");
  KvPool p;
  auto impl = std::make_shared<KvPool::Impl>(model, in, source);
  const detail::PlanEval& ev = impl->ev;
  if (!ev.paged)
    throw Error(source, "kv_format",
                "kivi has no uniform KV page, so it has no block pool to schedule; simulate a "
                "paged format (fp16, bf16, fp8, int8)");
  const auto& st = ev.stages.front();
  // One pool for every stage: kvplan forms each stage's KV-cache groups from its own layers, and
  // the simulator schedules one layout, so every stage must form the same groups (as many, of the
  // same kinds and windows, in any order), as a dense model's do and gemma-2-9b's at pp 2 do (11
  // sliding and 10 full layers on one stage, 10 and 11 on the other: one group of each, 11 layers
  // a group, as vLLM forms them over the whole model, kv_cache_utils.py@001cabc1
  // get_kv_cache_configs). A stage with a group kind another lacks is refused.
  const auto layout = [](const detail::PlanStage& s) {
    std::vector<std::pair<int, std::uint64_t>> g;
    for (const auto t : s.group_types)
      g.emplace_back(static_cast<int>(s.types[t].kind), std::uint64_t{s.types[t].window});
    std::sort(g.begin(), g.end());
    return g;
  };
  const auto first = layout(st);
  for (const auto& other : ev.stages) {
    if (layout(other) != first)
      throw Error(source, "pp",
                  "the pipeline stages form different KV-cache groups (how many, their layer "
                  "kinds or windows: a hybrid model's layers split unevenly over the stages); "
                  "the serving simulator runs one pool of one group layout");
  }
  if (ev.rules->context_shards(in) > 1)
    throw Error(source, "decode_context_parallel_size",
                "the serving simulator models no decode context parallelism (dcp 1)");
  for (const auto& t : st.types)
    if (ev.block_of(t) != ev.bs)
      throw Error(source, "model",
                  "the layers' pages unify to different block sizes (" +
                      std::to_string(ev.block_of(t)) + " and " + std::to_string(ev.bs) +
                      " tokens); the serving simulator models one block size");
  p.engine = in.engine;
  p.block_size = ev.bs;
  p.page_bytes = ev.page;
  p.num_gpu_blocks = ev.min_blocks;
  p.usable_blocks = ev.usable_blocks();
  p.policy = in.policy;
  p.overlap_off = in.engine == Engine::sglang && sglang_overlap_schedule(in) &&
                  !sglang_overlap_schedule(model, in);
  // SGLang's scheduler runs at most max_running_requests (its request table, the Mamba slots,
  // half the pool's tokens: planner_sglang.cpp); with stages, the fewest any stage has.
  for (const auto& stage : ev.stages)
    if (stage.sglang) {
      const std::uint64_t cap = std::max<std::uint64_t>(stage.sglang->max_running_requests, 1);
      p.max_running = p.max_running ? std::min(p.max_running, cap) : cap;
    }
  // An attention-free model holds nothing: its one block is the null block, and no request
  // takes a block (the pool has no group).
  if (model.attention_free && !ev.loads())
    throw Error(source, "gpu_memory",
                "the weights and reserve exceed the GPU's budget by " +
                    std::to_string(ev.mem.shortfall_bytes + ev.mem.outside_shortfall_bytes) +
                    " bytes: the model does not load");
  // What the fraction leaves out cannot hold what the engine allocates beside its budget (the
  // context, graphs captured outside it, vLLM Model Runner V2's sampler state and warm-up): it
  // fails to start, so there is nothing to serve (plan and check say START FAILS / engine_starts).
  if (ev.mem.outside_shortfall_bytes > 0)
    throw Error(source, "gpu_memory",
                "the engine does not start: what the memory fraction leaves out is " +
                    human_bytes(ev.mem.outside_shortfall_bytes) +
                    " short of what it allocates beside its budget (kvplan check: "
                    "engine_starts names the terms and a fraction that starts)");
  if (p.usable_blocks == 0 && !model.attention_free)
    throw Error(source, "gpu_memory",
                "no KV cache block is left for requests (" +
                    std::to_string(ev.mem.available_bytes) +
                    " bytes available for the KV cache, a block takes " +
                    std::to_string(mul(ev.page, st.group_size)) + ")");
  for (auto t : st.group_types) {
    const auto& lt = st.types[t];
    if (lt.kind == AttentionKind::none) p.recurrent_state = true;
    // SGLang's num_gpu_blocks is its full-attention pool's tokens; the state has its own pool.
    if (lt.kind == AttentionKind::none && st.sglang) continue;
    p.groups.push_back({lt.kind, lt.window, st.group_size});
    if (lt.kind == AttentionKind::none) {
      p.state_pages_ = ev.pages(lt, 0);
      p.state_all_ = ev.rules->recurrent_state_grows(in);
    } else if (lt.kind != AttentionKind::full || !is_full(in.policy)) {
      p.monotone_ = false;  // windows, chunks and eviction free blocks as a sequence grows
    }
  }
  // vLLM's kpool tail: one block a sequence, in the indexer's slots (Vllm::attach_stage_pools).
  if (st.tail_blocks > 0)
    p.groups.push_back({AttentionKind::sliding, model.index_kpool, 0, st.tail_blocks});
  // The linear form of kv_cost's bytes: one token's bytes in every layer whose cache grows, one
  // token's bytes in each capped group (up to its window), the recurrent state; summed over the
  // pipeline stages (one TP rank of each: what a step reads).
  p.linear_ = in.format.dtype != KvDtype::kivi;
  for (const auto& stage : ev.stages) {
    KvCostInput ci = ev.make_cost_input(1, stage.draft_layers);
    ci.block_size = 1;
    ci.policy = RetentionPolicy{};
    const KvCost one = kv_cost(stage.sub, ci, source);
    for (const auto& g : one.groups) {
      if (g.role == GroupRole::state) continue;
      if (g.role == GroupRole::indexer && model.index_kpool > 1) {
        p.kpool_indexer_layers_ += g.layers;
        continue;
      }
      if (g.kind == AttentionKind::sliding || g.kind == AttentionKind::chunked)
        p.capped_.push_back({g.bytes, g.window});
      else
        p.growing_rate_ = add(p.growing_rate_, g.bytes, "bytes per token");
    }
    p.state_bytes_ = add(p.state_bytes_, one.state_bytes_per_request, "state bytes");
  }
  if (!p.linear_) {
    // The state dtypes as the planner costs them (the engine's default where the plan sets none).
    const KvCostInput dtypes = ev.make_cost_input(1);
    impl->layout = make_layout(st.sub, in.tp, st.draft_layers, source, dtypes.conv_state_dtype,
                               dtypes.ssm_state_dtype);
  }
  p.impl = std::move(impl);
  return p;
}

}  // namespace kvplan
