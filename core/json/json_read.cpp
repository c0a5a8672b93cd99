#include "json_read.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "kvplan/error.hpp"

namespace kvplan::detail {

namespace {

constexpr std::uint64_t kMaxFileBytes = 64ull << 20;
// Nesting is bounded: dump() (used to quote bad values in messages) recurses once per level, so a
// file of 100000 '[' would overflow the stack. No config needs more than a few levels.
constexpr int kMaxDepth = 256;
// Each value is a DOM node (16 bytes, more inside objects): 2^20 of them is far beyond any
// config and keeps a 64 MiB file of "[0,0,0,..." from building a DOM of gigabytes.
constexpr std::uint64_t kMaxValues = std::uint64_t{1} << 20;

// Python's json module reads the bare literals Infinity, -Infinity and NaN; nlohmann does not.
// In the HF dialects they are rewritten, outside strings, to one-character strings that no valid
// JSON text can otherwise hold as a value (checked below), and turned back into numbers by the
// parse callback. Infinity and -Infinity keep their length, so error columns stay exact.
constexpr const char* kPosInf = "\"\\u0001\"";   // Infinity  (8 bytes)
constexpr const char* kNegInf = "\"\\u0002\" ";  // -Infinity (9 bytes)
constexpr const char* kNaN = "\"\\u0003\"";      // NaN (3 bytes -> 8: columns shift after it)

bool is_sentinel_literal(const std::string& text, std::size_t i) {
  if (i + 8 > text.size() || text.compare(i, 5, "\"\\u00") != 0 || text[i + 7] != '"') return false;
  return text[i + 5] == '0' && text[i + 6] >= '1' && text[i + 6] <= '3';
}

// Returns true when it rewrote anything.
bool rewrite_nonfinite(const std::string& text, const std::string& source, std::string& out) {
  if (text.find("Infinity") == std::string::npos && text.find("NaN") == std::string::npos)
    return false;
  out.clear();
  out.reserve(text.size() + 64);
  bool in_string = false, any = false;
  std::size_t reserved_at = std::string::npos;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      if (reserved_at == std::string::npos && is_sentinel_literal(text, i)) reserved_at = i;
      in_string = true;
      out += c;
    } else if (text.compare(i, 9, "-Infinity") == 0) {
      out += kNegInf, i += 8, any = true;
    } else if (text.compare(i, 8, "Infinity") == 0) {
      out += kPosInf, i += 7, any = true;
    } else if (text.compare(i, 3, "NaN") == 0) {
      out += kNaN, i += 2, any = true;
    } else {
      out += c;
    }
  }
  if (any && reserved_at != std::string::npos)
    throw Error(source, "",
                "invalid JSON: the string value \"" + text.substr(reserved_at + 1, 6) +
                    "\" cannot be read alongside Infinity or NaN (byte " +
                    std::to_string(reserved_at) + ")");
  return any;
}

std::string escape_pointer_token(const std::string& k) {
  std::string o;
  for (char c : k) {
    if (c == '~')
      o += "~0";
    else if (c == '/')
      o += "~1";
    else
      o += c;
  }
  return o;
}

// What one parse found beyond the DOM: duplicate keys (pointer of the key) in the order seen.
struct ParseNotes {
  std::vector<std::string> duplicates;  // "/engine/name"
};

struct Frame {
  std::string pointer;
  bool array = false;
  std::size_t index = 0;
  std::string last_key;
  std::set<std::string> keys;
};

nlohmann::json parse_checked(const std::string& text, const std::string& source, bool strict,
                             bool nonfinite, ParseNotes& notes) {
  std::vector<Frame> stack;
  std::uint64_t values = 0;
  auto child_pointer = [&]() -> std::string {
    if (stack.empty()) return "";
    const Frame& f = stack.back();
    return f.pointer + "/" + (f.array ? std::to_string(f.index) : escape_pointer_token(f.last_key));
  };
  auto count_value = [&] {
    if (++values > kMaxValues)
      throw Error(source, "",
                  "invalid JSON: more than " + std::to_string(kMaxValues) +
                      " values (the limit of kvplan's JSON reader)");
  };
  auto element_done = [&] {
    if (!stack.empty() && stack.back().array) ++stack.back().index;
  };
  const auto cb = [&](int depth, nlohmann::json::parse_event_t ev, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if (depth > kMaxDepth)
      throw Error(source, "",
                  "invalid JSON: nested deeper than " + std::to_string(kMaxDepth) + " levels");
    switch (ev) {
      case E::object_start:
      case E::array_start: {
        count_value();
        Frame f;
        f.pointer = child_pointer();
        f.array = ev == E::array_start;
        stack.push_back(std::move(f));
        break;
      }
      case E::object_end:
      case E::array_end:
        if (!stack.empty()) stack.pop_back();
        element_done();
        break;
      case E::key: {
        Frame& f = stack.back();
        f.last_key = parsed.get<std::string>();
        if (!f.keys.insert(f.last_key).second) {
          const std::string where = f.pointer + "/" + escape_pointer_token(f.last_key);
          if (strict)
            throw Error(
                source, where,
                "duplicate key \"" + f.last_key + "\" (each key may appear once in an object)");
          notes.duplicates.push_back(where);
        }
        break;
      }
      case E::value:
        count_value();
        if (nonfinite && parsed.is_string()) {
          const auto& s = parsed.get_ref<const std::string&>();
          if (s.size() == 1 && s[0] >= '\x01' && s[0] <= '\x03')
            parsed = s[0] == '\x01'   ? std::numeric_limits<double>::infinity()
                     : s[0] == '\x02' ? -std::numeric_limits<double>::infinity()
                                      : std::numeric_limits<double>::quiet_NaN();
        }
        element_done();
        break;
    }
    return true;
  };
  try {
    return nlohmann::json::parse(text, cb);
  } catch (const nlohmann::json::exception& e) {
    // parse_error for syntax, out_of_range for numbers like 1e400: both are invalid input.
    std::string what = e.what();
    auto pos = what.find("] ");
    throw Error(source, "",
                "invalid JSON: " + (pos == std::string::npos ? what : what.substr(pos + 2)));
  }
}

}  // namespace

