// A trace replay spread over worker threads (ReplayOptions::threads: layer l on worker
// l mod workers) must give the same results, bit for bit, as one thread: every per-layer sum sees
// the same operations in the same order, and the bytes of a step are summed in layer order.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "kvplan/sim/replay.hpp"
#include "kvplan/sim/synth.hpp"
#include "temp_dir.hpp"

namespace kvplan::sim {
namespace {

// Bitwise equality of doubles (NaN included).
bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void expect_same(const ReplayReport& a, const ReplayReport& b, const std::string& what) {
  ASSERT_EQ(a.configs.size(), b.configs.size()) << what;
  for (std::size_t i = 0; i < a.configs.size(); ++i) {
    const ConfigResult &x = a.configs[i], &y = b.configs[i];
    SCOPED_TRACE(what + ": " + x.label);
    EXPECT_EQ(x.label, y.label);
    EXPECT_EQ(x.steps, y.steps);
    EXPECT_EQ(x.predicted_bytes, y.predicted_bytes);
    EXPECT_EQ(x.measured_bytes, y.measured_bytes);
    EXPECT_EQ(x.predicted_peak_bytes, y.predicted_peak_bytes);
    EXPECT_EQ(x.measured_peak_bytes, y.measured_peak_bytes);
    EXPECT_EQ(x.bytes_match, y.bytes_match);
    EXPECT_EQ(x.first_mismatch_step, y.first_mismatch_step);
    EXPECT_EQ(x.retained_tokens, y.retained_tokens);
    EXPECT_TRUE(same_bits(x.rel_error, y.rel_error)) << x.rel_error << " vs " << y.rel_error;
    EXPECT_TRUE(same_bits(x.attention_mass, y.attention_mass));
    ASSERT_EQ(x.layer_rel_error.size(), y.layer_rel_error.size());
    for (std::size_t l = 0; l < x.layer_rel_error.size(); ++l) {
      EXPECT_TRUE(same_bits(x.layer_rel_error[l], y.layer_rel_error[l])) << "layer " << l;
      EXPECT_TRUE(same_bits(x.layer_mass[l], y.layer_mass[l])) << "layer " << l;
    }
  }
}

// 3 layers (so 2 workers get an uneven share), 150 tokens (three 64-step chunks, the last
// partial), four query / two KV heads, d 32; configurations through every kernel path the replay
// has: plain and quantized caches, eviction by position, by score and at the prefill.
TEST(ReplayThreads, AnyThreadCountGivesTheSameResultsAsOne) {
  test::TempDir dir;
  SynthOptions o;
  o.tokens = 150;
  o.layers = 3;
  o.q_heads = 4;
  o.kv_heads = 2;
  o.head_dim = 32;
  const std::string path = dir.file("t.safetensors");
  write_synthetic_trace(path, o);
  const auto trace = TraceFile::open(path);
  std::vector<ReplayConfig> cfgs;
  for (const auto& [f, p] : std::vector<std::pair<std::string, std::string>>{
           {"fp16", "full"},
           {"int8", "streaming:sink=4,window=28"},
           {"fp8", "h2o:heavy=16,recent=16"},
           {"kivi:bits=2,group=16,residual=32", "h2o:heavy=16,recent=16,positions=cache"},
           {"fp16", "snapkv:budget=32,window=8"}})
    cfgs.push_back(parse_config(f, p, 16));
  ReplayOptions opt;
  opt.fidelity_every = 3;
  opt.threads = 1;
  std::vector<std::uint64_t> seen;
  opt.progress = [&](std::uint64_t done, std::uint64_t total) {
    EXPECT_EQ(total, 150u);
    seen.push_back(done);
  };
  const ReplayReport one = replay_trace(trace, cfgs, opt);
  ASSERT_EQ(seen.size(), 150u);  // every step reported once, in order
  for (std::size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], i + 1);
  opt.progress = nullptr;
  for (std::uint32_t threads : {2u, 3u, 8u}) {  // 8: capped at the 3 layers
    opt.threads = threads;
    expect_same(one, replay_trace(trace, cfgs, opt), std::to_string(threads) + " threads");
  }
  // The fidelity figures are measured, not empty: the check above compares numbers.
  EXPECT_FALSE(std::isnan(one.configs[1].rel_error));
  EXPECT_GT(one.configs[1].rel_error, 0.0);
}

}  // namespace
}  // namespace kvplan::sim
