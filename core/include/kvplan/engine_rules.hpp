// The rules an engine (and a version of it) applies to a deployment, behind one interface: its
// defaults, how it spells its settings, the memory budget it leaves for the KV cache, the
// settings it refuses at start-up, and whether kvplan's serving simulator models its scheduler.
// Generic code (planner, deployment checks, the request resolver, the simulator, the GUI) asks
// `engine_rules(engine, version)` and never compares engines itself. Each engine lives in its own
// file under core/src/engines/; a version whose rules changed is a subclass in a file of its own
// (vllm_0_9.cpp), listed once in core/src/engines/registry.cpp.
//
//   const EngineRules& r = kvplan::engine_rules(Engine::vllm);
//   r.default_block_size(in)          // 16 tokens
//   r.default_max_num_seqs()          // 256 (vLLM V1 on data-center GPUs)
//   r.settings_problems({.max_num_seqs = 256, .max_num_batched_tokens = 128, ...})
//     // {"--max-num-batched-tokens", "128 is less than max_num_seqs 256: vLLM refuses ...",
//     //  "set --max-num-batched-tokens to at least 256, or --max-num-seqs to at most 128"}
//
// Units: tokens, bytes and requests are exact integers; fractions are parts per million.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kvplan/error.hpp"
#include "kvplan/planner.hpp"
#include "kvplan/validate.hpp"

namespace kvplan {

namespace detail {
struct PlanEval;
struct PlanStage;
struct CommandSyntax;
}  // namespace detail

// The scheduler settings an engine checks when it starts, before any memory is allocated.
// `names` spells the fields the way the deployment was written (flags, JSON pointers).
struct EngineSettings {
  std::uint64_t max_model_len = 0;            // tokens per request
  std::optional<std::uint64_t> max_num_seqs;  // requests per step; empty = the engine's default
  std::uint64_t max_num_batched_tokens = kDefaultMaxNumBatchedTokens;  // tokens per step
  std::uint64_t model_positions = 0;  // the model's max_context; 0 = unknown
  std::string positions_basis;        // how the engine derived it (ModelSpec::positions_basis)
  std::string model_id;
};
struct SettingsFields {
  std::string max_model_len = "max_model_len", max_num_seqs = "max_num_seqs",
              max_num_batched_tokens = "max_num_batched_tokens", tp = "tensor_parallel_size";
};

// A setting the engine refuses, in its words: the field as the deployment spells it, why, and the
// smallest change that makes it start.
struct Refusal {
  std::string field, message, fix;
};
std::vector<Problem> as_problems(const std::vector<Refusal>& refusals);

// What the engine refuses about how it cuts an fp8 block-quantized checkpoint over its GPUs: a
// routed expert over the MoE layers' GPUs (EngineRules::moe_tensor_parallel), the shared experts
// and dense MLP layers over the TP group, into a piece that is not whole weight_block_size blocks
// (WeightSpec::block_n), in the engine's words, named on `tp_field`. None for a model without
// blocks, or an engine kvplan does not check (moe_tensor_parallel 0).
std::optional<Refusal> moe_cut_refusal(const ModelSpec& model, const PlanInput& in,
                                       const std::string& tp_field);

// What one GPU's memory leaves for the KV cache under an engine's budget rule, given the
// weights and the non-KV reserve of a rank (bytes).
struct BudgetSplit {
  std::uint64_t requested_bytes = 0;  // what the fraction grants
  std::uint64_t available_bytes = 0;  // left for the KV cache
  std::uint64_t shortfall_bytes = 0;  // weights + reserve beyond the grant (0 when they fit)
};

// The inputs of the terms for one rank: the model, the deployment, and whether the rank runs
// the sampler (the last pipeline stage).
struct MemoryModelInput {
  const ModelSpec& model;
  const PlanInput& in;
  bool last_stage = true;
};

class EngineRules {
 public:
  virtual ~EngineRules() = default;
  virtual Engine engine() const = 0;
  virtual VllmRules version() const { return VllmRules::current; }
  // "vllm", "vllm@0.9", "sglang", "trtllm": the name --engine takes.
  virtual std::string name() const = 0;
  // A human label for reports and the GUI: "vLLM", "SGLang", "TensorRT-LLM".
  virtual std::string label() const = 0;

