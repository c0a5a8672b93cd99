// CUDA attention over a paged, quantized cache (attention.hpp's spec).
//
// Decode, flash-decoding style, in two kernels and a reduce. The vectorized warp kernel (below,
// "the fast path") takes every cache of the usual shapes: each warp owns a slice of the sequence
// and reads eight channels per lane with one vector load. The block kernel, the general one, takes
// the rest (caches re-rotated by position, head dims that are not 8·2^k up to 256, query groups
// above 8): grid (KV head, split, sequence), each block walks its slice in tiles of kTile tokens,
// dequantizes the tile's keys element by element into shared memory, scores every query head of
// the GQA group, updates a running max / sum per query head (online softmax), then does the same
// for the values. A reduce kernel merges the splits' partial (max, sum, output) and, when probs
// are requested, turns the raw logits the split kernels wrote into probabilities. Prefill
// dequantizes the prompt's K and V once (load_key/load_value, the CPU spec itself) and runs one
// block per (query, query head). docs/cuda.md has the figures measured on an H200.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
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
  const std::uint64_t begin64 = std::uint64_t{split} * tokens_per_split;  // see the vec kernel
  const std::uint32_t t_begin = static_cast<std::uint32_t>(min(begin64, std::uint64_t{n}));
  const std::uint32_t t_end =
      static_cast<std::uint32_t>(min(begin64 + tokens_per_split, std::uint64_t{n}));
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

// ---- decode, vectorized (the fast path) ----
//
// Each warp owns a contiguous slice of the sequence (one "split" of the reduce kernel below), so a
// block's warps never wait on each other. A token's head row is read by d/8 lanes, eight channels
// each, with one vector load per lane (16 bytes of fp16, 8 of fp8 or int8, a KIVI value record's
// code word), so a warp reads 32·8/d tokens per load instruction. Per tile of 32 tokens: each
// lane first locates one token's key and value records (the tile's block-table reads in
// parallel); the warp then scores the tile's keys (dot products over the lane's eight channels,
// summed across the row's lanes with shuffles), runs the online softmax one lane per token, and
// adds the values into per-lane accumulators. Loads of kFetchSteps steps are issued before any
// is decoded. The query group is bounded at compile time (GM) so queries and accumulators stay in
// registers; the record format of a pass is a template parameter, so loads carry no per-element
// branch. Caches re-rotated by position, head dims other than 8·2^k up to 256, groups above 8
// and KIVI groups that are not a multiple of 8 take the block kernel above. Decoding follows
// paged_kv.hpp's key_element / value_element (the tests compare with the CPU reference).

constexpr int kVecWarps = 4;

// A token's key or value record, located once per tile.
struct RowRef {
  const std::uint8_t* p;
  float scale;        // plain: the fp8 scale; int8: the record's scale
  std::uint32_t sub;  // KIVI key: the token's index in its group
};
static_assert(sizeof(RowRef) == 16, "RowRefs tile the front of shared memory in 16-byte slots");

struct VecGeom {
  std::uint32_t kq = 0, vq = 0;      // KIVI: quantized key / value tokens
  std::uint32_t gpb = 1;             // KIVI: key groups per block
  std::uint32_t ring = 1;            // KIVI: value window slots
  std::uint32_t krec = 0, vrec = 0;  // record bytes (plain / int8); KIVI: P
  std::uint32_t words = 0;           // KIVI: code words per record
};

__device__ VecGeom vec_geom(const PagedKvView& v) {
  VecGeom g;
  if (is_kivi(v)) {
    const std::uint32_t G = v.format.group, R = v.format.residual;
    g.kq = kivi_key_quant_tokens(v.num_tokens, R);
    g.vq = kivi_value_quant_tokens(v.num_tokens, R);
    g.gpb = kivi_key_block_tokens(v.block_size, G) / G;
    g.ring = kivi_window_slots(v.block_size, R);
    g.krec = g.vrec = kivi_record_bytes(G, v.format.bits);
    g.words = kivi_words(G, v.format.bits);
  } else {
    g.krec = g.vrec = slot_record_bytes(v.format, v.head_dim);
  }
  return g;
}

