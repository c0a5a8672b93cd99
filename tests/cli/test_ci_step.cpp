// The CI step (issue 28, docs/ci.md): scripts/ci/kvplan-check.sh run on the shipped examples
// with the built kvplan, its exit status and reports; the GitHub action and the GitLab template
// parsed with yaml-cpp and checked to call that script with their documented inputs;
// scripts/ci/install-kvplan.sh --binary; `kvplan --version` naming the git commit.
//
// Expected verdicts come from the documentation, not from the script: README.md and
// docs/check.md say examples/deploy.json passes (exit 0) and examples/deploy-fails.json fails
// (exit 1) naming the fp8 fix (`--kv-cache-dtype fp8`); the per-file counts are those of
// `kvplan check FILE --format junit` run here directly.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "cli_run.hpp"
#include "kvplan/version.hpp"
#include "temp_dir.hpp"

namespace {

namespace fs = std::filesystem;

using ShellRun = kvplan::test::CliRun;
ShellRun shell(const std::string& cmd) { return kvplan::test::run_shell(cmd); }

std::string q(const std::string& s) { return "'" + s + "'"; }  // test paths have no quotes

const std::string kRepo = fs::weakly_canonical(fs::path(KVPLAN_TEST_DATA_DIR) / ".." / "..");
const std::string kScript = kRepo + "/scripts/ci/kvplan-check.sh";
const std::string kExe = KVPLAN_EXE;

std::string read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

bool has(const std::string& s, const std::string& w) { return s.find(w) != std::string::npos; }

std::size_t count(const std::string& s, const std::string& w) {
  std::size_t n = 0;
  for (auto p = s.find(w); p != std::string::npos; p = s.find(w, p + w.size())) ++n;
  return n;
}

// The number in ATTR="N" on the first line that starts with `tag`.
long attr(const std::string& xml, const std::string& tag, const std::string& name) {
  std::smatch m;
  const std::regex re(tag + "[^>]*\\b" + name + "=\"([0-9]+)\"");
  return std::regex_search(xml, m, re) ? std::stol(m[1]) : -1;
}

// The script with the built kvplan, reports in `out`; patterns are passed as given.
ShellRun check(const std::string& out, const std::string& patterns, const std::string& extra = "") {
  return shell("cd " + q(kRepo) + " && bash " + q(kScript) + " --kvplan " + q(kExe) + " --out " +
               q(out) + " " + extra + " -- " + patterns);
}

// What kvplan itself says about one file, to compare the merged report with.
struct Direct {
  int code;
  std::size_t tests, failures;
};
Direct direct(const std::string& file) {
  const ShellRun r = shell("cd " + q(kRepo) + " && " + q(kExe) + " check " + q(file) +
                           " --format junit 2>/dev/null");
  return {r.code, count(r.out, "<testcase "), count(r.out, "<failure ")};
}

// python3 is installed by scripts/setup.sh; its XML parser refuses a malformed document.
bool well_formed(const std::string& path) {
  return shell("python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' " +
               q(path))
             .code == 0;
}

TEST(CiStep, PassingExampleExitsZeroAndReportsEveryCheck) {
  kvplan::test::TempDir dir;
  const auto d = direct("examples/deploy.json");
  ASSERT_EQ(d.code, 0);  // README.md: kvplan check examples/deploy.json passes
  ASSERT_GT(d.tests, 0u);
  const ShellRun r = check(dir.file("out"), "examples/deploy.json");
  EXPECT_EQ(r.code, 0) << r.out;
  const std::string xml = read(dir.file("out/kvplan-check.xml"));
  EXPECT_TRUE(well_formed(dir.file("out/kvplan-check.xml"))) << xml;
  EXPECT_EQ(count(xml, "<testsuite "), 1u) << xml;
  EXPECT_EQ(count(xml, "<testcase "), d.tests) << xml;
  EXPECT_EQ(attr(xml, "<testsuites", "tests"), static_cast<long>(d.tests)) << xml;
  EXPECT_EQ(attr(xml, "<testsuites", "failures"), 0) << xml;
  EXPECT_EQ(attr(xml, "<testsuites", "errors"), 0) << xml;
  const std::string md = read(dir.file("out/kvplan-check.md"));
  EXPECT_TRUE(has(md, "## kvplan check: ✅ passed")) << md;
  EXPECT_TRUE(has(md, "1 files: 1 passed, 0 failed, 0 invalid")) << md;
  EXPECT_TRUE(has(
      md, "| `examples/deploy.json` | ✅ pass | all " + std::to_string(d.tests) + " checks hold |"))
      << md;
  EXPECT_TRUE(has(md, "### ✅ kvplan check")) << md;  // the file's own Markdown report follows
}

TEST(CiStep, FailingExampleExitsOneAfterWritingTheReportsAndNamesTheFix) {
  kvplan::test::TempDir dir;
  const auto pass = direct("examples/deploy.json");
  const auto fail = direct("examples/deploy-fails.json");
  ASSERT_EQ(fail.code, 1);  // README.md: it fails, exit 1, naming the fp8 fix
  ASSERT_GT(fail.failures, 0u);
  const ShellRun r = check(dir.file("out"), "examples/deploy.json examples/deploy-fails.json");
  EXPECT_EQ(r.code, 1) << r.out;
  const std::string xml = read(dir.file("out/kvplan-check.xml"));
  EXPECT_TRUE(well_formed(dir.file("out/kvplan-check.xml"))) << xml;
  EXPECT_EQ(count(xml, "<testsuite "), 2u) << xml;
  EXPECT_EQ(attr(xml, "<testsuites", "tests"), static_cast<long>(pass.tests + fail.tests)) << xml;
  EXPECT_EQ(attr(xml, "<testsuites", "failures"), static_cast<long>(fail.failures)) << xml;
  EXPECT_EQ(count(xml, "<failure "), fail.failures) << xml;
  const std::string md = read(dir.file("out/kvplan-check.md"));
  EXPECT_TRUE(has(md, "## kvplan check: ❌ failed (exit 1)")) << md;
  EXPECT_TRUE(has(md, "2 files: 1 passed, 1 failed, 0 invalid")) << md;
  std::smatch row;
  ASSERT_TRUE(std::regex_search(md, row,
                                std::regex("\\| `examples/deploy-fails.json` \\| ❌ FAIL "
                                           "\\| ([0-9]+) of ([0-9]+) failed: [^|]+\\| "
                                           "([^\\n]*) \\|\\n")))
      << md;
  EXPECT_EQ(std::stoul(row[1]), fail.failures);
  EXPECT_EQ(std::stoul(row[2]), fail.tests);
  EXPECT_TRUE(has(row[3], "--kv-cache-dtype fp8")) << row[3];
  // Each file's reports are kept too.
  EXPECT_TRUE(fs::exists(dir.file("out/files/002-deploy-fails.json.xml")));
  EXPECT_TRUE(has(read(dir.file("out/files/002-deploy-fails.json.md")), "### ❌ kvplan check"));
}

TEST(CiStep, InvalidFileAndUnmatchedPatternExitTwoWithAnErrorTestcase) {
  kvplan::test::TempDir dir;
  const std::string bad = dir.file("bad deploy.json");  // a space: patterns are not split
  std::ofstream(bad) << "{\"kvplan_deploy\": 1, \"model\": ";
  ASSERT_EQ(direct(bad).code, 2);
  ShellRun r = check(dir.file("out"), "examples/deploy-fails.json " + q(bad));
  EXPECT_EQ(r.code, 2) << r.out;  // the worst of 1 and 2
  std::string xml = read(dir.file("out/kvplan-check.xml"));
  EXPECT_TRUE(well_formed(dir.file("out/kvplan-check.xml"))) << xml;
  EXPECT_EQ(count(xml, "<testsuite "), 2u) << xml;
  EXPECT_EQ(attr(xml, "<testsuites", "errors"), 1) << xml;
  EXPECT_EQ(count(xml, "<error "), 1u) << xml;
  EXPECT_TRUE(has(xml, "bad deploy.json")) << xml;  // kvplan's message names the file
  std::string md = read(dir.file("out/kvplan-check.md"));
  EXPECT_TRUE(has(md, "2 files: 0 passed, 1 failed, 1 invalid")) << md;
  EXPECT_TRUE(has(md, "⚠️ invalid (exit 2)")) << md;

  r = check(dir.file("out2"), "examples/deploy.json 'no-such-folder/*.yaml'");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "no file matches 'no-such-folder/*.yaml'")) << r.out;
  md = read(dir.file("out2/kvplan-check.md"));
  EXPECT_TRUE(has(md, "1 patterns matched no file")) << md;
  EXPECT_EQ(count(read(dir.file("out2/kvplan-check.xml")), "<testsuite "), 1u);

  EXPECT_EQ(check(dir.file("out3"), "").code, 2);  // no patterns: usage error
  EXPECT_EQ(shell("bash " + q(kScript) + " --kvplan /no/such/kvplan examples/deploy.json").code, 2);
}

