// kvplan trace capture|synth|info: write and inspect attention traces (docs/traces.md).
#include <algorithm>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "command.hpp"
#include "kvplan/error.hpp"
#include "kvplan/output_path.hpp"
#include "kvplan/report.hpp"
#include "kvplan/sim/replay.hpp"
#include "kvplan/sim/synth.hpp"
#include "kvplan/sim/trace.hpp"
#include "kvplan/text_safe.hpp"

namespace kvplan::cli {
namespace {

sim::DType parse_trace_dtype(const std::string& s) {
  if (s == "f32" || s == "F32" || s == "fp32") return sim::DType::f32;
  if (s == "f16" || s == "F16" || s == "fp16") return sim::DType::f16;
  if (s == "bf16" || s == "BF16") return sim::DType::bf16;
  throw Error("--dtype", "dtype", "must be f32, f16 or bf16, got '" + s + "'");
}

// Runs the model over the ids of a token file (at most `steps`, at most the model's positions),
// through `cap`; returns the ids run.
std::vector<std::int32_t> teacher_forced(sim::Llama2cRunner& run, sim::CapturingAttention& cap,
                                         const std::string& tokens_file, std::uint32_t steps) {
  const auto& c = run.model().config();
  std::vector<std::int32_t> tokens = sim::read_token_file(tokens_file, c.vocab_size);
  tokens.resize(std::min<std::size_t>({tokens.size(), steps, c.seq_len}));
  Progress progress("tokens");
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    run.forward(tokens[t], t, cap);
    progress(t + 1, tokens.size());
  }
  return tokens;
}

// Runs the model on its own samples after the prompt, through `cap`; returns the ids run.
std::vector<std::int32_t> sampled(sim::Llama2cRunner& run, sim::CapturingAttention& cap,
                                  const std::string& tokenizer, const sim::GenerateOptions& o) {
  const auto& model = run.model();
  const auto tok =
      sim::Tokenizer::load(sim::tokenizer_for(model, tokenizer), model.config().vocab_size);
  Progress progress("tokens");
  std::uint64_t pieces = 0;
  return sim::generate(run, cap, tok, o, [&](const std::string&) { progress(++pieces, o.steps); })
      .tokens;
}

int run_capture(const std::vector<std::string>& args, std::ostream& out) {
  po::options_description desc("kvplan trace capture options");
  std::string checkpoint, tokenizer, prompt, tokens_file, output, dtype;
  std::uint32_t steps = 256;
  float temperature = 0;
  std::uint64_t seed = 42;
  desc.add_options()("checkpoint", po::value(&checkpoint)->required(),
                     "llama2.c checkpoint (.bin) or Hugging Face model directory")(
      "tokenizer", po::value(&tokenizer),
      "llama2.c tokenizer (.bin) or tokenizer.json (default for a directory: its tokenizer.json)")(
      "output,o", po::value(&output)->required(), "trace file to write (.safetensors)")(
      "prompt", po::value(&prompt)->default_value(""), "prompt, then the model's own tokens")(
      "tokens-file", po::value(&tokens_file), "teacher-force these whitespace-separated ids")(
      "steps", po::value(&steps)->default_value(256), "tokens to capture")(
      "temperature", po::value(&temperature)->default_value(0.0f), "0 = greedy")(
      "seed", po::value(&seed)->default_value(42), "sampling seed")(
      "dtype", po::value(&dtype)->default_value("f16"), "f32|f16|bf16");
  po::variables_map vm;
  if (!parse_args(args, desc, vm, out,
                  "kvplan trace capture --checkpoint C [--tokenizer T] -o trace.safetensors "
                  "[--prompt S | --tokens-file F] [--steps N]   (C: llama2.c .bin, with "
                  "--tokenizer; or a Hugging Face model directory)",
                  "kvplan trace capture --checkpoint stories260K.bin --tokenizer tok512.bin "
                  "--steps 256 -o story.safetensors"))
    return 0;
  const auto dt = parse_trace_dtype(dtype);
  // Before any work: the trace must not land on the checkpoint, the tokenizer or a directory
  // checkpoint's files (config.json, model.safetensors, tokenizer.json).
  if (check_output_path(output, {checkpoint, tokenizer, tokens_file}, "--output"))
    throw Error("--output", "output", "a trace is a file: give a path, not - (standard output)");
  const auto model = sim::Llama2cModel::load(checkpoint);
  const auto& c = model.config();
  sim::TraceInfo info{.model = model.spec().id,
                      .version = "1",
                      .layers = c.n_layers,
                      .q_heads = c.n_heads,
                      .kv_heads = c.n_kv_heads,
                      .head_dim = c.head_size(),
                      .tokens = 0,
                      .dtype = dt,
                      .rope = model.rope(),
                      .metadata = {{"source", "kvplan trace capture"}, {"checkpoint", checkpoint}}};
  sim::TraceBuilder builder(info);
  sim::Llama2cRunner run(model);
  sim::ReferenceAttention ref(model);
  sim::CapturingAttention cap(ref, builder);
  const std::vector<std::int32_t> tokens =
      vm.count("tokens-file")
          ? teacher_forced(run, cap, tokens_file, steps)
          : sampled(run, cap, tokenizer,
                    {.prompt = prompt, .steps = steps, .temperature = temperature, .seed = seed});
  const std::uint64_t rows = builder.rows(0);
  for (std::uint64_t i = 0; i < rows; ++i) builder.append_token(tokens[i]);
  builder.write(output, dt);
  out << "wrote " << output << ": " << rows << " tokens, " << c.n_layers << " layers, " << c.n_heads
      << "/" << c.n_kv_heads << " heads, head_dim " << c.head_size() << ", " << sim::to_string(dt)
      << "\n";
  return 0;
}

int run_synth(const std::vector<std::string>& args, std::ostream& out) {
  po::options_description desc("kvplan trace synth options");
  sim::SynthOptions o;
  std::string output, dtype, style;
  std::uint32_t rope_dims = 0;
  double theta = 10000;
  desc.add_options()("output,o", po::value(&output)->required(),
                     "trace file to write (.safetensors)")(
      "tokens", po::value(&o.tokens)->default_value(4096), "T, up to 131072")(
      "layers", po::value(&o.layers)->default_value(2), "layers")(
      "q-heads", po::value(&o.q_heads)->default_value(8), "query heads")(
      "kv-heads", po::value(&o.kv_heads)->default_value(2), "KV heads")(
      "head-dim", po::value(&o.head_dim)->default_value(64), "head dim")(
      "seed", po::value(&o.seed)->default_value(1), "seed (same seed, same file)")(
      "sinks", po::value(&o.sinks)->default_value(4), "attention-sink tokens at the start")(
      "sink-strength", po::value(&o.sink_strength)->default_value(4.0), "sink key strength")(
      "heavy-fraction", po::value(&o.heavy_fraction)->default_value(0.02),
      "share of heavy hitters")("heavy-strength", po::value(&o.heavy_strength)->default_value(2.5),
                                "heavy-hitter strength")(
      "outlier-channels", po::value(&o.outlier_channels)->default_value(4), "key outlier channels")(
      "outlier-scale", po::value(&o.outlier_scale)->default_value(8.0), "outlier channel scale")(
      "rope-theta", po::value(&theta)->default_value(10000.0), "RoPE theta")(
      "rope-dims", po::value(&rope_dims)->default_value(0), "rotated dims (0 = head dim)")(
      "rope-style", po::value(&style)->default_value("half"), "half|interleaved")(
      "dtype", po::value(&dtype)->default_value("f16"), "f32|f16|bf16");
  po::variables_map vm;
  if (!parse_args(args, desc, vm, out, "kvplan trace synth -o trace.safetensors [--tokens N] [...]",
                  "kvplan trace synth --tokens 32768 --seed 7 -o synth32k.safetensors"))
    return 0;
  o.dtype = parse_trace_dtype(dtype);
  if (check_output_path(output, {}, "--output"))
    throw Error("--output", "output", "a trace is a file: give a path, not - (standard output)");
  if (style != "half" && style != "interleaved")
    throw Error("--rope-style", "rope-style", "must be half or interleaved, got '" + style + "'");
  o.rope = {theta, rope_dims, style == "half" ? sim::RopeStyle::half : sim::RopeStyle::interleaved};
  sim::write_synthetic_trace(output, o);
  out << "wrote " << output << ": synthetic, " << o.tokens << " tokens, " << o.layers
      << " layers, seed " << o.seed << "\n";
  return 0;
}

int run_info(const std::vector<std::string>& args, std::ostream& out) {
  po::options_description desc("kvplan trace info options");
  std::string path, format;
  desc.add_options()("trace", po::value(&path)->required(), "trace file (.safetensors)")(
      "format", po::value(&format)->default_value("table"), "table|json|md|csv");
  po::positional_options_description pos;
  pos.add("trace", 1);
  po::variables_map vm;
  if (!parse_args(args, desc, vm, out, "kvplan trace info TRACE [--format F]",
                  "kvplan trace info story.safetensors", &pos))
    return 0;
  const auto fmt = parse_output_format(
      format, {OutputFormat::table, OutputFormat::json, OutputFormat::md, OutputFormat::csv});
  const auto t = sim::TraceFile::open(path);
  const auto& i = t.info();
  Table tab{{"field", "value"}, {}};
  auto row = [&](const std::string& k, const std::string& v) { tab.rows.push_back({k, v}); };
  row("file", path);
  row("model", i.model);
  row("version", i.version);
  row("tokens", std::to_string(i.tokens));
  row("layers", std::to_string(i.layers));
  row("q_heads", std::to_string(i.q_heads));
  row("kv_heads", std::to_string(i.kv_heads));
  row("head_dim", std::to_string(i.head_dim));
  row("dtype", std::string(sim::to_string(i.dtype)));
  std::ostringstream th;
  th << i.rope.theta;
  row("rope_theta", th.str());
  row("rope_dims", std::to_string(i.rope.dims));
  row("rope_style", i.rope.style == sim::RopeStyle::half ? "half" : "interleaved");
  row("has_tokens", t.tokens().empty() ? "false" : "true");
  row("file_bytes", std::to_string(t.file_bytes()));
  const auto fp16 = kv_cost(sim::spec_from_trace(i, path),
                            {.context = i.tokens, .format = KvFormat{.dtype = KvDtype::fp16}});
  row("fp16_kv_bytes", std::to_string(fp16.bytes_per_request));
  switch (fmt) {
    case OutputFormat::json: {
      out << "{";
      for (std::size_t r = 0; r < tab.rows.size(); ++r) {
        const auto& k = tab.rows[r][0];
        const auto& v = tab.rows[r][1];
        const bool num = k == "tokens" || k == "layers" || k == "q_heads" || k == "kv_heads" ||
                         k == "head_dim" || k == "rope_dims" || k == "file_bytes" ||
                         k == "fp16_kv_bytes" || k == "rope_theta" || k == "has_tokens";
        out << (r ? ", " : "") << json_quote(k) << ": " << (num ? v : json_quote(v));
      }
      out << "}\n";
      break;
    }
    case OutputFormat::md:
      out << for_output(render_markdown(tab), fmt);
      break;
    case OutputFormat::csv:
      out << for_output(render_csv(tab), fmt);
      break;
    default:
      out << for_output(render_text(tab), fmt);
      break;
  }
  return 0;
}

int run_trace(const std::vector<std::string>& args, std::ostream& out) {
  const std::string usage =
      "usage: kvplan trace <capture|synth|info> [options]   (kvplan trace <sub> --help)\n"
      "  capture  run the reference model (llama2.c or HF directory), write its q/k/v trace\n"
      "  synth    write a seeded synthetic trace (sinks, heavy hitters, key outliers)\n"
      "  info     validate a trace file and print its shape and metadata\n"
      "\nexample:\n  kvplan trace synth --tokens 4096 -o synth.safetensors && kvplan trace info "
      "synth.safetensors\n";
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    out << usage;
    if (args.empty())
      throw Error("command line", "trace", "missing subcommand (capture, synth or info)");
    return 0;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "capture") return run_capture(rest, out);
  if (args[0] == "synth") return run_synth(rest, out);
  if (args[0] == "info") return run_info(rest, out);
  throw Error("command line", "trace",
              "unknown subcommand '" + args[0] + "' (capture, synth, info)");
}

const Registrar reg{{"trace",
                     "capture, synthesize or inspect attention traces",
                     run_trace,
                     {"capture", "synth", "info"}}};

}  // namespace
}  // namespace kvplan::cli
