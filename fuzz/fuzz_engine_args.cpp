// Engine command lines (kvplan check --vllm "..." / --sglang "..."): the first byte picks the
// engine, the rest is the command line. An accepted command becomes a deployment on one H100 and
// is checked.
#include <cstdint>
#include <string>

#include "fuzz_util.hpp"
#include "kvplan/deploy.hpp"
#include "kvplan/engine_args.hpp"

using namespace kvplan;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const Engine engine = data[0] & 1 ? Engine::sglang : Engine::vllm;
  const std::string line(fuzz::as_text(data + 1, size - 1));
  static const GpuSpec gpu = load_gpu("h100-sxm-80gb");
  fuzz::refuse_cleanly([&] {
    const auto words = split_command_line(line, "--vllm");
    (void)words;
    const EngineArgs a = parse_engine_command(engine, line, "--vllm");
    const Deployment d = deploy_from_engine(a, gpu, (data[0] >> 1) & 7, "", "--vllm");
    const CheckReport r = run_check(d);
    fuzz::check(!render(r, OutputFormat::json).empty(), "a report renders");
  });
  return 0;
}
