// Speculative decoding in the serving simulator (vLLM: EAGLE / MTP drafts) against timelines
// worked out by hand, and the drafter's step time by hand. The rules, each from vLLM's source:
//   scheduler.py@00024d314514900f361ad072af6931e403b7f589 (schedule): a running request is
//     scheduled num_tokens_with_spec − num_computed_tokens tokens (1 + its drafts), within the
//     token budget and max_model_len − 1 − num_computed_tokens; allocate_slots gets
//     num_lookahead_tokens = num_speculative_tokens (EAGLE and MTP) more;
//   scheduler.py (update_from_output): num_computed_tokens −= the rejected drafts; the request
//     appends 1 + the accepted drafts, each checked against max_tokens;
//   vllm/v1/spec_decode/llm_base_proposer.py@00c4f22dae4795e34658bead82fa071e6bb7ae39 (propose):
//     one draft pass, then num_speculative_tokens − 1 more: k passes a step.
// Pool: Llama-3.1-8B fp16, block 16, one block of all layers 2 MiB (test_serving.cpp's).
// Timer: 10 ms a step + 0.1 ms a prefill token + 1 ms a verified draft token + 2 ms a draft
// pass, so each term of a step shows in its length.
#include <gtest/gtest.h>

#include <string>

#include "error_message.hpp"
#include "kvplan/error.hpp"
#include "kvplan/gpu.hpp"
#include "kvplan/kv_pool.hpp"
#include "kvplan/sim/serving.hpp"
#include "kvplan/sim/step_time.hpp"
#include "serving_fixture.hpp"

