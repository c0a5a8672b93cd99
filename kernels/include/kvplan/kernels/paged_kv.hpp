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
// KIVI keys are stored [groups of a block, H, d, record]: the address of the first channel's
// record of group gi (= t / G), head h, where a block holds groups_per_block groups
// (kivi_key_block_tokens / G). Channel c's record follows at c · kivi_record_bytes.
KVPLAN_HOST_DEVICE const std::uint8_t* kivi_key_group_record(const PagedKvView& v, std::uint32_t gi,
                                                             std::uint32_t h,
                                                             std::uint32_t groups_per_block) {
  const std::uint32_t P = kivi_record_bytes(v.format.group, v.format.bits);
  return v.k_base + v.k_table[gi / groups_per_block] * v.k_block_bytes +
         (static_cast<std::uint64_t>(gi % groups_per_block) * v.num_kv_heads + h) * v.head_dim * P;
}
// Address of the KIVI key record of group gi (= t / G), head h, channel c.
KVPLAN_HOST_DEVICE const std::uint8_t* kivi_key_record(const PagedKvView& v, std::uint32_t gi,
                                                       std::uint32_t h, std::uint32_t c) {
  const std::uint32_t G = v.format.group;
  return kivi_key_group_record(v, gi, h, kivi_key_block_tokens(v.block_size, G) / G) +
         static_cast<std::uint64_t>(c) * kivi_record_bytes(G, v.format.bits);
}

// Dequantized channel c of the key / value of slot t, head h: the spec every backend reads by
// (load_key / load_value below loop over it; the CUDA kernels read one element per thread).
KVPLAN_HOST_DEVICE float key_element(const PagedKvView& v, std::uint32_t h, std::uint32_t t,
                                     std::uint32_t c) {
  const std::uint32_t d = v.head_dim, S = v.block_size, H = v.num_kv_heads;
  if (is_kivi(v)) {
    const std::uint32_t G = v.format.group;
    const std::uint32_t kq = kivi_key_quant_tokens(v.num_tokens, v.format.residual);
    if (t < kq) return kivi_decode(kivi_key_record(v, t / G, h, c), G, v.format.bits, t % G);
    return plain_decode(
        KvDtype::fp16,
        slot_record(v.kr_base, v.kr_table, v.kr_block_bytes, S, H, 2 * d, t - kq, h) + 2 * c, 1.f);
  }
  const std::uint8_t* r =
      slot_record(v.k_base, v.k_table, v.k_block_bytes, S, H, slot_record_bytes(v.format, d), t, h);
  if (v.format.dtype == KvDtype::int8) return int8_decode(r, d, c);
  return plain_decode(v.format.dtype, r + plain_element_bytes(v.format.dtype) * c, v.k_scale);
}
KVPLAN_HOST_DEVICE float value_element(const PagedKvView& v, std::uint32_t h, std::uint32_t t,
                                       std::uint32_t c) {
  const std::uint32_t d = v.head_dim, S = v.block_size, H = v.num_kv_heads;
  if (is_kivi(v)) {
    const std::uint32_t G = v.format.group, b = v.format.bits, R = v.format.residual;
    if (t < kivi_value_quant_tokens(v.num_tokens, R)) {
      const std::uint8_t* r = slot_record(v.v_base, v.v_table, v.v_block_bytes, S, H,
                                          (d / G) * kivi_record_bytes(G, b), t, h);
      return kivi_decode(r + (c / G) * kivi_record_bytes(G, b), G, b, c % G);
    }
    const std::uint32_t slot = t % kivi_window_slots(S, R);
    return plain_decode(
        KvDtype::fp16,
        slot_record(v.vw_base, v.vw_table, v.vw_block_bytes, S, H, 2 * d, slot, h) + 2 * c, 1.f);
  }
  const std::uint8_t* r =
      slot_record(v.v_base, v.v_table, v.v_block_bytes, S, H, slot_record_bytes(v.format, d), t, h);
  if (v.format.dtype == KvDtype::int8) return int8_decode(r, d, c);
  return plain_decode(v.format.dtype, r + plain_element_bytes(v.format.dtype) * c, v.v_scale);
}

