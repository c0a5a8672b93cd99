// kvplan explain: engine startup logs read and their KV numbers recomputed. The unit cases quote
// real log lines (tests/data/logs, sources in its README.md); the ledger test runs every row of
// tests/data/logs/ledger.tsv, the rows of docs/accuracy.md.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "kvplan/engine_log.hpp"
#include "kvplan/error.hpp"
#include "kvplan/gpu.hpp"
#include "kvplan/model.hpp"

namespace kvplan {
namespace {

TEST(EngineLog, ReadsVllmV1Lines) {
  const auto g = parse_engine_log(
      "INFO [core.py:96] Initializing a V1 LLM engine (v0.15.1) with config: model='/m/Llama', "
      "speculative_config=None, max_seq_len=131072, tensor_parallel_size=1, kv_cache_dtype=auto, "
      "x\n"
      "INFO [gpu_model_runner.py:4130] Model loading took 14.99 GiB memory and 6.72 seconds\n"
      "INFO [gpu_worker.py:356] Available KV cache memory: 19.28 GiB\n"
      "INFO [kv_cache_utils.py:1307] GPU KV cache size: 157,936 tokens\n"
      "INFO [kv_cache_utils.py:1312] Maximum concurrency for 131,072 tokens per request: 1.20x\n",
      "log");
  EXPECT_EQ(g.engine, Engine::vllm);
  EXPECT_EQ(g.version, "0.15.1");
  EXPECT_EQ(g.model, "/m/Llama");
  EXPECT_EQ(g.max_model_len.value_or(0), 131072u);
  EXPECT_EQ(g.kv_cache_dtype.value_or(""), "auto");
  EXPECT_EQ(g.available_kv_bytes.value_or(0), static_cast<std::uint64_t>(19.28 * 1073741824.0));
  EXPECT_EQ(g.kv_cache_tokens.value_or(0), 157936u);
  EXPECT_DOUBLE_EQ(g.max_concurrency.value_or(0), 1.20);
  EXPECT_EQ(g.concurrency_tokens.value_or(0), 131072u);
  // Recomputed: 19.28 GiB // 65,536 B page // 32 layers = 9,871 blocks; int(9871 / 8192 ·
  // 131072) = 157,936 tokens, 1.20x — the log's own numbers.
  const auto r = explain_log(g, load_model("llama-3.1-8b"));
  EXPECT_TRUE(r.all_within());
}

TEST(EngineLog, ReadsSglangAndTrtllmLines) {
  const auto s = parse_engine_log(
      "[2025-07-22 TP0] KV Cache is allocated. #tokens: 367404, K size: 8.23 GB, V size: 8.23 GB\n",
      "sglang.log");
  EXPECT_EQ(s.engine, Engine::sglang);
  EXPECT_EQ(s.kv_cache_tokens.value_or(0), 367404u);
  EXPECT_EQ(s.kv_pool_bytes.value_or(0), 2 * static_cast<std::uint64_t>(8.23 * 1073741824.0));
  const auto t = parse_engine_log(
      "[TensorRT-LLM][INFO] Number of blocks in KV cache primary pool: 8219\n"
      "[TensorRT-LLM][INFO] Number of tokens per block: 32.\n"
      "[TensorRT-LLM][INFO] [MemUsageChange] Allocated 16.05 GiB for max tokens in paged KV cache "
      "(263008)\n",
      "trt.log");
  EXPECT_EQ(t.engine, Engine::trtllm);
  EXPECT_EQ(t.num_gpu_blocks.value_or(0), 8219u);
  EXPECT_EQ(t.tokens_per_block.value_or(0), 32u);
  EXPECT_EQ(t.kv_cache_tokens.value_or(0), 263008u);
  // 16.05 GiB / (32 tokens · 32 layers · 8 heads · 256 · 1 B fp8) = 8,217 blocks (log: 8,219, the
  // allocation printed to 0.01 GiB).
  ExplainOverrides o;
  o.kv_cache_dtype = "fp8";
  EXPECT_TRUE(explain_log(t, load_model("llama-3.1-8b"), o).all_within());
}

// The log calibrates kvplan's memory model: on the A100 40GB the post names, 0.9 · 40 GiB −
// kvplan's 16,060,522,496 weight bytes − the logged 19.28 GiB = the reserve; with it, plan's own
// memory model gives back the logged 157,936 tokens.
TEST(EngineLog, CalibrationReproducesTheLogFromTheGpu) {
  const auto log =
      load_engine_log(std::string(KVPLAN_TEST_DATA_DIR) + "/logs/vllm-v0151-llama31-8b-a100.log");
  const auto m = load_model("llama-3.1-8b");
  ExplainOverrides o;
  o.gpu_memory_bytes = load_gpu("a100-40gb").memory_bytes;  // 42,949,672,960
  const auto r = explain_log(log, m, o);
  ASSERT_TRUE(r.measured_reserve_bytes.has_value());
  const std::uint64_t requested = 42949672960ull * 900000 / 1000000;  // 38,654,705,664
  const std::uint64_t available = static_cast<std::uint64_t>(19.28 * 1073741824.0);
  EXPECT_EQ(*r.measured_reserve_bytes, requested - 16060522496ull - available);
  PlanInput in;
  in.context = 131072;
  in.gpu_memory_bytes = o.gpu_memory_bytes;
  in.reserve_bytes = calibration_of(r).reserve_bytes;
  EXPECT_EQ(plan_capacity(m, in).kv_cache_tokens, 157936u);
}

// Found by fuzz_engine_log: a log's tp_size=0 or "tokens per block: 0" divided by zero.
TEST(EngineLog, ZeroTpOrBlockIsRefused) {
  const auto m = load_model("llama-3.1-8b");
  const auto a = parse_engine_log(
      "[TensorRT-LLM][INFO] Number of tokens per block: 0.\n"
      "[TensorRT-LLM][INFO] Allocated 1.00 GiB for max tokens in paged KV cache (100)\n",
      "t.log");
  EXPECT_THROW(explain_log(a, m), Error);
  const auto b = parse_engine_log(
      "tp_size=0 KV Cache is allocated. #tokens: 5, K size: 1.00 GB, "
      "V size: 1.00 GB\n",
      "s.log");
  EXPECT_THROW(explain_log(b, m), Error);
}

TEST(EngineLog, NoKvLineIsAnError) {
  EXPECT_THROW(parse_engine_log("hello\nworld\n", "x.log"), Error);
}

// Every row of the ledger does what the ledger says.
TEST(EngineLog, LedgerRows) {
  const std::string dir = std::string(KVPLAN_TEST_DATA_DIR) + "/logs/";
  std::ifstream in(dir + "ledger.tsv");
  ASSERT_TRUE(in) << "no ledger";
  int rows = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream cols(line);
    std::string file, model, flags, expect;
    std::getline(cols, file, '\t');
    std::getline(cols, model, '\t');
    std::getline(cols, flags, '\t');
    std::getline(cols, expect, '\t');
    SCOPED_TRACE(file);
    ExplainOverrides o;
    std::istringstream f(flags == "-" ? "" : flags);
    for (std::string k, v; f >> k >> v;) {
      if (k == "--tp")
        o.tp = static_cast<std::uint32_t>(std::stoul(v));
      else if (k == "--max-model-len")
        o.max_model_len = std::stoull(v);
      else if (k == "--kv-cache-dtype")
        o.kv_cache_dtype = v;
      else
        ADD_FAILURE() << "unknown ledger flag " << k;
    }
    const auto r = explain_log(load_engine_log(dir + file), load_model(model), o);
    bool any_recomputed = false;
    for (const auto& row : r.rows)
      any_recomputed = any_recomputed || (row.kvplan && row.quantity != "weights per GPU (GiB)");
    if (expect == "reproduced") {
      EXPECT_TRUE(r.all_within());
    } else if (expect == "cannot") {
      EXPECT_FALSE(any_recomputed);
    } else if (expect == "differs") {
      EXPECT_TRUE(any_recomputed);
      EXPECT_FALSE(r.all_within());
    } else {
      ADD_FAILURE() << "unknown expectation " << expect;
    }
    ++rows;
  }
  EXPECT_GE(rows, 9);
}

}  // namespace
}  // namespace kvplan
