// Deployment files (kvplan check DEPLOY.json): parse, then run every check of an accepted file and
// render the report in each format, as the CI gate does.
#include <cstdint>
#include <string>

#include "fuzz_util.hpp"
#include "kvplan/deploy.hpp"

using namespace kvplan;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(fuzz::as_text(data, size));
  fuzz::refuse_cleanly([&] {
    const Deployment d = parse_deploy_json(text, "deploy.json");
    const CheckReport r = run_check(d);
    fuzz::check(r.passed() == (r.failures() == 0), "passed() agrees with failures()");
    for (auto f : {OutputFormat::table, OutputFormat::json, OutputFormat::md, OutputFormat::junit})
      fuzz::check(!render(r, f).empty(), "a report renders");
  });
  return 0;
}
