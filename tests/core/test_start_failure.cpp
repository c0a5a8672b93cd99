// Startup logs of engines that failed to start (kvplan/start_failure.hpp): the engine's words
// read, and the fix computed by kvplan's arithmetic. Every expected figure is hand arithmetic
// in the comment beside it, or the engine's own text.
#include <gtest/gtest.h>

#include <string>

#include "kvplan/error.hpp"
#include "kvplan/gpu.hpp"
#include "kvplan/model_ref.hpp"
#include "kvplan/start_failure.hpp"

namespace kvplan {
namespace {

// vLLM V1's refusal, as _check_enough_kv_cache_memory raises it (vllm/v1/core/kv_cache_utils.py
// @001cabc1: "To serve at least one request with the models's max seq len ({max_model_len}),
// ({format_gib(needed_memory)} GiB KV cache is needed, which is larger than the available KV
// cache memory ({format_gib(available_memory)} GiB). Based on the available memory, the
// estimated maximum model length is {estimated_max_len}. Try increasing ...").
std::string refused_log(std::uint64_t max_model_len, const std::string& needed_gib,
                        std::uint64_t estimated) {
  return "(EngineCore_0 pid=1) INFO 11-02 10:00:00 [core.py:74] Initializing a V1 LLM engine "
         "(v0.11.0) with config: model='meta-llama/Meta-Llama-3.1-8B-Instruct', "
         "max_seq_len=" +
         std::to_string(max_model_len) +
         ", tensor_parallel_size=1, kv_cache_dtype=auto\n"
         "(EngineCore_0 pid=1) INFO 11-02 10:00:09 [gpu_worker.py:276] Available KV cache memory: "
         "1.71 GiB\n"
         "(EngineCore_0 pid=1) ERROR 11-02 10:00:09 [core.py:700] ValueError: To serve at least "
         "one request with the models's max seq len (" +
         std::to_string(max_model_len) + "), (" + needed_gib +
         " GiB KV cache is needed, which is larger than the available KV cache memory (1.71 "
         "GiB). Based on the available memory, the estimated maximum model length is " +
         std::to_string(estimated) +
         ". Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
         "initializing the engine. See "
         "https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details.\n";
}

TEST(StartFailure, ReadsVllmsRefusal) {
  const auto s = parse_startup_log(refused_log(131072, "16.00", 13984), "vllm.log");
  ASSERT_TRUE(s.failure);
  const StartFailure& f = *s.failure;
  EXPECT_EQ(f.kind, StartFailureKind::kv_cache_too_small);
  EXPECT_EQ(f.line, 3u);
  EXPECT_EQ(f.max_model_len, 131072u);
  EXPECT_EQ(f.needed_bytes, std::uint64_t{16} << 30);  // 16.00 GiB
  EXPECT_EQ(f.available_bytes, 1836098519u);           // floor(1.71 · 2^30)
  EXPECT_EQ(f.estimated_max_model_len, 13984u);
  EXPECT_EQ(f.message.rfind("ValueError: To serve at least one request", 0), 0u) << f.message;
  // The log has no "GPU KV cache size": parse_engine_log takes it for the failure it is.
  EXPECT_EQ(s.log.max_model_len, 131072u);
  EXPECT_EQ(s.log.available_kv_bytes, 1836098519u);
}

// Llama-3.1-8B in bf16: 2 (K, V) · 8 KV heads · 128 · 2 B = 4,096 B per token per layer; a block
// of 16 tokens over 32 layers is 16 · 4,096 · 32 = 2,097,152 B (2 MiB), 128 KiB a token.
// 1.71 GiB = floor(1.71 · 2^30) = 1,836,098,519 B holds 875 blocks (875.5); vLLM keeps one as its
// null block, so one request of at most 874 · 16 = 13,984 tokens starts.
// max_model_len 16,384 takes 1,024 blocks + the null block = 1,025 · 2 MiB = 2,149,580,800 B.
// On an L4 (the driver's 24,152,899,584 B less the 0.71 GiB, 762,356,695 B, kvplan takes off a
// preset without a logged CUDA total: 23,390,542,889 B), gpu_memory_utilization 0.90 (the
// default) + (2,149,580,800 − 1,836,098,519 + 5,368,709 (the 0.005 GiB the logged figure may be
// short)) / 23,390,542,889 = 0.90 + 318,850,990 / 23,390,542,889 = 0.9136 → 0.92.
TEST(StartFailure, TheFixIsAMaxModelLenThatFitsOrAMemoryFraction) {
  const auto s = parse_startup_log(refused_log(16384, "2.00", 13984), "vllm.log");
  ASSERT_TRUE(s.failure);
  ExplainOverrides o;
  o.gpu_memory_bytes = load_gpu("l4").engine_memory_bytes();
  ASSERT_EQ(o.gpu_memory_bytes, 23390542889u);
  const auto x = explain_start_failure(s.log, *s.failure, load_model("llama-3.1-8b"), o);
  EXPECT_EQ(x.max_model_len_fit, 13984u);
  EXPECT_EQ(x.fraction_fit_ppm, 920000u);
  ASSERT_FALSE(x.fixes.empty());
  EXPECT_EQ(
      x.fixes[0],
      "1.71 GiB holds 13,984 tokens: --max-model-len 13984, or --gpu-memory-utilization 0.92");
  EXPECT_NE(x.summary.find("one request of max_model_len 16,384 tokens needs 2.00 GiB"),
            std::string::npos)
      << x.summary;
}

// At max_model_len 131,072 the request needs 8,193 · 2 MiB = 17,181,966,336 B: 0.90 +
// (17,181,966,336 − 1,836,098,519 + 5,368,709) / 24,152,899,584 = 1.5356: no fraction of an L4 is
// enough, and the fix is the max_model_len alone.
TEST(StartFailure, NoMemoryFractionIsEnoughForTheWholeContext) {
  const auto s = parse_startup_log(refused_log(131072, "16.00", 13984), "vllm.log");
  ExplainOverrides o;
  o.gpu_memory_bytes = load_gpu("l4").engine_memory_bytes();
  const auto x = explain_start_failure(s.log, *s.failure, load_model("llama-3.1-8b"), o);
  EXPECT_EQ(x.max_model_len_fit, 13984u);
  EXPECT_FALSE(x.fraction_fit_ppm);
  ASSERT_FALSE(x.fixes.empty());
  EXPECT_EQ(x.fixes[0], "1.71 GiB holds 13,984 tokens: --max-model-len 13984");
}

// "Free memory on device cuda:0 (7.34/15.49 GiB) on startup is less than desired GPU memory
// utilization (0.8, 12.39 GiB)." (vllm/v1/worker/utils.py@0027b027 request_memory): 7.34 / 15.49
// = 0.4738, so at most 0.47; another process holds 15.49 − 7.34 = 8.15 GiB.
TEST(StartFailure, FreeMemoryShortGivesTheFractionThatIsFree) {
  const std::string log =
      "INFO Initializing a V1 LLM engine (v0.11.0) with config: model='meta-llama/Llama-3.1-8B', "
      "max_seq_len=8192, tensor_parallel_size=1\n"
      "ValueError: Free memory on device cuda:0 (7.34/15.49 GiB) on startup is less than desired "
      "GPU memory utilization (0.8, 12.39 GiB). Decrease GPU memory utilization or reduce GPU "
      "memory used by other processes.\n";
  const auto s = parse_startup_log(log, "vllm.log");
  ASSERT_TRUE(s.failure);
  EXPECT_EQ(s.failure->kind, StartFailureKind::free_memory_short);
  EXPECT_EQ(s.failure->fraction_ppm, 800000u);
  const auto x = explain_start_failure(s.log, *s.failure, load_model("llama-3.1-8b"));
  EXPECT_EQ(x.fraction_fit_ppm, 470000u);
  EXPECT_NE(x.summary.find("another process holds 8.15 GiB"), std::string::npos) << x.summary;
}

TEST(StartFailure, SamplerWarmUpAndSglangAreRead) {
  const auto v = find_start_failure(
      "RuntimeError: CUDA out of memory occurred when warming up sampler with 256 dummy "
      "requests. Please try lowering `max_num_seqs` or `gpu_memory_utilization` when "
      "initializing the engine.\n",
      "a.log");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->kind, StartFailureKind::sampler_oom);
  EXPECT_EQ(v->sampler_requests, 256u);
  const auto g = find_start_failure(
      "Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=12.25 GB, mem "
      "usage=125.65 GB.\nRuntimeError: Not enough memory. Please try to increase "
      "--mem-fraction-static.\n",
      "b.log");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->kind, StartFailureKind::sglang_no_memory);
  EXPECT_EQ(g->avail_after_weights_bytes, 13153337344u);  // floor(12.25 · 2^30)
  EXPECT_FALSE(find_start_failure("INFO all good\n", "c.log"));
}

