#include "kvplan/kernels/attention.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace kvplan::kernels {
namespace {

Status validate_view(const PagedKvView& v, std::uint32_t num_q_heads, const char* who) {
  std::string problems;
  auto add = [&](const std::string& m) { problems += (problems.empty() ? "" : "; ") + m; };
  if (v.num_kv_heads == 0) add("kv.num_kv_heads must be >= 1");
  if (v.head_dim == 0) add("kv.head_dim must be >= 1");
  if (v.block_size == 0) add("kv.block_size must be >= 1");
  if (v.num_tokens == 0) add("kv.num_tokens must be >= 1");
  if (v.num_kv_heads && (num_q_heads == 0 || num_q_heads % v.num_kv_heads != 0))
    add("num_q_heads " + std::to_string(num_q_heads) + " must be a positive multiple of " +
        "num_kv_heads " + std::to_string(v.num_kv_heads));
  if (!v.positions) add("kv.positions must not be null");
  return problems.empty() ? Status::Ok() : Status::Invalid(std::string(who) + ": " + problems);
}

float effective_scale(float scale, std::uint32_t d) {
  return scale != 0.f ? scale : static_cast<float>(1.0 / std::sqrt(static_cast<double>(d)));
}

bool rerotate(PositionMode m, const RopeParams& r) {
  return m == PositionMode::cache && r.style != RopeStyle::none;
}

// Rotation by `position` with precomputed frequencies: the same arithmetic as rope_rotate.
struct RopeTable {
  std::vector<double> freq;
  RopeStyle style = RopeStyle::none;
  std::uint32_t half = 0;
  RopeTable(const RopeParams& r, std::uint32_t d) : style(r.style) {
    const std::uint32_t dims = r.dims ? r.dims : d;
    half = dims / 2;
    for (std::uint32_t i = 0; i < half; ++i)
      freq.push_back(std::pow(static_cast<double>(r.theta), -2.0 * i / dims));
  }
  void rotate(float* x, double position) const {
    for (std::uint32_t i = 0; i < half; ++i) {
      const double a = position * freq[i], c = std::cos(a), s = std::sin(a);
      const std::uint32_t i0 = style == RopeStyle::interleaved ? 2 * i : i;
      const std::uint32_t i1 = style == RopeStyle::interleaved ? 2 * i + 1 : i + half;
      const double x0 = x[i0], x1 = x[i1];
      x[i0] = static_cast<float>(x0 * c - x1 * s);
      x[i1] = static_cast<float>(x0 * s + x1 * c);
    }
  }
};

// Decodes keys of slots [t0, t0 + count) of head h into tile [count, d], group-wise for KIVI.
void load_key_tile(const PagedKvView& v, std::uint32_t h, std::uint32_t t0, std::uint32_t count,
                   float* tile) {
  const std::uint32_t d = v.head_dim;
  if (is_kivi(v)) {
    const std::uint32_t G = v.format.group, bits = v.format.bits;
    const std::uint32_t kq = kivi_key_quant_tokens(v.num_tokens, v.format.residual);
    const std::uint32_t words = kivi_words(G, bits), mask = (1u << bits) - 1u, per_word = 32 / bits;
    std::uint32_t t = t0;
    const std::uint32_t end = t0 + count;
    while (t < end && t < kq) {
      const std::uint32_t gi = t / G, j0 = t % G, j1 = std::min(G, j0 + (std::min(end, kq) - t));
      float* base = tile + std::uint64_t{t - t0} * d;
      const std::uint32_t P = kivi_record_bytes(G, bits);
      const std::uint8_t* rec = kivi_key_record(v, gi, h, 0);  // channels are contiguous records
      for (std::uint32_t c = 0; c < d; ++c, rec += P) {
        std::uint16_t sh, zh;
        std::memcpy(&sh, rec + 4 * words, 2);
        std::memcpy(&zh, rec + 4 * words + 2, 2);
        const float s = half_to_float(sh), z = half_to_float(zh);
        for (std::uint32_t j = j0; j < j1; ++j) {
          std::uint32_t w;
          std::memcpy(&w, rec + 4 * (j / per_word), 4);
          const std::uint32_t code = (w >> ((j % per_word) * bits)) & mask;
          base[std::uint64_t{j - j0} * d + c] = static_cast<float>(code) * s + z;
        }
      }
      t += j1 - j0;
    }
    for (; t < end; ++t) load_key(v, h, t, tile + std::uint64_t{t - t0} * d);
    return;
  }
  for (std::uint32_t t = t0; t < t0 + count; ++t)
    load_key(v, h, t, tile + std::uint64_t{t - t0} * d);
}

// load_value with KIVI's quantized values decoded a record (G channels) at a time.
void load_value_fast(const PagedKvView& v, std::uint32_t h, std::uint32_t t, float* out) {
  if (!is_kivi(v) || t >= kivi_value_quant_tokens(v.num_tokens, v.format.residual)) {
    load_value(v, h, t, out);
    return;
  }
  const std::uint32_t d = v.head_dim, G = v.format.group, bits = v.format.bits;
  const std::uint32_t P = kivi_record_bytes(G, bits), words = kivi_words(G, bits);
  const std::uint32_t per_word = 32 / bits, mask = (1u << bits) - 1u;
  const std::uint8_t* r = slot_record(v.v_base, v.v_table, v.v_block_bytes, v.block_size,
                                      v.num_kv_heads, (d / G) * P, t, h);
  for (std::uint32_t g = 0; g < d / G; ++g, r += P) {
    std::uint16_t sh, zh;
    std::memcpy(&sh, r + 4 * words, 2);
    std::memcpy(&zh, r + 4 * words + 2, 2);
    const float s = half_to_float(sh), z = half_to_float(zh);
    float* o = out + g * G;
    for (std::uint32_t w = 0; w < words; ++w) {
      std::uint32_t word;
      std::memcpy(&word, r + 4 * w, 4);
      const std::uint32_t end = std::min(per_word, G - w * per_word);
      for (std::uint32_t k = 0; k < end; ++k)
        o[w * per_word + k] = static_cast<float>((word >> (k * bits)) & mask) * s + z;
    }
  }
}

float dot(const float* a, const float* b, std::uint32_t d) {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::uint32_t c = 0;
  for (; c + 8 <= d; c += 8)
    for (int k = 0; k < 8; ++k) acc[k] += a[c + k] * b[c + k];
  float s = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
  for (; c < d; ++c) s += a[c] * b[c];
  return s;
}

}  // namespace

