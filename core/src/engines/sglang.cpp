// SGLang's rules (python/sglang/srt/server_args.py; docs/deploy.md names the commit read).
#include <algorithm>
#include <cmath>

#include "../planner_eval.hpp"
#include "command_syntax.hpp"
#include "kvplan/checked.hpp"
#include "kvplan/engine_args.hpp"
#include "kvplan/engine_rules.hpp"
#include "kvplan/formula.hpp"
#include "kvplan/gpu.hpp"
#include "kvplan/text_safe.hpp"
#include "launch_line.hpp"

namespace kvplan::engines {
namespace {

// SGLang's defaults when the command line leaves them out, from the GPU's memory
// (python/sglang/srt/arg_groups/memory_hook.py@031ed82d8b5ec8db9cf88cffb057c2e91c964262,
// handle_gpu_memory_settings). SGLang reads nvidia-smi's total in MiB
// (get_device_memory_capacity); kvplan takes CUDA's, a little lower, so the fraction it derives
// is never above SGLang's (0.829 for 0.830 on an H100).
constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

std::uint64_t gpu_mib(const PlanInput& in) { return in.gpu_memory_bytes / kMiB; }

// chunked_prefill_size: < 20 GiB 2048, < 60 GiB 4096, < 160 GiB 8192, else 16384 (4096 unknown).
std::uint64_t chunked_prefill_default(std::uint64_t mib) {
  if (mib == 0) return 4096;
  if (mib < 20 * 1024) return 2048;
  if (mib < 60 * 1024) return 4096;
  if (mib < 160 * 1024) return 8192;
  return 16384;
}

// The decode CUDA graphs' largest batch (cuda_graph_config.decode.max_bs) by memory and --tp.
std::uint64_t decode_graph_max_bs(std::uint64_t mib, std::uint64_t tp) {
  if (mib == 0) return 160;
  if (mib < 20 * 1024) return 8;
  if (mib < 35 * 1024) return tp < 4 ? 48 : 160;
  if (mib < 60 * 1024) return tp < 4 ? 32 : 160;
  if (mib < 160 * 1024) return tp < 4 ? 256 : 512;
  return 512;
}

// generate_prefill_cuda_graph_batch_sizes(max_bs): 4..32 by 4, 48..256 by 16, 288..512 by 32,
// 576..1024 by 64, 1280..4096 by 256, 4608.. by 512, up to max_bs (58 sizes at 8192).
std::uint64_t prefill_graph_sizes(std::uint64_t max_bs) {
  const std::uint64_t ranges[][3] = {{4, 32, 4},      {48, 256, 16},     {288, 512, 32},
                                     {576, 1024, 64}, {1280, 4096, 256}, {4608, ~0ull >> 1, 512}};
  std::uint64_t n = 0;
  for (const auto& r : ranges)
    for (std::uint64_t b = r[0]; b <= r[1] && b <= max_bs; b += r[2]) ++n;
  return n;
}

// A GPU preset's generation as SGLang's DSA defaults tell them apart (torch.cuda.
// get_device_capability major >= 10, or HIP), read from the preset: AMD by its Infinity Fabric,
// an NVIDIA Blackwell part by its fp4 tensor cores. Unknown for a GPU kvplan has no preset of.
enum class GpuGeneration { unknown, nvidia_before_blackwell, nvidia_blackwell, amd };
GpuGeneration generation_of(const std::string& gpu_id) {
  if (gpu_id.empty()) return GpuGeneration::unknown;
  static const std::vector<GpuSpec> presets = list_gpu_presets();
  for (const auto& g : presets) {
    if (g.id != gpu_id) continue;
    if (g.interconnect == "infinity_fabric") return GpuGeneration::amd;
    return g.peak_tflops_fp4 > 0 ? GpuGeneration::nvidia_blackwell
                                 : GpuGeneration::nvidia_before_blackwell;
  }
  return GpuGeneration::unknown;
}

// Whether SGLang's default DSA backends on this GPU read the raw MLA layout: Blackwell takes
// trtllm, AMD tilelang. False for an unknown GPU.
bool raw_dsa_layout(const std::string& gpu_id) {
  const GpuGeneration g = generation_of(gpu_id);
  return g == GpuGeneration::nvidia_blackwell || g == GpuGeneration::amd;
}

class Sglang final : public EngineRules {
 public:
  Engine engine() const override { return Engine::sglang; }
  std::string name() const override { return "sglang"; }
  std::string label() const override { return "SGLang"; }
  std::uint32_t default_block_size(const PlanInput&) const override { return 1; }  // --page-size
  // The overlap scheduler (sglang_overlap_schedule).
  bool async_scheduling_default(const PlanInput& in) const override {
    return sglang_overlap_schedule(in);
  }
  // Without a GPU: v0.5.x's fallback (server_args.py, gpu_mem None) — the newest says 0.95.
  std::uint32_t default_memory_fraction_ppm() const override { return 880000; }
  // handle_gpu_memory_settings (memory_hook.py@031ed82d), without --mem-fraction-static:
  //   reserved (MiB) = 512 + 1.5 · max(chunked_prefill_size, 2048) + tp · pp / 8 · 1024
  //                    + decode graphs 2 · max_bs (+ DP attention 3 · max_bs · dp, and 1.5 ·
  //                    max_bs · dp more above 300) + prefill graphs 8 per captured size
  //                    (1536 for MLA), at least 10240 on GPUs above 60 GiB
  //   mem_fraction_static = round((gpu_mem − reserved) / gpu_mem, 3)
  // Multimodal models then take 0.95 × a vision-tower factor kvplan takes as 1.
  std::uint32_t default_memory_fraction_ppm(const PlanInput& in,
                                            const ModelSpec* model) const override {
    const bool mla = model && model->is_mla();
    const bool multimodal = model && model->weights.vision_bytes > 0;
    const std::uint64_t mib = gpu_mib(in);
    if (mib == 0) return default_memory_fraction_ppm();
    const std::uint64_t dp = in.attention_dp;
    const std::uint64_t tp = std::uint64_t{in.tp} * std::max<std::uint64_t>(dp, 1);  // its --tp
    const std::uint64_t max_bs = decode_graph_max_bs(mib, tp);
    const std::uint64_t chunk = in.max_num_batched_tokens;
    double reserved = 512 + 1.5 * static_cast<double>(std::max<std::uint64_t>(chunk, 2048)) +
                      static_cast<double>(tp * std::max<std::uint32_t>(in.pp, 1)) / 8 * 1024;
    if (in.cuda_graphs) reserved += 2.0 * static_cast<double>(max_bs);
    if (dp > 1) {
      reserved += 3.0 * static_cast<double>(max_bs * dp);
      if (max_bs > 300) reserved += 1.5 * static_cast<double>(max_bs * dp);
    }
    reserved += mla ? 1536.0 : 8.0 * static_cast<double>(prefill_graph_sizes(chunk));
    if (mib > 60 * 1024) reserved = std::max(reserved, 10240.0);
    const double f = (static_cast<double>(mib) - reserved) / static_cast<double>(mib);
    if (!(f > 0)) return 1000;  // 0.001: the GPU cannot hold SGLang's reserve (weights_fit fails)
    double ppm = std::round(f * 1000) * 1000;
    if (multimodal) ppm = std::round(ppm * 0.95);
    return static_cast<std::uint32_t>(std::clamp(ppm, 1000.0, 1000000.0));
  }
  std::uint64_t default_max_num_batched_tokens(const PlanInput& in) const override {
    return chunked_prefill_default(gpu_mib(in));
  }
  // Activations and CUDA graphs live in the 1 − mem_fraction_static share: no reserve.
  std::uint64_t default_reserve_bytes() const override { return 0; }
  // --max-running-requests: derived from the pool when not given.
  std::optional<std::uint64_t> default_max_num_seqs() const override { return std::nullopt; }
  ShapeFields flag_names() const override {
    return {.tp = "--tp",
            .pp = "--pp-size",
            .dp = "--dp",
            .gpus = "--gpus",
            .block_size = "--page-size",
            .context = "--context-length",
            .concurrency = "--max-running-requests",
            .draft_layers = "--speculative-algorithm",
            .attention_dp = "--dp",
            .moe_ep = "--ep-size"};
  }
  const detail::CommandSyntax& command_syntax() const override {
    return detail::sglang_command_syntax();
  }
  SettingsFields settings_flag_names() const override {
    return {.max_model_len = "--context-length",
            .max_num_seqs = "--max-running-requests",
            .max_num_batched_tokens = "--chunked-prefill-size",
            .tp = "--tp"};
  }
  const char* memory_fraction_key() const override { return "mem_fraction_static"; }
  std::vector<std::string> option_keys() const override {
    return {"swa_full_tokens_ratio",
            "disable_hybrid_swa_memory",
            "mamba_full_memory_ratio",
            "max_mamba_cache_size",
            "max_total_tokens",
            "scheduler_recv_interval",
            "disable_overlap_schedule",
            "mamba_ssm_dtype",
            "speculative_num_draft_tokens",
            "speculative_algorithm",
            "speculative_num_steps",
            "speculative_eagle_topk",
            "disable_radix_cache",
            "mamba_radix_cache_strategy",
            "decode_context_parallel_size",
            "enable_linear_replayssm_spec",
            "linear_replayssm_cache_len",
            "disaggregation_mode",
            "disaggregation_decode_extra_slots",
            "disaggregation_decode_enable_radix_cache"};
  }
  std::string max_total_tokens_key() const override { return "max_total_tokens"; }
  // --mamba-ssm-dtype (server_args.py choices float32, bfloat16, float16; no "auto").
  StateDtypeKeys state_dtype_keys() const override {
    return {.conv = "", .ssm = "mamba_ssm_dtype"};
  }
  std::string memory_fraction_flag_name() const override { return "--mem-fraction-static"; }
  LogFacts log_facts() const override {
    return {.pool = LogFacts::Pool::tokens,
            .calibrates_terms = false,
            .graphs_logged_only = "logged only: SGLang keeps it outside its pool",
            .compares_reserve = false};
  }
  std::string kv_fp8_flag() const override { return "--kv-cache-dtype fp8_e4m3"; }
  std::string kv_dtype_field() const override { return "--kv-cache-dtype"; }
  std::string budget_formula() const override {
    return "SGLang: available = (total - context) x mem_fraction_static - weights; "
           "max_total_num_tokens = available // cell_size";
  }
  // profile_max_num_token (model_runner_kv_cache_mixin.py@226149ac): rest = available after
  // the weights − total · (1 − mem_fraction_static), where total is the memory free when the
  // weights begin to load ("Load weight begin. avail mem=..."): KV = f · (device − context) −
  // weights. Activations and CUDA graphs live in the 1 − f share, outside kvplan's terms.
  bool fraction_of_free_memory() const override { return true; }
  MemoryTerms memory_terms(const MemoryModelInput& x) const override {
    // What CUDA's context and NCCL take before the weights load, device total (79.18 GiB H100,
    // 139.80 GiB H200) less "Load weight begin. avail mem": 0.70 GiB at TP 1
    // (tests/data/logs/sglang-x-qwen3-30b-a3b-fp8-h100.log, 78.48; the 2025-01 docs log's 78.81
    // gives 0.37) and 2.51 GiB at TP 8 (tests/data/logs/startup/sglang-2025-10-unknown-tp8-h200-
    // pr11716.log, 137.29). The larger of each, so the pool is never overstated.
    MemoryTerms t;
    // Under DP attention the server's --tp spans every group (tp · attention_dp ranks): NCCL is
    // set up over all of them, whatever a group's own TP.
    const bool tp1 = std::uint64_t{x.in.tp} * std::max<std::uint32_t>(x.in.attention_dp, 1) == 1;
    const double gib = tp1 ? 0.70 : 2.51;
    t.context = {static_cast<std::uint64_t>(gib * 1073741824.0), MemoryTerm::Basis::fitted,
                 std::string("CUDA context") + (tp1 ? "" : " and NCCL") +
                     " before the weights load (the fraction's base is the memory left)",
                 "fitted: SGLang startup logs (docs/engine-memory.md, SGLang)"};
    t.graphs_in_budget = true;
    t.context_before_fraction = true;
    return t;
  }
  std::optional<MemoryTerm> request_table(const PlanInput& in, std::uint64_t pool_tokens,
                                          std::uint64_t rows = 0) const override;
  // server_args.py mamba_ssm_dtype = "float32": the temporal state unless --mamba-ssm-dtype.
  std::optional<KvDtype> default_ssm_state_dtype(const RecurrentSpec&) const override {
    return KvDtype::fp32;
  }
  // A sparse-attention (DSA) model's fp8 latent (calculate_mla_kv_cache_dim, python/sglang/srt/
  // mem_cache/kv_cache_configurator.py@382343f860c7df8dc43ecefd7902c940d81c99a9): the scaled
  // layout the FlashMLA kernels read, kv_lora_rank + kv_lora_rank // 128 · 4 + the RoPE values in
  // bf16 (656 B for V3.2), except under the trtllm DSA backends and on HIP's tilelang / aiter,
  // which keep the raw kv_lora_rank + qk_rope_head_dim bytes. The defaults
  // (_dsa_split_backend_resolution, arg_groups/overrides.py@382343f8): fp8 on Blackwell
  // ("trtllm" if major >= 10), Hopper "flashmla_kv", HIP tilelang. The GPU's generation is read
  // from its preset (fp4 tensor cores: Blackwell; Infinity Fabric: AMD); an unknown GPU gets the
  // scaled layout, the larger.
  std::optional<std::uint64_t> latent_token_bytes(const ModelSpec& model,
                                                  const PlanInput& in) const override {
    const bool fp8 = in.format.dtype == KvDtype::fp8_e4m3 || in.format.dtype == KvDtype::fp8_e5m2;
    if (model.index_head_dim == 0 || !fp8 || raw_dsa_layout(in.gpu_id)) return std::nullopt;
    return dsa_fp8_latent_bytes_per_token(model.kv_lora_rank, model.qk_rope_head_dim);
  }
  // _dsa_kv_cache_dtype_default (arg_groups/overrides.py@382343f860c7df8dc43ecefd7902c940d81c99a9):
  // a DeepSeek-family sparse-attention model's "auto" KV cache is fp8_e4m3 on Blackwell
  // (compute capability 10 and above), bfloat16 before it and on AMD.
  std::optional<KvFormat> auto_kv_format(const ModelSpec& model,
                                         const std::string& gpu_id) const override {
    if (model.index_head_dim == 0 || !model.is_mla()) return std::nullopt;
    if (generation_of(gpu_id) == GpuGeneration::nvidia_blackwell)
      return KvFormat{.dtype = KvDtype::fp8_e4m3};
    return KvFormat{.dtype = KvDtype::bf16};
  }
  // Decode context parallelism (SglangOptions::dcp_size): a request's tokens over the DCP group,
  // its KV heads over tp // dcp. SGLang builds the DCP groups from consecutive ranks of each TP
  // group (initialize_model_parallel, distributed/parallel_state.py@382343f8), so dcp divides tp.
  std::uint64_t context_shards(const PlanInput& in) const override { return in.sglang().dcp_size; }
  std::uint32_t kv_head_tp(const PlanInput& in) const override {
    const std::uint32_t d = std::max<std::uint32_t>(in.sglang().dcp_size, 1);
    return in.tp % d == 0 ? in.tp / d : in.tp;
  }
  std::optional<Refusal> dcp_refusal() const override { return std::nullopt; }
  void check_context_parallel(const detail::PlanEval& ev) const override {
    const std::uint32_t d = ev.in.sglang().dcp_size;
    if (d == 0) throw Error(ev.source, "decode_context_parallel_size", "must be at least 1, got 0");
    if (ev.in.tp % d != 0)
      throw Error(ev.source, "decode_context_parallel_size",
                  "SGLang splits each TP group into decode-context-parallel groups of " +
                      std::to_string(d) + " ranks: the tensor parallel size " +
                      std::to_string(ev.in.tp) + " must be a multiple of it");
    if (d > 1)
      for (const auto& st : ev.stages)
        for (const auto& l : st.sub.layers)
          if (l.kind == AttentionKind::sliding || l.kind == AttentionKind::chunked || l.recurrent)
            throw Error(ev.source, "decode_context_parallel_size",
                        "decode context parallelism beside sliding-window or recurrent layers is "
                        "not modelled for SGLang (kvplan shards the full-attention pool only)");
  }
  // _handle_mamba_radix_cache's validation (server_args.py@382343f860c7df8dc43ecefd7902c940d81c99a9
  // _validate_mamba_no_buffer, _validate_mamba_extra_buffer), for a hybrid Mamba model with the
  // radix cache on: no_buffer takes pages of one token and no overlap scheduler ("auto" resolving
  // to it turns the scheduler off itself); the extra buffer only the architectures that support
  // it.
  std::vector<Refusal> pool_problems(const ModelSpec& model, const PlanInput& in) const override {
    std::vector<Refusal> out;
    const SglangOptions& o = in.sglang();
    if (model.recurrent_layers() == 0 || sglang_radix_cache_off(o)) return out;
    const std::string strategy = sglang_mamba_strategy(model, in);
    const char* field = "--mamba-radix-cache-strategy";
    if (strategy == "no_buffer") {
      if (in.block_size > 1)
        out.push_back({field, "no_buffer only supports page_size=1.",
                       "--mamba-radix-cache-strategy extra_buffer, or --page-size 1"});
      if (o.mamba_radix_cache_strategy == "no_buffer" && sglang_overlap_schedule(in))
        out.push_back(
            {field,
             "no_buffer do not support overlap schedule. Try to set disable_overlap_schedule=True.",
             "--disable-overlap-schedule"});
    } else if (o.mamba_radix_cache_strategy != "auto" && !model.architecture.empty()) {
      if (!sglang_supports_extra_buffer(model))
        out.push_back(
            {field, "extra_buffer is not supported for " + model.architecture + "; use no_buffer.",
             "--mamba-radix-cache-strategy no_buffer"});
    }
    return out;
  }
  // Its full, SWA and Mamba pools (planner_sglang.cpp).
  void attach_stage_pools(const detail::PlanEval& ev, detail::PlanStage& st) const override {
    detail::sglang_stage_pools(ev, st);
  }
  // server_args.py, enable_dp_attention: the GPUs are --tp, not tp × dp. The dp groups of one
  // server share the MoE layers (its --tp GPUs), however many servers the deployment has
  // (EngineRules::expert_parallel_replicas); without it --dp runs independent servers, each with
  // every expert.
  bool dp_attention_splits_tp() const override { return true; }
  // TpModelWorker: max_running_requests // dp_size under enable_dp_attention (tp_worker.py, read
  // in a copy found by code search; docs/simulate-step-time.md "DP attention").
  bool dp_attention_divides_max_num_seqs() const override { return true; }
  bool simulated() const override { return true; }
  // Its prefill / decode disaggregation (--disaggregation-mode prefill|decode): the serving
  // simulator runs SGLang's order, the decode side preallocating before the prefill
  // (simulator/serving/src/engines/sglang.cpp remote_kv, docs/disagg.md).
  std::optional<Refusal> disaggregation_refusal() const override { return std::nullopt; }
  std::optional<std::string> launch_line(const ModelSpec& model, const PlanInput& in,
                                         std::string* why) const override;
};

// ReqToTokenPool's req_to_token, which the model runner allocates once max_total_num_tokens is
// known: an int32 table of max_num_reqs + 1 rows (row 0 the CUDA-graph padding row:
// memory_pool.py "self._alloc_size = size + 1", sgl-project/sglang@59ef3b15cc86eb64c48cd5e687a9
// 5dbefb872a29) by sglang_req_to_token_row_width columns (context_len + 4 +
// --speculative-num-draft-tokens, or the speculative decode reserve, rounded up to a whole page:
// get_req_to_token_row_width, mem_cache/allocation_sizing.py@84be7ff586100a0ad5fb372433a0dd3042
// 1599b0); max_num_reqs = KVCacheConfigurator.resolve_max_num_reqs (mem_cache/
// kv_cache_configurator.py@382343f860c7df8dc43ecefd7902c940d81c99a9, sglang_max_num_reqs): the
// pools' `rows` where given (they hold the Mamba cap), else from the pool's tokens.
std::optional<MemoryTerm> Sglang::request_table(const PlanInput& in, std::uint64_t pool_tokens,
                                                std::uint64_t rows) const {
  if (in.context == 0) return std::nullopt;
  const std::uint64_t derived = sglang_max_num_reqs(in.max_num_seqs, pool_tokens, in.context);
  const std::uint64_t reqs = rows ? rows : derived;
  std::string rows_how =
      "min(" +
      (in.max_num_seqs ? "--max-running-requests " + std::to_string(*in.max_num_seqs)
                       : "min(max(int(" + std::to_string(pool_tokens) + " / " +
                             std::to_string(in.context) + " x 512), 2048), 4096)") +
      ", " + std::to_string(pool_tokens) + " // 2) = " + std::to_string(derived);
  if (reqs != derived) rows_how += ", the Mamba slots' cap " + std::to_string(reqs);
  const SglangOptions& o = in.sglang();
  const std::uint32_t drafts = o.speculative_num_draft_tokens;
  const SglangRowInput row{.context = in.context,
                           .page_size = std::max<std::uint32_t>(in.block_size, 1),
                           .dcp_size = std::max<std::uint32_t>(o.dcp_size, 1),
                           .speculative_algorithm = o.speculative_algorithm,
                           .num_steps = o.speculative_num_steps,
                           .eagle_topk = o.speculative_eagle_topk,
                           .num_draft_tokens = drafts};
  const std::uint64_t cols = sglang_req_to_token_row_width(row);
  // A decode worker's DecodeReqToTokenPool holds size + pre_alloc_size + 1 rows
  // (disaggregation/decode.py@382343f860c7df8dc43ecefd7902c940d81c99a9), the pre-allocated ones
  // for requests still in transfer (sglang_decode_extra_slots).
  const std::uint64_t pre_alloc = sglang_decode_extra_slots(in);
  if (pre_alloc) rows_how += " + " + std::to_string(pre_alloc) + " in-transfer rows";
  const std::uint64_t bytes = mul(
      mul(add(add(reqs, pre_alloc, "request table"), 1, "request table"), cols, "request table"), 4,
      "request table");
  const std::uint64_t plain = add(in.context, 4 + std::uint64_t{drafts}, "request table");
  return MemoryTerm{bytes, MemoryTerm::Basis::derived,
                    "ReqToTokenPool's req_to_token: (" + rows_how + " + 1) rows x " +
                        std::to_string(cols) + " (" + std::to_string(in.context) + " + 4" +
                        (drafts ? " + " + std::to_string(drafts) + " draft tokens" : "") +
                        (cols != plain ? ", the speculative decode reserve or a whole page" : "") +
                        ") int32",
                    "python/sglang/srt/mem_cache/kv_cache_configurator.py@"
                    "382343f860c7df8dc43ecefd7902c940d81c99a9 resolve_max_num_reqs; "
                    "mem_cache/allocation_sizing.py@84be7ff586100a0ad5fb372433a0dd30421599b0 "
                    "get_req_to_token_row_width; "
                    "mem_cache/memory_pool.py@59ef3b15cc86eb64c48cd5e687a95dbefb872a29 "
                    "ReqToTokenPool"};
}

// The `python -m sglang.launch_server` line of a plan (flags as server_args.py spells them).
std::optional<std::string> Sglang::launch_line(const ModelSpec& model, const PlanInput& in,
                                               std::string* why) const {
  if (const auto refusal = model.attention_free ? attention_free_refusal() : std::nullopt) {
    if (why) *why = refusal->message;
    return std::nullopt;
  }
  const auto kv = kv_cache_dtype_flag("SGLang", "fp8_e4m3", in, why);
  if (!kv) return std::nullopt;
  if (!draft_layers_by_method("SGLang", model, in, why)) return std::nullopt;
  // Another engine's plan gets SGLang's 0.88 and its own page size and options left out.
  const bool mine = in.engine == engine();
  std::uint64_t seqs = 0;
  const std::string dp = replicas_and_seqs(in, &seqs);
  // DP attention: one server of attention_dp groups, --tp all its GPUs; its
  // --max-running-requests is the server's, which each group divides by --dp (TpModelWorker:
  // "server_args.max_running_requests // (server_args.dp_size if server_args.enable_dp_attention
  // else 1)", sglang python/sglang/srt/managers/tp_worker.py, read in a copy found by code search).
  const std::uint64_t groups = std::max<std::uint32_t>(in.attention_dp, 1);
  if (groups > 1 && gpus_of(in) > std::uint64_t{in.tp} * in.pp * groups) {
    if (why)
      *why = "DP attention over " + std::to_string(gpus_of(in) / (std::uint64_t{in.tp} * groups)) +
             " servers: one launch line a server";
    return std::nullopt;
  }
  std::string s = "python -m sglang.launch_server --model-path " + hf_repo_id(model);
  if (in.tp * groups > 1) s += " --tp " + std::to_string(in.tp * groups);
  if (in.pp > 1) s += " --pp-size " + std::to_string(in.pp);
  if (groups > 1) {
    s += " --dp " + std::to_string(groups) + " --enable-dp-attention";
    if (in.moe_ep > 1) s += " --ep-size " + std::to_string(in.moe_ep);
    seqs *= groups;
  } else if (!dp.empty()) {
    s += " --dp " + dp;
  }
  // Whole experts over the --tp GPUs (server_args.py --ep-size), as simulated.
  if (in.expert_parallel && groups == 1 && in.tp > 1 && model.routed_experts > 0)
    s += " --ep-size " + std::to_string(in.tp);
  s += " --context-length " + std::to_string(in.context);
  s += " --max-running-requests " + std::to_string(seqs);
  s += " --kv-cache-dtype " + *kv;
  // An SGLang plan's fraction: stated, else the default SGLang derives for this GPU and model
  // (the one the plan was sized with).
  s += " --mem-fraction-static " + decimal(!mine ? default_memory_fraction_ppm()
                                           : in.memory_fraction_ppm
                                               ? in.memory_fraction_ppm
                                               : default_memory_fraction_ppm(in, &model));
  // MTP: NEXTN loads the checkpoint's own NextN layers (server_args.py speculative_algorithm).
  if (const std::string& algo = in.sglang().speculative_algorithm; !algo.empty())
    s += " --speculative-algorithm " + ascii_upper(algo);
  else if (in.draft_layers > 0)
    s += " --speculative-algorithm NEXTN";
  if (!mine) return s;
  if (in.block_size > 1) s += " --page-size " + std::to_string(in.block_size);
  const SglangOptions& o = in.sglang();
  const SglangOptions def{};
  if (o.swa_full_tokens_ratio_ppm != def.swa_full_tokens_ratio_ppm)
    s += " --swa-full-tokens-ratio " + decimal(o.swa_full_tokens_ratio_ppm);
  if (o.disable_hybrid_swa_memory) s += " --disable-hybrid-swa-memory";
  if (o.mamba_full_memory_ratio_ppm != def.mamba_full_memory_ratio_ppm)
    s += " --mamba-full-memory-ratio " + decimal(o.mamba_full_memory_ratio_ppm);
  if (o.max_mamba_cache_size)
    s += " --max-mamba-cache-size " + std::to_string(*o.max_mamba_cache_size);
  if (in.max_total_tokens) s += " --max-total-tokens " + std::to_string(*in.max_total_tokens);
  if (o.scheduler_recv_interval != def.scheduler_recv_interval)
    s += " --scheduler-recv-interval " + std::to_string(o.scheduler_recv_interval);
  if (o.disable_overlap_schedule) s += " --disable-overlap-schedule";
  if (o.disable_radix_cache) s += " --disable-radix-cache";
  if (o.disaggregation_mode != def.disaggregation_mode)
    s += " --disaggregation-mode " + o.disaggregation_mode;
  if (o.disaggregation_decode_extra_slots)
    s += " --disaggregation-decode-extra-slots " +
         std::to_string(*o.disaggregation_decode_extra_slots);
  if (o.disaggregation_decode_enable_radix_cache)
    s += " --disaggregation-decode-enable-radix-cache";
  if (o.dcp_size > 1) s += " --dcp-size " + std::to_string(o.dcp_size);
  if (o.linear_replayssm_spec) s += " --enable-linear-replayssm-spec";
  if (o.linear_replayssm_cache_len != def.linear_replayssm_cache_len)
    s += " --linear-replayssm-cache-len " + std::to_string(o.linear_replayssm_cache_len);
  if (o.mamba_radix_cache_strategy != def.mamba_radix_cache_strategy)
    s += " --mamba-radix-cache-strategy " + o.mamba_radix_cache_strategy;
  if (o.speculative_num_draft_tokens)
    s += " --speculative-num-draft-tokens " + std::to_string(o.speculative_num_draft_tokens);
  if (o.speculative_num_steps)
    s += " --speculative-num-steps " + std::to_string(o.speculative_num_steps);
  if (o.speculative_eagle_topk)
    s += " --speculative-eagle-topk " + std::to_string(o.speculative_eagle_topk);
  if (const std::string state = in.ssm_state_dtype ? torch_float_name(*in.ssm_state_dtype) : "";
      !state.empty())
    s += " --mamba-ssm-dtype " + state;
  return s;
}

}  // namespace

const EngineRules& sglang_rules() {
  static const Sglang rules;
  return rules;
}

}  // namespace kvplan::engines
