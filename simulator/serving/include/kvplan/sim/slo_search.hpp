// SLO sizing: the cheapest deployment whose simulated latency percentiles meet an SLO under a
// workload. Searches GPU type × TP × KV format × retention policy; for each such line it looks
// for the fewest data-parallel replicas (replicas = GPUs / TP, arrivals dealt round-robin,
// serving_report.hpp) whose pooled TTFT / TPOT / E2E p99 meet every limit, then ranks the lines
// that found one by cost. `kvplan plan --workload F --slo S` prints the table; the GUI can call
// the same function.
//
//   SloSearchInput in{.base = cfg, .slo = {.ttft_p99_ms = 2000, .tpot_p99_ms = 50}};
//   in.lines = slo_lines(model, list_gpu_presets(), {1, 2, 4, 8}, formats, {full});
//   std::vector<SloRow> rows = slo_search(model, workload, in);
//   rows[0].meets && rows[0].gpus == rows[0].tp * rows[0].replicas;   // the winner
//
// The replica search per line: replicas 1, 2, 4, ... until one meets the SLO (or max_gpus is
// passed), then bisection between the last that failed and the first that met, assuming more
// replicas never raise the percentiles (each gets fewer arrivals). A run that refuses any request
// (prompt + output > max_model_len, or more KV than the pool holds) does not meet the SLO, and
// the line stops there: every replica has the same limits, so more replicas refuse the same
// requests. A line is skipped without
// simulating when its weights leave no KV memory on the GPU, its TP is not valid for the model,
// or the simulator cannot schedule its format (KIVI has no paged pool: the row says so). Lines
// run on `threads` std::thread workers (0 = hardware_concurrency); the result does not depend
// on how many.
//
// Disaggregated layouts (SloSearchInput::disaggregated, disagg.hpp): each line also gets an xPyD
// row, the fewest prefill + decode replicas (both at the line's TP, over the KV link given)
// meeting the SLO. Replicas in all n = 2, 4, 8, ... until some split meets it, then bisection on n;
// at each n the split is the fewest prefill replicas whose TTFT holds (a binary search over x,
// assuming more prefill replicas never raise TTFT), which leaves the most decode replicas for
// TPOT: if that split fails TPOT or E2E, no split of n holds (fewer prefill replicas fail TTFT,
// more leave fewer decode replicas). With an nvlink link every GPU must fit one NVLink domain
// (max_tp_span), which caps n.
//
// Ranking: rows meeting the SLO first, by cost per hour (GPUs × price) when every such row has a
// price, else by GPU count; ties by engine-native first, then fewer GPUs, smaller TP, the
// order of `lines`. Then the rows that did not meet it, in line order, with the reason.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kvplan/gpu.hpp"
#include "kvplan/model.hpp"
#include "kvplan/sim/disagg.hpp"
#include "kvplan/sim/serving.hpp"

