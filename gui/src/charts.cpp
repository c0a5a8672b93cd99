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
#include <iterator>

#include "chart_clear.hpp"
#include "ui_format.hpp"

namespace kvplan::gui {
namespace {

QString formatLabel(const std::string& spec) {
  if (spec.rfind("kivi:bits=2", 0) == 0) return "KIVI 2-bit";
  if (spec.rfind("kivi:bits=4", 0) == 0) return "KIVI 4-bit";
  if (spec.rfind("kivi:bits=8", 0) == 0) return "KIVI 8-bit";
  return qs(spec);
}

// One colour and one dash pattern per curve, so curves that coincide (fp8 and int8 cost the same
// bytes) stay apart and the chart reads in grey too.
QColor curveColor(std::size_t k) {
  static const QColor colors[] = {QColor(0x1f, 0x77, 0xb4), QColor(0x2c, 0xa0, 0x2c),
                                  QColor(0xff, 0x7f, 0x0e), QColor(0x94, 0x67, 0xbd),
                                  QColor(0xd6, 0x27, 0x28), QColor(0x8c, 0x56, 0x4b)};
  return colors[k % std::size(colors)];
}

Qt::PenStyle curveStyle(std::size_t k) {
  static const Qt::PenStyle styles[] = {Qt::SolidLine,   Qt::DashLine,       Qt::DotLine,
                                        Qt::DashDotLine, Qt::DashDotDotLine, Qt::SolidLine};
  return styles[k % std::size(styles)];
}

// The x axis is log2(context) so the ticks can read "1K", "4K", ... "1M".
double xOf(std::uint64_t context) { return std::log2(static_cast<double>(context)); }

// The context axis runs from the first sampled context to the model's limit (its
// max_position_embeddings; 1M when unknown), where every curve ends.
struct ContextRange {
  std::uint64_t first, limit;  // tokens
  double x_lo, x_hi;           // xOf(first), xOf(limit)
};

ContextRange contextRange(const PlanResults& r) {
  ContextRange g;
  g.first = r.curves.empty() || r.curves.front().context.empty() ? 1024
                                                                 : r.curves.front().context.front();
  g.limit = r.model.max_context ? r.model.max_context : std::uint64_t{1} << 20;
  g.x_lo = xOf(g.first);
  g.x_hi = xOf(std::max(g.limit, g.first + 1));
  return g;
}

QCategoryAxis* contextAxis(const PlanResults& r, const ContextRange& g) {
  auto* x = new QCategoryAxis;
  x->setObjectName("contextAxis");
  x->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
  for (int p = static_cast<int>(std::ceil(g.x_lo)); p < g.x_hi; ++p)
    if (g.x_hi - p >= 0.5) x->append(shortTokens(std::uint64_t{1} << p), p);  // room for the limit
  x->append(shortTokens(g.limit), g.x_hi);
  x->setRange(g.x_lo, g.x_hi);
  x->setTitleText(r.model.max_context
                      ? QString("context length (tokens per request, log scale) — the model's "
                                "limit is %1")
                            .arg(groupedNumber(g.limit))
                      : QString("context length (tokens per request, log scale; the model's "
                                "limit is unknown)"));
  x->setGridLineVisible(true);
  return x;
}

// Log scale from 1 to the decade above every curve and the target.
QLogValueAxis* requestsAxis(const PlanResults& r) {
  std::uint64_t top = std::max<std::uint64_t>(r.settings.concurrency, 1);
  for (const auto& curve : r.curves)
    for (auto v : curve.max_requests) top = std::max(top, v);
  auto* y = new QLogValueAxis;
  y->setObjectName("requestsAxis");
  y->setBase(10);
  y->setLabelFormat("%g");
  y->setRange(1, std::pow(10.0, std::ceil(std::log10(static_cast<double>(top) * 1.5))));
  y->setMinorTickCount(8);
  y->setTitleText("max concurrent requests");
  return y;
}

// Curve k: max requests against context, named by its format.
QLineSeries* curveSeries(const PlanResults& r, std::size_t k) {
  const FormatCurve& curve = r.curves[k];
  auto* s = new QLineSeries;
  QString name =
      curve.error.empty() ? formatLabel(curve.format) : formatLabel(curve.format) + " (n/a)";
  // Formats of the same byte cost (fp8 and int8) give the same curve: say so in the legend;
  // the dash patterns keep both visible where they lie on top of each other.
  for (std::size_t j = 0; j < k; ++j)
    if (curve.error.empty() && !curve.context.empty() &&
        r.curves[j].max_requests == curve.max_requests) {
      name += QString(" (same as %1)").arg(formatLabel(r.curves[j].format));
      break;
    }
  s->setName(name);
  for (std::size_t i = 0; i < curve.context.size(); ++i) {
    // A log axis cannot show 0: the curve ends where not even one request fits.
    if (curve.max_requests[i] == 0) break;
    s->append(xOf(curve.context[i]), static_cast<double>(curve.max_requests[i]));
  }
  return s;
}

// Curve k's own colour and dashes; the chosen format is drawn thicker.
QPen curvePen(const PlanResults& r, std::size_t k) {
  QPen pen(curveColor(k));
  pen.setStyle(curveStyle(k));
  pen.setWidthF(r.curves[k].format == r.settings.kv_format ? 4.0 : 2.0);
  return pen;
}

// Hovering a curve shows the sampled point nearest the cursor with its exact numbers from core.
void showPointOnHover(QLineSeries* s, const FormatCurve& curve, QWidget* view) {
  QObject::connect(s, &QLineSeries::hovered, view, [view, curve](const QPointF& p, bool state) {
    if (!state) return;
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
                       view);
  });
}

// The target concurrency, a dashed grey line across the context range.
QLineSeries* targetLine(const PlanResults& r, const ContextRange& g) {
  auto* target = new QLineSeries;
  target->setName(QString("target: %1 requests").arg(groupedNumber(r.settings.concurrency)));
  target->append(g.x_lo, static_cast<double>(std::max<std::uint64_t>(r.settings.concurrency, 1)));
  target->append(g.x_hi, static_cast<double>(std::max<std::uint64_t>(r.settings.concurrency, 1)));
  QPen dashed(Qt::gray);
  dashed.setStyle(Qt::DashLine);
  dashed.setWidth(2);
  target->setPen(dashed);
  return target;
}

// This plan's own point: its requests at its context.
QScatterSeries* planDot(const PlanResults& r) {
  auto* dot = new QScatterSeries;
  dot->setName(QString("this plan: %1 requests at %2 tokens")
                   .arg(groupedNumber(r.capacity.max_requests))
                   .arg(shortTokens(r.settings.context)));
  dot->setMarkerSize(12);
  dot->setColor(Qt::black);
  dot->append(xOf(r.settings.context), static_cast<double>(r.capacity.max_requests));
  return dot;
}

}  // namespace