// vLLM issue #23278's log ends at "Available KV cache memory: -2.14 GiB" and "EngineCore failed
// to start.": vLLM refuses a non-positive figure ("No available memory for the cache blocks",
// kv_cache_utils.py@001cabc1), and the figure keeps its sign.
TEST(StartFailure, ANegativeKvMemoryIsNoMemoryAtAll) {
  const auto s = load_startup_log(std::string(KVPLAN_TEST_DATA_DIR) +
                                  "/logs/vllm-v1-gpt-oss-120b-h100-negative.log");
  ASSERT_TRUE(s.failure);
  EXPECT_EQ(s.failure->kind, StartFailureKind::no_kv_memory);
  EXPECT_EQ(s.failure->available_gib, -2.14);
  EXPECT_EQ(s.failure->line, 4u);
}

// A start that failed after the KV cache was sized, in vLLM's format (a constructed log, its
// figures those of llm-d/llm-d-benchmark PR #1791: Qwen3-32B on an H100 at 0.95, 12.50 GiB of
// KV cache, then the sampler warm-up's OOM), under vLLM 0.25.1: Model Runner V2 for a dense model.
// One request fits the KV cache, so the reason is elsewhere: kvplan's terms put 4.25 GiB beside
// the budget (EngineMemory.ModelRunnerV2SamplerStateAndWarmupSitOutsideTheBudget) where 0.05 x
// 79.18 GiB leaves 3.96, and floor((1 - 4.25 / 79.18) x 100) / 100 = 0.94 starts.
TEST(StartFailure, AFailureAfterTheKvCacheNamesWhatIsAllocatedBesideTheBudget) {
  const std::string log =
      "(EngineCore_0 pid=1) INFO 12-05 10:00:00 [core.py:74] Initializing a V1 LLM engine "
      "(v0.25.1) with config: model='Qwen/Qwen3-32B', max_seq_len=40960, "
      "tensor_parallel_size=1, gpu_memory_utilization=0.95\n"
      "(EngineCore_0 pid=1) INFO 12-05 10:00:09 [gpu_worker.py:276] Available KV cache memory: "
      "12.50 GiB\n"
      "(EngineCore_0 pid=1) ERROR 12-05 10:00:30 [core.py:700] EngineCore failed to start.\n";
  const auto s = parse_startup_log(log, "vllm.log");
  ASSERT_TRUE(s.failure);
  ExplainOverrides o;
  o.gpu_id = "h100-sxm-80gb";
  o.gpu_memory_bytes = load_gpu("h100-sxm-80gb").engine_memory_bytes();
  const auto x = explain_start_failure(s.log, *s.failure, load_model("qwen3-32b"), o);
  EXPECT_NE(x.summary.find("the reason is not in the KV cache, but beside the budget kvplan's "
                           "terms need 4.25 GiB where 0.95 leaves 3.96 GiB"),
            std::string::npos)
      << x.summary;
  EXPECT_EQ(x.fraction_fit_ppm, 940000u);
  ASSERT_FALSE(x.fixes.empty());
  EXPECT_EQ(x.fixes[0].rfind("--gpu-memory-utilization 0.94", 0), 0u) << x.fixes[0];
}

