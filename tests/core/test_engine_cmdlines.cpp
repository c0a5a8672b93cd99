// Engine command lines read the way the engines read them: one row per misreading found in
// real deployment recipes (issue 13). Expected values are the engines' own rules, cited per row:
// argparse keeps the last of a repeated flag; `vllm serve MODEL` serves the positional
// (vllm/entrypoints/cli/serve.py: model_tag); vLLM's human_readable_int (vllm/engine/arg_utils.py:
// k = 10^3, K = 2^10); SGLang's --enable-dp-attention splits --tp (server_args.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kvplan/deploy.hpp"
#include "kvplan/engine_args.hpp"
#include "kvplan/error.hpp"
#include "kvplan/formula.hpp"
#include "kvplan/gpu.hpp"
#include "kvplan/model.hpp"
#include "kvplan/planner.hpp"
#include "temp_dir.hpp"

namespace kvplan {
namespace {

EngineArgs vllm(const std::string& line) {
  return parse_engine_command(Engine::vllm, line, "--vllm");
}
EngineArgs sglang(const std::string& line) {
  return parse_engine_command(Engine::sglang, line, "--sglang");
}
EngineArgs trtllm(const std::string& line) {
  return parse_engine_command(Engine::trtllm, line, "--trtllm");
}
const std::string kConfigs = std::string(KVPLAN_TEST_DATA_DIR) + "/engine_configs/";
// Qwen3-Next-80B-A3B at TP 4 and 32,768 tokens under trtllm-serve with one of tests/data's
// LLM-API files.
EngineArgs qwen3_next_trtllm(const std::string& file) {
  return trtllm(
      "trtllm-serve Qwen/Qwen3-Next-80B-A3B-Instruct --tp_size 4 --max_seq_len 32768 --config " +
      kConfigs + file);
}
// A `vllm serve` line as a deployment on one H100 SXM, and its capacity.
Deployment h100_vllm(const std::string& line) {
  return deploy_from_engine(vllm(line), load_gpu("h100-sxm-80gb"), 0, "", "--vllm");
}
Capacity capacity_of(const Deployment& d) { return plan_capacity(d.model, d.plan); }

TEST(EngineCmdlines, RepeatedFlagKeepsTheLastValue) {
  const auto a = vllm(
      "vllm serve m --max-model-len 4096 --max-model-len 8192 --dtype float16 "
      "--dtype bfloat16");
  EXPECT_EQ(a.max_model_len.value_or(0), 8192u);
  EXPECT_EQ(a.weight_dtype.value_or(""), "bf16");
}

TEST(EngineCmdlines, PositionalModelWinsOverModelFlag) {
  const auto a = vllm("vllm serve Qwen/Qwen3-8B --model meta-llama/Llama-3.1-8B");
  EXPECT_EQ(a.model, "Qwen/Qwen3-8B");
}

TEST(EngineCmdlines, HumanSizes) {
  EXPECT_EQ(vllm("vllm serve m --max-model-len 128k").max_model_len.value_or(0), 128000u);
  EXPECT_EQ(vllm("vllm serve m --max-model-len 32K").max_model_len.value_or(0), 32768u);
  EXPECT_EQ(vllm("vllm serve m --max-model-len 25.6k").max_model_len.value_or(0), 25600u);
  EXPECT_THROW(vllm("vllm serve m --max-model-len 1.5K"), Error);  // decimals only with k/m/g/t
  EXPECT_TRUE(vllm("vllm serve m --max-model-len auto").max_model_len_auto);
  EXPECT_TRUE(vllm("vllm serve m --max-model-len -1").max_model_len_auto);
  // --kv-cache-memory-bytes 40G = 40 · 2^30 bytes, the exact KV memory per GPU.
  EXPECT_EQ(vllm("vllm serve m --kv-cache-memory-bytes 40G").kv_cache_memory_bytes.value_or(0),
            40ull << 30);
}

TEST(EngineCmdlines, SglangChunkedPrefillOffAndMultiValueFlags) {
  const auto a = sglang(
      "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --chunked-prefill-size -1 "
      "--cuda-graph-bs 8 16 32 --tp 2");
  EXPECT_FALSE(a.max_num_batched_tokens.has_value());
  EXPECT_TRUE(a.unknown.empty()) << a.unknown.front();  // 8 16 32 are not stray positionals
  EXPECT_EQ(a.tp.value_or(0), 2u);
}

TEST(EngineCmdlines, DockerRunAndEnvironmentPrefixes) {
  const auto a = vllm(
      "HF_TOKEN=x docker run --gpus all -p 8000:8000 --ipc=host -e VLLM_LOGGING_LEVEL=INFO "
      "vllm/vllm-openai:latest --model Qwen/Qwen3-8B --max-model-len 16384");
  EXPECT_EQ(a.model, "Qwen/Qwen3-8B");
  EXPECT_EQ(a.max_model_len.value_or(0), 16384u);
  const auto b = vllm("docker run --rm vllm/vllm-openai Qwen/Qwen3-8B --tensor-parallel-size 2");
  EXPECT_EQ(b.model, "Qwen/Qwen3-8B");
  EXPECT_EQ(b.tp.value_or(0), 2u);
}

// An image's tag names the release whose rules apply (vllm/vllm-openai publishes v<version> tags).
TEST(EngineCmdlines, ImageTagsNameTheRelease) {
  EXPECT_EQ(image_release("vllm/vllm-openai:v0.25.1"), std::optional<std::string>("0.25.1"));
  EXPECT_EQ(image_release("docker.io/vllm/vllm-openai:0.10.2rc1"),
            std::optional<std::string>("0.10.2"));
  EXPECT_EQ(image_release("localhost:5000/vllm-openai:v0.9.2@sha256:abcd"),
            std::optional<std::string>("0.9.2"));
  for (const char* none : {"vllm/vllm-openai", "vllm/vllm-openai:latest", "localhost:5000/vllm",
                           "vllm/vllm-openai:nightly-2026", "vllm/vllm-openai@sha256:0123"})
    EXPECT_FALSE(image_release(none).has_value()) << none;
  // docker run's image picks vllm@0.25 (Model Runner V2 for a dense model); a release without
  // rules of its own keeps the current ones, saying so.
  const GpuSpec h100 = load_gpu("h100-sxm-80gb");
  const Deployment d = deploy_from_engine(
      vllm("docker run --gpus all vllm/vllm-openai:v0.25.1 --model Qwen/Qwen3-32B"), h100, 0, "",
      "--vllm");
  EXPECT_EQ(d.plan.vllm().rules, VllmRules::v0_25);
  const Deployment later = deploy_from_engine(
      vllm("docker run --gpus all vllm/vllm-openai:v0.27.0 --model Qwen/Qwen3-32B"), h100, 0, "",
      "--vllm");
  EXPECT_EQ(later.plan.vllm().rules, VllmRules::current);
  bool said = false;
  for (const auto& w : later.warnings)
    said |= w.find("0.27.0 has no rule set") != std::string::npos;
  EXPECT_TRUE(said);
  // Another repository's tag is its own version (LMCache's image): no release is read from it.
  const Deployment lm = deploy_from_engine(
      vllm("docker run --gpus all lmcache/vllm-openai:v0.10.1 --model Qwen/Qwen3-32B"), h100, 0, "",
      "--vllm");
  EXPECT_EQ(lm.plan.vllm().rules, VllmRules::current);
  const Deployment mirror = deploy_from_engine(
      vllm("docker run --gpus all registry.example:5000/vllm/vllm-openai:v0.25.1 --model "
           "Qwen/Qwen3-32B"),
      h100, 0, "", "--vllm");
  EXPECT_EQ(mirror.plan.vllm().rules, VllmRules::v0_25);
}

// VLLM_USE_V2_MODEL_RUNNER (vllm/envs.py; vllm/config/vllm.py use_v2_model_runner: unset = the
// release's default, else 0 or 1) before the command or as docker's -e selects the model runner,
// whose memory differs (docs/engine-memory.md "Model Runner V2").
TEST(EngineCmdlines, ModelRunnerFromTheEnvironment) {
  EXPECT_EQ(vllm("VLLM_USE_V2_MODEL_RUNNER=1 vllm serve Qwen/Qwen3-32B").model_runner_v2,
            std::optional<bool>(true));
  EXPECT_EQ(vllm("docker run -e VLLM_USE_V2_MODEL_RUNNER=0 vllm/vllm-openai Qwen/Qwen3-8B")
                .model_runner_v2,
            std::optional<bool>(false));
  EXPECT_FALSE(vllm("vllm serve Qwen/Qwen3-8B").model_runner_v2.has_value());
  // docker's --env=VAR=value and -e=VAR=value forms are the same assignment (LMCache's too).
  const auto eq = vllm(
      "docker run --env=VLLM_USE_V2_MODEL_RUNNER=0 -e=LMCACHE_MAX_LOCAL_CPU_SIZE=500 "
      "vllm/vllm-openai Qwen/Qwen3-8B");
  EXPECT_EQ(eq.model_runner_v2, std::optional<bool>(false));
  EXPECT_EQ(eq.host_tiers.lmcache_cpu_gib, std::optional<double>(500.0));
  // -e VAR alone passes the host's value, which the line does not show: refused, not assumed.
  EXPECT_THROW(vllm("docker run -e VLLM_USE_V2_MODEL_RUNNER vllm/vllm-openai Qwen/Qwen3-8B"),
               Error);
  try {
    vllm("VLLM_USE_V2_MODEL_RUNNER=yes vllm serve Qwen/Qwen3-8B");
    ADD_FAILURE() << "VLLM_USE_V2_MODEL_RUNNER=yes was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "VLLM_USE_V2_MODEL_RUNNER");
    EXPECT_EQ(e.exit_code(), 2);
  }
  // The deployment it describes carries the runner.
  const Deployment d =
      deploy_from_engine(vllm("VLLM_USE_V2_MODEL_RUNNER=0 vllm serve Qwen/Qwen3-32B"),
                         load_gpu("h100-sxm-80gb"), 0, "", "--vllm");
  EXPECT_EQ(d.plan.vllm().model_runner, VllmOptions::ModelRunner::v1);
}

TEST(EngineCmdlines, DockerImagesRunTheirEntrypointOrTheCommandAfterThem) {
  // Another image running `vllm serve` reads as vllm serve (MODEL positional).
  const auto a = vllm("docker run --rm my/image:1 vllm serve Qwen/Qwen3-8B --max-model-len 4096");
  EXPECT_EQ(a.model, "Qwen/Qwen3-8B");
  EXPECT_EQ(a.max_model_len.value_or(0), 4096u);
  // The program by its path, or vLLM's module through python, after another image: the same.
  for (const char* line :
       {"docker run --rm my/image:1 /usr/local/bin/vllm serve Qwen/Qwen3-8B --max-model-len 4096",
        "docker run --rm my/image:1 python3 -m vllm.entrypoints.openai.api_server --model "
        "Qwen/Qwen3-8B --max-model-len 4096"}) {
    const auto p = vllm(line);
    EXPECT_EQ(p.model, "Qwen/Qwen3-8B") << line;
    EXPECT_EQ(p.max_model_len.value_or(0), 4096u) << line;
  }
  // An image that is not vLLM's and runs no vllm: refused, naming the image.
  try {
    vllm("docker run --rm my/image:1 --model Qwen/Qwen3-8B");
    ADD_FAILURE() << "a foreign image was read as vLLM's";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("docker image \"my/image:1\" is not"), std::string::npos)
        << e.what();
    EXPECT_EQ(e.exit_code(), 2);
  }
  // SGLang's image runs the command that follows it; trtllm-serve's and `sglang serve` too.
  const auto s = sglang(
      "docker run --gpus all lmsysorg/sglang:latest sglang serve --model-path "
      "Qwen/Qwen3-8B --tp 2");
  EXPECT_EQ(s.model, "Qwen/Qwen3-8B");
  EXPECT_EQ(s.tp.value_or(0), 2u);
  const auto t = parse_engine_command(
      Engine::trtllm, "/usr/local/bin/trtllm-serve serve Qwen/Qwen3-8B --tp_size 2", "cmd");
  EXPECT_EQ(t.model, "Qwen/Qwen3-8B");
  EXPECT_EQ(t.tp.value_or(0), 2u);
  // A module the engine does not start from is named.
  try {
    sglang("python3 -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3-8B");
    ADD_FAILURE() << "vLLM's module read as SGLang's";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unexpected module"), std::string::npos) << e.what();
  }
}

TEST(EngineCmdlines, SglangDpAttentionSplitsTheTpGroup) {
  // --tp 8 --dp 8 --enable-dp-attention runs on 8 GPUs: 8 attention groups of TP 1.
  const auto gpu = load_gpu("h200-141gb");
  const auto a = sglang(
      "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --dp 8 "
      "--enable-dp-attention --context-length 32768");
  const auto d = deploy_from_engine(a, gpu, 0, "", "--sglang");
  EXPECT_EQ(d.plan.gpus, 8u);
  EXPECT_EQ(d.plan.tp, 1u);
  EXPECT_TRUE(d.plan.expert_parallel);
  // Without DP attention the same flags are 64 GPUs of 8 replicas.
  const auto b = sglang(
      "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --dp 8 "
      "--context-length 32768");
  EXPECT_EQ(deploy_from_engine(b, gpu, 0, "", "--sglang").plan.gpus, 64u);
}

TEST(EngineCmdlines, ExpertParallelWithDataParallel) {
  const auto gpu = load_gpu("h200-141gb");
  const auto ep = vllm(
      "vllm serve Qwen/Qwen3-30B-A3B --data-parallel-size 4 --enable-expert-parallel "
      "--max-model-len 32768");
  const auto dp =
      vllm("vllm serve Qwen/Qwen3-30B-A3B --data-parallel-size 4 --max-model-len 32768");
  const auto a = deploy_from_engine(ep, gpu, 0, "", "--vllm");
  const auto b = deploy_from_engine(dp, gpu, 0, "", "--vllm");
  EXPECT_EQ(a.plan.gpus, 4u);
  EXPECT_TRUE(a.plan.expert_parallel);
  EXPECT_FALSE(b.plan.expert_parallel);
  // Qwen3-30B-A3B's routed experts (config.json: 48 layers, 128 experts, hidden 2048,
  // moe_intermediate_size 768, bf16): 48 x 128 x 3 x 2048 x 768 x 2 B = 57,982,058,496 B.
  const auto m = load_model("qwen3-30b-a3b");
  const std::uint64_t experts = m.weights.expert_bytes, rest = m.weight_bytes() - experts;
  EXPECT_EQ(experts, 57982058496u);
  // The 4 DP ranks run the MoE layers as one group of 4 GPUs, whole experts with
  // --enable-expert-parallel and sharded over the 4 without it (FusedMoEParallelConfig.make: "TP
  // = 1, DP = 2 and EP = False ... the tensors are sharded across 2 devices",
  // vllm/model_executor/layers/fused_moe/config.py@002d6073): a quarter of them a GPU either
  // way, the rest whole.
  EXPECT_EQ(memory_budget(a.model, a.plan).weight_bytes, rest + (experts + 3) / 4);
  EXPECT_EQ(memory_budget(b.model, b.plan).weight_bytes, rest + (experts + 3) / 4);
  // A line without --data-parallel-size is one engine of TP 1: on 4 GPUs it runs 4 servers, each
  // with every expert, EP or not (its EP group is its TP group of one GPU).
  for (const char* line : {"vllm serve Qwen/Qwen3-30B-A3B --enable-expert-parallel",
                           "vllm serve Qwen/Qwen3-30B-A3B"}) {
    const auto apart = deploy_from_engine(vllm(line), gpu, 4, "", "--vllm");
    EXPECT_EQ(apart.plan.gpus, 4u) << line;
    EXPECT_EQ(memory_budget(apart.model, apart.plan).weight_bytes, m.weight_bytes()) << line;
  }
}

// vLLM cuts each expert of an fp8 block-quantized checkpoint over the GPUs of its MoE layers and
// refuses a piece that is not whole 128 x 128 blocks (Fp8MoEMethod.create_weights,
// vllm/model_executor/layers/quantization/fp8.py@1436674b). Qwen3-235B-A22B-FP8's experts are
// 1,536 wide (config.json moe_intermediate_size, weight_block_size [128, 128]): TP 8 leaves 192,
// the failure of vllm-project/vllm#17569; TP 4 leaves 384 = 3 x 128 and starts (InferenceX runs
// it at TP 2 and 4, or at TP 8 with expert parallelism). MiniMax-M2.7 (intermediate_size 1,536, the
// same blocks) fails the same way at TP 8, as a public vLLM 0.19.0 run on A100s logged ("TP=8
// failed ... output_size of gate's and up's weight = 192 is not divisible by weight quantization
// block_n = 128"). DeepSeek-V3's 2,048 stay whole blocks at TP 16 (128) but not over TP 8 x DP 4
// (64) without EP.
TEST(EngineCmdlines, FpEightBlocksMustSurviveTheExpertCut) {
  const auto gpu = load_gpu("h200-141gb");
  const auto refusals = [&](const std::string& line, std::uint32_t gpus = 0) {
    return engine_refusals(deploy_from_engine(vllm(line), gpu, gpus, "", "--vllm"));
  };
  const auto tp8 = refusals("vllm serve Qwen/Qwen3-235B-A22B-FP8 --tensor-parallel-size 8");
  ASSERT_EQ(tp8.size(), 1u);
  EXPECT_EQ(tp8[0].field, "--tensor-parallel-size");
  EXPECT_NE(tp8[0].message.find("The output_size of gate's and up's weight = 192 is not "
                                "divisible by weight quantization block_n = 128"),
            std::string::npos)
      << tp8[0].message;
  EXPECT_NE(tp8[0].fix.find("--enable-expert-parallel"), std::string::npos) << tp8[0].fix;
  EXPECT_TRUE(refusals("vllm serve Qwen/Qwen3-235B-A22B-FP8 --tensor-parallel-size 4").empty());
  EXPECT_TRUE(refusals("vllm serve Qwen/Qwen3-235B-A22B-FP8 --tensor-parallel-size 8 "
                       "--enable-expert-parallel")
                  .empty());
  // DP without EP cuts over TP x DP: 1536 / (4 x 2) = 192 again; two servers of TP 4 do not.
  const auto dp = refusals(
      "vllm serve Qwen/Qwen3-235B-A22B-FP8 --tensor-parallel-size 4 --data-parallel-size 2");
  ASSERT_EQ(dp.size(), 1u);
  EXPECT_NE(dp[0].message.find("TP 4 × DP 2"), std::string::npos) << dp[0].message;
  EXPECT_TRUE(refusals("vllm serve Qwen/Qwen3-235B-A22B-FP8 --tensor-parallel-size 4", 8).empty());
  EXPECT_EQ(refusals("vllm serve MiniMaxAI/MiniMax-M2.7 --tensor-parallel-size 8").size(), 1u);
  EXPECT_TRUE(refusals("vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 16").empty());
  const auto ds = refusals(
      "vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 8 --data-parallel-size 4");
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_NE(ds[0].message.find("= 64 is not divisible"), std::string::npos) << ds[0].message;
  // A bf16 checkpoint has no blocks to keep whole.
  EXPECT_TRUE(refusals("vllm serve Qwen/Qwen3-235B-A22B --tensor-parallel-size 8").empty());
  // Expert parallelism keeps the routed experts whole, but DeepSeek-V3's shared expert (one MLP
  // of n_shared_experts 1 x 2,048 columns) is a RowParallelLinear over the TP group: 2048 / 32 =
  // 64 (validate_fp8_block_shape, quantization/utils/fp8_utils.py@364d0192), and no fix is EP.
  const auto shared = refusals(
      "vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 32 --enable-expert-parallel");
  ASSERT_EQ(shared.size(), 1u);
  EXPECT_NE(shared[0].message.find("Weight input_size_per_partition = 64 is not divisible by "
                                   "weight quantization block_k = 128"),
            std::string::npos)
      << shared[0].message;
  EXPECT_NE(shared[0].message.find("shared experts are 2048 columns wide"), std::string::npos)
      << shared[0].message;
  EXPECT_EQ(shared[0].fix.find("--enable-expert-parallel"), std::string::npos) << shared[0].fix;
  // Without EP at TP 32 the routed experts fail first, and EP is no fix there: the shared expert
  // would still be cut into 64 columns. The fix says so.
  const auto both = refusals("vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 32");
  ASSERT_EQ(both.size(), 1u);
  EXPECT_NE(both[0].message.find("The output_size of gate's and up's weight = 64"),
            std::string::npos)
      << both[0].message;
  EXPECT_EQ(both[0].fix.find("a tensor parallelism that leaves 2048 / TP a multiple of 128"), 0u)
      << both[0].fix;
  EXPECT_NE(both[0].fix.find("with expert parallelism vLLM still refuses"), std::string::npos)
      << both[0].fix;
  // Its three dense layers (intermediate_size 18,432) are whole blocks at TP 16 (1,152 = 9 x 128).
  EXPECT_TRUE(
      refusals(
          "vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 16 --enable-expert-parallel")
          .empty());
}

TEST(EngineCmdlines, DtypeNeverDoublesAQuantizedCheckpoint) {
  const auto gpu = load_gpu("h100-sxm-80gb");
  const auto a =
      vllm("vllm serve Qwen/Qwen3-235B-A22B-FP8 --dtype bfloat16 --tensor-parallel-size 8");
  const auto d = deploy_from_engine(a, gpu, 0, "", "--vllm");
  const auto m = load_model("qwen3-235b-a22b-fp8");
  EXPECT_EQ(memory_budget(d.model, d.plan).weight_bytes, (m.weight_bytes() + 7) / 8);
}

TEST(EngineCmdlines, KvCacheMemoryBytesSkipsTheMemoryModel) {
  const auto gpu = load_gpu("h100-sxm-80gb");
  const auto a = vllm(
      "vllm serve meta-llama/Llama-3.1-8B --kv-cache-memory-bytes 40G "
      "--max-model-len 32768");
  const auto d = deploy_from_engine(a, gpu, 0, "", "--vllm");
  const auto c = plan_capacity(d.model, d.plan);
  // 40 GiB // 65,536 B page // 32 layers = 20,480 blocks (bf16 as fp16: 2 bytes)
  EXPECT_TRUE(c.memory.measured);
  EXPECT_EQ(c.num_gpu_blocks, 20480u);
}

TEST(EngineCmdlines, NumGpuBlocksOverride) {
  const auto gpu = load_gpu("h100-sxm-80gb");
  const auto a = vllm(
      "vllm serve meta-llama/Llama-3.1-8B --num-gpu-blocks-override 1000 "
      "--max-model-len 8192");
  const auto d = deploy_from_engine(a, gpu, 0, "", "--vllm");
  const auto c = plan_capacity(d.model, d.plan);
  EXPECT_EQ(c.num_gpu_blocks, 1000u);
  EXPECT_EQ(c.max_requests, 1000u / (8192 / 16));  // 1 request of 512 blocks
}

TEST(EngineCmdlines, MaxModelLenAutoFitsTheMemory) {
  // 4 GiB of KV memory: 4 GiB // 65,536 // 32 = 2,048 blocks; auto-fit plans without the null
  // block (vLLM kv_cache_planning.py get_kv_cache_configs, PR #47272): 2,047 · 16 = 32,752.
  const auto gpu = load_gpu("h100-sxm-80gb");
  const auto a = vllm(
      "vllm serve meta-llama/Llama-3.1-8B --max-model-len auto "
      "--kv-cache-memory-bytes 4G");
  const auto d = deploy_from_engine(a, gpu, 0, "", "--vllm");
  EXPECT_EQ(d.plan.context, 32752u);
}

TEST(EngineCmdlines, UnmodelledMemoryFlagsAreNamed) {
  const auto a = vllm("vllm serve m --enable-lora --max-loras 4 --max-lora-rank 64");
  ASSERT_GE(a.not_modelled.size(), 3u);
  EXPECT_EQ(a.not_modelled[0], "--enable-lora");
  EXPECT_TRUE(a.unknown.empty());
}

// SGLang's pipeline micro-batch flags change what the simulator runs (its defaults: pp
// micro-batches of max(max_running_requests // pp, 1)): named as not modelled, not unknown.
TEST(EngineCmdlines, SglangMicroBatchFlagsAreNamed) {
  const auto a = sglang(
      "python -m sglang.launch_server --model-path m --pp-size 2 --pp-max-micro-batch-size 8 "
      "--pp-async-batch-depth 1");
  EXPECT_TRUE(a.unknown.empty());
  const auto named = [&](const std::string& flag) {
    return std::any_of(a.not_modelled.begin(), a.not_modelled.end(),
                       [&](const std::string& n) { return n.find(flag) != std::string::npos; });
  };
  EXPECT_TRUE(named("--pp-max-micro-batch-size"));
  EXPECT_TRUE(named("--pp-async-batch-depth"));
}

// --scheduler-recv-interval is read into the plan (the serving simulator runs it), written back
// on SGLang's launch line; --stream-interval is named as ignored (it batches the tokens a stream
// sends after its first: TTFT and the mean TPOT do not move). 0 and 1 both mean every loop
// (SchedulerRecvSkipper.maybe_create: none at <= 1); a negative interval is refused.
TEST(EngineCmdlines, SglangReceiveIntervalIsTheSchedulers) {
  const auto a = sglang(
      "python -m sglang.launch_server --model-path openai/gpt-oss-120b "
      "--scheduler-recv-interval 30 --stream-interval 30");
  EXPECT_TRUE(a.unknown.empty());
  EXPECT_TRUE(a.not_modelled.empty());
  EXPECT_EQ(a.scheduler_recv_interval.value_or(0), 30u);
  EXPECT_TRUE(std::any_of(a.ignored.begin(), a.ignored.end(), [](const std::string& s) {
    return s.find("--stream-interval") != std::string::npos;
  }));
  PlanInput p;
  apply_engine_pool_args(a, p, "--sglang");
  EXPECT_EQ(p.sglang().scheduler_recv_interval, 30u);
  const auto d = deploy_from_engine(a, load_gpu("h200-141gb"), 0, "", "--sglang");
  EXPECT_EQ(d.plan.sglang().scheduler_recv_interval, 30u);
  PlanInput zero;
  apply_engine_pool_args(
      sglang("python -m sglang.launch_server --model-path m --scheduler-recv-interval 0"), zero,
      "--sglang");
  EXPECT_EQ(zero.sglang().scheduler_recv_interval, 1u);
  EXPECT_THROW(sglang("python -m sglang.launch_server --model-path m --scheduler-recv-interval -1"),
               Error);
  // Beside DP attention that SGLang does not start (SchedulerRecvSkipper.__init__ asserts not
  // enable_dp_attention, scheduler_recv_skipper.py@70310f05): refused, naming the setting.
  const std::string dp =
      "python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tp 2 --dp 2 "
      "--enable-dp-attention";
  try {
    deploy_from_engine(sglang(dp + " --scheduler-recv-interval 30"), load_gpu("h100-sxm-80gb"), 0,
                       "", "--sglang");
    ADD_FAILURE() << "a receive interval beside DP attention was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("scheduler_recv_interval"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(deploy_from_engine(sglang(dp + " --scheduler-recv-interval 1"),
                                     load_gpu("h100-sxm-80gb"), 0, "", "--sglang"));
}

