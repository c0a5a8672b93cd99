// SLO sizing on tiny synthetic searches whose answers are worked out by hand (in the comment
// above each test), with hand-made step timers: a constant step time per GPU type.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "kvplan/error.hpp"
#include "kvplan/sim/serving_report.hpp"
#include "kvplan/sim/slo_search.hpp"
#include "kvplan/sim/workload.hpp"

namespace kvplan::sim {
namespace {

constexpr std::uint64_t GiB = std::uint64_t{1} << 30;

class ConstantTimer final : public StepTimer {
 public:
  explicit ConstantTimer(double s, double frontend_s = 0) : s_(s), frontend_(frontend_s) {}
  double seconds(const StepBatch&) const override { return s_; }
  double frontend_s() const override { return frontend_; }

 private:
  double s_, frontend_;
};

GpuSpec gpu(const std::string& id, std::uint64_t gib, double price) {
  GpuSpec g;
  g.id = id;
  g.memory_bytes = gib * GiB;
  g.price_per_hour = price;
  return g;
}

// Step seconds by GPU id.
StepTimerFactory timers(std::map<std::string, double> step_s) {
  return [step_s](const ModelSpec&, const GpuSpec& g, std::uint32_t, Engine) {
    return std::make_unique<ConstantTimer>(step_s.at(g.id));
  };
}

ServingConfig base(std::uint64_t max_num_seqs) {
  ServingConfig c;
  c.plan.context = 4096;
  c.max_num_seqs = max_num_seqs;
  return c;
}

Workload trace(const std::string& rows) {
  return parse_workload_trace("arrival_s,prompt_tokens,output_tokens\n" + rows, "t.csv", true);
}

const ModelSpec& llama() {
  static const ModelSpec m = load_model("llama-3.1-8b");
  return m;
}

// 8 requests at t = 0 (10 prompt tokens, 1 output token), max_num_seqs 1, 10 ms a step: a
// replica serves its k-th request (k = 1, 2, ...) in step k, so its TTFT is 10·k ms. Dealt
// round-robin over r replicas (p99 by linear interpolation at position 0.99 · 7 = 6.93 of the 8
// sorted values):
//   r = 1: 10, 20, ..., 80                      p99 = 70 + 0.93 · 10 = 79.3 ms
//   r = 2: 10, 10, 20, 20, 30, 30, 40, 40       p99 = 40 ms
//   r = 4: 10 ×4, 20 ×4                         p99 = 20 ms  ≤ 25: meets
//   r = 3: shares of 3, 3, 2: 10 ×3, 20 ×3, 30 ×2  p99 = 30 ms: fails
// Doubling tries 1, 2, 4; bisection tries 3: 4 replicas after 4 simulations, 4 GPUs at $2 = $8.
TEST(SloSearch, ReplicasByDoublingThenBisection) {
  const Workload w = trace("0,10,1\n0,10,1\n0,10,1\n0,10,1\n0,10,1\n0,10,1\n0,10,1\n0,10,1\n");
  SloSearchInput in;
  in.base = base(1);
  in.slo.ttft_p99_ms = 25;
  in.lines = slo_lines(llama(), {gpu("a", 80, 2)}, {1}, {parse_kv_format("bf16")}, {{}});
  in.timer = timers({{"a", 0.010}});
  const auto rows = slo_search(llama(), w, in);
  ASSERT_EQ(rows.size(), 1u);
  const SloRow& r = rows[0];
  EXPECT_TRUE(r.meets) << r.reason;
  EXPECT_EQ(r.replicas, 4u);
  EXPECT_EQ(r.gpus, 4u);
  EXPECT_EQ(r.simulations, 4u);
  EXPECT_NEAR(r.ttft_p99_ms, 20.0, 1e-9);
  EXPECT_DOUBLE_EQ(r.cost_per_hour, 8.0);
  ASSERT_TRUE(r.vllm_command.has_value());
  EXPECT_NE(r.vllm_command->find("--data-parallel-size 4"), std::string::npos) << *r.vllm_command;
  EXPECT_NE(r.vllm_command->find("--max-num-seqs 1"), std::string::npos) << *r.vllm_command;

  // The pooled p99s the search judged are the ones simulate_replicas reports.
  ServingConfig c = in.base;
  c.plan.gpu_memory_bytes = 80 * GiB;
  const SimResult three = simulate_replicas(llama(), c, ConstantTimer(0.010), w, 3);
  EXPECT_NEAR(three.summary.ttft_ms.p99, 30.0, 1e-9);
  const SimResult one = simulate_replicas(llama(), c, ConstantTimer(0.010), w, 1);
  EXPECT_NEAR(one.summary.ttft_ms.p99, 79.3, 1e-9);
}

// Five requests a second apart (10 prompt tokens, 3 output tokens), so they never overlap: with
// a constant step d, TTFT = d and E2E = 3d on any number of replicas. SLO: E2E p99 ≤ 100 ms.
//   slow  d = 50 ms: E2E 150 ms, fails at 1, 2 and 4 replicas (max_gpus 4): 3 simulations
//   mid   d = 30 ms: E2E  90 ms, meets at 1 replica, $3/h per GPU
//   fast  d = 20 ms: E2E  60 ms, meets at 1 replica, $4/h per GPU
//   tiny  8 GiB: Llama-3.1-8B's 16 GB of weights leave no KV memory: skipped, 0 simulations
// TP 1 and 2 each (a TP 2 line is one replica of 2 GPUs). Ranked by cost: mid TP1 ($3), fast TP1
// ($4), mid TP2 ($6), fast TP2 ($8); then the failing lines in line order. A kivi line cannot
// be simulated (no paged pool) and says why.
TEST(SloSearch, RankedByCostFailuresLast) {
  const Workload w = trace("0,10,3\n1,10,3\n2,10,3\n3,10,3\n4,10,3\n");
  SloSearchInput in;
  in.base = base(4);
  in.slo.e2e_p99_ms = 100;
  in.max_gpus = 4;
  in.lines = slo_lines(
      llama(), {gpu("slow", 80, 1), gpu("mid", 80, 3), gpu("fast", 80, 4), gpu("tiny", 8, 0.5)},
      {1, 2}, {parse_kv_format("bf16")}, {{}});
  in.lines.push_back(
      {gpu("fast", 80, 4), 1, parse_kv_format("kivi:bits=2,group=32,residual=128"), {}});
  in.timer = timers({{"slow", 0.05}, {"mid", 0.03}, {"fast", 0.02}, {"tiny", 0.01}});
  for (unsigned threads : {1u, 3u}) {
    in.threads = threads;
    const auto rows = slo_search(llama(), w, in);
    ASSERT_EQ(rows.size(), 9u);
    const std::vector<std::pair<std::string, std::uint32_t>> want = {
        {"mid", 1}, {"fast", 1}, {"mid", 2}, {"fast", 2}};
    for (std::size_t i = 0; i < want.size(); ++i) {
      EXPECT_TRUE(rows[i].meets) << i;
      EXPECT_EQ(rows[i].gpu, want[i].first) << i;
      EXPECT_EQ(rows[i].tp, want[i].second) << i;
      EXPECT_EQ(rows[i].replicas, 1u) << i;
      EXPECT_EQ(rows[i].simulations, 1u) << i;
    }
    EXPECT_DOUBLE_EQ(rows[0].cost_per_hour, 3.0);
    EXPECT_NEAR(rows[0].e2e_p99_ms, 90.0, 1e-9);
    EXPECT_NEAR(rows[1].e2e_p99_ms, 60.0, 1e-9);
    EXPECT_DOUBLE_EQ(rows[2].cost_per_hour, 6.0);
    // Failing lines, in line order: slow TP1, slow TP2, tiny TP1, tiny TP2, the kivi line.
    EXPECT_EQ(rows[4].gpu, "slow");
    EXPECT_FALSE(rows[4].meets);
    EXPECT_EQ(rows[4].simulations, 3u);
    EXPECT_EQ(rows[4].replicas, 4u);  // the last tried
    EXPECT_NEAR(rows[4].e2e_p99_ms, 150.0, 1e-9);
    EXPECT_NE(rows[4].reason.find("the most allowed"), std::string::npos) << rows[4].reason;
    EXPECT_EQ(rows[5].gpu, "slow");
    EXPECT_EQ(rows[5].tp, 2u);
    EXPECT_EQ(rows[5].simulations, 2u);  // 1 then 2 replicas = 4 GPUs
    EXPECT_EQ(rows[6].gpu, "tiny");
    EXPECT_EQ(rows[6].simulations, 0u);
    EXPECT_NE(rows[6].reason.find("weights"), std::string::npos) << rows[6].reason;
    EXPECT_EQ(rows[8].kv_dtype.substr(0, 4), "kivi");
    EXPECT_FALSE(rows[8].engine_native);
    EXPECT_FALSE(rows[8].meets);
    EXPECT_NE(rows[8].reason.find("kivi"), std::string::npos) << rows[8].reason;
  }
}

// Costs are in cents, as the order table's: a price of 0.1 + 0.2 USD per GPU-hour is
// 0.30000000000000004 in binary floating point, and $0.30 in the row.
TEST(SloSearch, CostsAreRoundedToCents) {
  const Workload w = trace("0,10,3\n1,10,3\n");
  SloSearchInput in;
  in.base = base(4);
  in.slo.e2e_p99_ms = 100;
  in.max_gpus = 1;
  const double price = 0.1 + 0.2;
  ASSERT_NE(price, 0.3);  // the binary sum the row must not carry
  in.lines = slo_lines(llama(), {gpu("dime", 80, price)}, {1}, {parse_kv_format("bf16")}, {{}});
  in.timer = timers({{"dime", 0.01}});
  const auto rows = slo_search(llama(), w, in);
  ASSERT_EQ(rows.size(), 1u);
  ASSERT_TRUE(rows[0].meets) << rows[0].reason;
  EXPECT_EQ(rows[0].cost_per_hour, 0.3);
}

// Lines fast TP2, fast TP1, mid TP2, mid TP1; all meet the SLO at 1 replica. mid has no price,
// so the ranking is by GPU count (by cost mid's $0 would come first): the two 1-GPU lines, fast
// TP1 before mid TP1 (line order among equals), then the 2-GPU lines.
TEST(SloSearch, WithoutPricesByGpuCount) {
  const Workload w = trace("0,10,3\n1,10,3\n");
  SloSearchInput in;
  in.base = base(4);
  in.slo.e2e_p99_ms = 100;
  in.lines = slo_lines(llama(), {gpu("fast", 80, 4), gpu("mid", 80, 0)}, {2, 1},
                       {parse_kv_format("bf16")}, {{}});
  in.timer = timers({{"mid", 0.03}, {"fast", 0.02}});
  const auto rows = slo_search(llama(), w, in);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].gpus, 1u);
  EXPECT_EQ(rows[1].gpus, 1u);
  EXPECT_EQ(rows[2].gpus, 2u);
  EXPECT_EQ(rows[3].gpus, 2u);
  EXPECT_EQ(rows[0].gpu, "fast");
  EXPECT_EQ(rows[1].gpu, "mid");
  EXPECT_EQ(rows[2].gpu, "fast");
}

