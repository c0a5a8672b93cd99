// The bad-input corpus: every malformed file under tests/data/bad/ runs through the real kvplan
// binary, as a CI job would, and must be refused with the exact exit code and a message naming
// the file and the field. The table is tests/data/bad/cases.tsv, one case per line:
//
//   file <TAB> exit code <TAB> expected phrase of stderr <TAB> kvplan arguments
//
// `file` is relative to tests/data/bad/ ("-" for a case that is only flags); `{file}` in the
// phrase and in the arguments stands for its full path; {data} stands for tests/data/bad (for the
// helper files under valid/). Arguments are split on spaces, "double quotes" group words. A case
// whose subcommand the binary lacks fails (exit 2 with "unknown command" never matches the
// phrase), so only commands that exist are listed.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "temp_dir.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;

const fs::path kBadDir = fs::path(KVPLAN_TEST_DATA_DIR) / "bad";

struct Case {
  std::string name;
  int exit = 0;
  std::string phrase;
  std::vector<std::string> args;  // {file} substituted
  std::string file;               // full path {file} stands for ("" for flag-only cases)
  int line = 0;
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream is(s);
  while (std::getline(is, cur, sep)) out.push_back(cur);
  return out;
}

// Splits kvplan arguments on spaces; "double quotes" group words into one argument (an engine
// command line for --vllm), without escapes.
std::vector<std::string> split_args(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false, any = false;
  for (char ch : s) {
    if (ch == '"') {
      quoted = !quoted;
      any = true;
    } else if (ch == ' ' && !quoted) {
      if (any || !cur.empty()) out.push_back(cur);
      cur.clear();
      any = false;
    } else {
      cur += ch;
    }
  }
  if (any || !cur.empty()) out.push_back(cur);
  return out;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

// Parses cases.tsv; a malformed line becomes a case that fails with the reason.
std::vector<Case> load_cases() {
  std::vector<Case> cases;
  std::ifstream in(kBadDir / "cases.tsv");
  if (!in) {
    Case c;
    c.name = "cases_tsv_missing";
    c.exit = -1;
    c.phrase = "cannot read " + (kBadDir / "cases.tsv").string();
    return {c};
  }
  std::set<std::string> names;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    const auto cols = split(line, '\t');
    Case c;
    c.line = lineno;
    if (cols.size() != 4 || cols[1].empty()) {
      c.name = "line_" + std::to_string(lineno);
      c.exit = -1;
      c.phrase = "expected 4 tab-separated columns: file, exit code, phrase, arguments";
      cases.push_back(std::move(c));
      continue;
    }
    c.exit = std::atoi(cols[1].c_str());
    if (cols[0] != "-") c.file = (kBadDir / cols[0]).lexically_normal().string();
    // The test name: the file's path (or "flags"), made unique.
    std::string base = cols[0] == "-" ? "flags" : fs::path(cols[0]).replace_extension().string();
    for (char& ch : base)
      if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    c.name = base;
    for (int n = 2; !names.insert(c.name).second; ++n) c.name = base + "_" + std::to_string(n);
    c.args =
        split_args(replace_all(replace_all(cols[3], "{file}", c.file), "{data}", kBadDir.string()));
    c.phrase = replace_all(cols[2], "{file}", c.file);
    cases.push_back(std::move(c));
  }
  return cases;
}

struct Result {
  int exit = -1;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

Result run_kvplan(const std::vector<std::string>& args, const std::string& tag) {
  static const kvplan::test::TempDir scratch;  // removed when the test process exits
  const fs::path& dir = scratch.path();
  const std::string out_path = (dir / (tag + ".out")).string();
  const std::string err_path = (dir / (tag + ".err")).string();
  std::vector<std::string> argv_s{KVPLAN_EXE};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  Result r;
  const int rc = posix_spawn(&pid, KVPLAN_EXE, &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    r.err = "posix_spawn failed: " + std::to_string(rc);
    return r;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status))
    r.exit = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    r.exit = 128 + WTERMSIG(status);
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  fs::remove(out_path);
  fs::remove(err_path);
  return r;
}

std::string command_line(const Case& c) {
  std::string s = "kvplan";
  for (const auto& a : c.args) s += " " + a;
  return s;
}

// Shown by GoogleTest instead of the bytes of the struct.
void PrintTo(const Case& c, std::ostream* os) { *os << command_line(c); }

class BadInput : public ::testing::TestWithParam<Case> {};

TEST_P(BadInput, RefusedWithExitCodeAndMessage) {
  const Case& c = GetParam();
  ASSERT_GE(c.exit, 0) << "tests/data/bad/cases.tsv line " << c.line << ": " << c.phrase;
  if (!c.file.empty()) {
    ASSERT_TRUE(fs::exists(c.file)) << "missing corpus file " << c.file;
  }
  const Result r = run_kvplan(c.args, c.name);
  SCOPED_TRACE("cases.tsv line " + std::to_string(c.line) + ": " + command_line(c));
  EXPECT_EQ(r.exit, c.exit) << "stderr:\n" << r.err;
  // Refusals (exit 2) are on stderr; a failed check (exit 1) is the report on stdout.
  const std::string& text = c.exit == 1 ? r.out : r.err;
  EXPECT_NE(text.find(c.phrase), std::string::npos)
      << "expected the phrase\n  " << c.phrase << "\nin " << (c.exit == 1 ? "stdout" : "stderr")
      << ":\n  " << text;
  // A refusal is never an internal error nor a sanitizer report.
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("Sanitizer"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("runtime error"), std::string::npos) << r.err;
  // A refusal names the file it refused.
  if (!c.file.empty() && c.exit == 2) {
    EXPECT_NE(r.err.find(c.file), std::string::npos) << r.err;
  }
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Corpus, BadInput, ::testing::ValuesIn(load_cases()), case_name);

// The table covers the corpus: every file under tests/data/bad/ (but the helpers: valid/, this
// table, make_bad.py) is used by a case, every line parses, and there are at least 40 files.
TEST(BadInputTable, CoversEveryFile) {
  const auto cases = load_cases();
  std::set<std::string> used;
  for (const auto& c : cases) {
    EXPECT_GE(c.exit, 0) << "cases.tsv line " << c.line << ": " << c.phrase;
    if (!c.file.empty()) used.insert(c.file);
  }
  std::size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(kBadDir)) {
    const auto rel = e.path().lexically_relative(kBadDir);
    if (!e.is_regular_file() || rel == "cases.tsv" || rel == "make_bad.py" ||
        *rel.begin() == "valid")
      continue;
    ++files;
    EXPECT_TRUE(used.count(e.path().lexically_normal().string()))
        << e.path() << " has no case in cases.tsv";
  }
  EXPECT_GE(files, 40u);
}

}  // namespace
