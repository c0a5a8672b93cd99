// Formula evaluations per second over a sweep of 1e6 configurations (models × formats × policies
// × contexts × block sizes × TP). Target: over 10 million per second on one core.
//   build/default/bench/bench_formula
#include <benchmark/benchmark.h>

#include <vector>

#include "kvplan/formula.hpp"

namespace {

struct Sweep {
  std::vector<kvplan::ModelSpec> models;
  std::vector<kvplan::KvFormat> formats;
  std::vector<kvplan::RetentionPolicy> policies;
};

const Sweep& sweep() {
  static const Sweep s = [] {
    Sweep s;
    for (const char* id : {"llama-3.1-8b", "llama-3.1-70b", "gemma-2-9b", "mistral-7b-v0.1",
                           "qwen2.5-7b", "llama-2-7b"})
      s.models.push_back(kvplan::load_model(id));
    for (const char* f : {"fp16", "fp8", "int8", "kivi:bits=2,group=32,residual=128",
                          "kivi:bits=4,group=32,residual=128"})
      s.formats.push_back(kvplan::parse_kv_format(f));
    for (const char* p :
         {"full", "streaming:sink=4,window=4092", "h2o:heavy=512,recent=512", "snapkv:budget=2048"})
      s.policies.push_back(kvplan::parse_policy(p));
    return s;
  }();
  return s;
}

void BM_FormulaSweep(benchmark::State& state) {
  const auto& s = sweep();
  const std::uint32_t blocks[] = {1, 16, 32};
  // Layouts are computed once per (model, TP), as the planner's solvers do.
  std::vector<kvplan::KvLayout> layouts;
  for (const auto& m : s.models)
    for (std::uint32_t tp : {1u, 2u}) layouts.push_back(kvplan::make_layout(m, tp));
  std::uint64_t evaluations = 0, checksum = 0;
  for (auto _ : state) {
    // 12 (model, TP) layouts × 5 formats × 4 policies × 3 block sizes × 1389 contexts = 1.0e6.
    for (const auto& layout : layouts)
      for (const auto& f : s.formats)
        for (const auto& p : s.policies)
          for (std::uint32_t block : blocks)
            for (std::uint64_t n = 1; n <= 1389 * 97; n += 97) {
              checksum += 8 * kvplan::request_bytes(layout, f, p, n, block);
              ++evaluations;
            }
  }
  benchmark::DoNotOptimize(checksum);
  state.counters["evals_per_s"] =
      benchmark::Counter(static_cast<double>(evaluations), benchmark::Counter::kIsRate);
  state.counters["configs"] = static_cast<double>(evaluations) / state.iterations();
}
BENCHMARK(BM_FormulaSweep)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace
