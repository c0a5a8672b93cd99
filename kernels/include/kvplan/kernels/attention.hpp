// Attention over a paged, possibly quantized KV cache: decode (one query per head) and prefill
// (many queries, causal), with GQA, dequantization on the fly, a numerically stable softmax and,
// on request, the attention probabilities per retained token (H2O and SnapKV score with them).
//
// GQA: query head h reads KV head h / (num_q_heads / num_kv_heads).
// Scale: `scale`, or 1/sqrt(head_dim) when scale is 0.
// Softmax: p_t = exp(s_t - max_s) / sum exp(s - max_s), accumulated in float (cpu) or double
// (cpu_ref dot products and sums).
// RoPE and positions: keys sit in the cache after RoPE at their original positions. With
// PositionMode::original they are used as stored. With PositionMode::cache the key in slot i is
// rotated, when read, by (i - original_position): RoPE rotations compose, so it reads as if
// rotated at its cache position i (Hugging Face SinkCache re-rotates the same way). The caller
// rotates the query itself: at its original position (original) or at cache position
// num_tokens - 1 for decode (cache).
//
//   DecodeAttentionParams p{.kv = pool.view(seq, layer), .num_q_heads = 32, .q = q /*[32, d]*/,
//                           .out = out /*[32, d]*/, .probs = probs /*[32, n] or nullptr*/};
//   Status s = decode_attention(p, Backend::cpu);
#pragma once

#include <cstdint>

#include "kvplan/kernels/common.hpp"
#include "kvplan/kernels/paged_kv.hpp"
#include "kvplan/policy.hpp"

