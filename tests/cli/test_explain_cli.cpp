// kvplan explain on real startup logs (tests/data/logs, sources in its README.md): the exit code
// says whether every recomputed figure is within the ledger's tolerance, and the flags a log does
// not answer (--draft-layers) change the recomputation.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_run.hpp"
#include "temp_dir.hpp"

namespace kvplan {
namespace {

using test::run_kvplan;

const std::string kEagleLog =
    std::string("'") + KVPLAN_TEST_DATA_DIR + "/logs/vllm-v091dev-llama31-8b-eagle-h100.log'";

double kvplan_of(const nlohmann::json& j, const std::string& quantity) {
  for (const auto& row : j["rows"])
    if (row["quantity"] == quantity && !row["kvplan"].is_null()) return row["kvplan"].get<double>();
  ADD_FAILURE() << "no recomputed row " << quantity;
  return -1;
}

// vLLM issue #19996: Llama 3.1 8B with an EAGLE head on an H100, "Available KV cache memory: 51.63
// GiB", "GPU KV cache size: 410,128 tokens", 3.13x at 131,072. By hand: floor(51.63 · 2^30) =
// 55,437,557,022 B; a block of one layer is 16 tokens · 8 heads · 128 · 2 (K, V) · 2 B = 65,536 B.
// With the draft layer, 33 layers: 55,437,557,022 // (65,536 · 33) = 25,633 blocks = 410,128
// tokens, 410,128 / 131,072 = 3.129x. Without it, 32 layers: 26,434 blocks = 422,944 tokens.
TEST(ExplainCli, DraftLayersReproduceAnEagleLog) {
  const auto with =
      run_kvplan("explain " + kEagleLog + " --model llama-3.1-8b --draft-layers 1 --format json");
  ASSERT_EQ(with.code, 0) << with.err << with.out;
  const auto a = nlohmann::json::parse(with.out);
  EXPECT_TRUE(a["all_within"].get<bool>());
  EXPECT_EQ(kvplan_of(a, "GPU KV cache size (tokens)"), 410128);

  const auto without = run_kvplan("explain " + kEagleLog + " --model llama-3.1-8b --format json");
  EXPECT_EQ(without.code, 1) << without.err;
  const auto b = nlohmann::json::parse(without.out);
  EXPECT_FALSE(b["all_within"].get<bool>());
  EXPECT_EQ(kvplan_of(b, "GPU KV cache size (tokens)"), 422944);
}

TEST(ExplainCli, AbsurdDraftLayersAreRefused) {
  const auto r = run_kvplan("explain " + kEagleLog + " --model llama-3.1-8b --draft-layers 5000");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("draft-layers"), std::string::npos) << r.err;
}

// The memory profile's figures are logged-only rows and never fail a log (phi-4 under vLLM 0.8.2:
// activation 1.16 GiB, non-torch 0.09 GiB, CUDA graphs 1.12 GiB; the blocks reproduce).
TEST(ExplainCli, MemoryProfileRowsAreShownNotCounted) {
  const auto r =
      run_kvplan(std::string("explain '") + KVPLAN_TEST_DATA_DIR +
                 "/logs/vllm-v082-v0-phi-4-bnb4-a100-80g.log' --model phi-4 --format md");
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  // kvplan's vLLM terms beside the logged ones (the arithmetic: tests/core/test_engine_log.cpp,
  // ReadsTheV0MemoryProfile), each saying how it was found; the graphs' 0.58 GiB is fitted.
  EXPECT_NE(r.out.find("| activation peak (GiB) | 1.16 | 1.09 | +5.630% (kvplan's model, not "
                       "counted) | kvplan derived: "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("| CUDA graph memory (GiB) | 1.12 | 0.58 | "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(kvplan's model, not counted)"), std::string::npos) << r.out;
}

// Without --model, the log's own model reference is used; when it cannot be loaded the error says
// so, naming the log (issue 30, class 3), instead of naming a path the user never typed.
TEST(ExplainCli, AModelPathFromTheLogIsSaidToComeFromIt) {
  test::TempDir dir;
  const std::string log = dir.file("vllm.log");
  std::ofstream(log) << "INFO Initializing a V1 LLM engine (v0.10.0) with config: "
                        "model='/nonexistent/llama', max_seq_len=8192\n"
                        "INFO Available KV cache memory: 10.00 GiB\n";
  const auto r = run_kvplan("explain '" + log + "'");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find(log + ": model: the model the log's config line names, "
                             "'/nonexistent/llama', cannot be loaded"),
            std::string::npos)
      << r.err;
}

// A failed start: vLLM's refusal as kv_cache_utils.py@001cabc1 raises it ("To serve at least one
// request with the models's max seq len (16384), (2.00 GiB KV cache is needed, which is larger
// than the available KV cache memory (1.71 GiB). ..."), on a model path the log names. By hand
// (tests/core/test_start_failure.cpp): Llama-3.1-8B bf16 holds 128 KiB a token, a block of 16
// tokens is 2 MiB; floor(1.71 · 2^30) = 1,836,098,519 B is 875 blocks, one of them vLLM's null
// block: 874 · 16 = 13,984 tokens. 16,384 tokens need 1,025 blocks = 2,149,580,800 B; on an L4
// (24,152,899,584 B) 0.90 + (2,149,580,800 − 1,836,098,519 + 5,368,709) / 24,152,899,584 = 0.9132
// → 0.92.
TEST(ExplainCli, AFailedStartSaysWhyAndTheFix) {
  test::TempDir dir;
  const std::string log = dir.file("vllm.log");
  std::ofstream(log)
      << "INFO 11-02 10:00:00 [core.py:74] Initializing a V1 LLM engine (v0.11.0) with config: "
         "model='/models/Meta-Llama-3.1-8B-Instruct', max_seq_len=16384, "
         "tensor_parallel_size=1, kv_cache_dtype=auto\n"
         "INFO 11-02 10:00:09 [gpu_worker.py:276] Available KV cache memory: 1.71 GiB\n"
         "ERROR 11-02 10:00:09 [core.py:700] ValueError: To serve at least one request with the "
         "models's max seq len (16384), (2.00 GiB KV cache is needed, which is larger than the "
         "available KV cache memory (1.71 GiB). Based on the available memory, the estimated "
         "maximum model length is 13984. Try increasing `gpu_memory_utilization` or decreasing "
         "`max_model_len` when initializing the engine.\n";
  const auto r = run_kvplan("explain '" + log + "' --gpu l4");
  EXPECT_EQ(r.code, 1) << r.err << r.out;  // the start failed
  EXPECT_NE(r.out.find("model: resolved /models/Meta-Llama-3.1-8B-Instruct to preset "
                       "llama-3.1-8b by name"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("vLLM refused to start: one request of max_model_len 16,384 tokens needs "
                       "2.00 GiB of KV cache per GPU, and the GPU had 1.71 GiB left for it"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("fix: 1.71 GiB holds 13,984 tokens: --max-model-len 13984, or "
                       "--gpu-memory-utilization 0.92"),
            std::string::npos)
      << r.out;
  const auto j = run_kvplan("explain '" + log + "' --gpu l4 --format json");
  ASSERT_EQ(j.code, 1) << j.err;
  const auto v = nlohmann::json::parse(j.out);
  EXPECT_EQ(v["failure"]["max_model_len_fit"], 13984);
  EXPECT_EQ(v["failure"]["fraction_fit"], 0.92);
  EXPECT_FALSE(v["all_within"].get<bool>());
}

// vLLM issue #27508's log stops at "Available KV cache memory: 1.71 GiB" and "EngineCore failed
// to start.": gpt-oss-120b's default max_model_len (its 131,072 positions) does not fit, so the
// answer names the max_model_len that does instead of an empty table.
TEST(ExplainCli, ALogCutAfterTheKvMemoryStillGetsAFix) {
  const auto r = run_kvplan(std::string("explain '") + KVPLAN_TEST_DATA_DIR +
                            "/logs/vllm-v1-gpt-oss-120b-h100-095.log' --model gpt-oss-120b");
  EXPECT_EQ(r.code, 1) << r.err << r.out;
  EXPECT_NE(r.out.find("after it found 1.71 GiB for the KV cache, less than one request of "
                       "max_model_len 131,072 tokens needs"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("fix: 1.71 GiB holds "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--max-model-len "), std::string::npos) << r.out;
}

}  // namespace
}  // namespace kvplan
