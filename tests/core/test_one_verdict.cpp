// One deployment, one verdict: the same Llama 3.1 8B deployment stated as kvplan flags (plan,
// simulate), as a vLLM command line, as a deployment file and as the GUI's form resolves to the
// same plan, the same capacity and the same refusals (DeploymentRequest / resolve, request.hpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "kvplan/deploy.hpp"
#include "kvplan/engine_args.hpp"
#include "kvplan/engine_rules.hpp"
#include "kvplan/error.hpp"
#include "kvplan/gpu.hpp"
#include "kvplan/kv_format.hpp"
#include "kvplan/manifest.hpp"
#include "kvplan/model.hpp"
#include "kvplan/planner.hpp"
#include "kvplan/request.hpp"
#include "temp_dir.hpp"

namespace kvplan {
namespace {

// A deployment file in the build tree for one test, removed when it goes out of scope.
struct TempDeployFile {
  std::string path;
  explicit TempDeployFile(const std::string& text)
      : path(std::string(KVPLAN_BINARY_DIR) + "/one_verdict_" + std::to_string(::getpid()) +
             ".json") {
    std::ofstream(path) << text;
  }
  ~TempDeployFile() { std::remove(path.c_str()); }
};

// One deployment as its sources state it: the model (a preset id, or a directory holding its
// config.json), the name its engine command line serves it under, the GPU preset and the engine.
struct Stated {
  std::string model = "llama-3.1-8b";
  std::string served = "meta-llama/Llama-3.1-8B";
  std::string gpu = "h100-sxm-80gb";
  Engine engine = Engine::vllm;
};

// The sources of one deployment on one GPU: kvplan's flags, the same settings as the engine's
// own flags (`vllm serve`, `python -m sglang.launch_server`), and as the deployment file's
// "engine" keys.
DeploymentRequest as_flags(const std::uint64_t context, std::optional<std::uint64_t> mnbt,
                           std::optional<std::uint64_t> seqs, const Stated& s = {}) {
  DeploymentRequest r;
  r.model = s.model;
  r.gpu = s.gpu;
  r.engine = to_string(s.engine);
  r.context = context;
  if (mnbt) r.max_num_batched_tokens = *mnbt;
  r.max_num_seqs = seqs;
  return r;
}

DeploymentRequest as_command(const std::uint64_t context, std::optional<std::uint64_t> mnbt,
                             std::optional<std::uint64_t> seqs, const Stated& s = {}) {
  DeploymentRequest r;
  r.source = DeploymentRequest::Source::engine_command;
  r.command_engine = s.engine;
  // Each engine's own spelling of the three settings (SettingsFields in engines/).
  const SettingsFields flag = engine_rules(s.engine).settings_flag_names();
  switch (s.engine) {
    case Engine::sglang:
      r.command_line = "python -m sglang.launch_server --model-path " + s.served;
      break;
    case Engine::trtllm:
      r.command_line = "trtllm-serve " + s.served;
      break;
    case Engine::vllm:
      r.command_line = "vllm serve " + s.served;
      break;
  }
  r.command_line += " " + flag.max_model_len + " " + std::to_string(context);
  if (mnbt) r.command_line += " " + flag.max_num_batched_tokens + " " + std::to_string(*mnbt);
  if (seqs) r.command_line += " " + flag.max_num_seqs + " " + std::to_string(*seqs);
  r.gpu = s.gpu;
  return r;
}

std::string as_file_text(const std::uint64_t context, std::optional<std::uint64_t> mnbt,
                         std::optional<std::uint64_t> seqs, const Stated& s = {}) {
  std::string engine =
      "\"name\": \"" + to_string(s.engine) + "\", \"max_model_len\": " + std::to_string(context);
  if (mnbt) engine += R"(, "max_num_batched_tokens": )" + std::to_string(*mnbt);
  if (seqs) engine += R"(, "max_num_seqs": )" + std::to_string(*seqs);
  return R"({"kvplan_deploy": 1, "model": ")" + s.model + R"(",
            "hardware": {"gpu": ")" +
         s.gpu + R"(", "gpus": 1},
            "engine": {)" +
         engine + R"(}, "slo": {"context": 4096, "concurrency": 1}})";
}

std::vector<ResolvedDeployment> resolve_all(std::uint64_t context,
                                            std::optional<std::uint64_t> mnbt,
                                            std::optional<std::uint64_t> seqs = std::nullopt,
                                            const Stated& s = {}) {
  std::vector<ResolvedDeployment> out;
  out.push_back(resolve(as_flags(context, mnbt, seqs, s)));
  out.push_back(resolve(as_command(context, mnbt, seqs, s)));
  const TempDeployFile f(as_file_text(context, mnbt, seqs, s));
  DeploymentRequest r;
  r.source = DeploymentRequest::Source::deploy_file;
  r.path = f.path;
  out.push_back(resolve(r));
  // The GUI's planner form states the deployment as built values (gui/src/plan_settings.cpp,
  // planner_deployment): the model, the GPU and the plan.
  DeploymentRequest form;
  form.source = DeploymentRequest::Source::form;
  Deployment d;
  d.model = load_model(s.model);
  d.gpu = load_gpu(s.gpu);
  d.plan.engine = s.engine;
  d.plan.context = context;
  d.plan.format = parse_kv_format("bf16");
  d.plan.gpu_memory_bytes = d.gpu.engine_memory_bytes();
  d.plan.gpu_id = d.gpu.id;
  // Left out, the engine's default on this GPU, as the form's plan_input_of takes it (the GUI's
  // own test compares its planner with core on a small card, test_gui_planner.cpp).
  d.plan.max_num_batched_tokens =
      mnbt.value_or(engine_rules(d.plan).default_max_num_batched_tokens(d.plan));
  d.max_num_seqs = seqs;
  d.plan.max_num_seqs = seqs;
  d.slo.context = 4096;
  form.form = d;
  form.names = ShapeFields{};
  out.push_back(resolve(form));
  return out;
}

// `run` throws an input error (exit 2) from `source` whose text holds `needle`.
template <typename F>
void expect_error(F run, const std::string& source, const std::string& needle) {
  try {
    run();
    ADD_FAILURE() << "no error; expected one from " << source;
  } catch (const Error& e) {
    EXPECT_EQ(e.source(), source) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_EQ(e.exit_code(), 2);
  }
}

// Every path plans the same pool: the same memory left for the KV cache, blocks, tokens and
// requests as the first.
void expect_same_capacity(const std::vector<ResolvedDeployment>& all) {
  ASSERT_FALSE(all.empty());
  const Capacity first = plan_capacity(all[0].deploy.model, all[0].deploy.plan, "first");
  EXPECT_GT(first.num_gpu_blocks, 0u);
  for (const auto& d : all) {
    EXPECT_TRUE(d.refusals.empty()) << d.deploy.source;
    EXPECT_EQ(d.deploy.plan.max_num_batched_tokens, all[0].deploy.plan.max_num_batched_tokens)
        << d.deploy.source;
    const Capacity c = plan_capacity(d.deploy.model, d.deploy.plan, d.deploy.source);
    EXPECT_EQ(c.num_gpu_blocks, first.num_gpu_blocks) << d.deploy.source;
    EXPECT_EQ(c.memory.available_bytes, first.memory.available_bytes) << d.deploy.source;
    EXPECT_EQ(c.memory.weight_bytes, first.memory.weight_bytes) << d.deploy.source;
    EXPECT_EQ(c.max_requests, first.max_requests) << d.deploy.source;
    EXPECT_EQ(c.kv_cache_tokens, first.kv_cache_tokens) << d.deploy.source;
    EXPECT_TRUE(run_check(d.deploy).passed()) << d.deploy.source;
  }
}

TEST(OneVerdict, APassingDeploymentHasTheSameNumbersOnEveryPath) {
  // Llama 3.1 8B bf16 on one H100 (79.18 GiB as CUDA reports it), vLLM defaults: 0.9 · memory −
  // 14.96 GiB of weights − activation peak − non-torch memory (engine_memory.md); 128 KiB per token
  // (32 layers · 8 KV heads · 128 · 2 · 2 bytes), so each path must give the same block count — and
  // the one path's numbers are checked by hand in test_planner.cpp; here they must agree.
  const auto all = resolve_all(8192, std::nullopt);
  ASSERT_EQ(all.size(), 4u);
  for (const auto& d : all) {
    EXPECT_EQ(d.deploy.plan.context, 8192u);
    EXPECT_EQ(d.deploy.plan.max_num_batched_tokens, kDefaultMaxNumBatchedTokens);
  }
  expect_same_capacity(all);
}

// The same deployment as a Kubernetes Deployment (docs/k8s.md): one H100 by its GPU product
// label, the vllm serve args as the container's. A manifest is checked, not planned, so its
// verdict is check's: the same numbers when it passes, the same refusal when it does not.
std::string as_manifest(std::uint64_t context, const std::string& extra_args) {
  return R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: llama, namespace: serving}
spec:
  replicas: 1
  template:
    spec:
      nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}
      containers:
      - name: vllm
        image: vllm/vllm-openai:latest
        command: ["vllm", "serve"]
        args: ["meta-llama/Llama-3.1-8B", "--max-model-len", ")" +
         std::to_string(context) + "\"" + extra_args + R"(]
        resources: {limits: {nvidia.com/gpu: 1}}
)";
}

