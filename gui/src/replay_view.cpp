#include "replay_view.hpp"

#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QTableWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSeries>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QHorizontalBarSeries>
#include <QtCharts/QValueAxis>
#include <algorithm>
#include <cmath>

#include "chart_clear.hpp"
#include "kvplan/sim/synth.hpp"
#include "replay_table.hpp"
#include "ui_format.hpp"
#include "widgets.hpp"

namespace kvplan::gui {
namespace {

// A short name for a chart category: "fp16 · full", "kivi2 · h2o".
QString shortLabel(std::size_t i, const sim::ConfigResult& c) {
  QString f = qs(to_string(c.config.format));
  if (c.config.format.dtype == KvDtype::kivi) f = QString("kivi%1").arg(c.config.format.bits);
  QString p;
  switch (c.config.policy.kind) {
    case PolicyKind::full:
      p = "full";
      break;
    case PolicyKind::streaming:
      p = "stream";
      break;
    case PolicyKind::h2o:
      p = "h2o";
      break;
    case PolicyKind::snapkv:
      p = "snapkv";
      break;
  }
  if (c.config.policy.kind != PolicyKind::full && c.config.policy.positions == PositionMode::cache)
    p += "/cache";
  return QString("%1. %2 %3").arg(i + 1).arg(f, p);
}

QSpinBox* spinBox(const char* name, int lo, int hi, int value, const char* suffix) {
  auto* s = new QSpinBox;
  s->setObjectName(name);
  s->setRange(lo, hi);
  s->setValue(value);
  s->setSuffix(suffix);
  return s;
}

// Horizontal bars list their categories bottom up: each chart adds configuration N first, so
// configuration 1 is on top as in the table.
template <class Value>
void appendBottomUp(QBarSet* set, const sim::ReplayReport& rep, Value value) {
  for (std::size_t i = rep.configs.size(); i-- > 0;) *set << value(rep.configs[i]);
}

QBarCategoryAxis* categoryAxis(const char* name, const QStringList& cats) {
  auto* a = new QBarCategoryAxis;
  a->setObjectName(name);
  a->append(cats);
  return a;
}

QValueAxis* percentAxis(const char* name, const QString& title, double max) {
  auto* a = new QValueAxis;
  a->setObjectName(name);
  a->setTitleText(title);
  a->setRange(0, max);
  a->applyNiceNumbers();
  a->setLabelFormat("%.0f");
  return a;
}

void attach(QChart* c, QAbstractBarSeries* s, QAbstractAxis* cat, QAbstractAxis* val) {
  c->addSeries(s);
  c->addAxis(cat, Qt::AlignLeft);
  c->addAxis(val, Qt::AlignBottom);
  s->attachAxis(cat);
  s->attachAxis(val);
}

// Predicted beside measured bytes, in KiB or (from 8 MiB) MiB; hovering a bar shows its bytes.
void plotMemory(QChartView* view, const sim::ReplayReport& rep, const QStringList& cats) {
  std::uint64_t top = 1;
  for (const auto& c : rep.configs) top = std::max({top, c.predicted_bytes, c.measured_bytes});
  const bool mib = top >= (std::uint64_t{8} << 20);
  const double unit = mib ? 1048576.0 : 1024.0;
  QChart* m = view->chart();
  clearChart(m);
  m->setTitle(QString("KV bytes held after %1 tokens").arg(groupedNumber(rep.tokens)));
  auto* ms = new QHorizontalBarSeries;
  auto* pred = new QBarSet("predicted (kvplan formula)");
  auto* meas = new QBarSet("measured (kernel block pool)");
  appendBottomUp(pred, rep, [unit](const sim::ConfigResult& c) {
    return static_cast<double>(c.predicted_bytes) / unit;
  });
  appendBottomUp(meas, rep, [unit](const sim::ConfigResult& c) {
    return static_cast<double>(c.measured_bytes) / unit;
  });
  ms->append(pred);
  ms->append(meas);
  for (QBarSet* set : {pred, meas}) {
    QObject::connect(set, &QBarSet::hovered, view, [view, rep, set, pred](bool on, int idx) {
      if (!on || idx < 0 || idx >= static_cast<int>(rep.configs.size())) return;
      // Bars count bottom up; configuration 1 is the top bar.
      const auto& c = rep.configs[rep.configs.size() - 1 - static_cast<std::size_t>(idx)];
      const std::uint64_t b = set == pred ? c.predicted_bytes : c.measured_bytes;
      QToolTip::showText(QCursor::pos(), qs(c.label) + ": " + exactBytes(b), view);
    });
  }
  auto* my = percentAxis("bytesAxis", mib ? "MiB (2^20 bytes)" : "KiB (2^10 bytes)",
                         static_cast<double>(top) / unit * 1.1);
  attach(m, ms, categoryAxis("configurationAxis", cats), my);
  m->legend()->setAlignment(Qt::AlignRight);
}

// Attention mass kept, and with the model in the loop its top-1 agreement, in %.
void plotFidelity(QChart* f, const sim::ReplayReport& rep, const QStringList& cats) {
  clearChart(f);
  f->setTitle(rep.model_in_loop ? "Kept and agreeing (higher is better)"
                                : "Attention mass kept (higher is better)");
  auto* fs = new QHorizontalBarSeries;
  auto* mass = new QBarSet("attention mass kept");
  appendBottomUp(mass, rep, [](const sim::ConfigResult& c) { return 100.0 * c.attention_mass; });
  fs->append(mass);
  if (rep.model_in_loop) {
    auto* top1 = new QBarSet("top-1 agreement");
    appendBottomUp(top1, rep, [](const sim::ConfigResult& c) { return 100.0 * c.top1_agreement; });
    fs->append(top1);
  }
  attach(f, fs, categoryAxis("keptCategoryAxis", cats),
         percentAxis("keptAxis", "kept, % of the full cache", 100));
  f->legend()->setVisible(rep.model_in_loop);
  f->legend()->setAlignment(Qt::AlignBottom);
}

// The attention output's relative L2 error, in %.
void plotError(QChart* e, const sim::ReplayReport& rep, const QStringList& cats) {
  double top_error = 0;
  for (const auto& c : rep.configs) top_error = std::max(top_error, 100.0 * c.rel_error);
  clearChart(e);
  e->setTitle("Output error (lower is better)");
  auto* es = new QHorizontalBarSeries;
  auto* err = new QBarSet("output error (relative L2)");
  err->setColor(QColor(0xd6, 0x27, 0x28));
  appendBottomUp(err, rep, [](const sim::ConfigResult& c) { return 100.0 * c.rel_error; });
  es->append(err);
  attach(e, es, categoryAxis("errorCategoryAxis", cats),
         percentAxis("errorAxis", "error, relative L2 %", std::max(1.0, top_error * 1.1)));
  e->legend()->setVisible(false);
}

}  // namespace

ReplayView::ReplayView(QWidget* parent) : QWidget(parent), runner_(new ReplayRunner(this)) {
  auto* split = new QSplitter(Qt::Horizontal);
  split->addWidget(buildInputs());
  split->addWidget(buildResults());
  split->setStretchFactor(1, 1);
  split->setChildrenCollapsible(false);
  auto* l = new QHBoxLayout(this);
  l->setContentsMargins(4, 4, 4, 4);
  l->addWidget(split);

  connect(runner_, &ReplayRunner::progress, this, [this](quint64 done, quint64 total) {
    progress_->setMaximum(static_cast<int>(std::min<quint64>(total, 1u << 30)));
    progress_->setValue(static_cast<int>(std::min<quint64>(done, 1u << 30)));
    status_->setText(
        QString("Replaying: %1 of %2 tokens").arg(groupedNumber(done)).arg(groupedNumber(total)));
  });
  connect(runner_, &ReplayRunner::finished, this, &ReplayView::showOutcome);
  setBusy(false);
}

QWidget* ReplayView::buildInputs() {
  auto* inner = new QWidget;
  auto* col = new QVBoxLayout(inner);
  col->addWidget(buildSourceBox());
  col->addWidget(buildModelBox());
  col->addWidget(buildConfigBox(), 1);
  addRunControls(col);
  return makeSettingsScroll(inner, 500);
}

// The trace or checkpoint, a synthetic trace on demand, and how much of it to replay.
QWidget* ReplayView::buildSourceBox() {
  auto* in = new QGroupBox("Input");
  auto* il = new QFormLayout(in);
  source_ = new QComboBox;
  source_->setObjectName("replaySource");
  source_->addItem("Trace file (.safetensors)", static_cast<int>(ReplayRequest::Source::trace));
  source_->addItem("llama2.c checkpoint (.bin)", static_cast<int>(ReplayRequest::Source::llama2c));
  il->addRow("Source", source_);
  path_ = new QLineEdit;
  path_->setObjectName("replayPath");
  path_->setPlaceholderText("path to a trace or checkpoint");
  auto* browse = new QPushButton("Browse…");
  connect(browse, &QPushButton::clicked, this, [this] {
    const bool trace = source_->currentIndex() == 0;
    const QString p = QFileDialog::getOpenFileName(
        this, trace ? "Open a trace" : "Open a llama2.c checkpoint", QString(),
        trace ? "Traces (*.safetensors);;All files (*)" : "Checkpoints (*.bin);;All files (*)");
    if (!p.isEmpty()) path_->setText(p);
  });
  auto* prow = new QHBoxLayout;
  prow->addWidget(path_, 1);
  prow->addWidget(browse);
  il->addRow("File", prow);
  synth_tokens_ = new QSpinBox;
  synth_tokens_->setRange(16, static_cast<int>(sim::SynthOptions::max_tokens));
  synth_tokens_->setValue(2048);
  synth_tokens_->setSuffix(" tokens");
  synth_tokens_->setGroupSeparatorShown(true);
  auto* synth = new QPushButton("Write synthetic trace");
  synth->setObjectName("synthButton");
  synth->setToolTip("Seeded synthetic trace with attention sinks, heavy hitters and key outliers");
  connect(synth, &QPushButton::clicked, this,
          [this] { writeSyntheticTrace(static_cast<std::uint64_t>(synth_tokens_->value())); });
  auto* srow = new QHBoxLayout;
  srow->addWidget(synth_tokens_, 1);
  srow->addWidget(synth);
  il->addRow("Synthetic", srow);
  max_tokens_ = new QSpinBox;
  max_tokens_->setObjectName("replayMaxTokens");
  max_tokens_->setRange(0, 1 << 30);
  max_tokens_->setSpecialValueText("all");
  max_tokens_->setGroupSeparatorShown(true);
  il->addRow("Replay at most", max_tokens_);
  eval_from_ = new QSpinBox;
  eval_from_->setRange(0, 1 << 30);
  eval_from_->setToolTip("Score positions from here on (SnapKV compresses the prompt before it)");
  il->addRow("Score from token", eval_from_);
  return in;
}

// The llama2.c model's tokenizer, prompt and stream, and the retrieval probe; enabled only for a
// checkpoint.
QWidget* ReplayView::buildModelBox() {
  auto* mbox = new QGroupBox("llama2.c model in the loop");
  model_options_ = mbox;
  auto* ml = new QFormLayout(mbox);
  tokenizer_ = new QLineEdit;
  tokenizer_->setPlaceholderText("tok512.bin / tokenizer.bin beside the checkpoint");
  ml->addRow("Tokenizer", tokenizer_);
  prompt_ = new QLineEdit;
  prompt_->setPlaceholderText("empty: the model's own story from BOS");
  ml->addRow("Prompt", prompt_);
  steps_ = new QSpinBox;
  steps_->setObjectName("replaySteps");
  steps_->setRange(2, 1 << 20);
  steps_->setValue(256);
  steps_->setSuffix(" tokens");
  ml->addRow("Generate", steps_);
  probe_ = new QComboBox;
  probe_->setObjectName("replayProbe");
  probe_->addItem("none", QString());
  probe_->addItem("copy (induction)", QString("copy"));
  probe_->addItem("needle in filler", QString("needle"));
  probe_->setToolTip(
      "After the replay, run probe prompts through the same configurations and the full cache: "
      "a random span repeated after filler (copy), or a needle at a depth (needle)");
  ml->addRow("Retrieval probe", probe_);
  const sim::ProbeOptions defaults;
  probe_span_ = spinBox("replayProbeSpan", 2, 4096, static_cast<int>(defaults.span), " tokens");
  probe_cue_ = spinBox("replayProbeCue", 1, 4095, static_cast<int>(defaults.cue), " tokens");
  probe_filler_ =
      spinBox("replayProbeFiller", 0, 1 << 20, static_cast<int>(defaults.filler), " tokens");
  probe_prompts_ = spinBox("replayProbePrompts", 1, 10000, static_cast<int>(defaults.prompts), "");
  probe_depth_ = new QDoubleSpinBox;
  probe_depth_->setObjectName("replayProbeDepth");
  probe_depth_->setRange(0, 1);
  probe_depth_->setSingleStep(0.05);
  probe_depth_->setValue(defaults.depth);
  probe_depth_->setToolTip("Needle: share of the filler before the needle");
  ml->addRow("Span / needle", probe_span_);
  ml->addRow("Cue (first tokens repeated)", probe_cue_);
  ml->addRow("Filler", probe_filler_);
  ml->addRow("Needle depth", probe_depth_);
  ml->addRow("Probe prompts", probe_prompts_);
  connect(source_, &QComboBox::currentIndexChanged, this,
          [this](int i) { model_options_->setEnabled(i == 1); });
  model_options_->setEnabled(false);
  return mbox;
}

// The table of configurations (checked rows run), seeded with a spread of formats and policies.
QWidget* ReplayView::buildConfigBox() {
  auto* cbox = new QGroupBox("Configurations (checked rows run)");
  auto* cl = new QVBoxLayout(cbox);
  configs_ = new QTableWidget(0, 3);
  configs_->setObjectName("replayConfigs");
  configs_->setHorizontalHeaderLabels({"KV format", "retention policy", "block"});
  configs_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  configs_->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
  configs_->horizontalHeader()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
  configs_->verticalHeader()->hide();
  addConfigRow("fp16", "full", 16, true);
  addConfigRow("fp8", "full", 16, true);
  addConfigRow("kivi:bits=4,group=32,residual=128", "full", 16, true);
  addConfigRow("kivi:bits=2,group=32,residual=128", "full", 16, true);
  addConfigRow("fp16", "streaming:sink=4,window=124", 16, true);
  addConfigRow("fp16", "h2o:keep=0.2,recent=0.1", 16, true);
  addConfigRow("fp16", "snapkv:budget=128", 16, false);
  addConfigRow("int8", "full", 16, false);
  // KIVI groups must divide the head dim: 8 for stories260K (head dim 8).
  addConfigRow("kivi:bits=2,group=8,residual=32", "full", 16, false);
  configs_->setMinimumHeight(240);
  cl->addWidget(configs_);
  auto* crow = new QHBoxLayout;
  auto* add = new QPushButton("Add row");
  connect(add, &QPushButton::clicked, this, [this] { addConfigRow("fp16", "full", 16, true); });
  auto* remove = new QPushButton("Remove row");
  connect(remove, &QPushButton::clicked, this, [this] {
    if (configs_->currentRow() >= 0) configs_->removeRow(configs_->currentRow());
  });
  crow->addWidget(add);
  crow->addWidget(remove);
  crow->addStretch(1);
  cl->addLayout(crow);
  return cbox;
}

// Run and Cancel, the progress bar and the status line.
void ReplayView::addRunControls(QVBoxLayout* col) {
  auto* rrow = new QHBoxLayout;
  run_ = new QPushButton("Run replay");
  run_->setObjectName("runReplayButton");
  run_->setDefault(true);
  connect(run_, &QPushButton::clicked, this, &ReplayView::run);
  cancel_ = new QPushButton("Cancel");
  cancel_->setObjectName("cancelReplayButton");
  connect(cancel_, &QPushButton::clicked, this, &ReplayView::cancel);
  rrow->addWidget(run_);
  rrow->addWidget(cancel_);
  col->addLayout(rrow);
  progress_ = new QProgressBar;
  progress_->setObjectName("replayProgress");
  progress_->setFormat("%p%");
  col->addWidget(progress_);
  status_ = new QLabel("Choose a trace or a checkpoint, then Run.");
  status_->setObjectName("replayStatus");
  status_->setWordWrap(true);
  col->addWidget(status_);
}

QWidget* ReplayView::buildResults() {
  auto* w = new QWidget;
  auto* col = new QVBoxLayout(w);
  col->setContentsMargins(0, 0, 0, 0);
  banner_ = makeErrorBanner("replayErrorBanner");
  col->addWidget(banner_);
  auto* split = new QSplitter(Qt::Vertical);
  // Three charts of horizontal bars, so each configuration's name has the room it needs: the
  // bytes held across the top, then what is kept (higher is better) beside the error (lower is
  // better), each on its own axis. plot() gives each the height its rows need.
  auto* charts = new QSplitter(Qt::Vertical);
  const auto chartView = [](const char* name, const QString& title) {
    auto* v = new QChartView(new QChart);
    v->setObjectName(name);
    v->setRenderHint(QPainter::Antialiasing);
    v->chart()->setTitle(title);
    v->chart()->legend()->setAlignment(Qt::AlignBottom);
    v->setMinimumSize(300, 200);
    return v;
  };
  memory_chart_ = chartView("replayMemoryChart", "KV bytes held at the end");
  fidelity_chart_ = chartView("replayFidelityChart", "Kept (higher is better)");
  error_chart_ = chartView("replayErrorChart", "Output error (lower is better)");
  auto* fidelity = new QSplitter(Qt::Horizontal);
  fidelity->addWidget(fidelity_chart_);
  fidelity->addWidget(error_chart_);
  fidelity->setChildrenCollapsible(false);
  charts->addWidget(memory_chart_);
  charts->addWidget(fidelity);
  charts->setChildrenCollapsible(false);
  probe_verdict_ = new QLabel;
  probe_verdict_->setObjectName("replayProbeVerdict");
  probe_verdict_->setWordWrap(true);
  probe_verdict_->hide();
  results_model_ = new ReplayTableModel(this);
  results_ = new QTableView;
  results_->setObjectName("replayResults");
  results_->setModel(results_model_);
  // Row numbers match the "1. fp16 full" chart categories. The numbers' columns are as wide as
  // their contents; the configuration takes what is left (its middle elided, whole in the
  // tooltip), so the table fits its width.
  results_->horizontalHeader()->setStretchLastSection(false);
  results_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  results_->setTextElideMode(Qt::ElideMiddle);
  split->addWidget(charts);
  auto* table = new QWidget;
  auto* tl = new QVBoxLayout(table);
  tl->setContentsMargins(0, 0, 0, 0);
  tl->addWidget(probe_verdict_);
  tl->addWidget(results_);
  split->addWidget(table);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  col->addWidget(split, 1);
  return w;
}

void ReplayView::addConfigRow(const QString& format, const QString& policy, int block,
                              bool checked) {
  const int r = configs_->rowCount();
  configs_->insertRow(r);
  auto* f = new QTableWidgetItem(format);
  f->setFlags(f->flags() | Qt::ItemIsUserCheckable | Qt::ItemIsEditable);
  f->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
  configs_->setItem(r, 0, f);
  auto* p = new QTableWidgetItem(policy);
  p->setToolTip(policy);
  configs_->setItem(r, 1, p);
  configs_->setItem(r, 2, new QTableWidgetItem(QString::number(block)));
}

void ReplayView::setInput(const QString& path, ReplayRequest::Source source) {
  source_->setCurrentIndex(source == ReplayRequest::Source::trace ? 0 : 1);
  path_->setText(path);
}

bool ReplayView::writeSyntheticTrace(std::uint64_t tokens) {
  if (!temp_) temp_ = std::make_unique<QTemporaryDir>();
  const QString path =
      QDir(temp_->path()).filePath(QString("synthetic-%1.safetensors").arg(tokens));
  sim::SynthOptions o;
  o.tokens = tokens;
  try {
    sim::write_synthetic_trace(path.toStdString(), o);
  } catch (const std::exception& e) {
    showMessage(
        QString("Could not write the synthetic trace: %1").arg(QString::fromUtf8(e.what())));
    return false;
  }
  setInput(path, ReplayRequest::Source::trace);
  showMessage({});
  status_->setText(QString("Wrote a synthetic trace of %1 tokens (2 layers, 8 query / 2 KV "
                           "heads, head dim 64).")
                       .arg(groupedNumber(tokens)));
  return true;
}

ReplayRequest ReplayView::request() const {
  ReplayRequest r;
  r.source = static_cast<ReplayRequest::Source>(source_->currentData().toInt());
  r.path = path_->text().trimmed().toStdString();
  r.tokenizer = tokenizer_->text().trimmed().toStdString();
  r.prompt = prompt_->text().toStdString();
  r.steps = static_cast<std::uint32_t>(steps_->value());
  r.max_tokens = static_cast<std::uint64_t>(max_tokens_->value());
  r.eval_from = static_cast<std::uint64_t>(eval_from_->value());
  if (r.source == ReplayRequest::Source::llama2c) {
    r.probe = probe_->currentData().toString().toStdString();
    r.probe_options.span = static_cast<std::uint32_t>(probe_span_->value());
    r.probe_options.cue = static_cast<std::uint32_t>(probe_cue_->value());
    r.probe_options.filler = static_cast<std::uint32_t>(probe_filler_->value());
    r.probe_options.depth = probe_depth_->value();
    r.probe_options.prompts = static_cast<std::uint32_t>(probe_prompts_->value());
  }
  for (int i = 0; i < configs_->rowCount(); ++i) {
    const auto* f = configs_->item(i, 0);
    const auto* p = configs_->item(i, 1);
    const auto* b = configs_->item(i, 2);
    if (!f || f->checkState() != Qt::Checked) continue;
    ReplayRequest::Config c;
    c.format = f->text().trimmed().toStdString();
    c.policy = p ? p->text().trimmed().toStdString() : "full";
    c.block_size = b ? b->text().toUInt() : 16;
    r.configs.push_back(c);
  }
  return r;
}

void ReplayView::run() {
  ReplayRequest r = request();
  if (r.path.empty()) {
    showMessage("Choose a trace or a checkpoint first (or write a synthetic trace).");
    return;
  }
  if (r.configs.empty()) {
    showMessage("Check at least one configuration.");
    return;
  }
  for (const auto& c : r.configs)
    if (c.block_size == 0) {
      showMessage("Block sizes must be whole numbers of tokens, at least 1.");
      return;
    }
  showMessage({});
  progress_->setRange(0, 0);  // busy until the first progress report
  status_->setText(r.source == ReplayRequest::Source::llama2c
                       ? "Generating the model's token stream…"
                       : "Opening the trace…");
  if (runner_->start(r)) setBusy(true);
}

void ReplayView::cancel() {
  runner_->cancel();
  status_->setText("Cancelling…");
  cancel_->setEnabled(false);
}

void ReplayView::setBusy(bool busy) {
  run_->setEnabled(!busy);
  cancel_->setEnabled(busy);
  configs_->setEnabled(!busy);
}

void ReplayView::showMessage(const QString& message) { setBannerMessage(banner_, message); }

void ReplayView::showOutcome(const ReplayOutcome& o) {
  setBusy(false);
  progress_->setRange(0, 100);
  switch (o.status) {
    case ReplayOutcome::Status::cancelled:
      progress_->setValue(0);
      status_->setText("Cancelled.");
      return;
    case ReplayOutcome::Status::failed:
      progress_->setValue(0);
      status_->setText("Failed.");
      showMessage("Replay failed: " + o.error);
      return;
    case ReplayOutcome::Status::done:
      break;
  }
  progress_->setValue(100);
  const auto& rep = o.report;
  status_->setText(QString("Done: %1 tokens of %2 through %3 configuration(s); predicted and "
                           "measured bytes %4.")
                       .arg(groupedNumber(rep.tokens))
                       .arg(qs(rep.model))
                       .arg(rep.configs.size())
                       .arg(rep.all_bytes_match() ? "agree at every step" : "DISAGREE"));
  results_model_->setResults(rep, o.probe ? &*o.probe : nullptr);
  showProbe(o);
  // Columns with nothing to show for this replay (no model in the loop, no probe) are hidden;
  // the others are as wide as their contents.
  for (int col = 0; col < results_model_->columnCount(); ++col) {
    bool any = false;
    for (int row = 0; row < results_model_->rowCount() && !any; ++row)
      any = results_model_->index(row, col).data(Qt::UserRole).isValid() || col == 0 || col == 4;
    results_->setColumnHidden(col, !any);
  }
  results_->resizeColumnsToContents();
  plot(rep);
}

void ReplayView::showProbe(const ReplayOutcome& o) {
  const sim::ProbeReport* p = o.probe ? &*o.probe : nullptr;
  if (p) {
    const QString kind = p->options.kind == sim::ProbeKind::copy ? "Copy" : "Needle";
    probe_verdict_->setText(kind + " probe: " + qs(sim::probe_verdict(*p)));
  }
  probe_verdict_->setVisible(p != nullptr);
}

void ReplayView::plot(const sim::ReplayReport& rep) {
  QStringList cats;  // bottom up (appendBottomUp)
  for (std::size_t i = rep.configs.size(); i-- > 0;) cats << shortLabel(i, rep.configs[i]);
  // A label needs about 24 pixels of height per configuration, or the chart elides it; the
  // title and the value axis take about 110 more (the legends are on the right or hidden).
  const int height = 110 + 24 * static_cast<int>(rep.configs.size());
  for (QChartView* v : {memory_chart_, fidelity_chart_, error_chart_}) v->setMinimumHeight(height);
  plotMemory(memory_chart_, rep, cats);
  plotFidelity(fidelity_chart_->chart(), rep, cats);
  plotError(error_chart_->chart(), rep, cats);
}

}  // namespace kvplan::gui
