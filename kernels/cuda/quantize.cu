// CUDA quantize / dequantize: the encoders and decoders of quantize.hpp, run per element
// (plain formats, dequantization), per warp (int8 records: the absmax is a warp reduction) or per
// thread (KIVI records, whose key records are coalesced across channels). Compiled with
// --fmad=false (CMakeLists.txt): KIVI's code·scale + zero must not fuse into an FMA, or the
// dequantized values would differ from the CPU reference in the last bit.
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda_common.hpp"

namespace kvplan::kernels {
namespace {

using cuda_detail::Stage;

constexpr int kThreads = 256;

unsigned grid_for(std::uint64_t work) {
  const std::uint64_t blocks = (work + kThreads - 1) / kThreads;
  return static_cast<unsigned>(
      std::max<std::uint64_t>(1, std::min<std::uint64_t>(blocks, cuda_detail::sm_count() * 32ull)));
}

__global__ void quantize_plain_kernel(KvDtype dtype, float scale, const float* __restrict__ in,
                                      std::uint8_t* __restrict__ out, std::uint64_t count,
                                      std::uint32_t eb) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::uint64_t{gridDim.x} * blockDim.x)
    plain_encode(dtype, in[i], scale, out + i * eb);
}

__global__ void dequantize_plain_kernel(KvDtype dtype, float scale,
                                        const std::uint8_t* __restrict__ codes,
                                        float* __restrict__ out, std::uint64_t count,
                                        std::uint32_t eb) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::uint64_t{gridDim.x} * blockDim.x)
    out[i] = plain_decode(dtype, codes + i * eb, scale);
}

// Four elements per thread when the buffers allow it: one 16-byte load of floats and one store of
// 4·EB code bytes (and back), the per-element arithmetic unchanged. EB: bytes per element.
template <int EB>
struct CodeVec;
template <>
struct CodeVec<1> {
  using type = std::uint32_t;
};
template <>
struct CodeVec<2> {
  using type = uint2;
};
template <>
struct CodeVec<4> {
  using type = uint4;
};

template <int EB>
__global__ void quantize_plain_vec_kernel(KvDtype dtype, float scale, const float4* __restrict__ in,
                                          typename CodeVec<EB>::type* __restrict__ out,
                                          std::uint64_t quads) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < quads;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    const float4 x = in[i];
    std::uint8_t b[4 * EB];
    plain_encode(dtype, x.x, scale, b);
    plain_encode(dtype, x.y, scale, b + EB);
    plain_encode(dtype, x.z, scale, b + 2 * EB);
    plain_encode(dtype, x.w, scale, b + 3 * EB);
    typename CodeVec<EB>::type w;
    std::memcpy(&w, b, sizeof w);
    out[i] = w;
  }
}

template <int EB>
__global__ void dequantize_plain_vec_kernel(KvDtype dtype, float scale,
                                            const typename CodeVec<EB>::type* __restrict__ codes,
                                            float4* __restrict__ out, std::uint64_t quads) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < quads;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    const typename CodeVec<EB>::type w = codes[i];
    std::uint8_t b[4 * EB];
    std::memcpy(b, &w, sizeof w);
    out[i] =
        make_float4(plain_decode(dtype, b, scale), plain_decode(dtype, b + EB, scale),
                    plain_decode(dtype, b + 2 * EB, scale), plain_decode(dtype, b + 3 * EB, scale));
  }
}

bool aligned(const void* p, std::uintptr_t a) {
  return reinterpret_cast<std::uintptr_t>(p) % a == 0;
}