TEST(OneVerdict, AKubernetesManifestGetsTheSameVerdict) {
  const auto flags = resolve_all(8192, std::nullopt).front();
  const Capacity want = plan_capacity(flags.deploy.model, flags.deploy.plan, "flags");
  const ManifestScan ok = read_manifests(as_manifest(8192, ""), "deploy.yaml");
  ASSERT_EQ(ok.deployments.size(), 1u);
  const Deployment d = manifest_deployment(ok.deployments[0]);
  const Capacity got = plan_capacity(d.model, d.plan, "manifest");
  EXPECT_EQ(got.num_gpu_blocks, want.num_gpu_blocks);
  EXPECT_EQ(got.memory.available_bytes, want.memory.available_bytes);
  EXPECT_EQ(got.kv_cache_tokens, want.kv_cache_tokens);
  EXPECT_TRUE(check_manifests(ok).passed());
  // max_num_batched_tokens 128 under a stated max_num_seqs 256: refused as on every other path.
  const ManifestReport low = check_manifests(read_manifests(
      as_manifest(8192, R"(, "--max-num-batched-tokens", "128", "--max-num-seqs", "256")"),
      "deploy.yaml"));
  ASSERT_EQ(low.checks.size(), 1u);
  EXPECT_FALSE(low.passed());
  const auto& items = low.checks[0].report.items;
  const auto engine = std::find_if(items.begin(), items.end(),
                                   [](const CheckItem& i) { return i.id == "engine_settings"; });
  ASSERT_NE(engine, items.end());
  EXPECT_FALSE(engine->passed);
  EXPECT_NE(engine->detail.find("128 is less than max_num_seqs 256: vLLM refuses "
                                "max_num_batched_tokens < max_num_seqs"),
            std::string::npos)
      << engine->detail;
  // A context past Llama 3.1's 131,072 positions: refused too.
  EXPECT_FALSE(check_manifests(read_manifests(as_manifest(262144, ""), "deploy.yaml")).passed());
}

