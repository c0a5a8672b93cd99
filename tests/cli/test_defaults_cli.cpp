// One set of defaults and spellings (issue 26 item 6): with no --kv-dtype, size, plan and
// simulate store the KV cache in the model's dtype, as an engine's --kv-cache-dtype auto does;
// the help texts list the format and policy spellings the reports print; every command's help has
// an example; kvplan-gui --help and --version work without a display.
//
// The expected dtypes come from the checkpoints' own config.json (torch_dtype), read here from
// the verbatim copies in tests/data/hf/ (tests/data/hf/README.md says where each was taken from).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_run.hpp"
#include "kvplan/kv_format.hpp"
#include "kvplan/policy.hpp"
#include "temp_dir.hpp"

namespace {

using Run = kvplan::test::CliRun;
Run kvplan(const std::string& args) { return kvplan::test::run_kvplan(args); }
bool has(const std::string& s, const std::string& w) { return s.find(w) != std::string::npos; }

const std::string kHf = std::string(KVPLAN_TEST_DATA_DIR) + "/hf/";

// config.json's torch_dtype, as kvplan spells the format an engine stores for it: vLLM's
// --kv-cache-dtype auto is model_config.dtype (vllm/utils/torch_utils.py
// kv_cache_dtype_str_to_dtype), which is torch_dtype for these unquantized checkpoints, except
// that --dtype auto downcasts float32 to the platform's preferred bfloat16 ("Downcast for float32
// models", _resolve_auto_dtype in vllm/config/model.py).
std::string expected_kv_dtype(const std::string& config) {
  std::ifstream f(kHf + config);
  const auto j = nlohmann::json::parse(f);
  const std::string torch_dtype = j.at("torch_dtype");
  if (torch_dtype == "bfloat16") return "bf16";
  if (torch_dtype == "float16") return "fp16";
  if (torch_dtype == "float32") return "bf16";
  ADD_FAILURE() << config << ": unexpected torch_dtype " << torch_dtype;
  return "";
}

nlohmann::json json_of(const Run& r, const std::string& what) {
  EXPECT_EQ(r.code, 0) << what << "\n" << r.err;
  try {
    return nlohmann::json::parse(r.out);
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": not JSON (" << e.what() << ")\n" << r.out << r.err;
    return {};
  }
}

// One of each torch_dtype: Llama 3.1 8B "bfloat16", Llama 2 7B "float16", Gemma 2 9B "float32".
const std::vector<std::string> kConfigs = {"llama-3.1-8b.json", "llama-2-7b.json",
                                           "gemma-2-9b.json"};

TEST(Defaults, ConfigsCoverEveryTorchDtype) {
  EXPECT_EQ(expected_kv_dtype("llama-3.1-8b.json"), "bf16");
  EXPECT_EQ(expected_kv_dtype("llama-2-7b.json"), "fp16");
  EXPECT_EQ(expected_kv_dtype("gemma-2-9b.json"), "bf16");  // float32, served in bf16
}

TEST(Defaults, SizeStoresTheModelsDtype) {
  for (const auto& c : kConfigs) {
    const auto j =
        json_of(kvplan("size --model '" + kHf + c + "' --context 1024 --format json"), c);
    EXPECT_EQ(j.value("kv_dtype", ""), expected_kv_dtype(c)) << c;
  }
  // Gemma 2 9B (float32 config, served in bf16) at 1024 tokens (under its 4096-token window, so
  // every layer holds them): 42 layers · 8 KV heads · (256 + 256) · 2 bytes = 344,064 bytes per
  // token (plan's --weight-dtype fp32, vLLM's --dtype float32, keeps fp32: PlanStores...).
  const auto g =
      json_of(kvplan("size --model '" + kHf + "gemma-2-9b.json' --context 1024 --format json"), "");
  EXPECT_EQ(g.value("bytes_per_request", 0ull), 1024ull * 42 * 8 * (256 + 256) * 2);
  // The presets of the same checkpoints (their "source" is the config.json above).
  EXPECT_EQ(json_of(kvplan("size --model llama-2-7b --context 8 --format json"), "")["kv_dtype"],
            "fp16");
  EXPECT_EQ(json_of(kvplan("size --model llama-3.1-8b --context 8 --format json"), "")["kv_dtype"],
            "bf16");
  // A format given still wins.
  EXPECT_EQ(json_of(kvplan("size --model llama-2-7b --context 8 --kv-dtype fp8 --format json"),
                    "")["kv_dtype"],
            "fp8");
}

TEST(Defaults, PlanStoresTheModelsDtype) {
  for (const auto& c : kConfigs) {
    const auto j = json_of(kvplan("plan --model '" + kHf + c +
                                  "' --gpu h200-141gb --context 4096 --brief --format json"),
                           c);
    EXPECT_EQ(j.value("kv_dtype", ""), expected_kv_dtype(c)) << c;
  }
  // vLLM's --dtype float32 makes --kv-cache-dtype auto an fp32 cache: plan's --weight-dtype is
  // that --dtype.
  const auto j = json_of(kvplan("plan --model llama-3.1-8b --gpu h200-141gb --context 4096 "
                                "--weight-dtype fp32 --brief --format json"),
                         "--weight-dtype fp32");
  EXPECT_EQ(j.value("kv_dtype", ""), "fp32");
  // A float32 checkpoint under --dtype auto is loaded in bf16 too (vLLM's downcast): 2 bytes a
  // parameter, the same weights as --weight-dtype bf16 and half of --weight-dtype fp32.
  auto weights = [&](const std::string& extra) {
    return json_of(kvplan("plan --model '" + kHf +
                          "gemma-2-9b.json' --gpu h200-141gb --context 4096 --brief "
                          "--format json" +
                          extra),
                   extra)["memory"]["weight_bytes"]
        .get<std::uint64_t>();
  };
  const std::uint64_t served = weights("");
  EXPECT_EQ(served, weights(" --weight-dtype bf16"));
  EXPECT_EQ(2 * served, weights(" --weight-dtype fp32"));
  // An empty --kv-dtype is bad input, not the default, on every command.
  for (const char* cmd : {"size --model llama-3.1-8b --context 8",
                          "plan --model llama-3.1-8b --gpu h200-141gb --context 8 --brief",
                          "simulate --model llama-3.1-8b --gpu h200-141gb --workload w.json"}) {
    const auto r = kvplan(std::string(cmd) + " --kv-dtype ''");
    EXPECT_EQ(r.code, 2) << cmd << "\n" << r.out << r.err;
    EXPECT_TRUE(has(r.err, "--kv-dtype")) << cmd << "\n" << r.err;
  }
}

TEST(Defaults, SimulateStoresTheModelsDtype) {
  // A short load: Poisson arrivals at 2/s for 5 s, prompts of 100..400 tokens, 16..64 out.
  kvplan::test::TempDir dir;
  const std::string workload = dir.file("w.json");
  std::ofstream(workload) << R"({"kvplan_workload": 1, "arrival": "poisson",
    "stages": [{"rate": 2, "duration_s": 5}],
    "prompt_tokens": {"dist": "uniform", "min": 100, "max": 400},
    "output_tokens": {"dist": "uniform", "min": 16, "max": 64}})";
  // Not Gemma 2 9B's float32 config: the step-time model has no fp32 peak and refuses fp32
  // weights (an engine downcasts them to 16 bits: vLLM's _resolve_auto_dtype).
  for (const std::string c : {"llama-3.1-8b.json", "llama-2-7b.json"}) {
    const auto j = json_of(kvplan("simulate --model '" + kHf + c +
                                  "' --gpu h200-141gb --max-model-len 4096 --workload '" +
                                  workload + "' --format json"),
                           c);
    EXPECT_EQ(j["config"].value("kv_dtype", ""), expected_kv_dtype(c)) << c;
  }
}

