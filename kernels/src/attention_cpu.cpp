// Faster CPU decode attention (Backend::cpu): float accumulation, keys decoded a tile at a time,
// and for KIVI a fused path that never materializes a key or value row. The spec is
// decode_attention_ref in attention.cpp; tests/kernels compare the two by NMSE.
//
// KIVI fused path: a quantized key group is G tokens of one channel sharing (s_c, z_c), so
//   q·k_j = Σ_c q_c (code_cj s_c + z_c) = Σ_c (q_c s_c) code_cj + Σ_c q_c z_c:
// per group, qs_c = q_c·s_c and Σ q_c z_c are hoisted, and the G logits accumulate as one
// vector over j while codes are unpacked by uniform shifts (no per-element branch, division or
// variable shift). Values likewise: o += (p_t s) · code + (p_t z), the z term summed per record.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#include <immintrin.h>
#endif

#include "cpu_fast.hpp"
#include "kvplan/kernels/attention.hpp"

namespace kvplan::kernels {
namespace {
using namespace cpu_fast;

// Rotation by `position` with precomputed frequencies: the same arithmetic as rope_rotate.
struct RopeTable {
  std::vector<double> freq;
  RopeStyle style = RopeStyle::none;
  std::uint32_t half = 0;
  RopeTable(const RopeParams& r, std::uint32_t d) : style(r.style) {
    const std::uint32_t dims = r.dims ? r.dims : d;
    half = dims / 2;
    for (std::uint32_t i = 0; i < half; ++i)
      freq.push_back(
          rope_scaled_inv_freq(std::pow(static_cast<double>(r.theta), -2.0 * i / dims), r.llama3));
  }
  void rotate(float* x, double position) const {
    for (std::uint32_t i = 0; i < half; ++i) {
      const double a = position * freq[i], c = std::cos(a), s = std::sin(a);
      const std::uint32_t i0 = style == RopeStyle::interleaved ? 2 * i : i;
      const std::uint32_t i1 = style == RopeStyle::interleaved ? 2 * i + 1 : i + half;
      const double x0 = x[i0], x1 = x[i1];
      x[i0] = static_cast<float>(x0 * c - x1 * s);
      x[i1] = static_cast<float>(x0 * s + x1 * c);
    }
  }
};

#if defined(__GNUC__)
typedef float Lanes8 __attribute__((vector_size(32)));
#endif

// The largest of x[0..n), n >= 1: std::max_element's value, found eight lanes at a time (its
// one-compare-per-element chain was a tenth of a replay). max rounds nothing, so the value is
// the same up to which zero comes back when the largest is +0 and -0, and the softmax then gives
// the same results (x - (+0) == x - (-0) for nonzero x, exp(+0) == exp(-0) == 1). A NaN logit
// makes the sum, and so every probability, NaN either way.
KVPLAN_INLINE float max_value(const float* x, std::uint32_t n) {
  std::uint32_t t = 0;
  float m = x[0];
#if defined(__GNUC__)
  if (n >= 8) {
    Lanes8 a;
    std::memcpy(&a, x, sizeof a);
    for (t = 8; t + 8 <= n; t += 8) {
      Lanes8 y;
      std::memcpy(&y, x + t, sizeof y);
      a = a > y ? a : y;
    }
    m = a[0];
    for (int k = 1; k < 8; ++k) m = a[k] > m ? a[k] : m;
  }
#endif
  for (; t < n; ++t) m = x[t] > m ? x[t] : m;
  return m;
}

// n floats from `in` (any alignment) to out. GCC leaves the plain loop scalar here (and a
// variable-size memcpy becomes `rep movs`, slow for 64 floats), so under GCC it moves eight
// floats at a time.
KVPLAN_INLINE void copy_floats(const void* in, std::uint32_t n, float* out) {
  const auto* src = static_cast<const std::uint8_t*>(in);
  std::uint32_t c = 0;
#if defined(__GNUC__)
  for (; c + 8 <= n; c += 8) {
    Lanes8 x;
    std::memcpy(&x, src + 4 * c, sizeof x);
    std::memcpy(out + c, &x, sizeof x);
  }
#endif
  for (; c < n; ++c) std::memcpy(out + c, src + 4 * c, 4);
}

// One plain or int8 slot record (d elements) as floats: the values key_element / value_element
// give, with the record found once per row instead of once per element. 16-bit elements go
// through local buffers in chunks, which GCC vectorizes (a loop between the record and `out`
// directly is left scalar).
KVPLAN_INLINE void decode_row(const std::uint8_t* rec, KvDtype dt, std::uint32_t d, float fp8_scale,
                              float* out) {
  constexpr std::uint32_t kChunk = 128;
  alignas(64) std::uint16_t buf[kChunk];
  alignas(64) float vals[kChunk];
  switch (dt) {
    case KvDtype::fp32:
      copy_floats(rec, d, out);
      return;
    case KvDtype::fp16:
    case KvDtype::bf16:
      for (std::uint32_t c0 = 0; c0 < d; c0 += kChunk) {
        const std::uint32_t m = std::min(kChunk, d - c0);
        const std::uint8_t* r = rec + 2 * c0;
        std::uint32_t c = 0;
        for (; c + 16 <= m; c += 16)
          std::memcpy(buf + c, r + 2 * c, 32);  // fixed size: vector moves
        for (; c < m; ++c) std::memcpy(buf + c, r + 2 * c, 2);
        if (dt == KvDtype::fp16) {
          for (std::uint32_t c = 0; c < m; ++c) vals[c] = half_dec(buf[c]);
        } else {
          for (std::uint32_t c = 0; c < m; ++c) vals[c] = bf16_to_float(buf[c]);
        }
        copy_floats(vals, m, out + c0);
      }
      return;
    case KvDtype::int8: {
      const float s = int8_record_scale(rec, d);
      for (std::uint32_t c = 0; c < d; ++c)
        out[c] = static_cast<float>(static_cast<std::int8_t>(rec[c])) * s;
      return;
    }
    default:  // fp8
      for (std::uint32_t c = 0; c < d; ++c) out[c] = plain_decode(dt, rec + c, fp8_scale);
      return;
  }
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define KVPLAN_F16C_ROWS 1
// count fp16 records of d elements each to float rows [count, d] with the F16C conversion
// (vcvtph2ps), eight elements an instruction. Half to float is exact, so every value is the one
// half_dec gives (a signaling NaN alone comes back quiet, as any NaN stays NaN downstream).
// Its own target, called once per tile where the CPU has F16C (every AVX2 x86-64 in practice):
// the multiversioned bodies cannot use the instruction in their baseline build.
__attribute__((target("avx2,f16c"), noinline)) void f16_rows_f16c(const std::uint8_t* const* recs,
                                                                  std::uint32_t count,
                                                                  std::uint32_t d, float* out) {
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint8_t* r = recs[i];
    float* o = out + std::uint64_t{i} * d;
    std::uint32_t c = 0;
    for (; c + 8 <= d; c += 8) {
      __m128i h;
      std::memcpy(&h, r + 2 * c, sizeof h);
      const __m256 f = _mm256_cvtph_ps(h);
      std::memcpy(o + c, &f, sizeof f);
    }
    for (; c < d; ++c) {
      std::uint16_t h;
      std::memcpy(&h, r + 2 * c, 2);
      o[c] = half_dec(h);
    }
  }
}
const bool kHaveF16c = __builtin_cpu_supports("f16c");
#endif

// Decodes `count` plain-format records into rows [count, d]: fp16 through F16C where present.
KVPLAN_INLINE void decode_rows(const std::uint8_t* const* recs, std::uint32_t count, KvDtype dt,
                               std::uint32_t d, float fp8_scale, float* out) {
#if defined(KVPLAN_F16C_ROWS)
  if (dt == KvDtype::fp16 && kHaveF16c) return f16_rows_f16c(recs, count, d, out);
#endif
  for (std::uint32_t i = 0; i < count; ++i)
    decode_row(recs[i], dt, d, fp8_scale, out + std::uint64_t{i} * d);
}

// Decodes keys of slots [t0, t0 + count) of head h into tile [count, d], group-wise for KIVI.
KVPLAN_INLINE void load_key_tile(const PagedKvView& v, std::uint32_t h, std::uint32_t t0,
                                 std::uint32_t count, float* tile) {
  const std::uint32_t d = v.head_dim;
  if (is_kivi(v)) {
    const std::uint32_t G = v.format.group, bits = v.format.bits;
    const std::uint32_t kq = kivi_key_quant_tokens(v.num_tokens, v.format.residual);
    const std::uint32_t words = kivi_words(G, bits), mask = (1u << bits) - 1u, per_word = 32 / bits;
    std::uint32_t t = t0;
    const std::uint32_t end = t0 + count;
    while (t < end && t < kq) {
      const std::uint32_t gi = t / G, j0 = t % G, j1 = std::min(G, j0 + (std::min(end, kq) - t));
      float* base = tile + std::uint64_t{t - t0} * d;
      const std::uint32_t P = kivi_record_bytes(G, bits);
      const std::uint8_t* rec = kivi_key_record(v, gi, h, 0);  // channels are contiguous records
      for (std::uint32_t c = 0; c < d; ++c, rec += P) {
        float s, z;
        kivi_scale_zero(rec, words, s, z);
        for (std::uint32_t j = j0; j < j1; ++j) {
          std::uint32_t w;
          std::memcpy(&w, rec + 4 * (j / per_word), 4);
          const std::uint32_t code = (w >> ((j % per_word) * bits)) & mask;
          base[std::uint64_t{j - j0} * d + c] = static_cast<float>(code) * s + z;
        }
      }
      t += j1 - j0;
    }
    for (; t < end; ++t) {
      const std::uint8_t* r = slot_record(v.kr_base, v.kr_table, v.kr_block_bytes, v.block_size,
                                          v.num_kv_heads, 2 * d, t - kq, h);
      decode_row(r, KvDtype::fp16, d, 1.f, tile + std::uint64_t{t - t0} * d);
    }
    return;
  }
  const std::uint32_t rb = slot_record_bytes(v.format, d);
  const std::uint8_t* recs[64];
  for (std::uint32_t t0b = t0; t0b < t0 + count; t0b += 64) {
    const std::uint32_t m = std::min<std::uint32_t>(64, t0 + count - t0b);
    for (std::uint32_t i = 0; i < m; ++i)
      recs[i] = slot_record(v.k_base, v.k_table, v.k_block_bytes, v.block_size, v.num_kv_heads, rb,
                            t0b + i, h);
    decode_rows(recs, m, v.format.dtype, d, v.k_scale, tile + std::uint64_t{t0b - t0} * d);
  }
}

// load_value with the record address found once per row, and KIVI's quantized values decoded a
// record (G channels) at a time.
KVPLAN_INLINE void load_value_fast(const PagedKvView& v, std::uint32_t h, std::uint32_t t,
                                   float* out) {
  const std::uint32_t d = v.head_dim;
  if (!is_kivi(v)) {
    decode_row(slot_record(v.v_base, v.v_table, v.v_block_bytes, v.block_size, v.num_kv_heads,
                           slot_record_bytes(v.format, d), t, h),
               v.format.dtype, d, v.v_scale, out);
    return;
  }
  if (t >= kivi_value_quant_tokens(v.num_tokens, v.format.residual)) {
    const std::uint32_t slot = t % kivi_window_slots(v.block_size, v.format.residual);
    decode_row(slot_record(v.vw_base, v.vw_table, v.vw_block_bytes, v.block_size, v.num_kv_heads,
                           2 * d, slot, h),
               KvDtype::fp16, d, 1.f, out);
    return;
  }
  const std::uint32_t G = v.format.group, bits = v.format.bits;
  const std::uint32_t P = kivi_record_bytes(G, bits);
  const std::uint8_t* r = slot_record(v.v_base, v.v_table, v.v_block_bytes, v.block_size,
                                      v.num_kv_heads, (d / G) * P, t, h);
  for (std::uint32_t g = 0; g < d / G; ++g, r += P) kivi_decode_record(r, G, bits, out + g * G, 1);
}

// Eight partial sums (lane k takes the elements c ≡ k mod 8, in order), then a fixed tree. Under
// GCC the eight lanes are one vector-extension value (Lanes8): GCC's vectorizer turns the array
// form into eight scalar add chains (the multiplies vectorized, the adds not), which made this
// loop the replay's hot spot; the vector form does the same IEEE operations in the same order per
// lane.
KVPLAN_INLINE float dot(const float* a, const float* b, std::uint32_t d) {
  std::uint32_t c = 0;
#if defined(__GNUC__)
  Lanes8 acc = {0, 0, 0, 0, 0, 0, 0, 0};
  for (; c + 8 <= d; c += 8) {
    Lanes8 x, y;
    std::memcpy(&x, a + c, sizeof x);
    std::memcpy(&y, b + c, sizeof y);
    acc += x * y;
  }
#else
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (; c + 8 <= d; c += 8)
    for (int k = 0; k < 8; ++k) acc[k] += a[c + k] * b[c + k];
#endif
  float s = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
  for (; c < d; ++c) s += a[c] * b[c];
  return s;
}

#if defined(__GNUC__)
typedef std::int32_t Index8 __attribute__((vector_size(32)));
// Two-vector lane shuffles with constant indices: GCC's __builtin_shuffle takes an index vector,
// clang's __builtin_shufflevector the indices themselves (the fuzz and sanitizer builds use clang).
#if defined(__clang__)
#define KVPLAN_SHUFFLE8(a, b, idx) __builtin_shufflevector(a, b, idx)
#else
#define KVPLAN_SHUFFLE8(a, b, idx) __builtin_shuffle(a, b, Index8{idx})
#endif
#define KVPLAN_LO2 0, 8, 1, 9, 4, 12, 5, 13
#define KVPLAN_HI2 2, 10, 3, 11, 6, 14, 7, 15
#define KVPLAN_LO4 0, 1, 8, 9, 4, 5, 12, 13
#define KVPLAN_HI4 2, 3, 10, 11, 6, 7, 14, 15
#define KVPLAN_LO8 0, 1, 2, 3, 8, 9, 10, 11
#define KVPLAN_HI8 4, 5, 6, 7, 12, 13, 14, 15

// out[j] = dot(q, keys[j], d) · scale for eight keys [8, d], d a multiple of 8: the same lanes and
// the same reduction tree as dot(), but the eight trees run as vector additions after an 8 × 8
// transpose of the lane sums (lane k of B_k holds every key's lane-k sum), and the eight
// accumulation chains overlap instead of each waiting on its own horizontal reduction.
KVPLAN_INLINE void dots8(const float* q, const float* keys, std::uint32_t d, float scale,
                         float* out) {
  Lanes8 A[8] = {};
  for (std::uint32_t c = 0; c < d; c += 8) {
    Lanes8 x;
    std::memcpy(&x, q + c, sizeof x);
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) {
      Lanes8 y;
      std::memcpy(&y, keys + std::uint64_t{static_cast<std::uint32_t>(j)} * d + c, sizeof y);
      A[j] += x * y;
    }
  }
  Lanes8 t[8], u[8];
  for (int j = 0; j < 8; j += 2) {
    t[j] = KVPLAN_SHUFFLE8(A[j], A[j + 1], KVPLAN_LO2);
    t[j + 1] = KVPLAN_SHUFFLE8(A[j], A[j + 1], KVPLAN_HI2);
  }
  for (int j = 0; j < 8; j += 4) {
    u[j] = KVPLAN_SHUFFLE8(t[j], t[j + 2], KVPLAN_LO4);          // lanes 0 and 4 of keys j..j+3
    u[j + 1] = KVPLAN_SHUFFLE8(t[j], t[j + 2], KVPLAN_HI4);      // lanes 1 and 5
    u[j + 2] = KVPLAN_SHUFFLE8(t[j + 1], t[j + 3], KVPLAN_LO4);  // lanes 2 and 6
    u[j + 3] = KVPLAN_SHUFFLE8(t[j + 1], t[j + 3], KVPLAN_HI4);  // lanes 3 and 7
  }
  Lanes8 B[8];  // B[k][j] = A[j][k]
  for (int k = 0; k < 4; ++k) {
    B[k] = KVPLAN_SHUFFLE8(u[k], u[k + 4], KVPLAN_LO8);
    B[k + 4] = KVPLAN_SHUFFLE8(u[k], u[k + 4], KVPLAN_HI8);
  }
  const Lanes8 s = ((B[0] + B[4]) + (B[1] + B[5])) + ((B[2] + B[6]) + (B[3] + B[7]));
  const Lanes8 r = s * scale;
  std::memcpy(out, &r, sizeof r);
}
#endif

// o[c] += p[i] · rows[i][c] for i = 0..count-1 in order, c < d: the sum the row-at-a-time loop
// forms, element by element in the same order. Under GCC 64 channels at a time stay in eight
// vector registers across the rows instead of going through memory once per row.
KVPLAN_INLINE void accumulate_rows(const float* rows, std::uint32_t count, std::uint32_t d,
                                   const float* p, float* o) {
  std::uint32_t c0 = 0;
#if defined(__GNUC__)
  for (; c0 + 64 <= d; c0 += 64) {
    // Lane by lane loads and stores (one memcpy of the whole array kept it on the stack).
    Lanes8 a[8];
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) std::memcpy(&a[k], o + c0 + 8 * k, sizeof(Lanes8));
    for (std::uint32_t i = 0; i < count; ++i) {
      const float* row = rows + std::uint64_t{i} * d + c0;
      const float pr = p[i];
#pragma GCC unroll 8
      for (int k = 0; k < 8; ++k) {
        Lanes8 r;
        std::memcpy(&r, row + 8 * k, sizeof r);
        a[k] += pr * r;
      }
    }
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) std::memcpy(o + c0 + 8 * k, &a[k], sizeof(Lanes8));
  }
