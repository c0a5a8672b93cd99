#include "kvplan/gpu.hpp"

#include <algorithm>
#include <filesystem>

#include "embedded.hpp"
#include "json_read.hpp"
#include "kvplan/error.hpp"

namespace kvplan {

GpuSpec parse_gpu_json(const std::string& text, const std::string& source) {
  const auto j = detail::parse_json_text(text, source);
  detail::JsonObject o(j, source, "");
  const auto version = o.uint("kvplan_gpu", 1, 1000);
  if (version != 1)
    throw Error(source, "/kvplan_gpu", "unsupported schema version " + std::to_string(version));
  GpuSpec g;
  g.id = o.str("id");
  g.name = o.opt_str("name").value_or(g.id);
  g.source = o.str("source");
  g.memory_bytes = o.uint("memory_bytes", std::uint64_t{1} << 30, std::uint64_t{1} << 44);
  g.bandwidth_gbps = o.number("bandwidth_gbps", 1, 1e6);
  const double cuda_gib = o.opt_number("cuda_memory_gib", 1, 16384).value_or(0);
  g.price_per_hour = o.opt_number("price_per_hour", 0, 1e6).value_or(0);
  // Roofline peaks: optional; JsonObject::number refuses NaN, infinities, negative values and
  // absurd magnitudes (1e5 TFLOP/s is 10x the largest datasheet figure), naming the field.
  g.peak_tflops_bf16 = o.opt_number("peak_tflops_bf16", 0, 1e5).value_or(0);
  g.peak_tflops_fp8 = o.opt_number("peak_tflops_fp8", 0, 1e5).value_or(0);
  g.peak_tflops_fp4 = o.opt_number("peak_tflops_fp4", 0, 1e5).value_or(0);
  g.peak_tops_int8 = o.opt_number("peak_tops_int8", 0, 1e5).value_or(0);
  g.interconnect_gbps = o.opt_number("interconnect_gbps", 0, 1e5).value_or(0);
  if (auto kind = o.opt_str("interconnect")) {
    if (*kind != "nvlink" && *kind != "infinity_fabric" && *kind != "pcie")
      throw Error(source, "/interconnect",
                  "expected nvlink, infinity_fabric or pcie, got \"" + *kind + "\"");
    g.interconnect = *kind;
  }
  // NVLink 5 supports "up to 576 GPUs in a single NVLink domain" (NVIDIA Mission Control manual,
  // docs.nvidia.com/base-command-manager/product-manuals/nvidia-mission-control/nvlinkinfo).
  g.nvlink_domain_gpus =
      static_cast<std::uint32_t>(o.opt_uint("nvlink_domain_gpus", 1, 576).value_or(0));
  if (auto s = o.opt_object("sources")) {
    g.peaks_source = s->opt_str("peak_tflops").value_or("");
    g.interconnect_source = s->opt_str("interconnect").value_or("");
    g.cuda_memory_source = s->opt_str("cuda_memory").value_or("");
    g.nvlink_domain_source = s->opt_str("nvlink_domain").value_or("");
    s->finish();
  }
  if (cuda_gib > 0) {
    // Logs print two decimals: the smaller end of that rounding (x.xx5 rounds up to x.xx + 0.01).
    const double bytes = (cuda_gib - 0.005) * 1073741824.0;
    g.cuda_memory_bytes = static_cast<std::uint64_t>(bytes);
    if (g.cuda_memory_bytes > g.memory_bytes)
      throw Error(source, "/cuda_memory_gib",
                  "exceeds memory_bytes: CUDA never reports more than the driver's total");
    if (g.cuda_memory_source.empty())
      throw Error(source, "/sources/cuda_memory", "missing: where the CUDA total was seen");
  }
  const bool has_peak = g.peak_tflops_bf16 > 0 || g.peak_tflops_fp8 > 0 || g.peak_tflops_fp4 > 0 ||
                        g.peak_tops_int8 > 0;
  if (has_peak && g.peaks_source.empty())
    throw Error(source, "/sources/peak_tflops", "missing: the URL the peak figures come from");
  if (g.interconnect_gbps > 0 && g.interconnect_source.empty())
    throw Error(source, "/sources/interconnect",
                "missing: the URL the interconnect bandwidth comes from");
  if (g.nvlink_domain_gpus > 0) {
    if (g.interconnect != "nvlink")
      throw Error(source, "/nvlink_domain_gpus", "given, but \"interconnect\" is not \"nvlink\"");
    if (g.nvlink_domain_source.empty())
      throw Error(source, "/sources/nvlink_domain",
                  "missing: where the NVLink domain size comes from");
  }
  o.finish();
  return g;
}

GpuSpec load_gpu(const std::string& id_or_path) {
  const std::string rel = "gpus/" + id_or_path + ".json";
  for (const auto& f : detail::embedded_files())
    if (rel == f.path) return parse_gpu_json(f.text, "preset " + id_or_path);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(id_or_path, ec)) {
    std::string ids;
    for (const auto& g : list_gpu_presets()) ids += (ids.empty() ? "" : ", ") + g.id;
    throw Error(
        "--gpu", "gpu",
        "unknown GPU \"" + id_or_path + "\" (presets: " + ids + "; or give --gpu-memory-gib)");
  }
  return parse_gpu_json(detail::read_text_file(id_or_path, "GPU file"), id_or_path);
}

std::vector<GpuSpec> list_gpu_presets() {
  std::vector<GpuSpec> out;
  for (const auto& f : detail::embedded_files()) {
    std::string path = f.path;
    if (path.rfind("gpus/", 0) == 0) out.push_back(parse_gpu_json(f.text, path));
  }
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.id < b.id; });
  return out;
}

}  // namespace kvplan
