// Private to kvplan_serving: the measured per-operation tables of one MoE layer (models/perf/moe/
// <gpu>.<engine>.txt, written by scripts/perf/moe-tables.sh from aiconfigurator's collected
// per-system data; docs/simulate-step-time.md "Measured MoE layers"), and the lookup the step-time
// model makes in them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kvplan/gpu.hpp"
#include "kvplan/model.hpp"
#include "kvplan/planner.hpp"

namespace kvplan::sim::detail {

// One measured curve: a MoE layer of one shape, dtype and parallel layout, latency by tokens.
struct MoeCurve {
  std::string dtype, kernel;  // the table's names: bfloat16, fp8_block, w4a16_mxfp4, ...
  // tp: the experts' tensor parallelism; ep: expert parallelism (the busiest rank's layer).
  std::uint32_t hidden = 0, inter = 0, topk = 0, experts = 0, tp = 0, ep = 0;
  std::string alpha;                              // the power-law token distribution's alpha
  std::vector<std::pair<double, double>> points;  // (tokens, seconds), tokens ascending
  std::string source;                             // "models/perf/moe/<file>:<line>"

  // Seconds one layer takes over `tokens` tokens: 0 for none; linear between the measured points
  // (the lookup keeps only rows that start at 1 token, so a step never falls below the first);
  // beyond the last point, that point's time per token times `tokens` (compute-bound).
  double seconds(double tokens) const;
};

// Parses a table; throws kvplan::Error naming `source` and the line of a malformed row.
std::vector<MoeCurve> parse_moe_table(std::string_view text, const std::string& source);

// The table dtype a checkpoint's routed experts run in, by WeightSpec::format: unquantized bf16 /
// fp16 → bfloat16; fp8, fp8_block and nvfp4 as they are; mxfp4 → w4a16_mxfp4; int4 (GPTQ, AWQ,
// compressed-tensors "type": "int") → int4_wo. "" when no table dtype fits (bnb4, int2, int8 ...).
std::string moe_table_dtype(const ModelSpec& model);

// What the step-time model costs a model's routed experts with: the measured curve for this GPU,
// engine, shape, dtype and layout (tp ranks, the experts spread whole over ep of them: the row
// of tp / ep and ep), or none, and why, in words a note can carry.
struct MoeLookup {
  std::optional<MoeCurve> curve;
  std::string why;  // with a curve: where it comes from; without: what is missing
};
MoeLookup find_moe_curve(const ModelSpec& model, const GpuSpec& gpu, Engine engine,
                         std::uint32_t tp, std::uint32_t ep = 1);

}  // namespace kvplan::sim::detail
