// Retention policies: how many tokens a sequence keeps per layer and per KV head.
//
// Spec strings (ARCHITECTURE.md): full, streaming:sink=4,window=1020, h2o:heavy=N,recent=M,
// h2o:keep=0.2,recent=0.1 (fractions of the sequence), snapkv:budget=N,window=32,kernel=7,pool=max.
// Shared by score-based policies: gqa=sum|mean|max, positions=original|cache.
// Budgets count the current token. Fractions are parsed as exact decimals (parts per million), so
// budget(n) = floor(n · ppm / 1e6) has no floating-point rounding.
//
//   retained(parse_policy("streaming:sink=4,window=1020"), 8192) == 1024
//   retained(parse_policy("h2o:keep=0.2,recent=0.1"), 1000) == 300
//   retained(parse_policy("snapkv:budget=1024"), 8192) == 1024   // prompt compressed once
//   retained(parse_policy("snapkv:budget=1024"), 8192, 8000) == 1024 + 192  // decode appends
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kvplan {

enum class PolicyKind { full, streaming, h2o, snapkv };
enum class GqaReduce { sum, mean, max };
enum class PositionMode { original, cache };
enum class PoolKind { max, avg };

// A count of tokens, either absolute or a fraction of the sequence length in parts per million.
struct Budget {
  std::uint64_t tokens = 0;
  std::uint32_t ppm = 0;  // used when is_fraction
  bool is_fraction = false;
  std::uint64_t at(std::uint64_t n) const;  // tokens for a sequence of n tokens (floor)
  bool operator==(const Budget&) const = default;
};

struct RetentionPolicy {
  PolicyKind kind = PolicyKind::full;
  // streaming
  std::uint64_t sink = 4;
  std::uint64_t window = 1020;  // streaming: recent window; snapkv: observation window (32)
  // h2o
  Budget heavy{};
  Budget recent{};
  // snapkv
  Budget budget{};
  std::uint32_t kernel = 7;
  PoolKind pool = PoolKind::max;
  // score-based options
  GqaReduce gqa = GqaReduce::sum;
  PositionMode positions = PositionMode::original;

  bool operator==(const RetentionPolicy&) const = default;
};

RetentionPolicy parse_policy(std::string_view spec, const std::string& source = "--policy",
                             const std::string& field = "policy");
std::string to_string(const RetentionPolicy& policy);

// The spellings the reports print, for help texts: one example of each policy as to_string
// writes it (h2o in tokens and in fractions): full, streaming:sink=4,window=1020,
// h2o:heavy=128,recent=896, h2o:keep=0.2,recent=0.1,
// snapkv:budget=1024,window=32,kernel=7,pool=max. Each parses with parse_policy and prints back
// the same.
std::vector<std::string> policy_spellings();

// Tokens kept (per layer, per KV head) for a sequence of n tokens, n >= 0. `prefill` is the
// prompt length for SnapKV (compresses once at the end of prefill, decode tokens are appended);
// it defaults to n, and while n < prefill the prompt is not yet compressed (n tokens).
// Never exceeds n.
std::uint64_t retained(const RetentionPolicy& policy, std::uint64_t n,
                       std::optional<std::uint64_t> prefill = std::nullopt);

// H2O's split of its budget at sequence length n into heavy hitters and recent tokens. When both
// are fractions the total is floor((keep + recent) · n), so the budget grows by at most one token
// per step, as a cache that receives one token per step can follow; heavy = floor(keep · n) and
// recent takes the rest. At least one token (the current one) is kept.
struct H2oBudget {
  std::uint64_t heavy = 0;
  std::uint64_t recent = 0;
};
H2oBudget h2o_budget(const RetentionPolicy& policy, std::uint64_t n);

// True when the policy never evicts (full).
inline bool is_full(const RetentionPolicy& p) { return p.kind == PolicyKind::full; }

}  // namespace kvplan