namespace kvplan::kernels {

enum class RopeStyle {
  none,         // no rotary embedding (positions=cache is then a no-op)
  interleaved,  // pairs (2i, 2i+1), as llama2.c
  half,         // pairs (i, i + dims/2), as Hugging Face Llama
};

// Llama-3 frequency scaling (Hugging Face rope_scaling with rope_type "llama3", Llama 3.1+):
// wavelengths 2π/f longer than original/low_freq_factor are slowed by `factor`, those shorter
// than original/high_freq_factor are kept, and a linear ramp in original/wavelength joins them.
// factor 0 means no scaling.
struct RopeLlama3 {
  double factor = 0;
  double low_freq_factor = 1, high_freq_factor = 4;
  std::uint32_t original_max_position_embeddings = 0;  // tokens
};

struct RopeParams {
  RopeStyle style = RopeStyle::none;
  float theta = 10000.f;
  std::uint32_t dims = 0;  // rotated dims from the start of the head (even); 0 = head_dim
  RopeLlama3 llama3{};     // frequency scaling; factor 0 = none
};

// The llama3-scaled inverse frequency of one RoPE pair whose unscaled frequency is `inv_freq`,
// computed in T (float for the replay's llama2.c-style RoPE, double for re-rotation), in the
// order of transformers' _compute_llama3_parameters (src/transformers/modeling_rope_utils.py,
// commit 0044e3b3). Llama 3.1 (factor 8, low 1, high 4, original 8192): f = 1 (wavelength 2π)
// stays 1; f = 500000^(-126/128) (wavelength 2.05e7 > 8192) becomes f / 8; f = 0.00213112
// (wavelength 2948.3, between 2048 and 8192): s = (8192 / 2948.3 - 1) / 3 = 0.592849,
// (1 - s)·f/8 + s·f = 0.00137189.
template <typename T>
KVPLAN_HOST_DEVICE T rope_scaled_inv_freq(T inv_freq, const RopeLlama3& s) {
  if (s.factor == 0) return inv_freq;
  const T factor = static_cast<T>(s.factor), low = static_cast<T>(s.low_freq_factor);
  const T high = static_cast<T>(s.high_freq_factor);
  const T old_len = static_cast<T>(s.original_max_position_embeddings);
  const T wavelen = static_cast<T>(2 * 3.14159265358979323846) / inv_freq;
  if (wavelen > old_len / low) return inv_freq / factor;
  if (wavelen < old_len / high) return inv_freq;
  const T smooth = (old_len / wavelen - low) / (high - low);
  return (static_cast<T>(1) - smooth) * inv_freq / factor + smooth * inv_freq;
}

// The softmax scale: `scale`, or 1/sqrt(d) when 0.
KVPLAN_HOST_DEVICE float effective_scale(float scale, std::uint32_t d) {
  return scale != 0.f ? scale : static_cast<float>(1.0 / std::sqrt(static_cast<double>(d)));
}
// Whether cached keys are re-rotated to their slot (positions=cache with RoPE).
KVPLAN_HOST_DEVICE bool rerotate(PositionMode m, const RopeParams& r) {
  return m == PositionMode::cache && r.style != RopeStyle::none;
}

// Rotates x[0..d) in place by `position` (may be negative): pair i (i < dims/2) turns by
// position · f_i radians, f_i = rope_scaled_inv_freq(theta^(-2i/dims), r.llama3). Frequencies,
// angles and sin/cos in double, result rounded to float.
KVPLAN_HOST_DEVICE void rope_rotate(float* x, std::uint32_t d, const RopeParams& r,
                                    double position) {
  if (r.style == RopeStyle::none) return;
  const std::uint32_t dims = r.dims ? r.dims : d;
  const std::uint32_t half = dims / 2;
  for (std::uint32_t i = 0; i < half; ++i) {
    const double freq =
        rope_scaled_inv_freq(std::pow(static_cast<double>(r.theta), -2.0 * i / dims), r.llama3);
    const double a = position * freq, c = std::cos(a), s = std::sin(a);
    const std::uint32_t i0 = r.style == RopeStyle::interleaved ? 2 * i : i;
    const std::uint32_t i1 = r.style == RopeStyle::interleaved ? 2 * i + 1 : i + half;
    const double x0 = x[i0], x1 = x[i1];
    x[i0] = static_cast<float>(x0 * c - x1 * s);
    x[i1] = static_cast<float>(x0 * s + x1 * c);
  }
}
// Rotates every head of x [heads, d].
void rope_apply(float* x, std::uint32_t heads, std::uint32_t d, const RopeParams& r,
                double position);

struct DecodeAttentionParams {
  PagedKvView kv{};               // n = kv.num_tokens retained tokens, n >= 1
  std::uint32_t num_q_heads = 0;  // a multiple of kv.num_kv_heads
  const float* q = nullptr;       // [num_q_heads, head_dim], RoPE applied by the caller
  float* out = nullptr;           // [num_q_heads, head_dim]
  float* probs = nullptr;         // optional [num_q_heads, n]: softmax over the retained slots
  float scale = 0.f;              // 0 -> 1/sqrt(head_dim)
  RopeParams rope{};              // used by PositionMode::cache
  PositionMode positions = PositionMode::original;
};

struct PrefillAttentionParams {
  PagedKvView kv{};  // keys/values of the prompt (slots 0..n-1)
  std::uint32_t num_q_heads = 0;
  std::uint32_t num_queries = 0;              // T_q
  const float* q = nullptr;                   // [T_q, num_q_heads, head_dim], RoPE applied
  const std::int32_t* q_positions = nullptr;  // [T_q]; slot t is visible to query i iff
                                              // kv position of t <= q_positions[i] (causal)
  float* out = nullptr;                       // optional [T_q, num_q_heads, head_dim]
  float* probs = nullptr;  // optional [num_q_heads, T_q, n]; masked entries are 0
  float scale = 0.f;
  RopeParams rope{};
  PositionMode positions = PositionMode::original;
};

Status validate(const DecodeAttentionParams& p);
Status validate(const PrefillAttentionParams& p);

Status decode_attention_ref(const DecodeAttentionParams& p);  // naive spec, double accumulation
Status decode_attention_cpu(const DecodeAttentionParams& p);  // tiled, group-wise dequantization
Status decode_attention(const DecodeAttentionParams& p, Backend b = Backend::cpu);

Status prefill_attention_ref(const PrefillAttentionParams& p);
Status prefill_attention(const PrefillAttentionParams& p, Backend b = Backend::cpu);

}  // namespace kvplan::kernels
