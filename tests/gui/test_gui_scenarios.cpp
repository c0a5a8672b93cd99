// Scenarios: save -> load round-trips, saving is atomic and never loses the previous file,
// `kvplan check` accepts what the GUI saves, reports export, pins compare.
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QGroupBox>
#include <QImage>
#include <QLabel>
#include <QProcess>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "compare_view.hpp"
#include "deployment_diff.hpp"
#include "kvplan/deploy.hpp"
#include "kvplan/planner.hpp"
#include "main_window.hpp"
#include "plan_settings.hpp"
#include "planner_view.hpp"
#include "scenario_io.hpp"
#include "serving_view.hpp"

using namespace kvplan;
using namespace kvplan::gui;

namespace {

QByteArray readAll(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return f.readAll();
}

void writeText(const QString& path, const QByteArray& text) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
  f.write(text);
}

// Runs `kvplan check FILE`; -1 when the process did not run.
int runCheck(const QString& file, QString* output) {
  QProcess p;
  p.setProcessChannelMode(QProcess::MergedChannels);
  p.start(KVPLAN_EXE, {"check", file});
  if (!p.waitForFinished(60000)) return -1;
  *output = QString::fromUtf8(p.readAll());
  return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

// Opens `path` in a fresh window and saves it as `out`: empty, else what the window said.
QString openAndSave(const QString& path, const QString& out) {
  MainWindow w;
  if (!w.openDeployment(path)) return "open: " + w.lastError();
  if (!w.saveDeployment(out)) return "save: " + w.lastError();
  return {};
}

// Opens `path` in a fresh window, saves it beside itself and reads both through core: the
// fields in which they differ (deployment_diff), or what the window said; empty when none.
std::string openSaveDiff(const QString& path) {
  const QString out = path + ".saved.json";
  if (const QString error = openAndSave(path, out); !error.isEmpty()) return error.toStdString();
  return kvplan::test::deployment_diff(load_deploy(path.toStdString()),
                                       load_deploy(out.toStdString()));
}

bool checkCommandExists() {
  QProcess p;
  p.start(KVPLAN_EXE, {"check", "--help"});
  if (!p.waitForFinished(30000)) return false;
  return p.exitCode() == 0;
}

}  // namespace

class TestGuiScenarios : public QObject {
  Q_OBJECT

  // A deployment different from the defaults in every field the planner edits.
  static void configure(PlannerModel* m) {
    QVERIFY(m->loadModel("mistral-7b-v0.1"));
    m->setGpu("a100-80gb");
    m->setEngine(Engine::sglang);
    m->setGpus(4);
    m->setTp(2);
    m->setMemoryFractionPpm(850000);
    m->setBlockSize(32);
    m->setWeightDtype("fp8");
    m->setKvFormat("int8");
    m->setPolicy("h2o:keep=0.2,recent=0.1");
    m->setContext(24576);
    m->setConcurrency(40);
    QVERIFY2(m->message().isEmpty(), qPrintable(m->message()));
  }

