#include "kvplan/sim/serving_report.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <system_error>

#include "engine_scheduling.hpp"
#include "kvplan/engine_rules.hpp"
#include "kvplan/error.hpp"
#include "kvplan/kv_pool.hpp"
#include "kvplan/sim/step_time.hpp"
#include "latency_sketch.hpp"
#include "replica.hpp"
#include "report_json.hpp"
#include "run_summary.hpp"

namespace kvplan::sim {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

using detail::fixed;
using detail::limit;
using detail::num;
using detail::to_json;

nlohmann::json to_json(const StageSummary& s, bool whole_run, std::uint64_t refused) {
  const double good_fraction =
      s.throughput.requests_per_s > 0 ? s.goodput_requests_per_s / s.throughput.requests_per_s : 0;
  return {{"stage", whole_run ? -1 : static_cast<int>(s.stage)},
          {"requests", s.requests},
          {"refused", refused},
          {"ttft_ms", to_json(s.ttft_ms)},
          {"tpot_ms", to_json(s.tpot_ms)},
          {"itl_ms", to_json(s.itl_ms)},
          {"e2e_ms", to_json(s.e2e_ms)},
          {"throughput",
           {{"input_tokens_per_s", num(s.throughput.input_tokens_per_s)},
            {"output_tokens_per_s", num(s.throughput.output_tokens_per_s)},
            {"requests_per_s", num(s.throughput.requests_per_s)}}},
          {"preemptions", s.preemptions},
          {"prefix_hit_rate", num(s.prefix_hit_rate)},
          {"goodput",
           {{"requests_per_s", num(s.goodput_requests_per_s)}, {"fraction", num(good_fraction)}}},
          {"queue", {{"mean_waiting", num(s.mean_queue)}, {"mean_running", num(s.mean_running)}}}};
}

// One row per metric, one column per stage ("all" first): long metric names read better down
// than across, and a two-stage run stays within 100 columns.
Table summary_table(const SimResult& r, const std::vector<std::uint64_t>& refused) {
  Table t;
  t.header = {"metric", "all"};
  for (const auto& s : r.stages) t.header.push_back("stage " + std::to_string(s.stage));
  std::vector<const StageSummary*> cols = {&r.summary};
  for (const auto& s : r.stages) cols.push_back(&s);
  // refused[0] is the whole run's, refused[1 + k] stage k's, as the columns.
  const auto row = [&](const std::string& name, auto value) {
    std::vector<std::string> cells = {name};
    for (const auto* s : cols) cells.push_back(value(*s));
    t.rows.push_back(std::move(cells));
  };
  const auto pct = [&](const std::string& name, Percentiles StageSummary::*m) {
    const auto cell = [m](double Percentiles::*q) {
      return [m, q](const StageSummary& s) { return (s.*m).count ? fixed((s.*m).*q, 2) : "-"; };
    };
    row(name + " mean ms", cell(&Percentiles::mean));
    row(name + " p50 ms", cell(&Percentiles::p50));
    row(name + " p90 ms", cell(&Percentiles::p90));
    row(name + " p99 ms", cell(&Percentiles::p99));
  };
  row("requests", [](const StageSummary& s) { return grouped(s.requests); });
  {
    std::vector<std::string> cells = {"refused"};
    for (auto n : refused) cells.push_back(grouped(n));
    t.rows.push_back(std::move(cells));
  }
  pct("TTFT", &StageSummary::ttft_ms);
  pct("TPOT", &StageSummary::tpot_ms);
  pct("ITL", &StageSummary::itl_ms);
  pct("E2E", &StageSummary::e2e_ms);
  row("input tokens/s",
      [](const StageSummary& s) { return fixed(s.throughput.input_tokens_per_s, 1); });
  row("output tokens/s",
      [](const StageSummary& s) { return fixed(s.throughput.output_tokens_per_s, 1); });
  row("requests/s", [](const StageSummary& s) { return fixed(s.throughput.requests_per_s, 3); });
  row("goodput requests/s",
      [](const StageSummary& s) { return fixed(s.goodput_requests_per_s, 3); });
  row("preemptions", [](const StageSummary& s) { return grouped(s.preemptions); });
  row("prefix hit rate", [](const StageSummary& s) { return fixed(s.prefix_hit_rate, 4); });
  row("mean queue", [](const StageSummary& s) { return fixed(s.mean_queue, 2); });
  row("mean running", [](const StageSummary& s) { return fixed(s.mean_running, 2); });
  return t;
}

// The refusals as the table's columns: the whole run's, then each stage's (r.refused). Throws an
// internal Error when r.refused does not account for the result's unfinished requests.
std::vector<std::uint64_t> refused_columns(const ServingReport& r) {
  const std::uint64_t total = refused_requests(r.result);
  std::vector<std::uint64_t> cols = {total};
  if (r.result.stages.empty()) return cols;
  if (r.refused.empty() && total == 0) {
    cols.resize(1 + r.result.stages.size(), 0);
    return cols;
  }
  std::uint64_t sum = 0;
  for (auto n : r.refused) sum += n;
  if (r.refused.size() != r.result.stages.size() || sum != total)
    throw Error(ErrorKind::internal, "serving report", "refused",
                "the per-stage refusals (" + std::to_string(sum) + " over " +
                    std::to_string(r.refused.size()) + " stages) do not match the " +
                    std::to_string(total) + " unfinished requests of " +
                    std::to_string(r.result.stages.size()) + " stages: fill refused_per_stage");
  cols.insert(cols.end(), r.refused.begin(), r.refused.end());
  return cols;
}

// The disaggregated layout, its link and its transfers.
std::string disagg_text(const DisaggSummary& d) {
  const auto layout = [](std::uint32_t tp, std::uint32_t pp) {
    return "tp " + std::to_string(tp) + (pp > 1 ? " pp " + std::to_string(pp) : std::string());
  };
  std::string s = "disaggregated: " + std::to_string(d.prefill_replicas) + " prefill x " +
                  layout(d.prefill_tp, d.prefill_pp) + " (" + grouped(d.prefill_blocks) +
                  " blocks each, max_num_seqs " + grouped(d.prefill_max_num_seqs) +
                  ", max_num_batched_tokens " + grouped(d.prefill_max_num_batched_tokens) + "), " +
                  std::to_string(d.decode_replicas) + " decode x " +
                  layout(d.decode_tp, d.decode_pp) + " (" + grouped(d.decode_blocks) +
                  " blocks each), routing " + to_string(d.routing) + "\n";
  s += "KV link " + d.link.name + ": " + fixed(d.link.gbps, 1) + " GB/s per GPU, latency " +
       fixed(d.link.latency_s * 1e3, 3) + " ms, overhead " + fixed(d.link.per_request_s * 1e3, 3) +
       " ms per request (" + d.link.source + ")\n";
  const auto ms = [](const Percentiles& p) {
    return p.count ? fixed(p.mean, 2) + " / " + fixed(p.p99, 2) : std::string("-");
  };
  s += "KV transfers: " + grouped(d.transfers) + ", " +
       fixed(static_cast<double>(d.kv_bytes) / 1e9, 3) + " GB, " + fixed(d.kv_gbps, 3) +
       " GB/s over the run; ms mean / p99: on the link " + ms(d.transfer_ms) +
       ", waiting for the link " + ms(d.link_wait_ms) + ", decode admission " +
       ms(d.admission_wait_ms) + "\n";
  return s;
}

nlohmann::json disagg_json(const DisaggSummary& d) {
  return {{"prefill_replicas", d.prefill_replicas},
          {"decode_replicas", d.decode_replicas},
          {"prefill_tp", d.prefill_tp},
          {"decode_tp", d.decode_tp},
          {"prefill_pp", d.prefill_pp},
          {"decode_pp", d.decode_pp},
          {"prefill_blocks", d.prefill_blocks},
          {"decode_blocks", d.decode_blocks},
          {"prefill_max_num_seqs", d.prefill_max_num_seqs},
          {"prefill_max_num_batched_tokens", d.prefill_max_num_batched_tokens},
          {"routing", to_string(d.routing)},
          {"link",
           {{"name", d.link.name},
            {"gbps", num(d.link.gbps)},
            {"latency_ms", num(d.link.latency_s * 1e3)},
            {"per_request_ms", num(d.link.per_request_s * 1e3)},
            {"source", d.link.source}}},
          {"transfers", d.transfers},
          {"kv_bytes", d.kv_bytes},
          {"kv_gbps", num(d.kv_gbps)},
          {"admission_wait_ms", to_json(d.admission_wait_ms)},
          {"link_wait_ms", to_json(d.link_wait_ms)},
          {"transfer_ms", to_json(d.transfer_ms)}};
}

// The header's scheduling settings in the engine's own words: its one-step-ahead scheduling as
// the run used it (SimResult::async_scheduling), and SGLang's receive interval when above 1.
std::string scheduling_text(const ServingConfig& c, const SimResult& res) {
  if (!detail::engine_scheduling(c.plan.engine).async_scheduling()) return {};
  const bool sglang = c.plan.engine == Engine::sglang;
  std::string s = std::string(sglang ? ", overlap scheduler " : ", async scheduling ") +
                  (res.async_scheduling ? "on" : "off");
  if (sglang && c.plan.sglang().scheduler_recv_interval > 1)
    s += ", scheduler_recv_interval " + std::to_string(c.plan.sglang().scheduler_recv_interval);
  return s;
}

// The running-request cap the run used: max_num_seqs as given, or the engine's own from its pool
// (SGLang's max_running_requests) where none was given or where the pool's is lower.
std::string seqs_text(const ServingConfig& c, const SimResult& res) {
  const std::uint64_t cap = res.max_running ? res.max_running : c.max_num_seqs;
  if (c.max_num_seqs != 0 && cap == c.max_num_seqs) return grouped(cap);
  const std::string who = c.plan.engine == Engine::sglang ? "SGLang's" : "the engine's";
  if (c.max_num_seqs != 0)
    return grouped(cap) + " (" + grouped(c.max_num_seqs) + " given, capped by " + who +
           " Mamba slots // 3)";
  return grouped(cap) + " (" + who +
         " max_running_requests: min(its pool's tokens // 2, its request table's rows))";
}

std::string header_text(const ServingReport& r) {
  const auto& c = r.config;
  std::string s = r.model + " on " + r.gpu + " (" + r.engine + ", tp " + std::to_string(c.plan.tp);
  if (c.plan.pp > 1) s += ", pp " + std::to_string(c.plan.pp) + " (micro-batches in flight)";
  if (c.plan.attention_dp > 1)
    s += ", DP attention " + std::to_string(c.plan.attention_dp) + " (MoE layers over " +
         std::to_string(std::uint64_t{c.plan.tp} * c.plan.attention_dp) + " GPUs" +
         (c.plan.moe_ep > 1 ? ", EP " + std::to_string(c.plan.moe_ep) : "") + ")";
  s += ", " + to_string(c.plan.format) + ", " + to_string(c.plan.policy) + "), ";
  if (r.disagg)
    s += "disaggregated prefill/decode\n" + disagg_text(*r.disagg);
  else
    s += std::to_string(r.replicas) + (r.replicas == 1 ? " replica" : " replicas") + "\n";
  s += "workload " + r.workload + " (seed " + std::to_string(r.seed) +
       "): " + grouped(r.result.requests.size()) + " requests, " + fixed(r.result.simulated_s, 1) +
       " s simulated in " + grouped(r.result.steps) + " steps\n";
  s += (r.result.attention_free
            ? std::string("KV pool: none (attention-free: vLLM's one block, nothing a request "
                          "holds)")
            : "KV pool " + grouped(r.result.num_gpu_blocks) + " blocks of " +
                  std::to_string(r.result.block_size) + " tokens per replica") +
       "; max_model_len " + grouped(c.plan.context) + ", max_num_seqs " + seqs_text(c, r.result) +
       ", max_num_batched_tokens " + grouped(c.max_num_batched_tokens) + ", prefix caching " +
       (c.enable_prefix_caching ? "on" : "off") + scheduling_text(c, r.result) + "\n";
  const detail::EngineScheduling& engine = detail::engine_scheduling(c.plan.engine);
  if (const std::string line = engine.settings_line(c); !line.empty()) s += line + "\n";
  if (const std::uint64_t n = refused_requests(r.result))
    s += "refused " + grouped(n) + " of " + grouped(r.result.requests.size()) +
         " requests (prompt + output > max_model_len, " +
         (engine.arrival_refusal(c).empty() ? "" : engine.arrival_refusal(c) + ", ") +
         "or more KV than the pool holds): not in the latency and throughput figures\n";
  if (r.slo.ttft_p99_ms > 0 || r.slo.tpot_p99_ms > 0 || r.slo.e2e_p99_ms > 0)
    s += "goodput SLO: TTFT " + (r.slo.ttft_p99_ms > 0 ? fixed(r.slo.ttft_p99_ms, 0) : "-") +
         " ms, TPOT " + (r.slo.tpot_p99_ms > 0 ? fixed(r.slo.tpot_p99_ms, 0) : "-") + " ms, E2E " +
         (r.slo.e2e_p99_ms > 0 ? fixed(r.slo.e2e_p99_ms, 0) : "-") + " ms per request\n";
  return s + "\n";
}

// The pooled latencies in the same sketch as serving.cpp's (latency_sketch.hpp): the same values
// give the same figures whether one replica or several produced them.
struct Pool {
  detail::StageAcc acc;  // the pooled requests, tallied as one replica tallies them
  double itl_sum = 0, queue_area = 0, running_area = 0;  // ITL: only mean and count pool
  std::uint64_t itl_count = 0;
};

StageSummary summarize(Pool& a, std::uint32_t stage, double span, double window) {
  StageSummary s = detail::summary_of(a.acc, span, a.running_area, a.queue_area, window);
  s.stage = stage;
  s.itl_ms = {.mean = a.itl_count ? a.itl_sum / static_cast<double>(a.itl_count) : 0,
              .p50 = kNaN,
              .p90 = kNaN,
              .p99 = kNaN,
              .count = a.itl_count};
  return s;
}

// The share and, for each of its requests, its index in the whole workload.
std::pair<Workload, std::vector<std::uint64_t>> share_of(const Workload& w, std::uint32_t n,
                                                         std::uint32_t index) {
  if (n == 0) throw Error(w.source, "replicas", "must be at least 1, got 0");
  Workload s{.source = w.source, .stages = w.stages, .requests = {}};
  std::vector<std::uint32_t> replica(w.requests.size());
  std::vector<std::int64_t> renumbered(w.requests.size(), -1);
  std::vector<std::uint64_t> original;
  std::uint64_t first_turns = 0;
  for (std::size_t i = 0; i < w.requests.size(); ++i) {
    const SimRequest& r = w.requests[i];
    replica[i] = r.after >= 0 ? replica[static_cast<std::size_t>(r.after)]
                              : static_cast<std::uint32_t>(first_turns++ % n);
    if (replica[i] != index) continue;
    SimRequest c = r;
    c.id = s.requests.size();
    if (r.after >= 0) c.after = renumbered[static_cast<std::size_t>(r.after)];
    renumbered[i] = static_cast<std::int64_t>(c.id);
    original.push_back(i);
    s.requests.push_back(std::move(c));
  }
  return {std::move(s), std::move(original)};
}

// frontend_s: the step timer's front-end latency, which simulate() adds to each finished
// request's TTFT and E2E (serving.hpp) but RequestResult's times do not hold.
SimResult pool_replicas(const Workload& w, const std::vector<SimResult>& rs,
                        const std::vector<std::vector<std::uint64_t>>& ids, const SloLimits& slo,
                        double frontend_s) {
  SimResult out;
  const std::size_t nstages = std::max<std::size_t>(1, w.stages.size());
  std::vector<Pool> st(nstages);
  Pool all;
  std::uint64_t preemptions = 0;
  for (const auto& r : rs) {
    out.simulated_s = std::max(out.simulated_s, r.simulated_s);
    out.steps += r.steps;
    out.num_gpu_blocks = r.num_gpu_blocks, out.block_size = r.block_size;
    out.attention_free = r.attention_free;
    out.async_scheduling = r.async_scheduling;
  }
  for (std::size_t k = 0; k < rs.size(); ++k) {
    const SimResult& r = rs[k];
    for (const RequestResult& q : r.requests) {
      RequestResult g = q;
      g.id = ids[k][q.id];
      out.requests.push_back(g);
      if (!q.finished) continue;
      const std::uint32_t stage = w.requests[g.id].stage;
      detail::tally(st[std::min<std::size_t>(stage, nstages - 1)].acc, q, frontend_s, slo);
    }
    // Time averages back to areas (average × the replica's own window), summed over replicas.
    for (std::size_t s = 0; s < r.stages.size() && s < nstages; ++s) {
      const StageSummary& x = r.stages[s];
      const double start = s < w.stages.size() ? w.stages[s].start_s : 0;
      const double end = s + 1 < w.stages.size() ? w.stages[s + 1].start_s : r.simulated_s;
      st[s].queue_area += x.mean_queue * (end - start);
      st[s].running_area += x.mean_running * (end - start);
      st[s].itl_sum += x.itl_ms.mean * static_cast<double>(x.itl_ms.count);
      st[s].itl_count += x.itl_ms.count;
    }
    all.queue_area += r.summary.mean_queue * r.simulated_s;
    all.running_area += r.summary.mean_running * r.simulated_s;
    preemptions += r.summary.preemptions;  // every preemption, of finished requests or not
  }
  std::sort(out.requests.begin(), out.requests.end(),
            [](const RequestResult& a, const RequestResult& b) { return a.id < b.id; });
  for (std::size_t s = 0; s < nstages; ++s) {
    Pool& a = st[s];
    const double start = s < w.stages.size() ? w.stages[s].start_s : 0;
    const double end = s + 1 < w.stages.size() ? w.stages[s + 1].start_s : out.simulated_s;
    detail::StageAcc& x = all.acc;
    for (auto v : {&detail::StageAcc::ttft, &detail::StageAcc::tpot, &detail::StageAcc::e2e})
      (x.*v).merge(a.acc.*v);
    x.finished += a.acc.finished, x.good += a.acc.good, x.prompt += a.acc.prompt;
    x.output += a.acc.output, x.cached += a.acc.cached;
    all.itl_sum += a.itl_sum, all.itl_count += a.itl_count;
    out.stages.push_back(
        summarize(a, static_cast<std::uint32_t>(s), a.acc.last_finish - start, end - start));
  }
  out.summary = summarize(all, 0, out.simulated_s, out.simulated_s);
  out.summary.preemptions = preemptions;
  out.kv_series = sum_kv_series(rs);
  return out;
}

}  // namespace

