// The kvplan-gui main window: Planner, Compare, Replay and Serving tabs, a File menu for models and
// deployment files, and the one place where errors from file actions become dialogs/messages.
#pragma once

#include <QMainWindow>
#include <QString>

#include "planner_model.hpp"

class QTabWidget;

namespace kvplan::gui {

class PlannerView;
class CompareView;
class ReplayView;
class ServingView;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);

  PlannerModel* planner() const { return model_; }
  PlannerView* plannerView() const { return planner_view_; }
  CompareView* compareView() const { return compare_view_; }
  ReplayView* replayView() const { return replay_view_; }
  ServingView* servingView() const { return serving_view_; }
  QTabWidget* tabs() const { return tabs_; }

  // File actions without dialogs (the menu opens dialogs, then calls these). Each returns false
  // and shows the reason in the window's status bar / message banner on failure.
  bool saveDeployment(const QString& path);
  bool openDeployment(const QString& path);
  bool exportReport(const QString& markdown_path);
  // Renders every view with QWidget::grab() into dir/<view>.png; returns false on a write error.
  bool screenshots(const QString& dir);

  QString lastError() const { return last_error_; }

 private:
  void buildMenus();
  void fail(const QString& message);

  PlannerModel* model_;
  QTabWidget* tabs_;
  PlannerView* planner_view_;
  CompareView* compare_view_;
  ReplayView* replay_view_;
  ServingView* serving_view_;
  QString deployment_path_;
  QString last_error_;
};

}  // namespace kvplan::gui
