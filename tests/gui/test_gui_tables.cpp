// The planner's and the compare view's tables are item models: QAbstractItemModelTester checks
// each one (indexes, parents, row and column counts, data roles, resets) while it is filled,
// refilled and emptied, and the cells say what the plan says.
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

  static int rowOf(const QAbstractItemModel& m, const QString& label) {
    for (int i = 0; i < m.rowCount(); ++i)
      if (m.headerData(i, Qt::Vertical).toString() == label) return i;
    return -1;
  }

  void compareModelPassesTheTesterAndShowsTheDifference() {
    CompareTableModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(m.columnCount(), 3);
    QCOMPARE(m.headerData(2, Qt::Horizontal).toString(), QString("B − A"));
    const int format = rowOf(m, "KV format"), per_token = rowOf(m, "KV per token"),
              context = rowOf(m, "context (tokens)");
    QVERIFY(format >= 0 && per_token >= 0 && context >= 0);
    QCOMPARE(m.data(m.index(format, 0)).toString(), QString("not pinned"));
    QVERIFY(m.data(m.index(format, 2)).toString().isEmpty());

    const PlanResults a = plan("fp16"), b = plan("fp8");
    QVERIFY2(a.ok && b.ok, (a.error + b.error).c_str());
    m.setPins(a, std::nullopt);
    QCOMPARE(m.data(m.index(format, 0)).toString(), QString("fp16"));
    QCOMPARE(m.data(m.index(format, 1)).toString(), QString("not pinned"));
    m.setPins(a, b);
    QCOMPARE(m.data(m.index(format, 1)).toString(), QString("fp8"));
    QCOMPARE(m.data(m.index(format, 2)).toString(), QString("changed"));
    // Llama-3.1-8B, 32 layers x 8 KV heads x head dim 128, K and V: fp16 2 · 32 · 8 · 128 · 2 =
    // 131,072 bytes per token, fp8 (1 byte) 65,536, so B − A = −65,536 bytes.
    QCOMPARE(m.data(m.index(per_token, 0), Qt::ToolTipRole).toString(), QString("131,072 bytes"));
    QCOMPARE(m.data(m.index(per_token, 1), Qt::ToolTipRole).toString(), QString("65,536 bytes"));
    QCOMPARE(m.data(m.index(per_token, 2), Qt::ToolTipRole).toString(), QString("−65,536 bytes"));
    QCOMPARE(m.data(m.index(context, 2)).toString(), QString("0"));  // both 8,192 tokens
    QCOMPARE(m.data(m.index(context, 0), Qt::TextAlignmentRole).toInt(),
             int(Qt::AlignRight | Qt::AlignVCenter));

    PlanResults bad = plan("fp16");  // a failed plan shows its error in the first row only
    bad.ok = false;
    bad.error = "no KV memory left";
    m.setPins(a, bad);
    QCOMPARE(m.data(m.index(0, 1)).toString(), QString("no KV memory left"));
    QCOMPARE(m.data(m.index(format, 1)).toString(), QString("—"));
    QVERIFY(m.data(m.index(format, 2)).toString().isEmpty());
    QVERIFY(!m.data(m.index(0, 3)).isValid());
    m.setPins(std::nullopt, std::nullopt);
  }
};

QTEST_MAIN(TestGuiTables)
#include "test_gui_tables.moc"
