// The 2026 catalogue: real published config.json files (tests/data/hf, provenance in its
// README.md) imported and costed. Every expected byte count is hand arithmetic from the config's
// own fields, written out beside it; every layer pattern and state shape cites the rule it
// follows (vLLM's model file and kv_cache_interface.py, or the family's transformers config
// class; docs/models.md lists them with their commits). Weight figures are compared with the
// published parameter count (model card) within 2%.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "kvplan/error.hpp"
#include "kvplan/formula.hpp"
#include "kvplan/model.hpp"

namespace {

using kvplan::AttentionKind;
using kvplan::KvCostInput;
using kvplan::MixerKind;
using kvplan::ModelSpec;

std::string hf(const std::string& name) {
  return std::string(KVPLAN_TEST_DATA_DIR) + "/hf/" + name + ".json";
}

std::size_t count(const ModelSpec& m, AttentionKind k) {
  std::size_t n = 0;
  for (const auto& l : m.layers) n += l.kind == k;
  return n;
}

std::uint64_t request_bytes(const ModelSpec& m, std::uint64_t n, std::uint32_t tp = 1,
                            std::uint32_t draft = 0) {
  return kvplan::kv_cost(m, KvCostInput{.context = n, .tp = tp, .draft_layers = draft})
      .bytes_per_request;
}

void expect_near(double got, double published, double tol, const std::string& what) {
  EXPECT_LT(std::abs(got - published) / published, tol)
      << what << ": got " << got << ", published " << published;
}

// ---- dense and sliding families --------------------------------------------------------------

TEST(HfCatalogue, Qwen3_8B_Dense) {
  const auto m = kvplan::load_model(hf("qwen3-8b"));
  // 36 layers · 8 KV heads · (128 + 128) · 2 B = 147,456 B per token.
  EXPECT_EQ(request_bytes(m, 4096), 147456ull * 4096);
  EXPECT_EQ(request_bytes(m, 32768), 147456ull * 32768);
  expect_near(static_cast<double>(m.num_params), 8.2e9, 0.02, "Qwen3-8B (model card: 8.2B)");
}

TEST(HfCatalogue, Qwen3_14B_32B_Phi4_Nemo_Llama33_Dense) {
  struct Case {
    const char* file;
    std::uint64_t per_token;  // layers · kv heads · 2 · head_dim · 2 B
    double published;         // model card
  } cases[] = {
      {"qwen3-14b", 40ull * 8 * 2 * 128 * 2, 14.8e9},
      {"qwen3-32b", 64ull * 8 * 2 * 128 * 2, 32.8e9},
      {"phi-4", 40ull * 10 * 2 * 128 * 2, 14.7e9},
      {"mistral-nemo", 40ull * 8 * 2 * 128 * 2, 12.2e9},
      {"llama-3.3-70b", 80ull * 8 * 2 * 128 * 2, 70.6e9},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    const auto m = kvplan::load_model(hf(c.file));
    EXPECT_EQ(count(m, AttentionKind::full), m.layers.size());
    EXPECT_EQ(request_bytes(m, 1000), c.per_token * 1000);
    EXPECT_EQ(request_bytes(m, 32768), c.per_token * 32768);
    expect_near(static_cast<double>(m.num_params), c.published, 0.02, c.file);
  }
}

TEST(HfCatalogue, GptOss_AlternatingWindowsAndMxfp4Experts) {
  // layer_types: even layers sliding_attention (window 128), odd full_attention (vLLM
  // gpt_oss.py: sliding_window if layer_idx % 2 == 0). 36 layers, 8 KV heads, head_dim 64:
  // one layer-token = 8 · (64 + 64) · 2 B = 2,048 B.
  const auto m = kvplan::load_model(hf("gpt-oss-120b"));
  ASSERT_EQ(m.layers.size(), 36u);
  for (std::size_t i = 0; i < 36; ++i)
    EXPECT_EQ(m.layers[i].kind, i % 2 == 0 ? AttentionKind::sliding : AttentionKind::full) << i;
  EXPECT_EQ(m.layers[0].window, 128u);
  EXPECT_EQ(request_bytes(m, 100), 36ull * 100 * 2048);
  EXPECT_EQ(request_bytes(m, 32768), (18ull * 32768 + 18ull * 128) * 2048);
  // OpenAI's model card: 116.83B parameters, of which the MoE experts are MXFP4 (4-bit values
  // and an e8m0 scale per 32: 0.53125 B) and the rest bf16.
  expect_near(static_cast<double>(m.num_params), 116.83e9, 0.02, "gpt-oss-120b");
  EXPECT_EQ(m.weights.quantization, "mxfp4");
  const double experts = static_cast<double>(m.weights.expert_bytes) / 0.53125;
  const double rest = static_cast<double>(m.num_params) - experts;
  EXPECT_NEAR(static_cast<double>(m.weight_bytes()), experts * 0.53125 + rest * 2, 1e6);
  // 36 layers · 128 experts · (gate_up 2880·5760 + 5760 + down 2880·2880 + 2880) parameters
  const double expert_params = 36.0 * 128 * (2880.0 * 5760 + 5760 + 2880.0 * 2880 + 2880);
  EXPECT_NEAR(experts, expert_params, 1e3);
  // The checkpoint is about 65 GB, not the 234 GB a bf16 reading gives.
  EXPECT_LT(m.weight_bytes(), 66e9);
  EXPECT_GT(m.weight_bytes(), 64e9);
}

// ---- nested multimodal configs -----------------------------------------------------------------

TEST(HfCatalogue, Gemma3_NestedTextConfig_FiveLocalToOneGlobal) {
  // Gemma3TextConfig: layer i global when (i + 1) % sliding_window_pattern == 0 (default 6);
  // the published text_config sets sliding_window 1024.
  const auto m = kvplan::load_model(hf("gemma-3-27b"));
  ASSERT_EQ(m.layers.size(), 62u);
  for (std::size_t i = 0; i < 62; ++i)
    EXPECT_EQ(m.layers[i].kind, (i + 1) % 6 == 0 ? AttentionKind::full : AttentionKind::sliding)
        << i;
  EXPECT_EQ(count(m, AttentionKind::full), 10u);
  // 16 KV heads · (128 + 128) · 2 B = 8,192 B per layer-token.
  EXPECT_EQ(request_bytes(m, 512), 62ull * 512 * 8192);
  EXPECT_EQ(request_bytes(m, 32768), (10ull * 32768 + 52ull * 1024) * 8192);
  // 27.4B with the SigLIP tower (model card / HF: 27.4B).
  expect_near(static_cast<double>(m.num_params), 27.4e9, 0.02, "gemma-3-27b");
  EXPECT_GT(m.weights.vision_bytes, 0u);
}

TEST(HfCatalogue, Gemma3_4B_FieldsFromTheConfigClassDefaults) {
  // The 4b text_config names no heads: Gemma3TextConfig's defaults (8 query, 4 KV heads,
  // head_dim 256). 34 layers: 5 global (5, 11, 17, 23, 29), 29 sliding at 1024.
  const auto m = kvplan::load_model(hf("gemma-3-4b"));
  EXPECT_EQ(m.num_q_heads, 8u);
  EXPECT_EQ(m.num_kv_heads, 4u);
  EXPECT_EQ(m.head_dim_k, 256u);
  EXPECT_EQ(count(m, AttentionKind::full), 5u);
  // 4 · (256 + 256) · 2 B = 4,096 B per layer-token.
  EXPECT_EQ(request_bytes(m, 32768), (5ull * 32768 + 29ull * 1024) * 4096);
  expect_near(static_cast<double>(m.num_params), 4.3e9, 0.02, "gemma-3-4b (HF: 4.3B)");
}

TEST(HfCatalogue, Llama4Scout_ChunkedLocalAttention) {
  // no_rope_layers is empty: Llama4TextConfig fills it with (i + 1) % 4 != 0, and vLLM's
  // Llama4Attention uses ChunkedLocalAttention (8192) on the RoPE layers, global attention on
  // the NoPE ones (3, 7, ..., 47).
  const auto m = kvplan::load_model(hf("llama-4-scout"));
  ASSERT_EQ(m.layers.size(), 48u);
  for (std::size_t i = 0; i < 48; ++i) {
    const bool global = (i + 1) % 4 == 0;
    EXPECT_EQ(m.layers[i].kind, global ? AttentionKind::full : AttentionKind::chunked) << i;
    if (!global) {
      EXPECT_EQ(m.layers[i].window, 8192u) << i;
    }
  }
  // 8 KV heads · 256 · 2 B = 4,096 B per layer-token; chunked layers hold at most 8192 tokens.
  EXPECT_EQ(request_bytes(m, 4096), 48ull * 4096 * 4096);
  EXPECT_EQ(request_bytes(m, 32768), (12ull * 32768 + 36ull * 8192) * 4096);
  // 109B total (model card), experts and vision tower included.
  expect_near(static_cast<double>(m.num_params), 109e9, 0.02, "Llama-4-Scout");
}

TEST(HfCatalogue, Qwen25VL_TextFieldsAtTopLevelVisionCounted) {
  const auto m = kvplan::load_model(hf("qwen2.5-vl-7b"));
  EXPECT_EQ(m.layers.size(), 28u);
  // 28 · 4 · 256 · 2 = 57,344 B per token.
  EXPECT_EQ(request_bytes(m, 8192), 57344ull * 8192);
  expect_near(static_cast<double>(m.num_params), 8.29e9, 0.02, "Qwen2.5-VL-7B (8.29B)");
}

// ---- MLA families ------------------------------------------------------------------------------

TEST(HfCatalogue, KimiK2_MlaByItsFields) {
  // model_type kimi_k2 is not a DeepSeek name; kv_lora_rank 512 + qk_rope_head_dim 64 make it MLA:
  // 61 layers · 576 · 2 B = 70,272 B per token (fp16), not 61 · 64 heads · 2 · 192 · 2.
  const auto m = kvplan::load_model(hf("kimi-k2"));
  EXPECT_TRUE(m.is_mla());
  EXPECT_EQ(count(m, AttentionKind::mla), 61u);
  EXPECT_EQ(request_bytes(m, 1024), 70272ull * 1024);
  EXPECT_EQ(request_bytes(m, 131072, 8), 70272ull * 131072);  // the latent is not sharded
  expect_near(static_cast<double>(m.num_params), 1.03e12, 0.02, "Kimi-K2 (HF: 1.03T)");
  EXPECT_EQ(m.weights.quantization, "fp8");
}

TEST(HfCatalogue, DeepSeekR1_MtpCountedOnlyWhenRequested) {
  const auto m = kvplan::load_model(hf("deepseek-r1"));
  EXPECT_EQ(m.mtp_layers, 1u);
  EXPECT_EQ(request_bytes(m, 4096), 61ull * 576 * 2 * 4096);
  EXPECT_EQ(request_bytes(m, 4096, 1, m.mtp_layers), 62ull * 576 * 2 * 4096);
  expect_near(static_cast<double>(m.num_params), 671e9, 0.02, "DeepSeek-R1 (671B)");
}

TEST(HfCatalogue, DeepSeekV32_IndexerKeys) {
  // Every layer also caches one indexer key: index_head_dim 128 fp8 values + one fp32 scale per
  // 128 = 132 B per token (vLLM DeepseekV32IndexerCache, MLAAttentionSpec of head 132 uint8).
  const auto m = kvplan::load_model(hf("deepseek-v3.2"));
  EXPECT_EQ(m.index_head_dim, 128u);
  const auto c = kvplan::kv_cost(m, KvCostInput{.context = 2048});
  EXPECT_EQ(c.bytes_per_token, 61ull * 576 * 2 + 61ull * 132);
  EXPECT_EQ(c.bytes_per_request, (61ull * 576 * 2 + 61ull * 132) * 2048);
  const auto paged = kvplan::kv_cost(m, KvCostInput{.context = 100, .block_size = 64});
  EXPECT_EQ(paged.bytes_per_request, (61ull * 576 * 2 + 61ull * 132) * 128);  // 2 blocks of 64
}

TEST(HfCatalogue, Glm5_MlaLatentAndIndexerKeys) {
  // zai-org/GLM-5 (glm_moe_dsa): DeepSeek-V3.2-style MLA with the DSA indexer. 78 layers, each
  // caching one latent of kv_lora_rank 512 + qk_rope_head_dim 64 = 576 values (bf16, 2 B) and one
  // indexer key of index_head_dim 128 fp8 values + one fp32 scale per 128 = 132 B:
  // 78 · 576 · 2 + 78 · 132 = 89,856 + 10,296 = 100,152 B per token. The latent is not sharded
  // by TP (vLLM replicates it on every rank).
  const auto m = kvplan::load_model(hf("glm-5"));
  EXPECT_TRUE(m.is_mla());
  ASSERT_EQ(m.layers.size(), 78u);
  EXPECT_EQ(m.kv_lora_rank, 512u);
  EXPECT_EQ(m.qk_rope_head_dim, 64u);
  EXPECT_EQ(m.index_head_dim, 128u);
  EXPECT_EQ(m.mtp_layers, 1u);  // num_nextn_predict_layers
  const auto c = kvplan::kv_cost(m, KvCostInput{.context = 4096});
  EXPECT_EQ(c.bytes_per_token, 78ull * 576 * 2 + 78ull * 132);
  EXPECT_EQ(c.bytes_per_request, 100152ull * 4096);
  EXPECT_EQ(request_bytes(m, 4096, 8), 100152ull * 4096);
  expect_near(static_cast<double>(m.num_params), 744e9, 0.02, "GLM-5 (744B)");
}

TEST(HfCatalogue, MiniMaxM27_FullAttentionEveryLayer) {
  // MiniMaxAI/MiniMax-M2.7 (minimax_m2): attn_type_list is 62 ones, so every layer is softmax
  // attention (no lightning state): 62 layers · 8 KV heads · (128 + 128) · 2 B = 253,952 B per
  // token; TP 8 leaves one KV head per rank: 31,744 B.
  const auto m = kvplan::load_model(hf("minimax-m2.7"));
  ASSERT_EQ(m.layers.size(), 62u);
  EXPECT_EQ(count(m, AttentionKind::full), 62u);
  EXPECT_EQ(m.recurrent_layers(), 0u);
  EXPECT_EQ(request_bytes(m, 1000), 62ull * 8 * 256 * 2 * 1000);
  EXPECT_EQ(request_bytes(m, 204800), 253952ull * 204800);
  EXPECT_EQ(request_bytes(m, 1000, 8), 62ull * 1 * 256 * 2 * 1000);
  EXPECT_EQ(m.weight_dtype, "fp8");  // quantization_config: fp8, weight_block_size [128, 128]
  expect_near(static_cast<double>(m.num_params), 230e9, 0.02, "MiniMax-M2.7 (230B)");
}

// ---- recurrent hybrids -------------------------------------------------------------------------

TEST(HfCatalogue, Qwen3Next_GatedDeltaNetState) {
  // full_attention_interval 4: layers 3, 7, ..., 47 full attention, 36 Gated DeltaNet layers.
  const auto m = kvplan::load_model(hf("qwen3-next-80b-a3b"));
  ASSERT_EQ(m.layers.size(), 48u);
  for (std::size_t i = 0; i < 48; ++i) {
    EXPECT_EQ(m.layers[i].kind, (i + 1) % 4 == 0 ? AttentionKind::full : AttentionKind::none) << i;
    EXPECT_EQ(m.layers[i].recurrent, (i + 1) % 4 != 0) << i;
  }
  EXPECT_EQ(m.recurrent.kind, MixerKind::gated_delta_net);
  // vLLM mamba_utils.py gated_delta_net_state_shape, bf16 (the model dtype, no override):
  //   conv (4 − 1) · (2·16·128 + 32·128) = 3 · 8192 = 24,576 values · 2 B = 49,152 B
  //   ssm  32 · 128 · 128 = 524,288 values · 2 B = 1,048,576 B        → 1,097,728 B per layer
  const auto s = kvplan::recurrent_state(m.recurrent);
  EXPECT_EQ(s.conv_bytes, 49152u);
  EXPECT_EQ(s.ssm_bytes, 1048576u);
  // Attention: 12 layers · 2 KV heads · (256 + 256) · 2 B = 24,576 B per token.
  const std::uint64_t state = 36ull * 1097728;
  EXPECT_EQ(request_bytes(m, 4096), 24576ull * 4096 + state);
  EXPECT_EQ(request_bytes(m, 262144), 24576ull * 262144 + state);
  // TP 2 halves the heads of both: conv 3 · 4096 · 2 B, ssm 16 · 128 · 128 · 2 B; KV 1 head.
  EXPECT_EQ(request_bytes(m, 4096, 2), 12288ull * 4096 + 36ull * (24576 + 524288));
  const auto c = kvplan::kv_cost(m, KvCostInput{.context = 4096});
  EXPECT_EQ(c.bytes_per_token, 24576u);
  EXPECT_EQ(c.state_bytes_per_request, state);
  expect_near(static_cast<double>(m.num_params), 80e9, 0.02, "Qwen3-Next-80B-A3B (80B)");
}

TEST(HfCatalogue, Qwen35_GdnStateInFp32FromItsTextConfig) {
  // Qwen3.5 nests the language model; its text config sets mamba_ssm_dtype float32, which vLLM's
  // Qwen3_5ForConditionalGenerationConfig applies to the ssm state. 60 layers, 15 full.
  const auto m = kvplan::load_model(hf("qwen3.5-397b-a17b"));
  EXPECT_EQ(count(m, AttentionKind::full), 15u);
  EXPECT_EQ(m.recurrent_layers(), 45u);
  EXPECT_EQ(m.recurrent.ssm_dtype, kvplan::KvDtype::fp32);
  //   conv 3 · (2·16·128 + 64·128) = 36,864 values · 2 B = 73,728 B
  //   ssm  64 · 128 · 128 = 1,048,576 values · 4 B = 4,194,304 B
  const std::uint64_t state = 45ull * (73728 + 4194304);
  // 15 layers · 2 KV heads · 512 · 2 B = 30,720 B per token.
  EXPECT_EQ(request_bytes(m, 8192), 30720ull * 8192 + state);
  EXPECT_EQ(m.mtp_layers, 1u);  // mtp_num_hidden_layers
  expect_near(static_cast<double>(m.num_params), 397e9, 0.02, "Qwen3.5-397B-A17B");
}

TEST(HfCatalogue, Qwen35_35B_A3B_GdnStateAndGqaLayers) {
  // Qwen/Qwen3.5-35B-A3B: 40 layers, layer_types full_attention every 4th (10 full, 30 Gated
  // DeltaNet), mamba_ssm_dtype float32 in its text config.
  const auto m = kvplan::load_model(hf("qwen3.5-35b-a3b"));
  ASSERT_EQ(m.layers.size(), 40u);
  for (std::size_t i = 0; i < 40; ++i)
    EXPECT_EQ(m.layers[i].kind, (i + 1) % 4 == 0 ? AttentionKind::full : AttentionKind::none) << i;
  EXPECT_EQ(m.recurrent_layers(), 30u);
  EXPECT_EQ(m.recurrent.ssm_dtype, kvplan::KvDtype::fp32);
  //   conv (4 − 1) · (2·16·128 + 32·128) = 24,576 values · 2 B = 49,152 B
  //   ssm  32 · 128 · 128 = 524,288 values · 4 B = 2,097,152 B
  const auto s = kvplan::recurrent_state(m.recurrent);
  EXPECT_EQ(s.conv_bytes, 49152u);
  EXPECT_EQ(s.ssm_bytes, 2097152u);
  const std::uint64_t state = 30ull * (49152 + 2097152);
  // 10 layers · 2 KV heads · (256 + 256) · 2 B = 20,480 B per token.
  EXPECT_EQ(request_bytes(m, 8192), 20480ull * 8192 + state);
  EXPECT_EQ(m.mtp_layers, 1u);  // mtp_num_hidden_layers
  expect_near(static_cast<double>(m.num_params), 35e9, 0.02, "Qwen3.5-35B-A3B (35B)");
}

TEST(HfCatalogue, MiniMaxM1_LightningState) {
  // attn_type_list: 1 = softmax attention (every 8th layer), 0 = lightning attention, whose
  // state is heads · head_dim · head_dim in the model dtype (vLLM linear_attention_state_shape,
  // linear_attention_state_dtype: bf16 unless --mamba-cache-dtype says otherwise).
  const auto m = kvplan::load_model(hf("minimax-m1"));
  ASSERT_EQ(m.layers.size(), 80u);
  EXPECT_EQ(count(m, AttentionKind::full), 10u);
  EXPECT_EQ(m.recurrent.kind, MixerKind::lightning);
  const std::uint64_t per_layer = 64ull * 128 * 128 * 2;  // 2,097,152 B
  EXPECT_EQ(kvplan::recurrent_state(m.recurrent).bytes(), per_layer);
  // 10 layers · 8 KV heads · 256 · 2 B = 40,960 B per token.
  EXPECT_EQ(request_bytes(m, 1024), 40960ull * 1024 + 70 * per_layer);
  EXPECT_EQ(request_bytes(m, 1000000), 40960ull * 1000000 + 70 * per_layer);
  expect_near(static_cast<double>(m.num_params), 456e9, 0.02, "MiniMax-M1 (456B)");
}

TEST(HfCatalogue, NemotronH_Mamba2StateInFp32AndTheInfinityLiteral) {
  // The published config holds "time_step_limit": [0.0, Infinity] (Python's json reads it).
  // hybrid_override_pattern: 118 characters, 54 'M' (Mamba-2), 10 '*' (attention at 7, 18, ...,
  // 106), 54 '-' (MLP, no cache) — vLLM nemotron_h.py builds one layer per character.
  const auto m = kvplan::load_model(hf("nemotron-h-56b-base-8k"));
  ASSERT_EQ(m.layers.size(), 118u);
  EXPECT_EQ(count(m, AttentionKind::full), 10u);
  EXPECT_EQ(m.recurrent_layers(), 54u);
  EXPECT_EQ(m.layers[7].kind, AttentionKind::full);
  EXPECT_EQ(m.recurrent.kind, MixerKind::mamba2);
  // vLLM mamba2_state_shape: conv (4 − 1) · (256·64 + 2·8·256) = 3 · 20,480 values, bf16;
  // ssm 256 heads · 64 · 256 values in fp32 (NemotronHForCausalLMConfig: float32 by default).
  const auto s = kvplan::recurrent_state(m.recurrent);
  EXPECT_EQ(s.conv_bytes, 3ull * 20480 * 2);
  EXPECT_EQ(s.ssm_bytes, 256ull * 64 * 256 * 4);
  // TP 4: 8 groups divide, heads 64 per rank.
  const auto s4 = kvplan::recurrent_state(m.recurrent, 4);
  EXPECT_EQ(s4.conv_bytes, 3ull * 20480 / 4 * 2);
  EXPECT_EQ(s4.ssm_bytes, 64ull * 64 * 256 * 4);
  // Attention: 10 layers · 8 KV heads · (128 + 128) · 2 B = 40,960 B per token.
  const std::uint64_t state = 54ull * (122880 + 16777216);
  EXPECT_EQ(request_bytes(m, 8192), 40960ull * 8192 + state);
  EXPECT_EQ(request_bytes(m, 1), 40960ull + state);
  expect_near(static_cast<double>(m.num_params), 56e9, 0.02, "Nemotron-H-56B");
}

TEST(HfCatalogue, Mamba2GroupsReplicateWhenTpDoesNotDivideThem) {
  // extra_groups_for_head_shards: n_groups 1 at TP 4 becomes 4 groups, one per rank.
  kvplan::RecurrentSpec r{.kind = MixerKind::mamba2,
                          .d_inner = 4096,
                          .d_state = 128,
                          .d_conv = 4,
                          .n_groups = 1,
                          .heads = 64,
                          .head_dim = 64};
  const auto s = kvplan::recurrent_state(r, 4);
  EXPECT_EQ(s.conv_elements, 3ull * (4096 + 2 * 4 * 128) / 4);
  EXPECT_EQ(s.ssm_elements, 16ull * 64 * 128);
  EXPECT_THROW(kvplan::recurrent_state(r, 3), kvplan::Error);  // 64 heads over 3 ranks
}

// ---- presets that were hand-written before they wrapped their published configs -------------

TEST(HfCatalogue, Mixtral8x7B_PresetCarriesItsRouting) {
  // mixtral-8x7b.json: num_local_experts 8, num_experts_per_tok 2, 32 layers, 8 KV heads of 128.
  const auto m = kvplan::load_model("mixtral-8x7b");
  EXPECT_EQ(m.routed_experts, 8u);
  EXPECT_EQ(m.experts_per_token, 2u);
  EXPECT_EQ(m.hf_repos.front(), "mistralai/Mixtral-8x7B-v0.1");
  // 32 layers · 8 KV heads · (128 + 128) · 2 B = 131,072 B per token, as the hand-written
  // preset gave (num_layers 32, num_kv_heads 8, head_dim 128).
  EXPECT_EQ(request_bytes(m, 4096), 131072ull * 4096);
  EXPECT_EQ(request_bytes(m, 32768), 131072ull * 32768);
  // Per layer: q, o 4096·4096 and k, v 4096·1024 = 41,943,040; experts 8 · 3 · 4096 · 14336 =
  // 1,409,286,144; router 4096 · 8 = 32,768; two norms 8,192 → 1,451,270,144. Times 32 =
  // 46,440,644,608, plus embed_tokens and lm_head 2 · 32000 · 4096 = 262,144,000 and the final
  // norm 4,096: 46,702,792,704, the hand-written preset's num_params.
  EXPECT_EQ(m.num_params, 46702792704u);
  EXPECT_EQ(m.weights.expert_bytes, 32ull * 1409286144 * 2);
}

TEST(HfCatalogue, DeepSeekV3_PresetCarriesItsRouting) {
  // deepseek-v3.json: n_routed_experts 256, num_experts_per_tok 8, first_k_dense_replace 3,
  // moe_intermediate_size 2048, hidden 7168, FP8 weights in [128, 128] blocks.
  const auto m = kvplan::load_model("deepseek-v3");
  EXPECT_EQ(m.routed_experts, 256u);
  EXPECT_EQ(m.experts_per_token, 8u);
  EXPECT_EQ(m.mtp_layers, 1u);
  EXPECT_EQ(m.weights.quantization, "fp8");
  // 61 MLA layers · (512 + 64) · 2 B = 70,272 B per token; the MTP layer only on request.
  EXPECT_EQ(request_bytes(m, 32768), 70272ull * 32768);
  EXPECT_EQ(request_bytes(m, 32768, 1, 1), 62ull * 576 * 2 * 32768);
  // 58 MoE layers · 256 experts · 3 · 7168 · 2048 fp8 weights, one fp32 scale per 128 · 128.
  const double experts = 58.0 * 256 * 3 * 7168 * 2048 * (1 + 4.0 / 16384);
  EXPECT_NEAR(static_cast<double>(m.weights.expert_bytes), experts, 1.0);
  expect_near(static_cast<double>(m.num_params), 671e9, 0.02, "DeepSeek-V3 (671B)");
}

TEST(HfCatalogue, DeepSeekV2Lite_PresetCarriesItsRouting) {
  // deepseek-v2-lite.json: n_routed_experts 64, num_experts_per_tok 6, first_k_dense_replace 1,
  // moe_intermediate_size 1408, hidden 2048, bf16.
  const auto m = kvplan::load_model("deepseek-v2-lite");
  EXPECT_EQ(m.routed_experts, 64u);
  EXPECT_EQ(m.experts_per_token, 6u);
  // 27 MLA layers · (512 + 64) · 2 B = 31,104 B per token.
  EXPECT_EQ(request_bytes(m, 1000), 31104ull * 1000);
  EXPECT_EQ(request_bytes(m, 32768), 31104ull * 32768);
  // 26 MoE layers · 64 experts · 3 · 2048 · 1408 parameters · 2 B.
  EXPECT_EQ(m.weights.expert_bytes, 26ull * 64 * 3 * 2048 * 1408 * 2);
  expect_near(static_cast<double>(m.num_params), 15.7e9, 0.02, "DeepSeek-V2-Lite (15.7B)");
}

// ---- quantized checkpoints ---------------------------------------------------------------------

TEST(HfCatalogue, Qwen3_235B_Fp8BlockScales) {
  const auto bf16 = kvplan::load_model(hf("qwen3-235b-a22b"));
  const auto fp8 = kvplan::load_model(hf("qwen3-235b-a22b-fp8"));
  expect_near(static_cast<double>(bf16.num_params), 235e9, 0.02, "Qwen3-235B-A22B (235B)");
  // All experts: 94 layers · 128 experts · 3 · 4096 · 1536 = 227.15B parameters (bf16: ~454 GB,
  // not the 44 GB of a dense reading).
  EXPECT_EQ(bf16.weights.expert_bytes, 94ull * 128 * 3 * 4096 * 1536 * 2);
  // FP8 with [128, 128] blocks: 1 B + 4 B per 128·128 for the linear layers; embeddings, lm_head,
  // router and norms (modules_to_not_convert) stay bf16.
  EXPECT_EQ(fp8.weights.quantization, "fp8");
  const double want = 94.0 * 128 * 3 * 4096 * 1536 * (1 + 4.0 / 16384);
  EXPECT_NEAR(static_cast<double>(fp8.weights.expert_bytes), want, 1.0);
  expect_near(static_cast<double>(fp8.weight_bytes()), 236.5e9, 0.02, "FP8 checkpoint");
}

TEST(HfCatalogue, Nvfp4FromHfQuantConfig) {
  // ModelOpt checkpoints keep the scheme in hf_quant_config.json beside config.json: NVFP4,
  // group 16: 0.5 B + one fp8 scale per 16 = 0.5625 B per weight; lm_head and the routers
  // (exclude_modules) bf16.
  const auto dir =
      std::filesystem::temp_directory_path() /
      ("kvplan_nvfp4_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(hf("qwen3-235b-a22b-nvfp4"), dir / "config.json");
  std::filesystem::copy_file(
      std::string(KVPLAN_TEST_DATA_DIR) + "/hf/hf_quant_config/qwen3-235b-a22b-nvfp4.json",
      dir / "hf_quant_config.json");
  const auto m = kvplan::load_model(dir.string());
  std::filesystem::remove_all(dir);
  EXPECT_EQ(m.id, dir.string());
  EXPECT_EQ(m.weights.quantization, "modelopt");
  EXPECT_NEAR(static_cast<double>(m.weights.expert_bytes), 94.0 * 128 * 3 * 4096 * 1536 * 0.5625,
              1.0);
  EXPECT_LT(m.weight_bytes(), 140e9);  // not the 470 GB of bf16
}

TEST(HfCatalogue, GptqPerChannelAndGrouped_AgainstTheCheckpointFiles) {
  // TheBloke/Wizard-Vicuna-30B-Uncensored-GPTQ (LLaMA-30B shapes: hidden 6656, intermediate
  // 17920, 60 layers, 52 heads, vocab 32000, fp16). main: bits 4, group_size -1 (one scale and
  // zero per output column); branch gptq-4bit-128g-actorder_True: group_size 128.
  const auto main = kvplan::load_model(hf("wizard-vicuna-30b-gptq"));
  const auto g128 = kvplan::load_model(hf("wizard-vicuna-30b-gptq-4bit-128g"));
  EXPECT_EQ(main.weights.quantization, "gptq");
  // KV: 60 layers · 52 heads · (128 + 128) · 2 B = 1,597,440 B per token.
  EXPECT_EQ(request_bytes(main, 2048), 1597440ull * 2048);
  EXPECT_EQ(request_bytes(g128, 512), 1597440ull * 512);
  // Quantized linears: 60 · (4 · 6656² + 3 · 6656 · 17920) = 32,102,154,240 weights. Kept fp16:
  // embed_tokens and lm_head 2 · 32000 · 6656, norms 60 · 2 · 6656 + 6656 → 426,789,376 · 2 B
  // = 853,578,752 B. 32,528,943,616 parameters in all (the LLaMA paper's "32.5B").
  expect_near(static_cast<double>(main.num_params), 32528943616.0, 0.02, "LLaMA-30B shapes");
  const double linear = 32102154240.0, kept = 853578752.0;
  // main: 0.5 B a weight (the per-column scale and zero are 172,800 · 2.5 B in all):
  // 16,904,655,872 B. The checkpoint's model.safetensors is 16,940,128,464 B (its git-lfs
  // pointer); the 35 MB more are the int32 g_idx rows, the zero fp16 biases GPTQ-for-LLaMa
  // writes, and the header.
  EXPECT_NEAR(static_cast<double>(main.weight_bytes()), linear * 0.5 + kept, 1e6);
  expect_near(static_cast<double>(main.weight_bytes()), 16940128464.0, 0.005, "main checkpoint");
  // 128g: 0.5 B + (2 B scale + 0.5 B packed zero) per 128 inputs → 0.51953125 B a weight:
  // 17,531,651,072 B against the branch's model.safetensors of 17,554,104,664 B (g_idx
  // 13,885,440 B, biases 8,294,400 B, header).
  EXPECT_NEAR(static_cast<double>(g128.weight_bytes()), linear * 0.51953125 + kept, 1e6);
  expect_near(static_cast<double>(g128.weight_bytes()), 17554104664.0, 0.005, "128g checkpoint");
}

// ---- bad fields --------------------------------------------------------------------------------

class HfCatalogueBad : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("kvplan_cat_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string message(const std::string& json) {
    const auto p = (dir_ / "config.json").string();
    std::ofstream(p) << json;
    try {
      kvplan::load_model(p);
    } catch (const kvplan::Error& e) {
      return e.what();
    }
    ADD_FAILURE() << "no error for " << json;
    return "";
  }
  std::filesystem::path dir_;
};

TEST_F(HfCatalogueBad, UnknownQuantizationMethodIsNamed) {
  const auto msg = message(R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64,
    "num_attention_heads": 4, "quantization_config": {"quant_method": "hqq"}})");
  EXPECT_NE(msg.find("/quantization_config/quant_method"), std::string::npos) << msg;
  EXPECT_NE(msg.find("unknown quantization method \"hqq\""), std::string::npos) << msg;
}

