// Runs a serving simulation (kvplan::sim::simulate) on a worker thread, as ReplayRunner runs a
// replay: a one-thread pool of its own, progress and the outcome queued back to the GUI thread.
// Cancel sets the flag SimOptions::cancel points at; the simulator then stops and throws.
// An SLO sizing search (sim::slo_search) runs the same way, its lines on a few threads of its own.
// run_serving() is the whole translation from the view's inputs to the library's, and nothing
// else: the planner's settings become the PlanInput (to_plan_input), the step model is
// StepModel(model, gpu, {engine, tp, ep}), as `kvplan simulate` builds them.
//
//   ServingRequest req{.model = load_model("llama-3.1-8b"), .workload_json = text};
//   sim::SimResult r = run_serving(req, {});     // r.summary.ttft_ms.p99, r.kv_series
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QThreadPool>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kvplan/deploy.hpp"
#include "kvplan/model.hpp"
#include "kvplan/sim/disagg.hpp"
#include "kvplan/sim/serving.hpp"
#include "kvplan/sim/slo_search.hpp"
#include "kvplan/sim/sweep.hpp"
#include "plan_settings.hpp"

namespace kvplan::gui {

// The grid of an SLO sizing search (sim::slo_search): GPU types × TP × KV formats × policies
// (full, and the deployment's policy when it evicts), as `kvplan plan --workload --slo` searches
// by default (cli/cmd_plan.cpp).
struct SloGrid {
  bool all_gpus = true;  // every GPU preset; false = the deployment's GPU only
  std::vector<std::uint32_t> tps{1, 2, 4, 8};
  std::vector<std::string> formats{"bf16", "fp8", "kivi:bits=4,group=32,residual=128",
                                   "kivi:bits=2,group=32,residual=128"};
  std::uint32_t max_gpus = 64;  // per line, TP × replicas
  bool prefix_caching = true;   // where modelled (prefix_caching_modelled), as the engines' default
};

// A concurrency sweep (sim::sweep) of the deployment under the workload's lengths, as
// `kvplan sweep --concurrency ... --workload` runs it.
struct SweepGrid {
  std::string concurrencies = "1-256";  // sim::parse_concurrency_list
  std::uint64_t requests_per_client = 8;
};

struct ServingRequest {
  ModelSpec model;            // the planner's loaded model
  PlanSettings settings;      // GPU, TP, engine, KV format, policy, context = max_model_len, ...
  std::string workload_json;  // a kvplan_workload document (the editor's)
  std::string workload_source = "workload";  // its name in messages
  std::uint64_t seed = 1;
  // Empty: the engine's default on the GPU, as kvplan simulate takes it
  // (sim::default_scheduler_seqs, EngineRules::default_max_num_batched_tokens).
  std::optional<std::uint64_t> max_num_seqs;
  std::optional<std::uint64_t> max_num_batched_tokens;
  bool enable_prefix_caching = false;
  bool measured_moe = false;       // MoE layers from the measured tables (simulate --measured-moe)
  sim::SloLimits slo;              // goodput limits (0 = none); the search's SLO
  std::optional<SloGrid> search;   // set: an SLO sizing search instead of one simulation
  std::optional<SweepGrid> sweep;  // set: a concurrency sweep instead of one simulation
  // Set: a disaggregated run of this layout (each side at its own TP instead of the settings'),
  // as `kvplan simulate --prefill-replicas` runs it.
  std::optional<DisaggLayout> disagg;
};

// The simulator's configuration for one replica of the request's deployment: to_plan_input of the
// settings with gpus = 0 (one replica) and the scheduler limits. Throws kvplan::Error on bad input;
// an engine the simulator does not model (trtllm) is refused by sim::simulate / sim::slo_search.
sim::ServingConfig serving_config(const ServingRequest& r, const GpuSpec& gpu);

// Draws the workload and simulates it synchronously on the calling thread (opt.slo is replaced
// by r.slo). Throws kvplan::Error on bad input, and when opt.cancel is set.
sim::SimResult run_serving(const ServingRequest& r, sim::SimOptions opt);

// Searches the grid for the cheapest deployment meeting r.slo (sim::slo_search on `threads`
// threads); `cancel` stops it (throws kvplan::Error), `progress` gets (lines done, lines).
std::vector<sim::SloRow> run_slo_search(
    const ServingRequest& r, const SloGrid& grid, const std::atomic<bool>* cancel,
    const std::function<void(std::uint64_t, std::uint64_t)>& progress, unsigned threads);

// Sweeps the request's deployment over the grid's concurrencies, closed-loop clients drawing the
// workload's lengths (its arrival replaced), on the calling thread. Throws kvplan::Error.
sim::SweepResult run_sweep(const ServingRequest& r, const SweepGrid& grid, sim::SimOptions opt);

// The request's layout as `kvplan simulate --prefill-replicas` sets it up: each side resolved at
// its TP, sim::disagg_config, a step model per side; synchronously. Throws kvplan::Error.
sim::DisaggResult run_disagg(const ServingRequest& r, const DisaggLayout& layout,
                             sim::SimOptions opt);

struct ServingOutcome {
  enum class Status { done, cancelled, failed };
  Status status = Status::failed;
  QString error;
  bool search = false;                      // which of the two below was computed
  sim::SimResult result;                    // one simulation
  std::vector<sim::SloRow> rows;            // an SLO search, ranked
  std::optional<sim::SweepResult> sweep;    // a concurrency sweep
  std::optional<sim::DisaggResult> disagg;  // a disaggregated run (`result` is its run too)
};

class ServingRunner : public QObject {
  Q_OBJECT
 public:
  explicit ServingRunner(QObject* parent = nullptr);
  ~ServingRunner() override;  // cancels and waits: the worker never outlives the runner

  bool isRunning() const;
  const ServingOutcome& lastOutcome() const { return outcome_; }

 public Q_SLOTS:
  // Starts a simulation; ignored (returns false) while one is running.
  bool start(const kvplan::gui::ServingRequest& request);
  void cancel();

 Q_SIGNALS:
  void started();
  void progress(int permille);  // of the workload's requests, 0..1000
  void finished(const kvplan::gui::ServingOutcome& outcome);

 private:
  QThreadPool pool_;  // one thread, the simulation's alone
  QFutureWatcher<ServingOutcome> watcher_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  ServingOutcome outcome_;
};

}  // namespace kvplan::gui
