// The paged block pool: contents round-trip through the format, KIVI's residual behaviour,
// compaction returns blocks, bad configs are refused, and — the contract with core — the bytes
// it holds equal kvplan::kv_cost's prediction to the byte over 1200 random configurations.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kvplan/formula.hpp"
#include "kvplan/kernels/eviction.hpp"
#include "kvplan/kernels/paged_kv.hpp"
#include "kvplan/kernels/quantize.hpp"

namespace kvplan::kernels {
namespace {

std::vector<float> random_tokens(std::uint32_t n, std::uint32_t H, std::uint32_t d,
                                 std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-2.f, 2.f);
  std::vector<float> x(std::uint64_t{n} * H * d);
  for (float& v : x) v = u(rng);
  return x;
}

struct PoolCase {
  std::string format;
  std::uint32_t block_size;
  std::uint32_t tokens;
};

class PoolRoundTrip : public ::testing::TestWithParam<PoolCase> {};

// Every slot reads back what quantizing that token alone (int8, plain) or its group (KIVI) gives.
TEST_P(PoolRoundTrip, ReadsBackTheQuantizedTokens) {
  const PoolCase& c = GetParam();
  const std::uint32_t H = 2, d = 32;
  PagedKvPool pool;
  const KvFormat f = parse_kv_format(c.format);
  ASSERT_TRUE(pool.init({.format = f,
                         .num_layers = 1,
                         .num_kv_heads = H,
                         .head_dim = d,
                         .block_size = c.block_size})
                  .ok());
  const std::uint32_t seq = pool.add_sequence();
  std::mt19937 rng(c.tokens + c.block_size);
  const auto k = random_tokens(c.tokens, H, d, rng), v = random_tokens(c.tokens, H, d, rng);
  // Half as a prefill, half token by token.
  const std::uint32_t pre = c.tokens / 2;
  ASSERT_TRUE(pool.append_tokens(seq, 0, pre, k.data(), v.data()).ok());
  for (std::uint32_t t = pre; t < c.tokens; ++t)
    ASSERT_TRUE(pool.append(seq, 0, k.data() + std::uint64_t{t} * H * d,
                            v.data() + std::uint64_t{t} * H * d, static_cast<std::int32_t>(t))
                    .ok());
  ASSERT_EQ(pool.num_tokens(seq, 0), c.tokens);
  std::vector<float> kr(d), vr(d), col(std::max(f.group, 1u)), deq(col.size());
  const std::uint32_t R = f.residual, kq = f.dtype == KvDtype::kivi ? c.tokens / R * R : 0;
  const std::uint32_t vq = f.dtype == KvDtype::kivi && c.tokens > R ? c.tokens - R : 0;
  for (std::uint32_t h = 0; h < H; ++h) {
    for (std::uint32_t t = 0; t < c.tokens; ++t) {
      EXPECT_EQ(pool.positions(seq, 0, h)[t], static_cast<std::int32_t>(t));
      pool.read(seq, 0, h, t, kr.data(), vr.data());
      const float* kx = k.data() + (std::uint64_t{t} * H + h) * d;
      const float* vx = v.data() + (std::uint64_t{t} * H + h) * d;
      std::vector<float> kw(d), vw(d);
      if (f.dtype != KvDtype::kivi) {
        std::vector<std::uint8_t> rec(slot_record_bytes(f, d));
        QuantizeParams q{.format = f,
                         .tokens = 1,
                         .width = d,
                         .in = kx,
                         .out = rec.data(),
                         .codes = rec.data(),
                         .dequant = kw.data()};
        ASSERT_TRUE(quantize_ref(q).ok() && dequantize_ref(q).ok());
        q.in = vx;
        q.dequant = vw.data();
        ASSERT_TRUE(quantize_ref(q).ok() && dequantize_ref(q).ok());
      } else {
        const std::uint32_t G = f.group;
        for (std::uint32_t ch = 0; ch < d; ++ch) {
          if (t < kq) {  // quantized key: its channel group over G tokens, from fp16 residual
            float grp[64];
            for (std::uint32_t j = 0; j < G; ++j)
              grp[j] = half_to_float(
                  float_to_half(k[((std::uint64_t{t / G * G + j}) * H + h) * d + ch]));
            std::uint8_t rec[64];
            kivi_encode_record(grp, 1, G, f.bits, rec);
            kw[ch] = kivi_decode(rec, G, f.bits, t % G);
          } else {
            kw[ch] = half_to_float(float_to_half(kx[ch]));
          }
        }
        for (std::uint32_t g = 0; g < d / G; ++g) {
          float grp[64];
          for (std::uint32_t j = 0; j < G; ++j)
            grp[j] = half_to_float(float_to_half(vx[g * G + j]));
          std::uint8_t rec[64];
          kivi_encode_record(grp, 1, G, f.bits, rec);
          for (std::uint32_t j = 0; j < G; ++j)
            vw[g * G + j] = t < vq ? kivi_decode(rec, G, f.bits, j) : grp[j];
        }
      }
      for (std::uint32_t ch = 0; ch < d; ++ch) {
        ASSERT_EQ(kr[ch], kw[ch]) << "key h" << h << " t" << t << " c" << ch;
        ASSERT_EQ(vr[ch], vw[ch]) << "value h" << h << " t" << t << " c" << ch;
      }
    }
  }
  EXPECT_EQ(pool.bytes_held(seq),
            H * (stream_bytes(f, StreamRole::key, d, c.tokens, c.block_size) +
                 stream_bytes(f, StreamRole::value, d, c.tokens, c.block_size)));
  ASSERT_TRUE(pool.free_sequence(seq).ok());
  EXPECT_EQ(pool.bytes_held(), 0u);
  EXPECT_EQ(pool.blocks_in_use(), 0u);
}

std::vector<PoolCase> pool_cases() {
  std::vector<PoolCase> out;
  for (const char* f : {"fp32", "fp16", "bf16", "fp8", "fp8_e5m2", "int8",
                        "kivi:bits=2,group=16,residual=32", "kivi:bits=4,group=8,residual=24"})
    for (std::uint32_t s : {1u, 3u, 16u, 17u})
      for (std::uint32_t n : {1u, 40u, 77u}) out.push_back({f, s, n});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Formats, PoolRoundTrip, ::testing::ValuesIn(pool_cases()),
                         [](const auto& info) {
                           std::string s = info.param.format + "_S" +
                                           std::to_string(info.param.block_size) + "_n" +
                                           std::to_string(info.param.tokens);
                           for (char& ch : s)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return s;
                         });

TEST(Pool, KiviKeyResidualCyclesAndValueWindowSlides) {
  PagedKvPool pool;
  const KvFormat f = parse_kv_format("kivi:bits=2,group=4,residual=8");
  ASSERT_TRUE(
      pool.init({.format = f, .num_layers = 1, .num_kv_heads = 1, .head_dim = 8, .block_size = 3})
          .ok());
  const std::uint32_t seq = pool.add_sequence();
  std::vector<float> x(8, 1.f);
  for (std::uint32_t n = 1; n <= 30; ++n) {
    ASSERT_TRUE(pool.append(seq, 0, x.data(), x.data(), static_cast<std::int32_t>(n - 1)).ok());
    const PagedKvView v = pool.view(seq, 0);
    EXPECT_EQ(kivi_key_quant_tokens(v.num_tokens, 8), n / 8 * 8);
    EXPECT_EQ(kivi_value_quant_tokens(v.num_tokens, 8), n > 8 ? n - 8 : 0);
    EXPECT_EQ(pool.bytes_held(seq), stream_bytes(f, StreamRole::key, 8, n, 3) +
                                        stream_bytes(f, StreamRole::value, 8, n, 3))
        << n;
  }
}

TEST(Pool, CompactMovesSurvivorsAndReturnsBlocks) {
  PagedKvPool pool;
  ASSERT_TRUE(pool.init({.format = parse_kv_format("int8"),
                         .num_layers = 1,
                         .num_kv_heads = 2,
                         .head_dim = 4,
                         .block_size = 3})
                  .ok());
  const std::uint32_t seq = pool.add_sequence();
  for (int t = 0; t < 10; ++t) {
    std::vector<float> k = {float(t), 1, 2, 3, float(-t), 1, 2, 3};
    ASSERT_TRUE(pool.append(seq, 0, k.data(), k.data(), t).ok());
  }
  EXPECT_EQ(pool.blocks_in_use(), 8u);  // 4 K + 4 V blocks for 10 tokens
  KeepSet keep{.num_kv_heads = 2, .count = 3, .slots = {0, 5, 9, 1, 2, 8}, .positions = {}};
  ASSERT_TRUE(pool.compact(seq, 0, keep).ok());
  EXPECT_EQ(pool.num_tokens(seq, 0), 3u);
  EXPECT_EQ(pool.blocks_in_use(), 2u);
  EXPECT_EQ(pool.positions(seq, 0, 0)[1], 5);
  EXPECT_EQ(pool.positions(seq, 0, 1)[2], 8);
  std::vector<float> k(4), v(4);
  pool.read(seq, 0, 1, 2, k.data(), v.data());
  EXPECT_NEAR(k[0], -8.f, 8.f / 127);
  pool.read(seq, 0, 0, 2, k.data(), v.data());
  EXPECT_NEAR(k[0], 9.f, 9.f / 127);
  // Refused: descending slots, and any compaction of a KIVI pool.
  KeepSet bad{.num_kv_heads = 2, .count = 2, .slots = {1, 0, 0, 1}, .positions = {}};
  EXPECT_FALSE(pool.compact(seq, 0, bad).ok());
  PagedKvPool kivi;
  ASSERT_TRUE(
      kivi.init({.format = parse_kv_format("kivi:bits=2,group=4,residual=8"), .head_dim = 8}).ok());
  const std::uint32_t s2 = kivi.add_sequence();
  std::vector<float> x(8, 1.f);
  ASSERT_TRUE(kivi.append(s2, 0, x.data(), x.data(), 0).ok());
  const Status st =
      kivi.compact(s2, 0, KeepSet{.num_kv_heads = 1, .count = 1, .slots = {0}, .positions = {}});
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message.find("KIVI"), std::string::npos);
  // Positions must increase.
  EXPECT_FALSE(kivi.append(s2, 0, x.data(), x.data(), 0).ok());
}

