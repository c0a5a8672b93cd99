// The longest request vLLM accepts, derived from config.json as _get_and_verify_max_len does
// (vllm/config/model.py @ 18ec6629), and engine overrides (--hf-overrides, --rope-scaling)
// applied before it. Cases from vLLM's tests/test_config.py (test_rope_customization,
// test_get_and_verify_max_len) and tests of _get_and_verify_max_len's null factor, plus hand
// arithmetic.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "kvplan/engine_args.hpp"
#include "kvplan/error.hpp"
#include "kvplan/model.hpp"

namespace kvplan {
namespace {

// A small Llama config with the given length and RoPE fields.
ModelSpec llama(nlohmann::json extra) {
  nlohmann::json j = {{"model_type", "llama"},    {"architectures", {"LlamaForCausalLM"}},
                      {"num_hidden_layers", 2},   {"hidden_size", 256},
                      {"num_attention_heads", 4}, {"num_key_value_heads", 2},
                      {"intermediate_size", 512}, {"vocab_size", 1000}};
  for (auto it = extra.begin(); it != extra.end(); ++it) j[it.key()] = it.value();
  return parse_model_json(j.dump(), "config.json");
}

TEST(Positions, Llama3WithoutScalingKeepsItsPositions) {
  // test_rope_customization: Meta-Llama-3-8B-Instruct (max_position_embeddings 8192) -> 8192.
  auto m = llama({{"max_position_embeddings", 8192}, {"rope_scaling", nullptr}});
  EXPECT_EQ(m.max_context, 8192u);
  EXPECT_EQ(m.positions_basis, "max_position_embeddings 8192");
  // hf_overrides {"rope_scaling": {"rope_type": "dynamic", "factor": 2.0}, "rope_theta": 16e6}
  // -> 16384; rope_theta does not set positions.
  const auto ignored = apply_hf_overrides(
      m, R"({"rope_scaling": {"rope_type": "dynamic", "factor": 2.0}, "rope_theta": 16000000.0})",
      "cmd", "--hf-overrides");
  EXPECT_EQ(m.max_context, 16384u);
  EXPECT_EQ(ignored, std::vector<std::string>{"rope_theta"});
}

TEST(Positions, LongchatLinearScalingAndItsOverride) {
  // test_rope_customization: lmsys/longchat-13b-16k (max_position_embeddings 2048, rope_scaling
  // linear factor 8) -> 16384; overridden with dynamic factor 2 -> 4096.
  auto m = llama(
      {{"max_position_embeddings", 2048}, {"rope_scaling", {{"type", "linear"}, {"factor", 8.0}}}});
  EXPECT_EQ(m.max_context, 16384u);
  apply_hf_overrides(m, R"({"rope_scaling": {"rope_type": "dynamic", "factor": 2.0}})", "cmd",
                     "--hf-overrides");
  EXPECT_EQ(m.max_context, 4096u);
}

TEST(Positions, NullFactorAndDefaultTypeScaleNothing) {
  // tests of _get_and_verify_max_len: rope_parameters {default, factor null} -> 4096;
  // {linear, factor 2.0} -> 8192.
  EXPECT_EQ(llama({{"max_position_embeddings", 4096},
                   {"rope_parameters", {{"rope_type", "default"}, {"factor", nullptr}}}})
                .max_context,
            4096u);
  EXPECT_EQ(llama({{"max_position_embeddings", 4096},
                   {"rope_parameters", {{"rope_type", "linear"}, {"factor", 2.0}}}})
                .max_context,
            8192u);
  // mrope is read as default (patch_legacy_rope_type): Qwen2-VL's section, no factor.
  EXPECT_EQ(llama({{"max_position_embeddings", 32768},
                   {"rope_scaling", {{"type", "mrope"}, {"mrope_section", {16, 24, 24}}}}})
                .max_context,
            32768u);
}

TEST(Positions, YarnScalesTheOriginalLength) {
  // Qwen3-32B served with YaRN (Qwen's model card): 32768 × 4 = 131072, not 40960 × 4.
  const auto yarn = nlohmann::json{
      {"rope_type", "yarn"}, {"factor", 4.0}, {"original_max_position_embeddings", 32768}};
  auto m = llama({{"max_position_embeddings", 40960}, {"rope_scaling", yarn}});
  EXPECT_EQ(m.max_context, 131072u);
  EXPECT_EQ(m.positions_basis,
            "rope_scaling yarn: original_max_position_embeddings 32768 × factor 4");
  // A top-level original_max_position_embeddings wins (transformers 5 standardize_rope_params):
  // 8192 × 4 = 32768.
  EXPECT_EQ(llama({{"max_position_embeddings", 40960},
                   {"original_max_position_embeddings", 8192},
                   {"rope_scaling", yarn}})
                .max_context,
            32768u);
  // Without either, YaRN scales max_position_embeddings: 4096 × 2 = 8192.
  EXPECT_EQ(llama({{"max_position_embeddings", 4096},
                   {"rope_scaling", {{"rope_type", "yarn"}, {"factor", 2}}}})
                .max_context,
            8192u);
}

TEST(Positions, Llama3AndLongropeAreNotScaled) {
  // llama3 and longrope (su) already state the scaled length in max_position_embeddings.
  EXPECT_EQ(llama({{"max_position_embeddings", 131072},
                   {"rope_scaling",
                    {{"rope_type", "llama3"},
                     {"factor", 8.0},
                     {"original_max_position_embeddings", 8192}}}})
                .max_context,
            131072u);
  EXPECT_EQ(
      llama({{"max_position_embeddings", 131072},
             {"original_max_position_embeddings", 4096},
             {"rope_scaling", {{"type", "su"}, {"short_factor", {1.0}}, {"long_factor", {1.0}}}}})
          .max_context,
      131072u);
}

TEST(Positions, PerLayerTypeRopeParameters) {
  // transformers 5 nests rope_parameters by layer type; the factor of the last scaled type
  // applies: 32768 × 2 = 65536.
  auto m = llama(
      {{"max_position_embeddings", 131072},
       {"rope_parameters",
        {{"full_attention",
          {{"rope_type", "yarn"}, {"factor", 2.0}, {"original_max_position_embeddings", 32768}}},
         {"sliding_attention", {{"rope_type", "default"}}}}}});
  EXPECT_EQ(m.max_context, 65536u);
}

TEST(Positions, TheSmallestLengthKeyAndModelMaxLength) {
  // The smallest of the length keys; model_max_length wins when set (Command-R).
  EXPECT_EQ(llama({{"max_position_embeddings", 8192}, {"seq_length", 4096}}).max_context, 4096u);
  EXPECT_EQ(llama({{"max_position_embeddings", 8192}, {"model_max_length", 131072}}).max_context,
            131072u);
}

TEST(Positions, Gemma3IsAlreadyScaled) {
  // Gemma 3's max_position_embeddings (131072) already includes its linear factor 8.
  EXPECT_EQ(load_model("gemma-3-27b").max_context, 131072u);
}

TEST(Positions, PresetsGetTheOverrideToo) {
  // The Qwen3-32B preset states 40960 positions; --rope-scaling YaRN 4 over 32768 gives 131072.
  auto m = load_model("qwen3-32b");
  EXPECT_EQ(m.max_context, 40960u);
  apply_hf_overrides(
      m,
      R"({"rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}})",
      "cmd", "--rope-scaling");
  EXPECT_EQ(m.max_context, 131072u);
  EXPECT_NE(m.positions_basis.find("(--rope-scaling)"), std::string::npos) << m.positions_basis;
  // max_position_embeddings itself can be overridden.
  apply_hf_overrides(m, R"({"max_position_embeddings": 65536, "rope_scaling": null})", "cmd",
                     "--hf-overrides");
  EXPECT_EQ(m.max_context, 65536u);
}

