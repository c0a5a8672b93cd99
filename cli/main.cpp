// kvplan: size, plan and validate the KV cache of LLM deployments.
// Exit codes: 0 ok / check passed, 1 check failed, 2 invalid input or usage, 3 internal error.
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "command.hpp"
#include "kvplan/error.hpp"
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

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
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
    std::cerr << "kvplan " << args[0] << ": error: " << e.what() << "\n";
    return e.exit_code();
  } catch (const std::exception& e) {
    std::cerr << "kvplan " << args[0] << ": internal error: " << e.what() << "\n";
    return 3;
  }
}