// A workload the deployment does not serve whole does not meet the SLO. Two requests at t = 0,
// max_model_len 4096: one of 10 + 1 tokens (TTFT one 10 ms step, far inside the 1 s limit) and
// one of 5000 + 1 tokens, refused on arrival. Every replica has the same max_model_len, so the
// line stops after its first simulation instead of doubling to max_gpus.
TEST(SloSearch, RefusedRequestsFailTheLine) {
  const Workload w = trace("0,10,1\n0,5000,1\n");
  SloSearchInput in;
  in.base = base(4);
  in.slo.ttft_p99_ms = 1000;
  in.max_gpus = 8;
  in.lines = slo_lines(llama(), {gpu("a", 80, 2)}, {1}, {parse_kv_format("bf16")}, {{}});
  in.timer = timers({{"a", 0.010}});
  const auto rows = slo_search(llama(), w, in);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_FALSE(rows[0].meets);
  EXPECT_EQ(rows[0].simulations, 1u);
  EXPECT_EQ(rows[0].replicas, 1u);  // the one tried
  EXPECT_NE(rows[0].reason.find("1 of 2 requests refused"), std::string::npos) << rows[0].reason;
  EXPECT_NE(rows[0].reason.find("4096"), std::string::npos) << rows[0].reason;
  EXPECT_FALSE(rows[0].vllm_command.has_value());
  // Without the long request the same line meets at one replica.
  const auto ok = slo_search(llama(), trace("0,10,1\n"), in);
  EXPECT_TRUE(ok[0].meets) << ok[0].reason;
}

