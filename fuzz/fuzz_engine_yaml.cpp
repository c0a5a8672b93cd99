// Engine option files in YAML: vLLM's --config and trtllm-serve's --extra_llm_api_options. The
// first byte picks the engine, the rest is the file. Seeded with alias bombs, self-referential
// aliases, merge keys and repeated keys (fuzz/make_seeds.py): every one must end in an accepted
// command line or a kvplan::Error, within -rss_limit_mb and -timeout.
#include <cstdint>
#include <string>

#include "fuzz_util.hpp"
#include "kvplan/engine_args.hpp"

using namespace kvplan;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const bool trtllm = data[0] & 1;
  // vLLM wants a .yaml or .yml name, so the bytes go to a file rather than a memfd.
  const auto path = fuzz::temp_dir("engine_yaml") / "options.yaml";
  fuzz::write_file(path, fuzz::as_text(data + 1, size - 1));
  fuzz::refuse_cleanly([&] {
    const EngineArgs a =
        trtllm ? parse_engine_command(Engine::trtllm,
                                      "trtllm-serve m --extra_llm_api_options " + path.string(),
                                      "--trtllm")
               : parse_engine_command(Engine::vllm, "vllm serve m --config " + path.string(),
                                      "--vllm");
    fuzz::check(!a.model.empty(), "an accepted command line names its model");
    fuzz::check(a.config_files.size() == 1, "one option file is read");
  });
  return 0;
}
