// The pool-layout answers of each engine's rule set (core/src/engines/), each against the
// engine's own source: the planner asks these instead of comparing engines.
#include <gtest/gtest.h>

#include "kvplan/engine_rules.hpp"
#include "kvplan/model.hpp"

namespace kvplan {
namespace {

const EngineRules& vllm() { return engine_rules(Engine::vllm); }
const EngineRules& vllm09() { return engine_rules(Engine::vllm, VllmRules::v0_9); }
const EngineRules& sglang() { return engine_rules(Engine::sglang); }
const EngineRules& trtllm() { return engine_rules(Engine::trtllm); }

// _get_kv_cache_groups_uniform_page_size (vllm/v1/core/kv_cache_utils.py @ 002f10e0): the most
// layers of any type when 2 · most < 3 · fewest, else the fewest; 0.9 always the fewest.
// Gemma 3 (5 sliding : 1 full, 52 : 10) groups by 10; gpt-oss (12 : 12) by 12; 10 : 14 by 14.
TEST(EngineRules, GroupSizeFollowsEachVersion) {
  EXPECT_EQ(vllm().kv_group_size(10, 52), 10u);
  EXPECT_EQ(vllm().kv_group_size(12, 12), 12u);
  EXPECT_EQ(vllm().kv_group_size(10, 14), 14u);  // 28 < 30
  EXPECT_EQ(vllm().kv_group_size(10, 15), 10u);  // 30 is not < 30
  EXPECT_EQ(vllm09().kv_group_size(10, 14), 10u);
  EXPECT_EQ(sglang().kv_group_size(10, 14), 10u);
}

// vLLM's BlockPool keeps a null block (block_pool.py); the others do not. vLLM sizes each
// pipeline stage by its own memory (get_kv_cache_configs); the others by the least.
TEST(EngineRules, PoolFactsPerEngine) {
  EXPECT_TRUE(vllm().keeps_null_block());
  EXPECT_TRUE(vllm09().keeps_null_block());
  EXPECT_FALSE(sglang().keeps_null_block());
  EXPECT_FALSE(trtllm().keeps_null_block());
  EXPECT_TRUE(vllm().sizes_stages_by_own_memory());
  EXPECT_FALSE(trtllm().sizes_stages_by_own_memory());
  // update_kv_cache_capacity (current) vs blocks x block size (0.9).
  EXPECT_TRUE(vllm().kv_tokens_from_concurrency());
  EXPECT_FALSE(vllm09().kv_tokens_from_concurrency());
  EXPECT_TRUE(vllm09().startup_check_by_bytes());
  EXPECT_FALSE(vllm().startup_check_by_bytes());
  // server_args.py mamba_ssm_dtype = "float32"; vLLM and TensorRT-LLM follow the model.
  EXPECT_EQ(sglang().default_ssm_state_dtype(), KvDtype::fp32);
  EXPECT_FALSE(vllm().default_ssm_state_dtype().has_value());
  EXPECT_TRUE(trtllm().pools_per_attention_window());
  EXPECT_FALSE(vllm().pools_per_attention_window());
}

// Layouts kvplan does not plan under a rule set say so, naming the field; the current vLLM
// plans both.
TEST(EngineRules, UnmodelledLayoutsNameTheirField) {
  EXPECT_FALSE(vllm().dcp_refusal().has_value());
  EXPECT_FALSE(vllm().own_layer_geometry_refusal().has_value());
  ASSERT_TRUE(vllm09().dcp_refusal().has_value());
  EXPECT_EQ(vllm09().dcp_refusal()->field, "decode_context_parallel_size");
  ASSERT_TRUE(vllm09().own_layer_geometry_refusal().has_value());
  EXPECT_EQ(vllm09().own_layer_geometry_refusal()->field, "engine");
  ASSERT_TRUE(sglang().own_layer_geometry_refusal().has_value());
  EXPECT_NE(sglang().own_layer_geometry_refusal()->message.find("sglang"), std::string::npos);
  EXPECT_TRUE(trtllm().dcp_refusal().has_value());
}

// With the hybrid manager disabled, vLLM turns sliding layers beside a full-attention layer into
// full attention (unify_hybrid_kv_cache_specs); with it on, they keep their own groups.
TEST(EngineRules, VllmLocalLayersKeepGroupsUnlessUnified) {
  const ModelSpec gemma = load_model("gemma-3-27b");
  PlanInput in;
  EXPECT_TRUE(vllm().local_layers_own_groups(gemma, in));
  EXPECT_FALSE(sglang().local_layers_own_groups(gemma, in));
  in.vllm.disable_hybrid_kv_cache_manager = true;
  EXPECT_FALSE(vllm().local_layers_own_groups(gemma, in));
  EXPECT_NO_THROW(vllm().check_pool_layout(gemma, in, "test"));
}

}  // namespace
}  // namespace kvplan
