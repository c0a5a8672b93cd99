// kvplan generate: the reference model (a llama2.c checkpoint or a Hugging Face model directory)
// writing text through a kvplan KV cache, so a user can watch text degrade under a KV format or
// retention policy.
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <ostream>

#include "command.hpp"
#include "kvplan/error.hpp"
#include "kvplan/kv_format.hpp"
#include "kvplan/policy.hpp"
#include "kvplan/sim/replay.hpp"
#include "kvplan/validate.hpp"

namespace kvplan::cli {
namespace {

// generate's flags, as given.
struct GenerateFlags {
  std::string checkpoint, tokenizer, prompt, kv, policy, backend;
  std::uint32_t steps = 256, block = 16;
  double temperature = 0;
  std::uint64_t seed = 42;
};

void add_generate_options(po::options_description& desc, GenerateFlags& f) {
  static const std::string kv_help =
      kv_format_help("default: the model's dtype, fp32: the reference model computes in float32");
  static const std::string policies = policy_help();
  desc.add_options()("checkpoint", po::value(&f.checkpoint)->required(),
                     "llama2.c checkpoint (.bin) or Hugging Face model directory")(
      "tokenizer", po::value(&f.tokenizer),
      "llama2.c tokenizer (.bin) or tokenizer.json (default for a directory: its tokenizer.json)")(
      "prompt", po::value(&f.prompt)->default_value(""), "prompt text (default: start from BOS)")(
      "steps", po::value(&f.steps)->default_value(256), "positions to run, prompt included")(
      "temperature", po::value(&f.temperature)->default_value(0.0), "0 = greedy")(
      "seed", po::value(&f.seed)->default_value(42), "sampling seed (temperature > 0)")(
      "kv-dtype", po::value(&f.kv)->default_value("fp32"), kv_help.c_str())(
      "policy", po::value(&f.policy)->default_value("full"), policies.c_str())(
      "prefill", po::value<std::uint64_t>(),
      "snapkv: prompt length compressed (default: the prompt)")(
      "block-size", po::value(&f.block)->default_value(16), "tokens per cache block")(
      "backend", po::value(&f.backend)->default_value("cpu"), "cpu|cuda");
}

int run_generate(const std::vector<std::string>& args, std::ostream& out) {
  po::options_description desc("kvplan generate options");
  GenerateFlags f;
  add_generate_options(desc, f);
  auto& [checkpoint, tokenizer, prompt, kv, policy, backend, steps, block, temperature, seed] = f;
  po::variables_map vm;
  if (!parse_args(args, desc, vm, out,
                  "kvplan generate --checkpoint C [--tokenizer T] [--prompt S] [--steps N] "
                  "[--kv-dtype F] [--policy P]   (C: llama2.c .bin, with --tokenizer; or a "
                  "Hugging Face model directory)",
                  "kvplan generate --checkpoint stories260K.bin --tokenizer tok512.bin "
                  "--kv-dtype kivi:bits=2,group=8,residual=32 --policy streaming:sink=4,window=28"))
    return 0;
  if (backend != "cpu" && backend != "cuda")
    throw Error("--backend", "backend", "must be cpu or cuda, got '" + backend + "'");
  const auto model = sim::Llama2cModel::load(checkpoint);
  const auto tok =
      sim::Tokenizer::load(sim::tokenizer_for(model, tokenizer), model.config().vocab_size);
  const auto cfg = sim::parse_config(kv, policy, block);
  const auto& c = model.config();
  // The rules replay applies to the same flags (kvplan/validate.hpp).
  SequenceFlags flags{.temperature = temperature,
                      .tokens = std::min<std::uint64_t>(steps, c.seq_len)};
  if (vm.count("prefill")) flags.prefill = vm["prefill"].as<std::uint64_t>();
  flags.block_sizes = {block};
  throw_if_any("command line", validate_sequence_flags(flags));
  std::uint64_t prefill = vm.count("prefill")
                              ? vm["prefill"].as<std::uint64_t>()
                              : std::max<std::size_t>(1, tok.encode(prompt, true, false).size());
  sim::KernelAttention cache(cfg, c.n_layers, c.n_heads, c.n_kv_heads, c.head_size(), model.rope(),
                             backend == "cuda" ? kernels::Backend::cuda : kernels::Backend::cpu,
                             prefill, checkpoint);
  sim::Llama2cRunner run(model);
  const bool tty = &out == &std::cout && isatty(1);
  const auto g = sim::generate(run, cache, tok,
                               {.prompt = prompt,
                                .steps = steps,
                                .temperature = static_cast<float>(temperature),
                                .seed = seed},
                               [&](const std::string& piece) {
                                 if (tty) out << piece << std::flush;
                               });
  if (!tty) out << g.text;
  out << "\n";
  std::cerr << "kvplan generate: " << g.tokens.size() << " tokens, cache " << sim::label(cfg)
            << ", " << cache.bytes_held() << " bytes held at the end\n";
  return 0;
}

const Registrar reg{{"generate",
                     "run the reference model (llama2.c or HF directory) through a kvplan KV cache",
                     run_generate}};

}  // namespace
}  // namespace kvplan::cli
