// CUDA kernel throughput against the GPU's own device-to-device copy bandwidth.
//   build/cuda/bench/bench_cuda --benchmark_format=json
// Counters: bytes_per_second (Google Benchmark), frac_of_copy (achieved / measured copy
// bandwidth; targets: >= 0.7 for quantize/dequantize, >= 0.5 of the bytes read for decode
// attention at 32K tokens x batch 16) and us_per_call. Where no CUDA device exists it registers
// nothing, says why on stderr and exits 0.
#include <benchmark/benchmark.h>

#ifndef KVPLAN_HAVE_CUDA
#include <cstdio>
// Built without the CUDA backend (no nvcc, or kvplan_kernels not linked with it): say so.
static const bool kvplan_no_cuda = [] {
  std::fprintf(stderr, "bench_cuda: built without the CUDA backend; nothing to run.\n");
  return true;
}();
#else
#include <cuda_runtime.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "kvplan/kernels/cuda.hpp"

namespace {

using namespace kvplan;
using namespace kvplan::kernels;

double g_copy_bytes_per_s = 0;  // measured by BM_DeviceCopy, which runs first

struct Events {
  cudaEvent_t a{}, b{};
  Events() {
    cudaEventCreate(&a);
    cudaEventCreate(&b);
  }
  ~Events() {
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
  float ms() {
    cudaEventSynchronize(b);
    float t = 0;
    cudaEventElapsedTime(&t, a, b);
    return t;
  }
};

void report(benchmark::State& state, double bytes_per_call, double seconds_total) {
  const double per_s = bytes_per_call * static_cast<double>(state.iterations()) / seconds_total;
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes_per_call * state.iterations()));
  state.counters["frac_of_copy"] = g_copy_bytes_per_s > 0 ? per_s / g_copy_bytes_per_s : 0;
  state.counters["us_per_call"] = seconds_total / static_cast<double>(state.iterations()) * 1e6;
  state.counters["GBps"] = per_s / 1e9;
}

void BM_DeviceCopy(benchmark::State& state) {
  const std::size_t bytes = std::size_t{1} << 30;
  void *a = nullptr, *b = nullptr;
  if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess) {
    state.SkipWithError("cudaMalloc failed");
    return;
  }
  cudaMemset(a, 1, bytes);
  cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);  // warm-up
  Events ev;
  double total = 0;
  for (auto _ : state) {
    cudaEventRecord(ev.a);
    cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(ev.b);
    const double s = ev.ms() / 1e3;
    state.SetIterationTime(s);
    total += s;
  }
  // Bytes read plus bytes written, as for every kernel below.
  g_copy_bytes_per_s = 2.0 * bytes * static_cast<double>(state.iterations()) / total;
  report(state, 2.0 * bytes, total);
  cudaFree(a);
  cudaFree(b);
}

struct QuantBench {
  const char* name;
  const char* format;
  StreamRole role;
};
const QuantBench kQuant[] = {
    {"fp8_e4m3", "fp8", StreamRole::key},
    {"fp8_e5m2", "fp8_e5m2", StreamRole::key},
    {"int8", "int8", StreamRole::key},
    {"kivi4_key", "kivi:bits=4,group=32,residual=128", StreamRole::key},
    {"kivi2_key", "kivi:bits=2,group=32,residual=128", StreamRole::key},
    {"kivi2_value", "kivi:bits=2,group=32,residual=128", StreamRole::value}};

void BM_Quantize(benchmark::State& state, QuantBench qb, bool dequant) {
  const std::uint32_t width = 128, tokens = 1u << 19;  // 64 Mi elements: 256 MiB of floats
  const KvFormat f = parse_kv_format(qb.format);
  const std::uint64_t n = std::uint64_t{tokens} * width,
                      qbytes = quantized_bytes(f, qb.role, width, tokens);
  float* x = nullptr;
  std::uint8_t* codes = nullptr;
  if (cudaMalloc(&x, n * 4) != cudaSuccess || cudaMalloc(&codes, qbytes) != cudaSuccess) {
    state.SkipWithError("cudaMalloc failed");
    return;
  }
  {
    std::vector<float> h(n);
    for (std::uint64_t i = 0; i < n; ++i)
      h[i] = static_cast<float>((i * 2654435761u) % 2001) / 1000.f - 1.f;
    cudaMemcpy(x, h.data(), n * 4, cudaMemcpyHostToDevice);
  }
  QuantizeParams p{.format = f,
                   .role = qb.role,
                   .tokens = tokens,
                   .width = width,
                   .fp8_scale = 0.01f,
                   .in = x,
                   .out = codes,
                   .codes = codes,
                   .dequant = x};
  if (Status s = quantize_cuda(p); !s.ok()) {  // also the warm-up
    state.SkipWithError(s.message.c_str());
    return;
  }
  Events ev;
  double total = 0;
  for (auto _ : state) {
    cudaEventRecord(ev.a);
    const Status s = dequant ? dequantize_cuda(p) : quantize_cuda(p);
    cudaEventRecord(ev.b);
    const double t = ev.ms() / 1e3;
    if (!s.ok()) {
      state.SkipWithError(s.message.c_str());
      break;
    }
    state.SetIterationTime(t);
    total += t;
  }
  if (total > 0) report(state, static_cast<double>(n * 4 + qbytes), total);
  state.SetLabel(qb.format);
  cudaFree(x);
  cudaFree(codes);
}

