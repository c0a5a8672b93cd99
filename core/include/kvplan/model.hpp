// Model specs: presets compiled into the binary, kvplan model JSON files and Hugging Face
// config.json files, all read into one ModelSpec.
//
//   ModelSpec m = kvplan::load_model("llama-3.1-8b");          // a preset id
//   ModelSpec h = kvplan::load_model("path/to/config.json");   // HF config (any family below)
//   m.layers.size() == 32, m.num_kv_heads == 8, m.head_dim_k == 128
//
// Layer kinds (one LayerSpec per decoder layer):
//   full      attention over every token            cache grows with n
//   sliding   attention over the last W tokens      cache min(n, W)
//   chunked   attention inside chunks of C tokens   cache min(n, C) at its peak (Llama 4)
//   mla       one latent per token (DeepSeek, Kimi-K2, GLM-4.7-Flash)   grows with n
//   none      no attention
// and, independently, `recurrent`: the layer also holds a fixed state per sequence (Mamba,
// Mamba-2, Gated DeltaNet, lightning attention), sized by ModelSpec::recurrent. A layer may hold
// both (Falcon-H1), either, or neither.
//
// Qwen3-Next-80B-A3B (48 layers, full_attention_interval 4, tests/core/test_hf_import.cpp):
//   layers 3, 7, ..., 47 full attention (12), the other 36 Gated DeltaNet state only.
//
// kvplan model JSON (schema version 1; every architecture field required, unknown keys refused):
//   {"kvplan_model": 1, "id": "mistral-7b-v0.1", "name": "Mistral 7B v0.1",
//    "source": "https://huggingface.co/mistralai/Mistral-7B-v0.1/blob/main/config.json",
//    "num_layers": 32, "num_attention_heads": 32, "num_kv_heads": 8, "head_dim": 128,
//    "max_context": 32768, "num_params": 7241732096, "weight_dtype": "bf16",
//    "attention": {"type": "sliding", "window": 4096}}
// Optional: "v_head_dim" (defaults to head_dim), "attention" as {"type": "full"} (default),
// {"type": "sliding", "window": W}, {"type": "pattern", "window": W, "pattern": ["sliding",
// "full"]} (repeated over the layers, layer 0 first), {"type": "layers", "window": W, "layers":
// ["full", "sliding", "none", ...]} (one per layer); "mla": {"kv_lora_rank": 512,
// "qk_rope_head_dim": 64}; "mtp_layers" (MTP layers the checkpoint ships; they hold a cache only
// when speculative decoding uses them); "layer_overrides": [{"layer": 31, "num_kv_heads": 8,
// "head_dim": 128, "v_head_dim": 128}] (layers with their own geometry, LayerSpec below; not for
// MLA); "recurrent": {"kind": "shapes", "conv_elements": 1024, "ssm_elements": 3072, "conv_dtype":
// "fp32", "ssm_dtype": "fp32"} (a state stated by its tensors, one rank's, as vLLM's MambaSpec);
// "hidden_size", "vocab_size", "intermediate_size", "tie_word_embeddings" (as config.json names
// them: the engines' profile runs and pipeline stages size by them, docs/engine-memory.md).
// A preset may instead wrap a verbatim Hugging Face config (the same import as a config.json):
//   {"kvplan_model": 1, "id": "qwen3-8b", "name": "Qwen3 8B", "source": "<URL of config.json>",
//    "hf_repos": ["Qwen/Qwen3-8B"], "published_params": 8200000000,
//    "hf_config_file": "hf/qwen3-8b.json"}      (or the config inline as "hf_config": {...})
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kvplan/error.hpp"
#include "kvplan/kv_format.hpp"

