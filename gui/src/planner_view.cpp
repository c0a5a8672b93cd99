#include "planner_view.hpp"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFontDatabase>
#include <QFormLayout>
#include <QFrame>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "charts.hpp"
#include "deploy_form.hpp"
#include "kvplan/engine_rules.hpp"
#include "kvplan/error.hpp"
#include "kvplan/gpu.hpp"
#include "kvplan/model.hpp"
#include "kvplan/report.hpp"
#include "plan_settings.hpp"
#include "plan_tables.hpp"
#include "ui_format.hpp"
#include "widgets.hpp"

namespace kvplan::gui {
namespace {

constexpr int kContextSliderMax = 1000;     // 100 steps per octave, 1K .. 1M
constexpr int kConcurrencySliderMax = 400;  // 100 steps per decade, 1 .. 10,000
constexpr int kContextSpinMax = 1 << 24;    // 16M tokens
constexpr int kConcurrencySpinMax = 1 << 24;

// A headline card: a title, a big value and at most three short lines of detail (the long
// figures are in the tooltips). Nothing wraps: each card is as wide as its longest line.
QFrame* card(const QString& title, QLabel*& value, QLabel*& sub, const QString& name) {
  auto* f = new QFrame;
  f->setFrameShape(QFrame::StyledPanel);
  f->setObjectName(name + "Card");
  auto* l = new QVBoxLayout(f);
  l->setContentsMargins(10, 6, 10, 6);
  auto* t = new QLabel(title);
  t->setStyleSheet("color: #505050; font-weight: bold;");
  value = new QLabel("—");
  value->setObjectName(name);
  QFont big = value->font();
  big.setPointSizeF(big.pointSizeF() * 1.25);
  big.setBold(true);
  value->setFont(big);
  value->setTextInteractionFlags(Qt::TextSelectableByMouse);
  sub = new QLabel;
  sub->setObjectName(name + "Detail");
  l->addWidget(t);
  l->addWidget(value);
  l->addWidget(sub);
  l->addStretch(1);
  return f;
}

}  // namespace

int PlannerView::contextToSlider(std::uint64_t tokens) {
  if (tokens <= 1024) return 0;
  const double v = 100.0 * std::log2(static_cast<double>(tokens) / 1024.0);
  return std::clamp(static_cast<int>(std::lround(v)), 0, kContextSliderMax);
}

std::uint64_t PlannerView::sliderToContext(int position) {
  const double t = 1024.0 * std::exp2(position / 100.0);
  return std::max<std::uint64_t>(256, static_cast<std::uint64_t>(std::llround(t / 256.0)) * 256);
}

int PlannerView::concurrencyToSlider(std::uint64_t requests) {
  if (requests <= 1) return 0;
  const double v = 100.0 * std::log10(static_cast<double>(requests));
  return std::clamp(static_cast<int>(std::lround(v)), 0, kConcurrencySliderMax);
}

std::uint64_t PlannerView::sliderToConcurrency(int position) {
  return std::max<std::uint64_t>(
      1, static_cast<std::uint64_t>(std::llround(std::pow(10.0, position / 100.0))));
}

PlannerView::PlannerView(PlannerModel* model, QWidget* parent) : QWidget(parent), model_(model) {
  auto* split = new QSplitter(Qt::Horizontal);
  split->addWidget(buildInputs());
  split->addWidget(buildResults());
  split->setStretchFactor(0, 0);
  split->setStretchFactor(1, 1);
  split->setChildrenCollapsible(false);
  auto* l = new QHBoxLayout(this);
  l->setContentsMargins(4, 4, 4, 4);
  l->addWidget(split);

  connect(model_, &PlannerModel::resultsChanged, this, &PlannerView::showResults);
  connect(model_, &PlannerModel::settingsChanged, this, &PlannerView::syncWidgets);
  connect(model_, &PlannerModel::modelChanged, this, &PlannerView::syncWidgets);
  connect(model_, &PlannerModel::messageChanged, this, &PlannerView::showMessage);
  syncWidgets();
  showResults();
  showMessage(model_->message());
}

// The input column: one group box per part of the PlanSettings, each built (and later synced) by
// its own function, each wiring its widgets to the PlannerModel setters of its fields.
QWidget* PlannerView::buildInputs() {
  auto* inner = new QWidget;
  auto* col = new QVBoxLayout(inner);
  col->addWidget(buildModelBox());
  col->addWidget(buildDeploymentBox());
  col->addWidget(buildKvCacheBox());
  col->addWidget(buildWorkloadBox());
  col->addStretch(1);
  return makeSettingsScroll(inner, inner->sizeHint().width() + 24);
}

// Model (model_ref): a searchable preset list and an importer for Hugging Face config.json files.
QGroupBox* PlannerView::buildModelBox() {
  auto* mbox = new QGroupBox("Model");
  auto* ml = new QVBoxLayout(mbox);
  model_combo_ = makeModelCombo(model_, "modelCombo");
  auto* open = new QPushButton("Open config.json…");
  open->setObjectName("openModelButton");
  connect(open, &QPushButton::clicked, this, &PlannerView::openModelFileDialog);
  model_info_ = new QLabel;
  model_info_->setObjectName("modelInfo");
  model_info_->setWordWrap(true);
  ml->addWidget(model_combo_);
  ml->addWidget(open);
  ml->addWidget(model_info_);
  return mbox;
}

// Hardware and engine: GPU, GPUs, TP, PP, draft layers, engine, weight dtype, memory fraction,
// block size.
QGroupBox* PlannerView::buildDeploymentBox() {
  auto* hbox = new QGroupBox("Deployment");
  auto* hl = new QFormLayout(hbox);
  gpu_combo_ = makeGpuCombo(model_, "gpuCombo");
  hl->addRow("GPU type", gpu_combo_);
  gpus_ = new QSpinBox;
  gpus_->setObjectName("gpuCount");
  gpus_->setRange(1, 4096);
  gpus_->setKeyboardTracking(false);
  connect(gpus_, &QSpinBox::valueChanged, this,
          [this](int v) { model_->setGpus(static_cast<std::uint32_t>(v)); });
  hl->addRow("GPUs in all", gpus_);
  tp_combo_ = makeTpCombo(model_, "tpCombo");
  hl->addRow("Tensor parallel", tp_combo_);
  pp_ = new QSpinBox;
  pp_->setObjectName("ppSpin");
  pp_->setRange(1, 16);
  connect(pp_, &QSpinBox::valueChanged, this,
          [this](int v) { model_->setPp(static_cast<std::uint32_t>(v)); });
  hl->addRow("Pipeline stages", pp_);
  draft_ = new QSpinBox;
  draft_->setObjectName("draftLayers");
  draft_->setRange(0, 64);
  draft_->setSpecialValueText("none (no speculative decoding)");
  draft_->setToolTip(
      "Speculative layers that hold a KV cache: the model's MTP layers "
      "(num_nextn_predict_layers) or EAGLE draft layers");
  connect(draft_, &QSpinBox::valueChanged, this,
          [this](int v) { model_->setDraftLayers(static_cast<std::uint32_t>(v)); });
  hl->addRow("Draft layers", draft_);
  engine_combo_ = makeEngineCombo(model_, "engineCombo");
  hl->addRow("Engine", engine_combo_);
  weight_combo_ = new QComboBox;
  weight_combo_->setObjectName("weightDtypeCombo");
  weight_combo_->addItem("model's own", QString());
  for (const auto& d : weight_dtype_choices()) weight_combo_->addItem(qs(d), qs(d));
  connect(weight_combo_, &QComboBox::currentIndexChanged, this,
          [this](int i) { model_->setWeightDtype(weight_combo_->itemData(i).toString()); });
  hl->addRow("Weight dtype", weight_combo_);
  fraction_ = new QDoubleSpinBox;
  fraction_->setObjectName("memoryFraction");
  fraction_->setDecimals(3);
  fraction_->setRange(0.05, 1.0);
  fraction_->setSingleStep(0.01);
  fraction_->setKeyboardTracking(false);
  fraction_->setToolTip(
      "vLLM gpu_memory_utilization, SGLang mem_fraction_static, TensorRT-LLM "
      "free_gpu_memory_fraction");
  connect(fraction_, &QDoubleSpinBox::valueChanged, this, [this](double v) {
    try {
      model_->setMemoryFractionPpm(fraction_to_ppm(v, "GUI", "memory fraction"));
    } catch (const std::exception&) {
      // The spin box range keeps v inside (0, 1]; nothing to report.
    }
  });
  hl->addRow("GPU memory fraction", fraction_);
  block_ = new QSpinBox;
  block_->setObjectName("blockSize");
  block_->setRange(0, 1024);
  block_->setSuffix(" tokens");
  block_->setKeyboardTracking(false);
  connect(block_, &QSpinBox::valueChanged, this,
          [this](int v) { model_->setBlockSize(static_cast<std::uint32_t>(v)); });
  hl->addRow("Block size", block_);
  return hbox;
}

// KV cache: the format and retention policy specs, parsed by core.
QGroupBox* PlannerView::buildKvCacheBox() {
  auto* kbox = new QGroupBox("KV cache");
  auto* kl = new QFormLayout(kbox);
  format_combo_ =
      makeSpecCombo(model_, "kvFormatCombo", format_choices(), &PlannerModel::setKvFormat);
  format_combo_->setToolTip("A format spec: fp16, fp8, int8, kivi:bits=2,group=32,residual=128 …");
  kl->addRow("Format", format_combo_);
  policy_combo_ = makeSpecCombo(model_, "policyCombo", policy_choices(), &PlannerModel::setPolicy);
  policy_combo_->setToolTip(
      "A policy spec: full, streaming:sink=4,window=1020, h2o:keep=0.2,recent=0.1, "
      "snapkv:budget=2048 …");
  kl->addRow("Retention", policy_combo_);
  return kbox;
}

// Workload: context on a log slider 1K..1M plus an exact spin box; concurrency likewise.
QGroupBox* PlannerView::buildWorkloadBox() {
  auto* wbox = new QGroupBox("Workload");
  auto* wl = new QFormLayout(wbox);
  context_slider_ = new QSlider(Qt::Horizontal);
  context_slider_->setObjectName("contextSlider");
  context_slider_->setRange(0, kContextSliderMax);
  context_slider_->setTickPosition(QSlider::TicksBelow);
  context_slider_->setTickInterval(100);
  context_slider_->setToolTip("1K to 1M tokens, log scale");
  context_spin_ = new QSpinBox;
  context_spin_->setObjectName("contextSpin");
  context_spin_->setRange(1, kContextSpinMax);
  context_spin_->setGroupSeparatorShown(true);
  context_spin_->setSuffix(" tokens");
  context_spin_->setKeyboardTracking(false);
  connect(context_slider_, &QSlider::valueChanged, this,
          [this](int v) { context_spin_->setValue(static_cast<int>(sliderToContext(v))); });
  connect(context_spin_, &QSpinBox::valueChanged, this, [this](int v) {
    const QSignalBlocker b(context_slider_);
    context_slider_->setValue(contextToSlider(static_cast<std::uint64_t>(v)));
    model_->setContext(static_cast<std::uint64_t>(v));
  });
  wl->addRow("Context length", context_spin_);
  wl->addRow("", context_slider_);
  concurrency_slider_ = new QSlider(Qt::Horizontal);
  concurrency_slider_->setObjectName("concurrencySlider");
  concurrency_slider_->setRange(0, kConcurrencySliderMax);
  concurrency_slider_->setTickPosition(QSlider::TicksBelow);
  concurrency_slider_->setTickInterval(100);
  concurrency_slider_->setToolTip("1 to 10,000 requests, log scale");
  concurrency_spin_ = new QSpinBox;
  concurrency_spin_->setObjectName("concurrencySpin");
  concurrency_spin_->setRange(1, kConcurrencySpinMax);
  concurrency_spin_->setGroupSeparatorShown(true);
  concurrency_spin_->setSuffix(" requests");
  concurrency_spin_->setKeyboardTracking(false);
  connect(concurrency_slider_, &QSlider::valueChanged, this,
          [this](int v) { concurrency_spin_->setValue(static_cast<int>(sliderToConcurrency(v))); });
  connect(concurrency_spin_, &QSpinBox::valueChanged, this, [this](int v) {
    const QSignalBlocker b(concurrency_slider_);
    concurrency_slider_->setValue(concurrencyToSlider(static_cast<std::uint64_t>(v)));
    model_->setConcurrency(static_cast<std::uint64_t>(v));
  });
  wl->addRow("Concurrency", concurrency_spin_);
  wl->addRow("", concurrency_slider_);
  return wbox;
}

QWidget* PlannerView::buildResults() {
  auto* w = new QWidget;
  auto* col = new QVBoxLayout(w);
  col->setContentsMargins(0, 0, 0, 0);
  banner_ = makeErrorBanner("errorBanner");
  col->addWidget(banner_);

  auto* cards = new QHBoxLayout;
  cards->addWidget(
      card("Max concurrency", max_concurrency_, max_concurrency_sub_, "maxConcurrencyValue"));
  cards->addWidget(card("Max context", max_context_, max_context_sub_, "maxContextValue"));
  cards->addWidget(card("KV cache per token", per_token_, per_token_sub_, "bytesPerTokenValue"));
  cards->addWidget(
      card("KV cache per request", per_request_, per_request_sub_, "bytesPerRequestValue"));
  cards->addWidget(card("GPUs for the target", gpus_needed_, gpus_needed_sub_, "gpusNeededValue"));
  col->addLayout(cards);

  auto* split = new QSplitter(Qt::Vertical);
  chart_ = new ConcurrencyChart;
  chart_->setObjectName("concurrencyChart");
  memory_ = new MemoryBarChart;
  memory_->setObjectName("memoryChart");
  tables_ = new QTabWidget;
  tables_->setObjectName("plannerTables");
  order_model_ = new OrderTableModel(this);
  orders_ = new QTableView;
  orders_->setObjectName("orderTable");
  orders_->setModel(order_model_);
  orders_->horizontalHeader()->setStretchLastSection(true);
  orders_->verticalHeader()->hide();
  what_if_model_ = new WhatIfTableModel(this);
  what_if_ = new QTableView;
  what_if_->setObjectName("whatIfTable");
  what_if_->setModel(what_if_model_);
  what_if_->horizontalHeader()->setStretchLastSection(true);
  what_if_->verticalHeader()->hide();
  tables_->addTab(orders_, "GPU order");
  tables_->addTab(what_if_, "What if (formats and policies)");
  // The whole plan report, engine launch lines and fixes included, as `kvplan plan` prints it.
  report_ = new QPlainTextEdit;
  report_->setObjectName("planReport");
  report_->setReadOnly(true);
  report_->setLineWrapMode(QPlainTextEdit::NoWrap);
  report_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  tables_->addTab(report_, "Report and launch lines");
  split->addWidget(chart_);
  split->addWidget(memory_);
  split->addWidget(tables_);
  split->setStretchFactor(0, 6);
  split->setStretchFactor(1, 2);
  split->setStretchFactor(2, 2);
  split->setChildrenCollapsible(false);
  col->addWidget(split, 1);
  return w;
}

void PlannerView::openModelFileDialog() {
  const QString path = QFileDialog::getOpenFileName(this, "Open a model config", QString(),
                                                    "Model configs (*.json);;All files (*)");
  if (!path.isEmpty()) model_->loadModel(path);
}

void PlannerView::syncWidgets() {
  syncModelBox();
  syncDeploymentBox();
  syncKvCacheBox();
  syncWorkloadBox();
}

void PlannerView::syncModelBox() {
  const PlanSettings& s = model_->settings();
  const ModelSpec& m = model_->model();
  syncModelCombo(model_combo_, s, m);
  // The layer breakdown, and for hybrids the fixed state each sequence holds (on one rank).
  QString state;
  if (m.recurrent_layers() > 0) {
    try {
      const auto st = recurrent_state(m.recurrent, s.tp);
      state = QString(" · recurrent state %1 per sequence (%2 layers × conv %3 + ssm %4 B)")
                  .arg(humanBytes(st.bytes() * m.recurrent_layers()))
                  .arg(m.recurrent_layers())
                  .arg(groupedNumber(st.conv_bytes))
                  .arg(groupedNumber(st.ssm_bytes));
    } catch (const Error&) {
      state = " · recurrent state: TP does not divide its heads";
    }
  }
  model_info_->setText(
      QString("%1 layers (%2) · %3 query / %4 KV heads · head dim %5%6 · %7 parameters%8 · "
              "max context %9%10")
          .arg(m.layers.size())
          .arg(qs(describe_layers(m)))
          .arg(m.num_q_heads)
          .arg(m.num_kv_heads)
          .arg(m.head_dim_k)
          .arg(m.is_mla() ? QString(" · MLA latent %1").arg(m.latent_width()) : QString())
          .arg(groupedNumber(m.num_params))
          .arg(m.num_params_estimated ? " (estimated)" : "")
          .arg(m.max_context ? groupedNumber(m.max_context) : QString("unknown"))
          .arg(state));
  model_info_->setToolTip(qs(m.source));
}

void PlannerView::syncDeploymentBox() {
  const PlanSettings& s = model_->settings();
  const ModelSpec& m = model_->model();
  syncGpuCombo(gpu_combo_, s);
  {
    const QSignalBlocker b(gpus_);
    gpus_->setValue(static_cast<int>(s.gpus));
  }
  syncTpCombo(tp_combo_, s, m);  // only the TP sizes core accepts for this model
  {
    const QSignalBlocker b(pp_);
    pp_->setValue(static_cast<int>(s.pp));
  }
  {
    const QSignalBlocker b(draft_);
    draft_->setValue(static_cast<int>(s.draft_layers));
  }
  syncEngineCombo(engine_combo_, s);
  {
    const QSignalBlocker b(weight_combo_);
    int i = weight_combo_->findData(qs(s.weight_dtype));
    weight_combo_->setItemText(0, QString("model's own (%1)").arg(qs(m.weight_dtype)));
    weight_combo_->setCurrentIndex(std::max(i, 0));
  }
  {
    const QSignalBlocker b(fraction_);
    // Unset: the engine's default for this GPU and model (SGLang derives mem_fraction_static).
    std::uint32_t ppm = s.memory_fraction_ppm;
    if (!ppm) {
      try {
        const PlanInput in = plan_input_of(s, resolve_gpu(s));
        ppm = engine_rules(in).default_memory_fraction_ppm(in, &m);
      } catch (const std::exception&) {
        ppm = default_memory_fraction_ppm(s.engine);  // the form's GPU is being edited
      }
    }
    fraction_->setValue(ppm / 1e6);
  }
  {
    const QSignalBlocker b(block_);
    block_->setSpecialValueText(
        QString("engine default (%1 tokens)").arg(default_block_size(s.engine)));
    block_->setValue(static_cast<int>(s.block_size));
  }
}

void PlannerView::syncKvCacheBox() {
  const PlanSettings& s = model_->settings();
  syncSpecCombo(format_combo_, s.kv_format);
  syncSpecCombo(policy_combo_, s.policy);
}

void PlannerView::syncWorkloadBox() {
  const PlanSettings& s = model_->settings();
  {
    const QSignalBlocker b1(context_spin_), b2(context_slider_);
    context_spin_->setValue(static_cast<int>(std::min<std::uint64_t>(s.context, kContextSpinMax)));
    context_slider_->setValue(contextToSlider(s.context));
  }
  {
    const QSignalBlocker b1(concurrency_spin_), b2(concurrency_slider_);
    concurrency_spin_->setValue(
        static_cast<int>(std::min<std::uint64_t>(s.concurrency, kConcurrencySpinMax)));
    concurrency_slider_->setValue(concurrencyToSlider(s.concurrency));
  }
}

void PlannerView::showMessage(const QString& message) { setBannerMessage(banner_, message); }

void PlannerView::showResults() {
  const PlanResults& r = model_->results();
  chart_->setResults(r);
  memory_->setResults(r);
  if (!r.ok) {
    for (QLabel* l : {max_concurrency_, max_context_, per_token_, per_request_, gpus_needed_}) {
      l->setText("—");
      l->setToolTip({});
    }
    for (QLabel* l : {max_concurrency_sub_, max_context_sub_, per_token_sub_, per_request_sub_,
                      gpus_needed_sub_})
      l->setText("no plan: see the message above");
    order_model_->setRows({});
    what_if_model_->setRows({});
    report_->clear();
    return;
  }
  const Capacity& c = r.capacity;
  max_concurrency_->setText(groupedNumber(c.max_requests));
  max_concurrency_->setToolTip(
      c.attention_free
          ? QString("No KV cache: the engine's one null block; max_num_seqs bounds the requests")
          : QString("KV pool per replica: %1 tokens (%2 blocks of %3); %4 per request")
                .arg(groupedNumber(c.kv_cache_tokens))
                .arg(groupedNumber(c.num_gpu_blocks))
                .arg(c.block_size)
                .arg(exactBytes(c.bytes_per_request)));
  if (c.attention_free)
    max_concurrency_sub_->setText(
        QString("requests of %1 tokens\n%2 replica(s) · no KV cache: max_num_seqs %3 each")
            .arg(groupedNumber(r.settings.context))
            .arg(c.replicas)
            .arg(groupedNumber(c.max_requests_per_replica)));
  else
    max_concurrency_sub_->setText(
        QString("requests of %1 tokens\n%2 replica(s) · engine %3x each%4")
            .arg(groupedNumber(r.settings.context))
            .arg(c.replicas)
            .arg(c.max_concurrency, 0, 'f', 2)
            .arg(c.fits_one_request ? QString() : QString("\none request does not fit")));
  max_context_->setText(groupedNumber(r.max_context));
  max_context_->setToolTip(QString("%1 tokens").arg(groupedNumber(r.max_context)));
  // The note only when the model's positions, not the memory, set the figure.
  max_context_sub_->setText(
      QString("tokens each for %1 requests%2")
          .arg(groupedNumber(r.settings.concurrency))
          .arg(r.context_capped
                   ? QString("\ncapped at the model's %1").arg(groupedNumber(r.context_cap))
                   : QString()));
  per_token_->setText(humanBytes(r.cost.bytes_per_token));
  per_token_->setToolTip(exactBytes(r.cost.bytes_per_token));
  per_token_sub_->setText(QString("%1 cached layers\n%2 KV heads per rank")
                              .arg(r.cost.cached_layers)
                              .arg(r.cost.kv_heads_per_rank));
  per_token_sub_->setToolTip(exactBytes(r.cost.bytes_per_token));
  per_request_->setText(humanBytes(r.cost.bytes_per_request));
  per_request_->setToolTip(exactBytes(r.cost.bytes_per_request));
  per_request_sub_->setText(
      QString("%1 tokens, one TP rank\n%2 GiB for %3 requests")
          .arg(groupedNumber(r.settings.context))
          .arg(static_cast<double>(r.cost.total_bytes) / (1ull << 30), 0, 'f', 2)
          .arg(groupedNumber(r.settings.concurrency)));
  per_request_sub_->setToolTip(exactBytes(r.cost.total_bytes));
  if (r.order.feasible) {
    gpus_needed_->setText(groupedNumber(r.order.gpus));
    // A long GPU name is elided here and whole in the tooltip.
    gpus_needed_sub_->setText(
        QString("× %1\nTP %2 · PP %3 · %4 replica(s)\nholds %5 requests")
            .arg(fontMetrics().elidedText(qs(r.gpu.name), Qt::ElideRight, 170))
            .arg(r.order.tp)
            .arg(r.order.pp)
            .arg(r.order.replicas)
            .arg(groupedNumber(r.order.max_requests)));
    gpus_needed_sub_->setToolTip(qs(r.gpu.name));
  } else {
    // The reason can be long: its first words here, all of it in the tooltip.
    const QString reason = qs(r.order.reason);
    gpus_needed_->setText("none");
    gpus_needed_sub_->setText(fontMetrics().elidedText(reason, Qt::ElideRight, 170));
    gpus_needed_sub_->setToolTip(reason);
  }
  gpus_needed_->setToolTip({});

  order_model_->setRows(r.orders);
  orders_->resizeColumnsToContents();
  what_if_model_->setRows(r.what_if);
  what_if_->resizeColumnsToContents();
  report_->setPlainText(qs(kvplan::render(r.report, OutputFormat::table)));
}

}  // namespace kvplan::gui
