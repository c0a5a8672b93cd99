// Llama-3 RoPE scaling in the kernels: rope_scaled_inv_freq, rope_rotate and the positions=cache
// re-rotation of decode attention (CPU reference and fast path).
//
// The scaled frequencies are derived by hand from the llama3 formula (transformers'
// _compute_llama3_parameters, src/transformers/modeling_rope_utils.py, commit 0044e3b3):
// theta 10000, dims 8, factor 8, low_freq_factor 1, high_freq_factor 4, original 128 tokens, so
// low_wavelen = 128 / 1 = 128 and high_wavelen = 128 / 4 = 32.
//   pair 0: f = 10000^(0/8)   = 1,     wavelength 2π       = 6.283  < 32  -> kept: 1
//   pair 1: f = 10000^(-2/8)  = 0.1,   wavelength 20π      = 62.83  in [32, 128] -> ramp:
//           s = (128 / 62.8319 - 1) / (4 - 1) = (2.037183 - 1) / 3 = 0.345728
//           f' = (1 - s)·0.1/8 + s·0.1 = 0.654272·0.0125 + 0.0345728 = 0.0427512
//   pair 2: f = 10000^(-4/8)  = 0.01,  wavelength 628.3   > 128 -> f / 8 = 0.00125
//   pair 3: f = 10000^(-6/8)  = 0.001, wavelength 6283    > 128 -> f / 8 = 0.000125
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kvplan/kernels/attention.hpp"

