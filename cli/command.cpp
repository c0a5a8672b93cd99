#include "command.hpp"

#include <cstdint>
#include <ostream>
#include <string>

#include "kvplan/error.hpp"
#include "kvplan/text_safe.hpp"

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
    const auto parsed = parser.run();
    // Boost converts "-5" for an unsigned option to 2^64 - 5; refuse it instead.
    for (const auto& o : parsed.options) {
      const auto* d = all.find_nothrow(o.string_key, false);
      const auto* sem = d ? d->semantic().get() : nullptr;
      const bool is_unsigned = dynamic_cast<const po::typed_value<std::uint64_t>*>(sem) ||
                               dynamic_cast<const po::typed_value<std::uint32_t>*>(sem);
      for (const auto& v : o.value)
        if (is_unsigned && !v.empty() && v[0] == '-')
          throw Error("--" + o.string_key, o.string_key, "must not be negative, got " + v);
    }
    po::store(parsed, vm);
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

std::string for_output(const std::string& rendered, OutputFormat format) {
  if (format == OutputFormat::json || format == OutputFormat::junit) return valid_utf8(rendered);
  return terminal_safe(rendered);
}

}  // namespace kvplan::cli
