// The Serving view: a workload editor (arrival process and stages, prompt and output length
// distributions, shared prefixes and a prompt pool; load and save `kvplan_workload` JSON) with
// the histograms of the lengths the library draws from it; the deployment (model, GPU, TP,
// engine, KV format, policy and max_model_len are the planner's own settings, edited here or in
// the Planner tab; max_num_seqs, max_num_batched_tokens and prefix caching are the scheduler's);
// Run on a worker thread (ServingRunner) with progress and Cancel; then KV blocks in use over time
// against the pool with preemptions marked, and the latency percentiles per stage and overall.
// "Find the cheapest order" runs the SLO sizing search (sim::slo_search: GPU type × TP × KV
// format, the fewest replicas meeting the SLO limits, ranked by cost) on the same worker, with
// the same Cancel, into the SLO table. Every number comes from kvplan::sim (parse_workload_json,
// simulate, slo_search).
#pragma once

#include <QWidget>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "planner_model.hpp"
#include "serving_runner.hpp"
#include "serving_workload.hpp"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableView;
class QTableWidget;
class QTabWidget;
class QTimer;

namespace kvplan::gui {

class KvUsageChart;
class LatencyTableModel;
class LengthHistogramChart;
class SloTableModel;
class SweepChart;
class TransferQueueChart;

// The widgets of one length distribution (prompt or output tokens).
struct LengthDistWidgets {
  QComboBox* dist = nullptr;
  QDoubleSpinBox *mean = nullptr, *std = nullptr, *min = nullptr, *max = nullptr;  // 0 = unset
  // (token counts are at least 1, so 0 is never a token value: docs/simulate.md)
  QLineEdit* bins = nullptr;  // histogram: JSON [[lo, hi, weight], ...]
};

class ServingView : public QWidget {
  Q_OBJECT
 public:
  explicit ServingView(PlannerModel* model, QWidget* parent = nullptr);

  ServingRunner* runner() const { return runner_; }
  LatencyTableModel* latencyModel() const { return latency_model_; }
  SloTableModel* sloModel() const { return slo_model_; }
  KvUsageChart* kvChart() const { return kv_chart_; }
  SweepChart* sweepChart() const { return sweep_chart_; }
  // A disaggregated run's charts: each side's pooled KV usage, the transfer queue.
  KvUsageChart* prefillKvChart() const { return prefill_kv_; }
  KvUsageChart* decodeKvChart() const { return decode_kv_; }
  TransferQueueChart* transferChart() const { return transfer_chart_; }
  LengthHistogramChart* promptHistogram() const { return prompt_hist_; }
  LengthHistogramChart* outputHistogram() const { return output_hist_; }

  // The workload the editor describes, and back (the editor's fields follow `w`). Throws
  // kvplan::Error naming the field for a stage cell that is not a number or malformed bins.
  // A value of `w` the widgets cannot show exactly (a mean of 547.5 in a whole-token spin box,
  // 2,000,000 groups above the spin box's range, a cv of 0.005) is kept as set until its field
  // is edited, and the notice names it: setWorkloadSpec(w) then workloadSpec() gives back `w`.
  WorkloadSpec workloadSpec() const;
  void setWorkloadSpec(const WorkloadSpec& w);
  // A deployment file's disaggregated layout (checks the box and fills it; its link latency,
  // overhead and each side's own settings go with the runs), or none (unchecks it).
  void setDisaggLayout(const std::optional<DisaggLayout>& l);
  // The workload the view opens with: a quiet minute with a ten-second burst the deployment
  // cannot keep up with, so the queue and the KV pool fill and drain (docs/gui.md).
  static WorkloadSpec exampleWorkload();
  // "" or the fields kept as loaded because the editor shows them otherwise, with their values.
  QString notice() const;
  // The simulation the widgets describe (throws as workloadSpec); with the SLO grid for a search.
  ServingRequest request() const;
  SloGrid sloGrid() const;
  // A kvplan_workload JSON file into the editor / the editor into a file. On failure the view
  // shows the reason (naming the file and field) and they return false.
  bool loadWorkload(const QString& path);
  bool saveWorkload(const QString& path);
  // Draws the editor's workload with the library and redraws the length histograms; a workload
  // the library refuses shows its message instead. Returns whether it was drawn.
  bool updateHistograms();
  QString message() const { return message_; }
  void showOutcome(const ServingOutcome& outcome);

