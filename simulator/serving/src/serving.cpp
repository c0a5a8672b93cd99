// The serving simulator's scheduler. vLLM V1's Scheduler.schedule()
// (vllm/v1/core/sched/scheduler.py@b4622cf924bc72504aed99e486062d6633fde39e) and its
// KVCacheManager (vllm/v1/core/kv_cache_manager.py@ace980e6de0540f49b0c63248437a1a7807590c1),
// with blocks counted rather than named (serving_pool.hpp). What differs from the engine, and
// SGLang's mode, is listed in serving.hpp.
#include "kvplan/sim/serving.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <queue>

#include "engine_scheduling.hpp"
#include "kvplan/checked.hpp"
#include "kvplan/engine_rules.hpp"
#include "kvplan/error.hpp"
#include "kvplan/kv_pool.hpp"
#include "kvplan/kv_tiers.hpp"
#include "kvplan/sim/serving_report.hpp"
#include "kvplan/text_safe.hpp"
#include "latency_sketch.hpp"
#include "replica.hpp"
#include "run_summary.hpp"
#include "serving_pool.hpp"

namespace kvplan::sim {

namespace {

// The KV series holds at most this many samples (48 MiB): when full, every other one is dropped
// and the interval doubles, so a long or idle run keeps an even grid in bounded memory.
constexpr std::uint64_t kMaxSamples = std::uint64_t{1} << 20;
// SGLang's admission estimate (schedule_policy.py CLIP_MAX_NEW_TOKENS; global_config.py).
constexpr std::uint64_t kSglangClipMaxNewTokens = 4096;
// The decode tokens SGLang's decode side of a disaggregated pair keeps free for each request it
// holds (num_reserved_decode_tokens, SGLANG_NUM_RESERVED_DECODE_TOKENS, default 512:
// python/sglang/srt/disaggregation/decode.py@0035ca42c2d615f77778ce3bf825d6ce6e089661).
constexpr std::uint64_t kSglangReservedDecodeTokens = 512;
constexpr double kSglangInitNewTokenRatio = 0.7, kSglangMinNewTokenRatioFactor = 0.14,
                 kSglangDecaySteps = 600;

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finalizer
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The hash chain over a prompt's full blocks: block i's hash covers block i − 1's hash and the
// (content, offset, length) pieces of its tokens, so equal leading segments give equal hashes.
std::vector<std::uint64_t> block_hashes(const std::vector<Segment>& prompt, std::uint64_t bs,
                                        std::uint64_t limit_blocks) {
  std::vector<std::uint64_t> out;
  out.reserve(limit_blocks);
  std::uint64_t h = 0x6b7670;  // "kvp"
  std::uint64_t filled = 0;
  for (const Segment& s : prompt) {
    std::uint64_t off = 0;
    while (off < s.tokens && out.size() < limit_blocks) {
      const std::uint64_t take = std::min(s.tokens - off, bs - filled);
      h = mix(h ^ mix(s.content ^ mix(off ^ (take << 40))));
      off += take, filled += take;
      if (filled == bs) out.push_back(h), filled = 0;
    }
  }
  return out;
}

// Where a request's prompt KV comes from: computed here (local), or sent by another replica
// (replica.hpp): waiting for its blocks (awaiting), blocks allocated and the transfer under way
// (receiving), in place and back in the queue (received).
enum class Kv : std::uint8_t { local, awaiting, receiving, received };

struct Seq {
  const SimRequest* req = nullptr;
  Kv kv = Kv::local;
  bool arrived = false;
  double arrival = 0, first_token = -1, last_token = 0, finish = 0;
  double queued = -1, scheduled = -1;  // joined the waiting queue; first step scheduling it
  std::uint64_t generated = 0, computed = 0;
  std::uint64_t held = 0;              // pool units held (shared entries included)
  std::vector<std::uint32_t> entries;  // prefix-cache entries of its leading blocks
  std::vector<std::uint64_t> hashes;   // its prompt's full-block hashes (prefix caching)
  std::uint64_t cached_tokens = 0, recomputed = 0;
  std::uint32_t preemptions = 0;
  bool admitted = false, done = false;
  std::uint64_t drafts = 0;  // draft tokens verified in the step being run
  double spec_credit = 0;    // accepted drafts accrued and not yet taken
  std::uint32_t slot = 0;    // SGLang's micro-batch whose running batch holds it (pp > 1)
  std::uint64_t num_tokens() const { return req->prompt_tokens + generated; }
  // Everything but the token sampled last is computed: the next step decodes.
  bool decoding() const { return generated > 0 && computed + 1 == num_tokens(); }
};

// Speculative decoding: one rate per draft token, non-increasing in [0, 1] (parse_spec_acceptance
// refuses the rest; a PlanInput built in code is checked here). Only vLLM's options hold them.
void check_spec_acceptance(const ServingConfig& cfg, std::vector<Problem>& pr) {
  const auto& a = cfg.plan.vllm().spec_acceptance;
  if (a.empty()) return;
  const std::uint32_t k = cfg.plan.vllm().num_speculative_tokens;
  if (a.size() != k)
    pr.push_back({"spec_acceptance", std::to_string(a.size()) + " acceptance rates for " +
                                         std::to_string(k) +
                                         " speculative tokens (num_speculative_tokens)"});
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(a[i] >= 0 && a[i] <= 1) || (i > 0 && a[i] > a[i - 1])) {
      pr.push_back({"spec_acceptance/" + std::to_string(i),
                    "must be in [0, 1] and at most the rate before it"});
      break;
    }
}

void validate(const ServingConfig& cfg, const Workload& w, const KvPool& pool) {
  std::vector<Problem> pr;
  if (cfg.max_num_seqs == 0 && pool.max_running == 0)
    pr.push_back({"max_num_seqs",
                  "must be at least 1, got 0 (0, the engine's own from its pool, "
                  "is SGLang's max_running_requests)"});
  if (cfg.max_num_batched_tokens == 0)
    pr.push_back({"max_num_batched_tokens", "must be at least 1, got 0"});
  if (!(cfg.sample_interval_s > 0) || !std::isfinite(cfg.sample_interval_s))
    pr.push_back({"sample_interval_s", "must be a positive number of seconds"});
  if (cfg.cpu_offload_bytes > 0 &&
      !(cfg.cpu_offload_gbps >= kMinOffloadGbps && cfg.cpu_offload_gbps <= kMaxOffloadGbps))
    pr.push_back(
        {"cpu_offload_gbps", "must be between 0.001 and 1e6 GB/s when cpu_offload_bytes is set"});
  if (cfg.cpu_offload_bytes > 0 && !cfg.enable_prefix_caching)
    pr.push_back({"cpu_offload_bytes",
                  "the CPU tier holds evicted prefix blocks: it needs "
                  "enable_prefix_caching"});
  if (!cfg.plan.vllm().spec_acceptance.empty() && cfg.plan.pp > 1)
    pr.push_back({"spec_acceptance",
                  "speculative decoding is not simulated with pipeline stages "
                  "(pp " +
                      std::to_string(cfg.plan.pp) + ")"});
  if (cfg.cpu_offload_bytes > 0 && cfg.plan.pp > 1)
    pr.push_back({"cpu_offload_bytes", "the CPU tier is not simulated with pipeline stages (pp " +
                                           std::to_string(cfg.plan.pp) + ")"});
  if (cfg.enable_prefix_caching) {
    if (!pool.full_attention_only())
      pr.push_back({"enable_prefix_caching",
                    "prefix caching is modelled for full-attention KV-cache groups only; this "
                    "deployment has sliding, chunked or recurrent groups"});
    if (!is_full(cfg.plan.policy))
      pr.push_back({"enable_prefix_caching",
                    "prefix caching with an evicting retention policy is not modelled"});
  }
  detail::engine_scheduling(cfg.plan.engine).check(cfg, pool, pr);
  check_spec_acceptance(cfg, pr);
  // vLLM refuses to start when one request of max_model_len does not fit the pool. Under an
  // evicting policy the worst request of n tokens is not the planner's (all prompt, compressed):
  // SnapKV compresses only the prompt, so a 1-token prompt with n − 1 outputs keeps
  // min(1, budget) + n − 1 = n tokens (policy.cpp retained).
  const std::uint64_t ctx = cfg.plan.context;
  std::uint64_t worst = pool.max_blocks(ctx);
  if (!is_full(cfg.plan.policy) && ctx > 0) worst = std::max(worst, pool.blocks(ctx - 1, 1, 1));
  if (worst > pool.usable_blocks)
    pr.push_back({"context", "one request of max_model_len " + std::to_string(ctx) +
                                 " tokens can need " + std::to_string(worst) +
                                 " blocks, the pool has " + std::to_string(pool.usable_blocks)});
  for (std::size_t i = 0; i < w.requests.size(); ++i) {
    const auto& r = w.requests[i];
    const std::string f = "/requests/" + std::to_string(i);
    std::uint64_t sum = 0;
    for (const auto& s : r.prompt) sum = add(sum, s.tokens, "prompt tokens");
    if (sum != r.prompt_tokens)
      pr.push_back({f + "/prompt_tokens",
                    "differs from the sum of its segments (" + std::to_string(sum) + ")"});
    if (r.prompt_tokens == 0) pr.push_back({f + "/prompt_tokens", "must be at least 1"});
    if (r.output_tokens == 0) pr.push_back({f + "/output_tokens", "must be at least 1"});
    if (!(r.arrival_s >= 0) || !std::isfinite(r.arrival_s))
      pr.push_back({f + "/arrival_s", "must be a finite time >= 0"});
    if (r.after >= static_cast<std::int64_t>(i) || r.after < -1)
      pr.push_back({f + "/after", "must name an earlier request or be -1"});
    if (!(r.think_s >= 0) || !std::isfinite(r.think_s))
      pr.push_back({f + "/think_s", "must be a finite time >= 0"});
    if (!w.stages.empty() && r.stage >= w.stages.size())
      pr.push_back({f + "/stage", "no such stage"});
    if (pr.size() > 20) break;
  }
  throw_if_any(w.source.empty() ? "serving config" : w.source, pr);
}

}  // namespace

