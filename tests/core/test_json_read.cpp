// Core's JSON reading, through the public readers: dialects (kvplan's strict formats, Hugging Face
// config.json as Python reads it), duplicate keys, nesting and size limits, regular files only.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <string>

#include "kvplan/deploy.hpp"
#include "kvplan/error.hpp"
#include "kvplan/gpu.hpp"
#include "kvplan/model.hpp"
#include "temp_dir.hpp"

namespace kvplan {
namespace {

// A kvplan format (a GPU file): strict RFC 8259.
std::string gpu_error(const std::string& text) {
  try {
    parse_gpu_json(text, "f.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::string model_error(const std::string& text) {
  try {
    parse_model_json(text, "config.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Llama-3.1-8B's published config.json with `extra` spliced in after the opening brace.
std::string llama_config(const std::string& extra) {
  std::ifstream in(std::string(KVPLAN_TEST_DATA_DIR) + "/hf/llama-3.1-8b.json");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  text.insert(text.find('{') + 1, extra);
  return text;
}

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(JsonRead, DuplicateKeysAreRefusedInKvplanFormats) {
  EXPECT_EQ(gpu_error(R"({"a": 1, "b": {"c": 1, "c": 2}})"),
            "f.json: /b/c: duplicate key \"c\" (each key may appear once in an object)");
  EXPECT_EQ(gpu_error(R"({"l": [{"x": 1}, {"x": 2, "x": 3}]})"),
            "f.json: /l/1/x: duplicate key \"x\" (each key may appear once in an object)");
  EXPECT_EQ(gpu_error(R"({"a/b": {"~": 1, "~": 1}})"),
            "f.json: /a~1b/~0: duplicate key \"~\" (each key may appear once in an object)");
  // the same key in sibling objects is fine (the GPU schema refuses the file for other reasons)
  EXPECT_FALSE(has(gpu_error(R"({"a": {"x": 1}, "b": {"x": 1}, "c": [{"x": 1}, {"x": 2}]})"),
                   "duplicate key"));
}

TEST(JsonRead, HfConfigsWarnOnDuplicatesAndKeepTheLastLikePython) {
  const ModelSpec m = parse_model_json(llama_config(R"("num_hidden_layers": 3,)"), "config.json");
  EXPECT_EQ(m.layers.size(), 32u);  // the file's own value, which comes last
  ASSERT_EQ(m.warnings.size(), 1u);
  EXPECT_EQ(m.warnings[0],
            "config.json: /num_hidden_layers: duplicate key; its last value is used (as Python's "
            "json does)");
}

TEST(JsonRead, HfConfigsReadInfinityAndNaNLikePython) {
  EXPECT_EQ(model_error(llama_config(
                R"("a": Infinity, "b": -Infinity, "c": NaN, "d": [1, Infinity], "s": "NaN",)")),
            "");
  // Python refuses these too
  for (const char* bad : {R"("a": +Infinity,)", R"("a": -NaN,)", R"("a": infinity,)",
                          R"("a": Infinityx,)", R"("a": - Infinity,)"})
    EXPECT_TRUE(has(model_error(llama_config(bad)), "invalid JSON")) << bad;
  // the one-character strings used inside are not confused with a real one
  EXPECT_TRUE(has(model_error(llama_config(R"("a": Infinity, "b": "\u0001",)")), "invalid JSON"));
  EXPECT_EQ(model_error(llama_config(R"("b": "\u0001",)")), "");
}

TEST(JsonRead, KvplanFormatsRefuseInfinityAndNaN) {
  for (const char* bad : {R"({"a": Infinity})", R"({"a": -Infinity})", R"({"a": NaN})"})
    EXPECT_TRUE(has(gpu_error(bad), "f.json: invalid JSON: parse error")) << bad;
}

TEST(JsonRead, ModelFilesPickTheirDialectByTheirSchema) {
  // a kvplan model file stays strict ...
  EXPECT_TRUE(has(model_error(R"({"kvplan_model": 1, "x": Infinity})"), "invalid JSON"));
  EXPECT_TRUE(has(model_error(R"({"kvplan_model": 1, "x": 1, "x": 2})"), "/x: duplicate key"));
  // ... a Hugging Face config is read as Python reads it
  EXPECT_EQ(model_error(llama_config(R"("time_step_limit": [0.0, Infinity],)")), "");
}

TEST(JsonRead, NestingAndValueCountAreBounded) {
  EXPECT_TRUE(has(gpu_error(std::string(100000, '[')), "nested deeper than 256 levels"));
  std::string many = "[";
  for (int i = 0; i < (1 << 20) + 1; ++i) many += "0,";
  many += "0]";
  EXPECT_TRUE(has(gpu_error(many), "more than 1048576 values"));
  EXPECT_TRUE(has(model_error(many), "more than 1048576 values"));
}

TEST(JsonRead, OnlyRegularFilesAreRead) {
  kvplan::test::TempDir dir;
  const std::string fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto what = [](auto&& load) {
    try {
      load();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(what([&] { load_model(fifo); }),
            fifo + ": cannot read model file: a FIFO, not a regular file");
  EXPECT_EQ(what([&] { load_deploy(dir.path().string()); }),
            dir.path().string() + ": cannot read deployment file: a directory, not a regular file");
  EXPECT_EQ(what([] { load_model("/dev/null"); }),
            "/dev/null: cannot read model file: a character device, not a regular file");
}

}  // namespace
}  // namespace kvplan
