#include "kvplan/model.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

#include "embedded.hpp"
#include "hf_config.hpp"
#include "json_read.hpp"
#include "kvplan/checked.hpp"
#include "kvplan/error.hpp"
#include "kvplan/text_safe.hpp"

namespace kvplan {

namespace {

constexpr std::uint64_t kMaxLayers = 4096;
constexpr std::uint64_t kMaxHeads = 4096;
constexpr std::uint64_t kMaxDim = 65536;
constexpr std::uint64_t kMaxContext = std::uint64_t{1} << 32;

// A layer name of the kvplan schema: full, sliding, chunked, none, recurrent (state only), or an
// attention kind with "+recurrent" (Falcon-H1: attention and a Mamba-2 mixer in one layer).
LayerSpec layer_from(const std::string& s, const std::string& source, const std::string& ptr) {
  LayerSpec l;
  std::string kind = s;
  const std::string suffix = "+recurrent";
  if (kind.size() > suffix.size() && kind.ends_with(suffix)) {
    l.recurrent = true;
    kind.resize(kind.size() - suffix.size());
  }
  if (kind == "full") {
    l.kind = AttentionKind::full;
  } else if (kind == "sliding") {
    l.kind = AttentionKind::sliding;
  } else if (kind == "chunked") {
    l.kind = AttentionKind::chunked;
  } else if (kind == "none") {
    l.kind = AttentionKind::none;
  } else if (kind == "recurrent" && !l.recurrent) {
    l.kind = AttentionKind::none;
    l.recurrent = true;
  } else {
    throw Error(source, ptr,
                "expected full, sliding, chunked, none, recurrent or an attention kind with "
                "\"+recurrent\", got \"" +
                    s + "\"");
  }
  return l;
}

KvDtype state_dtype_from(const std::string& s, const std::string& source, const std::string& ptr) {
  if (s == "fp32") return KvDtype::fp32;
  if (s == "fp16") return KvDtype::fp16;
  if (s == "bf16") return KvDtype::bf16;
  throw Error(source, ptr, "expected fp32, fp16 or bf16, got \"" + s + "\"");
}

// "layer_overrides": [{"layer": 31, "num_kv_heads": 8, "head_dim": 128, "v_head_dim": 128}]:
// layers whose attention geometry is their own (LayerSpec::kv_heads / head dims); v_head_dim
// defaults to the entry's head_dim, else the model's. A layer may appear once.
void read_layer_overrides(detail::JsonObject& o, ModelSpec& m, const std::string& source) {
  const auto& list = o.raw("layer_overrides");
  if (!list.is_array()) throw Error(source, "/layer_overrides", "expected an array of objects");
  std::vector<bool> seen(m.layers.size(), false);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string ptr = "/layer_overrides/" + std::to_string(i);
    if (!list[i].is_object()) throw Error(source, ptr, "expected an object");
    detail::JsonObject e(list[i], source, ptr);
    const auto layer = e.uint("layer", 0, m.layers.size() - 1);
    if (seen[layer]) throw Error(source, e.pointer("layer"), "layer listed twice");
    seen[layer] = true;
    LayerSpec& l = m.layers[layer];
    // Named as the user wrote them (validate() below knows only /layers/N, not in the file).
    if (m.is_mla())
      throw Error(source, ptr,
                  "an MLA model caches one latent width in every layer; per-layer KV heads or "
                  "head dims are not supported");
    if (l.kind == AttentionKind::none)
      throw Error(source, e.pointer("layer"),
                  "layer " + std::to_string(layer) + " has no attention, so no KV geometry");
    l.kv_heads = static_cast<std::uint32_t>(e.opt_uint("num_kv_heads", 1, kMaxHeads).value_or(0));
    l.head_dim_k = static_cast<std::uint32_t>(e.opt_uint("head_dim", 1, kMaxDim).value_or(0));
    l.head_dim_v = static_cast<std::uint32_t>(
        e.opt_uint("v_head_dim", 1, kMaxDim).value_or(l.head_dim_k ? l.head_dim_k : 0));
    if (l.head_dim_v && !l.head_dim_k) l.head_dim_k = m.head_dim_k;
    e.finish();
    if (!l.kv_heads && !l.head_dim_k)
      throw Error(source, ptr, "names no num_kv_heads, head_dim or v_head_dim");
  }
}

RecurrentSpec parse_recurrent(detail::JsonObject& r) {
  RecurrentSpec out;
  const auto kind = r.str("kind");
  auto dim = [&](const char* key) {
    return static_cast<std::uint32_t>(r.uint(key, 1, kMaxDim * 64));
  };
  if (kind == "mamba") {
    out.kind = MixerKind::mamba;
    out.d_inner = dim("d_inner");
    out.d_state = dim("d_state");
    out.d_conv = dim("d_conv");
  } else if (kind == "mamba2") {
    out.kind = MixerKind::mamba2;
    out.heads = dim("heads");
    out.head_dim = dim("head_dim");
    out.d_inner = out.heads * out.head_dim;
    out.n_groups = dim("n_groups");
    out.d_state = dim("d_state");
    out.d_conv = dim("d_conv");
  } else if (kind == "gated_delta_net") {
    out.kind = MixerKind::gated_delta_net;
    out.heads = dim("heads");
    out.head_dim = dim("head_dim");
    out.key_heads = dim("key_heads");
    out.key_head_dim = dim("key_head_dim");
    out.d_conv = dim("d_conv");
    out.kda = r.opt_bool("kda").value_or(false);
  } else if (kind == "lightning") {
    out.kind = MixerKind::lightning;
    out.heads = dim("heads");
    out.head_dim = dim("head_dim");
  } else if (kind == "shapes") {
    // One rank's state tensors as vLLM's MambaSpec states them: elements of each (0 = absent).
    out.kind = MixerKind::shapes;
    out.conv_elements = r.opt_uint("conv_elements", 0, std::uint64_t{1} << 40).value_or(0);
    out.ssm_elements = r.opt_uint("ssm_elements", 0, std::uint64_t{1} << 40).value_or(0);
    if (out.conv_elements + out.ssm_elements == 0)
      throw Error(r.source(), r.pointer("ssm_elements"),
                  "a state given by its shapes needs conv_elements or ssm_elements above 0");
  } else {
    throw Error(
        r.source(), r.pointer("kind"),
        "expected mamba, mamba2, gated_delta_net, lightning or shapes, got \"" + kind + "\"");
  }
  out.conv_dtype = state_dtype_from(r.str("conv_dtype"), r.source(), r.pointer("conv_dtype"));
  out.ssm_dtype = state_dtype_from(r.str("ssm_dtype"), r.source(), r.pointer("ssm_dtype"));
  out.ssm_dtype_pinned = out.ssm_dtype != out.conv_dtype;
  out.ssm_cache_dtype = out.ssm_dtype;
  r.finish();
  return out;
}

ModelSpec parse_kvplan_model(const nlohmann::json& j, const std::string& source);

const detail::EmbeddedFile* find_embedded(const std::string& rel);

// A preset wrapping a verbatim Hugging Face config (inline as "hf_config", or the file
// "hf_config_file" names: an embedded models/hf/ file, else a path beside the wrapper): the
// config is imported as a config.json would be; the wrapper names it, says where it was
// published and which repos it stands for.
ModelSpec parse_hf_wrapper(detail::JsonObject& o, const std::string& source) {
  const std::string id = o.str("id");
  const std::string name = o.opt_str("name").value_or(id);
  const std::string url = o.str("source");
  std::vector<std::string> repos;
  if (o.has("hf_repos")) repos = o.strings("hf_repos");
  const auto published = o.opt_uint("published_params", 1, std::uint64_t{1} << 50);
  nlohmann::json cfg;
  std::string cfg_source;
  if (o.has("hf_config_file")) {
    const auto rel = o.str("hf_config_file");
    if (o.has("hf_config"))
      throw Error(source, "/hf_config", "give either hf_config or hf_config_file, not both");
    if (const auto* f = find_embedded(rel)) {
      cfg_source = "preset file " + rel;
      cfg = detail::parse_json_text(f->text, cfg_source, detail::JsonDialect::hf_config);
    } else {
      const auto path = (std::filesystem::path(source).parent_path() / rel).string();
      cfg_source = path;
      cfg = detail::parse_json_text(detail::read_text_file(path, "HF config"), path,
                                    detail::JsonDialect::hf_config);
    }
  } else {
    cfg = o.raw("hf_config");
    cfg_source = source + ": /hf_config";
  }
  o.finish();
  if (!detail::looks_like_hf_config(cfg))
    throw Error(cfg_source, "/model_type", "expected a Hugging Face config object");
  ModelSpec m = detail::import_hf_config(cfg, cfg_source);
  m.id = id;
  m.name = name;
  m.source = url;
  m.hf_repos = std::move(repos);
  m.published_params = published.value_or(0);
  return m;
}

// The widths the memory model reads (hidden, vocabulary, MLP, tied head) and the weights: their
// count, dtype, and the embedding and lm_head in the checkpoint's dtype (these files describe
// unquantized checkpoints).
void read_widths_and_weights(detail::JsonObject& o, const std::string& source, ModelSpec& m) {
  m.hidden_size = static_cast<std::uint32_t>(o.opt_uint("hidden_size", 1, 1u << 20).value_or(0));
  m.vocab_size = static_cast<std::uint32_t>(o.opt_uint("vocab_size", 1, 1u << 24).value_or(0));
  m.intermediate_size =
      static_cast<std::uint32_t>(o.opt_uint("intermediate_size", 1, 1u << 24).value_or(0));
  m.tie_word_embeddings = o.opt_bool("tie_word_embeddings").value_or(false);
  m.num_params = o.uint("num_params", 1, std::uint64_t{1} << 50);
  m.weight_dtype = o.str("weight_dtype");
  const double bpp = weight_bytes_per_param(m.weight_dtype, source, "/weight_dtype");
  const std::uint64_t table = static_cast<std::uint64_t>(m.vocab_size) * m.hidden_size;
  m.weights.embed_bytes = static_cast<std::uint64_t>(static_cast<double>(table) * bpp);
  m.weights.head_bytes = m.tie_word_embeddings ? 0 : m.weights.embed_bytes;
}

// The "attention" object: every layer full, sliding, or a pattern or list of per-layer kinds
// (sliding with "window", chunked with "chunk", recurrent with the model's "recurrent" mixer),
// repeated over `layers`.
void read_attention(detail::JsonObject& att, std::uint64_t layers, const std::string& source,
                    ModelSpec& m) {
  const std::string type = att.str("type");
  const auto ptr = att.pointer("type");
  std::vector<std::string> names;
  if (type == "none") {
    if (m.is_mla()) throw Error(source, ptr, "an MLA model caches its latent: not \"none\"");
    names.assign(1, "none");
    m.attention_free = true;
  } else if (type == "full") {
  } else if (type == "sliding") {
    names.assign(1, "sliding");
  } else if (type == "pattern") {
    names = att.strings("pattern");
    if (names.empty()) throw Error(source, att.pointer("pattern"), "must not be empty");
  } else if (type == "layers") {
    names = att.strings("layers");
    if (names.size() != layers)
      throw Error(source, att.pointer("layers"),
                  "has " + std::to_string(names.size()) + " entries, num_layers is " +
                      std::to_string(layers));
  } else {
    throw Error(source, ptr,
                "expected full, sliding, pattern, layers or none, got \"" + type + "\"");
  }
  const std::string list_key = type == "layers" ? "layers" : "pattern";
  std::vector<LayerSpec> kinds;
  bool windowed = false, chunked = false, recurrent = false;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string at = att.pointer(list_key) + "/" + std::to_string(i);
    kinds.push_back(layer_from(names[i], source, at));
    if (m.is_mla()) {
      // An MLA model's layers: MLA ("full") or a recurrent state alone (GLM-5.3-Flash,
      // Kimi-Linear).
      const LayerSpec& l = kinds.back();
      if (l.kind == AttentionKind::full && !l.recurrent)
        kinds.back().kind = AttentionKind::mla;
      else if (l.kind != AttentionKind::none || !l.recurrent)
        throw Error(
            source, at,
            "an MLA model's layers are \"full\" (MLA) or \"recurrent\", got \"" + names[i] + "\"");
    }
    windowed = windowed || kinds.back().kind == AttentionKind::sliding;
    chunked = chunked || kinds.back().kind == AttentionKind::chunked;
    recurrent = recurrent || kinds.back().recurrent;
  }
  std::uint64_t window = 0, chunk = 0;
  if (windowed)
    window = att.uint("window", 1, kMaxContext);
  else
    att.opt_uint("window", 1, kMaxContext);
  if (chunked)
    chunk = att.uint("chunk", 1, kMaxContext);
  else
    att.opt_uint("chunk", 1, kMaxContext);
  if (recurrent && m.recurrent.kind == MixerKind::none)
    throw Error(source, "/recurrent", "missing: the attention layers name recurrent layers");
  for (std::size_t i = 0; i < (kinds.empty() ? 0 : layers); ++i) {
    m.layers[i] = kinds[i % kinds.size()];
    if (m.layers[i].kind == AttentionKind::sliding) m.layers[i].window = window;
    if (m.layers[i].kind == AttentionKind::chunked) m.layers[i].window = chunk;
  }
  att.finish();
}

