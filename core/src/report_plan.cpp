// Renderers of `kvplan plan` and `kvplan check`: text, JSON, Markdown, JUnit XML.
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "kvplan/checked.hpp"
#include "kvplan/deploy.hpp"
#include "kvplan/engine_args.hpp"
#include "kvplan/engine_rules.hpp"
#include "kvplan/error.hpp"
#include "kvplan/gpu.hpp"
#include "kvplan/plan_fix.hpp"
#include "kvplan/planner.hpp"
#include "kvplan/report.hpp"
#include "kvplan/text_safe.hpp"

namespace kvplan {

namespace {

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string fraction(std::uint32_t ppm) { return fixed(ppm / 1e6, 2); }

std::uint32_t plan_gpus(const PlanInput& in) { return static_cast<std::uint32_t>(gpus_of(in)); }

// What a KV format costs in model quality, as far as kvplan has measured it: its replay results
// (docs/accuracy.md) cover the stories260K reference model only, never a served model.
std::string quality_of(const ModelSpec& model, bool same) {
  if (same) return "unchanged (the plan's own KV format)";
  return "not measured for " + model.id +
         " (kvplan's replay results cover the stories260K reference model only; measure it with "
         "kvplan replay --trace on a trace of this model, docs/accuracy.md)";
}

// The budget formula of the plan's own rule set (vllm@0.10's, say, not the current vLLM's).
std::string semantics(const PlanInput& in) { return engine_rules(in).budget_formula(); }

std::string plan_title(const PlanReport& r) {
  const auto& in = r.input;
  const auto& c = r.capacity;
  std::string gpu = r.gpu ? r.gpu->id : (c.memory.measured ? "measured KV memory" : "custom GPU");
  std::string s = r.model.id + " on " + gpu + ", " + engine_rules(in).name() + ", TP " +
                  std::to_string(in.tp) + (in.pp > 1 ? " × PP " + std::to_string(in.pp) : "") +
                  (c.replicas > 1 ? " × " + std::to_string(c.replicas) + " replicas" : "");
  // DP attention: the replicas are attention groups, attention_dp to a server sharing its MoE.
  if (in.attention_dp > 1)
    s += " (DP attention: " + std::to_string(in.attention_dp) + " groups a server, MoE over " +
         std::to_string(std::uint64_t{in.tp} * in.attention_dp) + " GPUs" +
         (in.moe_ep > 1 ? ", EP " + std::to_string(in.moe_ep) : "") + ")";
  s += ", " + to_string(in.format) + ", policy " + to_string(in.policy);
  return s;
}

// The reserve's terms as (label, term) pairs, in the order the budget subtracts them; the graphs
// and the context are marked when they sit outside the budget.
std::vector<std::pair<std::string, const MemoryTerm*>> reserve_terms(const MemoryBudget& m) {
  std::vector<std::pair<std::string, const MemoryTerm*>> out;
  const MemoryTerms& t = m.terms;
  if (t.activation.bytes) out.push_back({"activation peak", &t.activation});
  if (t.non_torch.bytes) out.push_back({"non-torch memory", &t.non_torch});
  if (t.graphs.bytes)
    out.push_back(
        {t.graphs_in_budget ? "CUDA graphs" : "CUDA graphs (outside the budget)", &t.graphs});
  if (t.context.bytes)
    out.push_back({t.context_before_fraction ? "CUDA context (before the fraction)"
                                             : "CUDA context (outside the budget)",
                   &t.context});
  if (t.sampler_state.bytes)
    out.push_back({"sampler state (outside the budget)", &t.sampler_state});
  if (t.warmup.bytes)
    out.push_back(
        {"sampler warm-up peak (after the KV cache, in the activation's memory)", &t.warmup});
  return out;
}

Table memory_table(const PlanReport& r) {
  const auto& m = r.capacity.memory;
  Table t{{"per GPU", "bytes", "human"}, {}};
  auto row = [&](const std::string& k, std::uint64_t v) {
    t.rows.push_back({k, grouped(v), human_bytes(v)});
  };
  if (!m.measured) {
    row("total memory", m.total_bytes);
    if (engine_rules(r.input).fraction_after_weights()) {
      row("weights (sharded)", m.weight_bytes);
      row("reserve (activations, runtime)", m.reserve_bytes);
      row("free after weights and reserve", m.requested_bytes);
    } else {
      row("x " + fraction(m.fraction_ppm) + " (requested)", m.requested_bytes);
      row("weights (sharded)", m.weight_bytes);
      row("reserve (activations, graphs, runtime)", m.reserve_bytes);
    }
    for (const auto& [label, term] : reserve_terms(m))
      row("  " + label + " [" + to_string(term->basis) + "]", term->bytes);
    if (m.shortfall_bytes) row("SHORT BY", m.shortfall_bytes);
    if (m.outside_shortfall_bytes)
      row("START FAILS: outside the budget short by", m.outside_shortfall_bytes);
  }
  row(m.measured ? "available KV cache memory (measured)" : "available KV cache memory",
      m.available_bytes);
  return t;
}

// TensorRT-LLM's pools, one per attention window, where there are several or the VSWA adjustment
// moved a window: the windows it settled on, the ones asked for, each pool's blocks.
void trtllm_pool_rows(const Capacity& c, Table& t) {
  for (const auto& s : c.stages) {
    // Pool k moved when the windows asked for are not just its own.
    std::vector<bool> moved;
    for (std::size_t k = 0; k < s.trtllm_pools.size(); ++k)
      moved.push_back(s.trtllm_requested[k] !=
                      std::vector<std::uint64_t>{s.trtllm_pools[k].window});
    if (s.trtllm_pools.size() < 2 && std::find(moved.begin(), moved.end(), true) == moved.end())
      continue;
    for (std::size_t k = 0; k < s.trtllm_pools.size(); ++k) {
      const auto& w = s.trtllm_pools[k];
      std::string asked;
      if (moved[k]) {
        for (const auto a : s.trtllm_requested[k])
          asked += (asked.empty() ? "" : ", ") + grouped(a);
        asked = " (asked " + asked + ")";
      }
      t.rows.push_back(
          {"  " +
               std::string(c.stages.size() > 1 ? "stage " + std::to_string(s.stage) + ", " : "") +
               "window " + grouped(w.window) + " tokens" + asked + ", " + std::to_string(w.layers) +
               (w.layers == 1 ? " layer" : " layers"),
           grouped(w.primary_blocks) + " blocks"});
    }
  }
}

// TensorRT-LLM's Mamba state slots of a hybrid model (TrtllmStatePool), the worst stage's: how
// many, their bytes out of the KV budget, what the attention pool is left, and a start that fails.
void trtllm_state_rows(const Capacity& c, Table& t) {
  const TrtllmStatePool* worst = binding_state_pool(c.stages);
  if (!worst) return;
  const TrtllmStatePool& p = *worst;
  const std::string manager = p.v2 ? "MambaHybridCacheManagerV2" : "CppMambaHybridCacheManager";
  t.rows.push_back({"  state slots (TensorRT-LLM " + manager + ")",
                    grouped(p.live_slots) + " live (max_batch_size x pp) + " +
                        std::to_string(p.dummy_slots) + " dummy"});
  t.rows.push_back({"  their bytes, out of the KV budget of " + human_bytes(p.budget_bytes),
                    human_bytes(p.bytes)});
  if (p.shortfall_bytes) {
    t.rows.push_back({"  START FAILS: slots and one attention block short by",
                      human_bytes(p.shortfall_bytes) +
                          (p.v2 ? " (\"The V2 Mamba GPU cache quota is too small for live "
                                  "recurrent states and attention pages\"; lower max_batch_size)"
                                : " (lower max_batch_size)")});
    return;
  }
  if (p.attention_bytes == 0) return;  // a rank of Mamba layers alone
  t.rows.push_back({p.proportional ? "  attention pool (the typical step's share: " +
                                         grouped(p.typical_tokens) + "-token requests)"
                                   : "  attention pool (the budget less the slots)",
                    human_bytes(p.attention_bytes)});
  if (p.snapshot_rules == 0 && p.snapshot_interval == 0) return;
  // Block reuse's state snapshots (kv_cache_config.mamba_state_config).
  std::string how;
  if (p.snapshot_rules)
    how = std::to_string(p.snapshot_rules) + " fixed-offset rule(s), a state each per request";
  if (p.snapshot_interval)
    how +=
        (how.empty() ? "" : "; ") + std::string("one every ") + grouped(p.snapshot_interval) +
        " tokens" +
        (p.v2 ? " (evictable)" : ", " + grouped(p.per_token_bytes) + " B a token with its share");
  t.rows.push_back({"  state snapshots (block reuse)", how});
  t.rows.push_back(
      {"  state slots beyond the live and dummy ones",
       grouped(p.snapshot_slots) + (p.v2 ? " (the state pool's share)" : " (tokens / interval)")});
}

// SGLang's request limits of a replica: the running requests its scheduler admits (the fewest
// any stage allows) and its request table's rows (the most any stage has); 0 for other engines.
struct SglangLimits {
  std::uint64_t running = 0, rows = 0;
};
SglangLimits sglang_limits(const Capacity& c) {
  SglangLimits l;
  for (const auto& s : c.stages) {
    if (!s.sglang_max_running) continue;
    l.running = l.running ? std::min(l.running, s.sglang_max_running) : s.sglang_max_running;
    l.rows = std::max(l.rows, s.sglang_max_num_reqs);
  }
  return l;
}

Table capacity_table(const PlanReport& r) {
  const auto& c = r.capacity;
  const auto& in = r.input;
  Table t{{"quantity", "value"}, {}};
  if (c.attention_free) {
    // Nothing is cached: the engine's one block, and max_num_seqs is the only bound.
    t.rows.push_back({"KV cache", "none (attention-free: no layer caches anything)"});
    t.rows.push_back({"num_gpu_blocks (the engine's null block)", grouped(c.num_gpu_blocks)});
    t.rows.push_back({"requests a replica runs (max_num_seqs; no KV bound)",
                      grouped(c.max_requests_per_replica)});
    t.rows.push_back({"requests of " + grouped(in.context) + " tokens that fit (all replicas)",
                      grouped(c.max_requests)});
    return t;
  }
  if (c.paged) {
    t.rows.push_back({"page (one block of " + std::to_string(c.block_size) + " tokens, one layer)",
                      grouped(c.page_bytes) + " B"});
    t.rows.push_back({"num_gpu_blocks", grouped(c.num_gpu_blocks)});
    trtllm_pool_rows(c, t);
    t.rows.push_back({"blocks per request of " + grouped(in.context) + " tokens",
                      grouped(c.blocks_per_request)});
  }
  if (c.state_layers > 0) {
    t.rows.push_back(
        {"recurrent state per sequence (" + std::to_string(c.state_layers) + " layers, one rank)",
         human_bytes(c.state_bytes_per_layer * c.state_layers)});
    if (c.paged && !c.stages.empty() && c.stages[0].shares_slots)
      t.rows.push_back({"  as vLLM pages it (in the MLA layers' slots)", "no bytes of its own"});
    else if (c.paged && engine_rules(in).pages_recurrent_state())
      t.rows.push_back(
          {"  as vLLM pages it (one page per layer)", human_bytes(c.page_bytes * c.state_layers)});
    trtllm_state_rows(c, t);
  }
  t.rows.push_back({"GPU KV cache size (tokens)", grouped(c.kv_cache_tokens)});
  t.rows.push_back({"KV bytes per request of " + grouped(in.context) + " tokens",
                    human_bytes(c.bytes_per_request)});
  t.rows.push_back({"Maximum concurrency for " + grouped(in.context) + " tokens per request",
                    fixed(c.max_concurrency, 2) + "x"});
  t.rows.push_back({"requests of " + grouped(in.context) + " tokens that fit (all replicas)",
                    grouped(c.max_requests)});
  t.rows.push_back({"longest context at concurrency " + grouped(in.concurrency),
                    r.max_context ? grouped(r.max_context) : "none fits"});
  if (const SglangLimits l = sglang_limits(c); l.running) {
    t.rows.push_back(
        {"requests running at once, a replica (SGLang max_running_requests)",
         grouped(l.running) +
             (in.max_num_seqs ? " (--max-running-requests)"
                              : " = min(pool tokens // 2, " + grouped(l.rows) + " table rows)")});
    if (const auto table = request_table_of(c, in))
      t.rows.push_back(
          {"request table (req_to_token, beside the pool)", human_bytes(table->bytes)});
  }
  if (!c.fits_one_request)
    t.rows.push_back({"estimated maximum model length", grouped(c.estimated_max_model_len)});
  return t;
}

// "2 nodes (9 GPUs)", or "9 GPUs" where the GPU's node size is unknown.
std::string nodes_and_gpus(std::uint32_t nodes, std::uint32_t gpus) {
  const std::string g = std::to_string(gpus) + (gpus == 1 ? " GPU" : " GPUs");
  if (nodes == 0) return g;
  return std::to_string(nodes) + (nodes == 1 ? " node (" : " nodes (") + g + ")";
}

std::string cost_text(double cost) { return cost > 0 ? fixed(cost, 2) : "-"; }

Table order_table_of(const PlanReport& r) {
  Table t{{"rank", "GPU", "order", "layout", "holds", "USD/h"}, {}};
  int rank = 0;
  for (const auto& o : r.order) {
    if (!o.feasible) {
      t.rows.push_back({"-", o.gpu.id, "-", o.reason, "-", "-"});
      continue;
    }
    t.rows.push_back({std::to_string(++rank), o.gpu.id, nodes_and_gpus(o.nodes, o.gpus),
                      "TP " + std::to_string(o.tp) + " × PP " + std::to_string(o.pp) + " × " +
                          std::to_string(o.replicas),
                      grouped(o.max_requests), cost_text(o.cost_per_hour)});
  }
  return t;
}

// Below the order table: where each price came from, and what "-" means.
std::string order_notes(const PlanReport& r, bool md) {
  const std::string item = md ? "- " : "  ";
  std::string s;
  bool unknown = false;
  for (const auto& o : r.order) {
    if (!o.feasible) continue;
    if (o.gpu.price_per_hour <= 0) {
      unknown = true;
      continue;
    }
    if (!o.gpu.price_source.empty())
      s += item + "price " + o.gpu.id + ": USD " + fixed(o.gpu.price_per_hour, 2) + "/GPU-hour (" +
           o.gpu.price_date + ", " + o.gpu.price_source + ")\n";
  }
  s += item +
       "nodes: a TP group stays inside a node (or its NVLink domain); pipeline stages and "
       "replicas go across nodes\n";
  if (unknown)
    s += item +
         "USD/h \"-\": price unknown (give --prices FILE or --price GPU=USD); without prices rows "
         "rank by GPU count\n";
  return s;
}

Table what_if_table(const PlanReport& r) {
  const std::string gpu = r.gpu ? r.gpu->id : "GPUs";
  Table t{{"format", "policy", "engine", "bytes/request", "requests", "max context", "KV tokens",
           "min " + gpu},
          {}};
  for (const auto& w : r.what_if) {
    t.rows.push_back({w.format, w.policy, w.engine_native ? "native" : "kvplan only",
                      human_bytes(w.bytes_per_request), grouped(w.max_requests),
                      grouped(w.max_context), grouped(w.kv_cache_tokens),
                      w.min_gpus ? std::to_string(w.min_gpus) : "-"});
  }
  return t;
}

// The memory split of one GPU, each term of the reserve with its basis and source.
nlohmann::json memory_json(const MemoryBudget& m) {
  nlohmann::json j = {{"measured", m.measured},
                      {"total_bytes", m.total_bytes},
                      {"fraction", m.fraction_ppm / 1e6},
                      {"requested_bytes", m.requested_bytes},
                      {"weight_bytes", m.weight_bytes},
                      {"reserve_bytes", m.reserve_bytes},
                      {"available_kv_bytes", m.available_bytes},
                      {"shortfall_bytes", m.shortfall_bytes},
                      {"outside_shortfall_bytes", m.outside_shortfall_bytes},
                      {"stage", m.stage}};
  j["terms"] = nlohmann::json::array();
  for (const auto& [label, term] : reserve_terms(m))
    j["terms"].push_back({{"term", label},
                          {"bytes", term->bytes},
                          {"basis", to_string(term->basis)},
                          {"how", term->how},
                          {"source", term->source}});
  return j;
}

// Unknown (0) as null; USD rounded to cents.
nlohmann::json count_or_null(std::uint32_t n) {
  return n ? nlohmann::json(n) : nlohmann::json(nullptr);
}
nlohmann::json usd_or_null(double usd) {
  return usd > 0 ? nlohmann::json(round_cents(usd)) : nlohmann::json(nullptr);
}
nlohmann::json text_or_null(const std::string& s) {
  return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s);
}

// The order table and the what-if rows.
void order_and_what_if_json(const PlanReport& r, nlohmann::json& j) {
  j["order"] = nlohmann::json::array();
  for (const auto& o : r.order)
    j["order"].push_back({{"gpu", o.gpu.id},
                          {"feasible", o.feasible},
                          {"gpus", o.gpus},
                          {"nodes", count_or_null(o.nodes)},
                          {"gpus_per_node", count_or_null(o.gpu.gpus_per_node)},
                          {"tp", o.tp},
                          {"pp", o.pp},
                          {"replicas", o.replicas},
                          {"max_requests", o.max_requests},
                          {"usd_per_gpu_hour", usd_or_null(o.gpu.price_per_hour)},
                          {"price_date", text_or_null(o.gpu.price_date)},
                          {"price_source", text_or_null(o.gpu.price_source)},
                          {"cost_per_hour", usd_or_null(o.feasible ? o.cost_per_hour : 0)},
                          {"reason", o.reason}});
  j["what_if"] = nlohmann::json::array();
  for (const auto& w : r.what_if)
    j["what_if"].push_back({{"kv_dtype", w.format},
                            {"policy", w.policy},
                            {"engine_native", w.engine_native},
                            {"bytes_per_request", w.bytes_per_request},
                            {"max_requests", w.max_requests},
                            {"max_context", w.max_context},
                            {"kv_cache_tokens", w.kv_cache_tokens},
                            {"min_gpus", w.min_gpus}});
}

// A stage's TensorRT-LLM Mamba state slots, null without them.
nlohmann::json trtllm_states_json(const StageCapacity& s) {
  if (!s.trtllm_states) return nullptr;
  const TrtllmStatePool& p = *s.trtllm_states;
  return {{"manager", p.v2 ? "v2" : "cpp"},
          {"live_slots", p.live_slots},
          {"dummy_slots", p.dummy_slots},
          {"slot_bytes", p.slot_bytes},
          {"bytes", p.bytes},
          {"budget_bytes", p.budget_bytes},
          {"typical_tokens", p.typical_tokens},
          {"proportional", p.proportional},
          {"attention_bytes", p.attention_bytes},
          {"attention_tokens", p.attention_tokens},
          {"per_token_bytes", p.per_token_bytes},
          {"snapshot_rules", p.snapshot_rules},
          {"snapshot_interval", p.snapshot_interval},
          {"snapshot_slots", p.snapshot_slots},
          {"shortfall_bytes", p.shortfall_bytes}};
}

// A stage's TensorRT-LLM pools: window, the windows asked for, layers, blocks.
nlohmann::json trtllm_pools_json(const StageCapacity& s) {
  nlohmann::json a = nlohmann::json::array();
  for (std::size_t k = 0; k < s.trtllm_pools.size(); ++k)
    a.push_back({{"window", s.trtllm_pools[k].window},
                 {"requested_windows", s.trtllm_requested[k]},
                 {"layers", s.trtllm_pools[k].layers},
                 {"blocks", s.trtllm_pools[k].primary_blocks}});
  return a;
}

nlohmann::json plan_json(const PlanReport& r) {
  const auto& c = r.capacity;
  const auto& in = r.input;
  nlohmann::json j;
  j["model"] = r.model.id;
  j["gpu"] = r.gpu ? nlohmann::json(r.gpu->id) : nlohmann::json(nullptr);
  j["engine"] = engine_rules(in).name();
  j["semantics"] = semantics(in);
  j["kv_dtype"] = to_string(in.format);
  j["policy"] = to_string(in.policy);
  j["tp"] = in.tp;
  j["pp"] = in.pp;
  j["gpus"] = plan_gpus(in);
  j["replicas"] = c.replicas;
  if (in.attention_dp > 1) {
    j["attention_dp"] = in.attention_dp;
    j["moe_ep_size"] = in.moe_ep;
  }
  // Without a KV cache the engine's one null block has no page, so no block size either.
  j["block_size"] = c.attention_free ? nlohmann::json(nullptr) : nlohmann::json(c.block_size);
  j["context"] = in.context;
  j["concurrency"] = in.concurrency;
  j["memory"] = memory_json(c.memory);
  j["paged"] = c.paged;
  j["page_bytes"] = c.paged ? nlohmann::json(c.page_bytes) : nlohmann::json(nullptr);
  j["num_gpu_blocks"] = c.paged ? nlohmann::json(c.num_gpu_blocks) : nlohmann::json(nullptr);
  j["kv_cache_tokens"] = c.kv_cache_tokens;
  j["blocks_per_request"] =
      c.paged ? nlohmann::json(c.blocks_per_request) : nlohmann::json(nullptr);
  j["bytes_per_request"] = c.bytes_per_request;
  j["max_concurrency"] = c.max_concurrency;
  j["max_requests_per_replica"] = c.max_requests_per_replica;
  j["max_requests"] = c.max_requests;
  j["fits_one_request"] = c.fits_one_request;
  j["attention_free"] = c.attention_free;
  j["estimated_max_model_len"] = c.estimated_max_model_len;
  j["state_layers"] = c.state_layers;
  j["state_bytes_per_layer"] = c.state_bytes_per_layer;
  j["max_context"] = r.max_context;
  j["sglang"] = nullptr;
  if (const SglangLimits l = sglang_limits(c); l.running) {
    const auto table = request_table_of(c, in);
    j["sglang"] = {{"max_running_requests", l.running},
                   {"max_num_reqs", l.rows},
                   {"request_table_bytes", table ? table->bytes : 0}};
  }
  j["stages"] = nlohmann::json::array();
  for (const auto& s : c.stages)
    j["stages"].push_back({{"stage", s.stage},
                           {"cached_layers", s.cached_layers},
                           {"state_layers", s.state_layers},
                           {"group_size", s.group_size},
                           {"kv_cache_groups", s.kv_cache_groups},
                           {"num_blocks", s.num_blocks},
                           {"blocks_per_request", s.blocks_per_request},
                           {"bytes_per_request", s.bytes_per_request},
                           {"trtllm_pools", trtllm_pools_json(s)},
                           {"trtllm_states", trtllm_states_json(s)}});
  order_and_what_if_json(r, j);
  j["engine_flags"] = {{"vllm", r.vllm ? nlohmann::json(*r.vllm) : nlohmann::json(nullptr)},
                       {"sglang", r.sglang ? nlohmann::json(*r.sglang) : nlohmann::json(nullptr)}};
  return j;
}

std::string flags_text(const PlanReport& r, bool md) {
  std::string s;
  auto one = [&](const char* name, const std::optional<std::string>& cmd, const std::string& why) {
    if (cmd)
      s += md ? std::string("- ") + name + ": `" + *cmd + "`\n"
              : std::string("  ") + name + ": " + *cmd + "\n";
    else
      s += (md ? std::string("- ") : std::string("  ")) + name + ": none (" + why + ")\n";
  };
  one("vLLM", r.vllm, r.vllm_why);
  one("SGLang", r.sglang, r.sglang_why);
  return s;
}

std::string layout_text(std::uint32_t tp, std::uint32_t pp, std::uint32_t replicas) {
  return "TP " + std::to_string(tp) + (pp > 1 ? " × PP " + std::to_string(pp) : "") + " × " +
         std::to_string(replicas) + " replica" + (replicas > 1 ? "s" : "");
}
std::string layout_text(const PlanFix& f) { return layout_text(f.tp, f.pp, f.replicas); }

std::string plan_gpu_id(const PlanReport& r) { return r.gpu ? r.gpu->id : "GPU"; }

std::string fix_change(const PlanReport& r, const PlanFix& f) {
  const std::string nodes =
      f.nodes ? " on " + std::to_string(f.nodes) + (f.nodes == 1 ? " node" : " nodes") : "";
  std::string where;
  if (f.own_gpu && f.keeps_layout && f.extra_gpus == 0)
    where = "the same " + std::to_string(f.gpus) + " × " + f.gpu.id + " (" + layout_text(f) +
            nodes + ")";
  else
    where = std::to_string(f.gpus) + " × " + f.gpu.id + " as " + layout_text(f) + nodes;
  if (!f.own_gpu)
    where += ", instead of the plan's " + std::to_string(f.plan_gpus) + " × " + plan_gpu_id(r);
  const std::string s = f.same_format ? where + ", KV cache " + f.kv_dtype + " kept"
                                      : "KV cache " + f.kv_dtype + " on " + where;
  return s + ": holds " + grouped(f.max_requests) + " requests of " + grouped(r.input.context) +
         " tokens";
}

std::string fix_cost(const PlanFix& f) {
  std::string s;
  if (!f.own_gpu)
    s = std::to_string(f.gpus) + " " + f.gpu.id + " in all";
  else if (f.extra_gpus)
    s = std::to_string(f.extra_gpus) + " more " + f.gpu.id + " (" + std::to_string(f.gpus) +
        " in all)";
  else if (f.fewer_gpus)
    s = std::to_string(f.fewer_gpus) + " fewer " + f.gpu.id + " (" + std::to_string(f.gpus) +
        " in all)";
  else
    s = "no more GPUs";
  s += f.cost_per_hour > 0 ? ", USD " + fixed(f.cost_per_hour, 2) + "/h" : ", price unknown";
  return s + "; model quality: " + f.quality;
}

std::string fix_text(const PlanReport& r, const std::vector<PlanFix>& fixes, bool md) {
  std::string s;
  const std::string target =
      grouped(r.input.concurrency) + " requests of " + grouped(r.input.context) + " tokens";
  if (fixes.empty()) {
    s = std::string(md ? "" : "  ") + "none found: no KV format " + to_string(r.input.engine) +
        " implements holds " + target +
        (r.gpu ? " on up to 1,024 " + r.gpu->id
               : " on this GPU (give --gpu to search GPU counts)") +
        (r.order.empty() ? "" : " or on up to 1,024 of any GPU of the order") + "\n";
    return s;
  }
  const std::uint32_t have = fixes.front().plan_gpus;
  s = std::string(md ? "" : "  ") + "The plan holds " + grouped(r.capacity.max_requests) + " of " +
      target + " on " + std::to_string(have) + " × " + plan_gpu_id(r) +
      ". The cheapest change that holds them" +
      (r.order.empty() ? " (the plan's GPU only: no order table)"
                       : ", over every GPU of the order") +
      ":\n" + (md ? "\n" : "");
  bool unpriced = false;
  for (const auto& f : fixes) unpriced = unpriced || f.cost_per_hour <= 0;
  if (unpriced)
    s += std::string(md ? "" : "  ") +
         "(prices unknown for some GPUs: give --prices FILE or --price GPU=USD; unpriced fixes "
         "rank by GPU count, as the order table does, the plan's own GPU first)\n" +
         (md ? "\n" : "");
  for (const auto& f : fixes) {
    auto flags = [&](const char* name, const std::optional<std::string>& cmd,
                     const std::string& why) {
      if (md)
        s += std::string("  - ") + name + ": " + (cmd ? "`" + *cmd + "`" : "none (" + why + ")") +
             "\n";
      else
        s += std::string("      ") + name + ": " + (cmd ? *cmd : "none (" + why + ")") + "\n";
    };
    if (md) {
      s += "- **" + f.label + "**: " + fix_change(r, f) + "\n  - cost: " + fix_cost(f) + "\n";
    } else {
      s += "  " + f.label + ": " + fix_change(r, f) + "\n      cost: " + fix_cost(f) + "\n";
    }
    flags("vLLM", f.vllm, f.vllm_why);
    flags("SGLang", f.sglang, f.sglang_why);
  }
  return s;
}

// XML 1.0 characters only (control characters, U+FFFE and invalid UTF-8 become U+FFFD).
std::string xml_escape(const std::string& s) { return xml_text(s); }

}  // namespace