// The plain launch: vectorized where n is a multiple of 4 and both buffers are aligned for it.
void launch_plain(bool encode, KvDtype dtype, float scale, const void* src, void* dst,
                  std::uint64_t n, cudaStream_t st) {
  const std::uint32_t eb = plain_element_bytes(dtype);
  const void* codes = encode ? dst : src;
  const void* floats = encode ? src : dst;
  if (n % 4 == 0 && aligned(floats, 16) && aligned(codes, 4ull * eb)) {
    const std::uint64_t quads = n / 4;
#define KVPLAN_PLAIN_VEC(EB)                                               \
  if (encode)                                                              \
    quantize_plain_vec_kernel<EB><<<grid_for(quads), kThreads, 0, st>>>(   \
        dtype, scale, static_cast<const float4*>(src),                     \
        static_cast<typename CodeVec<EB>::type*>(dst), quads);             \
  else                                                                     \
    dequantize_plain_vec_kernel<EB><<<grid_for(quads), kThreads, 0, st>>>( \
        dtype, scale, static_cast<const typename CodeVec<EB>::type*>(src), \
        static_cast<float4*>(dst), quads);
    switch (eb) {
      case 1:
        KVPLAN_PLAIN_VEC(1)
        return;
      case 2:
        KVPLAN_PLAIN_VEC(2)
        return;
      default:
        KVPLAN_PLAIN_VEC(4)
        return;
    }
#undef KVPLAN_PLAIN_VEC
  }
  if (encode)
    quantize_plain_kernel<<<grid_for(n), kThreads, 0, st>>>(
        dtype, scale, static_cast<const float*>(src), static_cast<std::uint8_t*>(dst), n, eb);
  else
    dequantize_plain_kernel<<<grid_for(n), kThreads, 0, st>>>(
        dtype, scale, static_cast<const std::uint8_t*>(src), static_cast<float*>(dst), n, eb);
}

// One warp per token record. The same arithmetic as int8_encode_record: absmax (fmax is exact
// in any order), scale = absmax / 127, code = clamp(rint(x / scale), -127, 127).
__global__ void quantize_int8_kernel(const float* __restrict__ in, std::uint8_t* __restrict__ out,
                                     std::uint32_t tokens, std::uint32_t d) {
  const std::uint32_t lane = threadIdx.x % 32;
  const std::uint64_t warps = std::uint64_t{gridDim.x} * (blockDim.x / 32);
  for (std::uint64_t t = (blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x) / 32; t < tokens;
       t += warps) {
    const float* x = in + t * d;
    std::uint8_t* rec = out + t * int8_record_bytes(d);
    float amax = 0.f;
    for (std::uint32_t i = lane; i < d; i += 32) amax = fmaxf(amax, fabsf(x[i]));
    for (int o = 16; o > 0; o /= 2) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, o));
    const float scale = amax / 127.f;
    for (std::uint32_t i = lane; i < d; i += 32) {
      float q = scale > 0.f ? rintf(x[i] / scale) : 0.f;
      q = fminf(127.f, fmaxf(-127.f, q));
      rec[i] = static_cast<std::uint8_t>(static_cast<std::int8_t>(q));
    }
    if (lane == 0) memcpy(rec + d, &scale, 4);
  }
}

// Dequantization with a fixed channel per thread: when the block size is a multiple of the width
// d, thread i of the grid reads channel i mod d of tokens (i div d) + k·rows, so the per-channel
// offsets (the KIVI value record c / G, the code's place c mod G) are computed once per thread
// and the per-token ones once per token, in 32-bit arithmetic, instead of two 64-bit divisions
// per element. Writes are coalesced: consecutive threads, consecutive channels.
template <bool Int8, bool Keys>
__global__ void dequantize_rows_kernel(const std::uint8_t* __restrict__ codes,
                                       float* __restrict__ out, std::uint32_t tokens,
                                       std::uint32_t d, std::uint32_t G, std::uint32_t bits) {
  const std::uint32_t rows = blockDim.x / d;
  const std::uint32_t c = threadIdx.x % d;
  const std::uint32_t P = Int8 ? int8_record_bytes(d) : kivi_record_bytes(G, bits);
  const std::uint32_t c_rec = c / G, c_j = c % G;  // KIVI values
  for (std::uint32_t t = blockIdx.x * rows + threadIdx.x / d; t < tokens; t += gridDim.x * rows) {
    float x;
    if constexpr (Int8) {
      x = int8_decode(codes + std::uint64_t{t} * P, d, c);
    } else if constexpr (Keys) {
      x = kivi_decode(codes + (std::uint64_t{t / G} * d + c) * P, G, bits, t % G);
    } else {
      x = kivi_decode(codes + (std::uint64_t{t} * (d / G) + c_rec) * P, G, bits, c_j);
    }
    out[std::uint64_t{t} * d + c] = x;
  }
}

