// Eviction: which retained tokens a sequence keeps, per layer and per KV head. Selections return
// a KeepSet (paged_kv.hpp: ascending slots and original positions per head, the same count for
// every head); PagedKvPool::compact applies it, gather_slots moves per-slot scores alongside.
//
// Tie-break everywhere: equal scores -> the lower position wins (is kept). Budgets count the
// current token. A budget >= the retained count keeps everything.
//
// streaming (StreamingLLM): keep the first `sink` and the last `window` slots.
// H2O: scores[h][t] accumulate, every decode step, the attention probability of slot t combined
//   over the query heads of KV head h's group (gqa sum | mean | max, default sum), combined per
//   step and then summed over steps. Keep the `recent` most recent slots plus the `heavy`
//   highest-scoring of the others. Sinks emerge from the scores.
// SnapKV: at the end of prefill, the last `window` queries (min(window, n)) vote: vote[hq][t] =
//   sum over those queries of their attention probability on slot t; combined over the group by
//   gqa; smoothed over t in [0, n - w) with 1D max or avg pooling of width `kernel`, stride 1,
//   padding kernel/2 (avg divides by kernel, pads count as 0, as torch avg_pool1d); keep the top
//   (budget - w') of [0, n - w) plus the last w' slots, w' = min(w, budget). budget >= n keeps all.
//
//   H2oSelectParams p{.num_kv_heads = 8, .num_tokens = n, .scores = s, .positions = pos,
//                     .positions_stride = n, .heavy = 64, .recent = 64};
//   KeepSet keep; Status st = h2o_select(p, &keep);   // keep.count == min(n, 128)
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "kvplan/kernels/common.hpp"
#include "kvplan/kernels/paged_kv.hpp"
#include "kvplan/policy.hpp"

