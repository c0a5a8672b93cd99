// Layers with their own attention geometry and recurrent states stated by their shapes, read from
// kvplan model JSON (model.hpp: "layer_overrides", "recurrent": {"kind": "shapes"}); every
// expected number is derived in the comment above it.
#include <gtest/gtest.h>

#include <string>

#include "kvplan/error.hpp"
#include "kvplan/formula.hpp"
#include "kvplan/model.hpp"
#include "kvplan/planner.hpp"

namespace kvplan {
namespace {

// 3 layers of 4 KV heads × 64 (fp16 K+V: 4 · 128 · 2 = 1024 B a token), `extra` spliced in.
std::string model_json(const std::string& extra) {
  return R"({"kvplan_model": 1, "id": "geo", "source": "test", "num_layers": 3,
    "num_attention_heads": 8, "num_kv_heads": 4, "head_dim": 64, "max_context": 4096,
    "num_params": 1000, "weight_dtype": "bf16")" +
         extra + "}";
}

// Layer 2 a draft of 8 heads × 128 (8 · 256 · 2 = 4096 B a token): 2 · 1024 + 4096 = 6144 B.
TEST(LayerGeometry, OverridesFromModelJson) {
  const ModelSpec m = parse_model_json(
      model_json(R"(, "layer_overrides": [{"layer": 2, "num_kv_heads": 8, "head_dim": 128}])"),
      "geo.json");
  EXPECT_EQ(m.layers[2].kv_heads, 8u);
  EXPECT_EQ(m.layers[2].head_dim_k, 128u);
  EXPECT_EQ(m.layers[2].head_dim_v, 128u);  // defaults to the entry's head_dim
  EXPECT_EQ(m.layers[0].kv_heads, 0u);      // the model's
  EXPECT_EQ(kv_cost(m, KvCostInput{.context = 1}).bytes_per_token, 6144u);
  // v_head_dim alone keeps the model's head_dim for K: 4 · (64 + 32) · 2 = 768 B.
  const ModelSpec v = parse_model_json(
      model_json(R"(, "layer_overrides": [{"layer": 0, "v_head_dim": 32}])"), "geo.json");
  EXPECT_EQ(v.layers[0].head_dim_k, 64u);
  EXPECT_EQ(kv_cost(v, KvCostInput{.context = 1}).bytes_per_token, 768u + 2 * 1024);
}

TEST(LayerGeometry, BadOverridesNameTheField) {
  auto field_of = [](const std::string& extra) {
    try {
      parse_model_json(model_json(extra), "geo.json");
    } catch (const Error& e) {
      EXPECT_EQ(e.source(), "geo.json");
      return e.field();
    }
    ADD_FAILURE() << "accepted: " << extra;
    return std::string();
  };
  EXPECT_EQ(field_of(R"(, "layer_overrides": [{"layer": 3, "num_kv_heads": 8}])"),
            "/layer_overrides/0/layer");  // 3 layers: 0..2
  EXPECT_EQ(field_of(R"(, "layer_overrides": [{"layer": 0}])"), "/layer_overrides/0");
  EXPECT_EQ(field_of(R"(, "layer_overrides": [{"layer": 0, "heads": 8}])"),
            "/layer_overrides/0/heads");  // unknown key
  EXPECT_EQ(field_of(R"(, "layer_overrides": [{"layer": 1, "num_kv_heads": 2},
                                              {"layer": 1, "head_dim": 32}])"),
            "/layer_overrides/1/layer");  // listed twice
  EXPECT_EQ(field_of(R"(, "layer_overrides": {"layer": 1})"), "/layer_overrides");
  EXPECT_EQ(field_of(R"(, "attention": {"type": "layers", "layers": ["full", "none", "full"]},
                        "layer_overrides": [{"layer": 1, "num_kv_heads": 2}])"),
            "/layer_overrides/0/layer");  // a layer without attention, named as written
  EXPECT_EQ(field_of(R"(, "mla": {"kv_lora_rank": 512, "qk_rope_head_dim": 64},
                        "layer_overrides": [{"layer": 0, "num_kv_heads": 2}])"),
            "/layer_overrides/0");  // MLA: one latent width in every layer
}

// new_mamba_spec() of vLLM's tests/v1/core/test_kv_cache_utils.py @ 002f10e0: shapes ((2, 512),
// (3, 32, 32)) float32 = (1024 + 3072) · 4 = 16384 bytes a sequence and layer, TP unsharded.
TEST(LayerGeometry, RecurrentStateByItsShapes) {
  const ModelSpec m = parse_model_json(
      model_json(R"(, "attention": {"type": "layers", "layers": ["full", "recurrent", "full"]},
        "recurrent": {"kind": "shapes", "conv_elements": 1024, "ssm_elements": 3072,
                      "conv_dtype": "fp32", "ssm_dtype": "fp32"})"),
      "geo.json");
  EXPECT_EQ(m.recurrent.kind, MixerKind::shapes);
  EXPECT_EQ(recurrent_state(m.recurrent).bytes(), 16384u);
  EXPECT_EQ(recurrent_state(m.recurrent, 4).bytes(), 16384u);
  const auto c = kv_cost(m, KvCostInput{.context = 10, .tp = 2});
  EXPECT_EQ(c.state_bytes_per_request, 16384u);
  EXPECT_THROW(parse_model_json(model_json(R"(, "attention": {"type": "layers", "layers":
    ["full", "recurrent", "full"]}, "recurrent": {"kind": "shapes", "conv_dtype": "fp32",
    "ssm_dtype": "fp32"})"),
                                "geo.json"),
               Error);
}

}  // namespace
}  // namespace kvplan