// Dequantized key / value of slot t, head h: writes d floats.
KVPLAN_HOST_DEVICE void load_key(const PagedKvView& v, std::uint32_t h, std::uint32_t t,
                                 float* out) {
  for (std::uint32_t c = 0; c < v.head_dim; ++c) out[c] = key_element(v, h, t, c);
}
KVPLAN_HOST_DEVICE void load_value(const PagedKvView& v, std::uint32_t h, std::uint32_t t,
                                   float* out) {
  for (std::uint32_t c = 0; c < v.head_dim; ++c) out[c] = value_element(v, h, t, c);
}

// ---- appending, element by element: the CPU pool loops over these, the CUDA kernels run one
// element per thread (same addresses, same rounding) ----

// One KIVI append of tokens [n0, N) to a layer holding n0 (PagedKvBook runs it; R = residual).
struct KiviAppendPlan {
  std::uint32_t kq0 = 0, kq1 = 0;  // keys quantized by this append
  std::uint32_t r0 = 0;            // new keys [r0, N) into the residual (index t - kq1)
  std::uint32_t vq0 = 0, vq1 = 0;  // values quantized by this append
  std::uint32_t w0 = 0;            // new values [w0, N) into the window ring (slot t mod C)
};
KVPLAN_HOST_DEVICE KiviAppendPlan kivi_append_plan(std::uint32_t n0, std::uint32_t N,
                                                   std::uint32_t block_size,
                                                   std::uint32_t residual) {
  KiviAppendPlan p;
  p.kq0 = kivi_key_quant_tokens(n0, residual);
  p.kq1 = kivi_key_quant_tokens(N, residual);
  p.r0 = n0 > p.kq1 ? n0 : p.kq1;
  p.vq0 = kivi_value_quant_tokens(n0, residual);
  p.vq1 = kivi_value_quant_tokens(N, residual);
  const std::uint32_t C = kivi_window_slots(block_size, residual);
  p.w0 = N > C && N - C > n0 ? N - C : n0;
  return p;
}

KVPLAN_HOST_DEVICE std::uint8_t* writable(const std::uint8_t* p) {
  return const_cast<std::uint8_t*>(p);
}
// x through fp16 and back, as a residual / window entry stores then re-reads it.
KVPLAN_HOST_DEVICE float through_fp16(float x) {
  std::uint8_t h[2];
  plain_encode(KvDtype::fp16, x, 1.f, h);
  return plain_decode(KvDtype::fp16, h, 1.f);
}

// Plain / int8: record r of an append of m tokens at n0, r in [0, 2·m·H): token r / 2 / H, head
// r / 2 % H, K when r is even; k, val [m, H, d].
KVPLAN_HOST_DEVICE void append_plain_record(const PagedKvView& v, std::uint32_t n0, std::uint64_t r,
                                            const float* k, const float* val) {
  const std::uint32_t H = v.num_kv_heads, d = v.head_dim, S = v.block_size;
  const std::uint32_t rb = slot_record_bytes(v.format, d);
  const bool is_k = r % 2 == 0;
  const std::uint64_t ih = r / 2;
  const std::uint32_t i = static_cast<std::uint32_t>(ih / H),
                      h = static_cast<std::uint32_t>(ih % H);
  const float* x = (is_k ? k : val) + ih * d;
  std::uint8_t* rec =
      writable(is_k ? slot_record(v.k_base, v.k_table, v.k_block_bytes, S, H, rb, n0 + i, h)
                    : slot_record(v.v_base, v.v_table, v.v_block_bytes, S, H, rb, n0 + i, h));
  if (v.format.dtype == KvDtype::int8) {
    int8_encode_record(x, d, rec);
  } else {
    const std::uint32_t eb = plain_element_bytes(v.format.dtype);
    const float scale = is_k ? v.k_scale : v.v_scale;
    for (std::uint32_t c = 0; c < d; ++c) plain_encode(v.format.dtype, x[c], scale, rec + c * eb);
  }
}

