#include "hf_config.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "json_read.hpp"
#include "kvplan/checked.hpp"
#include "kvplan/error.hpp"

namespace kvplan::detail {

namespace {

constexpr std::uint64_t kMaxLayers = 4096;
constexpr std::uint64_t kMaxHeads = 4096;
constexpr std::uint64_t kMaxDim = 65536;
constexpr std::uint64_t kMaxWidth = std::uint64_t{1} << 24;  // hidden, intermediate, vocab sizes
constexpr std::uint64_t kMaxContext = std::uint64_t{1} << 32;
constexpr std::uint64_t kMaxExperts = 65536;

// Parameter arithmetic with overflow checks; absurd configs fail instead of wrapping.
struct Counter {
  std::uint64_t total = 0;
  void add(std::uint64_t n) { total = kvplan::add(total, n, "parameter count"); }
  static std::uint64_t mul(std::uint64_t a, std::uint64_t b) {
    return kvplan::mul(a, b, "parameter count");
  }
  static std::uint64_t mul(std::uint64_t a, std::uint64_t b, std::uint64_t c) {
    return mul(mul(a, b), c);
  }
};

struct MlaDims {
  std::uint64_t q_lora_rank = 0;  // 0: queries projected directly from the hidden state
  std::uint64_t kv_lora_rank = 0;
  std::uint64_t qk_nope_head_dim = 0;
  std::uint64_t qk_rope_head_dim = 0;
  std::uint64_t v_head_dim = 0;
};

std::string weight_dtype_of(JsonObject& o) {
  std::string dtype = "bf16";
  // Newer transformers write "dtype"; older ones "torch_dtype".
  const std::string key = o.has("torch_dtype") ? "torch_dtype" : "dtype";
  if (const auto name = o.opt_str(key)) {
    if (*name == "bfloat16") {
      dtype = "bf16";
    } else if (*name == "float16") {
      dtype = "fp16";
    } else if (*name == "float32") {
      dtype = "fp32";
    } else if (name->rfind("float8", 0) == 0) {
      dtype = "fp8";
    } else {
      throw Error(o.source(), o.pointer(key),
                  "expected bfloat16, float16 or float32, got \"" + *name + "\"");
    }
  }
  if (!o.has("quantization_config")) return dtype;
  auto q = o.object("quantization_config");
  const auto method = q.opt_str("quant_method").value_or("");
  // torch_dtype of a quantized checkpoint names the dequantized compute type, not what is stored.
  if (method == "fp8") return "fp8";
  if ((method == "awq" || method == "gptq") && q.has("bits")) {
    const auto bits = q.uint("bits", 1, 64);
    if (bits == 4) return "int4";
    if (bits == 8) return "int8";
  }
  return dtype;
}

std::vector<LayerSpec> layers_from_layer_types(JsonObject& o, std::uint64_t num_layers) {
  const auto types = o.strings("layer_types");
  if (types.size() != num_layers)
    throw Error(o.source(), o.pointer("layer_types"),
                "has " + std::to_string(types.size()) + " entries, num_hidden_layers is " +
                    std::to_string(num_layers));
  std::optional<std::uint64_t> window;
  std::vector<LayerSpec> layers(num_layers);
  for (std::size_t i = 0; i < types.size(); ++i) {
    if (types[i] == "full_attention") continue;
    if (types[i] != "sliding_attention")
      throw Error(o.source(), o.pointer("layer_types") + "/" + std::to_string(i),
                  "expected \"full_attention\" or \"sliding_attention\", got \"" + types[i] + "\"");
    if (!window) window = o.uint("sliding_window", 1, kMaxContext);
    layers[i] = {AttentionKind::sliding, *window};
  }
  return layers;
}

// Which layers attend through a sliding window, as each family's HF modeling code decides it.
std::vector<LayerSpec> attention_layers(JsonObject& o, const std::string& model_type,
                                        std::uint64_t num_layers) {
  if (o.has("layer_types")) return layers_from_layer_types(o, num_layers);
  std::vector<LayerSpec> layers(num_layers);
  if (model_type == "gemma2") {
    // HF Gemma2 defaults the window to 4096 when the config omits it.
    const auto window = o.opt_uint("sliding_window", 1, kMaxContext).value_or(4096);
    for (std::size_t i = 0; i < layers.size(); i += 2) layers[i] = {AttentionKind::sliding, window};
  } else if (model_type == "qwen2") {
    // Qwen2 ships a sliding_window value but ignores it unless use_sliding_window is true.
    if (o.opt_bool("use_sliding_window").value_or(false)) {
      const auto window = o.uint("sliding_window", 1, kMaxContext);
      const auto first = o.opt_uint("max_window_layers", 0, kMaxLayers).value_or(28);
      for (std::size_t i = first; i < layers.size(); ++i)
        layers[i] = {AttentionKind::sliding, window};
    }
  } else if (model_type == "mistral" || model_type == "mixtral" || model_type == "phi3") {
    if (const auto window = o.opt_uint("sliding_window", 1, kMaxContext))
      for (auto& l : layers) l = {AttentionKind::sliding, *window};
  }
  return layers;
}

// Parameters of a gated (gate, up, down) MLP of the given width.
std::uint64_t gated_mlp(std::uint64_t hidden, std::uint64_t width, bool bias) {
  return Counter::mul(3, hidden, width) + (bias ? 2 * width + hidden : 0);
}

struct Shape {
  std::string model_type;
  std::uint64_t layers = 0, hidden = 0, q_heads = 0, kv_heads = 0, head_dim = 0;
  std::optional<MlaDims> mla;
};

// Estimates the parameter count the way the HF modeling code allocates weights: embeddings,
// optional untied head, per-layer attention, norms and (dense or MoE) MLP, final norm.
// MTP/draft layers are left out, as the published DeepSeek-V3 count (671B) leaves them out.
std::uint64_t estimate_params(JsonObject& o, const Shape& s) {
  const auto vocab = o.opt_uint("vocab_size", 1, kMaxWidth).value_or(0);
  const auto inter = o.opt_uint("intermediate_size", 1, kMaxWidth).value_or(0);
  // PretrainedConfig defaults tie_word_embeddings to true; Gemma 2 relies on that default.
  const bool tied = o.opt_bool("tie_word_embeddings").value_or(true);
  const bool attn_bias = o.opt_bool("attention_bias").value_or(false);
  const bool mlp_bias = o.opt_bool("mlp_bias").value_or(false);
  const std::uint64_t h = s.hidden;

  std::uint64_t attention = 0;
  if (s.mla) {
    const auto& m = *s.mla;
    const auto qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
    Counter a;
    if (m.q_lora_rank > 0) {
      a.add(Counter::mul(h, m.q_lora_rank) + m.q_lora_rank);  // q_a_proj, q_a_layernorm
      a.add(Counter::mul(m.q_lora_rank, s.q_heads, qk));      // q_b_proj
    } else {
      a.add(Counter::mul(h, s.q_heads, qk));  // q_proj
    }
    a.add(Counter::mul(h, m.kv_lora_rank + m.qk_rope_head_dim));  // kv_a_proj_with_mqa
    a.add(m.kv_lora_rank);                                        // kv_a_layernorm
    a.add(Counter::mul(m.kv_lora_rank, s.q_heads, m.qk_nope_head_dim + m.v_head_dim));
    a.add(Counter::mul(s.q_heads, m.v_head_dim, h));  // o_proj
    attention = a.total;
  } else {
    const auto q_width = Counter::mul(s.q_heads, s.head_dim);
    const auto kv_width = Counter::mul(s.kv_heads, s.head_dim);
    Counter a;
    a.add(Counter::mul(h, q_width));
    a.add(Counter::mul(2, h, kv_width));
    a.add(Counter::mul(q_width, h));
    // Qwen2 always biases q, k and v (not o) without saying so in the config.
    if (attn_bias) {
      a.add(q_width + 2 * kv_width + h);
    } else if (s.model_type == "qwen2") {
      a.add(q_width + 2 * kv_width);
    }
    attention = a.total;
  }
  // Gemma 2 normalizes before and after both attention and MLP.
  const std::uint64_t norms = (s.model_type == "gemma2" ? 4 : 2) * h;

  const auto dense_mlp = gated_mlp(h, inter, mlp_bias);
  std::uint64_t moe_mlp = 0;
  std::uint64_t first_dense = s.layers, moe_every = 1;
  if (const auto experts = o.opt_uint("num_local_experts", 1, kMaxExperts)) {  // Mixtral
    moe_mlp = Counter::mul(*experts, dense_mlp) + Counter::mul(h, *experts);
    first_dense = 0;
  } else if (const auto routed = o.opt_uint("n_routed_experts", 1, kMaxExperts)) {  // DeepSeek
    const auto shared = o.opt_uint("n_shared_experts", 0, kMaxExperts).value_or(0);
    const auto width = o.uint("moe_intermediate_size", 1, kMaxWidth);
    moe_mlp = Counter::mul(*routed + shared, gated_mlp(h, width, false)) + Counter::mul(h, *routed);
    // V3's noaux_tc routing keeps one score-correction bias per expert.
    if (o.opt_str("topk_method").value_or("") == "noaux_tc") moe_mlp += *routed;
    first_dense = o.opt_uint("first_k_dense_replace", 0, kMaxLayers).value_or(0);
    moe_every = o.opt_uint("moe_layer_freq", 1, kMaxLayers).value_or(1);
  }

  Counter total;
  total.add(Counter::mul(vocab, h));
  if (!tied) total.add(Counter::mul(vocab, h));
  for (std::uint64_t i = 0; i < s.layers; ++i) {
    const bool moe = i >= first_dense && i % moe_every == 0;
    total.add(attention);
    total.add(norms);
    total.add(moe ? moe_mlp : dense_mlp);
  }
  total.add(h);  // final norm
  return total.total;
}

}  // namespace

bool looks_like_hf_config(const nlohmann::json& j) {
  return j.is_object() && (j.contains("model_type") || j.contains("architectures"));
}

ModelSpec import_hf_config(const nlohmann::json& j, const std::string& source) {
  JsonObject o(j, source, "");
  ModelSpec m;
  m.source = source;
  m.id = std::filesystem::path(source).stem().string();

  const std::string model_type = o.opt_str("model_type").value_or("");
  std::string name = model_type;
  if (o.has("architectures")) {
    const auto archs = o.strings("architectures");
    if (!archs.empty()) name = archs.front();
  }
  m.name = name.empty() ? m.id : name;

  Shape s;
  s.model_type = model_type;
  s.layers = o.uint("num_hidden_layers", 1, kMaxLayers);
  s.q_heads = o.uint("num_attention_heads", 1, kMaxHeads);
  s.hidden = o.uint("hidden_size", 1, kMaxWidth);
  s.kv_heads = o.opt_uint("num_key_value_heads", 1, kMaxHeads).value_or(s.q_heads);

  const bool deepseek = model_type == "deepseek_v2" || model_type == "deepseek_v3";
  if (deepseek && o.has("kv_lora_rank")) {
    MlaDims d;
    d.kv_lora_rank = o.uint("kv_lora_rank", 1, kMaxDim);
    d.qk_rope_head_dim = o.uint("qk_rope_head_dim", 0, kMaxDim);
    // Defaults are DeepseekV2Config's, for configs that leave them out.
    d.qk_nope_head_dim = o.opt_uint("qk_nope_head_dim", 0, kMaxDim).value_or(128);
    d.v_head_dim = o.opt_uint("v_head_dim", 1, kMaxDim).value_or(128);
    d.q_lora_rank = o.opt_uint("q_lora_rank", 1, kMaxDim).value_or(0);
    s.mla = d;
    m.kv_lora_rank = static_cast<std::uint32_t>(d.kv_lora_rank);
    m.qk_rope_head_dim = static_cast<std::uint32_t>(d.qk_rope_head_dim);
    // The cache holds one latent per token and layer, shared by all heads.
    m.num_kv_heads = 1;
    m.head_dim_k = m.latent_width();
    m.head_dim_v = 0;
    m.draft_layers =
        static_cast<std::uint32_t>(o.opt_uint("num_nextn_predict_layers", 0, 64).value_or(0));
    m.layers.assign(s.layers, LayerSpec{AttentionKind::mla, 0});
  } else {
    if (const auto hd = o.opt_uint("head_dim", 1, kMaxDim)) {
      s.head_dim = *hd;
    } else if (s.hidden % s.q_heads != 0) {
      throw Error(source, "/hidden_size",
                  "must be divisible by num_attention_heads (" + std::to_string(s.q_heads) +
                      ") when head_dim is absent, got " + std::to_string(s.hidden));
    } else {
      s.head_dim = s.hidden / s.q_heads;
    }
    if (s.head_dim > kMaxDim)
      throw Error(source, "/hidden_size",
                  "gives a head dimension of " + std::to_string(s.head_dim) + ", over " +
                      std::to_string(kMaxDim));
    if (s.q_heads % s.kv_heads != 0)
      throw Error(source, "/num_key_value_heads",
                  "must divide num_attention_heads (" + std::to_string(s.q_heads) + "), got " +
                      std::to_string(s.kv_heads));
    m.num_kv_heads = static_cast<std::uint32_t>(s.kv_heads);
    m.head_dim_k = m.head_dim_v = static_cast<std::uint32_t>(s.head_dim);
    m.layers = attention_layers(o, model_type, s.layers);
  }
  m.num_q_heads = static_cast<std::uint32_t>(s.q_heads);
  m.hidden_size = static_cast<std::uint32_t>(s.hidden);
  m.max_context = o.opt_uint("max_position_embeddings", 1, kMaxContext).value_or(0);
  m.weight_dtype = weight_dtype_of(o);
  try {
    m.num_params = estimate_params(o, s);
  } catch (const Error& e) {
    if (e.source() != "parameter count") throw;  // a field's own error already names the file
    throw Error(source, "/hidden_size",
                "hidden_size " + std::to_string(s.hidden) + " with " + std::to_string(s.layers) +
                    " layers and the given heads, head_dim, intermediate and vocab sizes: the "
                    "parameter count overflows 64-bit arithmetic (absurd sizes)");
  }
  m.num_params_estimated = true;
  return m;
}

}  // namespace kvplan::detail
