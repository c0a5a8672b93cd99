// Private to core: the key=value option lists of format and policy spec strings.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace kvplan::detail {

struct SpecOptions {
  std::string head;                           // text before ':'
  std::map<std::string, std::string> values;  // key -> value, in order of the keys
};

// "kivi:bits=2,group=32" -> {head "kivi", {bits: 2, group: 32}}. Throws Error on duplicates,
// empty keys or a missing '='.
SpecOptions split_spec(std::string_view spec, const std::string& source, const std::string& field);

// Parses a positive decimal integer in [min, max]; throws Error naming field and value.
std::uint64_t parse_uint(const std::string& text, std::uint64_t min, std::uint64_t max,
                         const std::string& source, const std::string& field);

// Parses a decimal number ("300", "2.5", "1e3") in [min, max], as Python's float() reads a
// plain number (no nan, inf or hex); throws Error naming field and value.
double parse_real(const std::string& text, double min, double max, const std::string& source,
                  const std::string& field);

// Parses "0.25" as parts per million (250000), exact, in (0, 1e6]; throws Error otherwise.
std::uint32_t parse_ppm(const std::string& text, const std::string& source,
                        const std::string& field);

}  // namespace kvplan::detail