ModelSpec parse_kvplan_model(const nlohmann::json& j, const std::string& source) {
  detail::JsonObject o(j, source, "");
  const auto version = o.uint("kvplan_model", 1, 1000);
  if (version != 1)
    throw Error(
        source, "/kvplan_model",
        "unsupported schema version " + std::to_string(version) + " (this kvplan reads version 1)");
  if (o.has("hf_config") || o.has("hf_config_file")) return parse_hf_wrapper(o, source);
  ModelSpec m;
  m.id = o.str("id");
  m.name = o.opt_str("name").value_or(m.id);
  m.source = o.str("source");
  const auto layers = o.uint("num_layers", 1, kMaxLayers);
  m.num_q_heads = static_cast<std::uint32_t>(o.uint("num_attention_heads", 1, kMaxHeads));
  m.num_kv_heads = static_cast<std::uint32_t>(o.uint("num_kv_heads", 1, kMaxHeads));
  m.head_dim_k = static_cast<std::uint32_t>(o.uint("head_dim", 1, kMaxDim));
  m.head_dim_v =
      static_cast<std::uint32_t>(o.opt_uint("v_head_dim", 1, kMaxDim).value_or(m.head_dim_k));
  m.max_context = o.uint("max_context", 1, kMaxContext);
  read_widths_and_weights(o, source, m);
  m.mtp_layers = static_cast<std::uint32_t>(o.opt_uint("mtp_layers", 0, 64).value_or(0));
  if (o.has("hf_repos")) m.hf_repos = o.strings("hf_repos");
  if (auto r = o.opt_object("recurrent")) m.recurrent = parse_recurrent(*r);

  m.layers.assign(layers, LayerSpec{});
  if (auto mla = o.opt_object("mla")) {
    m.kv_lora_rank = static_cast<std::uint32_t>(mla->uint("kv_lora_rank", 1, kMaxDim));
    m.qk_rope_head_dim = static_cast<std::uint32_t>(mla->uint("qk_rope_head_dim", 0, kMaxDim));
    // A sparse-attention indexer beside every MLA layer (DeepSeek-V3.2, GLM-5.3-Flash's kpool).
    m.index_head_dim =
        static_cast<std::uint32_t>(mla->opt_uint("index_head_dim", 1, kMaxDim).value_or(0));
    m.index_kpool =
        static_cast<std::uint32_t>(mla->opt_uint("index_kpool", 1, 1u << 16).value_or(0));
    m.index_tail = mla->opt_bool("index_tail").value_or(false);
    mla->finish();
    for (auto& l : m.layers) l.kind = AttentionKind::mla;
  }
  if (auto att = o.opt_object("attention")) read_attention(*att, layers, source, m);
  if (o.has("layer_overrides")) read_layer_overrides(o, m, source);
  o.finish();
  // MLA: the latent is one stream, one "head" that TP does not shard.
  if (m.is_mla()) {
    m.num_kv_heads = 1;
    m.head_dim_k = m.latent_width();
    m.head_dim_v = 0;
  }
  throw_if_any(source, validate(m));
  return m;
}

