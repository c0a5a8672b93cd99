// The KV-cache formula with its per-term breakdown.
//
// Per request: Σ over layers ℓ of the stream bytes of retained_ℓ(n) tokens for K and V (or the
// MLA latent), per KV head on this rank; times B requests. For a plain transformer, unpaged and
// unevicted, that is 2 · L · n · H_kv · d_h · b · B.
//
// Worked example (tests/core/test_formula.cpp): llama-3.1-8b, fp16, n = 8192, B = 1:
//   bytes_per_token   = 2 · 32 · 8 · 128 · 2       = 131072
//   bytes_per_request = 131072 · 8192              = 1073741824 (1 GiB)
//
// Hybrid models split bytes_per_request three ways: the layers that grow with n (full, MLA and
// the DeepSeek-V3.2 indexer: bytes_per_token is their marginal rate), the capped layers (sliding
// windows and Llama 4's chunks: min(n, W) tokens), and the fixed recurrent state of each sequence
// (Mamba, Gated DeltaNet, lightning attention), independent of n.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kvplan/kv_format.hpp"
#include "kvplan/model.hpp"
#include "kvplan/policy.hpp"

namespace kvplan {

struct KvCostInput {
  std::uint64_t context = 0;  // n: tokens in each sequence
  std::uint64_t batch = 1;    // B: sequences in flight
  KvFormat format{};
  RetentionPolicy policy{};
  std::uint32_t block_size = 1;  // tokens per cache block; 1 = unpaged
  std::uint32_t tp = 1;          // tensor-parallel ranks; bytes are per rank
  // Speculative layers holding a cache: MTP layers (num_nextn_predict_layers) or EAGLE draft
  // layers, with the model's own attention geometry (MLA for MLA models). 0 without
  // speculative decoding.
  std::uint32_t draft_layers = 0;
  std::optional<std::uint64_t> prefill{};  // prompt length (SnapKV); defaults to context
  // Recurrent state dtypes (vLLM --mamba-cache-dtype / --mamba-ssm-cache-dtype); the model's
  // defaults when absent (state_dtypes).
  std::optional<KvDtype> conv_state_dtype{}, ssm_state_dtype{};
};

// The (conv, temporal) dtypes a recurrent layer stores, as vLLM resolves them: the conv state
// from conv (--mamba-cache-dtype) or the model's; the temporal state from ssm
// (--mamba-ssm-cache-dtype, SGLang --mamba-ssm-dtype, TensorRT-LLM mamba_ssm_cache_dtype), else
// from conv unless the model pins it (RecurrentSpec::ssm_dtype_pinned), else the model's. A
// lightning layer's single state follows conv when given.
std::pair<KvDtype, KvDtype> state_dtypes(const RecurrentSpec& r, std::optional<KvDtype> conv,
                                         std::optional<KvDtype> ssm);

// What a group of layers stores: attention K/V (or the MLA latent), the DeepSeek-V3.2 indexer
// keys, or a recurrent state.
enum class GroupRole { attention, indexer, state };

// One group of layers with the same cost (e.g. Gemma-2's sliding and global layers).
struct LayerGroupCost {
  GroupRole role = GroupRole::attention;
  AttentionKind kind = AttentionKind::full;     // attention and indexer groups
  std::uint64_t window = 0;                     // sliding / chunked layers
  std::uint32_t layers = 0;                     // L of this group
  std::uint64_t retained = 0;                   // tokens kept per layer per head
  std::uint32_t kv_heads = 0;                   // H_kv per rank (1 for MLA)
  std::uint32_t k_width = 0;                    // d_k (MLA: latent width)
  std::uint32_t v_width = 0;                    // d_v (0 for MLA)
  std::uint64_t bytes_per_layer = 0;            // one request, one layer, all heads on this rank
  std::uint64_t bytes = 0;                      // bytes_per_layer · layers
  std::uint64_t conv_bytes = 0, ssm_bytes = 0;  // state groups: one layer's two parts
};

struct KvCost {
  std::vector<LayerGroupCost> groups;
  std::uint32_t cached_layers = 0;       // L
  std::uint32_t kv_heads_per_rank = 0;   // H_kv on one rank (replicated when tp > H_kv)
  double nominal_bytes_per_element = 0;  // b
  std::uint32_t state_layers = 0;        // layers holding a recurrent state
  // Marginal bytes of one more retained token in every layer whose cache grows with n (full, MLA,
  // indexer), unpaged, metadata included, kivi's fp16 residual not included (llama-3.1-8b fp16:
  // 131072). Sliding and chunked layers are in capped_bytes instead.
  std::uint64_t bytes_per_token = 0;
  std::uint64_t growing_bytes = 0;            // full, MLA and indexer layers at n, one sequence
  std::uint64_t capped_bytes = 0;             // sliding and chunked layers at n, one sequence
  std::uint64_t state_bytes_per_request = 0;  // recurrent state of one sequence
  std::uint64_t bytes_per_request = 0;  // exact, one sequence of n tokens, paged, evicted: the sum
  std::uint64_t total_bytes = 0;        // bytes_per_request · B
};

// The cache shape of a model on one rank, computed once and reused by solvers that evaluate the
// formula many times (binary searches, sweeps): layers grouped by (kind, window), heads and widths.
struct KvLayout {
  struct Group {
    AttentionKind kind = AttentionKind::full;
    std::uint64_t window = 0;
    std::uint32_t layers = 0;
    std::uint32_t kv_heads = 0;  // per rank: the layers' own (LayerSpec::kv_heads) or the model's
    std::uint32_t k_width = 0;
    std::uint32_t v_width = 0;
  };
  std::vector<Group> groups;   // attention groups (kind != none), one per kind, window, geometry
  std::uint32_t kv_heads = 0;  // per rank
  std::uint32_t k_width = 0;   // MLA: latent width
  std::uint32_t v_width = 0;   // 0 for MLA
  bool mla = false;
  std::uint32_t indexer_layers = 0;  // DeepSeek-V3.2: MLA layers that also cache indexer keys
  std::uint32_t index_head_dim = 0;
  std::uint32_t index_kpool = 0;   // ModelSpec::index_kpool: one key per index_kpool tokens
  bool index_tail = false;         // ModelSpec::index_tail: a kpool tail beside each indexer
  std::uint32_t state_layers = 0;  // layers holding a recurrent state
  RecurrentState state;            // one layer's state, one sequence, on this rank
};

// Bytes per token of one layer's DeepSeek-V3.2 indexer key cache: index_head_dim fp8 values and
// one fp32 scale per 128 (vLLM DeepseekV32IndexerCache: 128 + 4 = 132 bytes).
std::uint64_t indexer_bytes_per_token(std::uint32_t index_head_dim);
// Bytes of one layer's kpool tail (ModelSpec::index_tail): the incomplete pool's raw keys,
// index_kpool tokens of 2 · index_head_dim bf16 values (KpoolTailSpec(block_size=index_kpool,
// num_kv_heads=2, head_size=index_head_dim, head_size_v=0, bfloat16): 2,048 bytes for kpool 4
// and head 128, tests/v1/core/test_kv_cache_utils.py@002f10e0cfa1373a19a0d2756598a34b700d20e5).
std::uint64_t kpool_tail_bytes(std::uint32_t index_kpool, std::uint32_t index_head_dim);
// One indexer layer's bytes for `tokens` tokens (rounded to blocks by the caller): its keys
// (indexer_keys) of indexer_bytes_per_token each, plus the kpool tail where index_tail.
std::uint64_t indexer_bytes(std::uint32_t index_head_dim, std::uint32_t index_kpool,
                            bool index_tail, std::uint64_t tokens);

// Bytes per token of one layer's fp8 sparse-attention (DSA) MLA latent, as vLLM's fp8_ds_mla and
// SGLang's DSA pool lay it out: kv_lora_rank fp8 values, one fp32 scale per 128 of them and the
// qk_rope_head_dim RoPE values left in bf16 (DeepSeek-V3.2: 512 + 4 · 4 + 2 · 64 = 656;
// vllm/v1/kv_cache_interface.py@bc8282e61df21719b12b391c3a976b1c900dfbb4 real_page_size_bytes).
std::uint64_t dsa_fp8_latent_bytes_per_token(std::uint32_t kv_lora_rank,
                                             std::uint32_t qk_rope_head_dim);

// Throws Error on a TP that does not fit the heads. draft_layers: speculative layers holding a
// cache (KvCostInput::draft_layers).
KvLayout make_layout(const ModelSpec& model, std::uint32_t tp = 1, std::uint32_t draft_layers = 0,
                     const std::string& source = "arguments",
                     std::optional<KvDtype> conv_state_dtype = std::nullopt,
                     std::optional<KvDtype> ssm_state_dtype = std::nullopt);
// Validates a format and block size against a layout (kivi groups, MLA); throws Error.
void validate_format(const KvLayout& layout, const KvFormat& format, std::uint32_t block_size,
                     const std::string& source = "arguments");
// Exact bytes of one request of n tokens on one rank (attention, indexer and recurrent state);
// no allocation. Assumes validate_format.
std::uint64_t request_bytes(const KvLayout& layout, const KvFormat& format,
                            const RetentionPolicy& policy, std::uint64_t n,
                            std::uint32_t block_size,
                            std::optional<std::uint64_t> prefill = std::nullopt);

// Validates the input against the model (throws Error naming `source` and the field) and
// computes the breakdown with checked arithmetic.
KvCost kv_cost(const ModelSpec& model, const KvCostInput& input,
               const std::string& source = "arguments");

// KV heads each rank holds under tensor parallelism tp: H_kv / tp when tp divides H_kv,
// 1 (replicated) when H_kv divides tp; MLA: 1. Throws Error when neither divides.
std::uint32_t kv_heads_per_rank(const ModelSpec& model, std::uint32_t tp,
                                const std::string& source = "--tp");
// The same for one layer: its own KV heads (LayerSpec::kv_heads) where it has them.
std::uint32_t kv_heads_per_rank(const ModelSpec& model, const LayerSpec& layer, std::uint32_t tp,
                                const std::string& source = "--tp");

}  // namespace kvplan
