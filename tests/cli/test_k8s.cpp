// `kvplan check FILE.yaml` on the manifests of examples/k8s/, as docs/k8s.md documents them: the
// table of examples there says, per file, which workload passes and which fails; each file runs
// with --format junit and must exit as the table says, with one testcase per workload named
// namespace/name. (The doc's command blocks also run, with their exit codes, in
// test_examples.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
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

namespace fs = std::filesystem;

namespace {

const fs::path kRoot = fs::path(KVPLAN_TEST_DATA_DIR).parent_path().parent_path();

std::string read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct Row {
  std::string file, passes, fails;
};

// The rows "| `examples/k8s/F.yaml` | kind | `ns/pass` | `ns/fail` | why |" of docs/k8s.md.
std::vector<Row> documented_examples() {
  std::vector<Row> rows;
  const std::regex row(R"(^\| `(examples/k8s/[^`]+)` \| [^|]+ \| `([^`]+)` \| (`([^`]+)`)? *\|)");
  std::istringstream in(read(kRoot / "docs" / "k8s.md"));
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (std::regex_search(l, m, row)) rows.push_back({m[1], m[2], m[4]});
  }
  return rows;
}

struct Case {
  std::string classname;
  bool failed = false, skipped = false;
};

std::map<std::string, Case> testcases(const std::string& xml) {
  std::map<std::string, Case> out;
  const std::regex tc(R"x(<testcase classname="([^"]*)" name="([^"]*)">([\s\S]*?)</testcase>)x");
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), tc); it != std::sregex_iterator();
       ++it) {
    const std::string body = (*it)[3];
    out[(*it)[2]] = {(*it)[1], body.find("<failure") != std::string::npos,
                     body.find("<skipped") != std::string::npos};
  }
  return out;
}

TEST(K8s, EveryDocumentedExampleExitsAndNamesItsTestcasesAsDocumented) {
  const auto rows = documented_examples();
  // deployment, statefulset, pod, leaderworkerset, inferenceservice, production-stack, llm-d,
  // passing
  ASSERT_EQ(rows.size(), 8u) << "docs/k8s.md lost rows of its examples table";
  for (const auto& r : rows) {
    SCOPED_TRACE(r.file);
    ASSERT_TRUE(fs::exists(kRoot / r.file));
    const auto run =
        kvplan::test::run_kvplan("check '" + (kRoot / r.file).string() + "' --format junit");
    EXPECT_EQ(run.code, r.fails.empty() ? 0 : 1) << run.err;
    const auto cases = testcases(run.out);
    std::vector<std::string> engines;
    for (const auto& [name, c] : cases) {
      EXPECT_EQ(c.classname.find('/'), std::string::npos) << c.classname;
      if (!c.skipped) engines.push_back(name);
    }
    std::vector<std::string> want{r.passes};
    if (!r.fails.empty()) want.push_back(r.fails);
    std::sort(want.begin(), want.end());
    EXPECT_EQ(engines, want) << run.out;
    ASSERT_TRUE(cases.count(r.passes)) << run.out;
    EXPECT_FALSE(cases.at(r.passes).failed) << run.out;
    if (!r.fails.empty()) {
      ASSERT_TRUE(cases.count(r.fails)) << run.out;
      EXPECT_TRUE(cases.at(r.fails).failed) << run.out;
    }
    // classname: kvplan.k8s. + the namespace (the part of the name before '/').
    EXPECT_EQ(cases.at(r.passes).classname, "kvplan.k8s." + r.passes.substr(0, r.passes.find('/')));
  }
}

TEST(K8s, AManifestChecksAsItsCommandLine) {
  // passing.yaml's serving/llama-8b against the command line docs/k8s.md gives for it, with the
  // release its image (vllm/vllm-openai:v0.10.1) names.
  const auto m = kvplan::test::run_kvplan(
      "check '" + (kRoot / "examples/k8s/passing.yaml").string() + "' --format json");
  ASSERT_EQ(m.code, 0) << m.err;
  const auto c = kvplan::test::run_kvplan(
      "check --vllm 'vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 32768 "
      "--max-num-seqs 64' --gpu h100-sxm-80gb --vllm-version 0.10.1 --format json");
  ASSERT_EQ(c.code, 0) << c.err;
  const auto jm = nlohmann::json::parse(m.out), jc = nlohmann::json::parse(c.out);
  ASSERT_EQ(jm["deployments"].size(), 1u);
  const auto& d = jm["deployments"][0];
  EXPECT_EQ(d["name"], "serving/llama-8b");
  EXPECT_EQ(d["replicas"], 2);
  EXPECT_EQ(d["gpus_per_replica"], 1);
  EXPECT_EQ(d["gpu"], "h100-sxm-80gb");
  EXPECT_EQ(jm["skipped"][0], "document 1: ConfigMap serving/chat-template: runs no engine");
  const auto& cap = d["check"]["capacity"];
  EXPECT_EQ(cap, jc["capacity"]);
  // By hand: Llama-3.1-8B holds 2 · 32 layers · 8 KV heads · 128 dims · 2 bytes = 131,072 bytes
  // per token in bf16, in vLLM blocks of 16 tokens.
  const std::uint64_t avail = cap["available_kv_bytes"];
  EXPECT_EQ(cap["kv_cache_tokens"], avail / (131072 * 16) * 16);
  // The same checks, plus pod_gpus first.
  ASSERT_EQ(d["check"]["checks"].size(), jc["checks"].size() + 1);
  EXPECT_EQ(d["check"]["checks"][0]["id"], "pod_gpus");
  for (std::size_t i = 0; i < jc["checks"].size(); ++i)
    EXPECT_EQ(d["check"]["checks"][i + 1], jc["checks"][i]);
}

TEST(K8s, ABadManifestExitsTwoNamingDocumentAndPath) {
  kvplan::test::TempDir dir;
  const std::string p = dir.file("bad.yaml");
  std::string text = read(kRoot / "examples/k8s/deployment.yaml");
  const std::string limit = "nvidia.com/gpu: \"1\"";
  ASSERT_NE(text.find(limit), std::string::npos);
  text.replace(text.find(limit), limit.size(), "nvidia.com/gpu: \"1.5\"");
  std::ofstream(p) << text;
  const auto r = kvplan::test::run_kvplan("check '" + p + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("bad.yaml: document 3: spec.template.spec.containers[0].resources.limits."
                       "nvidia.com/gpu: expects a whole number of GPUs, got \"1.5\""),
            std::string::npos)
      << r.err;
  // A flag of the command-line form does not apply to a manifest.
  const auto g = kvplan::test::run_kvplan(
      "check '" + (kRoot / "examples/k8s/passing.yaml").string() + "' --gpu l4");
  EXPECT_EQ(g.code, 2);
  EXPECT_NE(g.err.find("does not apply to a manifest"), std::string::npos) << g.err;
  // The issue's report: a YAML file no longer fails as "invalid JSON".
  EXPECT_EQ(r.err.find("invalid JSON"), std::string::npos) << r.err;
}

}  // namespace
