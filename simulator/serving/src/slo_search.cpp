#include "kvplan/sim/slo_search.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <exception>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "kvplan/checked.hpp"
#include "kvplan/engine_args.hpp"
#include "kvplan/engine_rules.hpp"
#include "kvplan/error.hpp"
#include "kvplan/planner.hpp"
#include "kvplan/report.hpp"
#include "kvplan/sim/serving_report.hpp"

namespace kvplan::sim {
namespace {

std::string fixed(double x, int digits) {
  if (!std::isfinite(x)) return "-";
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", digits, x);
  return b;
}

struct Trial {
  bool meets = false;
  double ttft = 0, tpot = 0, e2e = 0;
  std::uint64_t refused = 0, requests = 0;
};

// A configuration meets the SLO only if it serves the whole workload: none refused, some
// finished, every limit held.
Trial judge(const SimResult& r, const SloLimits& slo) {
  Trial t{.ttft = r.summary.ttft_ms.p99,
          .tpot = r.summary.tpot_ms.p99,
          .e2e = r.summary.e2e_ms.p99,
          .refused = refused_requests(r),
          .requests = r.requests.size()};
  t.meets = t.refused == 0 && r.summary.requests > 0 &&
            (slo.tpot_p99_ms <= 0 || r.summary.tpot_ms.count > 0) &&
            (slo.ttft_p99_ms <= 0 || t.ttft <= slo.ttft_p99_ms) &&
            (slo.tpot_p99_ms <= 0 || t.tpot <= slo.tpot_p99_ms) &&
            (slo.e2e_p99_ms <= 0 || t.e2e <= slo.e2e_p99_ms);
  return t;
}

bool cancelled(const SloSearchInput& in) { return in.cancel && in.cancel->load(); }
Error cancelled_error() { return Error("SLO search", "search", "cancelled"); }

// One replica of a line: the search's engine settings on the line's GPU, TP, format and policy.
ServingConfig line_config(const SloSearchInput& in, const SloLine& line) {
  ServingConfig cfg = in.base;
  // The search loads each replica with max_num_seqs requests: where the engine would derive its
  // own from the pool (SGLang, 0), plan --slo's --max-num-seqs default.
  if (cfg.max_num_seqs == 0) cfg.max_num_seqs = kSloDefaultMaxNumSeqs;
  cfg.async_scheduling = default_async_scheduling(cfg.plan);
  cfg.plan.gpu_memory_bytes = line.gpu.engine_memory_bytes();
  cfg.plan.gpu_id = line.gpu.id;
  if (in.engine_default_batched_tokens)
    cfg.max_num_batched_tokens = cfg.plan.max_num_batched_tokens =
        engine_rules(cfg.plan).default_max_num_batched_tokens(cfg.plan);
  cfg.plan.tp = line.tp;
  cfg.plan.format = line.format;
  cfg.plan.policy = line.policy;
  cfg.plan.gpus = 0;
  cfg.plan.available_kv_bytes.reset();
  cfg.plan.available_kv_bytes_per_rank.clear();
  return cfg;
}

// What every line's search does first: the row's identity, the weights' check, prefix caching
// where it is modelled, the step timer. False (with the reason in the row) when nothing can run.
bool prepare_line(const ModelSpec& model, const SloSearchInput& in, const SloLine& line,
                  ServingConfig& cfg, std::unique_ptr<StepTimer>& timer, SloRow& row) {
  const MemoryBudget mem = memory_budget(model, cfg.plan, line.gpu.id);
  if (mem.available_bytes == 0) {
    row.reason = "the weights (" + human_bytes(mem.weight_bytes) + " per GPU) leave no KV memory";
    return false;
  }
  if (cfg.enable_prefix_caching && !prefix_caching_modelled(model, cfg.plan))
    cfg.enable_prefix_caching = false, cfg.cpu_offload_bytes = 0;
  if (in.timer) {
    timer = in.timer(model, line.gpu, line.tp, cfg.plan.engine);
  } else {
    // The line's plan (its TP, expert parallelism) as every other path builds the model.
    StepModelInput si = step_model_input(line.gpu, cfg.plan, in.calibrated);
    si.measured_tables = in.measured_tables;
    timer = std::make_unique<StepModel>(model, line.gpu, si, line.gpu.id);
  }
  return true;
}

SloRow line_row(const SloLine& line, Engine engine) {
  SloRow row;
  row.gpu = line.gpu.id;
  row.tp = line.tp;
  row.kv_dtype = to_string(line.format);
  row.policy = to_string(line.policy);
  row.engine_native = engine_supports(engine, line.format, line.policy);
  return row;
}

// Runs search(row), turning a line's own input error into its row's reason.
template <class Search>
SloRow run_line(const SloSearchInput& in, SloRow row, Search&& search) {
  try {
    search(row);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::internal) throw;
    if (cancelled(in)) throw cancelled_error();  // not this line's reason: the search stops
    row.meets = false, row.replicas = 0, row.gpus = 0;
    row.prefill_replicas = 0, row.decode_replicas = 0;
    row.reason = e.message();
  }
  return row;
}

class LineSearch {
 public:
  LineSearch(const ModelSpec& model, const Workload& w, const SloSearchInput& in,
             const SloLine& line)
      : model_(model), w_(w), in_(in), line_(line), cfg_(line_config(in, line)) {}

