// The Serving view runs the serving simulator on a worker thread: a tiny workload runs to the
// end and its latency table holds exactly the SimResult the library gives for the same inputs
// (built here by hand, not through the view's code); Cancel stops a long run; the editor writes
// workloads the library reads as the original file; bad input is a message naming the field.
#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSeries>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QLineSeries>
#include <QtCharts/QValueAxis>
#include <QtTest>

#include "kvplan/gpu.hpp"
#include "kvplan/model.hpp"
#include "kvplan/planner.hpp"
#include "kvplan/sim/disagg.hpp"
#include "kvplan/sim/serving.hpp"
#include "kvplan/sim/slo_search.hpp"
#include "kvplan/sim/step_time.hpp"
#include "kvplan/sim/workload.hpp"
#include "planner_model.hpp"
#include "serving_charts.hpp"
#include "serving_runner.hpp"
#include "serving_tables.hpp"
#include "serving_view.hpp"
#include "serving_workload.hpp"

using namespace kvplan;
using namespace kvplan::gui;

namespace {

// Call right after starting a run, before the event loop runs: `finished` is delivered through
// it, so it cannot have arrived yet, even when the worker is already done (isRunning() false).
ServingOutcome waitForOutcome(ServingRunner* runner, int timeout_ms) {
  QSignalSpy done(runner, &ServingRunner::finished);
  if (!done.wait(timeout_ms)) qFatal("simulation did not finish in time");
  return runner->lastOutcome();
}

// Constant arrivals 4 per second for 2 s: ⌈4 · 2⌉ = 8 requests (docs/simulate.md, "Arrivals"),
// each 64 prompt tokens and 16 output tokens.
constexpr const char* kTinyJson =
    R"({"kvplan_workload": 1, "arrival": "constant", "stages": [{"rate": 4, "duration_s": 2}],
        "prompt_tokens": {"dist": "fixed", "mean": 64}, "output_tokens": {"dist": "fixed", "mean": 16}})";

WorkloadSpec tinySpec() {
  WorkloadSpec w;
  w.arrival = "constant";
  w.stages = {{4, 2}};
  w.prompt = fixed_tokens(64);
  w.output = fixed_tokens(16);
  return w;
}

// What `kvplan simulate --model llama-3.1-8b --gpu h100-sxm-80gb --max-model-len 8192
// --enable-prefix-caching` runs (cli/cmd_simulate.cpp), set field by field: the planner's
// default settings (PlanSettings) with the view's default scheduler limits, the engine's: what
// vllm serve runs on an H100 (vllm/engine/arg_utils.py@99d7eb5d get_batch_defaults, >= 70 GiB
// and not an A100: 1024 sequences, 8192 batched tokens).
sim::ServingConfig expectedConfig() {
  const GpuSpec g = load_gpu("h100-sxm-80gb");
  sim::ServingConfig cfg;
  cfg.plan.engine = Engine::vllm;
  cfg.plan.format = parse_kv_format("fp16");
  cfg.plan.policy = parse_policy("full");
  cfg.plan.tp = 1;
  cfg.plan.context = 8192;
  cfg.plan.gpu_memory_bytes = g.engine_memory_bytes();
  cfg.plan.gpu_id = g.id;
  cfg.plan.max_num_seqs = 1024;
  cfg.plan.max_num_batched_tokens = 8192;
  cfg.max_num_seqs = 1024;
  cfg.max_num_batched_tokens = 8192;
  cfg.enable_prefix_caching = true;
  return cfg;
}

sim::SimResult expected(const std::string& json, std::uint64_t seed) {
  const ModelSpec m = load_model("llama-3.1-8b");
  const GpuSpec g = load_gpu("h100-sxm-80gb");
  const sim::ServingConfig cfg = expectedConfig();
  const sim::StepModel step(m, g, {});
  return sim::simulate(m, cfg, step, sim::parse_workload_json(json, "test", seed));
}

QString examplesFile(const char* name) {
  return QString(KVPLAN_TEST_DATA_DIR) + "/../../examples/" + name;
}

std::string readText(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read %s", qPrintable(path));
  return f.readAll().toStdString();
}

// Every kvplan_workload file the project ships: examples/workload-*.json and the sim2real
// workloads.
QStringList shippedWorkloads() {
  QStringList out;
  const QString data(KVPLAN_TEST_DATA_DIR);
  for (const auto& [dir, pattern] :
       {std::pair{data + "/../../examples", QString("workload-*.json")},
        std::pair{data + "/sim2real/workloads", QString("*.json")}}) {
    const QDir d(dir);
    for (const QString& name : d.entryList({pattern}, QDir::Files, QDir::Name))
      out << d.filePath(name);
  }
  return out;
}

}  // namespace