__device__ __forceinline__ RowRef key_row(const PagedKvView& v, const VecGeom& g, std::uint32_t h,
                                          std::uint32_t t) {
  const std::uint32_t S = v.block_size, H = v.num_kv_heads, d = v.head_dim;
  if (is_kivi(v)) {
    if (t < g.kq) {
      const std::uint32_t G = v.format.group;
      return {kivi_key_group_record(v, t / G, h, g.gpb), 0.f, t % G};
    }
    return {slot_record(v.kr_base, v.kr_table, v.kr_block_bytes, S, H, 2 * d, t - g.kq, h), 0.f, 0};
  }
  const std::uint8_t* r = slot_record(v.k_base, v.k_table, v.k_block_bytes, S, H, g.krec, t, h);
  return {r, v.format.dtype == KvDtype::int8 ? int8_record_scale(r, d) : v.k_scale, 0};
}

__device__ __forceinline__ RowRef value_row(const PagedKvView& v, const VecGeom& g, std::uint32_t h,
                                            std::uint32_t t) {
  const std::uint32_t S = v.block_size, H = v.num_kv_heads, d = v.head_dim;
  if (is_kivi(v)) {
    if (t < g.vq)
      return {slot_record(v.v_base, v.v_table, v.v_block_bytes, S, H, (d / v.format.group) * g.vrec,
                          t, h),
              0.f, 0};
    return {slot_record(v.vw_base, v.vw_table, v.vw_block_bytes, S, H, 2 * d, t % g.ring, h), 0.f,
            0};
  }
  const std::uint8_t* r = slot_record(v.v_base, v.v_table, v.v_block_bytes, S, H, g.vrec, t, h);
  return {r, v.format.dtype == KvDtype::int8 ? int8_record_scale(r, d) : v.v_scale, 0};
}

// How a pass reads its eight channels [c0, c0 + 8) of a record: plain elements of 1, 2 or 4 bytes
// (fp8 / fp16, bf16 / fp32), int8 records, KIVI quantized keys (one record per channel) or values
// (one record per G channels), and the fp16 rows of a KIVI residual or value window.
enum Mode { m_plain1, m_plain2, m_plain4, m_int8, m_kivi_key, m_kivi_value, m_half };

// Steps whose loads are in flight together: four for fp16/bf16, fp8 and int8, two where a step's
// raw bytes take more registers (KIVI, fp32) or the query group is 8 (queries and accumulators
// take 128 registers). Measured on an H200 (docs/cuda.md): more steps cost occupancy.
template <int GM, int M>
constexpr int kFetchSteps =
    GM >= 8 || M == m_kivi_key || M == m_kivi_value || M == m_half || M == m_plain4 ? 2 : 4;

struct Raw8 {  // the bytes of one lane's eight channels, before decoding
  std::uint32_t w[8];
  std::uint32_t sz;  // KIVI values: the record's scale_h | zero_h
};

template <int M>
__device__ __forceinline__ void raw_load8(const PagedKvView& v, const VecGeom& g, const RowRef& r,
                                          std::uint32_t c0, Raw8& x) {
  if constexpr (M == m_plain2 || M == m_half) {
    const uint4 a = *reinterpret_cast<const uint4*>(r.p + 2 * c0);
    x.w[0] = a.x, x.w[1] = a.y, x.w[2] = a.z, x.w[3] = a.w;
  } else if constexpr (M == m_plain1) {
    const uint2 a = *reinterpret_cast<const uint2*>(r.p + c0);
    x.w[0] = a.x, x.w[1] = a.y;
  } else if constexpr (M == m_int8) {  // records of d + 4 bytes: 4-byte aligned at best
    x.w[0] = load_u32(r.p + c0);
    x.w[1] = load_u32(r.p + c0 + 4);
  } else if constexpr (M == m_plain4) {
    const uint4 a = *reinterpret_cast<const uint4*>(r.p + 4 * c0);
    const uint4 b = *reinterpret_cast<const uint4*>(r.p + 4 * c0 + 16);
    x.w[0] = a.x, x.w[1] = a.y, x.w[2] = a.z, x.w[3] = a.w;
    x.w[4] = b.x, x.w[5] = b.y, x.w[6] = b.z, x.w[7] = b.w;
  } else {  // m_kivi_value: the eight codes sit in one record, in one word (two for 8 bits)
    const std::uint32_t G = v.format.group, bits = v.format.bits, per_word = 32 / bits;
    const std::uint8_t* rec = r.p + (c0 / G) * g.vrec;
    const std::uint32_t j = c0 % G;
    x.w[0] = load_u32(rec + 4 * (j / per_word));
    if (bits == 8) x.w[1] = load_u32(rec + 4 * (j / per_word) + 4);
    x.sz = load_u32(rec + 4 * g.words);
  }
}