namespace detail {

class Scheduler {
 public:
  // driven: nothing arrives by itself and finished requests start no later turn (Replica).
  Scheduler(const ServingConfig& cfg, const StepTimer& timer, const Workload& w,
            const SimOptions& opt, KvPool pool, bool driven = false,
            Replica::Transfer transfer = {})
      : cfg_(cfg),
        timer_(timer),
        w_(w),
        opt_(opt),
        engine_(engine_scheduling(cfg.plan.engine)),
        pool_(std::move(pool)),
        // A pool without groups (an attention-free model) has nothing to cache; vLLM's
        // KVCacheManager turns caching off for it (vllm/v1/core/kv_cache_manager.py,
        // https://github.com/vllm-project/vllm/blob/main/vllm/v1/core/kv_cache_manager.py).
        caching_(cfg.enable_prefix_caching && !pool_.groups.empty()),
        unit_(caching_ ? pool_.groups.size() : 1),
        units_(pool_.usable_blocks / unit_),
        blocks_(units_, caching_, cpu_units()) {
    interval_ = cfg.sample_interval_s;
    async_ = detail::runs_async_scheduling(cfg) && !pool_.overlap_off;
    driven_ = driven;
    transfer_ = std::move(transfer);
    spec_k_ =
        std::min<std::uint64_t>(cfg.plan.vllm().num_speculative_tokens,
                                cfg.plan.vllm().spec_acceptance.size());  // validate: equal or 0
    // Pipeline stages: vLLM keeps a queue of pp micro-batches in flight (turn_queued), SGLang runs
    // pp micro-batches, each with its own running batch of at most max(max_running_requests //
    // pp, 1) requests (turn_slots). Async scheduling's one-step-ahead admission is not modelled
    // beside them.
    if (cfg.plan.pp > 1 && engine_.loop() != SchedulerLoop::trtllm_inflight) {
      pipeline_ = engine_.loop() == SchedulerLoop::vllm_v1 ? Pipeline::batch_queue
                                                           : Pipeline::micro_batches;
      stage_free_.assign(cfg.plan.pp, 0.0);
    }
    if (engine_.loop() == SchedulerLoop::sglang) {
      recv_interval_ = cfg.plan.sglang().scheduler_recv_interval;
      slot_batch_.assign(std::max<std::uint32_t>(cfg.plan.pp, 1), BatchMode::none);
    }
    // SGLang's own cap (kv_pool.hpp max_running: its request table, Mamba slots, half the
    // pool's tokens) below a stated --max-running-requests, or alone where none is stated (0).
    max_running_ = pool_.max_running == 0  ? cfg.max_num_seqs
                   : cfg.max_num_seqs == 0 ? pool_.max_running
                                           : std::min(cfg.max_num_seqs, pool_.max_running);
    seqs_.resize(w.requests.size());
    next_.assign(w.requests.size(), {});
    for (std::size_t i = 0; i < w.requests.size(); ++i) {
      seqs_[i].req = &w.requests[i];
      if (driven) continue;
      if (w.requests[i].after >= 0)
        next_[static_cast<std::size_t>(w.requests[i].after)].push_back(
            static_cast<std::uint32_t>(i));
      else
        arrive(static_cast<std::uint32_t>(i), w.requests[i].arrival_s);
    }
    const std::size_t nstages = std::max<std::size_t>(w.stages.size(), 1);
    acc_.assign(nstages, {});
    busy_running_.assign(nstages + 1, 0);
    busy_waiting_.assign(nstages + 1, 0);
  }

  SimResult run();
  // Replica's interface (replica.hpp).
  // remote: its prompt is computed elsewhere (a disaggregated decode side), so only the
  // context limit applies (TensorRT-LLM skips its max_num_tokens check for generation-only
  // requests: tensorrt_llm/llmapi/llm.py@4c05a74891e4df8066f08ed4ce14b0972abe4e25
  // _check_arguments, "Skip check for gen-only requests").
  bool refused_on_arrival(const SimRequest& r, bool remote = false) const;
  bool refused(std::uint32_t i, bool remote) const {
    return refused_on_arrival(*seqs_[i].req, remote);
  }
  bool remote_fits_pool(const SimRequest& r) const;
  // Tokens of request i's prompt this replica's prefix cache holds now (GPU blocks, whole
  // blocks from the start, at most prompt − 1 tokens as a hit counts them); 0 without caching.
  std::uint64_t cached_prefix(std::uint32_t i) const {
    if (!caching_) return 0;
    const SimRequest& r = *seqs_[i].req;
    const std::uint64_t bs = pool_.block_size;
    const auto hashes = block_hashes(r.prompt, bs, (r.prompt_tokens - 1) / bs);
    std::uint64_t hit = 0;
    while (hit < hashes.size() && blocks_.find(hashes[hit]) >= 0) ++hit;
    return hit * bs;
  }
  void arrive(std::uint32_t i, double t) {
    seqs_[i].arrival = t;
    seqs_[i].arrived = true;
    arrivals_.push({t, i});
  }
  void arrive_remote(std::uint32_t i, double t) {
    seqs_[i].kv = Kv::awaiting;
    arrive(i, t);
  }
  // Request i's KV is in place at t (RemoteKv::before_prefill: the transfer's end is known only
  // once the prefill side is done).
  void kv_ready(std::uint32_t i, double t) { ready_.push({std::max(t, t_), i}); }
  double next_event() const;
  bool turn();
  std::vector<std::pair<std::uint32_t, double>> take_finished() { return std::move(done_); }
  // TensorRT-LLM's attention-DP groups in lockstep (simulate_adp_server): at the server's clock
  // t, adp_plan admits what arrived and plans the group's step (capacity and micro-batch
  // schedulers) without running it; adp_start runs it, its contexts held back when told, and
  // returns its seconds (0: nothing ran); adp_finish ends the server's step of dt at t + dt.
  struct AdpPlan {
    std::uint64_t contexts = 0, generations = 0;
    bool active = false;    // requests running or waiting
    bool free_slot = true;  // generations < max_batch_size
  };
  AdpPlan adp_plan(double t);
  double adp_start(bool hold_contexts);
  void adp_finish(double t, double dt);
  // Requests of this share still to finish (neither finished nor refused on arrival).
  bool adp_pending() const { return finished_ + refused_ < seqs_.size(); }
  std::uint64_t adp_settled() const { return finished_ + refused_; }
  std::uint64_t adp_requests() const { return seqs_.size(); }
  void count_refused();
  SimResult finish_run();
  const std::vector<StageAcc>& tallies() const { return acc_; }
  const std::vector<double>& busy_running() const { return busy_running_; }
  const std::vector<double>& busy_waiting() const { return busy_waiting_; }

 private:
  // cpu_offload_bytes is vLLM's --kv-offloading-size: one total over the replica's ranks. A unit
  // holds every layer's page of one TP rank (the pool's layers span the pipeline stages, so the
  // stages' share of world_size is already in it): vllm_offload_blocks over the tp ranks.
  std::uint64_t cpu_units() const {
    if (cfg_.cpu_offload_bytes == 0) return 0;
    return vllm_offload_blocks(cfg_.cpu_offload_bytes, unit_bytes(), cfg_.plan.tp);
  }
  std::uint64_t unit_bytes() const {
    std::uint64_t layers = 0;
    for (const auto& g : pool_.groups) layers += g.layers;
    return pool_.page_bytes * layers;
  }
  std::uint64_t units(std::uint64_t computed, std::uint64_t scheduled, const Seq& s) const {
    return pool_.blocks(computed, scheduled, s.req->prompt_tokens) / unit_;
  }
  // KVCacheManager.free: the tail blocks first, so they are the first evicted.
  void free_seq(Seq& s) {
    blocks_.release(s.held - s.entries.size());
    for (auto e = s.entries.rbegin(); e != s.entries.rend(); ++e) blocks_.unref(*e);
    s.entries.clear();
    s.held = 0;
  }
  // Frees a request's blocks; it recomputes what it had computed when it runs again (vLLM's
  // preemption, TensorRT-LLM's pause).
  void drop_for_recompute(std::uint32_t i) {
    Seq& s = seqs_[i];
    free_seq(s);
    s.drafts = 0;  // _preempt_request clears spec_token_ids: a resumed request has no drafts
    s.recomputed += s.computed;
    s.computed = 0;
    ++s.preemptions;
    ++preemptions_;
    ++step_preempted_;
  }
  void preempt(std::uint32_t i) {
    drop_for_recompute(i);
    waiting_.push_front(i);
  }
  bool schedule_running(std::uint32_t i, std::uint64_t& budget, bool may_preempt = true);
  // Speculative decoding's lookahead: the k tokens allocate_slots adds past what a running (or
  // received) request schedules, up to max_model_len; 0 without drafts.
  std::uint64_t lookahead(const Seq& s, std::uint64_t n) const {
    const std::uint64_t end = s.computed + n, ctx = cfg_.plan.context;
    return spec_k_ > 0 && ctx > end ? std::min(spec_k_, ctx - end) : 0;
  }
  bool schedule_waiting(std::uint32_t i, std::uint64_t& budget, double& load_s,
                        double* rem_total = nullptr);
  void schedule_vllm(double& load_s);
  void schedule_sglang(double& load_s);
  void schedule_trtllm();
  // Each returns the requests that run this step and fills `gen_init` with the remote requests
  // (a disaggregated generation server's DISAGG_GENERATION_INIT) whose blocks it admits.
  std::vector<std::uint32_t> trtllm_fitting(std::vector<std::uint32_t>& gen_init);
  std::vector<std::uint32_t> trtllm_no_evict(std::vector<std::uint32_t>& gen_init);
  std::vector<std::uint32_t> trtllm_max_utilization(std::vector<std::uint32_t>& gen_init);
  // The micro-batch scheduler's (request, tokens) for this step, in order (trtllm_plan_).
  void trtllm_micro_batch(const std::vector<std::uint32_t>& fitting);
  std::vector<std::pair<std::uint32_t, std::uint64_t>> trtllm_plan_;
  StepBatch adp_batch_;
  std::uint64_t refused_ = 0;  // requests refused on arrival (counted by run / the ADP driver)
  void trtllm_run(std::uint32_t i, std::uint64_t n);
  // TensorRT-LLM's block counts for one sequence (one window of max_seq_len, beam 1): the blocks
  // it will hold when done (prompt plus all outputs), after its next step, and the blocks that
  // step adds.
  std::uint64_t trtllm_total(const Seq& s) const {
    return units(add(s.req->prompt_tokens, s.req->output_tokens), 0, s);
  }
  std::uint64_t trtllm_target(const Seq& s) const;
  std::uint64_t trtllm_one_step(const Seq& s) const;
  bool start_receive(std::uint32_t i);
  bool schedule_received(std::uint32_t i, std::uint64_t& budget);
  void preallocate();
  void take_ready(double cutoff, double t);
  std::uint64_t prompt_kv_bytes(const Seq& s) const;
  void take_prebuilt(std::uint32_t i, double t);
  bool prefilling(const Seq& s) const {
    return s.generated == 0 || s.computed + 1 < s.num_tokens();
  }
  std::uint64_t clipped_output(const Seq& s) const {
    return std::min<std::uint64_t>(s.req->output_tokens - s.generated, kSglangClipMaxNewTokens);
  }
  void publish_blocks(Seq& s);
  void finish(std::uint32_t i, double t);
  void sample_until(double t);
  // SGLang's receive interval (SchedulerRecvSkipper): the forward mode of the last batch, by
  // the weight the skipper gives it.
  enum class BatchMode { none, decode, extend };
  bool receives(std::uint32_t slot);
  void receive_idle();
  // run()'s steps.
  void admit(double cutoff, double t);
  bool form_batch(double& load_s);
  void settle_empty_step();
  bool advance_to_next_event();
  StepBatch start_batch(double t);
  double step_seconds(const StepBatch& b, double load_s) const;
  StepRecord step_record(double t, double dt, const StepBatch& b) const;
  std::uint64_t emit_tokens(double t);
  void check_in(std::uint64_t finished, std::uint64_t total, std::uint64_t& last_progress) const;
  void account(double t0, double dt);
  void summarize();

