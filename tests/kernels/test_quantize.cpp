// Quantize / dequantize per format: error bounds against double-precision math, the fast CPU
// path bit-identical to the reference, bytes equal to core's stream_bytes, bad params refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kvplan/kernels/quantize.hpp"
#include "kvplan/kv_format.hpp"

namespace kvplan::kernels {
namespace {

struct QCase {
  std::string format;
  StreamRole role;
  std::uint32_t width;
  std::uint32_t tokens;
};

std::string case_name(const QCase& c) {
  std::string s = c.format + (c.role == StreamRole::key ? "_key" : "_value") + "_d" +
                  std::to_string(c.width) + "_t" + std::to_string(c.tokens);
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

std::vector<float> random_rows(std::uint32_t tokens, std::uint32_t width, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.f, 1.f);
  std::vector<float> x(std::uint64_t{tokens} * width);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = nd(rng) * (1.f + static_cast<float>(i % 7));
  // Constant rows/groups exercise max == min.
  if (tokens > 2)
    for (std::uint32_t c = 0; c < width; ++c) x[std::uint64_t{1} * width + c] = 0.25f;
  return x;
}

class Quantize : public ::testing::TestWithParam<QCase> {};

TEST_P(Quantize, ErrorBoundsBytesAndFastPathParity) {
  const QCase& c = GetParam();
  const KvFormat f = parse_kv_format(c.format);
  const auto x = random_rows(c.tokens, c.width, 7 + c.width + c.tokens);
  const std::uint64_t bytes = quantized_bytes(f, c.role, c.width, c.tokens);
  std::vector<std::uint8_t> ref(bytes), fast(bytes, 0xCD);
  std::vector<float> back(x.size()), back_fast(x.size());
  QuantizeParams p{.format = f,
                   .role = c.role,
                   .tokens = c.tokens,
                   .width = c.width,
                   .in = x.data(),
                   .out = ref.data(),
                   .codes = ref.data(),
                   .dequant = back.data()};
  if (f.dtype == KvDtype::fp8_e4m3 || f.dtype == KvDtype::fp8_e5m2)
    p.fp8_scale = fp8_calibrated_scale(
        x.data(), x.size(), f.dtype == KvDtype::fp8_e4m3 ? Fp8Kind::e4m3 : Fp8Kind::e5m2);
  ASSERT_TRUE(quantize(p, Backend::cpu_ref).ok());
  ASSERT_TRUE(dequantize(p, Backend::cpu_ref).ok());
  QuantizeParams q = p;
  q.out = fast.data();
  q.codes = fast.data();
  q.dequant = back_fast.data();
  ASSERT_TRUE(quantize(q, Backend::cpu).ok());
  ASSERT_TRUE(dequantize(q, Backend::cpu).ok());
  EXPECT_EQ(ref, fast) << "fast quantize path must be bit-identical";
  for (std::size_t i = 0; i < x.size(); ++i)
    ASSERT_EQ(float_bits(back[i]), float_bits(back_fast[i])) << i;

  const std::uint32_t d = c.width;
  auto at = [&](std::uint32_t t, std::uint32_t ch) { return std::uint64_t{t} * d + ch; };
  switch (f.dtype) {
    case KvDtype::fp32:
      EXPECT_EQ(back, x);
      break;
    case KvDtype::fp16:
    case KvDtype::bf16: {
      const double rel = f.dtype == KvDtype::fp16 ? 0x1p-11 : 0x1p-8;
      for (std::size_t i = 0; i < x.size(); ++i)
        ASSERT_LE(std::fabs(static_cast<double>(back[i]) - x[i]), rel * std::fabs(x[i]) + 0x1p-24);
      break;
    }
    case KvDtype::fp8_e4m3:
    case KvDtype::fp8_e5m2: {
      const bool e4 = f.dtype == KvDtype::fp8_e4m3;
      const double rel = e4 ? 0x1p-4 : 0x1p-3, sub = e4 ? 0x1p-10 : 0x1p-17;
      for (std::size_t i = 0; i < x.size(); ++i)
        ASSERT_LE(std::fabs(static_cast<double>(back[i]) - x[i]),
                  (rel * std::fabs(x[i]) + sub * p.fp8_scale) * 1.000001)
            << i;
      break;
    }
    case KvDtype::int8:
      for (std::uint32_t t = 0; t < c.tokens; ++t) {
        double amax = 0;
        for (std::uint32_t ch = 0; ch < d; ++ch)
          amax = std::max(amax, std::fabs(double{x[at(t, ch)]}));
        const double scale = amax / 127;
        for (std::uint32_t ch = 0; ch < d; ++ch)
          ASSERT_LE(std::fabs(double{back[at(t, ch)]} - x[at(t, ch)]),
                    scale / 2 * (1 + 1e-5) + 1e-12)
              << "token " << t << " channel " << ch;
      }
      break;
    case KvDtype::kivi: {
      const std::uint32_t G = f.group;
      const double levels = (1u << f.bits) - 1;
      // One group = G tokens of a channel (keys) or G channels of a token (values).
      auto check_group = [&](auto idx) {
        double mn = INFINITY, mx = -INFINITY;
        for (std::uint32_t j = 0; j < G; ++j) {
          mn = std::min(mn, double{x[idx(j)]});
          mx = std::max(mx, double{x[idx(j)]});
        }
        const double s = (mx - mn) / levels;
        const double sh = half_to_float(float_to_half_sat(static_cast<float>(s)));
        const double zh = half_to_float(float_to_half_sat(static_cast<float>(mn)));
        // s/2 from rounding to a level, plus what fp16 storage of scale and zero moved the grid.
        const double bound = s / 2 + std::fabs(zh - mn) + levels * std::fabs(sh - s) +
                             1e-6 * (std::fabs(mn) + std::fabs(mx));
        for (std::uint32_t j = 0; j < G; ++j)
          ASSERT_LE(std::fabs(double{back[idx(j)]} - x[idx(j)]), bound);
        if (mx == mn) {
          for (std::uint32_t j = 0; j < G; ++j) ASSERT_EQ(double{back[idx(j)]}, zh);
        }
      };
      if (c.role == StreamRole::key) {
        for (std::uint32_t g = 0; g < c.tokens / G; ++g)
          for (std::uint32_t ch = 0; ch < d; ++ch)
            check_group([&](std::uint32_t j) { return at(g * G + j, ch); });
      } else {
        for (std::uint32_t t = 0; t < c.tokens; ++t)
          for (std::uint32_t g = 0; g < d / G; ++g)
            check_group([&](std::uint32_t j) { return at(t, g * G + j); });
      }
      break;
    }
  }
  // Cache bytes for these tokens equal core's cost model (unpaged).
  for (std::uint64_t n : {0u, 1u, 5u, 127u, 128u, 129u, 300u})
    EXPECT_EQ(bytes_for(f, c.role, c.width, n), stream_bytes(f, c.role, c.width, n, 1)) << n;
}

std::vector<QCase> quantize_cases() {
  std::vector<QCase> out;
  for (const char* f : {"fp32", "fp16", "bf16", "fp8", "fp8_e5m2", "int8",
                        "kivi:bits=2,group=32,residual=64", "kivi:bits=4,group=32,residual=128",
                        "kivi:bits=8,group=16,residual=32", "kivi:bits=4,group=8,residual=8"})
    for (StreamRole r : {StreamRole::key, StreamRole::value})
      for (std::uint32_t d : {64u, 128u}) out.push_back({f, r, d, 64});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Formats, Quantize, ::testing::ValuesIn(quantize_cases()),
                         [](const auto& info) { return case_name(info.param); });

TEST(QuantizeInt8, WorkedExampleFromHeader) {
  const float x[3] = {1.f, -2.f, 0.5f};
  std::uint8_t rec[7];
  int8_encode_record(x, 3, rec);
  EXPECT_EQ(static_cast<std::int8_t>(rec[0]), 64);  // 1 / (2/127) = 63.5 -> 64 (even)
  EXPECT_EQ(static_cast<std::int8_t>(rec[1]), -127);
  EXPECT_EQ(static_cast<std::int8_t>(rec[2]), 32);  // 31.75 -> 32
  EXPECT_EQ(int8_record_scale(rec, 3), 2.f / 127.f);
}

TEST(QuantizeKivi, PackingPutsFirstValueInLowestBits) {
  // Values 0..15 over one group of 16 at 4 bits: min 0, max 15 -> scale 1, codes = values.
  float x[16];
  for (int i = 0; i < 16; ++i) x[i] = static_cast<float>(i);
  std::uint8_t rec[12];
  kivi_encode_record(x, 1, 16, 4, rec);
  std::uint32_t w0, w1;
  std::memcpy(&w0, rec, 4);
  std::memcpy(&w1, rec + 4, 4);
  EXPECT_EQ(w0, 0x76543210u);
  EXPECT_EQ(w1, 0xFEDCBA98u);
  std::uint16_t sh, zh;
  std::memcpy(&sh, rec + 8, 2);
  std::memcpy(&zh, rec + 10, 2);
  EXPECT_EQ(sh, 0x3C00);                     // 1.0
  EXPECT_EQ(zh, 0x0000);                     // 0.0
  EXPECT_EQ(kivi_record_bytes(32, 2), 12u);  // 2 words + scale + zero
  EXPECT_EQ(kivi_record_bytes(16, 8), 20u);
}

TEST(QuantizeKivi, ConstantGroupHasZeroScaleAndNoNan) {
  float x[32];
  std::fill(x, x + 32, -3.25f);
  std::uint8_t rec[12];
  kivi_encode_record(x, 1, 32, 2, rec);
  for (std::uint32_t j = 0; j < 32; ++j) EXPECT_EQ(kivi_decode(rec, 32, 2, j), -3.25f);
}

// Runs quantize + dequantize through the spec and the fast path; bytes (codes, scales, zeros) and
// dequantized float bits must be identical.
void expect_fast_equals_ref(const QuantizeParams& base, const std::string& what) {
  const std::uint64_t bytes =
      quantized_bytes(base.format, base.role, base.width, std::uint64_t{base.tokens});
  std::vector<std::uint8_t> ref(bytes, 0xAB), fast(bytes, 0xCD);
  const std::size_t n = std::size_t{base.tokens} * base.width;
  std::vector<float> back(n), back_fast(n);
  QuantizeParams p = base;
  p.out = ref.data();
  p.codes = ref.data();
  p.dequant = back.data();
  ASSERT_TRUE(quantize(p, Backend::cpu_ref).ok()) << what;
  ASSERT_TRUE(dequantize(p, Backend::cpu_ref).ok()) << what;
  QuantizeParams q = base;
  q.out = fast.data();
  q.codes = fast.data();
  q.dequant = back_fast.data();
  ASSERT_TRUE(quantize(q, Backend::cpu).ok()) << what;
  ASSERT_TRUE(dequantize(q, Backend::cpu).ok()) << what;
  for (std::size_t i = 0; i < bytes; ++i)
    ASSERT_EQ(int{ref[i]}, int{fast[i]}) << what << ": byte " << i;
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_EQ(float_bits(back[i]), float_bits(back_fast[i])) << what << ": value " << i;
}

// KIVI groups made of special values: NaN (first, middle, all), ±0 as extremes, ±inf, all-equal
// (max == min, scale 0), tiny ranges below fp16 resolution, huge ranges that saturate the fp16
// scale, an offset beyond fp16 (zero saturates, (x - z)/s > 2^22). Keys (group over tokens; 24
// channels for the eight-lane path, 20 for the per-record one) and values (group over channels),
// group 8/16/32, bits 2/4/8.
TEST(QuantizeKiviEdge, SpecialGroupsFastEqualsRef) {
  const float nan = std::nanf(""), inf = INFINITY;
  for (std::uint32_t G : {8u, 16u, 32u}) {
    // One pattern per group: pattern(kind, j) -> value j of the group.
    auto pattern = [&](std::uint32_t kind, std::uint32_t j) -> float {
      const float r = static_cast<float>((j * 37 + kind * 11) % 23) / 7.f - 1.5f;
      switch (kind % 24) {
        case 0:
          return j == 0 ? nan : r;  // NaN first
        case 1:
          return j == G / 2 ? nan : r;  // NaN inside
        case 2:
          return nan;  // all NaN
        case 3:
          return j % 2 ? 0.f : -0.f;  // only ±0
        case 4:
          return j == 0 ? -0.f : std::fabs(r) + 1;  // -0 is the min
        case 5:
          return j == 1 ? 0.f : -std::fabs(r) - 1;  // +0 is the max
        case 6:
          return j == 2 ? inf : r;  // +inf
        case 7:
          return j == 3 ? -inf : r;  // -inf
        case 8:
          return j % 2 ? inf : -inf;  // ±inf only
        case 9:
          return 0.3f;  // all equal
        case 10:
          return -7.5e4f;  // all equal, beyond fp16 range
        case 11:
          return 1.f + static_cast<float>(j) * 0x1p-20f;  // range below fp16 scale
        case 12:
          return j % 2 ? 6e4f : -6e4f;  // scale saturates
        case 13:
          return static_cast<float>(j % 4) * 0.5f;  // exact .5 ties against the grid
        case 14:
          return j == G - 1 ? nan : (j == 0 ? -0.f : r);
        case 15:
          return j == 1 ? 1.0e9f + 64.f : 1.0e9f;  // zero 65504, scale 64/L: y ≈ 2^23·L
        default:
          return r;
      }
    };
    for (std::uint32_t bits : {2u, 4u, 8u}) {
      const std::string fmt = "kivi:bits=" + std::to_string(bits) + ",group=" + std::to_string(G) +
                              ",residual=" + std::to_string(G);
      const KvFormat f = parse_kv_format(fmt);
      const std::uint32_t kinds = 24;
      // Values: width = kinds · G, one kind per group, a few tokens with rotated kinds.
      {
        const std::uint32_t width = kinds * G, tokens = 3;
        std::vector<float> x(std::size_t{width} * tokens);
        for (std::uint32_t t = 0; t < tokens; ++t)
          for (std::uint32_t c = 0; c < width; ++c)
            x[std::size_t{t} * width + c] = pattern(c / G + t, c % G);
        expect_fast_equals_ref({.format = f,
                                .role = StreamRole::value,
                                .tokens = tokens,
                                .width = width,
                                .in = x.data()},
                               fmt + " values");
      }
      // Keys: one kind per channel, two groups of tokens.
      for (const std::uint32_t width : {kinds, 20u}) {
        const std::uint32_t tokens = 2 * G;
        std::vector<float> x(std::size_t{width} * tokens);
        for (std::uint32_t t = 0; t < tokens; ++t)
          for (std::uint32_t c = 0; c < width; ++c)
            x[std::size_t{t} * width + c] = pattern(c + t / G, t % G);
        expect_fast_equals_ref({.format = f,
                                .role = StreamRole::key,
                                .tokens = tokens,
                                .width = width,
                                .in = x.data()},
                               fmt + " keys, width " + std::to_string(width));
      }
    }
  }
}

// int8 rows made of special values — NaN, ±inf, ±0, subnormals, a subnormal scale, FLT_MAX,
// exact .5 ties of the row's scale — at widths that take the vector steps (16 and 8 lanes), their
// scalar tail, and the scalar loop alone: fast bytes and values equal the spec's.
TEST(QuantizeInt8Edge, SpecialRowsFastEqualsRef) {
  const float nan = std::nanf(""), inf = INFINITY;
  for (const std::uint32_t width : {128u, 24u, 20u, 5u}) {
    const std::uint32_t kinds = 10, tokens = 2 * kinds;
    std::vector<float> x(std::size_t{width} * tokens);
    for (std::uint32_t t = 0; t < tokens; ++t)
      for (std::uint32_t c = 0; c < width; ++c) {
        const float r = static_cast<float>((c * 37 + t * 11) % 23) / 7.f - 1.5f;
        float v = r;
        switch (t % kinds) {
          case 0:
            v = c == 1 ? nan : r;
            break;
          case 1:
            v = c == 2 ? inf : r;
            break;
          case 2:
            v = c == 0 ? -inf : r;
            break;
          case 3:
            v = c % 2 ? 0.f : -0.f;
            break;
          case 4:
            v = r * 1e-40f;
            break;  // subnormals: scale subnormal too
          case 5:
            v = c == 3 ? 3.4e38f : r;
            break;
          case 6:
            v = c == 0 ? 127.f : static_cast<float>(c % 9) - 3.5f;
            break;  // .5 ties
          case 7:
            v = nan;
            break;
          case 8:
            v = c == 0 ? -1.f : r * 1e-3f;
            break;
          default:
            break;
        }
        x[std::size_t{t} * width + c] = v;
      }
    expect_fast_equals_ref({.format = parse_kv_format("int8"),
                            .role = StreamRole::key,
                            .tokens = tokens,
                            .width = width,
                            .in = x.data()},
                           "int8 width " + std::to_string(width));
  }
}

// All 256 fp8 codes of both kinds through dequantize: fast path (table) equals the spec, bit for
// bit (NaN codes give the spec's NaN), at scale 1 and at a non-trivial scale.
TEST(QuantizeFp8, DequantizeAllCodesFastEqualsRef) {
  std::vector<std::uint8_t> codes(256);
  for (std::uint32_t c = 0; c < 256; ++c) codes[c] = static_cast<std::uint8_t>(c);
  for (KvDtype dt : {KvDtype::fp8_e4m3, KvDtype::fp8_e5m2})
    for (float scale : {1.0f, 0.37f, 3.0e-3f}) {
      std::vector<float> ref(256), fast(256);
      QuantizeParams p{.format = KvFormat{.dtype = dt},
                       .tokens = 1,
                       .width = 256,
                       .fp8_scale = scale,
                       .codes = codes.data(),
                       .dequant = ref.data()};
      ASSERT_TRUE(dequantize(p, Backend::cpu_ref).ok());
      p.dequant = fast.data();
      ASSERT_TRUE(dequantize(p, Backend::cpu).ok());
      for (std::uint32_t c = 0; c < 256; ++c) {
        const Fp8Kind k = dt == KvDtype::fp8_e4m3 ? Fp8Kind::e4m3 : Fp8Kind::e5m2;
        if (std::isnan(ref[c])) {
          ASSERT_TRUE(std::isnan(fast[c])) << c;
          ASSERT_TRUE(std::isnan(fp8_decode(static_cast<std::uint8_t>(c), k))) << c;
        }
        ASSERT_EQ(float_bits(ref[c]), float_bits(fast[c])) << "code " << c << " scale " << scale;
      }
    }
}

// fp16 encode of the fast path (F16C where the CPU has it) equals float_to_half: a strided sweep
// of 4.2M float bit patterns in the suite; every one of the 2^32 with KVPLAN_EXHAUSTIVE=1 (~10 s).
// Quantizes every `stride`-th float bit pattern (NaNs, infinities, subnormals included) through
// the fast path, 1024 × 1024 values at a time; `check(x, out, m)` sees each chunk's m inputs.
template <class Check>
void sweep_bit_patterns(std::uint64_t stride, KvDtype dt, float fp8_scale, Check&& check) {
  constexpr std::uint32_t kW = 1024, kT = 1024;
  std::vector<float> x(std::size_t{kW} * kT);
  std::vector<std::uint8_t> out(x.size() * plain_element_bytes(dt));
  std::uint64_t u = 0;
  while (u < (1ull << 32)) {
    std::size_t m = 0;
    for (; m < x.size() && u < (1ull << 32); ++m, u += stride)
      x[m] = bits_float(static_cast<std::uint32_t>(u));
    const std::uint32_t tokens = static_cast<std::uint32_t>((m + kW - 1) / kW);
    for (std::size_t i = m; i < std::size_t{tokens} * kW; ++i) x[i] = 0.f;
    QuantizeParams p{.format = KvFormat{.dtype = dt},
                     .tokens = tokens,
                     .width = kW,
                     .in = x.data(),
                     .out = out.data()};
    p.fp8_scale = fp8_scale;
    ASSERT_TRUE(quantize(p, Backend::cpu).ok());
    check(x.data(), out.data(), m);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

void fp16_sweep(std::uint64_t stride) {
  sweep_bit_patterns(stride, KvDtype::fp16, 1.f,
                     [](const float* x, const std::uint8_t* out, std::size_t m) {
                       for (std::size_t i = 0; i < m; ++i) {
                         std::uint16_t h;
                         std::memcpy(&h, out + 2 * i, 2);
                         ASSERT_EQ(h, float_to_half(x[i])) << std::hex << float_bits(x[i]);
                       }
                     });
}
TEST(Fp16Fast, EncodeEqualsReferenceOnBitPatternSweep) { fp16_sweep(1021); }
// Every `stride`-th float bit pattern (NaNs, infinities, subnormals, saturating values included)
// through the fast fp8 quantize of both kinds, at scale 1 and at a scale that moves values across
// the subnormal and saturation boundaries: each code equals fp8_encode(x / scale).
void fp8_sweep(std::uint64_t stride) {
  for (const KvDtype dt : {KvDtype::fp8_e4m3, KvDtype::fp8_e5m2})
    for (const float scale : {1.f, 0.0137f}) {
      const Fp8Kind k = dt == KvDtype::fp8_e4m3 ? Fp8Kind::e4m3 : Fp8Kind::e5m2;
      sweep_bit_patterns(
          stride, dt, scale, [&](const float* x, const std::uint8_t* out, std::size_t m) {
            for (std::size_t i = 0; i < m; ++i)
              ASSERT_EQ(int{out[i]}, int{fp8_encode(scale == 1.f ? x[i] : x[i] / scale, k)})
                  << std::hex << float_bits(x[i]) << " scale " << scale;
          });
      if (::testing::Test::HasFatalFailure()) return;
    }
}
TEST(Fp8Fast, EncodeEqualsReferenceOnBitPatternSweep) { fp8_sweep(4099); }

// Values that land on and next to the midpoints between neighbouring fp8 values after the scale
// division, where x / s and x · (1/s) can round to different codes: the fast path divides as the
// spec does.
TEST(Fp8Fast, ScaledTiesEqualReference) {
  std::vector<float> x;
  for (const float scale : {0.0137f, 0.3f, 3.1f, 1.f / 3.f, 1e-3f})
    for (const Fp8Kind k : {Fp8Kind::e4m3, Fp8Kind::e5m2}) {
      x.clear();
      for (std::uint32_t c = 0; c + 1 < 0x7F; ++c) {
        const float mid = 0.5f * (fp8_decode(static_cast<std::uint8_t>(c), k) +
                                  fp8_decode(static_cast<std::uint8_t>(c + 1), k));
        float v = mid * scale;
        for (int step = 0; step < 3; ++step) v = std::nextafter(v, 0.f);
        for (int step = 0; step < 7; ++step, v = std::nextafter(v, INFINITY)) {
          x.push_back(v);
          x.push_back(-v);
        }
      }
      const std::uint32_t n = static_cast<std::uint32_t>(x.size());
      std::vector<std::uint8_t> out(n);
      QuantizeParams p{
          .format = KvFormat{.dtype = k == Fp8Kind::e4m3 ? KvDtype::fp8_e4m3 : KvDtype::fp8_e5m2},
          .tokens = 1,
          .width = n,
          .in = x.data(),
          .out = out.data()};
      p.fp8_scale = scale;
      ASSERT_TRUE(quantize(p, Backend::cpu).ok());
      for (std::uint32_t i = 0; i < n; ++i)
        ASSERT_EQ(int{out[i]}, int{fp8_encode(x[i] / scale, k)})
            << std::hex << float_bits(x[i]) << " scale " << scale;
    }
}

TEST(Fp16Fast, EncodeEqualsReferenceOnEveryFloat) {
  const char* e = std::getenv("KVPLAN_EXHAUSTIVE");
  if (!e || std::string(e) != "1") GTEST_SKIP() << "set KVPLAN_EXHAUSTIVE=1 (all 2^32 floats)";
  fp16_sweep(1);
}

struct BadCase {
  std::string name;
  QuantizeParams p;
  std::string expect;
};

TEST(QuantizeValidate, RejectsBadParamsWithClearMessage) {
  float in[64] = {};
  std::uint8_t out[1024];
  auto kivi = [](std::uint32_t bits, std::uint32_t group, std::uint32_t residual) {
    KvFormat f;
    f.dtype = KvDtype::kivi;
    f.bits = bits;
    f.group = group;
    f.residual = residual;
    return f;
  };
  const BadCase cases[] = {
      {"bits3",
       {.format = kivi(3, 16, 32),
        .role = StreamRole::value,
        .tokens = 1,
        .width = 32,
        .in = in,
        .out = out},
       "bits must be 2, 4 or 8, got 3"},
      {"group_not_dividing",
       {.format = kivi(2, 24, 48),
        .role = StreamRole::value,
        .tokens = 1,
        .width = 32,
        .in = in,
        .out = out},
       "must divide head dim 32"},
      {"key_tokens",
       {.format = kivi(2, 16, 32),
        .role = StreamRole::key,
        .tokens = 3,
        .width = 16,
        .in = in,
        .out = out},
       "multiple of group 16"},
      {"residual",
       {.format = kivi(2, 16, 24),
        .role = StreamRole::value,
        .tokens = 1,
        .width = 32,
        .in = in,
        .out = out},
       "residual 24"},
      {"fp8_scale",
       {.format = KvFormat{.dtype = KvDtype::fp8_e4m3},
        .tokens = 1,
        .width = 8,
        .fp8_scale = 0.f,
        .in = in,
        .out = out},
       "fp8 scale"},
      {"null",
       {.format = KvFormat{.dtype = KvDtype::fp16}, .tokens = 1, .width = 8},
       "needs in and out"},
  };
  for (const BadCase& c : cases) {
    const Status s = quantize(c.p, Backend::cpu_ref);
    EXPECT_FALSE(s.ok()) << c.name;
    EXPECT_NE(s.message.find(c.expect), std::string::npos) << c.name << ": " << s.message;
    EXPECT_FALSE(quantize(c.p, Backend::cpu).ok()) << c.name;
  }
}

}  // namespace
}  // namespace kvplan::kernels