 public Q_SLOTS:
  void run();
  void runSloSearch();
  void runSweep();
  void cancel();

 private:
  QWidget* buildInputs();
  QGroupBox* buildArrivalBox();
  QGroupBox* buildLengthBox(const QString& title, LengthDistWidgets& w, const QString& name);
  QGroupBox* buildPrefixBox();
  QGroupBox* buildDeploymentBox();
  QGroupBox* buildSchedulerBox();
  QGroupBox* buildSloBox();
  QGroupBox* buildSweepBox();
  QGroupBox* buildDisaggBox();
  QWidget* buildDisaggResults();
  void showDisagg(const sim::DisaggResult& r);
  QWidget* buildResults();
  void showSweep(const sim::SweepResult& r);
  void syncDeployment();
  void editorChanged();
  WorkloadSpec editorSpec() const;
  void updateNotice();
  void setBusy(bool busy);
  void showMessage(const QString& message);

  PlannerModel* model_;
  ServingRunner* runner_;
  QTimer* preview_timer_;
  QString workload_source_ = "Serving view workload";
  // The spec last set (loaded) and what the widgets read back right after showing it: a field
  // whose widget still reads as shown_ keeps loaded_'s value (description and sessions are not
  // edited here, so always).
  WorkloadSpec loaded_, shown_;
  QString message_;

  QComboBox* arrival_;
  QDoubleSpinBox* cv_;
  QTableWidget* stages_;
  QSpinBox* seed_;
  LengthDistWidgets prompt_, output_;
  QGroupBox* prefix_box_;
  QSpinBox *groups_, *shared_tokens_, *prompt_pool_;
  QLabel* sessions_;
  QLabel* notice_;

  QComboBox* model_combo_;
  QComboBox* gpu_combo_;
  QComboBox* tp_combo_;
  QComboBox* engine_combo_;
  QComboBox* format_combo_;
  QComboBox* policy_combo_;
  QSpinBox* context_;
  QSpinBox* max_num_seqs_;
  QSpinBox* max_batched_;
  QCheckBox* prefix_caching_;
  QCheckBox* measured_moe_;
  QDoubleSpinBox *slo_ttft_, *slo_tpot_, *slo_e2e_;
  QCheckBox* slo_all_gpus_;
  std::vector<QCheckBox*> slo_tps_, slo_formats_;
  QSpinBox* slo_max_gpus_;
  QPushButton* slo_run_;
  QLineEdit* sweep_clients_;
  QSpinBox* sweep_per_client_;
  QPushButton* sweep_run_;
  SweepChart* sweep_chart_;
  QGroupBox* disagg_box_;  // checkable: a disaggregated run
  QSpinBox *prefill_replicas_, *decode_replicas_, *prefill_tp_, *decode_tp_;
  QComboBox *kv_link_, *routing_;
  DisaggLayout loaded_disagg_;  // the opened file's: what the box does not show
  QWidget* disagg_results_;
  KvUsageChart *prefill_kv_, *decode_kv_;
  TransferQueueChart* transfer_chart_;
  QLabel* disagg_summary_;

  QPushButton* run_;
  QPushButton* cancel_;
  QProgressBar* progress_;
  QLabel* status_;
  QLabel* banner_;
  QLabel* summary_;
  QLabel* deployment_;  // which model, GPU and engine the simulation runs
  LengthHistogramChart* prompt_hist_;
  LengthHistogramChart* output_hist_;
  KvUsageChart* kv_chart_;
  QTableView* latency_;
  LatencyTableModel* latency_model_;
  QTabWidget* tables_;
  QTableView* slo_table_;
  SloTableModel* slo_model_;
};

}  // namespace kvplan::gui
