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

}  // namespace

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
