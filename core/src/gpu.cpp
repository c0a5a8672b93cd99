#include "kvplan/gpu.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "embedded.hpp"
#include "json_read.hpp"
#include "kvplan/checked.hpp"
#include "kvplan/error.hpp"

namespace kvplan {
namespace {
// 0.71 GiB: see set_cuda_total's estimate for a GPU without a logged CUDA total.
constexpr std::uint64_t kDriverGapBytes = std::uint64_t{71} * (std::uint64_t{1} << 30) / 100;

// The memory CUDA reports (cuda_memory_gib, GiB as logs print it), or, unseen, an estimate that
// errs low.
void set_cuda_total(GpuSpec& g, double cuda_gib, const std::string& source) {
  if (cuda_gib > 0) {
    // Logs print two decimals: the smaller end of that rounding (x.xx5 rounds up to x.xx + 0.01).
    const double bytes = (cuda_gib - 0.005) * 1073741824.0;
    g.cuda_memory_bytes = static_cast<std::uint64_t>(bytes);
    if (g.cuda_memory_bytes > g.memory_bytes)
      throw Error(source, "/cuda_memory_gib",
                  "exceeds memory_bytes: CUDA never reports more than the driver's total");
    if (g.cuda_memory_source.empty())
      throw Error(source, "/sources/cuda_memory", "missing: where the CUDA total was seen");
  } else if (g.memory_bytes > kDriverGapBytes) {
    // No CUDA total seen: the driver's figure less the largest gap between the two among the
    // presets whose CUDA total a log names (B200: 179.06 - 178.355 = 0.71 GiB, the logged 178.36
    // at the low end of its rounding; H200 0.60, A100 40GB 0.61, H100 0.47), so that the budget
    // errs low, not high (docs/gpus.md).
    g.cuda_memory_bytes = g.memory_bytes - kDriverGapBytes;
    g.cuda_memory_source =
        "estimated: the driver's total less 0.71 GiB, the largest driver-CUDA gap of the presets "
        "with a logged CUDA total (b200)";
  }
}

// Every figure that is given names where it comes from.
void check_sources(const GpuSpec& g, const std::string& source) {
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
}

}  // namespace

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
    g.gpus_per_node_source = s->opt_str("gpus_per_node").value_or("");
    g.node_dram_source = s->opt_str("node_dram").value_or("");
    s->finish();
  }
  // A node holds 1..72 GPUs (a GB200 NVL72 rack is 18 nodes of 4); its DRAM 1 GiB..64 TiB.
  g.gpus_per_node = static_cast<std::uint32_t>(o.opt_uint("gpus_per_node", 1, 72).value_or(0));
  g.node_dram_gib = o.opt_number("node_dram_gib", 1, 65536).value_or(0);
  if (g.gpus_per_node > 0 && g.gpus_per_node_source.empty())
    throw Error(source, "/sources/gpus_per_node",
                "missing: where the GPUs per node come from (a datasheet or instance page)");
  if (g.node_dram_gib > 0 && g.node_dram_source.empty())
    throw Error(source, "/sources/node_dram", "missing: where the node's DRAM figure comes from");
  if (g.node_dram_gib > 0 && g.gpus_per_node == 0)
    throw Error(source, "/node_dram_gib", "given without gpus_per_node: which node holds it?");
  set_cuda_total(g, cuda_gib, source);
  check_sources(g, source);
  o.finish();
  return g;
}

