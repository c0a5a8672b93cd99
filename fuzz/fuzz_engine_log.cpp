// Engine startup logs (kvplan explain LOGFILE): any text is parsed; an accepted log is explained
// against a preset and rendered in every format.
#include <cstdint>
#include <string>

#include "fuzz_util.hpp"
#include "kvplan/engine_log.hpp"
#include "kvplan/model.hpp"
#include "kvplan/report.hpp"

using namespace kvplan;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(fuzz::as_text(data, size));
  static const ModelSpec model = load_model("llama-3.1-8b");
  fuzz::refuse_cleanly([&] {
    const EngineLog log = parse_engine_log(text, "fuzz.log");
    ExplainOverrides o;
    if (!log.max_model_len && !log.concurrency_tokens) o.max_model_len = 4096;
    const ExplainReport r = explain_log(log, model, o);
    for (auto f : {OutputFormat::table, OutputFormat::json, OutputFormat::md})
      fuzz::check(!render(r, f).empty(), "an explained log renders");
  });
  return 0;
}
