// The planner's tables are item models: QAbstractItemModelTester checks each one (indexes,
// parents, row and column counts, data roles, resets) while it is filled, refilled and emptied,
// and the cells say what the plan says.
#include <QAbstractItemModelTester>
#include <QtTest>

#include "kvplan/gpu.hpp"
#include "kvplan/model.hpp"
#include "plan_results.hpp"
#include "plan_tables.hpp"

using namespace kvplan;
using namespace kvplan::gui;

class TestGuiTables : public QObject {
  Q_OBJECT

 private:
  static PlanResults plan(const std::string& kv_format) {
    PlanSettings s;
    s.kv_format = kv_format;
    return compute_plan(load_model(s.model_ref), s);
  }

 private Q_SLOTS:
  void orderModelPassesTheTesterAndShowsThePlan() {
    OrderTableModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(m.rowCount(), 0);
    const PlanResults r = plan("fp16");
    QVERIFY2(r.ok, r.error.c_str());
    m.setRows(r.orders);
    QCOMPARE(m.rowCount(), static_cast<int>(list_gpu_presets().size()));
    QCOMPARE(m.columnCount(), 8);
    QCOMPARE(m.headerData(5, Qt::Horizontal).toString(), QString("holds (requests)"));
    for (int i = 0; i < m.rowCount(); ++i) {
      const OrderOption& o = r.orders[static_cast<std::size_t>(i)];
      QCOMPARE(m.data(m.index(i, 0)).toString(), QString::fromStdString(o.gpu.name));
      QCOMPARE(m.data(m.index(i, 0), Qt::ToolTipRole).toString(), QString::fromStdString(o.gpu.id));
      if (o.feasible) {
        QCOMPARE(m.data(m.index(i, 1)).toString(), QString::number(o.gpus));
        QCOMPARE(m.data(m.index(i, 1), Qt::TextAlignmentRole).toInt(),
                 int(Qt::AlignRight | Qt::AlignVCenter));
      } else {
        QCOMPARE(m.data(m.index(i, 7)).toString(), QString::fromStdString(o.reason));
      }
    }
    QVERIFY(!m.data(m.index(0, 8)).isValid());
    m.setRows(plan("fp8").orders);  // refilled
    m.setRows({});                  // emptied
    QCOMPARE(m.rowCount(), 0);
  }

  void whatIfModelPassesTheTesterAndShowsThePlan() {
    WhatIfTableModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const PlanResults r = plan("fp16");
    m.setRows(r.what_if);
    QCOMPARE(m.rowCount(), static_cast<int>(r.what_if.size()));
    QVERIFY(m.rowCount() > 0);
    QCOMPARE(m.columnCount(), 7);
    const WhatIf& w = r.what_if.front();
    QCOMPARE(m.data(m.index(0, 0)).toString(), QString::fromStdString(w.format));
    QCOMPARE(m.data(m.index(0, 3), Qt::ToolTipRole).toString(),
             QString::fromStdString(grouped(w.bytes_per_request) + " bytes"));
    QCOMPARE(m.data(m.index(0, 4)).toString(), QString::fromStdString(grouped(w.max_requests)));
    m.setRows(plan("kivi:bits=2,group=32,residual=128").what_if);
    m.setRows({});
    QCOMPARE(m.rowCount(), 0);
  }
};

QTEST_MAIN(TestGuiTables)
#include "test_gui_tables.moc"
