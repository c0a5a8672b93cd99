#include "kvplan/kernels/eviction.hpp"

#ifdef KVPLAN_HAVE_CUDA
#include "kvplan/kernels/cuda.hpp"
#endif

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

namespace kvplan::kernels {
namespace {

// The `k` highest of score[0..m) by (score desc, position asc); returned ascending by slot.
std::vector<std::int32_t> top_k(const float* score, const std::int32_t* pos, std::uint32_t m,
                                std::uint64_t k) {
  std::vector<std::int32_t> idx(m);
  std::iota(idx.begin(), idx.end(), 0);
  k = std::min<std::uint64_t>(k, m);
  std::partial_sort(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(k), idx.end(),
                    [&](std::int32_t a, std::int32_t b) {
                      if (score[a] != score[b]) return score[a] > score[b];
                      return pos[a] < pos[b];
                    });
  idx.resize(k);
  std::sort(idx.begin(), idx.end());
  return idx;
}

}  // namespace

Status h2o_accumulate_ref(const H2oAccumulateParams& p) {
  if (Status s = validate(p); !s.ok()) return s;
  const std::uint32_t group = p.num_q_heads / p.num_kv_heads, n = p.num_tokens;
  for (std::uint32_t h = 0; h < p.num_kv_heads; ++h)
    for (std::uint32_t t = 0; t < n; ++t)
      p.scores[std::uint64_t{h} * n + t] +=
          gqa_combine(p.probs + std::uint64_t{h} * group * n + t, n, group, p.gqa);
  return Status::Ok();
}

Status h2o_select_ref(const H2oSelectParams& p, KeepSet* keep) {
  if (Status s = validate(p); !s.ok()) return s;
  const std::uint32_t n = p.num_tokens;
  std::vector<std::vector<std::int32_t>> slots(p.num_kv_heads);
  for (std::uint32_t h = 0; h < p.num_kv_heads; ++h) {
    if (n <= p.heavy + p.recent) {
      slots[h].resize(n);
      std::iota(slots[h].begin(), slots[h].end(), 0);
      continue;
    }
    const std::uint32_t older = n - static_cast<std::uint32_t>(p.recent);
    slots[h] = top_k(p.scores + std::uint64_t{h} * n,
                     p.positions + std::uint64_t{h} * p.positions_stride, older, p.heavy);
    for (std::uint32_t t = older; t < n; ++t) slots[h].push_back(static_cast<std::int32_t>(t));
  }
  fill_keep(slots, p.positions, p.positions_stride, keep);
  return Status::Ok();
}

Status snapkv_select_ref(const SnapKvSelectParams& p, KeepSet* keep) {
  if (Status s = validate(p); !s.ok()) return s;
  const std::uint32_t n = p.num_tokens, w = p.num_queries;
  const std::uint32_t group = p.num_q_heads / p.num_kv_heads;
  std::vector<std::vector<std::int32_t>> slots(p.num_kv_heads);
  std::vector<float> combined(n), pooled(n);
  const std::uint32_t wk = static_cast<std::uint32_t>(std::min<std::uint64_t>(w, p.budget));
  const std::uint32_t prefix = n - wk;  // candidates scored by the votes
  for (std::uint32_t h = 0; h < p.num_kv_heads; ++h) {
    for (std::uint32_t t = 0; t < n; ++t)
      combined[t] = snapkv_vote(p.probs, h, group, w, n, t, p.gqa);
    for (std::uint32_t t = 0; t < prefix; ++t)
      pooled[t] = snapkv_pool(combined.data(), prefix, t, p.kernel, p.pool);
    for (std::uint32_t t = prefix; t < n; ++t) pooled[t] = combined[t];
    if (p.pooled) std::copy(pooled.begin(), pooled.end(), p.pooled + std::uint64_t{h} * n);
    if (n <= p.budget) {
      slots[h].resize(n);
      std::iota(slots[h].begin(), slots[h].end(), 0);
      continue;
    }
    slots[h] = top_k(pooled.data(), p.positions + std::uint64_t{h} * p.positions_stride, prefix,
                     p.budget - wk);
    for (std::uint32_t t = prefix; t < n; ++t) slots[h].push_back(static_cast<std::int32_t>(t));
  }
  fill_keep(slots, p.positions, p.positions_stride, keep);
  return Status::Ok();
}

#ifdef KVPLAN_HAVE_CUDA
#define KVPLAN_CUDA_CALL(name, ...) return name##_cuda(__VA_ARGS__)
#else
#define KVPLAN_CUDA_CALL(name, ...) return Status::Unimplemented(#name ": CUDA backend not built")
#endif

#define KVPLAN_DISPATCH(name, ...)         \
  switch (b) {                             \
    case Backend::cpu_ref:                 \
    case Backend::cpu:                     \
      return name##_ref(__VA_ARGS__);      \
    case Backend::cuda:                    \
      KVPLAN_CUDA_CALL(name, __VA_ARGS__); \
  }                                        \
  return Status::Invalid(#name ": unknown backend")

Status streaming_select(const StreamingSelectParams& p, KeepSet* keep, Backend b) {
  KVPLAN_DISPATCH(streaming_select, p, keep);
}
Status h2o_accumulate(const H2oAccumulateParams& p, Backend b) {
  KVPLAN_DISPATCH(h2o_accumulate, p);
}
Status h2o_select(const H2oSelectParams& p, KeepSet* keep, Backend b) {
  KVPLAN_DISPATCH(h2o_select, p, keep);
}
Status snapkv_select(const SnapKvSelectParams& p, KeepSet* keep, Backend b) {
  KVPLAN_DISPATCH(snapkv_select, p, keep);
}

H2oSelectParams h2o_params(const RetentionPolicy& policy, std::uint64_t n) {
  H2oSelectParams p;
  const H2oBudget b = h2o_budget(policy, n);  // core's split, so bytes match its prediction
  p.heavy = b.heavy;
  p.recent = b.recent;
  return p;
}

std::uint64_t snapkv_budget(const RetentionPolicy& policy, std::uint64_t prompt) {
  return std::max<std::uint64_t>(1, policy.budget.at(prompt));
}

}  // namespace kvplan::kernels
