#include "kvplan/sim/trace.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstring>

#include "kvplan/checked.hpp"
#include "kvplan/error.hpp"
#include "kvplan/validate.hpp"

namespace kvplan::sim {

namespace {

kernels::RopeLlama3 llama3_of(const RopeScaling& s) {
  if (s.type != "llama3") return {};
  return {.factor = s.factor,
          .low_freq_factor = s.low_freq_factor,
          .high_freq_factor = s.high_freq_factor,
          .original_max_position_embeddings = s.original_max_position_embeddings};
}

}  // namespace

kernels::RopeParams kernel_rope(const RopeSpec& rope) {
  kernels::RopeParams r;
  r.style = rope.dims == 0                         ? kernels::RopeStyle::none
            : rope.style == RopeStyle::interleaved ? kernels::RopeStyle::interleaved
                                                   : kernels::RopeStyle::half;
  r.theta = static_cast<float>(rope.theta);
  r.dims = rope.dims;
  r.llama3 = llama3_of(rope.scaling);
  return r;
}

void apply_rope(const RopeSpec& rope, std::span<float> x, std::uint64_t pos) {
  const std::uint32_t dims = rope.dims;
  const float theta = static_cast<float>(rope.theta);
  const float p = static_cast<float>(pos);
  const kernels::RopeLlama3 scaling = llama3_of(rope.scaling);
  if (rope.style == RopeStyle::interleaved) {
    for (std::uint32_t i = 0; i + 1 < dims; i += 2) {
      const float freq = kernels::rope_scaled_inv_freq(
          1.0f / powf(theta, static_cast<float>(i) / static_cast<float>(dims)), scaling);
      const float val = p * freq;
      const float c = cosf(val), s = sinf(val);
      const float v0 = x[i], v1 = x[i + 1];
      x[i] = v0 * c - v1 * s;
      x[i + 1] = v0 * s + v1 * c;
    }
  } else {
    const std::uint32_t h = dims / 2;
    for (std::uint32_t j = 0; j < h; ++j) {
      const float freq = kernels::rope_scaled_inv_freq(
          1.0f / powf(theta, static_cast<float>(2 * j) / static_cast<float>(dims)), scaling);
      const float val = p * freq;
      const float c = cosf(val), s = sinf(val);
      const float v0 = x[j], v1 = x[j + h];
      x[j] = v0 * c - v1 * s;
      x[j + h] = v0 * s + v1 * c;
    }
  }
}

namespace {

std::uint32_t parse_u32_field(const std::map<std::string, std::string>& m, const std::string& key,
                              const std::string& path, std::uint32_t max) {
  auto it = m.find(key);
  if (it == m.end()) throw Error(path, "__metadata__/" + key, "missing");
  std::uint32_t v = 0;
  const auto& s = it->second;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v > max)
    throw Error(path, "__metadata__/" + key,
                "must be an integer in [0, " + std::to_string(max) + "], got '" + s + "'");
  return v;
}

// A metadata number in [lo, hi] (strtod syntax, the whole string).
double parse_number_field(const std::map<std::string, std::string>& m, const std::string& key,
                          const std::string& path, double lo, double hi) {
  auto it = m.find(key);
  if (it == m.end()) throw Error(path, "__metadata__/" + key, "missing (rope_scaling_type is set)");
  const std::string& s = it->second;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !(v >= lo && v <= hi))
    throw Error(path, "__metadata__/" + key,
                "must be a number in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                    "], got '" + s + "'");
  return v;
}

// The optional llama3 scaling keys; a trace without rope_scaling_type has none. The bounds are
// the Hugging Face loader's (hf_model.cpp, rope_scaling_of).
RopeScaling read_rope_scaling(const std::map<std::string, std::string>& md,
                              const std::string& path) {
  RopeScaling s;
  auto it = md.find("rope_scaling_type");
  if (it == md.end()) return s;
  if (it->second != "llama3")
    throw Error(path, "__metadata__/rope_scaling_type",
                "must be 'llama3' (or absent), got '" + it->second + "'");
  s.type = "llama3";
  s.factor = parse_number_field(md, "rope_scaling_factor", path, 1, 1e6);
  s.low_freq_factor = parse_number_field(md, "rope_scaling_low_freq_factor", path, 1e-6, 1e6);
  s.high_freq_factor = parse_number_field(md, "rope_scaling_high_freq_factor", path, 1e-6, 1e6);
  if (!(s.high_freq_factor > s.low_freq_factor))
    throw Error(path, "__metadata__/rope_scaling_high_freq_factor",
                "must be above rope_scaling_low_freq_factor");
  s.original_max_position_embeddings =
      parse_u32_field(md, "rope_scaling_original_max_position_embeddings", path, 1u << 24);
  if (s.original_max_position_embeddings == 0)
    throw Error(path, "__metadata__/rope_scaling_original_max_position_embeddings",
                "must be at least 1");
  return s;
}

