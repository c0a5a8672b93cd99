// to_json(Deployment): core writes what core reads. Every field parse_deploy_json reads survives
// a write and a read back.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "deployment_diff.hpp"
#include "error_message.hpp"
#include "kvplan/deploy.hpp"
#include "kvplan/error.hpp"
#include "kvplan/planner.hpp"

namespace kvplan {
namespace {

// Parses `text`, writes it, parses the result and compares; returns the written text.
std::string round_trip(const std::string& text) {
  const Deployment d = parse_deploy_json(text, "in.json");
  const std::string out = to_json(d);
  SCOPED_TRACE(out);
  Deployment back;
  try {
    back = parse_deploy_json(out, "in.json");
  } catch (const Error& e) {
    ADD_FAILURE() << "to_json wrote a file core refuses: " << e.what();
    return out;
  }
  EXPECT_EQ(test::deployment_diff(d, back), "");
  // and the second write is the first: the file is a fixed point
  EXPECT_EQ(to_json(back), out);
  return out;
}

TEST(DeployWrite, TheCheckedInDeploymentRoundTrips) {
  std::ifstream in(std::string(KVPLAN_TEST_DATA_DIR) + "/deploy/pass.json");
  std::stringstream ss;
  ss << in.rdbuf();
  round_trip(ss.str());
}

TEST(DeployWrite, EveryKeyTheParserReadsRoundTrips) {
  const std::string out = round_trip(R"({
    "kvplan_deploy": 1, "name": "every-key", "model": "qwen3-8b",
    "hardware": {"gpu": "h100-sxm-80gb", "gpus": 4, "price_per_hour": 3.25},
    "engine": {"name": "vllm@0.9", "tensor_parallel_size": 2, "pipeline_parallel_size": 2,
               "max_model_len": 16384, "max_num_seqs": 64, "gpu_memory_utilization": 0.85,
               "block_size": 32, "max_num_batched_tokens": 4096, "weight_dtype": "fp8",
               "enforce_eager": true, "draft_layers": 1, "reserve_gib": 3.5,
               "kv_cache_dtype": "fp8"},
    "compression": {"policy": "streaming:sink=4,window=1020"},
    "slo": {"context": 8192, "concurrency": 24, "mean_context": 2048,
            "min_kv_cache_tokens": 100000, "max_cost_per_hour": 20}})");
  EXPECT_NE(out.find("\"name\": \"vllm@0.9\""), std::string::npos);
  EXPECT_NE(out.find("\"draft_layers\": 1"), std::string::npos);
  EXPECT_NE(out.find("\"mean_context\": 2048"), std::string::npos);
}

TEST(DeployWrite, CustomGpusMeasuredPoolsAndOtherEnginesRoundTrip) {
  round_trip(R"({"kvplan_deploy": 1, "model": "llama-3.1-8b",
    "hardware": {"gpu_memory_gib": 47.5, "price_per_hour": 1.1},
    "engine": {"name": "sglang", "max_model_len": 8192, "mem_fraction_static": 0.8,
               "available_kv_gib": 20.25},
    "compression": {"kv_format": "kivi:bits=2,group=32,residual=128"},
    "slo": {"concurrency": 8}})");
  round_trip(R"({"kvplan_deploy": 1, "model": "llama-3.1-8b",
    "hardware": {"gpu": "a100-80gb"},
    "engine": {"name": "trtllm", "max_model_len": 4096, "free_gpu_memory_fraction": 0.9},
    "slo": {"concurrency": 2}})");
}

TEST(DeployWrite, RecurrentModelsKeepTheirMambaCacheMode) {
  round_trip(R"({"kvplan_deploy": 1, "model": "qwen3-next-80b-a3b",
    "hardware": {"gpu": "h200-141gb", "gpus": 2},
    "engine": {"name": "vllm", "tensor_parallel_size": 2, "max_model_len": 32768,
               "mamba_cache_mode": "align"},
    "slo": {"concurrency": 4}})");
}

