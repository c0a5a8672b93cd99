// The capacity planner by hand: every expected number is derived in the comment above it.
#include <gtest/gtest.h>

#include "kvplan/engine_rules.hpp"
#include "kvplan/error.hpp"
#include "kvplan/formula.hpp"
#include "kvplan/kv_pool.hpp"
#include "kvplan/planner.hpp"
#include "model_shapes.hpp"

namespace kvplan {
namespace {

constexpr std::uint64_t GiB = std::uint64_t{1} << 30;

ModelSpec plain(std::uint32_t layers, std::uint32_t q, std::uint32_t kv, std::uint32_t d) {
  return test::full_attention_model("test", layers, q, kv, d, 1000);
}

PlanInput measured(std::uint64_t available, std::uint64_t context,
                   const std::string& fmt = "fp16") {
  PlanInput in;
  in.format = parse_kv_format(fmt);
  in.context = context;
  in.available_kv_bytes = available;
  return in;
}

// A model declared attention-free: vLLM's one block (VllmParity.AttentionFreeModelTakesOneBlock
// has the engine's own test). With 2 replicas and max_num_seqs 8, 16 requests of any length fit,
// and the longest context for them is the model's own limit (no KV bound); 17 do not. SGLang and
// TensorRT-LLM are not modelled serving one: refused, naming the engine. The serving simulator's
// pool has no group and no usable block, and a request of any length takes none.
TEST(PlannerVllm, AttentionFreeHasOnlyTheNullBlock) {
  ModelSpec m = plain(4, 8, 8, 64);
  m.layers.assign(4, LayerSpec{.kind = AttentionKind::none});
  m.attention_free = true;
  m.max_context = 8192;
  PlanInput in = measured(0, 4096);
  in.gpus = 2;  // TP 1 × PP 1: two replicas
  in.max_num_seqs = 8;
  const auto c = plan_capacity(m, in);
  EXPECT_EQ(c.num_gpu_blocks, 1u);
  EXPECT_EQ(c.max_requests_per_replica, 8u);
  EXPECT_EQ(c.max_requests, 16u);
  EXPECT_EQ(c.estimated_max_model_len, 8192u);
  EXPECT_EQ(max_context_at_concurrency(m, in, 16, m.max_context), 8192u);
  const KvPool pool = make_kv_pool(m, in);
  EXPECT_TRUE(pool.groups.empty());
  EXPECT_EQ(pool.usable_blocks, 0u);
  EXPECT_EQ(pool.blocks(0, 4096, 4096), 0u);
  // More requests at once than 2 × max_num_seqs: no context fits them.
  EXPECT_EQ(max_context_at_concurrency(m, in, 17, m.max_context), 0u);
  // 100 B bf16 parameters (200 GB) on an 80 GiB GPU do not load: nothing runs, the simulator's
  // pool is refused, and a draft model's cache is refused naming the field.
  PlanInput small = in;
  small.available_kv_bytes.reset();
  small.gpu_memory_bytes = 80 * GiB;
  ModelSpec heavy = m;
  heavy.num_params = 100'000'000'000;
  const auto h = plan_capacity(heavy, small);
  EXPECT_GT(h.memory.shortfall_bytes, 0u);
  EXPECT_FALSE(h.fits_one_request);
  EXPECT_EQ(h.max_requests, 0u);
  EXPECT_THROW(make_kv_pool(heavy, small), Error);
  PlanInput draft = in;
  draft.draft_layers = 1;
  try {
    plan_capacity(m, draft);
    ADD_FAILURE() << "no refusal";
  } catch (const Error& err) {
    EXPECT_EQ(err.field(), "draft_layers");
  }
  for (const Engine e : {Engine::sglang, Engine::trtllm}) {
    PlanInput other = in;
    other.engine = e;
    try {
      plan_capacity(m, other);
      ADD_FAILURE() << "no refusal";
    } catch (const Error& err) {
      EXPECT_EQ(err.field(), "engine");
      EXPECT_NE(std::string(err.what()).find("without a KV cache"), std::string::npos);
    }
  }
}

// vLLM V1 parity, the worked example of planner.hpp and docs/deploy.md.
TEST(PlannerVllm, Llama8bFp16With40GiB) {
  const auto m = load_model("llama-3.1-8b");
  const auto c = plan_capacity(m, measured(40 * GiB, 32768));
  // page_size_bytes = 2 · block 16 · 8 heads · 128 · 2 bytes = 65536
  EXPECT_EQ(c.page_bytes, 65536u);
  // 42949672960 // 65536 // 32 layers = 20480
  EXPECT_EQ(c.num_gpu_blocks, 20480u);
  // "GPU KV cache size": int(10.00 · 32768) = 327680 tokens (0.9's 20480 // 1 group · 16 too)
  EXPECT_EQ(c.kv_cache_tokens, 327680u);
  // cdiv(32768, 16) = 2048 blocks per request; 20480 / 2048 = 10.00x as vLLM logs it, but the
  // BlockPool keeps block 0 as its null block: (20480 − 1) // 2048 = 9 requests fit at once.
  EXPECT_EQ(c.blocks_per_request, 2048u);
  EXPECT_DOUBLE_EQ(c.max_concurrency, 10.0);
  EXPECT_EQ(c.max_requests, 9u);
  EXPECT_TRUE(c.fits_one_request);
  // One request of 32768 tokens = 4 GiB, the formula's 131072 B/token · 32768.
  EXPECT_EQ(c.bytes_per_request, 4 * GiB);
}

TEST(PlannerVllm, FractionalConcurrencyAndOddContext) {
  const auto m = load_model("llama-3.1-8b");
  // 10 GiB: 10737418240 // 65536 // 32 = 5120 blocks; 5000 tokens need cdiv(5000,16) = 313
  // blocks; 5120 / 313 = 16.357...x, 16 whole requests.
  const auto c = plan_capacity(m, measured(10 * GiB, 5000));
  EXPECT_EQ(c.num_gpu_blocks, 5120u);
  EXPECT_EQ(c.blocks_per_request, 313u);
  EXPECT_NEAR(c.max_concurrency, 5120.0 / 313.0, 1e-12);
  EXPECT_EQ(c.max_requests, 16u);
}

TEST(PlannerVllm, Fp8HalvesThePage) {
  const auto m = load_model("llama-3.1-8b");
  const auto c = plan_capacity(m, measured(40 * GiB, 32768, "fp8"));
  // 16 · 8 · 256 · 1 = 32768 B page; 40 GiB // 32768 // 32 = 40960 blocks; (40960 − 1) // 2048
  EXPECT_EQ(c.page_bytes, 32768u);
  EXPECT_EQ(c.num_gpu_blocks, 40960u);
  EXPECT_EQ(c.max_requests, 19u);
}

TEST(PlannerVllm, Int8PageCountsScales) {
  const auto m = load_model("llama-3.1-8b");
  const auto c = plan_capacity(m, measured(40 * GiB, 32768, "int8"));
  // 16 tokens · 8 heads · ((128 + 4) + (128 + 4)) bytes = 33792
  EXPECT_EQ(c.page_bytes, 33792u);
  EXPECT_EQ(c.num_gpu_blocks, 40 * GiB / 33792 / 32);
}

TEST(PlannerVllm, TpAboveKvHeadsReplicates) {
  const auto m = load_model("llama-3.1-8b");  // 8 KV heads, 32 query heads
  auto in = measured(GiB, 1024);
  in.tp = 16;
  const auto c = plan_capacity(m, in);
  // one KV head per rank: 16 · 1 · 256 · 2 = 8192; 2^30 // 8192 // 32 = 4096 blocks
  EXPECT_EQ(c.page_bytes, 8192u);
  EXPECT_EQ(c.num_gpu_blocks, 4096u);
  EXPECT_EQ(c.kv_cache_tokens, 65536u);
  in.tp = 4;  // 2 heads per rank
  EXPECT_EQ(plan_capacity(m, in).page_bytes, 16u * 2 * 256 * 2);
}

TEST(PlannerVllm, MlaLatentIsNotSharded) {
  ModelSpec m = plain(4, 16, 16, 128);
  m.kv_lora_rank = 512;
  m.qk_rope_head_dim = 64;
  for (auto& l : m.layers) l.kind = AttentionKind::mla;
  auto in = measured(18432u * 4 * 100, 160);
  // page = 16 · (512 + 64) · 2 = 18432 at any TP; 18432·4·100 // 18432 // 4 = 100 blocks
  for (std::uint32_t tp : {1u, 8u}) {
    in.tp = tp;
    const auto c = plan_capacity(m, in);
    EXPECT_EQ(c.page_bytes, 18432u) << tp;
    EXPECT_EQ(c.num_gpu_blocks, 100u) << tp;
    EXPECT_EQ(c.kv_cache_tokens, 1600u) << tp;
    EXPECT_EQ(c.max_requests, 9u) << tp;  // 160 tokens = 10 blocks; (100 − 1) // 10
  }
}

TEST(PlannerVllm, HybridSlidingWindowGroups) {
  const auto m = load_model("gemma-2-9b");       // 21 sliding (W 4096) + 21 full, 8 KV heads, d 256
  const std::uint64_t page = 16u * 8 * 512 * 2;  // 131072
  auto in = measured(page * 21 * 1000, 8192);
  auto c = plan_capacity(m, in);
  EXPECT_EQ(c.page_bytes, page);
  // group_size = min(21, 21) = 21; num_gpu_blocks = available // page // 21 = 1000
  EXPECT_EQ(c.num_gpu_blocks, 1000u);
  ASSERT_EQ(c.stages.size(), 1u);
  EXPECT_EQ(c.stages[0].group_size, 21u);
  EXPECT_EQ(c.stages[0].kv_cache_groups, 2u);
  // vLLM 0.9 logged 1000 // 2 groups · 16 = 8000 tokens; now int(max concurrency · max_model_len)
  // = int(1000 / 1025 · 8192) = 7992 (below)
  EXPECT_EQ(c.kv_cache_tokens, 7992u);
  // full: cdiv(8192, 16) = 512; sliding: cdiv(min(4095 + 8192, 8192), 16) + 1 = 513
  EXPECT_EQ(c.blocks_per_request, 1025u);
  EXPECT_FALSE(c.fits_one_request);
  EXPECT_EQ(c.max_requests, 0u);
  // estimate_max_model_len: 21·(cdiv(n,16) + cdiv(n,16) + 1) ≤ 21000 -> cdiv(n,16) ≤ 499 -> 7984
  EXPECT_EQ(c.estimated_max_model_len, 7984u);
  // A smaller chunk shrinks the sliding pages: cdiv(min(4095 + 2048, 8192), 16) + 1 = 385
  in.max_num_batched_tokens = 2048;
  c = plan_capacity(m, in);
  EXPECT_EQ(c.blocks_per_request, 512u + 385u);
  EXPECT_EQ(c.max_requests, 1u);
}

TEST(PlannerVllm, PipelineStagesSplitLayersLikeGetPpIndices) {
  const auto m = plain(32, 8, 8, 128);
  auto in = measured(GiB, 1024);
  in.pp = 3;
  const auto c = plan_capacity(m, in);
  // 32 // 3 = 10 each, the 2 left over go to stages 1 and 0 (partitions[-2], [-3]): 11, 11, 10
  ASSERT_EQ(c.stages.size(), 3u);
  EXPECT_EQ(c.stages[0].cached_layers, 11u);
  EXPECT_EQ(c.stages[1].cached_layers, 11u);
  EXPECT_EQ(c.stages[2].cached_layers, 10u);
  // page 16 · 8 · 256 · 2 = 65536; the busiest stage: 2^30 // 65536 // 11 = 1489 blocks
  EXPECT_EQ(c.num_gpu_blocks, 1489u);
}

TEST(PlannerVllm, DraftLayersAddToTheLastStage) {
  ModelSpec m = plain(4, 8, 8, 128);
  auto in = measured(65536u * 5 * 10, 16);
  in.draft_layers = 1;
  const auto c = plan_capacity(m, in);
  // 5 cached layers: 65536·5·10 // 65536 // 5 = 10 blocks
  EXPECT_EQ(c.stages[0].cached_layers, 5u);
  EXPECT_EQ(c.num_gpu_blocks, 10u);
}

TEST(PlannerVllm, PagedBytesAgreeWithKvCost) {
  for (const char* id : {"llama-3.1-8b", "qwen2.5-7b", "llama-2-7b"}) {
    const auto m = load_model(id);
    for (const char* f : {"fp16", "fp8", "int8"}) {
      for (std::uint64_t n : {1u, 15u, 16u, 17u, 4097u}) {
        auto in = measured(80 * GiB, n, f);
        const auto c = plan_capacity(m, in);
        const auto k = kv_cost(m, KvCostInput{.context = n, .format = in.format, .block_size = 16});
        EXPECT_EQ(c.bytes_per_request, k.bytes_per_request) << id << " " << f << " " << n;
      }
    }
  }
}

TEST(PlannerSglang, TokensFromMemFractionStatic) {
  const auto m = load_model("llama-3.1-8b");
  PlanInput in;
  in.engine = Engine::sglang;
  in.context = 8192;
  in.gpu_memory_bytes = 80 * GiB;
  const auto c = plan_capacity(m, in);
  // No --mem-fraction-static: SGLang derives it from the GPU (memory_hook.py@031ed82d
  // handle_gpu_memory_settings). 81,920 MiB: chunked prefill 8192, decode graphs up to 256 at
  // TP 1, 58 prefill graph sizes up to 8192; reserved = 512 + 1.5 x 8192 + 1 x 1 / 8 x 1024 +
  // 2 x 256 + 8 x 58 = 13,904 MiB (over the 10,240 floor); round((81920 - 13904) / 81920, 3) =
  // 0.830. The fraction is of the memory free before the weights: 80 GiB less the context
  // (0.70 GiB at TP 1 = 751619276 B, fitted on its startup logs) = 85147726644;
  // floor(· 0.830) = 70672613114; − weights 8030261248 · 2 = 54612090618 available
  EXPECT_EQ(c.memory.fraction_ppm, 830000u);
  EXPECT_EQ(c.memory.terms.context.bytes, 751619276u);
  EXPECT_EQ(c.memory.requested_bytes, 70672613114u);
  EXPECT_EQ(c.memory.weight_bytes, 16060522496u);
  EXPECT_EQ(c.memory.reserve_bytes, 0u);
  EXPECT_EQ(c.memory.available_bytes, 54612090618u);
  // max_total_num_tokens = available // cell_size (131072 B/token), page size 1
  EXPECT_EQ(c.kv_cache_tokens, 416657u);
  EXPECT_EQ(c.max_requests, 416657u / 8192);
  // SGLang's issue #29092 reports 0.828 for Qwen3-32B on H100s at TP 2: reserved = 13,904 + 128
  // = 14,032 MiB, round((81559 - 14032) / 81559, 3) = 0.828 from nvidia-smi's 81,559 MiB; kvplan
  // reads CUDA's 79.18 GiB (81,074 MiB): 0.827, never above SGLang's.
  in.tp = 2;
  in.gpu_memory_bytes = load_gpu("h100-sxm-80gb").engine_memory_bytes();
  EXPECT_EQ(engine_rules(in).default_memory_fraction_ppm(in), 827000u);
  in.gpu_memory_bytes = std::uint64_t{81559} << 20;
  EXPECT_EQ(engine_rules(in).default_memory_fraction_ppm(in), 828000u);
  // An H200 (143,771 MiB by nvidia-smi) at TP 8 for Llama-3.1-70B: decode graphs up to 512 at
  // TP >= 4: 512 + 12288 + 1024 + 1024 + 464 = 15,312 MiB; round(128459 / 143771, 3) = 0.893.
  in.tp = 8;
  in.gpu_memory_bytes = std::uint64_t{143771} << 20;
  EXPECT_EQ(engine_rules(in).default_memory_fraction_ppm(in), 893000u);
  // Given, the flag wins.
  in.memory_fraction_ppm = 880000;
  EXPECT_EQ(memory_budget(m, in).fraction_ppm, 880000u);
}

TEST(PlannerSglang, PoolsOfTheLoggedH100Starts) {
  // SGLang's own logs on an H100 (79.18 GiB as CUDA reports it), KV = f · (free before the
  // weights) − weights, with kvplan's context instead of the logged free memory and the logged
  // weights and fraction: never more than the logged pool.
  //   tests/data/logs/sglang-x-qwen3-30b-a3b-fp8-h100.log: f 0.83, weights 29.15 GB, K + V
  //   17.99 + 17.99 = 35.98 GB; (79.175 − 0.70) · 0.83 − 29.15 = 35.98 (0.0 %).
  //   tests/data/logs/sglang-x-llama31-8b-h100-docs-quickstart.log: f 0.88, weights 78.81 −
  //   63.72 = 15.09 GB, K + V 27.13 · 2 = 54.26 GB; (79.175 − 0.70) · 0.88 − 15.09 = 53.97
  //   (−0.5 %: that build's context was 0.37 GiB).
  struct Row {
    double f, weights, kv;
  };
  const EngineRules& r = engine_rules(Engine::sglang);
  ModelSpec m = load_model("llama-3.1-8b");
  PlanInput in;
  in.engine = Engine::sglang;
  const double ctx = r.memory_terms({m, in, true}).context.bytes / double(GiB);
  for (const Row row : {Row{0.83, 29.15, 35.98}, Row{0.88, 15.09, 54.26}}) {
    const double kv = (79.175 - ctx) * row.f - row.weights;
    EXPECT_LE(kv, row.kv + 0.01) << row.f;
    EXPECT_GE(kv, row.kv * 0.99) << row.f;
  }
}

TEST(PlannerTrtllm, FreeFractionAfterWeights) {
  const auto m = load_model("llama-3.1-8b");
  PlanInput in;
  in.engine = Engine::trtllm;
  in.context = 8192;
  in.gpu_memory_bytes = 80 * GiB;
  const auto c = plan_capacity(m, in);
  // free = 80 GiB − 16060522496 − 2 GiB = 67691339776; · 0.9 = 60922205798
  EXPECT_EQ(c.memory.available_bytes, 60922205798u);
  // 60922205798 // 131072 B = 464799 tokens; ceilDiv by 32 tokens per block (kvCacheManager.cpp
  // calculateMaxNumBlocks @ NVIDIA/TensorRT-LLM b35ac1b6): 14525 blocks, 464800 tokens
  EXPECT_EQ(c.num_gpu_blocks, 14525u);
  EXPECT_EQ(c.kv_cache_tokens, 464800u);
  EXPECT_EQ(c.max_requests, 14525u / 256);
}

TEST(PlannerMemory, VllmBudgetAndShardedWeights) {
  const auto m = load_model("llama-3.1-70b");
  PlanInput in;
  in.context = 8192;
  in.gpu_memory_bytes = 85520809984;  // h100-sxm-80gb
  in.tp = 4;
  in.reserve_bytes = 3 * GiB;
  in.memory_fraction_ppm = 950000;
  const auto b = memory_budget(m, in);
  // floor(85520809984 · 0.95) = 81244769484
  EXPECT_EQ(b.requested_bytes, 81244769484u);
  EXPECT_EQ(b.weight_bytes, (m.num_params * 2 + 3) / 4);
  EXPECT_EQ(b.available_bytes, b.requested_bytes - b.weight_bytes - 3 * GiB);
  // int4 weights: half a byte per parameter
  in.weight_dtype = "int4";
  EXPECT_EQ(memory_budget(m, in).weight_bytes, ((m.num_params + 1) / 2 + 3) / 4);
}

TEST(PlannerMemory, WeightsThatDoNotFitLeaveNothing) {
  const auto m = load_model("llama-3.1-70b");
  PlanInput in;
  in.context = 4096;
  in.gpu_memory_bytes = load_gpu("l4").memory_bytes;
  const auto c = plan_capacity(m, in);
  EXPECT_GT(c.memory.shortfall_bytes, 0u);
  EXPECT_EQ(c.memory.available_bytes, 0u);
  EXPECT_EQ(c.max_requests, 0u);
  EXPECT_FALSE(c.fits_one_request);
}

TEST(PlannerKivi, BytesFromKvCost) {
  const auto m = load_model("llama-3.1-8b");
  const auto in = measured(40 * GiB, 32768, "kivi:bits=2,group=32,residual=128");
  const auto c = plan_capacity(m, in);
  const auto k = kv_cost(m, KvCostInput{.context = 32768, .format = in.format, .block_size = 16});
  EXPECT_FALSE(c.paged);
  EXPECT_EQ(c.bytes_per_request, k.bytes_per_request);
  EXPECT_EQ(c.max_requests, 40 * GiB / k.bytes_per_request);
  EXPECT_EQ(c.kv_cache_tokens, 40 * GiB / k.bytes_per_token);
}

TEST(PlannerPolicy, StreamingBudgetBoundsPages) {
  const auto m = load_model("llama-3.1-8b");
  auto in = measured(40 * GiB, 32768);
  in.policy = parse_policy("streaming:sink=4,window=4092");
  const auto c = plan_capacity(m, in);
  // 4096 tokens kept: cdiv(4096, 16) = 256 blocks; (20480 − 1 null block) // 256 = 79
  EXPECT_EQ(c.blocks_per_request, 256u);
  EXPECT_EQ(c.max_requests, 79u);
}

TEST(PlannerSolvers, MaxContextAtConcurrency) {
  const auto m = load_model("llama-3.1-8b");
  const auto in = measured(40 * GiB, 32768);
  // 20480 blocks less the null block: 20479 / 10 requests = 2047 blocks = 32752 tokens
  EXPECT_EQ(max_context_at_concurrency(m, in, 10, m.max_context), 32752u);
  // 20479 / 3 = 6826 blocks = 109216 tokens
  EXPECT_EQ(max_context_at_concurrency(m, in, 3, m.max_context), 109216u);
  // one request could hold 20479 · 16 = 327664 tokens, capped at the model's 131072 positions
  EXPECT_EQ(max_context_at_concurrency(m, in, 1, m.max_context), 131072u);
  EXPECT_EQ(max_context_at_concurrency(m, in, 1, 0), 327664u);
  // 20480 requests do not fit even at one token (one block each, 20479 usable)
  EXPECT_EQ(max_context_at_concurrency(m, in, 20480, 0), 0u);
  EXPECT_GT(max_context_at_concurrency(m, in, 20479, 0), 0u);
}

TEST(PlannerSolvers, ReplicasMultiplyRequests) {
  const auto m = load_model("llama-3.1-8b");
  auto in = measured(40 * GiB, 32768);
  in.gpus = 3;
  EXPECT_EQ(plan_capacity(m, in).max_requests, 27u);  // 3 replicas · (20479 // 2048)
  // 25 requests over 3 replicas: 9 per replica -> 20479 / 9 = 2275 blocks = 36400 tokens
  EXPECT_EQ(max_context_at_concurrency(m, in, 25, 0), 36400u);
}

TEST(PlannerSolvers, MinGpusAndOrderTable) {
  const auto m = load_model("llama-3.1-8b");
  PlanInput in;
  in.context = 32768;
  in.concurrency = 64;
  auto h100 = load_gpu("h100-sxm-80gb");
  // TP 1 holds 13: vLLM's default 0.92 (vllm-project/vllm#38284) of CUDA's 85,013,508,915 B =
  // 78,212,428,201 B, less 16,060,522,496 B of weights and the vLLM terms at 1024 sequences
  // (activation 2,033,232,937 B: the Triton sampler's (3.5 x 1024 + 132) x 128256 x 4 B + (8192
  // + 2048) x 4096 x 2 B + 0.04 GiB; non-torch 139,586,437 B; graphs 622,770,258 B) =
  // 59,356,316,073 B // 65,536 // 32 = 28,303 blocks, (28,303 − 1) // 2,048 = 13 requests. TP 4
  // on 4 GPUs holds 66: weights 4,015,130,624 B a rank, the same activation (over the forward's
  // 8192 x (4096 + 3 x 14336 / 4) x 2 B), non-torch 0.55 GiB (590,558,003 B) at TP > 1, graphs as
  // above: 70,950,736,379 B // (16 x 2 heads x 256 x 2 B x 32 layers) = 135,327 blocks,
  // (135,327 − 1) // 2,048 = 66.
  const auto o = min_gpus(m, in, h100);
  ASSERT_TRUE(o.feasible);
  EXPECT_EQ(o.gpus, 4u);
  EXPECT_GE(o.max_requests, 64u);
  PlanInput c = in;
  c.gpu_memory_bytes = h100.engine_memory_bytes();
  c.gpu_id = h100.id;
  c.tp = 1;
  EXPECT_EQ(plan_capacity(m, c).max_requests, 13u);
  c.tp = 4;
  c.gpus = 4;
  EXPECT_EQ(plan_capacity(m, c).max_requests, 66u);
  // Fewer GPUs hold fewer: 3 replicas of TP 1 hold 39, and the 2- and 3-GPU layouts below 64.
  for (auto [tp, pp, gpus] : {std::tuple{1u, 1u, 3u}, {1u, 2u, 2u}, {2u, 1u, 2u}, {1u, 3u, 3u}}) {
    c.tp = tp;
    c.pp = pp;
    c.gpus = gpus;
    EXPECT_LT(plan_capacity(m, c).max_requests, 64u) << "TP " << tp << " PP " << pp;
  }
  h100.price_per_hour = 2;
  auto h200 = load_gpu("h200-141gb");
  h200.price_per_hour = 10;
  const auto rows = order_table(m, in, {h200, h100});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].gpu.id, "h100-sxm-80gb");  // 4 · $2 < $10 a GPU
  EXPECT_DOUBLE_EQ(rows[0].cost_per_hour, 8.0);
  // Infeasible within the bound
  EXPECT_FALSE(min_gpus(load_model("llama-3.1-405b"), in, load_gpu("rtx-4090"), 8).feasible);
}

