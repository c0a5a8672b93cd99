// Checked 64-bit unsigned arithmetic for byte counts: an overflow is an Error, never a wrap.
//
//   uint64_t bytes = kvplan::mul(kvplan::mul(tokens, width, "kv bytes"), 2, "kv bytes");
//   // throws Error("kv bytes", ..., "overflows 64-bit byte arithmetic") past 2^64 - 1.
#pragma once

#include <cstdint>
#include <string_view>

namespace kvplan {

[[noreturn]] void throw_overflow(std::string_view what);

inline std::uint64_t mul(std::uint64_t a, std::uint64_t b, std::string_view what = "byte count") {
  std::uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw_overflow(what);
  return r;
}
inline std::uint64_t add(std::uint64_t a, std::uint64_t b, std::string_view what = "byte count") {
  std::uint64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw_overflow(what);
  return r;
}
// ceil(a / b) for b > 0, without the a + b - 1 overflow.
constexpr std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
  return a / b + (a % b != 0 ? 1 : 0);
}
// The least x in [lo, hi] for which holds(x), for a holds that stays true once true as x grows:
// a bisection that asks holds about log2(hi - lo) times; hi when nothing below it holds (whether
// hi itself does is the caller's to know).
template <class Holds>
std::uint64_t least_where(std::uint64_t lo, std::uint64_t hi, Holds&& holds) {
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (holds(mid))
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}
// a rounded up to a multiple of b (b > 0), checked.
inline std::uint64_t round_up(std::uint64_t a, std::uint64_t b,
                              std::string_view what = "byte count") {
  return mul(ceil_div(a, b), b, what);
}

}  // namespace kvplan
