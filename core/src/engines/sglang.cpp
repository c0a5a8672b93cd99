// SGLang's rules (python/sglang/srt/server_args.py; docs/deploy.md names the commit read).
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
    return "SGLang: available = total x mem_fraction_static - weights; "
           "max_total_num_tokens = available // cell_size";
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
