// A model directory given to --model (load_model(dir)): the input is
// "<config.json> NUL <hf_quant_config.json>", or only config.json without a NUL. Both files are
// read in the Hugging Face JSON dialect and the ModelOpt quantization config is applied to the
// import. The files go to a per-process temporary directory, emptied before each input.
#include <cstdint>
#include <filesystem>
#include <string_view>

#include "fuzz_util.hpp"
#include "kvplan/model.hpp"
#include "model_checks.hpp"

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fs::path& dir = kvplan::fuzz::temp_dir("model");
  std::error_code ec;
  fs::remove(dir / "hf_quant_config.json", ec);
  const std::string_view text = kvplan::fuzz::as_text(data, size);
  const auto nul = text.find('\0');
  kvplan::fuzz::write_file(dir / "config.json", text.substr(0, nul));
  if (nul != std::string_view::npos)
    kvplan::fuzz::write_file(dir / "hf_quant_config.json", text.substr(nul + 1));
  kvplan::fuzz::refuse_cleanly([&] { kvplan::fuzz::exercise_model(kvplan::load_model(dir)); });
  return 0;
}
