// KV storage formats and their exact byte cost, metadata included.
//
// A format is named by the spec strings of ARCHITECTURE.md: fp32, fp16, bf16, fp8 (e4m3),
// fp8_e5m2, int8, kivi:bits=2,group=32,residual=128 (bits 2, 4 or 8).
//
// Cost model (this is what the kernels' block pool allocates; tests hold the two equal):
// one *stream* is the cache of one layer, one KV head, one of K or V, width d elements per token.
// A stream of r tokens in blocks of S tokens (S = 1: unpaged) costs
//   plain (fp32/fp16/bf16/fp8):  ceil(r/S)·S · d · elem_bytes
//     fp8's per-tensor k_scale / v_scale are layer parameters (two floats per layer), not cache.
//   int8:  ceil(r/S)·S · (d + 4)            one fp32 absmax scale per token per head
//   kivi (bits b, group G, residual R; P = 4·ceil(G·b/32) packed bytes + 2 fp16 scale + 2 fp16
//        zero-point = one quantized group):
//     K (per channel, groups of G tokens; quantized in whole chunks of R tokens):
//        q = floor(r/R)·R quantized tokens in blocks of lcm(S, G) tokens:
//            ceil(q / lcm(S,G)) · lcm(S,G)/G · d · P
//        + fp16 residual of r mod R tokens in blocks of S: ceil((r mod R)/S)·S · d · 2
//     V (per token, groups of G channels; a sliding fp16 window of the newest R tokens):
//        q = max(0, r − R) quantized tokens in blocks of S: ceil(q/S)·S · (d/G) · P
//        + fp16 window of min(r, R) tokens in blocks of S: ceil(min(r,R)/S)·S · d · 2
//   MLA layers store one latent stream per token (width kv_lora_rank + qk_rope_head_dim) and
//   take the plain/int8 formulas; kivi is refused there.
//
// Worked example: llama-3.1-8b, fp16, one token: 32 layers · 8 KV heads · (128 + 128) · 2 B
// = 131072 bytes per token (tests/core/test_formula.cpp holds this number).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kvplan {

struct ModelSpec;

enum class KvDtype { fp32, fp16, bf16, fp8_e4m3, fp8_e5m2, int8, kivi };

enum class StreamRole { key, value, latent };

struct KvFormat {
  KvDtype dtype = KvDtype::fp16;
  // kivi only
  std::uint32_t bits = 2;        // 2, 4 or 8
  std::uint32_t group = 32;      // tokens per key group, channels per value group
  std::uint32_t residual = 128;  // full-precision window, a multiple of group

  bool operator==(const KvFormat&) const = default;
};

// Parses a spec string; throws Error naming `source` (a flag, a file) and `field` on bad input.
KvFormat parse_kv_format(std::string_view spec, const std::string& source = "--kv-dtype",
                         const std::string& field = "kv-dtype");
// Canonical spec string: "fp16", "kivi:bits=2,group=32,residual=128".
std::string to_string(const KvFormat& format);

// The format an engine stores with `--kv-cache-dtype auto`: the model's dtype (bf16 for a
// bfloat16 checkpoint, fp16 for float16, bf16 for float32 as vLLM's --dtype auto downcasts it; a
// quantized checkpoint's compute dtype, bf16 when unknown). `dtype` is the dtype the engine is told
// to run the model in (vLLM / SGLang --dtype, plan's --weight-dtype): fp32, fp16 or bf16 replace
// the model's for an unquantized model; "" or another name leave it. What size, plan, simulate and
// the GUI take when no KV format is given.
//   default_kv_format(load_model("llama-3.1-8b")) == KvFormat{.dtype = KvDtype::bf16}
//   default_kv_format(load_model("llama-2-7b"))   == KvFormat{.dtype = KvDtype::fp16}
KvFormat default_kv_format(const ModelSpec& model, std::string_view dtype = "");

// The spellings the reports print, for help texts: every plain format and a kivi example, each
// as to_string writes it: fp32, fp16, bf16, fp8, fp8_e5m2, int8,
// kivi:bits=2,group=32,residual=128.
std::vector<std::string> kv_format_spellings();

// Bytes of one stored element of the payload: 4, 2, 1 for the plain/int8 formats; for kivi the
// nominal bits/8 (0.25, 0.5, 1) used only to print the formula's factor `b`.
double nominal_bytes_per_element(const KvFormat& format);

// The torch name of a 32- or 16-bit float, as engine flags spell a recurrent state's dtype
// (SGLang --mamba-ssm-dtype, TensorRT-LLM mamba_ssm_cache_dtype): float32, float16, bfloat16;
// "" for every other dtype.
std::string torch_float_name(KvDtype dtype);
// The other way: float32, float16, bfloat16 -> the dtype; nullopt for any other name ("auto"
// included: the caller decides what that means).
std::optional<KvDtype> parse_torch_float(std::string_view name);
// A recurrent state's dtype as an engine key or flag states it (parse_torch_float); with
// takes_auto, "auto" is nullopt (the model's). Anything else throws Error naming `field`.
std::optional<KvDtype> parse_state_dtype(const std::string& value, bool takes_auto,
                                         const std::string& source, const std::string& field);

// Bytes of one quantized kivi group: packed 32-bit words + fp16 scale + fp16 zero-point.
std::uint64_t kivi_group_bytes(const KvFormat& format);

// Checks the format against a stream width and block size; throws Error naming `source`.
// kivi: group divides width (value groups are channels), group divides residual, bits in {2,4,8},
// not on MLA latents. block_size >= 1.
void validate_stream(const KvFormat& format, StreamRole role, std::uint32_t width,
                     std::uint32_t block_size, const std::string& source);

// Exact bytes of one stream holding `tokens` retained tokens, in blocks of `block_size` tokens
// (1 = unpaged). Checked arithmetic: throws Error on overflow. Assumes validate_stream passed.
std::uint64_t stream_bytes(const KvFormat& format, StreamRole role, std::uint32_t width,
                           std::uint64_t tokens, std::uint32_t block_size);

}  // namespace kvplan
