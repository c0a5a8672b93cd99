#include "serving_view.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <exception>

#include "deploy_form.hpp"
#include "kvplan/error.hpp"
#include "kvplan/gpu.hpp"
#include "kvplan/sim/serving_report.hpp"
#include "kvplan/sim/workload.hpp"
#include "serving_charts.hpp"
#include "serving_tables.hpp"
#include "ui_format.hpp"
#include "widgets.hpp"

namespace kvplan::gui {
namespace {

// The preview draws at most this many requests (the run itself takes the library's limits).
constexpr std::uint64_t kPreviewRequests = 200'000;
constexpr int kContextSpinMax = 1 << 24;

const char* const kDists[] = {"fixed",   "normal",      "lognormal",
                              "uniform", "exponential", "histogram"};

QDoubleSpinBox* tokenSpin(const QString& name, bool optional) {
  auto* s = new QDoubleSpinBox;
  s->setObjectName(name);
  s->setDecimals(0);
  s->setRange(0, 4294967296.0);  // token counts lie in [1, 2^32] (docs/simulate.md)
  s->setGroupSeparatorShown(true);
  s->setKeyboardTracking(false);
  if (optional) s->setSpecialValueText("none");
  return s;
}

QSpinBox* countSpin(const QString& name, int lo, int hi, int value) {
  auto* s = new QSpinBox;
  s->setObjectName(name);
  s->setRange(lo, hi);
  s->setValue(value);
  s->setGroupSeparatorShown(true);
  s->setKeyboardTracking(false);
  return s;
}

QDoubleSpinBox* msSpin(const QString& name) {
  auto* s = new QDoubleSpinBox;
  s->setObjectName(name);
  s->setDecimals(1);
  s->setRange(0, 1e7);
  s->setSuffix(" ms");
  s->setSpecialValueText("no limit");
  s->setKeyboardTracking(false);
  return s;
}

// The distribution the widgets show, `key` its document key ("prompt_tokens"). min and max clip
// every distribution, histograms included (simulator/src/workload.cpp, read_dist); 0 is "none"
// there, as no token count is 0. The bins' text is read by the library, whose error names the
// cell ("/prompt_tokens/bins/0/2").
LengthDist distOf(const LengthDistWidgets& w, const std::string& source, const std::string& key) {
  LengthDist d;
  d.dist = w.dist->currentText().toStdString();
  d.mean = w.mean->value();
  d.std = w.std->value();
  if (d.dist == "histogram")
    d.bins = sim::parse_bins_json(w.bins->text().toStdString(), source, "/" + key + "/bins");
  if (w.min->value() > 0) d.min = w.min->value();
  if (w.max->value() > 0) d.max = w.max->value();
  return d;
}

// `now` unless it still reads as the editor showed `loaded` (`shown`): then `loaded`, so a value
// the widgets round or clamp survives until the user edits that field.
template <class T>
T keep(const T& loaded, const T& shown, const T& now) {
  return now == shown ? loaded : now;
}

LengthDist keepDist(const LengthDist& l, const LengthDist& s, const LengthDist& n) {
  LengthDist d;
  d.dist = keep(l.dist, s.dist, n.dist);
  d.mean = keep(l.mean, s.mean, n.mean);
  d.std = keep(l.std, s.std, n.std);
  d.min = keep(l.min, s.min, n.min);
  d.max = keep(l.max, s.max, n.max);
  d.bins = keep(l.bins, s.bins, n.bins);
  return d;
}

std::optional<PrefixSpec> keepPrefix(const std::optional<PrefixSpec>& l,
                                     const std::optional<PrefixSpec>& s,
                                     const std::optional<PrefixSpec>& n) {
  if (!n || !s || !l) return n;  // switched on or off, or nothing was loaded
  return PrefixSpec{keep(l->groups, s->groups, n->groups),
                    keep(l->shared_tokens, s->shared_tokens, n->shared_tokens),
                    keep(l->prompt_pool, s->prompt_pool, n->prompt_pool)};
}

// The shortest text that reads back as `x` (0.1, not 0.10000000000000001).
QString numText(double x) { return QString::number(x, 'g', QLocale::FloatingPointShortest); }

QString optText(const std::optional<double>& x) { return x ? numText(*x) : QString("none"); }

// The fields (JSON pointers) where `kept` differs from what the editor shows, with kept's value.
void distDiffs(const QString& key, const LengthDist& kept, const LengthDist& shown,
               QStringList& out) {
  if (kept.dist != shown.dist) out << key + "/dist = " + qs(kept.dist);
  if (kept.mean != shown.mean) out << key + "/mean = " + numText(kept.mean);
  if (kept.std != shown.std) out << key + "/std = " + numText(kept.std);
  if (kept.min != shown.min) out << key + "/min = " + optText(kept.min);
  if (kept.max != shown.max) out << key + "/max = " + optText(kept.max);
  if (kept.bins != shown.bins) out << key + "/bins = " + qs(sim::bins_to_json(kept.bins));
}

QStringList specDiffs(const WorkloadSpec& kept, const WorkloadSpec& shown) {
  QStringList out;
  if (kept.arrival != shown.arrival) out << "/arrival = " + qs(kept.arrival);
  if (kept.cv != shown.cv) out << "/arrival/cv = " + numText(kept.cv);
  if (kept.stages != shown.stages) out << "/stages";
  distDiffs("/prompt_tokens", kept.prompt, shown.prompt, out);
  distDiffs("/output_tokens", kept.output, shown.output, out);
  if (kept.prefix && shown.prefix) {
    if (kept.prefix->groups != shown.prefix->groups)
      out << "/prefix/groups = " + QString::number(kept.prefix->groups);
    if (kept.prefix->shared_tokens != shown.prefix->shared_tokens)
      out << "/prefix/shared_tokens = " + QString::number(kept.prefix->shared_tokens);
    if (kept.prefix->prompt_pool != shown.prefix->prompt_pool)
      out << "/prefix/prompt_pool = " + QString::number(kept.prefix->prompt_pool);
  }
  return out;
}

// A stage cell as a number; an empty or non-numeric cell is an error naming it, as the
// document's parser names its fields.
double stageCell(const QTableWidget* t, int row, int column, const std::string& source) {
  const std::string field =
      "/stages/" + std::to_string(row) + (column == 0 ? "/rate" : "/duration_s");
  const QTableWidgetItem* item = t->item(row, column);
  const QString text = item ? item->text().trimmed() : QString();
  bool ok = false;
  const double x = text.toDouble(&ok);
  if (!ok)
    throw Error(source, field,
                text.isEmpty() ? std::string("missing: expected a number")
                               : "expected a number, got \"" + text.toStdString() + "\"");
  return x;
}

// Enables the fields the distribution uses (docs/simulate.md, "Length distributions").
void enableDistFields(const LengthDistWidgets& w) {
  const QString d = w.dist->currentText();
  const bool hist = d == "histogram";
  w.mean->setEnabled(d != "uniform" && !hist);
  w.std->setEnabled(d == "normal" || d == "lognormal");
  w.min->setEnabled(true);  // a clip for every distribution
  w.max->setEnabled(true);
  w.bins->setEnabled(hist);
}

void setDist(const LengthDistWidgets& w, const LengthDist& d) {
  const QSignalBlocker b0(w.dist), b1(w.mean), b2(w.std), b3(w.min), b4(w.max), b5(w.bins);
  w.dist->setCurrentText(qs(d.dist));
  w.mean->setValue(d.mean);
  w.std->setValue(d.std);
  w.min->setValue(d.min.value_or(0));
  w.max->setValue(d.max.value_or(0));
  w.bins->setText(qs(sim::bins_to_json(d.bins)));
  enableDistFields(w);
}

}  // namespace

ServingView::ServingView(PlannerModel* model, QWidget* parent)
    : QWidget(parent), model_(model), runner_(new ServingRunner(this)) {
  preview_timer_ = new QTimer(this);
  preview_timer_->setSingleShot(true);
  preview_timer_->setInterval(250);
  connect(preview_timer_, &QTimer::timeout, this, [this] { updateHistograms(); });

  auto* split = new QSplitter(Qt::Horizontal);
  split->addWidget(buildInputs());
  split->addWidget(buildResults());
  split->setStretchFactor(0, 0);
  split->setStretchFactor(1, 1);
  split->setChildrenCollapsible(false);
  auto* l = new QHBoxLayout(this);
  l->setContentsMargins(4, 4, 4, 4);
  l->addWidget(split);

  connect(runner_, &ServingRunner::started, this, [this] { setBusy(true); });
  connect(runner_, &ServingRunner::progress, this, [this](int permille) {
    progress_->setValue(permille);
    status_->setText(QString("Simulating… %1%").arg(permille / 10.0, 0, 'f', 1));
  });
  connect(runner_, &ServingRunner::finished, this, &ServingView::showOutcome);
  connect(model_, &PlannerModel::settingsChanged, this, &ServingView::syncDeployment);
  connect(model_, &PlannerModel::modelChanged, this, &ServingView::syncDeployment);
  setWorkloadSpec(exampleWorkload());
  syncDeployment();
  updateHistograms();
}

QWidget* ServingView::buildInputs() {
  auto* inner = new QWidget;
  auto* col = new QVBoxLayout(inner);
  auto* files = new QHBoxLayout;
  auto* load = new QPushButton("Open workload…");
  load->setObjectName("openWorkloadButton");
  connect(load, &QPushButton::clicked, this, [this] {
    const QString p = QFileDialog::getOpenFileName(this, "Open a workload", QString(),
                                                   "kvplan_workload JSON (*.json);;All files (*)");
    if (!p.isEmpty()) loadWorkload(p);
  });
  auto* save = new QPushButton("Save workload…");
  save->setObjectName("saveWorkloadButton");
  connect(save, &QPushButton::clicked, this, [this] {
    const QString p = QFileDialog::getSaveFileName(this, "Save the workload", "workload.json",
                                                   "kvplan_workload JSON (*.json)");
    if (!p.isEmpty()) saveWorkload(p);
  });
  files->addWidget(load);
  files->addWidget(save);
  col->addLayout(files);
  notice_ = new QLabel;
  notice_->setObjectName("workloadNotice");
  notice_->setWordWrap(true);
  notice_->setVisible(false);
  col->addWidget(notice_);
  col->addWidget(buildArrivalBox());
  col->addWidget(buildLengthBox("Prompt tokens", prompt_, "prompt"));
  col->addWidget(buildLengthBox("Output tokens", output_, "output"));
  col->addWidget(buildPrefixBox());
  col->addWidget(buildDeploymentBox());
  col->addWidget(buildSchedulerBox());
  col->addWidget(buildSloBox());
  col->addWidget(buildSweepBox());
  col->addWidget(buildDisaggBox());

  auto* buttons = new QHBoxLayout;
  run_ = new QPushButton("Run");
  run_->setObjectName("servingRunButton");
  connect(run_, &QPushButton::clicked, this, &ServingView::run);
  cancel_ = new QPushButton("Cancel");
  cancel_->setObjectName("servingCancelButton");
  cancel_->setEnabled(false);
  connect(cancel_, &QPushButton::clicked, this, &ServingView::cancel);
  buttons->addWidget(run_);
  buttons->addWidget(cancel_);
  col->addLayout(buttons);
  progress_ = new QProgressBar;
  progress_->setObjectName("servingProgress");
  progress_->setRange(0, 1000);
  progress_->setTextVisible(false);
  col->addWidget(progress_);
  status_ = new QLabel("Ready");
  status_->setObjectName("servingStatus");
  status_->setWordWrap(true);
  col->addWidget(status_);
  col->addStretch(1);
  return makeSettingsScroll(inner, inner->sizeHint().width() + 24);
}

// Arrivals: the process, gamma's cv, the stages (rate, duration) and the seed.
QGroupBox* ServingView::buildArrivalBox() {
  auto* box = new QGroupBox("Arrivals");
  auto* f = new QFormLayout(box);
  arrival_ = new QComboBox;
  arrival_->setObjectName("arrivalCombo");
  arrival_->addItems({"poisson", "constant", "gamma"});
  connect(arrival_, &QComboBox::currentIndexChanged, this, [this] {
    cv_->setEnabled(arrival_->currentText() == "gamma");
    editorChanged();
  });
  f->addRow("Process", arrival_);
  cv_ = new QDoubleSpinBox;
  cv_->setObjectName("arrivalCv");
  cv_->setRange(0.01, 10);
  cv_->setDecimals(2);
  cv_->setKeyboardTracking(false);
  cv_->setToolTip("Coefficient of variation of the gaps: 1 is Poisson, above 1 burstier");
  connect(cv_, &QDoubleSpinBox::valueChanged, this, &ServingView::editorChanged);
  f->addRow("Gamma cv", cv_);
  stages_ = new QTableWidget(0, 2);
  stages_->setObjectName("stagesTable");
  stages_->setHorizontalHeaderLabels({"rate (req/s)", "duration (s)"});
  stages_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  stages_->setMinimumHeight(90);
  connect(stages_, &QTableWidget::itemChanged, this, &ServingView::editorChanged);
  f->addRow(stages_);
  auto* add = new QPushButton("Add stage");
  add->setObjectName("addStageButton");
  connect(add, &QPushButton::clicked, this, [this] {
    const QSignalBlocker b(stages_);
    const int r = stages_->rowCount();
    stages_->insertRow(r);
    stages_->setItem(r, 0, new QTableWidgetItem("1"));
    stages_->setItem(r, 1, new QTableWidgetItem("60"));
    editorChanged();
  });
  auto* remove = new QPushButton("Remove stage");
  remove->setObjectName("removeStageButton");
  connect(remove, &QPushButton::clicked, this, [this] {
    if (stages_->rowCount() <= 1) return;
    const int r = stages_->currentRow() >= 0 ? stages_->currentRow() : stages_->rowCount() - 1;
    stages_->removeRow(r);
    editorChanged();
  });
  auto* row = new QHBoxLayout;
  row->addWidget(add);
  row->addWidget(remove);
  f->addRow(row);
  seed_ = countSpin("workloadSeed", 0, 2147483647, 1);
  connect(seed_, &QSpinBox::valueChanged, this, &ServingView::editorChanged);
  f->addRow("Seed", seed_);
  return box;
}

// One length distribution: its kind and the parameters that kind uses.
QGroupBox* ServingView::buildLengthBox(const QString& title, LengthDistWidgets& w,
                                       const QString& name) {
  auto* box = new QGroupBox(title);
  auto* f = new QFormLayout(box);
  w.dist = new QComboBox;
  w.dist->setObjectName(name + "Dist");
  for (const char* d : kDists) w.dist->addItem(d);
  w.mean = tokenSpin(name + "Mean", false);
  w.std = tokenSpin(name + "Std", false);
  w.min = tokenSpin(name + "Min", true);
  w.max = tokenSpin(name + "Max", true);
  w.bins = new QLineEdit;
  w.bins->setObjectName(name + "Bins");
  w.bins->setPlaceholderText("[[1, 256, 0.41], [257, 1024, 0.37]]");
  w.bins->setToolTip("Histogram bins [lo, hi, weight]: a bin by weight, then uniform in [lo, hi]");
  f->addRow("Distribution", w.dist);
  f->addRow("Mean", w.mean);
  f->addRow("Std", w.std);
  f->addRow("Min", w.min);
  f->addRow("Max", w.max);
  f->addRow("Bins", w.bins);
  const LengthDistWidgets copy = w;
  connect(w.dist, &QComboBox::currentIndexChanged, this, [this, copy] {
    enableDistFields(copy);
    editorChanged();
  });
  for (QDoubleSpinBox* s : {w.mean, w.std, w.min, w.max})
    connect(s, &QDoubleSpinBox::valueChanged, this, &ServingView::editorChanged);
  connect(w.bins, &QLineEdit::editingFinished, this, &ServingView::editorChanged);
  return box;
}

// Shared prefixes: N system prompts of P tokens, and the prompt pool that makes prompts recur.
QGroupBox* ServingView::buildPrefixBox() {
  prefix_box_ = new QGroupBox("Shared prefixes");
  prefix_box_->setObjectName("prefixBox");
  prefix_box_->setCheckable(true);
  auto* f = new QFormLayout(prefix_box_);
  groups_ = countSpin("prefixGroups", 1, 1'000'000, 10);
  shared_tokens_ = countSpin("prefixSharedTokens", 1, 2147483647, 100);
  prompt_pool_ = countSpin("promptPool", 0, 1'000'000, 0);
  prompt_pool_->setSpecialValueText("none");
  prompt_pool_->setToolTip(
      "Distinct prompts that recur (a multiple of the groups), as "
      "inference-perf's shared-prefix generator");
  f->addRow("System prompts", groups_);
  f->addRow("Tokens each", shared_tokens_);
  f->addRow("Prompt pool", prompt_pool_);
  sessions_ = new QLabel;
  sessions_->setObjectName("sessionsLabel");
  sessions_->setWordWrap(true);
  f->addRow(sessions_);
  connect(prefix_box_, &QGroupBox::toggled, this, &ServingView::editorChanged);
  for (QSpinBox* s : {groups_, shared_tokens_, prompt_pool_})
    connect(s, &QSpinBox::valueChanged, this, &ServingView::editorChanged);
  return prefix_box_;
}

// The deployment: the planner's settings (one deployment across the views), edited here too.
QGroupBox* ServingView::buildDeploymentBox() {
  auto* box = new QGroupBox("Deployment (shared with the Planner)");
  auto* f = new QFormLayout(box);
  // The Planner's own rows (deploy_form.hpp), under names of their own.
  model_combo_ = makeModelCombo(model_, "servingModelCombo");
  f->addRow("Model", model_combo_);
  gpu_combo_ = makeGpuCombo(model_, "servingGpuCombo");
  f->addRow("GPU", gpu_combo_);
  tp_combo_ = makeTpCombo(model_, "servingTpCombo");
  f->addRow("Tensor parallel", tp_combo_);
  engine_combo_ = makeEngineCombo(model_, "servingEngineCombo", " (not simulated)");
  f->addRow("Engine", engine_combo_);
  format_combo_ =
      makeSpecCombo(model_, "servingFormatCombo", format_choices(), &PlannerModel::setKvFormat);
  f->addRow("KV format", format_combo_);
  policy_combo_ =
      makeSpecCombo(model_, "servingPolicyCombo", policy_choices(), &PlannerModel::setPolicy);
  f->addRow("Retention", policy_combo_);
  context_ = countSpin("servingMaxModelLen", 1, kContextSpinMax, 8192);
  context_->setSuffix(" tokens");
  connect(context_, &QSpinBox::valueChanged, this,
          [this](int v) { model_->setContext(static_cast<std::uint64_t>(v)); });
  f->addRow("max_model_len", context_);
  return box;
}

// The scheduler's limits, prefix caching, and the SLO that goodput counts against.
QGroupBox* ServingView::buildSchedulerBox() {
  auto* box = new QGroupBox("Scheduler and SLO");
  auto* f = new QFormLayout(box);
  // 0 shows "engine default": what the engine runs on the GPU when its command line leaves the
  // limit out (vLLM 1024 sequences and 8192 tokens on an H100), as kvplan simulate takes it.
  max_num_seqs_ = countSpin("maxNumSeqs", 0, 1'000'000, 0);
  max_num_seqs_->setSpecialValueText("engine default");
  f->addRow("max_num_seqs", max_num_seqs_);
  max_batched_ = countSpin("maxNumBatchedTokens", 0, kContextSpinMax, 0);
  max_batched_->setSpecialValueText("engine default");
  f->addRow("max_num_batched_tokens", max_batched_);
  prefix_caching_ = new QCheckBox("Prefix caching");
  prefix_caching_->setObjectName("prefixCaching");
  prefix_caching_->setChecked(true);  // vLLM V1's and SGLang's default
  f->addRow(prefix_caching_);
  // simulate --measured-moe: MoE layers from aiconfigurator's measured tables where a row fits
  // (docs/simulate-step-time.md); off, as in the CLI.
  measured_moe_ = new QCheckBox("Measured MoE tables");
  measured_moe_->setObjectName("measuredMoe");
  measured_moe_->setToolTip(
      "Cost the routed experts with kvplan's measured per-operation tables (models/perf/moe/) "
      "where a row fits the GPU, engine, dtype and shape, as kvplan simulate --measured-moe");
  f->addRow(measured_moe_);
  slo_ttft_ = msSpin("sloTtftP99");
  slo_tpot_ = msSpin("sloTpotP99");
  slo_e2e_ = msSpin("sloE2eP99");
  f->addRow("TTFT p99 limit", slo_ttft_);
  f->addRow("TPOT p99 limit", slo_tpot_);
  f->addRow("E2E p99 limit", slo_e2e_);
  return box;
}

// The SLO sizing grid: which GPU types, TP sizes and KV formats to search, and the GPU cap.
QGroupBox* ServingView::buildSloBox() {
  const SloGrid defaults;
  auto* box = new QGroupBox("SLO sizing (the limits above)");
  auto* f = new QFormLayout(box);
  slo_all_gpus_ = new QCheckBox("every GPU preset (else the deployment's GPU)");
  slo_all_gpus_->setObjectName("sloAllGpus");
  slo_all_gpus_->setChecked(defaults.all_gpus);
  f->addRow(slo_all_gpus_);
  auto* tps = new QHBoxLayout;
  for (std::uint32_t tp : {1u, 2u, 4u, 8u, 16u}) {
    auto* c = new QCheckBox(QString::number(tp));
    c->setObjectName(QString("sloTp%1").arg(tp));
    c->setProperty("tp", tp);
    c->setChecked(std::find(defaults.tps.begin(), defaults.tps.end(), tp) != defaults.tps.end());
    slo_tps_.push_back(c);
    tps->addWidget(c);
  }
  f->addRow("TP sizes", tps);
  auto* formats = new QVBoxLayout;
  for (const auto& spec : defaults.formats) {
    auto* c = new QCheckBox(qs(spec));
    c->setObjectName(QString("sloFormat%1").arg(slo_formats_.size()));
    c->setChecked(true);
    slo_formats_.push_back(c);
    formats->addWidget(c);
  }
  f->addRow("KV formats", formats);
  slo_max_gpus_ = countSpin("sloMaxGpus", 1, 4096, static_cast<int>(defaults.max_gpus));
  f->addRow("At most GPUs", slo_max_gpus_);
  slo_run_ = new QPushButton("Find the cheapest order");
  slo_run_->setObjectName("sloRunButton");
  connect(slo_run_, &QPushButton::clicked, this, &ServingView::runSloSearch);
  f->addRow(slo_run_);
  return box;
}

// The concurrency sweep: closed-loop clients at each concurrency drawing the workload's lengths,
// as `kvplan sweep --workload` runs them.
QGroupBox* ServingView::buildSweepBox() {
  const SweepGrid defaults;
  auto* box = new QGroupBox("Concurrency sweep (the workload's lengths)");
  auto* f = new QFormLayout(box);
  sweep_clients_ = new QLineEdit(qs(defaults.concurrencies));
  sweep_clients_->setObjectName("sweepConcurrencies");
  sweep_clients_->setToolTip("1,2,4,8 or FIRST-LAST: the powers of two from FIRST, then LAST");
  f->addRow("Concurrencies", sweep_clients_);
  sweep_per_client_ = countSpin("sweepRequestsPerClient", 1, 10'000,
                                static_cast<int>(defaults.requests_per_client));
  f->addRow("Requests per client", sweep_per_client_);
  sweep_run_ = new QPushButton("Sweep");
  sweep_run_->setObjectName("sweepRunButton");
  connect(sweep_run_, &QPushButton::clicked, this, &ServingView::runSweep);
  f->addRow(sweep_run_);
  return box;
}

// A disaggregated layout (docs/disagg.md): when checked, Run simulates prefill and decode
// replicas, each at its own TP, over a KV link, as `kvplan simulate --prefill-replicas` does.
QGroupBox* ServingView::buildDisaggBox() {
  const DisaggLayout defaults;
  disagg_box_ = new QGroupBox("Disaggregated prefill/decode (Run)");
  disagg_box_->setObjectName("disaggBox");
  disagg_box_->setCheckable(true);
  disagg_box_->setChecked(false);
  auto* f = new QFormLayout(disagg_box_);
  prefill_replicas_ = countSpin("prefillReplicas", 1, 1024, 1);
  decode_replicas_ = countSpin("decodeReplicas", 1, 1024, 1);
  prefill_tp_ = countSpin("prefillTp", 1, 4096, 1);
  decode_tp_ = countSpin("decodeTp", 1, 4096, 1);
  f->addRow("Prefill replicas", prefill_replicas_);
  f->addRow("Prefill TP", prefill_tp_);
  f->addRow("Decode replicas", decode_replicas_);
  f->addRow("Decode TP", decode_tp_);
  kv_link_ = new QComboBox;
  kv_link_->setObjectName("kvLink");
  kv_link_->setEditable(true);  // a preset, or GB/s per GPU
  for (const auto& name : sim::kv_link_presets()) kv_link_->addItem(qs(name));
  kv_link_->setCurrentText(qs(defaults.kv_link));
  kv_link_->setToolTip(
      "nvlink (the GPU's, one direction), ndr400 (50 GB/s), xdr800 (100 GB/s) "
      "or GB/s per GPU");
  f->addRow("KV link", kv_link_);
  routing_ = new QComboBox;
  routing_->setObjectName("routing");
  routing_->addItems({"round_robin", "least_loaded", "prefix_aware"});
  f->addRow("Routing", routing_);
  return disagg_box_;
}

QWidget* ServingView::buildDisaggResults() {
  disagg_results_ = new QWidget;
  auto* col = new QVBoxLayout(disagg_results_);
  disagg_summary_ = new QLabel(
      "Check \"Disaggregated prefill/decode\" and Run to see each side's "
      "KV pools and the transfer queue.");
  disagg_summary_->setObjectName("disaggSummary");
  disagg_summary_->setWordWrap(true);
  disagg_summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  prefill_kv_ = new KvUsageChart;
  prefill_kv_->setObjectName("prefillKvChart");
  decode_kv_ = new KvUsageChart;
  decode_kv_->setObjectName("decodeKvChart");
  transfer_chart_ = new TransferQueueChart;
  transfer_chart_->setObjectName("transferChart");
  col->addWidget(disagg_summary_);
  col->addWidget(prefill_kv_, 1);
  col->addWidget(decode_kv_, 1);
  col->addWidget(transfer_chart_, 1);
  return disagg_results_;
}

QWidget* ServingView::buildResults() {
  auto* w = new QWidget;
  auto* col = new QVBoxLayout(w);
  col->setContentsMargins(0, 0, 0, 0);
  banner_ = makeErrorBanner("servingBanner");
  col->addWidget(banner_);
  deployment_ = new QLabel;
  deployment_->setObjectName("servingDeployment");
  deployment_->setWordWrap(true);
  deployment_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  col->addWidget(deployment_);
  auto* split = new QSplitter(Qt::Vertical);
  auto* hists = new QWidget;
  auto* hl = new QHBoxLayout(hists);
  hl->setContentsMargins(0, 0, 0, 0);
  prompt_hist_ = new LengthHistogramChart("Prompt tokens");
  prompt_hist_->setObjectName("promptHistogram");
  output_hist_ = new LengthHistogramChart("Output tokens");
  output_hist_->setObjectName("outputHistogram");
  hl->addWidget(prompt_hist_);
  hl->addWidget(output_hist_);
  kv_chart_ = new KvUsageChart;
  kv_chart_->setObjectName("kvUsageChart");
  auto* table_box = new QWidget;
  auto* tl = new QVBoxLayout(table_box);
  tl->setContentsMargins(0, 0, 0, 0);
  summary_ = new QLabel("Run a simulation to see latencies, throughput and KV usage.");
  summary_->setObjectName("servingSummary");
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  latency_model_ = new LatencyTableModel(this);
  latency_ = new QTableView;
  latency_->setObjectName("latencyTable");
  latency_->setModel(latency_model_);
  latency_->verticalHeader()->hide();
  latency_->horizontalHeader()->setStretchLastSection(true);
  slo_model_ = new SloTableModel(this);
  slo_table_ = new QTableView;
  slo_table_->setObjectName("sloTable");
  slo_table_->setModel(slo_model_);
  slo_table_->verticalHeader()->hide();
  slo_table_->horizontalHeader()->setStretchLastSection(true);
  tables_ = new QTabWidget;
  tables_->setObjectName("servingTables");
  tables_->addTab(latency_, "Latency percentiles");
  tables_->addTab(slo_table_, "SLO sizing");
  sweep_chart_ = new SweepChart;
  sweep_chart_->setObjectName("sweepChart");
  tables_->addTab(sweep_chart_, "Concurrency sweep");
  tables_->addTab(buildDisaggResults(), "Prefill / decode");
  tl->addWidget(summary_);
  tl->addWidget(tables_, 1);
  split->addWidget(hists);
  split->addWidget(kv_chart_);
  split->addWidget(table_box);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  split->setStretchFactor(2, 3);
  split->setChildrenCollapsible(false);
  col->addWidget(split, 1);
  return w;
}

WorkloadSpec ServingView::exampleWorkload() {
  WorkloadSpec w;
  w.description =
      "Example: Poisson arrivals at 4/s for 20 s, a burst of 80/s for 10 s, then 4/s for 30 s; "
      "chat-like lognormal prompt and output lengths";
  w.arrival = "poisson";
  w.stages = {{4, 20}, {80, 10}, {4, 30}};
  w.prompt.dist = "lognormal";
  w.prompt.mean = 1024;
  w.prompt.std = 512;
  w.prompt.min = 16;
  w.prompt.max = 4096;
  w.output.dist = "lognormal";
  w.output.mean = 256;
  w.output.std = 128;
  w.output.min = 8;
  w.output.max = 1024;
  return w;
}

// What the widgets read as, on their own.
WorkloadSpec ServingView::editorSpec() const {
  const std::string source = workload_source_.toStdString();
  WorkloadSpec w;
  w.arrival = arrival_->currentText().toStdString();
  w.cv = cv_->value();
  w.stages.clear();
  for (int r = 0; r < stages_->rowCount(); ++r)
    w.stages.push_back({stageCell(stages_, r, 0, source), stageCell(stages_, r, 1, source)});
  w.prompt = distOf(prompt_, source, "prompt_tokens");
  w.output = distOf(output_, source, "output_tokens");
  if (prefix_box_->isChecked())
    w.prefix = PrefixSpec{static_cast<std::uint64_t>(groups_->value()),
                          static_cast<std::uint64_t>(shared_tokens_->value()),
                          static_cast<std::uint64_t>(prompt_pool_->value())};
  return w;
}

WorkloadSpec ServingView::workloadSpec() const {
  const WorkloadSpec n = editorSpec();
  WorkloadSpec w;
  w.description = loaded_.description;
  w.arrival = keep(loaded_.arrival, shown_.arrival, n.arrival);
  w.cv = keep(loaded_.cv, shown_.cv, n.cv);
  w.stages = keep(loaded_.stages, shown_.stages, n.stages);
  w.prompt = keepDist(loaded_.prompt, shown_.prompt, n.prompt);
  w.output = keepDist(loaded_.output, shown_.output, n.output);
  w.prefix = keepPrefix(loaded_.prefix, shown_.prefix, n.prefix);
  w.sessions = loaded_.sessions;
  return w;
}

QString ServingView::notice() const { return notice_->text(); }

void ServingView::updateNotice() {
  QStringList diffs;
  try {
    diffs = specDiffs(workloadSpec(), editorSpec());
  } catch (const std::exception&) {
    return;  // a cell being edited; the preview names it
  }
  notice_->setText(diffs.isEmpty() ? QString()
                                   : "Kept as loaded, shown otherwise here: " + diffs.join("; "));
  notice_->setVisible(!diffs.isEmpty());
}

void ServingView::setWorkloadSpec(const WorkloadSpec& w) {
  loaded_ = w;
  {
    const QSignalBlocker b0(arrival_), b1(cv_), b2(stages_), b3(prefix_box_), b4(groups_),
        b5(shared_tokens_), b6(prompt_pool_);
    arrival_->setCurrentText(qs(w.arrival));
    cv_->setValue(w.cv);
    cv_->setEnabled(w.arrival == "gamma");
    stages_->setRowCount(static_cast<int>(w.stages.size()));
    for (int r = 0; r < stages_->rowCount(); ++r) {
      const auto& s = w.stages[static_cast<std::size_t>(r)];
      stages_->setItem(r, 0, new QTableWidgetItem(numText(s.rate)));
      stages_->setItem(r, 1, new QTableWidgetItem(numText(s.duration_s)));
    }
    prefix_box_->setChecked(w.prefix.has_value());
    const PrefixSpec p = w.prefix.value_or(PrefixSpec{10, 100, 0});
    // Values above a spin box's range show clamped; workloadSpec() keeps the set value.
    groups_->setValue(static_cast<int>(std::min<std::uint64_t>(p.groups, 1'000'000)));
    shared_tokens_->setValue(
        static_cast<int>(std::min<std::uint64_t>(p.shared_tokens, 2147483647)));
    prompt_pool_->setValue(static_cast<int>(std::min<std::uint64_t>(p.prompt_pool, 1'000'000)));
  }
  setDist(prompt_, w.prompt);
  setDist(output_, w.output);
  sessions_->setText(w.sessions ? QString("Sessions (kept from the file): turns %1, think_s %2")
                                      .arg(qs(w.sessions->turns.dist))
                                      .arg(qs(w.sessions->think_s.dist))
                                : QString());
  try {
    shown_ = editorSpec();
  } catch (const std::exception&) {
    shown_ = w;  // unreachable: the cells and bins were written from numbers just now
  }
  editorChanged();
}

ServingRequest ServingView::request() const {
  ServingRequest r;
  r.model = model_->model();
  r.settings = model_->settings();
  r.workload_json = sim::to_json(workloadSpec());
  r.workload_source = workload_source_.toStdString();
  r.seed = static_cast<std::uint64_t>(seed_->value());
  if (max_num_seqs_->value() > 0)
    r.max_num_seqs = static_cast<std::uint64_t>(max_num_seqs_->value());
  if (max_batched_->value() > 0)
    r.max_num_batched_tokens = static_cast<std::uint64_t>(max_batched_->value());
  r.enable_prefix_caching = prefix_caching_->isEnabled() && prefix_caching_->isChecked();
  r.measured_moe = measured_moe_->isChecked();
  r.slo = {.ttft_p99_ms = slo_ttft_->value(),
           .tpot_p99_ms = slo_tpot_->value(),
           .e2e_p99_ms = slo_e2e_->value()};
  if (disagg_box_->isChecked())
    r.disagg =
        DisaggLayout{.prefill_replicas = static_cast<std::uint32_t>(prefill_replicas_->value()),
                     .decode_replicas = static_cast<std::uint32_t>(decode_replicas_->value()),
                     .prefill_tp = static_cast<std::uint32_t>(prefill_tp_->value()),
                     .decode_tp = static_cast<std::uint32_t>(decode_tp_->value()),
                     .kv_link = kv_link_->currentText().trimmed().toStdString(),
                     .routing = routing_->currentText().toStdString(),
                     .kv_link_latency_ms = loaded_disagg_.kv_link_latency_ms,
                     .kv_transfer_overhead_ms = loaded_disagg_.kv_transfer_overhead_ms,
                     .prefill_side = loaded_disagg_.prefill_side,
                     .decode_side = loaded_disagg_.decode_side};
  return r;
}

void ServingView::setDisaggLayout(const std::optional<DisaggLayout>& l) {
  loaded_disagg_ = l.value_or(DisaggLayout{});
  disagg_box_->setChecked(l.has_value());
  if (!l) return;
  prefill_replicas_->setValue(static_cast<int>(l->prefill_replicas));
  decode_replicas_->setValue(static_cast<int>(l->decode_replicas));
  prefill_tp_->setValue(static_cast<int>(l->prefill_tp));
  decode_tp_->setValue(static_cast<int>(l->decode_tp));
  kv_link_->setCurrentText(qs(l->kv_link));
  routing_->setCurrentText(qs(l->routing));
}

SloGrid ServingView::sloGrid() const {
  SloGrid g;
  g.all_gpus = slo_all_gpus_->isChecked();
  g.tps.clear();
  for (QCheckBox* c : slo_tps_)
    if (c->isChecked()) g.tps.push_back(c->property("tp").toUInt());
  g.formats.clear();
  for (QCheckBox* c : slo_formats_)
    if (c->isChecked()) g.formats.push_back(c->text().toStdString());
  g.max_gpus = static_cast<std::uint32_t>(slo_max_gpus_->value());
  g.prefix_caching = prefix_caching_->isChecked();
  return g;
}

bool ServingView::loadWorkload(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    showMessage(path + ": cannot open the file");
    return false;
  }
  try {
    const std::string text = f.readAll().toStdString();
    // The library decides validity (what a run would refuse, too) and names the field.
    sim::parse_workload_json(text, path.toStdString(), 1);
    const WorkloadSpec w = sim::parse_workload_spec(text, path.toStdString());
    workload_source_ = path;
    setWorkloadSpec(w);
    updateHistograms();
    status_->setText("Opened " + path);
    return true;
  } catch (const std::exception& e) {
    showMessage(QString::fromUtf8(e.what()));
    return false;
  }
}

