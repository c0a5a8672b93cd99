#include "serving_runner.hpp"

#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <exception>
#include <thread>

#include "kvplan/error.hpp"
#include "kvplan/gpu.hpp"
#include "kvplan/policy.hpp"
#include "kvplan/request.hpp"
#include "kvplan/sim/serving_report.hpp"
#include "kvplan/sim/step_time.hpp"
#include "kvplan/sim/workload.hpp"

namespace kvplan::gui {

sim::ServingConfig serving_config(const ServingRequest& r, const GpuSpec& gpu) {
  // The serving view's deployment through core's resolve(), as `kvplan simulate` resolves its
  // flags: the same shape rules and engine refusals (vLLM's max_num_batched_tokens <
  // max_num_seqs, a context beyond the model's positions).
  DeploymentRequest req;
  req.source = DeploymentRequest::Source::form;
  req.form = planner_deployment(r.model, r.settings, gpu);
  req.form->disagg.reset();  // one replica: a disaggregated run sets up each side (run_disagg)
  req.form->plan.gpus = 0;   // the simulator runs one replica
  req.form->plan.concurrency = 1;
  // Else the planner settings' (the engine's default on this GPU unless they set one).
  if (r.max_num_batched_tokens) req.form->plan.max_num_batched_tokens = *r.max_num_batched_tokens;
  req.form->max_num_seqs = r.max_num_seqs;
  req.form->plan.max_num_seqs = r.max_num_seqs;  // the engine's sampler rows, as simulate's
  req.names = ShapeFields{};
  const ResolvedDeployment resolved = resolve(req);
  refuse_if_any(resolved, "serving settings");
  sim::ServingConfig cfg = sim::serving_config_of(resolved.deploy.plan, r.max_num_seqs);
  cfg.enable_prefix_caching = r.enable_prefix_caching;
  return cfg;
}

namespace {

// The request's deployment as one simulated replica: its scheduler and its step timer, the same
// set-up as `kvplan simulate` (the defaults' efficiency: the serving view takes no calibration
// file).
struct ServingSetup {
  sim::ServingConfig cfg;
  sim::StepModel step;
};

ServingSetup serving_setup(const ServingRequest& r) {
  const GpuSpec gpu = resolve_gpu(r.settings);
  sim::ServingConfig cfg = serving_config(r, gpu);
  // The engine, TP and expert parallelism of the resolved deployment, as simulate's.
  sim::StepModelInput si = sim::step_model_input(gpu, cfg.plan);
  si.measured_tables = r.measured_moe;
  sim::StepModel step(r.model, gpu, si, "GPU");
  return {std::move(cfg), std::move(step)};
}

}  // namespace

// One side's own settings (a deployment file's "disaggregated" side) over the request's, as
// core's disagg_side() and `kvplan simulate --prefill-*` apply them.
void side_request(const DisaggSide& side, ServingRequest& r) {
  if (side.max_num_seqs) r.max_num_seqs = side.max_num_seqs;
  if (side.max_num_batched_tokens) r.max_num_batched_tokens = side.max_num_batched_tokens;
  if (side.memory_fraction_ppm) r.settings.memory_fraction_ppm = *side.memory_fraction_ppm;
  if (side.engine_options.empty()) return;
  PlanInput in;
  in.engine = r.settings.engine;
  in.options = r.settings.extras.options;
  in.expert_parallel = r.settings.extras.expert_parallel;
  in.attention_dp = r.settings.extras.attention_dp;
  in.moe_ep = r.settings.extras.moe_ep;
  apply_engine_options(side.engine_options, in, "serving settings");
  r.settings.extras.options = in.options;
  r.settings.extras.expert_parallel = in.expert_parallel;
  r.settings.extras.attention_dp = in.attention_dp;
  r.settings.extras.moe_ep = in.moe_ep;
}

sim::SimResult run_serving(const ServingRequest& r, sim::SimOptions opt) {
  const ServingSetup s = serving_setup(r);
  const sim::Workload w = sim::parse_workload_json(r.workload_json, r.workload_source, r.seed);
  opt.slo = r.slo;
  return sim::simulate(r.model, s.cfg, s.step, w, opt);
}

sim::DisaggResult run_disagg(const ServingRequest& r, const DisaggLayout& layout,
                             sim::SimOptions opt) {
  ServingRequest prefill = r, decode = r;
  prefill.settings.tp = layout.prefill_tp;
  decode.settings.tp = layout.decode_tp;
  side_request(layout.prefill_side, prefill);
  side_request(layout.decode_side, decode);
  const ServingSetup p = serving_setup(prefill), d = serving_setup(decode);
  const sim::DisaggConfig c = sim::disagg_config(
      p.cfg, d.cfg, resolve_gpu(r.settings), layout,
      {.source = "serving settings", .kv_link = "KV link", .routing = "routing"});
  const sim::Workload w = sim::parse_workload_json(r.workload_json, r.workload_source, r.seed);
  opt.slo = r.slo;
  return sim::simulate_disagg(r.model, c, p.step, d.step, w, opt);
}

sim::SweepResult run_sweep(const ServingRequest& r, const SweepGrid& grid, sim::SimOptions opt) {
  const ServingSetup s = serving_setup(r);
  const sim::WorkloadSpec spec = sim::parse_workload_spec(r.workload_json, r.workload_source);
  const sim::SweepInput in{
      .concurrencies = sim::parse_concurrency_list(grid.concurrencies, "sweep", "concurrencies"),
      .requests_per_client = grid.requests_per_client,
      .gpus = sim::default_replica_gpus(s.cfg.plan),
      .seed = r.seed};
  opt.slo = r.slo;
  return sim::sweep(r.model, s.cfg, s.step, spec, in, opt);
}

std::vector<sim::SloRow> run_slo_search(
    const ServingRequest& r, const SloGrid& grid, const std::atomic<bool>* cancel,
    const std::function<void(std::uint64_t, std::uint64_t)>& progress, unsigned threads) {
  const GpuSpec own = resolve_gpu(r.settings);
  sim::SloSearchInput in;
  in.base = serving_config(r, own);
  in.base.enable_prefix_caching = grid.prefix_caching;
  in.measured_tables = r.measured_moe;
  in.slo = r.slo;
  in.max_gpus = grid.max_gpus;
  in.threads = threads;
  in.progress = progress;
  in.cancel = cancel;  // the step timer is the library's default, StepModel(m, g, {engine, tp})
  std::vector<KvFormat> formats;
  for (const auto& f : grid.formats) formats.push_back(parse_kv_format(f));
  std::vector<RetentionPolicy> policies{RetentionPolicy{}};
  if (!is_full(in.base.plan.policy)) policies.push_back(in.base.plan.policy);
  in.lines = sim::slo_lines(r.model, grid.all_gpus ? list_gpu_presets() : std::vector{own},
                            grid.tps, formats, policies);
  const sim::Workload w = sim::parse_workload_json(r.workload_json, r.workload_source, r.seed);
  return sim::slo_search(r.model, w, in);
}

ServingRunner::ServingRunner(QObject* parent) : QObject(parent) {
  pool_.setMaxThreadCount(1);
  connect(&watcher_, &QFutureWatcher<ServingOutcome>::finished, this, [this] {
    outcome_ = watcher_.result();
    Q_EMIT finished(outcome_);
  });
}

ServingRunner::~ServingRunner() {
  cancel();
  watcher_.waitForFinished();
}

bool ServingRunner::isRunning() const { return watcher_.isRunning(); }

bool ServingRunner::start(const ServingRequest& request) {
  if (isRunning()) return false;
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  auto flag = cancel_;
  Q_EMIT started();
  watcher_.setFuture(QtConcurrent::run(&pool_, [this, request, flag]() -> ServingOutcome {
    ServingOutcome out;
    int last = -1;
    sim::SimOptions opt;
    opt.cancel = flag.get();
    opt.progress = [&](double done) {
      const int permille = static_cast<int>(done * 1000);
      if (permille != last) {  // at most 1000 updates, queued to the GUI thread
        last = permille;
        Q_EMIT progress(permille);
      }
    };
    try {
      if (request.search) {
        out.search = true;
        // Leave one CPU to the GUI's painting (see replay_runner.hpp).
        const unsigned threads = std::max(1u, std::thread::hardware_concurrency()) - 1;
        out.rows = run_slo_search(
            request, *request.search, flag.get(),
            [&](std::uint64_t done, std::uint64_t total) {
              Q_EMIT progress(static_cast<int>(total ? done * 1000 / total : 0));
            },
            std::max(1u, threads));
      } else if (request.sweep) {
        out.sweep = run_sweep(request, *request.sweep, opt);
      } else if (request.disagg) {
        out.disagg = run_disagg(request, *request.disagg, opt);
        out.result = out.disagg->run;
      } else {
        out.result = run_serving(request, opt);
      }
      out.status = ServingOutcome::Status::done;
    } catch (const std::exception& e) {
      // The simulator reports a cancel as an Error; the flag tells it from a real failure.
      out.status =
          flag->load() ? ServingOutcome::Status::cancelled : ServingOutcome::Status::failed;
      out.error = QString::fromUtf8(e.what());
    } catch (...) {
      out.status = ServingOutcome::Status::failed;
      out.error = "internal error in the serving simulation";
    }
    return out;
  }));
  return true;
}

void ServingRunner::cancel() {
  if (cancel_) cancel_->store(true);
}

}  // namespace kvplan::gui
