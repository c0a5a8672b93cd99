// SGLang's token pools, as its model runner sizes them. Sources, read at
// sgl-project/sglang@226149ac457bd1a1b5d450f55c01f72f604320d6:
//   python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py  profile_max_num_token,
//     handle_max_mamba_cache, set_num_tokens_hybrid_swa, init_memory_pool,
//     MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO = 3
//   python/sglang/srt/server_args.py  swa_full_tokens_ratio 0.8, mamba_full_memory_ratio 0.9,
//     mamba_ssm_dtype "float32", page_size 1
//   python/sglang/srt/configs/model_config.py  is_hybrid_swa_model
#include <algorithm>
#include <cctype>
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

// handle_max_mamba_cache: the state slots and the bytes left for the full-attention pool. The
// engine splits rest as mamba : KV = r : 1 in floating GiB; here in exact integers,
// slots = floor(rest · r / (1 + r) / state) with r in ppm.
std::uint64_t mamba_slots(const SglangPoolInput& in) {
  if (in.max_mamba_cache_size) return *in.max_mamba_cache_size;
  const u128 num = static_cast<u128>(in.rest_bytes) * in.mamba_full_memory_ratio_ppm;
  const u128 den = static_cast<u128>(kPpm + in.mamba_full_memory_ratio_ppm) * in.state_bytes;
  return static_cast<std::uint64_t>(num / den);
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
    p.mamba_slots = mamba_slots(in);
    p.mamba_bytes = mul(p.mamba_slots, in.state_bytes, "mamba state bytes");
    rest = rest > p.mamba_bytes ? rest - p.mamba_bytes : 0;
    // init_memory_pool: max_num_reqs ≤ max_mamba_cache_size // 3 with the radix cache on.
    p.max_running = p.mamba_slots / 3;
  }
  // profile_max_num_token: rest // cell_size, cell = F · n_full + S · n_swa.
  const std::uint64_t cell = add(mul(in.full_cell, in.full_layers, "cell size"),
                                 mul(in.swa_cell, in.swa_layers, "cell size"), "cell size");
  p.profiled_tokens = cell ? rest / cell : 0;
  // init_memory_pool sizes the request table from the profiled count; TpModelWorker then caps
  // the running requests at max_total_num_tokens // 2 unless --max-running-requests is given
  // (python/sglang/srt/managers/tp_worker.py@4f34e24af764d45c2dde4a17cadcdaa7d08a7248).
  auto limits = [&](SglangPools& out) {
    if (in.context_len == 0) return;
    out.max_num_reqs =
        sglang_max_num_reqs(in.max_running_requests, out.profiled_tokens, in.context_len);
    if (in.state_bytes > 0) out.max_num_reqs = std::min(out.max_num_reqs, out.max_running);
    const std::uint64_t tokens = out.full_tokens ? out.full_tokens : out.swa_tokens;
    out.max_running_requests =
        std::min(in.max_running_requests.value_or(tokens / 2), out.max_num_reqs);
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
  solve(full);
  if (in.max_total_tokens && *in.max_total_tokens < p.full_tokens) solve(*in.max_total_tokens);
  limits(p);
  return p;
}

std::uint64_t sglang_max_num_reqs(std::optional<std::uint64_t> max_running_requests,
                                  std::uint64_t profiled_tokens, std::uint64_t context_len) {
  if (max_running_requests) return *max_running_requests;
  if (context_len == 0) return 4096;
  const auto by_pool = static_cast<std::uint64_t>(static_cast<double>(profiled_tokens) /
                                                  static_cast<double>(context_len) * 512.0);
  return std::min<std::uint64_t>(std::max<std::uint64_t>(by_pool, 2048), 4096);
}

namespace detail {

void sglang_stage_pools(const PlanEval& ev, PlanEval::Stage& st) {
  const bool hybrid = !ev.in.sglang().disable_hybrid_swa_memory &&
                      ev.in.sglang().hybrid_swa.value_or(sglang_hybrid_swa_default(ev.model));
  SglangPoolInput p;
  for (const auto& l : st.sub.layers) {
    if (l.kind == AttentionKind::none) continue;
    if (hybrid && (l.kind == AttentionKind::sliding || l.kind == AttentionKind::chunked)) {
      ++p.swa_layers;
      st.swa_window = std::max(st.swa_window, l.window);
    } else {
      ++p.full_layers;
    }
  }
  p.full_layers += st.draft_layers;
  // One attention layer's bytes per token on this rank (the page is linear in its tokens).
  p.full_cell = p.swa_cell = ev.page / ev.bs;
  p.rest_bytes = ev.mem.available_bytes;
  p.state_bytes = mul(ev.state_bytes, st.state_layers, "mamba state bytes");
  p.page_size = ev.bs;
  p.swa_full_tokens_ratio_ppm = ev.in.sglang().swa_full_tokens_ratio_ppm;
  p.mamba_full_memory_ratio_ppm = ev.in.sglang().mamba_full_memory_ratio_ppm;
  p.max_mamba_cache_size = ev.in.sglang().max_mamba_cache_size;
  p.max_total_tokens = ev.in.max_total_tokens;
  p.context_len = ev.in.context;
  p.max_running_requests = ev.in.max_num_seqs;
  if (p.full_cell == 0) return;
  st.sglang = sglang_pools(p, ev.source);
  st.sglang_all_swa = p.full_layers == 0 && p.swa_layers > 0;
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
