// Engine startup logs in: the KV-cache numbers vLLM, SGLang and TensorRT-LLM print when they
// start, read from a log, recomputed from the configuration the log states, side by side.
//
//   EngineLog log = kvplan::parse_engine_log(text, "vllm.log");
//   // "Available KV cache memory: 51.63 GiB" -> log.available_kv_bytes == floor(51.63 · 2^30)
//   // "GPU KV cache size: 410,128 tokens"    -> log.kv_cache_tokens == 410128
//   ExplainReport r = kvplan::explain_log(log, kvplan::load_model("llama-3.1-8b"), overrides);
//   // r.rows: quantity, logged, kvplan's, relative difference — or why it cannot be recomputed
//
// Lines read (each engine's own wording, docs/accuracy.md):
//   vLLM  "Initializing a V1 LLM engine (vX.Y.Z) with config: model='M', ...,
//         max_seq_len=N, ..., tensor_parallel_size=T, ..., kv_cache_dtype=D", "Using max model len
//         N", "Model loading took X GiB", "Available KV cache memory: X GiB", "GPU KV cache size:
//         N tokens", "Maximum concurrency for N tokens per request: X.XXx", V0's "# GPU blocks: N"
//         and "kv_cache_size=X GiB"
//         and "kv_cache_size=X GiB"; the memory profile: V1's "Total non KV cache memory: X GiB;
//         torch peak memory increase: X GiB; non-torch forward increase memory: X GiB; weights
//         memory: X GiB", "Graph capturing finished in N secs, took X GiB", "Estimated CUDA graph
//         memory: X GiB total", V0's "model weights take X GiB; non_torch_memory takes X GiB;
//         PyTorch activation peak memory takes X GiB; the rest of the memory reserved for KV Cache
//         is X GiB" (and its one-figure-a-line and key=value spellings), "total_gpu_memory"
//   SGLang "KV Cache is allocated. [dtype: D,] #tokens: N, K size: X GB, V size: Y GB" (GB are
//         GiB), "max_total_num_tokens=N, ..., context_len=N", "Load weight end. ... mem usage=X
//         GB", "Mamba Cache is allocated. max_mamba_cache_size: N, conv_state size: X GB, ssm_state
//         size: Y GB", "Capture cuda graph end. ... mem usage=X GB"
//   TensorRT-LLM "Number of blocks in KV cache primary pool: N", "Number of tokens per block: N",
//         "Allocated X GiB for max tokens in paged KV cache (N)", the older "Allocate N bytes for
//         k/v cache." and "Using N total tokens in paged KV cache", "Memory usage when calculating
//         max tokens in paged kv cache: total: X GiB, available: Y GiB"
//
// The memory profile's figures (activation peak, non-torch memory, CUDA graphs) are shown beside
// kvplan's one reserve where kvplan has a figure, as logged-only otherwise; they never decide
// whether a log is reproduced (ExplainRow::informational).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kvplan/model.hpp"
#include "kvplan/planner.hpp"

