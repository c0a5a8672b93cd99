#include "kvplan/formula.hpp"

#include "kvplan/checked.hpp"
#include "kvplan/error.hpp"

namespace kvplan {

namespace {
constexpr std::uint64_t kMaxContext = std::uint64_t{1} << 40;
constexpr std::uint64_t kMaxBatch = std::uint64_t{1} << 32;
}  // namespace

std::uint32_t kv_heads_per_rank(const ModelSpec& model, std::uint32_t tp,
                                const std::string& source) {
  if (tp == 0) throw Error(source, "tp", "tensor parallelism must be at least 1, got 0");
  if (model.is_mla()) return 1;  // the latent is replicated on every rank
  const std::uint32_t h = model.num_kv_heads;
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

KvLayout make_layout(const ModelSpec& model, std::uint32_t tp, bool include_draft_layers,
                     const std::string& source) {
  KvLayout out;
  out.kv_heads = kv_heads_per_rank(model, tp, source);
  out.mla = model.is_mla();
  out.k_width = out.mla ? model.latent_width() : model.head_dim_k;
  out.v_width = out.mla ? 0 : model.head_dim_v;
  auto add_layer = [&](AttentionKind kind, std::uint64_t window) {
    if (kind == AttentionKind::none) return;
    for (auto& g : out.groups) {
      if (g.kind == kind && g.window == window) {
        ++g.layers;
        return;
      }
    }
    out.groups.push_back({kind, window, 1});
  };
  for (const auto& l : model.layers) add_layer(l.kind, l.window);
  if (include_draft_layers)
    for (std::uint32_t i = 0; i < model.draft_layers; ++i)
      add_layer(out.mla ? AttentionKind::mla : AttentionKind::full, 0);
  return out;
}

void validate_format(const KvLayout& layout, const KvFormat& format, std::uint32_t block_size,
                     const std::string& source) {
  validate_stream(format, layout.mla ? StreamRole::latent : StreamRole::key, layout.k_width,
                  block_size, source);
  if (!layout.mla) validate_stream(format, StreamRole::value, layout.v_width, block_size, source);
}

namespace {

std::uint64_t layer_bytes(const KvLayout& l, const KvFormat& f, std::uint64_t kept,
                          std::uint32_t block) {
  std::uint64_t b =
      stream_bytes(f, l.mla ? StreamRole::latent : StreamRole::key, l.k_width, kept, block);
  if (!l.mla) b = add(b, stream_bytes(f, StreamRole::value, l.v_width, kept, block));
  return mul(b, l.kv_heads, "bytes per layer");
}

std::uint64_t kept_in(const KvLayout::Group& g, std::uint64_t policy_kept) {
  return g.kind == AttentionKind::sliding ? std::min(policy_kept, g.window) : policy_kept;
}

// Marginal bytes of one more token in one layer (all heads on the rank), away from kivi's
// fp16 residual.
std::uint64_t token_bytes(const KvLayout& l, const KvFormat& f) {
  auto per_stream = [&](StreamRole role, std::uint32_t w) -> std::uint64_t {
    if (w == 0) return 0;
    if (f.dtype != KvDtype::kivi) return stream_bytes(f, role, w, 1, 1);
    const std::uint64_t P = kivi_group_bytes(f);
    return role == StreamRole::key ? ceil_div(std::uint64_t{w} * P, f.group)
                                   : std::uint64_t{w} / f.group * P;
  };
  return mul(l.kv_heads, per_stream(l.mla ? StreamRole::latent : StreamRole::key, l.k_width) +
                             per_stream(StreamRole::value, l.v_width));
}

}  // namespace

std::uint64_t request_bytes(const KvLayout& layout, const KvFormat& format,
                            const RetentionPolicy& policy, std::uint64_t n,
                            std::uint32_t block_size, std::optional<std::uint64_t> prefill) {
  const std::uint64_t policy_kept = retained(policy, n, prefill);
  std::uint64_t total = 0;
  for (const auto& g : layout.groups) {
    const std::uint64_t b = layer_bytes(layout, format, kept_in(g, policy_kept), block_size);
    total = add(total, mul(b, g.layers), "bytes per request");
  }
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
    throw Error(source, "context", "must be at most 2^40 tokens, got " + std::to_string(in.context));
  if (in.batch > kMaxBatch)
    throw Error(source, "batch", "must be at most 2^32 sequences, got " + std::to_string(in.batch));
  if (in.block_size == 0) throw Error(source, "block_size", "must be at least 1 token, got 0");

  const KvLayout layout = make_layout(model, in.tp, in.include_draft_layers, source);
  validate_format(layout, in.format, in.block_size, source);

  KvCost out;
  out.kv_heads_per_rank = layout.kv_heads;
  out.nominal_bytes_per_element = nominal_bytes_per_element(in.format);
  const std::uint64_t policy_kept = retained(in.policy, in.context, in.prefill);
  for (const auto& g : layout.groups) {
    LayerGroupCost c{.kind = g.kind, .window = g.window, .layers = g.layers,
                     .retained = kept_in(g, policy_kept), .kv_heads = layout.kv_heads,
                     .k_width = layout.k_width, .v_width = layout.v_width};
    c.bytes_per_layer = layer_bytes(layout, in.format, c.retained, in.block_size);
    c.bytes = mul(c.bytes_per_layer, g.layers, "bytes per request");
    out.groups.push_back(c);
    out.cached_layers += g.layers;
    out.bytes_per_request = add(out.bytes_per_request, c.bytes, "bytes per request");
  }
  out.bytes_per_token = mul(token_bytes(layout, in.format), out.cached_layers, "bytes per token");
  out.total_bytes = mul(out.bytes_per_request, in.batch, "total bytes");
  return out;
}

}  // namespace

}  // namespace kvplan
