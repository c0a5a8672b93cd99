// Private to kvplan_kernels: what the fast CPU quantizers of every format family share (the
// rint trick, the branch-free fp16 encoder, the 8- and 16-lane vector types, the lane and bit-width
// dispatch) and the family entry points quantize_cpu() switches to. One translation unit per
// family (quantize_cpu_float.cpp, _fp8, _int8, _kivi), each compiled with the clones of
// KVPLAN_CPU_CLONES, so no single file sets the build's critical path.
//
// The arithmetic is the _ref spec's, restructured for SIMD: branch-free selects instead of
// branches, bit tricks instead of frexp/rint, chunks through small local buffers, int8 and KIVI
// in 8- or 16-lane vector code with KIVI words packed in registers. Every division of the spec
// stays a division: x/s and x·(1/s) can differ by an ulp, which moves a code at a .5 tie.
// Bit-identical to the reference: tests/kernels compare the two byte for byte, and each CPU build
// (KVPLAN_CPU_ISA baseline, avx2, v4) passes the same tests.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cpu_fast.hpp"
#include "kvplan/kernels/quantize.hpp"

// The vector helpers pass 32- and 64-byte vectors by value; they are always inlined into the
// multiversioned bodies, so no call ever uses that ABI.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace kvplan::kernels::quantize_fast {
using namespace cpu_fast;

// rint() for |y| < 2^22 in the default rounding mode: adding 1.5·2^23 leaves no fraction bits,
// and the integer is then the low bits of the sum: rint(y) = bits(y + M) - bits(M).
constexpr float kRneMagic = 12582912.f;  // 1.5 · 2^23 (needs IEEE arithmetic: no -ffast-math)
constexpr std::uint32_t kRneMagicBits = 0x4B400000u;
inline float rne_small(float y) { return (y + kRneMagic) - kRneMagic; }

// float_to_half without branches: all three cases computed, then selected (vectorizes).
inline std::uint16_t half_enc(float f) {
  const std::uint32_t b = float_bits(f);
  const std::uint32_t sign = (b >> 16) & 0x8000u;
  const std::int32_t u = static_cast<std::int32_t>(b & 0x7FFFFFFFu);
  const std::uint32_t uu = static_cast<std::uint32_t>(u);
  const std::uint32_t nrm = (uu + 0xC8000FFFu + ((uu >> 13) & 1u)) >> 13;  // (15-127)<<23 wraps
  const std::uint32_t sub = float_bits(bits_float(uu) + 0.5f) - 0x3F000000u;
  const std::uint32_t big = u > 0x7F800000 ? 0x7E00u : 0x7C00u;
  std::uint32_t o = u < (113 << 23) ? sub : nrm;
  o = u >= (143 << 23) ? big : o;
  return static_cast<std::uint16_t>(o | sign);
}

