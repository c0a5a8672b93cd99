// Startup logs of engines that failed to start: the failure in plain words and the fix, computed
// by kvplan's own arithmetic from the figures the engine printed before it stopped.
//
//   StartupLog s = kvplan::load_startup_log("vllm.log");
//   // "ValueError: To serve at least one request with the models's max seq len (131072), (16.00
//   //  GiB KV cache is needed, which is larger than the available KV cache memory (1.71 GiB). ..."
//   ExplainOutcome o = kvplan::explain_startup(s, kvplan::load_model("llama-3.1-8b"), overrides);
//   // o.failure->fixes[0]: "1.71 GiB holds 13,984 tokens: --max-model-len 13984"
//
// The engines' words, as their sources raise them:
//   vLLM  "To serve at least one request with the models's max seq len (N), (X GiB KV cache is
//         needed, which is larger than the available KV cache memory (Y GiB). Based on the
//         available memory, the estimated maximum model length is M. ..." and "No available
//         memory for the cache blocks." (vllm/v1/core/kv_cache_utils.py@001cabc1,
//         _check_enough_kv_cache_memory; older: "... (X GB KV cache isneeded, which is larger than
//         the available KV Cache memory (Y GB)"), "Free memory on device cuda:0 (F/T GiB) on
//         startup is less than desired GPU memory utilization (U, R GiB)."
//         (vllm/v1/worker/utils.py@0027b027 request_memory; gpu_worker.py init_device before),
//         "CUDA out of memory occurred when warming up sampler with N dummy requests."
//         (vllm/v1/worker/gpu_model_runner.py, _dummy_sampler_run)
//   SGLang "Not enough memory. Please try to increase --mem-fraction-static."
//         (python/sglang/srt/model_executor/model_runner.py@01cc04e2: the memory left after the
//         weights, minus total · (1 − mem_fraction_static), is not positive)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kvplan/engine_log.hpp"
#include "kvplan/model_ref.hpp"

namespace kvplan {

enum class StartFailureKind {
  kv_cache_too_small,  // vLLM: one request of max_model_len needs more than the KV memory
  no_kv_memory,        // vLLM: nothing left for the KV cache after weights and activations
  free_memory_short,   // vLLM: free memory at start below total · gpu_memory_utilization
  sampler_oom,         // vLLM: out of memory warming up the sampler with max_num_seqs requests
  sglang_no_memory,    // SGLang: nothing left for the pool at --mem-fraction-static
};

struct StartFailure {
  StartFailureKind kind = StartFailureKind::kv_cache_too_small;
  std::size_t line = 0;  // 1-based
  std::string message;   // the engine's words, from the error's name on, at most 400 characters
  // No refusal line, only "EngineCore failed to start." after the KV memory figure (a log cut
  // short): read as KV memory too small for max_model_len, which explain then checks.
  bool inferred = false;
  // The figures the log states (memory per GPU rank, bytes; GiB printed with 2 decimals).
  std::optional<std::uint64_t> max_model_len;            // "max seq len (N)"
  std::optional<std::uint64_t> needed_bytes;             // "(X GiB KV cache is needed"
  std::optional<std::uint64_t> available_bytes;          // "available KV cache memory (Y GiB)"
  std::optional<std::uint64_t> estimated_max_model_len;  // "estimated maximum model length is M"
  std::optional<double> available_gib;  // the smallest "Available KV cache memory: X GiB", signed
  std::optional<std::uint64_t> free_bytes, total_bytes, requested_bytes;  // "Free memory ..."
  std::optional<std::uint32_t> fraction_ppm;      // gpu_memory_utilization / mem_fraction_static
  std::optional<std::uint64_t> sampler_requests;  // "warming up sampler with N dummy requests"
  std::optional<std::uint64_t> avail_after_weights_bytes;  // SGLang "Load weight end ... avail mem"
};

// The last failure the log reports (nullopt when it shows none). Throws Error(source, "line N")
// on a figure in a format the engine does not print, as parse_engine_log does.
std::optional<StartFailure> find_start_failure(const std::string& text, const std::string& source);

// A log read once: its KV figures (parse_engine_log, which accepts a log holding a failure and no
// KV line) and the failure it ends with.
struct StartupLog {
  EngineLog log;
  std::optional<StartFailure> failure;
};
StartupLog parse_startup_log(const std::string& text, const std::string& source);
StartupLog load_startup_log(const std::string& path);

// The log's model reference resolved as an engine command line's (model_ref.hpp): a path or an
// older repo id matches a preset by name, and the note says so. An Error names the log.
ResolvedModel resolve_log_model(const EngineLog& log);

struct FailureExplanation {
  StartFailure failure;
  std::string source;  // the log
  std::string model_id;
  std::string summary;                             // the failure in plain words
  std::vector<std::string> arithmetic;             // kvplan's figures behind the fix, one line each
  std::vector<std::string> fixes;                  // flags and values that make it start
  std::optional<std::uint64_t> max_model_len_fit;  // the longest max_model_len that starts
  std::optional<std::uint32_t> fraction_fit_ppm;   // the memory fraction that makes it start
};

// What failed and the fix. GPU memory comes from the log ("Free memory on device (F/T GiB)",
// total_gpu_memory) or overrides.gpu_memory_bytes (--gpu); without it the memory-fraction fix says
// what is missing. Throws Error naming the log on inputs kvplan cannot size (a bad TP).
FailureExplanation explain_start_failure(const EngineLog& log, const StartFailure& f,
                                         const ModelSpec& model,
                                         const ExplainOverrides& overrides = {});

// `kvplan explain`'s answer: the failure, when the log ends in one, and the recomputed figures,
// when the log has the engine's pool figures to compare (a start that failed before it sized its
// pool has none).
struct ExplainOutcome {
  std::optional<ExplainReport> report;
  std::optional<FailureExplanation> failure;
  std::string model_note;  // how the log's model reference was resolved, when it was
  // 0: every recomputed figure within tolerance and no failure; 1 otherwise.
  int exit_code() const;
};
ExplainOutcome explain_startup(const StartupLog& s, const ModelSpec& model,
                               const ExplainOverrides& overrides = {},
                               const std::string& model_note = "");
// The calibration of an outcome; throws Error when it measured no reserve (a failed start).
Calibration calibration_of(const ExplainOutcome& o);

// table, json, md.
std::string render(const FailureExplanation& e, OutputFormat f);
std::string render(const ExplainOutcome& o, OutputFormat f);

}  // namespace kvplan
