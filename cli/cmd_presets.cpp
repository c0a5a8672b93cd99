// kvplan models / kvplan gpus: list the presets compiled into the binary.
#include <ostream>

#include "command.hpp"
#include "kvplan/gpu.hpp"
#include "kvplan/model.hpp"
#include "kvplan/report.hpp"

namespace kvplan::cli {
namespace {

OutputFormat list_format(const std::vector<std::string>& args, std::ostream& out,
                         const std::string& usage, bool& help) {
  po::options_description desc("options");
  std::string format;
  desc.add_options()("format", po::value(&format)->default_value("table"), "table|md|csv");
  po::variables_map vm;
  help = !parse_args(args, desc, vm, out, usage, usage + " --format md");
  return parse_output_format(format, {OutputFormat::table, OutputFormat::md, OutputFormat::csv});
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
  const auto f = list_format(args, out, "kvplan gpus", help);
  if (help) return 0;
  Table t{{"id", "name", "memory bytes", "memory", "bandwidth GB/s"}, {}};
  for (const auto& g : list_gpu_presets()) {
    t.rows.push_back({g.id, g.name, grouped(g.memory_bytes), human_bytes(g.memory_bytes),
                      grouped(static_cast<std::uint64_t>(g.bandwidth_gbps))});
  }
  out << render_list(t, f);
  return 0;
}

const Registrar reg_models{{"models", "list the model presets", run_models}};
const Registrar reg_gpus{{"gpus", "list the GPU presets", run_gpus}};

}  // namespace
}  // namespace kvplan::cli
