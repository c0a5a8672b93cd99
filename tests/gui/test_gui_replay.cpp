// The replay view runs the simulator on a worker thread: it completes with predicted == measured
// bytes, it can be cancelled while the window keeps processing events (on one CPU too), and an
// unreadable trace is a message, not a crash.
#include <QElapsedTimer>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QtTest>

#include "kvplan/sim/synth.hpp"
#include "replay_runner.hpp"
#include "replay_view.hpp"

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
    auto* table = v.findChild<QTableWidget*>("replayResults");
    QCOMPARE(table->rowCount(), 8);
    QCOMPARE(table->item(0, 4)->text(), QString("yes"));
    QCOMPARE(v.findChild<QProgressBar*>("replayProgress")->value(), 100);
    QVERIFY(v.findChild<QPushButton*>("runReplayButton")->isEnabled());
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