const detail::EmbeddedFile* find_embedded(const std::string& rel) {
  for (const auto& f : detail::embedded_files())
    if (rel == f.path) return &f;
  return nullptr;
}

}  // namespace

std::uint32_t ModelSpec::cached_layers() const {
  std::uint32_t n = 0;
  for (const auto& l : layers) n += l.kind != AttentionKind::none;
  return n;
}

std::uint32_t ModelSpec::recurrent_layers() const {
  std::uint32_t n = 0;
  for (const auto& l : layers) n += l.recurrent;
  return n;
}

std::uint64_t ModelSpec::weight_bytes() const {
  if (weights.bytes > 0) return weights.bytes;
  const double bpp = weight_bytes_per_param(weight_dtype, source, "/weight_dtype");
  const auto half_bytes = static_cast<std::uint64_t>(bpp * 2);
  return ceil_div(mul(num_params, half_bytes, "weight bytes"), 2);
}

std::string to_string(MixerKind k) {
  switch (k) {
    case MixerKind::none:
      return "none";
    case MixerKind::mamba:
      return "mamba";
    case MixerKind::mamba2:
      return "mamba2";
    case MixerKind::gated_delta_net:
      return "gated_delta_net";
    case MixerKind::lightning:
      return "lightning";
    case MixerKind::shapes:
      return "shapes";
  }
  return "?";
}