PlanReport make_plan_report(const ModelSpec& model, const std::optional<GpuSpec>& gpu,
                            const PlanInput& input, const std::vector<GpuSpec>& order_gpus,
                            bool with_what_if, const std::string& source) {
  PlanReport r;
  r.model = model;
  r.gpu = gpu;
  r.input = input;
  r.capacity = plan_capacity(model, input, source);
  r.max_context = max_context_at_concurrency(
      model, input, std::max<std::uint64_t>(input.concurrency, 1), model.max_context, source);
  if (!order_gpus.empty()) r.order = order_table(model, input, order_gpus, source);
  // Without a KV cache no format or policy changes anything: no what-if rows.
  if (with_what_if && !r.capacity.attention_free) r.what_if = what_if(model, input, gpu, source);
  if (r.capacity.max_requests >= input.concurrency) {
    r.vllm = vllm_command(model, input, &r.vllm_why);
    r.sglang = sglang_command(model, input, &r.sglang_why);
  } else {
    r.vllm_why = r.sglang_why = "the plan does not hold " + std::to_string(input.concurrency) +
                                " requests of " + std::to_string(input.context) +
                                " tokens: see Fix below";
  }
  return r;
}

namespace {

// A candidate fix and what ranks it after its cost and GPU count.
struct FixCandidate {
  PlanFix fix;
  std::size_t gpu_rank = 0;     // the GPU's row in the order table (the plan's GPU: its row)
  std::size_t format_rank = 0;  // the what-if table's order of formats
};

// Fills the counts, cost, flags and quality of a fix whose input, layout and GPU are set;
// false when the changed plan does not hold the target after all.
bool complete_fix(const PlanReport& r, PlanFix& f, const std::string& source) {
  const auto& in = r.input;
  // A layout whose cut of the fp8 experts the engine refuses is no fix (moe_cut_refusal; vLLM's
  // DP ranks count in the cut).
  if (moe_cut_refusal(r.model, f.input, "tp")) return false;
  f.max_requests = plan_capacity(r.model, f.input, source).max_requests;
  if (f.max_requests < in.concurrency) return false;
  if (f.own_gpu) {
    f.extra_gpus = f.gpus > f.plan_gpus ? f.gpus - f.plan_gpus : 0;
    f.fewer_gpus = f.gpus < f.plan_gpus ? f.plan_gpus - f.gpus : 0;
  }
  f.nodes = nodes_for(f.gpu, f.tp, std::uint64_t{f.pp} * f.replicas);
  f.cost_per_hour = f.gpu.price_per_hour > 0 ? round_cents(f.gpus * f.gpu.price_per_hour) : 0;
  f.quality = quality_of(r.model, f.same_format);
  f.vllm = vllm_command(r.model, f.input, &f.vllm_why);
  f.sglang = sglang_command(r.model, f.input, &f.sglang_why);
  // The count leans on vLLM's data-parallel ranks sharing the experts; SGLang's --dp runs
  // servers that each hold every expert, so the same GPUs may hold fewer under SGLang.
  if (f.sglang && f.replicas > 1 && replicas_share_experts(r.model, f.input)) {
    PlanInput sg = f.input;
    set_engine(sg, Engine::sglang);
    sg.memory_fraction_ppm = 0;  // SGLang's own default, as its launch line states it
    const std::uint64_t held = plan_capacity(r.model, sg, source).max_requests;
    if (held < in.concurrency) {
      f.sglang.reset();
      f.sglang_why = "SGLang's --dp runs servers that each hold every expert: these " +
                     std::to_string(f.gpus) + " GPUs hold " + std::to_string(held) + " of the " +
                     std::to_string(in.concurrency) +
                     " requests under SGLang (plan --engine sglang sizes it)";
    }
  }
  return true;
}

// Priced fixes first, cheapest first (as the order table ranks priced rows); then fewer GPUs;
// then the plan's own GPU, its format (no quality cost), its layout; then the order table's and
// the what-if table's order.
bool cheaper(const FixCandidate& a, const FixCandidate& b) {
  const PlanFix &x = a.fix, &y = b.fix;
  const bool xp = x.cost_per_hour > 0, yp = y.cost_per_hour > 0;
  if (xp != yp) return xp;
  if (xp && x.cost_per_hour != y.cost_per_hour) return x.cost_per_hour < y.cost_per_hour;
  if (x.gpus != y.gpus) return x.gpus < y.gpus;
  if (x.own_gpu != y.own_gpu) return x.own_gpu;
  if (x.same_format != y.same_format) return x.same_format;
  if (x.keeps_layout != y.keeps_layout) return x.keeps_layout;
  if (a.gpu_rank != b.gpu_rank) return a.gpu_rank < b.gpu_rank;
  return a.format_rank < b.format_rank;
}

}  // namespace

