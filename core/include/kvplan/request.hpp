// One deployment request, resolved and validated once. Every front-end — `kvplan plan`,
// `check`, `simulate`, the GUI's form — states what the user gave (a source and its overrides)
// as a DeploymentRequest, and `resolve()` builds the Deployment and runs every rule on it once:
// the shape (TP, PP, GPUs against the model), the bounds of each count, the engine's start-up
// refusals (engine_rules), the SLO and its overrides, the calibration. So one deployment gets one
// verdict whichever path reads it.
//
//   DeploymentRequest r;
//   r.model = "llama-3.1-8b";  r.gpu = "h100-sxm-80gb";  r.context = 8192;
//   r.max_num_batched_tokens = 128;  r.max_num_seqs = 256;
//   ResolvedDeployment d = kvplan::resolve(r);
//   d.refusals[0].field    // "--max-num-batched-tokens"
//   d.refusals[0].message  // "128 is less than max_num_seqs 256: vLLM refuses ..."
//   // Left out, each is the engine's default on the GPU (vLLM on an H100: 8192 tokens, 1024
//   // sequences, at most the tokens): EngineRules::default_max_num_batched_tokens.
//
// Sources: `flags` (a model, a GPU and settings, as plan and simulate take them), a deployment
// file, an engine command line, a form (the GUI's planner). Overrides apply to every source before
// any rule runs. Bad input throws Error naming the field and its source (exit 2); a deployment the
// engine would refuse resolves with `refusals` set, which each front-end reports its own way
// (check: a failed engine_settings item, exit 1; plan and simulate: refuse_if_any, exit 2).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kvplan/deploy.hpp"
#include "kvplan/engine_log.hpp"
#include "kvplan/engine_rules.hpp"
#include "kvplan/gpu.hpp"

namespace kvplan {

struct DeploymentRequest {
  enum class Source { flags, deploy_file, engine_command, form };
  Source source = Source::flags;
  std::string path;  // deploy_file: the file

  // form: a deployment a form has already built from its widgets (the GUI's planner), with its
  // model, GPU and plan; resolve() validates its shape against the model and runs the rest.
  std::optional<Deployment> form;

  // engine_command: the engine and its command line ("vllm serve M --flags ..."); unknown flags
  // are errors under `strict`. `model`, `gpu` / `gpu_memory_gib` and `gpus` apply to it too.
  Engine command_engine = Engine::vllm;
  std::string command_line;
  // The release the command line runs ("0.19.1"): the rules of that version (--vllm-version).
  std::optional<std::string> engine_version;
  bool strict = false;

  // flags (and the model / GPU of an engine command line). Text fields are parsed here so that
  // every front-end refuses the same spellings with the same message.
  std::string model;  // preset id, HF config.json or kvplan model JSON (engine_command: override)
  std::string gpu;    // preset id or GPU JSON file
  std::optional<std::string> gpu_memory_gib, available_kv_gib;  // instead of / beside gpu
  std::string engine = "vllm";                                  // vllm, vllm@0.9, sglang, trtllm
  std::string kv_dtype;  // a KV format spec; "" = the model's dtype (default_kv_format)
  std::string policy = "full";
  std::uint64_t tp = 1, pp = 1, draft_layers = 0;
  std::optional<std::uint64_t> gpus, block_size, context;  // context: default the model's
  std::uint64_t concurrency = 1;
  // Empty: the engine's default for the GPU (EngineRules::default_max_num_batched_tokens).
  std::optional<std::uint64_t> max_num_batched_tokens;
  std::optional<std::uint64_t> max_num_seqs;  // empty: the engine's default
  // flags: max_num_seqs or max_num_batched_tokens given under an engine's own name (simulate's
  // --max-batch-size and --max-num-tokens: trtllm-serve's --max_batch_size and --max_num_tokens,
  // EngineRules::settings_flag_names, '-' and '_' alike). resolve() refuses one that is not this
  // engine's name, or one given beside the generic flag.
  struct EngineNamedSetting {
    std::string flag;  // as given: "--max-batch-size"
    std::uint64_t value = 0;
  };
  std::vector<EngineNamedSetting> engine_named;
  std::optional<std::string> memory_fraction, weight_dtype, reserve_gib;
  // flags: the engine's own options, KEY=VALUE with a deployment file's engine keys
  // (--engine-option; apply_engine_options).
  std::vector<std::string> engine_options;
  // flags: one side of a disaggregated run (simulate's --prefill-engine-option and
  // --decode-engine-option, named by side_flag_prefix "--prefill-"): options applied after
  // engine_options, so a key given for the side wins; and the prefix that names the side's
  // --*-max-num-seqs, --*-max-num-batched-tokens and --*-gpu-memory-utilization in errors when
  // the side gave them (side_settings).
  std::vector<std::string> side_engine_options;
  std::string side_flag_prefix;
  bool side_memory_fraction = false;  // memory_fraction is the side's own flag
  bool require_memory = true;  // flags: a GPU, its memory or the available KV memory is needed
  // flags: the plan's launch lines set max_num_seqs to the requests per replica (kvplan plan),
  // so the memory model sizes the engine's sampler by them
  // (PlanInput::max_num_seqs_is_concurrency).
  bool launch_sets_max_num_seqs = false;

  // Overrides, for every source.
  std::optional<std::string> slo;  // "concurrency=N,ttft_p99_ms=500": the file's "slo" keys
  std::optional<std::uint64_t> slo_context, slo_concurrency;  // --context / --concurrency
  std::optional<std::string> calibration;                     // kvplan explain --calibrate file
  // The node the KV tiers beyond the GPU run on (--node-memory-gib, --gpus-per-node).
  std::optional<std::string> node_memory_gib;
  std::optional<std::uint64_t> gpus_per_node;
  // The workload the latency limits of --slo (ttft_p99_ms, ...) are simulated under: a
  // kvplan_workload JSON or a request trace, relative to the working directory (check
  // --workload). A deployment file names its own.
  std::optional<std::string> workload;

  // How this front-end spells the fields, for its errors (plan: --context; simulate:
  // --max-model-len).
  ShapeFields names = cli_flag_names();
  SettingsFields setting_names = {.max_model_len = "--context",
                                  .max_num_seqs = "--max-num-seqs",
                                  .max_num_batched_tokens = "--max-num-batched-tokens",
                                  .tp = "--tp"};
};

struct ResolvedDeployment {
  Deployment deploy;           // plan.concurrency = slo.concurrency
  std::optional<GpuSpec> gpu;  // empty only for flags with --available-kv-gib and no GPU
  std::optional<CalibratedEfficiency> efficiency;  // the calibration's step-time fields
  std::vector<Refusal> refusals;                   // engine_refusals(deploy)
};

ResolvedDeployment resolve(const DeploymentRequest& request);

// plan and simulate stop on a refusal: one Error listing each (exit 2), naming `source`.
void refuse_if_any(const ResolvedDeployment& d, const std::string& source = "command line");

}  // namespace kvplan
