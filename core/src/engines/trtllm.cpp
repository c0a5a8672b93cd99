// TensorRT-LLM's rules (trtllm-serve and the LLM API; docs/deploy.md names the commits read).
#include "../planner_eval.hpp"
#include "command_syntax.hpp"
#include "kvplan/checked.hpp"
#include "kvplan/engine_rules.hpp"

namespace kvplan::engines {
namespace {

class Trtllm final : public EngineRules {
 public:
  Engine engine() const override { return Engine::trtllm; }
  std::string name() const override { return "trtllm"; }
  std::string label() const override { return "TensorRT-LLM"; }
  // The LLM API / PyTorch KvCacheConfig.tokens_per_block defaults to 32; TensorRT engines build
  // with 64 (plugin config; docs/deploy.md).
  std::uint32_t default_block_size(const PlanInput& in) const override {
    return in.trtllm().backend == TrtllmOptions::Backend::tensorrt ? 64 : 32;
  }
  std::uint32_t default_memory_fraction_ppm() const override { return 900000; }
  std::uint64_t default_reserve_bytes() const override { return kDefaultReserveBytes; }
  // trtllm-serve's --max_batch_size is BuildConfig's 2048 (tensorrt_llm/builder.py @
  // NVIDIA/TensorRT-LLM 008b2b8d23af95e4e19fa6f354f9c5f6349b2bfc).
  std::optional<std::uint64_t> default_max_num_seqs() const override { return 2048; }
  // free_gpu_memory_fraction applies to what is free after weights and activations.
  BudgetSplit budget(std::uint64_t total_bytes, std::uint32_t fraction_ppm,
                     std::uint64_t weight_bytes, std::uint64_t reserve_bytes) const override {
    BudgetSplit b;
    const std::uint64_t needed = add(weight_bytes, reserve_bytes, "weights and reserve");
    b.requested_bytes = total_bytes > needed ? total_bytes - needed : 0;
    b.available_bytes = mul(b.requested_bytes, fraction_ppm, "memory fraction") / 1000000u;
    if (total_bytes < needed) b.shortfall_bytes = needed - total_bytes;
    return b;
  }
  std::optional<std::uint64_t> fixed_pool_bytes(const PlanInput& in) const override {
    return in.trtllm().max_gpu_total_bytes;
  }
  // DSACacheManager.get_cache_bytes_per_token (tensorrt_llm/_torch/attention_backend/sparse/
  // dsa.py@00e3c1a5c4bc147f6819c11b8a9a210488a81ca9): kv_factor = 1 + (index_head_dim +
  // index_head_dim // 128 · 4) / head_dim, ceil(kv_factor · Σ heads · head_dim) elements at the
  // KV dtype's size, so the indexer's elements cost what a latent element does (bf16: 2 B).
  std::uint64_t indexer_token_bytes(std::uint32_t index_head_dim,
                                    const KvFormat& format) const override {
    if (format.dtype == KvDtype::kivi)  // KIVI has no TensorRT-LLM pool
      return indexer_bytes_per_token(index_head_dim);
    const std::uint64_t elements = std::uint64_t{index_head_dim} + index_head_dim / 128 * 4;
    return elements * static_cast<std::uint64_t>(nominal_bytes_per_element(format));
  }
  // trtllm-serve's click options, spelt as serve.py declares them.
  ShapeFields flag_names() const override {
    return {.tp = "--tp_size",
            .pp = "--pp_size",
            .dp = "--dp",
            .gpus = "--gpus",
            .block_size = "kv_cache_config.tokens_per_block",
            .context = "--max_seq_len",
            .concurrency = "--max_batch_size",
            .draft_layers = "speculative_config",
            .attention_dp = "enable_attention_dp",
            .moe_ep = "--ep_size"};
  }
  const detail::CommandSyntax& command_syntax() const override {
    return detail::trtllm_command_syntax();
  }
  SettingsFields settings_flag_names() const override {
    return {.max_model_len = "--max_seq_len",
            .max_num_seqs = "--max_batch_size",
            .max_num_batched_tokens = "--max_num_tokens",
            .tp = "--tp_size"};
  }
  const char* memory_fraction_key() const override { return "free_gpu_memory_fraction"; }
  std::vector<std::string> option_keys() const override {
    return {"backend",
            "max_attention_window",
            "max_tokens",
            "max_gpu_total_bytes",
            "mamba_ssm_cache_dtype",
            "use_kv_cache_manager_v2",
            "avg_seq_len",
            "enable_block_reuse",
            "periodic_snapshot_interval",
            "additional_snapshot_offsets_from_start",
            "additional_snapshot_offsets_from_end",
            "attention_dp_enable_balance",
            "attention_dp_timeout_iters",
            "attention_dp_batching_wait_iters"};
  }
  // enable_attention_dp: an attention group a GPU of tp_size, the MoE layers over all of them
  // (tensorrt_llm/mapping.py@cf44a1cc; fused_moe_cutlass.py@000a01de gathers the groups' tokens
  // before the experts and reduce-scatters after).
  bool dp_attention_splits_tp() const override { return true; }
  bool dp_attention_groups_of_one_gpu() const override { return true; }
  std::string max_total_tokens_key() const override { return "max_tokens"; }
  // kv_cache_config.mamba_ssm_cache_dtype: auto (the model's), float32, bfloat16, float16.
  StateDtypeKeys state_dtype_keys() const override {
    return {.conv = "", .ssm = "mamba_ssm_cache_dtype", .takes_auto = true};
  }
  // resolve_ssm_cache_dtype (tensorrt_llm/_torch/pyexecutor/config_utils.py@00679c66c3e38f6d2651
  // ad0a5bef0f94d862e36c): the checkpoint's mamba_ssm_cache_dtype, else the model dtype (the conv
  // state's); neither mamba_ssm_dtype nor vLLM's float32 hooks.
  std::optional<KvDtype> default_ssm_state_dtype(const RecurrentSpec& r) const override {
    return r.ssm_cache_dtype.value_or(r.conv_dtype);
  }
  // trtllm-serve --free_gpu_memory_fraction (alias --kv_cache_free_gpu_memory_fraction,
  // tensorrt_llm/commands/serve.py).
  std::string memory_fraction_flag_name() const override { return "--free_gpu_memory_fraction"; }
  std::string kv_fp8_flag() const override { return "kv_cache_dtype fp8"; }
  std::string kv_dtype_field() const override { return "kv_cache_config.dtype"; }
  // KvCacheConfig.dtype (tensorrt_llm/llmapi/llm_args.py @ NVIDIA/TensorRT-LLM 00043967): auto,
  // fp8, fp8_ds_mla (sparse MLA's packed cache) or nvfp4; the last two are not modelled.
  const std::vector<std::string>& unmodelled_kv_dtypes() const override {
    static const std::vector<std::string> d = {"nvfp4", "fp8_ds_mla"};
    return d;
  }
  std::string budget_formula() const override {
    return "TensorRT-LLM: available = (total - weights - reserve) x free_gpu_memory_fraction "
           "(or kv_cache_config.max_gpu_total_bytes when given); blocks of tokens_per_block";
  }
  bool fraction_after_weights() const override { return true; }
  LogFacts log_facts() const override {
    return {.pool = LogFacts::Pool::blocks,
            .calibrates_terms = false,
            .graphs_logged_only = "logged only: kvplan keeps it in its one reserve",
            .compares_reserve = true};
  }
  // A pool per window of kv_cache_config.max_attention_window (planner_trtllm.cpp).
  bool pools_per_attention_window() const override { return true; }
  void attach_stage_pools(const detail::PlanEval& ev, detail::PlanStage& st) const override {
    detail::trtllm_stage_pools(ev, st);
  }
  // The serving simulator models its capacity and micro-batch schedulers (serving.cpp
  // schedule_trtllm, docs/trtllm-scheduler.md).
  bool simulated() const override { return true; }
  // Its disaggregated serving (trtllm-serve disaggregated, context first): the serving simulator
  // runs its generation side's order (simulator/serving/src/engines/trtllm.cpp remote_kv).
  std::optional<Refusal> disaggregation_refusal() const override { return std::nullopt; }
  bool prefix_cache_simulated() const override { return false; }
};

}  // namespace

const EngineRules& trtllm_rules() {
  static const Trtllm rules;
  return rules;
}

}  // namespace kvplan::engines