TEST(CiStep, GlobsCrossFoldersMatchEachFileOnceAndAppendTheSummary) {
  kvplan::test::TempDir dir;
  const fs::path root = dir.path() / "with space";
  fs::create_directories(root / "a" / "b");
  fs::copy_file(kRepo + "/examples/deploy.json", root / "a" / "pass.json");
  fs::copy_file(kRepo + "/examples/deploy-fails.json", root / "a" / "b" / "fails.json");
  const std::string summary = dir.file("summary.md");
  std::ofstream(summary) << "earlier step\n";
  const std::string glob = q((root / "**" / "*.json").string());
  const ShellRun r =
      check(dir.file("out"), glob + " " + glob + " " + q((root / "a" / "pass.json").string()),
            "--summary " + q(summary));
  EXPECT_EQ(r.code, 1) << r.out;
  const std::string xml = read(dir.file("out/kvplan-check.xml"));
  EXPECT_EQ(count(xml, "<testsuite "), 2u) << xml;  // three patterns, two files
  const std::string s = read(summary);
  EXPECT_EQ(s.rfind("earlier step\n## kvplan check: ❌ failed (exit 1)", 0), 0u) << s;
  EXPECT_EQ(s.substr(13), read(dir.file("out/kvplan-check.md")));
}

// A stand-in for kvplan (a shell script): `md_bytes` of Markdown per file, and a JUnit report of
// one passing check unless `junit` is false (then exit 0 with no report, which is no verdict).
std::string stub_kvplan(const kvplan::test::TempDir& dir, std::size_t md_bytes, bool junit) {
  const std::string path = dir.file("kvplan-stub");
  std::ofstream(path) << "#!/bin/bash\n"
                         "case \"$*\" in\n"
                         "  --version) echo 'kvplan 0.0 (stub)' ;;\n"
                         "  *'--format junit'*) "
                      << (junit ? "printf '<testsuites>\\n  <testsuite name=\"s\" tests=\"1\" "
                                  "failures=\"0\" errors=\"0\">\\n    <testcase name=\"n\"/>\\n  "
                                  "</testsuite>\\n</testsuites>\\n'"
                                : "true")
                      << " ;;\n"
                         "  *'--format md'*) head -c "
                      << md_bytes << " /dev/zero | tr '\\0' x; echo ;;\n"
                      << "esac\n";
  fs::permissions(path, fs::perms::owner_all);
  return path;
}