TEST(PlannerSolvers, WhatIfRanksFormats) {
  const auto m = load_model("llama-3.1-8b");
  auto in = measured(40 * GiB, 32768);
  in.concurrency = 8;
  const auto rows = what_if(m, in, std::nullopt);
  ASSERT_GE(rows.size(), 8u);
  EXPECT_EQ(rows[0].format, "fp16");
  EXPECT_EQ(rows[0].max_requests, 9u);  // (20480 − 1) // 2048
  EXPECT_EQ(rows[1].format, "fp8");
  EXPECT_EQ(rows[1].max_requests, 19u);  // (40960 − 1) // 2048
  EXPECT_TRUE(rows[1].engine_native);
  EXPECT_FALSE(rows[2].engine_native);  // int8
  // kivi-2 holds more than kivi-4 holds more than fp8
  EXPECT_GT(rows[4].max_requests, rows[3].max_requests);
  EXPECT_GT(rows[3].max_requests, rows[1].max_requests);
}

TEST(PlannerProperties, MonotoneNeverNegativeNeverOvercommitted) {
  for (const char* id : {"llama-3.1-8b", "gemma-2-9b", "deepseek-v2-lite", "mistral-7b-v0.1"}) {
    const auto m = load_model(id);
    for (const char* f : {"fp16", "fp8", "int8", "kivi:bits=2,group=32,residual=128"}) {
      if (m.is_mla() && std::string(f).rfind("kivi", 0) == 0) continue;
      std::uint64_t last_requests = 0, last_tokens = 0;
      for (std::uint64_t mib = 0; mib <= 64 * 1024; mib += 1531) {
        const std::uint64_t avail = mib << 20;
        auto in = measured(avail, 4096, f);
        const auto c = plan_capacity(m, in);
        EXPECT_GE(c.max_requests, last_requests) << id << f << mib;
        EXPECT_GE(c.kv_cache_tokens, last_tokens) << id << f << mib;
        last_requests = c.max_requests;
        last_tokens = c.kv_cache_tokens;
        EXPECT_LE(c.max_requests * c.bytes_per_request, avail) << id << f << mib;
        if (c.paged) {
          EXPECT_LE(c.num_gpu_blocks * c.page_bytes * c.stages[0].group_size, avail);
          EXPECT_LE(c.max_requests * c.blocks_per_request, c.num_gpu_blocks);
        }
        // One more request never fits.
        if (c.fits_one_request) {
          EXPECT_LT(max_context_at_concurrency(m, in, c.max_requests + 1, 4096), 4096u);
        }
      }
    }
  }
}

