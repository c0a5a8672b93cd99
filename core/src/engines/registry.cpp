// Every engine rule set kvplan knows, in one table: adding an engine version is a file of its own
// (a subclass of its engine's rules) plus its line here.
#include "kvplan/engine_rules.hpp"
#include "vllm.hpp"

namespace kvplan {
namespace engines {
const EngineRules& vllm_0_9_rules();
const EngineRules& vllm_0_10_rules();
const EngineRules& vllm_0_19_rules();
const EngineRules& vllm_0_25_rules();
const EngineRules& sglang_rules();
const EngineRules& trtllm_rules();

const EngineRules& vllm_rules() {
  static const Vllm rules;
  return rules;
}
}  // namespace engines

const EngineRules& engine_rules(Engine engine, VllmRules version) {
  switch (engine) {
    case Engine::vllm:
      if (version == VllmRules::v0_9) return engines::vllm_0_9_rules();
      if (version == VllmRules::v0_10) return engines::vllm_0_10_rules();
      if (version == VllmRules::v0_19) return engines::vllm_0_19_rules();
      if (version == VllmRules::v0_25) return engines::vllm_0_25_rules();
      return engines::vllm_rules();
    case Engine::sglang:
      return engines::sglang_rules();
    case Engine::trtllm:
      return engines::trtllm_rules();
  }
  return engines::vllm_rules();
}

std::vector<const EngineRules*> all_engine_rules() {
  return {&engines::vllm_rules(),      &engines::vllm_0_9_rules(),  &engines::vllm_0_10_rules(),
          &engines::vllm_0_19_rules(), &engines::vllm_0_25_rules(), &engines::sglang_rules(),
          &engines::trtllm_rules()};
}

}  // namespace kvplan
