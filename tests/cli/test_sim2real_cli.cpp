// kvplan simulate --calibration with the step-time efficiency object (engine_log.hpp): the
// fields reach the simulator, a file without reserve_bytes keeps the default pool, and a bad
// field is refused with exit 2 naming the file and the field.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_run.hpp"
#include "temp_dir.hpp"

namespace {

using Run = kvplan::test::CliRun;

Run kvplan(const std::string& args) { return kvplan::test::run_kvplan(args); }

std::string write(const kvplan::test::TempDir& dir, const std::string& name,
                  const std::string& text) {
  const std::string p = dir.file(name);
  std::ofstream(p) << text;
  return p;
}

// One request every 10 s for 60 s: each runs alone, so its latency is its own steps only.
const char* kWorkload = R"({"kvplan_workload": 1, "arrival": "constant",
  "stages": [{"rate": 0.1, "duration_s": 60}],
  "prompt_tokens": {"dist": "fixed", "mean": 200},
  "output_tokens": {"dist": "fixed", "mean": 32}})";

TEST(Sim2RealCli, CalibrationEfficiencyReachesTheSimulator) {
  kvplan::test::TempDir dir;
  const std::string base =
      "simulate --model llama-3.1-8b --gpu h100-sxm-80gb --max-model-len "
      "4096 --quiet --format json --workload '" +
      write(dir, "w.json", kWorkload) + "'";
  const auto plain = kvplan(base);
  ASSERT_EQ(plain.code, 0) << plain.err;
  // The defaults' front end (7.72 ms) replaced by 1.007720 s: TTFT and E2E each 1000 ms more,
  // the time per output token unchanged; no reserve_bytes: the pool is the default one.
  const auto cal = write(dir, "cal.json", R"({"kvplan_calibration": 1, "engine": "vllm",
    "efficiency": {"frontend_s": 1.00772}})");
  const auto slow = kvplan(base + " --calibration '" + cal + "'");
  ASSERT_EQ(slow.code, 0) << slow.err;
  const auto a = nlohmann::json::parse(plain.out), b = nlohmann::json::parse(slow.out);
  EXPECT_NEAR(
      b["summary"]["ttft_ms"]["mean"].get<double>() - a["summary"]["ttft_ms"]["mean"].get<double>(),
      1000.0, 1e-6);
  EXPECT_NEAR(
      b["summary"]["e2e_ms"]["mean"].get<double>() - a["summary"]["e2e_ms"]["mean"].get<double>(),
      1000.0, 1e-6);
  EXPECT_DOUBLE_EQ(b["summary"]["tpot_ms"]["mean"].get<double>(),
                   a["summary"]["tpot_ms"]["mean"].get<double>());
  EXPECT_EQ(b["num_gpu_blocks"], a["num_gpu_blocks"]);

  // A reserve-only file (kvplan explain --calibrate's) still sets the pool: 10 GiB more
  // reserve than the default 2 GiB leaves fewer blocks, and the latencies are the defaults'.
  const auto res = write(dir, "res.json", R"({"kvplan_calibration": 1, "engine": "vllm",
    "reserve_bytes": 12884901888})");
  const auto small = kvplan(base + " --calibration '" + res + "'");
  ASSERT_EQ(small.code, 0) << small.err;
  const auto c = nlohmann::json::parse(small.out);
  EXPECT_LT(c["num_gpu_blocks"].get<std::uint64_t>(), a["num_gpu_blocks"].get<std::uint64_t>());
  EXPECT_DOUBLE_EQ(c["summary"]["tpot_ms"]["mean"].get<double>(),
                   a["summary"]["tpot_ms"]["mean"].get<double>());

  const auto bad = write(dir, "bad.json", R"({"kvplan_calibration": 1, "engine": "vllm",
    "efficiency": {"memory": 1.5}})");
  const auto refused = kvplan(base + " --calibration '" + bad + "'");
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.err.find("bad.json"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("/efficiency/memory"), std::string::npos) << refused.err;
}

}  // namespace