namespace kvplan {

enum class AttentionKind { full, sliding, chunked, mla, none };

// A layer's own attention geometry, where it differs from the model's (an EAGLE / DFlash draft
// layer with more KV heads or another head size, vLLM's test_unify_kv_cache_spec_page_size_mamba
// and test_get_kv_cache_config_one_worker cases): 0 = ModelSpec::num_kv_heads / head_dim_k /
// head_dim_v. Not for MLA models (one latent width for every layer).
struct LayerSpec {
  AttentionKind kind = AttentionKind::full;
  std::uint64_t window = 0;      // tokens: W of sliding layers, C of chunked layers
  bool recurrent = false;        // also holds ModelSpec::recurrent's fixed state per sequence
  std::uint32_t kv_heads = 0;    // KV heads of this layer before TP; 0 = the model's
  std::uint32_t head_dim_k = 0;  // K width per head (elements); 0 = the model's
  std::uint32_t head_dim_v = 0;  // V width per head (elements); 0 = the model's
  bool operator==(const LayerSpec&) const = default;
};

// The recurrent mixer of a hybrid model and the state it keeps per sequence and layer, in the
// dimensions of the checkpoint (one rank; recurrent_state() shards them). The conv state keeps
// the last d_conv − 1 inputs of the conv channels; the temporal ("ssm") state is
//   mamba:            d_inner × d_state                   conv channels d_inner
//   mamba2:           heads × head_dim × d_state          conv channels d_inner +
//   2·n_groups·d_state gated_delta_net:  heads × key_head_dim × head_dim     conv channels
//   2·key_heads·key_head_dim
//                                                                       + heads·head_dim
//   lightning:        heads × head_dim × head_dim         no conv
//   shapes:           ssm_elements                        conv_elements, both as given
// `shapes` states the tensors directly, as vLLM's MambaSpec(shapes, dtypes) does: the elements of
// one rank's conv and temporal state (the product of each shape; 0 for an absent tensor), which
// TP does not shard again. new_mamba_spec() of tests/v1/core/test_kv_cache_utils.py, shapes
// ((2, 512), (3, 32, 32)) in float32: conv 1024, ssm 3072 elements, (1024 + 3072) · 4 = 16384
// bytes.
enum class MixerKind { none, mamba, mamba2, gated_delta_net, lightning, shapes };

struct RecurrentSpec {
  MixerKind kind = MixerKind::none;
  std::uint32_t d_inner = 0;       // mamba, mamba2: expand · hidden (mamba2: heads · head_dim)
  std::uint32_t d_state = 0;       // mamba, mamba2
  std::uint32_t d_conv = 0;        // mamba, mamba2, gated_delta_net: conv kernel width
  std::uint32_t n_groups = 0;      // mamba2: B/C groups
  std::uint32_t heads = 0;         // mamba2 heads; gated_delta_net value heads; lightning heads
  std::uint32_t head_dim = 0;      // mamba2 / gated_delta_net value / lightning head dim
  std::uint32_t key_heads = 0;     // gated_delta_net
  std::uint32_t key_head_dim = 0;  // gated_delta_net
  // gated_delta_net: Kimi Delta Attention (Kimi Linear's KDA layers; model file "kda": true). Its
  // conv state is a gated delta net's, (heads · head_dim + 2 · key_heads · key_head_dim) / tp
  // channels, its temporal state (heads / tp, head_dim, head_dim); SGLang's ReplaySSM window
  // keeps a per-key-channel gate and the chunked d / k rings besides (KimiLinearStateShape.create,
  // KimiLinearCacheParams.is_kda, python/sglang/srt/configs/mamba_utils.py@382343f860c7df8dc43e
  // cefd7902c940d81c99a9).
  bool kda = false;
  std::uint64_t conv_elements = 0;     // shapes: one rank's conv state, elements
  std::uint64_t ssm_elements = 0;      // shapes: one rank's temporal state, elements
  KvDtype conv_dtype = KvDtype::bf16;  // as the engine stores it by default (see docs/models.md)
  KvDtype ssm_dtype = KvDtype::bf16;
  // The model sets its temporal state's dtype itself (vLLM's per-model config hooks: Nemotron-H,
  // Qwen3.5's mamba_ssm_dtype; a model file's ssm_dtype other than its conv_dtype), so vLLM's
  // --mamba-cache-dtype does not carry over to it (formula.cpp make_layout).
  bool ssm_dtype_pinned = false;
  // The checkpoint's own mamba_ssm_cache_dtype (config.json, top level or text_config; "auto" or
  // absent: empty), the one field TensorRT-LLM reads for the temporal state's dtype before it
  // falls back to the model dtype (resolve_ssm_cache_dtype, tensorrt_llm/_torch/pyexecutor/
  // config_utils.py@00679c66c3e38f6d2651ad0a5bef0f94d862e36c: it ignores mamba_ssm_dtype and
  // vLLM's per-model hooks). A kvplan model file's ssm_dtype stands for it.
  std::optional<KvDtype> ssm_cache_dtype{};
  bool operator==(const RecurrentSpec&) const = default;
};

// Weights as the checkpoint stores them (quantized formats with their scales).
struct WeightSpec {
  std::uint64_t bytes = 0;         // all weight bytes; 0 = num_params · weight_dtype
  std::uint64_t expert_bytes = 0;  // of which routed MoE experts (shard under expert parallelism)
  std::uint64_t vision_bytes = 0;  // of which a vision tower / multimodal projector
  // Of which the input embedding and lm_head as stored (lm_head 0 when tied to the embedding);
  // both 0 when the vocabulary is unknown. An engine's pipeline stages place them on the first
  // and the last stage.
  std::uint64_t embed_bytes = 0, head_bytes = 0;
  std::string quantization;  // "" or the checkpoint's quant_method (fp8, mxfp4, awq, ...)
  // The stored weights' number format, for kernels that differ by it: fp8 (per tensor or
  // channel), fp8_block (a scale per weight_block_size block), mxfp4, nvfp4, int2 / int3 / int4 /
  // int8 (GPTQ, AWQ, compressed-tensors "type": "int", bitsandbytes 8-bit), bnb4 (bitsandbytes
  // nf4 / fp4); "" unquantized.
  std::string format;
  // fp8_block: weight_block_size [block_n, block_k], the output and input channels one scale
  // covers (Fp8Config); 0 otherwise. An engine that shards a weight must cut it at whole blocks:
  // the widths it cuts, each 0 where the part is absent or kept unquantized (the scheme's skip
  // list): a routed expert's intermediate columns, the shared experts' (all of them, one MLP)
  // and the dense MLP layers'.
  std::uint32_t block_n = 0, block_k = 0;
  std::uint32_t block_expert_width = 0, block_shared_width = 0, block_dense_width = 0;
  bool from_checkpoint = false;  // bytes read from the safetensors headers, not estimated
};

// Indexer keys `tokens` tokens hold: tokens // index_kpool for a kpool indexer (index_kpool > 1),
// else one a token.
inline std::uint64_t indexer_keys(std::uint32_t index_kpool, std::uint64_t tokens) {
  return index_kpool > 1 ? tokens / index_kpool : tokens;
}

struct ModelSpec {
  std::string id;      // preset id or file stem
  std::string name;    // human name
  std::string source;  // where the architecture was read from (URL or file)
  // config.json's architectures[0] ("Qwen3NextForCausalLM"): engines key defaults on it; empty
  // for a kvplan model file.
  std::string architecture;
  std::vector<std::string> hf_repos;  // Hugging Face repo ids the spec stands for (presets)
  std::string preset;  // the preset used, when the reference resolved to one (else empty)
  std::vector<LayerSpec> layers;  // one per decoder layer, draft layers not included
  std::uint32_t num_q_heads = 0;
  std::uint32_t num_kv_heads = 0;  // for MLA: 1 latent "head", not sharded by TP
  std::uint32_t head_dim_k = 0;    // K width per head (elements)
  std::uint32_t head_dim_v = 0;    // V width per head (elements)
  std::uint32_t hidden_size = 0;   // informational, 0 when unknown
  // Vocabulary (logits per token) and the dense MLP width: the engines' profile runs and samplers
  // allocate by them (docs/engine-memory.md). 0 when unknown.
  std::uint32_t vocab_size = 0;
  std::uint32_t intermediate_size = 0;
  bool tie_word_embeddings = false;  // lm_head shares the embedding's weights
  // MoE routing (HF num_local_experts / n_routed_experts / num_experts and num_experts_per_tok /
  // experts_per_token): routed experts per MoE layer and experts each token uses; 0 = dense.
  std::uint32_t routed_experts = 0, experts_per_token = 0;
  // The routed experts' shape, from config.json: each expert's width (moe_intermediate_size, or
  // intermediate_size where the config has no separate one) and how many decoder layers route
  // (the others run a dense MLP). 0 when unknown (a kvplan model file): the step-time model then
  // costs the experts on its roofline instead of a measured per-operation table.
  std::uint32_t moe_intermediate_size = 0, moe_layers = 0;
  // MLA (DeepSeek-V2/V3): the cached latent per token per layer is kv_lora_rank + qk_rope_head_dim.
  std::uint32_t kv_lora_rank = 0;
  std::uint32_t qk_rope_head_dim = 0;
  // DeepSeek-V3.2 sparse attention: every MLA layer also caches one indexer key of this width.
  std::uint32_t index_head_dim = 0;
  // GLM-5.3-Flash's kpool indexer: one indexer key per index_kpool tokens (vLLM
  // Glm5NextIndexerCache, an MLAAttentionSpec with tokens_per_state = index_kpool: a block of B
  // tokens holds B // index_kpool keys); 0 or 1 = one key a token (DeepSeek-V3.2). index_tail:
  // each indexer layer also keeps the incomplete pool's raw keys (Glm5NextTailCache, a
  // KpoolTailSpec of index_kpool tokens × 2 · index_head_dim bf16, one block a request, in the
  // indexer's own slot).
  // vllm/models/glm5next/nvidia/attention.py@27911fd92fffa1f7a5c940b9337d1e61dd765ebb.
  std::uint32_t index_kpool = 0;
  bool index_tail = false;
  // Indexer keys a block of `tokens` tokens holds (kvplan::indexer_keys).
  std::uint64_t indexer_keys(std::uint64_t tokens) const {
    return kvplan::indexer_keys(index_kpool, tokens);
  }
  RecurrentSpec recurrent;  // the state of layers with recurrent = true
  // Declared attention-free (a kvplan model file's "attention": {"type": "none"}): no layer caches
  // anything, which vLLM serves with one block and no KV cache group (encoder-only and
  // attention-free models, docs/models.md). A model that merely ends up with no cached layer is
  // refused instead, since that is more often a misread config than a cache-free model.
  bool attention_free = false;
  std::uint32_t mtp_layers = 0;  // MTP layers shipped (num_nextn_predict_layers); cached only
                                 // when speculative decoding runs them (KvCostInput)
  // The longest request the engine accepts, tokens, 0 = unknown: for a Hugging Face config, what
  // vLLM derives (the smallest length key, times the RoPE scaling factor: see
  // apply_hf_overrides); for a kvplan model file, its "max_context".
  std::uint64_t max_context = 0;
  std::string positions_basis;  // how max_context was derived, for messages ("" = max_context)
  // The config fields max_context was derived from (JSON text, the length keys, rope_scaling /
  // rope_parameters, model_type), so that an engine's --hf-overrides can derive it again.
  std::string position_fields;
  std::uint64_t num_params = 0;        // parameters, for weight memory
  bool num_params_estimated = false;   // true when derived from the architecture, not published
  std::uint64_t published_params = 0;  // the model card's total, where a preset records it
  std::string weight_dtype = "bf16";   // fp32, fp16, bf16, fp8, int8, int4, fp4
  // The dtype the checkpoint computes in (config.json torch_dtype: fp32, fp16, bf16), where it
  // differs from weight_dtype's reading (a quantized checkpoint: int4 weights, fp16 compute);
  // "" = weight_dtype's. The KV cache's default (default_kv_format) follows it.
  std::string compute_dtype;
  WeightSpec weights;
  // Things the reader let pass with a warning (a duplicate key in a HF config keeps its last
  // value, as Python's json does), each naming the file and the key.
  std::vector<std::string> warnings;

