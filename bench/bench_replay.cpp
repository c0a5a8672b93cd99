// Replay throughput (tokens/s): the stories260K reference model in the loop with full and
// compressed caches, and a synthetic 32K-token trace through a bounded cache.
//   build/default/bench/bench_replay --benchmark_counters_tabular=true
// The model is found through KVPLAN_TEST_MODEL_DIR (default ../shared/models/stories260K).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>

#include "kvplan/sim/replay.hpp"
#include "kvplan/sim/synth.hpp"

namespace {

using namespace kvplan::sim;

std::string model_dir() {
  if (const char* e = std::getenv("KVPLAN_TEST_MODEL_DIR"); e && *e) return e;
  return "../shared/models/stories260K";
}

// Teacher-forced greedy stream of 256 tokens through one configuration (no fidelity shadow).
void BM_ModelReplay(benchmark::State& state, const char* kv, const char* policy) {
  const std::string ckpt = model_dir() + "/stories260K.bin";
  if (!std::filesystem::exists(ckpt)) {
    state.SkipWithError(("stories260K not found in " + model_dir()).c_str());
    return;
  }
  const auto m = Llama2cModel::load(ckpt);
  const auto& c = m.config();
  const auto cfg = parse_config(kv, policy, 16);
  std::uint64_t tokens = 0;
  for (auto _ : state) {
    KernelAttention cache(cfg, c.n_layers, c.n_heads, c.n_kv_heads, c.head_size(), m.rope(),
                          kvplan::kernels::Backend::cpu, 64);
    Llama2cRunner run(m);
    std::int32_t tok = 1;
    for (std::uint64_t t = 0; t < 256; ++t) {
      const auto logits = run.forward(tok, t, cache);
      std::size_t best = 0;
      for (std::size_t i = 1; i < logits.size(); ++i)
        if (logits[i] > logits[best]) best = i;
      tok = static_cast<std::int32_t>(best);
    }
    tokens += 256;
    benchmark::DoNotOptimize(cache.bytes_held());
  }
  state.counters["tokens/s"] =
      benchmark::Counter(static_cast<double>(tokens), benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(BM_ModelReplay, fp32_full, "fp32", "full")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ModelReplay, fp16_full, "fp16", "full")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ModelReplay, kivi2_full, "kivi:bits=2,group=8,residual=32", "full")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ModelReplay, fp16_streaming, "fp16", "streaming:sink=4,window=28")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ModelReplay, fp16_h2o, "fp16", "h2o:heavy=16,recent=16")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ModelReplay, kivi2_streaming, "kivi:bits=2,group=8,residual=32",
                  "streaming:sink=4,window=28")
    ->Unit(benchmark::kMillisecond);

// A synthetic 32K-token trace (2 layers, 8/2 heads, d 64, F16) through a 1024-token
// sink+window cache; fidelity compared with the full cache on 32 steps only.
void BM_SyntheticTrace32K(benchmark::State& state, const char* kv, const char* policy) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "kvplan_bench_synth32k.safetensors").string();
  SynthOptions o;
  o.tokens = 32768;
  if (!std::filesystem::exists(path)) write_synthetic_trace(path, o);
  const auto trace = TraceFile::open(path);
  ReplayOptions opt;
  opt.fidelity_every = 1024;
  std::uint64_t tokens = 0;
  for (auto _ : state) {
    const auto rep = replay_trace(trace, {parse_config(kv, policy, 16)}, opt);
    tokens += rep.tokens;
    benchmark::DoNotOptimize(rep.configs[0].measured_bytes);
  }
  state.counters["tokens/s"] =
      benchmark::Counter(static_cast<double>(tokens), benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(BM_SyntheticTrace32K, fp16_streaming1024, "fp16", "streaming:sink=4,window=1020")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_SyntheticTrace32K, int8_streaming1024, "int8", "streaming:sink=4,window=1020")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
