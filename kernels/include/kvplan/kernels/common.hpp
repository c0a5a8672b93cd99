// Shared pieces of every kernel family: the host/device qualifier, Status, the backend switch and
// the scalar conversions (fp16, bf16, fp8 e4m3/e5m2) that the CPU reference and the CUDA kernels
// must agree on bit for bit. C++17-clean: nvcc includes this header.
//
//   std::uint16_t h = kvplan::kernels::float_to_half(1.0f);   // 0x3C00, round-to-nearest-even
//   float x = kvplan::kernels::half_to_float(h);               // 1.0f
//   std::uint8_t e = kvplan::kernels::fp8_encode(448.f, Fp8Kind::e4m3);  // 0x7E (max finite)
//   kvplan::kernels::fp8_encode(1000.f, Fp8Kind::e4m3) == 0x7E           // saturates
//
// Rounding and special values (docs/kernels.md has the full table):
//   fp16 / bf16: round-to-nearest-even; overflow -> inf (float_to_half) or +-65504
//     (float_to_half_sat, used for KIVI scales and zero-points); NaN -> quiet NaN.
//   fp8 e4m3 (OCP "FN": bias 7, no inf, max 448) and e5m2 (bias 15, max 57344): round-to-
//     nearest-even, saturating: any finite value or inf beyond max -> +-max; NaN -> 0x7F / 0xFF
//     (sign kept); subnormals encoded exactly; -0 -> 0x80.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#if defined(__CUDACC__)
#define KVPLAN_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define KVPLAN_HOST_DEVICE inline
#endif

namespace kvplan::kernels {

// invalid_argument: the caller's parameters are wrong (exit 2 at the top level). out_of_range: a
// sequence, layer or slot that does not exist. unimplemented: a backend lacks the case.
// internal: a runtime failure that is no fault of the input (a CUDA error, out of device memory
// included, or a broken invariant): exit 3.
enum class StatusCode { ok, invalid_argument, out_of_range, unimplemented, internal };

// Kernels return a Status (STYLE.md rule 11); message names the parameter and the bad value.
struct Status {
  StatusCode code = StatusCode::ok;
  std::string message;
  bool ok() const { return code == StatusCode::ok; }
  static Status Ok() { return {}; }
  static Status Invalid(std::string m) { return {StatusCode::invalid_argument, std::move(m)}; }
  static Status OutOfRange(std::string m) { return {StatusCode::out_of_range, std::move(m)}; }
  static Status Unimplemented(std::string m) { return {StatusCode::unimplemented, std::move(m)}; }
  static Status Internal(std::string m) { return {StatusCode::internal, std::move(m)}; }
};

// Which implementation a dispatcher runs. cpu_ref: the naive spec. cpu: the faster CPU path
// (bit-identical to cpu_ref for codes and selections; attention within float rounding).
// cuda: returns unimplemented until the CUDA kernels land.
enum class Backend { cpu_ref, cpu, cuda };

enum class Fp8Kind { e4m3, e5m2 };

KVPLAN_HOST_DEVICE std::uint32_t float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
KVPLAN_HOST_DEVICE float bits_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// fp16 -> float, exact for every input (subnormals via one exact multiply by 2^112).
KVPLAN_HOST_DEVICE float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t em = static_cast<std::uint32_t>(h & 0x7FFFu) << 13;
  float f = bits_float(em) * 0x1p112f;
  if ((h & 0x7C00u) == 0x7C00u) f = bits_float(em | 0x7F800000u);  // inf / NaN
  return bits_float(float_bits(f) | sign);
}

// float -> fp16, round-to-nearest-even; overflow -> +-inf; NaN -> 0x7E00 (sign kept).
KVPLAN_HOST_DEVICE std::uint16_t float_to_half(float f) {
  std::uint32_t u = float_bits(f);
  const std::uint32_t sign = u & 0x80000000u;
  u ^= sign;
  std::uint32_t o;
  if (u >= (143u << 23)) {  // >= 65536 (rounds to inf), inf, NaN
    o = u > 0x7F800000u ? 0x7E00u : 0x7C00u;
  } else if (u < (113u << 23)) {  // fp16 subnormal or zero: let the FPU round (RNE) at 2^-24
    const std::uint32_t magic = 126u << 23;  // 0.5f: ulp(0.5) = 2^-24
    o = float_bits(bits_float(u) + bits_float(magic)) - magic;
  } else {
    const std::uint32_t odd = (u >> 13) & 1u;
    u += (static_cast<std::uint32_t>(15 - 127) << 23) + 0xFFFu + odd;
    o = u >> 13;  // may carry into inf at 65520: correct RNE overflow
  }
  return static_cast<std::uint16_t>(o | (sign >> 16));
}