  // Defaults for what a deployment may leave out.
  virtual std::uint32_t default_block_size(const PlanInput& in) const = 0;  // tokens per page
  // The block size the engine runs a model with, given the one the deployment asks (0: none):
  // vLLM's sparse MLA backend runs 64 whatever is asked, a kpool indexer the asked size or 64;
  // nullopt where the asked or default size stands.
  virtual std::optional<std::uint32_t> forced_block_size(const ModelSpec& /*model*/,
                                                         std::uint32_t /*asked*/) const {
    return std::nullopt;
  }
  virtual std::uint32_t default_memory_fraction_ppm() const = 0;
  // The fraction when the deployment leaves it out, for its GPU and layout (SGLang derives
  // mem_fraction_static from them); the others keep default_memory_fraction_ppm().
  virtual std::uint32_t default_memory_fraction_ppm(const PlanInput&,
                                                    const ModelSpec* /*model*/ = nullptr) const {
    return default_memory_fraction_ppm();
  }
  virtual std::uint64_t default_reserve_bytes() const = 0;  // per GPU, outside the KV budget
  virtual std::optional<std::uint64_t> default_max_num_seqs() const = 0;  // empty: from the pool

  // vLLM's defaults depend on the GPU (arg_utils.py _set_default_args: 1024 sequences on GPUs
  // of >= 70 GiB other than A100s); the others ignore it.
  virtual std::optional<std::uint64_t> default_max_num_seqs(const PlanInput&) const {
    return default_max_num_seqs();
  }
  // Tokens per step when a deployment leaves max_num_batched_tokens out (vLLM: 8192 on GPUs of
  // >= 70 GiB other than A100s, else 2048; the others kvplan's 8192). Read before
  // default_max_num_seqs(in), which caps by it.
  virtual std::uint64_t default_max_num_batched_tokens(const PlanInput&) const {
    return kDefaultMaxNumBatchedTokens;
  }
  // The memory outside weights and KV cache on one rank, term by term. The base keeps one fitted
  // reserve (default_reserve_bytes) as the activation term.
  virtual MemoryTerms memory_terms(const MemoryModelInput& x) const;
  // Bytes one rank holds beyond the checkpoint's for `layers` of the model's layers, where the
  // engine lays weights out its own way after loading (vLLM's MXFP4 experts: padded, repacked,
  // scales kept twice); 0 where it keeps the checkpoint's bytes.
  virtual std::uint64_t held_weight_extra_bytes(const ModelSpec&, const PlanInput&,
                                                std::uint32_t /*layers*/) const {
    return 0;
  }

  // A table the engine allocates on each rank once its KV pool of `pool_tokens` tokens is sized,
  // outside the pool, in what the fraction leaves out (SGLang's req_to_token); nullopt where it
  // has none. rows: its requests where the pools fixed them (SglangPools::max_num_reqs, the
  // Mamba cap included); 0: derived from the tokens.
  virtual std::optional<MemoryTerm> request_table(const PlanInput& /*in*/,
                                                  std::uint64_t /*pool_tokens*/,
                                                  std::uint64_t /*rows*/ = 0) const {
    return std::nullopt;
  }

  // The KV pool's bytes per rank when the deployment fixes them instead of a fraction
  // (TensorRT-LLM kv_cache_config.max_gpu_total_bytes); nullopt: the budget rule below.
  virtual std::optional<std::uint64_t> fixed_pool_bytes(const PlanInput& /*in*/) const {
    return std::nullopt;
  }
  // The budget rule: total memory of a GPU, the fraction in ppm, the weights and reserve of a rank.
  virtual BudgetSplit budget(std::uint64_t total_bytes, std::uint32_t fraction_ppm,
                             std::uint64_t weight_bytes, std::uint64_t reserve_bytes) const;

