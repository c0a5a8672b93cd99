// The paged KV block pool: per layer, K and V of every KV head in a KvFormat, in fixed-size
// blocks of `block_size` tokens handed out from a pool, with a block table per sequence and
// layer. Its bytes_held() is computed from the blocks it really holds, and equals core's
// kvplan::kv_cost / stream_bytes prediction to the byte (tests/kernels/test_pool_bytes.cpp).
//
// Block layouts (S = block_size, H = num_kv_heads, d = head_dim; "record" as in quantize.hpp):
//   plain / int8, K and V:  [S slots, H, record]   record = d elements, or d + 4 bytes (int8)
//   kivi K quantized:       [U/G key groups, H, d channels, P]   U = lcm(S, G) tokens per block
//   kivi K residual (fp16): [S, H, d]   the newest n mod R keys, quantized R at a time
//   kivi V quantized:       [S, H, d/G, P]
//   kivi V window (fp16):   [S, H, d]   a ring of C = ceil(R/S)·S slots; token t in slot t mod C
// So one (layer, head, K|V) stream costs exactly kv_format.hpp's formula, and a layer costs H
// times that.
//
// Slots and positions: slot i of head h is the i-th retained token of that head (ascending
// original position). positions(seq, layer, h)[i] is its original position. Appends take
// increasing positions; compaction keeps a sorted subset per head (the same count for every head)
// and moves survivors down so freed blocks return to the pool.
//
// KIVI and eviction: KIVI groups keys across G tokens, so a quantized key group cannot lose one
// token without re-quantizing its neighbours; compact() on a KIVI pool returns invalid_argument.
// SnapKV with KIVI works by selecting on the full-precision prefill first and appending only the
// kept tokens (append with per-head positions), which is what SnapKV does anyway (it compresses
// once, before decoding).
//
// Replay, one decode step of one layer (the simulator's loop):
//   PagedKvPool pool;
//   Status s = pool.init({.format = fmt, .num_layers = L, .num_kv_heads = Hkv, .head_dim = d,
//                         .block_size = 16});
//   std::uint32_t seq = pool.add_sequence();
//   pool.append(seq, layer, k_rot /*[Hkv, d] post-RoPE*/, v /*[Hkv, d]*/, pos);
//   decode_attention(DecodeAttentionParams{.kv = pool.view(seq, layer), ...});   // attention.hpp
//   h2o_accumulate(...); h2o_select(..., &keep); pool.compact(seq, layer, keep);  // eviction.hpp
//   std::uint64_t bytes = pool.bytes_held(seq);
// A view is valid until the next call that appends, compacts or frees.
#pragma once

#include <cstdint>
#include <vector>

#include "kvplan/kernels/common.hpp"
#include "kvplan/kernels/quantize.hpp"
#include "kvplan/kv_format.hpp"

