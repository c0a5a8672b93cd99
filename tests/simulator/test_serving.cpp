// The serving simulator's scheduler against timelines worked out by hand (each in the comment
// above its test), with a hand-made step timer: 10 ms per step + 0.1 ms per prefill token
// (decodes cost nothing beyond the step). Pools are Llama-3.1-8B's (fp16, block 16): one block of
// all 32 layers = 16 · 8 · (128 + 128) · 2 · 32 = 2 MiB, so `blocks + 1` (the null block) × 2 MiB
// of measured KV memory gives a pool of `blocks` usable blocks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "kvplan/error.hpp"
#include "kvplan/kv_pool.hpp"
#include "kvplan/kv_tiers.hpp"
#include "kvplan/sim/serving.hpp"
#include "kvplan/sim/serving_report.hpp"
#include "kvplan/sim/workload.hpp"
#include "serving_fixture.hpp"

namespace kvplan::sim {
namespace {

using fixture::MiB;

class LinearTimer final : public StepTimer {
 public:
  double seconds(const StepBatch& b) const override {
    return 0.010 + 1e-4 * static_cast<double>(b.prefill_tokens);
  }
};

ServingConfig config(std::uint64_t usable_blocks, std::uint64_t context,
                     const std::string& model_fmt = "fp16") {
  return fixture::llama_config(usable_blocks, context, model_fmt);
}

using fixture::req;
using fixture::workload;

// Runs the simulation recording every step, and checks the block accounting at every step: each
// sequence holds exactly kv_pool's blocks for its tokens, the pool's used blocks are their sum
// (prefix blocks shared by several sequences once), and never more than the pool.
struct Run {
  SimResult r;
  std::vector<StepRecord> steps;
};
Run run(const ModelSpec& m, const ServingConfig& cfg, const Workload& w) {
  PlanInput plan = cfg.plan;
  plan.max_num_batched_tokens = cfg.max_num_batched_tokens;
  const KvPool pool = make_kv_pool(m, plan);
  Run out;
  SimOptions opt;
  opt.on_step = [&](const StepRecord& s) {
    std::uint64_t sum = 0, shared = 0;
    for (const auto& q : s.seqs) {
      EXPECT_EQ(q.blocks, pool.blocks(q.computed, q.scheduled, w.requests[q.id].prompt_tokens))
          << "request " << q.id << " at t=" << s.t_s;
      sum += q.blocks, shared += q.shared;
    }
    if (!cfg.enable_prefix_caching) {
      EXPECT_EQ(s.blocks_used, sum) << "t=" << s.t_s;
    }
    EXPECT_LE(s.blocks_used, sum);
    EXPECT_GE(s.blocks_used, sum - shared);
    EXPECT_LE(s.blocks_used + s.blocks_cached_free, pool.usable_blocks);
    out.steps.push_back(s);
  };
  out.r = simulate(m, cfg, LinearTimer{}, w, opt);
  for (const auto& k : out.r.kv_series) EXPECT_LE(k.blocks_used, k.blocks_total);
  return out;
}

const ModelSpec& llama() {
  static const ModelSpec m = load_model("llama-3.1-8b");
  return m;
}

// Budget 4096. B (id 0: 100-token prompt, 20 out) and A (id 1: 10,000-token prompt, 3 out) both
// arrive at 0.
//   step 1  t=0       B prefill 100, A chunk min(10000, 3996) = 3996  -> 4096 tokens, 0.4196 s
//   step 2  t=0.4196  B decode, A chunk min(6004, 4095) = 4095        -> 0.4195 s
//   step 3  t=0.8391  B decode, A last chunk 1909: A's first token    -> 0.2009 s, t=1.0400
//   steps 4, 5        decodes of both, 10 ms each: A done at 1.0600 (3 tokens)
//   steps 6..20       B alone: its 20th token at 1.06 + 15 · 0.01 = 1.2100
// A: TTFT 1040 ms, TPOT (1060 − 1040) / 2 = 10 ms; B: TTFT 419.6 ms, E2E 1210 ms.
// Pairs: step 1 = 100·101/2 + 3996·3997/2 = 7991056; step 2 = 4095·3996 + 4095·4096/2 =
// 24750180 and B's decode attends to 101 tokens; step 3 = 1909·8091 + 1909·1910/2 = 17268814.
TEST(Serving, ChunkedPrefillSplitsALongPromptWithOtherDecodes) {
  ServingConfig cfg = config(4000, 16384);
  cfg.max_num_batched_tokens = 4096;
  const auto x = run(llama(), cfg, workload({req(0, 0, 100, 20), req(1, 0, 10000, 3)}));
  ASSERT_EQ(x.steps.size(), 20u);
  EXPECT_EQ(x.r.steps, 20u);
  EXPECT_EQ(x.steps[0].batch.prefill_tokens, 4096u);
  EXPECT_EQ(x.steps[0].batch.decode_tokens, 0u);
  EXPECT_EQ(x.steps[0].batch.prefill_pairs, 7991056u);
  EXPECT_EQ(x.steps[1].batch.prefill_tokens, 4095u);
  EXPECT_EQ(x.steps[1].batch.decode_tokens, 1u);
  EXPECT_EQ(x.steps[1].batch.prefill_pairs, 24750180u);
  EXPECT_EQ(x.steps[1].batch.decode_pairs, 101u);
  EXPECT_EQ(x.steps[2].batch.prefill_tokens, 1909u);
  EXPECT_EQ(x.steps[2].batch.prefill_pairs, 17268814u);
  EXPECT_EQ(x.steps[3].batch.prefill_tokens, 0u);
  EXPECT_EQ(x.steps[3].batch.decode_tokens, 2u);
  // KV read: A after step 1 holds 3996 tokens' bytes, 131072 each (kv_pool's linear form).
  EXPECT_EQ(x.steps[0].batch.kv_read_bytes, (100u + 3996u) * 131072u);
  const auto& B = x.r.requests[0];
  const auto& A = x.r.requests[1];
  EXPECT_NEAR(A.first_token_s, 1.0400, 1e-9);
  EXPECT_NEAR(A.finish_s, 1.0600, 1e-9);
  EXPECT_NEAR(B.first_token_s, 0.4196, 1e-9);
  EXPECT_NEAR(B.finish_s, 1.2100, 1e-9);
  EXPECT_NEAR(x.r.simulated_s, 1.2100, 1e-9);
  EXPECT_TRUE(A.finished && B.finished);
  EXPECT_EQ(x.r.summary.requests, 2u);
  // TTFT mean (1040 + 419.6) / 2; A's TPOT 10 ms, B's (1210 − 419.6) / 19.
  EXPECT_NEAR(x.r.summary.ttft_ms.mean, (1040 + 419.6) / 2, 1e-6);
  EXPECT_NEAR(x.r.summary.tpot_ms.p50, (10 + (1210 - 419.6) / 19) / 2, 1e-6);
  // ITL: A 2 gaps of 10 ms, B 19 gaps (419.5, 200.9, then 17 of 10 ms): max 419.5 ms.
  EXPECT_EQ(x.r.summary.itl_ms.count, 21u);
  // 10,100 prompt tokens and 23 output tokens over 1.21 s.
  EXPECT_NEAR(x.r.summary.throughput.input_tokens_per_s, 10100 / 1.21, 1e-6);
  EXPECT_NEAR(x.r.summary.throughput.output_tokens_per_s, 23 / 1.21, 1e-6);
}

// The same two requests under pipeline parallelism (pp 2): vLLM keeps two micro-batches in
// flight (EngineCore.step_with_batch_queue), each stage taking half a step (the layers split
// evenly), a stage starting a micro-batch when it is done with the one before. A request whose
// tokens are all in flight is skipped; a prefill's next chunk follows its last at once.
//   mb 1  t=0       B prefill 100 + A chunk 3996 (0.4196 s): stage 1 0–0.2098, stage 2 to 0.4196
//   mb 2  t=0       B in flight; A chunk 4096 (0.4196 s): stage 1 0.2098–0.4196, stage 2 to 0.6294
//         queue full: wait for mb 1 at 0.4196, B's first token
//   mb 3  t=0.4196  B decode + A's last chunk 1908 (0.2008 s): stage 1 to 0.5200, stage 2
//         max(0.5200, 0.6294) + 0.1004 = 0.7298; queue full: wait for mb 2 at 0.6294
//         t=0.6294: both in flight, nothing to schedule: wait for mb 3 at 0.7298, B's 2nd token
//         and A's first
//   mb 4, 5         decodes of both, 10 ms each (stage 1 then stage 2, 5 ms each): 0.7398, 0.7498
//                   (A's 3rd token: done)
//   mb 6..21        B alone, 16 tokens 10 ms apart: done at 0.7498 + 0.16 = 0.9098
// Against one stage at a time (the test above): A's first token 1.0400 → 0.7298; decodes keep
// their 10 ms (a decode-only batch is one micro-batch, its requests in flight together).
TEST(Serving, PipelineStagesOverlapTheirMicroBatches) {
  ServingConfig cfg = config(4000, 16384);
  cfg.max_num_batched_tokens = 4096;
  cfg.plan.pp = 2;
  const auto x = run(llama(), cfg, workload({req(0, 0, 100, 20), req(1, 0, 10000, 3)}));
  ASSERT_EQ(x.r.steps, 21u);
  ASSERT_EQ(x.steps.size(), 21u);
  EXPECT_EQ(x.steps[0].batch.prefill_tokens, 4096u);
  EXPECT_EQ(x.steps[1].batch.prefill_tokens, 4096u);
  EXPECT_EQ(x.steps[1].batch.decode_tokens, 0u);
  EXPECT_NEAR(x.steps[1].t_s, 0.0, 1e-12);  // scheduled at once, behind mb 1
  EXPECT_EQ(x.steps[2].batch.prefill_tokens, 1908u);
  EXPECT_EQ(x.steps[2].batch.decode_tokens, 1u);
  EXPECT_NEAR(x.steps[2].t_s, 0.4196, 1e-9);
  EXPECT_NEAR(x.steps[3].t_s, 0.7298, 1e-9);
  EXPECT_EQ(x.steps[3].batch.decode_tokens, 2u);
  const auto& B = x.r.requests[0];
  const auto& A = x.r.requests[1];
  EXPECT_NEAR(B.first_token_s, 0.4196, 1e-9);
  EXPECT_NEAR(A.first_token_s, 0.7298, 1e-9);
  EXPECT_NEAR(A.finish_s, 0.7498, 1e-9);
  EXPECT_NEAR(B.finish_s, 0.9098, 1e-9);
  EXPECT_NEAR(x.r.simulated_s, 0.9098, 1e-9);
  // B's gaps: 310.2 ms (mb 1 to mb 3), then 18 of 10 ms; A's 2 of 10 ms: mean 510.2 / 21.
  EXPECT_EQ(x.r.summary.itl_ms.count, 21u);
  EXPECT_NEAR(x.r.summary.itl_ms.mean, 510.2 / 21, 1e-6);
}

// A request preempted while its last prompt chunk is in flight keeps the token that pass
// samples (vLLM's update_from_output appends it; the request recomputes it later). pp 2, 7 usable
// blocks (as below), budget 50 tokens; R0: 48-token prompt, 5 outputs; R1: 52-token prompt, 2
// outputs; both at t=0; max_model_len 64.
//   mb 1  t=0       R0 prefill 48 (3 blocks) + R1 chunk 2 (1 block), 0.0150 s: ends 0.0150
//   mb 2  t=0       R1 chunk 50 (its last; 4 blocks): stages 0.0075–0.0150, 0.0150–0.0225
//         wait for mb 1: R0's first token at 0.0150
//   mb 3  t=0.0150  R0 decodes its 49th token: a 4th block, none free: preempt the running
//         list's tail, R1, in flight in mb 2. 10 ms: stage 2 from 0.0225 to 0.0275
//         wait for mb 2 at 0.0225: R1 keeps its first token (0.0225), waits with 53 tokens
//   t=0.0225        R1 needs 4 blocks, 3 free: nothing to schedule; wait for mb 3: R0's 2nd
//   mb 4..6         R0's decodes, 10 ms each: tokens at 0.0375, 0.0475, 0.0575 (done)
//   mb 7, 8 t=0.0575  R1 recomputes 50 then 3 tokens (0.0150, 0.0103 s): stage 1 0.0575–0.0650
//         and 0.0650–0.07015, stage 2 0.0650–0.0725 and 0.0725–0.07765: R1's 2nd token, done
TEST(Serving, PipelineStagesKeepAPreemptedPassesToken) {
  ServingConfig cfg = config(3, 64);
  cfg.plan.pp = 2;
  cfg.max_num_batched_tokens = 50;
  const auto x = run(llama(), cfg, workload({req(0, 0, 48, 5), req(1, 0, 52, 2)}));
  const auto& R0 = x.r.requests[0];
  const auto& R1 = x.r.requests[1];
  EXPECT_EQ(R1.preemptions, 1u);
  EXPECT_NEAR(R0.first_token_s, 0.0150, 1e-9);
  EXPECT_NEAR(R0.finish_s, 0.0575, 1e-9);
  EXPECT_NEAR(R1.first_token_s, 0.0225, 1e-9);
  EXPECT_NEAR(R1.finish_s, 0.07765, 1e-9);
  EXPECT_EQ(x.r.summary.itl_ms.count, 5u);  // R0's 4 gaps, R1's 1
  EXPECT_EQ(x.r.steps, 8u);                 // mb 1..8
}

// Preemption under pipeline stages: pp 2, each stage's GPU with (3 + 1) · 2 MiB of KV memory, a
// block of its 16 layers 1 MiB, so 8 − 1 = 7 usable blocks of 16 tokens; max_model_len 60; 3
// requests of 40-token prompts and 20 outputs at t=0 (3 blocks each at first, two admitted; a 4th
// at token 49: 8 > 7, a preemption). Every request finishes, each with its 20 tokens, and the block
// accounting holds at every micro-batch (run's checks).
TEST(Serving, PipelineStagesPreemptAndRecompute) {
  ServingConfig cfg = config(3, 60);
  cfg.plan.pp = 2;
  const auto x =
      run(llama(), cfg, workload({req(0, 0, 40, 20), req(1, 0, 40, 20), req(2, 0, 40, 20)}));
  for (const auto& r : x.r.requests) {
    EXPECT_TRUE(r.finished) << r.id;
    EXPECT_EQ(r.output_tokens, 20u) << r.id;
  }
  EXPECT_GT(x.r.summary.preemptions, 0u);
  // Each request's 20 tokens once: 19 gaps each, none sampled twice or from a dropped pass.
  EXPECT_EQ(x.r.summary.itl_ms.count, 3u * 19u);
}

// max_num_seqs 2, three requests of 10 prompt tokens and 3 outputs at t=0:
//   step 1  r0, r1 prefill (20 tokens): 12 ms; r2 waits (the batch is full)
//   steps 2, 3  decodes: r0 and r1 finish at 0.032
//   step 4  r2 prefill 10 tokens: 11 ms -> first token 0.043; steps 5, 6 -> finish 0.063
TEST(Serving, MaxNumSeqsLimitsTheBatch) {
  ServingConfig cfg = config(100, 1024);
  cfg.max_num_seqs = 2;
  const auto x =
      run(llama(), cfg, workload({req(0, 0, 10, 3), req(1, 0, 10, 3), req(2, 0, 10, 3)}));
  for (const auto& s : x.steps) EXPECT_LE(s.seqs.size(), 2u);
  EXPECT_EQ(x.steps[0].waiting, 1u);
  EXPECT_NEAR(x.r.requests[1].finish_s, 0.032, 1e-9);
  EXPECT_NEAR(x.r.requests[2].first_token_s, 0.043, 1e-9);
  EXPECT_NEAR(x.r.requests[2].finish_s, 0.063, 1e-9);
  EXPECT_EQ(x.r.steps, 6u);
}

// A pool of 4 blocks of 16 (max_model_len 64 fits: 4 blocks). A (id 0) and B (id 1): prompt 16,
// 20 outputs, at t=0.
//   step 1   both prefill (1 block each, 2 free): 13.2 ms, first tokens
//   step 2   both decode at 16 computed: ceil(17/16) = 2 blocks each, 0 free
//   step 18  A has 32 computed and needs a 3rd block: the tail of the running list, B, is
//            preempted (its 2 blocks freed; 17 tokens out, 32 computed -> recompute), A takes one
//   steps 19, 20  A alone (B's 33 tokens need 3 blocks, 1 free): A's 20th token at step 20,
//            t = 0.0132 + 19 · 0.010 = 0.2032
//   step 21  B recomputes 16 + 17 = 33 tokens (13.3 ms) and emits its 18th token
//   steps 22, 23  B's 19th and 20th: B done at 0.2165 + 0.020 = 0.2365
TEST(Serving, PreemptsTheMostRecentlyScheduledAndRecomputes) {
  ServingConfig cfg = config(4, 64);
  cfg.sample_interval_s = 0.1;  // samples at 0, 0.1 and 0.2 (the first step starting after it)
  const auto x = run(llama(), cfg, workload({req(0, 0, 16, 20), req(1, 0, 16, 20)}));
  const auto& A = x.r.requests[0];
  const auto& B = x.r.requests[1];
  EXPECT_EQ(A.preemptions, 0u);
  EXPECT_EQ(B.preemptions, 1u);
  EXPECT_EQ(B.recomputed_tokens, 32u);
  EXPECT_EQ(x.r.summary.preemptions, 1u);
  ASSERT_EQ(x.steps.size(), 23u);
  for (std::size_t k = 0; k < x.steps.size(); ++k)
    EXPECT_EQ(x.steps[k].preempted, k == 17 ? 1u : 0u) << "step " << k + 1;
  EXPECT_NEAR(x.steps[17].t_s, 0.0132 + 16 * 0.010, 1e-9);
  EXPECT_EQ(x.steps[17].waiting, 1u);
  EXPECT_EQ(x.steps[18].seqs.size(), 1u);  // B stays waiting
  EXPECT_EQ(x.steps[20].batch.prefill_tokens, 33u);
  EXPECT_NEAR(A.finish_s, 0.2032, 1e-9);
  EXPECT_NEAR(B.finish_s, 0.2365, 1e-9);
  ASSERT_EQ(x.r.kv_series.size(), 3u);
  EXPECT_EQ(x.r.kv_series[1].preemptions, 0u);
  EXPECT_EQ(x.r.kv_series[2].preemptions, 1u);
  // The 0.2 s sample is the batch of the first step starting after it, step 21 (t = 0.2032):
  // B alone, recomputing into ceil(33 / 16) = 3 blocks.
  EXPECT_EQ(x.r.kv_series[2].running, 1u);
  EXPECT_EQ(x.r.kv_series[2].waiting, 0u);
  EXPECT_EQ(x.r.kv_series[2].blocks_used, 3u);
}

// A 64-token system prompt (4 full blocks of 16), prefix caching on. r0: system + 10 user
// tokens, alone at 0. r1 at 1 s: the same system prompt + 10 other tokens: the longest cached
// prefix within 74 − 1 tokens is 4 blocks = 64 tokens, so it prefills 10 tokens (11 ms) with
// 10 · 64 + 10·11/2 = 695 query-key pairs. r2 at 2 s: exactly the 64 system tokens: vLLM stops
// the hit at num_tokens − 1 = 63 tokens (kv_cache_manager.py get_computed_blocks,
// @ace980e6), 3 blocks = 48 cached, 16 prefilled.
TEST(Serving, PrefixCacheHitsWholeBlocksButNeverTheLastToken) {
  ServingConfig cfg = config(100, 1024);
  cfg.enable_prefix_caching = true;
  SimRequest r0 = req(0, 0, 74, 2), r1 = req(1, 1.0, 74, 2), r2 = req(2, 2.0, 64, 2);
  r0.prompt = {{7, 64}, {100, 10}};
  r1.prompt = {{7, 64}, {101, 10}};
  r2.prompt = {{7, 64}};
  const auto x = run(llama(), cfg, workload({r0, r1, r2}));
  EXPECT_EQ(x.r.requests[0].cached_tokens, 0u);
  EXPECT_EQ(x.r.requests[1].cached_tokens, 64u);
  EXPECT_EQ(x.r.requests[2].cached_tokens, 48u);
  EXPECT_NEAR(x.r.requests[1].first_token_s - 1.0, 0.011, 1e-9);
  EXPECT_NEAR(x.r.requests[2].first_token_s - 2.0, 0.0116, 1e-9);
  // r0's 4 system blocks stay cached (free, evictable) once it finishes; r1's step prefills 10.
  const StepRecord* r1_step = nullptr;
  for (const auto& s : x.steps)
    if (std::abs(s.t_s - 1.0) < 1e-12) r1_step = &s;
  ASSERT_NE(r1_step, nullptr);
  EXPECT_EQ(r1_step->batch.prefill_tokens, 10u);
  EXPECT_EQ(r1_step->batch.prefill_pairs, 695u);
  EXPECT_EQ(r1_step->seqs[0].shared, 4u);
  // Hit rate (0 + 64 + 48) / (74 + 74 + 64).
  EXPECT_NEAR(x.r.summary.prefix_hit_rate, 112.0 / 212.0, 1e-12);
}

// The same two requests with a pool of 6 blocks and a third, unrelated request of 80 tokens in
// between: r0 frees 5 blocks (4 cached), the 80-token request needs 6 (ceil(81/16) at its first
// decode): the free queue's head — r0's blocks, freed first — is evicted, so r1 finds no prefix
// on the GPU. With a CPU tier the evicted blocks wait there: r1's 64 tokens come back at the
// cost of 4 blocks · 2 MiB over 1 GB/s = 8.388608 ms added to its step.
TEST(Serving, EvictedPrefixBlocksGoToTheCpuTier) {
  ServingConfig cfg = config(6, 96);
  cfg.enable_prefix_caching = true;
  SimRequest r0 = req(0, 0, 74, 1), r1 = req(2, 2.0, 74, 1), big = req(1, 1.0, 80, 16);
  r0.prompt = {{7, 64}, {100, 10}};
  r1.prompt = {{7, 64}, {101, 10}};
  const auto gpu_only = run(llama(), cfg, workload({r0, big, r1}));
  EXPECT_EQ(gpu_only.r.requests[2].cached_tokens, 0u);
  cfg.cpu_offload_bytes = 64 * MiB;
  cfg.cpu_offload_gbps = 1.0;
  const auto tiered = run(llama(), cfg, workload({r0, big, r1}));
  EXPECT_EQ(tiered.r.requests[2].cached_tokens, 64u);
  // 10 ms + 10 prefill tokens · 0.1 ms + 4 · 2097152 / 1e9 s
  EXPECT_NEAR(tiered.r.requests[2].first_token_s - 2.0, 0.011 + 4 * 2097152 / 1e9, 1e-9);
}

// The CPU tier's size is vLLM's --kv-offloading-size, one total over the replica's ranks
// (vllm/v1/kv_offload/cpu/spec.py @ 6dfd8b55: one offloaded block takes page · tensors bytes on
// each of world_size ranks). The same scenario at TP 2: a rank's block is 1 MiB (4 KV heads of 8),
// so the 4 evicted prefix blocks need 4 · 1 MiB · 2 ranks = 8 MiB; 4 MiB holds 2 of them and
// r1 no longer finds its whole 64-token prefix.
TEST(Serving, CpuTierSizeIsATotalOverTheTpRanks) {
  ServingConfig cfg = config(6, 96);
  cfg.plan.tp = 2;
  cfg.plan.available_kv_bytes = (6 + 1) * MiB;  // 6 usable blocks of 1 MiB a rank
  cfg.enable_prefix_caching = true;
  cfg.cpu_offload_gbps = 1.0;
  SimRequest r0 = req(0, 0, 74, 1), r1 = req(2, 2.0, 74, 1), big = req(1, 1.0, 80, 16);
  r0.prompt = {{7, 64}, {100, 10}};
  r1.prompt = {{7, 64}, {101, 10}};
  cfg.cpu_offload_bytes = 8 * MiB;
  EXPECT_EQ(run(llama(), cfg, workload({r0, big, r1})).r.requests[2].cached_tokens, 64u);
  cfg.cpu_offload_bytes = 4 * MiB;
  EXPECT_LT(run(llama(), cfg, workload({r0, big, r1})).r.requests[2].cached_tokens, 64u);
  EXPECT_EQ(vllm_offload_blocks(4 * MiB, MiB, 2), 2u);
  EXPECT_EQ(vllm_offload_blocks(8 * MiB, MiB, 2), 4u);
}

// Gemma-2-9B: 21 sliding (W 4096) + 21 full layers. One request, prompt 5000, 3 outputs.
//   step 1: 5000 tokens: ceil(5000/16) = 313 blocks in each group = 626
//   step 2: the sliding group frees floor((5000 − 4096 + 1) / 16) = 56 blocks and the decode
//           needs ceil(5001/16) = 313 in all: 257 + 313 = 570
TEST(Serving, SlidingWindowGroupsFreeBlocksAsTheWindowMoves) {
  ServingConfig cfg;
  cfg.plan.format = parse_kv_format("fp16");
  cfg.plan.context = 8192;
  cfg.plan.available_kv_bytes = std::uint64_t{40} << 30;
  const auto m = load_model("gemma-2-9b");
  const auto x = run(m, cfg, workload({req(0, 0, 5000, 3)}));
  ASSERT_EQ(x.steps.size(), 3u);
  EXPECT_EQ(x.steps[0].blocks_used, 626u);
  EXPECT_EQ(x.steps[1].blocks_used, 570u);
}

// Poisson arrivals (a splitmix64 stream, exponential gaps at 4 req/s for 250 s), prompts
// 50..1000 and outputs 20..300 tokens: every request finishes, KV never exceeds the pool, and
// Little's law holds: mean requests in the system = throughput × mean E2E.
Workload poisson(std::uint64_t seed, double rate, double seconds) {
  std::uint64_t x = seed;
  auto next = [&] {
    x += 0x9e3779b97f4a7c15ull;
    std::uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  auto uniform = [&] { return (static_cast<double>(next() >> 11) + 0.5) / 9007199254740992.0; };
  std::vector<SimRequest> rs;
  for (double t = 0;;) {
    t += -std::log(uniform()) / rate;
    if (t > seconds) break;
    const std::uint64_t p = 50 + next() % 951, o = 20 + next() % 281;
    rs.push_back(req(rs.size(), t, p, o));
  }
  return workload(std::move(rs));
}

TEST(Serving, LittlesLawOnAPoissonWorkload) {
  ServingConfig cfg = config(2000, 4096);
  const Workload w = poisson(42, 4.0, 250);
  const SimResult r = simulate(llama(), cfg, LinearTimer{}, w);
  ASSERT_GT(w.requests.size(), 800u);
  EXPECT_EQ(r.summary.requests, w.requests.size());
  for (const auto& k : r.kv_series) EXPECT_LE(k.blocks_used, k.blocks_total);
  const double in_system = r.summary.mean_running + r.summary.mean_queue;
  const double little = r.summary.throughput.requests_per_s * r.summary.e2e_ms.mean / 1e3;
  EXPECT_GT(in_system, 1.0);
  EXPECT_NEAR(in_system / little, 1.0, 0.03);
  EXPECT_EQ(r.kv_series.size(), static_cast<std::size_t>(std::floor(r.simulated_s)) + 1);
}

TEST(Serving, DeterministicAndPreemptingUnderPressure) {
  ServingConfig cfg = config(300, 4096);
  cfg.max_num_batched_tokens = 2048;
  const Workload w = poisson(7, 6.0, 60);
  const SimResult a = simulate(llama(), cfg, LinearTimer{}, w);
  const SimResult b = simulate(llama(), cfg, LinearTimer{}, w);
  EXPECT_GT(a.summary.preemptions, 0u);  // 300 blocks = 4800 tokens for ~6 concurrent requests
  ASSERT_EQ(a.requests.size(), b.requests.size());
  for (std::size_t i = 0; i < a.requests.size(); ++i) {
    EXPECT_EQ(a.requests[i].finish_s, b.requests[i].finish_s);
    EXPECT_EQ(a.requests[i].preemptions, b.requests[i].preemptions);
  }
  EXPECT_EQ(a.steps, b.steps);
  EXPECT_EQ(a.summary.ttft_ms.p99, b.summary.ttft_ms.p99);
  for (const auto& k : a.kv_series) EXPECT_LE(k.blocks_used, k.blocks_total);
}

// A later turn arrives think_s after its predecessor finishes; a request longer than
// max_model_len is refused (never scheduled) as vLLM rejects it.
TEST(Serving, SessionsAndRefusals) {
  SimRequest t0 = req(0, 0, 10, 3), t1 = req(1, 0, 20, 1), big = req(2, 0, 100, 30);
  t1.after = 0;
  t1.think_s = 0.5;
  // t0: 11 ms + 2 decodes -> done at 0.031; t1 arrives at 0.531, prefill 20 -> 0.543.
  const auto x = run(llama(), config(100, 128), workload({t0, t1, big}));
  EXPECT_NEAR(x.r.requests[1].arrival_s, 0.531, 1e-9);
  EXPECT_NEAR(x.r.requests[1].finish_s, 0.543, 1e-9);
  EXPECT_FALSE(x.r.requests[2].finished);  // 100 + 30 > 128
  EXPECT_EQ(x.r.summary.requests, 2u);
}

// SGLang: page size 1 and prefill and decode in separate steps. A (prompt 100, 3 out) at 0,
// B (prompt 50, 2 out) at 0.0105, during A's prefill:
//   step 1  t=0      A prefill 100: 20 ms, A's first token at 0.020
//   step 2  t=0.020  B prefill 50 alone (A does not decode): 15 ms -> 0.035
//   step 3  t=0.035  decode A and B: 0.045 (B done)     step 4: A's 3rd token at 0.055
// vLLM mixes B's prefill with A's decode in step 2, so A finishes a step earlier, at 0.045.
TEST(Serving, SglangSeparatesPrefillAndDecodeSteps) {
  ServingConfig cfg = config(1000, 1024);
  const Workload w = workload({req(0, 0, 100, 3), req(1, 0.0105, 50, 2)});
  const auto vllm = run(llama(), cfg, w);
  EXPECT_NEAR(vllm.r.requests[0].finish_s, 0.045, 1e-9);
  cfg.plan.engine = Engine::sglang;
  cfg.async_scheduling = false;  // --disable-overlap-schedule: the timeline above is that loop's
  cfg.plan.available_kv_bytes =
      std::uint64_t{100000} * 131072;  // 131072 bytes per token (32 layers, fp16)
  const auto sg = run(llama(), cfg, w);
  EXPECT_EQ(sg.r.block_size, 1u);
  EXPECT_EQ(sg.r.num_gpu_blocks, 100000u);  // SGLang keeps no null slot
  ASSERT_EQ(sg.steps.size(), 4u);
  EXPECT_EQ(sg.steps[1].batch.prefill_tokens, 50u);
  EXPECT_EQ(sg.steps[1].batch.decode_tokens, 0u);
  EXPECT_EQ(sg.steps[2].batch.decode_tokens, 2u);
  EXPECT_NEAR(sg.r.requests[1].first_token_s, 0.035, 1e-9);
  EXPECT_NEAR(sg.r.requests[1].finish_s, 0.045, 1e-9);
  EXPECT_NEAR(sg.r.requests[0].finish_s, 0.055, 1e-9);
}

// SGLang's --scheduler-recv-interval 3 (SchedulerRecvSkipper: each loop adds the weight of the
// batch it ran last, decode 1, prefill 1000, and takes arrivals in when the sum reaches 3, then
// counts from 0). A (prompt 100, 10 out) at 0, B (prompt 50, 2 out) at 0.025:
//   t=0      idle: A taken in at once. A prefill 100 -> 0.020 (A's 1st token)
//   t=0.020  last batch a prefill: 1000 >= 3, receive (nothing yet), 0. A decode -> 0.030
//   t=0.030  1: no receive. A decode -> 0.040     t=0.040  2: no receive. A decode -> 0.050
//   t=0.050  3: receive B (queued 0.050). B prefill 50 -> 0.065: B's first token
//   t=0.065  decode A, B -> 0.075: B done, A's 5th token; A's 6th - 10th at 0.085 ... 0.125
//            (11 steps)
// Every loop receiving (interval 1): B is taken in at 0.030, its prefill runs 0.030 - 0.045, its
// tokens at 0.045 and 0.055; A's tokens 3 - 10 at 0.055 ... 0.125: A finishes at 0.125 either way.
TEST(Serving, SglangReceiveIntervalHoldsArrivalsForDecodeSteps) {
  ServingConfig cfg = config(1000, 1024);
  cfg.plan.engine = Engine::sglang;
  cfg.async_scheduling = false;  // --disable-overlap-schedule: the loop the timeline above runs
  cfg.plan.available_kv_bytes = std::uint64_t{100000} * 131072;
  const Workload w = workload({req(0, 0, 100, 10), req(1, 0.025, 50, 2)});
  const auto every = run(llama(), cfg, w);
  EXPECT_NEAR(every.r.requests[1].queued_s, 0.030, 1e-9);
  EXPECT_NEAR(every.r.requests[1].first_token_s, 0.045, 1e-9);
  EXPECT_NEAR(every.r.requests[1].finish_s, 0.055, 1e-9);
  EXPECT_NEAR(every.r.requests[0].finish_s, 0.125, 1e-9);
  cfg.plan.edit_sglang().scheduler_recv_interval = 3;
  const auto skip = run(llama(), cfg, w);
  ASSERT_EQ(skip.steps.size(), 11u);
  EXPECT_NEAR(skip.steps[4].t_s, 0.050, 1e-9);
  EXPECT_EQ(skip.steps[4].batch.prefill_tokens, 50u);
  EXPECT_EQ(skip.steps[4].batch.decode_tokens, 0u);
  const auto &A = skip.r.requests[0], &B = skip.r.requests[1];
  EXPECT_NEAR(B.queued_s, 0.050, 1e-9);
  EXPECT_NEAR(B.first_token_s, 0.065, 1e-9);
  EXPECT_NEAR(B.finish_s, 0.075, 1e-9);
  EXPECT_NEAR(A.first_token_s, 0.020, 1e-9);
  EXPECT_NEAR(A.finish_s, 0.125, 1e-9);
  // The option is SGLang's: a vLLM deployment that carries it is refused, not run without it.
  cfg.plan.engine = Engine::vllm;
  EXPECT_THROW(run(llama(), cfg, w), Error);
}

// SGLang's overlap scheduler (event_loop_overlap, python/sglang/srt/managers/scheduler.py
// @0003215cf1464f44b389cd0b18d0b4c56f2a3da6): each pass of its loop receives, forms the next batch
// and launches it, then waits for the running batch's result. So batch k + 1 is formed when batch
// k starts, and an arrival during batch k runs in batch k + 2. A (prompt 100, 10 out) at 0, B
// (prompt 50, 2 out) at 0.025; the fixture's step model takes 20 ms for a 100-token prefill,
// 15 ms for 50 tokens, 10 ms for a decode step:
//   --disable-overlap-schedule: A prefill 0 - 0.020, A decode 0.020 - 0.030 (B arrives at
//   0.025), B taken in at 0.030: prefill 0.030 - 0.045 (its first token), A + B decode
//   0.045 - 0.055 (B done).
//   overlap (the default): the batch run at 0.030 was formed at 0.020, before B came: A decode
//   0.030 - 0.040; B taken in at 0.040, prefill 0.040 - 0.055, A + B decode 0.055 - 0.065.
// A's ten tokens end at 0.125 either way: B's prefill takes one step's place in both.
TEST(Serving, SglangOverlapSchedulerTakesArrivalsInOneStepLater) {
  ServingConfig cfg = config(1000, 1024);
  cfg.plan.engine = Engine::sglang;
  cfg.plan.available_kv_bytes = std::uint64_t{100000} * 131072;
  cfg.async_scheduling = default_async_scheduling(cfg.plan);
  EXPECT_TRUE(cfg.async_scheduling);
  const Workload w = workload({req(0, 0, 100, 10), req(1, 0.025, 50, 2)});
  const auto overlap = run(llama(), cfg, w);
  const auto &A = overlap.r.requests[0], &B = overlap.r.requests[1];
  EXPECT_NEAR(A.first_token_s, 0.020, 1e-9);  // an idle loop takes A in at once
  EXPECT_NEAR(B.queued_s, 0.040, 1e-9);
  EXPECT_NEAR(B.first_token_s, 0.055, 1e-9);
  EXPECT_NEAR(B.finish_s, 0.065, 1e-9);
  EXPECT_NEAR(A.finish_s, 0.125, 1e-9);
  ASSERT_GE(overlap.steps.size(), 4u);
  EXPECT_NEAR(overlap.steps[2].t_s, 0.030, 1e-9);
  EXPECT_EQ(overlap.steps[2].batch.decode_tokens, 1u);  // A alone: B came after it was formed
  cfg.plan.edit_sglang().disable_overlap_schedule = true;
  cfg.async_scheduling = default_async_scheduling(cfg.plan);
  EXPECT_FALSE(cfg.async_scheduling);
  const auto normal = run(llama(), cfg, w);
  EXPECT_NEAR(normal.r.requests[1].queued_s, 0.030, 1e-9);
  EXPECT_NEAR(normal.r.requests[1].first_token_s, 0.045, 1e-9);
  EXPECT_NEAR(normal.r.requests[1].finish_s, 0.055, 1e-9);
  EXPECT_NEAR(normal.r.requests[0].finish_s, 0.125, 1e-9);
}

// The receive interval under pipeline stages (pp 2, interval 3, max_running_requests 4): one
// counter, each pass adding the weight of the batch the micro-batch about to be formed ran last,
// which it keeps while it forms none (event_loop_pp: self.last_batch = last_mbs[mb_id], and
// last_mbs[mb_id] is set only when that micro-batch ran a batch). Stages take half a step each;
// the loop waits for the next micro-batch's pass before forming it. A (prompt 100, 6 out) at 0,
// C (prompt 50, 1 out) at 0.025, B (prompt 50, 2 out) at 0.052:
//   0      mb0: idle, A taken in; A prefill, stages to 0.010, 0.020   mb1: none, 1; waits mb0
//   0.020  mb0: prefill 1000: receive (nothing), 0; A decode to 0.030   mb1: none, 1; waits
//   0.030  mb0: decode, 2; A decode to 0.040   mb1: none, 3: receive C (queued 0.030), 0; C
//          prefill, stage 1 from 0.035 to 0.0425, stage 2 to 0.050; waits mb0 to 0.040
//   0.040  mb0: decode, 1; A decode, stage 1 0.0425 - 0.0475, stage 2 to 0.055; waits mb1 to
//          0.050: C's only token, C done
//   0.050  mb1: its prefill, 1001: receive (B not yet), 0; forms nothing (C done); waits mb0
//   0.055  mb0: 1; A decode 0.055 - 0.060 - 0.065   mb1: still its prefill, 1001: receive B
//          (queued 0.055), 0; B prefill, stage 1 from 0.060 to 0.0675, stage 2 to 0.075
//   then B decodes 0.075 - 0.085: B's tokens at 0.075, 0.085; A's at 0.020, 0.030, 0.040,
//   0.055, 0.065, 0.080 (9 passes).
// A micro-batch that forgot its prefill (weight 1) would take B in at 0.065, in mb0.
TEST(Serving, SglangReceiveIntervalUnderPipelineStages) {
  ServingConfig cfg = config(1000, 1024);
  cfg.plan.engine = Engine::sglang;
  cfg.plan.pp = 2;
  cfg.max_num_seqs = 4;
  cfg.plan.available_kv_bytes = std::uint64_t{100000} * 65536;  // 16 layers a stage
  cfg.plan.edit_sglang().scheduler_recv_interval = 3;
  const auto x =
      run(llama(), cfg, workload({req(0, 0, 100, 6), req(1, 0.025, 50, 1), req(2, 0.052, 50, 2)}));
  const auto &A = x.r.requests[0], &C = x.r.requests[1], &B = x.r.requests[2];
  EXPECT_NEAR(C.queued_s, 0.030, 1e-9);
  EXPECT_NEAR(C.first_token_s, 0.050, 1e-9);
  EXPECT_NEAR(C.finish_s, 0.050, 1e-9);
  EXPECT_NEAR(B.queued_s, 0.055, 1e-9);
  EXPECT_NEAR(B.first_token_s, 0.075, 1e-9);
  EXPECT_NEAR(B.finish_s, 0.085, 1e-9);
  EXPECT_NEAR(A.first_token_s, 0.020, 1e-9);
  EXPECT_NEAR(A.finish_s, 0.080, 1e-9);
  ASSERT_EQ(x.steps.size(), 9u);
  EXPECT_NEAR(x.steps[3].t_s, 0.030, 1e-9);
  EXPECT_EQ(x.steps[3].batch.prefill_tokens, 50u);  // C's prefill
  EXPECT_NEAR(x.steps[6].t_s, 0.055, 1e-9);
  EXPECT_EQ(x.steps[6].batch.prefill_tokens, 50u);  // B's prefill
}

// SGLang under pipeline parallelism (pp 2): two micro-batches, each with its own running batch
// of at most max(max_running_requests // 2, 1) = 2 requests (max_running_requests 4); the loop
// forms micro-batch k's batch, then waits for k + 1's pass before forming k + 1's; each stage
// takes half a step. A, B, C (prompt 100, 3 out) at 0:
//   mb 0  t=0      A + B prefill 200 (30 ms; C waits: mb 0 holds 2): stage 1 0–0.015, stage 2
//                  to 0.030
//   mb 1  t=0      C prefill 100 (20 ms): stage 1 0.015–0.025, stage 2 0.030–0.040;
//                  wait for mb 0 at 0.030: A's and B's first tokens
//   mb 0  t=0.030  decode A, B (10 ms): stage 1 to 0.035, stage 2 0.040–0.045; wait for mb 1 at
//                  0.040: C's first token
//   mb 1  t=0.040  decode C: stage 1 to 0.045, stage 2 to 0.050; A, B 2nd tokens at 0.045
//   mb 0  t=0.045  decode A, B: stage 2 to 0.055; C's 2nd token at 0.050
//   mb 1  t=0.050  decode C: to 0.060; A, B done at 0.055; C done at 0.060 (6 passes)
TEST(Serving, SglangPipelineMicroBatchesKeepTheirOwnRunningBatches) {
  ServingConfig cfg = config(1000, 1024);
  cfg.plan.engine = Engine::sglang;
  cfg.plan.pp = 2;
  cfg.max_num_seqs = 4;
  // 16 of the 32 layers a stage: 65,536 bytes per token; 100,000 tokens.
  cfg.plan.available_kv_bytes = std::uint64_t{100000} * 65536;
  const auto x =
      run(llama(), cfg, workload({req(0, 0, 100, 3), req(1, 0, 100, 3), req(2, 0, 100, 3)}));
  EXPECT_EQ(x.r.num_gpu_blocks, 100000u);
  ASSERT_EQ(x.steps.size(), 6u);
  EXPECT_EQ(x.steps[0].batch.prefill_tokens, 200u);
  EXPECT_EQ(x.steps[1].batch.prefill_tokens, 100u);
  EXPECT_NEAR(x.steps[1].t_s, 0.0, 1e-12);
  EXPECT_EQ(x.steps[2].batch.decode_tokens, 2u);
  EXPECT_EQ(x.steps[3].batch.decode_tokens, 1u);
  const auto &A = x.r.requests[0], &B = x.r.requests[1], &C = x.r.requests[2];
  EXPECT_NEAR(A.first_token_s, 0.030, 1e-9);
  EXPECT_NEAR(B.first_token_s, 0.030, 1e-9);
  EXPECT_NEAR(C.first_token_s, 0.040, 1e-9);
  EXPECT_NEAR(A.finish_s, 0.055, 1e-9);
  EXPECT_NEAR(B.finish_s, 0.055, 1e-9);
  EXPECT_NEAR(C.finish_s, 0.060, 1e-9);
  EXPECT_NEAR(x.r.simulated_s, 0.060, 1e-9);
}

// SGLang's radix cache matches at token granularity: the prompt of exactly the 64 system tokens
// reuses 63 of them (one token is always computed: schedule_batch.py Req._compute_max_prefix_len,
// max_prefix_len = input_len − 1), where vLLM's blocks of 16 gave 48.
TEST(Serving, SglangRadixCacheReusesTokens) {
  ServingConfig cfg = config(1000, 1024);
  cfg.plan.engine = Engine::sglang;
  cfg.plan.available_kv_bytes = std::uint64_t{100000} * 131072;
  cfg.enable_prefix_caching = true;
  SimRequest r0 = req(0, 0, 74, 2), r1 = req(1, 1.0, 70, 2), r2 = req(2, 2.0, 64, 2);
  r0.prompt = {{7, 64}, {100, 10}};
  r1.prompt = {{7, 60}, {101, 10}};  // shares the first 60 tokens of the system prompt
  r2.prompt = {{7, 64}};
  const auto x = run(llama(), cfg, workload({r0, r1, r2}));
  EXPECT_EQ(x.r.requests[1].cached_tokens, 60u);
  EXPECT_EQ(x.r.requests[2].cached_tokens, 63u);
}

// A retention policy is a per-sequence budget: streaming:sink=4,window=60 keeps
// min(n, 4 + 60) = 64 tokens, ceil(64 / 16) = 4 blocks, however long the sequence grows
// (prompt 200 and 50 outputs here; without the policy the last step would hold ceil(249/16) = 16).
TEST(Serving, RetentionPolicyCapsTheBlocksOfASequence) {
  ServingConfig cfg = config(100, 1024);
  cfg.plan.policy = parse_policy("streaming:sink=4,window=60");
  const auto x = run(llama(), cfg, workload({req(0, 0, 200, 50)}));
  ASSERT_EQ(x.steps.size(), 50u);
  for (const auto& s : x.steps) EXPECT_EQ(s.blocks_used, 4u);
  // The KV read of the last step is 64 retained tokens · 131072 bytes.
  EXPECT_EQ(x.steps.back().batch.kv_read_bytes, 64u * 131072u);
}

// SGLang, a pool of 380 tokens (page size 1, 131072 bytes a token), chunks of 100. B (id 0:
// prompt 150, 2 out) arrives at 0, C (id 1: prompt 250, 2 out) at 0.001.
//   step 1  t=0      B chunk 100 (running list empty: no admission check)     -> 0.020
//   step 2  t=0.020  B's last chunk 50. Free tokens 380 − 100 = 280, less B's reservation
//                    0.7 · min(2, 4096) = 1.4 and its 50-token chunk: 228.6 < C's 250 + 2,
//                    so C waits (without the chunk's share it would be admitted and later
//                    need more than the pool holds)                           -> 0.035, B's 1st
//   step 3  t=0.035  free 230 − 0.7 · 1 = 229.3 < 252: no prefill; B decodes -> 0.045, B done
//   steps 4..6       C alone: chunks 100, 100, 50 (0.020, 0.020, 0.015)       -> 0.100, C's 1st
//   step 7           C decodes                                                -> 0.110, C done
// No step retracts: SGLang's prefill never does.
TEST(Serving, SglangChunkedPrefillNeverRetracts) {
  ServingConfig cfg = config(1, 380);
  cfg.plan.engine = Engine::sglang;
  cfg.plan.available_kv_bytes = std::uint64_t{380} * 131072;
  cfg.max_num_batched_tokens = 100;
  const auto x = run(llama(), cfg, workload({req(0, 0, 150, 2), req(1, 0.001, 250, 2)}));
  ASSERT_EQ(x.steps.size(), 7u);
  EXPECT_EQ(x.r.summary.preemptions, 0u);
  EXPECT_EQ(x.steps[1].batch.prefill_tokens, 50u);  // B's last chunk only
  EXPECT_EQ(x.steps[2].batch.decode_tokens, 1u);
  EXPECT_NEAR(x.r.requests[0].first_token_s, 0.035, 1e-9);
  EXPECT_NEAR(x.r.requests[0].finish_s, 0.045, 1e-9);
  EXPECT_NEAR(x.r.requests[1].first_token_s, 0.100, 1e-9);
  EXPECT_NEAR(x.r.requests[1].finish_s, 0.110, 1e-9);
}

// SnapKV compresses only the prompt: a 1-token prompt with 2047 outputs keeps
// min(1, 256) + 2047 = 2048 tokens, ceil(2048 / 16) = 128 blocks, although the planner's
// request of 2048 prompt tokens keeps 256 (16 blocks). A pool of 100 blocks cannot hold it
// (refused naming context); one of 128 can, and a prompt of 16 with 1584 outputs there holds
// min(16, 256) + 1584 = 1600 tokens = 100 blocks at its last step.
TEST(Serving, SnapkvValidatesTheWorstRequest) {
  ServingConfig cfg = config(100, 2048);
  cfg.plan.policy = parse_policy("snapkv:budget=256");
  const Workload w = workload({req(0, 0, 16, 1584)});
  try {
    simulate(llama(), cfg, LinearTimer{}, w);
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "context");
    EXPECT_NE(e.message().find("128 blocks"), std::string::npos) << e.message();
  }
  cfg = config(128, 2048);
  cfg.plan.policy = parse_policy("snapkv:budget=256");
  const auto x = run(llama(), cfg, w);
  EXPECT_TRUE(x.r.requests[0].finished);
  EXPECT_EQ(x.steps.back().blocks_used, 100u);
}

// Goodput: of the chunked-prefill timeline's two requests only B (TTFT 419.6 ms) meets a TTFT
// limit of 500 ms (A's is 1040 ms): 1 request over 1.21 s.
TEST(Serving, GoodputCountsRequestsMeetingTheSlo) {
  ServingConfig cfg = config(4000, 16384);
  cfg.max_num_batched_tokens = 4096;
  SimOptions opt;
  opt.slo.ttft_p99_ms = 500;
  const SimResult r = simulate(llama(), cfg, LinearTimer{},
                               workload({req(0, 0, 100, 20), req(1, 0, 10000, 3)}), opt);
  EXPECT_NEAR(r.summary.goodput_requests_per_s, 1 / 1.21, 1e-9);
  ASSERT_EQ(r.stages.size(), 1u);
  EXPECT_NEAR(r.stages[0].goodput_requests_per_s, 1 / 1.21, 1e-9);
}

TEST(Serving, CancelStopsTheRun) {
  const std::atomic<bool> cancel{true};
  SimOptions opt;
  opt.cancel = &cancel;
  // 1,100 requests of 10 + 3 tokens: more than 1,024 steps, where the flag is read.
  std::vector<SimRequest> rs;
  for (std::uint64_t i = 0; i < 1100; ++i) rs.push_back(req(i, static_cast<double>(i), 10, 3));
  EXPECT_THROW(simulate(llama(), config(100, 1024), LinearTimer{}, workload(rs), opt), Error);
}

// Two stages, [0, 1) and [1, ...): r0 (prompt 10, 3 out) at 0 runs 11 + 10 + 10 ms, done at
// 0.031; r1 (prompt 20, 2 out) at 1.0 runs 12 + 10 ms, done at 1.022.
//   stage 0: 1 request over [0, 0.031]; one request running for 0.031 s of its 1 s window
//   stage 1: 1 request over [1, 1.022]; running all of its 0.022 s window
//   whole run: 2 requests over 1.022 s, running (0.031 + 0.022) / 1.022 on average
TEST(Serving, StagesSummarizeTheirOwnRequestsAndTime) {
  Workload w = workload({req(0, 0, 10, 3), req(1, 1.0, 20, 2)});
  w.requests[1].stage = 1;
  w.stages = {WorkloadStage{.rate = 1, .duration_s = 1, .start_s = 0},
              WorkloadStage{.rate = 1, .duration_s = 1, .start_s = 1}};
  const SimResult r = simulate(llama(), config(100, 1024), LinearTimer{}, w);
  ASSERT_EQ(r.stages.size(), 2u);
  EXPECT_EQ(r.stages[0].requests, 1u);
  EXPECT_NEAR(r.stages[0].throughput.requests_per_s, 1 / 0.031, 1e-6);
  EXPECT_NEAR(r.stages[0].mean_running, 0.031, 1e-9);
  EXPECT_NEAR(r.stages[0].ttft_ms.mean, 11, 1e-9);
  EXPECT_EQ(r.stages[1].stage, 1u);
  EXPECT_NEAR(r.stages[1].throughput.requests_per_s, 1 / 0.022, 1e-6);
  EXPECT_NEAR(r.stages[1].throughput.output_tokens_per_s, 2 / 0.022, 1e-6);
  EXPECT_NEAR(r.stages[1].mean_running, 1.0, 1e-9);
  EXPECT_NEAR(r.stages[1].e2e_ms.mean, 22, 1e-9);
  EXPECT_NEAR(r.summary.throughput.requests_per_s, 2 / 1.022, 1e-9);
  EXPECT_NEAR(r.summary.mean_running, 0.053 / 1.022, 1e-9);
  EXPECT_EQ(r.summary.mean_queue, 0.0);
}

// A trace whose requests arrive at 100 s and 100.5 s (prompt 10, 3 outputs each, pool of 100
// blocks): each runs alone, prefill 10 ms + 1 ms, then 2 decodes of 10 ms: done 31 ms after its
// arrival, the last at 100.531 s. The windows start at the first arrival: 2 requests over
// 0.531 s (not over 100.531 s), mean running (0.031 + 0.031) / 0.531.
TEST(Serving, WindowsStartAtTheFirstArrival) {
  Workload w = parse_workload_trace(
      "{\"arrival_s\": 100, \"prompt_tokens\": 10, \"output_tokens\": 3}\n"
      "{\"arrival_s\": 100.5, \"prompt_tokens\": 10, \"output_tokens\": 3}\n",
      "late.jsonl", false);
  ASSERT_EQ(w.stages.size(), 1u);
  EXPECT_EQ(w.stages[0].start_s, 100.0);
  EXPECT_NEAR(w.stages[0].duration_s, 0.5, 1e-12);
  const SimResult r = simulate(llama(), config(100, 1024), LinearTimer{}, w);
  EXPECT_NEAR(r.simulated_s, 100.531, 1e-9);
  EXPECT_NEAR(r.summary.throughput.requests_per_s, 2 / 0.531, 1e-6);
  EXPECT_NEAR(r.summary.throughput.output_tokens_per_s, 6 / 0.531, 1e-6);
  EXPECT_NEAR(r.summary.mean_running, 0.062 / 0.531, 1e-9);
  EXPECT_NEAR(r.stages[0].throughput.requests_per_s, 2 / 0.531, 1e-6);
  EXPECT_NEAR(r.stages[0].mean_running, 0.062 / 0.531, 1e-9);
}

// vLLM turned async scheduling on by default in v0.14 (vllm-project/vllm#27614): on for the
// current rules, off for vllm@0.9. SGLang's overlap scheduler is on unless
// --disable-overlap-schedule or pipeline stages (server_args.py); TensorRT-LLM's is not modelled.
TEST(Serving, AsyncSchedulingDefaultFollowsTheEngineRules) {
  PlanInput p;
  set_engine(p, "vllm", "test", "engine");
  EXPECT_TRUE(default_async_scheduling(p));
  p.edit_vllm().async_scheduling = false;  // --no-async-scheduling
  EXPECT_FALSE(default_async_scheduling(p));
  set_engine(p, "vllm@0.9", "test", "engine");
  EXPECT_FALSE(default_async_scheduling(p));
  p.edit_vllm().async_scheduling = true;  // --async-scheduling
  EXPECT_TRUE(default_async_scheduling(p));
  p.edit_vllm().async_scheduling.reset();
  set_engine(p, "sglang", "test", "engine");
  EXPECT_TRUE(default_async_scheduling(p));
  p.pp = 2;
  EXPECT_FALSE(default_async_scheduling(p));
  p.pp = 1;
  p.edit_sglang().disable_overlap_schedule = true;
  EXPECT_FALSE(default_async_scheduling(p));
  set_engine(p, "trtllm", "test", "engine");
  EXPECT_FALSE(default_async_scheduling(p));
}

// An idle gap of 3·10^6 s sampled every second: the series fills its 2^20 samples at
// t = 2^20 − 1 s, drops every other one and samples every 2 s; full again at t = 2^21 − 2 s, it
// keeps every 4th second. So: samples at 0, 4, ..., 3·10^6, 750001 of them, no error.
TEST(Serving, KvSeriesThinsOutInsteadOfFailing) {
  ServingConfig cfg = config(100, 1024);
  cfg.sample_interval_s = 1;
  const SimResult r =
      simulate(llama(), cfg, LinearTimer{}, workload({req(0, 0, 10, 2), req(1, 3e6, 10, 2)}));
  ASSERT_EQ(r.kv_series.size(), 750001u);
  EXPECT_EQ(r.kv_series.front().t_s, 0.0);
  EXPECT_EQ(r.kv_series[1].t_s, 4.0);
  EXPECT_EQ(r.kv_series.back().t_s, 3e6);
  EXPECT_TRUE(r.requests[1].finished);
}

// SGLang serving Qwen3-Next on 4 GPUs: pages of one token, 4,096-token context, 40 GiB of KV.
ServingConfig sglang_qwen3_next_config() {
  ServingConfig cfg;
  cfg.plan.engine = Engine::sglang;
  cfg.plan.block_size = 1;
  cfg.plan.tp = 4;
  cfg.plan.context = 4096;
  cfg.plan.available_kv_bytes = std::uint64_t{40} << 30;
  return cfg;
}

// SGLang on Qwen3-Next with max_mamba_cache_size 10: 10 // 5 = 2 requests run at once however
// many max_num_seqs allows (5 slots a request: 3 + the extra buffer's 2 beside the overlap
// scheduler, KVCacheConfigurator._calculate_mamba_ratio, sgl-project/sglang@382343f860c7df8dc43e
// cefd7902c940d81c99a9), so of 5 short requests arriving together at most 2 are ever running.
TEST(Serving, SglangMambaSlotsCapTheRunningRequests) {
  ServingConfig cfg = sglang_qwen3_next_config();
  cfg.plan.edit_sglang().max_mamba_cache_size = 10;
  std::vector<SimRequest> rs;
  for (std::uint64_t i = 0; i < 5; ++i) rs.push_back(req(i, 0, 10, 4));
  std::uint64_t peak = 0;
  SimOptions opt;
  opt.on_step = [&](const StepRecord& s) { peak = std::max<std::uint64_t>(peak, s.seqs.size()); };
  const SimResult r =
      simulate(load_model("qwen3-next-80b-a3b"), cfg, LinearTimer{}, workload(std::move(rs)), opt);
  EXPECT_EQ(r.summary.requests, 5u);
  EXPECT_EQ(peak, 2u);
  // Its state has no block group, yet prefix caching stays unmodelled for a recurrent model.
  EXPECT_FALSE(prefix_caching_modelled(load_model("qwen3-next-80b-a3b"), cfg.plan));
}

// SGLang without its radix cache reuses no prefix, so the simulator runs it without prefix
// caching: --disable-radix-cache, and a decode worker, whose chunk cache SGLang forces
// (pd_disaggregation_hook.py@382343f860c7df8dc43ecefd7902c940d81c99a9) unless
// --disaggregation-decode-enable-radix-cache.
TEST(Serving, SglangWithoutTheRadixCacheCachesNoPrefix) {
  ServingConfig cfg;
  cfg.plan.engine = Engine::sglang;
  cfg.plan.format = parse_kv_format("bf16");
  cfg.plan.context = 4096;
  cfg.plan.available_kv_bytes = std::uint64_t{8} << 30;
  const ModelSpec& m = llama();
  EXPECT_TRUE(prefix_caching_modelled(m, cfg.plan));
  cfg.plan.edit_sglang().disable_radix_cache = true;
  EXPECT_FALSE(prefix_caching_modelled(m, cfg.plan));
  cfg.plan.edit_sglang().disable_radix_cache = false;
  cfg.plan.edit_sglang().disaggregation_mode = "decode";
  EXPECT_FALSE(prefix_caching_modelled(m, cfg.plan));
  cfg.plan.edit_sglang().disaggregation_decode_enable_radix_cache = true;
  EXPECT_TRUE(prefix_caching_modelled(m, cfg.plan));
}

// SGLang turns its overlap scheduler off when a hybrid Mamba model's radix cache resolves "auto"
// to no_buffer (_mamba_radix_cache_resolution, python/sglang/srt/arg_groups/overrides.py
// @382343f860c7df8dc43ecefd7902c940d81c99a9: an architecture outside _MAMBA_EXTRA_BUFFER_ARCHS,
// pages of one token). Qwen3-Next's own architecture takes extra_buffer and keeps it; the same
// layers under Jet-Nemotron's name (JetNemotronForCausalLM: in _MAMBA_RADIX_CACHE_ARCHS, outside
// _MAMBA_EXTRA_BUFFER_ARCHS) take no_buffer. The timelines
// are SglangOverlapSchedulerTakesArrivalsInOneStepLater's (A: prompt 100, 10 out, at 0; B:
// prompt 50, 2 out, at 0.025; 20 ms for a 100-token prefill, 15 ms for 50, 10 ms a decode):
//   overlap on: B taken in at 0.040, first token 0.055, done 0.065;
//   overlap off: B taken in at 0.030, first token 0.045, done 0.055; A done at 0.125 either way.
TEST(Serving, SglangMambaNoBufferRunsWithoutTheOverlapScheduler) {
  ServingConfig cfg = sglang_qwen3_next_config();
  cfg.async_scheduling = default_async_scheduling(cfg.plan);
  ASSERT_TRUE(cfg.async_scheduling);
  const Workload w = workload({req(0, 0, 100, 10), req(1, 0.025, 50, 2)});
  ModelSpec qwen = load_model("qwen3-next-80b-a3b");
  ASSERT_EQ(qwen.architecture, "Qwen3NextForCausalLM");
  EXPECT_EQ(sglang_mamba_strategy(qwen, cfg.plan), "extra_buffer");
  const SimResult on = simulate(qwen, cfg, LinearTimer{}, w);
  EXPECT_TRUE(on.async_scheduling);
  EXPECT_NEAR(on.requests[1].queued_s, 0.040, 1e-9);
  EXPECT_NEAR(on.requests[1].first_token_s, 0.055, 1e-9);
  EXPECT_NEAR(on.requests[1].finish_s, 0.065, 1e-9);
  ModelSpec jet = qwen;
  jet.architecture = "JetNemotronForCausalLM";
  EXPECT_EQ(sglang_mamba_strategy(jet, cfg.plan), "no_buffer");
  EXPECT_FALSE(sglang_overlap_schedule(jet, cfg.plan));
  const SimResult off = simulate(jet, cfg, LinearTimer{}, w);
  EXPECT_FALSE(off.async_scheduling);
  EXPECT_NEAR(off.requests[1].queued_s, 0.030, 1e-9);
  EXPECT_NEAR(off.requests[1].first_token_s, 0.045, 1e-9);
  EXPECT_NEAR(off.requests[1].finish_s, 0.055, 1e-9);
  EXPECT_NEAR(off.requests[0].finish_s, 0.125, 1e-9);
  // Without the radix cache there is no Mamba cache strategy, and the scheduler stays on.
  cfg.plan.edit_sglang().disable_radix_cache = true;
  EXPECT_TRUE(sglang_overlap_schedule(jet, cfg.plan));
  EXPECT_TRUE(simulate(jet, cfg, LinearTimer{}, w).async_scheduling);
}

// SGLang without --max-running-requests runs what its pool and request table allow, not a fixed
// 256 (TpModelWorker: min(max_total_num_tokens // 2, max_num_reqs), python/sglang/srt/managers/
// tp_worker.py@4f34e24af764d45c2dde4a17cadcdaa7d08a7248; max_num_reqs = min(max(int(tokens /
// context · 512), 2048), 4096), model_runner_kv_cache_mixin.py@226149ac init_memory_pool).
// Llama-3.1-8B fp16, 131,072 bytes per token, a pool of 100,000 tokens; 5,000 requests of 1
// prompt token and 2 out arrive together (each holds at most 3 tokens: 15,000 in all, and
// the step budget of 8,192 tokens takes 5,000 prompts):
//   context 16,384: int(100000 / 16384 · 512) = 3125 rows; min(50000, 3125) = 3,125 at once
//   context 1,024:  int(50000.0) -> 4,096 rows; 4,096 at once
//   --max-running-requests 300 (max_num_seqs 300): 300 at once.
TEST(Serving, SglangRunsWhatItsPoolAndRequestTableAllow) {
  auto peak_of = [](std::uint64_t context, std::uint64_t seqs) {
    ServingConfig cfg = sim::serving_config_of(PlanInput{}, std::nullopt);
    cfg.plan.engine = Engine::sglang;
    cfg.plan.context = context;
    cfg.plan.available_kv_bytes = std::uint64_t{100000} * 131072;
    cfg.max_num_seqs = seqs;
    if (seqs) cfg.plan.max_num_seqs = seqs;
    std::vector<SimRequest> rs;
    for (std::uint64_t i = 0; i < 5000; ++i) rs.push_back(req(i, 0, 1, 2));
    std::uint64_t peak = 0;
    SimOptions opt;
    opt.on_step = [&](const StepRecord& s) { peak = std::max<std::uint64_t>(peak, s.seqs.size()); };
    const SimResult r = simulate(llama(), cfg, LinearTimer{}, workload(std::move(rs)), opt);
    EXPECT_EQ(r.summary.requests, 5000u);
    EXPECT_EQ(r.max_running, peak);
    return peak;
  };
  EXPECT_EQ(peak_of(16384, 0), 3125u);
  EXPECT_EQ(peak_of(1024, 0), 4096u);
  EXPECT_EQ(peak_of(1024, 300), 300u);
  // The engine's own cap (0) is SGLang's alone: vLLM refuses it.
  ServingConfig v = config(100, 1024);
  v.max_num_seqs = 0;
  EXPECT_THROW(simulate(llama(), v, LinearTimer{}, workload({req(0, 0, 10, 3)})), Error);
  // serving_config_of leaves it to SGLang (0) and gives vLLM its default.
  PlanInput sg;
  sg.engine = Engine::sglang;
  EXPECT_EQ(sim::serving_config_of(sg, std::nullopt).max_num_seqs, 0u);
  EXPECT_EQ(sim::serving_config_of(sg, 64).max_num_seqs, 64u);
  EXPECT_GT(sim::serving_config_of(PlanInput{}, std::nullopt).max_num_seqs, 0u);
}

TEST(Serving, RefusesInvalidConfigs) {
  const Workload w = workload({req(0, 0, 10, 3)});
  auto field_of = [&](const ServingConfig& c, const Workload& wl) -> std::string {
    try {
      simulate(llama(), c, LinearTimer{}, wl);
    } catch (const Error& e) {
      return e.message() + " | " + e.field();
    }
    return "accepted";
  };
  ServingConfig c = config(100, 1024);
  c.max_num_seqs = 0;
  EXPECT_NE(field_of(c, w).find("max_num_seqs"), std::string::npos);
  c = config(100, 1024);
  c.max_num_batched_tokens = 0;
  EXPECT_NE(field_of(c, w).find("max_num_batched_tokens"), std::string::npos);
  c = config(100, 1024);
  c.cpu_offload_bytes = 1 << 30;  // no bandwidth, no prefix caching
  EXPECT_NE(field_of(c, w).find("cpu_offload_gbps"), std::string::npos);
  // One request of max_model_len 4096 needs 256 blocks; the pool has 100.
  EXPECT_NE(field_of(config(100, 4096), w).find("context"), std::string::npos);
  Workload bad = w;
  bad.requests[0].prompt_tokens = 11;  // its one segment has 10
  EXPECT_NE(field_of(config(100, 1024), bad).find("/requests/0/prompt_tokens"), std::string::npos);
  bad = w;
  bad.requests[0].output_tokens = 0;
  EXPECT_NE(field_of(config(100, 1024), bad).find("/requests/0/output_tokens"), std::string::npos);
  // Prefix caching on a sliding-window model is not modelled: refused, not silently ignored.
  ServingConfig g;
  g.plan.context = 8192;
  g.plan.available_kv_bytes = std::uint64_t{40} << 30;
  g.enable_prefix_caching = true;
  try {
    simulate(load_model("gemma-2-9b"), g, LinearTimer{}, w);
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("enable_prefix_caching"), std::string::npos);
  }
}

// The simulator has a scheduler for every engine (vLLM, SGLang, TensorRT-LLM:
// test_serving_trtllm.cpp), so check_simulated_engine passes them all and each serves a request.
TEST(Serving, EveryEngineIsSimulated) {
  ServingConfig cfg = config(300, 4096);  // 256 blocks of 16 tokens hold one 4096-token request
  const Workload w = workload({req(0, 0, 10, 2)});
  for (Engine e : {Engine::vllm, Engine::sglang, Engine::trtllm}) {
    EXPECT_NO_THROW(check_simulated_engine(e, "--engine"));
    cfg.plan.engine = e;
    EXPECT_EQ(simulate(llama(), cfg, LinearTimer{}, w).summary.requests, 1u);
  }
}

// ---- Closed loop: two clients (concurrency 2), think time 0, request n waits for n − 2.
//   r0: prompt 100, 2 out (client 0)    r1: prompt 100, 4 out (client 1)
//   r2: prompt 50, 2 out (after r0)     r3: prompt 50, 1 out (after r1)
// Without async scheduling (an arrival joins the next step):
//   step 1  t=0      r0, r1 prefill 200 tokens: 10 + 20 = 30 ms -> first tokens at 0.030
//   step 2  t=0.030  both decode, 10 ms: r0's 2nd token, r0 done at 0.040; r2 sent at 0.040
//   step 3  t=0.040  r1 decode + r2 prefill 50: 15 ms -> 0.055 (r1's 3rd, r2's 1st token)
//   step 4  t=0.055  both decode -> 0.065: r1 done (4 tokens), r2 done (2); r3 sent at 0.065
//   step 5  t=0.065  r3 prefill 50: 15 ms -> 0.080, its one token: done
// With async scheduling (step k + 1's batch is formed when step k starts):
//   step 3  t=0.040  r1 decode only (r2 came after step 2's start) -> 0.050
//   step 4  t=0.050  r1 decode + r2 prefill 50 -> 0.065: r1 done, r2's first token; r3 sent
//   step 5  t=0.065  r2 decode -> 0.075: r2 done (r3 came after step 4's start, 0.050)
//   step 6  t=0.075  r3 prefill 50 -> 0.090: done
Workload closed_pair() {
  Workload w = workload({req(0, 0, 100, 2), req(1, 0, 100, 4), req(2, 0, 50, 2), req(3, 0, 50, 1)});
  w.requests[2].after = 0, w.requests[3].after = 1;
  w.concurrency = 2;
  return w;
}

TEST(ClosedLoop, HandWorkedTimeline) {
  ServingConfig cfg = config(100, 1024);
  cfg.async_scheduling = false;
  const auto x = run(llama(), cfg, closed_pair());
  EXPECT_EQ(x.r.steps, 5u);
  EXPECT_NEAR(x.r.simulated_s, 0.080, 1e-12);
  // {arrival, queued, scheduled, first token, finish} of each request.
  const double want[4][5] = {{0, 0, 0, 0.030, 0.040},
                             {0, 0, 0, 0.030, 0.065},
                             {0.040, 0.040, 0.040, 0.055, 0.065},
                             {0.065, 0.065, 0.065, 0.080, 0.080}};
  for (std::size_t i = 0; i < 4; ++i) {
    const RequestResult& q = x.r.requests[i];
    ASSERT_TRUE(q.finished) << i;
    EXPECT_NEAR(q.arrival_s, want[i][0], 1e-12) << i;
    EXPECT_NEAR(q.queued_s, want[i][1], 1e-12) << i;
    EXPECT_NEAR(q.scheduled_s, want[i][2], 1e-12) << i;
    EXPECT_NEAR(q.first_token_s, want[i][3], 1e-12) << i;
    EXPECT_NEAR(q.finish_s, want[i][4], 1e-12) << i;
  }
  // TTFT: 30, 30, 15, 15 ms.
  EXPECT_NEAR(x.r.summary.ttft_ms.mean, 22.5, 1e-9);
}

TEST(ClosedLoop, AsyncSchedulingQueuesAnArrivalAStepLater) {
  ServingConfig cfg = config(100, 1024);
  cfg.async_scheduling = true;
  const auto x = run(llama(), cfg, closed_pair());
  EXPECT_EQ(x.r.steps, 6u);
  EXPECT_NEAR(x.r.simulated_s, 0.090, 1e-12);
  const RequestResult& r2 = x.r.requests[2];
  EXPECT_NEAR(r2.arrival_s, 0.040, 1e-12);
  EXPECT_NEAR(r2.queued_s, 0.050, 1e-12);  // taken when step 4's batch is formed
  EXPECT_NEAR(r2.scheduled_s, 0.050, 1e-12);
  EXPECT_NEAR(r2.first_token_s, 0.065, 1e-12);
  EXPECT_NEAR(r2.finish_s, 0.075, 1e-12);
  const RequestResult& r3 = x.r.requests[3];
  EXPECT_NEAR(r3.arrival_s, 0.065, 1e-12);
  EXPECT_NEAR(r3.queued_s, 0.075, 1e-12);
  EXPECT_NEAR(r3.finish_s, 0.090, 1e-12);
}

// The most requests in the system (sent, not finished) at any time: a finish at t leaves before
// an arrival at t enters (a client sends its next request when its previous one is done).
std::uint64_t most_in_system(const SimResult& r) {
  std::vector<std::pair<double, int>> ev;
  for (const auto& q : r.requests) {
    EXPECT_TRUE(q.finished) << q.id;
    ev.push_back({q.arrival_s, +1});
    ev.push_back({q.finish_s, -1});
  }
  std::sort(ev.begin(), ev.end());  // at equal times -1 sorts first
  std::int64_t now = 0, most = 0;
  for (const auto& e : ev) most = std::max(most, now += e.second);
  return static_cast<std::uint64_t>(most);
}

// 400 requests from 5 clients, prompts of vLLM's random dataset (L = 2000, ratio 0.5), outputs
// 20 to 200: never more than 5 requests in the system, and every client keeps one in flight at
// the start; with 2 replicas each client still has one request in the system at most.
TEST(ClosedLoop, NeverMoreThanConcurrencyRequestsInTheSystem) {
  const Workload w = parse_workload_json(R"({"kvplan_workload": 1,
      "arrival": {"process": "closed", "concurrency": 5, "requests": 400, "think_time_ms": 3},
      "prompt_tokens": {"dist": "uniform", "mean": 2000, "range_ratio": 0.5},
      "output_tokens": {"dist": "uniform", "min": 20, "max": 200}})",
                                         "closed.json", 7);
  ServingConfig cfg = config(2000, 4096);
  cfg.max_num_batched_tokens = 2048;
  const SimResult r = simulate(llama(), cfg, LinearTimer{}, w);
  EXPECT_EQ(r.summary.requests, 400u);
  EXPECT_EQ(most_in_system(r), 5u);
  // Each later request is sent 3 ms after its client's previous one finishes.
  for (std::size_t n = 5; n < 400; ++n)
    EXPECT_NEAR(r.requests[n].arrival_s, r.requests[n - 5].finish_s + 0.003, 1e-9) << n;
  const SimResult r2 = simulate_replicas(llama(), cfg, LinearTimer{}, w, 2);
  EXPECT_EQ(r2.summary.requests, 400u);
  EXPECT_LE(most_in_system(r2), 5u);
}

