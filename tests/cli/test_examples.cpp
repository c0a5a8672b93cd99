// Every shell command that README.md and docs/*.md mark as an example runs as written and exits
// with the code it documents, so an example can never rot again.
//
// A block is marked by an HTML comment (invisible on GitHub) on the line before it:
//
//   <!-- example: exit 0 -->
//   ```sh
//   kvplan check examples/deploy.json
//   ```
//
// A marker may name what the block prints, so the figures the prose around it quotes cannot go
// stale: `<!-- example: exit 0; prints "448,144" "13.68x" -->` fails unless the block's output
// (every command's, stdout and stderr) holds each quoted string.
//
// Each command of the block (a line, with its `\` continuations) runs in bash from a temporary
// directory holding `examples/` (a link to the repository's) and `../shared/models` (a link to
// the test model's folder), with the built kvplan first on PATH, under a per-command timeout.
// Lines `NAME=value` are assignments kept for the block's later commands. Commands naming
// shared/models are skipped, visibly, where the model is absent.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cli_run.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path kRoot = fs::path(KVPLAN_TEST_DATA_DIR).parent_path().parent_path();
// A guard against hangs, not a speed test (bench/ measures speed): the slowest example takes
// about 2 s on an idle 2-core machine; a loaded CI runner (ctest -j2 beside a build) took 30 s.
constexpr int kTimeoutSeconds = 300;

struct Example {
  std::string where;  // "README.md:123"
  std::vector<std::string> assignments;
  std::string command;
  int exit_code = 0;
  // On the last command of its block: the strings the block's output must hold.
  std::vector<std::string> prints;
  bool ends_block = false;
};

struct Extracted {
  std::vector<Example> examples;
  std::vector<std::string> errors;  // a marker without a sh block after it, a bad marker
};

std::string read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  const auto b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

Extracted extract(const std::string& markdown, const std::string& file) {
  Extracted out;
  std::vector<std::string> lines;
  std::istringstream in(markdown);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  const std::regex marker(
      R"re(<!--\s*example:\s*exit\s+(\d+)\s*(?:;\s*prints\s+((?:"[^"]+"\s*)+))?-->)re");
  const std::regex quoted(R"re("([^"]+)")re");
  const std::regex assignment(R"(^[A-Za-z_][A-Za-z0-9_]*=\S*$)");
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string t = trim(lines[i]);
    if (t.rfind("<!-- example", 0) != 0) continue;  // a marker is a line of its own
    std::smatch m;
    const std::string at = file + ":" + std::to_string(i + 1);
    if (!std::regex_search(t, m, marker)) {
      out.errors.push_back(at +
                           ": malformed marker (expected <!-- example: exit N --> or "
                           "<!-- example: exit N; prints \"text\" ... -->): " +
                           t);
      continue;
    }
    const int code = std::stoi(m[1]);
    std::vector<std::string> prints;
    const std::string printed = m[2];
    for (std::sregex_iterator q(printed.begin(), printed.end(), quoted), end; q != end; ++q)
      prints.push_back((*q)[1]);
    const std::size_t block_start = out.examples.size();
    std::size_t j = i + 1;
    while (j < lines.size() && trim(lines[j]).empty()) ++j;
    if (j >= lines.size() || (trim(lines[j]) != "```sh" && trim(lines[j]) != "```bash")) {
      out.errors.push_back(at + ": marker not followed by a ```sh block");
      continue;
    }
    std::vector<std::string> assigns;
    bool closed = false;
    for (++j; j < lines.size(); ++j) {
      std::string cmd = lines[j];
      if (trim(cmd) == "```") {
        closed = true;
        break;
      }
      const std::size_t first = j;
      // Continuation lines stay as written: bash reads "\\\n" as the continuation it is.
      while (!cmd.empty() && cmd.back() == '\\' && j + 1 < lines.size()) cmd += "\n" + lines[++j];
      const std::string c = trim(cmd);
      if (c.empty() || c[0] == '#') continue;
      if (std::regex_match(c, assignment)) {
        assigns.push_back(c);
        continue;
      }
      out.examples.push_back({file + ":" + std::to_string(first + 1), assigns, c, code});
    }
    if (!closed) out.errors.push_back(at + ": unterminated ```sh block");
    if (out.examples.size() > block_start) {
      out.examples.back().ends_block = true;
      out.examples.back().prints = prints;
    } else if (!prints.empty()) {
      out.errors.push_back(at + ": a marker with prints but no command");
    }
    i = j;
  }
  return out;
}

