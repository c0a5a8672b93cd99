// The table of Hugging Face families (kvplan/hf_families.hpp). Each row states what its family's
// transformers config class and modeling code (and vLLM's model file) do differently from the
// generic reading; hf_config.cpp applies the rows. Commits are those docs/models.md records as
// read; a source without one names the class or file only.
#include "kvplan/hf_families.hpp"

#include <array>
#include <string_view>

namespace kvplan {

namespace {

using HfName = std::string_view;

// ---------------------------------------------------------------------------------------------
// model_type values and the config.json keys each row's rules read.

constexpr HfName kLlama4Types[] = {"llama4"};
constexpr HfName kLlama4TextTypes[] = {"llama4_text"};
constexpr HfName kLlama4Fields[] = {"no_rope_layers",
                                    "no_rope_layer_interval",
                                    "attention_chunk_size",
                                    "interleave_moe_layer_step",
                                    "tie_word_embeddings",
                                    "vision_config.projector_input_dim",
                                    "vision_config.projector_output_dim"};
constexpr HfName kLlama4TextFields[] = {"no_rope_layers", "no_rope_layer_interval",
                                        "attention_chunk_size", "interleave_moe_layer_step",
                                        "tie_word_embeddings"};
constexpr HfName kTieFields[] = {"tie_word_embeddings"};

constexpr HfName kGemma2Types[] = {"gemma2"};
constexpr HfName kGemma3Types[] = {"gemma3"};
constexpr HfName kGemma3TextTypes[] = {"gemma3_text"};
constexpr HfName kWindowFields[] = {"sliding_window"};
constexpr HfName kGemma3Fields[] = {"sliding_window_pattern", "sliding_window"};

constexpr HfName kQwen2Types[] = {"qwen2"};
constexpr HfName kQwen2Fields[] = {"use_sliding_window", "max_window_layers", "sliding_window"};
constexpr HfName kQwen2VlTypes[] = {"qwen2_vl", "qwen2_5_vl", "qwen2_5_vl_text"};
constexpr HfName kQwen3NextTypes[] = {"qwen3_next"};
constexpr HfName kQwen3NextFields[] = {"full_attention_interval", "attn_output_gate",
                                       "linear_num_value_heads",  "linear_value_head_dim",
                                       "linear_num_key_heads",    "linear_key_head_dim",
                                       "linear_conv_kernel_dim"};
constexpr HfName kQwen35Types[] = {"qwen3_5", "qwen3_5_text", "qwen3_5_moe", "qwen3_5_moe_text"};
constexpr HfName kQwen35Fields[] = {"full_attention_interval", "linear_num_value_heads",
                                    "linear_value_head_dim",   "linear_num_key_heads",
                                    "linear_key_head_dim",     "linear_conv_kernel_dim",
                                    "mamba_ssm_dtype"};
constexpr HfName kQwen35PrefixFields[] = {"mamba_ssm_dtype"};

constexpr HfName kMistralTypes[] = {"mistral", "mixtral", "phi3"};
constexpr HfName kMistral3Types[] = {"mistral3"};

constexpr HfName kJambaTypes[] = {"jamba"};
constexpr HfName kJambaFields[] = {
    "attn_layer_period", "attn_layer_offset", "expert_layer_period", "expert_layer_offset",
    "mamba_expand",      "mamba_d_state",     "mamba_d_conv",        "mamba_dt_rank"};
constexpr HfName kMambaTypes[] = {"mamba"};
constexpr HfName kMambaFields[] = {"mamba_expand",  "expand",       "intermediate_size",
                                   "mamba_d_state", "state_size",   "mamba_d_conv",
                                   "conv_kernel",   "mamba_dt_rank"};
constexpr HfName kFalconMambaTypes[] = {"falcon_mamba"};
constexpr HfName kFalconMambaFields[] = {"mamba_expand", "expand",       "mamba_d_state",
                                         "state_size",   "mamba_d_conv", "conv_kernel",
                                         "mamba_dt_rank"};
// The Mamba-2 reader takes the first of each pair that the config has.
constexpr HfName kMamba2Types[] = {"bamba", "granitemoehybrid", "mamba2"};
constexpr HfName kMamba2Fields[] = {"mamba_n_heads",  "mamba_num_heads", "mamba_d_head",
                                    "mamba_head_dim", "mamba_n_groups",  "n_groups",
                                    "mamba_d_state",  "ssm_state_size",  "mamba_d_conv",
                                    "conv_kernel",    "mamba_d_ssm"};
constexpr HfName kFalconH1Types[] = {"falcon_h1"};
constexpr HfName kNemotronHTypes[] = {"nemotron_h"};
constexpr HfName kNemotronHFields[] = {"hybrid_override_pattern",
                                       "mamba_ssm_cache_dtype",
                                       "mamba_n_heads",
                                       "mamba_num_heads",
                                       "mamba_d_head",
                                       "mamba_head_dim",
                                       "mamba_n_groups",
                                       "n_groups",
                                       "mamba_d_state",
                                       "ssm_state_size",
                                       "mamba_d_conv",
                                       "conv_kernel",
                                       "mamba_d_ssm"};

constexpr HfName kMiniMaxTypes[] = {"minimax", "minimax_m1"};
constexpr HfName kMiniMaxFields[] = {"attn_type_list"};
constexpr HfName kMiniMaxM2Types[] = {"minimax_m2"};
constexpr HfName kGlm4MoeTypes[] = {"glm4_moe"};
constexpr HfName kGlm4MoeFields[] = {"attention_bias"};
constexpr HfName kGptOssTypes[] = {"gpt_oss"};

// Keys whose presence selects a rule for any model_type.
constexpr HfName kGenericFields[] = {"layer_types",     "layers_block_type",      "attn_type_list",
                                     "kv_lora_rank",    "linear_num_value_heads", "mamba_n_heads",
                                     "mamba_num_heads", "attention_bias",         "qkv_bias",
                                     "use_qk_norm",     "attn_output_gate",       "mlp_bias",
                                     "topk_method",     "tie_word_embeddings",    "sliding_window"};

// Gemma3TextConfig.__init__'s defaults for the keys the published text_config leaves out.
constexpr std::string_view kGemma3TextDefaults = R"({
      "vocab_size": 262208, "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
      "max_position_embeddings": 131072, "sliding_window": 4096, "sliding_window_pattern": 6,
      "tie_word_embeddings": true})";

