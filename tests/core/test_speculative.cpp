// Speculative decoding on engine command lines: which layers then hold a cache.
// vLLM: --speculative-config (JSON, or dotted --speculative-config.KEY VALUE; vLLM's
// SpeculativeConfig.hf_config_override sets n_predict = num_nextn_predict_layers for MTP);
// SGLang: --speculative-algorithm (NEXTN runs the checkpoint's MTP layers; EAGLE / EAGLE3 a draft
// head, on DeepSeek its NextN layers).
#include <gtest/gtest.h>

#include <string>

#include "kvplan/deploy.hpp"
#include "kvplan/engine_args.hpp"
#include "kvplan/error.hpp"
#include "kvplan/gpu.hpp"
#include "kvplan/model.hpp"

namespace kvplan {
namespace {

TEST(Speculative, VllmJsonAndDottedForms) {
  const auto json = parse_engine_command(
      Engine::vllm,
      R"(vllm serve deepseek-ai/DeepSeek-V3 --speculative-config '{"method": "deepseek_mtp", "num_speculative_tokens": 1}')",
      "--vllm");
  EXPECT_EQ(json.speculative_method.value_or(""), "deepseek_mtp");
  EXPECT_EQ(json.speculative_tokens.value_or(0), 1u);
  const auto dotted = parse_engine_command(
      Engine::vllm, "vllm serve deepseek-ai/DeepSeek-V3 --speculative-config.method mtp", "--vllm");
  EXPECT_EQ(dotted.speculative_method.value_or(""), "mtp");
  EXPECT_TRUE(dotted.unknown.empty());
  const auto sglang = parse_engine_command(Engine::sglang,
                                           "python -m sglang.launch_server --model-path "
                                           "deepseek-ai/DeepSeek-V3 --speculative-algorithm NEXTN",
                                           "--sglang");
  EXPECT_EQ(sglang.speculative_method.value_or(""), "nextn");
  EXPECT_THROW(
      parse_engine_command(Engine::vllm, "vllm serve m --speculative-config '{not json'", "--vllm"),
      Error);
  // num_speculative_tokens is bounded as in the dotted form (a value past 2^32 wrapped); a
  // string that is no whole number is refused (pydantic's lax mode takes "3" as 3).
  for (const char* n : {"0", "-1", "4294967297", "\"three\""})
    EXPECT_THROW(
        parse_engine_command(Engine::vllm,
                             std::string("vllm serve m --speculative-config "
                                         "'{\"method\": \"mtp\", \"num_speculative_tokens\": ") +
                                 n + "}'",
                             "--vllm"),
        Error)
        << n;
}

TEST(Speculative, MtpLayersOnlyWhenRequested) {
  const auto v3 = load_model("deepseek-v3");  // num_nextn_predict_layers 1
  const auto none = parse_engine_command(Engine::vllm, "vllm serve deepseek-ai/DeepSeek-V3", "s");
  EXPECT_EQ(speculative_draft_layers(none, v3), 0u);
  const auto mtp = parse_engine_command(
      Engine::vllm, "vllm serve deepseek-ai/DeepSeek-V3 --speculative-config.method mtp", "s");
  EXPECT_EQ(speculative_draft_layers(mtp, v3), 1u);
  const auto ngram = parse_engine_command(
      Engine::vllm, R"(vllm serve m --speculative-config '{"method": "ngram"}')", "s");
  EXPECT_EQ(speculative_draft_layers(ngram, v3), 0u);
  // MTP on a model without MTP layers is refused, naming the model.
  const auto llama = load_model("llama-3.1-8b");
  try {
    speculative_draft_layers(mtp, llama);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ships no MTP layers"), std::string::npos) << e.what();
  }
  const auto eagle = parse_engine_command(
      Engine::vllm,
      R"(vllm serve meta-llama/Llama-3.1-8B-Instruct --speculative-config '{"model": "yuhuili/EAGLE-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3}')",
      "s");
  std::string note;
  EXPECT_EQ(speculative_draft_layers(eagle, llama, &note), 1u);
  EXPECT_NE(note.find("EAGLE"), std::string::npos) << note;
}

// vLLM reuses MTP layers across speculative tokens and refuses a count above n_predict that is
// not a multiple of it (SpeculativeConfig.__post_init__, vllm/config/speculative.py@002e77c1:
// "num_speculative_tokens:3 must be divisible by n_predict=2"). A checkpoint with two MTP layers
// (DeepSeek-V3's geometry, num_nextn_predict_layers 2): 1, 2 and 4 tokens start, 3 does not.
TEST(Speculative, MtpTokensBeyondTheLayersAreAMultipleOfThem) {
  auto two = load_model("deepseek-v3");
  two.mtp_layers = 2;
  auto with = [](const std::string& k) {
    return parse_engine_command(
        Engine::vllm,
        R"(vllm serve deepseek-ai/DeepSeek-V3 --speculative-config '{"method": "mtp", "num_speculative_tokens": )" +
            k + "}'",
        "s");
  };
  for (const char* k : {"1", "2", "4"}) EXPECT_EQ(speculative_draft_layers(with(k), two), 2u) << k;
  try {
    speculative_draft_layers(with("3"), two);
    ADD_FAILURE() << "3 tokens over 2 MTP layers started";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "num_speculative_tokens");
    EXPECT_NE(std::string(e.what()).find("must be divisible by n_predict=2"), std::string::npos)
        << e.what();
    EXPECT_EQ(e.exit_code(), 2);
  }
}

TEST(Speculative, DeploymentFromTheCommandLineCountsTheMtpLayer) {
  const auto gpu = load_gpu("h200-141gb");
  const auto plain = parse_engine_command(
      Engine::vllm,
      "vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 8 --max-model-len 32768",
      "--vllm");
  const auto mtp = parse_engine_command(
      Engine::vllm,
      "vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 8 --max-model-len 32768 "
      "--speculative-config.method deepseek_mtp",
      "--vllm");
  const auto a = deploy_from_engine(plain, gpu, 0, "", "--vllm");
  const auto b = deploy_from_engine(mtp, gpu, 0, "", "--vllm");
  EXPECT_EQ(a.plan.draft_layers, 0u);
  EXPECT_EQ(b.plan.draft_layers, 1u);
  EXPECT_EQ(a.model.id, "deepseek-ai/DeepSeek-V3");  // named as given, not "deepseek-v3"
  // 61 vs 62 MLA layers in one pool: the MTP run holds 61/62 of the blocks.
  const auto ca = plan_capacity(a.model, a.plan), cb = plan_capacity(b.model, b.plan);
  EXPECT_EQ(ca.stages[0].cached_layers, 61u);
  EXPECT_EQ(cb.stages[0].cached_layers, 62u);
}

}  // namespace
}  // namespace kvplan
