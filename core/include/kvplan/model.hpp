// Model specs: presets compiled into the binary, kvplan model JSON files and Hugging Face
// config.json files, all read into one ModelSpec.
//
//   ModelSpec m = kvplan::load_model("llama-3.1-8b");          // a preset id
//   ModelSpec h = kvplan::load_model("path/to/config.json");   // HF config (Llama, Mistral, ...)
//   m.layers.size() == 32, m.num_kv_heads == 8, m.head_dim_k == 128
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
// "qk_rope_head_dim": 64}; "draft_layers" (MTP/speculative layers that also hold a cache).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kvplan/error.hpp"

namespace kvplan {

enum class AttentionKind { full, sliding, mla, none };

struct LayerSpec {
  AttentionKind kind = AttentionKind::full;
  std::uint64_t window = 0;  // tokens, sliding layers only
  bool operator==(const LayerSpec&) const = default;
};

struct ModelSpec {
  std::string id;      // preset id or file stem
  std::string name;    // human name
  std::string source;  // where the architecture was read from (URL or file)
  std::vector<LayerSpec> layers;  // one per decoder layer, draft layers not included
  std::uint32_t num_q_heads = 0;
  std::uint32_t num_kv_heads = 0;   // for MLA: 1 latent "head", not sharded by TP
  std::uint32_t head_dim_k = 0;     // K width per head (elements)
  std::uint32_t head_dim_v = 0;     // V width per head (elements)
  std::uint32_t hidden_size = 0;    // informational, 0 when unknown
  // MLA (DeepSeek-V2/V3): the cached latent per token per layer is kv_lora_rank + qk_rope_head_dim.
  std::uint32_t kv_lora_rank = 0;
  std::uint32_t qk_rope_head_dim = 0;
  std::uint32_t draft_layers = 0;   // MTP / speculative layers holding a full-attention cache
  std::uint64_t max_context = 0;    // tokens (max_position_embeddings), 0 = unknown
  std::uint64_t num_params = 0;     // parameters, for weight memory
  bool num_params_estimated = false;  // true when derived from the architecture, not published
  std::string weight_dtype = "bf16";  // fp32, fp16, bf16, fp8, int8, int4

  bool is_mla() const { return kv_lora_rank > 0; }
  std::uint32_t latent_width() const { return kv_lora_rank + qk_rope_head_dim; }
  std::uint32_t cached_layers() const;  // layers with a KV cache (kind != none)
};

// Bytes per parameter of a weight dtype name (fp32 4, fp16/bf16 2, fp8/int8 1, int4 0.5);
// throws Error naming source/field on an unknown name.
double weight_bytes_per_param(const std::string& dtype, const std::string& source,
                              const std::string& field);

// A preset id, a path to a kvplan model JSON, or a path to a HF config.json.
ModelSpec load_model(const std::string& id_or_path);
// Parses a JSON text (either schema); `source` names the file in errors.
ModelSpec parse_model_json(const std::string& text, const std::string& source);

struct PresetInfo {
  std::string id, name;
};
std::vector<PresetInfo> list_model_presets();
// Checks invariants (heads divide, dims agree, windows positive); returns every problem.
std::vector<Problem> validate(const ModelSpec& model);

}  // namespace kvplan
