// Engine logs read as the engines print them (issue 30, class 3). Each expectation is derived by
// hand from the line given:
// - memory figures are GiB ("%.2f GiB"; SGLang's and older vLLM's "GB" are the same 2^30 bytes),
//   so 51.63 GB = floor(51.63 · 2^30) = 55,437,290,373 B; MiB, MB or TiB are refused, never read as
//   GiB;
// - counts are digits grouped by commas in threes, exactly: a decimal comma, a dot in a count or
//   a value past 2^64 (2^32 for TP and tokens per block) is refused, never wrapped;
// - vLLM prints "Available KV cache memory" once per TP rank and sizes every rank by the
//   smallest, so 20.50 and 20.25 GiB give 20.25 · 2^30 = 21,743,271,936 B;
// - two start-ups with different figures, or KV lines of two engines, are refused.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "kvplan/engine_log.hpp"
#include "kvplan/error.hpp"

namespace kvplan {
namespace {

std::string refusal(const std::string& text) {
  try {
    parse_engine_log(text, "x.log");
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2);
    return e.what();
  }
  return "accepted";
}

const std::string kTokens = "GPU KV cache size: 410,128 tokens\n";

TEST(EngineLogTrust, GbIsTheEnginesGibAndOtherUnitsAreRefused) {
  auto g = parse_engine_log("INFO Available KV cache memory: 51.63 GB\n" + kTokens, "x.log");
  EXPECT_EQ(g.available_kv_bytes.value_or(0),
            55437290373u);  // floor(51.63 · 2^30) = floor(55,437,290,373.12)
  g = parse_engine_log("INFO Available KV cache memory: 51.63 GiB\n" + kTokens, "x.log");
  EXPECT_EQ(g.available_kv_bytes.value_or(0), 55437290373u);
  for (const char* unit : {"MiB", "MB", "TiB", "KiB", "bytes"}) {
    const std::string m =
        refusal("INFO Available KV cache memory: 51630 " + std::string(unit) + "\n" + kTokens);
    EXPECT_NE(m.find("x.log: line 1:"), std::string::npos) << m;
    EXPECT_NE(m.find("not " + std::string(unit)), std::string::npos) << m;
  }
  EXPECT_NE(refusal("Model loading took 15000 MiB\nAvailable KV cache memory: 51.63 GiB\n")
                .find("x.log: line 1:"),
            std::string::npos);
  EXPECT_NE(refusal("KV Cache is allocated. #tokens: 1000, K size: 512 MB, V size: 512 MB\n")
                .find("not MB"),
            std::string::npos);
}

TEST(EngineLogTrust, OnlyTheNumberFormatsTheEnginesPrint) {
  std::string m = refusal("Available KV cache memory: 51,63 GiB\n" + kTokens);
  EXPECT_NE(m.find("decimal comma"), std::string::npos) << m;
  m = refusal("Available KV cache memory: 51.63 GiB\nGPU KV cache size: 410,12 tokens\n");
  EXPECT_NE(m.find("line 2"), std::string::npos) << m;
  EXPECT_NE(m.find("in threes"), std::string::npos) << m;
  m = refusal("Available KV cache memory: 51.63 GiB\nGPU KV cache size: 410.128 tokens\n");
  EXPECT_NE(m.find("whole number"), std::string::npos) << m;
  // 400 digits would overflow a double: refused, not an internal error.
  m = refusal("Available KV cache memory: " + std::string(400, '9') + " GiB\n" + kTokens);
  EXPECT_NE(m.find("not a figure the engine prints"), std::string::npos) << m;
  m = refusal("Available KV cache memory: 5.1.63 GiB\n" + kTokens);
  EXPECT_NE(m.find("more than one dot"), std::string::npos) << m;
  // 1,234,567 is a count; so is 999.
  const auto g = parse_engine_log(
      "Available KV cache memory: 1.00 GiB\nGPU KV cache size: 1,234,567 tokens\n# GPU blocks: 999",
      "x.log");
  EXPECT_EQ(g.kv_cache_tokens.value_or(0), 1234567u);
  EXPECT_EQ(g.num_gpu_blocks.value_or(0), 999u);
}

TEST(EngineLogTrust, IntegersThatOverflowAreRefusedNotWrapped) {
  // 2^32 + 1 = 4,294,967,297 would wrap to TP 1.
  std::string m = refusal(
      "Initializing a V1 LLM engine (v0.10.0) with config: model='m', tensor_parallel_size="
      "4294967297, max_seq_len=8192\nAvailable KV cache memory: 1.00 GiB\n");
  EXPECT_NE(m.find("past 2^32 - 1"), std::string::npos) << m;
  m = refusal(
      "[TensorRT-LLM][INFO] Number of tokens per block: 4294967328\n"
      "[TensorRT-LLM][INFO] Number of blocks in KV cache primary pool: 100\n");
  EXPECT_NE(m.find("past 2^32 - 1"), std::string::npos) << m;
  // 2^64 = 18,446,744,073,709,551,616.
  m = refusal(
      "Available KV cache memory: 1.00 GiB\nGPU KV cache size: 18446744073709551616 tokens\n");
  EXPECT_NE(m.find("does not fit 64 bits"), std::string::npos) << m;
}

TEST(EngineLogTrust, OneLinePerTpRankSizedByTheSmallest) {
  const auto g = parse_engine_log(
      "(VllmWorker rank=0 pid=11) INFO [gpu_worker.py:276] Available KV cache memory: 20.50 GiB\n"
      "(VllmWorker rank=1 pid=12) INFO [gpu_worker.py:276] Available KV cache memory: 20.25 GiB\n"
      "INFO [kv_cache_utils.py:849] GPU KV cache size: 331,696 tokens\n",
      "x.log");
  EXPECT_EQ(g.available_kv_bytes.value_or(0), 21743271936u);  // 20.25 · 2^30
}

TEST(EngineLogTrust, TwoStartupsAreOneRecordOrRefused) {
  const std::string init =
      "INFO Initializing a V1 LLM engine (v0.10.0) with config: model='m', max_seq_len=8192, "
      "tensor_parallel_size=1\n";
  const std::string first =
      init + "Available KV cache memory: 10.55 GiB\n" + "GPU KV cache size: 230,528 tokens\n";
  std::string m = refusal(first + init + "Available KV cache memory: 5.59 GiB\n" +
                          "GPU KV cache size: 122,112 tokens\n");
  EXPECT_NE(m.find("more than one engine start-up (lines 1 and 4)"), std::string::npos) << m;
  // The same start-up twice (a restart, or two data-parallel engines): one record.
  const auto g = parse_engine_log(first + first, "x.log");
  EXPECT_EQ(g.kv_cache_tokens.value_or(0), 230528u);
}

TEST(EngineLogTrust, ALogMixingTwoEnginesIsRefused) {
  const std::string m = refusal(
      "Available KV cache memory: 10.00 GiB\nGPU KV cache size: 1,000 tokens\n"
      "KV Cache is allocated. #tokens: 1000, K size: 1.00 GB, V size: 1.00 GB\n");
  EXPECT_NE(m.find("KV-cache lines of vLLM (line 1) and SGLang (line 3)"), std::string::npos) << m;
}

TEST(EngineLogTrust, AModelPathFromTheLogIsSaidToComeFromIt) {
  const auto g = parse_engine_log(
      "INFO Initializing a V1 LLM engine (v0.10.0) with config: model='/nonexistent/llama', "
      "max_seq_len=8192\nAvailable KV cache memory: 10.00 GiB\n",
      "x.log");
  try {
    load_log_model(g);
    ADD_FAILURE() << "a model that does not exist was loaded";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("x.log: model: the model the log's config line names, '/nonexistent/llama'"),
              std::string::npos)
        << m;
  }
}

}  // namespace
}  // namespace kvplan