constexpr std::string_view kGemma3Source =
    "transformers models/gemma3/configuration_gemma3.py@d98ac17c (Gemma3TextConfig), "
    "vLLM model_executor/models/gemma3.py@311a97cb";
constexpr std::string_view kLlama4Source =
    "transformers models/llama4/configuration_llama4.py@b17cfe48 (Llama4TextConfig), "
    "vLLM model_executor/models/llama4.py@0303cbd8 (use_chunked_local_attn)";
constexpr std::string_view kQwen3NextSource =
    "transformers models/qwen3_next/configuration_qwen3_next.py@008e5743, "
    "vLLM model_executor/models/qwen3_next.py@6365b387 (Qwen3NextGatedDeltaNet)";
constexpr std::string_view kQwen35DtypeSource =
    "vLLM model_executor/models/config.py (Qwen3_5ForConditionalGenerationConfig: the text "
    "config's mamba_ssm_dtype)";
constexpr std::string_view kMambaStateSource =
    "vLLM model_executor/layers/mamba/mamba_utils.py@02d710837549a368073552333f66d714477415d2 "
    "(MambaStateShapeCalculator)";

// ---------------------------------------------------------------------------------------------
// The rows. Fields left out keep the generic reading (HfFamily's defaults).

constexpr HfFamily kGeneric{
    .name = "generic",
    .fields = kGenericFields,
    .source =
        "transformers PretrainedConfig (tie_word_embeddings true) and its configs' "
        "layer_types; MLA by kv_lora_rank as vLLM's is_deepseek_mla "
        "(model_arch_config_convertor.py@ee92a6f3)",
};

