// CUDA eviction (eviction.hpp's spec): H2O score accumulation, SnapKV voting and pooling, and an
// exact top-k per KV head. Scores are combined in exactly the reference's order (serial over the
// group, over the window, over the pooling kernel), so they are bit-identical, and the top-k is
// a search for the k-th smallest unique key (score descending, position ascending): ties go to
// the lower position, and the kept set equals the reference's for equal scores.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "cuda_common.hpp"

namespace kvplan::kernels {
namespace {

using cuda_detail::Stage;

constexpr int kThreads = 256;
constexpr int kSelectThreads = 1024;

unsigned blocks_for(std::uint64_t work) {
  return static_cast<unsigned>(std::max<std::uint64_t>(
      1,
      std::min<std::uint64_t>((work + kThreads - 1) / kThreads, cuda_detail::sm_count() * 32ull)));
}

// ref_max, gqa_combine, snapkv_vote, snapkv_pool: eviction.hpp, shared with the reference.

__global__ void h2o_accumulate_kernel(std::uint32_t H, std::uint32_t group, std::uint32_t n,
                                      const float* __restrict__ probs, float* __restrict__ scores,
                                      GqaReduce gqa) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
       i < std::uint64_t{H} * n; i += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint64_t h = i / n, t = i % n;
    scores[i] += gqa_combine(probs + h * group * n + t, n, group, gqa);
  }
}

// combined[h][t] = gqa over the group of (sum over the w window queries, in order).
__global__ void snapkv_vote_kernel(std::uint32_t H, std::uint32_t group, std::uint32_t n,
                                   std::uint32_t w, const float* __restrict__ probs, GqaReduce gqa,
                                   float* __restrict__ combined) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
       i < std::uint64_t{H} * n; i += std::uint64_t{gridDim.x} * blockDim.x) {
    combined[i] = snapkv_vote(probs, static_cast<std::uint32_t>(i / n), group, w, n,
                              static_cast<std::uint32_t>(i % n), gqa);
  }
}

// 1D pooling over [0, prefix), stride 1, padding kernel/2 (max pads with -inf, avg with 0 and
// divides by kernel); slots from prefix on keep their combined vote.
__global__ void snapkv_pool_kernel(std::uint32_t H, std::uint32_t n, std::uint32_t prefix,
                                   std::uint32_t kernel, PoolKind pool,
                                   const float* __restrict__ combined, float* __restrict__ pooled) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
       i < std::uint64_t{H} * n; i += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint64_t h = i / n;
    const std::int64_t t = static_cast<std::int64_t>(i % n);
    const float* c = combined + h * n;
    if (t >= prefix) {
      pooled[i] = c[t];
      continue;
    }
    pooled[i] = snapkv_pool(c, prefix, static_cast<std::uint32_t>(t), kernel, pool);
  }
}

// Ascending 64-bit key: (score descending, position ascending). -0 counts as +0, as in the
// reference's comparison.
__device__ std::uint64_t select_key(float score, std::int32_t pos) {
  std::uint32_t u;
  memcpy(&u, &score, 4);
  if (u == 0x80000000u) u = 0;
  const std::uint32_t asc = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
  return (static_cast<std::uint64_t>(~asc) << 32) | (static_cast<std::uint32_t>(pos) ^ 0x80000000u);
}

// One block per KV head: keeps the k best of slots [0, m) and every slot of [m, n), writing the
// kept slots ascending to out [H, k + n - m].
__global__ void __launch_bounds__(kSelectThreads)
    evict_topk_kernel(std::uint32_t n, std::uint32_t m, std::uint32_t k,
                      const float* __restrict__ scores, std::uint64_t score_stride,
                      const std::int32_t* __restrict__ positions, std::uint32_t pos_stride,
                      std::int32_t* __restrict__ out) {
  const std::uint32_t h = blockIdx.x;
  const float* s = scores + h * score_stride;
  const std::int32_t* pos = positions + std::uint64_t{h} * pos_stride;
  const std::uint32_t count = k + (n - m);
  std::int32_t* o = out + std::uint64_t{h} * count;
  __shared__ unsigned long long below;
  __shared__ std::uint32_t warp_sums[kSelectThreads / 32];
  __shared__ std::uint32_t running;
  // Smallest X with |{key <= X}| >= k: the k-th smallest key (keys are unique).
  std::uint64_t threshold = 0;
  bool keep_none = k == 0;
  if (!keep_none && k < m) {
    std::uint64_t lo = 0, hi = ~0ull;
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (threadIdx.x == 0) below = 0;
      __syncthreads();
      unsigned long long local = 0;
      for (std::uint32_t t = threadIdx.x; t < m; t += blockDim.x)
        local += select_key(s[t], pos[t]) <= mid;
      if (local) atomicAdd(&below, local);
      __syncthreads();
      if (below >= k)
        hi = mid;
      else
        lo = mid + 1;
      __syncthreads();
    }
    threshold = lo;
  } else if (!keep_none) {
    threshold = ~0ull;  // k >= m: every candidate
  }
  // Ordered compaction of the kept slots.
  if (threadIdx.x == 0) running = 0;
  __syncthreads();
  const std::uint32_t lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (std::uint32_t base = 0; base < n; base += blockDim.x) {
    const std::uint32_t t = base + threadIdx.x;
    bool kept = false;
    if (t < n) kept = t >= m || (!keep_none && select_key(s[t], pos[t]) <= threshold);
    const unsigned ballot = __ballot_sync(0xffffffffu, kept);
    if (lane == 0) warp_sums[warp] = __popc(ballot);
    __syncthreads();
    std::uint32_t offset = running;
    for (std::uint32_t w = 0; w < warp; ++w) offset += warp_sums[w];
    offset += __popc(ballot & ((1u << lane) - 1u));
    if (kept) o[offset] = static_cast<std::int32_t>(t);
    __syncthreads();
    if (threadIdx.x == 0)
      for (std::uint32_t w = 0; w < blockDim.x / 32; ++w) running += warp_sums[w];
    __syncthreads();
  }
}