std::string to_string(AttentionKind k) {
  switch (k) {
    case AttentionKind::full:
      return "full";
    case AttentionKind::sliding:
      return "sliding";
    case AttentionKind::chunked:
      return "chunked";
    case AttentionKind::mla:
      return "mla";
    case AttentionKind::none:
      return "none";
  }
  return "?";
}

namespace {

std::uint64_t shard(std::uint64_t n, std::uint32_t tp, const char* what,
                    const std::string& source) {
  if (n % tp != 0)
    throw Error(source, "tp",
                "tensor parallelism " + std::to_string(tp) + " does not divide the " +
                    std::to_string(n) + " " + what + " of the recurrent layers");
  return n / tp;
}

std::uint64_t dtype_bytes(KvDtype d) { return d == KvDtype::fp32 ? 4 : 2; }

}  // namespace

RecurrentState recurrent_state(const RecurrentSpec& r, std::uint32_t tp, KvDtype conv_dtype,
                               KvDtype ssm_dtype, const std::string& source) {
  if (tp == 0) throw Error(source, "tp", "must be at least 1, got 0");
  RecurrentState s;
  const std::uint64_t conv_keep = r.d_conv > 0 ? r.d_conv - 1 : 0;
  switch (r.kind) {
    case MixerKind::none:
      return s;
    case MixerKind::mamba:
      // MambaStateShapeCalculator.mamba1_state_shape: conv (d_inner/tp, d_conv − 1),
      // temporal (d_inner/tp, d_state).
      s.conv_elements = mul(shard(r.d_inner, tp, "channels", source), conv_keep);
      s.ssm_elements = mul(shard(r.d_inner, tp, "channels", source), r.d_state);
      break;
    case MixerKind::mamba2: {
      // mamba2_state_shape: n_groups is raised to tp when tp does not divide it (the groups are
      // replicated so that every rank has its own), conv channels (d_inner + 2·groups·d_state)/tp,
      // temporal (heads/tp, head_dim, d_state).
      std::uint64_t groups = r.n_groups;
      if (groups % tp != 0) groups = tp;
      const std::uint64_t conv_dim = add(r.d_inner, mul(2 * groups, r.d_state));
      s.conv_elements = mul(shard(conv_dim, tp, "conv channels", source), conv_keep);
      s.ssm_elements = mul(mul(shard(r.heads, tp, "heads", source), r.head_dim), r.d_state);
      break;
    }
    case MixerKind::gated_delta_net: {
      // gated_delta_net_state_shape: conv channels (2·key_heads·key_dim + heads·head_dim)/tp,
      // temporal (heads/tp, key_head_dim, head_dim).
      const std::uint64_t conv_dim =
          add(mul(2 * std::uint64_t{r.key_heads}, r.key_head_dim), mul(r.heads, r.head_dim));
      s.conv_elements = mul(shard(conv_dim, tp, "conv channels", source), conv_keep);
      // KDA (KimiLinearStateShape.create): temporal (heads/tp, head_dim, head_dim).
      s.ssm_elements =
          mul(mul(shard(r.heads, tp, "heads", source), r.kda ? r.head_dim : r.key_head_dim),
              r.head_dim);
      break;
    }
    case MixerKind::lightning:
      // linear_attention_state_shape: (heads/tp, head_dim, head_dim), no conv.
      s.ssm_elements = mul(mul(shard(r.heads, tp, "heads", source), r.head_dim), r.head_dim);
      break;
    case MixerKind::shapes:
      // MambaSpec.page_size_bytes: Σ prod(shape) · dtype size over the given (per-rank) tensors.
      s.conv_elements = r.conv_elements;
      s.ssm_elements = r.ssm_elements;
      break;
  }
  s.conv_bytes = mul(s.conv_elements, dtype_bytes(conv_dtype), "state bytes");
  s.ssm_bytes = mul(s.ssm_elements, dtype_bytes(ssm_dtype), "state bytes");
  return s;
}

