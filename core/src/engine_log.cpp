#include "kvplan/engine_log.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "json_read.hpp"
#include "kvplan/checked.hpp"
#include "kvplan/engine_args.hpp"
#include "kvplan/engine_rules.hpp"
#include "kvplan/error.hpp"
#include "kvplan/formula.hpp"
#include "kvplan/output_path.hpp"
#include "kvplan/report.hpp"
#include "kvplan/start_failure.hpp"

namespace kvplan {

namespace {

constexpr double kGiB = 1073741824.0;

// The number (digits, commas, one dot) right after `key` in `line`, if any.
std::optional<double> number_after(const std::string& line, const std::string& key) {
  const auto p = line.find(key);
  if (p == std::string::npos) return std::nullopt;
  std::size_t i = p + key.size();
  while (i < line.size() && (line[i] == ' ' || line[i] == '=' || line[i] == ':')) ++i;
  std::string digits;
  bool neg = false;
  if (i < line.size() && line[i] == '-') neg = true, ++i;
  for (; i < line.size(); ++i) {
    const char c = line[i];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.')
      digits += c;
    else if (c != ',')
      break;
  }
  if (digits.empty() || digits == ".") return std::nullopt;
  try {
    const double v = std::stod(digits);
    return neg ? -v : v;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// Where one parse is: the log's name and the line, for errors that say which line is wrong.
struct Where {
  const std::string& source;
  std::size_t line = 0;
  std::string at() const { return "line " + std::to_string(line); }
};

// The raw figure after `key` (what number_after scans: digits, commas, dots, a leading minus)
// and where it ends, or nullopt when there is none.
std::optional<std::pair<std::string, std::size_t>> raw_after(const std::string& line,
                                                             const std::string& key) {
  const auto p = line.find(key);
  if (p == std::string::npos) return std::nullopt;
  std::size_t i = p + key.size();
  while (i < line.size() && (line[i] == ' ' || line[i] == '=' || line[i] == ':')) ++i;
  const std::size_t start = i;
  if (i < line.size() && line[i] == '-') ++i;
  while (i < line.size() &&
         (std::isdigit(static_cast<unsigned char>(line[i])) || line[i] == '.' || line[i] == ','))
    ++i;
  while (i > start && (line[i - 1] == ',' || line[i - 1] == '.')) --i;  // "(N)." "N, ..."
  std::string text = line.substr(start, i - start);
  if (text.empty() || text == "-" || text.find_first_of("0123456789") == std::string::npos)
    return std::nullopt;
  return std::make_pair(text, i);
}

// A count as the engines print it: digits, optionally grouped by commas in threes (vLLM's
// "410,128 tokens"), exactly, below 2^64. Anything else (a dot, a stray comma, a minus, an
// overflow) is refused rather than read as some other number.
std::optional<std::uint64_t> count_after(const std::string& line, const std::string& key,
                                         const Where& w) {
  const auto raw = raw_after(line, key);
  if (!raw) return std::nullopt;
  const std::string& t = raw->first;
  const std::string what = "\"" + key + "\" " + t;
  if (t[0] == '-') throw Error(w.source, w.at(), what + ": a count cannot be negative");
  if (t.find('.') != std::string::npos)
    throw Error(w.source, w.at(),
                what + ": expected a whole number (the engine prints no decimals here)");
  if (t.find(',') != std::string::npos) {
    // Groups: the first of 1 to 3 digits, every later one of exactly 3.
    bool grouped = true;
    std::size_t start = 0, n = 0;
    for (std::size_t k = 0; k <= t.size(); ++k)
      if (k == t.size() || t[k] == ',') {
        const std::size_t len = k - start;
        grouped = grouped && (n == 0 ? len >= 1 && len <= 3 : len == 3);
        start = k + 1, ++n;
      }
    if (!grouped)
      throw Error(w.source, w.at(),
                  what +
                      ": commas must group the digits in threes (410,128); a decimal comma "
                      "is not how the engine prints numbers");
  }
  std::uint64_t v = 0;
  for (char c : t) {
    if (c == ',') continue;
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, c - '0', &v))
      throw Error(w.source, w.at(), what + ": does not fit 64 bits");
  }
  return v;
}

// A count that must fit 32 bits (tensor_parallel_size, tokens per block): past 2^32 - 1 is
// refused, never wrapped.
std::optional<std::uint32_t> count32_after(const std::string& line, const std::string& key,
                                           const Where& w) {
  const auto v = count_after(line, key, w);
  if (!v) return std::nullopt;
  if (*v > 0xffffffffu)
    throw Error(w.source, w.at(),
                "\"" + key + "\" " + std::to_string(*v) +
                    ": past 2^32 - 1, not a value the engine "
                    "prints");
  return static_cast<std::uint32_t>(*v);
}

// A memory figure in GiB as the engines print it: "%.2f GiB" (vLLM, TensorRT-LLM) or "GB" for
// the same 2^30 bytes (SGLang's memory_pool.py divides by GB = 1 << 30; vLLM before V1 printed
// "Loading model weights took %.4f GB" of bytes / 2^30). Digits with at most one dot, then the
// unit; a decimal comma, a second dot or another unit (MiB, MB, TiB, bytes) is refused rather
// than read as GiB. No unit at all (a line wrapped inside the figure) reads nothing.
std::optional<double> gib_after(const std::string& line, const std::string& key, const Where& w,
                                bool negative_ok = false) {
  const auto raw = raw_after(line, key);
  if (!raw) return std::nullopt;
  const std::string& t = raw->first;
  std::size_t i = raw->second;
  while (i < line.size() && line[i] == ' ') ++i;
  std::size_t u = i;
  while (u < line.size() && std::isalpha(static_cast<unsigned char>(line[u]))) ++u;
  const std::string unit = line.substr(i, u - i);
  const std::string what = "\"" + key + " " + t + (unit.empty() ? "" : " " + unit) + "\"";
  if (unit.empty()) return std::nullopt;
  if (unit != "GiB" && unit != "GB") {
    static const char* const kUnits[] = {"B", "bytes", "KiB", "KB", "kB", "MiB", "MB", "TiB", "TB"};
    for (const char* k : kUnits)
      if (unit == k)
        throw Error(w.source, w.at(),
                    what + ": the engine prints this figure in GiB (or GB of 2^30 bytes), not " +
                        unit + "; kvplan does not guess the scale");
    return std::nullopt;  // a word, not a unit: not this figure
  }
  if (t.find(',') != std::string::npos)
    throw Error(w.source, w.at(),
                what + ": a decimal comma; the engine prints figures with a dot (51.63 GiB)");
  if (t.find('.') != t.rfind('.'))
    throw Error(w.source, w.at(), what + ": more than one dot in a number");
  if (t[0] == '-' && !negative_ok)
    throw Error(w.source, w.at(), what + ": a memory figure here cannot be negative");
  if (t.size() > 24)  // "%.2f" of any GPU's memory is far shorter; stod would overflow
    throw Error(w.source, w.at(), what + ": not a figure the engine prints");
  return std::stod(t);
}

std::optional<std::string> quoted_after(const std::string& line, const std::string& key) {
  const auto p = line.find(key);
  if (p == std::string::npos) return std::nullopt;
  const auto q = line.find_first_of("'\"", p + key.size());
  if (q == std::string::npos || q > p + key.size() + 1) return std::nullopt;
  const auto e = line.find(line[q], q + 1);
  if (e == std::string::npos) return std::nullopt;
  return line.substr(q + 1, e - q - 1);
}

std::optional<std::string> word_after(const std::string& line, const std::string& key) {
  const auto p = line.find(key);
  if (p == std::string::npos) return std::nullopt;
  std::size_t i = p + key.size(), j = i;
  while (j < line.size() && line[j] != ',' && line[j] != ' ' && line[j] != ')') ++j;
  // SGLang's server_args quote strings: kv_cache_dtype='auto'.
  if (j - i >= 2 && (line[i] == '\'' || line[i] == '"') && line[j - 1] == line[i]) ++i, --j;
  if (j <= i) return std::nullopt;
  return line.substr(i, j - i);
}

std::uint64_t gib_bytes(double gib) {
  if (!(gib >= 0) || gib > 1e7) return 0;
  return static_cast<std::uint64_t>(std::floor(gib * kGiB));
}

template <class T>
std::optional<T> as(std::optional<double> v) {
  if (!v || *v < 0 || *v > 1e18) return std::nullopt;
  return static_cast<T>(std::llround(*v));
}

// The first figure after any of `keys` ("X takes 1.26GiB", "X     1.26GiB", "X=1.26GiB").
// A figure counts only with its unit after it: a line the post wrapped inside a number
// ("non_torch_memory=6" / ".07GiB") gives nothing rather than 6.
std::optional<double> figure_after(const std::string& line,
                                   std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    const auto p = line.find(k);
    if (p == std::string::npos) continue;
    auto v = number_after(line, k);
    if (!v) continue;
    std::size_t i = p + std::char_traits<char>::length(k);
    while (i < line.size() && !std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
    while (i < line.size() &&
           (std::isdigit(static_cast<unsigned char>(line[i])) || line[i] == '.' || line[i] == ','))
      ++i;
    while (i < line.size() && line[i] == ' ') ++i;
    if (i < line.size() && line[i] == 'G') return v;
  }
  return std::nullopt;
}

// vLLM's memory profile, in the spellings of its versions: V1's one line (gpu_worker.py, DEBUG
// before 0.11), V0's one line of "takes" (worker.py, 0.6.5 on), its one figure a line (PR
// #10511's sanity check), its key=value line (0.6.4) and the graph capture line.
void read_memory_profile(const std::string& line, EngineLog& g, bool& any) {
  if (auto v = figure_after(line, {"Total non KV cache memory"})) g.non_kv_bytes = gib_bytes(*v);
  if (auto v =
          figure_after(line, {"torch peak memory increase", "PyTorch activation peak memory takes",
                              "PyTorch activation peak memory",
                              // TensorRT-LLM's PyTorch backend (py_executor_creator / _util.py)
                              "Memory dynamically allocated during inference (inside torch) in "
                              "memory usage profiling:"}))
    g.activation_bytes = gib_bytes(*v);
  // TensorRT-LLM counts NCCL and CUDA graphs together as memory outside torch.
  if (auto v = figure_after(line, {"Memory used outside torch (e.g., NCCL and CUDA graphs) in "
                                   "memory usage profiling:"}))
    g.non_torch_bytes = gib_bytes(*v);
  if (auto v = figure_after(line, {"non-torch forward increase memory", "non_torch_memory takes",
                                   "non_torch_memory"}))
    g.non_torch_bytes = gib_bytes(*v);
  if (line.find("PyTorch activation peak memory") != std::string::npos ||
      line.find("non_torch_memory") != std::string::npos)
    g.v0_profile = true;
  if (auto v = figure_after(line, {"weights memory", "model weights take"}))
    g.weights_bytes = gib_bytes(*v);
  if (auto v = figure_after(line, {"total_gpu_memory (", "total_gpu_memory"}))
    g.total_gpu_bytes = gib_bytes(*v);
  if (auto v = figure_after(
          line, {"the rest of the memory reserved for KV Cache is", "available_kv_cache_memory"})) {
    any = true;
    g.available_kv_bytes = gib_bytes(*v);
    g.memory_rounding_bytes = gib_bytes(0.005);
  }
  if (line.find("Graph capturing finished in") != std::string::npos)
    if (const auto p = line.find("took"); p != std::string::npos)
      if (auto v = number_after(line.substr(p), "took")) g.cuda_graph_bytes = gib_bytes(*v);
  if (auto v = figure_after(line, {"Estimated CUDA graph memory"}))
    if (!g.cuda_graph_bytes) g.cuda_graph_bytes = gib_bytes(*v);
}

// The line of a start that failed, in each engine's words (start_failure.hpp cites the sources).
std::optional<StartFailureKind> failure_kind(const std::string& line) {
  if (line.find("To serve at least one request with the model") != std::string::npos &&
      line.find("KV cache is") != std::string::npos)
    return StartFailureKind::kv_cache_too_small;
  if (line.find("No available memory for the cache blocks") != std::string::npos)
    return StartFailureKind::no_kv_memory;
  if (line.find("Free memory on device") != std::string::npos &&
      line.find("is less than desired GPU memory utilization") != std::string::npos)
    return StartFailureKind::free_memory_short;
  if (line.find("CUDA out of memory occurred when warming up sampler with") != std::string::npos)
    return StartFailureKind::sampler_oom;
  if (line.find("Not enough memory. Please try to increase --mem-fraction-static") !=
      std::string::npos)
    return StartFailureKind::sglang_no_memory;
  return std::nullopt;
}

// vLLM's "(Y GiB)" after the available KV cache memory of its refusal (V1 spells it "KV cache",
// the first versions "KV Cache").
std::optional<double> refused_available_gib(const std::string& line, const Where& w) {
  for (const char* key : {"available KV cache memory (", "available KV Cache memory ("})
    if (auto v = gib_after(line, key, w)) return v;
  return std::nullopt;
}

// One log being read: the record so far, where each engine's KV figures begin, which engine.
struct LogScan {
  EngineLog g;
  Where w;
  bool any = false, sglang = false, trtllm = false, failed = false;
  // The first line of each engine's KV figures: one log, one engine.
  std::size_t vllm_kv = 0, sglang_kv = 0, trtllm_kv = 0;
  // A KV figure on this line: the log has one, and `first` is where its engine's begin.
  void first_kv(std::size_t& first) {
    any = true;
    if (!first) first = w.line;
  }
};

// vLLM's lines: version, model and config, weights, the memory profile, KV memory and tokens.
void read_vllm_line(const std::string& line, LogScan& x) {
  EngineLog& g = x.g;
  const Where& w = x.w;
  if (const auto p = line.find("LLM engine (v"); p != std::string::npos) {
    const auto e = line.find(')', p);
    if (e != std::string::npos) g.version = line.substr(p + 13, e - p - 13);
  }
  if (auto mdl = quoted_after(line, "model="); mdl && line.find("with config") != std::string::npos)
    g.model = *mdl;
  if (auto v = count_after(line, "max_seq_len=", w)) g.max_model_len = *v;
  if (auto v = count_after(line, "Using max model len", w)) g.max_model_len = *v;
  if (auto v = count32_after(line, "tensor_parallel_size=", w)) g.tp = *v;
  if (auto d = word_after(line, "kv_cache_dtype=")) g.kv_cache_dtype = *d;
  if (auto v = gib_after(line, "Model loading took", w)) g.weights_bytes = gib_bytes(*v);
  if (auto v = gib_after(line, "Loading model weights took", w)) g.weights_bytes = gib_bytes(*v);
  read_memory_profile(line, g, x.any);
  if (auto v = gib_after(line, "Available KV cache memory", w, true)) {
    x.first_kv(x.vllm_kv);
    // One line per TP rank; the engine sizes every rank by the smallest (V1's
    // get_kv_cache_configs gives each rank the fewest blocks of any rank; V0's
    // determine_num_available_blocks takes the minimum over the workers).
    const std::uint64_t b = gib_bytes(*v);  // 0 for a negative figure: nothing left
    g.available_kv_bytes = g.available_kv_bytes ? std::min(*g.available_kv_bytes, b) : b;
    g.memory_rounding_bytes = gib_bytes(0.005);
  }
  if (auto v = gib_after(line, "kv_cache_size=", w)) {
    x.first_kv(x.vllm_kv);
    g.available_kv_bytes = gib_bytes(*v);
    g.memory_rounding_bytes = gib_bytes(0.005);
  }
  if (auto v = count_after(line, "GPU KV cache size", w)) {
    g.kv_cache_tokens = *v;
    x.first_kv(x.vllm_kv);
  }
  if (auto v = count_after(line, "GPU blocks", w)) {
    g.num_gpu_blocks = *v;
    x.first_kv(x.vllm_kv);
  }
  if (auto v = count_after(line, "# cuda blocks", w)) {  // V0 0.8
    g.num_gpu_blocks = *v;
    x.first_kv(x.vllm_kv);
  }
  if (line.find("Maximum concurrency for") != std::string::npos) {
    x.first_kv(x.vllm_kv);
    g.concurrency_tokens = count_after(line, "Maximum concurrency for", w);
    if (const auto p = line.find("per request:"); p != std::string::npos)
      g.max_concurrency = number_after(line.substr(p), "per request:");
  }
}

// SGLang's lines: the KV and Mamba pools, graphs, tokens, context, weights.
void read_sglang_line(const std::string& line, LogScan& x) {
  EngineLog& g = x.g;
  const Where& w = x.w;
  if (line.find("KV Cache is allocated") != std::string::npos) {
    x.first_kv(x.sglang_kv);
    g.kv_cache_tokens = count_after(line, "#tokens:", w);
    const auto k = gib_after(line, "K size:", w), v = gib_after(line, "V size:", w);
    if (k && v) {
      g.kv_pool_bytes = gib_bytes(*k) + gib_bytes(*v);
      g.memory_rounding_bytes = 2 * gib_bytes(0.005);
    } else if (auto kv = gib_after(line, "KV size:", w)) {  // MLA: one latent pool
      g.kv_pool_bytes = gib_bytes(*kv);
      g.memory_rounding_bytes = gib_bytes(0.005);
    }
    if (auto d = word_after(line, "dtype: ")) g.kv_cache_dtype = *d;
  }
  if (auto v = count32_after(line, "Setting attention block size to", w))
    g.attention_block_size = *v;
  // server_args: mamba_ssm_dtype='bfloat16' (float32 unless --mamba-ssm-dtype says otherwise).
  if (auto d = word_after(line, "mamba_ssm_dtype="))
    if (const auto t = parse_torch_float(*d)) g.ssm_state_dtype = t;
  if (auto v = number_after(line, "Padding mamba page size by")) g.mamba_padding_percent = *v;
  if (line.find("Mamba Cache is allocated") != std::string::npos) {
    g.mamba_slots = count_after(line, "max_mamba_cache_size:", w);
    const auto c = gib_after(line, "conv_state size:", w),
               m = gib_after(line, "ssm_state size:", w);
    if (c && m) {
      g.mamba_pool_bytes = gib_bytes(*c) + gib_bytes(*m);
      g.mamba_rounding_bytes = 2 * gib_bytes(0.005);
    }
  }
  if (line.find("Capture cuda graph end") != std::string::npos)
    if (auto v = gib_after(line, "mem usage=", w)) g.cuda_graph_bytes = gib_bytes(*v);
  if (auto v = count_after(line, "max_total_num_tokens=", w)) {
    g.kv_cache_tokens = *v;
    x.first_kv(x.sglang_kv);
  }
  if (auto v = count_after(line, "context_len=", w)) g.max_model_len = *v;
  if (auto v = count_after(line, "context_length=", w)) g.max_model_len = *v;
  if (auto mdl = quoted_after(line, "model_path=")) g.model = *mdl;
  if (auto v = count32_after(line, "tp_size=", w)) g.tp = *v;
  if (line.find("Load weight end") != std::string::npos)
    if (auto v = gib_after(line, "mem usage=", w)) g.weights_bytes = gib_bytes(*v);
}

// TensorRT-LLM's lines: the primary pool's blocks, tokens per block, the memory it sized from,
// and the older executor's "Allocate N bytes for k/v cache".
void read_trtllm_line(const std::string& line, LogScan& x) {
  EngineLog& g = x.g;
  const Where& w = x.w;
  if (auto v = count_after(line, "Number of blocks in KV cache primary pool", w)) {
    g.num_gpu_blocks = *v;
    x.first_kv(x.trtllm_kv);
  }
  if (auto v = count32_after(line, "Number of tokens per block", w)) g.tokens_per_block = *v;
  // 1.x: "Max KV cache blocks per sequence: 8192 [window size=262144], tokens per block=32,
  // primary blocks=158543, ..."
  if (line.find("Max KV cache blocks per sequence") != std::string::npos) {
    if (auto v = count_after(line, "primary blocks=", w)) {
      g.num_gpu_blocks = *v;
      x.first_kv(x.trtllm_kv);
    }
    if (auto v = count32_after(line, "tokens per block=", w)) g.tokens_per_block = *v;
  }
  if (line.find("Memory usage when calculating max tokens in paged kv cache") !=
      std::string::npos) {
    if (auto v = gib_after(line, "total:", w)) g.total_gpu_bytes = gib_bytes(*v);
    if (auto v = gib_after(line, "available:", w)) g.free_after_bytes = gib_bytes(*v);
  }
  // The older executor: "Allocate 956301312 bytes for k/v cache." and "Using 29184 total
  // tokens in paged KV cache, and 272 blocks per sequence".
  if (line.find("bytes for k/v cache") != std::string::npos)
    if (auto v = count_after(line, "Allocate", w)) {
      x.first_kv(x.trtllm_kv);
      g.kv_pool_bytes = *v;
      g.memory_rounding_bytes = 0;
    }
  if (auto v = count32_after(line, "Set tokens_per_block to", w)) g.tokens_per_block = *v;
  if (line.find("tokens in paged KV cache") != std::string::npos)
    if (auto v = count_after(line, "Using", w)) {
      g.kv_cache_tokens = *v;
      x.first_kv(x.trtllm_kv);
    }
  if (line.find("for max tokens in paged KV cache") != std::string::npos) {
    x.first_kv(x.trtllm_kv);
    if (auto v = gib_after(line, "Allocated", w)) {
      g.kv_pool_bytes = gib_bytes(*v);
      g.memory_rounding_bytes = gib_bytes(0.005);
    }
    if (const auto p = line.rfind('('); p != std::string::npos)
      g.kv_cache_tokens = count_after(line.substr(p), "(", w);
  }
}

// Which engine a line names (a log names one; the KV lines decide between them).
void read_engine_marks(const std::string& line, LogScan& x) {
  if (line.find("TensorRT-LLM") != std::string::npos ||
      line.find("paged KV cache") != std::string::npos ||
      line.find("KV cache primary pool") != std::string::npos)
    x.trtllm = true;
  if (line.find("KV Cache is allocated") != std::string::npos ||
      line.find("max_total_num_tokens=") != std::string::npos ||
      line.find("server_args=ServerArgs") != std::string::npos)
    x.sglang = true;
  // A log that ends in a failure needs no KV line (start_failure.hpp reads the failure's own
  // figures; a log of two runs keeps the first run's here).
  if (const auto kind = failure_kind(line)) {
    x.failed = true;
    if (*kind == StartFailureKind::sglang_no_memory) x.sglang = true;
  }
}

// One engine per log: KV figures of two engines are two logs pasted together.
void check_one_engine(const LogScan& x, const std::string& source) {
  std::vector<std::pair<const char*, std::size_t>> seen;
  for (auto [name, at] : {std::pair<const char*, std::size_t>{"vLLM", x.vllm_kv},
                          {"SGLang", x.sglang_kv},
                          {"TensorRT-LLM", x.trtllm_kv}})
    if (at) seen.emplace_back(name, at);
  if (seen.size() > 1)
    throw Error(source, "line " + std::to_string(seen[1].second),
                std::string("KV-cache lines of ") + seen[0].first + " (line " +
                    std::to_string(seen[0].second) + ") and " + seen[1].first + " (line " +
                    std::to_string(seen[1].second) +
                    ") in one log: give each engine's log on its own");
}

// Several start-ups: the same figures (a restart, data-parallel engines) are one record;
// different ones would pair one start-up's memory with another's tokens, so they are refused.
void check_restarts(const std::vector<std::pair<EngineLog, std::size_t>>& earlier,
                    const EngineLog& g, std::size_t began, const std::string& source) {
  for (const auto& [e, at] : earlier) {
    if (e.available_kv_bytes != g.available_kv_bytes || e.kv_cache_tokens != g.kv_cache_tokens ||
        e.num_gpu_blocks != g.num_gpu_blocks || e.kv_pool_bytes != g.kv_pool_bytes ||
        e.max_model_len != g.max_model_len || e.tp != g.tp)
      throw Error(source, "line " + std::to_string(began),
                  "the log holds more than one engine start-up (lines " + std::to_string(at) +
                      " and " + std::to_string(began) +
                      ") with different KV-cache figures: give one start-up's lines at a time");
  }
}

}  // namespace

EngineLog parse_engine_log(const std::string& text, const std::string& source) {
  LogScan x{.g = {}, .w = Where{source}};
  x.g.source = source;
  // Earlier start-ups of the same log (an engine restarted into the same file), each with the
  // line it began on.
  std::vector<std::pair<EngineLog, std::size_t>> earlier;
  std::size_t began = 1;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    ++x.w.line;
    // A start-up line after KV figures: the engine started again in the same log.
    if (x.any && (line.find("Initializing a V1 LLM engine") != std::string::npos ||
                  line.find("Initializing an LLM engine") != std::string::npos ||
                  line.find("server_args=ServerArgs") != std::string::npos)) {
      earlier.emplace_back(x.g, began);
      x.g = EngineLog{};
      x.g.source = source;
      x.any = false;
      began = x.w.line;
    }
    read_engine_marks(line, x);
    read_vllm_line(line, x);
    read_sglang_line(line, x);
    read_trtllm_line(line, x);
  }
  if (!x.any && !x.failed)
    throw Error(source, "",
                "no KV-cache line of vLLM, SGLang or TensorRT-LLM found (\"Available KV cache "
                "memory\", \"GPU KV cache size\", \"KV Cache is allocated\", \"paged KV cache\")");
  x.g.engine = x.trtllm ? Engine::trtllm : x.sglang ? Engine::sglang : Engine::vllm;
  check_one_engine(x, source);
  check_restarts(earlier, x.g, began, source);
  return x.g;
}

