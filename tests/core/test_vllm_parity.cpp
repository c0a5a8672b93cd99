// vLLM's own KV-cache sizing tests, reproduced. Each case names the vLLM test function, its
// parameters and the file and commit it was read at:
//   T  = tests/v1/core/test_kv_cache_utils.py @ 002f10e0cfa1373a19a0d2756598a34b700d20e5
//   T0 = tests/v1/core/test_kv_cache_utils.py @ eaba533a5e3853c730318c8b5960de4d159a82ed
// The tests' helper spec new_kv_cache_spec(): block 16, 2 KV heads, head 64, float32, so one page
// (one block of one layer) is m = 16 · 2 · 64 · 4 · 2 = 16,384 bytes; VllmConfig's
// max_model_len is 16 unless a case says otherwise. kvplan's inputs: the same layers as a
// ModelSpec, fp32, block 16, the memory as the measured available KV bytes.
#include <gtest/gtest.h>

#include <string>

#include "kvplan/formula.hpp"
#include "kvplan/planner.hpp"

namespace kvplan {
namespace {

constexpr std::uint64_t m = 16384;  // page of new_kv_cache_spec()

// `full` full-attention layers then `sliding` sliding ones (window W), the helper's geometry.
ModelSpec layers(std::uint32_t full, std::uint32_t sliding = 0, std::uint64_t window = 1,
                 std::uint32_t heads = 2, std::uint32_t head = 64) {
  ModelSpec s;
  s.id = "vllm-test";
  for (std::uint32_t i = 0; i < full; ++i) s.layers.push_back({AttentionKind::full, 0});
  for (std::uint32_t i = 0; i < sliding; ++i) s.layers.push_back({AttentionKind::sliding, window});
  s.num_q_heads = heads;
  s.num_kv_heads = heads;
  s.head_dim_k = s.head_dim_v = head;
  s.num_params = 1;
  return s;
}

PlanInput input(std::uint64_t memory, std::uint64_t max_model_len, const char* dtype = "fp32") {
  PlanInput in;
  in.engine = Engine::vllm;
  in.format = parse_kv_format(dtype);
  in.block_size = 16;
  in.context = max_model_len;
  in.available_kv_bytes = memory;
  return in;
}

// test_get_kv_cache_config_one_worker (T and T0): num_blocks and groups.
TEST(VllmParity, GetKvCacheConfigOneWorker) {
  struct Case {
    const char* what;
    std::uint32_t full, sliding;
    std::uint64_t memory;
    std::uint64_t num_blocks;
    std::uint32_t group_size, groups;
  } cases[] = {
      {"2 full", 2, 0, m * 2 * 32, 32, 2, 1},
      {"2 sliding", 0, 2, m * 2 * 32, 32, 2, 1},
      {"1 full + 1 sliding: groups of 1 (1 < 1.5 · 1)", 1, 1, m * 2 * 32, 64, 1, 2},
      {"2 full + 4 sliding: 4 >= 1.5 · 2, group size 2", 2, 4, m * 2 * 32, 32, 2, 3},
      {"3 full + 7 sliding: group size 3, 2 padding layers", 3, 7, m * 3 * 32, 32, 3, 4},
      {"6 full + 5 sliding: 6 < 1.5 · 5, group size 6 (gpt-oss + EAGLE)", 6, 5, m * 6 * 32, 32, 6,
       2},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const auto cap = plan_capacity(layers(c.full, c.sliding), input(c.memory, 16));
    EXPECT_EQ(cap.page_bytes, m);
    EXPECT_EQ(cap.num_gpu_blocks, c.num_blocks);
    EXPECT_EQ(cap.stages[0].group_size, c.group_size);
    EXPECT_EQ(cap.stages[0].kv_cache_groups, c.groups);
  }
}

// Same test, the 1 full + 1 sliding case with disable_hybrid_kv_cache_manager=True: one group
// of FullAttentionSpec layers, 32 blocks; and num_gpu_blocks_override=16 on 2 full layers.
TEST(VllmParity, DisabledHybridManagerAndOverride) {
  auto in = input(m * 2 * 32, 16);
  in.disable_hybrid_kv_cache_manager = true;
  const auto c = plan_capacity(layers(1, 1), in);
  EXPECT_EQ(c.num_gpu_blocks, 32u);
  EXPECT_EQ(c.stages[0].kv_cache_groups, 1u);
  auto o = input(m * 2 * 32, 16);
  o.num_gpu_blocks_override = 16;
  EXPECT_EQ(plan_capacity(layers(2), o).num_gpu_blocks, 16u);
}

// vLLM 0.9 (kv_cache_utils.py @ bbf906a, _get_kv_cache_config_uniform_page_size) took the
// fewest layers always: 6 full + 5 sliding in groups of 5 → 2 + 1 groups.
TEST(VllmParity, OlderRulesGroupByTheFewest) {
  auto in = input(m * 5 * 32, 16);
  in.vllm_rules = VllmRules::v0_9;
  const auto c = plan_capacity(layers(6, 5), in);
  EXPECT_EQ(c.stages[0].group_size, 5u);
  EXPECT_EQ(c.stages[0].kv_cache_groups, 3u);
  EXPECT_EQ(c.num_gpu_blocks, 32u);
}

// test_get_kv_cache_configs_multiple_workers (T, T0): PP stages take the minimum block count.
TEST(VllmParity, PipelineStagesTakeTheMinimum) {
  auto in = input(m * 2 * 10, 16);
  in.pp = 2;
  // 3 layers over 2 stages: one stage holds 2 layers (m·2·10 // m // 2 = 10), the other 1 (20).
  EXPECT_EQ(plan_capacity(layers(3), in).num_gpu_blocks, 10u);
}

// test_get_kv_cache_configs_pp_sharding (T): max_model_len 512 needs 512 // 16 = 32 blocks plus
// the null block: 33 blocks per worker suffice.
TEST(VllmParity, PpShardingNeedsTheNullBlock) {
  auto in = input(m * 33, 512);
  in.pp = 2;
  const auto c = plan_capacity(layers(2), in);
  EXPECT_EQ(c.num_gpu_blocks, 33u);
  EXPECT_TRUE(c.fits_one_request);
}

// test_kv_cache_reserves_null_block_for_max_model_len[use_override=False] and
// test_check_enough_kv_cache_memory_reserves_null_block (T): one full layer, max_model_len 512:
// 32 blocks are refused ("max seq len"), 33 are accepted. vLLM 0.9 accepted 32.
TEST(VllmParity, StartupCheckReservesTheNullBlock) {
  EXPECT_FALSE(plan_capacity(layers(1), input(m * 32, 512)).fits_one_request);
  EXPECT_TRUE(plan_capacity(layers(1), input(m * 33, 512)).fits_one_request);
  auto old = input(m * 32, 512);
  old.vllm_rules = VllmRules::v0_9;
  EXPECT_TRUE(plan_capacity(layers(1), old).fits_one_request);
  // [use_override=True]: num_gpu_blocks_override 32 over memory for 1024 blocks: refused too.
  auto o = input(m * 1024, 512);
  o.num_gpu_blocks_override = 32;
  EXPECT_FALSE(plan_capacity(layers(1), o).fits_one_request);
}

// test_auto_fit_max_model_len_reserves_null_block (T): one layer, memory for 64 blocks, auto-fit
// from 1024 → 63 · 16 = 1008. test_auto_fit_max_model_len (T): 2 layers, m·2·32 → 31 · 16 = 496
// (vLLM 0.9 without the reservation: 512).
TEST(VllmParity, AutoFitReservesTheNullBlock) {
  EXPECT_EQ(plan_capacity(layers(1), input(m * 64, 1024)).estimated_max_model_len, 1008u);
  EXPECT_EQ(plan_capacity(layers(2), input(m * 2 * 32, 1024)).estimated_max_model_len, 496u);
  auto old = input(m * 2 * 32, 1024);
  old.vllm_rules = VllmRules::v0_9;
  EXPECT_EQ(plan_capacity(layers(2), old).estimated_max_model_len, 512u);
  // m·2·1024 holds 1024 tokens in either.
  EXPECT_TRUE(plan_capacity(layers(2), input(m * 2 * 1024, 1024)).fits_one_request);
}

// test_get_max_concurrency_for_kv_cache_config (T, T0): max_model_len 16384,
// max_num_batched_tokens 1024; full = FullAttentionSpec(16, 32 heads, 128, fp16), sliding the
// same with window 1024. A sliding layer costs cdiv(min(1023 + 1024, 16384), 16) + 1 = 129 blocks,
// a full one cdiv(16384, 16) = 1024.
TEST(VllmParity, MaxConcurrencyForKvCacheConfig) {
  const std::uint64_t page = 16ull * 32 * 256 * 2;  // 262,144
  auto run = [&](std::uint32_t full, std::uint32_t sliding, std::uint64_t blocks) {
    auto in = input(page * 64 * blocks, 16384, "fp16");
    in.max_num_batched_tokens = 1024;
    in.num_gpu_blocks_override = blocks;
    return plan_capacity(layers(full, sliding, 1024, 32, 128), in);
  };
  EXPECT_DOUBLE_EQ(run(32, 0, 1536).max_concurrency, 1.5);  // int(1024 · 1.5) blocks
  EXPECT_DOUBLE_EQ(run(0, 32, 129 * 3).max_concurrency, 3.0);
  const auto hybrid = run(32, 32, (1024 + 129) * 3);
  EXPECT_DOUBLE_EQ(hybrid.max_concurrency, 3.0);
  // get_kv_cache_capacity == (3 · 16384, 3.0): "GPU KV cache size" = int(3.0 · 16384) tokens
  EXPECT_EQ(hybrid.kv_cache_tokens, 3u * 16384);
  // vLLM 0.9 logged num_blocks // groups · block_size = 3459 // 2 · 16 = 27,664 for the same pool
  auto old = input(page * 64 * 3459, 16384, "fp16");
  old.max_num_batched_tokens = 1024;
  old.num_gpu_blocks_override = 3459;
  old.vllm_rules = VllmRules::v0_9;
  EXPECT_EQ(plan_capacity(layers(32, 32, 1024, 32, 128), old).kv_cache_tokens, 3459u / 2 * 16);
}

// test_estimate_max_model_len (T, T0): Qwen1.5-7B's 32 layers of FullAttentionSpec(16, 32
// heads, 128, fp16) = 512 KiB per token; 8 GiB hold 16,384 tokens by the public
// estimate_max_model_len, which keeps no null block. kvplan's per-token cost agrees.
TEST(VllmParity, EstimateMaxModelLenBytesPerToken) {
  const auto k = kv_cost(layers(32, 0, 1, 32, 128), KvCostInput{.context = 16384});
  EXPECT_EQ(k.bytes_per_token, 512u * 1024);
  EXPECT_EQ(k.bytes_per_request, 8ull << 30);
}

}  // namespace
}  // namespace kvplan
