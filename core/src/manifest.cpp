// Kubernetes manifests and Helm values read into engine command lines. Where each field comes
// from (Kubernetes API, LeaderWorkerSet, KServe, vLLM production-stack, GPU Feature Discovery,
// vLLM's and SGLang's environment) is cited in docs/k8s.md and beside the code that reads it.
#include "kvplan/manifest.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "engine_config_yaml.hpp"
#include "engines/command_syntax.hpp"
#include "json_read.hpp"
#include "kvplan/checked.hpp"
#include "kvplan/engine_args.hpp"
#include "kvplan/engine_rules.hpp"
#include "kvplan/error.hpp"
#include "kvplan/gpu.hpp"
#include "kvplan/text_safe.hpp"

namespace kvplan {

namespace {

using nlohmann::json;

constexpr std::uint64_t kMaxReplicas = 65536;
constexpr std::uint64_t kMaxPodGpus = 65536;

// One document of the stream: errors name the file, the document and the path in it.
struct Doc {
  std::string source;
  std::size_t number = 0;
  [[noreturn]] void fail(const std::string& path, const std::string& message) const {
    throw Error(source, "document " + std::to_string(number) + (path.empty() ? "" : ": " + path),
                message);
  }
};

std::string join_path(const std::string& base, const std::string& key) {
  return base.empty() ? key : base + "." + key;
}
std::string index_path(const std::string& base, std::size_t i) {
  return base + "[" + std::to_string(i) + "]";
}

// The member `key` of the map `j` (nullptr when absent or null); a map is required of `j`.
const json* member(const Doc& d, const json& j, const std::string& path, const std::string& key) {
  if (!j.is_object()) d.fail(path, "expects a map");
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return nullptr;
  return &*it;
}
const json* map_member(const Doc& d, const json& j, const std::string& path,
                       const std::string& key) {
  const json* m = member(d, j, path, key);
  if (m && !m->is_object()) d.fail(join_path(path, key), "expects a map");
  return m;
}
const json* list_member(const Doc& d, const json& j, const std::string& path,
                        const std::string& key) {
  const json* m = member(d, j, path, key);
  if (m && !m->is_array()) d.fail(join_path(path, key), "expects a list");
  return m;
}

// A scalar as the text the manifest wrote (numbers and booleans as YAML spells them).
std::string scalar_text(const Doc& d, const json& j, const std::string& path) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_boolean()) return j.get<bool>() ? "true" : "false";
  if (j.is_number_unsigned()) return std::to_string(j.get<std::uint64_t>());
  if (j.is_number_integer()) return std::to_string(j.get<std::int64_t>());
  d.fail(path, "expects a string or a number");
}
std::string string_member(const Doc& d, const json& j, const std::string& path,
                          const std::string& key) {
  const json* m = member(d, j, path, key);
  return m ? scalar_text(d, *m, join_path(path, key)) : "";
}

// A whole number in [min, max], written as an integer or a string of digits (Kubernetes
// quantities of whole GPUs are either).
std::uint64_t whole(const Doc& d, const json& j, const std::string& path, const std::string& what,
                    std::uint64_t min, std::uint64_t max) {
  std::string s = scalar_text(d, j, path);
  const bool digits =
      !s.empty() && s.size() <= 18 &&
      std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
  if (!digits) d.fail(path, "expects a whole number of " + what + ", got \"" + s + "\"");
  const std::uint64_t v = std::stoull(s);
  if (v < min || v > max)
    d.fail(path, "expects " + what + " in [" + std::to_string(min) + ", " + std::to_string(max) +
                     "], got " + s);
  return v;
}

// ---- Environment ----------------------------------------------------------------------------

// Variables of the engines' own environment that change what kvplan sizes, none of which kvplan
// has a knob for: each becomes a warning with its reason (vllm/envs.py @ vllm-project/vllm
// 001f69f8b52e0803c910525974d17010814947ad; python/sglang/srt/environ.py @ sgl-project/sglang
// 0003215cf1464f44b389cd0b18d0b4c56f2a3da6).
struct EnvRule {
  const char* name;
  const char* effect;
};
constexpr EnvRule kSizingEnv[] = {
    {"VLLM_USE_V1", "0 selects vLLM's V0 engine, whose memory rules kvplan does not model"},
    {"VLLM_ATTENTION_BACKEND", "the attention backend can force a block size or KV layout"},
    {"VLLM_MLA_DISABLE", "1 stores full K and V instead of the MLA latent (DeepSeek-style models)"},
    {"VLLM_PP_LAYER_PARTITION", "an uneven split of layers over pipeline stages"},
    {"VLLM_ALLOW_LONG_MAX_MODEL_LEN",
     "vLLM accepts a max_model_len beyond the model's positions; kvplan still checks against "
     "them"},
    {"VLLM_FUSED_MOE_CHUNK_SIZE", "changes the MoE activation peak profiled before the KV pool"},
    {"VLLM_CPU_KVCACHE_SPACE", "the KV space of vLLM's CPU backend"},
    {"VLLM_DP_SIZE", "data-parallel size set outside the command line"},
    {"CUDA_VISIBLE_DEVICES", "limits the GPUs the engine sees, beside the pod's GPU limit"},
    {"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN",
     "SGLang accepts a context length beyond the model's positions; kvplan still checks against "
     "them"},
};
// Variables read by the engines that do not change KV sizing (logging, ports, keys, telemetry,
// timeouts; same files and commits).
constexpr const char* kNoSizingEnv[] = {
    "VLLM_LOGGING_LEVEL",
    "VLLM_LOGGING_PREFIX",
    "VLLM_CONFIGURE_LOGGING",
    "VLLM_LOGGING_CONFIG_PATH",
    "VLLM_PORT",
    "VLLM_HOST_IP",
    "VLLM_API_KEY",
    "VLLM_NO_USAGE_STATS",
    "VLLM_DO_NOT_TRACK",
    "VLLM_USAGE_SOURCE",
    "VLLM_USAGE_STATS_SERVER",
    "VLLM_RPC_TIMEOUT",
    "VLLM_ENGINE_ITERATION_TIMEOUT_S",
    "VLLM_CACHE_ROOT",
    "VLLM_CONFIG_ROOT",
    "VLLM_NIXL_SIDE_CHANNEL_HOST",
    "VLLM_NIXL_SIDE_CHANNEL_PORT",
    "VLLM_WORKER_MULTIPROC_METHOD",
    "VLLM_USE_MODELSCOPE",
    "VLLM_HTTP_TIMEOUT_KEEP_ALIVE",
    "SGLANG_LOG_MS",
    "SGLANG_PORT",
    "SGLANG_TIMEOUT_KEEP_ALIVE",
    "SGLANG_USE_MODELSCOPE",
};

// Variables kvplan reads as parse_engine_command reads VAR=value before a command (engine_args.cpp
// read_env_assignment): vLLM's model runner and LMCache's sizes.
bool modelled_env_name(const std::string& n) {
  return n == "VLLM_USE_V2_MODEL_RUNNER" || n.rfind("LMCACHE_", 0) == 0;
}

bool engine_env_name(const std::string& n) {
  return n.rfind("VLLM_", 0) == 0 || n.rfind("SGLANG_", 0) == 0 || n.rfind("SGL_", 0) == 0 ||
         n == "CUDA_VISIBLE_DEVICES";
}

void env_warnings(const std::map<std::string, std::string>& env,
                  const std::map<std::string, std::string>& opaque, const std::string& path,
                  std::vector<std::string>& out) {
  std::set<std::string> names;
  for (const auto& [k, v] : env) names.insert(k);
  for (const auto& [k, v] : opaque) names.insert(k);
  for (const auto& n : names) {
    if (modelled_env_name(n)) {
      if (opaque.count(n))
        out.push_back(path + ": env " + n +
                      " (value not in the manifest): kvplan reads it, and checks the deployment "
                      "as if it were unset");
      continue;
    }
    if (!engine_env_name(n)) continue;
    if (std::find_if(std::begin(kNoSizingEnv), std::end(kNoSizingEnv),
                     [&](const char* x) { return n == x; }) != std::end(kNoSizingEnv))
      continue;
    const auto rule = std::find_if(std::begin(kSizingEnv), std::end(kSizingEnv),
                                   [&](const EnvRule& r) { return n == r.name; });
    const auto it = env.find(n);
    const std::string value = it != env.end() ? "=" + it->second : " (value not in the manifest)";
    if (rule != std::end(kSizingEnv))
      out.push_back(path + ": env " + n + value +
                    ": can change KV sizing, not modelled: " + rule->effect);
    else
      out.push_back(path + ": env " + n + value +
                    ": not known to kvplan; its effect on KV sizing is not modelled");
  }
}

// Kubernetes expands $(VAR) in command, args and env values from the variables defined before
// it; $$ is a literal $; a reference to an undefined variable stays as written
// (https://kubernetes.io/docs/tasks/inject-data-application/define-interdependent-environment-variables/).
// A variable whose value comes from elsewhere (valueFrom) stays "$(VAR)" for manifest_deployment
// to judge.
std::string expand_k8s(const std::string& s, const std::map<std::string, std::string>& env) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '$' && i + 1 < s.size() && s[i + 1] == '$') {
      out += '$';
      ++i;
      continue;
    }
    if (s[i] == '$' && i + 1 < s.size() && s[i + 1] == '(') {
      const auto close = s.find(')', i + 2);
      if (close != std::string::npos) {
        const std::string name = s.substr(i + 2, close - i - 2);
        const auto it = env.find(name);
        if (it != env.end()) {
          out += it->second;
          i = close;
          continue;
        }
      }
    }
    out += s[i];
  }
  return out;
}

struct Env {
  std::map<std::string, std::string> values;
  std::map<std::string, std::string> opaque;  // name -> the path declaring it
};

