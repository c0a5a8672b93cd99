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
// most when that is under 1.5x the fewest, or --attn-group-size; each type splits into
// ceil(count / group_size) groups (the last one padded).
std::uint32_t Vllm::kv_group_size(const PlanInput& in, std::uint32_t fewest,
                                  std::uint32_t most) const {
  if (in.vllm().attn_group_size) return in.vllm().attn_group_size;
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
  // Options read for the rules of the source kvplan follows (kv_cache_utils.py@002f10e0): the
  // older rule sets' releases are not known to group them so. --attn-group-size; the hidden-state
  // cache of extract_hidden_states (vllm-project/vllm#33736, early 2026; hybrid targets #39949,
  // Model Runner V2 #49811, July 2026).
  const auto current_only = [&](bool set, const char* field, const std::string& what) {
    if (set && version() != VllmRules::current)
      throw Error(
          source, field,
          what + " is modelled for the current vLLM rules (--engine vllm), not " + name() + "'s");
  };
  current_only(in.vllm().attn_group_size > 0, "attn_group_size", "--attn-group-size");
  if (const std::uint32_t hidden = in.vllm().extract_hidden_states; hidden > 0) {
    const char* field = "extract_hidden_states";
    current_only(true, field, "the hidden-state cache");
    if (in.format.dtype == KvDtype::kivi)
      throw Error(source, field,
                  "the hidden-state cache is a paged KV-cache group: it needs a paged KV format, "
                  "not kivi");
    if (model.hidden_size == 0)
      throw Error(source, field,
                  model.id + " gives no hidden_size, which the hidden states are cached at");
    if (model.index_kpool > 1)
      throw Error(source, field,
                  "hidden states beside a kpool indexer take vLLM off GLM-5.3-Flash's layout, "
                  "which kvplan does not model");
  }
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

// GLM-5.3-Flash's layout (_get_kv_cache_groups_glm5_next, _pp_balanced_mamba_group_count and
// _glm5_next_tensor_layout,
// vllm/v1/core/kv_cache_utils.py@002f10e0cfa1373a19a0d2756598a34b700d20e5,
// vllm-project/vllm#53906): a model whose MLA layers carry a kpool indexer beside recurrent
// layers. The MLA and indexer layers form one group whose block costs their pages summed; the
// recurrent layers, their state padded to the MLA page, are dealt round robin into
// G = cdiv(#recurrent, #MLA) groups (raised to cdiv(m, a) for any pipeline stage holding m
// recurrent and a MLA layers) whose pages alias the MLA layers' slots, so they add no bytes to a
// block; the kpool tail co-owns the indexer's slot and takes one block a request. Each stage
// keeps all G groups (the projection keeps empty ones) and a request is charged every group's
// blocks at the block's full cost. A stage with recurrent layers and no MLA layer is refused as
// vLLM refuses it. vLLM's other refusal, a state larger than the MLA page ("does not fit the MLA
// page"), cannot arise from a model: the hybrid alignment (planner.cpp page_size) grows the block
// until the MLA latent alone holds the state, a kpool indexer adding no key to one token.
void Vllm::attach_stage_pools(const detail::PlanEval& ev, detail::PlanStage& st) const {
  const ModelSpec& model = ev.model;
  if (model.index_kpool <= 1) return;
  const std::uint64_t unit = std::uint64_t{model.index_kpool} * 32;
  if (ev.bs % unit != 0)
    throw Error(ev.source, "block_size",
                "GLM-5.3-Flash kpool requires logical block_size to be a multiple of "
                "index_kpool*32 (" +
                    std::to_string(unit) + "); got " + std::to_string(ev.bs) +
                    " (Glm5NextIndexerCache: DeepGEMM's paged MQA reads pools of 32 or 64 keys)");
  if (ev.state_bytes == 0) return;  // no recurrent layer: one group of MLA and indexer layers
  const std::uint64_t index_page =
      mul(model.indexer_keys(ev.bs), indexer_token_bytes(model.index_head_dim, ev.in.format),
          "indexer page");
  if (model.index_tail && kpool_tail_bytes(model.index_kpool, model.index_head_dim) > index_page)
    throw Error(ev.source, "block_size",
                "the kpool tail (" +
                    std::to_string(kpool_tail_bytes(model.index_kpool, model.index_head_dim)) +
                    " bytes) is larger than the indexer's page (" + std::to_string(index_page) +
                    " bytes): vLLM then leaves the shared layout, which kvplan does not model");
  std::uint64_t mla = 0, states = 0;
  for (const auto& s : ev.stages) mla += s.cached, states += s.state_layers;
  std::uint64_t groups = ceil_div(states, std::max<std::uint64_t>(mla, 1));
  for (const auto& s : ev.stages) {
    if (s.state_layers == 0) continue;
    if (s.cached == 0)
      throw Error(ev.source, "pp",
                  "a pipeline stage has mamba layers but no MLA layer to share slots with; "
                  "realign the stage boundaries (VLLM_PP_LAYER_PARTITION)");
    groups = std::max(groups, ceil_div(std::uint64_t{s.state_layers}, s.cached));
  }
  if (st.cached == 0) return;
  auto state = std::find_if(st.types.begin(), st.types.end(), [](const detail::PlanLayerType& t) {
    return t.kind == AttentionKind::none;
  });
  if (state == st.types.end()) {
    st.types.push_back({AttentionKind::none, 0, 0});
    state = st.types.end() - 1;
  }
  const auto attention = std::find_if(st.types.begin(), st.types.end(),
                                      [](const auto& t) { return t.kind != AttentionKind::none; });
  st.group_size = st.cached;
  st.group_types.assign(1, static_cast<std::size_t>(attention - st.types.begin()));
  st.group_types.insert(st.group_types.end(), groups,
                        static_cast<std::size_t>(state - st.types.begin()));
  st.shares_slots = true;
  st.tail_blocks = model.index_tail ? 1 : 0;
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
