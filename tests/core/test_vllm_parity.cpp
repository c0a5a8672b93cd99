// vLLM's own KV-cache sizing tests, reproduced. Each case names the vLLM test function, its
// parameters and the file and commit it was read at:
//   T  = tests/v1/core/test_kv_cache_utils.py @ 002f10e0cfa1373a19a0d2756598a34b700d20e5
//   T0 = tests/v1/core/test_kv_cache_utils.py @ eaba533a5e3853c730318c8b5960de4d159a82ed
//   R  = tests/v1/worker/test_gpu_model_runner.py @ 430ad79ff1258547de989520af07dba5f992f7c3
// The tests' helper spec new_kv_cache_spec(): block 16, 2 KV heads, head 64, float32, so one page
// (one block of one layer) is m = 16 · 2 · 64 · 4 · 2 = 16,384 bytes; VllmConfig's
// max_model_len is 16 unless a case says otherwise. kvplan's inputs: the same layers as a
// ModelSpec, fp32, block 16, the memory as the measured available KV bytes.
//
// Inventory of T (every test function with a concrete sizing number → its TEST here):
//   test_get_kv_cache_config_one_worker        GetKvCacheConfigOneWorker (uniform and hybrid
//                                              groups), DisabledHybridManagerAndOverride,
//                                              OneWorkerLayersOfOtherGeometry (head 128 + 64,
//                                              block 32 alignment, padding to 24576: 42 blocks)
//   test_get_kv_cache_configs_multiple_workers PipelineStagesTakeTheMinimum,
//                                              PipelineStagesOfHybridLayers, and the TP case
//                                              with unequal memory per rank
//                                              RanksOfUnequalMemoryTakeTheLeast (a figure a
//                                              rank: available_kv_bytes_per_rank)
//   test_get_kv_cache_configs_pp_sharding      PpShardingNeedsTheNullBlock [symmetric],
//                                              PpShardingAsymmetricMemory [asymmetric];
//                                              by hand: EachStageBySelfThenTheFewestBlocks
//   test_kv_cache_reserves_null_block_for_max_model_len[True, False],
//   test_check_enough_kv_cache_memory_reserves_null_block    StartupCheckReservesTheNullBlock
//   test_auto_fit_max_model_len, test_auto_fit_max_model_len_reserves_null_block
//                                              AutoFitReservesTheNullBlock
//   test_auto_fit_max_model_len_with_hybrid    AutoFitWithMambaAndSpeculativeBlocks
//   test_auto_fit_max_model_len_respects_num_gpu_blocks_override,
//   test_check_enough_kv_cache_memory_respects_num_gpu_blocks_override
//                                              OverrideBoundsStartupAndAutoFit
//   test_auto_fit_max_model_len_not_triggered  nothing to reproduce: kvplan never changes the
//                                              context it is given (it reports the estimate)
//   test_get_max_concurrency_for_kv_cache_config  MaxConcurrencyForKvCacheConfig; its
//                                              hand-built KVCacheConfigs (32 full layers in one
//                                              group beside a 2-layer sliding group, a
//                                              4-layer UniformTypeKVCacheSpecs group) are not
//                                              layouts vLLM's grouping makes from a model, and
//                                              kvplan derives groups from the layers
//   test_estimate_max_model_len[16385, 16383]  EstimateMaxModelLenBytesPerToken,
//                                              EstimateMaxModelLenCapsAtMaxModelLen
//   test_generate_uniform_type_kv_cache_specs  SlidingLayersOfOneWindowMergeAcrossHeadSizes (and
//                                              the full + full(128) case in OneWorker...); the
//                                              different-block-size case has per-layer block
//                                              sizes, which kvplan has not
//   test_unify_kv_cache_page_size_uses_padding_for_non_divisible_sizes
//                                              NonDivisiblePagesArePadded
//   test_unify_kv_cache_spec_page_size_mamba   UnifyPageSizeWithMamba (cases 1, 2, 3, 5; case 4
//                                              is a layer with its own block size 24)
//   test_unify_hybrid_kv_cache_specs           case 4: DisabledHybridManagerNeedsOneUnifiedType;
//                                              cases 1-3 start from specs with their own block
//                                              sizes and page_size_padded set by hand (not a
//                                              model's); the conversion itself (one group) is in
//                                              DisabledHybridManagerAndOverride
//   test_unpadded_page_size_includes_per_token_head_scales  PerTokenHeadScalesInThePage
//   test_page_size_padded_wins                 not expressible: a page padded by hand
//   test_allocate_with_lookahead               LookaheadTokensTakeBlocks (the simulator's pool)
//   test_effective_attention_block_size_matches_events[1, 4],
//   test_dcp_world_size_for_kv_cache_spec_shards_full_attention_only,
//   test_uniform_type_spec_block_table_width_matches_layer_spec[mla-1, mla-2, mamba-2],
//   test_resolve_dcp_kv_block_size_unwraps_uniform_type_specs   DecodeContextParallelism
//   test_get_kv_cache_configs_attention_free   AttentionFreeModelTakesOneBlock (a model file
//                                              says "attention": {"type": "none"})
//   GLM-5.3-Flash's slot sharing (Glm5NextForConditionalGeneration, vllm-project/vllm#53906,
//   _get_kv_cache_groups_glm5_next; a model file's "mla": {"index_kpool", "index_tail"}):
//   test_get_kv_cache_config_balanced_mamba_hybrid, ..._mamba_hybrid_sharing_prepadded_mamba
//   (its padding is overwritten: the same figures) and
//   test_get_kv_cache_capacity_after_scheduler_unwrap (concurrency 5.0)
//                                              GlmNextMambaGroupsShareTheMlaSlots
//   test_get_kv_cache_config_kpool_tail_coowns_indexer_tensor
//                                              GlmNextKpoolTailCoownsTheIndexerSlot
//   ..._sharing_pp_balanced_projection         GlmNextPipelineStageProjectsItsSlots
//   ..._sharing_pp_group_count_bump            GlmNextStageWithFewMlaLayersRaisesTheGroups
//   ..._sharing_pp_starved_stage               GlmNextStageWithoutMlaLayersIsRefused (PP 15
//                                              starves the same first stage; kvplan reads no
//                                              VLLM_PP_LAYER_PARTITION)
//   ..._sharing_no_indexer                     MlaBesideMambaWithoutIndexerGroupsGenerically
//   ..._sharing_infeasible (a 2 MiB state beside a 1024-token MLA page fixed by hand): test-side;
//   from a model, the hybrid alignment grows the block until the latent holds the state (2048
//   here), so the error cannot arise. ..._sharing_infeasible_no_indexer: the same hand-fixed
//   block on the generic path. ..._sharing_beats_cross_layers_flag: a KV-connector layout flag
//   with no effect on the sizes (the balanced figures). test_glm5_kpool_tail_does_not_drag_hash_
//   block_size: the prefix-cache hash granularity, not a size.
//   Hidden-state caches (vLLM's extract_hidden_states; VllmOptions::extract_hidden_states):
//   test_hidden_state_group_preserves_hybrid_prefix_cache_granularity
//                                              HiddenStateGroupTakesTheLargestBlockThatFits
//   test_hidden_states_with_tp_scales_page_size HiddenStatesJoinADenseModelsOneGroup (its specs
//                                              form one group, so the test as written asserts
//                                              nothing); _ensure_min_page_size by hand:
//                                              HiddenStatesWiderThanThePageGrowEveryBlock
//   Not expressible: HiSparse (test_hisparse_hma_uses_resolved_gpu_block_size), sliding-window MLA
//   and indexer mixes (test_mixed_page_size_groups_use_spec_compatibility,
//   test_mla_draft_prefers_standard_layout_when_pages_can_be_unified,
//   test_mla_with_incompatible_swa_uses_one_full_allocation_group) and tensor strides
//   (test_multi_run_layer_compact_strides_place_hoisted_heads): host-resident pools,
//   SlidingWindowMLASpec and stride layouts kvplan does not model.
//   test_hybrid_group_size_override_preserves_spec_compatibility (cache_config.attn_group_size,
//   --attn-group-size)                         AttnGroupSizeOverridesTheHeuristic
//   No sizing numbers (hashing, free-block queues, metrics, spec algebra, group projection,
//   events, prefix-cache groups): test_none_hash*, test_get_none_hash_seed_*, test_kv_cache_block*,
//   test_free_kv_cache_block_queue_*, test_generate_block_hash_extra_keys*, test_hash_*,
//   test_request_block_hasher*, test_request_with_prompt_embeds_and_mm_inputs, test_metrics*,
//   test_kv_cache_config_selects_*, test_kv_cache_blocks_selects_requested_groups,
//   test_project_kv_cache_groups_to_worker, test_merge_kv_cache_spec, test_merge_mla_spec,
//   test_is_kv_cache_spec_uniform, test_generate_scheduler_kv_cache_config,
//   test_get_kv_cache_spec_kind_*, test_get_kv_cache_spec_sliding_window_*,
//   test_is_full_attention_spec_*, test_iter_layer_specs_*, test_wrapped_mamba_group_*,
//   test_hisparse_rejects_deepseek_v4, test_hma_not_disabled_when_kv_events_enabled,
//   test_resolve_block_hashes_*, the draft-group annotation tests (test_draft_group_*,
//   test_mamba_groups_never_flagged_*, test_unidentifiable_draft_*, test_no_warning_*,
//   test_deepseek_v4_draft_group_*).
// R: test_init_kv_cache_without_kv_sharing, test_init_kv_cache_with_kv_sharing_valid →
//   KvSharingLayersHoldNoCache; test_hybrid_attention_mamba_tensor_shapes checks that tensor
//   views do not overlap (strides, no size asserted) and test_hybrid_block_table_initialization
//   / test_input_batch_with_kernel_block_sizes map manager blocks to kernel blocks: not sizing.
// Also read: tests/v1/core/test_kv_cache_dcp_hybrid.py @ 401548263b65e1ea3c2e87b6428bc5e00c2d9dbd
//   expects sliding layers to run under DCP unsplit (scheduler block lcm(16 · dcp, 16)), while
//   vllm/v1/kv_cache_interface.py @ 001cabc1 and @ bc8282e6 assert "DCP not support sliding
//   window" in SlidingWindowSpec.max_memory_usage_bytes; kvplan follows the assert (refuses).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "kvplan/error.hpp"
#include "kvplan/formula.hpp"
#include "kvplan/kv_pool.hpp"
#include "kvplan/model.hpp"
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

