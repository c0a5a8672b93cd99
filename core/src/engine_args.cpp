#include "kvplan/engine_args.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "engine_config_yaml.hpp"
#include "engines/command_syntax.hpp"
#include "kvplan/checked.hpp"
#include "kvplan/deploy.hpp"
#include "kvplan/engine_rules.hpp"
#include "kvplan/error.hpp"
#include "kvplan/model_ref.hpp"
#include "kvplan/text_safe.hpp"
#include "spec_parse.hpp"

namespace kvplan {

namespace {

using detail::Field;
using detail::FlagSpec;

// An argv word argparse reads as an option rather than a value: "-" or "--" then a letter
// ("--tp", "-dcp"), not a negative number ("-1", "-0.5").
bool looks_like_flag(const std::string& w) {
  if (w.size() < 2 || w[0] != '-') return false;
  const char c = w[1] == '-' ? (w.size() > 2 ? w[2] : '\0') : w[1];
  return std::isalpha(static_cast<unsigned char>(c)) != 0;
}

std::string weight_dtype_of(const std::string& dtype, const std::string& source,
                            const std::string& field) {
  static const std::map<std::string, std::string> m = {
      {"half", "fp16"}, {"float16", "fp16"}, {"fp16", "fp16"},   {"bfloat16", "bf16"},
      {"bf16", "bf16"}, {"float", "fp32"},   {"float32", "fp32"}};
  if (dtype == "auto") return "";
  auto it = m.find(dtype);
  if (it == m.end())
    throw Error(source, field,
                "unknown dtype \"" + dtype +
                    "\" (expected auto, half, float16, bfloat16, "
                    "float, float32)");
  return it->second;
}

// Weight bytes of a quantization method; empty when kvplan does not know it.
std::string quantized_weight_dtype(const std::string& q) {
  if (q == "fp8" || q == "fbgemm_fp8" || q == "modelopt") return "fp8";
  if (q == "awq" || q == "gptq" || q == "awq_marlin" || q == "gptq_marlin" || q == "bitsandbytes" ||
      q == "w4a16")
    return "int4";
  if (q == "w8a8_int8" || q == "int8") return "int8";
  return "";
}

// A flag whose value is a JSON object (argparse's json.loads in vLLM's arg_utils.py).
nlohmann::json json_object_flag(const std::string& value, const std::string& source,
                                const std::string& flag) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(value);
  } catch (const nlohmann::json::exception&) {
    throw Error(source, flag, "expects a JSON object, got " + value.substr(0, 80));
  }
  if (!j.is_object())
    throw Error(source, flag, "expects a JSON object, got " + value.substr(0, 80));
  return j;
}

// vLLM's ModelConfig.__post_init__ (v0.10, vllm/config/__init__.py) adds --rope-scaling to the
// --hf-overrides as {"rope_scaling": ...}, after them, so it wins; both change the config before
// the model's positions are derived (kvplan::apply_hf_overrides).
void merge_config_overrides(nlohmann::json hf, const nlohmann::json& rope, EngineArgs& a) {
  if (hf.is_null() && rope.is_null()) return;
  if (hf.is_null()) hf = nlohmann::json::object();
  std::string flags = hf.empty() ? "" : "--hf-overrides";
  if (!rope.is_null()) {
    hf["rope_scaling"] = rope;
    flags += std::string(flags.empty() ? "" : " and ") + "--rope-scaling";
  }
  a.hf_overrides = hf.dump();
  a.hf_overrides_flag = flags;
}

}  // namespace

std::uint64_t parse_human_int(const std::string& text, std::uint64_t min, std::uint64_t max,
                              const std::string& source, const std::string& field) {
  // vLLM's human_readable_int (vllm/engine/arg_utils.py): a number with k/m/g/t (powers of
  // 1000, decimals allowed) or K/M/G/T (powers of 1024, whole numbers only), or a plain integer.
  if (text.empty()) throw Error(source, field, "expects a number, got an empty value");
  const char last = text.back();
  static const std::string decimal_suffixes = "kmgt", binary_suffixes = "KMGT";
  const auto d = decimal_suffixes.find(last), b = binary_suffixes.find(last);
  if (d == std::string::npos && b == std::string::npos)
    return detail::parse_uint(text, min, max, source, field);
  const std::string number = text.substr(0, text.size() - 1);
  const auto dot = number.find('.');
  if (dot != std::string::npos && b != std::string::npos)
    throw Error(source, field,
                "decimals are not allowed with the binary suffix " + std::string(1, last) + " (" +
                    text + "); did you mean " + number + static_cast<char>(std::tolower(last)) +
                    "?");
  const std::string whole = number.substr(0, dot),
                    frac = dot == std::string::npos ? "" : number.substr(dot + 1);
  if (whole.empty() || whole.find_first_not_of("0123456789") != std::string::npos ||
      frac.find_first_not_of("0123456789") != std::string::npos || frac.size() > 12)
    throw Error(source, field, "expected a number like 32k, 32K or 32768, got '" + text + "'");
  const std::uint64_t scale = d != std::string::npos ? std::uint64_t{1000} << 0 : 1024;
  const unsigned power = static_cast<unsigned>(d != std::string::npos ? d + 1 : b + 1);
  std::uint64_t mult = 1;
  for (unsigned k = 0; k < power; ++k) mult = kvplan::mul(mult, scale, field);
  const std::uint64_t w = detail::parse_uint(whole, 0, max, source, field);
  std::uint64_t v = kvplan::mul(w, mult, field);
  if (!frac.empty()) {
    // int(float(number) * mult), exactly for the digits given (truncated like int()).
    std::uint64_t f = 0, den = 1;
    for (char c : frac) f = f * 10 + static_cast<std::uint64_t>(c - '0'), den *= 10;
    v = kvplan::add(v, static_cast<std::uint64_t>(static_cast<long double>(f) * mult / den), field);
  }
  if (v < min || v > max)
    throw Error(source, field,
                "must be between " + std::to_string(min) + " and " + std::to_string(max) +
                    ", got " + text + " = " + std::to_string(v));
  return v;
}

namespace {

// POSIX shell word splitting (XCU 2.2 Quoting, 2.3 Token Recognition), without expansions:
// backslash quotes the next character (backslash-newline is a line continuation); inside '...'
// everything is literal; inside "..." a backslash quotes only $ ` " \ and newline and is kept
// before anything else; a word starting with # starts a comment up to the newline. One pass over
// the bytes, so time is linear in the length, which is bounded. Each step reads from byte i and
// returns the last byte it used.
class ShellWords {
 public:
  ShellWords(const std::string& line, const std::string& source) : line_(line), source_(source) {}

  std::vector<std::string> split() {
    for (std::size_t i = 0; i < line_.size(); ++i) i = step(i);
    if (in_word_) out_.push_back(cur_);
    return out_;
  }

 private:
  std::size_t step(std::size_t i) {
    const char c = line_[i];
    if (c == '\\') return backslash(i);
    if (c == '\'') return single_quoted(i);
    if (c == '"') return double_quoted(i);
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_word_) out_.push_back(cur_), cur_.clear(), in_word_ = false;
      return i;
    }
    if (c == '#' && !in_word_) {  // a comment, up to the newline
      while (i + 1 < line_.size() && line_[i + 1] != '\n') ++i;
      return i;
    }
    if ((c == '&' || c == '|' || c == ';') &&
        !(c == '&' && i > 0 && (line_[i - 1] == '>' || line_[i - 1] == '<')))
      control_operator(i);
    add(c);
    return i;
  }

  void add(char c) {
    cur_ += c;
    in_word_ = true;
  }

  // A continuation: backslash then newline (or CR LF, as pasted from a Windows file): its bytes.
  std::size_t continuation(std::size_t i) const {
    const std::size_t n = line_.size();
    if (i + 1 < n && line_[i + 1] == '\n') return 2;
    if (i + 2 < n && line_[i + 1] == '\r' && line_[i + 2] == '\n') return 3;
    return 0;
  }

  std::size_t backslash(std::size_t i) {
    if (const std::size_t skip = continuation(i)) return i + skip - 1;
    if (i + 1 < line_.size()) {
      add(line_[i + 1]);
      return i + 1;
    }
    add('\\');  // a trailing backslash stands for itself
    return i;
  }

  std::size_t single_quoted(std::size_t start) {
    std::size_t i = start + 1;
    for (; i < line_.size() && line_[i] != '\''; ++i) cur_ += line_[i];
    if (i == line_.size()) unterminated('\'', start);
    in_word_ = true;
    return i;
  }

  std::size_t double_quoted(std::size_t start) {
    const std::size_t n = line_.size();
    std::size_t i = start + 1;
    for (; i < n && line_[i] != '"'; ++i) {
      if (line_[i] == '\\' && i + 1 < n) {
        if (const std::size_t skip = continuation(i)) {
          i += skip - 1;
          continue;
        }
        const char e = line_[i + 1];
        if (e == '$' || e == '`' || e == '"' || e == '\\') {
          cur_ += e;
          ++i;
          continue;
        }
      }
      cur_ += line_[i];
    }
    if (i == n) unterminated('"', start);
    in_word_ = true;
    return i;
  }

  [[noreturn]] void unterminated(char quote, std::size_t start) const {
    throw Error(source_, "",
                std::string("unterminated ") + quote +
                    " quote in the command line (opened at byte " + std::to_string(start) + ")");
  }

  // A control operator (XCU 2.9.3 lists, 2.9.2 pipelines): `A && B` is two commands, and which
  // one serves is the shell's business; `2>&1` is a redirection and stays a word.
  [[noreturn]] void control_operator(std::size_t i) const {
    const char c = line_[i];
    const std::string op =
        i + 1 < line_.size() && line_[i + 1] == c ? std::string(2, c) : std::string(1, c);
    throw Error(source_, op,
                "the command line runs more than one command (unquoted " + op + " at byte " +
                    std::to_string(i) + "): give the engine's command alone");
  }

  const std::string& line_;
  const std::string& source_;
  std::vector<std::string> out_;
  std::string cur_;
  bool in_word_ = false;
};

}  // namespace