// SGLang's overlap scheduler (Scheduler.enable_overlap = not disable_overlap_schedule,
// scheduler.py@0003215cf1464f44b389cd0b18d0b4c56f2a3da6) is on by default and off under pipeline
// stages (server_args.py _handle_pipeline_parallelism) or with --disable-overlap-schedule, which
// a command line, a deployment file and the launch line carry alike.
TEST(EngineCmdlines, SglangOverlapSchedulerIsOnUnlessDisabled) {
  const auto on = sglang("python -m sglang.launch_server --model-path Qwen/Qwen3-32B");
  const auto d_on = deploy_from_engine(on, load_gpu("h100-sxm-80gb"), 0, "", "--sglang");
  EXPECT_FALSE(d_on.plan.sglang().disable_overlap_schedule);
  EXPECT_TRUE(engine_rules(d_on.plan).async_scheduling_default(d_on.plan));
  const auto off = sglang(
      "python -m sglang.launch_server --model-path Qwen/Qwen3-32B --disable-overlap-schedule");
  EXPECT_TRUE(off.unknown.empty());
  EXPECT_TRUE(off.not_modelled.empty());
  const auto d = deploy_from_engine(off, load_gpu("h100-sxm-80gb"), 0, "", "--sglang");
  EXPECT_TRUE(d.plan.sglang().disable_overlap_schedule);
  EXPECT_FALSE(engine_rules(d.plan).async_scheduling_default(d.plan));
  const auto line = engine_rules(d.plan).launch_line(d.model, d.plan, nullptr);
  ASSERT_TRUE(line.has_value());
  EXPECT_NE(line->find(" --disable-overlap-schedule"), std::string::npos) << *line;
  EXPECT_TRUE(sglang(*line).disable_overlap_schedule);
  const auto d_line = engine_rules(d_on.plan).launch_line(d_on.model, d_on.plan, nullptr);
  ASSERT_TRUE(d_line.has_value());
  EXPECT_EQ(d_line->find("overlap"), std::string::npos) << *d_line;
  // --mamba-ssm-dtype travels with it: read from the command line, written back on the launch
  // line (a Qwen3.5 deployment at bfloat16 states is not one at float32).
  const auto gdn = deploy_from_engine(
      sglang(
          "python -m sglang.launch_server --model-path Qwen/Qwen3-32B --mamba-ssm-dtype bfloat16"),
      load_gpu("h100-sxm-80gb"), 0, "", "--sglang");
  EXPECT_EQ(gdn.plan.ssm_state_dtype, std::optional<KvDtype>(KvDtype::bf16));
  const auto gdn_line = engine_rules(gdn.plan).launch_line(gdn.model, gdn.plan, nullptr);
  ASSERT_TRUE(gdn_line.has_value());
  EXPECT_NE(gdn_line->find(" --mamba-ssm-dtype bfloat16"), std::string::npos) << *gdn_line;
  // Pipeline stages turn it off whatever the flags say.
  PlanInput pp = d_on.plan;
  pp.pp = 2;
  EXPECT_FALSE(engine_rules(pp).async_scheduling_default(pp));
}

TEST(EngineCmdlines, SloSpec) {
  const auto s = parse_slo_spec("concurrency=16,context=32k,mean_context=4096");
  EXPECT_EQ(s.concurrency, 16u);
  EXPECT_EQ(s.context, 32000u);
  EXPECT_EQ(s.mean_context.value_or(0), 4096u);
  EXPECT_THROW(parse_slo_spec("concurrency=0"), Error);
  EXPECT_THROW(parse_slo_spec("latency=5"), Error);
  EXPECT_THROW(parse_slo_spec("context=1000,mean_context=2000"), Error);
}

}  // namespace
}  // namespace kvplan

