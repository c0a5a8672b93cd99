// The kvplan binary end to end: exit codes, every output format, golden numbers.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli_run.hpp"
#include "temp_dir.hpp"

namespace {

const std::string kData = std::string(KVPLAN_TEST_DATA_DIR) + "/deploy/";

using Run = kvplan::test::CliRun;

Run kvplan(const std::string& args) { return kvplan::test::run_kvplan(args); }

bool has(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

// A small XML well-formedness check: balanced tags, quoted attributes, known entities, one root.
bool well_formed_xml(const std::string& x, std::string* why) {
  std::vector<std::string> stack;
  std::size_t i = 0, roots = 0;
  auto fail = [&](const std::string& w) {
    *why = w + " at byte " + std::to_string(i);
    return false;
  };
  auto check_entities = [&](const std::string& text) {
    for (std::size_t a = text.find('&'); a != std::string::npos; a = text.find('&', a + 1)) {
      const auto semi = text.find(';', a);
      if (semi == std::string::npos) return false;
      const std::string ent = text.substr(a, semi - a + 1);
      if (ent != "&amp;" && ent != "&lt;" && ent != "&gt;" && ent != "&quot;" && ent != "&apos;")
        return false;
    }
    return true;
  };
  if (x.rfind("<?xml", 0) == 0) i = x.find("?>") + 2;
  while (i < x.size()) {
    const auto lt = x.find('<', i);
    const std::string text = x.substr(i, lt == std::string::npos ? std::string::npos : lt - i);
    if (!check_entities(text)) return fail("bad entity in text");
    if (stack.empty() && text.find_first_not_of(" \n\t") != std::string::npos)
      return fail("text outside the root");
    if (lt == std::string::npos) break;
    i = lt;
    std::size_t gt = i + 1;
    char quote = 0;
    for (; gt < x.size(); ++gt) {
      if (quote) {
        if (x[gt] == quote)
          quote = 0;
        else if (x[gt] == '<')
          return fail("'<' in an attribute");
      } else if (x[gt] == '"' || x[gt] == '\'') {
        quote = x[gt];
      } else if (x[gt] == '>') {
        break;
      }
    }
    if (gt >= x.size()) return fail("unterminated tag");
    std::string tag = x.substr(i + 1, gt - i - 1);
    if (!check_entities(tag)) return fail("bad entity in a tag");
    const bool closing = !tag.empty() && tag[0] == '/';
    const bool self = !tag.empty() && tag.back() == '/';
    std::string name = tag.substr(closing ? 1 : 0);
    name = name.substr(0, name.find_first_of(" /\n\t"));
    if (name.empty()) return fail("empty tag name");
    if (closing) {
      if (stack.empty() || stack.back() != name) return fail("mismatched </" + name + ">");
      stack.pop_back();
    } else if (!self) {
      if (stack.empty()) ++roots;
      stack.push_back(name);
    }
    i = gt + 1;
  }
  if (!stack.empty()) return fail("unclosed <" + stack.back() + ">");
  if (roots != 1) return fail("expected one root element");
  return true;
}

TEST(Cli, HelpVersionAndUsage) {
  auto r = kvplan("--help");
  EXPECT_EQ(r.code, 0);
  for (const char* c : {"size", "plan", "check"}) EXPECT_TRUE(has(r.out, c)) << r.out;
  r = kvplan("--version");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out.rfind("kvplan ", 0), 0u) << r.out;
  EXPECT_EQ(kvplan("").code, 2);
  EXPECT_EQ(kvplan("no-such-command").code, 2);
  r = kvplan("plan --help");
  EXPECT_EQ(r.code, 0);
  EXPECT_TRUE(has(r.out, "--available-kv-gib")) << r.out;
  EXPECT_TRUE(has(kvplan("check --help").out, "--vllm"));
}

TEST(Cli, SizeGolden) {
  auto r = kvplan("size --model llama-3.1-8b --context 8192 --kv-dtype fp16 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["bytes_per_token"].get<std::uint64_t>(), 131072u);
  EXPECT_EQ(j["bytes_per_request"].get<std::uint64_t>(), 1073741824u);
  r = kvplan("size --model llama-3.1-8b --context 8192 --kv-dtype fp7");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "kv-dtype")) << r.err;
  EXPECT_TRUE(has(r.err, "fp7")) << r.err;
  EXPECT_TRUE(r.out.empty());
}