TEST_F(HfCatalogueBad, GptqGroupSizeOtherThanMinusOneOrPositiveIsNamed) {
  // Was read as 128 without a word (group_size 0, -2, "128").
  for (const char* gs : {"0", "-2", "\"128\"", "64.5"}) {
    const auto msg = message(std::string(R"({"model_type": "llama", "num_hidden_layers": 2,
      "hidden_size": 64, "num_attention_heads": 4,
      "quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": )") +
                             gs + "}}");
    EXPECT_NE(msg.find("/quantization_config/group_size"), std::string::npos) << gs << ": " << msg;
  }
}

TEST_F(HfCatalogueBad, LinearLayerWithoutAKnownMixer) {
  const auto msg = message(R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64,
    "num_attention_heads": 4, "layer_types": ["full_attention", "linear_attention"]})");
  EXPECT_NE(msg.find("/layer_types/1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("needs a recurrent mixer"), std::string::npos) << msg;
}

TEST_F(HfCatalogueBad, NemotronPatternOfTheWrongLength) {
  const auto msg =
      message(R"({"model_type": "nemotron_h", "num_hidden_layers": 3, "hidden_size": 64,
    "num_attention_heads": 4, "hybrid_override_pattern": "M*", "mamba_num_heads": 2,
    "mamba_head_dim": 32, "n_groups": 1, "ssm_state_size": 16, "conv_kernel": 4})");
  EXPECT_NE(msg.find("/hybrid_override_pattern"), std::string::npos) << msg;
}