TEST(Defaults, HelpListsTheSpellingsTheReportsPrint) {
  // The fraction spelling users saw printed where help said h2o:heavy=N,recent=M.
  const auto printed = json_of(
      kvplan("size --model llama-3.1-8b --context 8 --policy h2o:keep=0.2,recent=0.1 --format "
             "json"),
      "");
  EXPECT_EQ(printed.value("policy", ""), "h2o:keep=0.2,recent=0.1");
  const auto policies = kvplan::policy_spellings();
  ASSERT_EQ(policies.size(), 5u);
  EXPECT_EQ(policies[3], "h2o:keep=0.2,recent=0.1");
  for (const auto& spec : policies) {
    EXPECT_EQ(kvplan::to_string(kvplan::parse_policy(spec)), spec);
    const auto j = json_of(
        kvplan("size --model llama-3.1-8b --context 8 --policy '" + spec + "' --format json"),
        spec);
    EXPECT_EQ(j.value("policy", ""), spec) << "help's spelling is not what the report prints";
  }
  // Every format as the reports print it: fp8_e4m3 is an alias the reports print as fp8.
  const std::vector<std::string> formats = {
      "fp32", "fp16", "bf16", "fp8", "fp8_e5m2", "int8", "kivi:bits=2,group=32,residual=128"};
  EXPECT_EQ(kvplan::kv_format_spellings(), formats);
  for (const auto& f : formats) {
    const auto j = json_of(
        kvplan("size --model llama-3.1-8b --context 8 --kv-dtype '" + f + "' --format json"), f);
    EXPECT_EQ(j.value("kv_dtype", ""), f);
  }
  for (const char* cmd : {"size", "plan", "simulate", "generate", "replay"}) {
    const auto r = kvplan(std::string(cmd) + " --help");
    ASSERT_EQ(r.code, 0) << cmd << "\n" << r.err;
    // Each spelling whole, on one line (a spelling cut by the wrapping could not be copied).
    for (const auto& s : policies) EXPECT_TRUE(has(r.out, s)) << cmd << ": " << s << "\n" << r.out;
    for (const auto& f : formats) EXPECT_TRUE(has(r.out, f)) << cmd << ": " << f << "\n" << r.out;
    EXPECT_FALSE(has(r.out, "h2o:heavy=N")) << cmd << "\n" << r.out;
    EXPECT_TRUE(has(r.out, "the model's dtype")) << cmd << "\n" << r.out;
  }
}