// --available-kv-gib a,b: one figure a rank (rank = stage · tp + TP rank). Llama-3.1-8B fp16
// at PP 2 (16 layers a stage, page 16 · 8 · 128 · 2 B · 2 = 65,536 B): 40 GiB is
// 42,949,672,960 // 65,536 // 16 = 40,960 blocks and 20 GiB 20,480; every stage gets the fewer.
// Three figures for two ranks exit 2 naming the field.
TEST(Cli, AvailableKvPerRank) {
  const auto r = kvplan(
      "plan --model llama-3.1-8b --available-kv-gib 40,20 --pp 2 --context 32768 "
      "--kv-dtype fp16 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["num_gpu_blocks"].get<std::uint64_t>(), 20480u);
  const auto bad = kvplan("plan --model llama-3.1-8b --available-kv-gib 40,20,10 --pp 2");
  EXPECT_EQ(bad.code, 2);
  EXPECT_TRUE(has(bad.err, "available_kv_gib")) << bad.err;
  EXPECT_EQ(kvplan("plan --model llama-3.1-8b --available-kv-gib 40,,20 --pp 2").code, 2);
}

TEST(Cli, PlanMatchesVllmArithmetic) {
  const auto r = kvplan(
      "plan --model llama-3.1-8b --available-kv-gib 40 --context 32768 "
      "--kv-dtype fp16 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["num_gpu_blocks"].get<std::uint64_t>(), 20480u);
  EXPECT_EQ(j["kv_cache_tokens"].get<std::uint64_t>(), 327680u);
  EXPECT_DOUBLE_EQ(j["max_concurrency"].get<double>(), 10.0);  // vLLM's log: 20480 / 2048
  EXPECT_EQ(j["max_requests"].get<std::uint64_t>(), 9u);       // less the null block: 20479 // 2048
  EXPECT_TRUE(j["memory"]["measured"].get<bool>());
}

// SGLang's request limits in the plan (docs/deploy.md "Requests at once and the request table";
// init_memory_pool@226149ac, tp_worker.py@4f34e24a): 40 GiB of pool over Llama-3.1-8B's 131,072 B
// a token (32 layers · 8 heads · 256 · 2 B) is 327,680 tokens. At 32,768 tokens the table has
// min(max(int(327,680 / 32,768 · 512) = 5,120, 2,048), 4,096) = 4,096 rows; the scheduler runs
// min(327,680 // 2, 4,096) = 4,096; the table is (4,096 + 1) · (32,768 + 4) · 4 = 537,067,536 B.
// At 131,072 tokens: int(1,280.0) -> 2,048 rows and running; (2,049) · (131,076) · 4 =
// 1,074,298,896 B. vLLM has no such table: null.
TEST(Cli, PlanShowsSglangsRequestLimits) {
  auto r = kvplan(
      "plan --model llama-3.1-8b --engine sglang --available-kv-gib 40 --context 32768 "
      "--format json");
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["kv_cache_tokens"].get<std::uint64_t>(), 327680u);
  EXPECT_EQ(j["sglang"]["max_num_reqs"].get<std::uint64_t>(), 4096u);
  EXPECT_EQ(j["sglang"]["max_running_requests"].get<std::uint64_t>(), 4096u);
  EXPECT_EQ(j["sglang"]["request_table_bytes"].get<std::uint64_t>(), 537067536u);
  r = kvplan("plan --model llama-3.1-8b --engine sglang --available-kv-gib 40 --context 131072");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "requests running at once, a replica (SGLang max_running_requests)"))
      << r.out;
  EXPECT_TRUE(has(r.out, "2,048 = min(pool tokens // 2, 2,048 table rows)")) << r.out;
  EXPECT_TRUE(has(r.out, "request table (req_to_token, beside the pool)")) << r.out;
  EXPECT_TRUE(has(r.out, "1.00 GiB (1.07 GB)")) << r.out;  // 1,074,298,896 B
  r = kvplan("plan --model llama-3.1-8b --available-kv-gib 40 --context 32768 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(nlohmann::json::parse(r.out)["sglang"].is_null());
}