TEST(PlannerErrors, NameTheField) {
  const auto m = load_model("llama-3.1-8b");
  auto in = measured(GiB, 1024);
  in.tp = 3;
  try {
    plan_capacity(m, in, "--tp");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "tp");
    EXPECT_NE(std::string(e.what()).find("does not divide"), std::string::npos) << e.what();
  }
  in.tp = 2;
  in.gpus = 3;
  EXPECT_THROW(plan_capacity(m, in), Error);
  in.gpus = 0;
  in.context = 0;
  EXPECT_THROW(plan_capacity(m, in), Error);
  PlanInput none;
  none.context = 10;
  EXPECT_THROW(plan_capacity(m, none), Error);  // no GPU memory at all
  EXPECT_THROW(parse_gib("1.2.3", "--x", "x"), Error);
  EXPECT_THROW(parse_gib("-1", "--x", "x"), Error);
  EXPECT_EQ(parse_gib("1.5", "--x", "x"), GiB + GiB / 2);
  EXPECT_EQ(parse_gib("0.000000001", "--x", "x"), 1u);  // floor(2^30 / 10^9)
  EXPECT_EQ(parse_fraction_ppm("0.92", "--x", "x"), 920000u);
  EXPECT_THROW(parse_fraction_ppm("1.2", "--x", "x"), Error);
}

