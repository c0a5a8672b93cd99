// A plan that misses its target ends with the cheapest change that meets it, as engine flags;
// applied (the vLLM command line, or the deployment file in examples/), it passes kvplan check.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli_run.hpp"
#include "kvplan/gpu.hpp"
#include "kvplan/model.hpp"
#include "kvplan/plan_fix.hpp"
#include "kvplan/planner.hpp"

namespace {

using Run = kvplan::test::CliRun;

const std::string kRoot = std::string(KVPLAN_TEST_DATA_DIR) + "/../../";

Run kvplan(const std::string& args) { return kvplan::test::run_kvplan(args); }

// The quick start's scenario (scripts/quickstart.sh).
const std::string kQuickstart =
    "plan --model llama-3.1-8b --gpu h100-sxm-80gb --context 32768 --concurrency 16";

// By hand, vLLM V1 on one H100 SXM 80GB (CUDA's 79.18 GiB: 85,013,508,915 B), utilization 0.92
// (vLLM's default since vllm-project/vllm#38284), and --max-num-seqs 16 as the plan's launch line
// states it:
//   floor(85,013,508,915 · 0.92)                       = 78,212,428,201
//   − weights 8,030,261,248 params · 2 B (model card)  = 16,060,522,496
//   − activation: 16 sequences, so the forward (8192 · (32 · 128 + 2 · 4096 + 3 · 14336) · 2 B
//     = 905,969,664) peaks over the sampler (9.5 · 16 · 128256 · 4 B + (8192 + 32) · 4096 · 2 B
//     = 145,350,656), + 0.04 GiB fitted (42,949,673)   =    948,919,337
//   − non-torch 0.13 GiB                               =    139,586,437
//   − CUDA graphs 0.58 GiB (vLLM >= 0.20 deducts them) =    622,770,258
//   available                                          = 60,440,629,673
//   bf16 page 16 · 8 · (128 + 128) · 2 = 65,536 B: 60,440,629,673 // 65,536 // 32 = 28,820
//   blocks; 32,768 tokens take 2,048 blocks: (28,820 − 1) // 2,048 = 14 requests < 16.
//   fp8 page 32,768 B: // 32,768 // 32 = 57,640 blocks; (57,640 − 1) // 2,048 = 28 requests.
//   bf16 on 2 GPUs as 2 replicas (8 sequences each, the same terms): 2 · 14 = 28 requests ≥ 16.
TEST(PlanFix, QuickStartIsFp8OnTheSameGpuThenTwoGpusKeepingBf16) {
  const auto model = kvplan::load_model("llama-3.1-8b");
  const auto gpu = kvplan::load_gpu("h100-sxm-80gb");
  kvplan::PlanInput in;
  in.format = kvplan::parse_kv_format("bf16");
  in.context = 32768;
  in.concurrency = 16;
  in.gpu_memory_bytes = gpu.engine_memory_bytes();
  in.gpu_id = gpu.id;
  in.max_num_seqs_is_concurrency = true;
  const auto r = kvplan::make_plan_report(model, gpu, in, {}, true);
  ASSERT_EQ(r.capacity.max_requests, 14u);
  const auto fixes = kvplan::plan_fixes(r);
  ASSERT_EQ(fixes.size(), 2u);
  EXPECT_EQ(fixes[0].kv_dtype, "fp8");
  EXPECT_FALSE(fixes[0].same_format);
  EXPECT_EQ(fixes[0].gpus, 1u);
  EXPECT_EQ(fixes[0].extra_gpus, 0u);
  EXPECT_EQ(fixes[0].max_requests, 28u);
  EXPECT_NE(fixes[0].quality.find("not measured"), std::string::npos) << fixes[0].quality;
  ASSERT_TRUE(fixes[0].vllm.has_value());
  EXPECT_NE(fixes[0].vllm->find("--kv-cache-dtype fp8"), std::string::npos) << *fixes[0].vllm;
  EXPECT_EQ(fixes[1].kv_dtype, "bf16");
  EXPECT_TRUE(fixes[1].same_format);
  EXPECT_EQ(fixes[1].gpus, 2u);
  EXPECT_EQ(fixes[1].extra_gpus, 1u);
  EXPECT_EQ(fixes[1].replicas, 2u);
  EXPECT_EQ(fixes[1].max_requests, 28u);

  // A plan that holds its target has nothing to fix (14 requests fit).
  in.concurrency = 14;
  EXPECT_TRUE(kvplan::plan_fixes(kvplan::make_plan_report(model, gpu, in, {}, true)).empty());
  // At 29 requests fp8 (28) no longer fits one GPU, so every fix takes 2 GPUs, and then keeping
  // bf16 wins: TP 2 shards the weights (8,030,261,248 B per GPU) and the heads (4 per rank):
  //   78,212,428,201 − 8,030,261,248 − activation 8192 · (2048 + 8192 + 21504) · 2 B + 0.04 GiB
  //   (563,043,369) − non-torch 0.55 GiB (590,558,003) − graphs 622,770,258 = 68,405,795,323 B
  //   available per GPU, page 16 · 4 · 256 · 2 = 32,768 B: // 32,768 // 32 = 65,236 blocks,
  //   (65,236 − 1) // 2,048 = 31 ≥ 29.
  // fp8 keeping the plan's layout also takes 2 GPUs (TP 1 × 2 replicas, 15 sequences each, the
  // same terms: 2 · 28 = 56); it changes the format, so it comes after, labelled.
  in.concurrency = 29;
  const auto f28 = kvplan::plan_fixes(kvplan::make_plan_report(model, gpu, in, {}, true));
  ASSERT_EQ(f28.size(), 2u);
  EXPECT_EQ(f28[0].kv_dtype, "bf16");
  EXPECT_TRUE(f28[0].same_format);
  EXPECT_EQ(f28[0].gpus, 2u);
  EXPECT_EQ(f28[0].tp, 2u);
  EXPECT_EQ(f28[0].max_requests, 31u);
  EXPECT_EQ(f28[0].extra_gpus, 1u);
  EXPECT_EQ(f28[1].label, "or, keeping the plan's layout (TP 1)");
  EXPECT_EQ(f28[1].kv_dtype, "fp8");
  EXPECT_TRUE(f28[1].keeps_layout);
  EXPECT_EQ(f28[1].gpus, 2u);
  EXPECT_EQ(f28[1].replicas, 2u);
  EXPECT_EQ(f28[1].max_requests, 56u);
  // With a price the cost says it: 2 GPUs · 2.49 = 4.98 USD/h.
  auto priced = gpu;
  priced.price_per_hour = 2.49;
  const auto fp = kvplan::plan_fixes(kvplan::make_plan_report(model, priced, in, {}, true));
  ASSERT_FALSE(fp.empty());
  EXPECT_DOUBLE_EQ(fp[0].cost_per_hour, 2 * 2.49);
}

TEST(PlanFix, QuickStartReportEndsWithTheFix) {
  const auto r = kvplan(kQuickstart);
  ASSERT_EQ(r.code, 0);
  const auto fix = r.out.rfind("\nFix\n");
  ASSERT_NE(fix, std::string::npos) << r.out;
  // The fix is the last section.
  EXPECT_EQ(r.out.find("\n\n", fix + 1), std::string::npos) << r.out.substr(fix);
  const std::string tail = r.out.substr(fix);
  EXPECT_NE(tail.find("The plan holds 14 of 16 requests of 32,768 tokens"), std::string::npos)
      << tail;
  EXPECT_NE(tail.find("cheapest: KV cache fp8 on the same 1 × h100-sxm-80gb (TP 1 × 1 replica "
                      "on 1 node): holds 28"),
            std::string::npos)
      << tail;
  EXPECT_NE(tail.find("cost: no more GPUs"), std::string::npos) << tail;
  // Without prices the GPUs of the order rank by count: one B200 keeps bf16 (the first 1-GPU
  // row of the order table), and the plan's own H100 keeping bf16 follows, labelled.
  EXPECT_NE(tail.find("or, keeping bf16: 1 × b200 as TP 1 × 1 replica on 1 node, instead of the "
                      "plan's 1 × h100-sxm-80gb"),
            std::string::npos)
      << tail;
  EXPECT_NE(tail.find("or, on the plan's h100-sxm-80gb keeping bf16: 2 × h100-sxm-80gb as TP 1 × "
                      "2 replicas on 1 node"),
            std::string::npos)
      << tail;
  EXPECT_NE(tail.find("prices unknown"), std::string::npos) << tail;
  EXPECT_NE(tail.find("1 more h100-sxm-80gb (2 in all)"), std::string::npos) << tail;
}

// Applied, each fix passes kvplan check: its vLLM command line as is, and the quick start's
// deployment with fp8 (examples/deploy.json); without it the deployment fails (exit 1).
TEST(PlanFix, AppliedFixPassesCheck) {
  const auto r = kvplan(kQuickstart + " --format json");
  ASSERT_EQ(r.code, 0);
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["fixes"].size(), 3u) << r.out;
  for (const auto& f : j["fixes"]) {
    const std::string cmd = f["vllm"].get<std::string>();
    const std::string gpu = f["gpu"].get<std::string>();
    const auto c = kvplan("check --vllm \"" + cmd + "\" --gpu " + gpu + " --concurrency 16");
    EXPECT_EQ(c.code, 0) << cmd << "\n" << c.out;
  }
  EXPECT_EQ(kvplan("check '" + kRoot + "examples/deploy.json'").code, 0);
  const auto before = kvplan("check '" + kRoot + "examples/deploy-fails.json'");
  EXPECT_EQ(before.code, 1);
  EXPECT_NE(before.out.find("fits with --kv-cache-dtype fp8"), std::string::npos) << before.out;
}

TEST(PlanFix, BriefReportsStillEndWithTheFixAndNoneFoundSaysSo) {
  auto r = kvplan(kQuickstart + " --brief");
  ASSERT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("cheapest: KV cache fp8"), std::string::npos) << r.out;
  // 1 GiB of measured KV memory and --brief (no order table, so no GPU type to add): nothing the
  // engine implements holds 16 requests of 32,768 tokens (fp8: 2 GiB each).
  r = kvplan(
      "plan --model llama-3.1-8b --available-kv-gib 1 --context 32768 --concurrency 16 --brief");
  ASSERT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("none found"), std::string::npos) << r.out;
  // With the order table, the Fix looks at its GPUs: one B200 (the first one-GPU row, prices
  // unknown) replaces the measured GPU.
  r = kvplan("plan --model llama-3.1-8b --available-kv-gib 1 --context 32768 --concurrency 16");
  ASSERT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("cheapest: 1 × b200"), std::string::npos) << r.out;
  // A plan that holds its target has no Fix section.
  r = kvplan("plan --model llama-3.1-8b --gpu h100-sxm-80gb --context 32768 --concurrency 13");
  EXPECT_EQ(r.out.find("\nFix\n"), std::string::npos) << r.out;
}

}  // namespace
