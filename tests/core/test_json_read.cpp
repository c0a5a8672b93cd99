// Core's JSON reading: dialects (kvplan's strict formats, Hugging Face config.json as Python reads
// it), duplicate keys, nesting and size limits, regular files only.
#include <sys/stat.h>

#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <vector>

#include "json_read.hpp"
#include "kvplan/error.hpp"
#include "temp_dir.hpp"

namespace kvplan::detail {
namespace {

std::string error_of(const std::string& text, JsonDialect d = JsonDialect::kvplan) {
  try {
    parse_json_text(text, "f.json", d);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(JsonRead, DuplicateKeysAreRefusedInKvplanFormats) {
  EXPECT_EQ(error_of(R"({"a": 1, "b": {"c": 1, "c": 2}})"),
            "f.json: /b/c: duplicate key \"c\" (each key may appear once in an object)");
  EXPECT_EQ(error_of(R"({"l": [{"x": 1}, {"x": 2, "x": 3}]})"),
            "f.json: /l/1/x: duplicate key \"x\" (each key may appear once in an object)");
  EXPECT_EQ(error_of(R"({"a/b": {"~": 1, "~": 1}})"),
            "f.json: /a~1b/~0: duplicate key \"~\" (each key may appear once in an object)");
  // the same key in sibling objects is fine
  EXPECT_EQ(error_of(R"({"a": {"x": 1}, "b": {"x": 1}, "c": [{"x": 1}, {"x": 2}]})"), "");
}

TEST(JsonRead, HfConfigsWarnOnDuplicatesAndKeepTheLastLikePython) {
  std::vector<std::string> w;
  const auto j = parse_json_text(R"({"model_type": "llama", "n": 1, "n": 2})", "config.json",
                                 JsonDialect::hf_config, &w);
  EXPECT_EQ(j["n"], 2);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0], "config.json: /n: duplicate key; its last value is used (as Python's json does)");
}

TEST(JsonRead, HfConfigsReadInfinityAndNaNLikePython) {
  const auto j = parse_json_text(
      R"({"a": Infinity, "b": -Infinity, "c": NaN, "d": [1, Infinity], "s": "NaN Infinity"})",
      "config.json", JsonDialect::hf_config);
  EXPECT_TRUE(std::isinf(j["a"].get<double>()) && j["a"].get<double>() > 0);
  EXPECT_TRUE(std::isinf(j["b"].get<double>()) && j["b"].get<double>() < 0);
  EXPECT_TRUE(std::isnan(j["c"].get<double>()));
  EXPECT_TRUE(std::isinf(j["d"][1].get<double>()));
  EXPECT_EQ(j["s"], "NaN Infinity");  // inside strings nothing changes
  // Python refuses these too
  for (const char* bad : {R"({"a": +Infinity})", R"({"a": -NaN})", R"({"a": infinity})",
                          R"({"a": Infinityx})", R"({"a": - Infinity})"})
    EXPECT_NE(error_of(bad, JsonDialect::hf_config).find("invalid JSON"), std::string::npos)
        << bad;
  // the one-character strings used inside are not confused with a real one
  EXPECT_NE(error_of(R"({"a": Infinity, "b": "\u0001"})", JsonDialect::hf_config)
                .find("invalid JSON"),
            std::string::npos);
  const auto k = parse_json_text(R"({"b": "\u0001"})", "c.json", JsonDialect::hf_config);
  EXPECT_EQ(k["b"], "\x01");
}

TEST(JsonRead, KvplanFormatsRefuseInfinityAndNaN) {
  for (const char* bad : {R"({"a": Infinity})", R"({"a": -Infinity})", R"({"a": NaN})"})
    EXPECT_NE(error_of(bad).find("f.json: invalid JSON: parse error"), std::string::npos) << bad;
}

TEST(JsonRead, ModelFilesPickTheirDialectByTheirSchema) {
  // a kvplan model file stays strict ...
  EXPECT_NE(error_of(R"({"kvplan_model": 1, "x": Infinity})", JsonDialect::model_file)
                .find("invalid JSON"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"kvplan_model": 1, "x": 1, "x": 2})", JsonDialect::model_file)
                .find("/x: duplicate key"),
            std::string::npos);
  // ... a Hugging Face config is read as Python reads it
  const auto j = parse_json_text(R"({"model_type": "nemotron_h", "time_step_limit": [0.0, Infinity]})",
                                 "config.json", JsonDialect::model_file);
  EXPECT_TRUE(std::isinf(j["time_step_limit"][1].get<double>()));
}

TEST(JsonRead, NestingAndValueCountAreBounded) {
  EXPECT_NE(error_of(std::string(100000, '[')).find("nested deeper than 256 levels"),
            std::string::npos);
  std::string many = "[";
  for (int i = 0; i < (1 << 20) + 1; ++i) many += "0,";
  many += "0]";
  EXPECT_NE(error_of(many).find("more than 1048576 values"), std::string::npos);
  EXPECT_NE(error_of(many, JsonDialect::hf_config).find("more than 1048576 values"),
            std::string::npos);
}

TEST(JsonRead, OnlyRegularFilesAreRead) {
  kvplan::test::TempDir dir;
  const std::string fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto what = [](const std::string& p) {
    try {
      read_text_file(p, "model file");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(what(fifo), fifo + ": cannot read model file: a FIFO, not a regular file");
  EXPECT_EQ(what(dir.path().string()),
            dir.path().string() + ": cannot read model file: a directory, not a regular file");
  EXPECT_EQ(what("/dev/null"), "/dev/null: cannot read model file: a character device, not a "
                               "regular file");
  std::ofstream(dir.file("ok.json")) << "{}";
  EXPECT_EQ(read_text_file(dir.file("ok.json")), "{}");
}

}  // namespace
}  // namespace kvplan::detail
