#include "scenario_io.hpp"

#include <QBuffer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPixmap>
#include <QSaveFile>
#include <QWidget>
#include <exception>

#include "kvplan/deploy.hpp"
#include "kvplan/engine_rules.hpp"
#include "kvplan/report.hpp"
#include "ui_format.hpp"

namespace kvplan::gui {
namespace {

bool writeAtomically(const QString& path, const QByteArray& bytes, QString* error) {
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly)) {
    *error = QString("Cannot write %1: %2").arg(path, f.errorString());
    return false;
  }
  if (f.write(bytes) != bytes.size()) {
    *error = QString("Cannot write %1: %2").arg(path, f.errorString());
    f.cancelWriting();
    return false;
  }
  if (!f.commit()) {
    *error = QString("Cannot write %1: %2").arg(path, f.errorString());
    return false;
  }
  return true;
}

// The model as the file should name it: a preset id as is; a file relative to `dir` when it is
// below it, else absolute.
std::string modelRefFor(const PlanSettings& s, const QString& dir) {
  const QFileInfo fi(qs(s.model_ref));
  if (!fi.exists() || !fi.isFile()) return s.model_ref;
  const QString rel = QDir(dir).relativeFilePath(fi.absoluteFilePath());
  if (!rel.startsWith("..")) return rel.toStdString();
  return fi.absoluteFilePath().toStdString();
}

}  // namespace

Deployment deployment_of(const PlanSettings& s) {
  // The planner's own deployment (parse_deploy_json checks the limits, naming the fields); the
  // file names the model by model_ref, not by this spec.
  Deployment d = planner_deployment(ModelSpec{}, s, resolve_gpu(s));
  d.source.clear();
  return d;
}

std::string deployment_json(const PlanSettings& s, const std::string& model_ref) {
  return to_json(deployment_of(s), model_ref);
}

bool save_deployment(const QString& path, const PlanSettings& s, const ModelSpec& model,
                     QString* error) {
  (void)model;
  const QFileInfo target(path);
  const QString dir = target.absolutePath();
  std::string text;
  try {
    text = deployment_json(s, modelRefFor(s, dir));
    // What CI will read: refuse to write anything core would refuse.
    parse_deploy_json(text, path.toStdString(), dir.toStdString());
  } catch (const std::exception& e) {
    *error = QString("Not saved, the deployment is invalid: %1").arg(QString::fromUtf8(e.what()));
    return false;
  }
  return writeAtomically(path, QByteArray::fromStdString(text), error);
}

PlanSettings settings_from_deployment(const Deployment& d, const std::string& model_ref) {
  PlanSettings s;
  const PlanInput& p = d.plan;
  s.model_ref = model_ref;
  s.engine = p.engine;
  s.gpus = p.gpus ? p.gpus : p.tp * p.pp;
  s.tp = p.tp;
  s.pp = p.pp;
  s.draft_layers = p.draft_layers;
  s.weight_dtype = p.weight_dtype;
  s.memory_fraction_ppm = p.memory_fraction_ppm;
  s.block_size = p.block_size;
  s.kv_format = to_string(p.format);
  s.policy = to_string(p.policy);
  s.context = p.context;
  s.concurrency = d.slo.concurrency;
  auto& x = s.extras;
  x.name = d.name;
  if (d.gpu.id == "custom") {
    s.gpu_id = "custom";
    x.custom_gpu_memory_bytes = d.gpu.memory_bytes;
  } else {
    s.gpu_id = d.gpu.id;
    // A price in the file overrides the preset's.
    GpuSpec preset;
    try {
      preset = load_gpu(d.gpu.id);
    } catch (const std::exception&) {
    }
    if (d.gpu.price_per_hour != preset.price_per_hour) x.price_per_hour = d.gpu.price_per_hour;
  }
  x.max_num_seqs = d.max_num_seqs;
  if (p.max_num_batched_tokens != engine_rules(p).default_max_num_batched_tokens(p))
    x.max_num_batched_tokens = p.max_num_batched_tokens;
  x.reserve_bytes = p.reserve_bytes;
  x.available_kv_bytes = p.available_kv_bytes;
  if (d.slo.context != p.context) x.slo_context = d.slo.context;
  x.min_kv_cache_tokens = d.slo.min_kv_cache_tokens;
  x.max_cost_per_hour = d.slo.max_cost_per_hour;
  x.mean_context = d.slo.mean_context;
  x.options = p.options;
  x.enforce_eager = !d.cuda_graphs;
  x.expert_parallel = p.expert_parallel;
  x.attention_dp = p.attention_dp;
  x.moe_ep = p.moe_ep;
  x.conv_state_dtype = p.conv_state_dtype;
  x.ssm_state_dtype = p.ssm_state_dtype;
  x.max_total_tokens = p.max_total_tokens;
  x.available_kv_bytes_per_rank = p.available_kv_bytes_per_rank;
  x.host_tiers = d.host_tiers;
  x.node = d.node;
  x.disagg = d.disagg;
  return s;
}

