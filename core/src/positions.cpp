// The longest request an engine accepts for a Hugging Face config, derived as vLLM derives it,
// and an engine's config overrides (--hf-overrides, --rope-scaling) applied to it.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hf_config.hpp"
#include "json_read.hpp"
#include "kvplan/error.hpp"
#include "kvplan/model.hpp"

namespace kvplan {

namespace detail {

namespace {

constexpr std::uint64_t kMaxPositions = std::uint64_t{1} << 32;

// vLLM's possible_keys in _get_and_verify_max_len (vllm/config/model.py @ 18ec6629), in its order.
constexpr std::array<const char*, 9> kLengthKeys = {"max_position_embeddings",
                                                    "n_positions",
                                                    "max_seq_len",
                                                    "seq_length",
                                                    "model_max_length",
                                                    "max_target_positions",
                                                    "max_sequence_length",
                                                    "max_seq_length",
                                                    "seq_len"};

// transformers' ALLOWED_LAYER_TYPES that key a per-layer-type rope_parameters dict.
bool nested_by_layer_type(const nlohmann::json& rp) {
  static const std::array<const char*, 6> kTypes = {
      "full_attention", "sliding_attention", "chunked_attention", "linear_attention", "conv",
      "mamba"};
  if (rp.empty()) return false;
  for (auto it = rp.begin(); it != rp.end(); ++it)
    if (std::find(kTypes.begin(), kTypes.end(), it.key()) == kTypes.end()) return false;
  return true;
}

std::string show_number(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

struct Scaling {
  double factor = 1.0;
  std::optional<std::uint64_t> yarn_original;  // YaRN: the length the factor scales
  std::string type;                            // the last type that scaled, for messages
};

// One rope dict: its type as patch_legacy_rope_type reads it ("type" for "rope_type", su ->
// longrope, mrope -> default; vllm/transformers_utils/config.py @ 0036026e), and what it scales.
void read_rope(JsonObject rp, std::optional<std::uint64_t> top_original, std::uint64_t length,
               Scaling& s) {
  std::string type = rp.opt_str("rope_type").value_or(rp.opt_str("type").value_or("default"));
  if (type == "su") type = "longrope";
  if (type == "mrope") type = "default";
  if (type == "longrope" || type == "llama3") return;
  // A factor of null leaves the factor as it was (rope_type default defines none).
  if (const auto f = rp.opt_number("factor", 1e-6, 1e6)) s.factor = *f;
  s.type = type;
  if (type != "yarn") return;
  // transformers 5 standardize_rope_params (src/transformers/modeling_rope_utils.py @ ef468064)
  // gives a top-level original_max_position_embeddings priority (Phi-3), else fills a missing
  // one from max_position_embeddings.
  const auto own = rp.opt_uint("original_max_position_embeddings", 1, kMaxPositions);
  s.yarn_original = top_original ? top_original : own ? own : std::optional(length);
}

}  // namespace

Positions derive_positions(const nlohmann::json& cfg, const std::string& source,
                           const std::string& pointer) {
  JsonObject o(cfg, source, pointer);
  Positions p;
  std::string key;
  for (const char* k : kLengthKeys) {
    const auto v = o.opt_uint(k, 1, kMaxPositions);
    if (v && (p.tokens == 0 || *v < p.tokens)) p.tokens = *v, key = k;
  }
  // Command-R / Cohere: model_max_length wins when set.
  if (const auto v = o.opt_uint("model_max_length", 1, kMaxPositions))
    p.tokens = *v, key = "model_max_length";
  if (p.tokens == 0) return p;  // vLLM assumes 2048 and warns; kvplan leaves it unknown
  p.basis = key + " " + std::to_string(p.tokens);
  // Gemma 3's max_position_embeddings is already scaled (NOTE(woosuk) in vLLM).
  const std::string type = o.opt_str("model_type").value_or("");
  if (type.find("gemma3") != std::string::npos) return p;
  const char* rope_key = o.has("rope_parameters") ? "rope_parameters"
                         : o.has("rope_scaling")  ? "rope_scaling"
                                                  : nullptr;
  if (!rope_key) return p;
  const nlohmann::json& rope = o.raw(rope_key);
  if (!rope.is_object())
    throw Error(source, o.pointer(rope_key), "expected a JSON object, got " + rope.dump());
  const auto top_original = o.opt_uint("original_max_position_embeddings", 1, kMaxPositions);
  Scaling s;
  if (nested_by_layer_type(rope)) {
    for (auto it = rope.begin(); it != rope.end(); ++it)
      if (!it.value().is_null())
        read_rope(JsonObject(it.value(), source, o.pointer(rope_key) + "/" + it.key()),
                  std::nullopt, p.tokens, s);
  } else {
    read_rope(JsonObject(rope, source, o.pointer(rope_key)), top_original, p.tokens, s);
  }
  if (s.type.empty() || (s.factor == 1.0 && !s.yarn_original)) return p;
  const std::uint64_t base = s.yarn_original.value_or(p.tokens);
  const double scaled = std::floor(static_cast<double>(base) * s.factor);  // int(), as vLLM
  if (!(scaled >= 1 && scaled <= static_cast<double>(kMaxPositions)))
    throw Error(source, o.pointer(rope_key),
                "RoPE scaling gives " + show_number(scaled) + " positions, outside 1.." +
                    std::to_string(kMaxPositions));
  p.tokens = static_cast<std::uint64_t>(scaled);
  p.basis = rope_key + std::string(" ") + s.type + ": " +
            (s.yarn_original ? "original_max_position_embeddings " + std::to_string(base)
                             : key + " " + std::to_string(base)) +
            " × factor " + show_number(s.factor);
  return p;
}

nlohmann::json position_fields(const nlohmann::json& cfg) {
  nlohmann::json out = nlohmann::json::object();
  for (const char* k : kLengthKeys)
    if (cfg.contains(k)) out[k] = cfg[k];
  for (const char* k :
       {"model_type", "rope_parameters", "rope_scaling", "original_max_position_embeddings"})
    if (cfg.contains(k)) out[k] = cfg[k];
  return out;
}

}  // namespace detail

std::vector<std::string> apply_hf_overrides(ModelSpec& model, const std::string& overrides_json,
                                            const std::string& source, const std::string& flag) {
  nlohmann::json over;
  try {
    over = nlohmann::json::parse(overrides_json);
  } catch (const nlohmann::json::exception&) {
    throw Error(source, flag, "expects a JSON object, got " + overrides_json.substr(0, 80));
  }
  if (!over.is_object()) throw Error(source, flag, "expects a JSON object");
  nlohmann::json fields = model.position_fields.empty()
                              ? nlohmann::json::object()
                              : nlohmann::json::parse(model.position_fields);
  if (model.position_fields.empty() && model.max_context)
    fields["max_position_embeddings"] = model.max_context;
  const nlohmann::json keys = detail::position_fields(over);
  std::vector<std::string> ignored;
  for (auto it = over.begin(); it != over.end(); ++it)
    if (!keys.contains(it.key()) || it.key() == "model_type") ignored.push_back(it.key());
  // A rope override replaces the config's rope dict, whichever name the config used
  // (transformers 5 reads rope_scaling into rope_parameters).
  if (keys.contains("rope_scaling") || keys.contains("rope_parameters")) {
    fields.erase("rope_scaling");
    fields.erase("rope_parameters");
  }
  for (auto it = keys.begin(); it != keys.end(); ++it)
    if (it.key() != "model_type") fields[it.key()] = it.value();
  const auto p = detail::derive_positions(fields, source, flag + " ");
  model.max_context = p.tokens;
  model.positions_basis = p.basis + " (" + flag + ")";
  model.position_fields = fields.dump();
  return ignored;
}

}  // namespace kvplan
