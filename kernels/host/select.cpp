// Selections decided by positions alone, on the host for every backend: the KeepSet builder and
// StreamingLLM's sink + window (the CUDA launcher stages positions and calls the same code).
#include <cstdint>
#include <vector>

#include "kvplan/kernels/eviction.hpp"

namespace kvplan::kernels {

// Fills keep from per-head ascending slot lists of equal length.
void fill_keep(const std::vector<std::vector<std::int32_t>>& slots, const std::int32_t* positions,
               std::uint32_t stride, KeepSet* keep) {
  keep->num_kv_heads = static_cast<std::uint32_t>(slots.size());
  keep->count = slots.empty() ? 0 : static_cast<std::uint32_t>(slots[0].size());
  keep->slots.clear();
  keep->positions.clear();
  for (std::size_t h = 0; h < slots.size(); ++h)
    for (std::int32_t s : slots[h]) {
      keep->slots.push_back(s);
      keep->positions.push_back(positions[h * stride + static_cast<std::uint32_t>(s)]);
    }
}

Status streaming_select_ref(const StreamingSelectParams& p, KeepSet* keep) {
  if (Status s = validate(p); !s.ok()) return s;
  const std::uint64_t n = p.num_tokens;
  std::vector<std::int32_t> slots;
  for (std::uint64_t t = 0; t < n; ++t)
    if (n <= p.sink + p.window || t < p.sink || t >= n - p.window)
      slots.push_back(static_cast<std::int32_t>(t));
  fill_keep(std::vector<std::vector<std::int32_t>>(p.num_kv_heads, slots), p.positions,
            p.positions_stride, keep);
  return Status::Ok();
}

}  // namespace kvplan::kernels
