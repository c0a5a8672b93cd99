// The entry points of an engine's command line, shared by its reader (engine_args.cpp) and the
// manifest reader that finds which engine a container runs (manifest.cpp).
#include "command_syntax.hpp"

namespace kvplan::detail {

bool is_program(const std::string& word, const std::string& program) {
  return word == program || word.ends_with("/" + program);
}

bool runs_python_module(const std::vector<std::string>& argv, std::size_t i) {
  if (i + 2 >= argv.size() || argv[i + 1] != "-m") return false;
  const std::string& w = argv[i];
  return w.rfind("python", 0) == 0 || w.find("/python") != std::string::npos;
}

std::optional<EntryMatch> match_entry_point(const CommandSyntax& s,
                                            const std::vector<std::string>& argv, std::size_t i) {
  if (i >= argv.size()) return std::nullopt;
  if (!s.python_module.empty() && runs_python_module(argv, i)) {
    if (argv[i + 2] != s.python_module) return std::nullopt;
    return EntryMatch{3, false};
  }
  for (const EntryPoint& e : s.programs) {
    if (!is_program(argv[i], e.program)) continue;
    const bool sub = !e.subcommand.empty() && i + 1 < argv.size() && argv[i + 1] == e.subcommand;
    if (!e.subcommand.empty() && !sub && !e.subcommand_optional) continue;
    return EntryMatch{sub ? 2u : 1u, e.positional_model};
  }
  return std::nullopt;
}

bool starts_engine(const CommandSyntax& s, const std::vector<std::string>& argv, std::size_t i) {
  return match_entry_point(s, argv, i).has_value();
}

}  // namespace kvplan::detail
