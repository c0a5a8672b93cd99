// A deployment file's "disaggregated" block: parsed (every field named on error), checked (the
// decode side as the deployment's plan, the prefill side's start on its own TP, the cost of every
// GPU) and written back. The simulation of its latency limits is in tests/cli/test_disagg_cli.cpp.
#include <gtest/gtest.h>

#include <string>

#include "error_message.hpp"
#include "kvplan/deploy.hpp"
#include "kvplan/error.hpp"

namespace kvplan {
namespace {

// Llama-3.1-8B on H100s: 2 prefill replicas of TP 1, 1 decode replica of TP 1, over ndr400.
std::string file(const std::string& model = "llama-3.1-8b", const std::string& gpus = "3",
                 const std::string& prefill = R"({"replicas": 2, "tensor_parallel_size": 1})",
                 const std::string& decode = R"({"replicas": 1})", const std::string& extra = "") {
  return R"({"kvplan_deploy": 1, "model": ")" + model +
         R"(", "hardware": {"gpu": "h100-sxm-80gb", "gpus": )" + gpus +
         R"(, "price_per_hour": 2}, "engine": {"name": "vllm", "max_model_len": 8192)" + extra +
         R"(}, "disaggregated": {"prefill": )" + prefill + R"(, "decode": )" + decode +
         R"(, "kv_link": "ndr400"}, "slo": {"concurrency": 4, "max_cost_per_hour": 100}})";
}

bool says(const std::string& m, const std::string& what) {
  return m.find(what) != std::string::npos;
}

TEST(DeployDisagg, TheDecodeSideIsThePlanAndEveryGpuIsCounted) {
  const Deployment d = parse_deploy_json(file(), "d.json");
  ASSERT_TRUE(d.disagg.has_value());
  EXPECT_EQ(d.disagg->prefill_replicas, 2u);
  EXPECT_EQ(d.disagg->prefill_tp, 1u);
  EXPECT_EQ(d.disagg->decode_replicas, 1u);
  EXPECT_EQ(d.disagg->decode_tp, 1u);  // engine.tensor_parallel_size's default, 1
  EXPECT_EQ(d.disagg->kv_link, "ndr400");
  EXPECT_EQ(d.disagg->routing, "round_robin");
  EXPECT_EQ(d.plan.tp, 1u);
  EXPECT_EQ(d.plan.gpus, 1u);  // the decode replica's
  EXPECT_EQ(deployment_gpus(d), 3u);
  const CheckReport r = run_check(d);
  bool prefill_starts = false, cost = false;
  for (const auto& i : r.items) {
    if (i.id == "prefill_engine_starts") prefill_starts = i.passed;
    // 3 GPUs at $2/h: $6/h, not the decode side's $2/h.
    if (i.id == "cost") cost = i.passed && says(i.detail, "3 × h100-sxm-80gb at $2.00/h = $6.00/h");
  }
  EXPECT_TRUE(prefill_starts);
  EXPECT_TRUE(cost);
}

// Llama-3.1-70B's bf16 weights, 70.6e9 parameters · 2 bytes = 141 GB, do not fit one 80 GB H100;
// at TP 4 each GPU holds a quarter. Prefill TP 1 fails to load, decode TP 4 starts.
TEST(DeployDisagg, EachSideStartsOnItsOwnTp) {
  const Deployment d =
      parse_deploy_json(file("llama-3.1-70b", "5", R"({"replicas": 1, "tensor_parallel_size": 1})",
                             R"({"replicas": 1, "tensor_parallel_size": 4})"),
                        "d.json");
  EXPECT_EQ(d.plan.tp, 4u);
  EXPECT_EQ(deployment_gpus(d), 5u);
  const CheckReport r = run_check(d);
  int seen = 0;
  for (const auto& i : r.items) {
    if (i.id == "weights_fit") {
      EXPECT_TRUE(i.passed) << i.detail;
      ++seen;
    }
    if (i.id == "prefill_weights_fit") {
      EXPECT_FALSE(i.passed) << i.detail;
      EXPECT_TRUE(says(i.title, "prefill side")) << i.title;
      ++seen;
    }
  }
  EXPECT_EQ(seen, 2);
  EXPECT_FALSE(r.passed());
}

TEST(DeployDisagg, BadLayoutsNameTheirField) {
  auto err = [](const std::string& text) {
    return test::error_message([&] { parse_deploy_json(text, "d.json"); });
  };
  std::string m = err(file("llama-3.1-8b", "4"));
  EXPECT_TRUE(says(m, "/hardware/gpus") && says(m, "takes 3 GPUs (2 prefill + 1 decode), got 4"))
      << m;
  // TP 3 does not divide Llama-3.1-8B's 32 heads (2 · 3 + 1 = 7 GPUs, so the count holds).
  m = err(file("llama-3.1-8b", "7", R"({"replicas": 2, "tensor_parallel_size": 3})"));
  EXPECT_TRUE(says(m, "/disaggregated/prefill/tensor_parallel_size")) << m;
  m = err(file("llama-3.1-8b", "3", R"({"replicas": 0})"));
  EXPECT_TRUE(says(m, "/disaggregated/prefill/replicas")) << m;
  m = err(file("llama-3.1-8b", "3", R"({"replicas": 2, "tp": 1})"));
  EXPECT_TRUE(says(m, "/disaggregated/prefill/tp")) << m;
  // A link the file's GPU cannot have is refused when the file is read, not when it is simulated.
  std::string link = file();
  link.replace(link.find("ndr400"), 6, "infiniband");
  m = err(link);
  EXPECT_TRUE(says(m, "/disaggregated/kv_link") && says(m, "neither a link")) << m;
  std::string trtllm = file();
  trtllm.replace(trtllm.find("\"vllm\""), 6, "\"trtllm\"");
  m = err(trtllm);
  EXPECT_TRUE(says(m, "/disaggregated") && says(m, "trtllm's is not")) << m;
}

TEST(DeployDisagg, WrittenBackAsRead) {
  const Deployment d = parse_deploy_json(file(), "d.json");
  const Deployment again = parse_deploy_json(to_json(d), "again.json");
  ASSERT_TRUE(again.disagg.has_value());
  EXPECT_EQ(again.disagg->prefill_replicas, 2u);
  EXPECT_EQ(again.disagg->decode_replicas, 1u);
  EXPECT_EQ(again.disagg->kv_link, "ndr400");
  EXPECT_EQ(deployment_gpus(again), 3u);
  EXPECT_EQ(again.plan.gpus, d.plan.gpus);
}

}  // namespace
}  // namespace kvplan