// A layer of `kind` with its own geometry (LayerSpec::kv_heads / head dims), as the tests'
// new_kv_cache_spec(num_kv_heads=..., head_size=...) layers.
LayerSpec own(AttentionKind kind, std::uint32_t heads, std::uint32_t head,
              std::uint64_t window = 0) {
  return {
      .kind = kind, .window = window, .kv_heads = heads, .head_dim_k = head, .head_dim_v = head};
}

// A recurrent layer whose state is MambaSpec(shapes, dtypes float32): conv and ssm elements.
// new_mamba_spec(): shapes ((2, 512), (3, 32, 32)) = 1024 + 3072 elements, 16384 bytes.
ModelSpec with_mamba(ModelSpec s, std::uint64_t conv = 2 * 512, std::uint64_t ssm = 3 * 32 * 32) {
  s.recurrent.kind = MixerKind::shapes;
  s.recurrent.conv_elements = conv;
  s.recurrent.ssm_elements = ssm;
  s.recurrent.conv_dtype = s.recurrent.ssm_dtype = KvDtype::fp32;
  s.layers.insert(s.layers.begin(), {.kind = AttentionKind::none, .recurrent = true});
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
  in.edit_vllm().disable_hybrid_kv_cache_manager = true;
  const auto c = plan_capacity(layers(1, 1), in);
  EXPECT_EQ(c.num_gpu_blocks, 32u);
  EXPECT_EQ(c.stages[0].kv_cache_groups, 1u);
  auto o = input(m * 2 * 32, 16);
  o.edit_vllm().num_gpu_blocks_override = 16;
  EXPECT_EQ(plan_capacity(layers(2), o).num_gpu_blocks, 16u);
}

