// The capacity planner: how many requests of N tokens a serving deployment holds, the longest
// context at concurrency B, how many GPUs of which type to order, and what a KV format or a
// retention policy changes. Each number follows one engine's own arithmetic (vLLM V1, SGLang,
// TensorRT-LLM), which docs/deploy.md spells out with its sources.
//
// Worked example (tests/core/test_planner.cpp): llama-3.1-8b, fp16, vLLM V1, block 16, a measured
// "Available KV cache memory" of 40 GiB on one GPU:
//   page (one block, one layer) = 16 · 8 · (128 + 128) · 2        = 65536 bytes
//   num_gpu_blocks              = 42949672960 // 65536 // 32       = 20480
//   "GPU KV cache size"         = 20480 // 1 group · 16            = 327680 tokens
//   "Maximum concurrency for 32,768 tokens per request"
//                               = 20480 / ceil(32768 / 16)         = 10.00x
//
// Units: bytes, tokens and requests are exact unsigned integers with checked arithmetic;
// fractions (gpu_memory_utilization) are exact parts per million.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "kvplan/formula.hpp"
#include "kvplan/gpu.hpp"
#include "kvplan/kv_format.hpp"
#include "kvplan/memory_terms.hpp"
#include "kvplan/model.hpp"
#include "kvplan/policy.hpp"
#include "kvplan/report.hpp"

