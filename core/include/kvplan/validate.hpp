// The shape of a deployment — TP, PP, DP, GPUs, block size, context, concurrency, draft layers —
// checked in one place, with every problem reported at once. `kvplan size`, `plan`, `check`
// (deployment files and engine command lines) and the GUI's planner all call it before any
// arithmetic, so the documented limits (docs/limits.md) are the same on every path and a count
// never wraps: the products are formed in 64 bits and bounded before they narrow.
//
//   DeploymentShape s{.tp = 4096, .pp = 4096, .dp = 4096};
//   auto problems = validate_deployment_shape(s, &model, vllm_flag_names());
//   // "--tensor-parallel-size: ... TP × PP × DP = 68719476736 GPUs, over the limit of 65536"
//   throw_if_any("--vllm", problems);
//
// Units: tp, pp, dp and gpus count GPUs (ranks); block_size, context count tokens; concurrency
// counts requests.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kvplan/error.hpp"
#include "kvplan/model.hpp"
#include "kvplan/planner.hpp"

namespace kvplan {

class EngineRules;

inline constexpr std::uint64_t kMaxParallel = 4096;       // TP, PP, DP each
inline constexpr std::uint64_t kMaxGpus = 65536;          // GPUs in all
inline constexpr std::uint64_t kMaxBlockSize = 1u << 20;  // tokens per page
inline constexpr std::uint64_t kMaxContextTokens = std::uint64_t{1} << 40;
inline constexpr std::uint64_t kMaxConcurrency = std::uint64_t{1} << 32;
inline constexpr std::uint64_t kMaxDraftLayers = 64;

struct DeploymentShape {
  std::uint64_t tp = 1;                                     // tensor-parallel ranks per replica
  std::uint64_t pp = 1;                                     // pipeline stages per replica
  std::optional<std::uint64_t> dp = std::nullopt;           // data-parallel replicas, when given
  std::optional<std::uint64_t> gpus = std::nullopt;         // GPUs in all (else tp · pp · dp)
  std::optional<std::uint64_t> block_size = std::nullopt;   // tokens per page, when given
  std::optional<std::uint64_t> context = std::nullopt;      // tokens per request, when given
  std::optional<std::uint64_t> concurrency = std::nullopt;  // requests in flight, when given
  std::uint64_t draft_layers = 0;                           // speculative layers holding a cache
};

// How each surface names the fields (a flag, a JSON pointer).
struct ShapeFields {
  std::string tp = "tp", pp = "pp", dp = "dp", gpus = "gpus", block_size = "block_size",
              context = "context", concurrency = "concurrency", draft_layers = "draft_layers",
              attention_dp = "attention_dp", moe_ep = "moe_ep_size";
};
ShapeFields cli_flag_names();             // --tp, --pp, --gpus, --block-size, ...
ShapeFields deploy_file_names();          // /engine/tensor_parallel_size, /hardware/gpus, ...
ShapeFields engine_flag_names(Engine e);  // --tensor-parallel-size (vLLM), --tp (SGLang), ...

// Every problem of the shape: each count inside its bound, TP × PP × DP ≤ 65536 GPUs (in
// 64-bit arithmetic), the GPUs a whole number of TP × PP replicas (and equal to TP × PP × DP when
// both are given). With a model, also: TP divides the attention heads and divides or is a
// multiple of the KV heads (and shards a recurrent mixer's heads), PP ≤ the layers.
std::vector<Problem> validate_deployment_shape(const DeploymentShape& shape, const ModelSpec* model,
                                               const ShapeFields& names = {});

// The same checks for a planner input (gpus 0 = one replica, block_size 0 = the engine's).
std::vector<Problem> validate_plan_input(const ModelSpec* model, const PlanInput& in,
                                         const ShapeFields& names = {});

// Every problem of a DP-attention layout (PlanInput::attention_dp, moe_ep) under an engine's
// rules, named by names' fields: at least one group and one EP rank, an engine that has DP
// attention, its group size (TensorRT-LLM: one GPU), an MoE model, no PP, moe_ep dividing the
// server's tp · attention_dp GPUs (and only under DP attention), the server within kMaxGpus and,
// when gpus is given (not 0), a whole number of servers. The planner, deployment files and
// their callers all check through it, so every surface refuses the same layouts.
std::vector<Problem> validate_attention_dp(const PlanInput& in, const EngineRules& rules,
                                           bool model_is_dense, const ShapeFields& names = {});

// GPUs in all of a valid shape: gpus when given, else tp · pp · dp.
std::uint32_t shape_gpus(const DeploymentShape& shape);

// The flags `kvplan generate` and `kvplan replay` share, checked by one function so both refuse
// the same values (exit 2), never a run that measures nothing or samples NaN:
//   temperature: 0 (greedy) or in [1e-6, 1e6]; below 1e-6 logits / temperature overflow float,
//                the softmax is NaN and the sampler picks the last token every step.
//   prefill:     SnapKV's prompt length, in [1, tokens] (a longer one silently keeps the full
//   cache). eval_from:   the first scored position, below tokens (else no position is measured).
//   block_sizes: tokens per block of the kernels' block pool, each in [1, max(65536, tokens)]: a
//                block is allocated whole, so 2^32 - 1 asked for a pool no machine holds
//                (std::bad_alloc, exit 3); up to 65536, or the run's own length, it costs no more
//                than the cache itself.
// `tokens` is the positions the run covers when known before it starts (generate: min(steps,
// seq_len); a trace: its T); without it prefill and eval_from are checked by the replay itself.
struct SequenceFlags {
  std::optional<double> temperature = std::nullopt;
  std::optional<std::uint64_t> prefill = std::nullopt;
  std::optional<std::uint64_t> eval_from = std::nullopt;
  std::optional<std::uint64_t> tokens = std::nullopt;
  std::vector<std::uint64_t> block_sizes = {};
};
inline constexpr std::uint64_t kMaxKernelBlockTokens = 65536;
inline constexpr double kMinTemperature = 1e-6;
inline constexpr double kMaxTemperature = 1e6;
std::vector<Problem> validate_sequence_flags(const SequenceFlags& flags);

// kvplan replay's configurations, every --kv-dtype × --policy × --block-size: each list keeps
// the first of equal entries (specs compared in their canonical spelling, so
// h2o:heavy=4,recent=4 and h2o:recent=4,heavy=4 are one), and the product is at most 256
// configurations (each replays the whole run): thousands of identical --policy flags are one.
// Throws Error naming the flag on a bad spec; returns the problem when the product is too large.
struct ReplayGrid {
  std::vector<std::string> formats, policies;
  std::vector<std::uint32_t> block_sizes;
};
inline constexpr std::size_t kMaxReplayConfigs = 256;
std::vector<Problem> dedupe_replay_grid(ReplayGrid& grid);

// RoPE base (traces, synthetic traces): in [1, 1e15]. Below 1 (or a denormal) the frequencies
// theta^(-2i/d) overflow float and every angle is NaN; real models use 1e4 … 1e7.
inline constexpr double kMinRopeTheta = 1.0;
inline constexpr double kMaxRopeTheta = 1e15;
inline bool valid_rope_theta(double theta) {
  return theta >= kMinRopeTheta && theta <= kMaxRopeTheta;  // NaN fails both
}

}  // namespace kvplan
