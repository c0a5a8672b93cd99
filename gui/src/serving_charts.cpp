#include "serving_charts.hpp"

#include <QtCharts/QAreaSeries>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSeries>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <QtCharts/QValueAxis>
#include <algorithm>
#include <cmath>

#include "chart_clear.hpp"
#include "ui_format.hpp"

namespace kvplan::gui {
namespace {

void attach(QChart* c, QAbstractSeries* s, QValueAxis* x, QValueAxis* y) {
  c->addSeries(s);
  s->attachAxis(x);
  s->attachAxis(y);
}

QLineSeries* lineSeries(const QString& name, QPen pen) {
  auto* s = new QLineSeries;
  s->setName(name);
  s->setPen(pen);
  return s;
}

QPen pen(const QColor& color, double width, Qt::PenStyle style = Qt::SolidLine) {
  QPen p(color);
  p.setWidthF(width);
  p.setStyle(style);
  return p;
}

// The KV usage series as the chart's lines, with the peaks and the end that scale its axes.
struct UsageLines {
  QLineSeries* used;
  QLineSeries* running;
  QLineSeries* waiting;
  QScatterSeries* preempt;  // a mark where the preemption count rose since the last sample
  int marks = 0;
  std::uint64_t peak_blocks = 0, peak_requests = 0;
  double t_end = 0;  // s
};

UsageLines usageLines(const sim::SimResult& r) {
  UsageLines u;
  u.used = lineSeries("KV blocks in use", pen(QColor(0x1f, 0x77, 0xb4), 2));
  u.running = lineSeries("requests running", pen(QColor(0x2c, 0xa0, 0x2c), 1.5));
  u.waiting =
      lineSeries("requests waiting (queued)", pen(QColor(0xff, 0x7f, 0x0e), 1.5, Qt::DashLine));
  u.preempt = new QScatterSeries;
  u.preempt->setName("preemptions");
  u.preempt->setColor(Qt::red);
  u.preempt->setMarkerSize(8);
  std::uint64_t before = 0;
  for (const auto& s : r.kv_series) {
    u.used->append(s.t_s, static_cast<double>(s.blocks_used));
    u.running->append(s.t_s, static_cast<double>(s.running));
    u.waiting->append(s.t_s, static_cast<double>(s.waiting));
    if (s.preemptions > before) {
      u.preempt->append(s.t_s, static_cast<double>(s.blocks_used));
      ++u.marks;
    }
    before = s.preemptions;
    u.t_end = std::max(u.t_end, s.t_s);
    u.peak_blocks = std::max(u.peak_blocks, s.blocks_used);
    u.peak_requests = std::max({u.peak_requests, s.running, s.waiting});
  }
  u.t_end = std::max(u.t_end, r.simulated_s);
  return u;
}

// Ticks every 1, 2 or 5 × 10^k seconds, about six of them, and the axis ends at the first tick
// after the last sample.
QValueAxis* timeAxis(double t_end) {
  auto* x = new QValueAxis;
  x->setObjectName("timeAxis");
  x->setTitleText("simulated time (s)");
  const double span = t_end > 0 ? t_end : 1;
  const double decade = std::pow(10.0, std::floor(std::log10(span / 6)));
  double step = decade;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (span / (m * decade) <= 7) {
      step = m * decade;
      break;
    }
  x->setTickType(QValueAxis::TicksDynamic);
  x->setTickAnchor(0);
  x->setTickInterval(step);
  x->setRange(0, std::ceil(span / step) * step);
  x->setLabelFormat(step >= 1 ? "%.0f" : "%.1f");
  return x;
}

QValueAxis* countAxis(const char* name, const QString& title, double max) {
  auto* a = new QValueAxis;
  a->setObjectName(name);
  a->setTitleText(title);
  a->setRange(0, max);
  a->setLabelFormat("%.0f");
  a->applyNiceNumbers();
  return a;
}

QLineSeries* poolLine(const sim::SimResult& r, double t_end) {
  QPen dashed(Qt::black);
  dashed.setStyle(Qt::DashLine);
  auto* pool = lineSeries(QString("pool (%1 blocks)").arg(groupedNumber(r.num_gpu_blocks)), dashed);
  const auto pool_blocks = static_cast<double>(r.num_gpu_blocks);
  pool->append(0, pool_blocks);
  pool->append(t_end, pool_blocks);
  return pool;
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
  c->setTitle(QString("%1 of %2 requests").arg(title_).arg(groupedNumber(tokens.size())));
  auto* y = new QValueAxis;
  y->setObjectName("requestsAxis");
  y->setLabelFormat("%.0f");
  if (shown_.counts.size() == 1) {
    // Every request has the same length: one bar, labelled with that length and its count.
    const std::uint64_t tokens_each = tokens.front();
    auto* set = new QBarSet(title_);
    *set << static_cast<double>(shown_.counts.front());
    auto* bars = new QBarSeries;
    bars->append(set);
    bars->setBarWidth(0.3);
    bars->setLabelsVisible(true);
    bars->setLabelsFormat("@value requests");
    bars->setLabelsPosition(QAbstractBarSeries::LabelsInsideEnd);
    auto* x = new QBarCategoryAxis;
    x->setObjectName("lengthAxis");
    x->append(QString("%1 tokens (all)").arg(groupedNumber(tokens_each)));
    y->setRange(0, static_cast<double>(shown_.counts.front()));
    y->setTickCount(3);
    c->addAxis(x, Qt::AlignBottom);
    c->addAxis(y, Qt::AlignLeft);
    c->addSeries(bars);
    bars->attachAxis(x);
    bars->attachAxis(y);
    return;
  }
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
  x->setObjectName("lengthAxis");
  x->setTitleText("tokens");
  x->setRange(shown_.lo, shown_.lo + shown_.width * static_cast<double>(shown_.counts.size()));
  x->setLabelFormat("%.0f");
  x->applyNiceNumbers();  // whole, distinct tick labels even over a narrow range
  y->setRange(0, static_cast<double>(peak) * 1.05 + 1);
  y->applyNiceNumbers();
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
  const UsageLines u = usageLines(r);
  marks_ += u.marks;
  auto* x = timeAxis(u.t_end);
  // The blocks axis is scaled to the blocks used; the pool is drawn only when it is in range
  // (within a quarter above the peak), else the title gives it.
  const auto pool_blocks = static_cast<double>(r.num_gpu_blocks);
  const double top = std::max(1.0, static_cast<double>(u.peak_blocks) * 1.1);
  const bool pool_shown = pool_blocks <= top * 1.25;
  auto* y = countAxis("blocksAxis", "KV blocks", pool_shown ? pool_blocks * 1.05 : top);
  auto* yr = countAxis("requestsAxis", "requests",
                       std::max(1.0, static_cast<double>(u.peak_requests) * 1.1));
  c->addAxis(x, Qt::AlignBottom);
  c->addAxis(y, Qt::AlignLeft);
  c->addAxis(yr, Qt::AlignRight);
  attach(c, u.used, x, y);
  if (pool_shown) attach(c, poolLine(r, u.t_end), x, y);
  attach(c, u.preempt, x, y);
  attach(c, u.running, x, yr);
  attach(c, u.waiting, x, yr);
  const double peak_share = pool_blocks > 0 ? 100.0 * u.peak_blocks / pool_blocks : 0;
  c->setTitle(QString("KV blocks in use (left) and requests (right) — peak %1 of %2 blocks "
                      "(%3%) · %4 preemptions · %5 s simulated")
                  .arg(groupedNumber(u.peak_blocks))
                  .arg(groupedNumber(r.num_gpu_blocks))
                  .arg(peak_share, 0, 'f', peak_share < 10 ? 1 : 0)
                  .arg(r.summary.preemptions)
                  .arg(r.simulated_s, 0, 'f', 1));
}

SweepChart::SweepChart(QWidget* parent) : QChartView(parent) {
  setRenderHint(QPainter::Antialiasing);
  chart()->setTitle("Concurrency sweep");
  chart()->legend()->setAlignment(Qt::AlignBottom);
}

void SweepChart::setResult(const sim::SweepResult& r) {
  QChart* c = chart();
  clearChart(c);
  c->setTitle(QString("Concurrency sweep: %1 on %2 × %3")
                  .arg(qs(r.model), QString::number(r.gpus), qs(r.gpu)));
  auto* line = lineSeries("tokens/s per GPU", pen(QColor("#2b6cb0"), 2));
  line->setObjectName("points");
  auto* dots = new QScatterSeries;
  dots->setName("concurrency");
  dots->setMarkerSize(8);
  dots->setColor(QColor("#2b6cb0"));
  double max_x = r.slo_tokens_per_s_per_user, max_y = 0;
  for (const auto& p : r.points) {
    if (p.tokens_per_s_per_user <= 0) continue;
    line->append(p.tokens_per_s_per_user, p.tokens_per_s_per_gpu);
    dots->append(p.tokens_per_s_per_user, p.tokens_per_s_per_gpu);
    max_x = std::max(max_x, p.tokens_per_s_per_user);
    max_y = std::max(max_y, p.tokens_per_s_per_gpu);
  }
  auto* x = countAxis("userAxis", "output tokens/s per user", std::max(1.0, max_x * 1.05));
  auto* y = countAxis("gpuAxis", "output tokens/s per GPU", std::max(1.0, max_y * 1.05));
  c->addAxis(x, Qt::AlignBottom);
  c->addAxis(y, Qt::AlignLeft);
  attach(c, line, x, y);
  attach(c, dots, x, y);
  if (r.knee) {
    const sim::SweepPoint& k = r.points[*r.knee];
    auto* knee = new QScatterSeries;
    knee->setName(QString("knee (%1 clients)").arg(k.concurrency));
    knee->setObjectName("knee");
    knee->setMarkerSize(16);
    knee->setColor(Qt::transparent);
    knee->setBorderColor(QColor("#d69e2e"));
    knee->append(k.tokens_per_s_per_user, k.tokens_per_s_per_gpu);
    attach(c, knee, x, y);
  }
  if (r.slo_tokens_per_s_per_user > 0) {
    auto* slo = lineSeries(QString("TPOT SLO %1 ms").arg(r.slo.tpot_p99_ms),
                           pen(QColor("#c0392b"), 1.5, Qt::DashLine));
    slo->setObjectName("slo");
    slo->append(r.slo_tokens_per_s_per_user, 0);
    slo->append(r.slo_tokens_per_s_per_user, y->max());
    attach(c, slo, x, y);
  }
}

TransferQueueChart::TransferQueueChart(QWidget* parent) : QChartView(parent) {
  setRenderHint(QPainter::Antialiasing);
  chart()->setTitle("KV transfers: run a disaggregated simulation");
  chart()->legend()->setAlignment(Qt::AlignBottom);
}

void TransferQueueChart::clear() { clearChart(chart()); }

void TransferQueueChart::setSeries(const std::vector<sim::TransferSample>& samples) {
  QChart* c = chart();
  clear();
  auto* blocks = lineSeries("waiting for decode blocks", pen(QColor("#c0392b"), 1.5));
  blocks->setObjectName("waitingBlocks");
  auto* link = lineSeries("waiting for the link", pen(QColor("#d69e2e"), 1.5));
  link->setObjectName("waitingLink");
  auto* on = lineSeries("on the link", pen(QColor("#2b6cb0"), 2));
  on->setObjectName("onLink");
  std::uint64_t peak = 0;
  for (const auto& q : samples) {
    blocks->append(q.t_s, static_cast<double>(q.waiting_blocks));
    link->append(q.t_s, static_cast<double>(q.waiting_link));
    on->append(q.t_s, static_cast<double>(q.on_link));
    peak = std::max({peak, q.waiting_blocks, q.waiting_link, q.on_link});
  }
  auto* x = timeAxis(samples.empty() ? 1.0 : samples.back().t_s);
  auto* y = countAxis("transfersAxis", "transfers", std::max(1.0, static_cast<double>(peak) * 1.1));
  c->addAxis(x, Qt::AlignBottom);
  c->addAxis(y, Qt::AlignLeft);
  for (auto* series : {blocks, link, on}) attach(c, series, x, y);
  c->setTitle(QString("KV transfers in the queue (peak %1)").arg(peak));
}

}  // namespace kvplan::gui
