#include "kvplan/kernels/quantize.hpp"

#ifdef KVPLAN_HAVE_CUDA
#include "kvplan/kernels/cuda.hpp"
#endif

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace kvplan::kernels {
Status quantize_ref(const QuantizeParams& p) {
  if (Status s = validate(p, false); !s.ok()) return s;
  const std::uint32_t d = p.width;
  const KvFormat& f = p.format;
  switch (f.dtype) {
    case KvDtype::int8:
      for (std::uint32_t t = 0; t < p.tokens; ++t)
        int8_encode_record(p.in + std::uint64_t{t} * d, d, p.out + std::uint64_t{t} * (d + 4));
      break;
    case KvDtype::kivi: {
      const std::uint32_t G = f.group, P = kivi_record_bytes(G, f.bits);
      if (p.role == StreamRole::key) {
        for (std::uint32_t g = 0; g < p.tokens / G; ++g)
          for (std::uint32_t c = 0; c < d; ++c)
            kivi_encode_record(p.in + std::uint64_t{g} * G * d + c, d, G, f.bits,
                               p.out + (std::uint64_t{g} * d + c) * P);
      } else {
        for (std::uint32_t t = 0; t < p.tokens; ++t)
          for (std::uint32_t j = 0; j < d / G; ++j)
            kivi_encode_record(p.in + std::uint64_t{t} * d + j * G, 1, G, f.bits,
                               p.out + (std::uint64_t{t} * (d / G) + j) * P);
      }
      break;
    }
    default: {
      const std::uint32_t eb = plain_element_bytes(f.dtype);
      const std::uint64_t n = std::uint64_t{p.tokens} * d;
      for (std::uint64_t i = 0; i < n; ++i)
        plain_encode(f.dtype, p.in[i], p.fp8_scale, p.out + i * eb);
    }
  }
  return Status::Ok();
}

Status dequantize_ref(const QuantizeParams& p) {
  if (Status s = validate(p, true); !s.ok()) return s;
  const std::uint32_t d = p.width;
  const KvFormat& f = p.format;
  switch (f.dtype) {
    case KvDtype::int8:
      for (std::uint32_t t = 0; t < p.tokens; ++t)
        for (std::uint32_t c = 0; c < d; ++c)
          p.dequant[std::uint64_t{t} * d + c] =
              int8_decode(p.codes + std::uint64_t{t} * (d + 4), d, c);
      break;
    case KvDtype::kivi: {
      const std::uint32_t G = f.group, P = kivi_record_bytes(G, f.bits);
      if (p.role == StreamRole::key) {
        for (std::uint32_t t = 0; t < p.tokens; ++t)
          for (std::uint32_t c = 0; c < d; ++c)
            p.dequant[std::uint64_t{t} * d + c] =
                kivi_decode(p.codes + (std::uint64_t{t / G} * d + c) * P, G, f.bits, t % G);
      } else {
        for (std::uint32_t t = 0; t < p.tokens; ++t)
          for (std::uint32_t c = 0; c < d; ++c)
            p.dequant[std::uint64_t{t} * d + c] =
                kivi_decode(p.codes + (std::uint64_t{t} * (d / G) + c / G) * P, G, f.bits, c % G);
      }
      break;
    }
    default: {
      const std::uint32_t eb = plain_element_bytes(f.dtype);
      const std::uint64_t n = std::uint64_t{p.tokens} * d;
      for (std::uint64_t i = 0; i < n; ++i)
        p.dequant[i] = plain_decode(f.dtype, p.codes + i * eb, p.fp8_scale);
    }
  }
  return Status::Ok();
}

float fp8_calibrated_scale(const float* x, std::size_t n, Fp8Kind kind) {
  float amax = 0.f;
  for (std::size_t i = 0; i < n; ++i)
    if (std::isfinite(x[i])) amax = std::max(amax, std::fabs(x[i]));
  return amax > 0.f ? amax / fp8_traits(kind).max_finite : 1.f;
}

Status quantize(const QuantizeParams& p, Backend b) {
  switch (b) {
    case Backend::cpu_ref:
      return quantize_ref(p);
    case Backend::cpu:
      return quantize_cpu(p);
    case Backend::cuda:
#ifdef KVPLAN_HAVE_CUDA
      return quantize_cuda(p);
#else
      return Status::Unimplemented("quantize: CUDA backend not built");
#endif
  }
  return Status::Invalid("quantize: unknown backend");
}

Status dequantize(const QuantizeParams& p, Backend b) {
  switch (b) {
    case Backend::cpu_ref:
      return dequantize_ref(p);
    case Backend::cpu:
      return dequantize_cpu(p);
    case Backend::cuda:
#ifdef KVPLAN_HAVE_CUDA
      return dequantize_cuda(p);
#else
      return Status::Unimplemented("dequantize: CUDA backend not built");
#endif
  }
  return Status::Invalid("dequantize: unknown backend");
}

}  // namespace kvplan::kernels
