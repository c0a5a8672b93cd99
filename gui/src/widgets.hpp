// Widgets the views share: the in-window error banner and the scrolling settings column.
#pragma once

#include <QLabel>
#include <QScrollArea>
#include <QString>

namespace kvplan::gui {

// A red, word-wrapped, selectable banner, hidden until setBannerMessage shows a message.
QLabel* makeErrorBanner(const QString& objectName);
// Shows `message` in the banner, or hides it when the message is empty.
void setBannerMessage(QLabel* banner, const QString& message);
// A vertically scrolling column around `inner`, at least `minWidth` pixels wide.
QScrollArea* makeSettingsScroll(QWidget* inner, int minWidth);

}  // namespace kvplan::gui
