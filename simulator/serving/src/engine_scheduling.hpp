// How the serving simulator runs an engine: which scheduler loop simulates it, and what that loop
// adds to the checks of a serving config, to the requests refused on arrival, to the report and
// to the first token's latency. One class per engine in engines/ (vllm.cpp, sglang.cpp,
// trtllm.cpp), found by engine_scheduling(); serving.cpp, serving_report.cpp and step_time.cpp
// ask it and compare no engines.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "kvplan/error.hpp"
#include "kvplan/kv_pool.hpp"
#include "kvplan/planner.hpp"
#include "kvplan/sim/serving.hpp"

namespace kvplan::sim::detail {

// The scheduler loops serving.cpp implements, each after its engine's source (cited there).
enum class SchedulerLoop {
  vllm_v1,          // vLLM V1's Scheduler.schedule: running first, then waiting, by token budget
  sglang,           // SGLang's PrefillAdder with new_token_ratio and retraction
  trtllm_inflight,  // TensorRT-LLM's capacity scheduler and micro-batch scheduler
};

// When a decode replica of a disaggregated pair (disagg.hpp) allocates the blocks of a prompt
// another replica computes, and how it takes the request once the KV is in place.
enum class RemoteKv {
  // vLLM's P/D connectors: after the prefill, at the head of the decode queue; the request then
  // recomputes its last prompt token to sample its first token (replica.hpp).
  after_prefill,
  // SGLang's: on arrival, before the prefill may start (the prefill waits for them); the first
  // token comes from the prefill side with the KV, and the request decodes its second at once.
  before_prefill,
  // TensorRT-LLM's: after the prefill (the generation request follows the context response),
  // when its capacity scheduler admits it; the first token comes with the KV, as SGLang's.
  after_prefill_token_sent,
};

// The GPU families whose measured front-end times differ (step_time.cpp).
enum class GpuFamily { other, hopper, blackwell };

class EngineScheduling {
 public:
  virtual ~EngineScheduling() = default;
  virtual SchedulerLoop loop() const = 0;
  // Whether ServingConfig::async_scheduling (the next step scheduled while this one runs, vLLM
  // --async-scheduling, SGLang's overlap scheduler) applies; elsewhere it is ignored.
  virtual bool async_scheduling() const { return false; }
  // Whether its scheduler has `s` (check_scheduler_setting).
  virtual bool has(SchedulerSetting /*s*/) const { return false; }
  // Serving settings this engine's loop does not model, appended to `problems`.
  virtual void check(const ServingConfig&, const KvPool&, std::vector<Problem>&) const {}
  // A request refused on arrival beyond prompt + output > max_model_len, which every engine
  // refuses; and how the report names that extra rule ("" when there is none).
  virtual bool refuses_on_arrival(const ServingConfig&, const SimRequest&) const { return false; }
  virtual std::string arrival_refusal(const ServingConfig&) const { return {}; }
  // A step that schedules nothing although requests wait: the engine's own refusal (throws
  // Error), or nothing where that cannot happen by configuration.
  virtual void refuse_empty_step(const ServingConfig&, const std::string& /*source*/) const {}
  // The scheduler's own settings: a line of the text report ("" when none) and keys of the JSON
  // report's config.
  virtual std::string settings_line(const ServingConfig&) const { return {}; }
  virtual void settings_json(const ServingConfig&, nlohmann::json&) const {}
  // Seconds from a request's arrival to its first scheduled step that the step model does not
  // see (HTTP, tokenization, the scheduler's receive loop) where measurements give this engine
  // its own; nullopt keeps the GPU's default.
  virtual std::optional<double> frontend_s(GpuFamily) const { return std::nullopt; }
  // How its decode side of a disaggregated pair takes a remote prompt's KV.
  virtual RemoteKv remote_kv() const { return RemoteKv::after_prefill; }
};

const EngineScheduling& vllm_scheduling();    // engines/vllm.cpp
const EngineScheduling& sglang_scheduling();  // engines/sglang.cpp
const EngineScheduling& trtllm_scheduling();  // engines/trtllm.cpp
const EngineScheduling& engine_scheduling(Engine e);

// Whether a run of `c` schedules one step ahead: ServingConfig::async_scheduling where the
// engine's loop has it, and not beside pipeline stages (the scheduler's micro-batches).
bool runs_async_scheduling(const ServingConfig& c);

}  // namespace kvplan::sim::detail
