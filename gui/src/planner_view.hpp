// The planner view: inputs on the left (model with search and "Open config.json…", GPU, engine,
// parallelism, weights, memory fraction, block size, KV format, policy, context and concurrency as
// slider + spin box), results on the right (headline numbers, the concurrency chart, one GPU's
// memory, the GPU order and what-if tables). Every number is PlannerModel::results(), i.e. core.
#pragma once

#include <QWidget>

#include "planner_model.hpp"

class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QLabel;
class QSlider;
class QSpinBox;
class QTableView;
class QPlainTextEdit;
class QTabWidget;

namespace kvplan::gui {

class ConcurrencyChart;
class OrderTableModel;
class WhatIfTableModel;
class MemoryBarChart;

class PlannerView : public QWidget {
  Q_OBJECT
 public:
  explicit PlannerView(PlannerModel* model, QWidget* parent = nullptr);

  ConcurrencyChart* concurrencyChart() const { return chart_; }
  MemoryBarChart* memoryChart() const { return memory_; }

  // Slider position (0..1000) for a context length, log scale 1K..1M, and back (rounded to 256).
  static int contextToSlider(std::uint64_t tokens);
  static std::uint64_t sliderToContext(int position);
  static int concurrencyToSlider(std::uint64_t requests);
  static std::uint64_t sliderToConcurrency(int position);

 public Q_SLOTS:
  void openModelFileDialog();

 private:
  // The input column, one group box each: its widgets, wired to the model's setters of its
  // PlanSettings fields, and its sync from the settings.
  QWidget* buildInputs();
  QGroupBox* buildModelBox();       // model_ref
  QGroupBox* buildDeploymentBox();  // gpu_id, gpus, tp, pp, draft_layers, engine, weight_dtype,
                                    // memory_fraction_ppm, block_size
  QGroupBox* buildKvCacheBox();     // kv_format, policy
  QGroupBox* buildWorkloadBox();    // context, concurrency
  QWidget* buildResults();
  void syncWidgets();
  void syncModelBox();
  void syncDeploymentBox();
  void syncKvCacheBox();
  void syncWorkloadBox();
  void showResults();
  void showMessage(const QString& message);

  PlannerModel* model_;
  QComboBox* model_combo_;
  QLabel* model_info_;
  QComboBox* gpu_combo_;
  QSpinBox* gpus_;
  QComboBox* tp_combo_;
  QSpinBox* pp_;
  QSpinBox* draft_;
  QComboBox* engine_combo_;
  QComboBox* weight_combo_;
  QDoubleSpinBox* fraction_;
  QSpinBox* block_;
  QComboBox* format_combo_;
  QComboBox* policy_combo_;
  QSlider* context_slider_;
  QSpinBox* context_spin_;
  QSlider* concurrency_slider_;
  QSpinBox* concurrency_spin_;

  QLabel* banner_;
  QLabel* max_concurrency_;
  QLabel* max_concurrency_sub_;
  QLabel* max_context_;
  QLabel* max_context_sub_;
  QLabel* per_token_;
  QLabel* per_token_sub_;
  QLabel* per_request_;
  QLabel* per_request_sub_;
  QLabel* gpus_needed_;
  QLabel* gpus_needed_sub_;
  ConcurrencyChart* chart_;
  MemoryBarChart* memory_;
  QTabWidget* tables_;
  QTableView* orders_;
  QTableView* what_if_;
  QPlainTextEdit* report_;  // core's plan report, as `kvplan plan` prints it
  OrderTableModel* order_model_;
  WhatIfTableModel* what_if_model_;
};

}  // namespace kvplan::gui
