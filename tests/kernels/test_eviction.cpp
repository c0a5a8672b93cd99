// Eviction selections on hand-built score patterns: exact kept positions, ties (lower position
// wins), budgets larger than the sequence, budget 0, GQA combinations, SnapKV pooling.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "kvplan/kernels/eviction.hpp"
#include "kvplan/policy.hpp"

namespace kvplan::kernels {
namespace {

using Pos = std::vector<std::int32_t>;

// Positions [H, n]: original positions 10·t + h (distinct per head, ascending).
Pos positions(std::uint32_t H, std::uint32_t n) {
  Pos p(std::uint64_t{H} * n);
  for (std::uint32_t h = 0; h < H; ++h)
    for (std::uint32_t t = 0; t < n; ++t)
      p[std::uint64_t{h} * n + t] = static_cast<std::int32_t>(10 * t + h);
  return p;
}

Pos head_slots(const KeepSet& k, std::uint32_t h) {
  return Pos(k.slots.begin() + std::int64_t{h} * k.count,
             k.slots.begin() + std::int64_t{h + 1} * k.count);
}

struct StreamingCase {
  std::uint32_t n;
  std::uint64_t sink, window;
  Pos want;
};

class Streaming : public ::testing::TestWithParam<StreamingCase> {};

TEST_P(Streaming, KeepsSinkAndWindow) {
  const auto& c = GetParam();
  const Pos pos = positions(2, c.n);
  KeepSet keep;
  ASSERT_TRUE(streaming_select({.num_kv_heads = 2,
                                .num_tokens = c.n,
                                .positions = pos.data(),
                                .positions_stride = c.n,
                                .sink = c.sink,
                                .window = c.window},
                               &keep)
                  .ok());
  EXPECT_EQ(head_slots(keep, 0), c.want);
  EXPECT_EQ(head_slots(keep, 1), c.want);
  for (std::uint32_t i = 0; i < keep.count; ++i)
    EXPECT_EQ(keep.positions[keep.count + i], 10 * c.want[i] + 1);
}

INSTANTIATE_TEST_SUITE_P(Patterns, Streaming,
                         ::testing::Values(StreamingCase{10, 2, 3, {0, 1, 7, 8, 9}},
                                           StreamingCase{4, 2, 3, {0, 1, 2, 3}},  // budget > length
                                           StreamingCase{
                                               5, 2, 3, {0, 1, 2, 3, 4}},      // budget == length
                                           StreamingCase{6, 0, 2, {4, 5}},     // no sink
                                           StreamingCase{6, 3, 0, {0, 1, 2}},  // no window
                                           StreamingCase{6, 0, 0, {}},         // budget 0
                                           StreamingCase{3, 4, 100, {0, 1, 2}}),  // window > length
                         [](const auto& info) {
                           std::string name = "n";
                           name += std::to_string(info.param.n);
                           name += "_sink";
                           name += std::to_string(info.param.sink);
                           name += "_window";
                           name += std::to_string(info.param.window);
                           return name;
                         });

struct H2oCase {
  std::string name;
  std::vector<float> scores;  // one head
  std::uint64_t heavy, recent;
  Pos want;
};

class H2o : public ::testing::TestWithParam<H2oCase> {};

TEST_P(H2o, KeepsHeavyHittersAndRecent) {
  const auto& c = GetParam();
  const std::uint32_t n = static_cast<std::uint32_t>(c.scores.size());
  const Pos pos = positions(1, n);
  KeepSet keep;
  ASSERT_TRUE(h2o_select({.num_kv_heads = 1,
                          .num_tokens = n,
                          .scores = c.scores.data(),
                          .positions = pos.data(),
                          .positions_stride = n,
                          .heavy = c.heavy,
                          .recent = c.recent},
                         &keep)
                  .ok());
  EXPECT_EQ(head_slots(keep, 0), c.want);
}

INSTANTIATE_TEST_SUITE_P(
    Patterns, H2o,
    ::testing::Values(H2oCase{"heavy_hitters", {5, 1, 1, 9, 1, 1, 1, 1}, 2, 2, {0, 3, 6, 7}},
                      H2oCase{"sink_emerges", {50, 1, 2, 1, 3, 1, 1, 1}, 1, 2, {0, 6, 7}},
                      H2oCase{"ties_lower_position_wins", {1, 1, 1, 1, 1, 1}, 2, 1, {0, 1, 5}},
                      H2oCase{"tie_at_cut", {0, 3, 2, 3, 2, 0}, 3, 1, {1, 2, 3, 5}},
                      H2oCase{"recent_wins_over_heavy", {0, 0, 0, 0, 99, 99}, 1, 2, {0, 4, 5}},
                      H2oCase{"budget_larger_than_length", {3, 2, 1}, 4, 4, {0, 1, 2}},
                      H2oCase{"budget_zero", {3, 2, 1}, 0, 0, {}},
                      H2oCase{"heavy_only", {1, 7, 3, 7}, 2, 0, {1, 3}},
                      H2oCase{"recent_only", {9, 7, 3, 7}, 0, 2, {2, 3}}),
    [](const auto& info) { return info.param.name; });

TEST(H2o, PolicyBudgetsFollowCore) {
  RetentionPolicy p;  // built directly: core's parser refuses heavy + recent = 0
  p.kind = PolicyKind::h2o;
  const H2oSelectParams sp = h2o_params(p, 100);
  EXPECT_EQ(sp.heavy + sp.recent, retained(p, 100));  // core keeps >= 1 token
  const RetentionPolicy f = parse_policy("h2o:keep=0.2,recent=0.1");
  const H2oSelectParams fp = h2o_params(f, 1000);
  EXPECT_EQ(fp.heavy + fp.recent, retained(f, 1000));
}

struct GqaCase {
  GqaReduce gqa;
  std::vector<float> want;  // [2 kv heads, 3 tokens]
};

class H2oAccumulateGqa : public ::testing::TestWithParam<GqaCase> {};

TEST_P(H2oAccumulateGqa, CombinesTheGroupPerStepThenSums) {
  // 4 query heads, 2 KV heads: query heads {0,1} -> KV 0, {2,3} -> KV 1.
  const std::vector<float> probs = {0.5f,  0.25f, 0.25f,  // q0
                                    0.0f,  0.5f,  0.5f,   // q1
                                    1.0f,  0.0f,  0.0f,   // q2
                                    0.25f, 0.25f, 0.5f};  // q3
  std::vector<float> scores(6, 1.f);
  ASSERT_TRUE(h2o_accumulate({.num_q_heads = 4,
                              .num_kv_heads = 2,
                              .num_tokens = 3,
                              .probs = probs.data(),
                              .scores = scores.data(),
                              .gqa = GetParam().gqa})
                  .ok());
  EXPECT_EQ(scores, GetParam().want);
}

INSTANTIATE_TEST_SUITE_P(
    Reductions, H2oAccumulateGqa,
    ::testing::Values(GqaCase{GqaReduce::sum, {1.5f, 1.75f, 1.75f, 2.25f, 1.25f, 1.5f}},
                      GqaCase{GqaReduce::mean, {1.25f, 1.375f, 1.375f, 1.625f, 1.125f, 1.25f}},
                      GqaCase{GqaReduce::max, {1.5f, 1.5f, 1.5f, 2.0f, 1.25f, 1.5f}}),
    [](const auto& info) {
      return std::string(info.param.gqa == GqaReduce::sum    ? "sum"
                         : info.param.gqa == GqaReduce::mean ? "mean"
                                                             : "max");
    });

// SnapKV over one KV head, one query head, `w` observation queries whose probs are given as one
// vote row repeated (divided by w so the votes equal the row).
KeepSet snap(const std::vector<float>& votes, std::uint32_t w, std::uint64_t budget,
             std::uint32_t kernel, PoolKind pool, std::vector<float>* pooled = nullptr) {
  const std::uint32_t n = static_cast<std::uint32_t>(votes.size());
  std::vector<float> probs;
  for (std::uint32_t i = 0; i < w; ++i)
    for (float v : votes) probs.push_back(v / static_cast<float>(w));
  const Pos pos = positions(1, n);
  if (pooled) pooled->assign(n, 0.f);
  KeepSet keep;
  const Status s = snapkv_select({.num_q_heads = 1,
                                  .num_kv_heads = 1,
                                  .num_tokens = n,
                                  .num_queries = w,
                                  .probs = probs.data(),
                                  .positions = pos.data(),
                                  .positions_stride = n,
                                  .budget = budget,
                                  .kernel = kernel,
                                  .pool = pool,
                                  .pooled = pooled ? pooled->data() : nullptr},
                                 &keep);
  EXPECT_TRUE(s.ok()) << s.message;
  return keep;
}

TEST(SnapKv, TopVotesPlusWindowWithoutPooling) {
  // 12 tokens, window 2 (slots 10, 11 always kept), budget 5 -> top 3 of slots 0..9.
  const std::vector<float> v = {0.9f, 0, 0.1f, 0.8f, 0, 0, 0.7f, 0, 0.7f, 0, 0.5f, 0.5f};
  EXPECT_EQ(head_slots(snap(v, 2, 5, 1, PoolKind::max), 0), (Pos{0, 3, 6, 10, 11}));  // tie 6 vs 8
}

TEST(SnapKv, MaxAndAvgPoolingSmoothNeighbours) {
  const std::vector<float> v = {0, 0, 6, 0, 0, 0, 3, 0, 0, 0};  // window 1 -> prefix 0..8
  std::vector<float> pooled;
  snap(v, 1, 4, 3, PoolKind::max, &pooled);
  EXPECT_EQ(pooled, (std::vector<float>{0, 6, 6, 6, 0, 3, 3, 3, 0, 0}));
  // Kept: top 3 of pooled prefix by (value desc, position asc) = 1, 2, 3; plus slot 9.
  EXPECT_EQ(head_slots(snap(v, 1, 4, 3, PoolKind::max), 0), (Pos{1, 2, 3, 9}));
  snap(v, 1, 4, 3, PoolKind::avg, &pooled);
  EXPECT_EQ(pooled, (std::vector<float>{0, 2, 2, 2, 0, 1, 1, 1, 0, 0}));
  // Padding at the edges counts as zero for avg (torch count_include_pad): slot 0 = (0+0+6)/3.
  const std::vector<float> edge = {6, 0, 0, 0};
  snap(edge, 1, 2, 3, PoolKind::avg, &pooled);
  EXPECT_EQ(pooled[0], 2.f);
  EXPECT_EQ(pooled[1], 2.f);
}

TEST(SnapKv, BudgetEdgeCases) {
  const std::vector<float> v = {5, 4, 3, 2, 1};
  EXPECT_EQ(snap(v, 2, 9, 1, PoolKind::max).count, 5u);                       // budget > length
  EXPECT_EQ(head_slots(snap(v, 5, 3, 1, PoolKind::max), 0), (Pos{2, 3, 4}));  // window > budget
  EXPECT_EQ(snap(v, 5, 0, 1, PoolKind::max).count, 0u);                       // budget 0
  RetentionPolicy zero;  // core's parser refuses budget < window; the cost model keeps >= 1
  zero.kind = PolicyKind::snapkv;
  EXPECT_EQ(snapkv_budget(zero, 5), retained(zero, 5));
  EXPECT_EQ(head_slots(snap(v, 1, 3, 7, PoolKind::max), 0), (Pos{0, 1, 4}));  // kernel > n
}

TEST(SnapKv, GqaCombinesQueryHeadsOfTheGroup) {
  // 2 query heads -> 1 KV head, 1 observation query, 6 tokens, budget 3 (window slot 5).
  const std::vector<float> probs = {0.0f, 0.6f, 0.0f, 0.0f, 0.3f,  0.1f,    // q0
                                    0.5f, 0.0f, 0.2f, 0.0f, 0.25f, 0.05f};  // q1
  const Pos pos = positions(1, 6);
  auto run = [&](GqaReduce g) {
    KeepSet keep;
    EXPECT_TRUE(snapkv_select({.num_q_heads = 2,
                               .num_kv_heads = 1,
                               .num_tokens = 6,
                               .num_queries = 1,
                               .probs = probs.data(),
                               .positions = pos.data(),
                               .positions_stride = 6,
                               .budget = 3,
                               .kernel = 1,
                               .gqa = g},
                              &keep)
                    .ok());
    return head_slots(keep, 0);
  };
  EXPECT_EQ(run(GqaReduce::sum), (Pos{1, 4, 5}));  // sums 0.5 0.6 0.2 0 0.55
  EXPECT_EQ(run(GqaReduce::max), (Pos{0, 1, 5}));  // maxes 0.5 0.6 0.2 0 0.3
  EXPECT_EQ(run(GqaReduce::mean), (Pos{1, 4, 5}));
}

TEST(EvictionValidate, RejectsBadParams) {
  KeepSet keep;
  EXPECT_FALSE(streaming_select({.num_kv_heads = 0}, &keep).ok());
  const Pos pos = positions(1, 4);
  const std::vector<float> probs(8, 0.f);
  const Status s = snapkv_select({.num_q_heads = 1,
                                  .num_kv_heads = 1,
                                  .num_tokens = 4,
                                  .num_queries = 1,
                                  .probs = probs.data(),
                                  .positions = pos.data(),
                                  .positions_stride = 4,
                                  .budget = 2,
                                  .kernel = 0},
                                 &keep);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message.find("kernel must be >= 1"), std::string::npos);
  EXPECT_FALSE(h2o_accumulate({.num_q_heads = 3, .num_kv_heads = 2, .num_tokens = 1}).ok());
}

}  // namespace
}  // namespace kvplan::kernels
