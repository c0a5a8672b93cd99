#include "planner_model.hpp"

#include <exception>

#include "kvplan/error.hpp"

namespace kvplan::gui {

PlannerModel::PlannerModel(QObject* parent) : QObject(parent) {
  model_ = load_model(settings_.model_ref);
  recompute();
}

QString PlannerModel::message() const {
  if (!load_error_.isEmpty()) return load_error_;
  if (!results_.ok) return QString::fromStdString(results_.error);
  return {};
}

bool PlannerModel::loadModel(const QString& id_or_path) {
  const std::string ref = id_or_path.toStdString();
  try {
    ModelSpec m = load_model(ref);
    model_ = std::move(m);
    settings_.model_ref = ref;
    load_error_.clear();
  } catch (const std::exception& e) {
    // The previous model stays; the window shows why the new one was refused.
    load_error_ = QStringLiteral("Could not load model: %1").arg(QString::fromUtf8(e.what()));
    Q_EMIT messageChanged(message());
    return false;
  }
  Q_EMIT modelChanged();
  recompute();
  return true;
}

bool PlannerModel::applySettings(const PlanSettings& s) {
  ModelSpec m;
  try {
    m = load_model(s.model_ref);
  } catch (const std::exception& e) {
    load_error_ = QStringLiteral("Could not load model: %1").arg(QString::fromUtf8(e.what()));
    Q_EMIT messageChanged(message());
    return false;
  }
  model_ = std::move(m);
  settings_ = s;
  load_error_.clear();
  Q_EMIT modelChanged();
  Q_EMIT settingsChanged();
  recompute();
  return true;
}

template <class F>
void PlannerModel::update(F&& f) {
  PlanSettings before = settings_;
  f(settings_);
  if (settings_ == before) return;
  load_error_.clear();
  Q_EMIT settingsChanged();  // views showing other widgets for the same setting follow
  recompute();
}

void PlannerModel::setGpu(const QString& id) {
  update([&](PlanSettings& s) { s.gpu_id = id.toStdString(); });
}
void PlannerModel::setEngine(Engine e) {
  // Another engine brings its own memory fraction and page size unless the user overrides them.
  update([&](PlanSettings& s) {
    if (s.engine == e) return;
    s.engine = e;
    s.memory_fraction_ppm = 0;
    s.block_size = 0;
    // The loaded engine's own settings go with it: its options, state dtypes and pool cap take
    // the new engine's defaults (core's set_engine), and its KV tiers beyond the GPU are dropped.
    auto& x = s.extras;
    PlanInput in;
    in.options = x.options;
    in.conv_state_dtype = x.conv_state_dtype;
    in.ssm_state_dtype = x.ssm_state_dtype;
    in.max_total_tokens = x.max_total_tokens;
    set_engine(in, e);
    x.options = in.options;
    x.conv_state_dtype = in.conv_state_dtype;
    x.ssm_state_dtype = in.ssm_state_dtype;
    x.max_total_tokens = in.max_total_tokens;
    x.host_tiers = HostTierArgs{};
    // A disaggregated layout's sides keep their budgets; their engine keys and memory fraction
    // were the old engine's.
    if (x.disagg)
      for (DisaggSide* side : {&x.disagg->prefill_side, &x.disagg->decode_side}) {
        side->engine_options.clear();
        side->memory_fraction_ppm.reset();
      }
  });
}
void PlannerModel::setGpus(std::uint32_t n) {
  update([&](PlanSettings& s) { s.gpus = n; });
}
// A loaded per-rank memory list holds one figure a rank of the loaded layout: another TP or PP
// keeps only its smallest figure (available_kv_bytes), as one figure for every rank.
void PlannerModel::setTp(std::uint32_t tp) {
  update([&](PlanSettings& s) {
    if (s.tp != tp) s.extras.available_kv_bytes_per_rank.clear();
    s.tp = tp;
  });
}
void PlannerModel::setPp(std::uint32_t pp) {
  update([&](PlanSettings& s) {
    if (s.pp != pp) s.extras.available_kv_bytes_per_rank.clear();
    s.pp = pp;
  });
}
void PlannerModel::setDraftLayers(std::uint32_t layers) {
  update([&](PlanSettings& s) { s.draft_layers = layers; });
}
void PlannerModel::setWeightDtype(const QString& dtype) {
  update([&](PlanSettings& s) { s.weight_dtype = dtype.toStdString(); });
}
void PlannerModel::setMemoryFractionPpm(std::uint32_t ppm) {
  update([&](PlanSettings& s) { s.memory_fraction_ppm = ppm; });
}
void PlannerModel::setBlockSize(std::uint32_t tokens) {
  update([&](PlanSettings& s) { s.block_size = tokens; });
}
void PlannerModel::setKvFormat(const QString& spec) {
  update([&](PlanSettings& s) { s.kv_format = spec.trimmed().toStdString(); });
}
void PlannerModel::setPolicy(const QString& spec) {
  update([&](PlanSettings& s) { s.policy = spec.trimmed().toStdString(); });
}
void PlannerModel::setContext(std::uint64_t tokens) {
  update([&](PlanSettings& s) {
    s.context = tokens;
    s.extras.slo_context.reset();  // the GUI plans one context: max_model_len = SLO context
    // A typical length beyond the context is no longer a typical length of it.
    if (s.extras.mean_context && *s.extras.mean_context > tokens) s.extras.mean_context.reset();
  });
}
void PlannerModel::setConcurrency(std::uint64_t requests) {
  update([&](PlanSettings& s) { s.concurrency = requests; });
}

bool PlannerModel::applyLoaded(const PlanSettings& s, const ModelSpec& m) {
  model_ = m;
  settings_ = s;
  load_error_.clear();
  Q_EMIT modelChanged();
  Q_EMIT settingsChanged();
  recompute();
  return results_.ok;
}

void PlannerModel::reportError(const QString& message) {
  load_error_ = message;
  Q_EMIT messageChanged(this->message());
}

void PlannerModel::pin(int slot) {
  pins_[slot & 1] = results_;
  Q_EMIT pinsChanged();
}

void PlannerModel::recompute() {
  results_ = compute_plan(model_, settings_);
  Q_EMIT resultsChanged();
  Q_EMIT messageChanged(message());
}

}  // namespace kvplan::gui
