// Disaggregated prefill/decode serving: the replicas of both sides on one clock (replica.hpp).
// The request path and its sources are in disagg.hpp; docs/disagg.md has the rest.
#include "kvplan/sim/disagg.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <tuple>

#include "engine_scheduling.hpp"
#include "kvplan/checked.hpp"
#include "kvplan/engine_rules.hpp"
#include "kvplan/error.hpp"
#include "kvplan/sim/serving_report.hpp"
#include "kvplan/text_safe.hpp"
#include "replica.hpp"
#include "run_summary.hpp"

namespace kvplan::sim {

namespace {

constexpr std::uint32_t kMaxReplicas = 1024;
// Every replica keeps a slot (~200 bytes) for every request of the workload, so replicas ×
// requests is bounded: 2^23 slots, about 1.6 GiB (docs/limits.md).
constexpr std::uint64_t kMaxRequestSlots = std::uint64_t{1} << 23;

// A replica chosen for the next request: the next in turn, or the one with the fewest requests
// routed to it and not finished (ties: the lowest index).
class Router {
 public:
  Router(Routing r, std::size_t n) : routing_(r), load_(n, 0) {}
  // `hits` (prefix aware): each replica's cached prompt tokens; the most wins, ties (and every
  // other policy but round robin) the least loaded.
  std::uint32_t pick(const std::vector<std::uint64_t>& hits = {}) {
    std::size_t k = 0;
    if (routing_ == Routing::round_robin) {
      k = next_;
      next_ = (next_ + 1) % load_.size();
    } else {
      for (std::size_t j = 1; j < load_.size(); ++j) {
        const std::uint64_t hj = hits.empty() ? 0 : hits[j], hk = hits.empty() ? 0 : hits[k];
        if (hj > hk || (hj == hk && load_[j] < load_[k])) k = j;
      }
    }
    ++load_[k];
    return static_cast<std::uint32_t>(k);
  }
  void done(std::uint32_t k) { --load_[k]; }

 private:
  Routing routing_;
  std::vector<std::uint64_t> load_;
  std::size_t next_ = 0;
};

// What the driver does next: an arrival (a new request, routed to a prefill replica, or under
// SGLang's order to a decode replica first), a handoff (a prefill done, routed to a decode
// replica) or a preallocation (SGLang: the decode side's blocks are held, the prefill may start);
// ties in time: arrivals, then handoffs, then preallocations, then by request.
struct Event {
  double t = 0;
  int kind = 0;  // 0 arrival, 1 handoff, 2 preallocated
  std::uint32_t i = 0;
  bool operator>(const Event& o) const { return std::tie(t, kind, i) > std::tie(o.t, o.kind, o.i); }
};

class Driver {
 public:
  Driver(const ModelSpec& model, const DisaggConfig& cfg, const StepTimer& prefill_step,
         const StepTimer& decode_step, const Workload& w, const SimOptions& opt)
      : cfg_(cfg),
        w_(w),
        opt_(opt),
        prefill_w_(w),
        prefill_router_(cfg.routing, cfg.prefill_replicas),
        decode_router_(cfg.routing, cfg.decode_replicas),
        link_free_(cfg.decode_replicas, 0.0),
        frontend_s_(prefill_step.frontend_s()),
        before_(detail::engine_scheduling(cfg.decode.plan.engine).remote_kv() ==
                detail::RemoteKv::before_prefill) {
    // The prefill side computes the prompt and samples one token (the proxy's max_tokens 1).
    for (auto& r : prefill_w_.requests) r.output_tokens = 1;
    // Each side's pool is built and the workload checked against it once, not per replica.
    const KvPool prefill_pool = detail::serving_pool(model, cfg.prefill, prefill_w_);
    const KvPool decode_pool = detail::serving_pool(model, cfg.decode, w_);
    for (std::uint32_t k = 0; k < cfg.prefill_replicas; ++k)
      prefill_.emplace_back(prefill_pool, cfg.prefill, prefill_step, prefill_w_, opt_);
    for (std::uint32_t k = 0; k < cfg.decode_replicas; ++k)
      decode_.emplace_back(decode_pool, cfg.decode, decode_step, w_, opt_,
                           [this, k](std::uint32_t i, double t, std::uint64_t bytes) {
                             return before_ ? preallocated(i, t, bytes)
                                            : transfer(k, i, handoff_[i], t, t, bytes);
                           });
    const std::size_t n = w.requests.size();
    next_.assign(n, {});
    path_.assign(n, {});
    handoff_.assign(n, -1);
    requested_.assign(n, -1);
    arrived_.assign(n, -1);
    allocated_.assign(n, -1);
    bytes_.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
      if (w.requests[i].after >= 0)
        next_[static_cast<std::size_t>(w.requests[i].after)].push_back(
            static_cast<std::uint32_t>(i));
      else
        events_.push({w.requests[i].arrival_s, 0, static_cast<std::uint32_t>(i)});
    }
  }