EngineLog load_engine_log(const std::string& path) {
  return parse_engine_log(detail::read_text_file(path, "engine log"), path);
}

ResolvedModel resolve_log_model(const EngineLog& log) {
  if (log.model.empty())
    throw Error(log.source, "model", "the log names no model (no config line): give --model");
  try {
    return resolve_model_reference(log.model, "--model");
  } catch (const Error& e) {
    throw Error(e.kind(), log.source, "model",
                "the model the log's config line names, '" + log.model + "', cannot be loaded (" +
                    e.what() + "); give --model");
  }
}

ModelSpec load_log_model(const EngineLog& log) { return resolve_log_model(log).model; }

bool ExplainReport::all_within() const {
  bool any = false;
  for (const auto& r : rows) {
    if (!r.kvplan || r.informational) continue;
    any = true;
    if (!r.within_tolerance) return false;
  }
  return any;
}

namespace {

void compare(ExplainReport& r, const std::string& what, std::optional<double> logged,
             std::optional<double> ours, double rel_tol, double abs_tol, const std::string& why) {
  if (!logged) return;
  ExplainRow row{what, logged, ours, why, std::nullopt, false};
  if (ours) {
    const double diff = std::abs(*ours - *logged);
    if (*logged != 0) row.relative_error = diff / std::abs(*logged);
    row.within_tolerance =
        diff <= abs_tol || (row.relative_error && *row.relative_error <= rel_tol);
  }
  r.rows.push_back(row);
}

// The memory fraction the log's engine ran with where the log states none: its release's default.
std::uint32_t log_fraction(const EngineLog& log) {
  return engine_rules(log.engine).log_memory_fraction_ppm(log.version);
}

// Tokens of one request-free pool on one rank: bytes / (K + V bytes of one token over every
// layer), as SGLang and TensorRT-LLM size their pools (every layer full attention).
std::uint64_t cell_bytes(const ModelSpec& m, const KvFormat& f, std::uint32_t tp) {
  ModelSpec full = m;
  for (auto& l : full.layers)
    if (l.kind == AttentionKind::sliding || l.kind == AttentionKind::chunked) l = LayerSpec{};
  return kv_cost(full, KvCostInput{.context = 1, .format = f, .tp = tp}, "log").bytes_per_request;
}

// vLLM: blocks, tokens and concurrency from the logged "Available KV cache memory", and with the
// GPU the reserve that memory implies.
void explain_vllm_kv(ExplainReport& r, const EngineLog& log, const ModelSpec& model,
                     const ExplainOverrides& o) {
  PlanInput& in = r.input;
  const double tok_tol = 0.003;
  const std::string mem_why = "from the logged KV memory";
  if (!log.available_kv_bytes) {
    compare(r, "num_gpu_blocks",
            log.num_gpu_blocks ? std::optional<double>(*log.num_gpu_blocks) : std::nullopt,
            std::nullopt, 0, 0, "the log does not say the available KV cache memory");
    compare(r, "GPU KV cache size (tokens)",
            log.kv_cache_tokens ? std::optional<double>(*log.kv_cache_tokens) : std::nullopt,
            std::nullopt, 0, 0, "the log does not say the available KV cache memory");
    compare(r, "maximum concurrency", log.max_concurrency, std::nullopt, 0, 0,
            "the log does not say the available KV cache memory");
    return;
  }
  if (in.context == 0)
    throw Error(log.source, "max_model_len",
                "the log states no max_model_len: give --max-model-len");
  in.available_kv_bytes = *log.available_kv_bytes;
  const Capacity c = plan_capacity(model, in, log.source);
  if (log.attention_block_size)
    compare(r, "attention block size (tokens)", static_cast<double>(*log.attention_block_size),
            static_cast<double>(c.block_size), 0, 0,
            "vLLM's page-size unification: the attention page at least the Mamba page");
  if (o.gpu_memory_bytes) {
    const std::uint32_t ppm = o.memory_fraction_ppm.value_or(log_fraction(log));
    const std::uint64_t requested = mul(o.gpu_memory_bytes, ppm, "memory") / 1000000u;
    const std::uint64_t weights = ceil_div(model.weight_bytes(), mul(in.tp, in.pp));
    if (requested > weights + *log.available_kv_bytes)
      r.measured_reserve_bytes = requested - weights - *log.available_kv_bytes;
  }
  // The memory figure is rounded to 0.01 GiB: a block of slack per page of rounding.
  // One block of the pool is a page of every layer of a group.
  const double block_bytes =
      static_cast<double>(c.page_bytes) *
      std::max<std::uint32_t>(c.stages.empty() ? 1 : c.stages[0].group_size, 1);
  const double blocks_slack =
      block_bytes > 0 ? static_cast<double>(log.memory_rounding_bytes) / block_bytes + 1 : 1;
  if (log.num_gpu_blocks)
    compare(r, "num_gpu_blocks", static_cast<double>(*log.num_gpu_blocks),
            static_cast<double>(c.num_gpu_blocks), tok_tol, blocks_slack, mem_why);
  if (log.kv_cache_tokens)
    compare(r, "GPU KV cache size (tokens)", static_cast<double>(*log.kv_cache_tokens),
            static_cast<double>(c.kv_cache_tokens), tok_tol, blocks_slack * c.block_size, mem_why);
  if (log.max_concurrency) {
    const double per_block =
        c.concurrency_denominator ? 1.0 / static_cast<double>(c.concurrency_denominator) : 0;
    compare(r, "maximum concurrency", *log.max_concurrency, c.max_concurrency, 0,
            0.01 + blocks_slack * per_block, mem_why);
  }
}

// What kvplan recomputes a log with: the log's settings, the user's where the log is silent.
PlanInput explain_input(const EngineLog& log, const ModelSpec& model, const ExplainOverrides& o) {
  PlanInput in;
  in.engine = log.engine;
  in.tp = o.tp.value_or(log.tp.value_or(1));
  if (in.tp == 0 || in.tp > 65536)
    throw Error(log.source, "tensor_parallel_size",
                "must be between 1 and 65536, got " + std::to_string(in.tp));
  in.context =
      o.max_model_len.value_or(log.max_model_len.value_or(log.concurrency_tokens.value_or(0)));
  if (o.block_size) in.block_size = *o.block_size;
  in.max_num_seqs = o.max_num_seqs;
  in.draft_layers = o.draft_layers;
  // The GPU sets the engine's defaults the memory terms use (vLLM's max_num_seqs).
  in.gpu_memory_bytes = o.gpu_memory_bytes;
  in.gpu_id = o.gpu_id;
  std::string dtype = o.kv_cache_dtype.value_or(log.kv_cache_dtype.value_or("auto"));
  if (dtype == "torch.float8_e4m3fn" || dtype == "FP8") dtype = "fp8";
  if (dtype == "torch.bfloat16") dtype = "bfloat16";
  if (dtype == "torch.float16") dtype = "float16";
  in.format =
      engine_kv_format(log.engine, dtype, model, log.source, "kv_cache_dtype", "", in.gpu_id);
  in.ssm_state_dtype = log.ssm_state_dtype;
  // The rule set the log was written under (vLLM: V0 and V1 before 0.10 by 0.9's, whose logs
  // print "# GPU blocks"; 0.10 and 0.17 - 0.19 by theirs).
  const std::optional<VllmRules> rules =
      engine_rules(log.engine)
          .rules_of_log(log.version, log.num_gpu_blocks.has_value() || log.v0_profile);
  if (rules) in.edit_vllm().rules = *rules;
  const bool old = rules == std::optional<VllmRules>(VllmRules::v0_9);
  // The tokens per step: given, else (V1 from 0.10) the engine's default on the GPU; older logs
  // keep kvplan's 8192 (their defaults were not the GPU's).
  if (o.max_num_batched_tokens)
    in.max_num_batched_tokens = *o.max_num_batched_tokens;
  else if (!old)
    in.max_num_batched_tokens = engine_rules(log.engine).default_max_num_batched_tokens(in);
  return in;
}

// The engine's KV numbers, recomputed (rows appended to r).
void explain_kv(ExplainReport& r, const EngineLog& log, const ModelSpec& model,
                const ExplainOverrides& o) {
  r.input = explain_input(log, model, o);
  PlanInput& in = r.input;
  const double tok_tol = 0.003;
  const std::string mem_why = "from the logged KV memory";

  if (log.weights_bytes) {
    const double ours = static_cast<double>(ceil_div(model.weight_bytes(), mul(in.tp, in.pp)));
    // kvplan's weight model (the preset's checkpoint, which may not be the quantization the log
    // loaded), beside the log: informational.
    compare(r, "weights per GPU (GiB)", *log.weights_bytes / kGiB, ours / kGiB, 0.02, 0.01,
            model.weights.from_checkpoint ? "the checkpoint's bytes" : "estimated from the config");
    r.rows.back().informational = true;
  }

  const EngineRules::LogFacts facts = engine_rules(log.engine).log_facts();
  if (facts.pool == EngineRules::LogFacts::Pool::memory_budget) {
    explain_vllm_kv(r, log, model, o);
    return;
  }

  // SGLang and TensorRT-LLM: the pool's bytes as logged, every layer costed as full attention.
  if (!log.kv_pool_bytes) {
    compare(r, "KV cache tokens",
            log.kv_cache_tokens ? std::optional<double>(*log.kv_cache_tokens) : std::nullopt,
            std::nullopt, 0, 0, "the log does not say the pool's bytes");
    return;
  }
  const std::uint64_t cell = cell_bytes(model, in.format, in.tp);
  if (cell == 0)
    throw Error(log.source, "model", model.id + " holds no KV cache to size a pool with");
  const double slack =
      static_cast<double>(log.memory_rounding_bytes) / static_cast<double>(cell) + 1;
  if (facts.pool == EngineRules::LogFacts::Pool::tokens) {
    compare(r, "KV cache tokens (#tokens)",
            log.kv_cache_tokens ? std::optional<double>(*log.kv_cache_tokens) : std::nullopt,
            static_cast<double>(*log.kv_pool_bytes / cell), tok_tol, slack,
            "the logged K + V sizes / " + std::to_string(cell) + " B per token");
    return;
  }
  const std::uint32_t tpb = log.tokens_per_block.value_or(o.block_size.value_or(32));
  if (tpb == 0 || tpb > (1u << 20))
    throw Error(log.source, "tokens per block",
                "must be between 1 and 1048576, got " + std::to_string(tpb));
  const std::uint64_t blocks = *log.kv_pool_bytes / mul(cell, tpb);
  if (log.num_gpu_blocks)
    compare(r, "blocks in the primary pool", static_cast<double>(*log.num_gpu_blocks),
            static_cast<double>(blocks), tok_tol, slack / tpb + 1,
            "the logged allocation / (" + std::to_string(tpb) + " tokens · " +
                std::to_string(cell) + " B)");
  compare(r, "KV cache tokens",
          log.kv_cache_tokens ? std::optional<double>(*log.kv_cache_tokens) : std::nullopt,
          static_cast<double>(blocks * tpb), tok_tol, slack + tpb, "blocks · tokens per block");
  return;
}

// What the memory profile says beside kvplan's memory model, term by term: the engine rules'
// activation peak, non-torch memory and CUDA graphs (EngineRules::memory_terms, for the log's
// settings; informational rows, since a log rarely states max_num_seqs) and their sum beside
// the logged non-KV memory. SGLang's Mamba pool is the engine's arithmetic: its bytes per slot
// are one sequence's recurrent state.
void explain_memory(ExplainReport& r, const EngineLog& log, const ModelSpec& model,
                    const ExplainOverrides& o) {
  auto gib = [](std::optional<std::uint64_t> b) {
    return b ? std::optional<double>(*b / kGiB) : std::nullopt;
  };
  const MemoryTerms terms = engine_rules(r.input).memory_terms({model, r.input, true});
  auto term_row = [&](const std::string& name, std::optional<std::uint64_t> logged,
                      const MemoryTerm& t) {
    const std::size_t before = r.rows.size();
    compare(r, name, gib(logged), t.bytes ? std::optional<double>(t.bytes / kGiB) : std::nullopt, 0,
            0, std::string("kvplan ") + to_string(t.basis) + ": " + t.how);
    if (r.rows.size() > before) r.rows.back().informational = true;
  };
  term_row("activation peak (GiB)", log.activation_bytes, terms.activation);
  term_row("non-torch memory (GiB)", log.non_torch_bytes, terms.non_torch);
  // What a calibration carries per term (kvplan explain --calibrate): logged less kvplan's.
  auto delta = [](std::uint64_t logged, std::uint64_t ours) {
    return static_cast<std::int64_t>(logged) - static_cast<std::int64_t>(ours);
  };
  const EngineRules::LogFacts facts = engine_rules(log.engine).log_facts();
  if (facts.calibrates_terms) {
    if (log.activation_bytes)
      r.corrections.activation_delta_bytes = delta(*log.activation_bytes, terms.activation.bytes);
    if (log.non_torch_bytes)
      r.corrections.non_torch_delta_bytes = delta(*log.non_torch_bytes, terms.non_torch.bytes);
    if (log.cuda_graph_bytes)
      r.corrections.graphs_bytes = static_cast<std::int64_t>(*log.cuda_graph_bytes);
  }
  compare(r, "Mamba page padding (%)", log.mamba_padding_percent, std::nullopt, 0, 0,
          "logged only: kvplan pads the page but does not print the share");
  if (facts.graphs_logged_only.empty())
    term_row("CUDA graph memory (GiB)", log.cuda_graph_bytes, terms.graphs);
  else
    compare(r, "CUDA graph memory (GiB)", gib(log.cuda_graph_bytes), std::nullopt, 0, 0,
            facts.graphs_logged_only);
  std::optional<std::uint64_t> reserve;
  if (log.non_kv_bytes && log.weights_bytes && *log.non_kv_bytes >= *log.weights_bytes)
    reserve = *log.non_kv_bytes - *log.weights_bytes;
  else if (log.activation_bytes && log.non_torch_bytes)
    reserve = add(*log.activation_bytes, *log.non_torch_bytes, "reserve");
  if (reserve && facts.compares_reserve) {
    compare(r, "reserve: non-KV memory besides the weights (GiB)", gib(reserve),
            static_cast<double>(terms.reserve_bytes()) / kGiB, 0, 0.01,
            "kvplan's terms for these settings (calibrate with --gpu --calibrate)");
    r.rows.back().informational = true;
  }
  if (log.mamba_slots && *log.mamba_slots > 0 && log.mamba_pool_bytes) {
    const std::uint64_t ours = kv_cost(model, plan_cost_input(model, r.input, 1, 1, 1), log.source)
                                   .state_bytes_per_request;
    // SGLang's MambaPool allocates size + 1 slots (its conv and temporal tensors are
    // (num_mamba_layers, size + 1, ...); slot 0 takes the padded tokens' dummy writes:
    // python/sglang/srt/mem_cache/memory_pool.py, MambaPool.__init__), and logs their bytes.
    const double slots = static_cast<double>(*log.mamba_slots) + 1;
    compare(r, "Mamba state per slot (bytes)", static_cast<double>(*log.mamba_pool_bytes) / slots,
            ours ? std::optional<double>(static_cast<double>(ours)) : std::nullopt, 0.003,
            static_cast<double>(log.mamba_rounding_bytes) / slots,
            ours ? "conv + ssm state of one sequence, every recurrent layer"
                 : "the model holds no recurrent state");
  }
  // TensorRT-LLM gives the pool free_gpu_memory_fraction of the memory free after the weights and
  // buffers ("available:").
  if (engine_rules(log.engine).fraction_after_weights() && log.free_after_bytes &&
      log.kv_pool_bytes) {
    const std::uint32_t ppm = o.memory_fraction_ppm.value_or(log_fraction(log));
    const double ours = static_cast<double>(*log.free_after_bytes) * ppm / 1e6;
    compare(r, "KV pool (GiB)", *log.kv_pool_bytes / kGiB, ours / kGiB, 0,
            0.01 + 0.005 * ppm / 1e6 + 1e-9,
            "the logged available memory · free_gpu_memory_fraction " +
                std::to_string(ppm / 1e6).substr(0, 4));
  }
}

}  // namespace