  bool is_mla() const { return kv_lora_rank > 0; }
  std::uint32_t latent_width() const { return kv_lora_rank + qk_rope_head_dim; }
  std::uint32_t cached_layers() const;     // layers with an attention cache (kind != none)
  std::uint32_t recurrent_layers() const;  // layers with a recurrent state
  bool quantized() const { return !weights.quantization.empty(); }
  // Weight bytes of the whole checkpoint: weights.bytes, else num_params · weight_dtype.
  std::uint64_t weight_bytes() const;
};

// Bytes of one sequence's recurrent state in one layer on one rank of tensor parallelism tp,
// conv and temporal parts, in the given dtypes (the model's defaults unless an engine flag says
// otherwise). Sharding as vLLM's MambaStateShapeCalculator (docs/models.md); throws Error naming
// `source` when tp does not divide the heads.
struct RecurrentState {
  std::uint64_t conv_bytes = 0;
  std::uint64_t ssm_bytes = 0;
  std::uint64_t conv_elements = 0;
  std::uint64_t ssm_elements = 0;
  std::uint64_t bytes() const { return conv_bytes + ssm_bytes; }
};
RecurrentState recurrent_state(const RecurrentSpec& r, std::uint32_t tp, KvDtype conv_dtype,
                               KvDtype ssm_dtype, const std::string& source = "--tp");
inline RecurrentState recurrent_state(const RecurrentSpec& r, std::uint32_t tp = 1) {
  return recurrent_state(r, tp, r.conv_dtype, r.ssm_dtype);
}
// A Hugging Face repo name lower-cased with its post-training suffixes removed (-instruct,
// -thinking, -chat, -base, -hf, -it, the -2507 releases): the same architecture and weight
// layout, so a preset of the base model stands for it ("Qwen3-32B-Instruct" -> "qwen3-32b").
// Quantized variants (-FP8, -AWQ) keep their suffix: their weights differ.
std::string strip_repo_variant(std::string name);

std::string to_string(MixerKind k);
std::string to_string(AttentionKind k);

// Bytes per parameter of a weight dtype name (fp32 4, fp16/bf16 2, fp8/int8 1, int4/fp4 0.5);
// throws Error naming source/field on an unknown name.
double weight_bytes_per_param(const std::string& dtype, const std::string& source,
                              const std::string& field);

// A preset id (or a Hugging Face repo id a preset stands for), a model directory (its
// config.json; a Hugging Face hub cache snapshot), a path to a kvplan model JSON or a HF
// config.json, or a Hugging Face repo id found in the local hub cache ($HF_HUB_CACHE, else
// $HF_HOME/hub, else ~/.cache/huggingface/hub). The spec's id is the reference as given.
ModelSpec load_model(const std::string& id_or_path);
// Applies an engine's config overrides (vLLM --hf-overrides / --rope-scaling, as one JSON object
// of config.json keys) to the fields that set the model's positions, and derives max_context
// again as vLLM's _get_and_verify_max_len does (vllm/config/model.py @ 18ec6629): the smallest
// of the length keys (max_position_embeddings, n_positions, max_seq_len, seq_length,
// model_max_length, max_target_positions, max_sequence_length, max_seq_length, seq_len;
// model_max_length wins when set), times the RoPE factor for every type but longrope (su) and
// llama3; YaRN starts from original_max_position_embeddings; Gemma 3 is already scaled. Returns
// the override keys that do not set positions (kvplan does not apply them). Throws
// Error(source, flag + pointer) on a malformed value.
std::vector<std::string> apply_hf_overrides(ModelSpec& model, const std::string& overrides_json,
                                            const std::string& source, const std::string& flag);
// Parses a JSON text (either schema); `source` names the file in errors.
ModelSpec parse_model_json(const std::string& text, const std::string& source);

struct PresetInfo {
  std::string id, name;
  std::vector<std::string> hf_repos;
};
std::vector<PresetInfo> list_model_presets();
// Checks invariants (heads divide, dims agree, windows positive); returns every problem.
std::vector<Problem> validate(const ModelSpec& model);

}  // namespace kvplan