// vLLM 0.9 (kv_cache_utils.py @ bbf906a, _get_kv_cache_config_uniform_page_size) took the
// fewest layers always: 6 full + 5 sliding in groups of 5 → 2 + 1 groups.
TEST(VllmParity, OlderRulesGroupByTheFewest) {
  auto in = input(m * 5 * 32, 16);
  in.edit_vllm().rules = VllmRules::v0_9;
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

// test_get_kv_cache_configs_multiple_workers (T), "Different available memory. This is the case
// for TP. Use the smallest memory available.": two workers with the same two layers and
// m·2·10 and m·2·20 bytes get 10 blocks each. kvplan's TP shards heads, so 4 heads at TP 2 are
// the test's 2 a worker (page m).
TEST(VllmParity, RanksOfUnequalMemoryTakeTheLeast) {
  auto in = input(0, 16);
  in.tp = 2;
  in.available_kv_bytes_per_rank = {m * 2 * 10, m * 2 * 20};
  in.available_kv_bytes = m * 2 * 10;  // the least, as the request and file readers set it
  EXPECT_EQ(plan_capacity(layers(2, 0, 1, 4), in).num_gpu_blocks, 10u);
}

// test_get_kv_cache_configs_pp_sharding[asymmetric] (T): one layer a stage, max_model_len 512,
// memory m·33 and m·66: each worker is checked against its own layers and memory, and both
// get 33 blocks (512 // 16 = 32 plus the null block), enough for one request.
TEST(VllmParity, PpShardingAsymmetricMemory) {
  auto in = input(m * 33, 512);
  in.pp = 2;
  in.available_kv_bytes_per_rank = {m * 33, m * 66};
  const auto c = plan_capacity(layers(2), in);
  EXPECT_EQ(c.num_gpu_blocks, 33u);
  EXPECT_TRUE(c.fits_one_request);
}

// Each worker by its own memory and layers (get_kv_cache_configs), by hand: 3 layers over 2
// stages are 2 + 1 (get_pp_indices). Stage memory m·2·10 and m·10: 20m / 2m = 10 and
// 10m / m = 10 blocks, so 10 (one figure, the least m·10, would give the 2-layer stage 5).
// Swapped, m·10 and m·2·10: 10m / 2m = 5 and 20m / m = 20, so 5. A list that is not one figure
// a rank is refused, naming the field.
TEST(VllmParity, EachStageBySelfThenTheFewestBlocks) {
  auto in = input(m * 10, 16);
  in.pp = 2;
  in.available_kv_bytes_per_rank = {m * 2 * 10, m * 10};
  EXPECT_EQ(plan_capacity(layers(3), in).num_gpu_blocks, 10u);
  in.available_kv_bytes_per_rank = {m * 10, m * 2 * 10};
  EXPECT_EQ(plan_capacity(layers(3), in).num_gpu_blocks, 5u);
  in.available_kv_bytes_per_rank = {m * 10, m * 10, m * 10};
  try {
    plan_capacity(layers(3), in, "t.json");
    ADD_FAILURE() << "3 figures for 2 ranks were accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("available_kv_gib"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("3 figures for 1 x 2 ranks"), std::string::npos)
        << e.what();
  }
}

// test_kv_cache_reserves_null_block_for_max_model_len[use_override=False] and
// test_check_enough_kv_cache_memory_reserves_null_block (T): one full layer, max_model_len 512:
// 32 blocks are refused ("max seq len"), 33 are accepted. vLLM 0.9 accepted 32.
TEST(VllmParity, StartupCheckReservesTheNullBlock) {
  EXPECT_FALSE(plan_capacity(layers(1), input(m * 32, 512)).fits_one_request);
  EXPECT_TRUE(plan_capacity(layers(1), input(m * 33, 512)).fits_one_request);
  auto old = input(m * 32, 512);
  old.edit_vllm().rules = VllmRules::v0_9;
  EXPECT_TRUE(plan_capacity(layers(1), old).fits_one_request);
  // [use_override=True]: num_gpu_blocks_override 32 over memory for 1024 blocks: refused too.
  auto o = input(m * 1024, 512);
  o.edit_vllm().num_gpu_blocks_override = 32;
  EXPECT_FALSE(plan_capacity(layers(1), o).fits_one_request);
}

// test_auto_fit_max_model_len_reserves_null_block (T): one layer, memory for 64 blocks, auto-fit
// from 1024 → 63 · 16 = 1008. test_auto_fit_max_model_len (T): 2 layers, m·2·32 → 31 · 16 = 496
// (vLLM 0.9 without the reservation: 512).
TEST(VllmParity, AutoFitReservesTheNullBlock) {
  EXPECT_EQ(plan_capacity(layers(1), input(m * 64, 1024)).estimated_max_model_len, 1008u);
  EXPECT_EQ(plan_capacity(layers(2), input(m * 2 * 32, 1024)).estimated_max_model_len, 496u);
  auto old = input(m * 2 * 32, 1024);
  old.edit_vllm().rules = VllmRules::v0_9;
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
    in.edit_vllm().num_gpu_blocks_override = blocks;
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
  old.edit_vllm().num_gpu_blocks_override = 3459;
  old.edit_vllm().rules = VllmRules::v0_9;
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

// test_get_kv_cache_config_one_worker (T), the per-layer geometry cases; every page by
// new_kv_cache_spec's 16 · heads · (head + head) · 4 bytes:
//   "different hidden size but same type, use UniformTypeKVCacheSpecs": full head 128 (2m) +
//     full head 64 (m), memory m·3·32: one group whose block costs 3m → 3m·32 // 3m = 32 blocks;
//   "Different hidden size and different type, align by different block size": full head 64 (m)
//     + sliding head 32 (m/2), memory m·32: m % (m/2) == 0, so the sliding layer takes blocks of
//     32 tokens (page m); groups of 1 → 32 blocks;
//   "different hidden size that cannot be aligned by using different block size": full head 64
//     (16384) + sliding head 96 (24576): 24576 % 16384 != 0, the full page is padded to 24576;
//     memory m·2·32 = 1,048,576 // 24576 = 42 blocks.
TEST(VllmParity, OneWorkerLayersOfOtherGeometry) {
  ModelSpec uniform = layers(0);
  uniform.layers = {own(AttentionKind::full, 2, 128), {AttentionKind::full, 0}};
  const auto u = plan_capacity(uniform, input(m * 3 * 32, 16));
  EXPECT_EQ(u.page_bytes, 3 * m);
  EXPECT_EQ(u.num_gpu_blocks, 32u);
  EXPECT_EQ(u.stages[0].kv_cache_groups, 1u);

  ModelSpec aligned = layers(1);
  aligned.layers.push_back(own(AttentionKind::sliding, 2, 32, 1));
  auto in = input(m * 32, 48);
  const auto a = plan_capacity(aligned, in);
  EXPECT_EQ(a.page_bytes, m);
  EXPECT_EQ(a.num_gpu_blocks, 32u);
  EXPECT_EQ(a.stages[0].kv_cache_groups, 2u);
  // max_model_len 48 (the test's 16 shows no block size): full cdiv(48, 16) = 3 pages, sliding
  // (window 1) cdiv(min(0 + 8192, 48), 32) + 1 = 3 pages of 32 tokens (SlidingWindowSpec).
  EXPECT_EQ(a.blocks_per_request, 3u + 3u);

  ModelSpec padded = layers(1);
  padded.layers.push_back(own(AttentionKind::sliding, 2, 96, 1));
  const auto p = plan_capacity(padded, input(m * 2 * 32, 16));
  EXPECT_EQ(p.page_bytes, 24576u);
  EXPECT_EQ(p.num_gpu_blocks, 42u);
}

// test_generate_uniform_type_kv_cache_specs (T): two sliding layers of one window, heads 64 and
// 128, merge into one UniformTypeKVCacheSpecs group (pages m + 2m); full + sliding do not.
TEST(VllmParity, SlidingLayersOfOneWindowMergeAcrossHeadSizes) {
  ModelSpec s = layers(0, 1, 1);
  s.layers.push_back(own(AttentionKind::sliding, 2, 128, 1));
  const auto c = plan_capacity(s, input(m * 3 * 32, 16));
  EXPECT_EQ(c.stages[0].kv_cache_groups, 1u);
  EXPECT_EQ(c.page_bytes, 3 * m);
  EXPECT_EQ(c.num_gpu_blocks, 32u);
}

// test_unify_kv_cache_page_size_uses_padding_for_non_divisible_sizes (T): target full attention
// 1 head × 192 bf16 (16 · 384 · 2 = 12288) and a DFlash draft sliding layer 1 head × 128, window
// 1024 (16 · 256 · 2 = 8192): 12288 % 8192 != 0, so the draft's page is padded to 12288 and its
// block stays 16. At max_model_len 16384 and 1024 batched tokens: full 1024 pages, sliding
// cdiv(1023 + 1024, 16) + 1 = 129 (with blocks of 32 it would be 65). vLLM's test sets no opt-in
// flag: at 002f10e0 unify_kv_cache_spec_page_size pads every non-MLA AttentionSpec whose page does
// not divide the largest (vllm/v1/core/kv_cache_utils.py @ 002f10e0, "Padding is only supported
// for non-MLA attention layers"), as here.
TEST(VllmParity, NonDivisiblePagesArePadded) {
  ModelSpec s = layers(1, 0, 1, 1, 192);
  s.layers.push_back(own(AttentionKind::sliding, 1, 128, 1024));
  auto in = input(12288 * 2 * 100, 16384, "bf16");
  in.max_num_batched_tokens = 1024;
  const auto c = plan_capacity(s, in);
  EXPECT_EQ(c.page_bytes, 12288u);
  EXPECT_EQ(c.blocks_per_request, 1024u + 129u);
}

// test_unify_kv_cache_spec_page_size_mamba (T, vllm-project/vllm#43626), each case's expected page:
//   1. Mamba (new_mamba_spec, 16384) + main attention (2 heads, 16384) + draft attention (4 heads,
//      32768): the Mamba page is padded to 32768, the main attention takes blocks of 32 tokens,
//      the draft stays. At max_model_len 48: main cdiv(48, 32) = 2, draft cdiv(48, 16) = 3, Mamba
//      1 + 2 speculative blocks = 3 pages.
//   2. Mamba shapes ((2, 256), (3, 32, 32)) = 14336 bytes + the draft: padded to 32768.
//   3. Mamba shapes ((6144,),) = 24576 bytes (no divisor of 32768) + the draft: 32768.
//   5. Mamba 16384 + attention 16384: unchanged.
// (Case 4, an attention layer of block size 24, has a block size of its own: not expressible.)
TEST(VllmParity, UnifyPageSizeWithMamba) {
  ModelSpec one = with_mamba(layers(1, 0, 1, 4, 64));
  one.num_kv_heads = 2;
  one.layers.push_back(own(AttentionKind::full, 4, 64));
  auto in = input(32768 * 3 * 100, 48);
  in.edit_vllm().num_speculative_tokens = 2;  // new_mamba_spec(num_speculative_blocks=2)
  const auto c1 = plan_capacity(one, in);
  EXPECT_EQ(c1.page_bytes, 32768u);
  EXPECT_EQ(c1.block_size, 16u);
  EXPECT_EQ(c1.blocks_per_request, 2u + 3u + 3u);

  const auto draft_only = [](std::uint64_t conv, std::uint64_t ssm) {
    return with_mamba(layers(1, 0, 1, 4, 64), conv, ssm);
  };
  EXPECT_EQ(plan_capacity(draft_only(2 * 256, 3 * 32 * 32), input(32768 * 100, 16)).page_bytes,
            32768u);
  EXPECT_EQ(plan_capacity(draft_only(0, 6144), input(32768 * 100, 16)).page_bytes, 32768u);
  const auto same = plan_capacity(with_mamba(layers(1)), input(m * 100, 16));
  EXPECT_EQ(same.page_bytes, m);
  EXPECT_EQ(same.block_size, 16u);
}

// test_auto_fit_max_model_len_with_hybrid (T): new_mamba_spec(num_speculative_blocks=2) + one
// full layer, both pages m; memory m · (1024 // 16 + 1 + 2 + 1) = 68 blocks; auto-fit from 8192
// settles on 1024: cdiv(1024, 16) + (1 + 2) = 67 blocks = 68 − the null block.
TEST(VllmParity, AutoFitWithMambaAndSpeculativeBlocks) {
  auto in = input(m * (1024 / 16 + 1 + 2 + 1), 8192);
  in.edit_vllm().num_speculative_tokens = 2;
  const auto c = plan_capacity(with_mamba(layers(1)), in);
  EXPECT_EQ(c.num_gpu_blocks, 68u);
  EXPECT_EQ(c.estimated_max_model_len, 1024u);
  EXPECT_FALSE(c.fits_one_request);  // 8192 itself does not
}

// test_estimate_max_model_len[16385-16384] and [16383-16383] (T): Qwen1.5-7B's 32 layers of
// FullAttentionSpec(16, 32 heads, 128, fp16) in 8 GiB: 1024 blocks of 32 pages, 16,384 tokens,
// capped at max_model_len. The public estimate_max_model_len holds no null block back, which is
// the vllm@0.9 rule of kvplan's estimate; the current auto-fit keeps one: 1023 · 16 = 16,368.
TEST(VllmParity, EstimateMaxModelLenCapsAtMaxModelLen) {
  for (const auto& [max_model_len, want] :
       {std::pair<std::uint64_t, std::uint64_t>{16385, 16384}, {16383, 16383}}) {
    auto in = input(8ull << 30, max_model_len, "fp16");
    in.edit_vllm().rules = VllmRules::v0_9;
    EXPECT_EQ(plan_capacity(layers(32, 0, 1, 32, 128), in).estimated_max_model_len, want);
  }
  EXPECT_EQ(plan_capacity(layers(32, 0, 1, 32, 128), input(8ull << 30, 16385, "fp16"))
                .estimated_max_model_len,
            1023u * 16);
}

// test_auto_fit_max_model_len_respects_num_gpu_blocks_override and
// test_check_enough_kv_cache_memory_respects_num_gpu_blocks_override (T): 2 layers, memory for
// 1024 blocks, override 32, max_model_len 16384: refused at startup; the auto-fit lands in
// (0, 32 · 16] (kvplan: 31 usable blocks · 16 = 496).
// test_get_kv_cache_configs_attention_free (T): no layer spec, available memory 0, max_model_len
// 16 -> KVCacheConfig(num_blocks=1, kv_cache_tensors=[], kv_cache_groups=[]). kvplan's form of
// an empty spec is a model declared attention-free, every layer without a cache: one block, no
// page, no bytes, nothing a request needs (check_enough_kv_cache_memory returns at once for an
// empty spec, so the start holds even at 0 bytes), and num_gpu_blocks_override is not read
// (get_kv_cache_config_from_groups returns before it).
TEST(VllmParity, AttentionFreeModelTakesOneBlock) {
  ModelSpec s = layers(0);
  s.layers.assign(2, LayerSpec{.kind = AttentionKind::none});
  s.attention_free = true;
  auto in = input(0, 16);
  in.max_num_seqs = 256;
  const auto c = plan_capacity(s, in);
  EXPECT_TRUE(c.attention_free);
  EXPECT_EQ(c.num_gpu_blocks, 1u);
  EXPECT_EQ(c.page_bytes, 0u);
  EXPECT_EQ(c.bytes_per_request, 0u);
  EXPECT_EQ(c.blocks_per_request, 0u);
  EXPECT_EQ(c.kv_cache_tokens, 0u);
  EXPECT_EQ(c.stages[0].kv_cache_groups, 0u);
  EXPECT_TRUE(c.fits_one_request);
  EXPECT_EQ(c.max_requests_per_replica, 256u);  // max_num_seqs, the only bound left
  in.edit_vllm().num_gpu_blocks_override = 16;
  EXPECT_EQ(plan_capacity(s, in).num_gpu_blocks, 1u);
  // The same layers undeclared are refused: a config read as caching nothing is more often a
  // misreading than an attention-free model.
  s.attention_free = false;
  EXPECT_THROW(plan_capacity(s, in), Error);
}

TEST(VllmParity, OverrideBoundsStartupAndAutoFit) {
  auto in = input(m * 2 * 1024, 16384);
  in.edit_vllm().num_gpu_blocks_override = 32;
  const auto c = plan_capacity(layers(2), in);
  EXPECT_FALSE(c.fits_one_request);
  EXPECT_GT(c.estimated_max_model_len, 0u);
  EXPECT_LE(c.estimated_max_model_len, 32u * 16);
  EXPECT_EQ(c.estimated_max_model_len, 31u * 16);
}

// unify_hybrid_kv_cache_specs (vllm/v1/core/kv_cache_utils.py @
// 001cabc1be16a59a70d720ed61a13b678c060a18) with disable_hybrid_kv_cache_manager:
// - test_unify_hybrid_kv_cache_specs case 4 (T, tests/v1/core/test_kv_cache_utils.py @ 002f10e0):
//   sliding + chunked layers without a full one: "failed to convert the KV cache specs to one
//   unified type" (ValueError); kvplan refuses it naming the field.
// - A MambaSpec beside attention is never one type (UniformTypeKVCacheSpecs.is_uniform_type,
//   kv_cache_interface.py @ 001cabc1, has no Mamba + attention branch): the same ValueError, as
//   vllm-project/vllm PR #36388 reports for Qwen3.5-0.8B. Mamba layers alone are one type and pass.
// - Full-attention layers of different heads or head sizes are one type (is_uniform_type only
//   asks that all be FullAttentionSpec), so the function returns at once; a sliding layer beside
//   them becomes a FullAttentionSpec first. Both plan as one UniformTypeKVCacheSpecs group whose
//   block is the sum of the pages: 2 heads × 64 fp32 = 16 · 2 · 2 · 64 · 4 = 16384 and 2 heads ×
//   128 = 32768, 49152 B a block; m · 2 · 32 = 1,048,576 B // 49152 = 21 blocks, and a 16-token
//   request takes one block of the group.
TEST(VllmParity, DisabledHybridManagerNeedsOneUnifiedType) {
  ModelSpec s = layers(0, 1, 1024);
  s.layers.push_back({AttentionKind::chunked, 512});
  auto in = input(m * 2 * 32, 16);
  in.edit_vllm().disable_hybrid_kv_cache_manager = true;
  auto field_of = [&](const ModelSpec& spec) {
    try {
      plan_capacity(spec, in);
    } catch (const Error& e) {
      return e.field();
    }
    return std::string("accepted");
  };
  EXPECT_EQ(field_of(s), "disable_hybrid_kv_cache_manager");
  EXPECT_EQ(field_of(with_mamba(layers(1))), "disable_hybrid_kv_cache_manager");
  EXPECT_EQ(field_of(with_mamba(layers(0, 1, 1024))), "disable_hybrid_kv_cache_manager");
  ModelSpec mamba_only = with_mamba(layers(0));
  mamba_only.layers.push_back(mamba_only.layers[0]);
  EXPECT_EQ(field_of(mamba_only), "accepted");
  for (const auto kind : {AttentionKind::full, AttentionKind::sliding}) {
    ModelSpec g = layers(1);
    g.layers.push_back(own(kind, 2, 128, kind == AttentionKind::sliding ? 1 : 0));
    const auto c = plan_capacity(g, in);
    EXPECT_EQ(c.stages[0].kv_cache_groups, 1u);
    EXPECT_EQ(c.page_bytes, 16384u + 32768u);
    EXPECT_EQ(c.num_gpu_blocks, 21u);
    EXPECT_EQ(c.blocks_per_request, 1u);
  }
  // The same layers with the hybrid manager on plan normally; all sliding of one window is
  // uniform and passes with it off too.
  EXPECT_NO_THROW(plan_capacity(s, input(m * 2 * 32, 16)));
  EXPECT_NO_THROW(plan_capacity(with_mamba(layers(1)), input(m * 2 * 32, 16)));
  EXPECT_EQ(field_of(layers(0, 2, 1024)), "accepted");
}

// DCP (T): test_effective_attention_block_size_matches_events[dcp=1, 4] — the manager's block
// covers 16 · dcp tokens, so a 256-token request takes 256 / 16 = 16 or 256 / 64 = 4 blocks;
// test_uniform_type_spec_block_table_width_matches_layer_spec — new_mla_spec() (block 16) at
// max_model_len 1024: 64 blocks with dcp 1, 32 with dcp 2; new_mamba_spec with dcp 2: 3 (the
// state is not split: 1 + 2 speculative blocks); test_resolve_dcp_kv_block_size_unwraps_uniform
// _type_specs — attention blocks of 16 · 4 = 64 tokens, Mamba's stay 16. vLLM's tests build the
// specs without a ParallelConfig; a deployment needs tp_size divisible by dcp_size (see
// DcpNeedsTensorParallelismItDivides), so each case here runs at TP = DCP, with enough query
// heads for that TP. The KV heads (2, 1 for MLA and the hybrid) are replicated at TP 2 / 4, so
// each rank keeps the unsharded page.
TEST(VllmParity, DecodeContextParallelism) {
  auto dcp_of = [](PlanInput in, std::uint32_t dcp) {
    in.tp = in.edit_vllm().dcp = dcp;
    return in;
  };
  for (const auto& [dcp, blocks] : {std::pair<std::uint32_t, std::uint64_t>{1, 16}, {4, 4}}) {
    ModelSpec s = layers(1);
    s.num_q_heads = 4;
    EXPECT_EQ(plan_capacity(s, dcp_of(input(m * 64, 256), dcp)).blocks_per_request, blocks);
  }
  ModelSpec mla = layers(2);
  mla.kv_lora_rank = 512;
  mla.qk_rope_head_dim = 64;
  mla.num_kv_heads = 1;
  for (auto& l : mla.layers) l.kind = AttentionKind::mla;
  for (const auto& [dcp, width] : {std::pair<std::uint32_t, std::uint64_t>{1, 64}, {2, 32}}) {
    const auto in = dcp_of(input(16ull * 576 * 4 * 2 * 100, 1024), dcp);
    EXPECT_EQ(plan_capacity(mla, in).blocks_per_request, width);
  }
  ModelSpec mamba = with_mamba(layers(0));
  mamba.layers.push_back(mamba.layers[0]);
  auto in = dcp_of(input(m * 2 * 100, 1024), 2);
  in.edit_vllm().num_speculative_tokens = 2;
  EXPECT_EQ(plan_capacity(mamba, in).blocks_per_request, 3u);
  // Full attention 1 head × 64 fp16 (page 4096) + Mamba shapes ((1, 1),) fp16, dcp 4, 1024
  // tokens: cdiv(1024, 64) = 16 attention blocks + 1 state page.
  ModelSpec hybrid = with_mamba(layers(1, 0, 1, 1, 64), 0, 1);
  hybrid.recurrent.ssm_dtype = KvDtype::fp16;
  hybrid.num_q_heads = 4;
  const auto h = dcp_of(input(4096 * 100, 1024, "fp16"), 4);
  EXPECT_EQ(plan_capacity(hybrid, h).blocks_per_request, 16u + 1u);
  // Sliding layers refuse DCP (SlidingWindowSpec: "DCP not support sliding window").
  EXPECT_THROW(plan_capacity(layers(1, 1, 128), dcp_of(input(m * 64, 256), 2)), Error);
}

std::string dcp_refusal(const ModelSpec& s, const PlanInput& in) {
  try {
    plan_capacity(s, in);
  } catch (const Error& e) {
    return e.field();
  }
  return "accepted";
}

// ParallelConfig._validate_parallel_config (vllm/config/parallel.py @
// 00193b82b0e2d4faea5d3b4ea4f6c4c2bd9d057a): without prefill context parallelism, "tp_size={tp}
// must be divisible by dcp_size={dcp}" — TP 8 with DCP 3 (8 % 3 = 2) and TP 2 with DCP 16 (2 % 16
// = 2) are refused, TP 8 with DCP 4 and 8 pass. The check holds for a kivi format too (no paged
// pool, same refusal), and vllm@0.9 has no DCP at all (it came with vllm-project/vllm#23734).
TEST(VllmParity, DcpNeedsTensorParallelismItDivides) {
  ModelSpec s = layers(1, 0, 1, 8, 64);
  auto at = [](std::uint32_t tp, std::uint32_t dcp, const char* format = "fp16") {
    PlanInput in = input(m * 64, 256, format);
    in.tp = tp;
    in.edit_vllm().dcp = dcp;
    return in;
  };
  EXPECT_EQ(dcp_refusal(s, at(8, 3)), "decode_context_parallel_size");
  EXPECT_EQ(dcp_refusal(s, at(2, 16)), "decode_context_parallel_size");
  EXPECT_EQ(dcp_refusal(s, at(8, 3, "kivi:bits=2,group=32,residual=128")),
            "decode_context_parallel_size");
  EXPECT_EQ(dcp_refusal(layers(1, 1, 128), at(2, 2, "kivi:bits=2,group=32,residual=128")),
            "decode_context_parallel_size");  // sliding layers, also without a paged pool
  EXPECT_EQ(dcp_refusal(s, at(8, 4)), "accepted");
  EXPECT_EQ(dcp_refusal(s, at(8, 8)), "accepted");
  auto old = at(8, 4);
  old.edit_vllm().rules = VllmRules::v0_9;
  EXPECT_EQ(dcp_refusal(s, old), "decode_context_parallel_size");
  old.edit_vllm().dcp = 1;
  EXPECT_EQ(dcp_refusal(s, old), "accepted");
}

// test_get_kv_cache_configs_multiple_workers (T), the hybrid cases over 2 PP workers:
// {2 full} | {2 sliding} with m·2·10 each: 10 blocks per worker; {1 full, 2 sliding} twice with
// m·10: groups of 1 layer (3 groups per worker), 10 blocks.
TEST(VllmParity, PipelineStagesOfHybridLayers) {
  ModelSpec split = layers(2, 2);
  auto in = input(m * 2 * 10, 16);
  in.pp = 2;
  EXPECT_EQ(plan_capacity(split, in).num_gpu_blocks, 10u);
  ModelSpec mixed = layers(0);
  for (int w = 0; w < 2; ++w)
    mixed.layers.insert(
        mixed.layers.end(),
        {{AttentionKind::full, 0}, {AttentionKind::sliding, 1}, {AttentionKind::sliding, 1}});
  auto in2 = input(m * 10, 16);
  in2.pp = 2;
  const auto c = plan_capacity(mixed, in2);
  EXPECT_EQ(c.num_gpu_blocks, 10u);
  EXPECT_EQ(c.stages[0].kv_cache_groups, 3u);
  EXPECT_EQ(c.stages[1].kv_cache_groups, 3u);
}

// test_unpadded_page_size_includes_per_token_head_scales (T): a uint8 page (16 · 2 · 128 = 4096)
// plus 2 · block · heads · 4 bytes of per-token-head fp32 scales = 4352. kvplan's int8 is that
// per-token-head layout (one fp32 scale per token, head and K/V).
TEST(VllmParity, PerTokenHeadScalesInThePage) {
  EXPECT_EQ(plan_capacity(layers(1), input(m * 10, 16, "int8")).page_bytes, 4096u + 2 * 16 * 2 * 4);
}

// test_allocate_with_lookahead (T): block 4; 3 new tokens + 2 lookahead take ceil(5 / 4) = 2
// blocks, 3 + 4 take ceil(7 / 4) = 2 (the pool's blocks for `scheduled` tokens).
TEST(VllmParity, LookaheadTokensTakeBlocks) {
  auto in = input(m * 10, 100);
  in.block_size = 4;
  const KvPool pool = make_kv_pool(layers(1), in);
  EXPECT_EQ(pool.blocks(0, 3 + 2), 2u);
  EXPECT_EQ(pool.blocks(0, 3 + 4), 2u);
}

// tests/v1/worker/test_gpu_model_runner.py @ 430ad79ff1258547de989520af07dba5f992f7c3:
// test_init_kv_cache_without_kv_sharing — 2 layers Attention(8 heads, 64) fp16, block 16: page
// 16 · 8 · 128 · 2 = 32 KiB, 20 GiB // 32 KiB // 2 = 327,680 blocks; estimate_max_model_len
// (5 GiB, max_model_len 3,000,000) = 5 GiB / (2 · 2 · 8 · 64 · 2 bytes a token) = 1,310,720.
// test_init_kv_cache_with_kv_sharing_valid — layer 1 reads layer 0's cache
// (kv_sharing_target_layer_name), so it holds none of its own: 655,360 blocks and 2,621,440.
// The estimate keeps no null block (kvplan's vllm@0.9 rule, as in
// EstimateMaxModelLenCapsAtMaxModelLen).
TEST(VllmParity, KvSharingLayersHoldNoCache) {
  const ModelSpec plain = layers(2, 0, 1, 8, 64);
  ModelSpec shared = plain;
  shared.layers[1].kind = AttentionKind::none;  // its KV is layer 0's
  EXPECT_EQ(plan_capacity(plain, input(20ull << 30, 512, "fp16")).num_gpu_blocks, 327680u);
  EXPECT_EQ(plan_capacity(shared, input(20ull << 30, 512, "fp16")).num_gpu_blocks, 655360u);
  auto est = input(5ull << 30, 3000000, "fp16");
  est.edit_vllm().rules = VllmRules::v0_9;
  EXPECT_EQ(plan_capacity(plain, est).estimated_max_model_len, 1310720u);
  EXPECT_EQ(plan_capacity(shared, est).estimated_max_model_len, 2u * 1310720);
}

// DeepSeek-V3.2: each MLA layer beside its DeepseekV32IndexerCache, an MLAAttentionSpec of head
// 128 + 128 // 128 · 4 = 132, uint8 (vllm/model_executor/models/deepseek_v2.py); both full
// attention of one block size, so one group (UniformTypeKVCacheSpecs,
// vllm/v1/kv_cache_interface.py@bc8282e61df21719b12b391c3a976b1c900dfbb4) whose block costs the sum
// of the pages. The block is 64 whatever was asked ("Forcing kv cache block size to 64 for
// FlashMLASparse backend", vllm/platforms/cuda.py@1c0d9ecf5bad600df3e001bf642dd48c5ed25cc6):
// 64 · (576 · 2) + 64 · 132 = 73,728 + 8,448 = 82,176 B a layer, · 61 layers = 5,012,736 B a
// block. 1001 blocks of memory: 1001 blocks.
TEST(VllmParity, DsaIndexerPagesShareTheBlock) {
  const auto m = load_model("deepseek-v3.2");
  PlanInput in = input(std::uint64_t{5012736} * 1001, 32768, "bf16");  // asks for block 16
  in.tp = 8;
  const auto c = plan_capacity(m, in);
  EXPECT_EQ(c.block_size, 64u);
  EXPECT_EQ(c.num_gpu_blocks, 1001u);
  in.available_kv_bytes = std::uint64_t{5012736} * 1001 - 1;
  EXPECT_EQ(plan_capacity(m, in).num_gpu_blocks, 1000u);
  // --kv-cache-dtype fp8 is fp8_ds_mla for it (DeepseekV32ForCausalLM.verify_and_update_config,
  // vllm/model_executor/models/config.py@1936cf3841edb9781b06c50fc4daf4bac9d3b23e), whose page
  // is block_size · 656 (MLAAttentionSpec.real_page_size_bytes at bc8282e6), not 576 fp8 values:
  // 64 · 656 + 64 · 132 = 50,432 B a layer, · 61 = 3,076,352 B a block.
  in.format = parse_kv_format("fp8");
  in.available_kv_bytes = std::uint64_t{3076352} * 1001;
  EXPECT_EQ(plan_capacity(m, in).num_gpu_blocks, 1001u);
  // Dense MLA (DeepSeek-V3, no indexer) keeps the block asked for.
  PlanInput v3 = input(std::uint64_t{1} << 34, 32768, "bf16");
  EXPECT_EQ(plan_capacity(load_model("deepseek-v3"), v3).block_size, 16u);
}

// The GLM-5.3-Flash layout (_get_kv_cache_groups_glm5_next, vllm/v1/core/kv_cache_utils.py and
// its tests, tests/v1/core/test_kv_cache_utils.py, both @ 002f10e0; vllm-project/vllm#53906).
// The tests' fixture _glm5_like_kv_cache_spec: 45 layers, layer i % 4 == 3 an MLA layer
// (MLAAttentionSpec(block 1024, 1 head, head 576, bf16)) with its indexer (block 1024, head 132,
// uint8, tokens_per_state 16), the other 34 new_mamba_spec() (16,384 B of float32 state,
// num_speculative_blocks 2); max_model_len 8192. As a kvplan model: kv_lora_rank 512 +
// qk_rope_head_dim 64 = 576, index_head_dim 128 (128 + 4 = 132 B a key), index_kpool 16.
// Pages by hand: MLA 1024 · 576 · 2 = 1,179,648 B; indexer 1024 / 16 = 64 keys · 132 = 8,448 B.
ModelSpec glm5_like(std::uint32_t kpool = 16, bool tail = false, std::uint32_t n = 45,
                    std::vector<std::uint32_t> mla_at = {}) {
  ModelSpec s;
  s.id = "glm5-like";
  s.kv_lora_rank = 512;
  s.qk_rope_head_dim = 64;
  s.num_q_heads = 1;
  s.num_kv_heads = 1;
  s.head_dim_k = 576;
  s.index_head_dim = 128;
  s.index_kpool = kpool;
  s.index_tail = tail;
  s.num_params = 1;
  s.recurrent.kind = MixerKind::shapes;
  s.recurrent.conv_elements = 2 * 512;
  s.recurrent.ssm_elements = 3 * 32 * 32;
  s.recurrent.conv_dtype = s.recurrent.ssm_dtype = KvDtype::fp32;
  for (std::uint32_t i = 0; i < n; ++i) {
    const bool mla =
        mla_at.empty() ? i % 4 == 3 : std::find(mla_at.begin(), mla_at.end(), i) != mla_at.end();
    s.layers.push_back(mla ? LayerSpec{.kind = AttentionKind::mla}
                           : LayerSpec{.kind = AttentionKind::none, .recurrent = true});
  }
  return s;
}

PlanInput glm5_input(std::uint64_t memory) {
  PlanInput in = input(memory, 8192, "bf16");
  in.block_size = 1024;
  in.edit_vllm().num_speculative_tokens = 2;  // new_mamba_spec(num_speculative_blocks=2)
  return in;
}

constexpr std::uint64_t kMlaPage = 1024 * 576 * 2;  // 1,179,648

// test_get_kv_cache_config_balanced_mamba_hybrid: 5 groups (the MLA + indexer group, 4 Mamba
// groups: G = cdiv(34, 11) = 4), a block costs 11 · (1,179,648 + 8,448) = 13,069,056 B (the Mamba
// pages live in the MLA slots), memory of 100 blocks + 1 byte gives 100 blocks; a request is
// cdiv(8192, 1024) = 8 MLA blocks + 4 groups · (1 + 2) = 20 blocks charged 20 · 13,069,056 =
// 261,381,120 B (_max_memory_usage_bytes_from_groups); max concurrency 100 / 20 = 5.0 (also
// test_get_kv_cache_capacity_after_scheduler_unwrap's, on the unwrapped scheduler groups).
// test_get_kv_cache_config_mamba_hybrid_sharing_prepadded_mamba's padding is overwritten to the
// MLA page, so it gives these same figures.
TEST(VllmParity, GlmNextMambaGroupsShareTheMlaSlots) {
  const std::uint64_t block = 11 * (kMlaPage + 8448);
  ASSERT_EQ(block, 13069056u);
  const auto c = plan_capacity(glm5_like(), glm5_input(block * 100 + 1));
  EXPECT_EQ(c.block_size, 1024u);
  EXPECT_EQ(c.page_bytes, kMlaPage + 8448);
  ASSERT_EQ(c.stages.size(), 1u);
  EXPECT_EQ(c.stages[0].group_size, 11u);
  EXPECT_EQ(c.stages[0].kv_cache_groups, 5u);
  EXPECT_EQ(c.num_gpu_blocks, 100u);
  EXPECT_EQ(c.blocks_per_request, 20u);
  EXPECT_EQ(c.stages[0].startup_bytes, 261381120u);
  EXPECT_DOUBLE_EQ(c.max_concurrency, 5.0);
  EXPECT_EQ(plan_capacity(glm5_like(), glm5_input(block * 100 - 1)).num_gpu_blocks, 99u);
  // The simulator's pool takes the same blocks: 8 + 4 · 3 for a request of 8192 tokens.
  const KvPool pool = make_kv_pool(glm5_like(), glm5_input(block * 100 + 1));
  EXPECT_EQ(pool.max_blocks(8192), 20u);
  EXPECT_EQ(pool.blocks(8192), 20u);
  // Unpaged bytes of one request: 11 · (8192 · 1152 + 8192 / 16 · 132) + 34 · 16,384.
  EXPECT_EQ(pool.seq_bytes(8192), 11u * (8192 * 1152 + 512 * 132) + 34u * 16384);
}

// test_get_kv_cache_config_kpool_tail_coowns_indexer_tensor: index_kpool 4 and a KpoolTailSpec
// beside each indexer (block 4, 2 heads, head 128, bf16: 4 · 2 · 128 · 2 = 2,048 B, padded to
// the indexer's page and placed in its slot). Indexer page 1024 / 4 = 256 keys · 132 = 33,792 B;
// a block 11 · (1,179,648 + 33,792) = 13,347,840 B (the tail adds nothing); 100 blocks; a request
// 8 + 4 · 3 + 1 = 21 blocks = 280,304,640 B; 6 groups (attention, tail, 4 Mamba).
TEST(VllmParity, GlmNextKpoolTailCoownsTheIndexerSlot) {
  const std::uint64_t block = 11 * (kMlaPage + 33792);
  ASSERT_EQ(block, 13347840u);
  EXPECT_EQ(kpool_tail_bytes(4, 128), 2048u);
  const auto c = plan_capacity(glm5_like(4, true), glm5_input(block * 100 + 1));
  EXPECT_EQ(c.num_gpu_blocks, 100u);
  EXPECT_EQ(c.stages[0].kv_cache_groups, 6u);
  EXPECT_EQ(c.blocks_per_request, 21u);
  EXPECT_EQ(c.stages[0].startup_bytes, 280304640u);
  const KvPool pool = make_kv_pool(glm5_like(4, true), glm5_input(block * 100 + 1));
  EXPECT_EQ(pool.blocks(1), 1u + 12 + 1);  // one MLA block, the states, the tail
  EXPECT_EQ(pool.max_blocks(8192), 21u);
}

// test_get_kv_cache_config_mamba_hybrid_sharing_pp_balanced_projection: the worker holding layers
// 0 - 22 (kvplan's first stage of PP 2: get_pp_indices(45, 0, 2) = [0, 23)) has MLA layers 3, 7,
// 11, 15, 19 and 18 Mamba layers: its block is 5 · (1,179,648 + 8,448) = 5,940,480 B, 100 blocks
// from 100 blocks + 1 byte. G stays 4 (cdiv(18, 5) = 4; the other stage, 6 MLA and 16 Mamba: 3).
TEST(VllmParity, GlmNextPipelineStageProjectsItsSlots) {
  PlanInput in = glm5_input(0);
  in.pp = 2;
  const std::uint64_t first = 5 * (kMlaPage + 8448), second = 6 * (kMlaPage + 8448);
  ASSERT_EQ(first, 5940480u);
  in.available_kv_bytes_per_rank = {first * 100 + 1, second * 100 + 1};
  in.available_kv_bytes = first * 100 + 1;
  const auto c = plan_capacity(glm5_like(), in);
  ASSERT_EQ(c.stages.size(), 2u);
  EXPECT_EQ(c.stages[0].group_size, 5u);
  EXPECT_EQ(c.stages[1].group_size, 6u);
  EXPECT_EQ(c.stages[0].num_blocks, 100u);
  EXPECT_EQ(c.stages[1].num_blocks, 100u);
  EXPECT_EQ(c.stages[0].kv_cache_groups, 5u);
  EXPECT_EQ(c.blocks_per_request, 8u + 4 * 3);
}

// test_get_kv_cache_config_mamba_hybrid_sharing_pp_group_count_bump: PP 4 splits 45 layers
// [0, 11), [11, 22), [22, 34), [34, 45) (the remainder on partitions[-2]); the first stage holds 9
// Mamba layers beside 2 MLA layers (3 and 7), so G = max(cdiv(34, 11), cdiv(9, 2)) = 5 (the test's
// groups [7, 7, 7, 7, 6]); the others 3 MLA layers each. Every stage keeps the 5 groups.
TEST(VllmParity, GlmNextStageWithFewMlaLayersRaisesTheGroups) {
  PlanInput in = glm5_input(std::uint64_t{1} << 33);
  in.pp = 4;
  const auto c = plan_capacity(glm5_like(), in);
  ASSERT_EQ(c.stages.size(), 4u);
  const std::uint32_t mla[] = {2, 3, 3, 3};
  for (std::size_t s = 0; s < 4; ++s) {
    EXPECT_EQ(c.stages[s].group_size, mla[s]) << s;
    EXPECT_EQ(c.stages[s].kv_cache_groups, 1u + 5) << s;
    EXPECT_EQ(c.stages[s].blocks_per_request, 8u + 5 * 3) << s;
  }
}

// test_get_kv_cache_config_mamba_hybrid_sharing_pp_starved_stage: a stage of Mamba layers and no
// MLA layer ("3,42": layers 0 - 2) is refused. Without a partition variable, kvplan's stages are
// get_pp_indices': PP 15 gives the same first stage of 3 layers.
TEST(VllmParity, GlmNextStageWithoutMlaLayersIsRefused) {
  PlanInput in = glm5_input(std::uint64_t{1} << 33);
  in.pp = 15;
  try {
    plan_capacity(glm5_like(), in);
    FAIL() << "a stage without an MLA layer was planned";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "pp");
    EXPECT_NE(std::string(e.what()).find("VLLM_PP_LAYER_PARTITION"), std::string::npos);
  }
}

// test_get_kv_cache_config_mamba_hybrid_sharing_no_indexer ("Kimi-Linear-like"): 27 layers, MLA
// at 3, 7, 11, 15, 19, 23 and 26, 20 Mamba layers, no indexer: not GLM's layout but the generic
// one, which aliases all the same: group size 7 (20 >= 1.5 · 7), Mamba groups 7, 7, 6, a block
// 7 · 1,179,648 = 8,257,536 B, 100 blocks.
TEST(VllmParity, MlaBesideMambaWithoutIndexerGroupsGenerically) {
  ModelSpec kimi = glm5_like(0, false, 27, {3, 7, 11, 15, 19, 23, 26});
  kimi.index_head_dim = 0;
  const auto c = plan_capacity(kimi, glm5_input(std::uint64_t{8257536} * 100 + 1));
  EXPECT_EQ(c.stages[0].group_size, 7u);
  EXPECT_EQ(c.stages[0].kv_cache_groups, 4u);
  EXPECT_EQ(c.num_gpu_blocks, 100u);
}

// Glm5NextIndexerCache asserts the block holds whole DeepGEMM pools: "GLM-5.3-Flash kpool
// requires logical block_size to be a multiple of index_kpool*32" (the default 64 fails with
// index_kpool 4, 128 starts). The releases kvplan's older rule sets stand for have no such model.
TEST(VllmParity, GlmNextBlockMustHoldWholeIndexerPools) {
  PlanInput in = glm5_input(std::uint64_t{1} << 33);
  in.block_size = 0;  // vLLM's default for it: 64
  ModelSpec m = glm5_like(4, true);
  m.recurrent.ssm_elements = 0;  // a state small enough to keep the block at 64
  m.recurrent.conv_elements = 16;
  try {
    plan_capacity(m, in);
    FAIL() << "block 64 was planned for index_kpool 4";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "block_size");
    EXPECT_NE(std::string(e.what()).find("multiple of index_kpool*32 (128); got 64"),
              std::string::npos)
        << e.what();
  }
  in.block_size = 128;
  EXPECT_EQ(plan_capacity(m, in).block_size, 128u);
  in.edit_vllm().rules = VllmRules::v0_25;
  EXPECT_THROW(plan_capacity(m, in), Error);
}

