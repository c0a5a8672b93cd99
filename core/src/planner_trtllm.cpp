// TensorRT-LLM's per-window KV pools. Sources:
//   cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp @ NVIDIA/TensorRT-LLM
//     b35ac1b64368513d215c57d2ed01d62d910df8da: BaseKVCacheManager::calculateMaxNumBlocks
//     (maxTokens = uint64(memory · share / bytesPerToken), blocks = ceilDiv(maxTokens,
//     tokensPerBlock), max_tokens only with one window, equal shares unless
//     TRTLLM_WINDOW_SIZE_SHARES), BlockManager::calculateWindowSizeToShare (the proportional
//     rule, kept but "not used for calculateMaxNumBlocks"), groupLayersByWindowSize (the window
//     vector repeats over the layers), KVCacheManager::calculateMaxBlockRequirementsPerBeam.
//   cpp/include/tensorrt_llm/batch_manager/kvCacheManager.h: kSWAExtraBlock = 1.
//   tensorrt_llm/_torch/pyexecutor/resource_manager.py @ d2a5560abdadfbdf496ce057696103e0509a71ed:
//     adjust_window_sizes_for_vswa (tested by tests/unittest/_torch/executor/
//     test_resource_manager.py @ c20322ffd3dc0740ca530c9fad989b22e64f6e06).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "kvplan/checked.hpp"
#include "kvplan/planner.hpp"
#include "planner_eval.hpp"

