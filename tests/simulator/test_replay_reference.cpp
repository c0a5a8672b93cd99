// full_attention, the float32 full-cache attention behind ReferenceAttention (the model's own
// cache) and FullCacheReference (what a trace replay measures fidelity against), must be llama2.c's
// attention bit for bit: it only stores keys transposed so the scores vectorize across positions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kvplan/error.hpp"
#include "kvplan/sim/llama2c.hpp"
#include "kvplan/sim/replay.hpp"

namespace kvplan::sim {
namespace {

// llama2.c's attention for one layer and one new token, written as run.c writes it
// (karpathy/llama2.c@350e04f run.c `forward`, "multihead attention. iterate over all heads", and
// its softmax()): per position a sequential dot product, divided by sqrtf(head_size); softmax with
// the first score as the running maximum, expf, the sum in order, each divided by the sum; then
// xb = 0 and xb += a_t v_t in position order. Keys and values are rows [pos][kv head · d], the
// keys already rotated; RoPE itself is apply_rope's.
struct PlainLlama2c {
  std::uint32_t hq, hkv, d;
  RopeSpec rope;
  std::vector<float> keys, values, att;
  void append(std::uint64_t pos, std::vector<float> k, const std::vector<float>& v) {
    for (std::uint32_t h = 0; h < hkv; ++h) apply_rope(rope, {k.data() + h * d, d}, pos);
    keys.insert(keys.end(), k.begin(), k.end());
    values.insert(values.end(), v.begin(), v.end());
  }
  void attend(std::uint64_t pos, std::vector<float> q, const std::vector<float>& k,
              const std::vector<float>& v, std::vector<float>& out) {
    append(pos, k, v);
    for (std::uint32_t h = 0; h < hq; ++h) apply_rope(rope, {q.data() + h * d, d}, pos);
    const std::uint64_t n = pos + 1, kvw = std::uint64_t{hkv} * d;
    att.assign(hq * n, 0.f);
    for (std::uint32_t h = 0; h < hq; ++h) {
      const std::uint64_t off = std::uint64_t{h / (hq / hkv)} * d;
      float* a = att.data() + h * n;
      for (std::uint64_t t = 0; t < n; ++t) {
        float score = 0.0f;
        for (std::uint32_t i = 0; i < d; ++i) score += q[h * d + i] * keys[t * kvw + off + i];
        a[t] = score / sqrtf(static_cast<float>(d));
      }
      float max_val = a[0];
      for (std::uint64_t t = 1; t < n; ++t)
        if (a[t] > max_val) max_val = a[t];
      float sum = 0.0f;
      for (std::uint64_t t = 0; t < n; ++t) {
        a[t] = expf(a[t] - max_val);
        sum += a[t];
      }
      for (std::uint64_t t = 0; t < n; ++t) a[t] /= sum;
      float* xb = out.data() + h * d;
      std::fill(xb, xb + d, 0.0f);
      for (std::uint64_t t = 0; t < n; ++t)
        for (std::uint32_t i = 0; i < d; ++i) xb[i] += a[t] * values[t * kvw + off + i];
    }
  }
};

struct Shape {
  std::uint32_t layers, hq, hkv, d;
  RopeSpec rope;
};

class FullCacheReferenceTest : public ::testing::TestWithParam<Shape> {};

// ReferenceAttention (a cache that grows, from 64 positions, doubling) and FullCacheReference
// (its capacity reserved) against run.c's loops, bit for bit, over 300 steps: outputs and
// probabilities.
TEST_P(FullCacheReferenceTest, OutputsAndProbabilitiesAreRunCsBitForBit) {
  const Shape s = GetParam();
  const std::uint64_t T = 300;
  std::vector<PlainLlama2c> plain(s.layers, PlainLlama2c{s.hq, s.hkv, s.d, s.rope, {}, {}, {}});
  ReferenceAttention grow(s.layers, s.hq, s.hkv, s.d, s.rope);
  FullCacheReference fast(s.layers, s.hq, s.hkv, s.d, s.rope, T);
  std::mt19937 rng(11);
  std::normal_distribution<float> nd(0.f, 2.f);  // wide logits: a peaked softmax too
  std::vector<float> q(std::size_t{s.hq} * s.d), k(std::size_t{s.hkv} * s.d), v(k.size()),
      a(q.size()), b(q.size()), c(q.size());
  std::uint64_t compared = 0;
  for (std::uint64_t t = 0; t < T; ++t)
    for (std::uint32_t l = 0; l < s.layers; ++l) {
      for (auto* x : {&q, &k, &v})
        for (float& e : *x) e = nd(rng);
      if (t % 7 == 3) {  // a step the replay does not score
        plain[l].append(t, k, v);
        grow.append(l, t, k, v);
        fast.append(l, t, k, v);
        continue;
      }
      plain[l].attend(t, q, k, v, a);
      grow.attend(l, t, q, k, v, b);
      fast.attend(l, t, q, k, v, c);
      ASSERT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0)
          << "ReferenceAttention's output differs at step " << t << ", layer " << l;
      ASSERT_EQ(std::memcmp(a.data(), c.data(), a.size() * sizeof(float)), 0)
          << "FullCacheReference's output differs at step " << t << ", layer " << l;
      for (std::uint32_t h = 0; h < s.hq; ++h) {
        const float* pa = plain[l].att.data() + h * (t + 1);
        const auto pb = grow.last_probs(h), pc = fast.last_probs(l, h);
        ASSERT_EQ(pb.size(), t + 1);
        ASSERT_EQ(pc.size(), t + 1);
        ASSERT_EQ(std::memcmp(pa, pb.data(), pb.size() * sizeof(float)), 0)
            << "ReferenceAttention's probabilities differ at step " << t << ", head " << h;
        ASSERT_EQ(std::memcmp(pa, pc.data(), pc.size() * sizeof(float)), 0)
            << "FullCacheReference's probabilities differ at step " << t << ", head " << h;
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
