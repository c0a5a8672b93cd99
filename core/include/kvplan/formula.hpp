// The KV-cache formula with its per-term breakdown.
//
// Per request: Σ over layers ℓ of the stream bytes of retained_ℓ(n) tokens for K and V (or the
// MLA latent), per KV head on this rank; times B requests. For a plain transformer, unpaged and
// unevicted, that is 2 · L · n · H_kv · d_h · b · B.
//
// Worked example (tests/core/test_formula.cpp): llama-3.1-8b, fp16, n = 8192, B = 1:
//   bytes_per_token   = 2 · 32 · 8 · 128 · 2       = 131072
//   bytes_per_request = 131072 · 8192              = 1073741824 (1 GiB)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kvplan/kv_format.hpp"
#include "kvplan/model.hpp"
#include "kvplan/policy.hpp"

namespace kvplan {

struct KvCostInput {
  std::uint64_t context = 0;              // n: tokens in each sequence
  std::uint64_t batch = 1;                // B: sequences in flight
  KvFormat format{};
  RetentionPolicy policy{};
  std::uint32_t block_size = 1;           // tokens per cache block; 1 = unpaged
  std::uint32_t tp = 1;                   // tensor-parallel ranks; bytes are per rank
  bool include_draft_layers = true;
  std::optional<std::uint64_t> prefill{};  // prompt length (SnapKV); defaults to context
};

// One group of layers with the same cost (e.g. Gemma-2's sliding and global layers).
struct LayerGroupCost {
  AttentionKind kind = AttentionKind::full;
  std::uint64_t window = 0;          // sliding layers
  std::uint32_t layers = 0;          // L of this group
  std::uint64_t retained = 0;        // tokens kept per layer per head
  std::uint32_t kv_heads = 0;        // H_kv per rank (1 for MLA)
  std::uint32_t k_width = 0;         // d_k (MLA: latent width)
  std::uint32_t v_width = 0;         // d_v (0 for MLA)
  std::uint64_t bytes_per_layer = 0; // one request, one layer, all heads on this rank
  std::uint64_t bytes = 0;           // bytes_per_layer · layers
};

struct KvCost {
  std::vector<LayerGroupCost> groups;
  std::uint32_t cached_layers = 0;       // L
  std::uint32_t kv_heads_per_rank = 0;   // H_kv on one rank (replicated when tp > H_kv)
  double nominal_bytes_per_element = 0;  // b
  // Marginal bytes of one more retained token in every cached layer, unpaged, metadata included,
  // kivi's fp16 residual not included (llama-3.1-8b fp16: 131072).
  std::uint64_t bytes_per_token = 0;
  std::uint64_t bytes_per_request = 0;   // exact, one sequence of n tokens, paged, evicted
  std::uint64_t total_bytes = 0;         // bytes_per_request · B
};

// The cache shape of a model on one rank, computed once and reused by solvers that evaluate the
// formula many times (binary searches, sweeps): layers grouped by (kind, window), heads and widths.
struct KvLayout {
  struct Group {
    AttentionKind kind = AttentionKind::full;
    std::uint64_t window = 0;
    std::uint32_t layers = 0;
  };
  std::vector<Group> groups;
  std::uint32_t kv_heads = 0;  // per rank
  std::uint32_t k_width = 0;   // MLA: latent width
  std::uint32_t v_width = 0;   // 0 for MLA
  bool mla = false;
};

// Throws Error on a TP that does not fit the heads.
KvLayout make_layout(const ModelSpec& model, std::uint32_t tp = 1, bool include_draft_layers = true,
                     const std::string& source = "arguments");
// Validates a format and block size against a layout (kivi groups, MLA); throws Error.
void validate_format(const KvLayout& layout, const KvFormat& format, std::uint32_t block_size,
                     const std::string& source = "arguments");
// Exact bytes of one request of n tokens on one rank; no allocation. Assumes validate_format.
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

}  // namespace kvplan