// plan --max-num-seqs outside SLO sizing is the engine's max_num_seqs: TensorRT-LLM's
// --max_batch_size, which sizes a hybrid model's state slots (docs/deploy.md). Qwen3-Next-80B-A3B
// at TP 4 holds 9,879,552 B of states a sequence (TrtllmParity.HybridDefaultBatchSlotsCanStopThe-
// Start): in 18 GiB (19,327,352,832 B) the default 2,048 + 1 slots (20,243,202,048 B) do not fit;
// 256 + 1 take 2,539,044,864 B and leave 16,788,307,968 B, 12,288 B a token: 1,366,236 tokens,
// 42,694 blocks (V2's floor: 256 typical requests of 16,384 tokens are 51.5 GB, beyond the pool).
TEST(Cli, PlanMaxNumSeqsSizesTrtllmStateSlots) {
  const std::string base =
      "plan --model qwen3-next-80b-a3b --engine trtllm --tp 4 --available-kv-gib 18 "
      "--context 32768 --format json";
  auto r = kvplan(base);
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["stages"][0]["trtllm_states"]["live_slots"].get<std::uint64_t>(), 2048u);
  EXPECT_GT(j["stages"][0]["trtllm_states"]["shortfall_bytes"].get<std::uint64_t>(), 0u);
  r = kvplan(base + " --max-num-seqs 256");
  ASSERT_EQ(r.code, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["stages"][0]["trtllm_states"]["live_slots"].get<std::uint64_t>(), 256u);
  EXPECT_EQ(j["stages"][0]["trtllm_states"]["bytes"].get<std::uint64_t>(), 2539044864u);
  EXPECT_EQ(j["stages"][0]["trtllm_states"]["attention_bytes"].get<std::uint64_t>(), 16788307968u);
  EXPECT_EQ(j["num_gpu_blocks"].get<std::uint64_t>(), 42694u);
}

TEST(Cli, PlanWithMemoryModelOrdersAndWhatIf) {
  auto r = kvplan(
      "plan --model llama-3.1-8b --gpu h100-sxm-80gb --context 32768 --concurrency 64 "
      "--price h100-sxm-80gb=2.49 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  // vLLM's terms at the launch line's --max-num-seqs 64: the forward (8192 · (32 · 128 + 2 ·
  // 4096 + 3 · 14336) · 2 B = 905,969,664) peaks over the sampler (9.5 · 64 · 128256 · 4 B +
  // (8192 + 128) · 4096 · 2 B = 380,076,032), + 0.04 GiB = 948,919,337; with non-torch
  // 139,586,437 and graphs 622,770,258: 85,013,508,915 · 0.92 (vLLM's default since
  // vllm-project/vllm#38284) − 16,060,522,496 − 1,711,276,032 = 60,440,629,673 B // 65536 // 32
  // = 28,820 blocks = 461,120 tokens; each term with its basis and source.
  EXPECT_EQ(j["memory"]["available_kv_bytes"].get<std::uint64_t>(), 60440629673u);
  EXPECT_EQ(j["num_gpu_blocks"].get<std::uint64_t>(), 28820u);
  EXPECT_EQ(j["kv_cache_tokens"].get<std::uint64_t>(), 461120u);
  ASSERT_EQ(j["memory"]["terms"].size(), 4u);
  EXPECT_EQ(j["memory"]["terms"][0]["term"], "activation peak");
  EXPECT_EQ(j["memory"]["terms"][0]["basis"], "derived");
  EXPECT_EQ(j["memory"]["terms"][0]["bytes"].get<std::uint64_t>(), 948919337u);
  EXPECT_NE(j["memory"]["terms"][0]["source"].get<std::string>().find("gpu_model_runner.py@"),
            std::string::npos);
  ASSERT_FALSE(j["order"].empty());
  EXPECT_EQ(j["order"][0]["gpu"], "h100-sxm-80gb");  // the only priced GPU ranks first
  EXPECT_EQ(j["order"][0]["gpus"].get<int>(), 4);
  EXPECT_GE(j["what_if"].size(), 8u);
  EXPECT_TRUE(j["engine_flags"]["vllm"].is_null());  // 64 do not fit on one GPU
  r = kvplan(
      "plan --model llama-3.1-8b --gpu h100-sxm-80gb --tp 4 --context 32768 "
      "--concurrency 64 --kv-dtype fp16 --brief");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "vllm serve meta-llama/Llama-3.1-8B --tensor-parallel-size 4")) << r.out;
  EXPECT_TRUE(has(r.out, "Maximum concurrency for 32,768 tokens per request")) << r.out;
  r = kvplan("plan --model gemma-2-9b --gpu l40s --format md --brief");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "### gemma-2-9b on l40s")) << r.out;
  EXPECT_TRUE(has(r.out, "| num_gpu_blocks |")) << r.out;
}

