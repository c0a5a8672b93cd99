// Hugging Face config.json import. What each family does differently is data: one row of the
// table in hf_families.cpp (kvplan/hf_families.hpp), read the way the family's modeling code
// (transformers) and vLLM's model file read it; docs/models.md cites the file of each rule. The
// import runs in steps: the text config and its family, the shape (heads, dims, MLA), the layers
// (per-layer kinds, windows, the recurrent state), the parameters by component, and their bytes
// as the checkpoint stores them.
#include "hf_config.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "json_read.hpp"
#include "kvplan/checked.hpp"
#include "kvplan/error.hpp"
#include "kvplan/hf_families.hpp"

namespace kvplan::detail {

namespace {

constexpr std::uint64_t kMaxLayers = 4096;
constexpr std::uint64_t kMaxHeads = 4096;
constexpr std::uint64_t kMaxDim = 65536;
constexpr std::uint64_t kMaxWidth = std::uint64_t{1} << 24;  // hidden, intermediate, vocab sizes
constexpr std::uint64_t kMaxContext = std::uint64_t{1} << 32;
constexpr std::uint64_t kMaxExperts = 65536;

std::uint64_t pmul(std::uint64_t a, std::uint64_t b) {
  return kvplan::mul(a, b, "parameter count");
}
std::uint64_t pmul(std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  return pmul(pmul(a, b), c);
}
std::uint64_t padd(std::uint64_t a, std::uint64_t b) {
  return kvplan::add(a, b, "parameter count");
}

// ---------------------------------------------------------------------------------------------
// The language model's fields: top level for plain configs, `text_config` for multimodal
// wrappers (Gemma 3, Llama 4, Mistral 3, Qwen2.5-VL / Qwen3-VL, Qwen3.5). Fields a wrapper keeps
// at its top level (quantization_config, torch_dtype, tie_word_embeddings) are read from there
// when the text config lacks them.
struct Config {
  std::unique_ptr<nlohmann::json> filled;  // the text config with its family's defaults
  JsonObject top;
  std::optional<JsonObject> text_holder;
  std::string model_type;  // the language model's (text_config's when nested)
  std::string outer_type;  // the wrapper's
  const HfFamily* family = &hf_generic_family();   // model_type's row
  const HfFamily* wrapper = &hf_generic_family();  // outer_type's row (the vision tower)
  const nlohmann::json* text_json = nullptr;       // the text config's JSON (filled when defaulted)
  std::string text_ptr;                            // its JSON pointer in the file
  JsonObject& text() { return text_holder ? *text_holder : top; }
  bool nested() const { return text_holder.has_value(); }
  // A field from the text config, else the wrapper.
  bool has(const std::string& k) { return text().has(k) || (nested() && top.has(k)); }
  JsonObject& owner(const std::string& k) { return text().has(k) || !nested() ? text() : top; }
};

// ---------------------------------------------------------------------------------------------
// Layer patterns: one function per rule, chosen by layer_pattern() in the order the rules apply.

using Layers = std::vector<LayerSpec>;

// The recurrent mixer: the family's, unless the config's fields name one that ranks first
// (Gated DeltaNet, then lightning, then Mamba-2, beside which only Jamba's Mamba stands).
MixerKind mixer_of(Config& c) {
  const HfFamily& f = *c.family;
  if (f.mixer == MixerKind::gated_delta_net || c.has("linear_num_value_heads"))
    return MixerKind::gated_delta_net;
  if (f.mixer == MixerKind::lightning || c.has("attn_type_list")) return MixerKind::lightning;
  if (f.mixer_outranks_mamba2_fields) return f.mixer;
  if (f.mixer == MixerKind::mamba2 || c.has("mamba_n_heads") || c.has("mamba_num_heads"))
    return MixerKind::mamba2;
  return f.mixer;
}

LayerSpec recurrent_only() { return LayerSpec{AttentionKind::none, 0, true}; }

// A per-layer list must have one entry per decoder layer (`at_least`: a longer list is allowed,
// as layer_types may also describe MTP layers).
void expect_per_layer(JsonObject& o, const std::string& key, std::size_t got, std::uint64_t n,
                      const char* unit = "entries", bool at_least = false) {
  if (got == n || (at_least && got > n)) return;
  throw Error(
      o.source(), o.pointer(key),
      "has " + std::to_string(got) + " " + unit + ", num_hidden_layers is " + std::to_string(n));
}

Layers from_layer_types(Config& c, std::uint64_t n, MixerKind mixer) {
  auto& o = c.owner("layer_types");
  const auto types = o.strings("layer_types");
  expect_per_layer(o, "layer_types", types.size(), n, "entries", true);
  Layers layers(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& t = types[i];
    const auto ptr = o.pointer("layer_types") + "/" + std::to_string(i);
    if (t == "full_attention" || t == "attention") {
      layers[i] = {AttentionKind::full, 0};
    } else if (t == "sliding_attention") {
      layers[i] = {AttentionKind::sliding, 0};
    } else if (t == "chunked_attention") {
      layers[i] = {AttentionKind::chunked, 0};
    } else if (t == "linear_attention" || t == "mamba" || t == "mamba2") {
      if (mixer == MixerKind::none)
        throw Error(o.source(), ptr,
                    "layer type \"" + t + "\" needs a recurrent mixer, and model_type \"" +
                        c.model_type + "\" names none kvplan knows (its state size is unknown)");
      layers[i] = recurrent_only();
    } else {
      throw Error(o.source(), ptr,
                  "unknown layer type \"" + t +
                      "\" (kvplan knows full_attention, sliding_attention, chunked_attention, "
                      "linear_attention, mamba): its cache cost is unknown");
    }
  }
  return layers;
}

// Zamba-style configs: layers_block_type[i] is "attention" or "mamba".
Layers from_block_types(Config& c, std::uint64_t n, MixerKind mixer) {
  auto& ow = c.owner("layers_block_type");
  const auto types = ow.strings("layers_block_type");
  expect_per_layer(ow, "layers_block_type", types.size(), n);
  Layers layers(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (types[i] == "attention") continue;
    if (types[i] == "mamba" && mixer != MixerKind::none) {
      layers[i] = recurrent_only();
    } else {
      throw Error(ow.source(), ow.pointer("layers_block_type") + "/" + std::to_string(i),
                  "unknown layer block type \"" + types[i] + "\"");
    }
  }
  return layers;
}

// NemotronHConfig.hybrid_override_pattern: one character per layer, M = Mamba-2 mixer,
// * = attention, - = MLP, E = MoE (the last two hold no cache).
Layers nemotron_h_layers(Config& c, std::uint64_t n) {
  auto& ow = c.owner("hybrid_override_pattern");
  const auto p = ow.str("hybrid_override_pattern");
  expect_per_layer(ow, "hybrid_override_pattern", p.size(), n, "characters");
  Layers layers(n);
  for (std::size_t i = 0; i < n; ++i) {
    switch (p[i]) {
      case 'M':
        layers[i] = recurrent_only();
        break;
      case '*':
        layers[i] = {AttentionKind::full, 0};
        break;
      case '-':
      case 'E':
        layers[i] = {AttentionKind::none, 0};
        break;
      default:
        throw Error(ow.source(), ow.pointer("hybrid_override_pattern"),
                    std::string("unknown layer character '") + p[i] + "' at layer " +
                        std::to_string(i) + " (expected M, *, - or E)");
    }
  }
  return layers;
}

// JambaConfig: attention where i % attn_layer_period == attn_layer_offset, Mamba elsewhere.
Layers jamba_layers(Config& c, std::uint64_t n) {
  JsonObject& o = c.text();
  const auto period = o.opt_uint("attn_layer_period", 1, kMaxLayers).value_or(8);
  const auto offset = o.opt_uint("attn_layer_offset", 0, kMaxLayers).value_or(4);
  Layers layers(n);
  for (std::size_t i = 0; i < n; ++i)
    layers[i] = i % period == offset ? LayerSpec{AttentionKind::full, 0} : recurrent_only();
  return layers;
}

// Qwen3NextConfig: full attention every full_attention_interval-th layer, GDN elsewhere.
Layers gated_delta_net_layers(Config& c, std::uint64_t n) {
  const auto every = c.text().opt_uint("full_attention_interval", 1, kMaxLayers).value_or(4);
  Layers layers(n);
  for (std::size_t i = 0; i < n; ++i)
    layers[i] = (i + 1) % every == 0 ? LayerSpec{AttentionKind::full, 0} : recurrent_only();
  return layers;
}

// MiniMax: attn_type_list[i] 1 = softmax attention, 0 = lightning (linear) attention.
Layers minimax_layers(Config& c, std::uint64_t n) {
  auto& ow = c.owner("attn_type_list");
  const auto& v = ow.raw("attn_type_list");
  if (!v.is_array() || v.size() != n)
    throw Error(ow.source(), ow.pointer("attn_type_list"),
                "expected one 0 or 1 per layer (" + std::to_string(n) + ")");
  Layers layers(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!v[i].is_number_integer() || (v[i].get<int>() != 0 && v[i].get<int>() != 1))
      throw Error(ow.source(), ow.pointer("attn_type_list") + "/" + std::to_string(i),
                  "expected 0 (lightning) or 1 (softmax attention), got " + show(v[i]));
    layers[i] = v[i].get<int>() == 1 ? LayerSpec{AttentionKind::full, 0} : recurrent_only();
  }
  return layers;
}

// Llama4TextConfig: no_rope_layers[i] == 0 marks a NoPE (global) layer; when absent, every
// no_rope_layer_interval-th layer (default 4). The others attend inside chunks of
// attention_chunk_size tokens (vLLM llama4.py: use_chunked_local_attn).
Layers llama4_layers(Config& c, std::uint64_t n) {
  JsonObject& o = c.text();
  const auto chunk = o.opt_uint("attention_chunk_size", 1, kMaxContext);
  std::vector<bool> rope(n, true);
  bool listed = false;
  if (o.has("no_rope_layers")) {
    const auto& v = o.raw("no_rope_layers");
    if (!v.is_array()) throw Error(o.source(), o.pointer("no_rope_layers"), "expected an array");
    if (!v.empty()) {
      expect_per_layer(o, "no_rope_layers", v.size(), n);
      for (std::size_t i = 0; i < n; ++i) {
        if (!v[i].is_number_integer())
          throw Error(o.source(), o.pointer("no_rope_layers") + "/" + std::to_string(i),
                      "expected 0 or 1");
        rope[i] = v[i].get<int>() != 0;
      }
      listed = true;
    }
  }
  if (!listed) {
    const auto every = o.opt_uint("no_rope_layer_interval", 1, kMaxLayers).value_or(4);
    for (std::size_t i = 0; i < n; ++i) rope[i] = (i + 1) % every != 0;
  }
  Layers layers(n);
  for (std::size_t i = 0; i < n; ++i)
    if (chunk && rope[i]) layers[i] = {AttentionKind::chunked, 0};
  return layers;
}

// Gemma3TextConfig: layer i is global when (i + 1) % sliding_window_pattern == 0 (default 6).
Layers gemma3_layers(Config& c, std::uint64_t n) {
  const auto every = c.text().opt_uint("sliding_window_pattern", 1, kMaxLayers).value_or(6);
  Layers layers(n);
  for (std::size_t i = 0; i < n; ++i)
    if ((i + 1) % every != 0) layers[i] = {AttentionKind::sliding, 0};
  return layers;
}

// Qwen2 ships a sliding_window value but ignores it unless use_sliding_window is true.
Layers qwen2_layers(Config& c, std::uint64_t n) {
  JsonObject& o = c.text();
  Layers layers(n);
  if (o.opt_bool("use_sliding_window").value_or(false)) {
    const auto first = o.opt_uint("max_window_layers", 0, kMaxLayers).value_or(28);
    for (std::size_t i = first; i < n; ++i) layers[i] = {AttentionKind::sliding, 0};
  }
  return layers;
}

// The family's own pattern (window and chunk sizes filled in by the caller).
Layers family_layers(Config& c, std::uint64_t n) {
  Layers layers(n);
  switch (c.family->layer_pattern) {
    case HfLayerPattern::by_fields:
      break;
    case HfLayerPattern::nemotron_h_string:
      return nemotron_h_layers(c, n);
    case HfLayerPattern::jamba_period:
      return jamba_layers(c, n);
    case HfLayerPattern::falcon_h1_parallel:
      // Falcon-H1: attention and a Mamba-2 mixer side by side in every layer.
      for (auto& l : layers) l = {AttentionKind::full, 0, true};
      break;
    case HfLayerPattern::llama4_nope_chunked:
      return llama4_layers(c, n);
    case HfLayerPattern::gemma3_global_every:
      return gemma3_layers(c, n);
    case HfLayerPattern::gemma2_even_sliding:
      for (std::size_t i = 0; i < n; i += 2) layers[i] = {AttentionKind::sliding, 0};
      break;
    case HfLayerPattern::qwen2_max_window_layers:
      return qwen2_layers(c, n);
    case HfLayerPattern::sliding_when_window:
      if (c.text().has("sliding_window"))
        for (auto& l : layers) l = {AttentionKind::sliding, 0};
      break;
  }
  return layers;
}

// Every layer's attention kind, by the first rule that applies (kvplan/hf_families.hpp,
// HfLayerPattern): Nemotron-H's string, the config's per-layer lists, an early family pattern,
// the mixer's and MiniMax's field rules, a late family pattern, else full attention.
Layers layer_pattern(Config& c, std::uint64_t n, MixerKind mixer) {
  const HfLayerPattern p = c.family->layer_pattern;
  if (p == HfLayerPattern::nemotron_h_string && c.has("hybrid_override_pattern"))
    return nemotron_h_layers(c, n);
  if (c.has("layer_types")) return from_layer_types(c, n, mixer);
  if (c.has("layers_block_type")) return from_block_types(c, n, mixer);
  if (p == HfLayerPattern::jamba_period || p == HfLayerPattern::falcon_h1_parallel)
    return family_layers(c, n);
  if (mixer == MixerKind::gated_delta_net) return gated_delta_net_layers(c, n);
  if (c.has("attn_type_list")) return minimax_layers(c, n);
  if (mixer == MixerKind::mamba || mixer == MixerKind::mamba2)
    return Layers(n, recurrent_only());  // pure state-space models
  if (p == HfLayerPattern::nemotron_h_string) return Layers(n);
  return family_layers(c, n);
}

// ---------------------------------------------------------------------------------------------
// Recurrent dimensions.

RecurrentSpec recurrent_dims(Config& c, MixerKind mixer, std::uint64_t hidden, KvDtype model_dtype,
                             std::uint64_t q_heads, std::uint64_t head_dim) {
  JsonObject& o = c.text();
  RecurrentSpec r;
  r.kind = mixer;
  r.conv_dtype = r.ssm_dtype = model_dtype;
  auto u32 = [](std::uint64_t v) { return static_cast<std::uint32_t>(v); };
  auto first = [&](std::initializer_list<const char*> keys, std::uint64_t min, std::uint64_t max,
                   std::optional<std::uint64_t> fallback) -> std::uint64_t {
    for (const char* k : keys)
      if (o.has(k)) return o.uint(k, min, max);
    if (fallback) return *fallback;
    throw Error(o.source(), o.pointer(*keys.begin()), "missing required field");
  };
  switch (mixer) {
    case MixerKind::none:
    case MixerKind::shapes:  // never read from a config.json
      break;
    case MixerKind::mamba: {
      // JambaConfig / MambaConfig: d_inner = mamba_expand · hidden_size.
      const auto expand = first({"mamba_expand", "expand"}, 1, 64, 2);
      r.d_inner = u32(pmul(expand, hidden));
      if (o.has("intermediate_size") && c.family->mamba_width_from_intermediate_size)
        r.d_inner = u32(o.uint("intermediate_size", 1, kMaxWidth));
      r.d_state = u32(first({"mamba_d_state", "state_size"}, 1, kMaxDim, 16));
      r.d_conv = u32(first({"mamba_d_conv", "conv_kernel"}, 1, 64, 4));
      break;
    }
    case MixerKind::mamba2: {
      r.heads = u32(first({"mamba_n_heads", "mamba_num_heads"}, 1, kMaxHeads, std::nullopt));
      r.head_dim = u32(first({"mamba_d_head", "mamba_head_dim"}, 1, kMaxDim, std::nullopt));
      r.n_groups = u32(first({"mamba_n_groups", "n_groups"}, 1, kMaxHeads, 1));
      r.d_state = u32(first({"mamba_d_state", "ssm_state_size"}, 1, kMaxDim, std::nullopt));
      r.d_conv = u32(first({"mamba_d_conv", "conv_kernel"}, 1, 64, 4));
      // Falcon-H1 may give mamba_d_ssm (the mixer width) apart from heads · head_dim.
      std::uint64_t d = pmul(r.heads, r.head_dim);
      if (o.has("mamba_d_ssm")) d = o.uint("mamba_d_ssm", 1, kMaxWidth);
      r.d_inner = u32(d);
      break;
    }
    case MixerKind::gated_delta_net:
      r.heads = u32(o.uint("linear_num_value_heads", 1, kMaxHeads));
      r.head_dim = u32(o.uint("linear_value_head_dim", 1, kMaxDim));
      r.key_heads = u32(o.uint("linear_num_key_heads", 1, kMaxHeads));
      r.key_head_dim = u32(o.uint("linear_key_head_dim", 1, kMaxDim));
      r.d_conv = u32(o.uint("linear_conv_kernel_dim", 1, 64));
      break;
    case MixerKind::lightning:
      // MiniMax lightning attention: one head_dim × head_dim state per attention head, in the
      // model dtype (vLLM MambaStateDtypeCalculator.linear_attention_state_dtype:
      // mamba_cache_dtype, "auto" = the model's; the kernel computes in fp32 but stores in the
      // cache dtype).
      r.heads = u32(q_heads);
      r.head_dim = u32(head_dim);
      break;
  }
  return r;
}

// ---------------------------------------------------------------------------------------------
// Weights, by component, so that a quantization scheme can cost each as it stores it.

enum class Part {
  embed,
  head,
  attention,
  mixer,
  dense_mlp,
  experts,
  shared_expert,
  router,
  small,
  vision
};

struct Params {
  std::uint64_t p[10] = {};
  void add(Part part, std::uint64_t n) {
    auto& x = p[static_cast<int>(part)];
    x = padd(x, n);
  }
  std::uint64_t operator[](Part part) const { return p[static_cast<int>(part)]; }
  std::uint64_t total() const {
    std::uint64_t t = 0;
    for (auto v : p) t = padd(t, v);
    return t;
  }
};

struct Moe {
  std::uint64_t experts = 0;  // routed experts per MoE layer
  std::uint64_t width = 0;    // one routed expert's intermediate size
  std::uint64_t shared = 0;   // shared experts' total intermediate size
  bool shared_gate = false;   // Qwen2-MoE / Qwen3-Next: a sigmoid gate on the shared expert
  bool gpt_oss = false;       // fused gate_up with biases, router bias
  bool router_bias = false;   // DeepSeek-V3 noaux_tc / GLM: e_score_correction_bias
  std::vector<bool> layer_is_moe;
};

std::uint64_t gated_mlp(std::uint64_t hidden, std::uint64_t width, bool bias) {
  return padd(pmul(3, hidden, width), bias ? 2 * width + hidden : 0);
}

// Which layers are MoE (HfFamily::moe_layers).
void moe_layers_of(Config& c, std::uint64_t n, const std::string& pattern, Moe& m) {
  JsonObject& o = c.text();
  const HfMoeLayers rule = c.family->moe_layers;
  if (rule == HfMoeLayers::nemotron_h_string) {
    for (std::size_t i = 0; i < n && i < pattern.size(); ++i) m.layer_is_moe[i] = pattern[i] == 'E';
    return;
  }
  if (rule == HfMoeLayers::jamba_period) {
    const auto period = o.opt_uint("expert_layer_period", 1, kMaxLayers).value_or(2);
    const auto offset = o.opt_uint("expert_layer_offset", 0, kMaxLayers).value_or(1);
    for (std::size_t i = 0; i < n; ++i) m.layer_is_moe[i] = i % period == offset;
    return;
  }
  std::uint64_t first_dense = o.opt_uint("first_k_dense_replace", 0, kMaxLayers).value_or(0);
  std::uint64_t every = 1;
  if (o.has("moe_layer_freq")) every = o.uint("moe_layer_freq", 1, kMaxLayers);
  if (o.has("decoder_sparse_step")) every = o.uint("decoder_sparse_step", 1, kMaxLayers);
  if (o.has("interleave_moe_layer_step"))
    every = o.uint("interleave_moe_layer_step", 1, kMaxLayers);
  std::vector<std::uint64_t> dense_only;
  if (o.has("mlp_only_layers")) {
    const auto& v = o.raw("mlp_only_layers");
    if (v.is_array())
      for (const auto& x : v)
        if (x.is_number_unsigned()) dense_only.push_back(x.get<std::uint64_t>());
  }
  for (std::size_t i = 0; i < n; ++i) {
    bool moe = i >= first_dense;
    if (rule == HfMoeLayers::llama4_interleave) {
      moe = (i + 1) % every == 0;  // Llama4: layers every-1, 2·every-1, ... are MoE
    } else if (c.has("decoder_sparse_step")) {
      moe = moe && (i + 1) % every == 0;  // Qwen2/3-MoE: (layer_idx + 1) % step == 0
    } else {
      moe = moe && i % every == 0;  // DeepSeek: layer_idx % moe_layer_freq == 0
    }
    if (std::find(dense_only.begin(), dense_only.end(), i) != dense_only.end()) moe = false;
    m.layer_is_moe[i] = moe;
  }
}

Moe moe_of(Config& c, std::uint64_t n, const std::string& pattern) {
  JsonObject& o = c.text();
  const HfFamily& f = *c.family;
  Moe m;
  m.layer_is_moe.assign(n, false);
  std::optional<std::uint64_t> experts;
  for (const char* k : {"n_routed_experts", "num_local_experts", "num_experts"})
    if (!experts && o.has(k)) experts = o.uint(k, 0, kMaxExperts);
  if (!experts || *experts == 0) return m;
  m.experts = *experts;
  // DeepSeek-style configs (n_routed_experts) size their experts apart from the dense MLP.
  if (o.has("n_routed_experts") || o.has("n_shared_experts")) {
    m.width = o.uint("moe_intermediate_size", 1, kMaxWidth);
  } else if (o.has("moe_intermediate_size")) {
    m.width = o.uint("moe_intermediate_size", 1, kMaxWidth);
  } else if (o.has("intermediate_size")) {
    m.width = o.uint("intermediate_size", 1, kMaxWidth);
  } else {
    throw Error(o.source(), o.pointer("moe_intermediate_size"), "missing: the experts' width");
  }
  if (o.has("n_shared_experts"))
    m.shared = pmul(o.uint("n_shared_experts", 0, kMaxExperts), m.width);
  if (o.has("shared_expert_intermediate_size")) {
    m.shared = o.uint("shared_expert_intermediate_size", 0, kMaxWidth);
    m.shared_gate = m.shared > 0;
  }
  if (f.shared_expert_routed_width) m.shared = m.width;  // Llama 4: one, as wide as a routed one
  m.gpt_oss = f.experts == HfExperts::gpt_oss_fused;
  m.router_bias = o.opt_str("topk_method").value_or("") == "noaux_tc" || f.router_bias;
  moe_layers_of(c, n, pattern, m);
  return m;
}

struct Shape {
  std::uint64_t layers = 0, hidden = 0, q_heads = 0, kv_heads = 0, head_dim = 0, v_head_dim = 0;
  std::uint64_t q_lora_rank = 0, kv_lora_rank = 0, qk_nope = 0, qk_rope = 0;
  bool mla = false;
  std::uint64_t index_head_dim = 0, index_heads = 0;
};

std::uint64_t mla_attention_params(const Shape& s) {
  const std::uint64_t h = s.hidden;
  const auto qk = s.qk_nope + s.qk_rope;
  std::uint64_t a = 0;
  if (s.q_lora_rank > 0) {
    a = padd(a, pmul(h, s.q_lora_rank) + s.q_lora_rank);  // q_a_proj, q_a_layernorm
    a = padd(a, pmul(s.q_lora_rank, s.q_heads, qk));      // q_b_proj
  } else {
    a = padd(a, pmul(h, s.q_heads, qk));
  }
  a = padd(a, pmul(h, s.kv_lora_rank + s.qk_rope) + s.kv_lora_rank);  // kv_a_proj, norm
  a = padd(a, pmul(s.kv_lora_rank, s.q_heads, s.qk_nope + s.v_head_dim));
  a = padd(a, pmul(s.q_heads, s.v_head_dim, h));
  if (s.index_head_dim) {
    // DeepSeek-V3.2 indexer: wq_b (q_lora_rank → heads · dim), wk (hidden → dim), k_norm
    // (weight and bias), weights_proj (hidden → heads).
    a = padd(a, pmul(s.q_lora_rank ? s.q_lora_rank : h, s.index_heads, s.index_head_dim));
    a = padd(a, pmul(h, s.index_head_dim) + 2 * s.index_head_dim);
    a = padd(a, pmul(h, s.index_heads));
  }
  return a;
}

std::uint64_t attention_params(Config& c, const Shape& s) {
  if (s.mla) return mla_attention_params(s);
  JsonObject& o = c.text();
  const HfFamily& f = *c.family;
  const std::uint64_t h = s.hidden;
  const std::uint64_t q = pmul(s.q_heads, s.head_dim), kv = pmul(s.kv_heads, s.head_dim);
  // Qwen3-Next gates the attention output with a second query-sized projection.
  const bool gate = o.opt_bool("attn_output_gate").value_or(f.attn_output_gate);
  std::uint64_t a = padd(pmul(h, gate ? 2 * q : q), padd(pmul(2, h, kv), pmul(q, h)));
  const bool bias = o.opt_bool("attention_bias").value_or(false) || f.attention_bias;
  if (bias) {
    a = padd(a, (gate ? 2 * q : q) + 2 * kv + (f.attention_bias_skips_o_proj ? 0 : h));
  } else if (f.qkv_bias || o.opt_bool("qkv_bias").value_or(false)) {
    a = padd(a, q + 2 * kv);  // Qwen2 biases q, k and v without saying so
  }
  if (f.qk_norm || o.opt_bool("use_qk_norm").value_or(false))
    a = padd(a, 2 * s.head_dim);                  // q_norm, k_norm
  if (f.attention_sinks) a = padd(a, s.q_heads);  // attention sinks
  return a;
}

std::uint64_t mixer_params(const RecurrentSpec& r, std::uint64_t h, Config& c) {
  switch (r.kind) {
    case MixerKind::none:
    case MixerKind::shapes:  // never read from a config.json
      return 0;
    case MixerKind::mamba: {
      // JambaMambaMixer: in_proj, conv1d (+bias), x_proj, dt_proj (+bias), A_log, D, out_proj,
      // and Jamba's dt/B/C layernorms.
      const std::uint64_t d = r.d_inner;
      const std::uint64_t dt_rank = c.text().has("mamba_dt_rank")
                                        ? c.text().uint("mamba_dt_rank", 1, kMaxWidth)
                                        : ceil_div(h, 16);
      std::uint64_t p = pmul(h, 2 * d);
      p = padd(p, pmul(d, r.d_conv) + d);
      p = padd(p, pmul(d, dt_rank + 2 * r.d_state));
      p = padd(p, pmul(dt_rank, d) + d);
      p = padd(p, pmul(d, r.d_state) + d);
      p = padd(p, pmul(d, h));
      if (c.family->mamba_dt_bc_norms) p = padd(p, dt_rank + 2 * r.d_state);
      return p;
    }
    case MixerKind::mamba2: {
      // Mamba2Mixer: in_proj (z, x, B, C, dt), conv1d (+bias), dt_bias, A_log, D, gated norm,
      // out_proj.
      const std::uint64_t d = r.d_inner, g = r.n_groups;
      const std::uint64_t conv = d + 2 * g * r.d_state;
      std::uint64_t p = pmul(h, 2 * d + 2 * g * r.d_state + r.heads);
      p = padd(p, pmul(conv, r.d_conv) + conv);
      p = padd(p, 3 * std::uint64_t{r.heads} + d);
      p = padd(p, pmul(d, h));
      return p;
    }
    case MixerKind::gated_delta_net: {
      // Qwen3NextGatedDeltaNet: in_proj_qkvz, in_proj_ba, conv1d, dt_bias, A_log, norm, out_proj.
      const std::uint64_t kd = std::uint64_t{r.key_heads} * r.key_head_dim;
      const std::uint64_t vd = std::uint64_t{r.heads} * r.head_dim;
      std::uint64_t p = pmul(h, 2 * kd + 2 * vd);
      p = padd(p, pmul(h, 2 * std::uint64_t{r.heads}));
      p = padd(p, pmul(2 * kd + vd, r.d_conv));
      p = padd(p, 2 * std::uint64_t{r.heads} + r.head_dim);
      p = padd(p, pmul(vd, h));
      return p;
    }
    case MixerKind::lightning: {
      // MiniMaxText01LightningAttention: qkv_proj, output_gate, out_proj, norm.
      const std::uint64_t w = std::uint64_t{r.heads} * r.head_dim;
      return padd(pmul(h, 3 * w), padd(pmul(h, w), padd(pmul(w, h), w)));
    }
  }
  return 0;
}

// A vision tower from vision_config: ViT blocks (attention with biases, MLP), patch and position
// embeddings, and a projector to the text width; the wrapper's row says which (HfVision).
std::uint64_t vision_params(Config& c, std::uint64_t text_hidden) {
  if (!c.top.has("vision_config") || !c.top.raw("vision_config").is_object()) return 0;
  JsonObject v = c.top.object("vision_config");
  // Field names: SigLIP / Llama 4 / Pixtral (hidden_size, num_hidden_layers), Qwen-VL (depth),
  // Kimi-K2.5's MoonViT (vt_*).
  auto first = [&](std::initializer_list<const char*> keys, std::uint64_t max) -> std::uint64_t {
    for (const char* k : keys)
      if (v.has(k)) return v.uint(k, 1, max);
    return 0;
  };
  const auto d = first({"hidden_size", "vt_hidden_size"}, kMaxWidth);
  if (d == 0) return 0;
  const auto layers =
      first({"num_hidden_layers", "depth", "num_layers", "vt_num_hidden_layers"}, kMaxLayers);
  auto inter = first({"intermediate_size", "vt_intermediate_size"}, kMaxWidth);
  if (inter == 0) inter = 4 * d;
  const auto patch = v.opt_uint("patch_size", 1, 1024).value_or(14);
  const auto image = v.opt_uint("image_size", 1, 1u << 16).value_or(0);
  const auto channels = v.opt_uint("num_channels", 1, 16).value_or(3);
  const HfVision tower = c.wrapper->vision;
  // SigLIP (Gemma 3) and Llama 4's encoder use a plain MLP; Pixtral and Qwen-VL a gated one.
  const bool gated = tower == HfVision::pixtral || tower == HfVision::qwen_vl;
  std::uint64_t block =
      padd(pmul(4, d, d) + 4 * d, gated ? pmul(3, d, inter) : pmul(2, d, inter) + inter + d);
  block = padd(block, 4 * d);  // two norms
  std::uint64_t p = pmul(layers, block);
  p = padd(p, pmul(channels * patch * patch, d));
  if (image) p = padd(p, pmul((image / patch) * (image / patch), d));
  const auto out = v.opt_uint("out_hidden_size", 1, kMaxWidth).value_or(d);
  if (tower == HfVision::qwen_vl) {
    // Qwen-VL patch merger: 2×2 patches → MLP to out_hidden_size.
    p = padd(p, pmul(4 * d, 4 * d) + pmul(4 * d, out));
  } else {
    p = padd(p, pmul(d, text_hidden));  // projector
    if (tower == HfVision::pixtral) p = padd(p, pmul(4 * d, d) + pmul(text_hidden, text_hidden));
    if (tower == HfVision::llama4)
      p = padd(p, pmul(v.opt_uint("projector_input_dim", 1, kMaxWidth).value_or(4096),
                       v.opt_uint("projector_output_dim", 1, kMaxWidth).value_or(4096)) +
                      pmul(inter, d));
  }
  return p;
}

// ---------------------------------------------------------------------------------------------
// Quantized storage: bytes of each component as the checkpoint stores it.

struct Quant {
  std::string method;                      // "" = unquantized
  double bytes = 2;                        // bytes per quantized weight, scales included
  std::vector<std::string> skip;           // module patterns kept in the compute dtype
  std::string format;                      // WeightSpec::format
  std::uint32_t block_n = 0, block_k = 0;  // WeightSpec::block_n, block_k
};

// Representative module names of each component, matched against a scheme's skip list.
std::vector<std::string> module_names(Part p) {
  switch (p) {
    case Part::embed:
      return {"model.embed_tokens", "embed_tokens"};
    case Part::head:
      return {"lm_head"};
    case Part::attention:
      return {"model.layers.0.self_attn", "model.layers.0.self_attn.q_proj",
              "model.layers.0.self_attn.o_proj"};
    case Part::mixer:
      return {"model.layers.0.mixer", "model.layers.0.linear_attn", "model.layers.0.mamba",
              "model.layers.0.self_attn"};
    case Part::dense_mlp:
      return {"model.layers.0.mlp", "model.layers.0.mlp.down_proj"};
    case Part::experts:
      return {"model.layers.0.mlp.experts", "model.layers.0.mlp.experts.0.down_proj",
              "model.layers.0.block_sparse_moe.experts"};
    case Part::shared_expert:
      return {"model.layers.0.mlp.shared_expert", "model.layers.0.mlp.shared_experts"};
    case Part::router:
      return {"model.layers.0.mlp.gate", "model.layers.0.mlp.router",
              "model.layers.0.block_sparse_moe.gate"};
    case Part::small:
      return {};
    case Part::vision:
      return {"vision_tower", "visual", "vision_model", "multi_modal_projector"};
  }
  return {};
}

bool glob_match(const std::string& pat, const std::string& s) {
  // '*' matches any run of characters (fnmatch without character classes).
  std::size_t p = 0, i = 0, star = std::string::npos, mark = 0;
  while (i < s.size()) {
    if (p < pat.size() && (pat[p] == s[i] || pat[p] == '?')) {
      ++p, ++i;
    } else if (p < pat.size() && pat[p] == '*') {
      star = p++, mark = i;
    } else if (star != std::string::npos) {
      p = star + 1, i = ++mark;
    } else {
      return false;
    }
  }
  while (p < pat.size() && pat[p] == '*') ++p;
  return p == pat.size();
}

bool skipped(const Quant& q, Part part) {
  for (const auto& name : module_names(part)) {
    for (const auto& pat : q.skip) {
      if (pat.rfind("re:", 0) == 0) {
        try {
          if (std::regex_search(name, std::regex(pat.substr(3)))) return true;
        } catch (const std::regex_error&) {
        }
        continue;
      }
      // vLLM's is_layer_skipped: a listed prefix or a glob; "lm_head" matches itself.
      if (glob_match(pat, name) || name.rfind(pat + ".", 0) == 0 || name == pat) return true;
      const auto last = pat.rfind('.');
      const std::string tail = last == std::string::npos ? pat : pat.substr(last + 1);
      if (!tail.empty() && tail != "*" && name.ends_with("." + tail) &&
          pat.find('*') != std::string::npos && glob_match(pat.substr(0, last) + ".*", name))
        return true;
    }
  }
  return false;
}

std::vector<std::string> string_list(JsonObject& q, const std::string& key) {
  if (!q.has(key)) {
    q.opt_str(key);  // marks it read
    return {};
  }
  return q.strings(key);
}

// NVIDIA ModelOpt: NVFP4 stores e2m1 values and an fp8 scale per group_size (16) weights, plus
// per-tensor fp32 scales; FP8 one byte per weight.
Quant modelopt_scheme(JsonObject& q) {
  Quant out;
  out.method = "modelopt";
  const auto algo = q.opt_str("quant_algo").value_or("");
  if (algo == "NVFP4") {
    const auto group = q.opt_uint("group_size", 1, 1u << 20).value_or(16);
    out.bytes = 0.5 + 1.0 / static_cast<double>(group);
    out.format = "nvfp4";
  } else if (algo == "FP8") {
    out.bytes = 1;
    out.format = "fp8";
  } else {
    throw Error(q.source(), q.pointer("quant_algo"),
                "unknown ModelOpt quant_algo \"" + algo + "\" (kvplan knows NVFP4 and FP8)");
  }
  out.skip = string_list(q, "exclude_modules");
  if (out.skip.empty()) out.skip = string_list(q, "ignore");
  // The KV cache scheme the checkpoint was calibrated for; the engine's --kv-cache-dtype decides
  // what the cache holds, but an unknown value is a typo or a scheme kvplan cannot cost.
  if (const auto kv = q.opt_str("kv_cache_quant_algo"); kv && *kv != "FP8" && *kv != "NVFP4")
    throw Error(q.source(), q.pointer("kv_cache_quant_algo"),
                "unknown ModelOpt KV cache scheme \"" + *kv + "\" (expected FP8 or NVFP4)");
  return out;
}

// Fp8Config: e4m3 weights; block-wise (weight_block_size [128, 128]) fp32 scale_inv per block,
// else one per tensor. 4 / (128 · 128) bytes per weight for the block scales.
void fp8_scheme(JsonObject& q, Quant& out) {
  double scale = 0;
  if (q.has("weight_block_size")) {
    const auto& b = q.raw("weight_block_size");
    // Bounded so rows · cols cannot wrap (a wrapped 0 made the scale bytes infinite).
    if (!b.is_array() || b.size() != 2 || !b[0].is_number_unsigned() ||
        !b[1].is_number_unsigned() || b[0].get<std::uint64_t>() == 0 ||
        b[1].get<std::uint64_t>() == 0 || b[0].get<std::uint64_t>() > 65536 ||
        b[1].get<std::uint64_t>() > 65536)
      throw Error(q.source(), q.pointer("weight_block_size"),
                  "expected [rows, cols], each 1 … 65536");
    scale = 4.0 / static_cast<double>(b[0].get<std::uint64_t>() * b[1].get<std::uint64_t>());
    out.block_n = static_cast<std::uint32_t>(b[0].get<std::uint64_t>());
    out.block_k = static_cast<std::uint32_t>(b[1].get<std::uint64_t>());
  }
  out.bytes = 1 + scale;
  out.format = scale > 0 ? "fp8_block" : "fp8";
  out.skip = string_list(q, "modules_to_not_convert");
  if (out.skip.empty()) out.skip = string_list(q, "ignored_layers");
}

// 4/8-bit packed weights; per group of group_size inputs an fp16 scale per output and a packed
// zero-point of `bits` bits (GPTQ also an int32 g_idx per input row, negligible). group_size:
// absent means 128 (transformers' GPTQConfig and AwqConfig default), -1 one group per output
// column (TheBloke's "no group size" GPTQ branches); anything else that is not a positive integer
// is refused rather than read as 128.
void gptq_awq_scheme(JsonObject& q, Quant& out) {
  const auto bits = q.uint("bits", 2, 8);
  double group = 128;
  if (q.has("group_size")) {
    const auto& gs = q.raw("group_size");
    if (gs.is_number_integer() && gs.get<std::int64_t>() == -1) {
      group = 1e18;  // per channel
    } else if (gs.is_number_integer() && gs.get<std::int64_t>() > 0 &&
               gs.get<std::int64_t>() <= (std::int64_t{1} << 20)) {
      group = static_cast<double>(gs.get<std::int64_t>());
    } else {
      throw Error(
          q.source(), q.pointer("group_size"),
          "expected -1 (per output column) or a group size of 1 … 1048576, got " + gs.dump());
    }
  }
  out.bytes = bits / 8.0 + (2 + bits / 8.0) / group;
  out.skip = string_list(q, "modules_to_not_convert");
  out.format = "int" + std::to_string(bits);
}

void bitsandbytes_scheme(JsonObject& q, Quant& out) {
  const bool four = q.opt_bool("load_in_4bit").value_or(false);
  const bool eight = q.opt_bool("load_in_8bit").value_or(false);
  // transformers refuses both at once (src/transformers/utils/quantization_config.py@14257688,
  // BitsAndBytesConfig.__init__): "load_in_4bit and load_in_8bit are both True, but only one can
  // be used at the same time".
  if (four && eight)
    throw Error(q.source(), q.pointer("load_in_8bit"),
                "load_in_4bit and load_in_8bit are both true, but only one can be used at the "
                "same time (transformers' BitsAndBytesConfig refuses it)");
  if (four) {
    // nf4/fp4 codes, an absmax per 64 weights: fp32, or with double quantization one byte
    // plus an fp32 per 256 absmax values.
    const bool dq = q.opt_bool("bnb_4bit_use_double_quant").value_or(false);
    out.bytes = 0.5 + (dq ? 1.0 / 64 + 4.0 / (64 * 256) : 4.0 / 64);
    out.format = "bnb4";
  } else if (eight) {
    out.bytes = 1;  // int8 rows and an fp32 scale per output row (negligible per weight)
    out.format = "int8";
  } else {
    throw Error(q.source(), q.pointer("load_in_4bit"),
                "a bitsandbytes config needs load_in_4bit or load_in_8bit");
  }
  out.skip = string_list(q, "llm_int8_skip_modules");
}

// One scheme for the weights of every config group (the common case); bits, type and group
// size from its "weights" entry.
void compressed_tensors_scheme(JsonObject& q, Quant& out) {
  const auto& groups = q.raw("config_groups");
  if (!groups.is_object() || groups.empty())
    throw Error(q.source(), q.pointer("config_groups"), "expected at least one config group");
  const auto& g = groups.begin().value();
  const auto gp = q.pointer("config_groups") + "/" + groups.begin().key();
  if (!g.is_object() || !g.contains("weights") || !g["weights"].is_object())
    throw Error(q.source(), gp + "/weights", "missing: the weight scheme");
  // Typed reads: a field of the wrong type is refused with its pointer (nlohmann's
  // value() threw type_error, an internal error).
  JsonObject w(g["weights"], q.source(), gp + "/weights");
  const auto bits = w.opt_uint("num_bits", 1, 64).value_or(0);
  const std::string type = w.opt_str("type").value_or("int");
  const std::string strategy = w.opt_str("strategy").value_or("tensor");
  double group = 1e18;
  if (strategy == "group" || strategy == "tensor_group")
    group = static_cast<double>(w.opt_uint("group_size", 1, 1u << 20).value_or(128));
  if (bits != 4 && bits != 8)
    throw Error(q.source(), gp + "/weights/num_bits",
                "expected 4 or 8, got " + std::to_string(bits));
  const double scale_bytes = type == "float" && bits == 4 ? 1 : 2;  // nvfp4 fp8 scales
  out.bytes = bits / 8.0 + scale_bytes / group;
  if (type == "int" && bits == 4 && !w.opt_bool("symmetric").value_or(true))
    out.bytes += 0.5 / group;
  if (type == "int") out.format = "int" + std::to_string(bits);
  if (type == "float") out.format = bits == 4 ? "nvfp4" : strategy == "block" ? "fp8_block" : "fp8";
  out.skip = string_list(q, "ignore");
}

Quant quant_of(Config& c, const nlohmann::json* modelopt) {
  Quant out;
  if (!c.has("quantization_config") && modelopt) {
    // NVIDIA ModelOpt checkpoints describe their scheme in hf_quant_config.json:
    // {"quantization": {"quant_algo": "NVFP4", "group_size": 16, "exclude_modules": [...]}}.
    JsonObject top(*modelopt, "hf_quant_config.json", "");
    JsonObject q = top.object("quantization");
    return modelopt_scheme(q);
  }
  if (!c.has("quantization_config")) return out;
  auto& owner = c.owner("quantization_config");
  JsonObject q = owner.object("quantization_config");
  const auto method = q.opt_str("quant_method").value_or("");
  const auto where = q.pointer("quant_method");
  out.method = method;
  if (method == "fp8") {
    fp8_scheme(q, out);
  } else if (method == "mxfp4") {
    // OCP MX FP4: 4-bit e2m1 values and one e8m0 scale byte per 32 (gpt-oss *_blocks, *_scales).
    out.bytes = 0.5 + 1.0 / 32;
    out.skip = string_list(q, "modules_to_not_convert");
    out.format = "mxfp4";
  } else if (method == "gptq" || method == "awq") {
    gptq_awq_scheme(q, out);
  } else if (method == "bitsandbytes") {
    bitsandbytes_scheme(q, out);
  } else if (method == "modelopt") {
    out = modelopt_scheme(q);
  } else if (method == "compressed-tensors") {
    compressed_tensors_scheme(q, out);
  } else {
    throw Error(q.source(), where,
                "unknown quantization method \"" + method +
                    "\": its weight bytes are unknown (kvplan knows fp8, mxfp4, gptq, awq, "
                    "bitsandbytes, modelopt, compressed-tensors)");
  }
  return out;
}

std::string compute_dtype_of(Config& c) {
  for (const char* key : {"torch_dtype", "dtype"}) {
    if (!c.has(key)) continue;
    auto& o = c.owner(key);
    const auto name = o.str(key);
    if (name == "bfloat16") return "bf16";
    if (name == "float16") return "fp16";
    if (name == "float32") return "fp32";
    if (name.rfind("float8", 0) == 0) return "fp8";
    throw Error(o.source(), o.pointer(key),
                "expected bfloat16, float16 or float32, got \"" + name + "\"");
  }
  return "bf16";
}

KvDtype as_state_dtype(const std::string& d) {
  return d == "fp32" ? KvDtype::fp32 : d == "fp16" ? KvDtype::fp16 : KvDtype::bf16;
}

// ---------------------------------------------------------------------------------------------
// The import, step by step: the text config and its family; the shape; the layers; the
// parameters by component; their bytes.

// The language model's config (nested or not), its family's row and the row's defaults; the
// spec's id, name and source.
void read_config(Config& c, const nlohmann::json& j, const std::string& source, ModelSpec& m) {
  m.source = source;
  m.id = std::filesystem::path(source).stem().string();
  c.outer_type = c.top.opt_str("model_type").value_or("");
  std::string name = c.outer_type;
  if (c.top.has("architectures")) {
    const auto archs = c.top.strings("architectures");
    if (!archs.empty()) name = m.architecture = archs.front();
  }
  m.name = name.empty() ? m.id : name;
  // Multimodal wrappers nest the language model; some (Qwen2-VL) keep its fields at top level.
  const nlohmann::json* text_json = &j;
  std::string text_ptr;
  if (c.top.has("text_config") && c.top.raw("text_config").is_object() &&
      (c.top.object("text_config").has("num_hidden_layers") || !c.top.has("num_hidden_layers"))) {
    text_json = &j["text_config"];
    text_ptr = "/text_config";
  }
  c.model_type = text_json->is_object() && text_json->contains("model_type") &&
                         (*text_json)["model_type"].is_string()
                     ? (*text_json)["model_type"].get<std::string>()
                     : c.outer_type;
  c.family = &find_hf_family(c.model_type);
  c.wrapper = &find_hf_family(c.outer_type);
  // Defaults of the family's transformers config class for fields its published configs leave
  // out (Gemma 3's text_config lists only what differs from Gemma3TextConfig).
  if (!c.family->config_defaults.empty()) {
    const auto d = nlohmann::json::parse(c.family->config_defaults);
    c.filled = std::make_unique<nlohmann::json>(*text_json);
    for (auto it = d.begin(); it != d.end(); ++it)
      if (!c.filled->contains(it.key())) (*c.filled)[it.key()] = it.value();
    text_json = c.filled.get();
  }
  // Errors name the field where it is (or belongs) in the file.
  if (!text_ptr.empty() || c.filled) c.text_holder.emplace(*text_json, source, text_ptr);
  c.text_json = text_json;
  c.text_ptr = text_ptr;
}

// Layers, width and heads.
Shape read_counts(JsonObject& o) {
  Shape s;
  s.layers = o.uint("num_hidden_layers", 1, kMaxLayers);
  s.hidden = o.uint("hidden_size", 1, kMaxWidth);
  s.q_heads = o.uint("num_attention_heads", 1, kMaxHeads);
  s.kv_heads = o.opt_uint("num_key_value_heads", 1, kMaxHeads).value_or(s.q_heads);
  return s;
}

// The cached width per token and layer: MLA's latent, else K and V heads of head_dim.
void read_head_dims(JsonObject& o, const std::string& source, Shape& s, ModelSpec& m) {
  // MLA by its fields, whatever the model_type (deepseek_v2/v3, kimi_k2, deepseek_v32,
  // glm4_moe_lite, ...): vLLM's ModelConfig.is_deepseek_mla keys on kv_lora_rank.
  s.mla = o.has("kv_lora_rank");
  if (s.mla) {
    s.kv_lora_rank = o.uint("kv_lora_rank", 1, kMaxDim);
    s.qk_rope = o.uint("qk_rope_head_dim", 0, kMaxDim);
    // RoPE rotates pairs of dimensions: an odd width is refused here as validate() refuses it
    // for a kvplan model JSON (the fuzz invariant: an imported model passes validate()).
    if (s.qk_rope % 2 != 0)
      throw Error(
          o.source(), o.pointer("qk_rope_head_dim"),
          "RoPE rotates pairs of dimensions: must be even, got " + std::to_string(s.qk_rope));
    // Defaults are DeepseekV2Config's, for configs that leave them out.
    s.qk_nope = o.opt_uint("qk_nope_head_dim", 0, kMaxDim).value_or(128);
    s.v_head_dim = o.opt_uint("v_head_dim", 1, kMaxDim).value_or(128);
    s.q_lora_rank = o.opt_uint("q_lora_rank", 1, kMaxDim).value_or(0);
    s.index_head_dim = o.opt_uint("index_head_dim", 1, kMaxDim).value_or(0);
    s.index_heads = o.opt_uint("index_n_heads", 1, kMaxHeads).value_or(0);
    m.kv_lora_rank = static_cast<std::uint32_t>(s.kv_lora_rank);
    m.qk_rope_head_dim = static_cast<std::uint32_t>(s.qk_rope);
    m.index_head_dim = static_cast<std::uint32_t>(s.index_head_dim);
    m.num_kv_heads = 1;
    m.head_dim_k = m.latent_width();
    m.head_dim_v = 0;
    return;
  }
  if (const auto hd = o.opt_uint("head_dim", 1, kMaxDim)) {
    s.head_dim = *hd;
  } else if (s.hidden % s.q_heads != 0) {
    throw Error(source, o.pointer("hidden_size"),
                "must be divisible by num_attention_heads (" + std::to_string(s.q_heads) +
                    ") when head_dim is absent, got " + std::to_string(s.hidden));
  } else {
    s.head_dim = s.hidden / s.q_heads;
  }
  if (s.head_dim > kMaxDim)
    throw Error(source, o.pointer("hidden_size"),
                "gives a head dimension of " + std::to_string(s.head_dim) + ", over " +
                    std::to_string(kMaxDim));
  if (s.q_heads % s.kv_heads != 0)
    throw Error(source, o.pointer("num_key_value_heads"),
                "must divide num_attention_heads (" + std::to_string(s.q_heads) + "), got " +
                    std::to_string(s.kv_heads));
  s.v_head_dim = s.head_dim;
  m.num_kv_heads = static_cast<std::uint32_t>(s.kv_heads);
  m.head_dim_k = m.head_dim_v = static_cast<std::uint32_t>(s.head_dim);
}

// The recurrent state's dimensions and dtypes. vLLM's per-model defaults
// (model_executor/models/config.py): the family's row names the field that sets the temporal
// state's dtype (Nemotron-H's mamba_ssm_cache_dtype, else float32; Qwen3.5's mamba_ssm_dtype);
// every other family keeps it in the model dtype.
RecurrentSpec recurrent_of(Config& c, MixerKind mixer, const Shape& s, const std::string& compute) {
  JsonObject& o = c.text();
  RecurrentSpec r =
      recurrent_dims(c, mixer, s.hidden, as_state_dtype(compute), s.q_heads, s.head_dim);
  if (c.family->ssm_state_fp32) r.ssm_dtype = KvDtype::fp32, r.ssm_dtype_pinned = true;
  const std::string key(c.family->ssm_dtype_field);
  if (!key.empty() && o.has(key)) {
    const auto d = o.str(key);
    if (const auto t = parse_torch_float(d)) {
      r.ssm_dtype = *t;
      r.ssm_dtype_pinned = true;
    } else if (d == "auto") {  // the hook sets "auto": the state follows --mamba-cache-dtype
      r.ssm_dtype = r.conv_dtype;
      r.ssm_dtype_pinned = false;
    } else {
      throw Error(o.source(), o.pointer(key),
                  "expected auto, float32, bfloat16 or float16, got \"" + d + "\"");
    }
  }
  // TensorRT-LLM's one field (RecurrentSpec::ssm_cache_dtype), wherever the family's hook reads.
  static const std::string kTrtllmField = "mamba_ssm_cache_dtype";
  if (c.has(kTrtllmField)) {
    JsonObject& w = c.owner(kTrtllmField);
    const auto d = w.str(kTrtllmField);
    if (const auto t = parse_torch_float(d))
      r.ssm_cache_dtype = *t;
    else if (d != "auto")
      throw Error(w.source(), w.pointer(kTrtllmField),
                  "expected auto, float32, bfloat16 or float16, got \"" + d + "\"");
  }
  return r;
}

// Every layer's kind, window or chunk, and recurrent state; the MTP layers.
void build_layers(Config& c, const Shape& s, const std::string& compute, ModelSpec& m) {
  JsonObject& o = c.text();
  const MixerKind mixer = mixer_of(c);
  m.layers = layer_pattern(c, s.layers, mixer);
  auto any = [&](AttentionKind k) {
    return std::any_of(m.layers.begin(), m.layers.end(),
                       [k](const LayerSpec& l) { return l.kind == k; });
  };
  // Before MLA renames the kinds: a sliding MLA layer still needs its window read.
  const bool uses_window = any(AttentionKind::sliding), uses_chunk = any(AttentionKind::chunked);
  if (s.mla)
    for (auto& l : m.layers)
      if (l.kind != AttentionKind::none) l.kind = AttentionKind::mla;
  if (uses_window) {
    // The family's config class may default the window (Gemma 2 and 3: 4096).
    std::optional<std::uint64_t> w = o.opt_uint("sliding_window", 1, kMaxContext);
    if (!w && c.family->sliding_window_default) w = c.family->sliding_window_default;
    if (!w) throw Error(o.source(), o.pointer("sliding_window"), "missing: sliding layers need it");
    for (auto& l : m.layers)
      if (l.kind == AttentionKind::sliding) l.window = *w;
  }
  if (uses_chunk) {
    const auto chunk = o.uint("attention_chunk_size", 1, kMaxContext);
    for (auto& l : m.layers)
      if (l.kind == AttentionKind::chunked) l.window = chunk;
  }
  if (mixer != MixerKind::none) m.recurrent = recurrent_of(c, mixer, s, compute);
  // MTP layers ship with the checkpoint (DeepSeek-V3, GLM-4.5, Qwen3-Next); they hold a cache
  // only when speculative decoding runs them.
  m.mtp_layers = static_cast<std::uint32_t>(
      o.opt_uint("num_nextn_predict_layers", 0, 64)
          .value_or(o.opt_uint("mtp_num_hidden_layers", 0, 64).value_or(0)));
}

// The checkpoint's quantization scheme; bytes per weight that are not a finite positive number
// (a group_size of 0) are refused here, never converted to a byte count.
Quant read_quant(Config& c, const nlohmann::json* modelopt, const std::string& source) {
  Quant q = quant_of(c, modelopt);
  if (!q.method.empty() && !(std::isfinite(q.bytes) && q.bytes > 0 && q.bytes <= 64)) {
    const bool in_config = c.has("quantization_config");
    throw Error(
        in_config ? source : "hf_quant_config.json",
        in_config ? c.owner("quantization_config").pointer("quantization_config") : "/quantization",
        "the " + q.method + " scheme gives " + std::to_string(q.bytes) +
            " bytes per weight (a group or block size of 0 or absurd)");
  }
  return q;
}

// The MLP side of a decoder layer: dense, routed experts, shared experts, router.
struct MlpLayout {
  std::uint64_t hidden = 0, inter = 0, dense_width = 0;
  bool mlp_bias = false;
  Moe moe;
  std::string pattern;  // Nemotron-H's hybrid_override_pattern, else empty
};

void add_mlp_params(Params& p, const HfFamily& f, const MlpLayout& l, std::size_t i) {
  const std::uint64_t h = l.hidden;
  const Moe& moe = l.moe;
  if (f.mlp == HfMlp::squared_relu) {
    // Nemotron-H layers hold one block each: mixer, attention or MLP (up + down, no gate).
    const bool mlp_layer = i < l.pattern.size() && (l.pattern[i] == '-' || l.pattern[i] == 'E');
    if (mlp_layer && !moe.layer_is_moe[i]) p.add(Part::dense_mlp, pmul(2, h, l.inter));
    if (moe.layer_is_moe[i]) {
      p.add(Part::experts, pmul(moe.experts, pmul(2, h, moe.width)));
      p.add(Part::shared_expert, pmul(2, h, moe.shared));
      p.add(Part::router, pmul(h, moe.experts) + moe.experts);
    }
    return;
  }
  if (moe.experts && moe.layer_is_moe[i]) {
    if (moe.gpt_oss) {
      // gpt-oss experts: gate_up_proj [E, h, 2·w] + bias, down_proj [E, w, h] + bias;
      // router [E, h] + bias.
      p.add(Part::experts, pmul(moe.experts, pmul(3, h, moe.width) + 2 * moe.width + h));
      p.add(Part::router, pmul(h, moe.experts) + moe.experts);
    } else {
      p.add(Part::experts, pmul(moe.experts, gated_mlp(h, moe.width, false)));
      p.add(Part::router, pmul(h, moe.experts) + (moe.router_bias ? moe.experts : 0));
      if (moe.shared) p.add(Part::shared_expert, gated_mlp(h, moe.shared, false));
      if (moe.shared_gate) p.add(Part::router, h);
    }
  } else if (l.dense_width) {
    p.add(Part::dense_mlp, gated_mlp(h, l.dense_width, l.mlp_bias));
  }
}

// Parameters by component; the experts per token on the way.
Params count_params(Config& c, const Shape& s, ModelSpec& m) {
  JsonObject& o = c.text();
  const HfFamily& f = *c.family;
  Params p;
  const auto vocab = o.opt_uint("vocab_size", 1, kMaxWidth).value_or(0);
  MlpLayout mlp;
  mlp.hidden = s.hidden;
  mlp.inter = o.opt_uint("intermediate_size", 1, kMaxWidth).value_or(0);
  // When the config leaves it out, each family's config class decides: PretrainedConfig ties
  // (Gemma relies on it); Llama4TextConfig does not (the checkpoint ships lm_head).
  const bool tied = c.owner("tie_word_embeddings")
                        .opt_bool("tie_word_embeddings")
                        .value_or(f.tie_word_embeddings);
  const std::uint64_t h = s.hidden;
  m.vocab_size = static_cast<std::uint32_t>(vocab);
  m.intermediate_size = static_cast<std::uint32_t>(mlp.inter);
  m.tie_word_embeddings = tied;
  p.add(Part::embed, pmul(vocab, h));
  if (!tied) p.add(Part::head, pmul(vocab, h));
  if (f.layer_pattern == HfLayerPattern::nemotron_h_string && c.has("hybrid_override_pattern"))
    mlp.pattern = c.owner("hybrid_override_pattern").str("hybrid_override_pattern");
  mlp.moe = moe_of(c, s.layers, mlp.pattern);
  // Experts per token: num_experts_per_tok (Mixtral, Qwen-MoE, DeepSeek, Llama 4, gpt-oss),
  // experts_per_token (gpt-oss, beside the former), moe_topk (Hunyuan). Left 0 when absent;
  // the step-time model then refuses the model, the KV planner does not need it.
  m.routed_experts = static_cast<std::uint32_t>(mlp.moe.experts);
  if (mlp.moe.experts) {
    m.moe_intermediate_size = static_cast<std::uint32_t>(mlp.moe.width);
    m.moe_layers = static_cast<std::uint32_t>(
        std::count(mlp.moe.layer_is_moe.begin(), mlp.moe.layer_is_moe.end(), true));
  }
  for (const char* k : {"num_experts_per_tok", "experts_per_token", "moe_topk"})
    if (mlp.moe.experts && !m.experts_per_token && o.has(k))
      m.experts_per_token = static_cast<std::uint32_t>(o.uint(k, 1, mlp.moe.experts));
  const std::uint64_t attn = attention_params(c, s);
  const std::uint64_t mix = mixer_params(m.recurrent, h, c);
  // Dense MLP width: Llama 4 names it intermediate_size_mlp (intermediate_size is the experts').
  mlp.dense_width = mlp.inter;
  if (o.has("intermediate_size_mlp"))
    mlp.dense_width = o.uint("intermediate_size_mlp", 1, kMaxWidth);
  mlp.mlp_bias = o.opt_bool("mlp_bias").value_or(false);
  for (std::uint64_t i = 0; i < s.layers; ++i) {
    const auto& l = m.layers[i];
    if (l.kind != AttentionKind::none) p.add(Part::attention, attn);
    if (l.recurrent) p.add(Part::mixer, mix);
    p.add(Part::small, std::uint64_t{f.norms_per_layer} * h);
    add_mlp_params(p, f, mlp, i);
  }
  p.add(Part::small, h);  // final norm
  p.add(Part::vision, vision_params(c, h));
  // The widths a block-quantized checkpoint's TP cut must keep whole (WeightSpec; weight_bytes
  // keeps those of the quantized parts).
  m.weights.block_expert_width = static_cast<std::uint32_t>(mlp.moe.experts ? mlp.moe.width : 0);
  m.weights.block_shared_width =
      static_cast<std::uint32_t>(mlp.moe.experts && !mlp.moe.gpt_oss ? mlp.moe.shared : 0);
  m.weights.block_dense_width =
      static_cast<std::uint32_t>(p[Part::dense_mlp] > 0 ? mlp.dense_width : 0);
  return p;
}

// Bytes as stored: quantized parts at the scheme's bytes per weight; embeddings, head, router,
// norms and vision in the compute dtype unless the scheme covers them.
void weight_bytes(const Params& p, const Quant& q, const std::string& compute, ModelSpec& m) {
  const double compute_bytes = compute == "fp32" ? 4 : compute == "fp8" ? 1 : 2;
  double bytes = 0, expert_bytes = 0, vision_bytes = 0;
  for (int part = 0; part < 10; ++part) {
    const auto which = static_cast<Part>(part);
    double bpp = compute_bytes;
    const bool linear = which == Part::attention || which == Part::mixer ||
                        which == Part::dense_mlp || which == Part::experts ||
                        which == Part::shared_expert;
    if (!q.method.empty() && linear && !skipped(q, which)) bpp = q.bytes;
    // mxfp4 (gpt-oss) quantizes the experts only.
    if (q.method == "mxfp4" && which != Part::experts) bpp = compute_bytes;
    const double b = static_cast<double>(p[which]) * bpp;
    bytes += b;
    if (which == Part::experts) expert_bytes += b;
    if (which == Part::vision) vision_bytes += b;
    if (which == Part::embed) m.weights.embed_bytes = static_cast<std::uint64_t>(std::ceil(b));
    if (which == Part::head) m.weights.head_bytes = static_cast<std::uint64_t>(std::ceil(b));
  }
  if (!(bytes < 0x1p64)) throw Error("parameter count", "", "weight bytes overflow 64 bits");
  m.weights.bytes = static_cast<std::uint64_t>(std::ceil(bytes));
  m.weights.expert_bytes = static_cast<std::uint64_t>(std::ceil(expert_bytes));
  m.weights.vision_bytes = static_cast<std::uint64_t>(std::ceil(vision_bytes));
  m.weights.quantization = q.method;
  m.weights.format = q.format;
  m.weights.block_n = q.block_n;
  m.weights.block_k = q.block_k;
  const auto cut = [&](std::uint32_t& width, Part part) {
    if (q.block_n == 0 || q.method.empty() || skipped(q, part)) width = 0;
  };
  cut(m.weights.block_expert_width, Part::experts);
  cut(m.weights.block_shared_width, Part::shared_expert);
  cut(m.weights.block_dense_width, Part::dense_mlp);
}

// What a plain dtype override would replace; quantized checkpoints keep theirs.
std::string weight_dtype_of(const Quant& q, const std::string& compute) {
  if (q.method == "fp8" || (q.method == "modelopt" && q.bytes == 1)) return "fp8";
  if (q.method == "mxfp4" || q.method == "modelopt") return "fp4";
  if (!q.method.empty() && q.bytes < 0.7) return "int4";
  if (!q.method.empty() && q.bytes < 1.5) return "int8";
  return compute;
}

}  // namespace