#endif
  for (std::uint32_t i = 0; i < count; ++i)
    for (std::uint32_t c = c0; c < d; ++c) o[c] += p[i] * rows[std::uint64_t{i} * d + c];
}

KVPLAN_CPU_CLONES Status decode_general(const DecodeAttentionParams& p) {
  const PagedKvView& kv = p.kv;
  const std::uint32_t d = kv.head_dim, n = kv.num_tokens, group = p.num_q_heads / kv.num_kv_heads;
  const float scale = effective_scale(p.scale, d);
  constexpr std::uint32_t kTile = 64;
  std::vector<float> tile(std::uint64_t{kTile} * d), logits(std::uint64_t{group} * n);
  const bool rot = rerotate(p.positions, p.rope);
  const RopeTable rope(p.rope, d);
  for (std::uint32_t h = 0; h < kv.num_kv_heads; ++h) {
    const float* q = p.q + std::uint64_t{h} * group * d;
    for (std::uint32_t t0 = 0; t0 < n; t0 += kTile) {
      const std::uint32_t count = std::min(kTile, n - t0);
      load_key_tile(kv, h, t0, count, tile.data());
      if (rot)
        for (std::uint32_t i = 0; i < count; ++i)
          rope.rotate(tile.data() + std::uint64_t{i} * d,
                      static_cast<double>(t0 + i) -
                          kv.positions[std::uint64_t{h} * kv.positions_stride + t0 + i]);
      for (std::uint32_t g = 0; g < group; ++g) {
        const float* qg = q + std::uint64_t{g} * d;
        float* lg = logits.data() + std::uint64_t{g} * n + t0;
        std::uint32_t i = 0;
#if defined(__GNUC__)
        if (d % 8 == 0)
          for (; i + 8 <= count; i += 8)
            dots8(qg, tile.data() + std::uint64_t{i} * d, d, scale, lg + i);
#endif
        for (; i < count; ++i) lg[i] = dot(qg, tile.data() + std::uint64_t{i} * d, d) * scale;
      }
    }
    for (std::uint32_t g = 0; g < group; ++g) {
      float* l = logits.data() + std::uint64_t{g} * n;
      const float mx = max_value(l, n);
      float sum = 0.f;
      for (std::uint32_t t = 0; t < n; ++t) sum += (l[t] = std::exp(l[t] - mx));
      const float inv = 1.f / sum;
      for (std::uint32_t t = 0; t < n; ++t) l[t] *= inv;
      if (p.probs) std::copy(l, l + n, p.probs + std::uint64_t{h * group + g} * n);
    }
    // Values: a tile of dequantized rows, used by every query head of the group.
    std::vector<float> out(std::uint64_t{group} * d, 0.f);
    for (std::uint32_t t0 = 0; t0 < n; t0 += kTile) {
      const std::uint32_t count = std::min(kTile, n - t0);
      if (is_kivi(kv)) {
        for (std::uint32_t i = 0; i < count; ++i)
          load_value_fast(kv, h, t0 + i, tile.data() + std::uint64_t{i} * d);
      } else {
        const std::uint8_t* recs[kTile];
        const std::uint32_t rb = slot_record_bytes(kv.format, d);
        for (std::uint32_t i = 0; i < count; ++i)
          recs[i] = slot_record(kv.v_base, kv.v_table, kv.v_block_bytes, kv.block_size,
                                kv.num_kv_heads, rb, t0 + i, h);
        decode_rows(recs, count, kv.format.dtype, d, kv.v_scale, tile.data());
      }
      for (std::uint32_t g = 0; g < group; ++g)
        accumulate_rows(tile.data(), count, d, logits.data() + std::uint64_t{g} * n + t0,
                        out.data() + std::uint64_t{g} * d);
    }
    std::copy(out.begin(), out.end(), p.out + std::uint64_t{h} * group * d);
  }
  return Status::Ok();
}