nlohmann::json parse_json_text(const std::string& text, const std::string& source,
                               JsonDialect dialect, std::vector<std::string>* warnings) {
  ParseNotes notes;
  if (dialect == JsonDialect::kvplan) return parse_checked(text, source, true, false, notes);
  std::string rewritten;
  const bool nonfinite = rewrite_nonfinite(text, source, rewritten);
  auto j = parse_checked(nonfinite ? rewritten : text, source, false, nonfinite, notes);
  if (dialect == JsonDialect::model_file && j.is_object() && j.contains("kvplan_model") &&
      (nonfinite || !notes.duplicates.empty()))
    return parse_checked(text, source, true, false, notes);  // throws the strict error
  if (warnings)
    for (const auto& d : notes.duplicates)
      warnings->push_back(source + ": " + d +
                          ": duplicate key; its last value is used (as Python's json does)");
  return j;
}

std::string read_text_file(const std::string& path, const std::string& what) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below, unread).
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    throw Error(path, "", "cannot open " + what + " for reading: " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    throw Error(path, "", "cannot read " + what + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) {
    const char* kind = S_ISDIR(st.st_mode)    ? "a directory"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a regular file";
    throw Error(path, "", "cannot read " + what + ": " + kind + ", not a regular file");
  }
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size > kMaxFileBytes)
    throw Error(path, "", what + " is " + std::to_string(size) + " bytes, over the 64 MiB limit");
  std::string text(static_cast<std::size_t>(size), '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(path, "", "cannot read " + what + ": " + std::strerror(errno));
    if (n == 0) break;  // shrank while being read
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
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

namespace {

// One whole number in [min, max] at `at`; the messages of JsonObject::uint.
std::uint64_t uint_value(const nlohmann::json& v, std::uint64_t min, std::uint64_t max,
                         const std::string& source, const std::string& at) {
  const auto fail = [&](const std::string& message) { throw Error(source, at, message); };
  std::uint64_t x = 0;
  if (v.is_number_unsigned()) {
    x = v.get<std::uint64_t>();
  } else if (v.is_number_integer()) {
    fail("must not be negative, got " + show(v));
  } else if (v.is_number_float()) {
    // 1e3 or 4096.0 written by other tools are whole numbers; 0.5, NaN and 1e300 are not.
    const double d = v.get<double>();
    if (!std::isfinite(d) || d != std::floor(d)) fail("expected a whole number, got " + show(v));
    if (d < 0) fail("must not be negative, got " + show(v));
    if (d > 9.0e15) fail("is absurdly large: " + show(v));
    x = static_cast<std::uint64_t>(d);
  } else {
    fail("expected a whole number, got " + show(v));
  }
  if (x < min || x > max)
    fail("must be between " + std::to_string(min) + " and " + std::to_string(max) + ", got " +
         show(v));
  return x;
}

// One finite number in [min, max] at `at`; the messages of JsonObject::number.
double number_value(const nlohmann::json& v, double min, double max, const std::string& source,
                    const std::string& at) {
  if (!v.is_number()) throw Error(source, at, "expected a number, got " + show(v));
  const double d = v.get<double>();
  if (!std::isfinite(d) || d < min || d > max) {
    std::ostringstream os;
    os << "must be between " << min << " and " << max << ", got " << show(v);
    throw Error(source, at, os.str());
  }
  return d;
}

}  // namespace

std::uint64_t JsonObject::uint(const std::string& key, std::uint64_t min, std::uint64_t max) {
  return uint_value(raw(key), min, max, source_, pointer(key));
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
  return number_value(raw(key), min, max, source_, pointer(key));
}

const nlohmann::json& JsonObject::list(const std::string& key, std::size_t max_items,
                                       const std::string& what) {
  const auto& v = raw(key);
  if (!v.is_array() || v.empty() || v.size() > max_items)
    fail(key,
         "expects a list of 1 to " + std::to_string(max_items) + " " + what + ", got " + show(v));
  return v;
}

std::vector<std::uint64_t> JsonObject::uints(const std::string& key, std::uint64_t min,
                                             std::uint64_t max, std::size_t max_items,
                                             const std::string& what) {
  std::vector<std::uint64_t> out;
  const auto& v = list(key, max_items, what);
  for (std::size_t i = 0; i < v.size(); ++i)
    out.push_back(uint_value(v[i], min, max, source_, pointer(key) + "/" + std::to_string(i)));
  return out;
}

std::vector<double> JsonObject::numbers(const std::string& key, double min, double max,
                                        std::size_t max_items, const std::string& what) {
  std::vector<double> out;
  const auto& v = list(key, max_items, what);
  for (std::size_t i = 0; i < v.size(); ++i)
    out.push_back(number_value(v[i], min, max, source_, pointer(key) + "/" + std::to_string(i)));
  return out;
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