bool ServingView::saveWorkload(const QString& path) {
  std::string text;
  try {
    text = sim::to_json(workloadSpec());
    sim::parse_workload_json(text, path.toStdString(), 1);  // never write what we cannot read
  } catch (const std::exception& e) {
    showMessage(QString::fromUtf8(e.what()));
    return false;
  }
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
      f.write(QByteArray::fromStdString(text)) != static_cast<qint64>(text.size())) {
    showMessage(path + ": cannot write the workload to this path");
    return false;
  }
  workload_source_ = path;
  status_->setText("Saved " + path);
  return true;
}

bool ServingView::updateHistograms() {
  preview_timer_->stop();
  sim::WorkloadLimits limits;
  limits.max_requests = kPreviewRequests;
  try {
    const sim::Workload w =
        sim::parse_workload_json(sim::to_json(workloadSpec()), workload_source_.toStdString(),
                                 static_cast<std::uint64_t>(seed_->value()), limits);
    const DrawnLengths d = drawn_lengths(w);
    prompt_hist_->setValues(d.prompt_tokens);
    output_hist_->setValues(d.output_tokens);
    showMessage({});
    return true;
  } catch (const std::exception& e) {
    prompt_hist_->setValues({});
    output_hist_->setValues({});
    showMessage(QString::fromUtf8(e.what()));
    return false;
  }
}