  SloRow run() {
    return run_line(in_, line_row(line_, cfg_.plan.engine), [this](SloRow& r) { search(r); });
  }

 private:
  void search(SloRow& row) {
    if (!prepare_line(model_, in_, line_, cfg_, timer_, row)) return;
    // The search counts whole servers: under DP attention a server is attention_dp replicas
    // (groups), else one.
    const std::uint32_t unit = std::max<std::uint32_t>(cfg_.plan.attention_dp, 1);
    const std::uint32_t max_r = in_.max_gpus / (line_.tp * unit);
    if (max_r == 0) {
      row.reason = "TP " + std::to_string(line_.tp) + " exceeds the " +
                   std::to_string(in_.max_gpus) + " GPUs allowed";
      return;
    }
    // Doubling until the SLO holds, then bisection in (last failing, first meeting].
    std::uint32_t fail = 0, pass = 0;
    Trial last;
    for (std::uint32_t r = 1;; r = std::min(max_r, r * 2)) {
      last = trial(r * unit, row);
      if (last.meets) {
        pass = r;
        break;
      }
      fail = r;
      // Each replica has the same max_model_len and pool: more replicas refuse the same requests.
      if (last.refused > 0) {
        fill(row, last, fail * unit);
        row.meets = false;
        row.reason = std::to_string(last.refused) + " of " + std::to_string(last.requests) +
                     " requests refused (prompt + output > max_model_len " +
                     std::to_string(cfg_.plan.context) + ", or more KV than the pool holds)";
        return;
      }
      if (r == max_r) break;
    }
    if (!pass) {
      fill(row, last, fail * unit);
      row.meets = false;
      row.reason = "p99 TTFT " + fixed(last.ttft, 0) + " ms, TPOT " + fixed(last.tpot, 1) +
                   " ms, E2E " + fixed(last.e2e, 0) + " ms at " + std::to_string(fail * unit) +
                   " replicas (" + std::to_string(fail * unit * line_.tp) +
                   " GPUs, the most allowed)";
      return;
    }
    Trial best = last;
    while (pass - fail > 1) {
      const std::uint32_t mid = fail + (pass - fail) / 2;
      const Trial t = trial(mid * unit, row);
      if (t.meets)
        pass = mid, best = t;
      else
        fail = mid;
    }
    fill(row, best, pass * unit);
    row.meets = true;
    PlanInput p = cfg_.plan;
    p.gpus = row.gpus;
    p.concurrency = cfg_.max_num_seqs * pass * unit;
    // The commands launch what was simulated: none where kvplan writes no launch line for the
    // simulated engine (TensorRT-LLM: EngineRules::launch_line says why).
    std::string why;
    if (!engine_rules(p).launch_line(model_, p, &why)) {
      row.reason = why;
      return;
    }
    row.vllm_command = vllm_command(model_, p, &why);
    row.sglang_command = sglang_command(model_, p, &why);
    if (!row.vllm_command && !row.sglang_command) row.reason = why;
  }

  Trial trial(std::uint32_t replicas, SloRow& row) {
    ++row.simulations;
    SimOptions opt;
    opt.slo = in_.slo;
    opt.cancel = in_.cancel;
    return judge(simulate_replicas(model_, cfg_, *timer_, w_, replicas, opt), in_.slo);
  }

  void fill(SloRow& row, const Trial& t, std::uint32_t replicas) const {
    row.replicas = replicas;
    row.gpus = replicas * line_.tp;
    row.ttft_p99_ms = t.ttft, row.tpot_p99_ms = t.tpot, row.e2e_p99_ms = t.e2e;
    row.cost_per_hour = round_cents(line_.gpu.price_per_hour * row.gpus);  // as the order table
  }

