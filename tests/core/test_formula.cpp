// The formula by hand: every expected number below is derived in the comment above it.
#include <gtest/gtest.h>

#include "kvplan/checked.hpp"
#include "kvplan/error.hpp"
#include "kvplan/formula.hpp"
#include "model_shapes.hpp"

namespace kvplan {
namespace {

ModelSpec plain(std::uint32_t layers, std::uint32_t q, std::uint32_t kv, std::uint32_t d) {
  return test::full_attention_model("test", layers, q, kv, d);
}

KvCost cost(const ModelSpec& m, std::uint64_t n, const std::string& fmt = "fp16",
            const std::string& pol = "full", std::uint32_t block = 1, std::uint64_t batch = 1,
            std::uint32_t tp = 1) {
  return kv_cost(m, KvCostInput{.context = n,
                                .batch = batch,
                                .format = parse_kv_format(fmt),
                                .policy = parse_policy(pol),
                                .block_size = block,
                                .tp = tp});
}

TEST(Formula, Llama31_8bFp16IsOneGiBAt8K) {
  const auto m = load_model("llama-3.1-8b");
  const auto c = cost(m, 8192);
  // 2 (K and V) · 32 layers · 8 KV heads · 128 dims · 2 bytes = 131072 bytes per token.
  EXPECT_EQ(c.bytes_per_token, 2u * 32 * 8 * 128 * 2);
  EXPECT_EQ(c.bytes_per_token, 131072u);
  // 131072 · 8192 tokens = 2^30 bytes.
  EXPECT_EQ(c.bytes_per_request, 1073741824u);
  EXPECT_EQ(c.cached_layers, 32u);
  EXPECT_EQ(c.kv_heads_per_rank, 8u);
}

TEST(Formula, BatchMultipliesTotal) {
  const auto c = cost(plain(2, 4, 2, 64), 100, "fp16", "full", 1, 7);
  // per request: 2 layers · 2 heads · (64 + 64) · 2 B · 100 tokens = 102400
  EXPECT_EQ(c.bytes_per_request, 102400u);
  EXPECT_EQ(c.total_bytes, 7u * 102400);
}

TEST(Formula, FormatsPlain) {
  const auto m = plain(1, 1, 1, 128);
  // one layer, one head, K + V of 128 elements, 10 tokens
  EXPECT_EQ(cost(m, 10, "fp32").bytes_per_request, 10u * 256 * 4);
  EXPECT_EQ(cost(m, 10, "bf16").bytes_per_request, 10u * 256 * 2);
  EXPECT_EQ(cost(m, 10, "fp8").bytes_per_request, 10u * 256);
  EXPECT_EQ(cost(m, 10, "fp8_e5m2").bytes_per_request, 10u * 256);
  // int8 adds one fp32 scale per token per head per K/V: (128 + 4) · 2 · 10
  EXPECT_EQ(cost(m, 10, "int8").bytes_per_request, 10u * 2 * (128 + 4));
}

TEST(Formula, PagingRoundsUpToWholeBlocks) {
  const auto m = plain(1, 1, 1, 128);
  // 17 tokens in blocks of 16 hold 32 slots: 32 · 256 · 2
  EXPECT_EQ(cost(m, 17, "fp16", "full", 16).bytes_per_request, 32u * 256 * 2);
  EXPECT_EQ(cost(m, 16, "fp16", "full", 16).bytes_per_request, 16u * 256 * 2);
  EXPECT_EQ(cost(m, 0, "fp16", "full", 16).bytes_per_request, 0u);
}

TEST(Formula, KiviMetadataAndResidual) {
  const auto m = plain(1, 1, 1, 128);
  // kivi 2-bit, group 32: a group is 32 values · 2 bits = 64 bits = 2 words = 8 bytes, plus an
  // fp16 scale and an fp16 zero-point = 12 bytes.
  const auto f = parse_kv_format("kivi:bits=2,group=32,residual=128");
  EXPECT_EQ(kivi_group_bytes(f), 12u);
  // n = 300, R = 128:
  //  K: quantized floor(300/128)·128 = 256 tokens = 8 token-groups per channel · 128 channels ·
  //     12 = 12288; residual 300 mod 128 = 44 tokens fp16: 44 · 128 · 2 = 11264.
  //  V: quantized 300 − 128 = 172 tokens · (128/32 = 4 groups) · 12 = 8256;
  //     window 128 tokens fp16: 128 · 128 · 2 = 32768.
  EXPECT_EQ(cost(m, 300, "kivi:bits=2,group=32,residual=128").bytes_per_request,
            12288u + 11264 + 8256 + 32768);
  // per token away from the residual: K 128 · 12 / 32 = 48, V 4 · 12 = 48
  EXPECT_EQ(cost(m, 300, "kivi:bits=2,group=32,residual=128").bytes_per_token, 96u);
  // 4-bit: group = 128 bits = 4 words = 16 B + 4 = 20 B
  EXPECT_EQ(kivi_group_bytes(parse_kv_format("kivi:bits=4,group=32,residual=128")), 20u);
  // A 2-bit group of 8 uses half a word; the word is still allocated: 4 + 4 = 8 B.
  EXPECT_EQ(kivi_group_bytes(parse_kv_format("kivi:bits=2,group=8,residual=32")), 8u);
}

TEST(Formula, KiviPagedKeysUseLcmBlocks) {
  const auto m = plain(1, 1, 1, 64);
  // S = 16, G = 32, R = 64, n = 200: K quantized 192 tokens in blocks of lcm(16,32) = 32 ->
  // 192 tokens = 6 groups · 64 ch · 12 B = 4608; K residual 8 tokens -> one block of 16:
  // 16 · 64 · 2 = 2048. V quantized 136 -> 144 slots · 2 groups · 12 = 3456; window 64 -> 64 ·
  // 64 · 2 = 8192.
  EXPECT_EQ(cost(m, 200, "kivi:bits=2,group=32,residual=64", "full", 16).bytes_per_request,
            4608u + 2048 + 3456 + 8192);
}

TEST(Formula, SlidingWindowAndMixedLayers) {
  auto m = plain(4, 8, 4, 64);
  for (int i = 0; i < 4; i += 2) m.layers[i] = {AttentionKind::sliding, 100};
  m.layers[3] = {AttentionKind::none, 0};
  // layers 0, 2 keep min(1000, 100) = 100; layer 1 keeps 1000; layer 3 none.
  // per layer-token: 4 heads · 128 · 2 = 1024 B
  const auto c = cost(m, 1000);
  EXPECT_EQ(c.cached_layers, 3u);
  EXPECT_EQ(c.bytes_per_request, (100u + 100 + 1000) * 1024);
  ASSERT_EQ(c.groups.size(), 2u);
}

TEST(Formula, MlaLatentIsNotShardedByTp) {
  const auto m = load_model("deepseek-v3");
  // 61 layers (the MTP layer holds a cache only under speculative decoding), latent 512 + 64 =
  // 576 fp16 values = 1152 B per token-layer.
  const auto c = cost(m, 1000, "fp16", "full", 1, 1, 8);
  EXPECT_EQ(c.kv_heads_per_rank, 1u);
  EXPECT_EQ(c.cached_layers, 61u);
  EXPECT_EQ(c.bytes_per_token, 61u * 576 * 2);
  EXPECT_EQ(c.bytes_per_request, 1000u * 61 * 576 * 2);
  // With MTP on, its one layer adds a 62nd latent.
  const auto mtp = kv_cost(m, KvCostInput{.context = 1000, .tp = 8, .draft_layers = m.mtp_layers});
  EXPECT_EQ(mtp.cached_layers, 62u);
  EXPECT_EQ(mtp.bytes_per_request, 1000u * 62 * 576 * 2);
  EXPECT_THROW(cost(m, 10, "kivi:bits=2,group=32,residual=128"), Error);
}

TEST(Formula, TensorParallelShardsAndReplicates) {
  const auto m = plain(1, 8, 4, 64);
  EXPECT_EQ(cost(m, 1, "fp16", "full", 1, 1, 2).kv_heads_per_rank, 2u);
  EXPECT_EQ(cost(m, 1, "fp16", "full", 1, 1, 8).kv_heads_per_rank, 1u);  // replicated
  EXPECT_THROW(cost(m, 1, "fp16", "full", 1, 1, 3), Error);
  EXPECT_THROW(cost(m, 1, "fp16", "full", 1, 1, 6), Error);
}

// A layer with its own geometry (LayerSpec::kv_heads / head dims): 2 layers of 4 KV heads × 64
// and one draft-like layer of 8 heads × 128, fp16, 1000 tokens:
//   model layers: 4 · (64 + 64) · 2 = 1024 B a token each; own layer: 8 · 256 · 2 = 4096 B
//   bytes_per_token = 2 · 1024 + 4096 = 6144; bytes_per_request = 1000 · 6144
// Under TP 2 the own layer shards its own heads: 4 · 256 · 2 = 2048 B; TP 16 replicates the
// model's 4 heads (1 a rank) and the layer's 8 (1 a rank): 2 · 256 + 512 = 1024 B. TP 3 divides
// neither; TP 8 divides the layer's 8 heads and is a multiple of the model's 4.
TEST(Formula, LayersOfTheirOwnGeometry) {
  auto m = plain(3, 8, 4, 64);
  m.layers[2] = {.kind = AttentionKind::full, .kv_heads = 8, .head_dim_k = 128, .head_dim_v = 128};
  const auto c = cost(m, 1000);
  EXPECT_EQ(c.bytes_per_token, 2u * 1024 + 4096);
  EXPECT_EQ(c.bytes_per_request, 1000u * 6144);
  ASSERT_EQ(c.groups.size(), 2u);
  EXPECT_EQ(c.groups[1].kv_heads, 8u);
  EXPECT_EQ(c.groups[1].k_width, 128u);
  EXPECT_EQ(cost(m, 1, "fp16", "full", 1, 1, 2).bytes_per_token, 2u * 512 + 2048);
  EXPECT_EQ(cost(m, 1, "fp16", "full", 1, 1, 16).bytes_per_token, 2u * 256 + 512);
  EXPECT_EQ(cost(m, 1, "fp16", "full", 1, 1, 8).bytes_per_token, 2u * 256 + 512);
  EXPECT_THROW(cost(m, 1, "fp16", "full", 1, 1, 3), Error);
  // A layer with 6 heads: TP 4 divides the model's 4 but neither divides nor is a multiple of 6.
  m.layers[2].kv_heads = 6;
  EXPECT_THROW(cost(m, 1, "fp16", "full", 1, 1, 4), Error);
}

TEST(Formula, PoliciesBoundRetention) {
  const auto m = plain(1, 1, 1, 64);
  // streaming sink 4 + window 60 keeps 64 of 1000: 64 · 128 · 2
  EXPECT_EQ(cost(m, 1000, "fp16", "streaming:sink=4,window=60").bytes_per_request, 64u * 256);
  EXPECT_EQ(cost(m, 10, "fp16", "streaming:sink=4,window=60").bytes_per_request, 10u * 256);
  EXPECT_EQ(cost(m, 1000, "fp16", "h2o:heavy=10,recent=20").bytes_per_request, 30u * 256);
  // keep 0.2 + recent 0.1 of 1000 = 300
  EXPECT_EQ(cost(m, 1000, "fp16", "h2o:keep=0.2,recent=0.1").bytes_per_request, 300u * 256);
  EXPECT_EQ(cost(m, 1000, "fp16", "snapkv:budget=128").bytes_per_request, 128u * 256);
}

TEST(Formula, OverflowIsAnError) {
  auto m = plain(4096, 4096, 4096, 65536);
  EXPECT_THROW(cost(m, std::uint64_t{1} << 40, "fp32", "full", 1, std::uint64_t{1} << 32), Error);
  EXPECT_THROW(mul(std::uint64_t{1} << 63, 2), Error);
  EXPECT_THROW(add(~std::uint64_t{0}, 1), Error);
  EXPECT_EQ(mul(std::uint64_t{1} << 31, std::uint64_t{1} << 32), std::uint64_t{1} << 63);
}

}  // namespace
}  // namespace kvplan

namespace kvplan {
namespace {

TEST(Formula, OverflowNamesTheInputThatCausedIt) {
  const auto m = load_model("llama-3.1-405b");
  try {
    kv_cost(m, KvCostInput{.context = std::uint64_t{1} << 40, .batch = std::uint64_t{1} << 32},
            "--context");
    ADD_FAILURE() << "no overflow";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "batch");
    EXPECT_NE(std::string(e.what()).find("overflows 64-bit"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kvplan
