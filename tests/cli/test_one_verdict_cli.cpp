// One deployment, one verdict, through the commands a user runs: the deployment vLLM refuses
// (max_num_batched_tokens 128 < max_num_seqs 256) fails `kvplan check` (exit 1, the
// engine_settings item) and is refused by `kvplan plan` and `kvplan simulate` (exit 2) with the
// same words; the same deployment with 256 batched tokens passes or runs on all three.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "cli_run.hpp"
#include "temp_dir.hpp"

namespace kvplan {
namespace {

using test::run_kvplan;

const std::string kRefusal =
    "128 is less than max_num_seqs 256: vLLM refuses max_num_batched_tokens < "
    "max_num_seqs";
const std::string kWorkload =
    std::string(KVPLAN_TEST_DATA_DIR) + "/../../examples/workload-chat.json";

TEST(OneVerdictCli, TheRefusedDeploymentIsRefusedByEveryCommand) {
  const auto check = run_kvplan(
      "check --vllm 'vllm serve meta-llama/Llama-3.1-8B --max-model-len 8192 "
      "--max-num-batched-tokens 128 --max-num-seqs 256' --gpu h100-sxm-80gb");
  EXPECT_EQ(check.code, 1) << check.out << check.err;
  EXPECT_NE(check.out.find("engine_settings  FAIL"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find(kRefusal), std::string::npos) << check.out;

  // plan states no max_num_seqs outside SLO sizing: vLLM then runs min(1024, 128) = 128
  // sequences (arg_utils.py@99d7eb5d _set_default_args) and starts; so does the plan.
  const auto plan = run_kvplan(
      "plan --model llama-3.1-8b --gpu h100-sxm-80gb --context 8192 --max-num-batched-tokens 128 "
      "--brief");
  EXPECT_EQ(plan.code, 0) << plan.out << plan.err;

  const auto sim = run_kvplan(
      "simulate --model llama-3.1-8b --gpu h100-sxm-80gb --max-model-len 8192 "
      "--max-num-batched-tokens 128 --max-num-seqs 256 --workload " +
      kWorkload);
  EXPECT_EQ(sim.code, 2) << sim.out << sim.err;
  EXPECT_NE(sim.err.find("--max-num-batched-tokens: 128 is less than max_num_seqs 256: vLLM "
                         "refuses max_num_batched_tokens < max_num_seqs"),
            std::string::npos)
      << sim.err;
}

// A start that fails after sizing the KV cache (Qwen3-32B under vLLM 0.25's Model Runner V2 at
// 0.95 on an H100: 4.45 GiB beside the budget where 3.96 is left, EngineMemory.ModelRunnerV2*)
// is refused by every command: check fails engine_starts, simulate refuses to serve it, and plan
// --slo finds no TP that meets the SLO at that fraction with vLLM's 1,024 sequences (at plan's
// own default of 256 the sampler state and warm-up are a quarter, and TP 1 starts).
TEST(OneVerdictCli, AStartThatFailsIsRefusedEverywhere) {
  const auto check = run_kvplan(
      "check --vllm 'vllm serve Qwen/Qwen3-32B --gpu-memory-utilization 0.95' --vllm-version 0.25 "
      "--gpu h100-sxm-80gb");
  EXPECT_EQ(check.code, 1) << check.out << check.err;
  EXPECT_NE(check.out.find("engine_starts    FAIL"), std::string::npos) << check.out;
  const std::string args =
      " --model qwen3-32b --gpu h100-sxm-80gb --engine vllm@0.25 --gpu-memory-utilization 0.95 "
      "--workload " +
      kWorkload;
  const auto sim = run_kvplan("simulate" + args);
  EXPECT_EQ(sim.code, 2) << sim.out << sim.err;
  EXPECT_NE(sim.err.find("the engine does not start"), std::string::npos) << sim.err;
  const auto slo = run_kvplan(
      "plan" + args + " --slo tpot_p99_ms=200 --max-gpus 8 --max-num-seqs 1024 --format json");
  EXPECT_EQ(slo.out.find("\"meets\": true"), std::string::npos) << slo.out;
  EXPECT_NE(slo.out.find("the engine does not start"), std::string::npos) << slo.out;
}

TEST(OneVerdictCli, TheAcceptedDeploymentPassesEveryCommand) {
  const auto check = run_kvplan(
      "check --vllm 'vllm serve meta-llama/Llama-3.1-8B --max-model-len 8192 "
      "--max-num-batched-tokens 256' --gpu h100-sxm-80gb");
  EXPECT_EQ(check.code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("engine_settings  PASS"), std::string::npos) << check.out;
  const auto plan = run_kvplan(
      "plan --model llama-3.1-8b --gpu h100-sxm-80gb --context 8192 --max-num-batched-tokens 256 "
      "--brief");
  EXPECT_EQ(plan.code, 0) << plan.err;
}

// A model file that declares no KV cache (docs/models.md): plan reports vLLM's one block and
// max_num_seqs as the bound, check passes it with the same bound, simulate runs it; SGLang is
// refused by plan and simulate alike, naming the engine.
TEST(OneVerdictCli, AnAttentionFreeModelIsOneBlockEverywhere) {
  test::TempDir dir;
  const std::string model = dir.file("encoder.json");
  std::ofstream(model) << R"({"kvplan_model": 1, "id": "encoder", "source": "test",
    "num_layers": 12, "num_attention_heads": 12, "num_kv_heads": 12, "head_dim": 64,
    "max_context": 512, "num_params": 110000000, "weight_dtype": "bf16",
    "attention": {"type": "none"}})";
  const std::string workload = dir.file("workload.json");
  std::ofstream(workload) << R"({"kvplan_workload": 1, "description": "embeddings",
    "arrival": {"process": "closed", "concurrency": 8, "requests": 40},
    "prompt_tokens": {"dist": "fixed", "mean": 256}, "output_tokens": {"dist": "fixed", "mean": 1}})";
  const auto plan =
      run_kvplan("plan --model " + model + " --gpu h100-sxm-80gb --context 512 --brief");
  EXPECT_EQ(plan.code, 0) << plan.out << plan.err;
  EXPECT_NE(plan.out.find("none (attention-free"), std::string::npos) << plan.out;
  // No page, so no block size; no format or policy changes anything, so no what-if rows.
  const auto json =
      run_kvplan("plan --model " + model + " --gpu h100-sxm-80gb --context 512 --format json");
  EXPECT_EQ(json.code, 0) << json.out << json.err;
  EXPECT_NE(json.out.find("\"block_size\": null"), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"what_if\": []"), std::string::npos) << json.out;
  const auto check = run_kvplan(
      "check --vllm 'vllm serve x --max-model-len 512 --max-num-seqs "
      "64' --model " +
      model + " --gpu h100-sxm-80gb --concurrency 64");
  EXPECT_EQ(check.code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("KV cache: none (attention-free); max_num_seqs 64"), std::string::npos)
      << check.out;
  const auto over = run_kvplan(
      "check --vllm 'vllm serve x --max-model-len 512 --max-num-seqs "
      "64' --model " +
      model + " --gpu h100-sxm-80gb --concurrency 65");
  EXPECT_EQ(over.code, 1) << over.out << over.err;
  // The flag bounds the requests, not the GPUs: the fix raises it.
  EXPECT_NE(over.out.find("set max_num_seqs to 65"), std::string::npos) << over.out;
  EXPECT_EQ(over.out.find("more h100"), std::string::npos) << over.out;
  EXPECT_NE(plan.out.find("SGLang: none (SGLang serving a model without a KV cache"),
            std::string::npos)
      << plan.out;
  const auto sim = run_kvplan("simulate --model " + model +
                              " --gpu h100-sxm-80gb --max-model-len 512 --workload " + workload);
  EXPECT_EQ(sim.code, 0) << sim.out << sim.err;
  EXPECT_NE(sim.out.find("KV pool: none (attention-free"), std::string::npos) << sim.out;
  const auto sim_json = run_kvplan("simulate --model " + model +
                                   " --gpu h100-sxm-80gb --max-model-len 512 --format json "
                                   "--workload " +
                                   workload);
  EXPECT_NE(sim_json.out.find("\"block_size\": null"), std::string::npos) << sim_json.out;
  const auto size = run_kvplan("size --model " + model + " --context 512");
  EXPECT_EQ(size.code, 0) << size.out << size.err;
  EXPECT_NE(size.out.find("none (no attention cache)"), std::string::npos) << size.out;
  EXPECT_NE(sim.out.find("prefix caching off"), std::string::npos) << sim.out;
  const auto disagg = run_kvplan("simulate --model " + model +
                                 " --gpu h100-sxm-80gb --max-model-len 512 --workload " + workload +
                                 " --prefill-replicas 1 --decode-replicas 1");
  EXPECT_EQ(disagg.code, 2) << disagg.out << disagg.err;
  EXPECT_NE(disagg.err.find("disaggregated: a model without a KV cache"), std::string::npos)
      << disagg.err;
  for (const std::string cmd :
       {std::string("plan --context 512"), "simulate --max-model-len 512 --workload " + workload}) {
    const auto r = run_kvplan(cmd + " --engine sglang --model " + model + " --gpu h100-sxm-80gb");
    EXPECT_EQ(r.code, 2) << cmd << r.out << r.err;
    EXPECT_NE(r.err.find("SGLang serving a model without a KV cache"), std::string::npos)
        << cmd << r.err;
  }
}

