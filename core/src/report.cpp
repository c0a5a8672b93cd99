#include "kvplan/report.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "kvplan/error.hpp"

namespace kvplan {

namespace {

std::string kind_name(const LayerGroupCost& g) {
  switch (g.role) {
    case GroupRole::indexer:
      return "indexer";
    case GroupRole::state:
      return "recurrent";
    case GroupRole::attention:
      break;
  }
  return to_string(g.kind);
}

bool looks_numeric(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || c == ',' || c == '.' || c == '-' || c == '%' || c == 'x'))
      return false;
  return true;
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace

std::string describe_layers(const ModelSpec& m) {
  if (m.is_mla()) {
    std::string s = "MLA latent " + std::to_string(m.latent_width());
    if (m.index_head_dim) s += " + indexer " + std::to_string(m.index_head_dim);
    if (m.index_kpool > 1) s += " (one key per " + std::to_string(m.index_kpool) + " tokens)";
    if (m.index_tail) s += " + kpool tail";
    const std::uint32_t states = m.recurrent_layers();
    if (states > 0) {
      const std::uint32_t mla = m.cached_layers();
      s = (mla == m.layers.size() ? "" : std::to_string(mla) + " ") + s + " + " +
          std::to_string(states) + " " + to_string(m.recurrent.kind) + " state";
    }
    return s;
  }
  // Runs of (kind, window) in order of first appearance, counted.
  struct Part {
    AttentionKind kind;
    std::uint64_t window;
    std::size_t count;
  };
  std::vector<Part> parts;
  std::size_t state_only = 0, both = 0;
  for (const auto& l : m.layers) {
    if (l.recurrent && l.kind == AttentionKind::none) {
      ++state_only;
      continue;
    }
    if (l.recurrent) ++both;
    if (l.kind == AttentionKind::none) continue;
    auto it = std::find_if(parts.begin(), parts.end(),
                           [&](const Part& p) { return p.kind == l.kind && p.window == l.window; });
    if (it == parts.end())
      parts.push_back({l.kind, l.window, 1});
    else
      ++it->count;
  }
  const std::string mixer = to_string(m.recurrent.kind);
  std::string s;
  const bool one = parts.size() == 1 && parts[0].count == m.layers.size();
  for (const auto& p : parts) {
    if (!s.empty()) s += " + ";
    if (!one) s += std::to_string(p.count) + " ";
    s += to_string(p.kind);
    if (p.kind == AttentionKind::sliding || p.kind == AttentionKind::chunked)
      s += " " + grouped(p.window);
  }
  if (both > 0)
    s += (both == m.layers.size() ? " + " : " (" + std::to_string(both) + " with ") + mixer +
         (both == m.layers.size() ? " in every layer" : ")");
  if (state_only > 0)
    s += (s.empty() ? "" : " + ") + std::to_string(state_only) + " " + mixer + " state";
  return s.empty() ? "none" : s;
}

OutputFormat parse_output_format(const std::string& name,
                                 const std::vector<OutputFormat>& allowed) {
  OutputFormat f;
  if (name == "table" || name == "text")
    f = OutputFormat::table;
  else if (name == "json")
    f = OutputFormat::json;
  else if (name == "md" || name == "markdown")
    f = OutputFormat::md;
  else if (name == "csv")
    f = OutputFormat::csv;
  else if (name == "junit")
    f = OutputFormat::junit;
  else
    f = static_cast<OutputFormat>(-1);
  for (auto a : allowed)
    if (a == f) return f;
  std::string list;
  for (auto a : allowed) list += (list.empty() ? "" : ", ") + to_string(a);
  throw Error("--format", "format", "\"" + name + "\" is not one of " + list);
}

std::string to_string(OutputFormat f) {
  switch (f) {
    case OutputFormat::table:
      return "table";
    case OutputFormat::json:
      return "json";
    case OutputFormat::md:
      return "md";
    case OutputFormat::csv:
      return "csv";
    case OutputFormat::junit:
      return "junit";
  }
  return "?";
}

std::string human_bytes(std::uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  static const char* bin[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  static const char* dec[] = {"KB", "MB", "GB", "TB", "PB", "EB"};
  double b = static_cast<double>(bytes), d = b;
  int i = 0, j = 0;
  b /= 1024;
  while (b >= 1024 && i < 5) b /= 1024, ++i;
  d /= 1000;
  while (d >= 1000 && j < 5) d /= 1000, ++j;
  return fixed(b, 2) + " " + bin[i] + " (" + fixed(d, 2) + " " + dec[j] + ")";
}

std::string grouped(std::uint64_t n) {
  std::string s = std::to_string(n), out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i && (s.size() - i) % 3 == 0) out += ',';
    out += s[i];
  }
  return out;
}

