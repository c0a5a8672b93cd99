// Faster CPU quantize / dequantize: the same arithmetic as the _ref spec, restructured (bit
// tricks instead of frexp/rint library calls, lookup tables for fp8 decode, whole records at a
// time) so it is bit-identical to the reference — tests/kernels compare the two byte for byte.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "kvplan/kernels/quantize.hpp"

namespace kvplan::kernels {
namespace {

// rint() for |y| < 2^22 in the default rounding mode: adding 1.5·2^23 leaves no fraction bits.
inline float rne_small(float y) {
  const float magic = 12582912.f;  // 1.5 · 2^23 (needs IEEE arithmetic: no -ffast-math)
  return (y + magic) - magic;
}

// fp8 encode with float bit manipulation; equal to fp8_encode for every input (tested).
inline std::uint8_t fp8_encode_fast(float x, Fp8Kind k) {
  const Fp8Traits t = fp8_traits(k);
  std::uint32_t u = float_bits(x);
  const std::uint8_t sign = static_cast<std::uint8_t>((u >> 24) & 0x80u);
  u &= 0x7FFFFFFFu;
  if (u > 0x7F800000u) return static_cast<std::uint8_t>(sign | 0x7F);
  if (u >= float_bits(t.max_finite)) return static_cast<std::uint8_t>(sign | t.max_code);
  const int M = t.mant_bits, min_exp = 1 - t.bias;
  if (u < static_cast<std::uint32_t>(min_exp + 127)
              << 23) {  // fp8 subnormal: FPU rounds at quantum
    const std::uint32_t magic = static_cast<std::uint32_t>(min_exp - M + 23 + 127) << 23;
    return static_cast<std::uint8_t>(sign |
                                     (float_bits(bits_float(u) + bits_float(magic)) - magic));
  }
  u += (1u << (22 - M)) - 1u + ((u >> (23 - M)) & 1u);
  std::uint32_t code = (u >> (23 - M)) - (static_cast<std::uint32_t>(127 - t.bias) << M);
  if (code > t.max_code) code = t.max_code;
  return static_cast<std::uint8_t>(sign | code);
}

const std::array<float, 256>& fp8_table(Fp8Kind k) {
  static const auto make = [](Fp8Kind kind) {
    std::array<float, 256> a{};
    for (int c = 0; c < 256; ++c) a[c] = fp8_decode(static_cast<std::uint8_t>(c), kind);
    return a;
  };
  static const std::array<float, 256> e4 = make(Fp8Kind::e4m3), e5 = make(Fp8Kind::e5m2);
  return k == Fp8Kind::e4m3 ? e4 : e5;
}

void int8_encode_fast(const float* x, std::uint32_t d, std::uint8_t* rec) {
  float amax = 0.f;
  for (std::uint32_t i = 0; i < d; ++i) {
    const float a = std::fabs(x[i]);
    amax = a > amax ? a : amax;
  }
  const float scale = amax / 127.f;
  if (!(scale > 0.f)) {
    std::memset(rec, 0, d);
  } else {
    for (std::uint32_t i = 0; i < d; ++i) {
      float q = rne_small(x[i] / scale);
      q = q > 127.f ? 127.f : (q < -127.f ? -127.f : q);
      rec[i] = static_cast<std::uint8_t>(static_cast<std::int8_t>(q));
    }
  }
  std::memcpy(rec + d, &scale, 4);
}

void kivi_encode_fast(const float* x, std::uint32_t stride, std::uint32_t G, std::uint32_t bits,
                      std::uint8_t* rec) {
  float mn = x[0], mx = x[0];
  for (std::uint32_t j = 1; j < G; ++j) {
    const float v = x[j * stride];
    mn = std::fmin(mn, v);
    mx = std::fmax(mx, v);
  }
  const float levels = static_cast<float>((1u << bits) - 1u);
  const std::uint16_t sh = float_to_half_sat((mx - mn) / levels), zh = float_to_half_sat(mn);
  const float s = half_to_float(sh), z = half_to_float(zh);
  const std::uint32_t words = kivi_words(G, bits), per_word = 32 / bits;
  std::uint32_t codes[256];
  for (std::uint32_t j = 0; j < G; ++j) {
    float q = 0.f;
    if (s > 0.f) {
      float y = (x[j * stride] - z) / s;
      y = y < -1.f ? -1.f : (y > levels + 1.f ? levels + 1.f : y);  // rint is monotone
      q = rne_small(y);
      q = q < 0.f ? 0.f : (q > levels ? levels : q);
    }
    codes[j] = static_cast<std::uint32_t>(q);
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

// Exposed for the bit-exactness test of the fast fp8 encoder.
std::uint8_t fp8_encode_cpu(float x, Fp8Kind k) { return fp8_encode_fast(x, k); }

Status quantize_cpu(const QuantizeParams& p) {
  if (Status s = validate(p, false); !s.ok()) return s;
  const std::uint32_t d = p.width;
  const std::uint64_t n = std::uint64_t{p.tokens} * d;
  const KvFormat& f = p.format;
  switch (f.dtype) {
    case KvDtype::fp32:
      std::memcpy(p.out, p.in, n * 4);
      break;
    case KvDtype::fp16:
      for (std::uint64_t i = 0; i < n; ++i) {
        const std::uint16_t h = float_to_half(p.in[i]);
        std::memcpy(p.out + 2 * i, &h, 2);
      }
      break;
    case KvDtype::bf16:
      for (std::uint64_t i = 0; i < n; ++i) {
        const std::uint16_t h = float_to_bf16(p.in[i]);
        std::memcpy(p.out + 2 * i, &h, 2);
      }
      break;
    case KvDtype::fp8_e4m3:
    case KvDtype::fp8_e5m2: {
      const Fp8Kind k = f.dtype == KvDtype::fp8_e4m3 ? Fp8Kind::e4m3 : Fp8Kind::e5m2;
      for (std::uint64_t i = 0; i < n; ++i) p.out[i] = fp8_encode_fast(p.in[i] / p.fp8_scale, k);
      break;
    }
    case KvDtype::int8:
      for (std::uint32_t t = 0; t < p.tokens; ++t)
        int8_encode_fast(p.in + std::uint64_t{t} * d, d, p.out + std::uint64_t{t} * (d + 4));
      break;
    case KvDtype::kivi: {
      const std::uint32_t G = f.group, P = kivi_record_bytes(G, f.bits);
      if (G > 256) return quantize_ref(p);
      if (p.role == StreamRole::key) {
        for (std::uint32_t g = 0; g < p.tokens / G; ++g)
          for (std::uint32_t c = 0; c < d; ++c)
            kivi_encode_fast(p.in + std::uint64_t{g} * G * d + c, d, G, f.bits,
                             p.out + (std::uint64_t{g} * d + c) * P);
      } else {
        for (std::uint32_t t = 0; t < p.tokens; ++t)
          for (std::uint32_t j = 0; j < d / G; ++j)
            kivi_encode_fast(p.in + std::uint64_t{t} * d + j * G, 1, G, f.bits,
                             p.out + (std::uint64_t{t} * (d / G) + j) * P);
      }
      break;
    }
  }
  return Status::Ok();
}

Status dequantize_cpu(const QuantizeParams& p) {
  if (Status s = validate(p, true); !s.ok()) return s;
  const std::uint32_t d = p.width;
  const std::uint64_t n = std::uint64_t{p.tokens} * d;
  const KvFormat& f = p.format;
  switch (f.dtype) {
    case KvDtype::fp32:
      std::memcpy(p.dequant, p.codes, n * 4);
      break;
    case KvDtype::fp16:
      for (std::uint64_t i = 0; i < n; ++i) {
        std::uint16_t h;
        std::memcpy(&h, p.codes + 2 * i, 2);
        p.dequant[i] = half_to_float(h);
      }
      break;
    case KvDtype::bf16:
      for (std::uint64_t i = 0; i < n; ++i) {
        std::uint16_t h;
        std::memcpy(&h, p.codes + 2 * i, 2);
        p.dequant[i] = bf16_to_float(h);
      }
      break;
    case KvDtype::fp8_e4m3:
    case KvDtype::fp8_e5m2: {
      const auto& table = fp8_table(f.dtype == KvDtype::fp8_e4m3 ? Fp8Kind::e4m3 : Fp8Kind::e5m2);
      for (std::uint64_t i = 0; i < n; ++i) p.dequant[i] = table[p.codes[i]] * p.fp8_scale;
      break;
    }
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
  }
  return Status::Ok();
}

}  // namespace kvplan::kernels