namespace kvplan::kernels {

struct StreamingSelectParams {
  std::uint32_t num_kv_heads = 0;
  std::uint32_t num_tokens = 0;             // n retained slots
  const std::int32_t* positions = nullptr;  // [num_kv_heads, positions_stride]
  std::uint32_t positions_stride = 0;
  std::uint64_t sink = 4;
  std::uint64_t window = 1020;
};

struct H2oAccumulateParams {
  std::uint32_t num_q_heads = 0;
  std::uint32_t num_kv_heads = 0;
  std::uint32_t num_tokens = 0;  // n
  const float* probs = nullptr;  // [num_q_heads, n] (decode attention's probs)
  float* scores = nullptr;       // [num_kv_heads, n] accumulated in place
  GqaReduce gqa = GqaReduce::sum;
};

struct H2oSelectParams {
  std::uint32_t num_kv_heads = 0;
  std::uint32_t num_tokens = 0;
  const float* scores = nullptr;            // [num_kv_heads, n]
  const std::int32_t* positions = nullptr;  // [num_kv_heads, positions_stride]
  std::uint32_t positions_stride = 0;
  std::uint64_t heavy = 0;
  std::uint64_t recent = 0;
};

struct SnapKvSelectParams {
  std::uint32_t num_q_heads = 0;
  std::uint32_t num_kv_heads = 0;
  std::uint32_t num_tokens = 0;   // n, the prompt
  std::uint32_t num_queries = 0;  // w = min(window, n): observation queries in probs
  const float* probs = nullptr;   // [num_q_heads, w, n]: prefill probs of the last w queries
  const std::int32_t* positions = nullptr;  // [num_kv_heads, positions_stride]
  std::uint32_t positions_stride = 0;
  std::uint64_t budget = 0;
  std::uint32_t kernel = 7;  // >= 1
  PoolKind pool = PoolKind::max;
  GqaReduce gqa = GqaReduce::sum;
  float* pooled = nullptr;  // optional out [num_kv_heads, n]: smoothed votes
};

// ---- scoring math, shared by the CPU reference and the CUDA kernels (bit-identical) ----

// std::max(a, b) exactly: a unless a < b.
KVPLAN_HOST_DEVICE float ref_max(float a, float b) { return a < b ? b : a; }
// The query heads of a group combined (gqa=sum|mean|max): x[0], then x[g·stride] in order; mean
// divides at the end.
KVPLAN_HOST_DEVICE float gqa_combine(const float* x, std::uint64_t stride, std::uint32_t count,
                                     GqaReduce r) {
  float acc = x[0];
  for (std::uint32_t g = 1; g < count; ++g)
    acc = r == GqaReduce::max ? ref_max(acc, x[g * stride]) : acc + x[g * stride];
  return r == GqaReduce::mean ? acc / static_cast<float>(count) : acc;
}
// SnapKV's vote for slot t of KV head h: per query head of the group the sum of its w window
// probabilities (in order), combined over the group as gqa_combine does. probs [Hq, w, n].
KVPLAN_HOST_DEVICE float snapkv_vote(const float* probs, std::uint32_t h, std::uint32_t group,
                                     std::uint32_t w, std::uint32_t n, std::uint32_t t,
                                     GqaReduce r) {
  float acc = 0.f;
  for (std::uint32_t g = 0; g < group; ++g) {
    const float* pr = probs + (std::uint64_t{h} * group + g) * w * n;
    float s = 0.f;
    for (std::uint32_t q = 0; q < w; ++q) s += pr[std::uint64_t{q} * n + t];
    acc = g == 0 ? s : r == GqaReduce::max ? ref_max(acc, s) : acc + s;
  }
  return r == GqaReduce::mean ? acc / static_cast<float>(group) : acc;
}
// SnapKV's 1D pooling of the votes c over the candidates [0, prefix) at t < prefix: stride 1,
// padding kernel/2 (max pads with -inf, avg with 0 and divides by kernel).
KVPLAN_HOST_DEVICE float snapkv_pool(const float* c, std::uint32_t prefix, std::uint32_t t,
                                     std::uint32_t kernel, PoolKind pool) {
  const std::int64_t pad = kernel / 2, t0 = static_cast<std::int64_t>(t) - pad;
  float acc = pool == PoolKind::max ? -INFINITY : 0.f;
  for (std::int64_t j = t0; j < t0 + kernel; ++j) {
    if (j < 0 || j >= prefix) continue;
    acc = pool == PoolKind::max ? ref_max(acc, c[j]) : acc + c[j];
  }
  return pool == PoolKind::avg ? acc / static_cast<float>(kernel) : acc;
}

Status validate(const StreamingSelectParams& p);
Status validate(const H2oAccumulateParams& p);
Status validate(const H2oSelectParams& p);
Status validate(const SnapKvSelectParams& p);

Status streaming_select_ref(const StreamingSelectParams& p, KeepSet* keep);
// Fills keep from per-head ascending slot lists of equal length; positions [H, stride] give each
// kept slot's original position.
void fill_keep(const std::vector<std::vector<std::int32_t>>& slots, const std::int32_t* positions,
               std::uint32_t stride, KeepSet* keep);
Status h2o_accumulate_ref(const H2oAccumulateParams& p);
Status h2o_select_ref(const H2oSelectParams& p, KeepSet* keep);
Status snapkv_select_ref(const SnapKvSelectParams& p, KeepSet* keep);

Status streaming_select(const StreamingSelectParams& p, KeepSet* keep, Backend b = Backend::cpu);
Status h2o_accumulate(const H2oAccumulateParams& p, Backend b = Backend::cpu);
Status h2o_select(const H2oSelectParams& p, KeepSet* keep, Backend b = Backend::cpu);
Status snapkv_select(const SnapKvSelectParams& p, KeepSet* keep, Backend b = Backend::cpu);

// Budgets of a policy for a layer holding n tokens (SnapKV: n = prompt length), matching
// kvplan::retained(): h2o heavy = heavy.at(n), recent = recent.at(n), and recent = 1 when both
// are 0 (core keeps at least the current token); snapkv budget = max(1, budget.at(n)).
H2oSelectParams h2o_params(const RetentionPolicy& policy, std::uint64_t n);
std::uint64_t snapkv_budget(const RetentionPolicy& policy, std::uint64_t prompt);

}  // namespace kvplan::kernels
