#include "command.hpp"

#include <ostream>

#include "kvplan/error.hpp"

namespace kvplan::cli {

std::vector<Command>& registry() {
  static std::vector<Command> commands;
  return commands;
}

bool parse_args(const std::vector<std::string>& args, const po::options_description& desc,
                po::variables_map& vm, std::ostream& out, const std::string& usage,
                const std::string& example, const po::positional_options_description* positional) {
  po::options_description all(desc);
  all.add_options()("help,h", "show this help");
  try {
    po::command_line_parser parser(args);
    parser.options(all);
    if (positional) parser.positional(*positional);
    po::store(parser.run(), vm);
    if (vm.count("help")) {
      out << "usage: " << usage << "\n\n" << all << "\nexample:\n  " << example << "\n";
      return false;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw Error("command line", "", std::string(e.what()) + " (see --help)");
  }
  return true;
}

}  // namespace kvplan::cli
