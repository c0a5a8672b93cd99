// kvplan check's words and keys (issue 26, item 5): simulated figures are "simulated", --slo takes
// the deployment file's latency keys with --workload, counts agree with their nouns, and a
// failing detail line says what was actually checked.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_run.hpp"
#include "temp_dir.hpp"

namespace kvplan {
namespace {

using test::run_kvplan;

const std::string kRoot = std::string(KVPLAN_TEST_DATA_DIR) + "/../../";

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

std::string detail_of(const std::string& json_out, const std::string& id) {
  const auto j = nlohmann::json::parse(json_out);
  for (const auto& c : j["checks"])
    if (c["id"] == id) return c["detail"].get<std::string>();
  ADD_FAILURE() << "no check " << id << " in " << json_out;
  return "";
}

// The latency figures of deploy-slo.json come from the serving simulator, not a measurement.
TEST(CheckWords, SimulatedLatenciesAreCalledSimulated) {
  const auto r = run_kvplan("check '" + kRoot + "examples/deploy-slo.json'");
  EXPECT_TRUE(has(r.out, "simulated p99 ")) << r.out << r.err;
  EXPECT_FALSE(has(r.out, "measured")) << r.out;
}

// --slo takes the keys of deploy-slo.json's "slo" (ttft_p99_ms, ...), simulated under --workload.
TEST(CheckWords, SloTakesTheLatencyKeysWithAWorkload) {
  const std::string cmd =
      "check --vllm \"vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 "
      "--max-num-seqs 256\" --gpu h100-sxm-80gb --slo concurrency=16,ttft_p99_ms=2000";
  const auto r =
      run_kvplan(cmd + " --workload '" + kRoot + "examples/workload-chat.json' --format json");
  ASSERT_TRUE(r.code == 0 || r.code == 1) << r.err << r.out;
  EXPECT_TRUE(has(detail_of(r.out, "ttft_p99"), "simulated p99 ")) << r.out;
  // Without the workload the limit cannot be judged: exit 2 naming the flag.
  const auto no_workload = run_kvplan(cmd);
  EXPECT_EQ(no_workload.code, 2) << no_workload.out;
  EXPECT_TRUE(has(no_workload.err, "--workload")) << no_workload.err;
  const auto bad = run_kvplan(cmd + ",ttft_p99_ms=1");
  EXPECT_EQ(bad.code, 2);
  EXPECT_TRUE(has(bad.err, "--slo: ttft_p99_ms: given twice")) << bad.err;
}

// The JUnit test case's title of max_num_seqs 1: "admits 1 request", not "1 requests".
TEST(CheckWords, OneRequestIsSingular) {
  const auto r = run_kvplan(
      "check --vllm \"vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 "
      "--max-num-seqs 1\" --gpu h100-sxm-80gb --format junit");
  EXPECT_EQ(r.code, 0) << r.err << r.out;
  EXPECT_TRUE(has(r.out, "the engine admits 1 request (max_num_seqs × replicas)")) << r.out;
  EXPECT_FALSE(has(r.out, " 1 requests")) << r.out;
}

// A command line's deployment is named after its model, "meta-llama/Llama-3.1-8B-Instruct": the
// JUnit classname keeps to [A-Za-z0-9_.] ('/' separates, '-' becomes '_'), as the manifests' do.
TEST(CheckWords, JUnitClassnamesAreSafe) {
  const auto r = run_kvplan(
      "check --vllm \"vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192\" "
      "--gpu h100-sxm-80gb --format junit");
  EXPECT_EQ(r.code, 0) << r.err << r.out;
  EXPECT_TRUE(has(r.out, "classname=\"kvplan.check.meta_llama.Llama_3.1_8B_Instruct\"")) << r.out;
  EXPECT_FALSE(has(r.out, "classname=\"kvplan.check.meta-llama/")) << r.out;
}

// --num-gpu-blocks-override 16 with max_model_len 8192: a request needs 8192 / 16 = 512 blocks of
// 16 tokens and the pool has 16, however much memory is free: the detail says blocks, not bytes.
TEST(CheckWords, TheOverriddenPoolIsDescribedInBlocks) {
  const auto r = run_kvplan(
      "check --vllm \"vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 "
      "--num-gpu-blocks-override 16\" --gpu h100-sxm-80gb --format json");
  EXPECT_EQ(r.code, 1) << r.err << r.out;
  const std::string d = detail_of(r.out, "engine_starts");
  EXPECT_TRUE(has(d,
                  "one request of 8192 tokens needs 512 blocks, the pool has 16 (set by "
                  "num_gpu_blocks_override"))
      << d;
  EXPECT_FALSE(has(d, "is available;")) << d;
}

// TensorRT-LLM with max_attention_window [4096, 131072] on Llama-3.1-8B (32 layers: 16 at each
// window) and max_seq_len 131,072, tokens_per_block 32 (PyTorch backend): a request holds
// 131,072 / 32 = 4,096 blocks in the full window's pool and 4,096 / 32 + 1 = 129 in the 4,096
// window's (calculateMaxBlockRequirementsPerBeam plus kSWAExtraBlock, planner.hpp): 4,225 blocks,
// not the 16 GiB a request would take under full attention. The detail says what is checked.
TEST(CheckWords, TrtllmWindowsAreDescribedInTheirBlocks) {
  test::TempDir dir;
  const std::string yaml = dir.file("w.yaml");
  std::ofstream(yaml) << "kv_cache_config:\n  max_attention_window: [4096, 131072]\n";
  const auto r = run_kvplan(
      "check --trtllm \"trtllm-serve meta-llama/Llama-3.1-8B-Instruct --max_seq_len 131072 "
      "--extra_llm_api_options '" +
      yaml + "'\" --gpu h100-sxm-80gb --format json");
  EXPECT_EQ(r.code, 0) << r.err << r.out;
  const std::string d = detail_of(r.out, "engine_starts");
  EXPECT_TRUE(has(d,
                  "one request of 131072 tokens takes 4225 blocks under max_attention_window "
                  "[4096, 131072]"))
      << d;
  EXPECT_FALSE(has(d, "16.00 GiB")) << d;
}

// A model path on the command line resolves to the preset of its name, and says so.
TEST(CheckWords, AModelPathResolvesByName) {
  const auto r = run_kvplan(
      "check --vllm \"vllm serve /models/Meta-Llama-3.1-8B-Instruct --max-model-len 8192\" "
      "--gpu h100-sxm-80gb");
  EXPECT_EQ(r.code, 0) << r.err << r.out;
  EXPECT_TRUE(has(r.err,
                  "resolved /models/Meta-Llama-3.1-8B-Instruct to preset llama-3.1-8b by "
                  "name"))
      << r.err;
}

}  // namespace
}  // namespace kvplan