void read_env_list(const Doc& d, const json* list, const std::string& path, Env& e) {
  if (!list) return;
  if (!list->is_array()) d.fail(path, "expects a list of {name, value}");
  for (std::size_t i = 0; i < list->size(); ++i) {
    const std::string p = index_path(path, i);
    const json& item = (*list)[i];
    const std::string name = string_member(d, item, p, "name");
    if (name.empty()) d.fail(p + ".name", "missing");
    if (member(d, item, p, "valueFrom")) {
      e.values.erase(name);
      e.opaque[name] = p + ".valueFrom";
    } else {
      e.opaque.erase(name);
      e.values[name] = expand_k8s(string_member(d, item, p, "value"), e.values);
    }
  }
}

// ---- Commands -------------------------------------------------------------------------------

struct EngineAt {
  Engine engine;
  std::size_t start;  // index of the engine's first word
};

bool is_assignment(const std::string& w) {
  const auto eq = w.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  return std::all_of(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(eq),
                     [](unsigned char c) { return std::isalnum(c) || c == '_'; }) &&
         !std::isdigit(static_cast<unsigned char>(w[0]));
}

std::string base_name(const std::string& w) {
  const auto slash = w.rfind('/');
  return slash == std::string::npos ? w : w.substr(slash + 1);
}

// The engine an argument vector runs, as parse_engine_command reads it (each engine's entry
// points: engines/command_syntax.hpp); after leading VAR=value words, `exec` and `env`.
std::optional<EngineAt> find_engine(const std::vector<std::string>& argv) {
  std::size_t i = 0;
  while (i < argv.size() && (is_assignment(argv[i]) || argv[i] == "exec" || argv[i] == "env")) ++i;
  for (const EngineRules* rules : all_engine_rules())
    if (detail::starts_engine(rules->command_syntax(), argv, i))
      return EngineAt{rules->engine(), i};
  return std::nullopt;
}

bool is_shell(const std::string& w) {
  const std::string b = base_name(w);
  return b == "sh" || b == "bash" || b == "dash" || b == "zsh" || b == "ash";
}

// A shell script cut into its simple commands at unquoted &&, ||, ;, |, & and newlines (quotes
// and backslashes kept for split_command_line; line continuations joined).
std::vector<std::string> shell_commands(const std::string& script) {
  std::vector<std::string> out;
  std::string cur;
  char quote = 0;
  for (std::size_t i = 0; i < script.size(); ++i) {
    const char c = script[i];
    if (quote) {
      cur += c;
      if (c == '\\' && quote == '"' && i + 1 < script.size())
        cur += script[++i];
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '\\' && i + 1 < script.size()) {
      if (script[i + 1] == '\n') {
        cur += ' ';
      } else {
        cur += c;
        cur += script[i + 1];
      }
      ++i;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      cur += c;
      continue;
    }
    if (c == '#' && (cur.empty() || std::isspace(static_cast<unsigned char>(cur.back())))) {
      while (i + 1 < script.size() && script[i + 1] != '\n') ++i;  // a comment
      continue;
    }
    if (c == ';' || c == '\n' || c == '&' || c == '|') {
      if (i + 1 < script.size() && (script[i + 1] == c) && (c == '&' || c == '|')) ++i;
      out.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  out.push_back(cur);
  std::vector<std::string> kept;
  for (auto& s : out)
    if (s.find_first_not_of(" \t\r") != std::string::npos) kept.push_back(s);
  return kept;
}

// $VAR and ${VAR} of one shell command, expanded from the container's literal env; a variable
// kvplan cannot see becomes "$(VAR)" (an opaque reference) so manifest_deployment judges it.
std::string expand_shell(const std::string& s, const Env& env,
                         std::map<std::string, std::string>& opaque, const std::string& path) {
  std::string out;
  bool single = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\'') single = !single;
    if (c != '$' || single || i + 1 >= s.size()) {
      out += c;
      continue;
    }
    std::size_t j = i + 1;
    std::string name;
    if (s[j] == '{') {
      const auto close = s.find('}', j);
      if (close == std::string::npos) {
        out += c;
        continue;
      }
      name = s.substr(j + 1, close - j - 1);
      j = close + 1;
    } else {
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_'))
        name += s[j++];
    }
    if (name.empty() || !std::all_of(name.begin(), name.end(),
                                     [](unsigned char x) { return std::isalnum(x) || x == '_'; })) {
      out += c;
      continue;
    }
    const auto it = env.values.find(name);
    if (it != env.values.end()) {
      out += it->second;
    } else {
      out += "$(" + name + ")";
      const auto o = env.opaque.find(name);
      opaque[name] = o != env.opaque.end() ? o->second : path + " (shell variable $" + name + ")";
    }
    i = j - 1;
  }
  return out;
}

std::string shell_quote(const std::string& w) {
  if (!w.empty() && std::all_of(w.begin(), w.end(), [](unsigned char c) {
        return std::isalnum(c) ||
               std::string_view("-_./=:,+@%").find(static_cast<char>(c)) != std::string_view::npos;
      }))
    return w;
  std::string q = "'";
  for (char c : w) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string quoted_line(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& w : argv) s += (s.empty() ? "" : " ") + shell_quote(w);
  return s;
}

std::vector<std::string> string_list(const Doc& d, const json* list, const std::string& path) {
  std::vector<std::string> out;
  if (!list) return out;
  if (!list->is_array()) d.fail(path, "expects a list of strings");
  if (list->size() > 4096) d.fail(path, "more than 4096 items");
  for (std::size_t i = 0; i < list->size(); ++i)
    out.push_back(scalar_text(d, (*list)[i], index_path(path, i)));
  return out;
}

bool engine_image(const std::string& image) {
  return image.find("vllm") != std::string::npos || image.find("sglang") != std::string::npos ||
         image.find("tensorrt-llm") != std::string::npos ||
         image.find("tensorrt_llm") != std::string::npos;
}

// A container's engine command, if it runs one.
struct ContainerEngine {
  Engine engine = Engine::vllm;
  std::string image;
  std::vector<std::string> argv;
  Env env;
  std::map<std::string, std::string> opaque;  // referenced by the command
  std::vector<std::string> warnings;
};

// Whether an optional boolean member is set true, or set false; a missing or non-boolean value is
// neither.
bool is_true(const json* v) { return v && v->is_boolean() && v->get<bool>(); }
bool is_false(const json* v) { return v && v->is_boolean() && !v->get<bool>(); }

// Records the opaque $(VAR) references (values kvplan cannot know) left in an engine's words.
void note_opaque_refs(ContainerEngine& ce) {
  for (const auto& w : ce.argv)
    for (const auto& [name, where] : ce.env.opaque)
      if (w.find("$(" + name + ")") != std::string::npos) ce.opaque[name] = where;
}

// Reads command + args of one container into the engine command it runs, or nullopt when it runs
// none. `extra_env` (LeaderWorkerSet's injected variables) is visible to the command.
std::optional<ContainerEngine> container_engine(const Doc& d, const json& c,
                                                const std::string& path, const Env& base_env) {
  ContainerEngine ce;
  ce.env = base_env;
  read_env_list(d, list_member(d, c, path, "env"), join_path(path, "env"), ce.env);
  const auto raw_command = string_list(d, list_member(d, c, path, "command"), path + ".command");
  const auto raw_args = string_list(d, list_member(d, c, path, "args"), path + ".args");
  std::vector<std::string> argv;
  for (const auto& w : raw_command) argv.push_back(expand_k8s(w, ce.env.values));
  for (const auto& w : raw_args) argv.push_back(expand_k8s(w, ce.env.values));
  const std::string image = string_member(d, c, path, "image");
  ce.image = image;
  if (raw_command.empty() && image.find("vllm/vllm-openai") != std::string::npos) {
    // The vllm/vllm-openai image's ENTRYPOINT runs the OpenAI server: python3 -m
    // vllm.entrypoints.openai.api_server (docker/Dockerfile @ vllm-project/vllm
    // 0000977eaf873be6a295cf73017976d49ca2fb9d), `vllm serve` in later images; args naming the
    // model first are read as `vllm serve MODEL ...`, args starting with a flag as the server's.
    std::vector<std::string> entry =
        !argv.empty() && !argv[0].empty() && argv[0][0] != '-'
            ? std::vector<std::string>{"vllm", "serve"}
            : std::vector<std::string>{"python3", "-m", "vllm.entrypoints.openai.api_server"};
    argv.insert(argv.begin(), entry.begin(), entry.end());
    ce.warnings.push_back(path + ": no command: read as the image's entrypoint, \"" +
                          quoted_line(entry) + "\"");
  }
  if (argv.empty()) {
    if (engine_image(image))
      d.fail(path, "runs the engine image \"" + image +
                       "\" without command or args: state the engine command (command: [\"vllm\", "
                       "\"serve\"] and args) so kvplan can read it");
    return std::nullopt;
  }
  if (auto at = find_engine(argv)) {
    ce.engine = at->engine;
    for (std::size_t i = 0; i < at->start; ++i)
      if (is_assignment(argv[i]))
        ce.env.values[argv[i].substr(0, argv[i].find('='))] = argv[i].substr(argv[i].find('=') + 1);
    ce.argv.assign(argv.begin() + static_cast<std::ptrdiff_t>(at->start), argv.end());
    note_opaque_refs(ce);
    return ce;
  }
  // A shell: sh -c "script" (the script is the word after -c; options such as -e, -x, -ec may
  // precede it).
  if (is_shell(argv[0])) {
    std::size_t i = 1;
    std::optional<std::string> script;
    std::string script_path;
    for (; i < argv.size(); ++i) {
      const std::string& w = argv[i];
      if (w.size() > 1 && w[0] == '-' && w.find('c') != std::string::npos && w[1] != '-') {
        if (i + 1 < argv.size()) {
          script = argv[i + 1];
          const std::size_t at = i + 1;
          script_path = at < raw_command.size()
                            ? index_path(path + ".command", at)
                            : index_path(path + ".args", at - raw_command.size());
        }
        break;
      }
      if (w.empty() || w[0] != '-') break;
    }
    if (!script) return std::nullopt;
    std::vector<std::vector<std::string>> engines;
    std::vector<std::string> others;
    std::map<std::string, std::string> opaque;
    for (const auto& cmd : shell_commands(*script)) {
      std::map<std::string, std::string> refs;
      const std::string expanded = expand_shell(cmd, ce.env, refs, script_path);
      std::vector<std::string> words;
      try {
        words = split_command_line(expanded, d.source);
      } catch (const Error& e) {
        d.fail(script_path, e.message());
      }
      if (auto at = find_engine(words)) {
        ce.engine = at->engine;
        for (std::size_t k = 0; k < at->start; ++k)
          if (is_assignment(words[k]))
            ce.env.values[words[k].substr(0, words[k].find('='))] =
                words[k].substr(words[k].find('=') + 1);
        engines.emplace_back(words.begin() + static_cast<std::ptrdiff_t>(at->start), words.end());
        opaque.insert(refs.begin(), refs.end());
      } else if (!words.empty()) {
        others.push_back(quoted_line(words).substr(0, 100));
      }
    }
    if (engines.empty()) return std::nullopt;
    if (engines.size() > 1)
      d.fail(script_path, "the shell script runs " + std::to_string(engines.size()) +
                              " engine commands; kvplan checks one per container: split them "
                              "into containers or pods");
    ce.argv = engines.front();
    note_opaque_refs(ce);
    ce.opaque.insert(opaque.begin(), opaque.end());
    if (!others.empty()) {
      std::string list;
      for (const auto& o : others) list += (list.empty() ? "" : "; ") + o;
      ce.warnings.push_back(script_path + ": took the engine command from the shell script; " +
                            "left out: " + list);
    }
    return ce;
  }
  return std::nullopt;
}

