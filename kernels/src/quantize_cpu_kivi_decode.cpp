// Fast CPU dequantize of KIVI (keys per channel over G tokens, values per token over G channels):
// code · scale + zero, 8 or 16 codes per step, the per-record scalar path for other shapes.
// quantize_fast.hpp says how they match the spec.
#include <cstring>
#include <vector>

#include "quantize_fast.hpp"

namespace kvplan::kernels::quantize_fast {
namespace {

// Per-call scratch of the key decoder: scales, zeros and words of d channels.
struct KiviScratch {
  std::vector<float> s, z;
  std::vector<std::uint32_t> words;
  explicit KiviScratch(std::uint32_t d, std::uint32_t W)
      : s(d), z(d), words(std::uint64_t{W} * d) {}
};

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

}  // namespace

KVPLAN_CPU_CLONES Status dequantize_kivi(const QuantizeParams& p) {
  const std::uint32_t d = p.width;
  [[maybe_unused]] const std::uint64_t n = std::uint64_t{p.tokens} * d;
  const KvFormat& f = p.format;
  switch (f.dtype) {
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
    default:
      return Status::Invalid("dequantize_kivi: not a KIVI format");
  }
  return Status::Ok();
}

}  // namespace kvplan::kernels::quantize_fast
