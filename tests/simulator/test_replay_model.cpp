// The reference model in the loop: KL, top-1, perplexity and bytes for several configurations.
#ifdef KVPLAN_HAVE_CUDA
#include "kvplan/kernels/cuda.hpp"
#endif
#include <gtest/gtest.h>

#include <cmath>

#include "kvplan/error.hpp"
#include "kvplan/sim/replay.hpp"
#include "test_model_dir.hpp"

namespace kvplan::sim {
namespace {

struct Fixture {
  Llama2cModel model = Llama2cModel::load(test::checkpoint_path());
  Tokenizer tok = Tokenizer::load(test::tokenizer_path(), model.config().vocab_size);
  std::vector<std::int32_t> tokens;
  Fixture() {
    Llama2cRunner run(model);
    ReferenceAttention cache(model);
    // A sampled story (T = 1): varied enough that every policy loses something.
    tokens = generate(run, cache, tok, {.prompt = "", .steps = 200, .temperature = 1.0f, .seed = 7})
                 .tokens;
  }
};

const Fixture& fixture() {
  static const Fixture f;
  return f;
}

TEST(ReplayModel, KernelFullCacheMatchesThePlainReferenceForward) {
  KVPLAN_REQUIRE_MODEL();
  const auto& f = fixture();
  const auto& c = f.model.config();
  Llama2cRunner a(f.model), b(f.model);
  ReferenceAttention plain(f.model);
  KernelAttention kern(parse_config("fp32", "full", 16), c.n_layers, c.n_heads, c.n_kv_heads,
                       c.head_size(), f.model.rope());
  double worst = 0;
  for (std::uint64_t t = 0; t < f.tokens.size(); ++t) {
    const auto la = a.forward(f.tokens[t], t, plain);
    const std::vector<float> ref(la.begin(), la.end());
    const auto lb = b.forward(f.tokens[t], t, kern);
    for (std::size_t i = 0; i < ref.size(); ++i)
      worst = std::max(worst,
                       static_cast<double>(std::fabs(ref[i] - lb[i])) / (1.0 + std::fabs(ref[i])));
  }
  EXPECT_LT(worst, 1e-4) << "kernel fp32 full cache drifts from llama2.c's forward";
}

TEST(ReplayModel, GreedyThroughTheKernelCacheReproducesTheText) {
  KVPLAN_REQUIRE_MODEL();
  const auto& f = fixture();
  const auto& c = f.model.config();
  Llama2cRunner run(f.model);
  KernelAttention kern(parse_config("fp32", "full", 16), c.n_layers, c.n_heads, c.n_kv_heads,
                       c.head_size(), f.model.rope());
  const auto g = generate(run, kern, f.tok, {.prompt = "", .steps = 60});
  EXPECT_EQ(g.text.rfind("Once upon a time, there was a little girl named Lily.", 0), 0u) << g.text;
}

TEST(ReplayModel, EveryConfigurationReportsKlAndExactBytes) {
  KVPLAN_REQUIRE_MODEL();
  const auto& f = fixture();
  const std::vector<ReplayConfig> cfgs = {
      parse_config("fp32", "full", 16),                                // 0: exact
      parse_config("fp16", "full", 16),                                // 1: nearly exact
      parse_config("fp16", "streaming:sink=0,window=32", 16),          // 2: sliding window
      parse_config("fp16", "streaming:sink=4,window=28", 7),           // 3: sink + window
      parse_config("fp16", "h2o:heavy=16,recent=16", 16),              // 4: H2O
      parse_config("fp16", "snapkv:budget=24,window=8,kernel=5", 16),  // 5: SnapKV
      parse_config("kivi:bits=2,group=8,residual=32", "full", 16),     // 6: KIVI-2bit
      parse_config("kivi:bits=2,group=8,residual=16", "snapkv:budget=24,window=8", 3),    // 7
      parse_config("int8", "streaming:sink=4,window=28,positions=cache", 1),              // 8
      parse_config("kivi:bits=2,group=8,residual=16", "streaming:sink=4,window=28", 16),  // 9
      parse_config("kivi:bits=4,group=8,residual=8", "h2o:heavy=16,recent=16", 5),        // 10
  };
  ReplayOptions opt;
  opt.eval_from = 64;
  const auto rep = replay_model(f.model, f.tokens, cfgs, opt);
  ASSERT_EQ(rep.configs.size(), cfgs.size());
  EXPECT_EQ(rep.prefill, 64u);
  EXPECT_TRUE(std::isfinite(rep.baseline_perplexity));
  for (const auto& r : rep.configs) {
    SCOPED_TRACE(r.label);
    EXPECT_TRUE(r.bytes_match) << "first mismatch at step " << r.first_mismatch_step
                               << ": predicted " << r.predicted_bytes << " measured "
                               << r.measured_bytes;
    EXPECT_EQ(r.predicted_bytes, r.measured_bytes);
    EXPECT_EQ(r.predicted_peak_bytes, r.measured_peak_bytes);
    EXPECT_GT(r.measured_bytes, 0u);
    EXPECT_TRUE(std::isfinite(r.mean_kl));
    EXPECT_TRUE(std::isfinite(r.perplexity));
    EXPECT_GE(r.top1_agreement, 0.0);
    EXPECT_LE(r.top1_agreement, 1.0);
    EXPECT_EQ(r.layer_rel_error.size(), 5u);
  }
  EXPECT_EQ(rep.configs[0].mean_kl, 0.0) << "fp32 + full must follow the full-cache run exactly";
  EXPECT_EQ(rep.configs[0].top1_agreement, 1.0);
  EXPECT_EQ(rep.configs[0].perplexity, rep.baseline_perplexity);
  EXPECT_GT(rep.configs[1].mean_kl, 0.0);
  EXPECT_LT(rep.configs[1].mean_kl, 1e-4);
  for (std::size_t i = 2; i < rep.configs.size(); ++i) {
    SCOPED_TRACE(rep.configs[i].label);
    EXPECT_GT(rep.configs[i].mean_kl, 0.0);
    EXPECT_GT(rep.configs[i].rel_error, 0.0);
  }
  // Evicting policies lose attention mass; full caches keep all of it.
  EXPECT_NEAR(rep.configs[1].attention_mass, 1.0, 1e-6);
  EXPECT_LT(rep.configs[2].attention_mass, 1.0);
  EXPECT_EQ(rep.configs[2].retained_tokens, 32u);
  EXPECT_EQ(rep.configs[4].retained_tokens, 32u);
}

TEST(ReplayModel, RefusesWhatTheKernelsCannotDo) {
  KVPLAN_REQUIRE_MODEL();
  const auto& f = fixture();
  EXPECT_THROW(replay_model(f.model, f.tokens,
                            {parse_config("kivi:bits=2,group=32,residual=32", "full", 16)}),
               Error);  // group must divide head_size 8
  ReplayOptions late;
  late.eval_from = 100000;
  EXPECT_THROW(replay_model(f.model, f.tokens, {parse_config("fp16", "full", 16)}, late), Error);
}

// STYLE.md rule 18: the same replay through the CPU and the CUDA kernels must hold the same bytes
// and give the same outputs to float tolerance. Without a GPU, --backend cuda is refused clearly.
TEST(ReplayModel, CudaBackendCoSimulatesWithCpuOrIsRefused) {
  KVPLAN_REQUIRE_MODEL();
  const auto& f = fixture();
  const std::vector<ReplayConfig> configs = {
      parse_config("fp16", "full", 16), parse_config("int8", "h2o:heavy=16,recent=16", 16),
      parse_config("kivi:bits=2,group=8,residual=32", "full", 16)};
  ReplayOptions cuda;
  cuda.backend = kernels::Backend::cuda;
  bool gpu = false;
#ifdef KVPLAN_HAVE_CUDA
  std::string why;
  gpu = kernels::cuda_available(&why);
#endif
  if (!gpu) {
    try {
      replay_model(f.model, f.tokens, configs, cuda);
      ADD_FAILURE() << "--backend cuda ran without a GPU";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("cuda"), std::string::npos) << e.what();
    }
    return;
  }
  const auto cpu = replay_model(f.model, f.tokens, configs);
  const auto dev = replay_model(f.model, f.tokens, configs, cuda);
  ASSERT_EQ(cpu.configs.size(), dev.configs.size());
  for (std::size_t i = 0; i < cpu.configs.size(); ++i) {
    const auto& a = cpu.configs[i];
    const auto& b = dev.configs[i];
    SCOPED_TRACE(a.label);
    EXPECT_TRUE(b.bytes_match) << "first mismatch at step " << b.first_mismatch_step;
    EXPECT_EQ(a.measured_bytes, b.measured_bytes);
    EXPECT_EQ(a.measured_peak_bytes, b.measured_peak_bytes);
    EXPECT_EQ(a.retained_tokens, b.retained_tokens);
    EXPECT_NEAR(a.mean_kl, b.mean_kl, 1e-3);
    EXPECT_NEAR(a.perplexity, b.perplexity, 1e-2 * a.perplexity);
  }
}

}  // namespace
}  // namespace kvplan::sim
