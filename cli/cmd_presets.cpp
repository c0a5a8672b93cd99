// kvplan models / kvplan gpus: list the presets compiled into the binary.
//
//   kvplan gpus                 id, memory, HBM bandwidth, the dense tensor-core peaks per dtype
//                               and the GPU-to-GPU link (docs/gpus.md has their sources)
//   kvplan gpus --format json   the same as an array of objects, unknown figures as null:
//     [{"id": "h100-sxm-80gb", ..., "peak_tflops_bf16": 989.5, "peak_tflops_fp4": null, ...}]
#include <charconv>
#include <cmath>
#include <cstdio>
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

// A figure as the preset gives it (shortest form that reads back the same); "-" when unknown.
std::string figure(double v) {
  if (!(v > 0) || std::isinf(v)) return "-";  // NaN too: never "nan" in a table or JSON
  char b[32];
  const auto r = std::to_chars(b, b + sizeof b, v);
  return std::string(b, r.ptr);
}

std::string json_string(const std::string& s) {
  std::string o = "\"";
  for (const unsigned char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += static_cast<char>(c);
    } else if (c < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      o += b;
    } else {
      o += static_cast<char>(c);
    }
  }
  return o + "\"";
}

std::string json_figure(double v) { return v > 0 && !std::isinf(v) ? figure(v) : "null"; }

std::string gpus_json(const std::vector<GpuSpec>& gpus) {
  std::string o = "[";
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const auto& g = gpus[i];
    o += std::string(i ? ",\n " : "\n ") + "{\"id\": " + json_string(g.id) +
         ", \"name\": " + json_string(g.name) +
         ", \"memory_bytes\": " + std::to_string(g.memory_bytes) +
         ", \"bandwidth_gbps\": " + json_figure(g.bandwidth_gbps) +
         ", \"peak_tflops_bf16\": " + json_figure(g.peak_tflops_bf16) +
         ", \"peak_tflops_fp8\": " + json_figure(g.peak_tflops_fp8) +
         ", \"peak_tflops_fp4\": " + json_figure(g.peak_tflops_fp4) +
         ", \"peak_tops_int8\": " + json_figure(g.peak_tops_int8) +
         ", \"interconnect\": " + (g.interconnect.empty() ? "null" : json_string(g.interconnect)) +
         ", \"interconnect_gbps\": " + json_figure(g.interconnect_gbps) +
         ", \"source\": " + json_string(g.source) +
         ", \"peaks_source\": " + json_string(g.peaks_source) +
         ", \"interconnect_source\": " + json_string(g.interconnect_source) + "}";
  }
  return o + (gpus.empty() ? "]\n" : "\n]\n");
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
  const auto gpus = list_gpu_presets();
  if (f == OutputFormat::json) {
    out << gpus_json(gpus);
    return 0;
  }
  // Dense peaks (no 2:4 sparsity), 1e12 operations per second; the link per GPU, both directions.
  Table t{{"id", "name", "memory bytes", "memory", "bandwidth GB/s", "bf16 TFLOP/s", "fp8 TFLOP/s",
           "fp4 TFLOP/s", "int8 TOP/s", "interconnect", "interconnect GB/s"},
          {}};
  for (const auto& g : gpus) {
    t.rows.push_back({g.id, g.name, grouped(g.memory_bytes), human_bytes(g.memory_bytes),
                      figure(g.bandwidth_gbps), figure(g.peak_tflops_bf16),
                      figure(g.peak_tflops_fp8), figure(g.peak_tflops_fp4),
                      figure(g.peak_tops_int8), g.interconnect.empty() ? "-" : g.interconnect,
                      figure(g.interconnect_gbps)});
  }
  out << render_list(t, f);
  return 0;
}

const Registrar reg_models{{"models", "list the model presets", run_models}};
const Registrar reg_gpus{{"gpus", "list the GPU presets", run_gpus}};

}  // namespace
}  // namespace kvplan::cli