TEST(Cli, PlanBadInputExits2NamingTheField) {
  struct Case {
    std::string args, needle;
  };
  for (const auto& c : std::vector<Case>{
           {"--model llama-3.1-8b --gpu h100-sxm-80gb --tp 3", "tp"},
           {"--model llama-3.1-8b --gpu h1000", "h1000"},
           {"--model llama-3.1-8b --gpu h100-sxm-80gb --gpu-memory-utilization 1.5",
            "gpu-memory-utilization"},
           {"--model llama-3.1-8b --available-kv-gib lots", "available-kv-gib"},
           {"--model llama-3.1-8b --gpu h100-sxm-80gb --price h100-sxm-80gb=free", "price"},
           {"--model llama-3.1-8b --gpu h100-sxm-80gb --gpus 3 --tp 2", "gpus"},
           {"--model llama-3.1-8b", "--gpu"},
           {"--model llama-3.1-8b --gpu h100-sxm-80gb --format junit", "format"},
           {"--model llama-3.1-8b --gpu h100-sxm-80gb --weight-dtype int3", "int3"}}) {
    const auto r = kvplan("plan " + c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.out;
    EXPECT_TRUE(has(r.err, c.needle)) << c.args << "\n" << r.err;
  }
}

TEST(Cli, CheckExitCodes) {
  auto r = kvplan("check '" + kData + "pass.json'");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "PASS")) << r.out;
  r = kvplan("check '" + kData + "fail_fp8.json'");
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "fits with --kv-cache-dtype fp8")) << r.out;
  EXPECT_TRUE(has(r.out, "short by 6")) << r.out;  // 14 of 20 (Check.FailureSaysByHowMuch...)
  r = kvplan("check '" + kData + "fail_gpus.json'");
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(has(r.out, "more h100-sxm-80gb")) << r.out;
  for (const char* bad : {"bad_tp.json", "bad_gpu.json", "bad_type.json", "bad_missing.json"}) {
    r = kvplan("check '" + kData + bad + "'");
    EXPECT_EQ(r.code, 2) << bad;
    EXPECT_TRUE(has(r.err, bad)) << r.err;
  }
  r = kvplan("check '" + kData + "bad_tp.json'");
  EXPECT_TRUE(has(r.err, "/engine/tensor_parallel_size")) << r.err;
  EXPECT_EQ(kvplan("check").code, 2);
  EXPECT_EQ(kvplan("check '" + kData + "missing.json'").code, 2);
}

TEST(Cli, CheckFormatsParse) {
  auto r = kvplan("check '" + kData + "fail_fp8.json' --format junit");
  EXPECT_EQ(r.code, 1);
  std::string why;
  EXPECT_TRUE(well_formed_xml(r.out, &why)) << why << "\n" << r.out;
  EXPECT_TRUE(has(r.out, "<testcase classname=\"kvplan.check.needs_fp8\" name=\"concurrency\">"));
  EXPECT_TRUE(has(r.out, "failures=\"1\""));
  r = kvplan("check '" + kData + "pass.json' --format junit");
  EXPECT_EQ(r.code, 0);
  EXPECT_TRUE(well_formed_xml(r.out, &why)) << why << "\n" << r.out;
  EXPECT_FALSE(has(r.out, "<failure"));
  r = kvplan("check '" + kData + "fail_fp8.json' --format json");
  EXPECT_EQ(r.code, 1);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_FALSE(j["passed"].get<bool>());
  bool found = false;
  for (const auto& c : j["checks"])
    if (c["id"] == "concurrency") {
      found = true;
      EXPECT_FALSE(c["passed"].get<bool>());
      EXPECT_EQ(c["fix"], "fits with --kv-cache-dtype fp8");
    }
  EXPECT_TRUE(found);
  r = kvplan("check '" + kData + "fail_fp8.json' --format md");
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(has(r.out, "| check | result | detail | fix |")) << r.out;
  // The XML checker itself rejects broken documents.
  EXPECT_FALSE(well_formed_xml("<a><b></a></b>", &why));
  EXPECT_FALSE(well_formed_xml("<a x=\"1 & 2\"></a>", &why));
}

