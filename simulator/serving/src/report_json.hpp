// Private to kvplan_serving: how the serving reports (serving_report.cpp, sweep.cpp) write
// numbers — fixed decimals in tables, null in JSON for a value that was not measured.
#pragma once

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "kvplan/sim/serving.hpp"

namespace kvplan::sim::detail {

// x with `digits` decimals; "-" when x is not finite (nothing measured).
inline std::string fixed(double x, int digits) {
  if (!std::isfinite(x)) return "-";
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", digits, x);
  return b;
}

inline nlohmann::json num(double x) {
  return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json();
}
// An SLO limit: null when not set (0).
inline nlohmann::json limit(double x) { return x > 0 ? nlohmann::json(x) : nlohmann::json(); }

// No value measured (every request refused, or none with a second token): null, not 0.
inline nlohmann::json to_json(const Percentiles& p) {
  const auto v = [&](double x) { return p.count ? num(x) : nlohmann::json(); };
  return {{"mean", v(p.mean)},
          {"p50", v(p.p50)},
          {"p90", v(p.p90)},
          {"p99", v(p.p99)},
          {"count", p.count}};
}

}  // namespace kvplan::sim::detail
