#include "kvplan/text_safe.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>

#include "kvplan/error.hpp"

namespace kvplan {

namespace {

constexpr char32_t kReplacement = 0xFFFD;

// Decodes one code point at s[i], advancing i; ill-formed input yields U+FFFD and skips the
// maximal subpart (a bad lead byte alone, or a valid prefix of a sequence), as Unicode's
// "U+FFFD substitution of maximal subparts" does.
char32_t next_code_point(std::string_view s, std::size_t& i) {
  const auto b0 = static_cast<unsigned char>(s[i++]);
  if (b0 < 0x80) return b0;
  int len = 0;
  char32_t cp = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2, cp = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3, cp = b0 & 0x0F;
    if (b0 == 0xE0) lo = 0xA0;  // overlong
    if (b0 == 0xED) hi = 0x9F;  // surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4, cp = b0 & 0x07;
    if (b0 == 0xF0) lo = 0x90;  // overlong
    if (b0 == 0xF4) hi = 0x8F;  // past U+10FFFF
  } else {
    return kReplacement;
  }
  for (int k = 1; k < len; ++k) {
    if (i >= s.size()) return kReplacement;
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) return kReplacement;
    cp = (cp << 6) | (b & 0x3F);
    ++i;
  }
  return cp;
}

void append_utf8(std::string& o, char32_t cp) {
  if (cp < 0x80) {
    o += static_cast<char>(cp);
  } else if (cp < 0x800) {
    o += static_cast<char>(0xC0 | (cp >> 6));
    o += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    o += static_cast<char>(0xE0 | (cp >> 12));
    o += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    o += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    o += static_cast<char>(0xF0 | (cp >> 18));
    o += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    o += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    o += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool is_c1(char32_t cp) { return cp >= 0x80 && cp <= 0x9F; }

}  // namespace

std::string valid_utf8(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) append_utf8(o, next_code_point(s, i));
  return o;
}

std::string terminal_safe(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  std::size_t i = 0;
  // Skips a control string (OSC, DCS, SOS, PM, APC) up to its terminator: BEL, ESC \ or C1 ST.
  const auto skip_string = [&] {
    while (i < s.size()) {
      const char32_t c = next_code_point(s, i);
      if (c == 0x07 || c == 0x9C) return;
      if (c == 0x1B) {
        if (i < s.size() && s[i] == '\\') ++i;
        return;
      }
    }
  };
  // Skips a CSI's parameter and intermediate bytes and its final byte.
  const auto skip_csi = [&] {
    while (i < s.size()) {
      const auto b = static_cast<unsigned char>(s[i]);
      if (b >= 0x20 && b <= 0x3F) {
        ++i;
      } else {
        if (b >= 0x40 && b <= 0x7E) ++i;
        return;
      }
    }
  };
  while (i < s.size()) {
    const char32_t c = next_code_point(s, i);
    if (c == 0x1B) {
      if (i >= s.size()) break;
      const char n = s[i];
      if (n == '[') {
        ++i, skip_csi();
      } else if (n == ']' || n == 'P' || n == 'X' || n == '^' || n == '_') {
        ++i, skip_string();
      } else if (static_cast<unsigned char>(n) >= 0x20 && static_cast<unsigned char>(n) < 0x7F) {
        ++i;  // a two-character escape (ESC c resets the terminal)
      }
    } else if (c == 0x9B) {
      skip_csi();
    } else if (c == 0x9D || c == 0x90 || c == 0x98 || c == 0x9E || c == 0x9F) {
      skip_string();
    } else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F || is_c1(c)) {
      // dropped
    } else {
      append_utf8(o, c);
    }
  }
  return o;
}

std::string junit_classname(std::string s) {
  for (auto& c : s)
    if (c == '/' || c == ' ')
      c = '.';
    else if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.')
      c = '_';
  return s;
}

std::string xml_text(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const char32_t c = next_code_point(s, i);
    switch (c) {
      case '&':
        o += "&amp;";
        continue;
      case '<':
        o += "&lt;";
        continue;
      case '>':
        o += "&gt;";
        continue;
      case '"':
        o += "&quot;";
        continue;
      case '\'':
        o += "&apos;";
        continue;
      default:
        break;
    }
    const bool allowed = c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) ||
                         (c >= 0xE000 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0x10FFFF);
    append_utf8(o, allowed && !is_c1(c) && c != 0x7F ? c : kReplacement);
  }
  return o;
}

std::string json_quote(std::string_view s) {
  std::string o = "\"";
  o.reserve(s.size() + 2);
  for (std::size_t i = 0; i < s.size();) {
    const char32_t c = next_code_point(s, i);
    switch (c) {
      case '"':
        o += "\\\"";
        break;
      case '\\':
        o += "\\\\";
        break;
      case '\n':
        o += "\\n";
        break;
      case '\t':
        o += "\\t";
        break;
      case '\r':
        o += "\\r";
        break;
      default:
        if (c < 0x20 || c == 0x7F) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          o += buf;
        } else {
          append_utf8(o, c);
        }
    }
  }
  o += '"';
  return o;
}

std::string ascii_lower(std::string s) {
  for (auto& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

std::string ascii_upper(std::string s) {
  for (auto& c : s)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return s;
}

std::vector<std::string> split_list(const std::string& text, const std::string& source,
                                    const std::string& field) {
  std::vector<std::string> items;
  for (std::size_t pos = 0; pos <= text.size();) {
    const std::size_t end = std::min(text.find(',', pos), text.size());
    if (end == pos)
      throw Error(source, field, "expected a comma-separated list, got '" + text + "'");
    items.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return items;
}

}  // namespace kvplan
