// Internal to kernels/src: the pieces the fast CPU paths (quantize_cpu.cpp, attention_cpu.cpp)
// share — the multiversioning/inlining macros, branch-free fp16 decode and KIVI record reading
// (scale/zero, codes unpacked by uniform shifts, vectorizable with baseline SSE2). Bit-exact with
// the spec helpers.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kvplan/kernels/common.hpp"
#include "kvplan/kernels/quantize.hpp"

namespace kvplan::kernels::cpu_fast {

// x86-64: a baseline (SSE2), an AVX2 and an x86-64-v4 (AVX-512) build of each whole-buffer loop
// nest, chosen at load time from CPUID (GCC function multiversioning), so the binary still runs on
// any x86-64 and is not tied to the build machine (no -march). Same IEEE operations in all three,
// no FMA contraction (-ffp-contract=off, kernels/CMakeLists.txt): bit-identical outputs. The v4
// build has twice the vector width and one-instruction narrowing (vpmovdb) for fp8/int8 codes.
// KVPLAN_CPU_ISA (kernels/CMakeLists.txt) can fix one of the three instead, for tests.
#if defined(KVPLAN_CPU_ISA_BASELINE)
#define KVPLAN_CPU_CLONES
#elif defined(KVPLAN_CPU_ISA_AVX2)
#define KVPLAN_CPU_CLONES __attribute__((target("avx2")))
#elif defined(KVPLAN_CPU_ISA_V4)
#define KVPLAN_CPU_CLONES __attribute__((target("arch=x86-64-v4")))
#elif defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define KVPLAN_CPU_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define KVPLAN_CPU_CLONES
#endif

// Loop nests are inlined into the multiversioned bodies below so each gets that body's ISA.
#if defined(__GNUC__)
#define KVPLAN_INLINE [[gnu::always_inline]] inline
#define KVPLAN_LAMBDA_INLINE __attribute__((always_inline))
#else
#define KVPLAN_INLINE inline
#define KVPLAN_LAMBDA_INLINE
#endif

// half_to_float without branches.
KVPLAN_INLINE float half_dec(std::uint16_t h) {
  const std::uint32_t hv = h;
  const std::uint32_t sign = (hv & 0x8000u) << 16;
  const std::uint32_t em = (hv & 0x7FFFu) << 13;
  const std::uint32_t fin = float_bits(bits_float(em) * 0x1p112f);
  const std::uint32_t r = (hv & 0x7C00u) == 0x7C00u ? (em | 0x7F800000u) : fin;
  return bits_float(r | sign);
}

// Packed bytes -> codes (one uint8 each), the inverse shift tree.
template <std::uint32_t BITS>
KVPLAN_INLINE void unpack_codes(const std::uint8_t* in, std::uint32_t n, std::uint8_t* codes) {
  if constexpr (BITS == 8) {
    std::memcpy(codes, in, n);
  } else {
    for (std::uint32_t i = 0; i < n / 4; ++i) {
      std::uint32_t u;
      if constexpr (BITS == 4) {
        std::uint16_t h;
        std::memcpy(&h, in + 2 * i, 2);
        const std::uint32_t t = (h | (std::uint32_t{h} << 8)) & 0x00FF00FFu;
        u = (t | (t << 4)) & 0x0F0F0F0Fu;
      } else {
        const std::uint32_t b = in[i];
        const std::uint32_t t = (b | (b << 12)) & 0x000F000Fu;
        u = (t | (t << 6)) & 0x03030303u;
      }
      std::memcpy(codes + 4 * i, &u, 4);
    }
  }
}

// A KIVI record's fp16 scale and zero-point (stored after its `words` code words), as floats.
KVPLAN_INLINE void kivi_scale_zero(const std::uint8_t* rec, std::uint32_t words, float& s,
                                   float& z) {
  std::uint16_t sh, zh;
  std::memcpy(&sh, rec + 4 * words, 2);
  std::memcpy(&zh, rec + 4 * words + 2, 2);
  s = half_dec(sh);
  z = half_dec(zh);
}

// A KIVI record's G codes as floats in cf[0..G) (G <= 256), with its scale and zero-point.
template <std::uint32_t BITS>
KVPLAN_INLINE void kivi_record_floats(const std::uint8_t* rec, std::uint32_t G, float* cf, float& s,
                                      float& z) {
  alignas(32) std::uint8_t cb[256];
  unpack_codes<BITS>(rec, G, cb);
  for (std::uint32_t j = 0; j < G; ++j) cf[j] = static_cast<float>(cb[j]);
  kivi_scale_zero(rec, G * BITS / 32, s, z);
}

// Decodes one KIVI record into out[j · stride], j < G: code · scale + zero, as kivi_decode; any
// group and bit width (words need not be whole).
inline void kivi_decode_record(const std::uint8_t* rec, std::uint32_t G, std::uint32_t bits,
                               float* out, std::uint32_t stride) {
  const std::uint32_t words = kivi_words(G, bits), per_word = 32 / bits, mask = (1u << bits) - 1u;
  float s, z;
  kivi_scale_zero(rec, words, s, z);
  for (std::uint32_t w = 0; w < words; ++w) {
    std::uint32_t word;
    std::memcpy(&word, rec + 4 * w, 4);
    const std::uint32_t end = std::min(per_word, G - w * per_word);
    for (std::uint32_t k = 0; k < end; ++k)
      out[(w * per_word + k) * stride] = static_cast<float>((word >> (k * bits)) & mask) * s + z;
  }
}

}  // namespace kvplan::kernels::cpu_fast