// One DP-attention server (SGLang --tp 8 --dp 4 --enable-dp-attention --ep-size 4): check reads
// the command line as 4 groups of TP 2 on 8 GPUs, plan gives the same layout from its flags and
// writes that command line back, simulate runs the 4 groups as 4 replicas without being told.
TEST(OneVerdictCli, ADpAttentionServerIsOneLayoutEverywhere) {
  test::TempDir dir;
  const std::string workload = dir.file("workload.json");
  std::ofstream(workload) << R"({"kvplan_workload": 1, "description": "closed loop",
    "arrival": {"process": "closed", "concurrency": 16, "requests": 64},
    "prompt_tokens": {"dist": "fixed", "mean": 512}, "output_tokens": {"dist": "fixed", "mean": 32}})";
  // `cmd` exits with `code` and prints `words` (on standard error when it refuses, exit 2).
  const auto says = [](const std::string& cmd, int code, const std::string& words) {
    const auto r = run_kvplan(cmd);
    EXPECT_EQ(r.code, code) << cmd << "\n" << r.out << r.err;
    EXPECT_NE((code == 2 ? r.err : r.out).find(words), std::string::npos) << cmd << "\n"
                                                                          << r.out << r.err;
  };
  says(
      "check --sglang 'python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tp 8 "
      "--dp 4 --enable-dp-attention --ep-size 4 --context-length 8192' --gpu h200-141gb "
      "--concurrency 64",
      0, "on 8 × h200-141gb, sglang TP 2 × DP attention 4 (MoE EP 4)");
  // kvplan's --gpus runs whole servers of the command line: 16 GPUs are two of them.
  const std::string server =
      "check --sglang 'python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tp 8 "
      "--dp 4 --enable-dp-attention --context-length 8192' --gpu h200-141gb --concurrency 64 "
      "--gpus ";
  says(server + "16", 0, "on 16 × h200-141gb, sglang TP 2 × DP attention 4");
  says(server + "12", 2,
       "12 GPUs are not a whole number of the command line's DP-attention servers");
  const std::string flags =
      " --model qwen3-30b-a3b --gpu h200-141gb --engine sglang --tp 2 --engine-option "
      "attention_dp=4 --engine-option moe_ep_size=4";
  const std::string plan = "plan" + flags + " --context 8192 --concurrency 64 --brief";
  says(plan, 0, "TP 2 × 4 replicas (DP attention: 4 groups a server, MoE over 8 GPUs, EP 4)");
  // 64 requests over 4 groups: 16 a group, 64 for the server (SGLang divides by --dp).
  says(plan, 0,
       "--tp 8 --dp 4 --enable-dp-attention --ep-size 4 --context-length 8192 "
       "--max-running-requests 64");
  const std::string sim = "simulate" + flags + " --max-model-len 8192 --workload " + workload;
  says(sim, 0,
       "(sglang, tp 2, DP attention 4 (MoE layers over 8 GPUs, EP 4), bf16, full), 4 replicas");
  says(sim + " --replicas 2", 2, "2 replicas are not whole DP-attention servers of 4 groups");
  says(
      "plan --model qwen3-30b-a3b --gpu h200-141gb --tp 2 --engine-option attention_dp=4 "
      "--context 8192 --brief",
      2, "vLLM has no DP attention");
  // EP over all 2 × 4 GPUs, whatever the order of the flags.
  says(
      "plan --engine-option moe_ep_size=8 --model qwen3-30b-a3b --gpu h200-141gb --engine sglang "
      "--engine-option attention_dp=4 --tp 2 --context 8192 --brief",
      0, "MoE over 8 GPUs, EP 8");
  // sweep runs the same 4 groups on the same 8 GPUs as simulate.
  says("sweep" + flags + " --max-model-len 8192 --isl 512 --osl 32 --concurrency 16", 0,
       "8 x h200-141gb");
  // plan --slo counts whole servers: 4 groups, 8 GPUs.
  says("plan" + flags + " --context 8192 --workload " + workload +
           " --slo ttft_p99_ms=5000,tpot_p99_ms=100",
       0, "cheapest meeting the SLO: 8 x h200-141gb (TP 2, 4 replicas)");
  // SGLang's --max-running-requests is the server's: 64 over 4 groups runs 16 a group, 64 in all.
  says(
      "check --sglang 'python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tp 8 "
      "--dp 4 --enable-dp-attention --context-length 8192 --max-running-requests 64' --gpu "
      "h200-141gb --concurrency 65",
      1, "max_num_seqs 16 × 4 replicas = 64");
  // TensorRT-LLM's groups are one GPU each; a dense model has no MoE layers to share.
  says(
      "plan --model qwen3-30b-a3b --gpu h200-141gb --engine trtllm --tp 2 --engine-option "
      "attention_dp=4 --context 8192 --brief",
      2, "attention DP runs one GPU a group");
  says(
      "plan --model llama-3.1-8b --gpu h200-141gb --engine sglang --engine-option attention_dp=4 "
      "--context 8192 --brief",
      2, "DP attention needs an MoE model");
}