  // How the engine spells things.
  virtual ShapeFields flag_names() const = 0;              // --tensor-parallel-size, --tp, ...
  virtual SettingsFields settings_flag_names() const = 0;  // --max-num-seqs, ...
  // How its launch command is read: entry points, flags, number syntax (core/src/engines/
  // command_syntax.hpp; the reader is parse_engine_command).
  virtual const detail::CommandSyntax& command_syntax() const = 0;
  virtual const char* memory_fraction_key() const = 0;  // the deployment file's key
  // The deployment file's "engine" keys only this engine reads (its options in PlanInput::options,
  // and max_total_tokens under its own name); another engine's is refused by name.
  virtual std::vector<std::string> option_keys() const = 0;
  // The key among option_keys() that caps the KV pool in tokens (PlanInput::max_total_tokens);
  // empty where the engine has none.
  virtual std::string max_total_tokens_key() const { return {}; }
  // The keys among option_keys() that set a recurrent layer's state dtypes
  // (PlanInput::conv_state_dtype, ssm_state_dtype), spelled as torch spells a dtype
  // (parse_torch_float); empty where the engine has none. takes_auto: "auto" is a value, the
  // model's dtype.
  struct StateDtypeKeys {
    std::string conv, ssm;
    bool takes_auto = false;
  };
  virtual StateDtypeKeys state_dtype_keys() const { return {}; }
  // The command-line flag that sets the memory fraction (--gpu-memory-utilization, ...), and it
  // with a value, two decimals rounded down, as a fix states it.
  virtual std::string memory_fraction_flag_name() const = 0;
  std::string memory_fraction_flag(std::uint32_t ppm) const;
  virtual std::string kv_fp8_flag() const = 0;     // in a fix
  virtual std::string kv_dtype_field() const = 0;  // where its KV dtype is set
  // The KV format "auto" means for this model on this GPU preset (an id, "" = unknown) when the
  // engine does not simply follow the served dtype; nullopt: it follows it.
  virtual std::optional<KvFormat> auto_kv_format(const ModelSpec& /*model*/,
                                                 const std::string& /*gpu_id*/) const {
    return std::nullopt;
  }
  // KV cache dtypes the engine takes that kvplan does not model (refused by name, not as unknown).
  virtual const std::vector<std::string>& unmodelled_kv_dtypes() const {
    static const std::vector<std::string> none;
    return none;
  }
  // Its budget rule in one line, for reports ("vLLM V1: available = total x ...").
  virtual std::string budget_formula() const = 0;
  // Whether the fraction applies to what is free after weights and the reserve (TensorRT-LLM)
  // rather than to the whole device.
  virtual bool fraction_after_weights() const { return false; }

