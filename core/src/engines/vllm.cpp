// vLLM V1's rules at the current source (docs/deploy.md names the commits read).
#include "vllm.hpp"

#include <cstdlib>

namespace kvplan::engines {

std::uint32_t Vllm::default_block_size(const PlanInput&) const { return 16; }

std::optional<std::uint64_t> Vllm::default_max_num_seqs() const {
  // The OpenAI server's default where the GPU is not known (vllm/engine/arg_utils.py@99d7eb5d:
  // an unknown device counts as 0 bytes); default_max_num_seqs(in) reads the GPU (1024 on
  // >= 70 GiB GPUs other than A100s).
  return 256;
}

ShapeFields Vllm::flag_names() const {
  return {.tp = "--tensor-parallel-size",
          .pp = "--pipeline-parallel-size",
          .dp = "--data-parallel-size",
          .gpus = "--gpus",
          .block_size = "--block-size",
          .context = "--max-model-len",
          .concurrency = "--max-num-seqs",
          .draft_layers = "--speculative-config"};
}

SettingsFields Vllm::settings_flag_names() const {
  return {.max_model_len = "--max-model-len",
          .max_num_seqs = "--max-num-seqs",
          .max_num_batched_tokens = "--max-num-batched-tokens",
          .tp = "--tensor-parallel-size"};
}

std::vector<Refusal> Vllm::settings_problems(const EngineSettings& s,
                                             const SettingsFields& names) const {
  std::vector<Refusal> out = EngineRules::settings_problems(s, names);
  // vLLM refuses to start with fewer tokens per step than sequences per step: SchedulerConfig
  // (vllm/config/scheduler.py@1f8758d584e8f599219d75adf658e182ed809a43, verify_max_model_len;
  // _verify_args in older releases).
  const std::uint64_t seqs = s.max_num_seqs.value_or(*default_max_num_seqs());
  if (s.max_num_batched_tokens < seqs)
    out.push_back(
        {names.max_num_batched_tokens,
         std::to_string(s.max_num_batched_tokens) + " is less than max_num_seqs " +
             std::to_string(seqs) + ": vLLM refuses max_num_batched_tokens < max_num_seqs",
         "set " + names.max_num_batched_tokens + " to at least " + std::to_string(seqs) + ", or " +
             names.max_num_seqs + " to at most " + std::to_string(s.max_num_batched_tokens)});
  return out;
}

std::optional<VllmRules> Vllm::rules_of_log(const std::string& version, bool v0_profile) const {
  if (v0_profile ||
      (!version.empty() && version.rfind("0.", 0) == 0 && std::atoi(version.c_str() + 2) < 10))
    return VllmRules::v0_9;
  const std::optional<VllmRules> release = vllm_release_rules(version);
  if (release == VllmRules::v0_10 || release == VllmRules::v0_19 || release == VllmRules::v0_25)
    return release;
  return std::nullopt;
}

// 0.9 before vllm-project/vllm#38284 (0.20), 0.92 from it (default_memory_fraction_ppm); a log
// without a version takes the rules' own.
std::uint32_t Vllm::log_memory_fraction_ppm(const std::string& version) const {
  if (version.rfind("0.", 0) == 0 && std::atoi(version.c_str() + 2) < 20) return 900000;
  return default_memory_fraction_ppm();
}

}  // namespace kvplan::engines
