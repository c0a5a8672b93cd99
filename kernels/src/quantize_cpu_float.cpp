// Fast CPU quantize / dequantize of the float formats: fp32 (a copy), fp16 (branch-free, or F16C
// where the CPU has it) and bf16. quantize_fast.hpp says how they match the spec.
#include <algorithm>
#include <cstring>

#include "quantize_fast.hpp"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#include <immintrin.h>
#endif

namespace kvplan::kernels::quantize_fast {
namespace {

constexpr std::uint32_t kChunk = 512;  // elements per local buffer (stays in L1)

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

}  // namespace

KVPLAN_CPU_CLONES Status quantize_float(const QuantizeParams& p) {
  const std::uint32_t d = p.width;
  [[maybe_unused]] const std::uint64_t n = std::uint64_t{p.tokens} * d;
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
    default:
      return Status::Invalid("quantize_float: not a float format");
  }
  return Status::Ok();
}

KVPLAN_CPU_CLONES Status dequantize_float(const QuantizeParams& p) {
  const std::uint32_t d = p.width;
  [[maybe_unused]] const std::uint64_t n = std::uint64_t{p.tokens} * d;
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
    default:
      return Status::Invalid("dequantize_float: not a float format");
  }
  return Status::Ok();
}

}  // namespace kvplan::kernels::quantize_fast
