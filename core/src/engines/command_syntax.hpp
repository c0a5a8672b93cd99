// How an engine's launch command is read: its entry points, its flags and what each sets, how it
// writes numbers and config files. One CommandSyntax per engine (engines/*_flags.cpp), asked
// through EngineRules::command_syntax(); parse_engine_command (engine_args.cpp) reads every
// engine's line with it and never compares engines.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kvplan::detail {

// What a known flag sets (engine_args.cpp applies each).
enum class Field {
  model,
  tp,
  pp,
  dp,
  max_model_len,
  max_num_seqs,
  max_num_batched_tokens,
  fraction,
  block_size,
  kv_cache_dtype,
  dtype,
  quantization,
  kv_cache_memory_bytes,  // vLLM --kv-cache-memory-bytes: the KV memory per GPU, exact
  num_gpu_blocks_override,
  attn_group_size,        // vLLM --attn-group-size
  expert_parallel,        // vLLM --enable-expert-parallel
  dp_attention,           // SGLang --enable-dp-attention
  multi_value,            // a known flag taking one or more values (nargs="+"), no effect
  not_modelled_multi,     // one or more values (nargs="+" / "*"), changes memory, not modelled
  enforce_eager,          // vLLM --enforce-eager (CUDA graphs off)
  async_scheduling,       // vLLM --async-scheduling / --no-async-scheduling
  mamba_cache_mode,       // vLLM --mamba-cache-mode
  mamba_cache_dtype,      // vLLM --mamba-cache-dtype (conv and, by default, temporal state)
  mamba_ssm_cache_dtype,  // vLLM --mamba-ssm-cache-dtype (temporal state)
  dcp,                    // vLLM --decode-context-parallel-size / -dcp
  disable_hybrid_kv,      // vLLM --disable-hybrid-kv-cache-manager
  speculative_config,     // vLLM --speculative-config JSON (and --speculative-config.KEY VALUE)
  hf_overrides,           // vLLM --hf-overrides JSON: config.json keys
  rope_scaling,           // vLLM --rope-scaling JSON: the config's rope_scaling
  speculative_algorithm,  // SGLang --speculative-algorithm
  config_file,            // vLLM --config, trtllm-serve --extra_llm_api_options / --config
  swa_ratio,              // SGLang --swa-full-tokens-ratio
  disable_hybrid_swa,     // SGLang --disable-hybrid-swa-memory
  mamba_ratio,            // SGLang --mamba-full-memory-ratio
  max_mamba_cache_size,   // SGLang --max-mamba-cache-size
  speculative_num_draft_tokens,  // SGLang --speculative-num-draft-tokens
  speculative_num_steps,         // SGLang --speculative-num-steps
  speculative_eagle_topk,        // SGLang --speculative-eagle-topk
  recv_interval,                 // SGLang --scheduler-recv-interval
  disable_overlap,               // SGLang --disable-overlap-schedule
  disable_radix_cache,           // SGLang --disable-radix-cache
  mamba_strategy,                // SGLang --mamba-radix-cache-strategy (--mamba-scheduler-strategy)
  linear_replayssm_spec,         // SGLang --enable-linear-replayssm-spec
  linear_replayssm_cache_len,    // SGLang --linear-replayssm-cache-len
  disaggregation_mode,           // SGLang --disaggregation-mode
  decode_extra_slots,            // SGLang --disaggregation-decode-extra-slots
  decode_radix_cache,            // SGLang --disaggregation-decode-enable-radix-cache
  mamba_ssm_dtype,               // SGLang --mamba-ssm-dtype
  max_total_tokens,              // SGLang --max-total-tokens
  trtllm_backend,                // trtllm-serve --backend
  ep_size,  // trtllm-serve --ep_size, SGLang --ep-size: experts whole over ep of the tp GPUs
  trtllm_beam_width,      // trtllm-serve --max_beam_width: 1, or beams not modelled
  kv_offloading_size,     // vLLM --kv-offloading-size (GiB)
  kv_offloading_backend,  // vLLM --kv-offloading-backend native|lmcache
  kv_transfer_config,     // vLLM --kv-transfer-config JSON (LMCache, OffloadingConnector)
  hicache,                // SGLang --enable-hierarchical-cache
  hicache_ratio,          // SGLang --hicache-ratio
  hicache_size,           // SGLang --hicache-size (GB)
  ignored_value,
  ignored_bool,
  not_modelled_value,
  not_modelled_bool
};

struct FlagSpec {
  const char* name;
  Field field;
};

// One way the engine is started: PROGRAM [SUBCOMMAND] [MODEL] flags... The program matches as
// written or as a path ending in "/PROGRAM".
struct EntryPoint {
  std::string program;
  std::string subcommand;            // empty: none
  bool subcommand_optional = false;  // trtllm-serve MODEL (older builds) and trtllm-serve serve
  bool positional_model = false;     // MODEL follows (vllm serve MODEL)
};

// How the engine's own config file on the command line is read.
enum class ConfigFiles {
  spliced_first,     // vLLM --config: its keys become flags before the command line's own
  yaml_after_flags,  // trtllm-serve --extra_llm_api_options: the LLM API YAML wins over flags
};

struct CommandSyntax {
  std::string usage;  // what a command line looks like, for the refusal of one that is not
  std::vector<EntryPoint> programs;
  std::string python_module;  // python -m MODULE; empty: none
  // docker images whose entrypoint is the server itself (flags and a positional model follow);
  // where given, another image must run one of `programs`.
  std::vector<std::string> server_images;
  const std::vector<FlagSpec>* flags = nullptr;
  std::string dotted_json_flag;  // --speculative-config.KEY VALUE sets one key of that flag
  // vLLM's human_readable_int(_or_auto) for lengths and token counts: 32k = 32,000, 32K = 32,768;
  // with it, max_model_len -1 or auto fits the memory.
  bool human_readable_ints = false;
  bool batched_tokens_minus_one_off = false;  // --chunked-prefill-size -1: chunked prefill off
  std::vector<std::uint32_t> block_sizes;     // argparse choices; empty: any
  ConfigFiles config_files = ConfigFiles::spliced_first;
  std::string model_field;        // where the model is named (--model, MODEL, --model-path)
  std::string speculative_field;  // where speculative decoding is set; empty: not read
};

// The program word: PROGRAM as written or a path ending in "/PROGRAM".
bool is_program(const std::string& word, const std::string& program);
// Whether argv[i] is a python interpreter (python, python3, /usr/bin/python3.12, ...) given -m.
bool runs_python_module(const std::vector<std::string>& argv, std::size_t i);
// The engine's entry point at argv[i...]: one of its programs (with its subcommand where that is
// required) or `python -m MODULE`; how many words it takes and whether a model follows.
struct EntryMatch {
  std::size_t words = 0;
  bool positional_model = false;
};
std::optional<EntryMatch> match_entry_point(const CommandSyntax& s,
                                            const std::vector<std::string>& argv, std::size_t i);
// Whether argv[i...] starts the engine: match_entry_point finds its entry point there.
bool starts_engine(const CommandSyntax& s, const std::vector<std::string>& argv, std::size_t i);

const CommandSyntax& vllm_command_syntax();    // engines/vllm_flags.cpp
const CommandSyntax& sglang_command_syntax();  // engines/sglang_flags.cpp
const CommandSyntax& trtllm_command_syntax();  // engines/trtllm_flags.cpp

}  // namespace kvplan::detail
