#include "kvplan/sim/workload.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <sstream>
#include <string_view>
#include <tuple>

#include "json_read.hpp"
#include "kvplan/checked.hpp"
#include "kvplan/error.hpp"

namespace kvplan::sim {

namespace {

using detail::JsonObject;
using nlohmann::json;

constexpr std::uint64_t kMaxTokens = std::uint64_t{1} << 32;  // per prompt, per output
constexpr std::uint64_t kMaxTurns = 1000;
constexpr std::uint64_t kMaxGroups = 1'000'000;
constexpr std::uint64_t kMaxPool = 1'000'000;
constexpr std::size_t kMaxStages = 1000;
constexpr std::size_t kMaxBins = 4096;
constexpr double kMinRate = 1e-6, kMaxRate = 1e6;          // requests per second
constexpr double kMinDuration = 1e-6, kMaxDuration = 1e8;  // seconds (3 years)
constexpr double kMaxThinkSeconds = 1e6;                   // per turn
constexpr double kMaxArrivalSeconds = 1e9;
constexpr std::uint64_t kMaxConcurrency = 10'000'000;  // closed-loop clients

// ---- Random numbers: xoshiro256** seeded by splitmix64, both by Blackman and Vigna
// (https://prng.di.unimi.it/xoshiro256starstar.c, https://prng.di.unimi.it/splitmix64.c).
// Integer arithmetic only, so every machine draws the same words; the samplers below use only
// IEEE basic operations, std::sqrt (exactly rounded) and std::log / std::exp.

std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

__extension__ typedef unsigned __int128 u128;

std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

class Rng {
 public:
  // One independent stream per purpose (arrivals, lengths, ...), so adding sessions to a
  // workload does not move its arrival times.
  Rng(std::uint64_t seed, std::uint64_t stream) {
    std::uint64_t x = seed ^ (stream * 0xD1B54A32D192ED03ull);
    for (auto& w : s_) w = splitmix64(x);
  }
  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // [0, 1), 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // (0, 1]: safe under log.
  double uniform_pos() { return static_cast<double>((next() >> 11) + 1) * 0x1.0p-53; }
  // [0, n) without modulo bias (Lemire's multiply-and-reject, https://arxiv.org/abs/1805.10941).
  std::uint64_t below(std::uint64_t n) {
    u128 m = static_cast<u128>(next()) * n;
    auto low = static_cast<std::uint64_t>(m);
    if (low < n) {
      const std::uint64_t threshold = (0 - n) % n;
      while (low < threshold) {
        m = static_cast<u128>(next()) * n;
        low = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64);
  }

 private:
  std::uint64_t s_[4];
};

enum Stream : std::uint64_t { kArrivals = 1, kLengths, kGroups, kPool, kSessions };

// Exponential of mean 1 by inversion.
double std_exponential(Rng& r) { return -std::log(r.uniform_pos()); }

// Standard normal by Marsaglia's polar method (no sin/cos); the second variate is dropped so a
// draw always consumes whole pairs and the stream stays simple to reason about.
double std_normal(Rng& r) {
  for (;;) {
    const double u = 2 * r.uniform() - 1, v = 2 * r.uniform() - 1;
    const double s = u * u + v * v;
    if (s > 0 && s < 1) return u * std::sqrt(-2 * std::log(s) / s);
  }
}

// Gamma(shape, 1) by Marsaglia and Tsang, "A simple method for generating gamma variables" (ACM
// TOMS 26(3), 2000); shape < 1 through Gamma(shape + 1) * U^(1/shape) (their section 7).
double std_gamma(Rng& r, double shape) {
  if (shape < 1) return std_gamma(r, shape + 1) * std::pow(r.uniform_pos(), 1 / shape);
  const double d = shape - 1.0 / 3, c = 1 / std::sqrt(9 * d);
  for (;;) {
    double x, v;
    do {
      x = std_normal(r);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = r.uniform_pos();
    if (u < 1 - 0.0331 * x * x * x * x) return d * v;
    if (std::log(u) < 0.5 * x * x + d * (1 - v + std::log(v))) return d * v;
  }
}

// ---- Distributions of lengths (tokens, whole numbers) and times (seconds).

enum class DistKind { fixed, uniform, normal, lognormal, exponential, histogram };

struct Dist {
  DistKind kind = DistKind::fixed;
  bool whole = true;  // tokens and turns: rounded to integers
  double mean = 0, std = 0;
  double min = 0, max = 0;   // clip
  double mu = 0, sigma = 0;  // lognormal: of the log
  std::vector<HistogramBin> bins;
  double total_weight = 0;
};

// What a distribution measures: its bounds and default clip.
struct Units {
  bool whole;
  double lo, hi;  // every given value lies here
  const char* what;
};
constexpr Units kTokens{true, 1, static_cast<double>(kMaxTokens), "tokens"};
constexpr Units kTurns{true, 1, static_cast<double>(kMaxTurns), "turns"};
constexpr Units kSeconds{false, 0, kMaxThinkSeconds, "seconds"};

std::string num_text(double x) {
  std::ostringstream os;
  os << x;
  return os.str();
}

double whole_number(JsonObject& o, const std::string& key, const Units& u) {
  const double x = o.number(key, u.lo, u.hi);
  if (u.whole && x != std::floor(x))
    throw Error(o.source(), o.pointer(key),
                "expected a whole number of " + std::string(u.what) + ", got " + num_text(x));
  return x;
}

std::vector<HistogramBin> read_bins(JsonObject& o, const Units& u) {
  const json& v = o.raw("bins");
  const std::string p = o.pointer("bins");
  if (!v.is_array() || v.empty() || v.size() > kMaxBins)
    throw Error(o.source(), p,
                "expected an array of 1 to " + std::to_string(kMaxBins) +
                    " bins [lo, hi, weight], got " + detail::show(v));
  std::vector<HistogramBin> bins;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string bp = p + "/" + std::to_string(i);
    const json& b = v[i];
    if (!b.is_array() || b.size() != 3)
      throw Error(o.source(), bp, "expected [lo, hi, weight], got " + detail::show(b));
    for (std::size_t k = 0; k < 3; ++k)
      if (!b[k].is_number() || !std::isfinite(b[k].get<double>()))
        throw Error(o.source(), bp + "/" + std::to_string(k),
                    "expected a number, got " + detail::show(b[k]));
    HistogramBin bin{b[0].get<double>(), b[1].get<double>(), b[2].get<double>()};
    for (std::size_t k = 0; k < 2; ++k) {
      const double x = k == 0 ? bin.lo : bin.hi;
      if (x < u.lo || x > u.hi || (u.whole && x != std::floor(x)))
        throw Error(o.source(), bp + "/" + std::to_string(k),
                    "must be a " + std::string(u.whole ? "whole number" : "number") + " between " +
                        num_text(u.lo) + " and " + num_text(u.hi) + ", got " + detail::show(b[k]));
    }
    if (bin.lo > bin.hi)
      throw Error(o.source(), bp,
                  "lo (" + num_text(bin.lo) + ") is greater than hi (" + num_text(bin.hi) + ")");
    if (bin.weight < 0 || bin.weight > 1e300)
      throw Error(o.source(), bp + "/2",
                  "weight must be between 0 and 1e300, got " + detail::show(b[2]));
    bins.push_back(bin);
  }
  return bins;
}

// [max(1, floor(L·(1 − r))), ceil(L·(1 + r))]: vLLM's RandomDataset.get_sampling_params
// (vllm/benchmarks/datasets.py, vllm-project/vllm@f2e97ddaf5902a9727f48b70d001b6117b8b8b12:
// "Bounds use floor for low and ceil for high", range_ratio in [0, 1)); the same IEEE products.
std::pair<double, double> ratio_bounds(double mean, double r) {
  return {std::max(1.0, std::floor(mean * (1 - r))), std::ceil(mean * (1 + r))};
}

// A uniform of tokens as `vllm bench serve --random-input-len L --random-range-ratio r` draws.
void read_range_ratio(JsonObject& o, const Units& u, LengthDist& d) {
  if (!u.whole)
    throw Error(o.source(), o.pointer("range_ratio"),
                "range_ratio draws token counts, as vLLM's random dataset does; give seconds as "
                "min and max");
  for (const char* k : {"min", "max"})
    if (o.has(k))
      throw Error(o.source(), o.pointer(k),
                  "give a uniform either min and max, or mean and range_ratio, not both");
  d.mean = whole_number(o, "mean", u);
  const double r = o.number("range_ratio", 0, 1);
  if (r >= 1)
    throw Error(o.source(), o.pointer("range_ratio"),
                "must be in [0, 1), as vLLM's random dataset requires, got " + num_text(r));
  if (ratio_bounds(d.mean, r).second > u.hi)
    throw Error(o.source(), o.pointer("range_ratio"),
                "mean · (1 + range_ratio) = " + num_text(ratio_bounds(d.mean, r).second) +
                    " is over the limit of " + num_text(u.hi) + " " + u.what);
  d.range_ratio = r;
}

// Reads and checks one distribution as the document gives it.
LengthDist read_dist(JsonObject& parent, const std::string& key, const Units& u) {
  JsonObject o = parent.object(key);
  LengthDist d;
  d.dist = o.str("dist");
  if (d.dist == "fixed") {
    d.mean = whole_number(o, "mean", u);
  } else if (d.dist == "uniform") {
    if (o.has("range_ratio")) read_range_ratio(o, u, d);
  } else if (d.dist == "normal") {
    d.mean = o.number("mean", u.lo, u.hi);
    d.std = o.number("std", 0, u.hi);
  } else if (d.dist == "lognormal") {
    d.mean = o.number("mean", std::max(u.lo, 1e-9), u.hi);
    d.std = o.number("std", 0, u.hi);
  } else if (d.dist == "exponential") {
    d.mean = o.number("mean", std::max(u.lo, 1e-9), u.hi);
  } else if (d.dist == "histogram") {
    d.bins = read_bins(o, u);
    double total = 0;
    for (const auto& b : d.bins) total += b.weight;
    if (!(total > 0))
      throw Error(o.source(), o.pointer("bins"), "the weights sum to 0; at least one must be > 0");
  } else {
    throw Error(o.source(), o.pointer("dist"),
                "unknown distribution \"" + d.dist +
                    "\" (fixed, uniform, normal, lognormal, exponential, histogram)");
  }
  // uniform needs min and max (or mean and range_ratio); the others clip to them when given.
  if (d.dist == "uniform" && d.range_ratio) {
    o.opt_number("min", u.lo, u.hi);
    o.opt_number("max", u.lo, u.hi);
  } else if (d.dist == "uniform") {
    d.min = whole_number(o, "min", u);
    d.max = whole_number(o, "max", u);
  } else {
    if (o.has("min")) d.min = whole_number(o, "min", u);
    if (o.has("max")) d.max = whole_number(o, "max", u);
    o.opt_number("min", u.lo, u.hi);  // marks them read when absent
    o.opt_number("max", u.lo, u.hi);
  }
  const double lo = d.min.value_or(u.lo), hi = d.max.value_or(u.hi);
  if (lo > hi)
    throw Error(o.source(), o.pointer("min"),
                "min (" + num_text(lo) + ") is greater than max (" + num_text(hi) + ")");
  o.finish();
  return d;
}

// The sampler's form of a distribution read_dist has checked.
Dist compile_dist(const LengthDist& s, const Units& u) {
  Dist d;
  d.whole = u.whole;
  d.min = s.min.value_or(u.lo);
  d.max = s.max.value_or(u.hi);
  d.mean = s.mean;
  d.std = s.std;
  if (s.dist == "fixed") {
    d.kind = DistKind::fixed;
  } else if (s.dist == "uniform") {
    d.kind = DistKind::uniform;
    if (s.range_ratio) std::tie(d.min, d.max) = ratio_bounds(s.mean, *s.range_ratio);
  } else if (s.dist == "normal") {
    d.kind = DistKind::normal;
  } else if (s.dist == "lognormal") {
    d.kind = DistKind::lognormal;
    // The file gives the mean m and standard deviation s of the value itself; the log of it is
    // normal with sigma^2 = ln(1 + s^2/m^2) and mu = ln(m) - sigma^2/2.
    const double ratio = d.std / d.mean;
    d.sigma = std::sqrt(std::log1p(ratio * ratio));
    d.mu = std::log(d.mean) - d.sigma * d.sigma / 2;
  } else if (s.dist == "exponential") {
    d.kind = DistKind::exponential;
  } else {
    d.kind = DistKind::histogram;
    d.bins = s.bins;
    for (const auto& b : d.bins) d.total_weight += b.weight;
  }
  return d;
}

double clip(const Dist& d, double x) {
  if (d.whole) x = std::round(x);
  return std::clamp(x, d.min, d.max);
}

double sample(const Dist& d, Rng& r) {
  switch (d.kind) {
    case DistKind::fixed:
      return clip(d, d.mean);
    case DistKind::uniform:
      if (d.whole)  // every whole number in [min, max] equally likely
        return d.min + static_cast<double>(r.below(static_cast<std::uint64_t>(d.max - d.min) + 1));
      return clip(d, d.min + (d.max - d.min) * r.uniform());
    case DistKind::normal:
      return clip(d, d.mean + d.std * std_normal(r));
    case DistKind::lognormal:
      return clip(d, std::exp(d.mu + d.sigma * std_normal(r)));
    case DistKind::exponential:
      return clip(d, d.mean * std_exponential(r));
    case DistKind::histogram: {
      double pick = r.uniform() * d.total_weight;
      std::size_t i = 0;
      while (i + 1 < d.bins.size() && (pick >= d.bins[i].weight || d.bins[i].weight == 0)) {
        pick -= d.bins[i].weight;
        ++i;
      }
      while (d.bins[i].weight == 0) --i;  // rounding ran past the last weighted bin
      const HistogramBin& b = d.bins[i];
      if (d.whole)
        return clip(
            d, b.lo + static_cast<double>(r.below(static_cast<std::uint64_t>(b.hi - b.lo) + 1)));
      return clip(d, b.lo + (b.hi - b.lo) * r.uniform());
    }
  }
  return d.min;
}

std::uint64_t sample_count(const Dist& d, Rng& r) {
  return static_cast<std::uint64_t>(sample(d, r));
}

// ---- The kvplan_workload JSON form.

enum class ArrivalKind { poisson, gamma, constant, closed };

struct Arrival {
  ArrivalKind kind = ArrivalKind::poisson;
  double cv = 1;  // gamma: coefficient of variation of the gaps
};

struct Prefix {
  std::uint64_t groups = 0, shared_tokens = 0, pool = 0;  // pool 0: no pool
};

struct Sessions {
  Dist turns, think_s;
};

struct Spec {
  Arrival arrival;
  std::uint64_t concurrency = 0, requests = 0;  // closed loop
  double think_s = 0;                           // closed loop
  std::vector<WorkloadStage> stages;
  Dist prompt, output;
  std::optional<Prefix> prefix;
  std::optional<Sessions> sessions;
};

ArrivalKind arrival_kind(const std::string& s, const std::string& source,
                         const std::string& field) {
  if (s == "poisson") return ArrivalKind::poisson;
  if (s == "gamma") return ArrivalKind::gamma;
  if (s == "constant") return ArrivalKind::constant;
  if (s == "closed") return ArrivalKind::closed;
  throw Error(source, field,
              "unknown arrival process \"" + s + "\" (poisson, gamma, constant, closed)");
}

// Sets s.arrival and s.cv, or the closed loop's clients, requests and think time.
void read_arrival(JsonObject& top, WorkloadSpec& s, const WorkloadLimits& limits) {
  const json& v = top.raw("arrival");
  const std::string p = top.pointer("arrival");
  if (v.is_string()) {
    s.arrival = v.get<std::string>();
    const ArrivalKind k = arrival_kind(s.arrival, top.source(), p);
    if (k == ArrivalKind::gamma)
      throw Error(top.source(), p,
                  "gamma arrivals need their burstiness: {\"process\": \"gamma\", \"cv\": 2}");
    if (k == ArrivalKind::closed)
      throw Error(top.source(), p,
                  "a closed loop needs its clients and requests: {\"process\": \"closed\", "
                  "\"concurrency\": 8, \"requests\": 800, \"think_time_ms\": 0}");
    return;
  }
  if (!v.is_object())
    throw Error(top.source(), p, "expected a string or an object, got " + detail::show(v));
  JsonObject o = top.object("arrival");
  s.arrival = o.str("process");
  // Gaps of shape 1/cv^2 and scale cv^2/rate: vLLM's `--burstiness` B is this shape
  // (get_request in vllm/benchmarks/serve.py, vllm-project/vllm def9ce85ba10), so B = 1/cv^2.
  // cv = 1 is Poisson; gaps of cv 10 have shape 1/100, past which the gaps are mostly zeros.
  const ArrivalKind k = arrival_kind(s.arrival, top.source(), o.pointer("process"));
  if (k == ArrivalKind::gamma) s.cv = o.number("cv", 0.01, 10);
  if (k == ArrivalKind::closed) {
    // `vllm bench serve --max-concurrency C --num-prompts N`: at most C requests in flight.
    s.concurrency = o.uint("concurrency", 1, kMaxConcurrency);
    s.requests = o.uint("requests", 1, limits.max_requests);
    s.think_time_ms = o.opt_number("think_time_ms", 0, kMaxThinkSeconds * 1e3).value_or(0);
  }
  o.finish();
}

// Rates and durations: > 0, and at least `min` so that 1 / rate and k / rate stay finite.
double positive(JsonObject& o, const std::string& key, double min, double max) {
  const double x = o.number(key, 0, max);
  if (x <= 0) throw Error(o.source(), o.pointer(key), "must be greater than 0, got 0");
  if (x < min)
    throw Error(o.source(), o.pointer(key),
                "must be at least " + num_text(min) + ", got " + num_text(x));
  return x;
}

std::vector<WorkloadStageSpec> read_stages(JsonObject& top, const WorkloadLimits& limits) {
  const json& v = top.raw("stages");
  const std::string p = top.pointer("stages");
  if (!v.is_array() || v.empty() || v.size() > kMaxStages)
    throw Error(top.source(), p,
                "expected an array of 1 to " + std::to_string(kMaxStages) +
                    " stages {\"rate\", \"duration_s\"}, got " + detail::show(v));
  std::vector<WorkloadStageSpec> stages;
  double expected = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    JsonObject o(v[i], top.source(), p + "/" + std::to_string(i));
    WorkloadStageSpec s;
    s.rate = positive(o, "rate", kMinRate, kMaxRate);
    s.duration_s = positive(o, "duration_s", kMinDuration, kMaxDuration);
    o.finish();
    expected += s.rate * s.duration_s;
    stages.push_back(s);
  }
  if (expected > static_cast<double>(limits.max_requests))
    throw Error(top.source(), p,
                "Σ rate · duration_s is " + num_text(expected) + " arrivals, over the limit of " +
                    std::to_string(limits.max_requests));
  return stages;
}

PrefixSpec read_prefix(JsonObject& top) {
  JsonObject o = top.object("prefix");
  PrefixSpec px;
  px.groups = o.uint("groups", 1, kMaxGroups);
  px.shared_tokens = o.uint("shared_tokens", 1, kMaxTokens);
  if (auto pool = o.opt_uint("prompt_pool", 1, kMaxPool)) {
    if (*pool % px.groups != 0)
      throw Error(o.source(), o.pointer("prompt_pool"),
                  "must be a multiple of groups (" + std::to_string(px.groups) +
                      ": each group holds prompt_pool / groups prompts), got " +
                      std::to_string(*pool));
    px.prompt_pool = *pool;
  }
  o.finish();
  return px;
}

WorkloadSpec read_spec(const json& j, const std::string& source, const WorkloadLimits& limits) {
  JsonObject top(j, source, "");
  if (!top.has("kvplan_workload"))
    throw Error(source, "/kvplan_workload",
                "missing: a workload file is a JSON object with \"kvplan_workload\": 1 (or a "
                "trace named .jsonl or .csv)");
  const json& ver = top.raw("kvplan_workload");
  if (!ver.is_number_unsigned() || ver.get<std::uint64_t>() != 1)
    throw Error(source, "/kvplan_workload",
                "unsupported version " + detail::show(ver) + " (this kvplan reads version 1)");
  WorkloadSpec s;
  if (auto d = top.opt_str("description")) s.description = *d;
  read_arrival(top, s, limits);
  const bool closed = s.arrival == "closed";
  if (closed) {
    s.stages.clear();
    for (const char* k : {"stages", "sessions"})
      if (top.has(k))
        throw Error(source, top.pointer(k),
                    std::string(k) == "stages"
                        ? "a closed loop has no stages: its clients send /arrival/requests "
                          "requests, each when the client's previous one finishes"
                        : "sessions are not modelled with closed-loop arrivals (each client's "
                          "requests are independent, as vllm bench serve sends them)");
  } else {
    s.stages = read_stages(top, limits);
  }
  s.prompt = read_dist(top, "prompt_tokens", kTokens);
  s.output = read_dist(top, "output_tokens", kTokens);
  if (top.has("prefix")) s.prefix = read_prefix(top);
  top.opt_object("prefix");
  if (top.has("sessions")) {
    JsonObject o = top.object("sessions");
    s.sessions = SessionsSpec{read_dist(o, "turns", kTurns), read_dist(o, "think_s", kSeconds)};
    o.finish();
  }
  top.opt_object("sessions");
  top.finish();
  return s;
}

// The sampler's form of a spec read_spec has checked.
Spec compile(const WorkloadSpec& w, const std::string& source) {
  Spec s;
  s.arrival.kind = arrival_kind(w.arrival, source, "/arrival");
  if (s.arrival.kind == ArrivalKind::gamma) s.arrival.cv = w.cv;
  if (s.arrival.kind == ArrivalKind::closed) {
    s.concurrency = w.concurrency, s.requests = w.requests, s.think_s = w.think_time_ms / 1e3;
    s.stages.push_back({.rate = 0, .duration_s = 0, .start_s = 0});  // one stage from 0
  }
  double start = 0;
  for (const auto& st : w.stages) {
    s.stages.push_back({.rate = st.rate, .duration_s = st.duration_s, .start_s = start});
    start += st.duration_s;
  }
  s.prompt = compile_dist(w.prompt, kTokens);
  s.output = compile_dist(w.output, kTokens);
  if (w.prefix) s.prefix = Prefix{w.prefix->groups, w.prefix->shared_tokens, w.prefix->prompt_pool};
  if (w.sessions)
    s.sessions = Sessions{compile_dist(w.sessions->turns, kTurns),
                          compile_dist(w.sessions->think_s, kSeconds)};
  return s;
}

// Arrival times of the first requests (sessions: first turns), stage by stage; each stage's
// process starts afresh at the stage's start.
std::vector<std::pair<double, std::uint32_t>> arrivals(const Spec& s, std::uint64_t seed,
                                                       const std::string& source,
                                                       const WorkloadLimits& limits) {
  Rng r(seed, kArrivals);
  std::vector<std::pair<double, std::uint32_t>> out;
  const double shape = 1 / (s.arrival.cv * s.arrival.cv);
  for (std::uint32_t i = 0; i < s.stages.size(); ++i) {
    const WorkloadStage& st = s.stages[i];
    const double end = st.start_s + st.duration_s, mean_gap = 1 / st.rate;
    double t = st.start_s;
    for (std::uint64_t k = 0;; ++k) {
      switch (s.arrival.kind) {
        case ArrivalKind::constant:  // k / rate from the start, not accumulated
          t = st.start_s + static_cast<double>(k) / st.rate;
          break;
        case ArrivalKind::poisson:
          t += mean_gap * std_exponential(r);
          break;
        case ArrivalKind::gamma:  // mean shape * scale = 1 / rate, cv = 1 / sqrt(shape)
          t += std_gamma(r, shape) * (mean_gap / shape);
          break;
        case ArrivalKind::closed:  // no arrival process: closed_loop() sends them
          return out;
      }
      if (t >= end) break;
      if (out.size() >= limits.max_requests)
        throw Error(source, "/stages",
                    "produce more than " + std::to_string(limits.max_requests) + " requests");
      out.emplace_back(t, i);
    }
  }
  return out;
}

// Builds the requests in generation order; sort_requests orders them by arrival.
class Builder {
 public:
  Builder(std::string source, const WorkloadLimits& limits)
      : source_(std::move(source)), limits_(limits) {}

