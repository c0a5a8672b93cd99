// vLLM's rules (current source), and the base of its older versions' rule sets.
#pragma once

#include "command_syntax.hpp"
#include "kvplan/engine_rules.hpp"

namespace kvplan::engines {

// The largest CUDA-graph pool a log shows captured outside the budget: 2.44 GiB, "CUDA graph pool
// memory: 2.44 GiB (actual), 2.35 GiB (estimated)" (vLLM 0.19.1, Qwen3-8B, 51 piecewise and 35
// full sizes; tests/data/logs/startup/vllm-v1-0.19.1-qwen3-8b-tp1-a100-40g.log). Model Runner
// V2's logs show 1.86 GiB (Qwen3-32B TP 1, llm-d/llm-d-benchmark PR #1791) and 2.04 GiB
// (Qwen3.6-27B-FP8 TP 4, vllm-project/vllm#48601). Fitted (a bound): what vllm@0.19 and Model
// Runner V2 check graphs captured after the KV cache at.
inline constexpr double kCapturedGraphsGib = 2.44;

class Vllm : public EngineRules {
 public:
  Engine engine() const override { return Engine::vllm; }
  std::string name() const override { return "vllm"; }
  std::string label() const override { return "vLLM"; }
  std::uint32_t default_block_size(const PlanInput& in) const override;
  // CacheConfig.gpu_memory_utilization = Field(default=0.92) from vllm-project/vllm#38284 (merge
  // 96a85c57501fe12592efc1c601a8fa2fd8214b81, 2026-04-21, "Enable CUDAGraph memory profiling by
  // default", which raised it from 0.9 so the deducted graphs do not shrink the KV cache): vLLM
  // 0.20.0's log lists 'gpu_memory_utilization': 0.9 among its non-default args
  // (tests/data/logs/startup/vllm-v1-0.20.0-qwen3.6-35b-a3b-nvfp4-tp1-rtx5090-wsl.log), a 0.19.1
  // log with every default says "from 0.9000". The rule sets from before that PR (vllm@0.19 and
  // older, whose graphs sit outside the budget) keep 0.9.
  std::uint32_t default_memory_fraction_ppm() const override {
    return graphs_estimate_deducted() ? 920000 : 900000;
  }
  std::uint64_t default_reserve_bytes() const override { return kDefaultReserveBytes; }
  std::optional<std::uint64_t> default_max_num_seqs() const override;
  std::optional<std::uint64_t> default_max_num_seqs(const PlanInput& in) const override;
  std::uint64_t default_max_num_batched_tokens(const PlanInput& in) const override;
  // Term by term (vllm_memory.cpp): activation, non-torch, CUDA graphs, context.
  MemoryTerms memory_terms(const MemoryModelInput& x) const override;
  // gpt-oss's MXFP4 experts as each backend holds them (vllm_weights.cpp).
  std::uint64_t held_weight_extra_bytes(const ModelSpec& model, const PlanInput& in,
                                        std::uint32_t layers) const override;
  // Whether the CUDA-graph estimate comes out of the budget (vLLM >= 0.20) or graphs are
  // captured after the KV cache, outside it (0.9 - 0.19).
  virtual bool graphs_estimate_deducted() const { return true; }
  // How the profile run's dummy sampler applies top-k = vocab − 1 and top-p 0.9: the Triton
  // kernel of vllm-project/vllm#33538 from 8 rows (0.17 on, and the current source:
  // vllm/v1/sample/ops/topk_topp_sampler.py@01fa3fe74b058bb604f236341ab2361c7cf3d25b "if
  // HAS_TRITON and logits.shape[0] >= 8"), or the full sort of older releases (vllm@0.9).
  // Model Runner V2's profile samples a dummy batch without sampling parameters (unfiltered: the
  // bf16 logits only, vllm/v1/worker/gpu/model_runner.py@009cf8a3652ae728cfe82ce13c86787f11397fcb
  // _dummy_sampler_run, "the sampler may skip top_k, top_p, and logprobs").
  enum class SamplerPath { sort, triton, unfiltered };
  // Whether the distributed environment (NCCL communicators, custom all-reduce buffers) is set up
  // before the memory baseline, so that its memory is in neither the budget nor non-torch but
  // taken from what the fraction leaves out (vllm-project/vllm#25359, merged 2025-09-22, from
  // 0.11: gpu_worker.py@35d5cda123ec28581759b6d34cde8052314fb1e6 "Initialize the distributed
  // environment BEFORE taking memory snapshot"), or after it, inside non-torch (0.10.x and before).
  virtual bool distributed_before_baseline() const { return true; }
  virtual SamplerPath sampler_path() const { return SamplerPath::triton; }
  // Whether the workers run Model Runner V2 (vllm/v1/worker/gpu/): VllmOptions::model_runner
  // (VLLM_USE_V2_MODEL_RUNNER), else the release's default for the model
  // (default_model_runner_v2). Its memory: docs/engine-memory.md "Model Runner V2".
  bool model_runner_v2(const ModelSpec& model, const PlanInput& in) const;
  // The release's default: V1 for the current source's rules and the releases before 0.25 (the
  // runner their terms were read from); vllm@0.25: dense models.
  virtual bool default_model_runner_v2(const ModelSpec&) const { return false; }
  // Whether Model Runner V2's CUDA-graph memory is estimated and deducted from the budget (the
  // current source: gpu/cudagraph_utils.py _profile_cudagraph_memory) or not (0.25: its
  // profile_cudagraph_memory returns 0, vllm-project/vllm#49224).
  virtual bool v2_graphs_estimated() const { return graphs_estimate_deducted(); }
  // The CUDA-graph memory this version's logs show (fitted, GiB) and what it was read from.
  virtual double graphs_gib() const;
  virtual std::string graphs_how() const;
  ShapeFields flag_names() const override;
  SettingsFields settings_flag_names() const override;
  const detail::CommandSyntax& command_syntax() const override {
    return detail::vllm_command_syntax();
  }
  const char* memory_fraction_key() const override { return "gpu_memory_utilization"; }
  // vllm_launch.cpp
  std::optional<std::string> launch_line(const ModelSpec& model, const PlanInput& in,
                                         std::string* why) const override;
  // --mamba-cache-dtype and --mamba-ssm-cache-dtype (vllm/config/cache.py@002f10e0 MambaDType:
  // auto, float32, float16, bfloat16); state_dtypes says how they combine.
  StateDtypeKeys state_dtype_keys() const override {
    return {.conv = "mamba_cache_dtype", .ssm = "mamba_ssm_cache_dtype", .takes_auto = true};
  }
  std::vector<std::string> option_keys() const override {
    return {"mamba_cache_mode",  "decode_context_parallel_size", "disable_hybrid_kv_cache_manager",
            "model_runner",      "num_speculative_tokens",       "extract_hidden_states",
            "acceptance_rate",   "num_gpu_blocks_override",      "data_parallel_size",
            "mamba_cache_dtype", "mamba_ssm_cache_dtype",        "async_scheduling",
            "attn_group_size"};
  }
  std::string memory_fraction_flag_name() const override { return "--gpu-memory-utilization"; }
  LogFacts log_facts() const override {
    return {.pool = LogFacts::Pool::memory_budget,
            .calibrates_terms = true,
            .graphs_logged_only = "",
            .compares_reserve = true};
  }
  // Older vLLM (V0 logs, V1 before 0.10) by the 0.9 rules; 0.10 by theirs (NCCL inside
  // non-torch); 0.17 - 0.19 by theirs (graphs outside the budget); none: the current rules.
  std::optional<VllmRules> rules_of_log(const std::string& version, bool v0_profile) const override;
  std::uint32_t log_memory_fraction_ppm(const std::string& version) const override;
  std::string kv_fp8_flag() const override { return "--kv-cache-dtype fp8"; }
  std::string kv_dtype_field() const override { return "--kv-cache-dtype"; }
  std::string budget_formula() const override {
    return "vLLM V1: available = total x gpu_memory_utilization - weights - activation peak - "
           "non-torch - CUDA graphs; num_gpu_blocks = available // page // layers";
  }
  bool pages_recurrent_state() const override { return true; }
  // A sparse-attention (DSA, index_topk) model runs FlashMLASparse, and the platform forces its
  // block: "if use_sparse and cache_config.block_size != 64: cache_config.block_size = 64"
  // ("Forcing kv cache block size to 64 for FlashMLASparse backend",
  // vllm/platforms/cuda.py@1c0d9ecf5bad600df3e001bf642dd48c5ed25cc6 check_and_update_config).
  // A sparse-attention (DSA) model runs blocks of 64; GLM-5.3-Flash's kpool indexer takes the
  // asked size, 64 by default ("A smaller block (e.g. the default 64) silently collapses
  // storage_block_size", Glm5NextIndexerCache, vllm/models/glm5next/common/attention.py), which
  // it then checks (check_pool_layout).
  std::optional<std::uint32_t> forced_block_size(const ModelSpec& model,
                                                 std::uint32_t asked) const override {
    if (model.index_kpool > 1) return asked ? asked : 64;
    if (model.index_head_dim > 0) return 64;
    return std::nullopt;
  }
  // GLM-5.3-Flash's layout came with vllm-project/vllm#53906, after the releases of the older
  // rule sets (the v0.29.0 tag has no vllm/models/glm5next): the current rules only.
  std::optional<Refusal> kpool_indexer_refusal() const override {
    if (version() == VllmRules::current) return std::nullopt;
    return Refusal{"model",
                   name() +
                       " has no GLM-5.3-Flash (kpool indexer) support: it came with "
                       "vllm-project/vllm#53906, after v0.29.0 (use --engine vllm)",
                   ""};
  }
  // A sparse-attention (DSA) model's fp8 latent is fp8_ds_mla (656 bytes a token for V3.2)
  // (DeepseekV32ForCausalLM.verify_and_update_config turns any fp8 cache_dtype into fp8_ds_mla,
  // vllm/model_executor/models/config.py@1936cf3841edb9781b06c50fc4daf4bac9d3b23e;
  // MLAAttentionSpec.real_page_size_bytes = block_size · 656 for it,
  // vllm/v1/kv_cache_interface.py@bc8282e61df21719b12b391c3a976b1c900dfbb4: 512 fp8 values, four
  // fp32 scales and the 64 RoPE values in bf16, flashmla_sparse.py).
  std::optional<std::uint64_t> latent_token_bytes(const ModelSpec& model,
                                                  const PlanInput& in) const override {
    const bool fp8 = in.format.dtype == KvDtype::fp8_e4m3 || in.format.dtype == KvDtype::fp8_e5m2;
    if (model.index_head_dim > 0 && fp8)
      return dsa_fp8_latent_bytes_per_token(model.kv_lora_rank, model.qk_rope_head_dim);
    return std::nullopt;
  }
  bool recurrent_state_grows(const PlanInput& in) const override {
    return in.vllm().mamba_cache_mode == VllmOptions::MambaCacheMode::all;
  }
  // The speculative tokens a deployment runs: num_speculative_tokens, else one per draft layer
  // (MTP's n_predict is its layers, num_nextn_predict_layers; any speculative run has at least
  // one). vLLM takes MTP's draft from the target only when the tokens are given
  // (SpeculativeConfig.__post_init__, vllm/config/speculative.py@002e77c1: "if self.model is
  // None and self.num_speculative_tokens is not None"), so a launch line states them.
  static std::uint32_t speculative_tokens(const PlanInput& in) {
    return in.vllm().num_speculative_tokens ? in.vllm().num_speculative_tokens : in.draft_layers;
  }
  // vllm_pools.cpp
  std::uint64_t recurrent_state_pages(const PlanInput& in, std::uint64_t context,
                                      std::uint32_t block_size) const override;
  std::uint64_t context_shards(const PlanInput& in) const override { return in.vllm().dcp; }
  void check_context_parallel(const detail::PlanEval& ev) const override;
  std::optional<std::uint64_t> blocks_override(const PlanInput& in) const override {
    return in.vllm().num_gpu_blocks_override;
  }
  // No KV cache group: get_kv_cache_config_from_groups returns num_blocks=1, no tensors ("BlockPool
  // always needs a null_block"), before num_gpu_blocks_override is read; asserted by
  // test_get_kv_cache_configs_attention_free (tests/v1/core/test_kv_cache_utils.py@002f10e0).
  std::optional<std::uint64_t> attention_free_blocks() const override { return 1; }
  // Pool layout (vllm_pools.cpp).
  bool local_layers_own_groups(const ModelSpec& model, const PlanInput& in) const override;
  std::uint32_t kv_group_size(const PlanInput& in, std::uint32_t fewest,
                              std::uint32_t most) const override;
  void attach_stage_pools(const detail::PlanEval& ev, detail::PlanStage& st) const override;
  void check_pool_layout(const ModelSpec& model, const PlanInput& in,
                         const std::string& source) const override;
  std::optional<Refusal> own_layer_geometry_refusal() const override { return std::nullopt; }
  std::optional<Refusal> dcp_refusal() const override { return std::nullopt; }
  std::optional<Refusal> disaggregation_refusal() const override { return std::nullopt; }
  // get_kv_cache_configs: each worker by its own memory and layers, then the fewest blocks.
  bool sizes_stages_by_own_memory() const override { return true; }
  bool keeps_null_block() const override { return true; }  // block_pool.py: null_block
  bool kv_tokens_from_concurrency() const override { return true; }
  std::vector<Refusal> settings_problems(const EngineSettings& s,
                                         const SettingsFields& names) const override;
  // MambaSpec.num_speculative_blocks (kv_cache_interface.py@001cabc1).
  bool speculative_tokens_hold_state_pages() const override { return true; }
  // The MoE layers over the TP × DP ranks of one server, whole experts with
  // --enable-expert-parallel (PlanInput::expert_parallel), else sharded
  // (VllmOptions::data_parallel_size).
  std::uint64_t expert_parallel_replicas(const PlanInput& in) const override {
    if (const std::uint32_t dp = in.vllm().data_parallel_size) return dp;
    const std::uint64_t unit = std::uint64_t{in.tp} * in.pp;
    return in.gpus && unit ? std::max<std::uint64_t>(in.gpus / unit, 1) : 1;
  }
  bool data_parallel_shares_moe_layers() const override { return true; }
  // FusedMoEParallelConfig.make: tp · DP without EP, 1 with it.
  std::uint64_t moe_tensor_parallel(const PlanInput& in) const override {
    return in.expert_parallel ? 1 : in.tp * expert_parallel_replicas(in);
  }
  // PR #38270 (CompilationConfig.resolve_cudagraph_mode_and_sizes), from vLLM 0.20.
  bool graphs_need_a_state_block_per_sequence() const override { return true; }
  bool simulated() const override { return true; }
  // Async scheduling is on by default from vLLM 0.14 (docs/simulate-step-time.md): unless asked
  // otherwise (--no-async-scheduling), pooling runners, draft methods other than EAGLE / MTP /
  // n-gram / draft models, and executors without it (vllm/config/vllm.py@000fc94b; kvplan's
  // drafts are MTP, its executor the default).
  bool async_scheduling_default(const PlanInput& in) const override {
    return in.vllm().async_scheduling.value_or(true);
  }
};

}  // namespace kvplan::engines
