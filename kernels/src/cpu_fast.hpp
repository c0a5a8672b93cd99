// Internal to kernels/src: the pieces the fast CPU paths (quantize_cpu.cpp, attention_cpu.cpp)
// share — the multiversioning/inlining macros, branch-free fp16 decode and KIVI code
// unpacking by uniform shifts (vectorizable with baseline SSE2). Bit-exact with the spec helpers.
#pragma once

#include <cstdint>
#include <cstring>

#include "kvplan/kernels/common.hpp"

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

}  // namespace kvplan::kernels::cpu_fast
