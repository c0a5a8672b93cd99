// The Serving view's charts:
//   LengthHistogramChart — how many drawn requests have each token count (equal-width bins
//                          between the smallest and largest count), prompt or output tokens.
//   KvUsageChart         — KV blocks in use over simulated time against the pool (a dashed line),
//                          samples where preemptions happened marked in red.
//   SweepChart           — a concurrency sweep (sim::sweep): tokens/s per GPU against tokens/s per
//                          user, one point per concurrency, the knee ringed, the TPOT SLO a line.
//   TransferQueueChart   — a disaggregated run's transfer queue over time (sim::transfer_series):
//                          transfers waiting for decode blocks, waiting for the link, on it.
// Both only draw what they are given: the lengths of sim::parse_workload_json's requests and
// SimResult::kv_series.
#pragma once

#include <QtCharts/QChartView>
#include <cstdint>
#include <vector>

#include "kvplan/sim/disagg.hpp"
#include "kvplan/sim/serving.hpp"
#include "kvplan/sim/sweep.hpp"

namespace kvplan::gui {

// Equal-width bins over [min, max] of `values`: bin i counts lo + i·width <= v < lo + (i+1)·width
// (the last bin includes max). Empty input: no bins. One distinct value v: one bin
// [v - 0.5, v + 0.5).
struct Histogram {
  double lo = 0, width = 0;           // tokens
  std::vector<std::uint64_t> counts;  // requests per bin
};
Histogram histogram(const std::vector<std::uint64_t>& values, int bins);

class LengthHistogramChart : public QChartView {
  Q_OBJECT
 public:
  explicit LengthHistogramChart(const QString& title, QWidget* parent = nullptr);
  void setValues(const std::vector<std::uint64_t>& tokens);
  const Histogram& shown() const { return shown_; }

 private:
  QString title_;
  Histogram shown_;
};

class KvUsageChart : public QChartView {
  Q_OBJECT
 public:
  explicit KvUsageChart(QWidget* parent = nullptr);
  void setResult(const sim::SimResult& r);
  void clear();
  // Samples drawn as preemption marks (those whose cumulative count rose since the previous one).
  int preemptionMarks() const { return marks_; }

 private:
  int marks_ = 0;
};

class SweepChart : public QChartView {
  Q_OBJECT
 public:
  explicit SweepChart(QWidget* parent = nullptr);
  // Series named (objectName) "points": the line through one point per concurrency with a
  // TPOT, in order; "knee": the knee, if any; "slo": the TPOT limit, if any.
  void setResult(const sim::SweepResult& r);
};

class TransferQueueChart : public QChartView {
  Q_OBJECT
 public:
  explicit TransferQueueChart(QWidget* parent = nullptr);
  // Series named (objectName) "waitingBlocks", "waitingLink" and "onLink", one point a sample.
  void setSeries(const std::vector<sim::TransferSample>& samples);
  void clear();
};

}  // namespace kvplan::gui