// Softmax of each query head's logits in place (stable: max subtracted), probs copied out.
KVPLAN_INLINE void softmax_rows(float* logits, std::uint32_t group, std::uint32_t n, float* probs) {
  for (std::uint32_t g = 0; g < group; ++g) {
    float* l = logits + std::uint64_t{g} * n;
    const float mx = max_value(l, n);
    float sum = 0.f;
    for (std::uint32_t t = 0; t < n; ++t) sum += (l[t] = std::exp(l[t] - mx));
    const float inv = 1.f / sum;
    for (std::uint32_t t = 0; t < n; ++t) l[t] *= inv;
    if (probs) std::copy(l, l + n, probs + std::uint64_t{g} * n);
  }
}

template <std::uint32_t BITS>
KVPLAN_INLINE void decode_kivi_head(const DecodeAttentionParams& p, std::uint32_t h, float scale,
                                    float* logits, float* out, float* acc, float* qz, float* zacc,
                                    float* row) {
  const PagedKvView& kv = p.kv;
  const std::uint32_t d = kv.head_dim, n = kv.num_tokens, group = p.num_q_heads / kv.num_kv_heads;
  const std::uint32_t G = kv.format.group, W = G * BITS / 32, P = 4 * W + 4, ng = d / G;
  const std::uint32_t kq = kivi_key_quant_tokens(n, kv.format.residual);
  const std::uint32_t vq = kivi_value_quant_tokens(n, kv.format.residual);
  const float* q = p.q + std::uint64_t{h} * group * d;
  alignas(32) float cf[256];
  // Keys: one quantized group (G tokens) at a time.
  for (std::uint32_t gi = 0; gi < kq / G; ++gi) {
    const std::uint8_t* rec = kivi_key_record(kv, gi, h, 0);  // channels: consecutive records
    std::fill(acc, acc + std::uint64_t{group} * G, 0.f);
    std::fill(qz, qz + group, 0.f);
    for (std::uint32_t c = 0; c < d; ++c, rec += P) {
      float s, z;
      kivi_record_floats<BITS>(rec, G, cf, s, z);
      for (std::uint32_t g = 0; g < group; ++g) {
        const float qc = q[std::uint64_t{g} * d + c], qs = qc * s;
        qz[g] += qc * z;
        float* a = acc + std::uint64_t{g} * G;
        for (std::uint32_t j = 0; j < G; ++j) a[j] += qs * cf[j];
      }
    }
    for (std::uint32_t g = 0; g < group; ++g)
      for (std::uint32_t j = 0; j < G; ++j)
        logits[std::uint64_t{g} * n + gi * G + j] = (acc[std::uint64_t{g} * G + j] + qz[g]) * scale;
  }
  // Full-precision key residual.
  for (std::uint32_t t = kq; t < n; ++t) {
    load_key(kv, h, t, row);
    for (std::uint32_t g = 0; g < group; ++g)
      logits[std::uint64_t{g} * n + t] = dot(q + std::uint64_t{g} * d, row, d) * scale;
  }
  softmax_rows(logits, group, n, p.probs ? p.probs + std::uint64_t{h} * group * n : nullptr);
  // Values: quantized tokens record by record, then the full-precision window.
  std::fill(out, out + std::uint64_t{group} * d, 0.f);
  std::fill(zacc, zacc + std::uint64_t{group} * ng, 0.f);
  for (std::uint32_t t = 0; t < vq; ++t) {
    const std::uint8_t* rec = slot_record(kv.v_base, kv.v_table, kv.v_block_bytes, kv.block_size,
                                          kv.num_kv_heads, ng * P, t, h);
    for (std::uint32_t r = 0; r < ng; ++r, rec += P) {
      float s, z;
      kivi_record_floats<BITS>(rec, G, cf, s, z);
      for (std::uint32_t g = 0; g < group; ++g) {
        const float pr = logits[std::uint64_t{g} * n + t], ps = pr * s;
        zacc[std::uint64_t{g} * ng + r] += pr * z;
        float* o = out + std::uint64_t{g} * d + r * G;
        for (std::uint32_t j = 0; j < G; ++j) o[j] += ps * cf[j];
      }
    }
  }
  for (std::uint32_t t = vq; t < n; ++t) {
    load_value(kv, h, t, row);
    for (std::uint32_t g = 0; g < group; ++g) {
      const float pr = logits[std::uint64_t{g} * n + t];
      float* o = out + std::uint64_t{g} * d;
      for (std::uint32_t c = 0; c < d; ++c) o[c] += pr * row[c];
    }
  }
  for (std::uint32_t g = 0; g < group; ++g)
    for (std::uint32_t c = 0; c < d; ++c)
      p.out[(std::uint64_t{h} * group + g) * d + c] =
          out[std::uint64_t{g} * d + c] + zacc[std::uint64_t{g} * ng + c / G];
}