std::vector<std::string> split_command_line(const std::string& line, const std::string& source) {
  constexpr std::size_t kMaxCommandLine = 1u << 20;
  if (line.size() > kMaxCommandLine)
    throw Error(source, "",
                "command line is " + std::to_string(line.size()) + " bytes, over the limit of " +
                    std::to_string(kMaxCommandLine));
  return ShellWords(line, source).split();
}

namespace {

// A ratio in (0, 100] to ppm (SGLang's --mamba-full-memory-ratio is mamba : KV bytes, may pass 1).
std::uint32_t ratio_ppm(const std::string& value, const std::string& source,
                        const std::string& flag) {
  const auto dot = value.find('.');
  const std::string whole = value.substr(0, dot);
  const std::uint64_t w = whole.empty() ? 0 : detail::parse_uint(whole, 0, 100, source, flag);
  std::uint64_t ppm = w * 1000000;
  if (dot != std::string::npos) {
    const std::string frac = value.substr(dot + 1);
    if (frac.empty() || frac.size() > 6)
      throw Error(source, flag, "expects a ratio with at most 6 decimals, got " + value);
    ppm += detail::parse_uint(frac + std::string(6 - frac.size(), '0'), 0, 999999, source, flag);
  }
  if (ppm == 0 || ppm > 100000000)
    throw Error(source, flag, "must be a ratio in (0, 100], got " + value);
  return static_cast<std::uint32_t>(ppm);
}

// vLLM --config FILE: the file's options go right after `serve MODEL` (or first), before the
// command line's own flags, so that the command line wins (argparse keeps the last value).
void splice_config_file(std::vector<std::string>& t, std::size_t first, const EngineRules& rules,
                        const std::string& source, EngineArgs& a) {
  std::optional<std::size_t> at;
  std::string path;
  for (std::size_t k = first; k < t.size(); ++k) {
    if (t[k] != "--config" && t[k].rfind("--config=", 0) != 0) continue;
    if (at) throw Error(source, "--config", "more than one config file given");
    at = k;
  }
  if (!at) return;
  std::size_t erase = 1;
  if (t[*at] == "--config") {
    if (*at + 1 >= t.size()) throw Error(source, "--config", "expects a file");
    path = t[*at + 1];
    erase = 2;
  } else {
    path = t[*at].substr(9);
  }
  t.erase(t.begin() + static_cast<std::ptrdiff_t>(*at),
          t.begin() + static_cast<std::ptrdiff_t>(*at + erase));
  std::vector<std::string> lists;
  const auto args = detail::vllm_config_args(path, &lists);
  // A list becomes `--key item item`: argparse takes one item for a single-valued option and
  // refuses the rest as unrecognized arguments.
  for (const auto& key : lists) {
    std::string norm = "--" + key;
    std::replace(norm.begin() + 2, norm.end(), '_', '-');
    const auto& specs = *rules.command_syntax().flags;
    auto it = std::find_if(specs.begin(), specs.end(), [&](auto& s) { return norm == s.name; });
    if (it != specs.end() && it->field != Field::multi_value &&
        it->field != Field::not_modelled_multi)
      throw Error(path, key,
                  "is a single value for " + rules.label() + " (" + norm +
                      "), got a list: argparse would refuse the extra items");
  }
  t.insert(t.begin() + static_cast<std::ptrdiff_t>(first), args.begin(), args.end());
  a.config_files.push_back(path);
}

// trtllm-serve --extra_llm_api_options FILE: the LLM-API keys kvplan models; the rest are
// named as ignored, not modelled or unknown.
void apply_llm_api_yaml(const std::string& path, EngineArgs& a, std::optional<std::string>& dtype) {
  for (const auto& e : detail::flatten_yaml_map(path)) {
    const std::string& k = e.key;
    auto one = [&]() -> const std::string& {
      if (e.list || e.values.size() != 1) throw Error(path, k, "expects a single value");
      return e.values[0];
    };
    auto uint = [&](std::uint64_t min, std::uint64_t max) {
      return detail::parse_uint(one(), min, max, path, k);
    };
    auto yes = [&]() {
      const std::string& v = one();
      if (v != "true" && v != "false") throw Error(path, k, "expects true or false, got " + v);
      return v == "true";
    };
    if (k == "tensor_parallel_size") {
      a.tp = static_cast<std::uint32_t>(uint(1, 4096));
    } else if (k == "pipeline_parallel_size") {
      a.pp = static_cast<std::uint32_t>(uint(1, 4096));
    } else if (k == "max_batch_size") {
      a.max_num_seqs = uint(1, std::uint64_t{1} << 32);
    } else if (k == "max_num_tokens") {
      a.max_num_batched_tokens = uint(1, std::uint64_t{1} << 40);
    } else if (k == "max_seq_len") {
      a.max_model_len = uint(1, std::uint64_t{1} << 40);
    } else if (k == "backend") {
      a.trtllm_backend = one();
    } else if (k == "moe_expert_parallel_size") {
      a.ep_size = static_cast<std::uint32_t>(uint(1, 4096));
      a.ep_size_flag = k;
    } else if (k == "max_beam_width") {
      a.max_beam_width = static_cast<std::uint32_t>(uint(1, 1024));
    } else if (k == "dtype") {
      // BaseLlmArgs.dtype, "auto" by default: the compute dtype, as vLLM's --dtype.
      dtype = weight_dtype_of(one(), path, k);
    } else if (k == "kv_cache_config.mamba_ssm_cache_dtype") {
      a.ssm_state_dtype = parse_state_dtype(one(), true, path, k);
    } else if (k == "kv_cache_config.free_gpu_memory_fraction") {
      a.memory_fraction_ppm = detail::parse_ppm(one(), path, k);
    } else if (k == "kv_cache_config.max_tokens") {
      a.max_total_tokens = uint(1, std::uint64_t{1} << 40);
    } else if (k == "kv_cache_config.tokens_per_block") {
      a.block_size = static_cast<std::uint32_t>(uint(1, 1u << 20));
    } else if (k == "kv_cache_config.dtype") {
      a.kv_cache_dtype = one();
    } else if (k == "kv_cache_config.max_attention_window") {
      a.max_attention_window.clear();
      for (const auto& v : e.values)
        a.max_attention_window.push_back(detail::parse_uint(v, 1, std::uint64_t{1} << 40, path, k));
      if (a.max_attention_window.empty()) throw Error(path, k, "expects at least one window");
    } else if (k == "kv_cache_config.enable_block_reuse") {
      // Prefix reuse; for a hybrid Mamba model it also turns its state snapshots on.
      a.enable_block_reuse = yes();
    } else if (k == "kv_cache_config.block_reuse_config.policy") {
      // KvCacheConfig.disable_periodic_mamba_snapshots_for_conversations (llm_args.py@0004396720
      // 054fd8e205cbf616f21f0b57c6b412): per_conversation zeroes periodic_snapshot_interval.
      a.block_reuse_policy = ascii_lower(one());
    } else if (k == "kv_cache_config.enable_partial_reuse") {
      a.ignored.push_back(k + ": " + (yes() ? "true" : "false") + " (prefix reuse)");
    } else if (k == "kv_cache_config.mamba_state_config.periodic_snapshot_interval" ||
               k == "kv_cache_config.mamba_state_cache_interval") {
      // MambaStateConfig (llm_args.py@0004396720054fd8e205cbf616f21f0b57c6b412):
      // migrate_legacy_mamba_interval moves the deprecated key over and refuses both.
      if (a.snapshot_interval)
        throw Error(path, k,
                    "kv_cache_config.mamba_state_cache_interval is the deprecated name of "
                    "mamba_state_config.periodic_snapshot_interval; give one of them");
      a.snapshot_interval = uint(0, std::uint64_t{1} << 40);
    } else if (k == "kv_cache_config.mamba_state_config.additional_snapshot_offsets_from_start" ||
               k == "kv_cache_config.mamba_state_config.additional_snapshot_offsets_from_end") {
      const bool start = k.ends_with("_start");
      auto& offsets = start ? a.snapshot_offsets_from_start : a.snapshot_offsets_from_end;
      offsets.clear();
      if (e.values.size() > 4096) throw Error(path, k, "expects at most 4096 offsets");
      for (const auto& v : e.values)  // from the start: positive; from the end: 0 = the prompt's
        offsets.push_back(detail::parse_uint(v, start ? 1 : 0, std::uint64_t{1} << 40, path, k));
    } else if (k == "kv_cache_config.use_kv_cache_manager_v2") {
      // bool | "auto" (KvCacheConfig, tensorrt_llm/llmapi/llm_args.py@0004396720054fd8e205cbf616
      // f21f0b57c6b412); auto: the model class's preference (TrtllmOptions::kv_cache_manager_v2).
      if (one() == "auto")
        a.kv_cache_manager_v2.reset();
      else
        a.kv_cache_manager_v2 = yes();
    } else if (k == "kv_cache_config.avg_seq_len") {
      a.avg_seq_len = uint(1, std::uint64_t{1} << 40);
    } else if (k == "kv_cache_config.max_gpu_total_bytes") {
      const std::uint64_t b = uint(0, std::uint64_t{1} << 50);  // 0: not set
      a.max_gpu_total_bytes = b > 0 ? std::optional<std::uint64_t>(b) : std::nullopt;
    } else if (k == "kv_cache_config.host_cache_size") {
      a.host_tiers.host_cache_bytes = uint(0, std::uint64_t{1} << 50);
    } else if (k == "attention_dp_config.enable_balance") {
      a.adp_enable_balance = yes();
    } else if (k == "attention_dp_config.timeout_iters") {
      a.adp_timeout_iters = static_cast<std::uint32_t>(uint(0, 1u << 20));
    } else if (k == "attention_dp_config.batching_wait_iters") {
      a.adp_batching_wait_iters = static_cast<std::uint32_t>(uint(0, 1u << 20));
    } else if (k == "enable_attention_dp") {
      // One attention group a GPU of tp_size, the MoE layers over all of them (Mapping:
      // attn_tp_size 1 with enable_attention_dp, tensorrt_llm/mapping.py@cf44a1cc); the groups
      // are set once tp_size is known (finish_experts_and_beams).
      a.dp_attention = yes();
    } else if (k == "kv_cache_config.sink_token_length" || k == "context_parallel_size" ||
               k == "moe_cluster_parallel_size" || k == "kv_cache_config.cross_kv_cache_fraction" ||
               k.rfind("speculative_config", 0) == 0 || k.rfind("lora_config", 0) == 0 ||
               k == "enable_lora") {
      a.not_modelled.push_back(k + ": " + (e.values.empty() ? "" : e.values[0]));
    } else if (k.rfind("cuda_graph_config", 0) == 0 || k.rfind("moe_config", 0) == 0 ||
               k == "print_iter_log" || k == "enable_iter_perf_stats" ||
               k == "disable_overlap_scheduler" || k == "stream_interval" ||
               k == "trust_remote_code" || k == "gpus_per_node" || k == "enable_chunked_prefill") {
      a.ignored.push_back(k);
    } else {
      a.unknown.push_back(k + " (" + path + ")");
    }
  }
}

// LMCache's settings as its config reads them (lmcache/v1/config.py @ 3ecd72f8: the
// LMCACHE_<NAME> variables and the bare keys): local_cpu, max_local_cpu_size, max_local_disk_size.
void read_lmcache_setting(const std::string& key, const std::string& value, HostTierArgs& h,
                          const std::string& source) {
  if (key == "local_cpu") {
    std::string v = ascii_lower(value);
    if (v != "true" && v != "false" && v != "1" && v != "0")
      throw Error(source, key, "expected true or false, got \"" + value + "\"");
    h.lmcache_local_cpu = v == "true" || v == "1";
  } else if (key == "max_local_cpu_size") {
    h.lmcache_cpu_gib = detail::parse_real(value, 0, 1 << 20, source, key);
  } else if (key == "max_local_disk_size") {
    h.lmcache_disk_gib = detail::parse_real(value, 0, 1 << 30, source, key);
  }
}

// VAR=value before the command (or docker's -e VAR=value): the LMCache variables and vLLM's
// VLLM_USE_V2_MODEL_RUNNER (vllm/envs.py: unset = the release's default runner, else a bool).
void read_env_assignment(const std::string& word, EngineArgs& a, const std::string& source) {
  const auto eq = word.find('=');
  // docker's -e VAR without a value passes the host's, which the command line does not show.
  if (eq == std::string::npos && word == "VLLM_USE_V2_MODEL_RUNNER")
    throw Error(source, word,
                "has no value here (docker passes the host's): write VLLM_USE_V2_MODEL_RUNNER=0 "
                "or =1");
  if (eq == std::string::npos) return;
  const std::string var = word.substr(0, eq), value = ascii_lower(word.substr(eq + 1));
  if (var == "VLLM_USE_V2_MODEL_RUNNER") {
    if (value == "1" || value == "true") {
      a.model_runner_v2 = true;
    } else if (value == "0" || value == "false") {
      a.model_runner_v2 = false;
    } else {
      throw Error(source, var,
                  "expects 0 or 1 (or true / false), got \"" + word.substr(eq + 1) + "\"");
    }
    return;
  }
  if (var.rfind("LMCACHE_", 0) != 0) return;
  const std::string key = ascii_lower(var.substr(8));
  read_lmcache_setting(key, word.substr(eq + 1), a.host_tiers, source + " " + var);
}

// vLLM --kv-transfer-config: an LMCache connector (LMCacheConnectorV1 and its variants) runs
// LMCache in every worker, its kv_connector_extra_config "lmcache.<key>" settings beside the
// variables; OffloadingConnector's cpu_bytes_to_use is --kv-offloading-size in bytes
// (vllm/config/vllm.py @ 000fc94b, _post_init_kv_transfer_config).
void read_kv_transfer_config(const nlohmann::json& j, HostTierArgs& h, const std::string& source,
                             const std::string& flag) {
  if (!j.contains("kv_connector") || !j["kv_connector"].is_string()) return;
  const std::string connector = j["kv_connector"].get<std::string>();
  h.kv_connector = connector;
  const nlohmann::json extra = j.value("kv_connector_extra_config", nlohmann::json::object());
  if (!extra.is_object())
    throw Error(source, flag + " kv_connector_extra_config", "expects a JSON object");
  auto text = [](const nlohmann::json& v) {
    return v.is_string() ? v.get<std::string>() : v.dump();
  };
  if (connector.find("LMCache") != std::string::npos) {
    h.lmcache = true;
    for (const auto& [k, v] : extra.items())
      if (k.rfind("lmcache.", 0) == 0)
        read_lmcache_setting(k.substr(8), text(v), h, source + " " + flag + " " + k);
  } else if (connector == "OffloadingConnector" && extra.contains("cpu_bytes_to_use")) {
    const std::uint64_t bytes =
        detail::parse_uint(text(extra["cpu_bytes_to_use"]), 1, std::uint64_t{1} << 50, source,
                           flag + " cpu_bytes_to_use");
    h.kv_offloading_gib = static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0);
  }
}

