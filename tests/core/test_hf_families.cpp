// The table of Hugging Face families (kvplan/hf_families.hpp): its invariants, walked row by row,
// and the import reading a model_type by its row (a prefix row, the generic row), checked against
// parameter counts worked out by hand from the config's fields.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "kvplan/error.hpp"
#include "kvplan/hf_families.hpp"
#include "kvplan/model.hpp"

namespace {

using kvplan::HfFamily;
using kvplan::MixerKind;

// Every field of a row that changes what the import reads or counts, as text.
std::map<std::string, std::string> traits(const HfFamily& f) {
  auto b = [](bool v) { return std::string(v ? "true" : "false"); };
  auto e = [](auto v) { return std::to_string(static_cast<int>(v)); };
  return {
      {"layer_pattern", e(f.layer_pattern)},
      {"mixer", e(f.mixer)},
      {"mixer_outranks_mamba2_fields", b(f.mixer_outranks_mamba2_fields)},
      {"mamba_width_from_intermediate_size", b(f.mamba_width_from_intermediate_size)},
      {"mamba_dt_bc_norms", b(f.mamba_dt_bc_norms)},
      {"ssm_state_fp32", b(f.ssm_state_fp32)},
      {"ssm_dtype_field", std::string(f.ssm_dtype_field)},
      {"sliding_window_default", std::to_string(f.sliding_window_default)},
      {"config_defaults", std::string(f.config_defaults)},
      {"qkv_bias", b(f.qkv_bias)},
      {"attention_bias", b(f.attention_bias)},
      {"attention_bias_skips_o_proj", b(f.attention_bias_skips_o_proj)},
      {"qk_norm", b(f.qk_norm)},
      {"attn_output_gate", b(f.attn_output_gate)},
      {"attention_sinks", b(f.attention_sinks)},
      {"mlp", e(f.mlp)},
      {"norms_per_layer", std::to_string(f.norms_per_layer)},
      {"moe_layers", e(f.moe_layers)},
      {"experts", e(f.experts)},
      {"shared_expert_routed_width", b(f.shared_expert_routed_width)},
      {"router_bias", b(f.router_bias)},
      {"tie_word_embeddings", b(f.tie_word_embeddings)},
      {"vision", e(f.vision)},
  };
}

bool is_key(std::string_view k) {
  if (k.empty()) return false;
  for (const char ch : k)
    if (!(std::islower(static_cast<unsigned char>(ch)) ||
          std::isdigit(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.'))
      return false;
  return true;
}

TEST(HfFamilies, EveryRowHasANameASourceAndCoversAModelType) {
  ASSERT_GT(kvplan::hf_families().size(), 10u);
  for (const auto& f : kvplan::hf_families()) {
    EXPECT_FALSE(f.name.empty());
    EXPECT_FALSE(f.source.empty()) << f.name;
    EXPECT_TRUE(!f.model_types.empty() || !f.prefix.empty()) << f.name;
    EXPECT_FALSE(!f.model_types.empty() && !f.prefix.empty())
        << f.name << ": a row is either exact model_types or a prefix";
  }
  const auto& g = kvplan::hf_generic_family();
  EXPECT_EQ(g.name, "generic");
  EXPECT_FALSE(g.source.empty());
  EXPECT_TRUE(g.model_types.empty() && g.prefix.empty());
}

TEST(HfFamilies, NoModelTypeOrPrefixAppearsTwice) {
  std::set<std::string_view> types, prefixes, names;
  for (const auto& f : kvplan::hf_families()) {
    EXPECT_TRUE(names.insert(f.name).second) << "row name " << f.name << " twice";
    for (const auto t : f.model_types) {
      EXPECT_FALSE(t.empty()) << f.name;
      EXPECT_TRUE(types.insert(t).second) << "model_type " << t << " in two rows";
    }
    if (!f.prefix.empty()) {
      EXPECT_TRUE(prefixes.insert(f.prefix).second) << "prefix " << f.prefix << " twice";
    }
  }
}

TEST(HfFamilies, LookupFindsEveryRowByItsNames) {
  for (const auto& f : kvplan::hf_families()) {
    for (const auto t : f.model_types) EXPECT_EQ(&kvplan::find_hf_family(t), &f) << t;
    if (f.prefix.empty()) continue;
    // A model_type no row names, starting with this prefix and no longer one.
    const std::string other = std::string(f.prefix) + "_kvplan_test";
    EXPECT_EQ(&kvplan::find_hf_family(other), &f) << other;
  }
  // The longest prefix wins: qwen3_5_* is Qwen3.5, not Qwen3, not Qwen.
  EXPECT_EQ(kvplan::find_hf_family("qwen3_5_vl").prefix, "qwen3_5");
  EXPECT_EQ(kvplan::find_hf_family("qwen3_vl").prefix, "qwen3");
  EXPECT_EQ(kvplan::find_hf_family("qwen2_moe").prefix, "qwen");
  for (const char* t : {"", "llama", "deepseek_v3", "kimi_k2", "no_such_model"})
    EXPECT_EQ(&kvplan::find_hf_family(t), &kvplan::hf_generic_family()) << t;
}

// A row naming model_types exactly refines the prefix rows that would cover them otherwise:
// wherever such a prefix row departs from the generic reading, the exact row departs the same
// way (Gemma 3's norms and qk_norm hold for gemma3 and gemma3_text alike).
TEST(HfFamilies, ExactRowsKeepTheirPrefixRowsTraits) {
  const auto generic = traits(kvplan::hf_generic_family());
  std::size_t checked = 0;
  for (const auto& f : kvplan::hf_families()) {
    const auto mine = traits(f);
    std::vector<std::string_view> names(f.model_types.begin(), f.model_types.end());
    if (!f.prefix.empty()) names.push_back(f.prefix);
    for (const auto& p : kvplan::hf_families()) {
      if (&p == &f || p.prefix.empty()) continue;
      for (const auto n : names) {
        if (!n.starts_with(p.prefix)) continue;
        for (const auto& [key, value] : traits(p)) {
          if (value == generic.at(key)) continue;
          EXPECT_EQ(mine.at(key), value)
              << f.name << " (" << n << ") vs prefix " << p.prefix << ": " << key;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 10u);
}

TEST(HfFamilies, RowsAreConsistent) {
  using kvplan::HfLayerPattern;
  using kvplan::HfMlp;
  using kvplan::HfMoeLayers;
  for (const auto& f : kvplan::hf_families()) {
    SCOPED_TRACE(std::string(f.name));
    // Nemotron-H's string decides layers, MoE layers and the one-block layer layout together.
    const bool nemotron = f.layer_pattern == HfLayerPattern::nemotron_h_string;
    EXPECT_EQ(nemotron, f.moe_layers == HfMoeLayers::nemotron_h_string);
    EXPECT_EQ(nemotron, f.mlp == HfMlp::squared_relu);
    // Jamba's periods: attention and MoE layers, between Mamba mixers.
    EXPECT_EQ(f.layer_pattern == HfLayerPattern::jamba_period,
              f.moe_layers == HfMoeLayers::jamba_period);
    if (f.layer_pattern == HfLayerPattern::jamba_period) {
      EXPECT_EQ(f.mixer, MixerKind::mamba);
    }
    if (f.layer_pattern == HfLayerPattern::falcon_h1_parallel || nemotron) {
      EXPECT_EQ(f.mixer, MixerKind::mamba2);
    }
    // Mamba-only knobs need a Mamba mixer; the fp32 state a mixer.
    if (f.mixer_outranks_mamba2_fields || f.mamba_width_from_intermediate_size ||
        f.mamba_dt_bc_norms) {
      EXPECT_EQ(f.mixer, MixerKind::mamba);
    }
    if (f.ssm_state_fp32) {
      EXPECT_NE(f.mixer, MixerKind::none);
    }
    EXPECT_NE(f.mixer, MixerKind::shapes);  // only kvplan's own model files give shapes
    // A window default belongs to a row whose pattern slides, or to a prefix row (its
    // model_types may list sliding layers in layer_types).
    const bool slides = f.layer_pattern == HfLayerPattern::gemma2_even_sliding ||
                        f.layer_pattern == HfLayerPattern::gemma3_global_every ||
                        f.layer_pattern == HfLayerPattern::qwen2_max_window_layers ||
                        f.layer_pattern == HfLayerPattern::sliding_when_window;
    if (f.sliding_window_default) {
      EXPECT_TRUE(slides || !f.prefix.empty());
    }
    // Biases: a row forcing every bias does not also drop o_proj's.
    EXPECT_FALSE(f.attention_bias && f.attention_bias_skips_o_proj);
    EXPECT_FALSE(f.attention_bias && f.qkv_bias);  // qkv_bias would never be read
    EXPECT_TRUE(f.norms_per_layer == 2 || f.norms_per_layer == 4);
    if (!f.ssm_dtype_field.empty()) {
      EXPECT_TRUE(is_key(f.ssm_dtype_field));
    }
  }
}

TEST(HfFamilies, FieldListsAreConfigKeysWithoutRepeats) {
  std::vector<const HfFamily*> rows{&kvplan::hf_generic_family()};
  for (const auto& f : kvplan::hf_families()) rows.push_back(&f);
  for (const HfFamily* f : rows) {
    std::set<std::string_view> seen;
    for (const auto k : f->fields) {
      EXPECT_TRUE(is_key(k)) << f->name << ": \"" << k << "\"";
      EXPECT_TRUE(seen.insert(k).second) << f->name << ": " << k << " twice";
    }
    // The row's dtype field is among the keys it says it reads.
    if (!f->ssm_dtype_field.empty()) {
      EXPECT_TRUE(seen.count(f->ssm_dtype_field)) << f->name;
    }
  }
}

TEST(HfFamilies, ConfigDefaultsAreJsonObjectsOfConfigKeys) {
  std::size_t with_defaults = 0;
  for (const auto& f : kvplan::hf_families()) {
    if (f.config_defaults.empty()) continue;
    ++with_defaults;
    const auto j = nlohmann::json::parse(f.config_defaults);
    ASSERT_TRUE(j.is_object()) << f.name;
    EXPECT_FALSE(j.empty()) << f.name;
    for (auto it = j.begin(); it != j.end(); ++it) EXPECT_TRUE(is_key(it.key())) << f.name;
  }
  EXPECT_EQ(with_defaults, 1u);  // Gemma3TextConfig's, the one family that needs them today
}

// ---------------------------------------------------------------------------------------------
// The import reads a model_type by its row.

// One decoder layer: hidden 8, 2 query heads and 1 KV head of head_dim 4, MLP width 16, vocab 10.
// By hand: embeddings 10 · 8 = 80 (tied, no lm_head); attention q 8·8 + k 8·4 + v 8·4 + o 8·8
// = 192; norms 2 · 8 = 16; gated MLP 3 · 8 · 16 = 384; final norm 8. Total 680.
std::string tiny_config(const std::string& model_type) {
  return R"({"model_type": ")" + model_type + R"(", "num_hidden_layers": 1, "hidden_size": 8,
      "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 4,
      "intermediate_size": 16, "vocab_size": 10})";
}

std::uint64_t params_of(const std::string& model_type) {
  return kvplan::parse_model_json(tiny_config(model_type), model_type + ".json").num_params;
}

TEST(HfFamilies, GenericRowReadsAnUnknownModelTypeByItsFields) {
  EXPECT_EQ(params_of("llama"), 680u);
  EXPECT_EQ(params_of("kvplan_unknown"), 680u);
  // Its layer kinds come from layer_types, whatever the model_type.
  auto j = nlohmann::json::parse(tiny_config("kvplan_unknown"));
  j["num_hidden_layers"] = 2;
  j["layer_types"] = {"sliding_attention", "full_attention"};
  j["sliding_window"] = 512;
  const auto m = kvplan::parse_model_json(j.dump(), "unknown.json");
  ASSERT_EQ(m.layers.size(), 2u);
  EXPECT_EQ(m.layers[0], (kvplan::LayerSpec{kvplan::AttentionKind::sliding, 512}));
  EXPECT_EQ(m.layers[1], kvplan::LayerSpec{});
}

TEST(HfFamilies, PrefixRowsReadModelTypesNoRowNames) {
  // qwen3*: q_norm and k_norm of head_dim 4 each: 680 + 8.
  EXPECT_EQ(params_of("qwen3_kvplan_test"), 688u);
  // gemma3*: q/k norms (+8) and four norms per layer instead of two (+16): 680 + 24.
  EXPECT_EQ(params_of("gemma3_kvplan_test"), 704u);
  // llama4*: lm_head untied by default: 680 + 10 · 8.
  EXPECT_EQ(params_of("llama4_kvplan_test"), 760u);
  // gpt_oss, an exact row: q, k, v, o biases 8 + 4 + 4 + 8 and one sink per query head (2).
  EXPECT_EQ(params_of("gpt_oss"), 680u + 24u + 2u);
}

// A model_type kvplan has no mixer for is refused where the config asks for one, naming the
// file, the field and the model_type.
TEST(HfFamilies, UnknownModelTypeWithRecurrentLayersIsRefusedNamingIt) {
  auto j = nlohmann::json::parse(tiny_config("kvplan_unknown"));
  j["num_hidden_layers"] = 2;
  j["layer_types"] = {"full_attention", "linear_attention"};
  try {
    kvplan::parse_model_json(j.dump(), "/models/unknown/config.json");
    FAIL() << "no error";
  } catch (const kvplan::Error& e) {
    EXPECT_EQ(e.source(), "/models/unknown/config.json");
    EXPECT_EQ(e.field(), "/layer_types/1");
    EXPECT_EQ(e.exit_code(), 2);
    EXPECT_NE(std::string(e.what()).find("model_type \"kvplan_unknown\""), std::string::npos)
        << e.what();
  }
}

}  // namespace