// ---- Vector paths (GCC/Clang vector extensions; each clone lowers them to its own ISA) ----
namespace vec {
typedef float f32 __attribute__((vector_size(32)));
typedef std::int32_t i32 __attribute__((vector_size(32)));
typedef std::uint32_t u32 __attribute__((vector_size(32)));
typedef std::uint8_t u8x32 __attribute__((vector_size(32)));
typedef std::uint8_t u8 __attribute__((vector_size(8)));
// Sixteen lanes: one AVX-512 register, used only where the v4 clone runs (see wide_lanes).
typedef float f32x16 __attribute__((vector_size(64)));
typedef std::uint32_t u32x16 __attribute__((vector_size(64)));
typedef std::int32_t i32x16 __attribute__((vector_size(64)));
typedef std::uint64_t u64x8 __attribute__((vector_size(64)));
typedef std::uint16_t u16x8 __attribute__((vector_size(16)));
typedef std::uint32_t u32x4 __attribute__((vector_size(16)));
typedef std::uint8_t u8x4 __attribute__((vector_size(4)));
typedef std::uint8_t u8x16 __attribute__((vector_size(16)));

template <class F = f32>
KVPLAN_INLINE F load(const float* p) {
  F v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
KVPLAN_INLINE void store(float* p, const f32& v) { std::memcpy(p, &v, sizeof v); }
// Same bits, another lane type.
template <class To, class From>
KVPLAN_INLINE To as(const From& v) {
  static_assert(sizeof(To) == sizeof(From));
  To t;
  std::memcpy(&t, &v, sizeof t);
  return t;
}
// OR of the eight lanes.
KVPLAN_INLINE std::uint32_t or_all(u32 t) {
  t |= __builtin_shufflevector(t, t, 4, 5, 6, 7, 0, 1, 2, 3);
  t |= __builtin_shufflevector(t, t, 2, 3, 0, 1, 6, 7, 4, 5);
  t |= __builtin_shufflevector(t, t, 1, 0, 3, 2, 5, 4, 7, 6);
  return t[0];
}
// ORs of the eight lanes of a and of b at once: {or_all(a), or_all(b)}.
KVPLAN_INLINE void or_all2(const u32& a, const u32& b, std::uint32_t out[2]) {
  u32 t = __builtin_shufflevector(a, b, 0, 1, 2, 3, 8, 9, 10, 11) |
          __builtin_shufflevector(a, b, 4, 5, 6, 7, 12, 13, 14, 15);
  t |= __builtin_shufflevector(t, t, 2, 3, 0, 1, 6, 7, 4, 5);
  t |= __builtin_shufflevector(t, t, 1, 0, 3, 2, 5, 4, 7, 6);
  out[0] = t[0];
  out[1] = t[4];
}
// The low byte of each lane, in lane order.
KVPLAN_INLINE u8 low_bytes(const u32& t) {
  const u8x32 b = as<u8x32>(t);
  return __builtin_shufflevector(b, b, 0, 4, 8, 12, 16, 20, 24, 28);
}
// Lane shifts of the KIVI packing (first code in the lowest bits of its word).
constexpr u32 kShift2Lo = {0, 2, 4, 6, 8, 10, 12, 14}, kShift2Hi = {16, 18, 20, 22, 24, 26, 28, 30};
constexpr u32 kShift4 = {0, 4, 8, 12, 16, 20, 24, 28};

// kivi_code_of on 8 or 16 lanes: (x - z)/s rounded and clamped to [0, L], NaN -> 0 (the spec's
// division per element, as the scalar path). Only the low clamp is done in float: for y in
// [-0.5, 2^22) the bits of y + 1.5·2^23 minus its own bits are rint(y); beyond (up to +inf, bits
// 0x34400000 above) they stay above 2^22 because positive floats order as their bits, and the
// integer min gives L. Signed lanes: every ISA has the signed compare (SSE2 lacks the unsigned).
template <class F>
KVPLAN_INLINE auto kivi_codes(const float* x, const F& z, const F& s, std::int32_t L) {
  using I = std::conditional_t<sizeof(F) == 32, i32, i32x16>;
  using U = std::conditional_t<sizeof(F) == 32, u32, u32x16>;
  F y = (load<F>(x) - z) / s;
  y = y > -0.5f ? y : -0.5f;
  const I c = as<I>(y + kRneMagic) - static_cast<std::int32_t>(kRneMagicBits);
  return as<U>(c < L ? c : L);
}
}  // namespace vec

// The integer lane types of a float type: uint32_t / int32_t for float, the matching vectors.
template <class F>
struct Lanes {
  using U = std::uint32_t;
  using I = std::int32_t;
};
template <>
struct Lanes<vec::f32> {
  using U = vec::u32;
  using I = vec::i32;
};
template <>
struct Lanes<vec::f32x16> {
  using U = vec::u32x16;
  using I = vec::i32x16;
};

// Sixteen-lane KIVI encoding where the running clone is the x86-64-v4 one (one AVX-512 register
// per step: 1.7x the eight-lane throughput there); eight lanes elsewhere, since GCC lowers 64-byte
// vectors to element-wise code on AVX2 and SSE2 (6x slower than eight lanes).
inline bool wide_lanes() {
#if defined(KVPLAN_CPU_ISA_V4)
  return true;
#elif defined(KVPLAN_CPU_ISA_BASELINE) || defined(KVPLAN_CPU_ISA_AVX2) || \
    !(defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__))
  return false;
#else
  static const bool v4 = __builtin_cpu_supports("x86-64-v4");  // the clones' own test
  return v4;
#endif
}

