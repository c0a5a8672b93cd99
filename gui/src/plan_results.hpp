// Everything the planner view shows, computed by core from one PlanSettings: a value snapshot that
// the view model keeps, pins for comparison and renders into the report. No Qt here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kvplan/formula.hpp"
#include "kvplan/gpu.hpp"
#include "kvplan/model.hpp"
#include "kvplan/planner.hpp"
#include "plan_settings.hpp"

namespace kvplan::gui {

// Max requests (all replicas) versus context for one KV format, under the chosen policy.
struct FormatCurve {
  std::string format;                  // spec string
  std::vector<std::uint64_t> context;  // tokens
  std::vector<std::uint64_t> max_requests;
  std::string error;  // why the format does not apply (e.g. kivi on MLA)
};

struct PlanResults {
  bool ok = false;
  std::string error;  // kvplan::Error::what() when !ok
  ModelSpec model;
  GpuSpec gpu;
  PlanSettings settings;
  PlanInput input;
  KvCost cost;                      // one TP rank, `concurrency` requests of `context` tokens
  Capacity capacity;                // at settings.context
  std::uint64_t max_context = 0;    // tokens, at settings.concurrency, capped at max_context
  std::uint64_t context_cap = 0;    // the cap passed (model max_context, 0 = none)
  bool context_capped = false;      // the memory would hold more than context_cap tokens
  OrderOption order;                // GPUs of the chosen type for the SLO
  std::vector<OrderOption> orders;  // every GPU type (order table)
  std::vector<WhatIf> what_if;      // other formats and policies
  std::vector<FormatCurve> curves;  // one per chart format
  // Core's plan report of the deployment (make_plan_report: engine launch lines, fixes), as
  // `kvplan plan` renders it; capacity, max_context, orders and what_if above are its figures.
  PlanReport report;
};

// Context lengths sampled by the chart, four points per octave from 1K tokens (from limit / 16
// when the limit is under 2K) up to `limit`, which is the last point; limit 0 (unknown): up to 1M.
// A sampling grid for the curves, not a planning number.
std::vector<std::uint64_t> chart_contexts(std::uint64_t limit = 0);

// Runs core on the settings. Never throws: a kvplan::Error (or any std::exception) becomes
// ok = false with the message.
PlanResults compute_plan(const ModelSpec& model, const PlanSettings& settings,
                         bool with_tables = true);

}  // namespace kvplan::gui