ExplainReport explain_log(const EngineLog& log, const ModelSpec& model, const ExplainOverrides& o) {
  ExplainReport r;
  r.log = log;
  r.model_id = model.id;
  explain_kv(r, log, model, o);
  explain_memory(r, log, model, o);
  return r;
}

std::string to_json(const Calibration& c) {
  nlohmann::json j = {{"kvplan_calibration", 1}, {"engine", c.engine},
                      {"version", c.version},    {"gpu", c.gpu},
                      {"model", c.model},        {"tp", c.tp}};
  if (c.reserve_bytes) j["reserve_bytes"] = *c.reserve_bytes;
  if (c.terms) {
    nlohmann::json t = nlohmann::json::object();
    if (c.terms->activation_delta_bytes)
      t["activation_delta_bytes"] = c.terms->activation_delta_bytes;
    if (c.terms->non_torch_delta_bytes) t["non_torch_delta_bytes"] = c.terms->non_torch_delta_bytes;
    if (c.terms->graphs_bytes >= 0) t["cuda_graph_bytes"] = c.terms->graphs_bytes;
    j["terms"] = t;
  }
  if (c.efficiency) {
    nlohmann::json e = nlohmann::json::object();
    const CalibratedEfficiency& f = *c.efficiency;
    auto put = [&](const char* key, const std::optional<double>& v) {
      if (v) e[key] = *v;
    };
    put("compute", f.compute), put("memory", f.memory), put("interconnect", f.interconnect);
    put("overhead_s", f.overhead_s), put("layer_overhead_s", f.layer_overhead_s);
    put("allreduce_latency_s", f.allreduce_latency_s), put("seq_overhead_s", f.seq_overhead_s);
    put("frontend_s", f.frontend_s);
    j["efficiency"] = e;
  }
  j["source"] = c.source;
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

namespace {

CalibratedEfficiency read_efficiency(detail::JsonObject o) {
  CalibratedEfficiency e;
  auto fraction = [&](const char* key) -> std::optional<double> {
    const auto v = o.opt_number(key, 0, 1);
    if (v && !(*v > 0)) throw Error(o.source(), o.pointer(key), "must be in (0, 1], got 0");
    return v;
  };
  e.compute = fraction("compute");
  e.memory = fraction("memory");
  e.interconnect = fraction("interconnect");
  e.overhead_s = o.opt_number("overhead_s", 0, 10);
  e.layer_overhead_s = o.opt_number("layer_overhead_s", 0, 0.01);
  e.allreduce_latency_s = o.opt_number("allreduce_latency_s", 0, 0.01);
  e.seq_overhead_s = o.opt_number("seq_overhead_s", 0, 0.01);
  e.frontend_s = o.opt_number("frontend_s", 0, 10);
  o.finish();
  return e;
}

// A term's correction: whole bytes within ±16 TiB.
MemoryCorrections read_terms(detail::JsonObject o, const std::string& path) {
  constexpr double kLimit = 17592186044416.0;  // 2^44
  auto whole = [&](const char* key, double lo) -> std::optional<std::int64_t> {
    const auto v = o.opt_number(key, lo, kLimit);
    if (!v) return std::nullopt;
    if (*v != std::floor(*v))
      throw Error(o.source(), o.pointer(key), "must be a whole number of bytes");
    return static_cast<std::int64_t>(*v);
  };
  MemoryCorrections m;
  m.activation_delta_bytes = whole("activation_delta_bytes", -kLimit).value_or(0);
  m.non_torch_delta_bytes = whole("non_torch_delta_bytes", -kLimit).value_or(0);
  m.graphs_bytes = whole("cuda_graph_bytes", 0).value_or(-1);
  m.source = path;
  o.finish();
  return m;
}

}  // namespace

Calibration load_calibration(const std::string& path) {
  const auto j = detail::parse_json_text(detail::read_text_file(path, "calibration file"), path);
  detail::JsonObject o(j, path, "");
  if (o.uint("kvplan_calibration", 1, 1000) != 1)
    throw Error(path, "/kvplan_calibration", "unsupported version (this kvplan reads 1)");
  Calibration c;
  c.engine = o.str("engine");
  c.version = o.opt_str("version").value_or("");
  c.gpu = o.opt_str("gpu").value_or("");
  c.model = o.opt_str("model").value_or("");
  c.tp = static_cast<std::uint32_t>(o.opt_uint("tp", 1, 65536).value_or(1));
  c.reserve_bytes = o.opt_uint("reserve_bytes", 0, std::uint64_t{1} << 44);
  if (auto e = o.opt_object("efficiency")) c.efficiency = read_efficiency(std::move(*e));
  if (auto t = o.opt_object("terms")) c.terms = read_terms(std::move(*t), path);
  c.source = o.opt_str("source").value_or("");
  o.finish();
  if (!c.reserve_bytes && !c.efficiency && !c.terms)
    throw Error(path, "/reserve_bytes",
                "a calibration needs reserve_bytes, terms, efficiency or some of them; this file "
                "has none");
  return c;
}

void save_calibration(const Calibration& c, const std::string& path) {
  // The rename below would replace a FIFO, a device or a directory entry with a regular file.
  if (check_output_path(path, {}, "calibration file"))
    throw Error(path, "", "save_calibration writes a file; - (standard output) is the caller's");
  const std::string tmp = path + ".kvplan-tmp." + std::to_string(::getpid());
  const std::string text = to_json(c);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw Error(path, "", "cannot write the calibration file");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw Error(path, "", "cannot write the calibration file (rename failed)");
  }
}

