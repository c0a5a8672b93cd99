// Decode and prefill attention over the paged cache against a naive double-precision reference
// computed from the pool's own dequantized slots; GQA; RoPE styles and positions=original|cache.
// Output comparison: normalized MSE below a stated threshold, no NaN, non-zero norm.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kvplan/kernels/attention.hpp"
#include "kvplan/kernels/eviction.hpp"
#include "kvplan/kernels/paged_kv.hpp"

namespace kvplan::kernels {
namespace {

// Independent RoPE in double: pair i turns by pos · theta^(-2i/dims).
void rope_double(std::vector<double>& x, RopeStyle style, double theta, double pos) {
  if (style == RopeStyle::none) return;
  const std::size_t d = x.size(), half = d / 2;
  for (std::size_t i = 0; i < half; ++i) {
    const double a = pos * std::pow(theta, -2.0 * static_cast<double>(i) / static_cast<double>(d));
    const std::size_t i0 = style == RopeStyle::interleaved ? 2 * i : i;
    const std::size_t i1 = style == RopeStyle::interleaved ? 2 * i + 1 : i + half;
    const double x0 = x[i0], x1 = x[i1];
    x[i0] = x0 * std::cos(a) - x1 * std::sin(a);
    x[i1] = x0 * std::sin(a) + x1 * std::cos(a);
  }
}

double nmse(const std::vector<float>& got, const std::vector<double>& want) {
  double err = 0, norm = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    err += (got[i] - want[i]) * (got[i] - want[i]);
    norm += want[i] * want[i];
  }
  return err / std::max(norm, 1e-300);
}

struct AttnCase {
  std::string format;
  std::uint32_t block_size, kv_heads, group, tokens;
  RopeStyle rope;
  PositionMode positions;
};

std::string attn_name(const AttnCase& c) {
  std::string s = c.format + "_S" + std::to_string(c.block_size) + "_Hkv" +
                  std::to_string(c.kv_heads) + "_gqa" + std::to_string(c.group) + "_n" +
                  std::to_string(c.tokens) +
                  (c.rope == RopeStyle::none          ? "_norope"
                   : c.rope == RopeStyle::interleaved ? "_interleaved"
                                                      : "_half") +
                  (c.positions == PositionMode::cache ? "_poscache" : "_posorig");
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

class DecodeAttention : public ::testing::TestWithParam<AttnCase> {};

TEST_P(DecodeAttention, MatchesDoubleReferenceAndProbsSumToOne) {
  const AttnCase& c = GetParam();
  const std::uint32_t H = c.kv_heads, Hq = H * c.group, d = 32, n = c.tokens;
  const RopeParams rope{.style = c.rope, .theta = 10000.f, .dims = 0};
  PagedKvPool pool;
  ASSERT_TRUE(pool.init({.format = parse_kv_format(c.format),
                         .num_layers = 1,
                         .num_kv_heads = H,
                         .head_dim = d,
                         .block_size = c.block_size})
                  .ok());
  const std::uint32_t seq = pool.add_sequence();
  std::mt19937 rng(n * 31 + c.block_size);
  std::normal_distribution<float> nd;
  // Keys at positions 0, 2, 4, ... (a gap pattern, as after eviction), RoPE at those positions.
  for (std::uint32_t t = 0; t < n; ++t) {
    std::vector<float> k(std::uint64_t{H} * d), v(k.size());
    for (float& x : k) x = nd(rng);
    for (float& x : v) x = nd(rng);
    rope_apply(k.data(), H, d, rope, 2.0 * t);
    ASSERT_TRUE(pool.append(seq, 0, k.data(), v.data(), static_cast<std::int32_t>(2 * t)).ok());
  }
  std::vector<float> q(std::uint64_t{Hq} * d);
  for (float& x : q) x = nd(rng);
  const double qpos = c.positions == PositionMode::cache ? n - 1 : 2.0 * (n - 1);
  rope_apply(q.data(), Hq, d, rope, qpos);

  // Naive reference from the pool's dequantized slots.
  std::vector<double> want(std::uint64_t{Hq} * d), want_p(std::uint64_t{Hq} * n);
  std::vector<float> kf(d), vf(d);
  for (std::uint32_t hq = 0; hq < Hq; ++hq) {
    const std::uint32_t h = hq / c.group;
    std::vector<double> logit(n);
    double mx = -INFINITY;
    for (std::uint32_t t = 0; t < n; ++t) {
      pool.read(seq, 0, h, t, kf.data(), vf.data());
      std::vector<double> k(kf.begin(), kf.end());
      if (c.positions == PositionMode::cache)
        rope_double(k, c.rope, 10000.0, static_cast<double>(t) - 2.0 * t);
      double s = 0;
      for (std::uint32_t i = 0; i < d; ++i) s += q[std::uint64_t{hq} * d + i] * k[i];
      logit[t] = s / std::sqrt(double(d));
      mx = std::max(mx, logit[t]);
    }
    double sum = 0;
    for (double& l : logit) sum += (l = std::exp(l - mx));
    for (std::uint32_t t = 0; t < n; ++t) {
      pool.read(seq, 0, h, t, kf.data(), vf.data());
      want_p[std::uint64_t{hq} * n + t] = logit[t] / sum;
      for (std::uint32_t i = 0; i < d; ++i)
        want[std::uint64_t{hq} * d + i] += logit[t] / sum * vf[i];
    }
  }
  for (Backend b : {Backend::cpu_ref, Backend::cpu}) {
    std::vector<float> out(want.size()), probs(want_p.size());
    DecodeAttentionParams p{.kv = pool.view(seq, 0),
                            .num_q_heads = Hq,
                            .q = q.data(),
                            .out = out.data(),
                            .probs = probs.data(),
                            .rope = rope,
                            .positions = c.positions};
    ASSERT_TRUE(decode_attention(p, b).ok());
    const double tol = b == Backend::cpu_ref ? 1e-10 : 1e-9;
    EXPECT_LT(nmse(out, want), tol) << (b == Backend::cpu_ref ? "cpu_ref" : "cpu");
    EXPECT_LT(nmse(probs, want_p), tol);
    double norm = 0;
    for (float x : out) {
      ASSERT_FALSE(std::isnan(x));
      norm += double{x} * x;
    }
    EXPECT_GT(norm, 0.0);
    for (std::uint32_t hq = 0; hq < Hq; ++hq) {
      double s = 0;
      for (std::uint32_t t = 0; t < n; ++t) s += probs[std::uint64_t{hq} * n + t];
      EXPECT_NEAR(s, 1.0, 1e-5);
    }
  }
}

std::vector<AttnCase> attn_cases() {
  std::vector<AttnCase> out;
  for (const char* f : {"fp32", "fp16", "bf16", "fp8", "int8", "kivi:bits=2,group=16,residual=32",
                        "kivi:bits=4,group=8,residual=16"})
    for (std::uint32_t s : {1u, 3u, 17u})
      out.push_back({f, s, 2, 4, 70, RopeStyle::half, PositionMode::original});
  // KIVI group sizes 8, 16, 32 (32 = the whole head for values), all bit widths, odd blocks.
  for (const char* f : {"kivi:bits=2,group=32,residual=64", "kivi:bits=4,group=32,residual=32",
                        "kivi:bits=8,group=32,residual=64", "kivi:bits=2,group=8,residual=8",
                        "kivi:bits=4,group=16,residual=48", "kivi:bits=8,group=16,residual=16"})
    for (std::uint32_t s : {1u, 17u}) {
      out.push_back({f, s, 2, 4, 70, RopeStyle::half, PositionMode::original});
      out.push_back({f, s, 2, 2, 131, RopeStyle::half, PositionMode::cache});
    }
  for (RopeStyle r : {RopeStyle::none, RopeStyle::interleaved, RopeStyle::half})
    for (PositionMode m : {PositionMode::original, PositionMode::cache})
      for (std::uint32_t g : {1u, 2u, 8u}) out.push_back({"fp32", 16, 2, g, 45, r, m});
  out.push_back({"int8", 5, 1, 1, 1, RopeStyle::half, PositionMode::cache});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Sweep, DecodeAttention, ::testing::ValuesIn(attn_cases()),
                         [](const auto& info) { return attn_name(info.param); });

TEST(Rope, RotationsCompose) {
  std::vector<float> x(16), y(16);
  for (int i = 0; i < 16; ++i) x[i] = y[i] = 0.1f * static_cast<float>(i) - 0.7f;
  for (RopeStyle s : {RopeStyle::interleaved, RopeStyle::half}) {
    RopeParams r{.style = s, .theta = 500000.f, .dims = 0};
    std::vector<float> a = x, b = x;
    rope_rotate(a.data(), 16, r, 1000);
    rope_rotate(a.data(), 16, r, 7 - 1000);  // back to cache position 7
    rope_rotate(b.data(), 16, r, 7);
    for (int i = 0; i < 16; ++i) EXPECT_NEAR(a[i], b[i], 1e-5);
  }
  // Partial rotary dims leave the tail alone.
  RopeParams r{.style = RopeStyle::half, .theta = 10000.f, .dims = 8};
  rope_rotate(y.data(), 16, r, 3);
  for (int i = 8; i < 16; ++i) EXPECT_EQ(y[i], x[i]);
}

TEST(Rope, CacheModeChangesTheOutput) {
  // StreamingLLM's point: the two position modes give different outputs after eviction.
  const std::uint32_t d = 16;
  std::vector<float> k(4 * d), v(4 * d), q(d);
  std::mt19937 rng(3);
  std::normal_distribution<float> nd;
  for (float& x : k) x = nd(rng);
  for (float& x : v) x = nd(rng);
  for (float& x : q) x = nd(rng);
  const std::int32_t pos[4] = {0, 1, 50, 51};
  const std::uint32_t table = 0;
  PagedKvView view = dense_view(k.data(), v.data(), 4, 1, d, pos, &table);
  std::vector<float> a(d), b(d);
  RopeParams rope{.style = RopeStyle::half, .theta = 10000.f, .dims = 0};
  ASSERT_TRUE(decode_attention({.kv = view,
                                .num_q_heads = 1,
                                .q = q.data(),
                                .out = a.data(),
                                .rope = rope,
                                .positions = PositionMode::original})
                  .ok());
  ASSERT_TRUE(decode_attention({.kv = view,
                                .num_q_heads = 1,
                                .q = q.data(),
                                .out = b.data(),
                                .rope = rope,
                                .positions = PositionMode::cache})
                  .ok());
  double diff = 0;
  for (std::uint32_t i = 0; i < d; ++i) diff += std::fabs(a[i] - b[i]);
  EXPECT_GT(diff, 1e-3);
}

TEST(PrefillAttention, CausalAndLastQueryEqualsDecode) {
  const std::uint32_t n = 20, H = 2, Hq = 4, d = 16;
  std::vector<float> k(std::uint64_t{n} * H * d), v(k.size()), q(std::uint64_t{n} * Hq * d);
  std::mt19937 rng(5);
  std::normal_distribution<float> nd;
  for (float& x : k) x = nd(rng);
  for (float& x : v) x = nd(rng);
  for (float& x : q) x = nd(rng);
  std::vector<std::int32_t> pos(std::uint64_t{H} * n), qpos(n);
  for (std::uint32_t t = 0; t < n; ++t) {
    pos[t] = pos[n + t] = qpos[t] = static_cast<std::int32_t>(t);
  }
  const std::uint32_t table = 0;
  const PagedKvView view = dense_view(k.data(), v.data(), n, H, d, pos.data(), &table);
  std::vector<float> out(q.size()), probs(std::uint64_t{Hq} * n * n);
  ASSERT_TRUE(prefill_attention({.kv = view,
                                 .num_q_heads = Hq,
                                 .num_queries = n,
                                 .q = q.data(),
                                 .q_positions = qpos.data(),
                                 .out = out.data(),
                                 .probs = probs.data()})
                  .ok());
  for (std::uint32_t hq = 0; hq < Hq; ++hq)
    for (std::uint32_t i = 0; i < n; ++i) {
      double s = 0;
      for (std::uint32_t t = 0; t < n; ++t) {
        const float p = probs[(std::uint64_t{hq} * n + i) * n + t];
        if (t > i) {
          EXPECT_EQ(p, 0.f);
        }
        s += p;
      }
      EXPECT_NEAR(s, 1.0, 1e-6);
    }
  EXPECT_EQ(probs[0], 1.f);  // query 0 sees only key 0
  std::vector<float> dec(std::uint64_t{Hq} * d);
  ASSERT_TRUE(decode_attention({.kv = view,
                                .num_q_heads = Hq,
                                .q = q.data() + std::uint64_t{n - 1} * Hq * d,
                                .out = dec.data()},
                               Backend::cpu_ref)
                  .ok());
  for (std::uint32_t i = 0; i < Hq * d; ++i)
    EXPECT_NEAR(dec[i], out[std::uint64_t{n - 1} * Hq * d + i], 1e-6);
}

TEST(AttentionValidate, RejectsBadShapes) {
  const std::uint32_t table = 0;
  const std::int32_t pos = 0;
  float k[4] = {}, q[12] = {}, out[12];
  PagedKvView view = dense_view(k, k, 1, 2, 2, &pos, &table);
  Status s = decode_attention({.kv = view, .num_q_heads = 3, .q = q, .out = out});
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message.find("num_q_heads 3 must be a positive multiple"), std::string::npos);
  view.num_tokens = 0;
  EXPECT_FALSE(decode_attention({.kv = view, .num_q_heads = 2, .q = q, .out = out}).ok());
}

// A view built outside the pool with a KIVI format the pool would refuse: every backend divides by
// the group and shifts by the bits, so the launch must refuse it by name first.
TEST(AttentionValidate, RejectsKiviFormatsThePoolWouldRefuse) {
  const std::uint32_t table = 0;
  const std::int32_t pos[2] = {0, 0};
  float k[8] = {}, q[8] = {}, out[8];
  PagedKvView view = dense_view(k, k, 1, 2, 4, pos, &table);
  view.format = {.dtype = KvDtype::kivi, .bits = 2, .group = 0, .residual = 32};
  Status s = decode_attention({.kv = view, .num_q_heads = 2, .q = q, .out = out});
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message.find("kivi group 0 must divide head_dim 4"), std::string::npos) << s.message;
  view.format = {.dtype = KvDtype::kivi, .bits = 3, .group = 4, .residual = 6};
  s = decode_attention({.kv = view, .num_q_heads = 2, .q = q, .out = out});
  EXPECT_NE(s.message.find("kivi bits must be 2, 4 or 8, got 3"), std::string::npos) << s.message;
  EXPECT_NE(s.message.find("kivi residual 6 must be a positive multiple of group 4"),
            std::string::npos)
      << s.message;
}

}  // namespace
}  // namespace kvplan::kernels