namespace kvplan::kernels {

// A read-only view of one (sequence, layer) of a paged cache: the parameter struct attention
// kernels take (FlashInfer's paged_kv_t). Pointers are host pointers for the CPU backends.
struct PagedKvView {
  KvFormat format{};
  std::uint32_t block_size = 1;            // S, tokens
  std::uint32_t num_kv_heads = 0;          // H
  std::uint32_t head_dim = 0;              // d
  std::uint32_t num_tokens = 0;            // n, retained tokens of every head
  float k_scale = 1.f, v_scale = 1.f;      // fp8 per-tensor scales
  const std::uint8_t* k_base = nullptr;    // K main arena; block b at k_base + b·k_block_bytes
  const std::uint32_t* k_table = nullptr;  // [ceil(n_quant_or_all / tokens_per_block)]
  std::uint64_t k_block_bytes = 0;
  const std::uint8_t* v_base = nullptr;
  const std::uint32_t* v_table = nullptr;
  std::uint64_t v_block_bytes = 0;
  const std::uint8_t* kr_base = nullptr;  // kivi key residual (fp16)
  const std::uint32_t* kr_table = nullptr;
  std::uint64_t kr_block_bytes = 0;
  const std::uint8_t* vw_base = nullptr;  // kivi value window ring (fp16)
  const std::uint32_t* vw_table = nullptr;
  std::uint64_t vw_block_bytes = 0;
  const std::int32_t* positions = nullptr;  // [H, positions_stride], first n of each row used
  std::uint32_t positions_stride = 0;
};

// Builds a view of a dense fp32 cache laid out [n, H, d] (a trace's layers.{l}.k / .v after RoPE):
// one block of n tokens. `table` must point at a uint32 holding 0 and outlive the view.
PagedKvView dense_view(const float* k, const float* v, std::uint32_t n, std::uint32_t heads,
                       std::uint32_t head_dim, const std::int32_t* positions /*[H, n]*/,
                       const std::uint32_t* table);

// ---- index math, shared by CPU and CUDA (STYLE.md rule 2) ----

KVPLAN_HOST_DEVICE bool is_kivi(const PagedKvView& v) { return v.format.dtype == KvDtype::kivi; }
// Tokens of a KIVI cache whose keys are quantized: floor(n / R)·R.
KVPLAN_HOST_DEVICE std::uint32_t kivi_key_quant_tokens(std::uint32_t n, std::uint32_t residual) {
  return n / residual * residual;
}
// Tokens of a KIVI cache whose values are quantized: max(0, n - R).
KVPLAN_HOST_DEVICE std::uint32_t kivi_value_quant_tokens(std::uint32_t n, std::uint32_t residual) {
  return n > residual ? n - residual : 0;
}
// Key tokens per quantized KIVI key block: lcm(S, G).
KVPLAN_HOST_DEVICE std::uint32_t kivi_key_block_tokens(std::uint32_t block_size,
                                                       std::uint32_t group) {
  return static_cast<std::uint32_t>(lcm_u64(block_size, group));
}
// Slots of the KIVI value window ring: ceil(R/S)·S.
KVPLAN_HOST_DEVICE std::uint32_t kivi_window_slots(std::uint32_t block_size,
                                                   std::uint32_t residual) {
  return static_cast<std::uint32_t>(ceil_div(residual, block_size) * block_size);
}
// Bytes of one slot record (one token, one head) of a plain or int8 cache.
KVPLAN_HOST_DEVICE std::uint32_t slot_record_bytes(const KvFormat& f, std::uint32_t d) {
  return f.dtype == KvDtype::int8 ? int8_record_bytes(d) : d * plain_element_bytes(f.dtype);
}
// Address of the record of token slot t, head h in a [S, H, record] block table.
KVPLAN_HOST_DEVICE const std::uint8_t* slot_record(const std::uint8_t* base,
                                                   const std::uint32_t* table,
                                                   std::uint64_t block_bytes, std::uint32_t S,
                                                   std::uint32_t H, std::uint32_t record_bytes,
                                                   std::uint32_t t, std::uint32_t h) {
  return base + table[t / S] * block_bytes +
         (static_cast<std::uint64_t>(t % S) * H + h) * record_bytes;
}
// Address of the KIVI key record of group gi (= t / G), head h, channel c.
KVPLAN_HOST_DEVICE const std::uint8_t* kivi_key_record(const PagedKvView& v, std::uint32_t gi,
                                                       std::uint32_t h, std::uint32_t c) {
  const std::uint32_t G = v.format.group;
  const std::uint32_t groups_per_block = kivi_key_block_tokens(v.block_size, G) / G;
  const std::uint32_t P = kivi_record_bytes(G, v.format.bits);
  return v.k_base + v.k_table[gi / groups_per_block] * v.k_block_bytes +
         ((static_cast<std::uint64_t>(gi % groups_per_block) * v.num_kv_heads + h) * v.head_dim +
          c) *
             P;
}

// Dequantized key / value of slot t, head h: writes d floats. The spec every backend reads by.
KVPLAN_HOST_DEVICE void load_key(const PagedKvView& v, std::uint32_t h, std::uint32_t t,
                                 float* out) {
  const std::uint32_t d = v.head_dim, S = v.block_size, H = v.num_kv_heads;
  if (is_kivi(v)) {
    const std::uint32_t G = v.format.group, b = v.format.bits;
    const std::uint32_t kq = kivi_key_quant_tokens(v.num_tokens, v.format.residual);
    if (t < kq) {
      for (std::uint32_t c = 0; c < d; ++c)
        out[c] = kivi_decode(kivi_key_record(v, t / G, h, c), G, b, t % G);
    } else {
      const std::uint8_t* r =
          slot_record(v.kr_base, v.kr_table, v.kr_block_bytes, S, H, 2 * d, t - kq, h);
      for (std::uint32_t c = 0; c < d; ++c) out[c] = plain_decode(KvDtype::fp16, r + 2 * c, 1.f);
    }
    return;
  }
  const std::uint8_t* r =
      slot_record(v.k_base, v.k_table, v.k_block_bytes, S, H, slot_record_bytes(v.format, d), t, h);
  if (v.format.dtype == KvDtype::int8) {
    for (std::uint32_t c = 0; c < d; ++c) out[c] = int8_decode(r, d, c);
  } else {
    const std::uint32_t eb = plain_element_bytes(v.format.dtype);
    for (std::uint32_t c = 0; c < d; ++c)
      out[c] = plain_decode(v.format.dtype, r + eb * c, v.k_scale);
  }
}
KVPLAN_HOST_DEVICE void load_value(const PagedKvView& v, std::uint32_t h, std::uint32_t t,
                                   float* out) {
  const std::uint32_t d = v.head_dim, S = v.block_size, H = v.num_kv_heads;
  if (is_kivi(v)) {
    const std::uint32_t G = v.format.group, b = v.format.bits, R = v.format.residual;
    const std::uint32_t vq = kivi_value_quant_tokens(v.num_tokens, R);
    if (t < vq) {
      const std::uint8_t* r = slot_record(v.v_base, v.v_table, v.v_block_bytes, S, H,
                                          (d / G) * kivi_record_bytes(G, b), t, h);
      for (std::uint32_t c = 0; c < d; ++c)
        out[c] = kivi_decode(r + (c / G) * kivi_record_bytes(G, b), G, b, c % G);
    } else {
      const std::uint32_t slot = t % kivi_window_slots(S, R);
      const std::uint8_t* r =
          slot_record(v.vw_base, v.vw_table, v.vw_block_bytes, S, H, 2 * d, slot, h);
      for (std::uint32_t c = 0; c < d; ++c) out[c] = plain_decode(KvDtype::fp16, r + 2 * c, 1.f);
    }
    return;
  }
  const std::uint8_t* r =
      slot_record(v.v_base, v.v_table, v.v_block_bytes, S, H, slot_record_bytes(v.format, d), t, h);
  if (v.format.dtype == KvDtype::int8) {
    for (std::uint32_t c = 0; c < d; ++c) out[c] = int8_decode(r, d, c);
  } else {
    const std::uint32_t eb = plain_element_bytes(v.format.dtype);
    for (std::uint32_t c = 0; c < d; ++c)
      out[c] = plain_decode(v.format.dtype, r + eb * c, v.v_scale);
  }
}

// Kept tokens after a selection (eviction.hpp), per KV head, the same count for every head.
struct KeepSet {
  std::uint32_t num_kv_heads = 0;
  std::uint32_t count = 0;              // kept tokens per head
  std::vector<std::int32_t> slots;      // [num_kv_heads, count] ascending cache slots
  std::vector<std::int32_t> positions;  // [num_kv_heads, count] ascending original positions
};

// Reorders per-slot data (e.g. H2O scores) [H, n] -> [H, keep.count] the way compact() moves
// the cache: out[h][i] = in[h][keep.slots[h][i]]. In place allowed (in == out).
void gather_slots(const float* in, std::uint32_t n, const KeepSet& keep, float* out);

struct PoolConfig {
  KvFormat format{};
  std::uint32_t num_layers = 1;
  std::uint32_t num_kv_heads = 1;
  std::uint32_t head_dim = 64;
  std::uint32_t block_size = 16;  // tokens per block, >= 1
  float k_scale = 1.f;            // fp8 per-tensor scales (fp8_calibrated_scale, or 1.0)
  float v_scale = 1.f;
  std::uint32_t initial_blocks = 0;  // blocks reserved up front per arena (grows on demand)
};

// Every problem with the config (zero block size / heads / head dim / layers, kivi bits not in
// {2,4,8}, group not dividing head_dim or residual, bad fp8 scales).
Status validate(const PoolConfig& c);

class PagedKvPool {
 public:
  Status init(const PoolConfig& config);
  const PoolConfig& config() const { return cfg_; }

