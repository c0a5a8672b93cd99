// Private to core: import of a Hugging Face config.json into a ModelSpec.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "kvplan/model.hpp"

namespace kvplan::detail {

// True when the JSON looks like a HF config (has "model_type" or "architectures").
bool looks_like_hf_config(const nlohmann::json& j);

// Reads the families of kvplan/hf_families.hpp (Llama, Mistral, Qwen, Gemma, DeepSeek, gpt-oss,
// the Mamba hybrids, ...), each by its row, any other model_type by its fields. Throws Error
// naming `source` and the JSON pointer of a missing or bad field. id = file stem, source = path.
// num_params is estimated from the architecture (num_params_estimated = true).
// modelopt_quant: the checkpoint's hf_quant_config.json (NVIDIA ModelOpt), when it has one.
ModelSpec import_hf_config(const nlohmann::json& j, const std::string& source,
                           const nlohmann::json* modelopt_quant = nullptr);

// The longest request vLLM accepts for a (text) config: the smallest length key times the RoPE
// scaling factor (kvplan::apply_hf_overrides has the rule), and how it was derived ("rope_scaling
// yarn: original_max_position_embeddings 32768 × factor 4"). tokens = 0 when the config has no
// length key. Throws Error(source, pointer + "/" + field) on a malformed field.
struct Positions {
  std::uint64_t tokens = 0;
  std::string basis;
};
Positions derive_positions(const nlohmann::json& cfg, const std::string& source,
                           const std::string& pointer);
// The fields of `cfg` that derive_positions reads.
nlohmann::json position_fields(const nlohmann::json& cfg);

struct CheckpointWeights {
  std::uint64_t bytes = 0;         // all tensors
  std::uint64_t expert_bytes = 0;  // tensors of routed experts (".experts.")
  std::uint64_t vision_bytes = 0;  // vision tower and projector tensors
};
// Weight bytes of the safetensors files of a model directory (headers only), or the index's
// metadata.total_size when the shards are absent; nullopt without safetensors files.
std::optional<CheckpointWeights> checkpoint_weights(const std::filesystem::path& dir);

}  // namespace kvplan::detail
