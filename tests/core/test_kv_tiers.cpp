// KV tiers beyond the GPU (kv_tiers.hpp): the pinned host memory each engine's offloading takes
// per rank and per node, read from the command lines as the engines read them, and check's
// host_memory item. Expected values are hand arithmetic from the engines' own sizing code, cited
// per test (the research notes: vLLM vllm/v1/kv_offload/cpu/spec.py @ 6dfd8b55, LMCache
// lmcache/v1/storage_backend/local_cpu_backend.py @ 000620e3 and LMCache#2901, SGLang
// python/sglang/srt/mem_cache/pool_host/base.py @ 712c0617, TensorRT-LLM
// tensorrt_llm/_torch/pyexecutor/resource_manager.py @ 001541ba).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "kvplan/deploy.hpp"
#include "kvplan/engine_args.hpp"
#include "kvplan/error.hpp"
#include "kvplan/gpu.hpp"
#include "kvplan/kv_tiers.hpp"

namespace kvplan {
namespace {

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

Deployment from(Engine e, const std::string& line, const std::string& gpu = "h200-141gb") {
  const std::string src = e == Engine::vllm     ? "--vllm"
                          : e == Engine::sglang ? "--sglang"
                                                : "--trtllm";
  return deploy_from_engine(parse_engine_command(e, line, src), load_gpu(gpu), 0, "", src);
}

// SGLang (`args`: the model and TP flags) with --hicache-size g GB on a node of node_gib GiB.
CheckReport hicache_on_node(const std::string& args, int g, std::uint64_t node_gib) {
  Deployment d = from(Engine::sglang, "python -m sglang.launch_server " + args +
                                          " --context-length 8192 --enable-hierarchical-cache "
                                          "--hicache-size " +
                                          std::to_string(g));
  d.node.memory_bytes = node_gib * kGiB;
  d.node.memory_source = "test";
  return run_check(d);
}

const CheckItem* host_item(const CheckReport& r) {
  auto it = std::find_if(r.items.begin(), r.items.end(),
                         [](const CheckItem& i) { return i.id == "host_memory"; });
  return it == r.items.end() ? nullptr : &*it;
}

// Issue 27's hand-worked node: 8 × H200 with 2 TiB of DRAM (DGX H200: "2 TB of DDR5", 32 × 64 GB
// DIMMs), vLLM TP 8 with LMCache's local CPU backend at 300 per rank. Every worker runs its own
// LMCache engine (LMCache#2901: "each TP rank allocates LMCACHE_MAX_LOCAL_CPU_SIZE
// independently"), and the allocator takes cpu_size · 1024^3 bytes pinned:
//   8 ranks · 300 · 2^30 = 2,576,980,377,600 B (2,400 GiB) > 2,048 · 2^30 = 2,199,023,255,552 B.
TEST(KvTiers, LmcachePerRankOverfillsTheNode) {
  Deployment d = from(Engine::vllm,
                      "LMCACHE_MAX_LOCAL_CPU_SIZE=300 vllm serve meta-llama/Llama-3.1-8B "
                      "--tensor-parallel-size 8 --max-model-len 8192 --kv-transfer-config "
                      "'{\"kv_connector\":\"LMCacheConnectorV1\",\"kv_role\":\"kv_both\"}'");
  d.node.memory_bytes = 2048 * kGiB;
  d.node.memory_source = "test";
  const CheckReport r = run_check(d);
  ASSERT_TRUE(r.host);
  EXPECT_EQ(r.host->ranks_per_node, 8u);
  EXPECT_EQ(r.host->pinned_per_rank, 322'122'547'200u);  // 300 · 2^30
  EXPECT_EQ(r.host->pinned_per_node, 2'576'980'377'600u);
  const CheckItem* i = host_item(r);
  ASSERT_NE(i, nullptr);
  EXPECT_FALSE(i->passed);
  EXPECT_FALSE(r.passed());
  EXPECT_NE(i->detail.find("per rank"), std::string::npos) << i->detail;
  EXPECT_NE(i->detail.find("LMCache#2901"), std::string::npos) << i->detail;
  // 2,048 GiB over 8 ranks: 256 GiB each.
  EXPECT_NE(i->fix.find("256.00 GiB"), std::string::npos) << i->fix;

  // 200 per rank: 8 · 200 · 2^30 = 1,717,986,918,400 B ≤ 2,199,023,255,552 B.
  Deployment ok = from(Engine::vllm,
                       "LMCACHE_MAX_LOCAL_CPU_SIZE=200 vllm serve meta-llama/Llama-3.1-8B "
                       "--tensor-parallel-size 8 --max-model-len 8192 --kv-transfer-config "
                       "'{\"kv_connector\":\"LMCacheConnectorV1\",\"kv_role\":\"kv_both\"}'");
  ok.node.memory_bytes = 2048 * kGiB;
  const CheckReport r2 = run_check(ok);
  EXPECT_EQ(r2.host->pinned_per_node, 1'717'986'918'400u);
  EXPECT_TRUE(host_item(r2)->passed) << host_item(r2)->detail;
}

// Without a node stated, the GPU preset's reference node: h200-141gb's DGX H200, 8 GPUs and
// 2,048 GiB ("2 TB of DDR5", models/gpus/h200-141gb.json), so issue 27's node fails as is.
TEST(KvTiers, ThePresetsNodeByDefault) {
  const CheckReport r =
      run_check(from(Engine::vllm,
                     "LMCACHE_MAX_LOCAL_CPU_SIZE=300 vllm serve meta-llama/Llama-3.1-8B -tp 8 "
                     "--max-model-len 8192 --kv-transfer-config "
                     "'{\"kv_connector\":\"LMCacheConnectorV1\"}'"));
  const CheckItem* i = host_item(r);
  ASSERT_NE(i, nullptr);
  EXPECT_FALSE(i->passed);
  EXPECT_NE(i->detail.find("of 2.00 TiB"), std::string::npos) << i->detail;
  EXPECT_NE(i->detail.find("h200-141gb preset's node"), std::string::npos) << i->detail;
}

// LMCache's settings through kv_connector_extra_config ("lmcache.<key>") and docker's -e; its
// default max_local_cpu_size is 5.0 (lmcache/v1/config.py @ 3ecd72f8); local_cpu false turns the
// CPU backend off.
TEST(KvTiers, LmcacheSettingsFromEveryPlace) {
  const auto extra = parse_engine_command(
      Engine::vllm,
      "vllm serve m --kv-transfer-config '{\"kv_connector\":\"LMCacheConnectorV1\","
      "\"kv_connector_extra_config\":{\"lmcache.max_local_cpu_size\":40,"
      "\"lmcache.max_local_disk_size\":\"100\"}}'",
      "--vllm");
  EXPECT_TRUE(extra.host_tiers.lmcache);
  EXPECT_EQ(extra.host_tiers.lmcache_cpu_gib, 40.0);
  EXPECT_EQ(extra.host_tiers.lmcache_disk_gib, 100.0);
  const auto docker = parse_engine_command(
      Engine::vllm,
      "docker run --gpus all -e LMCACHE_MAX_LOCAL_CPU_SIZE=50 -e LMCACHE_LOCAL_CPU=False "
      "vllm/vllm-openai:latest m --kv-transfer-config '{\"kv_connector\":\"LMCacheConnectorV1\"}'",
      "--vllm");
  EXPECT_EQ(docker.host_tiers.lmcache_cpu_gib, 50.0);
  EXPECT_EQ(docker.host_tiers.lmcache_local_cpu, false);

  // Defaults: 5 GiB per rank; TP 2 → 2 · 5 · 2^30 = 10,737,418,240 B per node. The H100 PCIe
  // preset states no node (docs/gpus.md).
  const Deployment d = from(Engine::vllm,
                            "vllm serve meta-llama/Llama-3.1-8B -tp 2 --max-model-len 8192 "
                            "--kv-transfer-config '{\"kv_connector\":\"LMCacheConnectorV1\"}'",
                            "h100-pcie-80gb");
  const CheckReport r = run_check(d);
  ASSERT_TRUE(r.host);
  EXPECT_EQ(r.host->pinned_per_node, 10'737'418'240u);
  // No node memory: reported, not judged.
  EXPECT_TRUE(host_item(r)->passed);
  EXPECT_NE(host_item(r)->detail.find("node's memory is unknown"), std::string::npos);
}

// vLLM's native offloading: --kv-offloading-size S is one total for the instance
// (cpu_bytes_to_use = S · 2^30; CPUOffloadingSpec: one offloaded block is page · tensors ·
// world_size bytes, num_blocks = cpu_bytes_to_use // that, each rank pins num_blocks · page ·
// tensors). Llama-3.1-8B bf16, block 16: page = 16 · 8 KV heads · 128 · 2 (K, V) · 2 B = 65,536 B
// at TP 1, 32 layers in one group (32 tensors):
//   TP 1: 100 · 2^30 // (65,536 · 32) = 51,200 blocks → 51,200 · 2,097,152 = 107,374,182,400 B.
//   TP 2: page 32,768 B; 100 · 2^30 // (32,768 · 32 · 2) = 51,200 blocks → each rank
//         51,200 · 32,768 · 32 = 53,687,091,200 B, the node 107,374,182,400 B.
TEST(KvTiers, VllmOffloadingSizeIsATotalOverTheRanks) {
  const CheckReport one = run_check(from(Engine::vllm,
                                         "vllm serve meta-llama/Llama-3.1-8B --max-model-len 8192 "
                                         "--kv-offloading-size 100"));
  ASSERT_TRUE(one.host);
  EXPECT_EQ(one.host->pinned_per_rank, 107'374'182'400u);
  const CheckReport two =
      run_check(from(Engine::vllm,
                     "vllm serve meta-llama/Llama-3.1-8B -tp 2 --max-model-len 8192 "
                     "--kv-offloading-size 100"));
  EXPECT_EQ(two.host->pinned_per_rank, 53'687'091'200u);
  EXPECT_EQ(two.host->pinned_per_node, 107'374'182'400u);
  // The control of issue 27's node: 2,400 GiB as vLLM's total fails the 2 TiB node without the
  // ×8 (8 ranks · 300 GiB); 300 GiB passes.
  Deployment big = from(Engine::vllm,
                        "vllm serve meta-llama/Llama-3.1-8B -tp 8 --max-model-len 8192 "
                        "--kv-offloading-size 2400");
  big.node.memory_bytes = 2048 * kGiB;
  EXPECT_FALSE(host_item(run_check(big))->passed);
  Deployment small = from(Engine::vllm,
                          "vllm serve meta-llama/Llama-3.1-8B -tp 8 --max-model-len 8192 "
                          "--kv-offloading-size 300");
  small.node.memory_bytes = 2048 * kGiB;
  const CheckReport rs = run_check(small);
  EXPECT_TRUE(host_item(rs)->passed) << host_item(rs)->detail;
  EXPECT_LE(rs.host->pinned_per_node, 300 * kGiB);
}

// SGLang HiCache, fixed size (pool_host/base.py L104-112): tokens = int(G · 1e9 // bytes per
// token), then page_num = tokens // page + 1. Llama-3.1-8B bf16 at TP 1: 2 · 32 · 8 · 128 · 2 =
// 131,072 B a token; --hicache-size 100, page 64: 100e9 // 131,072 = 762,939 tokens;
// 762,939 // 64 + 1 = 11,921 pages = 762,944 tokens; 762,944 · 2^17 = 100,000,595,968 B.
TEST(KvTiers, SglangHicacheSizeInPages) {
  const CheckReport r = run_check(from(
      Engine::sglang,
      "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --context-length 8192 "
      "--page-size 64 --enable-hierarchical-cache --hicache-size 100"));
  ASSERT_TRUE(r.host);
  ASSERT_EQ(r.host->tiers.size(), 1u);
  EXPECT_TRUE(r.host->tiers[0].exact);
  EXPECT_EQ(r.host->pinned_per_rank, 100'000'595'968u);
  // Ratio mode mirrors the device pool the planner sized (its tokens T, tested by the SGLang
  // parity tests): int(T · 2) tokens (the default ratio in cache mode), whole pages plus one.
  const CheckReport q = run_check(from(
      Engine::sglang,
      "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --context-length 8192 "
      "--page-size 64 --enable-hierarchical-cache"));
  const std::uint64_t t = q.capacity.kv_cache_tokens;
  ASSERT_GT(t, 0u);
  EXPECT_EQ(q.host->pinned_per_rank, ((2 * t) / 64 + 1) * 64 * 131'072);
}

// SGLang HiCache on DeepSeek-V3.2 (DSA), TP 8, page 64, bf16. The KV host pool
// (MLATokenToKVPoolHost) takes 61 · (512 + 64) · 2 = 70,272 B a token: --hicache-size 100 gives
// 100e9 // 70,272 = 1,423,041 tokens, 1,423,041 // 64 + 1 = 22,236 pages, 1,423,104 tokens,
// 100,004,364,288 B. The indexer's own host pool (pool_host/dsa.py@03ba7b5b
// DSAIndexerPoolHost) comes on top: (1,423,104 + 64 + 1) // 64 = 22,237 pages of 64 tokens of
// 128 + 4 B in 61 layers = 11,459,348,736 B; 111,463,713,024 B a rank in all.
TEST(KvTiers, SglangHicacheMirrorsTheDsaIndexer) {
  const CheckReport r = run_check(
      from(Engine::sglang,
           "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --tp 8 "
           "--context-length 8192 --page-size 64 --enable-hierarchical-cache --hicache-size 100"));
  ASSERT_TRUE(r.host);
  ASSERT_EQ(r.host->tiers.size(), 1u);
  EXPECT_TRUE(r.host->tiers[0].exact);
  EXPECT_EQ(r.host->pinned_per_rank, 111'463'713'024u);
  // Ratio 2 mirrors the device pool's T tokens (the cell with the indexer, SglangParity):
  // size = (2T // 64 + 1) · 64 tokens of 70,272 B, and (size + 65) // 64 indexer pages.
  const CheckReport q =
      run_check(from(Engine::sglang,
                     "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --tp 8 "
                     "--context-length 8192 --page-size 64 --enable-hierarchical-cache"));
  const std::uint64_t t = q.capacity.kv_cache_tokens;
  ASSERT_GT(t, 0u);
  const std::uint64_t size = ((2 * t) / 64 + 1) * 64;
  EXPECT_EQ(q.host->pinned_per_rank, size * 70'272 + 61 * ((size + 65) / 64) * 64 * 132);
  // Two pipeline stages: the first rank holds 31 of the 61 layers, 31 · 1,152 = 35,712 B a token:
  // 100e9 // 35,712 = 2,800,179 tokens, 43,754 pages, 2,800,192 tokens, 100,000,456,704 B; the
  // indexer 31 · 43,755 · 64 · 132 = 11,458,647,552 B: 111,459,104,256 B.
  const CheckReport pp = run_check(from(
      Engine::sglang,
      "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --tp 4 --pp-size 2 "
      "--context-length 8192 --page-size 64 --enable-hierarchical-cache --hicache-size 100"));
  ASSERT_TRUE(pp.host);
  EXPECT_EQ(pp.host->pinned_per_rank, 111'459'104'256u);
  // fp8 on an H200: SGLang keeps the latent in 656-byte rows on the GPU (512 fp8 values, 4 fp32
  // scales, 64 RoPE values in bf16: calculate_mla_kv_cache_dim, kv_cache_configurator.py@382343f8,
  // the flashmla_kv backend) and the host mirrors them, 61 · 656 = 40,016 B a token: 100e9 //
  // 40,016 = 2,499,000 tokens, 39,047 pages, 2,499,008 tokens, 100,000,304,128 B; the indexer 61 ·
  // 39,048 · 64 · 132 = 20,122,527,744 B.
  const CheckReport f8 =
      run_check(from(Engine::sglang,
                     "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --tp 8 "
                     "--context-length 8192 --page-size 64 --kv-cache-dtype fp8_e4m3 "
                     "--enable-hierarchical-cache --hicache-size 100"));
  ASSERT_TRUE(f8.host);
  EXPECT_EQ(f8.host->pinned_per_rank, 120'122'831'872u);
  EXPECT_TRUE(f8.host->tiers[0].exact);
}

// SGLang HiCache on a hybrid model with Mamba-like state (issue 27's second node, with a small
// node to make it bite): 8 ranks, --hicache-size G per rank as one budget over the KV and state
// pools (sglang PR #32915), split by the device pools' bytes (_split_hicache_size,
// hybrid_pool_assembler.py@382343f860c7df8dc43ecefd7902c940d81c99a9). The pools are pinned by
// --max-total-tokens 500000 and --max-mamba-cache-size 300, page 1. Qwen3.5-35B-A3B at TP 8
// (models/hf/qwen3.5-35b-a3b.json): 10 full-attention layers of 2 KV heads (one a rank) × 256 in
// bf16, 2 · 256 · 2 = 1,024 B a layer, 10,240 B a token; 30 gated-delta-net layers, each a conv
// state of (16 · 128 · 2 + 32 · 128) / 8 = 1,024 channels × 3 in bf16 (6,144 B) and a temporal
// state of 32 / 8 = 4 heads × 128 × 128 in fp32 (262,144 B): 30 · 268,288 = 8,048,640 B a slot.
//   device: full (500,000 + 1) · 10,240 = 5,120,010,240 B; Mamba (300 + 1) · 8,048,640 =
//           2,422,640,640 B; 7,542,650,880 B in all
//   G = 20: shares 20 · 5,120,010,240 / 7,542,650,880 = 13.5762 GB and 6.4238 GB;
//           int(13.5762e9 // 10,240) = 1,325,796 tokens, + 1 page: 1,325,797 · 10,240 =
//           13,576,161,280 B; int(6.4238e9 // 8,048,640) = 798 slots, + 1: 799 · 8,048,640 =
//           6,430,863,360 B; 20,007,024,640 B a rank, 160,056,197,120 B on the node's 8.
// A 256 GiB node (274,877,906,944 B) and SGLang's share of it, (256 − 10) GiB / 8 =
// 33,017,561,088 B a rank:
//   G = 20: passes;
//   G = 34: about 8 · 34e9 = 272e9 B ≤ 274.9e9, but 34e9 > 33,017,561,088: SGLang itself refuses
//           the rank ("Not enough host memory available");
//   G = 40: about 320e9 B > 274.9e9: the node cannot hold it.
TEST(KvTiers, SglangHicacheOnAHybridModel) {
  auto run = [](int g) {
    return hicache_on_node(
        "--model-path Qwen/Qwen3.5-35B-A3B --tp 8 --max-total-tokens 500000 "
        "--max-mamba-cache-size 300",
        g, 256);
  };
  const CheckReport ok = run(20);
  ASSERT_TRUE(ok.host);
  ASSERT_EQ(ok.host->tiers.size(), 1u);
  EXPECT_TRUE(ok.host->tiers[0].exact);
  EXPECT_EQ(ok.host->pinned_per_rank, 13'576'161'280u + 6'430'863'360u);
  EXPECT_EQ(ok.host->pinned_per_node, 160'056'197'120u);
  EXPECT_TRUE(host_item(ok)->passed) << host_item(ok)->detail;
  EXPECT_NE(host_item(ok)->detail.find("#29034"), std::string::npos) << host_item(ok)->detail;
  // --hicache-size 0: each pool by --hicache-ratio (2): int(500,000 · 2) + 1 = 1,000,001 tokens ·
  // 10,240 = 10,240,010,240 B and int(300 · 2) + 1 = 601 slots · 8,048,640 = 4,837,232,640 B.
  const CheckReport by_ratio = run(0);
  ASSERT_TRUE(by_ratio.host);
  EXPECT_EQ(by_ratio.host->pinned_per_rank, 10'240'010'240u + 4'837'232'640u);
  EXPECT_TRUE(by_ratio.host->tiers[0].exact);
  const CheckReport share = run(34);
  EXPECT_FALSE(host_item(share)->passed);
  EXPECT_NE(host_item(share)->detail.find("Not enough host memory"), std::string::npos);
  const CheckReport over = run(40);
  EXPECT_FALSE(host_item(over)->passed);
  EXPECT_NE(host_item(over)->detail.find("over by"), std::string::npos);
}

// SGLang HiCache on a hybrid sliding-window model: the full and the SWA host pools share
// --hicache-size by their device pools' bytes (build_hybrid_swa_stack, hybrid_pool_assembler.py
// @382343f860c7df8dc43ecefd7902c940d81c99a9). gpt-oss-20b at TP 1 (models/hf/gpt-oss-20b.json):
// 12 full and 12 sliding layers of 8 KV heads × 64 in bf16, 2 · 8 · 64 · 2 = 2,048 B a layer,
// 24,576 B a token in each pool. --max-total-tokens 200000: the full pool 200,000 tokens, the SWA
// pool int(200,000 · 0.8) = 160,000 (--swa-full-tokens-ratio), page 1.
//   device: (200,000 + 1) · 24,576 = 4,915,224,576 B and (160,000 + 1) · 24,576 =
//           3,932,184,576 B, 8,847,409,152 B in all
//   G = 10: shares 5.5555525 and 4.4444475 GB; int(5.5555525e9 // 24,576) = 226,056 tokens,
//           226,057 · 24,576 = 5,555,576,832 B; int(4.4444475e9 // 24,576) = 180,845,
//           180,846 · 24,576 = 4,444,471,296 B; 10,000,048,128 B a rank
//   ratio 2: (400,000 + 1) · 24,576 = 9,830,424,576 B and (320,000 + 1) · 24,576 =
//           7,864,344,576 B, 17,694,769,152 B
TEST(KvTiers, SglangHicacheOnASlidingWindowHybrid) {
  auto run = [](const std::string& host) {
    return run_check(from(Engine::sglang,
                          "python -m sglang.launch_server --model-path openai/gpt-oss-20b "
                          "--context-length 8192 --max-total-tokens 200000 "
                          "--enable-hierarchical-cache " +
                              host));
  };
  const CheckReport by_size = run("--hicache-size 10");
  ASSERT_TRUE(by_size.host);
  EXPECT_EQ(by_size.host->pinned_per_rank, 5'555'576'832u + 4'444'471'296u);
  EXPECT_TRUE(by_size.host->tiers[0].exact);
  const CheckReport by_ratio = run("--hicache-ratio 2");
  ASSERT_TRUE(by_ratio.host);
  EXPECT_EQ(by_ratio.host->pinned_per_rank, 9'830'424'576u + 7'864'344'576u);
}

// SGLang's own case (test/registered/unit/mem_cache/test_mem_pool_host.py@382343f860c7df8dc43ecefd
// 7902c940d81c99a9 TestHostMemoryBudget: host_memory_budget_bytes = (available − 10 GiB) //
// ranks_per_host, pool_host/base.py): 10 GiB + 64 GiB over 4 co-located ranks, 16 GiB a rank
// (17,179,869,184 B; kvplan takes the node's memory for "available"). Llama-3.1-8B at TP 4: 32
// layers · 2 KV heads · 128 · 2 · 2 B = 32,768 B a token; --hicache-size 17: 17e9 // 32,768 =
// 518,798 tokens, 518,799 with the extra page, 17,000,005,632 B: within the share; 18: over it.
TEST(KvTiers, SglangHostBudgetAsSglangsOwnTest) {
  auto run = [](int g) {
    return hicache_on_node("--model-path meta-llama/Llama-3.1-8B --tp 4", g, 74);
  };
  const CheckReport ok = run(17);
  ASSERT_TRUE(ok.host);
  EXPECT_EQ(ok.host->pinned_per_rank, 17'000'005'632u);
  EXPECT_TRUE(host_item(ok)->passed) << host_item(ok)->detail;
  const CheckReport over = run(18);
  EXPECT_FALSE(host_item(over)->passed);
  EXPECT_NE(host_item(over)->detail.find("Not enough host memory"), std::string::npos)
      << host_item(over)->detail;
  EXPECT_NE(host_item(over)->detail.find("16.00 GiB"), std::string::npos)
      << host_item(over)->detail;
}

// SGLang HiCache under decode context parallelism (test/registered/unit/mem_cache/
// test_hicache_dcp_host_pool.py@382343f860c7df8dc43ecefd7902c940d81c99a9): the host pool mirrors
// the rank's physical tokens in physical pages, size = (int(T · 2) // 64 + 1) · 64 at page 64
// whatever the DCP (the widened page, 64 · 8, is the allocator's logical one). DeepSeek-V3 bf16:
// 61 · (512 + 64) · 2 = 70,272 B a token.
TEST(KvTiers, SglangHicacheUnderDcpStaysPhysical) {
  const CheckReport r = run_check(from(
      Engine::sglang,
      "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --dcp-size 8 "
      "--context-length 8192 --page-size 64 --enable-hierarchical-cache"));
  ASSERT_TRUE(r.host);
  const std::uint64_t t = r.capacity.kv_cache_tokens;
  ASSERT_GT(t, 0u);
  EXPECT_EQ(r.host->pinned_per_rank, ((2 * t) / 64 + 1) * 64 * 70'272);
}

// TensorRT-LLM's secondary pool: host_cache_size bytes on each rank (at most; whole blocks).
TEST(KvTiers, TrtllmHostCacheIsPerRank) {
  const auto a = parse_engine_command(
      Engine::trtllm,
      "trtllm-serve meta-llama/Llama-3.1-8B --tp_size 4 --max_seq_len 8192 "
      "--extra_llm_api_options " +
          std::string(KVPLAN_TEST_DATA_DIR) + "/engine_configs/trtllm-host-cache.yaml",
      "--trtllm");
  ASSERT_TRUE(a.host_tiers.host_cache_bytes);
  EXPECT_EQ(*a.host_tiers.host_cache_bytes, 107'374'182'400u);
  Deployment d = deploy_from_engine(a, load_gpu("h100-sxm-80gb"), 0, "", "--trtllm");
  const CheckReport r = run_check(d);
  EXPECT_EQ(r.host->pinned_per_node, 4 * 107'374'182'400u);
}

// Ranks per node: a deployment over 16 GPUs on 8-GPU nodes pins 8 ranks' worth per node.
TEST(KvTiers, RanksPerNodeCapAtTheNode) {
  Deployment d = from(Engine::vllm,
                      "LMCACHE_MAX_LOCAL_CPU_SIZE=100 vllm serve meta-llama/Llama-3.1-8B -tp 8 "
                      "-dp 2 --max-model-len 8192 --kv-transfer-config "
                      "'{\"kv_connector\":\"LMCacheConnectorV1\"}'");
  EXPECT_EQ(d.plan.gpus, 16u);
  const CheckReport r = run_check(d);
  EXPECT_EQ(r.host->ranks_per_node, 8u);
  EXPECT_EQ(r.host->pinned_per_node, 8 * 100 * kGiB);
  d.node.gpus = 4;
  EXPECT_EQ(run_check(d).host->pinned_per_node, 4 * 100 * kGiB);
}

TEST(KvTiers, BadSettingsNameTheirField) {
  auto expect_error = [](Engine e, const std::string& line, const std::string& field) {
    try {
      parse_engine_command(e, line, "--cmd");
      ADD_FAILURE() << "accepted: " << line;
    } catch (const Error& err) {
      EXPECT_NE(std::string(err.what()).find(field), std::string::npos) << err.what();
    }
  };
  expect_error(Engine::vllm, "vllm serve m --kv-offloading-backend disk",
               "--kv-offloading-backend");
  expect_error(Engine::vllm, "vllm serve m --kv-offloading-size lots", "--kv-offloading-size");
  expect_error(Engine::vllm, "vllm serve m --kv-offloading-size nan", "--kv-offloading-size");
  expect_error(Engine::vllm, "LMCACHE_MAX_LOCAL_CPU_SIZE=abc vllm serve m",
               "LMCACHE_MAX_LOCAL_CPU_SIZE");
  expect_error(Engine::vllm, "LMCACHE_LOCAL_CPU=maybe vllm serve m", "LMCACHE_LOCAL_CPU");
  expect_error(Engine::sglang, "python -m sglang.launch_server --model-path m --hicache-ratio 0",
               "--hicache-ratio");
  expect_error(Engine::sglang, "python -m sglang.launch_server --model-path m --hicache-size 2.5",
               "--hicache-size");
}

// The deployment file's "offload" block and hardware.node_memory_gib.
TEST(KvTiers, DeploymentFileOffload) {
  const std::string base = R"({"kvplan_deploy": 1, "model": "llama-3.1-8b",
    "hardware": {"gpu": "h200-141gb", "gpus": 8, "node_memory_gib": 2048},
    "engine": {"name": "vllm", "tensor_parallel_size": 8, "max_model_len": 8192},
    "slo": {"concurrency": 1},)";
  const Deployment d =
      parse_deploy_json(base + R"("offload": {"lmcache": {"max_local_cpu_size": 300}}})", "d.json");
  EXPECT_EQ(d.node.memory_bytes, 2048 * kGiB);
  const CheckReport r = run_check(d);
  EXPECT_EQ(r.host->pinned_per_node, 2'576'980'377'600u);
  EXPECT_FALSE(host_item(r)->passed);
  try {
    parse_deploy_json(base + R"("offload": {"lmcache": {"max_local_cpu": 300}}})", "d.json");
    ADD_FAILURE() << "an unknown key was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/offload/lmcache/max_local_cpu"), std::string::npos)
        << e.what();
  }
  // to_json writes the block back: the same tiers and node.
  const Deployment back = parse_deploy_json(to_json(d), "back.json");
  EXPECT_EQ(back.node.memory_bytes, d.node.memory_bytes);
  EXPECT_EQ(back.host_tiers.lmcache_cpu_gib, 300.0);
  EXPECT_EQ(run_check(back).host->pinned_per_node, 2'576'980'377'600u);
}

}  // namespace
}  // namespace kvplan