void rope_apply(float* x, std::uint32_t heads, std::uint32_t d, const RopeParams& r,
                double position) {
  for (std::uint32_t h = 0; h < heads; ++h) rope_rotate(x + std::uint64_t{h} * d, d, r, position);
}

Status validate(const DecodeAttentionParams& p) {
  if (Status s = validate_view(p.kv, p.num_q_heads, "decode_attention"); !s.ok()) return s;
  if (!p.q || !p.out) return Status::Invalid("decode_attention: q and out must not be null");
  return Status::Ok();
}

Status validate(const PrefillAttentionParams& p) {
  if (Status s = validate_view(p.kv, p.num_q_heads, "prefill_attention"); !s.ok()) return s;
  if (p.num_queries == 0 || !p.q || !p.q_positions)
    return Status::Invalid("prefill_attention: needs num_queries >= 1, q and q_positions");
  return Status::Ok();
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

Status decode_attention_cpu(const DecodeAttentionParams& p) {
  if (Status s = validate(p); !s.ok()) return s;
  const PagedKvView& kv = p.kv;
  const std::uint32_t d = kv.head_dim, n = kv.num_tokens, group = p.num_q_heads / kv.num_kv_heads;
  const float scale = effective_scale(p.scale, d);
  constexpr std::uint32_t kTile = 64;
  std::vector<float> tile(std::uint64_t{kTile} * d), logits(std::uint64_t{group} * n), acc(d);
  const bool rot = rerotate(p.positions, p.rope);
  const RopeTable rope(p.rope, d);
  for (std::uint32_t h = 0; h < kv.num_kv_heads; ++h) {
    const float* q = p.q + std::uint64_t{h} * group * d;
    for (std::uint32_t t0 = 0; t0 < n; t0 += kTile) {
      const std::uint32_t count = std::min(kTile, n - t0);
      load_key_tile(kv, h, t0, count, tile.data());
      for (std::uint32_t i = 0; i < count; ++i) {
        float* key = tile.data() + std::uint64_t{i} * d;
        if (rot)
          rope.rotate(key, static_cast<double>(t0 + i) -
                               kv.positions[std::uint64_t{h} * kv.positions_stride + t0 + i]);
        for (std::uint32_t g = 0; g < group; ++g)
          logits[std::uint64_t{g} * n + t0 + i] = dot(q + std::uint64_t{g} * d, key, d) * scale;
      }
    }
    for (std::uint32_t g = 0; g < group; ++g) {
      float* l = logits.data() + std::uint64_t{g} * n;
      const float mx = *std::max_element(l, l + n);
      float sum = 0.f;
      for (std::uint32_t t = 0; t < n; ++t) sum += (l[t] = std::exp(l[t] - mx));
      const float inv = 1.f / sum;
      for (std::uint32_t t = 0; t < n; ++t) l[t] *= inv;
      if (p.probs) std::copy(l, l + n, p.probs + std::uint64_t{h * group + g} * n);
    }
    // Values: one dequantized row, used by every query head of the group.
    std::vector<float> out(std::uint64_t{group} * d, 0.f);
    for (std::uint32_t t = 0; t < n; ++t) {
      load_value_fast(kv, h, t, acc.data());
      for (std::uint32_t g = 0; g < group; ++g) {
        const float pr = logits[std::uint64_t{g} * n + t];
        float* o = out.data() + std::uint64_t{g} * d;
        for (std::uint32_t c = 0; c < d; ++c) o[c] += pr * acc[c];
      }
    }
    std::copy(out.begin(), out.end(), p.out + std::uint64_t{h} * group * d);
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
      return Status::Unimplemented("decode_attention: CUDA backend not built");
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
      return Status::Unimplemented("prefill_attention: CUDA backend not built");
  }
  return Status::Invalid("prefill_attention: unknown backend");
}

}  // namespace kvplan::kernels