  const ServingConfig& cfg_;
  const StepTimer& timer_;
  const Workload& w_;
  const SimOptions& opt_;
  const EngineScheduling& engine_;
  KvPool pool_;
  bool caching_;
  std::uint64_t unit_, units_;
  detail::UnitPool blocks_;
  std::vector<Seq> seqs_;
  std::vector<std::vector<std::uint32_t>> next_;  // later turns of each request
  using Arrival = std::pair<double, std::uint32_t>;
  std::priority_queue<Arrival, std::vector<Arrival>, std::greater<>> arrivals_;
  std::priority_queue<Arrival, std::vector<Arrival>, std::greater<>> ready_;  // KV in place at
  std::vector<std::uint32_t> running_;
  std::deque<std::uint32_t> waiting_;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> batch_;  // (seq, tokens) this step
  std::uint64_t preemptions_ = 0, step_preempted_ = 0;
  std::uint64_t max_running_ = 0;            // max_num_seqs, or SGLang's Mamba cap when lower
  std::uint64_t spec_k_ = 0;                 // draft tokens a step (0: not simulated)
  double ratio_ = kSglangInitNewTokenRatio;  // SGLang's new_token_ratio
  double next_sample_ = 0, interval_ = 1;    // interval_: the series' (starts at cfg's)
  SimResult res_;
  std::vector<StageAcc> acc_;
  std::vector<double> busy_running_, busy_waiting_;  // ∫ running dt, ∫ waiting dt per stage bin
  // The engine loop's state between turns.
  double t_ = 0, prev_start_ = 0;  // the clock; the start of the step that ran last
  bool stepped_ = false;           // a step ended at t_
  bool stalled_ = false;           // nothing could run until a transfer ends
  bool async_ = false, driven_ = false;
  // SGLang's --scheduler-recv-interval and its counter; the batch each micro-batch (one without
  // stages) ran last, as schedule_sglang formed it.
  std::uint32_t recv_interval_ = 1;
  std::uint64_t recv_counter_ = 0;
  std::vector<BatchMode> slot_batch_;
  bool same_loop_ = false;  // the last turn only retracted: SGLang's loop has not come round
  std::uint64_t finished_ = 0, last_progress_ = 0, receiving_ = 0;
  std::vector<std::pair<std::uint32_t, double>> done_;  // driven: finished since take_finished
  Replica::Transfer transfer_;
  // A pass of a micro-batch in flight under pipeline stages: its requests' tokens, when its last
  // stage ends it.
  struct InFlight {
    std::uint32_t seq;
    bool ends;                // its tokens reach the request's last: it samples one
    std::uint32_t preempted;  // the request's preemptions when it was scheduled
  };
  struct MicroBatch {
    std::vector<InFlight> items;
    double done_at = 0;
    std::uint32_t slot = 0;  // SGLang's micro-batch it is a pass of
  };
  // How the engine loop runs pipeline stages: not at all (pp 1, TensorRT-LLM), vLLM's batch
  // queue (turn_queued) or SGLang's micro-batches (turn_slots). Either way queue_ holds the
  // passes in flight, oldest first, and stage_free_ when each stage is done with the last pass
  // it was given.
  enum class Pipeline { none, batch_queue, micro_batches };
  Pipeline pipeline_ = Pipeline::none;
  std::deque<MicroBatch> queue_;
  std::vector<double> stage_free_;
  std::uint32_t slot_ = 0;  // SGLang's micro-batch being formed
  std::uint32_t stages() const { return static_cast<std::uint32_t>(stage_free_.size()); }
  bool slotted() const { return pipeline_ == Pipeline::micro_batches; }
  bool in_slot(std::uint32_t i) const { return !slotted() || seqs_[i].slot == slot_; }
  std::uint64_t slot_max() const {
    return slotted() ? std::max<std::uint64_t>(max_running_ / stages(), 1) : max_running_;
  }
  std::uint64_t slot_running() const {
    if (!slotted()) return running_.size();
    return static_cast<std::uint64_t>(std::count_if(running_.begin(), running_.end(),
                                                    [&](std::uint32_t i) { return in_slot(i); }));
  }
  std::uint32_t take_victim();
  bool turn_queued();
  bool turn_slots();
  bool schedule_micro_batch(double& load_s);
  MicroBatch launch_micro_batch(double load_s);
  void wait_for_oldest();
  std::uint64_t emit_micro_batch(const MicroBatch& m, double t);
  bool emit_token(std::uint32_t i, std::uint64_t tokens, double t);
};

// A running request: a decode (1 token) or the rest of its prefill, within the budget. When the
// pool is short, preempt from the running list's tail until it fits (scheduler.py: "preempted_req
// = self.running.pop()"), the request itself last. Without may_preempt (SGLang's chunked
// prefill) the chunk shrinks to what the free pool holds and nothing is preempted; false when
// not even one token fits.
// The running list's tail: vLLM's preemption (self.running.pop()), SGLang's retraction; under
// SGLang's micro-batches, the tail of the one being formed (retract_decode works on its running
// batch).
std::uint32_t Scheduler::take_victim() {
  std::size_t k = running_.size() - 1;
  // Under micro-batches the chunked request is in no running batch: never retracted.
  while (slotted() && k > 0 && (!in_slot(running_[k]) || prefilling(seqs_[running_[k]]))) --k;
  const std::uint32_t v = running_[k];
  running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(k));
  return v;
}

bool Scheduler::schedule_running(std::uint32_t i, std::uint64_t& budget, bool may_preempt) {
  Seq& s = seqs_[i];
  // Under pipeline parallelism a request whose tokens are all in a micro-batch in flight has
  // nothing to schedule until its token comes back (scheduler.py: num_new_tokens == 0, skipped);
  // a prefill's next chunk can follow its last at once.
  if (s.computed == s.num_tokens()) return true;
  std::uint64_t n = std::min(s.num_tokens() - s.computed, budget);
  // Speculative decoding (scheduler.py@00024d31 schedule): a decode carries its drafts,
  // num_tokens_with_spec − num_computed_tokens, within the budget and max_model_len − 1 −
  // num_computed_tokens (>= 1 here: prompt + output <= max_model_len); allocate_slots takes
  // num_lookahead_tokens = k more (EAGLE / MTP), up to max_model_len.
  s.drafts = 0;
  if (spec_k_ > 0 && s.decoding()) {
    n = std::min({1 + spec_k_, budget, cfg_.plan.context - 1 - s.computed});
    s.drafts = n - 1;
  }
  // remove_skipped_blocks: sliding windows and chunks free what the step no longer reads.
  const std::uint64_t now = units(s.computed, 0, s);
  if (s.held > now) blocks_.release(s.held - now), s.held = now;
  if (!may_preempt) {
    // The largest chunk whose blocks fit (units() grows with the tokens scheduled).
    std::uint64_t lo = 0, hi = n;
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo + 1) / 2;
      if (units(s.computed, mid + lookahead(s, mid), s) - s.held <= blocks_.free_units())
        lo = mid;
      else
        hi = mid - 1;
    }
    n = lo;
    if (n == 0) return false;
  }
  const std::uint64_t need = units(s.computed, n + lookahead(s, n), s) - s.held;
  while (need > blocks_.free_units()) {
    const std::uint32_t victim = take_victim();
    preempt(victim);
    if (victim == i) return false;
  }
  blocks_.allocate(need);
  s.held += need;
  budget -= n;
  batch_.push_back({i, n});
  return true;
}

// A waiting request (new, or preempted): its longest cached prefix of full blocks, never the
// prompt's last token (kv_cache_manager.py get_computed_blocks: max_cache_hit_length =
// request.num_tokens − 1), then a chunk of what is left within the budget. No preemption for
// waiting requests: when the pool is short the waiting loop stops.
bool Scheduler::schedule_waiting(std::uint32_t i, std::uint64_t& budget, double& load_s,
                                 double* rem_total) {
  Seq& s = seqs_[i];
  std::uint64_t hit = 0, hit_free = 0, cpu_hit = 0;
  if (caching_) {
    if (s.hashes.empty())
      s.hashes =
          block_hashes(s.req->prompt, pool_.block_size, s.req->prompt_tokens / pool_.block_size);
    const std::uint64_t max_blocks =
        std::min<std::uint64_t>((s.num_tokens() - 1) / pool_.block_size, s.hashes.size());
    while (hit < max_blocks) {
      const auto e = blocks_.find(s.hashes[hit]);
      if (e < 0) break;
      if (blocks_.entry_free(static_cast<std::uint32_t>(e))) ++hit_free;
      ++hit;
    }
    while (hit + cpu_hit < max_blocks && blocks_.cpu().contains(s.hashes[hit + cpu_hit])) ++cpu_hit;
  }
  const std::uint64_t computed = (hit + cpu_hit) * pool_.block_size;
  const std::uint64_t n = std::min(s.num_tokens() - computed, budget);
  // SGLang's PrefillAdder: the prompt left plus the (clipped) outputs must fit what the running
  // requests have not reserved.
  if (rem_total && !running_.empty() &&
      static_cast<double>(s.num_tokens() - computed + clipped_output(s)) > *rem_total)
    return false;
  // CPU hits are loaded into new blocks: they are part of the allocation.
  const std::uint64_t need = units(computed, n, s) - hit + hit_free;
  if (need > blocks_.free_units()) return false;
  for (std::uint64_t b = 0; b < hit; ++b) {
    const auto e = static_cast<std::uint32_t>(blocks_.find(s.hashes[b]));
    blocks_.ref(e);
    s.entries.push_back(e);
  }
  blocks_.allocate(need - hit_free);
  s.held = hit + (need - hit_free);
  for (std::uint64_t b = hit; b < hit + cpu_hit; ++b) blocks_.cpu().touch(s.hashes[b]);
  if (cpu_hit > 0)
    load_s += static_cast<double>(cpu_hit * unit_bytes()) / (cfg_.cpu_offload_gbps * 1e9);
  s.computed = computed;
  if (rem_total)
    *rem_total -= static_cast<double>(s.num_tokens() - computed) +
                  ratio_ * static_cast<double>(clipped_output(s));
  if (!s.admitted) s.cached_tokens = computed, s.admitted = true;
  budget -= n;
  batch_.push_back({i, n});
  if (cpu_hit > 0) publish_blocks(s);
  return true;
}

// vLLM V1: running requests first (decodes and the rest of running prefills, in order), then
// waiting requests in FCFS order, but no new ones in a step that preempted.
void Scheduler::schedule_vllm(double& load_s) {
  std::uint64_t budget = cfg_.max_num_batched_tokens;
  for (std::size_t k = 0; k < running_.size() && budget > 0; ++k)
    if (!schedule_running(running_[k], budget)) break;
  if (step_preempted_ > 0) return;
  while (!waiting_.empty() && budget > 0 && running_.size() < max_running_) {
    const auto i = waiting_.front();
    if (seqs_[i].kv == Kv::awaiting) {
      if (!start_receive(i)) break;
      waiting_.pop_front();
      continue;
    }
    const bool ok = seqs_[i].kv == Kv::received ? schedule_received(i, budget)
                                                : schedule_waiting(i, budget, load_s);
    if (!ok) break;
    waiting_.pop_front();
    running_.push_back(i);
  }
}

// A remote request at the head of the queue (replica.hpp): its prompt's blocks, as many as a
// prefill of the whole prompt would take, then the transfer; it leaves the queue until its KV is
// in place. False when the blocks do not fit (the queue waits, as for any request).
bool Scheduler::start_receive(std::uint32_t i) {
  Seq& s = seqs_[i];
  const std::uint64_t p = s.req->prompt_tokens;
  const std::uint64_t need = units(0, p, s);
  if (need > blocks_.free_units()) return false;
  blocks_.allocate(need);
  s.held = need;
  if (s.scheduled < 0) s.scheduled = t_;
  const double ready = transfer_ ? transfer_(i, t_, prompt_kv_bytes(s)) : t_;
  s.kv = Kv::receiving;
  ++receiving_;
  ready_.push({std::max(ready, t_), i});
  return true;
}