// The same layout from a kvplan model file: an MLA model whose pattern names recurrent layers,
// its "mla" object the indexer's kpool and tail. Three recurrent layers then one MLA layer, 45
// layers: the fixture's. Index_kpool without an indexer, or a tail without a kpool, is refused.
TEST(VllmParity, GlmNextLayoutFromAModelFile) {
  const std::string file = R"({"kvplan_model": 1, "id": "glm5-like", "source": "test",
    "num_layers": 45, "num_attention_heads": 1, "num_kv_heads": 1, "head_dim": 576,
    "max_context": 8192, "num_params": 1, "weight_dtype": "bf16",
    "mla": {"kv_lora_rank": 512, "qk_rope_head_dim": 64, "index_head_dim": 128,
            "index_kpool": 4, "index_tail": true},
    "recurrent": {"kind": "shapes", "conv_elements": 1024, "ssm_elements": 3072,
                  "conv_dtype": "fp32", "ssm_dtype": "fp32"},
    "attention": {"type": "pattern", "pattern": ["recurrent", "recurrent", "recurrent", "full"]}})";
  const ModelSpec m = parse_model_json(file, "glm.json");
  EXPECT_EQ(m.cached_layers(), 11u);
  EXPECT_EQ(m.recurrent_layers(), 34u);
  EXPECT_EQ(m.layers[3].kind, AttentionKind::mla);
  const std::uint64_t block = 11 * (kMlaPage + 33792);
  const auto c = plan_capacity(m, glm5_input(block * 100 + 1));
  EXPECT_EQ(c.num_gpu_blocks, 100u);
  EXPECT_EQ(c.blocks_per_request, 21u);
  auto refused = [&](const std::string& from, const std::string& to) {
    std::string bad = file;
    bad.replace(bad.find(from), from.size(), to);
    EXPECT_THROW(parse_model_json(bad, "glm.json"), Error) << to;
  };
  refused(R"("index_head_dim": 128,)", "");
  refused(R"("index_kpool": 4,)", "");
  refused(R"(["recurrent", "recurrent", "recurrent", "full"])", R"(["sliding", "full"])");
}

