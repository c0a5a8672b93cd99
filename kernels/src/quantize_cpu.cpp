// Faster CPU quantize / dequantize: the same arithmetic as the _ref spec, restructured for SIMD
// (branch-free selects instead of branches, bit tricks instead of frexp/rint, chunks through small
// local buffers, int8 and KIVI in 8- or 16-lane vector code with KIVI words packed in registers).
// Every division of the spec stays a division: x/s and x·(1/s) can differ by an ulp, which moves
// a code at a .5 tie. Bit-identical to the reference — tests/kernels compare the two byte for
// byte, and each CPU build (KVPLAN_CPU_ISA baseline, avx2, v4) passes the same tests.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include "cpu_fast.hpp"
#include "kvplan/kernels/quantize.hpp"

// The vector helpers pass 32- and 64-byte vectors by value; they are always inlined into the
// multiversioned bodies, so no call ever uses that ABI.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#include <immintrin.h>
#endif

namespace kvplan::kernels {
namespace {
using namespace cpu_fast;

// rint() for |y| < 2^22 in the default rounding mode: adding 1.5·2^23 leaves no fraction bits,
// and the integer is then the low bits of the sum: rint(y) = bits(y + M) - bits(M).
constexpr float kRneMagic = 12582912.f;  // 1.5 · 2^23 (needs IEEE arithmetic: no -ffast-math)
constexpr std::uint32_t kRneMagicBits = 0x4B400000u;
inline float rne_small(float y) { return (y + kRneMagic) - kRneMagic; }

// rint(clamp(y, -0.5, L)) as an int equals clamp(rint(y), 0, L) for every y, NaN -> 0 (as the
// spec's fmin/fmax): one clamp, then the 1.5·2^23 trick, then a truncating convert.
inline std::uint32_t kivi_code_of(float y, float levels) {
  y = y > -0.5f ? y : -0.5f;
  y = y < levels ? y : levels;
  return static_cast<std::uint32_t>(static_cast<std::int32_t>(rne_small(y)));
}

// One KIVI record through quantize_ref itself (the spec's translation unit): the fallback for
// groups whose result depends on the order of the spec's fmin/fmax fold (NaN, ±0 extremes). Not
// re-derived here: GCC expands std::fmin inline differently per file and flags, and the sign of a
// zero scale or zero-point would then differ from the reference.
void kivi_record_by_ref(const float* x, std::uint32_t stride, std::uint32_t G, const KvFormat& f,
                        StreamRole role, std::uint8_t* rec) {
  float g[256];
  for (std::uint32_t j = 0; j < G; ++j) g[j] = x[std::uint64_t{j} * stride];
  const bool key = role == StreamRole::key;  // one key record = G tokens of one channel
  (void)quantize_ref({.format = f,
                      .role = role,
                      .tokens = key ? G : 1,
                      .width = key ? 1 : G,
                      .in = g,
                      .out = rec});
}

void kivi_encode_fast(const float* x, std::uint32_t stride, const KvFormat& f, StreamRole role,
                      std::uint8_t* rec) {
  const std::uint32_t G = f.group, bits = f.bits;
  float mn = INFINITY, mx = -INFINITY;  // non-NaN min / max
  for (std::uint32_t j = 0; j < G; ++j) {
    const float v = x[j * stride];
    mn = v < mn ? v : mn;
    mx = v > mx ? v : mx;
  }
  if (!(mn <= mx && mn != 0.f && mx != 0.f)) return kivi_record_by_ref(x, stride, G, f, role, rec);
  const float levels = static_cast<float>((1u << bits) - 1u);
  const std::uint16_t sh = float_to_half_sat((mx - mn) / levels), zh = float_to_half_sat(mn);
  const float s = half_to_float(sh), z = half_to_float(zh);
  const std::uint32_t words = kivi_words(G, bits), per_word = 32 / bits;
  std::uint32_t codes[256];
  for (std::uint32_t j = 0; j < G; ++j) {
    codes[j] = s > 0.f ? kivi_code_of((x[j * stride] - z) / s, levels) : 0u;
  }
  for (std::uint32_t w = 0; w < words; ++w) {
    std::uint32_t word = 0;
    for (std::uint32_t k = 0; k < per_word && w * per_word + k < G; ++k)
      word |= codes[w * per_word + k] << (k * bits);
    std::memcpy(rec + 4 * w, &word, 4);
  }
  std::memcpy(rec + 4 * words, &sh, 2);
  std::memcpy(rec + 4 * words + 2, &zh, 2);
}

}  // namespace

namespace {

constexpr std::uint32_t kChunk = 512;  // elements per local buffer (stays in L1)

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
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define KVPLAN_HAVE_F16C_PATH 1
// float_to_half by F16C (vcvtps2ph, round-to-nearest-even, overflow -> inf, fp16 subnormals
// exact), equal to the spec except NaN payloads: vcvtps2ph keeps the top payload bits, the spec
// writes sign | 0x7E00, so NaN results are masked down to sign | exponent | quiet bit. Verified
// equal to float_to_half on all 2^32 floats (tests/kernels, KVPLAN_EXHAUSTIVE=1).
__attribute__((target("avx2,f16c"))) void half_enc_f16c(const float* in, std::uint8_t* out,
                                                        std::uint64_t n) {
  const __m128i mag = _mm_set1_epi16(0x7FFF), inf = _mm_set1_epi16(0x7C00),
                payload = _mm_set1_epi16(0x01FF);
  std::uint64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT);
    const __m128i nan = _mm_cmpgt_epi16(_mm_and_si128(h, mag), inf);
    h = _mm_andnot_si128(_mm_and_si128(nan, payload), h);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * i), h);
  }
  for (; i < n; ++i) {
    const std::uint16_t h = float_to_half(in[i]);
    std::memcpy(out + 2 * i, &h, 2);
  }
}
bool have_f16c() {
  static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
  return ok;
}
#endif