// Families without a verbatim published config here: the import rules on hand-written configs
// with the family's field names (their config classes' defaults where a field is left out).
TEST_F(HfCatalogueBad, JambaPeriodsAndMambaState) {
  const auto p = (dir_ / "config.json").string();
  std::ofstream(p) << R"({"model_type": "jamba", "num_hidden_layers": 16, "hidden_size": 1024,
    "num_attention_heads": 8, "num_key_value_heads": 2, "intermediate_size": 2048,
    "vocab_size": 1000, "num_experts": 4, "mamba_d_state": 16, "mamba_d_conv": 4,
    "mamba_expand": 2, "torch_dtype": "bfloat16"})";
  const auto m = kvplan::load_model(p);
  // JambaConfig defaults: attn_layer_period 8, offset 4 → layers 4 and 12 attend.
  for (std::size_t i = 0; i < 16; ++i) {
    EXPECT_EQ(m.layers[i].kind, i % 8 == 4 ? AttentionKind::full : AttentionKind::none) << i;
    EXPECT_EQ(m.layers[i].recurrent, i % 8 != 4) << i;
  }
  // mamba1_state_shape: conv 3 · 2048, ssm 2048 · 16, bf16
  const std::uint64_t state = (3ull * 2048 + 2048ull * 16) * 2;
  // attention: 2 layers · 2 heads · (128 + 128) · 2 B = 2,048 B per token
  EXPECT_EQ(request_bytes(m, 100), 2048ull * 100 + 14 * state);
}