ConcurrencyChart::ConcurrencyChart(QWidget* parent) : QChartView(new QChart, parent) {
  setRenderHint(QPainter::Antialiasing);
  chart()->setTitle("Max concurrent requests vs. context length");
  chart()->legend()->setAlignment(Qt::AlignRight);
  setMinimumHeight(300);
}

void ConcurrencyChart::setResults(const PlanResults& r) {
  QChart* c = chart();
  clearChart(c);
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
  const ContextRange range = contextRange(r);
  auto* x = contextAxis(r, range);
  auto* y = requestsAxis(r);
  c->addAxis(x, Qt::AlignBottom);
  c->addAxis(y, Qt::AlignLeft);
  const auto add = [&](QAbstractSeries* s) {
    c->addSeries(s);
    s->attachAxis(x);
    s->attachAxis(y);
  };
  for (std::size_t k = 0; k < r.curves.size(); ++k) {
    QLineSeries* s = curveSeries(r, k);
    c->addSeries(s);
    s->setPen(curvePen(r, k));
    s->attachAxis(x);
    s->attachAxis(y);
    showPointOnHover(s, r.curves[k], this);
  }
  add(targetLine(r, range));
  if (r.capacity.max_requests > 0 && r.settings.context >= range.first &&
      r.settings.context <= range.limit)
    add(planDot(r));
}

MemoryBarChart::MemoryBarChart(QWidget* parent) : QChartView(new QChart, parent) {
  setRenderHint(QPainter::Antialiasing);
  chart()->setTitle("Memory of one GPU");
  chart()->legend()->setAlignment(Qt::AlignRight);
  setMinimumHeight(210);
}

void MemoryBarChart::setResults(const PlanResults& r) {
  QChart* c = chart();
  clearChart(c);
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
