// The request-level serving simulator: a workload (workload.hpp) through one engine replica's
// scheduler — vLLM V1 semantics first (continuous batching, chunked prefill within
// max_num_batched_tokens, max_num_seqs, block allocation from the planner's own page and block
// arithmetic, preemption by recompute, prefix caching by block hashes with LRU eviction, an
// optional CPU offload tier), SGLang's (radix cache, page size 1) as a second mode — with each
// step timed by the roofline (step_time.hpp). Deterministic: the same inputs give the same
// result. docs/simulate.md describes the semantics and their sources.
//
//   ServingConfig cfg;   cfg.plan = ...;   // model, GPU memory, TP, KV format, max_model_len
//   SimResult r = simulate(model, cfg, StepModel(model, gpu, {}), load_workload(path, 1));
//   r.summary.ttft_ms.p99;   r.summary.preemptions;   r.kv_series[i].blocks_used
//
// What is modelled (vllm/v1/core/sched/scheduler.py@b4622cf9, kv_cache_manager.py@ace980e6,
// single_type_kv_cache_manager.py@002f3491, block_pool.py; SGLang's schedule_policy.py@00550cd1):
// - A step: the running requests in order (a decode takes 1 token, a running prefill its next
//   chunk), then waiting requests FCFS while the token budget (max_num_batched_tokens) and
//   max_num_seqs allow; a prompt longer than the budget left is split (chunked prefill). No new
//   request joins in a step that preempted.
// - Blocks are allocated per step for the tokens scheduled, in every KV-cache group, with
//   kvplan::KvPool's arithmetic (kv_pool.hpp): sliding windows and chunks free blocks as they
//   move, retention policies cap a sequence at retained(policy, n) tokens, recurrent state takes
//   fixed pages (vLLM; SGLang keeps it in its Mamba pool, whose slots // 3 cap the running
//   requests, kv_pool.hpp max_running). vLLM's null block is not usable.
// - A running request that cannot get its blocks preempts the running list's tail (itself last):
//   its blocks are freed, it goes to the front of the waiting queue and later recomputes its
//   prompt and the tokens it generated (RequestResult::recomputed_tokens).
// - Prefix caching (full-attention groups, full policy): a hash chain over the prompt's full
//   blocks (segment contents and offsets); a freed hashed block stays cached in vLLM's free-queue
//   order and is evicted when it reaches the head; a waiting request reuses its longest cached
//   prefix of full blocks within num_tokens − 1 tokens. Generated tokens are not hashed, so a
//   later turn reuses its predecessor's prompt, not its answer. The CPU tier keeps evicted
//   blocks (LRU, cpu_offload_bytes) and a hit there adds bytes / cpu_offload_gbps to the step.
// - The configuration is refused when one request of max_model_len cannot fit the pool, under
//   an evicting policy in its worst shape (SnapKV: a 1-token prompt keeps all n tokens).
// - Requests with prompt + output > max_model_len are refused (finished = false). A later turn
//   (`after`) arrives think_s after its predecessor finishes (or is refused).
// - Times: a step lasts step.seconds(batch) (+ CPU loads); a token is emitted at the step's end.
//   With async scheduling (ServingConfig::async_scheduling: vLLM's, SGLang's overlap scheduler)
//   an arrival waits for the step after the one being run. The front end's latency
//   (StepTimer::frontend_s) adds to TTFT and E2E. TTFT = first token − arrival, TPOT = (finish −
//   first token) / (output − 1), ITL = every gap between a request's tokens, E2E = finish −
//   arrival; percentiles interpolate linearly. A stage's throughput counts its finished requests
//   over [stage start, its last finish]; its mean_queue / mean_running average the steps beginning
//   in its window; the whole run's over [first arrival, simulated_s], so Little's law holds for the
//   summary (a trace's stage starts at its first arrival too). Goodput counts requests whose own
//   TTFT, TPOT and E2E meet the SLO limits. KV samples take the batch of the first step starting
//   at or after each sample time.
// - SGLang (plan.engine sglang): page size 1 (token-granular radix matching, within
//   input_len − 1 tokens), prefill and decode in separate steps, new requests admitted by
//   PrefillAdder's token budget with new_token_ratio (serving.cpp); a prefill step never
//   retracts (a chunk is cut to the free tokens), only a decode step does. Pipeline stages run
//   event_loop_pp's micro-batches, each with its own running batch (serving.cpp turn_slots).
//   --scheduler-recv-interval (plan.sglang().scheduler_recv_interval) holds arrivals back as
//   SchedulerRecvSkipper does (serving.cpp receives; docs/simulate.md). Not modelled: SGLang's
//   retraction order, its LPM / DFS-weight policies, max_prefill_tokens, mixed chunks,
//   --pp-max-micro-batch-size and --pp-async-batch-depth (their defaults are).
// - TensorRT-LLM (plan.engine trtllm; docs/trtllm-scheduler.md has every rule and its source):
//   in-flight batching over one KV pool of tokens_per_block blocks. The active list holds at most
//   max_batch_size requests (max_num_seqs), fetched FCFS; each step the capacity scheduler picks
//   who may run (GUARANTEED_NO_EVICT: a request starts only when the blocks of its prompt plus
//   its outputs fit beside what the started ones still need, never preempts; MAX_UTILIZATION:
//   a request starts when its next step's blocks fit, and the last started request in the list
//   is paused, its blocks freed and its prompt and outputs recomputed later, when they do not),
//   then the micro-batch scheduler fills the step in that order up to max_batch_size requests and
//   max_num_tokens tokens (max_num_batched_tokens), a context whole, or cut first-come-first-
//   served into multiples of tokens_per_block when chunked context is on. A context takes its
//   whole prompt's blocks at its first chunk. Without chunked context a prompt longer than
//   max_num_tokens is refused on arrival. Not modelled: KV cache reuse (refused), the overlap
//   scheduler, EQUAL_PROGRESS chunking, sliding windows / several window pools, beams, drafts.
// - Speculative decoding (vLLM, PlanInput's vllm().spec_acceptance): a decode verifies its drafts,
//   the pool holds the lookahead, the accepted drafts are emitted and the rejected ones no
//   longer computed, as scheduler.py counts them (docs/simulate.md "Speculative decoding"); the
//   drafter's passes are timed by StepModel::draft_seconds. Not modelled: tree drafts, a
//   separate draft model's own pool, drafts cut short near max_tokens.
// - Not modelled for vLLM: long_prefill_token_threshold, priorities,
//   prefix caching for sliding / recurrent groups (refused), async scheduling and speculative
//   decoding beside pipeline stages (pp micro-batches in flight, vLLM's batch queue: serving.cpp
//   turn_queued), KIVI formats (no paged pool; refused).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kvplan/model.hpp"
#include "kvplan/planner.hpp"
#include "kvplan/sim/step_time.hpp"
#include "kvplan/sim/workload.hpp"

