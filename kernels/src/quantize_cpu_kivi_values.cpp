// Fast CPU quantize of KIVI values (per token over G channels) in 8- or 16-lane vector code, words
// packed in registers. quantize_fast.hpp says how it matches the spec.
#include <cstring>

#include "quantize_fast.hpp"

namespace kvplan::kernels::quantize_fast {
namespace {

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
      vec::u64x8 q =
          vec::as<vec::u64x8>(vec::kivi_codes(g + i, zv, sv, L));  // c[2k] | c[2k+1] << 32
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

}  // namespace

KVPLAN_CPU_CLONES Status quantize_kivi_values_vec(const QuantizeParams& p) {
  const std::uint32_t d = p.width, G = p.format.group, P = kivi_record_bytes(G, p.format.bits);
  const KvFormat& f = p.format;
  dispatch_bits(f.bits, [&](auto b) KVPLAN_LAMBDA_INLINE {
    dispatch_lanes([&](auto lanes) KVPLAN_LAMBDA_INLINE {
      (void)P;
      kivi_values_encode<b(), lanes()>(p.in, std::uint64_t{p.tokens} * d / G, f, p.out);
    });
  });
  return Status::Ok();
}

}  // namespace kvplan::kernels::quantize_fast
