#include "kvplan/sim/synth.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <utility>
#include <vector>

#include "kvplan/error.hpp"
#include "kvplan/validate.hpp"

namespace kvplan::sim {

namespace {

std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::uint64_t key_of(std::uint64_t seed, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  std::uint64_t s = seed;
  s ^= splitmix(s) + a;
  s ^= splitmix(s) + b;
  s ^= splitmix(s) + c;
  return splitmix(s);
}

struct Normal {
  std::uint64_t state;
  bool have = false;
  double spare = 0;
  double next() {
    if (have) {
      have = false;
      return spare;
    }
    const double u1 = (static_cast<double>(splitmix(state) >> 11) + 0.5) / 9007199254740992.0;
    const double u2 = static_cast<double>(splitmix(state) >> 11) / 9007199254740992.0;
    const double r = std::sqrt(-2.0 * std::log(u1));
    spare = r * std::sin(2 * M_PI * u2);
    have = true;
    return r * std::cos(2 * M_PI * u2);
  }
};

// A unit vector in the lowest-frequency RoPE pairs of a head.
std::vector<double> direction(std::uint64_t key, std::uint32_t d, const RopeSpec& rope) {
  std::vector<double> u(d, 0.0);
  Normal n{key};
  const std::uint32_t dims = rope.dims ? rope.dims : d;
  const std::uint32_t pairs = dims / 2, use = std::max<std::uint32_t>(1, pairs / 4);
  double norm = 0;
  for (std::uint32_t j = pairs - use; j < pairs; ++j) {
    const std::uint32_t i0 = rope.style == RopeStyle::interleaved ? 2 * j : j;
    const std::uint32_t i1 = rope.style == RopeStyle::interleaved ? 2 * j + 1 : j + pairs;
    u[i0] = n.next();
    u[i1] = n.next();
    norm += u[i0] * u[i0] + u[i1] * u[i1];
  }
  for (auto& x : u) x /= std::sqrt(norm);
  return u;
}

}  // namespace

std::vector<Problem> validate(const SynthOptions& o) {
  std::vector<Problem> p;
  if (o.tokens == 0 || o.tokens > SynthOptions::max_tokens)
    p.push_back({"tokens", "must be in [1, 131072], got " + std::to_string(o.tokens)});
  if (o.layers == 0 || o.layers > 256) p.push_back({"layers", "must be in [1, 256]"});
  if (o.kv_heads == 0 || o.q_heads == 0 || o.q_heads % o.kv_heads != 0 || o.q_heads > 256)
    p.push_back({"heads", "KV heads must divide query heads (<= 256), got " +
                              std::to_string(o.q_heads) + "/" + std::to_string(o.kv_heads)});
  if (o.head_dim < 2 || o.head_dim % 2 != 0 || o.head_dim > 1024)
    p.push_back({"head_dim", "must be even, in [2, 1024], got " + std::to_string(o.head_dim)});
  if (o.rope.dims > o.head_dim || o.rope.dims % 2 != 0)
    p.push_back({"rope_dims", "must be even and at most head_dim"});
  if (o.outlier_channels > o.head_dim) p.push_back({"outlier_channels", "more than head_dim"});
  if (!(o.heavy_fraction >= 0 && o.heavy_fraction <= 1))
    p.push_back({"heavy_fraction", "must be in [0, 1]"});
  if (o.sinks > o.tokens)
    p.push_back({"sinks", std::to_string(o.sinks) + " is more than the " +
                              std::to_string(o.tokens) + " tokens"});
  // Strengths scale unit vectors: bounded so that an f16/bf16 trace holds no inf (and no NaN).
  for (const auto& [field, v] :
       {std::pair{"sink_strength", o.sink_strength}, std::pair{"heavy_strength", o.heavy_strength},
        std::pair{"outlier_scale", o.outlier_scale}})
    if (!(v >= 0 && v <= 1000)) p.push_back({field, "must be a number in [0, 1000]"});
  // A key is a N(0,1) draw plus the sink and heavy directions (each up to strength·sqrt(d) per
  // channel), times the outlier scale: kept inside f16's range, where no draw beyond 8σ can reach.
  if (o.dtype == DType::f16 && p.empty()) {
    const double worst =
        (8.0 + (o.sink_strength + o.heavy_strength) * std::sqrt(static_cast<double>(o.head_dim))) *
        std::max(1.0, o.outlier_scale);
    if (worst > 65504.0)
      p.push_back({"outlier_scale", "keys up to " + std::to_string(static_cast<long>(worst)) +
                                        " overflow f16 (65504): lower the strengths or the "
                                        "outlier scale, or write f32/bf16"});
  }
  // As the trace reader demands of any trace.
  if (!valid_rope_theta(o.rope.theta))
    p.push_back({"rope_theta", "must be finite and positive, in [1, 1e15]"});
  if (o.dtype == DType::i32) p.push_back({"dtype", "must be F32, F16 or BF16"});
  return p;
}

namespace {

// The trace's __metadata__: kvplan-trace, the RoPE description and how it was generated.
std::map<std::string, std::string> trace_metadata(const SynthOptions& o, const RopeSpec& rope) {
  // Round-trips exactly (std::to_string wrote 1e-7 as "0.000000", which the reader refuses).
  char theta_text[64];
  std::snprintf(theta_text, sizeof theta_text, "%.17g", rope.theta);
  return {{"format", "kvplan-trace"},
          {"version", "1"},
          {"model", "synthetic"},
          {"rope_theta", theta_text},
          {"rope_dims", std::to_string(rope.dims)},
          {"rope_style", rope.style == RopeStyle::interleaved ? "interleaved" : "half"},
          {"synthetic", "seed=" + std::to_string(o.seed) + ",sinks=" + std::to_string(o.sinks) +
                            ",heavy_fraction=" + std::to_string(o.heavy_fraction) +
                            ",outlier_channels=" + std::to_string(o.outlier_channels)}};
}

// layers.{l}.q [T, Hq, d], .k and .v [T, Hkv, d], layer by layer.
std::vector<SafetensorsStreamWriter::Decl> trace_decls(const SynthOptions& o) {
  std::vector<SafetensorsStreamWriter::Decl> decls;
  for (std::uint32_t l = 0; l < o.layers; ++l) {
    const std::string pre = "layers." + std::to_string(l) + ".";
    decls.push_back({pre + "q", o.dtype, {o.tokens, o.q_heads, o.head_dim}});
    decls.push_back({pre + "k", o.dtype, {o.tokens, o.kv_heads, o.head_dim}});
    decls.push_back({pre + "v", o.dtype, {o.tokens, o.kv_heads, o.head_dim}});
  }
  return decls;
}

// One layer's structure: per KV head the sink direction u and the heavy-hitter direction hv
// (unit vectors within the rotated dims), and the outlier channels.
struct LayerShape {
  std::vector<std::vector<double>> u, hv;
  std::vector<bool> outlier;
};

LayerShape layer_shape(const SynthOptions& o, std::uint32_t l, const RopeSpec& rope) {
  const std::uint32_t d = o.head_dim;
  LayerShape ls{std::vector<std::vector<double>>(o.kv_heads),
                std::vector<std::vector<double>>(o.kv_heads), std::vector<bool>(d, false)};
  for (std::uint32_t h = 0; h < o.kv_heads; ++h) {
    ls.u[h] = direction(key_of(o.seed, l, 100 + h, 1), d, rope);
    ls.hv[h] = direction(key_of(o.seed, l, 100 + h, 2), d, rope);
  }
  std::uint64_t s = key_of(o.seed, l, 7, 7);
  for (std::uint32_t c = 0; c < o.outlier_channels;) {
    const auto ch = static_cast<std::uint32_t>(splitmix(s) % d);
    if (!ls.outlier[ch]) {
      ls.outlier[ch] = true;
      ++c;
    }
  }
  return ls;
}

// Writes rows of floats in the trace's dtype.
class RowWriter {
 public:
  RowWriter(SafetensorsStreamWriter& w, DType dtype) : w_(w), dtype_(dtype) {}
  void write(const std::vector<float>& vals) {
    row_.resize(vals.size() * dtype_bytes(dtype_));
    for (std::size_t i = 0; i < vals.size(); ++i) {
      if (dtype_ == DType::f32) {
        std::memcpy(row_.data() + 4 * i, &vals[i], 4);
      } else {
        const std::uint16_t h =
            dtype_ == DType::f16 ? float_to_half(vals[i]) : float_to_bf16(vals[i]);
        std::memcpy(row_.data() + 2 * i, &h, 2);
      }
    }
    w_.write(row_);
  }