double weight_bytes_per_param(const std::string& dtype, const std::string& source,
                              const std::string& field) {
  static const std::map<std::string, double> k = {
      {"fp32", 4}, {"fp16", 2}, {"bf16", 2}, {"fp8", 1}, {"int8", 1}, {"int4", 0.5}, {"fp4", 0.5}};
  auto it = k.find(dtype);
  if (it == k.end())
    throw Error(
        source, field,
        "unknown weight dtype \"" + dtype + "\" (expected fp32, fp16, bf16, fp8, int8, int4, fp4)");
  return it->second;
}

std::vector<Problem> validate(const ModelSpec& m) {
  std::vector<Problem> p;
  if (m.layers.empty()) p.push_back({"/num_layers", "must be at least 1"});
  if (m.num_q_heads == 0) p.push_back({"/num_attention_heads", "must be at least 1"});
  if (m.num_kv_heads == 0) p.push_back({"/num_kv_heads", "must be at least 1"});
  if (!m.is_mla() && m.num_kv_heads && m.num_q_heads % m.num_kv_heads != 0)
    p.push_back({"/num_kv_heads", "must divide num_attention_heads (" +
                                      std::to_string(m.num_q_heads) + "), got " +
                                      std::to_string(m.num_kv_heads)});
  if (!m.is_mla() && (m.head_dim_k == 0 || m.head_dim_v == 0))
    p.push_back({"/head_dim", "must be at least 1"});
  for (std::size_t i = 0; i < m.layers.size(); ++i) {
    const auto& l = m.layers[i];
    if ((l.kind == AttentionKind::sliding || l.kind == AttentionKind::chunked) && l.window == 0) {
      p.push_back({"/attention/window",
                   to_string(l.kind) + " layer " + std::to_string(i) + " has window 0"});
      break;
    }
  }
  for (std::size_t i = 0; i < m.layers.size(); ++i) {
    const auto& l = m.layers[i];
    const bool own = l.kv_heads || l.head_dim_k || l.head_dim_v;
    if (own && m.is_mla()) {
      p.push_back({"/layers/" + std::to_string(i),
                   "an MLA model caches one latent width in every layer; per-layer KV heads or "
                   "head dims are not supported"});
      break;
    }
    if (own && l.kind == AttentionKind::none) {
      p.push_back({"/layers/" + std::to_string(i), "a layer without attention has no KV geometry"});
      break;
    }
  }
  const bool any_recurrent = m.recurrent_layers() > 0;
  if (any_recurrent && m.recurrent.kind == MixerKind::shapes &&
      m.recurrent.conv_elements + m.recurrent.ssm_elements == 0)
    p.push_back({"/recurrent", "a state given by its shapes must have at least one element"});
  if (any_recurrent && m.recurrent.kind == MixerKind::none)
    p.push_back({"/recurrent", "layers hold a recurrent state but the mixer is not described"});
  if (m.attention_free && (m.cached_layers() > 0 || any_recurrent || m.mtp_layers > 0))
    p.push_back({"/attention",
                 "declared \"none\" (attention-free), but a layer holds a KV cache "
                 "or a recurrent state"});
  if (!m.attention_free && m.cached_layers() == 0 && !any_recurrent)
    p.push_back({"/attention",
                 "no layer holds a KV cache or a recurrent state (a model without a KV cache "
                 "says so: \"attention\": {\"type\": \"none\"})"});
  if (m.is_mla() && m.num_kv_heads != 1)
    p.push_back({"/num_kv_heads", "an MLA model caches one latent per token (num_kv_heads 1)"});
  // RoPE rotates dimensions in pairs (DeepSeek-V2's decoupled key: qk_rope_head_dim 64), so an
  // odd count leaves one dimension no rotation can use.
  if (m.index_kpool > 1 && m.index_head_dim == 0)
    p.push_back({"/mla/index_kpool",
                 "pools indexer keys, but the model has no indexer "
                 "(index_head_dim)"});
  if (m.index_tail && m.index_kpool <= 1)
    p.push_back({"/mla/index_tail",
                 "the tail holds a kpool's incomplete pool: index_kpool must "
                 "be at least 2"});
  if (m.is_mla() && m.qk_rope_head_dim % 2 != 0)
    p.push_back({"/mla/qk_rope_head_dim", "RoPE rotates pairs of dimensions: must be even, got " +
                                              std::to_string(m.qk_rope_head_dim)});
  return p;
}

