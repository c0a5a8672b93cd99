// The replay view's results as an item model, read-only: one row per configuration the replay ran
// (sim::ReplayReport::configs, in order, so row n is the charts' category "n. ..."), 15 columns:
//   0 configuration, 1 tokens, 2 predicted KV, 3 measured KV, 4 equal at every step,
//   5 retained (tokens), 6 output error (rel. L2), 7 attention mass kept, 8 mean KL (nats),
//   9 top-1 agreement, 10 perplexity (8..10: "—" on a trace), then the retrieval probe's
//   11 probe accuracy, 12 probe vs full ("—" without a probe, or where the model cannot do the
//   task), 13 needle kept, 14 needle mass (means over layers; needle probe only).
// Every column but 0 and 4 is right-aligned. Tool tips: exact bytes (2, 3), the needle figures
// per layer (13, 14). Qt::UserRole gives the exact figure behind a number cell (bytes and tokens
// as qulonglong, shares and KL as double; invalid where the cell shows "—").
//
//   ReplayTableModel m;   m.setResults(outcome.report, outcome.probe ? &*outcome.probe : nullptr);
//   m.data(m.index(0, 2));                  // "256.00 KiB (262.14 KB)": fp16 full, 256 tokens,
//                                           //   2 layers, 2 KV heads of 64: 2·2·256·2·64·2 B
//   m.data(m.index(0, 2), Qt::UserRole);    // 262144, report.configs[0].predicted_bytes
//   m.data(m.index(0, 2), Qt::ToolTipRole); // "262,144 bytes"
#pragma once

#include <QAbstractTableModel>
#include <optional>
#include <vector>

#include "kvplan/sim/probe.hpp"
#include "kvplan/sim/replay.hpp"

namespace kvplan::gui {

class ReplayTableModel final : public QAbstractTableModel {
  Q_OBJECT
 public:
  static constexpr int kColumns = 15;
  using QAbstractTableModel::QAbstractTableModel;
  // The report's configurations, each beside the probe's result of the same label (none when
  // `probe` is null or has no such label).
  void setResults(const sim::ReplayReport& report, const sim::ProbeReport* probe);
  void clear();
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  // Horizontal: the column names above; vertical: row numbers from 1 (QAbstractItemModel's).
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

 private:
  struct Row {
    sim::ConfigResult config;
    std::optional<sim::ProbeResult> probe;
  };
  QVariant text(const Row& r, int col) const;
  QVariant exact(const Row& r, int col) const;
  std::vector<Row> rows_;
  bool needle_ = false;          // the probe was a needle probe: columns 13, 14 hold figures
  bool probe_accuracy_ = false;  // the model can do the probe's task: columns 11, 12 hold figures
};

}  // namespace kvplan::gui
