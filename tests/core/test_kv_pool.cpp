// kv_pool: the simulator's block arithmetic equals the planner's, and its linear byte form equals
// kv_cost. Hand arithmetic above each expectation.
#include <gtest/gtest.h>

#include "kvplan/error.hpp"
#include "kvplan/formula.hpp"
#include "kvplan/kv_pool.hpp"
#include "kvplan/planner.hpp"

namespace kvplan {
namespace {

constexpr std::uint64_t GiB = std::uint64_t{1} << 30;

PlanInput measured(std::uint64_t available, std::uint64_t context, const std::string& fmt = "fp16",
                   const std::string& policy = "full") {
  PlanInput in;
  in.format = parse_kv_format(fmt);
  in.policy = parse_policy(policy);
  in.context = context;
  in.available_kv_bytes = available;
  return in;
}

// The worked example of kv_pool.hpp (the numbers of planner.hpp's).
TEST(KvPool, Llama8bWorkedExample) {
  const auto m = load_model("llama-3.1-8b");
  const KvPool p = make_kv_pool(m, measured(40 * GiB, 32768));
  // page = 16 · 8 · (128 + 128) · 2 = 65536; 42949672960 // 65536 // 32 = 20480 blocks, one null.
  EXPECT_EQ(p.page_bytes, 65536u);
  EXPECT_EQ(p.num_gpu_blocks, 20480u);
  EXPECT_EQ(p.usable_blocks, 20479u);
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(p.groups[0].layers, 32u);
  // ceil(1000 / 16) = 63; 1000 + 8 scheduled: ceil(1008 / 16) = 63; 1009: 64.
  EXPECT_EQ(p.blocks(1000), 63u);
  EXPECT_EQ(p.blocks(1000, 8), 63u);
  EXPECT_EQ(p.blocks(1000, 9), 64u);
  // 32768 tokens: cdiv(32768, 16) = 2048 blocks, plan_capacity's blocks_per_request.
  EXPECT_EQ(p.max_blocks(32768), 2048u);
  // 1000 · 2 · 32 layers · 8 heads · 128 · 2 bytes = 131072000
  EXPECT_EQ(p.seq_bytes(1000), 131072000u);
  EXPECT_TRUE(p.monotone());
}

// Two pipeline stages (vLLM): each GPU holds 16 of Llama-3.1-8B's 32 layers, so a block of 16
// tokens takes 16 · 65536 = 1 MiB of it: 40 GiB // 1 MiB = 40960 blocks on each stage, the fewest
// of any stage the pool's (get_kv_cache_configs). A step reads every stage's layers: a sequence's
// bytes are the whole model's, 1000 · 2 · 32 · 8 · 128 · 2 as at pp 1.
TEST(KvPool, PipelineStagesShareOneBlockPool) {
  const auto m = load_model("llama-3.1-8b");
  PlanInput in = measured(40 * GiB, 32768);
  in.pp = 2;
  const KvPool p = make_kv_pool(m, in);
  EXPECT_EQ(p.num_gpu_blocks, 40960u);
  EXPECT_EQ(p.usable_blocks, 40959u);
  EXPECT_EQ(p.seq_bytes(1000), 131072000u);
  EXPECT_EQ(p.max_blocks(32768), 2048u);
  // Gemma-2-9B at pp 2: 42 layers alternating sliding and full, 11 sliding and 10 full on one
  // stage, 10 and 11 on the other. vLLM forms the groups over the whole model (21 and 21: one
  // group of each) and each worker sizes its blocks by its largest projected group, 11 layers
  // (get_kv_cache_configs, kv_cache_utils.py@001cabc1): page 16 · 8 · 256 · 2 · 2 = 131072 B,
  // 10 GiB // 131072 // 11 = 7447 blocks on either stage. Both stages form one group of each
  // kind, in different orders: one pool.
  const auto gemma = load_model("gemma-2-9b");
  PlanInput g = measured(10 * GiB, 8192);
  g.pp = 2;
  const KvPool gp = make_kv_pool(gemma, g);
  EXPECT_EQ(gp.num_gpu_blocks, 7447u);
  EXPECT_EQ(gp.groups.size(), 2u);
  // SGLang's stages, one pool of tokens (page 1): 16 layers · 8 heads · 256 · 2 B = 65,536 B a
  // token on either stage, 40 GiB // 65,536 = 655,360 tokens. TensorRT-LLM's are not simulated.
  in.engine = Engine::sglang;
  const KvPool sg = make_kv_pool(m, in, "test");
  EXPECT_EQ(sg.block_size, 1u);
  EXPECT_EQ(sg.num_gpu_blocks, 655360u);
  in.engine = Engine::trtllm;
  try {
    make_kv_pool(m, in, "test");
    ADD_FAILURE() << "TensorRT-LLM stages simulated";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "pp");
    EXPECT_NE(std::string(e.what()).find("for vLLM and SGLang only"), std::string::npos)
        << e.what();
  }
}

// Gemma-2-9B: 21 sliding (W 4096) + 21 full layers, two groups of 21.
TEST(KvPool, Gemma2SlidingGroupFreesBlocksOutsideTheWindow) {
  const auto m = load_model("gemma-2-9b");
  const KvPool p = make_kv_pool(m, measured(40 * GiB, 8192));
  // page = 16 · 8 · (256 + 256) · 2 = 131072; 42949672960 // 131072 // 21 = 15603; one null.
  EXPECT_EQ(p.page_bytes, 131072u);
  EXPECT_EQ(p.num_gpu_blocks, 15603u);
  EXPECT_EQ(p.usable_blocks, 15602u);
  ASSERT_EQ(p.groups.size(), 2u);
  std::size_t sliding = p.groups[0].kind == AttentionKind::sliding ? 0 : 1;
  ASSERT_EQ(p.groups[sliding].kind, AttentionKind::sliding);
  EXPECT_EQ(p.groups[sliding].window, 4096u);
  EXPECT_FALSE(p.monotone());
  // Within the window nothing is freed: 4000 computed + 1: ceil(4001 / 16) = 251.
  EXPECT_EQ(p.group_blocks(sliding, 4000, 1), 251u);
  // 8000 computed + 1: ceil(8001 / 16) = 501 held, the first floor((8000 − 4096 + 1) / 16) =
  // floor(3905 / 16) = 244 freed: 257. The full group holds all 501.
  EXPECT_EQ(p.group_blocks(sliding, 8000, 1), 257u);
  EXPECT_EQ(p.group_blocks(1 - sliding, 8000, 1), 501u);
  EXPECT_EQ(p.blocks(8000, 1), 758u);
  // The planner reserves, for 8192 tokens: sliding ceil(min(4095 + 8192, 8192) / 16) + 1 = 513,
  // full 512: 1025 — never below what a step holds.
  EXPECT_EQ(p.max_blocks(8192), 1025u);
  for (std::uint64_t c = 0; c < 8192; c += 97)
    for (std::uint64_t s : {1u, 96u, 4096u}) {
      if (c + s <= 8192) {
        EXPECT_LE(p.blocks(c, s), p.max_blocks(8192)) << c << " " << s;
      }
    }
}

// Against plan_capacity for presets of each group kind: the pool's blocks are the planner's
// num_gpu_blocks − 1, and its reservation for `context` the planner's blocks_per_request.
struct PresetCase {
  const char* model;
  std::uint64_t context;
  const char* format;
  const char* policy;
};
class KvPoolPreset : public ::testing::TestWithParam<PresetCase> {};

TEST_P(KvPoolPreset, EqualsThePlanner) {
  const auto& pc = GetParam();
  const auto m = load_model(pc.model);
  const PlanInput in = measured(40 * GiB, pc.context, pc.format, pc.policy);
  const Capacity cap = plan_capacity(m, in);
  const KvPool p = make_kv_pool(m, in);
  EXPECT_EQ(p.num_gpu_blocks, cap.num_gpu_blocks);
  EXPECT_EQ(p.usable_blocks, cap.num_gpu_blocks - 1);
  EXPECT_EQ(p.block_size, cap.block_size);
  EXPECT_EQ(p.page_bytes, cap.page_bytes);
  EXPECT_EQ(p.groups.size(), cap.stages[0].kv_cache_groups);
  EXPECT_EQ(p.max_blocks(pc.context), cap.blocks_per_request);
  // Full attention under the full policy holds what the planner reserves at every n.
  if (p.monotone()) {
    for (std::uint64_t n : {std::uint64_t{1}, std::uint64_t{17}, pc.context / 3, pc.context}) {
      EXPECT_EQ(p.blocks(n), p.max_blocks(n)) << n;
    }
  }
  // The linear byte form against kv_cost itself, unpaged.
  KvCostInput ci{
      .context = 1, .format = in.format, .policy = in.policy, .block_size = 1, .tp = in.tp};
  for (std::uint64_t n = 1; n <= 3 * pc.context; n = n * 3 / 2 + 1) {
    ci.context = n;
    EXPECT_EQ(p.seq_bytes(n), kv_cost(m, ci).bytes_per_request) << pc.model << " n=" << n;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Presets, KvPoolPreset,
    ::testing::Values(PresetCase{"llama-3.1-8b", 32768, "fp16", "full"},
                      PresetCase{"llama-3.1-8b", 8192, "fp8", "full"},
                      PresetCase{"llama-3.1-8b", 8192, "int8", "full"},
                      PresetCase{"llama-3.1-8b", 8192, "fp16", "streaming:sink=4,window=1020"},
                      PresetCase{"llama-3.1-8b", 8192, "fp16", "h2o:keep=0.2,recent=0.1"},
                      PresetCase{"gemma-2-9b", 8192, "fp16", "full"},
                      PresetCase{"gpt-oss-20b", 32768, "fp16", "full"},
                      PresetCase{"llama-4-scout", 32768, "bf16", "full"},
                      PresetCase{"nemotron-h-56b", 8192, "fp16", "full"},
                      PresetCase{"qwen3-next-80b-a3b", 8192, "bf16", "full"},
                      PresetCase{"deepseek-v2-lite", 8192, "fp16", "full"}),
    [](const auto& info) {
      std::string s = std::string(info.param.model) + "_" + info.param.format + "_" +
                      std::to_string(info.index);
      for (char& c : s)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      return s;
    });

// kivi is not linear in n (quantized groups plus an fp16 residual): the pool refuses it, and
// kv_cost stays the one place its bytes are computed.
// Qwen3-Next's Gated DeltaNet state: vLLM pages it in a group of its own (a fixed page per
// sequence); SGLang keeps it in its Mamba pool, so the blocks (its full-attention tokens, page
// size 1) hold attention only — a sequence of 1000 tokens takes 1000 in each attention group —
// and the pool's slots cap the running requests: max_mamba_cache_size 30 // 5 = 6, Qwen3-Next
// running the extra buffer beside the overlap scheduler (3 + 2 slots a request,
// KVCacheConfigurator._calculate_mamba_ratio, kv_cache_configurator.py@382343f860c7df8dc43ecefd
// 7902c940d81c99a9); --disable-radix-cache: one slot a request, 30.
TEST(KvPool, SglangKeepsTheRecurrentStateOutOfTheBlocks) {
  const auto m = load_model("qwen3-next-80b-a3b");
  PlanInput in = measured(40 * GiB, 8192);
  in.tp = 4;
  const KvPool v = make_kv_pool(m, in);
  EXPECT_TRUE(v.recurrent_state);
  EXPECT_EQ(v.max_running, 0u);
  bool vllm_state = false;
  for (const auto& g : v.groups) vllm_state = vllm_state || g.kind == AttentionKind::none;
  EXPECT_TRUE(vllm_state);
  in.engine = Engine::sglang;
  in.block_size = 1;
  in.edit_sglang().max_mamba_cache_size = 30;
  const KvPool s = make_kv_pool(m, in);
  EXPECT_TRUE(s.recurrent_state);
  EXPECT_EQ(s.max_running, 6u);
  ASSERT_FALSE(s.groups.empty());
  for (const auto& g : s.groups) EXPECT_NE(g.kind, AttentionKind::none);
  EXPECT_EQ(s.blocks(1000), 1000u * s.groups.size());
  in.edit_sglang().disable_radix_cache = true;
  EXPECT_EQ(make_kv_pool(m, in).max_running, 30u);
}

TEST(KvPool, RefusesWhatItCannotSchedule) {
  const auto m = load_model("llama-3.1-8b");
  EXPECT_THROW(make_kv_pool(m, measured(40 * GiB, 8192, "kivi:bits=2,group=32,residual=128")),
               Error);
  PlanInput pp = measured(40 * GiB, 8192);
  pp.pp = 2;
  pp.engine = Engine::trtllm;  // stages are vLLM's only (PipelineStagesShareOneBlockPool)
  try {
    make_kv_pool(m, pp, "deploy.json");
    FAIL() << "TensorRT-LLM's pp 2 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.source(), "deploy.json");
    EXPECT_EQ(e.field(), "pp");
  }
  // 2 MiB of KV memory: 2097152 // 65536 // 32 = 1 block, the null block: nothing left.
  try {
    make_kv_pool(m, measured(2 << 20, 8192), "deploy.json");
    FAIL() << "an empty pool accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "gpu_memory");
  }
}

}  // namespace
}  // namespace kvplan