// The bytes of a prompt's KV on each rank: what a transfer of it carries.
std::uint64_t Scheduler::prompt_kv_bytes(const Seq& s) const {
  const std::uint64_t p = s.req->prompt_tokens;
  std::uint64_t bytes = 0;
  for (std::size_t g = 0; g < pool_.groups.size(); ++g)
    bytes = add(bytes,
                mul(mul(pool_.group_blocks(g, 0, p, p), pool_.page_bytes, "KV transfer bytes"),
                    pool_.groups[g].layers, "KV transfer bytes"),
                "KV transfer bytes");
  return bytes;
}

// SGLang's decode side of a disaggregated pair (RemoteKv::before_prefill), at the start of each
// pass of its loop: the waiting requests, first come first served, each get their prompt's
// tokens while they fit the budget (DecodePreallocQueue.pop_preallocated and _allocatable_tokens,
// python/sglang/srt/disaggregation/decode.py@0035ca42c2d615f77778ce3bf825d6ce6e089661):
//   retractable = the running requests' prompt + output tokens so far;
//   allocatable = free tokens − max(512 · (running + preallocated), the largest running
//                 request's prompt + min(max_new_tokens, 4096) − retractable);
//   admitted when max(prompt + 512, prompt + min(max_new_tokens, 4096) − retractable) ≤
//   allocatable, and a request slot is free (req_to_token_pool: max_running_requests).
// The first that does not fit stops the pass. A preallocated request's transfer callback starts
// its prefill on the prefill side; kv_ready() says when its KV arrives.
void Scheduler::preallocate() {
  using I = std::int64_t;
  I retractable = 0, need_single = 0;
  for (auto i : running_) retractable += static_cast<I>(seqs_[i].num_tokens());
  for (auto i : running_) {
    const Seq& s = seqs_[i];
    need_single = std::max(need_single,
                           static_cast<I>(std::min(s.req->output_tokens, kSglangClipMaxNewTokens) +
                                          s.req->prompt_tokens) -
                               retractable);
  }
  const I reserve = static_cast<I>(kSglangReservedDecodeTokens);
  while (!waiting_.empty() && seqs_[waiting_.front()].kv == Kv::awaiting &&
         running_.size() + receiving_ < max_running_) {
    const auto i = waiting_.front();
    Seq& s = seqs_[i];
    const I held = static_cast<I>(running_.size() + receiving_);
    const I free_tokens = static_cast<I>(blocks_.free_units() * unit_ * pool_.block_size);
    const I allocatable = free_tokens - std::max(reserve * held, need_single);
    const I prompt = static_cast<I>(s.req->prompt_tokens);
    const I clipped = static_cast<I>(std::min(s.req->output_tokens, kSglangClipMaxNewTokens));
    if (std::max(prompt + reserve, prompt + clipped - retractable) > allocatable) break;
    const std::uint64_t need = units(0, s.req->prompt_tokens, s);
    if (need > blocks_.free_units()) break;
    blocks_.allocate(need);
    s.held = need;
    s.kv = Kv::receiving;
    ++receiving_;
    waiting_.pop_front();
    if (transfer_) transfer_(i, t_, prompt_kv_bytes(s));
  }
}

// A request whose KV arrived from the prefill side with its first token (RemoteKv::
// before_prefill, after_prefill_token_sent): SGLang's decode loop merges it into the running
// batch and streams that token before its next decode step (process_batch_result_prebuilt);
// TensorRT-LLM's generation server streams it before the step's forward pass
// (_handle_first_token_response). The step decodes its second.
void Scheduler::take_prebuilt(std::uint32_t i, double t) {
  Seq& s = seqs_[i];
  s.kv = Kv::local;
  s.computed = s.req->prompt_tokens;
  s.admitted = true;
  if (s.scheduled < 0) s.scheduled = t;
  --receiving_;
  // TensorRT-LLM's active list kept it while its cache was pulled; SGLang's running batch takes
  // it now.
  const bool listed = std::find(running_.begin(), running_.end(), i) != running_.end();
  if (emit_token(i, 1, t)) {
    ++finished_;
    if (listed) std::erase(running_, i);
    return;
  }
  s.slot = slot_;
  if (!listed) running_.push_back(i);
}

// A request whose KV arrived: every prompt token but the last is computed; it runs that one,
// which samples its first token (a decode's cost over the whole prompt).
bool Scheduler::schedule_received(std::uint32_t i, std::uint64_t& budget) {
  Seq& s = seqs_[i];
  const std::uint64_t now = units(s.computed, 0, s);
  if (s.held > now) blocks_.release(s.held - now), s.held = now;
  const std::uint64_t n = std::min(s.num_tokens() - s.computed, budget);
  // Its computed tokens are the prompt's: the waiting loop gives it the lookahead
  // (effective_lookahead_tokens is k once num_computed_tokens > 0).
  const std::uint64_t need = units(s.computed, n + lookahead(s, n), s) - s.held;
  if (need > blocks_.free_units()) return false;
  blocks_.allocate(need);
  s.held += need;
  s.kv = Kv::local;
  s.admitted = true;
  budget -= n;
  batch_.push_back({i, n});
  return true;
}

// SGLang (python/sglang/srt/managers/schedule_policy.py@00550cd1, PrefillAdder): a step is a
// prefill batch or a decode batch, not both (mixed chunks are off by default). A prefill batch
// takes the chunked request's next chunk, then waiting requests while the chunk budget
// (max_num_batched_tokens as chunked_prefill_size) lasts and each one's prompt plus
// min(outputs left, CLIP_MAX_NEW_TOKENS) fits the free tokens less the running requests'
// reservations of new_token_ratio · min(outputs left, CLIP_MAX_NEW_TOKENS). With nothing to
// prefill, every running request decodes; new_token_ratio starts at 0.7, decays linearly to
// 0.7 · 0.14 over 600 decode steps and returns to 0.7 after a retraction (python/sglang/
// global_config.py: SGLANG_INIT_NEW_TOKEN_RATIO, SGLANG_MIN_NEW_TOKEN_RATIO_FACTOR,
// SGLANG_NEW_TOKEN_RATIO_DECAY_STEPS). A prefill batch never retracts: the chunked request's
// chunk is cut to the free tokens (PrefillAdder.add_chunked_req truncates to the tokens left)
// and, when none are free, the step decodes instead; SGLang retracts only before a decode batch
// (Scheduler.update_running_batch: check_decode_mem fails -> ScheduleBatch.retract_decode;
// python/sglang/srt/managers/scheduler.py and schedule_batch.py, sgl-project/sglang@0003215c).
// Retraction here takes the running list's tail, as vLLM's preemption does (SGLang's
// retract_decode orders by output length; not modelled).
void Scheduler::schedule_sglang(double& load_s) {
  if (transfer_) preallocate();
  std::uint64_t budget = cfg_.max_num_batched_tokens;
  double rem = static_cast<double>(blocks_.free_units() * unit_ * pool_.block_size);
  // Under pipeline stages the reservations are the scheduled micro-batch's running batch's
  // (self.running_batch = running_mbs[mb_id] when its batch is formed, scheduler_pp_mixin.py).
  for (auto i : running_)
    if (in_slot(i)) rem -= ratio_ * static_cast<double>(clipped_output(seqs_[i]));
  for (std::size_t k = 0; k < running_.size() && budget > 0; ++k) {
    if (!prefilling(seqs_[running_[k]])) continue;
    const std::uint64_t before = budget;
    if (!schedule_running(running_[k], budget, /*may_preempt=*/false)) break;
    // add_chunked_req -> _update_prefill_budget: the chunk's tokens leave the free tokens that
    // the requests admitted after it in this step are checked against.
    rem -= static_cast<double>(before - budget);
    // The chunked request is the scheduler's, not a micro-batch's: its next chunk goes into the
    // micro-batch being formed, whose running batch it joins when its last chunk has run.
    if (before > budget) seqs_[running_[k]].slot = slot_;
  }
  bool chunked = false;
  for (const auto& [i, n] : batch_)
    chunked = chunked || seqs_[i].computed + n < seqs_[i].num_tokens();
  while (!chunked && !waiting_.empty() && budget > 0 && running_.size() < max_running_ &&
         slot_running() < slot_max() && step_preempted_ == 0) {
    const auto i = waiting_.front();
    if (seqs_[i].kv == Kv::awaiting) break;  // waits for its preallocation
    if (!schedule_waiting(i, budget, load_s, &rem)) break;
    waiting_.pop_front();
    running_.push_back(i);
    seqs_[i].slot = slot_;
    chunked = seqs_[i].computed + batch_.back().second < seqs_[i].num_tokens();
  }
  if (!batch_.empty()) slot_batch_[slot_] = BatchMode::extend;
  if (!batch_.empty() || step_preempted_ > 0) return;
  std::uint64_t unbounded = ~std::uint64_t{0};  // decodes are not held to the chunk size
  for (std::size_t k = 0; k < running_.size(); ++k) {
    if (prefilling(seqs_[running_[k]]) || !in_slot(running_[k])) continue;
    if (!schedule_running(running_[k], unbounded)) break;
  }
  // The ratio moves with a decode batch (update_running_batch), not with a micro-batch that had
  // nothing to run.
  if (batch_.empty() && step_preempted_ == 0) return;
  if (!batch_.empty()) slot_batch_[slot_] = BatchMode::decode;
  const double init = kSglangInitNewTokenRatio, floor = init * kSglangMinNewTokenRatioFactor;
  ratio_ =
      step_preempted_ > 0 ? init : std::max(floor, ratio_ - (init - floor) / kSglangDecaySteps);
}

// TensorRT-LLM's in-flight batching (PyTorch backend, pp 1). Sources, NVIDIA/TensorRT-LLM:
//   cpp/tensorrt_llm/batch_manager/capacityScheduler.cpp@02a10fed0dbf5db74c7da035be9c5fbef6d2df7a
//     (GuaranteedNoEvictScheduler::impl, MaxUtilizationScheduler::operator()),
//   cpp/tensorrt_llm/batch_manager/scheduledBlocksManager.cpp@ca64fd93be51dc8dae7e87fd7018976517acd586,
//   cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp@b35ac1b64368513d215c57d2ed01d62d910df8da
//     (getNeededBlocksOneStep, getRemainingBlocksToCompletion),
//   cpp/tensorrt_llm/batch_manager/microBatchScheduler.cpp@0a949d3128bfaf4ddedefb0259125622a9ec830f,
//   tensorrt_llm/_torch/pyexecutor/py_executor.py (max_num_active_requests =
//     get_max_num_sequences(): max_batch_size with pp 1; new requests fetched FCFS).
// running_ is TensorRT-LLM's active request list (arrival order; a paused request keeps its
// place), waiting_ the executor's queue behind it.
// The active list takes the waiting requests up to max_batch_size, then the capacity scheduler's
// policy picks what fits (gen_init: remote requests that may start pulling their cache).
std::vector<std::uint32_t> Scheduler::trtllm_fitting(std::vector<std::uint32_t>& gen_init) {
  while (!waiting_.empty() && running_.size() < max_running_) {
    running_.push_back(waiting_.front());
    waiting_.pop_front();
  }
  return cfg_.capacity_policy == CapacityPolicy::guaranteed_no_evict
             ? trtllm_no_evict(gen_init)
             : trtllm_max_utilization(gen_init);
}