Calibration calibration_of(const ExplainReport& r) {
  if (!r.measured_reserve_bytes && r.corrections.empty())
    throw Error(r.log.source, "calibrate",
                "no reserve measured: needs a vLLM log with \"Available KV cache memory\" and "
                "--gpu (the GPU's total memory)");
  Calibration c;
  c.engine = to_string(r.log.engine);
  c.version = r.log.version;
  c.model = r.model_id;
  c.tp = r.input.tp;
  c.reserve_bytes = r.measured_reserve_bytes;
  if (!r.corrections.empty()) c.terms = r.corrections;
  c.source = r.log.source;
  return c;
}

std::string render(const ExplainReport& r, OutputFormat f) {
  auto num = [](std::optional<double> v) -> std::string {
    if (!v) return "-";
    char b[64];
    if (std::abs(*v - std::round(*v)) < 1e-9 && std::abs(*v) >= 100)
      return grouped(static_cast<std::uint64_t>(std::llround(*v)));
    std::snprintf(b, sizeof b, "%.2f", *v);
    return b;
  };
  if (f == OutputFormat::json) {
    nlohmann::json j;
    j["source"] = r.log.source;
    j["engine"] = to_string(r.log.engine);
    j["version"] = r.log.version;
    j["model"] = r.model_id;
    j["rows"] = nlohmann::json::array();
    for (const auto& row : r.rows) {
      nlohmann::json e = {{"quantity", row.quantity},
                          {"why", row.why},
                          {"within_tolerance", row.within_tolerance},
                          {"informational", row.informational}};
      e["logged"] = row.logged ? nlohmann::json(*row.logged) : nlohmann::json(nullptr);
      e["kvplan"] = row.kvplan ? nlohmann::json(*row.kvplan) : nlohmann::json(nullptr);
      e["relative_error"] =
          row.relative_error ? nlohmann::json(*row.relative_error) : nlohmann::json(nullptr);
      j["rows"].push_back(e);
    }
    j["all_within"] = r.all_within();
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  Table t{{"quantity", "logged", "kvplan", "difference", "how"}, {}};
  for (const auto& row : r.rows) {
    const bool logged_only = row.why.rfind("logged only", 0) == 0;
    std::string diff = logged_only ? "logged only" : "cannot: " + row.why;
    std::string how = row.why;
    if (row.kvplan) {
      char b[64];
      std::snprintf(b, sizeof b, "%+.3f%%%s", row.relative_error ? *row.relative_error * 100 : 0.0,
                    row.informational      ? " (kvplan's model, not counted)"
                    : row.within_tolerance ? ""
                                           : " (outside tolerance)");
      diff = b;
    } else if (!logged_only) {
      how.clear();
    }
    t.rows.push_back({row.quantity, num(row.logged), num(row.kvplan), diff, how});
  }
  const std::string title = r.log.source + ": " + to_string(r.log.engine) +
                            (r.log.version.empty() ? "" : " " + r.log.version) + ", " + r.model_id +
                            ", TP " + std::to_string(r.input.tp) + ", max_model_len " +
                            grouped(r.input.context) + ", " + to_string(r.input.format);
  std::string tail;
  if (r.measured_reserve_bytes)
    tail = "\nreserve beyond the weights (activations, CUDA graphs, non-torch): " +
           human_bytes(*r.measured_reserve_bytes) + " (" + grouped(*r.measured_reserve_bytes) +
           " B)\n";
  if (f == OutputFormat::md) return "### " + title + "\n\n" + render_markdown(t) + tail;
  return title + "\n\n" + render_text(t) + tail;
}

// ---- Starts that failed (start_failure.hpp) ----

namespace {

// What a log says on the way to a failed start: the least "Available KV cache memory" and its
// line, the memory fraction, the memory left after the weights, where the engine gave up, and
// the last failure line read.
struct FailureScan {
  std::optional<StartFailure> failure;
  std::optional<double> available_gib;  // with its sign: negative when nothing was left
  std::size_t available_line = 0, engine_failed = 0;
  std::optional<std::uint32_t> fraction_ppm;
  std::optional<std::uint64_t> avail_after_weights;
};

void read_fraction(const std::string& line, const char* key, const Where& w, FailureScan& s) {
  if (auto v = number_after(line, key); v && *v > 0 && *v <= 1)
    s.fraction_ppm = fraction_to_ppm(*v, w.source, "line " + std::to_string(w.line));
}

// The memory figures and the engine's own "failed to start" line.
void read_memory_marks(const std::string& line, const Where& w, FailureScan& s) {
  if (auto v = gib_after(line, "Available KV cache memory", w, true)) {
    if (!s.available_gib || *v < *s.available_gib) s.available_line = w.line;
    s.available_gib = s.available_gib ? std::min(*s.available_gib, *v) : *v;
  }
  read_fraction(line, "'gpu_memory_utilization':", w, s);
  read_fraction(line, "gpu_memory_utilization=", w, s);
  read_fraction(line, "mem_fraction_static=", w, s);
  if (line.find("Load weight end") != std::string::npos)
    if (auto v = gib_after(line, "avail mem=", w)) s.avail_after_weights = gib_bytes(*v);
  if (line.find("EngineCore failed to start") != std::string::npos ||
      line.find("Engine core initialization failed") != std::string::npos)
    if (!s.engine_failed) s.engine_failed = w.line;
}

// The error's own words: from "ValueError: " or "RuntimeError: ", without vLLM's trailing link
// to its docs, at most 400 characters.
std::string failure_message(const std::string& line) {
  std::size_t from = 0;
  for (const char* name : {"ValueError: ", "RuntimeError: "})
    if (const auto p = line.find(name); p != std::string::npos) {
      from = p;
      break;
    }
  std::string m = line.substr(from, 400);
  if (const auto see = m.find(" See https://"); see != std::string::npos) m.resize(see);
  while (!m.empty() && std::isspace(static_cast<unsigned char>(m.back()))) m.pop_back();
  return m;
}

// The figures a failure line of `kind` states.
void read_failure_figures(const std::string& line, const Where& w, StartFailure& x,
                          FailureScan& s) {
  switch (x.kind) {
    case StartFailureKind::kv_cache_too_small: {
      x.max_model_len = count_after(line, "max seq len (", w);
      if (const auto p = line.find("max seq len ("); p != std::string::npos)
        if (auto v = gib_after(line.substr(p), "), (", w)) x.needed_bytes = gib_bytes(*v);
      if (auto v = refused_available_gib(line, w)) x.available_bytes = gib_bytes(*v);
      x.estimated_max_model_len = count_after(line, "the estimated maximum model length is", w);
      break;
    }
    case StartFailureKind::free_memory_short: {
      const auto p = line.find('(', line.find("Free memory on device"));
      if (p != std::string::npos) {
        const std::string part = line.substr(p);
        if (auto v = number_after(part, "(")) x.free_bytes = gib_bytes(*v);
        if (auto v = gib_after(part, "/", w)) x.total_bytes = gib_bytes(*v);
      }
      const auto r = line.find("desired GPU memory utilization (");
      if (r != std::string::npos) {
        const std::string part = line.substr(r);
        read_fraction(part, "utilization (", w, s);
        if (auto v = gib_after(part, ", ", w)) x.requested_bytes = gib_bytes(*v);
      }
      break;
    }
    case StartFailureKind::sampler_oom:
      x.sampler_requests = count_after(line, "warming up sampler with", w);
      break;
    default:
      break;
  }
}

// A failure the log implies without stating it.
void infer_failure(FailureScan& s) {
  if (s.failure || !s.available_gib) return;
  // vLLM refuses a non-positive KV memory before anything else ("No available memory for the
  // cache blocks", kv_cache_utils.py@001cabc1): a log cut after that figure failed the same way.
  if (*s.available_gib > 0 && s.engine_failed) {
    StartFailure f;
    f.kind = StartFailureKind::kv_cache_too_small;
    f.line = s.engine_failed;
    f.inferred = true;
    f.message = "EngineCore failed to start.";
    s.failure = f;
  } else if (*s.available_gib <= 0) {
    StartFailure f;
    f.kind = StartFailureKind::no_kv_memory;
    f.line = s.available_line;
    char b[96];
    std::snprintf(b, sizeof b, "Available KV cache memory: %.2f GiB", *s.available_gib);
    f.message = b;
    s.failure = f;
  }
}

}  // namespace

std::optional<StartFailure> find_start_failure(const std::string& text, const std::string& source) {
  FailureScan s;
  Where w{source};
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    ++w.line;
    read_memory_marks(line, w, s);
    const auto kind = failure_kind(line);
    if (!kind) continue;
    StartFailure x;
    x.kind = *kind;
    x.line = w.line;
    x.message = failure_message(line);
    read_failure_figures(line, w, x, s);
    s.failure = x;
  }
  infer_failure(s);
  if (s.failure) {
    s.failure->available_gib = s.available_gib;
    s.failure->fraction_ppm = s.fraction_ppm;
    s.failure->avail_after_weights_bytes = s.avail_after_weights;
  }
  return s.failure;
}