  DisaggResult run();

 private:
  double transfer(std::uint32_t d, std::uint32_t i, double requested_s, double allocated_s,
                  double sendable_s, std::uint64_t bytes_per_rank);
  double preallocated(std::uint32_t i, double t, std::uint64_t bytes_per_rank);
  void route_arrival(std::uint32_t i, double t);
  void route_handoff(std::uint32_t i, double t);
  void later_turns(std::uint32_t i, double t);
  bool step_earliest_replica(double horizon);
  DisaggResult combine();

  const DisaggConfig& cfg_;
  const Workload& w_;
  const SimOptions& opt_;
  Workload prefill_w_;
  std::vector<detail::Replica> prefill_, decode_;
  Router prefill_router_, decode_router_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::vector<std::vector<std::uint32_t>> next_;  // later turns of each request
  struct Path {
    std::uint32_t prefill = 0, decode = 0;
  };
  std::vector<Path> path_;
  std::vector<double> handoff_;  // when each request's prefill was done (−1: not yet)
  // SGLang's order: when each request reached its decode replica, and got its blocks there, and
  // its prompt's KV bytes per rank.
  std::vector<double> requested_, allocated_;
  std::vector<double> arrived_;  // when each request reached the router (−1: not yet)
  std::vector<std::uint64_t> bytes_;
  std::vector<double> link_free_;  // per decode replica: when its link is free
  std::vector<TransferRecord> transfers_;
  double arrival_s_ = std::numeric_limits<double>::infinity();
  double frontend_s_ = 0;
  bool before_ = false;  // the decode side allocates before the prefill (RemoteKv::before_prefill)
  std::uint64_t turns_ = 0, finished_ = 0;
};

// The request's KV on the decode replica's link: from when it can be sent (its blocks held and
// its prefill done), after the transfers before it, for bytes_per_rank / gbps, plus the latency
// and the library's overhead. requested_s: when it began waiting for the decode side's blocks.
double Driver::transfer(std::uint32_t d, std::uint32_t i, double requested_s, double allocated_s,
                        double sendable_s, std::uint64_t bytes_per_rank) {
  const KvLink& l = cfg_.link;
  const double start = std::max(sendable_s, link_free_[d]);
  const double busy = static_cast<double>(bytes_per_rank) / (l.gbps * 1e9);
  link_free_[d] = start + busy;
  const double ready = start + busy + l.latency_s + l.per_request_s;
  const std::uint32_t ranks = cfg_.decode.plan.tp * cfg_.decode.plan.pp;
  transfers_.push_back({.id = w_.requests[i].id,
                        .prefill = path_[i].prefill,
                        .decode = d,
                        .requested_s = requested_s,
                        .handoff_s = handoff_[i],
                        .allocated_s = allocated_s,
                        .start_s = start,
                        .ready_s = ready,
                        .bytes = mul(bytes_per_rank, ranks, "KV transfer bytes")});
  return ready;
}

// SGLang's order: request i's blocks are held on its decode replica at t; its prefill may start.
// Its KV's arrival is known once the prefill is done (Replica::kv_ready).
double Driver::preallocated(std::uint32_t i, double t, std::uint64_t bytes_per_rank) {
  allocated_[i] = t;
  bytes_[i] = bytes_per_rank;
  events_.push({t, 2, i});
  return std::numeric_limits<double>::infinity();
}

// A new request: refused on arrival when either side refuses it (its later turns follow as if
// it had finished), else to a prefill replica; in SGLang's order the router picks both replicas
// at once and the decode replica preallocates first.
void Driver::route_arrival(std::uint32_t i, double t) {
  arrival_s_ = std::min(arrival_s_, t);
  arrived_[i] = t;
  if (decode_.front().refuses(i, /*remote=*/true) || prefill_.front().refuses(i)) {
    for (auto j : next_[i])
      events_.push({std::max(w_.requests[j].arrival_s, t + w_.requests[j].think_s), 0, j});
    return;
  }
  std::vector<std::uint64_t> hits;
  if (cfg_.routing == Routing::prefix_aware)
    for (const auto& r : prefill_) hits.push_back(r.cached_prefix(i));
  path_[i].prefill = prefill_router_.pick(hits);
  if (before_) {
    path_[i].decode = decode_router_.pick();
    requested_[i] = t;
    decode_[path_[i].decode].arrive_remote(i, t);
    return;
  }
  prefill_[path_[i].prefill].arrive(i, t);
}

void Driver::route_handoff(std::uint32_t i, double t) {
  path_[i].decode = decode_router_.pick();
  decode_[path_[i].decode].arrive_remote(i, t);
}

void Driver::later_turns(std::uint32_t i, double t) {
  for (auto j : next_[i])
    events_.push({std::max(w_.requests[j].arrival_s, t + w_.requests[j].think_s), 0, j});
}

// Runs one turn of the replica with the earliest next event if it is before `horizon` (the next
// arrival or handoff); false when no replica has anything to do by then.
bool Driver::step_earliest_replica(double horizon) {
  detail::Replica* best = nullptr;
  bool is_prefill = false;
  std::uint32_t index = 0;
  double when = horizon;
  for (std::uint32_t k = 0; k < prefill_.size(); ++k)
    if (const double t = prefill_[k].next_event(); t < when)
      best = &prefill_[k], is_prefill = true, index = k, when = t;
  for (std::uint32_t k = 0; k < decode_.size(); ++k)
    if (const double t = decode_[k].next_event(); t < when)
      best = &decode_[k], is_prefill = false, index = k, when = t;
  if (!best) return false;
  best->turn();
  for (const auto& [i, t] : best->take_finished()) {
    if (is_prefill) {
      prefill_router_.done(index);
      handoff_[i] = t;
      if (before_) {  // its blocks wait on the decode side: the KV goes now
        const std::uint32_t d = path_[i].decode;
        decode_[d].kv_ready(i, transfer(d, i, requested_[i], allocated_[i], t, bytes_[i]));
      } else {
        events_.push({t, 1, i});
      }
    } else {
      decode_router_.done(index);
      ++finished_;
      later_turns(i, t);
    }
  }
  if ((++turns_ & 1023) == 0) {
    if (opt_.cancel && opt_.cancel->load()) throw Error(w_.source, "simulate", "cancelled");
    if (opt_.progress && !w_.requests.empty())
      opt_.progress(static_cast<double>(finished_) / static_cast<double>(w_.requests.size()));
  }
  return true;
}

DisaggResult Driver::run() {
  for (;;) {
    const double next_event =
        events_.empty() ? std::numeric_limits<double>::infinity() : events_.top().t;
    // Replicas whose next event is before the next arrival or handoff go first; at equal times
    // the arrival or handoff goes first, so a replica stepping at t sees what arrived at t.
    if (step_earliest_replica(next_event)) continue;
    if (events_.empty()) break;
    const Event e = events_.top();
    events_.pop();
    if (e.kind == 0)
      route_arrival(e.i, e.t);
    else if (e.kind == 1)
      route_handoff(e.i, e.t);
    else
      prefill_[path_[e.i].prefill].arrive(e.i, e.t);
  }
  return combine();
}

// The end-to-end run from both sides' requests, and each replica's own.
DisaggResult Driver::combine() {
  DisaggResult out;
  const std::size_t nstages = std::max<std::size_t>(w_.stages.size(), 1);
  std::vector<detail::StageAcc> acc(nstages);
  std::vector<double> busy_running(nstages + 1, 0), busy_waiting(nstages + 1, 0);
  const std::size_t n = w_.requests.size();
  std::vector<RequestResult> first(n), second(n);
  auto collect = [&](std::vector<detail::Replica>& side, std::vector<SimResult>& runs,
                     std::vector<RequestResult>& by_request, bool tally_itl) {
    for (auto& r : side) {
      if (tally_itl)
        for (std::size_t k = 0; k < nstages; ++k) acc[k].itl.merge(r.tallies()[k].itl);
      for (std::size_t k = 0; k <= nstages; ++k)
        busy_running[k] += r.busy_running()[k], busy_waiting[k] += r.busy_waiting()[k];
      runs.push_back(r.finish());
      for (const auto& q : runs.back().requests) by_request[q.id] = q;
      out.run.steps += runs.back().steps;
      out.run.simulated_s = std::max(out.run.simulated_s, runs.back().simulated_s);
    }
  };
  collect(prefill_, out.prefill, first, false);
  collect(decode_, out.decode, second, true);
  for (std::size_t i = 0; i < n; ++i) {
    const SimRequest& q = w_.requests[i];
    const RequestResult &p = first[i], &d = second[i];
    // Its arrival at the router: under SGLang's order the prefill side sees it only once the
    // decode side has its blocks, and that wait is part of its latency.
    RequestResult r{.id = q.id,
                    .arrival_s = arrived_[i] >= 0 ? arrived_[i] : p.arrival_s,
                    .prompt_tokens = q.prompt_tokens,
                    .output_tokens = q.output_tokens,
                    .cached_tokens = p.cached_tokens,
                    .preemptions = p.preemptions + d.preemptions,
                    .recomputed_tokens = p.recomputed_tokens + d.recomputed_tokens,
                    .finished = p.finished && d.finished};
    if (r.finished) {
      r.queued_s = before_ ? d.queued_s : p.queued_s, r.scheduled_s = p.scheduled_s;
      r.first_token_s = d.first_token_s, r.finish_s = d.finish_s;
      detail::tally(acc[std::min<std::size_t>(q.stage, nstages - 1)], r, frontend_s_, opt_.slo);
    }
    out.run.requests.push_back(r);
  }
  const double first_arrival = std::isfinite(arrival_s_) ? arrival_s_ : 0;
  detail::summarize_stages(out.run, acc, w_, busy_running, busy_waiting, first_arrival);
  // Every preemption either side's engine made, finished requests' or not (summarize_stages
  // counted the finished requests' alone).
  out.run.summary.preemptions = 0;
  for (const auto& s : out.prefill) out.run.summary.preemptions += s.summary.preemptions;
  for (const auto& s : out.decode) out.run.summary.preemptions += s.summary.preemptions;
  out.run.num_gpu_blocks = out.decode.front().num_gpu_blocks;
  out.run.block_size = out.decode.front().block_size;
  out.run.async_scheduling = out.decode.front().async_scheduling;
  detail::LatencySketch admission, link_wait, on_link;
  for (const auto& t : transfers_) {
    admission.add((t.allocated_s - t.requested_s) * 1e3);
    link_wait.add((t.start_s - std::max(t.allocated_s, t.handoff_s)) * 1e3);
    on_link.add((t.ready_s - t.start_s) * 1e3);
    out.kv_bytes = add(out.kv_bytes, t.bytes, "KV transfer bytes");
  }
  out.admission_wait_ms = admission.percentiles();
  out.link_wait_ms = link_wait.percentiles();
  out.transfer_ms = on_link.percentiles();
  const double span = out.run.simulated_s - first_arrival;
  if (span > 0) out.kv_gbps = static_cast<double>(out.kv_bytes) / span / 1e9;
  out.transfers = std::move(transfers_);
  std::stable_sort(
      out.transfers.begin(), out.transfers.end(),
      [](const TransferRecord& a, const TransferRecord& b) { return a.handoff_s < b.handoff_s; });
  return out;
}

}  // namespace

