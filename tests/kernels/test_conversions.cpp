// Scalar conversions bit for bit: fp16, bf16, fp8 e4m3 / e5m2 (a table of known encodings, every
// code round-tripped, every midpoint between neighbours rounded to even).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "kvplan/kernels/common.hpp"
#include "kvplan/kernels/quantize.hpp"

namespace kvplan::kernels {
namespace {

TEST(Fp16, DecodeEveryCodeMatchesLdexp) {
  for (std::uint32_t h = 0; h < 65536; ++h) {
    const int e = (h >> 10) & 31, m = h & 1023;
    const double sign = (h & 0x8000) ? -1 : 1;
    const float got = half_to_float(static_cast<std::uint16_t>(h));
    if (e == 31) {
      if (m) {
        EXPECT_TRUE(std::isnan(got)) << h;
      } else {
        EXPECT_EQ(got, static_cast<float>(sign * INFINITY)) << h;
      }
      continue;
    }
    const double want = e == 0 ? sign * std::ldexp(m, -24) : sign * std::ldexp(1024 + m, e - 25);
    ASSERT_EQ(got, static_cast<float>(want)) << h;
    ASSERT_EQ(std::signbit(got), (h & 0x8000) != 0) << h;
  }
}

TEST(Fp16, EncodeRoundTripsAndRoundsMidpointsToEven) {
  for (std::uint32_t h = 0; h < 0x7C00; ++h) {
    const float x = half_to_float(static_cast<std::uint16_t>(h));
    ASSERT_EQ(float_to_half(x), h);
    ASSERT_EQ(float_to_half(-x), h | 0x8000);
    if (h + 1 == 0x7C00) break;
    const float y = half_to_float(static_cast<std::uint16_t>(h + 1));
    const float mid = static_cast<float>((static_cast<double>(x) + y) / 2);
    ASSERT_EQ(float_to_half(mid), (h & 1) ? h + 1 : h) << "midpoint after " << h;
    ASSERT_EQ(float_to_half(std::nextafter(mid, 0.f)), h) << h;
    ASSERT_EQ(float_to_half(std::nextafter(mid, INFINITY)), h + 1) << h;
  }
  EXPECT_EQ(float_to_half(65504.f), 0x7BFF);
  EXPECT_EQ(float_to_half(65519.f), 0x7BFF);
  EXPECT_EQ(float_to_half(65520.f), 0x7C00);  // RNE overflow to inf
  EXPECT_EQ(float_to_half(1e30f), 0x7C00);
  EXPECT_EQ(float_to_half(-INFINITY), 0xFC00);
  EXPECT_EQ(float_to_half(NAN) & 0x7FFF, 0x7E00);
  EXPECT_EQ(float_to_half(1e-30f), 0x0000);
  EXPECT_EQ(float_to_half_sat(1e30f), 0x7BFF);
  EXPECT_EQ(float_to_half_sat(-1e30f), 0xFBFF);
}

TEST(Bf16, RoundTripAndRne) {
  for (std::uint32_t b = 0; b < 0x7F80; ++b) {
    const float x = bf16_to_float(static_cast<std::uint16_t>(b));
    ASSERT_EQ(float_to_bf16(x), b);
    const float y = bf16_to_float(static_cast<std::uint16_t>(b + 1));
    const float mid = static_cast<float>((static_cast<double>(x) + y) / 2);
    ASSERT_EQ(float_to_bf16(mid), (b & 1) ? b + 1 : b) << b;
  }
  EXPECT_EQ(float_to_bf16(1.0f), 0x3F80);
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(NAN))));
}

struct Fp8Case {
  const char* name;
  Fp8Kind kind;
  float x;
  std::uint8_t code;
};