void Scheduler::schedule_trtllm() {
  std::vector<std::uint32_t> gen_init;
  const auto fitting = trtllm_fitting(gen_init);
  // _prepare_disagg_gen_init: the admitted generation-only requests get their prompt's blocks
  // and pull the cache (resource_manager.py prepare_resources: add_sequence(prompt_len)); they
  // stay in the active list and join a step when the transfer is complete (take_ready).
  for (auto i : gen_init) start_receive(i);
  trtllm_micro_batch(fitting);
  for (const auto& [i, n] : trtllm_plan_) trtllm_run(i, n);
}

// The blocks a request holds after its next step (KVCacheManager.prepare_resources): a context's
// first chunk adds the sequence with its whole prompt's blocks (add_sequence(prompt_len)), a later
// chunk nothing (they were taken with the first), a generation step the block its token opens
// (add_token), if any.
std::uint64_t Scheduler::trtllm_target(const Seq& s) const {
  if (s.held == 0) return units(s.num_tokens(), 0, s);
  if (prefilling(s)) return s.held;
  return units(s.computed, 1, s);
}

// getNeededBlocksOneStep: what the next step adds to what the request holds.
std::uint64_t Scheduler::trtllm_one_step(const Seq& s) const { return trtllm_target(s) - s.held; }

// GuaranteedNoEvictScheduler: every request in generation runs, and its blocks to completion
// (prompt + max_new_tokens, less what it holds) are set aside; then the others (contexts, new
// or part-computed) in list order while their own blocks to completion fit what is left; the
// first that does not fit stops the pass (head of line). At most max_batch_size requests.
// A disaggregated generation server's remote requests: those whose cache is being pulled do not
// run, those waiting for blocks go before the contexts, each needing its blocks to completion;
// the first that does not fit stops them, not the contexts (capacityScheduler.cpp@
// 02a10fed0dbf5db74c7da035be9c5fbef6d2df7a GuaranteedNoEvictScheduler::impl,
// pendingDisGenInitRequests). TensorRT-LLM's scheduler, as read, sets nothing aside for a request
// whose cache is being pulled (its state is skipped), which lets later admissions count its
// decode blocks as free and run the pool dry once all decode; kvplan sets its blocks to
// completion aside, as for a request in generation.
std::vector<std::uint32_t> Scheduler::trtllm_no_evict(std::vector<std::uint32_t>& gen_init) {
  std::vector<std::uint32_t> fit, pending, remote;
  auto avail = static_cast<std::int64_t>(blocks_.free_units());
  for (auto i : running_) {
    if (fit.size() >= max_running_) break;
    const Seq& s = seqs_[i];
    if (s.kv == Kv::receiving) {
      avail -= static_cast<std::int64_t>(trtllm_total(s) - s.held);
      continue;
    }
    if (s.kv == Kv::awaiting) {
      remote.push_back(i);
      continue;
    }
    if (prefilling(s)) {
      pending.push_back(i);
      continue;
    }
    fit.push_back(i);
    avail -= static_cast<std::int64_t>(trtllm_total(s) - s.held);
  }
  for (auto i : remote) {
    if (fit.size() + gen_init.size() >= max_running_) break;
    const auto need = static_cast<std::int64_t>(trtllm_total(seqs_[i]));
    if (need > avail) break;
    gen_init.push_back(i);
    avail -= need;
  }
  for (auto i : pending) {
    if (fit.size() >= max_running_) break;
    const Seq& s = seqs_[i];
    const auto need = static_cast<std::int64_t>(trtllm_total(s) - s.held);
    if (need > avail) break;
    fit.push_back(i);
    avail -= need;
  }
  return fit;
}

// MaxUtilizationScheduler: requests in list order while the blocks of their next step fit the
// free pool (beside those already counted this step). When one does not, the last started
// request (in generation, or a context past its first chunk) from the list's end back to this
// one is paused and this one tried again; with none started there, the pass stops. A paused
// request frees its blocks and later recomputes its prompt and outputs as a new context
// (LlmRequest::pause: the generated tokens join the prompt), keeping its place in the list.
// A remote request waiting for blocks needs its prompt's (getNeededBlocksOneStep); one whose
// cache is being pulled is skipped, and neither is paused. Where a remote request does not fit,
// the pass stops (the pause of a later started request to make room is not modelled for it).
std::vector<std::uint32_t> Scheduler::trtllm_max_utilization(std::vector<std::uint32_t>& gen_init) {
  std::vector<std::uint32_t> fit;
  std::uint64_t scheduled = 0;
  std::size_t end = running_.size();
  for (std::size_t k = 0; k < end;) {
    const Seq& s = seqs_[running_[k]];
    if (s.kv == Kv::receiving) {
      ++k;
      continue;
    }
    if (s.kv == Kv::awaiting) {
      const std::uint64_t need = units(0, s.req->prompt_tokens, s);
      if (fit.size() + gen_init.size() >= max_running_ || scheduled + need > blocks_.free_units())
        break;
      scheduled += need;
      gen_init.push_back(running_[k++]);
      continue;
    }
    const std::uint64_t need = trtllm_one_step(s);
    if (fit.size() + gen_init.size() < max_running_ && scheduled + need <= blocks_.free_units()) {
      scheduled += need;
      fit.push_back(running_[k++]);
      continue;
    }
    std::size_t j = end;
    while (j > k && (seqs_[running_[j - 1]].held == 0 || seqs_[running_[j - 1]].kv != Kv::local))
      --j;
    if (j == k) break;
    drop_for_recompute(running_[j - 1]);  // paused: it stays in the active list
    end = j - 1;
  }
  return fit;
}

// MicroBatchScheduler: the capacity scheduler's requests in its order until max_batch_size of
// them or max_num_tokens tokens. A generation step is 1 token. Without chunked context a context
// goes whole or the step stops there; with it, the contexts are collected and, when together they
// exceed what the generations left, cut first-come-first-served (chunk = min(rest, capacity),
// rounded down to tokens_per_block when cut; a chunk of 0 waits).
void Scheduler::trtllm_micro_batch(const std::vector<std::uint32_t>& fitting) {
  trtllm_plan_.clear();
  const std::uint64_t max_tokens = cfg_.max_num_batched_tokens;
  std::uint64_t tokens = 0, count = 0, context_tokens = 0;
  std::vector<std::uint32_t> contexts;
  for (auto i : fitting) {
    const Seq& s = seqs_[i];
    const std::uint64_t n = s.num_tokens() - s.computed;
    if (prefilling(s) && cfg_.enable_chunked_context) {
      contexts.push_back(i);
      context_tokens += n;
    } else {
      if (tokens + n > max_tokens) break;
      trtllm_plan_.push_back({i, n});
      tokens += n;
    }
    if (++count >= max_running_) break;
  }
  std::uint64_t capacity = max_tokens - tokens;
  const bool all_fit = context_tokens <= capacity;
  for (auto i : contexts) {
    const Seq& s = seqs_[i];
    const std::uint64_t rest = s.num_tokens() - s.computed;
    std::uint64_t chunk = all_fit ? rest : std::min(rest, capacity);
    if (chunk != rest) chunk = chunk / pool_.block_size * pool_.block_size;
    if (!all_fit) capacity -= chunk;
    if (chunk > 0) trtllm_plan_.push_back({i, chunk});
  }
}

Scheduler::AdpPlan Scheduler::adp_plan(double t) {
  if (t > t_) {  // idle since its last step, or the server's first
    sample_until(t);
    t_ = t;
    stepped_ = false;
  }
  stalled_ = false;
  admit(async_ && stepped_ ? prev_start_ : t_, t_);
  if (running_.empty() && waiting_.empty()) receive_idle();  // an idle loop takes it at once
  batch_.clear();
  trtllm_plan_.clear();
  step_preempted_ = 0;
  AdpPlan p;
  p.active = !running_.empty() || !waiting_.empty();
  if (!p.active) return p;
  std::vector<std::uint32_t> gen_init;  // aggregated serving: no generation-only requests
  trtllm_micro_batch(trtllm_fitting(gen_init));
  for (const auto& [i, n] : trtllm_plan_) ++(prefilling(seqs_[i]) ? p.contexts : p.generations);
  p.free_slot = p.generations < max_running_;
  return p;
}

double Scheduler::adp_start(bool hold_contexts) {
  for (const auto& [i, n] : trtllm_plan_)
    if (!hold_contexts || !prefilling(seqs_[i])) trtllm_run(i, n);
  if (batch_.empty()) {
    // Nothing planned at all for requests that are here: the engine refuses them (as a turn
    // that schedules nothing); held contexts alone wait for the next step.
    if (trtllm_plan_.empty() && (!running_.empty() || !waiting_.empty())) settle_empty_step();
    return 0;
  }
  adp_batch_ = start_batch(t_);
  return step_seconds(adp_batch_, 0);
}

void Scheduler::adp_finish(double t, double dt) {
  sample_until(t_);
  account(t_, dt);
  if (!batch_.empty()) {
    if (opt_.on_step) opt_.on_step(step_record(t_, dt, adp_batch_));
    prev_start_ = t_, stepped_ = true;
    ++res_.steps;
  } else {
    stepped_ = false;  // it sat through the other groups' step
  }
  t_ = t + dt;
  if (!batch_.empty()) finished_ += emit_tokens(t_);
}

// Runs `n` tokens of request `i` this step, taking the blocks of trtllm_target.
void Scheduler::trtllm_run(std::uint32_t i, std::uint64_t n) {
  Seq& s = seqs_[i];
  const std::uint64_t target = trtllm_target(s);
  const std::uint64_t need = target - s.held;
  if (need > blocks_.free_units())
    throw Error(ErrorKind::internal, w_.source, "scheduler",
                "the capacity scheduler admitted a step needing " + std::to_string(need) +
                    " blocks with " + std::to_string(blocks_.free_units()) + " free");
  blocks_.allocate(need);
  s.held = target;
  s.admitted = true;
  batch_.push_back({i, n});
}

// cache_full_blocks: the request's newly completed full prompt blocks become cache entries.
void Scheduler::publish_blocks(Seq& s) {
  const std::uint64_t full = std::min(s.computed, s.req->prompt_tokens) / pool_.block_size;
  while (s.entries.size() < full && s.entries.size() < s.hashes.size()) {
    const auto e = blocks_.publish(s.hashes[s.entries.size()]);
    if (e < 0) return;  // another request holds that block: ours stays private, and so the rest
    s.entries.push_back(static_cast<std::uint32_t>(e));
  }
}

void Scheduler::finish(std::uint32_t i, double t) {
  Seq& s = seqs_[i];
  s.finish = t;
  s.done = true;
  if (driven_) done_.push_back({i, t});
  free_seq(s);
  std::vector<std::uint64_t>().swap(s.hashes);  // memory stays with the requests in flight
  for (auto j : next_[i]) arrive(j, std::max(w_.requests[j].arrival_s, t + w_.requests[j].think_s));
}

