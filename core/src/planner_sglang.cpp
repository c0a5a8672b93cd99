// SGLang's token pools, as its model runner sizes them. Sources, read at
// sgl-project/sglang@226149ac457bd1a1b5d450f55c01f72f604320d6:
//   python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py  profile_max_num_token,
//     set_num_tokens_hybrid_swa
//   python/sglang/srt/server_args.py  swa_full_tokens_ratio 0.8, mamba_full_memory_ratio 0.9,
//     mamba_ssm_dtype "float32", page_size 1
//   python/sglang/srt/configs/model_config.py  is_hybrid_swa_model
// and at sgl-project/sglang@382343f860c7df8dc43ecefd7902c940d81c99a9 (read from a mirror,
// yuan-luo/sglang, whose main is that upstream commit), where the sizing moved to
//   python/sglang/srt/mem_cache/kv_cache_configurator.py  KVCacheConfigurator:
//     _handle_max_mamba_cache, _calculate_mamba_ratio, resolve_max_num_reqs
//   python/sglang/srt/arg_groups/overrides.py  _mamba_radix_cache_resolution,
//     supports_mamba_cache_extra_buffer
//   python/sglang/srt/arg_groups/speculative_hook.py  max_running_requests 48 with speculative
//     decoding, _auto_choose_speculative_params
#include <algorithm>
#include <cctype>
#include <set>
#include <string>

#include "kvplan/checked.hpp"
#include "kvplan/error.hpp"
#include "kvplan/planner.hpp"
#include "kvplan/text_safe.hpp"
#include "planner_eval.hpp"

