// The Hugging Face hub cache says what is wrong (issue 30, class 6). huggingface_hub's layout
// (file_download.py): models--org--name/refs/main holds a commit hash, snapshots/<hash>/ holds
// links into blobs/. A folder for the repo that is broken is an Error naming the path and the
// fault, each fault in its own words; refs/main never leads outside snapshots/; a broken
// snapshot of a repo a preset stands for is an error, not the preset.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "kvplan/error.hpp"
#include "kvplan/model.hpp"
#include "temp_dir.hpp"

namespace kvplan {
namespace {

namespace fs = std::filesystem;

const fs::path kLlama = fs::path(KVPLAN_TEST_DATA_DIR) / "hf" / "llama-3.1-8b.json";

class HubCache : public ::testing::Test {
 protected:
  void SetUp() override { ::setenv("HF_HUB_CACHE", (dir_.path() / "hub").c_str(), 1); }
  void TearDown() override { ::unsetenv("HF_HUB_CACHE"); }
  // models--<org>--<name> with refs/main = rev and an empty snapshots/<rev>/.
  fs::path repo(const std::string& folder, const std::string& rev = "abc123") {
    const fs::path root = dir_.path() / "hub" / folder;
    fs::create_directories(root / "snapshots" / rev);
    fs::create_directories(root / "refs");
    fs::create_directories(root / "blobs");
    std::ofstream(root / "refs" / "main") << rev;
    return root;
  }
  std::string refusal(const std::string& ref) {
    try {
      load_model(ref);
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), 2);
      return e.what();
    }
    return "loaded";
  }
  test::TempDir dir_;
};

TEST_F(HubCache, RefsMainNeverLeadsOutsideTheCache) {
  const auto root = repo("models--acme--tiny");
  // A model directory outside the cache that "../../../outside" would reach.
  fs::create_directories(dir_.path() / "outside");
  fs::copy_file(kLlama, dir_.path() / "outside" / "config.json");
  for (const char* rev : {"../../../outside", "abc/../../..", "..", "a\\\\b"}) {
    std::ofstream(root / "refs" / "main", std::ios::trunc) << rev;
    const std::string m = refusal("acme/tiny");
    EXPECT_NE(m.find("refs/main: names the revision"), std::string::npos) << rev << ": " << m;
  }
}

TEST_F(HubCache, ASymlinkLoopADanglingBlobAndAFifoEachSayWhatTheyAre) {
  const auto snap = repo("models--acme--tiny") / "snapshots" / "abc123";
  fs::create_symlink("config.json", snap / "config.json");  // points at itself
  std::string m = refusal("acme/tiny");
  EXPECT_NE(m.find("config.json is a symlink loop"), std::string::npos) << m;
  fs::remove(snap / "config.json");
  fs::create_symlink("../../blobs/0123abcd", snap / "config.json");
  m = refusal("acme/tiny");
  EXPECT_NE(m.find("config.json is a dangling link to ../../blobs/0123abcd"), std::string::npos)
      << m;
  fs::remove(snap / "config.json");
  ASSERT_EQ(::mkfifo((snap / "config.json").c_str(), 0600), 0);
  m = refusal("acme/tiny");
  EXPECT_NE(m.find("config.json is a FIFO"), std::string::npos) << m;
  // A good config.json beside a dangling weights blob: the weights would be estimated silently.
  fs::remove(snap / "config.json");
  fs::copy_file(kLlama, snap / "config.json");
  fs::create_symlink("../../blobs/feedbeef", snap / "model.safetensors");
  m = refusal("acme/tiny");
  EXPECT_NE(m.find("model.safetensors is a dangling link"), std::string::npos) << m;
  fs::remove(snap / "model.safetensors");
  EXPECT_EQ(load_model("acme/tiny").layers.size(), 32u);  // repaired: it loads
}

TEST_F(HubCache, AnUnreadableSnapshotSaysSo) {
  if (::geteuid() == 0) GTEST_SKIP() << "running as root: file permissions do not stop reads";
  const auto snap = repo("models--acme--tiny") / "snapshots" / "abc123";
  fs::copy_file(kLlama, snap / "config.json");
  ASSERT_EQ(::chmod(snap.c_str(), 0), 0);
  const std::string m = refusal("acme/tiny");
  ::chmod(snap.c_str(), 0755);
  EXPECT_NE(m.find("permission denied"), std::string::npos) << m;
}

TEST_F(HubCache, ABrokenSnapshotOfAPresetsRepoIsAnErrorNotThePreset) {
  // Not in the cache: the preset stands for the repo (the behaviour kept).
  EXPECT_EQ(load_model("meta-llama/Llama-3.1-8B").preset, "llama-3.1-8b");
  // In the cache, with refs/main naming a snapshot that holds no config.json.
  repo("models--meta-llama--Llama-3.1-8B");
  std::string m = refusal("meta-llama/Llama-3.1-8B");
  EXPECT_NE(m.find("names revision abc123, but"), std::string::npos) << m;
  EXPECT_NE(m.find("holds no config.json"), std::string::npos) << m;
  // No refs/main and an empty snapshots/.
  const fs::path root = dir_.path() / "hub" / "models--meta-llama--Llama-3.1-8B";
  fs::remove_all(root / "refs");
  fs::remove_all(root / "snapshots" / "abc123");
  m = refusal("meta-llama/Llama-3.1-8B");
  EXPECT_NE(m.find("no usable snapshot (snapshots/ is empty)"), std::string::npos) << m;
  // No snapshots/ at all.
  fs::remove_all(root / "snapshots");
  m = refusal("meta-llama/Llama-3.1-8B");
  EXPECT_NE(m.find("snapshots: the hub cache holds meta-llama/Llama-3.1-8B, but snapshots/"),
            std::string::npos)
      << m;
}

}  // namespace
}  // namespace kvplan
