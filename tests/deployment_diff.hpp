// The fields in which two deployments differ, one "field: a vs b" line each, so a GoogleTest
// and a QtTest compare deployments over the same list of fields:
//
//   EXPECT_EQ(kvplan::test::deployment_diff(a, b), "");
//   QVERIFY2(diff.empty(), diff.c_str());
#pragma once

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "kvplan/deploy.hpp"
#include "kvplan/kv_format.hpp"

namespace kvplan::test {

namespace diff_detail {

template <class T>
void show(std::ostream& os, const T& v) {
  if constexpr (std::is_enum_v<T>)
    os << static_cast<long long>(v);
  else
    os << v;
}
template <class T>
void show(std::ostream& os, const std::optional<T>& v) {
  if (v)
    show(os, *v);
  else
    os << "none";
}
template <class T>
void show(std::ostream& os, const std::vector<T>& v) {
  os << '[';
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) os << ',';
    show(os, v[i]);
  }
  os << ']';
}

template <class T>
void field(std::string& out, const char* name, const T& a, const T& b) {
  if (a == b) return;
  std::ostringstream os;
  os << name << ": ";
  show(os, a);
  os << " vs ";
  show(os, b);
  out += os.str() + "\n";
}

}  // namespace diff_detail

// Everything a deployment file states and the planner reads.
inline std::string deployment_diff(const Deployment& a, const Deployment& b) {
  using diff_detail::field;
  std::string d;
  field(d, "name", a.name, b.name);
  field(d, "model.id", a.model.id, b.model.id);
  field(d, "model.layers", a.model.layers.size(), b.model.layers.size());
  field(d, "gpu.id", a.gpu.id, b.gpu.id);
  field(d, "gpu.memory_bytes", a.gpu.memory_bytes, b.gpu.memory_bytes);
  field(d, "gpu.price_per_hour", a.gpu.price_per_hour, b.gpu.price_per_hour);
  const PlanInput &p = a.plan, &q = b.plan;
  field(d, "plan.engine", p.engine, q.engine);
  field(d, "plan.format", to_string(p.format), to_string(q.format));
  field(d, "plan.policy", to_string(p.policy), to_string(q.policy));
  field(d, "plan.block_size", p.block_size, q.block_size);
  field(d, "plan.tp", p.tp, q.tp);
  field(d, "plan.pp", p.pp, q.pp);
  field(d, "plan.gpus", p.gpus, q.gpus);
  field(d, "plan.context", p.context, q.context);
  field(d, "plan.concurrency", p.concurrency, q.concurrency);
  field(d, "plan.max_num_batched_tokens", p.max_num_batched_tokens, q.max_num_batched_tokens);
  field(d, "plan.draft_layers", p.draft_layers, q.draft_layers);
  field(d, "plan.expert_parallel", p.expert_parallel, q.expert_parallel);
  field(d, "plan.max_total_tokens", p.max_total_tokens, q.max_total_tokens);
  field(d, "plan.gpu_memory_bytes", p.gpu_memory_bytes, q.gpu_memory_bytes);
  field(d, "plan.memory_fraction_ppm", p.memory_fraction_ppm, q.memory_fraction_ppm);
  field(d, "plan.weight_dtype", p.weight_dtype, q.weight_dtype);
  field(d, "plan.conv_state_dtype", p.conv_state_dtype, q.conv_state_dtype);
  field(d, "plan.ssm_state_dtype", p.ssm_state_dtype, q.ssm_state_dtype);
  field(d, "plan.reserve_bytes", p.reserve_bytes, q.reserve_bytes);
  field(d, "plan.available_kv_bytes", p.available_kv_bytes, q.available_kv_bytes);
  field(d, "vllm.rules", p.vllm().rules, q.vllm().rules);
  field(d, "vllm.mamba_cache_mode", p.vllm().mamba_cache_mode, q.vllm().mamba_cache_mode);
  field(d, "vllm.dcp", p.vllm().dcp, q.vllm().dcp);
  field(d, "vllm.disable_hybrid_kv_cache_manager", p.vllm().disable_hybrid_kv_cache_manager,
        q.vllm().disable_hybrid_kv_cache_manager);
  field(d, "vllm.num_speculative_tokens", p.vllm().num_speculative_tokens,
        q.vllm().num_speculative_tokens);
  field(d, "vllm.spec_acceptance", p.vllm().spec_acceptance, q.vllm().spec_acceptance);
  field(d, "vllm.num_gpu_blocks_override", p.vllm().num_gpu_blocks_override,
        q.vllm().num_gpu_blocks_override);
  field(d, "sglang.swa_full_tokens_ratio_ppm", p.sglang().swa_full_tokens_ratio_ppm,
        q.sglang().swa_full_tokens_ratio_ppm);
  field(d, "sglang.disable_hybrid_swa_memory", p.sglang().disable_hybrid_swa_memory,
        q.sglang().disable_hybrid_swa_memory);
  field(d, "sglang.mamba_full_memory_ratio_ppm", p.sglang().mamba_full_memory_ratio_ppm,
        q.sglang().mamba_full_memory_ratio_ppm);
  field(d, "sglang.max_mamba_cache_size", p.sglang().max_mamba_cache_size,
        q.sglang().max_mamba_cache_size);
  field(d, "sglang.hybrid_swa", p.sglang().hybrid_swa, q.sglang().hybrid_swa);
  field(d, "sglang.scheduler_recv_interval", p.sglang().scheduler_recv_interval,
        q.sglang().scheduler_recv_interval);
  field(d, "sglang.disable_overlap_schedule", p.sglang().disable_overlap_schedule,
        q.sglang().disable_overlap_schedule);
  field(d, "attention_dp", p.attention_dp, q.attention_dp);
  field(d, "moe_ep", p.moe_ep, q.moe_ep);
  field(d, "trtllm.backend", p.trtllm().backend, q.trtllm().backend);
  field(d, "trtllm.max_attention_window", p.trtllm().max_attention_window,
        q.trtllm().max_attention_window);
  field(d, "trtllm.window_shares", p.trtllm().window_shares, q.trtllm().window_shares);
  field(d, "trtllm.max_gpu_total_bytes", p.trtllm().max_gpu_total_bytes,
        q.trtllm().max_gpu_total_bytes);
  field(d, "vllm.model_runner", p.vllm().model_runner, q.vllm().model_runner);
  field(d, "vllm.data_parallel_size", p.vllm().data_parallel_size, q.vllm().data_parallel_size);
  field(d, "vllm.async_scheduling", p.vllm().async_scheduling, q.vllm().async_scheduling);
  field(d, "plan.available_kv_bytes_per_rank", p.available_kv_bytes_per_rank,
        q.available_kv_bytes_per_rank);
  const HostTierArgs &h = a.host_tiers, &k = b.host_tiers;
  field(d, "offload.kv_offloading_gib", h.kv_offloading_gib, k.kv_offloading_gib);
  field(d, "offload.kv_offloading_backend", h.kv_offloading_backend, k.kv_offloading_backend);
  field(d, "offload.kv_connector", h.kv_connector, k.kv_connector);
  field(d, "offload.lmcache", h.lmcache, k.lmcache);
  field(d, "offload.lmcache_local_cpu", h.lmcache_local_cpu, k.lmcache_local_cpu);
  field(d, "offload.lmcache_cpu_gib", h.lmcache_cpu_gib, k.lmcache_cpu_gib);
  field(d, "offload.lmcache_disk_gib", h.lmcache_disk_gib, k.lmcache_disk_gib);
  field(d, "offload.hicache", h.hicache, k.hicache);
  field(d, "offload.hicache_ratio", h.hicache_ratio, k.hicache_ratio);
  field(d, "offload.hicache_size_gb", h.hicache_size_gb, k.hicache_size_gb);
  field(d, "offload.host_cache_bytes", h.host_cache_bytes, k.host_cache_bytes);
  field(d, "node.memory_bytes", a.node.memory_bytes, b.node.memory_bytes);
  field(d, "node.gpus", a.node.gpus, b.node.gpus);
  field(d, "max_num_seqs", a.max_num_seqs, b.max_num_seqs);
  field(d, "cuda_graphs", a.cuda_graphs, b.cuda_graphs);
  field(d, "slo.context", a.slo.context, b.slo.context);
  field(d, "slo.concurrency", a.slo.concurrency, b.slo.concurrency);
  field(d, "slo.mean_context", a.slo.mean_context, b.slo.mean_context);
  field(d, "slo.min_kv_cache_tokens", a.slo.min_kv_cache_tokens, b.slo.min_kv_cache_tokens);
  field(d, "slo.max_cost_per_hour", a.slo.max_cost_per_hour, b.slo.max_cost_per_hour);
  field(d, "disaggregated", a.disagg.has_value(), b.disagg.has_value());
  if (a.disagg && b.disagg) {
    const DisaggLayout &l = *a.disagg, &m = *b.disagg;
    field(d, "disaggregated.prefill_replicas", l.prefill_replicas, m.prefill_replicas);
    field(d, "disaggregated.decode_replicas", l.decode_replicas, m.decode_replicas);
    field(d, "disaggregated.prefill_tp", l.prefill_tp, m.prefill_tp);
    field(d, "disaggregated.decode_tp", l.decode_tp, m.decode_tp);
    field(d, "disaggregated.kv_link", l.kv_link, m.kv_link);
    field(d, "disaggregated.routing", l.routing, m.routing);
    field(d, "disaggregated.kv_link_latency_ms", l.kv_link_latency_ms, m.kv_link_latency_ms);
    field(d, "disaggregated.kv_transfer_overhead_ms", l.kv_transfer_overhead_ms,
          m.kv_transfer_overhead_ms);
    for (const auto& [name, x, y] : {std::tuple{"prefill", &l.prefill_side, &m.prefill_side},
                                     std::tuple{"decode", &l.decode_side, &m.decode_side}}) {
      const std::string p = std::string("disaggregated.") + name;
      field(d, (p + ".max_num_seqs").c_str(), x->max_num_seqs, y->max_num_seqs);
      field(d, (p + ".max_num_batched_tokens").c_str(), x->max_num_batched_tokens,
            y->max_num_batched_tokens);
      field(d, (p + ".memory_fraction_ppm").c_str(), x->memory_fraction_ppm,
            y->memory_fraction_ppm);
      field(d, (p + ".engine").c_str(), x->engine_options, y->engine_options);
    }
  }
  return d;
}

}  // namespace kvplan::test
