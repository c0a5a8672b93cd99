// The planner's two charts, drawn from a PlanResults snapshot:
//   ConcurrencyChart — max concurrent requests versus context length (log-log), one curve per KV
//                      format, the target concurrency as a dashed line, the current plan as a dot.
//   MemoryBarChart   — one GPU's memory as a stacked bar: weights, KV cache, reserve, free.
#pragma once

#include <QtCharts/QChartView>

#include "plan_results.hpp"

namespace kvplan::gui {

class ConcurrencyChart : public QChartView {
  Q_OBJECT
 public:
  explicit ConcurrencyChart(QWidget* parent = nullptr);
  void setResults(const PlanResults& r);
};

class MemoryBarChart : public QChartView {
  Q_OBJECT
 public:
  explicit MemoryBarChart(QWidget* parent = nullptr);
  void setResults(const PlanResults& r);
};

}  // namespace kvplan::gui
