// Requests and workloads for the serving simulator's hand-worked timelines (test_serving.cpp,
// test_serving_trtllm.cpp): a request's prompt is one segment of its own content unless
// `content` names a shared one (a prefix-cache hit).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kvplan/kv_format.hpp"
#include "kvplan/sim/serving.hpp"
#include "kvplan/sim/workload.hpp"

namespace kvplan::sim::fixture {

inline constexpr std::uint64_t MiB = std::uint64_t{1} << 20;

// A vLLM pool of Llama-3.1-8B blocks (fp16, block 16: one block of all 32 layers is
// 16 · 8 · (128 + 128) · 2 · 32 = 2 MiB): `usable_blocks` + vLLM's null block of measured KV
// memory, max_model_len `context`.
inline ServingConfig llama_config(std::uint64_t usable_blocks, std::uint64_t context,
                                  const std::string& format = "fp16") {
  ServingConfig c;
  c.plan.format = parse_kv_format(format);
  c.plan.context = context;
  c.plan.available_kv_bytes = (usable_blocks + 1) * 2 * MiB;
  return c;
}

inline SimRequest req(std::uint64_t id, double arrival, std::uint64_t prompt, std::uint64_t output,
                      std::uint64_t content = 0) {
  SimRequest r;
  r.id = id;
  r.arrival_s = arrival;
  r.prompt = {Segment{content ? content : 1000 + id, prompt}};
  r.prompt_tokens = prompt;
  r.output_tokens = output;
  return r;
}

inline Workload workload(std::vector<SimRequest> rs) {
  Workload w;
  w.source = "test";
  w.requests = std::move(rs);
  return w;
}

}  // namespace kvplan::sim::fixture
