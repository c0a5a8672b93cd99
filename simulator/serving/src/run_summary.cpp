#include "run_summary.hpp"

#include <algorithm>

namespace kvplan::sim::detail {

StageSummary summary_of(StageAcc& a, double span, double busy_running, double busy_waiting,
                        double window) {
  StageSummary s;
  s.requests = a.finished;
  s.ttft_ms = a.ttft.percentiles();
  s.tpot_ms = a.tpot.percentiles();
  s.itl_ms = a.itl.percentiles();
  s.e2e_ms = a.e2e.percentiles();
  if (span > 0) {
    s.throughput.input_tokens_per_s = static_cast<double>(a.prompt) / span;
    s.throughput.output_tokens_per_s = static_cast<double>(a.output) / span;
    s.throughput.requests_per_s = static_cast<double>(a.finished) / span;
    s.goodput_requests_per_s = static_cast<double>(a.good) / span;
  }
  s.preemptions = a.preemptions;
  s.prefix_hit_rate = a.prompt ? static_cast<double>(a.cached) / static_cast<double>(a.prompt) : 0;
  if (window > 0) s.mean_running = busy_running / window, s.mean_queue = busy_waiting / window;
  return s;
}

void tally(StageAcc& a, const RequestResult& r, double frontend_s, const SloLimits& slo) {
  const double ttft = (r.first_token_s - r.arrival_s + frontend_s) * 1e3,
               e2e = (r.finish_s - r.arrival_s + frontend_s) * 1e3;
  a.ttft.add(ttft);
  a.e2e.add(e2e);
  double tpot = 0;
  if (r.output_tokens > 1) {
    tpot = (r.finish_s - r.first_token_s) * 1e3 / static_cast<double>(r.output_tokens - 1);
    a.tpot.add(tpot);
  }
  ++a.finished;
  a.prompt += r.prompt_tokens, a.output += r.output_tokens;
  a.cached += r.cached_tokens, a.preemptions += r.preemptions;
  a.first_arrival = a.first_arrival < 0 ? r.arrival_s : std::min(a.first_arrival, r.arrival_s);
  a.last_finish = std::max(a.last_finish, r.finish_s);
  const bool good = (slo.ttft_p99_ms <= 0 || ttft <= slo.ttft_p99_ms) &&
                    (slo.tpot_p99_ms <= 0 || tpot <= slo.tpot_p99_ms) &&
                    (slo.e2e_p99_ms <= 0 || e2e <= slo.e2e_p99_ms);
  a.good += good;
}

void summarize_stages(SimResult& res, std::vector<StageAcc>& acc, const Workload& w,
                      const std::vector<double>& busy_running,
                      const std::vector<double>& busy_waiting, double first_arrival) {
  StageAcc all;
  for (std::size_t k = 0; k < acc.size(); ++k) {
    StageAcc& a = acc[k];
    // A stage's queue and batch averages are over the steps that begin inside its window.
    const double start = k < w.stages.size() ? w.stages[k].start_s : 0;
    const double window_end = k + 1 < w.stages.size() ? w.stages[k + 1].start_s : res.simulated_s;
    for (auto v : {&StageAcc::ttft, &StageAcc::tpot, &StageAcc::itl, &StageAcc::e2e})
      (all.*v).merge(a.*v);
    all.finished += a.finished, all.good += a.good, all.prompt += a.prompt;
    all.output += a.output, all.cached += a.cached, all.preemptions += a.preemptions;
    StageSummary st =
        summary_of(a, a.last_finish - start, busy_running[k], busy_waiting[k], window_end - start);
    st.stage = static_cast<std::uint32_t>(k);
    res.stages.push_back(std::move(st));
  }
  const double span = res.simulated_s - first_arrival;
  res.summary = summary_of(all, span, busy_running.back(), busy_waiting.back(), span);
}

}  // namespace kvplan::sim::detail
