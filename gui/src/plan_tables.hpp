// The planner's result tables as item models (Qt's model/view): the GPU order and the what-if
// rows of a PlanResults, read-only, numbers right-aligned, exact values in tool tips. The views
// only display them; tests/gui/test_gui_tables.cpp checks them with QAbstractItemModelTester.
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "kvplan/planner.hpp"

namespace kvplan::gui {

// One row per GPU type: GPU type, GPUs, TP, PP, replicas, holds (requests), USD / hour, note.
class OrderTableModel final : public QAbstractTableModel {
  Q_OBJECT
 public:
  using QAbstractTableModel::QAbstractTableModel;
  void setRows(std::vector<OrderOption> rows);
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

 private:
  std::vector<OrderOption> rows_;
};

// One row per other format and policy: KV format, policy, engine native, KV per request, max
// requests, max context (tokens), GPUs for target.
class WhatIfTableModel final : public QAbstractTableModel {
  Q_OBJECT
 public:
  using QAbstractTableModel::QAbstractTableModel;
  void setRows(std::vector<WhatIf> rows);
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

 private:
  std::vector<WhatIf> rows_;
};

}  // namespace kvplan::gui