// Calls f with the lane count (16 or 8, as a constant) the running clone wants.
template <class F>
KVPLAN_INLINE void dispatch_lanes(F&& f) {
  if (wide_lanes())
    f(std::integral_constant<int, 16>{});
  else
    f(std::integral_constant<int, 8>{});
}

template <class F>
KVPLAN_INLINE void dispatch_bits(std::uint32_t bits, F&& f) {
  if (bits == 2)
    f(std::integral_constant<std::uint32_t, 2>{});
  else if (bits == 4)
    f(std::integral_constant<std::uint32_t, 4>{});
  else
    f(std::integral_constant<std::uint32_t, 8>{});
}

// The vector KIVI paths need whole words per group (G·bits a multiple of 32), G <= 256, and
// whole steps: d a multiple of 8 (keys, lanes = channels) or G a multiple of 16 (values, lanes =
// a record's values). Other shapes take the per-record kivi_encode_fast / kivi_decode_record.
inline bool kivi_vector_ok(const KvFormat& f, StreamRole role, std::uint32_t d) {
  return f.group <= 256 && (f.group * f.bits) % 32 == 0 &&
         (role == StreamRole::key ? d % 8 == 0 : f.group % 16 == 0);
}

// Signed-integer selects only, so that the loops over groups vectorize: beyond ±65504 (incl.
// ±inf) saturate to ±65504 = sign | 0x7BFF, as the spec's clamp before converting.
KVPLAN_INLINE std::uint16_t half_enc_sat(float f) {
  const std::uint32_t b = float_bits(f);
  const std::int32_t a = static_cast<std::int32_t>(b & 0x7FFFFFFFu);
  const std::uint32_t sat = ((b >> 16) & 0x8000u) | 0x7BFFu;
  std::uint32_t h = half_enc(f);
  h = a > 0x477FE000 ? sat : h;
  h = a > 0x7F800000 ? 0x7E00u : h;
  return static_cast<std::uint16_t>(h);
}
// Scale/zero of m groups from their min/max at once (vectorizes): stored scale/zero, the zero's
// float value, the divisor (NaN where scale_h is not > 0, so that every code is 0) and `exact`,
// false where the vector min/max may differ from the spec's fmin/fmax fold (a NaN first element,
// all NaN, or a ±0 extreme whose sign depends on the fold order): those groups are re-encoded by
// the spec's own kivi_encode_record.
KVPLAN_INLINE void kivi_groups(const float* mn, const float* mx, std::uint32_t m, float levels,
                               std::uint16_t* sh, std::uint16_t* zh, float* z, float* sd,
                               std::uint8_t* exact) {
  for (std::uint32_t i = 0; i < m; ++i) {
    sh[i] = half_enc_sat((mx[i] - mn[i]) / levels);
    zh[i] = half_enc_sat(mn[i]);
  }
  for (std::uint32_t i = 0; i < m; ++i) {
    const float s = half_dec(sh[i]);
    z[i] = half_dec(zh[i]);
    sd[i] = s > 0.f ? s : NAN;  // (x - z)/NaN is NaN: code 0, as the spec's `scale > 0 ? … : 0`
    exact[i] = mn[i] <= mx[i] && mn[i] != 0.f && mx[i] != 0.f;
  }
}

