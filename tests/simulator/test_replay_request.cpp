// sim::run_replay, the one replay entry point of `kvplan replay` and the GUI's replay runner: how
// a request expands into configurations (positions=cache twins on traces), that it runs what
// replay_trace runs, and that the CLI's JSON is the library's JSON for the same trace.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>

#include "kvplan/error.hpp"
#include "kvplan/sim/replay.hpp"
#include "kvplan/sim/synth.hpp"
#include "temp_dir.hpp"

namespace kvplan::sim {
namespace {

// The JSON without its one timing-dependent line.
std::string without_timing(const std::string& json) {
  std::istringstream in(json);
  std::string line, out;
  while (std::getline(in, line))
    if (line.find("\"tokens_per_second\"") == std::string::npos) out += line + "\n";
  return out;
}

// A small synthetic trace: 2 layers, 8 query / 2 KV heads, d 64, 96 tokens.
std::string small_trace(const test::TempDir& dir) {
  SynthOptions o;
  o.tokens = 96;
  const std::string path = dir.file("t.safetensors");
  write_synthetic_trace(path, o);
  return path;
}

TEST(ReplayRequest, TracesGetAPositionsCacheTwinRightAfterEachScoredPolicy) {
  ReplayRequest r;
  r.trace = "unread.safetensors";  // expand_configs reads no file
  r.configs = {{"fp16", "full", 16},
               {"fp16", "streaming:sink=4,window=28", 16},
               {"int8", "h2o:heavy=8,recent=8,positions=original", 7}};
  const auto c = expand_configs(r);
  // full has no twin; streaming gets one; h2o names its positions, so it has none.
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[0].policy.kind, PolicyKind::full);
  EXPECT_EQ(c[1].policy.kind, PolicyKind::streaming);
  EXPECT_EQ(c[1].policy.positions, PositionMode::original);
  EXPECT_EQ(c[2].policy.kind, PolicyKind::streaming);
  EXPECT_EQ(c[2].policy.positions, PositionMode::cache);
  EXPECT_EQ(c[2].policy.window, 28u);
  EXPECT_EQ(c[3].policy.kind, PolicyKind::h2o);
  EXPECT_EQ(c[3].policy.positions, PositionMode::original);
  EXPECT_EQ(c[3].block_size, 7u);
  EXPECT_EQ(c[3].format.dtype, KvDtype::int8);

  r.positions_twins = false;
  EXPECT_EQ(expand_configs(r).size(), 3u);
  // The model in the loop positions keys as the model does: no twins.
  r.positions_twins = true;
  r.trace.clear();
  r.checkpoint = "model.bin";
  EXPECT_EQ(expand_configs(r).size(), 3u);
}

TEST(ReplayRequest, AutoFidelityStrideIsAbout256ScoredSteps) {
  EXPECT_EQ(auto_fidelity_every(96), 1u);     // 96 / 256 = 0 -> every step
  EXPECT_EQ(auto_fidelity_every(4096), 16u);  // 4096 / 256
  EXPECT_EQ(auto_fidelity_every(5000), 19u);  // floor(5000 / 256) = 19
}

TEST(ReplayRequest, BadRequestsThrowNamingTheField) {
  ReplayRequest r;
  r.configs = {{"fp16", "full", 16}};
  try {
    run_replay(r);
    FAIL() << "no source accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "trace");
  }
  r.trace = "a.safetensors";
  r.checkpoint = "b.bin";
  EXPECT_THROW(run_replay(r), Error);
  r.checkpoint.clear();
  r.configs.clear();
  try {
    run_replay(r);
    FAIL() << "no configuration accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "configs");
  }
  r.configs = {{"fp16", "streaming:sink=4,windw=28", 16}};
  EXPECT_THROW(run_replay(r), Error);
}

TEST(ReplayRequest, RunsWhatReplayTraceRuns) {
  test::TempDir dir;
  ReplayRequest r;
  r.trace = small_trace(dir);
  r.configs = {{"fp16", "full", 16},
               {"kivi:bits=2,group=8,residual=16", "h2o:heavy=8,recent=8", 5}};
  r.eval_from = 8;
  const ReplayReport a = run_replay(r);
  ASSERT_EQ(a.configs.size(), 3u);  // full, h2o, h2o positions=cache
  const auto trace = TraceFile::open(r.trace);
  const ReplayReport b = replay_trace(trace, expand_configs(r), {.eval_from = 8});
  EXPECT_EQ(without_timing(render(a, OutputFormat::json)),
            without_timing(render(b, OutputFormat::json)));
}

TEST(ReplayRequest, CliJsonIsTheLibraryJson) {
  const std::filesystem::path exe = std::filesystem::path(KVPLAN_BINARY_DIR) / "cli" / "kvplan";
  if (!std::filesystem::exists(exe)) GTEST_SKIP() << "the kvplan CLI is not built at " << exe;
  test::TempDir dir;
  ReplayRequest r;
  r.trace = small_trace(dir);
  r.configs = {{"fp16", "full", 16},
               {"fp16", "streaming:sink=4,window=28", 16},
               {"int8", "full", 16},
               {"int8", "streaming:sink=4,window=28", 16}};
  r.eval_from = 4;
  const std::string cmd = exe.string() + " replay -q --trace " + r.trace +
                          " --kv-dtype fp16 int8 --policy full streaming:sink=4,window=28"
                          " --eval-from 4 --format json";
  std::FILE* p = ::popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string cli;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) cli.append(buf, n);
  ASSERT_EQ(::pclose(p), 0) << cli;
  const std::string lib = render(run_replay(r), OutputFormat::json);
  EXPECT_NE(lib.find("positions=cache"), std::string::npos) << "the twins ran";
  EXPECT_EQ(without_timing(cli), without_timing(lib));
}

}  // namespace
}  // namespace kvplan::sim
