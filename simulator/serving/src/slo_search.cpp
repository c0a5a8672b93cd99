#include "kvplan/sim/slo_search.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <exception>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "kvplan/engine_args.hpp"
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

class LineSearch {
 public:
  LineSearch(const ModelSpec& model, const Workload& w, const SloSearchInput& in,
             const SloLine& line)
      : model_(model), w_(w), in_(in), line_(line) {
    cfg_ = in.base;
    cfg_.async_scheduling = default_async_scheduling(cfg_.plan);
    cfg_.plan.gpu_memory_bytes = line.gpu.engine_memory_bytes();
    cfg_.plan.gpu_id = line.gpu.id;
    cfg_.plan.tp = line.tp;
    cfg_.plan.format = line.format;
    cfg_.plan.policy = line.policy;
    cfg_.plan.gpus = 0;
    cfg_.plan.available_kv_bytes.reset();
    cfg_.plan.available_kv_bytes_per_rank.clear();
  }

  SloRow run() {
    SloRow row;
    row.gpu = line_.gpu.id;
    row.tp = line_.tp;
    row.kv_dtype = to_string(line_.format);
    row.policy = to_string(line_.policy);
    row.engine_native = engine_supports(cfg_.plan.engine, line_.format, line_.policy);
    try {
      search(row);
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::internal) throw;
      if (cancelled(in_)) throw cancelled_error();  // not this line's reason: the search stops
      row.meets = false, row.replicas = 0, row.gpus = 0;
      row.reason = e.message();
    }
    return row;
  }

 private:
  void search(SloRow& row) {
    const MemoryBudget mem = memory_budget(model_, cfg_.plan, line_.gpu.id);
    if (mem.available_bytes == 0) {
      row.reason = "the weights (" + human_bytes(mem.weight_bytes) + " per GPU) leave no KV memory";
      return;
    }
    if (cfg_.enable_prefix_caching && !prefix_caching_modelled(model_, cfg_.plan))
      cfg_.enable_prefix_caching = false, cfg_.cpu_offload_bytes = 0;
    if (in_.timer)
      timer_ = in_.timer(model_, line_.gpu, line_.tp, cfg_.plan.engine);
    else
      timer_ = default_timer();
    const std::uint32_t max_r = in_.max_gpus / line_.tp;
    if (max_r == 0) {
      row.reason = "TP " + std::to_string(line_.tp) + " exceeds the " +
                   std::to_string(in_.max_gpus) + " GPUs allowed";
      return;
    }
    // Doubling until the SLO holds, then bisection in (last failing, first meeting].
    std::uint32_t fail = 0, pass = 0;
    Trial last;
    for (std::uint32_t r = 1;; r = std::min(max_r, r * 2)) {
      last = trial(r, row);
      if (last.meets) {
        pass = r;
        break;
      }
      fail = r;
      // Each replica has the same max_model_len and pool: more replicas refuse the same requests.
      if (last.refused > 0) {
        fill(row, last, fail);
        row.meets = false;
        row.reason = std::to_string(last.refused) + " of " + std::to_string(last.requests) +
                     " requests refused (prompt + output > max_model_len " +
                     std::to_string(cfg_.plan.context) + ", or more KV than the pool holds)";
        return;
      }
      if (r == max_r) break;
    }
    if (!pass) {
      fill(row, last, fail);
      row.meets = false;
      row.reason = "p99 TTFT " + fixed(last.ttft, 0) + " ms, TPOT " + fixed(last.tpot, 1) +
                   " ms, E2E " + fixed(last.e2e, 0) + " ms at " + std::to_string(fail) +
                   " replicas (" + std::to_string(fail * line_.tp) + " GPUs, the most allowed)";
      return;
    }
    Trial best = last;
    while (pass - fail > 1) {
      const std::uint32_t mid = fail + (pass - fail) / 2;
      const Trial t = trial(mid, row);
      if (t.meets)
        pass = mid, best = t;
      else
        fail = mid;
    }
    fill(row, best, pass);
    row.meets = true;
    PlanInput p = cfg_.plan;
    p.gpus = row.gpus;
    p.concurrency = cfg_.max_num_seqs * pass;
    // The vLLM and SGLang commands launch what was simulated; a TensorRT-LLM search has no
    // command of its own yet (engine_args.hpp builds vLLM's and SGLang's), so it gives none.
    if (cfg_.plan.engine == Engine::trtllm) return;
    std::string why;
    row.vllm_command = vllm_command(model_, p, &why);
    row.sglang_command = sglang_command(model_, p, &why);
    if (!row.vllm_command && !row.sglang_command) row.reason = why;
  }

  std::unique_ptr<StepTimer> default_timer() const {
    return std::make_unique<StepModel>(
        model_, line_.gpu, step_model_input(line_.gpu, cfg_.plan.engine, line_.tp), line_.gpu.id);
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
  std::vector<SloRow> rows(in.lines.size());
  std::atomic<std::size_t> next{0};
  std::atomic<std::uint64_t> done{0};
  std::mutex mu;
  std::exception_ptr failure;
  const auto worker = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < in.lines.size();) {
      try {
        if (cancelled(in)) throw cancelled_error();
        rows[i] = LineSearch(model, workload, in, in.lines[i]).run();
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!failure) failure = std::current_exception();
        next = in.lines.size();
        return;
      }
      const auto d = ++done;
      if (in.progress) {
        std::lock_guard<std::mutex> lock(mu);
        in.progress(d, in.lines.size());
      }
    }
  };
  unsigned n = in.threads ? in.threads : std::max(1u, std::thread::hardware_concurrency());
  n = static_cast<unsigned>(std::min<std::size_t>(n, in.lines.size()));
  std::vector<std::thread> pool;
  for (unsigned k = 1; k < n; ++k) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  rank(rows);
  return rows;
}

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
           {"replicas", r.replicas},
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
           {"sglang", r.sglang_command ? nlohmann::json(*r.sglang_command) : nlohmann::json()}});
    }
    nlohmann::json j = {{"slo",
                         {{"ttft_p99_ms", lim(slo.ttft_p99_ms)},
                          {"tpot_p99_ms", lim(slo.tpot_p99_ms)},
                          {"e2e_p99_ms", lim(slo.e2e_p99_ms)}}},
                        {"rows", arr},
                        {"winner", !rows.empty() && rows[0].meets ? arr[0] : nlohmann::json()}};
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  Table t{{"#", "GPU", "TP", "replicas", "GPUs", "kv_dtype", "policy", "native", "meets",
           "TTFT p99 ms", "TPOT p99 ms", "E2E p99 ms", "$/h", "note"},
          {}};
  std::size_t k = 0;
  for (const auto& r : rows) {
    const bool run = r.replicas > 0;
    t.rows.push_back({std::to_string(++k), r.gpu, std::to_string(r.tp),
                      run ? std::to_string(r.replicas) : "-", run ? std::to_string(r.gpus) : "-",
                      r.kv_dtype, r.policy, r.engine_native ? "yes" : "no (what-if)",
                      r.meets ? "yes" : "no", run ? fixed(r.ttft_p99_ms, 0) : "-",
                      run ? fixed(r.tpot_p99_ms, 1) : "-", run ? fixed(r.e2e_p99_ms, 0) : "-",
                      r.cost_per_hour > 0 ? fixed(r.cost_per_hour, 2) : "-", r.reason});
  }
  std::string s = f == OutputFormat::md ? render_markdown(t) : render_text(t);
  if (!rows.empty() && rows[0].meets) {
    const auto& w = rows[0];
    s += "\ncheapest meeting the SLO: " + std::to_string(w.gpus) + " x " + w.gpu + " (TP " +
         std::to_string(w.tp) + ", " + std::to_string(w.replicas) +
         (w.replicas == 1 ? " replica), " : " replicas), ") + w.kv_dtype +
         (w.engine_native ? "" : " (not native to the engine: a what-if)") + "\n";
    if (w.vllm_command) s += "  " + *w.vllm_command + "\n";
    if (w.sglang_command) s += "  " + *w.sglang_command + "\n";
  } else {
    s += "\nno configuration meets the SLO within the GPUs allowed\n";
  }
  return s;
}

}  // namespace kvplan::sim
