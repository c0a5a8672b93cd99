// kvplan models / kvplan gpus: list the presets compiled into the binary.
//
//   kvplan gpus                 id, memory, HBM bandwidth, the dense tensor-core peaks per dtype
//                               and the GPU-to-GPU link (docs/gpus.md has their sources)
//   kvplan gpus --format json   the same as an array of objects, unknown figures as null:
//     [{"id": "h100-sxm-80gb", ..., "peak_tflops_bf16": 989.5, "peak_tflops_fp4": null, ...}]
#include <ostream>

#include "command.hpp"
#include "kvplan/gpu.hpp"
#include "kvplan/model.hpp"
#include "kvplan/report.hpp"

namespace kvplan::cli {
namespace {

OutputFormat list_format(const std::vector<std::string>& args, std::ostream& out,
                         const std::string& usage, bool& help,
                         std::vector<OutputFormat> allowed = {OutputFormat::table, OutputFormat::md,
                                                              OutputFormat::csv}) {
  po::options_description desc("options");
  std::string format;
  std::string names;
  for (auto f : allowed) {
    if (!names.empty()) names += '|';
    names += to_string(f);
  }
  desc.add_options()("format", po::value(&format)->default_value("table"), names.c_str());
  po::variables_map vm;
  help = !parse_args(args, desc, vm, out, usage, usage + " --format md");
  return parse_output_format(format, allowed);
}

std::string render_list(const Table& t, OutputFormat f) {
  if (f == OutputFormat::md) return render_markdown(t);
  if (f == OutputFormat::csv) return render_csv(t);
  return render_text(t);
}

int run_models(const std::vector<std::string>& args, std::ostream& out) {
  bool help = false;
  const auto f = list_format(args, out, "kvplan models", help);
  if (help) return 0;
  Table t{{"id", "name", "layers", "q heads", "kv heads", "head dim", "attention", "max context"},
          {}};
  for (const auto& p : list_model_presets()) {
    const auto m = load_model(p.id);
    const std::string att = describe_layers(m);
    t.rows.push_back({m.id, m.name, std::to_string(m.layers.size()), std::to_string(m.num_q_heads),
                      m.is_mla() ? "-" : std::to_string(m.num_kv_heads),
                      m.is_mla() ? "-" : std::to_string(m.head_dim_k), att,
                      grouped(m.max_context)});
  }
  out << render_list(t, f);
  return 0;
}

int run_gpus(const std::vector<std::string>& args, std::ostream& out) {
  bool help = false;
  const auto f =
      list_format(args, out, "kvplan gpus", help,
                  {OutputFormat::table, OutputFormat::json, OutputFormat::md, OutputFormat::csv});
  if (help) return 0;
  out << render_gpu_presets(list_gpu_presets(), f);
  return 0;
}

const Registrar reg_models{{"models", "list the model presets", run_models}};
const Registrar reg_gpus{{"gpus", "list the GPU presets", run_gpus}};

}  // namespace
}  // namespace kvplan::cli