TEST(Pool, RejectsBadConfigsListingEveryProblem) {
  PagedKvPool pool;
  PoolConfig c{.format = parse_kv_format("kivi:bits=2,group=32,residual=128"),
               .head_dim = 48,
               .block_size = 0};
  c.format.bits = 3;
  const Status s = pool.init(c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message.find("block_size must be >= 1"), std::string::npos) << s.message;
  EXPECT_NE(s.message.find("bits must be 2, 4 or 8, got 3"), std::string::npos) << s.message;
  EXPECT_NE(s.message.find("group 32 must divide head_dim 48"), std::string::npos) << s.message;
}

// ---- The byte contract: pool.bytes_held(seq) == kv_cost(model, config).bytes_per_request ----

struct ByteConfig {
  KvFormat format;
  RetentionPolicy policy;
  std::uint32_t layers, kv_heads, q_heads, head_dim, block_size, n, prefill;
};

std::string describe(const ByteConfig& c) {
  return to_string(c.format) + " " + to_string(c.policy) + " L" + std::to_string(c.layers) + " H" +
         std::to_string(c.kv_heads) + " d" + std::to_string(c.head_dim) + " S" +
         std::to_string(c.block_size) + " n" + std::to_string(c.n) + " prefill" +
         std::to_string(c.prefill);
}