// fp16 -> float with the hardware's conversion (one instruction; the widening is exact, so it
// equals half_to_float on every value but NaN payloads, which attention does not keep anyway).
__device__ __forceinline__ float h2f(std::uint32_t bits16) {
  return __half2float(__ushort_as_half(static_cast<unsigned short>(bits16 & 0xFFFFu)));
}

__device__ __forceinline__ float kivi_value_of(std::uint32_t code, std::uint32_t sz) {
  return static_cast<float>(code) * h2f(sz) + h2f(sz >> 16);
}

template <int M>
__device__ __forceinline__ void decode8(const PagedKvView& v, const RowRef& r, std::uint32_t c0,
                                        const Raw8& x, const float* fp8_lut, float out[8]) {
  if constexpr (M == m_plain2 || M == m_half) {
    if (M == m_plain2 && v.format.dtype == KvDtype::bf16) {
#pragma unroll
      for (int i = 0; i < 8; ++i)
        out[i] = bits_float(i % 2 ? x.w[i / 2] & 0xFFFF0000u : x.w[i / 2] << 16);
    } else {
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const float2 f = __half22float2(*reinterpret_cast<const __half2*>(&x.w[i]));
        out[2 * i] = f.x;
        out[2 * i + 1] = f.y;
      }
    }
  } else if constexpr (M == m_plain1) {
#pragma unroll
    for (int i = 0; i < 8; ++i) out[i] = fp8_lut[(x.w[i / 4] >> (8 * (i % 4))) & 0xFFu] * r.scale;
  } else if constexpr (M == m_int8) {
#pragma unroll
    for (int i = 0; i < 8; ++i)
      out[i] = static_cast<float>(static_cast<std::int8_t>((x.w[i / 4] >> (8 * (i % 4))) & 0xFFu)) *
               r.scale;
  } else if constexpr (M == m_plain4) {
#pragma unroll
    for (int i = 0; i < 8; ++i) out[i] = bits_float(x.w[i]);
  } else {
    const std::uint32_t bits = v.format.bits, per_word = 32 / bits, mask = (1u << bits) - 1u;
    const std::uint32_t j0 = c0 % v.format.group;
    // j0 is a multiple of 8: the eight codes share a word, except at 8 bits (four per word).
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const std::uint32_t word = bits == 8 && i >= 4 ? x.w[1] : x.w[0];
      out[i] = kivi_value_of((word >> (((j0 + i) % per_word) * bits)) & mask, x.sz);
    }
  }
}

__device__ __forceinline__ float warp_max(float x) {
  for (int o = 16; o > 0; o /= 2) x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, o));
  return x;
}
__device__ __forceinline__ float warp_sum(float x) {
  for (int o = 16; o > 0; o /= 2) x += __shfl_xor_sync(0xffffffffu, x, o);
  return x;
}

// The lane's place: a token's row is read by lpt = d/8 lanes; lane = slot·lpt + part, so a step
// reads 32/lpt tokens (slot) and the lane's channels are [8·part, 8·part + 8).
struct Lanes {
  std::uint32_t lpt, per_step, slot, c0;
  std::uint32_t group;  // query heads per KV head (<= GM)
};

// One step's scores: each lane's eight-channel dot product with every query of the group, summed
// over the lpt lanes of its token (every lane takes part in the shuffles, with zeros where it has
// no token), stored by the token's first lane.
template <int GM>
__device__ __forceinline__ void score_row(const float (&q)[GM][8], const float (&kv)[8], bool ok,
                                          std::uint32_t u, const Lanes& ln, std::uint32_t group,
                                          float scale, float* sc) {
#pragma unroll
  for (int gg = 0; gg < GM; ++gg) {
    float a = 0.f;
#pragma unroll
    for (int i = 0; i < 8; ++i) a += q[gg][i] * kv[i];
    for (std::uint32_t o = ln.lpt / 2; o > 0; o /= 2) a += __shfl_xor_sync(0xffffffffu, a, o);
    if (ok && ln.c0 == 0 && gg < static_cast<int>(group)) sc[u * GM + gg] = a * scale;
  }
}