// ---- Percentiles in bounded memory (docs/limits.md, "Serving simulator").

// 5000 requests, one every second (the engine idle at each arrival), request i with a prompt of
// i + 1 tokens and one output token: TTFT_i = 10 ms + 0.1 ms · (i + 1), from 10.1 to 510 ms.
// numpy's p50 of 5000 values: position 0.5 · 4999 = 2499.5, between 260.0 and 260.1 -> 260.05;
// p99: position 4949.01, between 505.0 and 505.1 -> 505.001; mean 10 + 0.1 · 2500.5 = 260.05.
// Past 4096 values the percentiles come from the fixed histogram, within 0.4% of these; the
// mean, count, min and max stay exact.
TEST(ServingLimits, PercentilesPastTheExactWindowStayWithinTheHistogramsError) {
  std::vector<SimRequest> rs;
  for (std::uint64_t i = 0; i < 5000; ++i) rs.push_back(req(i, static_cast<double>(i), i + 1, 1));
  ServingConfig cfg = config(1000, 8192);
  const SimResult r = simulate(llama(), cfg, LinearTimer{}, workload(std::move(rs)));
  const Percentiles& t = r.summary.ttft_ms;
  EXPECT_EQ(t.count, 5000u);
  EXPECT_NEAR(t.mean, 260.05, 1e-9);
  EXPECT_NEAR(t.p50, 260.05, 260.05 * 0.004);
  EXPECT_NEAR(t.p99, 505.001, 505.001 * 0.004);
  EXPECT_NEAR(t.p90, 460.01, 460.01 * 0.004);  // position 4499.1: 460.0 + 0.1 · 0.1 (numpy)
  EXPECT_EQ(r.summary.tpot_ms.count, 0u);      // one token each: no TPOT
}

// One request of 100,000 output tokens (prompt 10): its first token after 10 + 1 ms, then
// 99,999 decode steps of 10 ms: 99,999 ITL gaps of exactly 10 ms (so the histogram's bin, clamped
// to the values seen, is exact), TPOT 10 ms, E2E 11 + 999,990 = 1,000,001 ms.
TEST(ServingLimits, AHundredThousandTokenOutputRunsInBoundedMemory) {
  ServingConfig cfg = config(7000, 110000);
  const SimResult r = simulate(llama(), cfg, LinearTimer{}, workload({req(0, 0, 10, 100000)}));
  ASSERT_TRUE(r.requests[0].finished);
  EXPECT_EQ(r.steps, 100000u);
  EXPECT_EQ(r.summary.itl_ms.count, 99999u);
  EXPECT_NEAR(r.summary.itl_ms.p50, 10, 1e-9);
  EXPECT_NEAR(r.summary.itl_ms.p99, 10, 1e-9);
  EXPECT_NEAR(r.summary.tpot_ms.p50, 10, 1e-9);
  EXPECT_NEAR(r.summary.e2e_ms.p50, 1000001, 1e-3);
}

}  // namespace
}  // namespace kvplan::sim
