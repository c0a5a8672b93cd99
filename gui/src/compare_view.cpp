#include "compare_view.hpp"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include "plan_tables.hpp"

namespace kvplan::gui {

CompareView::CompareView(PlannerModel* model, QWidget* parent) : QWidget(parent), model_(model) {
  auto* col = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout;
  auto* pinA = new QPushButton("Pin current plan as A");
  pinA->setObjectName("pinAButton");
  auto* pinB = new QPushButton("Pin current plan as B");
  pinB->setObjectName("pinBButton");
  connect(pinA, &QPushButton::clicked, this, [this] { model_->pin(0); });
  connect(pinB, &QPushButton::clicked, this, [this] { model_->pin(1); });
  bar->addWidget(pinA);
  bar->addWidget(pinB);
  bar->addStretch(1);
  col->addLayout(bar);
  auto* hint = new QLabel(
      "Pin the planner's current scenario as A or B, change inputs, and compare them here. "
      "B − A is exact (tooltips give bytes).");
  hint->setWordWrap(true);
  col->addWidget(hint);
  table_model_ = new CompareTableModel(this);
  table_ = new QTableView;
  table_->setObjectName("compareTable");
  table_->setModel(table_model_);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  col->addWidget(table_, 1);
  connect(model_, &PlannerModel::pinsChanged, this, &CompareView::refresh);
  refresh();
}

void CompareView::refresh() { table_model_->setPins(model_->pinned(0), model_->pinned(1)); }

}  // namespace kvplan::gui