namespace kvplan {

namespace {

constexpr std::uint64_t kPpm = 1000000;
// Exact products of two 64-bit counts (GCC/Clang's 128-bit integer).
__extension__ typedef unsigned __int128 u128;

std::uint64_t align_down(std::uint64_t tokens, std::uint32_t page) {
  return page ? tokens / page * page : tokens;
}

// _handle_max_mamba_cache: the state slots K (max_mamba_cache_size) and the speculative
// intermediate states' bytes. The pool holds K + 1 slots (the padding slot). K is
//   --max-mamba-cache-size // attn_dp, where given;
//   else with --disable-radix-cache, --max-running-requests (per DP group), where given;
//   else from the budget B = rest · r / (1 + r): (B − S) // S without speculative decoding,
//   (B − S · (1 + D)) // (S · (1 + D / ratio)) with D draft tokens (the states and the
//   intermediates solved together).
// With D, each of min(running, K // ratio) + 1 requests keeps D intermediate states (without the
// radix cache, K + 1). The engine computes in floating GiB; here in exact integers, r in ppm.
// K <= 0 stops the engine ("Not enough GPU memory for hybrid ... state cache"): 0 here.
std::uint64_t mamba_slots(const SglangPoolInput& in, std::uint64_t* intermediate) {
  // ReplaySSM: each slot also holds its window, and no intermediate states are kept.
  const std::uint64_t s = add(in.state_bytes, in.replayssm_ring_bytes, "mamba slot bytes");
  const std::uint64_t d = in.replayssm_ring_bytes ? 0 : in.speculative_draft_tokens;
  const std::uint64_t ratio = in.mamba_ratio;
  const std::uint64_t running = in.max_running_requests.value_or(0);
  auto states = [&](std::uint64_t requests) {  // S · (requests + 1) · D
    *intermediate = mul(mul(s, add(requests, 1, "mamba states"), "mamba intermediate bytes"), d,
                        "mamba intermediate bytes");
  };
  *intermediate = 0;
  if (in.max_mamba_cache_size) {
    const std::uint64_t k = *in.max_mamba_cache_size / std::max<std::uint32_t>(in.attention_dp, 1);
    if (d) states(std::min(running, k / ratio));
    return k;
  }
  if (in.disable_radix_cache && in.max_running_requests) {
    if (d) states(running);
    return running;
  }
  const u128 rp = in.mamba_full_memory_ratio_ppm;
  const u128 budget_scaled = static_cast<u128>(in.rest_bytes) * rp;  // B · (1e6 + r)
  std::uint64_t k = 0;
  if (d == 0) {
    k = static_cast<std::uint64_t>(budget_scaled / ((kPpm + rp) * s));
    k = k > 0 ? k - 1 : 0;
    return k;
  }
  // ((B − S(1 + D)) · ratio) // (S · (ratio + D)), scaled by (1e6 + r) above and below.
  const u128 fixed = static_cast<u128>(s) * (1 + d) * (kPpm + rp);
  if (budget_scaled > fixed)
    k = static_cast<std::uint64_t>((budget_scaled - fixed) * ratio /
                                   ((kPpm + rp) * static_cast<u128>(s) * (ratio + d)));
  if (k > 0) states(std::min(running, k / ratio));
  return k;
}

}  // namespace

bool sglang_hybrid_swa_default(const ModelSpec& model) {
  for (const auto& l : model.layers)
    if (l.kind == AttentionKind::chunked) return true;  // Llama4ForConditionalGeneration
  bool sliding = false;
  for (const auto& l : model.layers) sliding = sliding || l.kind == AttentionKind::sliding;
  if (!sliding) return false;
  // GptOssForCausalLM, MiMoV2FlashForCausalLM, Step3p5ForCausalLM, Gemma4*: the spec keeps no
  // architecture name, so the model's names stand for it.
  std::string names =
      ascii_lower(model.id + " " + model.name + " " + model.preset + " " + model.source);
  for (const auto& r : model.hf_repos) names += " " + ascii_lower(r);
  for (const char* key :
       {"gpt-oss", "gpt_oss", "mimo-v2", "mimo_v2", "step3p5", "step-3.5", "gemma-4", "gemma4"})
    if (names.find(key) != std::string::npos) return true;
  return false;
}

SglangPools sglang_pools(const SglangPoolInput& in, const std::string& source) {
  if (in.swa_full_tokens_ratio_ppm == 0 || in.swa_full_tokens_ratio_ppm > kPpm)
    throw Error(source, "swa_full_tokens_ratio", "must be in (0, 1]");
  if (in.mamba_full_memory_ratio_ppm == 0 || in.mamba_full_memory_ratio_ppm > 100 * kPpm)
    throw Error(source, "mamba_full_memory_ratio", "must be in (0, 100]");
  if (in.page_size == 0) throw Error(source, "page_size", "must be at least 1");
  SglangPools p;
  std::uint64_t rest = in.rest_bytes;
  if (in.state_bytes > 0) {
    if (in.mamba_ratio == 0) throw Error(source, "mamba_ratio", "must be at least 1");
    if (in.speculative_draft_tokens > 0 && !in.max_running_requests)
      throw Error(source, "max_running_requests",
                  "speculative decoding on a hybrid Mamba model sizes its intermediate states by "
                  "--max-running-requests, which SGLang sets (48) before sizing");
    p.mamba_slots = mamba_slots(in, &p.mamba_intermediate_bytes);
    p.mamba_bytes =
        p.mamba_slots ? mul(p.mamba_slots + 1, add(in.state_bytes, in.replayssm_ring_bytes, "slot"),
                            "mamba state bytes")
                      : 0;
    const std::uint64_t held = add(p.mamba_bytes, p.mamba_intermediate_bytes, "mamba bytes");
    rest = rest > held ? rest - held : 0;
    // resolve_max_num_reqs: at most max_mamba_cache_size // ratio requests run.
    p.max_running = p.mamba_slots / in.mamba_ratio;
  }
  // profile_max_num_token: rest // cell_size, cell = F · n_full + S · n_swa.
  const std::uint64_t cell = add(mul(in.full_cell, in.full_layers, "cell size"),
                                 mul(in.swa_cell, in.swa_layers, "cell size"), "cell size");
  p.profiled_tokens = cell ? rest / cell : 0;
  // init_memory_pool sizes the request table from the profiled count; TpModelWorker then caps
  // the running requests at max_total_num_tokens // 2 unless --max-running-requests is given
  // (python/sglang/srt/managers/tp_worker.py@4f34e24af764d45c2dde4a17cadcdaa7d08a7248).
  // resolve_max_num_reqs: one number for the request table's rows and the running requests, from
  // the pool's final tokens (the full pool's, or the SWA pool's of an all-SWA model).
  auto limits = [&](SglangPools& out) {
    if (in.context_len == 0) return;
    const std::uint64_t tokens = out.full_tokens ? out.full_tokens : out.swa_tokens;
    out.max_num_reqs = sglang_max_num_reqs(in.max_running_requests, tokens, in.context_len);
    if (in.state_bytes > 0) out.max_num_reqs = std::min(out.max_num_reqs, out.max_running);
    out.max_running_requests = out.max_num_reqs;
  };
  if (in.swa_layers == 0 || in.full_layers == 0) {
    // One pool (all layers full, or all SWA): the profiled count under --max-total-tokens,
    // page-aligned.
    (in.swa_layers == 0 ? p.full_tokens : p.swa_tokens) = align_down(
        std::min(p.profiled_tokens, in.max_total_tokens.value_or(p.profiled_tokens)), in.page_size);
    limits(p);
    return p;
  }
  // HybridSWAPoolConfigurator (python/sglang/srt/model_executor/pool_configurator.py@6fde4f6f8697
  // eec653634eadc0576eeb51980666, sgl-project/sglang#22389): the full pool takes available //
  // (F · n_full + r · S · n_swa) tokens, a token of the full pool weighing its bytes and r of an
  // SWA token's; _solve_pool_sizes rounds it down to the page, then the SWA pool to int(full · r)
  // rounded down. --max-total-tokens caps the full pool's count (_apply_token_constraints) and the
  // split reruns from it (calculate_pool_sizes_from_max_tokens). The code before #22389
  // (set_num_tokens_hybrid_swa) split the capped total over both pools and so inflated the full
  // pool past the cap.
  const u128 weight = static_cast<u128>(mul(in.full_cell, in.full_layers, "cell size")) * kPpm +
                      static_cast<u128>(in.swa_full_tokens_ratio_ppm) *
                          mul(in.swa_cell, in.swa_layers, "cell size");
  const auto full = static_cast<std::uint64_t>(static_cast<u128>(rest) * kPpm / weight);
  p.profiled_tokens = full;
  auto solve = [&](std::uint64_t tokens) {
    p.full_tokens = align_down(tokens, in.page_size);
    p.swa_tokens = align_down(static_cast<std::uint64_t>(static_cast<u128>(p.full_tokens) *
                                                         in.swa_full_tokens_ratio_ppm / kPpm),
                              in.page_size);
  };
  if (in.swa_cap_tokens > 0) {
    // SWAChunkCapPoolConfigurator.calculate_pool_sizes: the SWA pool is the cap in whole pages;
    // the full pool takes what its bytes leave, page-aligned (none left: SGLang stops, "SWA pool
    // cap ... leaves no room for the full KV pool"; both 0 here). --max-total-tokens caps the full
    // pool, and the SWA pool at it (calculate_pool_sizes_from_max_tokens).
    p.swa_tokens = round_up(in.swa_cap_tokens, in.page_size, "SWA pool cap");
    const std::uint64_t fixed =
        mul(mul(p.swa_tokens, in.swa_cell, "SWA pool bytes"), in.swa_layers, "SWA pool bytes");
    const std::uint64_t full_cell = mul(in.full_cell, in.full_layers, "cell size");
    p.profiled_tokens = rest > fixed ? (rest - fixed) / full_cell : 0;
    p.full_tokens = align_down(p.profiled_tokens, in.page_size);
    if (p.full_tokens == 0) p.swa_tokens = 0;  // SGLang does not start: no pool at all
    if (in.max_total_tokens && *in.max_total_tokens < p.full_tokens) {
      p.full_tokens = align_down(*in.max_total_tokens, in.page_size);
      p.swa_tokens = std::min(p.swa_tokens, *in.max_total_tokens);
    }
    limits(p);
    return p;
  }
  solve(full);
  if (in.max_total_tokens && *in.max_total_tokens < p.full_tokens) solve(*in.max_total_tokens);
  limits(p);
  return p;
}

std::uint64_t sglang_max_num_reqs(std::optional<std::uint64_t> max_running_requests,
                                  std::uint64_t token_capacity, std::uint64_t context_len) {
  std::uint64_t asked = 4096;
  if (max_running_requests) {
    asked = *max_running_requests;
  } else if (context_len > 0) {
    const auto by_pool = static_cast<std::uint64_t>(static_cast<double>(token_capacity) /
                                                    static_cast<double>(context_len) * 512.0);
    asked = std::min<std::uint64_t>(std::max<std::uint64_t>(by_pool, 2048), 4096);
  }
  return std::min(asked, token_capacity / 2);
}

std::uint32_t sglang_mamba_ratio(const std::string& strategy, bool overlap_schedule,
                                 bool disable_radix_cache, bool skip_decode_lock) {
  if (disable_radix_cache) return 1;
  const std::uint32_t base = skip_decode_lock ? 2 : 3;
  if (strategy == "extra_buffer") return base + (overlap_schedule ? 2 : 1);
  if (strategy == "extra_buffer_lazy") return base + 1;  // needs the overlap scheduler
  return base + (skip_decode_lock ? 1 : 0);              // no_buffer: 3 either way
}

bool sglang_overlap_schedule(const PlanInput& in) {
  return in.pp <= 1 && !in.sglang().disable_overlap_schedule;
}

bool sglang_overlap_schedule(const ModelSpec& model, const PlanInput& in) {
  if (!sglang_overlap_schedule(in)) return false;
  if (model.recurrent_layers() == 0 || sglang_radix_cache_off(in.sglang())) return true;
  return sglang_mamba_strategy(model, in) != "no_buffer";
}

bool sglang_supports_extra_buffer(const ModelSpec& model) {
  static const std::set<std::string> extra_buffer_archs = {
      "KimiLinearForCausalLM",
      "Qwen3_5ForConditionalGeneration",
      "Qwen3_5MoeForConditionalGeneration",
      "Qwen3NextForCausalLM",
      "InternS2PreviewForConditionalGeneration",
      "MiniCPMV4_6ForConditionalGeneration",
      "BailingMoeV2_5ForCausalLM",
      "FalconH1ForCausalLM",
      "GraniteMoeHybridForCausalLM",
      "NemotronHForCausalLM",
      "NemotronHPuzzleForCausalLM",
      "KimiK3ForConditionalGeneration"};
  const MixerKind kind = model.recurrent.kind;
  return model.architecture.empty()
             ? kind == MixerKind::mamba2 || kind == MixerKind::gated_delta_net
             : extra_buffer_archs.count(model.architecture) > 0;
}

std::string sglang_mamba_strategy(const ModelSpec& model, const PlanInput& in) {
  const SglangOptions& o = in.sglang();
  if (o.mamba_radix_cache_strategy != "auto") return o.mamba_radix_cache_strategy;
  return sglang_supports_extra_buffer(model) && (sglang_overlap_schedule(in) || in.block_size > 1)
             ? "extra_buffer"
             : "no_buffer";
}

std::uint64_t sglang_replayssm_ring_bytes(const RecurrentSpec& r, std::uint32_t tp,
                                          KvDtype conv_dtype, std::uint64_t record_len) {
  if (r.kind != MixerKind::gated_delta_net || tp == 0) return 0;
  const std::uint64_t hv = r.heads / tp, hk = (r.key_heads + tp - 1) / tp;
  const auto c =
      static_cast<std::uint64_t>(nominal_bytes_per_element(KvFormat{.dtype = conv_dtype}));
  const char* what = "ReplaySSM window";
  // The ring's dims are the temporal state's: KDA's (heads, head_dim, head_dim).
  const std::uint64_t k_dim = r.kda ? r.head_dim : r.key_head_dim;
  const std::uint64_t raw = add(mul(mul(hv, record_len, what), mul(r.head_dim, c, what), what),
                                mul(mul(hk, record_len, what), mul(k_dim, c, what), what), what);
  // fp32 beta a value head and token; the fp32 gate a value head and token (KDA: a key channel).
  const std::uint64_t gates = mul(mul(hv, record_len, what), 4 + 4 * (r.kda ? k_dim : 1), what);
  // KDA keeps the chunked d and k rings too, like the raw values and keys.
  return add(mul(raw, r.kda ? 2 : 1, what), gates, what);
}

std::string parse_sglang_mamba_strategy(const std::string& value, const std::string& source,
                                        const std::string& field) {
  for (const char* s : {"auto", "no_buffer", "extra_buffer", "extra_buffer_lazy"})
    if (value == s) return value;
  throw Error(source, field,
              "expected auto, no_buffer, extra_buffer or extra_buffer_lazy (SGLang's "
              "MAMBA_RADIX_CACHE_STRATEGY_CHOICES), got \"" +
                  value + "\"");
}

namespace detail {

namespace {

// One stage's pool input, its own (before the pipeline ranks agree); *swa_window gets its
// sliding layers' widest window.
SglangPoolInput stage_input(const PlanEval& ev, const PlanEval::Stage& st,
                            std::uint64_t* swa_window) {
  const bool hybrid = !ev.in.sglang().disable_hybrid_swa_memory &&
                      ev.in.sglang().hybrid_swa.value_or(sglang_hybrid_swa_default(ev.model));
  SglangPoolInput p;
  for (const auto& l : st.sub.layers) {
    if (l.kind == AttentionKind::none) continue;
    if (hybrid && (l.kind == AttentionKind::sliding || l.kind == AttentionKind::chunked)) {
      ++p.swa_layers;
      *swa_window = std::max(*swa_window, l.window);
    } else {
      ++p.full_layers;
    }
  }
  p.full_layers += st.draft_layers;
  // One attention layer's bytes per token on this rank (the page is linear in its tokens).
  p.full_cell = p.swa_cell = ev.page / ev.bs;
  p.rest_bytes = ev.mem.available_bytes;
  // _handle_max_mamba_cache charges every pipeline rank the busiest stage's share of the Mamba
  // layers (int(mamba_cache_per_req · max_stage / all), exact in whole layers), so all ranks
  // derive the same pool.
  std::uint32_t busiest = 0;
  for (const auto& other : ev.stages) busiest = std::max(busiest, other.state_layers);
  p.state_bytes = mul(ev.state_bytes, busiest, "mamba state bytes");
  p.page_size = ev.bs;
  p.swa_full_tokens_ratio_ppm = ev.in.sglang().swa_full_tokens_ratio_ppm;
  p.mamba_full_memory_ratio_ppm = ev.in.sglang().mamba_full_memory_ratio_ppm;
  p.max_mamba_cache_size = ev.in.sglang().max_mamba_cache_size;
  p.max_total_tokens = ev.in.max_total_tokens;
  p.context_len = ev.in.context;
  p.max_running_requests = ev.in.max_num_seqs;
  const SglangOptions& o = ev.in.sglang();
  const std::uint32_t groups = std::max<std::uint32_t>(ev.in.attention_dp, 1);
  // speculative_hook.py: every algorithm sets max_running_requests to 48 when not given (the
  // server's; each DP-attention group takes its share).
  const bool speculative = !o.speculative_algorithm.empty() || ev.in.draft_layers > 0;
  if (speculative && !p.max_running_requests) p.max_running_requests = 48 / groups;
  // The algorithm, as given; a draft of the model's own MTP layers without one counts as NEXTN.
  const std::string algo = !speculative                      ? ""
                           : o.speculative_algorithm.empty() ? "nextn"
                                                             : o.speculative_algorithm;
  const bool overlap = sglang_overlap_schedule(ev.model, ev.in);
  // SWAChunkCapPoolConfigurator.is_applicable: a hybrid SWA pool (full layers too) with
  // max_running_requests set, the radix cache off and chunked prefill.
  const bool radix_off = sglang_radix_cache_off(o);
  if (p.swa_layers > 0 && p.full_layers > 0 && p.max_running_requests && radix_off &&
      *swa_window > 0 && ev.in.max_num_batched_tokens > 0) {
    SglangSwaCapInput cap{.window = *swa_window,
                          .running = *p.max_running_requests,
                          .chunked_prefill_size = ev.in.max_num_batched_tokens,
                          .page_size = ev.bs,
                          .overlap_schedule = overlap,
                          .speculative_algorithm = algo,
                          .disaggregation_decode = o.disaggregation_mode == "decode",
                          .decode_extra_slots = sglang_decode_extra_slots(ev.in)};
    if (speculative) {
      // The EAGLE family's automatic choice where not given (_auto_choose_speculative_params:
      // 3 steps, top-k 1, 4 draft tokens).
      const bool given =
          o.speculative_num_steps || o.speculative_eagle_topk || o.speculative_num_draft_tokens;
      cap.num_steps = given ? o.speculative_num_steps : 3;
      cap.eagle_topk = given ? o.speculative_eagle_topk : 1;
      cap.num_draft_tokens = given ? o.speculative_num_draft_tokens : 4;
    }
    p.swa_cap_tokens = sglang_swa_chunk_cap(cap);
  }
  if (p.state_bytes > 0) {
    const std::string strategy = sglang_mamba_strategy(ev.model, ev.in);
    p.mamba_ratio = sglang_mamba_ratio(strategy, overlap, radix_off);
    p.attention_dp = groups;
    p.disable_radix_cache = radix_off;
    if (speculative) {
      // The draft tokens a step verifies: as given, else the EAGLE family's automatic choice
      // (_auto_choose_speculative_params: 3 steps, top-k 1, 4 draft tokens for every
      // architecture but Llama and Grok, which run no Mamba layers).
      const bool eagle = algo == "eagle" || algo == "eagle3" || algo == "nextn" || algo == "mtp" ||
                         algo == "standalone";
      if (o.speculative_num_draft_tokens)
        p.speculative_draft_tokens = o.speculative_num_draft_tokens;
      else if (eagle && o.speculative_num_steps == 0)
        p.speculative_draft_tokens = 4;
      else
        throw Error(ev.source, "speculative_num_draft_tokens",
                    "speculative decoding (" + algo +
                        ") on a hybrid Mamba model keeps --speculative-num-draft-tokens "
                        "intermediate states a running request; give that number");
    }
    // ReplaySSM's window (_handle_max_mamba_cache: a gated-delta-net model's window is the draft
    // tokens long, else --linear-replayssm-cache-len), every state layer of the busiest stage.
    const std::uint64_t record_len =
        speculative ? p.speculative_draft_tokens : o.linear_replayssm_cache_len;
    if (o.linear_replayssm_spec)
      p.replayssm_ring_bytes =
          mul(sglang_replayssm_ring_bytes(
                  ev.model.recurrent, ev.in.tp,
                  ev.in.conv_state_dtype.value_or(ev.model.recurrent.conv_dtype), record_len),
              busiest, "ReplaySSM window");
  }
  return p;
}

}  // namespace

void sglang_stage_pools(const PlanEval& ev, PlanEval::Stage& st) {
  SglangPoolInput p = stage_input(ev, st, &st.swa_window);
  if (p.full_cell == 0) return;
  // _apply_token_constraints (kv_cache_configurator.py@382343f860c7df8dc43ecefd7902c940d81c99a9):
  // the pipeline ranks all-reduce their token capacity to the least, and each rank's pools are
  // sized again from it as from --max-total-tokens.
  if (ev.in.pp > 1) {
    for (const auto& other : ev.stages) {
      if (&other == &st || other.cached + other.state_layers == 0) continue;
      std::uint64_t window = 0;
      const SglangPoolInput o = stage_input(ev, other, &window);
      if (o.full_layers + o.swa_layers == 0) continue;  // no attention layer: no token pool
      const SglangPools q = sglang_pools(o, ev.source);
      const std::uint64_t tokens = q.full_tokens ? q.full_tokens : q.swa_tokens;
      if (!p.max_total_tokens || tokens < *p.max_total_tokens) p.max_total_tokens = tokens;
    }
  }
  st.sglang = sglang_pools(p, ev.source);
  st.sglang_all_swa = p.full_layers == 0 && p.swa_layers > 0;
  // A decode worker's state pool (HybridMambaDecodeReqToTokenPool): each of the table's requests
  // and in-transfer slots takes a main slot and, with the extra buffer (the radix cache on), its
  // ping-pong slots (2 under the overlap scheduler, else 1); the pool is raised to that many when
  // the configurator's slots are fewer, past the budget.
  if (p.state_bytes > 0 && st.sglang->mamba_slots > 0 &&
      ev.in.sglang().disaggregation_mode == "decode") {
    const bool extra_buffer = !p.disable_radix_cache &&
                              sglang_mamba_strategy(ev.model, ev.in).starts_with("extra_buffer");
    const std::uint64_t per_request =
        1 + (extra_buffer ? (sglang_overlap_schedule(ev.model, ev.in) ? 2 : 1) : 0);
    const std::uint64_t needed =
        mul(add(st.sglang->max_num_reqs, sglang_decode_extra_slots(ev.in), "decode slots"),
            per_request, "decode slots");
    if (needed > st.sglang->mamba_slots) {
      st.sglang->decode_extra_state_slots = needed - st.sglang->mamba_slots;
      st.sglang->decode_extra_state_bytes =
          mul(st.sglang->decode_extra_state_slots,
              add(p.state_bytes, p.replayssm_ring_bytes, "mamba slot bytes"), "decode slots");
    }
  }
}

std::vector<SglangDevicePool> sglang_device_pools(const PlanEval& ev, const PlanEval::Stage& st) {
  std::vector<SglangDevicePool> out;
  if (!st.sglang) return out;
  std::uint64_t window = 0;
  const SglangPoolInput p = stage_input(ev, st, &window);
  const SglangPools& q = *st.sglang;
  // The draft's layers have a device pool of their own (mtp_draft_device_pools), outside the
  // split: the target's layers only.
  const std::uint32_t target_full = p.full_layers - std::min(p.full_layers, st.draft_layers);
  auto kv = [&](const char* name, std::uint64_t tokens, std::uint64_t cell, std::uint32_t layers) {
    if (tokens == 0 || layers == 0 || cell == 0) return;
    const std::uint64_t unit = mul(cell, layers, "HiCache bytes per token");
    out.push_back({.name = name,
                   .size = tokens,
                   .unit_bytes = unit,
                   .page = p.page_size,
                   .device_bytes = mul(add(tokens, p.page_size, "pool rows"), unit, name)});
  };
  kv("full", q.full_tokens, p.full_cell, target_full);
  kv("swa", q.swa_tokens, p.swa_cell, p.swa_layers);
  if (q.mamba_slots > 0 && st.state_layers > 0)  // a stage without state layers mirrors none
    out.push_back({.name = "mamba",
                   .size = q.mamba_slots,
                   .unit_bytes = mul(ev.state_bytes, st.state_layers, "mamba slot bytes"),
                   .page = 1,
                   .device_bytes = add(q.mamba_bytes, q.mamba_intermediate_bytes, "mamba")});
  return out;
}

}  // namespace detail

// get_alloc_len_per_decode (allocation_sizing.py@84be7ff586100a0ad5fb372433a0dd30421599b0): 1
// without speculative decoding; else max(steps · topk, draft tokens), or with a page over 1, top-k
// over 1 and a draft that writes KV (every built-in algorithm but NGRAM, SpeculativeAlgorithm.
// has_draft_kv) each top-k branch's page-aligned footprint, ceil((page − 1 + steps) / page) pages
// ("(page_size - 1) + spec_steps + page_size - 1) // page_size"), for every branch. Doubled.
std::uint64_t sglang_decode_reserve(const SglangRowInput& in, std::uint32_t page_size) {
  if (in.speculative_algorithm.empty()) return 2;
  const std::uint64_t steps = std::max<std::uint32_t>(in.num_steps, 1);
  const std::uint64_t topk = std::max<std::uint32_t>(in.eagle_topk, 1);
  const std::uint64_t tokens = in.num_draft_tokens;
  const bool draft_kv = in.speculative_algorithm != "ngram";
  std::uint64_t len = std::max(steps * topk, tokens);
  if (page_size > 1 && topk > 1 && draft_kv) {
    const std::uint64_t pages = (std::uint64_t{page_size} - 1 + steps + page_size - 1) / page_size;
    len = std::max(pages * page_size * topk, tokens);
  }
  return 2 * len;
}

namespace {

// spec_decode_alloc_len_per_request (python/sglang/srt/utils/common.py@382343f8): the KV tokens a
// spec-v1 decode step allocates a request, max(steps · topk, draft tokens), each page-aligned
// with a page over 1 (and the top-k branches' steps a page longer with top-k over 1).
std::uint64_t sglang_spec_v1_decode_alloc(const SglangSwaCapInput& in) {
  const std::uint64_t page = std::max<std::uint32_t>(in.page_size, 1);
  std::uint64_t per_topk = std::max<std::uint32_t>(in.num_steps, 1);
  const std::uint64_t topk = std::max<std::uint32_t>(in.eagle_topk, 1);
  std::uint64_t tokens = std::max<std::uint32_t>(in.num_draft_tokens, 1);
  if (page > 1) {
    per_topk = round_up(topk > 1 ? per_topk + page : per_topk, page, "speculative allocation");
    tokens = round_up(tokens, page, "speculative allocation");
  }
  return std::max(mul(per_topk, topk, "speculative allocation"), tokens);
}

}  // namespace

std::uint64_t sglang_swa_chunk_cap(const SglangSwaCapInput& in) {
  const std::uint64_t page = std::max<std::uint32_t>(in.page_size, 1);
  const bool spec = !in.speculative_algorithm.empty();
  const std::uint64_t draft = spec ? std::max<std::uint32_t>(in.num_draft_tokens, 1) : 1;
  const char* what = "SWA pool cap";
  const std::uint64_t trailing =
      add(add(in.window, mul(std::max<std::uint32_t>(in.eviction_interval, 1), draft, what), what),
          page, what);
  std::uint64_t decode_alloc = page;
  if (spec && !in.overlap_schedule) {
    decode_alloc = sglang_spec_v1_decode_alloc(in);
  } else if (spec) {
    const SglangRowInput row{.page_size = static_cast<std::uint32_t>(page),
                             .speculative_algorithm = in.speculative_algorithm,
                             .num_steps = in.num_steps,
                             .eagle_topk = in.eagle_topk,
                             .num_draft_tokens = in.num_draft_tokens};
    decode_alloc = sglang_decode_reserve(row, static_cast<std::uint32_t>(page));
  }
  const std::uint64_t per_request = add(trailing, decode_alloc, what);
  if (in.disaggregation_decode)
    return add(mul(per_request, in.running, what),
               mul(add(in.window, page, what), in.decode_extra_slots, what), what);
  const std::uint64_t chunks = in.overlap_schedule ? 2 : 1;
  return add(
      add(mul(per_request, in.running, what), mul(chunks, in.chunked_prefill_size, what), what),
      page, what);
}

bool sglang_radix_cache_off(const SglangOptions& o) {
  return o.disable_radix_cache ||
         (o.disaggregation_mode == "decode" && !o.disaggregation_decode_enable_radix_cache);
}

std::uint64_t sglang_decode_extra_slots(const PlanInput& in) {
  const SglangOptions& o = in.sglang();
  if (o.disaggregation_mode != "decode") return 0;
  if (o.disaggregation_decode_extra_slots) return *o.disaggregation_decode_extra_slots;
  if (!in.max_num_seqs) return 0;
  const std::uint64_t per_worker = *in.max_num_seqs;  // already per attention-DP group
  return per_worker <= 32 ? 2 * per_worker : 0;
}

std::string parse_sglang_disaggregation_mode(const std::string& value, const std::string& source,
                                             const std::string& field) {
  for (const char* m : {"null", "prefill", "decode"})
    if (value == m) return value;
  throw Error(source, field, "expected null, prefill or decode, got \"" + value + "\"");
}

void sglang_set_disaggregation_role(PlanInput& p, const std::string& role,
                                    const std::string& source, const std::string& field) {
  if (p.engine != Engine::sglang) return;
  const std::string& mode = p.sglang().disaggregation_mode;
  if (mode == role) return;
  if (mode != "null")
    throw Error(source, field,
                "is \"" + mode + "\" on the " + role + " side of a disaggregated deployment");
  p.edit_sglang().disaggregation_mode = role;
}

std::uint64_t sglang_req_to_token_row_width(const SglangRowInput& in) {
  const std::uint32_t page = std::max<std::uint32_t>(in.page_size, 1);
  const std::uint64_t upper = std::uint64_t{page} * std::max<std::uint32_t>(in.dcp_size, 1);
  std::uint64_t extra = 4 + std::uint64_t{in.num_draft_tokens};
  if (!in.speculative_algorithm.empty())
    extra = std::max({extra, sglang_decode_reserve(in, page),
                      sglang_decode_reserve(in, static_cast<std::uint32_t>(upper))});
  return round_up(add(in.context, extra, "request table row"), upper, "request table row");
}

}  // namespace kvplan
