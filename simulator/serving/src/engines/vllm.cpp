// vLLM V1 in the serving simulator: its scheduler loop (serving.cpp schedule_vllm) with async
// scheduling, the default since v0.14 (vllm-project/vllm#27614), and speculative decoding
// (PlanInput vllm().spec_acceptance), the setting only vLLM's loop has.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "../engine_scheduling.hpp"
#include "../report_json.hpp"

namespace kvplan::sim::detail {
namespace {

class VllmScheduling final : public EngineScheduling {
 public:
  SchedulerLoop loop() const override { return SchedulerLoop::vllm_v1; }
  bool async_scheduling() const override { return true; }
  bool has(SchedulerSetting s) const override {
    return s == SchedulerSetting::speculative_decoding;
  }
  // Speculative decoding, when simulated: the drafts a step and their acceptance.
  std::string settings_line(const ServingConfig& c) const override {
    if (c.plan.vllm().spec_acceptance.empty()) return {};
    std::string rates;
    double tokens = 1;
    for (const double a : c.plan.vllm().spec_acceptance) {
      rates += (rates.empty() ? "" : ", ") + fixed(a, 3);
      tokens += a;
    }
    return "vLLM speculative decoding: " + std::to_string(c.plan.vllm().spec_acceptance.size()) +
           " draft tokens a step, " +
           std::to_string(std::max<std::uint32_t>(c.plan.draft_layers, 1)) +
           " draft layer(s), acceptance by position " + rates + " (" + fixed(tokens, 3) +
           " tokens a verifying step)";
  }
  void settings_json(const ServingConfig& c, nlohmann::json& config) const override {
    if (c.plan.vllm().spec_acceptance.empty()) return;
    config["num_speculative_tokens"] = c.plan.vllm().spec_acceptance.size();
    config["spec_acceptance"] = c.plan.vllm().spec_acceptance;
    config["draft_layers"] = std::max<std::uint32_t>(c.plan.draft_layers, 1);
  }
};

}  // namespace

const EngineScheduling& vllm_scheduling() {
  static const VllmScheduling s;
  return s;
}

}  // namespace kvplan::sim::detail
