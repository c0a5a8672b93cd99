// kvplan explain: an engine's startup log, its KV-cache numbers recomputed side by side; a start
// that failed, in plain words with the fix (start_failure.hpp).
#include <fstream>
#include <ostream>
#include <sstream>
#include <tuple>

#include "command.hpp"
#include "kvplan/engine_args.hpp"
#include "kvplan/engine_log.hpp"
#include "kvplan/error.hpp"
#include "kvplan/gpu.hpp"
#include "kvplan/model.hpp"
#include "kvplan/output_path.hpp"
#include "kvplan/report.hpp"
#include "kvplan/start_failure.hpp"

namespace kvplan::cli {
namespace {

// explain's flags, as given.
struct ExplainFlags {
  std::string file, model, kv, format, max_len, gpu, fraction, calibrate;
  std::uint32_t tp = 0, block = 0, draft = 0;
  std::uint64_t seqs = 0, mnbt = 0;
};

void add_explain_options(po::options_description& desc, ExplainFlags& f) {
  desc.add_options()("log", po::value(&f.file), "the engine's startup log")(
      "model", po::value(&f.model),
      "the model the log served (preset, repo id, directory or config.json); default: the "
      "log's model name")("max-model-len", po::value(&f.max_len),
                          "when the log does not say (32k, 32768)")(
      "tp", po::value(&f.tp), "tensor parallelism, when the log does not say")(
      "kv-cache-dtype", po::value(&f.kv), "the engine's KV cache dtype, when the log does not say")(
      "block-size", po::value(&f.block), "tokens per block, when not the engine's default")(
      "max-num-seqs", po::value(&f.seqs),
      "the engine's max_num_seqs (the profile's sampler rows), when not its default on the GPU")(
      "max-num-batched-tokens", po::value(&f.mnbt),
      "the engine's max_num_batched_tokens (the profile's tokens), when not its default")(
      "draft-layers", po::value(&f.draft),
      "speculative layers holding a cache (an EAGLE head: 1), when the log ran with one")(
      "gpu", po::value(&f.gpu), "the GPU the log ran on (preset or file): measures the reserve")(
      "gpu-memory-utilization", po::value(&f.fraction),
      "the engine's memory fraction, when not its default")(
      "calibrate", po::value(&f.calibrate),
      "write the measured reserve to this calibration file (- : standard output, in place of "
      "the report); never onto the log, the model's files or the GPU file")(
      "format", po::value(&f.format)->default_value("table"), "table|json|md");
}

// What the flags say that the log does not.
ExplainOverrides explain_overrides(const ExplainFlags& f, const po::variables_map& vm) {
  ExplainOverrides o;
  if (vm.count("max-model-len"))
    o.max_model_len =
        parse_human_int(f.max_len, 1, std::uint64_t{1} << 40, "--max-model-len", "max-model-len");
  if (vm.count("tp")) o.tp = f.tp;
  if (vm.count("kv-cache-dtype")) o.kv_cache_dtype = f.kv;
  if (vm.count("block-size")) o.block_size = f.block;
  for (auto [flag, value, out] :
       {std::tuple{"max-num-seqs", f.seqs, &o.max_num_seqs},
        std::tuple{"max-num-batched-tokens", f.mnbt, &o.max_num_batched_tokens}})
    if (vm.count(flag)) {
      if (value == 0 || value > (std::uint64_t{1} << 32))
        throw Error(std::string("--") + flag, flag,
                    "must be between 1 and 4294967296, got " + std::to_string(value));
      *out = value;
    }
  if (vm.count("draft-layers")) {
    if (f.draft > 1024)
      throw Error("--draft-layers", "draft-layers",
                  "must be at most 1024, got " + std::to_string(f.draft));
    o.draft_layers = f.draft;
  }
  if (vm.count("gpu")) {
    const auto g = load_gpu(f.gpu);
    o.gpu_id = g.id;
    o.gpu_memory_bytes = g.engine_memory_bytes();
  }
  if (vm.count("gpu-memory-utilization"))
    o.memory_fraction_ppm = parse_fraction_ppm(f.fraction, "--gpu-memory-utilization", "fraction");
  return o;
}

int run_explain(const std::vector<std::string>& args, std::ostream& out) {
  po::options_description desc("kvplan explain options");
  ExplainFlags f;
  add_explain_options(desc, f);
  po::positional_options_description pos;
  pos.add("log", 1);
  po::variables_map vm;
  if (!parse_args(args, desc, vm, out, "kvplan explain LOGFILE [--model M] [options]",
                  "kvplan explain vllm.log --model meta-llama/Llama-3.1-8B-Instruct", &pos))
    return 0;
  if (!vm.count("log")) throw Error("command line", "log", "give the engine's log file");
  const auto fmt =
      parse_output_format(f.format, {OutputFormat::table, OutputFormat::json, OutputFormat::md});
  // Before any work: the calibration must not land on an input (the log, a model file).
  const bool calibrate_stdout =
      vm.count("calibrate") &&
      check_output_path(f.calibrate, {f.file, f.model, f.gpu}, "--calibrate");
  const StartupLog startup = load_startup_log(f.file);
  const EngineLog& log = startup.log;
  const std::string ref = vm.count("model") ? f.model : log.model;
  if (vm.count("calibrate") && !vm.count("model"))
    check_output_path(f.calibrate, {ref}, "--calibrate");
  if (ref.empty()) throw Error("--model", "model", "the log names no model: give --model");
  const ExplainOverrides o = explain_overrides(f, vm);
  // The log's own model reference may be a path or an older repo id: resolved by name, saying so.
  const ResolvedModel m =
      vm.count("model") ? ResolvedModel{load_model(ref), ""} : resolve_log_model(log);
  const ExplainOutcome r = explain_startup(startup, m.model, o, m.note);
  if (!calibrate_stdout) out << for_output(render(r, fmt), fmt);
  if (vm.count("calibrate")) {
    auto c = calibration_of(r);
    c.gpu = o.gpu_id;
    if (calibrate_stdout)
      out << to_json(c);
    else
      save_calibration(c, f.calibrate);
  }
  return r.exit_code();
}

const Registrar reg{
    {"explain",
     "an engine's startup log: its KV-cache numbers recomputed and compared, or why it "
     "failed to start and the fix",
     run_explain}};

}  // namespace
}  // namespace kvplan::cli