ByteConfig random_config(std::mt19937& rng) {
  auto pick = [&](auto... xs) {
    const std::uint32_t v[] = {static_cast<std::uint32_t>(xs)...};
    return v[std::uniform_int_distribution<std::size_t>(0, sizeof...(xs) - 1)(rng)];
  };
  auto uni = [&](std::uint32_t lo, std::uint32_t hi) {
    return std::uniform_int_distribution<std::uint32_t>(lo, hi)(rng);
  };
  ByteConfig c{};
  const KvDtype dtypes[] = {KvDtype::fp32,     KvDtype::fp16, KvDtype::bf16, KvDtype::fp8_e4m3,
                            KvDtype::fp8_e5m2, KvDtype::int8, KvDtype::kivi, KvDtype::kivi};
  c.format.dtype = dtypes[uni(0, 7)];
  c.head_dim = pick(8, 16, 32);
  if (c.format.dtype == KvDtype::kivi) {
    c.format.bits = pick(2, 4, 8);
    c.format.group = std::min(c.head_dim, pick(4, 8, 16, 32));
    c.format.residual = c.format.group * pick(1, 2, 3, 4);
  }
  c.layers = uni(1, 3);
  c.kv_heads = pick(1, 2, 4);
  c.q_heads = c.kv_heads * pick(1, 2, 4);
  c.block_size = pick(1, 2, 3, 4, 5, 8, 16, 17, 32);
  c.n = uni(0, 260);
  c.prefill = c.n;
  const std::uint32_t kind = c.format.dtype == KvDtype::kivi ? pick(0, 3) : uni(0, 3);
  c.policy.kind = static_cast<PolicyKind>(kind);
  if (c.policy.kind == PolicyKind::streaming) {
    c.policy.sink = uni(0, 8);
    c.policy.window = uni(1, 120);
  } else if (c.policy.kind == PolicyKind::h2o && uni(0, 2) == 0) {
    // Fractions of the sequence (keep=0.2,recent=0.1): the budget grows as the sequence does.
    c.policy.heavy = Budget{.ppm = static_cast<std::uint32_t>(uni(1, 500000)), .is_fraction = true};
    c.policy.recent =
        Budget{.ppm = static_cast<std::uint32_t>(uni(1, 500000)), .is_fraction = true};
  } else if (c.policy.kind == PolicyKind::h2o) {
    c.policy.heavy.tokens = uni(0, 60);
    c.policy.recent.tokens = uni(0, 60);
  } else if (c.policy.kind == PolicyKind::snapkv) {
    c.policy.budget.tokens = uni(0, 150);
    c.policy.window = uni(1, 40);
    c.policy.kernel = pick(1, 3, 7);
    c.prefill = uni(0, c.n);
  }
  return c;
}