  const ModelSpec& model_;
  const Workload& w_;
  const SloSearchInput& in_;
  const SloLine& line_;
  ServingConfig cfg_;
  std::unique_ptr<StepTimer> timer_;
};

// A line's xPyD row (the header comment has the search).
class DisaggSearch {
 public:
  DisaggSearch(const ModelSpec& model, const Workload& w, const SloSearchInput& in,
               const SloLine& line)
      : model_(model), w_(w), in_(in), line_(line), cfg_(line_config(in, line)) {}

  SloRow run() {
    return run_line(in_, line_row(line_, cfg_.plan.engine), [this](SloRow& r) { search(r); });
  }

 private:
  struct Split {
    std::uint32_t x = 0, y = 0;  // prefill, decode replicas
    Trial t;
    double kv_gbps = 0;
  };

  void search(SloRow& row) {
    row.prefill_replicas = 1, row.decode_replicas = 1;  // marks the row disaggregated
    row.kv_link = in_.layout.kv_link;
    if (!prepare_line(model_, in_, line_, cfg_, timer_, row)) return;
    DisaggLayout l = in_.layout;
    l.prefill_tp = l.decode_tp = line_.tp;
    d_ = disagg_config(cfg_, cfg_, line_.gpu, l, {.source = "--kv-link"});
    std::uint32_t max_n = in_.max_gpus / line_.tp;
    if (d_.link.name == "nvlink") max_n = std::min(max_n, d_.nvlink_domain_gpus / line_.tp);
    if (max_n < 2) {
      row.reason = "a prefill and a decode replica of TP " + std::to_string(line_.tp) +
                   " do not fit the " + std::to_string(in_.max_gpus) + " GPUs allowed" +
                   (d_.link.name == "nvlink" ? " and one NVLink domain" : "");
      return;
    }
    // Doubling n until a split meets the SLO, then bisection in (last failing, first meeting].
    std::uint32_t fail = 1, pass = 0;
    Split last;
    for (std::uint32_t n = 2;; n = std::min(max_n, n * 2)) {
      last = best_split(n, row);
      if (last.t.meets) {
        pass = n;
        break;
      }
      fail = n;
      if (last.t.refused > 0) return refused(row, last);
      if (n == max_n) break;
    }
    if (!pass) {
      fill(row, last);
      row.reason = "p99 TTFT " + fixed(last.t.ttft, 0) + " ms, TPOT " + fixed(last.t.tpot, 1) +
                   " ms, E2E " + fixed(last.t.e2e, 0) + " ms at " + std::to_string(last.x) + "P" +
                   std::to_string(last.y) + "D (" + std::to_string(fail * line_.tp) +
                   " GPUs, the most allowed)";
      return;
    }
    Split best = last;
    while (pass - fail > 1) {
      const std::uint32_t mid = fail + (pass - fail) / 2;
      const Split s = best_split(mid, row);
      if (s.t.meets)
        pass = mid, best = s;
      else
        fail = mid;
    }
    fill(row, best);
    row.meets = true;
    commands(row);
  }

  // The split of n replicas to judge: the fewest prefill replicas whose TTFT holds (and that
  // refuse nothing), found by bisection; with no TTFT limit, one.
  Split best_split(std::uint32_t n, SloRow& row) {
    std::uint32_t lo = 1;  // TTFT is taken to hold at n - 1 if anywhere
    if (in_.slo.ttft_p99_ms > 0)
      lo = static_cast<std::uint32_t>(least_where(1, n - 1, [&](std::uint64_t p) {
        const Split& s =
            trial(static_cast<std::uint32_t>(p), n - static_cast<std::uint32_t>(p), row);
        return s.t.refused == 0 && s.t.ttft <= in_.slo.ttft_p99_ms;
      }));
    return trial(lo, n - lo, row);
  }

  const Split& trial(std::uint32_t x, std::uint32_t y, SloRow& row) {
    const auto key = std::make_pair(x, y);
    if (auto it = tried_.find(key); it != tried_.end()) return it->second;
    ++row.simulations;
    DisaggConfig c = d_;
    c.prefill_replicas = x, c.decode_replicas = y;
    SimOptions opt;
    opt.slo = in_.slo;
    opt.cancel = in_.cancel;
    const DisaggResult r = simulate_disagg(model_, c, *timer_, *timer_, w_, opt);
    return tried_[key] = Split{.x = x, .y = y, .t = judge(r.run, in_.slo), .kv_gbps = r.kv_gbps};
  }

