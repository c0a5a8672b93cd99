#include "json_read.hpp"

#include <cmath>
#include <fstream>
#include <sstream>

#include "kvplan/error.hpp"

namespace kvplan::detail {

namespace {
constexpr std::uint64_t kMaxFileBytes = 64ull << 20;
}

nlohmann::json parse_json_text(const std::string& text, const std::string& source) {
  try {
    // Nesting is bounded: dump() (used to quote bad values in messages) recurses once per level,
    // so a file of 100000 '[' would overflow the stack. No config needs more than a few levels.
    constexpr int kMaxDepth = 256;
    return nlohmann::json::parse(
        text, [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
          if (depth > kMaxDepth)
            throw Error(source, "", "invalid JSON: nested deeper than " +
                                        std::to_string(kMaxDepth) + " levels");
          return true;
        });
  } catch (const nlohmann::json::exception& e) {
    // parse_error for syntax, out_of_range for numbers like 1e400: both are invalid input.
    std::string what = e.what();
    auto pos = what.find("] ");
    throw Error(source, "", "invalid JSON: " + (pos == std::string::npos ? what : what.substr(pos + 2)));
  }
}

std::string read_text_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw Error(path, "", "cannot open " + what + " for reading");
  const std::streamoff size = in.tellg();
  if (size < 0) throw Error(path, "", "cannot read " + what);
  if (static_cast<std::uint64_t>(size) > kMaxFileBytes)
    throw Error(path, "", what + " is " + std::to_string(size) + " bytes, over the 64 MiB limit");
  std::string text(static_cast<std::size_t>(size), '\0');
  in.seekg(0);
  if (!in.read(text.data(), size)) throw Error(path, "", "cannot read " + what);
  return text;
}

std::string show(const nlohmann::json& v) {
  std::string s = v.dump();
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

JsonObject::JsonObject(const nlohmann::json& j, std::string source, std::string pointer)
    : j_(j), source_(std::move(source)), pointer_(std::move(pointer)) {
  if (!j_.is_object())
    throw Error(source_, pointer_.empty() ? "/" : pointer_,
                "expected a JSON object, got " + show(j_));
}

void JsonObject::fail(const std::string& key, const std::string& message) const {
  throw Error(source_, pointer(key), message);
}

bool JsonObject::has(const std::string& key) const {
  return j_.contains(key) && !j_.at(key).is_null();
}

const nlohmann::json& JsonObject::raw(const std::string& key) {
  read_.insert(key);
  if (!j_.contains(key)) fail(key, "missing required field");
  return j_.at(key);
}

std::uint64_t JsonObject::uint(const std::string& key, std::uint64_t min, std::uint64_t max) {
  const auto& v = raw(key);
  std::uint64_t x = 0;
  if (v.is_number_unsigned()) {
    x = v.get<std::uint64_t>();
  } else if (v.is_number_integer()) {
    fail(key, "must not be negative, got " + show(v));
  } else if (v.is_number_float()) {
    // 1e3 or 4096.0 written by other tools are whole numbers; 0.5, NaN and 1e300 are not.
    const double d = v.get<double>();
    if (!std::isfinite(d) || d != std::floor(d)) fail(key, "expected a whole number, got " + show(v));
    if (d < 0) fail(key, "must not be negative, got " + show(v));
    if (d > 9.0e15) fail(key, "is absurdly large: " + show(v));
    x = static_cast<std::uint64_t>(d);
  } else {
    fail(key, "expected a whole number, got " + show(v));
  }
  if (x < min || x > max)
    fail(key, "must be between " + std::to_string(min) + " and " + std::to_string(max) +
                  ", got " + show(v));
  return x;
}

std::optional<std::uint64_t> JsonObject::opt_uint(const std::string& key, std::uint64_t min,
                                                  std::uint64_t max) {
  if (!has(key)) {
    read_.insert(key);
    return std::nullopt;
  }
  return uint(key, min, max);
}

double JsonObject::number(const std::string& key, double min, double max) {
  const auto& v = raw(key);
  if (!v.is_number()) fail(key, "expected a number, got " + show(v));
  double d = v.get<double>();
  if (!std::isfinite(d) || d < min || d > max) {
    std::ostringstream os;
    os << "must be between " << min << " and " << max << ", got " << show(v);
    fail(key, os.str());
  }
  return d;
}

std::optional<double> JsonObject::opt_number(const std::string& key, double min, double max) {
  if (!has(key)) {
    read_.insert(key);
    return std::nullopt;
  }
  return number(key, min, max);
}

std::string JsonObject::str(const std::string& key) {
  const auto& v = raw(key);
  if (!v.is_string()) fail(key, "expected a string, got " + show(v));
  return v.get<std::string>();
}

std::optional<std::string> JsonObject::opt_str(const std::string& key) {
  if (!has(key)) {
    read_.insert(key);
    return std::nullopt;
  }
  return str(key);
}

std::optional<bool> JsonObject::opt_bool(const std::string& key) {
  if (!has(key)) {
    read_.insert(key);
    return std::nullopt;
  }
  const auto& v = raw(key);
  if (!v.is_boolean()) fail(key, "expected true or false, got " + show(v));
  return v.get<bool>();
}

JsonObject JsonObject::object(const std::string& key) {
  const auto& v = raw(key);
  if (!v.is_object()) fail(key, "expected a JSON object, got " + show(v));
  return JsonObject(v, source_, pointer(key));
}

std::optional<JsonObject> JsonObject::opt_object(const std::string& key) {
  if (!has(key)) {
    read_.insert(key);
    return std::nullopt;
  }
  return object(key);
}

std::vector<std::string> JsonObject::strings(const std::string& key) {
  const auto& v = raw(key);
  if (!v.is_array()) fail(key, "expected an array of strings, got " + show(v));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string())
      throw Error(source_, pointer(key) + "/" + std::to_string(i),
                  "expected a string, got " + show(v[i]));
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

void JsonObject::finish() const {
  for (auto it = j_.begin(); it != j_.end(); ++it) {
    if (!read_.count(it.key())) fail(it.key(), "unknown field (check the spelling)");
  }
}

}  // namespace kvplan::detail