void check_disagg(const DisaggConfig& cfg, const std::string& source) {
  std::vector<Problem> pr;
  for (const auto* side : {&cfg.prefill, &cfg.decode})
    if (const auto no = engine_rules(side->plan).disaggregation_refusal())
      pr.push_back({side == &cfg.prefill ? "prefill.engine" : "decode.engine", no->message});
  if (engine_rules(cfg.prefill.plan).name() != engine_rules(cfg.decode.plan).name())
    pr.push_back({"decode.engine", "both sides must run one engine: the prefill side runs " +
                                       engine_rules(cfg.prefill.plan).name() +
                                       ", the decode side " +
                                       engine_rules(cfg.decode.plan).name()});
  if (!(cfg.prefill.plan.format == cfg.decode.plan.format))
    pr.push_back(
        {"decode.kv_dtype", "the decode side must hold the KV format the prefill side writes"});
  if (cfg.decode.enable_prefix_caching)
    pr.push_back({"decode.enable_prefix_caching",
                  "the decode side's prefix cache is not modelled (its hits would shorten the "
                  "transfer); turn it off on the decode side"});
  for (const auto& [name, n] :
       {std::pair<const char*, std::uint32_t>{"prefill_replicas", cfg.prefill_replicas},
        {"decode_replicas", cfg.decode_replicas}})
    if (n == 0 || n > kMaxReplicas)
      pr.push_back(
          {name, "must be 1 to " + std::to_string(kMaxReplicas) + ", got " + std::to_string(n)});
  const KvLink& l = cfg.link;
  if (!(l.gbps > 0) || !std::isfinite(l.gbps) || l.gbps > 1e6)
    pr.push_back({"kv_link", "needs a bandwidth in (0, 1e6] GB/s"});
  for (const auto& [name, v] : {std::pair<const char*, double>{"kv_link_latency_ms", l.latency_s},
                                {"kv_transfer_overhead_ms", l.per_request_s}})
    if (!(v >= 0) || !(v <= 10)) pr.push_back({name, "must be 0 to 10,000 ms"});
  if (l.name == "nvlink") {
    const std::uint64_t gpus =
        std::uint64_t{cfg.prefill_replicas} * cfg.prefill.plan.tp * cfg.prefill.plan.pp +
        std::uint64_t{cfg.decode_replicas} * cfg.decode.plan.tp * cfg.decode.plan.pp;
    if (cfg.nvlink_domain_gpus == 0 || gpus > cfg.nvlink_domain_gpus)
      pr.push_back({"kv_link", "an NVLink transfer needs both sides in one NVLink domain: " +
                                   std::to_string(gpus) + " GPUs, the domain joins " +
                                   std::to_string(cfg.nvlink_domain_gpus)});
  }
  throw_if_any(source, pr);
}