class TestGuiServing : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

 private Q_SLOTS:
  void aTinyWorkloadRunsAndTheTableIsTheLibrarys() {
    PlannerModel model;
    ServingView view(&model);
    view.setWorkloadSpec(tinySpec());
    QVERIFY2(view.updateHistograms(), qPrintable(view.message()));
    // Eight requests of 64 prompt tokens: one bin holding all eight.
    QCOMPARE(view.promptHistogram()->shown().counts, std::vector<std::uint64_t>{8});
    QCOMPARE(view.outputHistogram()->shown().lo, 15.5);  // one bar centred on 16 tokens

    view.findChild<QPushButton*>("servingRunButton")->click();
    const ServingOutcome o = waitForOutcome(view.runner(), 60'000);
    QVERIFY2(o.status == ServingOutcome::Status::done, qPrintable(o.error));

    const sim::SimResult r = expected(kTinyJson, 1);
    QCOMPARE(r.summary.requests, std::uint64_t{8});
    QCOMPARE(o.result.summary.requests, r.summary.requests);
    QCOMPARE(o.result.num_gpu_blocks, r.num_gpu_blocks);
    QCOMPARE(o.result.steps, r.steps);
    LatencyTableModel* t = view.latencyModel();
    QCOMPARE(t->rowCount(), 4 * (1 + static_cast<int>(r.stages.size())));  // whole run + 1 stage
    QCOMPARE(t->columnCount(), 7);
    const std::vector<const sim::StageSummary*> scopes{&r.summary, &r.stages[0]};
    for (int s = 0; s < 2; ++s) {
      const sim::Percentiles* ps[] = {&scopes[s]->ttft_ms, &scopes[s]->tpot_ms, &scopes[s]->itl_ms,
                                      &scopes[s]->e2e_ms};
      for (int k = 0; k < 4; ++k) {
        const int row = s * 4 + k;
        const sim::Percentiles& p = *ps[k];
        QCOMPARE(t->index(row, 2).data(Qt::UserRole).toULongLong(), p.count);
        QCOMPARE(t->index(row, 3).data(Qt::UserRole).toDouble(), p.mean);
        QCOMPARE(t->index(row, 4).data(Qt::UserRole).toDouble(), p.p50);
        QCOMPARE(t->index(row, 5).data(Qt::UserRole).toDouble(), p.p90);
        QCOMPARE(t->index(row, 6).data(Qt::UserRole).toDouble(), p.p99);
        QCOMPARE(t->index(row, 6).data().toString(), QString::number(p.p99, 'f', 2));
      }
    }
    QCOMPARE(t->index(0, 0).data().toString(), QString("whole run"));
    QCOMPARE(t->index(0, 1).data().toString(), QString("TTFT"));
    QCOMPARE(t->index(7, 1).data().toString(), QString("E2E"));
    // 8 requests of 16 tokens: 8 TTFTs, 8 TPOTs, 8 · 15 inter-token gaps.
    QCOMPARE(t->index(0, 2).data().toString(), QString("8"));
    QCOMPARE(t->index(2, 2).data().toString(), QString("120"));
    QVERIFY(!view.kvChart()->chart()->series().isEmpty());
    QCOMPARE(view.kvChart()->preemptionMarks(), 0);  // 8 short requests never fill 80 GB
  }

  // The sweep button runs the library's sweep (run_sweep, as `kvplan sweep --workload` does) on
  // the view's deployment and the workload's lengths, off the GUI thread: one point a
  // concurrency, each client sending its share, per-user speed 1000 / mean TPOT; the chart draws
  // those points in order and the status names the knee or says there is none.
  void theSweepIsTheLibrarys() {
    PlannerModel model;
    ServingView view(&model);
    view.setWorkloadSpec(tinySpec());
    view.findChild<QLineEdit*>("sweepConcurrencies")->setText("1,4,16");
    view.findChild<QSpinBox*>("sweepRequestsPerClient")->setValue(2);
    view.findChild<QPushButton*>("sweepRunButton")->click();
    const ServingOutcome o = waitForOutcome(view.runner(), 60'000);
    QVERIFY2(o.status == ServingOutcome::Status::done, qPrintable(o.error));
    QVERIFY(o.sweep.has_value());
    const sim::SweepResult want = run_sweep(view.request(), SweepGrid{"1,4,16", 2}, {});
    QCOMPARE(o.sweep->points.size(), std::size_t{3});
    QCOMPARE(want.points.size(), std::size_t{3});
    QLineSeries* line = view.sweepChart()->findChild<QLineSeries*>("points");
    if (!line)
      for (auto* s : view.sweepChart()->chart()->series())
        if (s->objectName() == "points") line = qobject_cast<QLineSeries*>(s);
    QVERIFY(line != nullptr);
    QCOMPARE(line->count(), 3);
    const std::uint64_t clients[] = {1, 4, 16};
    for (int k = 0; k < 3; ++k) {
      const sim::SweepPoint& p = o.sweep->points[static_cast<std::size_t>(k)];
      QCOMPARE(p.concurrency, clients[k]);
      QCOMPARE(p.requests, 2 * clients[k]);
      QCOMPARE(p.tokens_per_s_per_gpu,
               want.points[static_cast<std::size_t>(k)].tokens_per_s_per_gpu);
      QCOMPARE(p.tokens_per_s_per_user, 1000 / p.tpot_ms.mean);
      QCOMPARE(line->at(k), QPointF(p.tokens_per_s_per_user, p.tokens_per_s_per_gpu));
    }
    QVERIFY(view.findChild<QLabel*>("servingStatus")->text().startsWith("Sweep done"));
    // A list the library refuses is a message naming it, and nothing runs.
    view.findChild<QLineEdit*>("sweepConcurrencies")->setText("4,2");
    view.findChild<QPushButton*>("sweepRunButton")->click();
    const ServingOutcome bad = waitForOutcome(view.runner(), 60'000);
    QVERIFY(bad.status == ServingOutcome::Status::failed);
    QVERIFY2(view.message().contains("concurrencies"), qPrintable(view.message()));
  }

  // A disaggregated run from the view is the library's: the same end-to-end p99s and transfers
  // as simulate_disagg on a configuration built here field by field (expectedConfig for both
  // sides, the decode side without prefix caching, ndr400's 50 GB/s), and the view draws each
  // side's pools and the transfer queue.
  void aDisaggregatedRunIsTheLibrarys() {
    PlannerModel model;
    ServingView view(&model);
    view.setWorkloadSpec(tinySpec());
    view.findChild<QGroupBox*>("disaggBox")->setChecked(true);
    view.findChild<QSpinBox*>("prefillReplicas")->setValue(2);
    view.findChild<QComboBox*>("kvLink")->setCurrentText("ndr400");
    view.findChild<QPushButton*>("servingRunButton")->click();
    const ServingOutcome o = waitForOutcome(view.runner(), 60'000);
    QVERIFY2(o.status == ServingOutcome::Status::done, qPrintable(o.error));
    QVERIFY(o.disagg.has_value());

    const ModelSpec m = load_model("llama-3.1-8b");
    const GpuSpec g = load_gpu("h100-sxm-80gb");
    sim::DisaggConfig c;
    c.prefill = expectedConfig();
    c.decode = expectedConfig();
    c.decode.enable_prefix_caching = false;
    c.prefill_replicas = 2;
    c.decode_replicas = 1;
    c.link.name = "ndr400";
    c.link.gbps = 50;
    const sim::StepModel step(m, g, {});
    const sim::DisaggResult want = sim::simulate_disagg(
        m, c, step, step, sim::parse_workload_json(view.request().workload_json, "test", 1));
    QCOMPARE(o.disagg->run.summary.requests, want.run.summary.requests);
    QCOMPARE(o.disagg->run.summary.ttft_ms.p99, want.run.summary.ttft_ms.p99);
    QCOMPARE(o.disagg->run.summary.tpot_ms.p99, want.run.summary.tpot_ms.p99);
    QCOMPARE(o.disagg->transfers.size(), want.transfers.size());
    QCOMPARE(o.disagg->kv_bytes, want.kv_bytes);
    QCOMPARE(o.result.summary.ttft_ms.p99, want.run.summary.ttft_ms.p99);  // the tables' figures

    const auto series = [](QChartView* v, const char* name) -> QLineSeries* {
      for (auto* s : v->chart()->series())
        if (s->objectName() == name) return qobject_cast<QLineSeries*>(s);
      return nullptr;
    };
    QLineSeries* on = series(view.transferChart(), "onLink");
    QVERIFY(on != nullptr);
    QVERIFY(on->count() > 0);
    QVERIFY(series(view.transferChart(), "waitingBlocks") != nullptr);
    QVERIFY(!view.prefillKvChart()->chart()->series().isEmpty());
    QVERIFY(!view.decodeKvChart()->chart()->series().isEmpty());
    QVERIFY(view.findChild<QLabel*>("disaggSummary")->text().contains("2 prefill + 1 decode"));
    // A link the library refuses is a message naming it, and nothing runs.
    view.findChild<QComboBox*>("kvLink")->setCurrentText("infiniband");
    view.findChild<QPushButton*>("servingRunButton")->click();
    const ServingOutcome bad = waitForOutcome(view.runner(), 60'000);
    QVERIFY(bad.status == ServingOutcome::Status::failed);
    QVERIFY2(view.message().contains("KV link"), qPrintable(view.message()));
  }

  void cancelStopsALongRun() {
    PlannerModel model;
    ServingView view(&model);
    // 300 req/s for 600 s: 180,000 requests, minutes of simulated decode steps.
    WorkloadSpec w;
    w.stages = {{300, 600}};
    w.prompt = fixed_tokens(2048);
    w.output = fixed_tokens(512);
    view.setWorkloadSpec(w);
    view.run();
    QVERIFY(view.runner()->isRunning());
    view.findChild<QPushButton*>("servingCancelButton")->click();
    QElapsedTimer clock;
    clock.start();
    const ServingOutcome o = waitForOutcome(view.runner(), 60'000);
    QVERIFY2(o.status == ServingOutcome::Status::cancelled, qPrintable(o.error));
    QVERIFY(clock.elapsed() < 20'000);
    QCOMPARE(view.latencyModel()->rowCount(), 0);  // nothing shown from a cancelled run
    QVERIFY(view.findChild<QPushButton*>("servingRunButton")->isEnabled());
  }

  void theLatencyModelPassesTheTester() {
    LatencyTableModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(m.rowCount(), 0);
    // Two stages: the whole run and each stage, four metrics each.
    const char* two_stages =
        R"({"kvplan_workload": 1, "arrival": "poisson", "stages": [{"rate": 2, "duration_s": 3},
            {"rate": 6, "duration_s": 2}], "prompt_tokens": {"dist": "uniform", "min": 16, "max": 256},
            "output_tokens": {"dist": "fixed", "mean": 1}})";
    const sim::SimResult r = expected(two_stages, 7);
    m.setResult(r);
    QCOMPARE(m.rowCount(), 12);
    QCOMPARE(m.index(4, 0).data().toString(), QString("stage 0"));
    QCOMPARE(m.index(8, 0).data().toString(), QString("stage 1"));
    // One output token: no TPOT and no inter-token gap, so no figure ("—"), not 0 or NaN.
    QCOMPARE(r.summary.tpot_ms.count, std::uint64_t{0});
    QCOMPARE(m.index(1, 3).data().toString(), QString("—"));
    QCOMPARE(m.index(0, 3).data(Qt::TextAlignmentRole).toInt(),
             int(Qt::AlignRight | Qt::AlignVCenter));
    QVERIFY(!m.index(0, 7).data().isValid());
    QCOMPARE(m.headerData(6, Qt::Horizontal).toString(), QString("p99 (ms)"));
    m.setResult(expected(kTinyJson, 1));
    QCOMPARE(m.rowCount(), 8);
    m.clear();
    QCOMPARE(m.rowCount(), 0);
  }

  void theEditorWritesWhatTheLibraryReads() {
    QVERIFY(dir_.isValid());
    PlannerModel model;
    ServingView view(&model);
    const QString chat = examplesFile("workload-chat.json");
    QVERIFY2(view.loadWorkload(chat), qPrintable(view.message()));
    const WorkloadSpec w = view.workloadSpec();
    QCOMPARE(w.arrival, std::string("poisson"));
    QCOMPARE(w.stages.size(), std::size_t{2});
    QCOMPARE(w.stages[1].rate, 20.0);
    QCOMPARE(w.prompt.dist, std::string("lognormal"));
    QCOMPARE(w.prompt.std, 200.0);
    QCOMPARE(*w.prompt.max, 4096.0);
    QVERIFY(w.prefix.has_value());
    QCOMPARE(w.prefix->prompt_pool, std::uint64_t{100});
    QVERIFY(w.sessions.has_value());  // kept, though not edited here
    QFile chat_file(chat);
    QVERIFY(chat_file.open(QIODevice::ReadOnly));
    // The editor holds what the library reads from the file, field by field.
    QCOMPARE(w, sim::parse_workload_spec(chat_file.readAll().toStdString(), chat.toStdString()));

    const QString saved = dir_.filePath("chat-saved.json");
    QVERIFY2(view.saveWorkload(saved), qPrintable(view.message()));
    const sim::Workload a = sim::load_workload(chat.toStdString(), 5);
    const sim::Workload b = sim::load_workload(saved.toStdString(), 5);
    QCOMPARE(b.requests.size(), a.requests.size());
    QCOMPARE(b.stages.size(), a.stages.size());
    for (std::size_t i = 0; i < a.requests.size(); ++i) {
      const auto &x = a.requests[i], &y = b.requests[i];
      if (x.arrival_s != y.arrival_s || x.prompt != y.prompt ||
          x.output_tokens != y.output_tokens || x.after != y.after || x.think_s != y.think_s)
        QFAIL(qPrintable(QString("request %1 differs").arg(i)));
    }
    // The histogram drew those requests (seed 1): as many as the library draws with seed 1.
    view.findChild<QSpinBox*>("workloadSeed")->setValue(1);
    QVERIFY(view.updateHistograms());
    std::uint64_t drawn = 0;
    for (auto n : view.promptHistogram()->shown().counts) drawn += n;
    QCOMPARE(drawn, sim::load_workload(chat.toStdString(), 1).requests.size());

    // Every distribution kind the editor offers round-trips through the library.
    WorkloadSpec h = tinySpec();
    h.arrival = "gamma";
    h.cv = 2;
    h.prompt.dist = "histogram";
    h.prompt.mean = 0;  // fields a distribution does not use are not written
    h.prompt.bins = {{1, 256, 0.41}, {257, 1024, 0.37}};
    h.output.dist = "uniform";
    h.output.mean = 0;
    h.output.min = 1;
    h.output.max = 64;
    view.setWorkloadSpec(h);
    QCOMPARE(view.workloadSpec(), h);
    QVERIFY2(view.updateHistograms(), qPrintable(view.message()));
    QCOMPARE(sim::parse_workload_spec(sim::to_json(h), "h"), h);
  }

  // Loading a file and reading the editor back gives what the library reads from the file, for
  // every workload the project ships; saving writes that again.
  void everyShippedWorkloadRoundTripsThroughTheEditor() {
    QVERIFY(dir_.isValid());
    const QStringList files = shippedWorkloads();
    QVERIFY2(files.size() >= 2, qPrintable(QString("%1 files").arg(files.size())));
    QVERIFY(files.front().endsWith("workload-chat.json"));
    PlannerModel model;
    ServingView view(&model);
    for (const QString& path : files) {
      QVERIFY2(view.loadWorkload(path), qPrintable(view.message()));
      const WorkloadSpec expected = sim::parse_workload_spec(readText(path), path.toStdString());
      if (!(view.workloadSpec() == expected))
        QFAIL(qPrintable(path + ": the editor changed the workload: " +
                         QString::fromStdString(sim::to_json(view.workloadSpec()))));
      QVERIFY2(view.notice().isEmpty() || view.notice().startsWith("Kept as loaded"),
               qPrintable(view.notice()));
      const QString saved = dir_.filePath("saved.json");
      QVERIFY2(view.saveWorkload(saved), qPrintable(view.message()));
      QCOMPARE(sim::parse_workload_spec(readText(saved), "saved"), expected);
      QVERIFY(QFile::remove(saved));
    }
  }

  // min and max clip a histogram as any distribution (simulator/src/workload.cpp, read_dist:
  // "the others clip to them when given"), so the editor keeps them and the user can edit them.
  void aHistogramKeepsItsClip() {
    QVERIFY(dir_.isValid());
    PlannerModel model;
    ServingView view(&model);
    const QString path = dir_.filePath("clipped.json");
    {
      QFile f(path);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(R"({"kvplan_workload": 1, "arrival": "constant",
                  "stages": [{"rate": 50, "duration_s": 2}],
                  "prompt_tokens": {"dist": "histogram", "bins": [[1, 256, 1], [257, 1024, 1]],
                                    "min": 64, "max": 512},
                  "output_tokens": {"dist": "fixed", "mean": 16}})");
    }
    QVERIFY2(view.loadWorkload(path), qPrintable(view.message()));
    WorkloadSpec w = view.workloadSpec();
    QCOMPARE(w.prompt.dist, std::string("histogram"));
    QVERIFY(w.prompt.min.has_value() && w.prompt.max.has_value());
    QCOMPARE(*w.prompt.min, 64.0);
    QCOMPARE(*w.prompt.max, 512.0);
    QCOMPARE(w, sim::parse_workload_spec(readText(path), path.toStdString()));
    QVERIFY(view.notice().isEmpty());  // every value is shown as it is

    // Saved, the clip is still there: constant 50 req/s for 2 s is 100 requests (docs/
    // simulate.md, "Arrivals"), each prompt drawn from the bins and then clipped to [64, 512].
    const QString saved = dir_.filePath("clipped-saved.json");
    QVERIFY2(view.saveWorkload(saved), qPrintable(view.message()));
    QCOMPARE(sim::parse_workload_spec(readText(saved), "saved"), w);
    const sim::Workload drawn = sim::load_workload(saved.toStdString(), 3);
    QCOMPARE(drawn.requests.size(), std::size_t{100});
    bool clipped_low = false, clipped_high = false;
    for (const auto& r : drawn.requests) {
      QVERIFY(r.prompt_tokens >= 64 && r.prompt_tokens <= 512);
      clipped_low |= r.prompt_tokens == 64;    // P(bin 1 and below 64) = 0.5 · 63/256 per draw
      clipped_high |= r.prompt_tokens == 512;  // P(bin 2 and above 512) = 0.5 · 512/768
    }
    QVERIFY(clipped_low && clipped_high);

    // The clip is editable on a histogram, and what is typed is what is saved.
    auto* min = view.findChild<QDoubleSpinBox*>("promptMin");
    QVERIFY(min->isEnabled());
    min->setValue(100);
    w.prompt.min = 100;
    QCOMPARE(view.workloadSpec(), w);
    view.findChild<QDoubleSpinBox*>("promptMax")->setValue(0);  // "none": no token count is 0
    w.prompt.max.reset();
    QCOMPARE(view.workloadSpec(), w);
    QVERIFY(QFile::remove(path));
    QVERIFY(QFile::remove(saved));
  }

  // Values the widgets round or clamp (whole-token spin boxes, a cv of 2 decimals, an int spin
  // box for shared tokens) are kept as set, named in the notice, until their field is edited.
  void valuesTheEditorCannotShowAreKeptAndNamed() {
    PlannerModel model;
    ServingView view(&model);
    WorkloadSpec w = tinySpec();
    w.arrival = "gamma";
    w.cv = 0.015;  // within the parser's [0.01, 10]; the spin box shows 2 decimals
    w.prompt.dist = "normal";
    w.prompt.mean = 547.5;  // normal: mean and std need not be whole (read_dist)
    w.prompt.std = 200.25;
    w.prefix = PrefixSpec{10, 3'000'000'000, 0};  // ≤ 2^32 tokens, above a QSpinBox's 2^31 - 1
    QCOMPARE(sim::parse_workload_spec(sim::to_json(w), "w"), w);  // a document the library reads
    view.setWorkloadSpec(w);
    QCOMPARE(view.workloadSpec(), w);
    const QString notice = view.notice();
    QVERIFY2(notice.contains("/prompt_tokens/mean = 547.5"), qPrintable(notice));
    QVERIFY2(notice.contains("/prompt_tokens/std = 200.25"), qPrintable(notice));
    QVERIFY2(notice.contains("/arrival/cv = 0.015"), qPrintable(notice));
    QVERIFY2(notice.contains("/prefix/shared_tokens = 3000000000"), qPrintable(notice));
    QVERIFY(view.findChild<QLabel*>("workloadNotice")->isVisibleTo(&view));

    // Editing one field overwrites that field only.
    view.findChild<QDoubleSpinBox*>("promptMean")->setValue(600);
    w.prompt.mean = 600;
    QCOMPARE(view.workloadSpec(), w);
    QVERIFY2(!view.notice().contains("/prompt_tokens/mean"), qPrintable(view.notice()));
    QVERIFY2(view.notice().contains("/prompt_tokens/std = 200.25"), qPrintable(view.notice()));
    view.findChild<QSpinBox*>("prefixSharedTokens")->setValue(4096);
    w.prefix->shared_tokens = 4096;
    QCOMPARE(view.workloadSpec(), w);
    // Switching the prefixes off drops them.
    auto* box = view.findChild<QGroupBox*>("prefixBox");
    box->setChecked(false);
    w.prefix.reset();
    QCOMPARE(view.workloadSpec(), w);

    // Set a spec the editor shows exactly and the notice is gone.
    view.setWorkloadSpec(tinySpec());
    QCOMPARE(view.workloadSpec(), tinySpec());
    QVERIFY(view.notice().isEmpty());
    QVERIFY(!view.findChild<QLabel*>("workloadNotice")->isVisibleTo(&view));
  }

  void badInputIsAMessageNamingTheField() {
    QVERIFY(dir_.isValid());
    PlannerModel model;
    ServingView view(&model);
    WorkloadSpec w = tinySpec();
    w.prompt.min = 100;
    w.prompt.max = 10;  // min above max
    view.setWorkloadSpec(w);
    QVERIFY(!view.updateHistograms());
    QVERIFY2(view.message().contains("/prompt_tokens"), qPrintable(view.message()));

    const QString bad = dir_.filePath("bad.json");
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(
        R"({"kvplan_workload": 1, "arrival": "poisson", "stages": [{"rate": 0, "duration_s": 1}],
               "prompt_tokens": {"dist": "fixed", "mean": 8}, "output_tokens": {"dist": "fixed", "mean": 8}})");
    f.close();
    QVERIFY(!view.loadWorkload(bad));
    QVERIFY2(view.message().contains("bad.json") && view.message().contains("/stages/0/rate"),
             qPrintable(view.message()));
    QVERIFY(!view.saveWorkload(dir_.filePath("none.json")));  // the refused editor stays unsaved
    QVERIFY(!QFile::exists(dir_.filePath("none.json")));

    // A stage cell that is not a number, or is empty, is an error naming it, never a 0.
    view.setWorkloadSpec(tinySpec());
    auto* stages = view.findChild<QTableWidget*>("stagesTable");
    stages->item(0, 1)->setText("2 s");
    QVERIFY(!view.updateHistograms());
    QVERIFY2(view.message().contains("/stages/0/duration_s") && view.message().contains("2 s"),
             qPrintable(view.message()));
    QVERIFY(!view.saveWorkload(dir_.filePath("none.json")));
    QVERIFY(!QFile::exists(dir_.filePath("none.json")));
    stages->item(0, 1)->setText("");
    QVERIFY(!view.updateHistograms());
    QVERIFY2(view.message().contains("/stages/0/duration_s"), qPrintable(view.message()));
    view.run();  // refused before anything starts
    QVERIFY(!view.runner()->isRunning());
    QVERIFY2(view.message().contains("/stages/0/duration_s"), qPrintable(view.message()));
    // Histogram bins with a cell that is not a number: the library names the cell.
    WorkloadSpec hist = tinySpec();
    hist.prompt.dist = "histogram";
    hist.prompt.mean = 0;
    hist.prompt.bins = {{1, 8, 1}};
    view.setWorkloadSpec(hist);
    QVERIFY2(view.updateHistograms(), qPrintable(view.message()));
    auto* bins = view.findChild<QLineEdit*>("promptBins");
    bins->setText("[[1, 8, one]]");
    QVERIFY(!view.updateHistograms());
    QVERIFY2(view.message().contains("/prompt_tokens/bins"), qPrintable(view.message()));
    bins->setText("[[1, 8, \"one\"]]");
    QVERIFY(!view.updateHistograms());
    QVERIFY2(view.message().contains("/prompt_tokens/bins/0/2"), qPrintable(view.message()));

    // TensorRT-LLM runs under its own scheduler (docs/trtllm-scheduler.md); KIVI has no paged
    // pool to simulate: the run fails with a message naming the format.
    view.setWorkloadSpec(tinySpec());
    model.setEngine(Engine::trtllm);
    view.run();
    const ServingOutcome t = waitForOutcome(view.runner(), 60'000);
    QVERIFY2(t.status == ServingOutcome::Status::done, qPrintable(t.error));
    model.setEngine(Engine::vllm);
    model.setKvFormat("kivi:bits=2,group=32,residual=128");
    view.run();
    const ServingOutcome o = waitForOutcome(view.runner(), 60'000);
    QVERIFY(o.status == ServingOutcome::Status::failed);
    QVERIFY2(o.error.contains("kivi") || o.error.contains("KIVI"), qPrintable(o.error));
  }

  void theSloSearchIsTheLibrarys() {
    PlannerModel model;
    ServingView view(&model);
    view.setWorkloadSpec(tinySpec());
    view.findChild<QDoubleSpinBox*>("sloTtftP99")->setValue(10'000);
    view.findChild<QCheckBox*>("sloAllGpus")->setChecked(false);  // the deployment's H100 only
    for (int tp : {2, 4, 8})
      view.findChild<QCheckBox*>(QString("sloTp%1").arg(tp))->setChecked(false);
    view.findChild<QCheckBox*>("sloFormat2")->setChecked(false);  // bf16 and fp8 only
    view.findChild<QCheckBox*>("sloFormat3")->setChecked(false);
    view.findChild<QSpinBox*>("sloMaxGpus")->setValue(4);
    view.findChild<QPushButton*>("sloRunButton")->click();
    const ServingOutcome o = waitForOutcome(view.runner(), 60'000);
    QVERIFY2(o.status == ServingOutcome::Status::done, qPrintable(o.error));
    QVERIFY(o.search);

    // The same search through the library, its input written out here.
    const ModelSpec m = load_model("llama-3.1-8b");
    sim::SloSearchInput in;
    in.base = expectedConfig();
    in.slo.ttft_p99_ms = 10'000;
    in.max_gpus = 4;
    in.threads = 1;
    in.lines =
        sim::slo_lines(m, {load_gpu("h100-sxm-80gb")}, {1},
                       {parse_kv_format("bf16"), parse_kv_format("fp8")}, {RetentionPolicy{}});
    const auto rows = sim::slo_search(m, sim::parse_workload_json(kTinyJson, "test", 1), in);
    QCOMPARE(rows.size(), std::size_t{2});
    // Eight 80-token requests on one H100 finish in well under 10 s: one GPU meets the SLO.
    QVERIFY(rows[0].meets);
    QCOMPARE(rows[0].gpus, 1u);
    SloTableModel* t = view.sloModel();
    QCOMPARE(t->rowCount(), 2);
    for (int i = 0; i < 2; ++i) {
      const sim::SloRow& r = rows[static_cast<std::size_t>(i)];
      QCOMPARE(t->index(i, 0).data().toString(), QString::fromStdString(r.gpu));
      QCOMPARE(t->index(i, 3).data().toString(), QString::number(r.gpus));
      QCOMPARE(t->index(i, 4).data().toString(), QString::fromStdString(r.kv_dtype));
      QCOMPARE(t->index(i, 7).data().toString(), QString(r.meets ? "yes" : "no"));
      QCOMPARE(t->index(i, 8).data(Qt::UserRole).toDouble(), r.ttft_p99_ms);
      QCOMPARE(t->index(i, 10).data(Qt::UserRole).toDouble(), r.e2e_p99_ms);
    }
  }

  void theSloModelPassesTheTesterAndTheSearchCancels() {
    SloTableModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    sim::SloRow met;
    met.gpu = "h100-sxm-80gb";
    met.replicas = met.gpus = 1;
    met.kv_dtype = "fp8";
    met.policy = "full";
    met.meets = true;
    met.vllm_command = "vllm serve m --kv-cache-dtype fp8";
    sim::SloRow not_met = met;
    not_met.meets = false;
    not_met.replicas = not_met.gpus = 0;
    not_met.reason = "no KV memory left";
    m.setRows({met, not_met});
    QCOMPARE(m.columnCount(), 14);
    QCOMPARE(m.index(0, 13).data().toString(), QString("vllm serve m --kv-cache-dtype fp8"));
    QCOMPARE(m.index(1, 13).data().toString(), QString("no KV memory left"));
    QCOMPARE(m.index(1, 2).data().toString(), QString("—"));
    QCOMPARE(m.index(0, 11).data().toString(), QString("unknown"));  // no price given
    m.setRows({});

    PlannerModel model;
    ServingView view(&model);
    WorkloadSpec w;
    w.stages = {{300, 600}};
    w.prompt = fixed_tokens(2048);
    w.output = fixed_tokens(512);
    view.setWorkloadSpec(w);
    view.findChild<QDoubleSpinBox*>("sloTtftP99")->setValue(2000);
    view.runSloSearch();
    QVERIFY(view.runner()->isRunning());
    view.cancel();
    QElapsedTimer clock;
    clock.start();
    const ServingOutcome o = waitForOutcome(view.runner(), 60'000);
    QVERIFY2(o.status == ServingOutcome::Status::cancelled, qPrintable(o.error));
    QVERIFY(clock.elapsed() < 20'000);
    QCOMPARE(view.sloModel()->rowCount(), 0);
  }

  void theKvChartMarksEachRiseInPreemptions() {
    KvUsageChart chart;
    sim::SimResult r;
    r.num_gpu_blocks = 100;
    r.block_size = 16;
    r.simulated_s = 5;
    // Cumulative preemptions 0, 0, 2, 2, 3: they rose at t = 2 and t = 4, so two marks.
    const std::uint64_t cumulative[] = {0, 0, 2, 2, 3};
    for (std::uint64_t t = 0; t < 5; ++t) {
      sim::KvSample k;
      k.t_s = static_cast<double>(t);
      k.blocks_used = 90 + t;
      k.blocks_total = 100;
      k.preemptions = cumulative[t];
      r.kv_series.push_back(k);
    }
    chart.setResult(r);
    QCOMPARE(chart.preemptionMarks(), 2);
    // Blocks in use, the pool (94 of 100 blocks at the peak: in range), the marks, requests
    // running and waiting.
    QCOMPARE(chart.chart()->series().size(), 5);
    chart.clear();
    QCOMPARE(chart.preemptionMarks(), 0);
    QVERIFY(chart.chart()->series().isEmpty());
  }

  // The blocks axis is scaled to the blocks used: 90 to 94 blocks of a 10,000-block pool fill
  // the chart (the axis ends below 200, not at 10,000), the pool is named in the title, and the
  // running and waiting requests have an axis of their own.
  void theKvChartIsScaledToWhatIsUsed() {
    KvUsageChart chart;
    sim::SimResult r;
    r.num_gpu_blocks = 10'000;
    r.block_size = 16;
    r.simulated_s = 5;
    for (std::uint64_t t = 0; t < 5; ++t) {
      sim::KvSample k;
      k.t_s = static_cast<double>(t);
      k.blocks_used = 90 + t;
      k.blocks_total = 10'000;
      k.running = 3;
      k.waiting = t;  // 0 .. 4 queued
      r.kv_series.push_back(k);
    }
    chart.setResult(r);
    QValueAxis* blocks = nullptr;
    QValueAxis* requests = nullptr;
    for (QAbstractAxis* a : chart.chart()->axes(Qt::Vertical)) {
      if (a->objectName() == "blocksAxis") blocks = qobject_cast<QValueAxis*>(a);
      if (a->objectName() == "requestsAxis") requests = qobject_cast<QValueAxis*>(a);
    }
    QVERIFY(blocks && requests);
    QVERIFY2(blocks->max() >= 94 && blocks->max() < 200,
             qPrintable(QString::number(blocks->max())));
    QVERIFY2(requests->max() >= 4 && requests->max() < 20,
             qPrintable(QString::number(requests->max())));
    QVERIFY2(chart.chart()->title().contains("94 of 10,000 blocks"),
             qPrintable(chart.chart()->title()));
    for (QAbstractSeries* s : chart.chart()->series()) {
      QVERIFY2(!s->name().startsWith("pool"), qPrintable(s->name()));
      const bool on_requests = s->name().startsWith("requests");
      QVERIFY2(s->attachedAxes().contains(on_requests ? static_cast<QAbstractAxis*>(requests)
                                                      : static_cast<QAbstractAxis*>(blocks)),
               qPrintable(s->name()));
    }
  }

  // A length every request shares is one bar labelled with that length. The tiny workload:
  // constant arrivals at 4/s for 2 s are 8 requests (docs/simulate.md, "Arrivals"), each of
  // 64 prompt and 16 output tokens.
  void aFixedLengthIsOneLabelledBar() {
    PlannerModel model;
    ServingView view(&model);
    view.setWorkloadSpec(tinySpec());
    QVERIFY2(view.updateHistograms(), qPrintable(view.message()));
    const std::pair<LengthHistogramChart*, QString> charts[] = {
        {view.promptHistogram(), "64 tokens (all)"}, {view.outputHistogram(), "16 tokens (all)"}};
    for (const auto& [hist, label] : charts) {
      QChart* c = hist->chart();
      QCOMPARE(c->series().size(), 1);
      auto* bars = qobject_cast<QBarSeries*>(c->series().front());
      QVERIFY(bars);
      QCOMPARE(bars->count(), 1);
      QCOMPARE(bars->barSets().front()->count(), 1);
      QCOMPARE(bars->barSets().front()->at(0), 8.0);
      QVERIFY(bars->isLabelsVisible());
      auto* x = qobject_cast<QBarCategoryAxis*>(c->axes(Qt::Horizontal).front());
      QVERIFY(x);
      QCOMPARE(x->categories(), QStringList{label});
      QVERIFY2(c->title().contains("8 requests"), qPrintable(c->title()));
    }
  }

  // The view says which model and GPU it simulates, by name and by preset id, and follows the
  // Planner's settings.
  void theViewNamesTheModelAndGpu() {
    PlannerModel model;
    ServingView view(&model);
    auto* label = view.findChild<QLabel*>("servingDeployment");
    QVERIFY(label);
    for (const char* part : {"Llama 3.1 8B", "llama-3.1-8b", "NVIDIA H100 SXM 80GB",
                             "h100-sxm-80gb", "max_model_len 8,192"})
      QVERIFY2(label->text().contains(part), qPrintable(label->text()));
    model.setGpu("h200-141gb");
    QVERIFY2(label->text().contains("h200-141gb"), qPrintable(label->text()));
    QVERIFY(model.loadModel("mistral-7b-v0.1"));
    QVERIFY2(label->text().contains("mistral-7b-v0.1"), qPrintable(label->text()));
  }

  // The example the view opens with queues: its burst of 80 requests a second for 10 s is more
  // than one H100 serves, so requests wait (the simulator's own samples say how many).
  void theDefaultExampleShowsQueueing() {
    PlannerModel model;
    ServingView view(&model);
    QCOMPARE(view.workloadSpec(), ServingView::exampleWorkload());
    view.findChild<QPushButton*>("servingRunButton")->click();
    const ServingOutcome o = waitForOutcome(view.runner(), 120'000);
    QVERIFY2(o.status == ServingOutcome::Status::done, qPrintable(o.error));
    std::uint64_t peak_waiting = 0;
    for (const auto& k : o.result.kv_series) peak_waiting = std::max(peak_waiting, k.waiting);
    QVERIFY2(peak_waiting > 0, "no request ever waited");
  }

  void destroyingTheViewMidRunJoinsTheWorker() {
    PlannerModel model;
    auto* view = new ServingView(&model);
    WorkloadSpec w;
    w.stages = {{300, 600}};
    w.prompt = fixed_tokens(2048);
    w.output = fixed_tokens(512);
    view->setWorkloadSpec(w);
    view->run();
    QVERIFY(view->runner()->isRunning());
    QElapsedTimer clock;
    clock.start();
    delete view;  // cancels and waits: no worker outlives the view
    QVERIFY(clock.elapsed() < 20'000);
  }

  // The "Measured MoE tables" box is simulate's --measured-moe: off by default, as in the CLI;
  // on, gpt-oss-120b on an H200 runs on the StepModel with measured_tables, the library's own
  // run of the same deployment (the view's defaults: vLLM's 1024 sequences and 8192 tokens on
  // an H200, arg_utils.py@99d7eb5d), and its TPOT is not the roofline's.
  void theMeasuredMoeBoxIsSimulatesFlag() {
    PlannerModel model;
    QVERIFY(model.loadModel("gpt-oss-120b"));
    model.setGpu("h200-141gb");
    model.setContext(2048);
    ServingView view(&model);
    view.setWorkloadSpec(tinySpec());
    auto* box = view.findChild<QCheckBox*>("measuredMoe");
    QVERIFY(!box->isChecked());
    QVERIFY(!view.request().measured_moe);
    const bool prefix = view.request().enable_prefix_caching;
    auto run = [&] {
      view.findChild<QPushButton*>("servingRunButton")->click();
      return waitForOutcome(view.runner(), 60'000);
    };
    const ServingOutcome roofline = run();
    QVERIFY2(roofline.status == ServingOutcome::Status::done, qPrintable(roofline.error));
    box->setChecked(true);
    QVERIFY(view.request().measured_moe);
    const ServingOutcome measured = run();
    QVERIFY2(measured.status == ServingOutcome::Status::done, qPrintable(measured.error));

    const ModelSpec m = load_model("gpt-oss-120b");
    const GpuSpec g = load_gpu("h200-141gb");
    sim::ServingConfig cfg = expectedConfig();
    cfg.plan.context = 2048;
    cfg.plan.gpu_memory_bytes = g.engine_memory_bytes();
    cfg.plan.gpu_id = g.id;
    cfg.enable_prefix_caching = prefix;
    const auto w = sim::parse_workload_json(sim::to_json(tinySpec()), "test", 1);
    sim::StepModelInput on;
    on.measured_tables = true;
    const sim::StepModel table(m, g, on), plain(m, g, {});
    QVERIFY(table.moe_measured());
    const sim::SimResult a = sim::simulate(m, cfg, plain, w), b = sim::simulate(m, cfg, table, w);
    QCOMPARE(roofline.result.steps, a.steps);
    QCOMPARE(roofline.result.summary.tpot_ms.mean, a.summary.tpot_ms.mean);
    QCOMPARE(measured.result.steps, b.steps);
    QCOMPARE(measured.result.summary.tpot_ms.mean, b.summary.tpot_ms.mean);
    QVERIFY(a.summary.tpot_ms.mean != b.summary.tpot_ms.mean);
  }

  void theDeploymentIsThePlannersOwn() {
    PlannerModel model;
    ServingView view(&model);
    model.setKvFormat("fp8");
    model.setTp(2);
    QCOMPARE(view.findChild<QComboBox*>("servingFormatCombo")->currentText(), QString("fp8"));
    QCOMPARE(view.findChild<QComboBox*>("servingTpCombo")->currentText(), QString("2"));
    auto* engine = view.findChild<QComboBox*>("servingEngineCombo");
    const int sglang = engine->findData(static_cast<int>(Engine::sglang));
    engine->setCurrentIndex(sglang);
    Q_EMIT engine->activated(sglang);
    QCOMPARE(model.settings().engine, Engine::sglang);
    const ServingRequest r = view.request();
    QCOMPARE(r.settings.kv_format, std::string("fp8"));
    QCOMPARE(r.settings.engine, Engine::sglang);
    // An evicting policy: prefix caching is not modelled, so the box is off and not sent.
    model.setPolicy("streaming:sink=4,window=1020");
    QVERIFY(!view.findChild<QCheckBox*>("prefixCaching")->isEnabled());
    QVERIFY(!view.request().enable_prefix_caching);
  }
};

QTEST_MAIN(TestGuiServing)
#include "test_gui_serving.moc"
