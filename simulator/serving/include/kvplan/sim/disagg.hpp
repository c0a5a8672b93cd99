// Disaggregated prefill/decode serving (xPyD): x prefill replicas compute prompts, y decode
// replicas generate, and each request's prompt KV crosses a link between them. Both sides run
// one engine's scheduler (serving.hpp: vLLM, SGLang or TensorRT-LLM) on one shared clock;
// docs/disagg.md says what is modelled, what each parameter means and what is not.
//
//   DisaggConfig cfg;  cfg.prefill = ...;  cfg.decode = ...;      // each side's deployment
//   cfg.prefill_replicas = 2;  cfg.link = kv_link("ndr400", gpu, "flags", "--kv-link");
//   DisaggResult r = simulate_disagg(model, cfg, prefill_timer, decode_timer, workload);
//   r.run.summary.ttft_ms.p99;   r.transfer_ms.mean;   r.kv_gbps
//
// A request's path (vLLM's P/D connectors, NixlConnector; the proxy sends the prompt to a
// prefill replica with max_tokens 1, then to a decode replica):
//   1. it arrives and is routed to a prefill replica (round robin; the least loaded: fewest
//      requests routed there and not finished; or prefix aware: the one whose prefix cache holds
//      the most of its prompt now, ties to the least loaded), which schedules its prompt as any
//      request and is done with it after the prefill step;
//   2. it is routed to a decode replica, whose queue it joins; at the head of the queue, when its
//      prompt's blocks fit, the blocks are allocated and the transfer starts (the decode side's
//      admission: a full pool holds the transfer back, and every request behind it waits);
//   3. the transfer takes latency_s + per_request_s + bytes_per_rank / gbps, after the transfers
//      queued before it on the same decode replica's link (first come, first served; every rank
//      of the decode replica pulls its share in parallel over its own path);
//   4. with its KV in place it returns to the head of the decode queue, computes its last prompt
//      token (vLLM recomputes it to sample) and emits its first token; then it decodes.
// TTFT = queue + prefill + handoff + decode-side wait + transfer + first decode step (+ the front
// end's latency, from the prefill side's step timer).
//
// SGLang's path (RemoteKv::before_prefill; sources in simulator/serving/src/engines/sglang.cpp
// and serving.cpp preallocate):
//   1. the router sends it to a prefill and a decode replica at once (round robin, least loaded
//      or, for the prefill replica, prefix aware);
//   2. the decode replica preallocates its prompt's blocks, first come first served under
//      SGLang's budget (512 decode tokens kept free a request); until then the prefill replica
//      does not see it (a full decode pool holds the prefill back);
//   3. the prefill replica schedules it as any request and samples its first token;
//   4. the KV goes on the decode replica's link as soon as the prefill is done (the blocks are
//      already held), as in step 3 above;
//   5. with its KV in place the decode replica emits the first token at its next pass and
//      decodes the second in that pass's step (no recomputed prompt token).
// TTFT = decode-side wait for blocks + prefill queue + prefill + link wait + transfer + the
// decode loop's next pass (+ the front end's latency).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kvplan/deploy.hpp"
#include "kvplan/disagg_layout.hpp"
#include "kvplan/gpu.hpp"
#include "kvplan/model.hpp"
#include "kvplan/sim/serving.hpp"
#include "kvplan/sim/step_time.hpp"
#include "kvplan/sim/workload.hpp"