// KIVI keys [kq0, kq1) to quantize, element e of the tile [kq1 - kq0, H, d], fp16-rounded: from
// the residual (t < n0, index t - kq0) or from the input k [N - n0, H, d].
KVPLAN_HOST_DEVICE float kivi_key_to_quantize(const PagedKvView& v, std::uint32_t kq0,
                                              std::uint32_t n0, const float* k, std::uint64_t e) {
  const std::uint32_t H = v.num_kv_heads, d = v.head_dim;
  const std::uint32_t t = kq0 + static_cast<std::uint32_t>(e / (std::uint64_t{H} * d));
  const std::uint32_t h = static_cast<std::uint32_t>(e / d % H),
                      c = static_cast<std::uint32_t>(e % d);
  if (t < n0)
    return plain_decode(
        KvDtype::fp16,
        slot_record(v.kr_base, v.kr_table, v.kr_block_bytes, v.block_size, H, 2 * d, t - kq0, h) +
            2 * c,
        1.f);
  return through_fp16(k[(std::uint64_t{t - n0} * H + h) * d + c]);
}
// Record r of the quantized keys: group kq0 / G + r / (H·d), head r / d % H, channel r % d, from
// the tile of kivi_key_to_quantize.
KVPLAN_HOST_DEVICE void kivi_encode_key(const PagedKvView& v, std::uint32_t kq0, const float* tile,
                                        std::uint64_t r) {
  const std::uint32_t H = v.num_kv_heads, d = v.head_dim, G = v.format.group;
  const std::uint32_t g = static_cast<std::uint32_t>(r / (std::uint64_t{H} * d));
  const std::uint32_t h = static_cast<std::uint32_t>(r / d % H),
                      c = static_cast<std::uint32_t>(r % d);
  kivi_encode_record(tile + (std::uint64_t{g} * G * H + h) * d + c, H * d, G, v.format.bits,
                     writable(kivi_key_record(v, kq0 / G + g, h, c)));
}
// Element e of new keys [r0, N) into the fp16 residual at index t - kq; k [N - n0, H, d].
KVPLAN_HOST_DEVICE void kivi_write_residual_element(const PagedKvView& v, std::uint32_t r0,
                                                    std::uint32_t kq, std::uint32_t n0,
                                                    const float* k, std::uint64_t e) {
  const std::uint32_t H = v.num_kv_heads, d = v.head_dim;
  const std::uint32_t t = r0 + static_cast<std::uint32_t>(e / (std::uint64_t{H} * d));
  const std::uint32_t h = static_cast<std::uint32_t>(e / d % H),
                      c = static_cast<std::uint32_t>(e % d);
  std::uint8_t* r = writable(
      slot_record(v.kr_base, v.kr_table, v.kr_block_bytes, v.block_size, H, 2 * d, t - kq, h));
  plain_encode(KvDtype::fp16, k[(std::uint64_t{t - n0} * H + h) * d + c], 1.f, r + 2 * c);
}
// KIVI values [vq0, vq1) leaving the window, element e of the tile [vq1 - vq0, H, d],
// fp16-rounded: from ring slot t mod C (t < n0) or from the input val [N - n0, H, d].
KVPLAN_HOST_DEVICE float kivi_value_to_quantize(const PagedKvView& v, std::uint32_t vq0,
                                                std::uint32_t n0, const float* val,
                                                std::uint64_t e) {
  const std::uint32_t H = v.num_kv_heads, d = v.head_dim;
  const std::uint32_t C = kivi_window_slots(v.block_size, v.format.residual);
  const std::uint32_t t = vq0 + static_cast<std::uint32_t>(e / (std::uint64_t{H} * d));
  const std::uint32_t h = static_cast<std::uint32_t>(e / d % H),
                      c = static_cast<std::uint32_t>(e % d);
  if (t < n0)
    return plain_decode(
        KvDtype::fp16,
        slot_record(v.vw_base, v.vw_table, v.vw_block_bytes, v.block_size, H, 2 * d, t % C, h) +
            2 * c,
        1.f);
  return through_fp16(val[(std::uint64_t{t - n0} * H + h) * d + c]);
}
// Record r of the quantized values: token vq0 + r / (H·d/G), head r / (d/G) % H, group r mod d/G.
KVPLAN_HOST_DEVICE void kivi_encode_value(const PagedKvView& v, std::uint32_t vq0,
                                          const float* tile, std::uint64_t r) {
  const std::uint32_t H = v.num_kv_heads, d = v.head_dim, G = v.format.group;
  const std::uint32_t P = kivi_record_bytes(G, v.format.bits);
  const std::uint32_t t = vq0 + static_cast<std::uint32_t>(r / (std::uint64_t{H} * (d / G)));
  const std::uint32_t h = static_cast<std::uint32_t>(r / (d / G) % H),
                      j = static_cast<std::uint32_t>(r % (d / G));
  std::uint8_t* rec = writable(
      slot_record(v.v_base, v.v_table, v.v_block_bytes, v.block_size, H, (d / G) * P, t, h));
  kivi_encode_record(tile + (std::uint64_t{t - vq0} * H + h) * d + j * G, 1, G, v.format.bits,
                     rec + j * P);
}
// Element e of new values [w0, N) into the window ring at slot t mod C; val [N - n0, H, d].
KVPLAN_HOST_DEVICE void kivi_write_window_element(const PagedKvView& v, std::uint32_t w0,
                                                  std::uint32_t n0, const float* val,
                                                  std::uint64_t e) {
  const std::uint32_t H = v.num_kv_heads, d = v.head_dim;
  const std::uint32_t C = kivi_window_slots(v.block_size, v.format.residual);
  const std::uint32_t t = w0 + static_cast<std::uint32_t>(e / (std::uint64_t{H} * d));
  const std::uint32_t h = static_cast<std::uint32_t>(e / d % H),
                      c = static_cast<std::uint32_t>(e % d);
  std::uint8_t* r = writable(
      slot_record(v.vw_base, v.vw_table, v.vw_block_bytes, v.block_size, H, 2 * d, t % C, h));
  plain_encode(KvDtype::fp16, val[(std::uint64_t{t - n0} * H + h) * d + c], 1.f, r + 2 * c);
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

// ---- bookkeeping, shared by every storage ----
//
// The host-side bookkeeping of a paged KV pool, one for every storage: block ids per arena (free
// lists, growth by max(capacity, 4)), block tables and positions per (sequence, layer), the append
// and compaction plans, and the bytes held. PagedKvPool (paged_kv.hpp) keeps its blocks in host
// memory, DevicePagedKv (cuda.hpp) in device memory; both run every append, compaction and free
// through one PagedKvBook and implement only PagedKvStorage (grow an arena, encode, move), so for
// the same calls they take and return the same block ids in the same order
// (tests/kernels/test_pool_book.cpp drives a book with a storage that records, and compares).
//
//   struct Mine final : PagedKvStorage { ... };       // grow(), write_plain(), kivi_*() ...
//   PagedKvBook book;
//   book.init(config, mine);                          // validate(config), initial blocks
//   std::uint32_t seq = book.add_sequence();
//   book.append(seq, 0, n, k, v, positions, false, mine);  // positions checked, blocks taken,
//                                                          // mine's steps called in plan order
//   book.layer(seq, 0).table(KvArena::k)              // block ids of the keys
//
// One KIVI append algorithm, by range (kivi_append_plan in paged_kv.hpp): tokens [n0, N) of a
// layer holding n0; keys [kq0, kq1) that complete residual chunks of R are quantized (read from
// the residual, or the input), then the residual holds [r0, N); values [vq0, vq1) that leave the
// window are quantized (read from the ring, or the input), then the ring takes [w0, N).
// The four arenas of a pool: keys and values (plain, int8, KIVI quantized), the KIVI key
// residual and value window (fp16).
enum class KvArena : std::uint32_t { k = 0, v = 1, kr = 2, vw = 3 };
inline constexpr std::uint32_t kKvArenas = 4;

// Bytes of one block of each arena for a config (0 for arenas the format does not use).
struct ArenaBlockBytes {
  std::uint64_t bytes[kKvArenas] = {0, 0, 0, 0};
};
ArenaBlockBytes arena_block_bytes(const PoolConfig& c);

// One (sequence, layer): n retained tokens of every head, block tables, positions.
struct LayerBook {
  std::uint32_t n = 0;
  std::vector<std::uint32_t> tables[kKvArenas];
  std::uint32_t pos_stride = 0;   // capacity of each head's row
  std::vector<std::int32_t> pos;  // [H, pos_stride]
  // A storage's mirror of the tables and positions (DevicePagedKv: device arrays); the book
  // carries it and never reads it.
  std::uint32_t* mirror_tables = nullptr;  // k | v | kr | vw, each mirror_table_cap long
  std::uint32_t mirror_table_cap = 0;
  std::int32_t* mirror_pos = nullptr;  // [H, pos_stride]
  const std::vector<std::uint32_t>& table(KvArena a) const {
    return tables[static_cast<std::uint32_t>(a)];
  }
};

// What a storage does for the book; every step gets the layer as the book has just planned it
// (tables long enough, positions committed). k, v: the appended tokens [m, H, d] wherever the
// storage reads them (host, or staged on the device).
class PagedKvStorage {
 public:
  virtual ~PagedKvStorage() = default;
  // Arena `a` grows from old_blocks to new_blocks blocks: old contents kept, new blocks zeroed.
  virtual Status grow(KvArena a, std::uint32_t old_blocks, std::uint32_t new_blocks) = 0;
  // The layer's tables changed (a storage that mirrors them uploads them here).
  virtual Status tables_changed(LayerBook&) { return Status::Ok(); }
  // Positions [from, to) of every head changed; `regrown` when pos_stride grew (rows moved).
  virtual Status positions_changed(LayerBook&, std::uint32_t /*from*/, std::uint32_t /*to*/,
                                   bool /*regrown*/) {
    return Status::Ok();
  }
  // Blocks are about to return to the free lists (a storage that runs asynchronously waits for
  // the work that still reads or writes them).
  virtual Status before_free() { return Status::Ok(); }
  // The layer is released (free_sequence): its mirrors can go.
  virtual void layer_released(LayerBook&) {}

  // Plain / int8: tokens [n0, n0 + m) into K and V.
  virtual Status write_plain(const LayerBook& lc, std::uint32_t n0, std::uint32_t m, const float* k,
                             const float* v) = 0;
  // KIVI, in this order: keys [kq0, kq1) quantized (t < n0 from the residual at t - kq0, else
  // input row t - n0); new keys [r0, N) into the residual at t - kq1; values [vq0, vq1) quantized
  // (t < n0 from ring slot t mod C, else input); new values [w0, N) into ring slot t mod C.
  virtual Status kivi_quantize_keys(const LayerBook& lc, std::uint32_t kq0, std::uint32_t kq1,
                                    std::uint32_t n0, const float* k) = 0;
  virtual Status kivi_write_residual(const LayerBook& lc, std::uint32_t r0, std::uint32_t N,
                                     std::uint32_t kq1, std::uint32_t n0, const float* k) = 0;
  virtual Status kivi_quantize_values(const LayerBook& lc, std::uint32_t vq0, std::uint32_t vq1,
                                      std::uint32_t n0, const float* v) = 0;
  virtual Status kivi_write_window(const LayerBook& lc, std::uint32_t w0, std::uint32_t N,
                                   std::uint32_t n0, const float* v) = 0;
  // Compaction: keep.slots of every head move to slots 0..count-1 of K and V (before the tables
  // shrink).
  virtual Status move_kept(const LayerBook& lc, const KeepSet& keep) = 0;
};

class PagedKvBook {
 public:
  Status init(const PoolConfig& config, PagedKvStorage& st);
  const PoolConfig& config() const { return cfg_; }
  std::uint64_t block_bytes(KvArena a) const { return arenas_[idx(a)].block_bytes; }
  std::uint32_t capacity(KvArena a) const { return arenas_[idx(a)].capacity; }

  std::uint32_t add_sequence();
  Status check(std::uint32_t seq, std::uint32_t layer) const;
  Status free_sequence(std::uint32_t seq, PagedKvStorage& st);

  // As PagedKvPool::append_tokens: positions checked first (a refused append changes nothing),
  // then blocks taken and the storage's steps run in the one plan order.
  Status append(std::uint32_t seq, std::uint32_t layer, std::uint32_t m, const float* k,
                const float* v, const std::int32_t* positions, bool per_head, PagedKvStorage& st);
  // As PagedKvPool::compact.
  Status compact(std::uint32_t seq, std::uint32_t layer, const KeepSet& keep, PagedKvStorage& st);

  // Primitives for a storage's own operations (DevicePagedKv::assign): table `a` of the layer
  // grows to `blocks` (blocks taken from the free list, the arena grown when empty) or shrinks to
  // it (blocks returned, last first).
  Status ensure(LayerBook& lc, KvArena a, std::uint64_t blocks, PagedKvStorage& st);
  void shrink(LayerBook& lc, KvArena a, std::uint64_t blocks);
  // Rows of `lc.pos` hold at least `need` positions; true when they were regrown.
  bool reserve_positions(LayerBook& lc, std::uint32_t need) const;

  // The layer (check(seq, layer) must hold).
  LayerBook& layer(std::uint32_t seq, std::uint32_t layer) { return seqs_[seq].layers[layer]; }
  const LayerBook& layer(std::uint32_t seq, std::uint32_t layer) const {
    return seqs_[seq].layers[layer];
  }
  // Every layer of every live sequence (a storage releasing its mirrors).
  template <class F>
  void for_each_layer(F&& f) {
    for (Sequence& s : seqs_)
      for (LayerBook& lc : s.layers) f(lc);
  }

  // The view's geometry, block sizes, n and positions stride; bases and table pointers are the
  // storage's to fill.
  PagedKvView view_shape(const LayerBook& lc) const;

  std::uint64_t layer_bytes(const LayerBook& lc) const;
  std::uint64_t bytes_held(std::uint32_t seq, std::uint32_t layer) const;
  std::uint64_t bytes_held(std::uint32_t seq) const;
  std::uint64_t bytes_held() const;
  std::uint64_t blocks_in_use() const;
  std::uint64_t bytes_reserved() const;  // arena capacity, in use or free

 private:
  struct Arena {
    std::uint64_t block_bytes = 0;
    std::uint32_t capacity = 0;
    std::uint32_t in_use = 0;
    std::vector<std::uint32_t> free_list;
  };
  struct Sequence {
    bool live = false;
    std::vector<LayerBook> layers;
  };
  static std::uint32_t idx(KvArena a) { return static_cast<std::uint32_t>(a); }
  Status take(KvArena a, PagedKvStorage& st, std::uint32_t* block);
  Status append_kivi(LayerBook& lc, std::uint32_t n0, std::uint32_t N, const float* k,
                     const float* v, PagedKvStorage& st);

  PoolConfig cfg_{};
  Arena arenas_[kKvArenas];
  std::vector<Sequence> seqs_;
};

// What every paged pool answers from its book alone (PagedKvPool, DevicePagedKv).
class PagedKvPoolBase {
 public:
  PagedKvPoolBase() = default;
  PagedKvPoolBase(const PagedKvPoolBase&) = default;
  PagedKvPoolBase(PagedKvPoolBase&&) = default;
  PagedKvPoolBase& operator=(const PagedKvPoolBase&) = default;
  PagedKvPoolBase& operator=(PagedKvPoolBase&&) = default;
  virtual ~PagedKvPoolBase() = default;

  // Returns every block of the sequence to the pool.
  virtual Status free_sequence(std::uint32_t seq) = 0;
  // Appends one token to every KV head of one layer: k, v [num_kv_heads, head_dim] (keys after
  // RoPE at `position`); position must exceed every position already in the layer.
  Status append(std::uint32_t seq, std::uint32_t layer, const float* k, const float* v,
                std::int32_t position) {
    return append_tokens(seq, layer, 1, k, v, &position, false);
  }
  // Appends n tokens (a prefill): k, v [n, num_kv_heads, head_dim]; positions [n] shared by all
  // heads, or [n, num_kv_heads] when per_head (tokens pre-selected per head, e.g. SnapKV before
  // KIVI); nullptr -> consecutive positions after the last one (0 for an empty layer).
  virtual Status append_tokens(std::uint32_t seq, std::uint32_t layer, std::uint32_t n,
                               const float* k, const float* v,
                               const std::int32_t* positions = nullptr, bool per_head = false) = 0;
  // Keeps keep.slots of every head (ascending, keep.count per head), moves them to slots
  // 0..count-1 and returns whole blocks no longer needed. Not for KIVI (see above).
  virtual Status compact(std::uint32_t seq, std::uint32_t layer, const KeepSet& keep) = 0;

  const PoolConfig& config() const { return book_.config(); }
  // A new empty sequence; ids are reused after free_sequence.
  std::uint32_t add_sequence() { return book_.add_sequence(); }
  std::uint32_t num_tokens(std::uint32_t seq, std::uint32_t layer) const;
  // [num_tokens] original positions of head h's slots (host memory).
  const std::int32_t* positions(std::uint32_t seq, std::uint32_t layer, std::uint32_t h) const;
  // Bytes in blocks held: one sequence and layer, one sequence, or every sequence.
  std::uint64_t bytes_held(std::uint32_t seq, std::uint32_t layer) const {
    return book_.bytes_held(seq, layer);
  }
  std::uint64_t bytes_held(std::uint32_t seq) const { return book_.bytes_held(seq); }
  std::uint64_t bytes_held() const { return book_.bytes_held(); }
  std::uint64_t blocks_in_use() const { return book_.blocks_in_use(); }
  std::uint64_t bytes_reserved() const { return book_.bytes_reserved(); }  // capacity
  // The bookkeeping (block tables, free lists) the pool runs on.
  const PagedKvBook& book() const { return book_; }

 protected:
  PagedKvBook book_;
};

class PagedKvPool : public PagedKvPoolBase {
 public:
  Status init(const PoolConfig& config);
  Status free_sequence(std::uint32_t seq) override;
  Status append_tokens(std::uint32_t seq, std::uint32_t layer, std::uint32_t n, const float* k,
                       const float* v, const std::int32_t* positions = nullptr,
                       bool per_head = false) override;
  Status compact(std::uint32_t seq, std::uint32_t layer, const KeepSet& keep) override;

  PagedKvView view(std::uint32_t seq, std::uint32_t layer) const;
  // Dequantized K and V of one slot (d floats each): a convenience over load_key/load_value.
  void read(std::uint32_t seq, std::uint32_t layer, std::uint32_t h, std::uint32_t slot, float* k,
            float* v) const;

 private:
  // The host storage behind book_ (paged_kv.cpp): one byte vector per arena, the steps as CPU
  // loops over the element helpers above (the CUDA kernels run the same helpers).
  struct HostStorage;
  PagedKvView make_view(const LayerBook& lc) const;

  std::vector<std::uint8_t> arena_[kKvArenas];  // [capacity, block bytes] each
  std::vector<float> scratch_;                  // KIVI tiles
};

}  // namespace kvplan::kernels
