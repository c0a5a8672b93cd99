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
#include "kvplan/report.hpp"
#include "ui_format.hpp"

namespace kvplan::gui {
namespace {

constexpr double kGiB = 1073741824.0;

// Bytes as GiB for the file; exact for byte counts below 2^53 (a power-of-two division).
double toGib(std::uint64_t bytes) { return static_cast<double>(bytes) / kGiB; }

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

std::string deployment_json(const PlanSettings& s, const std::string& model_ref) {
  const auto& x = s.extras;
  QJsonObject o;
  o["kvplan_deploy"] = 1;
  if (!x.name.empty()) o["name"] = qs(x.name);
  o["model"] = qs(model_ref);

  QJsonObject hw;
  if (s.gpu_id == "custom" && x.custom_gpu_memory_bytes)
    hw["gpu_memory_gib"] = toGib(*x.custom_gpu_memory_bytes);
  else
    hw["gpu"] = qs(s.gpu_id);
  hw["gpus"] = static_cast<qint64>(s.gpus);
  if (x.price_per_hour) hw["price_per_hour"] = *x.price_per_hour;
  o["hardware"] = hw;

  QJsonObject en;
  en["name"] = qs(to_string(s.engine));
  en["tensor_parallel_size"] = static_cast<qint64>(s.tp);
  en["pipeline_parallel_size"] = static_cast<qint64>(s.pp);
  if (s.draft_layers) en["draft_layers"] = static_cast<qint64>(s.draft_layers);
  en["max_model_len"] = static_cast<qint64>(s.context);
  if (s.memory_fraction_ppm) en[memory_fraction_key(s.engine)] = s.memory_fraction_ppm / 1e6;
  if (s.block_size) en["block_size"] = static_cast<qint64>(s.block_size);
  if (!s.weight_dtype.empty()) en["weight_dtype"] = qs(s.weight_dtype);
  if (x.max_num_seqs) en["max_num_seqs"] = static_cast<qint64>(*x.max_num_seqs);
  if (x.max_num_batched_tokens)
    en["max_num_batched_tokens"] = static_cast<qint64>(*x.max_num_batched_tokens);
  if (x.reserve_bytes) en["reserve_gib"] = toGib(*x.reserve_bytes);
  if (x.available_kv_bytes) en["available_kv_gib"] = toGib(*x.available_kv_bytes);
  o["engine"] = en;

  QJsonObject comp;
  comp["kv_format"] = qs(s.kv_format);
  comp["policy"] = qs(s.policy);
  o["compression"] = comp;

  QJsonObject slo;
  slo["context"] = static_cast<qint64>(x.slo_context.value_or(s.context));
  slo["concurrency"] = static_cast<qint64>(s.concurrency);
  if (x.min_kv_cache_tokens)
    slo["min_kv_cache_tokens"] = static_cast<qint64>(*x.min_kv_cache_tokens);
  if (x.max_cost_per_hour) slo["max_cost_per_hour"] = *x.max_cost_per_hour;
  o["slo"] = slo;
  return QJsonDocument(o).toJson(QJsonDocument::Indented).toStdString();
}

bool save_deployment(const QString& path, const PlanSettings& s, const ModelSpec& model,
                     QString* error) {
  (void)model;
  const QFileInfo target(path);
  const QString dir = target.absolutePath();
  const std::string text = deployment_json(s, modelRefFor(s, dir));
  try {
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
  if (p.max_num_batched_tokens != kDefaultMaxNumBatchedTokens)
    x.max_num_batched_tokens = p.max_num_batched_tokens;
  x.reserve_bytes = p.reserve_bytes;
  x.available_kv_bytes = p.available_kv_bytes;
  if (d.slo.context != p.context) x.slo_context = d.slo.context;
  x.min_kv_cache_tokens = d.slo.min_kv_cache_tokens;
  x.max_cost_per_hour = d.slo.max_cost_per_hour;
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

Table headlineTable(const PlanResults& r) {
  Table t{{"quantity", "value", "exact"}, {}};
  t.rows.push_back({"max concurrency at " + grouped(r.settings.context) + " tokens",
                    grouped(r.capacity.max_requests) + " requests", ""});
  t.rows.push_back({"max context at " + grouped(r.settings.concurrency) + " requests",
                    grouped(r.max_context) + " tokens", ""});
  t.rows.push_back({"KV cache per token", human_bytes(r.cost.bytes_per_token),
                    grouped(r.cost.bytes_per_token) + " bytes"});
  t.rows.push_back({"KV cache per request", human_bytes(r.cost.bytes_per_request),
                    grouped(r.cost.bytes_per_request) + " bytes"});
  t.rows.push_back({"KV pool per GPU", human_bytes(r.capacity.memory.available_bytes),
                    grouped(r.capacity.memory.available_bytes) + " bytes"});
  t.rows.push_back({"GPUs needed (" + r.gpu.name + ")",
                    r.order.feasible
                        ? std::to_string(r.order.gpus) + " (TP " + std::to_string(r.order.tp) +
                              ", PP " + std::to_string(r.order.pp) + ", " +
                              std::to_string(r.order.replicas) + " replicas)"
                        : "none: " + r.order.reason,
                    ""});
  return t;
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
  md += render_markdown(headlineTable(r)) + "\n";
  if (chart) md += "![max concurrency vs context](" + png.toStdString() + ")\n\n";
  try {
    const std::string text = deployment_json(r.settings, r.settings.model_ref);
    const Deployment d = parse_deploy_json(text, "GUI plan", fi.absolutePath().toStdString());
    md += "## Deployment check (what `kvplan check` reports)\n\n" +
          render(run_check(d), OutputFormat::md) + "\n";
  } catch (const std::exception& e) {
    md += "## Deployment check\n\nnot available: " + std::string(e.what()) + "\n\n";
  }
  Table orders{{"GPU", "GPUs", "TP", "PP", "replicas", "holds (requests)", "USD/hour", "note"}, {}};
  for (const auto& o : r.orders)
    orders.rows.push_back(
        {o.gpu.name, o.feasible ? std::to_string(o.gpus) : "—",
         o.feasible ? std::to_string(o.tp) : "—", o.feasible ? std::to_string(o.pp) : "—",
         o.feasible ? std::to_string(o.replicas) : "—", o.feasible ? grouped(o.max_requests) : "—",
         o.cost_per_hour > 0 ? QString::number(o.cost_per_hour, 'f', 2).toStdString() : "unknown",
         o.reason});
  md += "## GPU order\n\n" + render_markdown(orders) + "\n";
  Table wi{{"KV format", "policy", "engine native", "KV per request", "max requests", "max context",
            "GPUs for target"},
           {}};
  for (const auto& w : r.what_if)
    wi.rows.push_back({w.format, w.policy, w.engine_native ? "yes" : "no",
                       human_bytes(w.bytes_per_request), grouped(w.max_requests),
                       grouped(w.max_context), w.min_gpus ? std::to_string(w.min_gpus) : "none"});
  md += "## What if\n\n" + render_markdown(wi) + "\n";
  for (const auto& [label, p] : {std::pair{"A", &a}, std::pair{"B", &b}}) {
    if (!*p || !(*p)->ok) continue;
    md += std::string("## Pinned scenario ") + label + "\n\n" + settingsLine(**p) + "\n\n" +
          render_markdown(headlineTable(**p)) + "\n";
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