TEST(CiStep, JobSummaryOverOneMebibyteKeepsTheTableOnly) {
  // GitHub refuses a job summary over 1 MiB: two files of 600,000 bytes each make 1.2 MB.
  kvplan::test::TempDir dir;
  const std::string kv = stub_kvplan(dir, 600000, true);
  std::ofstream(dir.file("a.json")) << "{}";
  std::ofstream(dir.file("b.json")) << "{}";
  const std::string summary = dir.file("summary.md");
  const ShellRun r =
      shell("bash " + q(kScript) + " --kvplan " + q(kv) + " --out " + q(dir.file("out")) +
            " --summary " + q(summary) + " " + q(dir.file("*.json")));
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_GT(fs::file_size(dir.file("out/kvplan-check.md")), 1200000u);
  const std::string s = read(summary);
  EXPECT_LT(s.size(), 2000u) << s.size();
  EXPECT_TRUE(has(s, "2 files: 2 passed, 0 failed, 0 invalid")) << s;
  EXPECT_TRUE(has(s, "(too long for a job summary)")) << s;
}

TEST(CiStep, ExitZeroWithoutAReportIsAnErrorNotAPass) {
  kvplan::test::TempDir dir;
  const std::string kv = stub_kvplan(dir, 10, false);
  std::ofstream(dir.file("a.json")) << "{}";
  const ShellRun r = shell("bash " + q(kScript) + " --kvplan " + q(kv) + " --out " +
                           q(dir.file("out")) + " " + q(dir.file("a.json")));
  EXPECT_EQ(r.code, 3) << r.out;
  const std::string xml = read(dir.file("out/kvplan-check.xml"));
  EXPECT_TRUE(has(xml, "wrote no JUnit report")) << xml;
  EXPECT_EQ(attr(xml, "<testsuites", "errors"), 1) << xml;
}

