// Faster CPU quantize / dequantize: the same arithmetic as the _ref spec, restructured so GCC
// auto-vectorizes it with baseline SSE2 (branch-free selects instead of branches, bit tricks
// instead of frexp/rint, chunks through small local buffers, whole KIVI group-rows at a time with
// packing by uniform shifts). Every division of the spec stays a division: x/s and x·(1/s) can
// differ by an ulp, which moves a code at a .5 tie. Bit-identical to the reference —
// tests/kernels compare the two byte for byte.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include "cpu_fast.hpp"
#include "kvplan/kernels/quantize.hpp"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#include <immintrin.h>
#endif

namespace kvplan::kernels {
namespace {
using namespace cpu_fast;

// rint() for |y| < 2^22 in the default rounding mode: adding 1.5·2^23 leaves no fraction bits.
inline float rne_small(float y) {
  const float magic = 12582912.f;  // 1.5 · 2^23 (needs IEEE arithmetic: no -ffast-math)
  return (y + magic) - magic;
}

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

// Decodes one kivi record into out[j · stride], j < G.
void kivi_decode_fast(const std::uint8_t* rec, std::uint32_t G, std::uint32_t bits, float* out,
                      std::uint32_t stride) {
  const std::uint32_t words = kivi_words(G, bits), per_word = 32 / bits, mask = (1u << bits) - 1u;
  std::uint16_t sh, zh;
  std::memcpy(&sh, rec + 4 * words, 2);
  std::memcpy(&zh, rec + 4 * words + 2, 2);
  const float s = half_to_float(sh), z = half_to_float(zh);
  for (std::uint32_t w = 0; w < words; ++w) {
    std::uint32_t word;
    std::memcpy(&word, rec + 4 * w, 4);
    const std::uint32_t end = std::min(per_word, G - w * per_word);
    for (std::uint32_t k = 0; k < end; ++k)
      out[(w * per_word + k) * stride] = static_cast<float>((word >> (k * bits)) & mask) * s + z;
  }
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

// fp8_encode without branches (the exhaustive test in test_conversions covers every float).
template <Fp8Kind K>
inline std::uint8_t fp8_enc(float x) {
  constexpr int M = K == Fp8Kind::e4m3 ? 3 : 2, bias = K == Fp8Kind::e4m3 ? 7 : 15;
  constexpr std::int32_t max_bits = K == Fp8Kind::e4m3 ? 0x43E00000 : 0x47600000;  // 448, 57344
  constexpr std::uint32_t max_code = K == Fp8Kind::e4m3 ? 0x7E : 0x7B;
  constexpr int min_exp = 1 - bias;
  constexpr std::uint32_t magic = static_cast<std::uint32_t>(min_exp - M + 23 + 127) << 23;
  const std::uint32_t b = float_bits(x);
  const std::uint32_t sign = (b >> 24) & 0x80u;
  const std::uint32_t uu = b & 0x7FFFFFFFu;
  const std::int32_t u = static_cast<std::int32_t>(uu);
  const std::uint32_t r = uu + (1u << (22 - M)) - 1u + ((uu >> (23 - M)) & 1u);
  std::uint32_t code = (r >> (23 - M)) - (static_cast<std::uint32_t>(127 - bias) << M);
  const std::uint32_t sub = float_bits(bits_float(uu) + bits_float(magic)) - magic;
  code = u < ((min_exp + 127) << 23) ? sub : code;
  code = u >= max_bits ? max_code : code;
  code = u > 0x7F800000 ? 0x7Fu : code;
  return static_cast<std::uint8_t>(code | sign);
}
// fp8_decode as a 256-entry table per kind, built once from the spec's own fp8_decode (so equal
// to it for every code by construction); dequantize pre-multiplies it by the scale per call
// (256 products fp8_decode(c) * scale, the spec's exact operation) and then only looks up.
template <Fp8Kind K>
const float* fp8_table() {
  static const std::array<float, 256> t = [] {
    std::array<float, 256> a{};
    for (std::uint32_t c = 0; c < 256; ++c) a[c] = fp8_decode(static_cast<std::uint8_t>(c), K);
    return a;
  }();
  return t.data();
}

template <Fp8Kind K>
KVPLAN_INLINE void fp8_quantize(const float* in, std::uint8_t* out, std::uint64_t n, float scale) {
  const bool unit = scale == 1.0f;  // x / 1 == x (a NaN stays a NaN of the same sign)
  for (std::uint64_t i = 0; i < n; ++i) out[i] = fp8_enc<K>(unit ? in[i] : in[i] / scale);
}
template <Fp8Kind K>
KVPLAN_INLINE void fp8_dequantize(const std::uint8_t* in, float* out, std::uint64_t n,
                                  float scale) {
  const float* t = fp8_table<K>();
  alignas(64) float lut[256];
  for (std::uint32_t c = 0; c < 256; ++c) lut[c] = t[c] * scale;
  for (std::uint64_t i = 0; i < n; ++i) out[i] = lut[in[i]];
}

KVPLAN_INLINE void int8_encode_vec(const float* x, std::uint32_t d, std::uint8_t* rec) {
  // absmax on the magnitude bits: integer order = float order for non-NaN; NaN ignored (fmax).
  std::int32_t amax = 0;
  for (std::uint32_t i = 0; i < d; ++i) {
    std::int32_t a = static_cast<std::int32_t>(float_bits(x[i]) & 0x7FFFFFFFu);
    a = a > 0x7F800000 ? 0 : a;
    amax = a > amax ? a : amax;
  }
  const float scale = bits_float(static_cast<std::uint32_t>(amax)) / 127.f;
  if (!(scale > 0.f)) {
    std::memset(rec, 0, d);
  } else {
    for (std::uint32_t i = 0; i < d; ++i) {
      float q = x[i] / scale;
      q = q > -127.f ? q : -127.f;  // NaN -> -127, as fmax(-127, NaN) in the spec
      q = q < 127.f ? q : 127.f;
      rec[i] = static_cast<std::uint8_t>(static_cast<std::int32_t>(rne_small(q)));
    }
  }
  std::memcpy(rec + d, &scale, 4);
}

// float_to_half_sat without branches (NaN -> 0x7E00 whatever its sign).
KVPLAN_INLINE std::uint16_t half_enc_sat(float f) {
  const float c = f > 65504.f ? 65504.f : (f < -65504.f ? -65504.f : f);
  return f != f ? std::uint16_t{0x7E00} : half_enc(c);
}
// Scale/zero of m groups from their min/max at once (vectorizes): stored scale/zero, the zero's
// float value, the divisor (1 where scale_h is not > 0), the code mask (0 there) and `exact`,
// false where the vector min/max may differ from the spec's fmin/fmax fold (a NaN first element,
// all NaN, or a ±0 extreme whose sign depends on the fold order): those groups are re-encoded by
// the spec's own kivi_encode_record.
KVPLAN_INLINE void kivi_groups(const float* mn, const float* mx, std::uint32_t m, float levels,
                               std::uint16_t* sh, std::uint16_t* zh, float* z, float* sd,
                               std::uint32_t* ok, std::uint8_t* exact) {
  for (std::uint32_t i = 0; i < m; ++i) {
    sh[i] = half_enc_sat((mx[i] - mn[i]) / levels);
    zh[i] = half_enc_sat(mn[i]);
  }
  for (std::uint32_t i = 0; i < m; ++i) {
    const float s = half_dec(sh[i]);
    z[i] = half_dec(zh[i]);
    sd[i] = s > 0.f ? s : 1.f;
    ok[i] = s > 0.f ? ~0u : 0u;
    exact[i] = mn[i] <= mx[i] && mn[i] != 0.f && mx[i] != 0.f;
  }
}

// Min and max of the non-NaN values of g[0..G) (+inf/-inf when all are NaN), 8 lanes at a time.
KVPLAN_INLINE void group_minmax(const float* g, std::uint32_t G, float& lo, float& hi) {
#if defined(__GNUC__)
  typedef float v8 __attribute__((vector_size(32)));
  v8 mn, mx;
  for (int l = 0; l < 8; ++l) {
    mn[l] = INFINITY;
    mx[l] = -INFINITY;
  }
  std::uint32_t j = 0;
  for (; j + 8 <= G; j += 8) {
    v8 v;
    std::memcpy(&v, g + j, sizeof v);
    mn = v < mn ? v : mn;
    mx = v > mx ? v : mx;
  }
  lo = mn[0];
  hi = mx[0];
  for (int l = 1; l < 8; ++l) {
    lo = mn[l] < lo ? mn[l] : lo;
    hi = mx[l] > hi ? mx[l] : hi;
  }
#else
  lo = INFINITY;
  hi = -INFINITY;
  std::uint32_t j = 0;
#endif
  for (; j < G; ++j) {
    lo = g[j] < lo ? g[j] : lo;
    hi = g[j] > hi ? g[j] : hi;
  }
}

struct KiviScratch {
  std::vector<float> mn, mx, s, z, sd;
  std::vector<std::uint32_t> ok, words;
  std::vector<std::uint16_t> sh, zh;
  std::vector<std::uint8_t> exact;
  explicit KiviScratch(std::uint32_t d, std::uint32_t W)
      : mn(d),
        mx(d),
        s(d),
        z(d),
        sd(d),
        ok(d),
        words(std::uint64_t{W} * d),
        sh(d),
        zh(d),
        exact(d) {}
};

// Keys: one group-row (G tokens × d channels, row stride d) -> d records, vectorized across
// channels: codes of token j land in word j/pw at bit (j%pw)·bits with one uniform shift.
template <std::uint32_t BITS>
KVPLAN_INLINE void kivi_keys_encode(const float* x, std::uint32_t d, const KvFormat& f,
                                    std::uint8_t* out, KiviScratch& k) {
  const std::uint32_t G = f.group;
  constexpr std::uint32_t pw = 32 / BITS;
  constexpr float L = static_cast<float>((1u << BITS) - 1u);
  const std::uint32_t W = G / pw, P = 4 * W + 4;
  float* mn = k.mn.data();
  float* mx = k.mx.data();
  for (std::uint32_t c = 0; c < d; ++c) {
    mn[c] = INFINITY;
    mx[c] = -INFINITY;
  }
  for (std::uint32_t j = 0; j < G; ++j) {
    const float* row = x + std::uint64_t{j} * d;
    for (std::uint32_t c = 0; c < d; ++c) {
      const float v = row[c];
      mn[c] = v < mn[c] ? v : mn[c];
      mx[c] = v > mx[c] ? v : mx[c];
    }
  }
  kivi_groups(mn, mx, d, L, k.sh.data(), k.zh.data(), k.z.data(), k.sd.data(), k.ok.data(),
              k.exact.data());
  const float* z = k.z.data();
  const float* sd = k.sd.data();
  const std::uint32_t* ok = k.ok.data();
  for (std::uint32_t w = 0; w < W; ++w) {
    std::uint32_t* wd = k.words.data() + std::uint64_t{w} * d;
    for (std::uint32_t c = 0; c < d; ++c) wd[c] = 0;
    for (std::uint32_t kk = 0; kk < pw; ++kk) {
      const float* row = x + std::uint64_t{w * pw + kk} * d;
      for (std::uint32_t c = 0; c < d; ++c)
        wd[c] |= (kivi_code_of((row[c] - z[c]) / sd[c], L) & ok[c]) << (kk * BITS);
    }
  }
  for (std::uint32_t c = 0; c < d; ++c) {
    std::uint8_t* rec = out + std::uint64_t{c} * P;
    if (!k.exact[c]) {
      kivi_record_by_ref(x + c, d, G, f, StreamRole::key, rec);
      continue;
    }
    for (std::uint32_t w = 0; w < W; ++w)
      std::memcpy(rec + 4 * w, &k.words[std::uint64_t{w} * d + c], 4);
    std::memcpy(rec + 4 * W, &k.sh[c], 2);
    std::memcpy(rec + 4 * W + 2, &k.zh[c], 2);
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
    std::uint16_t sh, zh;
    std::memcpy(&sh, rec + 4 * W, 2);
    std::memcpy(&zh, rec + 4 * W + 2, 2);
    k.s[c] = half_to_float(sh);
    k.z[c] = half_to_float(zh);
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

// Values: `count` records of G contiguous floats each.
template <std::uint32_t BITS>
KVPLAN_INLINE void kivi_values_encode(const float* x, std::uint64_t count, const KvFormat& f,
                                      std::uint8_t* out) {
  const std::uint32_t G = f.group;
  constexpr float L = static_cast<float>((1u << BITS) - 1u);
  constexpr std::uint32_t kBatch = 64;
  const std::uint32_t W = G * BITS / 32, P = 4 * W + 4;
  alignas(32) std::uint8_t codes[256];
  alignas(32) std::uint8_t packed[256];
  alignas(32) float mn[kBatch], mx[kBatch], z[kBatch], sd[kBatch];
  alignas(32) std::uint16_t sh[kBatch], zh[kBatch];
  alignas(32) std::uint32_t ok[kBatch];
  alignas(32) std::uint8_t exact[kBatch];
  for (std::uint64_t r0 = 0; r0 < count; r0 += kBatch) {
    const std::uint32_t m = static_cast<std::uint32_t>(std::min<std::uint64_t>(kBatch, count - r0));
    for (std::uint32_t b = 0; b < m; ++b) {
      const float* g = x + (r0 + b) * G;
      float lo, hi;
      group_minmax(g, G, lo, hi);
      mn[b] = lo;
      mx[b] = hi;
    }
    kivi_groups(mn, mx, m, L, sh, zh, z, sd, ok, exact);
    for (std::uint32_t b = 0; b < m; ++b) {
      const float* g = x + (r0 + b) * G;
      std::uint8_t* rec = out + (r0 + b) * P;
      if (!exact[b]) {
        kivi_record_by_ref(g, 1, G, f, StreamRole::value, rec);
        continue;
      }
      const float zb = z[b], sb = sd[b];
      const std::uint32_t okb = ok[b];
      for (std::uint32_t i = 0; i < G; ++i)
        codes[i] = static_cast<std::uint8_t>(kivi_code_of((g[i] - zb) / sb, L) & okb);
      pack_codes<BITS>(codes, G, packed);
      std::memcpy(rec, packed, 4 * W);
      std::memcpy(rec + 4 * W, &sh[b], 2);
      std::memcpy(rec + 4 * W + 2, &zh[b], 2);
    }
  }
}

template <std::uint32_t BITS>
KVPLAN_INLINE void kivi_values_decode(const std::uint8_t* in, std::uint64_t count, std::uint32_t G,
                                      float* x) {
  const std::uint32_t W = G * BITS / 32, P = 4 * W + 4;
  alignas(16) std::uint8_t codes[256];
  for (std::uint64_t r = 0; r < count; ++r) {
    const std::uint8_t* rec = in + r * P;
    std::uint16_t sh, zh;
    std::memcpy(&sh, rec + 4 * W, 2);
    std::memcpy(&zh, rec + 4 * W + 2, 2);
    const float s = half_to_float(sh), z = half_to_float(zh);
    unpack_codes<BITS>(rec, G, codes);
    float* o = x + r * G;
    for (std::uint32_t i = 0; i < G; ++i)
      o[i] = static_cast<float>(static_cast<std::int32_t>(codes[i])) * s + z;
  }
}

// The vectorized KIVI paths need whole words per group (G·bits a multiple of 32) and G <= 256.
bool kivi_vector_ok(const KvFormat& f) { return f.group <= 256 && (f.group * f.bits) % 32 == 0; }

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
      fp8_quantize<Fp8Kind::e4m3>(p.in, p.out, n, p.fp8_scale);
      break;
    case KvDtype::fp8_e5m2:
      fp8_quantize<Fp8Kind::e5m2>(p.in, p.out, n, p.fp8_scale);
      break;
    case KvDtype::int8:
      for (std::uint32_t t = 0; t < p.tokens; ++t)
        int8_encode_vec(p.in + std::uint64_t{t} * d, d, p.out + std::uint64_t{t} * (d + 4));
      break;
    case KvDtype::kivi: {
      const std::uint32_t G = f.group, P = kivi_record_bytes(G, f.bits);
      if (G > 256) return quantize_ref(p);
      if (!kivi_vector_ok(f)) {
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
      if (p.role == StreamRole::key) {
        KiviScratch k(d, kivi_words(G, f.bits));
        dispatch_bits(f.bits, [&](auto b) KVPLAN_LAMBDA_INLINE {
          for (std::uint32_t g = 0; g < p.tokens / G; ++g)
            kivi_keys_encode<b()>(p.in + std::uint64_t{g} * G * d, d, f,
                                  p.out + std::uint64_t{g} * d * P, k);
        });
      } else {
        dispatch_bits(f.bits, [&](auto b) KVPLAN_LAMBDA_INLINE {
          kivi_values_encode<b()>(p.in, n / G, f, p.out);
        });
      }
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
      if (!kivi_vector_ok(f)) {
        if (p.role == StreamRole::key) {
          for (std::uint32_t g = 0; g < p.tokens / G; ++g)
            for (std::uint32_t c = 0; c < d; ++c)
              kivi_decode_fast(p.codes + (std::uint64_t{g} * d + c) * P, G, f.bits,
                               p.dequant + std::uint64_t{g} * G * d + c, d);
        } else {
          for (std::uint32_t t = 0; t < p.tokens; ++t)
            for (std::uint32_t j = 0; j < d / G; ++j)
              kivi_decode_fast(p.codes + (std::uint64_t{t} * (d / G) + j) * P, G, f.bits,
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