inline std::uint16_t bf16_enc(float f) {
  const std::uint32_t u = float_bits(f);
  const std::uint32_t rne = (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
  const std::uint32_t nan = (u >> 16) | 0x40u;
  return static_cast<std::uint16_t>((u & 0x7FFFFFFFu) > 0x7F800000u ? nan : rne);
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

// int8 codes of x[0..d) with the spec's division per element (any d).
KVPLAN_INLINE void int8_codes(const float* x, std::uint32_t d, float scale, std::uint8_t* rec) {
  for (std::uint32_t i = 0; i < d; ++i) {
    float q = x[i] / scale;
    q = q > -127.f ? q : -127.f;  // NaN -> -127, as fmax(-127, NaN) in the spec
    q = q < 127.f ? q : 127.f;
    rec[i] = static_cast<std::uint8_t>(static_cast<std::int32_t>(rne_small(q)));
  }
}

KVPLAN_INLINE float int8_scale(const float* x, std::uint32_t d) {
  // absmax on the magnitude bits: integer order = float order for non-NaN; NaN ignored (fmax).
  std::int32_t amax = 0;
  for (std::uint32_t i = 0; i < d; ++i) {
    std::int32_t a = static_cast<std::int32_t>(float_bits(x[i]) & 0x7FFFFFFFu);
    a = a > 0x7F800000 ? 0 : a;
    amax = a > amax ? a : amax;
  }
  return bits_float(static_cast<std::uint32_t>(amax)) / 127.f;
}


// One int8 record: the scale, then the codes N = 16 or 8 at a time (as int8_codes: division,
// clamp to ±127 with NaN -> -127, rint) while whole steps remain, the rest by int8_codes.
template <int N>
KVPLAN_INLINE void int8_encode_vec(const float* x, std::uint32_t d, std::uint8_t* rec) {
  const float scale = int8_scale(x, d);
  std::memcpy(rec + d, &scale, 4);
  if (!(scale > 0.f)) {
    std::memset(rec, 0, d);
    return;
  }
  using F = std::conditional_t<N == 16, vec::f32x16, vec::f32>;
  using I = std::conditional_t<N == 16, vec::i32x16, vec::i32>;
  const F sv = F{} + scale;
  std::uint32_t i = 0;
  for (; i + N <= d; i += N) {
    F y = vec::load<F>(x + i) / sv;
    y = y > -127.f ? y : -127.f;
    y = y < 127.f ? y : 127.f;
    const I c = vec::as<I>(y + kRneMagic) - static_cast<std::int32_t>(kRneMagicBits);
    if constexpr (N == 16) {
      const vec::u8x16 b = __builtin_convertvector(c, vec::u8x16);
      std::memcpy(rec + i, &b, 16);
    } else {
      const vec::u8 b = vec::low_bytes(vec::as<vec::u32>(c));
      std::memcpy(rec + i, &b, 8);
    }
  }
  int8_codes(x + i, d - i, scale, rec + i);
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

// Per-call scratch of the key decoder: scales, zeros and words of d channels.
struct KiviScratch {
  std::vector<float> s, z;
  std::vector<std::uint32_t> words;
  explicit KiviScratch(std::uint32_t d, std::uint32_t W) : s(d), z(d), words(std::uint64_t{W} * d) {}
};

// Codes of 8 or 16 key channels (the lanes of F) over one group (G rows of stride d) into
// words[w·stride + lane], word w holding tokens w·pw .. w·pw + pw - 1: the code of token j lands
// at bit (j%pw)·bits with one uniform shift, the words stay in registers.
template <std::uint32_t BITS, class F>
KVPLAN_INLINE void kivi_keys_block(const float* x, std::uint32_t d, std::uint32_t W,
                                   const float* z, const float* s, std::uint32_t* words,
                                   std::uint32_t stride) {
  constexpr std::uint32_t pw = 32 / BITS;
  constexpr std::int32_t L = (1 << BITS) - 1;
  const F zv = vec::load<F>(z), sv = vec::load<F>(s);
  for (std::uint32_t w = 0; w < W; ++w) {
    auto acc = vec::kivi_codes(x + std::uint64_t{w * pw} * d, zv, sv, L);
    for (std::uint32_t kk = 1; kk < pw; ++kk)
      acc |= vec::kivi_codes(x + std::uint64_t{w * pw + kk} * d, zv, sv, L) << (kk * BITS);
    std::memcpy(words + std::uint64_t{w} * stride, &acc, sizeof acc);
  }
}

// Keys: one group-row (G tokens × d channels, row stride d, d a multiple of 8) -> d records, in
// batches of 64 channels whose statistics and words stay in local arrays (no aliasing, L1);
// N = 16 or 8 channels per vector step (see wide_lanes).
template <std::uint32_t BITS, int N>
KVPLAN_INLINE void kivi_keys_encode(const float* x, std::uint32_t d, const KvFormat& f,
                                    std::uint8_t* out) {
  constexpr std::uint32_t kBatch = 64, pw = 32 / BITS;
  constexpr float L = static_cast<float>((1u << BITS) - 1u);
  const std::uint32_t G = f.group, W = G / pw, P = 4 * W + 4;
  alignas(32) float mn[kBatch], mx[kBatch], z[kBatch], sd[kBatch];
  alignas(32) std::uint16_t sh[kBatch], zh[kBatch];
  alignas(32) std::uint8_t exact[kBatch];
  alignas(32) std::uint32_t words[64 * kBatch];  // W <= 64 (G <= 256)
  for (std::uint32_t c0 = 0; c0 < d; c0 += kBatch) {
    const std::uint32_t m = std::min(kBatch, d - c0);
    for (std::uint32_t c = 0; c < m; ++c) {
      mn[c] = INFINITY;
      mx[c] = -INFINITY;
    }
    for (std::uint32_t j = 0; j < G; ++j) {
      const float* row = x + std::uint64_t{j} * d + c0;
      for (std::uint32_t c = 0; c < m; ++c) {
        const float v = row[c];
        mn[c] = v < mn[c] ? v : mn[c];
        mx[c] = v > mx[c] ? v : mx[c];
      }
    }
    kivi_groups(mn, mx, m, L, sh, zh, z, sd, exact);
    std::uint32_t b = 0;
    if constexpr (N == 16)
      for (; b + 16 <= m; b += 16)
        kivi_keys_block<BITS, vec::f32x16>(x + c0 + b, d, W, z + b, sd + b, words + b, kBatch);
    for (; b < m; b += 8)
      kivi_keys_block<BITS, vec::f32>(x + c0 + b, d, W, z + b, sd + b, words + b, kBatch);
    for (std::uint32_t c = 0; c < m; ++c) {
      std::uint8_t* rec = out + std::uint64_t{c0 + c} * P;
      if (!exact[c]) {
        kivi_record_by_ref(x + c0 + c, d, G, f, StreamRole::key, rec);
        continue;
      }
      for (std::uint32_t w = 0; w < W; ++w) std::memcpy(rec + 4 * w, &words[w * kBatch + c], 4);
      std::memcpy(rec + 4 * W, &sh[c], 2);
      std::memcpy(rec + 4 * W + 2, &zh[c], 2);
    }
  }
}

template <std::uint32_t BITS>
KVPLAN_INLINE void kivi_keys_decode(const std::uint8_t* in, std::uint32_t d, std::uint32_t G,
                                    float* x, KiviScratch& k) {
  constexpr std::uint32_t pw = 32 / BITS, mask = (1u << BITS) - 1u;
  const std::uint32_t W = G / pw, P = 4 * W + 4;
  for (std::uint32_t c = 0; c < d; ++c) {
    const std::uint8_t* rec = in + std::uint64_t{c} * P;
    for (std::uint32_t w = 0; w < W; ++w)
      std::memcpy(&k.words[std::uint64_t{w} * d + c], rec + 4 * w, 4);
    kivi_scale_zero(rec, W, k.s[c], k.z[c]);
  }
  const float* s = k.s.data();
  const float* z = k.z.data();
  for (std::uint32_t w = 0; w < W; ++w) {
    const std::uint32_t* wd = k.words.data() + std::uint64_t{w} * d;
    for (std::uint32_t kk = 0; kk < pw; ++kk) {
      float* row = x + std::uint64_t{w * pw + kk} * d;
      for (std::uint32_t c = 0; c < d; ++c)
        row[c] =
            static_cast<float>(static_cast<std::int32_t>((wd[c] >> (kk * BITS)) & mask)) * s[c] +
            z[c];
    }
  }
}

// Packed words of one value record (G contiguous floats, G a multiple of 16): codes sixteen at a
// time (one N = 16 vector or two N = 8 ones), packed as two eight-lane halves (lane shifts, then
// ORs across lanes).
template <std::uint32_t BITS, int N>
KVPLAN_INLINE void kivi_value_words(const float* g, std::uint32_t G, float z, float s,
                                    std::uint8_t* rec) {
  constexpr std::int32_t L = (1 << BITS) - 1;
  using F = std::conditional_t<N == 16, vec::f32x16, vec::f32>;
  const F zv = F{} + z, sv = F{} + s;
  vec::u32 lo, hi;  // codes i .. i+7 and i+8 .. i+15
  const auto codes = [&](std::uint32_t i) KVPLAN_LAMBDA_INLINE {
    if constexpr (N == 16) {
      const vec::u32x16 c = vec::kivi_codes(g + i, zv, sv, L);
      lo = __builtin_shufflevector(c, c, 0, 1, 2, 3, 4, 5, 6, 7);
      hi = __builtin_shufflevector(c, c, 8, 9, 10, 11, 12, 13, 14, 15);
    } else {
      lo = vec::kivi_codes(g + i, zv, sv, L);
      hi = vec::kivi_codes(g + i + 8, zv, sv, L);
    }
  };
  std::uint32_t i = 0;
  if constexpr (N == 16 && BITS != 8) {
    // AVX-512: neighbouring codes merged inside 64-bit lanes, then narrowed (vpmovqb/vpmovdb).
    for (; i < G; i += 16) {
      vec::u64x8 q = vec::as<vec::u64x8>(vec::kivi_codes(g + i, zv, sv, L));  // c[2k] | c[2k+1] << 32
      if constexpr (BITS == 4) {
        q |= q >> 28;  // low byte: c[2k] | c[2k+1] << 4
        const vec::u8 b = __builtin_convertvector(q, vec::u8);
        std::memcpy(rec + i / 2, &b, 8);
      } else {
        q |= q >> 30;  // low nibble: c[2k] | c[2k+1] << 2
        vec::u32x4 r = vec::as<vec::u32x4>(__builtin_convertvector(q, vec::u16x8));
        r |= r >> 12;  // low byte: four codes
        const vec::u8x4 b = __builtin_convertvector(r, vec::u8x4);
        std::memcpy(rec + i / 4, &b, 4);
      }
    }
  } else if constexpr (BITS == 2) {  // 16 codes per word: two words per reduction
    for (; i + 32 <= G; i += 32) {
      codes(i);
      const vec::u32 w0 = (lo << vec::kShift2Lo) | (hi << vec::kShift2Hi);
      codes(i + 16);
      std::uint32_t pair[2];
      vec::or_all2(w0, (lo << vec::kShift2Lo) | (hi << vec::kShift2Hi), pair);
      std::memcpy(rec + i / 4, pair, 8);
    }
    if (i < G) {
      codes(i);
      const std::uint32_t word = vec::or_all((lo << vec::kShift2Lo) | (hi << vec::kShift2Hi));
      std::memcpy(rec + i / 4, &word, 4);
    }
  } else if constexpr (BITS == 4) {  // 8 codes per word
    for (; i < G; i += 16) {
      codes(i);
      std::uint32_t pair[2];
      vec::or_all2(lo << vec::kShift4, hi << vec::kShift4, pair);
      std::memcpy(rec + i / 2, pair, 8);
    }
  } else {  // one byte per code, in order (little-endian words)
    for (; i < G; i += 16) {
      codes(i);
      const vec::u8 b0 = vec::low_bytes(lo), b1 = vec::low_bytes(hi);
      std::memcpy(rec + i, &b0, 8);
      std::memcpy(rec + i + 8, &b1, 8);
    }
  }
}

// Values: `count` records of G contiguous floats each (G a multiple of 16).
template <std::uint32_t BITS, int N>
KVPLAN_INLINE void kivi_values_encode(const float* x, std::uint64_t count, const KvFormat& f,
                                      std::uint8_t* out) {
  const std::uint32_t G = f.group;
  constexpr float L = static_cast<float>((1u << BITS) - 1u);
  constexpr std::uint32_t kBatch = 64;
  const std::uint32_t W = G * BITS / 32, P = 4 * W + 4;
  alignas(32) float mn[kBatch], mx[kBatch], z[kBatch], sd[kBatch];
  alignas(32) std::uint16_t sh[kBatch], zh[kBatch];
  alignas(32) std::uint8_t exact[kBatch];
  for (std::uint64_t r0 = 0; r0 < count; r0 += kBatch) {
    const std::uint32_t m = static_cast<std::uint32_t>(std::min<std::uint64_t>(kBatch, count - r0));
    for (std::uint32_t b = 0; b < m; ++b) group_minmax<N>(x + (r0 + b) * G, G, mn[b], mx[b]);
    kivi_groups(mn, mx, m, L, sh, zh, z, sd, exact);
    for (std::uint32_t b = 0; b < m; ++b) {
      const float* g = x + (r0 + b) * G;
      std::uint8_t* rec = out + (r0 + b) * P;
      if (!exact[b]) {
        kivi_record_by_ref(g, 1, G, f, StreamRole::value, rec);
        continue;
      }
      kivi_value_words<BITS, N>(g, G, z[b], sd[b], rec);
      std::memcpy(rec + 4 * W, &sh[b], 2);
      std::memcpy(rec + 4 * W + 2, &zh[b], 2);
    }
  }
}

// Values back: code · scale + zero, 8 or 16 codes per step (G a multiple of 16).
template <std::uint32_t BITS>
KVPLAN_INLINE void kivi_values_decode(const std::uint8_t* in, std::uint64_t count, std::uint32_t G,
                                      float* x) {
  const std::uint32_t W = G * BITS / 32, P = 4 * W + 4;
  for (std::uint64_t r = 0; r < count; ++r) {
    const std::uint8_t* rec = in + r * P;
    float s, z;
    kivi_scale_zero(rec, W, s, z);
    float* o = x + r * G;
    const auto put = [&](float* dst, const vec::u32& c) KVPLAN_LAMBDA_INLINE {
      vec::store(dst, __builtin_convertvector(vec::as<vec::i32>(c), vec::f32) * s + z);
    };
    if constexpr (BITS == 8) {  // one byte per code: left to the auto-vectorizer
      for (std::uint32_t i = 0; i < G; ++i)
        o[i] = static_cast<float>(static_cast<std::int32_t>(rec[i])) * s + z;
    } else {
      for (std::uint32_t w = 0; w < W; ++w) {
        std::uint32_t word;
        std::memcpy(&word, rec + 4 * w, 4);
        const vec::u32 wv = vec::u32{} + word;
        if constexpr (BITS == 4) {
          put(o + 8 * w, (wv >> vec::kShift4) & 15u);
        } else {
          put(o + 16 * w, (wv >> vec::kShift2Lo) & 3u);
          put(o + 16 * w + 8, (wv >> vec::kShift2Hi) & 3u);
        }
      }
    }
  }
}

// The vector KIVI paths need whole words per group (G·bits a multiple of 32), G <= 256, and
// whole steps: d a multiple of 8 (keys, lanes = channels) or G a multiple of 16 (values, lanes =
// a record's values). Other shapes take the per-record kivi_encode_fast / kivi_decode_record.
bool kivi_vector_ok(const KvFormat& f, StreamRole role, std::uint32_t d) {
  return f.group <= 256 && (f.group * f.bits) % 32 == 0 &&
         (role == StreamRole::key ? d % 8 == 0 : f.group % 16 == 0);
}

// Sixteen-lane KIVI encoding where the running clone is the x86-64-v4 one (one AVX-512 register
// per step: 1.7x the eight-lane throughput there); eight lanes elsewhere, since GCC lowers 64-byte
// vectors to element-wise code on AVX2 and SSE2 (6x slower than eight lanes).
bool wide_lanes() {
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

KVPLAN_CPU_CLONES Status quantize_body(const QuantizeParams& p);
KVPLAN_CPU_CLONES Status dequantize_body(const QuantizeParams& p);

}  // namespace

// Exposed for the bit-exactness test of the fast fp8 encoder (the one quantize_cpu uses).
std::uint8_t fp8_encode_cpu(float x, Fp8Kind k) {
  return k == Fp8Kind::e4m3 ? fp8_enc<Fp8Kind::e4m3>(x) : fp8_enc<Fp8Kind::e5m2>(x);
}

Status quantize_cpu(const QuantizeParams& p) {
  if (Status s = validate(p, false); !s.ok()) return s;
  return quantize_body(p);
}

namespace {
KVPLAN_CPU_CLONES Status quantize_body(const QuantizeParams& p) {
  const std::uint32_t d = p.width;
  const std::uint64_t n = std::uint64_t{p.tokens} * d;
  const KvFormat& f = p.format;
  switch (f.dtype) {
    case KvDtype::fp32:
      std::memcpy(p.out, p.in, n * 4);
      break;
    case KvDtype::fp16:
    case KvDtype::bf16: {
      alignas(16) std::uint16_t buf[kChunk];
      const bool half = f.dtype == KvDtype::fp16;
#ifdef KVPLAN_HAVE_F16C_PATH
      if (half && have_f16c()) {
        half_enc_f16c(p.in, p.out, n);
        break;
      }
#endif
      for (std::uint64_t i0 = 0; i0 < n; i0 += kChunk) {
        const std::uint32_t m = static_cast<std::uint32_t>(std::min<std::uint64_t>(kChunk, n - i0));
        const float* in = p.in + i0;
        if (half)
          for (std::uint32_t i = 0; i < m; ++i) buf[i] = half_enc(in[i]);
        else
          for (std::uint32_t i = 0; i < m; ++i) buf[i] = bf16_enc(in[i]);
        std::memcpy(p.out + 2 * i0, buf, 2 * std::uint64_t{m});
      }
      break;
    }
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
    case KvDtype::int8: {
      const auto rows = [&](auto lanes) KVPLAN_LAMBDA_INLINE {
        for (std::uint32_t t = 0; t < p.tokens; ++t)
          int8_encode_vec<lanes()>(p.in + std::uint64_t{t} * d, d,
                                   p.out + std::uint64_t{t} * (d + 4));
      };
      dispatch_lanes(rows);
      break;
    }
    case KvDtype::kivi: {
      const std::uint32_t G = f.group, P = kivi_record_bytes(G, f.bits);
      if (G > 256) return quantize_ref(p);
      if (!kivi_vector_ok(f, p.role, d)) {
        if (p.role == StreamRole::key) {
          for (std::uint32_t g = 0; g < p.tokens / G; ++g)
            for (std::uint32_t c = 0; c < d; ++c)
              kivi_encode_fast(p.in + std::uint64_t{g} * G * d + c, d, f, StreamRole::key,
                               p.out + (std::uint64_t{g} * d + c) * P);
        } else {
          for (std::uint32_t t = 0; t < p.tokens; ++t)
            for (std::uint32_t j = 0; j < d / G; ++j)
              kivi_encode_fast(p.in + std::uint64_t{t} * d + j * G, 1, f, StreamRole::value,
                               p.out + (std::uint64_t{t} * (d / G) + j) * P);
        }
        break;
      }
      const auto encode = [&](auto b, auto lanes) KVPLAN_LAMBDA_INLINE {
        if (p.role == StreamRole::key) {
          for (std::uint32_t g = 0; g < p.tokens / G; ++g)
            kivi_keys_encode<b(), lanes()>(p.in + std::uint64_t{g} * G * d, d, f,
                                           p.out + std::uint64_t{g} * d * P);
        } else {
          kivi_values_encode<b(), lanes()>(p.in, n / G, f, p.out);
        }
      };
      dispatch_bits(f.bits, [&](auto b) KVPLAN_LAMBDA_INLINE {
        dispatch_lanes([&](auto lanes) KVPLAN_LAMBDA_INLINE { encode(b, lanes); });
      });
      break;
    }
  }
  return Status::Ok();
}

}  // namespace

Status dequantize_cpu(const QuantizeParams& p) {
  if (Status s = validate(p, true); !s.ok()) return s;
  return dequantize_body(p);
}

namespace {
KVPLAN_CPU_CLONES Status dequantize_body(const QuantizeParams& p) {
  const std::uint32_t d = p.width;
  const std::uint64_t n = std::uint64_t{p.tokens} * d;
  const KvFormat& f = p.format;
  switch (f.dtype) {
    case KvDtype::fp32:
      std::memcpy(p.dequant, p.codes, n * 4);
      break;
    case KvDtype::fp16:
    case KvDtype::bf16: {
      alignas(16) std::uint16_t buf[kChunk];
      const bool half = f.dtype == KvDtype::fp16;
      for (std::uint64_t i0 = 0; i0 < n; i0 += kChunk) {
        const std::uint32_t m = static_cast<std::uint32_t>(std::min<std::uint64_t>(kChunk, n - i0));
        std::memcpy(buf, p.codes + 2 * i0, 2 * std::uint64_t{m});
        float* out = p.dequant + i0;
        if (half)
          for (std::uint32_t i = 0; i < m; ++i) out[i] = half_dec(buf[i]);
        else
          for (std::uint32_t i = 0; i < m; ++i) out[i] = bf16_to_float(buf[i]);
      }
      break;
    }
    case KvDtype::fp8_e4m3:
      fp8_dequantize<Fp8Kind::e4m3>(p.codes, p.dequant, n, p.fp8_scale);
      break;
    case KvDtype::fp8_e5m2:
      fp8_dequantize<Fp8Kind::e5m2>(p.codes, p.dequant, n, p.fp8_scale);
      break;
    case KvDtype::int8:
      for (std::uint32_t t = 0; t < p.tokens; ++t) {
        const std::uint8_t* rec = p.codes + std::uint64_t{t} * (d + 4);
        const float s = int8_record_scale(rec, d);
        float* out = p.dequant + std::uint64_t{t} * d;
        for (std::uint32_t c = 0; c < d; ++c)
          out[c] = static_cast<float>(static_cast<std::int8_t>(rec[c])) * s;
      }
      break;
    case KvDtype::kivi: {
      const std::uint32_t G = f.group, P = kivi_record_bytes(G, f.bits);
      if (!kivi_vector_ok(f, p.role, d)) {
        if (p.role == StreamRole::key) {
          for (std::uint32_t g = 0; g < p.tokens / G; ++g)
            for (std::uint32_t c = 0; c < d; ++c)
              kivi_decode_record(p.codes + (std::uint64_t{g} * d + c) * P, G, f.bits,
                               p.dequant + std::uint64_t{g} * G * d + c, d);
        } else {
          for (std::uint32_t t = 0; t < p.tokens; ++t)
            for (std::uint32_t j = 0; j < d / G; ++j)
              kivi_decode_record(p.codes + (std::uint64_t{t} * (d / G) + j) * P, G, f.bits,
                               p.dequant + std::uint64_t{t} * d + j * G, 1);
        }
        break;
      }
      if (p.role == StreamRole::key) {
        KiviScratch k(d, kivi_words(G, f.bits));
        dispatch_bits(f.bits, [&](auto b) KVPLAN_LAMBDA_INLINE {
          for (std::uint32_t g = 0; g < p.tokens / G; ++g)
            kivi_keys_decode<b()>(p.codes + std::uint64_t{g} * d * P, d, G,
                                  p.dequant + std::uint64_t{g} * G * d, k);
        });
      } else {
        dispatch_bits(f.bits, [&](auto b) KVPLAN_LAMBDA_INLINE {
          kivi_values_decode<b()>(p.codes, n / G, G, p.dequant);
        });
      }
      break;
    }
  }
  return Status::Ok();
}
}  // namespace

}  // namespace kvplan::kernels
