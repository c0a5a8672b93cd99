// How `vllm serve` is read: its flags (vllm/engine/arg_utils.py) and entry points.
#include "command_syntax.hpp"

namespace kvplan::detail {
namespace {

// Flags as of vLLM 0.10 (`vllm serve --help`).
const std::vector<FlagSpec>& vllm_flags() {
  static const std::vector<FlagSpec> f = {
      {"--model", Field::model},
      {"--tensor-parallel-size", Field::tp},
      {"-tp", Field::tp},
      {"--pipeline-parallel-size", Field::pp},
      {"-pp", Field::pp},
      {"--data-parallel-size", Field::dp},
      {"-dp", Field::dp},
      {"--max-model-len", Field::max_model_len},
      {"--max-num-seqs", Field::max_num_seqs},
      {"--max-num-batched-tokens", Field::max_num_batched_tokens},
      {"--gpu-memory-utilization", Field::fraction},
      {"--block-size", Field::block_size},
      {"--kv-cache-dtype", Field::kv_cache_dtype},
      {"--dtype", Field::dtype},
      {"--quantization", Field::quantization},
      {"-q", Field::quantization},
      {"--num-gpu-blocks-override", Field::num_gpu_blocks_override},
      {"--attn-group-size", Field::attn_group_size},
      {"--kv-cache-memory", Field::kv_cache_memory_bytes},
      {"--kv-cache-memory-bytes", Field::kv_cache_memory_bytes},
      {"--enable-expert-parallel", Field::expert_parallel},
      {"-ep", Field::expert_parallel},
      {"--served-model-name", Field::multi_value},
      {"--lora-modules", Field::not_modelled_multi},  // nargs="+"
      {"--cuda-graph-sizes", Field::multi_value},
      {"--allowed-origins", Field::multi_value},
      {"--middleware", Field::multi_value},
      {"--enable-lora", Field::not_modelled_bool},
      {"--max-loras", Field::not_modelled_value},
      {"--max-lora-rank", Field::not_modelled_value},
      {"--max-cpu-loras", Field::not_modelled_value},
      {"--config", Field::config_file},
      {"--mamba-cache-dtype", Field::mamba_cache_dtype},
      {"--mamba-ssm-cache-dtype", Field::mamba_ssm_cache_dtype},
      // Both in vllm/engine/arg_utils.py @ 99d7eb5d6a512cfcc5a2b104f24ebf2d6cda772b (the
      // ParallelConfig and SchedulerConfig argument groups).
      {"--disable-hybrid-kv-cache-manager", Field::disable_hybrid_kv},
      {"--decode-context-parallel-size", Field::dcp},
      {"-dcp", Field::dcp},
      {"--speculative-config", Field::speculative_config},
      {"--hf-overrides", Field::hf_overrides},
      {"--rope-scaling", Field::rope_scaling},
      {"--cpu-offload-gb", Field::not_modelled_value},
      // The KV tiers beyond the GPU (kv_tiers.hpp): vllm/config/cache.py @ 002f10e0
      // (kv_offloading_size, kv_offloading_backend), vllm/config/kv_transfer.py.
      {"--kv-offloading-size", Field::kv_offloading_size},
      {"--kv-offloading-backend", Field::kv_offloading_backend},
      {"--kv-transfer-config", Field::kv_transfer_config},
      {"--swap-space", Field::ignored_value},
      {"--host", Field::ignored_value},
      {"--port", Field::ignored_value},
      {"--api-key", Field::ignored_value},
      {"--seed", Field::ignored_value},
      {"--download-dir", Field::ignored_value},
      {"--tokenizer", Field::ignored_value},
      {"--revision", Field::ignored_value},
      {"--max-logprobs", Field::ignored_value},
      {"--uvicorn-log-level", Field::ignored_value},
      {"--chat-template", Field::ignored_value},
      {"--tool-call-parser", Field::ignored_value},
      {"--load-format", Field::ignored_value},
      {"--distributed-executor-backend", Field::ignored_value},
      {"--trust-remote-code", Field::ignored_bool},
      {"--enable-prefix-caching", Field::ignored_bool},
      {"--no-enable-prefix-caching", Field::ignored_bool},
      {"--disable-log-requests", Field::ignored_bool},
      {"--disable-log-stats", Field::ignored_bool},
      {"--enable-chunked-prefill", Field::ignored_bool},
      {"--enable-auto-tool-choice", Field::ignored_bool},
      {"--enforce-eager", Field::enforce_eager},
      // SchedulerConfig.async_scheduling, a bool | None argparse takes as --async-scheduling and
      // --no-async-scheduling (vllm/config/vllm.py@000fc94b names the latter in its errors).
      {"--async-scheduling", Field::async_scheduling},
      {"--no-async-scheduling", Field::async_scheduling},
      {"--mamba-cache-mode", Field::mamba_cache_mode},
  };
  return f;
}

}  // namespace

const CommandSyntax& vllm_command_syntax() {
  static const CommandSyntax syntax = [] {
    CommandSyntax s;
    s.usage =
        "expected \"vllm serve MODEL [flags]\" or \"python -m "
        "vllm.entrypoints.openai.api_server --model MODEL [flags]\"";
    s.programs = {EntryPoint{"vllm", "serve", false, true}};
    s.python_module = "vllm.entrypoints.openai.api_server";
    // The vllm/vllm-openai image's entrypoint is the OpenAI server (docker/Dockerfile).
    s.server_images = {"vllm-openai", "vllm/vllm"};
    s.flags = &vllm_flags();
    s.dotted_json_flag = "--speculative-config";
    s.human_readable_ints = true;
    // CacheConfig.block_size: BlockSize = Literal[1, 8, 16, 32, 64, 128, 256]
    // (https://github.com/vllm-project/vllm/blob/main/vllm/config/cache.py; older releases
    // stop at 128, which kvplan does not tell apart).
    s.block_sizes = {1, 8, 16, 32, 64, 128, 256};
    s.config_files = ConfigFiles::spliced_first;
    s.model_field = "--model";
    s.speculative_field = "--speculative-config";
    return s;
  }();
  return syntax;
}

}  // namespace kvplan::detail