// ---- GPUs -----------------------------------------------------------------------------------

constexpr const char* kGpuResource = "nvidia.com/gpu";
constexpr const char* kProductLabel = "nvidia.com/gpu.product";
constexpr const char* kGpuAnnotation = "kvplan.io/gpu";

// GPU Feature Discovery labels nvidia.com/gpu.product with the device's NVML name, characters
// other than [A-Za-z0-9-_. ] removed and blanks joined by '-', "-MIG-<profile>" appended for a MIG
// device and "-SHARED" for a time-shared one (getProductName / sanitise in internal/lm/resource.go
// @ NVIDIA/k8s-device-plugin aaccdfd2dc80554d3b67474d027923ccde39cb50). The names below are the
// NVML names (nvidia-smi's Name) of the GPUs kvplan has presets for, so sanitised.
struct ProductPreset {
  const char* product;
  const char* preset;
};
constexpr ProductPreset kProducts[] = {
    {"NVIDIA-H100-80GB-HBM3", "h100-sxm-80gb"},
    {"NVIDIA-H100-PCIe", "h100-pcie-80gb"},
    {"NVIDIA-H200", "h200-141gb"},
    {"NVIDIA-A100-SXM4-80GB", "a100-80gb"},
    {"NVIDIA-A100-SXM4-40GB", "a100-40gb"},
    {"NVIDIA-L40S", "l40s"},
    {"NVIDIA-L4", "l4"},
    {"NVIDIA-B200", "b200"},
    {"NVIDIA-GeForce-RTX-4090", "rtx-4090"},
};

std::string product_preset(const Doc& d, const std::string& value, const std::string& path) {
  for (const auto& p : kProducts)
    if (value == p.product) return p.preset;
  std::string known;
  for (const auto& p : kProducts) known += (known.empty() ? "" : ", ") + std::string(p.product);
  std::string why;
  if (value.find("-MIG-") != std::string::npos)
    why = " (a MIG slice: kvplan sizes whole GPUs)";
  else if (value.ends_with("-SHARED"))
    why = " (a time-shared GPU: its memory is shared with other pods)";
  d.fail(path, "unknown GPU product \"" + value + "\"" + why + "; kvplan knows " + known +
                   "; or annotate the workload with " + kGpuAnnotation +
                   ": PRESET (kvplan gpus lists them)");
}

// The GPUs one container is given: resources.limits["nvidia.com/gpu"], else its requests (an
// extended resource's request must equal its limit when both are given); 0 when neither.
std::uint64_t container_gpus(const Doc& d, const json& c, const std::string& path) {
  const json* res = map_member(d, c, path, "resources");
  if (!res) return 0;
  const std::string rp = path + ".resources";
  for (const char* where : {"limits", "requests"}) {
    const json* m = map_member(d, *res, rp, where);
    if (!m) continue;
    if (const json* g = member(d, *m, rp + "." + where, kGpuResource))
      return whole(d, *g, rp + "." + where + "." + kGpuResource, "GPUs", 0, kMaxPodGpus);
  }
  return 0;
}

// The GPU type a pod is scheduled on, from (in order) the kvplan.io/gpu annotation, the
// nvidia.com/gpu.product node selector, or the required node affinity's In terms on that label
// (several values: the one with the least memory, the worst case). Empty preset when none.
struct GpuChoice {
  std::string preset, from;
};

void choose(const Doc& d, GpuChoice& g, const std::string& preset, const std::string& from) {
  if (g.preset.empty()) {
    g = {preset, from};
  } else if (g.preset != preset) {
    d.fail(from, "names GPU " + preset + ", but " + g.from + " names " + g.preset +
                     ": state one GPU type");
  }
}

// The kvplan.io/gpu entry of an annotations map at `path`.
void annotations_gpu(const Doc& d, const json* ann, const std::string& path, GpuChoice& g) {
  if (!ann) return;
  if (const json* v = member(d, *ann, path, kGpuAnnotation)) {
    const std::string p = path + "." + kGpuAnnotation;
    const std::string id = scalar_text(d, *v, p);
    try {
      (void)load_gpu(id);
    } catch (const Error& e) {
      d.fail(p, e.message());
    }
    choose(d, g, id, p);
  }
}

// The kvplan.io/gpu annotation of an object's metadata at `path`.
void annotation_gpu(const Doc& d, const json* meta, const std::string& path, GpuChoice& g) {
  if (meta) annotations_gpu(d, map_member(d, *meta, path, "annotations"), path + ".annotations", g);
}

// Several GPU types a pod may land on: the one with the least memory, the worst case.
void choose_least(const Doc& d, const std::vector<std::pair<std::string, std::string>>& found,
                  GpuChoice& g) {
  if (found.empty()) return;
  std::pair<std::string, std::string> least = found.front();
  std::uint64_t least_bytes = load_gpu(least.first).memory_bytes;
  for (const auto& f : found)
    if (const std::uint64_t b = load_gpu(f.first).memory_bytes; b < least_bytes)
      least = f, least_bytes = b;
  std::string from = least.second;
  if (found.size() > 1)
    from += " (the least memory of " + std::to_string(found.size()) + " allowed)";
  choose(d, g, least.first, from);
}

void node_terms_gpu(const Doc& d, const json* terms, const std::string& tp, GpuChoice& g) {
  if (!terms) return;
  if (!terms->is_array()) d.fail(tp, "expects a list of node selector terms");
  std::vector<std::pair<std::string, std::string>> found;  // (preset, path)
  for (std::size_t t = 0; t < terms->size(); ++t) {
    const std::string p = index_path(tp, t);
    const json* exprs = list_member(d, (*terms)[t], p, "matchExpressions");
    if (!exprs) continue;
    for (std::size_t e = 0; e < exprs->size(); ++e) {
      const std::string ep = index_path(p + ".matchExpressions", e);
      const json& x = (*exprs)[e];
      if (string_member(d, x, ep, "key") != kProductLabel) continue;
      if (string_member(d, x, ep, "operator") != "In") continue;
      const auto values = string_list(d, list_member(d, x, ep, "values"), ep + ".values");
      for (std::size_t v = 0; v < values.size(); ++v) {
        const std::string vp = index_path(ep + ".values", v);
        found.emplace_back(product_preset(d, values[v], vp), vp);
      }
    }
  }
  choose_least(d, found, g);
}

// nodeSelector and required node affinity of a pod spec (or of a KServe predictor, which carries
// the pod fields) at `path`.
void pod_gpu(const Doc& d, const json& spec, const std::string& path, GpuChoice& g) {
  if (const json* sel = map_member(d, spec, path, "nodeSelector"))
    if (const json* v = member(d, *sel, path + ".nodeSelector", kProductLabel)) {
      const std::string p = path + ".nodeSelector." + kProductLabel;
      choose(d, g, product_preset(d, scalar_text(d, *v, p), p), p);
    }
  const json* aff = map_member(d, spec, path, "affinity");
  if (!aff) return;
  const json* na = map_member(d, *aff, path + ".affinity", "nodeAffinity");
  if (!na) return;
  const std::string np = path + ".affinity.nodeAffinity";
  const json* req = map_member(d, *na, np, "requiredDuringSchedulingIgnoredDuringExecution");
  if (!req) return;
  const std::string rp = np + ".requiredDuringSchedulingIgnoredDuringExecution";
  node_terms_gpu(d, list_member(d, *req, rp, "nodeSelectorTerms"), rp + ".nodeSelectorTerms", g);
}

// ---- Pods and workloads ---------------------------------------------------------------------

struct PodEngine {
  ContainerEngine ce;
  std::string path;  // the container
  std::uint64_t gpus = 0;
};