// vLLM's decode context parallelism, the disabled hybrid manager and speculative state pages
// are deployment keys too; the parser reads them (the plan's fields change) and the writer keeps
// them.
TEST(DeployWrite, VllmParallelismAndHybridManagerKeysRoundTrip) {
  const std::string dcp = round_trip(R"({"kvplan_deploy": 1, "model": "llama-3.1-8b",
    "hardware": {"gpu": "h100-sxm-80gb", "gpus": 2},
    "engine": {"name": "vllm", "tensor_parallel_size": 2, "max_model_len": 32768,
               "decode_context_parallel_size": 2},
    "slo": {"concurrency": 4}})");
  EXPECT_NE(dcp.find("\"decode_context_parallel_size\": 2"), std::string::npos);
  // Expert parallelism (every engine's key): vLLM DP + EP over 4 GPUs of 2 replicas.
  const std::string ep = round_trip(R"({"kvplan_deploy": 1, "model": "qwen3-30b-a3b",
    "hardware": {"gpu": "h100-sxm-80gb", "gpus": 4},
    "engine": {"name": "vllm", "tensor_parallel_size": 2, "max_model_len": 32768,
               "enable_expert_parallel": true},
    "slo": {"concurrency": 4}})");
  EXPECT_NE(ep.find("\"enable_expert_parallel\": true"), std::string::npos);
  EXPECT_TRUE(parse_deploy_json(ep, "in.json").plan.expert_parallel);
  const auto d = parse_deploy_json(R"({"kvplan_deploy": 1, "model": "qwen3-next-80b-a3b",
    "hardware": {"gpu": "h200-141gb", "gpus": 2},
    "engine": {"name": "vllm", "tensor_parallel_size": 2, "max_model_len": 32768,
               "num_speculative_tokens": 3},
    "slo": {"concurrency": 4}})",
                                   "in.json");
  EXPECT_EQ(d.plan.vllm().num_speculative_tokens, 3u);
  const std::string spec = to_json(d);
  EXPECT_NE(spec.find("\"num_speculative_tokens\": 3"), std::string::npos);
  const std::string off = round_trip(R"({"kvplan_deploy": 1, "model": "gemma-2-9b",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "engine": {"name": "vllm", "max_model_len": 8192, "disable_hybrid_kv_cache_manager": true},
    "slo": {"concurrency": 1}})");
  EXPECT_NE(off.find("\"disable_hybrid_kv_cache_manager\": true"), std::string::npos);
  EXPECT_THROW(parse_deploy_json(R"({"kvplan_deploy": 1, "model": "llama-3.1-8b",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "engine": {"name": "vllm", "max_model_len": 8192, "decode_context_parallel_size": 0}})",
                                 "in.json"),
               Error);
}

// The drafts' acceptance is a vLLM engine key beside num_speculative_tokens (the serving
// simulator's input, docs/simulate.md): one rate A expands to A^i by position (0.5 for 3
// drafts: 0.5, 0.25, 0.125), a list is taken as vLLM's per-position rates, "A1,...,Ak" as
// --engine-option gives it; the writer keeps the list. A count other than 1 or k, a rising rate,
// a rate outside [0, 1] and rates without drafts are refused naming the key.
TEST(DeployWrite, AcceptanceRatesBesideTheDrafts) {
  const auto deploy = [](const std::string& engine_keys) {
    return R"({"kvplan_deploy": 1, "model": "llama-3.1-8b", "hardware": {"gpu": "h100-sxm-80gb"},
      "engine": {"name": "vllm", "max_model_len": 8192, )" +
           engine_keys + R"(}, "slo": {"concurrency": 1}})";
  };
  const auto one =
      parse_deploy_json(deploy(R"("num_speculative_tokens": 3, "acceptance_rate": 0.5)"), "a.json");
  EXPECT_EQ(one.plan.vllm().spec_acceptance, (std::vector<double>{0.5, 0.25, 0.125}));
  const std::string list =
      round_trip(deploy(R"("num_speculative_tokens": 3, "acceptance_rate": [0.8, 0.6, 0.4])"));
  EXPECT_NE(list.find("\"acceptance_rate\": ["), std::string::npos) << list;
  EXPECT_EQ(parse_deploy_json(list, "l.json").plan.vllm().spec_acceptance,
            (std::vector<double>{0.8, 0.6, 0.4}));
  const auto text = parse_deploy_json(
      deploy(R"("num_speculative_tokens": 2, "acceptance_rate": "0.9,0.7")"), "t.json");
  EXPECT_EQ(text.plan.vllm().spec_acceptance, (std::vector<double>{0.9, 0.7}));
  for (const char* bad :
       {R"("num_speculative_tokens": 3, "acceptance_rate": [0.8, 0.6])",
        R"("num_speculative_tokens": 2, "acceptance_rate": [0.6, 0.8])",
        R"("num_speculative_tokens": 2, "acceptance_rate": 1.5)", R"("acceptance_rate": 0.5)",
        R"("num_speculative_tokens": 2, "acceptance_rate": true)"}) {
    const std::string m = test::error_message([&] { parse_deploy_json(deploy(bad), "b.json"); });
    EXPECT_NE(m.find("b.json"), std::string::npos) << bad << ": " << m;
    EXPECT_NE(m.find("/engine/acceptance_rate"), std::string::npos) << bad << ": " << m;
  }
}

