// Two pinned scenarios side by side (A and B) with the difference B − A where it is a number.
// Pins are PlanResults snapshots held by PlannerModel, so nothing is recomputed here.
#pragma once

#include <QWidget>

#include "planner_model.hpp"

class QTableWidget;

namespace kvplan::gui {

class CompareView : public QWidget {
  Q_OBJECT
 public:
  explicit CompareView(PlannerModel* model, QWidget* parent = nullptr);
  QTableWidget* table() const { return table_; }

 private:
  void refresh();
  PlannerModel* model_;
  QTableWidget* table_;
};

}  // namespace kvplan::gui