// What the command line and its LLM-API file say together about experts and beams (trtllm-serve's
// --ep_size, SGLang's --ep-size and --max_beam_width).
void finish_experts_and_beams(EngineArgs& a, const std::string& source) {
  // TensorRT-LLM's attention DP: a group a GPU (SGLang says its groups with --dp).
  if (a.engine == Engine::trtllm && a.dp_attention && a.tp.value_or(1) > 1) a.dp = a.tp;
  if (a.ep_size) {
    // Mapping (tensorrt_llm/mapping.py @ cf44a1ccee7dd3381a7b4c49a8318c0c3ae4426b): moe_tp ×
    // moe_ep × moe_cluster = the MoE world of the tp_size GPUs, so each GPU holds 1 / tp_size of
    // the experts either way; EP only regroups them. SGLang's ep_size is the same split of its
    // --tp GPUs (moe_tp = tp / ep).
    const std::string& flag = a.ep_size_flag.empty() ? std::string("--ep-size") : a.ep_size_flag;
    const std::uint32_t tp = a.tp.value_or(1), ep = *a.ep_size;
    if (ep > tp || tp % ep != 0)
      throw Error(source, flag,
                  "expert parallelism " + std::to_string(ep) +
                      " must divide the tensor parallelism " + std::to_string(tp) +
                      " (the experts spread over the tensor-parallel GPUs)");
    // Whole experts over the TP group (ep = tp): the step time's busiest rank
    // (StepModelInput::ep); part of it: costed as TP-sharded experts, memory alike (unless
    // another flag already asks for expert parallelism: --enable-ep-moe). Under DP attention
    // it is the MoE layers' own split (PlanInput::moe_ep, deploy.cpp engine_shape).
    const bool dp_attention = a.dp_attention && a.dp && *a.dp > 1;
    if (ep == tp && ep > 1 && !dp_attention)
      a.expert_parallel = true;
    else if (ep > 1 && !a.expert_parallel && !dp_attention)
      a.ignored.push_back(flag + " " + std::to_string(ep) + " (the experts spread over the " +
                          std::to_string(tp) +
                          " GPUs either way; the step time costs them as tensor-parallel)");
  }
  if (a.max_beam_width && *a.max_beam_width > 1)
    a.not_modelled.push_back("--max_beam_width " + std::to_string(*a.max_beam_width) +
                             " (each beam of a request holds its own blocks)");
}