TEST_F(HfCatalogueBad, FalconH1AttentionAndMambaInEveryLayer) {
  const auto p = (dir_ / "config.json").string();
  std::ofstream(p) << R"({"model_type": "falcon_h1", "num_hidden_layers": 4, "hidden_size": 512,
    "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 64, "intermediate_size": 1024,
    "vocab_size": 1000, "mamba_n_heads": 16, "mamba_d_head": 64, "mamba_n_groups": 1,
    "mamba_d_state": 128, "mamba_d_conv": 4, "mamba_d_ssm": 1024, "torch_dtype": "bfloat16"})";
  const auto m = kvplan::load_model(p);
  for (const auto& l : m.layers) {
    EXPECT_EQ(l.kind, AttentionKind::full);
    EXPECT_TRUE(l.recurrent);
  }
  // conv 3 · (1024 + 2·1·128) = 3,840 values, ssm 16 · 64 · 128 = 131,072 values, bf16
  const std::uint64_t state = (3840ull + 131072) * 2;
  // attention: 2 heads · 128 · 2 B = 512 B per layer-token
  EXPECT_EQ(request_bytes(m, 1000), 4ull * (512 * 1000 + state));
}

TEST_F(HfCatalogueBad, HubCacheSnapshotByRepoId) {
  // huggingface_hub's layout: models--org--name/snapshots/<rev>/, refs/main names the revision.
  const auto root = dir_ / "hub" / "models--acme--tiny-llama";
  std::filesystem::create_directories(root / "snapshots" / "abc123");
  std::filesystem::create_directories(root / "refs");
  std::ofstream(root / "refs" / "main") << "abc123";
  std::filesystem::copy_file(hf("llama-3.1-8b"), root / "snapshots" / "abc123" / "config.json");
  // A one-tensor checkpoint: 8-byte header length, the JSON header, then 16 data bytes.
  const std::string header =
      R"({"lm_head.weight":{"dtype":"BF16","shape":[2,4],"data_offsets":[0,16]}})";
  {
    std::ofstream st(root / "snapshots" / "abc123" / "model.safetensors", std::ios::binary);
    std::uint64_t n = header.size();
    for (int i = 0; i < 8; ++i) st.put(static_cast<char>((n >> (8 * i)) & 0xff));
    st << header << std::string(16, '\0');
  }
  ::setenv("HF_HUB_CACHE", (dir_ / "hub").c_str(), 1);
  const auto m = kvplan::load_model("acme/tiny-llama");
  ::unsetenv("HF_HUB_CACHE");
  EXPECT_EQ(m.id, "acme/tiny-llama");
  EXPECT_EQ(m.layers.size(), 32u);
  EXPECT_TRUE(m.weights.from_checkpoint);
  EXPECT_EQ(m.weight_bytes(), 16u);  // read from the header, not estimated
}

