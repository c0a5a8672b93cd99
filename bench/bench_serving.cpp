// The serving simulator's speed: 12,000 requests (Poisson, 20 req/s for 10 minutes; prompts
// lognormal with mean 547 tokens, sigma 1, clipped to max_model_len − 248; 248 output tokens each)
// on Llama-3.1-8B / H100 SXM (one replica, fp16, max_num_seqs 256, max_num_batched_tokens 8192,
// max_model_len 8192). Target (issue 14, item 7): at most 2 s per run on one core.
//   build/he/bench/bench_serving --benchmark_counters_tabular=true
// BM_ServingFixedStep times each step at 15 ms (the scheduler's own cost); BM_ServingStepModel
// uses the roofline StepModel, so the batch sizes follow the GPU.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "kvplan/gpu.hpp"
#include "kvplan/sim/serving.hpp"
#include "kvplan/sim/step_time.hpp"

namespace {

using namespace kvplan;
using namespace kvplan::sim;

constexpr std::uint64_t kContext = 8192, kOutput = 248;

// splitmix64, so the workload is the same on every machine.
struct Rng {
  std::uint64_t x;
  std::uint64_t next() {
    x += 0x9e3779b97f4a7c15ull;
    std::uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform() { return (static_cast<double>(next() >> 11) + 0.5) / 9007199254740992.0; }
};

Workload chat_workload() {
  Workload w;
  w.source = "bench";
  w.stages = {WorkloadStage{.rate = 20, .duration_s = 600, .start_s = 0}};
  Rng rng{2024};
  // lognormal(mu, 1) has mean exp(mu + 1/2) = 547.
  const double sigma = 1.0, mu = std::log(547.0) - sigma * sigma / 2;
  double t = 0;
  while (w.requests.size() < 12000) {
    t += -std::log(rng.uniform()) / 20.0;
    const double z =
        std::sqrt(-2 * std::log(rng.uniform())) * std::cos(6.283185307179586 * rng.uniform());
    auto p = static_cast<std::uint64_t>(std::llround(std::exp(mu + sigma * z)));
    p = std::clamp<std::uint64_t>(p, 1, kContext - kOutput);
    SimRequest r;
    r.id = w.requests.size();
    r.arrival_s = t;
    r.prompt = {Segment{r.id + 1, p}};
    r.prompt_tokens = p;
    r.output_tokens = kOutput;
    w.requests.push_back(std::move(r));
  }
  return w;
}

struct Setup {
  ModelSpec model = load_model("llama-3.1-8b");
  GpuSpec gpu = load_gpu("h100-sxm-80gb");
  Workload workload = chat_workload();
  ServingConfig cfg;
  Setup() {
    cfg.plan.format = parse_kv_format("fp16");
    cfg.plan.context = kContext;
    cfg.plan.gpu_memory_bytes = gpu.memory_bytes;
    cfg.max_num_seqs = 256;
    cfg.max_num_batched_tokens = 8192;
  }
};

const Setup& setup() {
  static const Setup s;
  return s;
}

class FixedStep final : public StepTimer {
 public:
  double seconds(const StepBatch&) const override { return 0.015; }
};

void report(benchmark::State& state, const SimResult& r) {
  state.counters["requests"] = static_cast<double>(r.summary.requests);
  state.counters["steps"] = static_cast<double>(r.steps);
  state.counters["preemptions"] = static_cast<double>(r.summary.preemptions);
  state.counters["simulated_s"] = r.simulated_s;
  state.counters["mean_running"] = r.summary.mean_running;
  state.counters["ttft_p99_ms"] = r.summary.ttft_ms.p99;
}

void BM_ServingFixedStep(benchmark::State& state) {
  const Setup& s = setup();
  SimResult r;
  for (auto _ : state) {
    r = simulate(s.model, s.cfg, FixedStep{}, s.workload);
    benchmark::DoNotOptimize(r.steps);
  }
  report(state, r);
}
BENCHMARK(BM_ServingFixedStep)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_ServingStepModel(benchmark::State& state) {
  const Setup& s = setup();
  const StepModel step(s.model, s.gpu, {});
  SimResult r;
  for (auto _ : state) {
    r = simulate(s.model, s.cfg, step, s.workload);
    benchmark::DoNotOptimize(r.steps);
  }
  report(state, r);
}
BENCHMARK(BM_ServingStepModel)->Unit(benchmark::kMillisecond)->Iterations(3);

// The same run with prefix caching and every prompt opening with one of 8 system prompts of 256
// tokens (the hash chains, the hash map and the free queue's eviction order at work).
void BM_ServingPrefixCache(benchmark::State& state) {
  const Setup& s = setup();
  Workload w = s.workload;
  for (auto& r : w.requests) {
    if (r.prompt_tokens <= 256) continue;
    r.prompt = {Segment{1'000'000 + r.id % 8, 256}, Segment{r.id + 1, r.prompt_tokens - 256}};
  }
  ServingConfig cfg = s.cfg;
  cfg.enable_prefix_caching = true;
  SimResult r;
  for (auto _ : state) {
    r = simulate(s.model, cfg, FixedStep{}, w);
    benchmark::DoNotOptimize(r.steps);
  }
  report(state, r);
  state.counters["prefix_hit_rate"] = r.summary.prefix_hit_rate;
}
BENCHMARK(BM_ServingPrefixCache)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
