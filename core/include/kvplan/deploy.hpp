// Deployment checks for CI: a deployment file (model, hardware, engine settings, compression,
// SLOs; schema in docs/deploy.md) or an engine command line, checked against the planner.
//
//   Deployment d = kvplan::load_deploy("deploy.json");
//   CheckReport r = kvplan::run_check(d);
//   r.passed()  // exit 0 when every check holds, 1 otherwise; bad files throw Error (exit 2)
//   render(r, OutputFormat::junit)  // one <testcase> per check
//
// Minimal file (every other key optional, unknown keys refused):
//   {"kvplan_deploy": 1, "model": "llama-3.1-8b",
//    "hardware": {"gpu": "h100-sxm-80gb", "gpus": 1},
//    "engine": {"name": "vllm", "max_model_len": 32768},
//    "slo": {"context": 32768, "concurrency": 16}}
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kvplan/disagg_layout.hpp"
#include "kvplan/engine_args.hpp"
#include "kvplan/engine_rules.hpp"
#include "kvplan/gpu.hpp"
#include "kvplan/kv_tiers.hpp"
#include "kvplan/model.hpp"
#include "kvplan/planner.hpp"
#include "kvplan/report.hpp"

namespace kvplan {

struct Slo {
  std::uint64_t context = 0;      // tokens per request the deployment must serve
  std::uint64_t concurrency = 1;  // such requests in flight, all replicas
  // The typical request length of the stated load: when given, `concurrency` requests of this
  // length must fit (the worst case, `context` tokens each, is reported beside it).
  std::optional<std::uint64_t> mean_context;
  std::optional<std::uint64_t> min_kv_cache_tokens;  // "GPU KV cache size" floor, per replica
  std::optional<double> max_cost_per_hour;           // USD for all GPUs
  // Latency limits under the deployment's workload (milliseconds, p99 over its requests), checked
  // by the serving simulator (kvplan/sim/serving_check.hpp): core only parses them.
  std::optional<double> ttft_p99_ms, tpot_p99_ms, e2e_p99_ms;
};

struct Deployment {
  std::string source;  // the file (or flag) it came from
  std::string name;
  ModelSpec model;
  GpuSpec gpu;     // a preset, or {id "custom", memory_bytes} from gpu_memory_gib
  PlanInput plan;  // plan.context = max_model_len; plan.concurrency = slo.concurrency
  std::optional<std::uint64_t> max_num_seqs;  // per replica, as the engine caps it
  bool cuda_graphs = true;  // vLLM captures full CUDA graphs (not --enforce-eager)
  Slo slo;
  // "workload": a kvplan_workload JSON or trace, as the file gives it and resolved against the
  // deployment file's directory; empty = none. Needed by, and only with, the latency limits.
  std::string workload, workload_path;
  // KV tiers beyond the GPU (the file's "offload", or the command line's offloading flags) and
  // the node they run on (hardware.node_memory_gib / gpus_per_node, check --node-memory-gib).
  HostTierArgs host_tiers;
  NodeSpec node;
  std::vector<std::string> warnings;  // unknown or unmodelled engine flags
  // How the deployment's source spells max_model_len, max_num_seqs and max_num_batched_tokens
  // (engine flags, JSON pointers, kvplan flags), for the engine's refusals.
  SettingsFields setting_fields;
  // Disaggregated: `plan` is then the decode side's TP and its replicas' GPUs, with the settings
  // both sides share; each side's own settings (DisaggLayout::prefill_side, decode_side) apply
  // over them in disagg_side(). run_check checks the prefill side's start separately.
  std::optional<DisaggLayout> disagg;
};

// Every GPU the deployment uses: plan.gpus (or one replica's TP · PP), plus the prefill side's
// when disaggregated.
std::uint64_t deployment_gpus(const Deployment& d);

// One side of a disaggregated deployment as a deployment of its own: the prefill side at its TP
// and GPUs, or the decode side; each with its own settings (DisaggSide) over the shared ones,
// named in errors and refusals by their file pointers ("/disaggregated/prefill/max_num_seqs").
// `d` itself when it is not disaggregated. Throws Error for an engine key the side cannot take.
enum class DisaggRole { prefill, decode };
Deployment disagg_side(const Deployment& d, DisaggRole role);

// The settings the deployment's engine refuses to start with (engine_rules settings_problems),
// named as its source spells them; empty when it starts. `kvplan check` fails them as the
// engine_settings item, plan and simulate refuse them (exit 2), the GUI shows them: one verdict.
std::vector<Refusal> engine_refusals(const Deployment& d);

// Parses a deployment file (schema version 1). Every problem is an Error naming `source` and the
// JSON pointer of the field. `base_dir` resolves a relative model path.
// The deployment file's key for the engine's memory fraction under "engine":
// gpu_memory_utilization (vLLM), mem_fraction_static (SGLang), free_gpu_memory_fraction (TRT-LLM).
const char* memory_fraction_key(Engine e);

Deployment parse_deploy_json(const std::string& text, const std::string& source,
                             const std::string& base_dir = "");
Deployment load_deploy(const std::string& path);

// A deployment from an engine command line. Without an SLO it is checked for what every engine
// promises alike: it starts and holds at least one request of max_model_len (max_num_seqs is a
// cap on admission, not a promise that that many requests of max_model_len fit); the report
// gives the capacity at max_model_len and, with `slo`, at its typical length. `slo` states a
// concurrency target (its context defaults to max_model_len). `model_override` replaces the
// command's model when not empty.
Deployment deploy_from_engine(const EngineArgs& args, const GpuSpec& gpu, std::uint32_t gpus,
                              const std::string& model_override, const std::string& source,
                              const std::optional<Slo>& slo = std::nullopt);

// "concurrency=16,context=32768,mean_context=4096" (keys of the deployment file's "slo"; context
// and mean_context accept 32k / 128K as vLLM does: k = 1000, K = 1024). Throws Error naming
// `source` and the key.
Slo parse_slo_spec(const std::string& spec, const std::string& source = "--slo");

// The engine's own options as `KEY=VALUE` pairs (`--engine-option`), with the deployment file's
// keys and bounds (docs/deploy.md: num_gpu_blocks_override, swa_full_tokens_ratio, backend,
// max_attention_window=[128,8192], ...): VALUE is read as JSON where it parses, else as a string.
// Applied to p's engine options as a deployment file's "engine" keys are; another engine's key, an
// unknown key or a bad value throws Error naming `source` and the key.
// `pointer`: where the keys sit in a file ("/disaggregated/prefill/engine"), for its errors.
void apply_engine_options(const std::vector<std::string>& pairs, PlanInput& p,
                          const std::string& source = "--engine-option",
                          const std::string& pointer = "");

// vLLM's mamba_cache_mode names: none, align, all. Throws Error(source, field).
VllmOptions::MambaCacheMode parse_mamba_cache_mode(const std::string& v, const std::string& source,
                                                   const std::string& field);
const char* mamba_cache_mode_name(VllmOptions::MambaCacheMode m);  // the name parse reads back
// "auto", "v1" or "v2" (engine.model_runner); throws Error(source, field) otherwise.
VllmOptions::ModelRunner parse_model_runner(const std::string& v, const std::string& source,
                                            const std::string& field);
const char* model_runner_name(VllmOptions::ModelRunner r);

// TensorRT-LLM's backend names: pytorch, tensorrt, trt (= tensorrt), _autodeploy (= pytorch).
// The same reader for trtllm-serve --backend and the deployment file. Throws Error(source, field).
TrtllmOptions::Backend parse_trtllm_backend(const std::string& v, const std::string& source,
                                            const std::string& field);
const char* trtllm_backend_name(TrtllmOptions::Backend b);  // pytorch or tensorrt

struct CheckItem {
  std::string id;  // weights_fit, engine_starts, context, concurrency, max_num_seqs, host_memory...
  std::string title;  // one line: what is checked
  bool passed = false;
  std::string detail;  // what was found, by how much it misses
  std::string fix;     // the cheapest fix found, empty when passed or none found
};

struct CheckReport {
  Deployment deploy;
  Capacity capacity;                              // at max_model_len
  std::uint64_t requests_at_slo = 0;              // requests of slo.context that fit, all replicas
  std::optional<std::uint64_t> requests_at_mean;  // of slo.mean_context, when stated
  std::optional<HostMemory> host;                 // the KV tiers beyond the GPU, when any
  std::vector<CheckItem> items;
  bool passed() const;
  std::size_t failures() const;
};

CheckReport run_check(const Deployment& d);

// text (table), json, md (for a PR comment), junit (one testcase per check).
std::string render(const CheckReport& r, OutputFormat f);

// The deployment file of `d` (schema version 1, the keys parse_deploy_json reads), indented JSON:
// parse_deploy_json(to_json(d, ref), ...) gives back d's model (named by `model_ref`; empty: the
// model's preset id, else its id), GPU, engine settings, compression and SLO. Keys at their
// defaults are left out; compression always states the KV format and the policy.
std::string to_json(const Deployment& d, const std::string& model_ref = "");

}  // namespace kvplan
