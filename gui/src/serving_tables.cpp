#include "serving_tables.hpp"

#include <QStringList>
#include <cmath>

namespace kvplan::gui {
namespace {

const QStringList& latencyHeaders() {
  static const QStringList h{"scope",    "metric",   "count",   "mean (ms)",
                             "p50 (ms)", "p90 (ms)", "p99 (ms)"};
  return h;
}

const sim::Percentiles& metricOf(const sim::StageSummary& s, int metric) {
  switch (metric) {
    case 0:
      return s.ttft_ms;
    case 1:
      return s.tpot_ms;
    case 2:
      return s.itl_ms;
    default:
      return s.e2e_ms;
  }
}

const char* metricName(int metric) {
  static const char* names[] = {"TTFT", "TPOT", "ITL", "E2E"};
  return names[metric];
}

const QStringList& sloHeaders() {
  static const QStringList h{"GPU",           "TP",
                             "replicas",      "GPUs",
                             "KV format",     "policy",
                             "engine native", "meets SLO",
                             "TTFT p99 (ms)", "TPOT p99 (ms)",
                             "E2E p99 (ms)",  "USD / hour",
                             "simulations",   "reason / command"};
  return h;
}

QVariant sloText(const sim::SloRow& r, int col) {
  const auto ms = [](double v) { return QString::number(v, 'f', 2); };
  switch (col) {
    case 0:
      return QString::fromStdString(r.gpu);
    case 1:
      return QString::number(r.tp);
    case 2:
      return r.replicas ? QString::number(r.replicas) : QString("—");
    case 3:
      return r.gpus ? QString::number(r.gpus) : QString("—");
    case 4:
      return QString::fromStdString(r.kv_dtype);
    case 5:
      return QString::fromStdString(r.policy);
    case 6:
      return r.engine_native ? QString("yes") : QString("no (simulated)");
    case 7:
      return r.meets ? QString("yes") : QString("no");
    case 8:
      return ms(r.ttft_p99_ms);
    case 9:
      return ms(r.tpot_p99_ms);
    case 10:
      return ms(r.e2e_p99_ms);
    case 11:
      return r.cost_per_hour > 0 ? QString::number(r.cost_per_hour, 'f', 2) : QString("unknown");
    case 12:
      return QString::number(r.simulations);
    default:
      if (!r.meets) return QString::fromStdString(r.reason);
      // A row that meets it without a launch line says why (SloRow::reason).
      return QString::fromStdString(r.vllm_command.value_or(r.sglang_command.value_or(r.reason)));
  }
}

}  // namespace

void SloTableModel::setRows(std::vector<sim::SloRow> rows) {
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
}

int SloTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int SloTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(sloHeaders().size());
}

QVariant SloTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.parent().isValid() || index.row() < 0 ||
      index.row() >= rowCount() || index.column() < 0 || index.column() >= columnCount())
    return {};
  const sim::SloRow& r = rows_[static_cast<std::size_t>(index.row())];
  const int col = index.column();
  switch (role) {
    case Qt::DisplayRole:
      return sloText(r, col);
    case Qt::ToolTipRole:
      return col == 13 ? sloText(r, col) : QVariant();
    case Qt::TextAlignmentRole:
      return (col >= 1 && col <= 3) || (col >= 8 && col <= 12)
                 ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter))
                 : QVariant();
    case Qt::UserRole:  // exact figures for the latency columns
      if (col == 8) return r.ttft_p99_ms;
      if (col == 9) return r.tpot_p99_ms;
      if (col == 10) return r.e2e_p99_ms;
      return {};
    default:
      return {};
  }
}

QVariant SloTableModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole || section < 0 ||
      section >= sloHeaders().size())
    return {};
  return sloHeaders()[section];
}

void LatencyTableModel::setResult(const sim::SimResult& r) {
  beginResetModel();
  scopes_.clear();
  scopes_.push_back(r.summary);
  scopes_.insert(scopes_.end(), r.stages.begin(), r.stages.end());
  endResetModel();
}

void LatencyTableModel::clear() {
  beginResetModel();
  scopes_.clear();
  endResetModel();
}

int LatencyTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(scopes_.size()) * kMetrics;
}

int LatencyTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(latencyHeaders().size());
}

QVariant LatencyTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.parent().isValid() || index.row() < 0 ||
      index.row() >= rowCount() || index.column() < 0 || index.column() >= columnCount())
    return {};
  const std::size_t scope = static_cast<std::size_t>(index.row() / kMetrics);
  const int metric = index.row() % kMetrics;
  const sim::Percentiles& p = metricOf(scopes_[scope], metric);
  const int col = index.column();
  if (role == Qt::TextAlignmentRole)
    return col >= 2 ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
  if (role != Qt::DisplayRole && role != Qt::UserRole) return {};
  switch (col) {
    case 0:
      return scope == 0 ? QString("whole run") : QString("stage %1").arg(scopes_[scope].stage);
    case 1:
      return QString(metricName(metric));
    case 2:
      return role == Qt::UserRole ? QVariant(static_cast<qulonglong>(p.count))
                                  : QVariant(QString::number(p.count));
    default: {
      const double v = col == 3 ? p.mean : col == 4 ? p.p50 : col == 5 ? p.p90 : p.p99;
      if (role == Qt::UserRole) return v;
      // No sample (e.g. TPOT of one-token outputs), or ITL pooled over replicas: no figure.
      return p.count == 0 || std::isnan(v) ? QString("—") : QString::number(v, 'f', 2);
    }
  }
}

QVariant LatencyTableModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole || section < 0 ||
      section >= latencyHeaders().size())
    return {};
  return latencyHeaders()[section];
}

}  // namespace kvplan::gui