__global__ void dequantize_int8_kernel(const std::uint8_t* __restrict__ codes,
                                       float* __restrict__ out, std::uint32_t tokens,
                                       std::uint32_t d) {
  const std::uint64_t count = std::uint64_t{tokens} * d;
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::uint64_t{gridDim.x} * blockDim.x)
    out[i] =
        int8_decode(codes + (i / d) * int8_record_bytes(d), d, static_cast<std::uint32_t>(i % d));
}

// One thread per KIVI record: key records (g, c) read channel c of G tokens (coalesced across
// c); value records (t, j) read G consecutive channels of token t.
__global__ void quantize_kivi_kernel(bool keys, const float* __restrict__ in,
                                     std::uint8_t* __restrict__ out, std::uint32_t tokens,
                                     std::uint32_t d, std::uint32_t G, std::uint32_t bits) {
  const std::uint32_t P = kivi_record_bytes(G, bits);
  const std::uint64_t records =
      keys ? std::uint64_t{tokens / G} * d : std::uint64_t{tokens} * (d / G);
  for (std::uint64_t r = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; r < records;
       r += std::uint64_t{gridDim.x} * blockDim.x) {
    if (keys) {
      const std::uint64_t g = r / d, c = r % d;
      kivi_encode_record(in + g * G * d + c, d, G, bits, out + r * P);
    } else {
      const std::uint64_t t = r / (d / G), j = r % (d / G);
      kivi_encode_record(in + t * d + j * G, 1, G, bits, out + r * P);
    }
  }
}

// KIVI values: a record is G consecutive channels of one token, so one thread per record would
// read G floats 4·G bytes apart from its neighbours'. Here a warp stages its 32 records' inputs
// in shared memory with coalesced loads (rows padded by one float), then each lane encodes its
// record from there with the same kivi_encode_record.
__global__ void quantize_kivi_value_kernel(const float* __restrict__ in,
                                           std::uint8_t* __restrict__ out, std::uint64_t records,
                                           std::uint32_t G, std::uint32_t bits) {
  extern __shared__ float stage[];
  const std::uint32_t lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  float* rows = stage + std::uint64_t{warp} * 32 * (G + 1);
  const std::uint32_t P = kivi_record_bytes(G, bits);
  const std::uint64_t warps = std::uint64_t{gridDim.x} * (blockDim.x / 32);
  for (std::uint64_t r0 = (blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x) / 32 * 32;
       r0 < records; r0 += warps * 32) {
    const std::uint32_t cnt = static_cast<std::uint32_t>(min(std::uint64_t{32}, records - r0));
    const float* src = in + r0 * G;  // records are contiguous: record r covers [r·G, r·G + G)
    for (std::uint32_t i = lane; i < cnt * G; i += 32) rows[(i / G) * (G + 1) + i % G] = src[i];
    __syncwarp();
    if (lane < cnt) kivi_encode_record(rows + lane * (G + 1), 1, G, bits, out + (r0 + lane) * P);
    __syncwarp();
  }
}

__global__ void dequantize_kivi_kernel(bool keys, const std::uint8_t* __restrict__ codes,
                                       float* __restrict__ out, std::uint32_t tokens,
                                       std::uint32_t d, std::uint32_t G, std::uint32_t bits) {
  const std::uint32_t P = kivi_record_bytes(G, bits);
  const std::uint64_t count = std::uint64_t{tokens} * d;
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint64_t t = i / d, c = i % d;
    out[i] = keys ? kivi_decode(codes + ((t / G) * d + c) * P, G, bits,
                                static_cast<std::uint32_t>(t % G))
                  : kivi_decode(codes + (t * (d / G) + c / G) * P, G, bits,
                                static_cast<std::uint32_t>(c % G));
  }
}

}  // namespace