TEST(OneVerdict, FewerBatchedTokensThanSequencesIsRefusedOnEveryPath) {
  // vLLM's SchedulerConfig refuses max_num_batched_tokens (128) < a stated max_num_seqs (256):
  // every source gets the same refusal, named its own way. (Unstated, max_num_seqs is
  // min(default, max_num_batched_tokens) and nothing is refused: the next test.)
  const auto all = resolve_all(8192, 128, 256);
  const std::string expected =
      "128 is less than max_num_seqs 256: vLLM refuses "
      "max_num_batched_tokens < max_num_seqs";
  const char* fields[] = {"--max-num-batched-tokens", "--max-num-batched-tokens",
                          "/engine/max_num_batched_tokens", "max_num_batched_tokens"};
  for (std::size_t k = 0; k < all.size(); ++k) {
    ASSERT_EQ(all[k].refusals.size(), 1u) << all[k].deploy.source;
    EXPECT_EQ(all[k].refusals[0].message, expected);
    EXPECT_EQ(all[k].refusals[0].field, fields[k]);
    EXPECT_THROW(refuse_if_any(all[k]), Error);
    // check reports the same refusal as its engine_settings item and fails.
    const CheckReport r = run_check(all[k].deploy);
    EXPECT_FALSE(r.passed());
    ASSERT_FALSE(r.items.empty());
    EXPECT_EQ(r.items[0].id, "engine_settings");
    EXPECT_FALSE(r.items[0].passed);
    EXPECT_NE(r.items[0].detail.find(expected), std::string::npos) << r.items[0].detail;
  }
}

TEST(OneVerdict, AnUnstatedMaxNumSeqsFollowsTheBatchedTokens) {
  // vllm/engine/arg_utils.py@99d7eb5d _set_default_args: "self.max_num_seqs =
  // min(default_max_num_seqs[usage_context], self.max_num_batched_tokens or sys.maxsize)" when
  // --max-num-seqs is not given, so 128 batched tokens run 128 sequences: nothing is refused, on
  // any path.
  for (const auto& r : resolve_all(8192, 128)) {
    EXPECT_TRUE(r.refusals.empty()) << r.deploy.source << ": " << r.refusals.front().message;
    EXPECT_TRUE(run_check(r.deploy).passed()) << r.deploy.source;
  }
}