TEST(Cli, CheckEngineCommandLines) {
  auto r = kvplan(
      "check --vllm \"vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 32768 "
      "--kv-cache-dtype fp8 --gpu-memory-utilization 0.92 --max-num-seqs 16 --frobnicate\" "
      "--gpu h100-sxm-80gb");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "unknown flag --frobnicate")) << r.err;
  r = kvplan(
      "check --strict --vllm \"vllm serve meta-llama/Llama-3.1-8B --frobnicate\" --gpu "
      "h100-sxm-80gb");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--frobnicate")) << r.err;
  // A command line alone promises that the engine starts and holds one request of
  // max_model_len, under vLLM as under SGLang; max_num_seqs caps admission only. One request of
  // 32768 tokens in bf16: 32 layers · 8 heads · 256 · 2 B · 32768 = 4 GiB fits on one H100.
  r = kvplan(
      "check --vllm \"vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768 "
      "--max-num-seqs 64\" --gpu h100-sxm-80gb --format json");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  // A stated SLO of 64 such requests does not fit (16 GiB of weights leave ~55 GiB: 13 of 4 GiB).
  r = kvplan(
      "check --vllm \"vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768 "
      "--max-num-seqs 64\" --gpu h100-sxm-80gb --format json --slo concurrency=64");
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_FALSE(nlohmann::json::parse(r.out)["passed"].get<bool>());
  // The same 64 requests at a typical 2,000 tokens fit (64 · 2,000 · 131,072 B = 16.8 GB of the
  // ~55 GiB), and the report says that the worst case would not.
  r = kvplan(
      "check --vllm \"vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768 "
      "--max-num-seqs 64\" --gpu h100-sxm-80gb --slo concurrency=64,mean_context=2k");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "the typical load fits")) << r.out;
  r = kvplan(
      "check --sglang \"python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct "
      "--context-length 32768 --max-running-requests 8\" --gpu h100-sxm-80gb");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  r = kvplan("check --vllm \"vllm serve acme/mystery-13b\" --gpu h100-sxm-80gb");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--model")) << r.err;
  r = kvplan(
      "check --vllm \"vllm serve meta-llama/Llama-3.1-8B --tensor-parallel-size 3\" --gpu "
      "h100-sxm-80gb");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--tensor-parallel-size")) << r.err;
  EXPECT_EQ(kvplan("check --vllm \"vllm serve meta-llama/Llama-3.1-8B\"").code, 2);  // no --gpu
}

// kvplan check --trtllm: the same rule and exit codes as --vllm / --sglang. Llama 3.1 8B on one
// H100 SXM under TensorRT-LLM, by hand (tests/core/test_engine_cmdlines.cpp,
// TrtllmServeCheckTable): (85,013,508,915 − 16,060,522,496 weights − 2 GiB) × 0.9 =
// 60,124,952,493 B of KV cache // 131,072 B a token = 458,717 tokens → 14,335 blocks of 32.
TEST(Cli, CheckTrtllmCommandLines) {
  auto r = kvplan(
      "check --trtllm \"trtllm-serve meta-llama/Llama-3.1-8B --tp_size 1 --max_seq_len 32768 "
      "--kv_cache_free_gpu_memory_fraction 0.9\" --gpu h100-sxm-80gb --format json");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["engine"], "trtllm");
  EXPECT_EQ(j["capacity"]["num_gpu_blocks"], 14335);
  EXPECT_EQ(j["capacity"]["kv_cache_tokens"], 14335 * 32);
  // 15 requests of 32,768 tokens (1,024 blocks each) do not fit 14,335 blocks: exit 1.
  r = kvplan(
      "check --trtllm \"trtllm-serve meta-llama/Llama-3.1-8B --max_seq_len 32768\" --gpu "
      "h100-sxm-80gb --slo concurrency=15");
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  // Bad input names the flag: exit 2.
  r = kvplan(
      "check --trtllm \"trtllm-serve meta-llama/Llama-3.1-8B --max_seq_len 32k\" --gpu "
      "h100-sxm-80gb");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--max_seq_len")) << r.err;
  r = kvplan(
      "check --trtllm \"trtllm-serve meta-llama/Llama-3.1-8B --tp_size 3\" --gpu h100-sxm-80gb");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--tp_size")) << r.err;
  // Unmodelled memory flags are named in the warnings, never dropped.
  r = kvplan(
      "check --trtllm \"trtllm-serve meta-llama/Llama-3.1-8B --max_seq_len 8192 --max_beam_width "
      "4\" --gpu h100-sxm-80gb");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "--max_beam_width 4")) << r.err;
  // --strict refuses a flag trtllm-serve does not have.
  r = kvplan(
      "check --strict --trtllm \"trtllm-serve meta-llama/Llama-3.1-8B --kv_cache_dtype fp8\" "
      "--gpu h100-sxm-80gb");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--kv_cache_dtype")) << r.err;
  // Two sources at once are a usage error.
  EXPECT_EQ(kvplan("check --trtllm \"trtllm-serve m\" --vllm \"vllm serve m\" --gpu l4").code, 2);
}

