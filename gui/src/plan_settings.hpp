// The inputs of the planner view as one value type, and their translation into core's PlanInput.
// No arithmetic: strings are parsed by core (parse_kv_format, parse_policy), numbers are passed on.
//
//   PlanSettings s;                         // llama-3.1-8b on one H100 SXM, vLLM, fp16, 8K x 16
//   kvplan::PlanInput in = to_plan_input(s, kvplan::load_gpu(s.gpu_id));
//   kvplan::Capacity c = kvplan::plan_capacity(kvplan::load_model(s.model_ref), in);
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kvplan/deploy.hpp"
#include "kvplan/disagg_layout.hpp"
#include "kvplan/gpu.hpp"
#include "kvplan/planner.hpp"

namespace kvplan::gui {

struct PlanSettings {
  std::string model_ref = "llama-3.1-8b";  // a preset id or a path to config.json / model JSON
  std::string gpu_id = "h100-sxm-80gb";    // a GPU preset id
  Engine engine = Engine::vllm;
  std::uint32_t gpus = 1;                 // GPUs in all
  std::uint32_t tp = 1;                   // tensor-parallel ranks per replica
  std::uint32_t pp = 1;                   // pipeline stages per replica
  std::uint32_t draft_layers = 0;         // speculative (MTP / EAGLE) layers holding a cache
  std::string weight_dtype;               // empty = the model's
  std::uint32_t memory_fraction_ppm = 0;  // 0 = the engine's default
  std::uint32_t block_size = 0;           // tokens per page, 0 = the engine's default
  std::string kv_format = "fp16";         // a KV format spec (ARCHITECTURE.md)
  std::string policy = "full";            // a retention policy spec
  std::uint64_t context = 8192;           // tokens per request
  std::uint64_t concurrency = 16;         // requests in flight, all replicas

  // Deployment-file fields the planner view does not edit; kept so that load -> save loses
  // nothing (docs/deploy.md has their meaning).
  struct Extras {
    std::string name;
    std::optional<std::uint64_t> custom_gpu_memory_bytes;  // gpu_id == "custom"
    std::optional<double> price_per_hour;                  // USD per GPU-hour
    std::optional<std::uint64_t> max_num_seqs;
    std::optional<std::uint64_t> max_num_batched_tokens;
    std::optional<std::uint64_t> reserve_bytes;
    std::optional<std::uint64_t> available_kv_bytes;
    std::optional<std::uint64_t> slo_context;  // when it differs from `context` (max_model_len)
    std::optional<std::uint64_t> min_kv_cache_tokens;
    std::optional<double> max_cost_per_hour;
    std::optional<std::uint64_t> mean_context;  // slo.mean_context
    // The engine's own options (PlanInput::options: vLLM's rules release, Mamba mode, DCP, ...;
    // SGLang's and TensorRT-LLM's keys), kept while the form's engine is theirs.
    EngineOptions options;
    bool enforce_eager = false;
    bool expert_parallel = false;    // engine.enable_expert_parallel
    std::uint32_t attention_dp = 1;  // engine.attention_dp (DP attention groups a server)
    std::uint32_t moe_ep = 1;        // engine.moe_ep_size (their MoE layers' EP)
    std::optional<KvDtype> conv_state_dtype, ssm_state_dtype;  // the recurrent state's dtypes
    std::optional<std::uint64_t> max_total_tokens;  // SGLang max_total_tokens, TRT-LLM max_tokens
    std::vector<std::uint64_t> available_kv_bytes_per_rank;  // hardware.available_kv_gib list
    HostTierArgs host_tiers;  // "offload": the KV tiers beyond the GPU
    NodeSpec node;            // hardware.node_memory_gib, gpus_per_node
    // "disaggregated": the file's xPyD layout, its decode side the form's TP and GPUs; planned
    // and checked with, written back, and the serving view's layout when opened.
    std::optional<DisaggLayout> disagg;
    bool operator==(const Extras&) const = default;
  } extras;

  bool operator==(const PlanSettings&) const = default;
};

// The GPU the settings name: a preset, or the custom memory size of a loaded deployment.
// Throws kvplan::Error on an unknown id.
GpuSpec resolve_gpu(const PlanSettings& s);

// The deployment the settings describe, for core's resolve() (DeploymentRequest::Source::form):
// the model, the GPU, the plan, max_num_seqs and the SLO the planner states.
Deployment planner_deployment(const ModelSpec& model, const PlanSettings& s, const GpuSpec& gpu);

// Parses the spec strings through core; throws kvplan::Error naming the field on bad input.
PlanInput to_plan_input(const PlanSettings& s, const GpuSpec& gpu);
// The same without the limits check (a deployment file core then checks field by field).
PlanInput plan_input_of(const PlanSettings& s, const GpuSpec& gpu);

// The formats drawn as curves in the concurrency chart (spec strings), the formats and the
// policies offered in the pickers, and the weight dtypes.
const std::vector<std::string>& chart_formats();
const std::vector<std::string>& format_choices();
const std::vector<std::string>& policy_choices();
const std::vector<std::string>& weight_dtype_choices();

}  // namespace kvplan::gui