// Walks tile tokens [u0, u1), all read in mode M, kFetchSteps steps at a time: the steps' raw
// loads first, then each step decoded and handed to visit(u, ok, x) by every lane (ok: the lane
// has token u this step; x is zeros where it has not), so visitors may shuffle across the warp.
template <int M, int GM, class Visit>
__device__ __forceinline__ void walk_tile(const PagedKvView& v, const VecGeom& g, const Lanes& ln,
                                          const RowRef* rows, std::uint32_t u0, std::uint32_t u1,
                                          const float* lut, Visit&& visit) {
  const std::uint32_t first = u0 / ln.per_step, last = (u1 + ln.per_step - 1) / ln.per_step;
  for (std::uint32_t s0 = first; s0 < last; s0 += kFetchSteps<GM, M>) {
    Raw8 raw[kFetchSteps<GM, M>];
#pragma unroll
    for (int k = 0; k < kFetchSteps<GM, M>; ++k) {
      const std::uint32_t u = (s0 + k) * ln.per_step + ln.slot;
      if (u >= u0 && u < u1) raw_load8<M>(v, g, rows[u], ln.c0, raw[k]);
    }
#pragma unroll
    for (int k = 0; k < kFetchSteps<GM, M>; ++k) {
      if (s0 + k >= last) break;  // uniform across the warp
      const std::uint32_t u = (s0 + k) * ln.per_step + ln.slot;
      const bool ok = u >= u0 && u < u1;
      float x[8] = {};
      if (ok) decode8<M>(v, rows[u], ln.c0, raw[k], lut, x);
      visit(u, ok, x);
    }
  }
}

// Scores of tile tokens [u0, u1) (all read in mode M) into sc[u·GM + g] (raw, scaled).
template <int M, int GM>
__device__ __forceinline__ void score_pass(const PagedKvView& v, const VecGeom& g, const Lanes& ln,
                                           const RowRef* rows, std::uint32_t u0, std::uint32_t u1,
                                           const float (&q)[GM][8], std::uint32_t group,
                                           float scale, const float* lut, float* sc) {
  walk_tile<M, GM>(v, g, ln, rows, u0, u1, lut, [&](std::uint32_t u, bool ok, const float(&kv)[8]) {
    score_row<GM>(q, kv, ok, u, ln, group, scale, sc);
  });
}

// Values of tile tokens [u0, u1) (mode M), weighted by pr[u·GM + g], into acc.
template <int M, int GM>
__device__ __forceinline__ void value_pass(const PagedKvView& v, const VecGeom& g, const Lanes& ln,
                                           const RowRef* rows, std::uint32_t u0, std::uint32_t u1,
                                           const float* pr, const float* lut, float (&acc)[GM][8]) {
  walk_tile<M, GM>(v, g, ln, rows, u0, u1, lut, [&](std::uint32_t u, bool ok, const float(&x)[8]) {
    if (!ok) return;
#pragma unroll
    for (int gg = 0; gg < GM; ++gg) {
      if (gg >= static_cast<int>(ln.group)) break;
      const float w = pr[u * GM + gg];
#pragma unroll
      for (int i = 0; i < 8; ++i) acc[gg][i] += w * x[i];
    }
  });
}

// KIVI keys: a record holds one channel's codes for G tokens, so a lane's eight records serve
// every token of the group. Their scales and zeros are decoded when the group changes and their
// code words when the word changes (every 32/bits tokens), not once per token.
template <int GM>
__device__ __forceinline__ void score_pass_kivi_key(const PagedKvView& v, const VecGeom& g,
                                                    const Lanes& ln, const RowRef* rows,
                                                    std::uint32_t u0, std::uint32_t u1,
                                                    const float (&q)[GM][8], std::uint32_t group,
                                                    float scale, float* sc) {
  const std::uint32_t bits = v.format.bits, per_word = 32 / bits, mask = (1u << bits) - 1u;
  const std::uint32_t first = u0 / ln.per_step, last = (u1 + ln.per_step - 1) / ln.per_step;
  const std::uint8_t* group_p = nullptr;
  std::uint32_t word_at = ~0u;
  float sc8[8], ze8[8];
  std::uint32_t w8[8];
  for (std::uint32_t st = first; st < last; ++st) {
    const std::uint32_t u = st * ln.per_step + ln.slot;
    const bool ok = u >= u0 && u < u1;
    float kv[8] = {};  // zeros where the lane has no token this step
    if (ok) {
      const RowRef r = rows[u];
      const std::uint8_t* base = r.p + std::uint64_t{ln.c0} * g.krec;
      if (r.p != group_p) {
#pragma unroll
        for (int i = 0; i < 8; ++i) {
          const std::uint32_t sz =
              load_u32(base + static_cast<std::uint64_t>(i) * g.krec + 4 * g.words);
          sc8[i] = h2f(sz);
          ze8[i] = h2f(sz >> 16);
        }
        group_p = r.p;
        word_at = ~0u;
      }
      if (r.sub / per_word != word_at) {
        word_at = r.sub / per_word;
#pragma unroll
        for (int i = 0; i < 8; ++i)
          w8[i] = load_u32(base + static_cast<std::uint64_t>(i) * g.krec + 4 * word_at);
      }
      const std::uint32_t shift = (r.sub % per_word) * bits;
#pragma unroll
      for (int i = 0; i < 8; ++i)
        kv[i] = static_cast<float>((w8[i] >> shift) & mask) * sc8[i] + ze8[i];
    }
    score_row<GM>(q, kv, ok, u, ln, group, scale, sc);
  }
}