  std::uint64_t new_content() { return next_content_++; }

  // Appends a request; returns its index in generation order.
  std::uint64_t add(SimRequest r, const std::string& field) {
    std::uint64_t tokens = 0;
    for (const auto& seg : r.prompt) tokens += seg.tokens;  // each <= 2^32, count <= 2^26
    if (tokens > kMaxTokens || r.output_tokens > kMaxTokens || r.output_tokens == 0)
      throw Error(source_, field,
                  "a request of " + std::to_string(tokens) + " prompt and " +
                      std::to_string(r.output_tokens) +
                      " output tokens: each must be between 1 and 2^32");
    segments_ += r.prompt.size();
    if (segments_ > limits_.max_segments)
      throw Error(source_, field,
                  "more than " + std::to_string(limits_.max_segments) +
                      " prompt segments in all (long sessions grow quadratically)");
    if (requests_.size() >= limits_.max_requests)
      throw Error(source_, field,
                  "more than " + std::to_string(limits_.max_requests) + " requests");
    r.prompt_tokens = tokens;
    r.id = requests_.size();
    requests_.push_back(std::move(r));
    return requests_.back().id;
  }
  const SimRequest& at(std::uint64_t i) const { return requests_[i]; }

  // By arrival_s, ties by generation order; `after` renumbered (a later turn never arrives
  // before its previous turn, so `after` stays < id).
  std::vector<SimRequest> sorted() && {
    std::vector<std::uint64_t> order(requests_.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::uint64_t a, std::uint64_t b) {
      return requests_[a].arrival_s < requests_[b].arrival_s;
    });
    std::vector<std::uint64_t> new_id(order.size());
    for (std::uint64_t i = 0; i < order.size(); ++i) new_id[order[i]] = i;
    std::vector<SimRequest> out;
    out.reserve(order.size());
    for (std::uint64_t i = 0; i < order.size(); ++i) {
      SimRequest r = std::move(requests_[order[i]]);
      r.id = i;
      if (r.after >= 0)
        r.after = static_cast<std::int64_t>(new_id[static_cast<std::uint64_t>(r.after)]);
      out.push_back(std::move(r));
    }
    return out;
  }

