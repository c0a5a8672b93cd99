#include <cmath>
#include <nlohmann/json.hpp>

#include "kvplan/sim/probe.hpp"
#include "probe_json.hpp"
#include "report_format.hpp"

namespace kvplan::sim {

namespace {

using report::fixed;
using report::num;
using report::signed_fixed;

std::string describe(const ProbeReport& r) {
  const ProbeOptions& o = r.options;
  std::string s = to_string(o.kind) + " probe of " + r.source + " (" + r.model +
                  "): " + std::to_string(o.prompts) + " prompts of " +
                  std::to_string(r.prompt_tokens) + " tokens, seed " + std::to_string(o.seed) +
                  "; ";
  if (o.kind == ProbeKind::copy)
    s += "span " + std::to_string(o.span) + ", " + std::to_string(o.filler) + " " +
         to_string(o.filler_kind) + " filler tokens, then the span again: scored " +
         std::to_string(o.span - o.cue) + " greedy predictions per prompt after a cue of " +
         std::to_string(o.cue);
  else
    s += "needle of " + std::to_string(o.span) + " tokens at depth " + fixed(o.depth, 2) + " of " +
         std::to_string(o.filler) + " " + to_string(o.filler_kind) +
         " filler tokens, question = its first " + std::to_string(o.cue) +
         " tokens, greedy continuation of " + std::to_string(o.span - o.cue);
  return s + "\n";
}

}  // namespace

std::string probe_verdict(const ProbeReport& r) {
  const std::string what = r.options.kind == ProbeKind::copy ? "copy accuracy" : "needle tokens";
  const std::string nums = "full cache " +
                           fixed(r.results.empty() ? NAN : r.results[0].accuracy, 3) + ", chance " +
                           fixed(r.chance_accuracy, 3);
  if (!r.model_can_do)
    return "the model cannot do this task; the probe shows nothing for it (" + what + ": " + nums +
           ")";
  return what + ": " + nums +
         " (the full cache does the task; each configuration's difference "
         "from it shows what it breaks)";
}

nlohmann::json probe_to_json(const ProbeReport& r) {
  const bool needle = r.options.kind == ProbeKind::needle;
  const ProbeOptions& o = r.options;
  nlohmann::json j = {{"probe", to_string(o.kind)},
                      {"source", r.source},
                      {"model", r.model},
                      {"span", o.span},
                      {"cue", o.cue},
                      {"filler", o.filler},
                      {"filler_kind", to_string(o.filler_kind)},
                      {"depth", o.depth},
                      {"prompts", o.prompts},
                      {"seed", o.seed},
                      {"prompt_tokens", r.prompt_tokens},
                      {"chance_accuracy", num(r.chance_accuracy)},
                      {"model_can_do", r.model_can_do},
                      {"verdict", probe_verdict(r)}};
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& x : r.results) {
    nlohmann::json e = {{"label", x.label},
                        {"kv_dtype", to_string(x.config.format)},
                        {"policy", to_string(x.config.policy)},
                        {"block_size", x.config.block_size},
                        {"correct", x.correct},
                        {"scored", x.scored},
                        {"accuracy", num(x.accuracy)},
                        {"delta", num(x.delta)}};
    if (needle) {
      e["reproduced"] = x.reproduced;
      e["layer_retained"] = x.layer_retained;
      e["layer_all_retained"] = x.layer_all_retained;
      e["layer_mass"] = x.layer_mass;
    }
    arr.push_back(std::move(e));
  }
  j["results"] = arr;
  return j;
}

std::string render(const ProbeReport& r, OutputFormat f) {
  const bool needle = r.options.kind == ProbeKind::needle;
  if (f == OutputFormat::json)
    return probe_to_json(r).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  // Where the model cannot do the task, accuracies are noise: only the cache facts (needle
  // retention and mass) are shown, and the verdict says so.
  const bool show_acc = r.model_can_do;
  Table t;
  t.header = {"kv_dtype", "policy", "S"};
  if (show_acc) {
    for (const char* h : {"accuracy", "vs full", "correct"}) t.header.push_back(h);
    if (needle) t.header.push_back("reproduced");
  }
  if (needle)
    for (std::uint32_t l = 0; l < r.layers; ++l) {
      t.header.push_back("L" + std::to_string(l) + " kept");
      t.header.push_back("L" + std::to_string(l) + " mass");
    }
  for (const auto& x : r.results) {
    if (!show_acc && !needle && &x != &r.results.front()) break;
    std::vector<std::string> row = {to_string(x.config.format), to_string(x.config.policy),
                                    std::to_string(x.config.block_size)};
    if (show_acc) {
      row.push_back(fixed(x.accuracy, 3));
      row.push_back(&x == &r.results.front() ? "(baseline)" : signed_fixed(x.delta, 3));
      row.push_back(std::to_string(x.correct) + "/" + std::to_string(x.scored));
      if (needle)
        row.push_back(std::to_string(x.reproduced) + "/" + std::to_string(r.options.prompts));
    }
    if (needle)
      for (std::uint32_t l = 0; l < r.layers && l < x.layer_mass.size(); ++l) {
        row.push_back(fixed(x.layer_retained[l], 3));
        row.push_back(fixed(x.layer_mass[l], 4));
      }
    t.rows.push_back(std::move(row));
  }
  if (f == OutputFormat::csv) return render_csv(t);
  std::string head = describe(r);
  head += "chance (the span's first occurrence replaced by other tokens, full cache): " +
          fixed(r.chance_accuracy, 3) + "\n" + probe_verdict(r) + "\n";
  if (needle)
    head +=
        "kept: share of the needle's tokens in the layer's cache at the question's last token "
        "(mean over KV heads); mass: full-cache attention of that query on the kept needle "
        "tokens (mean over query heads)\n";
  if (f == OutputFormat::md) return head + "\n" + render_markdown(t);
  return head + "\n" + render_text(t);
}

}  // namespace kvplan::sim
