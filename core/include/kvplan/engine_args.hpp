// Engine command lines both ways: read a vLLM or SGLang launch command into a plan, and print the
// flags that realize a plan.
//
//   EngineArgs a = kvplan::parse_engine_command(Engine::vllm,
//       "vllm serve meta-llama/Llama-3.1-8B --tensor-parallel-size 2 --max-model-len 32768 "
//       "--kv-cache-dtype fp8 --gpu-memory-utilization 0.92 --max-num-seqs 64", "--vllm");
//   a.tp == 2, a.max_model_len == 32768, *a.kv_cache_dtype == "fp8", a.memory_fraction_ppm ==
//   920000; kvplan::resolve_engine_model("meta-llama/Llama-3.1-8B") is the llama-3.1-8b preset
//   (.preset == "llama-3.1-8b"), named as given (.id == "meta-llama/Llama-3.1-8B").
//
// Flags kvplan does not know land in `unknown` (never silently dropped); known flags that do not
// change the KV cache land in `ignored`; known flags that change it in ways kvplan does not model
// land in `not_modelled`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kvplan/kv_format.hpp"
#include "kvplan/kv_tiers.hpp"
#include "kvplan/model.hpp"
#include "kvplan/planner.hpp"

namespace kvplan {

struct EngineArgs {
  Engine engine = Engine::vllm;
  std::string model;  // as written: a Hugging Face repo id or a local path
  std::optional<std::uint32_t> tp, pp, dp;
  std::optional<std::uint64_t> max_model_len;  // vLLM --max-model-len, SGLang --context-length
  bool max_model_len_auto = false;             // vLLM --max-model-len -1 / auto: fit the memory
  std::optional<std::uint64_t> max_num_seqs;   // vLLM --max-num-seqs, SGLang --max-running-requests
  std::optional<std::uint64_t> max_num_batched_tokens;  // vLLM; SGLang --chunked-prefill-size
  std::optional<std::uint32_t>
      memory_fraction_ppm;                    // --gpu-memory-utilization / --mem-fraction-static
  std::optional<std::uint32_t> block_size;    // vLLM --block-size, SGLang --page-size
  std::optional<std::string> kv_cache_dtype;  // the engine's spelling
  std::optional<std::uint64_t> kv_cache_memory_bytes;    // vLLM --kv-cache-memory-bytes, per GPU
  std::optional<std::uint64_t> num_gpu_blocks_override;  // vLLM --num-gpu-blocks-override
  std::optional<std::uint32_t> attn_group_size;          // vLLM --attn-group-size
  bool expert_parallel = false;          // vLLM --enable-expert-parallel, SGLang --enable-ep-moe
  bool dp_attention = false;             // SGLang --enable-dp-attention: DP splits the TP group
  bool enforce_eager = false;            // vLLM --enforce-eager: no CUDA graphs
  std::optional<bool> async_scheduling;  // vLLM --async-scheduling / --no-async-scheduling
  std::optional<std::string> mamba_cache_mode;   // vLLM --mamba-cache-mode none|align|all
  std::optional<std::uint32_t> dcp;              // vLLM --decode-context-parallel-size / -dcp
  bool disable_hybrid_kv_cache_manager = false;  // vLLM --disable-hybrid-kv-cache-manager
  // VLLM_USE_V2_MODEL_RUNNER=0|1 before the command (or docker's -e): the model runner.
  std::optional<bool> model_runner_v2;
  // The container image that runs it (docker run's, a Kubernetes container's): its tag may name
  // the engine's release (image_release).
  std::string image;
  std::optional<std::string> weight_dtype;  // kvplan's name, from --dtype / --quantization
  // Speculative decoding: vLLM --speculative-config {"method", "model", "num_speculative_tokens"}
  // (JSON or dotted --speculative-config.method), SGLang --speculative-algorithm; lowercase.
  std::optional<std::string> speculative_method, speculative_model;
  std::optional<std::uint32_t> speculative_tokens;
  // method extract_hidden_states: the hidden states a token caches
  // (draft_model_config.hf_config.eagle_aux_hidden_state_layer_ids; VllmOptions).
  std::optional<std::uint32_t> extract_hidden_states;
  // vLLM --hf-overrides and --rope-scaling: one JSON object of config.json keys (--rope-scaling
  // as its "rope_scaling"), applied before the model's positions are derived (apply_hf_overrides);
  // hf_overrides_flag names the flag(s) for messages.
  std::optional<std::string> hf_overrides;
  std::string hf_overrides_flag;
  // SGLang's pools: --swa-full-tokens-ratio, --disable-hybrid-swa-memory,
  // --mamba-full-memory-ratio, --max-mamba-cache-size, --max-total-tokens; TensorRT-LLM's
  // kv_cache_config.max_tokens lands in max_total_tokens too.
  std::optional<std::uint32_t> swa_full_tokens_ratio_ppm, mamba_full_memory_ratio_ppm;
  bool disable_hybrid_swa_memory = false;
  std::optional<std::uint64_t> max_mamba_cache_size, max_total_tokens;
  std::optional<std::uint32_t> speculative_num_draft_tokens;  // SGLang
  // SGLang --speculative-num-steps, --speculative-eagle-topk: the decode reserve's shape
  // (SglangOptions).
  std::optional<std::uint32_t> speculative_num_steps, speculative_eagle_topk;
  // A recurrent state's dtypes (PlanInput::conv_state_dtype, ssm_state_dtype): vLLM
  // --mamba-cache-dtype and --mamba-ssm-cache-dtype, SGLang --mamba-ssm-dtype, TensorRT-LLM
  // kv_cache_config.mamba_ssm_cache_dtype; "auto" leaves them unset.
  std::optional<KvDtype> conv_state_dtype, ssm_state_dtype;
  std::optional<std::uint32_t> scheduler_recv_interval;     // SGLang --scheduler-recv-interval
  bool disable_overlap_schedule = false;                    // SGLang --disable-overlap-schedule
  bool disable_radix_cache = false;                         // SGLang --disable-radix-cache
  bool linear_replayssm_spec = false;                       // SGLang --enable-linear-replayssm-spec
  std::optional<std::uint32_t> linear_replayssm_cache_len;  // SGLang --linear-replayssm-cache-len
  // SGLang --disaggregation-mode, --disaggregation-decode-extra-slots,
  // --disaggregation-decode-enable-radix-cache (SglangOptions).
  std::optional<std::string> disaggregation_mode;
  std::optional<std::uint64_t> disaggregation_decode_extra_slots;
  bool disaggregation_decode_enable_radix_cache = false;
  // SGLang --mamba-radix-cache-strategy / --mamba-scheduler-strategy (SglangOptions).
  std::optional<std::string> mamba_radix_cache_strategy;
  // TensorRT-LLM (trtllm-serve --backend, kv_cache_config.max_attention_window).
  std::optional<std::string> trtllm_backend;  // pytorch, tensorrt, _autodeploy
  std::optional<std::uint32_t> ep_size;  // --ep_size / moe_expert_parallel_size, SGLang --ep-size
  std::string ep_size_flag;              // how the command line spelled it
  std::optional<std::uint32_t> max_beam_width;  // --max_beam_width (default 1)
  std::vector<std::uint64_t> max_attention_window;
  std::optional<std::uint64_t> max_gpu_total_bytes;  // kv_cache_config.max_gpu_total_bytes
  // kv_cache_config.use_kv_cache_manager_v2 (true / false; "auto" leaves it unset) and
  // kv_cache_config.avg_seq_len: a hybrid Mamba model's manager (TrtllmOptions).
  std::optional<bool> kv_cache_manager_v2;
  std::optional<std::uint64_t> avg_seq_len;
  // attention_dp_config.enable_balance, timeout_iters, batching_wait_iters (TrtllmOptions).
  std::optional<bool> adp_enable_balance;
  std::optional<std::uint32_t> adp_timeout_iters, adp_batching_wait_iters;
  // kv_cache_config.enable_block_reuse and its mamba_state_config (periodic_snapshot_interval,
  // or the deprecated mamba_state_cache_interval; additional_snapshot_offsets_from_start / _end):
  // a hybrid Mamba model's state snapshots (TrtllmOptions).
  std::optional<bool> enable_block_reuse;
  std::optional<std::uint64_t> snapshot_interval;
  std::vector<std::uint64_t> snapshot_offsets_from_start, snapshot_offsets_from_end;
  // kv_cache_config.block_reuse_config.policy: per_conversation turns the periodic snapshots off.
  std::optional<std::string> block_reuse_policy;
  // Config files read, in order: vLLM --config, trtllm-serve --extra_llm_api_options / --config.
  std::vector<std::string> config_files;
  // KV tiers beyond the GPU: vLLM --kv-offloading-size / --kv-offloading-backend /
  // --kv-transfer-config (LMCache connectors, OffloadingConnector) and the LMCACHE_* variables
  // before the command (or docker -e), SGLang --enable-hierarchical-cache / --hicache-ratio /
  // --hicache-size, TensorRT-LLM kv_cache_config.host_cache_size.
  HostTierArgs host_tiers;
  std::vector<std::string> unknown;       // flags kvplan does not know, as written
  std::vector<std::string> ignored;       // known flags without effect on the KV cache
  std::vector<std::string> not_modelled;  // known flags that change it, not modelled
};

// vLLM's human-readable integers: 32k = 32,000, 32K = 32,768, 1.5m = 1,500,000 (decimals with
// k/m/g/t only), or a plain integer; bounded by [min, max]. Throws Error(source, field).
std::uint64_t parse_human_int(const std::string& text, std::uint64_t min, std::uint64_t max,
                              const std::string& source, const std::string& field);

// Splits a command line like a POSIX shell (single and double quotes, backslash escapes,
// line continuations); throws Error(source) on an unterminated quote.
std::vector<std::string> split_command_line(const std::string& line, const std::string& source);

// Parses "vllm serve MODEL ..." / "python -m vllm.entrypoints.openai.api_server --model M ..."
// (engine vllm), "python -m sglang.launch_server --model-path M ..." (engine sglang) or
// "trtllm-serve [serve] MODEL ..." (engine trtllm). Leading VAR=value assignments are skipped.
// Config files are read as the engines read them:
//   vLLM --config FILE.yaml: every key becomes --key VALUE (true: --key, false: nothing, a
//     list: --key ITEM...), placed before the command line's flags, so the command line wins
//     (FlexibleArgumentParser._pull_args_from_config / load_config_file).
//   trtllm-serve --extra_llm_api_options / --config FILE.yaml: the LLM-API keys
//     (tensor_parallel_size, pipeline_parallel_size, max_batch_size, max_seq_len,
//     max_num_tokens, max_beam_width, moe_expert_parallel_size, backend, dtype,
//     kv_cache_config.{free_gpu_memory_fraction, max_tokens, tokens_per_block, dtype,
//     max_attention_window, max_gpu_total_bytes, host_cache_size, enable_block_reuse,
//     mamba_ssm_cache_dtype, mamba_state_config.*}); the file's keys replace the command line's
//     (update_llm_args_with_extra_dict). --ep_size must divide --tp_size; a beam width over 1,
//     attention DP, LoRA and speculative configs are named in not_modelled.
// Throws Error(source, flag) on a bad value, Error(file, key) on a malformed config file.
// The release a container image's tag names: "vllm/vllm-openai:v0.25.1" -> "0.25.1" (a leading v
// dropped, a suffix such as rc1 cut); nullopt for a tag that is no version (latest, nightly, a
// digest) or no tag.
std::optional<std::string> image_release(const std::string& image);
// The image without its tag and digest: "registry:5000/vllm/vllm-openai:v0.25.1" ->
// "registry:5000/vllm/vllm-openai".
std::string image_repository(const std::string& image);

EngineArgs parse_engine_command(Engine engine, const std::string& line, const std::string& source);

// The engine pool settings of `a` that PlanInput models (SGLang's SWA / Mamba pools and
// --max-total-tokens, TensorRT-LLM's backend, max_attention_window and max_tokens), applied to
// `p`, whose engine becomes a's (set_engine). Throws Error(source, flag) on a value kvplan does not
// know (a TensorRT-LLM backend).
void apply_engine_pool_args(const EngineArgs& a, PlanInput& p, const std::string& source);

// The KV format an engine's --kv-cache-dtype means for this model. "auto" is the dtype the model
// is served in, default_kv_format(model, served_dtype): `served_dtype` (--dtype: fp32, fp16,
// bf16) when given and the weights are not quantized, else the checkpoint's dtype (a float32 one
// downcast to bf16, a quantized one's compute dtype), unless the engine picks another for this
// model on this GPU preset (`gpu_id`, EngineRules::auto_kv_format). Throws Error(source, field)
// on an unknown value.
KvFormat engine_kv_format(Engine engine, const std::string& kv_cache_dtype, const ModelSpec& model,
                          const std::string& source, const std::string& field,
                          const std::string& served_dtype = "", const std::string& gpu_id = "");

// A model named on an engine command line: a local file or directory (config.json), else a
// preset matched by the repo name ("meta-llama/Llama-3.1-8B-Instruct" -> llama-3.1-8b).
// Throws Error(source, "model") naming the presets when nothing matches.
ModelSpec resolve_engine_model(const std::string& name, const std::string& source);

// Speculative layers holding a cache under the command line's speculative decoding: the
// checkpoint's MTP layers for mtp / *_mtp / NEXTN, one EAGLE layer of the target's geometry (the
// MTP layers where the checkpoint has them), none for n-gram; `note` says which. Throws Error
// when MTP is asked of a model without MTP layers.
std::uint32_t speculative_draft_layers(const EngineArgs& a, const ModelSpec& model,
                                       std::string* note = nullptr);

// The Hugging Face repo id of a model: its id when that is a repo id or path as the user gave
// it, else from its source URL, else its id.
std::string hf_repo_id(const ModelSpec& model);

// The command that realizes `in` on vLLM / SGLang, or std::nullopt with `why` set when the
// engine cannot (a format or policy it does not implement, an engine-specific block size).
std::optional<std::string> vllm_command(const ModelSpec& model, const PlanInput& in,
                                        std::string* why = nullptr);
std::optional<std::string> sglang_command(const ModelSpec& model, const PlanInput& in,
                                          std::string* why = nullptr);

}  // namespace kvplan