 private:
  std::string source_;
  WorkloadLimits limits_;
  std::uint64_t next_content_ = 1;
  std::uint64_t segments_ = 0;
  std::vector<SimRequest> requests_;
};

// One entry of the prompt pool: the group's system prompt, then its own question.
struct PooledPrompt {
  std::uint64_t group = 0;
  Segment question;
  std::uint64_t output_tokens = 0;
};

// Draws requests' prompts and outputs: request n's first turn (the pooled prompt n mod the pool's
// size, or a group's system prompt and a question of its own).
class FirstTurns {
 public:
  FirstTurns(const Spec& s, std::uint64_t seed, Builder& b)
      : s_(s), lengths_(seed, kLengths), groups_(seed, kGroups) {
    Rng pool_rng(seed, kPool);
    if (!s.prefix) return;
    for (std::uint64_t g = 0; g < s.prefix->groups; ++g)
      system_prompts_.push_back({b.new_content(), s.prefix->shared_tokens});
    // The prompt pool as inference-perf's shared-prefix generator builds it
    // (inference_perf/datagen/synthetic/shared_prefix_datagen.py at kubernetes-sigs/inference-perf
    // 7de5ef2ed6f7934e0ecbc8297e593f79e68430c0): num_groups x num_prompts_per_group prompts, each
    // its group's system prompt plus its own question, with its own question and output length
    // drawn once, group by group; then one seeded shuffle; request i sends prompt i mod the pool
    // size, so every prompt recurs identically.
    const std::uint64_t per_group = s.prefix->pool / s.prefix->groups;
    for (std::uint64_t g = 0; g < s.prefix->groups && s.prefix->pool > 0; ++g)
      for (std::uint64_t p = 0; p < per_group; ++p) {
        PooledPrompt pp;
        pp.group = g;
        pp.question = {b.new_content(), sample_count(s.prompt, pool_rng)};
        pp.output_tokens = sample_count(s.output, pool_rng);
        pool_.push_back(pp);
      }
    for (std::uint64_t i = pool_.size(); i > 1; --i)  // Fisher-Yates
      std::swap(pool_[i - 1], pool_[pool_rng.below(i)]);
  }

