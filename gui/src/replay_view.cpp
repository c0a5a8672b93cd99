#include "replay_view.hpp"

#include <QLabel>
#include <QVBoxLayout>

namespace kvplan::gui {

ReplayView::ReplayView(QWidget* parent) : QWidget(parent) {
  auto* l = new QVBoxLayout(this);
  l->addWidget(new QLabel("Replay: waiting for the simulator's replay engine."));
}

}  // namespace kvplan::gui
