#include "serving_workload.hpp"

namespace kvplan::gui {

DrawnLengths drawn_lengths(const sim::Workload& w) {
  DrawnLengths d;
  d.prompt_tokens.reserve(w.requests.size());
  d.output_tokens.reserve(w.requests.size());
  for (const auto& r : w.requests) {
    d.prompt_tokens.push_back(r.prompt_tokens);
    d.output_tokens.push_back(r.output_tokens);
  }
  return d;
}

}  // namespace kvplan::gui
