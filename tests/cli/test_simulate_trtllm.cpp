// kvplan simulate --engine trtllm end to end: TensorRT-LLM's scheduler runs with its defaults
// (GUARANTEED_NO_EVICT, max_batch_size 2048, max_num_tokens 8192, chunked context off, blocks of
// 32 tokens), its flags reach the report, and bad or misplaced TensorRT-LLM flags exit 2 naming
// the flag. The timelines themselves are in tests/simulator/test_serving_trtllm.cpp.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "cli_run.hpp"
#include "temp_dir.hpp"

namespace {

bool has(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

// 5 s of Poisson arrivals at 2/s, prompts of 100..400 tokens, 16..64 outputs.
const char* kWorkload = R"({"kvplan_workload": 1, "arrival": "poisson",
  "stages": [{"rate": 2, "duration_s": 5}],
  "prompt_tokens": {"dist": "uniform", "min": 100, "max": 400},
  "output_tokens": {"dist": "uniform", "min": 16, "max": 64}})";

class SimulateTrtllm : public ::testing::Test {
 protected:
  kvplan::test::TempDir dir;
  std::string workload = [this] {
    const std::string p = dir.file("w.json");
    std::ofstream(p) << kWorkload;
    return p;
  }();
  std::string base =
      "simulate --model llama-3.1-8b --gpu h100-sxm-80gb --max-model-len 4096 "
      "--workload '" +
      workload + "' ";
};

TEST_F(SimulateTrtllm, RunsWithTensorRtLlmDefaults) {
  const auto r = kvplan::test::run_kvplan(base + "--engine trtllm --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["engine"], "trtllm");
  EXPECT_EQ(j["block_size"], 32);
  EXPECT_EQ(j["config"]["capacity_scheduler_policy"], "GUARANTEED_NO_EVICT");
  EXPECT_EQ(j["config"]["enable_chunked_context"], false);
  EXPECT_EQ(j["config"]["max_num_seqs"], 2048);
  EXPECT_EQ(j["config"]["max_num_batched_tokens"], 8192);
  EXPECT_EQ(j["config"]["enable_prefix_caching"], false);
  EXPECT_GT(j["summary"]["requests"].get<int>(), 0);
  EXPECT_TRUE(
      has(r.err, "note: TensorRT-LLM's KV cache reuse is not modelled: simulated without it"))
      << r.err;
}

TEST_F(SimulateTrtllm, FlagsReachTheScheduler) {
  const auto r = kvplan::test::run_kvplan(
      base +
      "--engine trtllm --capacity-scheduler-policy max_utilization "
      "--enable-chunked-context --max-batch-size 64 --max-num-tokens 2048 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["config"]["capacity_scheduler_policy"], "MAX_UTILIZATION");
  EXPECT_EQ(j["config"]["enable_chunked_context"], true);
  EXPECT_EQ(j["config"]["max_num_seqs"], 64);
  EXPECT_EQ(j["config"]["max_num_batched_tokens"], 2048);
  const auto t = kvplan::test::run_kvplan(base + "--engine trtllm --max-num-seqs 16");
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_TRUE(has(t.out, "capacity_scheduler_policy GUARANTEED_NO_EVICT, max_batch_size 16"))
      << t.out;
}

TEST_F(SimulateTrtllm, BadFlagsExit2NamingTheFlag) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--engine trtllm --capacity-scheduler-policy static_batch", "--capacity-scheduler-policy"},
      {"--engine trtllm --capacity-scheduler-policy", "capacity-scheduler-policy"},
      {"--capacity-scheduler-policy max_utilization", "--capacity-scheduler-policy"},
      {"--engine sglang --enable-chunked-context", "--enable-chunked-context"},
      {"--max-batch-size 8", "--max-batch-size"},
      {"--engine trtllm --max-batch-size 0", "--max-batch-size"},
      {"--engine trtllm --max-batch-size 8 --max-num-seqs 8", "--max-batch-size"},
      {"--engine trtllm --max-num-tokens 0", "--max-num-tokens"},
      {"--engine trtllm --max-num-tokens 64 --max-num-batched-tokens 64", "--max-num-tokens"},
      {"--engine trtllm --enable-prefix-caching", "enable_prefix_caching"},
  };
  for (const auto& [flags, name] : cases) {
    const auto r = kvplan::test::run_kvplan(base + flags);
    EXPECT_EQ(r.code, 2) << flags << "\n" << r.out << r.err;
    EXPECT_TRUE(has(r.err, name)) << flags << ": " << r.err;
  }
}

}  // namespace