KVPLAN_CPU_CLONES Status decode_kivi_fused(const DecodeAttentionParams& p) {
  const PagedKvView& kv = p.kv;
  const std::uint32_t d = kv.head_dim, n = kv.num_tokens, group = p.num_q_heads / kv.num_kv_heads;
  const std::uint32_t G = kv.format.group, ng = d / G;
  const float scale = effective_scale(p.scale, d);
  std::vector<float> logits(std::uint64_t{group} * n), out(std::uint64_t{group} * d),
      acc(std::uint64_t{group} * G), qz(group), zacc(std::uint64_t{group} * ng), row(d);
  for (std::uint32_t h = 0; h < kv.num_kv_heads; ++h) {
    switch (kv.format.bits) {
      case 2:
        decode_kivi_head<2>(p, h, scale, logits.data(), out.data(), acc.data(), qz.data(),
                            zacc.data(), row.data());
        break;
      case 4:
        decode_kivi_head<4>(p, h, scale, logits.data(), out.data(), acc.data(), qz.data(),
                            zacc.data(), row.data());
        break;
      default:
        decode_kivi_head<8>(p, h, scale, logits.data(), out.data(), acc.data(), qz.data(),
                            zacc.data(), row.data());
        break;
    }
  }
  return Status::Ok();
}

}  // namespace

Status decode_attention_cpu(const DecodeAttentionParams& p) {
  if (Status s = validate(p); !s.ok()) return s;
  const KvFormat& f = p.kv.format;
  const bool fused = is_kivi(p.kv) && !rerotate(p.positions, p.rope) && f.group <= 256 &&
                     (f.group * f.bits) % 32 == 0 && p.kv.head_dim % f.group == 0;
  return fused ? decode_kivi_fused(p) : decode_general(p);
}

}  // namespace kvplan::kernels
