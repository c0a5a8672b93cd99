#include "kvplan/sim/sweep.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <sstream>

#include "kvplan/engine_rules.hpp"
#include "kvplan/error.hpp"
#include "kvplan/sim/serving_report.hpp"
#include "kvplan/text_safe.hpp"
#include "report_json.hpp"

namespace kvplan::sim {
namespace {

using detail::fixed;
using detail::limit;
using detail::num;

constexpr std::uint64_t kMaxClients = 100000;
constexpr std::size_t kMaxPoints = 64;

std::uint64_t parse_clients(const std::string& item, const std::string& source,
                            const std::string& field) {
  std::uint64_t v = 0;
  const bool digits =
      !item.empty() && item.size() <= 6 &&
      std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (digits) v = std::stoull(item);
  if (!digits || v < 1 || v > kMaxClients)
    throw Error(source, field,
                "expects concurrencies between 1 and " + std::to_string(kMaxClients) + ", got '" +
                    item + "'");
  return v;
}

bool meets(const StageSummary& s, std::uint64_t refused, const SloLimits& slo) {
  const auto within = [](const Percentiles& p, double lim) {
    return lim <= 0 || (p.count > 0 && p.p99 <= lim);
  };
  return refused == 0 && within(s.ttft_ms, slo.ttft_p99_ms) && within(s.tpot_ms, slo.tpot_p99_ms) &&
         within(s.e2e_ms, slo.e2e_p99_ms);
}

void check_input(const SweepInput& in) {
  const std::string src = "sweep";
  if (in.concurrencies.empty()) throw Error(src, "concurrencies", "needs at least one");
  if (in.concurrencies.size() > kMaxPoints)
    throw Error(src, "concurrencies", "at most " + std::to_string(kMaxPoints) + " points");
  for (std::size_t k = 0; k < in.concurrencies.size(); ++k)
    if (in.concurrencies[k] < 1 || in.concurrencies[k] > kMaxClients ||
        (k > 0 && in.concurrencies[k] <= in.concurrencies[k - 1]))
      throw Error(src, "concurrencies", "must be ascending and distinct, each 1 to 100,000");
  if (in.gpus == 0) throw Error(src, "gpus", "must be at least 1");
  if (in.requests_per_client == 0 || in.requests_per_client > 10000)
    throw Error(src, "requests_per_client", "must be between 1 and 10,000");
}

// The point of largest throughput x per-user speed, unless that is the last (still scaling).
std::optional<std::size_t> find_knee(const std::vector<SweepPoint>& pts) {
  std::optional<std::size_t> best;
  double most = 0;
  for (std::size_t k = 0; k < pts.size(); ++k) {
    const double v = pts[k].tokens_per_s_per_gpu * pts[k].tokens_per_s_per_user;
    if (v > most) most = v, best = k;
  }
  if (best && *best + 1 == pts.size()) return std::nullopt;
  return best;
}

}  // namespace

std::vector<std::uint64_t> parse_concurrency_list(const std::string& text,
                                                  const std::string& source,
                                                  const std::string& field) {
  std::vector<std::uint64_t> out;
  const auto dash = text.find('-');
  if (dash != std::string::npos && text.find(',') == std::string::npos) {
    // "1-512": the powers of two from the first to the last.
    const std::uint64_t lo = parse_clients(text.substr(0, dash), source, field);
    const std::uint64_t hi = parse_clients(text.substr(dash + 1), source, field);
    if (lo > hi) throw Error(source, field, "expects FIRST-LAST with FIRST <= LAST, got " + text);
    for (std::uint64_t c = lo; c <= hi; c *= 2) out.push_back(c);
    if (out.back() != hi) out.push_back(hi);
  } else {
    for (const auto& item : split_list(text, source, field))
      out.push_back(parse_clients(item, source, field));
  }
  if (out.size() > kMaxPoints)
    throw Error(source, field, "at most " + std::to_string(kMaxPoints) + " concurrencies");
  for (std::size_t k = 1; k < out.size(); ++k)
    if (out[k] <= out[k - 1])
      throw Error(source, field, "expects ascending, distinct concurrencies, got " + text);
  return out;
}

SweepResult sweep(const ModelSpec& model, const ServingConfig& cfg, const StepTimer& step,
                  const WorkloadSpec& spec, const SweepInput& in, const SimOptions& opt) {
  check_input(in);
  SweepResult r;
  r.model = model.id;
  r.engine = engine_rules(cfg.plan).name();
  r.gpu = cfg.plan.gpu_id;
  r.gpus = in.gpus;
  r.slo = opt.slo;
  if (opt.slo.tpot_p99_ms > 0) r.slo_tokens_per_s_per_user = 1000.0 / opt.slo.tpot_p99_ms;
  for (const std::uint64_t c : in.concurrencies) {
    WorkloadSpec closed = spec;
    closed.arrival = "closed";
    closed.concurrency = c;
    closed.requests = c * in.requests_per_client;
    closed.stages.clear();
    const std::string source = "sweep at concurrency " + std::to_string(c);
    const Workload w = parse_workload_json(to_json(closed), source, in.seed);
    // Every replica the deployment runs: under DP attention each group of its server.
    const SimResult res = simulate_replicas(model, cfg, step, w, default_replicas(cfg.plan), opt);
    SweepPoint p;
    p.concurrency = c;
    p.requests = w.requests.size();
    p.refused = refused_requests(res);
    p.output_tokens_per_s = res.summary.throughput.output_tokens_per_s;
    p.tokens_per_s_per_gpu = p.output_tokens_per_s / in.gpus;
    p.ttft_ms = res.summary.ttft_ms;
    p.tpot_ms = res.summary.tpot_ms;
    if (p.tpot_ms.count > 0 && p.tpot_ms.mean > 0)
      p.tokens_per_s_per_user = 1000.0 / p.tpot_ms.mean;
    p.meets_slo = meets(res.summary, p.refused, opt.slo);
    r.points.push_back(p);
  }
  r.knee = find_knee(r.points);
  return r;
}

namespace {

nlohmann::json sweep_json(const SweepResult& r) {
  nlohmann::json pts = nlohmann::json::array();
  for (const auto& p : r.points)
    pts.push_back({{"concurrency", p.concurrency},
                   {"requests", p.requests},
                   {"refused", p.refused},
                   {"output_tokens_per_s", num(p.output_tokens_per_s)},
                   {"tokens_per_s_per_gpu", num(p.tokens_per_s_per_gpu)},
                   {"tokens_per_s_per_user",
                    p.tokens_per_s_per_user > 0 ? num(p.tokens_per_s_per_user) : nlohmann::json()},
                   {"ttft_ms", detail::to_json(p.ttft_ms)},
                   {"tpot_ms", detail::to_json(p.tpot_ms)},
                   {"meets_slo", p.meets_slo}});
  return {{"model", r.model},
          {"gpu", r.gpu},
          {"engine", r.engine},
          {"gpus", r.gpus},
          {"slo",
           {{"ttft_p99_ms", limit(r.slo.ttft_p99_ms)},
            {"tpot_p99_ms", limit(r.slo.tpot_p99_ms)},
            {"e2e_p99_ms", limit(r.slo.e2e_p99_ms)}}},
          {"slo_tokens_per_s_per_user", limit(r.slo_tokens_per_s_per_user)},
          {"knee_concurrency",
           r.knee ? nlohmann::json(r.points[*r.knee].concurrency) : nlohmann::json()},
          {"points", pts}};
}

// One row a point; with `deployment`, a first column naming the sweep.
void add_rows(Table& t, const SweepResult& r, bool deployment) {
  const auto ms = [](const Percentiles& p, double v) { return p.count ? fixed(v, 1) : "-"; };
  for (std::size_t k = 0; k < r.points.size(); ++k) {
    const SweepPoint& p = r.points[k];
    std::vector<std::string> row{
        std::to_string(p.concurrency),
        fixed(p.tokens_per_s_per_gpu, 1),
        p.tokens_per_s_per_user > 0 ? fixed(p.tokens_per_s_per_user, 1) : "-",
        ms(p.ttft_ms, p.ttft_ms.p50),
        ms(p.ttft_ms, p.ttft_ms.p99),
        ms(p.tpot_ms, p.tpot_ms.p50),
        ms(p.tpot_ms, p.tpot_ms.p99),
        std::to_string(p.refused),
        p.meets_slo ? "meets" : "misses",
        r.knee == k ? "knee" : ""};
    if (deployment) row.insert(row.begin(), sweep_label(r));
    t.rows.push_back(std::move(row));
  }
}

std::string knee_line(const SweepResult& r) {
  return r.knee ? "knee at concurrency " + std::to_string(r.points[*r.knee].concurrency) +
                      " (largest tok/s/GPU x tok/s/user)"
                : std::string("no knee: tok/s/GPU x tok/s/user still grows at the last point");
}

}  // namespace

std::string sweep_label(const SweepResult& r) {
  return std::to_string(r.gpus) + " x " + r.gpu + " (" + r.engine + ")";
}

std::string render_sweep(const SweepResult& r, OutputFormat f) { return render_sweeps({r}, f); }

std::string render_sweeps(const std::vector<SweepResult>& rs, OutputFormat f) {
  const bool several = rs.size() > 1;
  if (f == OutputFormat::json) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& r : rs) j.push_back(sweep_json(r));
    return (several ? j : j.at(0)).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
           "\n";
  }
  Table t{{"concurrency", "tok/s/GPU", "tok/s/user", "TTFT p50 ms", "TTFT p99 ms", "TPOT p50 ms",
           "TPOT p99 ms", "refused", "SLO", "note"},
          {}};
  if (several) t.header.insert(t.header.begin(), "deployment");
  for (const auto& r : rs) add_rows(t, r, several);
  if (f == OutputFormat::csv) return render_csv(t);
  if (f == OutputFormat::md) return render_markdown(t);
  std::ostringstream head;
  for (const auto& r : rs)
    head << "sweep: " << terminal_safe(r.model) << " on " << terminal_safe(sweep_label(r))
         << ", closed-loop clients; " << knee_line(r) << "\n";
  return head.str() + render_text(t);
}