  // How kvplan reads the engine's startup log back (explain_log, engine_log.cpp).
  struct LogFacts {
    // How the KV pool is recomputed from the log: from the memory budget by the engine's rules
    // (vLLM), as tokens = the logged pool bytes / bytes a token (SGLang), or as blocks of
    // tokens_per_block of those bytes (TensorRT-LLM).
    enum class Pool { memory_budget, tokens, blocks } pool = Pool::memory_budget;
    // The logged profile terms (activation peak, non-torch memory, CUDA graphs) are the terms of
    // kvplan's memory model for this engine, so a log calibrates them.
    bool calibrates_terms = false;
    // Why the logged CUDA graph memory is shown only; empty: it is one of kvplan's terms.
    std::string graphs_logged_only;
    bool compares_reserve = true;  // the log's non-KV memory beside kvplan's reserve
  };
  virtual LogFacts log_facts() const = 0;
  // The rule set a log of this engine was written under, from its version and what it prints
  // (`v0_profile`: a V0 or pre-0.10 V1 profile line); none where the engine has one rule set.
  virtual std::optional<VllmRules> rules_of_log(const std::string& version, bool v0_profile) const {
    (void)version, (void)v0_profile;
    return std::nullopt;
  }
  // The memory fraction a log's engine ran with where neither the log nor the user states one:
  // its release's default (vLLM: 0.9 before 0.20, 0.92 from it); the rule set's own where the
  // version says nothing.
  virtual std::uint32_t log_memory_fraction_ppm(const std::string& version) const {
    (void)version;
    return default_memory_fraction_ppm();
  }
  // Whether the fraction applies to the memory free before the weights load, the device less the
  // context term (SGLang's profile_max_num_token), rather than to the device's total.
  virtual bool fraction_of_free_memory() const { return false; }
  // Whether each recurrent layer's state takes a full KV page (vLLM's unified pages), and how
  // many pages one request's state takes then (context and block size in tokens).
  virtual bool pages_recurrent_state() const { return false; }
  virtual std::uint64_t recurrent_state_pages(const PlanInput&, std::uint64_t /*context*/,
                                              std::uint32_t /*block_size*/) const {
    return 1;
  }
  // Whether a recurrent state takes a page per block of the request as it grows (vLLM
  // mamba_cache_mode all) rather than a fixed count.
  virtual bool recurrent_state_grows(const PlanInput&) const { return false; }
  // The bytes one token of a sparse-attention (DSA) indexer key adds to an MLA layer's page, as
  // the engine sizes its pool: vLLM and SGLang store index_head_dim fp8 values and one fp32 scale
  // per 128 as uint8 (formula.hpp indexer_bytes_per_token), whatever the KV format (planner.cpp
  // attention_page has their sources); TensorRT-LLM counts the same elements at the KV dtype's
  // size.
  virtual std::uint64_t indexer_token_bytes(std::uint32_t index_head_dim,
                                            const KvFormat& /*format*/) const {
    return indexer_bytes_per_token(index_head_dim);
  }
  // One token of an MLA layer's latent when the engine stores it in a layout of its own, not the
  // KV format's elements (vLLM's fp8_ds_mla for sparse-attention models); nullopt otherwise.
  virtual std::optional<std::uint64_t> latent_token_bytes(const ModelSpec& /*model*/,
                                                          const PlanInput& /*in*/) const {
    return std::nullopt;
  }
  // The ranks that share one request's tokens in the KV cache (vLLM's decode context
  // parallelism), and the checks the engine makes of that layout at start (throws Error).
  virtual std::uint64_t context_shards(const PlanInput&) const { return 1; }
  // The ranks a layer's KV heads are sharded over (the tensor parallel size, or SGLang's tp //
  // dcp): each rank keeps max(1, heads // it) of them.
  virtual std::uint32_t kv_head_tp(const PlanInput& in) const { return in.tp; }
  virtual void check_context_parallel(const detail::PlanEval&) const {}
  // The blocks it allocates for a model without a KV cache (ModelSpec::attention_free); empty:
  // it does not serve one, and planning one is refused.
  virtual std::optional<std::uint64_t> attention_free_blocks() const { return std::nullopt; }
  // Why kvplan does not plan such a model under these rules (naming `engine`); empty when
  // attention_free_blocks() says how. Every path that meets one (the planner, launch lines) says
  // these words.
  std::optional<Refusal> attention_free_refusal() const;
  // The block count the deployment fixes instead of the memory's (vLLM num_gpu_blocks_override).
  virtual std::optional<std::uint64_t> blocks_override(const PlanInput&) const {
    return std::nullopt;
  }