namespace kvplan::sim {

// One GPU type × TP × format × policy.
struct SloLine {
  GpuSpec gpu;
  std::uint32_t tp = 1;
  KvFormat format{};
  RetentionPolicy policy{};
};

// The lines of a grid, in the order given (GPU outermost, then TP, format, policy); TP values
// not valid for the model (valid_tp) are left out, and a GPU whose id came before (`--gpu X,X`)
// is searched once.
std::vector<SloLine> slo_lines(const ModelSpec& model, const std::vector<GpuSpec>& gpus,
                               const std::vector<std::uint32_t>& tps,
                               const std::vector<KvFormat>& formats,
                               const std::vector<RetentionPolicy>& policies);

// Builds a line's step timer (tests); the default is StepModel(model, gpu, step_model_input(gpu,
// the line's plan, calibrated)).
using StepTimerFactory = std::function<std::unique_ptr<StepTimer>(
    const ModelSpec& model, const GpuSpec& gpu, std::uint32_t tp, Engine engine)>;

// The requests per replica the search runs where base.max_num_seqs leaves it to the engine (0,
// SGLang's own from its pool): plan --slo's --max-num-seqs default.
inline constexpr std::uint64_t kSloDefaultMaxNumSeqs = 256;

struct SloSearchInput {
  // The engine settings every candidate shares (engine, max_model_len, limits, memory fraction,
  // prefix caching, off on a line where it is not modelled: prefix_caching_modelled); each line
  // sets gpu_memory_bytes, tp, format and policy.
  ServingConfig base;
  SloLimits slo;  // at least one limit
  std::vector<SloLine> lines;
  // Not given: each line takes the engine's default for its GPU
  // (EngineRules::default_max_num_batched_tokens) for base.max_num_batched_tokens.
  bool engine_default_batched_tokens = false;
  std::uint32_t max_gpus = 64;  // per line, in all (TP × replicas)
  unsigned threads = 0;         // 0 = std::thread::hardware_concurrency()
  StepTimerFactory timer;       // empty = StepModel
  // The default StepModel's calibration (kvplan explain --calibrate): its step-time fields over
  // each line GPU's defaults, as step_model_input applies them.
  std::optional<CalibratedEfficiency> calibrated;
  // The default StepModel costs MoE layers with the measured tables (StepModelInput::
  // measured_tables, `plan --slo --measured-moe`); a `timer` sets its own.
  bool measured_tables = false;
  // Called as lines finish (lines done, lines in all), from the worker threads, serialized.
  std::function<void(std::uint64_t done, std::uint64_t total)> progress;
  // Set: every simulation gets it (SimOptions::cancel), and once it is true the search stops,
  // throwing Error("SLO search", "search", "cancelled"); no row is returned.
  const std::atomic<bool>* cancel = nullptr;
  // Also search xPyD layouts (see the header comment) over layout's link (a kv_link() spec,
  // resolved for each line's GPU), latency, overhead and routing; its replicas and TP are what
  // the search chooses.
  bool disaggregated = false;
  DisaggLayout layout;
};

struct SloRow {
  std::string gpu;
  std::uint32_t tp = 1, replicas = 0, gpus = 0;  // replicas 0: none found
  // A disaggregated row: its prefill and decode replicas (replicas = their sum), the link, and
  // the KV bandwidth the run needed (all transfers' bytes over the run, GB/s). Both 0: aggregated.
  std::uint32_t prefill_replicas = 0, decode_replicas = 0;
  std::string kv_link;
  double kv_gbps = 0;
  std::string kv_dtype, policy;
  bool engine_native = false;  // the engine implements the format and policy
  bool meets = false;          // the SLO holds at `replicas`
  double ttft_p99_ms = 0, tpot_p99_ms = 0, e2e_p99_ms = 0;  // at `replicas` (or the last tried)
  double cost_per_hour = 0;                                 // gpus · price, 0 = price unknown
  std::uint32_t simulations = 0;                            // runs this line took
  // Why not, when !meets; for a row that meets it, why it has no launch line (where it has none).
  std::string reason;
  std::optional<std::string> vllm_command, sglang_command;  // for rows that meet the SLO
  // A disaggregated row's vLLM instances (one per replica, NixlConnector), for rows that meet it.
  std::optional<std::string> prefill_command, decode_command;
  bool disaggregated() const { return prefill_replicas > 0; }
};

// Throws Error (source "--slo") when no limit is set or there are no lines, or the engine is
// one the simulator does not model (check_simulated_engine, field "engine"), and when cancelled;
// a line's own failure (weights do not fit, a format the simulator cannot schedule) is its row's
// reason.
std::vector<SloRow> slo_search(const ModelSpec& model, const Workload& workload,
                               const SloSearchInput& in);

// table, json, md. JSON: {slo{...}, rows[{gpu, tp, layout ("aggregated" or "xPyD"), replicas,
// prefill_replicas, decode_replicas, gpus, kv_dtype, policy, engine_native, meets, ttft_p99_ms,
// tpot_p99_ms, e2e_p99_ms, cost_per_hour, simulations, reason, vllm, sglang, kv_link, kv_gbps,
// prefill_command, decode_command}], winner (the first row when it meets the SLO, else null)}.
std::string render_slo_search(const std::vector<SloRow>& rows, const SloLimits& slo,
                              OutputFormat f);

}  // namespace kvplan::sim