// Speculative decoding's draft layer shares the pool. vLLM's startup log for Llama-3.1-8B with one
// EAGLE layer and 51.63 GiB available (quoted in issue 12): "GPU KV cache size: 410,128 tokens",
// "Maximum concurrency for 131,072 tokens per request: 3.13x".
TEST(PlannerVllm, EagleDraftLayerReproducesVllmsLog) {
  const auto m = load_model("llama-3.1-8b");
  auto in = measured(parse_gib("51.63", "test", "gib"), 131072);
  in.format = parse_kv_format("bf16");
  in.draft_layers = 1;
  const auto c = plan_capacity(m, in);
  // floor(51.63 · 2^30) = 55,437,290,373 B // 65,536 B page // 33 layers = 25,633 blocks
  EXPECT_EQ(c.num_gpu_blocks, 25633u);
  EXPECT_EQ(c.kv_cache_tokens, 25633u * 16);  // 410,128
  // 25,633 / (131,072 / 16) = 3.129 -> "3.13x"
  EXPECT_NEAR(c.max_concurrency, 3.13, 0.005);
  in.draft_layers = 0;  // without it: 55,437,290,373 // 65,536 // 32 = 26,434
  EXPECT_EQ(plan_capacity(m, in).num_gpu_blocks, 26434u);
}