// ---- The GitHub action and the GitLab template: thin wrappers around the script.

// Every `inputs.NAME` the action's expressions use.
std::set<std::string> inputs_used(const std::string& text) {
  std::set<std::string> used;
  const std::regex re("inputs\\.([a-z][a-z0-9-]*)");
  for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it)
    used.insert((*it)[1]);
  return used;
}

TEST(CiStep, GithubActionCallsTheScriptWithItsInputs) {
  const std::string path = kRepo + "/scripts/ci/github/action.yml";
  const std::string text = read(path);
  YAML::Node a;
  ASSERT_NO_THROW(a = YAML::LoadFile(path));
  EXPECT_EQ(a["runs"]["using"].as<std::string>(), "composite");
  const std::set<std::string> documented = {"files",   "install",    "deb",   "kvplan",
                                            "version", "output-dir", "upload"};
  std::set<std::string> declared;
  for (const auto& kv : a["inputs"]) {
    declared.insert(kv.first.as<std::string>());
    EXPECT_TRUE(kv.second["description"]) << kv.first.as<std::string>();
  }
  EXPECT_EQ(declared, documented);
  EXPECT_EQ(inputs_used(text), documented);  // no input unused, none misspelt
  EXPECT_TRUE(a["inputs"]["files"]["required"].as<bool>());
  EXPECT_EQ(a["inputs"]["install"]["default"].as<std::string>(), "source");
  EXPECT_EQ(a["inputs"]["output-dir"]["default"].as<std::string>(), "kvplan-check");
  EXPECT_EQ(a["outputs"]["junit"]["value"].as<std::string>(), "${{ steps.check.outputs.junit }}");

  YAML::Node install, run, upload;
  for (const auto& it : a["runs"]["steps"]) {
    const YAML::Node& s = it;  // the Node base: assigning an iterator value would convert it
    if (s["id"] && s["id"].as<std::string>() == "install") install = s;
    if (s["id"] && s["id"].as<std::string>() == "check") run = s;
    if (s["uses"]) upload = s;
  }
  ASSERT_TRUE(install && run && upload);
  const std::string inst = install["run"].as<std::string>();
  EXPECT_TRUE(has(inst, "bash \"$GITHUB_ACTION_PATH/../install-kvplan.sh\"")) << inst;
  for (const char* m : {"--source \"$GITHUB_ACTION_PATH/../../..\"", "--deb \"$KVPLAN_DEB\"",
                        "--binary \"$KVPLAN_BINARY\"", "--version \"$KVPLAN_VERSION\""})
    EXPECT_TRUE(has(inst, m)) << m;
  EXPECT_EQ(install["env"]["KVPLAN_DEB"].as<std::string>(), "${{ inputs.deb }}");
  EXPECT_EQ(install["env"]["KVPLAN_BINARY"].as<std::string>(), "${{ inputs.kvplan }}");
  EXPECT_EQ(install["env"]["KVPLAN_VERSION"].as<std::string>(), "${{ inputs.version }}");
  const std::string script = run["run"].as<std::string>();
  EXPECT_TRUE(has(script,
                  "bash \"$GITHUB_ACTION_PATH/../kvplan-check.sh\" --kvplan \"$KVPLAN\" "
                  "--out \"$KVPLAN_OUT\" \\\n  --summary \"$GITHUB_STEP_SUMMARY\" -- "
                  "$KVPLAN_FILES"))
      << script;
  EXPECT_TRUE(has(script, "set -f")) << script;  // patterns reach the script unexpanded
  EXPECT_TRUE(has(script, "exit \"$rc\"")) << script;
  EXPECT_EQ(run["env"]["KVPLAN_FILES"].as<std::string>(), "${{ inputs.files }}");
  EXPECT_EQ(run["env"]["KVPLAN_OUT"].as<std::string>(), "${{ inputs.output-dir }}");
  EXPECT_EQ(run["env"]["KVPLAN"].as<std::string>(), "${{ steps.install.outputs.kvplan }}");
  EXPECT_TRUE(has(upload["if"].as<std::string>(), "always()"));
  EXPECT_EQ(upload["with"]["path"].as<std::string>(), "${{ inputs.output-dir }}");
  // The scripts it names exist where GITHUB_ACTION_PATH/.. puts them.
  EXPECT_TRUE(fs::exists(kRepo + "/scripts/ci/github/../kvplan-check.sh"));
  EXPECT_TRUE(fs::exists(kRepo + "/scripts/ci/github/../install-kvplan.sh"));
  EXPECT_TRUE(fs::exists(kRepo + "/scripts/ci/github/../../../CMakeLists.txt"));
}

