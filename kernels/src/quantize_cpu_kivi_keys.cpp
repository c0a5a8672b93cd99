// Fast CPU quantize of KIVI keys (per channel over G tokens) in 8- or 16-lane vector code, words
// packed in registers. quantize_fast.hpp says how it matches the spec.
#include <cstring>

#include "quantize_fast.hpp"

namespace kvplan::kernels::quantize_fast {
namespace {

// Codes of 8 or 16 key channels (the lanes of F) over one group (G rows of stride d) into
// words[w·stride + lane], word w holding tokens w·pw .. w·pw + pw - 1: the code of token j lands
// at bit (j%pw)·bits with one uniform shift, the words stay in registers.
template <std::uint32_t BITS, class F>
KVPLAN_INLINE void kivi_keys_block(const float* x, std::uint32_t d, std::uint32_t W, const float* z,
                                   const float* s, std::uint32_t* words, std::uint32_t stride) {
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

}  // namespace

KVPLAN_CPU_CLONES Status quantize_kivi_keys_vec(const QuantizeParams& p) {
  const std::uint32_t d = p.width, G = p.format.group, P = kivi_record_bytes(G, p.format.bits);
  const KvFormat& f = p.format;
  dispatch_bits(f.bits, [&](auto b) KVPLAN_LAMBDA_INLINE {
    dispatch_lanes([&](auto lanes) KVPLAN_LAMBDA_INLINE {
      for (std::uint32_t g = 0; g < p.tokens / G; ++g)
        kivi_keys_encode<b(), lanes()>(p.in + std::uint64_t{g} * G * d, d, f,
                                       p.out + std::uint64_t{g} * d * P);
    });
  });
  return Status::Ok();
}

}  // namespace kvplan::kernels::quantize_fast
