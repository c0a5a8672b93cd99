// The pool-layout answers of each engine's rule set (core/src/engines/), each against the
// engine's own source: the planner asks these instead of comparing engines.
#include <gtest/gtest.h>

#include "error_message.hpp"
#include "kvplan/engine_rules.hpp"
#include "kvplan/error.hpp"
#include "kvplan/model.hpp"
#include "kvplan/planner.hpp"

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
  EXPECT_EQ(vllm().kv_group_size(PlanInput{}, 10, 52), 10u);
  EXPECT_EQ(vllm().kv_group_size(PlanInput{}, 12, 12), 12u);
  EXPECT_EQ(vllm().kv_group_size(PlanInput{}, 10, 14), 14u);  // 28 < 30
  EXPECT_EQ(vllm().kv_group_size(PlanInput{}, 10, 15), 10u);  // 30 is not < 30
  EXPECT_EQ(vllm09().kv_group_size(PlanInput{}, 10, 14), 10u);
  EXPECT_EQ(sglang().kv_group_size(PlanInput{}, 10, 14), 10u);
}

// gpu_memory_utilization's default by release: vllm/config/cache.py CacheConfig's 0.9 until
// vllm-project/vllm#38284 (merge 96a85c57, 2026-04-21, in 0.20.0) made it 0.92. The 0.19.1 log with
// every default (tests/data/logs/startup/vllm-v1-0.19.1-qwen3-8b-tp1-a100-40g.log) says "from
// 0.9000"; the 0.20.0 log lists 'gpu_memory_utilization': 0.9 among its non-default args. A log
// takes its release's default; one without a version the current rules'.
TEST(EngineRules, TheMemoryFractionDefaultsAsEachReleaseDid) {
  EXPECT_EQ(vllm().default_memory_fraction_ppm(), 920000u);
  EXPECT_EQ(engine_rules(Engine::vllm, VllmRules::v0_25).default_memory_fraction_ppm(), 920000u);
  EXPECT_EQ(engine_rules(Engine::vllm, VllmRules::v0_19).default_memory_fraction_ppm(), 900000u);
  EXPECT_EQ(engine_rules(Engine::vllm, VllmRules::v0_10).default_memory_fraction_ppm(), 900000u);
  EXPECT_EQ(vllm09().default_memory_fraction_ppm(), 900000u);
  EXPECT_EQ(vllm().log_memory_fraction_ppm("0.15.1"), 900000u);
  EXPECT_EQ(vllm().log_memory_fraction_ppm("0.19.1"), 900000u);
  EXPECT_EQ(vllm().log_memory_fraction_ppm("0.20.0"), 920000u);
  EXPECT_EQ(vllm().log_memory_fraction_ppm("0.26.0"), 920000u);
  EXPECT_EQ(vllm().log_memory_fraction_ppm(""), 920000u);
  EXPECT_EQ(trtllm().log_memory_fraction_ppm("1.2.0"), 900000u);  // free_gpu_memory_fraction
  // A plan without a fraction requests what the release would: floor(85,013,508,915 · 0.92) =
  // 78,212,428,201 B of an H100 under the current rules, floor(· 0.9) = 76,512,158,023 under 0.19.
  const auto m = load_model("llama-3.1-8b");
  PlanInput in;
  in.context = 8192;
  in.gpu_memory_bytes = 85013508915ull;
  EXPECT_EQ(plan_capacity(m, in).memory.requested_bytes, 78212428201ull);
  in.edit_vllm().rules = VllmRules::v0_19;
  EXPECT_EQ(plan_capacity(m, in).memory.requested_bytes, 76512158023ull);
}

// A release without a rule set of its own is refused, naming the sets there are and which one
// holds the memory terms of 0.11 - 0.16 (NCCL before the baseline, the sort sampler, graphs outside
// the budget: vllm@0.9's, fitted on such a release) rather than guessing its pool rules.
TEST(EngineRules, AReleaseWithoutItsOwnRulesIsRefusedWithTheNearestSet) {
  VllmRules rules = VllmRules::current;
  EXPECT_EQ(parse_engine("vllm@0.19.1", "x", "engine", rules), Engine::vllm);
  EXPECT_EQ(rules, VllmRules::v0_19);
  const std::string e =
      test::error_message([&] { parse_engine("vllm@0.13.0", "x", "engine", rules); });
  EXPECT_NE(e.find("vLLM version \"0.13.0\" has no rule set of its own"), std::string::npos) << e;
  EXPECT_NE(e.find("for 0.11 - 0.16, vllm@0.9's memory terms are theirs"), std::string::npos) << e;
  // 0.20 - 0.24: the nearest set and the default a user must then state (vllm-project/vllm#38284).
  const std::string f =
      test::error_message([&] { parse_engine("vllm@0.22.1", "x", "engine", rules); });
  EXPECT_NE(f.find("0.20 - 0.24 deduct the CUDA-graph estimate as vllm does, with "
                   "gpu_memory_utilization 0.92 by default"),
            std::string::npos)
      << f;
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
  EXPECT_EQ(sglang().default_ssm_state_dtype({}), KvDtype::fp32);
  EXPECT_FALSE(vllm().default_ssm_state_dtype({}).has_value());
  EXPECT_TRUE(trtllm().pools_per_attention_window());
  EXPECT_FALSE(vllm().pools_per_attention_window());
}