ModelSpec parse_model_json(const std::string& text, const std::string& source) {
  std::vector<std::string> warnings;
  const auto j = detail::parse_json_text(text, source, detail::JsonDialect::model_file, &warnings);
  if (j.is_object() && !j.contains("kvplan_model") && detail::looks_like_hf_config(j)) {
    auto m = detail::import_hf_config(j, source);
    m.warnings = std::move(warnings);
    return m;
  }
  if (j.is_object() && !j.contains("kvplan_model"))
    throw Error(source, "/kvplan_model",
                "missing: not a kvplan model file (\"kvplan_model\": 1) nor a Hugging Face "
                "config.json (\"model_type\")");
  return parse_kvplan_model(j, source);
}

// Suffixes of Hugging Face repo names that mark the same architecture and the same weight
// layout (post-training variants), so a preset of the base model stands for them. Quantized
// variants (-FP8, -AWQ, ...) are not among them: their weights differ.
std::string strip_repo_variant(std::string name) {
  static const char* const kSuffixes[] = {
      "-instruct-2507", "-thinking-2507", "-instruct", "-thinking", "-chat", "-base", "-hf", "-it"};
  name = ascii_lower(std::move(name));
  for (bool again = true; again;) {
    again = false;
    for (const char* suf : kSuffixes) {
      const std::string x = suf;
      if (name.size() > x.size() && name.ends_with(x)) {
        name.resize(name.size() - x.size());
        again = true;
      }
    }
  }
  return name;
}

namespace {

namespace fs = std::filesystem;

bool looks_like_repo_id(const std::string& s) {
  const auto slash = s.find('/');
  return slash != std::string::npos && slash > 0 && slash + 1 < s.size() &&
         s.find('/', slash + 1) == std::string::npos && s.front() != '.';
}

// Every embedded preset's id, name and hf_repos, sorted by id. The presets are compiled in, so
// the index is parsed once, on first use, and shared by every lookup after it.
const std::vector<PresetInfo>& preset_index() {
  static const std::vector<PresetInfo> index = [] {
    std::vector<PresetInfo> out;
    for (const auto& f : detail::embedded_files()) {
      std::string path = f.path;
      if (path.rfind("models/", 0) != 0) continue;
      const auto j = detail::parse_json_text(f.text, path);
      PresetInfo p{j.value("id", ""), j.value("name", ""), {}};
      if (j.contains("hf_repos") && j["hf_repos"].is_array())
        for (const auto& r : j["hf_repos"])
          if (r.is_string()) p.hf_repos.push_back(r.get<std::string>());
      out.push_back(std::move(p));
    }
    std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.id < b.id; });
    return out;
  }();
  return index;
}

// The preset standing for a Hugging Face repo id: listed in its hf_repos, or a listed repo of
// the same organisation that differs only by a post-training suffix.
std::optional<std::string> preset_for_repo(const std::string& repo) {
  const std::string want = ascii_lower(repo);
  const auto& presets = preset_index();
  for (const auto& p : presets)
    for (const auto& r : p.hf_repos)
      if (ascii_lower(r) == want) return p.id;
  const std::string base = strip_repo_variant(want);
  for (const auto& p : presets)
    for (const auto& r : p.hf_repos)
      if (strip_repo_variant(r) == base) return p.id;
  return std::nullopt;
}

// The Hugging Face hub cache (huggingface_hub's constants: HF_HUB_CACHE, else HF_HOME/hub,
// else XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub).
std::optional<fs::path> hub_cache_dir() {
  if (const char* c = std::getenv("HF_HUB_CACHE"); c && *c) return fs::path(c);
  if (const char* h = std::getenv("HF_HOME"); h && *h) return fs::path(h) / "hub";
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return fs::path(x) / "huggingface" / "hub";
  if (const char* home = std::getenv("HOME"); home && *home)
    return fs::path(home) / ".cache" / "huggingface" / "hub";
  return std::nullopt;
}

