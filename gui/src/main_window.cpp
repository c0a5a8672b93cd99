#include "main_window.hpp"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QTabWidget>
#include <exception>

#include "charts.hpp"
#include "compare_view.hpp"
#include "planner_view.hpp"
#include "replay_view.hpp"
#include "scenario_io.hpp"
#include "serving_view.hpp"

namespace kvplan::gui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle("kvplan — KV-cache capacity planner");
  model_ = new PlannerModel(this);
  tabs_ = new QTabWidget;
  tabs_->setObjectName("mainTabs");
  planner_view_ = new PlannerView(model_);
  compare_view_ = new CompareView(model_);
  replay_view_ = new ReplayView;
  serving_view_ = new ServingView(model_);
  tabs_->addTab(planner_view_, "Planner");
  tabs_->addTab(compare_view_, "Compare scenarios");
  tabs_->addTab(replay_view_, "Replay traces");
  tabs_->addTab(serving_view_, "Serving");
  setCentralWidget(tabs_);
  buildMenus();
  statusBar()->showMessage("Ready");
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu("&File");
  file->addAction("Open &config.json…", QKeySequence("Ctrl+M"), planner_view_,
                  &PlannerView::openModelFileDialog);
  file->addAction("&Open deployment…", QKeySequence::Open, this, [this] {
    const QString p = QFileDialog::getOpenFileName(this, "Open a deployment", deployment_path_,
                                                   "Deployment JSON (*.json);;All files (*)");
    if (!p.isEmpty()) openDeployment(p);
  });
  file->addAction("&Save deployment", QKeySequence::Save, this, [this] {
    QString p = deployment_path_;
    if (p.isEmpty())
      p = QFileDialog::getSaveFileName(this, "Save the deployment", "deploy.json",
                                       "Deployment JSON (*.json)");
    if (!p.isEmpty()) saveDeployment(p);
  });
  file->addAction("Save deployment &as…", QKeySequence::SaveAs, this, [this] {
    const QString p = QFileDialog::getSaveFileName(
        this, "Save the deployment as",
        deployment_path_.isEmpty() ? "deploy.json" : deployment_path_, "Deployment JSON (*.json)");
    if (!p.isEmpty()) saveDeployment(p);
  });
  file->addAction("&Export report…", this, [this] {
    const QString p = QFileDialog::getSaveFileName(this, "Export a Markdown report", "report.md",
                                                   "Markdown (*.md)");
    if (!p.isEmpty()) exportReport(p);
  });
  file->addSeparator();
  file->addAction("&Quit", QKeySequence::Quit, qApp, &QApplication::quit);
  QMenu* scen = menuBar()->addMenu("&Scenarios");
  scen->addAction("Pin current plan as &A", QKeySequence("Ctrl+1"), this, [this] {
    model_->pin(0);
    statusBar()->showMessage("Pinned as A", 3000);
  });
  scen->addAction("Pin current plan as &B", QKeySequence("Ctrl+2"), this, [this] {
    model_->pin(1);
    statusBar()->showMessage("Pinned as B", 3000);
  });
}

void MainWindow::fail(const QString& message) {
  last_error_ = message;
  statusBar()->showMessage(message);
}

bool MainWindow::saveDeployment(const QString& path) {
  QString error;
  if (!save_deployment(path, model_->settings(), model_->model(), &error)) {
    fail(error);
    if (isVisible() && !QApplication::platformName().contains("offscreen"))
      QMessageBox::warning(this, "Save failed", error);
    return false;
  }
  deployment_path_ = path;
  statusBar()->showMessage("Saved " + path, 5000);
  return true;
}

bool MainWindow::openDeployment(const QString& path) {
  QString error;
  auto loaded = load_deployment(path, &error);
  if (!loaded) {
    fail(error);
    model_->reportError(error);
    return false;
  }
  if (!model_->applyLoaded(loaded->settings, loaded->model)) {
    fail(model_->message());
    return false;
  }
  serving_view_->setDisaggLayout(loaded->deployment.disagg);
  deployment_path_ = path;
  statusBar()->showMessage("Opened " + path, 5000);
  return true;
}

bool MainWindow::exportReport(const QString& markdown_path) {
  QString error;
  if (!export_report(markdown_path, model_->results(), model_->pinned(0), model_->pinned(1),
                     planner_view_->concurrencyChart(), &error)) {
    fail(error);
    return false;
  }
  statusBar()->showMessage("Exported " + markdown_path, 5000);
  return true;
}

bool MainWindow::screenshots(const QString& dir) {
  if (!QDir().mkpath(dir)) {
    fail("Cannot create " + dir);
    return false;
  }
  const auto grabTo = [this, &dir](int tab, const char* name) {
    tabs_->setCurrentIndex(tab);
    QApplication::processEvents();
    const QString out = QDir(dir).filePath(name);
    if (!grab().save(out)) {
      fail("Cannot write " + out);
      return false;
    }
    return true;
  };
  const auto showTable = [](QWidget* view, const char* tabs, int index) {
    if (auto* t = view->findChild<QTabWidget*>(tabs)) t->setCurrentIndex(index);
  };
  // The Serving view: its example workload against p99 limits of 1 s TTFT and 50 ms TPOT,
  // simulated, then sized for that SLO over every GPU preset at TP 1 and 2 with bf16 and fp8.
  if (auto* s = serving_view_->findChild<QDoubleSpinBox*>("sloTtftP99")) s->setValue(1000);
  if (auto* s = serving_view_->findChild<QDoubleSpinBox*>("sloTpotP99")) s->setValue(50);
  const ServingRequest request = serving_view_->request();
  ServingOutcome run;
  try {
    run.result = run_serving(request, {});
    run.status = ServingOutcome::Status::done;
  } catch (const std::exception& e) {
    run.error = QString::fromUtf8(e.what());
  }
  serving_view_->showOutcome(run);

  showTable(planner_view_, "plannerTables", 0);
  if (!grabTo(0, "planner.png")) return false;
  showTable(planner_view_, "plannerTables", 1);
  if (!grabTo(0, "planner-whatif.png")) return false;
  showTable(planner_view_, "plannerTables", 0);
  if (!grabTo(1, "compare.png") || !grabTo(2, "replay.png") || !grabTo(3, "serving.png"))
    return false;

  ServingOutcome search;
  search.search = true;
  try {
    SloGrid grid;
    grid.tps = {1, 2};
    grid.formats = {"bf16", "fp8"};
    grid.max_gpus = 16;
    search.rows = run_slo_search(request, grid, nullptr, {}, 4);
    search.status = ServingOutcome::Status::done;
  } catch (const std::exception& e) {
    search.error = QString::fromUtf8(e.what());
  }
  serving_view_->showOutcome(search);
  if (!grabTo(3, "serving-slo.png")) return false;
  tabs_->setCurrentIndex(0);
  return true;
}

}  // namespace kvplan::gui