TEST(SloSearch, Refusals) {
  const Workload w = trace("0,10,3\n");
  SloSearchInput in;
  in.base = base(4);
  in.lines = slo_lines(llama(), {gpu("a", 80, 1)}, {1}, {parse_kv_format("bf16")}, {{}});
  in.timer = timers({{"a", 0.01}});
  EXPECT_THROW(slo_search(llama(), w, in), Error);  // no limit
  in.slo.ttft_p99_ms = 10;
  in.lines.clear();
  EXPECT_THROW(slo_search(llama(), w, in), Error);  // nothing to search
  // TP 3 is not valid for Llama-3.1-8B (32 heads, 8 KV heads): no line.
  EXPECT_TRUE(slo_lines(llama(), {gpu("a", 80, 1)}, {3}, {parse_kv_format("bf16")}, {{}}).empty());
}

TEST(SloSpec, ParsesAndRefuses) {
  const SloLimits s = parse_latency_slo("ttft_p99_ms=2000,tpot_p99_ms=50", "--slo");
  EXPECT_EQ(s.ttft_p99_ms, 2000);
  EXPECT_EQ(s.tpot_p99_ms, 50);
  EXPECT_EQ(s.e2e_p99_ms, 0);
  EXPECT_EQ(parse_latency_slo("e2e_p99_ms=1.5e4", "--slo").e2e_p99_ms, 15000);
  for (const char* bad : {"", "ttft_p99_ms", "ttft_p99_ms=", "ttft_p99_ms=0", "ttft_p99_ms=-5",
                          "ttft_p99_ms=nan", "ttft_p99_ms=inf", "ttft_p99_ms=5ms",
                          "ttft_p99_ms=1,ttft_p99_ms=2", "p99=3", "ttft_p99_ms=1,"}) {
    try {
      parse_latency_slo(bad, "--slo");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.source(), "--slo") << bad;
    }
  }
}