// One pass over tile tokens [u0, u1) in `mode`; a kernel compiles the modes of its family only
// (Kivi: KIVI records and fp16 rows; else plain and int8), which keeps its register count down.
template <int GM, bool Kivi>
__device__ __forceinline__ void score_tile(int mode, const PagedKvView& v, const VecGeom& g,
                                           const Lanes& ln, const RowRef* rows, std::uint32_t u0,
                                           std::uint32_t u1, const float (&q)[GM][8],
                                           std::uint32_t group, float scale, const float* lut,
                                           float* sc) {
  if constexpr (Kivi) {
    if (mode == m_kivi_key)
      score_pass_kivi_key<GM>(v, g, ln, rows, u0, u1, q, group, scale, sc);
    else
      score_pass<m_half, GM>(v, g, ln, rows, u0, u1, q, group, scale, lut, sc);
  } else {
    switch (mode) {
      case m_plain1:
        score_pass<m_plain1, GM>(v, g, ln, rows, u0, u1, q, group, scale, lut, sc);
        break;
      case m_plain2:
        score_pass<m_plain2, GM>(v, g, ln, rows, u0, u1, q, group, scale, lut, sc);
        break;
      case m_plain4:
        score_pass<m_plain4, GM>(v, g, ln, rows, u0, u1, q, group, scale, lut, sc);
        break;
      default:
        score_pass<m_int8, GM>(v, g, ln, rows, u0, u1, q, group, scale, lut, sc);
    }
  }
}

template <int GM, bool Kivi>
__device__ __forceinline__ void value_tile(int mode, const PagedKvView& v, const VecGeom& g,
                                           const Lanes& ln, const RowRef* rows, std::uint32_t u0,
                                           std::uint32_t u1, const float* pr, const float* lut,
                                           float (&acc)[GM][8]) {
  if constexpr (Kivi) {
    if (mode == m_kivi_value)
      value_pass<m_kivi_value, GM>(v, g, ln, rows, u0, u1, pr, lut, acc);
    else
      value_pass<m_half, GM>(v, g, ln, rows, u0, u1, pr, lut, acc);
  } else {
    switch (mode) {
      case m_plain1:
        value_pass<m_plain1, GM>(v, g, ln, rows, u0, u1, pr, lut, acc);
        break;
      case m_plain2:
        value_pass<m_plain2, GM>(v, g, ln, rows, u0, u1, pr, lut, acc);
        break;
      case m_plain4:
        value_pass<m_plain4, GM>(v, g, ln, rows, u0, u1, pr, lut, acc);
        break;
      default:
        value_pass<m_int8, GM>(v, g, ln, rows, u0, u1, pr, lut, acc);
    }
  }
}

// Shared memory of the vectorized kernel, in floats: RowRefs (keys and values, 32 each per warp),
// the fp8 table, then per warp the tile's scores / weights [32, GM].
__host__ __device__ constexpr std::uint64_t vec_smem_floats(std::uint64_t gm) {
  return kVecWarps * 2 * 32 * (sizeof(RowRef) / 4) + 256 + kVecWarps * 32 * gm;
}