// Pipeline stages are one layout everywhere: the pool plan counts for TP 2 × PP 2 (vLLM gives
// every stage the fewest blocks of any; SGLang's pool is its stage with the fewest tokens) is
// the pool simulate schedules at the same max_num_seqs (plan's 256); TensorRT-LLM's stages are
// refused by simulate, naming --pp.
TEST(OneVerdictCli, PipelineStagesAreOneLayoutEverywhere) {
  // A short load (SGLang's radix cache is simulated token by token: the chat example's 40,000
  // requests would take half a minute).
  kvplan::test::TempDir dir;
  const std::string workload = dir.file("w.json");
  std::ofstream(workload) << R"({"kvplan_workload": 1, "arrival": "poisson",
    "stages": [{"rate": 2, "duration_s": 10}],
    "prompt_tokens": {"dist": "fixed", "mean": 1000},
    "output_tokens": {"dist": "fixed", "mean": 100}})";
  const std::string sim =
      "simulate --model llama-3.1-70b --gpu h100-sxm-80gb --tp 2 --pp 2 --max-num-seqs 256 "
      "--workload '" +
      workload + "'";
  for (const std::string engine : {"vllm", "sglang"}) {
    SCOPED_TRACE(engine);
    const auto plan = run_kvplan(
        "plan --model llama-3.1-70b --gpu h100-sxm-80gb --tp 2 --pp 2 --context 131072 "
        "--brief --engine " +
        engine);
    ASSERT_EQ(plan.code, 0) << plan.out << plan.err;
    const auto at = plan.out.find("\nnum_gpu_blocks ");
    ASSERT_NE(at, std::string::npos) << plan.out;
    const std::string line = plan.out.substr(at + 1, plan.out.find('\n', at + 1) - at - 1);
    const std::string blocks = line.substr(line.find_last_of(' ') + 1);
    const auto s = run_kvplan(sim + " --engine " + engine);
    ASSERT_EQ(s.code, 0) << s.out << s.err;
    EXPECT_NE(s.out.find("KV pool " + blocks + " blocks"), std::string::npos) << blocks << "\n"
                                                                              << s.out;
    EXPECT_NE(s.out.find("tp 2, pp 2 (micro-batches in flight)"), std::string::npos) << s.out;
  }
  const auto trt = run_kvplan(sim + " --engine trtllm");
  EXPECT_EQ(trt.code, 2) << trt.out << trt.err;
  EXPECT_NE(trt.err.find("pipeline stages for vLLM and SGLang only"), std::string::npos) << trt.err;
}

TEST(OneVerdictCli, AContextBeyondTheModelIsRefusedByEveryCommand) {
  const std::string words = "262144 tokens exceed the 131072 positions of";
  const auto check = run_kvplan(
      "check --vllm 'vllm serve meta-llama/Llama-3.1-8B --max-model-len 262144' --gpu "
      "h100-sxm-80gb");
  EXPECT_EQ(check.code, 1) << check.err;
  EXPECT_NE(check.out.find(words), std::string::npos) << check.out;
  const auto plan =
      run_kvplan("plan --model llama-3.1-8b --gpu h100-sxm-80gb --context 262144 --brief");
  EXPECT_EQ(plan.code, 2);
  EXPECT_NE(plan.err.find(words), std::string::npos) << plan.err;
  const auto sim = run_kvplan(
      "simulate --model llama-3.1-8b --gpu h100-sxm-80gb --max-model-len 262144 --workload " +
      kWorkload);
  EXPECT_EQ(sim.code, 2);
  EXPECT_NE(sim.err.find("--max-model-len: " + words), std::string::npos) << sim.err;
}

}  // namespace
}  // namespace kvplan
