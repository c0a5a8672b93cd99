// kvplan replay: a trace, or the llama2.c reference model in the loop, through several KV-cache
// configurations (formats × policies × block sizes); predicted vs measured bytes and fidelity.
#include <optional>
#include <ostream>

#include "command.hpp"
#include "kvplan/error.hpp"
#include "kvplan/kv_format.hpp"
#include "kvplan/policy.hpp"
#include "kvplan/report.hpp"
#include "kvplan/sim/probe.hpp"
#include "kvplan/sim/replay.hpp"
#include "kvplan/validate.hpp"

namespace kvplan::cli {
namespace {

std::string trace_kv_format(sim::DType d) {
  switch (d) {
    case sim::DType::f16:
      return "fp16";
    case sim::DType::bf16:
      return "bf16";
    case sim::DType::f32:
    case sim::DType::i32:  // not a q/k/v dtype (TraceFile refuses it)
      break;
  }
  return "fp32";
}

// replay's flags, as given.
struct ReplayFlags {
  std::string trace, checkpoint, tokenizer, tokens_file, prompt, backend, format;
  std::vector<std::string> kvs, policies;
  std::vector<std::uint32_t> blocks;
  std::uint32_t steps = 256;
  double temperature = 1.0;
  std::uint64_t seed = 42, eval_from = 0, max_tokens = 0, every = 0;
  std::uint32_t threads = 0;
  std::string probe, probe_filler_kind;
  sim::ProbeOptions popt;
};

void add_replay_options(po::options_description& desc, ReplayFlags& f, const std::string& kv_help,
                        const std::string& policy_text) {
  sim::ProbeOptions& popt = f.popt;
  desc.add_options()("trace", po::value(&f.trace), "trace file (.safetensors)")(
      "checkpoint", po::value(&f.checkpoint), "llama2.c checkpoint: the model in the loop")(
      "tokenizer", po::value(&f.tokenizer),
      "tokenizer: llama2.c .bin or tokenizer.json (a Hugging Face directory has its own)")(
      "tokens-file", po::value(&f.tokens_file), "teacher-force these whitespace-separated ids")(
      "prompt", po::value(&f.prompt)->default_value(""),
      "without --tokens-file: prompt of the model's own stream")(
      "steps", po::value(&f.steps)->default_value(256), "without --tokens-file: tokens generated")(
      "temperature", po::value(&f.temperature)->default_value(1.0),
      "of the model's own stream (0 = greedy)")("seed", po::value(&f.seed)->default_value(42),
                                                "sampling seed")(
      "kv-dtype", po::value(&f.kvs)->multitoken(), kv_help.c_str())(
      "policy", po::value(&f.policies)->multitoken(), policy_text.c_str())(
      "block-size", po::value(&f.blocks)->multitoken(), "block sizes (repeatable; default 16)")(
      "eval-from", po::value(&f.eval_from)->default_value(0), "score positions >= P only")(
      "prefill", po::value<std::uint64_t>(), "snapkv prompt length (default: eval-from, else T/2)")(
      "max-tokens", po::value(&f.max_tokens)->default_value(0),
      "replay at most N tokens (0 = all)")(
      "fidelity-every", po::value(&f.every)->default_value(0),
      "traces: compare with the full cache every k-th step (0 = auto, ~256 scored steps)")(
      "backend", po::value(&f.backend)->default_value("cpu"), "cpu|cuda")(
      "threads", po::value(&f.threads)->default_value(0),
      "traces: worker threads over the layers (0 = all cores; same results for any count)")(
      "format", po::value(&f.format)->default_value("table"), "table|json|md|csv")(
      "probe", po::value(&f.probe),
      "with --checkpoint: also run a retrieval probe through the configurations, copy|needle")(
      "probe-span", po::value(&popt.span)->default_value(16), "probe: span / needle tokens")(
      "probe-cue", po::value(&popt.cue)->default_value(4),
      "probe: the span's first tokens repeated before scoring (1 .. span-1)")(
      "probe-filler", po::value(&popt.filler)->default_value(256), "probe: filler tokens")(
      "probe-filler-kind", po::value(&f.probe_filler_kind)->default_value("story"),
      "probe: story (a fixed story in the model's tokens) | random")(
      "probe-depth", po::value(&popt.depth)->default_value(0.5),
      "needle: share of the filler before the needle, 0 .. 1")(
      "probe-prompts", po::value(&popt.prompts)->default_value(16), "probe: prompts")(
      "probe-seed", po::value(&popt.seed)->default_value(1), "probe: seed of the prompts");
}

// The backend, one source (a trace or a checkpoint), and the probe's own flags.
void check_replay_flags(ReplayFlags& f, const po::variables_map& vm) {
  if (f.backend != "cpu" && f.backend != "cuda")
    throw Error("--backend", "backend", "must be cpu or cuda, got '" + f.backend + "'");
  if (f.trace.empty() == f.checkpoint.empty())
    throw Error("command line", "trace", "give exactly one of --trace or --checkpoint");
  if (vm.count("probe")) {
    f.popt.kind = sim::parse_probe_kind(f.probe);
    f.popt.filler_kind = sim::parse_filler_kind(f.probe_filler_kind);
    if (f.checkpoint.empty())
      throw Error("--probe", "probe", "needs --checkpoint (the model in the loop), not a trace");
  }
}

// The configurations: formats × policies × block sizes, defaults filled in, repeats refused.
void fill_replay_grid(ReplayFlags& f) {
  // The model's dtype, as generate's default: a trace's q/k/v dtype, float32 for the reference
  // model (it computes in float32).
  if (f.kvs.empty())
    f.kvs = {f.trace.empty() ? "fp32"
                             : trace_kv_format(sim::TraceFile::open(f.trace).info().dtype)};
  if (f.policies.empty()) f.policies = {"full"};
  if (f.blocks.empty()) f.blocks = {16};
  ReplayGrid grid{f.kvs, f.policies, f.blocks};
  throw_if_any("command line", dedupe_replay_grid(grid));
  f.kvs = grid.formats, f.policies = grid.policies, f.blocks = grid.block_sizes;
}

// The rules generate applies to the same flags (kvplan/validate.hpp); `tokens` is known here for
// a trace, for the model's own stream replay_model checks it once the stream exists.
void check_sequence_flags(const ReplayFlags& f, const po::variables_map& vm,
                          std::optional<std::uint64_t> tokens) {
  SequenceFlags flags{.eval_from = f.eval_from, .tokens = tokens};
  flags.block_sizes.assign(f.blocks.begin(), f.blocks.end());
  if (!f.checkpoint.empty() && f.tokens_file.empty()) flags.temperature = f.temperature;
  if (vm.count("prefill")) flags.prefill = vm["prefill"].as<std::uint64_t>();
  throw_if_any("command line", validate_sequence_flags(flags));
}

sim::ReplayRequest replay_request(const ReplayFlags& f, const po::variables_map& vm) {
  sim::ReplayRequest req;
  req.trace = f.trace;
  req.checkpoint = f.checkpoint;
  for (const auto& kv : f.kvs)
    for (const auto& p : f.policies)
      for (auto b : f.blocks) req.configs.push_back({kv, p, b});
  sim::expand_configs(req);  // a bad spec fails here, before any file is read
  req.eval_from = f.eval_from;
  req.backend = f.backend == "cuda" ? kernels::Backend::cuda : kernels::Backend::cpu;
  req.max_tokens = f.max_tokens;
  req.fidelity_every = f.every;
  req.threads = f.threads;
  if (vm.count("prefill")) req.prefill = vm["prefill"].as<std::uint64_t>();
  return req;
}

// Checks the sequence flags against the tokens replayed and, for a checkpoint, sets them: the
// tokens file's, or the model's own stream.
void set_replay_tokens(const ReplayFlags& f, const po::variables_map& vm, sim::ReplayRequest& req) {
  if (!f.trace.empty()) {
    const auto t = sim::TraceFile::open(f.trace);
    const std::uint64_t tokens = t.info().tokens;
    check_sequence_flags(f, vm, f.max_tokens ? std::min(f.max_tokens, tokens) : tokens);
    return;
  }
  check_sequence_flags(f, vm, std::nullopt);
  const auto model = sim::Llama2cModel::load(f.checkpoint);
  if (!f.tokens_file.empty()) {
    req.tokens = sim::read_token_file(f.tokens_file, model.config().vocab_size);
    return;
  }
  const auto tok =
      sim::Tokenizer::load(sim::tokenizer_for(model, f.tokenizer), model.config().vocab_size);
  sim::Llama2cRunner run(model);
  sim::ReferenceAttention ref(model);
  req.tokens = sim::generate(run, ref, tok,
                             {.prompt = f.prompt,
                              .steps = f.steps,
                              .temperature = static_cast<float>(f.temperature),
                              .seed = f.seed})
                   .tokens;
}

// The same configurations, through prompts built for the probe.
sim::ProbeReport run_replay_probe(const ReplayFlags& f, const sim::ReplayRequest& req) {
  const auto model = sim::Llama2cModel::load(f.checkpoint);
  const auto tok =
      sim::Tokenizer::load(sim::tokenizer_for(model, f.tokenizer), model.config().vocab_size);
  Progress probe_progress("probe runs");
  return sim::run_probe(model, tok, sim::expand_configs(req), f.popt, req.backend,
                        [&](std::uint64_t d, std::uint64_t t) { probe_progress(d, t); });
}

int run_replay(const std::vector<std::string>& args, std::ostream& out) {
  po::options_description desc("kvplan replay options");
  ReplayFlags f;
  const std::string kv_help =
      "formats, repeatable:\n" +
      kv_format_help(
          "default: the model's dtype, the trace's q/k/v dtype or fp32 for a "
          "checkpoint: the reference model computes in float32");
  add_replay_options(desc, f, kv_help, policy_help("policies, repeatable (default full):\n"));
  po::variables_map vm;
  if (!parse_args(
          args, desc, vm, out,
          "kvplan replay (--trace T | --checkpoint C --tokenizer TOK [--tokens-file F]) "
          "--kv-dtype F... --policy P... [--block-size S...]",
          "kvplan replay --checkpoint stories260K.bin --tokenizer tok512.bin --eval-from 64 "
          "--kv-dtype fp16 kivi:bits=2,group=8,residual=32 --policy full "
          "streaming:sink=4,window=28 --format json\n"
          "kvplan replay --checkpoint stories260K.bin --tokenizer tok512.bin --probe needle "
          "--probe-span 8 --probe-cue 2 --probe-depth 0.25 --policy full "
          "streaming:sink=4,window=64"))
    return 0;
  const auto fmt = parse_output_format(
      f.format, {OutputFormat::table, OutputFormat::json, OutputFormat::md, OutputFormat::csv});
  check_replay_flags(f, vm);
  fill_replay_grid(f);
  sim::ReplayRequest req = replay_request(f, vm);
  Progress progress("tokens");
  req.progress = [&](std::uint64_t d, std::uint64_t t) { progress(d, t); };
  set_replay_tokens(f, vm, req);
  // The probe first: its prompts are checked against the model before anything runs.
  std::optional<sim::ProbeReport> pr;
  if (vm.count("probe")) pr = run_replay_probe(f, req);
  const sim::ReplayReport rep = sim::run_replay(req);
  out << for_output(pr ? sim::render(rep, *pr, fmt) : sim::render(rep, fmt), fmt);
  return rep.all_bytes_match() ? 0 : 1;
}

const Registrar reg{{"replay",
                     "replay a trace or the reference model through KV-cache configurations",
                     run_replay}};

}  // namespace
}  // namespace kvplan::cli