TEST_F(HfCatalogueBad, CheckpointHeaderOutsideTheFileIsRefused) {
  std::filesystem::copy_file(hf("llama-3.1-8b"), dir_ / "config.json");
  const std::string header = R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,4096]}})";
  {
    std::ofstream st(dir_ / "model.safetensors", std::ios::binary);
    std::uint64_t n = header.size();
    for (int i = 0; i < 8; ++i) st.put(static_cast<char>((n >> (8 * i)) & 0xff));
    st << header << std::string(16, '\0');
  }
  try {
    kvplan::load_model(dir_.string());
    ADD_FAILURE() << "no error";
  } catch (const kvplan::Error& e) {
    EXPECT_NE(std::string(e.what()).find("/w/data_offsets"), std::string::npos) << e.what();
  }
}

// kvplan's own schema names the same kinds: chunked layers with their chunk, recurrent layers
// with the mixer they hold.
TEST_F(HfCatalogueBad, KvplanSchemaChunkedAndRecurrentLayers) {
  const auto p = (dir_ / "hybrid.json").string();
  std::ofstream(p) << R"({"kvplan_model": 1, "id": "hybrid", "source": "test", "num_layers": 4,
    "num_attention_heads": 8, "num_kv_heads": 2, "head_dim": 64, "max_context": 65536,
    "num_params": 1000000, "weight_dtype": "bf16",
    "attention": {"type": "layers", "chunk": 1024,
                  "layers": ["chunked", "recurrent", "full+recurrent", "none"]},
    "recurrent": {"kind": "gated_delta_net", "heads": 4, "head_dim": 32, "key_heads": 2,
                  "key_head_dim": 32, "d_conv": 4, "conv_dtype": "bf16", "ssm_dtype": "fp32"}})";
  const auto m = kvplan::load_model(p);
  EXPECT_EQ(m.layers[0], (kvplan::LayerSpec{AttentionKind::chunked, 1024, false}));
  EXPECT_EQ(m.layers[1], (kvplan::LayerSpec{AttentionKind::none, 0, true}));
  EXPECT_EQ(m.layers[2], (kvplan::LayerSpec{AttentionKind::full, 0, true}));
  // state: conv 3 · (2·2·32 + 4·32) = 768 values · 2 B, ssm 4 · 32 · 32 = 4,096 values · 4 B
  const std::uint64_t state = 768ull * 2 + 4096ull * 4;
  // attention: 2 heads · 128 · 2 B = 512 B per layer-token; the chunked layer holds ≤ 1024
  EXPECT_EQ(request_bytes(m, 4096), 512ull * (1024 + 4096) + 2 * state);
  const auto bad = (dir_ / "bad.json").string();
  std::ofstream(bad) << R"({"kvplan_model": 1, "id": "b", "source": "t", "num_layers": 1,
    "num_attention_heads": 8, "num_kv_heads": 2, "head_dim": 64, "max_context": 1,
    "num_params": 1, "weight_dtype": "bf16", "attention": {"type": "layers", "layers": ["recurrent"]}})";
  try {
    kvplan::load_model(bad);
    ADD_FAILURE() << "no error";
  } catch (const kvplan::Error& e) {
    EXPECT_NE(std::string(e.what()).find("/recurrent"), std::string::npos) << e.what();
  }
}