struct DecodeBench {
  const char* name;
  const char* format;
};
const DecodeBench kDecode[] = {{"fp16", "fp16"},
                               {"fp8", "fp8"},
                               {"int4", "kivi:bits=4,group=32,residual=128"},
                               {"int2", "kivi:bits=2,group=32,residual=128"}};

// Llama-3.1-8B-like layer: 32 query heads, 8 KV heads, head dim 128; 32768 tokens x 16 sequences.
void BM_DecodeAttention(benchmark::State& state, DecodeBench db) {
  const std::uint32_t tokens = 32768, batch = 16, hkv = 8, hq = 32, d = 128;
  DevicePagedKv kv;
  PoolConfig cfg{.format = parse_kv_format(db.format),
                 .num_layers = 1,
                 .num_kv_heads = hkv,
                 .head_dim = d,
                 .block_size = 16,
                 .k_scale = 0.01f,
                 .v_scale = 0.01f};
  if (Status s = kv.init(cfg); !s.ok()) {
    state.SkipWithError(s.message.c_str());
    return;
  }
  const std::uint64_t e = std::uint64_t{tokens} * hkv * d;
  float *k = nullptr, *v = nullptr, *q = nullptr, *out = nullptr;
  cudaMalloc(&k, e * 4);
  cudaMalloc(&v, e * 4);
  cudaMalloc(&q, std::uint64_t{batch} * hq * d * 4);
  cudaMalloc(&out, std::uint64_t{batch} * hq * d * 4);
  {
    std::vector<float> h(e);
    for (std::uint64_t i = 0; i < e; ++i)
      h[i] = static_cast<float>((i * 2654435761u) % 2001) / 1000.f - 1.f;
    cudaMemcpy(k, h.data(), e * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(v, h.data(), e * 4, cudaMemcpyHostToDevice);
    h.resize(std::uint64_t{batch} * hq * d);
    cudaMemcpy(q, h.data(), h.size() * 4, cudaMemcpyHostToDevice);
  }
  std::vector<DecodeAttentionParams> params;
  for (std::uint32_t b = 0; b < batch; ++b) {
    const std::uint32_t seq = kv.add_sequence();
    if (Status s = kv.append_tokens(seq, 0, tokens, k, v); !s.ok()) {
      state.SkipWithError(s.message.c_str());
      return;
    }
  }
  for (std::uint32_t b = 0; b < batch; ++b)
    params.push_back({.kv = kv.view(b, 0),
                      .num_q_heads = hq,
                      .q = q + std::uint64_t{b} * hq * d,
                      .out = out + std::uint64_t{b} * hq * d});
  cudaFree(k);
  cudaFree(v);
  if (Status s = decode_attention_batch_cuda(params.data(), batch); !s.ok()) {  // warm-up
    state.SkipWithError(s.message.c_str());
    return;
  }
  Events ev;
  double total = 0;
  for (auto _ : state) {
    cudaEventRecord(ev.a);
    decode_attention_batch_cuda(params.data(), batch);
    cudaEventRecord(ev.b);
    const double t = ev.ms() / 1e3;
    state.SetIterationTime(t);
    total += t;
  }
  // Bytes read: the whole cache (exactly what the pool holds) plus the queries.
  const double bytes = static_cast<double>(kv.bytes_held()) + 4.0 * batch * hq * d;
  report(state, bytes, total);
  state.counters["cache_bytes"] = static_cast<double>(kv.bytes_held());
  state.SetLabel(db.format);
  cudaFree(q);
  cudaFree(out);
}

const bool registered = [] {
  std::string why;
  if (!cuda_available(&why)) {
    std::fprintf(stderr, "bench_cuda: no CUDA device (%s); nothing to run.\n", why.c_str());
    return false;
  }
  std::fprintf(stderr, "bench_cuda: %s\n", cuda_device_summary().c_str());
  benchmark::RegisterBenchmark("BM_DeviceCopy", BM_DeviceCopy)
      ->UseManualTime()
      ->Iterations(20)
      ->Unit(benchmark::kMicrosecond);
  for (const QuantBench& qb : kQuant) {
    benchmark::RegisterBenchmark((std::string("BM_Quantize/") + qb.name).c_str(), BM_Quantize, qb,
                                 false)
        ->UseManualTime()
        ->Iterations(20)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark((std::string("BM_Dequantize/") + qb.name).c_str(), BM_Quantize, qb,
                                 true)
        ->UseManualTime()
        ->Iterations(20)
        ->Unit(benchmark::kMicrosecond);
  }
  for (const DecodeBench& db : kDecode)
    benchmark::RegisterBenchmark(
        (std::string("BM_DecodeAttention/") + db.name + "/ctx32768/batch16").c_str(),
        BM_DecodeAttention, db)
        ->UseManualTime()
        ->Iterations(20)
        ->Unit(benchmark::kMicrosecond);
  return true;
}();

}  // namespace

#endif  // KVPLAN_HAVE_CUDA