namespace kvplan {

// Whose arithmetic a number follows.
//   vllm:   budget = total · gpu_memory_utilization − weights − reserve; block 16; hybrid
//           (sliding + full) models in KV-cache groups; sliding layers cost
//           ceil(min(W − 1 + max_num_batched_tokens, max_model_len) / block) + 1 pages.
//   sglang: budget = total · mem_fraction_static − weights (activations and CUDA graphs live in
//           the 1 − mem_fraction_static share); page 1 token; a full pool, plus an SWA pool for
//           the hybrid sliding-window architectures it lists and a Mamba-state pool for hybrid
//           recurrent models (SglangPools below).
//   trtllm: budget = (total − weights − reserve) · free_gpu_memory_fraction; 32 tokens per
//           block (64 for a TensorRT engine); one pool per max_attention_window (TrtllmWindow).
enum class Engine { vllm, sglang, trtllm };

// Which of vLLM's rules: the current source (docs/deploy.md names the commits it was read at), or
// an older release's where they changed (`--engine vllm@0.9`):
//   group size     current: the fewest layers of any spec type, the most when that is under 1.5×
//                  the fewest (gpt-oss + EAGLE: 12 sliding + 13 full → groups of 13); 0.9: the
//                  fewest.
//   startup check  current: one request at max_model_len within num_blocks − 1 (the null block,
//                  PR #47272), and the auto-fit likewise; 0.9: its bytes within the memory.
//   "GPU KV cache size"  current: int(max concurrency × max_model_len); 0.9: num_blocks //
//                  groups × block_size.
//   memory (vllm@0.19, 0.17 - 0.19: the current pools)  the profile's sampler is the Triton
//                  top-k/top-p kernel, not a sort; CUDA graphs are captured outside the budget.
//   memory (vllm@0.25, 0.25.x: the current pools)  dense models run Model Runner V2 by default
//                  (vllm-project/vllm#44443): its profile samples without sampling parameters,
//                  its graphs are not estimated, and its sampler state and warm-up sit outside
//                  the budget (docs/engine-memory.md "Model Runner V2"); MoE, hybrid and
//                  attention-free models run V1 as the current rules do.
//   memory (vllm@0.10, 0.10.x: 0.9's pools)  NCCL and the all-reduce buffers are created after
//                  the memory baseline, so non-torch holds them (vllm-project/vllm#25359 moved
//                  them before it from 0.11, where vllm@0.9's terms, fitted on such a release,
//                  keep them).
// Every version's BlockPool holds one null block back, so the requests that fit at once are
// (num_blocks − 1) // blocks per request.
enum class VllmRules { current, v0_9, v0_10, v0_19, v0_25 };

Engine parse_engine(const std::string& name, const std::string& source, const std::string& field);
// "vllm", "vllm@0.9", "sglang", "trtllm": the engine and, for vLLM, its rules. Throws Error
// naming the known versions.
Engine parse_engine(const std::string& name, const std::string& source, const std::string& field,
                    VllmRules& rules);
// The rule set of a vLLM release ("0.19.1", "0.9", "current"), empty where kvplan has none of its
// own: what `--engine vllm@V`, `--vllm-version V` and a log's version select.
std::optional<VllmRules> vllm_release_rules(const std::string& version);
std::string to_string(Engine e, VllmRules rules);
std::string to_string(Engine e);
// The engine's default block size (tokens per page): vLLM 16, SGLang 1, TensorRT-LLM 32.
std::uint32_t default_block_size(Engine e);
// The engine's default memory fraction in ppm: vLLM 900000, SGLang 880000, TensorRT-LLM 900000.
std::uint32_t default_memory_fraction_ppm(Engine e);

// Default reserve per GPU for the activation peak, CUDA graphs and non-torch memory (vLLM,
// TensorRT-LLM): 2 GiB. See docs/deploy.md for how it was chosen and how to measure yours.
inline constexpr std::uint64_t kDefaultReserveBytes = std::uint64_t{2} << 30;
// vLLM V1's default max_num_batched_tokens for the OpenAI server (chunked prefill).
inline constexpr std::uint64_t kDefaultMaxNumBatchedTokens = 8192;

// The drafts' acceptance for k speculative tokens: "A" (position i accepted with A^i, each
// draft accepted only after the one before it) or "A1,...,Ak" (vLLM's per-position rates).
// Throws Error(source, field) on a rate outside [0, 1], one above the rate before it, a count
// other than 1 or k, or k = 0.
std::vector<double> parse_spec_acceptance(const std::string& text, std::uint32_t k,
                                          const std::string& source, const std::string& field);
// The same for rates given as numbers (a deployment file's array); one number is A as above.
std::vector<double> spec_acceptance_of(std::vector<double> rates, std::uint32_t k,
                                       const std::string& source, const std::string& field);

// "0.9" -> 900000, exact; throws Error(source, field) outside (0, 1] or past 6 decimals.
std::uint32_t parse_fraction_ppm(const std::string& text, const std::string& source,
                                 const std::string& field);
// "23.47" GiB -> floor(23.47 · 2^30) bytes, exact decimal arithmetic; at most 9 decimals,
// at most 1 PiB. Throws Error(source, field) otherwise.
std::uint64_t parse_gib(const std::string& text, const std::string& source,
                        const std::string& field);
// A double from a JSON file to ppm (rounded to 6 decimals); throws outside (0, 1].
std::uint32_t fraction_to_ppm(double v, const std::string& source, const std::string& field);

// Options only one engine reads. PlanInput carries the common fields and one engine's options as
// a variant (EngineOptions); an engine's rules (engine_rules.hpp, core/src/engines/) and its pool
// planner read their own alternative and no other, and an engine command line's flags reach only
// its engine's (each engine has its own flag table, engine_args.cpp).

// vLLM's options beyond the common ones.
struct VllmOptions {
  VllmRules rules = VllmRules::current;  // which release's memory and pool rules
  // --num-gpu-blocks-override: the block count every stage uses instead of the memory's
  // (kv_cache_utils.get_num_blocks).
  std::optional<std::uint64_t> num_gpu_blocks_override;
  // mamba_cache_mode: the state pages one sequence holds per recurrent group — none: 1,
  // align: 2 (the state at the last block boundary kept for prefix caching), all: one per block
  // of max_model_len (MambaSpec.max_memory_usage_bytes, kv_cache_interface.py@001cabc1).
  enum class MambaCacheMode { none, align, all };
  MambaCacheMode mamba_cache_mode = MambaCacheMode::none;
  // The speculative tokens of --speculative-config (num_speculative_tokens); each Mamba /
  // linear-attention group then holds that many more state pages per sequence
  // (MambaSpec.num_speculative_blocks: 1 + k with mode none, 2 + k with align;
  // kv_cache_interface.py@001cabc1). 0 without speculative decoding.
  std::uint32_t num_speculative_tokens = 0;
  // --speculative-config {"method": "extract_hidden_states", "draft_model_config": {"hf_config":
  // {"eagle_aux_hidden_state_layer_ids": [...]}}}: the hidden states a token caches for the
  // hidden-states connector (len of that list), in one cache-only layer of that many "heads" of
  // hidden_size at the model dtype (HiddenStateCacheSpec, vllm/model_executor/models/
  // extract_hidden_states.py@055e47c28003156421365af985d676fc921cb075). 0 = none.
  std::uint32_t extract_hidden_states = 0;
  // --attn-group-size (CacheConfig.attn_group_size): the layers of each KV-cache group of a hybrid
  // model, instead of the fewest-or-most heuristic (_get_kv_cache_groups_uniform_page_size's
  // group_size_override, vllm/v1/core/kv_cache_utils.py@002f10e0cfa1373a19a0d2756598a34b700d20e5).
  // 0 = the heuristic.
  std::uint32_t attn_group_size = 0;
  // The drafts' acceptance by position (vLLM's spec-decode "per-position acceptance rate"):
  // num_speculative_tokens values, non-increasing in [0, 1], that the serving simulator counts
  // the accepted drafts with (docs/simulate.md "Speculative decoding"). Empty: the drafts are not
  // simulated (one token a step). Not a memory input.
  std::vector<double> spec_acceptance;
  // --decode-context-parallel-size: each rank of a DCP group keeps every dcp-th token, so a
  // full-attention or MLA layer holds cdiv(cdiv(max_model_len, dcp), block) pages of a request
  // (FullAttentionSpec.max_memory_usage_bytes, kv_cache_interface.py@001cabc1); a recurrent
  // state is not split (test_dcp_world_size_for_kv_cache_spec_shards_full_attention_only) and
  // sliding layers refuse it ("DCP not support sliding window"). KV heads per rank still follow
  // tp. 1 = off.
  std::uint32_t dcp = 1;
  // --disable-hybrid-kv-cache-manager: sliding and chunked layers cost full attention, all
  // layers in one group (kv_cache_utils.unify_hybrid_kv_cache_specs).
  bool disable_hybrid_kv_cache_manager = false;
  // Which model runner the workers use (VLLM_USE_V2_MODEL_RUNNER: unset = the release's default
  // for the model, 0 = V1, 1 = V2; vllm/config/vllm.py use_v2_model_runner): its memory terms
  // differ (docs/engine-memory.md "Model Runner V2"). Not a flag: the environment variable.
  enum class ModelRunner { auto_, v1, v2 };
  ModelRunner model_runner = ModelRunner::auto_;
  // --data-parallel-size of one server: its DP ranks run the MoE layers as one group of
  // tp · DP ranks, an EP group with --enable-expert-parallel, else a TP group (the routed
  // experts 1/(tp · DP) a GPU either way: FusedMoEParallelConfig.make and
  // flatten_tp_across_dp_and_pcp, vllm/model_executor/layers/fused_moe/config.py@002d6073).
  // 0 = every replica of the deployment (gpus / (tp · pp)), as kvplan's launch lines run them;
  // a command line says its own (1 without the flag: more GPUs are more servers).
  std::uint32_t data_parallel_size = 0;
  // --async-scheduling / --no-async-scheduling (SchedulerConfig.async_scheduling); unset: the
  // release's default (EngineRules::async_scheduling_default). The serving simulator's
  // one-step-ahead admission (docs/simulate.md).
  std::optional<bool> async_scheduling;
  bool operator==(const VllmOptions&) const = default;
};

// SGLang's pools (planner_sglang.cpp; defaults from python/sglang/srt/server_args.py):
//   --swa-full-tokens-ratio (0.8): SWA-pool tokens per full-pool token for hybrid sliding /
//   chunked models; --disable-hybrid-swa-memory turns the SWA pool off (every layer full);
//   hybrid_swa: whether SGLang gives this model an SWA pool (is_hybrid_swa_model: Llama 4,
//   gpt-oss, MiMo-V2, Step-3.5, Gemma 4; not Gemma 2/3 or Mistral), unset = from the model;
//   --mamba-full-memory-ratio (0.9): Mamba-state bytes per full-KV byte of hybrid recurrent
//   models; --max-mamba-cache-size: the state slots instead of that split.
// And one scheduler setting the serving simulator runs: --scheduler-recv-interval (1), how often
// the scheduler takes new requests in (SchedulerRecvSkipper: after N decode steps, at once after
// a prefill; docs/simulate.md "SGLang's receive interval").
struct SglangOptions {
  std::uint32_t swa_full_tokens_ratio_ppm = 800000;
  bool disable_hybrid_swa_memory = false;
  std::optional<bool> hybrid_swa;
  std::uint32_t mamba_full_memory_ratio_ppm = 900000;
  std::optional<std::uint64_t> max_mamba_cache_size;
  std::uint32_t scheduler_recv_interval = 1;
  // --disable-overlap-schedule: the scheduler forms the next batch only after the running one
  // returns. By default (false) it runs event_loop_overlap, whose batch k + 1 is formed while
  // batch k runs (the serving simulator's async admission, default_async_scheduling).
  bool disable_overlap_schedule = false;
  // A hybrid Mamba model's state slots per running request (KVCacheConfigurator.
  // _calculate_mamba_ratio, sglang_mamba_ratio): --disable-radix-cache (one slot), and
  // --mamba-radix-cache-strategy (its deprecated alias --mamba-scheduler-strategy): "auto",
  // "no_buffer", "extra_buffer" or "extra_buffer_lazy".
  bool disable_radix_cache = false;
  std::string mamba_radix_cache_strategy = "auto";
  // --dcp-size (--decode-context-parallel-size): decode context parallelism inside each TP group.
  // Each rank keeps every dcp-th token of a request, so a request of n tokens takes cdiv(n,
  // page · dcp) pages of the rank's pool (the paged allocator's virtual capacity is
  // max_total_num_tokens · dcp in pages of page · dcp); the KV heads shard over tp // dcp
  // (ModelConfig.get_num_kv_heads,
  // configs/model_config.py@382343f860c7df8dc43ecefd7902c940d81c99a9).
  std::uint32_t dcp_size = 1;
  // --enable-linear-replayssm-spec (its deprecated --enable-gdn-replayssm-spec): a gated-delta-
  // net hybrid keeps a ReplaySSM window of raw inputs a slot instead of speculative decoding's
  // intermediate states, the window the draft tokens long (else --linear-replayssm-cache-len,
  // default 16); sglang_replayssm_ring_bytes.
  bool linear_replayssm_spec = false;
  std::uint32_t linear_replayssm_cache_len = 16;
  // --disaggregation-mode (null, prefill, decode): the worker's role in prefill / decode
  // disaggregation. A decode worker runs the chunk cache (the radix cache off) unless
  // --disaggregation-decode-enable-radix-cache, and holds --disaggregation-decode-extra-slots
  // request rows for requests still in transfer (unset: twice the per-worker running batch when
  // --max-running-requests gives one of at most 32, else 0: arg_groups/pd_disaggregation_hook.py@
  // 382343f860c7df8dc43ecefd7902c940d81c99a9); sglang_radix_cache_off, sglang_decode_extra_slots.
  // A disaggregated deployment's sides take "prefill" and "decode" (disagg_side).
  std::string disaggregation_mode = "null";
  std::optional<std::uint64_t> disaggregation_decode_extra_slots;
  bool disaggregation_decode_enable_radix_cache = false;
  // --speculative-num-draft-tokens: the draft tokens a step verifies, which widen each row of the
  // request table (init_memory_pool: extra_max_context_len = 4 + speculative_num_draft_tokens).
  // 0 = not given.
  std::uint32_t speculative_num_draft_tokens = 0;
  // --speculative-algorithm (lower case; empty: none), --speculative-num-steps and
  // --speculative-eagle-topk (0: not given): with the draft tokens they size the KV a request may
  // allocate in one decode step, whose reserve the request table's rows hold
  // (sglang_req_to_token_row_width).
  std::string speculative_algorithm;
  std::uint32_t speculative_num_steps = 0, speculative_eagle_topk = 0;
  bool operator==(const SglangOptions&) const = default;
};

// SGLang's request-table row (python/sglang/srt/mem_cache/allocation_sizing.py@84be7ff586100a0a
// d5fb372433a0dd30421599b0 get_req_to_token_row_width): context_len plus the headroom 4 + the draft
// tokens, or with speculative decoding at least the decode reserve (twice what one decode step
// may allocate, get_alloc_reserve_per_decode) at the page and at the page times DCP, rounded up to
// a whole page times DCP. Steps and top-k not given count 1, as the file reads them.
struct SglangRowInput {
  std::uint64_t context = 0;
  std::uint32_t page_size = 1, dcp_size = 1;
  std::string speculative_algorithm;  // lower case; empty: none
  std::uint32_t num_steps = 0, eagle_topk = 0, num_draft_tokens = 0;
};
std::uint64_t sglang_req_to_token_row_width(const SglangRowInput& in);
// get_alloc_reserve_per_decode at one allocator page.
std::uint64_t sglang_decode_reserve(const SglangRowInput& in, std::uint32_t page_size);

// SWAChunkCapPoolConfigurator (python/sglang/srt/model_executor/pool_configurator.py@382343f860c7
// df8dc43ecefd7902c940d81c99a9), which SGLang picks for a hybrid SWA model given
// --max-running-requests (or speculative decoding's 48) with --disable-radix-cache and chunked
// prefill: the SWA pool holds at most
//   cap = per_request · running + chunks · chunked_prefill_size + page,
//   per_request = window + eviction_interval · draft_tokens + page + decode_alloc,
// chunks 2 under the overlap scheduler, else 1 (a decode worker: none, its extra slots instead,
// below); draft_tokens the speculative draft tokens (1
// without); decode_alloc a page without speculative decoding, spec_decode_alloc_len_per_request
// without the overlap scheduler (spec-v1), twice get_alloc_len_per_decode with it (spec-v2). The
// pool takes ceil(cap / page) pages and the full pool the rest of the budget.
struct SglangSwaCapInput {
  std::uint64_t window = 0;                // sliding_window_size
  std::uint64_t running = 0;               // max_running_requests // attention DP groups
  std::uint64_t chunked_prefill_size = 0;  // --chunked-prefill-size
  std::uint32_t page_size = 1;
  bool overlap_schedule = true;
  std::string speculative_algorithm;  // lower case; empty: none
  std::uint32_t num_steps = 0, eagle_topk = 0, num_draft_tokens = 0;
  std::uint32_t eviction_interval = 128;  // SGLANG_SWA_EVICTION_INTERVAL (environ.py)
  // A decode worker (--disaggregation-mode decode) receives its prompts' KV instead of
  // prefilling them: no chunk in flight, and each of its extra slots holds window + page tokens,
  // cap = per_request · running + (window + page) · decode_extra_slots.
  bool disaggregation_decode = false;
  std::uint64_t decode_extra_slots = 0;
};
std::uint64_t sglang_swa_chunk_cap(const SglangSwaCapInput& in);

// TensorRT-LLM: the backend fixes the default tokens_per_block (PyTorch / LLM API 32, a
// TensorRT engine 64); kv_cache_config.max_attention_window, repeated over the layers (empty =
// every layer max_seq_len = context); how the pool is split between windows (current: equal
// memory per window; older builds: proportional to window × bytes per token).
struct TrtllmOptions {
  enum class Backend { pytorch, tensorrt };
  Backend backend = Backend::pytorch;
  std::vector<std::uint64_t> max_attention_window;
  enum class WindowShares { equal, proportional };
  WindowShares window_shares = WindowShares::equal;
  // kv_cache_config.max_gpu_total_bytes: the primary pool's bytes per rank, taken instead of
  // free_gpu_memory_fraction (KVCacheManager: "max_gpu_total_bytes if max_gpu_total_bytes > 0
  // else int(free_mem * free_gpu_memory_fraction)", tensorrt_llm/_torch/pyexecutor/
  // resource_manager.py@d2a5560abdadfbdf496ce057696103e0509a71ed). Unset: the fraction.
  std::optional<std::uint64_t> max_gpu_total_bytes;
  // A hybrid Mamba model's cache manager (kv_cache_config.use_kv_cache_manager_v2): true
  // MambaHybridCacheManagerV2, false CppMambaHybridCacheManager; unset ("auto") V2, Qwen3-Next's
  // and Qwen3.5's preference and never a larger attention pool than the C++ manager's
  // (docs/deploy.md). avg_seq_len: V2's typical request (kv_cache_config.avg_seq_len; unset:
  // max_seq_len / 2).
  std::optional<bool> kv_cache_manager_v2;
  std::optional<std::uint64_t> avg_seq_len;
  // A hybrid Mamba model's state snapshots for prefix reuse (kv_cache_config.enable_block_reuse
  // with kv_cache_config.mamba_state_config, tensorrt_llm/llmapi/llm_args.py@0004396720054fd8e2
  // 05cbf616f21f0b57c6b412). enable_block_reuse unset: off, as Nemotron-H's and Qwen3-Next's
  // get_model_defaults set it (only an explicit true turns snapshots on); the interval
  // (periodic_snapshot_interval, 0 = none) and the offsets from a prompt's start and end
  // (additional_snapshot_offsets_from_start / _end, the V2 manager only) as the engine takes them.
  std::optional<bool> enable_block_reuse;
  std::uint64_t snapshot_interval = 0;
  std::vector<std::uint64_t> snapshot_offsets_from_start, snapshot_offsets_from_end;
  // attention_dp_config under enable_attention_dp (AttentionDpConfig, tensorrt_llm/llmapi/
  // llm_args.py: enable_balance false, timeout_iters 50, batching_wait_iters 10): with balance on,
  // every rank holds its context requests until all ranks have one and a free slot (at most
  // timeout_iters iterations, or until a rank has no request generating), and with every rank
  // generating waits batching_wait_iters iterations more (PyExecutor._balance_adp_requests,
  // tensorrt_llm/_torch/pyexecutor/py_executor.py). The serving simulator runs the groups in
  // lockstep with it (docs/simulate-step-time.md).
  bool adp_enable_balance = false;
  std::uint32_t adp_timeout_iters = 50, adp_batching_wait_iters = 10;
  bool operator==(const TrtllmOptions&) const = default;
};

// One engine's options, in Engine's order.
using EngineOptions = std::variant<VllmOptions, SglangOptions, TrtllmOptions>;

struct PlanInput {
  Engine engine = Engine::vllm;
  KvFormat format{};
  RetentionPolicy policy{};
  std::uint32_t block_size = 0;  // tokens per page; 0 = the engine's default
  std::uint32_t tp = 1;          // tensor-parallel ranks per replica
  std::uint32_t pp = 1;          // pipeline stages per replica
  std::uint32_t gpus = 0;  // GPUs in all; 0 = tp · pp (one replica); else replicas = gpus / (tp·pp)
  std::uint64_t context = 0;      // max_model_len: tokens per request (n)
  std::uint64_t concurrency = 1;  // requests in flight the deployment must hold (B), all replicas
  // The step's token budget: vLLM max_num_batched_tokens, SGLang's chunked-prefill size,
  // TensorRT-LLM max_num_tokens.
  std::uint64_t max_num_batched_tokens = kDefaultMaxNumBatchedTokens;
  std::uint32_t draft_layers = 0;  // speculative (MTP / EAGLE) layers holding a cache
  std::optional<KvDtype> conv_state_dtype, ssm_state_dtype;  // recurrent state; model default
  // Routed experts spread whole over the MoE layers' ranks (vLLM --enable-expert-parallel, SGLang
  // --ep-size = --tp): with vLLM's DP they span its replicas (VllmOptions::data_parallel_size), per
  // GPU expert_bytes / (tp · pp · replicas), the rest / (tp · pp) — as without EP there.
  bool expert_parallel = false;
  // DP attention (SGLang --enable-dp-attention with --dp D, TensorRT-LLM enable_attention_dp): one
  // server's GPUs run D attention groups of tp × pp GPUs, each with its own requests, KV pool and
  // replicated attention weights (kvplan's replicas), and its MoE layers over all tp · D of them
  // (the routed experts 1/(tp · D) a GPU: expert_parallel, EngineRules::expert_parallel_replicas).
  // 1 = off. gpus 0 then means one server, tp · pp · D GPUs (gpus_of).
  std::uint32_t attention_dp = 1;
  // Under DP attention: whole experts over moe_ep of the server's tp · attention_dp GPUs, each
  // expert split over the other tp · attention_dp / moe_ep (SGLang --ep-size, TensorRT-LLM
  // moe_expert_parallel_size); 1 = every expert sharded over all of them.
  std::uint32_t moe_ep = 1;
  // SGLang --max-total-tokens, TensorRT-LLM kv_cache_config.max_tokens: a cap on the pool's
  // tokens (the smaller of it and the memory's wins; TensorRT-LLM ignores it with several windows).
  std::optional<std::uint64_t> max_total_tokens;
  // The options of `engine`. vllm(), sglang() and trtllm() read them: another engine's options
  // read as that engine's defaults, so no rule sees options it does not own. edit_vllm() and the
  // others make their engine's the held alternative (dropping another's) to write them; the
  // planner refuses a PlanInput whose held options, unless defaults, are not its engine's
  // (check_engine_options).
  EngineOptions options;
  const VllmOptions& vllm() const;
  const SglangOptions& sglang() const;
  const TrtllmOptions& trtllm() const;
  VllmOptions& edit_vllm();
  SglangOptions& edit_sglang();
  TrtllmOptions& edit_trtllm();
  // Memory model of one GPU.
  std::uint64_t gpu_memory_bytes = 0;          // total device memory
  std::uint32_t memory_fraction_ppm = 0;       // 0 = engine default (see above)
  std::string weight_dtype;                    // empty = the model's
  std::optional<std::uint64_t> reserve_bytes;  // per GPU; default: the engine's terms
  // The GPU preset's id (vLLM's defaults test its name for "a100") and the engine's
  // max_num_seqs (empty: its default for this GPU); the profile run's sampler sizes by it.
  std::string gpu_id;
  std::optional<std::uint64_t> max_num_seqs;
  bool cuda_graphs = true;  // false with --enforce-eager: no graph memory
  // kvplan plan's launch lines state --max-num-seqs as the requests per replica
  // (ceil(concurrency / replicas)); the memory model then takes that, not the engine's default.
  bool max_num_seqs_is_concurrency = false;
  // A calibration's per-term corrections (MemoryCorrections), applied to every rank's terms.
  std::optional<MemoryCorrections> memory_corrections;
  std::optional<std::uint64_t> available_kv_bytes;  // measured, per rank: skips the memory model
  // Measured, one figure a rank in vLLM's rank order (rank = stage · tp + TP rank), tp · pp of
  // them: available_kv_bytes is their minimum. vLLM sizes each worker by its own figure and its
  // own layers, then gives every worker the fewest blocks of any (kv_cache_utils.py
  // get_kv_cache_configs; tests/v1/core/test_kv_cache_utils.py @ 002f10e0
  // test_get_kv_cache_configs_multiple_workers, test_get_kv_cache_configs_pp_sharding); SGLang
  // and TensorRT-LLM take the minimum.
  std::vector<std::uint64_t> available_kv_bytes_per_rank;
};

// The deployment's GPUs: in.gpus, else one replica (tp · pp), or one DP-attention server
// (tp · pp · attention_dp).
std::uint64_t gpus_of(const PlanInput& in);

// The requests each replica serves when `concurrency` spreads over the deployment's replicas
// (gpus 0: one replica): ceil(concurrency / replicas), at least 1. The --max-num-seqs a launch
// line states.
std::uint64_t requests_per_replica(const PlanInput& in);

// Throws Error(source, "engine") when in.options holds another engine's options than in.engine's
// and they are not that engine's defaults: a reader wrote options the plan's engine never reads.
void check_engine_options(const PlanInput& in, const std::string& source);
// Throws Error(source, field) for Model Runner V2 under rules that predate it (vllm@0.9, @0.10).
void check_model_runner(const VllmOptions& o, const std::string& source, const std::string& field);
// in.engine = e. The held options stay where they are e's; another engine's are replaced by e's
// defaults.
void set_engine(PlanInput& in, Engine e);
// The same from "vllm", "vllm@0.9", "sglang", ... (parse_engine), with vLLM's rules.
void set_engine(PlanInput& in, const std::string& name, const std::string& source,
                const std::string& field);

// A measured KV budget a rank, bytes, in rank order: sets in.available_kv_bytes_per_rank and, as
// the one figure reports show, their least in in.available_kv_bytes.
void set_available_per_rank(PlanInput& in, std::vector<std::uint64_t> ranks);
// Throws Error(source, field) unless the per-rank list is empty or holds one figure for each of
// the in.tp x in.pp ranks. Checked where the layout is final (a deployment file, the planner).
void check_available_per_rank(const PlanInput& in, const std::string& source,
                              const std::string& field);

// SGLang's token pools on one rank (model_runner_kv_cache_mixin.py: profile_max_num_token,
// handle_max_mamba_cache, set_num_tokens_hybrid_swa, init_memory_pool).
//
// Worked example (tests/core/test_sglang_parity.cpp): 12 full + 12 sliding layers of 8 KV heads
// × 64 in bf16 (F = S = 2048 bytes per token and layer), rest = 4,915,200,000 bytes:
//   max_total = rest // (12·F + 12·S)                 = 100000 tokens
//   full      = int(100000 · 24 / (0.8 · 12 + 12))    = 111111 tokens
//   swa       = int(111111 · 0.8)                     = 88888 tokens (both down to the page)
// A hybrid recurrent model instead splits rest as Mamba : KV = 0.9 : 1 into whole state slots,
// the KV pool counting the full-attention layers only, and runs at most slots // 3 requests.
struct SglangPoolInput {
  std::uint64_t rest_bytes = 0;   // the KV budget of the rank (available_bytes)
  std::uint64_t full_cell = 0;    // bytes per token of one full-attention layer
  std::uint32_t full_layers = 0;  // layers in the full pool
  std::uint64_t swa_cell = 0;     // bytes per token of one sliding layer
  std::uint32_t swa_layers = 0;   // layers in the SWA pool (0: no SWA pool)
  std::uint64_t state_bytes = 0;  // mamba_cache_per_req: one sequence, every state layer
  std::uint32_t page_size = 1;    // tokens
  std::uint32_t swa_full_tokens_ratio_ppm = 800000;
  std::uint32_t mamba_full_memory_ratio_ppm = 900000;
  std::optional<std::uint64_t> max_mamba_cache_size{};
  std::optional<std::uint64_t> max_total_tokens{};
  std::uint64_t context_len = 0;  // the request table's columns; 0: no request limits computed
  std::optional<std::uint64_t> max_running_requests{};  // --max-running-requests (per DP group)
  // A hybrid Mamba model's state slots per running request (sglang_mamba_ratio), the DP-attention
  // groups --max-mamba-cache-size is divided over, --disable-radix-cache (with
  // --max-running-requests: that many slots), and the draft tokens a speculative step verifies
  // (--speculative-num-draft-tokens; 0: no speculative decoding), whose intermediate states each
  // running request keeps beside its slot.
  std::uint32_t mamba_ratio = 3;
  std::uint32_t attention_dp = 1;
  bool disable_radix_cache = false;
  std::uint32_t speculative_draft_tokens = 0;
  // ReplaySSM's window a slot (every state layer; 0: off): charged beside each slot's state, and
  // no intermediate states are kept.
  std::uint64_t replayssm_ring_bytes = 0;
  // SWAChunkCapPoolConfigurator: a hybrid SWA pool whose SWA pool is sized from this cap in tokens
  // (sglang_swa_chunk_cap), the full pool taking the rest of the budget; 0: the ratio split.
  std::uint64_t swa_cap_tokens = 0;
};
struct SglangPools {
  std::uint64_t full_tokens = 0;  // max_total_num_tokens (full_max_total_num_tokens)
  std::uint64_t swa_tokens = 0;   // swa_max_total_num_tokens, 0 without an SWA pool
  std::uint64_t mamba_slots = 0;  // max_mamba_cache_size, 0 without recurrent layers
  // (mamba_slots + 1) · state_bytes: the slots and the pool's padding slot
  std::uint64_t mamba_bytes = 0;
  // Speculative decoding's intermediate states: state_bytes · (the running requests the state
  // cache allows + 1) · draft tokens
  std::uint64_t mamba_intermediate_bytes = 0;
  std::uint64_t max_running = 0;  // Mamba: mamba_slots // mamba_ratio; 0 = no cap
  // With a context_len: the rows of the request table and the running requests the scheduler
  // admits, one number since KVCacheConfigurator.resolve_max_num_reqs (sglang_max_num_reqs over
  // the pool's final tokens, then at most the Mamba cap); 0 without one.
  std::uint64_t max_num_reqs = 0;
  std::uint64_t max_running_requests = 0;
  // profile_max_num_token's count before any cap (with SWA pools: the full pool's, before the cap)
  std::uint64_t profiled_tokens = 0;
  // A hybrid Mamba decode worker (--disaggregation-mode decode): the state slots its
  // HybridMambaDecodeReqToTokenPool adds beyond mamba_slots, max(mamba_slots, (max_num_reqs +
  // extra slots) · slots a request) − mamba_slots, and their bytes, allocated after the KV pool
  // was sized (disaggregation/decode.py@382343f860c7df8dc43ecefd7902c940d81c99a9).
  std::uint64_t decode_extra_state_slots = 0, decode_extra_state_bytes = 0;
};
// Throws Error(source) when the ratios are out of range.
SglangPools sglang_pools(const SglangPoolInput& in, const std::string& source = "arguments");

// SGLang's radix cache is off: --disable-radix-cache, or a decode worker of prefill / decode
// disaggregation without --disaggregation-decode-enable-radix-cache (pd_disaggregation_hook.py@
// 382343f860c7df8dc43ecefd7902c940d81c99a9 sets disable_radix_cache).
bool sglang_radix_cache_off(const SglangOptions& o);
// The request rows a decode worker pre-allocates for in-transfer requests (SglangOptions::
// disaggregation_decode_extra_slots, its default resolved over the attention DP groups as
// server_args.dp_size); 0 on any other worker.
std::uint64_t sglang_decode_extra_slots(const PlanInput& in);
// One side of a disaggregated deployment run by SGLang: its --disaggregation-mode `role`
// ("prefill" or "decode"); other engines' plans are left alone. A plan that states another
// mode than the side's role throws Error(source, field).
void sglang_set_disaggregation_role(PlanInput& p, const std::string& role,
                                    const std::string& source, const std::string& field);
// --disaggregation-mode's value (server_args.py choices: null, prefill, decode), or Error(source,
// field).
std::string parse_sglang_disaggregation_mode(const std::string& value, const std::string& source,
                                             const std::string& field);

// SGLang's KVCacheConfigurator.resolve_max_num_reqs (python/sglang/srt/mem_cache/
// kv_cache_configurator.py@382343f860c7df8dc43ecefd7902c940d81c99a9) before its Mamba cap:
// min(--max-running-requests (per DP group), else min(max(int(token_capacity / context_len ·
// 512), 2048), 4096), token_capacity // 2), token_capacity being the pool's final
// max_total_num_tokens (after --max-total-tokens and the page).
std::uint64_t sglang_max_num_reqs(std::optional<std::uint64_t> max_running_requests,
                                  std::uint64_t token_capacity, std::uint64_t context_len);
// KVCacheConfigurator._calculate_mamba_ratio (the same file): the state slots a running request
// of a hybrid Mamba model takes. 1 without the radix cache; else 3 (2 under the
// SGLANG_OPT_MAMBA_SKIP_DECODE_LOCK environment switch) plus the extra buffer's ping-pong slots:
// extra_buffer 2 with the overlap scheduler, 1 without; extra_buffer_lazy 1; no_buffer 0 (1 under
// the switch, so it stays 3). `strategy` is resolved (not "auto": sglang_mamba_strategy).
std::uint32_t sglang_mamba_ratio(const std::string& strategy, bool overlap_schedule,
                                 bool disable_radix_cache, bool skip_decode_lock = false);
// BaseLinearStateParams.replayssm_ring_bytes_per_req (python/sglang/srt/configs/mamba_utils.py
// @382343f860c7df8dc43ecefd7902c940d81c99a9), one gated-delta-net layer on one rank of TP `tp`:
// the raw values and keys of record_len tokens in the conv state's dtype, and an fp32 beta and
// gate a value head and token: hv · RL · v · c + hk · RL · k · c + hv · RL · 4 + hv · RL · 4,
// hv = value heads // tp, hk = key heads // tp (rounded up). KDA (RecurrentSpec::kda): the gate a
// key channel, hv · RL · k · 4, and the chunked d and k rings as large as the raw ones, k the
// head_dim. 0 for any other mixer.
std::uint64_t sglang_replayssm_ring_bytes(const RecurrentSpec& r, std::uint32_t tp,
                                          KvDtype conv_dtype, std::uint64_t record_len);
// _mamba_radix_cache_resolution (python/sglang/srt/arg_groups/overrides.py@382343f8): "auto"
// takes extra_buffer where the model's architecture supports it (supports_mamba_cache_extra_buffer:
// _MAMBA_EXTRA_BUFFER_ARCHS on the default triton linear-attention backend) and the overlap
// scheduler is on or pages hold more than one token; else no_buffer, which turns the overlap
// scheduler off. A model without its architecture name (a kvplan model file) counts as
// supporting it when its states are Mamba-2 or gated-delta-net, as every such architecture in
// the set does.
std::string sglang_mamba_strategy(const ModelSpec& model, const PlanInput& in);
// supports_mamba_cache_extra_buffer, as sglang_mamba_strategy reads it.
bool sglang_supports_extra_buffer(const ModelSpec& model);
// SGLang's overlap scheduler: on unless --disable-overlap-schedule, and off under pipeline stages
// (server_args.py _handle_pipeline_parallelism: "Pipeline parallelism is incompatible with
// overlap schedule"; Scheduler.enable_overlap = not disable_overlap_schedule, scheduler.py
// @0003215cf1464f44b389cd0b18d0b4c56f2a3da6). docs/simulate.md "SGLang's overlap scheduler".
bool sglang_overlap_schedule(const PlanInput& in);
// Whether the overlap scheduler runs for this model: sglang_overlap_schedule, unless the Mamba
// radix cache resolves "auto" to no_buffer, which sets disable_overlap_schedule itself
// (_mamba_radix_cache_resolution, python/sglang/srt/arg_groups/overrides.py@382343f8).
bool sglang_overlap_schedule(const ModelSpec& model, const PlanInput& in);
// Reads a --mamba-radix-cache-strategy value (auto, no_buffer, extra_buffer, extra_buffer_lazy);
// throws Error naming source and field otherwise.
std::string parse_sglang_mamba_strategy(const std::string& value, const std::string& source,
                                        const std::string& field);
// Whether SGLang builds an SWA pool for the model (is_hybrid_swa_model), from its layers and
// names: chunked layers (Llama 4), or a gpt-oss / MiMo-V2 / Step-3.5 / Gemma 4 model.
bool sglang_hybrid_swa_default(const ModelSpec& model);

// TensorRT-LLM's per-window pools (kvCacheManager.cpp calculateMaxNumBlocks; PyTorch
// resource_manager / VSWA utilities adjust_window_sizes_for_vswa):
struct TrtllmWindow {
  std::uint64_t window = 0;           // tokens (max_seq_len for full attention)
  std::uint32_t layers = 0;           // layers with this window on the rank
  std::uint64_t bytes_per_token = 0;  // Σ those layers' K+V bytes per token
  std::uint64_t primary_blocks = 0;   // its pool
};
// A hybrid Mamba model's state slots under TensorRT-LLM's cache managers, which take them out of
// the KV budget before the attention pool (_estimate_mamba_hybrid_cache_cost and
// MambaHybridCacheManagerV2, tensorrt_llm/_torch/pyexecutor/kv_cache/mamba_cache_manager.py;
// docs/deploy.md): one slot per resident sequence (max_batch_size · pp) plus the CUDA-graph
// padding dummy (and, with V2, one for attention DP), each the rank's Mamba layers' conv and
// temporal states of one sequence.
struct TrtllmStatePool {
  bool v2 = true;                  // MambaHybridCacheManagerV2, else CppMambaHybridCacheManager
  std::uint64_t live_slots = 0;    // max_batch_size · pp
  std::uint32_t dummy_slots = 0;   // reserved for padding (and attention-DP) dummies
  std::uint64_t slot_bytes = 0;    // one sequence's states over the rank's Mamba layers
  std::uint64_t bytes = 0;         // (live + dummy) · slot_bytes: the affine cost's intercept
  std::uint64_t budget_bytes = 0;  // the KV budget both come out of (the V2 quota)
  // V2: the typical request (avg_seq_len, else max_seq_len / 2) whose step sets the pools'
  // proportion, and whether that proportion, rather than the slots' floor, bounds the attention
  // pool (a budget above one typical step of every resident sequence).
  std::uint64_t typical_tokens = 0;
  bool proportional = false;
  std::uint64_t attention_bytes = 0;   // what the attention pool gets
  std::uint64_t attention_tokens = 0;  // its tokens (before a max_tokens cap)
  // Block reuse's snapshots (TrtllmOptions::enable_block_reuse): the fixed-offset rules a typical
  // request keeps (V2: one more state each), the periodic interval in force (0: none), the bytes
  // a token costs with the interval's share of a state (the C++ manager's slope) and the state
  // slots beyond the live and dummy ones (the C++ manager: its tokens / interval; V2: what the
  // state pool's share holds beyond them).
  std::uint32_t snapshot_rules = 0;
  std::uint64_t snapshot_interval = 0;
  std::uint64_t per_token_bytes = 0;
  std::uint64_t snapshot_slots = 0;
  // The budget holds less than the live and dummy slots and one attention block: the engine
  // stops at start-up ("The V2 Mamba GPU cache quota is too small ...").
  std::uint64_t shortfall_bytes = 0;
};
// TensorRT-LLM's hybrid Mamba snapshot rules (_mamba_snapshot_rule_counts, kv_cache/
// mamba_cache_manager/common.py@28295084972c5ab61ef010a050a18f53f5d72810): with block reuse on, the
// distinct offsets from a prompt's start no later than max_seq_len and from its end short of it;
// 0 with reuse off.
std::uint32_t trtllm_snapshot_rules(const TrtllmOptions& o, std::uint64_t max_seq_len);
// The same file's _estimate_mamba_hybrid_cache_cost: one rank's bytes for T tokens, slope · T +
// intercept, as the C++ manager (v2 false: one dummy slot, no fixed-offset rules, the unaligned
// interval's attention share in the slope) or V2 (its dummies, its rules' slots, one partial
// attention block a resident sequence once any snapshot can be taken) estimates it.
struct TrtllmHybridCost {
  std::uint64_t slope = 0, intercept = 0;
};
struct TrtllmHybridCostInput {
  bool v2 = true;
  std::uint64_t resident = 0;         // max_batch_size · pp
  std::uint32_t dummies = 1;          // the manager's reserved dummy slots
  std::uint64_t state_bytes = 0;      // one sequence's states over the rank's Mamba layers
  std::uint64_t attention_bytes = 0;  // the rank's attention layers' bytes a token
  std::uint32_t tokens_per_block = 32;
  std::uint64_t max_seq_len = 0;
};
TrtllmHybridCost trtllm_hybrid_cost(const TrtllmOptions& o, const TrtllmHybridCostInput& in);
// The memory's share of each window (ascending windows): equal, or (older builds,
// BlockManager::calculateWindowSizeToShare) ∝ window × bytes_per_token / Σ bytes_per_token.
std::vector<double> trtllm_window_shares(const std::vector<TrtllmWindow>& windows,
                                         TrtllmOptions::WindowShares rule);
// Fills primary_blocks: ceil(uint64(memory · share / bytes_per_token) / tokens_per_block);
// max_tokens caps the tokens of a single window only.
void trtllm_window_blocks(std::vector<TrtllmWindow>& windows, std::uint64_t memory,
                          std::uint32_t tokens_per_block, TrtllmOptions::WindowShares rule,
                          std::optional<std::uint64_t> max_tokens);
// adjust_window_sizes_for_vswa: when one sequence of every window does not fit `memory`, the
// windows shrink (ascending, each taking what the remaining layers can hold) so that one does;
// returns the new window of each input window, in order.
std::vector<std::uint64_t> trtllm_adjust_windows(const std::vector<TrtllmWindow>& windows,
                                                 std::uint64_t memory,
                                                 std::optional<std::uint64_t> max_tokens);
// Blocks one sequence of n tokens holds in a window's pool (calculateMaxBlockRequirementsPerBeam
// plus kSWAExtraBlock = 1 once the sequence outgrows the window).
std::uint64_t trtllm_blocks_per_sequence(std::uint64_t n, std::uint64_t window,
                                         std::uint32_t tokens_per_block);

// One GPU's memory, as the engine splits it.
struct MemoryBudget {
  std::uint64_t total_bytes = 0;      // device memory
  std::uint32_t fraction_ppm = 0;     // utilization / mem_fraction_static / free fraction
  std::uint64_t requested_bytes = 0;  // vLLM/SGLang: floor(total · fraction)
  // ceil(checkpoint bytes / (tp · pp)); a quantized checkpoint's bytes as stored, scales included
  std::uint64_t weight_bytes = 0;
  std::uint64_t reserve_bytes = 0;    // activations, CUDA graphs, runtime
  std::uint64_t available_bytes = 0;  // "Available KV cache memory", 0 when nothing is left
  std::uint64_t shortfall_bytes = 0;  // > 0 when weights + reserve exceed the budget
  bool measured = false;              // available_bytes was given, not modelled
  // The pool's bytes when the engine was told them (TensorRT-LLM max_gpu_total_bytes): then
  // available_bytes, and shortfall_bytes is what weights + reserve + this pool exceed the GPU by.
  std::uint64_t fixed_pool_bytes = 0;
  // The terms of the reserve, of the rank with the smallest budget (its pipeline stage).
  MemoryTerms terms;
  std::uint32_t stage = 0;  // that rank's pipeline stage
  // What must fit beside the budget (terms.outside_bytes()) beyond total − requested: > 0 means
  // the engine fails to start after sizing its KV cache (CUDA graphs, the start-up free-memory
  // check), however large the cache.
  std::uint64_t outside_shortfall_bytes = 0;
  // The terms of the stage that needs the most beside the budget (the last stage samples, so
  // under vLLM Model Runner V2 it holds the sampler state and warm-up): what
  // outside_shortfall_bytes is measured on.
  MemoryTerms outside_terms;
};

// SGLang: one device pool of a stage as HiCache mirrors it (python/sglang/srt/mem_cache/
// hybrid_cache/hybrid_pool_assembler.py@382343f860c7df8dc43ecefd7902c940d81c99a9): its size in
// tokens (the Mamba pool: state slots), one token's (slot's) bytes as its host pool stores them,
// its page, and the bytes the engine's get_kv_size_bytes reports for it: the full and SWA pools
// size + page rows of every target layer (memory_pool.py MHATokenToKVPool), the Mamba pool its
// slots, the padding slot and the speculative intermediate states (MambaPool mem_usage_bytes).
struct SglangDevicePool {
  std::string name;  // "full", "swa", "mamba"
  std::uint64_t size = 0;
  std::uint64_t unit_bytes = 0;
  std::uint32_t page = 1;
  std::uint64_t device_bytes = 0;
};

// One pipeline stage's KV pool (every TP rank of a stage is identical).
struct StageCapacity {
  std::uint32_t stage = 0;
  std::uint32_t cached_layers = 0;  // layers holding a KV cache on this stage
  std::uint32_t state_layers = 0;   // layers holding a recurrent state on this stage
  std::uint32_t group_size = 0;  // vLLM: layers per KV-cache group (num_layers of get_num_blocks)
  std::uint32_t kv_cache_groups = 0;  // vLLM: groups sharing the block pool
  // vLLM's GLM-5.3-Flash layout: the recurrent groups' pages live in the MLA layers' slots
  // (docs/models.md), so a block costs group_size MLA and indexer pages alone.
  bool shares_slots = false;
  std::uint64_t num_blocks = 0;          // available // page // group_size
  std::uint64_t blocks_per_request = 0;  // pages one request at `context` takes from the pool
  std::uint64_t bytes_per_request = 0;   // KV bytes of one request at `context` on this rank
  std::uint64_t startup_bytes = 0;  // vLLM check_enough_kv_cache_memory: Σ layers pages · page
  // TensorRT-LLM: one pool per attention window on this stage, ascending, as the engine builds
  // them (after the VSWA adjustment); empty for other engines. trtllm_requested[k]: the windows
  // the configuration asked for (max_attention_window, capped at max_seq_len) that the PyTorch
  // backend's adjustment (adjust_window_sizes_for_vswa, tensorrt_llm/_torch/pyexecutor/
  // resource_manager.py) settled on pool k; {its window} where none moved.
  std::vector<TrtllmWindow> trtllm_pools;
  std::vector<std::vector<std::uint64_t>> trtllm_requested;
  std::optional<TrtllmStatePool> trtllm_states;  // a hybrid Mamba model's state slots
  // SGLang: the token count its profile gives this stage (what sizes the request table), the
  // table's rows (max_num_reqs) and the requests its scheduler runs at once
  // (max_running_requests: SglangPools); 0 for the other engines.
  std::uint64_t sglang_profiled_tokens = 0, sglang_max_num_reqs = 0, sglang_max_running = 0;
  // A hybrid Mamba decode worker's state slots beyond the pool and their bytes (SglangPools).
  std::uint64_t sglang_decode_extra_state_slots = 0, sglang_decode_extra_state_bytes = 0;
  // SGLang: the stage's pools as HiCache splits --hicache-size over them (the full pool first);
  // empty for the other engines.
  std::vector<SglangDevicePool> sglang_device_pools;
};

// A hybrid TensorRT-LLM plan's state pool that binds (TrtllmStatePool): a stage's that does not
// start, else the one whose slots take the most; null without one.
const TrtllmStatePool* binding_state_pool(const std::vector<StageCapacity>& stages);

struct Capacity {
  Engine engine = Engine::vllm;
  std::uint32_t block_size = 0;
  std::uint32_t replicas = 1;
  MemoryBudget memory;
  bool paged = true;  // false for kivi: no uniform page, byte-exact pool instead
  // One block of one layer on one rank (paged only), after vLLM's page unification; for layers
  // of one kind that differ only in geometry (UniformTypeKVCacheSpecs), one block of all of them.
  std::uint64_t page_bytes = 0;
  std::vector<StageCapacity> stages;  // one per pipeline stage
  // The engine's figures for one replica (the worst stage; vLLM takes the minimum over ranks):
  std::uint64_t num_gpu_blocks = 0;   // paged only
  std::uint64_t kv_cache_tokens = 0;  // "GPU KV cache size: N tokens"
  std::uint64_t blocks_per_request = 0;
  std::uint64_t bytes_per_request = 0;
  // "Maximum concurrency for `context` tokens per request: X.XXx" = numerator / denominator.
  std::uint64_t concurrency_numerator = 0;
  std::uint64_t concurrency_denominator = 1;
  double max_concurrency = 0;                  // numerator / denominator, one replica
  std::uint64_t max_requests_per_replica = 0;  // floor of the above
  std::uint64_t max_requests = 0;              // · replicas
  bool fits_one_request = false;               // vLLM would start (one request at `context` fits)
  // A model without a KV cache (ModelSpec::attention_free): num_gpu_blocks is the engine's one
  // block, no bytes or blocks per request, and max_num_seqs alone bounds the requests.
  bool attention_free = false;
  // Hybrids: one layer's recurrent state of one sequence on one rank, before any page padding.
  std::uint64_t state_bytes_per_layer = 0;
  std::uint32_t state_layers = 0;             // over the whole model
  std::uint64_t estimated_max_model_len = 0;  // longest single request that fits (any engine)
};

// The memory budget of one GPU (per rank). Throws Error naming `source` on bad input (no GPU
// memory, TP/PP that do not divide).
MemoryBudget memory_budget(const ModelSpec& model, const PlanInput& in,
                           const std::string& source = "arguments");

// Where what the fraction leaves out is short (outside_shortfall_bytes > 0): the largest memory
// fraction, in hundredths and below m.fraction_ppm, that leaves room for outside_terms
// (1 − their bytes / total, rounded down). nullopt when nothing is short or no fraction is left.
std::optional<std::uint32_t> fraction_that_starts(const MemoryBudget& m);

// The formula's input for `batch` of a plan's requests at `context` tokens in pages of
// `block_size`: its format, policy, TP and draft layers, and the recurrent state's dtypes as its
// engine stores them (EngineRules::default_ssm_state_dtype where the plan sets none).
KvCostInput plan_cost_input(const ModelSpec& model, const PlanInput& in, std::uint64_t context,
                            std::uint64_t batch, std::uint32_t block_size);

// What the engine allocates beside its KV pool once the pool is sized (SGLang's req_to_token:
// EngineRules::request_table), for the stage whose profile gives the most tokens (the largest
// table); none for the engines without one.
std::optional<MemoryTerm> request_table_of(const Capacity& c, const PlanInput& in);

// The KV capacity of the deployment at in.context. Validates the input (throws Error).
Capacity plan_capacity(const ModelSpec& model, const PlanInput& in,
                       const std::string& source = "arguments");

// Longest context (tokens) at which `concurrency` requests fit in all replicas, capped at
// `cap` tokens (pass the model's max_context, or 0 for 2^40). 0 when not even one token fits.
std::uint64_t max_context_at_concurrency(const ModelSpec& model, const PlanInput& in,
                                         std::uint64_t concurrency, std::uint64_t cap,
                                         const std::string& source = "arguments");

// True when (tp) is a valid tensor-parallel size for the model: it divides the attention heads
// and either divides the KV heads or is a multiple of them (replication).
bool valid_tp(const ModelSpec& model, std::uint32_t tp);

// One row of the order table: the smallest order of one GPU type that holds
// in.concurrency requests of in.context tokens.
struct OrderOption {
  GpuSpec gpu;
  bool feasible = false;
  std::uint32_t gpus = 0;  // in all
  std::uint32_t tp = 0, pp = 0, replicas = 0;
  std::uint32_t nodes = 0;         // nodes_for(gpu, tp, pp · replicas); 0 = gpus_per_node unknown
  std::uint64_t max_requests = 0;  // what that order holds at in.context
  double cost_per_hour = 0;        // gpus · price rounded to cents, 0 when the price is unknown
  std::string reason;              // why not feasible
};
// The fewest replicas of in's layout (in.gpus = replicas × tp × pp, run as one server) that hold
// `want` requests, in [1, hi]; 0 when hi replicas do not. Holding is monotone in the replicas (with
// fewer requests each, a replica holds as many or more; vLLM's data-parallel ranks of an MoE model
// also hold fewer of its experts each: EngineRules::data_parallel_shares_moe_layers), so it
// bisects.
std::uint64_t fewest_replicas(const ModelSpec& model, const PlanInput& in, std::uint64_t want,
                              std::uint64_t hi, const std::string& source);
// A new layout's replicas run as one server's data-parallel ranks, as kvplan's launch lines run
// them (VllmOptions::data_parallel_size 0), whatever server size `in` stated; another engine's
// options are left as they are.
void run_as_one_server(PlanInput& in);
// True where more replicas of one layout hold more than that many times one replica's requests
// because they share the model's routed experts (vLLM's data-parallel ranks of an MoE model).
bool replicas_share_experts(const ModelSpec& model, const PlanInput& in);

// Searches tp in {1, 2, 4, 8} (valid for the model, and at most max_tp_span(gpu): a TP group
// stays inside a node unless the NVLink domain spans nodes), pp in 1..16 and data-parallel
// replicas (stages and replicas may go across nodes), minimizing the GPU count, then pp, then
// tp. `max_gpus` bounds the search.
OrderOption min_gpus(const ModelSpec& model, const PlanInput& in, const GpuSpec& gpu,
                     std::uint32_t max_gpus = 1024, const std::string& source = "arguments");
// All GPU types, feasible first; priced rows first by cost when any feasible row has a price;
// then by GPU count, then id.
std::vector<OrderOption> order_table(const ModelSpec& model, const PlanInput& in,
                                     const std::vector<GpuSpec>& gpus,
                                     const std::string& source = "arguments");

// One row of the what-if table: the same deployment with another format or policy.
struct WhatIf {
  std::string format, policy;
  bool engine_native = false;           // the engine implements this format and policy
  std::uint64_t bytes_per_request = 0;  // at in.context, per rank
  std::uint64_t max_requests = 0;       // at in.context, all replicas
  std::uint64_t max_context = 0;        // at in.concurrency (capped at the model's max_context)
  std::uint64_t kv_cache_tokens = 0;
  std::uint32_t min_gpus = 0;  // of the same GPU type for the SLO, 0 = none found
};
// Formats fp16, fp8, int8, kivi-4, kivi-2 under full attention, then fp16 under
// streaming:sink=4,window=4092, h2o:keep=0.2,recent=0.1 and snapkv:budget=2048; plus the
// input's own format/policy when it is not among them.
std::vector<WhatIf> what_if(const ModelSpec& model, const PlanInput& in,
                            const std::optional<GpuSpec>& gpu,
                            const std::string& source = "arguments");

// True when `e` implements the format and policy natively (vLLM/SGLang/TRT-LLM: fp16, bf16,
// fp32, fp8 variants under full attention; int8 on TensorRT-LLM).
bool engine_supports(Engine e, const KvFormat& f, const RetentionPolicy& p);

// Everything `kvplan plan` prints.
struct PlanReport {
  ModelSpec model;
  std::optional<GpuSpec> gpu;  // absent with only --gpu-memory-gib / --available-kv-gib
  PlanInput input;
  Capacity capacity;               // at input.context
  std::uint64_t max_context = 0;   // at input.concurrency, capped at the model's max_context
  std::vector<OrderOption> order;  // empty unless requested
  std::vector<WhatIf> what_if;     // empty unless requested
  std::optional<std::string> vllm, sglang;  // engine commands that realize the plan
  std::string vllm_why, sglang_why;         // why not, when absent
};
PlanReport make_plan_report(const ModelSpec& model, const std::optional<GpuSpec>& gpu,
                            const PlanInput& input, const std::vector<GpuSpec>& order_gpus,
                            bool with_what_if, const std::string& source = "arguments");
// table, json, md. JSON keys: model, gpu, engine, kv_dtype, policy, tp, pp, gpus, replicas,
// block_size, context, concurrency, memory{...}, page_bytes, num_gpu_blocks, kv_cache_tokens,
// blocks_per_request, bytes_per_request, max_concurrency (vLLM's ratio), max_requests,
// fits_one_request, estimated_max_model_len, max_context, stages[], order[], what_if[],
// engine_flags{vllm, sglang}.
std::string render(const PlanReport& r, OutputFormat f);

}  // namespace kvplan
