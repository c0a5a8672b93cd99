// Kernel throughput on one core:
//   Quantize / Dequantize: rows of fp32 -> each format and back; counter `vs_memcpy` is
//     memcpy time of the same fp32 bytes divided by the kernel's time (1.0 = as fast as memcpy),
//     both best of 9 runs taken alternately.
//   Decode: one decode-attention step over a paged cache of n tokens (H_kv 2, H_q 8, d 128);
//     `tokens_per_s` = cache tokens attended per second; `vs_fp32_dense` = fp32 dense reference
//     time / this time (> 1: faster than the fp32 reference).
// Run: build-kern/bench/bench_kernels --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "kvplan/kernels/kernels.hpp"

namespace kk = kvplan::kernels;
using kvplan::KvFormat;
using kvplan::StreamRole;

namespace {

constexpr std::uint32_t kWidth = 128, kTokens = 8192;  // 1M floats, 4 MiB per pass

const std::vector<float>& input() {
  static const std::vector<float> x = [] {
    std::vector<float> v(std::uint64_t{kTokens} * kWidth);
    std::mt19937 rng(1);
    std::normal_distribution<float> nd;
    for (float& f : v) f = nd(rng);
    return v;
  }();
  return x;
}

template <class F>
double best_seconds(F&& f, int reps = 15) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

// memcpy of the same fp32 bytes, timed right before each run of the kernel (best of `reps` each),
// so that a busy or throttled moment of the machine shifts both sides of the ratio alike.
template <class F>
double memcpy_over(F&& kernel, int reps = 9) {
  const auto& x = input();
  static std::vector<float> y(x.size());
  double best_copy = 1e30, best_kernel = 1e30;
  for (int r = 0; r < reps; ++r) {
    best_copy = std::min(best_copy, best_seconds(
                                        [&] {
                                          std::memcpy(y.data(), x.data(), x.size() * 4);
                                          benchmark::DoNotOptimize(y.data());
                                          benchmark::ClobberMemory();
                                        },
                                        1));
    best_kernel = std::min(best_kernel, best_seconds(kernel, 1));
  }
  return best_copy / best_kernel;
}

const char* kFormats[] = {"fp16",
                          "bf16",
                          "fp8",
                          "fp8_e5m2",
                          "int8",
                          "kivi:bits=2,group=32,residual=128",
                          "kivi:bits=4,group=32,residual=128",
                          "kivi:bits=8,group=32,residual=128"};

void BM_Quantize(benchmark::State& state, const char* fmt, StreamRole role, bool dequant) {
  const KvFormat f = kvplan::parse_kv_format(fmt);
  const auto& x = input();
  std::vector<std::uint8_t> codes(kk::quantized_bytes(f, role, kWidth, kTokens));
  std::vector<float> back(x.size());
  kk::QuantizeParams p{.format = f,
                       .role = role,
                       .tokens = kTokens,
                       .width = kWidth,
                       .in = x.data(),
                       .out = codes.data(),
                       .codes = codes.data(),
                       .dequant = back.data()};
  if (!kk::quantize(p).ok()) state.SkipWithError("quantize failed");
  for (auto _ : state) {
    const kk::Status s = dequant ? kk::dequantize(p) : kk::quantize(p);
    benchmark::DoNotOptimize(s);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * x.size() * 4);
  state.counters["vs_memcpy"] =
      memcpy_over([&] { benchmark::DoNotOptimize(dequant ? kk::dequantize(p) : kk::quantize(p)); });
}

struct DecodeSetup {
  kk::PagedKvPool pool;
  std::uint32_t seq = 0;
  std::vector<float> q, out;
};

constexpr std::uint32_t kHkv = 2, kHq = 8, kD = 128;

DecodeSetup& setup(const std::string& fmt, std::uint32_t n) {
  static std::map<std::pair<std::string, std::uint32_t>, DecodeSetup> cache;
  auto key = std::make_pair(fmt, n);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  DecodeSetup& s = cache[key];
  (void)s.pool.init({.format = kvplan::parse_kv_format(fmt),
                     .num_layers = 1,
                     .num_kv_heads = kHkv,
                     .head_dim = kD,
                     .block_size = 16});
  s.seq = s.pool.add_sequence();
  std::mt19937 rng(2);
  std::normal_distribution<float> nd;
  std::vector<float> k(std::uint64_t{kHkv} * kD), v(k.size());
  for (std::uint32_t t = 0; t < n; ++t) {
    for (float& x : k) x = nd(rng);
    for (float& x : v) x = nd(rng);
    (void)s.pool.append(s.seq, 0, k.data(), v.data(), static_cast<std::int32_t>(t));
  }
  s.q.resize(std::uint64_t{kHq} * kD);
  for (float& x : s.q) x = nd(rng);
  s.out.resize(s.q.size());
  return s;
}

double dense_fp32_seconds(std::uint32_t n) {
  static std::map<std::uint32_t, double> memo;
  if (memo.count(n)) return memo[n];
  std::mt19937 rng(3);
  std::normal_distribution<float> nd;
  std::vector<float> k(std::uint64_t{n} * kHkv * kD), v(k.size()), q(std::uint64_t{kHq} * kD),
      out(q.size());
  for (float& x : k) x = nd(rng);
  for (float& x : v) x = nd(rng);
  for (float& x : q) x = nd(rng);
  std::vector<std::int32_t> pos(std::uint64_t{kHkv} * n);
  for (std::uint32_t i = 0; i < pos.size(); ++i) pos[i] = static_cast<std::int32_t>(i % n);
  const std::uint32_t table = 0;
  const kk::PagedKvView view = kk::dense_view(k.data(), v.data(), n, kHkv, kD, pos.data(), &table);
  kk::DecodeAttentionParams p{.kv = view, .num_q_heads = kHq, .q = q.data(), .out = out.data()};
  return memo[n] = best_seconds([&] { benchmark::DoNotOptimize(kk::decode_attention(p)); }, 5);
}

void BM_Decode(benchmark::State& state, const char* fmt) {
  const std::uint32_t n = static_cast<std::uint32_t>(state.range(0));
  DecodeSetup& s = setup(fmt, n);
  kk::DecodeAttentionParams p{
      .kv = s.pool.view(s.seq, 0), .num_q_heads = kHq, .q = s.q.data(), .out = s.out.data()};
  for (auto _ : state) {
    benchmark::DoNotOptimize(kk::decode_attention(p));
    benchmark::ClobberMemory();
  }
  state.counters["tokens_per_s"] =
      benchmark::Counter(static_cast<double>(n) * state.iterations(), benchmark::Counter::kIsRate);
  const double per = best_seconds([&] { benchmark::DoNotOptimize(kk::decode_attention(p)); }, 3);
  state.counters["vs_fp32_dense"] = dense_fp32_seconds(n) / per;
  state.counters["cache_MiB"] = static_cast<double>(s.pool.bytes_held(s.seq)) / (1 << 20);
}

const int kRegistered = [] {
  for (const char* f : kFormats) {
    for (StreamRole r : {StreamRole::key, StreamRole::value}) {
      const std::string role = r == StreamRole::key ? "/key" : "/value";
      if (std::string(f).rfind("kivi", 0) != 0 && r == StreamRole::value) continue;
      benchmark::RegisterBenchmark(("Quantize/" + std::string(f) + role).c_str(), BM_Quantize, f, r,
                                   false)
          ->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark(("Dequantize/" + std::string(f) + role).c_str(), BM_Quantize, f,
                                   r, true)
          ->Unit(benchmark::kMillisecond);
    }
  }
  for (const char* f : {"fp32", "fp16", "int8", "kivi:bits=4,group=32,residual=128",
                        "kivi:bits=2,group=32,residual=128"})
    benchmark::RegisterBenchmark(("Decode/" + std::string(f)).c_str(), BM_Decode, f)
        ->Arg(4096)
        ->Arg(32768)
        ->Unit(benchmark::kMillisecond);
  return 0;
}();

}  // namespace