// The one container of a pod spec that runs an engine; nullopt when none does. Throws when two
// do, or when a container given GPUs runs a command kvplan cannot read.
std::optional<PodEngine> pod_engine(const Doc& d, const json& spec, const std::string& path,
                                    const Env& base_env) {
  const json* cs = list_member(d, spec, path, "containers");
  if (!cs) return std::nullopt;
  std::optional<PodEngine> found;
  for (std::size_t i = 0; i < cs->size(); ++i) {
    const std::string p = index_path(path + ".containers", i);
    const json& c = (*cs)[i];
    if (!c.is_object()) d.fail(p, "expects a container map");
    auto ce = container_engine(d, c, p, base_env);
    if (!ce) continue;
    if (found)
      d.fail(p, "a second container running an engine (the first is " + found->path +
                    "); kvplan checks one engine per pod");
    found = PodEngine{std::move(*ce), p, container_gpus(d, c, p)};
  }
  return found;
}

std::uint64_t pod_total_gpus(const Doc& d, const json& spec, const std::string& path) {
  const json* cs = list_member(d, spec, path, "containers");
  std::uint64_t n = 0;
  if (cs)
    for (std::size_t i = 0; i < cs->size(); ++i) {
      const std::string p = index_path(path + ".containers", i);
      if (!(*cs)[i].is_object()) d.fail(p, "expects a container map");
      n = add(n, container_gpus(d, (*cs)[i], p), "GPUs");
    }
  return n;
}

std::uint32_t replicas_of(const Doc& d, const json& j, const std::string& path,
                          const std::string& key, std::uint64_t dflt = 1) {
  const json* r = member(d, j, path, key);
  return static_cast<std::uint32_t>(
      r ? whole(d, *r, join_path(path, key), "replicas", 0, kMaxReplicas) : dflt);
}

ManifestDeployment finish(const Doc& d, const std::string& kind, const std::string& ns,
                          const std::string& name, PodEngine&& pe, std::uint64_t gpus,
                          const GpuChoice& g, std::uint32_t replicas, const std::string& gpu_path) {
  ManifestDeployment m;
  m.source = d.source;
  m.document = d.number;
  m.kind = kind;
  m.ns = ns.empty() ? "default" : ns;
  m.name = name;
  m.path = pe.path;
  m.engine = pe.ce.engine;
  m.argv = std::move(pe.ce.argv);
  m.command_line = quoted_line(m.argv);
  m.env = pe.ce.env.values;
  m.image = pe.ce.image;
  m.opaque = pe.ce.opaque;
  if (gpus == 0)
    d.fail(gpu_path,
           "no nvidia.com/gpu limit: give the engine container resources.limits: "
           "{nvidia.com/gpu: N}");
  m.gpus = static_cast<std::uint32_t>(gpus);
  if (g.preset.empty())
    d.fail("", kind + " " + m.ns + "/" + name +
                   ": no GPU type: add the node selector nvidia.com/gpu.product (GPU Feature "
                   "Discovery's label, e.g. NVIDIA-H100-80GB-HBM3) or the annotation "
                   "kvplan.io/gpu: PRESET (kvplan gpus lists them)");
  m.gpu = g.preset;
  m.gpu_from = g.from;
  m.replicas = replicas;
  m.warnings = std::move(pe.ce.warnings);
  env_warnings(pe.ce.env.values, pe.ce.env.opaque, pe.path, m.warnings);
  return m;
}

struct Meta {
  std::string kind, ns, name;
  const json* metadata = nullptr;
};

Meta meta_of(const Doc& d, const json& doc) {
  Meta m;
  m.kind = string_member(d, doc, "", "kind");
  m.metadata = map_member(d, doc, "", "metadata");
  if (m.metadata) {
    m.ns = string_member(d, *m.metadata, "metadata", "namespace");
    m.name = string_member(d, *m.metadata, "metadata", "name");
  }
  return m;
}

// Deployment, StatefulSet, Pod: one pod spec.
std::optional<ManifestDeployment> read_pod_workload(const Doc& d, const json& doc, const Meta& m) {
  const json* spec = map_member(d, doc, "", "spec");
  if (!spec) d.fail("spec", "missing");
  const bool pod = m.kind == "Pod";
  std::string sp = "spec";
  const json* pod_spec = spec;
  const json* tmeta = nullptr;
  if (!pod) {
    const json* tmpl = map_member(d, *spec, "spec", "template");
    if (!tmpl) d.fail("spec.template", "missing");
    tmeta = map_member(d, *tmpl, "spec.template", "metadata");
    pod_spec = map_member(d, *tmpl, "spec.template", "spec");
    if (!pod_spec) d.fail("spec.template.spec", "missing");
    sp = "spec.template.spec";
  }
  auto pe = pod_engine(d, *pod_spec, sp, {});
  if (!pe) return std::nullopt;
  GpuChoice g;
  annotation_gpu(d, m.metadata, "metadata", g);
  annotation_gpu(d, tmeta, "spec.template.metadata", g);
  pod_gpu(d, *pod_spec, sp, g);
  const std::uint32_t replicas = pod ? 1 : replicas_of(d, *spec, "spec", "replicas");
  const std::uint64_t gpus = pe->gpus;
  const std::string gp = pe->path + ".resources.limits." + kGpuResource;
  return finish(d, m.kind, m.ns, m.name, std::move(*pe), gpus, g, replicas, gp);
}

// LeaderWorkerSet (leaderworkerset.x-k8s.io/v1): spec.replicas groups of
// spec.leaderWorkerTemplate.size pods (default 1), one leader (leaderTemplate, which defaults to
// workerTemplate) and size - 1 workers; the controller sets LWS_GROUP_SIZE, LWS_LEADER_ADDRESS
// and LWS_WORKER_INDEX in every container (api/leaderworkerset/v1/leaderworkerset_types.go @
// kubernetes-sigs/lws 47a6181f092baa7be1475a75480fa717ca4d5647). The engine runs on the leader
// and spans the group, so a replica's GPUs are the leader's plus the workers'.
std::optional<ManifestDeployment> read_lws(const Doc& d, const json& doc, const Meta& m) {
  const json* spec = map_member(d, doc, "", "spec");
  if (!spec) d.fail("spec", "missing");
  const json* lwt = map_member(d, *spec, "spec", "leaderWorkerTemplate");
  const std::string lp = "spec.leaderWorkerTemplate";
  if (!lwt) d.fail(lp, "missing");
  const json* size_j = member(d, *lwt, lp, "size");
  const std::uint64_t size = size_j ? whole(d, *size_j, lp + ".size", "pods", 1, 4096) : 1;
  const json* worker = map_member(d, *lwt, lp, "workerTemplate");
  if (!worker) d.fail(lp + ".workerTemplate", "missing");
  const json* leader = map_member(d, *lwt, lp, "leaderTemplate");
  const std::string wp = lp + ".workerTemplate";
  const std::string ldp = leader ? lp + ".leaderTemplate" : wp;
  const json& lt = leader ? *leader : *worker;
  const json* lspec = map_member(d, lt, ldp, "spec");
  const json* wspec = map_member(d, *worker, wp, "spec");
  if (!lspec) d.fail(ldp + ".spec", "missing");
  if (!wspec) d.fail(wp + ".spec", "missing");
  Env lws_env;
  lws_env.values["LWS_GROUP_SIZE"] = std::to_string(size);
  for (const char* v : {"LWS_LEADER_ADDRESS", "LWS_WORKER_INDEX"})
    lws_env.opaque[v] = "LeaderWorkerSet's injected variable " + std::string(v);
  auto pe = pod_engine(d, *lspec, ldp + ".spec", lws_env);
  if (!pe) return std::nullopt;
  GpuChoice g;
  annotation_gpu(d, m.metadata, "metadata", g);
  annotation_gpu(d, map_member(d, lt, ldp, "metadata"), ldp + ".metadata", g);
  annotation_gpu(d, map_member(d, *worker, wp, "metadata"), wp + ".metadata", g);
  pod_gpu(d, *lspec, ldp + ".spec", g);
  pod_gpu(d, *wspec, wp + ".spec", g);
  const std::uint64_t worker_gpus = pod_total_gpus(d, *wspec, wp + ".spec");
  const std::uint64_t gpus = add(pe->gpus, mul(size - 1, worker_gpus, "GPUs"), "GPUs");
  if (gpus > kMaxPodGpus) d.fail(lp, "more than 65536 GPUs per group");
  const std::string gp = pe->path + ".resources.limits." + kGpuResource;
  const std::uint32_t replicas = replicas_of(d, *spec, "spec", "replicas");
  return finish(d, m.kind, m.ns, m.name, std::move(*pe), gpus, g, replicas, gp);
}