struct Outcome {
  int ran = 0, skipped = 0;
  std::vector<std::string> failures;
};

// Runs the examples of one Markdown file in order, in one fresh directory.
Outcome run_examples(const Extracted& ex) {
  Outcome o;
  for (const auto& e : ex.errors) o.failures.push_back(e);
  kvplan::test::TempDir tmp;
  const fs::path work = tmp.path() / "work";
  fs::create_directories(work);
  fs::create_directory_symlink(kRoot / "examples", work / "examples");
  const char* env_model = std::getenv("KVPLAN_TEST_MODEL_DIR");
  const fs::path model = env_model ? env_model : KVPLAN_TEST_MODEL_DIR_DEFAULT;
  const bool have_model = fs::exists(model / "stories260K.bin");
  fs::create_directories(tmp.path() / "shared" / "models");
  if (have_model)
    fs::create_directory_symlink(fs::absolute(model),
                                 tmp.path() / "shared" / "models" / "stories260K");
  const char* env_hf = std::getenv("KVPLAN_TEST_HF_MODEL_DIR");
  const fs::path hf_model = env_hf ? env_hf : KVPLAN_TEST_HF_MODEL_DIR_DEFAULT;
  const bool have_hf_model = fs::exists(hf_model / "model.safetensors");
  if (have_hf_model)
    fs::create_directory_symlink(fs::absolute(hf_model),
                                 tmp.path() / "shared" / "models" / "tinystories-656k");
  // The tutorial works in a scratch directory holding `examples` and `shared` (links).
  fs::create_directory_symlink(tmp.path() / "shared", work / "shared");
  const std::string bindir = fs::path(KVPLAN_EXE).parent_path().string();
  std::string block_output;
  bool block_skipped = false;
  for (const auto& e : ex.examples) {
    if ((!have_model && e.command.find("shared/models") != std::string::npos) ||
        (!have_hf_model && e.command.find("tinystories-656k") != std::string::npos)) {
      ++o.skipped;
      std::cout << "[ skipped ] " << e.where << " (no model at " << model << "): " << e.command
                << "\n";
      block_skipped = true;
      if (e.ends_block) {
        if (!e.prints.empty())
          std::cout << "[ skipped ] " << e.where << ": its block's printed figures not checked\n";
        block_output.clear();
        block_skipped = false;
      }
      continue;
    }
    const fs::path script = work / ".example.sh";
    {
      std::ofstream s(script);
      for (const auto& a : e.assignments) s << a << "\n";
      s << e.command << "\n";
    }
    const fs::path log = tmp.path() / "example.log";
    const std::string cmd = "cd '" + work.string() + "' && PATH='" + bindir +
                            "':\"$PATH\" timeout " + std::to_string(kTimeoutSeconds) +
                            " bash .example.sh >'" + log.string() + "' 2>&1";
    const auto t0 = std::chrono::steady_clock::now();
    const int status = std::system(cmd.c_str());
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    ++o.ran;
    std::cout << "[ example ] " << e.where << " exit " << code << " (" << static_cast<int>(secs)
              << " s): " << e.command.substr(0, 100) << "\n";
    block_output += read(log);
    if (e.ends_block) {
      if (block_skipped && !e.prints.empty())
        std::cout << "[ skipped ] " << e.where << ": its block's printed figures not checked\n";
      else
        for (const std::string& want : e.prints)
          if (block_output.find(want) == std::string::npos)
            o.failures.push_back(e.where + ": the block's output does not hold \"" + want +
                                 "\", which the text around it quotes");
      block_output.clear();
      block_skipped = false;
    }
    if (code != e.exit_code) {
      std::string output = read(log);
      if (output.size() > 2000) output = "..." + output.substr(output.size() - 2000);
      o.failures.push_back(e.where + ": `" + e.command + "` exited " +
                           (code == 124
                                ? "124 (timed out after " + std::to_string(kTimeoutSeconds) + " s)"
                                : std::to_string(code)) +
                           ", documented exit " + std::to_string(e.exit_code) + "\n" + output);
    }
  }
  return o;
}

