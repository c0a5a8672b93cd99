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

KvCost kv_cost(const ModelSpec& model, const KvCostInput& in, const std::string& source) {
  if (in.context > kMaxContext)
    throw Error(source, "context", "must be at most 2^40 tokens, got " + std::to_string(in.context));
  if (in.batch > kMaxBatch)
    throw Error(source, "batch", "must be at most 2^32 sequences, got " + std::to_string(in.batch));
  if (in.block_size == 0) throw Error(source, "block_size", "must be at least 1 token, got 0");
  if (in.prefill && *in.prefill > in.context)
    throw Error(source, "prefill", "prompt length exceeds the context length");

  KvCost out;
  out.kv_heads_per_rank = kv_heads_per_rank(model, in.tp, source);
  out.nominal_bytes_per_element = nominal_bytes_per_element(in.format);
  const std::uint64_t heads = out.kv_heads_per_rank;

  const bool mla = model.is_mla();
  const StreamRole k_role = mla ? StreamRole::latent : StreamRole::key;
  const std::uint32_t kw = mla ? model.latent_width() : model.head_dim_k;
  const std::uint32_t vw = mla ? 0 : model.head_dim_v;
  validate_stream(in.format, k_role, kw, in.block_size, source);
  if (!mla) validate_stream(in.format, StreamRole::value, vw, in.block_size, source);

  const std::uint64_t policy_kept = retained(in.policy, in.context, in.prefill);

  // Marginal per-token bytes of each stream, away from kivi's fp16 residual.
  auto per_token = [&](StreamRole role, std::uint32_t w) -> std::uint64_t {
    if (w == 0) return 0;
    if (in.format.dtype != KvDtype::kivi) return stream_bytes(in.format, role, w, 1, 1);
    const std::uint64_t P = kivi_group_bytes(in.format);
    return role == StreamRole::key ? ceil_div(std::uint64_t{w} * P, in.format.group)
                                   : std::uint64_t{w} / in.format.group * P;
  };
  const std::uint64_t token_bytes_one_layer =
      mul(heads, per_token(k_role, kw) + per_token(StreamRole::value, vw));

  auto layer_bytes = [&](std::uint64_t kept) {
    std::uint64_t b = stream_bytes(in.format, k_role, kw, kept, in.block_size);
    if (!mla) b = add(b, stream_bytes(in.format, StreamRole::value, vw, kept, in.block_size));
    return mul(b, heads, "bytes per layer");
  };

  auto add_layer = [&](AttentionKind kind, std::uint64_t window) {
    if (kind == AttentionKind::none) return;
    std::uint64_t kept = policy_kept;
    if (kind == AttentionKind::sliding) kept = std::min(kept, window);
    for (auto& g : out.groups) {
      if (g.kind == kind && g.window == window) {
        ++g.layers;
        g.bytes = add(g.bytes, g.bytes_per_layer);
        return;
      }
    }
    LayerGroupCost g{.kind = kind, .window = window, .layers = 1, .retained = kept,
                     .kv_heads = out.kv_heads_per_rank, .k_width = kw, .v_width = vw,
                     .bytes_per_layer = layer_bytes(kept)};
    g.bytes = g.bytes_per_layer;
    out.groups.push_back(g);
  };
  for (const auto& l : model.layers) add_layer(l.kind, l.window);
  if (in.include_draft_layers)
    for (std::uint32_t i = 0; i < model.draft_layers; ++i)
      add_layer(mla ? AttentionKind::mla : AttentionKind::full, 0);

  for (const auto& g : out.groups) {
    out.cached_layers += g.layers;
    out.bytes_per_request = add(out.bytes_per_request, g.bytes, "bytes per request");
  }
  out.bytes_per_token = mul(token_bytes_one_layer, out.cached_layers, "bytes per token");
  out.total_bytes = mul(out.bytes_per_request, in.batch, "total bytes");
  return out;
}

}  // namespace kvplan
