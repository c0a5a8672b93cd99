// The probe report as a JSON value (the shape render(ProbeReport, json) documents in probe.hpp),
// for the replay report to embed. Private to kvplan_replay: no nlohmann type in a public header.
#pragma once

#include <nlohmann/json.hpp>

#include "kvplan/sim/probe.hpp"

namespace kvplan::sim {

nlohmann::json probe_to_json(const ProbeReport& r);

}  // namespace kvplan::sim