// One full-attention layer (1 KV head of `head`, bf16) and one recurrent layer of `state` bf16
// elements, hidden size 1024: the hidden-state tests' hybrids.
ModelSpec full_beside_state(std::uint32_t head, std::uint64_t state) {
  ModelSpec s = layers(1, 0, 1, 1, head);
  s.hidden_size = 1024;
  s.weight_dtype = "bf16";
  s.recurrent.kind = MixerKind::shapes;
  s.recurrent.ssm_elements = state;
  s.recurrent.conv_dtype = s.recurrent.ssm_dtype = KvDtype::bf16;
  s.layers.push_back({.kind = AttentionKind::none, .recurrent = true});
  return s;
}

// test_hidden_state_group_preserves_hybrid_prefix_cache_granularity: FullAttentionSpec(block 544,
// 1 head, 512, bf16), page 544 · (512 + 512) · 2 = 1,114,112 B, beside MambaSpec(block 544,
// ((557056,),), bf16, mamba_cache_mode align), 557,056 · 2 = 1,114,112 B, and
// HiddenStateCacheSpec(block 544, 3 heads, 1024, bf16). Not one type, so the hidden-state layer
// keeps a group of its own padded to the common page, with the largest block dividing
// gcd(544, 544) = 544 whose 3 · 1024 · 2 = 6,144 B a token fit 1,114,112 B: at most 181 tokens,
// 136 (the test's). A request of 1,088 tokens: 2 full blocks + 2 state pages (align) + 1088 / 136 =
// 8 hidden-state blocks = 12; 3 groups.
TEST(VllmParity, HiddenStateGroupTakesTheLargestBlockThatFits) {
  const ModelSpec s = full_beside_state(512, 557056);
  PlanInput in = input(std::uint64_t{1114112} * 100, 1088, "bf16");
  in.block_size = 544;
  in.edit_vllm().mamba_cache_mode = VllmOptions::MambaCacheMode::align;
  EXPECT_EQ(plan_capacity(s, in).blocks_per_request, 2u + 2);
  in.edit_vllm().extract_hidden_states = 3;
  const auto c = plan_capacity(s, in);
  EXPECT_EQ(c.block_size, 544u);
  EXPECT_EQ(c.page_bytes, 1114112u);
  EXPECT_EQ(c.stages[0].kv_cache_groups, 3u);
  EXPECT_EQ(c.num_gpu_blocks, 100u);
  EXPECT_EQ(c.blocks_per_request, 2u + 2 + 8);
}

