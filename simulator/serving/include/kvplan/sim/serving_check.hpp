// The latency SLOs of a deployment file (slo.ttft_p99_ms, slo.tpot_p99_ms, slo.e2e_p99_ms under
// its "workload"; docs/deploy.md), checked by simulating the deployment: core parses them
// (deploy.hpp) but cannot run the simulator, so `kvplan check` calls this after run_check.
//
//   CheckReport r = run_check(d);          // memory, context, concurrency, cost
//   sim::check_serving_slo(d, r);          // + ttft_p99, tpot_p99, e2e_p99: one item each
//   r.passed();                            // false when a percentile exceeds its limit
//
// The simulation: the deployment's engine settings (max_model_len, max_num_seqs (default 256),
// max_num_batched_tokens, memory fraction, KV format and policy) on each of its
// gpus / (tp · pp) replicas, arrivals dealt round-robin (serving_report.hpp), workload seed 1,
// prefix caching where the simulator models it (vLLM V1's and SGLang's default), the roofline
// step time with the default efficiency or, given a calibration's step-time fields, those over
// the GPU's defaults (as `simulate --calibration`). A disaggregated deployment (its
// "disaggregated" block) runs simulate_disagg instead: its prefill and decode replicas at their
// own TP over its KV link, the decode side without prefix caching (disagg.hpp). When the deployment
// cannot be simulated (it does not start, trtllm, a KIVI format, pp > 1), no request finishes, or
// any request is refused (prompt + output > max_model_len, more KV than the pool holds) each
// limit's item fails with the reason.
#pragma once

#include <optional>

#include "kvplan/deploy.hpp"
#include "kvplan/engine_log.hpp"
#include "kvplan/sim/serving.hpp"

namespace kvplan::sim {

// Appends one CheckItem per latency limit the deployment states (none without a workload).
// Throws Error naming the workload file when it is malformed (exit 2). Returns the simulation's
// result (empty when nothing was simulated).
SimResult check_serving_slo(const Deployment& d, CheckReport& report,
                            const std::optional<CalibratedEfficiency>& calibrated = std::nullopt);

}  // namespace kvplan::sim