DisaggConfig disagg_config(const ServingConfig& prefill, const ServingConfig& decode,
                           const GpuSpec& gpu, const DisaggLayout& layout,
                           const DisaggFieldNames& names) {
  DisaggConfig c;
  c.prefill = prefill;
  c.decode = decode;
  // SGLang runs each side as a --disaggregation-mode prefill / decode worker (its decode side's
  // chunk cache, in-transfer rows and SWA cap: SglangOptions::disaggregation_mode).
  sglang_set_disaggregation_role(c.prefill.plan, "prefill", names.source, "disaggregation_mode");
  sglang_set_disaggregation_role(c.decode.plan, "decode", names.source, "disaggregation_mode");
  c.decode.enable_prefix_caching = false;
  c.decode.cpu_offload_bytes = 0;
  c.prefill_replicas = layout.prefill_replicas;
  c.decode_replicas = layout.decode_replicas;
  c.link = kv_link(layout.kv_link, gpu, names.source, names.kv_link);
  c.link.latency_s = layout.kv_link_latency_ms / 1e3;
  c.link.per_request_s = layout.kv_transfer_overhead_ms / 1e3;
  c.routing = parse_routing(layout.routing, names.source, names.routing);
  c.nvlink_domain_gpus = max_tp_span(gpu);
  return c;
}

