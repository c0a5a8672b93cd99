#include "ui_format.hpp"

namespace kvplan::gui {

QString shortTokens(std::uint64_t tokens) {
  if (tokens >= (1u << 20) && tokens % (1u << 20) == 0) return QString::number(tokens >> 20) + "M";
  if (tokens >= (1u << 10) && tokens % (1u << 10) == 0) return QString::number(tokens >> 10) + "K";
  return QString::number(tokens);
}

}  // namespace kvplan::gui
