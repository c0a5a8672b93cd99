// Engine config files read with yaml-cpp (Debian libyaml-cpp-dev). vLLM's rules are those of
// vllm/utils/argparse_utils.py @ vllm-project/vllm c836a6feca5511c326b4369f6fd11cf72090665b
// (load_config_file, _pull_args_from_config). The YAML is read as PyYAML's safe_load builds it
// (yaml/constructor.py @ yaml/pyyaml 69c141adcf805c5ebdc9ba519927642ee5c7f639, flatten_mapping and
// construct_mapping): a repeated key keeps its first position and its last value, and a plain
// `<<` key merges a mapping (or a list of mappings, the earlier winning) under the keys the
// mapping states itself. yaml-cpp shares an aliased node instead of copying it, so a walk over
// aliases is bounded here: 100,000 nodes and 64 levels (an alias of its own ancestor, `&a {x: *a}`,
// is a cycle and ends there).
#include "engine_config_yaml.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "json_read.hpp"
#include "kvplan/error.hpp"
#include "kvplan/text_safe.hpp"

namespace kvplan::detail {

namespace {

constexpr std::size_t kMaxEntries = 4096;
constexpr std::size_t kMaxNodes = 100000;
constexpr int kMaxDepth = 64;

// The nodes one walk over a document has visited, aliases counted each time they are reached.
struct Walk {
  const std::string& path;
  std::size_t nodes = 0;
  void visit(int depth, const std::string& key) {
    if (++nodes > kMaxNodes)
      throw Error(path, key,
                  "expands to more than 100,000 YAML nodes through its aliases (an alias bomb?)");
    if (depth > kMaxDepth)
      throw Error(path, key,
                  "nests more than 64 levels through its aliases (an alias of its own parent?)");
  }
};

using Items = std::vector<std::pair<std::string, YAML::Node>>;

// A mapping's entries as PyYAML's dict holds them: merges first, then the stated keys; each key
// once, at its first position, with its last value.
Items entries(const YAML::Node& map, Walk& w, int depth, const std::string& where) {
  Items merged, stated;
  for (const auto& kv : map) {
    w.visit(depth, where);
    if (!kv.first.IsScalar()) throw Error(w.path, where, "a key must be a plain name");
    const std::string key = kv.first.Scalar();
    if (key == "<<" && kv.first.Tag() == "?") {
      const YAML::Node& v = kv.second;
      std::vector<YAML::Node> maps;
      if (v.IsMap()) {
        maps.push_back(v);
      } else if (v.IsSequence()) {
        for (const auto& m : v) {
          w.visit(depth + 1, where);
          if (!m.IsMap())
            throw Error(w.path, where.empty() ? "<<" : where + ".<<",
                        "a merge key takes a mapping or a list of mappings");
          maps.push_back(m);
        }
      } else {
        throw Error(w.path, where.empty() ? "<<" : where + ".<<",
                    "a merge key takes a mapping or a list of mappings");
      }
      // The last mapping of a list first, so that the first one wins. (No std::reverse: assigning
      // a YAML::Node writes through to the document's node; only copies and reset() are safe.)
      for (auto m = maps.rbegin(); m != maps.rend(); ++m)
        for (auto& e : entries(*m, w, depth + 1, where)) merged.push_back(e);
      continue;
    }
    stated.emplace_back(key, kv.second);
  }
  Items out;
  for (auto* list : {&merged, &stated})
    for (auto& e : *list) {
      auto it = std::find_if(out.begin(), out.end(), [&](auto& o) { return o.first == e.first; });
      if (it != out.end())
        it->second.reset(e.second);  // rebinds the entry; `=` would overwrite the document
      else
        out.push_back(e);
      if (out.size() > kMaxEntries) throw Error(w.path, where, "more than 4096 keys");
    }
  return out;
}

// yaml-cpp parses nested collections recursively: bound the nesting before it does, so that a
// hostile file is refused instead of overflowing the stack (flow brackets, and block nesting by
// indentation). Quotes are not tracked, so a bracket inside a string counts too: harmless at 64.
void check_nesting(const std::string& text, const std::string& path) {
  int depth = 0;
  std::size_t line = 1, indent = 0;
  bool at_start = true;
  for (char c : text) {
    if (c == '\n') {
      ++line, indent = 0, at_start = true;
      continue;
    }
    if (at_start && (c == ' ' || c == '-')) {
      if (++indent > 256)
        throw Error(path, "", "line " + std::to_string(line) + " is nested too deep");
      continue;
    }
    at_start = false;
    if (c == '[' || c == '{') {
      if (++depth > 64)
        throw Error(path, "", "line " + std::to_string(line) + " nests more than 64 levels");
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

YAML::Node load(const std::string& path) {
  const std::string text = read_text_file(path, "config file");
  // PyYAML reads the file as UTF-8 text and stops at the first ill-formed byte; so does kvplan,
  // rather than carry the bytes into a JSON value.
  if (const std::string clean = valid_utf8(text); clean != text) {
    // The valid prefix is copied as it is: the first difference is the first bad byte.
    const auto n = std::min(clean.size(), text.size());
    const auto at = static_cast<std::size_t>(
        std::mismatch(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(n), clean.begin())
            .first -
        text.begin());
    throw Error(path, "",
                "is not UTF-8 text (an ill-formed byte at offset " + std::to_string(at) + ")");
  }
  check_nesting(text, path);
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw Error(path, "",
                "malformed YAML at line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

// PyYAML's safe_load booleans (YAML 1.1): true/yes/on and false/no/off, each all lower case,
// Capitalised or all upper case; a quoted scalar is a string.
bool boolean(const YAML::Node& n, bool* value) {
  if (n.Tag() == "!") return false;
  const std::string s = n.Scalar();
  for (const char* w : {"true", "yes", "on", "false", "no", "off"}) {
    std::string lower = w, cap = w, upper = w;
    cap[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(cap[0])));
    for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (s == lower || s == cap || s == upper) {
      *value = lower == "true" || lower == "yes" || lower == "on";
      return true;
    }
  }
  return false;
}

nlohmann::json to_json(const YAML::Node& n, Walk& w, int depth, const std::string& key) {
  w.visit(depth, key);
  switch (n.Type()) {
    case YAML::NodeType::Map: {
      nlohmann::json j = nlohmann::json::object();
      for (const auto& [k, v] : entries(n, w, depth, key)) j[k] = to_json(v, w, depth + 1, key);
      return j;
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json j = nlohmann::json::array();
      for (const auto& v : n) j.push_back(to_json(v, w, depth + 1, key));
      return j;
    }
    case YAML::NodeType::Scalar: {
      bool b = false;
      if (boolean(n, &b)) return b;
      const std::string s = n.Scalar();
      if (n.Tag() != "!" && !s.empty() && s.size() <= 18 &&
          std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); })) {
        // PyYAML's YAML 1.1 ints: 0 followed by octal digits is octal (0500 = 320); a leading 0
        // with an 8 or 9 matches no int and stays a string.
        if (s.size() > 1 && s[0] == '0')
          return s.find_first_of("89") == std::string::npos
                     ? nlohmann::json(std::stoull(s, nullptr, 8))
                     : nlohmann::json(s);
        return std::stoull(s);
      }
      return s;
    }
    default:
      return nullptr;
  }
}

// to_json bounded for untrusted streams: aliases are expanded at each use, so a small file can
// name an exponential tree (a "billion laughs") or, with a self-referential anchor, an endless
// one. Every node visited counts against `budget`; nesting (aliases included) stops at 128.
nlohmann::json to_json_bounded(const YAML::Node& n, std::size_t& budget, int depth,
                               const std::string& path, const std::string& where) {
  if (budget == 0)
    throw Error(path, where, "expands to more than 200,000 YAML nodes (aliases included)");
  --budget;
  if (depth > 128) throw Error(path, where, "nests more than 128 levels (aliases included)");
  switch (n.Type()) {
    case YAML::NodeType::Map: {
      nlohmann::json j = nlohmann::json::object();
      for (const auto& kv : n) {
        if (!kv.first.IsScalar()) throw Error(path, where, "a key must be a plain name");
        j[kv.first.Scalar()] = to_json_bounded(kv.second, budget, depth + 1, path, where);
      }
      return j;
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json j = nlohmann::json::array();
      for (const auto& v : n) j.push_back(to_json_bounded(v, budget, depth + 1, path, where));
      return j;
    }
    default: {
      Walk scalar_walk{path};  // a scalar: PyYAML's int, bool and string rules of to_json
      return to_json(n, scalar_walk, depth, where);
    }
  }
}

std::string scalar(const YAML::Node& n, const std::string& path, const std::string& key) {
  if (!n.IsScalar()) throw Error(path, key, "expects a number, a string or a boolean");
  bool b = false;
  if (boolean(n, &b)) return b ? "true" : "false";
  return n.Scalar();
}

void flatten(const YAML::Node& n, const std::string& prefix, const std::string& path,
             std::vector<YamlEntry>& out, Walk& w, int depth) {
  for (const auto& [name, v] : entries(n, w, depth, prefix)) {
    const std::string key = prefix.empty() ? name : prefix + "." + name;
    if (out.size() >= kMaxEntries) throw Error(path, key, "more than 4096 keys");
    w.visit(depth + 1, key);
    if (v.IsMap()) {
      flatten(v, key, path, out, w, depth + 1);
    } else if (v.IsSequence()) {
      YamlEntry e{key, {}, true};
      for (const auto& item : v) {
        w.visit(depth + 2, key);
        e.values.push_back(scalar(item, path, key));
      }
      out.push_back(e);
    } else if (v.IsNull()) {
      out.push_back({key, {}, false});
    } else {
      out.push_back({key, {scalar(v, path, key)}, false});
    }
  }
}

}  // namespace

std::vector<std::string> vllm_config_args(const std::string& path,
                                          std::vector<std::string>* list_keys) {
  const std::string ext =
      path.substr(path.rfind('.') == std::string::npos ? path.size() : path.rfind('.') + 1);
  if (ext != "yaml" && ext != "yml")
    throw Error(path, "", "a vLLM config file must be .yaml or .yml, got ." + ext);
  const YAML::Node root = load(path);
  if (!root.IsMap()) throw Error(path, "", "expected a map of option names to values");
  std::vector<std::string> args;
  Walk w{path};
  for (const auto& [key, v] : entries(root, w, 0, "")) {
    if (args.size() >= kMaxEntries) throw Error(path, key, "more than 4096 options");
    if (v.IsSequence()) {
      if (v.size() == 0) continue;
      if (list_keys) list_keys->push_back(key);
      args.push_back("--" + key);
      for (const auto& item : v) {
        w.visit(1, key);
        args.push_back(scalar(item, path, key));
      }
    } else if (v.IsMap()) {
      args.push_back("--" + key);
      args.push_back(
          to_json(v, w, 1, key).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    } else if (v.IsNull()) {
      args.push_back("--" + key);
      args.push_back("None");  // str(None), as vLLM passes it on
    } else {
      bool b = false;
      if (boolean(v, &b)) {
        if (b) args.push_back("--" + key);
        continue;
      }
      args.push_back("--" + key);
      args.push_back(v.Scalar());
    }
  }
  return args;
}

std::vector<YamlEntry> flatten_yaml_map(const std::string& path) {
  const YAML::Node root = load(path);
  if (root.IsNull()) return {};
  if (!root.IsMap()) throw Error(path, "", "expected a map of LLM API options");
  std::vector<YamlEntry> out;
  Walk w{path};
  flatten(root, "", path, out, w, 0);
  return out;
}

std::vector<nlohmann::json> yaml_documents(const std::string& text, const std::string& path) {
  check_nesting(text, path);
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    throw Error(path, "",
                "malformed YAML at line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (docs.size() > kMaxEntries) throw Error(path, "", "more than 4096 YAML documents");
  std::size_t budget = 200000;
  std::vector<nlohmann::json> out;
  out.reserve(docs.size());
  for (std::size_t i = 0; i < docs.size(); ++i)
    out.push_back(to_json_bounded(docs[i], budget, 0, path, "document " + std::to_string(i + 1)));
  return out;
}

}  // namespace kvplan::detail