// A recurrent hybrid under vLLM: Qwen3-Next-80B-A3B's 36 Gated DeltaNet layers each take one
// state page per sequence, the page unified with the attention page
// (Platform._align_hybrid_block_size, docs/models.md):
//   attention bytes per token and layer = 2 KV heads · (256 + 256) · 2 B      = 2,048
//   state page = conv 3 · 8192 · 2 B + ssm 32 · 128 · 128 · 2 B              = 1,097,728
//   block = 16 · ceil(1,097,728 / (16 · 2,048)) = 16 · 34                     = 544 tokens
//   page = 544 · 2,048                                                        = 1,114,112 B
// Groups: 12 full + 36 state layers, group size 12 → 1 attention group + 3 state groups.
TEST(PlannerVllm, HybridStatePagesUnifiedWithAttention) {
  const auto m = load_model(std::string(KVPLAN_TEST_DATA_DIR) + "/hf/qwen3-next-80b-a3b.json");
  auto in = measured(40 * GiB, 32768, "bf16");
  const auto c = plan_capacity(m, in);
  EXPECT_EQ(c.block_size, 544u);
  EXPECT_EQ(c.page_bytes, 1114112u);
  ASSERT_EQ(c.stages.size(), 1u);
  EXPECT_EQ(c.stages[0].group_size, 12u);
  EXPECT_EQ(c.stages[0].kv_cache_groups, 4u);
  // 42,949,672,960 // 1,114,112 // 12 = 3,212 blocks
  EXPECT_EQ(c.num_gpu_blocks, 3212u);
  // a request of 32,768 tokens: ceil(32,768 / 544) = 61 attention blocks + 3 state blocks
  EXPECT_EQ(c.blocks_per_request, 64u);
  EXPECT_EQ(c.max_requests, 3212u / 64);
  // A block size asked above the alignment is kept: 1,024 ≥ 544.
  in.block_size = 1024;
  EXPECT_EQ(plan_capacity(m, in).block_size, 1024u);
}