namespace kvplan {
namespace {

// vLLM ≥ 0.20 refuses to start a Mamba hybrid whose max_num_seqs exceeds the block count when it
// captures full CUDA graphs (PR #38270). Qwen3-Next with 2 GiB of KV memory: page 1,114,112 B
// (block 544, docs/models.md), 2^31 // 1,114,112 = 1,927 pages // group size 12 = 160 blocks.
TEST(EngineCmdlines, MambaHybridMaxNumSeqsOverBlocksFailsToStart) {
  const auto gpu = load_gpu("h100-sxm-80gb");
  const auto a = vllm(
      "vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --kv-cache-memory-bytes 2G "
      "--max-model-len 4096 --max-num-seqs 256");
  const auto r = run_check(deploy_from_engine(a, gpu, 0, "", "--vllm"));
  EXPECT_EQ(r.capacity.num_gpu_blocks, 160u);
  const auto found =
      std::find_if(r.items.begin(), r.items.end(), [](auto& i) { return i.id == "engine_starts"; });
  ASSERT_NE(found, r.items.end());
  const auto& starts = *found;
  EXPECT_FALSE(starts.passed);
  EXPECT_NE(starts.detail.find("exceeds available Mamba cache blocks (160)"), std::string::npos)
      << starts.detail;
  // 160 sequences start; so does --enforce-eager (no CUDA graphs to capture).
  auto starts_with = [&](const std::string& flags) {
    const auto line =
        "vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --kv-cache-memory-bytes 2G "
        "--max-model-len 4096 " +
        flags;
    const auto items = run_check(deploy_from_engine(vllm(line), gpu, 0, "", "--vllm")).items;
    const auto i =
        std::find_if(items.begin(), items.end(), [](auto& x) { return x.id == "engine_starts"; });
    return i != items.end() && i->passed;
  };
  EXPECT_TRUE(starts_with("--max-num-seqs 160"));
  EXPECT_TRUE(starts_with("--max-num-seqs 256 --enforce-eager"));
}

// mamba_cache_mode align keeps two state pages per sequence: Qwen3-Next at 4,096 tokens needs
// ceil(4096 / 544) = 8 attention blocks + 3 state groups × 2 = 14 (none: 8 + 3 = 11).
TEST(EngineCmdlines, MambaCacheModeAlignDoublesTheStatePages) {
  const auto gpu = load_gpu("h100-sxm-80gb");
  const auto none = deploy_from_engine(
      vllm("vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --kv-cache-memory-bytes 2G "
           "--max-model-len 4096"),
      gpu, 0, "", "--vllm");
  const auto align = deploy_from_engine(
      vllm("vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --kv-cache-memory-bytes 2G "
           "--max-model-len 4096 --mamba-cache-mode align"),
      gpu, 0, "", "--vllm");
  EXPECT_EQ(plan_capacity(none.model, none.plan).blocks_per_request, 11u);
  EXPECT_EQ(plan_capacity(align.model, align.plan).blocks_per_request, 14u);
  EXPECT_THROW(vllm("vllm serve m --mamba-cache-mode some"), Error);
}

// --speculative-config's num_speculative_tokens k gives each Mamba group 1 + k state pages a
// sequence (MambaSpec.num_speculative_blocks, kv_cache_interface.py @ 001cabc1); ngram adds no
// draft layers. Qwen3-Next at 4,096 tokens: 8 attention blocks + 3 state groups × (1 + 2) = 17.
TEST(EngineCmdlines, SpeculativeTokensHoldMoreStatePages) {
  const auto gpu = load_gpu("h100-sxm-80gb");
  const auto d = deploy_from_engine(
      vllm("vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --kv-cache-memory-bytes 2G "
           "--max-model-len 4096 --speculative-config "
           "'{\"method\": \"ngram\", \"num_speculative_tokens\": 2}'"),
      gpu, 0, "", "--vllm");
  EXPECT_EQ(d.plan.vllm().num_speculative_tokens, 2u);
  EXPECT_EQ(plan_capacity(d.model, d.plan).blocks_per_request, 17u);
}

// --speculative-config's extract_hidden_states caches len(eagle_aux_hidden_state_layer_ids) hidden
// states of hidden_size a token at the model dtype, in a cache-only layer that joins a dense
// model's one group (HiddenStateCacheSpec, an MLAAttentionSpec: no V;
// vllm/model_executor/models/extract_hidden_states.py@055e47c2, UniformTypeKVCacheSpecs). Qwen3-8B
// (36 layers, 8 KV heads of 128, hidden 4096), bf16, 16-token blocks, 4 hidden states: a block is
// 36 · 16 · 8 · 256 · 2 + 16 · 4 · 4096 · 2 = 2,359,296 + 524,288 = 2,883,584 B; 2 GiB hold
// 2,147,483,648 // 2,883,584 = 744 blocks (without the hidden states, // 2,359,296 = 910).
TEST(EngineCmdlines, ExtractHiddenStatesAddsTheirPageToTheBlock) {
  const std::string base =
      "vllm serve Qwen/Qwen3-8B --kv-cache-memory-bytes 2G --max-model-len 4096";
  const std::string spec =
      R"( --speculative-config '{"method": "extract_hidden_states", "num_speculative_tokens": 1, )"
      R"("draft_model_config": {"hf_config": {"eagle_aux_hidden_state_layer_ids": [1, 2, 3, 4]}}}')";
  const auto with = h100_vllm(base + spec);
  EXPECT_EQ(with.plan.vllm().extract_hidden_states, 4u);
  EXPECT_EQ(capacity_of(h100_vllm(base)).num_gpu_blocks, 910u);
  const auto c = capacity_of(with);
  EXPECT_EQ(c.page_bytes, 2883584u);
  EXPECT_EQ(c.num_gpu_blocks, 744u);
  EXPECT_EQ(c.blocks_per_request, 4096u / 16);
  // Without the list kvplan cannot size the cache, and says which key it needs.
  try {
    h100_vllm(base + R"( --speculative-config '{"method": "extract_hidden_states", )"
                     R"("num_speculative_tokens": 1}')");
    FAIL() << "extract_hidden_states without its layer ids was sized";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("eagle_aux_hidden_state_layer_ids"), std::string::npos)
        << e.what();
  }
}

// vLLM's --attn-group-size (CacheConfig.attn_group_size) replaces the group-size heuristic.
// Qwen3-Next's 48 layers are 12 full attention (every 4th) and 36 Gated DeltaNet: by default 12
// layers a group, 1 + 3 groups; with --attn-group-size 4, 3 + 9 = 12 groups of 4. The plan's own
// launch line carries the flag back.
TEST(EngineCmdlines, VllmAttnGroupSizeReachesThePlan) {
  const std::string base =
      "vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --kv-cache-memory-bytes 2G "
      "--max-model-len 4096";
  const auto four = h100_vllm(base + " --attn-group-size 4");
  EXPECT_EQ(four.plan.vllm().attn_group_size, 4u);
  const auto c0 = capacity_of(h100_vllm(base));
  const auto c4 = capacity_of(four);
  EXPECT_EQ(c0.stages[0].group_size, 12u);
  EXPECT_EQ(c0.stages[0].kv_cache_groups, 4u);
  EXPECT_EQ(c4.stages[0].group_size, 4u);
  EXPECT_EQ(c4.stages[0].kv_cache_groups, 12u);
  const auto line = vllm_command(four.model, four.plan);
  ASSERT_TRUE(line);
  EXPECT_NE(line->find("--attn-group-size 4"), std::string::npos) << *line;
}

// SGLang's --speculative-num-draft-tokens reaches the plan (the request table's width:
// Check.SglangsRequestTableMustFitWhatTheFractionLeavesOut); 0 is refused (kvplan reads 1 to 1024).
TEST(EngineCmdlines, SglangDraftTokensReachThePlan) {
  const std::string line =
      "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --context-length 4096 "
      "--speculative-algorithm EAGLE --speculative-num-draft-tokens 4";
  EXPECT_EQ(sglang(line).speculative_num_draft_tokens, 4u);
  EXPECT_EQ(deploy_from_engine(sglang(line), load_gpu("h100-sxm-80gb"), 0, "", "--sglang")
                .plan.sglang()
                .speculative_num_draft_tokens,
            4u);
  EXPECT_THROW(sglang("python -m sglang.launch_server --model-path Qwen/Qwen3-8B "
                      "--speculative-num-draft-tokens 0"),
               Error);
}

// The decode reserve's shape reaches the request table (SglangParity.ReqToTokenRowsHoldThe-
// DecodeReserve): EAGLE at --page-size 16 with 3 steps, top-k 4 and 8 draft tokens reserves 256
// columns a row, so with --max-running-requests 64 at 4,096 tokens the table is 65 · (4,096 + 256)
// · 4 = 1,131,520 B (65 · 4,108 · 4 = 1,068,080 B before allocation_sizing.py); the deployment
// file and the launch line keep the three settings.
// SGLang's Mamba slots a request (KVCacheConfigurator._calculate_mamba_ratio, sgl-project/sglang
// @382343f860c7df8dc43ecefd7902c940d81c99a9): --mamba-radix-cache-strategy and its deprecated
// alias --mamba-scheduler-strategy (server_args.py: auto, no_buffer, extra_buffer,
// extra_buffer_lazy), --disable-radix-cache; both reach the plan, the deployment file and the
// launch line; another value is refused by the flag.
TEST(EngineCmdlines, SglangMambaStrategyAndRadixCacheReachThePlan) {
  const auto a = sglang(
      "python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp 4 "
      "--context-length 32768 --mamba-scheduler-strategy extra_buffer_lazy");
  EXPECT_EQ(a.mamba_radix_cache_strategy, std::optional<std::string>("extra_buffer_lazy"));
  EXPECT_FALSE(a.disable_radix_cache);
  const Deployment d = deploy_from_engine(a, load_gpu("h100-sxm-80gb"), 0, "", "--sglang");
  EXPECT_EQ(d.plan.sglang().mamba_radix_cache_strategy, "extra_buffer_lazy");
  const Deployment back = parse_deploy_json(to_json(d), "back.json");
  EXPECT_EQ(back.plan.sglang(), d.plan.sglang());
  std::string why;
  const auto launch = sglang_command(d.model, d.plan, &why);
  ASSERT_TRUE(launch) << why;
  EXPECT_NE(launch->find("--mamba-radix-cache-strategy extra_buffer_lazy"), std::string::npos)
      << *launch;
  const auto off = sglang(
      "python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp 4 "
      "--disable-radix-cache --mamba-radix-cache-strategy no_buffer");
  EXPECT_TRUE(off.disable_radix_cache);
  const Deployment o = deploy_from_engine(off, load_gpu("h100-sxm-80gb"), 0, "", "--sglang");
  EXPECT_TRUE(o.plan.sglang().disable_radix_cache);
  EXPECT_EQ(parse_deploy_json(to_json(o), "back.json").plan.sglang(), o.plan.sglang());
  const auto line = sglang_command(o.model, o.plan, &why);
  ASSERT_TRUE(line) << why;
  EXPECT_NE(line->find("--disable-radix-cache"), std::string::npos) << *line;
  try {
    sglang(
        "python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct "
        "--mamba-radix-cache-strategy lazy");
    ADD_FAILURE() << "lazy accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "--mamba-radix-cache-strategy");
    EXPECT_EQ(e.exit_code(), 2);
  }
}

// SGLang's prefill / decode disaggregation flags (server_args.py@382343f860c7df8dc43ecefd7902c9
// 40d81c99a9: --disaggregation-mode null|prefill|decode, --disaggregation-decode-extra-slots,
// --disaggregation-decode-enable-radix-cache) reach the plan, the deployment file and the launch
// line; a decode worker's radix cache is off unless the last flag keeps it; another mode is
// refused by the flag.
TEST(EngineCmdlines, SglangDisaggregationFlagsReachThePlan) {
  const auto a = sglang(
      "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --tp 1 "
      "--context-length 8192 --disaggregation-mode decode --disaggregation-decode-extra-slots 4");
  EXPECT_EQ(a.disaggregation_mode, std::optional<std::string>("decode"));
  EXPECT_EQ(a.disaggregation_decode_extra_slots, 4u);
  const Deployment d = deploy_from_engine(a, load_gpu("h100-sxm-80gb"), 0, "", "--sglang");
  EXPECT_EQ(d.plan.sglang().disaggregation_mode, "decode");
  EXPECT_TRUE(sglang_radix_cache_off(d.plan.sglang()));
  EXPECT_EQ(sglang_decode_extra_slots(d.plan), 4u);
  EXPECT_EQ(parse_deploy_json(to_json(d), "back.json").plan.sglang(), d.plan.sglang());
  std::string why;
  const auto launch = sglang_command(d.model, d.plan, &why);
  ASSERT_TRUE(launch) << why;
  EXPECT_NE(launch->find("--disaggregation-mode decode --disaggregation-decode-extra-slots 4"),
            std::string::npos)
      << *launch;
  const auto keep = sglang(
      "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B "
      "--disaggregation-mode decode --disaggregation-decode-enable-radix-cache");
  const Deployment k = deploy_from_engine(keep, load_gpu("h100-sxm-80gb"), 0, "", "--sglang");
  EXPECT_FALSE(sglang_radix_cache_off(k.plan.sglang()));
  EXPECT_EQ(sglang_decode_extra_slots(k.plan), 0u);  // no --max-running-requests: none
  try {
    sglang(
        "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B "
        "--disaggregation-mode both");
    ADD_FAILURE() << "both accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "--disaggregation-mode");
    EXPECT_EQ(e.exit_code(), 2);
  }
}

// SGLang's "auto" KV cache for a DeepSeek-family sparse-attention model follows the GPU
// (_dsa_kv_cache_dtype_default, arg_groups/overrides.py@382343f860c7df8dc43ecefd7902c940d81c99a9:
// fp8_e4m3 at compute capability 10 and above, else bfloat16), and its fp8 latent the default
// backend's layout (calculate_mla_kv_cache_dim: Blackwell's trtllm keeps the raw 576 bytes, a
// layer's page at page size 1 576 + 132 = 708 B). A stated dtype stays; other models follow their
// dtype.
TEST(EngineCmdlines, SglangDsaKvDtypeFollowsTheGpu) {
  const std::string v32 =
      "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --tp 8 "
      "--context-length 8192";
  const Deployment b200 = deploy_from_engine(sglang(v32), load_gpu("b200"), 0, "", "--sglang");
  EXPECT_EQ(b200.plan.format.dtype, KvDtype::fp8_e4m3);
  EXPECT_EQ(plan_capacity(b200.model, b200.plan).page_bytes, 708u);
  const Deployment h200 =
      deploy_from_engine(sglang(v32), load_gpu("h200-141gb"), 0, "", "--sglang");
  EXPECT_EQ(h200.plan.format.dtype, KvDtype::bf16);
  const Deployment asked = deploy_from_engine(sglang(v32 + " --kv-cache-dtype bfloat16"),
                                              load_gpu("b200"), 0, "", "--sglang");
  EXPECT_EQ(asked.plan.format.dtype, KvDtype::bf16);
  const Deployment plain = deploy_from_engine(
      sglang("python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 "
             "--tp 8 --context-length 8192"),
      load_gpu("b200"), 0, "", "--sglang");
  EXPECT_EQ(plain.plan.format.dtype, KvDtype::bf16);
}

// SGLang's --dcp-size / --decode-context-parallel-size (server_args.py@382343f860c7df8dc43ecefd
// 7902c940d81c99a9 dcp_size) is SGLang's own setting, written back under the deployment key and on
// the launch line; the request table's row rounds up to page · dcp (get_req_to_token_row_width).
TEST(EngineCmdlines, SglangDcpSizeReachesThePlan) {
  const auto a = sglang(
      "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 "
      "--decode-context-parallel-size 8 --page-size 64 --context-length 4100");
  const Deployment d = deploy_from_engine(a, load_gpu("h200-141gb"), 0, "", "--sglang");
  EXPECT_EQ(d.plan.sglang().dcp_size, 8u);
  EXPECT_EQ(d.plan.vllm().dcp, 1u);
  const Deployment back = parse_deploy_json(to_json(d), "back.json");
  EXPECT_EQ(back.plan.sglang(), d.plan.sglang());
  std::string why;
  const auto line = sglang_command(d.model, d.plan, &why);
  ASSERT_TRUE(line) << why;
  EXPECT_NE(line->find("--dcp-size 8"), std::string::npos) << *line;
  // 4,100 + 4 = 4,104 columns, rounded up to 64 · 8 = 512: 4,608 int32 a row.
  const auto t = engine_rules(Engine::sglang).request_table(d.plan, 100000, 10);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->bytes, 11u * 4608 * 4);
}

