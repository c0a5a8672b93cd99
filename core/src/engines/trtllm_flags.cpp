// How `trtllm-serve` is read: its click options and entry points.
#include "command_syntax.hpp"

namespace kvplan::detail {
namespace {

// trtllm-serve's options (tensorrt_llm/commands/serve.py @ NVIDIA/TensorRT-LLM
// 00209af149e7774406881a37283dce303571eb11, click options; the names as written there use
// underscores, and the dashed spellings are read too). Defaults (get_llm_args and BuildConfig,
// tensorrt_llm/builder.py @ 008b2b8d23af95e4e19fa6f354f9c5f6349b2bfc): --backend pytorch,
// --max_batch_size 2048, --max_num_tokens 8192, --max_beam_width 1, --max_seq_len from the
// model, --free_gpu_memory_fraction 0.9, --tp_size / --pp_size / --cp_size 1, --ep_size none.
const std::vector<FlagSpec>& trtllm_flags() {
  static const std::vector<FlagSpec> f = {
      {"--backend", Field::trtllm_backend},
      {"--tp-size", Field::tp},
      {"--tensor-parallel-size", Field::tp},
      {"--pp-size", Field::pp},
      {"--pipeline-parallel-size", Field::pp},
      {"--ep-size", Field::ep_size},
      {"--moe-expert-parallel-size", Field::ep_size},
      {"--cluster-size", Field::not_modelled_value},
      {"--moe-cluster-parallel-size", Field::not_modelled_value},
      {"--cp-size", Field::not_modelled_value},
      {"--context-parallel-size", Field::not_modelled_value},
      {"--max-batch-size", Field::max_num_seqs},
      {"--max-num-tokens", Field::max_num_batched_tokens},
      {"--max-seq-len", Field::max_model_len},
      {"--max-beam-width", Field::trtllm_beam_width},
      {"--kv-cache-free-gpu-memory-fraction", Field::fraction},
      {"--free-gpu-memory-fraction", Field::fraction},
      {"--extra-llm-api-options", Field::config_file},
      {"--config", Field::config_file},
      {"--gpus-per-node", Field::ignored_value},  // the node layout, not one GPU's memory
      {"--tokenizer", Field::ignored_value},
      {"--custom-tokenizer", Field::ignored_value},
      {"--revision", Field::ignored_value},
      {"--host", Field::ignored_value},
      {"--port", Field::ignored_value},
      {"--log-level", Field::ignored_value},
      {"--num-postprocess-workers", Field::ignored_value},
      {"--reasoning-parser", Field::ignored_value},
      {"--tool-parser", Field::ignored_value},
      {"--chat-template", Field::ignored_value},
      {"--media-io-kwargs", Field::ignored_value},
      {"--otlp-traces-endpoint", Field::ignored_value},
      {"--metadata-server-config-file", Field::ignored_value},
      {"--server-role", Field::ignored_value},
      {"--disagg-cluster-uri", Field::ignored_value},
      {"--custom-module-dirs", Field::ignored_value},
      {"--trust-remote-code", Field::ignored_bool},
      {"--enable-chunked-prefill", Field::ignored_bool},
      {"--fail-fast-on-attention-window-too-large", Field::ignored_bool},
  };
  return f;
}

}  // namespace

const CommandSyntax& trtllm_command_syntax() {
  static const CommandSyntax syntax = [] {
    CommandSyntax s;
    s.usage = "expected \"trtllm-serve MODEL [flags]\"";
    // trtllm-serve MODEL [options] (older builds), trtllm-serve serve MODEL [options] (newer).
    s.programs = {EntryPoint{"trtllm-serve", "serve", true, true}};
    s.flags = &trtllm_flags();
    s.batched_tokens_minus_one_off = true;
    s.config_files = ConfigFiles::yaml_after_flags;
    s.model_field = "MODEL";
    // No speculative_field: the LLM API YAML's speculative_config is reported as not modelled
    // (apply_llm_api_yaml), so no draft layers are sized for TensorRT-LLM.
    return s;
  }();
  return syntax;
}

}  // namespace kvplan::detail