// Attention-free: a pure state-space model's pool holds state pages only.
TEST(PlannerVllm, AttentionFreeModelHoldsStatePagesOnly) {
  ModelSpec m = plain(4, 8, 8, 64);
  for (auto& l : m.layers) l = LayerSpec{AttentionKind::none, 0, true};
  m.recurrent =
      RecurrentSpec{.kind = MixerKind::mamba, .d_inner = 1024, .d_state = 16, .d_conv = 4};
  // state per layer: conv 3 · 1024 · 2 B + ssm 1024 · 16 · 2 B = 6,144 + 32,768 = 38,912 B
  const auto c = plan_capacity(m, measured(38912u * 4 * 100, 1000));
  EXPECT_EQ(c.page_bytes, 38912u);
  EXPECT_EQ(c.num_gpu_blocks, 100u);  // 4 layers in one group: 38,912 · 400 // 38,912 // 4
  EXPECT_EQ(c.blocks_per_request, 1u);
  EXPECT_EQ(c.max_requests, 99u);  // block 0 is the null block
}

// A quantized checkpoint keeps its bytes whatever --dtype says; a plain one takes the override.
TEST(PlannerMemory, QuantizedCheckpointIgnoresDtypeOverride) {
  auto m = load_model(std::string(KVPLAN_TEST_DATA_DIR) + "/hf/gpt-oss-120b.json");
  PlanInput in;
  in.context = 4096;
  in.gpu_memory_bytes = 80 * GiB;
  in.weight_dtype = "bf16";
  // The checkpoint's bytes, plus what vLLM's Marlin layout adds to each MXFP4 expert on a GPU it
  // cannot name (fused_moe/oracle/mxfp4.py@045335ce: width 2880 -> 2944, hidden 2880 -> 3072):
  // 1.5 x 2944 x 3072 + 3 x 2944 x 3072 / 32 + (2 x 2944 + 3072) x 2 = 14,431,744 B against the
  // checkpoint's 2 x 2880 x 2880 / 2 + 2880 x 2880 / 2 + 3 x 2880 x 2880 / 32 + (2 x 2880 +
  // 2880) x 2 = 13,236,480 B: 1,195,264 B x 128 experts x 36 layers = 5,507,776,512 B.
  EXPECT_EQ(memory_budget(m, in).weight_bytes, m.weight_bytes() + 5507776512u);
  in.tp = 2;
  // TP 2: 1440 of the width a rank (45 blocks of 32), padded to 1536: 1.5 x 1536 x 3072 +
  // 3 x 1536 x 3072 / 32 + (2 x 1536 + 3072) x 2 = 7,532,544 B against half the checkpoint's
  // 6,618,240 B: 914,304 B x 128 x 36 = 4,213,112,832 B.
  EXPECT_EQ(memory_budget(m, in).weight_bytes, (m.weight_bytes() + 1) / 2 + 4213112832u);
  // SGLang keeps the checkpoint's bytes (no held-layout rule).
  in.engine = Engine::sglang;
  EXPECT_EQ(memory_budget(m, in).weight_bytes, (m.weight_bytes() + 1) / 2);
  in.engine = Engine::vllm;
  const auto dense = load_model("llama-3.1-8b");
  in.tp = 1;
  in.weight_dtype = "fp8";
  EXPECT_EQ(memory_budget(dense, in).weight_bytes, dense.num_params);  // 1 B per parameter
}

