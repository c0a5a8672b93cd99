#include "serving_charts.hpp"

#include <QtCharts/QAreaSeries>
#include <QtCharts/QChart>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <QtCharts/QValueAxis>
#include <algorithm>
#include <cmath>

namespace kvplan::gui {
namespace {

void clearChart(QChart* c) {
  c->removeAllSeries();
  for (QAbstractAxis* a : c->axes()) {
    c->removeAxis(a);
    delete a;
  }
}

void attach(QChart* c, QAbstractSeries* s, QValueAxis* x, QValueAxis* y) {
  c->addSeries(s);
  s->attachAxis(x);
  s->attachAxis(y);
}

}  // namespace

Histogram histogram(const std::vector<std::uint64_t>& values, int bins) {
  Histogram h;
  if (values.empty() || bins < 1) return h;
  const auto [mn, mx] = std::minmax_element(values.begin(), values.end());
  h.lo = static_cast<double>(*mn);
  if (*mn == *mx) {  // one bar of width 1 centred on the value
    h.lo -= 0.5;
    h.width = 1;
    h.counts = {values.size()};
    return h;
  }
  h.width = (static_cast<double>(*mx) - h.lo) / bins;
  h.counts.assign(static_cast<std::size_t>(bins), 0);
  for (std::uint64_t v : values) {
    const auto i = static_cast<std::size_t>((static_cast<double>(v) - h.lo) / h.width);
    ++h.counts[std::min(i, h.counts.size() - 1)];
  }
  return h;
}

LengthHistogramChart::LengthHistogramChart(const QString& title, QWidget* parent)
    : QChartView(new QChart, parent), title_(title) {
  setRenderHint(QPainter::Antialiasing);
  chart()->setTitle(title_);
  chart()->legend()->hide();
  setMinimumHeight(180);
}

void LengthHistogramChart::setValues(const std::vector<std::uint64_t>& tokens) {
  QChart* c = chart();
  clearChart(c);
  shown_ = histogram(tokens, 40);
  if (shown_.counts.empty()) {
    c->setTitle(title_ + " (no requests)");
    return;
  }
  c->setTitle(QString("%1 — %2 requests").arg(title_).arg(tokens.size()));
  // The bars as one step outline filled down to zero.
  auto* upper = new QLineSeries;
  std::uint64_t peak = 0;
  for (std::size_t i = 0; i < shown_.counts.size(); ++i) {
    const double x0 = shown_.lo + shown_.width * static_cast<double>(i);
    const auto n = static_cast<double>(shown_.counts[i]);
    upper->append(x0, n);
    upper->append(x0 + shown_.width, n);
    peak = std::max(peak, shown_.counts[i]);
  }
  auto* area = new QAreaSeries(upper);
  area->setName(title_);
  auto* x = new QValueAxis;
  x->setTitleText("tokens");
  x->setRange(shown_.lo, shown_.lo + shown_.width * static_cast<double>(shown_.counts.size()));
  x->setLabelFormat("%.0f");
  auto* y = new QValueAxis;
  y->setTitleText("requests");
  y->setRange(0, static_cast<double>(peak) * 1.05 + 1);
  y->setLabelFormat("%.0f");
  c->addAxis(x, Qt::AlignBottom);
  c->addAxis(y, Qt::AlignLeft);
  attach(c, area, x, y);
}

KvUsageChart::KvUsageChart(QWidget* parent) : QChartView(new QChart, parent) {
  setRenderHint(QPainter::Antialiasing);
  chart()->setTitle("KV blocks in use over time (run a simulation)");
  chart()->legend()->setAlignment(Qt::AlignBottom);
  setMinimumHeight(240);
}

void KvUsageChart::clear() {
  clearChart(chart());
  marks_ = 0;
  chart()->setTitle("KV blocks in use over time (run a simulation)");
}

void KvUsageChart::setResult(const sim::SimResult& r) {
  clear();
  QChart* c = chart();
  auto* used = new QLineSeries;
  used->setName("blocks in use");
  auto* pool = new QLineSeries;
  pool->setName(QString("pool (%1 blocks of %2 tokens)").arg(r.num_gpu_blocks).arg(r.block_size));
  QPen dashed = pool->pen();
  dashed.setStyle(Qt::DashLine);
  pool->setPen(dashed);
  auto* preempt = new QScatterSeries;
  preempt->setName("preemptions");
  preempt->setColor(Qt::red);
  preempt->setMarkerSize(8);
  std::uint64_t before = 0;
  double t_end = 0;
  for (const auto& s : r.kv_series) {
    used->append(s.t_s, static_cast<double>(s.blocks_used));
    if (s.preemptions > before) {
      preempt->append(s.t_s, static_cast<double>(s.blocks_used));
      ++marks_;
    }
    before = s.preemptions;
    t_end = std::max(t_end, s.t_s);
  }
  t_end = std::max(t_end, r.simulated_s);
  pool->append(0, static_cast<double>(r.num_gpu_blocks));
  pool->append(t_end, static_cast<double>(r.num_gpu_blocks));
  auto* x = new QValueAxis;
  x->setTitleText("simulated time (s)");
  x->setRange(0, t_end > 0 ? t_end : 1);
  auto* y = new QValueAxis;
  y->setTitleText("KV blocks");
  y->setRange(0, static_cast<double>(r.num_gpu_blocks) * 1.05 + 1);
  y->setLabelFormat("%.0f");
  c->addAxis(x, Qt::AlignBottom);
  c->addAxis(y, Qt::AlignLeft);
  attach(c, used, x, y);
  attach(c, pool, x, y);
  attach(c, preempt, x, y);
  c->setTitle(QString("KV blocks in use over time — %1 preemptions, %2 steps, %3 s simulated")
                  .arg(r.summary.preemptions)
                  .arg(r.steps)
                  .arg(r.simulated_s, 0, 'f', 1));
}

}  // namespace kvplan::gui