StartupLog parse_startup_log(const std::string& text, const std::string& source) {
  StartupLog s{parse_engine_log(text, source), find_start_failure(text, source)};
  return s;
}

StartupLog load_startup_log(const std::string& path) {
  return parse_startup_log(detail::read_text_file(path, "engine log"), path);
}

namespace {

std::string gib_text(double bytes) {
  char b[48];
  std::snprintf(b, sizeof b, "%.2f GiB", bytes / kGiB);
  return b;
}

// A memory fraction as given: two decimals, more where it has them (0.925 stays 0.925).
std::string fraction_text(std::uint32_t ppm) {
  char b[24];
  std::snprintf(b, sizeof b, "%u.%06u", ppm / 1000000u, ppm % 1000000u);
  std::string s = b;
  const std::size_t keep = s.find('.') + 3;
  while (s.size() > keep && s.back() == '0') s.pop_back();
  return s;
}

// A memory fraction as the engines take it, two decimals: rounded up (a fraction that must be
// at least `v`) or down (one that must be at most `v`), in ppm.
// Clamped to [0, 2] first: a fraction past 1 is refused by the caller, never wrapped.
std::uint32_t hundredths_up(double v) {
  v = std::clamp(v, 0.0, 2.0);
  return static_cast<std::uint32_t>(std::ceil(v * 100 - 1e-9)) * 10000u;
}
std::uint32_t hundredths_down(double v) {
  v = std::clamp(v, 0.0, 2.0);
  return static_cast<std::uint32_t>(std::floor(v * 100 + 1e-9)) * 10000u;
}

// The least KV memory per rank with which one request of in.context starts, by kvplan's rules
// (blocks, vLLM's null block, hybrid groups): a binary search over plan_capacity. nullopt when
// not even 1 TiB holds it.
std::optional<std::uint64_t> memory_to_start(const ModelSpec& m, PlanInput in,
                                             const std::string& source) {
  auto starts = [&](std::uint64_t bytes) {
    in.available_kv_bytes = bytes;
    return plan_capacity(m, in, source).fits_one_request;
  };
  const std::uint64_t hi = std::uint64_t{1} << 40;
  if (!starts(hi)) return std::nullopt;
  return least_where(1, hi, starts);
}

// The GPU's total memory per rank: --gpu, else what the log states.
std::uint64_t total_memory(const EngineLog& log, const StartFailure& f, const ExplainOverrides& o) {
  if (o.gpu_memory_bytes) return o.gpu_memory_bytes;
  if (f.total_bytes) return *f.total_bytes;
  return log.total_gpu_bytes.value_or(0);
}

// The engine's memory-fraction flag with a fix's value (ppm already in hundredths).
std::string fraction_fix_flag(Engine e, std::uint32_t ppm) {
  return engine_rules(e).memory_fraction_flag(ppm);
}

// A memory fraction that adds `extra` bytes to the KV memory: u + extra / total, rounded up.
// Appends the fix, or says why there is none.
void fraction_fix(FailureExplanation& x, Engine e, std::uint32_t u, std::uint64_t extra,
                  std::uint64_t total, const std::string& what) {
  const std::string flag = engine_rules(e).memory_fraction_flag_name();
  if (!total) {
    x.arithmetic.push_back(flag + ": give --gpu (the GPU's total memory) to size it");
    return;
  }
  const double need = u / 1e6 + static_cast<double>(extra) / static_cast<double>(total);
  const std::uint32_t ppm = hundredths_up(need);
  x.arithmetic.push_back(flag + " " + fraction_text(u) + " + " + gib_text(extra) + " / " +
                         gib_text(total) + " = " + std::to_string(need).substr(0, 6) + what);
  if (ppm > 1000000) {
    char b[32];
    std::snprintf(b, sizeof b, "%.2f", need);
    x.arithmetic.push_back("no " + flag + " is enough: it would need " + b +
                           ", more than the whole GPU");
    return;
  }
  x.fraction_fit_ppm = ppm;
}

// More tensor parallelism when no memory fraction is enough: the first TP of 2, 4, 8 times the
// log's at which kvplan's memory model starts one request of in.context.
void tp_fix(FailureExplanation& x, const ModelSpec& model, PlanInput in, std::uint64_t total,
            std::uint32_t u, const std::string& source) {
  if (!total) return;
  in.available_kv_bytes.reset();
  in.available_kv_bytes_per_rank.clear();
  in.gpu_memory_bytes = total;
  in.memory_fraction_ppm = u;
  const std::uint32_t tp0 = in.tp;
  for (std::uint32_t k : {2u, 4u, 8u}) {
    in.tp = tp0 * k;
    if (!valid_tp(model, in.tp)) continue;
    try {
      const Capacity c = plan_capacity(model, in, source);
      if (!c.fits_one_request) continue;
      x.fixes.push_back("--tensor-parallel-size " + std::to_string(in.tp) +
                        " (kvplan's memory model: " + gib_text(c.memory.available_bytes) +
                        " per GPU for the KV cache, one request of " + grouped(in.context) +
                        " tokens takes " + gib_text(c.bytes_per_request) + ")");
      return;
    } catch (const Error&) {
      continue;
    }
  }
}

void explain_kv_too_small(FailureExplanation& x, const EngineLog& log, const ModelSpec& model,
                          PlanInput in, std::uint32_t u, std::uint64_t total) {
  const StartFailure& f = x.failure;
  const auto available = f.available_bytes ? f.available_bytes : log.available_kv_bytes;
  x.summary = "vLLM refused to start: one request of max_model_len " + grouped(in.context) +
              " tokens needs " +
              (f.needed_bytes ? gib_text(static_cast<double>(*f.needed_bytes)) + " of KV cache"
                              : "more KV cache") +
              " per GPU, and the GPU had " +
              (available ? gib_text(static_cast<double>(*available)) : "less") + " left for it";
  if (!available) {
    x.fixes.push_back("--max-model-len lower, or " +
                      engine_rules(log.engine).memory_fraction_flag_name() +
                      " higher (the log states no KV memory to size them)");
    return;
  }
  in.available_kv_bytes = *available;
  const Capacity c = plan_capacity(model, in, log.source);
  if (f.inferred) {
    x.summary = "vLLM failed to start (" + f.message + ") after it found " +
                gib_text(static_cast<double>(*available)) + " for the KV cache";
    if (c.fits_one_request) {
      x.summary += "; by kvplan's arithmetic one request of max_model_len " + grouped(in.context) +
                   " tokens fits it: the reason is not in the KV cache";
      // What the engine allocates after the KV cache, by kvplan's terms for the log's release and
      // settings (its graphs outside the budget, Model Runner V2's sampler state and warm-up).
      PlanInput terms = in;
      terms.available_kv_bytes.reset();
      terms.available_kv_bytes_per_rank.clear();
      terms.memory_fraction_ppm = u;
      if (total) terms.gpu_memory_bytes = total;
      try {
        const MemoryBudget m = memory_budget(model, terms, log.source);
        if (m.outside_shortfall_bytes > 0 && m.total_bytes > 0) {
          const MemoryTerms& t = m.outside_terms;
          x.summary += ", but beside the budget kvplan's terms need " +
                       gib_text(static_cast<double>(t.outside_bytes())) + " where " +
                       fraction_text(u) + " leaves " +
                       gib_text(static_cast<double>(m.total_bytes - m.requested_bytes));
          for (const MemoryTerm* term : {&t.context, &t.graphs, &t.sampler_state, &t.warmup})
            if (term->bytes && (term != &t.graphs || !t.graphs_in_budget))
              x.arithmetic.push_back(term->how + ": " + gib_text(static_cast<double>(term->bytes)) +
                                     " (" + term->source + ")");
          if (const auto ppm = fraction_that_starts(m)) {
            x.fraction_fit_ppm = *ppm;
            x.fixes.push_back(fraction_fix_flag(log.engine, *ppm) +
                              " (leaves room for what is allocated after the KV cache)");
          }
        }
      } catch (const Error&) {
      }
      return;
    }
    x.summary += ", less than one request of max_model_len " + grouped(in.context) +
                 " tokens needs (vLLM: \"To serve at least one request with the models's max seq "
                 "len ...\")";
  }
  const auto need = memory_to_start(model, in, log.source);
  const std::uint64_t block_bytes =
      c.page_bytes * std::max<std::uint32_t>(c.stages.empty() ? 1 : c.stages[0].group_size, 1);
  x.arithmetic.push_back("kvplan: " + (model.preset.empty() ? model.id : model.preset) + ", " +
                         to_string(in.format) + ", TP " + std::to_string(in.tp) + ": blocks of " +
                         std::to_string(c.block_size) + " tokens, " + human_bytes(block_bytes) +
                         " each; one request of " + grouped(in.context) + " tokens takes " +
                         grouped(c.blocks_per_request) + " blocks" +
                         (need ? " and needs " + gib_text(static_cast<double>(*need)) + " (" +
                                     grouped(*need) + " B) to start"
                               : ""));
  x.arithmetic.push_back(gib_text(static_cast<double>(*available)) + " = " + grouped(*available) +
                         " B holds " + grouped(c.num_gpu_blocks) + " blocks");
  const std::string held = gib_text(static_cast<double>(*available)) + " holds " +
                           grouped(c.estimated_max_model_len) + " tokens";
  if (f.estimated_max_model_len)
    x.arithmetic.push_back("vLLM's estimate: " + grouped(*f.estimated_max_model_len) +
                           " tokens; kvplan's: " + grouped(c.estimated_max_model_len));
  if (c.estimated_max_model_len > 0) x.max_model_len_fit = c.estimated_max_model_len;
  // The figure was printed to 0.01 GiB: the fraction covers the half hundredth it may be short.
  if (need)
    fraction_fix(x, log.engine, u, *need - std::min(*need, *available) + gib_bytes(0.005), total,
                 " for max_model_len " + grouped(in.context));
  std::string fix = held + ":";
  if (x.max_model_len_fit) fix += " --max-model-len " + std::to_string(*x.max_model_len_fit);
  if (x.fraction_fit_ppm)
    fix += std::string(x.max_model_len_fit ? ", or" : "") + " " +
           fraction_fix_flag(log.engine, *x.fraction_fit_ppm);
  if (x.max_model_len_fit || x.fraction_fit_ppm) x.fixes.push_back(fix);
  if (!x.fraction_fit_ppm) tp_fix(x, model, in, total, u, log.source);
}

void explain_no_kv_memory(FailureExplanation& x, const EngineLog& log, const ModelSpec& model,
                          PlanInput in, std::uint32_t u, std::uint64_t total) {
  const StartFailure& f = x.failure;
  const double avail = f.available_gib.value_or(0);
  x.summary =
      "vLLM refused to start: nothing was left for the KV cache (Available KV cache "
      "memory " +
      gib_text(avail * kGiB) + "): the weights and the profiled activations take more " +
      "than gpu_memory_utilization " + fraction_text(u) + " of the GPU";
  const std::uint64_t deficit = avail < 0 ? gib_bytes(-avail) : 0;
  const auto need = memory_to_start(model, in, log.source);
  if (need)
    x.arithmetic.push_back("kvplan: one request of max_model_len " + grouped(in.context) +
                           " tokens needs " + gib_text(static_cast<double>(*need)) +
                           " of KV cache");
  if (need)
    fraction_fix(x, log.engine, u, deficit + *need + gib_bytes(0.005), total,
                 " (the " + gib_text(static_cast<double>(deficit)) + " short and one request of " +
                     grouped(in.context) + " tokens)");
  if (x.fraction_fit_ppm)
    x.fixes.push_back(fraction_fix_flag(log.engine, *x.fraction_fit_ppm));
  else
    tp_fix(x, model, in, total, u, log.source);
  if (x.fixes.empty())
    x.fixes.push_back(
        "more GPUs (--tensor-parallel-size) or a smaller checkpoint: the weights "
        "leave no room at this memory fraction");
}

void explain_free_memory(FailureExplanation& x, const EngineLog& log, const ModelSpec& model,
                         PlanInput in, std::uint32_t u) {
  const StartFailure& f = x.failure;
  if (!f.free_bytes || !f.total_bytes || *f.total_bytes == 0) {
    x.summary = "vLLM refused to start: less GPU memory was free than gpu_memory_utilization asks";
    x.fixes.push_back("--gpu-memory-utilization lower, or free the GPU of other processes");
    return;
  }
  const std::uint64_t free = *f.free_bytes, total = *f.total_bytes;
  x.summary = "vLLM refused to start: only " + gib_text(static_cast<double>(free)) +
              " of the GPU's " + gib_text(static_cast<double>(total)) +
              " was free, and gpu_memory_utilization " + fraction_text(u) + " asks for " +
              gib_text(f.requested_bytes ? static_cast<double>(*f.requested_bytes)
                                         : static_cast<double>(total) * u / 1e6) +
              "; another process holds " +
              gib_text(static_cast<double>(total - std::min(total, free)));
  const std::uint32_t ppm = hundredths_down(static_cast<double>(free) / static_cast<double>(total));
  x.arithmetic.push_back(
      gib_text(static_cast<double>(free)) + " / " + gib_text(static_cast<double>(total)) + " = " +
      std::to_string(static_cast<double>(free) / static_cast<double>(total)).substr(0, 6) +
      ": gpu_memory_utilization at most " + fraction_text(ppm));
  if (ppm == 0) {
    x.fixes.push_back("free the GPU: other processes hold almost all of it");
    return;
  }
  x.fraction_fit_ppm = ppm;
  std::string fix = fraction_fix_flag(log.engine, ppm) + ", or free the " +
                    gib_text(static_cast<double>(total - std::min(total, free))) +
                    " other processes hold";
  in.available_kv_bytes.reset();
  in.available_kv_bytes_per_rank.clear();
  in.gpu_memory_bytes = total;
  in.memory_fraction_ppm = ppm;
  try {
    const Capacity c = plan_capacity(model, in, log.source);
    if (c.memory.shortfall_bytes > 0) {
      x.arithmetic.push_back("at " + fraction_text(ppm) + ", kvplan's memory model: the weights " +
                             "and reserve exceed the budget by " +
                             gib_text(static_cast<double>(c.memory.shortfall_bytes)));
      fix = "free the " + gib_text(static_cast<double>(total - std::min(total, free))) +
            " other processes hold: at " + fraction_fix_flag(log.engine, ppm) +
            " the weights do not fit";
    } else if (c.fits_one_request) {
      x.arithmetic.push_back("at " + fraction_text(ppm) + ", kvplan's memory model leaves " +
                             gib_text(static_cast<double>(c.memory.available_bytes)) +
                             " for the KV cache: " + grouped(c.kv_cache_tokens) +
                             " tokens, max_model_len " + grouped(in.context) + " fits");
    } else {
      x.arithmetic.push_back("at " + fraction_text(ppm) + ", kvplan's memory model leaves " +
                             gib_text(static_cast<double>(c.memory.available_bytes)) +
                             " for the KV cache: max_model_len " + grouped(in.context) +
                             " does not fit, " + grouped(c.estimated_max_model_len) + " does");
      if (c.estimated_max_model_len > 0) {
        x.max_model_len_fit = c.estimated_max_model_len;
        fix += " (with --max-model-len " + std::to_string(c.estimated_max_model_len) + ")";
      }
    }
  } catch (const Error& e) {
    x.arithmetic.push_back(std::string("kvplan cannot size it at ") + fraction_text(ppm) + ": " +
                           e.what());
  }
  x.fixes.push_back(fix);
}

void explain_sampler(FailureExplanation& x, const ModelSpec& model, PlanInput in, std::uint32_t u,
                     std::uint64_t total) {
  const std::uint64_t n = x.failure.sampler_requests.value_or(0);
  x.summary = "vLLM ran out of GPU memory warming up its sampler for " +
              (n ? std::to_string(n) + " requests (max_num_seqs)" : std::string("max_num_seqs")) +
              ", after the KV cache had taken its share";
  if (n < 2) {
    x.fixes.push_back("--max-num-seqs lower, or --gpu-memory-utilization lower");
    return;
  }
  const std::uint64_t half = n / 2;
  in.max_num_seqs = n;
  const MemoryTerms at_n = engine_rules(in).memory_terms({model, in, true});
  in.max_num_seqs = half;
  const MemoryTerms at_half = engine_rules(in).memory_terms({model, in, true});
  const std::uint64_t saved = at_n.activation.bytes > at_half.activation.bytes
                                  ? at_n.activation.bytes - at_half.activation.bytes
                                  : 0;
  x.arithmetic.push_back(
      "kvplan's activation peak: " + gib_text(static_cast<double>(at_n.activation.bytes)) + " at " +
      std::to_string(n) + " requests (" + at_n.activation.how + "), " +
      gib_text(static_cast<double>(at_half.activation.bytes)) + " at " + std::to_string(half));
  std::string fix = "--max-num-seqs " + std::to_string(half);
  if (total && saved) {
    const double v = u / 1e6 - static_cast<double>(saved) / static_cast<double>(total);
    const std::uint32_t ppm = hundredths_down(v);
    if (ppm > 0 && ppm < u) {
      x.fraction_fit_ppm = ppm;
      fix += ", or " + fraction_fix_flag(Engine::vllm, ppm) + " (" + fraction_text(u) +
             " less the " + gib_text(static_cast<double>(saved)) + " those requests take, of " +
             gib_text(static_cast<double>(total)) + ")";
    }
  }
  x.fixes.push_back(fix);
}

void explain_sglang_no_memory(FailureExplanation& x, const ModelSpec& model, PlanInput in,
                              std::uint32_t u, std::uint64_t total) {
  const StartFailure& f = x.failure;
  x.summary = "SGLang refused to start: at --mem-fraction-static " + fraction_text(u) +
              " no memory was left for the KV pool after the weights";
  if (!f.avail_after_weights_bytes || !total) {
    x.fixes.push_back(std::string("--mem-fraction-static higher") +
                      (total ? "" : " (give --gpu to size it)"));
    return;
  }
  // model_runner.py: rest = available after the weights − total · (1 − mem_fraction_static).
  const std::uint64_t avail = *f.avail_after_weights_bytes;
  const std::uint64_t cell = cell_bytes(model, in.format, in.tp);
  const std::uint64_t one = in.context && cell ? mul(in.context, cell, "bytes") : 0;
  const double need =
      1.0 - (static_cast<double>(avail) - static_cast<double>(one)) / static_cast<double>(total);
  const std::uint32_t ppm = hundredths_up(need);
  x.arithmetic.push_back(
      "1 − (" + gib_text(static_cast<double>(avail)) + " free after the weights" +
      (one ? " − " + gib_text(static_cast<double>(one)) + " for one request of " +
                 grouped(in.context) + " tokens"
           : std::string()) +
      ") / " + gib_text(static_cast<double>(total)) + " = " + std::to_string(need).substr(0, 6));
  if (ppm > 1000000 || static_cast<double>(avail) < static_cast<double>(one)) {
    x.fixes.push_back(
        "more GPUs (--tp-size) or a smaller checkpoint: no --mem-fraction-static "
        "leaves room for the pool");
    return;
  }
  x.fraction_fit_ppm = ppm;
  x.fixes.push_back(fraction_fix_flag(Engine::sglang, ppm));
}

}  // namespace

