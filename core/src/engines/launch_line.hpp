// What the engines' launch lines share (vllm_launch.cpp, sglang.cpp): replicas and sequences per
// replica, the KV-cache dtype flag of a plan's format, a fraction as a decimal.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "kvplan/model.hpp"
#include "kvplan/planner.hpp"

namespace kvplan::engines {

// The data-parallel replicas to state ("" for one) and the requests each serves (*seqs).
std::string replicas_and_seqs(const PlanInput& in, std::uint64_t* seqs);

// The engine's --kv-cache-dtype spelling of the plan's format (fp8 e4m3 is `fp8_name`), or
// nothing, with the reason in *why, when the engine cannot serve the plan's format or policy.
std::optional<std::string> kv_cache_dtype_flag(const std::string& engine, const char* fp8_name,
                                               const PlanInput& in, std::string* why);

// Whether a launch line can ask for the plan's draft layers (PlanInput::draft_layers): there are
// none, or they are the checkpoint's own MTP layers (model.mtp_layers), which the engine loads
// by method alone. A draft model's layers (EAGLE) need that model's name, which a plan does not
// hold: false, with the reason in *why.
bool draft_layers_by_method(const std::string& engine, const ModelSpec& model, const PlanInput& in,
                            std::string* why);

// 900000 ppm -> "0.9", 1500000 -> "1.5": exact, no trailing zeros.
std::string decimal(std::uint32_t ppm);

}  // namespace kvplan::engines
