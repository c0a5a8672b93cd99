#include "serving_runner.hpp"

#include <QtConcurrent/QtConcurrentRun>
#include <exception>

#include "kvplan/error.hpp"
#include "kvplan/sim/step_time.hpp"
#include "kvplan/sim/workload.hpp"

namespace kvplan::gui {

sim::ServingConfig serving_config(const ServingRequest& r, const GpuSpec& gpu) {
  // As `kvplan simulate` (cli/cmd_simulate.cpp): the simulator has no TensorRT-LLM scheduler.
  if (r.settings.engine == Engine::trtllm)
    throw Error("Serving view", "engine",
                "the serving simulator models vllm and sglang, not trtllm");
  sim::ServingConfig cfg;
  cfg.plan = to_plan_input(r.settings, gpu);
  cfg.plan.gpus = 0;  // the simulator runs one replica
  cfg.plan.max_num_batched_tokens = r.max_num_batched_tokens;
  cfg.max_num_seqs = r.max_num_seqs;
  cfg.max_num_batched_tokens = r.max_num_batched_tokens;
  cfg.enable_prefix_caching = r.enable_prefix_caching;
  return cfg;
}

sim::SimResult run_serving(const ServingRequest& r, sim::SimOptions opt) {
  const GpuSpec gpu = resolve_gpu(r.settings);
  const sim::ServingConfig cfg = serving_config(r, gpu);
  sim::StepModelInput step_in;  // the defaults' efficiency, as `kvplan simulate`
  step_in.engine = r.settings.engine;
  step_in.tp = r.settings.tp;
  const sim::StepModel step(r.model, gpu, step_in, "GPU");
  const sim::Workload w = sim::parse_workload_json(r.workload_json, r.workload_source, r.seed);
  opt.slo = r.slo;
  return sim::simulate(r.model, cfg, step, w, opt);
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
      out.result = run_serving(request, opt);
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