// test_hidden_states_with_tp_scales_page_size's specs (two FullAttentionSpec(block 16, 2 heads,
// 64, bf16), HiddenStateCacheSpec(block 16, 6 heads, 512, bf16)) form one group
// (UniformTypeKVCacheSpecs.from_specs: one block size, all FullAttentionSpec by base), so the
// test's loop over the other groups checks nothing. kvplan's one group: a block of 2 · 16 · 2 ·
// 128 · 2 + 16 · 6 · 512 · 2 = 16,384 + 98,304 = 114,688 B.
TEST(VllmParity, HiddenStatesJoinADenseModelsOneGroup) {
  ModelSpec s = layers(2, 0, 1, 2, 64);
  s.hidden_size = 512;
  s.weight_dtype = "bf16";
  PlanInput in = input(std::uint64_t{114688} * 10, 64, "bf16");
  in.edit_vllm().extract_hidden_states = 6;
  const auto c = plan_capacity(s, in);
  EXPECT_EQ(c.stages[0].kv_cache_groups, 1u);
  EXPECT_EQ(c.num_gpu_blocks, 10u);
  EXPECT_EQ(c.blocks_per_request, 4u);
  // The cache holds the model dtype whatever the KV dtype (a quantized one becomes "auto").
  in.format = parse_kv_format("fp8");
  EXPECT_EQ(plan_capacity(s, in).page_bytes, 2u * 16 * 2 * 128 + 98304);
}