// Another engine takes its own defaults for what the previous engine stated under its own keys:
// a vLLM plan's --mamba-cache-dtype / --mamba-ssm-cache-dtype and SGLang's --max-total-tokens
// do not carry over to a copy planned under another engine (the fixes' SGLang check sizes an
// SGLang server by the dtypes its launch line states, that is SGLang's float32 state).
TEST(EngineRules, SwitchingEngineDropsTheOldEnginesOwnSettings) {
  PlanInput p;
  set_engine(p, Engine::vllm);
  p.conv_state_dtype = KvDtype::fp32;
  p.ssm_state_dtype = KvDtype::bf16;
  p.max_total_tokens = 1000;
  set_engine(p, Engine::vllm);  // the same engine keeps them
  EXPECT_EQ(p.ssm_state_dtype, std::optional<KvDtype>(KvDtype::bf16));
  set_engine(p, Engine::sglang);
  EXPECT_FALSE(p.conv_state_dtype.has_value());
  EXPECT_FALSE(p.ssm_state_dtype.has_value());
  EXPECT_FALSE(p.max_total_tokens.has_value());
  // The state's cost then follows SGLang's default: float32.
  EXPECT_EQ(plan_cost_input(ModelSpec{}, p, 1, 1, 1).ssm_state_dtype,
            std::optional<KvDtype>(KvDtype::fp32));
}

// A Mamba state's pages per request (MambaSpec.max_memory_usage_bytes, vllm/v1/
// kv_cache_interface.py @ 001cabc1): fixed with mamba_cache_mode none (1 + speculative blocks) or
// align (2 + them), one per block of the request with all, the one mode in which it grows.
// SGLang's state lives in its own pool (one slot per request).
TEST(EngineRules, AMambaStateGrowsOnlyWithVllmCacheModeAll) {
  PlanInput in;
  in.edit_vllm().num_speculative_tokens = 2;
  in.edit_vllm().mamba_cache_mode = VllmOptions::MambaCacheMode::none;
  EXPECT_FALSE(vllm().recurrent_state_grows(in));
  EXPECT_EQ(vllm().recurrent_state_pages(in, 10000, 16), 3u);  // 1 + 2
  in.edit_vllm().mamba_cache_mode = VllmOptions::MambaCacheMode::align;
  EXPECT_FALSE(vllm().recurrent_state_grows(in));
  EXPECT_EQ(vllm().recurrent_state_pages(in, 10000, 16), 4u);  // 2 + 2
  in.edit_vllm().mamba_cache_mode = VllmOptions::MambaCacheMode::all;
  EXPECT_TRUE(vllm().recurrent_state_grows(in));
  EXPECT_EQ(vllm().recurrent_state_pages(in, 10000, 16), 625u);  // cdiv(10000, 16)
  EXPECT_FALSE(sglang().recurrent_state_grows(in));
  EXPECT_FALSE(sglang().pages_recurrent_state());
}

// The memory-fraction flag each engine's command line takes, with two decimals: vLLM
// --gpu-memory-utilization (vllm/engine/arg_utils.py), SGLang --mem-fraction-static
// (server_args.py), trtllm-serve --free_gpu_memory_fraction (tensorrt_llm/commands/serve.py).
// 0.05 is "0.05", not "0.5"; 0.957 rounds down to 0.95 (a fix must not promise more).
TEST(EngineRules, MemoryFractionFlagsAreTheEnginesOwn) {
  EXPECT_EQ(vllm().memory_fraction_flag(950000), "--gpu-memory-utilization 0.95");
  EXPECT_EQ(vllm().memory_fraction_flag(50000), "--gpu-memory-utilization 0.05");
  EXPECT_EQ(sglang().memory_fraction_flag(957000), "--mem-fraction-static 0.95");
  EXPECT_EQ(trtllm().memory_fraction_flag(900000), "--free_gpu_memory_fraction 0.90");
  EXPECT_EQ(vllm09().memory_fraction_flag_name(), "--gpu-memory-utilization");
}

