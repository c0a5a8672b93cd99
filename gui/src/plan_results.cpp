#include "plan_results.hpp"

#include <algorithm>
#include <cmath>
#include <exception>

#include "kvplan/error.hpp"
#include "kvplan/request.hpp"

namespace kvplan::gui {

std::vector<std::uint64_t> chart_contexts(std::uint64_t limit) {
  const std::uint64_t end = limit ? limit : std::uint64_t{1} << 20;
  const double start = end >= 2048 ? 1024.0 : std::max(1.0, static_cast<double>(end) / 16.0);
  std::vector<std::uint64_t> v;
  for (int i = 0;; ++i) {
    // start · 2^(i/4), rounded to whole tokens, then the limit itself.
    const auto n = static_cast<std::uint64_t>(std::llround(start * std::exp2(i / 4.0)));
    if (n >= end) break;
    if (v.empty() || n > v.back()) v.push_back(n);
  }
  v.push_back(end);
  return v;
}

PlanResults compute_plan(const ModelSpec& model, const PlanSettings& settings, bool with_tables) {
  PlanResults r;
  r.model = model;
  r.settings = settings;
  try {
    r.gpu = resolve_gpu(settings);
    // The form's deployment through core's resolve(): the same shape rules and engine refusals
    // as plan, check and simulate (a context beyond the model's positions is refused here too).
    DeploymentRequest req;
    req.source = DeploymentRequest::Source::form;
    req.form = planner_deployment(model, settings, r.gpu);
    // The deployment as the form states it: without max_num_seqs the engine's default sizes the
    // sampler's warm-up, as `kvplan check` reads the same deployment file. (`kvplan plan` sizes
    // it by the --max-num-seqs its launch line sets: fewer rows, a smaller reserve.)
    req.names = ShapeFields{};
    const ResolvedDeployment resolved = resolve(req);
    refuse_if_any(resolved, "planner settings");
    r.input = resolved.deploy.plan;
    r.report = make_plan_report(model, r.gpu, r.input,
                                with_tables ? list_gpu_presets() : std::vector<GpuSpec>{},
                                with_tables, "planner");
    r.capacity = r.report.capacity;
    r.max_context = r.report.max_context;
    r.orders = r.report.order;
    r.what_if = r.report.what_if;
    r.cost = kv_cost(model,
                     plan_cost_input(model, r.input, settings.context, settings.concurrency,
                                     r.capacity.block_size),
                     "planner");
    r.context_cap = model.max_context;
    // Capped only when the memory alone would hold more than the model's positions.
    r.context_capped =
        r.context_cap > 0 && max_context_at_concurrency(model, r.input, settings.concurrency, 0,
                                                        "planner") > r.context_cap;
    r.order = min_gpus(model, r.input, r.gpu, 1024, "planner");
    const auto contexts = chart_contexts(model.max_context);
    for (const auto& f : chart_formats()) {
      FormatCurve c;
      c.format = f;
      PlanInput in = r.input;
      try {
        in.format = parse_kv_format(f, "chart", "kv_format");
        for (auto n : contexts) {
          in.context = n;
          c.max_requests.push_back(plan_capacity(model, in, "chart").max_requests);
          c.context.push_back(n);
        }
      } catch (const std::exception& e) {
        c.context.clear();
        c.max_requests.clear();
        c.error = e.what();
      }
      r.curves.push_back(std::move(c));
    }
    r.ok = true;
  } catch (const std::exception& e) {
    r.ok = false;
    r.error = e.what();
  }
  return r;
}

}  // namespace kvplan::gui
