// vLLM 0.9's rules where they differ from the current source (`--engine vllm@0.9`): the group
// size, the start-up check and "GPU KV cache size" (planner.hpp, VllmRules) are read by the
// planner from version(); here, what the interface itself answers differently.
#include "vllm.hpp"

namespace kvplan::engines {
namespace {

class Vllm09 final : public Vllm {
 public:
  VllmRules version() const override { return VllmRules::v0_9; }
  std::string name() const override { return "vllm@0.9"; }
  // Async scheduling arrived after 0.9 (vllm-project/vllm, default from 0.14).
  bool async_scheduling_default() const override { return false; }
  // The Mamba block check of CUDA-graph capture came with vLLM 0.20 (PR #38270).
  bool graphs_need_a_state_block_per_sequence() const override { return false; }
  // Before 0.21 graphs are captured after the KV cache, outside the budget (PR #30515 added the
  // estimate, off by default until 0.21).
  bool graphs_estimate_deducted() const override { return false; }
  std::string budget_formula() const override {
    return "vLLM V1 0.9-0.20: available = total x gpu_memory_utilization - weights - activation "
           "peak - non-torch (CUDA graphs outside); num_gpu_blocks = available // page // layers";
  }
};

}  // namespace

const EngineRules& vllm_0_9_rules() {
  static const Vllm09 rules;
  return rules;
}

}  // namespace kvplan::engines