// Expert parallelism: routed experts over all 8 GPUs, the rest replicated per TP group.
TEST(PlannerMemory, ExpertParallelShardsOnlyTheExperts) {
  auto m = load_model(std::string(KVPLAN_TEST_DATA_DIR) + "/hf/qwen3-30b-a3b.json");
  PlanInput in;
  in.context = 4096;
  in.gpu_memory_bytes = 80 * GiB;
  in.tp = 2;
  in.gpus = 8;  // 4 data-parallel replicas of TP 2
  in.expert_parallel = true;
  const std::uint64_t experts = m.weights.expert_bytes, rest = m.weight_bytes() - experts;
  EXPECT_EQ(memory_budget(m, in).weight_bytes, (rest + 1) / 2 + (experts + 7) / 8);
  // Without EP vLLM's 4 replicas still run the MoE layers as one TP group of 8 ranks, each expert
  // sharded over them (FusedMoEParallelConfig.make, fused_moe/config.py@002d6073): the same bytes.
  in.expert_parallel = false;
  EXPECT_EQ(memory_budget(m, in).weight_bytes, (rest + 1) / 2 + (experts + 7) / 8);
  // SGLang's --dp without DP attention runs independent servers, each with every expert.
  in.engine = Engine::sglang;
  EXPECT_EQ(memory_budget(m, in).weight_bytes, (m.weight_bytes() + 1) / 2);
}

// The order table never offers a layout vLLM refuses to start: MiniMax-M2.7's experts are 1,536
// columns wide in 128 x 128 fp8 blocks (config.json intermediate_size, weight_block_size), so the
// GPUs its MoE layers span without expert parallelism, TP x DP replicas, must divide 1,536 into
// whole blocks, 1536 / 128 = 12: a divisor of 12 (moe_cut_refusal). With expert parallelism the
// experts stay whole, so no layout cuts them, and the search is free to take more GPUs than 12.
TEST(PlannerOrders, NoLayoutCutsFp8ExpertsIntoPartBlocks) {
  const ModelSpec m = load_model("minimax-m2.7");
  ASSERT_EQ(m.moe_intermediate_size, 1536u);
  ASSERT_EQ(m.weights.block_n, 128u);
  PlanInput in;
  in.context = 32768;
  in.concurrency = 1024;
  const GpuSpec h100 = load_gpu("h100-sxm-80gb");
  const OrderOption tp = min_gpus(m, in, h100, 1024, "test");
  ASSERT_TRUE(tp.feasible) << tp.reason;
  EXPECT_EQ(12 % (tp.tp * tp.replicas), 0u) << tp.tp << " x " << tp.replicas;
  // On L40S every layout that holds them spans more than 12 GPUs: none starts, and the reason
  // says why and what does.
  const OrderOption l40s = min_gpus(m, in, load_gpu("l40s"), 1024, "test");
  EXPECT_FALSE(l40s.feasible);
  EXPECT_NE(l40s.reason.find("cuts the fp8 experts into part blocks"), std::string::npos)
      << l40s.reason;
  EXPECT_NE(l40s.reason.find("--enable-expert-parallel"), std::string::npos) << l40s.reason;
  in.expert_parallel = true;
  const OrderOption ep = min_gpus(m, in, h100, 1024, "test");
  ASSERT_TRUE(ep.feasible) << ep.reason;
  EXPECT_GT(ep.gpus, 12u) << ep.tp << " x " << ep.pp << " x " << ep.replicas;
  EXPECT_GE(ep.max_requests, 1024u);
  PlanInput at = in;
  at.tp = ep.tp, at.pp = ep.pp, at.gpus = ep.gpus;
  EXPECT_FALSE(moe_cut_refusal(m, at, "tp").has_value());
}

