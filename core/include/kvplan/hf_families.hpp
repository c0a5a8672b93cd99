// The Hugging Face model families kvplan's config.json import knows, as one table of data: per
// family (a model_type, a group of them, or every model_type starting with a prefix), the layer
// pattern, the recurrent mixer, the MLP and MoE layout, the norms, the defaults its config class
// gives omitted fields, the config.json keys its rules read, and the modeling code each row
// follows. The import (core/src/hf_config.cpp) decides per family only through this table; a
// model_type the table does not name is read by its fields alone (the generic row: MLA where
// kv_lora_rank is given, per-layer kinds from layer_types, a mixer from its dimension fields).
//
//   const kvplan::HfFamily& f = kvplan::find_hf_family("gemma2");
//   f.layer_pattern == kvplan::HfLayerPattern::gemma2_even_sliding;  // layers 0, 2, 4, ... slide
//   f.sliding_window_default == 4096;  // tokens, when config.json leaves sliding_window out
//   f.norms_per_layer == 4;            // pre/post norms around attention and MLP
//   kvplan::find_hf_family("llama").name == "generic";  // Llama needs no rule of its own
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "kvplan/model.hpp"

namespace kvplan {

// Which layer holds which cache. The config's own per-layer lists come first for every family
// (layer_types, then layers_block_type); after them a pattern marked (early) below, then the
// generic field rules (a Gated DeltaNet mixer's full_attention_interval, MiniMax's
// attn_type_list, a pure state-space model), then a pattern marked (late); else every layer is
// full attention.
enum class HfLayerPattern {
  by_fields,                // no pattern of the family's own
  nemotron_h_string,        // hybrid_override_pattern, one character per layer; read before
                            // layer_types: M Mamba-2, * attention, - MLP, E MoE
  jamba_period,             // (early) attention where i % attn_layer_period == attn_layer_offset
                            // (8, 4), Mamba elsewhere
  falcon_h1_parallel,       // (early) attention and a Mamba-2 mixer in every layer
  llama4_nope_chunked,      // (late) no_rope_layers[i] == 0 (or every no_rope_layer_interval-th,
                            // 4) global; the others chunked by attention_chunk_size when given
  gemma3_global_every,      // (late) global when (i + 1) % sliding_window_pattern == 0 (6)
  gemma2_even_sliding,      // (late) even layers slide
  qwen2_max_window_layers,  // (late) layers from max_window_layers (28) slide, only when
                            // use_sliding_window is true
  sliding_when_window,      // (late) every layer slides when sliding_window is set
};

// The dense MLP (and expert) block.
enum class HfMlp {
  gated,         // gate, up, down (SwiGLU / GeGLU): 3 · hidden · width
  squared_relu,  // Nemotron-H: up, down, no gate; each layer holds one block (mixer,
                 // attention, MLP or MoE) as hybrid_override_pattern says
};

// Which layers are MoE, when the config has routed experts.
enum class HfMoeLayers {
  by_fields,          // from first_k_dense_replace; then i % moe_layer_freq == 0, or
                      // (i + 1) % decoder_sparse_step == 0; minus mlp_only_layers
  llama4_interleave,  // (i + 1) % interleave_moe_layer_step == 0
  nemotron_h_string,  // the layers marked E in hybrid_override_pattern
  jamba_period,       // i % expert_layer_period == expert_layer_offset (2, 1)
};

// How a routed expert stores its weights.
enum class HfExperts {
  gated,          // gate, up, down without biases; router [E, hidden] (+ bias when the row or
                  // topk_method noaux_tc says)
  gpt_oss_fused,  // gate_up_proj [E, hidden, 2·w] + bias, down_proj [E, w, hidden] + bias,
                  // router [E, hidden] + bias
};

// The vision tower of a multimodal wrapper, chosen by the wrapper's (outer) model_type.
enum class HfVision {
  siglip,   // plain MLP blocks, one linear projector (Gemma 3's SigLIP, the default)
  llama4,   // plain MLP blocks, linear projector plus Llama 4's projector MLP
  pixtral,  // gated MLP blocks (Pixtral), Mistral 3's patch merger and projector
  qwen_vl,  // gated MLP blocks, Qwen-VL's 2×2 patch merger to out_hidden_size
};

struct HfFamily {
  std::string_view name = {};                          // "Gemma 2"; "generic" for the fallback row
  std::span<const std::string_view> model_types = {};  // exact model_type values of this row
  std::string_view prefix = {};  // or every model_type starting with it that no row names exactly
  // Layers and the recurrent state.
  HfLayerPattern layer_pattern = HfLayerPattern::by_fields;
  MixerKind mixer = MixerKind::none;  // none: a mixer only from the config's dimension fields
  bool mixer_outranks_mamba2_fields = false;        // Jamba: stays Mamba beside mamba_n_heads
  bool mamba_width_from_intermediate_size = false;  // Mamba: d_inner = intermediate_size
  bool mamba_dt_bc_norms = false;                   // Jamba: dt, B, C layernorms per mixer
  bool ssm_state_fp32 = false;            // vLLM's default temporal-state dtype is float32
  std::string_view ssm_dtype_field = {};  // config key naming the temporal state's dtype ("" none)
  std::uint64_t sliding_window_default = 0;  // tokens when sliding_window is absent (0: required)
  std::string_view config_defaults =
      {};  // JSON object: the config class's defaults for omitted keys
  // Attention weights.
  bool qkv_bias = false;                     // q, k, v biases without qkv_bias / attention_bias
  bool attention_bias = false;               // q, k, v, o biases whatever attention_bias says
  bool attention_bias_skips_o_proj = false;  // attention_bias biases q, k, v but not o_proj
  bool qk_norm = false;                      // q_norm and k_norm of head_dim each
  bool attn_output_gate = false;             // attn_output_gate's default
  bool attention_sinks = false;              // one learned sink per query head
  // MLP, MoE, norms, embeddings.
  HfMlp mlp = HfMlp::gated;
  std::uint8_t norms_per_layer = 2;  // hidden-wide norms per decoder layer
  HfMoeLayers moe_layers = HfMoeLayers::by_fields;
  HfExperts experts = HfExperts::gated;
  bool shared_expert_routed_width = false;  // one shared expert as wide as a routed one
  bool router_bias = false;                 // e_score_correction_bias whatever topk_method says
  bool tie_word_embeddings = true;          // tie_word_embeddings's default
  HfVision vision = HfVision::siglip;       // as the wrapper (outer model_type) of this row
  // Documentation as data.
  std::span<const std::string_view> fields =
      {};                        // config.json keys read because of this row's rules
  std::string_view source = {};  // the modeling code the row follows (file@commit where read)
};

// Every row but the generic one, in no particular order.
std::span<const HfFamily> hf_families();
// The row for rules of no family: what a model_type the table does not name is read by.
const HfFamily& hf_generic_family();
// The row naming model_type exactly, else the row of the longest prefix it starts with, else
// the generic row. Never throws: an unknown model_type is read by its fields.
const HfFamily& find_hf_family(std::string_view model_type);

}  // namespace kvplan