void ServingView::editorChanged() {
  updateNotice();
  preview_timer_->start();
}

void ServingView::syncDeployment() {
  const PlanSettings& s = model_->settings();
  const ModelSpec& m = model_->model();
  syncModelCombo(model_combo_, s, m);
  syncGpuCombo(gpu_combo_, s);
  syncTpCombo(tp_combo_, s, m);
  syncEngineCombo(engine_combo_, s);
  syncSpecCombo(format_combo_, s.kv_format);
  syncSpecCombo(policy_combo_, s.policy);
  {
    const QSignalBlocker b(context_);
    context_->setValue(static_cast<int>(std::min<std::uint64_t>(s.context, kContextSpinMax)));
  }
  // Prefix caching where the simulator models it (full attention, full policy).
  bool modelled = false;
  QString gpu_text = qs(s.gpu_id);
  try {
    const GpuSpec g = resolve_gpu(s);
    gpu_text = g.id.empty() ? qs(g.name) : QString("%1 (%2)").arg(qs(g.name), qs(g.id));
    modelled = sim::prefix_caching_modelled(m, to_plan_input(s, g));
  } catch (const std::exception&) {
    modelled = false;  // the planner shows why the settings are invalid
  }
  // What the simulation runs, named by preset ids as `kvplan simulate --model --gpu` takes them.
  deployment_->setText(
      QString("<b>Simulating</b> %1 (%2) on one replica of %3 × %4 · %5 · KV %6, %7 · "
              "max_model_len %8")
          .arg(qs(m.name).toHtmlEscaped(), qs(m.id.empty() ? s.model_ref : m.id).toHtmlEscaped())
          .arg(s.tp)
          .arg(gpu_text.toHtmlEscaped())
          .arg(engine_combo_->currentText().toHtmlEscaped())
          .arg(qs(s.kv_format).toHtmlEscaped(), qs(s.policy).toHtmlEscaped())
          .arg(groupedNumber(s.context)));
  prefix_caching_->setEnabled(modelled);
  prefix_caching_->setToolTip(modelled
                                  ? QString("vLLM V1 and SGLang cache prompt prefixes by default")
                                  : QString("Not modelled for this deployment (sliding, "
                                            "chunked or recurrent layers, or an evicting "
                                            "policy): simulated without it"));
}

