// The one place the serving simulator maps an engine to how it runs it.
#include "../engine_scheduling.hpp"

namespace kvplan::sim::detail {

const EngineScheduling& engine_scheduling(Engine e) {
  switch (e) {
    case Engine::vllm:
      return vllm_scheduling();
    case Engine::sglang:
      return sglang_scheduling();
    case Engine::trtllm:
      return trtllm_scheduling();
  }
  return vllm_scheduling();
}

}  // namespace kvplan::sim::detail
