// What `kvplan simulate` prints: a serving simulation's result (serving.hpp) with the
// configuration that produced it, as a table, JSON, CSV or Markdown; the KV usage series as CSV;
// the latency SLO spec; and data-parallel replicas (the arrivals dealt round-robin over N
// identical engine replicas, each simulated on its own, the results pooled).
//
//   ServingReport rep{.model = "llama-3.1-8b", .gpu = "h100-sxm-80gb", ...};
//   rep.result = simulate_replicas(model, cfg, step, workload, 2, opt);
//   rep.refused = refused_per_stage(workload, rep.result);   // {0, 1}: stage 1 lost one
//   render(rep, OutputFormat::json);   // {"summary": {"ttft_ms": {"mean": .., "p99": ..}, ..}}
//   parse_latency_slo("ttft_p99_ms=2000,tpot_p99_ms=50", "--slo").ttft_p99_ms == 2000
//
// Replicas: a request goes to replica (k mod N) where k counts the workload's first turns in
// arrival order; a later turn of a session follows its first turn (a sticky router). Every
// request-level figure (TTFT, TPOT, E2E, throughput, goodput, prefix hit rate, preemptions) is
// recomputed from the pooled requests exactly as serving.cpp computes it for one replica (the
// step timer's front-end latency added to TTFT and E2E, as simulate() adds it); queue
// and batch averages are the replicas' sums (each replica's ∫ queue dt over the longest run);
// the KV series sums the replicas' samples. ITL keeps its exact pooled mean and count, but its
// percentiles need every gap, which SimResult does not keep: with N > 1 they are NaN (JSON null).
//
// Refused requests (RequestResult::finished false: prompt + output > max_model_len, or more KV
// than the pool can ever hold) are in no latency or throughput figure; the report counts them
// per stage and for the whole run, and `check` and the SLO search fail a configuration that
// refuses any (serving_check.hpp, slo_search.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "kvplan/model.hpp"
#include "kvplan/report.hpp"
#include "kvplan/sim/disagg.hpp"
#include "kvplan/sim/serving.hpp"

