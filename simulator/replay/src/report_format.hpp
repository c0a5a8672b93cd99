// Number formatting shared by the simulator's report renderers (replay_report.cpp and
// probe_report.cpp): table cells print a missing figure (NaN) as "-", JSON writes a NaN or an
// infinity as null. Private to kvplan_replay: no nlohmann type in a public header.
//
//   report::fixed(0.12345, 3)         // "0.123"
//   report::signed_fixed(0.5, 3)      // "+0.500"; signed_fixed(-0.25, 2) is "-0.25"
//   report::sci(0.000123456)          // "0.000123"; sci(0) is "0", sci(1234567) is "1.23e+06"
//   report::num(NAN)                  // null (JSON has no NaN)
#pragma once

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

namespace kvplan::sim::report {

// `x` to `digits` decimals ("%.*f"), "-" for NaN.
inline std::string fixed(double x, int digits) {
  if (std::isnan(x)) return "-";
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", digits, x);
  return b;
}

// As fixed, with the sign always written ("%+.*f"): a difference from a baseline.
inline std::string signed_fixed(double x, int digits) {
  if (std::isnan(x)) return "-";
  char b[64];
  std::snprintf(b, sizeof b, "%+.*f", digits, x);
  return b;
}

// Three significant digits ("%.3g"), "0" for zero, "-" for NaN: errors and divergences that span
// orders of magnitude.
inline std::string sci(double x) {
  if (std::isnan(x)) return "-";
  if (x == 0) return "0";
  char b[64];
  std::snprintf(b, sizeof b, "%.3g", x);
  return b;
}

// A finite double as a JSON number, anything else as null (JSON has no NaN or infinity).
inline nlohmann::json num(double x) {
  return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json();
}

}  // namespace kvplan::sim::report