void Scheduler::sample_until(double t) {
  while (next_sample_ <= t) {
    if (res_.kv_series.size() >= kMaxSamples) {
      auto& v = res_.kv_series;
      std::size_t k = 0;
      for (std::size_t j = 0; j < v.size(); j += 2) v[k++] = v[j];
      v.resize(k);
      interval_ *= 2;
      next_sample_ = v.back().t_s + interval_;
      continue;
    }
    res_.kv_series.push_back(KvSample{.t_s = next_sample_,
                                      .blocks_used = (units_ - blocks_.free_units()) * unit_,
                                      .blocks_total = pool_.usable_blocks,
                                      .running = running_.size(),
                                      .waiting = waiting_.size(),
                                      .preemptions = preemptions_});
    next_sample_ += interval_;
  }
}

// Refused on arrival: prompt + output over max_model_len (vLLM's and SGLang's check; for
// TensorRT-LLM, max_seq_len), and what the engine refuses besides (EngineScheduling).
bool Scheduler::refused_on_arrival(const SimRequest& r, bool remote) const {
  if (add(r.prompt_tokens, r.output_tokens) > cfg_.plan.context) return true;
  if (remote) return !remote_fits_pool(r);
  return engine_.refuses_on_arrival(cfg_, r);
}

// Whether a remote request could ever be admitted by this (decode) replica, its pool empty:
// SGLang's preallocation needs the prompt + 512 reserved tokens, TensorRT-LLM's
// GUARANTEED_NO_EVICT the blocks to completion, the others the prompt's blocks. One that could
// not would wait at the head of the queue for ever: it is refused on arrival instead.
bool Scheduler::remote_fits_pool(const SimRequest& r) const {
  const std::uint64_t p = r.prompt_tokens;
  switch (engine_.remote_kv()) {
    case RemoteKv::before_prefill:
      return add(p, kSglangReservedDecodeTokens) <= units_ * unit_ * pool_.block_size;
    case RemoteKv::after_prefill_token_sent:
      if (cfg_.capacity_policy == CapacityPolicy::guaranteed_no_evict)
        return pool_.blocks(add(p, r.output_tokens), 0, p) / unit_ <= units_;
      break;
    case RemoteKv::after_prefill:
      break;
  }
  return pool_.blocks(0, p, p) / unit_ <= units_;
}

// Transfers done by the cutoff (replica.hpp). SGLang's decode loop polls them on every pass
// (process_decode_queue), whatever its receive interval holds back of new requests.
void Scheduler::take_ready(double cutoff, double t) {
  // Transfers done by the cutoff: back to the head of the queue in the order they were sent
  // (vLLM prepends the requests it skipped while they waited for their KV).
  std::vector<std::uint32_t> back;
  while (!ready_.empty() && ready_.top().first <= cutoff) {
    const auto i = ready_.top().second;
    ready_.pop();
    if (engine_.remote_kv() != RemoteKv::after_prefill) {
      take_prebuilt(i, t);
      continue;
    }
    Seq& s = seqs_[i];
    s.kv = Kv::received;
    s.computed = s.req->prompt_tokens - 1;
    --receiving_;
    back.push_back(i);
  }
  waiting_.insert(waiting_.begin(), back.begin(), back.end());
}

// Arrivals up to `cutoff` join the waiting queue in arrival order (ties by id), queued at t. A
// request that exceeds max_model_len is refused on arrival, as vLLM rejects it
// (refused_on_arrival).
void Scheduler::admit(double cutoff, double t) {
  take_ready(cutoff, t);
  while (!arrivals_.empty() && arrivals_.top().first <= cutoff) {
    const auto i = arrivals_.top().second;
    arrivals_.pop();
    if (refused_on_arrival(*seqs_[i].req, seqs_[i].kv != Kv::local)) {
      // Refused: its later turns arrive as if it had finished on arrival.
      for (auto j : next_[i])
        arrive(j, std::max(w_.requests[j].arrival_s, seqs_[i].arrival + w_.requests[j].think_s));
      continue;
    }
    seqs_[i].queued = t;
    waiting_.push_back(i);
  }
}

// SGLang's SchedulerRecvSkipper (python/sglang/srt/managers/scheduler_recv_skipper.py@70310f05,
// weights from environ.py: SGLANG_SCHEDULER_RECV_SKIPPER_WEIGHT_DECODE, _TARGET_VERIFY and _NONE
// 1, _DEFAULT 1000): each pass of the event loop adds the weight of the batch it ran last (none
// or a decode batch 1, a prefill batch 1000) and takes new requests in when the sum reaches
// --scheduler-recv-interval, then counts from 0 again. Under pipeline stages the batch is the one
// the micro-batch about to be formed ran last (event_loop_pp: self.last_batch = last_mbs[mb_id],
// which keeps the micro-batch's last batch while it forms none).
// An idle loop spins, one weight a pass, so it takes an arrival in at once (turn, turn_slots).
// Every engine but SGLang, and SGLang at an interval of 1 (no skipper), take them in every turn.
bool Scheduler::receives(std::uint32_t slot) {
  if (recv_interval_ <= 1) return true;
  if (std::exchange(same_loop_, false)) return false;  // the retraction's loop runs its batch
  // Without stages the last batch is the one the last pass ran, none when it ran nothing; under
  // them a micro-batch keeps the last batch it ran (last_mbs[mb_id] changes only when it runs).
  const BatchMode last = pipeline_ == Pipeline::micro_batches
                             ? slot_batch_[slot]
                             : std::exchange(slot_batch_[slot], BatchMode::none);
  recv_counter_ += last == BatchMode::extend ? 1000 : 1;
  if (recv_counter_ < recv_interval_) return false;
  recv_counter_ = 0;
  return true;
}

// An idle engine loop spins until it receives: it takes what has arrived in at once, and
// SGLang's receive counter starts again.
void Scheduler::receive_idle() {
  recv_counter_ = 0;
  admit(t_, t_);
}

// The engine's scheduler fills batch_; false when it only preempted (blocks were freed: schedule
// again). Throws when it can schedule nothing.
bool Scheduler::form_batch(double& load_s) {
  batch_.clear();
  step_preempted_ = 0;
  switch (engine_.loop()) {
    case SchedulerLoop::vllm_v1:
      schedule_vllm(load_s);
      break;
    case SchedulerLoop::sglang:
      schedule_sglang(load_s);
      break;
    case SchedulerLoop::trtllm_inflight:
      schedule_trtllm();
      break;
  }
  if (batch_.empty()) {
    settle_empty_step();
    return false;
  }
  return true;
}

// A step that scheduled nothing: fine when it preempted (blocks were freed: schedule again) or
// every request that could run waits for its KV (stalled: idle until a transfer ends); else the
// engine refuses what it holds, or the scheduler is wrong (throws either way).
void Scheduler::settle_empty_step() {
  if (step_preempted_ > 0) return;
  if (receiving_ > 0) {
    stalled_ = true;
    return;
  }
  engine_.refuse_empty_step(cfg_, w_.source);
  throw Error(
      ErrorKind::internal, w_.source, "scheduler",
      "a step scheduled nothing with " + std::to_string(waiting_.size()) + " requests waiting");
}

// The batch's shape for the step-time model; a request's first scheduled step starts at t.
StepBatch Scheduler::start_batch(double t) {
  StepBatch b;
  for (const auto& [i, n] : batch_) {
    Seq& s = seqs_[i];
    if (s.scheduled < 0) s.scheduled = t;
    if (s.decoding()) {
      // The decode token and its drafts (n − 1), each attending to what precedes it.
      ++b.decode_tokens;
      b.spec_tokens += n - 1;
      b.decode_pairs += pool_.policy.kind == PolicyKind::full
                            ? n * s.computed + n * (n + 1) / 2
                            : n * retained(pool_.policy, s.computed + n, s.req->prompt_tokens);
    } else {
      b.prefill_tokens += n;
      ++b.prefill_seqs;
      b.prefill_pairs += n * s.computed + n * (n + 1) / 2;
    }
    b.kv_read_bytes += pool_.seq_bytes(s.computed + n, s.req->prompt_tokens);
  }
  // The drafter runs every step: a first pass over the step's tokens (keeping its own KV in
  // step), then k − 1 passes over its requests (llm_base_proposer.py@00c4f22d propose).
  if (spec_k_ > 0) {
    b.draft_passes = static_cast<std::uint32_t>(spec_k_);
    b.draft_layers = cfg_.plan.draft_layers;
  }
  return b;
}

double Scheduler::step_seconds(const StepBatch& b, double load_s) const {
  const double dt = timer_.seconds(b) + load_s;
  if (!(dt > 0) || !std::isfinite(dt))
    throw Error(ErrorKind::internal, w_.source, "step_time",
                "the step-time model returned " + std::to_string(dt) + " s");
  return dt;
}

// The step as SimOptions::on_step sees it: every running request, scheduled or not.
StepRecord Scheduler::step_record(double t, double dt, const StepBatch& b) const {
  StepRecord r;
  r.t_s = t, r.seconds = dt, r.batch = b;
  for (auto i : running_) {
    const Seq& s = seqs_[i];
    std::uint64_t n = 0;
    for (const auto& [j, m] : batch_)
      if (j == i) n = m;
    r.seqs.push_back({s.req->id, s.computed, n, s.held * unit_, s.entries.size() * unit_});
  }
  r.blocks_used = (units_ - blocks_.free_units()) * unit_;
  r.blocks_cached_free = blocks_.cached_free() * unit_;
  r.waiting = waiting_.size();
  r.preempted = step_preempted_;
  return r;
}

// The step's tokens, at its end t: a prefill that reaches its last token and every decode emit
// one. Returns the requests it finished.
std::uint64_t Scheduler::emit_tokens(double t) {
  std::uint64_t finished = 0;
  for (const auto& [i, n] : batch_) {
    Seq& s = seqs_[i];
    s.computed += n;
    // Drafts: the accrued share of those verified is accepted, the rest rejected and no longer
    // computed (update_from_output: num_computed_tokens −= num_rejected); the request emits
    // 1 + accepted tokens, cut at its max_tokens (check_stop per token).
    std::uint64_t accepted = 0;
    if (s.drafts > 0) {
      for (std::uint64_t d = 0; d < s.drafts; ++d)
        s.spec_credit += cfg_.plan.vllm().spec_acceptance[d];
      accepted = std::min(s.drafts, static_cast<std::uint64_t>(s.spec_credit));
      s.spec_credit -= static_cast<double>(accepted);
      s.computed -= s.drafts - accepted;
      s.drafts = 0;
    }
    if (caching_) publish_blocks(s);
    if (s.computed < s.num_tokens()) continue;
    if (emit_token(i, 1 + accepted, t)) ++finished;
  }
  if (finished > 0) std::erase_if(running_, [&](std::uint32_t i) { return seqs_[i].done; });
  return finished;
}

// Request i samples its next tokens at t (cut at its max_tokens); true when that finishes it.
bool Scheduler::emit_token(std::uint32_t i, std::uint64_t tokens, double t) {
  Seq& s = seqs_[i];
  s.generated += std::min(tokens, s.req->output_tokens - s.generated);
  if (s.first_token < 0) {
    s.first_token = t;
  } else {
    acc_[std::min<std::size_t>(s.req->stage, acc_.size() - 1)].itl.add((t - s.last_token) * 1e3);
  }
  s.last_token = t;
  if (s.generated < s.req->output_tokens) return false;
  finish(i, t);
  return true;
}

