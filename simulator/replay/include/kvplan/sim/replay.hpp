// The replay engine: runs attention data (a trace, or the llama2.c reference model in the loop)
// token by token through kvplan's own KV cache — the kernels' paged block pool, decode attention
// and eviction — for several configurations (KV format × retention policy × block size), and
// measures what each one holds and what it does to the model.
//
//   auto m = Llama2cModel::load("stories260K.bin");
//   std::vector<ReplayConfig> cfgs = {parse_config("fp16", "full", 16),
//                                     parse_config("fp16", "streaming:sink=4,window=28", 16)};
//   ReplayReport r = replay_model(m, tokens, cfgs, {.eval_from = 32});
//   r.configs[1].mean_kl > 0; r.configs[1].bytes_match == true
//
// Memory: after every step (append, evict, attend) the pool's bytes_held() is compared with
// kvplan::kv_cost for the same configuration at that context (bytes_per_request), on a ModelSpec
// built from the model or trace. They must be equal at every step; the result says so.
// SnapKV compresses once at the end of the prefill (`prefill` tokens); before that the cache holds
// the whole prompt, and the prediction is the full-policy cost (kv_cost with policy full).
//
// Fidelity (per layer, mean over scored steps): relative L2 error of the attention output against
// llama2.c-style attention over the full float32 cache fed the same q, k, v; attention mass the
// full cache puts on the positions the configuration retained.
// Model in the loop (teacher-forced): KL(full ‖ config) of the next-token distribution, top-1
// agreement and perplexity, scoring positions t >= eval_from (logits at t predict token t+1).
// The full-cache run is the same kernel path with fp32 and policy full, so fp32+full gives KL 0.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kvplan/error.hpp"
#include "kvplan/kernels/kernels.hpp"
#include "kvplan/kv_format.hpp"
#include "kvplan/model.hpp"
#include "kvplan/policy.hpp"
#include "kvplan/report.hpp"
#include "kvplan/sim/llama2c.hpp"
#include "kvplan/sim/trace.hpp"

namespace kvplan::sim {

struct ReplayConfig {
  KvFormat format{};
  RetentionPolicy policy{};
  std::uint32_t block_size = 16;  // tokens per cache block
};
// "fp16 | streaming:sink=4,window=28 | S=16"
std::string label(const ReplayConfig& c);
// Parses the spec strings (errors name the flag).
ReplayConfig parse_config(const std::string& kv_dtype, const std::string& policy,
                          std::uint32_t block_size);

// The attention of one configuration through the kernels. Keys are stored after RoPE at their
// original positions; with positions=cache the kernels re-rotate them to their cache slots and
// the query is rotated at the last slot. Evicting from a KIVI cache (whose key groups span G
// tokens, so the kernels' compact() refuses it) rebuilds the layer from the kept tokens' float32
// values, re-quantized in fresh groups.
// A failed kernel Status as the Error the top level maps to an exit code: invalid_argument is
// invalid input (exit 2); a runtime failure (StatusCode::internal: a CUDA error, out of device
// memory included), a missing sequence or an unimplemented case is internal (exit 3).
Error kernel_error(const kernels::Status& s, const std::string& source, const std::string& field,
                   const std::string& what);

class KernelAttention final : public AttentionBackend {
 public:
  // `prefill`: SnapKV's prompt length (compress after that many tokens); ignored otherwise.
  KernelAttention(const ReplayConfig& cfg, std::uint32_t layers, std::uint32_t q_heads,
                  std::uint32_t kv_heads, std::uint32_t head_dim, RopeSpec rope,
                  kernels::Backend backend = kernels::Backend::cpu, std::uint64_t prefill = 0,
                  const std::string& source = "replay");
  void attend(std::uint32_t layer, std::uint64_t pos, std::span<const float> q,
              std::span<const float> k, std::span<const float> v, std::span<float> out) override;
  std::uint64_t bytes_held() const;  // every layer, bytes in blocks the pools hold
  std::uint64_t bytes_held(std::uint32_t layer) const;  // one layer's, bytes
  std::uint32_t retained(std::uint32_t layer) const;
  // Original positions of the tokens layer `layer`, KV head `h` retains.
  std::span<const std::int32_t> positions(std::uint32_t layer, std::uint32_t h) const;
  const ReplayConfig& config() const { return cfg_; }