bool looks_like_hf_config(const nlohmann::json& j) {
  return j.is_object() && (j.contains("model_type") || j.contains("architectures"));
}

ModelSpec import_hf_config(const nlohmann::json& j, const std::string& source,
                           const nlohmann::json* modelopt_quant) {
  Config c{nullptr, JsonObject(j, source, ""), std::nullopt,         "",
           "",      &hf_generic_family(),      &hf_generic_family(), nullptr,
           ""};
  ModelSpec m;
  read_config(c, j, source, m);
  JsonObject& o = c.text();
  Shape s = read_counts(o);
  const std::string compute = compute_dtype_of(c);
  read_head_dims(o, source, s, m);
  build_layers(c, s, compute, m);
  m.num_q_heads = static_cast<std::uint32_t>(s.q_heads);
  m.hidden_size = static_cast<std::uint32_t>(s.hidden);
  // The longest request as vLLM derives it from the text config (positions.cpp).
  nlohmann::json fields = position_fields(*c.text_json);
  fields["model_type"] = c.model_type;
  const Positions pos = derive_positions(fields, source, c.text_ptr);
  m.max_context = pos.tokens;
  m.positions_basis = pos.basis;
  m.position_fields = fields.dump();
  const Quant q = read_quant(c, modelopt_quant, source);
  try {
    const Params p = count_params(c, s, m);
    m.num_params = p.total();
    m.num_params_estimated = true;
    weight_bytes(p, q, compute, m);
  } catch (const Error& e) {
    if (e.source() != "parameter count") throw;  // a field's own error already names the file
    throw Error(source, o.pointer("hidden_size"),
                "hidden_size " + std::to_string(s.hidden) + " with " + std::to_string(s.layers) +
                    " layers and the given heads, head_dim, intermediate and vocab sizes: the "
                    "parameter count overflows 64-bit arithmetic (absurd sizes)");
  }
  m.weight_dtype = weight_dtype_of(q, compute);
  if (compute == "fp32" || compute == "fp16" || compute == "bf16") m.compute_dtype = compute;
  return m;
}

}  // namespace kvplan::detail