// base moved to order o of GPU g: its layout, GPU count and memory (a measured KV size is one
// GPU's at the plan's layout, so it no longer holds).
PlanFix with_order(PlanFix base, const OrderOption& o, const GpuSpec& g) {
  base.gpu = g;
  base.input.tp = o.tp;
  base.input.pp = o.pp;
  base.input.gpus = o.gpus;
  base.input.available_kv_bytes.reset();
  base.input.available_kv_bytes_per_rank.clear();
  base.input.gpu_memory_bytes = g.engine_memory_bytes();
  // The order's replicas are one server's data-parallel ranks, as min_gpus sized them.
  run_as_one_server(base.input);
  base.gpus = o.gpus;
  base.tp = o.tp;
  base.pp = o.pp;
  base.replicas = o.replicas;
  return base;
}

namespace {

// What every candidate fix of one plan compares against.
struct FixContext {
  const PlanReport& r;
  std::string source;
  std::string own;       // the plan's KV format
  std::uint32_t have;    // the plan's GPUs
  GpuSpec own_gpu;       // a preset or file (r.gpu), or only a memory size (--gpu-memory-gib)
  std::size_t own_rank;  // the plan's GPU's row in the order table, or past its end
};

FixContext fix_context(const PlanReport& r, const std::string& source) {
  FixContext x{.r = r,
               .source = source,
               .own = to_string(r.input.format),
               .have = plan_gpus(r.input),
               .own_gpu = r.gpu ? *r.gpu : GpuSpec{},
               .own_rank = r.order.size()};
  if (!r.gpu) x.own_gpu.id = "GPU";
  for (std::size_t i = 0; i < r.order.size(); ++i)
    if (r.gpu && r.order[i].gpu.id == r.gpu->id) x.own_rank = i;
  return x;
}

// The replicas of the plan's layout that hold the concurrency; 0 when more than 1024 GPUs would.
std::uint32_t replicas_needed(const FixContext& x, const PlanInput& input) {
  const auto& in = x.r.input;
  PlanInput one = input;
  one.gpus = 0;  // one replica
  const std::uint64_t per = plan_capacity(x.r.model, one, x.source).max_requests_per_replica;
  const std::uint64_t want = std::max<std::uint64_t>(in.concurrency, 1);
  const std::uint64_t unit = std::uint64_t{in.tp} * in.pp;
  // vLLM's DP ranks of an MoE model share its experts: the fewest that hold the requests, which
  // may be fewer than the one-replica count, fit 1024 GPUs where that count does not, or load
  // where one replica does not.
  if (replicas_share_experts(x.r.model, input)) {
    const std::uint64_t hi =
        per ? std::min<std::uint64_t>(ceil_div(want, per), 1024 / unit) : 1024 / unit;
    return static_cast<std::uint32_t>(fewest_replicas(x.r.model, input, want, hi, x.source));
  }
  if (per == 0 || ceil_div(want, per) > 1024 / unit) return 0;
  // One replica runs every request, the largest activation: with fewer requests per replica
  // each holds at least as many, so fewer replicas may already do.
  auto replicas = static_cast<std::uint32_t>(ceil_div(want, per));
  for (int step = 0; step < 4 && replicas > x.r.capacity.replicas + 1; ++step) {
    PlanInput fewer = input;
    fewer.gpus = static_cast<std::uint32_t>(unit * (replicas - 1));
    if (plan_capacity(x.r.model, fewer, x.source).max_requests < in.concurrency) break;
    --replicas;
  }
  return replicas;
}

// 1. The plan's GPUs and layout (TP, PP); replicas added where one replica holds some.
std::optional<PlanFix> same_layout_fix(const FixContext& x, const PlanFix& base, const WhatIf& w) {
  const auto& in = x.r.input;
  PlanFix f = base;
  f.gpu = x.own_gpu;
  f.keeps_layout = true;
  f.tp = in.tp;
  f.pp = in.pp;
  const std::uint32_t replicas =
      w.max_requests < in.concurrency ? replicas_needed(x, f.input) : x.r.capacity.replicas;
  if (replicas == 0) return std::nullopt;
  f.replicas = replicas;
  f.gpus = static_cast<std::uint32_t>(mul(std::uint64_t{in.tp} * in.pp, replicas, "GPUs"));
  f.input.gpus = f.gpus;
  // More replicas are one server's data-parallel ranks, as replicas_needed sized them.
  if (replicas != x.r.capacity.replicas) run_as_one_server(f.input);
  return f;
}

// The candidate fixes in one what-if row's format, into `found`.
void add_fixes_in_format(const FixContext& x, const PlanFix& base, std::size_t wi, const WhatIf& w,
                         std::vector<FixCandidate>& found) {
  const PlanReport& r = x.r;
  auto add = [&](PlanFix f, std::size_t gpu_rank) {
    if (complete_fix(r, f, x.source))
      found.push_back({.fix = std::move(f), .gpu_rank = gpu_rank, .format_rank = wi});
  };
  if (auto f = same_layout_fix(x, base, w)) add(std::move(*f), x.own_rank);
  // 2. The smallest order of the plan's GPU in any layout a node allows, when that layout is
  // not the plan's (a measured KV size is one GPU's at the plan's layout: the model decides).
  if (r.gpu) {
    const OrderOption o = min_gpus(r.model, base.input, *r.gpu, 1024, x.source);
    if (o.feasible && (o.tp != r.input.tp || o.pp != r.input.pp))
      add(with_order(base, o, x.own_gpu), x.own_rank);
  }
  // 3. Every other GPU of the order: its smallest order (the order table's row in the plan's
  // own format).
  for (std::size_t oi = 0; oi < r.order.size(); ++oi) {
    const GpuSpec& g = r.order[oi].gpu;
    if (r.gpu && g.id == r.gpu->id) continue;
    const OrderOption o = base.same_format && r.order[oi].feasible
                              ? r.order[oi]
                              : min_gpus(r.model, base.input, g, 1024, x.source);
    if (!o.feasible) continue;
    PlanFix f = with_order(base, o, g);
    f.own_gpu = false;
    f.input.gpu_id = g.id;
    add(f, oi);
  }
}

// Every fix in the formats the engine implements, cheapest first.
std::vector<FixCandidate> fix_candidates(const FixContext& x) {
  const PlanReport& r = x.r;
  // The what-if rows name the formats the engine implements; a report made without them
  // (--brief) computes them.
  const std::vector<WhatIf> rows =
      r.what_if.empty() ? what_if(r.model, r.input, r.gpu, x.source) : r.what_if;
  std::vector<FixCandidate> found;
  for (std::size_t wi = 0; wi < rows.size(); ++wi) {
    const WhatIf& w = rows[wi];
    if (!w.engine_native || w.policy != "full") continue;
    PlanFix base;
    base.kv_dtype = w.format;
    base.same_format = w.format == x.own;
    base.plan_gpus = x.have;
    base.input = r.input;
    try {
      base.input.format = parse_kv_format(w.format, x.source, "format");
    } catch (const Error&) {
      continue;
    }
    add_fixes_in_format(x, base, wi, w, found);
  }
  std::stable_sort(found.begin(), found.end(), cheaper);
  return found;
}

// The cheapest; then, where not yet shown, the cheapest keeping the format, on the plan's GPU,
// on the plan's GPU keeping the format, and keeping the plan's layout.
std::vector<PlanFix> pick_fixes(const FixContext& x, const std::vector<FixCandidate>& found) {
  const auto& in = x.r.input;
  std::vector<PlanFix> out;
  auto pick = [&](const std::string& label, auto&& wanted) {
    for (const auto& c : found) {
      if (!wanted(c.fix)) continue;
      for (const auto& o : out)
        if (o.gpu.id == c.fix.gpu.id && o.kv_dtype == c.fix.kv_dtype && o.gpus == c.fix.gpus &&
            o.tp == c.fix.tp && o.pp == c.fix.pp)
          return;  // already shown
      out.push_back(c.fix);
      out.back().label = label;
      return;
    }
  };
  const std::string layout =
      "TP " + std::to_string(in.tp) + (in.pp > 1 ? " × PP " + std::to_string(in.pp) : "");
  const std::string& own = x.own;
  const std::string& gpu = x.own_gpu.id;
  pick("cheapest", [](const PlanFix&) { return true; });
  pick("or, keeping " + own, [](const PlanFix& f) { return f.same_format; });
  pick("or, on the plan's " + gpu, [](const PlanFix& f) { return f.own_gpu; });
  pick("or, on the plan's " + gpu + " keeping " + own,
       [](const PlanFix& f) { return f.own_gpu && f.same_format; });
  pick("or, keeping the plan's layout (" + layout + ")",
       [](const PlanFix& f) { return f.own_gpu && f.keeps_layout; });
  return out;
}

}  // namespace