  void draw(std::uint64_t n, SimRequest& first, Builder& b) {
    if (!pool_.empty()) {
      const PooledPrompt& pp = pool_[n % pool_.size()];
      first.prompt = {system_prompts_[pp.group], pp.question};
      first.output_tokens = pp.output_tokens;
      return;
    }
    if (s_.prefix) first.prompt.push_back(system_prompts_[groups_.below(s_.prefix->groups)]);
    first.prompt.push_back({b.new_content(), sample_count(s_.prompt, lengths_)});
    first.output_tokens = sample_count(s_.output, lengths_);
  }
  Rng& lengths() { return lengths_; }

 private:
  const Spec& s_;
  Rng lengths_, groups_;
  std::vector<Segment> system_prompts_;
  std::vector<PooledPrompt> pool_;
};

// A closed loop: request n belongs to client n mod concurrency and waits for the client's
// previous request (n − concurrency) to finish, then think_s more. The first request of each
// client is sent at 0; a later one's arrival_s is the earliest it could be sent.
void closed_loop(const Spec& s, FirstTurns& turns, Builder& b) {
  for (std::uint64_t n = 0; n < s.requests; ++n) {
    SimRequest r;
    if (n >= s.concurrency) {
      r.after = static_cast<std::int64_t>(n - s.concurrency);
      r.think_s = s.think_s;
      r.arrival_s = b.at(n - s.concurrency).arrival_s + s.think_s;
    }
    turns.draw(n, r, b);
    b.add(std::move(r), "/arrival/requests");
  }
}

Workload generate(const Spec& s, const std::string& source, std::uint64_t seed,
                  const WorkloadLimits& limits) {
  Builder b(source, limits);
  Rng session_rng(seed, kSessions);
  FirstTurns turns(s, seed, b);
  if (s.arrival.kind == ArrivalKind::closed) closed_loop(s, turns, b);
  const auto starts = arrivals(s, seed, source, limits);
  for (std::uint64_t n = 0; n < starts.size(); ++n) {
    SimRequest first;
    first.arrival_s = starts[n].first;
    first.stage = starts[n].second;
    turns.draw(n, first, b);
    const std::uint64_t nturns = s.sessions ? sample_count(s.sessions->turns, session_rng) : 1;
    if (s.sessions) first.session = n + 1;
    std::uint64_t prev = b.add(std::move(first), "/prompt_tokens");
    for (std::uint64_t t = 1; t < nturns; ++t) {
      const SimRequest& p = b.at(prev);
      SimRequest next;
      next.think_s = sample(s.sessions->think_s, session_rng);
      next.arrival_s = p.arrival_s + next.think_s;  // the earliest it can arrive
      next.stage = p.stage;
      next.session = p.session;
      next.after = static_cast<std::int64_t>(prev);
      next.prompt = p.prompt;
      next.prompt.push_back({b.new_content(), p.output_tokens});
      next.prompt.push_back({b.new_content(), sample_count(s.prompt, turns.lengths())});
      next.output_tokens = sample_count(s.output, turns.lengths());
      prev = b.add(std::move(next), "/sessions/turns");
    }
  }
  Workload w;
  w.source = source;
  w.stages = s.stages;
  w.requests = std::move(b).sorted();
  if (s.arrival.kind == ArrivalKind::closed) w.concurrency = s.concurrency;
  return w;
}

// ---- Traces.

struct Row {
  double arrival_s = 0;
  std::uint64_t prompt_tokens = 0, output_tokens = 0;
  std::optional<std::string> prefix_id, session_id;
  std::optional<std::uint64_t> prefix_tokens;
};

std::string line_field(std::uint64_t line, const std::string& field) {
  return "line " + std::to_string(line) + (field.empty() ? "" : ": " + field);
}

// prefix_id and session_id: a string or a whole number, compared as text.
std::optional<std::string> read_id(JsonObject& o, const std::string& key) {
  if (!o.has(key)) {
    o.opt_str(key);
    return std::nullopt;
  }
  const json& v = o.raw(key);
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_unsigned()) return std::to_string(v.get<std::uint64_t>());
  throw Error(o.source(), o.pointer(key),
              "expected a string or a whole number, got " + detail::show(v));
}