std::string exact(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

using Metadata = std::map<std::string, std::string>;

// The trace's format, version, model and RoPE from its __metadata__ into info.
void read_trace_metadata(const Metadata& md, const std::string& path, TraceInfo& info) {
  info.metadata = md;
  auto need = [&](const std::string& key) -> const std::string& {
    auto it = md.find(key);
    if (it == md.end())
      throw Error(path, "__metadata__/" + key,
                  "missing (a kvplan trace needs format, version, "
                  "model, rope_theta, rope_dims, rope_style)");
    return it->second;
  };
  if (need("format") != "kvplan-trace")
    throw Error(path, "__metadata__/format",
                "must be 'kvplan-trace', got '" + md.at("format") + "'");
  info.version = need("version");
  if (info.version != "1")
    throw Error(path, "__metadata__/version", "unsupported version '" + info.version + "' (1)");
  info.model = need("model");
  {
    const std::string& s = need("rope_theta");
    char* end = nullptr;
    info.rope.theta = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size() || !valid_rope_theta(info.rope.theta))
      throw Error(path, "__metadata__/rope_theta",
                  "must be a positive number in [1, 1e15], got '" + s + "'");
  }
  need("rope_dims");
  info.rope.dims = parse_u32_field(md, "rope_dims", path, 1u << 16);
  const std::string& style = need("rope_style");
  if (style == "interleaved") {
    info.rope.style = RopeStyle::interleaved;
  } else if (style == "half") {
    info.rope.style = RopeStyle::half;
  } else {
    throw Error(path, "__metadata__/rope_style",
                "must be 'interleaved' or 'half', got '" + style + "'");
  }
  info.rope.scaling = read_rope_scaling(md, path);
}

// Layers: layers.0 .. layers.{L-1}, each with q, k, v; nothing else but `tokens`.
std::uint32_t count_layers(const SafetensorsFile& file, const std::string& path) {
  std::uint32_t layers = 0;
  for (const auto& ti : file.tensors()) {
    const std::string& n = ti.name;
    if (n == "tokens") continue;
    std::uint32_t l = 0;
    const char* b = n.data() + 7;
    if (n.rfind("layers.", 0) != 0)
      throw Error(path, "tensor '" + n + "'",
                  "unexpected tensor (expected layers.{l}.q|k|v, tokens)");
    auto [p, ec] = std::from_chars(b, n.data() + n.size(), l);
    const std::string rest(p, n.data() + n.size());
    if (ec != std::errc() || (rest != ".q" && rest != ".k" && rest != ".v") || l >= (1u << 16))
      throw Error(path, "tensor '" + n + "'",
                  "unexpected tensor (expected layers.{l}.q|k|v, tokens)");
    layers = std::max(layers, l + 1);
  }
  if (layers == 0) throw Error(path, "layers.0.q", "missing: a trace needs at least one layer");
  return layers;
}

using LayerTensors = std::array<const TensorInfo*, 3>;  // q, k, v

// One layer's q, k, v: each [T, heads, head_dim] in a float dtype, within bounds.
void check_layer_shapes(const LayerTensors& qkv, const std::string& path) {
  for (const TensorInfo* x : qkv) {
    const std::string where = "tensor '" + x->name + "' /shape";
    if (x->shape.size() != 3)
      throw Error(path, where,
                  "must be [T, heads, head_dim], got rank " + std::to_string(x->shape.size()));
    if (x->dtype == DType::i32)
      throw Error(path, "tensor '" + x->name + "' /dtype", "must be F32, F16 or BF16, got I32");
    if (x->shape[1] == 0 || x->shape[2] == 0 || x->shape[1] > 4096 || x->shape[2] > 4096)
      throw Error(path, where, "heads and head_dim must be in [1, 4096]");
  }
}

