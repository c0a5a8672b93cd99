// vLLM V1 in the serving simulator: its scheduler loop (serving.cpp schedule_vllm) with async
// scheduling, the default since v0.14 (vllm-project/vllm#27614).
#include "../engine_scheduling.hpp"

namespace kvplan::sim::detail {
namespace {

class VllmScheduling final : public EngineScheduling {
 public:
  SchedulerLoop loop() const override { return SchedulerLoop::vllm_v1; }
  bool async_scheduling() const override { return true; }
};

}  // namespace

const EngineScheduling& vllm_scheduling() {
  static const VllmScheduling s;
  return s;
}

}  // namespace kvplan::sim::detail