 private:
  void check(const kernels::Status& s, const char* what) const;
  void snapkv_compress(std::uint32_t layer, std::uint64_t n);
  void apply_keep(std::uint32_t layer, const kernels::KeepSet& keep);
  bool kivi_evict_ = false;  // kivi + streaming/h2o: rebuild layers from float32 rows
  ReplayConfig cfg_;
  std::uint32_t layers_, hq_, hkv_, d_;
  RopeSpec rope_;
  kernels::RopeParams krope_{};
  kernels::Backend backend_;
  std::uint64_t prefill_;
  std::string source_;
  std::vector<kernels::PagedKvPool> pools_;  // one single-layer pool per layer
  std::vector<std::uint32_t> seqs_;
  std::vector<std::vector<std::vector<float>>> scores_;  // h2o: [layer][kv head][slot]
  // snapkv: the prompt in float32 (post-RoPE) and the last `window` rotated queries, per layer
  std::vector<std::vector<float>> shadow_k_, shadow_v_, obs_q_;
  // Scratch of one layer's attend(): per layer, so layers can be attended on their own threads.
  struct Scratch {
    std::vector<float> qr, probs, flat;
  };
  std::vector<Scratch> scratch_;
};

// The full float32 cache a trace replay measures fidelity against: ReferenceAttention's arithmetic
// (llama2.c's attention: sequential float dot products, scaled by 1/sqrt(d), expf softmax, the
// weighted V sum in order) through the same full_attention functions, with room for `capacity`
// positions reserved up front and every per-call buffer held per layer, so different layers may
// be appended and attended on different threads at once.
//
//   FullCacheReference ref(2, 8, 2, 64, rope, /*capacity=*/4096);
//   ref.attend(layer, t, q, k, v, out);   // out == ReferenceAttention's, byte for byte
class FullCacheReference {
 public:
  FullCacheReference(std::uint32_t layers, std::uint32_t q_heads, std::uint32_t kv_heads,
                     std::uint32_t head_dim, RopeSpec rope, std::uint64_t capacity);
  // Appends k, v at `pos` (positions in order from 0, below capacity), then attends with q.
  void attend(std::uint32_t layer, std::uint64_t pos, std::span<const float> q,
              std::span<const float> k, std::span<const float> v, std::span<float> out);
  // Appends k, v at `pos` without computing attention (steps a replay does not score).
  void append(std::uint32_t layer, std::uint64_t pos, std::span<const float> k,
              std::span<const float> v);
  // Softmax probabilities of layer `layer`'s last attend() for query head h, positions [0, pos].
  std::span<const float> last_probs(std::uint32_t layer, std::uint32_t h) const;

