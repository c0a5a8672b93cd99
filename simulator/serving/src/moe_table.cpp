#include "moe_table.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

#include "kvplan/error.hpp"

namespace kvplan::sim::detail {

namespace {

// The words of one line, split at spaces.
std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

template <typename T>
bool parse_number(std::string_view s, T& v) {
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size();
}

std::uint32_t positive(std::string_view s, const char* what, const std::string& where) {
  std::uint32_t v = 0;
  if (!parse_number(s, v) || v == 0)
    throw Error(where, what, "expected a positive whole number, got \"" + std::string(s) + "\"");
  return v;
}

MoeCurve parse_row(std::string_view line, const std::string& where) {
  const auto w = words(line);
  if (w.size() < 10)
    throw Error(where, "row",
                "expected dtype kernel hidden inter topk experts tp ep alpha and tokens:ms pairs");
  MoeCurve c{.dtype = std::string(w[0]),
             .kernel = std::string(w[1]),
             .hidden = positive(w[2], "hidden", where),
             .inter = positive(w[3], "inter", where),
             .topk = positive(w[4], "topk", where),
             .experts = positive(w[5], "experts", where),
             .tp = positive(w[6], "tp", where),
             .ep = positive(w[7], "ep", where),
             .alpha = std::string(w[8]),
             .points = {},
             .source = where};
  for (std::size_t i = 9; i < w.size(); ++i) {
    const auto colon = w[i].find(':');
    double tokens = 0, ms = 0;
    if (colon == std::string_view::npos || !parse_number(w[i].substr(0, colon), tokens) ||
        !parse_number(w[i].substr(colon + 1), ms) || !(tokens >= 1) || !std::isfinite(tokens) ||
        !(ms > 0) || !std::isfinite(ms))
      throw Error(
          where, "point",
          "expected tokens:ms with tokens ≥ 1 and ms > 0, got \"" + std::string(w[i]) + "\"");
    if (!c.points.empty() && !(tokens > c.points.back().first))
      throw Error(where, "point",
                  "tokens must rise along the row (" + std::string(w[i]) + " follows " +
                      std::to_string(static_cast<std::uint64_t>(c.points.back().first)) + ")");
    c.points.emplace_back(tokens, ms * 1e-3);
  }
  return c;
}

// The tokens a row must reach to cost every step: vLLM's max_num_batched_tokens on large GPUs.
constexpr double kFullStepTokens = 8192;

}  // namespace

double MoeCurve::seconds(double tokens) const {
  if (!(tokens > 0) || points.empty()) return 0;
  const auto& [t0, s0] = points.front();
  if (tokens <= t0) return s0;
  const auto& [tn, sn] = points.back();
  if (tokens >= tn) return sn * tokens / tn;
  const auto hi = std::upper_bound(points.begin(), points.end(), tokens,
                                   [](double t, const auto& p) { return t < p.first; });
  const auto lo = hi - 1;
  const double f = (tokens - lo->first) / (hi->first - lo->first);
  return lo->second + f * (hi->second - lo->second);
}

std::vector<MoeCurve> parse_moe_table(std::string_view text, const std::string& source) {
  std::vector<MoeCurve> curves;
  std::size_t line_no = 0;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);  // a CRLF checkout
    ++line_no;
    if (line.empty() || line.front() == '#') continue;
    curves.push_back(parse_row(line, source + ":" + std::to_string(line_no)));
  }
  return curves;
}

std::string moe_table_dtype(const ModelSpec& model) {
  const std::string& f = model.weights.format;
  if (f.empty()) {
    const std::string& d = model.weight_dtype;
    return d == "bf16" || d == "fp16" ? "bfloat16" : "";
  }
  if (f == "fp8" || f == "fp8_block" || f == "nvfp4") return f;
  if (f == "mxfp4") return "w4a16_mxfp4";
  if (f == "int4") return "int4_wo";
  return "";
}

MoeLookup find_moe_curve(const ModelSpec& model, const GpuSpec& gpu, Engine engine,
                         std::uint32_t tp, std::uint32_t ep) {
  MoeLookup out;
  if (model.routed_experts == 0) return out;
  if (model.moe_intermediate_size == 0 || model.moe_layers == 0 || model.experts_per_token == 0) {
    out.why = "the model does not state its experts' width and MoE layers (a kvplan model file)";
    return out;
  }
  const std::string path = "perf/moe/" + gpu.id + "." + to_string(engine) + ".txt";
  const auto text = embedded_data_file(path);
  if (!text) {
    out.why = "kvplan has no measured MoE table for " + gpu.id + " under " + to_string(engine);
    return out;
  }
  const std::string dtype = moe_table_dtype(model);
  // aiconfigurator models DeepSeek-style (MLA) routing with a power law of alpha 1.01 and the
  // others with 1.2 (aic-core/src/aiconfigurator_core/sdk/models/deepseek.py:170, moe.py:128,
  // qwen35.py:238 @ 095f58a51c4ca8e61b66ec108d86f223f8d559ce); the tables keep that one.
  const std::string alpha = model.is_mla() ? "1.01" : "1.2";
  std::ostringstream shape;
  shape << dtype << " experts of " << model.hidden_size << " × " << model.moe_intermediate_size
        << ", top-" << model.experts_per_token << " of " << model.routed_experts << ", tp " << tp;
  if (ep > 1) shape << " as expert parallelism " << ep;
  // The experts' own tensor parallelism: tp / ep (ep divides tp, StepModel checks it).
  const std::uint32_t expert_tp = ep > 0 ? tp / ep : tp;
  for (auto& c : parse_moe_table(*text, "models/" + path)) {
    if (c.dtype != dtype || c.hidden != model.hidden_size ||
        c.inter != model.moe_intermediate_size || c.topk != model.experts_per_token ||
        c.experts != model.routed_experts || c.tp != expert_tp || c.ep != ep || c.alpha != alpha)
      continue;
    // A row measured from one token to a full step's budget (vLLM's 8192 batched tokens) covers
    // every step without stretching its ends; some rows cover a part of that range only
    // (aiconfigurator's B200 gpt-oss rows at tp 8: 128 to 1024 tokens).
    const double first = c.points.front().first, last = c.points.back().first;
    if (first > 1 || last < kFullStepTokens) {
      out.why = "the row for " + shape.str() + " (" + c.source + ") was measured from " +
                std::to_string(static_cast<std::uint64_t>(first)) + " to " +
                std::to_string(static_cast<std::uint64_t>(last)) + " tokens only, not from 1 to " +
                std::to_string(static_cast<std::uint64_t>(kFullStepTokens));
      return out;
    }
    out.why =
        "measured per-operation table " + c.source + " (" + c.kernel + ", " + shape.str() + ")";
    out.curve = std::move(c);
    return out;
  }
  const std::string& stored =
      model.weights.format.empty() ? model.weight_dtype : model.weights.format;
  out.why =
      (dtype.empty() ? "no table dtype for " + stored + " experts" : "no row for " + shape.str()) +
      " in models/" + path;
  return out;
}

}  // namespace kvplan::sim::detail