// kvplan gpus lists the presets' dense peaks and links. Expected figures from the vendors' pages
// (docs/gpus.md): H100 SXM datasheet "BF16 Tensor Core 1,979 teraFLOPS*", "FP8 3,958*",
// "INT8 3,958 TOPS*" (* with sparsity: dense is half) and "NVLink: 900GB/s"; HGX B200 per GPU
// "FP4 18 PF*" → 9,000 dense; MI300X "Peak Infinity Fabric Link Bandwidth 128 GB/s" × 7 links.
TEST(Cli, GpusListsPeaksAndInterconnect) {
  auto r = kvplan("gpus");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* col : {"bf16 TFLOP/s", "fp8 TFLOP/s", "fp4 TFLOP/s", "int8 TOP/s",
                          "interconnect", "interconnect GB/s"})
    EXPECT_TRUE(has(r.out, col)) << col << "\n" << r.out;
  std::string h100;
  for (std::istringstream in(r.out); std::getline(in, h100);)
    if (h100.rfind("h100-sxm-80gb ", 0) == 0) break;
  // id name, memory bytes, memory, HBM 3350, bf16 989.5, fp8 1979, fp4 -, int8 1979, nvlink 900,
  // NVLink domain - (not stated), then the DGX H100 node: "Eight NVIDIA Hopper GPUs" and "2 TB
  // of DDR5 system memory" (2,048 GiB in the preset; the DGX BasePOD reference architecture).
  const std::regex row(
      R"(h100-sxm-80gb .* 3350 +989\.5 +1979 +- +1979 +nvlink +900 +- +8 +2048\s*)");
  EXPECT_TRUE(std::regex_match(h100, row)) << h100;
  r = kvplan("gpus --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.is_array());
  std::map<std::string, nlohmann::json> by_id;
  for (const auto& g : j) by_id[g["id"].get<std::string>()] = g;
  ASSERT_EQ(by_id.count("h100-sxm-80gb"), 1u);
  const auto& h = by_id["h100-sxm-80gb"];
  EXPECT_EQ(h["peak_tflops_bf16"].get<double>(), 989.5);
  EXPECT_EQ(h["peak_tflops_fp8"].get<double>(), 1979);
  EXPECT_TRUE(h["peak_tflops_fp4"].is_null());  // Hopper has no FP4 tensor cores
  EXPECT_EQ(h["peak_tops_int8"].get<double>(), 1979);
  EXPECT_EQ(h["interconnect"], "nvlink");
  EXPECT_EQ(h["interconnect_gbps"].get<double>(), 900);
  EXPECT_EQ(h["memory_bytes"].get<std::uint64_t>(), 85520809984u);
  EXPECT_EQ(by_id["b200"]["peak_tflops_fp4"].get<double>(), 9000);
  EXPECT_EQ(by_id["mi300x"]["interconnect"], "infinity_fabric");
  EXPECT_EQ(by_id["mi300x"]["interconnect_gbps"].get<double>(), 7 * 128);
  EXPECT_TRUE(by_id["a100-80gb"]["peak_tflops_fp8"].is_null());  // Ampere has no FP8
  EXPECT_EQ(kvplan("gpus --format junit").code, 2);
}

// --- Trust: every write checked, inputs that are not files refused, output well-formed.