namespace {

// Round numbers for an axis from 0 to at least `top`: a step of 1, 2 or 5 x 10^k, 4 to 8 ticks.
double tick_step(double top) {
  if (!(top > 0)) return 1;
  const double raw = top / 5;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * p) return m * p;
  return 10 * p;
}

std::string svg_num(double x) { return fixed(x, 1); }

}  // namespace

namespace {

// The chart's frame: pixels, the axes' ends and tick steps, value -> pixel.
struct SvgFrame {
  double W = 720, H = 440, left = 70, right = 30, top = 40, bottom = 60;
  double ex = 1, ey = 1, sx = 1, sy = 1;
  double X(double v) const { return left + (W - left - right) * v / ex; }
  double Y(double v) const { return H - bottom - (H - top - bottom) * v / ey; }
};

SvgFrame svg_frame(const std::vector<SweepResult>& rs) {
  double max_x = 0, max_y = 0;
  for (const auto& r : rs) {
    max_x = std::max(max_x, r.slo_tokens_per_s_per_user);
    for (const auto& p : r.points) {
      max_x = std::max(max_x, p.tokens_per_s_per_user);
      max_y = std::max(max_y, p.tokens_per_s_per_gpu);
    }
  }
  SvgFrame f;
  f.sx = tick_step(max_x * 1.05);
  f.sy = tick_step(max_y * 1.05);
  f.ex = std::max(f.sx, f.sx * std::ceil(max_x * 1.05 / f.sx));
  f.ey = std::max(f.sy, f.sy * std::ceil(max_y * 1.05 / f.sy));
  return f;
}

// The grid, the tick labels and the axis titles.
void svg_axes(std::ostringstream& s, const SvgFrame& f) {
  for (double v = 0; v <= f.ex + f.sx / 2; v += f.sx)
    s << "<line x1=\"" << svg_num(f.X(v)) << "\" y1=\"" << svg_num(f.Y(0)) << "\" x2=\""
      << svg_num(f.X(v)) << "\" y2=\"" << svg_num(f.Y(f.ey)) << "\" stroke=\"#e4e4e4\"/>\n"
      << "<text x=\"" << svg_num(f.X(v)) << "\" y=\"" << svg_num(f.Y(0) + 18)
      << "\" text-anchor=\"middle\">" << fixed(v, 0) << "</text>\n";
  for (double v = 0; v <= f.ey + f.sy / 2; v += f.sy)
    s << "<line x1=\"" << svg_num(f.X(0)) << "\" y1=\"" << svg_num(f.Y(v)) << "\" x2=\""
      << svg_num(f.X(f.ex)) << "\" y2=\"" << svg_num(f.Y(v)) << "\" stroke=\"#e4e4e4\"/>\n"
      << "<text x=\"" << svg_num(f.X(0) - 6) << "\" y=\"" << svg_num(f.Y(v) + 4)
      << "\" text-anchor=\"end\">" << fixed(v, 0) << "</text>\n";
  s << "<text x=\"" << svg_num((f.X(0) + f.X(f.ex)) / 2) << "\" y=\"" << f.H - 16
    << "\" text-anchor=\"middle\">output tokens/s per user</text>\n";
  s << "<text transform=\"translate(18," << svg_num((f.Y(0) + f.Y(f.ey)) / 2)
    << ") rotate(-90)\" text-anchor=\"middle\">output tokens/s per GPU</text>\n";
}

// One sweep: its line, a point a concurrency (grey where it misses the SLO) labelled with the
// clients, its knee ringed, and its legend entry (the `index`-th).
void svg_curve(std::ostringstream& s, const SvgFrame& f, const SweepResult& r, std::size_t index) {
  static const char* const colors[] = {"#2b6cb0", "#2f855a", "#9b2c2c", "#6b46c1",
                                       "#b7791f", "#2c7a7b", "#97266d", "#4a5568"};
  const char* color = colors[index % std::size(colors)];
  std::string path;
  for (const auto& p : r.points)
    if (p.tokens_per_s_per_user > 0)
      path += (path.empty() ? "" : " ") + svg_num(f.X(p.tokens_per_s_per_user)) + "," +
              svg_num(f.Y(p.tokens_per_s_per_gpu));
  s << "<polyline points=\"" << path << "\" fill=\"none\" stroke=\"" << color
    << "\" stroke-width=\"2\"/>\n";
  for (std::size_t k = 0; k < r.points.size(); ++k) {
    const SweepPoint& p = r.points[k];
    if (p.tokens_per_s_per_user <= 0) continue;
    const std::string cx = svg_num(f.X(p.tokens_per_s_per_user)),
                      cy = svg_num(f.Y(p.tokens_per_s_per_gpu));
    s << "<circle class=\"point\" cx=\"" << cx << "\" cy=\"" << cy << "\" r=\"4\" fill=\""
      << (p.meets_slo ? color : "#999999") << "\"/>\n"
      << "<text x=\"" << cx << "\" y=\"" << svg_num(f.Y(p.tokens_per_s_per_gpu) - 8)
      << "\" text-anchor=\"middle\">" << p.concurrency << "</text>\n";
    if (r.knee == k)
      s << "<circle class=\"knee\" cx=\"" << cx << "\" cy=\"" << cy
        << "\" r=\"9\" fill=\"none\" stroke=\"#d69e2e\" stroke-width=\"2\"/>\n";
  }
  const double ly = f.top + 14 + 16 * static_cast<double>(index);
  s << "<text class=\"legend\" x=\"" << svg_num(f.X(f.ex) - 8) << "\" y=\"" << svg_num(ly)
    << "\" text-anchor=\"end\" fill=\"" << color << "\">" << xml_text(sweep_label(r))
    << "</text>\n";
}

}  // namespace