FailureExplanation explain_start_failure(const EngineLog& log, const StartFailure& f,
                                         const ModelSpec& model, const ExplainOverrides& o) {
  FailureExplanation x;
  x.failure = f;
  x.source = log.source;
  x.model_id = model.id;
  PlanInput in = explain_input(log, model, o);
  if (f.max_model_len) in.context = *f.max_model_len;
  // vLLM's default max_model_len is the model's positions.
  if (in.context == 0) {
    in.context = model.max_context;
    if (in.context)
      x.arithmetic.push_back(
          "max_model_len: the log does not say; vLLM's default is the "
          "model's " +
          grouped(in.context) + " positions");
  }
  if (in.context == 0)
    throw Error(log.source, "max_model_len",
                "the log states no max_model_len and the model none: give --max-model-len");
  const std::uint32_t u =
      o.memory_fraction_ppm.value_or(f.fraction_ppm.value_or(log_fraction(log)));
  const std::uint64_t total = total_memory(log, f, o);
  switch (f.kind) {
    case StartFailureKind::kv_cache_too_small:
      explain_kv_too_small(x, log, model, in, u, total);
      break;
    case StartFailureKind::no_kv_memory:
      explain_no_kv_memory(x, log, model, in, u, total);
      break;
    case StartFailureKind::free_memory_short:
      explain_free_memory(x, log, model, in, u);
      break;
    case StartFailureKind::sampler_oom:
      explain_sampler(x, model, in, u, total);
      break;
    case StartFailureKind::sglang_no_memory:
      explain_sglang_no_memory(x, model, in, u, total);
      break;
  }
  return x;
}

