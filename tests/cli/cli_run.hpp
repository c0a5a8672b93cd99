// Runs the built kvplan binary (KVPLAN_EXE) through the shell for the CLI tests, capturing
// stdout, stderr and the exit code. stderr goes through a per-process file in the build tree,
// removed after reading.
//
//   const auto r = kvplan::test::run_kvplan("size --model llama-3.1-8b --context 8192");
//   EXPECT_EQ(r.code, 0) << r.err;
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace kvplan::test {

struct CliRun {
  int code = -1;  // the exit status; -1 when the process did not exit normally
  std::string out, err;
};

// `cmd` through the shell: its stdout in `out` and its exit status.
inline CliRun run_pipe(const std::string& cmd) {
  CliRun r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// `cmd` through the shell, stdout and stderr together in `out` (`err` stays empty).
inline CliRun run_shell(const std::string& cmd) { return run_pipe(cmd + " 2>&1"); }

inline CliRun run_kvplan(const std::string& args) {
  static int counter = 0;
  const std::string err_path = std::string(KVPLAN_BINARY_DIR) + "/cli_test_stderr_" +
                               std::to_string(::getpid()) + "_" + std::to_string(counter++);
  CliRun r = run_pipe(std::string("'") + KVPLAN_EXE + "' " + args + " 2>'" + err_path + "'");
  std::ifstream e(err_path);
  std::stringstream ss;
  ss << e.rdbuf();
  r.err = ss.str();
  std::remove(err_path.c_str());
  return r;
}

}  // namespace kvplan::test
