#include "compare_view.hpp"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <functional>

#include "ui_format.hpp"

namespace kvplan::gui {
namespace {

struct Row {
  QString label;
  std::function<QString(const PlanResults&)> text;
  std::function<std::optional<std::int64_t>(const PlanResults&)> number;  // for B − A
  bool bytes = false;
};

std::optional<std::int64_t> none(const PlanResults&) { return std::nullopt; }

const std::vector<Row>& rows() {
  static const std::vector<Row> v{
      {"model", [](const PlanResults& r) { return qs(r.model.name); }, none},
      {"GPU", [](const PlanResults& r) { return qs(r.gpu.name); }, none},
      {"GPUs in all", [](const PlanResults& r) { return QString::number(r.settings.gpus); },
       [](const PlanResults& r) { return std::optional<std::int64_t>(r.settings.gpus); }},
      {"TP × PP",
       [](const PlanResults& r) {
         return QString("%1 × %2").arg(r.settings.tp).arg(r.settings.pp);
       },
       none},
      {"engine", [](const PlanResults& r) { return qs(to_string(r.settings.engine)); }, none},
      {"KV format", [](const PlanResults& r) { return qs(r.settings.kv_format); }, none},
      {"retention policy", [](const PlanResults& r) { return qs(r.settings.policy); }, none},
      {"context (tokens)", [](const PlanResults& r) { return groupedNumber(r.settings.context); },
       [](const PlanResults& r) { return std::optional<std::int64_t>(r.settings.context); }},
      {"target concurrency",
       [](const PlanResults& r) { return groupedNumber(r.settings.concurrency); },
       [](const PlanResults& r) { return std::optional<std::int64_t>(r.settings.concurrency); }},
      {"max concurrency at context",
       [](const PlanResults& r) { return groupedNumber(r.capacity.max_requests); },
       [](const PlanResults& r) { return std::optional<std::int64_t>(r.capacity.max_requests); }},
      {"max context at concurrency",
       [](const PlanResults& r) { return groupedNumber(r.max_context); },
       [](const PlanResults& r) { return std::optional<std::int64_t>(r.max_context); }},
      {"KV per token", [](const PlanResults& r) { return humanBytes(r.cost.bytes_per_token); },
       [](const PlanResults& r) { return std::optional<std::int64_t>(r.cost.bytes_per_token); },
       true},
      {"KV per request", [](const PlanResults& r) { return humanBytes(r.cost.bytes_per_request); },
       [](const PlanResults& r) { return std::optional<std::int64_t>(r.cost.bytes_per_request); },
       true},
      {"KV pool per GPU",
       [](const PlanResults& r) { return humanBytes(r.capacity.memory.available_bytes); },
       [](const PlanResults& r) {
         return std::optional<std::int64_t>(r.capacity.memory.available_bytes);
       },
       true},
      {"weights per GPU",
       [](const PlanResults& r) { return humanBytes(r.capacity.memory.weight_bytes); },
       [](const PlanResults& r) {
         return std::optional<std::int64_t>(r.capacity.memory.weight_bytes);
       },
       true},
      {"GPUs needed for the target",
       [](const PlanResults& r) {
         return r.order.feasible ? QString::number(r.order.gpus) : QString("none");
       },
       [](const PlanResults& r) {
         return r.order.feasible ? std::optional<std::int64_t>(r.order.gpus) : std::nullopt;
       }},
  };
  return v;
}

}  // namespace

CompareView::CompareView(PlannerModel* model, QWidget* parent) : QWidget(parent), model_(model) {
  auto* col = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout;
  auto* pinA = new QPushButton("Pin current plan as A");
  pinA->setObjectName("pinAButton");
  auto* pinB = new QPushButton("Pin current plan as B");
  pinB->setObjectName("pinBButton");
  connect(pinA, &QPushButton::clicked, this, [this] { model_->pin(0); });
  connect(pinB, &QPushButton::clicked, this, [this] { model_->pin(1); });
  bar->addWidget(pinA);
  bar->addWidget(pinB);
  bar->addStretch(1);
  col->addLayout(bar);
  auto* hint = new QLabel(
      "Pin the planner's current scenario as A or B, change inputs, and compare them here. "
      "B − A is exact (tooltips give bytes).");
  hint->setWordWrap(true);
  col->addWidget(hint);
  table_ = new QTableWidget;
  table_->setObjectName("compareTable");
  table_->setColumnCount(3);
  table_->setHorizontalHeaderLabels({"A", "B", "B − A"});
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  col->addWidget(table_, 1);
  connect(model_, &PlannerModel::pinsChanged, this, &CompareView::refresh);
  refresh();
}

void CompareView::refresh() {
  const auto& a = model_->pinned(0);
  const auto& b = model_->pinned(1);
  const auto& rs = rows();
  table_->setRowCount(static_cast<int>(rs.size()));
  QStringList labels;
  for (int i = 0; i < static_cast<int>(rs.size()); ++i) {
    const Row& row = rs[static_cast<std::size_t>(i)];
    labels << row.label;
    auto put = [&](int col, const std::optional<PlanResults>& p) {
      QString text = "not pinned";
      QString tip;
      if (p) {
        text = p->ok ? row.text(*p) : (i == 0 ? qs(p->error) : QString("—"));
        if (row.bytes && p->ok)
          if (auto n = row.number(*p)) tip = exactBytes(static_cast<std::uint64_t>(*n));
      }
      auto* it = new QTableWidgetItem(text);
      it->setToolTip(tip);
      it->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
      table_->setItem(i, col, it);
    };
    put(0, a);
    put(1, b);
    QString diff;
    QString tip;
    if (a && b && a->ok && b->ok) {
      auto na = row.number(*a), nb = row.number(*b);
      if (na && nb) {
        const std::int64_t d = *nb - *na;
        const std::uint64_t mag = static_cast<std::uint64_t>(d < 0 ? -d : d);
        const QString sign = d > 0 ? "+" : (d < 0 ? "−" : "");
        diff = sign + (row.bytes ? humanBytes(mag) : groupedNumber(mag));
        if (row.bytes) tip = sign + exactBytes(mag);
      } else if (row.text(*a) != row.text(*b)) {
        diff = "changed";
      }
    }
    auto* it = new QTableWidgetItem(diff);
    it->setToolTip(tip);
    it->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    table_->setItem(i, 2, it);
  }
  table_->setVerticalHeaderLabels(labels);
}

}  // namespace kvplan::gui
