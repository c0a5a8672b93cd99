// Strings from files (model names, tensor names, keys, metadata) made safe for each output:
// valid UTF-8 everywhere, no terminal escapes on a terminal, XML 1.0 characters only in JUnit,
// escaped control characters in JSON. Renderers and the CLI call these on everything they print.
//
//   terminal_safe("llama\x1b[2J\x1b[32mPASS")  == "llamaPASS"   (ESC [ ... sequences removed)
//   xml_text("a<b \xff \x01")                  == "a&lt;b \uFFFD \uFFFD" (as UTF-8)
//   json_quote("two\nlines")                   == "\"two\\nlines\""
//   valid_utf8("caf\xc3")                       == "caf\uFFFD"
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kvplan {

// s with every ill-formed UTF-8 sequence (stray continuation bytes, overlong forms, surrogates,
// code points past U+10FFFF, truncated sequences) replaced by U+FFFD, one per maximal bad
// subpart as Unicode recommends.
std::string valid_utf8(std::string_view s);

// For text meant for a terminal: valid_utf8, then escape sequences (ESC [ ... CSI, ESC ] ... OSC
// and the other string sequences up to BEL or ST, ESC + one character; their C1 forms) and every
// other C0/C1 control but newline and tab (CR and DEL included) removed.
std::string terminal_safe(std::string_view s);

// XML 1.0 character data or attribute value: & < > " ' as entities; every character outside
// XML 1.0's Char production (C0 controls but tab, LF and CR; U+FFFE, U+FFFF; invalid UTF-8) and
// the C1 controls XML 1.0 discourages replaced by U+FFFD.
std::string xml_text(std::string_view s);

// One part of a JUnit classname: '/' and ' ' become the '.' that separates its parts, every
// other character outside [A-Za-z0-9_.] becomes '_' (a '/' or '-' splits or breaks the package
// tree CI tools draw from it): "meta-llama/Llama 3" -> "meta_llama.Llama.3".
std::string junit_classname(std::string s);

// A JSON string literal, quotes included: " and \ escaped, control characters as \n, \t or
// \u00XX, ill-formed UTF-8 replaced by U+FFFD.
std::string json_quote(std::string_view s);

// s with ASCII letters lower-cased (bytes >= 0x80 unchanged): the one rule for case-insensitive
// names (model ids, dtypes, quantization methods), so no locale decides a comparison.
std::string ascii_lower(std::string s);
std::string ascii_upper(std::string s);

// A comma-separated list ("h100,a100", "3.18,20.5") as its items; one item when there is no
// comma. An empty item ("a,,b", "a,", "") throws Error naming `source` and `field`.
std::vector<std::string> split_list(const std::string& text, const std::string& source,
                                    const std::string& field);

}  // namespace kvplan