namespace kvplan::sim {

// The link and routing vocabulary (KvLink, kv_link, Routing, parse_routing) is core's
// (kvplan/disagg_layout.hpp): a deployment file names them too.
using ::kvplan::kv_link;
using ::kvplan::kv_link_presets;
using ::kvplan::KvLink;
using ::kvplan::parse_routing;
using ::kvplan::Routing;
using ::kvplan::to_string;

struct DisaggConfig {
  ServingConfig prefill, decode;  // each side's replica: TP, memory, budgets, engine (vLLM)
  std::uint32_t prefill_replicas = 1, decode_replicas = 1;
  KvLink link;
  Routing routing = Routing::round_robin;
  // GPUs one NVLink domain joins (max_tp_span: an HGX node's GPUs, or a larger NVLink domain);
  // checked for an nvlink link, 0 = unknown (refused).
  std::uint32_t nvlink_domain_gpus = 0;
};

// Where a layout came from, for its errors: the source and the fields of the link and routing
// (flags: "--kv-link", a deployment file: "/disaggregated/kv_link").
struct DisaggFieldNames {
  std::string source, kv_link = "kv_link", routing = "routing";
};

// The configuration of a layout (core's DisaggLayout: a deployment file's "disaggregated", or
// flags): each side's replica as given (prefill at layout.prefill_tp, decode at decode_tp; the
// caller resolves each), the decode side without prefix caching or a CPU tier (not modelled
// there), the link by kv_link() on `gpu` with the layout's latency and overhead, the routing, and
// the NVLink domain max_tp_span(gpu). `kvplan simulate`, `check` and the GUI build it here.
DisaggConfig disagg_config(const ServingConfig& prefill, const ServingConfig& decode,
                           const GpuSpec& gpu, const DisaggLayout& layout,
                           const DisaggFieldNames& names);

// Throws Error(source, field) naming what is not modelled or does not fit: both sides one engine
// whose disaggregation is modelled (vLLM, SGLang, TensorRT-LLM), the
// same KV format, no prefix cache or CPU tier on the decode side, 1 to 1024 replicas a side, a
// link with a bandwidth, and for an nvlink link every GPU of both sides in one NVLink domain.
void check_disagg(const DisaggConfig& cfg, const std::string& source);

struct TransferRecord {
  std::uint64_t id = 0;
  std::uint32_t prefill = 0, decode = 0;  // the replicas it went through
  // Seconds: it began waiting for the decode side's blocks (vLLM: its prefill done; SGLang: its
  // arrival); prefill done (handed to the decode side); blocks allocated; the link free for it;
  // its KV in place. vLLM: requested = handoff ≤ allocated; SGLang: requested ≤ allocated ≤
  // handoff (the prefill waits for the decode side's blocks).
  double requested_s = 0, handoff_s = 0, allocated_s = 0, start_s = 0, ready_s = 0;
  std::uint64_t bytes = 0;  // over all the decode replica's ranks
};

struct DisaggResult {
  // End to end, per request: arrival and queueing on the prefill side, first token and finish
  // on the decode side; preemptions and recomputed tokens of both sides. No KV series (each
  // side's replicas have theirs).
  SimResult run;
  std::vector<SimResult> prefill, decode;  // each replica's own run
  std::vector<TransferRecord> transfers;   // in handoff order
  // Per transfer, milliseconds: waiting for the decode side's blocks (allocated − requested),
  // for the link (start − max(allocated, handoff)), and on the link (ready − start).
  Percentiles admission_wait_ms, link_wait_ms, transfer_ms;
  std::uint64_t kv_bytes = 0;  // all transfers, all ranks
  double kv_gbps = 0;          // kv_bytes over the run (first arrival to the end), GB/s
};

// The transfer queue over time: at t = k · interval_s (k = 0, 1, ... while t ≤ the run's end),
// how many transfers wait for the decode side's blocks (requested ≤ t < allocated), wait for the
// link (max(allocated, handoff) ≤ t < start) and are on it (start ≤ t < ready). The interval
// doubles until at most 2^20 samples remain.
struct TransferSample {
  double t_s = 0;
  std::uint64_t waiting_blocks = 0, waiting_link = 0, on_link = 0;
};
std::vector<TransferSample> transfer_series(const DisaggResult& r, double interval_s);

// One side's KV pools as one run, for a chart: its replicas' series summed (sum_kv_series),
// their pools (num_gpu_blocks) and preemptions added up, the longest run's end.
SimResult pooled_side(const std::vector<SimResult>& replicas);

// What a disaggregated run adds to `kvplan simulate`'s report (ServingReport::disagg).
struct DisaggSummary {
  std::uint32_t prefill_replicas = 0, decode_replicas = 0, prefill_tp = 0, decode_tp = 0;
  std::uint32_t prefill_pp = 1, decode_pp = 1;          // each side's pipeline stages
  std::uint64_t prefill_blocks = 0, decode_blocks = 0;  // one replica's pool, each side
  // The prefill side's scheduler budgets (the decode side's are the report's config).
  std::uint64_t prefill_max_num_seqs = 0, prefill_max_num_batched_tokens = 0;
  KvLink link;
  Routing routing = Routing::round_robin;
  std::uint64_t transfers = 0, kv_bytes = 0;
  double kv_gbps = 0;
  Percentiles admission_wait_ms, link_wait_ms, transfer_ms;
};
DisaggSummary summarize_disagg(const DisaggConfig& cfg, const DisaggResult& r);

// Throws Error naming the field (check_disagg, each side's ServingConfig as simulate() checks
// it). A request the decode side refuses (prompt + output over its max_model_len) is refused on
// arrival.
DisaggResult simulate_disagg(const ModelSpec& model, const DisaggConfig& cfg,
                             const StepTimer& prefill_step, const StepTimer& decode_step,
                             const Workload& workload, const SimOptions& opt = {});

}  // namespace kvplan::sim