namespace kvplan::sim {

// TensorRT-LLM's capacity scheduler policies (executor::CapacitySchedulerPolicy): the two that
// trtllm-serve's in-flight batching uses; STATIC_BATCH and PREFILL_FIRST are not modelled.
enum class CapacityPolicy { guaranteed_no_evict, max_utilization };
// "guaranteed_no_evict" | "max_utilization" (TensorRT-LLM's upper-case spellings too); throws
// Error(source, field) naming the choices otherwise.
CapacityPolicy parse_capacity_policy(const std::string& text, const std::string& source,
                                     const std::string& field = "capacity_scheduler_policy");
std::string to_string(CapacityPolicy p);  // "GUARANTEED_NO_EVICT" | "MAX_UTILIZATION"

struct ServingConfig {
  // The deployment as the planner sees it: engine, KV format, retention policy, block size, TP,
  // PP (vLLM and SGLang), GPU memory and fraction, weights, context = max_model_len. The pool is
  // the planner's (plan_capacity(model, plan).num_gpu_blocks for one replica).
  PlanInput plan;
  // vllm serve's own default is 1024 on GPUs of >= 70 GiB other than A100 (docs/simulate.md).
  // 0: the engine's own from its pool (SGLang without --max-running-requests: min(pool tokens //
  // 2, its request table's rows), KvPool::max_running); refused for the other engines.
  std::uint64_t max_num_seqs = 256;
  std::uint64_t max_num_batched_tokens = 8192;  // per step, chunked prefill
  bool enable_prefix_caching = false;
  std::uint64_t cpu_offload_bytes = 0;  // 0 = no CPU tier
  double cpu_offload_gbps = 0;          // GB/s host<->device when offloading
  double sample_interval_s = 1.0;       // KV usage series resolution (doubles past 2^20 samples)
  // vLLM's async scheduling (on by default since v0.14: vllm-project/vllm#27614, in the plan of
  // #27679): the batch of step k + 1 is formed when step k starts, so a request that arrives
  // while step k runs joins step k + 2 at the earliest. An idle engine schedules an arrival at
  // once. Off: the batch of step k + 1 takes every arrival up to the end of step k. vLLM only.
  bool async_scheduling = true;
  // TensorRT-LLM only (plan.engine trtllm): max_num_seqs is its max_batch_size and
  // max_num_batched_tokens its max_num_tokens. SchedulerConfig.capacity_scheduler_policy and
  // enable_chunked_prefill (tensorrt_llm/llmapi/llm_args.py; defaults GUARANTEED_NO_EVICT, off).
  CapacityPolicy capacity_policy = CapacityPolicy::guaranteed_no_evict;
  bool enable_chunked_context = false;
  // Speculative decoding (vLLM) is the plan's: plan.vllm().num_speculative_tokens = k > 0 and
  // plan.vllm().spec_acceptance (k rates) simulate the drafts: a decoding request verifies
  // 1 + k tokens a step (the drafts count against max_num_batched_tokens), its blocks cover k
  // lookahead tokens more, and it emits 1 + the drafts accepted; the drafter runs k passes of
  // plan.draft_layers layers (at least 1) a step. Acceptance is deterministic: each request
  // accrues the rates of the drafts it verified and takes the whole drafts accrued. Without
  // rates the drafts are not simulated (one token a step), whatever k is.
};

struct Percentiles {
  double mean = 0, p50 = 0, p90 = 0, p99 = 0;  // milliseconds (or the metric's unit)
  std::uint64_t count = 0;
};

struct Throughput {
  double input_tokens_per_s = 0, output_tokens_per_s = 0, requests_per_s = 0;
};

struct StageSummary {
  std::uint32_t stage = 0;     // workload stage index; the overall summary uses the whole run
  std::uint64_t requests = 0;  // finished requests that arrived in the stage
  Percentiles ttft_ms, tpot_ms, itl_ms, e2e_ms;
  Throughput throughput;
  std::uint64_t preemptions = 0;
  double prefix_hit_rate = 0;         // prompt tokens served from the prefix cache / prompt tokens
  double mean_queue = 0;              // waiting requests, time-averaged
  double mean_running = 0;            // running requests, time-averaged
  double goodput_requests_per_s = 0;  // finished requests meeting the SLO per second (if any)
};

struct KvSample {
  double t_s = 0;
  std::uint64_t blocks_used = 0, blocks_total = 0;
  std::uint64_t running = 0, waiting = 0;
  std::uint64_t preemptions = 0;  // cumulative
};

struct RequestResult {
  std::uint64_t id = 0;
  // Seconds: sent; taken into the waiting queue (the start of the first step whose batch could
  // hold it: later than arrival_s under async scheduling or while a step runs); the start of the
  // first step that scheduled any of its tokens; its first token; its last. The times other than
  // arrival_s are 0 unless finished. TTFT and E2E add the front end's latency to these.
  double arrival_s = 0, queued_s = 0, scheduled_s = 0, first_token_s = 0, finish_s = 0;
  std::uint64_t prompt_tokens = 0, output_tokens = 0, cached_tokens = 0;
  std::uint32_t preemptions = 0;
  std::uint64_t recomputed_tokens = 0;  // tokens computed again after preemptions
  bool finished = false;  // false: never scheduled (does not fit max_model_len) or cut off
};

// SLO limits for goodput (0 = no limit on that metric).
struct SloLimits {
  double ttft_p99_ms = 0, tpot_p99_ms = 0, e2e_p99_ms = 0;
};

struct SimResult {
  StageSummary summary;              // whole run
  std::vector<StageSummary> stages;  // one per workload stage
  std::vector<KvSample> kv_series;
  std::vector<RequestResult> requests;
  std::uint64_t num_gpu_blocks = 0;  // the pool the run used
  std::uint32_t block_size = 0;
  // No KV-cache group (an attention-free model): the pool is vLLM's one block, nothing a request
  // holds, and block_size means nothing.
  bool attention_free = false;
  std::uint64_t steps = 0;
  double simulated_s = 0;
  // The scheduler's cap on running requests: max_num_seqs, or the engine's own from its pool
  // where lower or where none is stated (SGLang: KvPool::max_running).
  std::uint64_t max_running = 0;
  // Whether the run scheduled one step ahead (vLLM's async scheduling, SGLang's overlap
  // scheduler): ServingConfig::async_scheduling where the engine and layout run it, off where
  // the engine turned it off for the model (KvPool::overlap_off).
  bool async_scheduling = false;
};

// One scheduled step, for tests and debugging (SimOptions::on_step): what each sequence of the
// batch held once the step's blocks were allocated.
struct StepSeq {
  std::uint64_t id = 0;
  std::uint64_t computed = 0;   // tokens computed before the step
  std::uint64_t scheduled = 0;  // tokens computed in the step
  std::uint64_t blocks = 0;     // blocks it holds during the step (all groups)
  std::uint64_t shared = 0;  // of those, prefix-cache blocks it shares with others (counted once)
};
struct StepRecord {
  double t_s = 0, seconds = 0;  // start, duration
  StepBatch batch;
  std::vector<StepSeq> seqs;             // the running list in order, scheduled or not
  std::uint64_t blocks_used = 0;         // blocks held by requests (shared blocks once)
  std::uint64_t blocks_cached_free = 0;  // prefix blocks no request holds, evictable
  std::uint64_t waiting = 0;
  std::uint64_t preempted = 0;  // preemptions in this step
};

struct SimOptions {
  SloLimits slo;                                       // for goodput
  std::function<void(double done_fraction)> progress;  // called now and then; may be empty
  const std::atomic<bool>* cancel = nullptr;           // stops early (throws Error "cancelled")
  std::function<void(const StepRecord&)> on_step;      // every step; may be empty (slow when set)
};

// ServingConfig::async_scheduling as the engine's release starts by default: on for vLLM's
// current rules (the default since v0.14, vllm-project/vllm#27614), off for vllm@0.9 (older than
// v0.14); for SGLang its overlap scheduler, on unless --disable-overlap-schedule
// (SglangOptions::disable_overlap_schedule) or pipeline stages; off for TensorRT-LLM. Whoever
// builds a ServingConfig from an engine spec sets cfg.async_scheduling =
// default_async_scheduling(cfg.plan).
bool default_async_scheduling(const PlanInput& plan);

// ServingConfig::max_num_seqs for a deployment that states `stated` (empty: not stated): it, else
// the engine's default on plan's GPU (vLLM 1024 on >= 70 GiB GPUs other than A100s, else 256,
// at most max_num_batched_tokens; trtllm-serve 2048), else 0: the engine's own from its pool
// (SGLang's max_running_requests, SglangPools). check, simulate and the GUI call it, so each runs
// what the engine would.
std::uint64_t default_scheduler_seqs(const PlanInput& plan, std::optional<std::uint64_t> stated);

// The scheduler's configuration of a deployment, as simulate, check, the SLO search and the GUI
// start it: its plan, max_num_seqs (stated, else default_scheduler_seqs), its
// max_num_batched_tokens and default_async_scheduling. Prefix caching, offload and the capacity
// policy stay the caller's.
ServingConfig serving_config_of(const PlanInput& plan, std::optional<std::uint64_t> max_num_seqs);

// The scheduler settings only some engines have: TensorRT-LLM's capacity_scheduler_policy and
// chunked context (ServingConfig::capacity_policy, enable_chunked_context), vLLM's speculative
// decoding (the plan's vllm().spec_acceptance). Throws Error(flag) naming the engines that have it
// when `engine`'s scheduler does not.
enum class SchedulerSetting { capacity_policy, chunked_context, speculative_decoding };
void check_scheduler_setting(Engine engine, SchedulerSetting setting, const std::string& flag);

// The engines the simulator has a scheduler for: vLLM (V1, either rules), SGLang and
// TensorRT-LLM (EngineRules::simulated). Throws Error(source, field) naming the engine otherwise.
// simulate and slo_search call it; a front end may call it first to name its own flag.
void check_simulated_engine(Engine engine, const std::string& source,
                            const std::string& field = "engine");

// Throws kvplan::Error on an invalid configuration (names the field) — e.g. no KV memory left,
// or an engine the simulator does not model (check_simulated_engine, source: the workload).
SimResult simulate(const ModelSpec& model, const ServingConfig& cfg, const StepTimer& step,
                   const Workload& workload, const SimOptions& opt = {});

}  // namespace kvplan::sim
