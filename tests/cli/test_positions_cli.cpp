// The longest request vLLM accepts, through `kvplan check`: Qwen3-32B at 65,536 tokens needs
// YaRN (its config states 40,960 positions); with --rope-scaling (YaRN 4 over 32,768) vLLM
// derives 131,072 and starts (issue 26).
#include <gtest/gtest.h>

#include <string>

#include "cli_run.hpp"

namespace kvplan {
namespace {

using test::run_kvplan;

const std::string kServe =
    "vllm serve Qwen/Qwen3-32B --tensor-parallel-size 2 --max-model-len 65536";
const std::string kYarn =
    R"({\"rope_type\":\"yarn\",\"factor\":4.0,\"original_max_position_embeddings\":32768})";

TEST(PositionsCli, WithoutRopeScalingVllmRefuses) {
  const auto r = run_kvplan("check --vllm \"" + kServe + "\" --gpu h100-sxm-80gb");
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("65536 tokens exceed the 40960 positions of Qwen/Qwen3-32B "
                       "(max_position_embeddings 40960)"),
            std::string::npos)
      << r.out;
}

TEST(PositionsCli, RopeScalingOnTheCommandLineIsRead) {
  const auto r = run_kvplan("check --vllm \"" + kServe + " --rope-scaling '" + kYarn +
                            "'\" --gpu h100-sxm-80gb");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("131072 (rope_scaling yarn: original_max_position_embeddings 32768 × "
                       "factor 4 (--rope-scaling))"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("unknown flag --rope-scaling"), std::string::npos) << r.out;
  // The same through --hf-overrides.
  const auto h =
      run_kvplan("check --vllm \"" + kServe + " --hf-overrides '{\\\"rope_scaling\\\":" + kYarn +
                 "}'\" --gpu h100-sxm-80gb");
  EXPECT_EQ(h.code, 0) << h.out << h.err;
}

TEST(PositionsCli, BadJsonIsAnInputError) {
  const auto r =
      run_kvplan("check --vllm \"" + kServe + " --rope-scaling '{yarn'\" --gpu h100-sxm-80gb");
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--rope-scaling"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("expects a JSON object"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace kvplan