std::vector<TransferSample> transfer_series(const DisaggResult& r, double interval_s) {
  const double end = r.run.simulated_s;
  if (!(interval_s > 0) || !std::isfinite(interval_s) || !(end >= 0)) return {};
  constexpr double kMaxSamples = 1 << 20;
  while (end / interval_s + 1 > kMaxSamples) interval_s *= 2;
  const auto n = static_cast<std::size_t>(std::floor(end / interval_s)) + 1;
  // Difference arrays: a phase [from, to) counts at samples ceil(from / i) .. ceil(to / i) − 1.
  std::vector<std::int64_t> blocks(n + 1, 0), link(n + 1, 0), on(n + 1, 0);
  const auto mark = [&](std::vector<std::int64_t>& v, double from, double to) {
    const auto a = static_cast<std::size_t>(std::min<double>(std::ceil(from / interval_s), n));
    const auto b = static_cast<std::size_t>(std::min<double>(std::ceil(to / interval_s), n));
    if (a < b) ++v[a], --v[b];
  };
  for (const auto& t : r.transfers) {
    mark(blocks, t.requested_s, t.allocated_s);
    mark(link, std::max(t.allocated_s, t.handoff_s), t.start_s);
    mark(on, t.start_s, t.ready_s);
  }
  std::vector<TransferSample> out(n);
  std::int64_t b = 0, l = 0, o = 0;
  for (std::size_t k = 0; k < n; ++k) {
    b += blocks[k], l += link[k], o += on[k];
    out[k] = {.t_s = static_cast<double>(k) * interval_s,
              .waiting_blocks = static_cast<std::uint64_t>(b),
              .waiting_link = static_cast<std::uint64_t>(l),
              .on_link = static_cast<std::uint64_t>(o)};
  }
  return out;
}

