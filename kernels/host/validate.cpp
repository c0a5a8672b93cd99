// Parameter validation and byte counts of every kernel family: backend-independent host code that
// the CPU dispatchers (kvplan_kernels) and the CUDA launchers (kvplan_kernels_cuda) both call, so
// neither library needs the other to validate (no link cycle).
#include <cmath>
#include <string>

#include "kvplan/kernels/attention.hpp"
#include "kvplan/kernels/eviction.hpp"
#include "kvplan/kernels/paged_kv.hpp"
#include "kvplan/kernels/quantize.hpp"

namespace kvplan::kernels {
namespace {

bool is_fp8(KvDtype d) { return d == KvDtype::fp8_e4m3 || d == KvDtype::fp8_e5m2; }

Status validate_view(const PagedKvView& v, std::uint32_t num_q_heads, const char* who) {
  std::string problems;
  auto add = [&](const std::string& m) { problems += (problems.empty() ? "" : "; ") + m; };
  if (v.num_kv_heads == 0) add("kv.num_kv_heads must be >= 1");
  if (v.head_dim == 0) add("kv.head_dim must be >= 1");
  if (v.block_size == 0) add("kv.block_size must be >= 1");
  if (v.num_tokens == 0) add("kv.num_tokens must be >= 1");
  if (v.num_kv_heads && (num_q_heads == 0 || num_q_heads % v.num_kv_heads != 0))
    add("num_q_heads " + std::to_string(num_q_heads) + " must be a positive multiple of " +
        "num_kv_heads " + std::to_string(v.num_kv_heads));
  if (!v.positions) add("kv.positions must not be null");
  if (v.format.dtype == KvDtype::kivi) {  // the pool's own checks, for views built elsewhere
    const KvFormat& f = v.format;
    if (f.bits != 2 && f.bits != 4 && f.bits != 8)
      add("kv.format kivi bits must be 2, 4 or 8, got " + std::to_string(f.bits));
    if (f.group == 0 || (v.head_dim && v.head_dim % f.group != 0))
      add("kv.format kivi group " + std::to_string(f.group) + " must divide head_dim " +
          std::to_string(v.head_dim));
    if (f.group && (f.residual == 0 || f.residual % f.group != 0))
      add("kv.format kivi residual " + std::to_string(f.residual) +
          " must be a positive multiple of group " + std::to_string(f.group));
  }
  return problems.empty() ? Status::Ok() : Status::Invalid(std::string(who) + ": " + problems);
}

Status check_common(std::uint32_t heads, const std::int32_t* positions, std::uint32_t stride,
                    std::uint32_t n, const char* who) {
  if (heads == 0) return Status::Invalid(std::string(who) + ": num_kv_heads must be >= 1");
  if (n > 0 && (!positions || stride < n))
    return Status::Invalid(std::string(who) + ": positions [num_kv_heads, stride >= n] required");
  return Status::Ok();
}

}  // namespace

Status validate(const QuantizeParams& p, bool dequantize) {
  std::string problems;
  auto add = [&](const std::string& m) { problems += (problems.empty() ? "" : "; ") + m; };
  if (p.width == 0) add("width must be >= 1");
  if (p.format.dtype == KvDtype::kivi) {
    const auto& f = p.format;
    if (f.bits != 2 && f.bits != 4 && f.bits != 8)
      add("kivi bits must be 2, 4 or 8, got " + std::to_string(f.bits));
    if (f.group == 0) {
      add("kivi group must be >= 1");
    } else {
      if (p.role == StreamRole::value && p.width % f.group != 0)
        add("kivi group " + std::to_string(f.group) + " must divide head dim " +
            std::to_string(p.width));
      if (p.role == StreamRole::key && p.tokens % f.group != 0)
        add("kivi key tokens " + std::to_string(p.tokens) + " must be a multiple of group " +
            std::to_string(f.group));
      if (f.residual == 0 || f.residual % f.group != 0)
        add("kivi residual " + std::to_string(f.residual) +
            " must be a positive multiple of group " + std::to_string(f.group));
    }
    if (p.role == StreamRole::latent) add("kivi is not available for MLA latents");
  }
  if (is_fp8(p.format.dtype) && !(std::isfinite(p.fp8_scale) && p.fp8_scale > 0.f))
    add("fp8 scale must be finite and > 0, got " + std::to_string(p.fp8_scale));
  if (p.tokens > 0) {
    if (!dequantize && (!p.in || !p.out)) add("quantize needs in and out");
    if (dequantize && (!p.codes || !p.dequant)) add("dequantize needs codes and dequant");
  }
  return problems.empty() ? Status::Ok() : Status::Invalid(problems);
}

std::uint64_t quantized_bytes(const KvFormat& f, StreamRole role, std::uint32_t width,
                              std::uint64_t tokens) {
  switch (f.dtype) {
    case KvDtype::int8:
      return tokens * int8_record_bytes(width);
    case KvDtype::kivi: {
      const std::uint64_t P = kivi_record_bytes(f.group, f.bits);
      if (role == StreamRole::key) return tokens / f.group * width * P;
      return tokens * (width / f.group) * P;
    }
    default:
      return tokens * width * plain_element_bytes(f.dtype);
  }
}

std::uint64_t bytes_for(const KvFormat& f, StreamRole role, std::uint32_t width,
                        std::uint64_t tokens) {
  if (f.dtype != KvDtype::kivi) return quantized_bytes(f, role, width, tokens);
  const std::uint64_t R = f.residual;
  if (role == StreamRole::key) {
    const std::uint64_t q = tokens / R * R;
    return quantized_bytes(f, role, width, q) + (tokens - q) * width * 2;
  }
  const std::uint64_t q = tokens > R ? tokens - R : 0;
  return quantized_bytes(f, role, width, q) + (tokens - q) * width * 2;
}

Status validate(const PoolConfig& c) {
  std::string problems;
  auto add = [&](const std::string& m) { problems += (problems.empty() ? "" : "; ") + m; };
  if (c.block_size == 0) add("block_size must be >= 1, got 0");
  if (c.num_layers == 0) add("num_layers must be >= 1");
  if (c.num_kv_heads == 0) add("num_kv_heads must be >= 1");
  if (c.head_dim == 0) add("head_dim must be >= 1");
  const KvFormat& f = c.format;
  if (f.dtype == KvDtype::kivi) {
    if (f.bits != 2 && f.bits != 4 && f.bits != 8)
      add("kivi bits must be 2, 4 or 8, got " + std::to_string(f.bits));
    if (f.group == 0) {
      add("kivi group must be >= 1");
    } else {
      if (c.head_dim % f.group != 0)
        add("kivi group " + std::to_string(f.group) + " must divide head_dim " +
            std::to_string(c.head_dim));
      if (f.residual == 0 || f.residual % f.group != 0)
        add("kivi residual " + std::to_string(f.residual) +
            " must be a positive multiple of group " + std::to_string(f.group));
    }
  }
  if (!(std::isfinite(c.k_scale) && c.k_scale > 0.f && std::isfinite(c.v_scale) && c.v_scale > 0.f))
    add("fp8 k_scale and v_scale must be finite and > 0");
  return problems.empty() ? Status::Ok() : Status::Invalid("PoolConfig: " + problems);
}

Status validate(const DecodeAttentionParams& p) {
  if (Status s = validate_view(p.kv, p.num_q_heads, "decode_attention"); !s.ok()) return s;
  if (!p.q || !p.out) return Status::Invalid("decode_attention: q and out must not be null");
  return Status::Ok();
}

Status validate(const PrefillAttentionParams& p) {
  if (Status s = validate_view(p.kv, p.num_q_heads, "prefill_attention"); !s.ok()) return s;
  if (p.num_queries == 0 || !p.q || !p.q_positions)
    return Status::Invalid("prefill_attention: needs num_queries >= 1, q and q_positions");
  return Status::Ok();
}

Status validate(const StreamingSelectParams& p) {
  return check_common(p.num_kv_heads, p.positions, p.positions_stride, p.num_tokens,
                      "streaming_select");
}
Status validate(const H2oAccumulateParams& p) {
  if (p.num_kv_heads == 0 || p.num_q_heads == 0 || p.num_q_heads % p.num_kv_heads != 0)
    return Status::Invalid(
        "h2o_accumulate: num_q_heads must be a positive multiple of num_kv_heads");
  if (p.num_tokens > 0 && (!p.probs || !p.scores))
    return Status::Invalid("h2o_accumulate: probs and scores must not be null");
  return Status::Ok();
}
Status validate(const H2oSelectParams& p) {
  if (Status s =
          check_common(p.num_kv_heads, p.positions, p.positions_stride, p.num_tokens, "h2o_select");
      !s.ok())
    return s;
  if (p.num_tokens > 0 && !p.scores) return Status::Invalid("h2o_select: scores must not be null");
  return Status::Ok();
}
Status validate(const SnapKvSelectParams& p) {
  if (Status s = check_common(p.num_kv_heads, p.positions, p.positions_stride, p.num_tokens,
                              "snapkv_select");
      !s.ok())
    return s;
  if (p.num_q_heads == 0 || p.num_q_heads % p.num_kv_heads != 0)
    return Status::Invalid(
        "snapkv_select: num_q_heads must be a positive multiple of num_kv_heads");
  if (p.kernel == 0) return Status::Invalid("snapkv_select: kernel must be >= 1, got 0");
  if (p.num_queries > p.num_tokens)
    return Status::Invalid("snapkv_select: num_queries " + std::to_string(p.num_queries) +
                           " exceeds num_tokens " + std::to_string(p.num_tokens));
  if (p.num_tokens > 0 && p.num_queries > 0 && !p.probs)
    return Status::Invalid("snapkv_select: probs must not be null");
  return Status::Ok();
}

}  // namespace kvplan::kernels
