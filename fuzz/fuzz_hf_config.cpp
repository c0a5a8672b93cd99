// Hugging Face config.json import, reached directly (any JSON object, whether or not it names a
// model_type), so the fuzzer spends its time inside the importer. The text is read in the HF
// dialect, as --model reads a config.json (Infinity / NaN literals, duplicate keys kept as
// warnings), so the published Nemotron-H configs reach the importer.
#include <cstdint>
#include <string>

#include "fuzz_util.hpp"
#include "hf_config.hpp"
#include "json_read.hpp"
#include "model_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(kvplan::fuzz::as_text(data, size));
  kvplan::fuzz::refuse_cleanly([&] {
    const auto j = kvplan::detail::parse_json_text(text, "config.json",
                                                   kvplan::detail::JsonDialect::hf_config);
    kvplan::fuzz::exercise_model(kvplan::detail::import_hf_config(j, "config.json"));
  });
  return 0;
}
