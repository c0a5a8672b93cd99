// to_json(Deployment): core writes what core reads. Every field parse_deploy_json reads survives
// a write and a read back.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "kvplan/deploy.hpp"
#include "kvplan/error.hpp"

namespace kvplan {
namespace {

void expect_same(const Deployment& a, const Deployment& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.model.id, b.model.id);
  EXPECT_EQ(a.model.layers.size(), b.model.layers.size());
  EXPECT_EQ(a.gpu.id, b.gpu.id);
  EXPECT_EQ(a.gpu.memory_bytes, b.gpu.memory_bytes);
  EXPECT_EQ(a.gpu.price_per_hour, b.gpu.price_per_hour);
  const PlanInput &p = a.plan, &q = b.plan;
  EXPECT_EQ(p.engine, q.engine);
  EXPECT_EQ(p.vllm.rules, q.vllm.rules);
  EXPECT_TRUE(p.format == q.format) << to_string(p.format) << " vs " << to_string(q.format);
  EXPECT_EQ(to_string(p.policy), to_string(q.policy));
  EXPECT_EQ(p.block_size, q.block_size);
  EXPECT_EQ(p.tp, q.tp);
  EXPECT_EQ(p.pp, q.pp);
  EXPECT_EQ(p.gpus, q.gpus);
  EXPECT_EQ(p.context, q.context);
  EXPECT_EQ(p.concurrency, q.concurrency);
  EXPECT_EQ(p.max_num_batched_tokens, q.max_num_batched_tokens);
  EXPECT_EQ(p.draft_layers, q.draft_layers);
  EXPECT_EQ(p.vllm.mamba_cache_mode, q.vllm.mamba_cache_mode);
  EXPECT_EQ(p.vllm.dcp, q.vllm.dcp);
  EXPECT_EQ(p.vllm.disable_hybrid_kv_cache_manager, q.vllm.disable_hybrid_kv_cache_manager);
  EXPECT_EQ(p.vllm.num_speculative_tokens, q.vllm.num_speculative_tokens);
  EXPECT_EQ(p.gpu_memory_bytes, q.gpu_memory_bytes);
  EXPECT_EQ(p.memory_fraction_ppm, q.memory_fraction_ppm);
  EXPECT_EQ(p.weight_dtype, q.weight_dtype);
  EXPECT_EQ(p.reserve_bytes, q.reserve_bytes);
  EXPECT_EQ(p.available_kv_bytes, q.available_kv_bytes);
  EXPECT_EQ(a.max_num_seqs, b.max_num_seqs);
  EXPECT_EQ(a.cuda_graphs, b.cuda_graphs);
  EXPECT_EQ(a.slo.context, b.slo.context);
  EXPECT_EQ(a.slo.concurrency, b.slo.concurrency);
  EXPECT_EQ(a.slo.mean_context, b.slo.mean_context);
  EXPECT_EQ(a.slo.min_kv_cache_tokens, b.slo.min_kv_cache_tokens);
  EXPECT_EQ(a.slo.max_cost_per_hour, b.slo.max_cost_per_hour);
}

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
  expect_same(d, back);
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
  const auto d = parse_deploy_json(R"({"kvplan_deploy": 1, "model": "qwen3-next-80b-a3b",
    "hardware": {"gpu": "h200-141gb", "gpus": 2},
    "engine": {"name": "vllm", "tensor_parallel_size": 2, "max_model_len": 32768,
               "num_speculative_tokens": 3},
    "slo": {"concurrency": 4}})",
                                   "in.json");
  EXPECT_EQ(d.plan.vllm.num_speculative_tokens, 3u);
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