namespace kvplan {

struct EngineLog {
  std::string source;
  Engine engine = Engine::vllm;
  std::string version;  // "0.15.1" where the log says
  // V0's profile spellings ("PyTorch activation peak memory", "non_torch_memory"): a V0 engine,
  // whatever else the excerpt shows.
  bool v0_profile = false;
  std::string model;  // the config line's model / model_path
  std::optional<std::uint64_t> max_model_len;
  std::optional<std::uint32_t> tp;
  std::optional<std::string> kv_cache_dtype;        // the engine's spelling
  std::optional<std::uint64_t> weights_bytes;       // "Model loading took" / "mem usage"
  std::optional<std::uint64_t> available_kv_bytes;  // vLLM "Available KV cache memory"
  std::optional<std::uint64_t> kv_pool_bytes;       // SGLang K + V sizes, TRT-LLM "Allocated X GiB"
  std::optional<std::uint64_t> kv_cache_tokens;     // the engine's token count
  std::optional<std::uint64_t> num_gpu_blocks;
  std::optional<std::uint32_t> tokens_per_block;    // TensorRT-LLM
  std::optional<double> max_concurrency;            // vLLM
  std::optional<std::uint64_t> concurrency_tokens;  // the N of "Maximum concurrency for N tokens"
  // The memory profile (bytes per rank), where the log prints it.
  std::optional<std::uint64_t> total_gpu_bytes;   // vLLM total_gpu_memory, TRT-LLM "total:"
  std::optional<std::uint64_t> free_after_bytes;  // TRT-LLM "available:" (after the weights)
  std::optional<std::uint64_t> non_kv_bytes;      // vLLM "Total non KV cache memory"
  std::optional<std::uint64_t> activation_bytes;  // torch peak increase / activation peak
  std::optional<std::uint64_t> non_torch_bytes;   // non-torch (forward increase) memory
  std::optional<std::uint64_t> cuda_graph_bytes;  // taken by graph capture (or estimated)
  // vLLM hybrids: "Setting attention block size to N tokens to ensure that attention page size
  // is >= mamba page size." (page-size unification) and "Padding mamba page size by X%".
  std::optional<std::uint32_t> attention_block_size;
  std::optional<double> mamba_padding_percent;
  std::optional<std::uint64_t> mamba_slots;       // SGLang max_mamba_cache_size
  std::optional<std::uint64_t> mamba_pool_bytes;  // SGLang conv_state + ssm_state sizes
  std::optional<KvDtype> ssm_state_dtype;         // SGLang server_args mamba_ssm_dtype
  std::uint64_t mamba_rounding_bytes = 0;
  // A value was printed with a precision (2 decimals of GiB): half its last digit, in bytes.
  std::uint64_t memory_rounding_bytes = 0;
};

// Reads the lines above; the last occurrence of a line wins, except vLLM's "Available KV cache
// memory", printed once per TP rank, where the smallest wins (the engine sizes every rank by
// it). Numbers are read only in the formats the engines print them: counts as digits grouped by
// commas in threes, exactly, below 2^64 (2^32 for TP and tokens per block); memory in GiB (or GB
// of 2^30 bytes) with a decimal dot. Throws Error(source, "line N") on another unit, a decimal
// comma, an overflow, KV lines of two engines, or two start-ups with different KV figures; and
// Error(source) when no known KV line is found.
EngineLog parse_engine_log(const std::string& text, const std::string& source);
// Reads a log file (a regular file of at most 64 MiB) and parses it.
EngineLog load_engine_log(const std::string& path);
// The model the log's config line names (log.model), for `kvplan explain` without --model: an
// Error names the log and says the reference came from it.
ModelSpec load_log_model(const EngineLog& log);

// What the log does not say, given by the user (flags of `kvplan explain`).
struct ExplainOverrides {
  std::optional<std::uint64_t> max_model_len;
  std::optional<std::uint32_t> tp;
  std::optional<std::string> kv_cache_dtype;  // the engine's spelling
  std::optional<std::uint32_t> block_size;
  std::optional<std::uint64_t> max_num_batched_tokens;  // default: the engine's on the GPU
  std::optional<std::uint64_t> max_num_seqs;            // default: the engine's on the GPU
  std::uint32_t draft_layers = 0;  // speculative (EAGLE / MTP) layers holding a cache
  std::string gpu_id;              // with the GPU, the log calibrates the reserve
  std::uint64_t gpu_memory_bytes = 0;
  std::optional<std::uint32_t> memory_fraction_ppm;  // default: the engine's
};

struct ExplainRow {
  std::string quantity;                  // "GPU KV cache size (tokens)", ...
  std::optional<double> logged, kvplan;  // kvplan empty: not recomputed (`why` says why)
  std::string why;                       // the input that was missing, or how it was derived
  // |kvplan − logged| / logged, and whether it is within the ledger's tolerance (tokens and
  // blocks 0.3 %, maximum concurrency 0.01x plus the log's rounding of its memory figure).
  std::optional<double> relative_error;
  bool within_tolerance = false;
  // Beside kvplan's memory model (its reserve, its weight estimate of a quantized checkpoint),
  // not a reproduction of the engine's arithmetic: shown, never counted by all_within().
  bool informational = false;
};

struct ExplainReport {
  EngineLog log;
  std::string model_id;
  PlanInput input;  // what kvplan recomputed with
  std::vector<ExplainRow> rows;
  // With the GPU (vLLM logs with "Available KV cache memory"): what the engine kept besides
  // kvplan's weights — total · fraction − available − weights, the activation peak, CUDA graphs
  // and non-torch memory together — the reserve that makes kvplan's memory model give the logged
  // available memory exactly.
  std::optional<std::uint64_t> measured_reserve_bytes;
  // Where the log prints its memory profile (activation peak, non-torch memory, CUDA graphs):
  // logged less kvplan's term for the log's settings, per term (empty when none is logged).
  MemoryCorrections corrections;
  // every recomputed row that is not informational within tolerance (and at least one)
  bool all_within() const;
};

// A calibration: what one engine, version, GPU, model and TP measured, as `kvplan explain
// --calibrate` writes it (the reserve) and `scripts/sim2real.py --calibrate` writes it (the
// step-time efficiency), read by `plan` / `check` / `simulate --calibration`. Either part may be
// absent; a file needs at least one:
//   {"kvplan_calibration": 1, "engine": "vllm", "version": "0.15.1", "gpu": "a100-40gb",
//    "model": "llama-3.1-8b", "tp": 1, "reserve_bytes": 3047718502, "source": "vllm.log",
//    "terms": {"activation_delta_bytes": -10737418, "non_torch_delta_bytes": 0,
//              "cuda_graph_bytes": 429496729},
//    "efficiency": {"memory": 0.8, "overhead_s": 0.0012, "allreduce_latency_s": 1.5e-05}}
// The efficiency fields are the serving simulator's (simulator/include/kvplan/sim/step_time.hpp,
// docs/simulate-step-time.md); a field left out keeps the default for the GPU and engine.
struct CalibratedEfficiency {
  std::optional<double> compute, memory, interconnect;  // fractions of the peak, (0, 1]
  std::optional<double> overhead_s;                     // per step, seconds, [0, 10]
  std::optional<double> layer_overhead_s;               // per layer per step, seconds, [0, 0.01]
  std::optional<double> allreduce_latency_s;  // per all-reduce call (tp > 1), seconds, [0, 0.01]
  std::optional<double> seq_overhead_s;       // per sequence in the step, seconds, [0, 0.01]
  std::optional<double> frontend_s;  // per request, added to TTFT and E2E, seconds, [0, 10]
  bool empty() const {
    return !compute && !memory && !interconnect && !overhead_s && !layer_overhead_s &&
           !allreduce_latency_s && !seq_overhead_s && !frontend_s;
  }
};
struct Calibration {
  std::string engine, version, gpu, model, source;
  std::uint32_t tp = 1;
  std::optional<std::uint64_t> reserve_bytes;  // absent: the planner's default reserve
  // Per-term corrections ("terms": activation_delta_bytes, non_torch_delta_bytes,
  // cuda_graph_bytes): where present they are applied to kvplan's terms instead of replacing them
  // all by reserve_bytes, so a deployment with other settings keeps the model's arithmetic.
  std::optional<MemoryCorrections> terms;
  std::optional<CalibratedEfficiency> efficiency;  // absent: the step-time defaults
};
std::string to_json(const Calibration& c);
Calibration load_calibration(const std::string& path);
// Writes it to a temporary file beside `path` and renames it over; throws Error naming the path
// when the write fails.
void save_calibration(const Calibration& c, const std::string& path);
// The calibration of a report; throws Error when the report measured no reserve.
Calibration calibration_of(const ExplainReport& r);

// Recomputes every logged KV number the log's configuration determines, from the memory the
// log says the engine gave the cache. Throws Error naming the missing input when none can be.
ExplainReport explain_log(const EngineLog& log, const ModelSpec& model,
                          const ExplainOverrides& overrides = {});

// table, json, md.
std::string render(const ExplainReport& r, OutputFormat f);

}  // namespace kvplan