// Min and max of the non-NaN values of g[0..G) (+inf/-inf when all are NaN), N = 16 or 8 lanes
// at a time (see wide_lanes).
template <int N>
KVPLAN_INLINE void group_minmax(const float* g, std::uint32_t G, float& lo, float& hi) {
  vec::f32 mn = vec::f32{} + INFINITY, mx = vec::f32{} - INFINITY;
  std::uint32_t j = 0;
  if constexpr (N == 16) {
    vec::f32x16 mn16 = vec::f32x16{} + INFINITY, mx16 = vec::f32x16{} - INFINITY;
    for (; j + 16 <= G; j += 16) {
      const vec::f32x16 v = vec::load<vec::f32x16>(g + j);
      mn16 = v < mn16 ? v : mn16;
      mx16 = v > mx16 ? v : mx16;
    }
    const vec::f32 a = __builtin_shufflevector(mn16, mn16, 0, 1, 2, 3, 4, 5, 6, 7),
                   b = __builtin_shufflevector(mn16, mn16, 8, 9, 10, 11, 12, 13, 14, 15),
                   c = __builtin_shufflevector(mx16, mx16, 0, 1, 2, 3, 4, 5, 6, 7),
                   e = __builtin_shufflevector(mx16, mx16, 8, 9, 10, 11, 12, 13, 14, 15);
    mn = a < b ? a : b;
    mx = c > e ? c : e;
  }
  for (; j + 8 <= G; j += 8) {
    const vec::f32 v = vec::load(g + j);
    mn = v < mn ? v : mn;
    mx = v > mx ? v : mx;
  }
  // Lanes hold no NaN (+-inf at most): a shuffle tree gives the same extremes as a scalar fold
  // (the sign of a zero extreme may differ; such groups are not `exact`, see kivi_groups).
  vec::f32 a = __builtin_shufflevector(mn, mn, 4, 5, 6, 7, 0, 1, 2, 3);
  vec::f32 b = __builtin_shufflevector(mx, mx, 4, 5, 6, 7, 0, 1, 2, 3);
  mn = a < mn ? a : mn;
  mx = b > mx ? b : mx;
  a = __builtin_shufflevector(mn, mn, 2, 3, 0, 1, 6, 7, 4, 5);
  b = __builtin_shufflevector(mx, mx, 2, 3, 0, 1, 6, 7, 4, 5);
  mn = a < mn ? a : mn;
  mx = b > mx ? b : mx;
  a = __builtin_shufflevector(mn, mn, 1, 0, 3, 2, 5, 4, 7, 6);
  b = __builtin_shufflevector(mx, mx, 1, 0, 3, 2, 5, 4, 7, 6);
  mn = a < mn ? a : mn;
  mx = b > mx ? b : mx;
  lo = mn[0];
  hi = mx[0];
  for (; j < G; ++j) {
    lo = g[j] < lo ? g[j] : lo;
    hi = g[j] > hi ? g[j] : hi;
  }
}

// One KIVI record encoded by quantize_ref itself (see quantize_cpu_kivi_encode.cpp): x[j·stride],
// j < G, of one key channel or one value group.
void kivi_record_by_ref(const float* x, std::uint32_t stride, std::uint32_t G, const KvFormat& f,
                        StreamRole role, std::uint8_t* rec);
// The vector KIVI encoders (kivi_vector_ok(p.format, p.role, p.width) holds).
Status quantize_kivi_keys_vec(const QuantizeParams& p);
Status quantize_kivi_values_vec(const QuantizeParams& p);

// Family entry points: p validated, p.format.dtype of the family.
Status quantize_float(const QuantizeParams& p);  // fp32, fp16, bf16
Status dequantize_float(const QuantizeParams& p);
Status quantize_fp8(const QuantizeParams& p);  // fp8 e4m3, e5m2
Status dequantize_fp8(const QuantizeParams& p);
Status quantize_int8(const QuantizeParams& p);
Status dequantize_int8(const QuantizeParams& p);
Status quantize_kivi(const QuantizeParams& p);
Status dequantize_kivi(const QuantizeParams& p);

}  // namespace kvplan::kernels::quantize_fast
