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

}  // namespace
}  // namespace kvplan