// What a command line's flags say beside EngineArgs, settled once the last flag is read.
struct CommandState {
  std::string positional;  // `vllm serve MODEL`: wins over --model, as vLLM's serve does
  std::optional<std::string> dtype, quantization;  // the last of each wins
  nlohmann::json hf_overrides, rope_scaling;       // vLLM's config overrides, the last of each
};

// `docker run [options] IMAGE [args]` (or podman): `i` moves past the image, docker's -e
// LMCACHE_* are read. True when the image is one whose entrypoint is the engine's server
// (vLLM's: MODEL and flags follow); another image runs the command that follows it.
bool skip_docker_run(const std::vector<std::string>& t, std::size_t& i,
                     const detail::CommandSyntax& syntax, EngineArgs& a,
                     const std::string& source) {
  if (!(i + 1 < t.size() && (t[i] == "docker" || t[i] == "podman") && t[i + 1] == "run"))
    return false;
  i += 2;
  static const char* const kDockerValued[] = {
      "-p",        "--publish",    "-v",         "--volume",  "-e",        "--env",    "--name",
      "--gpus",    "--ipc",        "--shm-size", "--runtime", "--network", "--net",    "-w",
      "--workdir", "--entrypoint", "--env-file", "-u",        "--user",    "--ulimit", "--device",
      "--mount",   "--platform",   "--cpus",     "--memory",  "-m"};
  while (i < t.size() && t[i][0] == '-') {
    const std::string f = t[i].substr(0, t[i].find('='));
    if ((f == "-e" || f == "--env") && i + 1 < t.size() && t[i].find('=') == std::string::npos)
      read_env_assignment(t[i + 1], a, source);
    else if (f == "-e" || f == "--env")  // --env=VAR=value, as docker also takes it
      read_env_assignment(t[i].substr(t[i].find('=') + 1), a, source);
    const bool valued =
        t[i].find('=') == std::string::npos &&
        std::find(std::begin(kDockerValued), std::end(kDockerValued), f) != std::end(kDockerValued);
    i += valued ? 2 : 1;
  }
  if (i >= t.size()) throw Error(source, "", "docker run names no image");
  const std::string image = t[i++];
  a.image = image;
  const auto& images = syntax.server_images;
  const bool server_image = std::any_of(images.begin(), images.end(), [&](const std::string& n) {
    return image.find(n) != std::string::npos;
  });
  // The command after the image starts the engine (a program as written or by path, python -m
  // MODULE), or names its program without the subcommand (read_entry_point says what it needs).
  const bool runs_program =
      detail::starts_engine(syntax, t, i) ||
      (i < t.size() && std::any_of(syntax.programs.begin(), syntax.programs.end(),
                                   [&](const detail::EntryPoint& e) {
                                     return detail::is_program(t[i], e.program);
                                   }));
  if (!images.empty() && !server_image && !runs_program) {
    std::string listed;
    for (const std::string& n : images) listed += (listed.empty() ? "" : " or ") + n;
    throw Error(source, "",
                "docker image \"" + image + "\" is not " + listed + " and runs no " +
                    syntax.programs.front().program);
  }
  return server_image;
}

// The engine's entry point (python -m MODULE, one of syntax.programs, or a server image's
// arguments): `i` moves to the first flag; a positional model goes to `positional`.
void read_entry_point(const std::vector<std::string>& t, std::size_t& i,
                      const detail::CommandSyntax& syntax, bool server_image,
                      const std::string& line, const std::string& source, std::string& positional) {
  const std::string got = syntax.usage + ", got \"" + line.substr(0, 80) + "\"";
  auto take_positional = [&] {
    if (i < t.size() && t[i][0] != '-') positional = t[i++];
  };
  if (const auto entry = detail::match_entry_point(syntax, t, i)) {
    i += entry->words;
    if (entry->positional_model) take_positional();
    return;
  }
  if (!syntax.python_module.empty() && detail::runs_python_module(t, i))
    throw Error(source, "", "unexpected module \"" + t[i + 2] + "\": " + syntax.usage);
  if (!server_image) throw Error(source, "", got);
  take_positional();  // the image's entrypoint is the server: MODEL and flags follow
}

// One option of the command line as argparse reads it: its name as written and normalized,
// its value (the next words where it takes them), and what kvplan knows of it.
struct FlagWord {
  std::string flag;     // as written, without "=value"
  std::string norm;     // '_' as '-' after the leading dashes
  std::string sub_key;  // vLLM --speculative-config.KEY: the key
  std::string value;
  const FlagSpec* spec = nullptr;  // null: unknown to kvplan
  bool takes_value = false;
};

bool is_switch(Field f) {
  return f == Field::ignored_bool || f == Field::not_modelled_bool || f == Field::expert_parallel ||
         f == Field::dp_attention || f == Field::enforce_eager || f == Field::disable_hybrid_swa ||
         f == Field::disable_hybrid_kv || f == Field::hicache || f == Field::disable_overlap ||
         f == Field::async_scheduling || f == Field::disable_radix_cache ||
         f == Field::linear_replayssm_spec || f == Field::decode_radix_cache;
}

// The option at t[i] (a flag word): `i` ends on its last word.
FlagWord read_flag_word(const std::vector<std::string>& t, std::size_t& i,
                        const detail::CommandSyntax& syntax, const std::string& source) {
  const std::vector<FlagSpec>& specs = *syntax.flags;
  FlagWord w;
  w.flag = t[i];
  bool has_value = false;
  if (auto eq = w.flag.find('='); eq != std::string::npos) {
    w.value = w.flag.substr(eq + 1);
    w.flag = w.flag.substr(0, eq);
    has_value = true;
  }
  // Both spellings are accepted by vLLM's and SGLang's argparse: --max_model_len too.
  w.norm = w.flag;
  std::replace(w.norm.begin() + std::min<std::size_t>(2, w.norm.size()), w.norm.end(), '_', '-');
  // vLLM's dotted sub-flags (--speculative-config.method mtp) set one key of a JSON flag.
  if (const std::string& dotted = syntax.dotted_json_flag;
      !dotted.empty() && w.norm.rfind(dotted + ".", 0) == 0) {
    w.sub_key = w.norm.substr(dotted.size() + 1);
    std::replace(w.sub_key.begin(), w.sub_key.end(), '-', '_');
    w.norm = dotted;
  }
  auto it = std::find_if(specs.begin(), specs.end(), [&](auto& s) { return w.norm == s.name; });
  if (it != specs.end()) w.spec = &*it;
  w.takes_value =
      w.spec ? !is_switch(w.spec->field) : (has_value || (i + 1 < t.size() && t[i + 1][0] != '-'));
  // A switch takes no value: argparse refuses `--enforce-eager=false` ("ignored explicit
  // argument") rather than reading it as off.
  if (w.spec && !w.takes_value && has_value)
    throw Error(source, w.flag, "is a switch and takes no value, got \"" + w.value + "\"");
  const bool multi =
      w.spec && (w.spec->field == Field::multi_value || w.spec->field == Field::not_modelled_multi);
  if (w.takes_value && !has_value) {
    // argparse never takes a flag as an option's value: `--max-model-len --tp 2` is an error,
    // and a nargs="*" list may be empty (SGLang `--lora-target-modules --tp 8`). A negative
    // number is a value (`--chunked-prefill-size -1`).
    const bool next_is_flag = i + 1 < t.size() && looks_like_flag(t[i + 1]);
    if (multi && next_is_flag) {
      w.value.clear();
    } else {
      if (i + 1 >= t.size() || next_is_flag) throw Error(source, w.flag, "expects a value");
      w.value = t[++i];
    }
  }
  if (multi && !w.value.empty()) {
    // nargs="+": every following word up to the next flag (SGLang --cuda-graph-bs 8 16 32).
    while (i + 1 < t.size() && !t[i + 1].empty() && t[i + 1][0] != '-') w.value += " " + t[++i];
  }
  return w;
}

// vLLM's SpeculativeConfig (vllm/config/speculative.py at
// vllm-project/vllm@002e77c1f0ef9b19cff8b9e21cfbd6feb3d6b443): every field, with the type pydantic
// validates it as. An unknown key is a validation error: the @config decorator makes every config
// a pydantic dataclass with extra="forbid" since vllm-project/vllm#31541 (merged 2025-12-30;
// before it SpeculativeConfig ignored unknown keys).
enum class SpecType {
  str,       // str | None, or a Literal of strings
  integer,   // int; `min` is its Field(ge=...) bound
  boolean,   // bool
  number,    // float
  list,      // list[...]: checked as a list, not element by element
  object,    // a nested config (LoadConfig)
  anything,  // SkipValidation[...]: the engine fills these in itself
};

struct SpecKey {
  const char* name;
  SpecType type;
  bool nullable;
  std::int64_t min = std::numeric_limits<std::int64_t>::min();  // integers: the least allowed
};

