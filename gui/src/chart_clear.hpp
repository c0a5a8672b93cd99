// One step every chart view takes before it redraws: drop the old series and axes.
#pragma once

#include <QtCharts/QAbstractAxis>
#include <QtCharts/QChart>

namespace kvplan::gui {

// Removes every series and axis from `c`, deleting the axes (removeAllSeries deletes the series).
inline void clearChart(QChart* c) {
  c->removeAllSeries();
  for (QAbstractAxis* a : c->axes()) {
    c->removeAxis(a);
    delete a;
  }
}

}  // namespace kvplan::gui
