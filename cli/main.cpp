// kvplan: size, plan and validate the KV cache of LLM deployments.
// Exit codes: 0 ok / check passed, 1 check failed, 2 invalid input or usage, 3 internal error.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <iostream>
#include <streambuf>
#include <string>
#include <vector>

#include "command.hpp"
#include "kvplan/error.hpp"
#include "kvplan/text_safe.hpp"
#include "kvplan/version.hpp"

namespace {

void print_usage(std::ostream& os) {
  auto cmds = kvplan::cli::registry();
  std::sort(cmds.begin(), cmds.end(), [](auto& a, auto& b) { return a.name < b.name; });
  os << "usage: kvplan <command> [options]   (kvplan <command> --help for each)\n\ncommands:\n";
  for (const auto& c : cmds) {
    os << "  " << c.name << std::string(c.name.size() < 10 ? 10 - c.name.size() : 1, ' ')
       << c.summary << "\n";
  }
  os << "\nexit codes: 0 ok, 1 check failed, 2 invalid input, 3 internal error\n";
}

// What standard output is, for messages: "standard output (/dev/full)" when it names a file.
std::string stdout_name() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/fd/1", buf, sizeof buf - 1);
  if (n <= 0) return "standard output";
  return "standard output (" + std::string(buf, static_cast<std::size_t>(n)) + ")";
}

// Standard output through write(2), remembering the first error: a full disk or a closed pipe
// is reported with its reason (ENOSPC, EPIPE) once the command is done, never a silent exit 0
// with a truncated report.
class StdoutBuf : public std::streambuf {
 public:
  StdoutBuf() { setp(buf_, buf_ + sizeof buf_); }
  int error() const { return error_; }
  int sync() override { return drain() ? 0 : -1; }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }

 private:
  bool drain() {
    const char* p = pbase();
    while (p < pptr() && !error_) {
      const ssize_t n = ::write(1, p, static_cast<std::size_t>(pptr() - p));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) error_ = errno;
      else p += n;
    }
    setp(buf_, buf_ + sizeof buf_);  // after an error the rest is dropped
    return !error_;
  }
  char buf_[1 << 16];
  int error_ = 0;
};

// Exit 2 naming standard output when a write to it failed; exit 3 (a bug) is kept as it is.
int finish_stdout(StdoutBuf& buf, const std::string& cmd, int code) {
  std::cout.flush();
  if (!buf.error() && std::cout) return code;
  std::cerr << "kvplan" << (cmd.empty() ? "" : " " + cmd) << ": error: " << stdout_name()
            << ": write failed: " << std::strerror(buf.error() ? buf.error() : EIO) << "\n";
  return code == 3 ? 3 : 2;
}

int run(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    print_usage(args.empty() ? std::cerr : std::cout);
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version" || args[0] == "version") {
    std::cout << "kvplan " << kvplan::kVersion << "\n";
    return 0;
  }
  const auto& cmds = kvplan::cli::registry();
  auto it = std::find_if(cmds.begin(), cmds.end(), [&](auto& c) { return c.name == args[0]; });
  if (it == cmds.end()) {
    std::cerr << "kvplan: error: unknown command '" << args[0] << "'\n\n";
    print_usage(std::cerr);
    return 2;
  }
  try {
    return it->run({args.begin() + 1, args.end()}, std::cout);
  } catch (const kvplan::Error& e) {
    std::cerr << "kvplan " << args[0] << ": error: " << kvplan::terminal_safe(e.what()) << "\n";
    return e.exit_code();
  } catch (const std::exception& e) {
    std::cerr << "kvplan " << args[0] << ": internal error: " << kvplan::terminal_safe(e.what()) << "\n";
    return 3;
  }
}

}  // namespace

int main(int argc, char** argv) {
  // A closed pipe is a write error (EPIPE) reported like a full disk, not a silent SIGPIPE death.
  std::signal(SIGPIPE, SIG_IGN);
  static StdoutBuf buf;
  std::cout.rdbuf(&buf);
  const std::vector<std::string> args(argv + 1, argv + argc);
  const int code = run(args);
  return finish_stdout(buf, args.empty() ? "" : args[0], code);
}
