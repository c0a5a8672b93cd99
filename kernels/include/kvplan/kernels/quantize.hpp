// Quantization of KV rows into the cache's storage formats, and back.
//
// One family, one parameter struct: QuantizeParams describes `tokens` rows of `width` floats of
// one stream (one layer, one KV head, K or V) and the encoded bytes for them, unpaged. The block
// pool (paged_kv.hpp) stores exactly the same records, only scattered over blocks.
//
// Encoded layouts (all little-endian; "record" = the unit the pool stores per slot):
//   fp32 / fp16 / bf16 / fp8:  [tokens, width] elements. fp8 holds fp8_encode(x / scale)
//       (a NaN is encoded unscaled, so its sign survives on every backend).
//   int8 (per token, per head): [tokens] records of (width int8 codes, then one fp32 scale):
//       scale = absmax / 127, code = clamp(rint(x / scale), -127, 127); absmax 0 -> scale 0,
//       codes 0. Record bytes: width + 4.
//   kivi (bits b in {2,4,8}, group G): one record per group = W = ceil(G·b/32) uint32 words of
//       codes, then fp16 scale, then fp16 zero-point: P = 4W + 4 bytes.
//       scale = (max - min) / (2^b - 1), zero = min, both stored fp16 (RNE, saturating); codes are
//       computed against the *stored* values: code = clamp(rint((x - zero_h) / scale_h), 0,
//       2^b - 1); scale_h == 0 (max == min, or below fp16 range) -> every code 0, x^ = zero_h.
//       Packing: value j of the group sits in word (j·b)/32 at bit (j·b) mod 32 — the first value
//       in the lowest bits.
//       keys (per channel): tokens must be a multiple of G; layout [tokens/G, width] records,
//         record (g, c) covers tokens g·G .. g·G+G-1 of channel c.
//       values (per token): width must be a multiple of G; layout [tokens, width/G] records,
//         record (t, j) covers channels j·G .. j·G+G-1 of token t.
//     The fp16 residual window of KIVI is a cache concept (paged_kv.hpp), not a quantize output.
//
// Example: int8 row {1, -2, 0.5} -> scale 2/127, codes {64, -127, 32} (rint(63.5) = 64, RNE).
//
//   QuantizeParams p{.format = fmt, .role = StreamRole::key, .tokens = 32, .width = 128,
//                    .in = x.data(), .out = bytes.data()};
//   bytes.size() == quantized_bytes(fmt, StreamRole::key, 128, 32);
//   Status s = quantize(p, Backend::cpu);   // dequantize(p, ...) reads p.out, writes p.in_out
#pragma once

#include <cstddef>
#include <cstdint>

#include "kvplan/kernels/common.hpp"
#include "kvplan/kv_format.hpp"

