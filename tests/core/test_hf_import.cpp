// Hugging Face config.json import through the public API: real published configs from
// tests/data/hf and malformed variants written to a temporary directory.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "kvplan/error.hpp"
#include "kvplan/model.hpp"

namespace {

using kvplan::AttentionKind;
using kvplan::ModelSpec;
namespace fs = std::filesystem;

std::string hf_path(const std::string& name) {
  return std::string(KVPLAN_TEST_DATA_DIR) + "/hf/" + name + ".json";
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

void expect_params_near(const ModelSpec& m, double published, double tolerance) {
  EXPECT_TRUE(m.num_params_estimated) << m.id;
  const double rel = (static_cast<double>(m.num_params) - published) / published;
  EXPECT_LT(std::abs(rel), tolerance)
      << m.id << ": estimated " << m.num_params << ", published " << published;
}

std::size_t count_kind(const ModelSpec& m, AttentionKind kind) {
  std::size_t n = 0;
  for (const auto& l : m.layers) n += l.kind == kind;
  return n;
}

TEST(HfImport, Llama31_8B) {
  const auto path = hf_path("llama-3.1-8b");
  const auto m = kvplan::load_model(path);
  EXPECT_EQ(m.id, "llama-3.1-8b");
  EXPECT_EQ(m.name, "LlamaForCausalLM");
  EXPECT_EQ(m.source, path);
  ASSERT_EQ(m.layers.size(), 32u);
  EXPECT_EQ(count_kind(m, AttentionKind::full), 32u);
  EXPECT_EQ(m.num_q_heads, 32u);
  EXPECT_EQ(m.num_kv_heads, 8u);
  EXPECT_EQ(m.head_dim_k, 128u);
  EXPECT_EQ(m.head_dim_v, 128u);
  EXPECT_EQ(m.hidden_size, 4096u);
  EXPECT_EQ(m.max_context, 131072u);
  EXPECT_EQ(m.weight_dtype, "bf16");
  EXPECT_FALSE(m.is_mla());
  EXPECT_EQ(m.mtp_layers, 0u);
  // The architecture determines every weight, so the estimate matches the checkpoint exactly.
  expect_params_near(m, 8030261248.0, 0.01);
  EXPECT_EQ(m.num_params, 8030261248u);
}

TEST(HfImport, Llama2_7B_FullMultiHead) {
  const auto m = kvplan::load_model(hf_path("llama-2-7b"));
  EXPECT_EQ(m.layers.size(), 32u);
  EXPECT_EQ(m.num_q_heads, 32u);
  EXPECT_EQ(m.num_kv_heads, 32u);
  EXPECT_EQ(m.head_dim_k, 128u);
  EXPECT_EQ(m.max_context, 4096u);
  EXPECT_EQ(m.weight_dtype, "fp16");
  expect_params_near(m, 6738415616.0, 0.01);
}

TEST(HfImport, Mistral7B_SlidingOnEveryLayer) {
  const auto m = kvplan::load_model(hf_path("mistral-7b-v0.1"));
  EXPECT_EQ(m.name, "MistralForCausalLM");
  ASSERT_EQ(m.layers.size(), 32u);
  for (const auto& l : m.layers) EXPECT_EQ(l, (kvplan::LayerSpec{AttentionKind::sliding, 4096}));
  EXPECT_EQ(m.num_q_heads, 32u);
  EXPECT_EQ(m.num_kv_heads, 8u);
  EXPECT_EQ(m.head_dim_k, 128u);
  EXPECT_EQ(m.max_context, 32768u);
  expect_params_near(m, 7241732096.0, 0.01);
}

TEST(HfImport, Mixtral8x7B_NullWindowIsFull) {
  const auto m = kvplan::load_model(hf_path("mixtral-8x7b"));
  ASSERT_EQ(m.layers.size(), 32u);
  EXPECT_EQ(count_kind(m, AttentionKind::full), 32u);
  EXPECT_EQ(m.num_kv_heads, 8u);
  EXPECT_EQ(m.head_dim_k, 128u);
  // Total, not active, parameters: all eight experts are resident.
  expect_params_near(m, 46702792704.0, 0.01);
}

TEST(HfImport, Qwen25_7B_DisabledWindowIsFull) {
  const auto m = kvplan::load_model(hf_path("qwen2.5-7b"));
  EXPECT_EQ(m.name, "Qwen2ForCausalLM");
  ASSERT_EQ(m.layers.size(), 28u);
  EXPECT_EQ(count_kind(m, AttentionKind::full), 28u);
  EXPECT_EQ(m.num_q_heads, 28u);
  EXPECT_EQ(m.num_kv_heads, 4u);
  EXPECT_EQ(m.head_dim_k, 128u);
  EXPECT_EQ(m.max_context, 131072u);
  expect_params_near(m, 7.61e9, 0.01);  // model card: 7.61B
}

TEST(HfImport, Gemma2_9B_EvenLayersSlide) {
  const auto m = kvplan::load_model(hf_path("gemma-2-9b"));
  EXPECT_EQ(m.name, "Gemma2ForCausalLM");
  ASSERT_EQ(m.layers.size(), 42u);
  for (std::size_t i = 0; i < m.layers.size(); ++i) {
    const kvplan::LayerSpec want =
        i % 2 == 0 ? kvplan::LayerSpec{AttentionKind::sliding, 4096} : kvplan::LayerSpec{};
    EXPECT_EQ(m.layers[i], want) << "layer " << i;
  }
  EXPECT_EQ(m.num_q_heads, 16u);
  EXPECT_EQ(m.num_kv_heads, 8u);
  EXPECT_EQ(m.head_dim_k, 256u);  // explicit head_dim, not 3584 / 16
  EXPECT_EQ(m.max_context, 8192u);
  EXPECT_EQ(m.weight_dtype, "fp32");  // the published checkpoint is float32
  expect_params_near(m, 9241705984.0, 0.01);
}

TEST(HfImport, Phi3Mini_RecordsConfigWindow) {
  const auto m = kvplan::load_model(hf_path("phi-3-mini-4k-instruct"));
  ASSERT_EQ(m.layers.size(), 32u);
  for (const auto& l : m.layers) EXPECT_EQ(l, (kvplan::LayerSpec{AttentionKind::sliding, 2047}));
  EXPECT_EQ(m.num_q_heads, 32u);
  EXPECT_EQ(m.num_kv_heads, 32u);
  EXPECT_EQ(m.head_dim_k, 96u);
  EXPECT_EQ(m.max_context, 4096u);
  expect_params_near(m, 3.8e9, 0.02);  // model card: 3.8B
}

TEST(HfImport, DeepSeekV2Lite_MlaLatent) {
  const auto m = kvplan::load_model(hf_path("deepseek-v2-lite"));
  EXPECT_EQ(m.name, "DeepseekV2ForCausalLM");
  ASSERT_EQ(m.layers.size(), 27u);
  EXPECT_EQ(count_kind(m, AttentionKind::mla), 27u);
  EXPECT_TRUE(m.is_mla());
  EXPECT_EQ(m.num_q_heads, 16u);
  EXPECT_EQ(m.num_kv_heads, 1u);
  EXPECT_EQ(m.kv_lora_rank, 512u);
  EXPECT_EQ(m.qk_rope_head_dim, 64u);
  EXPECT_EQ(m.latent_width(), 576u);
  EXPECT_EQ(m.head_dim_k, 576u);
  EXPECT_EQ(m.head_dim_v, 0u);
  EXPECT_EQ(m.mtp_layers, 0u);
  EXPECT_EQ(m.max_context, 163840u);
  EXPECT_EQ(m.weight_dtype, "bf16");
  expect_params_near(m, 15.7e9, 0.01);  // model card: 15.7B total
}

TEST(HfImport, DeepSeekV3_MlaLatentAndDraftLayer) {
  const auto m = kvplan::load_model(hf_path("deepseek-v3"));
  ASSERT_EQ(m.layers.size(), 61u);
  EXPECT_EQ(count_kind(m, AttentionKind::mla), 61u);
  EXPECT_EQ(m.num_q_heads, 128u);
  EXPECT_EQ(m.num_kv_heads, 1u);
  EXPECT_EQ(m.head_dim_k, 576u);
  EXPECT_EQ(m.head_dim_v, 0u);
  EXPECT_EQ(m.mtp_layers, 1u);
  EXPECT_EQ(m.hidden_size, 7168u);
  EXPECT_EQ(m.weight_dtype, "fp8");    // quantization_config.quant_method, not torch_dtype
  expect_params_near(m, 671e9, 0.01);  // model card: 671B, MTP module excluded
}

// Writes variants of a real config into a per-test temporary directory.
class HfMalformed : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           (std::string("kvplan_hf_") + info->name() + "_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    base_ = read_json(hf_path("llama-3.1-8b"));
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string write(const std::string& name, const std::string& text) {
    const auto path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  std::string write(const std::string& name, const nlohmann::json& j) {
    return write(name, j.dump(2));
  }
  // The error the import raises; fails the test when none is raised.
  static kvplan::Error error_of(const std::string& path) {
    try {
      kvplan::load_model(path);
    } catch (const kvplan::Error& e) {
      return e;
    }
    ADD_FAILURE() << "no error for " << path;
    return kvplan::Error(path, "", "none");
  }

  fs::path dir_;
  nlohmann::json base_;
};

TEST_F(HfMalformed, MissingLayerCountNamesFileAndField) {
  base_.erase("num_hidden_layers");
  const auto path = write("no_layers.json", base_);
  const auto e = error_of(path);
  const std::string what = e.what();
  EXPECT_NE(what.find(path), std::string::npos) << what;
  EXPECT_NE(what.find("/num_hidden_layers"), std::string::npos) << what;
  EXPECT_EQ(e.field(), "/num_hidden_layers");
  EXPECT_EQ(e.source(), path);
  EXPECT_EQ(e.exit_code(), 2);
}

TEST_F(HfMalformed, MissingHiddenSize) {
  base_.erase("hidden_size");
  EXPECT_EQ(error_of(write("no_hidden.json", base_)).field(), "/hidden_size");
}

TEST_F(HfMalformed, HeadsAsStringNamesFieldAndValue) {
  base_["num_attention_heads"] = "32";
  const auto e = error_of(write("heads_string.json", base_));
  EXPECT_EQ(e.field(), "/num_attention_heads");
  EXPECT_NE(std::string(e.what()).find("\"32\""), std::string::npos) << e.what();
}

TEST_F(HfMalformed, HiddenSizeNotDivisibleByHeads) {
  base_["hidden_size"] = 4100;  // 4100 / 32 heads is not whole
  const auto e = error_of(write("indivisible.json", base_));
  EXPECT_EQ(e.field(), "/hidden_size");
  EXPECT_NE(std::string(e.what()).find("4100"), std::string::npos) << e.what();
}

TEST_F(HfMalformed, ExplicitHeadDimNeedsNoDivisibility) {
  base_["hidden_size"] = 4100;
  base_["head_dim"] = 128;
  const auto m = kvplan::load_model(write("explicit_head_dim.json", base_));
  EXPECT_EQ(m.head_dim_k, 128u);
}

TEST_F(HfMalformed, NegativeAndZeroCounts) {
  auto neg_kv = base_;
  neg_kv["num_key_value_heads"] = -8;
  const auto e1 = error_of(write("neg_kv.json", neg_kv));
  EXPECT_EQ(e1.field(), "/num_key_value_heads");
  EXPECT_NE(std::string(e1.what()).find("-8"), std::string::npos) << e1.what();

  auto neg_layers = base_;
  neg_layers["num_hidden_layers"] = -1;
  EXPECT_EQ(error_of(write("neg_layers.json", neg_layers)).field(), "/num_hidden_layers");

  auto zero_heads = base_;
  zero_heads["num_attention_heads"] = 0;
  EXPECT_EQ(error_of(write("zero_heads.json", zero_heads)).field(), "/num_attention_heads");

  auto neg_window = read_json(hf_path("mistral-7b-v0.1"));
  neg_window["sliding_window"] = -4096;
  EXPECT_EQ(error_of(write("neg_window.json", neg_window)).field(), "/sliding_window");
}

TEST_F(HfMalformed, KvHeadsMustDivideQueryHeads) {
  base_["num_key_value_heads"] = 5;
  EXPECT_EQ(error_of(write("kv5.json", base_)).field(), "/num_key_value_heads");
}

TEST_F(HfMalformed, MissingKvHeadsDefaultsToQueryHeads) {
  base_.erase("num_key_value_heads");
  const auto m = kvplan::load_model(write("no_kv.json", base_));
  EXPECT_EQ(m.num_kv_heads, 32u);
}

TEST_F(HfMalformed, InvalidJson) {
  const auto path = write("truncated.json", std::string(R"({"model_type": "llama", "num_hid)"));
  const auto e = error_of(path);
  const std::string what = e.what();
  EXPECT_NE(what.find(path), std::string::npos) << what;
  EXPECT_NE(what.find("invalid JSON"), std::string::npos) << what;
}

TEST_F(HfMalformed, UnknownTorchDtype) {
  base_["torch_dtype"] = "float7";
  EXPECT_EQ(error_of(write("dtype.json", base_)).field(), "/torch_dtype");
}

TEST_F(HfMalformed, QwenWindowAppliesFromMaxWindowLayers) {
  auto j = read_json(hf_path("qwen2.5-7b"));
  j["use_sliding_window"] = true;
  j["sliding_window"] = 32768;
  j["max_window_layers"] = 20;
  const auto m = kvplan::load_model(write("qwen_swa.json", j));
  ASSERT_EQ(m.layers.size(), 28u);
  for (std::size_t i = 0; i < m.layers.size(); ++i) {
    const kvplan::LayerSpec want =
        i >= 20 ? kvplan::LayerSpec{AttentionKind::sliding, 32768} : kvplan::LayerSpec{};
    EXPECT_EQ(m.layers[i], want) << "layer " << i;
  }
}

TEST_F(HfMalformed, LayerTypesArray) {
  auto j = base_;
  j["num_hidden_layers"] = 4;
  j["sliding_window"] = 1024;
  j["layer_types"] = {"sliding_attention", "sliding_attention", "sliding_attention",
                      "full_attention"};
  const auto m = kvplan::load_model(write("layer_types.json", j));
  ASSERT_EQ(m.layers.size(), 4u);
  EXPECT_EQ(m.layers[0], (kvplan::LayerSpec{AttentionKind::sliding, 1024}));
  EXPECT_EQ(m.layers[2], (kvplan::LayerSpec{AttentionKind::sliding, 1024}));
  EXPECT_EQ(m.layers[3], kvplan::LayerSpec{});

  j["layer_types"] = {"full_attention", "full_attention"};
  EXPECT_EQ(error_of(write("layer_types_short.json", j)).field(), "/layer_types");
  j["layer_types"] = {"full_attention", "full_attention", "linear_attention", "full_attention"};
  EXPECT_EQ(error_of(write("layer_types_bad.json", j)).field(), "/layer_types/2");
}

TEST_F(HfMalformed, IdIsFileStemNameFallsBackToModelType) {
  base_.erase("architectures");
  const auto m = kvplan::load_model(write("my-finetune.json", base_));
  EXPECT_EQ(m.id, "my-finetune");
  EXPECT_EQ(m.name, "llama");
}

}  // namespace
