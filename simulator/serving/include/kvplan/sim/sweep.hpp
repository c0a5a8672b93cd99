// A concurrency sweep: one deployment under closed-loop clients at each concurrency (each client
// sends its next request when its last one finishes, as `vllm bench serve --max-concurrency`,
// InferenceX and aiconfigurator run), read as the chart serving teams read: output tokens per
// second per GPU against output tokens per second per user, with the knee and the SLO marked.
//
//   SweepInput in{.concurrencies = {1, 2, 4, 8, 16}, .gpus = 1};
//   SweepResult s = sweep(model, cfg, step, spec, in, opt);  // spec: lengths and think time
//   s.points[2].tokens_per_s_per_gpu;  s.knee;                // 2: the third concurrency
//
// The knee is the point of largest tokens/s per GPU x tokens/s per user: past it, each step up in
// concurrency costs every user a larger share of their speed than it adds to the throughput. A
// sweep whose product still grows at its last point has no knee (still scaling).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kvplan/model.hpp"
#include "kvplan/report.hpp"
#include "kvplan/sim/serving.hpp"
#include "kvplan/sim/workload.hpp"

namespace kvplan::sim {

struct SweepInput {
  std::vector<std::uint64_t> concurrencies;  // clients at each point, ascending, distinct, >= 1
  std::uint64_t requests_per_client = 8;     // each point's closed loop sends concurrency x this
  std::uint32_t gpus = 1;                    // GPUs of the deployment: the per-GPU divisor
  std::uint64_t seed = 1;                    // the lengths' draws
};

struct SweepPoint {
  std::uint64_t concurrency = 0;
  std::uint64_t requests = 0, refused = 0;  // sent; not served (too long for max_model_len)
  double output_tokens_per_s = 0;           // the deployment's, first arrival to last finish
  double tokens_per_s_per_gpu = 0;          // output_tokens_per_s / gpus
  double tokens_per_s_per_user = 0;         // 1000 / mean TPOT; 0 when no request has a TPOT
  Percentiles ttft_ms, tpot_ms;
  bool meets_slo = true;  // every p99 within its limit of the SloLimits, nothing refused
};

struct SweepResult {
  std::string model, gpu, engine;  // for the report's header
  std::uint32_t gpus = 1;
  std::vector<SweepPoint> points;   // in the order of SweepInput::concurrencies
  std::optional<std::size_t> knee;  // index into points
  SloLimits slo;
  double slo_tokens_per_s_per_user = 0;  // 1000 / slo.tpot_p99_ms; 0 without a TPOT limit
};

// "1,2,4,8" (ascending, distinct, each 1 to 100,000; at most 64 of them), or "1-512" for the
// powers of two from the first to the last. Throws Error(source, field) naming the bad item.
std::vector<std::uint64_t> parse_concurrency_list(const std::string& text,
                                                  const std::string& source,
                                                  const std::string& field);

// Simulates `cfg` under `spec`'s lengths and think time as a closed loop of each concurrency
// (arrival and stages replaced). Throws Error as simulate() does; an empty or unsorted list,
// gpus 0 or requests_per_client 0 name SweepInput's field.
SweepResult sweep(const ModelSpec& model, const ServingConfig& cfg, const StepTimer& step,
                  const WorkloadSpec& spec, const SweepInput& in, const SimOptions& opt = {});

// table, json, csv or md. JSON: {model, gpu, engine, gpus, slo{...}, slo_tokens_per_s_per_user,
// knee_concurrency (null without one), points[{concurrency, requests, refused,
// output_tokens_per_s, tokens_per_s_per_gpu, tokens_per_s_per_user, ttft_ms{mean, p50, p99},
// tpot_ms{...}, meets_slo}]}.
std::string render_sweep(const SweepResult& r, OutputFormat f);
// Several deployments' sweeps: one table (a first "deployment" column), a JSON array; one sweep
// is render_sweep's.
std::string render_sweeps(const std::vector<SweepResult>& rs, OutputFormat f);
// "1 x h100-sxm-80gb (vllm)": the GPUs, the GPU and the engine of a sweep.
std::string sweep_label(const SweepResult& r);

// The chart as a standalone SVG document: tokens/s per user across, tokens/s per GPU up, one
// point per concurrency joined in order and labelled, the knee ringed, the TPOT SLO a dashed line.
std::string render_sweep_svg(const SweepResult& r);
// Several sweeps on one chart, a colour and a legend entry each; the first one's TPOT limit.
std::string render_sweep_svg(const std::vector<SweepResult>& rs);

}  // namespace kvplan::sim