 private Q_SLOTS:
  // scripts/screenshot.sh's --screenshot: every tab, and the What-if and SLO sizing tables that
  // share a tab with another, each a PNG of the window.
  void screenshotsCaptureEveryTab() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    MainWindow w;
    w.resize(1480, 940);
    w.show();
    QVERIFY2(w.screenshots(dir.path()), qPrintable(w.lastError()));
    const QStringList names{"planner.png", "planner-whatif.png", "compare.png",
                            "replay.png",  "serving.png",        "serving-slo.png"};
    QCOMPARE(QDir(dir.path()).entryList({"*.png"}, QDir::Files).size(), names.size());
    for (const QString& n : names) {
      QImage img(QDir(dir.path()).filePath(n));
      QVERIFY2(!img.isNull(), qPrintable(n));
      QVERIFY2(img.width() >= 1480 && img.height() >= 900, qPrintable(n));
    }
  }

  void saveLoadRoundTrips() {
    QTemporaryDir dir;
    const QString path = dir.filePath("deploy.json");
    MainWindow a;
    configure(a.planner());
    QVERIFY2(a.saveDeployment(path), qPrintable(a.lastError()));
    MainWindow b;
    QVERIFY2(b.openDeployment(path), qPrintable(b.lastError()));
    QVERIFY(b.planner()->settings().model_ref == a.planner()->settings().model_ref);
    PlanSettings sa = a.planner()->settings(), sb = b.planner()->settings();
    sa.extras.name = sb.extras.name;  // the file name becomes the deployment's name
    QVERIFY(sa == sb);
    QCOMPARE(b.planner()->results().capacity.max_requests,
             a.planner()->results().capacity.max_requests);
    // The widgets follow the loaded file.
    auto* ctx = b.plannerView()->findChild<QSpinBox*>("contextSpin");
    QCOMPARE(ctx->value(), 24576);
    auto* label = b.plannerView()->findChild<QLabel*>("maxConcurrencyValue");
    auto* label_a = a.plannerView()->findChild<QLabel*>("maxConcurrencyValue");
    QCOMPARE(label->text(), label_a->text());
    // Saving the loaded file again gives the same bytes.
    const QString again = dir.filePath("again.json");
    QVERIFY(b.saveDeployment(again));
    const Deployment d1 = load_deploy(path.toStdString());
    const Deployment d2 = load_deploy(again.toStdString());
    QCOMPARE(d1.plan.context, d2.plan.context);
    QCOMPARE(d1.plan.tp, d2.plan.tp);
    QCOMPARE(d1.plan.memory_fraction_ppm, d2.plan.memory_fraction_ppm);
    QVERIFY(d1.plan.format == d2.plan.format);
    QVERIFY(d1.plan.policy == d2.plan.policy);
  }

  void loadKeepsFieldsTheGuiDoesNotEdit() {
    QTemporaryDir dir;
    const QString path = dir.filePath("ci.json");
    writeText(path, R"({"kvplan_deploy": 1, "name": "prod-8b", "model": "llama-3.1-8b",
      "hardware": {"gpu": "h100-sxm-80gb", "gpus": 2, "price_per_hour": 3.5},
      "engine": {"name": "vllm", "tensor_parallel_size": 1, "max_model_len": 32768,
                 "max_num_seqs": 64, "gpu_memory_utilization": 0.92, "reserve_gib": 3,
                 "max_num_batched_tokens": 4096, "enable_expert_parallel": true},
      "compression": {"kv_format": "fp8"},
      "slo": {"context": 16384, "concurrency": 32, "min_kv_cache_tokens": 100000,
              "max_cost_per_hour": 20}})");
    // Every field the file states survives the GUI's open and save.
    const std::string diff = openSaveDiff(path);
    QVERIFY2(diff.empty(), diff.c_str());
  }

  // A disaggregated layout with each side's own settings survives the GUI's open and save, the
  // planner checks the prefill side as `kvplan check` does, and the serving view takes the
  // layout: its box checked and filled, the sides' settings with it.
  void loadKeepsADisaggregatedLayout() {
    QTemporaryDir dir;
    const QString path = dir.filePath("disagg.json");
    writeText(path, R"({"kvplan_deploy": 1, "model": "llama-3.1-8b",
      "hardware": {"gpu": "h100-sxm-80gb", "gpus": 3},
      "engine": {"name": "vllm", "max_model_len": 4096, "max_num_seqs": 256},
      "disaggregated": {"prefill": {"replicas": 2, "max_num_batched_tokens": 1024,
                                    "gpu_memory_utilization": 0.5},
                        "decode": {"replicas": 1, "max_num_seqs": 8,
                                   "engine": {"async_scheduling": false}},
                        "kv_link": "ndr400", "kv_link_latency_ms": 0.5,
                        "routing": "least_loaded"},
      "slo": {"concurrency": 8}})");
    const std::string diff = openSaveDiff(path);
    QVERIFY2(diff.empty(), diff.c_str());
    MainWindow w;
    QVERIFY(w.openDeployment(path));
    auto* box = w.servingView()->findChild<QGroupBox*>("disaggBox");
    QVERIFY(box);
    QVERIFY(box->isChecked());
    QCOMPARE(w.servingView()->findChild<QSpinBox*>("prefillReplicas")->value(), 2);
    QCOMPARE(w.servingView()->findChild<QComboBox*>("kvLink")->currentText(), QString("ndr400"));
    const ServingRequest r = w.servingView()->request();
    QVERIFY(r.disagg.has_value());
    QCOMPARE(r.disagg->kv_link_latency_ms, 0.5);
    QCOMPARE(r.disagg->prefill_side.max_num_batched_tokens.value_or(0), std::uint64_t{1024});
    QCOMPARE(r.disagg->decode_side.max_num_seqs.value_or(0), std::uint64_t{8});
  }

  // A DP-attention server (SGLang --tp 8 --dp 4 --enable-dp-attention --ep-size 4 as a file:
  // 4 groups of TP 2, the MoE layers' EP 4) survives the GUI's open and save.
  void loadKeepsDpAttention() {
    QTemporaryDir dir;
    const QString path = dir.filePath("dpa.json");
    writeText(path, R"({"kvplan_deploy": 1, "model": "qwen3-30b-a3b",
      "hardware": {"gpu": "h200-141gb"},
      "engine": {"name": "sglang", "tensor_parallel_size": 2, "max_model_len": 32768,
                 "attention_dp": 4, "moe_ep_size": 4},
      "slo": {"concurrency": 64}})");
    const QString out = dir.filePath("out.json");
    const QString error = openAndSave(path, out);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const Deployment a = load_deploy(path.toStdString());
    const Deployment b = load_deploy(out.toStdString());
    QCOMPARE(a.plan.gpus, 8u);  // one server: 4 groups of 2 GPUs
    QCOMPARE(b.plan.attention_dp, 4u);
    QCOMPARE(b.plan.moe_ep, 4u);
    const std::string diff = kvplan::test::deployment_diff(a, b);
    QVERIFY2(diff.empty(), diff.c_str());
  }

  // Each engine's own keys, the state dtypes, the pool cap, per-rank memory, the KV tiers and
  // the node survive the GUI's open and save, and the planner plans with them: the view's
  // verdict is the one `kvplan check` gives the same file.
  void loadKeepsEachEnginesOptionsAndTiers() {
    const char* files[] = {
        R"({"kvplan_deploy": 1, "model": "qwen3-next-80b-a3b",
          "hardware": {"gpu": "h200-141gb", "gpus": 2, "node_memory_gib": 2048},
          "engine": {"name": "sglang", "tensor_parallel_size": 2, "max_model_len": 32768,
                     "mamba_ssm_dtype": "bfloat16", "max_total_tokens": 200000,
                     "max_mamba_cache_size": 300, "scheduler_recv_interval": 30,
                     "disable_overlap_schedule": true},
          "offload": {"hicache": {"ratio": 2.0}},
          "slo": {"concurrency": 16}})",
        R"({"kvplan_deploy": 1, "model": "qwen3-next-80b-a3b",
          "hardware": {"gpu": "h100-sxm-80gb", "gpus": 4},
          "engine": {"name": "vllm", "tensor_parallel_size": 4, "max_model_len": 32768,
                     "available_kv_gib": [20, 21, 22, 23],
                     "mamba_cache_dtype": "float32", "async_scheduling": false,
                     "decode_context_parallel_size": 1, "num_gpu_blocks_override": 900},
          "offload": {"kv_offloading_size_gib": 64},
          "slo": {"concurrency": 8}})",
        R"({"kvplan_deploy": 1, "model": "gpt-oss-20b",
          "hardware": {"gpu": "h100-sxm-80gb"},
          "engine": {"name": "trtllm", "max_model_len": 8192, "backend": "tensorrt",
                     "max_attention_window": [128, 8192], "max_tokens": 50000},
          "offload": {"host_cache_size": 10737418240},
          "slo": {"concurrency": 4}})"};
    int i = 0;
    for (const char* text : files) {
      QTemporaryDir dir;
      const QString path = dir.filePath(QString("engine-%1.json").arg(i++));
      writeText(path, text);
      const std::string diff = openSaveDiff(path);
      QVERIFY2(diff.empty(), (path.toStdString() + "\n" + diff).c_str());
      const Deployment a = load_deploy(path.toStdString());
      // The planner's deployment is the file's: the same capacity as core plans the file.
      QString why;
      const auto loaded = load_deployment(path, &why);
      QVERIFY2(loaded.has_value(), qPrintable(why));
      const Deployment form =
          planner_deployment(loaded->model, loaded->settings, resolve_gpu(loaded->settings));
      QCOMPARE(plan_capacity(form.model, form.plan).kv_cache_tokens,
               plan_capacity(a.model, a.plan).kv_cache_tokens);
    }
  }

  // Picking another engine drops the loaded engine's own settings (options, state dtypes, pool
  // cap, KV tiers), so the file saved is the form's; another TP drops a per-rank memory list,
  // which holds one figure a rank of the loaded layout, and still plans.
  void engineAndLayoutChangesDropWhatNoLongerApplies() {
    QTemporaryDir dir;
    const QString path = dir.filePath("v.json");
    writeText(path, R"({"kvplan_deploy": 1, "model": "qwen3-next-80b-a3b",
      "hardware": {"gpu": "h100-sxm-80gb", "gpus": 4},
      "engine": {"name": "vllm", "tensor_parallel_size": 4, "max_model_len": 32768,
                 "available_kv_gib": [20, 21, 22, 23], "mamba_cache_dtype": "float32",
                 "async_scheduling": false},
      "offload": {"kv_offloading_size_gib": 64},
      "slo": {"concurrency": 8}})");
    MainWindow w;
    QVERIFY2(w.openDeployment(path), qPrintable(w.lastError()));
    w.planner()->setTp(2);
    QVERIFY2(w.planner()->message().isEmpty(), qPrintable(w.planner()->message()));
    QVERIFY(w.planner()->settings().extras.available_kv_bytes_per_rank.empty());
    w.planner()->setEngine(Engine::sglang);
    QVERIFY2(w.planner()->message().isEmpty(), qPrintable(w.planner()->message()));
    const QString out = dir.filePath("out.json");
    QVERIFY2(w.saveDeployment(out), qPrintable(w.lastError()));
    const Deployment b = load_deploy(out.toStdString());
    QVERIFY(b.plan.engine == Engine::sglang);
    QVERIFY(!b.plan.conv_state_dtype.has_value());
    QVERIFY(!b.host_tiers.any());
    QCOMPARE(b.plan.tp, 2u);
    // The smallest figure stays, as one figure for every rank.
    QCOMPARE(b.plan.available_kv_bytes.value_or(0), std::uint64_t{20} << 30);
  }

  void saveWritesWhatCoreWritesAndKeepsEngineRules() {
    QTemporaryDir dir;
    const QString path = dir.filePath("old-vllm.json");
    writeText(path, R"({"kvplan_deploy": 1, "name": "old", "model": "llama-3.1-8b",
      "hardware": {"gpu": "h100-sxm-80gb"},
      "engine": {"name": "vllm@0.9", "max_model_len": 16384, "enforce_eager": true},
      "slo": {"concurrency": 8, "mean_context": 4096}})");
    MainWindow w;
    QVERIFY2(w.openDeployment(path), qPrintable(w.lastError()));
    const QString out = dir.filePath("out.json");
    QVERIFY2(w.saveDeployment(out), qPrintable(w.lastError()));
    const Deployment a = load_deploy(path.toStdString());
    const Deployment b = load_deploy(out.toStdString());
    QVERIFY(b.plan.vllm().rules == VllmRules::v0_9);
    QCOMPARE(b.cuda_graphs, false);
    QCOMPARE(b.slo.mean_context, a.slo.mean_context);
    // The bytes on disk are core's own writing of that deployment.
    QCOMPARE(readAll(out).toStdString(), to_json(b, "llama-3.1-8b"));
  }

  void customGpuMemoryRoundTrips() {
    QTemporaryDir dir;
    const QString path = dir.filePath("custom.json");
    writeText(path, R"({"kvplan_deploy": 1, "model": "llama-3.1-8b",
      "hardware": {"gpu_memory_gib": 47.5, "gpus": 1},
      "engine": {"name": "vllm", "max_model_len": 8192}, "slo": {"concurrency": 4}})");
    MainWindow w;
    QVERIFY2(w.openDeployment(path), qPrintable(w.lastError()));
    QCOMPARE(w.planner()->settings().gpu_id, std::string("custom"));
    const Deployment a = load_deploy(path.toStdString());
    QCOMPARE(w.planner()->results().capacity.max_requests, run_check(a).capacity.max_requests);
    const QString out = dir.filePath("out.json");
    QVERIFY2(w.saveDeployment(out), qPrintable(w.lastError()));
    QCOMPARE(load_deploy(out.toStdString()).gpu.memory_bytes, a.gpu.memory_bytes);
  }

  void failedSaveKeepsThePreviousFile() {
    QTemporaryDir dir;
    const QString path = dir.filePath("deploy.json");
    MainWindow w;
    QVERIFY(w.saveDeployment(path));
    const QByteArray before = readAll(path);
    QVERIFY(!before.isEmpty());
    // Settings core refuses (TP 3 does not divide Llama's heads): nothing is written.
    w.planner()->setTp(3);
    QVERIFY(!w.saveDeployment(path));
    QVERIFY2(w.lastError().contains("tensor"), qPrintable(w.lastError()));
    QCOMPARE(readAll(path), before);
    w.planner()->setTp(1);
    w.planner()->setKvFormat("kivi:bits=3");
    QVERIFY(!w.saveDeployment(path));
    QCOMPARE(readAll(path), before);
    // An unwritable target (a directory in the way): a message, no crash, no stray file.
    w.planner()->setKvFormat("fp8");
    QVERIFY(QDir(dir.path()).mkdir("taken.json"));
    QVERIFY(!w.saveDeployment(dir.filePath("taken.json")));
    QVERIFY(!w.lastError().isEmpty());
    QVERIFY(!w.saveDeployment(dir.filePath("missing/dir/deploy.json")));
    // A good save replaces the file, and only temp-free content remains in the folder.
    QVERIFY(w.saveDeployment(path));
    QVERIFY(readAll(path) != before);
    QStringList files = QDir(dir.path()).entryList(QDir::Files);
    QCOMPARE(files, QStringList{"deploy.json"});
  }

  void malformedDeploymentIsAMessage() {
    QTemporaryDir dir;
    const QString path = dir.filePath("bad.json");
    writeText(path, R"({"kvplan_deploy": 1, "model": "llama-3.1-8b",
      "hardware": {"gpu": "h100-sxm-80gb"}, "engine": {"name": "vllm", "tensor_parallel_size": 3},
      "slo": {"concurrency": 4}})");
    MainWindow w;
    const PlanSettings before = w.planner()->settings();
    QVERIFY(!w.openDeployment(path));
    QVERIFY2(w.lastError().contains("tensor_parallel_size"), qPrintable(w.lastError()));
    QVERIFY(w.planner()->settings() == before);
    auto* banner = w.plannerView()->findChild<QLabel*>("errorBanner");
    QVERIFY(!banner->isHidden());
    writeText(path, "{");
    QVERIFY(!w.openDeployment(path));
    QVERIFY(w.planner()->settings() == before);
  }

  void kvplanCheckAcceptsTheSavedFile() {
    if (!checkCommandExists()) QSKIP("kvplan check is not built yet");
    QTemporaryDir dir;
    MainWindow w;
    const QString ok = dir.filePath("ok.json");
    QVERIFY(w.saveDeployment(ok));  // llama-3.1-8b, one H100, 8K x 16 fp16: fits
    QString out;
    QCOMPARE(runCheck(ok, &out), 0);
    // A plan that does not fit is still a valid file: check fails (1), not invalid input (2).
    w.planner()->setConcurrency(100000);
    const QString fail = dir.filePath("fail.json");
    QVERIFY(w.saveDeployment(fail));
    QCOMPARE(runCheck(fail, &out), 1);
    // A HF config.json model next to the file is saved as a relative path check resolves.
    QVERIFY(w.planner()->loadModel(QString(KVPLAN_TEST_DATA_DIR) + "/hf/qwen2.5-7b.json"));
    w.planner()->setConcurrency(4);
    QVERIFY(QFile::copy(QString(KVPLAN_TEST_DATA_DIR) + "/hf/qwen2.5-7b.json",
                        dir.filePath("qwen.json")));
    QVERIFY(w.planner()->loadModel(dir.filePath("qwen.json")));
    const QString hf = dir.filePath("hf.json");
    QVERIFY2(w.saveDeployment(hf), qPrintable(w.lastError()));
    QVERIFY(readAll(hf).contains("\"model\": \"qwen.json\""));
    QCOMPARE(runCheck(hf, &out), 0);
  }

  void exportWritesMarkdownAndChart() {
    QTemporaryDir dir;
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    w.planner()->pin(0);
    w.planner()->setKvFormat("fp8");
    w.planner()->pin(1);
    const QString md = dir.filePath("plan.md");
    QVERIFY2(w.exportReport(md), qPrintable(w.lastError()));
    const QByteArray text = readAll(md);
    QVERIFY(text.contains("# kvplan capacity plan"));
    QVERIFY(text.contains("plan-chart.png"));
    QVERIFY(text.contains("Pinned scenario B"));
    // The tables are core's renderers' (what `kvplan plan` and `kvplan check` print).
    QVERIFY(text.contains("## Plan (what `kvplan plan` reports)"));
    QVERIFY(text.contains("## Deployment check (what `kvplan check` reports)"));
    QVERIFY(QFile::exists(dir.filePath("plan-chart.png")));
    QImage img(dir.filePath("plan-chart.png"));
    QVERIFY(img.width() > 100 && img.height() > 100);
  }

  void pinsCompareSideBySide() {
    MainWindow w;
    w.planner()->pin(0);
    w.planner()->setKvFormat("kivi:bits=2,group=32,residual=128");
    w.planner()->pin(1);
    auto* t = w.compareView()->table()->model();
    int row = -1;
    for (int i = 0; i < t->rowCount(); ++i)
      if (t->headerData(i, Qt::Vertical).toString() == "KV format") row = i;
    QVERIFY(row >= 0);
    QCOMPARE(t->index(row, 0).data().toString(), QString("fp16"));
    QCOMPARE(t->index(row, 1).data().toString(), QString("kivi:bits=2,group=32,residual=128"));
    QCOMPARE(t->index(row, 2).data().toString(), QString("changed"));
    const auto& a = *w.planner()->pinned(0);
    const auto& b = *w.planner()->pinned(1);
    QVERIFY(b.capacity.max_requests > a.capacity.max_requests);
  }
};

QTEST_MAIN(TestGuiScenarios)
#include "test_gui_scenarios.moc"