TEST(ModelReference, PathsAndOlderRepoIdsResolveByName) {
  for (const std::string ref : {"meta-llama/Meta-Llama-3.1-8B-Instruct",
                                "/models/Meta-Llama-3.1-8B-Instruct", "/models/Llama-3.1-8B/"}) {
    SCOPED_TRACE(ref);
    const auto r = resolve_model_reference(ref, "vllm.log");
    EXPECT_EQ(r.model.preset, "llama-3.1-8b");
    EXPECT_EQ(r.model.id, ref);
    EXPECT_EQ(r.note, "resolved " + ref + " to preset llama-3.1-8b by name");
  }
  // A repo id a preset lists resolves as before, and says which preset.
  EXPECT_EQ(
      resolve_model_reference("meta-llama/Llama-3.1-8B-Instruct", "x").note,
      "resolved meta-llama/Llama-3.1-8B-Instruct to preset llama-3.1-8b (a repo id it lists)");
  // A bare family name is ambiguous: the error names the presets it could be.
  try {
    resolve_model_reference("./llama", "vllm.log");
    FAIL() << "./llama resolved";
  } catch (const Error& e) {
    EXPECT_EQ(e.source(), "vllm.log");
    EXPECT_NE(std::string(e.what()).find("by name it could be any of llama-2-70b, llama-2-7b"),
              std::string::npos)
        << e.what();
  }
  // A quantized variant's weights differ: no match.
  EXPECT_THROW(resolve_model_reference("/models/Meta-Llama-3.1-8B-Instruct-FP8", "x"), Error);
}

}  // namespace
}  // namespace kvplan