// The front end's latency (StepTimer::frontend_s) is in TTFT and E2E however many replicas
// share the load. Two requests a second apart (10 prompt tokens, 3 output tokens), 10 ms steps,
// 0.5 s front end: each is alone on its replica, its first token at the end of its first step
// and its last after three, so TTFT = 10 + 500 = 510 ms and E2E = 30 + 500 = 530 ms; TPOT
// (20 ms / 2 = 10 ms) has no front end in it.
TEST(ReplicaShare, ReplicasKeepTheFrontEnd) {
  const Workload w = trace("0,10,3\n1,10,3\n");
  ServingConfig c = base(4);
  c.plan.gpu_memory_bytes = 80 * GiB;
  for (std::uint32_t replicas : {1u, 2u}) {
    const SimResult r = simulate_replicas(llama(), c, ConstantTimer(0.010, 0.5), w, replicas);
    ASSERT_EQ(r.summary.ttft_ms.count, 2u) << replicas;
    EXPECT_NEAR(r.summary.ttft_ms.p50, 510.0, 1e-6) << replicas;
    EXPECT_NEAR(r.summary.ttft_ms.p99, 510.0, 1e-6) << replicas;
    EXPECT_NEAR(r.summary.e2e_ms.mean, 530.0, 1e-6) << replicas;
    EXPECT_NEAR(r.summary.tpot_ms.mean, 10.0, 1e-6) << replicas;
    EXPECT_NEAR(r.stages[0].ttft_ms.mean, 510.0, 1e-6) << replicas;
  }
  // Goodput judges the same times: a 505 ms TTFT limit is missed by both requests.
  SimOptions opt;
  opt.slo.ttft_p99_ms = 505;
  const SimResult two = simulate_replicas(llama(), c, ConstantTimer(0.010, 0.5), w, 2, opt);
  EXPECT_EQ(two.summary.goodput_requests_per_s, 0.0);
}

