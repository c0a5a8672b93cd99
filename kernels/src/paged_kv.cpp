#include "kvplan/kernels/paged_kv.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

namespace kvplan::kernels {

PagedKvView dense_view(const float* k, const float* v, std::uint32_t n, std::uint32_t heads,
                       std::uint32_t head_dim, const std::int32_t* positions,
                       const std::uint32_t* table) {
  PagedKvView view;
  view.format.dtype = KvDtype::fp32;
  view.block_size = std::max<std::uint32_t>(n, 1);
  view.num_kv_heads = heads;
  view.head_dim = head_dim;
  view.num_tokens = n;
  view.k_base = reinterpret_cast<const std::uint8_t*>(k);
  view.v_base = reinterpret_cast<const std::uint8_t*>(v);
  view.k_table = view.v_table = table;
  view.k_block_bytes = view.v_block_bytes = std::uint64_t{n} * heads * head_dim * 4;
  view.positions = positions;
  view.positions_stride = n;
  return view;
}

void gather_slots(const float* in, std::uint32_t n, const KeepSet& keep, float* out) {
  for (std::uint32_t h = 0; h < keep.num_kv_heads; ++h)
    for (std::uint32_t i = 0; i < keep.count; ++i)  // slots ascend, so i <= slot: in place works
      out[std::uint64_t{h} * keep.count + i] =
          in[std::uint64_t{h} * n + keep.slots[std::uint64_t{h} * keep.count + i]];
}

// ---- the host storage: CPU loops over paged_kv.hpp's element helpers ----

struct PagedKvPool::HostStorage final : PagedKvStorage {
  explicit HostStorage(PagedKvPool* p) : pool(p) {}
  PagedKvPool* pool;

  Status grow(KvArena a, std::uint32_t, std::uint32_t new_blocks) override {
    pool->arena_[static_cast<std::uint32_t>(a)].resize(std::uint64_t{new_blocks} *
                                                       pool->book_.block_bytes(a));
    return Status::Ok();
  }

  Status write_plain(const LayerBook& lc, std::uint32_t n0, std::uint32_t m, const float* k,
                     const float* v) override {
    const PagedKvView view = pool->make_view(lc);
    for (std::uint64_t r = 0; r < std::uint64_t{2} * m * view.num_kv_heads; ++r)
      append_plain_record(view, n0, r, k, v);
    return Status::Ok();
  }

  Status kivi_quantize_keys(const LayerBook& lc, std::uint32_t kq0, std::uint32_t kq1,
                            std::uint32_t n0, const float* k) override {
    const PagedKvView view = pool->make_view(lc);
    const std::uint64_t e = std::uint64_t{kq1 - kq0} * view.num_kv_heads * view.head_dim;
    pool->scratch_.resize(e);
    float* tile = pool->scratch_.data();
    for (std::uint64_t i = 0; i < e; ++i) tile[i] = kivi_key_to_quantize(view, kq0, n0, k, i);
    for (std::uint64_t r = 0; r < e / view.format.group; ++r) kivi_encode_key(view, kq0, tile, r);
    return Status::Ok();
  }

  Status kivi_write_residual(const LayerBook& lc, std::uint32_t r0, std::uint32_t N,
                             std::uint32_t kq1, std::uint32_t n0, const float* k) override {
    const PagedKvView view = pool->make_view(lc);
    for (std::uint64_t e = 0; e < std::uint64_t{N - r0} * view.num_kv_heads * view.head_dim; ++e)
      kivi_write_residual_element(view, r0, kq1, n0, k, e);
    return Status::Ok();
  }

  Status kivi_quantize_values(const LayerBook& lc, std::uint32_t vq0, std::uint32_t vq1,
                              std::uint32_t n0, const float* v) override {
    const PagedKvView view = pool->make_view(lc);
    const std::uint64_t e = std::uint64_t{vq1 - vq0} * view.num_kv_heads * view.head_dim;
    pool->scratch_.resize(e);
    float* tile = pool->scratch_.data();
    for (std::uint64_t i = 0; i < e; ++i) tile[i] = kivi_value_to_quantize(view, vq0, n0, v, i);
    for (std::uint64_t r = 0; r < e / view.format.group; ++r) kivi_encode_value(view, vq0, tile, r);
    return Status::Ok();
  }

