#include "replay_table.hpp"

#include <QStringList>
#include <cmath>

#include "ui_format.hpp"

namespace kvplan::gui {
namespace {

const QStringList& headers() {
  // Two short lines each, so the columns are as narrow as their numbers.
  static const QStringList h{"configuration",
                             "tokens",
                             "predicted\nKV",
                             "measured\nKV",
                             "equal at\nevery step",
                             "retained\n(tokens)",
                             "output error\n(rel. L2)",
                             "attention\nmass kept",
                             "mean KL\n(nats)",
                             "top-1\nagreement",
                             "perplexity",
                             "probe\naccuracy",
                             "probe vs\nfull",
                             "needle\nkept",
                             "needle\nmass"};
  return h;
}

const QString kNone = QStringLiteral("—");

QString percent(double v) {
  return std::isnan(v) ? kNone : QString::number(100.0 * v, 'f', 2) + " %";
}

QString signedPercent(double v) {
  return (v > 0 ? "+" : "") + QString::number(100.0 * v, 'f', 2) + " %";
}

// "L0 100.00 %, L1 62.50 %": a needle figure per layer, for a cell's tool tip.
QString perLayer(const std::vector<double>& v) {
  QStringList parts;
  for (std::size_t l = 0; l < v.size(); ++l) parts << QString("L%1 %2").arg(l).arg(percent(v[l]));
  return parts.join(", ");
}

}  // namespace

void ReplayTableModel::setResults(const sim::ReplayReport& report, const sim::ProbeReport* probe) {
  beginResetModel();
  rows_.clear();
  needle_ = probe && probe->options.kind == sim::ProbeKind::needle;
  // Accuracies where the model cannot do the task are noise: not shown (the verdict says so).
  probe_accuracy_ = probe && probe->model_can_do;
  for (const auto& c : report.configs) {
    Row r{c, std::nullopt};
    if (probe)
      for (const auto& x : probe->results)
        if (x.label == c.label) r.probe = x;
    rows_.push_back(std::move(r));
  }
  endResetModel();
}

void ReplayTableModel::clear() {
  beginResetModel();
  rows_.clear();
  needle_ = probe_accuracy_ = false;
  endResetModel();
}

int ReplayTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int ReplayTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumns;
}

QVariant ReplayTableModel::text(const Row& r, int col) const {
  const sim::ConfigResult& c = r.config;
  const bool acc = r.probe && probe_accuracy_;
  const bool needle = r.probe && needle_;
  switch (col) {
    case 0:
      return qs(c.label);
    case 1:
      return groupedNumber(c.steps);
    case 2:
      return humanBytes(c.predicted_bytes);
    case 3:
      return humanBytes(c.measured_bytes);
    case 4:
      return c.bytes_match ? QString("yes")
                           : QString("no, from step %1").arg(c.first_mismatch_step);
    case 5:
      return groupedNumber(c.retained_tokens);
    case 6:
      return percent(c.rel_error);
    case 7:
      return percent(c.attention_mass);
    case 8:
      return c.model_in_loop ? QString::number(c.mean_kl, 'g', 4) : kNone;
    case 9:
      return c.model_in_loop ? percent(c.top1_agreement) : kNone;
    case 10:
      return c.model_in_loop ? QString::number(c.perplexity, 'f', 3) : kNone;
    case 11:
      return acc ? percent(r.probe->accuracy) : kNone;
    case 12:
      return acc ? signedPercent(r.probe->delta) : kNone;
    case 13:
      return needle ? percent(r.probe->mean_retained()) : kNone;
    default:
      return needle ? percent(r.probe->mean_mass()) : kNone;
  }
}

QVariant ReplayTableModel::exact(const Row& r, int col) const {
  const sim::ConfigResult& c = r.config;
  const bool acc = r.probe && probe_accuracy_;
  const bool needle = r.probe && needle_;
  switch (col) {
    case 1:
      return static_cast<qulonglong>(c.steps);
    case 2:
      return static_cast<qulonglong>(c.predicted_bytes);
    case 3:
      return static_cast<qulonglong>(c.measured_bytes);
    case 5:
      return static_cast<qulonglong>(c.retained_tokens);
    case 6:
      return c.rel_error;
    case 7:
      return c.attention_mass;
    case 8:
      return c.model_in_loop ? QVariant(c.mean_kl) : QVariant();
    case 9:
      return c.model_in_loop ? QVariant(c.top1_agreement) : QVariant();
    case 10:
      return c.model_in_loop ? QVariant(c.perplexity) : QVariant();
    case 11:
      return acc ? QVariant(r.probe->accuracy) : QVariant();
    case 12:
      return acc ? QVariant(r.probe->delta) : QVariant();
    case 13:
      return needle ? QVariant(r.probe->mean_retained()) : QVariant();
    case 14:
      return needle ? QVariant(r.probe->mean_mass()) : QVariant();
    default:
      return {};
  }
}

QVariant ReplayTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.parent().isValid() || index.row() < 0 ||
      index.row() >= rowCount() || index.column() < 0 || index.column() >= columnCount())
    return {};
  const Row& r = rows_[static_cast<std::size_t>(index.row())];
  const int col = index.column();
  switch (role) {
    case Qt::DisplayRole:
      return text(r, col);
    case Qt::ToolTipRole:
      if (col == 0) return qs(r.config.label);  // whole, where the column elides it
      if (col == 2) return exactBytes(r.config.predicted_bytes);
      if (col == 3) return exactBytes(r.config.measured_bytes);
      if ((col == 13 || col == 14) && r.probe && needle_) {
        const QString tip = perLayer(col == 13 ? r.probe->layer_retained : r.probe->layer_mass);
        if (!tip.isEmpty()) return tip;
      }
      return {};
    case Qt::TextAlignmentRole:
      return col != 0 && col != 4 ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    case Qt::UserRole:
      return exact(r, col);
    default:
      return {};
  }
}

QVariant ReplayTableModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o == Qt::Vertical) return QAbstractTableModel::headerData(section, o, role);
  if (role != Qt::DisplayRole || section < 0 || section >= headers().size()) return {};
  return headers()[section];
}

}  // namespace kvplan::gui
