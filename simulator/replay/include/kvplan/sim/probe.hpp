// Retrieval probes: what a compressed KV cache does to a model's ability to fetch one specific
// thing from far back, where perplexity and chat that looks fine do not show it.
//
// Copy (induction) probe. Each of N prompts is
//   BOS, span s_0..s_{S-1}, F filler tokens, s_0..s_{S-1} again
// teacher-forced through the model under each configuration. After the repeat's first k tokens
// (the cue), the greedy next token at repeat position j (k-1 <= j <= S-2) should be s_{j+1}:
// S - k predictions per prompt, accuracy = correct / scored. The span's tokens are distinct, drawn
// with a seeded generator from the vocabulary minus BOS, EOS, <unk> (id 0) and every filler
// token, so the first occurrence is the only place the continuation can come from.
// Chance is the same prompt with the first span replaced by other such tokens (the control): what
// the model predicts for the span without having seen it. The model "can do the task" when the
// full cache beats chance by more than max(0.05, 2 standard errors) (above_chance()); otherwise
// the report says the probe shows nothing for this model.
//
// Needle probe. Each prompt is
//   BOS, filler before (depth·F tokens), needle n_0..n_{L-1}, filler after, n_0..n_{k-1}
// and the model continues greedily for L - k tokens (free-running, in that configuration). At
// the question's last token (position P = prompt length - 1, after that step's eviction) the
// probe reads, per layer, which needle positions the kernels' cache still holds
// (KernelAttention::positions) and the attention mass the question's query puts on them: the
// softmax of a float32 full-cache shadow fed the same q, k, v (as replay's attention mass),
// summed over the retained needle positions, mean over query heads. A position not retained
// carries 0 by definition. Chance for the continuation: the same prompt with the needle's first
// occurrence replaced by other tokens.
//
//   ProbeRequest r{.checkpoint = "stories260K.bin", .tokenizer = "tok512.bin",
//                  .configs = {parse_config("fp16", "streaming:sink=4,window=32", 16)},
//                  .options = {.kind = ProbeKind::needle, .span = 8, .cue = 2, .filler = 128,
//                              .depth = 0.25}};
//   ProbeReport p = run_probe(r);
//   // needle at positions 33..40 (1 + 32 filler), question ends at P = 1+128+8+2-1 = 138;
//   // the window keeps 107..138 and the sinks 0..3, so p.results[1].layer_retained == {0, ...}
//   // and p.results[1].layer_mass == {0, ...}; p.results[0] (fp32 | full) retains all 8.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "kvplan/kernels/kernels.hpp"
#include "kvplan/report.hpp"
#include "kvplan/sim/llama2c.hpp"
#include "kvplan/sim/replay.hpp"