  // A new empty sequence; ids are reused after free_sequence.
  std::uint32_t add_sequence();
  // Returns every block of the sequence to the pool.
  Status free_sequence(std::uint32_t seq);

  // Appends one token to every KV head of one layer: k, v [num_kv_heads, head_dim] (keys after
  // RoPE at `position`); position must exceed every position already in the layer.
  Status append(std::uint32_t seq, std::uint32_t layer, const float* k, const float* v,
                std::int32_t position);
  // Appends n tokens (a prefill): k, v [n, num_kv_heads, head_dim]; positions [n] shared by all
  // heads, or [n, num_kv_heads] when per_head (tokens pre-selected per head, e.g. SnapKV before
  // KIVI); nullptr -> consecutive positions after the last one (0 for an empty layer).
  Status append_tokens(std::uint32_t seq, std::uint32_t layer, std::uint32_t n, const float* k,
                       const float* v, const std::int32_t* positions = nullptr,
                       bool per_head = false);

  // Keeps keep.slots of every head (ascending, keep.count per head), moves them to slots
  // 0..count-1 and returns whole blocks no longer needed. Not for KIVI (see above).
  Status compact(std::uint32_t seq, std::uint32_t layer, const KeepSet& keep);

  std::uint32_t num_tokens(std::uint32_t seq, std::uint32_t layer) const;
  // [num_tokens] original positions of head h's slots.
  const std::int32_t* positions(std::uint32_t seq, std::uint32_t layer, std::uint32_t h) const;
  PagedKvView view(std::uint32_t seq, std::uint32_t layer) const;
  // Dequantized K and V of one slot (d floats each): a convenience over load_key/load_value.
  void read(std::uint32_t seq, std::uint32_t layer, std::uint32_t h, std::uint32_t slot, float* k,
            float* v) const;