TEST(OneVerdict, AContextBeyondTheModelIsRefusedOnEveryPath) {
  // Llama 3.1 8B has 131,072 positions (max_position_embeddings in its config.json).
  const auto all = resolve_all(262144, std::nullopt);
  // The model is named as each source names it (the preset id, or the repo id as written).
  const std::string names[] = {"llama-3.1-8b", "meta-llama/Llama-3.1-8B", "llama-3.1-8b",
                               "llama-3.1-8b"};
  for (std::size_t k = 0; k < all.size(); ++k) {
    const auto& d = all[k];
    ASSERT_EQ(d.refusals.size(), 1u) << d.deploy.source;
    EXPECT_EQ(d.refusals[0].message, "262144 tokens exceed the 131072 positions of " + names[k] +
                                         " (max_position_embeddings): vLLM refuses to start");
    EXPECT_NE(d.refusals[0].fix.find("131072"), std::string::npos);
    EXPECT_FALSE(run_check(d.deploy).passed());
  }
}

TEST(OneVerdict, ABadShapeIsTheSameErrorOnEveryPath) {
  // TP 3 does not divide Llama 3.1 8B's 32 attention heads: invalid input on every path.
  DeploymentRequest flags = as_flags(8192, std::nullopt, std::nullopt);
  flags.tp = 3;
  DeploymentRequest cmd = as_command(8192, std::nullopt, std::nullopt);
  cmd.command_line += " --tensor-parallel-size 3";
  for (const auto& r : {flags, cmd}) {
    try {
      resolve(r);
      ADD_FAILURE() << "TP 3 resolved";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("32"), std::string::npos) << e.what();
      EXPECT_EQ(e.exit_code(), 2);
    }
  }
}

TEST(OneVerdict, PerTermCorrectionsKeepTheRulesTheyWereMeasuredUnder) {
  // A calibration's terms are deltas to kvplan's terms under the log's rule set: a vLLM 0.10.2
  // log's non-torch delta is against vllm@0.10's non-torch memory (NCCL included), which the
  // current rules' does not hold, so it applies only under vllm@0.10 (exit 2 otherwise).
  test::TempDir dir;
  const std::string cal = (dir.path() / "cal.json").string();
  std::ofstream(cal) << R"({"kvplan_calibration": 1, "engine": "vllm", "version": "0.10.2",
      "terms": {"activation_delta_bytes": 0, "non_torch_delta_bytes": -107374182}})";
  DeploymentRequest r = as_flags(8192, std::nullopt, std::nullopt);
  r.tp = 2;
  r.calibration = cal;
  try {
    resolve(r);
    ADD_FAILURE() << "a 0.10.2 calibration applied under the current rules";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("/version"), std::string::npos) << m;
    EXPECT_NE(m.find("--engine vllm@0.10"), std::string::npos) << m;
    EXPECT_EQ(e.exit_code(), 2);
  }
  r.engine = "vllm@0.10";
  const auto d = resolve(r);
  ASSERT_TRUE(d.deploy.plan.memory_corrections.has_value());
  EXPECT_EQ(d.deploy.plan.memory_corrections->non_torch_delta_bytes, -107374182);
}

TEST(OneVerdict, OverridesApplyBeforeTheRules) {
  // check --context 1024 over a deployment file whose SLO has mean_context 4096: the override
  // makes the mean longer than the context, which is refused naming mean_context: overrides
  // apply before the SLO is validated.
  const TempDeployFile f(R"({"kvplan_deploy": 1, "model": "llama-3.1-8b",
      "hardware": {"gpu": "h100-sxm-80gb"}, "engine": {"name": "vllm", "max_model_len": 8192},
      "slo": {"context": 8192, "concurrency": 2, "mean_context": 4096}})");
  DeploymentRequest r;
  r.source = DeploymentRequest::Source::deploy_file;
  r.path = f.path;
  r.slo_context = 1024;
  try {
    resolve(r);
    ADD_FAILURE() << "mean_context 4096 over context 1024 resolved";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "mean_context");
  }
  r.slo_context = 8192;
  r.slo_concurrency = 5;
  const auto d = resolve(r);
  EXPECT_EQ(d.deploy.slo.concurrency, 5u);
  EXPECT_EQ(d.deploy.plan.concurrency, 5u);
  // The deployment file states its own GPU: --gpu with it is refused, naming the flag.
  r.gpu = "h200-141gb";
  EXPECT_THROW(resolve(r), Error);
}