// Every layer agrees with layers.0: T, heads, head_dim and dtype.
void check_layer_agrees(const LayerTensors& qkv, const TraceInfo& info, const std::string& path) {
  for (const TensorInfo* x : qkv) {
    const std::uint64_t heads = x == qkv[0] ? info.q_heads : info.kv_heads;
    if (x->shape[0] != info.tokens || x->shape[1] != heads || x->shape[2] != info.head_dim)
      throw Error(path, "tensor '" + x->name + "' /shape",
                  "[" + std::to_string(x->shape[0]) + ", " + std::to_string(x->shape[1]) + ", " +
                      std::to_string(x->shape[2]) + "] disagrees with layers.0 ([" +
                      std::to_string(info.tokens) + ", " + std::to_string(heads) + ", " +
                      std::to_string(info.head_dim) + "])");
    if (x->dtype != info.dtype)
      throw Error(path, "tensor '" + x->name + "' /dtype",
                  std::string(to_string(x->dtype)) + " differs from layers.0.q (" +
                      std::string(to_string(info.dtype)) + ")");
  }
}

// GQA's head grouping and RoPE's rotated dimensions fit the layers' shapes.
void check_heads_and_rope(const TraceInfo& info, const std::string& path) {
  if (info.q_heads % info.kv_heads != 0)
    throw Error(path, "tensor 'layers.0.k' /shape",
                "KV heads (" + std::to_string(info.kv_heads) + ") must divide query heads (" +
                    std::to_string(info.q_heads) + ")");
  if (info.rope.dims > info.head_dim || info.rope.dims % 2 != 0)
    throw Error(path, "__metadata__/rope_dims",
                "must be even and at most head_dim (" + std::to_string(info.head_dim) + "), got " +
                    std::to_string(info.rope.dims));
}

// The optional `tokens` tensor: I32 [T]; empty when absent.
std::vector<std::int32_t> read_trace_tokens(const SafetensorsFile& file, const TraceInfo& info,
                                            const std::string& path) {
  std::vector<std::int32_t> tokens;
  const TensorInfo* tok = file.find("tokens");
  if (!tok) return tokens;
  if (tok->dtype != DType::i32)
    throw Error(path, "tensor 'tokens' /dtype",
                "must be I32, got " + std::string(to_string(tok->dtype)));
  if (tok->shape.size() != 1 || tok->shape[0] != info.tokens)
    throw Error(path, "tensor 'tokens' /shape",
                "must be [" + std::to_string(info.tokens) + "] (T of the layers)");
  tokens.resize(info.tokens);
  std::memcpy(tokens.data(), file.bytes(*tok).data(), info.tokens * 4);
  return tokens;
}

}  // namespace

TraceFile TraceFile::open(const std::string& path) {
  TraceFile t(SafetensorsFile::open(path));
  TraceInfo& info = t.info_;
  read_trace_metadata(t.file_.metadata(), path, info);
  info.layers = count_layers(t.file_, path);
  for (std::uint32_t l = 0; l < info.layers; ++l) {
    const std::string pre = "layers." + std::to_string(l) + ".";
    const TensorInfo& q = t.file_.at(pre + "q");
    const TensorInfo& k = t.file_.at(pre + "k");
    const TensorInfo& v = t.file_.at(pre + "v");
    const LayerTensors qkv = {&q, &k, &v};
    check_layer_shapes(qkv, path);
    if (l == 0) {
      info.tokens = q.shape[0];
      info.q_heads = static_cast<std::uint32_t>(q.shape[1]);
      info.kv_heads = static_cast<std::uint32_t>(k.shape[1]);
      info.head_dim = static_cast<std::uint32_t>(q.shape[2]);
      info.dtype = q.dtype;
    }
    check_layer_agrees(qkv, info, path);
    t.q_.push_back(&q);
    t.k_.push_back(&k);
    t.v_.push_back(&v);
  }
  check_heads_and_rope(info, path);
  t.tokens_ = read_trace_tokens(t.file_, info, path);
  return t;
}

void TraceFile::read(TraceTensor which, std::uint32_t layer, std::uint64_t token,
                     std::span<float> out) const {
  const auto& vec = which == TraceTensor::q ? q_ : which == TraceTensor::k ? k_ : v_;
  const std::size_t width = which == TraceTensor::q ? info_.q_width() : info_.kv_width();
  if (layer >= vec.size() || token >= info_.tokens || out.size() != width)
    throw Error(
        ErrorKind::internal, path(), "read",
        "layer " + std::to_string(layer) + " token " + std::to_string(token) + " out of range");
  file_.read_f32(*vec[layer], token * width, out);
  // A NaN or infinity would make every metric of the replay NaN (shown as "-", exit 0).
  for (float x : out)
    if (!std::isfinite(x))
      throw Error(path(),
                  "tensor 'layers." + std::to_string(layer) + "." +
                      (which == TraceTensor::q   ? "q"
                       : which == TraceTensor::k ? "k"
                                                 : "v") +
                      "'",
                  "token " + std::to_string(token) + " holds a NaN or infinity");
}

