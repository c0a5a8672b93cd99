// The cheapest change that makes a plan hold its target (in.concurrency requests of in.context
// tokens), as engine flags, with what it costs. `kvplan plan` ends its report with it and the
// GUI can show the same rows.
//
// The candidates are the rows the what-if table already computed (PlanReport::what_if): each
// KV format the engine implements under full attention, on the plan's own GPUs when that row
// holds the target, else on the fewest GPUs of the plan's type that do (the row's min_gpus, the
// layout from min_gpus()). Cheapest first: fewest GPUs (so the lowest price at one price per
// GPU-hour), then the plan's own format before any other (no quality cost), then the what-if
// table's order (fp16, fp8, int8, ...).
//
// Worked example (tests/cli/test_plan_fix.cpp, the quick start's scenario): llama-3.1-8b, bf16,
// vLLM, one H100 SXM 80GB, 16 requests of 32,768 tokens. Available KV memory
// floor(85,520,809,984 · 0.9) − 16,060,522,496 weights − 2 GiB reserve = 58,760,722,841 B; a
// bf16 page (16 tokens · 8 heads · 256 · 2 B) is 65,536 B, so 28,019 blocks per layer and
// 28,019 // 2,048 = 13 requests. fp8 halves the page: 56,038 blocks, 27 requests on the same
// GPU, so fix[0] is fp8 with no more GPUs and fix[1] keeps bf16 on 2 GPUs (TP 1 × 2 replicas).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kvplan/planner.hpp"

namespace kvplan {

struct PlanFix {
  std::string kv_dtype;          // kvplan's name of the format ("fp8")
  PlanInput input;               // the plan with the change applied
  std::uint32_t gpus = 0;        // in all, after the change
  std::uint32_t extra_gpus = 0;  // more than the plan has
  std::uint32_t tp = 1, pp = 1, replicas = 1;
  std::uint64_t max_requests = 0;  // requests of in.context the changed plan holds
  double cost_per_hour = 0;        // gpus · the GPU's price, 0 when the price is unknown
  bool same_format = false;        // the plan's own format: the change is GPUs only
  std::string quality;             // what the format costs in model quality, or "not measured"
  std::optional<std::string> vllm, sglang;  // the flags (vllm_command / sglang_command)
  std::string vllm_why, sglang_why;
};

// Empty when the plan holds its target or nothing the engine implements does. Otherwise the
// cheapest fix first, then (when the cheapest changes the format) the cheapest keeping it.
std::vector<PlanFix> plan_fixes(const PlanReport& r);

}  // namespace kvplan