  // The settings it refuses to start with, in its own words, each naming the field as `names`
  // spells it. Every path (plan, check, simulate, the GUI) asks this, so one deployment gets one
  // verdict. The generic rule (max_model_len within the model's positions) is included.
  virtual std::vector<Refusal> settings_problems(const EngineSettings& s,
                                                 const SettingsFields& names) const;
  // What it refuses about how its pools would hold this model (SGLang's Mamba cache strategies),
  // in its own words; part of the same verdict (engine_refusals).
  virtual std::vector<Refusal> pool_problems(const ModelSpec& /*model*/,
                                             const PlanInput& /*in*/) const {
    return {};
  }

  // Parallel layouts and state it has: DP attention (PlanInput::attention_dp; SGLang's
  // --enable-dp-attention splits the --tp GPUs into --dp attention groups, TensorRT-LLM's
  // enable_attention_dp runs one group a GPU); vLLM's speculative tokens hold extra state pages
  // per recurrent group.
  virtual bool dp_attention_splits_tp() const { return false; }
  // Whether its max_num_seqs flag is the DP-attention server's, each group taking 1/attention_dp
  // of it (SGLang's --max-running-requests), rather than each group's (TensorRT-LLM's
  // max_batch_size, per rank).
  virtual bool dp_attention_divides_max_num_seqs() const { return false; }
  // Whether its DP attention groups are one GPU each (TensorRT-LLM: enable_attention_dp makes
  // each of tp_size GPUs a group) rather than any TP dividing the server (SGLang's --tp / --dp).
  virtual bool dp_attention_groups_of_one_gpu() const { return false; }
  // Over how many of its replicas a deployment's expert parallelism spreads the routed experts
  // (1: within one replica's TP group, every replica holding all the experts): vLLM's EP size is
  // TP × DP, so the DP ranks of one server (VllmOptions::data_parallel_size; every one of the
  // gpus / (tp · pp) replicas where a plan says none); under DP attention the groups of one server
  // (attention_dp, whatever the servers); TensorRT-LLM's --ep_size alone splits the tp_size GPUs.
  virtual std::uint64_t expert_parallel_replicas(const PlanInput& in) const {
    return std::max<std::uint64_t>(in.attention_dp, 1);
  }
  // Whether its data-parallel replicas share the MoE layers without expert parallelism too (vLLM:
  // the experts then shard as one TP group of tp · DP ranks, FusedMoEParallelConfig.make), so the
  // experts spread over expert_parallel_replicas either way.
  virtual bool data_parallel_shares_moe_layers() const { return false; }
  // Over how many GPUs each routed expert's intermediate columns are cut (1: whole experts, as
  // under expert parallelism); 0 where kvplan does not check the engine's cut
  // (moe_cut_refusal).
  virtual std::uint64_t moe_tensor_parallel(const PlanInput&) const { return 0; }
  virtual bool speculative_tokens_hold_state_pages() const { return false; }
  // vLLM >= 0.20 with full CUDA graphs: every decode sequence of a Mamba hybrid needs a state
  // block of its own, so max_num_seqs above the block count refuses to start.
  virtual bool graphs_need_a_state_block_per_sequence() const { return false; }

