// The planner's view model: holds the loaded ModelSpec and the PlanSettings, recomputes the
// PlanResults through core on every change (synchronously: a few hundred formula evaluations,
// well under a frame) and reports errors as text for the window, never as a crash.
#pragma once

#include <QObject>
#include <QString>
#include <optional>

#include "kvplan/model.hpp"
#include "plan_results.hpp"
#include "plan_settings.hpp"

namespace kvplan::gui {

class PlannerModel : public QObject {
  Q_OBJECT
 public:
  explicit PlannerModel(QObject* parent = nullptr);

  const PlanSettings& settings() const { return settings_; }
  const PlanResults& results() const { return results_; }
  const ModelSpec& model() const { return model_; }
  // The message the window shows: the last failed load, else the input error, else empty.
  QString message() const;

  // Loads a preset id or a file (HF config.json / kvplan model JSON). On failure the previous
  // model stays and message() says why; returns false.
  bool loadModel(const QString& id_or_path);
  // Replaces every setting at once (loading a deployment); loads its model first.
  bool applySettings(const PlanSettings& s);
  // Replaces model and settings with a loaded deployment's (already validated by core).
  bool applyLoaded(const PlanSettings& s, const ModelSpec& m);
  // Shows a message (a failed file action) until the next change; the plan stays as it is.
  void reportError(const QString& message);

  void setGpu(const QString& id);
  void setEngine(Engine e);
  void setGpus(std::uint32_t n);
  void setTp(std::uint32_t tp);
  void setPp(std::uint32_t pp);
  void setDraftLayers(std::uint32_t layers);  // speculative layers holding a cache
  void setWeightDtype(const QString& dtype);  // empty = the model's
  void setMemoryFractionPpm(std::uint32_t ppm);
  void setBlockSize(std::uint32_t tokens);  // 0 = the engine's default
  void setKvFormat(const QString& spec);
  void setPolicy(const QString& spec);
  void setContext(std::uint64_t tokens);
  void setConcurrency(std::uint64_t requests);

  // Pinned scenarios for the side-by-side comparison (slot 0 = A, 1 = B).
  void pin(int slot);
  const std::optional<PlanResults>& pinned(int slot) const { return pins_[slot & 1]; }

 Q_SIGNALS:
  void resultsChanged();
  void settingsChanged();  // any setting changed (a load, a setter): views resync widgets
  void modelChanged();
  void messageChanged(const QString& message);
  void pinsChanged();

 private:
  template <class F>
  void update(F&& f);
  void recompute();

  ModelSpec model_;
  PlanSettings settings_;
  PlanResults results_;
  QString load_error_;
  std::optional<PlanResults> pins_[2];
};

}  // namespace kvplan::gui