// --enable-linear-replayssm-spec (and its deprecated --enable-gdn-replayssm-spec) and
// --linear-replayssm-cache-len reach SGLang's options, the deployment file and the launch line;
// the pool then holds the window beside each state slot (SglangParity.ReplaySsmWindowAs...).
TEST(EngineCmdlines, SglangReplaySsmReachesThePlan) {
  const std::string line =
      "python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp 4 "
      "--context-length 32768 --enable-gdn-replayssm-spec --linear-replayssm-cache-len 32";
  const Deployment d = deploy_from_engine(sglang(line), load_gpu("h200-141gb"), 0, "", "--sglang");
  EXPECT_TRUE(d.plan.sglang().linear_replayssm_spec);
  EXPECT_EQ(d.plan.sglang().linear_replayssm_cache_len, 32u);
  EXPECT_EQ(parse_deploy_json(to_json(d), "back.json").plan.sglang(), d.plan.sglang());
  std::string why;
  const auto launch = sglang_command(d.model, d.plan, &why);
  ASSERT_TRUE(launch) << why;
  EXPECT_NE(launch->find("--enable-linear-replayssm-spec --linear-replayssm-cache-len 32"),
            std::string::npos)
      << *launch;
  // Without speculative decoding the window is the cache length long; the states' share of the
  // budget stays, so fewer slots (each state and window) and fewer requests running at once.
  const Deployment plain = deploy_from_engine(
      sglang("python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp 4 "
             "--context-length 32768"),
      load_gpu("h200-141gb"), 0, "", "--sglang");
  EXPECT_LT(plan_capacity(d.model, d.plan).stages.at(0).sglang_max_running,
            plan_capacity(plain.model, plain.plan).stages.at(0).sglang_max_running);
}

// SGLang refuses to start a hybrid Mamba model with the radix cache on and no_buffer beside the
// overlap scheduler or pages over one token (_validate_mamba_no_buffer, server_args.py@382343f860c7
// df8dc43ecefd7902c940d81c99a9), in its own words; "auto" resolves around both.
TEST(EngineCmdlines, SglangMambaStrategiesItRefuses) {
  auto refusals = [&](const std::string& flags) {
    const Deployment d = deploy_from_engine(
        sglang("python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct "
               "--tp 4 --context-length 32768 " +
               flags),
        load_gpu("h200-141gb"), 0, "", "--sglang");
    std::string words;
    for (const auto& r : engine_refusals(d)) words += r.field + ": " + r.message + "\n";
    return words;
  };
  EXPECT_EQ(refusals(""), "");
  EXPECT_EQ(refusals("--page-size 16"), "");  // auto: the extra buffer
  EXPECT_EQ(refusals("--mamba-radix-cache-strategy no_buffer"),
            "--mamba-radix-cache-strategy: no_buffer do not support overlap schedule. Try to set "
            "disable_overlap_schedule=True.\n");
  EXPECT_EQ(refusals("--mamba-radix-cache-strategy no_buffer --disable-overlap-schedule"), "");
  EXPECT_EQ(refusals("--mamba-radix-cache-strategy no_buffer --disable-overlap-schedule "
                     "--page-size 16"),
            "--mamba-radix-cache-strategy: no_buffer only supports page_size=1.\n");
  EXPECT_EQ(refusals("--mamba-radix-cache-strategy no_buffer --disable-radix-cache"), "");
}

TEST(EngineCmdlines, SglangSpeculativeShapeWidensTheRequestTable) {
  const std::string line =
      "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --context-length 4096 "
      "--page-size 16 --max-running-requests 64 --speculative-algorithm EAGLE "
      "--speculative-num-steps 3 --speculative-eagle-topk 4 --speculative-num-draft-tokens 8";
  const auto a = sglang(line);
  EXPECT_EQ(a.speculative_num_steps, std::optional<std::uint32_t>(3));
  EXPECT_EQ(a.speculative_eagle_topk, std::optional<std::uint32_t>(4));
  const Deployment d = deploy_from_engine(a, load_gpu("h100-sxm-80gb"), 0, "", "--sglang");
  EXPECT_EQ(d.plan.sglang().speculative_algorithm, "eagle");
  const auto t = engine_rules(Engine::sglang).request_table(d.plan, 100000);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->bytes, 1131520u);
  const Deployment back = parse_deploy_json(to_json(d), "back.json");
  EXPECT_EQ(back.plan.sglang(), d.plan.sglang());
  // An EAGLE plan has no launch line (its draft model's path is not the plan's); NEXTN, the
  // checkpoint's own MTP layers, has: DeepSeek-V3 at TP 8 keeps the algorithm and its shape.
  const Deployment mtp = deploy_from_engine(
      sglang("python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 "
             "--context-length 4096 --speculative-algorithm NEXTN --speculative-num-steps 3 "
             "--speculative-eagle-topk 1 --speculative-num-draft-tokens 4"),
      load_gpu("h200-141gb"), 0, "", "--sglang");
  std::string why;
  const auto launch = sglang_command(mtp.model, mtp.plan, &why);
  ASSERT_TRUE(launch) << why;
  for (const char* flag : {"--speculative-algorithm NEXTN", "--speculative-num-steps 3",
                           "--speculative-eagle-topk 1", "--speculative-num-draft-tokens 4"})
    EXPECT_NE(launch->find(flag), std::string::npos) << *launch;
  EXPECT_EQ(launch->find("--speculative-algorithm NEXTN", launch->find("NEXTN") + 1),
            std::string::npos)
      << *launch;  // once
}

// --decode-context-parallel-size / -dcp (vllm/engine/arg_utils.py @ 99d7eb5d): each rank of the
// DCP group keeps every dcp-th token. Llama-3.1-8B at TP 2: 4 KV heads a rank, page
// 16 · 4 · (128 + 128) · 2 = 32,768 B; 40 GiB // 32,768 // 32 layers = 40,960 blocks. A
// 32,768-token request: 2,048 blocks, with DCP 2 cdiv(cdiv(32768, 2), 16) = 1,024; requests at
// once (40,960 − 1 null block) // 2,048 = 19, // 1,024 = 39.
TEST(EngineCmdlines, DecodeContextParallelSplitsTheTokens) {
  const auto gpu = load_gpu("h100-sxm-80gb");
  const std::string base =
      "vllm serve meta-llama/Llama-3.1-8B --kv-cache-memory-bytes 40G --max-model-len 32768 "
      "--tensor-parallel-size 2";
  const auto off = deploy_from_engine(vllm(base), gpu, 0, "", "--vllm");
  const auto on = deploy_from_engine(vllm(base + " -dcp 2"), gpu, 0, "", "--vllm");
  const auto spelled =
      deploy_from_engine(vllm(base + " --decode-context-parallel-size=2"), gpu, 0, "", "--vllm");
  EXPECT_EQ(on.plan.vllm().dcp, 2u);
  EXPECT_EQ(spelled.plan.vllm().dcp, 2u);
  const auto c_off = plan_capacity(off.model, off.plan);
  const auto c_on = plan_capacity(on.model, on.plan);
  EXPECT_EQ(c_off.num_gpu_blocks, 40960u);
  EXPECT_EQ(c_on.num_gpu_blocks, 40960u);
  EXPECT_EQ(c_off.blocks_per_request, 2048u);
  EXPECT_EQ(c_on.blocks_per_request, 1024u);
  EXPECT_EQ(c_off.max_requests, 19u);
  EXPECT_EQ(c_on.max_requests, 39u);
  EXPECT_THROW(vllm(base + " -dcp 0"), Error);
}

// --disable-hybrid-kv-cache-manager (arg_utils.py @ 99d7eb5d; unify_hybrid_kv_cache_specs):
// Gemma-2-9B's 21 sliding layers (W 4,096) cost full attention, all 42 layers in one group.
// Page 16 · 8 · (256 + 256) · 2 = 131,072 B; 40 GiB = 327,680 pages. Hybrid: groups of 21,
// 327,680 // 21 = 15,603 blocks, a request of 8,192 tokens 512 full + ceil(min(4095 + 8192,
// 8192) / 16) + 1 = 513 sliding = 1,025 blocks. Disabled: 327,680 // 42 = 7,801 blocks, 512 a
// request.
TEST(EngineCmdlines, DisabledHybridManagerCostsSlidingLayersInFull) {
  const auto gpu = load_gpu("h100-sxm-80gb");
  const std::string base =
      "vllm serve gemma-2-9b --kv-cache-memory-bytes 40G --max-model-len 8192 "
      "--max-num-batched-tokens 8192";
  const auto hybrid = deploy_from_engine(vllm(base), gpu, 0, "", "--vllm");
  const auto off =
      deploy_from_engine(vllm(base + " --disable-hybrid-kv-cache-manager"), gpu, 0, "", "--vllm");
  EXPECT_TRUE(off.plan.vllm().disable_hybrid_kv_cache_manager);
  EXPECT_TRUE(std::none_of(off.warnings.begin(), off.warnings.end(), [](const std::string& w) {
    return w.find("disable-hybrid") != std::string::npos;
  }));
  const auto h = plan_capacity(hybrid.model, hybrid.plan);
  const auto o = plan_capacity(off.model, off.plan);
  EXPECT_EQ(h.num_gpu_blocks, 15603u);
  EXPECT_EQ(h.blocks_per_request, 1025u);
  EXPECT_EQ(o.num_gpu_blocks, 7801u);
  EXPECT_EQ(o.blocks_per_request, 512u);
}

// vLLM --config (vllm/utils/argparse_utils.py @ vllm-project/vllm c836a6fe: load_config_file
// turns each key into --key VALUE and _pull_args_from_config puts them after `serve MODEL`, so
// "command line > config file values > defaults", and a positional model beats the file's
// `model`). The docs' own example names the model in the file.
TEST(EngineConfigFiles, VllmConfigDocsExample) {
  const auto a = vllm("vllm serve --config " + kConfigs + "vllm-serve-args-docs.yaml");
  EXPECT_EQ(a.model, "meta-llama/Llama-3.1-8B-Instruct");
  ASSERT_EQ(a.config_files.size(), 1u);
  EXPECT_TRUE(a.unknown.empty());
  const auto b =
      vllm("vllm serve Qwen/Qwen3-8B --config " + kConfigs + "vllm-serve-args-docs.yaml");
  EXPECT_EQ(b.model, "Qwen/Qwen3-8B");  // "SOME_MODEL takes precedence over model in config file"
}

TEST(EngineConfigFiles, VllmConfigKvOptionsAndPrecedence) {
  const std::string f = kConfigs + "vllm-kv.yaml";
  auto a = vllm("vllm serve m --config " + f);
  EXPECT_EQ(a.tp.value_or(0), 2u);
  EXPECT_EQ(a.max_model_len.value_or(0), 32000u);  // human_readable_int: 32k = 32,000
  EXPECT_EQ(a.memory_fraction_ppm.value_or(0), 920000u);
  EXPECT_EQ(a.kv_cache_dtype.value_or(""), "fp8");
  EXPECT_EQ(a.max_num_seqs.value_or(0), 64u);
  EXPECT_FALSE(a.enforce_eager);  // false: the flag is not passed at all
  EXPECT_EQ(a.speculative_method.value_or(""), "ngram");
  EXPECT_EQ(a.speculative_tokens.value_or(0), 3u);
  // The command line wins, before or after --config (--config=FILE too).
  a = vllm("vllm serve m -tp 4 --config=" + f + " --max-model-len 8192");
  EXPECT_EQ(a.tp.value_or(0), 4u);
  EXPECT_EQ(a.max_model_len.value_or(0), 8192u);
  EXPECT_EQ(a.kv_cache_dtype.value_or(""), "fp8");
  EXPECT_THROW(vllm("vllm serve m --config " + f + " --config " + f), Error);
}

// Malformed files are refused naming the file (and the key, where there is one).
TEST(EngineConfigFiles, MalformedYamlNamesFileAndKey) {
  auto message = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  std::string m = message([&] { vllm("vllm serve m --config " + kConfigs + "bad-unclosed.yaml"); });
  EXPECT_NE(m.find("bad-unclosed.yaml"), std::string::npos) << m;
  EXPECT_NE(m.find("line"), std::string::npos) << m;
  m = message([&] { vllm("vllm serve m --config " + kConfigs + "bad-list.yaml"); });
  EXPECT_NE(m.find("bad-list.yaml"), std::string::npos) << m;
  {
    // Deep nesting is refused before yaml-cpp recurses into it.
    test::TempDir dir;
    const std::string deep = (dir.path() / "deep.yaml").string();
    std::ofstream(deep) << "a: " << std::string(100000, '[') << "\n";
    m = message([&] { vllm("vllm serve m --config " + deep); });
    EXPECT_NE(m.find("deep.yaml"), std::string::npos) << m;
    EXPECT_NE(m.find("nests"), std::string::npos) << m;
  }
  m = message([&] { vllm("vllm serve m --config " + kConfigs + "missing.yaml"); });
  EXPECT_NE(m.find("missing.yaml"), std::string::npos) << m;
  m = message([&] { vllm("vllm serve m --config " + kConfigs + "README.md"); });
  EXPECT_NE(m.find(".md"), std::string::npos) << m;  // vLLM: must be .yaml or .yml
  m = message(
      [&] { trtllm("trtllm-serve m --extra_llm_api_options " + kConfigs + "bad-fraction.yml"); });
  EXPECT_NE(m.find("bad-fraction.yml"), std::string::npos) << m;
  EXPECT_NE(m.find("kv_cache_config.free_gpu_memory_fraction"), std::string::npos) << m;
}

// kv_cache_config.max_gpu_total_bytes fixes the pool per rank instead of free_gpu_memory_fraction
// (KVCacheManager, tensorrt_llm/_torch/pyexecutor/resource_manager.py@d2a5560a): 20 GiB of
// Llama-3.1-8B fp16 KV at 131072 bytes a token is 163840 tokens, 5120 blocks of 32, whatever the
// fraction (0.5 here). check names the key and fails a pool weights and reserve leave no room
// for: 80 GiB on an H100 beside 14.96 GiB of weights. The deployment file keeps the key.
TEST(EngineConfigFiles, TrtllmMaxGpuTotalBytesFixesThePool) {
  const auto a = trtllm("trtllm-serve meta-llama/Llama-3.1-8B --max_seq_len 8192 --config " +
                        kConfigs + "trtllm-max-gpu-total-bytes.yaml");
  ASSERT_TRUE(a.max_gpu_total_bytes);
  EXPECT_EQ(*a.max_gpu_total_bytes, 21474836480u);
  EXPECT_TRUE(std::none_of(a.not_modelled.begin(), a.not_modelled.end(), [](const auto& s) {
    return s.find("max_gpu_total_bytes") != std::string::npos;
  }));
  Deployment d = deploy_from_engine(a, load_gpu("h100-sxm-80gb"), 0, "", "--trtllm");
  EXPECT_EQ(d.plan.trtllm().max_gpu_total_bytes, std::uint64_t{21474836480});
  const Capacity c = plan_capacity(d.model, d.plan);
  EXPECT_EQ(c.memory.available_bytes, 21474836480u);
  EXPECT_EQ(c.num_gpu_blocks, 5120u);
  const CheckReport ok = run_check(d);
  const auto fit = std::find_if(ok.items.begin(), ok.items.end(),
                                [](const CheckItem& i) { return i.id == "weights_fit"; });
  ASSERT_NE(fit, ok.items.end());
  EXPECT_TRUE(fit->passed) << fit->detail;
  EXPECT_NE(fit->detail.find("max_gpu_total_bytes 20.00 GiB"), std::string::npos) << fit->detail;
  d.plan.edit_trtllm().max_gpu_total_bytes = std::uint64_t{80} << 30;
  const CheckReport over = run_check(d);
  const auto big = std::find_if(over.items.begin(), over.items.end(),
                                [](const CheckItem& i) { return i.id == "weights_fit"; });
  ASSERT_NE(big, over.items.end());
  EXPECT_FALSE(big->passed);
  EXPECT_NE(big->detail.find("exceed the GPU's"), std::string::npos) << big->detail;
  const Deployment back = parse_deploy_json(to_json(d), "back.json");
  EXPECT_EQ(back.plan.trtllm().max_gpu_total_bytes, std::uint64_t{80} << 30);
}