constexpr HfFamily kFamilies[] = {
    // Llama 4.
    {.name = "Llama 4",
     .model_types = kLlama4Types,
     .layer_pattern = HfLayerPattern::llama4_nope_chunked,
     .moe_layers = HfMoeLayers::llama4_interleave,
     .shared_expert_routed_width = true,
     .tie_word_embeddings = false,
     .vision = HfVision::llama4,
     .fields = kLlama4Fields,
     .source = kLlama4Source},
    {.name = "Llama 4 text",
     .model_types = kLlama4TextTypes,
     .layer_pattern = HfLayerPattern::llama4_nope_chunked,
     .moe_layers = HfMoeLayers::llama4_interleave,
     .shared_expert_routed_width = true,
     .tie_word_embeddings = false,
     .fields = kLlama4TextFields,
     .source = kLlama4Source},
    {.name = "Llama 4 (other model_types)",
     .prefix = "llama4",
     .tie_word_embeddings = false,  // the checkpoint ships lm_head
     .fields = kTieFields,
     .source = kLlama4Source},
    // Gemma.
    {.name = "Gemma 2",
     .model_types = kGemma2Types,
     .layer_pattern = HfLayerPattern::gemma2_even_sliding,
     .sliding_window_default = 4096,
     .norms_per_layer = 4,
     .fields = kWindowFields,
     .source = "transformers models/gemma2/configuration_gemma2.py (Gemma2Config: "
               "sliding_window 4096)"},
    {.name = "Gemma 3",
     .model_types = kGemma3Types,
     .layer_pattern = HfLayerPattern::gemma3_global_every,
     .sliding_window_default = 4096,
     .qk_norm = true,
     .norms_per_layer = 4,
     .fields = kGemma3Fields,
     .source = kGemma3Source},
    {.name = "Gemma 3 text",
     .model_types = kGemma3TextTypes,
     .layer_pattern = HfLayerPattern::gemma3_global_every,
     .sliding_window_default = 4096,
     .config_defaults = kGemma3TextDefaults,
     .qk_norm = true,
     .norms_per_layer = 4,
     .fields = kGemma3Fields,
     .source = kGemma3Source},
    {.name = "Gemma 3 (other model_types)",
     .prefix = "gemma3",
     .sliding_window_default = 4096,
     .qk_norm = true,
     .norms_per_layer = 4,
     .fields = kWindowFields,
     .source = kGemma3Source},
    // Qwen.
    {.name = "Qwen2",
     .model_types = kQwen2Types,
     .layer_pattern = HfLayerPattern::qwen2_max_window_layers,
     .qkv_bias = true,
     .vision = HfVision::qwen_vl,
     .fields = kQwen2Fields,
     .source = "transformers models/qwen2/configuration_qwen2.py (Qwen2Config: sliding_window "
               "ignored unless use_sliding_window), modeling_qwen2.py (Qwen2Attention: q, k, v "
               "biases)"},
    {.name = "Qwen2-VL, Qwen2.5-VL",
     .model_types = kQwen2VlTypes,
     .qkv_bias = true,
     .vision = HfVision::qwen_vl,
     .source = "transformers models/qwen2_5_vl/modeling_qwen2_5_vl.py (Qwen2 attention with q, k, "
               "v biases; gated vision MLP, 2×2 patch merger)"},
    {.name = "Qwen (other model_types)",
     .prefix = "qwen",
     .vision = HfVision::qwen_vl,
     .source = "transformers models/qwen2_5_vl/modeling_qwen2_5_vl.py (gated vision MLP, 2×2 "
               "patch merger to out_hidden_size)"},
    {.name = "Qwen3 (other model_types)",
     .prefix = "qwen3",
     .qk_norm = true,
     .vision = HfVision::qwen_vl,
     .source = "transformers models/qwen3/modeling_qwen3.py (Qwen3Attention: q_norm, k_norm)"},
    {.name = "Qwen3-Next",
     .model_types = kQwen3NextTypes,
     .mixer = MixerKind::gated_delta_net,
     .qk_norm = true,
     .attn_output_gate = true,
     .vision = HfVision::qwen_vl,
     .fields = kQwen3NextFields,
     .source = kQwen3NextSource},
    {.name = "Qwen3.5",
     .model_types = kQwen35Types,
     .mixer = MixerKind::gated_delta_net,
     .ssm_dtype_field = "mamba_ssm_dtype",
     .qk_norm = true,
     .vision = HfVision::qwen_vl,
     .fields = kQwen35Fields,
     .source = "as Qwen3-Next: transformers models/qwen3_next/configuration_qwen3_next.py@"
               "008e5743, vLLM model_executor/models/qwen3_next.py@6365b387; the state dtype: "
               "vLLM model_executor/models/config.py (Qwen3_5ForConditionalGenerationConfig)"},
    {.name = "Qwen3.5 (other model_types)",
     .prefix = "qwen3_5",
     .ssm_dtype_field = "mamba_ssm_dtype",
     .qk_norm = true,
     .vision = HfVision::qwen_vl,
     .fields = kQwen35PrefixFields,
     .source = kQwen35DtypeSource},
    // Mistral.
    {.name = "Mistral, Mixtral, Phi-3",
     .model_types = kMistralTypes,
     .layer_pattern = HfLayerPattern::sliding_when_window,
     .fields = kWindowFields,
     .source = "transformers MistralConfig, MixtralConfig, Phi3Config (sliding_window on every "
               "layer when set; null is full attention)"},
    {.name = "Mistral 3",
     .model_types = kMistral3Types,
     .vision = HfVision::pixtral,
     .source = "transformers models/mistral3/modeling_mistral3.py (Pixtral vision tower, "
               "Mistral3PatchMerger, Mistral3MultiModalProjector)"},
    // State-space and hybrid models.
    {.name = "Jamba",
     .model_types = kJambaTypes,
     .layer_pattern = HfLayerPattern::jamba_period,
     .mixer = MixerKind::mamba,
     .mixer_outranks_mamba2_fields = true,
     .mamba_dt_bc_norms = true,
     .moe_layers = HfMoeLayers::jamba_period,
     .fields = kJambaFields,
     .source = "transformers models/jamba/configuration_jamba.py@008f5c8c (JambaConfig), "
               "vLLM model_executor/models/jamba.py@002b4cf8 (JambaMambaMixer)"},
    {.name = "Mamba",
     .model_types = kMambaTypes,
     .mixer = MixerKind::mamba,
     .mamba_width_from_intermediate_size = true,
     .fields = kMambaFields,
     .source = kMambaStateSource},
    {.name = "Falcon-Mamba",
     .model_types = kFalconMambaTypes,
     .mixer = MixerKind::mamba,
     .fields = kFalconMambaFields,
     .source = kMambaStateSource},
    {.name = "Mamba-2 hybrids (Bamba, Granite-4)",
     .model_types = kMamba2Types,
     .mixer = MixerKind::mamba2,
     .fields = kMamba2Fields,
     .source = kMambaStateSource},
    {.name = "Falcon-H1",
     .model_types = kFalconH1Types,
     .layer_pattern = HfLayerPattern::falcon_h1_parallel,
     .mixer = MixerKind::mamba2,
     .fields = kMamba2Fields,
     .source = "vLLM model_executor/models/falcon_h1.py@01894272"},
    {.name = "Nemotron-H",
     .model_types = kNemotronHTypes,
     .layer_pattern = HfLayerPattern::nemotron_h_string,
     .mixer = MixerKind::mamba2,
     .ssm_state_fp32 = true,
     .ssm_dtype_field = "mamba_ssm_cache_dtype",
     .mlp = HfMlp::squared_relu,
     .moe_layers = HfMoeLayers::nemotron_h_string,
     .fields = kNemotronHFields,
     .source = "vLLM model_executor/models/nemotron_h.py@00b08dc4; the state dtype: vLLM "
               "model_executor/models/config.py (NemotronHForCausalLMConfig: "
               "mamba_ssm_cache_dtype, else float32)"},
    {.name = "MiniMax-Text-01, MiniMax-M1",
     .model_types = kMiniMaxTypes,
     .mixer = MixerKind::lightning,
     .fields = kMiniMaxFields,
     .source = "vLLM model_executor/models/minimax_text_01.py@98370df7 (attn_type_list, "
               "MiniMaxText01LightningAttention)"},
    // MoE router and attention variants.
    {.name = "MiniMax-M2",
     .model_types = kMiniMaxM2Types,
     .router_bias = true,
     .source = "vLLM model_executor/models/minimax_m2.py@fb33ec8c (MiniMaxM2MoE: "
               "e_score_correction_bias, created when the config's use_routing_bias is set)"},
    {.name = "GLM-4.5",
     .model_types = kGlm4MoeTypes,
     .attention_bias_skips_o_proj = true,
     .router_bias = true,
     .fields = kGlm4MoeFields,
     .source = "vLLM model_executor/models/glm4_moe.py@a4cd9d0d (Glm4MoE: gate "
               "e_score_correction_bias always; Glm4MoeAttention: qkv_proj bias = attention_bias, "
               "o_proj without bias)"},
    {.name = "GLM-4.5 (other model_types)",
     .prefix = "glm4_moe",
     .router_bias = true,
     .source = "vLLM model_executor/models/glm4_moe.py@a4cd9d0d (Glm4MoE: gate "
               "e_score_correction_bias always)"},
    {.name = "gpt-oss",
     .model_types = kGptOssTypes,
     .attention_bias = true,
     .attention_sinks = true,
     .experts = HfExperts::gpt_oss_fused,
     .source = "transformers models/gpt_oss/configuration_gpt_oss.py@828a27fd, vLLM "
               "model_executor/models/gpt_oss.py@a6b6cfaa (biases, sinks, fused experts)"},
};

}  // namespace

std::span<const HfFamily> hf_families() { return kFamilies; }

const HfFamily& hf_generic_family() { return kGeneric; }

const HfFamily& find_hf_family(std::string_view model_type) {
  for (const auto& f : kFamilies)
    for (const auto t : f.model_types)
      if (t == model_type) return f;
  const HfFamily* best = &kGeneric;
  for (const auto& f : kFamilies)
    if (!f.prefix.empty() && model_type.starts_with(f.prefix) &&
        (best == &kGeneric || f.prefix.size() > best->prefix.size()))
      best = &f;
  return *best;
}

}  // namespace kvplan
