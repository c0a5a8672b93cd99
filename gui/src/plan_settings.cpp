#include "plan_settings.hpp"

#include "kvplan/engine_rules.hpp"
#include "kvplan/kv_format.hpp"
#include "kvplan/policy.hpp"
#include "kvplan/validate.hpp"

namespace kvplan::gui {

GpuSpec resolve_gpu(const PlanSettings& s) {
  GpuSpec g;
  if (s.gpu_id == "custom" && s.extras.custom_gpu_memory_bytes) {
    g.id = "custom";
    g.name = "custom GPU";
    g.memory_bytes = *s.extras.custom_gpu_memory_bytes;
  } else {
    g = load_gpu(s.gpu_id);
  }
  if (s.extras.price_per_hour) g.price_per_hour = *s.extras.price_per_hour;
  return g;
}

PlanInput plan_input_of(const PlanSettings& s, const GpuSpec& gpu) {
  PlanInput in;
  // A loaded deployment's engine options; another engine in the form drops them (set_engine).
  in.options = s.extras.options;
  set_engine(in, s.engine);
  in.format = parse_kv_format(s.kv_format, "KV format", "kv_format");
  in.policy = parse_policy(s.policy, "retention policy", "policy");
  in.block_size = s.block_size;
  in.tp = s.tp;
  in.pp = s.pp;
  in.draft_layers = s.draft_layers;
  in.gpus = s.gpus;
  in.context = s.context;
  in.concurrency = s.concurrency;
  in.gpu_memory_bytes = gpu.engine_memory_bytes();
  in.gpu_id = gpu.id;
  in.memory_fraction_ppm = s.memory_fraction_ppm;
  in.weight_dtype = s.weight_dtype;
  // Not set: the engine's default on this GPU, as plan and check take it.
  in.max_num_batched_tokens =
      s.extras.max_num_batched_tokens.value_or(engine_rules(in).default_max_num_batched_tokens(in));
  in.reserve_bytes = s.extras.reserve_bytes;
  in.available_kv_bytes = s.extras.available_kv_bytes;
  in.expert_parallel = s.extras.expert_parallel;
  in.attention_dp = s.extras.attention_dp;
  in.moe_ep = s.extras.moe_ep;
  in.conv_state_dtype = s.extras.conv_state_dtype;
  in.ssm_state_dtype = s.extras.ssm_state_dtype;
  in.max_total_tokens = s.extras.max_total_tokens;
  if (!s.extras.available_kv_bytes_per_rank.empty())
    set_available_per_rank(in, s.extras.available_kv_bytes_per_rank);
  return in;
}

Deployment planner_deployment(const ModelSpec& model, const PlanSettings& s, const GpuSpec& gpu) {
  Deployment d;
  d.source = "planner settings";
  d.name = s.extras.name;
  d.model = model;
  d.gpu = gpu;
  d.plan = plan_input_of(s, gpu);
  d.max_num_seqs = s.extras.max_num_seqs;
  d.cuda_graphs = !s.extras.enforce_eager;
  d.slo.context = s.extras.slo_context.value_or(s.context);
  d.slo.concurrency = s.concurrency;
  d.slo.mean_context = s.extras.mean_context;
  d.slo.min_kv_cache_tokens = s.extras.min_kv_cache_tokens;
  d.slo.max_cost_per_hour = s.extras.max_cost_per_hour;
  d.host_tiers = s.extras.host_tiers;
  d.node = s.extras.node;
  d.disagg = s.extras.disagg;
  if (d.disagg) d.disagg->decode_tp = s.tp;  // the form's TP is the decode side's
  return d;
}

PlanInput to_plan_input(const PlanSettings& s, const GpuSpec& gpu) {
  PlanInput in = plan_input_of(s, gpu);
  // The limits size, plan and check enforce (the model's own rules follow in plan_capacity).
  throw_if_any("planner settings", validate_plan_input(nullptr, in));
  return in;
}

const std::vector<std::string>& chart_formats() {
  static const std::vector<std::string> v{"fp16", "fp8", "int8",
                                          "kivi:bits=4,group=32,residual=128",
                                          "kivi:bits=2,group=32,residual=128"};
  return v;
}

const std::vector<std::string>& format_choices() {
  static const std::vector<std::string> v{"fp16",
                                          "bf16",
                                          "fp32",
                                          "fp8",
                                          "fp8_e5m2",
                                          "int8",
                                          "kivi:bits=4,group=32,residual=128",
                                          "kivi:bits=2,group=32,residual=128"};
  return v;
}

const std::vector<std::string>& policy_choices() {
  static const std::vector<std::string> v{"full", "streaming:sink=4,window=1020",
                                          "streaming:sink=4,window=4092", "h2o:keep=0.2,recent=0.1",
                                          "snapkv:budget=2048,window=32,kernel=7,pool=max"};
  return v;
}

const std::vector<std::string>& weight_dtype_choices() {
  static const std::vector<std::string> v{"fp32", "fp16", "bf16", "fp8", "int8", "int4"};
  return v;
}

}  // namespace kvplan::gui