TEST(OneVerdict, AnSglangDeploymentHasTheSameNumbersOnEveryPath) {
  // Qwen3-8B under SGLang on one H100: flags, `python -m sglang.launch_server`, a deployment file
  // and the form take SGLang's defaults for this GPU (mem_fraction_static from its memory,
  // chunked-prefill size 8192 on an 80 GB card: server_args.py, see engines/sglang.cpp) the same
  // way, so they plan the same pool.
  const Stated qwen{.model = "qwen3-8b", .served = "Qwen/Qwen3-8B", .engine = Engine::sglang};
  const auto all = resolve_all(8192, std::nullopt, std::nullopt, qwen);
  ASSERT_EQ(all.size(), 4u);
  for (const auto& d : all) EXPECT_EQ(d.deploy.plan.engine, Engine::sglang) << d.deploy.source;
  expect_same_capacity(all);
  // A stated chunk reaches every path the same way too.
  expect_same_capacity(resolve_all(8192, 4096, std::nullopt, qwen));
}

TEST(OneVerdict, ATensorRtLlmDeploymentHasTheSameNumbersOnEveryPath) {
  // Llama 3.1 8B under TensorRT-LLM's PyTorch backend on one H100: flags, `trtllm-serve` (its
  // --max_seq_len / --max_num_tokens / --max_batch_size), a deployment file and the form take
  // trtllm-serve's defaults (free_gpu_memory_fraction 0.9 of what the weights leave, 8192 batched
  // tokens: engines/trtllm.cpp) the same way, so they plan the same pool.
  const Stated llama{.engine = Engine::trtllm};
  const auto all = resolve_all(8192, std::nullopt, std::nullopt, llama);
  ASSERT_EQ(all.size(), 4u);
  for (const auto& d : all) EXPECT_EQ(d.deploy.plan.engine, Engine::trtllm) << d.deploy.source;
  expect_same_capacity(all);
  // Stated batched tokens and batch size reach every path the same way.
  const auto stated = resolve_all(8192, 4096, 64, llama);
  expect_same_capacity(stated);
  for (const auto& d : stated) {
    EXPECT_EQ(d.deploy.plan.max_num_batched_tokens, 4096u) << d.deploy.source;
    EXPECT_EQ(d.deploy.max_num_seqs, std::optional<std::uint64_t>(64)) << d.deploy.source;
  }
}

// simulate's --max-batch-size and --max-num-tokens are trtllm-serve's names (--max_batch_size,
// --max_num_tokens) for max_num_seqs and max_num_batched_tokens: under TensorRT-LLM they plan as
// the generic flags do; beside the generic flag, or with another engine, they are refused by name.
TEST(OneVerdict, AnEnginesOwnNameForASettingIsThatSetting) {
  const Stated llama{.engine = Engine::trtllm};
  DeploymentRequest named = as_flags(8192, std::nullopt, std::nullopt, llama);
  named.engine_named = {{"--max-batch-size", 64}, {"--max-num-tokens", 4096}};
  const ResolvedDeployment n = resolve(named);
  const ResolvedDeployment g = resolve(as_flags(8192, 4096, 64, llama));
  EXPECT_EQ(n.deploy.max_num_seqs, std::optional<std::uint64_t>(64));
  EXPECT_EQ(n.deploy.plan.max_num_batched_tokens, 4096u);
  expect_same_capacity({n, g});

  named.engine_named = {{"--max-batch-size", 0}};
  expect_error([&] { resolve(named); }, "--max-batch-size", "got 0");
  DeploymentRequest both = as_flags(8192, std::nullopt, 64, llama);
  both.engine_named = {{"--max-batch-size", 64}};
  expect_error([&] { resolve(both); }, "--max-batch-size", "not both");
  DeploymentRequest vllm = as_flags(8192, std::nullopt, std::nullopt);
  vllm.engine_named = {{"--max-num-tokens", 4096}};
  expect_error([&] { resolve(vllm); }, "--max-num-tokens",
               "TensorRT-LLM's name for max_num_batched_tokens: it needs --engine trtllm");
  vllm.engine_named = {{"--max-tokens", 4096}};
  expect_error([&] { resolve(vllm); }, "--max-tokens", "no engine's name");
}

// Only vLLM's rules have versions: a version given for another engine's command line is refused
// by name, as an unknown vLLM version is.
TEST(OneVerdict, AVersionIsRefusedForAnEngineWithOneRuleSet) {
  DeploymentRequest r;
  r.source = DeploymentRequest::Source::engine_command;
  r.command_engine = Engine::sglang;
  r.command_line = "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B";
  r.model = "llama-3.1-8b";
  r.gpu = "h100-sxm-80gb";
  r.engine_version = "0.5.2";
  expect_error([&] { resolve(r); }, "--vllm-version", "SGLang has one rule set");
  r.command_engine = Engine::vllm;
  r.command_line = "vllm serve meta-llama/Llama-3.1-8B";
  r.engine_version = "0.9.2";
  EXPECT_EQ(resolve(r).deploy.plan.vllm().rules, VllmRules::v0_9);
}

