// vLLM 0.9's rules where they differ from the current source (`--engine vllm@0.9`): the group
// size, the start-up check and "GPU KV cache size" (planner.hpp, VllmRules) are read by the
// planner from version(); here, what the interface itself answers differently.
#include "vllm.hpp"

namespace kvplan::engines {
namespace {

class Vllm09 : public Vllm {
 public:
  VllmRules version() const override { return VllmRules::v0_9; }
  std::string name() const override { return "vllm@0.9"; }
  // Async scheduling arrived after 0.9 (vllm-project/vllm, default from 0.14).
  bool async_scheduling_default(const PlanInput& in) const override {
    return in.vllm().async_scheduling.value_or(false);
  }
  // The Mamba block check of CUDA-graph capture came with vLLM 0.20 (PR #38270).
  bool graphs_need_a_state_block_per_sequence() const override { return false; }
  // Before 0.20 graphs are captured after the KV cache, outside the budget (PR #30515 added the
  // estimate, off by default until 0.20).
  bool graphs_estimate_deducted() const override { return false; }
  // Before vllm-project/vllm#33538 (0.17) the dummy sampler sorted the whole vocabulary: the 9.5
  // float32 units of vllm_memory.cpp, which llm-d's H100 profiles reproduce to 0.01 GiB.
  SamplerPath sampler_path() const override { return SamplerPath::sort; }
  // _get_kv_cache_groups_uniform_page_size of 0.9: the fewest layers of any type, always.
  std::uint32_t kv_group_size(const PlanInput&, std::uint32_t fewest,
                              std::uint32_t) const override {
    return fewest;
  }
  // Its start-up check and auto-fit compared one request's bytes with the memory (no null
  // block); its pool still kept one. "GPU KV cache size" was blocks per group x block size.
  bool startup_check_by_bytes() const override { return true; }
  bool kv_tokens_from_concurrency() const override { return false; }
  std::optional<Refusal> own_layer_geometry_refusal() const override {
    return Refusal{"engine",
                   "layers with their own KV heads or head dims follow the current vLLM's page "
                   "unification; kvplan has no " +
                       name() + " rule for them (use --engine vllm)",
                   ""};
  }
  // --decode-context-parallel-size came with vllm-project/vllm#23734 (merged 2025-08-27).
  std::optional<Refusal> dcp_refusal() const override {
    return Refusal{"decode_context_parallel_size",
                   "vLLM 0.9 has no decode context parallelism (use --engine vllm)", ""};
  }
  std::string budget_formula() const override {
    return "vLLM V1 0.9-0.20: available = total x gpu_memory_utilization - weights - activation "
           "peak - non-torch (CUDA graphs outside); num_gpu_blocks = available // page // layers";
  }
};

// vLLM 0.10.x (`--engine vllm@0.10`): 0.9's pools, pages and sampler, and the memory baseline
// taken before the distributed environment, so NCCL's and the custom all-reduce's buffers are
// non-torch memory inside the budget (vllm-project/vllm#25359 reversed the order from 0.11; the
// 0.10.2 log of Qwen3-Next at TP 2 logs 1.38 GiB of non-torch memory where llm-d's later release
// logs 0.55 at TP 2).
class Vllm010 final : public Vllm09 {
 public:
  VllmRules version() const override { return VllmRules::v0_10; }
  std::string name() const override { return "vllm@0.10"; }
  bool distributed_before_baseline() const override { return false; }
  // --decode-context-parallel-size came with vllm-project/vllm#23734 (merged 2025-08-27, before
  // 0.10.2): the current source's DCP pages.
  std::optional<Refusal> dcp_refusal() const override { return std::nullopt; }
  std::string budget_formula() const override {
    return "vLLM V1 0.10: available = total x gpu_memory_utilization - weights - activation peak "
           "- non-torch (NCCL included; CUDA graphs outside); num_gpu_blocks = available // page "
           "// layers";
  }
};

}  // namespace

const EngineRules& vllm_0_9_rules() {
  static const Vllm09 rules;
  return rules;
}

const EngineRules& vllm_0_10_rules() {
  static const Vllm010 rules;
  return rules;
}

}  // namespace kvplan::engines