std::vector<fs::path> documented_files() {
  std::vector<fs::path> files{kRoot / "README.md"};
  std::vector<fs::path> docs;
  for (const auto& d : fs::recursive_directory_iterator(kRoot / "docs"))
    if (d.path().extension() == ".md") docs.push_back(d.path());
  std::sort(docs.begin(), docs.end());
  files.insert(files.end(), docs.begin(), docs.end());
  return files;
}

TEST(Examples, ExtractionFollowsTheMarkers) {
  const std::string md =
      "text\n"
      "<!-- example: exit 1 -->\n"
      "```sh\n"
      "M=../shared/models/x   \n"
      "# a comment\n"
      "kvplan check a.json --format junit > out.xml   # 1: fails\n"
      "kvplan plan --model m \\\n"
      "            --gpu g\n"
      "```\n"
      "```sh\n"
      "kvplan unmarked\n"
      "```\n"
      "<!-- example: exit two -->\n"
      "<!-- example: exit 0 -->\n"
      "no block here\n";
  const auto ex = extract(md, "t.md");
  ASSERT_EQ(ex.examples.size(), 2u);
  EXPECT_EQ(ex.examples[0].where, "t.md:6");
  EXPECT_EQ(ex.examples[0].command, "kvplan check a.json --format junit > out.xml   # 1: fails");
  EXPECT_EQ(ex.examples[0].assignments, std::vector<std::string>{"M=../shared/models/x"});
  EXPECT_EQ(ex.examples[0].exit_code, 1);
  EXPECT_EQ(ex.examples[1].command, "kvplan plan --model m \\\n            --gpu g");
  ASSERT_EQ(ex.errors.size(), 2u);  // the malformed marker and the marker without a block
  EXPECT_NE(ex.errors[0].find("t.md:13: malformed"), std::string::npos) << ex.errors[0];
  EXPECT_NE(ex.errors[1].find("t.md:14: marker not followed"), std::string::npos) << ex.errors[1];
}

TEST(Examples, ReadmeAndDocsRunAsWritten) {
  int ran = 0, readme = 0;
  for (const auto& f : documented_files()) {
    const auto ex = extract(read(f), fs::relative(f, kRoot).string());
    const auto o = run_examples(ex);
    ran += o.ran;
    if (f.filename() == "README.md" && f.parent_path() == kRoot) readme = o.ran + o.skipped;
    for (const auto& why : o.failures) ADD_FAILURE() << why;
  }
  // The README's own examples are there (a lost marker fails here, not silently).
  EXPECT_GE(readme, 3);
  EXPECT_GE(ran, 10);
}

// The same runner on broken copies: a file the README names that does not exist, an exit code
// that is not the documented one, a command that does not exist.
TEST(Examples, ABrokenExampleFailsVisibly) {
  std::string readme = read(kRoot / "README.md");
  const std::string good = "examples/deploy.json";
  ASSERT_NE(readme.find(good), std::string::npos) << "the README no longer checks " << good;
  auto ex = extract(readme, "README.md (broken copy)");
  // Keep only the examples naming the file, then break it.
  std::erase_if(ex.examples,
                [&](const Example& e) { return e.command.find(good) == std::string::npos; });
  ASSERT_FALSE(ex.examples.empty());
  for (auto& e : ex.examples) {
    e.command.replace(e.command.find(good), good.size(), "examples/gone.json");
    e.prints.clear();  // the exit codes are under test here (PrintedFiguresAreChecked: figures)
  }
  auto o = run_examples(ex);
  ASSERT_EQ(o.failures.size(), ex.examples.size());
  EXPECT_NE(o.failures[0].find("exited 2, documented exit 0"), std::string::npos) << o.failures[0];
  EXPECT_NE(o.failures[0].find("gone.json"), std::string::npos) << o.failures[0];

  const auto wrong = extract(
      "<!-- example: exit 0 -->\n```sh\nkvplan check examples/deploy-fails.json\n"
      "kvplan sizee --model llama-3.1-8b\n```\n",
      "wrong.md");
  o = run_examples(wrong);
  ASSERT_EQ(o.failures.size(), 2u);
  EXPECT_NE(o.failures[0].find("wrong.md:3: `kvplan check examples/deploy-fails.json` exited 1, "
                               "documented exit 0"),
            std::string::npos)
      << o.failures[0];
  EXPECT_NE(o.failures[1].find("unknown command 'sizee'"), std::string::npos) << o.failures[1];
}

