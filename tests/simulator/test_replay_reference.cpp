// FullCacheReference, the float32 full cache a trace replay measures fidelity against, must be
// ReferenceAttention (llama2.c's attention) bit for bit: it only stores keys transposed so the
// scores vectorize across positions.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "kvplan/error.hpp"
#include "kvplan/sim/llama2c.hpp"
#include "kvplan/sim/replay.hpp"

namespace kvplan::sim {
namespace {

struct Shape {
  std::uint32_t layers, hq, hkv, d;
  RopeSpec rope;
};

class FullCacheReferenceTest : public ::testing::TestWithParam<Shape> {};

TEST_P(FullCacheReferenceTest, OutputsAndProbabilitiesAreReferenceAttentionsBitForBit) {
  const Shape s = GetParam();
  const std::uint64_t T = 300;
  ReferenceAttention plain(s.layers, s.hq, s.hkv, s.d, s.rope);
  FullCacheReference fast(s.layers, s.hq, s.hkv, s.d, s.rope, T);
  std::mt19937 rng(11);
  std::normal_distribution<float> nd(0.f, 2.f);  // wide logits: a peaked softmax too
  std::vector<float> q(std::size_t{s.hq} * s.d), k(std::size_t{s.hkv} * s.d), v(k.size()),
      a(q.size()), b(q.size());
  std::uint64_t compared = 0;
  for (std::uint64_t t = 0; t < T; ++t)
    for (std::uint32_t l = 0; l < s.layers; ++l) {
      for (auto* x : {&q, &k, &v})
        for (float& e : *x) e = nd(rng);
      if (t % 7 == 3) {  // a step the replay does not score
        plain.append(l, t, k, v);
        fast.append(l, t, k, v);
        continue;
      }
      plain.attend(l, t, q, k, v, a);
      fast.attend(l, t, q, k, v, b);
      ASSERT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0)
          << "output differs at step " << t << ", layer " << l;
      for (std::uint32_t h = 0; h < s.hq; ++h) {
        const auto pa = plain.last_probs(h), pb = fast.last_probs(h);
        ASSERT_EQ(pa.size(), t + 1);
        ASSERT_EQ(pb.size(), t + 1);
        ASSERT_EQ(std::memcmp(pa.data(), pb.data(), pa.size() * sizeof(float)), 0)
            << "probabilities differ at step " << t << ", head " << h;
      }
      ++compared;
    }
  // Steps t % 7 == 3 only append: t = 3, 10, ..., 297, (297 - 3) / 7 + 1 = 43 of the 300.
  EXPECT_EQ(compared, std::uint64_t{300 - 43} * s.layers);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, FullCacheReferenceTest,
    ::testing::Values(Shape{2, 8, 2, 64, {10000.0, 64, RopeStyle::half}},
                      Shape{1, 4, 4, 17, {10000.0, 0, RopeStyle::half}},  // no RoPE
                      Shape{3, 6, 2, 32, {500000.0, 16, RopeStyle::interleaved}}),
    [](const auto& info) {
      const Shape& s = info.param;
      return "L" + std::to_string(s.layers) + "_Hq" + std::to_string(s.hq) + "_Hkv" +
             std::to_string(s.hkv) + "_d" + std::to_string(s.d);
    });

TEST(FullCacheReference, RefusesPositionsOutOfOrderOrPastItsCapacity) {
  FullCacheReference r(1, 2, 1, 8, {10000.0, 8, RopeStyle::half}, 2);
  const std::vector<float> k(8, 1.f), v(8, 1.f);
  EXPECT_THROW(r.append(0, 1, k, v), Error);  // position 0 first
  r.append(0, 0, k, v);
  r.append(0, 1, k, v);
  EXPECT_THROW(r.append(0, 2, k, v), Error);  // capacity 2
}

}  // namespace
}  // namespace kvplan::sim
