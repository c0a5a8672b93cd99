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

int run_replay(const std::vector<std::string>& args, std::ostream& out) {
  po::options_description desc("kvplan replay options");
  std::string trace, checkpoint, tokenizer, tokens_file, prompt, backend, format;
  std::vector<std::string> kvs, policies;
  std::vector<std::uint32_t> blocks;
  std::uint32_t steps = 256;
  double temperature = 1.0;
  std::uint64_t seed = 42, eval_from = 0, max_tokens = 0, every = 0;
  std::uint32_t threads = 0;
  std::string probe, probe_filler_kind;
  sim::ProbeOptions popt;
  const std::string kv_help =
      "formats, repeatable:\n" +
      kv_format_help(
          "default: the model's dtype, the trace's q/k/v dtype or fp32 for a "
          "checkpoint: the reference model computes in float32");
  const std::string policy_text = policy_help("policies, repeatable (default full):\n");
  desc.add_options()("trace", po::value(&trace), "trace file (.safetensors)")(
      "checkpoint", po::value(&checkpoint), "llama2.c checkpoint: the model in the loop")(
      "tokenizer", po::value(&tokenizer),
      "tokenizer: llama2.c .bin or tokenizer.json (a Hugging Face directory has its own)")(
      "tokens-file", po::value(&tokens_file), "teacher-force these whitespace-separated ids")(
      "prompt", po::value(&prompt)->default_value(""),
      "without --tokens-file: prompt of the model's own stream")(
      "steps", po::value(&steps)->default_value(256), "without --tokens-file: tokens generated")(
      "temperature", po::value(&temperature)->default_value(1.0),
      "of the model's own stream (0 = greedy)")("seed", po::value(&seed)->default_value(42),
                                                "sampling seed")(
      "kv-dtype", po::value(&kvs)->multitoken(), kv_help.c_str())(
      "policy", po::value(&policies)->multitoken(), policy_text.c_str())(
      "block-size", po::value(&blocks)->multitoken(), "block sizes (repeatable; default 16)")(
      "eval-from", po::value(&eval_from)->default_value(0), "score positions >= P only")(
      "prefill", po::value<std::uint64_t>(), "snapkv prompt length (default: eval-from, else T/2)")(
      "max-tokens", po::value(&max_tokens)->default_value(0), "replay at most N tokens (0 = all)")(
      "fidelity-every", po::value(&every)->default_value(0),
      "traces: compare with the full cache every k-th step (0 = auto, ~256 scored steps)")(
      "backend", po::value(&backend)->default_value("cpu"), "cpu|cuda")(
      "threads", po::value(&threads)->default_value(0),
      "traces: worker threads over the layers (0 = all cores; same results for any count)")(
      "format", po::value(&format)->default_value("table"), "table|json|md|csv")(
      "probe", po::value(&probe),
      "with --checkpoint: also run a retrieval probe through the configurations, copy|needle")(
      "probe-span", po::value(&popt.span)->default_value(16), "probe: span / needle tokens")(
      "probe-cue", po::value(&popt.cue)->default_value(4),
      "probe: the span's first tokens repeated before scoring (1 .. span-1)")(
      "probe-filler", po::value(&popt.filler)->default_value(256), "probe: filler tokens")(
      "probe-filler-kind", po::value(&probe_filler_kind)->default_value("story"),
      "probe: story (a fixed story in the model's tokens) | random")(
      "probe-depth", po::value(&popt.depth)->default_value(0.5),
      "needle: share of the filler before the needle, 0 .. 1")(
      "probe-prompts", po::value(&popt.prompts)->default_value(16), "probe: prompts")(
      "probe-seed", po::value(&popt.seed)->default_value(1), "probe: seed of the prompts");
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
      format, {OutputFormat::table, OutputFormat::json, OutputFormat::md, OutputFormat::csv});
  if (backend != "cpu" && backend != "cuda")
    throw Error("--backend", "backend", "must be cpu or cuda, got '" + backend + "'");
  if (trace.empty() == checkpoint.empty())
    throw Error("command line", "trace", "give exactly one of --trace or --checkpoint");
  if (vm.count("probe")) {
    popt.kind = sim::parse_probe_kind(probe);
    popt.filler_kind = sim::parse_filler_kind(probe_filler_kind);
    if (checkpoint.empty())
      throw Error("--probe", "probe", "needs --checkpoint (the model in the loop), not a trace");
  }
  // The model's dtype, as generate's default: a trace's q/k/v dtype, float32 for the reference
  // model (it computes in float32).
  if (kvs.empty())
    kvs = {trace.empty() ? "fp32" : trace_kv_format(sim::TraceFile::open(trace).info().dtype)};
  if (policies.empty()) policies = {"full"};
  if (blocks.empty()) blocks = {16};
  ReplayGrid grid{kvs, policies, blocks};
  throw_if_any("command line", dedupe_replay_grid(grid));
  kvs = grid.formats, policies = grid.policies, blocks = grid.block_sizes;
  sim::ReplayRequest req;
  req.trace = trace;
  req.checkpoint = checkpoint;
  for (const auto& kv : kvs)
    for (const auto& p : policies)
      for (auto b : blocks) req.configs.push_back({kv, p, b});
  sim::expand_configs(req);  // a bad spec fails here, before any file is read
  // The rules generate applies to the same flags (kvplan/validate.hpp); `tokens` is known here
  // for a trace, for the model's own stream replay_model checks it once the stream exists.
  const auto check_flags = [&](std::optional<std::uint64_t> tokens) {
    SequenceFlags flags{.eval_from = eval_from, .tokens = tokens};
    flags.block_sizes.assign(blocks.begin(), blocks.end());
    if (!checkpoint.empty() && tokens_file.empty()) flags.temperature = temperature;
    if (vm.count("prefill")) flags.prefill = vm["prefill"].as<std::uint64_t>();
    throw_if_any("command line", validate_sequence_flags(flags));
  };
  req.eval_from = eval_from;
  req.backend = backend == "cuda" ? kernels::Backend::cuda : kernels::Backend::cpu;
  req.max_tokens = max_tokens;
  req.fidelity_every = every;
  req.threads = threads;
  if (vm.count("prefill")) req.prefill = vm["prefill"].as<std::uint64_t>();
  Progress progress("tokens");
  req.progress = [&](std::uint64_t d, std::uint64_t t) { progress(d, t); };
  if (!trace.empty()) {
    const auto t = sim::TraceFile::open(trace);
    check_flags(max_tokens ? std::min(max_tokens, t.info().tokens) : t.info().tokens);
  } else {
    check_flags(std::nullopt);
    const auto model = sim::Llama2cModel::load(checkpoint);
    if (!tokens_file.empty()) {
      req.tokens = sim::read_token_file(tokens_file, model.config().vocab_size);
    } else {
      const auto tok =
          sim::Tokenizer::load(sim::tokenizer_for(model, tokenizer), model.config().vocab_size);
      sim::Llama2cRunner run(model);
      sim::ReferenceAttention ref(model);
      req.tokens = sim::generate(run, ref, tok,
                                 {.prompt = prompt,
                                  .steps = steps,
                                  .temperature = static_cast<float>(temperature),
                                  .seed = seed})
                       .tokens;
    }
  }
  // The probe first: its prompts are checked against the model before anything runs.
  std::optional<sim::ProbeReport> pr;
  if (vm.count("probe")) {
    // The same configurations, through prompts built for the probe.
    const auto model = sim::Llama2cModel::load(checkpoint);
    const auto tok =
        sim::Tokenizer::load(sim::tokenizer_for(model, tokenizer), model.config().vocab_size);
    Progress probe_progress("probe runs");
    pr = sim::run_probe(model, tok, sim::expand_configs(req), popt, req.backend,
                        [&](std::uint64_t d, std::uint64_t t) { probe_progress(d, t); });
  }
  const sim::ReplayReport rep = sim::run_replay(req);
  out << for_output(pr ? sim::render(rep, *pr, fmt) : sim::render(rep, fmt), fmt);
  return rep.all_bytes_match() ? 0 : 1;
}

const Registrar reg{{"replay",
                     "replay a trace or the reference model through KV-cache configurations",
                     run_replay}};

}  // namespace
}  // namespace kvplan::cli
