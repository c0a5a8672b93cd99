#include "serving_workload.hpp"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "kvplan/error.hpp"

namespace kvplan::gui {
namespace {

QJsonObject distJson(const LengthDist& d) {
  QJsonObject o{{"dist", QString::fromStdString(d.dist)}};
  if (d.dist == "histogram") {
    QJsonArray bins;
    for (const auto& b : d.bins) bins.append(QJsonArray{b[0], b[1], b[2]});
    o["bins"] = bins;
    return o;
  }
  if (d.dist != "uniform") o["mean"] = d.mean;
  if (d.dist == "normal" || d.dist == "lognormal") o["std"] = d.std;
  if (d.min) o["min"] = *d.min;
  if (d.max) o["max"] = *d.max;
  return o;
}

LengthDist distOf(const QJsonObject& o) {
  LengthDist d;
  d.dist = o["dist"].toString().toStdString();
  d.mean = o["mean"].toDouble();
  d.std = o["std"].toDouble();
  if (o.contains("min")) d.min = o["min"].toDouble();
  if (o.contains("max")) d.max = o["max"].toDouble();
  for (const QJsonValue& b : o["bins"].toArray()) {
    const QJsonArray a = b.toArray();
    d.bins.push_back({a[0].toDouble(), a[1].toDouble(), a[2].toDouble()});
  }
  return d;
}

}  // namespace

std::string to_workload_json(const WorkloadSpec& w) {
  QJsonObject o{{"kvplan_workload", 1}};
  if (!w.description.empty()) o["description"] = QString::fromStdString(w.description);
  if (w.arrival == "gamma")
    o["arrival"] = QJsonObject{{"process", "gamma"}, {"cv", w.cv}};
  else
    o["arrival"] = QString::fromStdString(w.arrival);
  QJsonArray stages;
  for (const auto& s : w.stages)
    stages.append(QJsonObject{{"rate", s.rate}, {"duration_s", s.duration_s}});
  o["stages"] = stages;
  o["prompt_tokens"] = distJson(w.prompt);
  o["output_tokens"] = distJson(w.output);
  if (w.prefix) {
    QJsonObject p{{"groups", static_cast<double>(w.prefix->groups)},
                  {"shared_tokens", static_cast<double>(w.prefix->shared_tokens)}};
    if (w.prefix->prompt_pool) p["prompt_pool"] = static_cast<double>(w.prefix->prompt_pool);
    o["prefix"] = p;
  }
  if (!w.sessions_json.empty())
    o["sessions"] = QJsonDocument::fromJson(QByteArray::fromStdString(w.sessions_json)).object();
  return QJsonDocument(o).toJson(QJsonDocument::Indented).toStdString();
}

WorkloadSpec workload_spec_from_json(const std::string& text, const std::string& source) {
  // The library decides validity and names the field; the requests it draws are not kept.
  sim::parse_workload_json(text, source, 1);
  const QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(text)).object();
  WorkloadSpec w;
  w.description = o["description"].toString().toStdString();
  const QJsonValue a = o["arrival"];
  if (a.isObject()) {
    w.arrival = a.toObject()["process"].toString().toStdString();
    w.cv = a.toObject()["cv"].toDouble(1);
  } else {
    w.arrival = a.toString().toStdString();
  }
  w.stages.clear();
  for (const QJsonValue& s : o["stages"].toArray())
    w.stages.push_back({s.toObject()["rate"].toDouble(), s.toObject()["duration_s"].toDouble()});
  w.prompt = distOf(o["prompt_tokens"].toObject());
  w.output = distOf(o["output_tokens"].toObject());
  if (o.contains("prefix")) {
    const QJsonObject p = o["prefix"].toObject();
    w.prefix = PrefixSpec{static_cast<std::uint64_t>(p["groups"].toDouble()),
                          static_cast<std::uint64_t>(p["shared_tokens"].toDouble()),
                          static_cast<std::uint64_t>(p["prompt_pool"].toDouble(0))};
  }
  if (o.contains("sessions"))
    w.sessions_json =
        QJsonDocument(o["sessions"].toObject()).toJson(QJsonDocument::Compact).toStdString();
  return w;
}

DrawnLengths drawn_lengths(const sim::Workload& w) {
  DrawnLengths d;
  d.prompt_tokens.reserve(w.requests.size());
  d.output_tokens.reserve(w.requests.size());
  for (const auto& r : w.requests) {
    d.prompt_tokens.push_back(r.prompt_tokens);
    d.output_tokens.push_back(r.output_tokens);
  }
  return d;
}

}  // namespace kvplan::gui
