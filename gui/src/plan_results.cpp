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
    req.names = ShapeFields{};
    const ResolvedDeployment resolved = resolve(req);
    refuse_if_any(resolved, "planner settings");
    r.input = resolved.deploy.plan;
    r.capacity = plan_capacity(model, r.input, "planner");
    KvCostInput ci{.context = settings.context,
                   .batch = settings.concurrency,
                   .format = r.input.format,
                   .policy = r.input.policy,
                   .block_size = r.capacity.block_size,
                   .tp = settings.tp,
                   .draft_layers = settings.draft_layers};
    r.cost = kv_cost(model, ci, "planner");
    r.context_cap = model.max_context;
    r.max_context =
        max_context_at_concurrency(model, r.input, settings.concurrency, r.context_cap, "planner");
    // Capped only when the memory alone would hold more than the model's positions.
    r.context_capped =
        r.context_cap > 0 && max_context_at_concurrency(model, r.input, settings.concurrency, 0,
                                                        "planner") > r.context_cap;
    r.order = min_gpus(model, r.input, r.gpu, 1024, "planner");
    if (with_tables) {
      r.orders = order_table(model, r.input, list_gpu_presets(), "planner");
      r.what_if = what_if(model, r.input, r.gpu, "planner");
    }
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
