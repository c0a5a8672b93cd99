// Private to the serving simulator: a run's summaries (serving.hpp StageSummary) from its
// requests. One replica's run (serving.cpp) and a disaggregated run (disagg.cpp) summarize the
// same way: each finished request is tallied in its stage, then every stage and the whole run
// are summarized over their windows.
#pragma once

#include <cstdint>
#include <vector>

#include "kvplan/sim/serving.hpp"
#include "kvplan/sim/workload.hpp"
#include "latency_sketch.hpp"

namespace kvplan::sim::detail {

struct StageAcc {
  LatencySketch ttft, tpot, itl, e2e;  // bounded memory: latency_sketch.hpp
  std::uint64_t finished = 0, good = 0, prompt = 0, output = 0, cached = 0, preemptions = 0;
  double first_arrival = -1, last_finish = 0;
};

// Adds one finished request: TTFT = first token − arrival + the front end's latency, E2E the
// same to its last token, TPOT over its tokens after the first; good when its own TTFT, TPOT and
// E2E meet the SLO's limits. The ITL is tallied as the tokens are emitted, not here.
void tally(StageAcc& a, const RequestResult& r, double frontend_s, const SloLimits& slo);

// One stage's (or the whole run's) summary: throughput over `span` seconds, queue and batch
// averages as busy_running / busy_waiting (∫ dt) over `window` seconds.
StageSummary summary_of(StageAcc& a, double span, double busy_running, double busy_waiting,
                        double window);

// res.stages and res.summary from the tallies (one per stage, acc.size() ≥ 1). busy_running /
// busy_waiting: ∫ running dt and ∫ waiting dt per stage bin, the last entry the whole run's.
// A stage's time runs from its start to its last request's finish, and the whole run's from
// first_arrival to res.simulated_s.
void summarize_stages(SimResult& res, std::vector<StageAcc>& acc, const Workload& w,
                      const std::vector<double>& busy_running,
                      const std::vector<double>& busy_waiting, double first_arrival);

}  // namespace kvplan::sim::detail
