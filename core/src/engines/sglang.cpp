// SGLang's rules (python/sglang/srt/server_args.py; docs/deploy.md names the commit read).
#include "../planner_eval.hpp"
#include "kvplan/engine_rules.hpp"

namespace kvplan::engines {
namespace {

class Sglang final : public EngineRules {
 public:
  Engine engine() const override { return Engine::sglang; }
  std::string name() const override { return "sglang"; }
  std::string label() const override { return "SGLang"; }
  std::uint32_t default_block_size(const PlanInput&) const override { return 1; }  // --page-size
  std::uint32_t default_memory_fraction_ppm() const override { return 880000; }
  // Activations and CUDA graphs live in the 1 − mem_fraction_static share: no reserve.
  std::uint64_t default_reserve_bytes() const override { return 0; }
  // --max-running-requests: derived from the pool when not given.
  std::optional<std::uint64_t> default_max_num_seqs() const override { return std::nullopt; }
  ShapeFields flag_names() const override {
    return {.tp = "--tp",
            .pp = "--pp-size",
            .dp = "--dp",
            .gpus = "--gpus",
            .block_size = "--page-size",
            .context = "--context-length",
            .concurrency = "--max-running-requests",
            .draft_layers = "--speculative-algorithm"};
  }
  SettingsFields settings_flag_names() const override {
    return {.max_model_len = "--context-length",
            .max_num_seqs = "--max-running-requests",
            .max_num_batched_tokens = "--chunked-prefill-size"};
  }
  const char* memory_fraction_key() const override { return "mem_fraction_static"; }
  std::string memory_fraction_flag(std::uint32_t ppm) const override {
    return "--mem-fraction-static 0." + std::to_string(ppm / 10000);
  }
  std::string kv_fp8_flag() const override { return "--kv-cache-dtype fp8_e4m3"; }
  std::string kv_dtype_field() const override { return "--kv-cache-dtype"; }
  std::string budget_formula() const override {
    return "SGLang: available = (total - context) x mem_fraction_static - weights; "
           "max_total_num_tokens = available // cell_size";
  }
  // profile_max_num_token (model_runner_kv_cache_mixin.py@226149ac): rest = available after
  // the weights − total · (1 − mem_fraction_static), where total is the memory free when the
  // weights begin to load ("Load weight begin. avail mem=..."): KV = f · (device − context) −
  // weights. Activations and CUDA graphs live in the 1 − f share, outside kvplan's terms.
  bool fraction_of_free_memory() const override { return true; }
  MemoryTerms memory_terms(const MemoryModelInput& x) const override {
    // What CUDA's context and NCCL take before the weights load, device total (79.18 GiB H100,
    // 139.80 GiB H200) less "Load weight begin. avail mem": 0.70 GiB at TP 1
    // (tests/data/logs/sglang-x-qwen3-30b-a3b-fp8-h100.log, 78.48; the 2025-01 docs log's 78.81
    // gives 0.37) and 2.51 GiB at TP 8 (tests/data/logs/startup/sglang-2025-10-unknown-tp8-h200-
    // pr11716.log, 137.29). The larger of each, so the pool is never overstated.
    MemoryTerms t;
    const bool tp1 = x.in.tp == 1;
    const double gib = tp1 ? 0.70 : 2.51;
    t.context = {static_cast<std::uint64_t>(gib * 1073741824.0), MemoryTerm::Basis::fitted,
                 std::string("CUDA context") + (tp1 ? "" : " and NCCL") +
                     " before the weights load (the fraction's base is the memory left)",
                 "fitted: SGLang startup logs (docs/engine-memory.md, SGLang)"};
    t.graphs_in_budget = true;
    t.context_before_fraction = true;
    return t;
  }
  // server_args.py mamba_ssm_dtype = "float32": the temporal state unless --mamba-ssm-dtype.
  std::optional<KvDtype> default_ssm_state_dtype() const override { return KvDtype::fp32; }
  // Its full, SWA and Mamba pools (planner_sglang.cpp).
  void attach_stage_pools(const detail::PlanEval& ev, detail::PlanStage& st) const override {
    detail::sglang_stage_pools(ev, st);
  }
  // server_args.py, enable_dp_attention: the GPUs are --tp, not tp × dp.
  bool dp_attention_splits_tp() const override { return true; }
  bool simulated() const override { return true; }
};

}  // namespace

const EngineRules& sglang_rules() {
  static const Sglang rules;
  return rules;
}

}  // namespace kvplan::engines