// _ensure_min_page_size: where one token's hidden states exceed the common page, every group's
// block grows cdiv(per token, page) times. A full layer (1 head of 64, bf16, block 16: 4,096 B)
// beside a 2,048-B Mamba state (padded to 4,096), 3 hidden states of 1024 (6,144 B a token):
// scale cdiv(6144, 4096) = 2, blocks of 32, page 8,192; the hidden-state block is the largest
// divisor of 32 at most max(8192 // 6144, 1) = 1. A request of 64 tokens: 2 full blocks + 1
// state page + 64 hidden-state blocks.
TEST(VllmParity, HiddenStatesWiderThanThePageGrowEveryBlock) {
  const ModelSpec s = full_beside_state(64, 1024);
  PlanInput in = input(std::uint64_t{8192} * 50, 64, "bf16");
  in.edit_vllm().extract_hidden_states = 3;
  const auto c = plan_capacity(s, in);
  EXPECT_EQ(c.block_size, 32u);
  EXPECT_EQ(c.page_bytes, 8192u);
  EXPECT_EQ(c.num_gpu_blocks, 50u);
  EXPECT_EQ(c.blocks_per_request, 2u + 1 + 64);
  in.edit_vllm().rules = VllmRules::v0_19;
  EXPECT_THROW(plan_capacity(s, in), Error);
  in.edit_vllm().rules = VllmRules::current;
  in.format = parse_kv_format("kivi:bits=4,group=32,residual=128");
  EXPECT_THROW(plan_capacity(s, in), Error);  // no pages to group
}