// Replays n tokens through the pool as the simulator does and returns bytes held.
std::uint64_t replay_bytes(const ByteConfig& c, std::mt19937& rng) {
  PagedKvPool pool;
  EXPECT_TRUE(pool.init({.format = c.format,
                         .num_layers = c.layers,
                         .num_kv_heads = c.kv_heads,
                         .head_dim = c.head_dim,
                         .block_size = c.block_size})
                  .ok());
  const std::uint32_t seq = pool.add_sequence();
  const std::uint32_t H = c.kv_heads, d = c.head_dim;
  std::uniform_real_distribution<float> u(0.f, 1.f);
  for (std::uint32_t l = 0; l < c.layers; ++l) {
    std::vector<float> scores;  // H2O, [H, n]
    std::uint32_t t = 0;
    if (c.policy.kind == PolicyKind::snapkv) {
      // Prefill: score every prompt token with random attention, select, keep.
      const std::uint32_t P = c.prefill;
      const auto k = random_tokens(P, H, d, rng), v = random_tokens(P, H, d, rng);
      std::vector<std::int32_t> pos(std::uint64_t{H} * P);
      for (std::uint32_t h = 0; h < H; ++h)
        for (std::uint32_t i = 0; i < P; ++i)
          pos[std::uint64_t{h} * P + i] = static_cast<std::int32_t>(i);
      const std::uint32_t w =
          std::min<std::uint32_t>(static_cast<std::uint32_t>(c.policy.window), P);
      std::vector<float> probs(std::uint64_t{c.q_heads} * w * P);
      for (float& x : probs) x = u(rng);
      KeepSet keep;
      EXPECT_TRUE(snapkv_select({.num_q_heads = c.q_heads,
                                 .num_kv_heads = H,
                                 .num_tokens = P,
                                 .num_queries = w,
                                 .probs = probs.data(),
                                 .positions = pos.data(),
                                 .positions_stride = P,
                                 .budget = snapkv_budget(c.policy, P),
                                 .kernel = c.policy.kernel,
                                 .pool = c.policy.pool,
                                 .gqa = c.policy.gqa},
                                &keep)
                      .ok());
      // Append only the kept tokens (per-head positions), which also works for KIVI.
      std::vector<float> kk(std::uint64_t{keep.count} * H * d), vv(kk.size());
      std::vector<std::int32_t> kp(std::uint64_t{keep.count} * H);
      for (std::uint32_t i = 0; i < keep.count; ++i)
        for (std::uint32_t h = 0; h < H; ++h) {
          const std::uint32_t s =
              static_cast<std::uint32_t>(keep.slots[std::uint64_t{h} * keep.count + i]);
          std::copy_n(k.data() + (std::uint64_t{s} * H + h) * d, d,
                      kk.data() + (std::uint64_t{i} * H + h) * d);
          std::copy_n(v.data() + (std::uint64_t{s} * H + h) * d, d,
                      vv.data() + (std::uint64_t{i} * H + h) * d);
          kp[std::uint64_t{i} * H + h] = keep.positions[std::uint64_t{h} * keep.count + i];
        }
      EXPECT_TRUE(
          pool.append_tokens(seq, l, keep.count, kk.data(), vv.data(), kp.data(), true).ok());
      t = P;
    }
    std::vector<float> k(std::uint64_t{H} * d), v(k.size());
    for (; t < c.n; ++t) {
      for (float& x : k) x = u(rng);
      for (float& x : v) x = u(rng);
      EXPECT_TRUE(pool.append(seq, l, k.data(), v.data(), static_cast<std::int32_t>(t)).ok());
      const std::uint32_t m = pool.num_tokens(seq, l);
      KeepSet keep;
      if (c.policy.kind == PolicyKind::streaming) {
        if (m <= c.policy.sink + c.policy.window) continue;
        EXPECT_TRUE(streaming_select({.num_kv_heads = H,
                                      .num_tokens = m,
                                      .positions = pool.positions(seq, l, 0),
                                      .positions_stride = pool.view(seq, l).positions_stride,
                                      .sink = c.policy.sink,
                                      .window = c.policy.window},
                                     &keep)
                        .ok());
      } else if (c.policy.kind == PolicyKind::h2o) {
        // Scores grow by one slot; random attention stands in for decode_attention's probs.
        std::vector<float> grown(std::uint64_t{H} * m, 0.f);
        for (std::uint32_t h = 0; h < H; ++h)
          for (std::uint32_t i = 0; i + 1 < m; ++i)
            grown[std::uint64_t{h} * m + i] = scores[std::uint64_t{h} * (m - 1) + i];
        scores.swap(grown);
        std::vector<float> probs(std::uint64_t{c.q_heads} * m);
        for (float& x : probs) x = u(rng);
        EXPECT_TRUE(h2o_accumulate({.num_q_heads = c.q_heads,
                                    .num_kv_heads = H,
                                    .num_tokens = m,
                                    .probs = probs.data(),
                                    .scores = scores.data(),
                                    .gqa = c.policy.gqa})
                        .ok());
        H2oSelectParams sp = h2o_params(c.policy, t + 1);
        sp.num_kv_heads = H;
        sp.num_tokens = m;
        sp.scores = scores.data();
        sp.positions = pool.positions(seq, l, 0);
        sp.positions_stride = pool.view(seq, l).positions_stride;
        EXPECT_TRUE(h2o_select(sp, &keep).ok());
        if (keep.count == m) continue;
        gather_slots(scores.data(), m, keep, scores.data());
        scores.resize(std::uint64_t{H} * keep.count);
      } else {
        continue;
      }
      EXPECT_TRUE(pool.compact(seq, l, keep).ok());
    }
  }
  return pool.bytes_held(seq);
}