// KServe's Hugging Face runtime (modelFormat huggingface, no command): `python -m
// huggingfaceserver` with its own flags (--model_id, --model_dir, --backend, ...) and vLLM's
// engine flags, which it hands to vLLM when the backend is vllm or auto
// (python/huggingfaceserver/huggingfaceserver/__main__.py @ kserve/kserve
// 00397f1e8077bc9d5b386d6dee90b3ccb2828752). Read as `vllm serve MODEL_ID` plus the vLLM flags.
std::optional<ContainerEngine> kserve_huggingface(const Doc& d, const json& model,
                                                  const std::string& mp) {
  const json* fmt = map_member(d, model, mp, "modelFormat");
  const bool hf = mp.ends_with(".huggingface") ||
                  (fmt && string_member(d, *fmt, mp + ".modelFormat", "name") == "huggingface");
  if (!hf) return std::nullopt;
  if (member(d, model, mp, "command")) return std::nullopt;
  ContainerEngine ce;
  read_env_list(d, list_member(d, model, mp, "env"), mp + ".env", ce.env);
  const auto args = string_list(d, list_member(d, model, mp, "args"), mp + ".args");
  static constexpr const char* kOwn[] = {"--model_name",
                                         "--model_dir",
                                         "--model_revision",
                                         "--tokenizer_revision",
                                         "--task",
                                         "--disable_lower_case",
                                         "--disable_special_tokens",
                                         "--tensor_input_names",
                                         "--return_token_type_ids",
                                         "--return_probabilities",
                                         "--disable_log_requests",
                                         "--max_log_len",
                                         "--max-log-len",
                                         "--http_port",
                                         "--grpc_port"};
  static constexpr const char* kValued[] = {
      "--model_name", "--model_dir",          "--model_revision", "--tokenizer_revision",
      "--task",       "--tensor_input_names", "--max_log_len",    "--max-log-len",
      "--http_port",  "--grpc_port"};
  auto in = [](const auto& list, const std::string& f) {
    return std::find_if(std::begin(list), std::end(list), [&](const char* x) { return f == x; }) !=
           std::end(list);
  };
  std::string model_id, backend = "auto";
  std::vector<std::string> rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string w = expand_k8s(args[i], ce.env.values);
    const auto eq = w.find('=');
    const std::string flag = w.substr(0, eq);
    const bool inline_value = eq != std::string::npos;
    auto value = [&]() -> std::string {
      if (inline_value) return w.substr(eq + 1);
      if (i + 1 >= args.size()) d.fail(index_path(mp + ".args", i), "expects a value");
      return expand_k8s(args[++i], ce.env.values);
    };
    if (flag == "--model_id") {
      model_id = value();
    } else if (flag == "--backend") {
      backend = value();
    } else if (in(kOwn, flag)) {
      if (in(kValued, flag) && !inline_value) ++i;
    } else {
      rest.push_back(w);
    }
  }
  if (backend != "vllm" && backend != "auto") return std::nullopt;
  if (model_id.empty()) {
    const std::string uri = string_member(d, model, mp, "storageUri");
    if (uri.rfind("hf://", 0) == 0)
      model_id = uri.substr(5);
    else
      d.fail(mp + ".args", "no --model_id" +
                               (uri.empty() ? std::string()
                                            : " (storageUri "
                                              " + uri + "
                                              ")") +
                               ": kvplan needs the model's Hugging Face id to size it");
  }
  ce.argv = {"vllm", "serve", model_id};
  ce.argv.insert(ce.argv.end(), rest.begin(), rest.end());
  ce.warnings.push_back(mp + ": KServe's Hugging Face runtime, read as \"vllm serve " + model_id +
                        "\" with its vLLM flags (backend " + backend + ")");
  note_opaque_refs(ce);
  return ce;
}

// KServe InferenceService (serving.kserve.io/v1beta1): spec.predictor inlines a PodSpec
// (containers, nodeSelector, affinity) and the component extension (minReplicas, default 1), or
// names a `model` (or the older `huggingface`) whose fields are a container's (args, command,
// env, resources); workerSpec runs multi-node (pkg/apis/serving/v1beta1/predictor.go @
// kserve/kserve 0217bdabaaa250485b336805da1aed04960dc758).
std::optional<ManifestDeployment> read_isvc(const Doc& d, const json& doc, const Meta& m) {
  const json* spec = map_member(d, doc, "", "spec");
  if (!spec) d.fail("spec", "missing");
  const json* pred = map_member(d, *spec, "spec", "predictor");
  const std::string pp = "spec.predictor";
  if (!pred) d.fail(pp, "missing");
  if (member(d, *pred, pp, "workerSpec"))
    d.fail(pp + ".workerSpec",
           "a multi-node predictor: kvplan does not read workerSpec; check "
           "the head's command with kvplan check --vllm");
  std::optional<PodEngine> pe;
  const json* model = map_member(d, *pred, pp, "model");
  const std::string mp = pp + (model ? ".model" : ".huggingface");
  if (!model) model = map_member(d, *pred, pp, "huggingface");
  if (model) {
    auto ce = container_engine(d, *model, mp, {});
    if (!ce) ce = kserve_huggingface(d, *model, mp);
    if (!ce) {
      const std::string runtime = string_member(d, *model, mp, "runtime");
      d.fail(mp, "runs no command kvplan can read" +
                     (runtime.empty() ? std::string() : " (runtime \"" + runtime + "\")") +
                     ": give the engine command in command and args (command: [\"vllm\", "
                     "\"serve\"]), or use spec.predictor.containers");
    }
    pe = PodEngine{std::move(*ce), mp, container_gpus(d, *model, mp)};
  } else {
    pe = pod_engine(d, *pred, pp, {});
  }
  if (!pe) return std::nullopt;
  GpuChoice g;
  annotation_gpu(d, m.metadata, "metadata", g);
  pod_gpu(d, *pred, pp, g);
  const std::uint32_t replicas = replicas_of(d, *pred, pp, "minReplicas");
  const std::uint64_t gpus = pe->gpus;
  const std::string gp = pe->path + ".resources.limits." + kGpuResource;
  return finish(d, m.kind, m.ns, m.name, std::move(*pe), gpus, g, replicas, gp);
}

// vLLM production-stack Helm values: servingEngineSpec.modelSpec[] as
// helm/templates/deployment-vllm-multi.yaml @ vllm-project/production-stack
// a6c01db05f65f556235413ba8dbcfb0c01132fff renders them (keys: helm/values.schema.json there):
// `vllm serve modelURL` with vllmConfig's flags, then extraArgs; env servingEngineSpec.env then
// modelSpec.env; GPUs resources.limits (which takes priority) or requestGPU; replicas
// replicaCount. Helm values carry no namespace: the deployments are named default/NAME.

// vllmConfig's keys, as the chart turns them into `vllm serve` flags.
void append_vllm_config(const Doc& d, const json& vc, const std::string& vp, PodEngine& pe) {
  auto& a = pe.ce.argv;
  if (const json* v = member(d, vc, vp, "enableChunkedPrefill"))
    a.push_back(is_true(v) ? "--enable-chunked-prefill" : "--no-enable-chunked-prefill");
  a.push_back(is_true(member(d, vc, vp, "enablePrefixCaching")) ? "--enable-prefix-caching"
                                                                : "--no-enable-prefix-caching");
  static constexpr std::pair<const char*, const char*> kFlags[] = {
      {"maxModelLen", "--max-model-len"},
      {"dtype", "--dtype"},
      {"tensorParallelSize", "--tensor-parallel-size"},
      {"maxNumSeqs", "--max-num-seqs"},
      {"gpuMemoryUtilization", "--gpu_memory_utilization"},
      {"maxLoras", "--max_loras"},
      {"runner", "--runner"},
      {"convert", "--convert"}};
  for (const auto& [key, flag] : kFlags)
    if (const json* v = member(d, vc, vp, key)) {
      a.push_back(flag);
      a.push_back(expand_k8s(scalar_text(d, *v, vp + "." + key), pe.ce.env.values));
    }
  for (const auto& w : string_list(d, list_member(d, vc, vp, "extraArgs"), vp + ".extraArgs"))
    a.push_back(expand_k8s(w, pe.ce.env.values));
  if (const json* v0 = member(d, vc, vp, "v0"); v0 && scalar_text(d, *v0, vp + ".v0") == "1")
    pe.ce.env.values["VLLM_USE_V1"] = "0";
}

// The engine one modelSpec entry runs: `vllm serve modelURL` with its flags and env.
PodEngine production_stack_engine(const Doc& d, const json& ms, const std::string& p,
                                  const std::string& url, const Env& global) {
  PodEngine pe;
  pe.path = p;
  pe.ce.engine = Engine::vllm;
  pe.ce.env = global;
  read_env_list(d, list_member(d, ms, p, "env"), p + ".env", pe.ce.env);
  auto& a = pe.ce.argv;
  a = {"vllm", "serve", url};
  if (is_true(member(d, ms, p, "enableLoRA"))) a.push_back("--enable-lora");
  if (const json* vc = map_member(d, ms, p, "vllmConfig"))
    append_vllm_config(d, *vc, p + ".vllmConfig", pe);
  const std::string rev = string_member(d, ms, p, "modelRevision");
  if (!rev.empty()) a.insert(a.end(), {"--revision", rev});
  if (const json* lm = map_member(d, ms, p, "lmcacheConfig"))
    if (is_true(member(d, *lm, p + ".lmcacheConfig", "enabled")))
      pe.ce.warnings.push_back(p +
                               ".lmcacheConfig: LMCache KV offloading (the chart adds "
                               "--kv-transfer-config): not modelled");
  note_opaque_refs(pe.ce);
  return pe;
}

// Sets pe.gpus from a modelSpec entry and returns the path it came from: a resources block takes
// priority over the simplified requestGPU.
std::string production_stack_gpus(const Doc& d, const json& ms, const std::string& p,
                                  PodEngine& pe) {
  std::string gpu_path = p + ".requestGPU";
  if (map_member(d, ms, p, "resources")) {
    pe.gpus = container_gpus(d, ms, p);
    gpu_path = p + ".resources.limits." + kGpuResource;
  }
  if (pe.gpus == 0)
    if (const json* rg = member(d, ms, p, "requestGPU")) {
      const std::string type = string_member(d, ms, p, "requestGPUType");
      if (!type.empty() && type != kGpuResource)
        d.fail(p + ".requestGPUType", "\"" + type +
                                          "\": kvplan sizes whole nvidia.com/gpu "
                                          "GPUs, not MIG slices or other resources");
      pe.gpus = whole(d, *rg, p + ".requestGPU", "GPUs", 0, kMaxPodGpus);
      gpu_path = p + ".requestGPU";
    }
  return gpu_path;
}

// The GPU a modelSpec entry's annotations and affinity (or nodeSelectorTerms) name.
GpuChoice production_stack_gpu_choice(const Doc& d, const json& ms, const std::string& p) {
  GpuChoice g;
  for (const char* k : {"annotations", "podAnnotations"})
    annotations_gpu(d, map_member(d, ms, p, k), p + "." + k, g);
  if (const json* aff = map_member(d, ms, p, "affinity")) {
    json spec = {{"affinity", *aff}};
    pod_gpu(d, spec, p, g);
  } else {
    node_terms_gpu(d, list_member(d, ms, p, "nodeSelectorTerms"), p + ".nodeSelectorTerms", g);
  }
  return g;
}