// Refused requests are counted per stage and in all, and a stage with nothing finished shows no
// latency (JSON null, table "-"), not 0. Stage 0 (t in [0, 1)): a request of 10 + 2 tokens;
// stage 1 (t in [1, 2)): one of 5000 + 2 tokens, over max_model_len 4096, refused.
TEST(ServingReportRefusals, CountedPerStage) {
  Workload w;
  w.source = "w.json";
  w.stages = {{.rate = 1, .duration_s = 1, .start_s = 0},
              {.rate = 1, .duration_s = 1, .start_s = 1}};
  for (std::uint64_t i = 0; i < 2; ++i) {
    SimRequest r;
    r.id = i;
    r.arrival_s = static_cast<double>(i);
    r.stage = static_cast<std::uint32_t>(i);
    r.prompt_tokens = i == 0 ? 10 : 5000;
    r.prompt = {{i + 1, r.prompt_tokens}};
    r.output_tokens = 2;
    w.requests.push_back(r);
  }
  ServingConfig c = base(4);
  c.plan.gpu_memory_bytes = 80 * GiB;
  for (std::uint32_t replicas : {1u, 2u}) {
    ServingReport rep;
    rep.replicas = replicas;
    rep.config = c;
    rep.result = simulate_replicas(llama(), c, ConstantTimer(0.010), w, replicas);
    EXPECT_EQ(refused_requests(rep.result), 1u);
    rep.refused = refused_per_stage(w, rep.result);
    ASSERT_EQ(rep.refused, (std::vector<std::uint64_t>{0, 1})) << replicas;
    const auto j = nlohmann::json::parse(render(rep, OutputFormat::json));
    EXPECT_EQ(j["summary"]["refused"], 1) << replicas;
    EXPECT_EQ(j["summary"]["requests"], 1) << replicas;
    EXPECT_EQ(j["stages"][0]["refused"], 0);
    EXPECT_EQ(j["stages"][1]["refused"], 1);
    EXPECT_EQ(j["stages"][1]["requests"], 0);
    for (const char* m : {"ttft_ms", "tpot_ms", "itl_ms", "e2e_ms"}) {
      EXPECT_EQ(j["stages"][1][m]["count"], 0) << m;
      for (const char* q : {"mean", "p50", "p90", "p99"})
        EXPECT_TRUE(j["stages"][1][m][q].is_null()) << m << " " << q;
    }
    // Stage 0's request: first token after one 10 ms step.
    EXPECT_NEAR(j["stages"][0]["ttft_ms"]["p99"].get<double>(), 10.0, 1e-6);
    const std::string table = render(rep, OutputFormat::csv);
    EXPECT_NE(table.find("refused,1,0,1\n"), std::string::npos) << table;
    EXPECT_NE(table.find("TTFT p99 ms,10.00,10.00,-\n"), std::string::npos) << table;
    EXPECT_NE(render(rep, OutputFormat::table).find("refused 1 of 2 requests"), std::string::npos);
    // Per-stage counts that do not add up to the unfinished requests are a bug, not a 0.
    rep.refused.clear();
    try {
      render(rep, OutputFormat::json);
      ADD_FAILURE() << "rendered without the per-stage refusals";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::internal);
    }
  }
}

// Replica shares: round-robin over first turns, a session's later turn on its first turn's
// replica, ids renumbered and `after` remapped.
TEST(ReplicaShare, SessionsStayTogether) {
  Workload w;
  w.stages = {{.rate = 1, .duration_s = 10, .start_s = 0}};
  for (std::uint64_t i = 0; i < 5; ++i) {
    SimRequest r;
    r.id = i;
    r.arrival_s = static_cast<double>(i);
    r.prompt = {{i + 1, 10}};
    r.prompt_tokens = 10;
    r.output_tokens = 2;
    w.requests.push_back(r);
  }
  w.requests[3].after = 1;  // a later turn of request 1's session
  // First turns 0, 1, 2, 4 go to replicas 0, 1, 0, 1; request 3 follows request 1 (replica 1).
  const Workload a = replica_share(w, 2, 0), b = replica_share(w, 2, 1);
  ASSERT_EQ(a.requests.size(), 2u);
  ASSERT_EQ(b.requests.size(), 3u);
  EXPECT_EQ(a.requests[1].arrival_s, 2.0);
  EXPECT_EQ(b.requests[0].arrival_s, 1.0);
  EXPECT_EQ(b.requests[1].arrival_s, 3.0);
  EXPECT_EQ(b.requests[1].after, 0);  // request 1 is b's request 0
  EXPECT_EQ(b.requests[2].id, 2u);
  EXPECT_THROW(replica_share(w, 0, 0), Error);
}