// A quoted figure the block prints passes; one it does not print fails and is named. The
// expected text is the size report's own label of its formula's factor (docs/size.md).
TEST(Examples, PrintedFiguresAreChecked) {
  const auto ex = extract(
      "<!-- example: exit 0; prints \"llama-3.1-8b\" \"no such figure 12,345\" -->\n"
      "```sh\nkvplan size --model llama-3.1-8b --context 8192\n```\n"
      "<!-- example: exit 0; prints -->\n```sh\nkvplan size --model llama-3.1-8b\n```\n",
      "figures.md");
  ASSERT_EQ(ex.examples.size(), 1u);  // the second marker is malformed: its block is not run
  EXPECT_TRUE(ex.examples[0].ends_block);
  EXPECT_EQ(ex.examples[0].prints,
            (std::vector<std::string>{"llama-3.1-8b", "no such figure 12,345"}));
  const auto o = run_examples(ex);
  ASSERT_EQ(o.failures.size(), 2u);  // the malformed marker, then the missing figure
  EXPECT_NE(o.failures[0].find("figures.md:5: malformed marker"), std::string::npos)
      << o.failures[0];
  EXPECT_NE(o.failures[1].find("figures.md:3: the block's output does not hold \"no such "
                               "figure 12,345\""),
            std::string::npos)
      << o.failures[1];
}

// examples/trtllm-serve.txt with its LLM-API file, from the repository root as docs/check.md runs
// it: the file's fp8 cache and 0.85 fraction replace the command line's 0.9. By hand (Llama 3.1
// 8B on one H100 SXM 80GB, TensorRT-LLM): (85,520,809,984 − 16,060,522,496 weights − 2 GiB
// reserve) × 0.85 = 57,215,883,264 B // 65,536 B a token (fp8) = 873,045 tokens → 27,283 blocks
// of 32 (873,056 tokens); 32,768 tokens are 1,024 blocks: 26 requests, so 32 at that length fail
// and 32 of a typical 8,192 (256 blocks, 106 fit) pass.
TEST(Examples, TrtllmServeExampleChecks) {
  const std::string cmd =
      "cd '" + kRoot.string() + "' && '" + KVPLAN_EXE +
      "' check --trtllm \"$(cat examples/trtllm-serve.txt)\" --gpu h100-sxm-80gb";
  auto run = [&](const std::string& extra) {
    FILE* p = ::popen((cmd + " " + extra + " 2>/dev/null").c_str(), "r");
    std::string out;
    char buf[4096];
    for (std::size_t n; p && (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    const int status = p ? ::pclose(p) : -1;
    return std::make_pair(WIFEXITED(status) ? WEXITSTATUS(status) : -1, out);
  };
  auto [code, out] = run("--format json");
  ASSERT_EQ(code, 0) << out;
  const auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["engine"], "trtllm");
  EXPECT_EQ(j["kv_dtype"], "fp8");
  // As EngineCmdlines.TrtllmServeExampleWithItsLlmApiFile: 0.85 of 66,805,502,771 B.
  EXPECT_EQ(j["capacity"]["available_kv_bytes"], 56784677355u);
  EXPECT_EQ(j["capacity"]["num_gpu_blocks"], 27078);
  EXPECT_EQ(j["capacity"]["kv_cache_tokens"], 27078 * 32);
  EXPECT_EQ(j["capacity"]["requests_at_slo_context"], 26);
  EXPECT_EQ(run("--slo concurrency=32").first, 1);
  std::tie(code, out) = run("--slo concurrency=32,mean_context=8192");
  EXPECT_EQ(code, 0) << out;
  EXPECT_NE(out.find("105 of the typical 8192 tokens"), std::string::npos) << out;
}

}  // namespace
