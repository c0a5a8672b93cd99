// How `python -m sglang.launch_server` is read: its flags (python/sglang/srt/server_args.py, SGLang
// 0.4/0.5) and entry points.
#include "command_syntax.hpp"

namespace kvplan::detail {
namespace {

// Flags as of SGLang 0.4/0.5 (server_args.py).
const std::vector<FlagSpec>& sglang_flags() {
  static const std::vector<FlagSpec> f = {
      {"--model-path", Field::model},
      {"--model", Field::model},
      {"--tp-size", Field::tp},
      {"--tp", Field::tp},
      {"--pp-size", Field::pp},
      {"--dp-size", Field::dp},
      {"--dp", Field::dp},
      {"--context-length", Field::max_model_len},
      {"--max-running-requests", Field::max_num_seqs},
      {"--chunked-prefill-size", Field::max_num_batched_tokens},
      {"--mem-fraction-static", Field::fraction},
      {"--page-size", Field::block_size},
      {"--dcp-size", Field::dcp},
      {"--decode-context-parallel-size", Field::dcp},
      // HiCache (python/sglang/srt/arg_groups/fields/memory.py @ 09eaaf15, class Memory).
      {"--enable-hierarchical-cache", Field::hicache},
      {"--hicache-ratio", Field::hicache_ratio},
      {"--hicache-size", Field::hicache_size},
      {"--hicache-write-policy", Field::ignored_value},
      {"--hicache-io-backend", Field::ignored_value},
      {"--hicache-mem-layout", Field::ignored_value},
      {"--hicache-host-memory-mode", Field::not_modelled_value},
      {"--hicache-storage-backend", Field::not_modelled_value},
      {"--kv-cache-dtype", Field::kv_cache_dtype},
      {"--dtype", Field::dtype},
      {"--quantization", Field::quantization},
      {"--max-total-tokens", Field::max_total_tokens},
      {"--speculative-algorithm", Field::speculative_algorithm},
      {"--host", Field::ignored_value},
      {"--port", Field::ignored_value},
      {"--served-model-name", Field::ignored_value},
      {"--api-key", Field::ignored_value},
      {"--tokenizer-path", Field::ignored_value},
      {"--random-seed", Field::ignored_value},
      {"--log-level", Field::ignored_value},
      {"--attention-backend", Field::ignored_value},
      // A DSA model's backends choose its fp8 latent's layout (calculate_mla_kv_cache_dim); kvplan
      // takes the GPU's defaults (--nsa-* are the deprecated names).
      {"--dsa-prefill-backend", Field::not_modelled_value},
      {"--dsa-decode-backend", Field::not_modelled_value},
      {"--nsa-prefill-backend", Field::not_modelled_value},
      {"--nsa-decode-backend", Field::not_modelled_value},
      {"--cuda-graph-max-bs", Field::not_modelled_value},
      {"--chat-template", Field::ignored_value},
      {"--load-format", Field::ignored_value},
      {"--trust-remote-code", Field::ignored_bool},
      // The prefix cache: off, a Mamba hybrid takes one state slot a running request
      // (KVCacheConfigurator._calculate_mamba_ratio; SglangOptions).
      {"--disable-radix-cache", Field::disable_radix_cache},
      {"--mamba-radix-cache-strategy", Field::mamba_strategy},
      {"--mamba-scheduler-strategy", Field::mamba_strategy},  // its deprecated alias
      // ReplaySSM's spec-verify window a slot (SglangOptions::linear_replayssm_spec); the decode
      // kernel's own ring (--enable-linear-replayssm) is not charged by SGLang's solver either.
      {"--enable-linear-replayssm-spec", Field::linear_replayssm_spec},
      {"--enable-gdn-replayssm-spec", Field::linear_replayssm_spec},
      {"--linear-replayssm-cache-len", Field::linear_replayssm_cache_len},
      // Prefill / decode disaggregation (SglangOptions::disaggregation_mode): a decode worker's
      // chunk cache, its in-transfer request rows and its SWA pool's cap.
      {"--disaggregation-mode", Field::disaggregation_mode},
      {"--disaggregation-decode-extra-slots", Field::decode_extra_slots},
      {"--disaggregation-decode-enable-radix-cache", Field::decode_radix_cache},
      {"--enable-linear-replayssm", Field::not_modelled_bool},
      {"--enable-torch-compile", Field::ignored_bool},
      {"--enable-dp-attention", Field::dp_attention},
      {"--cuda-graph-bs", Field::multi_value},
      // LoRA (server_args.py): adapters take memory beside the KV pool; --lora-paths and
      // --lora-target-modules take several values (nargs="*").
      {"--enable-lora", Field::not_modelled_bool},
      {"--lora-paths", Field::not_modelled_multi},
      {"--lora-target-modules", Field::not_modelled_multi},
      {"--max-lora-rank", Field::not_modelled_value},
      {"--max-loras-per-batch", Field::not_modelled_value},
      {"--max-loaded-loras", Field::not_modelled_value},
      {"--lora-backend", Field::ignored_value},
      {"--max-mamba-cache-size", Field::max_mamba_cache_size},
      {"--speculative-num-draft-tokens", Field::speculative_num_draft_tokens},
      {"--speculative-num-steps", Field::speculative_num_steps},
      {"--speculative-eagle-topk", Field::speculative_eagle_topk},
      {"--mamba-ssm-dtype", Field::mamba_ssm_dtype},
      {"--swa-full-tokens-ratio", Field::swa_ratio},
      {"--mamba-full-memory-ratio", Field::mamba_ratio},
      {"--disable-hybrid-swa-memory", Field::disable_hybrid_swa},
      {"--enable-ep-moe", Field::expert_parallel},
      // Expert parallelism (server_args.py: "--expert-parallel-size", "--ep-size"; seen in a
      // copy of the file in the code search, not read at an upstream commit).
      {"--expert-parallel-size", Field::ep_size},
      {"--ep-size", Field::ep_size},
      {"--disable-cuda-graph", Field::not_modelled_bool},
      // Pipeline micro-batches (server_args.py): the serving simulator runs pp of them with
      // max(max_running_requests // pp, 1) requests each, SGLang's defaults; these change both.
      {"--pp-max-micro-batch-size", Field::not_modelled_value},
      {"--pp-async-batch-depth", Field::not_modelled_value},
      // How often the scheduler takes new requests in (scheduler_recv_skipper.py): the serving
      // simulator runs it. --stream-interval batches the tokens a stream sends after its first
      // (stream_output_generation sends when len(output_ids) % interval == 1): neither TTFT nor
      // the mean TPOT moves, only the gaps a client sees.
      {"--scheduler-recv-interval", Field::recv_interval},
      {"--stream-interval", Field::ignored_value},
      // The overlap scheduler (event_loop_overlap, on by default): the serving simulator admits
      // an arrival into the batch after the one formed while the running batch runs.
      {"--disable-overlap-schedule", Field::disable_overlap},
  };
  return f;
}

}  // namespace

const CommandSyntax& sglang_command_syntax() {
  static const CommandSyntax syntax = [] {
    CommandSyntax s;
    s.usage = "expected \"python -m sglang.launch_server --model-path MODEL [flags]\"";
    s.programs = {EntryPoint{"sglang", "serve", false, false}};
    s.python_module = "sglang.launch_server";
    s.flags = &sglang_flags();
    s.batched_tokens_minus_one_off = true;
    s.model_field = "--model-path";
    s.speculative_field = "--speculative-algorithm";
    return s;
  }();
  return syntax;
}

}  // namespace kvplan::detail