// Each command kvplan --help lists, each trace subcommand, help and completion.
TEST(Defaults, EveryCommandsHelpHasAnExample) {
  const auto top = kvplan("--help");
  ASSERT_EQ(top.code, 0) << top.err;
  EXPECT_TRUE(has(top.out, "\nexample:\n  kvplan ")) << top.out;
  std::vector<std::string> commands;
  std::istringstream lines(top.out.substr(top.out.find("commands:")));
  std::string line;
  std::getline(lines, line);
  while (std::getline(lines, line) && line.rfind("  ", 0) == 0)
    commands.push_back(line.substr(2, line.find(' ', 2) - 2));
  ASSERT_GE(commands.size(), 12u) << top.out;  // 10 registered, help, completion
  for (const char* sub : {"trace capture", "trace synth", "trace info"}) commands.push_back(sub);
  for (const auto& c : commands) {
    const auto r = kvplan(c + " --help");
    EXPECT_EQ(r.code, 0) << c << "\n" << r.err;
    EXPECT_TRUE(has(r.out, "\nexample:\n  kvplan ")) << c << "\n" << r.out;
  }
}

// kvplan-gui --help and --version answer without a display: QApplication would abort.
TEST(Defaults, GuiHelpWithoutADisplay) {
#ifndef KVPLAN_GUI_EXE
  GTEST_SKIP() << "kvplan-gui is not built in this configuration (KVPLAN_GUI=OFF or no Qt 6)";
#else
  const std::string env =
      "env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM '" KVPLAN_GUI_EXE "' ";
  const auto help = kvplan::test::run_shell(env + "--help");
  EXPECT_EQ(help.code, 0) << help.out;
  for (const char* w : {"--screenshot <DIR>", "--deployment <FILE>", "--version", "Example:"})
    EXPECT_TRUE(has(help.out, w)) << w << "\n" << help.out;
  const auto version = kvplan::test::run_shell(env + "--version");
  EXPECT_EQ(version.code, 0) << version.out;
  EXPECT_EQ(version.out.rfind("kvplan-gui ", 0), 0u) << version.out;
  // A bad option beside --help: exit 2 naming it, still without a display.
  const auto bad = kvplan::test::run_shell(env + "--bogus --help");
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_TRUE(has(bad.out, "bogus")) << bad.out;
  // A value that looks like an option is the option's value: --deployment's FILE "--help" is
  // no request for help, the --version after it is answered.
  const auto value = kvplan::test::run_shell(env + "--deployment --help --version");
  EXPECT_EQ(value.out.rfind("kvplan-gui ", 0), 0u) << value.out;
#endif
}

}  // namespace