// Whether the vectorized kernel takes this call.
bool vec_supported(const DecodeAttentionParams& p) {
  const PagedKvView& v = p.kv;
  const std::uint32_t d = v.head_dim, group = p.num_q_heads / v.num_kv_heads;
  if (rerotate(p.positions, p.rope) || group > 8 || d % 8 != 0 || d > 256) return false;
  if (((d / 8) & (d / 8 - 1)) != 0) return false;  // lanes per row: a power of two
  if (is_kivi(v) && v.format.group % 8 != 0) return false;
  // Vector loads need 16-byte aligned rows: arenas and blocks aligned (cudaMalloc gives 256).
  const auto aligned = [](const void* b, std::uint64_t block_bytes) {
    return reinterpret_cast<std::uintptr_t>(b) % 16 == 0 && block_bytes % 16 == 0;
  };
  if (is_kivi(v))
    return aligned(v.kr_base, v.kr_block_bytes) && aligned(v.vw_base, v.vw_block_bytes);
  if (v.format.dtype == KvDtype::int8) return true;  // read with 4-byte loads
  return aligned(v.k_base, v.k_block_bytes) && aligned(v.v_base, v.v_block_bytes);
}

// grid (KV head, block split, sequence), kVecWarps warps; warp w of block split b is split
// b·kVecWarps + w of `splits`, tokens [split·tokens_per_split, +tokens_per_split).
// At least four blocks (16 warps) per SM for groups up to 4: 128 registers a thread. Measured on
// an H200 against three and five blocks, four was the fastest (docs/cuda.md).
template <int GM, bool Kivi>
__global__ void __launch_bounds__(kVecWarps * 32, GM >= 8 ? 2 : 4)
    decode_attention_vec_kernel(const DecodeBatch batch, std::uint32_t tokens_per_split,
                                std::uint32_t splits, std::uint32_t max_hq, std::uint32_t dmax,
                                float* __restrict__ part_o, float* __restrict__ part_ml) {
  const DecodeAttentionParams& p = batch.p[blockIdx.z];
  const PagedKvView& v = p.kv;
  const std::uint32_t h = blockIdx.x;
  if (h >= v.num_kv_heads) return;
  const std::uint32_t d = v.head_dim, n = v.num_tokens, group = p.num_q_heads / v.num_kv_heads;
  const std::uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::uint32_t split = blockIdx.y * kVecWarps + warp;
  extern __shared__ float4 smem4[];  // 16-byte aligned: the RowRefs come first
  RowRef* krows = reinterpret_cast<RowRef*>(smem4) + warp * 64;  // [32] this warp's keys
  RowRef* vrows = krows + 32;                                    // [32] and values
  float* lut = reinterpret_cast<float*>(smem4) + kVecWarps * 2 * 32 * (sizeof(RowRef) / 4);
  float* pr = lut + 256 + warp * 32 * GM;  // [32, GM]: scores, then softmax weights
  if (v.format.dtype == KvDtype::fp8_e4m3 || v.format.dtype == KvDtype::fp8_e5m2) {
    const Fp8Kind kind = v.format.dtype == KvDtype::fp8_e4m3 ? Fp8Kind::e4m3 : Fp8Kind::e5m2;
    for (std::uint32_t i = threadIdx.x; i < 256; i += blockDim.x)
      lut[i] = fp8_decode(static_cast<std::uint8_t>(i), kind);
  }
  __syncthreads();

  const Lanes ln{d / 8, 32 / (d / 8), lane / (d / 8), 8 * (lane % (d / 8)), group};
  float q[GM][8], acc[GM][8], m[GM], l[GM];
#pragma unroll
  for (int g = 0; g < GM; ++g) {
    m[g] = -INFINITY;
    l[g] = 0.f;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      q[g][i] =
          g < static_cast<int>(group) ? p.q[(std::uint64_t{h} * group + g) * d + ln.c0 + i] : 0.f;
      acc[g][i] = 0.f;
    }
  }
  const VecGeom geom = vec_geom(v);
  const float scale = effective_scale(p.scale, d);
  // In 64 bits: split · tokens_per_split may pass 2^32 for the last splits of a long sequence.
  const std::uint64_t begin64 = std::uint64_t{split} * tokens_per_split;
  const std::uint32_t t_begin = static_cast<std::uint32_t>(min(begin64, std::uint64_t{n}));
  const std::uint32_t t_end =
      static_cast<std::uint32_t>(min(begin64 + tokens_per_split, std::uint64_t{n}));
  for (std::uint32_t t0 = t_begin; t0 < t_end; t0 += 32) {
    const std::uint32_t cnt = min(32u, t_end - t0);
    if (lane < cnt) {
      krows[lane] = key_row(v, geom, h, t0 + lane);
      vrows[lane] = value_row(v, geom, h, t0 + lane);
    }
    __syncwarp();
    // A KIVI tile that straddles the quantized / fp16 boundary is read in two passes.
    int kmode, vmode;
    std::uint32_t ksplit = cnt, vsplit = cnt;  // tokens [0, split) in the first mode, then fp16
    if constexpr (Kivi) {
      kmode = m_kivi_key;
      vmode = m_kivi_value;
      ksplit = geom.kq > t0 ? min(cnt, geom.kq - t0) : 0;
      vsplit = geom.vq > t0 ? min(cnt, geom.vq - t0) : 0;
    } else {
      const std::uint32_t eb = plain_element_bytes(v.format.dtype);
      kmode = v.format.dtype == KvDtype::int8 ? m_int8
              : eb == 1                       ? m_plain1
              : eb == 2                       ? m_plain2
                                              : m_plain4;
      vmode = kmode;
    }
    if (ksplit > 0)
      score_tile<GM, Kivi>(kmode, v, geom, ln, krows, 0, ksplit, q, group, scale, lut, pr);
    if constexpr (Kivi)
      if (ksplit < cnt)
        score_tile<GM, Kivi>(m_half, v, geom, ln, krows, ksplit, cnt, q, group, scale, lut, pr);
    __syncwarp();
    // Online softmax, one lane per token.
#pragma unroll
    for (int g = 0; g < GM; ++g) {
      if (g >= static_cast<int>(group)) break;
      const float s = lane < cnt ? pr[lane * GM + g] : -INFINITY;
      if (p.probs && lane < cnt) p.probs[std::uint64_t{h * group + g} * n + t0 + lane] = s;
      const float mx = fmaxf(m[g], warp_max(s));
      const float alpha = m[g] == -INFINITY ? 0.f : expf(m[g] - mx);
      const float e = lane < cnt ? expf(s - mx) : 0.f;
      m[g] = mx;
      l[g] = l[g] * alpha + e;  // per lane; summed over the warp at the end
#pragma unroll
      for (int i = 0; i < 8; ++i) acc[g][i] *= alpha;
      pr[lane * GM + g] = e;
    }
    __syncwarp();
    if (vsplit > 0) value_tile<GM, Kivi>(vmode, v, geom, ln, vrows, 0, vsplit, pr, lut, acc);
    if constexpr (Kivi)
      if (vsplit < cnt) value_tile<GM, Kivi>(m_half, v, geom, ln, vrows, vsplit, cnt, pr, lut, acc);
    __syncwarp();
  }
  // The lanes that share channels (one per token slot) hold partial sums: add them up.
  const std::uint64_t base = (std::uint64_t{blockIdx.z} * max_hq + h * group) * splits + split;