void ServingView::run() {
  if (runner_->isRunning()) return;
  showMessage({});
  try {
    runner_->start(request());
  } catch (const std::exception& e) {  // a stage cell that is not a number, bad bins
    showMessage(QString::fromUtf8(e.what()));
  }
}

void ServingView::runSloSearch() {
  if (runner_->isRunning()) return;
  showMessage({});
  try {
    ServingRequest r = request();
    r.search = sloGrid();
    runner_->start(r);
  } catch (const std::exception& e) {
    showMessage(QString::fromUtf8(e.what()));
  }
}

void ServingView::runSweep() {
  if (runner_->isRunning()) return;
  showMessage({});
  try {
    ServingRequest r = request();
    r.sweep = SweepGrid{sweep_clients_->text().toStdString(),
                        static_cast<std::uint64_t>(sweep_per_client_->value())};
    runner_->start(r);
  } catch (const std::exception& e) {
    showMessage(QString::fromUtf8(e.what()));
  }
}

void ServingView::cancel() {
  runner_->cancel();
  status_->setText("Cancelling…");
}

void ServingView::setBusy(bool busy) {
  run_->setEnabled(!busy);
  slo_run_->setEnabled(!busy);
  sweep_run_->setEnabled(!busy);
  cancel_->setEnabled(busy);
  if (busy) {
    progress_->setValue(0);
    status_->setText("Simulating…");
  }
}

