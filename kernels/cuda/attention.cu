// CUDA attention over a paged, quantized cache (attention.hpp's spec).
//
// Decode, flash-decoding style: grid (KV head, split, sequence). Each block walks its slice of the
// sequence in tiles of kTile tokens: dequantizes the tile's keys element by element (coalesced
// along the head dim, decoded in registers, staged in shared memory as floats), scores every
// query head of the GQA group against them, updates a running max / sum per query head (online
// softmax), then does the same for the values. A second kernel merges the splits' partial
// (max, sum, output) and, when probs are requested, turns the raw logits written by the first
// kernel into probabilities. Prefill dequantizes the prompt's K and V once (load_key/load_value,
// the CPU spec itself) and runs one block per (query, query head).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>

#include "cuda_common.hpp"

namespace kvplan::kernels {
namespace {

constexpr int kTile = 32;      // tokens per tile
constexpr int kThreads = 128;  // decode block
constexpr int kMaxBatch = 16;  // sequences per decode launch (params travel by value)

struct DecodeBatch {
  DecodeAttentionParams p[kMaxBatch];
};

// key_element / value_element: paged_kv.hpp's spec, one channel per thread, so a warp reads a
// record's bytes together.

// Workspace per (sequence b, query head hq, split s): partial output [dmax] and (max, sum).
__global__ void __launch_bounds__(kThreads)
    decode_attention_split_kernel(const DecodeBatch batch, std::uint32_t tokens_per_split,
                                  std::uint32_t splits, std::uint32_t max_hq, std::uint32_t dmax,
                                  float* __restrict__ part_o, float* __restrict__ part_ml) {
  const DecodeAttentionParams& p = batch.p[blockIdx.z];
  const PagedKvView v = p.kv;
  const std::uint32_t h = blockIdx.x, split = blockIdx.y;
  if (h >= v.num_kv_heads) return;
  const std::uint32_t d = v.head_dim, n = v.num_tokens, group = p.num_q_heads / v.num_kv_heads;
  const std::uint32_t t_begin = split * tokens_per_split;
  const std::uint32_t t_end = min(n, t_begin + tokens_per_split);
  const float scale = effective_scale(p.scale, d);
  const bool rot = rerotate(p.positions, p.rope);
  const std::uint32_t row = d + 1;  // padded: threads of a warp read different tokens

  extern __shared__ float smem[];
  float* q_s = smem;                 // [group, d]
  float* acc_s = q_s + group * d;    // [group, d]
  float* kv_s = acc_s + group * d;   // [kTile, d + 1]
  float* p_s = kv_s + kTile * row;   // [group, kTile]
  float* m_s = p_s + group * kTile;  // [group]
  float* l_s = m_s + group;          // [group]
  float* alpha_s = l_s + group;      // [group]

  const std::uint32_t tid = threadIdx.x;
  for (std::uint32_t i = tid; i < group * d; i += blockDim.x) {
    q_s[i] = p.q[std::uint64_t{h} * group * d + i];
    acc_s[i] = 0.f;
  }
  for (std::uint32_t g = tid; g < group; g += blockDim.x) {
    m_s[g] = -INFINITY;
    l_s[g] = 0.f;
  }
  __syncthreads();

  for (std::uint32_t t0 = t_begin; t0 < t_end; t0 += kTile) {
    const std::uint32_t cnt = min(static_cast<std::uint32_t>(kTile), t_end - t0);
    for (std::uint32_t i = tid; i < cnt * d; i += blockDim.x)
      kv_s[(i / d) * row + i % d] = key_element(v, h, t0 + i / d, i % d);
    __syncthreads();
    if (rot) {
      for (std::uint32_t t = tid; t < cnt; t += blockDim.x)
        rope_rotate(kv_s + t * row, d, p.rope,
                    static_cast<double>(t0 + t) -
                        v.positions[std::uint64_t{h} * v.positions_stride + t0 + t]);
      __syncthreads();
    }
    for (std::uint32_t i = tid; i < group * kTile; i += blockDim.x) {
      const std::uint32_t g = i / kTile, t = i % kTile;
      float s = -INFINITY;
      if (t < cnt) {
        const float* q = q_s + g * d;
        const float* k = kv_s + t * row;
        float a = 0.f;
        for (std::uint32_t c = 0; c < d; ++c) a += q[c] * k[c];
        s = a * scale;
        if (p.probs)
          p.probs[std::uint64_t{h * group + g} * n + t0 + t] = s;  // raw, normalized later
      }
      p_s[i] = s;
    }
    __syncthreads();
    for (std::uint32_t g = tid; g < group; g += blockDim.x) {
      float* pr = p_s + g * kTile;
      float mx = m_s[g];
      for (std::uint32_t t = 0; t < cnt; ++t) mx = fmaxf(mx, pr[t]);
      const float alpha = m_s[g] == -INFINITY ? 0.f : expf(m_s[g] - mx);
      float sum = 0.f;
      for (std::uint32_t t = 0; t < kTile; ++t) {
        const float e = t < cnt ? expf(pr[t] - mx) : 0.f;
        pr[t] = e;
        sum += e;
      }
      l_s[g] = l_s[g] * alpha + sum;
      m_s[g] = mx;
      alpha_s[g] = alpha;
    }
    for (std::uint32_t i = tid; i < cnt * d; i += blockDim.x)  // kv_s is free: logits are done
      kv_s[(i / d) * row + i % d] = value_element(v, h, t0 + i / d, i % d);
    __syncthreads();
    for (std::uint32_t i = tid; i < group * d; i += blockDim.x) {
      const std::uint32_t g = i / d, c = i % d;
      const float* pr = p_s + g * kTile;
      float a = acc_s[i] * alpha_s[g];
      for (std::uint32_t t = 0; t < cnt; ++t) a += pr[t] * kv_s[t * row + c];
      acc_s[i] = a;
    }
    __syncthreads();
  }
  const std::uint64_t base = (std::uint64_t{blockIdx.z} * max_hq + h * group) * splits + split;
  for (std::uint32_t i = tid; i < group * d; i += blockDim.x) {
    const std::uint32_t g = i / d, c = i % d;
    part_o[(base + std::uint64_t{g} * splits) * dmax + c] = acc_s[i];
  }
  for (std::uint32_t g = tid; g < group; g += blockDim.x) {
    part_ml[2 * (base + std::uint64_t{g} * splits)] = m_s[g];
    part_ml[2 * (base + std::uint64_t{g} * splits) + 1] = l_s[g];
  }
}

// grid (query head, sequence): merges the splits; normalizes probs in place.
__global__ void decode_attention_reduce_kernel(const DecodeBatch batch, std::uint32_t splits,
                                               std::uint32_t max_hq, std::uint32_t dmax,
                                               const float* __restrict__ part_o,
                                               const float* __restrict__ part_ml) {
  const DecodeAttentionParams& p = batch.p[blockIdx.y];
  const std::uint32_t hq = blockIdx.x;
  if (hq >= p.num_q_heads) return;
  const std::uint32_t d = p.kv.head_dim, n = p.kv.num_tokens;
  const std::uint64_t base = (std::uint64_t{blockIdx.y} * max_hq + hq) * splits;
  float M = -INFINITY;
  for (std::uint32_t s = 0; s < splits; ++s) M = fmaxf(M, part_ml[2 * (base + s)]);
  float L = 0.f;
  for (std::uint32_t s = 0; s < splits; ++s) {
    const float m = part_ml[2 * (base + s)];
    if (m != -INFINITY) L += part_ml[2 * (base + s) + 1] * expf(m - M);
  }
  const float inv = 1.f / L;
  for (std::uint32_t c = threadIdx.x; c < d; c += blockDim.x) {
    float o = 0.f;
    for (std::uint32_t s = 0; s < splits; ++s) {
      const float m = part_ml[2 * (base + s)];
      if (m != -INFINITY) o += part_o[(base + s) * dmax + c] * expf(m - M);
    }
    p.out[std::uint64_t{hq} * d + c] = o * inv;
  }
  if (p.probs)
    for (std::uint32_t t = threadIdx.x; t < n; t += blockDim.x) {
      float* pr = p.probs + std::uint64_t{hq} * n + t;
      *pr = expf(*pr - M) * inv;
    }
}

Status launch_decode(const DecodeAttentionParams* params, std::uint32_t count, cudaStream_t st) {
  DecodeBatch batch{};
  std::uint32_t max_h = 0, max_hq = 0, max_n = 0, dmax = 0, max_group = 0;
  for (std::uint32_t i = 0; i < count; ++i) {
    const DecodeAttentionParams& p = params[i];
    batch.p[i] = p;
    max_h = std::max(max_h, p.kv.num_kv_heads);
    max_hq = std::max(max_hq, p.num_q_heads);
    max_n = std::max(max_n, p.kv.num_tokens);
    dmax = std::max(dmax, p.kv.head_dim);
    max_group = std::max(max_group, p.num_q_heads / p.kv.num_kv_heads);
  }
  const std::uint64_t smem = 4ull * (2ull * max_group * dmax + kTile * (dmax + 1ull) +
                                     max_group * kTile + 3ull * max_group);
  if (smem > 227 * 1024)
    return Status::Unimplemented("decode_attention_cuda: GQA group " + std::to_string(max_group) +
                                 " x head dim " + std::to_string(dmax) + " needs " +
                                 std::to_string(smem) + " bytes of shared memory (max 232448)");
  // Splits: about 16 blocks per SM in flight (latency hiding for a memory-bound kernel), at
  // least 4 tiles per split.
  const std::uint64_t blocks_wanted = 16ull * cuda_detail::sm_count();
  const std::uint64_t per_seq =
      std::max<std::uint64_t>(1, blocks_wanted / (std::uint64_t{max_h} * count));
  const std::uint32_t max_splits =
      static_cast<std::uint32_t>(std::max<std::uint64_t>(1, ceil_div(max_n, 4 * kTile)));
  const std::uint32_t splits =
      static_cast<std::uint32_t>(std::min<std::uint64_t>(per_seq, max_splits));
  std::uint32_t tps = static_cast<std::uint32_t>(ceil_div(max_n, splits));
  tps = static_cast<std::uint32_t>(ceil_div(tps, kTile) * kTile);
  const std::uint64_t parts = std::uint64_t{count} * max_hq * splits;
  void* ws = nullptr;
  if (Status s = cuda_detail::workspace(st, parts * (dmax + 2ull) * 4, &ws); !s.ok()) return s;
  float* part_o = static_cast<float*>(ws);
  float* part_ml = part_o + parts * dmax;
  if (smem > 48 * 1024)
    KVPLAN_CUDA_CHECK(cudaFuncSetAttribute(decode_attention_split_kernel,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(smem)));
  decode_attention_split_kernel<<<dim3(max_h, splits, count), kThreads, smem, st>>>(
      batch, tps, splits, max_hq, dmax, part_o, part_ml);
  KVPLAN_CUDA_CHECK_LAUNCH();
  decode_attention_reduce_kernel<<<dim3(max_hq, count), 128, 0, st>>>(batch, splits, max_hq, dmax,
                                                                      part_o, part_ml);
  KVPLAN_CUDA_CHECK_LAUNCH();
  return Status::Ok();
}

// ---- prefill ----

__global__ void prefill_attention_dequant_kernel(const PrefillAttentionParams p,
                                                 float* __restrict__ keys,
                                                 float* __restrict__ vals) {
  const PagedKvView& v = p.kv;
  const std::uint32_t n = v.num_tokens, d = v.head_dim;
  const bool rot = rerotate(p.positions, p.rope);
  for (std::uint64_t r = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
       r < std::uint64_t{v.num_kv_heads} * n; r += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint32_t h = static_cast<std::uint32_t>(r / n),
                        t = static_cast<std::uint32_t>(r % n);
    load_key(v, h, t, keys + r * d);
    if (rot)
      rope_rotate(keys + r * d, d, p.rope,
                  static_cast<double>(t) - v.positions[std::uint64_t{h} * v.positions_stride + t]);
    load_value(v, h, t, vals + r * d);
  }
}

__device__ float block_reduce(float x, bool is_max, float* red) {
  for (int o = 16; o > 0; o /= 2) {
    const float y = __shfl_xor_sync(0xffffffffu, x, o);
    x = is_max ? fmaxf(x, y) : x + y;
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  __syncthreads();
  if (lane == 0) red[warp] = x;
  __syncthreads();
  x = red[0];
  for (int w = 1; w < warps; ++w) x = is_max ? fmaxf(x, red[w]) : x + red[w];
  return x;
}

// grid (query i, query head hq). logits [Hq, Tq, n]: the probs buffer or a workspace.
__global__ void prefill_attention_kernel(const PrefillAttentionParams p,
                                         const float* __restrict__ keys,
                                         const float* __restrict__ vals,
                                         float* __restrict__ logits) {
  const PagedKvView& v = p.kv;
  const std::uint32_t i = blockIdx.x, hq = blockIdx.y;
  const std::uint32_t n = v.num_tokens, d = v.head_dim, group = p.num_q_heads / v.num_kv_heads;
  const std::uint32_t h = hq / group;
  const float scale = effective_scale(p.scale, d);
  extern __shared__ float smem[];
  float* q = smem;     // [d]
  float* red = q + d;  // [32]
  for (std::uint32_t c = threadIdx.x; c < d; c += blockDim.x)
    q[c] = p.q[(std::uint64_t{i} * p.num_q_heads + hq) * d + c];
  __syncthreads();
  const std::int32_t qpos = p.q_positions[i];
  const std::int32_t* pos = v.positions + std::uint64_t{h} * v.positions_stride;
  float* l = logits + (std::uint64_t{hq} * p.num_queries + i) * n;
  const float* kh = keys + std::uint64_t{h} * n * d;
  const float* vh = vals + std::uint64_t{h} * n * d;
  float mx = -INFINITY;
  for (std::uint32_t t = threadIdx.x; t < n; t += blockDim.x) {
    float s = -INFINITY;
    if (pos[t] <= qpos) {
      float a = 0.f;
      for (std::uint32_t c = 0; c < d; ++c) a += q[c] * kh[std::uint64_t{t} * d + c];
      s = a * scale;
    }
    l[t] = s;
    mx = fmaxf(mx, s);
  }
  mx = block_reduce(mx, true, red);
  float sum = 0.f;
  for (std::uint32_t t = threadIdx.x; t < n; t += blockDim.x) {
    const float e = (isinf(mx) || isinf(l[t])) ? 0.f : expf(l[t] - mx);
    l[t] = e;
    sum += e;
  }
  sum = block_reduce(sum, false, red);
  const float inv = sum > 0.f ? 1.f / sum : 0.f;
  for (std::uint32_t t = threadIdx.x; t < n; t += blockDim.x) l[t] *= inv;
  __syncthreads();
  if (!p.out) return;
  for (std::uint32_t c = threadIdx.x; c < d; c += blockDim.x) {
    float a = 0.f;
    for (std::uint32_t t = 0; t < n; ++t) a += l[t] * vh[std::uint64_t{t} * d + c];
    p.out[(std::uint64_t{i} * p.num_q_heads + hq) * d + c] = a;
  }
}

}  // namespace

Status decode_attention_batch_cuda(const DecodeAttentionParams* params, std::uint32_t count,
                                   CudaStream stream) {
  for (std::uint32_t i = 0; i < count; ++i)
    if (Status s = validate(params[i]); !s.ok()) return s;
  for (std::uint32_t i = 0; i < count; i += kMaxBatch)
    if (Status s = launch_decode(params + i, std::min<std::uint32_t>(kMaxBatch, count - i),
                                 cuda_detail::to_cuda(stream));
        !s.ok())
      return s;
  return Status::Ok();
}

Status decode_attention_cuda(const DecodeAttentionParams& p, CudaStream stream) {
  if (Status s = validate(p); !s.ok()) return s;
  const cudaStream_t st = cuda_detail::to_cuda(stream);
  cuda_detail::Stage stage(st);
  DecodeAttentionParams d = p;
  const std::uint32_t dim = p.kv.head_dim, n = p.kv.num_tokens;
  if (Status s = cuda_detail::stage_view(p.kv, stage, &d.kv); !s.ok()) return s;
  if (Status s = stage.in(p.q, std::uint64_t{p.num_q_heads} * dim, &d.q); !s.ok()) return s;
  if (Status s = stage.out(p.out, std::uint64_t{p.num_q_heads} * dim, &d.out); !s.ok()) return s;
  if (Status s = stage.out(p.probs, std::uint64_t{p.num_q_heads} * n, &d.probs); !s.ok()) return s;
  if (Status s = launch_decode(&d, 1, st); !s.ok()) return s;
  return stage.finish();
}

Status prefill_attention_cuda(const PrefillAttentionParams& p, CudaStream stream) {
  if (Status s = validate(p); !s.ok()) return s;
  const cudaStream_t st = cuda_detail::to_cuda(stream);
  cuda_detail::Stage stage(st);
  PrefillAttentionParams d = p;
  const std::uint32_t dim = p.kv.head_dim, n = p.kv.num_tokens, H = p.kv.num_kv_heads;
  const std::uint64_t qn = std::uint64_t{p.num_queries} * p.num_q_heads;
  if (Status s = cuda_detail::stage_view(p.kv, stage, &d.kv); !s.ok()) return s;
  if (Status s = stage.in(p.q, qn * dim, &d.q); !s.ok()) return s;
  if (Status s = stage.in(p.q_positions, p.num_queries, &d.q_positions); !s.ok()) return s;
  if (Status s = stage.out(p.out, qn * dim, &d.out); !s.ok()) return s;
  if (Status s = stage.out(p.probs, qn * n, &d.probs); !s.ok()) return s;
  void *keys = nullptr, *vals = nullptr, *logits = d.probs;
  if (Status s = stage.alloc(std::uint64_t{H} * n * dim * 4, &keys); !s.ok()) return s;
  if (Status s = stage.alloc(std::uint64_t{H} * n * dim * 4, &vals); !s.ok()) return s;
  if (!logits)
    if (Status s = stage.alloc(qn * n * 4, &logits); !s.ok()) return s;
  const std::uint64_t rows = std::uint64_t{H} * n;
  prefill_attention_dequant_kernel<<<
      static_cast<unsigned>(std::min<std::uint64_t>(ceil_div(rows, 128), 65535)), 128, 0, st>>>(
      d, static_cast<float*>(keys), static_cast<float*>(vals));
  KVPLAN_CUDA_CHECK_LAUNCH();
  prefill_attention_kernel<<<dim3(p.num_queries, p.num_q_heads), 256, (dim + 32) * 4, st>>>(
      d, static_cast<const float*>(keys), static_cast<const float*>(vals),
      static_cast<float*>(logits));
  KVPLAN_CUDA_CHECK_LAUNCH();
  if (Status s = stage.finish(); !s.ok()) return s;
  // Stage-owned scratch is freed on return: wait for the kernels when nothing forced a sync.
  KVPLAN_CUDA_CHECK(cudaStreamSynchronize(st));
  return Status::Ok();
}

}  // namespace kvplan::kernels