TEST(CiStep, GitlabTemplateCallsTheScriptAndPublishesTheJunitReport) {
  const std::string path = kRepo + "/scripts/ci/gitlab/kvplan-check.gitlab-ci.yml";
  YAML::Node t;
  ASSERT_NO_THROW(t = YAML::LoadFile(path));
  const YAML::Node job = t[".kvplan-check"];
  ASSERT_TRUE(job.IsMap());
  std::set<std::string> vars;
  for (const auto& kv : job["variables"]) vars.insert(kv.first.as<std::string>());
  const std::set<std::string> documented = {"KVPLAN_FILES",  "KVPLAN_INSTALL", "KVPLAN_DEB",
                                            "KVPLAN_BINARY", "KVPLAN_VERSION", "KVPLAN_REPO",
                                            "KVPLAN_REF"};
  EXPECT_EQ(vars, documented);
  std::string script;
  for (const auto& line : job["script"]) script += line.as<std::string>() + "\n";
  std::set<std::string> used;
  const std::regex re("\\$\\{?(KVPLAN_[A-Z_]+)");
  for (std::sregex_iterator it(script.begin(), script.end(), re), end; it != end; ++it)
    used.insert((*it)[1]);
  EXPECT_EQ(used, documented);  // every variable used is declared, and every one declared used
  EXPECT_TRUE(has(script, "bash /tmp/kvplan-src/scripts/ci/install-kvplan.sh $from")) << script;
  EXPECT_TRUE(has(script,
                  "bash /tmp/kvplan-src/scripts/ci/kvplan-check.sh --kvplan \"$exe\" "
                  "--out kvplan-check -- $KVPLAN_FILES"))
      << script;
  EXPECT_TRUE(has(script, "exit \"$rc\"")) << script;
  EXPECT_EQ(job["artifacts"]["when"].as<std::string>(), "always");
  EXPECT_EQ(job["artifacts"]["reports"]["junit"].as<std::string>(),
            "kvplan-check/kvplan-check.xml");
  EXPECT_EQ(job["artifacts"]["paths"][0].as<std::string>(), "kvplan-check/");
}

// ---- install-kvplan.sh --binary and the version line.

TEST(CiStep, InstallScriptChecksTheBinaryAndItsVersion) {
  const std::string inst = "bash " + q(kRepo + "/scripts/ci/install-kvplan.sh");
  // Its message (stderr), then the binary's path as the last line (stdout).
  ShellRun r = shell(inst + " --binary " + q(kExe) + " --version " + kvplan::kVersion);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r.out, std::string("install-kvplan: kvplan ") + kvplan::kVersion)) << r.out;
  ASSERT_GT(r.out.size(), kExe.size() + 1);
  EXPECT_EQ(r.out.substr(r.out.size() - kExe.size() - 2), "\n" + kExe + "\n") << r.out;
  r = shell(inst + " --binary " + q(kExe) + " --version 99.0.0");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "wanted kvplan 99.0.0")) << r.out;
  EXPECT_EQ(shell(inst + " --binary /no/such/kvplan").code, 2);
  EXPECT_EQ(shell(inst).code, 2);
}

TEST(CiStep, VersionNamesTheGitCommit) {
  const ShellRun r = shell(q(kExe) + " --version");
  ASSERT_EQ(r.code, 0);
  std::smatch m;
  ASSERT_TRUE(std::regex_match(
      r.out, m, std::regex("kvplan ([0-9.]+) \\((commit ([0-9a-f]{12})|unknown commit)\\)\n")))
      << r.out;
  EXPECT_EQ(m[1], kvplan::kVersion);
  // Built from its own git checkout with git at hand (as core/CMakeLists.txt asks), the commit is
  // one of this repository's (not compared with this test binary's kGitCommit, which a commit
  // since its build makes stale).
  if (shell("[ \"$(git -C " + q(kRepo) + " rev-parse --show-toplevel)\" = \"$(cd " + q(kRepo) +
            " && pwd -P)\" ]")
          .code == 0) {
    ASSERT_TRUE(m[3].matched) << r.out;
    EXPECT_EQ(shell("git -C " + q(kRepo) + " cat-file -e " + std::string(m[3]) + "^{commit}").code,
              0)
        << r.out;
  }
}

}  // namespace
