// Outputs never destroy inputs (issue 30, class 1): explain --calibrate onto its log, trace
// capture -o onto the checkpoint, model.safetensors or the tokenizer, an output onto a FIFO or a
// device are refused before any work (exit 2 naming both), and every input keeps its bytes.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_run.hpp"
#include "temp_dir.hpp"

namespace kvplan {
namespace {

namespace fs = std::filesystem;
using test::run_kvplan;

std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string q(const std::string& p) { return "'" + p + "'"; }

// A writable copy of a file, as a user's own file would be.
std::string copy_in(const fs::path& from, const test::TempDir& d, const std::string& name) {
  const fs::path to = d.path() / name;
  fs::create_directories(to.parent_path());
  fs::copy_file(from, to);
  fs::permissions(to, fs::perms::owner_read | fs::perms::owner_write);
  return to.string();
}

const fs::path kEagleLog =
    fs::path(KVPLAN_TEST_DATA_DIR) / "logs" / "vllm-v091dev-llama31-8b-eagle-h100.log";

TEST(OutputPathCli, CalibrateOntoItsOwnLogIsRefusedAndTheLogKept) {
  test::TempDir d;
  const std::string log = copy_in(kEagleLog, d, "vllm.log");
  const std::string before = slurp(log);
  fs::create_symlink(log, d.file("alias.json"));
  for (const std::string& out : {log, d.file("alias.json")}) {
    const auto r = run_kvplan("explain " + q(log) + " --model llama-3.1-8b --draft-layers 1 " +
                              "--gpu h100-sxm-80gb --calibrate " + q(out));
    EXPECT_EQ(r.code, 2) << r.err << r.out;
    EXPECT_NE(r.err.find("--calibrate"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("same file as the input " + log), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << "refused before the report: " << r.out;
    EXPECT_EQ(slurp(log), before);
  }
}

TEST(OutputPathCli, CalibrateOntoAFifoOrDeviceIsRefused) {
  test::TempDir d;
  ASSERT_EQ(::mkfifo(d.file("fifo").c_str(), 0600), 0);
  for (const std::string& out : {d.file("fifo"), std::string("/dev/null")}) {
    const auto r = run_kvplan("explain " + q(kEagleLog.string()) +
                              " --model llama-3.1-8b --gpu h100-sxm-80gb --calibrate " + q(out));
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find(out + ": cannot write: not a regular file (a"), std::string::npos)
        << r.err;
  }
  struct stat st {};
  ASSERT_EQ(::stat(d.file("fifo").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO is still a FIFO";
}

// "-" is standard output: the calibration JSON alone, the same one --calibrate FILE writes.
TEST(OutputPathCli, CalibrateDashWritesTheCalibrationToStandardOutput) {
  test::TempDir d;
  const std::string args = "explain " + q(kEagleLog.string()) +
                           " --model llama-3.1-8b --draft-layers 1 --gpu " +
                           "h100-sxm-80gb --calibrate ";
  const auto to_file = run_kvplan(args + q(d.file("c.json")));
  ASSERT_EQ(to_file.code, 0) << to_file.err;
  const auto to_stdout = run_kvplan(args + "-");
  ASSERT_EQ(to_stdout.code, 0) << to_stdout.err;
  const auto j = nlohmann::json::parse(to_stdout.out);
  EXPECT_EQ(j["kvplan_calibration"], 1);
  EXPECT_EQ(j, nlohmann::json::parse(slurp(d.file("c.json"))));
  EXPECT_FALSE(fs::exists("-"));
}

fs::path hf_dir() {
  const char* e = std::getenv("KVPLAN_TEST_HF_MODEL_DIR");
  return e ? fs::path(e) : fs::path(KVPLAN_TEST_HF_MODEL_DIR_DEFAULT);
}
fs::path llama2c_dir() {
  const char* e = std::getenv("KVPLAN_TEST_MODEL_DIR");
  return e ? fs::path(e) : fs::path(KVPLAN_TEST_MODEL_DIR_DEFAULT);
}

TEST(OutputPathCli, TraceCaptureOntoAModelFileIsRefusedAndTheFileKept) {
  if (!fs::exists(hf_dir() / "model.safetensors"))
    GTEST_SKIP() << "tinystories-656k not found in " << hf_dir();
  test::TempDir d;
  for (const char* f : {"config.json", "model.safetensors", "tokenizer.json"})
    copy_in(hf_dir() / f, d, std::string("m/") + f);
  for (const char* f : {"model.safetensors", "tokenizer.json", "config.json"}) {
    const std::string target = d.file(std::string("m/") + f);
    const std::string before = slurp(target);
    const auto r =
        run_kvplan("trace capture --checkpoint " + q(d.file("m")) + " --steps 2 -o " + q(target));
    EXPECT_EQ(r.code, 2) << f << ": " << r.err;
    EXPECT_NE(r.err.find("same file as the input " + target), std::string::npos) << r.err;
    EXPECT_EQ(slurp(target), before) << f;
  }
}

TEST(OutputPathCli, TraceCaptureOntoALlama2cCheckpointOrTokenizerIsRefused) {
  if (!fs::exists(llama2c_dir() / "stories260K.bin"))
    GTEST_SKIP() << "stories260K not found in " << llama2c_dir();
  test::TempDir d;
  const std::string ck = copy_in(llama2c_dir() / "stories260K.bin", d, "c.bin");
  const std::string tok = copy_in(llama2c_dir() / "tok512.bin", d, "t.bin");
  for (const std::string& target : {ck, tok}) {
    const std::string before = slurp(target);
    const auto r = run_kvplan("trace capture --checkpoint " + q(ck) + " --tokenizer " + q(tok) +
                              " --steps 2 -o " + q(target));
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("--output"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("same file as the input " + target), std::string::npos) << r.err;
    EXPECT_EQ(slurp(target), before);
  }
  const auto dash =
      run_kvplan("trace capture --checkpoint " + q(ck) + " --tokenizer " + q(tok) + " -o -");
  EXPECT_EQ(dash.code, 2);
  EXPECT_NE(dash.err.find("not - (standard output)"), std::string::npos) << dash.err;
}

TEST(OutputPathCli, TraceSynthOntoADeviceOrDirectoryIsRefused) {
  test::TempDir d;
  for (const std::string& out : {std::string("/dev/null"), d.path().string()}) {
    const auto r = run_kvplan("trace synth --tokens 16 -o " + q(out));
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace kvplan