// One servingEngineSpec.modelSpec[] entry; a disabled one is noted as skipped.
void read_model_spec(const Doc& d, const json& ms, const std::string& p, const Env& global,
                     ManifestScan& out) {
  if (!ms.is_object()) d.fail(p, "expects a map");
  const std::string name = string_member(d, ms, p, "name");
  if (name.empty()) d.fail(p + ".name", "missing");
  if (is_false(member(d, ms, p, "enabled"))) {
    out.skipped.push_back("document " + std::to_string(d.number) + ": " + p + " " + name +
                          ": enabled: false");
    return;
  }
  const std::string url = string_member(d, ms, p, "modelURL");
  if (url.empty()) d.fail(p + ".modelURL", "missing");
  if (const json* ray = map_member(d, ms, p, "raySpec"))
    if (is_true(member(d, *ray, p + ".raySpec", "enabled")))
      d.fail(p + ".raySpec",
             "a multi-node Ray cluster: kvplan does not read raySpec; check the "
             "head node's command with kvplan check --vllm");
  PodEngine pe = production_stack_engine(d, ms, p, url, global);
  const std::string gpu_path = production_stack_gpus(d, ms, p, pe);
  const GpuChoice g = production_stack_gpu_choice(d, ms, p);
  const std::uint32_t replicas = replicas_of(d, ms, p, "replicaCount");
  const std::uint64_t gpus = pe.gpus;
  out.deployments.push_back(finish(d, "production-stack modelSpec", "default", name, std::move(pe),
                                   gpus, g, replicas, gpu_path));
}

void read_production_stack(const Doc& d, const json& doc, ManifestScan& out) {
  const json* ses = map_member(d, doc, "", "servingEngineSpec");
  const std::string sp = "servingEngineSpec";
  Env global;
  read_env_list(d, list_member(d, *ses, sp, "env"), sp + ".env", global);
  const json* specs = list_member(d, *ses, sp, "modelSpec");
  if (!specs || specs->empty()) {
    out.skipped.push_back("document " + std::to_string(d.number) +
                          ": production-stack values: no servingEngineSpec.modelSpec");
    return;
  }
  for (std::size_t i = 0; i < specs->size(); ++i)
    read_model_spec(d, (*specs)[i], index_path(sp + ".modelSpec", i), global, out);
}

// llm-d's modelservice Helm values, as charts/llm-d-modelservice/templates (decode-deployment.yaml,
// prefill-deployment.yaml, _helpers.tpl) @ llm-d-incubation/llm-d-modelservice
// 3051935eb5a49f6df21cd6aeb5e4f05b98799262 render them: one Deployment per role (decode,
// prefill) with `create` and replicas (decode default 1, prefill 0); a container's modelCommand
// vllmServe is `vllm serve MODEL --port P [--tensor-parallel-size T] [--data-parallel-size D]
// [--data-parallel-size-local L] --served-model-name NAME` + its args, custom its own command,
// imageDefault the image's entrypoint; the GPU limit, unless set, is dataLocal x tensor;
// acceleratorTypes {labelKey, labelValues} becomes a required node affinity. multinode
// (LeaderWorkerSets), DRA claims, the requester mode and accelerators other than nvidia are
// refused. The deployments are named FULLNAME-ROLE, FULLNAME the fullnameOverride (else
// "modelservice": the release name is not in the values), in namespace default.
// llm-d's multinode and requester modes, and accelerators other than NVIDIA's GPU limits, render
// manifests kvplan does not read from the values.
void refuse_llm_d_modes(const Doc& d, const json& doc) {
  for (const char* key : {"multinode", "requester"}) {
    const json* v = member(d, doc, "", key);
    const bool on = v && (v->is_boolean() ? v->get<bool>()
                                          : v->is_object() && v->contains("enable") &&
                                                is_true(&(*v)["enable"]));
    if (on)
      d.fail(std::string(key) == "multinode" ? "multinode" : "requester.enable",
             "kvplan does not read llm-d's " + std::string(key) +
                 " mode: check the manifests helm template renders");
  }
  if (const json* acc = map_member(d, doc, "", "accelerator")) {
    const std::string type = string_member(d, *acc, "accelerator", "type");
    if (!type.empty() && type != "nvidia")
      d.fail("accelerator.type", "\"" + type + "\": kvplan sizes NVIDIA GPUs");
    if (is_true(member(d, *acc, "accelerator", "dra")))
      d.fail("accelerator.dra", "GPUs claimed through DRA: kvplan reads nvidia.com/gpu limits");
  }
}

// modelArtifacts, as the chart reads them: name (the served model name) and the Hugging Face id
// its uri names.
struct LlmDModel {
  std::string name;
  std::string hf_id;
};

// Renders modelArtifacts.uri, a template whose one expression in practice is the model's name.
std::string llm_d_model_uri(const Doc& d, const json* art, const std::string& name) {
  std::string uri = art ? string_member(d, *art, "modelArtifacts", "uri") : "";
  if (uri.empty()) uri = "hf://{{ .Values.modelArtifacts.name }}";  // the chart's default
  for (std::size_t at; (at = uri.find("{{")) != std::string::npos;) {
    const auto close = uri.find("}}", at);
    if (close == std::string::npos) break;
    std::string expr = uri.substr(at + 2, close - at - 2);
    expr.erase(0, expr.find_first_not_of(' '));
    expr.erase(expr.find_last_not_of(' ') + 1);
    if (expr != ".Values.modelArtifacts.name")
      d.fail("modelArtifacts.uri", "a template kvplan cannot render: {{" + expr + "}}");
    uri.replace(at, close + 2 - at, name);
  }
  uri.erase(std::remove(uri.begin(), uri.end(), '"'), uri.end());
  return uri;
}

LlmDModel llm_d_model(const Doc& d, const json& doc) {
  const json* art = map_member(d, doc, "", "modelArtifacts");
  LlmDModel m;
  m.name = art ? string_member(d, *art, "modelArtifacts", "name") : "";
  const std::string uri = llm_d_model_uri(d, art, m.name);
  if (uri.rfind("hf://", 0) == 0) {
    m.hf_id = uri.substr(5);
  } else if (uri.rfind("pvc+hf://", 0) == 0) {
    const std::string rest = uri.substr(9);
    const auto last = rest.rfind('/');
    const auto prev = last == std::string::npos ? std::string::npos : rest.rfind('/', last - 1);
    m.hf_id = prev == std::string::npos ? rest : rest.substr(prev + 1);
  } else {
    d.fail("modelArtifacts.uri", "\"" + uri +
                                     "\": kvplan needs the model's Hugging Face id "
                                     "(hf:// or pvc+hf://) to size it");
  }
  return m;
}

// A role's ranks, as the chart's tensorParallelism / dataParallelism / dataLocalParallelism.
struct LlmDParallelism {
  std::uint64_t tp = 1, dp = 1, dpl = 1;
};

LlmDParallelism llm_d_parallelism(const Doc& d, const json& spec, const std::string& rp) {
  LlmDParallelism par;
  const json* pm = map_member(d, spec, rp, "parallelism");
  if (!pm) return par;
  const std::string pp = rp + ".parallelism";
  auto get = [&](const char* k) -> std::uint64_t {
    const json* v = member(d, *pm, pp, k);
    return v ? whole(d, *v, pp + "." + k, "ranks", 0, 4096) : 0;
  };
  const std::uint64_t t = get("tensor"), da = get("data"), dl = get("dataLocal"),
                      w = get("workers");
  par.tp = t ? t : 1;
  par.dp = da ? da : (dl && w) ? dl * w : dl ? dl : 1;
  if (dl)
    par.dpl = dl;
  else if (da && w) {
    if (da % w != 0) d.fail(pp + ".data", "must be a multiple of parallelism.workers");
    par.dpl = da / w;
  } else if (da)
    par.dpl = da;
  return par;
}

// The port vllmServe listens on: the proxy's targetPort for a proxied decode, else servicePort.
std::string llm_d_port(const Doc& d, const json* routing, bool prefill) {
  if (!routing) return prefill ? "8000" : "8200";  // 8200: routing.proxy.targetPort's default
  std::string port = "8200";
  const json* proxy = map_member(d, *routing, "routing", "proxy");
  const json* en = proxy ? member(d, *proxy, "routing.proxy", "enabled") : nullptr;
  const bool proxied = !is_false(en);
  if (prefill || !proxied) {
    const std::string sp = string_member(d, *routing, "routing", "servicePort");
    port = sp.empty() ? "8000" : sp;
  } else if (proxy) {
    const std::string tport = string_member(d, *proxy, "routing.proxy", "targetPort");
    if (!tport.empty()) port = tport;
  }
  return port;
}

// What every role of one llm-d values document shares.
struct LlmDValues {
  LlmDModel model;
  std::string fullname;
  const json* routing = nullptr;
};

// One role (decode or prefill) of an llm-d values document.
struct LlmDRole {
  const LlmDValues& values;
  std::string rp;  // the role, also the path of its values
  LlmDParallelism par;
};

// The vllmServe model command: `vllm serve MODEL --port P [parallel flags]
// --served-model-name NAME` + the container's args.
ContainerEngine llm_d_vllm_serve(const Doc& d, const json& c, const std::string& cp,
                                 const LlmDRole& role) {
  ContainerEngine e;
  read_env_list(d, list_member(d, c, cp, "env"), cp + ".env", e.env);
  const std::string port = llm_d_port(d, role.values.routing, role.rp == "prefill");
  e.argv = {"vllm", "serve", role.values.model.hf_id, "--port", port};
  const LlmDParallelism& par = role.par;
  if (par.tp > 1) e.argv.insert(e.argv.end(), {"--tensor-parallel-size", std::to_string(par.tp)});
  if (par.dp > 1) e.argv.insert(e.argv.end(), {"--data-parallel-size", std::to_string(par.dp)});
  if (par.dpl > 1)
    e.argv.insert(e.argv.end(), {"--data-parallel-size-local", std::to_string(par.dpl)});
  e.argv.insert(e.argv.end(), {"--served-model-name", role.values.model.name});
  for (const auto& w : string_list(d, list_member(d, c, cp, "args"), cp + ".args"))
    e.argv.push_back(expand_k8s(w, e.env.values));
  note_opaque_refs(e);
  return e;
}

