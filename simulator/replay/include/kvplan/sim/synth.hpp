// Synthetic attention traces for scale tests: seeded, reproducible, up to 128K tokens, written
// straight to a trace file without holding it in memory.
//
//   SynthOptions o;                 // 2 layers, 8 query / 2 KV heads, d = 64, F16
//   o.tokens = 32768;
//   write_synthetic_trace("synth32k.safetensors", o);
//
// Structure (per layer, per KV head, all before RoPE):
//   - attention sinks: the first `sinks` keys carry sink_strength·sqrt(d) along a direction u_h
//     that every query also leans on (query += u_h), so they draw attention at every step;
//   - heavy hitters: a `heavy_fraction` of positions (chosen by a hash of seed and position) carry
//     heavy_strength·sqrt(d) along w_h, which queries also lean on; H2O should find them;
//   - key outlier channels: `outlier_channels` fixed channels per layer scaled by outlier_scale
//     (the per-channel outliers that motivate KIVI's per-channel key quantization);
//   - everything else is standard normal noise. u_h and w_h live in the lowest-frequency RoPE
//     pairs, so the structure survives rotation at any distance.
// Every element is a pure function of (seed, layer, tensor, token, index): same seed, same file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kvplan/error.hpp"
#include "kvplan/sim/safetensors.hpp"
#include "kvplan/sim/trace.hpp"

namespace kvplan::sim {

struct SynthOptions {
  std::uint64_t tokens = 4096;  // T, at most max_tokens
  std::uint32_t layers = 2;
  std::uint32_t q_heads = 8;
  std::uint32_t kv_heads = 2;
  std::uint32_t head_dim = 64;
  std::uint64_t seed = 1;
  std::uint32_t sinks = 4;
  double sink_strength = 4.0;
  double heavy_fraction = 0.02;
  double heavy_strength = 2.5;
  std::uint32_t outlier_channels = 4;
  double outlier_scale = 8.0;
  DType dtype = DType::f16;
  RopeSpec rope{10000.0, 0, RopeStyle::half};  // dims 0 = head_dim
  static constexpr std::uint64_t max_tokens = 131072;
};

// Every problem with the options, each naming its field (empty when they are fine).
std::vector<Problem> validate(const SynthOptions& options);
// Validates the options (throws Error naming every bad field) and writes the trace.
void write_synthetic_trace(const std::string& path, const SynthOptions& options);

}  // namespace kvplan::sim
