// Retention-policy spec parser (--policy, deploy files): parse, round-trip, and check retained().
#include <cstdint>

#include "fuzz_util.hpp"
#include "kvplan/policy.hpp"

using namespace kvplan;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto spec = fuzz::as_text(data, size);
  fuzz::refuse_cleanly([&] {
    const RetentionPolicy p = parse_policy(spec);
    fuzz::check(parse_policy(to_string(p)) == p, "to_string round trip");
    for (std::uint64_t n : {0ull, 1ull, 7ull, 4096ull, 1ull << 32, ~0ull}) {
      fuzz::check(retained(p, n) <= n, "retained(n) <= n");
      fuzz::check(retained(p, n, n / 2) <= n, "retained(n, prefill) <= n");
      if (n > 0) fuzz::check(retained(p, n) >= 1, "keeps at least the current token");
    }
  });
  return 0;
}