const std::string kBad = std::string(KVPLAN_TEST_DATA_DIR) + "/bad/";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(CliWrites, FullDiskIsExit2NamingStdout) {
  for (const std::string& args : std::vector<std::string>{
           "size --model llama-3.1-8b --context 8192",
           "plan --model llama-3.1-8b --gpu h100-sxm-80gb --context 32768 --concurrency 16",
           "check '" + kData + "fail_fp8.json' --format junit", "models", "--version"}) {
    const auto r = kvplan(args + " > /dev/full");
    EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
    EXPECT_TRUE(has(r.err, "/dev/full")) << r.err;
    EXPECT_TRUE(has(r.err, "No space left on device")) << r.err;
  }
  kvplan::test::TempDir dir;
  const std::string trace = dir.file("t.safetensors");
  ASSERT_EQ(kvplan("trace synth --tokens 16 -o '" + trace + "'").code, 0);
  const auto r = kvplan("trace info '" + trace + "' --format json > /dev/full");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "/dev/full")) << r.err;
}

TEST(CliWrites, ClosedPipeIsExit2) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ::close(fds[0]);  // nobody will read: every write is EPIPE
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::dup2(fds[1], 1);
    const int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 2);
    ::execl(KVPLAN_EXE, KVPLAN_EXE, "plan", "--model", "llama-3.1-8b", "--gpu", "h100-sxm-80gb",
            "--context", "32768", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(fds[1]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 2);
}

TEST(CliWrites, FailedTraceWriteKeepsTheOldTrace) {
  kvplan::test::TempDir dir;
  const std::string trace = dir.file("keep.safetensors");
  ASSERT_EQ(kvplan("trace synth --tokens 64 -o '" + trace + "'").code, 0);
  const std::string before = slurp(trace);
  // A file-size limit of 8 KiB makes the second, larger write fail part-way (EFBIG), as a full
  // disk would; SIGXFSZ is ignored so the write returns the error.
  const std::string cmd = "trap '' XFSZ; ulimit -f 16; exec '" + std::string(KVPLAN_EXE) +
                          "' trace synth --tokens 4096 -o '" + trace + "' 2>&1";
  FILE* p = ::popen(("sh -c \"" + cmd + "\"").c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int status = ::pclose(p);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2) << status << " " << out;
  EXPECT_TRUE(has(out, trace)) << out;
  EXPECT_TRUE(has(out, "write failed")) << out;
  EXPECT_EQ(slurp(trace), before) << "the old trace was changed";
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1u) << "a temporary file was left behind";
  // Writing over a device or a directory is refused, not renamed over it.
  auto r = kvplan("trace synth --tokens 16 -o /dev/full");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "/dev/full: cannot write: not a regular file")) << r.err;
  r = kvplan("trace synth --tokens 16 -o '" + dir.path().string() + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "not a regular file")) << r.err;
}

TEST(CliInputs, FifosDirectoriesAndDevicesAreRefusedUnread) {
  kvplan::test::TempDir dir;
  const std::string fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string model = kBad + "valid/tiny_model.bin";
  const std::string tok = kBad + "valid/tiny_tokenizer.bin";
  // `timeout` turns the old behaviour (blocking forever on the FIFO) into a failure, not a hang.
  for (const std::string& args :
       std::vector<std::string>{"check '" + fifo + "'", "trace info '" + fifo + "'",
                                "size --model '" + fifo + "' --context 8",
                                "replay --checkpoint '" + model + "' --tokenizer '" + tok +
                                    "' --tokens-file '" + fifo + "'"}) {
    const auto r = kvplan(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
    EXPECT_TRUE(has(r.err, fifo)) << args << "\n" << r.err;
  }
  auto r = kvplan("check '" + fifo + "'");
  EXPECT_TRUE(has(r.err, "a FIFO, not a regular file")) << r.err;
  r = kvplan("check '" + dir.path().string() + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "a directory, not a regular file")) << r.err;
  EXPECT_FALSE(has(r.err, "9223372036854775807")) << r.err;
  r = kvplan("trace info /dev/null");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "a character device, not a regular file")) << r.err;
}

