#include "kvplan/model.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

#include "embedded.hpp"
#include "hf_config.hpp"
#include "json_read.hpp"
#include "kvplan/error.hpp"

namespace kvplan {

namespace {

constexpr std::uint64_t kMaxLayers = 4096;
constexpr std::uint64_t kMaxHeads = 4096;
constexpr std::uint64_t kMaxDim = 65536;
constexpr std::uint64_t kMaxContext = std::uint64_t{1} << 32;

AttentionKind kind_from(const std::string& s, const std::string& source, const std::string& ptr) {
  if (s == "full") return AttentionKind::full;
  if (s == "sliding") return AttentionKind::sliding;
  if (s == "none") return AttentionKind::none;
  throw Error(source, ptr, "expected full, sliding or none, got \"" + s + "\"");
}

ModelSpec parse_kvplan_model(const nlohmann::json& j, const std::string& source) {
  detail::JsonObject o(j, source, "");
  const auto version = o.uint("kvplan_model", 1, 1000);
  if (version != 1)
    throw Error(source, "/kvplan_model", "unsupported schema version " + std::to_string(version) +
                                             " (this kvplan reads version 1)");
  ModelSpec m;
  m.id = o.str("id");
  m.name = o.opt_str("name").value_or(m.id);
  m.source = o.str("source");
  const auto layers = o.uint("num_layers", 1, kMaxLayers);
  m.num_q_heads = static_cast<std::uint32_t>(o.uint("num_attention_heads", 1, kMaxHeads));
  m.num_kv_heads = static_cast<std::uint32_t>(o.uint("num_kv_heads", 1, kMaxHeads));
  m.head_dim_k = static_cast<std::uint32_t>(o.uint("head_dim", 1, kMaxDim));
  m.head_dim_v = static_cast<std::uint32_t>(o.opt_uint("v_head_dim", 1, kMaxDim).value_or(m.head_dim_k));
  m.hidden_size = static_cast<std::uint32_t>(o.opt_uint("hidden_size", 1, 1u << 20).value_or(0));
  m.max_context = o.uint("max_context", 1, kMaxContext);
  m.num_params = o.uint("num_params", 1, std::uint64_t{1} << 50);
  m.weight_dtype = o.str("weight_dtype");
  weight_bytes_per_param(m.weight_dtype, source, "/weight_dtype");
  m.draft_layers = static_cast<std::uint32_t>(o.opt_uint("draft_layers", 0, 64).value_or(0));

  m.layers.assign(layers, LayerSpec{});
  if (auto mla = o.opt_object("mla")) {
    m.kv_lora_rank = static_cast<std::uint32_t>(mla->uint("kv_lora_rank", 1, kMaxDim));
    m.qk_rope_head_dim = static_cast<std::uint32_t>(mla->uint("qk_rope_head_dim", 0, kMaxDim));
    mla->finish();
    for (auto& l : m.layers) l.kind = AttentionKind::mla;
  }
  if (auto att = o.opt_object("attention")) {
    const std::string type = att->str("type");
    const auto ptr = att->pointer("type");
    std::vector<std::string> names;
    if (type == "full") {
    } else if (type == "sliding") {
      names.assign(1, "sliding");
    } else if (type == "pattern") {
      names = att->strings("pattern");
      if (names.empty()) throw Error(source, att->pointer("pattern"), "must not be empty");
    } else if (type == "layers") {
      names = att->strings("layers");
      if (names.size() != layers)
        throw Error(source, att->pointer("layers"),
                    "has " + std::to_string(names.size()) + " entries, num_layers is " +
                        std::to_string(layers));
    } else {
      throw Error(source, ptr, "expected full, sliding, pattern or layers, got \"" + type + "\"");
    }
    std::uint64_t window = 0;
    bool any_sliding = std::find(names.begin(), names.end(), "sliding") != names.end();
    if (any_sliding) window = att->uint("window", 1, kMaxContext);
    else att->opt_uint("window", 1, kMaxContext);
    if (m.is_mla() && !names.empty())
      throw Error(source, ptr, "MLA models with per-layer attention patterns are not supported");
    const std::size_t assigned = names.empty() ? 0 : layers;
    for (std::size_t i = 0; i < assigned; ++i) {
      const auto& n = names[i % names.size()];
      m.layers[i].kind = kind_from(n, source, att->pointer(type == "layers" ? "layers" : "pattern") +
                                                  "/" + std::to_string(i % names.size()));
      if (m.layers[i].kind == AttentionKind::sliding) m.layers[i].window = window;
    }
    att->finish();
  }
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

double weight_bytes_per_param(const std::string& dtype, const std::string& source,
                              const std::string& field) {
  static const std::map<std::string, double> k = {{"fp32", 4}, {"fp16", 2}, {"bf16", 2},
                                                  {"fp8", 1},  {"int8", 1}, {"int4", 0.5}};
  auto it = k.find(dtype);
  if (it == k.end())
    throw Error(source, field,
                "unknown weight dtype \"" + dtype + "\" (expected fp32, fp16, bf16, fp8, int8, int4)");
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
    if (m.layers[i].kind == AttentionKind::sliding && m.layers[i].window == 0) {
      p.push_back({"/attention/window", "sliding layer " + std::to_string(i) + " has window 0"});
      break;
    }
  }
  if (m.is_mla() && m.num_kv_heads != 1)
    p.push_back({"/num_kv_heads", "an MLA model caches one latent per token (num_kv_heads 1)"});
  return p;
}

ModelSpec parse_model_json(const std::string& text, const std::string& source) {
  const auto j = detail::parse_json_text(text, source);
  if (j.is_object() && !j.contains("kvplan_model") && detail::looks_like_hf_config(j))
    return detail::import_hf_config(j, source);
  if (j.is_object() && !j.contains("kvplan_model"))
    throw Error(source, "/kvplan_model",
                "missing: not a kvplan model file (\"kvplan_model\": 1) nor a Hugging Face "
                "config.json (\"model_type\")");
  return parse_kvplan_model(j, source);
}

ModelSpec load_model(const std::string& id_or_path) {
  if (const auto* f = find_embedded("models/" + id_or_path + ".json")) {
    return parse_model_json(f->text, "preset " + id_or_path);
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(id_or_path, ec)) {
    std::string ids;
    for (const auto& p : list_model_presets()) ids += (ids.empty() ? "" : ", ") + p.id;
    throw Error("--model", "model",
                "\"" + id_or_path + "\" is neither a preset id nor a readable file (presets: " +
                    ids + ")");
  }
  auto m = parse_model_json(detail::read_text_file(id_or_path, "model file"), id_or_path);
  if (m.id.empty()) m.id = std::filesystem::path(id_or_path).stem().string();
  return m;
}

std::vector<PresetInfo> list_model_presets() {
  std::vector<PresetInfo> out;
  for (const auto& f : detail::embedded_files()) {
    std::string path = f.path;
    if (path.rfind("models/", 0) != 0) continue;
    const auto j = detail::parse_json_text(f.text, path);
    out.push_back({j.value("id", ""), j.value("name", "")});
  }
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.id < b.id; });
  return out;
}

}  // namespace kvplan
