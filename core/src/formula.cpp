#include "kvplan/formula.hpp"

#include "kvplan/checked.hpp"
#include "kvplan/error.hpp"

namespace kvplan {

namespace {
constexpr std::uint64_t kMaxContext = std::uint64_t{1} << 40;
constexpr std::uint64_t kMaxBatch = std::uint64_t{1} << 32;
}  // namespace

namespace {
std::uint32_t heads_per_rank(const ModelSpec& model, std::uint32_t h, std::uint32_t tp,
                             const std::string& source) {
  if (tp == 0) throw Error(source, "tp", "tensor parallelism must be at least 1, got 0");
  if (model.is_mla()) return 1;  // the latent is replicated on every rank
  if (tp <= h) {
    if (h % tp != 0)
      throw Error(source, "tp",
                  "tensor parallelism " + std::to_string(tp) + " does not divide the " +
                      std::to_string(h) + " KV heads of " + model.id);
    return h / tp;
  }
  if (tp % h != 0)
    throw Error(source, "tp",
                "tensor parallelism " + std::to_string(tp) + " is above the " + std::to_string(h) +
                    " KV heads of " + model.id + " and not a multiple of them (heads replicate)");
  return 1;
}
}  // namespace

std::uint32_t kv_heads_per_rank(const ModelSpec& model, std::uint32_t tp,
                                const std::string& source) {
  return heads_per_rank(model, model.num_kv_heads, tp, source);
}

std::uint32_t kv_heads_per_rank(const ModelSpec& model, const LayerSpec& layer, std::uint32_t tp,
                                const std::string& source) {
  return heads_per_rank(model, layer.kv_heads ? layer.kv_heads : model.num_kv_heads, tp, source);
}

std::uint64_t indexer_bytes_per_token(std::uint32_t index_head_dim) {
  return std::uint64_t{index_head_dim} + 4 * ceil_div(index_head_dim, 128);
}

std::uint64_t kpool_tail_bytes(std::uint32_t index_kpool, std::uint32_t index_head_dim) {
  return std::uint64_t{index_kpool} * 2 * index_head_dim * 2;
}

std::uint64_t indexer_bytes(std::uint32_t index_head_dim, std::uint32_t index_kpool,
                            bool index_tail, std::uint64_t tokens) {
  std::uint64_t b = mul(indexer_keys(index_kpool, tokens), indexer_bytes_per_token(index_head_dim),
                        "indexer bytes");
  if (index_tail) b = add(b, kpool_tail_bytes(index_kpool, index_head_dim), "indexer bytes");
  return b;
}

std::uint64_t dsa_fp8_latent_bytes_per_token(std::uint32_t kv_lora_rank,
                                             std::uint32_t qk_rope_head_dim) {
  return std::uint64_t{kv_lora_rank} + std::uint64_t{kv_lora_rank} / 128 * 4 +
         2 * std::uint64_t{qk_rope_head_dim};
}

std::pair<KvDtype, KvDtype> state_dtypes(const RecurrentSpec& r, std::optional<KvDtype> conv,
                                         std::optional<KvDtype> ssm) {
  // vLLM's MambaStateDtypeCalculator (model_executor/layers/mamba/mamba_utils.py@02d71083):
  // _mamba_state_dtype takes the conv state from mamba_cache_dtype ("auto" = the model's) and
  // the temporal state from mamba_ssm_cache_dtype, or, when that is "auto", from the conv state's;
  // a per-model hook sets mamba_ssm_cache_dtype first (RecurrentSpec::ssm_dtype_pinned).
  // linear_attention_state_dtype (lightning) has one state, from mamba_cache_dtype alone.
  const KvDtype c = conv.value_or(r.conv_dtype);
  if (r.kind == MixerKind::lightning) return {c, conv ? *conv : ssm.value_or(r.ssm_dtype)};
  if (ssm) return {c, *ssm};
  return {c, conv && !r.ssm_dtype_pinned ? *conv : r.ssm_dtype};
}

KvLayout make_layout(const ModelSpec& model, std::uint32_t tp, std::uint32_t draft_layers,
                     const std::string& source, std::optional<KvDtype> conv_state_dtype,
                     std::optional<KvDtype> ssm_state_dtype) {
  KvLayout out;
  out.kv_heads =
      model.cached_layers() > 0 || draft_layers > 0 ? kv_heads_per_rank(model, tp, source) : 1;
  out.mla = model.is_mla();
  out.k_width = out.mla ? model.latent_width() : model.head_dim_k;
  out.v_width = out.mla ? 0 : model.head_dim_v;
  auto add_layer = [&](const LayerSpec& l) {
    if (l.kind == AttentionKind::none) return;
    const KvLayout::Group n{
        .kind = l.kind,
        .window = l.window,
        .layers = 1,
        .kv_heads = l.kv_heads ? kv_heads_per_rank(model, l, tp, source) : out.kv_heads,
        .k_width = l.head_dim_k ? l.head_dim_k : out.k_width,
        .v_width = l.head_dim_v ? l.head_dim_v : out.v_width};
    for (auto& g : out.groups) {
      if (g.kind == n.kind && g.window == n.window && g.kv_heads == n.kv_heads &&
          g.k_width == n.k_width && g.v_width == n.v_width) {
        ++g.layers;
        return;
      }
    }
    out.groups.push_back(n);
  };
  for (const auto& l : model.layers) add_layer(l);
  for (std::uint32_t i = 0; i < draft_layers; ++i)
    add_layer({.kind = out.mla ? AttentionKind::mla : AttentionKind::full});
  if (model.index_head_dim > 0) {
    out.index_head_dim = model.index_head_dim;
    out.index_kpool = model.index_kpool;
    out.index_tail = model.index_tail;
    for (const auto& g : out.groups)
      out.indexer_layers += g.kind == AttentionKind::mla ? g.layers : 0;
  }
  out.state_layers = model.recurrent_layers();
  if (out.state_layers > 0) {
    const RecurrentSpec& r = model.recurrent;
    const auto [conv, ssm] = state_dtypes(r, conv_state_dtype, ssm_state_dtype);
    out.state = recurrent_state(r, tp, conv, ssm, source);
  }
  return out;
}

void validate_format(const KvLayout& layout, const KvFormat& format, std::uint32_t block_size,
                     const std::string& source) {
  if (layout.groups.empty()) {
    if (block_size == 0) throw Error(source, "block_size", "must be at least 1 token, got 0");
    return;  // attention-free: the format has nothing to hold
  }
  for (const auto& g : layout.groups) {
    validate_stream(format, layout.mla ? StreamRole::latent : StreamRole::key, g.k_width,
                    block_size, source);
    if (!layout.mla) validate_stream(format, StreamRole::value, g.v_width, block_size, source);
  }
}

namespace {

std::uint64_t layer_bytes(const KvLayout& l, const KvLayout::Group& g, const KvFormat& f,
                          std::uint64_t kept, std::uint32_t block) {
  std::uint64_t b =
      stream_bytes(f, l.mla ? StreamRole::latent : StreamRole::key, g.k_width, kept, block);
  if (!l.mla) b = add(b, stream_bytes(f, StreamRole::value, g.v_width, kept, block));
  return mul(b, g.kv_heads, "bytes per layer");
}

// Sliding layers keep the last W tokens; chunked layers the tokens of the current chunk, at most
// C (the peak over a request's life, which is what a reservation must hold).
std::uint64_t kept_in(const KvLayout::Group& g, std::uint64_t policy_kept) {
  const bool capped = g.kind == AttentionKind::sliding || g.kind == AttentionKind::chunked;
  return capped ? std::min(policy_kept, g.window) : policy_kept;
}

bool grows(AttentionKind k) { return k == AttentionKind::full || k == AttentionKind::mla; }

// One layer's indexer keys for `kept` tokens in blocks of `block`: a kpool indexer keeps one key
// per complete pool of kpool tokens (a block of B tokens holds B // kpool, vLLM's num_states =
// block_size // tokens_per_state, B a multiple of kpool as Glm5NextIndexerCache asserts), and its
// tail one block of kpool tokens a request.
std::uint64_t indexer_layer_bytes(const KvLayout& l, std::uint64_t kept, std::uint32_t block) {
  return indexer_bytes(l.index_head_dim, l.index_kpool, l.index_tail,
                       round_up(kept, block, "indexer tokens"));
}

// The marginal bytes of one more token of one indexer layer: a kpool indexer's key over its
// kpool tokens, rounded up.
std::uint64_t indexer_token_rate(const KvLayout& l) {
  const std::uint64_t key = indexer_bytes_per_token(l.index_head_dim);
  return l.index_kpool > 1 ? ceil_div(key, l.index_kpool) : key;
}

// Marginal bytes of one more token in one layer of group g (all heads on the rank), away from
// kivi's fp16 residual.
std::uint64_t token_bytes(const KvLayout& l, const KvLayout::Group& g, const KvFormat& f) {
  auto per_stream = [&](StreamRole role, std::uint32_t w) -> std::uint64_t {
    if (w == 0) return 0;
    if (f.dtype != KvDtype::kivi) return stream_bytes(f, role, w, 1, 1);
    const std::uint64_t P = kivi_group_bytes(f);
    return role == StreamRole::key ? ceil_div(std::uint64_t{w} * P, f.group)
                                   : std::uint64_t{w} / f.group * P;
  };
  return mul(g.kv_heads, per_stream(l.mla ? StreamRole::latent : StreamRole::key, g.k_width) +
                             per_stream(StreamRole::value, g.v_width));
}

}  // namespace

std::uint64_t request_bytes(const KvLayout& layout, const KvFormat& format,
                            const RetentionPolicy& policy, std::uint64_t n,
                            std::uint32_t block_size, std::optional<std::uint64_t> prefill) {
  const std::uint64_t policy_kept = retained(policy, n, prefill);
  std::uint64_t total = 0;
  for (const auto& g : layout.groups) {
    const std::uint64_t b = layer_bytes(layout, g, format, kept_in(g, policy_kept), block_size);
    total = add(total, mul(b, g.layers), "bytes per request");
  }
  if (layout.indexer_layers > 0)
    total =
        add(total, mul(indexer_layer_bytes(layout, policy_kept, block_size), layout.indexer_layers),
            "bytes per request");
  if (layout.state_layers > 0)
    total = add(total, mul(layout.state.bytes(), layout.state_layers), "bytes per request");
  return total;
}

namespace {
KvCost kv_cost_unchecked(const ModelSpec& model, const KvCostInput& in, const std::string& source);
}  // namespace

KvCost kv_cost(const ModelSpec& model, const KvCostInput& in, const std::string& source) {
  try {
    return kv_cost_unchecked(model, in, source);
  } catch (const Error& e) {
    // checked arithmetic names only the quantity; say which inputs made it overflow.
    if (!e.field().empty() || e.source() == source) throw;
    throw Error(source, e.source() == "total bytes" ? "batch" : "context",
                e.source() + " overflows 64-bit bytes for " + model.id + " at context " +
                    std::to_string(in.context) + " × batch " + std::to_string(in.batch));
  }
}

namespace {
KvCost kv_cost_unchecked(const ModelSpec& model, const KvCostInput& in, const std::string& source) {
  if (in.context > kMaxContext)
    throw Error(source, "context",
                "must be at most 2^40 tokens, got " + std::to_string(in.context));
  if (in.batch > kMaxBatch)
    throw Error(source, "batch", "must be at most 2^32 sequences, got " + std::to_string(in.batch));
  if (in.block_size == 0) throw Error(source, "block_size", "must be at least 1 token, got 0");

  const KvLayout layout =
      make_layout(model, in.tp, in.draft_layers, source, in.conv_state_dtype, in.ssm_state_dtype);
  validate_format(layout, in.format, in.block_size, source);

  KvCost out;
  out.kv_heads_per_rank = layout.kv_heads;
  out.nominal_bytes_per_element = nominal_bytes_per_element(in.format);
  const std::uint64_t policy_kept = retained(in.policy, in.context, in.prefill);
  for (const auto& g : layout.groups) {
    LayerGroupCost c{.kind = g.kind,
                     .window = g.window,
                     .layers = g.layers,
                     .retained = kept_in(g, policy_kept),
                     .kv_heads = g.kv_heads,
                     .k_width = g.k_width,
                     .v_width = g.v_width};
    c.bytes_per_layer = layer_bytes(layout, g, in.format, c.retained, in.block_size);
    c.bytes = mul(c.bytes_per_layer, g.layers, "bytes per request");
    out.groups.push_back(c);
    out.cached_layers += g.layers;
    if (grows(g.kind)) {
      out.growing_bytes = add(out.growing_bytes, c.bytes, "bytes per request");
      out.bytes_per_token = add(out.bytes_per_token,
                                mul(token_bytes(layout, g, in.format), g.layers, "bytes per token"),
                                "bytes per token");
    } else {
      out.capped_bytes = add(out.capped_bytes, c.bytes, "bytes per request");
    }
  }
  if (layout.indexer_layers > 0) {
    LayerGroupCost c{.role = GroupRole::indexer,
                     .kind = AttentionKind::mla,
                     .layers = layout.indexer_layers,
                     .retained = policy_kept,
                     .kv_heads = 1,
                     .k_width = layout.index_head_dim};
    c.bytes_per_layer = indexer_layer_bytes(layout, policy_kept, in.block_size);
    c.bytes = mul(c.bytes_per_layer, c.layers, "bytes per request");
    out.groups.push_back(c);
    out.growing_bytes = add(out.growing_bytes, c.bytes, "bytes per request");
    out.bytes_per_token =
        add(out.bytes_per_token, mul(indexer_token_rate(layout), layout.indexer_layers),
            "bytes per token");
  }
  if (layout.state_layers > 0) {
    LayerGroupCost c{
        .role = GroupRole::state, .kind = AttentionKind::none, .layers = layout.state_layers};
    c.bytes_per_layer = layout.state.bytes();
    c.conv_bytes = layout.state.conv_bytes;
    c.ssm_bytes = layout.state.ssm_bytes;
    c.bytes = mul(c.bytes_per_layer, c.layers, "bytes per request");
    out.groups.push_back(c);
    out.state_layers = layout.state_layers;
    out.state_bytes_per_request = c.bytes;
  }
  out.bytes_per_request = add(add(out.growing_bytes, out.capped_bytes, "bytes per request"),
                              out.state_bytes_per_request, "bytes per request");
  out.total_bytes = mul(out.bytes_per_request, in.batch, "total bytes");
  return out;
}

}  // namespace

}  // namespace kvplan