TraceBuilder::TraceBuilder(TraceInfo info) : info_(std::move(info)) {
  q_.resize(info_.layers);
  k_.resize(info_.layers);
  v_.resize(info_.layers);
}

void TraceBuilder::append(std::uint32_t layer, std::span<const float> q, std::span<const float> k,
                          std::span<const float> v) {
  if (layer >= info_.layers || q.size() != info_.q_width() || k.size() != info_.kv_width() ||
      v.size() != info_.kv_width())
    throw Error(ErrorKind::internal, "trace builder", "append", "row of the wrong width");
  q_[layer].insert(q_[layer].end(), q.begin(), q.end());
  k_[layer].insert(k_[layer].end(), k.begin(), k.end());
  v_[layer].insert(v_[layer].end(), v.begin(), v.end());
}

void TraceBuilder::write(const std::string& path, DType dtype) const {
  if (dtype == DType::i32) throw Error(path, "dtype", "a trace stores F32, F16 or BF16");
  const std::uint64_t T = info_.layers ? rows(0) : 0;
  for (std::uint32_t l = 0; l < info_.layers; ++l)
    if (rows(l) != T)
      throw Error(ErrorKind::internal, path, "layers." + std::to_string(l),
                  "has " + std::to_string(rows(l)) + " rows, layer 0 has " + std::to_string(T));
  if (!tokens_.empty() && tokens_.size() != T)
    throw Error(ErrorKind::internal, path, "tokens",
                std::to_string(tokens_.size()) + " tokens for " + std::to_string(T) + " rows");
  std::vector<std::vector<std::byte>> store;
  std::vector<TensorView> views;
  auto convert = [&](const std::vector<float>& src) {
    std::vector<std::byte> b(src.size() * dtype_bytes(dtype));
    if (dtype == DType::f32) {
      std::memcpy(b.data(), src.data(), b.size());
    } else {
      for (std::size_t i = 0; i < src.size(); ++i) {
        const std::uint16_t h = dtype == DType::f16 ? float_to_half(src[i]) : float_to_bf16(src[i]);
        std::memcpy(b.data() + 2 * i, &h, 2);
      }
    }
    return b;
  };
  store.reserve(3 * info_.layers + 1);
  for (std::uint32_t l = 0; l < info_.layers; ++l) {
    const std::string pre = "layers." + std::to_string(l) + ".";
    store.push_back(convert(q_[l]));
    views.push_back({pre + "q", dtype, {T, info_.q_heads, info_.head_dim}, store.back()});
    store.push_back(convert(k_[l]));
    views.push_back({pre + "k", dtype, {T, info_.kv_heads, info_.head_dim}, store.back()});
    store.push_back(convert(v_[l]));
    views.push_back({pre + "v", dtype, {T, info_.kv_heads, info_.head_dim}, store.back()});
  }
  if (!tokens_.empty())
    views.push_back({"tokens", DType::i32, {T}, std::as_bytes(std::span(tokens_))});
  std::map<std::string, std::string> md = info_.metadata;
  md["format"] = "kvplan-trace";
  md["version"] = "1";
  md["model"] = info_.model;
  char theta[64];
  std::snprintf(theta, sizeof theta, "%.17g", info_.rope.theta);
  md["rope_theta"] = theta;
  md["rope_dims"] = std::to_string(info_.rope.dims);
  md["rope_style"] = info_.rope.style == RopeStyle::interleaved ? "interleaved" : "half";
  for (const char* k :
       {"rope_scaling_type", "rope_scaling_factor", "rope_scaling_low_freq_factor",
        "rope_scaling_high_freq_factor", "rope_scaling_original_max_position_embeddings"})
    md.erase(k);
  if (const RopeScaling& s = info_.rope.scaling; !s.type.empty()) {
    md["rope_scaling_type"] = s.type;
    md["rope_scaling_factor"] = exact(s.factor);
    md["rope_scaling_low_freq_factor"] = exact(s.low_freq_factor);
    md["rope_scaling_high_freq_factor"] = exact(s.high_freq_factor);
    md["rope_scaling_original_max_position_embeddings"] =
        std::to_string(s.original_max_position_embeddings);
  }
  write_safetensors(path, views, md);
}

}  // namespace kvplan::sim
