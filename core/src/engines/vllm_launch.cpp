// The `vllm serve` line of a plan (flags as vllm/engine/arg_utils.py@99d7eb5d spells them).
#include "kvplan/deploy.hpp"
#include "kvplan/engine_args.hpp"
#include "launch_line.hpp"
#include "vllm.hpp"

namespace kvplan::engines {

std::optional<std::string> Vllm::launch_line(const ModelSpec& model, const PlanInput& in,
                                             std::string* why) const {
  const auto kv = kv_cache_dtype_flag("vLLM", "fp8", in, why);
  if (!kv) return std::nullopt;
  if (!draft_layers_by_method("vLLM", model, in, why)) return std::nullopt;
  if (in.engine == engine() && in.vllm().extract_hidden_states > 0) {
    // The layers whose hidden states are cached are the deployment's choice; the plan knows how
    // many, not which.
    if (why)
      *why =
          "the hidden-state cache's layers (eagle_aux_hidden_state_layer_ids) are the "
          "deployment's: kvplan knows how many (" +
          std::to_string(in.vllm().extract_hidden_states) + "), not which";
    return std::nullopt;
  }
  // A plan of another engine gets vLLM's defaults for what that engine set its own way.
  const bool mine = in.engine == engine();
  std::uint64_t seqs = 0;
  const std::string dp = replicas_and_seqs(in, &seqs);
  std::string s = "vllm serve " + hf_repo_id(model);
  if (in.tp > 1) s += " --tensor-parallel-size " + std::to_string(in.tp);
  if (in.pp > 1) s += " --pipeline-parallel-size " + std::to_string(in.pp);
  if (!dp.empty()) s += " --data-parallel-size " + dp;
  // The experts spread over the TP × DP ranks, as planned and simulated.
  if (in.expert_parallel && model.routed_experts > 0) s += " --enable-expert-parallel";
  s += " --max-model-len " + std::to_string(in.context);
  s += " --max-num-seqs " + std::to_string(seqs);
  s += " --kv-cache-dtype " + *kv;
  s += " --gpu-memory-utilization " + decimal(mine && in.memory_fraction_ppm
                                                  ? in.memory_fraction_ppm
                                                  : default_memory_fraction_ppm());
  const std::uint32_t bs = mine && in.block_size ? in.block_size : 16;
  if (bs != 16) s += " --block-size " + std::to_string(bs);
  // Left out where it is what vllm serve defaults to on this GPU.
  if (in.max_num_batched_tokens != default_max_num_batched_tokens(in))
    s += " --max-num-batched-tokens " + std::to_string(in.max_num_batched_tokens);
  // MTP: the checkpoint's own layers, with the tokens stated (speculative_tokens says why).
  if (in.draft_layers > 0) {
    // Another engine's plan reads vLLM's options as their defaults (PlanInput::vllm()).
    s += " --speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": " +
         std::to_string(speculative_tokens(in)) + "}'";
  }
  if (!mine) return s;
  const VllmOptions& o = in.vllm();
  if (o.dcp > 1) s += " --decode-context-parallel-size " + std::to_string(o.dcp);
  if (o.disable_hybrid_kv_cache_manager) s += " --disable-hybrid-kv-cache-manager";
  if (o.mamba_cache_mode != VllmOptions::MambaCacheMode::none)
    s += std::string(" --mamba-cache-mode ") + mamba_cache_mode_name(o.mamba_cache_mode);
  // The recurrent state's dtypes (vllm/config/cache.py@002f10e0 mamba_cache_dtype,
  // mamba_ssm_cache_dtype), as the plan set them.
  if (in.conv_state_dtype && !torch_float_name(*in.conv_state_dtype).empty())
    s += " --mamba-cache-dtype " + torch_float_name(*in.conv_state_dtype);
  if (in.ssm_state_dtype && !torch_float_name(*in.ssm_state_dtype).empty())
    s += " --mamba-ssm-cache-dtype " + torch_float_name(*in.ssm_state_dtype);
  if (o.async_scheduling)
    s += *o.async_scheduling ? " --async-scheduling" : " --no-async-scheduling";
  if (o.num_gpu_blocks_override)
    s += " --num-gpu-blocks-override " + std::to_string(*o.num_gpu_blocks_override);
  if (o.attn_group_size) s += " --attn-group-size " + std::to_string(o.attn_group_size);
  // A runner chosen against the release's default is the environment's (vllm/envs.py).
  if (o.model_runner != VllmOptions::ModelRunner::auto_)
    s = std::string("VLLM_USE_V2_MODEL_RUNNER=") +
        (o.model_runner == VllmOptions::ModelRunner::v2 ? "1 " : "0 ") + s;
  return s;
}

}  // namespace kvplan::engines
