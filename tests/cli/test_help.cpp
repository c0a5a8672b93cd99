// --help exits 0 everywhere, kvplan help <command>, --version, bash completion generated from the
// option definitions, and progress on stderr only for a terminal.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "cli_run.hpp"
#include "temp_dir.hpp"

namespace {

using Run = kvplan::test::CliRun;
// `cmd` through the shell, stdout and stderr together.
Run shell(const std::string& cmd) { return kvplan::test::run_shell(cmd); }

const std::string kExe = std::string("'") + KVPLAN_EXE + "'";

bool has(const std::string& s, const std::string& w) { return s.find(w) != std::string::npos; }

TEST(Help, EveryCommandsHelpExitsZero) {
  // models and gpus exited 2 (issue 18): their --format default was read before it was set.
  for (const char* c : {"size", "plan", "check", "replay", "generate", "trace", "trace capture",
                        "trace synth", "trace info", "models", "gpus", "completion", "help"}) {
    for (const char* h : {"--help", "-h"}) {
      const auto r = shell(kExe + " " + c + " " + h);
      EXPECT_EQ(r.code, 0) << c << " " << h << "\n" << r.out;
      EXPECT_TRUE(has(r.out, "usage")) << c << " " << h << "\n" << r.out;
    }
  }
}

TEST(Help, HelpCommandIsTheCommandsHelp) {
  EXPECT_EQ(shell(kExe + " help plan").out, shell(kExe + " plan --help").out);
  EXPECT_EQ(shell(kExe + " help trace synth").out, shell(kExe + " trace synth --help").out);
  const auto all = shell(kExe + " help");
  EXPECT_EQ(all.code, 0);
  EXPECT_TRUE(has(all.out, "completion")) << all.out;
  const auto bad = shell(kExe + " help nope");
  EXPECT_EQ(bad.code, 2);
  EXPECT_TRUE(has(bad.out, "unknown command 'nope'")) << bad.out;
  const auto v = shell(kExe + " --version");
  EXPECT_EQ(v.code, 0);
  EXPECT_EQ(v.out.rfind("kvplan ", 0), 0u) << v.out;
  EXPECT_EQ(shell(kExe + " completion zsh").code, 2);
}

TEST(Help, BashCompletionComesFromTheOptionDefinitions) {
  const auto r = shell(kExe + " completion bash");
  ASSERT_EQ(r.code, 0) << r.out;
  kvplan::test::TempDir dir;
  const std::string script = dir.file("kvplan.bash");
  std::ofstream(script) << r.out;
  ASSERT_EQ(shell("bash -n '" + script + "'").code, 0) << r.out;
  // Complete a few words the way bash does, through the generated function.
  auto complete = [&](const std::vector<std::string>& words) {
    std::string arr;
    for (const auto& w : words) arr += " '" + w + "'";
    const std::string cmd =
        "bash -c 'source \"$0\"; COMP_WORDS=(\"${@}\"); COMP_CWORD=$(($# - 1)); "
        "_kvplan; printf \"%s\\n\" \"${COMPREPLY[@]}\"' '" +
        script + "'" + arr;
    return shell(cmd).out;
  };
  EXPECT_TRUE(has(complete({"kvplan", "pl"}), "plan\n"));
  // Options of plan, including the one every command shares.
  const auto plan = complete({"kvplan", "plan", "--kv"});
  EXPECT_EQ(plan, "--kv-dtype\n--kv-link\n--kv-link-latency-ms\n--kv-transfer-overhead-ms\n")
      << plan;
  EXPECT_TRUE(has(complete({"kvplan", "plan", "--q"}), "--quiet"));
  EXPECT_TRUE(has(complete({"kvplan", "replay", "--fid"}), "--fidelity-every"));
  // Subcommands, then their options.
  EXPECT_EQ(complete({"kvplan", "trace", "sy"}), "synth\n");
  EXPECT_TRUE(has(complete({"kvplan", "trace", "synth", "--tok"}), "--tokens"));
  // Presets after --model / --gpu.
  EXPECT_TRUE(has(complete({"kvplan", "size", "--model", "llama-3.1-8"}), "llama-3.1-8b"));
  EXPECT_TRUE(has(complete({"kvplan", "plan", "--gpu", "h100-s"}), "h100-sxm-80gb"));
}

// Progress appears on a terminal (script(1) gives the command one), with the time left, and not
// with --quiet, nor when stderr is a file or a pipe.
// Why this machine cannot give a child a terminal, or "" when it can: a pseudo-terminal pair
// opens (posix_openpt, then the slave by its name, as script(1) does) and script(1) runs in it.
// A fresh chroot without /dev/pts has no pseudo-terminals ("script: failed to create
// pseudo-terminal: No such device"); that is the environment's lack, not kvplan's failure.
std::string no_terminal() {
  if (shell("command -v script").code != 0) return "script(1) is not installed";
  const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0) return std::string("posix_openpt failed: ") + std::strerror(errno);
  std::string why;
  const char* slave =
      ::grantpt(master) == 0 && ::unlockpt(master) == 0 ? ::ptsname(master) : nullptr;
  if (!slave) {
    why = std::string("no pseudo-terminal slave: ") + std::strerror(errno);
  } else if (const int fd = ::open(slave, O_RDWR | O_NOCTTY); fd < 0) {
    why = std::string("cannot open ") + slave + ": " + std::strerror(errno) +
          " (is /dev/pts mounted?)";
  } else {
    ::close(fd);
  }
  ::close(master);
  if (!why.empty()) return why;
  const auto probe = shell("script -qec true /dev/null");
  if (probe.code != 0) return "script(1) cannot run a command on a terminal: " + probe.out;
  return "";
}

TEST(Help, ReplayProgressOnlyOnATerminal) {
  if (const std::string why = no_terminal(); !why.empty())
    GTEST_SKIP() << "needs a pseudo-terminal, which this environment cannot provide: " << why;
  kvplan::test::TempDir dir;
  const std::string trace = dir.file("t.safetensors");
  ASSERT_EQ(shell(kExe + " trace synth --tokens 256 -o '" + trace + "'").code, 0);
  // Drawn from the start rather than after a second, so that a fast machine shows it too.
  const std::string replay = "KVPLAN_PROGRESS_DELAY_MS=0 " + kExe + " replay --trace '" + trace +
                             "' --kv-dtype fp16 --format json > /dev/null";
  auto tty = shell("script -qec \"" + replay + "\" /dev/null");
  EXPECT_EQ(tty.code, 0) << tty.out;
  EXPECT_TRUE(has(tty.out, "/256 tokens")) << tty.out;
  EXPECT_TRUE(has(tty.out, " left")) << tty.out;
  tty = shell("script -qec \"" + replay + " --quiet\" /dev/null");
  EXPECT_FALSE(has(tty.out, "tokens")) << tty.out;
  const auto piped = shell(replay);
  EXPECT_FALSE(has(piped.out, "tokens")) << piped.out;
}

}  // namespace
