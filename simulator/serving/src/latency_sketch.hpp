// Private to the serving simulator: percentiles of a latency metric in bounded memory.
//
// The first kExact values are kept as they are, and their percentiles are exact (linear
// interpolation between order statistics, numpy's default). Past that, every value goes into a
// fixed histogram: 128 linear bins per power of two (HdrHistogram's layout) from 2^-20 to 2^41
// (about 1 ns to 70 years in milliseconds), each value counted in its bin by its binary exponent
// and mantissa bits (bit-exact on every machine), and reported as its bin's midpoint clamped to
// the smallest and largest value seen: within 0.4% of the value (a bin's half-width over its
// lower edge is 0.5 / 128). The mean, the count, the minimum and the maximum stay exact. So
// memory is at most kExact doubles plus kBins counters (~94 KiB) per metric, whatever the
// number of tokens or requests.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kvplan/sim/serving.hpp"

namespace kvplan::sim::detail {

class LatencySketch {
 public:
  static constexpr std::size_t kExact = 4096;
  static constexpr int kSub = 128, kMinExp = -19, kMaxExp = 42;  // frexp exponents
  static constexpr std::size_t kBins = static_cast<std::size_t>(kMaxExp - kMinExp) * kSub;

  void add(double x) {
    ++count_;
    sum_ += x;
    min_ = count_ == 1 ? x : std::min(min_, x);
    max_ = count_ == 1 ? x : std::max(max_, x);
    if (bins_.empty() && exact_.size() < kExact) {
      exact_.push_back(x);
      return;
    }
    if (bins_.empty()) spill();
    ++bins_[bin(x)];
  }

  void merge(const LatencySketch& o) {
    if (o.count_ == 0) return;
    min_ = count_ == 0 ? o.min_ : std::min(min_, o.min_);
    max_ = count_ == 0 ? o.max_ : std::max(max_, o.max_);
    count_ += o.count_;
    sum_ += o.sum_;
    if (bins_.empty() && o.bins_.empty() && exact_.size() + o.exact_.size() <= kExact) {
      exact_.insert(exact_.end(), o.exact_.begin(), o.exact_.end());
      return;
    }
    if (bins_.empty()) spill();
    for (double x : o.exact_) ++bins_[bin(x)];
    for (std::size_t k = 0; k < o.bins_.size(); ++k) bins_[k] += o.bins_[k];
  }

  bool exact() const { return bins_.empty(); }
  std::uint64_t count() const { return count_; }

  Percentiles percentiles() {
    Percentiles p;
    p.count = count_;
    if (count_ == 0) return p;
    p.mean = sum_ / static_cast<double>(count_);
    p.p50 = quantile(0.5), p.p90 = quantile(0.9), p.p99 = quantile(0.99);
    return p;
  }

 private:
  static std::size_t bin(double x) {
    if (!(x > 0)) return 0;
    int e = 0;
    const double m = std::frexp(x, &e);  // x = m · 2^e, m in [0.5, 1)
    if (e < kMinExp) return 0;
    if (e >= kMaxExp) return kBins - 1;
    const auto sub = static_cast<std::size_t>((m * 2 - 1) * kSub);  // [0, kSub)
    return static_cast<std::size_t>(e - kMinExp) * kSub + sub;
  }
  double mid(std::size_t k) const {
    const int e = kMinExp + static_cast<int>(k / kSub);
    const double m = 1 + (static_cast<double>(k % kSub) + 0.5) / kSub;  // in [1, 2)
    return std::clamp(std::ldexp(m, e - 1), min_, max_);
  }
  void spill() {
    bins_.assign(kBins, 0);
    for (double x : exact_) ++bins_[bin(x)];
    std::vector<double>().swap(exact_);
  }
  // The value of 0-based rank r in sorted order.
  double at_rank(std::uint64_t r) {
    if (bins_.empty()) {
      const auto it = exact_.begin() + static_cast<std::ptrdiff_t>(r);
      std::nth_element(exact_.begin(), it, exact_.end());
      return *it;
    }
    std::uint64_t seen = 0;
    for (std::size_t k = 0; k < bins_.size(); ++k) {
      seen += bins_[k];
      if (seen > r) return mid(k);
    }
    return max_;
  }
  double quantile(double f) {
    const double pos = f * static_cast<double>(count_ - 1);
    const auto lo = static_cast<std::uint64_t>(pos);
    const double a = at_rank(lo);
    if (lo + 1 >= count_) return a;
    return a + (at_rank(lo + 1) - a) * (pos - static_cast<double>(lo));
  }

  std::vector<double> exact_;
  std::vector<std::uint64_t> bins_;  // empty while exact
  std::uint64_t count_ = 0;
  double sum_ = 0, min_ = 0, max_ = 0;
};

}  // namespace kvplan::sim::detail