void ServingView::showMessage(const QString& message) {
  message_ = message;
  setBannerMessage(banner_, message);
}

void ServingView::showOutcome(const ServingOutcome& o) {
  setBusy(false);
  if (o.status == ServingOutcome::Status::cancelled) {
    status_->setText("Cancelled");
    return;
  }
  if (o.status == ServingOutcome::Status::failed) {
    status_->setText("Failed");
    showMessage(o.error);
    return;
  }
  progress_->setValue(1000);
  if (o.sweep) {
    showSweep(*o.sweep);
    return;
  }
  if (o.search) {
    slo_model_->setRows(o.rows);
    slo_table_->resizeColumnsToContents();
    tables_->setCurrentWidget(slo_table_);
    const bool found = !o.rows.empty() && o.rows.front().meets;
    status_->setText(found ? QString("SLO search done: %1 × %2 (TP %3) meets the limits")
                                 .arg(o.rows.front().gpus)
                                 .arg(qs(o.rows.front().gpu))
                                 .arg(o.rows.front().tp)
                           : QString("SLO search done: no configuration meets the limits"));
    return;
  }
  tables_->setCurrentWidget(latency_);
  const sim::SimResult& r = o.result;
  latency_model_->setResult(r);
  latency_->resizeColumnsToContents();
  kv_chart_->setResult(r);
  const sim::StageSummary& s = r.summary;
  summary_->setText(
      QString("%1 requests finished of %2 · %3 req/s · %4 input and %5 output tokens/s · "
              "%6 preemptions · prefix hit rate %7% · goodput %8 req/s · mean running %9, "
              "waiting %10 · %11")
          .arg(groupedNumber(s.requests))
          .arg(groupedNumber(r.requests.size()))
          .arg(s.throughput.requests_per_s, 0, 'f', 2)
          .arg(s.throughput.input_tokens_per_s, 0, 'f', 0)
          .arg(s.throughput.output_tokens_per_s, 0, 'f', 0)
          .arg(s.preemptions)
          .arg(s.prefix_hit_rate * 100, 0, 'f', 1)
          .arg(s.goodput_requests_per_s, 0, 'f', 2)
          .arg(s.mean_running, 0, 'f', 1)
          .arg(s.mean_queue, 0, 'f', 1)
          .arg(r.attention_free ? QString("no KV pool (attention-free)")
                                : QString("pool %1 blocks of %2 tokens")
                                      .arg(groupedNumber(r.num_gpu_blocks))
                                      .arg(r.block_size)));
  status_->setText(
      QString("Done: %1 steps, %2 s simulated").arg(r.steps).arg(r.simulated_s, 0, 'f', 1));
  if (o.disagg) showDisagg(*o.disagg);
}