// How each engine's startup log is read back: vLLM's profile terms are kvplan's own (and
// calibrate them); SGLang logs its token pool and keeps CUDA graphs outside it; TensorRT-LLM logs
// blocks and gives the pool a fraction of what the weights leave.
TEST(EngineRules, LogFactsPerEngine) {
  using Pool = EngineRules::LogFacts::Pool;
  EXPECT_EQ(vllm().log_facts().pool, Pool::memory_budget);
  EXPECT_TRUE(vllm().log_facts().calibrates_terms);
  EXPECT_TRUE(vllm().log_facts().graphs_logged_only.empty());
  EXPECT_EQ(sglang().log_facts().pool, Pool::tokens);
  EXPECT_FALSE(sglang().log_facts().calibrates_terms);
  EXPECT_FALSE(sglang().log_facts().compares_reserve);
  EXPECT_EQ(trtllm().log_facts().pool, Pool::blocks);
  EXPECT_TRUE(trtllm().fraction_after_weights());
  // vLLM's rule set of a log: 0.9's for V0 and V1 before 0.10, 0.19's for 0.17 - 0.19, else the
  // current; the other engines have one.
  EXPECT_EQ(vllm().rules_of_log("0.8.5", false), VllmRules::v0_9);
  EXPECT_EQ(vllm().rules_of_log("", true), VllmRules::v0_9);
  EXPECT_EQ(vllm().rules_of_log("0.18.1", false), VllmRules::v0_19);
  EXPECT_EQ(vllm().rules_of_log("0.10.2", false), VllmRules::v0_10);  // NCCL after the baseline
  EXPECT_FALSE(vllm().rules_of_log("0.11.0", false).has_value());
  EXPECT_FALSE(sglang().rules_of_log("0.8.5", true).has_value());
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
  in.edit_vllm().disable_hybrid_kv_cache_manager = true;
  EXPECT_FALSE(vllm().local_layers_own_groups(gemma, in));
  EXPECT_NO_THROW(vllm().check_pool_layout(gemma, in, "test"));
}

// PlanInput carries one engine's options (issue 25): another engine's read as that engine's
// defaults (SGLang's --swa-full-tokens-ratio is 0.8, server_args.py), a plan refuses options its
// engine never reads, and set_engine keeps the engine's own options and drops another's.
TEST(EngineRules, APlanInputCarriesOneEnginesOptions) {
  PlanInput in;
  set_engine(in, Engine::sglang);
  in.edit_sglang().swa_full_tokens_ratio_ppm = 500000;
  EXPECT_EQ(in.sglang().swa_full_tokens_ratio_ppm, 500000u);
  EXPECT_NO_THROW(check_engine_options(in, "test"));
  in.engine = Engine::vllm;  // SGLang's options left behind
  EXPECT_EQ(in.sglang().swa_full_tokens_ratio_ppm, 800000u);
  const std::string refused = test::error_message([&] { check_engine_options(in, "test"); });
  EXPECT_NE(refused.find("test: engine: sglang options given to a vllm deployment"),
            std::string::npos)
      << refused;
  // The planner asks the same before it plans.
  in.context = 4096;
  in.available_kv_bytes = std::uint64_t{1} << 30;
  EXPECT_THROW(plan_capacity(load_model("llama-3.1-8b"), in, "test"), Error);
  set_engine(in, Engine::vllm);  // drops SGLang's
  EXPECT_NO_THROW(check_engine_options(in, "test"));
  EXPECT_NO_THROW(plan_capacity(load_model("llama-3.1-8b"), in, "test"));
  in.edit_vllm().dcp = 2;
  set_engine(in, "vllm@0.9", "test", "engine");  // the engine's own options stay
  EXPECT_EQ(in.vllm().dcp, 2u);
  EXPECT_EQ(in.vllm().rules, VllmRules::v0_9);
  set_engine(in, Engine::trtllm);
  EXPECT_EQ(in.vllm().dcp, 1u);  // read as vLLM's default now
  EXPECT_TRUE(std::holds_alternative<TrtllmOptions>(in.options));
  // Another engine's defaults are no options at all: nothing to refuse.
  in.options = VllmOptions{};
  EXPECT_NO_THROW(check_engine_options(in, "test"));
}

}  // namespace
}  // namespace kvplan
