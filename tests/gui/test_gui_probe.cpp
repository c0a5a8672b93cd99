// The replay view's retrieval probe: the runner runs it after the replay through the same
// configurations, and the results table shows each configuration's probe figures beside KL,
// top-1 and perplexity, with the library's verdict above it.
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTableWidget>
#include <QThreadPool>
#include <QtTest>

#include "kvplan/sim/probe.hpp"
#include "replay_runner.hpp"
#include "replay_view.hpp"

using namespace kvplan;
using namespace kvplan::gui;

namespace {

QString modelDir() {
  const QByteArray env = qgetenv("KVPLAN_TEST_MODEL_DIR");
  return env.isEmpty() ? QString(KVPLAN_TEST_MODEL_DIR_DEFAULT) : QString::fromLocal8Bit(env);
}

// The column whose header reads `header` (the headers break into two lines: "probe\naccuracy").
int column(const QAbstractItemModel* m, const QString& header) {
  for (int c = 0; c < m->columnCount(); ++c)
    if (m->headerData(c, Qt::Horizontal).toString().replace('\n', ' ') == header) return c;
  return -1;
}

}  // namespace

class TestGuiProbe : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { QThreadPool::globalInstance()->setMaxThreadCount(1); }

  void theNeedleProbeShowsBesideTheReplay() {
    const QString ckpt = modelDir() + "/stories260K.bin";
    if (!QFile::exists(ckpt))
      QSKIP(qPrintable("stories260K not found at " + modelDir() + " (set KVPLAN_TEST_MODEL_DIR)"));
    ReplayView v;
    v.resize(1400, 900);
    v.show();
    v.setInput(ckpt, ReplayRequest::Source::llama2c);
    auto* configs = v.findChild<QTableWidget*>("replayConfigs");
    QVERIFY(configs);
    // Only fp16 full and one window: uncheck the defaults, add the window row.
    for (int i = 0; i < configs->rowCount(); ++i)
      configs->item(i, 0)->setCheckState(i == 0 ? Qt::Checked : Qt::Unchecked);
    configs->setRowCount(configs->rowCount() + 1);
    const int row = configs->rowCount() - 1;
    auto* f = new QTableWidgetItem("fp16");
    f->setCheckState(Qt::Checked);
    configs->setItem(row, 0, f);
    configs->setItem(row, 1, new QTableWidgetItem("streaming:sink=4,window=32"));
    configs->setItem(row, 2, new QTableWidgetItem("16"));
    v.findChild<QSpinBox*>("replaySteps")->setValue(48);
    auto* probe = v.findChild<QComboBox*>("replayProbe");
    QVERIFY(probe);
    probe->setCurrentIndex(probe->findData("needle"));
    v.findChild<QSpinBox*>("replayProbeSpan")->setValue(8);
    v.findChild<QSpinBox*>("replayProbeCue")->setValue(2);
    v.findChild<QSpinBox*>("replayProbeFiller")->setValue(128);
    v.findChild<QDoubleSpinBox*>("replayProbeDepth")->setValue(0.25);
    v.findChild<QSpinBox*>("replayProbePrompts")->setValue(2);

    QSignalSpy done(v.runner(), &ReplayRunner::finished);
    v.findChild<QPushButton*>("runReplayButton")->click();
    QVERIFY(done.wait(120000));
    const ReplayOutcome& o = v.runner()->lastOutcome();
    QVERIFY2(o.status == ReplayOutcome::Status::done, qPrintable(o.error));
    QVERIFY(o.probe.has_value());
    // fp32 | full first, then the two configurations the replay ran.
    QCOMPARE(o.probe->results.size(), std::size_t{3});
    QCOMPARE(o.probe->results[0].label, std::string("fp32 | full | S=16"));

    auto* view = v.findChild<QTableView*>("replayResults");
    QVERIFY(view);
    const QAbstractItemModel* results = view->model();
    const int kept = column(results, "needle kept");
    const int mass = column(results, "needle mass");
    QVERIFY(kept >= 0 && mass >= 0);
    QCOMPARE(results->rowCount(), 2);
    const auto text = [&](int row, int col) { return results->index(row, col).data().toString(); };
    // Needle at 33..40, question ends at P = 1 + 128 + 8 + 2 - 1 = 138: fp16 full keeps all of it
    // in every layer; a window of 32 keeps 107..138 and the sinks 0..3, none of it, mass 0.
    QCOMPARE(text(0, kept), QString("100.00 %"));
    QCOMPARE(text(1, kept), QString("0.00 %"));
    QCOMPARE(text(1, mass), QString("0.00 %"));
    // Per layer in the tool tip: stories260K has 5 layers (its README), all of the needle kept.
    QCOMPARE(results->index(0, kept).data(Qt::ToolTipRole).toString(),
             QString("L0 100.00 %, L1 100.00 %, L2 100.00 %, L3 100.00 %, L4 100.00 %"));
    // Each row beside the probe's result of the same label, as the library gave it.
    for (int row = 0; row < 2; ++row) {
      const sim::ProbeResult& p = o.probe->results[static_cast<std::size_t>(row) + 1];
      QCOMPARE(text(row, 0), QString::fromStdString(p.label));
      double sum = 0;
      for (double x : p.layer_mass) sum += x;
      QCOMPARE(results->index(row, mass).data(Qt::UserRole).toDouble(),
               sum / static_cast<double>(p.layer_mass.size()));
      // The accuracies show only where the model can do the task.
      const int acc = column(results, "probe accuracy");
      if (o.probe->model_can_do)
        QCOMPARE(results->index(row, acc).data(Qt::UserRole).toDouble(), p.accuracy);
      else
        QCOMPARE(text(row, acc), QString("—"));
    }
    auto* verdict = v.findChild<QLabel*>("replayProbeVerdict");
    QVERIFY(verdict);
    QVERIFY(verdict->isVisible());
    QCOMPARE(verdict->text(),
             QString::fromStdString("Needle probe: " + sim::probe_verdict(*o.probe)));
  }

  void aProbeOnATraceIsAMessage() {
    ReplayRequest r;
    r.source = ReplayRequest::Source::trace;
    r.path = "/nonexistent.safetensors";
    r.configs = {{"fp16", "full", 16}};
    r.probe = "copy";
    try {
      (void)run_probe(r, {});
      QFAIL("no error");
    } catch (const Error& e) {
      QCOMPARE(QString::fromStdString(e.field()), QString("probe"));
    }
  }
};

QTEST_MAIN(TestGuiProbe)
#include "test_gui_probe.moc"