// vLLM's data-parallel ranks of an MoE model share its routed experts (each of s ranks holds 1/s
// of them: stage_weights), so s ranks hold more than s times one rank's requests and the order
// takes the fewest ranks that hold the concurrency, not the one-rank count ceil(want / per), nor
// only layouts one rank of which loads. Qwen3-235B-A22B in bf16 at 32,768 tokens, 256 requests on
// H100s: for the layout the order picks, fewer replicas than the one-rank count (where one rank
// loads at all), holding 256, and one fewer does not.
TEST(PlannerOrders, DataParallelRanksSharingExpertsTakeTheFewest) {
  const ModelSpec m = load_model("qwen3-235b-a22b");
  PlanInput in;
  in.context = 32768;
  in.concurrency = 256;
  const OrderOption o = min_gpus(m, in, load_gpu("h100-sxm-80gb"), 1024, "test");
  ASSERT_TRUE(o.feasible) << o.reason;
  PlanInput at = in;
  at.tp = o.tp, at.pp = o.pp, at.gpus = 0;
  at.gpu_memory_bytes = load_gpu("h100-sxm-80gb").engine_memory_bytes();
  at.gpu_id = "h100-sxm-80gb";
  // One rank of the layout holds `per` (0: it does not even load the weights alone).
  const std::uint64_t per = plan_capacity(m, at, "test").max_requests_per_replica;
  if (per > 0) EXPECT_LT(o.replicas, (256 + per - 1) / per) << o.tp << " x " << o.pp << ", " << per;
  at.gpus = o.gpus;
  EXPECT_GE(plan_capacity(m, at, "test").max_requests, 256u);
  EXPECT_EQ(o.max_requests, plan_capacity(m, at, "test").max_requests);
  ASSERT_GT(o.replicas, 1u);
  at.gpus = o.gpus - o.tp * o.pp;
  EXPECT_LT(plan_capacity(m, at, "test").max_requests, 256u);
}

// Several ranks load what one cannot: Mixtral-8x7B in bf16 (46.7 B parameters, 93 GB) on L4s
// (24 GB) at 32,768 tokens, 64 requests. Whatever layout the order picks, it holds 64, one rank
// fewer does not; and layouts where one rank alone does not load are searched too (a TP 4 rank
// of 4 L4s holds 96 GB less the CUDA context and activations: not the 93 GB of weights).
TEST(PlannerOrders, SharingRanksLoadWhatOneRankCannot) {
  const ModelSpec m = load_model("mixtral-8x7b");
  const GpuSpec l4 = load_gpu("l4");
  PlanInput in;
  in.context = 32768;
  in.concurrency = 64;
  const OrderOption o = min_gpus(m, in, l4, 1024, "test");
  ASSERT_TRUE(o.feasible) << o.reason;
  PlanInput at = in;
  at.tp = o.tp, at.pp = o.pp, at.gpus = o.gpus;
  at.gpu_memory_bytes = l4.engine_memory_bytes();
  at.gpu_id = l4.id;
  EXPECT_GE(plan_capacity(m, at, "test").max_requests, 64u);
  ASSERT_GT(o.replicas, 1u);
  at.gpus = o.gpus - o.tp * o.pp;
  EXPECT_LT(plan_capacity(m, at, "test").max_requests, 64u);
  PlanInput four = in;
  four.tp = 4, four.pp = 1, four.gpus = 0;
  four.gpu_memory_bytes = l4.engine_memory_bytes();
  four.gpu_id = l4.id;
  EXPECT_EQ(plan_capacity(m, four, "test").max_requests_per_replica, 0u);
  EXPECT_LE(o.gpus, 20u);  // TP 4 × 5 ranks is one such layout, and it holds 64
  four.gpus = 20;
  EXPECT_GE(plan_capacity(m, four, "test").max_requests, 64u);
}

// A layer with its own KV heads (an EAGLE-style draft of 8 heads beside 4-head layers): TP must
// fit both head counts; SGLang, TensorRT-LLM and vLLM 0.9's rules refuse the model (kvplan sizes
// their pools from one geometry). vLLM's current rules, pages 16 · 4 · 128 · 2 = 16384 and
// 16 · 8 · 128 · 2 = 32768:
//   3 full layers (4, 4, 8 heads) are one UniformTypeKVCacheSpecs group whose block costs
//   16384 + 16384 + 32768 = 65536: 983040 // 65536 = 15 blocks, cdiv(64, 16) = 4 a request;
//   full (4) + sliding W 32 (4) + full (8): three types of one layer, groups of 1; 16384 divides
//   32768, so both 4-head layers take blocks of 32 tokens, page 32768: 983040 // 32768 = 30
//   blocks; at 64 tokens full-4 cdiv(64, 32) = 2, sliding cdiv(min(31 + 8192, 64), 32) + 1 = 3,
//   full-8 cdiv(64, 16) = 4 → 9. The serving simulator models one block size and refuses it.
TEST(PlannerVllm, LayersOfTheirOwnGeometry) {
  auto m = plain(3, 8, 4, 64);
  m.layers[2].kv_heads = 6;
  EXPECT_FALSE(valid_tp(m, 4));  // 4 divides 4 but not 6
  EXPECT_TRUE(valid_tp(m, 2));
  m.layers[2].kv_heads = 8;
  EXPECT_TRUE(valid_tp(m, 8));
  const auto u = plan_capacity(m, measured(983040, 64));
  EXPECT_EQ(u.page_bytes, 65536u);
  EXPECT_EQ(u.num_gpu_blocks, 15u);
  EXPECT_EQ(u.blocks_per_request, 4u);
  EXPECT_EQ(make_kv_pool(m, measured(983040, 64)).usable_blocks, 14u);
  for (const char* engine : {"sglang", "trtllm", "vllm@0.9"}) {
    SCOPED_TRACE(engine);
    auto in = measured(GiB, 64);
    set_engine(in, engine, "test", "engine");
    EXPECT_THROW(plan_capacity(m, in), Error);
  }
  m.layers[1] = {.kind = AttentionKind::sliding, .window = 32};
  const auto h = plan_capacity(m, measured(983040, 64));
  EXPECT_EQ(h.page_bytes, 32768u);
  EXPECT_EQ(h.num_gpu_blocks, 30u);
  EXPECT_EQ(h.blocks_per_request, 2u + 3 + 4);
  EXPECT_THROW(make_kv_pool(m, measured(983040, 64)), Error);
}

}  // namespace
}  // namespace kvplan
