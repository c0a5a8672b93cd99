// kvplan sweep end to end: the same deployment flags as simulate, closed-loop clients at each
// concurrency, one row a point in every format, the chart as SVG; bad input exits 2 naming the
// flag or the file. The sweep's numbers against a hand-worked timeline are in
// tests/simulator/test_sweep.cpp.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_run.hpp"
#include "temp_dir.hpp"

namespace {

bool has(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

const std::string kBase =
    "sweep --model llama-3.1-8b --gpu h100-sxm-80gb --max-model-len 4096 --isl 256 --osl 32 ";

TEST(SweepCli, OneRowAPointWithTheSimulatedLatencies) {
  const auto r = kvplan::test::run_kvplan(kBase +
                                          "--concurrency 1,4,16 --requests-per-client 2 "
                                          "--slo tpot_p99_ms=1000 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["points"].size(), 3u);
  EXPECT_EQ(j["gpus"], 1);
  EXPECT_EQ(j["slo_tokens_per_s_per_user"], 1.0);
  const int clients[] = {1, 4, 16};
  for (std::size_t k = 0; k < 3; ++k) {
    const auto& p = j["points"][k];
    EXPECT_EQ(p["concurrency"], clients[k]);
    EXPECT_EQ(p["requests"], 2 * p["concurrency"].get<int>());
    EXPECT_EQ(p["refused"], 0);
    EXPECT_EQ(p["meets_slo"], true);
    // Every point's per-user speed is 1000 / its mean TPOT, its per-GPU rate the whole rate.
    EXPECT_NEAR(p["tokens_per_s_per_user"].get<double>(), 1000 / p["tpot_ms"]["mean"].get<double>(),
                1e-9);
    EXPECT_EQ(p["tokens_per_s_per_gpu"], p["output_tokens_per_s"]);
  }
  // More clients share each step: the per-user speed falls, the throughput rises.
  EXPECT_GT(j["points"][0]["tokens_per_s_per_user"], j["points"][2]["tokens_per_s_per_user"]);
  EXPECT_LT(j["points"][0]["tokens_per_s_per_gpu"], j["points"][2]["tokens_per_s_per_gpu"]);
}

TEST(SweepCli, TheChartIsWrittenAndTheTableNamesTheKnee) {
  kvplan::test::TempDir dir;
  const std::string svg = dir.file("sweep.svg");
  const auto r = kvplan::test::run_kvplan(kBase + "--tp 2 --concurrency 1-8 --svg '" + svg + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "on 2 x h100-sxm-80gb")) << r.out;
  EXPECT_TRUE(has(r.out, "tok/s/GPU")) << r.out;
  std::ifstream f(svg);
  std::stringstream text;
  text << f.rdbuf();
  EXPECT_EQ(text.str().rfind("<svg ", 0), 0u);
  EXPECT_TRUE(has(text.str(), "output tokens/s per GPU"));
}

// --gpu and --engine lists: each GPU on each engine, one table.
TEST(SweepCli, SeveralDeploymentsInOneTable) {
  const auto r = kvplan::test::run_kvplan(
      "sweep --model llama-3.1-8b --gpu h100-sxm-80gb,b200 --engine vllm,sglang --max-model-len "
      "4096 --isl 256 --osl 32 --concurrency 1,2 --requests-per-client 1 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 4u);
  EXPECT_EQ(j[0]["gpu"], "h100-sxm-80gb");
  EXPECT_EQ(j[0]["engine"], "vllm");
  EXPECT_EQ(j[1]["engine"], "sglang");
  EXPECT_EQ(j[3]["gpu"], "b200");
  const auto bad = kvplan::test::run_kvplan(
      "sweep --model llama-3.1-8b --gpu h100-sxm-80gb,nope --isl 256 --osl 32 --concurrency 1");
  EXPECT_EQ(bad.code, 2);
  EXPECT_TRUE(has(bad.err, "nope")) << bad.err;
}

TEST(SweepCli, BadInputNamesTheFlagOrTheFile) {
  kvplan::test::TempDir dir;
  const std::string trace = dir.file("t.csv");
  std::ofstream(trace) << "arrival_s,prompt_tokens,output_tokens\n0,10,5\n";
  const std::string model_only =
      "sweep --model llama-3.1-8b --gpu h100-sxm-80gb --max-model-len 4096 --concurrency 1,2 ";
  for (const auto& [args, name] : std::vector<std::pair<std::string, std::string>>{
           {model_only, "--isl"},
           {model_only + "--isl 100", "--isl"},
           {model_only + "--workload '" + trace + "'", "t.csv"},
           {model_only + "--workload '" + trace + "' --isl 5 --osl 5", "--workload"},
           {kBase + "--concurrency 4,2", "--concurrency"},
           {kBase + "--concurrency 0-8", "--concurrency"},
           {kBase + "--concurrency 1 --requests-per-client 0", "--requests-per-client"},
           {kBase + "--concurrency 1 --range-ratio 1.5", "range_ratio"},
           {kBase + "--concurrency 1 --svg '" + trace + "' --workload '" + trace + "'", "--svg"},
       }) {
    const auto r = kvplan::test::run_kvplan(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
    EXPECT_TRUE(has(r.err, name)) << args << "\n" << r.err;
  }
}

}  // namespace
