// The Serving view's workload editor as one value type, and its `kvplan_workload` JSON text
// (version 1, docs/simulate.md). The simulator library reads workloads (parse_workload_json) but
// has no writer, so the text is built here with QJson; every document is then checked by the
// library's own parser, which alone decides what a workload means (the requests it draws).
//
//   WorkloadSpec w;                               // Poisson 2 req/s for 60 s, fixed 512 / 128
//   w.prompt.dist = "lognormal";   w.prompt.mean = 547;   w.prompt.std = 200;
//   std::string text = to_workload_json(w);       // {"kvplan_workload": 1, "arrival": ...}
//   sim::Workload drawn = sim::parse_workload_json(text, "editor", /*seed=*/1);
//   WorkloadSpec back = workload_spec_from_json(text, "editor");   // back == w
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kvplan/sim/workload.hpp"

namespace kvplan::gui {

// A length distribution: "fixed", "uniform", "normal", "lognormal", "exponential" or
// "histogram". Only the keys the distribution uses are written (the parser refuses others).
struct LengthDist {
  std::string dist = "fixed";
  double mean = 0, std = 0;                 // tokens
  std::optional<double> min, max;           // tokens, clipping bounds (uniform: required)
  std::vector<std::array<double, 3>> bins;  // histogram: [lo, hi, weight]
  bool operator==(const LengthDist&) const = default;
};

// The distribution whose every draw is `tokens`.
inline LengthDist fixed_tokens(double tokens) {
  LengthDist d;
  d.mean = tokens;
  return d;
}

struct WorkloadStageSpec {
  double rate = 1;        // requests per second
  double duration_s = 1;  // seconds
  bool operator==(const WorkloadStageSpec&) const = default;
};

struct PrefixSpec {
  std::uint64_t groups = 1;         // system prompts
  std::uint64_t shared_tokens = 1;  // tokens of each
  std::uint64_t prompt_pool = 0;    // distinct prompts that recur; 0 = none
  bool operator==(const PrefixSpec&) const = default;
};

struct WorkloadSpec {
  std::string description;
  std::string arrival = "poisson";  // "poisson", "constant" or "gamma"
  double cv = 1;                    // gamma: coefficient of variation of the gaps
  std::vector<WorkloadStageSpec> stages{{2, 60}};
  LengthDist prompt = fixed_tokens(512);
  LengthDist output = fixed_tokens(128);
  std::optional<PrefixSpec> prefix;
  // `sessions`, which the editor does not edit, kept as its JSON text so load -> save keeps it.
  std::string sessions_json;
  bool operator==(const WorkloadSpec&) const = default;
};

// The document for `w` (indented JSON text). Does not validate: parse it to know.
std::string to_workload_json(const WorkloadSpec& w);

// Reads a `kvplan_workload` document into the editor's fields. The library parses it first
// (seed 1), so a malformed document throws its kvplan::Error naming `source` and the field.
WorkloadSpec workload_spec_from_json(const std::string& text, const std::string& source);

// The prompt and output token counts of every request drawn from the document with `seed`, for
// the length histograms (prompt tokens include the shared system prompt).
struct DrawnLengths {
  std::vector<std::uint64_t> prompt_tokens, output_tokens;
};
DrawnLengths drawn_lengths(const sim::Workload& w);

}  // namespace kvplan::gui
