// vLLM's memory outside the weights and the KV cache (core/src/engines/vllm_memory.cpp) against
// the memory profiles vLLM logged ("Free memory on device (F/T GiB) ... Actual usage is W GiB for
// weight, A GiB for peak activation, N GiB for non-torch memory, ... KV cache memory"). Every
// expected figure below is a logged one; none comes from kvplan. The fit split is the Llama
// family (the constants in vllm_memory.cpp were fitted on those two rows); every other row is
// the test split, whose error docs/accuracy.md reports.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "kvplan/engine_rules.hpp"
#include "kvplan/gpu.hpp"
#include "kvplan/model.hpp"
#include "kvplan/planner.hpp"

namespace kvplan {
namespace {

constexpr double kGiB = 1073741824.0;

struct LoggedProfile {
  const char* name;
  const char* source;
  bool fit;  // in the fit split
  // The model's widths (from its config.json) and the deployment.
  std::uint32_t vocab, hidden, intermediate, tp;
  std::uint64_t max_num_seqs, max_num_batched_tokens;
  // Logged, GiB.
  double total, utilization, weights, activation, non_torch, kv;
  // The release's rules: llm-d's ran after vllm-project/vllm#25359 (NCCL before the memory
  // baseline: 79.18 - 77.64 GiB taken before it at TP 2, 79.18 - 78.57 at TP 1) and still sorted
  // in its sampler (vllm@0.9's terms); 0.10.2 created NCCL after the baseline (vllm@0.10).
  VllmRules rules = VllmRules::v0_9;
};

// llm-d/llm-d-benchmark@259334868c5075da530cc6c90b43fceb11b6e6a7
// config_explorer/empirical-vllm-memory-results.md: vLLM V1 on H100 (79.18 GiB), `vllm serve`
// defaults (max_num_seqs 1024 and max_num_batched_tokens 8192 on a >= 70 GiB non-A100 GPU).
constexpr const char* kLlmD = "llm-d-benchmark empirical-vllm-memory-results.md";
// The Qwen3-Next log: vLLM 0.10.2 on 2 x H200, `--tensor-parallel-size 2` (docs/accuracy.md).
constexpr const char* kQwenNext = "vLLM 0.10.2 Qwen3-Next-80B-A3B TP 2 H200 log (docs/accuracy.md)";

const std::vector<LoggedProfile>& profiles() {
  static const std::vector<LoggedProfile> rows = {
      // meta-llama/Llama-3.1-8B-Instruct config.json: vocab 128256, hidden 4096, MLP 14336.
      {"Llama-3.1-8B TP1", kLlmD, true, 128256, 4096, 14336, 1, 1024, 8192, 79.18, 0.9, 14.99, 4.76,
       0.13, 51.38},
      // Llama-3.3-70B: vocab 128256, hidden 8192, MLP 28672.
      {"Llama-3.3-70B-FP8 TP2", kLlmD, true, 128256, 8192, 28672, 2, 1024, 8192, 79.18, 0.9, 33.88,
       4.84, 0.55, 32.0},
      // Qwen/Qwen3-32B config.json: vocab 151936, hidden 5120, MLP 25600.
      {"Qwen3-32B TP1", kLlmD, false, 151936, 5120, 25600, 1, 1024, 8192, 79.18, 0.9, 61.03, 5.64,
       0.14, 4.45},
      // openai/gpt-oss-20b config.json: vocab 201088, hidden 2880, experts' width 2880.
      {"gpt-oss-20b TP1", kLlmD, false, 201088, 2880, 2880, 1, 1024, 8192, 79.18, 0.9, 13.47, 7.38,
       0.13, 50.28},
      // Qwen/Qwen3-0.6B config.json: vocab 151936, hidden 1024, MLP 3072.
      {"Qwen3-0.6B TP1", kLlmD, false, 151936, 1024, 3072, 1, 1024, 8192, 79.18, 0.9, 1.12, 5.56,
       0.13, 64.45},
      // Qwen/Qwen3-Next-80B-A3B-Instruct config.json: vocab 151936, hidden 2048, MLP 5120.
      {"Qwen3-Next-80B-A3B TP2", kQwenNext, false, 151936, 2048, 5120, 2, 1024, 8192, 139.81, 0.9,
       74.28, 5.58, 1.38, 44.59, VllmRules::v0_10},
  };
  return rows;
}

struct Predicted {
  double activation, non_torch, kv;
};

// vLLM's terms (the last stage's) for a model of these widths under these settings.
struct Widths {
  std::uint32_t vocab, hidden, intermediate, tp;
  std::uint64_t max_num_seqs, max_num_batched_tokens;
  double total_gib = 0;
};
MemoryTerms vllm_terms(VllmRules rules, const Widths& w) {
  ModelSpec m;
  m.id = "widths";
  m.vocab_size = w.vocab;
  m.hidden_size = w.hidden;
  m.intermediate_size = w.intermediate;
  PlanInput in;
  in.tp = w.tp;
  in.max_num_seqs = w.max_num_seqs;
  in.max_num_batched_tokens = w.max_num_batched_tokens;
  in.gpu_memory_bytes = static_cast<std::uint64_t>(w.total_gib * kGiB);
  return engine_rules(Engine::vllm, rules).memory_terms({m, in, true});
}

// kvplan's terms for the row, and the KV memory they leave with the logged weights: isolates the
// memory model from the weight arithmetic (tested by the presets' own tests).
Predicted predict(const LoggedProfile& r) {
  const MemoryTerms t = vllm_terms(r.rules, {r.vocab, r.hidden, r.intermediate, r.tp,
                                             r.max_num_seqs, r.max_num_batched_tokens, r.total});
  Predicted p;
  p.activation = t.activation.bytes / kGiB;
  p.non_torch = t.non_torch.bytes / kGiB;
  p.kv = r.total * r.utilization - r.weights - t.reserve_bytes() / kGiB;
  return p;
}

TEST(EngineMemory, EveryLoggedProfileAddsUp) {
  // The logs themselves: total x utilization - weights - activation - non-torch = KV (0.02 GiB:
  // four figures rounded to 0.01). Guards the table against a typo.
  for (const auto& r : profiles())
    EXPECT_NEAR(r.total * r.utilization - r.weights - r.activation - r.non_torch, r.kv, 0.02)
        << r.name;
}

TEST(EngineMemory, VllmActivationPeakWithinTheLogsRounding) {
  // The derived sampler peak (9.5 [rows, vocab] float32 units + hidden states) and the fitted
  // residual: within 0.03 GiB of every logged peak, never more than 0.01 GiB below it.
  for (const auto& r : profiles()) {
    const Predicted p = predict(r);
    EXPECT_NEAR(p.activation, r.activation, 0.03) << r.name;
    EXPECT_GE(p.activation, r.activation - 0.01) << r.name;
  }
}

TEST(EngineMemory, VllmKvMemoryOnTheTestSplit) {
  // Target of issue 23: within 2 % MAPE on the test split and never optimistic by more than 1 %.
  // The Qwen3-Next row (vLLM 0.10.2 at TP 2) logs 1.38 GiB of non-torch memory: its release
  // created NCCL after the baseline, so vllm@0.10 adds what NCCL took before the baseline in the
  // fit, 1.54 - 0.61 = 0.93 GiB, to the fitted 0.55: 1.48 GiB, 0.10 above the log (safe side).
  double sum = 0;
  int n = 0;
  for (const auto& r : profiles()) {
    const Predicted p = predict(r);
    const double err = (p.kv - r.kv) / r.kv;
    // The rows docs/accuracy.md shows (run with --gtest_filter=EngineMemory.*).
    std::printf("| %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %+.2f %% |\n", r.name,
                r.fit ? "fit" : "test", r.activation, p.activation, r.non_torch, p.non_torch, r.kv,
                p.kv, 100 * err);
    if (r.fit) {
      EXPECT_LE(std::fabs(err), 0.005) << r.name << " (fit split)";
      continue;
    }
    sum += std::fabs(err);
    ++n;
    EXPECT_LE(err, 0.01) << r.name << ": predicted " << p.kv << " GiB";
  }
  ASSERT_EQ(n, 4);
  EXPECT_LT(sum / n, 0.02);
}

TEST(EngineMemory, Vllm010CountsNcclInsideNonTorch) {
  // vLLM 0.10 took its memory baseline before NCCL (vllm-project/vllm#25359 reversed the order in
  // 0.11): at TP > 1 what NCCL takes before the baseline in the fit (context 1.54 GiB at TP 2
  // less 0.61 at TP 1 = 0.93 GiB) moves from the context into non-torch, inside the budget.
  // 0.55 + 0.93 = 1.48 GiB = 1,589,137,899.52 B; 0.61 GiB = 654,982,512.64 B.
  const Widths tp2{151936, 2048, 5120, 2, 1024, 8192};
  const MemoryTerms now = vllm_terms(VllmRules::v0_9, tp2);
  const MemoryTerms then = vllm_terms(VllmRules::v0_10, tp2);
  EXPECT_EQ(then.non_torch.bytes, 1589137900u);
  EXPECT_EQ(then.context.bytes, 654982513u);
  EXPECT_EQ(now.context.bytes, 1653562409u);  // 1.54 GiB = 1,653,562,408.96 B
  EXPECT_EQ(then.activation.bytes, now.activation.bytes);
  // At TP 1 there is no NCCL: the two releases agree.
  const Widths tp1{151936, 2048, 5120, 1, 1024, 8192};
  EXPECT_EQ(vllm_terms(VllmRules::v0_10, tp1).reserve_bytes(),
            vllm_terms(VllmRules::v0_9, tp1).reserve_bytes());
  EXPECT_EQ(vllm_terms(VllmRules::v0_10, tp1).context.bytes,
            vllm_terms(VllmRules::v0_9, tp1).context.bytes);
}

// vLLM 0.17 - 0.19 (`vllm@0.19`): their logs print no activation and non-torch split at INFO, only
// the weights ("Model loading took"), the KV memory ("Available KV cache memory") and the graph
// estimate; total x utilization - weights - KV is the activation and non-torch memory together.
// The profile's sampler there is the Triton top-k/top-p kernel (vllm-project/vllm#33538). Nothing
// was fitted on these rows: the whole table is test split.
struct Logged019 {
  const char* name;
  const char* source;
  std::uint32_t vocab, hidden, intermediate, tp;
  std::uint64_t max_num_seqs, max_num_batched_tokens;
  double total, utilization, weights, kv;  // GiB; total: the GPU preset's CUDA total
};

const std::vector<Logged019>& logs_0_19() {
  static const std::vector<Logged019> rows = {
      // tests/data/logs/startup/vllm-v1-0.19.1-qwen3-8b-tp1-a100-40g.log: vLLM 0.19.1, defaults
      // on an A100-SXM4-40GB (256 sequences, 2048 batched tokens: "compile_ranges_endpoints':
      // [2048]"); Qwen/Qwen3-8B config.json: vocab 151936, hidden 4096, MLP 12288.
      {"Qwen3-8B TP1 A100-40GB (0.19.1)", "vllm-v1-0.19.1-qwen3-8b-tp1-a100-40g.log", 151936, 4096,
       12288, 1, 256, 2048, 39.39, 0.9, 15.27, 19.36},
      // tests/data/logs/startup/vllm-v1-0.19.0-gpt-oss-20b-tp1-a100.log
      // (https://myoceane.fr/index.php/ai-vllm-a100-gemma-4/): vLLM 0.19.0, --max-model-len 131072
      // --gpu-memory-utilization 0.65 on an A100 (80 GB: 0.65 x 40 GiB is less than the logged
      // weights + KV), A100 defaults 256 / 2048; openai/gpt-oss-20b config.json: vocab 201088,
      // hidden 2880, experts' width 2880. Total: the a100-80gb preset's estimate, 80 - 0.71 GiB.
      {"gpt-oss-20b TP1 A100-80GB (0.19.0)", "vllm-v1-0.19.0-gpt-oss-20b-tp1-a100.log", 201088,
       2880, 2880, 1, 256, 2048, 79.29, 0.65, 13.72, 36.56},
  };
  return rows;
}

TEST(EngineMemory, Vllm019KvMemoryFromTheTritonSampler) {
  // Qwen3-8B by hand: rows = min(256, 2048) = 256; the Triton sampler holds 3.5 float32
  // [rows, vocab] units and a 132-row float32 scratch buffer: (3.5 x 256 + 132) x 151936 x 4 B =
  // 624,760,832 B, plus the hidden states (2048 + 2 x 256) x 4096 x 2 B = 20,971,520 B: 645,732,352
  // B, over the forward's 2048 x (4096 + 3 x 12288) x 2 B = 167,772,160 B; + 0.04 GiB residual
  // (42,949,673 B) = 688,682,025 B of activation.
  const Logged019& q = logs_0_19().front();
  const Widths qw{q.vocab, q.hidden,       q.intermediate,
                  q.tp,    q.max_num_seqs, q.max_num_batched_tokens};
  const MemoryTerms t = vllm_terms(VllmRules::v0_19, qw);
  EXPECT_EQ(t.activation.bytes, 688682025u);
  EXPECT_FALSE(t.graphs_in_budget);  // captured after the KV cache until 0.21
  // The sort of older releases (vllm@0.9) would hold 9.5 units: 1.4 GiB, not 0.64.
  EXPECT_GT(vllm_terms(VllmRules::v0_9, qw).activation.bytes, 2 * t.activation.bytes);
  // Issue 23's targets on every row: never more than 1 % optimistic, within 2 % MAPE.
  double sum = 0;
  for (const auto& r : logs_0_19()) {
    const MemoryTerms rt = vllm_terms(VllmRules::v0_19, {r.vocab, r.hidden, r.intermediate, r.tp,
                                                         r.max_num_seqs, r.max_num_batched_tokens});
    const double kv = r.total * r.utilization - r.weights - rt.reserve_bytes() / kGiB;
    const double err = (kv - r.kv) / r.kv;
    std::printf("| %s | %.2f | %.2f | %.2f | %+.2f %% |\n", r.name,
                r.total * r.utilization - r.weights - r.kv, rt.reserve_bytes() / kGiB, r.kv,
                100 * err);
    EXPECT_LE(err, 0.01) << r.name << ": predicted " << kv << " GiB";
    sum += std::fabs(err);
  }
  EXPECT_LT(sum / static_cast<double>(logs_0_19().size()), 0.02);
}

// gpt-oss's MXFP4 experts as vLLM holds them after loading ("Model loading took W GiB"): the
// checkpoint (12.81 GiB for gpt-oss-20b) is 5 - 7 % below every log; Triton's layout on an H100
// and Marlin's on an A100 (core/src/engines/vllm_weights.cpp) come within 1 % of them.
TEST(EngineMemory, VllmHoldsMxfp4ExpertsAsItsBackendLaysThemOut) {
  struct Row {
    const char* model;
    const char* gpu;
    double logged_gib;
    const char* source;
  };
  const Row rows[] = {
      {"gpt-oss-20b", "h100-sxm-80gb", 13.47, "llm-d-benchmark empirical-vllm-memory-results.md"},
      {"gpt-oss-120b", "h100-sxm-80gb", 64.38, "llm-d-benchmark empirical-vllm-memory-results.md"},
      {"gpt-oss-20b", "a100-80gb", 13.72, "vllm-v1-0.19.0-gpt-oss-20b-tp1-a100.log"},
  };
  for (const Row& r : rows) {
    const ModelSpec m = load_model(r.model);
    PlanInput in;
    in.context = 8192;
    in.gpu_id = r.gpu;
    in.gpu_memory_bytes = load_gpu(r.gpu).engine_memory_bytes();
    const double held = memory_budget(m, in, "test").weight_bytes / kGiB;
    const double ckpt = m.weight_bytes() / kGiB;
    std::printf("| %s | %s | %.2f | %.2f | %.2f | %+.2f %% |\n", r.model, r.gpu, ckpt, held,
                r.logged_gib, 100 * (held - r.logged_gib) / r.logged_gib);
    EXPECT_NEAR(held, r.logged_gib, 0.01 * r.logged_gib) << r.model << " on " << r.gpu;
    EXPECT_LT(ckpt, 0.96 * r.logged_gib) << r.model << ": the checkpoint alone";
  }
}

TEST(EngineMemory, VllmDefaultsFollowTheGpu) {
  // vllm/engine/arg_utils.py@99d7eb5d _set_default_args: 1024 sequences on >= 70 GiB GPUs whose
  // name has no "a100", else 256.
  const EngineRules& r = engine_rules(Engine::vllm);
  PlanInput in;
  in.gpu_memory_bytes = static_cast<std::uint64_t>(79.18 * kGiB);
  in.gpu_id = "h100-sxm-80gb";
  EXPECT_EQ(r.default_max_num_seqs(in), 1024u);
  // The same file's get_batch_defaults, for the OpenAI server: 8192 batched tokens there, 2048
  // elsewhere; max_num_seqs is then at most max_num_batched_tokens.
  EXPECT_EQ(r.default_max_num_batched_tokens(in), 8192u);
  in.max_num_batched_tokens = 512;
  EXPECT_EQ(r.default_max_num_seqs(in), 512u);
  in.max_num_batched_tokens = 8192;
  in.gpu_id = "a100-80gb";
  EXPECT_EQ(r.default_max_num_seqs(in), 256u);
  EXPECT_EQ(r.default_max_num_batched_tokens(in), 2048u);
  in.gpu_id = "l40s";
  in.gpu_memory_bytes = std::uint64_t{46} << 30;
  EXPECT_EQ(r.default_max_num_seqs(in), 256u);
  EXPECT_EQ(r.default_max_num_batched_tokens(in), 2048u);
  // SGLang and TensorRT-LLM keep kvplan's 8192 (trtllm-serve's max_num_tokens default).
  EXPECT_EQ(engine_rules(Engine::trtllm).default_max_num_batched_tokens(in), 8192u);
}

TEST(EngineMemory, WhatTheFractionLeavesOutMustHoldTheContext) {
  // Llama-3.1-8B at TP 2 on an H100 at --gpu-memory-utilization 0.99: 1 % of 79.18 GiB is
  // 0.79 GiB, the CUDA context and NCCL took 79.18 - 77.64 = 1.54 GiB before the baseline
  // (llm-d TP 2 row): vLLM >= 0.9 refuses to start ("Free memory on device ... is less than
  // desired GPU memory utilization"). At 0.9 (7.92 GiB left out) it starts.
  ModelSpec m = load_model("llama-3.1-8b");
  PlanInput in;
  in.tp = 2;
  in.context = 8192;
  in.gpu_id = "h100-sxm-80gb";
  in.gpu_memory_bytes = load_gpu("h100-sxm-80gb").engine_memory_bytes();
  in.memory_fraction_ppm = 990000;
  EXPECT_GT(memory_budget(m, in, "test").outside_shortfall_bytes, 0u);
  in.memory_fraction_ppm = 900000;
  EXPECT_EQ(memory_budget(m, in, "test").outside_shortfall_bytes, 0u);
}

// Model Runner V2 (vllm@0.25 for dense models; docs/engine-memory.md "Model Runner V2"): the
// sampler state and the warm-up after the KV cache, outside the budget. Qwen3-32B on an H100 at
// `vllm serve` defaults (max_num_seqs 1024, max_num_batched_tokens 8192; config.json: vocab
// 151,936, hidden 5,120, MLP 25,600), hand-worked from vLLM's source:
//   sampler state = penalty counts 1024 x 151936 x 4 (622,329,856) + two int32 bitmasks
//     1024 x ceil(151936/32) x 4 (2 x 19,447,808) + bias and bad-words tables 1024 x (3 x 1024 +
//     128 + 1024 + 129) x 4 (17,829,888) = 679,055,360 B;
//   warm-up = 14 x 1024 x 151936 (2,178,154,496) + (2048 + 1024) x 5120 x 2 (31,457,280)
//     = 2,209,611,776 B (R = min(1024, 8192 / 2) = 1024 requests of 2 prompt tokens);
//   activation (profile without sampling parameters) = the forward's compiled piece, 8192 x
//     (64 x 128 + 2 x 5120 + 3 x 25600) x 2 = 1,560,281,088 B (the attention output and the
//     incoming residual it holds as inputs, the new residual, gate/up and the activation; above
//     the sampler phase's (8192 + 2048) x 5120 x 2 + 0.5 x 1024 x 151936 x 4 = 416,022,528), + the
//     fitted 0.04 GiB residual (42,949,673 B) = 1,603,230,761 B = 1.493 GiB. That start's log
//     (llm-d/llm-d-benchmark PR #1791) prints "1.48 GiB for peak activation".
// The start that failed (llm-d/llm-d-benchmark PR #1791: Qwen3-32B TP 1 on an H100 at 0.95, OOM
// in the warm-up "Tried to allocate 594.00 MiB"; fixed by a smaller KV cache) is foreseen: what
// must fit beside the budget is the context 0.61 + graphs 2.44 GiB + 679,055,360 + (2,209,611,776
// - 1,603,230,761) B = 4.25 GiB, where 0.05 x 79.18 GiB leaves 3.96. At 0.9 (7.92 left) it starts.
TEST(EngineMemory, ModelRunnerV2SamplerStateAndWarmupSitOutsideTheBudget) {
  ModelSpec m = load_model("qwen3-32b");
  ASSERT_EQ(m.vocab_size, 151936u);
  ASSERT_EQ(m.hidden_size, 5120u);
  PlanInput in;
  in.context = 8192;
  in.gpu_id = "h100-sxm-80gb";
  in.gpu_memory_bytes = load_gpu("h100-sxm-80gb").engine_memory_bytes();
  in.edit_vllm().rules = VllmRules::v0_25;
  in.max_num_batched_tokens = 8192;
  const MemoryTerms t = engine_rules(in).memory_terms({m, in, true});
  EXPECT_EQ(t.sampler_state.bytes, 679055360u);
  EXPECT_EQ(t.warmup.bytes, 2209611776u);
  EXPECT_EQ(t.activation.bytes, 1560281088u + 42949673u);
  // Within the log's rounding of its 1.48 GiB, and not below it (a lower peak is a larger,
  // optimistic KV cache).
  EXPECT_NEAR(static_cast<double>(t.activation.bytes) / kGiB, 1.48, 0.015);
  EXPECT_FALSE(t.graphs_in_budget);  // profile_cudagraph_memory returned 0 (vllm#49224)
  in.memory_fraction_ppm = 950000;
  EXPECT_GT(memory_budget(m, in, "test").outside_shortfall_bytes, 0u);
  in.memory_fraction_ppm = 900000;
  EXPECT_EQ(memory_budget(m, in, "test").outside_shortfall_bytes, 0u);
  // Only the last pipeline stage samples.
  EXPECT_EQ(engine_rules(in).memory_terms({m, in, false}).warmup.bytes, 0u);
  // Model Runner V1 (VLLM_USE_V2_MODEL_RUNNER=0, or the releases before): the warm-up samples as
  // the profile did, so neither term exists, and the 0.95 start is not refused.
  in.edit_vllm().model_runner = VllmOptions::ModelRunner::v1;
  const MemoryTerms v1 = engine_rules(in).memory_terms({m, in, true});
  EXPECT_EQ(v1.sampler_state.bytes + v1.warmup.bytes, 0u);
  // An MoE model runs V1 under 0.25 by default (MoE followed in 0.29, vllm#53183).
  in.edit_vllm().model_runner = VllmOptions::ModelRunner::auto_;
  const ModelSpec moe = load_model("gpt-oss-20b");
  EXPECT_EQ(engine_rules(in).memory_terms({moe, in, true}).sampler_state.bytes, 0u);
}

// The second Model Runner V2 start that failed in its warm-up prints every term
// (vllm-project/vllm#48601: Qwen3.6-27B-FP8, TP 4, H100s, 0.92, VLLM_USE_V2_MODEL_RUNNER=1; "Free
// memory on device (77.57/79.11 GiB) on startup ... 7.39 GiB for weight, 1.54 GiB for peak
// activation, 0.6 GiB for non-torch memory, and 2.04 GiB for CUDAGraph memory ... Current kv
// cache memory in use is 63.25 GiB"): 77.57 - 7.39 - 63.25 - 0.60 - 2.04 = 4.29 GiB was free for
// the sampler state and the warm-up. Its vocabulary is 248,320 and hidden size 5,120
// (Qwen3.6-27B config.json; every rank gathers the whole vocabulary's logits), so the derived
// need is 4 x 1024 x 248320 + 2 x 4 x 1024 x 7760 + 1024 x 4353 x 4 = 1,098,518,528 B of state
// and 14 x 1024 x 248320 + 3072 x 5120 x 2 = 3,591,372,800 B of warm-up: 4.37 GiB > 4.29.
TEST(EngineMemory, ModelRunnerV2WarmupExceedsWhatTheQwen36LogLeftFree) {
  ModelSpec m = load_model("qwen3-32b");  // the terms read vocab and hidden size only
  m.vocab_size = 248320;
  PlanInput in;
  in.tp = 4;
  in.context = 8192;
  in.gpu_id = "h100-sxm-80gb";
  in.gpu_memory_bytes = load_gpu("h100-sxm-80gb").engine_memory_bytes();
  in.max_num_batched_tokens = 8192;
  in.edit_vllm().model_runner = VllmOptions::ModelRunner::v2;
  const MemoryTerms t = engine_rules(in).memory_terms({m, in, true});
  EXPECT_EQ(t.sampler_state.bytes, 1098518528u);
  EXPECT_EQ(t.warmup.bytes, 3591372800u);
  const double free_gib = 77.57 - 7.39 - 63.25 - 0.60 - 2.04;
  EXPECT_GT(static_cast<double>(t.sampler_state.bytes + t.warmup.bytes) / kGiB, free_gib);
}

TEST(EngineMemory, PipelineStagesHoldTheEmbeddingAndTheHead) {
  // Llama-3.1-8B in bf16, PP 2: 128256 x 4096 x 2 B = 1,050,673,152 B of embedding on stage 0
  // and as much lm_head on stage 1; the 16 layers each stage holds are equal, so the last stage
  // (lm_head and the sampler) has the smallest budget and sizes both.
  ModelSpec m = load_model("llama-3.1-8b");
  EXPECT_EQ(m.weights.embed_bytes, 1050673152u);
  EXPECT_EQ(m.weights.head_bytes, 1050673152u);
  PlanInput in;
  in.pp = 2;
  in.context = 8192;
  in.gpu_id = "h100-sxm-80gb";
  in.gpu_memory_bytes = load_gpu("h100-sxm-80gb").engine_memory_bytes();
  const MemoryBudget b = memory_budget(m, in, "test");
  EXPECT_EQ(b.stage, 1u);
  // (8,030,261,248 params x 2 B - 2 x 1,050,673,152) / 2 + 1,050,673,152 = 8,030,261,248.
  EXPECT_EQ(b.weight_bytes, 8030261248u);
}

}  // namespace
}  // namespace kvplan