// slo_search runs TensorRT-LLM's scheduler like the others (check_simulated_engine passes), with
// step timers built for trtllm and prefix caching off (its KV cache reuse is not modelled).
TEST(SloSearch, TrtllmIsSearchedWithItsScheduler) {
  SloSearchInput in;
  in.base = base(4);
  in.base.plan.engine = Engine::trtllm;
  in.base.enable_prefix_caching = true;
  in.slo.ttft_p99_ms = 1000;
  in.lines = slo_lines(llama(), {gpu("a", 80, 1)}, {1}, {parse_kv_format("bf16")}, {{}});
  int timers_built = 0;
  in.timer = [&](const ModelSpec&, const GpuSpec&, std::uint32_t, Engine e) {
    EXPECT_EQ(e, Engine::trtllm);
    ++timers_built;
    return std::make_unique<ConstantTimer>(0.01);
  };
  const auto rows = slo_search(llama(), trace("0,10,3\n"), in);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(rows[0].meets) << rows[0].reason;
  EXPECT_EQ(rows[0].replicas, 1u);
  EXPECT_FALSE(rows[0].vllm_command || rows[0].sglang_command);  // not what was simulated
  EXPECT_GT(timers_built, 0);
}

// A step timer that counts the steps it is asked for and sets the search's cancel flag at step
// `at`: the simulation checks the flag every 1024 steps (serving.cpp), so it stops within 1024.
class CancellingTimer final : public StepTimer {
 public:
  CancellingTimer(std::atomic<bool>* flag, std::atomic<int>* steps, int at)
      : flag_(flag), steps_(steps), at_(at) {}
  double seconds(const StepBatch&) const override {
    if (++*steps_ == at_) flag_->store(true);
    return 0.01;
  }

 private:
  std::atomic<bool>* flag_;
  std::atomic<int>* steps_;
  int at_;
};

// The cancel flag stops the whole search with Error "cancelled" (not one line's reason): set at
// step 100 of the first line of 6, no further line starts and the running simulation stops
// within the 1024 steps between its checks (the whole search takes about 210,000 steps: per
// GPU, TP 1 tries 1, 2, 4, 8 replicas and TP 2 1, 2, 4, 10,000 steps each); set before the
// search, nothing is simulated.
TEST(SloSearch, CancelStopsTheSearch) {
  // 200 requests a second apart, 50 output tokens each: 50 steps a request, 10,000 steps a run.
  std::string rows;
  for (int i = 0; i < 200; ++i) rows += std::to_string(i) + ",10,50\n";
  const Workload w = trace(rows);
  std::atomic<bool> flag{false};
  std::atomic<int> steps{0};
  SloSearchInput in;
  in.base = base(4);
  in.slo.ttft_p99_ms = 1;  // never met: without the cancel every line runs to max_gpus
  in.max_gpus = 8;
  in.threads = 1;
  in.cancel = &flag;
  in.lines = slo_lines(llama(), {gpu("a", 80, 1), gpu("b", 80, 1), gpu("c", 80, 1)}, {1, 2},
                       {parse_kv_format("bf16")}, {{}});
  ASSERT_EQ(in.lines.size(), 6u);
  in.timer = [&](const ModelSpec&, const GpuSpec&, std::uint32_t, Engine) {
    return std::make_unique<CancellingTimer>(&flag, &steps, 100);
  };
  std::uint64_t lines_done = 0;
  in.progress = [&](std::uint64_t d, std::uint64_t) { lines_done = d; };
  try {
    slo_search(llama(), w, in);
    ADD_FAILURE() << "the search ran to the end";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "search") << e.what();
    EXPECT_NE(std::string(e.what()).find("cancelled"), std::string::npos) << e.what();
  }
  EXPECT_GE(steps.load(), 100);
  EXPECT_LE(steps.load(), 100 + 1024);
  EXPECT_EQ(lines_done, 0u);

  steps = 0;  // already set: no simulation starts
  EXPECT_THROW(slo_search(llama(), w, in), Error);
  EXPECT_EQ(steps.load(), 0);

  // Without the flag the same search runs every line to the end (the cancel above is what
  // stopped it): 6 rows, none meeting a 1 ms TTFT.
  flag = false;
  in.cancel = nullptr;
  steps = 0;
  in.timer = [&](const ModelSpec&, const GpuSpec&, std::uint32_t, Engine) {
    return std::make_unique<CancellingTimer>(&flag, &steps, -1);  // counts, never sets
  };
  const auto all = slo_search(llama(), w, in);
  EXPECT_EQ(steps.load(), 3 * (4 + 3) * 10'000);
  EXPECT_EQ(all.size(), 6u);
  EXPECT_EQ(lines_done, 6u);
  for (const auto& r : all) EXPECT_FALSE(r.meets);
}

