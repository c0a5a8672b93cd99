#include "kvplan/policy.hpp"

#include <algorithm>

#include "kvplan/error.hpp"
#include "spec_parse.hpp"

namespace kvplan {

namespace {

constexpr std::uint64_t kMaxTokens = std::uint64_t{1} << 40;

Budget parse_budget(const std::string& text, const std::string& source, const std::string& field) {
  if (text.find('.') != std::string::npos)
    return Budget{.ppm = detail::parse_ppm(text, source, field), .is_fraction = true};
  return Budget{.tokens = detail::parse_uint(text, 0, kMaxTokens, source, field)};
}

std::string budget_string(const Budget& b) {
  if (!b.is_fraction) return std::to_string(b.tokens);
  std::string digits = std::to_string(b.ppm % 1000000);
  digits.insert(0, 6 - digits.size(), '0');
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  return std::to_string(b.ppm / 1000000) + "." + digits;
}

}  // namespace

std::uint64_t Budget::at(std::uint64_t n) const {
  if (!is_fraction) return tokens;
  // floor(n · ppm / 1e6) without forming n · ppm, which could overflow for huge n.
  constexpr std::uint64_t M = 1000000;
  return n / M * ppm + n % M * ppm / M;
}

RetentionPolicy parse_policy(std::string_view spec, const std::string& source,
                             const std::string& field) {
  auto opts = detail::split_spec(spec, source, field);
  RetentionPolicy p;
  bool has_heavy = false, has_recent = false, has_budget = false;
  if (opts.head == "full") {
    p.kind = PolicyKind::full;
  } else if (opts.head == "streaming") {
    p.kind = PolicyKind::streaming;
  } else if (opts.head == "h2o") {
    p.kind = PolicyKind::h2o;
  } else if (opts.head == "snapkv") {
    p.kind = PolicyKind::snapkv;
    p.window = 32;
  } else {
    throw Error(source, field,
                "unknown retention policy '" + std::string(spec) +
                    "' (expected full, streaming:sink=S,window=W, h2o:heavy=N,recent=M or "
                    "snapkv:budget=N)");
  }
  for (const auto& [key, value] : opts.values) {
    const std::string sub = field + "." + key;
    const bool score_based = p.kind == PolicyKind::h2o || p.kind == PolicyKind::snapkv;
    if (p.kind == PolicyKind::full) {
      throw Error(source, sub, "policy 'full' takes no options");
    } else if (p.kind == PolicyKind::streaming && key == "sink") {
      p.sink = detail::parse_uint(value, 0, kMaxTokens, source, sub);
    } else if ((p.kind == PolicyKind::streaming || p.kind == PolicyKind::snapkv) &&
               key == "window") {
      p.window = detail::parse_uint(value, 0, kMaxTokens, source, sub);
    } else if (p.kind == PolicyKind::h2o && (key == "heavy" || key == "keep")) {
      if (has_heavy) throw Error(source, sub, "give heavy or keep, not both");
      p.heavy = parse_budget(value, source, sub);
      has_heavy = true;
    } else if (p.kind == PolicyKind::h2o && key == "recent") {
      p.recent = parse_budget(value, source, sub);
      has_recent = true;
    } else if (p.kind == PolicyKind::snapkv && key == "budget") {
      p.budget = parse_budget(value, source, sub);
      has_budget = true;
    } else if (p.kind == PolicyKind::snapkv && key == "kernel") {
      p.kernel = static_cast<std::uint32_t>(detail::parse_uint(value, 1, 4097, source, sub));
      if (p.kernel % 2 == 0) throw Error(source, sub, "pooling kernel must be odd, got " + value);
    } else if (p.kind == PolicyKind::snapkv && key == "pool") {
      if (value == "max")
        p.pool = PoolKind::max;
      else if (value == "avg" || value == "mean")
        p.pool = PoolKind::avg;
      else
        throw Error(source, sub, "expected max or avg, got '" + value + "'");
    } else if (score_based && key == "gqa") {
      if (value == "sum")
        p.gqa = GqaReduce::sum;
      else if (value == "mean")
        p.gqa = GqaReduce::mean;
      else if (value == "max")
        p.gqa = GqaReduce::max;
      else
        throw Error(source, sub, "expected sum, mean or max, got '" + value + "'");
    } else if (key == "positions" && p.kind != PolicyKind::full) {
      if (value == "original")
        p.positions = PositionMode::original;
      else if (value == "cache")
        p.positions = PositionMode::cache;
      else
        throw Error(source, sub, "expected original or cache, got '" + value + "'");
    } else {
      throw Error(source, sub, "unknown option '" + key + "' for policy '" + opts.head + "'");
    }
  }
  if (p.kind == PolicyKind::streaming && p.sink + p.window == 0)
    throw Error(source, field, "sink + window must keep at least the current token");
  if (p.kind == PolicyKind::h2o) {
    if (!has_heavy || !has_recent)
      throw Error(source, field,
                  "h2o needs heavy=N (or keep=F) and recent=M, got '" + std::string(spec) + "'");
    if (!p.heavy.is_fraction && !p.recent.is_fraction && p.heavy.tokens + p.recent.tokens == 0)
      throw Error(source, field, "heavy + recent must keep at least the current token");
    if (p.heavy.is_fraction && p.recent.is_fraction && p.heavy.ppm + p.recent.ppm > 1000000)
      throw Error(
          source, field,
          "keep + recent must be at most 1 (the whole sequence), got '" + std::string(spec) + "'");
  }
  if (p.kind == PolicyKind::snapkv) {
    if (!has_budget) throw Error(source, field + ".budget", "snapkv needs budget=N");
    if (!p.budget.is_fraction && p.budget.tokens < p.window)
      throw Error(source, field + ".budget",
                  "budget (" + std::to_string(p.budget.tokens) +
                      ") must be at least the observation window (" + std::to_string(p.window) +
                      ")");
    if (!p.budget.is_fraction && p.budget.tokens == 0)
      throw Error(source, field + ".budget", "must keep at least the current token");
  }
  return p;
}

std::string to_string(const RetentionPolicy& p) {
  auto extras = [&](bool score_based) {
    std::string s;
    if (score_based) {
      if (p.gqa == GqaReduce::mean) s += ",gqa=mean";
      if (p.gqa == GqaReduce::max) s += ",gqa=max";
    }
    if (p.positions == PositionMode::cache) s += ",positions=cache";
    return s;
  };
  switch (p.kind) {
    case PolicyKind::full:
      return "full";
    case PolicyKind::streaming:
      return "streaming:sink=" + std::to_string(p.sink) + ",window=" + std::to_string(p.window) +
             extras(false);
    case PolicyKind::h2o:
      return std::string("h2o:") + (p.heavy.is_fraction ? "keep=" : "heavy=") +
             budget_string(p.heavy) + ",recent=" + budget_string(p.recent) + extras(true);
    case PolicyKind::snapkv:
      return "snapkv:budget=" + budget_string(p.budget) + ",window=" + std::to_string(p.window) +
             ",kernel=" + std::to_string(p.kernel) +
             ",pool=" + (p.pool == PoolKind::max ? "max" : "avg") + extras(true);
  }
  return "?";
}

std::vector<std::string> policy_spellings() {
  RetentionPolicy streaming{.kind = PolicyKind::streaming};
  RetentionPolicy h2o{
      .kind = PolicyKind::h2o, .heavy = Budget{.tokens = 128}, .recent = Budget{.tokens = 896}};
  RetentionPolicy h2o_fraction{.kind = PolicyKind::h2o,
                               .heavy = Budget{.ppm = 200000, .is_fraction = true},
                               .recent = Budget{.ppm = 100000, .is_fraction = true}};
  RetentionPolicy snapkv{
      .kind = PolicyKind::snapkv, .window = 32, .budget = Budget{.tokens = 1024}};
  std::vector<std::string> v;
  for (const auto& p : {RetentionPolicy{}, streaming, h2o, h2o_fraction, snapkv})
    v.push_back(to_string(p));
  return v;
}

H2oBudget h2o_budget(const RetentionPolicy& p, std::uint64_t n) {
  H2oBudget b{p.heavy.at(n), p.recent.at(n)};
  if (p.heavy.is_fraction && p.recent.is_fraction) {
    const Budget total{.ppm = p.heavy.ppm + p.recent.ppm, .is_fraction = true};
    b.recent = total.at(n) - b.heavy;
  }
  if (b.heavy == 0 && b.recent == 0) b.recent = 1;
  return b;
}

std::uint64_t retained(const RetentionPolicy& p, std::uint64_t n,
                       std::optional<std::uint64_t> prefill) {
  switch (p.kind) {
    case PolicyKind::full:
      return n;
    case PolicyKind::streaming:
      return std::min(n, p.sink + p.window);
    case PolicyKind::h2o: {
      // min(n, heavy + recent) without the sum: keep=1.0 at n near 2^64 must not wrap to 0.
      const H2oBudget b = h2o_budget(p, n);
      if (b.heavy >= n || b.recent >= n - b.heavy) return n;
      return b.heavy + b.recent;
    }
    case PolicyKind::snapkv: {
      if (prefill && n < *prefill) return n;  // the prompt is compressed when prefill ends
      const std::uint64_t prompt = std::min(n, prefill.value_or(n));
      const std::uint64_t budget = std::max<std::uint64_t>(1, p.budget.at(prompt));
      return std::min(prompt, budget) + (n - prompt);
    }
  }
  return n;
}

}  // namespace kvplan
