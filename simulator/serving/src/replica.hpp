// Private to the serving simulator: one engine replica driven from outside, so that several
// replicas share one clock (disaggregated serving, disagg.cpp). simulate() runs one replica on
// its own through the same scheduler; here the caller decides who arrives where and when.
//
//   Replica r(model, cfg, timer, workload, opt);      // nothing arrives by itself
//   r.arrive(i, t);                                   // request i of the workload reaches it
//   r.arrive_remote(i, t);                            // ... with its prompt's KV sent from
//   elsewhere while (r.next_event() <= horizon) r.turn();       // one step (or an idle jump) per
//   turn for (auto [i, t] : r.take_finished()) ...         // requests it finished, and when
//
// SGLang's decode side (RemoteKv::before_prefill, engine_scheduling.hpp) preallocates a remote
// request's prompt blocks while it waits, at the start of each pass of its loop, first come first
// served under SGLang's reservation of 512 decode tokens a request (serving.cpp preallocate), and
// calls Transfer then, which returns infinity: the caller starts the prefill and says with
// kv_ready() when the KV is in place; the request then joins the running batch with its first
// token (sampled by the prefill side) and decodes its second.
//
// A remote request (vLLM's P/D connectors: the decode side of a NIXL or Mooncake pair) waits in
// the queue like any other; when it reaches the head and its prompt's blocks fit, they are
// allocated, the transfer starts (Replica::Transfer gives when it ends) and the request leaves
// the queue without a token of the step budget or a running slot (vLLM's scheduler: status
// WAITING_FOR_REMOTE_KVS, num_new_tokens 0). When its KV has arrived it returns to the head of
// the queue with every prompt token but the last computed (vllm/v1/core/sched/scheduler.py
// _update_waiting_for_remote_kv: a full prompt hit recomputes the last token to sample the next)
// and then runs as any request.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "kvplan/kv_pool.hpp"
#include "kvplan/model.hpp"
#include "kvplan/sim/serving.hpp"
#include "run_summary.hpp"

namespace kvplan::sim::detail {

class Scheduler;

// The pool one replica of cfg runs, after checking the engine, cfg and the workload (Error
// naming the field): what every Replica of cfg starts from.
KvPool serving_pool(const ModelSpec& model, const ServingConfig& cfg, const Workload& workload);

// TensorRT-LLM's attention DP: one server's groups, group k running shares[k], stepping
// together (serving.cpp); each group's run as simulate() returns it.
std::vector<SimResult> simulate_adp_server(const ModelSpec& model, const ServingConfig& cfg,
                                           const StepTimer& step,
                                           const std::vector<Workload>& shares,
                                           const SimOptions& opt);

class Replica {
 public:
  // When the KV of request i, `bytes_per_rank` bytes on each of the replica's ranks, is in place
  // if its blocks were allocated at `start_s`.
  using Transfer =
      std::function<double(std::uint32_t i, double start_s, std::uint64_t bytes_per_rank)>;

  // Checks cfg as simulate() does (Error naming the field). The replica keeps references to cfg,
  // timer, workload and opt: they must outlive it.
  Replica(const ModelSpec& model, const ServingConfig& cfg, const StepTimer& timer,
          const Workload& workload, const SimOptions& opt, Transfer transfer = {});
  // With a pool serving_pool() already built and checked for cfg and workload: several replicas
  // of one configuration check the workload once.
  Replica(const KvPool& pool, const ServingConfig& cfg, const StepTimer& timer,
          const Workload& workload, const SimOptions& opt, Transfer transfer = {});
  ~Replica();
  Replica(Replica&&) noexcept;
  Replica& operator=(Replica&&) = delete;

  // True when the engine refuses request i on arrival (prompt + output over max_model_len; a
  // local request also by the engine's own rules, e.g. TensorRT-LLM's max_num_tokens).
  bool refuses(std::uint32_t i, bool remote = false) const;
  // Prompt tokens of request i its prefix cache holds now (whole blocks from the start); 0
  // without prefix caching.
  std::uint64_t cached_prefix(std::uint32_t i) const;
  void arrive(std::uint32_t i, double t);
  void arrive_remote(std::uint32_t i, double t);  // its prompt's KV comes through Transfer
  // The KV of remote request i is in place at t: for an engine whose decode side allocates
  // before the prefill (RemoteKv::before_prefill), whose Transfer returns infinity (the prefill
  // has not run yet) and whose driver says here when the transfer ended.
  void kv_ready(std::uint32_t i, double t);
  // When the replica next has something to do: its clock while it has requests to schedule,
  // else its next arrival or finished transfer; infinity when nothing is pending.
  double next_event() const;
  void turn();  // one step of the engine loop (or a jump to its next event)
  std::vector<std::pair<std::uint32_t, double>> take_finished();
  // Per stage: the ITL of the tokens emitted so far (until finish(), nothing else is tallied).
  const std::vector<StageAcc>& tallies() const;
  // ∫ running dt and ∫ waiting dt per stage bin, the last the whole run's.
  const std::vector<double>& busy_running() const;
  const std::vector<double>& busy_waiting() const;
  // The replica's own run: its requests (only those that arrived), summary, KV series, steps.
  SimResult finish();

 private:
  std::unique_ptr<Scheduler> s_;
  std::uint64_t num_gpu_blocks_ = 0;
  std::uint32_t block_size_ = 0;
  bool attention_free_ = false;  // no KV-cache group
};

}  // namespace kvplan::sim::detail
