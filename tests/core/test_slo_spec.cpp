// --slo's KEY=VALUE pairs are read as a deployment file's "slo" object, by its one reader
// (core/src/deploy_slo.hpp): the same keys, bounds and messages.
#include <gtest/gtest.h>

#include <string>

#include "kvplan/deploy.hpp"
#include "kvplan/error.hpp"

namespace kvplan {
namespace {

// --slo reads the deployment file's "slo" keys through the file's reader (deploy-slo.json:
// ttft_p99_ms, tpot_p99_ms, e2e_p99_ms beside concurrency and context).
TEST(SloSpec, TakesTheDeploymentFilesKeys) {
  const Slo s = parse_slo_spec(
      "concurrency=64,context=8k,ttft_p99_ms=2000,tpot_p99_ms=50,"
      "e2e_p99_ms=20000,min_kv_cache_tokens=100000,max_cost_per_hour=9.5");
  EXPECT_EQ(s.concurrency, 64u);
  EXPECT_EQ(s.context, 8000u);
  EXPECT_EQ(s.ttft_p99_ms, 2000);
  EXPECT_EQ(s.tpot_p99_ms, 50);
  EXPECT_EQ(s.e2e_p99_ms, 20000);
  EXPECT_EQ(s.min_kv_cache_tokens, 100000u);
  EXPECT_EQ(s.max_cost_per_hour, 9.5);
  auto error = [](const std::string& spec) {
    try {
      parse_slo_spec(spec);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(error("ttft_p99_ms=0").find("--slo: /ttft_p99_ms: must be between"), std::string::npos)
      << error("ttft_p99_ms=0");
  EXPECT_NE(error("ttft_p99_ms=fast").find("--slo: ttft_p99_ms: expected a number"),
            std::string::npos);
  EXPECT_NE(error("latency_ms=5").find("--slo: /latency_ms: unknown field"), std::string::npos)
      << error("latency_ms=5");
  EXPECT_NE(error("concurrency=2,concurrency=3").find("given twice"), std::string::npos);
}

}  // namespace
}  // namespace kvplan
