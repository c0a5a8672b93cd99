// SGLang in the serving simulator: its scheduler loop (serving.cpp schedule_sglang), its overlap
// scheduler (async admission) and its measured front-end time.
#include "../engine_scheduling.hpp"

namespace kvplan::sim::detail {
namespace {

class SglangScheduling final : public EngineScheduling {
 public:
  SchedulerLoop loop() const override { return SchedulerLoop::sglang; }
  // event_loop_overlap: batch k + 1 is formed while batch k runs, so an arrival during batch k
  // waits for batch k + 2 (docs/simulate.md "SGLang's overlap scheduler").
  bool async_scheduling() const override { return true; }
  // SGLang's TTFT: its measured first tokens come 0.05 to 3 s after the step model's, growing
  // with concurrency (not modelled yet: a constant stands in). Grid 0.1 / 0.2 / 0.3 s over the
  // SGLang train rows of InferenceX (docs/simulate-step-time.md): DeepSeek-V3 H200 TTFT bias
  // −39 / −12 / +16 %, DeepSeek B200 FP8 −62 / −36 / −10 %, NVFP4 −70 / −53 / −36 %,
  // Llama-3.1-8B H200 −55 / −44 / −33 %.
  std::optional<double> frontend_s(GpuFamily f) const override {
    if (f == GpuFamily::hopper) return 0.2;
    if (f == GpuFamily::blackwell) return 0.3;
    return std::nullopt;
  }
  // The router sends a request to a prefill and a decode server at once; the decode server
  // preallocates its prompt's KV (DecodePreallocQueue.pop_preallocated, python/sglang/srt/
  // disaggregation/decode.py@0035ca42c2d615f77778ce3bf825d6ce6e089661) and the prefill server
  // schedules it only when the decode side has sent where to write it
  // (PrefillBootstrapQueue.pop_bootstrapped waits for KVPoll.WaitingForInput,
  // disaggregation/prefill.py@000c2b942308ea5502978be73542016c230dba02).
  RemoteKv remote_kv() const override { return RemoteKv::before_prefill; }
};

}  // namespace

const EngineScheduling& sglang_scheduling() {
  static const SglangScheduling s;
  return s;
}

}  // namespace kvplan::sim::detail
