// Private to core: import of a Hugging Face config.json into a ModelSpec.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "kvplan/model.hpp"

namespace kvplan::detail {

// True when the JSON looks like a HF config (has "model_type" or "architectures").
bool looks_like_hf_config(const nlohmann::json& j);

// Reads Llama, Mistral, Mixtral, Qwen2, Gemma2, Phi3, DeepSeek-V2/V3 field names. Throws Error
// naming `source` and the JSON pointer of a missing or bad field. id = file stem, source = path.
// num_params is estimated from the architecture (num_params_estimated = true).
ModelSpec import_hf_config(const nlohmann::json& j, const std::string& source);

}  // namespace kvplan::detail
