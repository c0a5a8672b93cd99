#include <cmath>
#include <nlohmann/json.hpp>

#include "kvplan/sim/probe.hpp"
#include "kvplan/sim/replay.hpp"
#include "probe_json.hpp"
#include "report_format.hpp"

namespace kvplan::sim {

namespace {

using report::fixed;
using report::num;
using report::sci;
using report::signed_fixed;

// The probe's result for a replay configuration (same label), or null.
const ProbeResult* probe_row(const ProbeReport* probe, const std::string& label) {
  if (!probe) return nullptr;
  for (const auto& r : probe->results)
    if (r.label == label) return &r;
  return nullptr;
}

double layer_mean(const std::vector<double>& v) {
  if (v.empty()) return std::nan("");
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

// The probe's columns beside the replay's: which it has, and whether its accuracies mean anything.
struct ProbeColumns {
  const ProbeReport* probe = nullptr;
  bool needle = false;  // the needle probe's kept tokens and attention mass too
  bool acc = false;     // accuracies where the model cannot do the probe's task are noise: "-"

  explicit ProbeColumns(const ProbeReport* p)
      : probe(p), needle(p && p->options.kind == ProbeKind::needle), acc(p && p->model_can_do) {}
};

nlohmann::json config_json(const ConfigResult& r, const ProbeColumns& pc) {
  nlohmann::json e = {
      {"label", r.label},
      {"kv_dtype", to_string(r.config.format)},
      {"policy", to_string(r.config.policy)},
      {"block_size", r.config.block_size},
      {"steps", r.steps},
      {"predicted_bytes", r.predicted_bytes},
      {"measured_bytes", r.measured_bytes},
      {"predicted_peak_bytes", r.predicted_peak_bytes},
      {"measured_peak_bytes", r.measured_peak_bytes},
      {"bytes_match", r.bytes_match},
      {"first_mismatch_step", r.first_mismatch_step},
      {"retained_tokens", r.retained_tokens},
      {"rel_error", num(r.rel_error)},
      {"attention_mass", num(r.attention_mass)},
      {"layer_rel_error", r.layer_rel_error},
      {"layer_mass", r.layer_mass},
      {"mean_kl", r.model_in_loop ? num(r.mean_kl) : nlohmann::json()},
      {"max_kl", r.model_in_loop ? num(r.max_kl) : nlohmann::json()},
      {"top1_agreement", r.model_in_loop ? num(r.top1_agreement) : nlohmann::json()},
      {"perplexity", r.model_in_loop ? num(r.perplexity) : nlohmann::json()},
      {"scored", r.scored},
      {"tokens_per_second", num(r.tokens_per_second)}};
  if (!pc.probe) return e;
  const ProbeResult* p = probe_row(pc.probe, r.label);
  e["probe_accuracy"] = p && pc.acc ? num(p->accuracy) : nlohmann::json();
  e["probe_delta"] = p && pc.acc ? num(p->delta) : nlohmann::json();
  if (pc.needle) {
    e["probe_needle_kept"] = p ? num(layer_mean(p->layer_retained)) : nlohmann::json();
    e["probe_needle_mass"] = p ? num(layer_mean(p->layer_mass)) : nlohmann::json();
  }
  return e;
}

std::string replay_json(const ReplayReport& rep, const ProbeColumns& pc) {
  nlohmann::json j = {
      {"source", rep.source},
      {"model", rep.model},
      {"tokens", rep.tokens},
      {"eval_from", rep.eval_from},
      {"prefill", rep.prefill},
      {"model_in_loop", rep.model_in_loop},
      {"baseline_perplexity", rep.model_in_loop ? num(rep.baseline_perplexity) : nlohmann::json()},
      {"all_bytes_match", rep.all_bytes_match()}};
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& r : rep.configs) arr.push_back(config_json(r, pc));
  j["configs"] = arr;
  if (pc.probe) j["probe"] = probe_to_json(*pc.probe);
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::vector<std::string> replay_header(const ReplayReport& rep, const ProbeColumns& pc) {
  std::vector<std::string> h = {"kv_dtype",   "policy",      "S",           "predicted B",
                                "measured B", "peak pred B", "peak meas B", "match",
                                "kept",       "rel err",     "attn mass"};
  if (rep.model_in_loop) {
    for (const char* c : {"mean KL", "top-1", "ppl"}) h.push_back(c);
  }
  if (pc.probe) {
    const std::string pk = to_string(pc.probe->options.kind);
    h.push_back(pk + " acc");
    h.push_back(pk + " vs full");
  }
  if (pc.needle) {
    h.push_back("needle kept");
    h.push_back("needle mass");
  }
  h.push_back("tok/s");
  return h;
}

std::vector<std::string> config_row(const ConfigResult& r, bool model_in_loop,
                                    const ProbeColumns& pc) {
  std::vector<std::string> row = {
      to_string(r.config.format),
      to_string(r.config.policy),
      std::to_string(r.config.block_size),
      std::to_string(r.predicted_bytes),
      std::to_string(r.measured_bytes),
      std::to_string(r.predicted_peak_bytes),
      std::to_string(r.measured_peak_bytes),
      r.bytes_match ? "yes" : "NO (step " + std::to_string(r.first_mismatch_step) + ")",
      std::to_string(r.retained_tokens),
      sci(r.rel_error),
      fixed(r.attention_mass, 4)};
  if (model_in_loop) {
    row.push_back(sci(r.mean_kl));
    row.push_back(fixed(r.top1_agreement, 4));
    row.push_back(fixed(r.perplexity, 3));
  }
  if (pc.probe) {
    const ProbeResult* p = probe_row(pc.probe, r.label);
    row.push_back(p && pc.acc ? fixed(p->accuracy, 3) : "-");
    row.push_back(p && pc.acc ? signed_fixed(p->delta, 3) : "-");
    if (pc.needle) {
      row.push_back(p ? fixed(layer_mean(p->layer_retained), 3) : "-");
      row.push_back(p ? fixed(layer_mean(p->layer_mass), 4) : "-");
    }
  }
  row.push_back(fixed(r.tokens_per_second, 0));
  return row;
}

// The lines above the table: the source, whether the bytes matched, the probe's verdict.
std::string replay_head(const ReplayReport& rep, const ProbeColumns& pc) {
  std::string head =
      "replay of " + rep.source + " (" + rep.model + "): " + std::to_string(rep.tokens) + " tokens";
  if (rep.model_in_loop)
    head += ", scored from position " + std::to_string(rep.eval_from) + ", full-cache perplexity " +
            fixed(rep.baseline_perplexity, 3);
  head += "\npredicted bytes (kvplan::kv_cost) vs measured bytes (block pool): " +
          std::string(rep.all_bytes_match() ? "equal at every step for every configuration"
                                            : "MISMATCH (see the match column)");
  head += "\n";
  if (const ProbeReport* probe = pc.probe) {
    head += to_string(probe->options.kind) + " probe (" + std::to_string(probe->options.prompts) +
            " prompts, seed " + std::to_string(probe->options.seed) +
            "): " + probe_verdict(*probe) + "\n";
    if (pc.needle)
      head += "needle kept / mass: means over layers (per layer in the probe's table below)\n";
  }
  return head;
}

std::string render_replay(const ReplayReport& rep, const ProbeReport* probe, OutputFormat f) {
  const ProbeColumns pc(probe);
  if (f == OutputFormat::json) return replay_json(rep, pc);
  Table t;
  t.header = replay_header(rep, pc);
  for (const auto& r : rep.configs) t.rows.push_back(config_row(r, rep.model_in_loop, pc));
  if (f == OutputFormat::csv) return render_csv(t);
  const std::string head = replay_head(rep, pc);
  // The probe's own table (per layer for the needle, its full-cache baseline first) follows.
  const std::string tail = probe ? "\n" + render(*probe, f) : "";
  if (f == OutputFormat::md) return head + "\n" + render_markdown(t) + tail;
  return head + "\n" + render_text(t) + tail;
}

}  // namespace

std::string render(const ReplayReport& rep, OutputFormat f) {
  return render_replay(rep, nullptr, f);
}

std::string render(const ReplayReport& rep, const ProbeReport& probe, OutputFormat f) {
  return render_replay(rep, &probe, f);
}

}  // namespace kvplan::sim
