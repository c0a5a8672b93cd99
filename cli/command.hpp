// The subcommand registry of the kvplan CLI. Each cmd_*.cpp registers itself:
//
//   static const kvplan::cli::Registrar reg{{"size", "KV-cache bytes of a model", run_size}};
//
// A command parses its arguments (Boost.Program_options), calls the libraries and renders; it
// returns the exit code (0 ok, 1 check failed) and lets kvplan::Error propagate to main.
#pragma once

#include <boost/program_options.hpp>
#include <iosfwd>
#include <string>
#include <vector>

#include "kvplan/report.hpp"

namespace kvplan::cli {

struct Command {
  std::string name;
  std::string summary;
  int (*run)(const std::vector<std::string>& args, std::ostream& out);
};

std::vector<Command>& registry();

struct Registrar {
  explicit Registrar(Command c) { registry().push_back(std::move(c)); }
};

namespace po = boost::program_options;

// Parses args against desc (and positional), mapping Boost errors to kvplan::Error (exit 2).
// Returns false after printing help to `out` when --help was given.
bool parse_args(const std::vector<std::string>& args, const po::options_description& desc,
                po::variables_map& vm, std::ostream& out, const std::string& usage,
                const std::string& example,
                const po::positional_options_description* positional = nullptr);

// A rendered report as it is written: for table, Markdown and CSV the terminal control sequences
// a file-provided string may carry (a model name that clears the screen) are removed; JSON and
// JUnit are escaped by their renderers and are only made valid UTF-8.
std::string for_output(const std::string& rendered, OutputFormat format);

}  // namespace kvplan::cli