// A hybrid Mamba model's manager from the LLM-API file: use_kv_cache_manager_v2 false is the C++
// manager (its slots the floor, no typical-step split), avg_seq_len V2's typical request, both
// kept by the deployment file. Qwen3-Next-80B-A3B at TP 4 (TrtllmParity.HybridDefaultBatchSlots-
// CanStopTheStart: 9,879,552 B of states a sequence): 64 + 1 slots = 642,170,880 B out of the 20
// GiB pool; the 12 full-attention layers keep 1 of the 2 KV heads of 256 a rank, 12 · 2 · 256 · 2 =
// 12,288 B a token: (21,474,836,480 − 642,170,880) // 12,288 = 1,695,366 tokens = 52,980 blocks.
TEST(EngineConfigFiles, TrtllmHybridManagerFromTheConfigFile) {
  const auto a = qwen3_next_trtllm("trtllm-mamba-hybrid.yaml");
  EXPECT_EQ(a.kv_cache_manager_v2, std::optional<bool>(false));
  EXPECT_EQ(a.avg_seq_len, std::optional<std::uint64_t>(4096));
  Deployment d = deploy_from_engine(a, load_gpu("h100-sxm-80gb"), 0, "", "--trtllm");
  const Capacity c = plan_capacity(d.model, d.plan);
  const auto& s = *c.stages.at(0).trtllm_states;
  EXPECT_FALSE(s.v2);
  EXPECT_EQ(s.live_slots, 64u);
  EXPECT_EQ(s.bytes, 642170880u);
  EXPECT_EQ(c.num_gpu_blocks, 52980u);
  const Deployment back = parse_deploy_json(to_json(d), "back.json");
  EXPECT_EQ(back.plan.trtllm().kv_cache_manager_v2, std::optional<bool>(false));
  EXPECT_EQ(back.plan.trtllm().avg_seq_len, std::optional<std::uint64_t>(4096));
  // V2 (auto): 64 typical requests of 4,096 tokens, 64 · 4,096 · 12,288 = 3,221,225,472 B of
  // attention beside the 642,170,880 B of slots, fit the pool 5.6 times over, so the pools take
  // the typical step's proportion: 21,474,836,480 · 3,221,225,472 // 3,863,396,352 =
  // 17,905,305,066 B of attention = 1,457,137 tokens = 45,535 blocks.
  d.plan.edit_trtllm().kv_cache_manager_v2.reset();
  const Capacity v2 = plan_capacity(d.model, d.plan);
  EXPECT_TRUE(v2.stages.at(0).trtllm_states->proportional);
  EXPECT_EQ(v2.stages.at(0).trtllm_states->attention_bytes, 17905305066u);
  EXPECT_EQ(v2.num_gpu_blocks, 45535u);
}

// Block reuse's state snapshots from the LLM-API file (kv_cache_config.enable_block_reuse and
// mamba_state_config), kept by the deployment file. The same Qwen3-Next at TP 4, V2 (auto): the
// snapshot at the prompt's end is one fixed rule, so each of the 64 typical requests of 4,096
// tokens keeps 2 states of 2,048 tokens (64 pages each): attention 64 · 128 · 393,216 =
// 3,221,225,472 B as before, states (64 · 2 + 1) · 9,879,552 = 1,274,462,208 B. Proportional:
// 21,474,836,480 · 3,221,225,472 // 4,495,687,680 = 15,387,032,018 B of attention = 1,252,199
// tokens = 39,131 blocks (45,535 without reuse); 6,087,804,462 B of states = 616 slots, 551 beyond
// the 65 live and dummy ones. The periodic interval takes no part in V2's split.
TEST(EngineConfigFiles, TrtllmHybridSnapshotsFromTheConfigFile) {
  const auto a = qwen3_next_trtllm("trtllm-mamba-snapshots.yaml");
  EXPECT_EQ(a.enable_block_reuse, std::optional<bool>(true));
  EXPECT_EQ(a.snapshot_interval, std::optional<std::uint64_t>(1024));
  EXPECT_EQ(a.snapshot_offsets_from_end, std::vector<std::uint64_t>{0});
  Deployment d = deploy_from_engine(a, load_gpu("h100-sxm-80gb"), 0, "", "--trtllm");
  const Capacity c = plan_capacity(d.model, d.plan);
  const auto& s = *c.stages.at(0).trtllm_states;
  EXPECT_TRUE(s.v2);
  EXPECT_EQ(s.snapshot_rules, 1u);
  EXPECT_EQ(s.snapshot_interval, 1024u);
  EXPECT_EQ(s.attention_bytes, 15387032018u);
  EXPECT_EQ(s.snapshot_slots, 551u);
  EXPECT_EQ(c.num_gpu_blocks, 39131u);
  const Deployment back = parse_deploy_json(to_json(d), "back.json");
  EXPECT_EQ(back.plan.trtllm(), d.plan.trtllm());
  EXPECT_EQ(plan_capacity(back.model, back.plan).num_gpu_blocks, 39131u);
  // block_reuse_config.policy per_conversation zeroes the periodic interval
  // (disable_periodic_mamba_snapshots_for_conversations).
  test::TempDir dir;
  const std::string y = (dir.path() / "conv.yaml").string();
  std::ofstream(y) << "kv_cache_config:\n  enable_block_reuse: true\n  block_reuse_config:\n"
                      "    policy: per_conversation\n  mamba_state_config:\n"
                      "    periodic_snapshot_interval: 1024\n";
  Deployment conv = deploy_from_engine(
      trtllm("trtllm-serve Qwen/Qwen3-Next-80B-A3B-Instruct --tp_size 4 --config " + y),
      load_gpu("h100-sxm-80gb"), 0, "", "--trtllm");
  EXPECT_EQ(conv.plan.trtllm().snapshot_interval, 0u);
  // The deprecated key beside the new one is refused, as migrate_legacy_mamba_interval refuses it.
  EXPECT_THROW(trtllm("trtllm-serve Qwen/Qwen3-Next-80B-A3B-Instruct --config " + kConfigs +
                      "trtllm-mamba-snapshots-both.yaml"),
               Error);
}

// check names a hybrid start that TensorRT-LLM's state slots stop: Qwen3-Next-80B-A3B at TP 4 in a
// 4 GiB pool (max_gpu_total_bytes), trtllm-serve's default max_batch_size 2048: 2,049 slots of
// 9,879,552 B are 20.2 GB. The fix: the most sequences whose slots leave the dummy and one
// attention block (32 · 12,288 = 393,216 B): (4,294,967,296 − 393,216 − 9,879,552) // 9,879,552
// = 433. At 433 the slots fit, and what is left (7,241,728 B, 18 blocks) is short of one request
// of 32,768 tokens (1,024 blocks): the blocks message, not the slots'.
TEST(EngineConfigFiles, TrtllmHybridCheckNamesTheStateSlots) {
  const auto a =
      trtllm("trtllm-serve Qwen/Qwen3-Next-80B-A3B-Instruct --tp_size 4 --max_seq_len 32768");
  Deployment d = deploy_from_engine(a, load_gpu("h100-sxm-80gb"), 0, "", "--trtllm");
  d.plan.edit_trtllm().max_gpu_total_bytes = std::uint64_t{4} << 30;
  auto starts = [](const CheckReport& r) {
    return *std::find_if(r.items.begin(), r.items.end(),
                         [](const CheckItem& i) { return i.id == "engine_starts"; });
  };
  const CheckItem no = starts(run_check(d));
  EXPECT_FALSE(no.passed);
  EXPECT_NE(no.detail.find("Mamba state slots, 2,048 live"), std::string::npos) << no.detail;
  EXPECT_NE(no.detail.find("The V2 Mamba GPU cache quota is too small"), std::string::npos);
  EXPECT_NE(no.fix.find("set --max_batch_size to at most 433"), std::string::npos) << no.fix;
  d.plan.max_num_seqs = 433;
  const CheckItem blocks = starts(run_check(d));
  EXPECT_FALSE(blocks.passed);
  EXPECT_EQ(blocks.detail.find("state slots"), std::string::npos) << blocks.detail;
  EXPECT_NE(blocks.detail.find("needs 1024 blocks, the pool has 18"), std::string::npos)
      << blocks.detail;
}

// trtllm-serve (tensorrt_llm/commands/serve.py @ NVIDIA/TensorRT-LLM 00209af1) with the
// DeepSeek-R1 example's --config: the LLM-API file's kv_cache_config sets the fraction and the
// dtype; enable_attention_dp makes the 8 GPUs 8 attention groups of one GPU sharing the MoE layers,
// whole experts over --ep_size 8 of them (tensorrt_llm/mapping.py@cf44a1cc: attn_tp_size 1 under
// attention DP); the rest of the file does not touch the cache.
// InferenceX's DeepSeek-R1 FP8 H200 config with DP attention (tests/data/engine_configs/README.md):
// its attention_dp_config reaches the plan (TrtllmOptions) and the deployment file, and a
// deployment file's own keys are read back.
TEST(EngineConfigFiles, TrtllmAttentionDpBalanceReachesThePlan) {
  const auto a = trtllm(
      "trtllm-serve deepseek-ai/DeepSeek-R1 --backend=pytorch --max_seq_len=9416 "
      "--max_num_tokens=8192 --tp_size=8 --ep_size=8 --extra_llm_api_options " +
      kConfigs + "trtllm-inferencex-dsr1-adp.yml");
  EXPECT_TRUE(a.unknown.empty()) << a.unknown[0];
  EXPECT_EQ(a.adp_enable_balance, std::optional<bool>(true));
  EXPECT_EQ(a.adp_timeout_iters, 60u);
  EXPECT_EQ(a.adp_batching_wait_iters, 0u);
  const auto d = deploy_from_engine(a, load_gpu("h200-141gb"), 0, "", "--trtllm");
  EXPECT_EQ(d.plan.attention_dp, 8u);
  EXPECT_TRUE(d.plan.trtllm().adp_enable_balance);
  EXPECT_EQ(d.plan.trtllm().adp_timeout_iters, 60u);
  EXPECT_EQ(d.plan.trtllm().adp_batching_wait_iters, 0u);
  EXPECT_EQ(parse_deploy_json(to_json(d), "back.json").plan.trtllm(), d.plan.trtllm());
  // Without the section: TensorRT-LLM's defaults (AttentionDpConfig: off, 50, 10).
  const TrtllmOptions none{};
  EXPECT_FALSE(none.adp_enable_balance);
  EXPECT_EQ(none.adp_timeout_iters, 50u);
  EXPECT_EQ(none.adp_batching_wait_iters, 10u);
}

TEST(EngineConfigFiles, TrtllmServeDeepSeekR1Example) {
  const auto a = trtllm(
      "trtllm-serve deepseek-ai/DeepSeek-R1 --host localhost --port 8000 --trust_remote_code "
      "--max_batch_size 1024 --max_num_tokens 8192 --tp_size 8 --ep_size 8 --pp_size 1 "
      "--config " +
      kConfigs + "trtllm-deepseek-r1-config.yml --reasoning_parser deepseek-r1");
  EXPECT_EQ(a.model, "deepseek-ai/DeepSeek-R1");
  EXPECT_EQ(a.tp.value_or(0), 8u);
  EXPECT_EQ(a.pp.value_or(0), 1u);
  EXPECT_EQ(a.max_num_seqs.value_or(0), 1024u);
  EXPECT_EQ(a.max_num_batched_tokens.value_or(0), 8192u);
  EXPECT_EQ(a.memory_fraction_ppm.value_or(0), 800000u);
  EXPECT_EQ(a.kv_cache_dtype.value_or(""), "fp8");
  EXPECT_TRUE(a.unknown.empty()) << a.unknown[0];
  EXPECT_TRUE(a.dp_attention);
  EXPECT_EQ(a.dp.value_or(0), 8u);
  for (const auto& n : a.not_modelled) EXPECT_EQ(n.find("attention_dp"), std::string::npos) << n;
  const auto d = deploy_from_engine(a, load_gpu("b200"), 0, "", "--trtllm");
  EXPECT_EQ(d.plan.tp, 1u);
  EXPECT_EQ(d.plan.attention_dp, 8u);
  EXPECT_EQ(d.plan.moe_ep, 8u);
  EXPECT_EQ(d.plan.gpus, 8u);
  EXPECT_TRUE(d.plan.expert_parallel);
  // A GPU holds the whole attention and 1/8 of the 256 routed experts: its weights are those of
  // TP 1 less 7/8 of the experts (planner stage_weights with expert_parallel_replicas 8).
  PlanInput tp1 = d.plan;
  tp1.attention_dp = 1;
  tp1.moe_ep = 1;
  tp1.expert_parallel = false;
  tp1.gpus = 1;
  const std::uint64_t experts = d.model.weights.expert_bytes;
  ASSERT_GT(experts, 0u);
  const std::uint64_t own = memory_budget(d.model, d.plan).weight_bytes;
  const std::uint64_t all = memory_budget(d.model, tp1).weight_bytes;
  EXPECT_NEAR(static_cast<double>(all - own), static_cast<double>(experts) * 7 / 8, 8.0);
}

// The LLM-API file's keys replace the command line's (update_llm_args_with_extra_dict), and its
// max_attention_window and tokens_per_block reach the plan (apply_engine_pool_args).
TEST(EngineConfigFiles, TrtllmYamlWinsAndReachesThePlan) {
  const auto a = trtllm(
      "trtllm-serve serve google/gemma-3-27b-it --max_batch_size 64 "
      "--kv_cache_free_gpu_memory_fraction 0.5 --backend pytorch "
      "--extra_llm_api_options " +
      kConfigs + "trtllm-gemma3-vswa.yaml");
  EXPECT_EQ(a.max_num_seqs.value_or(0), 16u);
  EXPECT_EQ(a.max_model_len.value_or(0), 32768u);
  EXPECT_EQ(a.memory_fraction_ppm.value_or(0), 850000u);
  EXPECT_EQ(a.block_size.value_or(0), 64u);
  EXPECT_EQ(a.max_attention_window, (std::vector<std::uint64_t>{512, 512, 512, 512, 512, 32768}));
  PlanInput p;
  apply_engine_pool_args(a, p, "--trtllm");
  EXPECT_EQ(p.trtllm().max_attention_window.size(), 6u);
  EXPECT_EQ(p.trtllm().backend, TrtllmOptions::Backend::pytorch);
  auto t = trtllm("trtllm-serve m --backend tensorrt");
  apply_engine_pool_args(t, p, "--trtllm");
  EXPECT_EQ(p.trtllm().backend, TrtllmOptions::Backend::tensorrt);
  t = trtllm("trtllm-serve m --backend cuda");
  EXPECT_THROW(apply_engine_pool_args(t, p, "--trtllm"), Error);
  EXPECT_THROW(trtllm("vllm serve m"), Error);
}

