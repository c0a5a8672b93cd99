// kvplan explain: engine startup logs read and their KV numbers recomputed. The unit cases quote
// real log lines (tests/data/logs, sources in its README.md); the ledger test runs every row of
// tests/data/logs/ledger.tsv, the rows of docs/accuracy.md.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "kvplan/engine_log.hpp"
#include "kvplan/engine_rules.hpp"
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
  in.memory_fraction_ppm = 900000;  // v0.15.1's default (0.92 from 0.20: vllm-project/vllm#38284)
  EXPECT_EQ(plan_capacity(m, in).kv_cache_tokens, 157936u);
}

// A log that prints its memory profile calibrates term by term (PR #10511's Meta-Llama-3-8B
// profile on an 80 GB card: activation peak 1.26 GiB, non-torch 1.79 GiB): the calibration
// carries logged − kvplan's term for the log's own settings, and a deployment run with it gets
// kvplan's term for its settings plus that difference — at the log's settings exactly the
// logged figures, at other settings still the model's arithmetic.
TEST(EngineLog, CalibrationCorrectsEachTermTheLogPrints) {
  const auto log = load_engine_log(std::string(KVPLAN_TEST_DATA_DIR) +
                                   "/logs/vllm-v0-llama3-8b-memprofile-80g.log");
  const auto m = load_model("llama-3.1-8b");
  ExplainOverrides o;
  o.gpu_memory_bytes = load_gpu("h100-sxm-80gb").engine_memory_bytes();
  o.gpu_id = "h100-sxm-80gb";
  o.max_model_len = 8192;
  o.max_num_seqs = 256;  // V0's default then (vllm/engine/arg_utils.py: max_num_seqs 256)
  const auto r = explain_log(log, m, o);
  const Calibration c = calibration_of(r);
  ASSERT_TRUE(c.terms.has_value());
  EXPECT_LT(c.terms->graphs_bytes, 0);  // V0 logs no graph memory
  // Through the file and back.
  const std::string path = ::testing::TempDir() + "kvplan-terms-calibration.json";
  save_calibration(c, path);
  const Calibration back = load_calibration(path);
  std::remove(path.c_str());
  ASSERT_TRUE(back.terms.has_value());
  EXPECT_EQ(back.terms->activation_delta_bytes, c.terms->activation_delta_bytes);
  EXPECT_EQ(back.terms->non_torch_delta_bytes, c.terms->non_torch_delta_bytes);
  PlanInput in = r.input;
  in.memory_corrections = back.terms;
  MemoryTerms t = engine_rules(in).memory_terms({m, in, true});
  apply_corrections(t, *in.memory_corrections);
  // The logged figures, as the log rounds them (parsed to whole bytes from two decimals).
  EXPECT_EQ(t.activation.bytes, static_cast<std::uint64_t>(1.26 * 1073741824.0));
  EXPECT_EQ(t.non_torch.bytes, static_cast<std::uint64_t>(1.79 * 1073741824.0));
  EXPECT_EQ(t.activation.basis, MemoryTerm::Basis::measured);
  // 1024 sampler rows instead of the log's 256: kvplan's sampler term moves by
  // 9.5 · (1024 − 256) · 128256 · 4 B + 2 · (1024 − 256) · 4096 · 2 B = 3,755,606,016 B and the
  // correction stays.
  PlanInput more = in;
  more.max_num_seqs = 1024;
  MemoryTerms u = engine_rules(more).memory_terms({m, more, true});
  apply_corrections(u, *more.memory_corrections);
  EXPECT_EQ(u.activation.bytes - t.activation.bytes, 3755606016u);
  // A file whose correction is not whole bytes is refused, naming the field.
  {
    std::ofstream f(path);
    f << R"({"kvplan_calibration": 1, "engine": "vllm", "terms": {"activation_delta_bytes": 1.5}})";
  }
  try {
    load_calibration(path);
    ADD_FAILURE() << "a fractional byte count was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("activation_delta_bytes"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
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

const std::string kLogs = std::string(KVPLAN_TEST_DATA_DIR) + "/logs/";
constexpr double kGiBd = 1073741824.0;
std::uint64_t gib(double v) { return static_cast<std::uint64_t>(v * kGiBd); }

const ExplainRow* row_of(const ExplainReport& r, const std::string& quantity) {
  for (const auto& row : r.rows)
    if (row.quantity == quantity) return &row;
  return nullptr;
}

// vLLM 0.8.2's V0 memory profile (vllm-v082-v0-phi-4-bnb4-a100-80g.log): "model weights take
// 8.63GiB; non_torch_memory takes 0.09GiB; PyTorch activation peak memory takes 1.16GiB; the rest
// of the memory reserved for KV Cache is 45.21GiB.", "# cuda blocks: 14815", "Graph capturing
// finished in 59 secs, took 1.12 GiB". Phi-4: 40 layers · 10 KV heads · 128 · 2 (K, V) · 2 B =
// 204,800 B a token, 3,276,800 B a 16-token block; 45.21 GiB / 3,276,800 = 14,814.5 -> 14,814
// blocks (the log's 14,815: 45.21 is rounded to 0.01 GiB, ±1.6 blocks).
TEST(EngineLog, ReadsTheV0MemoryProfile) {
  const auto g = load_engine_log(kLogs + "vllm-v082-v0-phi-4-bnb4-a100-80g.log");
  EXPECT_EQ(g.version, "0.8.2");  // "Initializing a V0 LLM engine (v0.8.2) with config"
  EXPECT_EQ(g.weights_bytes.value_or(0), gib(8.63));
  EXPECT_EQ(g.non_torch_bytes.value_or(0), gib(0.09));
  EXPECT_EQ(g.activation_bytes.value_or(0), gib(1.16));
  EXPECT_EQ(g.available_kv_bytes.value_or(0), gib(45.21));
  EXPECT_EQ(g.cuda_graph_bytes.value_or(0), gib(1.12));
  EXPECT_EQ(g.num_gpu_blocks.value_or(0), 14815u);
  EXPECT_EQ(g.total_gpu_bytes.value_or(0), gib(79.15));
  const auto r = explain_log(g, load_model("phi-4"));
  EXPECT_TRUE(r.all_within());
  const auto* blocks = row_of(r, "num_gpu_blocks");
  ASSERT_NE(blocks, nullptr);
  EXPECT_EQ(blocks->kvplan.value_or(0), 14814);
  // kvplan's vLLM terms beside the logged ones, shown but not counted (a log rarely states
  // max_num_seqs; the weights likewise: a 4-bit checkpoint beside the bf16 preset). Phi-4
  // (vocab 100352, hidden 5120, MLP 17920) at vLLM's default 256 sequences without a GPU and
  // 8192 batched tokens: the forward's 8192 · (40 · 128 + 2 · 5120 + 3 · 17920) · 2 B =
  // 1,132,462,080 B over the sampler's 9.5 · 256 · 100352 · 4 B + (8192 + 512) · 5120 · 2 B =
  // 1,065,353,216 B, + 0.04 GiB (42,949,673 B) = 1,175,411,753 B = 1.095 GiB against the logged
  // 1.16; non-torch 0.13 GiB (139,586,437 B) against 0.09; 0.8.2 keeps the graphs outside the
  // budget.
  const auto* act = row_of(r, "activation peak (GiB)");
  ASSERT_NE(act, nullptr);
  EXPECT_TRUE(act->informational);
  EXPECT_NEAR(act->kvplan.value_or(0), 1175411753 / kGiBd, 1e-9);
  EXPECT_NEAR(act->logged.value_or(0), 1.16, 1e-9);
  const auto* res = row_of(r, "reserve: non-KV memory besides the weights (GiB)");
  ASSERT_NE(res, nullptr);
  EXPECT_TRUE(res->informational);
  EXPECT_NEAR(res->logged.value_or(0), (gib(0.09) + gib(1.16)) / kGiBd, 1e-9);
  EXPECT_NEAR(res->kvplan.value_or(0), (1175411753 + 139586437) / kGiBd, 1e-9);
  EXPECT_TRUE(row_of(r, "weights per GPU (GiB)")->informational);
}

// PR #10511's one-figure-a-line profile (vllm-v0-llama3-8b-memprofile-80g.log) and the post that
// wrapped a number across two lines (vllm-v0-rocm-llama31-70b-fp8-mi300x-tp1.log:
// "non_torch_memory=6" / ".07GiB"): the wrapped figure is not read as 6 GiB.
TEST(EngineLog, ReadsEveryProfileSpelling) {
  const auto a = load_engine_log(kLogs + "vllm-v0-llama3-8b-memprofile-80g.log");
  EXPECT_EQ(a.weights_bytes.value_or(0), gib(14.96));
  EXPECT_EQ(a.non_torch_bytes.value_or(0), gib(1.79));
  EXPECT_EQ(a.activation_bytes.value_or(0), gib(1.26));
  EXPECT_EQ(a.available_kv_bytes.value_or(0), gib(53.29));
  EXPECT_EQ(a.total_gpu_bytes.value_or(0), gib(79.22));
  const auto b = load_engine_log(kLogs + "vllm-v0-rocm-llama31-70b-fp8-mi300x-tp1.log");
  EXPECT_FALSE(b.non_torch_bytes.has_value());
  EXPECT_EQ(b.available_kv_bytes.value_or(0), gib(95.28));
  EXPECT_EQ(b.total_gpu_bytes.value_or(0), gib(191.98));
  // vLLM V1's line (gpu_worker.py, DEBUG before 0.11; vllm/utils MemoryProfilingResult.__repr__).
  const auto c = parse_engine_log(
      "DEBUG [gpu_worker.py:297] Memory profiling takes 14.40 seconds. Total non KV cache memory: "
      "10.22GiB; torch peak memory increase: 1.40GiB; non-torch forward increase memory: 0.02GiB; "
      "weights memory: 8.80GiB.\n"
      "INFO [gpu_worker.py:298] Available KV cache memory: 8.60 GiB\n",
      "v1.log");
  EXPECT_EQ(c.non_kv_bytes.value_or(0), gib(10.22));
  EXPECT_EQ(c.activation_bytes.value_or(0), gib(1.40));
  EXPECT_EQ(c.non_torch_bytes.value_or(0), gib(0.02));
  EXPECT_EQ(c.weights_bytes.value_or(0), gib(8.80));
  // SGLang's CUDA graphs: "Capture cuda graph end. Time elapsed: 7.23 s. avail mem=0.53 GB. mem
  // usage=0.93 GB." (sglang-v043post4-qwq32b-4xl4-tp4.log)
  const auto d = load_engine_log(kLogs + "sglang-v043post4-qwq32b-4xl4-tp4.log");
  EXPECT_EQ(d.cuda_graph_bytes.value_or(0), gib(0.93));
  EXPECT_EQ(d.weights_bytes.value_or(0), gib(15.54));
  // TensorRT-LLM's PyTorch backend (trtllm-110rc3-gpt-oss-120b-dgx-spark.log): "Memory dynamically
  // allocated during inference (inside torch) in memory usage profiling: 0.85 GiB", "Memory used
  // outside torch (e.g., NCCL and CUDA graphs) in memory usage profiling: 49.28 GiB".
  const auto t = load_engine_log(kLogs + "trtllm-110rc3-gpt-oss-120b-dgx-spark.log");
  EXPECT_EQ(t.activation_bytes.value_or(0), gib(0.85));
  EXPECT_EQ(t.non_torch_bytes.value_or(0), gib(49.28));
}

// TensorRT-LLM's older executor (trtllm-legacy-mistral-7b-g5-12xlarge.log): "Allocate 956301312
// bytes for k/v cache." and "Using 29184 total tokens in paged KV cache". Mistral-7B at TP 4:
// 32 layers · 2 KV heads · 128 · 2 · 2 B = 32,768 B a token; 956,301,312 / (128 · 32,768) = 228
// blocks of 128 tokens = 29,184 tokens, exact.
TEST(EngineLog, ReadsTheOlderTrtllmExecutor) {
  const auto g = load_engine_log(kLogs + "trtllm-legacy-mistral-7b-g5-12xlarge.log");
  EXPECT_EQ(g.engine, Engine::trtllm);
  EXPECT_EQ(g.kv_pool_bytes.value_or(0), 956301312u);
  EXPECT_EQ(g.kv_cache_tokens.value_or(0), 29184u);
  ExplainOverrides o;
  o.tp = 4;
  o.block_size = 128;
  const auto r = explain_log(g, load_model("mistral-7b-v0.1"), o);
  ASSERT_NE(row_of(r, "KV cache tokens"), nullptr);
  EXPECT_EQ(row_of(r, "KV cache tokens")->kvplan.value_or(0), 29184);
}

// TensorRT-LLM gives the pool free_gpu_memory_fraction of what is free after the weights
// (trtllm-0190-llama31-8b-fp8kv-rtx5090.log: "total: 31.84 GiB, available: 17.83 GiB", then
// "Allocated 16.05 GiB"): 17.83 · 0.9 = 16.047 GiB.
TEST(EngineLog, TrtllmPoolIsTheFractionOfTheFreeMemory) {
  const auto g = load_engine_log(kLogs + "trtllm-0190-llama31-8b-fp8kv-rtx5090.log");
  EXPECT_EQ(g.free_after_bytes.value_or(0), gib(17.83));
  ExplainOverrides o;
  o.kv_cache_dtype = "fp8";
  const auto r = explain_log(g, load_model("llama-3.1-8b"), o);
  const auto* pool = row_of(r, "KV pool (GiB)");
  ASSERT_NE(pool, nullptr);
  EXPECT_NEAR(pool->kvplan.value_or(0), gib(17.83) * 0.9 / kGiBd, 1e-9);
  EXPECT_TRUE(pool->within_tolerance);
  EXPECT_FALSE(pool->informational);
}

// SGLang's Mamba pool line, in its own format string (mem_cache/memory_pool.py MambaPool:
// "Mamba Cache is allocated. max_mamba_cache_size: {size}, conv_state size: {:.2f}GB,
// ssm_state size: {:.2f}GB"), and MLA's one-pool "KV size:" (sglang-v058post1-rocm-kimi-k25-
// 8xmi355x-tp8.log: 2,454,421 tokens in 160.63 GiB; Kimi-K2.5 61 layers · (512 + 64) · 2 B =
// 70,272 B a token, replicated per rank: 160.63 GiB / 70,272 = 2,454,393).
TEST(EngineLog, ReadsSglangMambaAndMlaPools) {
  const auto g = parse_engine_log(
      "[TP0] Mamba Cache is allocated. max_mamba_cache_size: 48, conv_state size: 0.09GB, "
      "ssm_state size: 6.46GB\n"
      "[TP0] KV Cache is allocated. #tokens: 2618868, K size: 19.98 GB, V size: 19.98 GB\n",
      "s.log");
  EXPECT_EQ(g.mamba_slots.value_or(0), 48u);
  // vLLM's page-size unification lines, in its own format strings (vllm/model_executor/models/
  // config.py HybridAttentionMambaModelConfig: "Setting attention block size to %d tokens to
  // ensure that attention page size is >= mamba page size.", "Padding mamba page size by %.2f%%
  // to ensure that mamba page size and attention page size are exactly equal.").
  const auto h = parse_engine_log(
      "INFO [config.py:281] Setting attention block size to 784 tokens to ensure that attention "
      "page size is >= mamba page size.\n"
      "INFO [config.py:312] Padding mamba page size by 0.13% to ensure that mamba page size and "
      "attention page size are exactly equal.\n"
      "INFO [gpu_worker.py:298] Available KV cache memory: 8.60 GiB\n",
      "h.log");
  EXPECT_EQ(h.attention_block_size.value_or(0), 784u);
  EXPECT_DOUBLE_EQ(h.mamba_padding_percent.value_or(0), 0.13);
  EXPECT_EQ(g.mamba_pool_bytes.value_or(0), gib(0.09) + gib(6.46));
  const auto k = load_engine_log(kLogs + "sglang-v058post1-rocm-kimi-k25-8xmi355x-tp8.log");
  EXPECT_EQ(k.kv_pool_bytes.value_or(0), gib(160.63));
  ExplainOverrides o;
  o.tp = 8;
  const auto r = explain_log(k, load_model("kimi-k2.5"), o);
  ASSERT_NE(row_of(r, "KV cache tokens (#tokens)"), nullptr);
  EXPECT_EQ(row_of(r, "KV cache tokens (#tokens)")->kvplan.value_or(0),
            static_cast<double>(gib(160.63) / 70272));
  EXPECT_TRUE(r.all_within());
}

// The Mamba row divides the logged state bytes by SGLang's size + 1 slots (slot 0 is padding:
// memory_pool.py MambaPool). Qwen3-Next-80B-A3B at TP 4: 36 gated-delta-net layers, each rank
// 8 value heads · 128 · 128 · 4 B (float32 temporal state) = 524,288 B plus conv
// (2 · 4 key heads · 128 + 8 · 128) channels · 3 · 2 B = 12,288 B: 36 · 536,576 = 19,316,736 B a
// sequence. 49 slots of it: conv 36 · 12,288 · 49 = 0.02 GiB, ssm 36 · 524,288 · 49 = 0.86 GiB
// as logged; (0.02 + 0.86) GiB / 49 = 19,283,527 B (within the 0.005 GiB rounding of each
// figure); over 48 slots it would be 19,685,267 B, 1.9 % off.
TEST(EngineLog, MambaStatePerSlotCountsThePaddingSlot) {
  const auto g = parse_engine_log(
      "[TP0] Mamba Cache is allocated. max_mamba_cache_size: 48, conv_state size: 0.02GB, "
      "ssm_state size: 0.86GB\n"
      "[TP0] KV Cache is allocated. #tokens: 100000, K size: 0.09 GB, V size: 0.09 GB\n",
      "s.log");
  ExplainOverrides o;
  o.tp = 4;
  const auto r = explain_log(g, load_model("qwen3-next-80b-a3b"), o);
  const auto* row = row_of(r, "Mamba state per slot (bytes)");
  ASSERT_NE(row, nullptr);
  EXPECT_NEAR(row->logged.value_or(0), (gib(0.02) + gib(0.86)) / 49.0, 1.0);
  EXPECT_DOUBLE_EQ(row->kvplan.value_or(0), 19316736.0);
  EXPECT_TRUE(row->within_tolerance);
  // Under --mamba-ssm-dtype bfloat16, as server_args prints it, the temporal state is 2 B a value:
  // 36 · (8 · 128 · 128 · 2 + 12,288) = 9,879,552 B a sequence; 49 slots of ssm 36 · 262,144 ·
  // 49 = 0.43 GiB beside conv 0.02 GiB.
  const auto b = parse_engine_log(
      "[TP0] server_args=ServerArgs(model_path='Qwen/Qwen3-Next-80B-A3B-Instruct', "
      "tp_size=4, mamba_ssm_dtype='bfloat16', kv_cache_dtype='auto')\n"
      "[TP0] Mamba Cache is allocated. max_mamba_cache_size: 48, conv_state size: 0.02GB, "
      "ssm_state size: 0.43GB\n"
      "[TP0] KV Cache is allocated. #tokens: 100000, K size: 0.09 GB, V size: 0.09 GB\n",
      "b.log");
  EXPECT_EQ(b.ssm_state_dtype, std::optional<KvDtype>(KvDtype::bf16));
  const auto rb = explain_log(b, load_model("qwen3-next-80b-a3b"), o);
  const auto* bf = row_of(rb, "Mamba state per slot (bytes)");
  ASSERT_NE(bf, nullptr);
  EXPECT_DOUBLE_EQ(bf->kvplan.value_or(0), 9879552.0);
  EXPECT_TRUE(bf->within_tolerance);
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
      else if (k == "--block-size")
        o.block_size = static_cast<std::uint32_t>(std::stoul(v));
      else if (k == "--draft-layers")
        o.draft_layers = static_cast<std::uint32_t>(std::stoul(v));
      else if (k == "--gpu-memory-utilization")
        o.memory_fraction_ppm = parse_fraction_ppm(v, "ledger.tsv", "gpu-memory-utilization");
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
  EXPECT_GE(rows, 32);
}

}  // namespace
}  // namespace kvplan