  // Bytes in blocks held: one sequence and layer, one sequence, or every sequence.
  std::uint64_t bytes_held(std::uint32_t seq, std::uint32_t layer) const;
  std::uint64_t bytes_held(std::uint32_t seq) const;
  std::uint64_t bytes_held() const;
  std::uint64_t blocks_in_use() const;
  std::uint64_t bytes_reserved() const;  // arena capacity, in use or free

 private:
  struct Arena {
    std::uint64_t block_bytes = 0;
    std::vector<std::uint8_t> storage;
    std::vector<std::uint32_t> free_list;
    std::uint32_t capacity = 0;
    std::uint32_t in_use = 0;
    std::uint32_t take();
    void give(std::uint32_t b);
    std::uint8_t* block(std::uint32_t b) { return storage.data() + b * block_bytes; }
    const std::uint8_t* block(std::uint32_t b) const { return storage.data() + b * block_bytes; }
  };
  struct LayerCache {
    std::uint32_t n = 0;
    std::vector<std::uint32_t> k_table, v_table, kr_table, vw_table;
    std::uint32_t pos_stride = 0;   // capacity of each head's row
    std::vector<std::int32_t> pos;  // [H, pos_stride]
  };
  struct Sequence {
    bool live = false;
    std::vector<LayerCache> layers;
  };
  Status check(std::uint32_t seq, std::uint32_t layer) const;
  void append_one(LayerCache& lc, const float* k, const float* v, const std::int32_t* pos,
                  std::uint32_t pos_stride);
  void ensure(Arena& a, std::vector<std::uint32_t>& table, std::uint64_t blocks);
  void shrink(Arena& a, std::vector<std::uint32_t>& table, std::uint64_t blocks);
  std::uint64_t layer_bytes(const LayerCache& lc) const;

  PoolConfig cfg_{};
  Arena k_, v_, kr_, vw_;
  std::vector<Sequence> seqs_;
  std::vector<float> scratch_;
};

}  // namespace kvplan::kernels