namespace kvplan {

std::vector<double> trtllm_window_shares(const std::vector<TrtllmWindow>& windows,
                                         TrtllmOptions::WindowShares rule) {
  std::vector<double> shares(windows.size(), 0.0);
  if (windows.empty()) return shares;
  if (windows.size() == 1 || rule == TrtllmOptions::WindowShares::equal) {
    std::fill(shares.begin(), shares.end(), 1.0 / static_cast<double>(windows.size()));
    return shares;
  }
  // calculateWindowSizeToShare: weight = bytes_w / Σ bytes, times the window, normalised.
  double bytes = 0, sum = 0;
  for (const auto& w : windows) bytes += static_cast<double>(w.bytes_per_token);
  for (std::size_t i = 0; i < windows.size(); ++i) {
    shares[i] = static_cast<double>(windows[i].bytes_per_token) / bytes *
                static_cast<double>(windows[i].window);
    sum += shares[i];
  }
  for (auto& s : shares) s /= sum;
  return shares;
}

void trtllm_window_blocks(std::vector<TrtllmWindow>& windows, std::uint64_t memory,
                          std::uint32_t tokens_per_block, TrtllmOptions::WindowShares rule,
                          std::optional<std::uint64_t> max_tokens) {
  const auto shares = trtllm_window_shares(windows, rule);
  const bool vswa = windows.size() > 1;
  for (std::size_t i = 0; i < windows.size(); ++i) {
    auto& w = windows[i];
    if (w.bytes_per_token == 0) continue;
    std::uint64_t tokens =
        vswa ? static_cast<std::uint64_t>(static_cast<double>(memory) * shares[i] /
                                          static_cast<double>(w.bytes_per_token))
             : memory / w.bytes_per_token;  // share 1: exact
    if (max_tokens && !vswa) tokens = std::min(tokens, *max_tokens);
    w.primary_blocks = ceil_div(tokens, tokens_per_block);
  }
}

std::vector<std::uint64_t> trtllm_adjust_windows(const std::vector<TrtllmWindow>& windows,
                                                 std::uint64_t memory,
                                                 std::optional<std::uint64_t> max_tokens) {
  std::vector<std::uint64_t> out;
  std::uint64_t required = 0;
  for (const auto& w : windows)
    required = add(required, mul(w.window, w.bytes_per_token, "bytes per sequence"), "bytes");
  if (required < memory) {
    for (const auto& w : windows) out.push_back(w.window);
    return out;
  }
  // Ascending windows: each takes what the layers of it and all larger windows can still hold,
  // at most the step to its own window; once the tokens fall short of a window, the larger ones
  // get the same count.
  std::uint64_t remaining = memory, accum = 0, prev = 0, remaining_bytes = 0;
  for (const auto& w : windows) remaining_bytes += w.bytes_per_token;
  for (const auto& w : windows) {
    if (remaining > 0 && remaining_bytes > 0) {
      const std::uint64_t take = std::min(remaining / remaining_bytes, w.window - prev);
      remaining -= take * remaining_bytes;
      accum += take;
      if (accum < w.window) remaining = 0;
      if (max_tokens) {
        accum = std::min(accum, *max_tokens);
        if (accum == *max_tokens) remaining = 0;
      }
    }
    out.push_back(accum);
    remaining_bytes -= w.bytes_per_token;
    prev = w.window;
  }
  return out;
}

std::uint64_t trtllm_blocks_per_sequence(std::uint64_t n, std::uint64_t window,
                                         std::uint32_t tokens_per_block) {
  const std::uint64_t b = ceil_div(std::min(n, window), tokens_per_block);
  return n > window ? b + 1 : b;
}

const TrtllmStatePool* binding_state_pool(const std::vector<StageCapacity>& stages) {
  const TrtllmStatePool* worst = nullptr;
  for (const auto& s : stages) {
    if (!s.trtllm_states) continue;
    const TrtllmStatePool& p = *s.trtllm_states;
    const bool short_p = p.shortfall_bytes > 0, short_w = worst && worst->shortfall_bytes > 0;
    if (!worst || (short_p && !short_w) || (short_p == short_w && p.bytes > worst->bytes))
      worst = &p;
  }
  return worst;
}

namespace {

// The periodic snapshot interval in force (_mamba_regular_snapshot_interval, kv_cache/
// mamba_cache_manager/common.py@28295084972c5ab61ef010a050a18f53f5d72810): block reuse on and an
// interval no longer than max_seq_len; 0 otherwise.
// Block reuse is off for a hybrid unless asked for (get_model_defaults, below).
bool reuse_on(const TrtllmOptions& o) { return o.enable_block_reuse.value_or(false); }

bool has_snapshot_offsets(const TrtllmOptions& o) {
  return !o.snapshot_offsets_from_start.empty() || !o.snapshot_offsets_from_end.empty();
}

std::uint64_t regular_interval(const TrtllmOptions& o, std::uint64_t max_seq_len) {
  if (!reuse_on(o) || o.snapshot_interval > max_seq_len) return 0;
  return o.snapshot_interval;
}

}  // namespace

std::uint32_t trtllm_snapshot_rules(const TrtllmOptions& o, std::uint64_t max_seq_len) {
  if (!reuse_on(o)) return 0;
  std::uint32_t rules = 0;
  for (std::uint64_t k : std::set<std::uint64_t>(o.snapshot_offsets_from_start.begin(),
                                                 o.snapshot_offsets_from_start.end()))
    rules += k <= max_seq_len ? 1 : 0;
  for (std::uint64_t k : std::set<std::uint64_t>(o.snapshot_offsets_from_end.begin(),
                                                 o.snapshot_offsets_from_end.end()))
    rules += k < max_seq_len ? 1 : 0;  // reachable by a prompt longer than the offset
  return rules;
}

TrtllmHybridCost trtllm_hybrid_cost(const TrtllmOptions& o, const TrtllmHybridCostInput& in) {
  const char* what = "hybrid cache cost";
  // The C++ manager passes include_explicit_snapshots=False, cap_partial_attention_snapshots=
  // False; V2 both True. Without explicit rules the C++ manager's partial pages (resident ·
  // unaligned rules) are none.
  const std::uint64_t rules = in.v2 ? trtllm_snapshot_rules(o, in.max_seq_len) : 0;
  const std::uint64_t fixed =
      add(add(in.resident, in.dummies, what), mul(in.resident, rules, what), what);
  const std::uint32_t tokens_per_block = std::max<std::uint32_t>(in.tokens_per_block, 1);
  const std::uint64_t block = mul(in.attention_bytes, tokens_per_block, what);
  const std::uint64_t interval = regular_interval(o, in.max_seq_len);
  const std::uint64_t partial = in.v2 && (rules > 0 || interval > 0) ? in.resident : 0;
  TrtllmHybridCost c;
  c.intercept = add(mul(fixed, in.state_bytes, what), mul(partial, block, what), what);
  c.slope = in.attention_bytes;
  if (interval > 0) {
    c.slope = add(c.slope, ceil_div(in.state_bytes, interval), what);
    if (!in.v2 && interval % tokens_per_block != 0)
      c.slope = add(c.slope, ceil_div(block, interval), what);
  }
  return c;
}

namespace detail {

namespace {

// A hybrid Mamba model's state slots and what they leave the attention pool. Sources (NVIDIA/
// TensorRT-LLM; docs/deploy.md has the whole derivation):
//   tensorrt_llm/_torch/pyexecutor/kv_cache/mamba_cache_manager/common.py @ 28295084972c5ab61ef0
//     10a050a18f53f5d72810: _estimate_mamba_hybrid_cache_cost, the affine cost (slope = the rank's
//     attention bytes a token, intercept = (max_batch_size · pp + dummies) · state bytes, no
//     snapshot terms without block reuse); _get_num_cuda_graph_padding_dummy_slots = 1 without
//     speculative decoding;
//   legacy.py @ 28295084: CppMambaHybridCacheManager passes 1 dummy; mamba_cache_manager_v2.py @
//     28295084: MambaHybridCacheManagerV2 passes 1 + enable_attention_dp;
//   MambaHybridCacheManagerV2._build_cache_config / _minimum_live_gpu_quota (the same file): a
//     typical step of max_batch_size · pp requests of avg_seq_len tokens (else max_seq_len / 2),
//     each in whole pages, plus the dummies gives the pools' initial proportion, with the live
//     and dummy slots as a floor; a quota below those slots and one attention block stops the
//     engine;
//   models/modeling_nemotron_h.py @ 00620eb025e7c24895986e1042380bd1be4426d9 and
//     modeling_qwen3_next.py @ 00022b040996780da248347927318fecb55ae7e9: get_model_defaults turns
//     block reuse off, so no snapshot slot is ever sized.
TrtllmStatePool state_pool_of(const PlanEval& ev, const PlanEval::Stage& st,
                              std::uint64_t attention_per_token, bool v2);

TrtllmStatePool trtllm_state_pool(const PlanEval& ev, const PlanEval::Stage& st,
                                  std::uint64_t attention_per_token) {
  const PlanInput& in = ev.in;
  const MixerKind kind = ev.model.recurrent.kind;
  if (kind != MixerKind::mamba2 && kind != MixerKind::gated_delta_net && kind != MixerKind::shapes)
    throw Error(ev.source, "engine",
                "TensorRT-LLM's hybrid cache managers hold Mamba-2 (Nemotron-H) and gated-delta-"
                "net (Qwen3-Next, Qwen3.5) states (is_hybrid_linear, tensorrt_llm/_torch/"
                "pyexecutor/config_utils.py); " +
                    ev.model.id + "'s " + to_string(kind) +
                    " state has no TensorRT-LLM manager kvplan models");
  // Mamba2Mixer splits the B/C groups by TP as they are, tp_ngroups = n_groups // tp_size, where
  // vLLM replicates them (tensorrt_llm/_torch/modules/mamba/mamba2_mixer.py@02140fd43556cd6117a5
  // 798ba57a2f30603608c1); its gated norm then divides by tp_ngroups.
  const std::uint32_t groups = ev.model.recurrent.n_groups;
  if (kind == MixerKind::mamba2 && groups > 0 && groups % in.tp != 0)
    throw Error(ev.source, "tp",
                "TensorRT-LLM's Mamba2Mixer splits the model's " + std::to_string(groups) +
                    " B/C groups by tensor parallelism without replicating them (tp_ngroups = "
                    "n_groups // tp_size): TP " +
                    std::to_string(in.tp) + " does not divide them");
  const bool v2 = in.trtllm().kv_cache_manager_v2.value_or(true);
  if (v2 && in.max_total_tokens)
    throw Error(ev.source, "max_tokens",
                "kv_cache_config.max_tokens with TensorRT-LLM's V2 manager on a hybrid Mamba model "
                "caps the whole quota (over max_util_for_resume) before the state and attention "
                "pools split it, which kvplan does not model; give max_gpu_total_bytes instead, or "
                "use_kv_cache_manager_v2: false (the C++ manager caps the attention tokens)");
  if (st.draft_layers > 0 || in.draft_layers > 0)
    throw Error(ev.source, "draft_layers",
                "speculative decoding with a hybrid Mamba model under TensorRT-LLM allocates "
                "intermediate or replay state buffers beside the pool "
                "(MambaHybridCacheManagerV2 and CppMambaHybridCacheManager) that kvplan does not "
                "model");
  if (in.trtllm().kv_cache_manager_v2) return state_pool_of(ev, st, attention_per_token, v2);
  // "auto": the model class's preference (get_preferred_kv_cache_manager_version), V2 for
  // Qwen3-Next and the Qwen3.5 classes, which alone among these run gated-delta-net layers; the
  // C++ manager for Nemotron-H (Mamba-2) at 00620eb0, V2 at another commit (docs/deploy.md). For
  // any other model kvplan takes the one whose attention pool is the smaller on this rank: V2
  // without periodic snapshots (its typical-step share never exceeds the budget less the slots);
  // with them the C++ manager's pool, which pays each token's share of a snapshot where V2's split
  // leaves the evictable snapshots to its state pool's spare slots, can be the smaller. A V2 that
  // cannot start stays the verdict. Snapshot offsets keep V2: "auto" resolving to the C++ manager
  // would stop the engine ("Mamba additional snapshot offsets require use_kv_cache_manager_v2=
  // True", get_kv_cache_manager_cls).
  const TrtllmOptions& o = in.trtllm();
  TrtllmStatePool chosen = state_pool_of(ev, st, attention_per_token, true);
  if (kind == MixerKind::gated_delta_net || regular_interval(o, in.context) == 0 ||
      has_snapshot_offsets(o) || chosen.shortfall_bytes > 0)
    return chosen;
  TrtllmStatePool cpp = state_pool_of(ev, st, attention_per_token, false);
  return cpp.attention_tokens < chosen.attention_tokens ? cpp : chosen;
}

TrtllmStatePool state_pool_of(const PlanEval& ev, const PlanEval::Stage& st,
                              std::uint64_t attention_per_token, bool v2) {
  const PlanInput& in = ev.in;
  const TrtllmOptions& o = in.trtllm();
  TrtllmStatePool p;
  p.v2 = v2;
  const std::uint64_t max_batch = in.max_num_seqs.value_or(*ev.rules->default_max_num_seqs(in));
  p.live_slots = mul(max_batch, in.pp, "state slots");
  p.dummy_slots = 1 + (p.v2 && in.attention_dp > 1 ? 1 : 0);
  p.slot_bytes = mul(ev.state_bytes, st.state_layers, "state bytes");
  p.bytes = mul(p.live_slots + p.dummy_slots, p.slot_bytes, "state slots' bytes");
  p.budget_bytes = ev.mem.available_bytes;
  p.per_token_bytes = attention_per_token;
  const std::uint64_t block = mul(attention_per_token, ev.bs, "attention block");
  const std::uint64_t least = add(p.bytes, block, "live quota");
  if (least > p.budget_bytes) {
    p.shortfall_bytes = least - p.budget_bytes;
    return p;
  }
  if (attention_per_token == 0) return p;  // a rank of Mamba layers alone: slots only
  p.snapshot_interval = regular_interval(o, in.context);
  if (!p.v2) {
    // The C++ manager: the estimate's tokens, (budget - intercept) // slope with the periodic
    // snapshots' share of a state in the slope, are its max_tokens; its pool
    // (_calculate_max_num_blocks_for_linear_attention, tensorrt_llm/_torch/pyexecutor/
    // resource_manager.py, commit not named by the index) takes the fewer of them and its own
    // (budget - max_batch_size · pp · state) // (attention + state // interval), and holds
    // max_batch_size · pp + 1 + tokens // interval state slots, the interval as given.
    const TrtllmHybridCost cost = trtllm_hybrid_cost(o, {.v2 = false,
                                                         .resident = p.live_slots,
                                                         .dummies = p.dummy_slots,
                                                         .state_bytes = p.slot_bytes,
                                                         .attention_bytes = attention_per_token,
                                                         .tokens_per_block = ev.bs,
                                                         .max_seq_len = in.context});
    const std::uint64_t raw = reuse_on(o) ? o.snapshot_interval : 0;
    const std::uint64_t own_slope = attention_per_token + (raw ? p.slot_bytes / raw : 0);
    const std::uint64_t own_intercept = p.live_slots * p.slot_bytes;  // below p.bytes
    p.per_token_bytes = cost.slope;
    p.attention_tokens = std::min((p.budget_bytes - cost.intercept) / cost.slope,
                                  (p.budget_bytes - own_intercept) / own_slope);
    // kv_cache_config.max_tokens caps them before the snapshot slots are counted.
    if (in.max_total_tokens)
      p.attention_tokens = std::min(p.attention_tokens, *in.max_total_tokens);
    p.snapshot_interval = raw;  // the pool's, even past max_seq_len where the estimate drops it
    p.snapshot_slots = raw ? p.attention_tokens / raw : 0;
    const std::uint64_t states = p.bytes + p.snapshot_slots * p.slot_bytes;
    p.attention_bytes = p.budget_bytes > states ? p.budget_bytes - states : 0;
    return p;
  }
  // V2: the quota splits between the pools as the typical step does (_build_cache_config): each
  // of max_batch_size · pp requests of the typical length (avg_seq_len, else max_seq_len / 2) is
  // one state a snapshot rule the length reaches plus one, its tokens split evenly over them
  // (_typical_request_descs), each part in whole pages; plus the dummies' states. The state pool
  // never gets fewer than the live and dummy slots; periodic snapshots are evictable and take no
  // part in the split.
  p.typical_tokens = o.avg_seq_len.value_or(std::max<std::uint64_t>(1, in.context / 2));
  p.snapshot_rules = trtllm_snapshot_rules(o, p.typical_tokens);
  const std::uint64_t states = std::uint64_t{p.snapshot_rules} + 1;
  const std::uint64_t q = p.typical_tokens / states, r = p.typical_tokens % states;
  const u128 pages = static_cast<u128>(r) * ceil_div(q + 1, ev.bs) +
                     static_cast<u128>(states - r) * ceil_div(q, ev.bs);
  const u128 attention = static_cast<u128>(p.live_slots) * pages * block;
  const u128 state = (static_cast<u128>(p.live_slots) * states + p.dummy_slots) * p.slot_bytes;
  constexpr u128 kLimit = u128{1} << 63;
  if (attention >= kLimit || state >= kLimit)
    throw Error(ev.source, "avg_seq_len",
                "one typical step of TensorRT-LLM's V2 manager (" + std::to_string(p.live_slots) +
                    " requests of " + std::to_string(p.typical_tokens) +
                    " tokens) exceeds 2^63 bytes; give a shorter avg_seq_len or a smaller "
                    "max_batch_size");
  // Proportional unless the state pool's share falls below its floor (budget · S / (A + S) < the
  // live and dummy slots): then the floor, the rest to attention. Each product < 2^128.
  p.attention_bytes = p.budget_bytes - p.bytes;
  if (static_cast<u128>(p.budget_bytes) * state >=
      static_cast<u128>(p.bytes) * (attention + state)) {
    p.attention_bytes = static_cast<std::uint64_t>(static_cast<u128>(p.budget_bytes) * attention /
                                                   (attention + state));
    p.proportional = true;
  }
  p.attention_tokens = p.attention_bytes / attention_per_token;
  if ((p.snapshot_rules > 0 || p.snapshot_interval > 0) && p.slot_bytes > 0) {
    const std::uint64_t slots = (p.budget_bytes - p.attention_bytes) / p.slot_bytes;
    const std::uint64_t floor = p.live_slots + p.dummy_slots;
    p.snapshot_slots = slots > floor ? slots - floor : 0;
  }
  return p;
}

}  // namespace

void trtllm_stage_pools(const PlanEval& ev, PlanEval::Stage& st) {
  // KvCacheConfig.validate_mamba_snapshot_offsets (tensorrt_llm/llmapi/llm_args.py@0004396720054f
  // d8e205cbf616f21f0b57c6b412): snapshot offsets need the V2 manager, refused at start-up with
  // use_kv_cache_manager_v2 false ("auto" passes).
  const TrtllmOptions& o = ev.in.trtllm();
  if (o.kv_cache_manager_v2 == false && has_snapshot_offsets(o))
    throw Error(ev.source,
                o.snapshot_offsets_from_start.empty() ? "additional_snapshot_offsets_from_end"
                                                      : "additional_snapshot_offsets_from_start",
                "Mamba snapshot offsets need TensorRT-LLM's KV cache manager V2; "
                "use_kv_cache_manager_v2 is false");
  const std::uint64_t cell = ev.page / ev.bs;  // one layer's K + V bytes per token on this rank
  if (cell == 0) return;
  const auto& vec = ev.in.trtllm().max_attention_window;
  const std::uint64_t n = ev.in.context;  // max_seq_len
  // groupLayersByWindowSize: layer i of the rank gets vec[i % |vec|], capped at max_seq_len.
  std::map<std::uint64_t, std::uint32_t> layers;
  std::uint32_t i = 0;
  const std::uint32_t attention = st.cached;  // drafts included
  for (; i < attention; ++i) {
    const std::uint64_t w = vec.empty() ? n : std::min<std::uint64_t>(n, vec[i % vec.size()]);
    ++layers[std::max<std::uint64_t>(w, 1)];
  }
  // Each pool with the windows asked for that settled on it (the report's): each its own,
  // unless the adjustment below moves them.
  std::vector<TrtllmWindow> windows;
  std::vector<std::vector<std::uint64_t>> requested;
  for (const auto& [w, count] : layers) {
    windows.push_back({w, count, mul(cell, count, "bytes per token"), 0});
    requested.push_back({w});
  }
  std::uint64_t memory = ev.mem.available_bytes;
  if (ev.model.recurrent_layers() > 0) {
    // A hybrid Mamba model (every rank under its hybrid manager): the state slots first, the
    // attention pool from what they leave, in whole blocks of the affine cost's tokens ((budget -
    // intercept) // slope, capped at max_tokens).
    if (ev.in.trtllm().backend != TrtllmOptions::Backend::pytorch)
      throw Error(ev.source, "backend",
                  "hybrid Mamba models run on TensorRT-LLM's PyTorch backend only (its Mamba "
                  "cache managers, tensorrt_llm/_torch/pyexecutor/kv_cache)");
    if (windows.size() > 1)
      throw Error(ev.source, "max_attention_window",
                  "variable attention windows beside Mamba states are not modelled (TensorRT-LLM's "
                  "hybrid managers size one attention window)");
    const std::uint64_t per_token = windows.empty() ? 0 : windows[0].bytes_per_token;
    st.trtllm_states = trtllm_state_pool(ev, st, per_token);
    // kv_cache_config.max_tokens is applied inside (the C++ manager; V2 refuses it).
    if (!windows.empty()) windows[0].primary_blocks = st.trtllm_states->attention_tokens / ev.bs;
    st.trtllm = windows;
    st.trtllm_requested = std::move(requested);
    return;
  }
  if (windows.size() > 1 && ev.in.trtllm().backend == TrtllmOptions::Backend::pytorch) {
    // PyTorch: windows shrink until one sequence fits; equal windows merge.
    const auto adjusted = trtllm_adjust_windows(windows, memory, ev.in.max_total_tokens);
    std::map<std::uint64_t, std::pair<std::uint32_t, std::vector<std::uint64_t>>> merged;
    for (std::size_t k = 0; k < windows.size(); ++k) {
      auto& [count, asked] = merged[adjusted[k]];
      count += windows[k].layers;
      asked.push_back(windows[k].window);
    }
    windows.clear();
    requested.clear();
    for (const auto& [w, pool] : merged) {
      windows.push_back({w, pool.first, mul(cell, pool.first, "bytes per token"), 0});
      requested.push_back(pool.second);
    }
  }
  trtllm_window_blocks(windows, memory, ev.bs, ev.in.trtllm().window_shares,
                       ev.in.max_total_tokens);
  st.trtllm = windows;
  st.trtllm_requested = std::move(requested);
}

}  // namespace detail

}  // namespace kvplan
