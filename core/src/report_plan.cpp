// Renderers of `kvplan plan` and `kvplan check`: text, JSON, Markdown, JUnit XML.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "kvplan/deploy.hpp"
#include "kvplan/engine_args.hpp"
#include "kvplan/engine_rules.hpp"
#include "kvplan/error.hpp"
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

std::uint32_t plan_gpus(const PlanInput& in) { return in.gpus ? in.gpus : in.tp * in.pp; }

// What a KV format costs in model quality, as far as kvplan has measured it: its replay results
// (docs/accuracy.md) cover the stories260K reference model only, never a served model.
std::string quality_of(const ModelSpec& model, bool same) {
  if (same) return "unchanged (the plan's own KV format)";
  return "not measured for " + model.id +
         " (kvplan's replay results cover the stories260K reference model only; measure it with "
         "kvplan replay --trace on a trace of this model, docs/accuracy.md)";
}

std::string semantics(Engine e) { return engine_rules(e).budget_formula(); }

std::string plan_title(const PlanReport& r) {
  const auto& in = r.input;
  const auto& c = r.capacity;
  std::string gpu = r.gpu ? r.gpu->id : (c.memory.measured ? "measured KV memory" : "custom GPU");
  std::string s = r.model.id + " on " + gpu + ", " + to_string(in.engine, in.vllm_rules) + ", TP " +
                  std::to_string(in.tp) + (in.pp > 1 ? " × PP " + std::to_string(in.pp) : "") +
                  (c.replicas > 1 ? " × " + std::to_string(c.replicas) + " replicas" : "") + ", " +
                  to_string(in.format) + ", policy " + to_string(in.policy);
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

Table capacity_table(const PlanReport& r) {
  const auto& c = r.capacity;
  const auto& in = r.input;
  Table t{{"quantity", "value"}, {}};
  if (c.paged) {
    t.rows.push_back({"page (one block of " + std::to_string(c.block_size) + " tokens, one layer)",
                      grouped(c.page_bytes) + " B"});
    t.rows.push_back({"num_gpu_blocks", grouped(c.num_gpu_blocks)});
    t.rows.push_back({"blocks per request of " + grouped(in.context) + " tokens",
                      grouped(c.blocks_per_request)});
  }
  if (c.state_layers > 0) {
    t.rows.push_back(
        {"recurrent state per sequence (" + std::to_string(c.state_layers) + " layers, one rank)",
         human_bytes(c.state_bytes_per_layer * c.state_layers)});
    if (c.paged && engine_rules(in).pages_recurrent_state())
      t.rows.push_back(
          {"  as vLLM pages it (one page per layer)", human_bytes(c.page_bytes * c.state_layers)});
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
  if (!c.fits_one_request)
    t.rows.push_back({"estimated maximum model length", grouped(c.estimated_max_model_len)});
  return t;
}

Table order_table_of(const PlanReport& r) {
  Table t{{"rank", "GPU", "GPUs", "layout", "holds", "USD/h"}, {}};
  int rank = 0;
  for (const auto& o : r.order) {
    if (!o.feasible) {
      t.rows.push_back({"-", o.gpu.id, "-", o.reason, "-", "-"});
      continue;
    }
    t.rows.push_back({std::to_string(++rank), o.gpu.id, std::to_string(o.gpus),
                      "TP " + std::to_string(o.tp) + " × PP " + std::to_string(o.pp) + " × " +
                          std::to_string(o.replicas),
                      grouped(o.max_requests),
                      o.cost_per_hour > 0 ? fixed(o.cost_per_hour, 2) : "-"});
  }
  return t;
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

// The order table and the what-if rows.
void order_and_what_if_json(const PlanReport& r, nlohmann::json& j) {
  j["order"] = nlohmann::json::array();
  for (const auto& o : r.order)
    j["order"].push_back({{"gpu", o.gpu.id},
                          {"feasible", o.feasible},
                          {"gpus", o.gpus},
                          {"tp", o.tp},
                          {"pp", o.pp},
                          {"replicas", o.replicas},
                          {"max_requests", o.max_requests},
                          {"cost_per_hour", o.cost_per_hour},
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

nlohmann::json plan_json(const PlanReport& r) {
  const auto& c = r.capacity;
  const auto& in = r.input;
  nlohmann::json j;
  j["model"] = r.model.id;
  j["gpu"] = r.gpu ? nlohmann::json(r.gpu->id) : nlohmann::json(nullptr);
  j["engine"] = to_string(in.engine, in.vllm_rules);
  j["semantics"] = semantics(in.engine);
  j["kv_dtype"] = to_string(in.format);
  j["policy"] = to_string(in.policy);
  j["tp"] = in.tp;
  j["pp"] = in.pp;
  j["gpus"] = in.gpus ? in.gpus : in.tp * in.pp;
  j["replicas"] = c.replicas;
  j["block_size"] = c.block_size;
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
  j["estimated_max_model_len"] = c.estimated_max_model_len;
  j["state_layers"] = c.state_layers;
  j["state_bytes_per_layer"] = c.state_bytes_per_layer;
  j["max_context"] = r.max_context;
  j["stages"] = nlohmann::json::array();
  for (const auto& s : c.stages)
    j["stages"].push_back({{"stage", s.stage},
                           {"cached_layers", s.cached_layers},
                           {"state_layers", s.state_layers},
                           {"group_size", s.group_size},
                           {"kv_cache_groups", s.kv_cache_groups},
                           {"num_blocks", s.num_blocks},
                           {"blocks_per_request", s.blocks_per_request},
                           {"bytes_per_request", s.bytes_per_request}});
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

std::string layout_text(const PlanFix& f) {
  return "TP " + std::to_string(f.tp) + (f.pp > 1 ? " × PP " + std::to_string(f.pp) : "") + " × " +
         std::to_string(f.replicas) + " replica" + (f.replicas > 1 ? "s" : "");
}

std::string fix_change(const PlanReport& r, const PlanFix& f) {
  const std::string gpu = r.gpu ? r.gpu->id : "GPU";
  const std::string where = f.extra_gpus
                                ? std::to_string(f.gpus) + " × " + gpu + " as " + layout_text(f)
                                : "the same " + std::to_string(f.gpus) + " × " + gpu;
  const std::string s = f.same_format ? where + ", KV cache " + f.kv_dtype + " kept"
                                      : "KV cache " + f.kv_dtype + " on " + where;
  return s + ": holds " + grouped(f.max_requests) + " requests of " + grouped(r.input.context) +
         " tokens";
}

std::string fix_cost(const PlanReport& r, const PlanFix& f) {
  const std::string gpu = r.gpu ? r.gpu->id : "GPU";
  std::string s = f.extra_gpus ? std::to_string(f.extra_gpus) + " more " + gpu + " (" +
                                     std::to_string(f.gpus) + " in all)"
                               : "no more GPUs";
  if (f.cost_per_hour > 0) s += ", USD " + fixed(f.cost_per_hour, 2) + "/h";
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
        "\n";
    return s;
  }
  s = std::string(md ? "" : "  ") + "The plan holds " + grouped(r.capacity.max_requests) + " of " +
      target + ". The cheapest change that holds them:\n" + (md ? "\n" : "");
  for (std::size_t i = 0; i < fixes.size(); ++i) {
    const auto& f = fixes[i];
    const std::string label = i == 0 ? "cheapest" : "or, keeping " + f.kv_dtype;
    auto flags = [&](const char* name, const std::optional<std::string>& cmd,
                     const std::string& why) {
      if (md)
        s += std::string("  - ") + name + ": " + (cmd ? "`" + *cmd + "`" : "none (" + why + ")") +
             "\n";
      else
        s += std::string("      ") + name + ": " + (cmd ? *cmd : "none (" + why + ")") + "\n";
    };
    if (md) {
      s += "- **" + label + "**: " + fix_change(r, f) + "\n  - cost: " + fix_cost(r, f) + "\n";
    } else {
      s += "  " + label + ": " + fix_change(r, f) + "\n      cost: " + fix_cost(r, f) + "\n";
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
  if (with_what_if) r.what_if = what_if(model, input, gpu, source);
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

std::vector<PlanFix> plan_fixes(const PlanReport& r) {
  const auto& in = r.input;
  if (r.capacity.max_requests >= in.concurrency) return {};
  const std::string source = "plan fix";
  // The what-if rows hold the candidates; a report made without them (--brief) computes them.
  const std::vector<WhatIf> rows =
      r.what_if.empty() ? what_if(r.model, in, r.gpu, source) : r.what_if;
  const std::string own = to_string(in.format);
  const std::uint32_t have = plan_gpus(in);
  std::vector<std::pair<std::size_t, PlanFix>> found;  // (what-if order, fix)
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const WhatIf& w = rows[i];
    if (!w.engine_native || w.policy != "full") continue;
    PlanFix f;
    f.kv_dtype = w.format;
    f.same_format = w.format == own;
    f.input = in;
    try {
      f.input.format = parse_kv_format(w.format, source, "format");
    } catch (const Error&) {
      continue;
    }
    if (w.max_requests >= in.concurrency) {
      f.gpus = have;
      f.tp = in.tp;
      f.pp = in.pp;
      f.replicas = have / (in.tp * in.pp);
    } else if (w.min_gpus > 0 && r.gpu) {
      const OrderOption o = min_gpus(r.model, f.input, *r.gpu, 1024, source);
      if (!o.feasible) continue;
      f.input.tp = o.tp;
      f.input.pp = o.pp;
      f.input.gpus = o.gpus;
      f.input.available_kv_bytes.reset();  // a measured size is one GPU's at the old layout
      f.gpus = o.gpus;
      f.tp = o.tp;
      f.pp = o.pp;
      f.replicas = o.replicas;
    } else {
      continue;
    }
    f.max_requests = plan_capacity(r.model, f.input, source).max_requests;
    if (f.max_requests < in.concurrency) continue;
    f.extra_gpus = f.gpus > have ? f.gpus - have : 0;
    f.cost_per_hour = r.gpu && r.gpu->price_per_hour > 0 ? f.gpus * r.gpu->price_per_hour : 0;
    f.quality = quality_of(r.model, f.same_format);
    f.vllm = vllm_command(r.model, f.input, &f.vllm_why);
    f.sglang = sglang_command(r.model, f.input, &f.sglang_why);
    found.emplace_back(i, std::move(f));
  }
  auto cheaper = [](const std::pair<std::size_t, PlanFix>& a,
                    const std::pair<std::size_t, PlanFix>& b) {
    if (a.second.gpus != b.second.gpus) return a.second.gpus < b.second.gpus;
    if (a.second.same_format != b.second.same_format) return a.second.same_format;
    return a.first < b.first;
  };
  std::stable_sort(found.begin(), found.end(), cheaper);
  std::vector<PlanFix> out;
  if (found.empty()) return out;
  out.push_back(found.front().second);
  if (!out.front().same_format)
    for (const auto& [i, f] : found)
      if (f.same_format) {
        out.push_back(f);
        break;
      }
  return out;
}

std::string render(const PlanReport& r, OutputFormat f) {
  // Names from the command line may hold invalid UTF-8: replace it (U+FFFD) rather than throw.
  const std::vector<PlanFix> fixes = plan_fixes(r);
  if (f == OutputFormat::json) {
    nlohmann::json j = plan_json(r);
    j["fixes"] = nlohmann::json::array();
    for (const auto& x : fixes)
      j["fixes"].push_back(
          {{"kv_dtype", x.kv_dtype},
           {"same_format", x.same_format},
           {"gpus", x.gpus},
           {"extra_gpus", x.extra_gpus},
           {"tp", x.tp},
           {"pp", x.pp},
           {"replicas", x.replicas},
           {"max_requests", x.max_requests},
           {"cost_per_hour", x.cost_per_hour},
           {"quality", x.quality},
           {"vllm", x.vllm ? nlohmann::json(*x.vllm) : nlohmann::json(nullptr)},
           {"sglang", x.sglang ? nlohmann::json(*x.sglang) : nlohmann::json(nullptr)}});
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  const bool md = f == OutputFormat::md;
  auto table = [&](const Table& t) { return md ? render_markdown(t) : render_text(t); };
  auto heading = [&](const std::string& h) { return md ? "#### " + h + "\n\n" : h + "\n"; };
  std::string s = (md ? "### " : "") + plan_title(r) + "\n";
  s += (md ? "\n_" : "") + semantics(r.input.engine) + (md ? "_\n\n" : "\n\n");
  s += heading("Memory") + table(memory_table(r)) + "\n";
  s += heading("KV cache") + table(capacity_table(r)) + "\n";
  if (!r.order.empty())
    s += heading("Order: " + grouped(r.input.concurrency) + " requests of " +
                 grouped(r.input.context) + " tokens") +
         table(order_table_of(r)) + "\n";
  if (!r.what_if.empty()) s += heading("What if") + table(what_if_table(r)) + "\n";
  s += heading("Engine flags") + (md ? "\n" : "") + flags_text(r, md);
  if (r.capacity.max_requests < r.input.concurrency)
    s += "\n" + heading("Fix") + fix_text(r, fixes, md);
  return s;
}

std::string render(const CheckReport& r, OutputFormat f) {
  const auto& d = r.deploy;
  const auto& c = r.capacity;
  if (f == OutputFormat::json) {
    nlohmann::json j;
    j["deployment"] = d.name;
    j["source"] = d.source;
    j["passed"] = r.passed();
    j["failures"] = r.failures();
    j["model"] = d.model.id;
    j["gpu"] = d.gpu.id;
    j["gpus"] = d.plan.gpus;
    j["engine"] = to_string(d.plan.engine);
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
    if (r.host) {
      nlohmann::json tiers = nlohmann::json::array();
      for (const HostTier& t : r.host->tiers)
        tiers.push_back({{"name", t.name},
                         {"setting", t.setting},
                         {"bytes_per_rank", t.bytes_per_rank},
                         {"pinned", t.pinned},
                         {"exact", t.exact},
                         {"rule", t.rule}});
      j["host_memory"] = {
          {"tiers", tiers},
          {"ranks_per_node", r.host->ranks_per_node},
          {"pinned_bytes_per_rank", r.host->pinned_per_rank},
          {"pinned_bytes_per_node", r.host->pinned_per_node},
          {"disk_bytes_per_node", r.host->disk_per_node},
          {"node_memory_bytes",
           d.node.memory_bytes ? nlohmann::json(*d.node.memory_bytes) : nlohmann::json(nullptr)}};
    }
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
  if (f == OutputFormat::junit) {
    std::string s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    const std::string suite = "kvplan check " + d.name;
    s += "<testsuites name=\"kvplan\" tests=\"" + std::to_string(r.items.size()) +
         "\" failures=\"" + std::to_string(r.failures()) + "\">\n";
    s += "  <testsuite name=\"" + xml_escape(suite) + "\" tests=\"" +
         std::to_string(r.items.size()) + "\" failures=\"" + std::to_string(r.failures()) +
         "\" errors=\"0\" skipped=\"0\">\n";
    for (const auto& i : r.items) {
      s += "    <testcase classname=\"kvplan.check." + xml_escape(d.name) + "\" name=\"" +
           xml_escape(i.id) + "\">\n";
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
  const bool md = f == OutputFormat::md;
  Table t{{"check", "result", "detail", "fix"}, {}};
  for (const auto& i : r.items)
    t.rows.push_back({i.id, i.passed ? "PASS" : "FAIL", i.detail, i.fix});
  const std::string verdict = r.passed()
                                  ? "PASS: all " + std::to_string(r.items.size()) + " checks hold"
                                  : "FAIL: " + std::to_string(r.failures()) + " of " +
                                        std::to_string(r.items.size()) + " checks failed";
  const std::string head = "kvplan check " + d.name + ": " + d.model.id + " on " +
                           std::to_string(d.plan.gpus) + " × " + d.gpu.id + ", " +
                           to_string(d.plan.engine) + " TP " + std::to_string(d.plan.tp) +
                           (d.plan.pp > 1 ? " PP " + std::to_string(d.plan.pp) : "") + ", " +
                           to_string(d.plan.format) + ", max_model_len " + grouped(d.plan.context);
  std::string s;
  if (md) {
    s = "### " + std::string(r.passed() ? "✅ " : "❌ ") + head + "\n\n**" + verdict + "**\n\n" +
        render_markdown(t);
  } else {
    s = head + "\n" + verdict + "\n\n" + render_text(t);
  }
  const std::string cap = "KV cache: " + human_bytes(c.memory.available_bytes) + " per GPU, " +
                          grouped(c.kv_cache_tokens) + " tokens, maximum concurrency " +
                          fixed(c.max_concurrency, 2) + "x at " + grouped(d.plan.context) +
                          " tokens";
  s += "\n" + cap + "\n";
  for (const auto& w : d.warnings) s += (md ? "- warning: " : "warning: ") + w + "\n";
  return s;
}

}  // namespace kvplan
