// CUDA kernels against the CPU reference on shared deterministic fixtures: quantization and
// cache bytes bit-exact, attention within kAttentionNmse (plus NaN and non-zero-norm checks),
// eviction selections identical. Every test skips, visibly, where no CUDA device exists.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "cuda_fixtures.hpp"
#include "kvplan/kernels/kernels.hpp"

namespace kvplan::kernels {
namespace {

using testing::CudaParamTest;
using testing::CudaTest;
using testing::DeviceBuffer;
using testing::first_bit_difference;
using testing::fixture_values;

std::string clean(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

// ---------------------------------------------------------------- quantize / dequantize

struct QuantCase {
  std::string format;
  StreamRole role;
  std::uint32_t width, tokens;
};
std::string quant_name(const ::testing::TestParamInfo<QuantCase>& i) {
  return clean(i.param.format) + (i.param.role == StreamRole::key ? "_key" : "_value") + "_d" +
         std::to_string(i.param.width) + "_T" + std::to_string(i.param.tokens);
}

class CudaQuantize : public CudaParamTest<QuantCase> {};

TEST_P(CudaQuantize, CodesAndDequantizedValuesAreBitExact) {
  const QuantCase& c = GetParam();
  const KvFormat f = parse_kv_format(c.format);
  std::vector<float> x = fixture_values(std::uint64_t{c.tokens} * c.width, c.width + c.tokens, 3.f);
  x[1] = 0.f;
  x[2] = -0.f;
  x[3] = 1e-6f;  // fp8 subnormal territory
  const std::uint64_t bytes = quantized_bytes(f, c.role, c.width, c.tokens);
  QuantizeParams p{
      .format = f, .role = c.role, .tokens = c.tokens, .width = c.width, .fp8_scale = 0.02f};
  std::vector<std::uint8_t> want(bytes), got(bytes);
  p.in = x.data();
  p.out = want.data();
  ASSERT_TRUE(quantize_ref(p).ok());
  // Device pointers (the asynchronous path).
  DeviceBuffer<float> d_in(x);
  DeviceBuffer<std::uint8_t> d_codes(bytes);
  QuantizeParams dp = p;
  dp.in = d_in.ptr;
  dp.out = d_codes.ptr;
  const Status s = quantize_cuda(dp);
  ASSERT_TRUE(s.ok()) << s.message;
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(first_bit_difference(d_codes.host(), want), -1);
  // Host pointers (staged) give the same bytes.
  p.out = got.data();
  ASSERT_TRUE(quantize_cuda(p).ok());
  EXPECT_EQ(first_bit_difference(got, want), -1);

  std::vector<float> deq_want(x.size()), deq_got(x.size());
  QuantizeParams q{.format = f,
                   .role = c.role,
                   .tokens = c.tokens,
                   .width = c.width,
                   .fp8_scale = 0.02f,
                   .codes = want.data(),
                   .dequant = deq_want.data()};
  ASSERT_TRUE(dequantize_ref(q).ok());
  q.dequant = deq_got.data();
  const Status s2 = dequantize_cuda(q);
  ASSERT_TRUE(s2.ok()) << s2.message;
  EXPECT_EQ(first_bit_difference(deq_got, deq_want), -1);
}

std::vector<QuantCase> quant_cases() {
  std::vector<QuantCase> v;
  for (const char* f : {"fp32", "fp16", "bf16", "fp8", "fp8_e5m2", "int8",
                        "kivi:bits=2,group=32,residual=128", "kivi:bits=4,group=32,residual=128",
                        "kivi:bits=8,group=16,residual=32", "kivi:bits=2,group=64,residual=64"})
    for (StreamRole r : {StreamRole::key, StreamRole::value})
      for (std::uint32_t d : {64u, 128u})
        for (std::uint32_t t : {64u, 192u}) v.push_back({f, r, d, t});
  v.push_back({"int8", StreamRole::key, 17, 5});
  v.push_back({"fp8", StreamRole::value, 3, 7});
  // 7 tokens of 64-wide values in groups of 32: 14 records, so the staged KIVI value kernel's
  // last warp holds fewer than 32; width 40 (not a divisor of the block) takes the element path.
  v.push_back({"kivi:bits=2,group=32,residual=128", StreamRole::value, 64, 7});
  v.push_back({"kivi:bits=4,group=8,residual=32", StreamRole::value, 40, 9});
  v.push_back({"kivi:bits=4,group=8,residual=32", StreamRole::key, 40, 16});
  return v;
}
INSTANTIATE_TEST_SUITE_P(Formats, CudaQuantize, ::testing::ValuesIn(quant_cases()), quant_name);

// fp8 encode over a sweep of float bit patterns (every exponent, specials, ties): the device's
// encoder equals fp8_encode bit for bit, saturation and RNE included.
class CudaFp8Sweep : public CudaParamTest<std::string> {};
TEST_P(CudaFp8Sweep, MatchesReferenceOverBitPatterns) {
  std::vector<float> x;
  for (std::uint64_t u = 0; u < (1ull << 32); u += 4099) {
    float f;
    const std::uint32_t b = static_cast<std::uint32_t>(u);
    std::memcpy(&f, &b, 4);
    x.push_back(f);
  }
  for (float f : {0.f, -0.f, 448.f, 464.f, 480.f, 57344.f, 61440.f, 1e30f,
                  std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                  std::numeric_limits<float>::quiet_NaN(), 0.0009765625f, 0.00146484375f})
    x.push_back(f);
  const KvFormat f = parse_kv_format(GetParam());
  QuantizeParams p{.format = f,
                   .tokens = static_cast<std::uint32_t>(x.size()),
                   .width = 1,
                   .fp8_scale = 1.f,
                   .in = x.data()};
  std::vector<std::uint8_t> want(x.size()), got(x.size());
  p.out = want.data();
  ASSERT_TRUE(quantize_ref(p).ok());
  p.out = got.data();
  ASSERT_TRUE(quantize_cuda(p).ok());
  const long long i = first_bit_difference(got, want);
  EXPECT_EQ(i, -1) << "first difference at input " << (i >= 0 ? x[i] : 0.f);
}
INSTANTIATE_TEST_SUITE_P(Kinds, CudaFp8Sweep, ::testing::Values("fp8", "fp8_e5m2"),
                         [](const auto& i) { return clean(i.param); });

// ---------------------------------------------------------------- paged cache

struct PoolCase {
  std::string format;
  std::uint32_t block_size, heads, head_dim;
};
std::string pool_name(const ::testing::TestParamInfo<PoolCase>& i) {
  return clean(i.param.format) + "_S" + std::to_string(i.param.block_size) + "_H" +
         std::to_string(i.param.heads) + "_d" + std::to_string(i.param.head_dim);
}

// Every retained slot of the device cache (downloaded) decodes bit-identically to the CPU pool.
void expect_same_cache(const PagedKvPool& cpu, std::uint32_t seq, const DevicePagedKv& gpu,
                       std::uint32_t gseq) {
  HostKvCopy back;
  ASSERT_TRUE(gpu.download(gseq, 0, &back).ok());
  const PagedKvView a = cpu.view(seq, 0), b = back.view();
  ASSERT_EQ(a.num_tokens, b.num_tokens);
  const std::uint32_t d = a.head_dim;
  std::vector<float> ka(d), kb(d), va(d), vb(d);
  for (std::uint32_t h = 0; h < a.num_kv_heads; ++h)
    for (std::uint32_t t = 0; t < a.num_tokens; ++t) {
      load_key(a, h, t, ka.data());
      load_key(b, h, t, kb.data());
      load_value(a, h, t, va.data());
      load_value(b, h, t, vb.data());
      ASSERT_EQ(first_bit_difference(ka, kb), -1) << "key h=" << h << " t=" << t;
      ASSERT_EQ(first_bit_difference(va, vb), -1) << "value h=" << h << " t=" << t;
      ASSERT_EQ(a.positions[std::uint64_t{h} * a.positions_stride + t],
                b.positions[std::uint64_t{h} * b.positions_stride + t]);
    }
  EXPECT_EQ(cpu.bytes_held(seq, 0), gpu.bytes_held(gseq, 0));
  // One bookkeeping (PagedKvBook): the same block ids in every table, the same capacity.
  for (KvArena a : {KvArena::k, KvArena::v, KvArena::kr, KvArena::vw}) {
    EXPECT_EQ(cpu.book().layer(seq, 0).table(a), gpu.book().layer(gseq, 0).table(a))
        << "arena " << static_cast<int>(a);
    EXPECT_EQ(cpu.book().capacity(a), gpu.book().capacity(a));
  }
}

class CudaPagedKv : public CudaParamTest<PoolCase> {
 protected:
  PoolConfig config() const {
    const PoolCase& c = GetParam();
    return {.format = parse_kv_format(c.format),
            .num_layers = 1,
            .num_kv_heads = c.heads,
            .head_dim = c.head_dim,
            .block_size = c.block_size,
            .k_scale = 0.05f,
            .v_scale = 0.03f};
  }
};

TEST_P(CudaPagedKv, AppendMatchesCpuPoolBitForBit) {
  const PoolConfig cfg = config();
  const std::uint32_t H = cfg.num_kv_heads, d = cfg.head_dim;
  PagedKvPool cpu;
  DevicePagedKv gpu;
  ASSERT_TRUE(cpu.init(cfg).ok());
  ASSERT_TRUE(gpu.init(cfg).ok());
  const std::uint32_t cs = cpu.add_sequence(), gs = gpu.add_sequence();
  // A prefill in two bulk pieces, then single-token decode steps (crossing KIVI chunks).
  std::uint32_t pos = 0;
  for (std::uint32_t n : {70u, 61u, 1u, 1u, 1u, 40u, 1u}) {
    const std::vector<float> k = fixture_values(std::uint64_t{n} * H * d, pos * 7 + 1, 2.f);
    const std::vector<float> v = fixture_values(std::uint64_t{n} * H * d, pos * 7 + 2, 2.f);
    std::vector<std::int32_t> p(n);
    for (std::uint32_t i = 0; i < n; ++i) p[i] = static_cast<std::int32_t>(pos + 2 * i);
    ASSERT_TRUE(cpu.append_tokens(cs, 0, n, k.data(), v.data(), p.data()).ok());
    const Status s = gpu.append_tokens(gs, 0, n, k.data(), v.data(), p.data());
    ASSERT_TRUE(s.ok()) << s.message;
    pos += 2 * n;
    expect_same_cache(cpu, cs, gpu, gs);
  }
  EXPECT_EQ(cpu.bytes_held(), gpu.bytes_held());
  EXPECT_EQ(cpu.blocks_in_use(), gpu.blocks_in_use());
}

TEST_P(CudaPagedKv, CompactionMatchesCpuPool) {
  const PoolConfig cfg = config();
  if (cfg.format.dtype == KvDtype::kivi) GTEST_SKIP() << "KIVI caches refuse compaction by design";
  const std::uint32_t H = cfg.num_kv_heads, d = cfg.head_dim, n = 150;
  PagedKvPool cpu;
  DevicePagedKv gpu;
  ASSERT_TRUE(cpu.init(cfg).ok());
  ASSERT_TRUE(gpu.init(cfg).ok());
  const std::uint32_t cs = cpu.add_sequence(), gs = gpu.add_sequence();
  const auto k = fixture_values(std::uint64_t{n} * H * d, 11),
             v = fixture_values(std::uint64_t{n} * H * d, 12);
  ASSERT_TRUE(cpu.append_tokens(cs, 0, n, k.data(), v.data()).ok());
  ASSERT_TRUE(gpu.append_tokens(gs, 0, n, k.data(), v.data()).ok());
  const auto scores = fixture_values(std::uint64_t{H} * n, 13);
  H2oSelectParams sp{.num_kv_heads = H,
                     .num_tokens = n,
                     .scores = scores.data(),
                     .positions = cpu.view(cs, 0).positions,
                     .positions_stride = cpu.view(cs, 0).positions_stride,
                     .heavy = 20,
                     .recent = 9};
  KeepSet keep;
  ASSERT_TRUE(h2o_select_ref(sp, &keep).ok());
  ASSERT_TRUE(cpu.compact(cs, 0, keep).ok());
  const Status s = gpu.compact(gs, 0, keep);
  ASSERT_TRUE(s.ok()) << s.message;
  expect_same_cache(cpu, cs, gpu, gs);
  // Appends after compaction reuse freed blocks the same way.
  const auto k2 = fixture_values(std::uint64_t{5} * H * d, 14),
             v2 = fixture_values(std::uint64_t{5} * H * d, 15);
  ASSERT_TRUE(cpu.append_tokens(cs, 0, 5, k2.data(), v2.data()).ok());
  ASSERT_TRUE(gpu.append_tokens(gs, 0, 5, k2.data(), v2.data()).ok());
  expect_same_cache(cpu, cs, gpu, gs);
  EXPECT_EQ(cpu.bytes_held(), gpu.bytes_held());
}

TEST_P(CudaPagedKv, CpuWrittenCacheReadsOnDevice) {
  const PoolConfig cfg = config();
  const std::uint32_t H = cfg.num_kv_heads, d = cfg.head_dim, n = 203;
  PagedKvPool cpu;
  DevicePagedKv gpu;
  ASSERT_TRUE(cpu.init(cfg).ok());
  ASSERT_TRUE(gpu.init(cfg).ok());
  const std::uint32_t cs = cpu.add_sequence(), gs = gpu.add_sequence();
  const auto k = fixture_values(std::uint64_t{n} * H * d, 21),
             v = fixture_values(std::uint64_t{n} * H * d, 22);
  ASSERT_TRUE(cpu.append_tokens(cs, 0, n, k.data(), v.data()).ok());
  const Status s = gpu.assign(gs, 0, cpu.view(cs, 0));
  ASSERT_TRUE(s.ok()) << s.message;
  expect_same_cache(cpu, cs, gpu, gs);
}

std::vector<PoolCase> pool_cases() {
  std::vector<PoolCase> v;
  for (const char* f : {"fp16", "bf16", "fp8", "fp8_e5m2", "int8", "fp32",
                        "kivi:bits=2,group=16,residual=32", "kivi:bits=4,group=32,residual=64"})
    for (std::uint32_t s : {1u, 3u, 16u, 17u}) v.push_back({f, s, 2, 64});
  v.push_back({"kivi:bits=2,group=32,residual=128", 16, 8, 128});
  v.push_back({"fp8", 16, 8, 128});
  return v;
}
INSTANTIATE_TEST_SUITE_P(Formats, CudaPagedKv, ::testing::ValuesIn(pool_cases()), pool_name);

// ---------------------------------------------------------------- attention

struct AttnCase {
  std::string format;
  std::uint32_t block_size, kv_heads, group, head_dim, tokens;
  PositionMode positions;
  bool llama3 = false;  // RoPE with Llama-3 frequency scaling (re-rotation under positions=cache)
};
std::string attn_name(const ::testing::TestParamInfo<AttnCase>& i) {
  const AttnCase& c = i.param;
  return clean(c.format) + "_S" + std::to_string(c.block_size) + "_Hkv" +
         std::to_string(c.kv_heads) + "_G" + std::to_string(c.group) + "_d" +
         std::to_string(c.head_dim) + "_n" + std::to_string(c.tokens) +
         (c.positions == PositionMode::cache ? "_poscache" : "_posorig") +
         (c.llama3 ? "_llama3" : "");
}

class CudaAttention : public CudaParamTest<AttnCase> {
 protected:
  void Fill(PagedKvPool* cpu, DevicePagedKv* gpu, std::uint32_t* cs, std::uint32_t* gs) {
    const AttnCase& c = GetParam();
    const PoolConfig cfg{.format = parse_kv_format(c.format),
                         .num_layers = 1,
                         .num_kv_heads = c.kv_heads,
                         .head_dim = c.head_dim,
                         .block_size = c.block_size,
                         .k_scale = 0.02f,
                         .v_scale = 0.02f};
    ASSERT_TRUE(cpu->init(cfg).ok());
    ASSERT_TRUE(gpu->init(cfg).ok());
    *cs = cpu->add_sequence();
    *gs = gpu->add_sequence();
    const std::uint64_t e = std::uint64_t{c.tokens} * c.kv_heads * c.head_dim;
    const auto k = fixture_values(e, 31, 2.f), v = fixture_values(e, 32);
    std::vector<std::int32_t> pos(c.tokens);
    for (std::uint32_t i = 0; i < c.tokens; ++i) pos[i] = static_cast<std::int32_t>(3 * i + 1);
    ASSERT_TRUE(cpu->append_tokens(*cs, 0, c.tokens, k.data(), v.data(), pos.data()).ok());
    ASSERT_TRUE(gpu->append_tokens(*gs, 0, c.tokens, k.data(), v.data(), pos.data()).ok());
  }
  // Llama 3.1's scaling (factor 8, low 1, high 4) over an original context of 256 tokens, so
  // that with head_dim 64 pairs fall on each side of the ramp and inside it.
  RopeParams rope() const {
    RopeParams r{.style = RopeStyle::half, .theta = 10000.f};
    if (GetParam().llama3)
      r.llama3 = {.factor = 8,
                  .low_freq_factor = 1,
                  .high_freq_factor = 4,
                  .original_max_position_embeddings = 256};
    return r;
  }
};

TEST_P(CudaAttention, DecodeMatchesReference) {
  const AttnCase& c = GetParam();
  PagedKvPool cpu;
  DevicePagedKv gpu;
  std::uint32_t cs = 0, gs = 0;
  Fill(&cpu, &gpu, &cs, &gs);
  const std::uint32_t hq = c.kv_heads * c.group, d = c.head_dim, n = c.tokens;
  const auto q = fixture_values(std::uint64_t{hq} * d, 33);
  std::vector<float> out_ref(std::uint64_t{hq} * d), probs_ref(std::uint64_t{hq} * n);
  DecodeAttentionParams p{.kv = cpu.view(cs, 0),
                          .num_q_heads = hq,
                          .q = q.data(),
                          .out = out_ref.data(),
                          .probs = probs_ref.data(),
                          .rope = rope(),
                          .positions = c.positions};
  ASSERT_TRUE(decode_attention_ref(p).ok());
  // Device-resident cache and buffers.
  DeviceBuffer<float> d_q(q), d_out(out_ref.size()), d_probs(probs_ref.size());
  DecodeAttentionParams dp = p;
  dp.kv = gpu.view(gs, 0);
  dp.q = d_q.ptr;
  dp.out = d_out.ptr;
  dp.probs = d_probs.ptr;
  const Status s = decode_attention_cuda(dp);
  ASSERT_TRUE(s.ok()) << s.message;
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const auto out = d_out.host(), probs = d_probs.host();
  EXPECT_FALSE(testing::any_nan(out));
  EXPECT_GT(testing::norm2(out), 0.0);
  EXPECT_LT(testing::nmse(out, out_ref), testing::kAttentionNmse);
  EXPECT_LT(testing::nmse(probs, probs_ref), testing::kAttentionNmse);
  // The CPU pool's host view, staged by the launcher, gives the same answer.
  std::vector<float> out_host(out_ref.size());
  p.out = out_host.data();
  p.probs = nullptr;
  ASSERT_TRUE(decode_attention_cuda(p).ok());
  EXPECT_LT(testing::nmse(out_host, out_ref), testing::kAttentionNmse);
}

TEST_P(CudaAttention, PrefillWindowMatchesReference) {
  const AttnCase& c = GetParam();
  PagedKvPool cpu;
  DevicePagedKv gpu;
  std::uint32_t cs = 0, gs = 0;
  Fill(&cpu, &gpu, &cs, &gs);
  const std::uint32_t hq = c.kv_heads * c.group, d = c.head_dim, n = c.tokens;
  const std::uint32_t w = std::min(n, 8u);
  const auto q = fixture_values(std::uint64_t{w} * hq * d, 34);
  std::vector<std::int32_t> qpos(w);
  for (std::uint32_t i = 0; i < w; ++i) qpos[i] = static_cast<std::int32_t>(3 * (n - w + i) + 1);
  if (w > 1) qpos[0] -= 2;  // one query sees one token fewer: exercises the causal mask
  std::vector<float> out_ref(std::uint64_t{w} * hq * d), probs_ref(std::uint64_t{hq} * w * n);
  PrefillAttentionParams p{.kv = cpu.view(cs, 0),
                           .num_q_heads = hq,
                           .num_queries = w,
                           .q = q.data(),
                           .q_positions = qpos.data(),
                           .out = out_ref.data(),
                           .probs = probs_ref.data(),
                           .rope = rope(),
                           .positions = c.positions};
  ASSERT_TRUE(prefill_attention_ref(p).ok());
  std::vector<float> out(out_ref.size()), probs(probs_ref.size());
  PrefillAttentionParams dp = p;
  dp.kv = gpu.view(gs, 0);
  dp.out = out.data();
  dp.probs = probs.data();
  const Status s = prefill_attention_cuda(dp);
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_FALSE(testing::any_nan(out));
  EXPECT_GT(testing::norm2(out), 0.0);
  EXPECT_LT(testing::nmse(out, out_ref), testing::kAttentionNmse);
  EXPECT_LT(testing::nmse(probs, probs_ref), testing::kAttentionNmse);
}

std::vector<AttnCase> attn_cases() {
  std::vector<AttnCase> v;
  for (const char* f : {"fp16", "fp8", "int8", "kivi:bits=2,group=32,residual=128",
                        "kivi:bits=4,group=32,residual=128"})
    for (std::uint32_t n : {1u, 37u, 1000u}) {
      v.push_back({f, 16, 2, 4, 128, n, PositionMode::original});
      v.push_back({f, 3, 1, 1, 64, n, PositionMode::original});
    }
  v.push_back({"fp16", 17, 2, 8, 64, 300, PositionMode::cache});
  v.push_back({"fp16", 17, 2, 8, 64, 300, PositionMode::cache, true});
  v.push_back({"int8", 3, 1, 4, 64, 37, PositionMode::cache, true});
  v.push_back({"bf16", 1, 4, 2, 96, 129, PositionMode::original});
  v.push_back({"fp32", 16, 1, 16, 256, 5000, PositionMode::original});
  // Shapes of the vectorized decode kernel's other paths: bf16, fp32 and fp8 e5m2 rows, int8
  // with a group of 8 and one lane per channel chunk of a 256-wide head, KIVI at 8 bits (two code
  // words per lane), and a KIVI residual of 40 tokens with groups of 8, whose quantized / fp16
  // boundary falls inside a 32-token tile for the keys too.
  v.push_back({"bf16", 16, 2, 2, 128, 300, PositionMode::original});
  v.push_back({"fp32", 5, 2, 8, 64, 129, PositionMode::original});
  v.push_back({"fp8_e5m2", 16, 1, 4, 64, 77, PositionMode::original});
  v.push_back({"int8", 16, 1, 8, 256, 100, PositionMode::original});
  v.push_back({"kivi:bits=8,group=32,residual=64", 16, 2, 4, 64, 300, PositionMode::original});
  v.push_back({"kivi:bits=4,group=8,residual=40", 16, 2, 4, 64, 1000, PositionMode::original});
  // Small heads: 1, 2 and 4 lanes per row (32, 16 and 8 tokens per load step).
  v.push_back({"fp16", 16, 2, 4, 8, 200, PositionMode::original});
  v.push_back({"fp8", 16, 2, 2, 16, 200, PositionMode::original});
  v.push_back({"kivi:bits=2,group=8,residual=16", 16, 2, 4, 32, 200, PositionMode::original});
  return v;
}
INSTANTIATE_TEST_SUITE_P(Caches, CudaAttention, ::testing::ValuesIn(attn_cases()), attn_name);

TEST_F(CudaTest, DecodeBatchOfDifferentLengthsMatchesReference) {
  const PoolConfig cfg{.format = parse_kv_format("fp8"),
                       .num_layers = 1,
                       .num_kv_heads = 2,
                       .head_dim = 64,
                       .block_size = 16,
                       .k_scale = 0.02f,
                       .v_scale = 0.02f};
  DevicePagedKv gpu;
  PagedKvPool cpu;
  ASSERT_TRUE(gpu.init(cfg).ok());
  ASSERT_TRUE(cpu.init(cfg).ok());
  const std::uint32_t hq = 8, d = 64;
  std::vector<DecodeAttentionParams> batch;
  std::vector<std::unique_ptr<DeviceBuffer<float> > > bufs;
  std::vector<std::vector<float> > refs;
  std::vector<std::uint32_t> seqs;
  for (std::uint32_t i = 0; i < 19; ++i) {  // more than one launch's worth (16)
    const std::uint32_t n = 1 + 97 * i;
    const std::uint32_t gs = gpu.add_sequence(), cs = cpu.add_sequence();
    const auto k = fixture_values(std::uint64_t{n} * 2 * d, 40 + i),
               v = fixture_values(std::uint64_t{n} * 2 * d, 80 + i);
    ASSERT_TRUE(gpu.append_tokens(gs, 0, n, k.data(), v.data()).ok());
    ASSERT_TRUE(cpu.append_tokens(cs, 0, n, k.data(), v.data()).ok());
    const auto q = fixture_values(std::uint64_t{hq} * d, 120 + i);
    refs.emplace_back(std::uint64_t{hq} * d);
    DecodeAttentionParams r{
        .kv = cpu.view(cs, 0), .num_q_heads = hq, .q = q.data(), .out = refs.back().data()};
    ASSERT_TRUE(decode_attention_ref(r).ok());
    bufs.push_back(std::make_unique<DeviceBuffer<float> >(q));
    bufs.push_back(std::make_unique<DeviceBuffer<float> >(std::uint64_t{hq} * d));
    seqs.push_back(gs);
  }
  // Views only after the last append: an append may grow (move) the device arenas.
  for (std::size_t i = 0; i < seqs.size(); ++i)
    batch.push_back({.kv = gpu.view(seqs[i], 0),
                     .num_q_heads = hq,
                     .q = bufs[2 * i]->ptr,
                     .out = bufs[2 * i + 1]->ptr});
  const Status s =
      decode_attention_batch_cuda(batch.data(), static_cast<std::uint32_t>(batch.size()));
  ASSERT_TRUE(s.ok()) << s.message;
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (std::size_t i = 0; i < batch.size(); ++i)
    EXPECT_LT(testing::nmse(bufs[2 * i + 1]->host(), refs[i]), testing::kAttentionNmse)
        << "sequence " << i;
}

// One launch over sequences of different head dims and plain formats: each block reads its own
// sequence's geometry and format (the vectorized kernel's batch handling).
TEST_F(CudaTest, DecodeBatchOfMixedShapesMatchesReference) {
  struct Seq {
    const char* format;
    std::uint32_t head_dim, n;
  };
  const Seq seqs[] = {{"fp16", 128, 300}, {"fp8", 64, 77}, {"bf16", 32, 500}, {"int8", 64, 33}};
  std::vector<std::unique_ptr<PagedKvPool> > cpus;
  std::vector<std::unique_ptr<DevicePagedKv> > gpus;
  std::vector<DecodeAttentionParams> batch;
  std::vector<std::unique_ptr<DeviceBuffer<float> > > bufs;
  std::vector<std::vector<float> > refs;
  const std::uint32_t hkv = 2, hq = 8;
  for (std::uint32_t i = 0; i < 4; ++i) {
    const Seq& q = seqs[i];
    const PoolConfig cfg{.format = parse_kv_format(q.format),
                         .num_layers = 1,
                         .num_kv_heads = hkv,
                         .head_dim = q.head_dim,
                         .block_size = 16,
                         .k_scale = 0.02f,
                         .v_scale = 0.02f};
    cpus.push_back(std::make_unique<PagedKvPool>());
    gpus.push_back(std::make_unique<DevicePagedKv>());
    ASSERT_TRUE(cpus.back()->init(cfg).ok());
    ASSERT_TRUE(gpus.back()->init(cfg).ok());
    const std::uint32_t cs = cpus.back()->add_sequence(), gs = gpus.back()->add_sequence();
    const auto k = fixture_values(std::uint64_t{q.n} * hkv * q.head_dim, 200 + i),
               v = fixture_values(std::uint64_t{q.n} * hkv * q.head_dim, 210 + i);
    ASSERT_TRUE(cpus.back()->append_tokens(cs, 0, q.n, k.data(), v.data()).ok());
    ASSERT_TRUE(gpus.back()->append_tokens(gs, 0, q.n, k.data(), v.data()).ok());
    const auto qv = fixture_values(std::uint64_t{hq} * q.head_dim, 220 + i);
    refs.emplace_back(std::uint64_t{hq} * q.head_dim);
    DecodeAttentionParams r{.kv = cpus.back()->view(cs, 0),
                            .num_q_heads = hq,
                            .q = qv.data(),
                            .out = refs.back().data()};
    ASSERT_TRUE(decode_attention_ref(r).ok());
    bufs.push_back(std::make_unique<DeviceBuffer<float> >(qv));
    bufs.push_back(std::make_unique<DeviceBuffer<float> >(std::uint64_t{hq} * q.head_dim));
    batch.push_back({.kv = gpus.back()->view(gs, 0),
                     .num_q_heads = hq,
                     .q = bufs[2 * i]->ptr,
                     .out = bufs[2 * i + 1]->ptr});
  }
  const Status s = decode_attention_batch_cuda(batch.data(), 4);
  ASSERT_TRUE(s.ok()) << s.message;
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (std::size_t i = 0; i < 4; ++i)
    EXPECT_LT(testing::nmse(bufs[2 * i + 1]->host(), refs[i]), testing::kAttentionNmse)
        << seqs[i].format;
}

// ---------------------------------------------------------------- eviction

struct EvictCase {
  std::uint32_t kv_heads, group, tokens;
  GqaReduce gqa;
  std::uint64_t budget;
  float levels;  // scores rounded to 1/levels: many exact ties
};
std::string evict_name(const ::testing::TestParamInfo<EvictCase>& i) {
  const EvictCase& c = i.param;
  const char* g = c.gqa == GqaReduce::sum ? "sum" : c.gqa == GqaReduce::mean ? "mean" : "max";
  return "Hkv" + std::to_string(c.kv_heads) + "_G" + std::to_string(c.group) + "_n" +
         std::to_string(c.tokens) + "_" + g + "_budget" + std::to_string(c.budget) +
         (c.levels > 0 ? "_ties" : "_noties");
}

std::vector<float> probs_fixture(std::uint64_t rows, std::uint32_t n, std::uint64_t seed,
                                 float levels) {
  auto x = fixture_values(rows * n, seed);
  for (float& v : x) {
    v = std::fabs(v) / static_cast<float>(n);
    if (levels > 0) v = std::round(v * n * levels) / (n * levels);
  }
  return x;
}

void expect_same_keep(const KeepSet& a, const KeepSet& b) {
  EXPECT_EQ(a.num_kv_heads, b.num_kv_heads);
  EXPECT_EQ(a.count, b.count);
  EXPECT_EQ(a.slots, b.slots);
  EXPECT_EQ(a.positions, b.positions);
}

class CudaEviction : public CudaParamTest<EvictCase> {
 protected:
  std::vector<std::int32_t> Positions() const {
    const EvictCase& c = GetParam();
    std::vector<std::int32_t> pos(std::uint64_t{c.kv_heads} * c.tokens);
    for (std::uint32_t h = 0; h < c.kv_heads; ++h)
      for (std::uint32_t t = 0; t < c.tokens; ++t)
        pos[std::uint64_t{h} * c.tokens + t] = static_cast<std::int32_t>(5 * t + h);
    return pos;
  }
};

TEST_P(CudaEviction, H2oScoresAndSelectionMatchReference) {
  const EvictCase& c = GetParam();
  const std::uint32_t hq = c.kv_heads * c.group, n = c.tokens;
  const auto pos = Positions();
  std::vector<float> want(std::uint64_t{c.kv_heads} * n, 0.f), got = want;
  for (std::uint32_t step = 0; step < 3; ++step) {
    const auto probs = probs_fixture(hq, n, 50 + step, c.levels);
    H2oAccumulateParams a{.num_q_heads = hq,
                          .num_kv_heads = c.kv_heads,
                          .num_tokens = n,
                          .probs = probs.data(),
                          .scores = want.data(),
                          .gqa = c.gqa};
    ASSERT_TRUE(h2o_accumulate_ref(a).ok());
    a.scores = got.data();
    ASSERT_TRUE(h2o_accumulate_cuda(a).ok());
  }
  EXPECT_EQ(first_bit_difference(got, want), -1);
  H2oSelectParams sp{.num_kv_heads = c.kv_heads,
                     .num_tokens = n,
                     .scores = want.data(),
                     .positions = pos.data(),
                     .positions_stride = n,
                     .heavy = c.budget / 2,
                     .recent = c.budget - c.budget / 2};
  KeepSet ref, dev;
  ASSERT_TRUE(h2o_select_ref(sp, &ref).ok());
  const Status s = h2o_select_cuda(sp, &dev);
  ASSERT_TRUE(s.ok()) << s.message;
  expect_same_keep(dev, ref);
  // Device-resident scores and positions select the same.
  DeviceBuffer<float> d_scores(want);
  DeviceBuffer<std::int32_t> d_pos(pos);
  sp.scores = d_scores.ptr;
  sp.positions = d_pos.ptr;
  ASSERT_TRUE(h2o_select_cuda(sp, &dev).ok());
  expect_same_keep(dev, ref);
}

TEST_P(CudaEviction, SnapKvVotesPoolingAndSelectionMatchReference) {
  const EvictCase& c = GetParam();
  const std::uint32_t hq = c.kv_heads * c.group, n = c.tokens, w = std::min(n, 8u);
  const auto pos = Positions();
  const auto probs = probs_fixture(std::uint64_t{hq} * w, n, 60, c.levels);
  for (PoolKind pool : {PoolKind::max, PoolKind::avg}) {
    std::vector<float> pooled_ref(std::uint64_t{c.kv_heads} * n), pooled(pooled_ref.size());
    SnapKvSelectParams sp{.num_q_heads = hq,
                          .num_kv_heads = c.kv_heads,
                          .num_tokens = n,
                          .num_queries = w,
                          .probs = probs.data(),
                          .positions = pos.data(),
                          .positions_stride = n,
                          .budget = c.budget,
                          .kernel = 7,
                          .pool = pool,
                          .gqa = c.gqa,
                          .pooled = pooled_ref.data()};
    KeepSet ref, dev;
    ASSERT_TRUE(snapkv_select_ref(sp, &ref).ok());
    sp.pooled = pooled.data();
    const Status s = snapkv_select_cuda(sp, &dev);
    ASSERT_TRUE(s.ok()) << s.message;
    EXPECT_EQ(first_bit_difference(pooled, pooled_ref), -1);
    expect_same_keep(dev, ref);
  }
}

TEST_P(CudaEviction, StreamingMatchesReference) {
  const EvictCase& c = GetParam();
  const auto pos = Positions();
  StreamingSelectParams sp{.num_kv_heads = c.kv_heads,
                           .num_tokens = c.tokens,
                           .positions = pos.data(),
                           .positions_stride = c.tokens,
                           .sink = 4,
                           .window = c.budget};
  KeepSet ref, dev;
  ASSERT_TRUE(streaming_select_ref(sp, &ref).ok());
  ASSERT_TRUE(streaming_select_cuda(sp, &dev).ok());
  expect_same_keep(dev, ref);
}

std::vector<EvictCase> evict_cases() {
  std::vector<EvictCase> v;
  for (GqaReduce g : {GqaReduce::sum, GqaReduce::mean, GqaReduce::max})
    for (float levels : {0.f, 4.f}) {
      v.push_back({2, 4, 300, g, 64, levels});
      v.push_back({1, 1, 17, g, 5, levels});
    }
  v.push_back({8, 4, 4096, GqaReduce::sum, 1024, 8.f});
  v.push_back({2, 2, 40, GqaReduce::sum, 100, 0.f});  // budget larger than the sequence
  v.push_back({3, 1, 2000, GqaReduce::max, 1, 2.f});
  return v;
}
INSTANTIATE_TEST_SUITE_P(Policies, CudaEviction, ::testing::ValuesIn(evict_cases()), evict_name);

// ---------------------------------------------------------------- no device

TEST(CudaRuntime, AvailabilityNeverThrowsAndExplainsItself) {
  std::string why;
  const bool ok = cuda_available(&why);
  EXPECT_TRUE(ok || !why.empty());
  EXPECT_FALSE(cuda_device_summary().empty());
}

}  // namespace
}  // namespace kvplan::kernels
