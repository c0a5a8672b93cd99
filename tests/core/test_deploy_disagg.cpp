// A deployment file's "disaggregated" block: parsed (every field named on error), checked (the
// decode side as the deployment's plan, the prefill side's start on its own TP, the cost of every
// GPU) and written back. The simulation of its latency limits is in tests/cli/test_disagg_cli.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

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
  // Every engine's layout is read: TensorRT-LLM's too.
  std::string trtllm = file();
  trtllm.replace(trtllm.find("\"vllm\""), 6, "\"trtllm\"");
  EXPECT_TRUE(parse_deploy_json(trtllm, "d.json").disagg.has_value());
}

// Under SGLang each side runs as its --disaggregation-mode worker (disagg_side): the prefill
// side "prefill", the decode side "decode" (its radix cache then off: pd_disaggregation_hook.py@
// 382343f860c7df8dc43ecefd7902c940d81c99a9); a mode a side's engine keys state stays; vLLM's
// sides carry no SGLang mode.
TEST(DeployDisagg, SglangSidesRunAsTheirDisaggregationMode) {
  std::string text = file();
  text.replace(text.find("\"vllm\""), 6, "\"sglang\"");
  const Deployment d = parse_deploy_json(text, "d.json");
  ASSERT_TRUE(d.disagg.has_value());
  EXPECT_EQ(d.plan.sglang().disaggregation_mode, "null");
  const Deployment p = disagg_side(d, DisaggRole::prefill), q = disagg_side(d, DisaggRole::decode);
  EXPECT_EQ(p.plan.sglang().disaggregation_mode, "prefill");
  EXPECT_EQ(q.plan.sglang().disaggregation_mode, "decode");
  EXPECT_FALSE(sglang_radix_cache_off(p.plan.sglang()));
  EXPECT_TRUE(sglang_radix_cache_off(q.plan.sglang()));
  const Deployment v = parse_deploy_json(file(), "v.json");
  EXPECT_EQ(disagg_side(v, DisaggRole::decode).plan.sglang().disaggregation_mode, "null");
  // A mode the deployment states for both sides contradicts the prefill side's role.
  std::string both_decode = text;
  both_decode.replace(both_decode.find("\"sglang\""), 8,
                      "\"sglang\", \"disaggregation_mode\": \"decode\"");
  try {
    parse_deploy_json(both_decode, "both.json");
    ADD_FAILURE() << "a decode prefill side accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "/disaggregated/prefill/engine/disaggregation_mode");
  }
  std::string bad = text;
  bad.replace(bad.find("\"sglang\""), 8, "\"sglang\", \"disaggregation_mode\": \"both\"");
  try {
    parse_deploy_json(bad, "bad.json");
    ADD_FAILURE() << "both accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "/engine/disaggregation_mode");
  }
}