TEST(OneVerdict, TensorRtLlmBackendNamesMeanTheSameInAFileAndOnItsCommandLine) {
  // trtllm-serve --backend takes pytorch, tensorrt, _autodeploy and the alias trt
  // (tensorrt_llm/commands/serve.py, ChoiceWithAlias); the file's "backend" reads the same names.
  // The TensorRT engine's KV blocks hold 64 tokens, the PyTorch runtime's 32 (engines/trtllm.cpp).
  const Stated llama{.engine = Engine::trtllm};
  for (const auto& [name, block] : std::vector<std::pair<std::string, std::uint32_t>>{
           {"pytorch", 32}, {"_autodeploy", 32}, {"tensorrt", 64}, {"trt", 64}}) {
    DeploymentRequest cmd = as_command(8192, std::nullopt, std::nullopt, llama);
    cmd.command_line += " --backend " + name;
    std::string text = as_file_text(8192, std::nullopt, std::nullopt, llama);
    const std::string at = R"("max_model_len": 8192)";
    text.replace(text.find(at), at.size(), at + R"(, "backend": ")" + name + "\"");
    const TempDeployFile f(text);
    DeploymentRequest file;
    file.source = DeploymentRequest::Source::deploy_file;
    file.path = f.path;
    DeploymentRequest flags = as_flags(8192, std::nullopt, std::nullopt, llama);
    flags.engine_options = {"backend=" + name};
    const std::vector<ResolvedDeployment> all = {resolve(cmd), resolve(file), resolve(flags)};
    for (const auto& d : all)
      EXPECT_EQ(plan_capacity(d.deploy.model, d.deploy.plan, d.deploy.source).block_size, block)
          << name << " " << d.deploy.source;
    expect_same_capacity(all);
  }
  // A name trtllm-serve does not take is refused by both readers, naming the field.
  for (const std::string bad : {"\"cpp\"", "\"TRT\""}) {
    std::string text = as_file_text(8192, std::nullopt, std::nullopt, llama);
    const std::string at = R"("max_model_len": 8192)";
    text.replace(text.find(at), at.size(), at + R"(, "backend": )" + bad);
    const TempDeployFile f(text);
    DeploymentRequest file;
    file.source = DeploymentRequest::Source::deploy_file;
    file.path = f.path;
    try {
      resolve(file);
      ADD_FAILURE() << bad << " resolved";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("/engine/backend"), std::string::npos) << e.what();
      EXPECT_EQ(e.exit_code(), 2);
    }
  }
}

