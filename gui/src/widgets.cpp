#include "widgets.hpp"

namespace kvplan::gui {

QLabel* makeErrorBanner(const QString& objectName) {
  auto* banner = new QLabel;
  banner->setObjectName(objectName);
  banner->setWordWrap(true);
  banner->setTextInteractionFlags(Qt::TextSelectableByMouse);
  banner->setStyleSheet(
      "QLabel { background: #fdecea; color: #8a1c13; border: 1px solid #e0a39c; padding: 6px; }");
  banner->hide();
  return banner;
}

void setBannerMessage(QLabel* banner, const QString& message) {
  banner->setText(message);
  banner->setVisible(!message.isEmpty());
}

QScrollArea* makeSettingsScroll(QWidget* inner, int minWidth) {
  auto* scroll = new QScrollArea;
  scroll->setWidget(inner);
  scroll->setWidgetResizable(true);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll->setMinimumWidth(minWidth);
  return scroll;
}

}  // namespace kvplan::gui