// Kimi Delta Attention as a model file states it ("kda": true): SGLang's KimiLinearStateShape.
// create (python/sglang/srt/configs/mamba_utils.py@382343f860c7df8dc43ecefd7902c940d81c99a9) takes
// the temporal state as (heads/tp, head_dim, head_dim) whatever the key head dim, and the conv
// state as proj/tp + 2 · proj_k/tp channels over k − 1 taps. 4 heads of 32, 2 key heads of 16,
// k 4: conv 3 · (4·32 + 2·2·16) = 576 values · 2 B; temporal 4 · 32 · 32 = 4,096 values · 4 B (a
// gated delta net would hold 4 · 16 · 32 = 2,048).
TEST_F(HfCatalogueBad, KvplanSchemaKimiDeltaAttention) {
  const auto p = (dir_ / "kda.json").string();
  std::ofstream(p) << R"({"kvplan_model": 1, "id": "kda", "source": "test", "num_layers": 2,
    "num_attention_heads": 8, "num_kv_heads": 2, "head_dim": 64, "max_context": 65536,
    "num_params": 1000000, "weight_dtype": "bf16",
    "attention": {"type": "layers", "layers": ["recurrent", "full"]},
    "recurrent": {"kind": "gated_delta_net", "kda": true, "heads": 4, "head_dim": 32,
                  "key_heads": 2, "key_head_dim": 16, "d_conv": 4, "conv_dtype": "bf16",
                  "ssm_dtype": "fp32"}})";
  const auto m = kvplan::load_model(p);
  EXPECT_TRUE(m.recurrent.kda);
  const auto s = kvplan::recurrent_state(m.recurrent);
  EXPECT_EQ(s.conv_bytes, 576u * 2);
  EXPECT_EQ(s.ssm_bytes, 4096u * 4);
  kvplan::RecurrentSpec gdn = m.recurrent;
  gdn.kda = false;
  EXPECT_EQ(kvplan::recurrent_state(gdn).ssm_bytes, 2048u * 4);
}