namespace {

// --vllm-version 0.19: vLLM 0.17 - 0.19 capture CUDA graphs after the KV cache, outside
// --gpu-memory-utilization, so the context (CUDA context and NCCL at TP > 1: 1.54 GiB, llm-d's
// TP 2 row: 79.18 - 77.64) and the graphs (2.44 GiB, the largest pool a 0.19 log shows) must fit
// in what 0.95 leaves out of an H100's 79.175 GiB: 0.05 x 79.175 = 3.96 GiB < 1.54 + 2.44 = 3.98.
// At TP 1 the context is 0.61 GiB: 3.05 GiB fits. The current rules deduct a 0.58 GiB estimate
// from the budget instead, and TP 2 starts.
TEST(Defaults, VllmVersionSetsTheRules) {
  const std::string line =
      "check --gpu h100-sxm-80gb --format json --vllm \"vllm serve "
      "openai/gpt-oss-20b --gpu-memory-utilization 0.95 ";
  const auto starts = [](const kvplan::test::CliRun& r) {
    const auto j = nlohmann::json::parse(r.out);
    for (const auto& c : j["checks"])
      if (c["id"] == "engine_starts") return c["passed"].get<bool>();
    ADD_FAILURE() << "no engine_starts item\n" << r.out;
    return false;
  };
  const auto tp2 = kvplan(line + "-tp 2\" --vllm-version 0.19");
  EXPECT_EQ(tp2.code, 1) << tp2.err;
  EXPECT_FALSE(starts(tp2));
  EXPECT_TRUE(has(tp2.out, "vllm@0.19")) << tp2.out;
  const auto tp1 = kvplan(line + "-tp 1\" --vllm-version 0.19.1");
  EXPECT_EQ(tp1.code, 0) << tp1.out;
  EXPECT_TRUE(starts(tp1));
  const auto current = kvplan(line + "-tp 2\"");
  EXPECT_EQ(current.code, 0) << current.out;
  // A release kvplan has no rules for, or the flag without a vLLM line: exit 2 naming it.
  const auto unknown = kvplan(line + "\" --vllm-version 0.15");
  EXPECT_EQ(unknown.code, 2);
  EXPECT_TRUE(has(unknown.err, "--vllm-version")) << unknown.err;
  const auto sglang = kvplan(
      "check --gpu h100-sxm-80gb --sglang \"python -m sglang.launch_server --model-path "
      "openai/gpt-oss-20b\" --vllm-version 0.19");
  EXPECT_EQ(sglang.code, 2);
  EXPECT_TRUE(has(sglang.err, "--vllm-version")) << sglang.err;
}

}  // namespace