TEST(PoolBytes, EqualCorePredictionToTheByteOver1200RandomConfigs) {
  std::mt19937 rng(2024);
  int checked = 0, evicting = 0, kivi = 0;
  for (int i = 0; i < 1200; ++i) {
    const ByteConfig c = random_config(rng);
    ModelSpec m;
    m.id = "byte-test";
    m.layers.assign(c.layers, LayerSpec{});
    m.num_q_heads = c.q_heads;
    m.num_kv_heads = c.kv_heads;
    m.head_dim_k = m.head_dim_v = c.head_dim;
    KvCostInput in{
        .context = c.n, .format = c.format, .policy = c.policy, .block_size = c.block_size};
    if (c.policy.kind == PolicyKind::snapkv) in.prefill = c.prefill;
    const KvCost cost = kv_cost(m, in);
    const std::uint64_t held = replay_bytes(c, rng);
    ASSERT_EQ(held, cost.bytes_per_request) << "config " << i << ": " << describe(c);
    ++checked;
    evicting += c.policy.kind != PolicyKind::full;
    kivi += c.format.dtype == KvDtype::kivi;
  }
  EXPECT_EQ(checked, 1200);
  EXPECT_GT(evicting, 500);
  EXPECT_GT(kivi, 200);
}

}  // namespace
}  // namespace kvplan::kernels