namespace kvplan::sim {

enum class ProbeKind { copy, needle };
enum class FillerKind { story, random };  // a fixed story in the model's tokens, or random tokens
ProbeKind parse_probe_kind(const std::string& s);    // "copy" | "needle"; Error naming --probe
FillerKind parse_filler_kind(const std::string& s);  // "story" | "random"; Error naming the flag
std::string to_string(ProbeKind k);
std::string to_string(FillerKind k);

struct ProbeOptions {
  ProbeKind kind = ProbeKind::copy;
  std::uint32_t span = 16;     // S (copy span) or L (needle length), tokens
  std::uint32_t cue = 4;       // k: the span's first tokens repeated before scoring, 1 <= k < S
  std::uint32_t filler = 256;  // F: filler tokens between the span and its repeat
  double depth = 0.5;          // needle: share of the filler before the needle, in [0, 1]
  std::uint32_t prompts = 16;  // N
  std::uint64_t seed = 1;
  FillerKind filler_kind = FillerKind::story;
};

// One probe prompt, positions 0-based (position 0 is BOS).
struct ProbePrompt {
  std::vector<std::int32_t> tokens;  // copy: the whole teacher-forced sequence; needle: up to the
                                     // question's last token
  std::vector<std::int32_t> span;    // the span / needle (S or L tokens)
  std::uint64_t span_begin = 0;      // position of the span's first occurrence
  std::uint64_t repeat_begin = 0;    // position of the repeat's (question's) first token
};

// The tokens a probe may draw span, needle and random filler from: [0, vocab) minus BOS, EOS and
// id 0 (<unk> in both tokenizers of the test models).
std::vector<std::int32_t> probe_candidates(std::uint32_t vocab, std::int32_t bos, std::int32_t eos);

// Prompt i of a probe (i < prompts), deterministic for (options.seed, i). `story` is the filler
// text in the model's tokens (FillerKind::story; ignored for random). With `control`, the span's
// first occurrence is replaced by other candidate tokens (the chance baseline; `span` still holds
// the tokens that are scored). Throws Error (field "span", "cue", "filler" or "depth") when the
// options cannot form a prompt: too few candidates, k outside [1, S), a prompt past `seq_len`.
ProbePrompt make_probe_prompt(const ProbeOptions& o, std::uint32_t i,
                              std::span<const std::int32_t> candidates,
                              std::span<const std::int32_t> story, std::int32_t bos,
                              std::uint32_t seq_len, bool control = false);

// The built-in filler story (plain English, no quotes or digits) and its tokens: encoded without
// BOS/EOS, tokens outside `candidates` dropped.
const std::string& probe_story_text();
std::vector<std::int32_t> probe_story_tokens(const Tokenizer& tok,
                                             std::span<const std::int32_t> candidates);

// Whether `correct`/`scored` beats the chance run `chance_correct`/`chance_scored`: the
// difference of the two accuracies exceeds max(0.05, 2·sqrt(a(1-a)/n + c(1-c)/m)).
//   above_chance(40, 100, 20, 100) == true   // 0.20 > 2·sqrt(.0024 + .0016) = 0.126
//   above_chance(30, 100, 20, 100) == false  // 0.10 < 2·sqrt(.0021 + .0016) = 0.122
bool above_chance(std::uint64_t correct, std::uint64_t scored, std::uint64_t chance_correct,
                  std::uint64_t chance_scored);

struct ProbeResult {
  ReplayConfig config{};
  std::string label;
  // Copy: greedy next token == the span's next token. Needle: the continuation's tokens that equal
  // the needle's rest (position by position).
  std::uint64_t correct = 0, scored = 0;
  double accuracy = 0;  // correct / scored
  double delta = 0;     // accuracy - the full cache's accuracy
  // Needle only: prompts whose continuation reproduced the whole rest of the needle, and per
  // layer (means over prompts): the share of the needle's tokens retained (mean over KV heads),
  // the share of prompts where every KV head retained every needle token, the attention mass on
  // retained needle positions (mean over query heads).
  std::uint64_t reproduced = 0;
  std::vector<double> layer_retained, layer_all_retained, layer_mass;
  // Means over the layers that were measured (a NaN layer is skipped; none measured: NaN).
  double mean_retained() const;
  double mean_mass() const;
};

struct ProbeReport {
  std::string source, model;
  ProbeOptions options;
  std::uint64_t prompt_tokens = 0;  // tokens of each prompt (teacher-forced part)
  std::uint32_t layers = 0;
  // The control run (full cache, span's first occurrence replaced): chance.
  std::uint64_t chance_correct = 0, chance_scored = 0;
  double chance_accuracy = 0;
  bool model_can_do = false;         // above_chance(full cache, control)
  std::vector<ProbeResult> results;  // [0]: the full cache (fp32 | full), then each configuration
};

struct ProbeRequest {
  std::string checkpoint;  // llama2.c .bin or Hugging Face model directory
  std::string tokenizer;   // "" = tokenizer_for(model, "")
  std::vector<ReplayConfig> configs;
  ProbeOptions options;
  kernels::Backend backend = kernels::Backend::cpu;
  std::function<void(std::uint64_t, std::uint64_t)> progress;  // (prompts run, total runs)
};

// Runs the probe on a loaded model and tokenizer (the full cache first, then the control, then
// each configuration, prompt by prompt).
ProbeReport run_probe(const Llama2cModel& model, const Tokenizer& tok,
                      const std::vector<ReplayConfig>& configs, const ProbeOptions& o,
                      kernels::Backend backend = kernels::Backend::cpu,
                      const std::function<void(std::uint64_t, std::uint64_t)>& progress = {});
ProbeReport run_probe(const ProbeRequest& r);

// The verdict line: "the model cannot do this task; the probe shows nothing for it" when the
// full cache does not beat chance, else a line with both accuracies.
std::string probe_verdict(const ProbeReport& r);

// Table (text, md, csv: one row per configuration, the full cache first) or JSON:
// {"probe", "source", "model", "span", "cue", "filler", "filler_kind", "depth", "prompts", "seed",
//  "prompt_tokens", "chance_accuracy", "model_can_do", "verdict",
//  "results": [{"label", "kv_dtype", "policy", "block_size", "correct", "scored", "accuracy",
//  "delta", and for needle "reproduced", "layer_retained", "layer_all_retained", "layer_mass"}]}
std::string render(const ProbeReport& r, OutputFormat f);

// The replay report with the probe beside KL, top-1 and perplexity (replay_report.cpp): each
// configuration's row gains the probe's accuracy and its difference from the full cache ("-"
// where the model cannot do the task) and, for the needle, the needle's kept share and mass
// (means over layers); the verdict heads the table and the probe's own table follows it. JSON:
// each configuration gains "probe_accuracy", "probe_delta" (null where the model cannot do the
// task) and for the needle "probe_needle_kept", "probe_needle_mass"; "probe" holds the probe's
// JSON above.
std::string render(const ReplayReport& replay, const ProbeReport& probe, OutputFormat f);

}  // namespace kvplan::sim