  void refused(SloRow& row, const Split& s) {
    fill(row, s);
    row.reason = std::to_string(s.t.refused) + " of " + std::to_string(s.t.requests) +
                 " requests refused (prompt + output > max_model_len " +
                 std::to_string(cfg_.plan.context) + ", or more KV than the pool holds)";
  }

  void fill(SloRow& row, const Split& s) const {
    row.prefill_replicas = s.x, row.decode_replicas = s.y;
    row.replicas = s.x + s.y;
    row.gpus = row.replicas * line_.tp;
    row.ttft_p99_ms = s.t.ttft, row.tpot_p99_ms = s.t.tpot, row.e2e_p99_ms = s.t.e2e;
    row.kv_gbps = s.kv_gbps;
    row.cost_per_hour = round_cents(line_.gpu.price_per_hour * row.gpus);
  }

  // One vLLM instance per replica with the NIXL connector (docs/features/nixl_connector_usage.md
  // @026c83f974fcee0e1887060ebdcc53dc427bacfc: kv_producer for prefillers, kv_consumer for
  // decoders, a proxy in front); the decode side without prefix caching, as simulated.
  // SGLang: one server per replica, --disaggregation-mode prefill or decode, behind its router
  // (sgl-project/sglang docs/advanced_features/pd_disaggregation.md@
  // cccb65463e6cd3fcb1af70f8c536e7b61c4eb68c); its decode side keeps no radix cache by default
  // (disaggregation_decode_enable_radix_cache off), as simulated.
  void commands(SloRow& row) const {
    PlanInput p = cfg_.plan;
    p.gpus = line_.tp;
    p.concurrency = cfg_.max_num_seqs;
    std::string why;
    if (p.engine == Engine::sglang) {
      const auto base = sglang_command(model_, p, &why);
      if (!base) {
        row.reason = why;
        return;
      }
      row.prefill_command = *base + " --disaggregation-mode prefill";
      row.decode_command = *base + " --disaggregation-mode decode";
      return;
    }
    const auto base = vllm_command(model_, p, &why);
    if (!base) {
      row.reason = why;
      return;
    }
    const auto role = [](const char* r) {
      return std::string(
                 " --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"") +
             r + "\"}'";
    };
    row.prefill_command = *base + role("kv_producer");
    row.decode_command = *base + " --no-enable-prefix-caching" + role("kv_consumer");
  }

  const ModelSpec& model_;
  const Workload& w_;
  const SloSearchInput& in_;
  const SloLine& line_;
  ServingConfig cfg_;
  DisaggConfig d_;
  std::unique_ptr<StepTimer> timer_;
  std::map<std::pair<std::uint32_t, std::uint32_t>, Split> tried_;
};

void rank(std::vector<SloRow>& rows) {
  std::vector<std::size_t> order(rows.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const bool priced = std::all_of(rows.begin(), rows.end(),
                                  [](const SloRow& r) { return !r.meets || r.cost_per_hour > 0; });
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const SloRow &x = rows[a], &y = rows[b];
    if (x.meets != y.meets) return x.meets;
    if (!x.meets) return false;  // line order
    if (priced && x.cost_per_hour != y.cost_per_hour) return x.cost_per_hour < y.cost_per_hour;
    if (x.engine_native != y.engine_native) return x.engine_native;
    if (x.gpus != y.gpus) return x.gpus < y.gpus;
    return x.tp < y.tp;
  });
  std::vector<SloRow> out;
  out.reserve(rows.size());
  for (auto i : order) out.push_back(std::move(rows[i]));
  rows = std::move(out);
}

}  // namespace

std::vector<SloLine> slo_lines(const ModelSpec& model, const std::vector<GpuSpec>& gpus,
                               const std::vector<std::uint32_t>& tps,
                               const std::vector<KvFormat>& formats,
                               const std::vector<RetentionPolicy>& policies) {
  std::vector<SloLine> lines;
  std::vector<std::string> seen;
  for (const auto& g : gpus) {
    if (std::find(seen.begin(), seen.end(), g.id) != seen.end()) continue;
    seen.push_back(g.id);
    for (auto tp : tps) {
      if (!valid_tp(model, tp)) continue;
      for (const auto& f : formats)
        for (const auto& p : policies) lines.push_back({g, tp, f, p});
    }
  }
  return lines;
}