// float -> fp16 RNE, finite results clamped to +-65504 (KIVI scale / zero-point storage).
KVPLAN_HOST_DEVICE std::uint16_t float_to_half_sat(float f) {
  if (f != f) return 0x7E00u;
  if (f > 65504.f) f = 65504.f;
  if (f < -65504.f) f = -65504.f;
  return float_to_half(f);
}

KVPLAN_HOST_DEVICE float bf16_to_float(std::uint16_t b) {
  return bits_float(static_cast<std::uint32_t>(b) << 16);
}
// float -> bf16, round-to-nearest-even; NaN -> quiet NaN (sign kept).
KVPLAN_HOST_DEVICE std::uint16_t float_to_bf16(float f) {
  const std::uint32_t u = float_bits(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<std::uint16_t>((u >> 16) | 0x40u);
  return static_cast<std::uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

// ---- fp8 ----
struct Fp8Traits {
  int mant_bits;
  int bias;
  float max_finite;
  std::uint8_t max_code;  // code of +max_finite
};
KVPLAN_HOST_DEVICE Fp8Traits fp8_traits(Fp8Kind k) {
  return k == Fp8Kind::e4m3 ? Fp8Traits{3, 7, 448.f, 0x7E} : Fp8Traits{2, 15, 57344.f, 0x7B};
}

// fp8 -> float, exact.
KVPLAN_HOST_DEVICE float fp8_decode(std::uint8_t c, Fp8Kind k) {
  const Fp8Traits t = fp8_traits(k);
  const int e_bits = 7 - t.mant_bits;
  const int e = (c >> t.mant_bits) & ((1 << e_bits) - 1);
  const int m = c & ((1 << t.mant_bits) - 1);
  const float sign = (c & 0x80) ? -1.f : 1.f;
  if (k == Fp8Kind::e4m3 && e == 15 && m == 7) return NAN;
  if (k == Fp8Kind::e5m2 && e == 31) return m ? NAN : sign * INFINITY;
  if (e == 0) return sign * std::ldexp(static_cast<float>(m), 1 - t.bias - t.mant_bits);
  return sign * std::ldexp(static_cast<float>(m + (1 << t.mant_bits)), e - t.bias - t.mant_bits);
}

// float -> fp8, round-to-nearest-even, saturating (see the header comment). The spec: the value
// is scaled to an integer multiple of its quantum exactly, rounded with rint (RNE), re-encoded.
KVPLAN_HOST_DEVICE std::uint8_t fp8_encode(float x, Fp8Kind k) {
  const Fp8Traits t = fp8_traits(k);
  const std::uint8_t sign = std::signbit(x) ? 0x80 : 0x00;
  if (x != x) return static_cast<std::uint8_t>(sign | 0x7F);
  const float a = std::fabs(x);
  if (a >= t.max_finite) return static_cast<std::uint8_t>(sign | t.max_code);
  const int min_exp = 1 - t.bias;  // exponent of the smallest normal
  int e = 0;
  std::frexp(a, &e);  // a = f * 2^e, f in [0.5, 1)
  e -= 1;             // a = 1.m * 2^e
  if (e < min_exp) e = min_exp;
  const float quantum = std::ldexp(1.f, e - t.mant_bits);
  const float q = std::rint(a / quantum);  // exact division by a power of two, then RNE
  const float v = q * quantum;
  if (v > t.max_finite) return static_cast<std::uint8_t>(sign | t.max_code);
  int qi = static_cast<int>(q);
  if (qi < (1 << t.mant_bits)) {  // subnormal (only possible at e == min_exp) or zero
    return static_cast<std::uint8_t>(sign | qi);
  }
  if (qi == (2 << t.mant_bits)) {  // rounded up into the next binade
    qi >>= 1;
    e += 1;
  }
  const int field = e + t.bias;
  return static_cast<std::uint8_t>(sign | (field << t.mant_bits) | (qi - (1 << t.mant_bits)));
}

// Common index math.
KVPLAN_HOST_DEVICE std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
  return (a + b - 1) / b;
}
KVPLAN_HOST_DEVICE std::uint64_t gcd_u64(std::uint64_t a, std::uint64_t b) {
  while (b) {
    const std::uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}
KVPLAN_HOST_DEVICE std::uint64_t lcm_u64(std::uint64_t a, std::uint64_t b) {
  return a / gcd_u64(a, b) * b;
}

}  // namespace kvplan::kernels