// Each engine's own options are deployment keys, spelled as the engine spells them; another
// engine's key is refused by name rather than silently ignored.
TEST(DeployWrite, EachEnginesOptionsAreItsOwnKeys) {
  const auto v = parse_deploy_json(R"({"kvplan_deploy": 1, "model": "llama-3.1-8b",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "engine": {"name": "vllm", "max_model_len": 8192, "num_gpu_blocks_override": 4000,
               "async_scheduling": false},
    "slo": {"concurrency": 1}})",
                                   "v.json");
  EXPECT_EQ(v.plan.vllm().num_gpu_blocks_override, std::uint64_t{4000});
  EXPECT_EQ(v.plan.vllm().async_scheduling, std::optional<bool>(false));
  EXPECT_EQ(plan_capacity(v.model, v.plan, "v.json").num_gpu_blocks, 4000u);
  EXPECT_NE(round_trip(to_json(v)).find("\"async_scheduling\": false"), std::string::npos);
  // vLLM's state dtypes under its own keys (TensorRT-LLM spells mamba_ssm_cache_dtype the same).
  const std::string hybrid = round_trip(R"({"kvplan_deploy": 1, "model": "qwen3-next-80b-a3b",
    "hardware": {"gpu": "h100-sxm-80gb", "gpus": 4},
    "engine": {"name": "vllm", "max_model_len": 8192, "tensor_parallel_size": 4,
               "mamba_cache_dtype": "float32", "mamba_ssm_cache_dtype": "float16"},
    "slo": {"concurrency": 1}})");
  const auto h = parse_deploy_json(hybrid, "h.json");
  EXPECT_EQ(h.plan.conv_state_dtype, std::optional<KvDtype>(KvDtype::fp32));
  EXPECT_EQ(h.plan.ssm_state_dtype, std::optional<KvDtype>(KvDtype::fp16));
  EXPECT_NE(hybrid.find("\"mamba_cache_dtype\": \"float32\""), std::string::npos) << hybrid;
  const std::string sglang = round_trip(R"({"kvplan_deploy": 1, "model": "gpt-oss-20b",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "engine": {"name": "sglang", "max_model_len": 8192, "swa_full_tokens_ratio": 0.5,
               "disable_hybrid_swa_memory": false, "mamba_full_memory_ratio": 1.5,
               "max_mamba_cache_size": 300, "max_total_tokens": 100000,
               "scheduler_recv_interval": 30, "disable_overlap_schedule": true,
               "mamba_ssm_dtype": "bfloat16"},
    "slo": {"concurrency": 1}})");
  const auto s = parse_deploy_json(sglang, "s.json");
  EXPECT_EQ(s.plan.sglang().swa_full_tokens_ratio_ppm, 500000u);
  EXPECT_EQ(s.plan.sglang().mamba_full_memory_ratio_ppm, 1500000u);
  EXPECT_EQ(s.plan.sglang().max_mamba_cache_size, std::uint64_t{300});
  EXPECT_EQ(s.plan.sglang().scheduler_recv_interval, 30u);
  EXPECT_TRUE(s.plan.sglang().disable_overlap_schedule);
  EXPECT_EQ(s.plan.ssm_state_dtype, std::optional<KvDtype>(KvDtype::bf16));
  EXPECT_EQ(s.plan.max_total_tokens, std::uint64_t{100000});
  const std::string trt = round_trip(R"({"kvplan_deploy": 1, "model": "gpt-oss-20b",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "engine": {"name": "trtllm", "max_model_len": 8192, "backend": "tensorrt",
               "max_attention_window": [128, 8192], "max_tokens": 50000,
               "mamba_ssm_cache_dtype": "float16"},
    "slo": {"concurrency": 1}})");
  const auto t = parse_deploy_json(trt, "t.json");
  EXPECT_EQ(t.plan.trtllm().backend, TrtllmOptions::Backend::tensorrt);
  EXPECT_EQ(t.plan.ssm_state_dtype, std::optional<KvDtype>(KvDtype::fp16));
  EXPECT_EQ(t.plan.trtllm().max_attention_window, (std::vector<std::uint64_t>{128, 8192}));
  EXPECT_EQ(t.plan.max_total_tokens, std::uint64_t{50000});
  EXPECT_NE(trt.find("\"max_tokens\": 50000"), std::string::npos) << trt;
  // A TensorRT engine's default tokens_per_block is 64 (the PyTorch backend's 32).
  EXPECT_EQ(plan_capacity(t.model, t.plan, "t.json").block_size, 64u);
  struct Bad {
    const char* engine;
    const char* key;
    const char* message;
  };
  for (const Bad& b : {Bad{"sglang", R"("num_speculative_tokens": 2)",
                           "is a vLLM setting; engine sglang does not read it"},
                       Bad{"vllm", R"("swa_full_tokens_ratio": 0.5)",
                           "is a SGLang setting; engine vllm does not read it"},
                       Bad{"vllm", R"("max_tokens": 1000)",
                           "is a TensorRT-LLM setting; engine vllm does not read it"},
                       Bad{"trtllm", R"("mamba_cache_dtype": "float32")",
                           "is a vLLM setting; engine trtllm does not read it"},
                       Bad{"vllm", R"("mamba_cache_dtype": "fp8")",
                           "/engine/mamba_cache_dtype: expected auto, float32"},
                       Bad{"trtllm", R"("backend": "onnx")",
                           "/engine/backend: unknown TensorRT-LLM backend \"onnx\""},
                       Bad{"trtllm", R"("max_attention_window": [0])",
                           "/engine/max_attention_window/0: must be between 1 and"},
                       Bad{"trtllm", R"("max_attention_window": [])",
                           "/engine/max_attention_window: expects a list of 1 to 4096"}}) {
    try {
      parse_deploy_json(std::string(R"({"kvplan_deploy": 1, "model": "llama-3.1-8b",
        "hardware": {"gpu": "h100-sxm-80gb"},
        "engine": {"name": ")") +
                            b.engine + R"(", "max_model_len": 8192, )" + b.key + "}}",
                        "bad.json");
      ADD_FAILURE() << b.key << " read under " << b.engine;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(b.message), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos) << e.what();
      EXPECT_EQ(e.exit_code(), 2);
    }
  }
}

TEST(DeployWrite, TheModelIsNamedAsTheCallerSays) {
  const Deployment d = parse_deploy_json(
      R"({"kvplan_deploy": 1, "model": "llama-3.1-8b", "hardware": {"gpu": "h100-sxm-80gb"},
          "engine": {"name": "vllm", "max_model_len": 8192}, "slo": {"concurrency": 1}})",
      "in.json");
  EXPECT_NE(to_json(d).find("\"model\": \"llama-3.1-8b\""), std::string::npos);
  EXPECT_NE(to_json(d, "models/my-llama.json").find("\"model\": \"models/my-llama.json\""),
            std::string::npos);
}

}  // namespace
}  // namespace kvplan