SimResult pooled_side(const std::vector<SimResult>& replicas) {
  SimResult out;
  out.kv_series = sum_kv_series(replicas);
  for (const auto& r : replicas) {
    out.num_gpu_blocks = add(out.num_gpu_blocks, r.num_gpu_blocks, "KV blocks");
    out.block_size = r.block_size;
    out.async_scheduling = r.async_scheduling;
    out.summary.preemptions += r.summary.preemptions;
    out.steps += r.steps;
    out.simulated_s = std::max(out.simulated_s, r.simulated_s);
  }
  return out;
}

DisaggSummary summarize_disagg(const DisaggConfig& cfg, const DisaggResult& r) {
  return {.prefill_replicas = cfg.prefill_replicas,
          .decode_replicas = cfg.decode_replicas,
          .prefill_tp = cfg.prefill.plan.tp,
          .decode_tp = cfg.decode.plan.tp,
          .prefill_pp = cfg.prefill.plan.pp,
          .decode_pp = cfg.decode.plan.pp,
          .prefill_blocks = r.prefill.empty() ? 0 : r.prefill.front().num_gpu_blocks,
          .decode_blocks = r.decode.empty() ? 0 : r.decode.front().num_gpu_blocks,
          .prefill_max_num_seqs =
              r.prefill.empty() ? cfg.prefill.max_num_seqs : r.prefill.front().max_running,
          .prefill_max_num_batched_tokens = cfg.prefill.max_num_batched_tokens,
          .link = cfg.link,
          .routing = cfg.routing,
          .transfers = r.transfers.size(),
          .kv_bytes = r.kv_bytes,
          .kv_gbps = r.kv_gbps,
          .admission_wait_ms = r.admission_wait_ms,
          .link_wait_ms = r.link_wait_ms,
          .transfer_ms = r.transfer_ms};
}

DisaggResult simulate_disagg(const ModelSpec& model, const DisaggConfig& cfg,
                             const StepTimer& prefill_step, const StepTimer& decode_step,
                             const Workload& workload, const SimOptions& opt) {
  const std::string source = workload.source.empty() ? "serving config" : workload.source;
  check_disagg(cfg, source);
  if (model.attention_free)
    throw Error(source, "disaggregated",
                "a model without a KV cache has no KV to hand from prefill to decode");
  const std::uint64_t replicas = std::uint64_t{cfg.prefill_replicas} + cfg.decode_replicas;
  if (workload.requests.size() > kMaxRequestSlots / replicas)
    throw Error(source, "requests",
                std::to_string(workload.requests.size()) + " requests on " +
                    std::to_string(replicas) +
                    " replicas: a disaggregated run holds at most 8,388,608 requests × replicas "
                    "(each replica keeps a slot for every request); use fewer of either");
  Driver d(model, cfg, prefill_step, decode_step, workload, opt);
  return d.run();
}

}  // namespace kvplan::sim
