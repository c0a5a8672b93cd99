// A model directory given to --model (load_model(dir)): the input is
// "<config.json> NUL <hf_quant_config.json>", or only config.json without a NUL. Both files are
// read in the Hugging Face JSON dialect and the ModelOpt quantization config is applied to the
// import. The files go to a per-process temporary directory, emptied before each input.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "fuzz_util.hpp"
#include "kvplan/model.hpp"
#include "model_checks.hpp"

namespace fs = std::filesystem;

namespace {

// Removed when the process exits normally (libFuzzer's time limit, -runs).
struct TempDir {
  fs::path path;
  TempDir() {
    std::string t = (fs::temp_directory_path() / "kvplan-fuzz-model-XXXXXX").string();
    if (!mkdtemp(t.data())) {
      std::perror("mkdtemp");
      std::abort();
    }
    path = t;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

const fs::path& work_dir() {
  static const TempDir dir;
  return dir.path;
}

void write(const fs::path& p, std::string_view bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) {
    std::fprintf(stderr, "cannot write %s\n", p.c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fs::path& dir = work_dir();
  std::error_code ec;
  fs::remove(dir / "hf_quant_config.json", ec);
  const std::string_view text = kvplan::fuzz::as_text(data, size);
  const auto nul = text.find('\0');
  write(dir / "config.json", text.substr(0, nul));
  if (nul != std::string_view::npos) write(dir / "hf_quant_config.json", text.substr(nul + 1));
  kvplan::fuzz::refuse_cleanly([&] { kvplan::fuzz::exercise_model(kvplan::load_model(dir)); });
  return 0;
}
