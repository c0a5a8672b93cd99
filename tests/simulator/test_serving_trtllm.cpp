// TensorRT-LLM's scheduler in the serving simulator (serving.cpp schedule_trtllm,
// docs/trtllm-scheduler.md) against timelines worked out by hand in the comment above each test.
// Every step lasts 10 ms whatever it holds (ConstantTimer), so a time is 0.01 × the steps before
// it. Pools are Llama-3.1-8B's (fp16, tokens_per_block 32, the PyTorch backend's default): one
// token of all 32 layers = 8 heads · (128 + 128) · 2 bytes · 32 = 131072 bytes, a block of 32
// tokens 4 MiB, so `blocks` × 4 MiB of KV memory is a pool of `blocks` blocks (TensorRT-LLM keeps
// no null block).
#include <gtest/gtest.h>

#include <algorithm>

#include "kvplan/error.hpp"
#include "kvplan/kv_pool.hpp"
#include "kvplan/sim/serving.hpp"
#include "kvplan/sim/serving_report.hpp"
#include "kvplan/sim/workload.hpp"
#include "serving_fixture.hpp"

namespace kvplan::sim {
namespace {

constexpr std::uint64_t MiB = std::uint64_t{1} << 20;

class ConstantTimer final : public StepTimer {
 public:
  double seconds(const StepBatch&) const override { return 0.010; }
};

ServingConfig config(std::uint64_t blocks, std::uint64_t context, CapacityPolicy policy) {
  ServingConfig c;
  c.plan.engine = Engine::trtllm;
  c.plan.format = parse_kv_format("fp16");
  c.plan.context = context;
  c.plan.available_kv_bytes = blocks * 4 * MiB;
  c.max_num_seqs = 2048;            // max_batch_size
  c.max_num_batched_tokens = 8192;  // max_num_tokens
  c.capacity_policy = policy;
  return c;
}

using fixture::req;
using fixture::workload;

const ModelSpec& llama() {
  static const ModelSpec m = load_model("llama-3.1-8b");
  return m;
}

struct Run {
  SimResult r;
  std::vector<StepRecord> steps;
};

// Records every step and checks that no step holds more blocks than the pool, and that the
// active list (running) never exceeds max_batch_size.
Run run(const ServingConfig& cfg, const Workload& w) {
  PlanInput plan = cfg.plan;
  const KvPool pool = make_kv_pool(llama(), plan);
  Run out;
  SimOptions opt;
  opt.on_step = [&](const StepRecord& s) {
    std::uint64_t sum = 0;
    for (const auto& q : s.seqs) sum += q.blocks;
    EXPECT_EQ(s.blocks_used, sum) << "t=" << s.t_s;
    EXPECT_LE(s.blocks_used, pool.usable_blocks) << "t=" << s.t_s;
    EXPECT_LE(s.seqs.size(), cfg.max_num_seqs) << "t=" << s.t_s;
    out.steps.push_back(s);
  };
  out.r = simulate(llama(), cfg, ConstantTimer{}, w, opt);
  return out;
}

// The pool is the planner's: 8 × 4 MiB = 8 blocks of 32 tokens, all usable.
TEST(ServingTrtllm, PoolIsBlocksOf32Tokens) {
  const ServingConfig cfg = config(8, 256, CapacityPolicy::guaranteed_no_evict);
  const KvPool pool = make_kv_pool(llama(), cfg.plan);
  EXPECT_EQ(pool.block_size, 32u);
  EXPECT_EQ(pool.usable_blocks, 8u);
  EXPECT_EQ(pool.blocks(64), 2u);
}

// The two policies on the same workload: a pool of 8 blocks (256 tokens), A, B and C arrive at
// 0, each a 64-token prompt and 64 outputs, so each needs ceil((64 + 64) / 32) = 4 blocks when
// done. A request's first token comes from its context step, then 63 generation steps.
//
// GUARANTEED_NO_EVICT: step 1 (t 0) sets aside A's 4 and B's 4 blocks; C's 4 do not fit the 0
// left, so C waits (head of the line). A and B run their context (2 blocks each), then 63
// generation steps (a third block at token 65, a fourth at token 97: at most 4 each, 8 in all)
// and finish at the end of step 64, t 0.64. Step 65 (t 0.64) starts C: first token 0.65, done
// after 63 more steps at 1.28. No preemption.
//
// MAX_UTILIZATION: step 1 admits all three (each context needs ceil(64 / 32) = 2 blocks, 6 of 8):
// every first token at 0.01. Step 2 (t 0.01): A's and B's next tokens each open a third block
// (2 of the 2 free); C's does not fit, and C is the last started request from the list's end, so
// C is paused: its 2 blocks are freed and its 64 computed tokens will be computed again. From
// then on C is a context of 64 + 1 = 65 tokens needing ceil(65 / 32) = 3 blocks, more than A
// and B leave free (2, then 0 once they take their fourth), until they finish at 0.64. Step 65
// (t 0.64) recomputes C's 65 tokens: its second token at 0.65; its 62 others take 62 steps,
// done at 1.27.
TEST(ServingTrtllm, TwoPoliciesAdmitDifferently) {
  const Workload w = workload({req(0, 0, 64, 64), req(1, 0, 64, 64), req(2, 0, 64, 64)});
  const auto g = run(config(8, 256, CapacityPolicy::guaranteed_no_evict), w);
  ASSERT_EQ(g.r.requests.size(), 3u);
  for (int i = 0; i < 2; ++i) {
    EXPECT_NEAR(g.r.requests[i].scheduled_s, 0.0, 1e-9);
    EXPECT_NEAR(g.r.requests[i].first_token_s, 0.01, 1e-9);
    EXPECT_NEAR(g.r.requests[i].finish_s, 0.64, 1e-9);
  }
  EXPECT_NEAR(g.r.requests[2].scheduled_s, 0.64, 1e-9);
  EXPECT_NEAR(g.r.requests[2].first_token_s, 0.65, 1e-9);
  EXPECT_NEAR(g.r.requests[2].finish_s, 1.28, 1e-9);
  EXPECT_EQ(g.r.summary.preemptions, 0u);
  EXPECT_EQ(g.r.steps, 128u);  // 64 for A and B, 64 for C
  // Step 1: two contexts of 64 tokens, 2 blocks each; C holds none.
  EXPECT_EQ(g.steps[0].batch.prefill_tokens, 128u);
  EXPECT_EQ(g.steps[0].blocks_used, 4u);
  std::uint64_t peak = 0;
  for (const auto& s : g.steps) peak = std::max(peak, s.blocks_used);
  EXPECT_EQ(peak, 8u);

  const auto m = run(config(8, 256, CapacityPolicy::max_utilization), w);
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(m.r.requests[i].scheduled_s, 0.0, 1e-9);
    EXPECT_NEAR(m.r.requests[i].first_token_s, 0.01, 1e-9);
  }
  EXPECT_EQ(m.steps[0].batch.prefill_tokens, 192u);
  EXPECT_EQ(m.steps[0].blocks_used, 6u);
  EXPECT_EQ(m.steps[1].preempted, 1u);
  EXPECT_EQ(m.steps[1].batch.decode_tokens, 2u);
  EXPECT_EQ(m.steps[1].blocks_used, 6u);  // A and B 3 each, C none
  EXPECT_NEAR(m.r.requests[0].finish_s, 0.64, 1e-9);
  EXPECT_NEAR(m.r.requests[1].finish_s, 0.64, 1e-9);
  EXPECT_NEAR(m.r.requests[2].finish_s, 1.27, 1e-9);
  EXPECT_EQ(m.r.requests[2].preemptions, 1u);
  EXPECT_EQ(m.r.requests[2].recomputed_tokens, 64u);
  EXPECT_EQ(m.r.summary.preemptions, 1u);
  // Step 65 recomputes C's 65 tokens in one context.
  EXPECT_NEAR(m.steps[64].t_s, 0.64, 1e-9);
  EXPECT_EQ(m.steps[64].batch.prefill_tokens, 65u);
  EXPECT_EQ(m.r.steps, 127u);  // 64 for the three, 1 + 62 for C
}

// max_batch_size caps the active list: with max_batch_size 2 and a pool of 16 blocks (room for
// all three), MAX_UTILIZATION still runs only A and B; C stays in the queue until they finish at
// 0.64, then runs steps 65..128: first token 0.65, done 1.28.
TEST(ServingTrtllm, MaxBatchSizeCapsTheActiveRequests) {
  ServingConfig cfg = config(16, 256, CapacityPolicy::max_utilization);
  cfg.max_num_seqs = 2;
  const auto x = run(cfg, workload({req(0, 0, 64, 64), req(1, 0, 64, 64), req(2, 0, 64, 64)}));
  EXPECT_EQ(x.steps[0].batch.prefill_tokens, 128u);
  EXPECT_EQ(x.steps[0].waiting, 1u);
  EXPECT_NEAR(x.r.requests[2].scheduled_s, 0.64, 1e-9);
  EXPECT_NEAR(x.r.requests[2].first_token_s, 0.65, 1e-9);
  EXPECT_NEAR(x.r.requests[2].finish_s, 1.28, 1e-9);
  EXPECT_EQ(x.r.summary.preemptions, 0u);
}

// max_num_tokens 100 without chunked context (GUARANTEED_NO_EVICT, 16 blocks): a context goes
// whole or the step stops at it. Step 1: A's 64 tokens; B's 64 would make 128 > 100. Step 2:
// A's generation (1) + B's 64 = 65; C's 64 would make 129. Step 3: A and B generate (2) + C's 64
// = 66. First tokens 0.01, 0.02, 0.03; 63 generation steps each: done 0.64, 0.65, 0.66. D's
// 101-token prompt is over max_num_tokens and refused on arrival, as TensorRT-LLM's LLM API
// refuses it (llm.py _check_arguments).
TEST(ServingTrtllm, MaxNumTokensCapsAStepWithoutChunking) {
  ServingConfig cfg = config(16, 256, CapacityPolicy::guaranteed_no_evict);
  cfg.max_num_batched_tokens = 100;
  const auto x = run(
      cfg, workload({req(0, 0, 64, 64), req(1, 0, 64, 64), req(2, 0, 64, 64), req(3, 0, 101, 4)}));
  EXPECT_EQ(x.steps[0].batch.prefill_tokens, 64u);
  EXPECT_EQ(x.steps[1].batch.prefill_tokens, 64u);
  EXPECT_EQ(x.steps[1].batch.decode_tokens, 1u);
  EXPECT_EQ(x.steps[2].batch.prefill_tokens, 64u);
  EXPECT_EQ(x.steps[2].batch.decode_tokens, 2u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(x.r.requests[i].first_token_s, 0.01 * (i + 1), 1e-9) << i;
    EXPECT_NEAR(x.r.requests[i].finish_s, 0.64 + 0.01 * i, 1e-9) << i;
  }
  EXPECT_FALSE(x.r.requests[3].finished);
  EXPECT_EQ(x.r.summary.requests, 3u);
}

// Chunked context, max_num_tokens 100, first come first served, GUARANTEED_NO_EVICT, 16 blocks.
// A (200-token prompt, 2 outputs) and B (50, 2) arrive at 0. Step 1: 250 context tokens exceed
// 100, so A gets min(200, 100) = 100, cut to a multiple of 32: 96, and B min(50, 4) = 4, cut to
// 0: B waits. A takes its whole prompt's ceil(200 / 32) = 7 blocks now. Step 2: A's 104 left +
// B's 50 > 100: A 96 again, B 0. Step 3: A's 8 + B's 50 = 58 fit whole: both first tokens at
// 0.03 (B takes ceil(50 / 32) = 2 blocks). Step 4: both generate their second token, done 0.04.
// The same prompt without chunking is over max_num_tokens: refused.
TEST(ServingTrtllm, ChunkedContextIsCutFirstComeFirstServed) {
  ServingConfig cfg = config(16, 256, CapacityPolicy::guaranteed_no_evict);
  cfg.max_num_batched_tokens = 100;
  cfg.enable_chunked_context = true;
  const Workload w = workload({req(0, 0, 200, 2), req(1, 0, 50, 2)});
  const auto x = run(cfg, w);
  ASSERT_EQ(x.steps.size(), 4u);
  EXPECT_EQ(x.steps[0].batch.prefill_tokens, 96u);
  EXPECT_EQ(x.steps[0].blocks_used, 7u);
  EXPECT_EQ(x.steps[1].batch.prefill_tokens, 96u);
  EXPECT_EQ(x.steps[2].batch.prefill_tokens, 58u);
  EXPECT_EQ(x.steps[2].blocks_used, 9u);
  EXPECT_EQ(x.steps[3].batch.decode_tokens, 2u);
  EXPECT_NEAR(x.r.requests[0].first_token_s, 0.03, 1e-9);
  EXPECT_NEAR(x.r.requests[1].first_token_s, 0.03, 1e-9);
  EXPECT_NEAR(x.r.requests[1].scheduled_s, 0.02, 1e-9);
  EXPECT_NEAR(x.r.requests[0].finish_s, 0.04, 1e-9);
  EXPECT_NEAR(x.r.requests[1].finish_s, 0.04, 1e-9);

  cfg.enable_chunked_context = false;
  const auto y = run(cfg, w);
  EXPECT_FALSE(y.r.requests[0].finished);
  EXPECT_TRUE(y.r.requests[1].finished);
}

// A pool of 8 blocks holds 256 tokens; max_seq_len 512 needs 16 blocks for one request. The
// simulator refuses it naming the context (TensorRT-LLM itself would shrink the attention window
// to what fits unless fail_fast_on_attention_window_too_large, a window pool kvplan does not
// model). Prefix caching (KV cache reuse) and a chunk budget smaller than a block are refused
// too, each naming its field.
TEST(ServingTrtllm, RefusesWhatItDoesNotModel) {
  const Workload w = workload({req(0, 0, 10, 2)});
  auto field_of = [&](const ServingConfig& cfg) {
    try {
      simulate(llama(), cfg, ConstantTimer{}, w);
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), 2) << e.what();
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(field_of(config(8, 512, CapacityPolicy::guaranteed_no_evict)).find("context"),
            std::string::npos);
  ServingConfig c = config(16, 256, CapacityPolicy::max_utilization);
  c.enable_prefix_caching = true;
  EXPECT_NE(field_of(c).find("enable_prefix_caching"), std::string::npos);
  c = config(16, 256, CapacityPolicy::max_utilization);
  c.enable_chunked_context = true;
  c.max_num_batched_tokens = 16;
  EXPECT_NE(field_of(c).find("max_num_batched_tokens"), std::string::npos);
  c = config(16, 256, CapacityPolicy::max_utilization);
  EXPECT_EQ(field_of(c), "accepted");
  EXPECT_NO_THROW(check_simulated_engine(Engine::trtllm, "--engine"));
}

// Attention DP (enable_attention_dp, 2 groups of one GPU; simulate_replicas runs them as one
// server, simulate_adp_server) on an MoE model (Mixtral-8x7B; its pool of 64 × 4 MiB holds every
// request here): the groups step together, a step as long as the slower group's,
// and with attention_dp_config.enable_balance every context waits until both groups have one
// (PyExecutor._balance_adp_requests). Requests are dealt alternately: A (0), C (2) to group 0,
// B (1) to group 1. A and B arrive at 0 with 32-token prompts and 20 outputs, C at 0.005 with a
// 32-token prompt and 2 outputs. A step takes 10 ms + 0.1 ms per context token (TokenTimer).
// Balance on, timeout_iters 3, batching_wait_iters 0:
//   it. 1 (t 0): both groups have a context and no generation: no hold; A's and B's 32 tokens,
//     13.2 ms; their first tokens at 0.0132.
//   it. 2 (0.0132): group 0 has C (context) and A (generation), group 1 B alone: not every group
//     has a context, the wait count 1 < 3 and every group generates: C waits; 10 ms.
//   it. 3 (0.0232): count 2: C waits.
//   it. 4 (0.0332): count 3 reaches timeout_iters: C's context runs with A's token, 13.2 ms; B's
//     group only generates (10 ms) but the server's step lasts 13.2 ms: C's first token 0.0464.
//   it. 5 (0.0464): C's second token at 0.0564, done.
//   B: tokens at the ends of it. 1 – 20: 0.0132 + 0.01 + 0.01 + 0.0132 + 16 · 0.01 = 0.2064
//   (0.2032 for a group on its own).
// Without balance C's context runs at it. 2: first token 0.0132 + 0.0132 = 0.0264. With
// batching_wait_iters 2 and a fourth request D (group 1, like C at 0.005), both groups have a
// context at it. 2 and both generate: the contexts wait 2 iterations (the batching count 1, 2),
// then run at it. 4 together: C's and D's first tokens at 0.0332 + 0.0132 = 0.0464.
TEST(ServingTrtllm, AttentionDpGroupsStepTogetherAndHoldContexts) {
  class TokenTimer final : public StepTimer {
   public:
    double seconds(const StepBatch& b) const override {
      return 0.010 + 1e-4 * static_cast<double>(b.prefill_tokens);
    }
  };
  auto cfg = [](bool balance, std::uint32_t batching) {
    ServingConfig c = config(64, 256, CapacityPolicy::guaranteed_no_evict);
    c.plan.attention_dp = 2;
    c.plan.edit_trtllm().adp_enable_balance = balance;
    c.plan.edit_trtllm().adp_timeout_iters = 3;
    c.plan.edit_trtllm().adp_batching_wait_iters = batching;
    return c;
  };
  auto times = [](const SimResult& r, std::uint64_t id) {
    for (const auto& q : r.requests)
      if (q.id == id) return std::pair{q.first_token_s, q.finish_s};
    ADD_FAILURE() << "no request " << id;
    return std::pair{0.0, 0.0};
  };
  const Workload w = workload({req(0, 0, 32, 20), req(1, 0, 32, 20), req(2, 0.005, 32, 2)});
  static const ModelSpec moe = load_model("mixtral-8x7b");
  const SimResult held = simulate_replicas(moe, cfg(true, 0), TokenTimer{}, w, 2);
  EXPECT_NEAR(times(held, 0).first, 0.0132, 1e-9);
  EXPECT_NEAR(times(held, 1).first, 0.0132, 1e-9);
  EXPECT_NEAR(times(held, 2).first, 0.0464, 1e-9);
  EXPECT_NEAR(times(held, 2).second, 0.0564, 1e-9);
  EXPECT_NEAR(times(held, 1).second, 0.2064, 1e-9);
  const SimResult free = simulate_replicas(moe, cfg(false, 0), TokenTimer{}, w, 2);
  EXPECT_NEAR(times(free, 2).first, 0.0264, 1e-9);
  const Workload four =
      workload({req(0, 0, 32, 20), req(1, 0, 32, 20), req(2, 0.005, 32, 2), req(3, 0.005, 32, 2)});
  const SimResult batched = simulate_replicas(moe, cfg(true, 2), TokenTimer{}, four, 2);
  EXPECT_NEAR(times(batched, 2).first, 0.0464, 1e-9);
  EXPECT_NEAR(times(batched, 3).first, 0.0464, 1e-9);
}

TEST(ServingTrtllm, ParsesThePolicyNames) {
  EXPECT_EQ(parse_capacity_policy("guaranteed_no_evict", "x"), CapacityPolicy::guaranteed_no_evict);
  EXPECT_EQ(parse_capacity_policy("MAX_UTILIZATION", "x"), CapacityPolicy::max_utilization);
  EXPECT_EQ(to_string(CapacityPolicy::max_utilization), "MAX_UTILIZATION");
  try {
    parse_capacity_policy("static_batch", "--capacity-scheduler-policy");
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2);
    EXPECT_NE(std::string(e.what()).find("--capacity-scheduler-policy"), std::string::npos);
  }
}

}  // namespace
}  // namespace kvplan::sim
