// The subcommand registry of the kvplan CLI. Each cmd_*.cpp registers itself:
//
//   static const kvplan::cli::Registrar reg{{"size", "KV-cache bytes of a model", run_size}};
//
// A command parses its arguments (Boost.Program_options), calls the libraries and renders; it
// returns the exit code (0 ok, 1 check failed) and lets kvplan::Error propagate to main.
#pragma once

#include <boost/program_options.hpp>
#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "kvplan/report.hpp"

namespace kvplan::cli {

struct Command {
  std::string name;
  std::string summary;
  int (*run)(const std::vector<std::string>& args, std::ostream& out);
  std::vector<std::string> subcommands = {};  // "trace": capture, synth, info
};

std::vector<Command>& registry();

struct Registrar {
  explicit Registrar(Command c) { registry().push_back(std::move(c)); }
};

namespace po = boost::program_options;

// Thrown by parse_args once --help is printed: main exits 0, whatever the command would have
// done with its (unparsed) options next.
struct HelpShown {};

// Parses args against desc (and positional), mapping Boost errors to kvplan::Error (exit 2).
// Every command also takes --help (prints help to `out`, then throws HelpShown) and --quiet (no
// progress on stderr). Returns true; the bool is kept for the callers' `if (!parse_args) return 0`.
bool parse_args(const std::vector<std::string>& args, const po::options_description& desc,
                po::variables_map& vm, std::ostream& out, const std::string& usage,
                const std::string& example,
                const po::positional_options_description* positional = nullptr);

// A help text listing spellings (kv_format_spellings, policy_spellings) as " | "-separated lines
// of at most 46 characters, then `note` on a line of its own: Boost wraps a description at
// spaces only when that wastes less than half a line, and cuts a word otherwise; a spelling cut
// in two could not be copied.
std::string spellings_help(const std::vector<std::string>& spellings, const std::string& note);
// --kv-dtype's and --policy's help: the spellings, then `default_note` ("default: ...").
std::string kv_format_help(const std::string& default_note);
std::string policy_help(const std::string& prefix = "");

// --enable-expert-parallel (plan, simulate, sweep): the engine option enable_expert_parallel=true
// (docs/deploy.md), its help, and the option list it joins.
extern const char* const kExpertParallelHelp;
std::vector<std::string> with_expert_parallel(const po::variables_map& vm,
                                              std::vector<std::string> engine_options);

// While set, parse_args appends the long names of every option it is given ("--model", ...) to
// `*flags` and throws HelpShown without printing: how `kvplan completion bash` learns each
// command's options from their definitions. nullptr ends collection.
void collect_options(std::vector<std::string>* flags);

// True once a command's arguments held --quiet.
bool quiet();

// Progress of a long run on stderr: "[#####.....]  42%  1,720/4,096 tokens  0:35 left". Drawn
// only when stderr is a terminal and --quiet was not given, and only once the run has taken
// more than about a second (KVPLAN_PROGRESS_DELAY_MS); at most ten redraws a second; the line is
// erased when done.
class Progress {
 public:
  explicit Progress(std::string unit);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  void operator()(std::uint64_t done, std::uint64_t total);  // units done of total
  // The line for a state, without drawing: what the terminal shows (tested).
  static std::string line(std::uint64_t done, std::uint64_t total, double elapsed_s,
                          const std::string& unit);

 private:
  std::string unit_;
  bool on_;
  bool drawn_ = false;
  double delay_s_ = 1.0;
  std::chrono::steady_clock::time_point start_, last_;
};

// A rendered report as it is written: for table, Markdown and CSV the terminal control sequences
// a file-provided string may carry (a model name that clears the screen) are removed; JSON and
// JUnit are escaped by their renderers and are only made valid UTF-8.
std::string for_output(const std::string& rendered, OutputFormat format);

}  // namespace kvplan::cli
