// The planner's result tables as item models (Qt's model/view): the GPU order and the what-if
// rows of a PlanResults, and the comparison of two pinned scenarios; read-only, numbers
// right-aligned, exact values in tool tips. The views only display them;
// tests/gui/test_gui_tables.cpp checks them with QAbstractItemModelTester.
//
//   CompareTableModel m;   m.setPins(model->pinned(0), model->pinned(1));
//   m.headerData(5, Qt::Vertical);   // "KV format"
//   m.data(m.index(5, 2));           // "changed" (fp16 vs kivi), or "+1,024" for a number row
#pragma once

#include <QAbstractTableModel>
#include <optional>
#include <vector>

#include "kvplan/planner.hpp"
#include "plan_results.hpp"

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

// Two pinned scenarios side by side: one row per compared quantity (model, GPU, ..., GPUs
// needed), columns A, B and B − A (exact difference for numbers, "changed" for differing text).
// An absent pin reads "not pinned"; a pin whose plan failed shows its error in the first row.
class CompareTableModel final : public QAbstractTableModel {
  Q_OBJECT
 public:
  using QAbstractTableModel::QAbstractTableModel;
  void setPins(std::optional<PlanResults> a, std::optional<PlanResults> b);
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

 private:
  std::optional<PlanResults> a_, b_;
};

}  // namespace kvplan::gui
