// Inputs the fuzz targets of the HF config and model-directory readers (fuzz/fuzz_hf_config.cpp,
// fuzz/fuzz_model_dir.cpp) crashed on, each refused now with kvplan::Error naming the file and the
// field. The same inputs are seeds in fuzz/corpus/<target>/regress-*.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "kvplan/error.hpp"
#include "kvplan/model.hpp"

namespace {

nlohmann::json hf(const std::string& name) {
  std::ifstream in(std::string(KVPLAN_TEST_DATA_DIR) + "/hf/" + name + ".json");
  std::stringstream s;
  s << in.rdbuf();
  return nlohmann::json::parse(s.str());
}

// parse_model_json must refuse with kvplan::Error whose message holds `field`.
void expect_refused(const nlohmann::json& j, const std::string& field) {
  try {
    (void)kvplan::parse_model_json(j.dump(), "config.json");
    ADD_FAILURE() << "accepted: " << j.dump().substr(0, 200);
  } catch (const kvplan::Error& e) {
    EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
  }
}

nlohmann::json compressed_tensors(const nlohmann::json& weights) {
  auto j = hf("qwen3-8b");
  j["quantization_config"] = {{"quant_method", "compressed-tensors"},
                              {"config_groups", {{"group_0", {{"weights", weights}}}}}};
  return j;
}

}  // namespace

// rows · cols of 2^32 · 2^32 wrapped to 0, so the fp8 block scales were infinite bytes per weight
// and the weight bytes a NaN cast to an integer (UBSan: float-cast-overflow).
TEST(FuzzRegression, Fp8WeightBlockSizeProductCannotWrap) {
  auto j = hf("qwen3-235b-a22b-fp8");
  j["quantization_config"]["weight_block_size"] = {4294967296ull, 4294967296ull};
  expect_refused(j, "/quantization_config/weight_block_size");
  j["quantization_config"]["weight_block_size"] = {65537, 1};
  expect_refused(j, "/quantization_config/weight_block_size");
  j["quantization_config"]["weight_block_size"] = {65536, 65536};
  EXPECT_NO_THROW((void)kvplan::parse_model_json(j.dump(), "config.json"));
}

// compressed-tensors weights were read with nlohmann's value(), which threw type_error (an
// internal error, exit 3) on a field of the wrong type.
TEST(FuzzRegression, CompressedTensorsFieldsOfTheWrongTypeAreRefused) {
  expect_refused(compressed_tensors({{"num_bits", "4"}}), "/weights/num_bits");
  expect_refused(compressed_tensors({{"num_bits", 4}, {"type", 3}}), "/weights/type");
  expect_refused(compressed_tensors({{"num_bits", 4}, {"strategy", "group"}, {"group_size", "x"}}),
                 "/weights/group_size");
  expect_refused(compressed_tensors({{"num_bits", 4}, {"symmetric", "no"}}), "/weights/symmetric");
}

// A group_size of 0 (or negative) gave infinite or negative bytes per weight.
TEST(FuzzRegression, CompressedTensorsGroupSizeMustBePositive) {
  expect_refused(compressed_tensors({{"num_bits", 4}, {"strategy", "group"}, {"group_size", 0}}),
                 "/weights/group_size");
  expect_refused(compressed_tensors({{"num_bits", 4}, {"strategy", "group"}, {"group_size", -1}}),
                 "/weights/group_size");
  const auto m = kvplan::parse_model_json(
      compressed_tensors({{"num_bits", 4}, {"strategy", "group"}, {"group_size", 32}}).dump(),
      "config.json");
  EXPECT_GT(m.weights.bytes, 0u);
}
