// The sim-to-real workloads (tests/data/sim2real/workloads/) generate what inference-perf sent:
// the numbers below are the published profiles' (inference-sim/training@ed5c1d26,
// default_args/<run>/results/config.yaml), not kvplan's output.
//
//   general: 8 req/s x 600 s + 20 req/s x 600 s = 4800 + 12000 = 16800 requests, each
//   100 (system prompt) + 447 (question) = 547 prompt tokens and 248 output tokens, drawn from
//   10 groups x 10 prompts that recur every 100 requests.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "kvplan/sim/workload.hpp"

namespace {

namespace fs = std::filesystem;
using kvplan::sim::load_workload;

struct Class {
  std::uint64_t requests, system, question, output;
  std::size_t stages;
};

// The four inference-perf workload classes (tests/data/sim2real/README.md, from config.yaml).
const std::map<std::string, Class>& classes() {
  static const std::map<std::string, Class> k = {
      {"general", {8 * 600 + 20 * 600, 100, 447, 248, 2}},
      {"codegen", {5 * 600 + 10 * 600, 100, 466, 247, 2}},
      {"roleplay", {6 * 1200, 150, 600, 251, 1}},
      {"reasoning", {4 * 1200, 100, 934, 1448, 1}},
  };
  return k;
}

std::string class_of(const std::string& stem) {
  for (const char* c : {"general", "codegen", "roleplay", "reasoning"})
    if (stem.find(std::string("-") + c) != std::string::npos) return c;
  return "";
}

TEST(Sim2RealWorkloads, EachGeneratesItsInferencePerfProfile) {
  const fs::path dir = fs::path(KVPLAN_TEST_DATA_DIR) / "sim2real" / "workloads";
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string stem = entry.path().stem().string();
    SCOPED_TRACE(stem);
    const std::string cls = class_of(stem);
    ASSERT_FALSE(cls.empty());
    const Class& want = classes().at(cls);
    const auto w = load_workload(entry.path().string(), 1);
    ++files;
    EXPECT_EQ(w.stages.size(), want.stages);
    // Poisson arrivals: the count varies by about sqrt(n); inference-perf sends exactly n.
    const double n = static_cast<double>(want.requests);
    EXPECT_LT(std::abs(static_cast<double>(w.requests.size()) - n), 5 * std::sqrt(n));
    std::set<std::uint64_t> prefixes, questions;
    for (const auto& r : w.requests) {
      ASSERT_EQ(r.prompt.size(), 2u);
      EXPECT_EQ(r.prompt[0].tokens, want.system);
      EXPECT_EQ(r.prompt[1].tokens, want.question);
      EXPECT_EQ(r.prompt_tokens, want.system + want.question);
      EXPECT_EQ(r.output_tokens, want.output);
      EXPECT_EQ(r.after, -1);  // no multi-turn: that inference-perf ignored the profile's flag
      prefixes.insert(r.prompt[0].content);
      questions.insert(r.prompt[1].content);
    }
    // 10 groups x 10 prompts: the defaults the run fell back to.
    EXPECT_EQ(prefixes.size(), 10u);
    EXPECT_EQ(questions.size(), 100u);
  }
  // 27 test, 6 train and 15 extra runs have a published workload class.
  EXPECT_EQ(files, 48u);
}

}  // namespace
