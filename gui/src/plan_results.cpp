#include "plan_results.hpp"

#include <cmath>
#include <exception>

#include "kvplan/error.hpp"
#include "kvplan/request.hpp"

namespace kvplan::gui {

std::vector<std::uint64_t> chart_contexts() {
  std::vector<std::uint64_t> v;
  for (int i = 0; i <= 40; ++i) {
    // 1024 · 2^(i/4), rounded to whole tokens (a sampling grid, not a planning number).
    v.push_back(static_cast<std::uint64_t>(std::llround(1024.0 * std::exp2(i / 4.0))));
  }
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
    r.order = min_gpus(model, r.input, r.gpu, 1024, "planner");
    if (with_tables) {
      r.orders = order_table(model, r.input, list_gpu_presets(), "planner");
      r.what_if = what_if(model, r.input, r.gpu, "planner");
    }
    const auto contexts = chart_contexts();
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