namespace kvplan::kernels {

struct QuantizeParams {
  KvFormat format{};
  StreamRole role = StreamRole::key;
  std::uint32_t tokens = 0;             // rows
  std::uint32_t width = 0;              // elements per row (head_dim)
  float fp8_scale = 1.0f;               // fp8 only: per-tensor scale (vLLM k_scale / v_scale)
  const float* in = nullptr;            // quantize: [tokens, width]
  std::uint8_t* out = nullptr;          // quantize: encoded bytes, layout above
  const std::uint8_t* codes = nullptr;  // dequantize: encoded bytes
  float* dequant = nullptr;             // dequantize: [tokens, width]
};

// Every problem with the parameters (group not dividing width for kivi values, key tokens not a
// multiple of group, bits not in {2,4,8}, residual not a multiple of group, null pointers,
// fp8 scale not finite and positive).
Status validate(const QuantizeParams& p, bool dequantize);

// Bytes quantize() writes for `tokens` rows (no residual window).
std::uint64_t quantized_bytes(const KvFormat& f, StreamRole role, std::uint32_t width,
                              std::uint64_t tokens);

// Bytes the cache holds for one stream of `tokens` tokens, unpaged, KIVI residual included:
// equals kvplan::stream_bytes(f, role, width, tokens, 1) (tests/kernels hold this).
std::uint64_t bytes_for(const KvFormat& f, StreamRole role, std::uint32_t width,
                        std::uint64_t tokens);

Status quantize_ref(const QuantizeParams& p);
Status dequantize_ref(const QuantizeParams& p);
Status quantize_cpu(const QuantizeParams& p);    // faster path, bit-identical output
Status dequantize_cpu(const QuantizeParams& p);  // faster path, bit-identical output
Status quantize(const QuantizeParams& p, Backend b = Backend::cpu);
Status dequantize(const QuantizeParams& p, Backend b = Backend::cpu);

// The fast path's fp8 encoder (float bit manipulation); equal to fp8_encode for every input.
std::uint8_t fp8_encode_cpu(float x, Fp8Kind kind);

// Per-tensor fp8 scale calibrated from the data: absmax / max_finite (1.0 when absmax is 0).
float fp8_calibrated_scale(const float* x, std::size_t n, Fp8Kind kind);

// ---- Record-level helpers shared by quantize, the block pool and attention (host/device) ----

KVPLAN_HOST_DEVICE std::uint32_t int8_record_bytes(std::uint32_t width) { return width + 4; }
KVPLAN_HOST_DEVICE std::uint32_t kivi_words(std::uint32_t group, std::uint32_t bits) {
  return (group * bits + 31) / 32;
}
KVPLAN_HOST_DEVICE std::uint32_t kivi_record_bytes(std::uint32_t group, std::uint32_t bits) {
  return 4 * kivi_words(group, bits) + 4;
}
// Bytes of one plain element (fp32 4, fp16/bf16 2, fp8 1); 0 for int8 and kivi.
KVPLAN_HOST_DEVICE std::uint32_t plain_element_bytes(KvDtype d) {
  switch (d) {
    case KvDtype::fp32:
      return 4;
    case KvDtype::fp16:
    case KvDtype::bf16:
      return 2;
    case KvDtype::fp8_e4m3:
    case KvDtype::fp8_e5m2:
      return 1;
    default:
      return 0;
  }
}

// Encodes one plain element / decodes it (fp8 with per-tensor scale).
KVPLAN_HOST_DEVICE void plain_encode(KvDtype d, float x, float fp8_scale, std::uint8_t* dst) {
  switch (d) {
    case KvDtype::fp32:
      std::memcpy(dst, &x, 4);
      break;
    case KvDtype::fp16: {
      const std::uint16_t h = float_to_half(x);
      std::memcpy(dst, &h, 2);
      break;
    }
    case KvDtype::bf16: {
      const std::uint16_t h = float_to_bf16(x);
      std::memcpy(dst, &h, 2);
      break;
    }
    // A NaN is encoded unscaled: dividing it gives back a NaN whose sign the GPU does not keep
    // (it returns the canonical positive NaN), so -NaN would encode as 0x7F there and 0xFF here.
    case KvDtype::fp8_e4m3:
      *dst = fp8_encode(x != x ? x : x / fp8_scale, Fp8Kind::e4m3);
      break;
    case KvDtype::fp8_e5m2:
      *dst = fp8_encode(x != x ? x : x / fp8_scale, Fp8Kind::e5m2);
      break;
    default:
      break;
  }
}
KVPLAN_HOST_DEVICE float plain_decode(KvDtype d, const std::uint8_t* src, float fp8_scale) {
  switch (d) {
    case KvDtype::fp32: {
      float x;
      std::memcpy(&x, src, 4);
      return x;
    }
    case KvDtype::fp16: {
      std::uint16_t h;
      std::memcpy(&h, src, 2);
      return half_to_float(h);
    }
    case KvDtype::bf16: {
      std::uint16_t h;
      std::memcpy(&h, src, 2);
      return bf16_to_float(h);
    }
    case KvDtype::fp8_e4m3:
      return fp8_decode(*src, Fp8Kind::e4m3) * fp8_scale;
    case KvDtype::fp8_e5m2:
      return fp8_decode(*src, Fp8Kind::e5m2) * fp8_scale;
    default:
      return 0.f;
  }
}

// int8 record: `width` values read with stride `stride` floats.
KVPLAN_HOST_DEVICE void int8_encode_record(const float* x, std::uint32_t width, std::uint8_t* rec) {
  float amax = 0.f;
  for (std::uint32_t i = 0; i < width; ++i) amax = std::fmax(amax, std::fabs(x[i]));
  const float scale = amax / 127.f;
  for (std::uint32_t i = 0; i < width; ++i) {
    float q = scale > 0.f ? std::rint(x[i] / scale) : 0.f;
    q = std::fmin(127.f, std::fmax(-127.f, q));
    const std::int8_t c = static_cast<std::int8_t>(q);
    std::memcpy(rec + i, &c, 1);
  }
  std::memcpy(rec + width, &scale, 4);
}
// Four bytes of a record as a little-endian word. On the device an aligned address is one 32-bit
// load (a memcpy from a byte pointer compiles to four byte loads there); the value is the same.
KVPLAN_HOST_DEVICE std::uint32_t load_u32(const std::uint8_t* p) {
#if defined(__CUDA_ARCH__)
  if ((reinterpret_cast<std::uintptr_t>(p) & 3u) == 0)
    return *reinterpret_cast<const std::uint32_t*>(p);
#endif
  std::uint32_t w;
  std::memcpy(&w, p, 4);
  return w;
}
KVPLAN_HOST_DEVICE void store_u32(std::uint8_t* p, std::uint32_t w) {
#if defined(__CUDA_ARCH__)
  if ((reinterpret_cast<std::uintptr_t>(p) & 3u) == 0) {
    *reinterpret_cast<std::uint32_t*>(p) = w;
    return;
  }
#endif
  std::memcpy(p, &w, 4);
}
KVPLAN_HOST_DEVICE float int8_record_scale(const std::uint8_t* rec, std::uint32_t width) {
  return bits_float(load_u32(rec + width));
}
KVPLAN_HOST_DEVICE float int8_decode(const std::uint8_t* rec, std::uint32_t width,
                                     std::uint32_t i) {
  return static_cast<float>(static_cast<std::int8_t>(rec[i])) * int8_record_scale(rec, width);
}

// kivi record over G values x[j·stride], j < G.
KVPLAN_HOST_DEVICE void kivi_encode_record(const float* x, std::uint32_t stride,
                                           std::uint32_t group, std::uint32_t bits,
                                           std::uint8_t* rec) {
  float mn = x[0], mx = x[0];
  for (std::uint32_t j = 1; j < group; ++j) {
    mn = std::fmin(mn, x[j * stride]);
    mx = std::fmax(mx, x[j * stride]);
  }
  const float levels = static_cast<float>((1u << bits) - 1u);
  const std::uint16_t scale_h = float_to_half_sat((mx - mn) / levels);
  const std::uint16_t zero_h = float_to_half_sat(mn);
  const float scale = half_to_float(scale_h), zero = half_to_float(zero_h);
  const std::uint32_t words = kivi_words(group, bits);
  for (std::uint32_t w = 0; w < words; ++w) {
    std::uint32_t word = 0;
    const std::uint32_t per_word = 32 / bits;
    for (std::uint32_t k = 0; k < per_word; ++k) {
      const std::uint32_t j = w * per_word + k;
      if (j >= group) break;
      float q = scale > 0.f ? std::rint((x[j * stride] - zero) / scale) : 0.f;
      q = std::fmin(levels, std::fmax(0.f, q));
      word |= static_cast<std::uint32_t>(q) << (k * bits);
    }
    store_u32(rec + 4 * w, word);
  }
  store_u32(rec + 4 * words, static_cast<std::uint32_t>(scale_h) | (std::uint32_t{zero_h} << 16));
}
KVPLAN_HOST_DEVICE std::uint32_t kivi_code(const std::uint8_t* rec, std::uint32_t bits,
                                           std::uint32_t j) {
  const std::uint32_t per_word = 32 / bits;
  const std::uint32_t word = load_u32(rec + 4 * (j / per_word));
  return (word >> ((j % per_word) * bits)) & ((1u << bits) - 1u);
}
// Dequantized value j of a kivi record: code · scale_h + zero_h (float arithmetic).
KVPLAN_HOST_DEVICE float kivi_decode(const std::uint8_t* rec, std::uint32_t group,
                                     std::uint32_t bits, std::uint32_t j) {
  const std::uint32_t words = kivi_words(group, bits);
  const std::uint32_t sz = load_u32(rec + 4 * words);  // scale_h, then zero_h (little-endian)
  const auto sh = static_cast<std::uint16_t>(sz & 0xFFFFu),
             zh = static_cast<std::uint16_t>(sz >> 16);
  return static_cast<float>(kivi_code(rec, bits, j)) * half_to_float(sh) + half_to_float(zh);
}

}  // namespace kvplan::kernels
