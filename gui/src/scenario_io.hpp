// Deployment files and reports. The GUI saves the same deployment JSON that `kvplan check` reads
// (docs/deploy.md), written by core (to_json(Deployment)): the text is parsed back by core's
// parse_deploy_json before anything touches the disk, so a file core would refuse is never written,
// and it is written atomically with QSaveFile (a temporary file renamed over the target) so the
// previous file survives any failure.
#pragma once

#include <QString>
#include <optional>
#include <string>

#include "kvplan/deploy.hpp"
#include "plan_results.hpp"
#include "plan_settings.hpp"

class QWidget;

namespace kvplan::gui {

// The deployment the settings describe (GPU resolved, spec strings parsed by core; throws
// kvplan::Error on an unknown GPU or a bad spec; the limits are parse_deploy_json's to check).
Deployment deployment_of(const PlanSettings& s);
// Its file, written by core's to_json(Deployment). `model_ref` is what goes into "model" (a
// preset id or a path, relative to the file's folder where possible).
std::string deployment_json(const PlanSettings& s, const std::string& model_ref);

// Builds the JSON, validates it through core, writes it atomically. On failure returns false,
// sets *error and leaves any existing file at `path` untouched.
bool save_deployment(const QString& path, const PlanSettings& s, const ModelSpec& model,
                     QString* error);

struct LoadedDeployment {
  PlanSettings settings;
  ModelSpec model;
  Deployment deployment;
};
// Reads a deployment file through core (load_deploy); nullopt with *error on any problem.
std::optional<LoadedDeployment> load_deployment(const QString& path, QString* error);

// The settings of a deployment parsed by core; `model_ref` as written in the file, resolved
// against the file's folder.
PlanSettings settings_from_deployment(const Deployment& d, const std::string& model_ref);

// Writes a Markdown report (headline numbers, the deployment check, order and what-if tables,
// pinned scenarios) and the chart as <stem>-chart.png next to it. `planner` is grabbed for the
// chart (may be null: no image). Atomic like save_deployment.
bool export_report(const QString& markdown_path, const PlanResults& r,
                   const std::optional<PlanResults>& a, const std::optional<PlanResults>& b,
                   QWidget* chart, QString* error);

}  // namespace kvplan::gui
