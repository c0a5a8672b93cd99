// The deployment rows the Planner and the Serving view both show (one deployment across the
// views): each builder makes a combo box wired to the PlannerModel setter of its field, and each
// sync sets the box from the model's settings without signalling, so the two views' rows are one
// implementation.
//
//   QComboBox* gpu = makeGpuCombo(model, "gpuCombo");   // "H100 SXM 80GB (80 GiB)", ... → setGpu
//   form->addRow("GPU type", gpu);
//   syncGpuCombo(gpu, model->settings());               // on settingsChanged
#pragma once

#include <QString>
#include <string>
#include <vector>

#include "planner_model.hpp"

class QComboBox;

namespace kvplan::gui {

// Model presets ("name  —  id"), editable to search them; choosing one loads it (loadModel).
QComboBox* makeModelCombo(PlannerModel* model, const QString& objectName);
// Selects the loaded model, adding an item for one that is no preset (a config.json).
void syncModelCombo(QComboBox* c, const PlanSettings& s, const ModelSpec& m);

// GPU presets ("name (memory)") → setGpu.
QComboBox* makeGpuCombo(PlannerModel* model, const QString& objectName);
// Selects s.gpu_id, adding a "custom GPU (memory)" item for explicit memory.
void syncGpuCombo(QComboBox* c, const PlanSettings& s);

// TP 1, 2, 4, 8, 16 → setTp.
QComboBox* makeTpCombo(PlannerModel* model, const QString& objectName);
// Enables only the TP sizes core accepts for `m` (valid_tp); selects s.tp, adding it if odd.
void syncTpCombo(QComboBox* c, const PlanSettings& s, const ModelSpec& m);

// vLLM, SGLang, TensorRT-LLM (its label followed by `trtllmNote`) → setEngine.
QComboBox* makeEngineCombo(PlannerModel* model, const QString& objectName,
                           const QString& trtllmNote = {});
void syncEngineCombo(QComboBox* c, const PlanSettings& s);

// An editable spec box (KV format, retention policy) offering `choices`; its text → `setter`.
QComboBox* makeSpecCombo(PlannerModel* model, const QString& objectName,
                         const std::vector<std::string>& choices,
                         void (PlannerModel::*setter)(const QString&));
// Sets the text to `spec` only when it differs, so typing is never disturbed.
void syncSpecCombo(QComboBox* c, const std::string& spec);

}  // namespace kvplan::gui
