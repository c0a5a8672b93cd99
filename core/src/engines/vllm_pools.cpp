// vLLM's KV-cache layout rules: which layers keep groups of their own, how many layers a group
// holds, and the layouts it refuses with the hybrid KV cache manager disabled.
#include <algorithm>
#include <utility>
#include <vector>

#include "../planner_eval.hpp"
#include "kvplan/checked.hpp"
#include "kvplan/error.hpp"
#include "vllm.hpp"

namespace kvplan::engines {
namespace {

// Whether vLLM's unify_hybrid_kv_cache_specs turns this model's sliding and chunked layers into
// full attention: only with the hybrid manager disabled and a full-attention layer (MLA and draft
// layers are FullAttentionSpecs) beside them.
bool converts_local_layers(const ModelSpec& model, const PlanInput& in) {
  if (!in.vllm().disable_hybrid_kv_cache_manager) return false;
  if (in.draft_layers > 0) return true;
  return std::any_of(model.layers.begin(), model.layers.end(), [](const LayerSpec& l) {
    return l.kind == AttentionKind::full || l.kind == AttentionKind::mla;
  });
}

}  // namespace

bool Vllm::local_layers_own_groups(const ModelSpec& model, const PlanInput& in) const {
  return !converts_local_layers(model, in);
}

// _get_kv_cache_groups_uniform_page_size: group_size = the fewest layers of any type, or the
// most when that is under 1.5x the fewest; each type splits into ceil(count / group_size)
// groups (the last one padded).
std::uint32_t Vllm::kv_group_size(std::uint32_t fewest, std::uint32_t most) const {
  return 2 * std::uint64_t{most} < 3 * std::uint64_t{fewest} ? most : fewest;
}

// vLLM --disable-hybrid-kv-cache-manager (unify_hybrid_kv_cache_specs, vllm/v1/core/
// kv_cache_utils.py @ 001cabc1be16a59a70d720ed61a13b678c060a18): specs that are already one type
// (UniformTypeKVCacheSpecs.is_uniform_type, kv_cache_interface.py @ 001cabc1: all full attention
// whatever their heads and head sizes, all sliding of one window, all chunked of one chunk, all
// Mamba) pass; else, with a full-attention layer, sliding and chunked layers become full
// attention. What is still not one type makes vLLM refuse to start ("Hybrid KV cache manager is
// disabled but failed to convert the KV cache specs to one unified type"): a recurrent state
// (MambaSpec) beside attention, as vllm-project/vllm PR #36388 reports for Qwen3.5-0.8B, or local
// layers of different kinds or windows without a full one (test_unify_hybrid_kv_cache_specs case 4,
// tests/v1/core/test_kv_cache_utils.py @ 002f10e0).
void Vllm::check_pool_layout(const ModelSpec& model, const PlanInput& in,
                             const std::string& source) const {
  if (!in.vllm().disable_hybrid_kv_cache_manager) return;
  const char* field = "disable_hybrid_kv_cache_manager";
  const bool full = converts_local_layers(model, in);
  std::vector<std::pair<AttentionKind, std::uint64_t>> local;  // sliding / chunked kinds
  for (const auto& l : model.layers) {
    if (l.kind == AttentionKind::none || l.kind == AttentionKind::full ||
        l.kind == AttentionKind::mla)
      continue;
    if (std::find(local.begin(), local.end(), std::pair{l.kind, l.window}) == local.end())
      local.push_back({l.kind, l.window});
  }
  if (model.recurrent_layers() > 0 && (full || !local.empty()))
    throw Error(source, field,
                "vLLM cannot put a recurrent state (MambaSpec) and attention layers in one "
                "KV-cache type with the hybrid KV cache manager disabled");
  if (!full && local.size() > 1)
    throw Error(source, field,
                "vLLM cannot convert sliding-window and chunked layers of different kinds or "
                "windows to one KV-cache type without a full-attention layer");
}

// ParallelConfig._validate_parallel_config raises "tp_size={tp} must be divisible by
// dcp_size={dcp}" (vllm/config/parallel.py @ 00193b82b0e2d4faea5d3b4ea4f6c4c2bd9d057a), which also
// refuses a DCP larger than TP; sliding layers assert "DCP not support sliding window"
// (SlidingWindowSpec.max_memory_usage_bytes, vllm/v1/kv_cache_interface.py @ 001cabc1). The
// vllm@0.9 rules have no DCP: --decode-context-parallel-size came with vllm-project/vllm#23734
// (merged 2025-08-27, after the 0.9 releases).
void Vllm::check_context_parallel(const detail::PlanEval& ev) const {
  if (ev.in.vllm().dcp == 0)
    throw Error(ev.source, "decode_context_parallel_size", "must be at least 1, got 0");
  if (ev.in.vllm().dcp <= 1) return;
  const char* field = "decode_context_parallel_size";
  if (const auto no = dcp_refusal()) throw Error(ev.source, no->field, no->message);
  if (ev.in.tp % ev.in.vllm().dcp != 0)
    throw Error(ev.source, field,
                "vLLM needs the tensor parallel size to be divisible by the decode context "
                "parallel size (tp_size=" +
                    std::to_string(ev.in.tp) +
                    " must be divisible by dcp_size=" + std::to_string(ev.in.vllm().dcp) + ")");
  for (const auto& st : ev.stages)
    for (const auto& t : st.types)
      if (t.kind == AttentionKind::sliding)
        throw Error(ev.source, field,
                    "vLLM does not support decode context parallelism with sliding-window "
                    "layers (SlidingWindowSpec: \"DCP not support sliding window\")");
}

// A recurrent state's pages per request: one padded page (two with mamba_cache_mode align, one
// per block of the request with all), plus MambaSpec.num_speculative_blocks.
std::uint64_t Vllm::recurrent_state_pages(const PlanInput& in, std::uint64_t context,
                                          std::uint32_t block_size) const {
  switch (in.vllm().mamba_cache_mode) {
    case VllmOptions::MambaCacheMode::none:
      return 1 + std::uint64_t{speculative_tokens(in)};
    case VllmOptions::MambaCacheMode::align:
      return 2 + std::uint64_t{speculative_tokens(in)};
    case VllmOptions::MambaCacheMode::all:
      // MambaSpec.max_memory_usage_bytes (kv_cache_interface.py @ 001cabc1): cdiv(max_model_len,
      // block_size) pages, no num_speculative_blocks in this mode.
      return ceil_div(context, block_size);
  }
  return 1;
}

}  // namespace kvplan::engines
