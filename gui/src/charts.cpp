#include "charts.hpp"

#include <QToolTip>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSet>
#include <QtCharts/QCategoryAxis>
#include <QtCharts/QChart>
#include <QtCharts/QHorizontalStackedBarSeries>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>
#include <QtCharts/QScatterSeries>
#include <QtCharts/QValueAxis>
#include <algorithm>
#include <cmath>

#include "ui_format.hpp"

namespace kvplan::gui {
namespace {

QString formatLabel(const std::string& spec) {
  if (spec.rfind("kivi:bits=2", 0) == 0) return "KIVI 2-bit";
  if (spec.rfind("kivi:bits=4", 0) == 0) return "KIVI 4-bit";
  if (spec.rfind("kivi:bits=8", 0) == 0) return "KIVI 8-bit";
  return qs(spec);
}

// The x axis is log2(context) so the ticks can read "1K", "4K", ... "1M".
double xOf(std::uint64_t context) { return std::log2(static_cast<double>(context)); }

}  // namespace

ConcurrencyChart::ConcurrencyChart(QWidget* parent) : QChartView(new QChart, parent) {
  setRenderHint(QPainter::Antialiasing);
  chart()->setTitle("Max concurrent requests vs. context length");
  chart()->legend()->setAlignment(Qt::AlignRight);
  setMinimumHeight(300);
}

void ConcurrencyChart::setResults(const PlanResults& r) {
  QChart* c = chart();
  c->removeAllSeries();
  for (QAbstractAxis* a : c->axes()) {
    c->removeAxis(a);
    delete a;
  }
  if (!r.ok) {
    c->setTitle("Max concurrent requests vs. context length (no plan: see the message above)");
    return;
  }
  c->setTitle(QString("Max concurrent requests (all replicas) vs. context length, log-log — %1, "
                      "%2 × %3, policy %4")
                  .arg(qs(r.model.name))
                  .arg(r.settings.gpus)
                  .arg(qs(r.gpu.name))
                  .arg(qs(r.settings.policy)));

  auto* x = new QCategoryAxis;
  x->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
  for (int p = 10; p <= 20; ++p) x->append(shortTokens(std::uint64_t{1} << p), p);
  x->setRange(10, 20);
  x->setTitleText("context length (tokens per request, log scale)");
  x->setGridLineVisible(true);

  std::uint64_t top = std::max<std::uint64_t>(r.settings.concurrency, 1);
  for (const auto& curve : r.curves)
    for (auto v : curve.max_requests) top = std::max(top, v);
  auto* y = new QLogValueAxis;
  y->setBase(10);
  y->setLabelFormat("%g");
  y->setRange(1, std::pow(10.0, std::ceil(std::log10(static_cast<double>(top) * 1.5))));
  y->setMinorTickCount(8);
  y->setTitleText("max concurrent requests");
  c->addAxis(x, Qt::AlignBottom);
  c->addAxis(y, Qt::AlignLeft);

  for (const auto& curve : r.curves) {
    auto* s = new QLineSeries;
    s->setName(curve.error.empty() ? formatLabel(curve.format)
                                   : formatLabel(curve.format) + " (n/a)");
    for (std::size_t i = 0; i < curve.context.size(); ++i) {
      // A log axis cannot show 0: the curve ends where not even one request fits.
      if (curve.max_requests[i] == 0) break;
      s->append(xOf(curve.context[i]), static_cast<double>(curve.max_requests[i]));
    }
    c->addSeries(s);
    if (curve.format == r.settings.kv_format) {
      // The chosen format: its theme colour, drawn thicker.
      QPen pen = s->pen();
      pen.setWidth(4);
      s->setPen(pen);
    }
    s->attachAxis(x);
    s->attachAxis(y);
    connect(s, &QLineSeries::hovered, this, [this, curve](const QPointF& p, bool state) {
      if (!state) return;
      // Show the sampled point nearest the cursor with its exact numbers from core.
      std::size_t best = 0;
      for (std::size_t i = 0; i < curve.context.size(); ++i)
        if (std::abs(xOf(curve.context[i]) - p.x()) < std::abs(xOf(curve.context[best]) - p.x()))
          best = i;
      if (curve.context.empty()) return;
      QToolTip::showText(QCursor::pos(),
                         QString("%1: %2 requests at %3 tokens")
                             .arg(formatLabel(curve.format))
                             .arg(groupedNumber(curve.max_requests[best]))
                             .arg(groupedNumber(curve.context[best])),
                         this);
    });
  }

  auto* target = new QLineSeries;
  target->setName(QString("target: %1 requests").arg(groupedNumber(r.settings.concurrency)));
  target->append(10, static_cast<double>(std::max<std::uint64_t>(r.settings.concurrency, 1)));
  target->append(20, static_cast<double>(std::max<std::uint64_t>(r.settings.concurrency, 1)));
  QPen dashed(Qt::gray);
  dashed.setStyle(Qt::DashLine);
  dashed.setWidth(2);
  target->setPen(dashed);
  c->addSeries(target);
  target->attachAxis(x);
  target->attachAxis(y);

  if (r.capacity.max_requests > 0 && r.settings.context >= 1024 &&
      r.settings.context <= (1u << 20)) {
    auto* dot = new QScatterSeries;
    dot->setName(QString("this plan: %1 requests at %2 tokens")
                     .arg(groupedNumber(r.capacity.max_requests))
                     .arg(shortTokens(r.settings.context)));
    dot->setMarkerSize(12);
    dot->setColor(Qt::black);
    dot->append(xOf(r.settings.context), static_cast<double>(r.capacity.max_requests));
    c->addSeries(dot);
    dot->attachAxis(x);
    dot->attachAxis(y);
  }
}

MemoryBarChart::MemoryBarChart(QWidget* parent) : QChartView(new QChart, parent) {
  setRenderHint(QPainter::Antialiasing);
  chart()->setTitle("Memory of one GPU");
  chart()->legend()->setAlignment(Qt::AlignRight);
  setMinimumHeight(210);
}

void MemoryBarChart::setResults(const PlanResults& r) {
  QChart* c = chart();
  c->removeAllSeries();
  for (QAbstractAxis* a : c->axes()) {
    c->removeAxis(a);
    delete a;
  }
  if (!r.ok) return;
  const MemoryBudget& m = r.capacity.memory;
  c->setTitle(QString("Memory of one GPU: %1, %2 in all, one rank of TP %3 × PP %4")
                  .arg(qs(r.gpu.name))
                  .arg(humanBytes(m.total_bytes))
                  .arg(r.settings.tp)
                  .arg(r.settings.pp));
  // The four parts come from core's MemoryBudget; "free" is what is left of the device.
  const std::uint64_t used = m.weight_bytes + m.reserve_bytes + m.available_bytes;
  const std::uint64_t free_bytes = m.total_bytes > used ? m.total_bytes - used : 0;
  struct Part {
    QString name;
    std::uint64_t bytes;
    QColor color;
  };
  const Part parts[] = {
      {"weights", m.weight_bytes, QColor(0x4c, 0x72, 0xb0)},
      {"KV cache", m.available_bytes, QColor(0x55, 0xa8, 0x68)},
      {"reserve (activations, graphs)", m.reserve_bytes, QColor(0xdd, 0x84, 0x52)},
      {"free (outside the budget)", free_bytes, QColor(0xbb, 0xbb, 0xbb)}};
  auto* series = new QHorizontalStackedBarSeries;
  for (const Part& p : parts) {
    // Legend: GiB only; the tooltip has the exact bytes.
    auto* set = new QBarSet(QString("%1 %2 GiB")
                                .arg(p.name)
                                .arg(static_cast<double>(p.bytes) / (1ull << 30), 0, 'f', 2));
    set->setColor(p.color);
    *set << static_cast<double>(p.bytes) / static_cast<double>(1ull << 30);
    const std::uint64_t exact = p.bytes;
    const QString name = p.name;
    connect(set, &QBarSet::hovered, this, [this, exact, name](bool state, int) {
      if (state) QToolTip::showText(QCursor::pos(), name + ": " + exactBytes(exact), this);
    });
    series->append(set);
  }
  series->setBarWidth(0.6);
  c->addSeries(series);
  auto* cat = new QBarCategoryAxis;
  cat->append("GPU 0");
  auto* val = new QValueAxis;
  val->setRange(0, std::max(1.0, static_cast<double>(m.total_bytes) / (1ull << 30)));
  val->setTitleText("GiB (2^30 bytes)");
  val->setLabelFormat("%.0f");
  val->applyNiceNumbers();
  c->addAxis(cat, Qt::AlignLeft);
  c->addAxis(val, Qt::AlignBottom);
  series->attachAxis(cat);
  series->attachAxis(val);
}

}  // namespace kvplan::gui
