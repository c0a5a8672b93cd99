// Hugging Face model directories as kvplan's reference model: config.json of a Llama-shaped
// decoder and its safetensors weights, converted to float32 in llama2.c's weight layout so the one
// forward pass of llama2c.cpp runs them.
//
// Tensor names and the math they stand for are transformers' (modeling_llama.py, modeling_qwen2.py,
// modeling_qwen3.py; https://github.com/huggingface/transformers):
//   model.embed_tokens.weight                       [vocab, hidden]   (or tied to lm_head.weight)
//   model.layers.{l}.input_layernorm.weight         [hidden]          llama2.c rms_att
//   model.layers.{l}.self_attn.q_proj.weight        [H·hd, hidden]    wq (+ .bias: Qwen2)
//   model.layers.{l}.self_attn.k_proj.weight        [Hkv·hd, hidden]  wk (+ .bias)
//   model.layers.{l}.self_attn.v_proj.weight        [Hkv·hd, hidden]  wv (+ .bias)
//   model.layers.{l}.self_attn.o_proj.weight        [hidden, H·hd]    wo
//   model.layers.{l}.self_attn.{q,k}_norm.weight    [hd]              Qwen3 only
//   model.layers.{l}.post_attention_layernorm.weight [hidden]         rms_ffn
//   model.layers.{l}.mlp.gate_proj.weight           [inter, hidden]   w1
//   model.layers.{l}.mlp.up_proj.weight             [inter, hidden]   w3
//   model.layers.{l}.mlp.down_proj.weight           [hidden, inter]   w2
//   model.norm.weight [hidden], lm_head.weight [vocab, hidden]
// torch's safetensors save_model drops a tensor that shares storage with another and records the
// alias in __metadata__ ({"model.embed_tokens.weight": "lm_head.weight"}, as tinystories-656k
// stores it); such aliases are followed.
#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "kvplan/checked.hpp"
#include "kvplan/error.hpp"
#include "kvplan/sim/llama2c.hpp"
#include "kvplan/sim/safetensors.hpp"

namespace kvplan::sim {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::string read_text(const fs::path& path, std::uint64_t max_bytes) {
  const std::string p = path.string();
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) throw Error(p, "", "missing (cannot read it)");
  if (!S_ISREG(st.st_mode)) throw Error(p, "", "cannot read: not a regular file");
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes)
    throw Error(p, "",
                "file is " + std::to_string(st.st_size) + " bytes, over the limit of " +
                    std::to_string(max_bytes));
  std::ifstream is(p, std::ios::binary);
  if (!is) throw Error(p, "", "cannot open");
  std::ostringstream ss;
  ss << is.rdbuf();
  return ss.str();
}

json read_json(const fs::path& path) {
  try {
    json j = json::parse(read_text(path, 64u << 20));
    if (!j.is_object()) throw Error(path.string(), "", "must be a JSON object");
    return j;
  } catch (const json::exception& e) {
    throw Error(path.string(), "", std::string("not valid JSON: ") + e.what());
  }
}

// Typed reads of config.json fields; errors name the file and the field.
class ConfigReader {
 public:
  ConfigReader(const json& j, std::string path) : j_(j), path_(std::move(path)) {}
  const std::string& path() const { return path_; }
  const json* get(const std::string& key) const {
    auto it = j_.find(key);
    return it == j_.end() || it->is_null() ? nullptr : &*it;
  }
  std::uint32_t u32(const std::string& key, std::uint32_t max,
                    std::optional<std::uint32_t> fallback = std::nullopt) const {
    const json* v = get(key);
    if (!v) {
      if (fallback) return *fallback;
      throw Error(path_, key, "missing (a Llama-shaped config needs it)");
    }
    if (!v->is_number_integer() || v->get<std::int64_t>() < 1 || v->get<std::int64_t>() > max)
      throw Error(path_, key,
                  "must be an integer in [1, " + std::to_string(max) + "], got " + v->dump());
    return v->get<std::uint32_t>();
  }
  double number(const std::string& key, double fallback, double lo, double hi,
                const json* obj = nullptr, const std::string& prefix = "") const {
    const json& o = obj ? *obj : j_;
    auto it = o.find(key);
    if (it == o.end() || it->is_null()) return fallback;
    if (!it->is_number() || !(it->get<double>() >= lo && it->get<double>() <= hi)) {
      std::ostringstream range;
      range << "[" << lo << ", " << hi << "]";
      throw Error(path_, prefix + key,
                  "must be a number in " + range.str() + ", got " + it->dump());
    }
    return it->get<double>();
  }
  bool boolean(const std::string& key, bool fallback) const {
    const json* v = get(key);
    if (!v) return fallback;
    if (!v->is_boolean()) throw Error(path_, key, "must be true or false, got " + v->dump());
    return v->get<bool>();
  }
  std::string str(const std::string& key, const std::string& fallback) const {
    const json* v = get(key);
    if (!v) return fallback;
    if (!v->is_string()) throw Error(path_, key, "must be a string, got " + v->dump());
    return v->get<std::string>();
  }