// Positions [H, n] on the host, from host or device rows of `stride`.
Status host_positions(const std::int32_t* p, std::uint32_t stride, std::uint32_t H, std::uint32_t n,
                      std::vector<std::int32_t>* out) {
  out->resize(std::uint64_t{H} * n);
  if (n == 0) return Status::Ok();
  if (cuda_detail::is_device_pointer(p)) {
    KVPLAN_CUDA_CHECK(
        cudaMemcpy2D(out->data(), n * 4ull, p, stride * 4ull, n * 4ull, H, cudaMemcpyDeviceToHost));
  } else {
    for (std::uint32_t h = 0; h < H; ++h)
      std::copy_n(p + std::uint64_t{h} * stride, n, out->begin() + std::uint64_t{h} * n);
  }
  return Status::Ok();
}

void fill_keep(std::uint32_t H, std::uint32_t count, std::vector<std::int32_t> slots,
               const std::vector<std::int32_t>& pos, std::uint32_t n, KeepSet* keep) {
  keep->num_kv_heads = H;
  keep->count = count;
  keep->positions.resize(slots.size());
  for (std::uint32_t h = 0; h < H; ++h)
    for (std::uint32_t i = 0; i < count; ++i)
      keep->positions[std::uint64_t{h} * count + i] =
          pos[std::uint64_t{h} * n +
              static_cast<std::uint32_t>(slots[std::uint64_t{h} * count + i])];
  keep->slots = std::move(slots);
}

void keep_all(std::uint32_t H, std::uint32_t n, const std::vector<std::int32_t>& pos,
              KeepSet* keep) {
  std::vector<std::int32_t> slots(std::uint64_t{H} * n);
  for (std::uint32_t h = 0; h < H; ++h)
    std::iota(slots.begin() + std::uint64_t{h} * n, slots.begin() + std::uint64_t{h + 1} * n, 0);
  fill_keep(H, n, std::move(slots), pos, n, keep);
}

// Runs evict_topk_kernel on device scores [H, score_stride] and fills `keep`.
Status select_on_device(std::uint32_t H, std::uint32_t n, std::uint32_t m, std::uint32_t k,
                        const float* d_scores, std::uint64_t score_stride,
                        const std::int32_t* positions, std::uint32_t pos_stride,
                        const std::vector<std::int32_t>& host_pos, Stage& stage, cudaStream_t st,
                        KeepSet* keep) {
  const std::int32_t* d_pos = nullptr;
  if (cuda_detail::is_device_pointer(positions)) {
    d_pos = positions;
  } else {  // host_pos is [H, n]
    if (Status s = stage.in(host_pos.data(), host_pos.size(), &d_pos); !s.ok()) return s;
    pos_stride = n;
  }
  const std::uint32_t count = k + (n - m);
  void* d_out = nullptr;
  if (Status s = stage.alloc(std::uint64_t{H} * count * 4, &d_out); !s.ok()) return s;
  if (count > 0) {
    evict_topk_kernel<<<H, kSelectThreads, 0, st>>>(n, m, k, d_scores, score_stride, d_pos,
                                                    pos_stride, static_cast<std::int32_t*>(d_out));
    KVPLAN_CUDA_CHECK_LAUNCH();
  }
  std::vector<std::int32_t> slots(std::uint64_t{H} * count);
  if (count > 0)
    KVPLAN_CUDA_CHECK(
        cudaMemcpyAsync(slots.data(), d_out, slots.size() * 4, cudaMemcpyDeviceToHost, st));
  KVPLAN_CUDA_CHECK(cudaStreamSynchronize(st));
  fill_keep(H, count, std::move(slots), host_pos, n, keep);
  return Status::Ok();
}

}  // namespace

Status streaming_select_cuda(const StreamingSelectParams& p, KeepSet* keep, CudaStream) {
  // No scores: the selection is index arithmetic; only the positions may live on the device.
  if (Status s = validate(p); !s.ok()) return s;
  std::vector<std::int32_t> pos;
  if (Status s =
          host_positions(p.positions, p.positions_stride, p.num_kv_heads, p.num_tokens, &pos);
      !s.ok())
    return s;
  StreamingSelectParams hp = p;
  hp.positions = pos.data();
  hp.positions_stride = p.num_tokens;
  return streaming_select_ref(hp, keep);
}

