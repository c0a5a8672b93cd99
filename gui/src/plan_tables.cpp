#include "plan_tables.hpp"

#include <QStringList>
#include <functional>

#include "ui_format.hpp"

namespace kvplan::gui {
namespace {

// A cell: its text, whether it is a number (right-aligned), its tool tip.
struct Cell {
  QString text;
  bool number = false;
  QString tip;
};

QVariant cellData(const Cell& c, int role) {
  switch (role) {
    case Qt::DisplayRole:
      return c.text;
    case Qt::ToolTipRole:
      return c.tip.isEmpty() ? QVariant() : QVariant(c.tip);
    case Qt::TextAlignmentRole:
      return c.number ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    default:
      return {};
  }
}

QVariant header(const QStringList& names, int section, Qt::Orientation o, int role) {
  if (o != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= names.size())
    return {};
  return names[section];
}

const QStringList& orderHeaders() {
  static const QStringList h{"GPU type",         "GPUs",       "TP",  "PP", "replicas",
                             "holds (requests)", "USD / hour", "note"};
  return h;
}

const QStringList& whatIfHeaders() {
  static const QStringList h{"KV format",      "policy",       "engine native",
                             "KV per request", "max requests", "max context (tokens)",
                             "GPUs for target"};
  return h;
}

Cell orderCell(const OrderOption& o, int col) {
  if (col == 0) return {qs(o.gpu.name), false, qs(o.gpu.id)};
  if (!o.feasible) return col == 7 ? Cell{qs(o.reason), false, qs(o.reason)} : Cell{"—", true, {}};
  switch (col) {
    case 1:
      return {QString::number(o.gpus), true, {}};
    case 2:
      return {QString::number(o.tp), true, {}};
    case 3:
      return {QString::number(o.pp), true, {}};
    case 4:
      return {QString::number(o.replicas), true, {}};
    case 5:
      return {groupedNumber(o.max_requests), true, {}};
    case 6:
      return {o.cost_per_hour > 0 ? QString::number(o.cost_per_hour, 'f', 2) : QString("unknown"),
              true,
              {}};
    default:
      return {};
  }
}

Cell whatIfCell(const WhatIf& w, int col) {
  switch (col) {
    case 0:
      return {qs(w.format), false, {}};
    case 1:
      return {qs(w.policy), false, {}};
    case 2:
      return {w.engine_native ? "yes" : "no (simulated)", false, {}};
    case 3:
      return {humanBytes(w.bytes_per_request), true, exactBytes(w.bytes_per_request)};
    case 4:
      return {groupedNumber(w.max_requests), true, {}};
    case 5:
      return {groupedNumber(w.max_context), true, {}};
    case 6:
      return {w.min_gpus ? QString::number(w.min_gpus) : QString("none"), true, {}};
    default:
      return {};
  }
}

// One compared quantity: its label, its text for a scenario, its value when it is a number (for
// B − A), and whether that number is bytes.
struct CompareRow {
  QString label;
  std::function<QString(const PlanResults&)> text;
  std::function<std::optional<std::int64_t>(const PlanResults&)> number;
  bool bytes = false;
};

std::optional<std::int64_t> none(const PlanResults&) { return std::nullopt; }

const std::vector<CompareRow>& compareRows() {
  static const std::vector<CompareRow> v{
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

// A scenario's cell: "not pinned", its error (first row) or "—" when its plan failed, else the
// row's text (right-aligned when it is a number), with the exact bytes as the tool tip.
Cell scenarioCell(const CompareRow& row, bool first_row, const std::optional<PlanResults>& p) {
  if (!p) return {"not pinned", false, {}};
  if (!p->ok) return {first_row ? qs(p->error) : QString("—"), false, {}};
  const auto n = row.number(*p);
  Cell c{row.text(*p), n.has_value(), {}};
  if (row.bytes && n) c.tip = exactBytes(static_cast<std::uint64_t>(*n));
  return c;
}

// B − A: the signed exact difference of a number row, "changed" where the texts differ.
Cell differenceCell(const CompareRow& row, const std::optional<PlanResults>& a,
                    const std::optional<PlanResults>& b) {
  if (!a || !b || !a->ok || !b->ok) return {};
  const auto na = row.number(*a), nb = row.number(*b);
  if (!na || !nb) return {row.text(*a) != row.text(*b) ? QString("changed") : QString(), false, {}};
  const std::int64_t d = *nb - *na;
  const std::uint64_t mag =
      d < 0 ? std::uint64_t(0) - static_cast<std::uint64_t>(d) : static_cast<std::uint64_t>(d);
  const QString sign = d > 0 ? "+" : (d < 0 ? "−" : "");
  return {sign + (row.bytes ? humanBytes(mag) : groupedNumber(mag)), true,
          row.bytes ? sign + exactBytes(mag) : QString()};
}

bool valid(const QModelIndex& i, std::size_t rows, int cols) {
  return i.isValid() && !i.parent().isValid() && i.row() >= 0 &&
         static_cast<std::size_t>(i.row()) < rows && i.column() >= 0 && i.column() < cols;
}

}  // namespace

void OrderTableModel::setRows(std::vector<OrderOption> rows) {
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
}
int OrderTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}
int OrderTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(orderHeaders().size());
}
QVariant OrderTableModel::data(const QModelIndex& index, int role) const {
  if (!valid(index, rows_.size(), columnCount())) return {};
  return cellData(orderCell(rows_[static_cast<std::size_t>(index.row())], index.column()), role);
}
QVariant OrderTableModel::headerData(int section, Qt::Orientation o, int role) const {
  return header(orderHeaders(), section, o, role);
}

void WhatIfTableModel::setRows(std::vector<WhatIf> rows) {
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
}
int WhatIfTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}
int WhatIfTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(whatIfHeaders().size());
}
QVariant WhatIfTableModel::data(const QModelIndex& index, int role) const {
  if (!valid(index, rows_.size(), columnCount())) return {};
  return cellData(whatIfCell(rows_[static_cast<std::size_t>(index.row())], index.column()), role);
}
QVariant WhatIfTableModel::headerData(int section, Qt::Orientation o, int role) const {
  return header(whatIfHeaders(), section, o, role);
}

void CompareTableModel::setPins(std::optional<PlanResults> a, std::optional<PlanResults> b) {
  beginResetModel();
  a_ = std::move(a);
  b_ = std::move(b);
  endResetModel();
}
int CompareTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(compareRows().size());
}
int CompareTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : 3;
}
QVariant CompareTableModel::data(const QModelIndex& index, int role) const {
  if (!valid(index, compareRows().size(), columnCount())) return {};
  const CompareRow& row = compareRows()[static_cast<std::size_t>(index.row())];
  switch (index.column()) {
    case 0:
      return cellData(scenarioCell(row, index.row() == 0, a_), role);
    case 1:
      return cellData(scenarioCell(row, index.row() == 0, b_), role);
    default:
      return cellData(differenceCell(row, a_, b_), role);
  }
}
QVariant CompareTableModel::headerData(int section, Qt::Orientation o, int role) const {
  static const QStringList columns{"A", "B", "B − A"};
  if (o == Qt::Horizontal) return header(columns, section, o, role);
  if (role != Qt::DisplayRole || section < 0 || section >= rowCount()) return {};
  return compareRows()[static_cast<std::size_t>(section)].label;
}

}  // namespace kvplan::gui