std::string render_text(const Table& t) {
  std::vector<std::size_t> w(t.header.size(), 0);
  auto widen = [&](const std::vector<std::string>& r) {
    for (std::size_t i = 0; i < r.size() && i < w.size(); ++i) w[i] = std::max(w[i], r[i].size());
  };
  widen(t.header);
  for (const auto& r : t.rows) widen(r);
  auto line = [&](const std::vector<std::string>& r, bool header) {
    std::string s;
    for (std::size_t i = 0; i < w.size(); ++i) {
      const std::string cell = i < r.size() ? r[i] : "";
      const std::string pad(w[i] - cell.size(), ' ');
      const bool right = !header && i > 0 && looks_numeric(cell);
      s += (i ? "  " : "") + (right ? pad + cell : cell + (i + 1 < w.size() ? pad : ""));
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s + "\n";
  };
  std::string out = line(t.header, true);
  std::size_t total = 0;
  for (auto x : w) total += x;
  out += std::string(total + 2 * (w.empty() ? 0 : w.size() - 1), '-') + "\n";
  for (const auto& r : t.rows) out += line(r, false);
  return out;
}

std::string render_markdown(const Table& t) {
  auto esc = [](const std::string& s) {
    std::string o;
    for (char c : s) o += c == '|' ? std::string("\\|") : std::string(1, c);
    return o;
  };
  std::string out = "|";
  for (const auto& h : t.header) {
    out += ' ';
    out += esc(h);
    out += " |";
  }
  out += "\n|";
  for (std::size_t i = 0; i < t.header.size(); ++i) out += i ? " ---: |" : " --- |";
  out += "\n";
  for (const auto& r : t.rows) {
    out += "|";
    for (std::size_t i = 0; i < t.header.size(); ++i) {
      out += ' ';
      out += esc(i < r.size() ? r[i] : "");
      out += " |";
    }
    out += "\n";
  }
  return out;
}

std::string render_csv(const Table& t) {
  auto cell = [](const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string o = "\"";
    for (char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
    return o + "\"";
  };
  auto line = [&](const std::vector<std::string>& r) {
    std::string s;
    for (std::size_t i = 0; i < r.size(); ++i) {
      if (i) s += ',';
      s += cell(r[i]);
    }
    return s + "\n";
  };
  std::string out = line(t.header);
  for (const auto& r : t.rows) out += line(r);
  return out;
}

SizeReport make_size_report(const ModelSpec& model, const KvCostInput& input,
                            const std::string& source) {
  // As vLLM refuses a max_model_len beyond the model's positions, and plan and check do.
  if (model.max_context != 0 && input.context > model.max_context)
    throw Error(
        source == "arguments" ? "--context" : source, "context",
        std::to_string(input.context) + " tokens exceed the " + std::to_string(model.max_context) +
            " positions of " + model.id + " (" +
            (model.positions_basis.empty() ? "max_position_embeddings" : model.positions_basis) +
            ")");
  return SizeReport{model, input, kv_cost(model, input, source)};
}

namespace {

std::string size_json(const SizeReport& r) {
  const auto& c = r.cost;
  const auto& in = r.input;
  nlohmann::json j;
  j["model"] = r.model.id;
  j["kv_dtype"] = to_string(in.format);
  j["policy"] = to_string(in.policy);
  j["context"] = in.context;
  j["batch"] = in.batch;
  j["block_size"] = in.block_size;
  j["tp"] = in.tp;
  j["bytes_per_token"] = c.bytes_per_token;
  j["bytes_per_request"] = c.bytes_per_request;
  j["total_bytes"] = c.total_bytes;
  // The three parts of bytes_per_request (hybrid models): growing with n, capped by a window
  // or chunk, and the fixed recurrent state of the sequence.
  j["growing_bytes_per_request"] = c.growing_bytes;
  j["capped_bytes_per_request"] = c.capped_bytes;
  j["state_bytes_per_request"] = c.state_bytes_per_request;
  j["draft_layers"] = in.draft_layers;
  j["factors"] = {{"L", c.cached_layers},
                  {"n", in.context},
                  {"H_kv", c.kv_heads_per_rank},
                  {"d_k", r.model.head_dim_k},
                  {"d_v", r.model.head_dim_v},
                  {"b", c.nominal_bytes_per_element},
                  {"B", in.batch}};
  j["groups"] = nlohmann::json::array();
  for (const auto& g : c.groups) {
    nlohmann::json e = {{"kind", kind_name(g)},   {"window", g.window},
                        {"layers", g.layers},     {"retained_tokens", g.retained},
                        {"kv_heads", g.kv_heads}, {"k_width", g.k_width},
                        {"v_width", g.v_width},   {"bytes_per_layer", g.bytes_per_layer},
                        {"bytes", g.bytes}};
    if (g.role == GroupRole::state) {
      e["mixer"] = to_string(r.model.recurrent.kind);
      e["conv_bytes_per_layer"] = g.conv_bytes;
      e["ssm_bytes_per_layer"] = g.ssm_bytes;
    }
    j["groups"].push_back(std::move(e));
  }
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

// The formula's factors: L × n × H_kv × (d_k + d_v) × b × B.
Table factor_table(const SizeReport& r) {
  const auto& c = r.cost;
  const auto& in = r.input;
  Table factors{{"factor", "meaning", "value"}, {}};
  factors.rows.push_back({"L", "layers holding a KV cache", std::to_string(c.cached_layers)});
  factors.rows.push_back({"n", "tokens per sequence", grouped(in.context)});
  if (r.model.is_mla()) {
    factors.rows.push_back(
        {"latent", "MLA latent width (kv_lora_rank + rope)", std::to_string(r.model.head_dim_k)});
  } else if (c.cached_layers == 0) {  // no layer keeps K and V: no heads or widths to count
    factors.rows.push_back({"H_kv", "KV heads (per rank)", "none (no attention cache)"});
  } else {
    factors.rows.push_back({"H_kv", "KV heads (per rank)", std::to_string(c.kv_heads_per_rank)});
    factors.rows.push_back(
        {"d_k + d_v", "K and V widths per head",
         std::to_string(r.model.head_dim_k) + " + " + std::to_string(r.model.head_dim_v)});
  }
  factors.rows.push_back({"b", "bytes per element (" + to_string(in.format) + ")",
                          fixed(c.nominal_bytes_per_element, 2)});
  factors.rows.push_back({"B", "sequences in flight", grouped(in.batch)});
  return factors;
}

// One row per layer group: what it caches and how many tokens it keeps.
Table group_table(const SizeReport& r) {
  Table groups{{"layers", "cache", "kept tokens", "bytes per layer", "bytes"}, {}};
  for (const auto& g : r.cost.groups) {
    std::string kind = kind_name(g);
    if (g.kind == AttentionKind::sliding && g.role == GroupRole::attention)
      kind += " (window " + grouped(g.window) + ")";
    if (g.kind == AttentionKind::chunked) kind += " (chunk " + grouped(g.window) + ")";
    if (g.role == GroupRole::indexer)
      kind += " keys (" + std::to_string(g.k_width) + " fp8 + scale)";
    std::string kept = grouped(g.retained);
    if (g.role == GroupRole::state) {
      kind += " " + to_string(r.model.recurrent.kind) + " state (conv " + grouped(g.conv_bytes) +
              " + ssm " + grouped(g.ssm_bytes) + " B)";
      kept = "fixed";
    }
    groups.rows.push_back(
        {std::to_string(g.layers), kind, kept, grouped(g.bytes_per_layer), grouped(g.bytes)});
  }
  return groups;
}

// Per token, per request (split into its parts for hybrid models) and in all.
Table totals_table(const KvCost& c) {
  Table totals{{"quantity", "bytes", "human"}, {}};
  totals.rows.push_back({"per token (layers growing with n)", grouped(c.bytes_per_token),
                         human_bytes(c.bytes_per_token)});
  if (c.capped_bytes > 0 || c.state_bytes_per_request > 0) {
    totals.rows.push_back(
        {"per request: growing layers", grouped(c.growing_bytes), human_bytes(c.growing_bytes)});
    if (c.capped_bytes > 0)
      totals.rows.push_back({"per request: sliding / chunked layers (capped)",
                             grouped(c.capped_bytes), human_bytes(c.capped_bytes)});
    if (c.state_bytes_per_request > 0)
      totals.rows.push_back({"per request: recurrent state (fixed)",
                             grouped(c.state_bytes_per_request),
                             human_bytes(c.state_bytes_per_request)});
  }
  totals.rows.push_back(
      {"per request", grouped(c.bytes_per_request), human_bytes(c.bytes_per_request)});
  totals.rows.push_back({"total (B requests)", grouped(c.total_bytes), human_bytes(c.total_bytes)});
  return totals;
}

}  // namespace

std::string render(const SizeReport& r, OutputFormat f) {
  if (f == OutputFormat::json) return size_json(r);
  const auto& in = r.input;
  const Table factors = factor_table(r);
  const Table groups = group_table(r);
  const Table totals = totals_table(r.cost);
  if (f == OutputFormat::csv) return render_csv(totals);
  const std::string title =
      "KV cache of " + r.model.id + ": " + to_string(in.format) + ", policy " +
      to_string(in.policy) + ", n = " + grouped(in.context) + ", B = " + grouped(in.batch) +
      (in.block_size > 1 ? ", blocks of " + std::to_string(in.block_size) : "") +
      (in.tp > 1 ? ", per rank at TP " + std::to_string(in.tp) : "");
  if (f == OutputFormat::md) {
    return "### " + title + "\n\n" + render_markdown(factors) + "\n" + render_markdown(groups) +
           "\n" + render_markdown(totals);
  }
  return title + "\n\n" + render_text(factors) + "\n" + render_text(groups) + "\n" +
         render_text(totals);
}

}  // namespace kvplan

namespace kvplan {
namespace {

// A preset's figure, shortest form that reads back the same; unknown (0, NaN, inf) is "-".
bool known(double v) { return v > 0 && !std::isinf(v); }
std::string figure(double v) {
  if (!known(v)) return "-";
  char b[32];
  const auto r = std::to_chars(b, b + sizeof b, v);
  return std::string(b, r.ptr);
}
nlohmann::json json_figure(double v) { return known(v) ? nlohmann::json(v) : nlohmann::json(); }

}  // namespace

std::string render_gpu_presets(const std::vector<GpuSpec>& gpus, OutputFormat f) {
  if (f == OutputFormat::json) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& g : gpus)
      a.push_back(
          {{"id", g.id},
           {"name", g.name},
           {"memory_bytes", g.memory_bytes},
           {"bandwidth_gbps", json_figure(g.bandwidth_gbps)},
           {"peak_tflops_bf16", json_figure(g.peak_tflops_bf16)},
           {"peak_tflops_fp8", json_figure(g.peak_tflops_fp8)},
           {"peak_tflops_fp4", json_figure(g.peak_tflops_fp4)},
           {"peak_tops_int8", json_figure(g.peak_tops_int8)},
           {"interconnect",
            g.interconnect.empty() ? nlohmann::json() : nlohmann::json(g.interconnect)},
           {"interconnect_gbps", json_figure(g.interconnect_gbps)},
           {"nvlink_domain_gpus",
            g.nvlink_domain_gpus ? nlohmann::json(g.nvlink_domain_gpus) : nlohmann::json()},
           {"gpus_per_node", g.gpus_per_node ? nlohmann::json(g.gpus_per_node) : nlohmann::json()},
           {"node_dram_gib", json_figure(g.node_dram_gib)},
           {"source", g.source},
           {"peaks_source", g.peaks_source},
           {"interconnect_source", g.interconnect_source},
           {"nvlink_domain_source", g.nvlink_domain_source},
           {"gpus_per_node_source", g.gpus_per_node_source},
           {"node_dram_source", g.node_dram_source}});
    return a.dump(1) + "\n";
  }
  // Dense peaks (no 2:4 sparsity), 1e12 operations per second; the link per GPU, both directions.
  Table t{{"id", "name", "memory bytes", "memory", "bandwidth GB/s", "bf16 TFLOP/s", "fp8 TFLOP/s",
           "fp4 TFLOP/s", "int8 TOP/s", "interconnect", "interconnect GB/s", "NVLink domain",
           "GPUs per node", "node DRAM GiB"},
          {}};
  const auto count = [](std::uint32_t n) { return n ? std::to_string(n) : std::string("-"); };
  for (const auto& g : gpus)
    t.rows.push_back({g.id, g.name, grouped(g.memory_bytes), human_bytes(g.memory_bytes),
                      figure(g.bandwidth_gbps), figure(g.peak_tflops_bf16),
                      figure(g.peak_tflops_fp8), figure(g.peak_tflops_fp4),
                      figure(g.peak_tops_int8), g.interconnect.empty() ? "-" : g.interconnect,
                      figure(g.interconnect_gbps), count(g.nvlink_domain_gpus),
                      count(g.gpus_per_node), figure(g.node_dram_gib)});
  if (f == OutputFormat::md) return render_markdown(t);
  if (f == OutputFormat::csv) return render_csv(t);
  return render_text(t);
}

}  // namespace kvplan