std::string render_sweep_svg(const SweepResult& r) {
  return render_sweep_svg(std::vector<SweepResult>{r});
}

std::string render_sweep_svg(const std::vector<SweepResult>& rs) {
  const SvgFrame f = svg_frame(rs);
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << f.W << "\" height=\"" << f.H
    << "\" viewBox=\"0 0 " << f.W << ' ' << f.H
    << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  s << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s << "<text x=\"" << f.left << "\" y=\"24\" font-size=\"14\">"
    << xml_text(rs.empty() ? std::string() : rs.front().model + ": concurrency sweep")
    << "</text>\n";
  svg_axes(s, f);
  const double slo = rs.empty() ? 0 : rs.front().slo_tokens_per_s_per_user;
  if (slo > 0)
    s << "<line class=\"slo\" x1=\"" << svg_num(f.X(slo)) << "\" y1=\"" << svg_num(f.Y(0))
      << "\" x2=\"" << svg_num(f.X(slo)) << "\" y2=\"" << svg_num(f.Y(f.ey))
      << "\" stroke=\"#c0392b\" stroke-dasharray=\"6 4\"/>\n"
      << "<text x=\"" << svg_num(f.X(slo) + 4) << "\" y=\"" << svg_num(f.Y(f.ey) + 12)
      << "\" fill=\"#c0392b\">TPOT SLO " << fixed(rs.front().slo.tpot_p99_ms, 0) << " ms</text>\n";
  for (std::size_t i = 0; i < rs.size(); ++i) svg_curve(s, f, rs[i], i);
  s << "</svg>\n";
  return s.str();
}

}  // namespace kvplan::sim