 private:
  const json& j_;
  std::string path_;
};

std::string shape_text(const std::vector<std::uint64_t>& s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

// The safetensors files of a checkpoint: model.safetensors, or the shards an index names.
class Weights {
 public:
  explicit Weights(const fs::path& dir) {
    const fs::path index = dir / "model.safetensors.index.json";
    std::error_code ec;
    if (fs::exists(index, ec)) {
      const json j = read_json(index);
      auto wm = j.find("weight_map");
      if (wm == j.end() || !wm->is_object() || wm->empty())
        throw Error(index.string(), "weight_map", "missing or not a non-empty object");
      std::map<std::string, std::size_t> file_of;
      for (auto it = wm->begin(); it != wm->end(); ++it) {
        if (!it->is_string())
          throw Error(index.string(), "weight_map/" + it.key(), "must be a file name");
        const std::string f = it->get<std::string>();
        if (f.empty() || f.find('/') != std::string::npos || f == "." || f == "..")
          throw Error(index.string(), "weight_map/" + it.key(),
                      "'" + f + "' is not a file name inside the model directory");
        if (!file_of.count(f)) {
          if (!fs::exists(dir / f, ec))
            throw Error(index.string(), "weight_map/" + it.key(),
                        "names " + f + ", which is not in " + dir.string());
          file_of[f] = files_.size();
          files_.push_back(SafetensorsFile::open((dir / f).string()));
        }
        where_[it.key()] = file_of[f];
      }
      return;
    }
    const fs::path single = dir / "model.safetensors";
    if (!fs::exists(single, ec))
      throw Error(dir.string(), "model.safetensors",
                  "missing (neither model.safetensors nor model.safetensors.index.json is in the "
                  "directory)");
    files_.push_back(SafetensorsFile::open(single.string()));
  }

  struct Found {
    const SafetensorsFile* file = nullptr;
    const TensorInfo* tensor = nullptr;
  };

  // The tensor called `name` (following a metadata alias), or nothing.
  Found find(const std::string& name) const {
    if (auto it = where_.find(name); it != where_.end()) {
      const auto& f = files_[it->second];
      if (const TensorInfo* t = f.find(name)) return {&f, t};
    }
    for (const auto& f : files_) {
      if (const TensorInfo* t = f.find(name)) return {&f, t};
      auto alias = f.metadata().find(name);
      if (alias != f.metadata().end())
        if (const TensorInfo* t = f.find(alias->second)) return {&f, t};
    }
    return {};
  }

  std::string where() const {
    return files_.size() == 1
               ? files_[0].path()
               : files_[0].path() + " (and " + std::to_string(files_.size() - 1) + " more shards)";
  }

  // Reads `name` of exactly `shape` as float into dst.
  void read(const Found& f, const std::string& name, const std::vector<std::uint64_t>& shape,
            float* dst) const {
    const TensorInfo& t = *f.tensor;
    if (t.dtype == DType::i32)
      throw Error(f.file->path(), name + " /dtype",
                  "I32 is not a weight dtype (expected F32, BF16 or F16)");
    if (t.shape != shape)
      throw Error(
          f.file->path(), name + " /shape",
          "expected " + shape_text(shape) + " from config.json, got " + shape_text(t.shape));
    std::span<float> out(dst, static_cast<std::size_t>(t.elements()));
    f.file->read_f32(t, 0, out);
    for (float x : out)
      if (!std::isfinite(x)) throw Error(f.file->path(), name, "contains a NaN or infinity");
  }
  void read(const std::string& name, const std::vector<std::uint64_t>& shape, float* dst) const {
    const Found f = find(name);
    if (!f.tensor) throw Error(where(), name, "tensor missing from the checkpoint");
    read(f, name, shape, dst);
  }

 private:
  std::vector<SafetensorsFile> files_;
  std::map<std::string, std::size_t> where_;
};

const std::set<std::string>& supported_architectures() {
  static const std::set<std::string> s{"LlamaForCausalLM", "MistralForCausalLM", "Qwen2ForCausalLM",
                                       "Qwen3ForCausalLM"};
  return s;
}

std::string architecture_of(const json& j, const std::string& path) {
  auto a = j.find("architectures");
  if (a == j.end() || !a->is_array() || a->empty() || !(*a)[0].is_string())
    throw Error(path, "architectures", "missing or not a list of names");
  const std::string arch = (*a)[0].get<std::string>();
  if (!supported_architectures().count(arch)) {
    std::string names;
    for (const auto& n : supported_architectures()) names += (names.empty() ? "" : ", ") + n;
    throw Error(
        path, "architectures",
        "'" + arch + "' is not supported by the reference model (supported: " + names + ")");
  }
  return arch;
}

RopeScaling rope_scaling_of(const ConfigReader& r) {
  const json* rs = r.get("rope_scaling");
  RopeScaling out;
  if (!rs) return out;
  if (!rs->is_object()) throw Error(r.path(), "rope_scaling", "must be an object or null");
  // transformers reads "rope_type", formerly "type" (modeling_rope_utils.py,
  // rope_config_validation).
  std::string type = "default";
  for (const char* k : {"rope_type", "type"})
    if (auto it = rs->find(k); it != rs->end() && it->is_string()) {
      type = it->get<std::string>();
      break;
    }
  if (type == "default") return out;
  if (type != "llama3")
    throw Error(r.path(), "rope_scaling/rope_type",
                "'" + type + "' is not supported (default or llama3)");
  for (const char* k :
       {"factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"})
    if (!rs->contains(k)) throw Error(r.path(), std::string("rope_scaling/") + k, "missing");
  out.type = type;
  out.factor = r.number("factor", 1, 1, 1e6, rs, "rope_scaling/");
  out.low_freq_factor = r.number("low_freq_factor", 1, 1e-6, 1e6, rs, "rope_scaling/");
  out.high_freq_factor = r.number("high_freq_factor", 4, 1e-6, 1e6, rs, "rope_scaling/");
  if (!(out.high_freq_factor > out.low_freq_factor))
    throw Error(r.path(), "rope_scaling/high_freq_factor", "must be above low_freq_factor");
  out.original_max_position_embeddings = static_cast<std::uint32_t>(
      r.number("original_max_position_embeddings", 0, 1, 1 << 24, rs, "rope_scaling/"));
  return out;
}

// Refuses what the forward pass does not compute, so an unsupported checkpoint fails loudly
// instead of producing wrong logits.
void refuse_unsupported(const ConfigReader& r, const std::string& arch) {
  if (r.str("hidden_act", "silu") != "silu")
    throw Error(r.path(), "hidden_act",
                "'" + r.str("hidden_act", "") + "' is not supported (the reference model is silu)");
  if (r.boolean("mlp_bias", false))
    throw Error(r.path(), "mlp_bias", "MLP biases are not supported");
  if (r.get("quantization_config"))
    throw Error(r.path(), "quantization_config",
                "quantized checkpoints are not supported (F32, BF16 or F16 weights only)");
  if (r.number("partial_rotary_factor", 1, 0, 1) != 1)
    throw Error(r.path(), "partial_rotary_factor", "partial RoPE is not supported");
  if ((arch == "Qwen2ForCausalLM" || arch == "Qwen3ForCausalLM") &&
      r.boolean("use_sliding_window", false))
    throw Error(r.path(), "use_sliding_window", "sliding-window layers are not supported");
  if (const json* lt = r.get("layer_types"); lt && lt->is_array())
    for (const auto& t : *lt)
      if (!t.is_string() || t.get<std::string>() != "full_attention")
        throw Error(r.path(), "layer_types",
                    "only full_attention layers are supported, got " + t.dump());
}

// The reference model's shape from a Hugging Face config.json of architecture `arch`.
Llama2cConfig hf_config(const ConfigReader& r, const std::string& arch,
                        const std::string& cfg_path) {
  Llama2cConfig c;
  c.dim = r.u32("hidden_size", 1 << 16);
  c.hidden_dim = r.u32("intermediate_size", 1 << 18);
  c.n_layers = r.u32("num_hidden_layers", 1 << 10);
  c.n_heads = r.u32("num_attention_heads", 1 << 10);
  c.n_kv_heads = r.u32("num_key_value_heads", 1 << 10, c.n_heads);  // absent: MHA (HF default)
  c.vocab_size = r.u32("vocab_size", 1 << 21);
  c.seq_len = r.u32("max_position_embeddings", 1 << 22);
  if (!r.get("head_dim") && c.dim % c.n_heads != 0)
    throw Error(cfg_path, "num_attention_heads",
                "must divide hidden_size (" + std::to_string(c.dim) + ") when head_dim is absent");
  c.head_dim = r.u32("head_dim", 1 << 12, c.dim / c.n_heads);
  if (c.n_heads % c.n_kv_heads != 0)
    throw Error(cfg_path, "num_key_value_heads",
                "must divide num_attention_heads (" + std::to_string(c.n_heads) + "), got " +
                    std::to_string(c.n_kv_heads));
  if (c.head_dim % 2 != 0)
    throw Error(cfg_path, "head_dim", "must be even for RoPE, got " + std::to_string(c.head_dim));
  // Defaults are transformers' LlamaConfig / Qwen2Config / Qwen3Config ones (rms_norm_eps 1e-6,
  // rope_theta 10000, tie_word_embeddings false, attention_bias false).
  c.norm_eps = static_cast<float>(r.number("rms_norm_eps", 1e-6, 0, 1));
  c.shared_classifier = r.boolean("tie_word_embeddings", false);
  const bool attention_bias = r.boolean("attention_bias", false);
  // Qwen2Attention: q/k/v with bias, o without (modeling_qwen2.py); Llama and Qwen3: all four
  // follow attention_bias; Qwen3 adds q_norm/k_norm (modeling_qwen3.py).
  c.qkv_bias = arch == "Qwen2ForCausalLM" || attention_bias;
  c.o_bias = arch != "Qwen2ForCausalLM" && attention_bias;
  c.qk_norm = arch == "Qwen3ForCausalLM";
  // Mistral's sliding window: full attention equals it only up to the window, so the reference
  // model's context stops there.
  if (arch == "MistralForCausalLM")
    if (r.get("sliding_window")) c.seq_len = std::min(c.seq_len, r.u32("sliding_window", 1u << 30));
  return c;
}

// Reads the checkpoint's tensors to the float offsets `o` (Llama2cModel's private Offsets,
// deduced rather than named) from `base`.
void read_hf_weights(const Weights& w, const Llama2cConfig& c, const auto& o, float* base) {
  const std::uint64_t d = c.dim, hs = c.head_dim, hid = c.hidden_dim, V = c.vocab_size;
  const std::uint64_t qd = mul(c.n_heads, hs), kvd = mul(c.n_kv_heads, hs);
  const auto per_layer = [&](std::size_t off, const std::string& suffix,
                             std::vector<std::uint64_t> shape) {
    const std::uint64_t n = shape.size() == 1 ? shape[0] : shape[0] * shape[1];
    for (std::uint32_t l = 0; l < c.n_layers; ++l)
      w.read("model.layers." + std::to_string(l) + "." + suffix, shape, base + off + l * n);
  };
  // Tied: the embedding is embed_tokens, else (dropped as a duplicate) lm_head itself.
  const auto emb = w.find("model.embed_tokens.weight");
  if (emb.tensor) {
    w.read(emb, "model.embed_tokens.weight", {V, d}, base + o.emb);
  } else if (c.shared_classifier && w.find("lm_head.weight").tensor) {
    w.read("lm_head.weight", {V, d}, base + o.emb);
  } else {
    throw Error(w.where(), "model.embed_tokens.weight", "tensor missing from the checkpoint");
  }
  per_layer(o.rms_att, "input_layernorm.weight", {d});
  per_layer(o.wq, "self_attn.q_proj.weight", {qd, d});
  per_layer(o.wk, "self_attn.k_proj.weight", {kvd, d});
  per_layer(o.wv, "self_attn.v_proj.weight", {kvd, d});
  per_layer(o.wo, "self_attn.o_proj.weight", {d, qd});
  per_layer(o.rms_ffn, "post_attention_layernorm.weight", {d});
  per_layer(o.w1, "mlp.gate_proj.weight", {hid, d});
  per_layer(o.w2, "mlp.down_proj.weight", {d, hid});
  per_layer(o.w3, "mlp.up_proj.weight", {hid, d});
  w.read("model.norm.weight", {d}, base + o.rms_final);
  if (!c.shared_classifier) w.read("lm_head.weight", {V, d}, base + o.cls);
  if (c.qkv_bias) {
    per_layer(o.bq, "self_attn.q_proj.bias", {qd});
    per_layer(o.bk, "self_attn.k_proj.bias", {kvd});
    per_layer(o.bv, "self_attn.v_proj.bias", {kvd});
  }
  if (c.o_bias) per_layer(o.bo, "self_attn.o_proj.bias", {d});
  if (c.qk_norm) {
    per_layer(o.q_norm, "self_attn.q_norm.weight", {hs});
    per_layer(o.k_norm, "self_attn.k_norm.weight", {hs});
  }
}

}  // namespace

