// Writing a deployment file: the inverse of parse_deploy_json (deploy.cpp), key for key.
#include <exception>
#include <nlohmann/json.hpp>

#include "kvplan/deploy.hpp"
#include "kvplan/engine_rules.hpp"

namespace kvplan {

namespace {

constexpr double kGiB = 1073741824.0;

// Bytes as GiB; exact for byte counts below 2^53 (a division by a power of two), so the reader's
// floor(gib · 2^30) gives the same bytes back.
double to_gib(std::uint64_t bytes) { return static_cast<double>(bytes) / kGiB; }

// The price a preset GPU has without the file saying one (0 for a custom GPU or an unknown id).
double preset_price(const GpuSpec& gpu) {
  if (gpu.id == "custom") return 0;
  try {
    return load_gpu(gpu.id).price_per_hour;
  } catch (const std::exception&) {
    return 0;
  }
}

nlohmann::ordered_json hardware(const Deployment& d) {
  nlohmann::ordered_json hw;
  if (d.gpu.id == "custom")
    hw["gpu_memory_gib"] = to_gib(d.gpu.memory_bytes);
  else
    hw["gpu"] = d.gpu.id;
  hw["gpus"] = deployment_gpus(d);
  if (d.gpu.price_per_hour != preset_price(d.gpu)) hw["price_per_hour"] = d.gpu.price_per_hour;
  if (d.node.memory_bytes) hw["node_memory_gib"] = to_gib(*d.node.memory_bytes);
  if (d.node.gpus) hw["gpus_per_node"] = *d.node.gpus;
  return hw;
}

// "offload": the KV tiers beyond the GPU, as read_deploy_offload reads them.
nlohmann::ordered_json offload(const HostTierArgs& h) {
  nlohmann::ordered_json o;
  if (h.kv_offloading_gib) o["kv_offloading_size_gib"] = *h.kv_offloading_gib;
  if (h.kv_offloading_backend) o["kv_offloading_backend"] = *h.kv_offloading_backend;
  if (h.lmcache) {
    nlohmann::ordered_json lm = nlohmann::ordered_json::object();
    if (h.lmcache_local_cpu) lm["local_cpu"] = *h.lmcache_local_cpu;
    if (h.lmcache_cpu_gib) lm["max_local_cpu_size"] = *h.lmcache_cpu_gib;
    if (h.lmcache_disk_gib) lm["max_local_disk_size"] = *h.lmcache_disk_gib;
    o["lmcache"] = lm;
  }
  if (h.hicache) {
    nlohmann::ordered_json hc = nlohmann::ordered_json::object();
    if (h.hicache_ratio) hc["ratio"] = *h.hicache_ratio;
    if (h.hicache_size_gb) hc["size_gb"] = *h.hicache_size_gb;
    o["hicache"] = hc;
  }
  if (h.host_cache_bytes) o["host_cache_size"] = *h.host_cache_bytes;
  return o;
}

// The engine's option keys that differ from their defaults (read_engine_options). Only the
// engine's own options can: PlanInput::vllm() and the others read another engine's as defaults.
void engine_options(const PlanInput& p, nlohmann::ordered_json& en) {
  const VllmOptions& v = p.vllm();
  if (v.mamba_cache_mode != VllmOptions::MambaCacheMode::none)
    en["mamba_cache_mode"] = mamba_cache_mode_name(v.mamba_cache_mode);
  if (v.dcp > 1) en["decode_context_parallel_size"] = v.dcp;
  if (v.disable_hybrid_kv_cache_manager) en["disable_hybrid_kv_cache_manager"] = true;
  if (v.model_runner != VllmOptions::ModelRunner::auto_)
    en["model_runner"] = model_runner_name(v.model_runner);
  if (v.num_speculative_tokens) en["num_speculative_tokens"] = v.num_speculative_tokens;
  if (v.extract_hidden_states) en["extract_hidden_states"] = v.extract_hidden_states;
  if (!v.spec_acceptance.empty()) en["acceptance_rate"] = v.spec_acceptance;
  if (v.num_gpu_blocks_override) en["num_gpu_blocks_override"] = *v.num_gpu_blocks_override;
  if (v.attn_group_size) en["attn_group_size"] = v.attn_group_size;
  if (v.data_parallel_size) en["data_parallel_size"] = v.data_parallel_size;
  if (v.async_scheduling) en["async_scheduling"] = *v.async_scheduling;
  const SglangOptions& s = p.sglang();
  const SglangOptions s0{};
  if (s.swa_full_tokens_ratio_ppm != s0.swa_full_tokens_ratio_ppm)
    en["swa_full_tokens_ratio"] = s.swa_full_tokens_ratio_ppm / 1e6;
  if (s.disable_hybrid_swa_memory) en["disable_hybrid_swa_memory"] = true;
  if (s.mamba_full_memory_ratio_ppm != s0.mamba_full_memory_ratio_ppm)
    en["mamba_full_memory_ratio"] = s.mamba_full_memory_ratio_ppm / 1e6;
  if (s.max_mamba_cache_size) en["max_mamba_cache_size"] = *s.max_mamba_cache_size;
  if (s.speculative_num_draft_tokens)
    en["speculative_num_draft_tokens"] = s.speculative_num_draft_tokens;
  if (!s.speculative_algorithm.empty()) en["speculative_algorithm"] = s.speculative_algorithm;
  if (s.speculative_num_steps) en["speculative_num_steps"] = s.speculative_num_steps;
  if (s.speculative_eagle_topk) en["speculative_eagle_topk"] = s.speculative_eagle_topk;
  if (s.scheduler_recv_interval != s0.scheduler_recv_interval)
    en["scheduler_recv_interval"] = s.scheduler_recv_interval;
  if (s.disable_overlap_schedule) en["disable_overlap_schedule"] = true;
  if (s.disable_radix_cache) en["disable_radix_cache"] = true;
  if (s.dcp_size > 1) en["decode_context_parallel_size"] = s.dcp_size;
  if (s.linear_replayssm_spec) en["enable_linear_replayssm_spec"] = true;
  if (s.linear_replayssm_cache_len != s0.linear_replayssm_cache_len)
    en["linear_replayssm_cache_len"] = s.linear_replayssm_cache_len;
  if (s.disaggregation_mode != s0.disaggregation_mode)
    en["disaggregation_mode"] = s.disaggregation_mode;
  if (s.disaggregation_decode_extra_slots)
    en["disaggregation_decode_extra_slots"] = *s.disaggregation_decode_extra_slots;
  if (s.disaggregation_decode_enable_radix_cache)
    en["disaggregation_decode_enable_radix_cache"] = true;
  if (s.mamba_radix_cache_strategy != s0.mamba_radix_cache_strategy)
    en["mamba_radix_cache_strategy"] = s.mamba_radix_cache_strategy;
  // The recurrent state's dtypes under the engine's own keys (EngineRules::state_dtype_keys).
  const EngineRules::StateDtypeKeys state = engine_rules(p).state_dtype_keys();
  for (const auto& [key, dtype] :
       {std::pair{state.conv, p.conv_state_dtype}, std::pair{state.ssm, p.ssm_state_dtype}})
    if (!key.empty() && dtype && !torch_float_name(*dtype).empty())
      en[key] = torch_float_name(*dtype);
  const TrtllmOptions& t = p.trtllm();
  const TrtllmOptions t0{};
  if (t.backend != t0.backend) en["backend"] = trtllm_backend_name(t.backend);
  if (!t.max_attention_window.empty()) en["max_attention_window"] = t.max_attention_window;
  if (t.max_gpu_total_bytes) en["max_gpu_total_bytes"] = *t.max_gpu_total_bytes;
  if (t.kv_cache_manager_v2) en["use_kv_cache_manager_v2"] = *t.kv_cache_manager_v2;
  if (t.avg_seq_len) en["avg_seq_len"] = *t.avg_seq_len;
  if (t.adp_enable_balance != t0.adp_enable_balance)
    en["attention_dp_enable_balance"] = t.adp_enable_balance;
  if (t.adp_timeout_iters != t0.adp_timeout_iters)
    en["attention_dp_timeout_iters"] = t.adp_timeout_iters;
  if (t.adp_batching_wait_iters != t0.adp_batching_wait_iters)
    en["attention_dp_batching_wait_iters"] = t.adp_batching_wait_iters;
  if (t.enable_block_reuse) en["enable_block_reuse"] = *t.enable_block_reuse;
  if (t.snapshot_interval) en["periodic_snapshot_interval"] = t.snapshot_interval;
  if (!t.snapshot_offsets_from_start.empty())
    en["additional_snapshot_offsets_from_start"] = t.snapshot_offsets_from_start;
  if (!t.snapshot_offsets_from_end.empty())
    en["additional_snapshot_offsets_from_end"] = t.snapshot_offsets_from_end;
  // The pool's token cap under the engine's own key (SGLang max_total_tokens, TensorRT-LLM
  // max_tokens).
  if (const std::string key = engine_rules(p).max_total_tokens_key();
      p.max_total_tokens && !key.empty())
    en[key] = *p.max_total_tokens;
}

nlohmann::ordered_json engine(const Deployment& d) {
  const PlanInput& p = d.plan;
  nlohmann::ordered_json en;
  en["name"] = engine_rules(p).name();
  en["tensor_parallel_size"] = p.tp;
  en["pipeline_parallel_size"] = p.pp;
  en["max_model_len"] = p.context;
  if (d.max_num_seqs) en["max_num_seqs"] = *d.max_num_seqs;
  if (p.memory_fraction_ppm) en[memory_fraction_key(p.engine)] = p.memory_fraction_ppm / 1e6;
  if (p.block_size) en["block_size"] = p.block_size;
  if (p.max_num_batched_tokens != engine_rules(p).default_max_num_batched_tokens(p))
    en["max_num_batched_tokens"] = p.max_num_batched_tokens;
  if (!p.weight_dtype.empty()) en["weight_dtype"] = p.weight_dtype;
  if (!d.cuda_graphs) en["enforce_eager"] = true;
  if (p.expert_parallel && p.attention_dp <= 1) en["enable_expert_parallel"] = true;
  if (p.attention_dp > 1) en["attention_dp"] = p.attention_dp;
  if (p.moe_ep > 1) en["moe_ep_size"] = p.moe_ep;
  engine_options(p, en);
  if (p.draft_layers) en["draft_layers"] = p.draft_layers;
  if (p.reserve_bytes) en["reserve_gib"] = to_gib(*p.reserve_bytes);
  if (!p.available_kv_bytes_per_rank.empty()) {
    en["available_kv_gib"] = nlohmann::json::array();
    for (const std::uint64_t b : p.available_kv_bytes_per_rank)
      en["available_kv_gib"].push_back(to_gib(b));
  } else if (p.available_kv_bytes) {
    en["available_kv_gib"] = to_gib(*p.available_kv_bytes);
  }
  return en;
}

// One side's own settings (DisaggSide), under the keys read_deploy_disagg reads: an engine key's
// value as JSON where it parses (as apply_engine_options reads it), else as a string.
void side_settings(const DisaggSide& s, const std::string& fraction_key,
                   nlohmann::ordered_json& o) {
  if (s.max_num_seqs) o["max_num_seqs"] = *s.max_num_seqs;
  if (s.max_num_batched_tokens) o["max_num_batched_tokens"] = *s.max_num_batched_tokens;
  if (s.memory_fraction_ppm) o[fraction_key] = static_cast<double>(*s.memory_fraction_ppm) / 1e6;
  if (s.engine_options.empty()) return;
  nlohmann::ordered_json en = nlohmann::ordered_json::object();
  for (const std::string& pair : s.engine_options) {
    const auto eq = pair.find('=');
    const std::string value = pair.substr(eq + 1);
    nlohmann::ordered_json v = nlohmann::ordered_json::parse(value, nullptr, false);
    en[pair.substr(0, eq)] = v.is_discarded() ? nlohmann::ordered_json(value) : std::move(v);
  }
  o["engine"] = std::move(en);
}

// "disaggregated": both sides as read_deploy_disagg reads them.
nlohmann::ordered_json disaggregated(const DisaggLayout& l, const std::string& fraction_key) {
  nlohmann::ordered_json o;
  o["prefill"] = {{"replicas", l.prefill_replicas}, {"tensor_parallel_size", l.prefill_tp}};
  side_settings(l.prefill_side, fraction_key, o["prefill"]);
  o["decode"] = {{"replicas", l.decode_replicas}, {"tensor_parallel_size", l.decode_tp}};
  side_settings(l.decode_side, fraction_key, o["decode"]);
  o["kv_link"] = l.kv_link;
  if (l.kv_link_latency_ms > 0) o["kv_link_latency_ms"] = l.kv_link_latency_ms;
  if (l.kv_transfer_overhead_ms > 0) o["kv_transfer_overhead_ms"] = l.kv_transfer_overhead_ms;
  o["routing"] = l.routing;
  return o;
}

nlohmann::ordered_json slo(const Slo& s) {
  nlohmann::ordered_json o;
  o["context"] = s.context;
  o["concurrency"] = s.concurrency;
  if (s.mean_context) o["mean_context"] = *s.mean_context;
  if (s.min_kv_cache_tokens) o["min_kv_cache_tokens"] = *s.min_kv_cache_tokens;
  if (s.max_cost_per_hour) o["max_cost_per_hour"] = *s.max_cost_per_hour;
  if (s.ttft_p99_ms) o["ttft_p99_ms"] = *s.ttft_p99_ms;
  if (s.tpot_p99_ms) o["tpot_p99_ms"] = *s.tpot_p99_ms;
  if (s.e2e_p99_ms) o["e2e_p99_ms"] = *s.e2e_p99_ms;
  return o;
}

}  // namespace

std::string to_json(const Deployment& d, const std::string& model_ref) {
  nlohmann::ordered_json o;
  o["kvplan_deploy"] = 1;
  if (!d.name.empty()) o["name"] = d.name;
  o["model"] = !model_ref.empty()        ? model_ref
               : !d.model.preset.empty() ? d.model.preset
                                         : d.model.id;
  o["hardware"] = hardware(d);
  o["engine"] = engine(d);
  // The format as kvplan names it (an engine's kv_cache_dtype reads back to the same format).
  o["compression"] = {{"kv_format", to_string(d.plan.format)},
                      {"policy", to_string(d.plan.policy)}};
  o["slo"] = slo(d.slo);
  if (!d.workload.empty()) o["workload"] = d.workload;
  if (d.host_tiers.any()) o["offload"] = offload(d.host_tiers);
  if (d.disagg)
    o["disaggregated"] = disaggregated(*d.disagg, engine_rules(d.plan).memory_fraction_key());
  return o.dump(2) + "\n";
}

}  // namespace kvplan
