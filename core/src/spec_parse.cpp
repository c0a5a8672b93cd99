#include "spec_parse.hpp"

#include <charconv>
#include <cstdio>

#include "kvplan/error.hpp"

namespace kvplan::detail {

SpecOptions split_spec(std::string_view spec, const std::string& source, const std::string& field) {
  SpecOptions out;
  auto colon = spec.find(':');
  out.head = std::string(spec.substr(0, colon));
  if (colon == std::string_view::npos) return out;
  std::string_view rest = spec.substr(colon + 1);
  if (rest.empty())
    throw Error(source, field, "empty option list after ':' in '" + std::string(spec) + "'");
  while (!rest.empty()) {
    auto comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    auto eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == item.size())
      throw Error(
          source, field,
          "expected key=value, got '" + std::string(item) + "' in '" + std::string(spec) + "'");
    std::string key(item.substr(0, eq));
    if (!out.values.emplace(key, std::string(item.substr(eq + 1))).second)
      throw Error(source, field, "option '" + key + "' given twice in '" + std::string(spec) + "'");
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
    if (rest.empty()) throw Error(source, field, "trailing ',' in '" + std::string(spec) + "'");
  }
  return out;
}

std::uint64_t parse_uint(const std::string& text, std::uint64_t min, std::uint64_t max,
                         const std::string& source, const std::string& field) {
  std::uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
    throw Error(source, field, "expected a whole number, got '" + text + "'");
  if (v < min || v > max)
    throw Error(
        source, field,
        "must be between " + std::to_string(min) + " and " + std::to_string(max) + ", got " + text);
  return v;
}

double parse_real(const std::string& text, double min, double max, const std::string& source,
                  const std::string& field) {
  double v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v, std::chars_format::general);
  const bool word = text.find_first_of("nNiI") != std::string::npos;  // nan, inf
  if (text.empty() || word || ec != std::errc() || ptr != end)
    throw Error(source, field, "expected a number, got '" + text + "'");
  if (!(v >= min && v <= max)) {
    char b[96];
    std::snprintf(b, sizeof b, "must be between %g and %g, got ", min, max);
    throw Error(source, field, b + text);
  }
  return v;
}

std::uint32_t parse_ppm(const std::string& text, const std::string& source,
                        const std::string& field) {
  // digits '.' digits, at most 6 fractional digits, value in (0, 1].
  auto bad = [&] {
    return Error(source, field,
                 "expected a fraction in (0, 1] with at most 6 decimals, got '" + text + "'");
  };
  auto dot = text.find('.');
  std::string whole = text.substr(0, dot);
  std::string frac = dot == std::string::npos ? "" : text.substr(dot + 1);
  if (whole.empty() && frac.empty()) throw bad();
  if (frac.size() > 6) throw bad();
  for (char c : whole + frac)
    if (c < '0' || c > '9') throw bad();
  std::uint64_t w = whole.empty() ? 0 : parse_uint(whole, 0, 1, source, field);
  std::uint64_t f = 0;
  for (std::size_t i = 0; i < 6; ++i) f = f * 10 + (i < frac.size() ? frac[i] - '0' : 0);
  std::uint64_t ppm = w * 1000000 + f;
  if (ppm == 0 || ppm > 1000000) throw bad();
  return static_cast<std::uint32_t>(ppm);
}

}  // namespace kvplan::detail
