// Small Qt helpers for showing core's numbers: core's own renderers (human_bytes, grouped), only
// converted to QString.
#pragma once

#include <QString>
#include <cstdint>
#include <string>

#include "kvplan/report.hpp"

namespace kvplan::gui {

inline QString qs(const std::string& s) { return QString::fromStdString(s); }
// "1.00 GiB (1.07 GB)"
inline QString humanBytes(std::uint64_t bytes) { return qs(human_bytes(bytes)); }
// "1,048,576"
inline QString groupedNumber(std::uint64_t n) { return qs(grouped(n)); }
// "1,073,741,824 bytes" — the exact figure for tooltips.
inline QString exactBytes(std::uint64_t bytes) { return qs(grouped(bytes)) + " bytes"; }
// "32K", "1M": chart tick labels for powers of two (a label, not a planning number).
QString shortTokens(std::uint64_t tokens);

}  // namespace kvplan::gui
