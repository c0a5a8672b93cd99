#include "replay_runner.hpp"

#include <QDir>
#include <QFileInfo>
#include <QtConcurrent/QtConcurrentRun>
#include <exception>

#include "kvplan/error.hpp"

namespace kvplan::gui {
namespace {

struct Cancelled {};  // thrown by the progress callback to unwind a cancelled replay

std::string findTokenizer(const ReplayRequest& r) {
  if (!r.tokenizer.empty()) return r.tokenizer;
  const QFileInfo ckpt(QString::fromStdString(r.path));
  if (ckpt.isDir()) return r.path;  // a Hugging Face directory: its tokenizer.json
  for (const char* name : {"tok512.bin", "tokenizer.bin"}) {
    const QFileInfo t(ckpt.absoluteDir(), name);
    if (t.isFile()) return t.absoluteFilePath().toStdString();
  }
  const QStringList toks = ckpt.absoluteDir().entryList({"tok*.bin"}, QDir::Files);
  if (!toks.isEmpty()) return ckpt.absoluteDir().filePath(toks.first()).toStdString();
  throw Error(r.path, "tokenizer",
              "no tokenizer beside the checkpoint (tok512.bin or tokenizer.bin); choose one");
}

}  // namespace

sim::ReplayReport run_replay(const ReplayRequest& r,
                             const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
  if (r.configs.empty()) throw Error("replay", "configurations", "choose at least one");
  // The same request `kvplan replay` builds (sim::run_replay), so both report the same thing,
  // positions=cache twins included.
  sim::ReplayRequest req;
  for (const auto& c : r.configs) req.configs.push_back({c.format, c.policy, c.block_size});
  req.eval_from = r.eval_from;
  req.max_tokens = r.max_tokens;
  req.fidelity_every = r.fidelity_every;
  req.progress = progress;
  if (r.source == ReplayRequest::Source::trace) {
    req.trace = r.path;
    return sim::run_replay(req);
  }
  sim::expand_configs(req);  // a bad spec fails before the model generates its stream
  req.checkpoint = r.path;
  const auto model = sim::Llama2cModel::load(r.path);
  const auto tok = sim::Tokenizer::load(findTokenizer(r), model.config().vocab_size);
  sim::Llama2cRunner run(model);
  sim::ReferenceAttention ref(model);
  req.tokens =
      sim::generate(
          run, ref, tok,
          {.prompt = r.prompt, .steps = r.steps, .temperature = r.temperature, .seed = r.seed})
          .tokens;
  return sim::run_replay(req);
}

std::optional<sim::ProbeReport> run_probe(
    const ReplayRequest& r, const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
  if (r.probe.empty()) return std::nullopt;
  sim::ProbeOptions o = r.probe_options;
  o.kind = sim::parse_probe_kind(r.probe);
  if (r.source == ReplayRequest::Source::trace)
    throw Error("replay", "probe", "a retrieval probe needs the model in the loop, not a trace");
  // The configurations the replay ran, as run_replay expands them.
  sim::ReplayRequest req;
  req.checkpoint = r.path;
  for (const auto& c : r.configs) req.configs.push_back({c.format, c.policy, c.block_size});
  const auto configs = sim::expand_configs(req);
  const auto model = sim::Llama2cModel::load(r.path);
  const auto tok = sim::Tokenizer::load(findTokenizer(r), model.config().vocab_size);
  return sim::run_probe(model, tok, configs, o, kernels::Backend::cpu, progress);
}

ReplayRunner::ReplayRunner(QObject* parent) : QObject(parent) {
  pool_.setMaxThreadCount(1);
  connect(&watcher_, &QFutureWatcher<ReplayOutcome>::finished, this, [this] {
    outcome_ = watcher_.result();
    Q_EMIT finished(outcome_);
  });
}

ReplayRunner::~ReplayRunner() {
  cancel();
  watcher_.waitForFinished();
}

bool ReplayRunner::isRunning() const { return watcher_.isRunning(); }

bool ReplayRunner::start(const ReplayRequest& request) {
  if (isRunning()) return false;
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  auto flag = cancel_;
  Q_EMIT started();
  watcher_.setFuture(QtConcurrent::run(&pool_, [this, request, flag]() -> ReplayOutcome {
    ReplayOutcome out;
    std::uint64_t last_pct = ~std::uint64_t{0};
    const auto report = [&](std::uint64_t done, std::uint64_t total) {
      if (flag->load()) throw Cancelled{};
      // At most ~200 updates per run, so the GUI thread's queue stays short.
      const std::uint64_t pct = total ? done * 200 / total : 0;
      if (pct != last_pct || done == total) {
        last_pct = pct;
        Q_EMIT progress(done, total);  // queued to the GUI thread
      }
    };
    try {
      out.report = run_replay(request, report);
      last_pct = ~std::uint64_t{0};  // the probe's runs restart the bar
      out.probe = run_probe(request, report);
      out.status = ReplayOutcome::Status::done;
    } catch (const Cancelled&) {
      out.status = ReplayOutcome::Status::cancelled;
    } catch (const std::exception& e) {
      out.status = ReplayOutcome::Status::failed;
      out.error = QString::fromUtf8(e.what());
    } catch (...) {
      out.status = ReplayOutcome::Status::failed;
      out.error = "internal error in the replay";
    }
    return out;
  }));
  return true;
}

void ReplayRunner::cancel() {
  if (cancel_) cancel_->store(true);
}

}  // namespace kvplan::gui