// SGLang's pool flags (server_args.py): read, and applied to the plan, by `check` as well.
TEST(EngineConfigFiles, SglangPoolFlags) {
  const auto a = sglang(
      "python -m sglang.launch_server --model-path openai/gpt-oss-120b "
      "--swa-full-tokens-ratio 0.5 --disable-hybrid-swa-memory --mamba-full-memory-ratio 1.5 "
      "--max-mamba-cache-size 300 --mamba-ssm-dtype bfloat16 --max-total-tokens 100000");
  EXPECT_EQ(a.swa_full_tokens_ratio_ppm.value_or(0), 500000u);
  EXPECT_TRUE(a.disable_hybrid_swa_memory);
  EXPECT_EQ(a.mamba_full_memory_ratio_ppm.value_or(0), 1500000u);
  EXPECT_EQ(a.max_mamba_cache_size.value_or(0), 300u);
  EXPECT_EQ(a.ssm_state_dtype, KvDtype::bf16);
  EXPECT_EQ(a.max_total_tokens.value_or(0), 100000u);
  EXPECT_TRUE(a.not_modelled.empty());
  EXPECT_TRUE(a.unknown.empty());
  PlanInput p;
  apply_engine_pool_args(a, p, "--sglang");
  // check's deployment carries them: --max-total-tokens 100000 caps the pool it judges.
  const auto d = deploy_from_engine(a, load_gpu("h200-141gb"), 0, "", "--sglang");
  EXPECT_EQ(d.plan.max_total_tokens.value_or(0), 100000u);
  EXPECT_EQ(d.plan.sglang().swa_full_tokens_ratio_ppm, 500000u);
  EXPECT_EQ(p.sglang().swa_full_tokens_ratio_ppm, 500000u);
  EXPECT_TRUE(p.sglang().disable_hybrid_swa_memory);
  EXPECT_EQ(p.sglang().mamba_full_memory_ratio_ppm, 1500000u);
  EXPECT_EQ(p.sglang().max_mamba_cache_size.value_or(0), 300u);
  EXPECT_EQ(p.ssm_state_dtype, KvDtype::bf16);
  EXPECT_EQ(p.max_total_tokens.value_or(0), 100000u);
  EXPECT_THROW(sglang("python -m sglang.launch_server --model-path m --mamba-ssm-dtype fp4"),
               Error);
  EXPECT_THROW(sglang("python -m sglang.launch_server --model-path m --swa-full-tokens-ratio 2"),
               Error);
}

}  // namespace
}  // namespace kvplan

namespace kvplan {
namespace {

// `kvplan check --trtllm`: trtllm-serve command lines judged by the one rule of every engine
// (the engine starts and holds one request of max_seq_len; --slo adds a load). Hand arithmetic,
// Llama 3.1 8B on one H100 SXM 80GB under TensorRT-LLM (planner.hpp, docs/deploy.md):
//   total   85,013,508,915 B (the preset's CUDA total, 79.18 GiB as logged, read as the smaller
//           end of its rounding: floor(79.175 · 2^30)); weights 8,030,261,248 params × 2 B =
//           16,060,522,496 B (bf16); reserve 2 GiB = 2,147,483,648 B
//   free    = 85,013,508,915 − 16,060,522,496 − 2,147,483,648 = 66,805,502,771 B
//   KV      = free × free_gpu_memory_fraction (the fraction of what is free after the weights:
//             serve.py "Free GPU memory fraction reserved for KV Cache, after allocating model
//             weights and buffers", NVIDIA/TensorRT-LLM 00209af1)
//   token   = 2 · 32 layers · 8 heads · 128 · 2 B = 131,072 B (bf16), 65,536 B (fp8)
//   blocks  = ceil(floor(KV / token) / 32 tokens_per_block); a request of n tokens takes
//             ceil(n / 32) blocks.
struct TrtllmCheckRow {
  const char* flags;  // after "trtllm-serve meta-llama/Llama-3.1-8B"
  const char* slo;    // "" = none
  std::uint64_t blocks, requests;
  bool passes;
  const char* why;
};

TEST(EngineCmdlines, TrtllmServeCheckTable) {
  const TrtllmCheckRow rows[] = {
      // 0.9 (the default): 60,124,952,493 B // 131,072 = 458,717 tokens → 14,335 blocks;
      // 32,768 tokens = 1,024 blocks → 13 requests; one starts.
      {"--max_seq_len 32768", "", 14335, 13, true, "default fraction 0.9"},
      // The same with --kv_cache_free_gpu_memory_fraction=0.9 written with '='.
      {"--max_seq_len=32768 --kv_cache_free_gpu_memory_fraction=0.9", "", 14335, 13, true, "="},
      // 0.05: 3,340,275,138 B // 131,072 = 25,484 tokens → 797 blocks; 131,072 tokens need
      // 4,096 blocks: the engine cannot hold one request (exit 1).
      {"--max_seq_len 131072 --kv_cache_free_gpu_memory_fraction 0.05", "", 797, 0, false,
       "one request does not fit"},
      // A stated load of 15 at 32,768 fails (13 fit); at a typical 8,192 (256 blocks): 55 fit.
      {"--max_seq_len 32768", "concurrency=15", 14335, 13, false, "worst case over"},
      {"--max_seq_len 32768", "concurrency=15,mean_context=8192", 14335, 13, true, "typical fits"},
      // The last of a repeated click option wins: 0.05 then 0.9 is 0.9.
      {"--max_seq_len 32768 --free_gpu_memory_fraction 0.05 --free_gpu_memory_fraction 0.9", "",
       14335, 13, true, "last value wins"},
  };
  const auto gpu = load_gpu("h100-sxm-80gb");
  for (const auto& row : rows) {
    const auto a = trtllm(std::string("trtllm-serve meta-llama/Llama-3.1-8B ") + row.flags);
    std::optional<Slo> slo;
    if (*row.slo) slo = parse_slo_spec(row.slo);
    const auto r = run_check(deploy_from_engine(a, gpu, 0, "", "--trtllm", slo));
    EXPECT_EQ(r.capacity.num_gpu_blocks, row.blocks) << row.why;
    EXPECT_EQ(r.capacity.max_requests, row.requests) << row.why;
    EXPECT_EQ(r.passed(), row.passes) << row.why;
  }
}

// The LLM-API file (examples/trtllm-llm-api.yaml) replaces the command line's fraction: 0.85 of
// 66,805,502,771 B = 56,784,677,355 B in fp8 (dtype: fp8) // 65,536 = 866,465 tokens → 27,078
// blocks; 32,768 tokens = 1,024 blocks → 26 requests; the typical 8,192 (256 blocks) → 105.
TEST(EngineCmdlines, TrtllmServeExampleWithItsLlmApiFile) {
  const std::string root = std::string(KVPLAN_TEST_DATA_DIR) + "/../../";
  std::ifstream f(root + "examples/trtllm-serve.txt");
  std::string line;
  std::getline(f, line);
  const std::string rel = "examples/trtllm-llm-api.yaml";
  ASSERT_NE(line.find(rel), std::string::npos) << line;
  line.replace(line.find(rel), rel.size(), root + rel);
  const auto a = trtllm(line);
  EXPECT_EQ(a.memory_fraction_ppm.value_or(0), 850000u);  // the file's, not the flag's 0.9
  EXPECT_EQ(a.kv_cache_dtype.value_or(""), "fp8");
  EXPECT_TRUE(a.unknown.empty()) << a.unknown.front();
  const auto gpu = load_gpu("h100-sxm-80gb");
  const auto r = run_check(deploy_from_engine(a, gpu, 0, "", "--trtllm",
                                              parse_slo_spec("concurrency=32,mean_context=8192")));
  EXPECT_EQ(r.capacity.memory.available_bytes, 56784677355u);
  EXPECT_EQ(r.capacity.num_gpu_blocks, 27078u);
  EXPECT_EQ(r.requests_at_slo, 26u);
  EXPECT_EQ(r.requests_at_mean.value_or(0), 105u);
  EXPECT_TRUE(r.passed());
}

// Every trtllm-serve flag and LLM-API key that changes memory is modelled or named.
TEST(EngineCmdlines, TrtllmFlagsThatChangeMemoryAreModelledOrNamed) {
  auto has = [](const std::vector<std::string>& v, const std::string& prefix) {
    for (const auto& s : v)
      if (s.rfind(prefix, 0) == 0) return true;
    return false;
  };
  auto a = trtllm(
      "trtllm-serve m --tp_size 4 --pp_size 2 --ep_size 4 --max_batch_size 8 --max_num_tokens "
      "4096 --max_beam_width 4 --backend tensorrt --gpus_per_node 8");
  EXPECT_EQ(a.tp.value_or(0), 4u);
  EXPECT_EQ(a.pp.value_or(0), 2u);
  EXPECT_EQ(a.max_num_seqs.value_or(0), 8u);
  EXPECT_EQ(a.max_num_batched_tokens.value_or(0), 4096u);
  EXPECT_EQ(a.trtllm_backend.value_or(""), "tensorrt");
  EXPECT_TRUE(has(a.not_modelled, "--max_beam_width 4")) << a.not_modelled.size();
  // --ep_size 4 of --tp_size 4: every GPU holds whole experts (moe_tp 1), expert parallelism
  // over the TP group; --ep_size 2 of 4 (moe_tp 2) regroups them and is costed as TP.
  EXPECT_TRUE(a.expert_parallel);
  EXPECT_FALSE(has(a.ignored, "--ep_size"));
  const auto half = trtllm("trtllm-serve m --tp_size 4 --ep_size 2");
  EXPECT_FALSE(half.expert_parallel);
  EXPECT_TRUE(has(half.ignored, "--ep_size 2"));
  EXPECT_TRUE(has(a.ignored, "--gpus_per_node 8"));
  EXPECT_TRUE(a.unknown.empty()) << a.unknown.front();
  // Beam width 1 is the default (BuildConfig.max_beam_width): nothing to name.
  EXPECT_TRUE(trtllm("trtllm-serve m --max_beam_width 1").not_modelled.empty());
  // --ep_size must divide --tp_size (Mapping: moe_tp × moe_ep × moe_cluster = the TP GPUs).
  EXPECT_THROW(trtllm("trtllm-serve m --tp_size 4 --ep_size 3"), Error);
  // trtllm-serve has no --kv_cache_dtype: the dtype lives in kv_cache_config.dtype.
  EXPECT_TRUE(has(trtllm("trtllm-serve m --kv_cache_dtype fp8").unknown, "--kv_cache_dtype"));
  // The YAML keys (kv_cache_config and the rest).
  test::TempDir dir;
  const std::string y = (dir.path() / "llm.yaml").string();
  std::ofstream(y) << "dtype: bfloat16\nmax_beam_width: 2\nkv_cache_config:\n"
                      "  max_tokens: 100000\n  max_attention_window: [4096]\n"
                      "  enable_block_reuse: false\n  dtype: fp8\n  tokens_per_block: 64\n"
                      "  max_gpu_total_bytes: 1000000\n  free_gpu_memory_fraction: 0.5\n";
  a = trtllm("trtllm-serve m --extra_llm_api_options " + y);
  EXPECT_EQ(a.max_total_tokens.value_or(0), 100000u);
  EXPECT_EQ(a.max_attention_window, std::vector<std::uint64_t>{4096});
  EXPECT_EQ(a.kv_cache_dtype.value_or(""), "fp8");
  EXPECT_EQ(a.block_size.value_or(0), 64u);
  EXPECT_EQ(a.memory_fraction_ppm.value_or(0), 500000u);
  EXPECT_EQ(a.weight_dtype.value_or(""), "bf16");
  // Modelled: a hybrid Mamba model's state snapshots follow it (TrtllmOptions).
  EXPECT_EQ(a.enable_block_reuse, std::optional<bool>(false));
  EXPECT_FALSE(has(a.ignored, "kv_cache_config.enable_block_reuse"));
  EXPECT_EQ(a.max_gpu_total_bytes.value_or(0), 1000000u);  // modelled: the pool's bytes
  EXPECT_FALSE(has(a.not_modelled, "kv_cache_config.max_gpu_total_bytes"));
  EXPECT_TRUE(has(a.not_modelled, "--max_beam_width 2"));
  EXPECT_TRUE(a.unknown.empty()) << a.unknown.front();
}

// Bad trtllm-serve input is an Error naming the flag (the CLI's exit 2).
TEST(EngineCmdlines, TrtllmBadInputNamesTheFlag) {
  auto field_of = [](const std::string& line) {
    try {
      deploy_from_engine(trtllm(line), load_gpu("h100-sxm-80gb"), 0, "", "--trtllm");
    } catch (const Error& e) {
      return e.field();
    }
    return std::string("no error");
  };
  EXPECT_EQ(field_of("trtllm-serve meta-llama/Llama-3.1-8B --tp_size 3"), "--tp_size");
  EXPECT_EQ(field_of("trtllm-serve meta-llama/Llama-3.1-8B --max_seq_len 128k"), "--max_seq_len");
  EXPECT_EQ(field_of("trtllm-serve meta-llama/Llama-3.1-8B --free_gpu_memory_fraction 1.5"),
            "--free_gpu_memory_fraction");
  EXPECT_EQ(field_of("trtllm-serve meta-llama/Llama-3.1-8B --backend cuda"), "--backend");
  EXPECT_EQ(field_of("trtllm-serve meta-llama/Llama-3.1-8B --max_batch_size"), "--max_batch_size");
}

}  // namespace
}  // namespace kvplan