// A directory holding a model's config.json, removed when it goes out of scope.
struct TempModelDir {
  std::filesystem::path path;
  explicit TempModelDir(const std::filesystem::path& config)
      : path(std::filesystem::path(KVPLAN_BINARY_DIR) /
             ("one_verdict_model_" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path);
    std::filesystem::copy_file(config, path / "config.json",
                               std::filesystem::copy_options::overwrite_existing);
  }
  ~TempModelDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

TEST(OneVerdict, AModelDirectoryIsThePresetBuiltFromItsConfig) {
  // The qwen3-8b preset is Qwen/Qwen3-8B's config.json (models/models/qwen3-8b.json names
  // hf/qwen3-8b.json); a directory holding that file, named on any path, is the same model.
  const TempModelDir dir(std::filesystem::path(KVPLAN_TEST_DATA_DIR) /
                         "../../models/hf/qwen3-8b.json");
  std::vector<ResolvedDeployment> all = resolve_all(
      8192, std::nullopt, std::nullopt, {.model = "qwen3-8b", .served = "Qwen/Qwen3-8B"});
  all.push_back(resolve(as_flags(8192, std::nullopt, std::nullopt, {.model = dir.path.string()})));
  all.push_back(
      resolve(as_command(8192, std::nullopt, std::nullopt, {.served = dir.path.string()})));
  ASSERT_EQ(all.size(), 6u);
  EXPECT_EQ(all[4].deploy.model.layers.size(), 36u);  // num_hidden_layers of the config
  expect_same_capacity(all);
}

TEST(OneVerdict, ARequestTheMemoryCannotHoldFailsTheSameWayOnEveryPath) {
  // Llama 3.1 8B at its full 131,072 tokens on one RTX 4090: one request's KV cache is
  // 131,072 tokens · 131,072 bytes (32 layers · 8 KV heads · 128 · 2 (K and V) · 2 bytes) = 16 GiB,
  // while 0.9 of the card's 24 GiB less 14.96 GiB of weights (8,030,261,248 parameters · 2 bytes)
  // leaves under 7 GiB. vLLM refuses to start ("To serve at least one request with the models's
  // max seq len ... is larger than the available KV cache memory", kv_cache_utils.py); every
  // path fails check's engine_starts item with the same words, and none plans a request.
  const auto all = resolve_all(131072, std::nullopt, std::nullopt, {.gpu = "rtx-4090"});
  ASSERT_EQ(all.size(), 4u);
  std::string first;
  for (const auto& d : all) {
    EXPECT_TRUE(d.refusals.empty()) << d.deploy.source;
    const Capacity c = plan_capacity(d.deploy.model, d.deploy.plan, d.deploy.source);
    EXPECT_FALSE(c.fits_one_request) << d.deploy.source;
    EXPECT_EQ(c.bytes_per_request, std::uint64_t{16} << 30) << d.deploy.source;
    EXPECT_LT(c.memory.available_bytes, std::uint64_t{7} << 30) << d.deploy.source;
    const CheckReport r = run_check(d.deploy);
    EXPECT_FALSE(r.passed()) << d.deploy.source;
    const auto starts = std::find_if(r.items.begin(), r.items.end(),
                                     [](const CheckItem& i) { return i.id == "engine_starts"; });
    ASSERT_NE(starts, r.items.end()) << d.deploy.source;
    EXPECT_FALSE(starts->passed) << d.deploy.source;
    if (first.empty()) first = starts->detail;
    EXPECT_EQ(starts->detail, first) << d.deploy.source;
  }
}

TEST(OneVerdict, AnEnginesOwnOptionsMeanTheSameInAFileAndOnItsCommandLine) {
  // gpt-oss-20b under SGLang has an SWA pool (is_hybrid_swa_model); --swa-full-tokens-ratio 0.5
  // on the launch line and "swa_full_tokens_ratio": 0.5 in the file split it the same way, and
  // differently from the default 0.8.
  const Stated oss{
      .model = "gpt-oss-20b", .served = "openai/gpt-oss-20b", .engine = Engine::sglang};
  DeploymentRequest cmd = as_command(8192, std::nullopt, std::nullopt, oss);
  cmd.command_line += " --swa-full-tokens-ratio 0.5";
  std::string text = as_file_text(8192, std::nullopt, std::nullopt, oss);
  const std::string at = R"("max_model_len": 8192)";
  text.replace(text.find(at), at.size(), at + R"(, "swa_full_tokens_ratio": 0.5)");
  const TempDeployFile f(text);
  DeploymentRequest file;
  file.source = DeploymentRequest::Source::deploy_file;
  file.path = f.path;
  const std::vector<ResolvedDeployment> both = {resolve(cmd), resolve(file)};
  for (const auto& d : both) EXPECT_EQ(d.deploy.plan.sglang().swa_full_tokens_ratio_ppm, 500000u);
  expect_same_capacity(both);
  const auto plain = resolve(as_command(8192, std::nullopt, std::nullopt, oss));
  EXPECT_NE(plan_capacity(plain.deploy.model, plain.deploy.plan, "default").kv_cache_tokens,
            plan_capacity(both[0].deploy.model, both[0].deploy.plan, "0.5").kv_cache_tokens);
}

TEST(OneVerdict, EngineOptionsGivenAsFlagsReachThePlanAndItsLaunchLine) {
  // --engine-option KEY=VALUE takes a deployment file's engine keys: the plan uses them, the
  // launch line it prints states them in the engine's own flags, and that line, read back as the
  // engine's command line, plans the same pool.
  struct Case {
    Stated stated;
    std::vector<std::string> options;
    std::vector<std::string> flags;  // what the launch line must say
  };
  const Case cases[] = {
      {{}, {"num_gpu_blocks_override=4000"}, {"--num-gpu-blocks-override 4000"}},
      {{.model = "qwen3-next-80b-a3b", .served = "Qwen/Qwen3-Next-80B-A3B-Instruct"},
       {"mamba_cache_mode=align"},
       {"--mamba-cache-mode align"}},
      {{.model = "gpt-oss-20b", .served = "openai/gpt-oss-20b", .engine = Engine::sglang},
       {"swa_full_tokens_ratio=0.5", "max_total_tokens=60000"},
       {"--swa-full-tokens-ratio 0.5", "--max-total-tokens 60000"}},
  };
  for (const Case& c : cases) {
    DeploymentRequest flags = as_flags(8192, std::nullopt, std::nullopt, c.stated);
    if (c.stated.model == "qwen3-next-80b-a3b") flags.gpu = "h200-141gb", flags.tp = 2;
    flags.engine_options = c.options;
    flags.launch_sets_max_num_seqs = true;  // as kvplan plan: the line states --max-num-seqs
    const ResolvedDeployment d = resolve(flags);
    ASSERT_TRUE(d.refusals.empty()) << c.options[0];
    const PlanInput& in = d.deploy.plan;
    const std::optional<std::string> line = c.stated.engine == Engine::sglang
                                                ? sglang_command(d.deploy.model, in, nullptr)
                                                : vllm_command(d.deploy.model, in, nullptr);
    ASSERT_TRUE(line) << c.options[0];
    for (const std::string& flag : c.flags) EXPECT_NE(line->find(flag), std::string::npos) << *line;
    DeploymentRequest cmd;
    cmd.source = DeploymentRequest::Source::engine_command;
    cmd.command_engine = c.stated.engine;
    cmd.command_line = *line;
    cmd.model = c.stated.model;
    cmd.gpu = flags.gpu;
    expect_same_capacity({d, resolve(cmd)});
  }
  // Speculative decoding by the checkpoint's own MTP layer (DeepSeek-V3: num_nextn_predict_layers
  // 1): vLLM's line asks for it by method ("mtp", with num_speculative_tokens always stated:
  // vLLM takes the MTP draft from the target only then; unstated, one per MTP layer), SGLang's
  // by --speculative-algorithm NEXTN; each reads back to the same pool, draft layer included.
  struct Mtp {
    Engine engine;
    std::vector<std::string> options;
    std::string flag;
    std::uint32_t tokens;  // vLLM's, read back
  };
  const Mtp mtps[] = {
      {Engine::vllm,
       {"num_speculative_tokens=2"},
       R"( --speculative-config '{"method": "mtp", "num_speculative_tokens": 2}')",
       2},
      {Engine::vllm,
       {},
       R"( --speculative-config '{"method": "mtp", "num_speculative_tokens": 1}')",
       1},
      {Engine::sglang, {}, " --speculative-algorithm NEXTN", 0},
  };
  for (const Mtp& c : mtps) {
    DeploymentRequest mtp =
        as_flags(8192, std::nullopt, std::nullopt,
                 {.model = "deepseek-v3", .gpu = "h200-141gb", .engine = c.engine});
    mtp.tp = 8;
    mtp.draft_layers = 1;
    mtp.engine_options = c.options;
    mtp.launch_sets_max_num_seqs = true;
    const ResolvedDeployment d = resolve(mtp);
    ASSERT_EQ(d.deploy.plan.draft_layers, 1u);
    const std::optional<std::string> line = c.engine == Engine::sglang
                                                ? sglang_command(d.deploy.model, d.deploy.plan)
                                                : vllm_command(d.deploy.model, d.deploy.plan);
    ASSERT_TRUE(line) << c.flag;
    EXPECT_NE(line->find(c.flag), std::string::npos) << *line;
    DeploymentRequest cmd;
    cmd.source = DeploymentRequest::Source::engine_command;
    cmd.command_engine = c.engine;
    cmd.command_line = *line;
    cmd.model = "deepseek-v3";
    cmd.gpu = "h200-141gb";
    const ResolvedDeployment back = resolve(cmd);
    EXPECT_EQ(back.deploy.plan.draft_layers, 1u) << *line;
    EXPECT_EQ(back.deploy.plan.vllm().num_speculative_tokens, c.tokens) << *line;
    expect_same_capacity({d, back});
  }
  // An EAGLE head's layer is not the checkpoint's: no line, since the draft model is unnamed.
  DeploymentRequest eagle = as_flags(8192, std::nullopt, std::nullopt);
  eagle.draft_layers = 1;
  const ResolvedDeployment ed = resolve(eagle);
  for (const Engine e : {Engine::vllm, Engine::sglang}) {
    std::string why;
    EXPECT_FALSE(e == Engine::sglang ? sglang_command(ed.deploy.model, ed.deploy.plan, &why)
                                     : vllm_command(ed.deploy.model, ed.deploy.plan, &why));
    EXPECT_NE(why.find("draft model's name"), std::string::npos) << why;
  }
  // The option changes the plan: 4000 blocks instead of the memory's.
  DeploymentRequest blocks = as_flags(8192, std::nullopt, std::nullopt);
  blocks.engine_options = {"num_gpu_blocks_override=4000"};
  const ResolvedDeployment b = resolve(blocks);
  EXPECT_EQ(plan_capacity(b.deploy.model, b.deploy.plan, "flags").num_gpu_blocks, 4000u);
  // Another engine's key, an unknown key and a pair without "=" name the flag.
  for (const char* bad : {"swa_full_tokens_ratio=0.5", "no_such_key=1", "backend"}) {
    blocks.engine_options = {bad};
    try {
      resolve(blocks);
      ADD_FAILURE() << bad << " resolved";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("--engine-option"), std::string::npos) << e.what();
      EXPECT_EQ(e.exit_code(), 2);
    }
  }
}

}  // namespace
}  // namespace kvplan
