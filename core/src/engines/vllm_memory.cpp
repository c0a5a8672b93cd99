// vLLM V1's memory outside the weights and the KV cache, term by term (docs/engine-memory.md has
// the derivation of each term and the fit of each constant). The budget is
//   available = total · gpu_memory_utilization − weights − activation − non_torch (− graphs, from
//               0.21, where the graph estimate is deducted)
// (vllm/v1/worker/gpu_worker.py@35d5cda123ec28581759b6d34cde8052314fb1e6 determine_available_memory
// with vllm/utils/mem_utils.py@a6d5c39009eb73797b276cc557ca9659c396ca14 memory_profiling).
#include <algorithm>
#include <cmath>
#include <string>

#include "kvplan/checked.hpp"
#include "vllm.hpp"

namespace kvplan::engines {
namespace {

constexpr double kGiB = 1073741824.0;

// Constants fitted to startup logs, with the logs they were fitted on (the fit split of
// docs/accuracy.md: the Llama family; every other family is the test split).
struct VllmFit {
  // What the profile's peak holds beyond the derived tensors (allocator rounding, small
  // buffers): logged peak − derived sampler phase = 0.034 GiB (Llama-3.1-8B TP 1) and 0.036 GiB
  // (Llama-3.3-70B-FP8 TP 2), taken up to the next 0.01 GiB.
  double residual_gib = 0.04;
  // Non-torch memory the profile sees grow: 0.13 GiB at TP 1 (Llama-3.1-8B), 0.55 GiB at TP 2
  // (Llama-3.3-70B-FP8: NCCL and custom all-reduce buffers created in the first forward).
  double non_torch_tp1_gib = 0.13, non_torch_tp_gib = 0.55;
  // Taken before the baseline (CUDA context; NCCL communicators at TP > 1): total − free at
  // start-up, 79.18 − 78.57 GiB at TP 1 and 79.18 − 77.64 GiB at TP 2.
  double context_tp1_gib = 0.61, context_tp_gib = 1.54;
  // CUDA-graph memory: the largest "Estimated CUDA graph memory" vLLM >= 0.21 logged in the
  // startup logs (0.58 GiB, 8x RTX 3090 TP 4 PP 2; 0.52 Qwen3-8B; 0.36 TP 2).
  double graphs_gib = 0.58;
};
constexpr VllmFit kFit{};
constexpr const char* kFitSource =
    "fitted: docs/engine-memory.md (vLLM fit), llm-d/llm-d-benchmark@259334868c50 "
    "config_explorer/empirical-vllm-memory-results.md (Llama rows)";

// The sampler's peak in [rows, vocab] float32 units U (derived, docs/engine-memory.md): the
// bf16 logits (0.5 U) the dummy run keeps, their float32 copy (1), torch.sort's values (1) and
// int64 indices (2), the segmented sort's int64 reverse_indices (2) and CUB's temporary keys and
// values (3) — vllm/v1/worker/gpu_model_runner.py@000fc94b754f66aeb60ef5acf1ea2e94cdc65164
// _dummy_sampler_run (top_k = vocab − 1, top_p 0.9), vllm/v1/sample/sampler.py@3e342658,
// pytorch aten/src/ATen/native/cuda/SortStable.cu@061531e8 segmented_sort_pairs, NVIDIA/cccl
// dispatch_segmented_radix_sort.cuh@004ad198.
constexpr double kSamplerUnits = 9.5;

// The Triton top-k/top-p path of vLLM 0.17 - 0.19 (vllm-project/vllm#33538: "if HAS_TRITON and
// logits.shape[0] >= 8"): the bf16 logits (0.5 U), their float32 copy (1), the softmax probs (1)
// and random_sample's exponential noise q (1) — 3.5 U — plus the kernel's scratch buffer of
// min(next_pow2(min(rows, SMs)), SMs) float32 rows of the vocabulary, cached across calls
// (topk_topp_triton.py@08a5723242bd24b36f297400e6e441e153937be0; Sampler.forward and
// random_sample in topk_topp_sampler.py@01fa3fe74b058bb604f236341ab2361c7cf3d25b). The GPU
// presets carry no SM count: 132, an H100 SXM's, which bounds A100 (108) and RTX 4090 (128).
constexpr double kTritonUnits = 3.5;
constexpr std::uint64_t kTritonMinRows = 8, kTritonScratchRows = 132;

// Model Runner V2's profile: compute_logits' bf16 [rows, vocab] (0.5 U) and nothing else of the
// sampler, which takes its early exit for a batch without sampling parameters
// (gpu/model_runner.py@009cf8a3 _dummy_sampler_run with InputBatch.make_dummy; gpu/sample/
// sampler.py apply_sampling_params "if not np.any(self.needs_logits_processing[...])", as
// vllm-project/vllm#57926 describes it: "the fp32 logits upcast ... never enters the profiled
// peak").
constexpr double kUnfilteredUnits = 0.5;

std::uint64_t gib(double g) { return static_cast<std::uint64_t>(std::llround(g * kGiB)); }

std::string fixed2(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}

// The profile run's activation peak on one rank. The dummy forward over max_num_batched_tokens
// tokens peaks in the MLP's activation, inside the piece torch.compile cut between two attention
// ops (vllm/compilation/backends.py split_graph at the attention splitting ops): the piece's
// inputs stay alive while it runs, as PiecewiseBackend.__call__(*args) holds them
// (vllm/compilation/piecewise_backend.py@15585dbb0c5cfb02f6103cfcfb649845640dc257) — the
// attention output [tokens, q_heads · v_head_dim / tp] and the incoming residual [tokens, H] —
// beside what the piece made: the new residual of the functional add-and-norm [tokens, H], the
// gate/up output [tokens, 2 · I / tp] and the activation's output [tokens, I / tp], all bf16 (the
// normed input is freed after gate/up). So tokens · (q · d / tp + 2 H + 3 I / tp) · 2 B; eager
// mode holds the normed input instead of the attention output, which kvplan does not tell apart
// (the compiled form is the larger for every model whose q · d / tp >= H). On the last stage the
// sampler then runs on rows = min(max_num_seqs, max_num_batched_tokens) while the hidden states
// [tokens + 2 · rows, hidden] stay alive (gpu_model_runner.py@000fc94b profile_run: hidden_states
// deleted after the sampler).
MemoryTerm activation_term(const ModelSpec& m, const PlanInput& in, std::uint64_t seqs,
                           bool last_stage, Vllm::SamplerPath path) {
  MemoryTerm t;
  if (m.vocab_size == 0 || m.hidden_size == 0) {
    t.bytes = kDefaultReserveBytes;
    t.basis = MemoryTerm::Basis::fitted;
    t.how = "the model's vocabulary or hidden size is unknown: the 2 GiB reserve";
    t.source = "docs/deploy.md (the reserve)";
    return t;
  }
  const std::uint64_t tokens = in.max_num_batched_tokens;
  const std::uint64_t rows = std::min(seqs, tokens);
  const std::uint64_t h2 = mul(m.hidden_size, 2, "activation");
  const std::uint64_t tp = std::max(in.tp, 1u);
  const std::uint64_t attention_out = std::uint64_t{m.num_q_heads} * m.head_dim_v / tp;
  const std::uint64_t forward = mul(mul(tokens,
                                        attention_out + 2 * std::uint64_t{m.hidden_size} +
                                            3 * std::uint64_t{m.intermediate_size} / tp,
                                        "activation"),
                                    2, "activation");
  const double units = static_cast<double>(rows) * m.vocab_size * 4.0;
  const bool triton = path == Vllm::SamplerPath::triton && rows >= kTritonMinRows;
  const bool unfiltered = path == Vllm::SamplerPath::unfiltered;
  std::uint64_t scratch = 0;  // the Triton kernel's rows
  if (triton) {
    const std::uint64_t programs = std::min(rows, kTritonScratchRows);
    std::uint64_t pow2 = 1;
    while (pow2 < programs) pow2 *= 2;
    scratch = std::min(pow2, kTritonScratchRows);
  }
  const double sampler =
      static_cast<double>(mul(add(tokens, 2 * rows, "activation"), h2, "activation")) +
      (triton       ? kTritonUnits * units + static_cast<double>(scratch) * m.vocab_size * 4.0
       : unfiltered ? kUnfilteredUnits * units
                    : kSamplerUnits * units);
  const double peak =
      last_stage ? std::max(static_cast<double>(forward), sampler) : static_cast<double>(forward);
  t.bytes = add(static_cast<std::uint64_t>(peak), gib(kFit.residual_gib), "activation");
  t.basis = MemoryTerm::Basis::derived;
  t.how = "max(forward " + std::to_string(tokens) + " tokens x (" + std::to_string(m.num_q_heads) +
          " x " + std::to_string(m.head_dim_v) + "/" + std::to_string(tp) + " + 2 x " +
          std::to_string(m.hidden_size) + " + 3 x " + std::to_string(m.intermediate_size) + "/" +
          std::to_string(tp) + ") x 2 B" +
          (last_stage ? ", sampler " +
                            (triton ? "(Triton top-k/top-p) (3.5 x " + std::to_string(rows) +
                                          " + " + std::to_string(scratch) + ")"
                             : unfiltered ? "(Model Runner V2: no sampling parameters) 0.5 x " +
                                                std::to_string(rows)
                                          : "9.5 x " + std::to_string(rows)) +
                            " x " + std::to_string(m.vocab_size) + " x 4 B + (" +
                            std::to_string(tokens) + " + 2 x " + std::to_string(rows) + ") x " +
                            std::to_string(m.hidden_size) + " x 2 B"
                      : std::string(", no sampler on this stage")) +
          ") + " + fixed2(kFit.residual_gib) + " GiB fitted";
  t.source = (unfiltered ? std::string("vllm/v1/worker/gpu/model_runner.py@"
                                       "009cf8a3652ae728cfe82ce13c86787f11397fcb profile_run, "
                                       "_dummy_sampler_run")
                         : std::string("vllm/v1/worker/gpu_model_runner.py@"
                                       "000fc94b754f66aeb60ef5acf1ea2e94cdc65164 profile_run, "
                                       "_dummy_sampler_run")) +
             "; the forward's compiled piece vllm/compilation/piecewise_backend.py@"
             "15585dbb0c5cfb02f6103cfcfb649845640dc257" +
             std::string(triton ? "; the Triton top-k/top-p path vllm-project/vllm#33538" : "") +
             "; the residual " + kFitSource;
  return t;
}

// Model Runner V2 (docs/engine-memory.md "Model Runner V2"), on the last PP rank, S =
// max_num_seqs, V = vocabulary, H = hidden size, k = speculative tokens. All derived from
// vllm/v1/worker/gpu/ at model_runner.py@009cf8a3652ae728cfe82ce13c86787f11397fcb and the sampler
// files named below.
//
// The sampler state load_model builds after the weights are measured (DeviceMemoryProfiler) and
// before the profile, so it is in no term of the budget:
//   PenaltiesState.output_bin_counts int32 [S, V] and prompt_bin_mask int32 [S, ceil(V/32)]
//     (gpu/sample/penalties.py@0120ce5a60f1a56090b1430eb67469f33029b86a: "This tensor is rarely
//     used but can be very large, taking up GBs of GPU memory");
//   StructuredOutputsWorker.grammar_bitmask int32 [S · (1 + k), ceil(V/32)];
//   LogitBiasState int32/float32 [S, 3 · 1024 + 128] (gpu/sample/logit_bias.py@04ce2823);
//   BadWordsState int32 [S, 1024 + 129] (gpu/sample/bad_words.py@02c1119c).
MemoryTerm v2_sampler_state(const ModelSpec& m, std::uint64_t seqs, std::uint32_t k) {
  const std::uint64_t v = m.vocab_size, words = (v + 31) / 32;
  std::uint64_t b = mul(mul(seqs, v, "sampler state"), 4, "sampler state");
  b = add(b, mul(mul(seqs, words, "sampler state"), 4, "sampler state"), "sampler state");
  b = add(b,
          mul(mul(mul(seqs, 1 + std::uint64_t{k}, "sampler state"), words, "sampler state"), 4,
              "sampler state"),
          "sampler state");
  b = add(b, mul(seqs, (3 * 1024 + 128 + 1024 + 129) * 4, "sampler state"), "sampler state");
  return {b, MemoryTerm::Basis::derived,
          "Model Runner V2 sampler state: penalty counts " + std::to_string(seqs) + " x " +
              std::to_string(v) + " x 4 B + 2 bitmasks of ceil(" + std::to_string(v) +
              "/32) int32 + logit-bias and bad-words tables (" + std::to_string(seqs) +
              " x 4353 x 4 B), allocated after the weights are measured and before the profile",
          "vllm/v1/worker/gpu/model_runner.py@009cf8a3652ae728cfe82ce13c86787f11397fcb "
          "load_model; gpu/sample/penalties.py@0120ce5a60f1a56090b1430eb67469f33029b86a, "
          "logit_bias.py@04ce28233994b99f412450565f695e248d21804a, "
          "bad_words.py@02c1119c578212d6d51339bc88ad6d12f96e08c2"};
}

// The warm-up after the KV cache and the graphs (gpu/warmup.py@009cf8a3 warmup_kernels): R =
// min(S, max_num_batched_tokens // (k + 2)) requests of prompt k + 2 tokens sampled with
// SamplingParams.for_sampler_warmup() (top-k 50, top-p 0.9, min-p, penalties, logit bias, bad
// words, logprobs 5, prompt logprobs 1) on L = R · (1 + k) rows. Its peak, all alive at once
// (FlashInfer's path on CUDA: a per-request top_k tensor takes top_k_top_p_sampling_from_logits's
// general path): compute_logits' bf16 [L, V] (2 L V B), apply_sampling_params' float32 copy
// (4 L V), top_k_mask_logits' float32 output (4 L V) and the softmax probs (4 L V), beside the
// prefill's hidden states [R (k + 2), H] and the sampled rows [L, H] in bf16 (gpu/sample/
// sampler.py, vllm/v1/sample/ops/topk_topp_sampler.py@01fa3fe74b058bb604f236341ab2361c7cf3d25b
// flashinfer_sample, flashinfer sampling.py top_k_top_p_sampling_from_logits). Penalties, bias,
// temperature and min-p write the copy in place; the top-5 logprobs and the 1,024-row prompt
// logprob chunks come after the sampler's buffers are freed, and are smaller.
MemoryTerm v2_warmup(const ModelSpec& m, const PlanInput& in, std::uint64_t seqs, std::uint32_t k) {
  const std::uint64_t r = std::max<std::uint64_t>(
      std::min<std::uint64_t>(seqs, in.max_num_batched_tokens / (k + std::uint64_t{2})), 1);
  const std::uint64_t rows = mul(r, 1 + std::uint64_t{k}, "warm-up");
  std::uint64_t b = mul(mul(rows, m.vocab_size, "warm-up"), 14, "warm-up");
  b = add(b,
          mul(add(mul(r, k + std::uint64_t{2}, "warm-up"), rows, "warm-up"),
              mul(m.hidden_size, 2, "warm-up"), "warm-up"),
          "warm-up");
  return {b, MemoryTerm::Basis::derived,
          "Model Runner V2 sampler warm-up after the KV cache: 14 x " + std::to_string(rows) +
              " rows x " + std::to_string(m.vocab_size) +
              " B (bf16 logits, their float32 copy, FlashInfer's top-k mask and softmax) + (" +
              std::to_string(r * (k + 2)) + " + " + std::to_string(rows) + ") x " +
              std::to_string(m.hidden_size) +
              " x 2 B hidden states; it reuses the activation "
              "peak's memory, so only what exceeds it is outside the budget",
          "vllm/v1/worker/gpu/warmup.py@009cf8a3652ae728cfe82ce13c86787f11397fcb warmup_kernels; "
          "vllm/v1/sample/ops/topk_topp_sampler.py@01fa3fe74b058bb604f236341ab2361c7cf3d25b "
          "flashinfer_sample"};
}

// vllm/engine/arg_utils.py@99d7eb5d6a512cfcc5a2b104f24ebf2d6cda772b EngineArgs.get_batch_defaults:
// "if device_memory >= 70 * GiB_bytes and "a100" not in device_name" (H100, H200, B200, MI300X)
// the larger defaults, else (A100 80GB included, by name; an unknown device counts as 0 bytes)
// the smaller. The total is CUDA's (current_platform.get_device_total_memory).
bool large_default_gpu(const PlanInput& in) {
  return in.gpu_memory_bytes >= (std::uint64_t{70} << 30) &&
         in.gpu_id.find("a100") == std::string::npos;
}

}  // namespace

std::uint64_t Vllm::default_max_num_batched_tokens(const PlanInput& in) const {
  // The same file, _set_default_args, for the OpenAI server (UsageContext.OPENAI_API_SERVER):
  // 8192 on the large GPUs, else 2048, with chunked prefill on (V1's default for generative
  // models).
  return large_default_gpu(in) ? 8192 : 2048;
}

std::optional<std::uint64_t> Vllm::default_max_num_seqs(const PlanInput& in) const {
  // The same file: 1024 for the OpenAI server on the large GPUs, else 256; then at most
  // max_num_batched_tokens ("self.max_num_seqs = min(default_max_num_seqs[usage_context],
  // self.max_num_batched_tokens or sys.maxsize)").
  return std::min<std::uint64_t>(large_default_gpu(in) ? 1024 : 256, in.max_num_batched_tokens);
}

double Vllm::graphs_gib() const { return kFit.graphs_gib; }

bool Vllm::model_runner_v2(const ModelSpec& model, const PlanInput& in) const {
  switch (in.vllm().model_runner) {
    case VllmOptions::ModelRunner::v1:
      return false;
    case VllmOptions::ModelRunner::v2:
      return true;
    case VllmOptions::ModelRunner::auto_:
      break;
  }
  return default_model_runner_v2(model);
}

std::string Vllm::graphs_how() const {
  return "CUDA graphs (largest estimate logged by vLLM >= 0.21)";
}

MemoryTerms Vllm::memory_terms(const MemoryModelInput& x) const {
  MemoryTerms t;
  const PlanInput& in = x.in;
  std::uint64_t seqs = in.max_num_seqs.value_or(*default_max_num_seqs(in));
  // The launch line's --max-num-seqs: the requests per replica.
  if (!in.max_num_seqs && in.max_num_seqs_is_concurrency) seqs = requests_per_replica(in);
  const bool v2 = model_runner_v2(x.model, in);
  t.activation = activation_term(x.model, in, seqs, x.last_stage,
                                 v2 ? SamplerPath::unfiltered : sampler_path());
  if (v2 && x.last_stage && x.model.vocab_size && x.model.hidden_size) {
    const std::uint32_t k = in.vllm().num_speculative_tokens;
    t.sampler_state = v2_sampler_state(x.model, seqs, k);
    t.warmup = v2_warmup(x.model, in, seqs, k);
  }
  const bool tp1 = in.tp == 1;
  if (tp1 || distributed_before_baseline()) {
    t.non_torch = {gib(tp1 ? kFit.non_torch_tp1_gib : kFit.non_torch_tp_gib),
                   MemoryTerm::Basis::fitted,
                   std::string("non-torch memory at TP ") + (tp1 ? "1" : "> 1"), kFitSource};
    t.context = {
        gib(tp1 ? kFit.context_tp1_gib : kFit.context_tp_gib), MemoryTerm::Basis::fitted,
        std::string("CUDA context") + (tp1 ? "" : " and NCCL") + ", taken before the baseline",
        kFitSource};
  } else {
    // Before vllm-project/vllm#25359 the baseline came first: what NCCL took before it in the fit
    // (the context at TP > 1 less the context at TP 1) is non-torch memory, inside the budget.
    const double nccl = kFit.context_tp_gib - kFit.context_tp1_gib;
    t.non_torch = {gib(kFit.non_torch_tp_gib + nccl), MemoryTerm::Basis::fitted,
                   "non-torch memory at TP > 1 (" + fixed2(kFit.non_torch_tp_gib) +
                       " GiB) + NCCL and the all-reduce buffers, created after the baseline (" +
                       fixed2(nccl) + " GiB: the fitted context at TP > 1 less at TP 1)",
                   std::string(kFitSource) +
                       "; the order: vllm-project/vllm#25359 (from 0.11 NCCL comes first)"};
    t.context = {gib(kFit.context_tp1_gib), MemoryTerm::Basis::fitted,
                 "CUDA context, taken before the baseline (NCCL after it, before 0.11)",
                 kFitSource};
  }
  t.graphs = {gib(graphs_gib()), MemoryTerm::Basis::fitted, graphs_how(), kFitSource};
  // From 0.20 the graph estimate is deducted from the budget (VLLM_MEMORY_PROFILER_ESTIMATE_
  // CUDAGRAPHS on by default, vllm-project/vllm#38284, merge 96a85c57, in the 0.20.0 image's log
  // here; the logs' "CUDA graph memory profiling is enabled (default since v0.21.0)" was written
  // before that release); before, graphs are captured after the KV cache, outside the budget.
  t.graphs_in_budget = v2 ? v2_graphs_estimated() : graphs_estimate_deducted();
  if (v2)
    t.graphs = {
        gib(kCapturedGraphsGib), MemoryTerm::Basis::fitted,
        "CUDA graphs of Model Runner V2 (the largest pool a log shows: 2.44 GiB; its "
        "own logs 1.86 and 2.04)",
        "docs/engine-memory.md \"Model Runner V2\": vllm-v1-0.19.1-qwen3-8b-tp1-a100-40g.log, "
        "llm-d/llm-d-benchmark PR #1791, vllm-project/vllm#48601"};
  if (!in.cuda_graphs) t.graphs = {0, MemoryTerm::Basis::given, "none (--enforce-eager)", ""};
  return t;
}

}  // namespace kvplan::engines