Status quantize_cuda(const QuantizeParams& p, CudaStream stream) {
  if (Status s = validate(p, false); !s.ok()) return s;
  if (p.tokens == 0) return Status::Ok();
  const cudaStream_t st = cuda_detail::to_cuda(stream);
  Stage stage(st);
  const std::uint32_t d = p.width;
  const std::uint64_t n = std::uint64_t{p.tokens} * d;
  const float* in = nullptr;
  std::uint8_t* out = nullptr;
  if (Status s = stage.in(p.in, n, &in); !s.ok()) return s;
  if (Status s = stage.out(p.out, quantized_bytes(p.format, p.role, d, p.tokens), &out); !s.ok())
    return s;
  const KvFormat& f = p.format;
  switch (f.dtype) {
    case KvDtype::int8:
      quantize_int8_kernel<<<grid_for(std::uint64_t{p.tokens} * 32), kThreads, 0, st>>>(
          in, out, p.tokens, d);
      break;
    case KvDtype::kivi: {
      const bool keys = p.role == StreamRole::key;
      const std::uint64_t records =
          keys ? std::uint64_t{p.tokens / f.group} * d : std::uint64_t{p.tokens} * (d / f.group);
      const std::uint64_t stage_bytes = 4ull * (kThreads / 32) * 32 * (f.group + 1ull);
      if (!keys && stage_bytes <= 48 * 1024)
        quantize_kivi_value_kernel<<<grid_for(records), kThreads, stage_bytes, st>>>(
            in, out, records, f.group, f.bits);
      else
        quantize_kivi_kernel<<<grid_for(records), kThreads, 0, st>>>(keys, in, out, p.tokens, d,
                                                                     f.group, f.bits);
      break;
    }
    default:
      launch_plain(true, f.dtype, p.fp8_scale, in, out, n, st);
  }
  KVPLAN_CUDA_CHECK_LAUNCH();
  return stage.finish();
}

Status dequantize_cuda(const QuantizeParams& p, CudaStream stream) {
  if (Status s = validate(p, true); !s.ok()) return s;
  if (p.tokens == 0) return Status::Ok();
  const cudaStream_t st = cuda_detail::to_cuda(stream);
  Stage stage(st);
  const std::uint32_t d = p.width;
  const std::uint64_t n = std::uint64_t{p.tokens} * d;
  const std::uint8_t* codes = nullptr;
  float* out = nullptr;
  if (Status s = stage.in(p.codes, quantized_bytes(p.format, p.role, d, p.tokens), &codes); !s.ok())
    return s;
  if (Status s = stage.out(p.dequant, n, &out); !s.ok()) return s;
  const KvFormat& f = p.format;
  switch (f.dtype) {
    case KvDtype::int8:
      if (kThreads % d == 0)
        dequantize_rows_kernel<true, false>
            <<<grid_for(n), kThreads, 0, st>>>(codes, out, p.tokens, d, 1, 8);
      else
        dequantize_int8_kernel<<<grid_for(n), kThreads, 0, st>>>(codes, out, p.tokens, d);
      break;
    case KvDtype::kivi:
      if (kThreads % d == 0 && p.role == StreamRole::key)
        dequantize_rows_kernel<false, true>
            <<<grid_for(n), kThreads, 0, st>>>(codes, out, p.tokens, d, f.group, f.bits);
      else if (kThreads % d == 0)
        dequantize_rows_kernel<false, false>
            <<<grid_for(n), kThreads, 0, st>>>(codes, out, p.tokens, d, f.group, f.bits);
      else
        dequantize_kivi_kernel<<<grid_for(n), kThreads, 0, st>>>(p.role == StreamRole::key, codes,
                                                                 out, p.tokens, d, f.group, f.bits);
      break;
    default:
      launch_plain(false, f.dtype, p.fp8_scale, codes, out, n, st);
  }
  KVPLAN_CUDA_CHECK_LAUNCH();
  return stage.finish();
}

}  // namespace kvplan::kernels