Row jsonl_row(const std::string& text, const std::string& source) {
  const json j = detail::parse_json_text(text, source);
  JsonObject o(j, source, "");
  Row r;
  r.arrival_s = o.number("arrival_s", 0, kMaxArrivalSeconds);
  r.prompt_tokens = o.uint("prompt_tokens", 1, kMaxTokens);
  r.output_tokens = o.uint("output_tokens", 1, kMaxTokens);
  r.prefix_id = read_id(o, "prefix_id");
  r.prefix_tokens = o.opt_uint("prefix_tokens", 1, kMaxTokens);
  r.session_id = read_id(o, "session_id");
  o.finish();
  return r;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_csv(std::string_view line) {
  std::vector<std::string_view> cells;
  for (;;) {
    const auto comma = line.find(',');
    cells.push_back(trim(line.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    line.remove_prefix(comma + 1);
  }
  return cells;
}

const char* const kColumns[] = {"arrival_s", "prompt_tokens", "output_tokens",
                                "prefix_id", "prefix_tokens", "session_id"};

std::uint64_t csv_uint(std::string_view cell, const std::string& source, const std::string& field) {
  std::uint64_t v = 0;
  const auto [p, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
  if (cell.empty() || ec != std::errc() || p != cell.data() + cell.size() || v < 1 ||
      v > kMaxTokens)
    throw Error(
        source, field,
        "expected a whole number between 1 and 4294967296, got \"" + std::string(cell) + "\"");
  return v;
}

double csv_seconds(std::string_view cell, const std::string& source, const std::string& field) {
  double v = 0;
  const auto [p, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
  if (cell.empty() || ec != std::errc() || p != cell.data() + cell.size() || !std::isfinite(v) ||
      v < 0 || v > kMaxArrivalSeconds)
    throw Error(
        source, field,
        "expected a number of seconds between 0 and 1e9, got \"" + std::string(cell) + "\"");
  return v;
}

// Lines of text with their 1-based numbers; blank lines skipped.
std::vector<std::pair<std::uint64_t, std::string_view>> lines_of(const std::string& text) {
  std::vector<std::pair<std::uint64_t, std::string_view>> out;
  std::string_view rest = text;
  for (std::uint64_t n = 1; !rest.empty(); ++n) {
    const auto nl = rest.find('\n');
    const std::string_view line = rest.substr(0, nl);
    if (!trim(line).empty()) out.emplace_back(n, line);
    if (nl == std::string_view::npos) break;
    rest.remove_prefix(nl + 1);
  }
  return out;
}

std::vector<std::pair<std::uint64_t, Row>> csv_rows(const std::string& text,
                                                    const std::string& source) {
  auto lines = lines_of(text);
  if (lines.empty()) throw Error(source, "", "empty trace: expected a header row");
  // A UTF-8 byte order mark (spreadsheets write one) is not part of the first column's name, as
  // it is not part of a JSONL trace's first object.
  if (lines[0].second.starts_with("\xEF\xBB\xBF")) lines[0].second.remove_prefix(3);
  const std::uint64_t header_line = lines[0].first;
  const auto header = split_csv(lines[0].second);
  std::vector<int> column(header.size(), -1);  // index into kColumns
  for (std::size_t c = 0; c < header.size(); ++c) {
    for (int k = 0; k < 6; ++k)
      if (header[c] == kColumns[k]) column[c] = k;
    if (column[c] < 0)
      throw Error(source, line_field(header_line, "column " + std::to_string(c + 1)),
                  "unknown column \"" + std::string(header[c]) +
                      "\" (arrival_s, prompt_tokens, output_tokens, prefix_id, prefix_tokens, "
                      "session_id)");
    for (std::size_t e = 0; e < c; ++e)
      if (column[e] == column[c])
        throw Error(source, line_field(header_line, std::string(header[c])), "column named twice");
  }
  for (int k = 0; k < 3; ++k)
    if (std::find(column.begin(), column.end(), k) == column.end())
      throw Error(source, line_field(header_line, kColumns[k]), "missing required column");
  std::vector<std::pair<std::uint64_t, Row>> rows;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const auto [n, line] = lines[i];
    const auto cells = split_csv(line);
    if (cells.size() != header.size())
      throw Error(source, line_field(n, ""),
                  "has " + std::to_string(cells.size()) + " cells, the header names " +
                      std::to_string(header.size()));
    Row r;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const std::string f = line_field(n, kColumns[column[c]]);
      const std::string_view cell = cells[c];
      if (cell.find('"') != std::string_view::npos)
        throw Error(source, f, "quoted cells are not supported, got " + std::string(cell));
      if (cell.empty() && column[c] >= 3) continue;  // optional, absent
      switch (column[c]) {
        case 0:
          r.arrival_s = csv_seconds(cell, source, f);
          break;
        case 1:
          r.prompt_tokens = csv_uint(cell, source, f);
          break;
        case 2:
          r.output_tokens = csv_uint(cell, source, f);
          break;
        case 3:
          r.prefix_id = std::string(cell);
          break;
        case 4:
          r.prefix_tokens = csv_uint(cell, source, f);
          break;
        case 5:
          r.session_id = std::string(cell);
          break;
      }
    }
    rows.emplace_back(n, std::move(r));
  }
  return rows;
}

std::vector<std::pair<std::uint64_t, Row>> jsonl_rows(const std::string& text,
                                                      const std::string& source) {
  std::vector<std::pair<std::uint64_t, Row>> rows;
  for (const auto& [n, line] : lines_of(text)) {
    try {
      rows.emplace_back(n, jsonl_row(std::string(line), source));
    } catch (const Error& e) {
      throw Error(e.kind(), source, line_field(n, e.field()), e.message());
    }
  }
  return rows;
}

Workload build_trace(const std::vector<std::pair<std::uint64_t, Row>>& rows,
                     const std::string& source, const WorkloadLimits& limits) {
  if (rows.empty()) throw Error(source, "", "the trace holds no requests");
  if (rows.size() > limits.max_requests)
    throw Error(source, "", "more than " + std::to_string(limits.max_requests) + " requests");
  Builder b(source, limits);
  struct PrefixSeen {
    Segment segment;
    std::uint64_t line;
  };
  struct SessionSeen {
    std::uint64_t last, number;
    std::optional<std::string> prefix_id;
  };
  std::map<std::string, PrefixSeen> prefixes;
  std::map<std::string, SessionSeen> sessions;
  double first_arrival = rows.empty() ? 0 : rows.front().second.arrival_s, last_arrival = 0;
  for (const auto& [n, r] : rows) {
    if (r.prefix_id.has_value() != r.prefix_tokens.has_value())
      throw Error(source, line_field(n, r.prefix_id ? "prefix_tokens" : "prefix_id"),
                  "prefix_id and prefix_tokens come together");
    SimRequest q;
    q.arrival_s = r.arrival_s;
    q.output_tokens = r.output_tokens;
    last_arrival = std::max(last_arrival, r.arrival_s);
    first_arrival = std::min(first_arrival, r.arrival_s);
    auto s = r.session_id ? sessions.find(*r.session_id) : sessions.end();
    if (s != sessions.end()) {  // a later turn: the previous prompt and output come first
      const SimRequest& p = b.at(s->second.last);
      const std::uint64_t before = p.prompt_tokens + p.output_tokens;
      if (r.prompt_tokens < before)
        throw Error(source, line_field(n, "prompt_tokens"),
                    "a later turn of session \"" + *r.session_id +
                        "\" begins with the previous turn's prompt and output (" +
                        std::to_string(p.prompt_tokens) + " + " + std::to_string(p.output_tokens) +
                        " tokens), got " + std::to_string(r.prompt_tokens));
      if (r.arrival_s < p.arrival_s)
        throw Error(source, line_field(n, "arrival_s"),
                    "arrives before the previous turn of session \"" + *r.session_id + "\"");
      if (r.prefix_id && r.prefix_id != s->second.prefix_id)
        throw Error(source, line_field(n, "prefix_id"),
                    "a later turn of session \"" + *r.session_id +
                        "\" inherits the first turn's prefix and cannot name another");
      q.after = static_cast<std::int64_t>(s->second.last);
      q.session = s->second.number;
      q.prompt = p.prompt;
      q.prompt.push_back({b.new_content(), p.output_tokens});
      if (r.prompt_tokens > before) q.prompt.push_back({b.new_content(), r.prompt_tokens - before});
    } else {
      std::uint64_t own = r.prompt_tokens;
      if (r.prefix_id) {
        if (*r.prefix_tokens > r.prompt_tokens)
          throw Error(source, line_field(n, "prefix_tokens"),
                      "is more than prompt_tokens (" + std::to_string(r.prompt_tokens) + ")");
        auto [it, fresh] = prefixes.try_emplace(*r.prefix_id, PrefixSeen{{0, *r.prefix_tokens}, n});
        if (fresh) it->second.segment.content = b.new_content();
        if (it->second.segment.tokens != *r.prefix_tokens)
          throw Error(source, line_field(n, "prefix_tokens"),
                      "prefix_id \"" + *r.prefix_id + "\" has " +
                          std::to_string(it->second.segment.tokens) + " tokens on line " +
                          std::to_string(it->second.line) + ", got " +
                          std::to_string(*r.prefix_tokens));
        q.prompt.push_back(it->second.segment);
        own -= *r.prefix_tokens;
      }
      if (own > 0) q.prompt.push_back({b.new_content(), own});
      if (r.session_id) q.session = sessions.size() + 1;
    }
    const std::uint64_t session = q.session;
    const std::uint64_t id = b.add(std::move(q), line_field(n, "prompt_tokens"));
    if (s != sessions.end())
      s->second.last = id;
    else if (r.session_id)
      sessions.emplace(*r.session_id, SessionSeen{id, session, r.prefix_id});
  }
  Workload w;
  w.source = source;
  WorkloadStage st;
  // The trace's one stage spans its arrivals: a trace whose first request comes at 100 s is not
  // idle from 0 to 100 s (its throughput and queue windows start there).
  st.start_s = first_arrival;
  st.duration_s = last_arrival - first_arrival;
  st.rate = st.duration_s > 0 ? static_cast<double>(rows.size()) / st.duration_s : 0;
  w.stages.push_back(st);
  w.requests = std::move(b).sorted();
  return w;
}

bool ends_with(const std::string& s, std::string_view tail) {
  if (s.size() < tail.size()) return false;
  return std::equal(tail.rbegin(), tail.rend(), s.rbegin(), [](char a, char b) {
    return a == std::tolower(static_cast<unsigned char>(b));
  });
}

// ---- The writer: the keys read_spec reads, numbers whole where they are whole.

using ordered_json = nlohmann::ordered_json;

ordered_json number_json(double x) {
  if (std::isfinite(x) && x == std::floor(x) && std::fabs(x) <= 0x1.0p53)
    return static_cast<std::int64_t>(x);
  return x;  // NaN and infinities become null, which the parser refuses naming the field
}

ordered_json bins_json(const std::vector<HistogramBin>& bins) {
  ordered_json a = ordered_json::array();
  for (const auto& b : bins)
    a.push_back({number_json(b.lo), number_json(b.hi), number_json(b.weight)});
  return a;
}

ordered_json dist_json(const LengthDist& d) {
  ordered_json o;
  o["dist"] = d.dist;
  if (d.dist == "histogram")
    o["bins"] = bins_json(d.bins);
  else if (d.dist != "uniform" || d.range_ratio)
    o["mean"] = number_json(d.mean);
  if (d.range_ratio) o["range_ratio"] = number_json(*d.range_ratio);
  if (d.dist == "normal" || d.dist == "lognormal") o["std"] = number_json(d.std);
  if (d.min) o["min"] = number_json(*d.min);
  if (d.max) o["max"] = number_json(*d.max);
  return o;
}

}  // namespace

Workload parse_workload_json(const std::string& text, const std::string& source, std::uint64_t seed,
                             const WorkloadLimits& limits) {
  const json j = detail::parse_json_text(text, source);
  return generate(compile(read_spec(j, source, limits), source), source, seed, limits);
}

WorkloadSpec parse_workload_spec(const std::string& text, const std::string& source,
                                 const WorkloadLimits& limits) {
  return read_spec(detail::parse_json_text(text, source), source, limits);
}

std::string to_json(const WorkloadSpec& spec) {
  ordered_json o;
  o["kvplan_workload"] = 1;
  if (!spec.description.empty()) o["description"] = spec.description;
  if (spec.arrival == "gamma") {
    o["arrival"] = {{"process", "gamma"}, {"cv", number_json(spec.cv)}};
  } else if (spec.arrival == "closed") {
    ordered_json a;
    a["process"] = "closed";
    a["concurrency"] = spec.concurrency;
    a["requests"] = spec.requests;
    if (spec.think_time_ms != 0) a["think_time_ms"] = number_json(spec.think_time_ms);
    o["arrival"] = a;
  } else {
    o["arrival"] = spec.arrival;
  }
  if (spec.arrival != "closed") {
    o["stages"] = ordered_json::array();
    for (const auto& st : spec.stages)
      o["stages"].push_back(
          {{"rate", number_json(st.rate)}, {"duration_s", number_json(st.duration_s)}});
  }
  o["prompt_tokens"] = dist_json(spec.prompt);
  o["output_tokens"] = dist_json(spec.output);
  if (spec.prefix) {
    ordered_json p;
    p["groups"] = spec.prefix->groups;
    p["shared_tokens"] = spec.prefix->shared_tokens;
    if (spec.prefix->prompt_pool > 0) p["prompt_pool"] = spec.prefix->prompt_pool;
    o["prefix"] = p;
  }
  if (spec.sessions)
    o["sessions"] = {{"turns", dist_json(spec.sessions->turns)},
                     {"think_s", dist_json(spec.sessions->think_s)}};
  return o.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string bins_to_json(const std::vector<HistogramBin>& bins) { return bins_json(bins).dump(); }

std::vector<HistogramBin> parse_bins_json(const std::string& text, const std::string& source,
                                          const std::string& pointer) {
  json v;
  try {
    v = detail::parse_json_text(text, source);
  } catch (const Error& e) {
    throw Error(source, pointer, e.message());
  }
  if (!v.is_array())
    throw Error(source, pointer, "expected [[lo, hi, weight], ...], got " + detail::show(v));
  std::vector<HistogramBin> bins;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string bp = pointer + "/" + std::to_string(i);
    if (!v[i].is_array() || v[i].size() != 3)
      throw Error(source, bp, "expected [lo, hi, weight], got " + detail::show(v[i]));
    double x[3];
    for (std::size_t k = 0; k < 3; ++k) {
      if (!v[i][k].is_number())
        throw Error(source, bp + "/" + std::to_string(k),
                    "expected a number, got " + detail::show(v[i][k]));
      x[k] = v[i][k].get<double>();
    }
    bins.push_back({x[0], x[1], x[2]});
  }
  return bins;
}

Workload parse_workload_trace(const std::string& text, const std::string& source, bool csv,
                              const WorkloadLimits& limits) {
  return build_trace(csv ? csv_rows(text, source) : jsonl_rows(text, source), source, limits);
}

Workload load_workload(const std::string& path, std::uint64_t seed, const WorkloadLimits& limits) {
  const std::string text = detail::read_text_file(path, "workload file");
  if (ends_with(path, ".jsonl")) return parse_workload_trace(text, path, false, limits);
  if (ends_with(path, ".csv")) return parse_workload_trace(text, path, true, limits);
  return parse_workload_json(text, path, seed, limits);
}

WorkloadSpec load_workload_spec(const std::string& path, const WorkloadLimits& limits) {
  if (ends_with(path, ".jsonl") || ends_with(path, ".csv"))
    throw Error(path, "workload",
                "is a request trace: its requests are given, not drawn, so it has no lengths to "
                "draw at each concurrency (give a kvplan_workload JSON)");
  return parse_workload_spec(detail::read_text_file(path, "workload file"), path, limits);
}

}  // namespace kvplan::sim