#pragma unroll
  for (int g = 0; g < GM; ++g) {
    if (g >= static_cast<int>(group)) break;
    const float lsum = warp_sum(l[g]);
#pragma unroll
    for (int i = 0; i < 8; ++i)
      for (std::uint32_t o = ln.lpt; o < 32; o *= 2)
        acc[g][i] += __shfl_xor_sync(0xffffffffu, acc[g][i], o);
    const std::uint64_t at = base + static_cast<std::uint64_t>(g) * splits;
    if (ln.slot == 0)
#pragma unroll
      for (int i = 0; i < 8; ++i) part_o[at * dmax + ln.c0 + i] = acc[g][i];
    if (lane == 0) {
      part_ml[2 * at] = m[g];
      part_ml[2 * at + 1] = lsum;
    }
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

// Split-K around a split kernel: the per-stream workspace (partial outputs [parts, dmax], then a
// (max, sum) pair per part), the split kernel launched by `split`, then the reduce kernel.
template <class Split>
Status run_split_k(const DecodeBatch& batch, std::uint32_t count, std::uint32_t splits,
                   std::uint32_t max_hq, std::uint32_t dmax, cudaStream_t st, Split&& split) {
  const std::uint64_t parts = std::uint64_t{count} * max_hq * splits;
  void* ws = nullptr;
  if (Status s = cuda_detail::workspace(st, parts * (dmax + 2ull) * 4, &ws); !s.ok()) return s;
  float* part_o = static_cast<float*>(ws);
  float* part_ml = part_o + parts * dmax;
  split(part_o, part_ml);
  KVPLAN_CUDA_CHECK_LAUNCH();
  decode_attention_reduce_kernel<<<dim3(max_hq, count), 128, 0, st>>>(batch, splits, max_hq, dmax,
                                                                      part_o, part_ml);
  KVPLAN_CUDA_CHECK_LAUNCH();
  return Status::Ok();
}

// The vectorized kernel's launch: enough warp splits for about four waves of resident blocks
// (the occupancy its registers allow), at least two tiles per warp, then the reduce kernel.
template <int GM, bool Kivi>
Status launch_decode_vec(const DecodeBatch& batch, std::uint32_t count, std::uint32_t max_h,
                         std::uint32_t max_hq, std::uint32_t max_n, std::uint32_t dmax,
                         cudaStream_t st) {
  const std::uint64_t smem = 4ull * vec_smem_floats(GM);
  // Blocks per SM, asked once per device (the launch configuration does not change). Threads
  // may launch at once: each slot is atomic, and two that both ask store the same answer.
  static std::atomic<int> occupancy[64] = {};
  int dev = 0;
  KVPLAN_CUDA_CHECK(cudaGetDevice(&dev));
  int per_sm = dev < 64 ? occupancy[dev].load(std::memory_order_relaxed) : 0;
  if (per_sm == 0) {
    KVPLAN_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, decode_attention_vec_kernel<GM, Kivi>, kVecWarps * 32, smem));
    if (dev < 64) occupancy[dev].store(per_sm, std::memory_order_relaxed);
  }
  const std::uint64_t blocks_wanted =
      4ull * std::max(1, per_sm) * static_cast<std::uint64_t>(cuda_detail::sm_count());
  const std::uint64_t per_seq =
      std::max<std::uint64_t>(1, ceil_div(blocks_wanted, std::uint64_t{max_h} * count));
  const std::uint64_t max_blocks = std::max<std::uint64_t>(1, ceil_div(max_n, kVecWarps * 64ull));
  const std::uint32_t blocks = static_cast<std::uint32_t>(std::min(per_seq, max_blocks));
  const std::uint32_t splits = blocks * kVecWarps;
  const std::uint32_t tps = static_cast<std::uint32_t>(ceil_div(ceil_div(max_n, splits), 32) * 32);
  return run_split_k(batch, count, splits, max_hq, dmax, st, [&](float* part_o, float* part_ml) {
    decode_attention_vec_kernel<GM, Kivi><<<dim3(max_h, blocks, count), kVecWarps * 32, smem, st>>>(
        batch, tps, splits, max_hq, dmax, part_o, part_ml);
  });
}