 private:
  SafetensorsStreamWriter& w_;
  DType dtype_;
  std::vector<std::byte> row_;
};

// Layer l's q, k, v rows, token by token: N(0,1) draws; queries lean towards both directions of
// their group, sink keys (t < sinks) towards u, heavy-hitter keys towards hv; outlier channels of
// keys scaled.
void generate_layer(const SynthOptions& o, std::uint32_t l, const RopeSpec& rope, RowWriter& out) {
  const std::uint32_t d = o.head_dim, group = o.q_heads / o.kv_heads;
  const double sq = std::sqrt(static_cast<double>(d));
  const LayerShape ls = layer_shape(o, l, rope);
  auto heavy = [&](std::uint64_t t) {
    return static_cast<double>(key_of(o.seed, 9, 9, t) >> 11) / 9007199254740992.0 <
           o.heavy_fraction;
  };
  std::vector<float> vals;
  for (int kind = 0; kind < 3; ++kind) {
    const std::uint32_t heads = kind == 0 ? o.q_heads : o.kv_heads;
    vals.resize(std::size_t{heads} * d);
    for (std::uint64_t t = 0; t < o.tokens; ++t) {
      Normal n{key_of(o.seed, l, static_cast<std::uint64_t>(kind), t)};
      for (std::uint32_t h = 0; h < heads; ++h) {
        const std::uint32_t kvh = kind == 0 ? h / group : h;
        for (std::uint32_t c = 0; c < d; ++c) {
          double x = n.next();
          if (kind == 0) {
            x += sq * 0.25 * (ls.u[kvh][c] + ls.hv[kvh][c]);
          } else if (kind == 1) {
            if (t < o.sinks) x += o.sink_strength * sq * ls.u[kvh][c];
            if (heavy(t)) x += o.heavy_strength * sq * ls.hv[kvh][c];
            if (ls.outlier[c]) x *= o.outlier_scale;
          }
          vals[std::size_t{h} * d + c] = static_cast<float>(x);
        }
      }
      out.write(vals);
    }
  }
}

}  // namespace

// Validate, then generate.
void write_synthetic_trace(const std::string& path, const SynthOptions& o) {
  throw_if_any("synthetic trace", validate(o));
  RopeSpec rope = o.rope;
  if (rope.dims == 0) rope.dims = o.head_dim;
  SafetensorsStreamWriter w(path, trace_decls(o), trace_metadata(o, rope));
  RowWriter out(w, o.dtype);
  for (std::uint32_t l = 0; l < o.layers; ++l) generate_layer(o, l, rope, out);
  w.finish();
}

}  // namespace kvplan::sim