namespace kvplan {
namespace {

// Issue 13's misreadings, one row per misreading and engine where the engine has the flag. The
// engines' rules: vLLM and SGLang parse with argparse (the last of a repeated option wins,
// --opt=value, --opt_name = --opt-name in both), trtllm-serve with click (the last wins,
// --opt=value; serve.py @ NVIDIA/TensorRT-LLM 00209af1); a shell splits the words (POSIX XCU
// 2.2-2.3). vLLM reads human sizes (human_readable_int: k = 10^3, K = 2^10); SGLang's
// --context-length and trtllm-serve's --max_seq_len are type=int, so "128k" is refused there.
struct Misreading {
  const char* what;
  Engine engine;
  std::string line;
  std::function<void(const EngineArgs&)> expect;
};

std::vector<Misreading> misreadings() {
  const auto none_unknown = [](const EngineArgs& a) {
    EXPECT_TRUE(a.unknown.empty()) << a.unknown.front();
  };
  auto named = [](const std::vector<std::string>& v, const std::string& prefix) {
    return std::any_of(v.begin(), v.end(), [&](const auto& s) { return s.rfind(prefix, 0) == 0; });
  };
  return {
      // an empty nargs="*" list is followed by the next flag, not fed it (SGLang's
      // --lora-target-modules, server_args.py: nargs="*")
      {"empty list (SGLang)", Engine::sglang,
       "python -m sglang.launch_server --model-path m --lora-target-modules --tp 8",
       [](const EngineArgs& a) { EXPECT_EQ(a.tp.value_or(0), 8u); }},
      // a negative number is a value, not a flag
      {"negative value (SGLang)", Engine::sglang,
       "python -m sglang.launch_server --model-path m --chunked-prefill-size -1 --tp 2",
       [](const EngineArgs& a) {
         EXPECT_EQ(a.tp.value_or(0), 2u);
         EXPECT_TRUE(a.unknown.empty());
       }},
      // last value wins
      {"last wins (vLLM)", Engine::vllm, "vllm serve m --max-model-len 4096 --max-model-len 8192",
       [](const EngineArgs& a) { EXPECT_EQ(a.max_model_len.value_or(0), 8192u); }},
      {"last wins (SGLang)", Engine::sglang,
       "python -m sglang.launch_server --model-path m --tp 2 --tp 4 --context-length 4096 "
       "--context-length 8192",
       [](const EngineArgs& a) {
         EXPECT_EQ(a.tp.value_or(0), 4u);
         EXPECT_EQ(a.max_model_len.value_or(0), 8192u);
       }},
      {"last wins (trtllm)", Engine::trtllm, "trtllm-serve m --tp_size 2 --tp_size 4",
       [](const EngineArgs& a) { EXPECT_EQ(a.tp.value_or(0), 4u); }},
      // --flag=value
      {"= (vLLM)", Engine::vllm,
       "vllm serve m --tensor-parallel-size=2 --gpu-memory-utilization=0.8",
       [](const EngineArgs& a) {
         EXPECT_EQ(a.tp.value_or(0), 2u);
         EXPECT_EQ(a.memory_fraction_ppm.value_or(0), 800000u);
       }},
      {"= (SGLang)", Engine::sglang,
       "python -m sglang.launch_server --model-path=m --mem-fraction-static=0.8 --tp=2",
       [](const EngineArgs& a) {
         EXPECT_EQ(a.model, "m");
         EXPECT_EQ(a.tp.value_or(0), 2u);
         EXPECT_EQ(a.memory_fraction_ppm.value_or(0), 800000u);
       }},
      {"= (trtllm)", Engine::trtllm, "trtllm-serve m --pp_size=2 --max_batch_size=32",
       [](const EngineArgs& a) {
         EXPECT_EQ(a.pp.value_or(0), 2u);
         EXPECT_EQ(a.max_num_seqs.value_or(0), 32u);
       }},
      // underscores for dashes (argparse accepts both spellings in vLLM and SGLang)
      {"underscores (vLLM)", Engine::vllm, "vllm serve m --max_model_len 8192",
       [](const EngineArgs& a) { EXPECT_EQ(a.max_model_len.value_or(0), 8192u); }},
      // dotted flags and JSON values (vLLM only)
      {"dotted", Engine::vllm,
       "vllm serve m --speculative-config.method ngram "
       "--speculative-config.num_speculative_tokens 3",
       [](const EngineArgs& a) {
         EXPECT_EQ(a.speculative_method.value_or(""), "ngram");
         EXPECT_EQ(a.speculative_tokens.value_or(0), 3u);
       }},
      {"JSON", Engine::vllm,
       R"(vllm serve m --speculative-config '{"method": "ngram", "num_speculative_tokens": 5}')",
       [](const EngineArgs& a) {
         EXPECT_EQ(a.speculative_method.value_or(""), "ngram");
         EXPECT_EQ(a.speculative_tokens.value_or(0), 5u);
       }},
      // human sizes
      {"128k (vLLM)", Engine::vllm, "vllm serve m --max-model-len 128k",
       [](const EngineArgs& a) { EXPECT_EQ(a.max_model_len.value_or(0), 128000u); }},
      {"40G (vLLM)", Engine::vllm, "vllm serve m --kv-cache-memory-bytes 40G",
       [](const EngineArgs& a) { EXPECT_EQ(a.kv_cache_memory_bytes.value_or(0), 40ull << 30); }},
      // positional model wins
      {"positional (vLLM)", Engine::vllm, "vllm serve A --model B",
       [](const EngineArgs& a) { EXPECT_EQ(a.model, "A"); }},
      {"positional (trtllm serve)", Engine::trtllm, "trtllm-serve serve A --tp_size 2",
       [](const EngineArgs& a) { EXPECT_EQ(a.model, "A"); }},
      // python -m
      {"python -m (vLLM)", Engine::vllm,
       "python3 -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3-8B --max-model-len 4096",
       [](const EngineArgs& a) {
         EXPECT_EQ(a.model, "Qwen/Qwen3-8B");
         EXPECT_EQ(a.max_model_len.value_or(0), 4096u);
       }},
      {"python -m (SGLang)", Engine::sglang,
       "/opt/venv/bin/python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B",
       [](const EngineArgs& a) { EXPECT_EQ(a.model, "Qwen/Qwen3-8B"); }},
      // docker run and environment-variable prefixes
      {"docker (vLLM)", Engine::vllm,
       "CUDA_VISIBLE_DEVICES=0,1 docker run --runtime nvidia --gpus all -v ~/.cache:/root/.cache "
       "-p 8000:8000 --ipc=host vllm/vllm-openai:v0.10.1 --model Qwen/Qwen3-8B -tp 2",
       [](const EngineArgs& a) {
         EXPECT_EQ(a.model, "Qwen/Qwen3-8B");
         EXPECT_EQ(a.tp.value_or(0), 2u);
       }},
      {"docker (SGLang)", Engine::sglang,
       "docker run --gpus all --shm-size 32g -p 30000:30000 --ipc=host lmsysorg/sglang:latest "
       "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2",
       [](const EngineArgs& a) {
         EXPECT_EQ(a.model, "Qwen/Qwen3-8B");
         EXPECT_EQ(a.tp.value_or(0), 2u);
       }},
      {"docker (trtllm)", Engine::trtllm,
       "docker run --rm --gpus all --ipc host nvcr.io/nvidia/tensorrt-llm/release:1.0.0 "
       "trtllm-serve Qwen/Qwen3-8B --tp_size 2",
       [](const EngineArgs& a) {
         EXPECT_EQ(a.model, "Qwen/Qwen3-8B");
         EXPECT_EQ(a.tp.value_or(0), 2u);
       }},
      {"env (SGLang)", Engine::sglang,
       "SGLANG_ENABLE_JIT_DEEPGEMM=0 HF_TOKEN=x python -m sglang.launch_server --model-path m",
       [](const EngineArgs& a) { EXPECT_EQ(a.model, "m"); }},
      {"env (trtllm)", Engine::trtllm, "TLLM_LOG_LEVEL=INFO trtllm-serve m --tp_size 2",
       [](const EngineArgs& a) {
         EXPECT_EQ(a.model, "m");
         EXPECT_EQ(a.tp.value_or(0), 2u);
       }},
      // POSIX quoting
      {"quoting (vLLM)", Engine::vllm,
       R"(vllm serve "m" --served-model-name 'my model' "--max-model-len" 8\192)",
       [](const EngineArgs& a) {
         EXPECT_EQ(a.model, "m");
         EXPECT_EQ(a.max_model_len.value_or(0), 8192u);
       }},
      {"quoting (SGLang)", Engine::sglang,
       "python -m sglang.launch_server --model-path '/models/my model' \\\n  --tp \"2\"",
       [](const EngineArgs& a) {
         EXPECT_EQ(a.model, "/models/my model");
         EXPECT_EQ(a.tp.value_or(0), 2u);
       }},
      {"quoting (trtllm)", Engine::trtllm, "trtllm-serve 'm' --tp_size \"2\" # comment --pp_size 4",
       [](const EngineArgs& a) {
         EXPECT_EQ(a.tp.value_or(0), 2u);
         EXPECT_FALSE(a.pp.has_value());
       }},
      // LoRA memory is named, never dropped; multi-valued LoRA flags are not stray positionals
      {"LoRA (vLLM)", Engine::vllm,
       "vllm serve m --enable-lora --lora-modules a=/p/a b=/p/b --max-loras 2 --max-lora-rank 64",
       [=](const EngineArgs& a) {
         none_unknown(a);
         EXPECT_TRUE(named(a.not_modelled, "--lora-modules a=/p/a b=/p/b"));
         EXPECT_TRUE(named(a.not_modelled, "--max-lora-rank 64"));
       }},
      {"LoRA (SGLang)", Engine::sglang,
       "python -m sglang.launch_server --model-path m --enable-lora --max-lora-rank 32 "
       "--lora-target-modules q_proj v_proj --lora-paths a=/p/a b=/p/b --max-loras-per-batch 2",
       [=](const EngineArgs& a) {
         none_unknown(a);
         EXPECT_TRUE(named(a.not_modelled, "--enable-lora"));
         EXPECT_TRUE(named(a.not_modelled, "--lora-paths a=/p/a b=/p/b"));
         EXPECT_TRUE(named(a.not_modelled, "--max-loras-per-batch 2"));
       }},
      // SGLang's -1 and multi-value flags; vLLM's multi-value CUDA graph sizes
      {"--chunked-prefill-size -1", Engine::sglang,
       "python -m sglang.launch_server --model-path m --chunked-prefill-size -1",
       [](const EngineArgs& a) { EXPECT_FALSE(a.max_num_batched_tokens.has_value()); }},
      {"--cuda-graph-bs 8 16 32", Engine::sglang,
       "python -m sglang.launch_server --model-path m --cuda-graph-bs 8 16 32 --tp 2",
       [=](const EngineArgs& a) {
         none_unknown(a);
         EXPECT_EQ(a.tp.value_or(0), 2u);
       }},
      {"--cuda-graph-sizes 8 16 32", Engine::vllm, "vllm serve m --cuda-graph-sizes 8 16 32 -tp 2",
       [=](const EngineArgs& a) {
         none_unknown(a);
         EXPECT_EQ(a.tp.value_or(0), 2u);
       }},
  };
}

TEST(EngineCmdlines, MisreadingsTable) {
  for (const auto& row : misreadings()) {
    SCOPED_TRACE(row.what);
    row.expect(parse_engine_command(row.engine, row.line, "--" + to_string(row.engine)));
  }
}

// Refused where the engine refuses: the error names the flag (the CLI's exit 2).
TEST(EngineCmdlines, MisreadingsTheEnginesRefuse) {
  struct Row {
    Engine engine;
    const char* line;
    const char* field;
  };
  const Row rows[] = {
      // SGLang --context-length and trtllm-serve --max_seq_len are type=int: no 128k.
      {Engine::sglang, "python -m sglang.launch_server --model-path m --context-length 128k",
       "--context-length"},
      {Engine::trtllm, "trtllm-serve m --max_seq_len 128k", "--max_seq_len"},
      // vLLM: decimals only with k/m/g/t.
      {Engine::vllm, "vllm serve m --max-model-len 1.5K", "--max-model-len"},
      {Engine::vllm, R"(vllm serve m --speculative-config '{"method": ')",
       "--speculative-config"},                                                // not JSON
      {Engine::sglang, "python -m sglang.launch_server --model-path 'm", ""},  // unterminated
      {Engine::vllm, "vllm serve m --speculative-config '[1, 2]'", "--speculative-config"},
      // argparse never reads a flag as an option's value ("expected one argument").
      {Engine::vllm, "vllm serve m --max-model-len --tensor-parallel-size 2", "--max-model-len"},
      {Engine::sglang, "python -m sglang.launch_server --model-path m --served-model-name --tp 8",
       "--served-model-name"},
  };
  for (const auto& r : rows) {
    SCOPED_TRACE(r.line);
    try {
      parse_engine_command(r.engine, r.line, "--" + to_string(r.engine));
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.field(), r.field) << e.what();
    }
  }
}

// The deployment-level misreadings, for each engine that has the flag.
TEST(EngineCmdlines, MisreadingsOfTheDeployment) {
  const auto h200 = load_gpu("h200-141gb");
  // SGLang expert parallelism with DP: --enable-ep-moe shards the experts over all the GPUs.
  const auto s = deploy_from_engine(
      sglang("python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --dp 4 "
             "--enable-ep-moe --context-length 32768"),
      h200, 0, "", "--sglang");
  EXPECT_EQ(s.plan.gpus, 4u);
  EXPECT_TRUE(s.plan.expert_parallel);
  // Without DP attention --dp runs independent servers, each holding every expert (its expert
  // parallelism is within one server's --tp GPUs, here 1): one GPU holds the whole checkpoint,
  // where vLLM's --enable-expert-parallel spreads them over the DP ranks
  // (ExpertParallelWithDataParallel).
  EXPECT_EQ(memory_budget(s.model, s.plan).weight_bytes,
            load_model("qwen3-30b-a3b").weight_bytes());
  // --dtype bfloat16 on an FP8 checkpoint keeps its FP8 weights, in SGLang as in vLLM (and in
  // trtllm-serve's LLM-API dtype): ceil(bytes / 8) on TP 8.
  const auto m = load_model("qwen3-235b-a22b-fp8");
  const auto h100 = load_gpu("h100-sxm-80gb");
  const auto sg = deploy_from_engine(
      sglang("python -m sglang.launch_server --model-path Qwen/Qwen3-235B-A22B-FP8 --dtype "
             "bfloat16 --tp 8"),
      h100, 0, "", "--sglang");
  EXPECT_EQ(memory_budget(sg.model, sg.plan).weight_bytes, (m.weight_bytes() + 7) / 8);
  test::TempDir dir;
  const std::string y = (dir.path() / "bf16.yaml").string();
  std::ofstream(y) << "dtype: bfloat16\n";
  const auto tr = deploy_from_engine(
      trtllm("trtllm-serve Qwen/Qwen3-235B-A22B-FP8 --tp_size 8 --extra_llm_api_options " + y),
      h100, 0, "", "--trtllm");
  EXPECT_EQ(memory_budget(tr.model, tr.plan).weight_bytes, (m.weight_bytes() + 7) / 8);
  // SGLang --tp 8 --dp 8 --enable-dp-attention is 8 GPUs: also with --dp-size and the = form.
  const auto dpa = deploy_from_engine(
      sglang("python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size=8 "
             "--dp-size=8 --enable-dp-attention --context-length 32768"),
      h200, 0, "", "--sglang");
  EXPECT_EQ(dpa.plan.gpus, 8u);
  // Its experts spread over the server's 8 GPUs (the DP attention groups share the MoE layers),
  // also when the deployment runs two such servers on 16 GPUs, and when the simulator sizes one
  // group's pool alone (gpus 0): 1/8 of the experts a GPU, the rest whole (attention TP 1).
  const auto v3 = load_model("deepseek-v3");
  const std::uint64_t experts = v3.weights.expert_bytes, rest = v3.weight_bytes() - experts;
  EXPECT_EQ(dpa.plan.tp, 1u);
  PlanInput two = dpa.plan, group = dpa.plan;
  two.gpus = 16;
  group.gpus = 0;
  for (const PlanInput& p : {dpa.plan, two, group}) {
    const std::uint64_t w = memory_budget(v3, p).weight_bytes;
    EXPECT_GE(w, rest + (experts + 7) / 8);
    EXPECT_LE(w, rest + (experts + 7) / 8 + 64);  // the tables' split rounds per stage
  }
}

}  // namespace
}  // namespace kvplan