// Known encodings (OCP FP8: E4M3FN has no inf and NaN = S.1111.111; E5M2 is IEEE-like).
const Fp8Case kFp8Table[] = {
    {"e4m3_zero", Fp8Kind::e4m3, 0.f, 0x00},
    {"e4m3_neg_zero", Fp8Kind::e4m3, -0.f, 0x80},
    {"e4m3_one", Fp8Kind::e4m3, 1.f, 0x38},
    {"e4m3_one_and_half", Fp8Kind::e4m3, 1.5f, 0x3C},
    {"e4m3_three_and_half", Fp8Kind::e4m3, 3.5f, 0x46},
    {"e4m3_minus_two", Fp8Kind::e4m3, -2.f, 0xC0},
    {"e4m3_max_448", Fp8Kind::e4m3, 448.f, 0x7E},
    {"e4m3_neg_max", Fp8Kind::e4m3, -448.f, 0xFE},
    {"e4m3_464_saturates", Fp8Kind::e4m3, 464.f, 0x7E},
    {"e4m3_1e6_saturates", Fp8Kind::e4m3, 1e6f, 0x7E},
    {"e4m3_inf_saturates", Fp8Kind::e4m3, INFINITY, 0x7E},
    {"e4m3_neg_inf_saturates", Fp8Kind::e4m3, -INFINITY, 0xFE},
    {"e4m3_nan", Fp8Kind::e4m3, NAN, 0x7F},
    {"e4m3_min_normal", Fp8Kind::e4m3, 0x1p-6f, 0x08},
    {"e4m3_min_subnormal", Fp8Kind::e4m3, 0x1p-9f, 0x01},
    {"e4m3_max_subnormal", Fp8Kind::e4m3, 7 * 0x1p-9f, 0x07},
    {"e4m3_half_min_subnormal_to_zero", Fp8Kind::e4m3, 0x1p-10f, 0x00},
    {"e4m3_1p5_subnormal_quanta_to_2", Fp8Kind::e4m3, 3 * 0x1p-10f, 0x02},
    {"e4m3_tie_1_0625_to_1", Fp8Kind::e4m3, 1.0625f, 0x38},
    {"e4m3_tie_1_1875_to_1_25", Fp8Kind::e4m3, 1.1875f, 0x3A},
    {"e4m3_tie_17_to_16", Fp8Kind::e4m3, 17.f, 0x58},
    {"e4m3_tiny_to_zero", Fp8Kind::e4m3, 1e-30f, 0x00},
    {"e5m2_one", Fp8Kind::e5m2, 1.f, 0x3C},
    {"e5m2_one_and_quarter", Fp8Kind::e5m2, 1.25f, 0x3D},
    {"e5m2_minus_two", Fp8Kind::e5m2, -2.f, 0xC0},
    {"e5m2_max_57344", Fp8Kind::e5m2, 57344.f, 0x7B},
    {"e5m2_60000_saturates", Fp8Kind::e5m2, 60000.f, 0x7B},
    {"e5m2_inf_saturates", Fp8Kind::e5m2, INFINITY, 0x7B},
    {"e5m2_nan", Fp8Kind::e5m2, NAN, 0x7F},
    {"e5m2_neg_nan", Fp8Kind::e5m2, -NAN, 0xFF},
    {"e5m2_min_normal", Fp8Kind::e5m2, 0x1p-14f, 0x04},
    {"e5m2_min_subnormal", Fp8Kind::e5m2, 0x1p-16f, 0x01},
    {"e5m2_tie_1_125_to_1", Fp8Kind::e5m2, 1.125f, 0x3C},
    {"e5m2_tie_1_375_to_1_5", Fp8Kind::e5m2, 1.375f, 0x3E},
};

class Fp8Table : public ::testing::TestWithParam<Fp8Case> {};

TEST_P(Fp8Table, EncodesBitExact) {
  const Fp8Case& c = GetParam();
  EXPECT_EQ(fp8_encode(c.x, c.kind), c.code);
  if (std::isnan(c.x)) {
    EXPECT_TRUE(std::isnan(fp8_decode(c.code, c.kind)));
  }
}

INSTANTIATE_TEST_SUITE_P(Known, Fp8Table, ::testing::ValuesIn(kFp8Table),
                         [](const auto& info) { return std::string(info.param.name); });

class Fp8AllCodes : public ::testing::TestWithParam<Fp8Kind> {};

TEST_P(Fp8AllCodes, RoundTripAndMidpointsRoundToEven) {
  const Fp8Kind k = GetParam();
  const Fp8Traits t = fp8_traits(k);
  for (int c = 0; c <= t.max_code; ++c) {
    const float x = fp8_decode(static_cast<std::uint8_t>(c), k);
    ASSERT_EQ(fp8_encode(x, k), c);
    ASSERT_EQ(fp8_encode(-x, k), c | 0x80);
    if (c == t.max_code) break;
    const float y = fp8_decode(static_cast<std::uint8_t>(c + 1), k);
    const float mid = (x + y) / 2;  // exact in float
    ASSERT_EQ(fp8_encode(mid, k), (c & 1) ? c + 1 : c) << "midpoint after code " << c;
    ASSERT_EQ(fp8_encode(std::nextafter(mid, 0.f), k), c);
    ASSERT_EQ(fp8_encode(std::nextafter(mid, INFINITY), k), c + 1);
  }
  EXPECT_EQ(fp8_decode(0x7F, k) != fp8_decode(0x7F, k), true);  // NaN
}

INSTANTIATE_TEST_SUITE_P(Kinds, Fp8AllCodes, ::testing::Values(Fp8Kind::e4m3, Fp8Kind::e5m2),
                         [](const auto& info) {
                           return std::string(info.param == Fp8Kind::e4m3 ? "e4m3" : "e5m2");
                         });

}  // namespace
}  // namespace kvplan::kernels

namespace kvplan::kernels {
namespace {

// The fast encoder equals the spec on a sweep of 4.2M float bit patterns (every exponent, both
// signs, NaN and inf) per format.
TEST(Fp8Fast, EqualsReferenceOnBitPatternSweep) {
  for (Fp8Kind k : {Fp8Kind::e4m3, Fp8Kind::e5m2})
    for (std::uint64_t u = 0; u < (1ull << 32); u += 1021) {
      const float x = bits_float(static_cast<std::uint32_t>(u));
      ASSERT_EQ(fp8_encode_cpu(x, k), fp8_encode(x, k)) << std::hex << u;
    }
}

}  // namespace
}  // namespace kvplan::kernels
