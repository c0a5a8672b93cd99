// The replay view: pick a trace (.safetensors) or a llama2.c checkpoint, choose KV configurations,
// replay them on a worker thread with a progress bar and Cancel, and plot memory (predicted and
// measured) and fidelity per configuration.
#pragma once

#include <QWidget>

namespace kvplan::gui {

class ReplayView : public QWidget {
  Q_OBJECT
 public:
  explicit ReplayView(QWidget* parent = nullptr);
};

}  // namespace kvplan::gui