  Status kivi_write_window(const LayerBook& lc, std::uint32_t w0, std::uint32_t N, std::uint32_t n0,
                           const float* v) override {
    const PagedKvView view = pool->make_view(lc);
    for (std::uint64_t e = 0; e < std::uint64_t{N - w0} * view.num_kv_heads * view.head_dim; ++e)
      kivi_write_window_element(view, w0, n0, v, e);
    return Status::Ok();
  }

  Status move_kept(const LayerBook& lc, const KeepSet& keep) override {
    const PoolConfig& c = pool->book_.config();
    const std::uint32_t H = c.num_kv_heads, S = c.block_size;
    const std::uint32_t rb = slot_record_bytes(c.format, c.head_dim);
    for (std::uint32_t h = 0; h < H; ++h)
      for (std::uint32_t i = 0; i < keep.count; ++i) {
        const auto s = static_cast<std::uint32_t>(keep.slots[std::uint64_t{h} * keep.count + i]);
        if (s == i) continue;
        for (KvArena a : {KvArena::k, KvArena::v}) {
          std::uint8_t* base = pool->arena_[static_cast<std::uint32_t>(a)].data();
          const std::uint64_t bb = pool->book_.block_bytes(a);
          const auto& table = lc.table(a);
          std::memmove(base + table[i / S] * bb + (std::uint64_t{i % S} * H + h) * rb,
                       base + table[s / S] * bb + (std::uint64_t{s % S} * H + h) * rb, rb);
        }
      }
    return Status::Ok();
  }
};

// Slots ascend, so slot i <= keep.slots[i]: moving down in order never overwrites a kept record.

// ---- the pool: the book's calls with this storage ----

Status PagedKvPool::init(const PoolConfig& c) {
  if (Status s = validate(c); !s.ok()) return s;
  for (auto& a : arena_) a.clear();
  scratch_.clear();
  HostStorage st(this);
  return book_.init(c, st);
}

Status PagedKvPool::free_sequence(std::uint32_t seq) {
  HostStorage st(this);
  return book_.free_sequence(seq, st);
}

Status PagedKvPool::append_tokens(std::uint32_t seq, std::uint32_t layer, std::uint32_t n,
                                  const float* k, const float* v, const std::int32_t* positions,
                                  bool per_head) {
  HostStorage st(this);
  return book_.append(seq, layer, n, k, v, positions, per_head, st);
}

Status PagedKvPool::compact(std::uint32_t seq, std::uint32_t layer, const KeepSet& keep) {
  HostStorage st(this);
  return book_.compact(seq, layer, keep, st);
}

PagedKvView PagedKvPool::make_view(const LayerBook& lc) const {
  PagedKvView v = book_.view_shape(lc);
  v.k_base = arena_[0].data();
  v.v_base = arena_[1].data();
  v.kr_base = arena_[2].data();
  v.vw_base = arena_[3].data();
  v.k_table = lc.tables[0].data();
  v.v_table = lc.tables[1].data();
  v.kr_table = lc.tables[2].data();
  v.vw_table = lc.tables[3].data();
  v.positions = lc.pos.data();
  return v;
}

PagedKvView PagedKvPool::view(std::uint32_t seq, std::uint32_t layer) const {
  if (!book_.check(seq, layer).ok()) return PagedKvView{};
  return make_view(book_.layer(seq, layer));
}

void PagedKvPool::read(std::uint32_t seq, std::uint32_t layer, std::uint32_t h, std::uint32_t slot,
                       float* k, float* v) const {
  const PagedKvView view = this->view(seq, layer);
  if (h >= view.num_kv_heads || slot >= view.num_tokens) return;
  if (k) load_key(view, h, slot, k);
  if (v) load_value(view, h, slot, v);
}

}  // namespace kvplan::kernels
