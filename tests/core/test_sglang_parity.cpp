// SGLang's pools, by hand. Every case names the SGLang source it follows, read at
// sgl-project/sglang@226149ac457bd1a1b5d450f55c01f72f604320d6:
//   M = python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py
//       (profile_max_num_token, handle_max_mamba_cache, set_num_tokens_hybrid_swa,
//        init_memory_pool: max_num_reqs <= max_mamba_cache_size // 3)
//   S = python/sglang/srt/server_args.py (swa_full_tokens_ratio 0.8, mamba_full_memory_ratio
//       0.9, mamba_ssm_dtype "float32")
//   C = python/sglang/srt/configs/model_config.py (is_hybrid_swa_model)
// The memory is given as the measured KV budget (rest_memory of M), so only the pools are tested.
#include <gtest/gtest.h>

#include "kvplan/error.hpp"
#include "kvplan/formula.hpp"
#include "kvplan/kv_tiers.hpp"
#include "kvplan/planner.hpp"

namespace kvplan {
namespace {

constexpr std::uint64_t GiB = std::uint64_t{1} << 30;
constexpr std::uint64_t kRest = std::uint64_t{49152} * 100000;  // 100000 tokens of 24 layers

// 12 full + 12 sliding (window 128) layers of 8 KV heads × 64 in bf16: one layer's K + V per
// token is 8 · (64 + 64) · 2 = 2048 bytes, so cell_size (M) = 24 · 2048 = 49152 bytes.
ModelSpec swa_model(const std::string& id) {
  ModelSpec m;
  m.id = id;
  for (int i = 0; i < 12; ++i) {
    m.layers.push_back({AttentionKind::sliding, 128});
    m.layers.push_back({AttentionKind::full, 0});
  }
  m.num_q_heads = 64;
  m.num_kv_heads = 8;
  m.head_dim_k = m.head_dim_v = 64;
  m.num_params = 1;
  return m;
}

PlanInput sglang(std::uint64_t available, std::uint64_t context) {
  PlanInput in;
  in.engine = Engine::sglang;
  in.format = parse_kv_format("bf16");
  in.context = context;
  in.available_kv_bytes = available;
  return in;
}

// M set_num_tokens_hybrid_swa with S's default ratio 0.8. rest = 49152 · 100000 bytes, so
// max_total_num_tokens = 100000; total_tokens = 100000 · 24 = 2,400,000;
// full = int(2,400,000 / (0.8 · 12 + 12)) = int(111111.1) = 111111; swa = int(111111 · 0.8) =
// 88888. At 32768 tokens a request takes 32768 full-pool tokens (111111 // 32768 = 3) and
// 128 + 1 SWA tokens (88888 // 129 = 689): 3 requests.
TEST(SglangParity, SwaPoolDefaultRatio) {
  auto in = sglang(kRest, 32768);
  in.edit_sglang().hybrid_swa = true;
  const auto c = plan_capacity(swa_model("swa-test"), in);
  EXPECT_EQ(c.block_size, 1u);
  EXPECT_EQ(c.kv_cache_tokens, 111111u);
  EXPECT_EQ(c.max_requests, 3u);
  EXPECT_DOUBLE_EQ(c.max_concurrency, 111111.0 / 32768.0);
  SglangPoolInput p{.rest_bytes = kRest,
                    .full_cell = 2048,
                    .full_layers = 12,
                    .swa_cell = 2048,
                    .swa_layers = 12};
  const auto pools = sglang_pools(p);
  EXPECT_EQ(pools.full_tokens, 111111u);
  EXPECT_EQ(pools.swa_tokens, 88888u);
  // Both pools fit the memory: (111111 + 88888) · 12 · 2048 = 4,915,175,424 <= 4,915,200,000.
  EXPECT_LE((pools.full_tokens + pools.swa_tokens) * 12 * 2048, p.rest_bytes);
}

// --swa-full-tokens-ratio 0.5: full = int(2,400,000 / 18) = 133333, swa = 66666; --page-size 16
// (ratio 0.8): max_total stays 100000 (a multiple of 16), full 111111 -> 111104, swa 88888 ->
// 88880 (align_page_size).
TEST(SglangParity, SwaRatioAndPageSize) {
  SglangPoolInput p{.rest_bytes = kRest,
                    .full_cell = 2048,
                    .full_layers = 12,
                    .swa_cell = 2048,
                    .swa_layers = 12,
                    .swa_full_tokens_ratio_ppm = 500000};
  auto half = sglang_pools(p);
  EXPECT_EQ(half.full_tokens, 133333u);
  EXPECT_EQ(half.swa_tokens, 66666u);
  p.swa_full_tokens_ratio_ppm = 800000;
  p.page_size = 16;
  auto paged = sglang_pools(p);
  EXPECT_EQ(paged.full_tokens, 111104u);
  EXPECT_EQ(paged.swa_tokens, 88880u);
  // Through the planner: --page-size 16, a request of 32768 tokens takes 2048 pages of the
  // full pool's 111104 / 16 = 6944: 3 requests.
  auto in = sglang(kRest, 32768);
  in.edit_sglang().hybrid_swa = true;
  in.block_size = 16;
  const auto c = plan_capacity(swa_model("swa-test"), in);
  EXPECT_EQ(c.kv_cache_tokens, 111104u);
  EXPECT_EQ(c.num_gpu_blocks, 6944u);
  EXPECT_EQ(c.max_requests, 3u);
}

// --disable-hybrid-swa-memory, or a model SGLang does not list in is_hybrid_swa_model (C): every
// layer in one pool, 100000 tokens (M profile_max_num_token: rest // (24 · 2048)).
TEST(SglangParity, NoSwaPoolOutsideTheHybridList) {
  auto in = sglang(kRest, 32768);
  in.edit_sglang().hybrid_swa = true;
  in.edit_sglang().disable_hybrid_swa_memory = true;
  EXPECT_EQ(plan_capacity(swa_model("swa-test"), in).kv_cache_tokens, 100000u);
  // Gemma 2 / 3 and Mistral have sliding layers but no SWA pool in SGLang; gpt-oss has one.
  EXPECT_FALSE(sglang_hybrid_swa_default(load_model("gemma-3-4b")));
  EXPECT_FALSE(sglang_hybrid_swa_default(load_model("mistral-7b-v0.1")));
  EXPECT_TRUE(sglang_hybrid_swa_default(load_model("gpt-oss-20b")));
  EXPECT_TRUE(sglang_hybrid_swa_default(load_model("llama-4-scout")));  // chunked layers
  EXPECT_FALSE(sglang_hybrid_swa_default(load_model("llama-3.1-8b")));
  auto plain = sglang(kRest, 32768);
  EXPECT_EQ(plan_capacity(swa_model("gemma-like"), plain).kv_cache_tokens, 100000u);
  EXPECT_EQ(plan_capacity(swa_model("gpt-oss-like"), plain).kv_cache_tokens, 111111u);
}

// Qwen3-Next-80B-A3B (config.json: 48 layers, full_attention_interval 4, 2 KV heads × 256,
// linear attention 16 key heads and 32 value heads of 128, conv kernel 4), TP 1:
//   full-attention cell = 12 · 2 · (256 + 256) · 2 = 24576 bytes per token
//   mamba_cache_per_req = 36 · (conv (2·16·128 + 32·128) · 3 · 2 B = 49152
//                               + ssm 32 · 128 · 128 · 4 B (float32, S) = 2097152)
//                       = 36 · 2146304 = 77266944 bytes
// K = kv_cache_configurator.py@382343f860c7df8dc43ecefd7902c940d81c99a9 (sgl-project/sglang,
// read from the mirror yuan-luo/sglang), KVCacheConfigurator._handle_max_mamba_cache with rest =
// 40 GiB and ratio 0.9, no speculative decoding:
//   budget = 40 GiB · 0.9 / 1.9 = 20344581928.4 B; max_mamba_cache_size = int((budget − 77266944)
//   // 77266944) = 262, the pool 262 + 1 (padding) slots = 20321206272 B
//   KV rest = 42949672960 − 20321206272 = 22628466688 -> 22628466688 // 24576 = 920754 tokens
//   resolve_max_num_reqs: min(4096, 920754 // 2) then at most 262 // 5 = 52 (Qwen3NextForCausalLM
//   takes the extra buffer beside the overlap scheduler: _calculate_mamba_ratio 3 + 2), so at
//   8192 tokens (920754 // 8192 = 112 by the KV pool) 52 requests run.
TEST(SglangParity, MambaPoolQwen3Next) {
  const auto m = load_model("qwen3-next-80b-a3b");
  const auto c = plan_capacity(m, sglang(40 * GiB, 8192));
  EXPECT_EQ(c.kv_cache_tokens, 920754u);
  EXPECT_EQ(c.max_requests, 52u);
  EXPECT_DOUBLE_EQ(c.max_concurrency, 52.0);
  // --mamba-ssm-dtype bfloat16: 36 · (49152 + 1048576) = 39518208 bytes per request;
  // budget // 39518208 = 514, K = 513, 514 slots; (40 GiB − 514 · 39518208) // 24576 = 921114;
  // 513 // 5 = 102 < 112.
  auto bf16 = sglang(40 * GiB, 8192);
  bf16.ssm_state_dtype = KvDtype::bf16;
  const auto b = plan_capacity(m, bf16);
  EXPECT_EQ(b.kv_cache_tokens, 921114u);
  EXPECT_EQ(b.max_requests, 102u);
  // --max-mamba-cache-size 100: 101 slots, (40 GiB − 101 · 77266944) // 24576 = 1430082;
  // 100 // 5 = 20.
  auto fixed = sglang(40 * GiB, 8192);
  fixed.edit_sglang().max_mamba_cache_size = 100;
  const auto f = plan_capacity(m, fixed);
  EXPECT_EQ(f.kv_cache_tokens, 1430082u);
  EXPECT_EQ(f.max_requests, 20u);
  // --disable-overlap-schedule at page 1: "auto" resolves to no_buffer
  // (_mamba_radix_cache_resolution, arg_groups/overrides.py@382343f8: neither overlap nor pages
  // over one token), 3 a request: 262 // 3 = 87. --mamba-radix-cache-strategy extra_buffer
  // without overlap: 3 + 1 = 4, 262 // 4 = 65; at page 16 "auto" takes the extra buffer too.
  // --disable-radix-cache: 1 slot a request, the KV pool's 112 bind.
  auto off = sglang(40 * GiB, 8192);
  off.edit_sglang().disable_overlap_schedule = true;
  EXPECT_EQ(sglang_mamba_strategy(m, off), "no_buffer");
  EXPECT_EQ(plan_capacity(m, off).max_requests, 87u);
  off.edit_sglang().mamba_radix_cache_strategy = "extra_buffer";
  EXPECT_EQ(plan_capacity(m, off).max_requests, 65u);
  off.edit_sglang().mamba_radix_cache_strategy = "auto";
  off.block_size = 16;
  EXPECT_EQ(sglang_mamba_strategy(m, off), "extra_buffer");
  auto radix = sglang(40 * GiB, 8192);
  radix.edit_sglang().disable_radix_cache = true;
  EXPECT_EQ(plan_capacity(m, radix).max_requests, 112u);
}

// A hybrid Mamba decode worker (--disaggregation-mode decode) raises its state pool after the KV
// pool was sized (HybridMambaDecodeReqToTokenPool, disaggregation/decode.py@382343f860c7df8dc43e
// cefd7902c940d81c99a9: max(mamba_size, (size + pre_alloc_size) · slots a request)). Qwen3-Next
// at TP 1 (MambaPoolQwen3Next's 77,266,944 B a slot), 40 GiB, --max-mamba-cache-size 20,
// --max-running-requests 16, 8,192 tokens: the radix cache is off (a decode worker's), one slot a
// request; the pool 21 slots, KV (42,949,672,960 − 21 · 77,266,944) // 24,576 = 1,681,602 tokens;
// the state slots hold 20 // 1 = 20 requests at once, the table 16 rows (--max-running-requests);
// 2 · 16 = 32 in-transfer slots by default. The decode pool needs (16 +
// 32) · 1 = 48 slots: 28 more, 28 · 77,266,944 = 2,163,474,432 B beside the request table's
// (16 + 32 + 1) · (8,192 + 4) · 4 = 1,606,416 B: 2,165,080,848 B allocated after the pool.
TEST(SglangParity, MambaDecodeWorkerRaisesItsStatePool) {
  const auto m = load_model("qwen3-next-80b-a3b");
  auto in = sglang(40 * GiB, 8192);
  in.edit_sglang().disaggregation_mode = "decode";
  in.edit_sglang().max_mamba_cache_size = 20;
  in.max_num_seqs = 16;
  const auto c = plan_capacity(m, in);
  EXPECT_EQ(c.kv_cache_tokens, 1681602u);
  EXPECT_EQ(c.max_requests, 20u);
  ASSERT_EQ(c.stages.size(), 1u);
  EXPECT_EQ(c.stages[0].sglang_max_num_reqs, 16u);
  EXPECT_EQ(c.stages[0].sglang_decode_extra_state_slots, 28u);
  const auto t = request_table_of(c, in);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->bytes, 2165080848u);
  // A plain server (or one whose pool holds the table's requests) raises nothing.
  in.edit_sglang().disaggregation_mode = "null";
  EXPECT_EQ(plan_capacity(m, in).stages[0].sglang_decode_extra_state_slots, 0u);
  in.edit_sglang().disaggregation_mode = "decode";
  in.edit_sglang().max_mamba_cache_size = 100;
  EXPECT_EQ(plan_capacity(m, in).stages[0].sglang_decode_extra_state_slots, 0u);
}

// --max-total-tokens caps the profiled pool (M init_memory_pool: min(profiled, max_total_tokens)).
TEST(SglangParity, MaxTotalTokensCaps) {
  auto in = sglang(kRest, 4096);
  in.max_total_tokens = 50000;
  const auto c = plan_capacity(swa_model("plain"), in);
  EXPECT_EQ(c.kv_cache_tokens, 50000u);
  EXPECT_EQ(c.max_requests, 50000u / 4096);
  in.max_total_tokens = 200000;  // larger than profiled: the profiled value is used
  EXPECT_EQ(plan_capacity(swa_model("plain"), in).kv_cache_tokens, 100000u);
}

// The running requests SGLang's scheduler admits and the request table's rows: one number,
// KVCacheConfigurator.resolve_max_num_reqs (python/sglang/srt/mem_cache/kv_cache_configurator.py
// @382343f860c7df8dc43ecefd7902c940d81c99a9): estimated = min(max(int(capacity / context · 512),
// 2048), 4096); min(--max-running-requests, else estimated, capacity // 2), capacity being the
// pool's final max_total_num_tokens. 1 layer of 2048 bytes per token:
//   rest 1000 cells, context 100: int(1000 / 100 · 512) = 5120 -> 4096; min(4096, 500) = 500
//   rest 100,000 cells, context 16384: int(100000 / 16384 · 512) = int(3125.0) = 3125;
//     min(3125, 50000) = 3125.   context 1024: int(50000.0) -> 4096; 4096.
//   --max-running-requests 300: 300; 80,000 on the 100,000 cells: min(80000, 50000) = 50000.
//   --max-total-tokens 600 on the 1000-cell pool: capacity 600, int(600 / 100 · 512) = 3072;
//     min(3072, 300) = 300 rows and running (before the resolver, the table took the profiled
//     1000's 4096 rows).
TEST(SglangParity, RunningRequestsFromThePoolAndTheTable) {
  SglangPoolInput p{.rest_bytes = 1000 * 2048, .full_cell = 2048, .full_layers = 1};
  EXPECT_EQ(sglang_pools(p).max_running_requests, 0u);  // no context: nothing computed
  p.context_len = 100;
  auto pools = sglang_pools(p);
  EXPECT_EQ(pools.max_num_reqs, 500u);
  EXPECT_EQ(pools.max_running_requests, 500u);
  p.rest_bytes = std::uint64_t{100000} * 2048;
  p.context_len = 16384;
  pools = sglang_pools(p);
  EXPECT_EQ(pools.max_num_reqs, 3125u);
  EXPECT_EQ(pools.max_running_requests, 3125u);
  p.context_len = 1024;
  EXPECT_EQ(sglang_pools(p).max_running_requests, 4096u);
  p.max_running_requests = 300;
  pools = sglang_pools(p);
  EXPECT_EQ(pools.max_num_reqs, 300u);
  EXPECT_EQ(pools.max_running_requests, 300u);
  p.max_running_requests = 80000;
  EXPECT_EQ(sglang_pools(p).max_running_requests, 50000u);
  p = {.rest_bytes = 1000 * 2048, .full_cell = 2048, .full_layers = 1, .max_total_tokens = 600};
  p.context_len = 100;
  pools = sglang_pools(p);
  EXPECT_EQ(pools.full_tokens, 600u);
  EXPECT_EQ(pools.max_num_reqs, 300u);
  EXPECT_EQ(pools.max_running_requests, 300u);
  EXPECT_EQ(sglang_max_num_reqs(std::nullopt, 100000, 16384), 3125u);
  // int(3.125) -> at least 2048, then at most 100 // 2.
  EXPECT_EQ(sglang_max_num_reqs(std::nullopt, 100, 16384), 50u);
  // A Mamba pool of 6 slots (--max-mamba-cache-size 6, 1 MiB states, the input's ratio 3): rows
  // min(4096, 6 // 3).
  p = {.rest_bytes = 64 << 20, .full_cell = 2048, .full_layers = 1, .state_bytes = 1 << 20};
  p.max_mamba_cache_size = 6;
  p.context_len = 100;
  pools = sglang_pools(p);
  EXPECT_EQ(pools.max_num_reqs, 2u);
  EXPECT_EQ(pools.max_running_requests, 2u);
}

// A hybrid Mamba model's state slots. Inventory of
//   R = test/registered/unit/mem_cache/test_mamba_donated_alloc_ratio.py
//       @ sgl-project/sglang 382343f860c7df8dc43ecefd7902c940d81c99a9 (read from the mirror
//       yuan-luo/sglang, whose main is that upstream commit)
// against python/sglang/srt/mem_cache/kv_cache_configurator.py at the same commit:
//   TestMambaRatioEnvGate (2)                  MambaSlotsAsSglangsDonatedAllocRatioTests
//   TestPPMambaPoolSizing (1; relational: every stage's pool the same, more than 5 times the
//     single-stage pool)                       the same (and PipelineStagesShareTheBusiestState)
//   TestMambaDonatedAllocRatio, TestDecSwaLockSkip
//                                              no sizing number (an allocator's peak in a
//                                              simulation; the lock)
TEST(SglangParity, MambaSlotsAsSglangsDonatedAllocRatioTests) {
  // _calculate_mamba_ratio, SGLANG_OPT_MAMBA_SKIP_DECODE_LOCK off: no_buffer 3, the lazy extra
  // buffer 3 + 1, the extra buffer beside the overlap scheduler 3 + 2; on: the base drops to 2,
  // no_buffer adds its 1 back (3), lazy 3, extra 4. Without the overlap scheduler the extra
  // buffer adds 1; without the radix cache a request holds one slot.
  EXPECT_EQ(sglang_mamba_ratio("no_buffer", false, false), 3u);
  EXPECT_EQ(sglang_mamba_ratio("extra_buffer_lazy", true, false), 4u);
  EXPECT_EQ(sglang_mamba_ratio("extra_buffer", true, false), 5u);
  EXPECT_EQ(sglang_mamba_ratio("no_buffer", false, false, true), 3u);
  EXPECT_EQ(sglang_mamba_ratio("extra_buffer_lazy", true, false, true), 3u);
  EXPECT_EQ(sglang_mamba_ratio("extra_buffer", true, false, true), 4u);
  EXPECT_EQ(sglang_mamba_ratio("extra_buffer", false, false), 4u);
  EXPECT_EQ(sglang_mamba_ratio("extra_buffer", true, true), 1u);
  // R's PP fixture: 93 layers, Mamba at every i with (i + 1) % 4 != 0 and i <= 90 (69 layers);
  // conv (4096, 3) bf16 + temporal (64, 128, 128) fp32 = 24,576 + 4,194,304 = 4,218,880 B a
  // layer, 291,102,720 B a request; budget 8 GiB · 0.5 / 1.5 = 2,863,311,530.7 B.
  //   one stage: int((budget − 291,102,720) // 291,102,720) = 8 slots (9 held with padding);
  //   8 stages split 11, 11, 12, 12, 12, 12, 12, 11 (get_pp_indices) hold 9, 8, 8, 9, 9, 9, 9, 8
  //   Mamba layers: every rank charges the busiest, 9 · 4,218,880 = 37,969,920 B:
  //   int((budget − 37,969,920) // 37,969,920) = 74 (> 5 · 8).
  constexpr std::uint64_t kLayer = 4218880;
  SglangPoolInput p{.rest_bytes = 8 * GiB,
                    .full_cell = 2048,
                    .full_layers = 24,
                    .state_bytes = 69 * kLayer,
                    .mamba_full_memory_ratio_ppm = 500000};
  auto pools = sglang_pools(p);
  EXPECT_EQ(pools.mamba_slots, 8u);
  EXPECT_EQ(pools.mamba_bytes, 9 * 69 * kLayer);
  p.state_bytes = 9 * kLayer;
  EXPECT_EQ(sglang_pools(p).mamba_slots, 74u);
  EXPECT_GT(sglang_pools(p).mamba_slots, 5 * pools.mamba_slots);
}

// Speculative decoding on a hybrid Mamba model (_handle_max_mamba_cache, kv_cache_configurator.py
// @382343f8): D = 4 draft tokens, ratio 5, S = 77,266,944 B (Qwen3-Next at TP 1), rest 10^10 B,
// r = 0.9, --max-running-requests 48. budget = 10^10 · 0.9 / 1.9 = 4,736,842,105.3 B;
//   K = int((budget − S · 5) // (S · (1 + 4 / 5))) = int(4,350,507,385.3 // 139,080,499.2) = 31;
//   intermediates for min(48, 31 // 5) + 1 = 7 requests: 7 · 4 · S = 2,163,474,432 B;
//   states (31 + 1) · S = 2,472,542,208 B; KV 10^10 − both = 5,363,983,360 B // 24,576 = 218,261
//   tokens; running min(48, 218,261 // 2, 31 // 5) = 6.
// The explicit pool (--max-mamba-cache-size 20 over 2 DP-attention groups: 10 a group): 11 · S
// held, intermediates (min(48, 10 // 5) + 1) · 4 · S.
TEST(SglangParity, SpeculativeIntermediatesBesideTheMambaSlots) {
  constexpr std::uint64_t S = 77266944;
  SglangPoolInput p{.rest_bytes = 10000000000,
                    .full_cell = 2048,
                    .full_layers = 12,
                    .state_bytes = S,
                    .context_len = 8192,
                    .max_running_requests = 48,
                    .mamba_ratio = 5,
                    .speculative_draft_tokens = 4};
  auto pools = sglang_pools(p);
  EXPECT_EQ(pools.mamba_slots, 31u);
  EXPECT_EQ(pools.mamba_intermediate_bytes, 7 * 4 * S);
  EXPECT_EQ(pools.mamba_bytes, 32 * S);
  EXPECT_EQ(pools.full_tokens, 218261u);
  EXPECT_EQ(pools.max_running_requests, 6u);
  // Without speculative decoding: int((budget − S) // S) = 60.
  p.speculative_draft_tokens = 0;
  EXPECT_EQ(sglang_pools(p).mamba_slots, 60u);
  p.speculative_draft_tokens = 4;
  p.max_mamba_cache_size = 20;
  p.attention_dp = 2;
  pools = sglang_pools(p);
  EXPECT_EQ(pools.mamba_slots, 10u);
  EXPECT_EQ(pools.mamba_bytes, 11 * S);
  EXPECT_EQ(pools.mamba_intermediate_bytes, 3 * 4 * S);
  EXPECT_EQ(pools.max_running_requests, 2u);
  // Without the radix cache and with --max-running-requests 48: 48 slots, 49 · 4 intermediates.
  p.max_mamba_cache_size.reset();
  p.attention_dp = 1;
  p.disable_radix_cache = true;
  p.mamba_ratio = 1;
  p.rest_bytes = 400000000000;
  pools = sglang_pools(p);
  EXPECT_EQ(pools.mamba_slots, 48u);
  EXPECT_EQ(pools.mamba_intermediate_bytes, 49 * 4 * S);
  // A speculative pool needs the running requests SGLang sets before sizing.
  p.max_running_requests.reset();
  EXPECT_THROW(sglang_pools(p), Error);
}

// Pipeline stages (_handle_max_mamba_cache under PP): Qwen3-Next's 48 layers over 5 stages split
// 9, 10, 10, 10, 9 (get_pp_indices), holding 7, 8, 7, 8, 6 gated-delta-net layers; every rank
// charges the busiest, 8 · 2,146,304 = 17,170,432 B a request (77,266,944 / 36 a layer). With 40
// GiB a rank: K = int((40 GiB · 0.9 / 1.9 − 17,170,432) // 17,170,432) = 1183; under PP the overlap
// scheduler is off and pages hold one token, so "auto" is no_buffer, 3 a request: 1183 // 3 = 394.
// The stages with 3 full-attention layers (2 KV heads · (256 + 256) · 2 B = 2,048 B a layer a
// token) hold (40 GiB − 1184 · 17,170,432) // 6,144 = 3,681,621 tokens, and
// _apply_token_constraints all-reduces the ranks' capacity to that least (the 2-layer stages'
// 5,522,432 is not what the engine runs): 449 requests of 8192 by the pool; 394 run.
TEST(SglangParity, PipelineStagesShareTheBusiestState) {
  const auto m = load_model("qwen3-next-80b-a3b");
  auto in = sglang(40 * GiB, 8192);
  in.pp = 5;
  const auto c = plan_capacity(m, in);
  EXPECT_EQ(c.kv_cache_tokens, 3681621u);
  EXPECT_EQ(c.max_requests, 394u);
  ASSERT_EQ(c.stages.size(), 5u);
  for (const auto& s : c.stages) EXPECT_EQ(s.sglang_max_running, 394u) << s.stage;
}

// Decode context parallelism (--dcp-size d). Inventory of
//   D = test/registered/dcp/test_dcp_layout_unit.py @ sgl-project/sglang 382343f860c7df8dc43ecefd
//       7902c940d81c99a9 (against configs/model_config.py get_num_kv_heads and
//       mem_cache/kv_cache_configurator.py's PagedTokenToKVPoolAllocator(max_total · d, page · d)):
//   test_model_config_uses_non_dcp_tp_size_for_kv_heads: 8 KV heads at TP 16, 1 a rank; DCP 4:
//     8 // (16 // 4) = 2                       this TEST (the page a token)
//   test_a_draft_keeps_kv_heads_tp_sharded_under_dcp (1 both ways)
//                                              not expressible: a draft model's own heads
//                                              (kvplan's drafts are MTP layers of the target)
//   test_paged_allocator_exposes_dcp_virtual_capacity: a rank's 1,024 tokens at page 64 under DCP
//     4 are 4,096 virtual tokens in 16 pages of 256
//                                              this TEST (the requests those pages hold)
//   the rest: index filtering and lengths, no sizing number.
//   H = test/registered/unit/mem_cache/test_hicache_dcp_host_pool.py @ 382343f8 (the host pool
//     stays physical: (2 · 1,024 // 64 + 1) · 64 = 2,112 tokens, logical 16,896)
//                                              KvTiers.SglangHicacheUnderDcpStaysPhysical
// Llama-3.1-70B (80 layers, 64 query and 8 KV heads of 128) at TP 16: one KV head a rank, 80 · 1
// · 128 · 2 · 2 = 40,960 B a token; under DCP 4, two heads, 81,920 B. A pool of 1,024 tokens
// (1,024 · 81,920 B, page 64): a request of n tokens takes cdiv(n, 64 · 4) pages of 64 on each
// rank, so 16 requests of 256 tokens (4 without DCP: 256 // 64 pages each of 16) and 1 of 4,096.
TEST(SglangParity, DecodeContextParallelismAsSglangsDcpTests) {
  const auto m = load_model("llama-3.1-70b");
  auto in = sglang(std::uint64_t{1024} * 81920, 256);
  in.tp = 16;
  in.block_size = 64;
  in.edit_sglang().dcp_size = 4;
  auto c = plan_capacity(m, in);
  EXPECT_EQ(c.page_bytes, 64u * 2 * 128 * 2 * 2);  // a layer's page of 64 tokens, 2 heads
  EXPECT_EQ(c.kv_cache_tokens, 1024u);
  EXPECT_EQ(c.max_requests, 16u);
  in.context = 4096;
  EXPECT_EQ(plan_capacity(m, in).max_requests, 1u);
  in.context = 256;
  in.edit_sglang().dcp_size = 1;
  in.available_kv_bytes = std::uint64_t{1024} * 40960;
  c = plan_capacity(m, in);
  EXPECT_EQ(c.page_bytes, 64u * 1 * 128 * 2 * 2);
  EXPECT_EQ(c.max_requests, 4u);
  // DCP groups are consecutive ranks of the TP group: 3 does not divide 16.
  in.edit_sglang().dcp_size = 3;
  try {
    plan_capacity(m, in);
    ADD_FAILURE() << "DCP 3 at TP 16 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "decode_context_parallel_size");
  }
}

// ReplaySSM's spec-verify window (--enable-linear-replayssm-spec). Inventory of
//   W = test/registered/unit/mem_cache/test_replayssm_ring_accounting.py @ sgl-project/sglang
//       382343f860c7df8dc43ecefd7902c940d81c99a9 (BaseLinearStateParams.replayssm_ring_bytes_per_
//       req, configs/mamba_utils.py at the same commit):
//   test_gdn_fold: temporal (4 value heads, v 8, k 8), 4 key heads a rank, record_len 8, bf16 conv,
//     2 layers: a layer 4 · 8 · 8 · 2 (raw v) + 4 · 8 · 8 · 2 (raw k) + 4 · 8 · 4 (beta) + 4 · 8 ·
//     4 (gate) = 1,280, 2,560 in all          this TEST
//   test_zero_len_ring: record_len 0 -> 0    this TEST
//   test_kda_fold: KimiLinearStateShape.create(tp 1, 4 heads of 8, 4 key heads of 8), record_len
//     8, 2 layers: rawv 512 + rawk 512 + a per-K gate 4 · 8 · 8 · 4 = 1,024 + beta 128 + d 512 +
//     k 512 = 3,200 a layer, 6,400          this TEST
// The pool (_handle_max_mamba_cache with the window): no intermediate states; each slot holds its
// state and window, K = int((budget − (S + R)) // (S + R)). Qwen3-Next at TP 1 (32 value heads of
// 128, 16 key heads of 128, bf16 conv) with 4 draft tokens: R = 36 · (32 · 4 · 128 · 2 + 16 · 4 ·
// 128 · 2 + 32 · 4 · 8) = 36 · 50,176 = 1,806,336 B; rest 10^10 B, budget 4,736,842,105.3 B:
// K = int(4,657,768,825.3 // 79,073,280) = 58, 59 slots of 79,073,280 = 4,665,323,520 B; KV
// (10^10 − that) // 24,576 = 217,068 tokens; 58 // 5 = 11 run.
TEST(SglangParity, ReplaySsmWindowAsSglangsRingTest) {
  RecurrentSpec r;
  r.kind = MixerKind::gated_delta_net;
  r.heads = 4;
  r.head_dim = 8;
  r.key_heads = 4;
  r.key_head_dim = 8;
  EXPECT_EQ(2 * sglang_replayssm_ring_bytes(r, 1, KvDtype::bf16, 8), 2560u);
  EXPECT_EQ(sglang_replayssm_ring_bytes(r, 1, KvDtype::bf16, 0), 0u);
  RecurrentSpec kda = r;
  kda.kda = true;
  EXPECT_EQ(2 * sglang_replayssm_ring_bytes(kda, 1, KvDtype::bf16, 8), 6400u);
  EXPECT_EQ(sglang_replayssm_ring_bytes(kda, 1, KvDtype::bf16, 0), 0u);
  const auto m = load_model("qwen3-next-80b-a3b");
  const std::uint64_t ring = 36 * sglang_replayssm_ring_bytes(m.recurrent, 1, KvDtype::bf16, 4);
  EXPECT_EQ(ring, 1806336u);
  SglangPoolInput p{.rest_bytes = 10000000000,
                    .full_cell = 2048,
                    .full_layers = 12,
                    .state_bytes = 77266944,
                    .context_len = 8192,
                    .max_running_requests = 48,
                    .mamba_ratio = 5,
                    .speculative_draft_tokens = 4,
                    .replayssm_ring_bytes = ring};
  const auto pools = sglang_pools(p);
  EXPECT_EQ(pools.mamba_slots, 58u);
  EXPECT_EQ(pools.mamba_bytes, 4665323520u);
  EXPECT_EQ(pools.mamba_intermediate_bytes, 0u);
  EXPECT_EQ(pools.full_tokens, 217068u);
  EXPECT_EQ(pools.max_running_requests, 11u);
}

TEST(SglangParity, BadRatiosRefused) {
  SglangPoolInput p{.rest_bytes = 1 << 20, .full_cell = 2048, .full_layers = 1};
  p.swa_full_tokens_ratio_ppm = 0;
  EXPECT_THROW(sglang_pools(p), Error);
  p.swa_full_tokens_ratio_ppm = 800000;
  p.page_size = 0;
  EXPECT_THROW(sglang_pools(p), Error);
}

// DeepSeek-V3.2 (DSA): the cell adds the indexer of DSA models, (index_head_dim + index_head_dim
// // 128 · 4) · layers · 1 (uint8) beside the MLA latent (kv_lora_rank + qk_rope_head_dim) ·
// layers · kv_size (M get_cell_size_per_token; DefaultPoolConfigurator._compute_cell_size and
// _compute_dsa_indexer_cell_size, model_executor/pool_configurator.py@382343f860c7df8dc43ecefd79
// 02c940d81c99a9). 61 layers, latent 512 + 64, index 128: bf16 cell = 61 · (576 · 2 + 128 + 4) =
// 61 · 1284 = 78,324 B. fp8: calculate_mla_kv_cache_dim (mem_cache/kv_cache_configurator.py
// @382343f8) stores 512 + 512 // 128 · 4 + 64 · 2 = 656 B a layer for the scaled layout of the
// Hopper default (flashmla_kv; and of an unknown GPU), 61 · (656 + 132) = 48,068 B; Blackwell's
// default (trtllm) keeps the raw 576: 61 · (576 + 132) = 43,188 B. rest = 100,000 cells of each:
// 100,000 tokens (page 1). Inventory of
//   H = test/registered/unit/model_executor/test_hisparse_pool_configurator.py @ 382343f8:
//   test_mla_layout_without_hisparse: 2 layers of GlmMoeDsaForCausalLM's shape (512 + 64, index
//     128), flashmla_sparse: bf16 2 · 1,152 + 2 · 132 = 2,568, fp8 2 · 656 + 264 = 1,576
//                                              this TEST (the per-layer rows above)
//   test_hisparse_indexer_scales_with_ratio (1,840 and 2,368: the indexer times HiSparse's
//     host-to-device ratio)                    not kvplan's: HiSparse is not modelled
TEST(SglangParity, DsaIndexerInTheCell) {
  const auto m = load_model("deepseek-v3.2");
  ASSERT_EQ(m.index_head_dim, 128u);
  auto in = sglang(std::uint64_t{78324} * 100000, 32768);
  in.tp = 8;  // MLA keeps the whole latent on every rank
  EXPECT_EQ(plan_capacity(m, in).kv_cache_tokens, 100000u);
  in.available_kv_bytes = std::uint64_t{78324} * 100000 - 1;
  EXPECT_EQ(plan_capacity(m, in).kv_cache_tokens, 99999u);
  in.format = parse_kv_format("fp8");
  in.available_kv_bytes = std::uint64_t{48068} * 100000;
  EXPECT_EQ(plan_capacity(m, in).kv_cache_tokens, 100000u);
  in.gpu_id = "h200-141gb";
  EXPECT_EQ(plan_capacity(m, in).kv_cache_tokens, 100000u);
  in.gpu_id = "b200";
  in.available_kv_bytes = std::uint64_t{43188} * 100000;
  EXPECT_EQ(plan_capacity(m, in).kv_cache_tokens, 100000u);
  // H's two layers, per token: 2 · (576 · 2 + 132) = 2,568 (bf16), 2 · (656 + 132) = 1,576 (fp8).
  EXPECT_EQ(2 * (576 * 2 + indexer_bytes_per_token(128)), 2568u);
  EXPECT_EQ(2 * (dsa_fp8_latent_bytes_per_token(512, 64) + indexer_bytes_per_token(128)), 1576u);
}

// The pools from a budget. Inventory of
//   P = test/registered/unit/model_executor/test_pool_configurator.py
//       @ sgl-project/sglang d715421666e1315004d0646bddbf5248e3a6eadd
// (against model_executor/pool_configurator.py @ 6fde4f6f8697eec653634eadc0576eeb51980666):
//   TestDefaultConfigurator: test_memory_utilization, test_page_alignment,
//   test_constraint_respected, test_constraint_page_aligned, test_no_swa_fields
//                                              PoolsFromABudgetAsSglangsConfiguratorTests
//   TestHybridSWAConfigurator (7)              PoolsFromABudgetAsSglangsConfiguratorTests (kvplan
//                                              follows this configurator for hybrid SWA pools)
//   The later _resolve_max_num_reqs (token_capacity // 2 inside the estimate, the Mamba ratio
//   3 + the extra-buffer slots) is not kvplan's; no test of P sizes it.
//   TestAllSWAConfigurator (4)                 PoolsFromABudgetAsSglangsConfiguratorTests
//   TestFactory (2)                            no sizing number (which class)
// P's fixture: 4 KV heads of 64 + 64 in 2-byte elements, 1,024 B a token and layer; 32 layers
// (cell 32,768 B), or 16 full + 16 SWA layers, or 32 SWA layers; 10,000,000 B available.
TEST(SglangParity, PoolsFromABudgetAsSglangsConfiguratorTests) {
  constexpr std::uint64_t kAvail = 10000000;
  // Default: 10,000,000 // 32,768 = 305 tokens, 9,994,240 B (within 1 %); page 128: 256; no SWA.
  SglangPoolInput d{.rest_bytes = kAvail, .full_cell = 1024, .full_layers = 32};
  auto p = sglang_pools(d);
  EXPECT_EQ(p.full_tokens, 305u);
  EXPECT_GT(p.full_tokens * 32768, kAvail * 99 / 100);
  EXPECT_EQ(p.swa_tokens, 0u);
  d.page_size = 128;
  EXPECT_EQ(sglang_pools(d).full_tokens, 256u);
  // The constraint path: a cap below the budget's count, page-aligned: 100 at page 1, 1,000 at
  // page 128 -> 896.
  d.rest_bytes = std::uint64_t{32768} * 2000;
  d.max_total_tokens = 1000;
  EXPECT_EQ(sglang_pools(d).full_tokens, 896u);
  d.page_size = 1;
  d.max_total_tokens = 100;
  EXPECT_EQ(sglang_pools(d).full_tokens, 100u);
  // Hybrid SWA, 16 + 16 layers (HybridSWAPoolConfigurator): full = 10,000,000 // (16 · 1,024 +
  // 0.5 · 16 · 1,024) = 406, SWA int(406 · 0.5) = 203; 406 · 16 · 1,024 + 203 · 16 · 1,024 =
  // 9,977,856 B (within 1 %). Each ratio keeps SWA = int(full · ratio): 0.25 -> 488 / 122, 0.75
  // -> 348 / 261, 1.0 -> 305 / 305.
  SglangPoolInput h{.rest_bytes = kAvail,
                    .full_cell = 1024,
                    .full_layers = 16,
                    .swa_cell = 1024,
                    .swa_layers = 16,
                    .swa_full_tokens_ratio_ppm = 500000};
  p = sglang_pools(h);
  EXPECT_EQ(p.full_tokens, 406u);
  EXPECT_EQ(p.swa_tokens, 203u);
  EXPECT_LE((p.full_tokens + p.swa_tokens) * 16 * 1024, kAvail);
  EXPECT_GT((p.full_tokens + p.swa_tokens) * 16 * 1024, kAvail * 99 / 100);
  for (const auto& [ratio, full, swa] :
       {std::tuple{250000u, 488u, 122u}, {750000u, 348u, 261u}, {1000000u, 305u, 305u}}) {
    h.swa_full_tokens_ratio_ppm = ratio;
    p = sglang_pools(h);
    EXPECT_EQ(p.full_tokens, full);
    EXPECT_EQ(p.swa_tokens, swa);
  }
  // Page 128: full 406 -> 384 (max_total_num_tokens = full), SWA int(384 · 0.5) = 192 -> 128.
  h.swa_full_tokens_ratio_ppm = 500000;
  h.page_size = 128;
  p = sglang_pools(h);
  EXPECT_EQ(p.full_tokens, 384u);
  EXPECT_EQ(p.swa_tokens, 128u);
  EXPECT_EQ(p.swa_tokens, p.full_tokens / 2 / 128 * 128);
  // The constraint path caps the full pool: --max-total-tokens 200 -> full 200, SWA 100; half
  // the profiled 406 (203) -> full 203, SWA 101, (203 + 101) · 16 · 1,024 B against 609 · 16 ·
  // 1,024 before: 0.4992, P's "roughly half".
  h.page_size = 1;
  h.max_total_tokens = 200;
  p = sglang_pools(h);
  EXPECT_EQ(p.full_tokens, 200u);
  EXPECT_EQ(p.swa_tokens, 100u);
  h.max_total_tokens = 203;
  p = sglang_pools(h);
  EXPECT_EQ(p.full_tokens, 203u);
  EXPECT_EQ(p.swa_tokens, 101u);
  h.max_total_tokens.reset();
  // 24 full + 8 SWA: full = 10,000,000 // (24 · 1,024 + 0.5 · 8 · 1,024) = 348, SWA 174.
  h.full_layers = 24;
  h.swa_layers = 8;
  p = sglang_pools(h);
  EXPECT_EQ(p.full_tokens, 348u);
  EXPECT_EQ(p.swa_tokens, 174u);
  // All SWA (32 layers): no full pool, 305 SWA tokens (9,994,240 B); a cap of 500 with room for
  // it gives 500.
  SglangPoolInput a{.rest_bytes = kAvail, .swa_cell = 1024, .swa_layers = 32};
  p = sglang_pools(a);
  EXPECT_EQ(p.full_tokens, 0u);
  EXPECT_EQ(p.swa_tokens, 305u);
  a.rest_bytes = std::uint64_t{32768} * 1000;
  a.max_total_tokens = 500;
  EXPECT_EQ(sglang_pools(a).swa_tokens, 500u);
}

// The SWA pool from a cap (SWAChunkCapPoolConfigurator, which SGLang picks with
// --max-running-requests, --disable-radix-cache and chunked prefill). Inventory of P's chunk-cap
// tests at sgl-project/sglang@382343f860c7df8dc43ecefd7902c940d81c99a9 (read from the mirror
// yuan-luo/sglang), their fixture's SGLANG_SWA_EVICTION_INTERVAL 4, one full and one SWA layer of
// 1,024 B a token, window 8, 2 running requests:
//   test_chunk_cache_cap_accounts_for_spec_topk_page_rounding (104)   this TEST
//   test_chunk_cache_cap_doubles_decode_alloc_for_spec_v2_overlap (91) this TEST
//   test_chunk_cache_cap_prefill_holds_window_plus_chunk (76)          this TEST (a prefill
//                                               server sizes as a plain one)
//   test_chunk_cache_cap_accounts_for_draft_swa_layers                 no number (the budget
//                                               bound, which this TEST checks on case 1)
//   test_chunk_cache_cap_drops_prefill_for_disagg_decode (100),
//   test_chunk_cache_cap_disagg_decode_pre_alloc (110)                 SwaPoolCapOfADecodeWorker
// By hand, cap = per_request · running + chunks · chunk + page, per_request = window + eviction ·
// draft tokens + page + decode_alloc:
//   1. page 4, EAGLE 3 steps, top-k 2, 5 draft tokens, overlap off (spec-v1): decode_alloc =
//      max(ceil4(3 + 4) · 2, ceil4(5)) = 16; 8 + 4 · 5 + 4 + 16 = 48; 48 · 2 + 1 · 4 + 4 = 104.
//   2. page 1, the same drafts, overlap on (spec-v2): decode_alloc = 2 · max(3 · 2, 5) = 12;
//      8 + 20 + 1 + 12 = 41; 41 · 2 + 2 · 4 + 1 = 91.
//   3. page 4, chunk 16, no drafts, overlap on: 8 + 4 + 4 + 4 = 20; 20 · 2 + 2 · 16 + 4 = 76.
// Case 1's pools from 1,000,000 B: SWA 104 tokens (106,496 B), full (1,000,000 − 106,496) //
// 1,024 = 872 (a multiple of 4): 999,424 B in all.
TEST(SglangParity, SwaPoolCapAsSglangsChunkCacheTests) {
  SglangSwaCapInput one{.window = 8,
                        .running = 2,
                        .chunked_prefill_size = 4,
                        .page_size = 4,
                        .overlap_schedule = false,
                        .speculative_algorithm = "eagle",
                        .num_steps = 3,
                        .eagle_topk = 2,
                        .num_draft_tokens = 5,
                        .eviction_interval = 4};
  EXPECT_EQ(sglang_swa_chunk_cap(one), 104u);
  SglangSwaCapInput two = one;
  two.page_size = 1;
  two.overlap_schedule = true;
  EXPECT_EQ(sglang_swa_chunk_cap(two), 91u);
  const SglangSwaCapInput three{.window = 8,
                                .running = 2,
                                .chunked_prefill_size = 16,
                                .page_size = 4,
                                .eviction_interval = 4};
  EXPECT_EQ(sglang_swa_chunk_cap(three), 76u);
  SglangPoolInput h{.rest_bytes = 1000000,
                    .full_cell = 1024,
                    .full_layers = 1,
                    .swa_cell = 1024,
                    .swa_layers = 1,
                    .page_size = 4,
                    .swa_full_tokens_ratio_ppm = 500000,
                    .swa_cap_tokens = 104};
  const auto p = sglang_pools(h);
  EXPECT_EQ(p.swa_tokens, 104u);
  EXPECT_EQ(p.full_tokens, 872u);
  EXPECT_LE((p.full_tokens + p.swa_tokens) * 1024, h.rest_bytes);
  // --max-total-tokens caps the full pool and the SWA pool at it
  // (calculate_pool_sizes_from_max_tokens): 100 -> full 100, SWA min(104, 100) = 100.
  h.max_total_tokens = 100;
  EXPECT_EQ(sglang_pools(h).full_tokens, 100u);
  EXPECT_EQ(sglang_pools(h).swa_tokens, 100u);
  // A cap whose SWA pool takes the whole budget leaves no full pool, and SGLang does not start
  // ("SWA pool cap ... leaves no room for the full KV pool"): no pool at all. A cap of 977 is 980
  // tokens at page 4, 1,003,520 B of the 1,000,000.
  h.max_total_tokens.reset();
  h.swa_cap_tokens = 977;
  EXPECT_EQ(sglang_pools(h).full_tokens, 0u);
  EXPECT_EQ(sglang_pools(h).swa_tokens, 0u);
}

// Through the planner: the gpt-oss-like model (12 full + 12 SWA layers of 2,048 B a token,
// window 128) with --disable-radix-cache, --max-running-requests 64, chunk 8,192, page 1, the
// overlap scheduler on, SGLang's eviction interval 128: per request 128 + 128 + 1 + 1 = 258, cap
// 258 · 64 + 2 · 8,192 + 1 = 32,897 SWA tokens (808,476,672 B); the full pool (4,915,200,000 −
// 808,476,672) // 24,576 = 167,103 tokens, where the ratio split gives 111,111. With the radix
// cache on, or without --max-running-requests, the ratio split stands.
TEST(SglangParity, SwaPoolCapThroughThePlanner) {
  auto in = sglang(kRest, 32768);
  in.edit_sglang().hybrid_swa = true;
  in.edit_sglang().disable_radix_cache = true;
  in.max_num_seqs = 64;
  in.max_num_batched_tokens = 8192;
  const ModelSpec m = swa_model("gpt-oss-like");
  EXPECT_EQ(plan_capacity(m, in).kv_cache_tokens, 167103u);
  EXPECT_EQ(plan_capacity(m, in).max_requests, 5u);  // 167,103 // 32,768
  in.edit_sglang().disable_radix_cache = false;
  EXPECT_EQ(plan_capacity(m, in).kv_cache_tokens, 111111u);
  in.edit_sglang().disable_radix_cache = true;
  in.max_num_seqs.reset();
  EXPECT_EQ(plan_capacity(m, in).kv_cache_tokens, 111111u);
}

// A decode worker of prefill / decode disaggregation (--disaggregation-mode decode): SGLang's
// own two cases (test_pool_configurator.py@382343f860c7df8dc43ecefd7902c940d81c99a9, the
// fixture's eviction interval 4): window 4, page 1, 10 running requests, no drafts: per request
// 4 + 4 + 1 + 1 = 10, no chunk in flight: 10 · 10 = 100; with 2 extra slots of window + page = 5
// tokens each, 110.
// Through the planner (the gpt-oss-like model of SwaPoolCapThroughThePlanner, the radix cache
// NOT disabled: the decode worker turns it off itself, pd_disaggregation_hook.py@382343f8):
//   64 running: per request 258, no extra slots by default (64 > 32): cap 258 · 64 = 16,512 SWA
//     tokens (405,798,912 B); full (4,915,200,000 − 405,798,912) // 24,576 = 183,488 tokens;
//   16 running: 2 · 16 = 32 extra slots by default: 258 · 16 + 129 · 32 = 8,256 SWA tokens
//     (202,899,456 B); full 191,744 tokens; the request table (16 + 32 + 1) rows of (32,768 + 4)
//     int32, 6,423,312 B, where a plain server's 17 rows take 2,228,496 B;
//   --disaggregation-decode-enable-radix-cache keeps the radix cache: the ratio split, 111,111.
TEST(SglangParity, SwaPoolCapOfADecodeWorker) {
  SglangSwaCapInput d{.window = 4,
                      .running = 10,
                      .chunked_prefill_size = 1000,
                      .page_size = 1,
                      .eviction_interval = 4,
                      .disaggregation_decode = true};
  EXPECT_EQ(sglang_swa_chunk_cap(d), 100u);
  d.decode_extra_slots = 2;
  EXPECT_EQ(sglang_swa_chunk_cap(d), 110u);

  auto in = sglang(kRest, 32768);
  in.edit_sglang().hybrid_swa = true;
  in.edit_sglang().disaggregation_mode = "decode";
  in.max_num_seqs = 64;
  in.max_num_batched_tokens = 8192;
  const ModelSpec m = swa_model("gpt-oss-like");
  EXPECT_EQ(sglang_decode_extra_slots(in), 0u);
  EXPECT_EQ(plan_capacity(m, in).kv_cache_tokens, 183488u);
  in.max_num_seqs = 16;
  EXPECT_EQ(sglang_decode_extra_slots(in), 32u);
  const Capacity c = plan_capacity(m, in);
  EXPECT_EQ(c.kv_cache_tokens, 191744u);
  ASSERT_TRUE(request_table_of(c, in));
  EXPECT_EQ(request_table_of(c, in)->bytes, 6423312u);
  in.edit_sglang().disaggregation_decode_extra_slots = 2;
  EXPECT_EQ(sglang_decode_extra_slots(in), 2u);
  in.edit_sglang().disaggregation_decode_extra_slots.reset();
  in.edit_sglang().disaggregation_decode_enable_radix_cache = true;
  EXPECT_EQ(plan_capacity(m, in).kv_cache_tokens, 111111u);
  // A prefill worker sizes as a plain server: the radix cache on, the ratio split; its request
  // table 17 rows.
  in.edit_sglang().disaggregation_decode_enable_radix_cache = false;
  in.edit_sglang().disaggregation_mode = "prefill";
  const Capacity pf = plan_capacity(m, in);
  EXPECT_EQ(pf.kv_cache_tokens, 111111u);
  EXPECT_EQ(request_table_of(pf, in)->bytes, 2228496u);
  EXPECT_EQ(sglang_decode_extra_slots(in), 0u);
}

// The request table's rows. Inventory of
//   A = test/registered/unit/mem_cache/test_allocation_sizing.py
//       @ sgl-project/sglang 92760af820c4d5debe941bac80d2993e3179374b
// (every test function with a concrete sizing number → its TEST here), against
// python/sglang/srt/mem_cache/allocation_sizing.py @ 84be7ff586100a0ad5fb372433a0dd30421599b0:
//   TestAllocPageSizeUpperBound (2), TestReqToTokenRowWidth (3),
//   TestRowWidthCoversDecodeReserve (6), TestDecodeReserveTracksTheAllocatorPage (4)
//                                              ReqToTokenRowsHoldTheDecodeReserve
//   TestAssertAllocWithinRowWidth (2)           no sizing number (an assertion's bound)
// By hand, each case's row: context + max(4 + draft tokens, the decode reserve at the page and at
// page · DCP), rounded up to page · DCP; the reserve is 2 · max(steps · topk, draft tokens), or
// with page > 1, topk > 1 and a draft that writes KV, 2 · max(ceil((page − 1 + steps + page − 1)
// / page) · page · topk, draft tokens) (the file's own integer form).
TEST(SglangParity, ReqToTokenRowsHoldTheDecodeReserve) {
  auto row = [](SglangRowInput in) { return sglang_req_to_token_row_width(in); };
  // The page upper bound is page · DCP: 64 and 256; the row rounds up to it.
  // context 131,074 at page 64: 131,078 rounded up to 64 = 131,136.
  EXPECT_EQ(row({.context = 131074, .page_size = 64}), 131136u);
  EXPECT_EQ(row({.context = 4096, .page_size = 64, .dcp_size = 4}), 4096u + 256);  // 4,100 -> 4,352
  // Across pages and contexts straddling a page edge the row never truncates.
  for (std::uint32_t page : {1u, 16u, 64u, 128u})
    for (std::uint64_t ctx : {page * 8ull - 1, page * 8ull, page * 8ull + 1}) {
      const std::uint64_t r = row({.context = ctx, .page_size = page});
      EXPECT_GE(r, (ctx + page - 1) / page * page);
      EXPECT_EQ(r % page, 0u);
    }
  // Page 1, no speculative decoding: exactly the 4 columns of headroom, 4,100.
  EXPECT_EQ(row({.context = 4096}), 4100u);
  // NGRAM, 12 draft tokens, page 1: reserve 2 · 12 = 24 > 4 + 12: 4,120.
  EXPECT_EQ(row({.context = 4096, .speculative_algorithm = "ngram", .num_draft_tokens = 12}),
            4096u + 24);
  // DFLASH, block 16: 2 · 16 = 32.
  EXPECT_EQ(row({.context = 4096, .speculative_algorithm = "dflash", .num_draft_tokens = 16}),
            4096u + 32);
  // EAGLE tree, page 16, 3 steps, top-k 4, 8 draft tokens: (15 + 3 + 15) // 16 = 2 pages a
  // branch, 2 · 16 · 4 = 128, doubled 256.
  const SglangRowInput eagle{.context = 4096,
                             .page_size = 16,
                             .speculative_algorithm = "eagle",
                             .num_steps = 3,
                             .eagle_topk = 4,
                             .num_draft_tokens = 8};
  EXPECT_EQ(row(eagle), 4096u + 256);
  EXPECT_EQ(sglang_decode_reserve(eagle, 16), 256u);
  // Under DCP 4 the paged allocator runs at page 64: (63 + 3 + 63) // 64 = 2, 2 · 64 · 4 = 512,
  // doubled 1,024; the row 5,120 is a multiple of 64.
  SglangRowInput dcp = eagle;
  dcp.dcp_size = 4;
  EXPECT_EQ(sglang_decode_reserve(dcp, 64), 1024u);
  EXPECT_EQ(sglang_decode_reserve(dcp, 16), 256u);  // the reserve follows the page it is given
  EXPECT_EQ(row(dcp), 4096u + 1024);
  // Page 1 with DCP 4 still pages at 4: (3 + 3 + 3) // 4 = 2, 2 · 4 · 4 = 32, doubled 64.
  SglangRowInput one = dcp;
  one.page_size = 1;
  EXPECT_EQ(row(one), 4096u + 64);
  // NGRAM with no draft token count: max(1 · 1, 0) = 1, reserve 2, under the 4 of headroom.
  EXPECT_EQ(row({.context = 4096, .speculative_algorithm = "ngram"}), 4100u);
  // NGRAM writes no draft KV: no per-branch page rounding even at page 16, top-k 4.
  SglangRowInput ngram = eagle;
  ngram.speculative_algorithm = "ngram";
  EXPECT_EQ(sglang_decode_reserve(ngram, 16), 2u * 12);  // max(3 · 4, 8) = 12
}

// SGLang's _split_hicache_size cases (test/registered/unit/mem_cache/test_hybrid_pool_assembler.py
// @382343f860c7df8dc43ecefd7902c940d81c99a9 TestSplitHicacheSize): 100 GB over device pools of
// 75e9 and 15e9 + 10e9 bytes (a (k, v) pair counts as its sum) is 75 / 25, over 55e9, 25e9 and
// 20e9 is 55 / 25 / 20: the budget kept, not doubled.
TEST(SglangParity, HicacheSplitAsSglangsAssemblerTest) {
  EXPECT_EQ(sglang_hicache_split(100, {75'000'000'000u, 15'000'000'000u + 10'000'000'000u}),
            (std::vector<double>{75.0, 25.0}));
  const std::vector<double> three =
      sglang_hicache_split(100, {55'000'000'000u, 25'000'000'000u, 20'000'000'000u});
  EXPECT_EQ(three, (std::vector<double>{55.0, 25.0, 20.0}));
  EXPECT_EQ(three[0] + three[1] + three[2], 100.0);
  EXPECT_TRUE(sglang_hicache_split(100, {0, 0}).empty());  // no device byte: nothing to split
}

// The other SGLang test files with a sizing number, at sgl-project/sglang@382343f860c7df8dc43ecefd
// 7902c940d81c99a9 (read from the mirror yuan-luo/sglang; the survey: every file under test/ and
// python/sglang/test/ naming the pool sizing functions), each test with a number → its TEST here
// or in the file named, or why it cannot be reproduced:
//   unit/model_executor/test_hisparse_pool_configurator.py      DsaIndexerInTheCell (its
//     HiSparse case: HiSparse is not modelled)
//   unit/mem_cache/test_mamba_donated_alloc_ratio.py MambaSlotsAsSglangsDonatedAllocRatio
//                                                               Tests
//   unit/mem_cache/test_mem_pool_host.py TestHostMemoryBudget KvTiers.SglangHostBudgetAsSglangsOwn
//     Test (its ranks_per_host case, world 16 over 2 nodes:     Test; KvTiers.RanksPerNodeCapAtThe
//     8)                                                        Node
//   unit/layers/quantization/test_fp4_kv_cache_quant_method.py  not expressible: kvplan has no
//     (NVFP4 KV cell 4,096 + 512 + 2,048 = 6,656)               NVFP4 KV format
//   unit/mem_cache/test_replayssm_ring_accounting.py           ReplaySsmWindowAsSglangsRingTest
//                                                               (inventoried there)
//   unit/mem_cache/test_hybrid_pool_assembler.py                HicacheSplitAsSglangsAssembler
//     (_split_hicache_size: 100 GB as 75 / 25 and 55 / 25 / 20  Test; the pools it feeds:
//     by device bytes; its draft-sidecar cases build no size)   KvTiers.SglangHicacheOnAHybrid
//                                                               Model, KvTiers.SglangHicacheOnA
//                                                               SlidingWindowHybrid
//   unit/mem_cache/test_hicache_dcp_host_pool.py,               DecodeContextParallelismAsSglangs
//   dcp/test_dcp_layout_unit.py (DCP-widened pages, KV heads    DcpTests (inventoried there),
//     per rank under DCP)                                       KvTiers.SglangHicacheUnderDcpStays
//                                                               Physical
//   unit/hardware_backend/mlx/test_max_running_requests.py,     not kvplan's: the MLX backend's
//   test_attn_dp_request_capacity.py                            resolver (ratio 4)
//   unit/test_model_overrides.py (DeepSeek-V4 page 256, SWA     not followed: DeepSeek-V4 has no
//     ratio 0.1; Step-3.5 with HiCache: no SWA pool)            preset, and the plan does not carry
//                                                               HiCache to the pools
//   unit/test_runtime_context.py (activation reserve, an        PlannerSglang.TokensFromMemFraction
//     equality between two copies)                              Static (the reserve, memory_hook.py
//                                                               @031ed82d, newer than this commit)
//   unit/mem_cache/test_swa_unittest.py (lock tail),            no pool size: admission and
//   test_swa_alloc_extend_page_estimation.py,                   eviction bookkeeping
//   test_hisparse_max_token_pool_size.py,
//   kv_canary/test_self_unit_capacities.py

}  // namespace
}  // namespace kvplan
