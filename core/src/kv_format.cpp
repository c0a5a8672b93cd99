#include "kvplan/kv_format.hpp"

#include <numeric>
#include <optional>

#include "kvplan/checked.hpp"
#include "kvplan/error.hpp"
#include "kvplan/model.hpp"
#include "spec_parse.hpp"

namespace kvplan {

namespace {

struct PlainName {
  const char* name;
  KvDtype dtype;
};
constexpr PlainName kPlain[] = {{"fp32", KvDtype::fp32},         {"fp16", KvDtype::fp16},
                                {"bf16", KvDtype::bf16},         {"fp8", KvDtype::fp8_e4m3},
                                {"fp8_e4m3", KvDtype::fp8_e4m3}, {"fp8_e5m2", KvDtype::fp8_e5m2},
                                {"int8", KvDtype::int8}};

std::uint64_t plain_elem_bytes(KvDtype d) {
  switch (d) {
    case KvDtype::fp32:
      return 4;
    case KvDtype::fp16:
    case KvDtype::bf16:
      return 2;
    case KvDtype::fp8_e4m3:
    case KvDtype::fp8_e5m2:
    case KvDtype::int8:
      return 1;
    case KvDtype::kivi:
      break;
  }
  return 0;
}

}  // namespace

KvFormat parse_kv_format(std::string_view spec, const std::string& source,
                         const std::string& field) {
  auto opts = detail::split_spec(spec, source, field);
  for (const auto& p : kPlain) {
    if (opts.head != p.name) continue;
    if (!opts.values.empty())
      throw Error(source, field,
                  "format '" + opts.head + "' takes no options, got '" + std::string(spec) + "'");
    return KvFormat{.dtype = p.dtype};
  }
  if (opts.head != "kivi") {
    throw Error(source, field,
                "unknown KV format '" + std::string(spec) +
                    "' (expected fp32, fp16, bf16, fp8, fp8_e5m2, int8 or "
                    "kivi:bits=2|4|8,group=G,residual=R)");
  }
  KvFormat f{.dtype = KvDtype::kivi};
  for (const auto& [key, value] : opts.values) {
    std::string sub = field + "." + key;
    if (key == "bits") {
      f.bits = static_cast<std::uint32_t>(detail::parse_uint(value, 2, 8, source, sub));
      if (f.bits != 2 && f.bits != 4 && f.bits != 8)
        throw Error(source, sub, "bits must be 2, 4 or 8, got " + value);
    } else if (key == "group") {
      f.group = static_cast<std::uint32_t>(detail::parse_uint(value, 1, 1u << 20, source, sub));
    } else if (key == "residual") {
      f.residual = static_cast<std::uint32_t>(detail::parse_uint(value, 1, 1u << 24, source, sub));
    } else {
      throw Error(source, sub,
                  "unknown kivi option '" + key + "' (expected bits, group, residual)");
    }
  }
  if (f.residual % f.group != 0)
    throw Error(source, field + ".residual",
                "must be a multiple of group (" + std::to_string(f.group) + "), got " +
                    std::to_string(f.residual));
  return f;
}

std::string to_string(const KvFormat& f) {
  switch (f.dtype) {
    case KvDtype::fp32:
      return "fp32";
    case KvDtype::fp16:
      return "fp16";
    case KvDtype::bf16:
      return "bf16";
    case KvDtype::fp8_e4m3:
      return "fp8";
    case KvDtype::fp8_e5m2:
      return "fp8_e5m2";
    case KvDtype::int8:
      return "int8";
    case KvDtype::kivi:
      return "kivi:bits=" + std::to_string(f.bits) + ",group=" + std::to_string(f.group) +
             ",residual=" + std::to_string(f.residual);
  }
  return "?";
}

// `--kv-cache-dtype auto` stores the cache in the model's dtype: vLLM's
// kv_cache_dtype_str_to_dtype returns model_config.dtype for "auto" (and get_kv_cache_torch_dtype
// the model dtype), vllm/utils/torch_utils.py @ vllm-project/vllm 0024350b,
// https://github.com/vllm-project/vllm/blob/0024350b5da3ad174435e62a15273c0d3caba57b/vllm/utils/torch_utils.py
// model_config.dtype is config.json's torch_dtype unless --dtype says otherwise; a quantized
// checkpoint keeps its torch_dtype as the compute dtype. SGLang's model_runner does the same
// (kv_cache_dtype "auto" -> self.dtype). A float32 checkpoint under --dtype auto runs in the
// platform's preferred dtype, bf16 on GPUs that have it ("Downcast for float32 models",
// _resolve_auto_dtype in vllm/config/model.py, vllm-project/vllm: config_dtype float32 ->
// supported_dtypes[0]); only --dtype float32 keeps fp32. Not modelled: a modelopt checkpoint's
// kv_cache_quant_algo, which "auto" follows.
KvFormat default_kv_format(const ModelSpec& model, std::string_view dtype) {
  // A model's dtype as a KV dtype, for the 16- and 32-bit floats a checkpoint computes in.
  const auto plain = [](std::string_view d) -> std::optional<KvDtype> {
    for (const auto& p : kPlain)
      if (d == p.name && plain_elem_bytes(p.dtype) >= 2) return p.dtype;
    return std::nullopt;
  };
  if (const auto d = plain(dtype); d && !model.quantized()) return KvFormat{.dtype = *d};
  // The checkpoint's own dtype, a float32 one downcast to bf16 as vLLM's --dtype auto does.
  auto served = [](KvDtype d) { return KvFormat{.dtype = d == KvDtype::fp32 ? KvDtype::bf16 : d}; };
  if (const auto d = plain(model.compute_dtype)) return served(*d);
  if (const auto d = plain(model.weight_dtype)) return served(*d);
  return KvFormat{.dtype = KvDtype::bf16};
}

std::vector<std::string> kv_format_spellings() {
  std::vector<std::string> v;
  for (const auto& p : kPlain)
    if (std::string_view(p.name) != "fp8_e4m3")  // an alias: reports print fp8
      v.push_back(to_string(KvFormat{.dtype = p.dtype}));
  v.push_back(to_string(KvFormat{.dtype = KvDtype::kivi}));
  return v;
}

double nominal_bytes_per_element(const KvFormat& f) {
  if (f.dtype == KvDtype::kivi) return f.bits / 8.0;
  return static_cast<double>(plain_elem_bytes(f.dtype));
}

std::string torch_float_name(KvDtype d) {
  switch (d) {
    case KvDtype::fp32:
      return "float32";
    case KvDtype::fp16:
      return "float16";
    case KvDtype::bf16:
      return "bfloat16";
    default:
      return "";
  }
}

std::optional<KvDtype> parse_torch_float(std::string_view name) {
  for (const KvDtype t : {KvDtype::fp32, KvDtype::fp16, KvDtype::bf16})
    if (name == torch_float_name(t)) return t;
  return std::nullopt;
}

std::optional<KvDtype> parse_state_dtype(const std::string& value, bool takes_auto,
                                         const std::string& source, const std::string& field) {
  if (takes_auto && value == "auto") return std::nullopt;
  if (const auto t = parse_torch_float(value)) return t;
  throw Error(source, field,
              std::string("expected ") + (takes_auto ? "auto, " : "") +
                  "float32, bfloat16 or float16, got \"" + value + "\"");
}

std::uint64_t kivi_group_bytes(const KvFormat& f) {
  return 4 * ceil_div(std::uint64_t{f.group} * f.bits, 32) + 2 + 2;
}

void validate_stream(const KvFormat& f, StreamRole role, std::uint32_t width,
                     std::uint32_t block_size, const std::string& source) {
  if (block_size == 0) throw Error(source, "block_size", "must be at least 1 token, got 0");
  if (width == 0) throw Error(source, "head_dim", "stream width must be positive, got 0");
  if (f.dtype != KvDtype::kivi) return;
  if (role == StreamRole::latent)
    throw Error(source, "kv-dtype",
                "kivi quantizes keys per channel and values per token; it does not apply to an "
                "MLA latent cache (use fp8 or int8)");
  if (f.bits != 2 && f.bits != 4 && f.bits != 8)
    throw Error(source, "kv-dtype.bits", "must be 2, 4 or 8, got " + std::to_string(f.bits));
  if (f.group == 0 || width % f.group != 0)
    throw Error(source, "kv-dtype.group",
                "group (" + std::to_string(f.group) + ") must divide the head dim (" +
                    std::to_string(width) + "): value groups are channels");
  if (f.residual == 0 || f.residual % f.group != 0)
    throw Error(source, "kv-dtype.residual",
                "residual (" + std::to_string(f.residual) +
                    ") must be a positive multiple of group (" + std::to_string(f.group) + ")");
}

std::uint64_t stream_bytes(const KvFormat& f, StreamRole role, std::uint32_t width,
                           std::uint64_t tokens, std::uint32_t block_size) {
  const std::uint64_t S = block_size;
  const std::uint64_t d = width;
  auto paged = [&](std::uint64_t n) { return round_up(n, S, "cache tokens"); };
  switch (f.dtype) {
    case KvDtype::int8:
      return mul(paged(tokens), d + 4, "int8 stream bytes");
    case KvDtype::kivi: {
      const std::uint64_t G = f.group, R = f.residual, P = kivi_group_bytes(f);
      if (role == StreamRole::key) {
        const std::uint64_t q = tokens / R * R;
        const std::uint64_t unit = std::lcm(S, G);
        const std::uint64_t quant = mul(mul(round_up(q, unit, "kivi key tokens") / G, d), P);
        const std::uint64_t resid = mul(mul(paged(tokens % R), d), 2);
        return add(quant, resid, "kivi key stream bytes");
      }
      const std::uint64_t q = tokens > R ? tokens - R : 0;
      const std::uint64_t window = tokens < R ? tokens : R;
      const std::uint64_t quant = mul(mul(paged(q), d / G), P);
      const std::uint64_t resid = mul(mul(paged(window), d), 2);
      return add(quant, resid, "kivi value stream bytes");
    }
    default:
      return mul(mul(paged(tokens), d, "stream elements"), plain_elem_bytes(f.dtype),
                 "stream bytes");
  }
}

}  // namespace kvplan
