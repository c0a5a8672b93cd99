#include "kvplan/kernels/attention.hpp"

#ifdef KVPLAN_HAVE_CUDA
#include "kvplan/kernels/cuda.hpp"
#endif

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace kvplan::kernels {
void rope_apply(float* x, std::uint32_t heads, std::uint32_t d, const RopeParams& r,
                double position) {
  for (std::uint32_t h = 0; h < heads; ++h) rope_rotate(x + std::uint64_t{h} * d, d, r, position);
}

Status decode_attention_ref(const DecodeAttentionParams& p) {
  if (Status s = validate(p); !s.ok()) return s;
  const PagedKvView& kv = p.kv;
  const std::uint32_t d = kv.head_dim, n = kv.num_tokens, group = p.num_q_heads / kv.num_kv_heads;
  const double scale = effective_scale(p.scale, d);
  std::vector<float> key(d), val(d);
  std::vector<double> logits(n), acc(d);
  for (std::uint32_t hq = 0; hq < p.num_q_heads; ++hq) {
    const std::uint32_t h = hq / group;
    const float* q = p.q + std::uint64_t{hq} * d;
    double mx = -INFINITY;
    for (std::uint32_t t = 0; t < n; ++t) {
      load_key(kv, h, t, key.data());
      if (rerotate(p.positions, p.rope))
        rope_rotate(
            key.data(), d, p.rope,
            static_cast<double>(t) - kv.positions[std::uint64_t{h} * kv.positions_stride + t]);
      double s = 0;
      for (std::uint32_t c = 0; c < d; ++c) s += static_cast<double>(q[c]) * key[c];
      logits[t] = s * scale;
      mx = std::max(mx, logits[t]);
    }
    double sum = 0;
    for (std::uint32_t t = 0; t < n; ++t) sum += (logits[t] = std::exp(logits[t] - mx));
    std::fill(acc.begin(), acc.end(), 0.0);
    for (std::uint32_t t = 0; t < n; ++t) {
      const double pr = logits[t] / sum;
      if (p.probs) p.probs[std::uint64_t{hq} * n + t] = static_cast<float>(pr);
      load_value(kv, h, t, val.data());
      for (std::uint32_t c = 0; c < d; ++c) acc[c] += pr * val[c];
    }
    for (std::uint32_t c = 0; c < d; ++c)
      p.out[std::uint64_t{hq} * d + c] = static_cast<float>(acc[c]);
  }
  return Status::Ok();
}

Status decode_attention(const DecodeAttentionParams& p, Backend b) {
  switch (b) {
    case Backend::cpu_ref:
      return decode_attention_ref(p);
    case Backend::cpu:
      return decode_attention_cpu(p);
    case Backend::cuda:
#ifdef KVPLAN_HAVE_CUDA
      return decode_attention_cuda(p);
#else
      return Status::Unimplemented("decode_attention: CUDA backend not built");
#endif
  }
  return Status::Invalid("decode_attention: unknown backend");
}

Status prefill_attention_ref(const PrefillAttentionParams& p) {
  if (Status s = validate(p); !s.ok()) return s;
  const PagedKvView& kv = p.kv;
  const std::uint32_t d = kv.head_dim, n = kv.num_tokens, group = p.num_q_heads / kv.num_kv_heads;
  const double scale = effective_scale(p.scale, d);
  // Dequantize (and re-rotate) each head's keys and values once.
  std::vector<float> keys(std::uint64_t{n} * d), vals(std::uint64_t{n} * d);
  std::vector<double> logits(n), acc(d);
  for (std::uint32_t h = 0; h < kv.num_kv_heads; ++h) {
    const std::int32_t* pos = kv.positions + std::uint64_t{h} * kv.positions_stride;
    for (std::uint32_t t = 0; t < n; ++t) {
      load_key(kv, h, t, keys.data() + std::uint64_t{t} * d);
      load_value(kv, h, t, vals.data() + std::uint64_t{t} * d);
      if (rerotate(p.positions, p.rope))
        rope_rotate(keys.data() + std::uint64_t{t} * d, d, p.rope, static_cast<double>(t) - pos[t]);
    }
    for (std::uint32_t g = 0; g < group; ++g) {
      const std::uint32_t hq = h * group + g;
      for (std::uint32_t i = 0; i < p.num_queries; ++i) {
        const float* q = p.q + (std::uint64_t{i} * p.num_q_heads + hq) * d;
        double mx = -INFINITY;
        for (std::uint32_t t = 0; t < n; ++t) {
          if (pos[t] > p.q_positions[i]) {
            logits[t] = -INFINITY;
            continue;
          }
          double s = 0;
          for (std::uint32_t c = 0; c < d; ++c)
            s += static_cast<double>(q[c]) * keys[std::uint64_t{t} * d + c];
          logits[t] = s * scale;
          mx = std::max(mx, logits[t]);
        }
        double sum = 0;
        for (std::uint32_t t = 0; t < n; ++t)
          sum += (logits[t] =
                      std::isinf(mx) || std::isinf(logits[t]) ? 0.0 : std::exp(logits[t] - mx));
        std::fill(acc.begin(), acc.end(), 0.0);
        for (std::uint32_t t = 0; t < n; ++t) {
          const double pr = sum > 0 ? logits[t] / sum : 0.0;
          if (p.probs)
            p.probs[(std::uint64_t{hq} * p.num_queries + i) * n + t] = static_cast<float>(pr);
          for (std::uint32_t c = 0; c < d; ++c) acc[c] += pr * vals[std::uint64_t{t} * d + c];
        }
        if (p.out)
          for (std::uint32_t c = 0; c < d; ++c)
            p.out[(std::uint64_t{i} * p.num_q_heads + hq) * d + c] = static_cast<float>(acc[c]);
      }
    }
  }
  return Status::Ok();
}

Status prefill_attention(const PrefillAttentionParams& p, Backend b) {
  switch (b) {
    case Backend::cpu_ref:
    case Backend::cpu:
      return prefill_attention_ref(p);
    case Backend::cuda:
#ifdef KVPLAN_HAVE_CUDA
      return prefill_attention_cuda(p);
#else
      return Status::Unimplemented("prefill_attention: CUDA backend not built");
#endif
  }
  return Status::Invalid("prefill_attention: unknown backend");
}

}  // namespace kvplan::kernels