Status h2o_accumulate_cuda(const H2oAccumulateParams& p, CudaStream stream) {
  if (Status s = validate(p); !s.ok()) return s;
  if (p.num_tokens == 0) return Status::Ok();
  const cudaStream_t st = cuda_detail::to_cuda(stream);
  Stage stage(st);
  const float* probs = nullptr;
  float* scores = nullptr;
  if (Status s = stage.in(p.probs, std::uint64_t{p.num_q_heads} * p.num_tokens, &probs); !s.ok())
    return s;
  if (Status s = stage.out(p.scores, std::uint64_t{p.num_kv_heads} * p.num_tokens, &scores, true);
      !s.ok())
    return s;
  h2o_accumulate_kernel<<<blocks_for(std::uint64_t{p.num_kv_heads} * p.num_tokens), kThreads, 0,
                          st>>>(p.num_kv_heads, p.num_q_heads / p.num_kv_heads, p.num_tokens, probs,
                                scores, p.gqa);
  KVPLAN_CUDA_CHECK_LAUNCH();
  return stage.finish();
}

Status h2o_select_cuda(const H2oSelectParams& p, KeepSet* keep, CudaStream stream) {
  if (Status s = validate(p); !s.ok()) return s;
  const std::uint32_t H = p.num_kv_heads, n = p.num_tokens;
  std::vector<std::int32_t> pos;
  if (Status s = host_positions(p.positions, p.positions_stride, H, n, &pos); !s.ok()) return s;
  if (n <= p.heavy + p.recent) {
    keep_all(H, n, pos, keep);
    return Status::Ok();
  }
  const cudaStream_t st = cuda_detail::to_cuda(stream);
  Stage stage(st);
  const float* scores = nullptr;
  if (Status s = stage.in(p.scores, std::uint64_t{H} * n, &scores); !s.ok()) return s;
  const std::uint32_t m = n - static_cast<std::uint32_t>(p.recent);
  const std::uint32_t k = static_cast<std::uint32_t>(std::min<std::uint64_t>(p.heavy, m));
  return select_on_device(H, n, m, k, scores, n, p.positions, p.positions_stride, pos, stage, st,
                          keep);
}

Status snapkv_select_cuda(const SnapKvSelectParams& p, KeepSet* keep, CudaStream stream) {
  if (Status s = validate(p); !s.ok()) return s;
  const std::uint32_t H = p.num_kv_heads, n = p.num_tokens, w = p.num_queries;
  const std::uint32_t group = p.num_q_heads / H;
  std::vector<std::int32_t> pos;
  if (Status s = host_positions(p.positions, p.positions_stride, H, n, &pos); !s.ok()) return s;
  if (n == 0) {
    keep_all(H, 0, pos, keep);
    return Status::Ok();
  }
  const cudaStream_t st = cuda_detail::to_cuda(stream);
  Stage stage(st);
  const std::uint32_t wk = static_cast<std::uint32_t>(std::min<std::uint64_t>(w, p.budget));
  const std::uint32_t prefix = n - wk;
  const float* probs = nullptr;
  float* pooled = nullptr;
  void* combined = nullptr;
  if (Status s = stage.in(p.probs, std::uint64_t{p.num_q_heads} * w * n, &probs); !s.ok()) return s;
  if (Status s = stage.alloc(std::uint64_t{H} * n * 4, &combined); !s.ok()) return s;
  if (p.pooled) {
    if (Status s = stage.out(p.pooled, std::uint64_t{H} * n, &pooled); !s.ok()) return s;
  } else {
    void* tmp = nullptr;
    if (Status s = stage.alloc(std::uint64_t{H} * n * 4, &tmp); !s.ok()) return s;
    pooled = static_cast<float*>(tmp);
  }
  const unsigned grid = blocks_for(std::uint64_t{H} * n);
  if (w > 0) {
    snapkv_vote_kernel<<<grid, kThreads, 0, st>>>(H, group, n, w, probs, p.gqa,
                                                  static_cast<float*>(combined));
  } else {
    KVPLAN_CUDA_CHECK(cudaMemsetAsync(combined, 0, std::uint64_t{H} * n * 4, st));
  }
  KVPLAN_CUDA_CHECK_LAUNCH();
  snapkv_pool_kernel<<<grid, kThreads, 0, st>>>(H, n, prefix, p.kernel, p.pool,
                                                static_cast<const float*>(combined), pooled);
  KVPLAN_CUDA_CHECK_LAUNCH();
  if (n <= p.budget) {
    if (Status s = stage.finish(); !s.ok()) return s;
    KVPLAN_CUDA_CHECK(cudaStreamSynchronize(st));
    keep_all(H, n, pos, keep);
    return Status::Ok();
  }
  const std::uint32_t k = static_cast<std::uint32_t>(p.budget - wk);
  if (Status s = select_on_device(H, n, prefix, k, pooled, n, p.positions, p.positions_stride, pos,
                                  stage, st, keep);
      !s.ok())
    return s;
  return stage.finish();
}

}  // namespace kvplan::kernels
