// check_output_path: an output never replaces an input (same inode after symlinks and hard
// links, or a file inside an input directory) and never a FIFO, device or directory.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "kvplan/error.hpp"
#include "kvplan/output_path.hpp"
#include "temp_dir.hpp"

namespace kvplan {
namespace {

namespace fs = std::filesystem;

void write(const std::string& p, const std::string& text) { std::ofstream(p) << text; }

// The Error's text, or "" when the call returned.
std::string refusal(const std::string& out, const std::vector<std::string>& in) {
  try {
    check_output_path(out, in, "--calibrate");
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2);
    return e.what();
  }
  return "";
}

TEST(OutputPath, DashIsStandardOutputAndANewFileIsFine) {
  test::TempDir d;
  write(d.file("log"), "x");
  EXPECT_TRUE(check_output_path("-", {d.file("log")}, "--calibrate"));
  EXPECT_FALSE(check_output_path(d.file("new.json"), {d.file("log")}, "--calibrate"));
  write(d.file("old.json"), "{}");  // an existing regular file that is no input: overwritten
  EXPECT_FALSE(check_output_path(d.file("old.json"), {d.file("log")}, "--calibrate"));
  // Inputs that are no files (a preset id) are skipped.
  EXPECT_FALSE(check_output_path(d.file("old.json"), {"llama-3.1-8b", ""}, "--calibrate"));
}

// Two outputs of one run on one new path (simulate --kv-series and --requests-out): the second
// write would replace the first, so the path is refused, through `..` and a symlinked folder too.
TEST(OutputPath, ANewPathSharedWithAnotherOutputIsRefused) {
  test::TempDir d;
  fs::create_directory(d.file("sub"));
  const std::string out = d.file("o.txt");
  EXPECT_NE(refusal(out, {out}).find("is also the path " + out), std::string::npos);
  EXPECT_NE(refusal(out, {d.file("sub") + "/../o.txt"}).find("is also the path"),
            std::string::npos);
  fs::create_directory_symlink(d.file("sub"), d.file("ln"));
  EXPECT_NE(refusal(d.file("sub") + "/x", {d.file("ln") + "/x"}).find("is also the path"),
            std::string::npos);
  EXPECT_EQ(refusal(out, {d.file("other.txt"), "llama-3.1-8b"}), "");
}

TEST(OutputPath, TheSameFileByAnyNameIsRefusedNamingBoth) {
  test::TempDir d;
  const std::string log = d.file("vllm.log");
  write(log, "INFO");
  const std::string e = refusal(log, {log});
  EXPECT_NE(e.find("--calibrate"), std::string::npos) << e;
  EXPECT_NE(e.find("same file as the input " + log), std::string::npos) << e;
  // Through a symlink, a hard link and a path with ./ in it: one inode.
  fs::create_symlink(log, d.file("link"));
  EXPECT_NE(refusal(d.file("link"), {log}).find("same file"), std::string::npos);
  EXPECT_NE(refusal(log, {d.file("link")}).find("same file"), std::string::npos);
  ASSERT_EQ(::link(log.c_str(), d.file("hard").c_str()), 0);
  EXPECT_NE(refusal(d.file("hard"), {log}).find("same file"), std::string::npos);
  EXPECT_NE(refusal((d.path() / "." / "vllm.log").string(), {log}).find("same file"),
            std::string::npos);
}

TEST(OutputPath, AFileInsideAnInputDirectoryIsRefused) {
  test::TempDir d;
  fs::create_directory(d.path() / "model");
  write(d.file("model/model.safetensors"), "weights");
  write(d.file("model/tokenizer.json"), "{}");
  const std::string e = refusal(d.file("model/tokenizer.json"), {d.file("model")});
  EXPECT_NE(e.find("same file as the input " + d.file("model/tokenizer.json")), std::string::npos)
      << e;
  // The directory itself is no regular file.
  EXPECT_NE(refusal(d.file("model"), {}).find("not a regular file (a directory"),
            std::string::npos);
}

TEST(OutputPath, FifosAndDevicesAreRefused) {
  test::TempDir d;
  ASSERT_EQ(::mkfifo(d.file("fifo").c_str(), 0600), 0);
  EXPECT_NE(refusal(d.file("fifo"), {})
                .find("cannot write: not a regular file (a FIFO, given to --calibrate)"),
            std::string::npos);
  EXPECT_NE(refusal("/dev/null", {})
                .find("/dev/null: cannot write: not a regular file (a character device"),
            std::string::npos);
  EXPECT_NE(refusal("", {}).find("empty"), std::string::npos);
}

}  // namespace
}  // namespace kvplan
