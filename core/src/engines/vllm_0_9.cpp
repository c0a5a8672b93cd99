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
};

}  // namespace

const EngineRules& vllm_0_9_rules() {
  static const Vllm09 rules;
  return rules;
}

}  // namespace kvplan::engines