// Found by scripts/adversarial.py: a header whose shape and dtype disagree with its offsets, an
// unknown dtype, and a bad index total were read as weight bytes.
TEST_F(HfCatalogueBad, CheckpointShapeDtypeAndIndexTotalAreChecked) {
  std::filesystem::copy_file(hf("llama-3.1-8b"), dir_ / "config.json");
  auto write_st = [&](const std::string& header) {
    std::ofstream st(dir_ / "model.safetensors", std::ios::binary | std::ios::trunc);
    std::uint64_t n = header.size();
    for (int i = 0; i < 8; ++i) st.put(static_cast<char>((n >> (8 * i)) & 0xff));
    st << header << std::string(16, '\0');
  };
  auto what = [&]() -> std::string {
    try {
      kvplan::load_model(dir_.string());
    } catch (const kvplan::Error& e) {
      return e.what();
    }
    return "";
  };
  write_st(R"({"w":{"dtype":"F32","shape":[1099511627776,1099511627776],"data_offsets":[0,16]}})");
  EXPECT_NE(what().find("/w/shape"), std::string::npos) << what();
  write_st(R"({"w":{"dtype":"Q9","shape":[4],"data_offsets":[0,16]}})");
  EXPECT_NE(what().find("unknown safetensors dtype \"Q9\""), std::string::npos) << what();
  write_st(R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})");  // 4 · 4 B = 16: fine
  EXPECT_EQ(kvplan::load_model(dir_.string()).weight_bytes(), 16u);
  std::filesystem::remove(dir_ / "model.safetensors");
  std::ofstream(dir_ / "model.safetensors.index.json")
      << R"({"metadata": {"total_size": -5}, "weight_map": {"w": "model-00001.safetensors"}})";
  EXPECT_NE(what().find("/metadata/total_size"), std::string::npos) << what();
}