std::vector<double> rope_inv_freq(double theta, std::uint32_t dims, const RopeScaling& scaling) {
  std::vector<double> f(dims / 2);
  for (std::uint32_t i = 0; i < dims / 2; ++i)
    f[i] = 1.0 / std::pow(theta, static_cast<double>(2 * i) / dims);
  // The kernels' formula (one definition for the replay, the re-rotation and this table).
  const kernels::RopeLlama3 s =
      kernel_rope({.theta = theta, .dims = dims, .scaling = scaling}).llama3;
  for (double& x : f) x = kernels::rope_scaled_inv_freq(x, s);
  return f;
}

Llama2cModel Llama2cModel::load_hf(const std::string& dir_text) {
  const fs::path dir(dir_text);
  const std::string cfg_path = (dir / "config.json").string();
  const json j = read_json(dir / "config.json");
  const ConfigReader r(j, cfg_path);
  Llama2cModel m;
  m.path_ = dir_text;
  m.architecture_ = architecture_of(j, cfg_path);
  refuse_unsupported(r, m.architecture_);
  m.cfg_ = hf_config(r, m.architecture_, cfg_path);
  const Llama2cConfig& c = m.cfg_;
  m.rope_ = {r.number("rope_theta", 10000, 1, 1e12), c.head_dim, RopeStyle::half};
  m.rope_scaling_ = rope_scaling_of(r);

  const Weights w(dir);
  const std::uint64_t L = c.n_layers, d = c.dim, hs = c.head_dim;
  const std::uint64_t qd = mul(c.n_heads, hs), kvd = mul(c.n_kv_heads, hs);
  Offsets& o = m.off_;
  std::uint64_t at = lay_out(o, c, hs, 0);  // then the optional tensors llama2.c has not
  auto take = [&](std::uint64_t n) {
    const std::uint64_t off = at;
    at = add(at, n, "checkpoint size");
    return static_cast<std::size_t>(off);
  };
  if (c.qkv_bias) {
    o.bq = take(mul(L, qd));
    o.bk = take(mul(L, kvd));
    o.bv = take(mul(L, kvd));
  }
  if (c.o_bias) o.bo = take(mul(L, d));
  if (c.qk_norm) {
    o.q_norm = take(mul(L, hs));
    o.k_norm = take(mul(L, hs));
  }
  constexpr std::uint64_t kMaxFloats = std::uint64_t{1} << 36;  // 256 GiB of float32
  if (at > kMaxFloats)
    throw Error(cfg_path, "",
                "the model has " + std::to_string(at) +
                    " parameters, too many to hold in float32 for the reference model");
  m.w_.resize(at);
  read_hf_weights(w, c, o, m.w_.data());
  return m;
}

}  // namespace kvplan::sim