namespace kvplan::kernels {
namespace {

constexpr RopeLlama3 kScaling{.factor = 8,
                              .low_freq_factor = 1,
                              .high_freq_factor = 4,
                              .original_max_position_embeddings = 128};

RopeParams scaled(RopeStyle s) {
  return {.style = s, .theta = 10000.f, .dims = 8, .llama3 = kScaling};
}

TEST(RopeLlama3, ScaledFrequenciesByHand) {
  EXPECT_DOUBLE_EQ(rope_scaled_inv_freq(1.0, kScaling), 1.0);
  EXPECT_NEAR(rope_scaled_inv_freq(0.1, kScaling), 0.0427512, 1e-7);
  EXPECT_NEAR(rope_scaled_inv_freq(0.01, kScaling), 0.00125, 1e-15);
  EXPECT_NEAR(rope_scaled_inv_freq(0.001, kScaling), 0.000125, 1e-15);
  // In float (the replay's llama2.c-style RoPE) the same values within float rounding.
  EXPECT_NEAR(rope_scaled_inv_freq(0.1f, kScaling), 0.0427512f, 1e-7f);
  // factor 0: no scaling at all.
  EXPECT_EQ(rope_scaled_inv_freq(0.1, RopeLlama3{}), 0.1);
}

TEST(RopeLlama3, RotatedValuesByHand) {
  // x = (1, 1, 1, 1 | 0.5, 0.5, 0.5, 0.5), half pairs (i, i + 4), position 100: pair i turns by
  // a_i = 100·f'_i = 100, 4.27512, 0.125, 0.0125 rad, so x_i -> cos a - 0.5 sin a and
  // x_{i+4} -> sin a + 0.5 cos a. Pair 0: cos 100 = 0.862319, sin 100 = -0.506366 ->
  // 1.115502, -0.075206. Pair 2: cos 0.125 = 0.992198, sin 0.125 = 0.124675 -> 0.929860,
  // 0.620774. Pair 1 (the ramp): cos 4.27512 = -0.423469, sin 4.27512 = -0.905911 ->
  // 0.029486, -1.117645. Pair 3: cos 0.0125 = 0.999922, sin 0.0125 = 0.012500
  // -> 0.993672, 0.512461.
  std::vector<float> x = {1, 1, 1, 1, 0.5f, 0.5f, 0.5f, 0.5f};
  rope_rotate(x.data(), 8, scaled(RopeStyle::half), 100);
  const double want[8] = {1.115502,  0.029486,  0.929860, 0.993672,
                          -0.075206, -1.117645, 0.620774, 0.512461};
  for (int i = 0; i < 8; ++i) EXPECT_NEAR(x[i], want[i], 2e-6) << i;
  // Interleaved pairs (2i, 2i + 1) turn by the same angles.
  std::vector<float> y = {1, 0.5f, 1, 0.5f, 1, 0.5f, 1, 0.5f};
  rope_rotate(y.data(), 8, scaled(RopeStyle::interleaved), 100);
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(y[2 * i], want[i], 2e-6) << i;
    EXPECT_NEAR(y[2 * i + 1], want[i + 4], 2e-6) << i;
  }
  // Unscaled, pair 1 would turn by 100·0.1 = 10 rad: cos 10 - 0.5 sin 10 = -0.839072 + 0.272011 =
  // -0.567061.
  std::vector<float> z = {1, 1, 1, 1, 0.5f, 0.5f, 0.5f, 0.5f};
  rope_rotate(z.data(), 8, {.style = RopeStyle::half, .theta = 10000.f, .dims = 8}, 100);
  EXPECT_NEAR(z[1], -0.567061, 2e-6);
}

TEST(RopeLlama3, ScaledRotationsCompose) {
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[i] = 0.1f * static_cast<float>(i) - 0.7f;
  RopeParams r{.style = RopeStyle::half,
               .theta = 500000.f,
               .dims = 0,
               .llama3 = {.factor = 8,
                          .low_freq_factor = 1,
                          .high_freq_factor = 4,
                          .original_max_position_embeddings = 64}};
  std::vector<float> a = x, b = x;
  rope_rotate(a.data(), 16, r, 1000);
  rope_rotate(a.data(), 16, r, 7 - 1000);
  rope_rotate(b.data(), 16, r, 7);
  for (int i = 0; i < 16; ++i) EXPECT_NEAR(a[i], b[i], 1e-5);
}

// positions=cache with llama3 scaling: keys stored rotated at their original positions and
// re-rotated to their slots give the attention of keys rotated at the slots directly.
TEST(RopeLlama3, CacheModeRerotatesWithTheScaledFrequencies) {
  const std::uint32_t d = 16, n = 5;
  const RopeParams rope{.style = RopeStyle::half,
                        .theta = 10000.f,
                        .dims = 0,
                        .llama3 = {.factor = 8,
                                   .low_freq_factor = 1,
                                   .high_freq_factor = 4,
                                   .original_max_position_embeddings = 64}};
  std::mt19937 rng(11);
  std::normal_distribution<float> nd;
  std::vector<float> k(n * d), v(n * d), q(d);
  for (float& x : k) x = nd(rng);
  for (float& x : v) x = nd(rng);
  for (float& x : q) x = nd(rng);
  const std::int32_t orig[n] = {0, 1, 40, 90, 200};  // sink + a window after eviction
  const std::int32_t slots[n] = {0, 1, 2, 3, 4};
  std::vector<float> k_orig = k, k_slot = k;
  for (std::uint32_t t = 0; t < n; ++t) {
    rope_rotate(k_orig.data() + t * d, d, rope, orig[t]);
    rope_rotate(k_slot.data() + t * d, d, rope, slots[t]);
  }
  const std::uint32_t table = 0;
  const PagedKvView cache_view = dense_view(k_orig.data(), v.data(), n, 1, d, orig, &table);
  const PagedKvView slot_view = dense_view(k_slot.data(), v.data(), n, 1, d, slots, &table);
  for (Backend b : {Backend::cpu_ref, Backend::cpu}) {
    std::vector<float> got(d), want(d), unscaled(d);
    ASSERT_TRUE(decode_attention({.kv = cache_view,
                                  .num_q_heads = 1,
                                  .q = q.data(),
                                  .out = got.data(),
                                  .rope = rope,
                                  .positions = PositionMode::cache},
                                 b)
                    .ok());
    ASSERT_TRUE(
        decode_attention({.kv = slot_view, .num_q_heads = 1, .q = q.data(), .out = want.data()}, b)
            .ok());
    RopeParams plain = rope;
    plain.llama3 = {};
    ASSERT_TRUE(decode_attention({.kv = cache_view,
                                  .num_q_heads = 1,
                                  .q = q.data(),
                                  .out = unscaled.data(),
                                  .rope = plain,
                                  .positions = PositionMode::cache},
                                 b)
                    .ok());
    double diff = 0, diff_unscaled = 0;
    for (std::uint32_t c = 0; c < d; ++c) {
      diff = std::max(diff, static_cast<double>(std::fabs(got[c] - want[c])));
      diff_unscaled =
          std::max(diff_unscaled, static_cast<double>(std::fabs(unscaled[c] - want[c])));
    }
    EXPECT_LT(diff, 1e-5) << "backend " << static_cast<int>(b);
    // Re-rotating with the unscaled frequencies lands elsewhere: the scaling is really used.
    EXPECT_GT(diff_unscaled, 1e-3) << "backend " << static_cast<int>(b);
  }
}

}  // namespace
}  // namespace kvplan::kernels