// A trace whose metadata model name holds a newline, terminal escapes and U+FFFF. (Invalid UTF-8
// cannot get in: the JSON reader refuses it.)
std::string evil_trace(const kvplan::test::TempDir& dir) {
  nlohmann::json h;
  h["__metadata__"] = {{"format", "kvplan-trace"},
                       {"version", "1"},
                       {"model", "evil\n\x1b[2J\x1b[32mPASS\x1b]0;title\x07\r\xef\xbf\xbf"},
                       {"rope_theta", "10000"},
                       {"rope_dims", "4"},
                       {"rope_style", "interleaved"}};
  const char* names[] = {"layers.0.q", "layers.0.k", "layers.0.v"};
  for (int i = 0; i < 3; ++i)
    h[names[i]] = {{"dtype", "F32"}, {"shape", {2, 1, 4}}, {"data_offsets", {32 * i, 32 * i + 32}}};
  std::string header = h.dump();
  header.append((8 - header.size() % 8) % 8, ' ');
  const std::uint64_t n = header.size();
  const std::string p = dir.file("evil.safetensors");
  std::ofstream os(p, std::ios::binary);
  os.write(reinterpret_cast<const char*>(&n), 8);
  os << header << std::string(96, '\0');
  return p;
}

TEST(CliOutput, TraceInfoJsonIsValidAndTextHasNoEscapes) {
  kvplan::test::TempDir dir;
  const std::string p = evil_trace(dir);
  auto r = kvplan("trace info '" + p + "' --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json j;
  ASSERT_NO_THROW(j = nlohmann::json::parse(r.out)) << r.out;
  EXPECT_TRUE(has(j["model"].get<std::string>(), "\n")) << r.out;  // escaped, then decoded
  EXPECT_FALSE(has(r.out, "\x1b")) << r.out;                       // \u001b in the JSON text
  for (const char* fmt : {"table", "md", "csv"}) {
    r = kvplan("trace info '" + p + "' --format " + fmt);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_FALSE(has(r.out, "\x1b")) << fmt << ": " << r.out;
    EXPECT_FALSE(has(r.out, "\r")) << fmt;
    EXPECT_FALSE(has(r.out, "\x07")) << fmt;
    EXPECT_FALSE(has(r.out, "title")) << fmt;                 // the OSC's text went with it
    EXPECT_TRUE(has(r.out, "PASS")) << fmt << ": " << r.out;  // the text stays, inert
  }
}

TEST(CliOutput, JunitObeysXmlCharacterRules) {
  kvplan::test::TempDir dir;
  auto d = nlohmann::json::parse(slurp(kData + "pass.json"));
  d["name"] = "prod\x01\x1b[31m\xef\xbf\xbe\xc2\x85";  // C0 controls, U+FFFE, C1 NEL
  const std::string text = d.dump();
  const std::string p = dir.file("deploy.json");
  std::ofstream(p, std::ios::binary) << text;
  const auto r = kvplan("check '" + p + "' --format junit");
  ASSERT_EQ(r.code, 0) << r.err;
  std::string why;
  EXPECT_TRUE(well_formed_xml(r.out, &why)) << why << "\n" << r.out;
  for (const char* bad : {"\x01", "\x1b", "\xef\xbf\xbe", "\xc2\x85"})
    EXPECT_FALSE(has(r.out, bad)) << r.out;
  EXPECT_TRUE(has(r.out, "\xef\xbf\xbd")) << r.out;  // U+FFFD in their place
}

TEST(CliOutput, ErrorMessagesHaveNoTerminalEscapes) {
  kvplan::test::TempDir dir;
  const std::string p = dir.file("m.json");
  std::ofstream(p) << R"({"kvplan_model": 1, "x\u001b[2J\u001b[32mPASS": 1})";
  const auto r = kvplan("size --model '" + p + "' --context 8");
  EXPECT_EQ(r.code, 2);
  EXPECT_FALSE(has(r.err, "\x1b")) << r.err;
}

// A plan under an older vLLM rule set reports that rule set's budget formula, not the current
// vLLM's: vllm@0.10 keeps the CUDA graphs outside the budget and NCCL inside non-torch
// (core/src/engines/vllm_0_9.cpp, vllm-project/vllm#25359).
TEST(Cli, PlanReportsItsOwnRuleSetsBudget) {
  const auto r = kvplan(
      "plan --model llama-3.1-8b --gpu h100-sxm-80gb --tp 2 --engine vllm@0.10 --format json");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["engine"], "vllm@0.10");
  const std::string s = j["semantics"];
  EXPECT_NE(s.find("NCCL included"), std::string::npos) << s;
  EXPECT_NE(s.find("CUDA graphs outside"), std::string::npos) << s;
}

}  // namespace