namespace kvplan {
namespace {

// One SLO rule for every engine (issue 13 item 6): the same deployment — Llama 3.1 8B, 32,768
// tokens, bf16, one H100 SXM (85,520,809,984 B; weights 16,060,522,496 B) — written for each
// engine passes on its own (one request of 32,768 tokens, 4 GiB, fits) and fails alike under a
// stated load of 64 such requests. The capacity each engine's arithmetic gives, by hand:
//   total   85,013,508,915 B (CUDA's 79.18 GiB, the smaller end of its rounding)
//   vLLM    floor(0.9 · total) = 76,512,158,023 − weights 16,060,522,496 − the terms at 64
//           sequences (forward 8192 x (32 x 128 + 2 x 4096 + 3 x 14336) x 2 B = 905,969,664
//           over the sampler's 380 MB, + 0.04 GiB 42,949,673; non-torch 139,586,437; graphs
//           622,770,258) = 58,740,359,495 B // 65,536 B a page // 32 layers = 28,009 blocks;
//           (28,009 − 1 null block) // 2,048 a request = 13
//   SGLang  mem_fraction_static from the GPU (memory_hook.py@031ed82d): CUDA's 81,074 MiB less
//           512 + 1.5 x 8192 + 128 + 2 x 256 + 8 x 58 = 13,904 MiB reserved: 0.829; floor(0.829 ·
//           (total − the 751,619,276 B context)) − weights = 53,792,584,014 B // 131,072 B a
//           token = 410,404 tokens // 32,768 = 12
//   TRT-LLM (total − weights − 2 GiB) · 0.9 → 14,335 blocks of 32 // 1,024 = 13
TEST(EngineCmdlines, OneRuleForEveryEngine) {
  const auto gpu = load_gpu("h100-sxm-80gb");
  struct Line {
    Engine engine;
    std::string line;
    std::uint64_t requests;
  };
  const Line lines[] = {
      // vLLM: 0.92 of the GPU by default (vllm-project/vllm#38284): 14 of 4 GiB, as worked out in
      // Check.FailureSaysByHowMuchAndFp8Fixes (13 at 0.9, as SGLang's 0.88 and TensorRT-LLM's 0.9).
      {Engine::vllm, "vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768 --max-num-seqs 64",
       14},
      {Engine::sglang,
       "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --context-length 32768 "
       "--max-running-requests 64",
       12},
      {Engine::trtllm,
       "trtllm-serve meta-llama/Llama-3.1-8B --max_seq_len 32768 --max_batch_size 64", 13},
  };
  for (const auto& [engine, line, requests] : lines) {
    SCOPED_TRACE(line);
    const std::string src = "--" + to_string(engine);
    const auto a = parse_engine_command(engine, line, src);
    const auto d = deploy_from_engine(a, gpu, 0, "", src);
    EXPECT_EQ(d.slo.concurrency, 1u);
    EXPECT_EQ(d.slo.context, 32768u);
    const auto r = run_check(d);
    EXPECT_TRUE(r.passed());
    EXPECT_EQ(r.capacity.max_requests, requests);
    EXPECT_FALSE(run_check(deploy_from_engine(a, gpu, 0, "", src, parse_slo_spec("concurrency=64")))
                     .passed());
  }
}

// --disable-hybrid-kv-cache-manager on a linear-attention hybrid: Qwen3-Next's Gated DeltaNet
// layers hold a MambaSpec beside the full-attention ones, which unify_hybrid_kv_cache_specs
// cannot make one type (vllm/v1/core/kv_cache_utils.py @ 001cabc1: "Hybrid KV cache manager is
// disabled but failed to convert the KV cache specs to one unified type"; vllm-project/vllm
// PR #36388 reports it for Qwen3.5-0.8B). kvplan check refuses it naming the field; without the
// flag it plans.
TEST(EngineCmdlines, DisabledHybridManagerRefusesMambaHybrids) {
  const auto gpu = load_gpu("h100-sxm-80gb");
  const std::string base =
      "vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --kv-cache-memory-bytes 2G "
      "--max-model-len 4096";
  const auto on = deploy_from_engine(vllm(base), gpu, 0, "", "--vllm");
  EXPECT_NO_THROW(plan_capacity(on.model, on.plan));
  try {
    const auto off =
        deploy_from_engine(vllm(base + " --disable-hybrid-kv-cache-manager"), gpu, 0, "", "--vllm");
    plan_capacity(off.model, off.plan);
    ADD_FAILURE() << "a Mamba hybrid with the hybrid manager disabled was planned";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "disable_hybrid_kv_cache_manager");
  }
}

// SGLang's expert parallelism (server_args.py "--expert-parallel-size", "--ep-size"): ep = tp puts
// whole experts on every GPU (the step time's expert parallelism); part of the TP group is costed
// as TP; ep must divide --tp.
TEST(EngineCmdlines, SglangEpSizeIsExpertParallelismOverTheTpGroup) {
  const auto full = sglang("python -m sglang.launch_server --model-path m --tp 8 --ep-size 8");
  EXPECT_TRUE(full.expert_parallel);
  EXPECT_EQ(full.ep_size.value_or(0), 8u);
  EXPECT_TRUE(full.unknown.empty());
  EXPECT_TRUE(
      sglang("python -m sglang.launch_server --model-path m --tp 4 --expert-parallel-size 4")
          .expert_parallel);
  const auto part = sglang("python -m sglang.launch_server --model-path m --tp 8 --ep-size 4");
  EXPECT_FALSE(part.expert_parallel);
  ASSERT_EQ(part.ignored.size(), 1u);
  EXPECT_EQ(part.ignored[0].rfind("--ep-size 4", 0), 0u) << part.ignored[0];
  EXPECT_FALSE(
      sglang("python -m sglang.launch_server --model-path m --tp 8 --ep-size 1").expert_parallel);
  // Beside DP attention --ep-size is the MoE layers' own split of the --tp GPUs (moe_ep).
  const auto dpa = sglang(
      "python -m sglang.launch_server --model-path m --tp 8 --dp 8 --enable-dp-attention "
      "--ep-size 8");
  EXPECT_TRUE(dpa.not_modelled.empty()) << dpa.not_modelled[0];
  EXPECT_TRUE(dpa.ignored.empty()) << dpa.ignored[0];
  const auto dpa_plan = deploy_from_engine(
      sglang("python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tp 8 --dp 4 "
             "--enable-dp-attention --ep-size 4 --context-length 32768"),
      load_gpu("h200-141gb"), 0, "", "--sglang");
  EXPECT_EQ(dpa_plan.plan.tp, 2u);
  EXPECT_EQ(dpa_plan.plan.attention_dp, 4u);
  EXPECT_EQ(dpa_plan.plan.moe_ep, 4u);
  EXPECT_EQ(dpa_plan.plan.gpus, 8u);
  // --max-running-requests is the server's: each of the 4 groups runs a quarter
  // (TpModelWorker: max_running_requests // dp_size), and fewer than --dp leaves none.
  const std::string dpa_line =
      "python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tp 8 --dp 4 "
      "--enable-dp-attention --context-length 32768 --max-running-requests ";
  const Deployment d64 =
      deploy_from_engine(sglang(dpa_line + "64"), load_gpu("h200-141gb"), 0, "", "--sglang");
  EXPECT_EQ(d64.max_num_seqs.value_or(0), 16u);
  // NCCL spans the server's --tp 8, whatever a group's TP: the TP > 1 context (2.51 GiB).
  EXPECT_EQ(memory_budget(d64.model, d64.plan, "t").terms.context.bytes,
            static_cast<std::uint64_t>(2.51 * 1073741824.0));
  // 100 requests need 25 a group: the fix is the server's flag, 4 x 25.
  Deployment d100 = d64;
  d100.slo.concurrency = 100;
  const CheckReport r100 = run_check(d100);
  const auto seqs = std::find_if(r100.items.begin(), r100.items.end(),
                                 [](const CheckItem& i) { return i.id == "max_num_seqs"; });
  ASSERT_NE(seqs, r100.items.end());
  EXPECT_FALSE(seqs->passed);
  EXPECT_EQ(seqs->fix, "set --max-running-requests to 100 (the server's: 25 a DP-attention group)");
  try {
    deploy_from_engine(sglang(dpa_line + "3"), load_gpu("h200-141gb"), 0, "", "--sglang");
    ADD_FAILURE() << "--max-running-requests 3 over 4 groups was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "--max-running-requests");
    EXPECT_NE(std::string(e.what()).find("leaves none a group"), std::string::npos) << e.what();
  }
  // The layout's refusals name the line's own flags (validate_attention_dp with SGLang's names).
  for (const auto& [line, flag] :
       {std::pair<std::string, std::string>{dpa_line + "64 --pp-size 2", "--pp-size"},
        {dpa_line + "64 --ep-size 3", "--ep-size"}}) {
    try {
      deploy_from_engine(sglang(line), load_gpu("h200-141gb"), 0, "", "--sglang");
      ADD_FAILURE() << line;
    } catch (const Error& e) {
      EXPECT_EQ(e.field(), flag) << e.what();
    }
  }
  // Beside --enable-ep-moe (EP over the whole group already) --ep-size 4 is not named as TP.
  EXPECT_TRUE(sglang("python -m sglang.launch_server --model-path m --tp 8 --enable-ep-moe "
                     "--ep-size 4")
                  .ignored.empty());
  // Two servers of --tp 8 --ep-size 8: each holds every expert, 1/8 per GPU, as without EP.
  const auto h200 = load_gpu("h200-141gb");
  const auto ep = deploy_from_engine(
      sglang("python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tp 8 --ep-size 8 "
             "--dp 2 --context-length 32768"),
      h200, 0, "", "--sglang");
  const auto tp = deploy_from_engine(
      sglang("python -m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B --tp 8 --dp 2 "
             "--context-length 32768"),
      h200, 0, "", "--sglang");
  EXPECT_EQ(ep.plan.gpus, 16u);
  EXPECT_TRUE(ep.plan.expert_parallel);
  EXPECT_EQ(memory_budget(ep.model, ep.plan).weight_bytes,
            memory_budget(tp.model, tp.plan).weight_bytes);
  for (const char* flag : {"--ep-size", "--expert-parallel-size"}) {
    try {
      sglang(std::string("python -m sglang.launch_server --model-path m --tp 8 ") + flag + " 3");
      ADD_FAILURE() << "ep 3 of tp 8 accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.field(), flag);  // as the command line spelled it
    }
  }
}

// vLLM's recurrent-state dtypes (vllm/config/cache.py@002f10e0: mamba_cache_dtype,
// mamba_ssm_cache_dtype, each auto | float32 | float16 | bfloat16), combined as
// mamba_utils.py@02d71083 _mamba_state_dtype combines them: the conv state takes
// --mamba-cache-dtype; the temporal state --mamba-ssm-cache-dtype, else the conv state's dtype,
// unless the model's config hook set it first (Qwen3.5's mamba_ssm_dtype float32).
TEST(EngineCmdlines, VllmMambaStateDtypesFollowTheEnginesRule) {
  const auto gpu = load_gpu("h100-sxm-80gb");
  auto state = [&](const std::string& line) {
    const Deployment d = deploy_from_engine(vllm(line), gpu, 0, "", "--vllm");
    return std::tuple{kv_cost(d.model, KvCostInput{.context = 4096,
                                                   .conv_state_dtype = d.plan.conv_state_dtype,
                                                   .ssm_state_dtype = d.plan.ssm_state_dtype})
                          .state_bytes_per_request,
                      d};
  };
  // Qwen3-Next-80B-A3B, 36 Gated DeltaNet layers, bf16, no hook: conv (4 − 1) · (2·16·128 +
  // 32·128) = 24,576 values, ssm 32 · 128 · 128 = 524,288 values a layer.
  const std::string next = "vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct ";
  EXPECT_EQ(std::get<0>(state(next)), 36ull * (24576 * 2 + 524288 * 2));
  // --mamba-cache-dtype float32: both states in 4 bytes (ssm "auto" follows the conv state).
  const auto [fp32, d32] = state(next + "--mamba-cache-dtype float32");
  EXPECT_EQ(fp32, 36ull * (24576 * 4 + 524288 * 4));
  EXPECT_EQ(d32.plan.conv_state_dtype, std::optional<KvDtype>(KvDtype::fp32));
  EXPECT_FALSE(d32.plan.ssm_state_dtype.has_value());
  // --mamba-ssm-cache-dtype float32 alone: the conv state stays bf16.
  EXPECT_EQ(std::get<0>(state(next + "--mamba-ssm-cache-dtype float32")),
            36ull * (24576 * 2 + 524288 * 4));
  // Both: each its own (float16 is 2 bytes).
  EXPECT_EQ(std::get<0>(state(next + "--mamba-cache-dtype float32 --mamba-ssm-cache-dtype "
                                     "float16")),
            36ull * (24576 * 4 + 524288 * 2));
  EXPECT_EQ(std::get<0>(state(next + "--mamba-cache-dtype auto")), std::get<0>(state(next)));
  // Qwen3.5-35B-A3B: its text config's mamba_ssm_dtype float32 is set by the hook before the
  // flags combine, so --mamba-cache-dtype float16 moves the conv state only: 30 layers of conv
  // 24,576 values · 2 B and ssm 524,288 values · 4 B.
  EXPECT_EQ(std::get<0>(state("vllm serve Qwen/Qwen3.5-35B-A3B --mamba-cache-dtype float16")),
            30ull * (24576 * 2 + 524288 * 4));
  // Written back on the launch line, and read again from it.
  const auto line = engine_rules(d32.plan).launch_line(d32.model, d32.plan, nullptr);
  ASSERT_TRUE(line.has_value());
  EXPECT_NE(line->find(" --mamba-cache-dtype float32"), std::string::npos) << *line;
  EXPECT_EQ(line->find("--mamba-ssm-cache-dtype"), std::string::npos) << *line;
  EXPECT_EQ(vllm(*line).conv_state_dtype, std::optional<KvDtype>(KvDtype::fp32));
  // Not modelled no more; a dtype vLLM does not take is refused by flag.
  EXPECT_TRUE(vllm(next + "--mamba-cache-dtype float32").not_modelled.empty());
  try {
    vllm(next + "--mamba-ssm-cache-dtype fp8");
    ADD_FAILURE() << "fp8 read as a Mamba state dtype";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--mamba-ssm-cache-dtype"), std::string::npos) << e.what();
    EXPECT_EQ(e.exit_code(), 2);
  }
}

// vLLM's --async-scheduling / --no-async-scheduling (SchedulerConfig.async_scheduling; unset, on
// from vLLM 0.14: vllm/config/vllm.py@000fc94b), read and written back on the launch line.
TEST(EngineCmdlines, VllmAsyncSchedulingFlags) {
  const auto gpu = load_gpu("h100-sxm-80gb");
  const std::string base = "vllm serve meta-llama/Llama-3.1-8B-Instruct";
  auto deploy = [&](const std::string& extra) {
    return deploy_from_engine(vllm(base + extra), gpu, 0, "", "--vllm");
  };
  const Deployment def = deploy("");
  EXPECT_FALSE(def.plan.vllm().async_scheduling.has_value());
  EXPECT_TRUE(engine_rules(def.plan).async_scheduling_default(def.plan));
  for (const char* off : {" --no-async-scheduling", " --no_async_scheduling"}) {
    const auto a = vllm(base + off);
    EXPECT_TRUE(a.unknown.empty()) << off;
    EXPECT_EQ(a.async_scheduling, std::optional<bool>(false)) << off;
  }
  const Deployment off = deploy(" --no-async-scheduling");
  EXPECT_FALSE(engine_rules(off.plan).async_scheduling_default(off.plan));
  const auto line = engine_rules(off.plan).launch_line(off.model, off.plan, nullptr);
  ASSERT_TRUE(line.has_value());
  EXPECT_NE(line->find(" --no-async-scheduling"), std::string::npos) << *line;
  EXPECT_EQ(vllm(*line).async_scheduling, std::optional<bool>(false));
  const Deployment on = deploy(" --async-scheduling");
  EXPECT_EQ(on.plan.vllm().async_scheduling, std::optional<bool>(true));
  EXPECT_TRUE(engine_rules(on.plan).async_scheduling_default(on.plan));
  // Without the flag, the launch line says nothing: the release's default.
  const auto def_line = engine_rules(def.plan).launch_line(def.model, def.plan, nullptr);
  ASSERT_TRUE(def_line.has_value());
  EXPECT_EQ(def_line->find("async"), std::string::npos) << *def_line;
  // A switch takes no value: the next word is the model's, not the flag's.
  EXPECT_THROW(vllm(base + " --async-scheduling=false"), Error);
}

}  // namespace
}  // namespace kvplan
