// Requests and workloads for the serving simulator's hand-worked timelines (test_serving.cpp,
// test_serving_trtllm.cpp): a request's prompt is one segment of its own content unless
// `content` names a shared one (a prefix-cache hit).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "kvplan/sim/workload.hpp"

namespace kvplan::sim::fixture {

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