const std::vector<SpecKey>& speculative_keys() {
  static const std::vector<SpecKey> keys = {
      {"enforce_eager", SpecType::boolean, true},
      {"num_speculative_tokens", SpecType::integer, false, 1},  // Field(gt=0)
      {"model", SpecType::str, true},
      {"method", SpecType::str, true},
      {"draft_tensor_parallel_size", SpecType::integer, true, 1},
      {"tensor_parallel_size", SpecType::integer, true},
      {"quantization", SpecType::str, true},
      {"moe_backend", SpecType::str, true},
      {"attention_backend", SpecType::str, true},
      {"kv_cache_dtype", SpecType::str, true},
      {"max_model_len", SpecType::integer, true, 1},
      {"revision", SpecType::str, true},
      {"code_revision", SpecType::str, true},
      {"index_share_for_mtp_iteration", SpecType::boolean, true},
      {"disable_padded_drafter_batch", SpecType::boolean, false},
      {"disable_eagle_block_drop", SpecType::boolean, false},
      {"use_local_argmax_reduction", SpecType::boolean, false},
      {"use_heterogeneous_vocab", SpecType::boolean, false},
      {"prompt_lookup_max", SpecType::integer, true, 1},
      {"prompt_lookup_min", SpecType::integer, true, 1},
      {"parallel_drafting", SpecType::boolean, false},
      {"target_model_config", SpecType::anything, true},
      {"target_parallel_config", SpecType::anything, true},
      {"num_speculative_tokens_per_batch_size", SpecType::list, true},
      {"draft_model_config", SpecType::anything, true},
      {"draft_parallel_config", SpecType::anything, true},
      {"suffix_decoding_max_tree_depth", SpecType::integer, false},
      {"suffix_decoding_max_cached_requests", SpecType::integer, false},
      {"suffix_decoding_max_spec_factor", SpecType::number, false},
      {"suffix_decoding_min_token_prob", SpecType::number, false},
      {"draft_load_config", SpecType::object, true},
      {"rejection_sample_method", SpecType::str, false},
      {"synthetic_acceptance_rates", SpecType::list, true},
      {"synthetic_acceptance_length", SpecType::number, true},
      {"enable_adaptive_verification", SpecType::boolean, false},
      {"draft_sample_method", SpecType::str, false},
      {"dspark_draft_topk", SpecType::integer, true, 1},
  };
  return keys;
}

// Levenshtein distance, for "did you mean": keys are short, so the quadratic table is fine.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1] ? 1 : 0)});
      diag = up;
    }
  }
  return row[b.size()];
}

// The real key a typo most likely meant: the closest within a third of the longer name's length
// in edits (num_spec_tokens: num_speculative_tokens; `tokens` is too far to guess).
std::string nearest_speculative_key(const std::string& key) {
  std::string best;
  std::size_t best_distance = std::string::npos;
  for (const SpecKey& k : speculative_keys()) {
    const std::size_t d = edit_distance(key, k.name);
    const std::size_t near =
        std::max<std::size_t>(2, std::max(key.size(), std::strlen(k.name)) / 3);
    if (d <= near && d < best_distance) best = k.name, best_distance = d;
  }
  return best;
}

std::string json_text(const nlohmann::json& v) {
  return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).substr(0, 80);
}

