// vLLM 0.17 - 0.19's rules where they differ from the current source (`--engine vllm@0.19`): the
// pools, pages and start-up check are the current ones (a 0.19.1 log's "GPU KV cache size"
// 140,960 tokens is (num_blocks − 1) · 16 of its 19.36 GiB, the current rule); the memory the
// engine leaves for them is not.
#include "vllm.hpp"

namespace kvplan::engines {
namespace {

class Vllm019 final : public Vllm {
 public:
  VllmRules version() const override { return VllmRules::v0_19; }
  std::string name() const override { return "vllm@0.19"; }
  // The profile's dummy sampler (top-k = vocab − 1, top-p 0.9 on min(max_num_seqs,
  // max_num_batched_tokens) rows) goes through the Triton top-k/top-p kernel from 8 rows
  // (vllm-project/vllm#33538, merged February 2026; "if HAS_TRITON and logits.shape[0] >= 8"),
  // as in the current source; stated here since this rule set stands for those releases.
  SamplerPath sampler_path() const override { return SamplerPath::triton; }
  // The CUDA-graph estimate is computed but not deducted before 0.20: a 0.19.1 log says "In v0.19,
  // CUDA graph memory profiling will be enabled by default ... To try it now, set
  // VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1" after sizing the KV cache without it.
  bool graphs_estimate_deducted() const override { return false; }
  // Graphs before 0.20 take what they take after the KV cache: the largest pool a log shows
  // (kCapturedGraphsGib), not the >= 0.20 estimates the current rules deduct. It decides whether
  // the context and graphs fit in what the fraction leaves out (engine_starts).
  double graphs_gib() const override { return kCapturedGraphsGib; }
  std::string graphs_how() const override {
    return "CUDA graphs (the largest pool a vLLM 0.19 log shows: 2.44 GiB, Qwen3-8B)";
  }
  // The Mamba block check of CUDA-graph capture came with vLLM 0.20 (PR #38270).
  bool graphs_need_a_state_block_per_sequence() const override { return false; }
  std::string budget_formula() const override {
    return "vLLM V1 0.17-0.19: available = total x gpu_memory_utilization - weights - activation "
           "peak (Triton sampler) - non-torch (CUDA graphs outside); num_gpu_blocks = available "
           "// page // layers";
  }
};

}  // namespace

const EngineRules& vllm_0_19_rules() {
  static const Vllm019 rules;
  return rules;
}

}  // namespace kvplan::engines