// Each side's own settings apply to that side alone, over the shared ones (disagg_side), are
// named by their pointers in errors, and are written back where they were read. Llama-3.1-8B's
// bf16 weights, 8.03e9 parameters · 2 bytes = 16.1 GB, do not fit 0.05 of an 80 GB H100 (4 GB):
// the prefill side at that fraction fails to load, the decode side at the default starts.
TEST(DeployDisagg, EachSideTakesItsOwnSettings) {
  const std::string prefill = R"({"replicas": 2, "max_num_batched_tokens": 2048,
      "gpu_memory_utilization": 0.5, "engine": {"async_scheduling": false}})";
  const Deployment d = parse_deploy_json(
      file("llama-3.1-8b", "3", prefill, R"({"replicas": 1, "max_num_seqs": 8})"), "d.json");
  ASSERT_TRUE(d.disagg.has_value());
  EXPECT_EQ(d.disagg->prefill_side.max_num_batched_tokens, 2048u);
  EXPECT_EQ(d.disagg->prefill_side.memory_fraction_ppm, 500000u);
  EXPECT_EQ(d.disagg->prefill_side.engine_options,
            std::vector<std::string>{"async_scheduling=false"});
  EXPECT_EQ(d.disagg->decode_side.max_num_seqs, 8u);
  EXPECT_FALSE(d.max_num_seqs.has_value());  // the shared setting is untouched
  const Deployment p = disagg_side(d, DisaggRole::prefill), q = disagg_side(d, DisaggRole::decode);
  EXPECT_EQ(p.plan.tp, 1u);
  EXPECT_EQ(p.plan.gpus, 2u);
  EXPECT_EQ(p.plan.max_num_batched_tokens, 2048u);
  EXPECT_EQ(p.plan.memory_fraction_ppm, 500000u);
  EXPECT_EQ(p.plan.vllm().async_scheduling, false);
  EXPECT_FALSE(p.max_num_seqs.has_value());
  EXPECT_EQ(q.max_num_seqs, 8u);
  EXPECT_EQ(q.setting_fields.max_num_seqs, "/disaggregated/decode/max_num_seqs");
  EXPECT_EQ(q.plan.memory_fraction_ppm, d.plan.memory_fraction_ppm);
  EXPECT_EQ(q.plan.max_num_batched_tokens, d.plan.max_num_batched_tokens);
  EXPECT_FALSE(q.plan.vllm().async_scheduling.has_value());
  const Deployment again = parse_deploy_json(to_json(d), "again.json");
  ASSERT_TRUE(again.disagg.has_value());
  EXPECT_EQ(again.disagg->prefill_side, d.disagg->prefill_side);
  EXPECT_EQ(again.disagg->decode_side, d.disagg->decode_side);
  // The prefill side at 0.05 of the GPU: its weights do not fit; the decode side's still do.
  const CheckReport r = run_check(parse_deploy_json(
      file("llama-3.1-8b", "3", R"({"replicas": 2, "gpu_memory_utilization": 0.05})"), "d.json"));
  int seen = 0;
  std::string ids;
  for (const auto& i : r.items) {
    ids += i.id + " ";
    if (i.id == "prefill_weights_fit") {
      EXPECT_FALSE(i.passed) << i.detail;
      ++seen;
    }
    if (i.id == "weights_fit") {
      EXPECT_TRUE(i.passed) << i.detail;
      ++seen;
    }
  }
  EXPECT_EQ(seen, 2) << ids;
}

// The prefill side's own settings are checked as the engine takes them: vLLM refuses
// max_num_batched_tokens below max_num_seqs (16 < 256), named by the side's pointer.
TEST(DeployDisagg, ThePrefillSidesSettingsAreChecked) {
  const CheckReport r = run_check(parse_deploy_json(
      file("llama-3.1-8b", "3", R"({"replicas": 2, "max_num_batched_tokens": 16})",
           R"({"replicas": 1})", R"(, "max_num_seqs": 256)"),
      "d.json"));
  int seen = 0;
  for (const auto& i : r.items) {
    if (i.id == "prefill_engine_settings") {
      EXPECT_FALSE(i.passed);
      EXPECT_TRUE(says(i.detail, "/disaggregated/prefill/max_num_batched_tokens")) << i.detail;
      ++seen;
    }
    if (i.id == "engine_settings") {
      EXPECT_TRUE(i.passed) << i.detail;
      ++seen;
    }
  }
  EXPECT_EQ(seen, 2);
}

TEST(DeployDisagg, EachSidesSettingsAreNamedByTheirPointers) {
  const auto err = [](const std::string& prefill, const std::string& decode) {
    return test::error_message(
        [&] { parse_deploy_json(file("llama-3.1-8b", "3", prefill, decode), "d.json"); });
  };
  std::string m = err(R"({"replicas": 2, "engine": {"bogus": 1}})", R"({"replicas": 1})");
  EXPECT_TRUE(says(m, "/disaggregated/prefill/engine/bogus")) << m;
  m = err(R"({"replicas": 2})", R"({"replicas": 1, "max_num_seqs": 0})");
  EXPECT_TRUE(says(m, "/disaggregated/decode/max_num_seqs")) << m;
  m = err(R"({"replicas": 2, "engine": 3})", R"({"replicas": 1})");
  EXPECT_TRUE(says(m, "/disaggregated/prefill/engine") && says(m, "must be an object")) << m;
  m = err(R"({"replicas": 2, "gpu_memory_utilization": 1.5})", R"({"replicas": 1})");
  EXPECT_TRUE(says(m, "/disaggregated/prefill/gpu_memory_utilization")) << m;
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