// What is wrong with one entry of a snapshot (a link to a blob, usually), or "" when it is a
// readable regular file or directory. Each failure has its own words, so a user can fix the
// cache: a symlink loop, a link to a blob that is not there, something that is not a file.
std::string broken_entry(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) {
    const int err = errno;
    struct stat l {};
    const bool link = ::lstat(p.c_str(), &l) == 0 && S_ISLNK(l.st_mode);
    if (err == ELOOP) return "is a symlink loop";
    if (err == ENOENT && link) {
      std::error_code ec;
      const auto target = fs::read_symlink(p, ec);
      return "is a dangling link" + (ec ? std::string() : " to " + target.string()) +
             " (the blob is missing: an interrupted download?)";
    }
    if (err == EACCES) return "cannot be read (permission denied on the way to it)";
    return std::string("cannot be read: ") + std::strerror(err);
  }
  if (S_ISDIR(st.st_mode))
    return ::access(p.c_str(), R_OK | X_OK) == 0
               ? ""
               : "is a directory that cannot be read (permission denied)";
  if (!S_ISREG(st.st_mode))
    return S_ISFIFO(st.st_mode) ? "is a FIFO, not a file" : "is not a regular file";
  if (::access(p.c_str(), R_OK) != 0) return "cannot be read (permission denied)";
  return "";
}

// Why a snapshot directory cannot serve as a model directory, or "" when it can: it must be a
// readable directory whose config.json and every other entry are readable files.
std::string broken_snapshot(const fs::path& snap) {
  if (auto why = broken_entry(snap); !why.empty()) return snap.string() + " " + why;
  std::error_code ec;
  fs::directory_iterator it(snap, ec);
  if (ec) return snap.string() + " cannot be listed: " + ec.message();
  bool config = false;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) return snap.string() + " cannot be listed: " + ec.message();
    const auto& e = it->path();
    if (e.filename() == "config.json") config = true;
    if (auto why = broken_entry(e); !why.empty()) return e.string() + " " + why;
  }
  if (!config) return snap.string() + " holds no config.json";
  return "";
}

// models--org--name/snapshots/<rev>/ (huggingface_hub's cache layout, file_download.py): the
// revision refs/main names, else the only snapshot, else the most recently written one. No
// folder for the repo: nullopt (not downloaded). A folder that is there but broken is an Error
// saying what is wrong, never a silent fallback to a preset of the same name: refs/main naming a
// path outside snapshots/ ("../x", "a/b"), a missing or unreadable snapshots/, a snapshot whose
// config.json or a blob link is dangling, loops, is a FIFO or cannot be read.
std::optional<fs::path> hub_snapshot(const std::string& repo) {
  const auto cache = hub_cache_dir();
  if (!cache) return std::nullopt;
  std::string folder = "models--" + repo;
  for (std::size_t i = folder.find('/'); i != std::string::npos; i = folder.find('/'))
    folder.replace(i, 1, "--");
  const fs::path root = *cache / folder;
  std::error_code ec;
  struct stat st {};
  if (::lstat(root.c_str(), &st) != 0) return std::nullopt;  // not in the cache
  const std::string where = root.string();
  if (auto why = broken_entry(root); !why.empty())
    throw Error(where, "", "the hub cache's folder of " + repo + " " + why);
  const fs::path snaps = root / "snapshots";
  if (auto why = broken_entry(snaps); !why.empty())
    throw Error(where, "snapshots", "the hub cache holds " + repo + ", but snapshots/ " + why);
  const fs::path main = root / "refs" / "main";
  if (::lstat(main.c_str(), &st) == 0) {
    if (auto why = broken_entry(main); !why.empty())
      throw Error(main.string(), "", "refs/main " + why);
    std::ifstream ref(main);
    std::string rev;
    std::getline(ref, rev);
    while (!rev.empty() && (rev.back() == '\r' || rev.back() == ' ')) rev.pop_back();
    // A revision is one directory name of snapshots/ (a commit hash): nothing that leaves it.
    if (rev.empty() || rev == "." || rev == ".." || rev.find('/') != std::string::npos ||
        rev.find('\\') != std::string::npos || rev.find('\0') != std::string::npos)
      throw Error(main.string(), "",
                  "names the revision \"" + rev.substr(0, 80) +
                      "\", which is not a directory name inside snapshots/ (a commit hash)");
    const fs::path snap = snaps / rev;
    if (auto why = broken_snapshot(snap); !why.empty())
      throw Error(main.string(), "", "names revision " + rev + ", but " + why);
    return snap;
  }
  std::optional<fs::path> best;
  fs::file_time_type best_time{};
  std::string first_broken;
  std::size_t count = 0;
  fs::directory_iterator it(snaps, ec);
  if (ec) throw Error(where, "snapshots", "cannot be listed: " + ec.message());
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) throw Error(where, "snapshots", "cannot be listed: " + ec.message());
    ++count;
    if (auto why = broken_snapshot(it->path()); !why.empty()) {
      if (first_broken.empty()) first_broken = why;
      continue;
    }
    const auto t = fs::last_write_time(it->path() / "config.json", ec);
    if (!best || t > best_time) best = it->path(), best_time = t;
  }
  if (!best)
    throw Error(where, "snapshots",
                "the hub cache holds " + repo + " but no usable snapshot" +
                    (count ? ": " + first_broken : " (snapshots/ is empty)"));
  return best;
}

