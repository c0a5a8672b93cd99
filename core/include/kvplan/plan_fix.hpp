// The cheapest change that makes a plan hold its target (in.concurrency requests of in.context
// tokens), as engine flags, with what it costs. `kvplan plan` ends its report with it and the
// GUI can show the same rows.
//
// Candidates: each KV format the engine implements under full attention (the what-if table's
// native rows), on
//   1. the plan's GPUs in the plan's layout (its TP and PP; replicas added when one replica
//      holds some requests): "the same 8 × h100-sxm-80gb (TP 8 × 1 replica)" or "3 × ... as
//      TP 1 × 3 replicas";
//   2. the smallest order of the plan's GPU in another layout (min_gpus: TP inside a node),
//      which may take fewer GPUs than the plan;
//   3. the smallest order of every other GPU of the order table (its row, in the plan's format).
// Ranked as the order table ranks: priced fixes first by cost (gpus · USD per GPU-hour, in
// cents), then fewer GPUs; ties go to the plan's own GPU, its format, its layout, then the order
// table's and the what-if table's order. Unknown prices rank by GPU count and the Fix says so.
// Shown: the cheapest; then, where not yet shown, the cheapest keeping the format, on the plan's
// GPU, on the plan's GPU keeping the format, and keeping the plan's layout (label says which).
//
// Counts add up: on the plan's GPU, gpus == plan_gpus + extra_gpus − fewer_gpus, and plan_gpus
// is the plan's real count (tp · pp · replicas: 8 with --tp 8); another GPU type replaces the
// plan's GPUs (extra and fewer 0, null in JSON).
//
// Worked example (tests/cli/test_plan_fix.cpp, the quick start's scenario): llama-3.1-8b, bf16,
// vLLM, one H100 SXM 80GB, 16 requests of 32,768 tokens. Available KV memory
// floor(85,013,508,915 · 0.9) − 16,060,522,496 weights − reserve terms = 58,740,359,495 B; a
// bf16 page (16 tokens · 8 heads · 256 · 2 B) is 65,536 B, so 28,009 blocks per layer and
// 28,008 // 2,048 = 13 requests. fp8 halves the page: 56,019 blocks, 27 requests on the same
// GPU, so the cheapest fix is fp8 with no more GPUs; keeping bf16 on the plan's H100 takes 2
// (TP 1 × 2 replicas).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kvplan/planner.hpp"

namespace kvplan {

struct PlanFix {
  std::string label;            // "cheapest", "or, keeping bf16", "or, on h100-sxm-80gb", ...
  std::string kv_dtype;         // kvplan's name of the format ("fp8")
  GpuSpec gpu;                  // the GPU type of the fix (the plan's, or another of the order)
  bool own_gpu = true;          // the plan's GPU type: extra_gpus and fewer_gpus apply
  bool keeps_layout = false;    // the plan's TP and PP (replicas added at most)
  PlanInput input;              // the plan with the change applied
  std::uint32_t gpus = 0;       // in all, after the change
  std::uint32_t plan_gpus = 0;  // the plan's GPUs (tp · pp · replicas)
  // own_gpu: gpus == plan_gpus + extra_gpus − fewer_gpus; another GPU type replaces the plan's
  // GPUs (both 0).
  std::uint32_t extra_gpus = 0;  // more than the plan has
  std::uint32_t fewer_gpus = 0;  // fewer (another layout of the plan's GPU holds it on fewer)
  std::uint32_t tp = 1, pp = 1, replicas = 1;
  std::uint32_t nodes = 0;         // nodes_for(gpu, tp, pp · replicas); 0 = unknown
  std::uint64_t max_requests = 0;  // requests of in.context the changed plan holds
  double cost_per_hour = 0;  // gpus · the GPU's price rounded to cents, 0 when the price is unknown
  bool same_format = false;  // the plan's own format: the change is GPUs only
  std::string quality;       // what the format costs in model quality, or "not measured"
  std::optional<std::string> vllm, sglang;  // the flags (vllm_command / sglang_command)
  std::string vllm_why, sglang_why;
};

// Empty when the plan holds its target or nothing the engine implements does. Otherwise the
// cheapest fix first, then (when the cheapest changes the format) the cheapest keeping it.
std::vector<PlanFix> plan_fixes(const PlanReport& r);

}  // namespace kvplan