std::vector<SloRow> slo_search(const ModelSpec& model, const Workload& workload,
                               const SloSearchInput& in) {
  if (!(in.slo.ttft_p99_ms > 0 || in.slo.tpot_p99_ms > 0 || in.slo.e2e_p99_ms > 0))
    throw Error("--slo", "slo", "give at least one of ttft_p99_ms, tpot_p99_ms, e2e_p99_ms");
  if (in.slo.tpot_p99_ms > 0 && !has_tpot(workload))
    throw Error("--slo", "tpot_p99_ms", workload.source + ": " + no_tpot_reason());
  if (in.lines.empty())
    throw Error("--slo", "gpu", "no GPU type and TP size to search (is TP valid for the model?)");
  check_simulated_engine(in.base.plan.engine, "--slo");
  if (in.disaggregated)
    if (const auto no = engine_rules(in.base.plan).disaggregation_refusal())
      throw Error("--slo", "engine", no->message);
  // TensorRT-LLM's disaggregated launch is a trtllm-serve disaggregated YAML kvplan does not
  // write: its layouts are simulated (simulate --prefill-replicas), not searched.
  if (in.disaggregated && in.base.plan.engine == Engine::trtllm)
    throw Error("--slo", "engine",
                "plan --slo --disaggregated writes vLLM and SGLang launch lines; TensorRT-LLM's "
                "(trtllm-serve disaggregated and its YAML) are not written: simulate a layout "
                "with kvplan simulate --engine trtllm --prefill-replicas");
  if (in.disaggregated) {  // the link's numbers once, not as every line's reason
    DisaggConfig c;
    c.link.name = "custom";
    c.link.gbps = 1;
    c.link.latency_s = in.layout.kv_link_latency_ms / 1e3;
    c.link.per_request_s = in.layout.kv_transfer_overhead_ms / 1e3;
    parse_routing(in.layout.routing, "--slo", "routing");
    check_disagg(c, "--slo");
  }
  // Tasks: every line aggregated, then (when asked) every line disaggregated.
  const std::size_t tasks = in.lines.size() * (in.disaggregated ? 2 : 1);
  std::vector<SloRow> rows(tasks);
  std::atomic<std::size_t> next{0};
  std::atomic<std::uint64_t> done{0};
  std::mutex mu;
  std::exception_ptr failure;
  const auto worker = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < tasks;) {
      try {
        if (cancelled(in)) throw cancelled_error();
        const SloLine& line = in.lines[i % in.lines.size()];
        rows[i] = i < in.lines.size() ? LineSearch(model, workload, in, line).run()
                                      : DisaggSearch(model, workload, in, line).run();
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!failure) failure = std::current_exception();
        next = tasks;
        return;
      }
      const auto d = ++done;
      if (in.progress) {
        std::lock_guard<std::mutex> lock(mu);
        in.progress(d, tasks);
      }
    }
  };
  unsigned n = in.threads ? in.threads : std::max(1u, std::thread::hardware_concurrency());
  n = static_cast<unsigned>(std::min<std::size_t>(n, tasks));
  std::vector<std::thread> pool;
  for (unsigned k = 1; k < n; ++k) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  rank(rows);
  return rows;
}

namespace {

// "aggregated", or "2P1D" for two prefill and one decode replicas.
std::string layout(const SloRow& r) {
  if (!r.disaggregated()) return "aggregated";
  return std::to_string(r.prefill_replicas) + "P" + std::to_string(r.decode_replicas) + "D";
}

nlohmann::json optional_text(const std::optional<std::string>& s) {
  return s ? nlohmann::json(*s) : nlohmann::json();
}

// The winner's launch lines: the engine commands, or each role's instances and the proxy.
std::string winner_text(const SloRow& w) {
  std::string s = "\ncheapest meeting the SLO: " + std::to_string(w.gpus) + " x " + w.gpu +
                  " (TP " + std::to_string(w.tp) + ", ";
  if (w.disaggregated())
    s += std::to_string(w.prefill_replicas) + " prefill + " + std::to_string(w.decode_replicas) +
         " decode replicas over " + w.kv_link + ", " + fixed(w.kv_gbps, 2) + " GB/s of KV), ";
  else
    s += std::to_string(w.replicas) + (w.replicas == 1 ? " replica), " : " replicas), ");
  s += w.kv_dtype + (w.engine_native ? "" : " (not native to the engine: a what-if)") + "\n";
  if (w.vllm_command) s += "  " + *w.vllm_command + "\n";
  if (w.sglang_command) s += "  " + *w.sglang_command + "\n";
  if (w.prefill_command)
    s += "  prefill, " + std::to_string(w.prefill_replicas) +
         " instance(s): " + *w.prefill_command + "\n";
  if (w.decode_command)
    s += "  decode, " + std::to_string(w.decode_replicas) + " instance(s): " + *w.decode_command +
         "\n  with a proxy that sends each request to a prefiller (max_tokens 1), then to a "
         "decoder (vLLM's tests/v1/kv_connector/nixl_integration/toy_proxy_server.py)\n";
  return s;
}

}  // namespace

