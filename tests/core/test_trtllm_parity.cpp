// TensorRT-LLM's KV pools: its own unit tests reproduced, and the planner by hand. Sources:
//   R = tests/unittest/_torch/executor/test_resource_manager.py
//       @ NVIDIA/TensorRT-LLM c20322ffd3dc0740ca530c9fad989b22e64f6e06
//   K = cpp/tests/unit_tests/batch_manager/kvCacheManagerTest.cpp
//       @ NVIDIA/TensorRT-LLM fb6d3613550da05b61d684d53f1e6c577ebd8265
//   C = cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp
//       @ NVIDIA/TensorRT-LLM b35ac1b64368513d215c57d2ed01d62d910df8da (calculateMaxNumBlocks:
//       equal memory per window, ceilDiv(tokens, tokens_per_block), max_tokens ignored with
//       several windows)
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "kvplan/error.hpp"
#include "kvplan/formula.hpp"
#include "kvplan/planner.hpp"
#include "model_shapes.hpp"

namespace kvplan {
namespace {

constexpr std::uint64_t GiB = std::uint64_t{1} << 30;

// R test_adjust_window_sizes_for_vswa: windows {100: layers 0-3, 200: 4-6, 7000: 7-8}, 2 heads
// of hidden 2 (head 1), kv_factor 2, HALF: 8 bytes per token per layer.
std::vector<TrtllmWindow> r_windows() {
  return {{100, 4, 8 * 4, 0}, {200, 3, 8 * 3, 0}, {7000, 2, 8 * 2, 0}};
}

TEST(TrtllmParity, AdjustWindowSizesForVswa) {
  struct Case {
    const char* name;  // R's description
    std::uint64_t memory;
    std::optional<std::uint64_t> max_tokens;
    std::vector<std::uint64_t> want;
  } cases[] = {
      {"limited_memory_clamped_windows", 8 * (100 * 9 + 30 * 5) + 4, std::nullopt, {100, 130, 130}},
      {"less_limited_memory_clamped_windows",
       8 * (100 * 9 + 100 * 5 + 817 * 2) + 4,
       std::nullopt,
       {100, 200, 1017}},
      {"sufficient_memory_no_clamping",
       8 * (100 * 4 + 200 * 3 + 7000 * 2) + 9402,
       std::nullopt,
       {100, 200, 7000}},
      {"very_limited_memory_all_clamped", 8 * (51 * 9) + 1, std::nullopt, {51, 51, 51}},
      {"less_limited_memory_but_clamped_by_max_tokens",
       8 * (100 * 9 + 100 * 5 + 817 * 2) + 4,
       134,
       {100, 134, 134}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(trtllm_adjust_windows(r_windows(), c.memory, c.max_tokens), c.want);
  }
}

// K BlockManagerTestWindowSizeToShare (the proportional rule of older builds,
// BlockManager::calculateWindowSizeToShare): share ∝ window · bytes / Σ bytes.
TEST(TrtllmParity, WindowSizeToShareProportional) {
  using R = TrtllmOptions::WindowShares;
  // One window: everything.
  EXPECT_NEAR(trtllm_window_shares({{1024, 3, 1, 0}}, R::proportional)[0], 1.0, 1e-6);
  // {1024: [1], 4096: [0, 4, 5], 8192: [2, 3]}, one byte per token each: 1024 / 13312 ...
  auto s =
      trtllm_window_shares({{1024, 1, 1, 0}, {4096, 3, 1, 0}, {8192, 2, 1, 0}}, R::proportional);
  EXPECT_NEAR(s[0], 1024.0 / 13312, 1e-6);
  EXPECT_NEAR(s[1], 4096.0 / 13312, 1e-6);
  EXPECT_NEAR(s[2], 8192.0 / 13312, 1e-6);
  // Bytes per token {2, 12, 2}: 2048, 49152, 16384 over 67584 (~0.0303, 0.7273, 0.2424).
  s = trtllm_window_shares({{1024, 1, 2, 0}, {4096, 3, 12, 0}, {8192, 2, 2, 0}}, R::proportional);
  EXPECT_NEAR(s[0], 2048.0 / 67584, 1e-6);
  EXPECT_NEAR(s[1], 49152.0 / 67584, 1e-6);
  EXPECT_NEAR(s[2], 16384.0 / 67584, 1e-6);
  // {1024: 8, 4096: 2, 8192: 1} bytes: equal contributions, a third each.
  s = trtllm_window_shares({{1024, 1, 8, 0}, {4096, 1, 2, 0}, {8192, 1, 1, 0}}, R::proportional);
  for (double x : s) EXPECT_NEAR(x, 1.0 / 3, 1e-6);
  // The current rule (C): equal shares whatever the windows.
  s = trtllm_window_shares({{1024, 1, 8, 0}, {4096, 1, 2, 0}}, R::equal);
  EXPECT_DOUBLE_EQ(s[0], 0.5);
  EXPECT_DOUBLE_EQ(s[1], 0.5);
}

// A model of `layers` full-attention layers of the given heads and head width (K = V), one
// parameter, and a TensorRT-LLM fp16 plan: the tests' shapes.
ModelSpec layers_of(const char* id, std::uint32_t layers, std::uint32_t q_heads,
                    std::uint32_t kv_heads, std::uint32_t head_dim) {
  return test::full_attention_model(id, layers, q_heads, kv_heads, head_dim, 1);
}
PlanInput trtllm_fp16() {
  PlanInput in;
  in.engine = Engine::trtllm;
  in.format = parse_kv_format("fp16");
  return in;
}

// R test_calculate_max_num_blocks_from_cpp, both cases. "max_gpu_total_bytes is not set": free
// memory 128 MiB, free_gpu_memory_fraction 0.1 -> primary pool int(134217728 · 0.1) = 13421772
// bytes. kvplan's TensorRT-LLM budget is (total − weights − reserve) · fraction, so a GPU of 128
// MiB + 1 byte with 1 byte of weights and no reserve leaves those 128 MiB free. Model: 4 layers, 64
// heads of hidden 64 (head 1), 8 KV heads, HALF; windows [64, 128] repeat: 64 for layers 0 and 2,
// 128 for 1 and 3: 2 · 8 · 1 · 2 · 2 = 64 bytes per token per window. C: equal shares, 13421772 ·
// 0.5 / 64 = 104857 tokens, ceilDiv 32 = 3277 blocks per window.
TEST(TrtllmParity, MaxNumBlocksFromCpp) {
  ModelSpec m = layers_of("trtllm-test", 4, 64, 8, 1);
  m.weights.bytes = 1;
  PlanInput in = trtllm_fp16();
  in.context = 128;  // max_seq_len = max(max_attention_window)
  in.gpu_memory_bytes = 128 * 1024 * 1024 + 1;
  in.reserve_bytes = 0;
  in.memory_fraction_ppm = 100000;
  in.edit_trtllm().max_attention_window = {64, 128};
  const auto c = plan_capacity(m, in);
  EXPECT_EQ(c.memory.available_bytes, 13421772u);
  EXPECT_EQ(c.block_size, 32u);
  EXPECT_EQ(c.num_gpu_blocks, 2 * 3277u);
  EXPECT_EQ(c.kv_cache_tokens, 3277u * 32);
  // One sequence of 128 tokens: 2 blocks of window 64 plus kSWAExtraBlock, 4 of window 128:
  // 3277 // 4 = 819 requests (the 128 window binds).
  EXPECT_EQ(c.max_requests, 819u);

  // Case "max_gpu_total_bytes is set, host_cache_size is set": max_gpu_total_bytes 32 MiB wins
  // over the fraction (KVCacheManager, resource_manager.py@d2a5560a: "max_gpu_total_bytes if
  // max_gpu_total_bytes > 0 else int(free_mem * free_gpu_memory_fraction)"): primary pool
  // 33554432 bytes although 0.1 of the free memory is 13421772. C, equal shares:
  // 33554432 · 0.5 / 64 = 262144 tokens = 8192 blocks per window; 8192 // 4 = 2048 requests.
  // The secondary pool, host_cache_size 32 MiB, is the host tier (KvTiers tests).
  in.edit_trtllm().max_gpu_total_bytes = 32 * 1024 * 1024;
  const auto set = plan_capacity(m, in);
  EXPECT_EQ(set.memory.available_bytes, 33554432u);
  EXPECT_EQ(set.memory.fixed_pool_bytes, 33554432u);
  EXPECT_EQ(set.num_gpu_blocks, 2 * 8192u);
  EXPECT_EQ(set.max_requests, 2048u);
  // A pool beyond what the weights leave on the GPU does not allocate: 128 MiB of pool on a
  // 128 MiB + 1 byte GPU with 1 byte of weights fits exactly; 1 byte more falls short by 1.
  in.edit_trtllm().max_gpu_total_bytes = 128 * 1024 * 1024;
  EXPECT_EQ(plan_capacity(m, in).memory.shortfall_bytes, 0u);
  in.edit_trtllm().max_gpu_total_bytes = 128 * 1024 * 1024 + 1;
  EXPECT_EQ(plan_capacity(m, in).memory.shortfall_bytes, 1u);
}

// A variable-window deployment by hand: 4 layers of 8 KV heads × 128, fp16 (4096 bytes per token
// and layer), max_attention_window [1024, 1024, 1024, 8192], max_seq_len 8192, 1 GiB measured.
// No window shrinks (one sequence needs 1024 · 12288 + 8192 · 4096 = 46137344 bytes).
// C, equal shares: window 1024: 536870912 / 12288 = 43690 tokens -> 1366 blocks;
// window 8192: 536870912 / 4096 = 131072 tokens -> 4096 blocks. A request of 8192 tokens holds
// ceil(1024 / 32) + 1 = 33 and 256 blocks: min(1366 // 33, 4096 // 256) = min(41, 16) = 16.
// The older proportional split: shares 768 / 2816 and 2048 / 2816 -> 23831 tokens (745 blocks)
// and 190650 tokens (5958 blocks): min(745 // 33, 5958 // 256) = min(22, 23) = 22.
TEST(TrtllmParity, VariableWindowPools) {
  const ModelSpec m = layers_of("vswa-test", 4, 32, 8, 128);
  PlanInput in = trtllm_fp16();
  in.context = 8192;
  in.available_kv_bytes = GiB;
  in.edit_trtllm().max_attention_window = {1024, 1024, 1024, 8192};
  auto c = plan_capacity(m, in);
  EXPECT_EQ(c.num_gpu_blocks, 1366u + 4096u);
  EXPECT_EQ(c.kv_cache_tokens, 131072u);
  EXPECT_EQ(c.max_requests, 16u);
  in.edit_trtllm().window_shares = TrtllmOptions::WindowShares::proportional;
  c = plan_capacity(m, in);
  EXPECT_EQ(c.num_gpu_blocks, 745u + 5958u);
  EXPECT_EQ(c.max_requests, 22u);
  // max_tokens is ignored with several windows (C) ...
  in.edit_trtllm().window_shares = TrtllmOptions::WindowShares::equal;
  in.max_total_tokens = 1000;
  EXPECT_EQ(plan_capacity(m, in).num_gpu_blocks, 1366u + 4096u);
  // ... and caps a single window: min(262144, 1000) tokens -> ceilDiv 32 = 32 blocks.
  in.edit_trtllm().max_attention_window.clear();
  EXPECT_EQ(plan_capacity(m, in).num_gpu_blocks, 32u);
}

// The windows the VSWA adjustment settles on, in the plan and its report (issue 27: "computed,
// never printed"). R's case "limited_memory_clamped_windows": windows {100: layers 0-3, 200: 4-6,
// 7000: 7-8}, 8 bytes per token per layer (2 KV heads of head 1, K and V, fp16), 8 · (100 · 9 +
// 30 · 5) + 4 = 8,404 bytes: R asserts {100, 130, 130}. The two windows of 130 are one pool of
// 5 layers (40 bytes a token) beside the 4 layers of 100 (32 bytes). C, equal shares: 8,404 ·
// 0.5 = 4,202 bytes a window; 4,202 / 32 = 131 tokens -> ceilDiv 32 = 5 blocks; 4,202 / 40 = 105
// tokens -> 4 blocks.
TEST(TrtllmParity, ThePlanReportsTheWindowsTheVswaAdjustmentSettlesOn) {
  const ModelSpec m = layers_of("vswa-adjust", 9, 2, 2, 1);
  PlanInput in = trtllm_fp16();
  in.context = 7000;
  in.available_kv_bytes = 8 * (100 * 9 + 30 * 5) + 4;
  in.edit_trtllm().max_attention_window = {100, 100, 100, 100, 200, 200, 200, 7000, 7000};
  const auto c = plan_capacity(m, in);
  ASSERT_EQ(c.stages.size(), 1u);
  const auto& s = c.stages[0];
  ASSERT_EQ(s.trtllm_pools.size(), 2u);
  EXPECT_EQ(s.trtllm_pools[0].window, 100u);
  EXPECT_EQ(s.trtllm_pools[0].layers, 4u);
  EXPECT_EQ(s.trtllm_pools[0].primary_blocks, 5u);
  EXPECT_EQ(s.trtllm_pools[1].window, 130u);
  EXPECT_EQ(s.trtllm_pools[1].layers, 5u);
  EXPECT_EQ(s.trtllm_pools[1].primary_blocks, 4u);
  ASSERT_EQ(s.trtllm_requested.size(), 2u);
  EXPECT_EQ(s.trtllm_requested[0], std::vector<std::uint64_t>{100});
  EXPECT_EQ(s.trtllm_requested[1], (std::vector<std::uint64_t>{200, 7000}));
  EXPECT_EQ(c.num_gpu_blocks, 9u);
  // The report says it: a row per pool, and the JSON's stages[].trtllm_pools.
  const PlanReport r = make_plan_report(m, std::nullopt, in, {}, false);
  const std::string text = render(r, OutputFormat::table);
  EXPECT_NE(text.find("window 130 tokens (asked 200, 7,000), 5 layers"), std::string::npos) << text;
  EXPECT_NE(text.find("window 100 tokens, 4 layers"), std::string::npos) << text;
  const auto j = nlohmann::json::parse(render(r, OutputFormat::json));
  const auto& pools = j["stages"][0]["trtllm_pools"];
  ASSERT_EQ(pools.size(), 2u);
  EXPECT_EQ(pools[1]["window"], 130);
  EXPECT_EQ(pools[1]["requested_windows"], nlohmann::json::array({200, 7000}));
  EXPECT_EQ(pools[1]["blocks"], 4);
  // With enough memory nothing moves: R's "sufficient_memory_no_clamping" keeps {100, 200, 7000},
  // three pools, each asked for itself.
  in.available_kv_bytes = 8 * (100 * 4 + 200 * 3 + 7000 * 2) + 9402;
  const auto big = plan_capacity(m, in);
  ASSERT_EQ(big.stages[0].trtllm_pools.size(), 3u);
  EXPECT_EQ(big.stages[0].trtllm_pools[2].window, 7000u);
  EXPECT_EQ(big.stages[0].trtllm_requested[2], std::vector<std::uint64_t>{7000});
}

// tokens_per_block: 32 for the LLM API / PyTorch KvCacheConfig, 64 for a TensorRT engine build.
// llama-3.1-8b on 80 GiB (PlannerTrtllm.FreeFractionAfterWeights): 464799 tokens; ceilDiv 64 =
// 7263 blocks, 464832 tokens.
TEST(TrtllmParity, TokensPerBlockByBackend) {
  const auto m = load_model("llama-3.1-8b");
  PlanInput in;
  in.engine = Engine::trtllm;
  in.context = 8192;
  in.gpu_memory_bytes = 80 * GiB;
  EXPECT_EQ(plan_capacity(m, in).block_size, 32u);
  in.edit_trtllm().backend = TrtllmOptions::Backend::tensorrt;
  const auto c = plan_capacity(m, in);
  EXPECT_EQ(c.block_size, 64u);
  EXPECT_EQ(c.num_gpu_blocks, 7263u);
  EXPECT_EQ(c.kv_cache_tokens, 464832u);
  EXPECT_EQ(c.max_requests, 7263u / 128);
}

// DeepSeek-V3.2 under TensorRT-LLM: DSACacheManager.get_cache_bytes_per_token
// (tensorrt_llm/_torch/attention_backend/sparse/dsa.py@00e3c1a5c4bc147f6819c11b8a9a210488a81ca9)
// takes kv_factor = 1 + (128 + 4) / 576 and ceil(kv_factor · 61 layers · 576) = 61 · 708 = 43,188
// elements a token, at the KV dtype's size: bf16 86,376 B a token, 32 tokens a block =
// 2,764,032 B. 500 blocks of memory: 500 blocks, 16,000 tokens.
TEST(TrtllmParity, DsaIndexerAtTheKvDtype) {
  const auto m = load_model("deepseek-v3.2");
  PlanInput in;
  in.engine = Engine::trtllm;
  in.format = parse_kv_format("bf16");
  in.tp = 8;
  in.context = 8192;
  in.available_kv_bytes = std::uint64_t{2764032} * 500;
  const auto c = plan_capacity(m, in);
  EXPECT_EQ(c.block_size, 32u);
  EXPECT_EQ(c.num_gpu_blocks, 500u);
  EXPECT_EQ(c.kv_cache_tokens, 16000u);
  // fp8: 43,188 B a token, 1,382,016 a block.
  in.format = parse_kv_format("fp8");
  in.available_kv_bytes = std::uint64_t{1382016} * 500;
  EXPECT_EQ(plan_capacity(m, in).num_gpu_blocks, 500u);
}

// ---------------------------------------------------------------------------------------------
// Hybrid Mamba models: the state slots come out of the KV budget before the attention pool.
//   M = tests/unittest/_torch/executor/kv_cache/test_mamba_cache_manager.py
//       @ NVIDIA/TensorRT-LLM 000d3e98ca597bbe79196aff098fcb6dbcf082f0
//   E = tensorrt_llm/_torch/pyexecutor/kv_cache/mamba_cache_manager/common.py
//       @ 28295084972c5ab61ef010a050a18f53f5d72810 (_estimate_mamba_hybrid_cache_cost)
// Inventory of M (every test function with a concrete sizing number → its TEST here):
//   test_hybrid_mtp_layout_honors_explicit_base_partition  HybridStateSlotsComeOutOfTheBudget (its
//       base layers; the MTP draft layer is refused: kvplan does not model the intermediate state
//       buffers speculative decoding adds beside the pool), and its cost with the draft layer
//       by hand: HybridAffineCostByManager
//   test_hybrid_separate_mtp_draft_estimator_has_no_mamba_state  not expressible: a separate
//       draft KV cache manager (speculative decoding, refused as above)
//   test_v2_hybrid_estimator_counts_dummy_states_without_attention_capacity
//                                              HybridDummySlotsByManagerAndAttentionDp: its first
//                                              case (no spec: 320 B); its second is MTP draft 4 +
//                                              attention DP (384 B), which kvplan reaches by
//                                              attention DP alone, since a static draft length
//                                              also needs 1 padding dummy; the draft-length
//                                              schedules are speculative decoding (refused); all
//                                              three costs: HybridAffineCostByManager
//   test_v2_hybrid_attention_bound_is_snapshot_alignment_agnostic  HybridAffineCostByManager
//   test_cuda_graph_padding_dummy_slot_count_tracks_reachable_draft_lengths  speculative only
//   test_v2_hybrid_pure_mamba_rank_does_not_reserve_attention_page
//                                              HybridRankOfMambaLayersAloneNeedsItsSlots
//   test_v2_hybrid_warns_when_avg_seq_len_is_missing  HybridV2SplitsByTheTypicalStep (the typical
//       request: avg_seq_len, else max_seq_len / 2)
//   test_v2_hybrid_typical_batch_splits_capacity_across_ssm_states_and_dummies
//                                              HybridV2SnapshotRulesSplitTheTypicalRequest
//   test_v2_hybrid_snapshot_sizing_scales_with_pp_and_explicit_rules,
//   test_mamba_snapshot_rule_count_deduplicates_and_filters_unreachable_points
//                                              HybridSnapshotRulesCountTheReachableOffsets (the
//                                              former's quota-side count belongs to V2 with
//                                              max_tokens, refused)
//   (the C++ manager's periodic snapshots, by hand: HybridCppPeriodicSnapshotsTakeTheirShareOf-
//       EachToken)
//   test_cpp_mamba_estimator_handles_disabled_snapshots_without_attention  not expressible: a rank
//       without attention layers that still sizes an attention pool of max_tokens (zero-byte
//       blocks); kvplan gives such a rank its state slots alone
//   test_python_mamba_resource_count_excludes_reserved_dummy_slots  the Python (Mixed) manager,
//       not modelled
//   test_v2_hybrid_reserves_every_persistent_dummy_slot, test_v2_hybrid_allocates_mamba_state_and_
//   dummy_indices (CUDA): slot indices and tensor views; the state's shapes are
//       HybridStateSlotsComeOutOfTheBudget's 800 B
// M's fixture _hybrid_cache_sizing_model_config: Qwen3_5ForCausalLM in fp16, linear_key_head_dim
// 8, linear_conv_kernel_dim 4, 4 value heads of 8, 1 key head, 2 KV heads of hidden 32 / 4 heads
// = 8, layers [linear, full, linear, full]. By hand (config_utils.py@00679c66
// get_states_bytes_per_layer): conv_dim = 4 · 8 + 2 · 1 · 8 = 48, conv 48 · 3 · 2 B = 288 B;
// ssm 4 · 8 · 8 · 2 B = 512 B: 800 B a slot and layer. Attention 2 · 2 · 8 · 2 B = 64 B a token.
ModelSpec m_fixture() {
  ModelSpec m = layers_of("qwen3_5-sizing", 4, 4, 2, 8);
  m.layers[0] = m.layers[2] = LayerSpec{AttentionKind::none, 0, true};
  m.recurrent = RecurrentSpec{.kind = MixerKind::gated_delta_net,
                              .d_conv = 4,
                              .heads = 4,
                              .head_dim = 8,
                              .key_heads = 1,
                              .key_head_dim = 8,
                              .conv_dtype = KvDtype::fp16,
                              // vLLM's Qwen3.5 hook would keep the temporal state in float32;
                              // TensorRT-LLM reads mamba_ssm_cache_dtype alone (absent): fp16.
                              .ssm_dtype = KvDtype::fp32,
                              .ssm_dtype_pinned = true};
  return m;
}

// M test_hybrid_mtp_layout_honors_explicit_base_partition, its base layers (the MTP draft layer it
// appends is refused below): pp 2 splits the four layers [2, 2], each rank one linear and one full
// layer; max_batch_size 1. E: intercept (1 · 2 resident + 1 dummy) · 800 = 2,400 B, slope 64 B a
// token on each rank, for CppMambaHybridCacheManager and V2 alike. A budget of 2,400 + 64 · 32 · 10
// bytes leaves 10 blocks of 32 tokens (V2: below a typical step of avg_seq_len 1,024 tokens, 2 ·
// 1,024 · 64 B, the slots' floor binds; HybridV2SplitsByTheTypicalStep has the other side).
TEST(TrtllmParity, HybridStateSlotsComeOutOfTheBudget) {
  const ModelSpec m = m_fixture();
  PlanInput in = trtllm_fp16();
  in.pp = 2;
  in.context = 64;
  in.max_num_seqs = 1;
  in.available_kv_bytes = 2400 + 64 * 32 * 10;
  in.edit_trtllm().avg_seq_len = 1024;
  for (const bool v2 : {true, false}) {
    SCOPED_TRACE(v2 ? "V2" : "Cpp");
    in.edit_trtllm().kv_cache_manager_v2 = v2;
    const auto c = plan_capacity(m, in);
    ASSERT_EQ(c.stages.size(), 2u);
    for (const auto& s : c.stages) {
      ASSERT_TRUE(s.trtllm_states.has_value());
      EXPECT_EQ(s.trtllm_states->slot_bytes, 800u);
      EXPECT_EQ(s.trtllm_states->live_slots, 2u);
      EXPECT_EQ(s.trtllm_states->dummy_slots, 1u);
      EXPECT_EQ(s.trtllm_states->bytes, 2400u);
      EXPECT_EQ(s.trtllm_pools.at(0).primary_blocks, 10u);
    }
    EXPECT_EQ(c.state_bytes_per_layer, 800u);
    EXPECT_EQ(c.kv_cache_tokens, 320u);
    // Requests of 64 tokens take 2 blocks: 5 fit the attention pool, but 2 live slots hold 2.
    EXPECT_EQ(c.max_requests, 2u);
  }
  // The draft layer M appends brings intermediate state buffers kvplan does not model: refused.
  in.draft_layers = 1;
  EXPECT_THROW(plan_capacity(m, in), Error);
}

// M test_v2_hybrid_estimator_counts_dummy_states_without_attention_capacity, 1 Mamba layer of 64 B,
// max_batch_size 4: (4 + 1) · 64 = 320 B without attention DP; V2 reserves one more dummy for it
// (E: _get_num_cuda_graph_padding_dummy_slots + enable_attention_dp): 6 · 64 = 384 B. The C++
// manager passes 1 dummy whatever the mapping (legacy.py@28295084): 320 B.
TEST(TrtllmParity, HybridDummySlotsByManagerAndAttentionDp) {
  ModelSpec m = layers_of("one-mamba", 2, 4, 2, 8);
  m.layers[0] = LayerSpec{AttentionKind::none, 0, true};
  m.recurrent = RecurrentSpec{.kind = MixerKind::shapes, .ssm_elements = 32};  // 32 · 2 B
  m.routed_experts = 8, m.experts_per_token = 2;  // attention DP needs MoE layers
  PlanInput in = trtllm_fp16();
  in.context = 64;
  in.max_num_seqs = 4;
  in.available_kv_bytes = 1 << 20;
  EXPECT_EQ(plan_capacity(m, in).stages.at(0).trtllm_states->bytes, 320u);
  in.attention_dp = 2;  // TP 1 × attention_dp 2: enable_attention_dp with tp_size 2
  EXPECT_EQ(plan_capacity(m, in).stages.at(0).trtllm_states->bytes, 384u);
  in.edit_trtllm().kv_cache_manager_v2 = false;
  EXPECT_EQ(plan_capacity(m, in).stages.at(0).trtllm_states->bytes, 320u);
}

// M test_v2_hybrid_pure_mamba_rank_does_not_reserve_attention_page: max_batch_size 2, a state of
// ssm 64 B + conv 32 B, 1 dummy, no attention on the rank: _minimum_live_gpu_quota = 3 · 96 =
// 288 B. One byte less and V2 stops at start-up ("The V2 Mamba GPU cache quota is too small").
TEST(TrtllmParity, HybridRankOfMambaLayersAloneNeedsItsSlots) {
  ModelSpec m = layers_of("pure-mamba", 2, 4, 2, 8);
  for (auto& l : m.layers) l = LayerSpec{AttentionKind::none, 0, true};
  // Per layer half of it: 2 layers of ssm 16 · 2 B and conv 8 · 2 B = 96 B a slot.
  m.recurrent = RecurrentSpec{.kind = MixerKind::shapes, .conv_elements = 8, .ssm_elements = 16};
  PlanInput in = trtllm_fp16();
  in.context = 64;
  in.max_num_seqs = 2;
  in.available_kv_bytes = 288;
  auto c = plan_capacity(m, in);
  EXPECT_EQ(c.stages.at(0).trtllm_states->bytes, 288u);
  EXPECT_EQ(c.stages.at(0).trtllm_states->shortfall_bytes, 0u);
  EXPECT_TRUE(c.fits_one_request);
  EXPECT_EQ(c.max_requests, 2u);
  in.available_kv_bytes = 287;
  c = plan_capacity(m, in);
  EXPECT_EQ(c.stages.at(0).trtllm_states->shortfall_bytes, 1u);
  EXPECT_FALSE(c.fits_one_request);
  EXPECT_EQ(c.max_requests, 0u);
}

// A pipeline of M's fixture reordered [linear, linear, full, full], pp 2, max_batch_size 1: stage 0
// holds the two Mamba layers alone, (1 · 2 + 1) · 2 · 800 = 4,800 B of slots and no attention
// pool; stage 1 the two full layers, 128 B a token and no state, under the same hybrid manager:
// 22,880 // 128 = 178 tokens, 5 whole blocks (rounded down, as the hybrid managers round; the
// plain pool would round up to 6). Requests of 64 tokens take 2 blocks: 2 fit the blocks, and the
// 2 live slots hold 2. The plan's figures are stage 1's.
TEST(TrtllmParity, HybridPipelineStagesOfOneKindEach) {
  ModelSpec m = m_fixture();
  m.layers[0] = m.layers[1] = LayerSpec{AttentionKind::none, 0, true};
  m.layers[2] = m.layers[3] = LayerSpec{};
  PlanInput in = trtllm_fp16();
  in.pp = 2;
  in.context = 64;
  in.max_num_seqs = 1;
  in.available_kv_bytes = 22880;
  in.edit_trtllm().avg_seq_len = 1024;
  const auto c = plan_capacity(m, in);
  ASSERT_EQ(c.stages.size(), 2u);
  EXPECT_EQ(c.stages[0].trtllm_states->bytes, 4800u);
  EXPECT_EQ(c.stages[0].trtllm_states->attention_bytes, 0u);
  EXPECT_TRUE(c.stages[0].trtllm_pools.empty());
  EXPECT_EQ(c.stages[1].trtllm_states->bytes, 0u);
  EXPECT_EQ(c.stages[1].trtllm_pools.at(0).primary_blocks, 5u);
  EXPECT_EQ(c.num_gpu_blocks, 5u);
  EXPECT_EQ(c.kv_cache_tokens, 160u);
  EXPECT_EQ(c.max_requests, 2u);
  // V2 with kv_cache_config.max_tokens caps its whole quota before the split: refused.
  in.max_total_tokens = 100;
  EXPECT_THROW(plan_capacity(m, in), Error);
}

// Block reuse's snapshot rules (E _mamba_snapshot_rule_counts): the distinct offsets from the
// start no later than max_seq_len and from the end short of it, none with reuse off.
//   M test_mamba_snapshot_rule_count_deduplicates_and_filters_unreachable_points: start [64, 65,
//     64], end [0, 32, 4096], max_seq_len 128: {64, 65} + {0, 32} = 4 (4096 is unreachable).
//   M test_v2_hybrid_snapshot_sizing_scales_with_pp_and_explicit_rules: start [64], end [0, 32]
//     at 128: 3 rules, so a typical request of 128 tokens keeps 1 + 3 = 4 states of 32 tokens;
//     its quota-side count for 512 tokens, resident 4 · pp 2 = 8 lineages · 3 = 24 slots, belongs
//     to V2 with max_tokens, which kvplan refuses (HybridPipelineStagesOfOneKindEach). A periodic
//     interval (48) adds no rule: 1 state at 47 and at 48 tokens.
TEST(TrtllmParity, HybridSnapshotRulesCountTheReachableOffsets) {
  TrtllmOptions o;
  o.enable_block_reuse = true;
  o.snapshot_offsets_from_start = {64, 65, 64};
  o.snapshot_offsets_from_end = {0, 32, 4096};
  EXPECT_EQ(trtllm_snapshot_rules(o, 128), 4u);
  o.enable_block_reuse = false;
  EXPECT_EQ(trtllm_snapshot_rules(o, 128), 0u);
  o.enable_block_reuse.reset();  // unset: the hybrid models' default, off
  EXPECT_EQ(trtllm_snapshot_rules(o, 128), 0u);
  o.enable_block_reuse = true;
  o.snapshot_offsets_from_start = {64};
  o.snapshot_offsets_from_end = {0, 32};
  EXPECT_EQ(trtllm_snapshot_rules(o, 128), 3u);
  EXPECT_EQ(8u * trtllm_snapshot_rules(o, 128), 24u);
  TrtllmOptions periodic;
  periodic.enable_block_reuse = true;
  periodic.snapshot_interval = 48;
  EXPECT_EQ(trtllm_snapshot_rules(periodic, 47), 0u);
  EXPECT_EQ(trtllm_snapshot_rules(periodic, 48), 0u);
}

// E _estimate_mamba_hybrid_cache_cost on M's fixture, each case by hand (800 B a slot and layer,
// 64 B a token and attention layer, 32 tokens a block):
//   test_hybrid_mtp_layout_honors_explicit_base_partition: max_batch_size 1, pp 2, rank r holds
//     r + 1 attention layers (its MTP layer on the last): (64 · (r + 1), (2 + 1) · 800 = 2,400) for
//     either manager.
//   test_v2_hybrid_estimator_counts_dummy_states_without_attention_capacity: attention 11 B, a
//     64 B state, max_batch_size 4: (11, 5 · 64 = 320), one dummy more with attention DP and a
//     static draft length (11, 384), five with the draft-length schedule (11, 576).
//   test_v2_hybrid_attention_bound_is_snapshot_alignment_agnostic: [linear, full], max_batch_size
//     2, max_seq_len 128, block reuse with a periodic interval of 32 or 48: V2 reserves a partial
//     attention block a resident sequence once a snapshot can be taken, whatever the alignment:
//     intercept (2 + 1) · 800 + 2 · 64 · 32 = 6,496 both; slope 64 + ceil(800 / 32) = 89, or 64 +
//     ceil(800 / 48) = 81. The C++ manager instead charges the unaligned interval in the slope:
//     64 + 17 + ceil(2,048 / 48) = 124, intercept 2,400.
TEST(TrtllmParity, HybridAffineCostByManager) {
  TrtllmOptions off;
  off.enable_block_reuse = false;
  for (const std::uint64_t rank : {0u, 1u})
    for (const bool v2 : {true, false}) {
      const auto c = trtllm_hybrid_cost(off, {.v2 = v2,
                                              .resident = 2,
                                              .dummies = 1,
                                              .state_bytes = 800,
                                              .attention_bytes = 64 * (rank + 1)});
      EXPECT_EQ(c.slope, 64 * (rank + 1));
      EXPECT_EQ(c.intercept, 2400u);
    }
  for (const auto& [dummies, intercept] : {std::pair{1u, 320u}, {2u, 384u}, {5u, 576u}}) {
    const auto c = trtllm_hybrid_cost(
        TrtllmOptions{},
        {.resident = 4, .dummies = dummies, .state_bytes = 64, .attention_bytes = 11});
    EXPECT_EQ(c.slope, 11u);
    EXPECT_EQ(c.intercept, intercept);
  }
  TrtllmOptions reuse;
  reuse.enable_block_reuse = true;
  const TrtllmHybridCostInput v2{
      .resident = 2, .dummies = 1, .state_bytes = 800, .attention_bytes = 64, .max_seq_len = 128};
  reuse.snapshot_interval = 32;
  const auto aligned = trtllm_hybrid_cost(reuse, v2);
  reuse.snapshot_interval = 48;
  const auto unaligned = trtllm_hybrid_cost(reuse, v2);
  EXPECT_EQ(aligned.intercept, unaligned.intercept);
  EXPECT_EQ(aligned.intercept, 6496u);
  EXPECT_EQ(aligned.slope, 89u);
  EXPECT_EQ(unaligned.slope, 81u);
  TrtllmHybridCostInput cpp = v2;
  cpp.v2 = false;
  const auto c = trtllm_hybrid_cost(reuse, cpp);
  EXPECT_EQ(c.slope, 124u);
  EXPECT_EQ(c.intercept, 2400u);
  // An interval longer than max_seq_len never fires (_mamba_regular_snapshot_interval).
  reuse.snapshot_interval = 129;
  EXPECT_EQ(trtllm_hybrid_cost(reuse, v2).slope, 64u);
  EXPECT_EQ(trtllm_hybrid_cost(reuse, v2).intercept, 2400u);
}

// M test_v2_hybrid_typical_batch_splits_capacity_across_ssm_states_and_dummies: max_batch_size 2,
// avg_seq_len 96, a periodic interval of 48 and offsets from the start [32] and the end [0], block
// reuse on (KvCacheConfig's default), one dummy: the typical step is 2 requests of 1 + 2 states of
// 32 tokens each (192 tokens in all) plus the dummy's state. Here a rank of one Mamba layer of ssm
// 64 B + conv 32 B = 96 B a slot and one attention layer of 8 B a token (1 KV head of 2, fp16;
// M patches 8 B), 32 tokens a block (256 B), and M's quota of 2^20 B:
//   attention A = 2 requests · 3 states · 1 page · 256 B = 1,536 B; states S = (2 · 3 + 1) · 96 =
//   672 B. The state share 2^20 · 672 / 2,208 is above the floor of (2 + 1) · 96 = 288 B, so the
//   split is proportional: 1,048,576 · 1,536 // 2,208 = 729,444 B of attention = 91,180 tokens =
//   2,849 blocks; 319,132 B of states = 3,324 slots, 3,321 beyond the live and dummy ones.
// Without block reuse the typical request is one state of 96 tokens (3 pages, the same 1,536 B)
// beside 288 B of states: 1,048,576 · 1,536 // 1,824 = 883,011 B = 110,376 tokens = 3,449 blocks.
TEST(TrtllmParity, HybridV2SnapshotRulesSplitTheTypicalRequest) {
  ModelSpec m = layers_of("snapshot-split", 2, 1, 1, 2);
  m.layers[0] = LayerSpec{AttentionKind::none, 0, true};
  m.recurrent = RecurrentSpec{.kind = MixerKind::shapes, .conv_elements = 16, .ssm_elements = 32};
  PlanInput in = trtllm_fp16();
  in.context = 128;
  in.max_num_seqs = 2;
  in.available_kv_bytes = std::uint64_t{1} << 20;
  TrtllmOptions& o = in.edit_trtllm();
  o.kv_cache_manager_v2 = true;
  o.avg_seq_len = 96;
  o.enable_block_reuse = true;
  o.snapshot_interval = 48;
  o.snapshot_offsets_from_start = {32};
  o.snapshot_offsets_from_end = {0};
  auto c = plan_capacity(m, in);
  const TrtllmStatePool* s = &*c.stages.at(0).trtllm_states;
  EXPECT_EQ(s->slot_bytes, 96u);
  EXPECT_EQ(s->snapshot_rules, 2u);
  EXPECT_EQ(s->snapshot_interval, 48u);
  EXPECT_TRUE(s->proportional);
  EXPECT_EQ(s->attention_bytes, 729444u);
  EXPECT_EQ(s->attention_tokens, 91180u);
  EXPECT_EQ(s->snapshot_slots, 3321u);
  EXPECT_EQ(c.num_gpu_blocks, 2849u);
  in.edit_trtllm().enable_block_reuse = false;
  c = plan_capacity(m, in);
  s = &*c.stages.at(0).trtllm_states;
  EXPECT_EQ(s->snapshot_rules, 0u);
  EXPECT_EQ(s->snapshot_slots, 0u);
  EXPECT_EQ(s->attention_bytes, 883011u);
  EXPECT_EQ(c.num_gpu_blocks, 3449u);
  // Offsets need V2 (KvCacheConfig.validate_mamba_snapshot_offsets): refused under the C++ one.
  in.edit_trtllm().kv_cache_manager_v2 = false;
  EXPECT_THROW(plan_capacity(m, in), Error);
}

// The C++ manager with periodic snapshots, M's fixture at pp 1 (two Mamba layers, 1,600 B a slot;
// two attention layers, 128 B a token), max_batch_size 2, max_seq_len 256, a budget of 1,000,000
// B. E (C++: 1 dummy, the unaligned interval's attention share in the slope):
//   interval 48: intercept 3 · 1,600 = 4,800; slope 128 + ceil(1,600 / 48) + ceil(4,096 / 48) =
//   128 + 34 + 86 = 248: 995,200 // 248 = 4,012 tokens. The pool's own bound (resource_manager.py
//   _calculate_max_num_blocks_for_linear_attention: (1,000,000 − 2 · 1,600) // (128 + 1,600 // 48
//   = 161) = 6,191) is looser, so 4,012 tokens = 125 blocks, and 4,012 // 48 = 83 snapshot slots.
//   interval 64 (aligned): slope 128 + 25 = 153: 6,504 tokens (the pool's 996,800 // 153 = 6,515),
//   203 blocks, 101 snapshot slots.
//   no reuse: 995,200 // 128 = 7,775 tokens, 242 blocks.
// Under "auto" this Qwen3.5 fixture (gated delta net) runs V2, its class's preference: at interval
// 48 V2 splits by a typical step of 2 requests of 128 tokens (4 pages of 4,096 B) beside 4,800 B of
// slots, 1,000,000 · 32,768 // 37,568 = 872,231 B = 6,814 tokens = 212 blocks; the periodic
// snapshots live in the state pool's spare slots. A model of another class (here the same states
// given as shapes) whose preference kvplan cannot tell takes the smaller pool of the two: the C++
// manager's 4,012 tokens.
TEST(TrtllmParity, HybridCppPeriodicSnapshotsTakeTheirShareOfEachToken) {
  const ModelSpec m = m_fixture();
  PlanInput in = trtllm_fp16();
  in.context = 256;
  in.max_num_seqs = 2;
  in.available_kv_bytes = 1000000;
  TrtllmOptions& o = in.edit_trtllm();
  o.kv_cache_manager_v2 = false;
  o.enable_block_reuse = true;
  o.snapshot_interval = 48;
  auto c = plan_capacity(m, in);
  EXPECT_EQ(c.stages.at(0).trtllm_states->per_token_bytes, 248u);
  EXPECT_EQ(c.stages.at(0).trtllm_states->attention_tokens, 4012u);
  EXPECT_EQ(c.stages.at(0).trtllm_states->snapshot_slots, 83u);
  EXPECT_EQ(c.num_gpu_blocks, 125u);
  in.edit_trtllm().snapshot_interval = 64;
  c = plan_capacity(m, in);
  EXPECT_EQ(c.stages.at(0).trtllm_states->per_token_bytes, 153u);
  EXPECT_EQ(c.stages.at(0).trtllm_states->snapshot_slots, 101u);
  EXPECT_EQ(c.num_gpu_blocks, 203u);
  in.edit_trtllm().snapshot_interval = 48;
  in.edit_trtllm().kv_cache_manager_v2.reset();  // auto
  c = plan_capacity(m, in);
  EXPECT_TRUE(c.stages.at(0).trtllm_states->v2);
  EXPECT_EQ(c.stages.at(0).trtllm_states->attention_tokens, 6814u);
  EXPECT_EQ(c.num_gpu_blocks, 212u);
  ModelSpec other = m;
  other.recurrent = RecurrentSpec{.kind = MixerKind::shapes,
                                  .conv_elements = 144,  // 288 B
                                  .ssm_elements = 256,   // 512 B
                                  .conv_dtype = KvDtype::fp16,
                                  .ssm_dtype = KvDtype::fp16};
  c = plan_capacity(other, in);
  EXPECT_EQ(c.stages.at(0).trtllm_states->slot_bytes, 1600u);
  EXPECT_FALSE(c.stages.at(0).trtllm_states->v2);
  EXPECT_EQ(c.num_gpu_blocks, 125u);
  // With snapshot offsets "auto" stays V2: the C++ manager would stop the engine ("Mamba
  // additional snapshot offsets require use_kv_cache_manager_v2=True").
  in.edit_trtllm().snapshot_offsets_from_end = {0};
  EXPECT_TRUE(plan_capacity(other, in).stages.at(0).trtllm_states->v2);
  in.edit_trtllm().snapshot_offsets_from_end.clear();
  in.edit_trtllm().kv_cache_manager_v2 = false;
  // kv_cache_config.max_tokens 1,000 caps the tokens before the pool counts its snapshot slots:
  // 1,000 // 48 = 20, 1,000 // 32 = 31 blocks.
  in.max_total_tokens = 1000;
  c = plan_capacity(m, in);
  EXPECT_EQ(c.stages.at(0).trtllm_states->attention_tokens, 1000u);
  EXPECT_EQ(c.stages.at(0).trtllm_states->snapshot_slots, 20u);
  EXPECT_EQ(c.num_gpu_blocks, 31u);
  in.max_total_tokens.reset();
  // An interval past max_seq_len (300 > 256) leaves the estimate (995,200 // 128 = 7,775) but
  // not the pool, which still pays 1,600 // 300 = 5 B a token: (1,000,000 − 3,200) // 133 =
  // 7,494 tokens, 234 blocks, 7,494 // 300 = 24 snapshot slots.
  in.edit_trtllm().snapshot_interval = 300;
  c = plan_capacity(m, in);
  EXPECT_EQ(c.stages.at(0).trtllm_states->attention_tokens, 7494u);
  EXPECT_EQ(c.stages.at(0).trtllm_states->snapshot_interval, 300u);
  EXPECT_EQ(c.stages.at(0).trtllm_states->snapshot_slots, 24u);
  EXPECT_EQ(c.num_gpu_blocks, 234u);
  in.edit_trtllm().enable_block_reuse.reset();  // the model's default: off
  c = plan_capacity(m, in);
  EXPECT_EQ(c.stages.at(0).trtllm_states->snapshot_slots, 0u);
  EXPECT_EQ(c.num_gpu_blocks, 242u);
}

// Mamba-2 under TensorRT-LLM: Mamba2Mixer splits n_groups by TP as it is (tp_ngroups = n_groups //
// tp_size,
// tensorrt_llm/_torch/modules/mamba/mamba2_mixer.py@02140fd43556cd6117a5798ba57a2f30603608c1), so
// TP must divide the groups; vLLM replicates them instead. 2 groups of d_state 16, 8 heads of 16:
// at TP 2, conv (128 + 2 · 2 · 16) / 2 = 96 channels · 3 · 2 B = 576 B, ssm 4 · 16 · 16 · 2 B =
// 2,048 B: 2,624 B a layer. TP 4 does not divide 2 groups: refused (vLLM would run 4 replicated).
TEST(TrtllmParity, HybridMamba2GroupsMustSplitByTp) {
  ModelSpec m = layers_of("mamba2-groups", 2, 8, 8, 16);
  m.layers[0] = LayerSpec{AttentionKind::none, 0, true};
  m.recurrent = RecurrentSpec{.kind = MixerKind::mamba2,
                              .d_inner = 128,
                              .d_state = 16,
                              .d_conv = 4,
                              .n_groups = 2,
                              .heads = 8,
                              .head_dim = 16,
                              .conv_dtype = KvDtype::fp16,
                              .ssm_dtype = KvDtype::fp16};
  PlanInput in = trtllm_fp16();
  in.context = 64;
  in.max_num_seqs = 4;
  in.available_kv_bytes = 1 << 20;
  in.tp = 2;
  EXPECT_EQ(plan_capacity(m, in).state_bytes_per_layer, 2624u);
  in.tp = 4;
  try {
    plan_capacity(m, in);
    ADD_FAILURE() << "TP 4 over 2 groups planned";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("TP 4 does not divide them"), std::string::npos)
        << e.what();
  }
  in.engine = Engine::vllm;  // vLLM replicates the groups
  EXPECT_NO_THROW(plan_capacity(m, in));
}

// V2's typical step (MambaHybridCacheManagerV2._build_cache_config: max_batch_size · pp requests
// of avg_seq_len tokens, else max_seq_len / 2, plus the dummies) sets the pools' proportion once
// the budget exceeds it; below it the slots' floor binds. M's fixture, pp 2, max_batch_size 1,
// max_seq_len 128: typical 64 tokens, 2 · 64 · 64 = 8,192 B of attention beside 2,400 B of slots
// per rank. A budget of 105,920 B (ten typical steps): V2's attention share 105,920 · 8,192 /
// 10,592 = 81,920 B = 1,280 tokens = 40 blocks; the C++ manager's (105,920 − 2,400) // 64 = 1,617
// tokens = 50 blocks. avg_seq_len 32: 4,096 / 6,496 of it, 66,786 B = 1,043 tokens = 32 blocks.
TEST(TrtllmParity, HybridV2SplitsByTheTypicalStep) {
  const ModelSpec m = m_fixture();
  PlanInput in = trtllm_fp16();
  in.pp = 2;
  in.context = 128;
  in.max_num_seqs = 1;
  in.available_kv_bytes = 105920;
  auto c = plan_capacity(m, in);
  EXPECT_TRUE(c.stages.at(0).trtllm_states->proportional);
  EXPECT_EQ(c.stages.at(0).trtllm_states->typical_tokens, 64u);
  EXPECT_EQ(c.stages.at(0).trtllm_states->attention_bytes, 81920u);
  EXPECT_EQ(c.num_gpu_blocks, 40u);
  in.edit_trtllm().avg_seq_len = 32;
  EXPECT_EQ(plan_capacity(m, in).num_gpu_blocks, 32u);
  in.edit_trtllm().kv_cache_manager_v2 = false;
  c = plan_capacity(m, in);
  EXPECT_FALSE(c.stages.at(0).trtllm_states->proportional);
  EXPECT_EQ(c.num_gpu_blocks, 50u);
}

// Qwen3-Next-80B-A3B (models/hf/qwen3-next-80b-a3b.json: 48 layers, every 4th full; 32 value heads
// of 128, 16 key heads of 128, conv kernel 4, bf16) at TP 4: conv_dim (32 · 128 + 2 · 16 · 128) / 4
// = 2,048, conv 2,048 · 3 · 2 = 12,288 B, ssm 8 · 128 · 128 · 2 = 262,144 B: 274,432 B a layer, 36
// layers 9,879,552 B a sequence. trtllm-serve's max_batch_size 2048 (BaseLlmArgs, llm_args.py@
// 0004396720054fd8e205cbf616f21f0b57c6b412) holds 2,049 slots = 20,243,202,048 B before any
// attention block: an 18 GiB budget does not start; max_batch_size 256 leaves the rest.
TEST(TrtllmParity, HybridDefaultBatchSlotsCanStopTheStart) {
  const auto m = load_model("qwen3-next-80b-a3b");
  PlanInput in;
  in.engine = Engine::trtllm;
  in.tp = 4;
  in.context = 32768;
  in.available_kv_bytes = 18 * GiB;
  auto c = plan_capacity(m, in);
  const auto& s = *c.stages.at(0).trtllm_states;
  EXPECT_EQ(s.slot_bytes, 9879552u);
  EXPECT_EQ(s.live_slots, 2048u);
  EXPECT_EQ(s.bytes, std::uint64_t{2049} * 9879552);
  EXPECT_FALSE(c.fits_one_request);
  // The plan says so, in the table and the JSON.
  const PlanReport r = make_plan_report(m, std::nullopt, in, {}, false);
  const std::string text = render(r, OutputFormat::table);
  EXPECT_NE(text.find("state slots (TensorRT-LLM MambaHybridCacheManagerV2)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("START FAILS: slots and one attention block short by"), std::string::npos)
      << text;
  const auto j = nlohmann::json::parse(render(r, OutputFormat::json));
  EXPECT_EQ(j["stages"][0]["trtllm_states"]["live_slots"], 2048);
  EXPECT_EQ(j["stages"][0]["trtllm_states"]["manager"], "v2");
  in.max_num_seqs = 256;
  c = plan_capacity(m, in);
  EXPECT_TRUE(c.fits_one_request);
  EXPECT_EQ(c.stages.at(0).trtllm_states->bytes, std::uint64_t{257} * 9879552);
}

// The temporal state's dtype under TensorRT-LLM: the checkpoint's mamba_ssm_cache_dtype, else the
// model dtype (resolve_ssm_cache_dtype); Qwen3.5's mamba_ssm_dtype "float32", which vLLM follows,
// is ignored. Qwen3.5-35B-A3B (32 value heads of 128, 16 key heads of 128, conv kernel 4, bf16),
// TP 1: conv (4,096 + 4,096) · 3 · 2 = 49,152 B; ssm 32 · 128 · 128 · 2 = 1,048,576 B under
// TensorRT-LLM, 2,097,152 B in float32 under vLLM.
TEST(TrtllmParity, HybridStateDtypeIsTheCheckpointsCacheDtypeOrTheModels) {
  const auto m = load_model("qwen3.5-35b-a3b");
  PlanInput in;
  in.context = 4096;
  in.available_kv_bytes = 64 * GiB;
  in.max_num_seqs = 64;
  in.engine = Engine::vllm;
  EXPECT_EQ(plan_capacity(m, in).state_bytes_per_layer, 49152u + 2097152u);
  in.engine = Engine::trtllm;
  EXPECT_EQ(plan_capacity(m, in).state_bytes_per_layer, 49152u + 1048576u);
  // kv_cache_config.mamba_ssm_cache_dtype float32 wins over both.
  in.ssm_state_dtype = KvDtype::fp32;
  EXPECT_EQ(plan_capacity(m, in).state_bytes_per_layer, 49152u + 2097152u);
}

}  // namespace
}  // namespace kvplan