std::optional<std::string_view> embedded_data_file(std::string_view path) {
  for (const auto& f : detail::embedded_files())
    if (path == f.path) return std::string_view(f.text);
  return std::nullopt;
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

std::uint32_t max_tp_span(const GpuSpec& g) {
  return std::max(g.gpus_per_node, g.interconnect == "nvlink" ? g.nvlink_domain_gpus : 0u);
}

std::uint32_t nodes_for(const GpuSpec& g, std::uint32_t tp, std::uint64_t groups) {
  if (g.gpus_per_node == 0 || tp == 0) return 0;
  const std::uint64_t n =
      tp <= g.gpus_per_node
          ? ceil_div(groups, g.gpus_per_node / tp)                            // groups share nodes
          : mul(groups, ceil_div(tp, g.gpus_per_node), "nodes of an order");  // a group spans nodes
  if (n > 0xffffffffu) throw_overflow("nodes of an order");
  return static_cast<std::uint32_t>(n);
}

double round_cents(double usd) { return std::round(usd * 100.0) / 100.0; }

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// YYYY-MM-DD with a month 01..12 and a day 01..31.
bool iso_date(const std::string& d) {
  if (d.size() != 10 || d[4] != '-' || d[7] != '-') return false;
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (d[i] < '0' || d[i] > '9') return false;
  const int month = std::stoi(d.substr(5, 2)), day = std::stoi(d.substr(8, 2));
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

// The checks a row gets in either format; `where` names it ("line 3", "/prices/2").
void check_price_row(const GpuPrice& p, const std::string& source, const std::string& where,
                     const std::string& sep, std::set<std::string>& seen) {
  auto field = [&](const char* f) { return where + sep + f; };
  if (p.gpu.empty()) throw Error(source, field("gpu"), "empty: a GPU id (kvplan gpus)");
  if (!seen.insert(p.gpu).second)
    throw Error(source, field("gpu"), "\"" + p.gpu + "\" is priced twice");
  if (!iso_date(p.date))
    throw Error(source, field("date"),
                "expected the date the price was read as YYYY-MM-DD, got '" + p.date + "'");
  if (p.source.empty())
    throw Error(source, field("source"), "empty: where the price was read (a URL)");
}

std::vector<GpuPrice> parse_prices_json(const std::string& text, const std::string& source) {
  const auto j = detail::parse_json_text(text, source);
  detail::JsonObject o(j, source, "");
  const auto version = o.uint("kvplan_prices", 1, 1000);
  if (version != 1)
    throw Error(source, "/kvplan_prices", "unsupported schema version " + std::to_string(version));
  const auto& rows = o.raw("prices");
  if (!rows.is_array() || rows.empty())
    throw Error(source, "/prices",
                "expected a non-empty array of {gpu, usd_per_hour, date, source}");
  o.finish();
  std::vector<GpuPrice> out;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string at = "/prices/" + std::to_string(i);
    detail::JsonObject r(rows[i], source, at);
    GpuPrice p;
    p.gpu = r.str("gpu");
    p.usd_per_hour = r.number("usd_per_hour", 0.0001, 1e6);
    p.date = r.str("date");
    p.source = r.str("source");
    r.finish();
    p.field = at + "/gpu";
    check_price_row(p, source, at, "/", seen);
    out.push_back(p);
  }
  return out;
}

std::vector<GpuPrice> parse_prices_csv(const std::string& text, const std::string& source) {
  std::vector<GpuPrice> out;
  std::set<std::string> seen;
  bool header = false;
  std::size_t line_no = 0, pos = 0;
  while (pos < text.size()) {
    const auto end = std::min(text.find('\n', pos), text.size());
    const std::string line = trim(text.substr(pos, end - pos));
    pos = end + 1;
    ++line_no;
    if (line.empty() || line[0] == '#') continue;  // blank lines and comments
    const std::string at = "line " + std::to_string(line_no);
    // Four fields; the source (the last) may itself hold commas.
    std::vector<std::string> f;
    std::size_t p = 0;
    while (f.size() < 3) {
      const auto c = line.find(',', p);
      if (c == std::string::npos) break;
      f.push_back(trim(line.substr(p, c - p)));
      p = c + 1;
    }
    f.push_back(trim(line.substr(p)));
    if (!header) {
      if (f != std::vector<std::string>{"gpu", "usd_per_hour", "date", "source"})
        throw Error(source, at,
                    "expected the header gpu,usd_per_hour,date,source, got '" + line + "'");
      header = true;
      continue;
    }
    if (f.size() != 4)
      throw Error(source, at, "expected 4 fields gpu,usd_per_hour,date,source, got '" + line + "'");
    GpuPrice row{.gpu = f[0], .usd_per_hour = 0, .date = f[2], .source = f[3], .field = ""};
    char* used = nullptr;
    const double v = f[1].empty() ? -1 : std::strtod(f[1].c_str(), &used);
    if (f[1].empty() || used != f[1].c_str() + f[1].size() || !std::isfinite(v) || v <= 0 ||
        v > 1e6)
      throw Error(source, at + ", usd_per_hour",
                  "expected USD per GPU-hour, a number > 0 and at most 1e6, got '" + f[1] + "'");
    row.usd_per_hour = v;
    row.field = at + ", gpu";
    check_price_row(row, source, at, ", ", seen);
    out.push_back(row);
  }
  if (!header)
    throw Error(source, "line 1", "empty: expected the header gpu,usd_per_hour,date,source");
  if (out.empty()) throw Error(source, "gpu", "no prices: the file has a header and no rows");
  return out;
}

}  // namespace

std::vector<GpuPrice> parse_prices(const std::string& text, const std::string& source) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') return parse_prices_json(text, source);
  return parse_prices_csv(text, source);
}

std::vector<GpuPrice> load_prices(const std::string& path) {
  return parse_prices(detail::read_text_file(path, "price file"), path);
}

void apply_prices(std::vector<GpuSpec>& gpus, const std::vector<GpuPrice>& prices,
                  const std::string& source) {
  for (const auto& p : prices) {
    bool found = false;
    for (auto& g : gpus)
      if (g.id == p.gpu) {
        g.price_per_hour = p.usd_per_hour;
        g.price_date = p.date;
        g.price_source = p.source;
        found = true;
      }
    if (!found) {
      std::string ids;
      for (const auto& g : gpus) ids += (ids.empty() ? "" : ", ") + g.id;
      throw Error(source, p.field.empty() ? "gpu" : p.field,
                  "unknown GPU \"" + p.gpu + "\" (known: " + ids + ")");
    }
  }
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
