// The replay view runs the simulator on a worker thread: it completes with predicted == measured
// bytes and its results table (ReplayTableModel) holds exactly what the library's sim::run_replay
// gives for the same inputs, it can be cancelled while the window keeps processing events (on one
// CPU too), and an unreadable trace is a message, not a crash.
#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSet>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QtCharts/QAbstractBarSeries>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtTest>

#include "kvplan/sim/synth.hpp"
#include "replay_runner.hpp"
#include "replay_table.hpp"
#include "replay_view.hpp"
#include "ui_format.hpp"

using namespace kvplan;
using namespace kvplan::gui;

namespace {

QString modelDir() {
  const QByteArray env = qgetenv("KVPLAN_TEST_MODEL_DIR");
  return env.isEmpty() ? QString(KVPLAN_TEST_MODEL_DIR_DEFAULT) : QString::fromLocal8Bit(env);
}

ReplayOutcome waitForOutcome(ReplayRunner* runner, int timeout_ms) {
  QSignalSpy done(runner, &ReplayRunner::finished);
  if (runner->isRunning() && !done.wait(timeout_ms)) qFatal("replay did not finish in time");
  return runner->lastOutcome();
}

}  // namespace

class TestGuiReplay : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

 private Q_SLOTS:
  // A one-CPU machine: Qt sizes its global thread pool to the CPUs, and its raster painter fills
  // large areas (the charts) on that pool. A replay running on the global pool then starved the
  // GUI thread's painting until the replay ended (the cancel test hung on 1 core).
  void initTestCase() { QThreadPool::globalInstance()->setMaxThreadCount(1); }

  // The charts read at a glance: every configuration's label is distinct and drawn whole (no
  // "5. fp16 stre…"), kept (higher is better) and error (lower is better) are on different axes,
  // and the table's columns are as wide as their contents. The six checked default rows run as
  // eight (streaming and h2o also with positions=cache, as sim::run_replay does).
  void theChartsAndTableReadAtAGlance() {
    ReplayView v;
    v.resize(1480, 940);
    v.show();
    QVERIFY(v.writeSyntheticTrace(256));
    QSignalSpy done(v.runner(), &ReplayRunner::finished);
    v.findChild<QPushButton*>("runReplayButton")->click();
    QVERIFY(done.wait(120000));
    QCOMPARE(v.runner()->lastOutcome().report.configs.size(), std::size_t{8});
    QTest::qWait(50);  // the charts lay out their axes

    for (const char* name : {"replayMemoryChart", "replayFidelityChart", "replayErrorChart"}) {
      auto* view = v.findChild<QChartView*>(name);
      QVERIFY2(view, name);
      QChart* c = view->chart();
      QBarCategoryAxis* cat = nullptr;
      for (QAbstractAxis* a : c->axes())
        if (auto* b = qobject_cast<QBarCategoryAxis*>(a)) cat = b;
      QVERIFY2(cat, name);
      const QStringList labels = cat->categories();
      QCOMPARE(labels.size(), 8);
      QCOMPARE(QSet<QString>(labels.begin(), labels.end()).size(), 8);  // distinct
      // Drawn whole: each label is the text of one of the scene's text items.
      QSet<QString> drawn;
      for (QGraphicsItem* item : view->scene()->items())
        if (auto* t = dynamic_cast<QGraphicsTextItem*>(item)) drawn.insert(t->toPlainText());
      for (const QString& l : labels)
        QVERIFY2(drawn.contains(l), qPrintable(QString("%1: \"%2\" not drawn whole").arg(name, l)));
    }
    // Configuration 1 on top, as in the table: horizontal bars list categories bottom up.
    auto* memory = v.findChild<QChartView*>("replayMemoryChart")->chart();
    QVERIFY(qobject_cast<QBarCategoryAxis*>(memory->axes(Qt::Vertical).front())
                ->categories()
                .last()
                .startsWith("1. fp16"));

    // Kept and error: different series on different axes, each axis its own.
    const auto valueAxisOf = [](QChart* c, const QString& set) -> QAbstractAxis* {
      for (QAbstractSeries* s : c->series())
        if (auto* bars = qobject_cast<QAbstractBarSeries*>(s))
          for (QBarSet* b : bars->barSets())
            if (b->label() == set)
              for (QAbstractAxis* a : s->attachedAxes())
                if (a->type() == QAbstractAxis::AxisTypeValue) return a;
      return nullptr;
    };
    QAbstractAxis* kept = valueAxisOf(v.findChild<QChartView*>("replayFidelityChart")->chart(),
                                      "attention mass kept");
    QAbstractAxis* error = valueAxisOf(v.findChild<QChartView*>("replayErrorChart")->chart(),
                                       "output error (relative L2)");
    QVERIFY(kept && error);
    QVERIFY(kept != error);
    QVERIFY(kept->titleText().contains("kept"));
    QVERIFY(error->titleText().contains("error"));

    // Columns sized to their contents; the model and probe columns are hidden for a trace; the
    // configuration takes what is left (whole in its tooltip) and the table fits its width.
    auto* table = v.findChild<QTableView*>("replayResults");
    int total = 0;
    for (int col = 0; col < table->model()->columnCount(); ++col) {
      QCOMPARE(table->isColumnHidden(col), col >= 8);
      if (table->isColumnHidden(col)) continue;
      total += table->columnWidth(col);
      if (col == 0) continue;
      QVERIFY2(
          table->columnWidth(col) >= static_cast<QAbstractItemView*>(table)->sizeHintForColumn(col),
          qPrintable(QString("column %1").arg(col)));
      QVERIFY2(table->columnWidth(col) >= table->horizontalHeader()->sectionSizeHint(col),
               qPrintable(QString("column %1 header").arg(col)));
    }
    QVERIFY2(total <= table->viewport()->width(),
             qPrintable(QString("%1 > %2").arg(total).arg(table->viewport()->width())));
    QVERIFY(table->columnWidth(0) >= 150);  // room for "fp16 | full | S=16" and more
    for (int row = 0; row < 8; ++row)
      QCOMPARE(table->model()->index(row, 0).data(Qt::ToolTipRole),
               table->model()->index(row, 0).data());
  }

  void aShortTraceReplaysAndBytesAgree() {
    ReplayView v;
    v.resize(1400, 900);
    v.show();
    QVERIFY(v.writeSyntheticTrace(256));
    QSignalSpy done(v.runner(), &ReplayRunner::finished);
    v.findChild<QPushButton*>("runReplayButton")->click();
    QVERIFY(done.wait(120000));
    const ReplayOutcome& o = v.runner()->lastOutcome();
    QVERIFY2(o.status == ReplayOutcome::Status::done, qPrintable(o.error));
    QCOMPARE(o.report.tokens, std::uint64_t{256});
    // The six checked default rows; streaming and h2o name no positions=, so each also runs with
    // positions=cache right after it, as `kvplan replay` does (sim::run_replay): 6 + 2.
    QCOMPARE(o.report.configs.size(), std::size_t{8});
    QVERIFY(o.report.all_bytes_match());
    auto* table = v.findChild<QTableView*>("replayResults");
    QVERIFY(table);
    QCOMPARE(table->model(), static_cast<QAbstractItemModel*>(v.resultsModel()));
    const QAbstractItemModel* m = table->model();
    QCOMPARE(m->rowCount(), 8);
    QCOMPARE(m->columnCount(), 15);

    // The same replay through the library alone: the trace the view wrote and its six checked
    // default rows (replay_view.cpp), as `kvplan replay --trace` would run them.
    sim::ReplayRequest req;
    req.trace = v.request().path;
    req.configs = {{"fp16", "full", 16},
                   {"fp8", "full", 16},
                   {"kivi:bits=4,group=32,residual=128", "full", 16},
                   {"kivi:bits=2,group=32,residual=128", "full", 16},
                   {"fp16", "streaming:sink=4,window=124", 16},
                   {"fp16", "h2o:keep=0.2,recent=0.1", 16}};
    const sim::ReplayReport lib = sim::run_replay(req);
    QCOMPARE(lib.configs.size(), std::size_t{8});
    for (int i = 0; i < 8; ++i) {
      const sim::ConfigResult& c = lib.configs[static_cast<std::size_t>(i)];
      const auto at = [&](int col, int role = Qt::DisplayRole) {
        return m->index(i, col).data(role);
      };
      QCOMPARE(at(0).toString(), QString::fromStdString(c.label));
      QCOMPARE(at(1, Qt::UserRole).toULongLong(), c.steps);
      QCOMPARE(at(2, Qt::UserRole).toULongLong(), c.predicted_bytes);
      QCOMPARE(at(3, Qt::UserRole).toULongLong(), c.measured_bytes);
      QCOMPARE(at(2).toString(), humanBytes(c.predicted_bytes));
      QCOMPARE(at(3, Qt::ToolTipRole).toString(), exactBytes(c.measured_bytes));
      QCOMPARE(at(4).toString(), QString("yes"));
      QCOMPARE(at(5, Qt::UserRole).toULongLong(), c.retained_tokens);
      QCOMPARE(at(6, Qt::UserRole).toDouble(), c.rel_error);
      QCOMPARE(at(7, Qt::UserRole).toDouble(), c.attention_mass);
      QCOMPARE(at(7).toString(), QString::number(100.0 * c.attention_mass, 'f', 2) + " %");
      // A trace: no model in the loop, no probe.
      for (int col = 8; col < 15; ++col) {
        QCOMPARE(at(col).toString(), QString("—"));
        QVERIFY(!at(col, Qt::UserRole).isValid());
      }
      QCOMPARE(at(0, Qt::TextAlignmentRole).isValid(), false);
      QCOMPARE(at(1, Qt::TextAlignmentRole).toInt(), int(Qt::AlignRight | Qt::AlignVCenter));
    }
    // By hand, the synthetic trace (2 layers, 2 KV heads of dim 64, 256 tokens; SynthOptions):
    // fp16 full holds K and V of every token, 2 · 2 · 256 · 2 · 64 · 2 B = 262,144 B in 16 whole
    // blocks of 16; sink 4 + window 124 holds 128 tokens, half of it, 131,072 B.
    QCOMPARE(m->index(0, 0).data().toString(), QString("fp16 | full | S=16"));
    QCOMPARE(m->index(0, 2).data().toString(), QString("256.00 KiB (262.14 KB)"));
    QCOMPARE(m->index(0, 2).data(Qt::ToolTipRole).toString(), QString("262,144 bytes"));
    QCOMPARE(m->index(0, 5).data().toString(), QString("256"));
    QCOMPARE(m->index(0, 7).data().toString(), QString("100.00 %"));
    QCOMPARE(m->index(4, 3).data(Qt::UserRole).toULongLong(), qulonglong{131072});
    QCOMPARE(m->index(4, 5).data().toString(), QString("128"));
    QCOMPARE(m->headerData(0, Qt::Vertical).toInt(), 1);  // row numbers = chart categories
    QCOMPARE(v.findChild<QProgressBar*>("replayProgress")->value(), 100);
    QVERIFY(v.findChild<QPushButton*>("runReplayButton")->isEnabled());
  }

  // The model alone, on a report and a needle probe written here by hand: every figure below is
  // the input's, formatted as the header of replay_table.hpp says.
  void theResultsModelPassesTheTester() {
    ReplayTableModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(m.rowCount(), 0);
    QCOMPARE(m.columnCount(), 15);
    QCOMPARE(m.headerData(12, Qt::Horizontal).toString(), QString("probe vs\nfull"));
    QVERIFY(!m.headerData(15, Qt::Horizontal).isValid());

    sim::ReplayReport rep;
    rep.model_in_loop = true;
    sim::ConfigResult a;
    a.label = "fp16 | full | S=16";
    a.steps = 1234;
    a.predicted_bytes = a.measured_bytes = 5 * 1024 * 1024;
    a.retained_tokens = 1234;
    a.rel_error = 0.001;
    a.attention_mass = 1;
    a.model_in_loop = true;
    a.mean_kl = 1.5e-6;
    a.top1_agreement = 0.99;
    a.perplexity = 2.885;
    sim::ConfigResult b = a;
    b.label = "fp16 | streaming:sink=4,window=60 | S=16";
    b.measured_bytes = 1000;
    b.bytes_match = false;
    b.first_mismatch_step = 7;
    sim::ConfigResult c = a;
    c.label = "int8 | full | S=16";  // not in the probe
    rep.configs = {a, b, c};

    sim::ProbeReport probe;
    probe.options.kind = sim::ProbeKind::needle;
    probe.model_can_do = true;
    sim::ProbeResult full;
    full.label = "fp32 | full | S=16";
    sim::ProbeResult pa;
    pa.label = a.label;
    pa.accuracy = 0.75;
    pa.delta = 0.125;
    pa.layer_retained = {1.0, 0.5};
    pa.layer_mass = {0.25, 0.0};
    sim::ProbeResult pb = pa;
    pb.label = b.label;
    pb.delta = -0.25;
    probe.results = {full, pa, pb};
    m.setResults(rep, &probe);

    QCOMPARE(m.rowCount(), 3);
    const auto text = [&](int row, int col) { return m.index(row, col).data().toString(); };
    QCOMPARE(text(0, 1), QString("1,234"));
    QCOMPARE(text(0, 2), QString("5.00 MiB (5.24 MB)"));  // 5,242,880 B
    QCOMPARE(m.index(0, 2).data(Qt::ToolTipRole).toString(), QString("5,242,880 bytes"));
    QCOMPARE(text(0, 4), QString("yes"));
    QCOMPARE(text(1, 4), QString("no, from step 7"));
    QCOMPARE(text(1, 3), QString("1000 B"));
    QCOMPARE(text(0, 6), QString("0.10 %"));
    QCOMPARE(text(0, 7), QString("100.00 %"));
    QCOMPARE(text(0, 8), QString("1.5e-06"));  // %.4g
    QCOMPARE(text(0, 9), QString("99.00 %"));
    QCOMPARE(text(0, 10), QString("2.885"));
    QCOMPARE(text(0, 11), QString("75.00 %"));
    QCOMPARE(text(0, 12), QString("+12.50 %"));
    QCOMPARE(text(1, 12), QString("-25.00 %"));
    QCOMPARE(m.index(1, 12).data(Qt::UserRole).toDouble(), -0.25);
    // Means over the two layers, (1 + 0.5) / 2 and (0.25 + 0) / 2, each layer in the tool tip.
    QCOMPARE(text(0, 13), QString("75.00 %"));
    QCOMPARE(m.index(0, 13).data(Qt::ToolTipRole).toString(), QString("L0 100.00 %, L1 50.00 %"));
    QCOMPARE(text(0, 14), QString("12.50 %"));
    QCOMPARE(m.index(0, 14).data(Qt::ToolTipRole).toString(), QString("L0 25.00 %, L1 0.00 %"));
    QCOMPARE(m.index(0, 14).data(Qt::UserRole).toDouble(), 0.125);
    // A configuration the probe did not run: no probe figures, no tool tip.
    for (int col = 11; col < 15; ++col) QCOMPARE(text(2, col), QString("—"));
    QVERIFY(!m.index(2, 13).data(Qt::ToolTipRole).isValid());
    QCOMPARE(m.index(0, 0).data(Qt::ToolTipRole).toString(), m.index(0, 0).data().toString());
    QVERIFY(!m.index(0, 4).data(Qt::TextAlignmentRole).isValid());
    QCOMPARE(m.index(0, 14).data(Qt::TextAlignmentRole).toInt(),
             int(Qt::AlignRight | Qt::AlignVCenter));

    // Where the model cannot do the task, its accuracies are noise: "—"; the cache facts stay.
    probe.model_can_do = false;
    m.setResults(rep, &probe);
    QCOMPARE(text(0, 11), QString("—"));
    QCOMPARE(text(0, 12), QString("—"));
    QVERIFY(!m.index(0, 11).data(Qt::UserRole).isValid());
    QCOMPARE(text(0, 13), QString("75.00 %"));
    // A copy probe has no needle columns.
    probe.options.kind = sim::ProbeKind::copy;
    probe.model_can_do = true;
    m.setResults(rep, &probe);
    QCOMPARE(text(0, 11), QString("75.00 %"));
    QCOMPARE(text(0, 13), QString("—"));
    QVERIFY(!m.index(0, 13).data(Qt::ToolTipRole).isValid());
    // No probe at all, then nothing.
    m.setResults(rep, nullptr);
    QCOMPARE(text(0, 11), QString("—"));
    QCOMPARE(text(0, 10), QString("2.885"));
    m.clear();
    QCOMPARE(m.rowCount(), 0);
  }

  void aReplayCanBeCancelled() {
    const QString path = dir_.filePath("long.safetensors");
    sim::SynthOptions o;
    o.tokens = 16384;
    sim::write_synthetic_trace(path.toStdString(), o);
    ReplayView v;
    v.show();
    v.setInput(path, ReplayRequest::Source::trace);
    QSignalSpy progress(v.runner(), &ReplayRunner::progress);
    QSignalSpy done(v.runner(), &ReplayRunner::finished);
    QElapsedTimer t;
    t.start();
    v.run();
    QVERIFY(v.runner()->isRunning());
    QVERIFY(!v.findChild<QPushButton*>("runReplayButton")->isEnabled());
    // Progress arrives through the event loop while the worker runs: the window is responsive.
    QVERIFY(progress.wait(60000));
    QVERIFY(v.runner()->isRunning());
    v.findChild<QPushButton*>("cancelReplayButton")->click();
    QVERIFY(done.wait(30000));
    qInfo("cancelled after %lld ms", static_cast<long long>(t.elapsed()));
    QVERIFY(v.runner()->lastOutcome().status == ReplayOutcome::Status::cancelled);
    QCOMPARE(v.findChild<QLabel*>("replayStatus")->text(), QString("Cancelled."));
    QVERIFY(v.findChild<QPushButton*>("runReplayButton")->isEnabled());
    // And it can run again afterwards.
    v.findChild<QSpinBox*>("replayMaxTokens")->setValue(64);
    v.run();
    QVERIFY(done.wait(60000));
    QVERIFY(v.runner()->lastOutcome().status == ReplayOutcome::Status::done);
    QCOMPARE(v.runner()->lastOutcome().report.tokens, std::uint64_t{64});
  }

  void destroyingTheViewStopsTheWorker() {
    const QString path = dir_.filePath("long2.safetensors");
    sim::SynthOptions o;
    o.tokens = 16384;
    sim::write_synthetic_trace(path.toStdString(), o);
    auto* v = new ReplayView;
    v->setInput(path, ReplayRequest::Source::trace);
    QSignalSpy progress(v->runner(), &ReplayRunner::progress);
    v->run();
    QVERIFY(progress.wait(60000));
    QElapsedTimer t;
    t.start();
    delete v;  // cancels and joins
    QVERIFY(t.elapsed() < 30000);
  }

  void anUnreadableTraceIsAMessage() {
    const QString path = dir_.filePath("garbage.safetensors");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("\xff\xff\xff\xff\xff\xff\xff\x7f not a safetensors file");
    f.close();
    ReplayView v;
    v.show();
    v.setInput(path, ReplayRequest::Source::trace);
    QSignalSpy done(v.runner(), &ReplayRunner::finished);
    v.run();
    QVERIFY(done.wait(30000));
    QVERIFY(v.runner()->lastOutcome().status == ReplayOutcome::Status::failed);
    auto* banner = v.findChild<QLabel*>("replayErrorBanner");
    QVERIFY(banner->isVisible());
    QVERIFY2(banner->text().contains("garbage.safetensors"), qPrintable(banner->text()));
    // A missing file and a bad spec too.
    v.setInput(dir_.filePath("missing.safetensors"), ReplayRequest::Source::trace);
    v.run();
    QVERIFY(done.wait(30000));
    QVERIFY(v.runner()->lastOutcome().status == ReplayOutcome::Status::failed);
    QVERIFY(v.writeSyntheticTrace(64));
    auto* configs = v.findChild<QTableWidget*>("replayConfigs");
    configs->item(0, 0)->setText("kivi:bits=3");
    v.run();
    QVERIFY(done.wait(30000));
    QVERIFY(v.runner()->lastOutcome().status == ReplayOutcome::Status::failed);
    QVERIFY2(banner->text().contains("bits"), qPrintable(banner->text()));
  }

  void theModelInTheLoop() {
    const QString ckpt = modelDir() + "/stories260K.bin";
    if (!QFile::exists(ckpt))
      QSKIP(qPrintable("stories260K not found at " + modelDir() + " (set KVPLAN_TEST_MODEL_DIR)"));
    ReplayRequest r;
    r.source = ReplayRequest::Source::llama2c;
    r.path = ckpt.toStdString();
    r.steps = 96;
    r.eval_from = 16;
    r.configs = {{"fp16", "full", 16}, {"fp16", "streaming:sink=4,window=28", 16}};
    ReplayRunner runner;
    QVERIFY(runner.start(r));
    const ReplayOutcome o = waitForOutcome(&runner, 120000);
    QVERIFY2(o.status == ReplayOutcome::Status::done, qPrintable(o.error));
    QVERIFY(o.report.model_in_loop);
    QVERIFY(o.report.all_bytes_match());
    QVERIFY(o.report.configs[1].mean_kl > 0);
  }
};

QTEST_MAIN(TestGuiReplay)
#include "test_gui_replay.moc"