// `v` as pydantic's lax mode (its default, which vLLM does not change) validates it for a field
// of type `t`, or nothing when it refuses it (the conversion table,
// docs.pydantic.dev/latest/concepts/conversion_table/): an int from a whole number, a float with
// no fraction, a decimal string ("3", " -2 ") or a bool; a bool from true/false, 0 or 1, or
// one of 0 off f false n no 1 on t true y yes (any case); a float from a number, a bool or a
// decimal string; a str only from a string.
std::optional<nlohmann::json> lax_value(SpecType t, const nlohmann::json& v) {
  const auto trimmed = [](std::string x) {
    const auto first = x.find_first_not_of(" \t\n\r");
    if (first == std::string::npos) return std::string();
    return x.substr(first, x.find_last_not_of(" \t\n\r") - first + 1);
  };
  switch (t) {
    case SpecType::integer: {
      if (v.is_number_integer()) return v;
      if (v.is_boolean()) return nlohmann::json(v.get<bool>() ? 1 : 0);
      if (v.is_number_float()) {
        const double d = v.get<double>();
        if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18)
          return nlohmann::json(static_cast<std::int64_t>(d));
        return std::nullopt;
      }
      if (!v.is_string()) return std::nullopt;
      const std::string x = trimmed(v.get<std::string>());
      const std::size_t digits = !x.empty() && (x[0] == '+' || x[0] == '-') ? 1 : 0;
      if (x.size() == digits || x.size() > digits + 18 ||
          !std::all_of(x.begin() + static_cast<std::ptrdiff_t>(digits), x.end(),
                       [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
      return nlohmann::json(std::stoll(x));
    }
    case SpecType::boolean: {
      if (v.is_boolean()) return v;
      if (v.is_number()) {
        const double d = v.get<double>();
        if (d == 0 || d == 1) return nlohmann::json(d == 1);
        return std::nullopt;
      }
      if (!v.is_string()) return std::nullopt;
      const std::string x = ascii_lower(v.get<std::string>());
      for (const char* no : {"0", "off", "f", "false", "n", "no"})
        if (x == no) return nlohmann::json(false);
      for (const char* yes : {"1", "on", "t", "true", "y", "yes"})
        if (x == yes) return nlohmann::json(true);
      return std::nullopt;
    }
    case SpecType::number: {
      if (v.is_number()) return v;
      if (v.is_boolean()) return nlohmann::json(v.get<bool>() ? 1.0 : 0.0);
      if (!v.is_string()) return std::nullopt;
      const std::string x = trimmed(v.get<std::string>());
      char* end = nullptr;
      const double d = std::strtod(x.c_str(), &end);
      if (x.empty() || end != x.c_str() + x.size() || !std::isfinite(d)) return std::nullopt;
      return nlohmann::json(d);
    }
    case SpecType::str:
      return v.is_string() ? std::optional(v) : std::nullopt;
    case SpecType::list:
      return v.is_array() ? std::optional(v) : std::nullopt;
    case SpecType::object:
      return v.is_object() ? std::optional(v) : std::nullopt;
    case SpecType::anything:
      return v;
  }
  return std::nullopt;
}

// Why `v` is not a valid value of `key` (empty when it is), and `v` as validated.
std::string speculative_type_error(const SpecKey& key, nlohmann::json& v) {
  if (v.is_null()) return key.nullable || key.type == SpecType::anything ? "" : "must not be null";
  const std::optional<nlohmann::json> lax = lax_value(key.type, v);
  if (!lax) {
    switch (key.type) {
      case SpecType::str:
        return "must be a string (or null), got " + json_text(v);
      case SpecType::integer:
        return "must be a whole number, got " + json_text(v);
      case SpecType::boolean:
        return "must be true or false, got " + json_text(v);
      case SpecType::number:
        return "must be a number, got " + json_text(v);
      case SpecType::list:
        return "must be a list (or null), got " + json_text(v);
      case SpecType::object:
        return "must be a mapping (or null), got " + json_text(v);
      case SpecType::anything:
        return "";
    }
  }
  v = *lax;
  if (key.type == SpecType::integer) {
    const bool below = v.is_number_unsigned()
                           ? key.min > 0 && v.get<std::uint64_t>() < std::uint64_t(key.min)
                           : v.get<std::int64_t>() < key.min;
    if (below) return "must be at least " + std::to_string(key.min) + ", got " + json_text(v);
  }
  return "";
}

// Every key of the object is a SpeculativeConfig field of the right type, or an Error naming the
// flag and the key (and the real key a typo most likely meant).
void check_speculative_keys(nlohmann::json& j, const FlagWord& w, const std::string& source) {
  const auto& keys = speculative_keys();
  for (auto item : j.items()) {
    // Named, not a structured binding: clang 14 (the fuzz build's) cannot capture one in the
    // lambda below.
    const std::string name = item.key();
    nlohmann::json& value = item.value();
    // The dotted flag names its key already: --speculative-config.num_spec_tokens.
    const std::string field = w.sub_key.empty() ? w.flag + " " + name : w.flag;
    const auto it = std::find_if(keys.begin(), keys.end(), [&](auto& k) { return name == k.name; });
    if (it == keys.end()) {
      const std::string guess = nearest_speculative_key(name);
      throw Error(source, field,
                  "is not a field of vLLM's SpeculativeConfig (an unknown key is a validation "
                  "error)" +
                      (guess.empty() ? "" : "; did you mean " + guess + "?"));
    }
    if (const std::string why = speculative_type_error(*it, value); !why.empty())
      throw Error(source, field, why);
  }
}

// vLLM's FlexibleArgumentParser turns --speculative-config.KEY VALUE into {"KEY": VALUE}, the
// value read as JSON where it is JSON (3, true, null) and as a string otherwise
// (vllm/utils/argparse_utils.py); KEY.SUB nests, KEY+ appends to a list.
nlohmann::json dotted_speculative_config(const FlagWord& w) {
  std::string key = w.sub_key;
  nlohmann::json value;
  try {
    value = nlohmann::json::parse(w.value);
  } catch (const nlohmann::json::exception&) {
    value = w.value;
  }
  if (!key.empty() && key.back() == '+') {
    key.pop_back();
    value = nlohmann::json::array({value});
  }
  if (const auto dot = key.find('.'); dot != std::string::npos) {
    nlohmann::json nested;
    nested[key.substr(dot + 1)] = value;
    key = key.substr(0, dot);
    value = nested;
  }
  return nlohmann::json{{key, value}};
}

// vLLM --speculative-config: a JSON object, or one key of it (--speculative-config.KEY VALUE).
void read_speculative_config(const FlagWord& w, EngineArgs& a, const std::string& source) {
  const std::string& flag = w.flag;
  nlohmann::json j;
  if (!w.sub_key.empty()) {
    j = dotted_speculative_config(w);
  } else {
    try {
      j = nlohmann::json::parse(w.value);
    } catch (const nlohmann::json::exception&) {
      throw Error(source, flag, "expects a JSON object, got " + w.value.substr(0, 80));
    }
    if (!j.is_object()) throw Error(source, flag, "expects a JSON object");
  }
  check_speculative_keys(j, w, source);
  if (j.contains("method") && j["method"].is_string())
    a.speculative_method = ascii_lower(j["method"].get<std::string>());
  if (j.contains("model") && j["model"].is_string())
    a.speculative_model = j["model"].get<std::string>();
  if (a.speculative_method == "extract_hidden_states") {
    // ExtractHiddenStatesModel caches len(draft hf_config.eagle_aux_hidden_state_layer_ids)
    // hidden states a token (vllm/model_executor/models/extract_hidden_states.py@055e47c2).
    const nlohmann::json* ids = nullptr;
    if (j.contains("draft_model_config") && j["draft_model_config"].is_object()) {
      const auto& d = j["draft_model_config"];
      if (d.contains("hf_config") && d["hf_config"].is_object() &&
          d["hf_config"].contains("eagle_aux_hidden_state_layer_ids"))
        ids = &d["hf_config"]["eagle_aux_hidden_state_layer_ids"];
    }
    if (!ids || !ids->is_array() || ids->empty() || ids->size() > 4096)
      throw Error(source, flag + " draft_model_config",
                  "extract_hidden_states caches the layers of "
                  "draft_model_config.hf_config.eagle_aux_hidden_state_layer_ids: kvplan needs "
                  "that list (1 to 4096 layer ids) to size the cache");
    a.extract_hidden_states = static_cast<std::uint32_t>(ids->size());
  }
  if (j.contains("num_speculative_tokens")) {
    // kvplan's own bound: past 1024 draft tokens a step no engine schedules them.
    const auto& n = j["num_speculative_tokens"];
    const bool within =
        n.is_number_unsigned()
            ? n.get<std::uint64_t>() <= 1024
            : n.is_number_integer() && n.get<std::int64_t>() >= 1 && n.get<std::int64_t>() <= 1024;
    if (!within)
      throw Error(source, w.sub_key.empty() ? flag + " num_speculative_tokens" : flag,
                  "must be a whole number between 1 and 1024, got " + json_text(n));
    a.speculative_tokens = static_cast<std::uint32_t>(n.get<std::uint64_t>());
  }
}

// The parallel layout and the model: false when the flag is not one of them.
bool apply_layout_flag(const FlagWord& w, EngineArgs& a, const std::string& source) {
  const std::string& flag = w.flag;
  const std::string& value = w.value;
  auto uint = [&](std::uint64_t min, std::uint64_t max) {
    return detail::parse_uint(value, min, max, source, flag);
  };
  switch (w.spec->field) {
    case Field::model:
      a.model = value;
      break;
    case Field::tp:
      a.tp = static_cast<std::uint32_t>(uint(1, 4096));
      break;
    case Field::pp:
      a.pp = static_cast<std::uint32_t>(uint(1, 4096));
      break;
    case Field::dp:
      a.dp = static_cast<std::uint32_t>(uint(1, 4096));
      break;
    case Field::dcp:
      a.dcp = static_cast<std::uint32_t>(uint(1, 4096));
      break;
    case Field::expert_parallel:
      a.expert_parallel = true;
      break;
    case Field::dp_attention:
      a.dp_attention = true;
      break;
    default:
      return false;
  }
  return true;
}

// The memory, the lengths and the dtypes: false when the flag is not one of them.
bool apply_memory_flag(const FlagWord& w, EngineArgs& a, CommandState& st,
                       const detail::CommandSyntax& syntax, const std::string& source) {
  const std::string& flag = w.flag;
  const std::string& value = w.value;
  const bool human_ints = syntax.human_readable_ints;
  auto uint = [&](std::uint64_t min, std::uint64_t max) {
    return detail::parse_uint(value, min, max, source, flag);
  };
  auto human = [&](std::uint64_t min, std::uint64_t max) {
    return parse_human_int(value, min, max, source, flag);
  };
  auto count = [&] {
    return human_ints ? human(1, std::uint64_t{1} << 40) : uint(1, std::uint64_t{1} << 40);
  };
  switch (w.spec->field) {
    case Field::kv_cache_memory_bytes:
      a.kv_cache_memory_bytes = human(1, std::uint64_t{1} << 50);
      break;
    case Field::num_gpu_blocks_override:
      a.num_gpu_blocks_override = uint(1, std::uint64_t{1} << 40);
      break;
    case Field::attn_group_size:
      a.attn_group_size = static_cast<std::uint32_t>(uint(1, 1u << 20));
      break;
    case Field::max_model_len:
      // vLLM's human_readable_int_or_auto (vllm/engine/arg_utils.py): 32k = 32,000, 32K =
      // 32,768, -1 or auto = fit the memory.
      if (human_ints && (value == "-1" || value == "auto")) {
        a.max_model_len.reset();
        a.max_model_len_auto = true;
      } else {
        a.max_model_len = count();
        a.max_model_len_auto = false;
      }
      break;
    case Field::max_num_seqs:
      a.max_num_seqs = uint(1, std::uint64_t{1} << 32);
      break;
    case Field::max_num_batched_tokens:
      if (syntax.batched_tokens_minus_one_off && value == "-1") {
        a.max_num_batched_tokens.reset();  // SGLang: chunked prefill off
        a.ignored.push_back(flag + " -1 (chunked prefill off)");
      } else {
        a.max_num_batched_tokens = count();
      }
      break;
    case Field::fraction:
      a.memory_fraction_ppm = detail::parse_ppm(value, source, flag);
      break;
    case Field::block_size: {
      a.block_size = static_cast<std::uint32_t>(uint(1, 1u << 20));
      const auto& choices = syntax.block_sizes;  // the engine's argparse choices, if any
      if (!choices.empty() &&
          std::find(choices.begin(), choices.end(), *a.block_size) == choices.end()) {
        std::string listed;
        for (std::uint32_t c : choices) listed += (listed.empty() ? "" : ", ") + std::to_string(c);
        throw Error(source, flag, "invalid choice " + value + " (choose from " + listed + ")");
      }
      break;
    }
    case Field::kv_cache_dtype:
      a.kv_cache_dtype = value;
      break;
    case Field::dtype: {
      // The compute dtype; the last --dtype wins (argparse). "auto" keeps the model's.
      st.dtype = weight_dtype_of(value, source, flag);
      break;
    }
    case Field::quantization: {
      st.quantization = quantized_weight_dtype(value);
      if (st.quantization->empty()) a.not_modelled.push_back(flag + " " + value);
      break;
    }
    default:
      return false;
  }
  return true;
}

// The engine's pools: hybrid and Mamba pools, TensorRT-LLM's backend, experts and beams, CUDA
// graphs: false when the flag is not one of them.
bool apply_pool_flag(const FlagWord& w, EngineArgs& a, const std::string& source) {
  const std::string& flag = w.flag;
  const std::string& value = w.value;
  auto uint = [&](std::uint64_t min, std::uint64_t max) {
    return detail::parse_uint(value, min, max, source, flag);
  };
  switch (w.spec->field) {
    case Field::async_scheduling:
      a.async_scheduling = w.norm.rfind("--no-", 0) != 0;
      break;
    case Field::enforce_eager:
      a.enforce_eager = true;
      a.not_modelled.push_back(flag + " (CUDA graph memory is in the reserve)");
      break;
    case Field::mamba_cache_mode:
      if (value != "none" && value != "align" && value != "all")
        throw Error(source, flag, "expected none, align or all, got \"" + value + "\"");
      a.mamba_cache_mode = value;
      break;
    case Field::disable_hybrid_kv:
      a.disable_hybrid_kv_cache_manager = true;
      break;
    case Field::swa_ratio:
      a.swa_full_tokens_ratio_ppm = detail::parse_ppm(value, source, flag);
      break;
    case Field::mamba_ratio:
      a.mamba_full_memory_ratio_ppm = ratio_ppm(value, source, flag);
      break;
    case Field::disable_hybrid_swa:
      a.disable_hybrid_swa_memory = true;
      break;
    case Field::disable_overlap:
      a.disable_overlap_schedule = true;
      break;
    case Field::disable_radix_cache:
      a.disable_radix_cache = true;
      break;
    case Field::linear_replayssm_spec:
      a.linear_replayssm_spec = true;
      break;
    case Field::linear_replayssm_cache_len:
      a.linear_replayssm_cache_len = static_cast<std::uint32_t>(uint(1, 1u << 20));
      break;
    case Field::disaggregation_mode:
      a.disaggregation_mode = parse_sglang_disaggregation_mode(value, source, flag);
      break;
    case Field::decode_extra_slots:
      a.disaggregation_decode_extra_slots = uint(0, std::uint64_t{1} << 20);
      break;
    case Field::decode_radix_cache:
      a.disaggregation_decode_enable_radix_cache = true;
      break;
    case Field::mamba_strategy:
      a.mamba_radix_cache_strategy = parse_sglang_mamba_strategy(value, source, flag);
      break;
    case Field::max_mamba_cache_size:
      a.max_mamba_cache_size = uint(1, std::uint64_t{1} << 32);
      break;
    case Field::speculative_num_draft_tokens:
      a.speculative_num_draft_tokens = static_cast<std::uint32_t>(uint(1, 1024));
      break;
    case Field::speculative_num_steps:
      a.speculative_num_steps = static_cast<std::uint32_t>(uint(1, 1024));
      break;
    case Field::speculative_eagle_topk:
      a.speculative_eagle_topk = static_cast<std::uint32_t>(uint(1, 1024));
      break;
    case Field::recv_interval:
      // An int in server_args.py; <= 1 makes no skipper (SchedulerRecvSkipper.maybe_create).
      a.scheduler_recv_interval = static_cast<std::uint32_t>(uint(0, 1u << 20));
      break;
    case Field::mamba_ssm_dtype:  // server_args.py choices: float32, bfloat16, float16
      a.ssm_state_dtype = parse_state_dtype(value, false, source, flag);
      break;
    case Field::mamba_cache_dtype:  // vllm/config/cache.py@002f10e0 MambaDType
      a.conv_state_dtype = parse_state_dtype(value, true, source, flag);
      break;
    case Field::mamba_ssm_cache_dtype:
      a.ssm_state_dtype = parse_state_dtype(value, true, source, flag);
      break;
    case Field::max_total_tokens:
      a.max_total_tokens = uint(1, std::uint64_t{1} << 40);
      break;
    case Field::trtllm_backend:
      a.trtllm_backend = value;
      break;
    case Field::ep_size:
      a.ep_size = static_cast<std::uint32_t>(uint(1, 4096));
      a.ep_size_flag = w.flag;
      break;
    case Field::trtllm_beam_width:
      a.max_beam_width = static_cast<std::uint32_t>(uint(1, 1024));
      break;
    default:
      return false;
  }
  return true;
}

// Speculative decoding, config overrides and files, KV tiers beyond the GPU: false when the flag is
// not one of them.
bool apply_config_flag(const FlagWord& w, EngineArgs& a, CommandState& st,
                       const detail::CommandSyntax& syntax, const std::string& source) {
  const std::string& flag = w.flag;
  const std::string& value = w.value;
  auto uint = [&](std::uint64_t min, std::uint64_t max) {
    return detail::parse_uint(value, min, max, source, flag);
  };
  switch (w.spec->field) {
    case Field::speculative_config:
      read_speculative_config(w, a, source);
      break;
    case Field::speculative_algorithm:
      a.speculative_method = ascii_lower(value);
      break;
    case Field::hf_overrides:
      st.hf_overrides = json_object_flag(value, source, flag);
      break;
    case Field::rope_scaling:
      st.rope_scaling = json_object_flag(value, source, flag);
      break;
    case Field::config_file:
      // vLLM's --config was spliced in before this loop; trtllm-serve's YAML is applied after
      // it (the file's keys win). click keeps the last --extra_llm_api_options given.
      if (syntax.config_files == detail::ConfigFiles::spliced_first) {
        // The command line's --config was spliced out above: this one came from the file, and
        // vLLM pulls options from the command line's file only (_pull_args_from_config).
        a.ignored.push_back(flag + " " + value + " (a config key inside the config file)");
        break;
      }
      a.config_files = {value};
      break;
    case Field::kv_offloading_size:
      a.host_tiers.kv_offloading_gib = detail::parse_real(value, 0, 1 << 20, source, flag);
      break;
    case Field::kv_offloading_backend:
      if (value != "native" && value != "lmcache")
        throw Error(source, flag, "expected native or lmcache, got \"" + value + "\"");
      a.host_tiers.kv_offloading_backend = value;
      break;
    case Field::kv_transfer_config:
      read_kv_transfer_config(json_object_flag(value, source, flag), a.host_tiers, source, flag);
      break;
    case Field::hicache:
      a.host_tiers.hicache = true;
      break;
    case Field::hicache_ratio:
      a.host_tiers.hicache_ratio = detail::parse_real(value, 0, 1000, source, flag);
      if (*a.host_tiers.hicache_ratio <= 0)
        throw Error(source, flag, "must be greater than 0, got " + value);
      break;
    case Field::hicache_size:
      // An int in SGLang's argparse (memory.py: hicache_size: int = 0).
      a.host_tiers.hicache_size_gb = static_cast<double>(uint(0, 1 << 20));
      break;
    default:
      return false;
  }
  return true;
}

// Flags kvplan lists as ignored or not modelled: false when the flag is not one of them.
bool apply_listed_flag(const FlagWord& w, EngineArgs& a) {
  const std::string& flag = w.flag;
  const std::string& value = w.value;
  switch (w.spec->field) {
    case Field::multi_value:
    case Field::ignored_value:
      a.ignored.push_back(flag + " " + value);
      break;
    case Field::ignored_bool:
      a.ignored.push_back(flag);
      break;
    case Field::not_modelled_value:
    case Field::not_modelled_multi:
      a.not_modelled.push_back(flag + " " + value);
      break;
    case Field::not_modelled_bool:
      a.not_modelled.push_back(flag);
      break;
    default:
      return false;
  }
  return true;
}

}  // namespace

namespace {

// An image reference split at its tag: "registry:5000/vllm/vllm-openai:v0.25.1@sha256:..." ->
// {"registry:5000/vllm/vllm-openai", "v0.25.1"} (a digest is no tag; a colon before the last
// slash is a registry's port).
std::pair<std::string, std::string> split_image(const std::string& image) {
  const std::string name = image.substr(0, image.find('@'));
  const auto colon = name.rfind(':'), slash = name.rfind('/');
  if (colon == std::string::npos || (slash != std::string::npos && colon < slash))
    return {name, ""};
  return {name.substr(0, colon), name.substr(colon + 1)};
}

}  // namespace

std::string image_repository(const std::string& image) { return split_image(image).first; }

std::optional<std::string> image_release(const std::string& image) {
  std::string tag = split_image(image).second;
  if (!tag.empty() && (tag[0] == 'v' || tag[0] == 'V')) tag.erase(0, 1);
  std::size_t n = 0;
  while (n < tag.size() && (std::isdigit(static_cast<unsigned char>(tag[n])) || tag[n] == '.')) ++n;
  tag.resize(n);
  while (!tag.empty() && tag.back() == '.') tag.pop_back();
  if (tag.empty() || !std::isdigit(static_cast<unsigned char>(tag[0])) ||
      tag.find('.') == std::string::npos)
    return std::nullopt;
  return tag;
}

EngineArgs parse_engine_command(Engine engine, const std::string& line, const std::string& source) {
  EngineArgs a;
  a.engine = engine;
  CommandState st;
  auto t = split_command_line(line, source);
  std::size_t i = 0;
  for (; i < t.size() && t[i].find('=') != std::string::npos && t[i][0] != '-'; ++i)  // env vars
    read_env_assignment(t[i], a, source);
  const EngineRules& rules = engine_rules(engine);
  const detail::CommandSyntax& syntax = rules.command_syntax();
  const bool server_image = skip_docker_run(t, i, syntax, a, source);
  read_entry_point(t, i, syntax, server_image, line, source, st.positional);
  if (syntax.config_files == detail::ConfigFiles::spliced_first)
    splice_config_file(t, i, rules, source, a);
  for (; i < t.size(); ++i) {
    if (t[i].empty() || t[i][0] != '-') {
      a.unknown.push_back(t[i]);  // a stray positional argument
      continue;
    }
    const FlagWord w = read_flag_word(t, i, syntax, source);
    if (!w.spec) {
      a.unknown.push_back(w.takes_value ? w.flag + " " + w.value : w.flag);
      continue;
    }
    if (!apply_layout_flag(w, a, source) && !apply_memory_flag(w, a, st, syntax, source) &&
        !apply_pool_flag(w, a, source) && !apply_config_flag(w, a, st, syntax, source) &&
        !apply_listed_flag(w, a))
      throw Error(ErrorKind::internal, source, w.flag, "a known flag no rule reads");
  }
  if (syntax.config_files == detail::ConfigFiles::yaml_after_flags)
    for (const auto& f : a.config_files) apply_llm_api_yaml(f, a, st.dtype);
  finish_experts_and_beams(a, source);
  merge_config_overrides(st.hf_overrides, st.rope_scaling, a);
  // `vllm serve A --model B` serves A (the positional is the model_tag vLLM uses).
  if (!st.positional.empty()) {
    if (!a.model.empty() && a.model != st.positional)
      a.ignored.push_back("--model " + a.model + " (the positional " + st.positional +
                          " is served)");
    a.model = st.positional;
  }
  // Weights: an online --quantization replaces the stored dtype; --dtype only names the compute
  // type (a quantized checkpoint keeps its layout either way, see memory_budget).
  if (st.quantization && !st.quantization->empty()) {
    a.weight_dtype = *st.quantization;
  } else if (st.dtype && !st.dtype->empty()) {
    a.weight_dtype = *st.dtype;
  }
  if (a.model.empty()) throw Error(source, syntax.model_field, "the command line names no model");
  return a;
}

void apply_engine_pool_args(const EngineArgs& a, PlanInput& p, const std::string& source) {
  set_engine(p, a.engine);
  // Each engine's flags fill a copy of its options, kept where they changed it: a command line's
  // flags are its own engine's (engine_args' tables), so another engine's copy stays the defaults.
  SglangOptions s = p.sglang();
  if (a.swa_full_tokens_ratio_ppm) s.swa_full_tokens_ratio_ppm = *a.swa_full_tokens_ratio_ppm;
  if (a.mamba_full_memory_ratio_ppm) s.mamba_full_memory_ratio_ppm = *a.mamba_full_memory_ratio_ppm;
  s.disable_hybrid_swa_memory = a.disable_hybrid_swa_memory;
  s.max_mamba_cache_size = a.max_mamba_cache_size;
  s.speculative_num_draft_tokens = a.speculative_num_draft_tokens.value_or(0);
  if (a.engine == Engine::sglang) s.speculative_algorithm = a.speculative_method.value_or("");
  s.speculative_num_steps = a.speculative_num_steps.value_or(0);
  s.speculative_eagle_topk = a.speculative_eagle_topk.value_or(0);
  if (a.scheduler_recv_interval)
    s.scheduler_recv_interval = std::max(*a.scheduler_recv_interval, 1u);
  s.disable_overlap_schedule = a.disable_overlap_schedule;
  s.disable_radix_cache = a.disable_radix_cache;
  if (a.engine == Engine::sglang && a.dcp) s.dcp_size = *a.dcp;
  s.linear_replayssm_spec = a.linear_replayssm_spec;
  if (a.linear_replayssm_cache_len) s.linear_replayssm_cache_len = *a.linear_replayssm_cache_len;
  if (a.disaggregation_mode) s.disaggregation_mode = *a.disaggregation_mode;
  s.disaggregation_decode_extra_slots = a.disaggregation_decode_extra_slots;
  s.disaggregation_decode_enable_radix_cache = a.disaggregation_decode_enable_radix_cache;
  if (a.mamba_radix_cache_strategy) s.mamba_radix_cache_strategy = *a.mamba_radix_cache_strategy;
  if (s != p.sglang()) p.edit_sglang() = s;
  p.max_total_tokens = a.max_total_tokens;
  if (a.conv_state_dtype) p.conv_state_dtype = a.conv_state_dtype;
  if (a.ssm_state_dtype) p.ssm_state_dtype = a.ssm_state_dtype;
  TrtllmOptions t = p.trtllm();
  t.max_attention_window = a.max_attention_window;
  t.max_gpu_total_bytes = a.max_gpu_total_bytes;
  t.kv_cache_manager_v2 = a.kv_cache_manager_v2;
  t.avg_seq_len = a.avg_seq_len;
  t.enable_block_reuse = a.enable_block_reuse;
  t.snapshot_interval =
      a.block_reuse_policy == "per_conversation" ? 0 : a.snapshot_interval.value_or(0);
  t.snapshot_offsets_from_start = a.snapshot_offsets_from_start;
  t.snapshot_offsets_from_end = a.snapshot_offsets_from_end;
  if (a.adp_enable_balance) t.adp_enable_balance = *a.adp_enable_balance;
  if (a.adp_timeout_iters) t.adp_timeout_iters = *a.adp_timeout_iters;
  if (a.adp_batching_wait_iters) t.adp_batching_wait_iters = *a.adp_batching_wait_iters;
  if (a.trtllm_backend) t.backend = parse_trtllm_backend(*a.trtllm_backend, source, "--backend");
  if (t != p.trtllm()) p.edit_trtllm() = t;
}

KvFormat engine_kv_format(Engine engine, const std::string& d, const ModelSpec& model,
                          const std::string& source, const std::string& field,
                          const std::string& served_dtype, const std::string& gpu_id) {
  KvFormat f;
  if (d == "auto") {
    f = engine_rules(engine)
            .auto_kv_format(model, gpu_id)
            .value_or(default_kv_format(model, served_dtype));
  } else if (d == "fp8" || d == "fp8_e4m3") {
    f.dtype = KvDtype::fp8_e4m3;
  } else if (d == "fp8_e5m2") {
    f.dtype = KvDtype::fp8_e5m2;
  } else if (d == "bfloat16" || d == "bf16") {
    f.dtype = KvDtype::bf16;
  } else if (d == "float16" || d == "fp16") {
    f.dtype = KvDtype::fp16;
  } else if (const auto& unmodelled = engine_rules(engine).unmodelled_kv_dtypes();
             std::ranges::find(unmodelled, d) != unmodelled.end()) {
    throw Error(source, field,
                engine_rules(engine).label() + "'s " + d +
                    " KV cache is not modelled by kvplan (use auto or fp8, or a deployment file "
                    "with compression.kv_format)");
  } else {
    throw Error(source, field,
                "unknown " + to_string(engine) + " KV cache dtype \"" + d +
                    "\" (expected auto, fp8, fp8_e4m3, fp8_e5m2, bfloat16, float16)");
  }
  return f;
}

std::string hf_repo_id(const ModelSpec& model) {
  // The reference the user gave (a repo id or a path) names the model on its own command line.
  if (model.id.find('/') != std::string::npos) return model.id;
  const std::string host = "huggingface.co/";
  auto p = model.source.find(host);
  if (p == std::string::npos) return model.id;
  std::string rest = model.source.substr(p + host.size());
  auto slash = rest.find('/');
  if (slash == std::string::npos) return model.id;
  auto second = rest.find('/', slash + 1);
  return rest.substr(0, second);
}

ModelSpec resolve_engine_model(const std::string& name, const std::string& source) {
  // A directory, a file, a Hugging Face repo id in the local hub cache or listed by a preset, or
  // a path or older repo id whose name matches a preset (model_ref.hpp).
  return resolve_model_reference(name, source).model;
}

std::uint32_t speculative_draft_layers(const EngineArgs& a, const ModelSpec& model,
                                       std::string* note) {
  if (!a.speculative_method && !a.speculative_model) return 0;
  const std::string m = a.speculative_method.value_or("");
  auto say = [&](const std::string& s) {
    if (note) *note = s;
  };
  // MTP: the checkpoint's own num_nextn_predict_layers (vLLM SpeculativeConfig.hf_config_override:
  // n_predict = num_nextn_predict_layers; layers are reused across speculative tokens).
  const bool mtp = m == "mtp" || m.ends_with("_mtp") || m == "nextn";
  if (mtp) {
    if (model.mtp_layers == 0)
      throw Error(engine_rules(a.engine).command_syntax().speculative_field, "method",
                  "MTP speculative decoding, but " + model.id +
                      " ships no MTP layers (num_nextn_predict_layers)");
    // SpeculativeConfig.__post_init__ (vllm/config/speculative.py@002e77c1): "Ensure
    // divisibility for MTP module reuse", k > n_predict must be a multiple of it.
    const std::uint32_t n = model.mtp_layers;
    if (const auto k = a.speculative_tokens; k && *k > n && *k % n != 0)
      throw Error(
          engine_rules(a.engine).command_syntax().speculative_field, "num_speculative_tokens",
          "num_speculative_tokens:" + std::to_string(*k) + " must be divisible by n_predict=" +
              std::to_string(n) + " (" + model.id + "'s MTP layers), as vLLM requires");
    say(std::to_string(n) + " MTP layer(s) of the checkpoint hold a cache");
    return n;
  }
  if (m == "extract_hidden_states") {
    say(std::to_string(a.extract_hidden_states.value_or(0)) +
        " hidden states a token in one cache-only layer (extract_hidden_states)");
    return 0;
  }
  if (m == "ngram" || m == "suffix" || m == "ngram_gpu") {
    say("n-gram speculation: no draft layers");
    return 0;
  }
  if (m.rfind("eagle", 0) == 0 ||
      (m.empty() && a.speculative_model &&
       ascii_lower(*a.speculative_model).find("eagle") != std::string::npos)) {
    // SGLang runs DeepSeek's NextN layers under EAGLE; an EAGLE head is one decoder layer of the
    // target's geometry (the common EAGLE / EAGLE-3 checkpoints).
    const std::uint32_t n = model.mtp_layers ? model.mtp_layers : 1;
    say(std::to_string(n) + " EAGLE draft layer(s) of " + model.id +
        "'s attention geometry assumed (the draft checkpoint is not read)");
    return n;
  }
  say("speculative decoding \"" + (m.empty() ? *a.speculative_model : m) +
      "\": a separate draft model's cache is not modelled");
  return 0;
}

std::optional<std::string> vllm_command(const ModelSpec& model, const PlanInput& in,
                                        std::string* why) {
  return engine_rules(Engine::vllm).launch_line(model, in, why);
}

std::optional<std::string> sglang_command(const ModelSpec& model, const PlanInput& in,
                                          std::string* why) {
  return engine_rules(Engine::sglang).launch_line(model, in, why);
}

}  // namespace kvplan