std::optional<LoadedDeployment> load_deployment(const QString& path, QString* error) {
  try {
    Deployment d = load_deploy(path.toStdString());
    // Core resolved "model" to a spec; keep how the file names it so a later save does too.
    std::string ref = d.model.id;
    QFile f(path);
    if (f.open(QIODevice::ReadOnly)) {
      const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
      const QString m = o.value("model").toString();
      if (!m.isEmpty()) {
        const QFileInfo rel(QFileInfo(path).absoluteDir(), m);
        ref = (QFileInfo(m).isRelative() && rel.isFile()) ? rel.absoluteFilePath().toStdString()
                                                          : m.toStdString();
      }
    }
    LoadedDeployment out{settings_from_deployment(d, ref), d.model, d};
    return out;
  } catch (const std::exception& e) {
    *error = QString("Could not open the deployment: %1").arg(QString::fromUtf8(e.what()));
    return std::nullopt;
  }
}

namespace {

// What `kvplan plan --format md` prints for the same inputs (core's renderer): capacity, memory,
// engine flags; with `orders`, the GPU order and what-if tables too.
std::string planMarkdown(const PlanResults& r, bool orders) {
  PlanReport report = r.report;
  if (!orders) {
    report.order.clear();
    report.what_if.clear();
  }
  return render(report, OutputFormat::md);
}

std::string settingsLine(const PlanResults& r) {
  const auto& s = r.settings;
  return r.model.name + " on " + std::to_string(s.gpus) + " × " + r.gpu.name + ", " +
         to_string(s.engine) + ", TP " + std::to_string(s.tp) + " × PP " + std::to_string(s.pp) +
         ", KV " + s.kv_format + ", policy " + s.policy + ", " + grouped(s.context) + " tokens × " +
         grouped(s.concurrency) + " requests";
}

}  // namespace

bool export_report(const QString& markdown_path, const PlanResults& r,
                   const std::optional<PlanResults>& a, const std::optional<PlanResults>& b,
                   QWidget* chart, QString* error) {
  if (!r.ok) {
    *error = "No plan to report: " + qs(r.error);
    return false;
  }
  const QFileInfo fi(markdown_path);
  const QString png = fi.completeBaseName() + "-chart.png";
  std::string md = "# kvplan capacity plan\n\n" + settingsLine(r) + "\n\n";
  if (chart) md += "![max concurrency vs context](" + png.toStdString() + ")\n\n";
  try {
    md += "## Plan (what `kvplan plan` reports)\n\n" + planMarkdown(r, true) + "\n";
  } catch (const std::exception& e) {
    md += "## Plan\n\nnot available: " + std::string(e.what()) + "\n\n";
  }
  try {
    const Deployment d = parse_deploy_json(deployment_json(r.settings, r.settings.model_ref),
                                           "GUI plan", fi.absolutePath().toStdString());
    md += "## Deployment check (what `kvplan check` reports)\n\n" +
          render(run_check(d), OutputFormat::md) + "\n";
  } catch (const std::exception& e) {
    md += "## Deployment check\n\nnot available: " + std::string(e.what()) + "\n\n";
  }
  for (const auto& [label, p] : {std::pair{"A", &a}, std::pair{"B", &b}}) {
    if (!*p || !(*p)->ok) continue;
    md += std::string("## Pinned scenario ") + label + "\n\n" + settingsLine(**p) + "\n\n";
    try {
      md += planMarkdown(**p, false) + "\n";
    } catch (const std::exception& e) {
      md += "not available: " + std::string(e.what()) + "\n\n";
    }
  }
  if (chart) {
    QByteArray bytes;
    {
      QBuffer buf(&bytes);
      buf.open(QIODevice::WriteOnly);
      chart->grab().save(&buf, "PNG");
    }
    if (!writeAtomically(fi.absoluteDir().filePath(png), bytes, error)) return false;
  }
  return writeAtomically(markdown_path, QByteArray::fromStdString(md), error);
}

}  // namespace kvplan::gui
