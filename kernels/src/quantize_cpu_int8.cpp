// Fast CPU quantize / dequantize of int8 (one absmax scale per record). quantize_fast.hpp says how
// they match the spec.
#include <cstring>

#include "quantize_fast.hpp"

namespace kvplan::kernels::quantize_fast {
namespace {

// int8 codes of x[0..d) with the spec's division per element (any d).
KVPLAN_INLINE void int8_codes(const float* x, std::uint32_t d, float scale, std::uint8_t* rec) {
  for (std::uint32_t i = 0; i < d; ++i) {
    float q = x[i] / scale;
    q = q > -127.f ? q : -127.f;  // NaN -> -127, as fmax(-127, NaN) in the spec
    q = q < 127.f ? q : 127.f;
    rec[i] = static_cast<std::uint8_t>(static_cast<std::int32_t>(rne_small(q)));
  }
}

KVPLAN_INLINE float int8_scale(const float* x, std::uint32_t d) {
  // absmax on the magnitude bits: integer order = float order for non-NaN; NaN ignored (fmax).
  std::int32_t amax = 0;
  for (std::uint32_t i = 0; i < d; ++i) {
    std::int32_t a = static_cast<std::int32_t>(float_bits(x[i]) & 0x7FFFFFFFu);
    a = a > 0x7F800000 ? 0 : a;
    amax = a > amax ? a : amax;
  }
  return bits_float(static_cast<std::uint32_t>(amax)) / 127.f;
}

// One int8 record: the scale, then the codes N = 16 or 8 at a time (as int8_codes: division,
// clamp to ±127 with NaN -> -127, rint) while whole steps remain, the rest by int8_codes.
template <int N>
KVPLAN_INLINE void int8_encode_vec(const float* x, std::uint32_t d, std::uint8_t* rec) {
  const float scale = int8_scale(x, d);
  std::memcpy(rec + d, &scale, 4);
  if (!(scale > 0.f)) {
    std::memset(rec, 0, d);
    return;
  }
  using F = std::conditional_t<N == 16, vec::f32x16, vec::f32>;
  using I = std::conditional_t<N == 16, vec::i32x16, vec::i32>;
  const F sv = F{} + scale;
  std::uint32_t i = 0;
  for (; i + N <= d; i += N) {
    F y = vec::load<F>(x + i) / sv;
    y = y > -127.f ? y : -127.f;
    y = y < 127.f ? y : 127.f;
    const I c = vec::as<I>(y + kRneMagic) - static_cast<std::int32_t>(kRneMagicBits);
    if constexpr (N == 16) {
      const vec::u8x16 b = __builtin_convertvector(c, vec::u8x16);
      std::memcpy(rec + i, &b, 16);
    } else {
      const vec::u8 b = vec::low_bytes(vec::as<vec::u32>(c));
      std::memcpy(rec + i, &b, 8);
    }
  }
  int8_codes(x + i, d - i, scale, rec + i);
}

}  // namespace

KVPLAN_CPU_CLONES Status quantize_int8(const QuantizeParams& p) {
  const std::uint32_t d = p.width;
  [[maybe_unused]] const std::uint64_t n = std::uint64_t{p.tokens} * d;
  const KvFormat& f = p.format;
  switch (f.dtype) {
    case KvDtype::int8: {
      const auto rows = [&](auto lanes) KVPLAN_LAMBDA_INLINE {
        for (std::uint32_t t = 0; t < p.tokens; ++t)
          int8_encode_vec<lanes()>(p.in + std::uint64_t{t} * d, d,
                                   p.out + std::uint64_t{t} * (d + 4));
      };
      dispatch_lanes(rows);
      break;
    }
    default:
      return Status::Invalid("quantize_int8: not a int8 format");
  }
  return Status::Ok();
}

KVPLAN_CPU_CLONES Status dequantize_int8(const QuantizeParams& p) {
  const std::uint32_t d = p.width;
  [[maybe_unused]] const std::uint64_t n = std::uint64_t{p.tokens} * d;
  const KvFormat& f = p.format;
  switch (f.dtype) {
    case KvDtype::int8:
      for (std::uint32_t t = 0; t < p.tokens; ++t) {
        const std::uint8_t* rec = p.codes + std::uint64_t{t} * (d + 4);
        const float s = int8_record_scale(rec, d);
        float* out = p.dequant + std::uint64_t{t} * d;
        for (std::uint32_t c = 0; c < d; ++c)
          out[c] = static_cast<float>(static_cast<std::int8_t>(rec[c])) * s;
      }
      break;
    default:
      return Status::Invalid("dequantize_int8: not a int8 format");
  }
  return Status::Ok();
}

}  // namespace kvplan::kernels::quantize_fast
