// The SLO block's one reader, shared by the deployment file ("slo": {...}, deploy.cpp) and the
// --slo flag's KEY=VALUE pairs (parse_slo_spec reads them as the same JSON object), and the rule
// that ties latency limits to a workload (a file's "workload", check's --workload).
#pragma once

#include <cstdint>
#include <string>

#include "json_read.hpp"
#include "kvplan/deploy.hpp"

namespace kvplan::detail {

// The keys of a deployment file's "slo" (docs/deploy.md): context and mean_context in tokens
// (context defaults to `default_context`), concurrency (required in a file, default 1 for --slo),
// min_kv_cache_tokens, max_cost_per_hour, and the latency limits ttft_p99_ms, tpot_p99_ms,
// e2e_p99_ms. Every problem is an Error naming slo.source() and the key's pointer.
Slo read_slo_object(JsonObject& slo, std::uint64_t default_context, bool concurrency_required);

// Latency limits are simulated under a workload, and a workload needs a limit: throws
// Error(source, field) naming the missing one (`workload_hint` says how to give a workload).
void check_slo_workload(const Slo& s, const std::string& workload, const std::string& source,
                        const std::string& workload_field, const std::string& slo_field,
                        const std::string& workload_hint);

}  // namespace kvplan::detail
