// vLLM 0.25.x's rules where they differ from the current source (`--engine vllm@0.25`): the pools,
// pages and start-up check are the current ones; dense models run Model Runner V2 by default,
// whose memory the budget does not hold all of (docs/engine-memory.md "Model Runner V2").
#include "vllm.hpp"

namespace kvplan::engines {
namespace {

class Vllm025 final : public Vllm {
 public:
  VllmRules version() const override { return VllmRules::v0_25; }
  std::string name() const override { return "vllm@0.25"; }
  // "Enable by default for all dense models" (vllm-project/vllm#44443, merged 2026-07-02; "Model
  // Runner V2 ... became the default for dense models in 0.25.1", vllm-project/vllm#49224). The
  // oracle it added (VllmConfig._is_default_v2_model_runner_model): a generative model that is
  // neither hybrid nor attention-free, and dense (MoE models followed in 0.29,
  // vllm-project/vllm#53183).
  bool default_model_runner_v2(const ModelSpec& m) const override {
    return m.routed_experts == 0 && m.recurrent_layers() == 0 && m.cached_layers() > 0;
  }
  // Its profile_cudagraph_memory returned 0 ("NOTE(woosuk): It is TBD whether we keep this API or
  // not. return 0", gpu/model_runner.py@0036d38de46c5d48fdedeb658dedc0fc0f95677d; the CUDA graph
  // memory is not reserved, vllm-project/vllm#49224): both Model Runner V2 logs size the KV cache
  // as total x utilization - weights - peak - non-torch with the graphs left out.
  bool v2_graphs_estimated() const override { return false; }
  std::string budget_formula() const override {
    return "vLLM V1 0.25: available = total x gpu_memory_utilization - weights - activation peak "
           "- non-torch (- CUDA graphs under Model Runner V1; under V2, the default for dense "
           "models, graphs, sampler state and warm-up outside); num_gpu_blocks = available // "
           "page // layers";
  }
};

}  // namespace

const EngineRules& vllm_0_25_rules() {
  static const Vllm025 rules;
  return rules;
}

}  // namespace kvplan::engines
