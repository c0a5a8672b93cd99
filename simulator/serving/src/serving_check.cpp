#include "kvplan/sim/serving_check.hpp"

#include <cstdio>
#include <string>

#include "kvplan/engine_rules.hpp"
#include "kvplan/error.hpp"
#include "kvplan/sim/disagg.hpp"
#include "kvplan/sim/serving_report.hpp"
#include "kvplan/sim/step_time.hpp"
#include "kvplan/sim/workload.hpp"

namespace kvplan::sim {
namespace {

std::string ms(double x) {
  char b[64];
  std::snprintf(b, sizeof b, "%.1f ms", x);
  return b;
}

struct Limit {
  const char* id;
  const char* name;
  std::optional<double> limit;
  Percentiles StageSummary::*metric;
};

// A disaggregated deployment's run (disagg.hpp): each side a replica of the deployment's engine
// settings at its own TP, the decode side without prefix caching, the file's link and routing
// (fields named by their JSON pointers).
SimResult simulate_disaggregated(const Deployment& d, const ServingConfig& cfg,
                                 const StepTimer& decode_step,
                                 const std::optional<CalibratedEfficiency>& calibrated,
                                 const Workload& w, const SimOptions& opt, std::string& layout) {
  const DisaggLayout& l = *d.disagg;
  // The prefill side: its own settings over the shared ones (disagg_side), the scheduler's
  // settings otherwise as the decode side's.
  const Deployment p = disagg_side(d, DisaggRole::prefill);
  ServingConfig prefill = serving_config_of(p.plan, p.max_num_seqs);
  prefill.enable_prefix_caching = cfg.enable_prefix_caching;
  prefill.capacity_policy = cfg.capacity_policy;
  prefill.enable_chunked_context = cfg.enable_chunked_context;
  prefill.plan.gpus = 0;
  if (engine_rules(prefill.plan).data_parallel_shares_moe_layers() &&
      prefill.plan.vllm().data_parallel_size == 0)
    prefill.plan.edit_vllm().data_parallel_size = 1;
  const DisaggConfig c = disagg_config(prefill, cfg, d.gpu, l,
                                       {.source = d.source,
                                        .kv_link = "/disaggregated/kv_link",
                                        .routing = "/disaggregated/routing"});
  const StepModel prefill_step(d.model, d.gpu, step_model_input(d.gpu, prefill.plan, calibrated),
                               d.source);
  layout = std::to_string(l.prefill_replicas) + "P" + std::to_string(l.decode_replicas) +
           "D over " + c.link.name;
  return simulate_disagg(d.model, c, prefill_step, decode_step, w, opt).run;
}

}  // namespace

SimResult check_serving_slo(const Deployment& d_in, CheckReport& report,
                            const std::optional<CalibratedEfficiency>& calibrated) {
  const std::vector<Limit> limits = {
      {"ttft_p99", "TTFT", d_in.slo.ttft_p99_ms, &StageSummary::ttft_ms},
      {"tpot_p99", "TPOT", d_in.slo.tpot_p99_ms, &StageSummary::tpot_ms},
      {"e2e_p99", "E2E", d_in.slo.e2e_p99_ms, &StageSummary::e2e_ms}};
  if (d_in.workload_path.empty()) return {};
  std::string spec;
  for (const auto& l : limits)
    if (l.limit) {
      char b[64];
      std::snprintf(b, sizeof b, "%s%s_ms=%g", spec.empty() ? "" : ",", l.id, *l.limit);
      spec += b;
    }
  const Workload w = load_workload(d_in.workload_path, 1);
  // Disaggregated: what follows is the decode side's, with its own settings (disagg_side); the
  // prefill side's are built from `shared` in simulate_disaggregated.
  const Deployment& shared = d_in;
  const Deployment d = disagg_side(shared, DisaggRole::decode);
  ServingConfig cfg = serving_config_of(d.plan, d.max_num_seqs);
  // One replica's pool; the replicas share the arrivals below. vLLM's DP ranks keep the share of
  // the experts they hold (VllmOptions::data_parallel_size), as the check sized them.
  if (engine_rules(cfg.plan).data_parallel_shares_moe_layers() &&
      cfg.plan.vllm().data_parallel_size == 0) {
    VllmOptions v = cfg.plan.vllm();
    v.data_parallel_size = moe_groups(d.plan);
    cfg.plan.edit_vllm() = v;
  }
  cfg.plan.gpus = 0;
  const std::uint32_t unit = d.plan.tp * d.plan.pp;
  const std::uint32_t replicas = d.plan.gpus && unit ? d.plan.gpus / unit : 1;
  SimResult r;
  std::string why, refusals, layout;
  try {
    cfg.enable_prefix_caching = prefix_caching_modelled(d.model, cfg.plan);
    const StepModel step(d.model, d.gpu, step_model_input(d.gpu, d.plan, calibrated), d.source);
    SimOptions opt;
    opt.slo = {.ttft_p99_ms = d.slo.ttft_p99_ms.value_or(0),
               .tpot_p99_ms = d.slo.tpot_p99_ms.value_or(0),
               .e2e_p99_ms = d.slo.e2e_p99_ms.value_or(0)};
    if (d.disagg)
      r = simulate_disaggregated(shared, cfg, step, calibrated, w, opt, layout);
    else
      r = simulate_replicas(d.model, cfg, step, w, replicas, opt);
    if (const std::uint64_t n = refused_requests(r))
      refusals = std::to_string(n) + " of " + std::to_string(r.requests.size()) +
                 " requests refused (prompt + output > max_model_len " +
                 std::to_string(cfg.plan.context) + ", or more KV than the pool holds)";
    if (r.summary.requests == 0)
      why = "no request of the workload finished" + (refusals.empty() ? "" : ": " + refusals);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::internal) throw;
    why = "cannot simulate this deployment: " + e.message();
  }
  for (const auto& l : limits) {
    if (!l.limit) continue;
    CheckItem i;
    i.id = l.id;
    i.title = std::string("p99 ") + l.name + " under " + d.workload + " within " + ms(*l.limit);
    if (!why.empty()) {
      i.passed = false;
      i.detail = why;
    } else {
      const Percentiles& p = r.summary.*l.metric;
      // A deployment that turns requests away does not serve the workload, however fast the
      // rest are.
      i.passed = p.count > 0 && p.p99 <= *l.limit && refusals.empty();
      i.detail =
          "simulated p99 " + ms(p.p99) + " (limit " + ms(*l.limit) + ", mean " + ms(p.mean) +
          ", p50 " + ms(p.p50) + ", p90 " + ms(p.p90) + ") over " + std::to_string(p.count) +
          " requests on " +
          (layout.empty() ? std::to_string(replicas) + (replicas == 1 ? " replica" : " replicas")
                          : layout);
      if (p.count == 0) i.detail = no_tpot_reason();
      if (!refusals.empty()) i.detail += "; " + refusals;
      // Drafts without rates run one token a step: say so beside a figure they would lower.
      if (const std::string spec_why = speculative_decoding_unmodelled(cfg.plan); !spec_why.empty())
        i.detail += "; " + spec_why;
      if (!i.passed && p.count > 0)
        i.fix = "size it: kvplan plan --model " + d.model.id + " --workload " + d.workload_path +
                " --slo " + spec;
      if (!refusals.empty())
        i.fix =
            "raise engine.max_model_len to the workload's longest prompt + output (or leave "
            "those requests out of the workload)";
    }
    report.items.push_back(std::move(i));
  }
  return r;
}

}  // namespace kvplan::sim