// A micro-batch's tokens, at its end t. Its tokens were counted computed when it was scheduled,
// as vLLM's _update_after_schedule counts them, so a request samples when the micro-batch
// reached its last token then and still does now. A request preempted while the micro-batch was
// in flight keeps the token that pass sampled, as vLLM's update_from_output appends it (only a
// finished request is skipped; a preempted one can even finish in the waiting queue,
// stopped_preempted_reqs: vllm/v1/core/sched/scheduler.py@00024d31), and recomputes it with the
// rest when it runs again; a pass scheduled before such a token came back samples nothing (its
// tokens no longer reach the last).
std::uint64_t Scheduler::emit_micro_batch(const MicroBatch& m, double t) {
  std::uint64_t finished = 0;
  for (const InFlight& f : m.items) {
    Seq& s = seqs_[f.seq];
    if (s.done) continue;
    const bool preempted = s.preemptions != f.preempted;
    if (caching_ && !preempted) publish_blocks(s);
    if (f.ends && (preempted || s.computed == s.num_tokens()) && emit_token(f.seq, 1, t))
      ++finished;
  }
  if (finished > 0) {
    std::erase_if(running_, [&](std::uint32_t i) { return seqs_[i].done; });
    std::erase_if(waiting_, [&](std::uint32_t i) { return seqs_[i].done; });
  }
  return finished;
}

// Cancellation and progress, every 1024 steps.
void Scheduler::check_in(std::uint64_t finished, std::uint64_t total,
                         std::uint64_t& last_progress) const {
  if ((res_.steps & 1023) != 0) return;
  if (opt_.cancel && opt_.cancel->load()) throw Error(w_.source, "simulate", "cancelled");
  if (opt_.progress && finished - last_progress >= total / 100 + 1) {
    opt_.progress(static_cast<double>(finished) / static_cast<double>(total));
    last_progress = finished;
  }
}

// When the replica next has something to do (Replica::next_event).
double Scheduler::next_event() const {
  if (!queue_.empty()) return t_;  // the oldest micro-batch to wait for
  if (!stalled_ && (!running_.empty() || !waiting_.empty())) return t_;
  double next = std::numeric_limits<double>::infinity();
  if (!arrivals_.empty()) next = arrivals_.top().first;
  if (!ready_.empty()) next = std::min(next, ready_.top().first);
  return std::max(next, t_);
}

// An idle engine jumps to its next event; false when nothing is pending.
bool Scheduler::advance_to_next_event() {
  const double next = next_event();
  if (!std::isfinite(next)) return false;
  if (next > t_) {
    sample_until(next);
    t_ = next;
    stepped_ = false;
  }
  return true;
}

// One turn of the engine loop: an idle engine jumps to its next event, then admits what has
// arrived and runs one step. With async scheduling an arrival joins the step after the one
// being run (admit's cutoff is that step's start); an idle engine schedules an arrival at once.
// False when nothing is pending.
bool Scheduler::turn() {
  if (pipeline_ == Pipeline::batch_queue) return turn_queued();
  if (pipeline_ == Pipeline::micro_batches) return turn_slots();
  if (!advance_to_next_event()) return false;
  stalled_ = false;
  const double cutoff = async_ && stepped_ ? prev_start_ : t_;
  if (receives(0))
    admit(cutoff, t_);
  else if (engine_.remote_kv() == RemoteKv::before_prefill)
    take_ready(cutoff, t_);
  if (running_.empty() && waiting_.empty()) receive_idle();
  if (running_.empty() && waiting_.empty()) return true;
  double load_s = 0;
  if (!form_batch(load_s)) {
    same_loop_ = step_preempted_ > 0;
    return true;
  }
  const StepBatch b = start_batch(t_);
  const double dt = step_seconds(b, load_s);
  if (opt_.on_step) opt_.on_step(step_record(t_, dt, b));
  sample_until(t_);
  account(t_, dt);
  prev_start_ = t_, stepped_ = true;
  t_ += dt;
  ++res_.steps;
  finished_ += emit_tokens(t_);
  return true;
}

// vLLM's engine loop under pipeline parallelism (EngineCore.step_with_batch_queue,
// vllm/v1/engine/core.py@00080ee13c7a451fce071ccb8d0e94d395acf5a7; the queue holds
// max_concurrent_batches = pp micro-batches): while the queue has room it schedules a new
// micro-batch at once ("fulfilling the batch queue has a higher priority than getting model
// outputs"); when it is full, or the scheduler has nothing more to run, it blocks on the oldest
// and takes its tokens. A micro-batch goes through the stages in order, each stage taking its
// 1/pp of the step time (the layers split evenly, the activations' transfers with them) once it
// is done with the micro-batch before: stage s ends it at max(its start, stage s's last end)
// + step / pp.
bool Scheduler::turn_queued() {
  if (queue_.empty() && !advance_to_next_event()) return false;
  stalled_ = false;
  admit(t_, t_);
  double load_s = 0;
  if (queue_.size() < stages() && (!running_.empty() || !waiting_.empty()) &&
      schedule_micro_batch(load_s))
    return true;
  if (queue_.empty()) return true;  // stalled on a transfer: next_event says until when
  wait_for_oldest();
  return true;
}

// Waits for the oldest pass in flight to leave its last stage and takes its tokens.
void Scheduler::wait_for_oldest() {
  const MicroBatch m = std::move(queue_.front());
  queue_.pop_front();
  if (m.done_at > t_) {
    sample_until(m.done_at);
    account(t_, m.done_at - t_);
    t_ = m.done_at;
  }
  finished_ += emit_micro_batch(m, t_);
}

// SGLang's engine loop under pipeline parallelism (SchedulerPPMixin.event_loop_pp,
// python/sglang/srt/managers/scheduler_pp_mixin.py@00ff98d34dc4ce18f05bcf01b3833a19fe3ed5c9):
// pp micro-batches (pp_async_batch_depth 0, server_args.py), each with its own running batch, in
// turn: micro-batch k's next batch is formed from its running batch and the waiting queue
// (get_next_batch_to_run: a prefill batch when there is one, else its decodes; at most
// pp_max_micro_batch_size = max(max_running_requests // pp, 1) requests, scheduler.py), run,
// and then the loop waits for micro-batch k + 1's pass (mod pp) and takes its tokens before it
// forms k + 1's next batch. The stages are the flow shop of turn_queued. Passes are launched in
// micro-batch order, each micro-batch with at most one in flight, so the oldest in flight is the
// first micro-batch after k that has one: k + 1's when queue_'s front is a pass of k + 1.
bool Scheduler::turn_slots() {
  const bool flying = !queue_.empty();
  if (!flying && !advance_to_next_event()) return false;
  stalled_ = false;
  if (receives(slot_))
    admit(t_, t_);
  else if (engine_.remote_kv() == RemoteKv::before_prefill)
    take_ready(t_, t_);
  if (!flying && running_.empty() && waiting_.empty()) receive_idle();
  if (!running_.empty() || !waiting_.empty()) {
    double load_s = 0;
    batch_.clear();
    step_preempted_ = 0;
    schedule_sglang(load_s);
    if (!batch_.empty()) {
      queue_.push_back(launch_micro_batch(load_s));
    } else if (step_preempted_ > 0) {
      same_loop_ = true;
      return true;  // retracted: form this micro-batch again
    } else if (!flying && running_.empty()) {
      settle_empty_step();  // nothing runs anywhere: waiting for KV, or refused
      return true;
    }
  }
  const std::uint32_t next = (slot_ + 1) % stages();
  if (!queue_.empty() && queue_.front().slot == next) wait_for_oldest();
  slot_ = next;
  return true;
}

// Schedules one micro-batch into the queue; false when there is nothing to schedule (every
// running request is in flight, or nothing fits) and a micro-batch in flight to wait for.
bool Scheduler::schedule_micro_batch(double& load_s) {
  batch_.clear();
  step_preempted_ = 0;
  schedule_vllm(load_s);
  if (batch_.empty() && step_preempted_ == 0 && !queue_.empty()) return false;
  if (batch_.empty()) {
    settle_empty_step();
    return true;
  }
  queue_.push_back(launch_micro_batch(load_s));
  return true;
}

// Runs batch_ as a micro-batch from t_: its step time, each stage after the one before and
// after its own last micro-batch, and its tokens counted computed (vLLM's
// _update_after_schedule; SGLang's prepare_for_extend / decode likewise advance them).
Scheduler::MicroBatch Scheduler::launch_micro_batch(double load_s) {
  const StepBatch b = start_batch(t_);
  const double dt = step_seconds(b, load_s);
  if (opt_.on_step) opt_.on_step(step_record(t_, dt, b));
  sample_until(t_);
  double at = t_;
  const double stages = static_cast<double>(stage_free_.size());
  for (double& free_at : stage_free_) free_at = at = std::max(at, free_at) + dt / stages;
  MicroBatch m;
  m.done_at = at;
  m.slot = slot_;
  for (const auto& [i, n] : batch_) {
    Seq& s = seqs_[i];
    s.computed += n;
    m.items.push_back({i, s.computed == s.num_tokens(), s.preemptions});
  }
  ++res_.steps;
  return m;
}

SimResult Scheduler::run() {
  count_refused();
  const std::uint64_t total = seqs_.size();
  while (finished_ + refused_ < total && turn()) check_in(finished_, total, last_progress_);
  return finish_run();
}

void Scheduler::count_refused() {
  refused_ = 0;
  for (const Seq& s : seqs_)
    if (refused_on_arrival(*s.req)) ++refused_;
}

SimResult Scheduler::finish_run() {
  sample_until(t_);
  res_.simulated_s = t_;
  res_.max_running = max_running_;
  res_.async_scheduling = async_;
  summarize();
  return std::move(res_);
}

void Scheduler::summarize() {
  const std::size_t nstages = acc_.size();
  res_.requests.reserve(seqs_.size());
  for (const Seq& s : seqs_) {
    if (driven_ && !s.arrived) continue;  // another replica's request
    RequestResult r{.id = s.req->id,
                    .arrival_s = s.arrival,
                    .prompt_tokens = s.req->prompt_tokens,
                    .output_tokens = s.req->output_tokens,
                    .cached_tokens = s.cached_tokens,
                    .preemptions = s.preemptions,
                    .recomputed_tokens = s.recomputed,
                    .finished = s.done};
    if (s.done) {
      r.queued_s = s.queued, r.scheduled_s = s.scheduled;
      r.first_token_s = s.first_token, r.finish_s = s.finish;
      tally(acc_[std::min<std::size_t>(s.req->stage, nstages - 1)], r, timer_.frontend_s(),
            opt_.slo);
    }
    res_.requests.push_back(r);
  }
  // The whole run's window starts at its first arrival: nothing runs or waits before it.
  double first = res_.simulated_s;
  for (const Seq& s : seqs_)
    if (driven_ ? s.arrived : s.req->after < 0) first = std::min(first, s.arrival);
  summarize_stages(res_, acc_, w_, busy_running_, busy_waiting_, first);
  res_.summary.preemptions = preemptions_;
}

