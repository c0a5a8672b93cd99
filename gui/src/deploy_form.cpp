#include "deploy_form.hpp"

#include <QAbstractItemView>
#include <QComboBox>
#include <QCompleter>
#include <QSignalBlocker>
#include <QStandardItemModel>

#include "kvplan/engine_rules.hpp"
#include "kvplan/gpu.hpp"
#include "kvplan/model.hpp"
#include "ui_format.hpp"

namespace kvplan::gui {
namespace {

// Selects the item holding `data`, adding one labelled `label` when there is none.
void selectOrAdd(QComboBox* c, const QVariant& data, const QString& label) {
  const QSignalBlocker b(c);
  int i = c->findData(data);
  if (i < 0) {
    c->addItem(label, data);
    i = c->count() - 1;
  }
  c->setCurrentIndex(i);
}

// Long preset names ("NVIDIA GB300 (one Blackwell Ultra GPU of a GB300 NVL72)") do not set the
// width of the settings column: the box shows about 30 characters, its list the whole names.
void fitLongItems(QComboBox* c) {
  c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  c->setMinimumContentsLength(30);
  c->view()->setMinimumWidth(c->view()->sizeHintForColumn(0) + 24);
}

}  // namespace

QComboBox* makeModelCombo(PlannerModel* model, const QString& objectName) {
  auto* c = new QComboBox;
  c->setObjectName(objectName);
  c->setEditable(true);
  c->setInsertPolicy(QComboBox::NoInsert);
  c->setToolTip("Type to search the presets");
  for (const auto& p : list_model_presets())
    c->addItem(QString("%1  —  %2").arg(qs(p.name), qs(p.id)), qs(p.id));
  fitLongItems(c);
  c->completer()->setFilterMode(Qt::MatchContains);
  c->completer()->setCompletionMode(QCompleter::PopupCompletion);
  c->completer()->setCaseSensitivity(Qt::CaseInsensitive);
  QObject::connect(c, &QComboBox::activated, c, [c, model](int i) {
    const QString ref = c->itemData(i).toString();
    if (!ref.isEmpty()) model->loadModel(ref);
  });
  return c;
}

void syncModelCombo(QComboBox* c, const PlanSettings& s, const ModelSpec& m) {
  selectOrAdd(c, qs(s.model_ref), QString("%1  —  %2").arg(qs(m.name), qs(s.model_ref)));
}

QComboBox* makeGpuCombo(PlannerModel* model, const QString& objectName) {
  auto* c = new QComboBox;
  c->setObjectName(objectName);
  for (const auto& g : list_gpu_presets())
    c->addItem(QString("%1 (%2)").arg(qs(g.name), humanBytes(g.memory_bytes)), qs(g.id));
  fitLongItems(c);
  QObject::connect(c, &QComboBox::currentIndexChanged, c,
                   [c, model](int i) { model->setGpu(c->itemData(i).toString()); });
  return c;
}

void syncGpuCombo(QComboBox* c, const PlanSettings& s) {
  const QSignalBlocker b(c);
  int i = c->findData(qs(s.gpu_id));
  if (i < 0 && s.extras.custom_gpu_memory_bytes) {
    c->addItem(QString("custom GPU (%1)").arg(humanBytes(*s.extras.custom_gpu_memory_bytes)),
               qs(s.gpu_id));
    i = c->count() - 1;
  }
  c->setCurrentIndex(i);
}

QComboBox* makeTpCombo(PlannerModel* model, const QString& objectName) {
  auto* c = new QComboBox;
  c->setObjectName(objectName);
  for (int tp : {1, 2, 4, 8, 16}) c->addItem(QString::number(tp), tp);
  QObject::connect(c, &QComboBox::currentIndexChanged, c, [c, model](int i) {
    model->setTp(static_cast<std::uint32_t>(c->itemData(i).toInt()));
  });
  return c;
}

void syncTpCombo(QComboBox* c, const PlanSettings& s, const ModelSpec& m) {
  {
    const QSignalBlocker b(c);
    auto* items = qobject_cast<QStandardItemModel*>(c->model());
    for (int i = 0; i < c->count(); ++i) {
      const bool ok = valid_tp(m, static_cast<std::uint32_t>(c->itemData(i).toInt()));
      if (items) items->item(i)->setEnabled(ok);
    }
  }
  selectOrAdd(c, static_cast<int>(s.tp), QString::number(s.tp));
}

QComboBox* makeEngineCombo(PlannerModel* model, const QString& objectName,
                           const QString& trtllmNote) {
  auto* c = new QComboBox;
  c->setObjectName(objectName);
  // One item per engine (its current rules; older versions come from a loaded deployment), with
  // the note where the serving simulator does not model it.
  for (const EngineRules* r : all_engine_rules())
    if (r->version() == VllmRules::current)
      c->addItem(QString::fromStdString(r->label()) + (r->simulated() ? QString() : trtllmNote),
                 static_cast<int>(r->engine()));
  QObject::connect(c, &QComboBox::currentIndexChanged, c, [c, model](int i) {
    model->setEngine(static_cast<Engine>(c->itemData(i).toInt()));
  });
  return c;
}

void syncEngineCombo(QComboBox* c, const PlanSettings& s) {
  const QSignalBlocker b(c);
  c->setCurrentIndex(c->findData(static_cast<int>(s.engine)));
}

QComboBox* makeSpecCombo(PlannerModel* model, const QString& objectName,
                         const std::vector<std::string>& choices,
                         void (PlannerModel::*setter)(const QString&)) {
  auto* c = new QComboBox;
  c->setObjectName(objectName);
  c->setEditable(true);
  c->setInsertPolicy(QComboBox::NoInsert);
  for (const auto& s : choices) c->addItem(qs(s));
  QObject::connect(c, &QComboBox::currentTextChanged, c,
                   [model, setter](const QString& t) { (model->*setter)(t); });
  return c;
}

void syncSpecCombo(QComboBox* c, const std::string& spec) {
  if (c->currentText().trimmed() == qs(spec)) return;
  const QSignalBlocker b(c);
  c->setCurrentText(qs(spec));
}

}  // namespace kvplan::gui