int ExplainOutcome::exit_code() const { return !failure && report && report->all_within() ? 0 : 1; }

ExplainOutcome explain_startup(const StartupLog& s, const ModelSpec& model,
                               const ExplainOverrides& o, const std::string& model_note) {
  ExplainOutcome out;
  out.model_note = model_note;
  if (s.failure) out.failure = explain_start_failure(s.log, *s.failure, model, o);
  // A start that failed before it sized its pool has no pool figures to compare.
  const EngineLog& g = s.log;
  if (!s.failure || g.kv_cache_tokens || g.num_gpu_blocks || g.kv_pool_bytes || g.max_concurrency)
    out.report = explain_log(g, model, o);
  return out;
}

Calibration calibration_of(const ExplainOutcome& o) {
  if (!o.report)
    throw Error(o.failure ? o.failure->source : std::string("--calibrate"), "calibrate",
                "no reserve measured: the start failed before the engine sized its KV cache");
  return calibration_of(*o.report);
}

std::string render(const FailureExplanation& e, OutputFormat f) {
  const std::string where = "line " + std::to_string(e.failure.line);
  if (f == OutputFormat::json) {
    nlohmann::json j = {
        {"source", e.source},  {"line", e.failure.line}, {"message", e.failure.message},
        {"model", e.model_id}, {"summary", e.summary},   {"arithmetic", e.arithmetic},
        {"fixes", e.fixes}};
    j["max_model_len_fit"] =
        e.max_model_len_fit ? nlohmann::json(*e.max_model_len_fit) : nlohmann::json(nullptr);
    j["fraction_fit"] =
        e.fraction_fit_ppm ? nlohmann::json(*e.fraction_fit_ppm / 1e6) : nlohmann::json(nullptr);
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  const bool md = f == OutputFormat::md;
  std::string s = (md ? "### " : "") + e.source + ": " + e.model_id + " failed to start (" + where +
                  ")\n" + (md ? "\n" : "") + e.summary + "\n";
  s += (md ? "- the engine: `" : "  the engine: \"") + e.failure.message + (md ? "`\n" : "\"\n");
  for (const auto& a : e.arithmetic) s += (md ? "- " : "  ") + a + "\n";
  for (const auto& x : e.fixes) s += (md ? "- **fix**: " : "fix: ") + x + "\n";
  return s;
}

std::string render(const ExplainOutcome& o, OutputFormat f) {
  if (f == OutputFormat::json) {
    nlohmann::json j =
        o.report ? nlohmann::json::parse(render(*o.report, f)) : nlohmann::json::object();
    if (!o.report) j["all_within"] = false;
    if (o.failure) j["failure"] = nlohmann::json::parse(render(*o.failure, f));
    if (!o.model_note.empty()) j["model_note"] = o.model_note;
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  std::string s;
  if (!o.model_note.empty()) s += "model: " + o.model_note + "\n";
  if (o.failure) s += render(*o.failure, f);
  if (o.report) s += (s.empty() ? "" : "\n") + render(*o.report, f);
  return s;
}

}  // namespace kvplan