// ∫ running dt and ∫ waiting dt, in the bin of the stage whose time the step starts in (and
// the whole run's bin, the last one).
void Scheduler::account(double t0, double dt) {
  std::size_t bin = 0;
  for (std::size_t k = 0; k < w_.stages.size(); ++k)
    if (t0 >= w_.stages[k].start_s) bin = k;
  const auto r = static_cast<double>(running_.size()), q = static_cast<double>(waiting_.size());
  busy_running_[bin] += r * dt, busy_waiting_[bin] += q * dt;
  busy_running_.back() += r * dt, busy_waiting_.back() += q * dt;
}

}  // namespace detail

bool detail::runs_async_scheduling(const ServingConfig& c) {
  const detail::EngineScheduling& e = detail::engine_scheduling(c.plan.engine);
  const bool pipeline = c.plan.pp > 1 && e.loop() != detail::SchedulerLoop::trtllm_inflight;
  return c.async_scheduling && e.async_scheduling() && !pipeline;
}

bool default_async_scheduling(const PlanInput& plan) {
  return engine_rules(plan).async_scheduling_default(plan);
}

std::uint64_t default_scheduler_seqs(const PlanInput& plan, std::optional<std::uint64_t> stated) {
  if (stated) return *stated;
  return engine_rules(plan).default_max_num_seqs(plan).value_or(0);
}

ServingConfig serving_config_of(const PlanInput& plan, std::optional<std::uint64_t> max_num_seqs) {
  ServingConfig cfg;
  cfg.plan = plan;
  cfg.max_num_seqs = default_scheduler_seqs(plan, max_num_seqs);
  cfg.max_num_batched_tokens = plan.max_num_batched_tokens;
  cfg.async_scheduling = default_async_scheduling(plan);
  return cfg;
}

void check_simulated_engine(Engine engine, const std::string& source, const std::string& field) {
  if (!engine_rules(engine).simulated())
    throw Error(source, field,
                "the serving simulator has no scheduler for " + engine_rules(engine).name());
}

void check_scheduler_setting(Engine engine, SchedulerSetting setting, const std::string& flag) {
  if (detail::engine_scheduling(engine).has(setting)) return;
  std::vector<Engine> owners;  // each engine once (vLLM has several rule sets)
  for (const EngineRules* r : all_engine_rules())
    if (detail::engine_scheduling(r->engine()).has(setting) &&
        std::find(owners.begin(), owners.end(), r->engine()) == owners.end())
      owners.push_back(r->engine());
  if (owners.empty())
    throw Error(ErrorKind::internal, flag, "scheduler", "no engine's scheduler has this setting");
  std::string whose, names;  // "TensorRT-LLM", "trtllm"
  for (const Engine e : owners) {
    whose += (whose.empty() ? "" : " or ") + engine_rules(e).label();
    names += (names.empty() ? "" : " or ") + to_string(e);
  }
  throw Error(flag, flag.substr(std::min<std::size_t>(2, flag.size())),
              "is a " + whose + " setting: it needs --engine " + names + " (" +
                  engine_rules(engine).label() + "'s scheduler has none)");
}

CapacityPolicy parse_capacity_policy(const std::string& text, const std::string& source,
                                     const std::string& field) {
  const std::string t = ascii_lower(text);
  if (t == "guaranteed_no_evict") return CapacityPolicy::guaranteed_no_evict;
  if (t == "max_utilization") return CapacityPolicy::max_utilization;
  throw Error(source, field,
              "unknown capacity scheduler policy \"" + text +
                  "\" (expected guaranteed_no_evict or max_utilization; STATIC_BATCH and "
                  "PREFILL_FIRST are not modelled)");
}

std::string to_string(CapacityPolicy p) {
  return p == CapacityPolicy::guaranteed_no_evict ? "GUARANTEED_NO_EVICT" : "MAX_UTILIZATION";
}

namespace detail {

// The replica's pool (the planner's, with the step budget that sizes vLLM's sliding-window
// pages), after checking the engine and the configuration.
KvPool serving_pool(const ModelSpec& model, const ServingConfig& cfg, const Workload& workload) {
  PlanInput plan = cfg.plan;
  plan.max_num_batched_tokens = cfg.max_num_batched_tokens;  // vLLM's sliding-window pages
  const std::string source = workload.source.empty() ? "serving config" : workload.source;
  check_simulated_engine(plan.engine, source);
  KvPool pool = make_kv_pool(model, plan, source);
  validate(cfg, workload, pool);
  return pool;
}

}  // namespace detail

namespace detail {

// TensorRT-LLM's attention DP (enable_attention_dp): every rank runs its own executor loop on
// its own requests, and each iteration's forward is collective (the MoE layers gather every
// rank's tokens), so the ranks step together and a step lasts as long as the slowest rank's; a
// rank with no request runs a dummy generation request (PyExecutor.
// _pad_attention_dp_dummy_request). With attention_dp_config.enable_balance the ranks all-gather
// their scheduled context and generation counts each iteration and hold every context back
// (PyExecutor._balance_adp_requests, tensorrt_llm/_torch/pyexecutor/py_executor.py, read in a
// copy found by code search):
//   all ranks have a context and a free slot: the wait count resets; if all also generate, the
//     contexts wait while the batching count is below batching_wait_iters (it then resets);
//   else: the wait count grows and the contexts wait, unless it reached timeout_iters or a rank
//     generates nothing (a dummy counts), which releases them and resets it.
std::vector<SimResult> simulate_adp_server(const ModelSpec& model, const ServingConfig& cfg,
                                           const StepTimer& step,
                                           const std::vector<Workload>& shares,
                                           const SimOptions& opt) {
  std::vector<KvPool> pools;
  std::vector<std::unique_ptr<Scheduler>> g;
  for (const Workload& w : shares) {
    pools.push_back(serving_pool(model, cfg, w));
    g.push_back(std::make_unique<Scheduler>(cfg, step, w, opt, pools.back()));
    g.back()->count_refused();
  }
  const TrtllmOptions& o = cfg.plan.trtllm();
  std::uint64_t waiting_iters = 0, batching_iters = 0;
  std::vector<Scheduler::AdpPlan> plans(g.size());
  std::uint64_t total = 0, steps = 0, last_progress = 0;
  for (const auto& s : g) total += s->adp_requests();
  double t = 0;
  const auto pending = [&] {
    return std::any_of(g.begin(), g.end(), [](const auto& s) { return s->adp_pending(); });
  };
  while (pending()) {
    double next = std::numeric_limits<double>::infinity();
    for (const auto& s : g) next = std::min(next, s->next_event());
    if (!std::isfinite(next)) break;
    t = std::max(t, next);
    bool any_active = false;
    for (std::size_t k = 0; k < g.size(); ++k) {
      plans[k] = g[k]->adp_plan(t);
      any_active = any_active || plans[k].active;
    }
    bool hold = false;
    if (o.adp_enable_balance && any_active) {
      bool all_ctx = true, all_gen = true, all_free = true;
      for (const auto& p : plans) {
        const std::uint64_t gens = p.active ? p.generations : 1;  // the dummy request
        all_ctx = all_ctx && p.contexts > 0;
        all_gen = all_gen && gens > 0;
        all_free = all_free && p.free_slot;
      }
      if (all_free && all_ctx) {
        waiting_iters = 0;
        if (all_gen) {
          if (batching_iters < o.adp_batching_wait_iters) {
            ++batching_iters;
            hold = true;
          } else {
            batching_iters = 0;
          }
        }
      } else {
        ++waiting_iters;
        hold = true;
        if (waiting_iters >= o.adp_timeout_iters || !all_gen) {
          waiting_iters = 0;
          hold = false;
        }
      }
    }
    // A hold needs every group generating (a dummy counts) and some group active, so a held
    // step always runs a generation: dt > 0 whenever anything was held.
    double dt = 0;
    for (const auto& s : g) dt = std::max(dt, s->adp_start(hold));
    if (dt == 0) continue;  // nothing here yet: the next event
    for (const auto& s : g) s->adp_finish(t, dt);
    t += dt;
    // Cancellation and progress every 1024 server steps, as Scheduler::check_in.
    if ((++steps & 1023) == 0) {
      if (opt.cancel && opt.cancel->load())
        throw Error(shares.front().source, "simulate", "cancelled");
      std::uint64_t settled = 0;
      for (const auto& s : g) settled += s->adp_settled();
      if (opt.progress && total > 0 && settled - last_progress >= total / 100 + 1) {
        opt.progress(static_cast<double>(settled) / static_cast<double>(total));
        last_progress = settled;
      }
    }
  }
  std::vector<SimResult> out;
  for (std::size_t k = 0; k < g.size(); ++k) {
    SimResult r = g[k]->finish_run();
    r.num_gpu_blocks = pools[k].num_gpu_blocks;
    r.block_size = pools[k].block_size;
    r.attention_free = pools[k].groups.empty();
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace detail

SimResult simulate(const ModelSpec& model, const ServingConfig& cfg, const StepTimer& step,
                   const Workload& workload, const SimOptions& opt) {
  const KvPool pool = detail::serving_pool(model, cfg, workload);
  detail::Scheduler sched(cfg, step, workload, opt, pool);
  SimResult r = sched.run();
  r.num_gpu_blocks = pool.num_gpu_blocks;
  r.block_size = pool.block_size;
  r.attention_free = pool.groups.empty();
  return r;
}

namespace detail {

Replica::Replica(const ModelSpec& model, const ServingConfig& cfg, const StepTimer& timer,
                 const Workload& workload, const SimOptions& opt, Transfer transfer)
    : Replica(serving_pool(model, cfg, workload), cfg, timer, workload, opt, std::move(transfer)) {}

Replica::Replica(const KvPool& pool, const ServingConfig& cfg, const StepTimer& timer,
                 const Workload& workload, const SimOptions& opt, Transfer transfer) {
  num_gpu_blocks_ = pool.num_gpu_blocks;
  block_size_ = pool.block_size;
  attention_free_ = pool.groups.empty();
  s_ = std::make_unique<Scheduler>(cfg, timer, workload, opt, pool, /*driven=*/true,
                                   std::move(transfer));
}
Replica::~Replica() = default;
Replica::Replica(Replica&&) noexcept = default;

bool Replica::refuses(std::uint32_t i, bool remote) const { return s_->refused(i, remote); }
std::uint64_t Replica::cached_prefix(std::uint32_t i) const { return s_->cached_prefix(i); }
void Replica::arrive(std::uint32_t i, double t) { s_->arrive(i, t); }
void Replica::arrive_remote(std::uint32_t i, double t) { s_->arrive_remote(i, t); }
void Replica::kv_ready(std::uint32_t i, double t) { s_->kv_ready(i, t); }
double Replica::next_event() const { return s_->next_event(); }
void Replica::turn() { s_->turn(); }
std::vector<std::pair<std::uint32_t, double>> Replica::take_finished() {
  return s_->take_finished();
}
const std::vector<double>& Replica::busy_running() const { return s_->busy_running(); }
const std::vector<double>& Replica::busy_waiting() const { return s_->busy_waiting(); }
const std::vector<StageAcc>& Replica::tallies() const { return s_->tallies(); }
SimResult Replica::finish() {
  SimResult r = s_->finish_run();
  r.num_gpu_blocks = num_gpu_blocks_;
  r.block_size = block_size_;
  r.attention_free = attention_free_;
  return r;
}

}  // namespace detail

}  // namespace kvplan::sim
