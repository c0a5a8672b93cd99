// validate_deployment_shape and validate_sequence_flags: the one place where TP × PP × DP, GPUs,
// block sizes and the generate/replay flags are checked. Expected products by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "kvplan/model.hpp"
#include "kvplan/validate.hpp"
#include "model_shapes.hpp"

namespace kvplan {
namespace {

ModelSpec plain(std::uint32_t layers, std::uint32_t q, std::uint32_t kv) {
  return test::full_attention_model("test", layers, q, kv, 64);
}

bool has(const std::vector<Problem>& ps, const std::string& field, const std::string& phrase) {
  for (const auto& p : ps)
    if (p.field == field && p.message.find(phrase) != std::string::npos) return true;
  return false;
}

TEST(ValidateShape, ValidShapesHaveNoProblem) {
  const auto m = plain(32, 32, 8);
  EXPECT_TRUE(validate_deployment_shape({}, &m).empty());
  // TP 16 > 8 KV heads: heads replicate (16 % 8 == 0); 32 % 16 == 0.
  EXPECT_TRUE(validate_deployment_shape({.tp = 16, .pp = 2, .dp = 4, .gpus = 128}, &m).empty());
  EXPECT_EQ(shape_gpus({.tp = 16, .pp = 2, .dp = 4}), 128u);  // 16 · 2 · 4
  EXPECT_EQ(shape_gpus({.tp = 2, .pp = 1}), 2u);
  // Every bound reached exactly is still valid: 64 · 32 · 32 = 65536 GPUs.
  const auto wide = plain(4096, 4096, 4096);
  EXPECT_TRUE(validate_deployment_shape(
                  {.tp = 64, .pp = 32, .dp = 32, .block_size = 1u << 20, .draft_layers = 64}, &wide)
                  .empty());
}

TEST(ValidateShape, ProductOf4096CubedIsOverTheLimitNotZero) {
  // 4096³ = 2^36 = 68719476736; in 32 bits it is 0 (2^36 mod 2^32).
  const auto wide = plain(4096, 4096, 4096);
  const auto ps = validate_deployment_shape({.tp = 4096, .pp = 4096, .dp = 4096}, &wide,
                                            engine_flag_names(Engine::vllm));
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_EQ(ps[0].field, "--data-parallel-size");
  EXPECT_NE(ps[0].message.find("68719476736 GPUs, over the limit of 65536"), std::string::npos)
      << ps[0].message;
  // Without DP: 4096 · 4096 = 16777216 GPUs.
  const auto pp = validate_deployment_shape({.tp = 4096, .pp = 4096}, &wide, deploy_file_names());
  EXPECT_TRUE(has(pp, "/engine/tensor_parallel_size", "16777216 GPUs")) << pp.size();
}

TEST(ValidateShape, EveryProblemAtOnce) {
  const auto m = plain(32, 32, 8);
  const auto ps = validate_deployment_shape({.tp = 3,
                                             .pp = 64,
                                             .gpus = 0,
                                             .block_size = 0,
                                             .context = 0,
                                             .concurrency = 0,
                                             .draft_layers = 65},
                                            &m, cli_flag_names());
  EXPECT_TRUE(has(ps, "--tp", "does not fit the 32 attention heads and 8 KV heads")) << ps.size();
  EXPECT_TRUE(has(ps, "--pp", "pipeline parallelism 64 exceeds the 32 layers"));
  EXPECT_TRUE(has(ps, "--gpus", "must be between 1 and 65536 GPUs, got 0"));
  EXPECT_TRUE(has(ps, "--block-size", "must be between 1 and 1048576 tokens, got 0"));
  EXPECT_TRUE(has(ps, "--context", "got 0"));
  EXPECT_TRUE(has(ps, "--concurrency", "got 0"));
  EXPECT_TRUE(has(ps, "--draft-layers", "must be between 0 and 64 layers, got 65"));
  EXPECT_EQ(ps.size(), 7u);
}

TEST(ValidateShape, GpusMustBeWholeReplicasAndAgreeWithDp) {
  const auto m = plain(32, 32, 8);
  // 6 GPUs of TP 4: 6 % 4 = 2.
  EXPECT_TRUE(has(validate_deployment_shape({.tp = 4, .gpus = 6}, &m), "gpus",
                  "6 GPUs are not a whole number of replicas of TP 4 × PP 1 = 4 GPUs"));
  // TP 2 × DP 2 = 4, but 8 GPUs given.
  EXPECT_TRUE(has(validate_deployment_shape({.tp = 2, .dp = 2, .gpus = 8}, &m), "gpus",
                  "8 GPUs disagree with TP × PP × DP = 2 × 1 × 2 = 4"));
  EXPECT_TRUE(validate_deployment_shape({.tp = 2, .dp = 2, .gpus = 4}, &m).empty());
  // Model-free (the GUI's settings): only the bounds and the products.
  EXPECT_TRUE(validate_deployment_shape({.tp = 3, .gpus = 3}, nullptr).empty());
  EXPECT_FALSE(validate_deployment_shape({.tp = 4097}, nullptr).empty());
}

TEST(ValidateShape, PlanInputUsesTheSameRules) {
  const auto m = plain(32, 32, 8);
  PlanInput in;
  in.tp = 2;
  in.gpus = 3;  // not whole replicas of 2
  in.context = 8192;
  EXPECT_TRUE(has(validate_plan_input(&m, in), "gpus", "3 GPUs are not a whole number"));
  in.gpus = 0;  // one replica
  EXPECT_TRUE(validate_plan_input(&m, in).empty());
  in.context = 0;
  EXPECT_TRUE(has(validate_plan_input(&m, in), "context", "got 0"));
}

TEST(ValidateSequenceFlags, TemperaturePrefillEvalFrom) {
  EXPECT_TRUE(validate_sequence_flags({.temperature = 0.0}).empty());
  EXPECT_TRUE(validate_sequence_flags({.temperature = 1e-6}).empty());
  EXPECT_TRUE(validate_sequence_flags({.temperature = 1e6}).empty());
  // 1e-40: a logit of 1 divided by it is 1e40 > FLT_MAX (3.4e38): inf - inf = NaN.
  EXPECT_TRUE(has(validate_sequence_flags({.temperature = 1e-40}), "--temperature", "overflow"));
  EXPECT_FALSE(validate_sequence_flags({.temperature = -1.0}).empty());
  EXPECT_FALSE(validate_sequence_flags({.temperature = std::nan("")}).empty());
  // prefill in [1, tokens]; unknown tokens: only >= 1.
  EXPECT_TRUE(validate_sequence_flags({.prefill = 1000}).empty());
  EXPECT_FALSE(validate_sequence_flags({.prefill = 0}).empty());
  EXPECT_TRUE(validate_sequence_flags({.prefill = 30, .tokens = 30}).empty());
  EXPECT_TRUE(has(validate_sequence_flags({.prefill = 31, .tokens = 30}), "--prefill",
                  "must be in [1, 30]"));
  // eval_from below tokens (a trace scores its last position T - 1).
  EXPECT_TRUE(validate_sequence_flags({.eval_from = 2, .tokens = 3}).empty());
  EXPECT_TRUE(has(validate_sequence_flags({.eval_from = 3, .tokens = 3}), "--eval-from",
                  "3 leaves no position to score in 3 tokens"));
}

TEST(ValidateRopeTheta, Bounds) {
  EXPECT_TRUE(valid_rope_theta(10000));
  EXPECT_TRUE(valid_rope_theta(1));
  EXPECT_TRUE(valid_rope_theta(1e15));
  EXPECT_FALSE(valid_rope_theta(0.5));
  EXPECT_FALSE(valid_rope_theta(1e-300));
  EXPECT_FALSE(valid_rope_theta(1e16));
  EXPECT_FALSE(valid_rope_theta(std::nan("")));
}

}  // namespace
}  // namespace kvplan
