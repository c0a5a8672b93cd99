// PagedKvBook: the bookkeeping both paged pools run (paged_kv.hpp). The order of every take and
// give here is the order block ids are handed out, on the host and on the device alike.
#include <algorithm>
#include <string>

#include "kvplan/kernels/paged_kv.hpp"

namespace kvplan::kernels {

ArenaBlockBytes arena_block_bytes(const PoolConfig& c) {
  ArenaBlockBytes b;
  const std::uint64_t S = c.block_size, H = c.num_kv_heads, d = c.head_dim;
  if (c.format.dtype == KvDtype::kivi) {
    const std::uint64_t G = c.format.group, P = kivi_record_bytes(c.format.group, c.format.bits);
    b.bytes[0] = kivi_key_block_tokens(c.block_size, c.format.group) / G * H * d * P;
    b.bytes[1] = S * H * (d / G) * P;
    b.bytes[2] = b.bytes[3] = S * H * d * 2;
  } else {
    b.bytes[0] = b.bytes[1] = S * H * slot_record_bytes(c.format, c.head_dim);
  }
  return b;
}

Status PagedKvBook::init(const PoolConfig& c, PagedKvStorage& st) {
  if (Status s = validate(c); !s.ok()) return s;
  cfg_ = c;
  seqs_.clear();
  const ArenaBlockBytes bb = arena_block_bytes(c);
  for (std::uint32_t i = 0; i < kKvArenas; ++i) {
    Arena& a = arenas_[i];
    a = Arena{};
    a.block_bytes = bb.bytes[i];
    if (a.block_bytes == 0 || c.initial_blocks == 0) continue;
    if (Status s = st.grow(static_cast<KvArena>(i), 0, c.initial_blocks); !s.ok()) return s;
    for (std::uint32_t b = c.initial_blocks; b > 0; --b) a.free_list.push_back(b - 1);
    a.capacity = c.initial_blocks;
  }
  return Status::Ok();
}

std::uint32_t PagedKvBook::add_sequence() {
  std::uint32_t id = 0;
  while (id < seqs_.size() && seqs_[id].live) ++id;
  if (id == seqs_.size()) seqs_.emplace_back();
  seqs_[id].live = true;
  seqs_[id].layers.assign(cfg_.num_layers, LayerBook{});
  return id;
}

Status PagedKvBook::check(std::uint32_t seq, std::uint32_t layer) const {
  if (seq >= seqs_.size() || !seqs_[seq].live)
    return Status::OutOfRange("no live sequence " + std::to_string(seq));
  if (layer >= cfg_.num_layers)
    return Status::OutOfRange("layer " + std::to_string(layer) + " >= num_layers " +
                              std::to_string(cfg_.num_layers));
  return Status::Ok();
}

Status PagedKvBook::free_sequence(std::uint32_t seq, PagedKvStorage& st) {
  if (Status s = check(seq, 0); !s.ok()) return s;
  if (Status s = st.before_free(); !s.ok()) return s;
  for (LayerBook& lc : seqs_[seq].layers) {
    for (std::uint32_t a = 0; a < kKvArenas; ++a) shrink(lc, static_cast<KvArena>(a), 0);
    st.layer_released(lc);
  }
  seqs_[seq].live = false;
  seqs_[seq].layers.clear();
  return Status::Ok();
}

Status PagedKvBook::take(KvArena which, PagedKvStorage& st, std::uint32_t* block) {
  Arena& a = arenas_[idx(which)];
  if (a.free_list.empty()) {
    const std::uint32_t grow = std::max<std::uint32_t>(a.capacity, 4);
    if (Status s = st.grow(which, a.capacity, a.capacity + grow); !s.ok()) return s;
    for (std::uint32_t b = a.capacity + grow; b > a.capacity; --b) a.free_list.push_back(b - 1);
    a.capacity += grow;
  }
  *block = a.free_list.back();
  a.free_list.pop_back();
  ++a.in_use;
  return Status::Ok();
}

Status PagedKvBook::ensure(LayerBook& lc, KvArena a, std::uint64_t blocks, PagedKvStorage& st) {
  auto& table = lc.tables[idx(a)];
  while (table.size() < blocks) {
    std::uint32_t b = 0;
    if (Status s = take(a, st, &b); !s.ok()) return s;
    table.push_back(b);
  }
  return Status::Ok();
}

void PagedKvBook::shrink(LayerBook& lc, KvArena a, std::uint64_t blocks) {
  auto& table = lc.tables[idx(a)];
  Arena& arena = arenas_[idx(a)];
  while (table.size() > blocks) {
    arena.free_list.push_back(table.back());
    --arena.in_use;
    table.pop_back();
  }
}

bool PagedKvBook::reserve_positions(LayerBook& lc, std::uint32_t need) const {
  if (need <= lc.pos_stride) return false;
  const std::uint32_t H = cfg_.num_kv_heads;
  std::uint32_t cap = std::max<std::uint32_t>(16, 2 * lc.pos_stride);
  while (cap < need) cap *= 2;
  std::vector<std::int32_t> grown(std::uint64_t{H} * cap);
  for (std::uint32_t h = 0; h < H; ++h)
    std::copy_n(lc.pos.begin() + std::uint64_t{h} * lc.pos_stride, lc.n,
                grown.begin() + std::uint64_t{h} * cap);
  lc.pos.swap(grown);
  lc.pos_stride = cap;
  return true;
}

Status PagedKvBook::append(std::uint32_t seq, std::uint32_t layer, std::uint32_t m, const float* k,
                           const float* v, const std::int32_t* positions, bool per_head,
                           PagedKvStorage& st) {
  if (Status s = check(seq, layer); !s.ok()) return s;
  if (m == 0) return Status::Ok();
  if (!k || !v) return Status::Invalid("append: k and v must not be null");
  LayerBook& lc = seqs_[seq].layers[layer];
  const std::uint32_t H = cfg_.num_kv_heads, S = cfg_.block_size;
  const std::uint32_t n0 = lc.n, N = n0 + m;
  // Positions first, so a refused append changes nothing.
  std::vector<std::int32_t> newpos(std::uint64_t{H} * m);
  for (std::uint32_t h = 0; h < H; ++h) {
    std::int64_t last = n0 ? lc.pos[std::uint64_t{h} * lc.pos_stride + n0 - 1] : -1;
    const std::int64_t base = last;
    for (std::uint32_t i = 0; i < m; ++i) {
      const std::int64_t p = !positions ? base + 1 + i
                             : per_head ? positions[std::uint64_t{i} * H + h]
                                        : positions[i];
      if (p <= last)
        return Status::Invalid("append: position " + std::to_string(p) + " of head " +
                               std::to_string(h) + " does not exceed the last position " +
                               std::to_string(last));
      last = p;
      newpos[std::uint64_t{h} * m + i] = static_cast<std::int32_t>(p);
    }
  }
  const bool regrown = reserve_positions(lc, N);
  for (std::uint32_t h = 0; h < H; ++h)
    std::copy_n(newpos.begin() + std::uint64_t{h} * m, m,
                lc.pos.begin() + std::uint64_t{h} * lc.pos_stride + n0);
  if (cfg_.format.dtype == KvDtype::kivi) {
    if (Status s = append_kivi(lc, n0, N, k, v, st); !s.ok()) return s;
  } else {
    if (Status s = ensure(lc, KvArena::k, ceil_div(N, S), st); !s.ok()) return s;
    if (Status s = ensure(lc, KvArena::v, ceil_div(N, S), st); !s.ok()) return s;
    if (Status s = st.tables_changed(lc); !s.ok()) return s;
    if (Status s = st.write_plain(lc, n0, m, k, v); !s.ok()) return s;
  }
  lc.n = N;
  return st.positions_changed(lc, regrown ? 0 : n0, N, regrown);
}

// The one KIVI append (paged_kv.hpp's comment): keys completing residual chunks are quantized
// before the residual's blocks return, values leaving the window before the ring is overwritten.
Status PagedKvBook::append_kivi(LayerBook& lc, std::uint32_t n0, std::uint32_t N, const float* k,
                                const float* v, PagedKvStorage& st) {
  const std::uint32_t S = cfg_.block_size, G = cfg_.format.group;
  const KiviAppendPlan p = kivi_append_plan(n0, N, S, cfg_.format.residual);
  const std::uint32_t C = kivi_window_slots(S, cfg_.format.residual);
  if (p.kq1 > p.kq0) {
    if (Status s = ensure(lc, KvArena::k, ceil_div(p.kq1, kivi_key_block_tokens(S, G)), st);
        !s.ok())
      return s;
    if (Status s = st.tables_changed(lc); !s.ok()) return s;
    if (Status s = st.kivi_quantize_keys(lc, p.kq0, p.kq1, n0, k); !s.ok()) return s;
    shrink(lc, KvArena::kr, 0);
  }
  if (N > p.r0) {
    if (Status s = ensure(lc, KvArena::kr, ceil_div(N - p.kq1, S), st); !s.ok()) return s;
    if (Status s = st.tables_changed(lc); !s.ok()) return s;
    if (Status s = st.kivi_write_residual(lc, p.r0, N, p.kq1, n0, k); !s.ok()) return s;
  }
  if (p.vq1 > p.vq0) {
    if (Status s = ensure(lc, KvArena::v, ceil_div(p.vq1, S), st); !s.ok()) return s;
    if (Status s = st.tables_changed(lc); !s.ok()) return s;
    if (Status s = st.kivi_quantize_values(lc, p.vq0, p.vq1, n0, v); !s.ok()) return s;
  }
  if (Status s = ensure(lc, KvArena::vw, ceil_div(std::min(N, C), S), st); !s.ok()) return s;
  if (Status s = st.tables_changed(lc); !s.ok()) return s;
  return st.kivi_write_window(lc, p.w0, N, n0, v);
}

Status PagedKvBook::compact(std::uint32_t seq, std::uint32_t layer, const KeepSet& keep,
                            PagedKvStorage& st) {
  if (Status s = check(seq, layer); !s.ok()) return s;
  if (cfg_.format.dtype == KvDtype::kivi)
    return Status::Invalid(
        "compact: KIVI groups keys across tokens, so a quantized cache cannot evict single "
        "tokens; select before quantizing (append only the kept tokens) or use another format");
  LayerBook& lc = seqs_[seq].layers[layer];
  const std::uint32_t H = cfg_.num_kv_heads, S = cfg_.block_size;
  if (keep.num_kv_heads != H || keep.slots.size() != std::uint64_t{H} * keep.count)
    return Status::Invalid("compact: keep set must hold count slots for each of " +
                           std::to_string(H) + " KV heads");
  for (std::uint32_t h = 0; h < H; ++h) {
    std::int64_t last = -1;
    for (std::uint32_t i = 0; i < keep.count; ++i) {
      const std::int32_t s = keep.slots[std::uint64_t{h} * keep.count + i];
      if (s <= last || s >= static_cast<std::int64_t>(lc.n))
        return Status::Invalid("compact: slots of head " + std::to_string(h) +
                               " must ascend within [0, " + std::to_string(lc.n) + "), got " +
                               std::to_string(s));
      last = s;
    }
  }
  if (keep.count > 0)
    if (Status s = st.move_kept(lc, keep); !s.ok()) return s;
  for (std::uint32_t h = 0; h < H; ++h) {
    std::int32_t* pos = lc.pos.data() + std::uint64_t{h} * lc.pos_stride;
    for (std::uint32_t i = 0; i < keep.count; ++i)
      pos[i] = pos[keep.slots[std::uint64_t{h} * keep.count + i]];
  }
  lc.n = keep.count;
  if (Status s = st.positions_changed(lc, 0, lc.n, false); !s.ok()) return s;
  if (Status s = st.before_free(); !s.ok()) return s;  // freed blocks may be handed out next
  shrink(lc, KvArena::k, ceil_div(lc.n, S));
  shrink(lc, KvArena::v, ceil_div(lc.n, S));
  return st.tables_changed(lc);
}

PagedKvView PagedKvBook::view_shape(const LayerBook& lc) const {
  PagedKvView v;
  v.format = cfg_.format;
  v.block_size = cfg_.block_size;
  v.num_kv_heads = cfg_.num_kv_heads;
  v.head_dim = cfg_.head_dim;
  v.num_tokens = lc.n;
  v.k_scale = cfg_.k_scale;
  v.v_scale = cfg_.v_scale;
  v.k_block_bytes = arenas_[0].block_bytes;
  v.v_block_bytes = arenas_[1].block_bytes;
  v.kr_block_bytes = arenas_[2].block_bytes;
  v.vw_block_bytes = arenas_[3].block_bytes;
  v.positions_stride = lc.pos_stride;
  return v;
}

std::uint64_t PagedKvBook::layer_bytes(const LayerBook& lc) const {
  std::uint64_t b = 0;
  for (std::uint32_t a = 0; a < kKvArenas; ++a) b += lc.tables[a].size() * arenas_[a].block_bytes;
  return b;
}

std::uint64_t PagedKvBook::bytes_held(std::uint32_t seq, std::uint32_t layer) const {
  return check(seq, layer).ok() ? layer_bytes(seqs_[seq].layers[layer]) : 0;
}

std::uint64_t PagedKvBook::bytes_held(std::uint32_t seq) const {
  if (!check(seq, 0).ok()) return 0;
  std::uint64_t total = 0;
  for (const LayerBook& lc : seqs_[seq].layers) total += layer_bytes(lc);
  return total;
}

std::uint64_t PagedKvBook::bytes_held() const {
  std::uint64_t b = 0;
  for (const Arena& a : arenas_) b += a.in_use * a.block_bytes;
  return b;
}

std::uint64_t PagedKvBook::blocks_in_use() const {
  std::uint64_t n = 0;
  for (const Arena& a : arenas_) n += a.in_use;
  return n;
}

std::uint64_t PagedKvBook::bytes_reserved() const {
  std::uint64_t b = 0;
  for (const Arena& a : arenas_) b += std::uint64_t{a.capacity} * a.block_bytes;
  return b;
}

std::uint32_t PagedKvPoolBase::num_tokens(std::uint32_t seq, std::uint32_t layer) const {
  return book_.check(seq, layer).ok() ? book_.layer(seq, layer).n : 0;
}

const std::int32_t* PagedKvPoolBase::positions(std::uint32_t seq, std::uint32_t layer,
                                               std::uint32_t h) const {
  if (!book_.check(seq, layer).ok() || h >= book_.config().num_kv_heads) return nullptr;
  const LayerBook& lc = book_.layer(seq, layer);
  return lc.pos.data() + std::uint64_t{h} * lc.pos_stride;
}

}  // namespace kvplan::kernels
