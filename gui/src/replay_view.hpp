// The replay view: pick a trace (.safetensors), a llama2.c checkpoint, or write a synthetic trace;
// choose KV configurations (format × policy × block size); replay them on a worker thread
// (ReplayRunner) with a progress bar and Cancel, optionally followed by a retrieval probe
// (kvplan/sim/probe.hpp) through the same configurations; plot memory (predicted by core's formula
// and measured in the kernels' block pool) and fidelity per configuration. The window stays
// responsive throughout; errors show as a message in the view.
#pragma once

#include <QTemporaryDir>
#include <QWidget>
#include <QtCharts/QChartView>
#include <memory>

#include "replay_runner.hpp"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableView;
class QTableWidget;
class QVBoxLayout;
class QWidget;

namespace kvplan::gui {

class ReplayTableModel;

class ReplayView : public QWidget {
  Q_OBJECT
 public:
  explicit ReplayView(QWidget* parent = nullptr);

  ReplayRunner* runner() const { return runner_; }
  // The request the widgets describe (configurations: the checked rows).
  ReplayRequest request() const;
  // Sets the input file and its kind (trace or llama2.c checkpoint).
  void setInput(const QString& path, ReplayRequest::Source source);
  // Writes a synthetic trace of `tokens` tokens to a session temp folder and selects it.
  bool writeSyntheticTrace(std::uint64_t tokens);
  void showOutcome(const ReplayOutcome& outcome);
  // The results table (objectName "replayResults") and its model: the last finished replay.
  QTableView* results() const { return results_; }
  ReplayTableModel* resultsModel() const { return results_model_; }

 public Q_SLOTS:
  void run();
  void cancel();

 private:
  QWidget* buildInputs();
  // buildInputs()'s boxes: the input file, the model in the loop, the configurations, and the
  // run controls below them.
  QWidget* buildSourceBox();
  QWidget* buildModelBox();
  QWidget* buildConfigBox();
  void addRunControls(QVBoxLayout* col);
  QWidget* buildResults();
  void addConfigRow(const QString& format, const QString& policy, int block, bool checked);
  void setBusy(bool busy);
  void showMessage(const QString& message);
  void plot(const sim::ReplayReport& report);
  void showProbe(const ReplayOutcome& outcome);  // the probe's verdict above the table

  ReplayRunner* runner_;
  std::unique_ptr<QTemporaryDir> temp_;
  QComboBox* source_;
  QLineEdit* path_;
  QLineEdit* tokenizer_;
  QLineEdit* prompt_;
  QSpinBox* steps_;
  QSpinBox* synth_tokens_;
  QSpinBox* max_tokens_;
  QSpinBox* eval_from_;
  QTableWidget* configs_;
  QPushButton* run_;
  QPushButton* cancel_;
  QProgressBar* progress_;
  QLabel* status_;
  QLabel* banner_;
  QTableView* results_;
  ReplayTableModel* results_model_;
  QChartView* memory_chart_;
  QChartView* fidelity_chart_;  // attention mass kept (and top-1 agreement): higher is better
  QChartView* error_chart_;     // output error: lower is better, on an axis of its own
  QWidget* model_options_;
  // Retrieval probe (model only): its kind and options; its verdict above the results.
  QComboBox* probe_;
  QSpinBox* probe_span_;
  QSpinBox* probe_cue_;
  QSpinBox* probe_filler_;
  QDoubleSpinBox* probe_depth_;
  QSpinBox* probe_prompts_;
  QLabel* probe_verdict_;
};

}  // namespace kvplan::gui