// test_hybrid_group_size_override_preserves_spec_compatibility (T, every parameter): 24 GDN layers
// (MambaSpec((128,), float32), padded to the full page), 8 target full layers (4 KV heads of 256,
// bf16: page 16 · 4 · 512 · 2 = 65,536 B), 5 draft sliding layers (8 heads of 128, window 4096:
// 65,536 B) and 1 draft full layer (8 heads of 128: 65,536 B) — four types of one page. Without
// an override the fewest (1) is the group size: 38 groups of 1. --attn-group-size g splits each
// type into cdiv(count, g) groups: g 2: 12 + 4 + 3 + 1 = 20 groups; 4: 6 + 2 + 2 + 1 = 11; 8: 3
// + 1 + 1 + 1 = 6 (the test's sizes [1] * 38, [1] * 2 + [2] * 18, [1, 2, 3] + [4] * 8,
// [1, 5] + [8] * 4). A block costs g pages: 1 GiB holds 2^30 // (65,536 · g) blocks.
TEST(VllmParity, AttnGroupSizeOverridesTheHeuristic) {
  ModelSpec s = layers(8, 0, 1, 4, 256);
  for (int i = 0; i < 5; ++i) s.layers.push_back(own(AttentionKind::sliding, 8, 128, 4096));
  s.layers.push_back(own(AttentionKind::full, 8, 128));
  s.recurrent.kind = MixerKind::shapes;
  s.recurrent.ssm_elements = 128;
  s.recurrent.conv_dtype = s.recurrent.ssm_dtype = KvDtype::fp32;
  for (int i = 0; i < 24; ++i) s.layers.push_back({.kind = AttentionKind::none, .recurrent = true});
  for (const auto& [g, groups] :
       {std::pair<std::uint32_t, std::uint32_t>{0, 38}, {1, 38}, {2, 20}, {4, 11}, {8, 6}}) {
    PlanInput in = input(std::uint64_t{1} << 30, 16, "bf16");
    in.edit_vllm().attn_group_size = g;
    const auto c = plan_capacity(s, in);
    EXPECT_EQ(c.page_bytes, 65536u) << g;
    EXPECT_EQ(c.stages[0].kv_cache_groups, groups) << g;
    EXPECT_EQ(c.num_gpu_blocks, (std::uint64_t{1} << 30) / (65536 * std::max(g, 1u))) << g;
  }
  PlanInput old = input(std::uint64_t{1} << 30, 16, "bf16");
  old.edit_vllm().attn_group_size = 2;
  old.edit_vllm().rules = VllmRules::v0_19;
  EXPECT_THROW(plan_capacity(s, old), Error);
}

}  // namespace
}  // namespace kvplan
