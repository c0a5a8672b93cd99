// kvplan model JSON and Hugging Face config.json, through the one entry point --model files use.
#include <cstdint>
#include <string>

#include "fuzz_util.hpp"
#include "kvplan/model.hpp"
#include "model_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(kvplan::fuzz::as_text(data, size));
  kvplan::fuzz::refuse_cleanly(
      [&] { kvplan::fuzz::exercise_model(kvplan::parse_model_json(text, "fuzz.json")); });
  return 0;
}