 private:
  std::uint32_t layers_, hq_, hkv_, d_;
  RopeSpec rope_;
  std::uint64_t cap_;
  std::vector<full_attention::LayerCache> cache_;  // per layer, room for `capacity` positions
  // Per layer (layers may be attended on their own threads): rotated q, probabilities
  // [q head][last_len] of the last attend() and its length.
  struct Scratch {
    std::vector<float> qr, att;
    std::uint64_t last_len = 0;
  };
  std::vector<Scratch> scratch_;
};

struct ConfigResult {
  ReplayConfig config{};
  std::string label;
  std::uint64_t steps = 0;  // tokens replayed
  // Memory, bytes of the one sequence: final and peak over the steps.
  std::uint64_t predicted_bytes = 0, measured_bytes = 0;
  std::uint64_t predicted_peak_bytes = 0, measured_peak_bytes = 0;
  bool bytes_match = true;                // equal at every step
  std::int64_t first_mismatch_step = -1;  // -1: none
  std::uint64_t retained_tokens = 0;      // per layer per head at the end (layer 0)
  // Fidelity against the full float32 cache on the same inputs, per layer (mean over steps).
  std::vector<double> layer_rel_error, layer_mass;
  double rel_error = 0, attention_mass = 1;  // means over layers
  // Model in the loop (NaN on traces).
  bool model_in_loop = false;
  double mean_kl = 0, max_kl = 0, top1_agreement = 1, perplexity = 0;
  std::uint64_t scored = 0;  // positions scored
  // Time in this configuration's kernel calls, summed over every layer and worker thread (CPU
  // time of the kernels, not elapsed time: with --threads 2 a run finishes sooner, this does
  // not shrink), and steps over that time.
  double seconds = 0, tokens_per_second = 0;
};

struct ReplayReport {
  std::string source;  // checkpoint or trace path
  std::string model;
  std::uint64_t tokens = 0;
  std::uint64_t eval_from = 0;
  std::uint64_t prefill = 0;  // SnapKV prompt length used
  bool model_in_loop = false;
  double baseline_perplexity = 0;  // the full-cache run (model only)
  std::vector<ConfigResult> configs;
  bool all_bytes_match() const;
};

struct ReplayOptions {
  std::uint64_t eval_from = 0;             // score positions >= eval_from
  std::optional<std::uint64_t> prefill{};  // SnapKV prompt in [1, tokens]; default eval_from or T/2
  std::uint64_t max_tokens = 0;            // 0 = all
  std::uint64_t fidelity_every = 1;        // trace replay: score fidelity every k-th step (>= 1)
  kernels::Backend backend = kernels::Backend::cpu;
  // Trace replay: worker threads, each replaying a share of the layers (0 = the hardware's; never
  // more than the layers; 1 for CUDA). Results are the same bytes for any count.
  std::uint32_t threads = 0;
  // Called with (steps done, total steps) after each step (a trace replay: after each chunk of
  // steps, for every step of it, in order, from the calling thread).
  std::function<void(std::uint64_t, std::uint64_t)> progress{};
};

// Teacher-forced replay of `tokens` through the model, every configuration in lockstep.
ReplayReport replay_model(const Llama2cModel& model, std::span<const std::int32_t> tokens,
                          const std::vector<ReplayConfig>& configs, const ReplayOptions& opt = {});

// Replay of a trace's q, k, v through every configuration.
ReplayReport replay_trace(const TraceFile& trace, const std::vector<ReplayConfig>& configs,
                          const ReplayOptions& opt = {});

// ------------------------------------------------------------------ one replay entry point

// A replay as `kvplan replay` and the GUI's replay runner both describe it: the source, the
// configurations as spec strings and the options. run_replay() expands and runs it, so both front
// ends report the same thing for the same input.
//
//   ReplayRequest r{.trace = "synth.safetensors",
//                   .configs = {{"fp16", "full", 16}, {"fp16", "streaming:sink=4,window=124",
//                   16}}};
//   ReplayReport rep = run_replay(r);
//   rep.configs.size() == 3  // fp16 full; streaming (positions=original); its positions=cache twin
struct ReplayRequest {
  std::string trace;                 // a trace (.safetensors), or
  std::string checkpoint;            // a llama2.c checkpoint, teacher-forced with `tokens`
  std::vector<std::int32_t> tokens;  // token ids (checkpoint only)
  struct Config {
    std::string kv_dtype = "fp16", policy = "full";
    std::uint32_t block_size = 16;  // tokens per cache block
  };
  std::vector<Config> configs;
  // On traces, a policy other than full whose spec names no `positions=` runs twice: as given
  // (positions=original) and right after it with positions=cache, so both show (ARCHITECTURE.md,
  // Traces).
  bool positions_twins = true;
  std::uint64_t eval_from = 0;
  std::optional<std::uint64_t> prefill;  // SnapKV prompt; default as ReplayOptions
  std::uint64_t max_tokens = 0;          // 0 = all
  std::uint64_t fidelity_every = 0;      // traces: 0 = auto_fidelity_every(T)
  kernels::Backend backend = kernels::Backend::cpu;
  std::uint32_t threads = 0;  // traces: worker threads, 0 = the hardware's (ReplayOptions)
  std::function<void(std::uint64_t, std::uint64_t)> progress;  // (steps done, total steps)
};

// The configurations run_replay runs, in its order (each spec parsed; errors name the flag).
std::vector<ReplayConfig> expand_configs(const ReplayRequest& r);
// The default fidelity stride of a T-token trace replay: about 256 scored steps (T / 256, >= 1).
std::uint64_t auto_fidelity_every(std::uint64_t tokens);
// Runs the request: replay_trace on a trace, replay_model on a checkpoint. Throws kvplan::Error
// on bad input (neither or both sources, no configuration, a bad spec, an unreadable file).
ReplayReport run_replay(const ReplayRequest& r);

// A ModelSpec for kv_cost from a trace (full-attention layers, heads and dims of the trace).
ModelSpec spec_from_trace(const TraceInfo& info, const std::string& source);

// Predicted bytes of one sequence after `n` tokens under `cfg` (SnapKV: `prefill`, uncompressed
// before n reaches it), the number the pool must hold.
std::uint64_t predicted_bytes(const ModelSpec& spec, const ReplayConfig& cfg, std::uint64_t n,
                              std::uint64_t prefill);

// The replay report as a table (text, md, csv: one row per configuration) or JSON:
// {"source", "model", "tokens", "eval_from", "prefill", "model_in_loop", "baseline_perplexity",
//  "all_bytes_match", "configs": [{"label", "kv_dtype", "policy", "block_size", "steps",
//  "predicted_bytes", "measured_bytes", "predicted_peak_bytes", "measured_peak_bytes",
//  "bytes_match", "first_mismatch_step", "retained_tokens", "rel_error", "attention_mass",
//  "layer_rel_error": [...], "layer_mass": [...], "mean_kl", "max_kl", "top1_agreement",
//  "perplexity" (null on traces), "scored", "tokens_per_second"}]}
std::string render(const ReplayReport& report, OutputFormat format);

}  // namespace kvplan::sim
