// Runs a simulator replay on a worker thread (QtConcurrent, on the runner's own one-thread pool:
// Qt's global pool has one thread per CPU and its raster painter fills large areas on it, so a
// replay there froze the GUI's painting on a one-CPU machine) and reports progress, the result or
// the error back to the GUI thread through queued signals. The simulator stays Qt-free: progress
// arrives through its plain callback, and Cancel works by making that callback throw, which
// unwinds the replay (the simulator holds everything in RAII types).
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QThreadPool>
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kvplan/sim/probe.hpp"
#include "kvplan/sim/replay.hpp"

namespace kvplan::gui {

struct ReplayRequest {
  enum class Source { trace, llama2c };
  Source source = Source::trace;
  std::string path;           // trace (.safetensors) or llama2.c checkpoint (.bin)
  std::string tokenizer;      // llama2.c: tokenizer file; empty = tok*.bin / tokenizer.bin beside
  std::string prompt;         // llama2.c: prompt of the model's own stream
  std::uint32_t steps = 256;  // llama2.c: tokens generated (then teacher-forced through configs)
  float temperature = 1.0f;
  std::uint64_t seed = 42;
  // Configurations as spec strings: one (format, policy, block size) each.
  struct Config {
    std::string format, policy;
    std::uint32_t block_size = 16;
  };
  std::vector<Config> configs;
  std::uint64_t eval_from = 0;
  std::uint64_t max_tokens = 0;      // 0 = all
  std::uint64_t fidelity_every = 0;  // traces: 0 = about 256 scored steps
  // A retrieval probe run after the replay through the same configurations (model only):
  // "" none, "copy" or "needle"; probe_options.kind follows it.
  std::string probe;
  sim::ProbeOptions probe_options;
};

struct ReplayOutcome {
  enum class Status { done, cancelled, failed };
  Status status = Status::failed;
  QString error;
  sim::ReplayReport report;
  std::optional<sim::ProbeReport> probe;  // when the request named one
};

// Runs the request synchronously on the calling thread; `progress` may throw to cancel.
// Throws kvplan::Error on bad input (unreadable trace, bad spec, missing tokenizer).
sim::ReplayReport run_replay(const ReplayRequest& request,
                             const std::function<void(std::uint64_t, std::uint64_t)>& progress);

// The request's probe (none when it names none), on the calling thread; `progress` counts probe
// runs (prompt x configuration) and may throw to cancel. Throws kvplan::Error for a probe on a
// trace, a bad probe name or options that do not fit the model.
std::optional<sim::ProbeReport> run_probe(
    const ReplayRequest& request,
    const std::function<void(std::uint64_t, std::uint64_t)>& progress);

class ReplayRunner : public QObject {
  Q_OBJECT
 public:
  explicit ReplayRunner(QObject* parent = nullptr);
  ~ReplayRunner() override;  // cancels and waits: the worker never outlives the runner

  bool isRunning() const;
  const ReplayOutcome& lastOutcome() const { return outcome_; }

 public Q_SLOTS:
  // Starts a replay; ignored (returns false) while one is running.
  bool start(const kvplan::gui::ReplayRequest& request);
  void cancel();

 Q_SIGNALS:
  void started();
  void progress(quint64 done, quint64 total);  // tokens
  void finished(const kvplan::gui::ReplayOutcome& outcome);

 private:
  QThreadPool pool_;  // one thread, the replay's alone
  QFutureWatcher<ReplayOutcome> watcher_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  ReplayOutcome outcome_;
};

}  // namespace kvplan::gui
