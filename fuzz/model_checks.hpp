// What every accepted ModelSpec must survive: validate() finds nothing, and the formula either
// computes or refuses with kvplan::Error (TP that does not fit, kivi groups, overflow).
#pragma once

#include <cstdint>

#include "fuzz_util.hpp"
#include "kvplan/formula.hpp"
#include "kvplan/model.hpp"

namespace kvplan::fuzz {

inline void exercise_model(const ModelSpec& m) {
  check(validate(m).empty(), "an accepted model passes validate()");
  check(!m.layers.empty(), "at least one layer");
  const KvFormat formats[] = {KvFormat{}, KvFormat{.dtype = KvDtype::int8},
                              KvFormat{.dtype = KvDtype::kivi}};
  const std::uint64_t contexts[] = {1, 4096, m.max_context ? m.max_context : 8192, 1ull << 40};
  for (std::uint32_t tp : {1u, 2u, 8u}) {
    for (const auto& f : formats) {
      for (std::uint64_t n : contexts) {
        try {
          const auto c = kv_cost(m, KvCostInput{.context = n, .batch = 3, .format = f, .tp = tp});
          check(c.total_bytes >= c.bytes_per_request, "total >= one request");
        } catch (const Error&) {
        }
      }
    }
  }
}

}  // namespace kvplan::fuzz