// ---- Issue 30, classes 5 and 7.

// A TPOT limit over a workload whose every request produces one token has nothing to judge: the
// search refuses it (exit 2, naming --slo tpot_p99_ms and the workload) instead of letting a
// TPOT of 0 meet it; a TTFT limit on the same workload is searched.
TEST(SloSearchSemantics, ATpotLimitWithOneTokenOutputsIsRefused) {
  const Workload w = trace("0,100,1\n0.5,100,1\n");
  EXPECT_FALSE(has_tpot(w));
  EXPECT_TRUE(has_tpot(trace("0,100,1\n0.5,100,2\n")));
  SloSearchInput in;
  in.base = base(8);
  in.slo = {.tpot_p99_ms = 50};
  in.timer = timers({{"a", 0.01}});
  in.lines = slo_lines(llama(), {gpu("a", 80, 1)}, {1}, {parse_kv_format("bf16")}, {{}});
  try {
    slo_search(llama(), w, in);
    ADD_FAILURE() << "a TPOT limit on one-token outputs was searched";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2);
    EXPECT_EQ(e.source(), "--slo");
    EXPECT_EQ(e.field(), "tpot_p99_ms");
    EXPECT_NE(std::string(e.what()).find("t.csv: " + no_tpot_reason()), std::string::npos)
        << e.what();
  }
  in.slo = {.ttft_p99_ms = 1000};
  const auto rows = slo_search(llama(), w, in);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(rows[0].meets);
}

// --gpu a,a searches "a" once: one line per GPU id, the first spelling kept.
TEST(SloSearchSemantics, ARepeatedGpuIsSearchedOnce) {
  const auto lines = slo_lines(llama(), {gpu("a", 80, 1), gpu("b", 80, 2), gpu("a", 40, 3)}, {1, 2},
                               {parse_kv_format("bf16")}, {{}});
  ASSERT_EQ(lines.size(), 4u);  // a × TP 1, 2; b × TP 1, 2
  EXPECT_EQ(lines[0].gpu.id, "a");
  EXPECT_EQ(lines[0].gpu.memory_bytes, 80 * GiB);
  EXPECT_EQ(lines[2].gpu.id, "b");
}

TEST(SloSearchSemantics, AbsurdOffloadBandwidthIsRefusedNamingTheFlag) {
  EXPECT_EQ(parse_offload_gbps("25", "--cpu-offload-gbps"), 25.0);
  EXPECT_EQ(parse_offload_gbps("0.001", "--cpu-offload-gbps"), 0.001);
  EXPECT_EQ(parse_offload_gbps("1e6", "--cpu-offload-gbps"), 1e6);
  for (const char* bad : {"1e-305", "0.0009", "0", "-5", "nan", "inf", "1e7", "", "25GB", " 25"}) {
    try {
      parse_offload_gbps(bad, "--cpu-offload-gbps");
      ADD_FAILURE() << bad << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), 2);
      EXPECT_EQ(e.source(), "--cpu-offload-gbps");
      EXPECT_EQ(e.field(), "cpu-offload-gbps");
    }
  }
  // The library refuses it too (a front end that builds a ServingConfig itself).
  ServingConfig cfg = base(8);
  cfg.plan.available_kv_bytes = 8 * GiB;
  cfg.enable_prefix_caching = true;
  cfg.cpu_offload_bytes = GiB;
  cfg.cpu_offload_gbps = 1e-305;
  try {
    simulate(llama(), cfg, ConstantTimer(0.01), trace("0,100,2\n"));
    ADD_FAILURE() << "1e-305 GB/s accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "cpu_offload_gbps") << e.what();
  }
}

}  // namespace
}  // namespace kvplan::sim
