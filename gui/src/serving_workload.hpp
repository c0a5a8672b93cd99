// The Serving view's workload editor edits a sim::WorkloadSpec, the library's own value type of
// a `kvplan_workload` document (docs/simulate.md): the library writes it (sim::to_json) and reads
// it (sim::parse_workload_spec, sim::parse_workload_json), which alone decide what a workload
// means. This file only names those types here and turns drawn requests into histogram input.
//
//   WorkloadSpec w;                               // Poisson 2 req/s for 60 s, fixed 512 / 128
//   w.prompt.dist = "lognormal";   w.prompt.mean = 547;   w.prompt.std = 200;
//   std::string text = sim::to_json(w);           // {"kvplan_workload": 1, "arrival": ...}
//   sim::Workload drawn = sim::parse_workload_json(text, "editor", /*seed=*/1);
//   DrawnLengths d = drawn_lengths(drawn);        // d.prompt_tokens: one count per request
#pragma once

#include <cstdint>
#include <vector>

#include "kvplan/sim/workload.hpp"

namespace kvplan::gui {

using sim::fixed_tokens;
using sim::HistogramBin;
using sim::LengthDist;
using sim::PrefixSpec;
using sim::SessionsSpec;
using sim::WorkloadSpec;
using sim::WorkloadStageSpec;

// The prompt and output token counts of every request drawn from the document with `seed`, for
// the length histograms (prompt tokens include the shared system prompt).
struct DrawnLengths {
  std::vector<std::uint64_t> prompt_tokens, output_tokens;
};
DrawnLengths drawn_lengths(const sim::Workload& w);

}  // namespace kvplan::gui