std::vector<KvSample> sum_kv_series(const std::vector<SimResult>& rs) {
  // Samples at the same times in every replica; a replica that has finished holds no blocks but
  // still owns its pool.
  std::vector<KvSample> out;
  std::size_t len = 0;
  for (const auto& r : rs) len = std::max(len, r.kv_series.size());
  out.resize(len);
  for (const auto& r : rs)
    for (std::size_t i = 0; i < len; ++i) {
      KvSample& o = out[i];
      if (i < r.kv_series.size()) {
        const KvSample& x = r.kv_series[i];
        o.t_s = x.t_s;
        o.blocks_used += x.blocks_used, o.blocks_total += x.blocks_total;
        o.running += x.running, o.waiting += x.waiting, o.preemptions += x.preemptions;
      } else if (!r.kv_series.empty()) {
        o.blocks_total += r.kv_series.back().blocks_total;
        o.preemptions += r.kv_series.back().preemptions;
      }
    }
  return out;
}

std::string render(const ServingReport& r, OutputFormat f) {
  const SimResult& res = r.result;
  const std::vector<std::uint64_t> refused = refused_columns(r);
  if (f == OutputFormat::json) {
    const auto& c = r.config;
    nlohmann::json j = {
        {"model", r.model},
        {"gpu", r.gpu},
        {"engine", r.engine},
        {"workload", r.workload},
        {"seed", r.seed},
        {"replicas", r.replicas},
        {"num_gpu_blocks", res.num_gpu_blocks},
        {"block_size",  // null without a KV cache, as plan's JSON
         res.attention_free ? nlohmann::json(nullptr) : nlohmann::json(res.block_size)},
        {"steps", res.steps},
        {"simulated_s", num(res.simulated_s)},
        {"config",
         {{"tp", c.plan.tp},
          {"pp", c.plan.pp},
          {"attention_dp", c.plan.attention_dp},
          {"moe_ep_size", c.plan.moe_ep},
          {"kv_dtype", to_string(c.plan.format)},
          {"policy", to_string(c.plan.policy)},
          {"block_size", res.block_size},
          {"max_model_len", c.plan.context},
          {"max_num_seqs", res.max_running ? res.max_running : c.max_num_seqs},
          {"max_num_batched_tokens", c.max_num_batched_tokens},
          {"gpu_memory_utilization",
           c.plan.memory_fraction_ppm
               ? nlohmann::json(static_cast<double>(c.plan.memory_fraction_ppm) / 1e6)
               : nlohmann::json(
                     static_cast<double>(engine_rules(c.plan).default_memory_fraction_ppm(c.plan)) /
                     1e6)},
          {"enable_prefix_caching", c.enable_prefix_caching},
          {"async_scheduling", res.async_scheduling},
          {"cpu_offload_bytes", c.cpu_offload_bytes},
          {"cpu_offload_gbps", num(c.cpu_offload_gbps)}}},
        {"slo",
         {{"ttft_p99_ms", limit(r.slo.ttft_p99_ms)},
          {"tpot_p99_ms", limit(r.slo.tpot_p99_ms)},
          {"e2e_p99_ms", limit(r.slo.e2e_p99_ms)}}},
        {"summary", to_json(res.summary, true, refused[0])}};
    if (!r.moe_step.empty()) j["moe_step"] = r.moe_step;
    detail::engine_scheduling(c.plan.engine).settings_json(c, j["config"]);
    nlohmann::json stages = nlohmann::json::array();
    for (std::size_t k = 0; k < res.stages.size(); ++k)
      stages.push_back(to_json(res.stages[k], false, refused[1 + k]));
    j["stages"] = stages;
    if (r.disagg) j["disagg"] = disagg_json(*r.disagg);
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  const Table t = summary_table(res, refused);
  if (f == OutputFormat::csv) return render_csv(t);
  if (f == OutputFormat::md) return render_markdown(t);
  return header_text(r) + render_text(t);
}

std::string render_kv_series(const SimResult& r) {
  Table t{{"t_s", "blocks_used", "blocks_total", "running", "waiting", "preemptions"}, {}};
  for (const auto& s : r.kv_series)
    t.rows.push_back({fixed(s.t_s, 3), std::to_string(s.blocks_used),
                      std::to_string(s.blocks_total), std::to_string(s.running),
                      std::to_string(s.waiting), std::to_string(s.preemptions)});
  return render_csv(t);
}

bool has_tpot(const Workload& w) {
  return std::any_of(w.requests.begin(), w.requests.end(),
                     [](const SimRequest& r) { return r.output_tokens > 1; });
}

std::string no_tpot_reason() {
  return "no request produced more than one token: no TPOT to measure";
}

double parse_offload_gbps(const std::string& text, const std::string& flag) {
  double v = 0;
  const char* end = text.data() + text.size();
  const auto [p, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || p != end || !std::isfinite(v) ||
      !(v >= kMinOffloadGbps && v <= kMaxOffloadGbps))
    throw Error(flag, flag.starts_with("--") ? flag.substr(2) : flag,
                "expected GB/s between 0.001 and 1e6, got '" + text + "'");
  return v;
}

void write_requests_jsonl(const SimResult& r, double frontend_s, std::ostream& os) {
  char buf[512];
  auto time = [](double t, bool known) {
    char b[48];
    if (!known || !std::isfinite(t)) return std::string("null");
    std::snprintf(b, sizeof b, "%.6f", t);
    return std::string(b);
  };
  for (const RequestResult& q : r.requests) {
    const bool f = q.finished;
    std::snprintf(
        buf, sizeof buf,
        "{\"id\":%llu,\"arrival_s\":%s,\"queued_s\":%s,\"scheduled_s\":%s,\"first_token_s\":%s,"
        "\"finish_s\":%s,\"input_tokens\":%llu,\"output_tokens\":%llu,\"cached_tokens\":%llu,"
        "\"preemptions\":%u,\"finished\":%s,\"ttft_ms\":%s,\"e2e_ms\":%s}\n",
        static_cast<unsigned long long>(q.id), time(q.arrival_s, true).c_str(),
        time(q.queued_s, f).c_str(), time(q.scheduled_s, f).c_str(),
        time(q.first_token_s, f).c_str(), time(q.finish_s, f).c_str(),
        static_cast<unsigned long long>(q.prompt_tokens),
        static_cast<unsigned long long>(q.output_tokens),
        static_cast<unsigned long long>(q.cached_tokens), q.preemptions, f ? "true" : "false",
        time((q.first_token_s - q.arrival_s + frontend_s) * 1e3, f).c_str(),
        time((q.finish_s - q.arrival_s + frontend_s) * 1e3, f).c_str());
    os << buf;
  }
}

SloLimits parse_latency_slo(const std::string& spec, const std::string& source) {
  SloLimits s;
  if (spec.empty())
    throw Error(source, "slo", "expected ttft_p99_ms=MS,tpot_p99_ms=MS,e2e_p99_ms=MS, got ''");
  std::size_t pos = 0;
  while (pos <= spec.size()) {
    const auto end = std::min(spec.find(',', pos), spec.size());
    const std::string item = spec.substr(pos, end - pos);
    const auto eq = item.find('=');
    const std::string key = item.substr(0, eq);
    double* slot = key == "ttft_p99_ms"   ? &s.ttft_p99_ms
                   : key == "tpot_p99_ms" ? &s.tpot_p99_ms
                   : key == "e2e_p99_ms"  ? &s.e2e_p99_ms
                                          : nullptr;
    if (!slot)
      throw Error(source, key.empty() ? "slo" : key,
                  "unknown key '" + key + "' (expected ttft_p99_ms, tpot_p99_ms or e2e_p99_ms)");
    if (*slot > 0) throw Error(source, key, "given twice");
    const std::string v = eq == std::string::npos ? "" : item.substr(eq + 1);
    std::size_t used = 0;
    double x = 0;
    try {
      x = std::stod(v, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (v.empty() || used != v.size() || !std::isfinite(x) || !(x > 0) || x > 1e9)
      throw Error(source, key,
                  "expected a positive number of milliseconds (at most 1e9), got '" + v + "'");
    *slot = x;
    pos = end + 1;
  }
  return s;
}

std::string prefix_caching_unmodelled(const ModelSpec& model, const PlanInput& plan) {
  if (!engine_rules(plan).prefix_cache_simulated())
    return engine_rules(plan).label() + "'s KV cache reuse is not modelled";
  // SGLang without its radix cache (--disable-radix-cache, or a decode worker's chunk cache,
  // sglang_radix_cache_off) reuses no prefix.
  if (plan.engine == Engine::sglang && sglang_radix_cache_off(plan.sglang()))
    return "SGLang's radix cache is off (--disable-radix-cache, or a decode worker's chunk cache)";
  const std::string why =
      "prefix caching is not modelled for this deployment (sliding, chunked or recurrent layers, "
      "or an evicting policy)";
  if (!is_full(plan.policy)) return why;
  // vLLM's KVCacheManager turns caching off without a KV cache group (kv_cache_manager.py).
  if (model.attention_free) return "a model without a KV cache has no prefix to cache";
  const KvPool pool = make_kv_pool(model, plan, "arguments");
  // SGLang's pool has no state group: its recurrent state is in a Mamba pool (kv_pool.hpp).
  return pool.full_attention_only() ? "" : why;
}

std::string speculative_decoding_unmodelled(const PlanInput& plan) {
  const VllmOptions& v = plan.vllm();
  if (v.num_speculative_tokens == 0 || !v.spec_acceptance.empty()) return {};
  return "num_speculative_tokens " + std::to_string(v.num_speculative_tokens) +
         " without acceptance rates (--acceptance-rate, or the engine key acceptance_rate): the "
         "drafts are not simulated, one token a step";
}

bool prefix_caching_modelled(const ModelSpec& model, const PlanInput& plan) {
  return prefix_caching_unmodelled(model, plan).empty();
}

std::uint64_t refused_requests(const SimResult& r) {
  return static_cast<std::uint64_t>(std::count_if(
      r.requests.begin(), r.requests.end(), [](const RequestResult& q) { return !q.finished; }));
}

std::vector<std::uint64_t> refused_per_stage(const Workload& w, const SimResult& r) {
  std::vector<std::uint64_t> n(r.stages.size(), 0);
  for (const RequestResult& q : r.requests) {
    if (q.finished || n.empty()) continue;
    if (q.id >= w.requests.size())
      throw Error(ErrorKind::internal, w.source, "requests",
                  "result request " + std::to_string(q.id) + " is not in the workload's " +
                      std::to_string(w.requests.size()));
    ++n[std::min<std::size_t>(w.requests[q.id].stage, n.size() - 1)];
  }
  return n;
}

Workload replica_share(const Workload& w, std::uint32_t replicas, std::uint32_t index) {
  return share_of(w, replicas, index).first;
}

std::uint32_t default_replicas(const PlanInput& in) {
  if (in.attention_dp <= 1) return moe_groups(in);
  const std::uint64_t unit = std::uint64_t{in.tp} * in.pp;
  return static_cast<std::uint32_t>(std::max<std::uint64_t>(gpus_of(in) / unit, 1));
}

std::uint32_t default_replica_gpus(const PlanInput& in) {
  return in.tp * in.pp * default_replicas(in);  // within kMaxGpus: the planner's checked shape
}

SimResult simulate_replicas(const ModelSpec& model, const ServingConfig& cfg, const StepTimer& step,
                            const Workload& workload, std::uint32_t replicas,
                            const SimOptions& opt) {
  // The replica count is the caller's input, not the workload's: named by itself.
  if (replicas == 0) throw Error("replicas", "", "must be at least 1, got 0");
  if (const std::uint32_t groups = moe_groups(cfg.plan); groups > 1 && replicas % groups != 0)
    throw Error("replicas", "",
                std::to_string(replicas) + " replicas are not whole " +
                    (cfg.plan.attention_dp > 1 ? "DP-attention servers" : "data-parallel groups") +
                    " of " + std::to_string(groups) +
                    " groups (each group is a replica; its MoE layers take every group of its "
                    "server as busy)");
  if (replicas == 1) return simulate(model, cfg, step, workload, opt);
  std::vector<SimResult> rs;
  std::vector<std::vector<std::uint64_t>> ids;
  if (cfg.plan.engine == Engine::trtllm && cfg.plan.attention_dp > 1) {
    // TensorRT-LLM's attention-DP groups step together, server by server (simulate_adp_server).
    const std::uint32_t d = cfg.plan.attention_dp;
    for (std::uint32_t s = 0; s < replicas / d; ++s) {
      std::vector<Workload> shares;
      for (std::uint32_t k = 0; k < d; ++k) {
        auto [share, original] = share_of(workload, replicas, s * d + k);
        shares.push_back(std::move(share));
        ids.push_back(std::move(original));
      }
      SimOptions o = opt;
      if (opt.progress)
        o.progress = [&, s](double f) {
          opt.progress((static_cast<double>(s) + f) * d / static_cast<double>(replicas));
        };
      for (SimResult& r : detail::simulate_adp_server(model, cfg, step, shares, o))
        rs.push_back(std::move(r));
      if (opt.progress) opt.progress(static_cast<double>(s + 1) * d / replicas);
    }
    return pool_replicas(workload, rs, ids, opt.slo, step.frontend_s());
  }
  for (std::uint32_t i = 0; i < replicas; ++i) {
    auto [share, original] = share_of(workload, replicas, i);
    SimOptions o = opt;
    if (opt.progress)
      o.progress = [&, i](double f) { opt.progress((static_cast<double>(i) + f) / replicas); };
    rs.push_back(simulate(model, cfg, step, share, o));
    ids.push_back(std::move(original));
  }
  return pool_replicas(workload, rs, ids, opt.slo, step.frontend_s());
}

}  // namespace kvplan::sim
