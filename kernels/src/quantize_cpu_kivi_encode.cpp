// Fast CPU quantize of KIVI: the per-record scalar path, the record-by-reference fallback, and
// the switch to the vector encoders of keys (quantize_cpu_kivi_keys.cpp) and values
// (quantize_cpu_kivi_values.cpp). quantize_fast.hpp says how they match the spec.
#include <cmath>
#include <cstring>

#include "quantize_fast.hpp"

namespace kvplan::kernels::quantize_fast {

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

namespace {

// rint(clamp(y, -0.5, L)) as an int equals clamp(rint(y), 0, L) for every y, NaN -> 0 (as the
// spec's fmin/fmax): one clamp, then the 1.5·2^23 trick, then a truncating convert.
inline std::uint32_t kivi_code_of(float y, float levels) {
  y = y > -0.5f ? y : -0.5f;
  y = y < levels ? y : levels;
  return static_cast<std::uint32_t>(static_cast<std::int32_t>(rne_small(y)));
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

KVPLAN_CPU_CLONES Status quantize_kivi(const QuantizeParams& p) {
  const std::uint32_t d = p.width;
  const KvFormat& f = p.format;
  switch (f.dtype) {
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
      if (p.role == StreamRole::key) return quantize_kivi_keys_vec(p);
      return quantize_kivi_values_vec(p);
      break;
    }
    default:
      return Status::Invalid("quantize_kivi: not a KIVI format");
  }
  return Status::Ok();
}

}  // namespace kvplan::kernels::quantize_fast
