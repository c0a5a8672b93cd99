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
// M handle_max_mamba_cache with rest = 40 GiB and ratio 0.9:
//   max_mamba_cache_size = int(40 GiB · 0.9 / 1.9 // 77266944) = 263
//   KV rest = 42949672960 − 263 · 77266944 = 22628466688 -> 22628466688 // 24576 = 920754 tokens
//   max_num_reqs <= 263 // 3 = 87 (M init_memory_pool), so at 8192 tokens (920754 // 8192 =
//   112 by the KV pool) 87 requests run.
TEST(SglangParity, MambaPoolQwen3Next) {
  const auto m = load_model("qwen3-next-80b-a3b");
  const auto c = plan_capacity(m, sglang(40 * GiB, 8192));
  EXPECT_EQ(c.kv_cache_tokens, 920754u);
  EXPECT_EQ(c.max_requests, 87u);
  EXPECT_DOUBLE_EQ(c.max_concurrency, 87.0);
  // --mamba-ssm-dtype bfloat16: 36 · (49152 + 1048576) = 39518208 bytes per request;
  // 40 GiB · 0.9 / 1.9 // 39518208 = 514 slots; (40 GiB − 514 · 39518208) // 24576 = 921114.
  auto bf16 = sglang(40 * GiB, 8192);
  bf16.ssm_state_dtype = KvDtype::bf16;
  const auto b = plan_capacity(m, bf16);
  EXPECT_EQ(b.kv_cache_tokens, 921114u);
  EXPECT_EQ(b.max_requests, 921114u / 8192);  // 112 < 514 // 3 = 171
  // --max-mamba-cache-size 100: (40 GiB − 100 · 77266944) // 24576 = 1433226; 100 // 3 = 33.
  auto fixed = sglang(40 * GiB, 8192);
  fixed.edit_sglang().max_mamba_cache_size = 100;
  const auto f = plan_capacity(m, fixed);
  EXPECT_EQ(f.kv_cache_tokens, 1433226u);
  EXPECT_EQ(f.max_requests, 33u);
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

// The running requests SGLang's scheduler admits (M init_memory_pool's max_num_reqs, then
// TpModelWorker, python/sglang/srt/managers/tp_worker.py@4f34e24af764d45c2dde4a17cadcdaa7d08a7248:
// max_running_requests = min(max_total_num_tokens // 2 unless --max-running-requests,
// req_to_token_pool.size)). 1 layer of 2048 bytes per token:
//   rest 1000 cells, context 100: max_num_reqs = min(max(int(1000 / 100 · 512) = 5120, 2048),
//     4096) = 4096; running = min(1000 // 2, 4096) = 500
//   rest 100,000 cells, context 16384: int(100000 / 16384 · 512) = int(3125.0) = 3125 rows;
//     min(50000, 3125) = 3125.   context 1024: int(50000.0) -> 4096 rows, 4096 running.
//   --max-running-requests 300: 300 rows, 300 running (half the pool not applied).
//   --max-total-tokens 600 on the 1000-cell pool: the table from the profiled 1000 (4096 rows),
//     the scheduler from the capped pool: min(600 // 2, 4096) = 300.
TEST(SglangParity, RunningRequestsFromThePoolAndTheTable) {
  SglangPoolInput p{.rest_bytes = 1000 * 2048, .full_cell = 2048, .full_layers = 1};
  EXPECT_EQ(sglang_pools(p).max_running_requests, 0u);  // no context: nothing computed
  p.context_len = 100;
  auto pools = sglang_pools(p);
  EXPECT_EQ(pools.max_num_reqs, 4096u);
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
  p = {.rest_bytes = 1000 * 2048, .full_cell = 2048, .full_layers = 1, .max_total_tokens = 600};
  p.context_len = 100;
  pools = sglang_pools(p);
  EXPECT_EQ(pools.full_tokens, 600u);
  EXPECT_EQ(pools.max_num_reqs, 4096u);
  EXPECT_EQ(pools.max_running_requests, 300u);
  EXPECT_EQ(sglang_max_num_reqs(std::nullopt, 100000, 16384), 3125u);
  EXPECT_EQ(sglang_max_num_reqs(std::nullopt, 100, 16384), 2048u);  // int(3.125) -> at least 2048
  // A Mamba pool of 6 slots (--max-mamba-cache-size 6, 1 MiB states): rows min(4096, 6 // 3).
  p = {.rest_bytes = 64 << 20, .full_cell = 2048, .full_layers = 1, .state_bytes = 1 << 20};
  p.max_mamba_cache_size = 6;
  p.context_len = 100;
  pools = sglang_pools(p);
  EXPECT_EQ(pools.max_num_reqs, 2u);
  EXPECT_EQ(pools.max_running_requests, 2u);
}

TEST(SglangParity, BadRatiosRefused) {
  SglangPoolInput p{.rest_bytes = 1 << 20, .full_cell = 2048, .full_layers = 1};
  p.swa_full_tokens_ratio_ppm = 0;
  EXPECT_THROW(sglang_pools(p), Error);
  p.swa_full_tokens_ratio_ppm = 800000;
  p.page_size = 0;
  EXPECT_THROW(sglang_pools(p), Error);
}

// DeepSeek-V3.2 (DSA): M get_cell_size_per_token adds the indexer of is_deepseek_nsa models,
// (index_head_dim + index_head_dim // 128 · 4) · layers · 1 (uint8) beside the MLA latent
// (kv_lora_rank + qk_rope_head_dim) · layers · kv_size. 61 layers, latent 512 + 64, index 128:
// bf16 cell = 61 · (576 · 2 + 128 + 4) = 61 · 1284 = 78,324 B; fp8_e4m3 61 · (576 + 132) =
// 43,188 B. rest = 100,000 cells of each: 100,000 tokens (page 1).
TEST(SglangParity, DsaIndexerInTheCell) {
  const auto m = load_model("deepseek-v3.2");
  ASSERT_EQ(m.index_head_dim, 128u);
  auto in = sglang(std::uint64_t{78324} * 100000, 32768);
  in.tp = 8;  // MLA keeps the whole latent on every rank
  EXPECT_EQ(plan_capacity(m, in).kv_cache_tokens, 100000u);
  in.available_kv_bytes = std::uint64_t{78324} * 100000 - 1;
  EXPECT_EQ(plan_capacity(m, in).kv_cache_tokens, 99999u);
  in.format = parse_kv_format("fp8");
  in.available_kv_bytes = std::uint64_t{43188} * 100000;
  EXPECT_EQ(plan_capacity(m, in).kv_cache_tokens, 100000u);
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

}  // namespace
}  // namespace kvplan
