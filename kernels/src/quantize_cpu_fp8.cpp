// Fast CPU quantize / dequantize of fp8 (e4m3, e5m2): branch-free encoders on 8 or 16 lanes and a
// table-free decoder. quantize_fast.hpp says how they match the spec.
#include <cstring>

#include "quantize_fast.hpp"

namespace kvplan::kernels::quantize_fast {
namespace {

// fp8_encode without branches, on one float or on a vector of them (one code per 32-bit lane).
// The exhaustive test in test_conversions covers every float through the scalar instance;
// tests/kernels sweeps bit patterns through the vector ones.
template <Fp8Kind K, class F>
KVPLAN_INLINE typename Lanes<F>::U fp8_enc_lanes(const F& x) {
  using U = typename Lanes<F>::U;
  using I = typename Lanes<F>::I;
  constexpr int M = K == Fp8Kind::e4m3 ? 3 : 2, bias = K == Fp8Kind::e4m3 ? 7 : 15;
  constexpr std::int32_t max_bits = K == Fp8Kind::e4m3 ? 0x43E00000 : 0x47600000;  // 448, 57344
  constexpr std::uint32_t max_code = K == Fp8Kind::e4m3 ? 0x7E : 0x7B;
  constexpr int min_exp = 1 - bias;
  constexpr std::uint32_t magic = static_cast<std::uint32_t>(min_exp - M + 23 + 127) << 23;
  const U b = vec::as<U>(x);
  const U sign = (b >> 24) & 0x80u;
  const U uu = b & 0x7FFFFFFFu;
  const I u = vec::as<I>(uu);
  const U r = uu + ((1u << (22 - M)) - 1u) + ((uu >> (23 - M)) & 1u);
  U code = (r >> (23 - M)) - (static_cast<std::uint32_t>(127 - bias) << M);
  const U sub = vec::as<U>(vec::as<F>(uu) + bits_float(magic)) - magic;
  code = u < ((min_exp + 127) << 23) ? sub : code;
  code = u >= max_bits ? U{} + max_code : code;
  code = u > 0x7F800000 ? U{} + 0x7Fu : code;
  return code | sign;
}
template <Fp8Kind K>
inline std::uint8_t fp8_enc(float x) {
  return static_cast<std::uint8_t>(fp8_enc_lanes<K>(x));
}
// fp8_decode without a table (vectorizes): the 7 magnitude bits moved under a float's exponent
// field give 2^(bias_f32 - bias_fp8) times the value, for subnormal codes too (as half_dec does);
// NaN codes give the spec's NaN (0x7FC00000 whatever the sign), e5m2's exponent 31 with a zero
// mantissa ±inf. Equal to fp8_decode for all 256 codes of both kinds (tests/kernels).
template <Fp8Kind K>
KVPLAN_INLINE float fp8_dec(std::uint32_t c) {
  constexpr std::uint32_t M = K == Fp8Kind::e4m3 ? 3 : 2;
  constexpr float up = K == Fp8Kind::e4m3 ? 0x1p120f : 0x1p112f;  // 2^(127 - 7), 2^(127 - 15)
  const std::uint32_t mag = c & 0x7Fu, sign = (c & 0x80u) << 24;
  std::uint32_t b = float_bits(bits_float(mag << (23 - M)) * up) | sign;
  if constexpr (K == Fp8Kind::e4m3) {
    b = mag == 0x7Fu ? 0x7FC00000u : b;
  } else {
    b = mag == 0x7Cu ? sign | 0x7F800000u : b;
    b = mag > 0x7Cu ? 0x7FC00000u : b;
  }
  return bits_float(b);
}

// N = 16 or 8 values per step (see wide_lanes), the tail one by one.
template <Fp8Kind K, int N>
KVPLAN_INLINE void fp8_quantize(const float* in, std::uint8_t* out, std::uint64_t n, float scale) {
  using F = std::conditional_t<N == 16, vec::f32x16, vec::f32>;
  const bool unit = scale == 1.0f;  // x / 1 == x (a NaN stays a NaN of the same sign)
  std::uint64_t i = 0;
  for (; i + N <= n; i += N) {
    F x = vec::load<F>(in + i);
    if (!unit) x = x / scale;
    const auto c = fp8_enc_lanes<K>(x);
    if constexpr (N == 16) {
      const vec::u8x16 b = __builtin_convertvector(c, vec::u8x16);
      std::memcpy(out + i, &b, 16);
    } else {
      const vec::u8 b = vec::low_bytes(c);
      std::memcpy(out + i, &b, 8);
    }
  }
  for (; i < n; ++i) out[i] = fp8_enc<K>(unit ? in[i] : in[i] / scale);
}
// The spec's fp8_decode(c) * scale.
template <Fp8Kind K>
KVPLAN_INLINE void fp8_dequantize(const std::uint8_t* in, float* out, std::uint64_t n,
                                  float scale) {
  for (std::uint64_t i = 0; i < n; ++i) out[i] = fp8_dec<K>(in[i]) * scale;
}

}  // namespace

KVPLAN_CPU_CLONES Status quantize_fp8(const QuantizeParams& p) {
  const std::uint32_t d = p.width;
  [[maybe_unused]] const std::uint64_t n = std::uint64_t{p.tokens} * d;
  const KvFormat& f = p.format;
  switch (f.dtype) {
    case KvDtype::fp8_e4m3:
      dispatch_lanes([&](auto lanes) KVPLAN_LAMBDA_INLINE {
        fp8_quantize<Fp8Kind::e4m3, lanes()>(p.in, p.out, n, p.fp8_scale);
      });
      break;
    case KvDtype::fp8_e5m2:
      dispatch_lanes([&](auto lanes) KVPLAN_LAMBDA_INLINE {
        fp8_quantize<Fp8Kind::e5m2, lanes()>(p.in, p.out, n, p.fp8_scale);
      });
      break;
    default:
      return Status::Invalid("quantize_fp8: not a fp8 format");
  }
  return Status::Ok();
}

KVPLAN_CPU_CLONES Status dequantize_fp8(const QuantizeParams& p) {
  const std::uint32_t d = p.width;
  [[maybe_unused]] const std::uint64_t n = std::uint64_t{p.tokens} * d;
  const KvFormat& f = p.format;
  switch (f.dtype) {
    case KvDtype::fp8_e4m3:
      fp8_dequantize<Fp8Kind::e4m3>(p.codes, p.dequant, n, p.fp8_scale);
      break;
    case KvDtype::fp8_e5m2:
      fp8_dequantize<Fp8Kind::e5m2>(p.codes, p.dequant, n, p.fp8_scale);
      break;
    default:
      return Status::Invalid("dequantize_fp8: not a fp8 format");
  }
  return Status::Ok();
}

}  // namespace kvplan::kernels::quantize_fast

namespace kvplan::kernels {

// Exposed for the bit-exactness test of the fast fp8 encoder (the one quantize_cpu uses).
std::uint8_t fp8_encode_cpu(float x, Fp8Kind k) {
  return k == Fp8Kind::e4m3 ? quantize_fast::fp8_enc<Fp8Kind::e4m3>(x)
                            : quantize_fast::fp8_enc<Fp8Kind::e5m2>(x);
}

}  // namespace kvplan::kernels