Status launch_decode(const DecodeAttentionParams* params, std::uint32_t count, cudaStream_t st) {
  DecodeBatch batch{};
  std::uint32_t max_h = 0, max_hq = 0, max_n = 0, dmax = 0, max_group = 0;
  bool vector_path = true;
  for (std::uint32_t i = 0; i < count; ++i) {
    const DecodeAttentionParams& p = params[i];
    batch.p[i] = p;
    max_h = std::max(max_h, p.kv.num_kv_heads);
    max_hq = std::max(max_hq, p.num_q_heads);
    max_n = std::max(max_n, p.kv.num_tokens);
    dmax = std::max(dmax, p.kv.head_dim);
    max_group = std::max(max_group, p.num_q_heads / p.kv.num_kv_heads);
    vector_path = vector_path && vec_supported(p) && is_kivi(p.kv) == is_kivi(params[0].kv);
  }
  if (vector_path) {
    const std::uint32_t gm = max_group <= 1 ? 1 : max_group <= 2 ? 2 : max_group <= 4 ? 4 : 8;
    const bool kivi = is_kivi(params[0].kv);
#define KVPLAN_VEC(GM)                                                                    \
  return kivi ? launch_decode_vec<GM, true>(batch, count, max_h, max_hq, max_n, dmax, st) \
              : launch_decode_vec<GM, false>(batch, count, max_h, max_hq, max_n, dmax, st);
    switch (gm) {
      case 1:
        KVPLAN_VEC(1)
      case 2:
        KVPLAN_VEC(2)
      case 4:
        KVPLAN_VEC(4)
      default:
        KVPLAN_VEC(8)
    }
#undef KVPLAN_VEC
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
  if (smem > 48 * 1024)
    KVPLAN_CUDA_CHECK(cudaFuncSetAttribute(decode_attention_split_kernel,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(smem)));
  return run_split_k(batch, count, splits, max_hq, dmax, st, [&](float* part_o, float* part_ml) {
    decode_attention_split_kernel<<<dim3(max_h, splits, count), kThreads, smem, st>>>(
        batch, tps, splits, max_hq, dmax, part_o, part_ml);
  });
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