  // How it lays out the KV pools; the planner (core/src/planner.cpp) asks these.
  // Whether sliding-window and chunked layers keep KV-cache groups of their own (vLLM's
  // SlidingWindowSpec, ChunkedLocalAttentionSpec) rather than a full-attention cache.
  virtual bool local_layers_own_groups(const ModelSpec&, const PlanInput&) const { return false; }
  // The layers of one KV-cache group, given the fewest and the most layers of any spec type.
  virtual std::uint32_t kv_group_size(const PlanInput& /*in*/, std::uint32_t fewest,
                                      std::uint32_t /*most*/) const {
    return fewest;
  }
  // Throws Error(source, field) for a model whose layers its pools cannot hold together, or a
  // layout the engine refuses at start (SGLang: a receive interval beside DP attention).
  virtual void check_pool_layout(const ModelSpec&, const PlanInput&, const std::string&) const {}
  // Why kvplan does not plan layers with their own KV heads or head dims, or decode context
  // parallelism, under these rules; empty when it does.
  virtual std::optional<Refusal> own_layer_geometry_refusal() const;
  virtual std::optional<Refusal> dcp_refusal() const;
  // Why kvplan does not plan a kpool indexer (ModelSpec::index_kpool, GLM-5.3-Flash) under these
  // rules; empty when it does, with vLLM's slot-sharing layout (engines/vllm_pools.cpp
  // Vllm::attach_stage_pools).
  virtual std::optional<Refusal> kpool_indexer_refusal() const;
  // Why kvplan does not model disaggregated prefill / decode serving with this engine (its
  // layouts follow vLLM's P/D connector semantics); empty when it does.
  virtual std::optional<Refusal> disaggregation_refusal() const;
  // Whether each pipeline stage is sized by its own ranks' measured memory, rather than every
  // stage by the least of all ranks.
  virtual bool sizes_stages_by_own_memory() const { return false; }
  // The recurrent (ssm) state's dtype when the deployment leaves it out; empty: the model's as
  // vLLM reads it (RecurrentSpec::ssm_dtype).
  virtual std::optional<KvDtype> default_ssm_state_dtype(const RecurrentSpec&) const {
    return std::nullopt;
  }
  // The engine's own pools of one pipeline stage, once the page is known (SGLang's full, SWA and
  // Mamba pools; TensorRT-LLM's pool per attention window). Generic uniform pages otherwise.
  virtual void attach_stage_pools(const detail::PlanEval&, detail::PlanStage&) const {}
  // Whether the pool keeps one block out of use (vLLM's BlockPool null block).
  virtual bool keeps_null_block() const { return false; }
  // Whether its start-up check compares one request's bytes with the memory as well as its
  // blocks with the pool (vLLM 0.9), rather than blocks only.
  virtual bool startup_check_by_bytes() const { return false; }
  // Whether the "GPU KV cache size" it logs is int(max_concurrency x max_model_len) (vLLM's
  // update_kv_cache_capacity) rather than blocks per group x block size.
  virtual bool kv_tokens_from_concurrency() const { return false; }
  // Whether a list of attention windows gives each window a pool of its own (TensorRT-LLM's
  // kv_cache_config.max_attention_window).
  virtual bool pools_per_attention_window() const { return false; }

  // Whether kvplan's serving simulator models this engine's scheduler, and its defaults there.
  virtual bool simulated() const = 0;
  // Whether the deployment's scheduler forms the next step while one runs (vLLM's async
  // scheduling, SGLang's overlap scheduler) when nothing says otherwise.
  virtual bool async_scheduling_default(const PlanInput&) const { return false; }
  // Whether the simulator reuses cached prefixes for it (TensorRT-LLM's KV cache reuse is not
  // modelled).
  virtual bool prefix_cache_simulated() const { return true; }

  // The engine's launch line for a plan (`vllm serve ...`, `python -m sglang.launch_server
  // ...`), stating its layout, limits, KV dtype, fraction and this engine's own options; a plan
  // of another engine gets this engine's defaults for the rest. std::nullopt, with the reason in
  // *why, when the engine cannot serve the plan (a format or policy it does not implement) or
  // kvplan writes no line for it (TensorRT-LLM).
  virtual std::optional<std::string> launch_line(const ModelSpec& model, const PlanInput& in,
                                                 std::string* why) const;
};

// The rules of `engine` at `version` (VllmRules applies to vLLM only). Never fails.
const EngineRules& engine_rules(Engine engine, VllmRules version = VllmRules::current);
inline const EngineRules& engine_rules(const PlanInput& in) {
  return engine_rules(in.engine, in.vllm().rules);
}
// Every rule set kvplan has, in the order --engine lists them.
std::vector<const EngineRules*> all_engine_rules();

}  // namespace kvplan
