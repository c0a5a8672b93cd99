// Workloads of the serving simulator: every input is read as a kvplan_workload JSON file, a JSONL
// trace and a CSV trace, under limits lowered to 20,000 requests and 200,000 prompt segments so
// that each input runs in milliseconds (the default limits are tested in test_workload.cpp).
#include <cstdint>
#include <string>

#include "fuzz_util.hpp"
#include "kvplan/sim/workload.hpp"

using namespace kvplan;

namespace {

// What every accepted workload promises the simulator.
void check_workload(const sim::Workload& w) {
  fuzz::check(!w.stages.empty(), "at least one stage");
  for (std::size_t i = 0; i < w.requests.size(); ++i) {
    const sim::SimRequest& r = w.requests[i];
    fuzz::check(r.id == i, "id is the index");
    fuzz::check(i == 0 || w.requests[i - 1].arrival_s <= r.arrival_s, "sorted by arrival");
    fuzz::check(r.arrival_s >= 0, "arrival >= 0");
    fuzz::check(r.stage < w.stages.size(), "stage in range");
    fuzz::check(r.output_tokens >= 1 && r.output_tokens <= (std::uint64_t{1} << 32),
                "1 <= output <= 2^32");
    std::uint64_t tokens = 0;
    for (const auto& s : r.prompt) tokens += s.tokens;
    fuzz::check(tokens == r.prompt_tokens, "prompt_tokens is the segments' sum");
    fuzz::check(tokens >= 1 && tokens <= (std::uint64_t{1} << 32), "1 <= prompt <= 2^32");
    if (r.after >= 0) {
      fuzz::check(static_cast<std::uint64_t>(r.after) < i, "after < id");
      const sim::SimRequest& p = w.requests[static_cast<std::size_t>(r.after)];
      fuzz::check(r.prompt.size() > p.prompt.size(), "a later turn extends its prompt");
      for (std::size_t k = 0; k < p.prompt.size(); ++k)
        fuzz::check(r.prompt[k] == p.prompt[k], "a later turn begins with the previous prompt");
      fuzz::check(r.prompt[p.prompt.size()].tokens == p.output_tokens, "then the previous output");
      fuzz::check(r.session == p.session && r.session != 0, "one session");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(fuzz::as_text(data, size));
  const sim::WorkloadLimits limits{.max_requests = 20000, .max_segments = 200000};
  fuzz::refuse_cleanly(
      [&] { check_workload(sim::parse_workload_json(text, "w.json", 1, limits)); });
  fuzz::refuse_cleanly(
      [&] { check_workload(sim::parse_workload_trace(text, "t.jsonl", false, limits)); });
  fuzz::refuse_cleanly(
      [&] { check_workload(sim::parse_workload_trace(text, "t.csv", true, limits)); });
  return 0;
}