// A model directory's config.json is read by transformers as plain UTF-8 and handed to Python's
// json.loads, which refuses a byte-order mark ("Unexpected UTF-8 BOM (decode using utf-8-sig)"),
// so no engine loads such a checkpoint: kvplan refuses it too rather than plan for it.
const std::string& without_bom_refusal(const std::string& text, const std::string& path) {
  if (fs::path(path).filename() == "config.json" && text.rfind("\xEF\xBB\xBF", 0) == 0)
    throw Error(path, "",
                "begins with a UTF-8 byte-order mark, which Python's json.loads "
                "(transformers, so vLLM, SGLang and TensorRT-LLM) refuses; save it "
                "as UTF-8 without a BOM");
  return text;
}

ModelSpec load_file(const std::string& path) {
  // A config.json beside an hf_quant_config.json (NVIDIA ModelOpt checkpoints keep their
  // quantization scheme there, not in config.json).
  const fs::path sibling = fs::path(path).parent_path() / "hf_quant_config.json";
  std::error_code ec;
  if (fs::path(path).filename() == "config.json" && fs::is_regular_file(sibling, ec)) {
    std::vector<std::string> warnings;
    const auto j = detail::parse_json_text(
        without_bom_refusal(detail::read_text_file(path, "model file"), path), path,
        detail::JsonDialect::hf_config, &warnings);
    const auto q =
        detail::parse_json_text(detail::read_text_file(sibling.string(), "quantization config"),
                                sibling.string(), detail::JsonDialect::hf_config, &warnings);
    if (!detail::looks_like_hf_config(j))
      throw Error(path, "/model_type", "missing: not a Hugging Face config.json");
    auto m = detail::import_hf_config(j, path, &q);
    m.id = fs::path(path).parent_path().filename().string();
    m.warnings = std::move(warnings);
    return m;
  }
  auto m =
      parse_model_json(without_bom_refusal(detail::read_text_file(path, "model file"), path), path);
  if (m.id.empty() || m.id == "config") {
    const fs::path p(path);
    const auto parent = p.parent_path().filename().string();
    m.id = fs::path(path).stem().string() == "config" && !parent.empty()
               ? parent
               : fs::path(path).stem().string();
  }
  return m;
}

// A model directory: its config.json, and the weight bytes of its safetensors files.
ModelSpec load_dir(const fs::path& dir, const std::string& id) {
  std::error_code ec;
  const auto cfg = dir / "config.json";
  if (!fs::is_regular_file(cfg, ec))
    throw Error(dir.string(), "config.json",
                "missing: a model directory holds the model's Hugging Face config.json");
  ModelSpec m = load_file(cfg.string());
  m.id = id;
  if (const auto w = detail::checkpoint_weights(dir)) {
    m.weights.expert_bytes = w->expert_bytes;
    m.weights.bytes = w->bytes;
    m.weights.vision_bytes = w->vision_bytes;
    m.weights.from_checkpoint = true;
  }
  return m;
}

}  // namespace

ModelSpec load_model(const std::string& id_or_path) {
  if (const auto* f = find_embedded("models/" + id_or_path + ".json")) {
    auto m = parse_model_json(f->text, "preset " + id_or_path);
    m.preset = m.id;
    return m;
  }
  std::error_code ec;
  std::string ref = id_or_path;
  while (ref.size() > 1 && ref.back() == '/') ref.pop_back();
  if (fs::is_directory(ref, ec)) return load_dir(ref, ref);
  if (fs::exists(ref, ec)) return load_file(ref);
  if (looks_like_repo_id(ref)) {
    if (const auto snap = hub_snapshot(ref)) return load_dir(*snap, ref);
    if (const auto preset = preset_for_repo(ref)) {
      auto m = load_model(*preset);
      m.id = ref;
      m.preset = *preset;
      return m;
    }
  }
  std::string ids;
  for (const auto& p : preset_index()) ids += (ids.empty() ? "" : ", ") + p.id;
  throw Error("--model", "model",
              "\"" + id_or_path +
                  "\" is neither a preset id, a Hugging Face repo id of a preset or in the local "
                  "hub cache, nor a readable file or model directory (presets: " +
                  ids + ")");
}

std::vector<PresetInfo> list_model_presets() { return preset_index(); }

}  // namespace kvplan
