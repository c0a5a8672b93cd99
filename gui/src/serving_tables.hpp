// The Serving view's result tables as item models, read-only, numbers right-aligned:
//   LatencyTableModel — one row per scope (the whole run, then each workload stage) and metric
//                       (TTFT, TPOT, ITL, E2E): scope, metric, count, mean, p50, p90, p99 in ms,
//                       shown to 0.01 ms; Qt::UserRole gives the exact double of SimResult.
//   SloTableModel     — sim::slo_search's ranked rows: GPU, TP, replicas, GPUs, KV format,
//                       policy, engine native, meets the SLO, TTFT / TPOT / E2E p99 (ms),
//                       USD / hour, simulations, and the reason (or the winner's vLLM command).
//
//   LatencyTableModel m;   m.setResult(sim::simulate(...));
//   m.data(m.index(0, 6));                 // "1234.57": the whole run's TTFT p99 in ms
//   m.data(m.index(0, 6), Qt::UserRole);   // 1234.5678…, r.summary.ttft_ms.p99
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "kvplan/sim/serving.hpp"
#include "kvplan/sim/slo_search.hpp"

namespace kvplan::gui {

class LatencyTableModel final : public QAbstractTableModel {
  Q_OBJECT
 public:
  using QAbstractTableModel::QAbstractTableModel;
  static constexpr int kMetrics = 4;  // TTFT, TPOT, ITL, E2E: rows per scope
  void setResult(const sim::SimResult& r);
  void clear();
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

 private:
  std::vector<sim::StageSummary> scopes_;  // [0] the whole run, then the stages
};

class SloTableModel final : public QAbstractTableModel {
  Q_OBJECT
 public:
  using QAbstractTableModel::QAbstractTableModel;
  void setRows(std::vector<sim::SloRow> rows);
  const std::vector<sim::SloRow>& rows() const { return rows_; }
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

 private:
  std::vector<sim::SloRow> rows_;
};

}  // namespace kvplan::gui