std::string render_slo_search(const std::vector<SloRow>& rows, const SloLimits& slo,
                              OutputFormat f) {
  const auto lim = [](double x) { return x > 0 ? nlohmann::json(x) : nlohmann::json(); };
  if (f == OutputFormat::json) {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& r : rows) {
      const bool run = r.replicas > 0;
      arr.push_back(
          {{"gpu", r.gpu},
           {"tp", r.tp},
           {"layout", layout(r)},
           {"replicas", r.replicas},
           {"prefill_replicas", r.prefill_replicas},
           {"decode_replicas", r.decode_replicas},
           {"gpus", r.gpus},
           {"kv_dtype", r.kv_dtype},
           {"policy", r.policy},
           {"engine_native", r.engine_native},
           {"meets", r.meets},
           {"ttft_p99_ms", run ? nlohmann::json(r.ttft_p99_ms) : nlohmann::json()},
           {"tpot_p99_ms", run ? nlohmann::json(r.tpot_p99_ms) : nlohmann::json()},
           {"e2e_p99_ms", run ? nlohmann::json(r.e2e_p99_ms) : nlohmann::json()},
           {"cost_per_hour",
            r.cost_per_hour > 0 ? nlohmann::json(r.cost_per_hour) : nlohmann::json()},
           {"simulations", r.simulations},
           {"reason", r.reason},
           {"vllm", r.vllm_command ? nlohmann::json(*r.vllm_command) : nlohmann::json()},
           {"sglang", optional_text(r.sglang_command)},
           {"kv_link", r.disaggregated() ? nlohmann::json(r.kv_link) : nlohmann::json()},
           {"kv_gbps", r.disaggregated() && run ? nlohmann::json(r.kv_gbps) : nlohmann::json()},
           {"prefill_command", optional_text(r.prefill_command)},
           {"decode_command", optional_text(r.decode_command)}});
    }
    nlohmann::json j = {{"slo",
                         {{"ttft_p99_ms", lim(slo.ttft_p99_ms)},
                          {"tpot_p99_ms", lim(slo.tpot_p99_ms)},
                          {"e2e_p99_ms", lim(slo.e2e_p99_ms)}}},
                        {"rows", arr},
                        {"winner", !rows.empty() && rows[0].meets ? arr[0] : nlohmann::json()}};
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  Table t{{"#", "GPU", "TP", "layout", "replicas", "GPUs", "kv_dtype", "policy", "native", "meets",
           "TTFT p99 ms", "TPOT p99 ms", "E2E p99 ms", "$/h", "note"},
          {}};
  std::size_t k = 0;
  for (const auto& r : rows) {
    const bool run = r.replicas > 0;
    t.rows.push_back({std::to_string(++k), r.gpu, std::to_string(r.tp), layout(r),
                      run ? std::to_string(r.replicas) : "-", run ? std::to_string(r.gpus) : "-",
                      r.kv_dtype, r.policy, r.engine_native ? "yes" : "no (what-if)",
                      r.meets ? "yes" : "no", run ? fixed(r.ttft_p99_ms, 0) : "-",
                      run ? fixed(r.tpot_p99_ms, 1) : "-", run ? fixed(r.e2e_p99_ms, 0) : "-",
                      r.cost_per_hour > 0 ? fixed(r.cost_per_hour, 2) : "-", r.reason});
  }
  std::string s = f == OutputFormat::md ? render_markdown(t) : render_text(t);
  if (!rows.empty() && rows[0].meets) {
    s += winner_text(rows[0]);
  } else {
    s += "\nno configuration meets the SLO within the GPUs allowed\n";
  }
  return s;
}

}  // namespace kvplan::sim
