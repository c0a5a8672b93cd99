#include "plan_tables.hpp"

#include <QStringList>

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

}  // namespace kvplan::gui