// The engine a container's modelCommand runs; nullopt for a custom command that runs none.
std::optional<ContainerEngine> llm_d_container_engine(const Doc& d, const json& c,
                                                      const std::string& cp, const LlmDRole& role) {
  std::string mc = string_member(d, c, cp, "modelCommand");
  if (mc.empty()) mc = "custom";
  if (mc == "vllmServe") return llm_d_vllm_serve(d, c, cp, role);
  if (mc == "custom") return container_engine(d, c, cp, {});
  if (mc == "imageDefault")
    d.fail(cp + ".modelCommand",
           "imageDefault runs the image's entrypoint, which the values "
           "do not state: use vllmServe, or custom with a command");
  d.fail(cp + ".modelCommand", "\"" + mc + "\": expected vllmServe, imageDefault or custom");
}

// The one container of a role that runs an engine; nullopt when none does.
std::optional<PodEngine> llm_d_pod_engine(const Doc& d, const json& cs, const LlmDRole& role) {
  std::optional<PodEngine> pe;
  for (std::size_t i = 0; i < cs.size(); ++i) {
    const std::string cp = index_path(role.rp + ".containers", i);
    const json& c = cs[i];
    if (!c.is_object()) d.fail(cp, "expects a container map");
    auto ce = llm_d_container_engine(d, c, cp, role);
    if (!ce) continue;
    if (pe) d.fail(cp, "a second container running an engine; kvplan checks one per pod");
    std::uint64_t gpus = container_gpus(d, c, cp);
    if (gpus == 0) gpus = role.par.dpl * role.par.tp;  // the chart fills the limit in when unset
    pe = PodEngine{std::move(*ce), cp, gpus};
  }
  return pe;
}

// The GPU a role's annotations, nodeSelector and acceleratorTypes name.
GpuChoice llm_d_gpu_choice(const Doc& d, const json& spec, const std::string& rp) {
  GpuChoice g;
  annotations_gpu(d, map_member(d, spec, rp, "annotations"), rp + ".annotations", g);
  annotations_gpu(d, map_member(d, spec, rp, "podAnnotations"), rp + ".podAnnotations", g);
  if (const json* sel = map_member(d, spec, rp, "nodeSelector")) {
    json pod = {{"nodeSelector", *sel}};
    pod_gpu(d, pod, rp, g);
  }
  const json* at = map_member(d, spec, rp, "acceleratorTypes");
  if (!at) return g;
  const std::string ap = rp + ".acceleratorTypes";
  if (string_member(d, *at, ap, "labelKey") == kProductLabel) {
    const auto values = string_list(d, list_member(d, *at, ap, "labelValues"), ap + ".labelValues");
    std::vector<std::pair<std::string, std::string>> found;
    for (std::size_t v = 0; v < values.size(); ++v) {
      const std::string vp = index_path(ap + ".labelValues", v);
      found.emplace_back(product_preset(d, values[v], vp), vp);
    }
    choose_least(d, found, g);
  }
  return g;
}

// One role's Deployment, FULLNAME-ROLE; a role not created, scaled to zero or running no engine
// is noted as skipped.
void read_llm_d_role(const Doc& d, const json& doc, const LlmDValues& values, const char* role,
                     ManifestScan& out) {
  const json* spec = map_member(d, doc, "", role);
  const std::string rp = role;
  const std::string dep_name = values.fullname + "-" + role;
  const std::string where =
      "document " + std::to_string(d.number) + ": llm-d " + rp + " " + "default/" + dep_name + ": ";
  if (!spec) return;
  if (is_false(member(d, *spec, rp, "create"))) {
    out.skipped.push_back(where + "create: false");
    return;
  }
  const std::uint32_t replicas = replicas_of(d, *spec, rp, "replicas", rp == "decode" ? 1 : 0);
  if (replicas == 0) {
    out.skipped.push_back(where + "0 replicas");
    return;
  }
  const LlmDRole r{values, rp, llm_d_parallelism(d, *spec, rp)};
  const json* cs = list_member(d, *spec, rp, "containers");
  if (!cs || cs->empty()) {
    out.skipped.push_back(where + "no containers");
    return;
  }
  std::optional<PodEngine> pe = llm_d_pod_engine(d, *cs, r);
  if (!pe) {
    out.skipped.push_back(where + "runs no engine");
    return;
  }
  const GpuChoice g = llm_d_gpu_choice(d, *spec, rp);
  const std::uint64_t gpus = pe->gpus;
  const std::string gp = pe->path + ".resources.limits." + kGpuResource;
  out.deployments.push_back(
      finish(d, "llm-d " + rp, "default", dep_name, std::move(*pe), gpus, g, replicas, gp));
}

void read_llm_d(const Doc& d, const json& doc, ManifestScan& out) {
  refuse_llm_d_modes(d, doc);
  LlmDValues values;
  values.model = llm_d_model(d, doc);
  values.fullname = string_member(d, doc, "", "fullnameOverride");
  if (values.fullname.empty()) values.fullname = "modelservice";
  values.routing = map_member(d, doc, "", "routing");
  for (const char* role : {"decode", "prefill"}) read_llm_d_role(d, doc, values, role, out);
}

bool mentions_engine(const json& j) {
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    return s.find("vllm serve") != std::string::npos ||
           s.find("vllm.entrypoints.openai.api_server") != std::string::npos ||
           s.find("sglang.launch_server") != std::string::npos ||
           s.find("trtllm-serve") != std::string::npos;
  }
  if (j.is_array() || j.is_object()) {
    for (const auto& v : j)
      if (mentions_engine(v)) return true;
    // "vllm" and "serve" as separate words of a command list
    if (j.is_array())
      for (std::size_t i = 0; i + 1 < j.size(); ++i)
        if (j[i].is_string() && j[i + 1].is_string() &&
            base_name(j[i].get<std::string>()) == "vllm" && j[i + 1].get<std::string>() == "serve")
          return true;
  }
  return false;
}

bool requests_gpus(const json& j) {
  if (j.is_object()) {
    if (j.contains(kGpuResource)) return true;
    for (const auto& [k, v] : j.items())
      if (requests_gpus(v)) return true;
  } else if (j.is_array()) {
    for (const auto& v : j)
      if (requests_gpus(v)) return true;
  }
  return false;
}

std::string type_name(const json& j) {
  return j.is_array()    ? "a list"
         : j.is_string() ? "a string"
         : j.is_number() ? "a number"
                         : "a scalar";
}

void read_document(const Doc& d, const json& doc, ManifestScan& out) {
  if (doc.is_null()) return;  // an empty document (a trailing ---)
  if (!doc.is_object())
    d.fail("", "expects a map (a Kubernetes object or Helm values), got " + type_name(doc));
  if (doc.contains("kvplan_deploy"))
    d.fail("kvplan_deploy",
           "a kvplan deployment file is JSON (docs/deploy.md): give it a .json "
           "name; YAML files are read as Kubernetes manifests");
  const Meta m = meta_of(d, doc);
  const std::string where = "document " + std::to_string(d.number) + ": ";
  if (m.kind.empty()) {
    if (doc.contains("servingEngineSpec")) return read_production_stack(d, doc, out);
    if (doc.contains("modelArtifacts") && (doc.contains("decode") || doc.contains("prefill")))
      return read_llm_d(d, doc, out);
    d.fail("kind",
           "missing: not a Kubernetes object, nor vLLM production-stack (servingEngineSpec) "
           "or llm-d modelservice (modelArtifacts, decode) Helm values");
  }
  std::optional<ManifestDeployment> dep;
  if (m.kind == "Deployment" || m.kind == "StatefulSet" || m.kind == "Pod")
    dep = read_pod_workload(d, doc, m);
  else if (m.kind == "LeaderWorkerSet")
    dep = read_lws(d, doc, m);
  else if (m.kind == "InferenceService")
    dep = read_isvc(d, doc, m);
  else if (mentions_engine(doc))
    d.fail("kind", m.kind + " " + m.name +
                       " runs an engine, but kvplan reads Deployment, "
                       "StatefulSet, Pod, LeaderWorkerSet and InferenceService only");
  const std::string ns = m.ns.empty() ? "default" : m.ns;
  if (dep)
    out.deployments.push_back(std::move(*dep));
  else
    out.skipped.push_back(where + m.kind + " " + ns + "/" + m.name + ": runs no engine" +
                          (requests_gpus(doc) ? " (it requests nvidia.com/gpu, but no container "
                                                "runs vllm serve, SGLang or trtllm-serve)"
                                              : ""));
}

std::string quoted_line_of(const std::vector<std::string>& argv) { return quoted_line(argv); }

}  // namespace

bool is_manifest_file(const std::string& path) {
  const auto dot = path.rfind('.');
  const std::string ext = dot == std::string::npos ? "" : path.substr(dot + 1);
  if (ext == "yaml" || ext == "yml") return true;
  if (ext == "json") return false;
  // Only a regular file is sniffed: opening a FIFO would block, and load_deploy refuses every
  // other kind by name ("a FIFO, not a regular file").
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;  // load_deploy names the unreadable file
  char buf[4096];
  f.read(buf, sizeof buf);
  const std::string head(buf, static_cast<std::size_t>(f.gcount()));
  std::size_t i = head.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;
  while (i < head.size() && std::isspace(static_cast<unsigned char>(head[i]))) ++i;
  return i < head.size() && head[i] != '{' && head[i] != '[';
}