// Each side's pools over time (its replicas summed) and the transfer queue, 200 samples.
void ServingView::showDisagg(const sim::DisaggResult& r) {
  prefill_kv_->setResult(sim::pooled_side(r.prefill));
  decode_kv_->setResult(sim::pooled_side(r.decode));
  kv_chart_->setResult(sim::pooled_side(r.decode));
  transfer_chart_->setSeries(sim::transfer_series(r, std::max(r.run.simulated_s / 200, 1e-3)));
  disagg_summary_->setText(
      QString("%1 prefill + %2 decode replicas · %3 transfers, %4 GB, %5 GB/s over the run · on "
              "the link %6 ms mean, waiting for it %7 ms, for decode blocks %8 ms (the KV chart "
              "above shows the decode side)")
          .arg(r.prefill.size())
          .arg(r.decode.size())
          .arg(groupedNumber(r.transfers.size()))
          .arg(static_cast<double>(r.kv_bytes) / 1e9, 0, 'f', 2)
          .arg(r.kv_gbps, 0, 'f', 2)
          .arg(r.transfer_ms.mean, 0, 'f', 2)
          .arg(r.link_wait_ms.mean, 0, 'f', 2)
          .arg(r.admission_wait_ms.mean, 0, 'f', 2));
  tables_->setCurrentWidget(disagg_results_);
}

void ServingView::showSweep(const sim::SweepResult& r) {
  sweep_chart_->setResult(r);
  tables_->setCurrentWidget(sweep_chart_);
  status_->setText(
      r.knee ? QString("Sweep done: the knee is at %1 clients (%2 tokens/s per GPU, %3 per user)")
                   .arg(r.points[*r.knee].concurrency)
                   .arg(r.points[*r.knee].tokens_per_s_per_gpu, 0, 'f', 0)
                   .arg(r.points[*r.knee].tokens_per_s_per_user, 0, 'f', 1)
             : QString("Sweep done: still scaling at %1 clients (no knee)")
                   .arg(r.points.empty() ? 0 : r.points.back().concurrency));
}

}  // namespace kvplan::gui
