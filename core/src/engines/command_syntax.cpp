// The entry points of an engine's command line, shared by its reader (engine_args.cpp) and the
// manifest reader that finds which engine a container runs (manifest.cpp).
#include "command_syntax.hpp"

namespace kvplan::detail {

bool is_program(const std::string& word, const std::string& program) {
  return word == program || word.ends_with("/" + program);
}

bool starts_engine(const CommandSyntax& s, const std::vector<std::string>& argv, std::size_t i) {
  if (i >= argv.size()) return false;
  const std::string& w = argv[i];
  const bool python = w.rfind("python", 0) == 0 || w.find("/python") != std::string::npos;
  if (python && !s.python_module.empty() && i + 2 < argv.size() && argv[i + 1] == "-m")
    return argv[i + 2] == s.python_module;
  for (const EntryPoint& e : s.programs) {
    if (!is_program(w, e.program)) continue;
    if (e.subcommand.empty() || e.subcommand_optional) return true;
    if (i + 1 < argv.size() && argv[i + 1] == e.subcommand) return true;
  }
  return false;
}

}  // namespace kvplan::detail