ManifestScan read_manifests(const std::string& text, const std::string& source) {
  ManifestScan out;
  out.source = source;
  const std::vector<json> docs = detail::yaml_documents(text, source);
  for (std::size_t i = 0; i < docs.size(); ++i) read_document(Doc{source, i + 1}, docs[i], out);
  return out;
}

ManifestScan load_manifests(const std::string& path) {
  return read_manifests(detail::read_text_file(path, "manifest"), path);
}

Deployment manifest_deployment(const ManifestDeployment& m, bool strict) {
  const std::string doc = "document " + std::to_string(m.document);
  const std::string src = m.source + ": " + doc + ": " + m.path;
  const GpuSpec gpu = load_gpu(m.gpu);
  // The container's literal variables kvplan models, as VAR=value before the command.
  std::vector<std::string> env;
  for (const auto& [name, value] : m.env)
    if (modelled_env_name(name)) env.push_back(name + "=" + value);
  auto build = [&](const std::vector<std::string>& argv) {
    std::vector<std::string> line = env;
    line.insert(line.end(), argv.begin(), argv.end());
    EngineArgs a = parse_engine_command(m.engine, quoted_line_of(line), src);
    a.image = m.image;  // its tag names the release (image_release)
    if (strict && !a.unknown.empty()) {
      std::string list;
      for (const auto& u : a.unknown) list += (list.empty() ? "" : ", ") + u;
      throw Error(src, a.unknown.front(), "unknown flags: " + list);
    }
    return deploy_from_engine(a, gpu, 0, "", src);
  };
  // A value kvplan cannot see matters when two different values give different deployments (or
  // one of them is refused): then the manifest does not say what runs.
  std::vector<std::string> used;
  for (const auto& [name, where] : m.opaque)
    for (const auto& w : m.argv)
      if (w.find("$(" + name + ")") != std::string::npos) {
        used.push_back(name);
        break;
      }
  for (const auto& name : used) {
    auto with = [&](const std::string& value) {
      std::vector<std::string> argv = m.argv;
      for (auto& w : argv)
        for (std::size_t at; (at = w.find("$(" + name + ")")) != std::string::npos;)
          w.replace(at, name.size() + 3, value);
      return argv;
    };
    std::string why;
    try {
      if (to_json(build(with("1"))) != to_json(build(with("2"))))
        why = "different values give different deployments";
    } catch (const Error& e) {
      why = e.what();
    }
    if (!why.empty())
      throw Error(m.source, doc + ": " + m.opaque.at(name),
                  "the engine command uses $" + name +
                      ", whose value is not in the manifest, where it changes what kvplan "
                      "checks (" +
                      why + "): give it a literal value: or write the flag out");
  }
  Deployment d = build(m.argv);
  d.source = m.source;
  d.name = m.ns + "/" + m.name;
  d.warnings.insert(d.warnings.begin(), m.warnings.begin(), m.warnings.end());
  return d;
}

bool ManifestReport::passed() const { return failures() == 0; }

std::size_t ManifestReport::failures() const {
  return static_cast<std::size_t>(std::count_if(
      checks.begin(), checks.end(), [](const ManifestCheck& c) { return !c.report.passed(); }));
}

ManifestReport check_manifests(const ManifestScan& s, bool strict) {
  if (s.deployments.empty()) {
    std::string list;
    for (const auto& k : s.skipped) list += "; " + k;
    throw Error(
        s.source, "",
        "no document runs vLLM, SGLang or trtllm-serve, so there is nothing to check" + list);
  }
  ManifestReport r;
  r.source = s.source;
  r.skipped = s.skipped;
  for (const auto& m : s.deployments) {
    Deployment d = manifest_deployment(m, strict);
    const std::uint32_t engine_gpus = d.plan.gpus;  // TP × PP × DP of the command line
    if (m.gpus > engine_gpus)
      d.warnings.push_back(std::to_string(m.gpus - engine_gpus) + " of the " +
                           std::to_string(m.gpus) +
                           " GPUs given to each replica stay idle: the "
                           "engine uses TP × PP × DP = " +
                           std::to_string(engine_gpus));
    ManifestCheck c{m, run_check(d)};
    CheckItem gi;
    gi.id = "pod_gpus";
    gi.title = "the GPUs each replica is given cover the engine's TP × PP × DP";
    gi.passed = m.gpus >= engine_gpus;
    gi.detail = std::to_string(m.gpus) + (m.gpus == 1 ? " GPU" : " GPUs") + " given (" + m.kind +
                "), the engine needs " + std::to_string(engine_gpus);
    if (!gi.passed)
      gi.fix = m.kind == "LeaderWorkerSet"
                   ? "give the group " + std::to_string(engine_gpus) +
                         " GPUs (leader + workers' nvidia.com/gpu limits)"
                   : "set resources.limits nvidia.com/gpu: " + std::to_string(engine_gpus);
    c.report.items.insert(c.report.items.begin(), gi);
    r.checks.push_back(std::move(c));
  }
  return r;
}

namespace {

std::string header_of(const ManifestCheck& c) {
  const auto& m = c.manifest;
  return m.ns + "/" + m.name + " (" + m.kind + ", document " + std::to_string(m.document) +
         "): " + std::to_string(m.replicas) + " replica" + (m.replicas == 1 ? "" : "s") + " × " +
         std::to_string(m.gpus) + " × " + m.gpu + " (GPU from " + m.gpu_from + ")";
}

}  // namespace

namespace {

std::string render_json(const ManifestReport& r) {
  json j;
  j["source"] = r.source;
  j["passed"] = r.passed();
  j["failures"] = r.failures();
  j["deployments"] = json::array();
  for (const auto& c : r.checks) {
    const auto& m = c.manifest;
    j["deployments"].push_back({{"name", m.ns + "/" + m.name},
                                {"kind", m.kind},
                                {"document", m.document},
                                {"path", m.path},
                                {"engine", to_string(m.engine)},
                                {"command_line", m.command_line},
                                {"replicas", m.replicas},
                                {"gpus_per_replica", m.gpus},
                                {"gpu", m.gpu},
                                {"gpu_from", m.gpu_from},
                                {"check", json::parse(render(c.report, OutputFormat::json))}});
  }
  j["skipped"] = r.skipped;
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

// One JUnit test case per deployment, one skipped case per document not checked.
std::string render_junit(const ManifestReport& r) {
  const std::size_t n = r.checks.size(), failed = r.failures();
  const std::size_t tests = n + r.skipped.size();
  std::string s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += "<testsuites name=\"kvplan\" tests=\"" + std::to_string(tests) + "\" failures=\"" +
       std::to_string(failed) + "\">\n";
  s += "  <testsuite name=\"" + xml_text("kvplan check " + r.source) + "\" tests=\"" +
       std::to_string(tests) + "\" failures=\"" + std::to_string(failed) +
       "\" errors=\"0\" skipped=\"" + std::to_string(r.skipped.size()) + "\">\n";
  for (const auto& c : r.checks) {
    const auto& m = c.manifest;
    s += "    <testcase classname=\"" + xml_text("kvplan.k8s." + junit_classname(m.ns)) +
         "\" name=\"" + xml_text(m.ns + "/" + m.name) + "\">\n";
    std::string out = header_of(c) + "\n" + m.command_line + "\n", failures;
    for (const auto& i : c.report.items) {
      out += (i.passed ? "PASS " : "FAIL ") + i.id + ": " + i.detail + "\n";
      if (!i.passed)
        failures += i.id + ": " + i.detail + (i.fix.empty() ? "" : "; fix: " + i.fix) + "\n";
    }
    if (!c.report.passed())
      s += "      <failure message=\"" +
           xml_text(std::to_string(c.report.failures()) + " of " +
                    std::to_string(c.report.items.size()) + " checks failed") +
           "\" type=\"slo\">" + xml_text(failures) + "</failure>\n";
    s += "      <system-out>" + xml_text(out) + "</system-out>\n";
    if (!c.report.deploy.warnings.empty()) {
      std::string w;
      for (const auto& x : c.report.deploy.warnings) w += x + "\n";
      s += "      <system-err>" + xml_text(w) + "</system-err>\n";
    }
    s += "    </testcase>\n";
  }
  for (const auto& k : r.skipped)
    s += "    <testcase classname=\"kvplan.k8s.skipped\" name=\"" + xml_text(k) +
         "\">\n      <skipped message=\"" + xml_text(k) + "\"/>\n    </testcase>\n";
  s += "  </testsuite>\n</testsuites>\n";
  return s;
}

std::string render_text(const ManifestReport& r, bool md) {
  const std::size_t n = r.checks.size(), failed = r.failures();
  std::string s = (md ? "## " : "") + std::string("kvplan check ") + r.source + ": " +
                  std::to_string(n) + " deployment" + (n == 1 ? "" : "s") + ", " +
                  std::to_string(n - failed) + " pass, " + std::to_string(failed) + " fail" +
                  (r.skipped.empty() ? "" : ", " + std::to_string(r.skipped.size()) + " skipped") +
                  "\n";
  for (const auto& c : r.checks) {
    s += std::string("\n") + (md ? "### " : "== ") + header_of(c) + (md ? "" : " ==") + "\n";
    s += std::string(md ? "\n`" : "") + c.manifest.command_line + (md ? "`\n" : "") + "\n";
    std::string one = render(c.report, md ? OutputFormat::md : OutputFormat::table);
    if (md && one.rfind("### ", 0) == 0) one = "#### " + one.substr(4);
    s += std::string(md ? "\n" : "") + one;
  }
  if (!r.skipped.empty()) {
    s += md ? "\n### Skipped\n\n" : "\nskipped:\n";
    for (const auto& k : r.skipped) s += "- " + k + "\n";
  }
  return s;
}

}  // namespace

std::string render(const ManifestReport& r, OutputFormat f) {
  if (f == OutputFormat::json) return render_json(r);
  if (f == OutputFormat::junit) return render_junit(r);
  return render_text(r, f == OutputFormat::md);
}

}  // namespace kvplan
