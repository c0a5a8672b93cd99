// kvplan replay --probe: the probe beside the replay in the report (JSON and table), its flags'
// errors (exit 2 naming the flag), on stories260K (skipped where it is absent).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_run.hpp"

namespace {

using CliRun = kvplan::test::CliRun;

CliRun kvplan(const std::string& args) { return kvplan::test::run_kvplan(args); }

std::string model_dir() {
  const char* e = std::getenv("KVPLAN_TEST_MODEL_DIR");
  return e && *e ? e : KVPLAN_TEST_MODEL_DIR_DEFAULT;
}

#define REQUIRE_STORIES()                                                                   \
  do {                                                                                      \
    if (!std::filesystem::exists(model_dir() + "/stories260K.bin"))                         \
      GTEST_SKIP() << "stories260K not found in " << model_dir()                            \
                   << " (set KVPLAN_TEST_MODEL_DIR to the folder holding stories260K.bin)"; \
  } while (0)

std::string model_args() {
  return "replay --checkpoint '" + model_dir() + "/stories260K.bin' --tokenizer '" + model_dir() +
         "/tok512.bin' --steps 40 ";
}

TEST(CliProbe, NeedleBesideTheReplayInJson) {
  REQUIRE_STORIES();
  // Needle of 8 at depth 0.25 of 128 filler tokens: positions 33..40; the question ends at
  // P = 1 + 128 + 8 + 2 - 1 = 138. A window of 32 keeps 107..138 (and sinks 0..3): no needle token.
  const CliRun r = kvplan(model_args() +
                          "--probe needle --probe-span 8 --probe-cue 2 --probe-filler 128 "
                          "--probe-depth 0.25 --probe-prompts 2 --policy full "
                          "streaming:sink=4,window=32 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["configs"].size(), 2u);
  EXPECT_EQ(j["configs"][0]["probe_needle_kept"], 1.0);
  EXPECT_EQ(j["configs"][1]["probe_needle_kept"], 0.0);
  EXPECT_EQ(j["configs"][1]["probe_needle_mass"], 0.0);
  const auto& p = j["probe"];
  EXPECT_EQ(p["probe"], "needle");
  EXPECT_EQ(p["prompt_tokens"], 139);
  ASSERT_EQ(p["results"].size(), 3u);  // fp32 | full first
  EXPECT_EQ(p["results"][0]["label"], "fp32 | full | S=16");
  EXPECT_EQ(p["results"][0]["layer_retained"].size(), 5u);  // stories260K: 5 layers
  // Where the model cannot do the task its accuracies are null beside the replay.
  if (!p["model_can_do"].get<bool>()) {
    EXPECT_TRUE(j["configs"][1]["probe_accuracy"].is_null());
  }
}

TEST(CliProbe, CopyTableCarriesTheVerdict) {
  REQUIRE_STORIES();
  const CliRun r = kvplan(model_args() +
                          "--probe copy --probe-span 8 --probe-cue 2 --probe-filler 32 "
                          "--probe-prompts 2 --probe-filler-kind random");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("copy probe (2 prompts, seed 1)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("copy acc"), std::string::npos) << r.out;
}

TEST(CliProbe, BadProbeFlagsAreUsageErrors) {
  REQUIRE_STORIES();
  CliRun r = kvplan(model_args() + "--probe recall");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--probe"), std::string::npos) << r.err;
  r = kvplan(model_args() + "--probe copy --probe-filler-kind lorem");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--probe-filler-kind"), std::string::npos) << r.err;
  r = kvplan(model_args() + "--probe copy --probe-span 8 --probe-cue 8");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("cue"), std::string::npos) << r.err;
  // stories260K's context is 512: 1 + 16 + 600 + 16 tokens do not fit.
  r = kvplan(model_args() + "--probe copy --probe-filler 600");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("filler"), std::string::npos) << r.err;
}

TEST(CliProbe, AProbeNeedsTheModelNotATrace) {
  const CliRun r = kvplan("replay --trace /nonexistent.safetensors --probe copy");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--probe"), std::string::npos) << r.err;
}

// A Hugging Face model directory brings its own tokenizer.json: replay needs no --tokenizer
// (sim::tokenizer_for), and a llama2.c checkpoint without one is refused naming the flag.
TEST(CliReplay, HuggingFaceDirectoryNeedsNoTokenizer) {
  const char* e = std::getenv("KVPLAN_TEST_HF_MODEL_DIR");
  const std::string hf = e && *e ? e : KVPLAN_TEST_HF_MODEL_DIR_DEFAULT;
  if (!std::filesystem::exists(hf + "/tokenizer.json"))
    GTEST_SKIP() << "tinystories-656k not found in " << hf
                 << " (set KVPLAN_TEST_HF_MODEL_DIR to the model directory)";
  const auto r = kvplan("replay --checkpoint '" + hf +
                        "' --prompt 'Once upon a time' --steps 24 --kv-dtype fp16 --policy full "
                        "--format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_FALSE(j["configs"].empty());
  EXPECT_TRUE(j["configs"][0]["bytes_match"].get<bool>());
  REQUIRE_STORIES();
  const auto bad = kvplan("replay --checkpoint '" + model_dir() + "/stories260K.bin' --steps 8");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--tokenizer"), std::string::npos) << bad.err;
}

}  // namespace