namespace kvplan::sim {
namespace {

class SpecTimer final : public StepTimer {
 public:
  double seconds(const StepBatch& b) const override {
    return 0.010 + 1e-4 * static_cast<double>(b.prefill_tokens) +
           1e-3 * static_cast<double>(b.spec_tokens) + 2e-3 * b.draft_passes;
  }
};

const ModelSpec& llama() {
  static const ModelSpec m = load_model("llama-3.1-8b");
  return m;
}

ServingConfig config(std::uint32_t k, std::vector<double> acceptance, std::uint64_t context,
                     std::uint64_t blocks = 1000) {
  ServingConfig c = fixture::llama_config(blocks, context);
  c.plan.edit_vllm().num_speculative_tokens = k;
  c.plan.edit_vllm().spec_acceptance = std::move(acceptance);
  c.async_scheduling = false;
  return c;
}

// Every step, each sequence holds the pool's blocks for what it computed, what the step
// schedules and the lookahead: min(k, context − computed − scheduled) tokens more, none for a
// request scheduled from the waiting queue (scheduler.py: effective_lookahead_tokens is 0 while
// num_computed_tokens is 0).
struct Run {
  SimResult r;
  std::vector<StepRecord> steps;
};
Run run(const ServingConfig& cfg, const Workload& w) {
  PlanInput plan = cfg.plan;
  plan.max_num_batched_tokens = cfg.max_num_batched_tokens;
  const KvPool pool = make_kv_pool(llama(), plan);
  const std::uint64_t k = cfg.plan.vllm().num_speculative_tokens;
  Run out;
  SimOptions opt;
  opt.on_step = [&](const StepRecord& s) {
    for (const auto& q : s.seqs) {
      const std::uint64_t end = q.computed + q.scheduled;
      const std::uint64_t ahead = q.computed == 0 ? 0 : std::min(k, cfg.plan.context - end);
      EXPECT_EQ(q.blocks,
                pool.blocks(q.computed, q.scheduled + ahead, w.requests[q.id].prompt_tokens))
          << "request " << q.id << " at t=" << s.t_s;
    }
    out.steps.push_back(s);
  };
  out.r = simulate(llama(), cfg, SpecTimer{}, w, opt);
  return out;
}

using fixture::req;
using fixture::workload;

// k = 3 at acceptance 0.5: positions accepted in 0.5, 0.25, 0.125 of the steps, 0.875 drafts a
// step accrued. One request, prompt 100, output 10, at t = 0:
//   step 1  prefill 100 (its first token) and 3 draft passes: 10 + 10 + 6 = 26 ms, t = 0.026
//   step 2  decode + 3 drafts: 10 + 3 + 6 = 19 ms; credit 0.875: none accepted, 1 token (2)
//   step 3  19 ms; credit 1.75: 1 accepted (0.75 left), 2 tokens (4)
//   step 4  credit 1.625: 1, 2 tokens (6);  step 5  credit 1.5: 1, 2 tokens (8)
//   step 6  credit 1.375: 1, 2 tokens (10): finished at 0.026 + 5 · 0.019 = 0.121
// TTFT 26 ms, TPOT (121 − 26) / 9 ms. Step 2's decode attends to 101, 102, 103 and 104 tokens:
// 4 · 100 + 4 · 5 / 2 = 410 pairs; num_computed_tokens goes 100 → 101 (3 rejected) → 103.
TEST(ServingSpec, DraftsAcceptedAsTheyAccrue) {
  const auto x = run(config(3, {0.5, 0.25, 0.125}, 4096), workload({req(0, 0, 100, 10)}));
  ASSERT_EQ(x.steps.size(), 6u);
  EXPECT_EQ(x.steps[0].batch.prefill_tokens, 100u);
  EXPECT_EQ(x.steps[0].batch.draft_passes, 3u);
  EXPECT_EQ(x.steps[0].batch.spec_tokens, 0u);
  EXPECT_EQ(x.steps[1].batch.decode_tokens, 1u);
  EXPECT_EQ(x.steps[1].batch.spec_tokens, 3u);
  EXPECT_EQ(x.steps[1].batch.decode_pairs, 410u);
  EXPECT_EQ(x.steps[1].seqs[0].computed, 100u);
  EXPECT_EQ(x.steps[1].seqs[0].scheduled, 4u);
  EXPECT_EQ(x.steps[2].seqs[0].computed, 101u);
  EXPECT_EQ(x.steps[3].seqs[0].computed, 103u);
  const auto& r = x.r.requests[0];
  EXPECT_TRUE(r.finished);
  EXPECT_NEAR(r.first_token_s, 0.026, 1e-9);
  EXPECT_NEAR(r.finish_s, 0.121, 1e-9);
  EXPECT_NEAR(x.r.summary.tpot_ms.mean, (121.0 - 26.0) / 9, 1e-6);
  // One inter-token gap a step, however many tokens the step emits: 5 gaps of 19 ms.
  EXPECT_EQ(x.r.summary.itl_ms.count, 5u);
  EXPECT_NEAR(x.r.summary.itl_ms.mean, 19.0, 1e-6);
}

// The token budget cuts the drafts (scheduler.py: num_new_tokens = min(num_new_tokens,
// token_budget)), and max_model_len − 1 − num_computed_tokens does too. Budget 2, k = 3 at 1.0: a
// decode carries 1 draft, always accepted, so every step after the prefill emits 2 tokens. Prompt
// 10 (5 chunks of 2), output 5: prefill steps 1–5 (the 5th samples the first token), then 2 tokens
// at steps 6 and 7: 7 steps. Context 13: prompt 10, output 3: the first decode may schedule 13 − 1
// − 10 = 2 tokens (1 draft) and its lookahead is 13 − 12 = 1 token.
TEST(ServingSpec, BudgetAndContextCutTheDrafts) {
  ServingConfig cfg = config(3, {1.0, 1.0, 1.0}, 4096);
  cfg.max_num_batched_tokens = 2;
  const auto x = run(cfg, workload({req(0, 0, 10, 5)}));
  ASSERT_EQ(x.steps.size(), 7u);
  EXPECT_EQ(x.steps[5].batch.spec_tokens, 1u);
  EXPECT_EQ(x.steps[5].seqs[0].scheduled, 2u);
  EXPECT_EQ(x.r.requests[0].output_tokens, 5u);
  EXPECT_TRUE(x.r.requests[0].finished);

  const auto y = run(config(3, {1.0, 1.0, 1.0}, 13), workload({req(0, 0, 10, 3)}));
  ASSERT_EQ(y.steps.size(), 2u);  // the prefill, then the decode with its one draft
  EXPECT_EQ(y.steps[1].seqs[0].scheduled, 2u);
  EXPECT_EQ(y.steps[1].batch.spec_tokens, 1u);
  EXPECT_TRUE(y.r.requests[0].finished);
}

// A request that preempts itself drops its drafts with its blocks (_preempt_request clears
// spec_token_ids), so its recompute is a plain prefill that samples a token. 3 blocks, k = 3,
// no draft accepted, context 48; A (id 0) and B (id 1): prompt 16, output 3, both at t = 0.
//   step 1  both prefill 16 (1 block each, no lookahead from the waiting queue): 10 + 3.2 + 6 ms
//           = 19.2 ms; first tokens
//   step 2  A decodes 1 + 3 drafts with 3 lookahead: 16 + 4 + 3 = 23 tokens, 2 blocks (takes the
//           free one); B needs a second block too, none is free: B preempts itself. A alone,
//           10 + 3 + 6 = 19 ms (t = 0.0382); its drafts rejected: computed 17, 2 tokens
//   step 3  A again (2 blocks hold 24 tokens); B needs 2 blocks for its 17 tokens, 1 is free:
//           A alone, 19 ms: A's 3rd token, finished at 0.0572
//   step 4  B recomputes its 17 tokens from the queue: 10 + 1.7 + 6 = 17.7 ms (t = 0.0749), and
//           samples its 2nd token
//   step 5  B decodes with drafts: 19 ms, its 3rd token at 0.0939.
TEST(ServingSpec, PreemptionDropsTheDrafts) {
  const auto x =
      run(config(3, {0.0, 0.0, 0.0}, 48, 3), workload({req(0, 0, 16, 3), req(1, 0, 16, 3)}));
  ASSERT_EQ(x.steps.size(), 5u);
  const auto& A = x.r.requests[0];
  const auto& B = x.r.requests[1];
  EXPECT_TRUE(A.finished && B.finished);
  EXPECT_NEAR(A.finish_s, 0.0572, 1e-9);
  EXPECT_EQ(B.preemptions, 1u);
  EXPECT_EQ(B.recomputed_tokens, 16u);
  EXPECT_EQ(x.steps[3].batch.prefill_tokens, 17u);
  EXPECT_EQ(x.steps[3].batch.spec_tokens, 0u);
  EXPECT_NEAR(B.finish_s, 0.0939, 1e-9);
}

// Without acceptance rates the drafts are not simulated: one token a step, no drafter.
TEST(ServingSpec, NoRatesNoDrafts) {
  const auto x = run(config(3, {}, 4096), workload({req(0, 0, 100, 4)}));
  ASSERT_EQ(x.steps.size(), 4u);
  for (const auto& s : x.steps) {
    EXPECT_EQ(s.batch.spec_tokens, 0u);
    EXPECT_EQ(s.batch.draft_passes, 0u);
  }
}

TEST(ServingSpec, RatesParsedAndRefused) {
  EXPECT_EQ(parse_spec_acceptance("0.5", 3, "--acceptance-rate", "acceptance-rate"),
            (std::vector<double>{0.5, 0.25, 0.125}));
  EXPECT_EQ(parse_spec_acceptance("0.9,0.7", 2, "--acceptance-rate", "acceptance-rate"),
            (std::vector<double>{0.9, 0.7}));
  for (const char* bad : {"0.7,0.9", "1.5", "-0.1", "x", "", "0.5,", "0.9,0.8,0.7"}) {
    const std::string m = test::error_message(
        [&] { parse_spec_acceptance(bad, 2, "--acceptance-rate", "acceptance-rate"); });
    EXPECT_NE(m.find("--acceptance-rate"), std::string::npos) << bad << ": " << m;
  }
  const std::string none = test::error_message(
      [] { parse_spec_acceptance("0.5", 0, "--acceptance-rate", "acceptance-rate"); });
  EXPECT_NE(none.find("num_speculative_tokens is 0"), std::string::npos) << none;

  // The simulator refuses rates of another length than k, rising rates, and another engine.
  const Workload w = workload({req(0, 0, 10, 2)});
  const std::string wrong =
      test::error_message([&] { simulate(llama(), config(2, {0.5}, 4096), SpecTimer{}, w); });
  EXPECT_NE(wrong.find("spec_acceptance"), std::string::npos) << wrong;
  const std::string rising = test::error_message([&] {
    simulate(llama(), config(2, {0.5, 0.6}, 4096), SpecTimer{}, w);
  });
  EXPECT_NE(rising.find("spec_acceptance/1"), std::string::npos) << rising;
}

// The drafter's cost by hand. Llama-3.1-8B (32 layers, 16,060,522,496 weight bytes, vocabulary
// 128,256, hidden 4,096) on one H100 SXM (3,350 GB/s), efficiency memory 0.8, compute 0.5,
// 30 µs a layer, nothing else. One draft pass over 1 sequence, 1 draft layer, no KV read:
//   memory  = (16,060,522,496 / 32 + 128,256 · 4,096 · 2) / (3.35e12 · 0.8)
//           = (501,891,328 + 1,050,673,152) / 2.68e12 = 0.579315 ms
//   compute = (2 · P / 32 + 2 · 128,256 · 4,096) FLOPs, about 1.5 GFLOP at 494.5 TFLOP/s: 3 µs
//   pass    = 0.579315 + 0.030 = 0.609315 ms; 3 passes 1.827946 ms.
// And the verified drafts count as tokens: a decode with 3 drafts does the FLOPs of 4 decodes.
TEST(ServingSpec, DraftPassesCostALayerAndTheHead) {
  const ModelSpec& m = llama();
  ASSERT_EQ(m.vocab_size, 128256u);
  ASSERT_EQ(m.hidden_size, 4096u);
  ASSERT_EQ(m.layers.size(), 32u);
  ASSERT_EQ(m.weight_bytes(), 16060522496u);
  StepModelInput in;
  in.efficiency =
      StepEfficiency{.compute = 0.5, .memory = 0.8, .interconnect = 1, .layer_overhead_s = 30e-6};
  const StepModel step(m, load_gpu("h100-sxm-80gb"), in);
  StepBatch b;
  b.decode_tokens = 1;
  b.draft_passes = 3;
  b.draft_layers = 1;
  const double pass = (501891328.0 + 1050673152.0) / (3.35e12 * 0.8) + 30e-6;
  EXPECT_NEAR(step.draft_seconds(b), 3 * pass, 1e-9);
  EXPECT_NEAR(pass * 1e3, 0.609315, 1e-6);
  StepBatch plain = b;
  plain.draft_passes = 0;
  EXPECT_NEAR(step.seconds(b) - step.seconds(plain), 3 * pass, 1e-12);

  StepBatch spec, four;
  spec.decode_tokens = 1, spec.spec_tokens = 3;
  four.decode_tokens = 4;
  EXPECT_DOUBLE_EQ(step.terms(spec).flops, step.terms(four).flops);
}

}  // namespace
}  // namespace kvplan::sim
