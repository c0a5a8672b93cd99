// Classes of defect the held-out adversarial set (scripts/adversarial.py, "held-out set (stop 35)")
// found, one rule each:
// - a Hugging Face config.json with a UTF-8 BOM: Python's json.loads, which transformers uses,
//   refuses it, so no engine loads the checkpoint;
// - a weights file a model directory names that is there but is no regular file (a folder) is a
//   broken checkpoint, not a missing download.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "kvplan/error.hpp"
#include "kvplan/model.hpp"
#include "temp_dir.hpp"

namespace kvplan {
namespace {

namespace fs = std::filesystem;

std::string llama_config() {
  std::ifstream in(std::string(KVPLAN_TEST_DATA_DIR) + "/hf/llama-3.1-8b.json");
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::string refusal(const std::string& model) {
  try {
    load_model(model);
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2);
    return e.what();
  }
  return "";
}

TEST(TrustHeldOut, AConfigJsonWithABomIsRefusedAsTransformersRefusesIt) {
  test::TempDir d;
  write(d.file("m/config.json"), "\xEF\xBB\xBF" + llama_config());
  const std::string e = refusal(d.file("m"));
  EXPECT_NE(e.find("config.json"), std::string::npos) << e;
  EXPECT_NE(e.find("byte-order mark"), std::string::npos) << e;
  // The same text without the BOM, and with CRLF line ends (JSON whitespace), loads.
  std::string crlf;
  for (char c : llama_config()) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  write(d.file("m/config.json"), crlf);
  EXPECT_EQ(load_model(d.file("m")).layers.size(), 32u);
}

TEST(TrustHeldOut, AWeightsFileThatIsAFolderIsRefusedNotSkipped) {
  test::TempDir d;
  write(d.file("m/config.json"), llama_config());
  fs::create_directories(d.file("m/shard.safetensors"));
  write(d.file("m/model.safetensors.index.json"),
        R"({"metadata": {"total_size": 16}, "weight_map": {"a": "shard.safetensors"}})");
  std::string e = refusal(d.file("m"));
  EXPECT_NE(e.find("shard.safetensors"), std::string::npos) << e;
  EXPECT_NE(e.find("not a readable regular file"), std::string::npos) << e;
  // A single model.safetensors that is a folder, the same.
  fs::remove(d.file("m/model.safetensors.index.json"));
  fs::remove(d.file("m/shard.safetensors"));
  fs::create_directories(d.file("m/model.safetensors"));
  e = refusal(d.file("m"));
  EXPECT_NE(e.find("model.safetensors"), std::string::npos) << e;
}

}  // namespace
}  // namespace kvplan
