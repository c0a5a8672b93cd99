// vLLM's --speculative-config read as vLLM validates it (issue 30): SpeculativeConfig is a
// pydantic dataclass (vllm/config/speculative.py at
// vllm-project/vllm@002e77c1f0ef9b19cff8b9e21cfbd6feb3d6b443), so an unknown key is a
// validation error (extra="forbid", vllm-project/vllm#31541) and each field has a type, validated
// in pydantic's lax mode (null only where the field is Optional). The dotted form
// --speculative-config.KEY VALUE is the same object, the value read as JSON where it is JSON
// (vllm/utils/argparse_utils.py, FlexibleArgumentParser).
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "error_message.hpp"
#include "kvplan/engine_args.hpp"
#include "kvplan/error.hpp"

namespace kvplan {
namespace {

EngineArgs vllm(const std::string& line) {
  return parse_engine_command(Engine::vllm, line, "--vllm");
}

std::string message(const std::function<void()>& f) { return test::error_message(f); }

std::string json_flag(const std::string& json) {
  return "vllm serve m --speculative-config '" + json + "'";
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(SpeculativeConfig, EveryRealFieldIsAccepted) {
  const EngineArgs a = vllm(json_flag(
      R"({"method": "eagle3", "model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B",
          "num_speculative_tokens": 3, "draft_tensor_parallel_size": 1, "max_model_len": 2048,
          "quantization": null, "revision": "main", "code_revision": null,
          "enforce_eager": true, "disable_padded_drafter_batch": false,
          "prompt_lookup_max": 5, "prompt_lookup_min": 2, "parallel_drafting": false,
          "suffix_decoding_max_tree_depth": 24, "suffix_decoding_max_spec_factor": 1,
          "suffix_decoding_min_token_prob": 0.1, "rejection_sample_method": "standard",
          "draft_sample_method": "greedy", "synthetic_acceptance_rates": null,
          "num_speculative_tokens_per_batch_size": [[1, 8, 3]], "draft_load_config": null})"));
  EXPECT_EQ(a.speculative_method.value_or(""), "eagle3");
  EXPECT_EQ(a.speculative_tokens.value_or(0), 3u);
}

// Types follow pydantic's lax mode, its default (docs.pydantic.dev/latest/concepts/
// conversion_table/): "3" and 3.0 are the int 3, "yes" and 1 the bool true, true the int 1;
// 3.5, "three", 2 for a bool and a number for a str are refused.
TEST(SpeculativeConfig, TypesFollowPydanticsLaxMode) {
  for (const std::string& json :
       {std::string(R"({"method": "ngram", "num_speculative_tokens": "3"})"),
        std::string(R"({"method": "ngram", "num_speculative_tokens": 3.0})"),
        std::string(R"({"method": "ngram", "num_speculative_tokens": " 3 "})")}) {
    EXPECT_EQ(vllm(json_flag(json)).speculative_tokens.value_or(0), 3u) << json;
  }
  EXPECT_NO_THROW(vllm(json_flag(R"({"method": "ngram", "enforce_eager": "yes"})")));
  EXPECT_NO_THROW(vllm(json_flag(R"({"method": "ngram", "parallel_drafting": 1})")));
  EXPECT_NO_THROW(vllm(json_flag(R"({"method": "ngram", "prompt_lookup_max": true})")));
  EXPECT_NO_THROW(
      vllm(json_flag(R"({"method": "suffix", "suffix_decoding_max_spec_factor": "2"})")));
  for (const std::string& json :
       {std::string(R"({"method": "ngram", "num_speculative_tokens": 3.5})"),
        std::string(R"({"method": "ngram", "num_speculative_tokens": "3.0"})"),
        std::string(R"({"method": "ngram", "enforce_eager": "sure"})"),
        std::string(R"({"method": "ngram", "parallel_drafting": 2})"),
        std::string(R"({"method": "ngram", "prompt_lookup_max": false})"),  // 0 < ge=1
        std::string(R"({"method": 3})")}) {
    const std::string m = message([&] { vllm(json_flag(json)); });
    EXPECT_TRUE(has(m, "--speculative-config ")) << json << ": " << m;
  }
}

TEST(SpeculativeConfig, UnknownKeysAreRefusedNamingTheFlagAndTheKey) {
  const std::string m = message([] { vllm(json_flag(R"({"method": "ngram", "colour": 1})")); });
  EXPECT_TRUE(has(m, "--speculative-config colour")) << m;
  EXPECT_TRUE(has(m, "SpeculativeConfig")) << m;
  EXPECT_FALSE(has(m, "did you mean")) << m;
}

TEST(SpeculativeConfig, ATypoSuggestsTheRealKey) {
  for (const auto& [typo, real] :
       {std::pair<std::string, std::string>{"num_spec_tokens", "num_speculative_tokens"},
        {"num_speculative_token", "num_speculative_tokens"},
        {"draft-tensor-parallel-size", "draft_tensor_parallel_size"},
        {"modle", "model"},
        {"prompt_lookup_maximum", "prompt_lookup_max"}}) {
    const std::string m =
        message([&] { vllm(json_flag(R"({"method": "ngram", ")" + typo + R"(": 2})")); });
    EXPECT_TRUE(has(m, "--speculative-config " + typo)) << m;
    EXPECT_TRUE(has(m, "did you mean " + real + "?")) << m;
  }
}

TEST(SpeculativeConfig, WrongTypesAreRefusedNamingTheKey) {
  for (const auto& [json, key] : {
           std::pair<std::string, std::string>{R"({"model": 7})", "model"},
           {R"({"revision": true})", "revision"},
           {R"({"num_speculative_tokens": 2.5})", "num_speculative_tokens"},
           {R"({"num_speculative_tokens": 0})", "num_speculative_tokens"},
           {R"({"num_speculative_tokens": null})", "num_speculative_tokens"},
           {R"({"num_speculative_tokens": "two"})", "num_speculative_tokens"},
           {R"({"draft_tensor_parallel_size": 0})", "draft_tensor_parallel_size"},
           {R"({"prompt_lookup_max": [4]})", "prompt_lookup_max"},
           {R"({"enforce_eager": "maybe"})", "enforce_eager"},
           {R"({"parallel_drafting": 2})", "parallel_drafting"},
           {R"({"parallel_drafting": null})", "parallel_drafting"},
           {R"({"suffix_decoding_min_token_prob": "low"})", "suffix_decoding_min_token_prob"},
           {R"({"synthetic_acceptance_rates": 0.5})", "synthetic_acceptance_rates"},
           {R"({"draft_load_config": "fast"})", "draft_load_config"},
       }) {
    const std::string m = message([&] { vllm(json_flag(json)); });
    EXPECT_TRUE(has(m, "--speculative-config " + key)) << json << ": " << m;
  }
}

// --speculative-config.KEY VALUE: the value is JSON where it parses (3, null, true), a string
// otherwise, and the key is checked like a JSON key.
TEST(SpeculativeConfig, DottedKeysAreCheckedLikeJsonKeys) {
  const EngineArgs a = vllm(
      "vllm serve m --speculative-config.method eagle --speculative-config.model x/y "
      "--speculative-config.num_speculative_tokens 4 --speculative-config.enforce_eager true");
  EXPECT_EQ(a.speculative_method.value_or(""), "eagle");
  EXPECT_EQ(a.speculative_model.value_or(""), "x/y");
  EXPECT_EQ(a.speculative_tokens.value_or(0), 4u);
  std::string m = message([] { vllm("vllm serve m --speculative-config.num_spec_tokens 4"); });
  EXPECT_TRUE(has(m, "--speculative-config.num_spec_tokens")) << m;
  EXPECT_TRUE(has(m, "did you mean num_speculative_tokens?")) << m;
  // 5 is JSON: an int, and model is a string (pydantic does not make an int a string).
  m = message([] { vllm("vllm serve m --speculative-config.model 5"); });
  EXPECT_TRUE(has(m, "must be a string")) << m;
  m = message([] { vllm("vllm serve m --speculative-config.num_speculative_tokens 0"); });
  EXPECT_TRUE(has(m, "num_speculative_tokens")) << m;
  m = message([] { vllm("vllm serve m --speculative-config.bogus.inner 1"); });
  EXPECT_TRUE(has(m, "bogus")) << m;
}

// kvplan's own bound on the draft tokens a step holds (docs/limits.md).
TEST(SpeculativeConfig, TokensPast1024AreRefused) {
  const std::string m =
      message([] { vllm(json_flag(R"({"method": "ngram", "num_speculative_tokens": 1025})")); });
  EXPECT_TRUE(has(m, "between 1 and 1024")) << m;
}

}  // namespace
}  // namespace kvplan
