#include "command.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <string>
#include <utility>

#include "kvplan/error.hpp"
#include "kvplan/kv_format.hpp"
#include "kvplan/policy.hpp"
#include "kvplan/text_safe.hpp"

namespace kvplan::cli {

std::vector<Command>& registry() {
  static std::vector<Command> commands;
  return commands;
}

namespace {
std::vector<std::string>* g_collect = nullptr;
bool g_quiet = false;
}  // namespace

void collect_options(std::vector<std::string>* flags) { g_collect = flags; }
bool quiet() { return g_quiet; }

bool parse_args(const std::vector<std::string>& args, const po::options_description& desc,
                po::variables_map& vm, std::ostream& out, const std::string& usage,
                const std::string& example, const po::positional_options_description* positional) {
  po::options_description all(desc);
  all.add_options()("help,h", "show this help")("quiet,q", "no progress on stderr");
  if (g_collect) {
    for (const auto& o : all.options()) g_collect->push_back("--" + o->long_name());
    throw HelpShown{};
  }
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
      // Descriptions at least 48 columns wide, so that the longest spelling they list
      // ("snapkv:budget=1024,window=32,kernel=7,pool=max", 46) is never cut in two; a longer
      // option name puts its description on the next line.
      po::options_description shown("", 80, 48);
      shown.add(all);
      out << "usage: " << usage << "\n" << shown << "\nexample:\n  " << example << "\n";
      throw HelpShown{};
    }
    if (vm.count("quiet")) g_quiet = true;
    po::notify(vm);
  } catch (const po::error& e) {
    throw Error("command line", "", std::string(e.what()) + " (see --help)");
  }
  return true;
}

std::string spellings_help(const std::vector<std::string>& spellings, const std::string& note) {
  std::string text, line;
  for (const auto& s : spellings) {
    if (!line.empty() && line.size() + 3 + s.size() > 46) {
      text += line + " |\n";
      line.clear();
    }
    line += (line.empty() ? "" : " | ") + s;
  }
  return text + line + (note.empty() ? "" : "\n" + note);
}

std::string kv_format_help(const std::string& default_note) {
  return spellings_help(kv_format_spellings(), "(" + default_note + ")");
}

const char* const kExpertParallelHelp =
    "MoE: the routed experts whole over the TP group, as vLLM --enable-expert-parallel or SGLang "
    "--ep-size = --tp (the engine option enable_expert_parallel=true; the step waits for the "
    "busiest rank: docs/simulate-step-time.md)";

std::vector<std::string> with_expert_parallel(const po::variables_map& vm,
                                              std::vector<std::string> engine_options) {
  if (vm.count("enable-expert-parallel")) engine_options.push_back("enable_expert_parallel=true");
  return engine_options;
}

std::string policy_help(const std::string& prefix) {
  return prefix + spellings_help(policy_spellings(),
                                 "(h2o and snapkv also take ,gqa=sum|mean|max; all but full "
                                 ",positions=original|cache)");
}

Progress::Progress(std::string unit)
    : unit_(std::move(unit)),
      on_(isatty(2) != 0 && !g_quiet),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {
  // KVPLAN_PROGRESS_DELAY_MS (default 1000): how long a run stays silent; the tests set 0.
  if (const char* d = std::getenv("KVPLAN_PROGRESS_DELAY_MS"))
    delay_s_ = std::strtod(d, nullptr) / 1000.0;
}

Progress::~Progress() {
  if (drawn_) std::fprintf(stderr, "\r\033[K"), std::fflush(stderr);
}

std::string Progress::line(std::uint64_t done, std::uint64_t total, double elapsed_s,
                           const std::string& unit) {
  if (total == 0) return "";
  done = std::min(done, total);
  const int w = 30;
  const auto fill = static_cast<int>(done * w / total);
  const auto pct = static_cast<int>(done * 100 / total);
  std::string s = "[" + std::string(fill, '#') + std::string(w - fill, '.') + "] ";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%3d%%  ", pct);
  s += buf + grouped(done) + "/" + grouped(total) + " " + unit;
  if (done > 0 && done < total) {
    // The rate so far, applied to what is left.
    const auto left = static_cast<std::uint64_t>(
        elapsed_s * static_cast<double>(total - done) / static_cast<double>(done) + 0.5);
    std::snprintf(buf, sizeof buf, "  %llu:%02llu left", static_cast<unsigned long long>(left / 60),
                  static_cast<unsigned long long>(left % 60));
    s += buf;
  }
  return s;
}

void Progress::operator()(std::uint64_t done, std::uint64_t total) {
  if (!on_ || total == 0) return;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (elapsed < delay_s_) return;  // short runs stay silent
  if (drawn_ && done < total && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  drawn_ = true;
  std::fprintf(stderr, "\r\033[K%s", line(done, total, elapsed, unit_).c_str());
  std::fflush(stderr);
}

std::string for_output(const std::string& rendered, OutputFormat format) {
  if (format == OutputFormat::json || format == OutputFormat::junit) return valid_utf8(rendered);
  return terminal_safe(rendered);
}

}  // namespace kvplan::cli