// Found by scripts/adversarial.py: an unknown ModelOpt KV scheme passed silently.
TEST_F(HfCatalogueBad, UnknownModelOptKvSchemeIsNamed) {
  std::filesystem::copy_file(hf("qwen3-30b-a3b"), dir_ / "config.json");
  std::ofstream(dir_ / "hf_quant_config.json")
      << R"({"quantization": {"quant_algo": "NVFP4", "kv_cache_quant_algo": "INT3", "group_size": 16}})";
  try {
    kvplan::load_model(dir_.string());
    ADD_FAILURE() << "no error";
  } catch (const kvplan::Error& e) {
    EXPECT_NE(std::string(e.what()).find("/quantization/kv_cache_quant_algo"), std::string::npos)
        << e.what();
  }
}

TEST_F(HfCatalogueBad, GlmFlashIsMlaNotAHiddenSizeError) {
  // GLM-4.7-Flash-like fields: hidden 2048 with 20 heads does not divide, but the model is MLA.
  const auto p = (dir_ / "config.json").string();
  std::ofstream(p) << R"({"model_type": "glm4_moe_lite", "num_hidden_layers": 47,
    "hidden_size": 2048, "num_attention_heads": 20, "num_key_value_heads": 20,
    "kv_lora_rank": 512, "qk_rope_head_dim": 64, "qk_nope_head_dim": 192, "v_head_dim": 256,
    "q_lora_rank": 768, "intermediate_size": 10240, "vocab_size": 154880})";
  const auto m = kvplan::load_model(p);
  EXPECT_TRUE(m.is_mla());
  EXPECT_EQ(m.id, dir_.filename().string());  // the directory, not "config"
  EXPECT_EQ(request_bytes(m, 100), 47ull * 576 * 2 * 100);
}

}  // namespace
