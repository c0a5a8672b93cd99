// Two pinned scenarios side by side (A and B) with the difference B − A where it is a number.
// Pins are PlanResults snapshots held by PlannerModel, so nothing is recomputed here: the table is
// a CompareTableModel (plan_tables.hpp) refilled whenever a pin changes.
#pragma once

#include <QWidget>

#include "planner_model.hpp"

class QTableView;

namespace kvplan::gui {

class CompareTableModel;

class CompareView : public QWidget {
  Q_OBJECT
 public:
  explicit CompareView(PlannerModel* model, QWidget* parent = nullptr);
  QTableView* table() const { return table_; }
  CompareTableModel* tableModel() const { return table_model_; }

 private:
  void refresh();
  PlannerModel* model_;
  QTableView* table_;
  CompareTableModel* table_model_;
};

}  // namespace kvplan::gui