TEST(Positions, BadValuesNameTheField) {
  try {
    llama({{"max_position_embeddings", 4096},
           {"rope_scaling", {{"type", "linear"}, {"factor", "x"}}}});
    FAIL() << "a string factor was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.source(), "config.json");
    EXPECT_EQ(e.field(), "/rope_scaling/factor");
  }
  auto m = load_model("qwen3-32b");
  try {
    apply_hf_overrides(m, "{not json", "cmd", "--hf-overrides");
    FAIL() << "bad JSON was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "--hf-overrides");
  }
  try {
    apply_hf_overrides(m, R"({"rope_scaling": {"rope_type": "linear", "factor": -2}})", "cmd",
                       "--rope-scaling");
    FAIL() << "a negative factor was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "--rope-scaling /rope_scaling/factor");
  }
}

TEST(Positions, EngineCommandLinesCarryTheOverrides) {
  // --rope-scaling lands in the overrides as rope_scaling, after --hf-overrides (it wins).
  const auto a = parse_engine_command(
      Engine::vllm,
      R"(vllm serve Qwen/Qwen3-32B --rope-scaling '{"rope_type":"linear","factor":2}' )"
      R"(--hf-overrides '{"rope_scaling":{"rope_type":"linear","factor":8},"max_position_embeddings":1024}')",
      "cmd");
  ASSERT_TRUE(a.hf_overrides);
  EXPECT_EQ(a.hf_overrides_flag, "--hf-overrides and --rope-scaling");
  const auto j = nlohmann::json::parse(*a.hf_overrides);
  EXPECT_EQ(j["rope_scaling"]["factor"], 2);
  EXPECT_EQ(j["max_position_embeddings"], 1024);
  for (const char* bad : {"'{oops'", "'[1, 2]'"}) {
    try {
      parse_engine_command(Engine::vllm, std::string("vllm serve m --rope-scaling ") + bad, "cmd");
      FAIL() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.field(), "--rope-scaling");
    }
  }
}

}  // namespace
}  // namespace kvplan
