// The models of inference-sim's sim-to-real experiments (tests/data/sim2real/): every Hugging
// Face id the runs served is a preset that `--model` accepts, and the presets added for them hold
// the KV cache their published configs give, worked by hand below.
//
//   CodeLlama-34B: 2 (K, V) · 48 layers · 8 KV heads · 128 dims · 2 bytes = 196,608 B per token.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "kvplan/formula.hpp"
#include "kvplan/model.hpp"

namespace {

std::string data_path(const std::string& rel) {
  return std::string(KVPLAN_TEST_DATA_DIR) + "/" + rel;
}

// experiments.csv: model_hf -> model_preset, from the header's column names.
std::map<std::string, std::string> served_models() {
  std::ifstream in(data_path("sim2real/experiments.csv"));
  EXPECT_TRUE(in) << data_path("sim2real/experiments.csv");
  // RFC 4180 cells: a quoted cell may hold commas and doubled quotes (Python's csv writes those).
  auto split = [](const std::string& line) {
    std::vector<std::string> cells(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cells.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        cells.emplace_back();
      } else {
        cells.back() += c;
      }
    }
    return cells;
  };
  std::string line;
  std::getline(in, line);
  const auto header = split(line);
  std::size_t hf = header.size(), preset = header.size();
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == "model_hf") hf = i;
    if (header[i] == "model_preset") preset = i;
  }
  EXPECT_LT(hf, header.size());
  EXPECT_LT(preset, header.size());
  std::map<std::string, std::string> out;
  while (std::getline(in, line)) {
    const auto cells = split(line);
    EXPECT_EQ(cells.size(), header.size()) << line;
    if (cells.size() == header.size()) out[cells[hf]] = cells[preset];
  }
  return out;
}

std::uint64_t bytes_per_token(const kvplan::ModelSpec& m) {
  return kvplan::kv_cost(m, kvplan::KvCostInput{.context = 1,
                                                .batch = 1,
                                                .format = kvplan::parse_kv_format("bf16"),
                                                .policy = kvplan::parse_policy("full"),
                                                .block_size = 1,
                                                .tp = 1})
      .bytes_per_token;
}

TEST(Sim2RealModels, EveryServedModelIsAPresetByItsRepoId) {
  const auto models = served_models();
  // 13 distinct ids over the 66 runs: the 12 models, Mixtral-8x22B as base and Instruct.
  EXPECT_EQ(models.size(), 13u);
  for (const auto& [repo, preset] : models) {
    SCOPED_TRACE(repo);
    const auto m = kvplan::load_model(repo);
    EXPECT_EQ(m.preset, preset);
    EXPECT_EQ(m.id, repo);
  }
}

TEST(Sim2RealModels, NewPresetsByHand) {
  // codellama/CodeLlama-34b-Instruct-hf: 48 layers, 8 KV heads, head_dim 8192 / 64 = 128.
  const auto codellama = kvplan::load_model("codellama-34b");
  EXPECT_EQ(bytes_per_token(codellama), 2u * 48 * 8 * 128 * 2);
  EXPECT_EQ(bytes_per_token(codellama), 196608u);
  EXPECT_EQ(codellama.max_context, 16384u);
  // 01-ai/Yi-34B: 60 layers, 8 KV heads, head_dim 7168 / 56 = 128; 2 · 60 · 8 · 128 · 2.
  const auto yi = kvplan::load_model("yi-34b");
  EXPECT_EQ(bytes_per_token(yi), 245760u);
  EXPECT_EQ(yi.max_context, 4096u);
  // Mixtral-8x22B (base and Instruct): 56 layers, 8 KV heads, head_dim 6144 / 48 = 128;
  // 2 · 56 · 8 · 128 · 2 = 229,376.
  for (const char* id : {"mixtral-8x22b", "mixtral-8x22b-instruct"}) {
    SCOPED_TRACE(id);
    const auto m = kvplan::load_model(id);
    EXPECT_EQ(bytes_per_token(m), 229376u);
    EXPECT_EQ(m.max_context, 65536u);
  }
  // The two Mixtral-8x22B configs differ in vocabulary only (32000 vs 32768 entries), so the
  // Instruct model has (32768 - 32000) · 6144 · 2 (embedding and untied head) more parameters.
  EXPECT_EQ(kvplan::load_model("mixtral-8x22b-instruct").num_params -
                kvplan::load_model("mixtral-8x22b").num_params,
            768u * 6144 * 2);
}

}  // namespace