std::vector<PlanFix> plan_fixes(const PlanReport& r) {
  if (r.capacity.max_requests >= r.input.concurrency) return {};
  const FixContext x = fix_context(r, "plan fix");
  return pick_fixes(x, fix_candidates(x));
}

std::string render(const PlanReport& r, OutputFormat f) {
  // Names from the command line may hold invalid UTF-8: replace it (U+FFFD) rather than throw.
  const std::vector<PlanFix> fixes = plan_fixes(r);
  if (f == OutputFormat::json) {
    nlohmann::json j = plan_json(r);
    j["fixes"] = nlohmann::json::array();
    for (const auto& x : fixes)
      j["fixes"].push_back(
          {{"label", x.label},
           {"kv_dtype", x.kv_dtype},
           {"same_format", x.same_format},
           {"gpu", x.gpu.id},
           {"own_gpu", x.own_gpu},
           {"keeps_layout", x.keeps_layout},
           {"gpus", x.gpus},
           {"plan_gpus", x.plan_gpus},
           {"extra_gpus", x.own_gpu ? nlohmann::json(x.extra_gpus) : nlohmann::json(nullptr)},
           {"fewer_gpus", x.own_gpu ? nlohmann::json(x.fewer_gpus) : nlohmann::json(nullptr)},
           {"nodes", count_or_null(x.nodes)},
           {"tp", x.tp},
           {"pp", x.pp},
           {"replicas", x.replicas},
           {"max_requests", x.max_requests},
           {"cost_per_hour", usd_or_null(x.cost_per_hour)},
           {"quality", x.quality},
           {"vllm", x.vllm ? nlohmann::json(*x.vllm) : nlohmann::json(nullptr)},
           {"sglang", x.sglang ? nlohmann::json(*x.sglang) : nlohmann::json(nullptr)}});
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  const bool md = f == OutputFormat::md;
  auto table = [&](const Table& t) { return md ? render_markdown(t) : render_text(t); };
  auto heading = [&](const std::string& h) { return md ? "#### " + h + "\n\n" : h + "\n"; };
  std::string s = (md ? "### " : "") + plan_title(r) + "\n";
  s += (md ? "\n_" : "") + semantics(r.input) + (md ? "_\n\n" : "\n\n");
  s += heading("Memory") + table(memory_table(r)) + "\n";
  s += heading("KV cache") + table(capacity_table(r)) + "\n";
  if (!r.order.empty())
    s += heading("Order: " + grouped(r.input.concurrency) + " requests of " +
                 grouped(r.input.context) + " tokens") +
         table(order_table_of(r)) + (md ? "\n" : "") + order_notes(r, md) + "\n";
  if (!r.what_if.empty()) s += heading("What if") + table(what_if_table(r)) + "\n";
  s += heading("Engine flags") + (md ? "\n" : "") + flags_text(r, md);
  if (r.capacity.max_requests < r.input.concurrency)
    s += "\n" + heading("Fix") + fix_text(r, fixes, md);
  return s;
}

namespace {

nlohmann::json host_memory_json(const HostMemory& h, const Deployment& d) {
  nlohmann::json tiers = nlohmann::json::array();
  for (const HostTier& t : h.tiers)
    tiers.push_back({{"name", t.name},
                     {"setting", t.setting},
                     {"bytes_per_rank", t.bytes_per_rank},
                     {"pinned", t.pinned},
                     {"exact", t.exact},
                     {"rule", t.rule}});
  return {{"tiers", tiers},
          {"ranks_per_node", h.ranks_per_node},
          {"pinned_bytes_per_rank", h.pinned_per_rank},
          {"pinned_bytes_per_node", h.pinned_per_node},
          {"disk_bytes_per_node", h.disk_per_node},
          {"node_memory_bytes",
           d.node.memory_bytes ? nlohmann::json(*d.node.memory_bytes) : nlohmann::json(nullptr)}};
}

std::string check_json(const CheckReport& r) {
  const auto& d = r.deploy;
  const auto& c = r.capacity;
  nlohmann::json j;
  j["deployment"] = d.name;
  j["source"] = d.source;
  j["passed"] = r.passed();
  j["failures"] = r.failures();
  j["model"] = d.model.id;
  j["gpu"] = d.gpu.id;
  j["gpus"] = d.disagg ? deployment_gpus(d) : d.plan.gpus;
  if (d.disagg)  // the plan's figures below are the decode side's
    j["disaggregated"] = {{"prefill_replicas", d.disagg->prefill_replicas},
                          {"prefill_tp", d.disagg->prefill_tp},
                          {"decode_replicas", d.disagg->decode_replicas},
                          {"decode_tp", d.disagg->decode_tp},
                          {"kv_link", d.disagg->kv_link},
                          {"routing", d.disagg->routing}};
  j["engine"] = engine_rules(d.plan).name();
  j["kv_dtype"] = to_string(d.plan.format);
  j["policy"] = to_string(d.plan.policy);
  j["max_model_len"] = d.plan.context;
  j["slo"] = {{"context", d.slo.context}, {"concurrency", d.slo.concurrency}};
  j["capacity"] = {
      {"available_kv_bytes", c.memory.available_bytes},
      {"num_gpu_blocks", c.paged ? nlohmann::json(c.num_gpu_blocks) : nlohmann::json(nullptr)},
      {"kv_cache_tokens", c.kv_cache_tokens},
      {"max_concurrency", c.max_concurrency},
      {"requests_at_slo_context", r.requests_at_slo}};
  if (r.host) j["host_memory"] = host_memory_json(*r.host, d);
  j["checks"] = nlohmann::json::array();
  for (const auto& i : r.items)
    j["checks"].push_back(
        {{"id", i.id},
         {"title", i.title},
         {"passed", i.passed},
         {"detail", i.detail},
         {"fix", i.fix.empty() ? nlohmann::json(nullptr) : nlohmann::json(i.fix)}});
  j["warnings"] = d.warnings;
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

// JUnit XML, one test case per check, for CI dashboards.
std::string check_junit(const CheckReport& r) {
  const auto& d = r.deploy;
  std::string s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  const std::string suite = "kvplan check " + d.name;
  s += "<testsuites name=\"kvplan\" tests=\"" + std::to_string(r.items.size()) + "\" failures=\"" +
       std::to_string(r.failures()) + "\">\n";
  s += "  <testsuite name=\"" + xml_escape(suite) + "\" tests=\"" + std::to_string(r.items.size()) +
       "\" failures=\"" + std::to_string(r.failures()) + "\" errors=\"0\" skipped=\"0\">\n";
  for (const auto& i : r.items) {
    s += "    <testcase classname=\"kvplan.check." + xml_escape(junit_classname(d.name)) +
         "\" name=\"" + xml_escape(i.id) + "\">\n";
    if (!i.passed)
      s += "      <failure message=\"" + xml_escape(i.detail) + "\" type=\"slo\">" +
           xml_escape(i.title + ": " + i.detail + (i.fix.empty() ? "" : "; fix: " + i.fix)) +
           "</failure>\n";
    s += "      <system-out>" + xml_escape(i.title + ": " + i.detail) + "</system-out>\n";
    s += "    </testcase>\n";
  }
  if (!d.warnings.empty()) {
    s += "    <system-err>";
    for (const auto& w : d.warnings) s += xml_escape(w) + "\n";
    s += "</system-err>\n";
  }
  s += "  </testsuite>\n</testsuites>\n";
  return s;
}

// The verdict, the checks' table, the KV cache and the warnings, as text or markdown.
std::string check_text(const CheckReport& r, bool md) {
  const auto& d = r.deploy;
  const auto& c = r.capacity;
  Table t{{"check", "result", "detail", "fix"}, {}};
  for (const auto& i : r.items)
    t.rows.push_back({i.id, i.passed ? "PASS" : "FAIL", i.detail, i.fix});
  const std::string verdict = r.passed()
                                  ? "PASS: all " + std::to_string(r.items.size()) + " checks hold"
                                  : "FAIL: " + std::to_string(r.failures()) + " of " +
                                        std::to_string(r.items.size()) + " checks failed";
  // A disaggregated deployment: its GPUs in all, and each side's replicas and TP.
  const std::string layout = d.disagg
                                 ? ", " + std::to_string(d.disagg->prefill_replicas) +
                                       " prefill TP " + std::to_string(d.disagg->prefill_tp) +
                                       (d.plan.pp > 1 ? " PP " + std::to_string(d.plan.pp) : "") +
                                       " + " + std::to_string(d.disagg->decode_replicas) + " decode"
                                 : "";
  const std::string head =
      "kvplan check " + d.name + ": " + d.model.id + " on " + std::to_string(deployment_gpus(d)) +
      " × " + d.gpu.id + ", " + engine_rules(d.plan).name() + layout + " TP " +
      std::to_string(d.plan.tp) + (d.plan.pp > 1 ? " PP " + std::to_string(d.plan.pp) : "") +
      (d.plan.attention_dp > 1
           ? " × DP attention " + std::to_string(d.plan.attention_dp) +
                 (d.plan.moe_ep > 1 ? " (MoE EP " + std::to_string(d.plan.moe_ep) + ")" : "")
           : "") +
      ", " + to_string(d.plan.format) + ", max_model_len " + grouped(d.plan.context);
  std::string s;
  if (md) {
    s = "### " + std::string(r.passed() ? "✅ " : "❌ ") + head + "\n\n**" + verdict + "**\n\n" +
        render_markdown(t);
  } else {
    s = head + "\n" + verdict + "\n\n" + render_text(t);
  }
  const std::string cap =
      c.attention_free
          ? "KV cache: none (attention-free); max_num_seqs " + grouped(c.max_requests_per_replica) +
                " bounds the requests a replica runs"
          : "KV cache: " + human_bytes(c.memory.available_bytes) + " per GPU, " +
                grouped(c.kv_cache_tokens) + " tokens, maximum concurrency " +
                fixed(c.max_concurrency, 2) + "x at " + grouped(d.plan.context) + " tokens";
  s += "\n" + cap + "\n";
  for (const auto& w : d.warnings) s += (md ? "- warning: " : "warning: ") + w + "\n";
  return s;
}

}  // namespace

std::string render(const CheckReport& r, OutputFormat f) {
  if (f == OutputFormat::json) return check_json(r);
  if (f == OutputFormat::junit) return check_junit(r);
  return check_text(r, f == OutputFormat::md);
}

}  // namespace kvplan