namespace kvplan::sim {

struct ServingReport {
  std::string model, gpu, engine;  // ids as given (engine: "vllm", "sglang")
  std::string workload;            // the workload file
  std::uint64_t seed = 0;
  std::uint32_t replicas = 1;
  ServingConfig config;  // echoed: tp, kv_dtype, policy, max_model_len, limits, prefix caching
  SloLimits slo;
  SimResult result;
  // Refused requests per stage of result.stages (refused_per_stage); may stay empty when none
  // was refused. render() throws an internal Error when it does not add up to the unfinished
  // requests of `result`.
  std::vector<std::uint64_t> refused;
  // A disaggregated run (disagg.hpp): config is the decode side's, result the end-to-end run.
  std::optional<DisaggSummary> disagg;
  // With --measured-moe on an MoE model, how its routed experts were costed
  // (StepModel::moe_source: the table row, or "roofline: " and why); "" otherwise.
  std::string moe_step;
};

// table (the summary and each stage, one row each), json (keys below), csv and md (the table).
// JSON: model, gpu, engine, moe_step (only with --measured-moe on an MoE model), workload,
// seed, replicas, num_gpu_blocks, block_size, steps,
// simulated_s, config{tp, kv_dtype, policy, block_size, max_model_len, max_num_seqs,
// max_num_batched_tokens, gpu_memory_utilization, enable_prefix_caching, cpu_offload_bytes,
// cpu_offload_gbps}, slo{ttft_p99_ms, tpot_p99_ms, e2e_p99_ms} (null = no limit), summary and
// stages[i], each {stage, requests (finished), refused, ttft_ms, tpot_ms, itl_ms, e2e_ms ({mean,
// p50, p90, p99, count}; null but the count when the count is 0), throughput{input_tokens_per_s,
// output_tokens_per_s, requests_per_s}, preemptions, prefix_hit_rate, goodput{requests_per_s,
// fraction}, queue{mean_waiting, mean_running}}. The summary's stage is -1 (the whole run). The
// table shows "-" for a latency with no value. A disaggregated run adds disagg{prefill_replicas,
// decode_replicas, prefill_tp, decode_tp, prefill_blocks, decode_blocks, routing, link{name,
// gbps, latency_ms, per_request_ms, source}, transfers, kv_bytes, kv_gbps, admission_wait_ms,
// link_wait_ms, transfer_ms} (the table's header says the same).
std::string render(const ServingReport& r, OutputFormat f);

// Requests of `r` that did not finish (refused).
std::uint64_t refused_requests(const SimResult& r);

// Those per stage of r.stages, by the stage of each request in `w` (the workload `r` ran; ids
// are indices into w.requests, as simulate() and simulate_replicas() return them).
std::vector<std::uint64_t> refused_per_stage(const Workload& w, const SimResult& r);

// t_s,blocks_used,blocks_total,running,waiting,preemptions — one row per KV sample.
std::string render_kv_series(const SimResult& r);

// One JSON object per line per request of `r`, in id order (`kvplan simulate --requests-out`):
// id, arrival_s, queued_s, scheduled_s, first_token_s, finish_s (seconds, 6 decimals; null but
// arrival_s for a request that did not finish), input_tokens, output_tokens, cached_tokens,
// preemptions, finished, and ttft_ms and e2e_ms as the summary counts them (frontend_s, the step
// timer's front-end latency, added; null when not finished). Streams: memory does not grow with
// the requests.
void write_requests_jsonl(const SimResult& r, double frontend_s, std::ostream& os);

// "ttft_p99_ms=2000,tpot_p99_ms=50,e2e_p99_ms=20000": any of the three keys, each at most once,
// each a positive finite number of milliseconds. Throws Error naming `source` and the key.
SloLimits parse_latency_slo(const std::string& spec, const std::string& source);

// Whether some request of `w` produces more than one token: TPOT (and ITL) need two tokens.
bool has_tpot(const Workload& w);
// Why a TPOT limit cannot be judged on a workload of one-token outputs; `check` says it of its
// tpot_p99 item, `plan --slo` refuses the limit with it (naming --slo tpot_p99_ms and the file).
std::string no_tpot_reason();

// The CPU tier's host<->device bandwidth (`--cpu-offload-gbps`, ServingConfig::cpu_offload_gbps):
// a plain decimal number of GB/s in [0.001, 10^6] (1 MB/s to 1 PB/s); below, one block's load
// takes days and every latency is absurd (1e-305 gave a mean batch of 10^62). Throws Error
// naming `flag` otherwise.
inline constexpr double kMinOffloadGbps = 1e-3, kMaxOffloadGbps = 1e6;
double parse_offload_gbps(const std::string& text, const std::string& flag);

// Whether the simulator models prefix caching for this deployment: every KV-cache group full
// attention and the full policy (serving.hpp). `kvplan simulate` turns it on by default where it
// is, as vLLM V1 and SGLang do. Throws Error as make_kv_pool does (kivi, pp > 1).
bool prefix_caching_modelled(const ModelSpec& model, const PlanInput& plan);
// Why it is not, in words a note can print ("TensorRT-LLM's KV cache reuse is not modelled");
// empty where it is modelled.
std::string prefix_caching_unmodelled(const ModelSpec& model, const PlanInput& plan);
// Why a deployment's speculative decoding is simulated without drafts, in words a note can print
// (num_speculative_tokens without acceptance rates); empty when it has none or they run.
std::string speculative_decoding_unmodelled(const PlanInput& plan);

// The replicas' KV series summed sample by sample (they share the sampling grid): blocks used
// and in all, running, waiting and preemptions; a replica that finished early still counts its
// pool and its preemptions.
std::vector<KvSample> sum_kv_series(const std::vector<SimResult>& rs);

// Replica `index` of `replicas`'s share of `w` (ids renumbered, `after` remapped, stages kept).
Workload replica_share(const Workload& w, std::uint32_t replicas, std::uint32_t index);

// The replicas a deployment runs when none are asked for: 1, or every group of its servers under
// DP attention (gpus_of / (tp · pp), each group a replica), or vLLM's data-parallel replicas
// under expert parallelism (moe_groups).
std::uint32_t default_replicas(const PlanInput& in);
// The GPUs those default replicas occupy (tp · pp · default_replicas): a sweep's per-GPU divisor.
std::uint32_t default_replica_gpus(const PlanInput& in);

// Simulates each replica's share with the same configuration and pools them (see the header
// comment). replicas == 1 is simulate() itself. Throws Error on replicas == 0, and under DP
// attention (cfg.plan.attention_dp > 1) unless replicas is a whole number of servers' groups: the
// step time takes every group of a server as busy as this one.
SimResult simulate_replicas(const ModelSpec& model, const ServingConfig& cfg, const StepTimer& step,
                            const Workload& workload, std::uint32_t replicas,
                            const SimOptions& opt = {});

}  // namespace kvplan::sim
