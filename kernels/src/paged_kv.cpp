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

std::uint32_t PagedKvPool::Arena::take() {
  if (free_list.empty()) {
    const std::uint32_t grow = std::max<std::uint32_t>(capacity, 4);
    storage.resize((std::uint64_t{capacity} + grow) * block_bytes);
    for (std::uint32_t b = capacity + grow; b > capacity; --b) free_list.push_back(b - 1);
    capacity += grow;
  }
  const std::uint32_t b = free_list.back();
  free_list.pop_back();
  ++in_use;
  return b;
}

void PagedKvPool::Arena::give(std::uint32_t b) {
  free_list.push_back(b);
  --in_use;
}

Status PagedKvPool::init(const PoolConfig& c) {
  if (Status s = validate(c); !s.ok()) return s;
  cfg_ = c;
  const std::uint64_t S = c.block_size, H = c.num_kv_heads, d = c.head_dim;
  k_ = v_ = kr_ = vw_ = Arena{};
  if (c.format.dtype == KvDtype::kivi) {
    const std::uint64_t G = c.format.group, P = kivi_record_bytes(c.format.group, c.format.bits);
    k_.block_bytes = kivi_key_block_tokens(c.block_size, c.format.group) / G * H * d * P;
    v_.block_bytes = S * H * (d / G) * P;
    kr_.block_bytes = vw_.block_bytes = S * H * d * 2;
  } else {
    k_.block_bytes = v_.block_bytes = S * H * slot_record_bytes(c.format, c.head_dim);
  }
  for (Arena* a : {&k_, &v_, &kr_, &vw_}) {
    if (a->block_bytes == 0 || c.initial_blocks == 0) continue;
    a->storage.resize(std::uint64_t{c.initial_blocks} * a->block_bytes);
    for (std::uint32_t b = c.initial_blocks; b > 0; --b) a->free_list.push_back(b - 1);
    a->capacity = c.initial_blocks;
  }
  seqs_.clear();
  scratch_.assign(std::uint64_t{c.format.residual} * d + 4 * d, 0.f);
  return Status::Ok();
}

std::uint32_t PagedKvPool::add_sequence() {
  std::uint32_t id = 0;
  while (id < seqs_.size() && seqs_[id].live) ++id;
  if (id == seqs_.size()) seqs_.emplace_back();
  seqs_[id].live = true;
  seqs_[id].layers.assign(cfg_.num_layers, LayerCache{});
  return id;
}

Status PagedKvPool::check(std::uint32_t seq, std::uint32_t layer) const {
  if (seq >= seqs_.size() || !seqs_[seq].live)
    return Status::OutOfRange("no live sequence " + std::to_string(seq));
  if (layer >= cfg_.num_layers)
    return Status::OutOfRange("layer " + std::to_string(layer) + " >= num_layers " +
                              std::to_string(cfg_.num_layers));
  return Status::Ok();
}

Status PagedKvPool::free_sequence(std::uint32_t seq) {
  if (Status s = check(seq, 0); !s.ok()) return s;
  for (LayerCache& lc : seqs_[seq].layers) {
    shrink(k_, lc.k_table, 0);
    shrink(v_, lc.v_table, 0);
    shrink(kr_, lc.kr_table, 0);
    shrink(vw_, lc.vw_table, 0);
  }
  seqs_[seq].live = false;
  seqs_[seq].layers.clear();
  return Status::Ok();
}

void PagedKvPool::ensure(Arena& a, std::vector<std::uint32_t>& table, std::uint64_t blocks) {
  while (table.size() < blocks) table.push_back(a.take());
}

void PagedKvPool::shrink(Arena& a, std::vector<std::uint32_t>& table, std::uint64_t blocks) {
  while (table.size() > blocks) {
    a.give(table.back());
    table.pop_back();
  }
}

// Appends one token; k and v are [H, d]; pos[h · pos_stride] is head h's position.
void PagedKvPool::append_one(LayerCache& lc, const float* k, const float* v,
                             const std::int32_t* pos, std::uint32_t pos_stride) {
  const std::uint32_t S = cfg_.block_size, H = cfg_.num_kv_heads, d = cfg_.head_dim;
  const KvFormat& f = cfg_.format;
  const std::uint32_t n = lc.n;
  if (n == lc.pos_stride) {  // grow the position rows
    const std::uint32_t cap = std::max<std::uint32_t>(16, 2 * lc.pos_stride);
    std::vector<std::int32_t> grown(std::uint64_t{H} * cap);
    for (std::uint32_t h = 0; h < H; ++h)
      std::copy_n(lc.pos.begin() + std::uint64_t{h} * lc.pos_stride, n,
                  grown.begin() + std::uint64_t{h} * cap);
    lc.pos.swap(grown);
    lc.pos_stride = cap;
  }
  for (std::uint32_t h = 0; h < H; ++h)
    lc.pos[std::uint64_t{h} * lc.pos_stride + n] = pos[std::uint64_t{h} * pos_stride];

  if (f.dtype != KvDtype::kivi) {
    ensure(k_, lc.k_table, ceil_div(n + 1, S));
    ensure(v_, lc.v_table, ceil_div(n + 1, S));
    const std::uint32_t rb = slot_record_bytes(f, d);
    for (std::uint32_t h = 0; h < H; ++h) {
      std::uint8_t* kr = k_.block(lc.k_table[n / S]) + (std::uint64_t{n % S} * H + h) * rb;
      std::uint8_t* vr = v_.block(lc.v_table[n / S]) + (std::uint64_t{n % S} * H + h) * rb;
      const float* kx = k + std::uint64_t{h} * d;
      const float* vx = v + std::uint64_t{h} * d;
      if (f.dtype == KvDtype::int8) {
        int8_encode_record(kx, d, kr);
        int8_encode_record(vx, d, vr);
      } else {
        const std::uint32_t eb = plain_element_bytes(f.dtype);
        for (std::uint32_t c = 0; c < d; ++c) {
          plain_encode(f.dtype, kx[c], cfg_.k_scale, kr + c * eb);
          plain_encode(f.dtype, vx[c], cfg_.v_scale, vr + c * eb);
        }
      }
    }
    lc.n = n + 1;
    return;
  }

  // KIVI. Keys: into the fp16 residual; a full residual of R tokens is quantized as a chunk.
  const std::uint32_t G = f.group, R = f.residual, b = f.bits;
  const std::uint32_t P = kivi_record_bytes(G, b);
  const std::uint32_t kq = kivi_key_quant_tokens(n, R);
  const std::uint32_t ri = n - kq;  // residual index of the new key
  ensure(kr_, lc.kr_table, ceil_div(ri + 1, S));
  for (std::uint32_t h = 0; h < H; ++h) {
    std::uint8_t* r = kr_.block(lc.kr_table[ri / S]) + (std::uint64_t{ri % S} * H + h) * 2 * d;
    for (std::uint32_t c = 0; c < d; ++c)
      plain_encode(KvDtype::fp16, k[std::uint64_t{h} * d + c], 1.f, r + 2 * c);
  }
  if (ri + 1 == R) {
    const std::uint32_t U = kivi_key_block_tokens(S, G), gpb = U / G;
    ensure(k_, lc.k_table, ceil_div(kq + R, U));
    float* tile = scratch_.data();  // [R, d] of one head, read back from fp16
    for (std::uint32_t h = 0; h < H; ++h) {
      for (std::uint32_t t = 0; t < R; ++t) {
        const std::uint8_t* r =
            kr_.block(lc.kr_table[t / S]) + (std::uint64_t{t % S} * H + h) * 2 * d;
        for (std::uint32_t c = 0; c < d; ++c)
          tile[std::uint64_t{t} * d + c] = plain_decode(KvDtype::fp16, r + 2 * c, 1.f);
      }
      for (std::uint32_t g = 0; g < R / G; ++g) {
        const std::uint32_t gi = kq / G + g;
        std::uint8_t* blk = k_.block(lc.k_table[gi / gpb]);
        for (std::uint32_t c = 0; c < d; ++c)
          kivi_encode_record(tile + std::uint64_t{g} * G * d + c, d, G, b,
                             blk + ((std::uint64_t{gi % gpb} * H + h) * d + c) * P);
      }
    }
    shrink(kr_, lc.kr_table, 0);
  }
  // Values: the oldest window token is quantized once the window holds R, then the new one enters.
  const std::uint32_t C = kivi_window_slots(S, R);
  if (n >= R) {
    const std::uint32_t t = n - R, slot = t % C;  // oldest token in the window
    ensure(v_, lc.v_table, ceil_div(t + 1, S));
    float* row = scratch_.data();
    for (std::uint32_t h = 0; h < H; ++h) {
      const std::uint8_t* r =
          vw_.block(lc.vw_table[slot / S]) + (std::uint64_t{slot % S} * H + h) * 2 * d;
      for (std::uint32_t c = 0; c < d; ++c) row[c] = plain_decode(KvDtype::fp16, r + 2 * c, 1.f);
      std::uint8_t* dst =
          v_.block(lc.v_table[t / S]) + (std::uint64_t{t % S} * H + h) * (d / G) * P;
      for (std::uint32_t j = 0; j < d / G; ++j)
        kivi_encode_record(row + j * G, 1, G, b, dst + j * P);
    }
  }
  const std::uint32_t slot = n % C;
  ensure(vw_, lc.vw_table, slot / S + 1);
  for (std::uint32_t h = 0; h < H; ++h) {
    std::uint8_t* r = vw_.block(lc.vw_table[slot / S]) + (std::uint64_t{slot % S} * H + h) * 2 * d;
    for (std::uint32_t c = 0; c < d; ++c)
      plain_encode(KvDtype::fp16, v[std::uint64_t{h} * d + c], 1.f, r + 2 * c);
  }
  lc.n = n + 1;
}

Status PagedKvPool::append(std::uint32_t seq, std::uint32_t layer, const float* k, const float* v,
                           std::int32_t position) {
  return append_tokens(seq, layer, 1, k, v, &position, false);
}

Status PagedKvPool::append_tokens(std::uint32_t seq, std::uint32_t layer, std::uint32_t n,
                                  const float* k, const float* v, const std::int32_t* positions,
                                  bool per_head) {
  if (Status s = check(seq, layer); !s.ok()) return s;
  if (n == 0) return Status::Ok();
  if (!k || !v) return Status::Invalid("append: k and v must not be null");
  LayerCache& lc = seqs_[seq].layers[layer];
  const std::uint32_t H = cfg_.num_kv_heads, d = cfg_.head_dim;
  // Check positions first, so a refused append changes nothing.
  for (std::uint32_t h = 0; h < H; ++h) {
    std::int64_t last = lc.n ? lc.pos[std::uint64_t{h} * lc.pos_stride + lc.n - 1] : -1;
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::int64_t p =
          !positions ? (lc.n ? lc.pos[std::uint64_t{h} * lc.pos_stride + lc.n - 1] : -1) + 1 + i
          : per_head ? positions[std::uint64_t{i} * H + h]
                     : positions[i];
      if (p <= last)
        return Status::Invalid("append: position " + std::to_string(p) + " of head " +
                               std::to_string(h) + " does not exceed the last position " +
                               std::to_string(last));
      last = p;
    }
  }
  std::vector<std::int32_t> pos(H);
  for (std::uint32_t i = 0; i < n; ++i) {
    for (std::uint32_t h = 0; h < H; ++h) {
      pos[h] = !positions ? (lc.n ? lc.pos[std::uint64_t{h} * lc.pos_stride + lc.n - 1] + 1 : 0)
               : per_head ? positions[std::uint64_t{i} * H + h]
                          : positions[i];
    }
    append_one(lc, k + std::uint64_t{i} * H * d, v + std::uint64_t{i} * H * d, pos.data(), 1);
  }
  return Status::Ok();
}

Status PagedKvPool::compact(std::uint32_t seq, std::uint32_t layer, const KeepSet& keep) {
  if (Status s = check(seq, layer); !s.ok()) return s;
  if (cfg_.format.dtype == KvDtype::kivi)
    return Status::Invalid(
        "compact: KIVI groups keys across tokens, so a quantized cache cannot evict single "
        "tokens; select before quantizing (append only the kept tokens) or use another format");
  LayerCache& lc = seqs_[seq].layers[layer];
  const std::uint32_t H = cfg_.num_kv_heads, S = cfg_.block_size, d = cfg_.head_dim;
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
  const std::uint32_t rb = slot_record_bytes(cfg_.format, d);
  for (std::uint32_t h = 0; h < H; ++h) {
    std::int32_t* pos = lc.pos.data() + std::uint64_t{h} * lc.pos_stride;
    for (std::uint32_t i = 0; i < keep.count; ++i) {
      const std::uint32_t s =
          static_cast<std::uint32_t>(keep.slots[std::uint64_t{h} * keep.count + i]);
      pos[i] = pos[s];
      if (s == i) continue;
      for (Arena* a : {&k_, &v_}) {
        const auto& table = a == &k_ ? lc.k_table : lc.v_table;
        std::memmove(a->block(table[i / S]) + (std::uint64_t{i % S} * H + h) * rb,
                     a->block(table[s / S]) + (std::uint64_t{s % S} * H + h) * rb, rb);
      }
    }
  }
  lc.n = keep.count;
  shrink(k_, lc.k_table, ceil_div(lc.n, S));
  shrink(v_, lc.v_table, ceil_div(lc.n, S));
  return Status::Ok();
}

std::uint32_t PagedKvPool::num_tokens(std::uint32_t seq, std::uint32_t layer) const {
  return check(seq, layer).ok() ? seqs_[seq].layers[layer].n : 0;
}

const std::int32_t* PagedKvPool::positions(std::uint32_t seq, std::uint32_t layer,
                                           std::uint32_t h) const {
  if (!check(seq, layer).ok() || h >= cfg_.num_kv_heads) return nullptr;
  const LayerCache& lc = seqs_[seq].layers[layer];
  return lc.pos.data() + std::uint64_t{h} * lc.pos_stride;
}

PagedKvView PagedKvPool::view(std::uint32_t seq, std::uint32_t layer) const {
  PagedKvView v;
  if (!check(seq, layer).ok()) return v;
  const LayerCache& lc = seqs_[seq].layers[layer];
  v.format = cfg_.format;
  v.block_size = cfg_.block_size;
  v.num_kv_heads = cfg_.num_kv_heads;
  v.head_dim = cfg_.head_dim;
  v.num_tokens = lc.n;
  v.k_scale = cfg_.k_scale;
  v.v_scale = cfg_.v_scale;
  v.k_base = k_.storage.data();
  v.k_table = lc.k_table.data();
  v.k_block_bytes = k_.block_bytes;
  v.v_base = v_.storage.data();
  v.v_table = lc.v_table.data();
  v.v_block_bytes = v_.block_bytes;
  v.kr_base = kr_.storage.data();
  v.kr_table = lc.kr_table.data();
  v.kr_block_bytes = kr_.block_bytes;
  v.vw_base = vw_.storage.data();
  v.vw_table = lc.vw_table.data();
  v.vw_block_bytes = vw_.block_bytes;
  v.positions = lc.pos.data();
  v.positions_stride = lc.pos_stride;
  return v;
}

void PagedKvPool::read(std::uint32_t seq, std::uint32_t layer, std::uint32_t h, std::uint32_t slot,
                       float* k, float* v) const {
  const PagedKvView view = this->view(seq, layer);
  if (h >= view.num_kv_heads || slot >= view.num_tokens) return;
  if (k) load_key(view, h, slot, k);
  if (v) load_value(view, h, slot, v);
}

std::uint64_t PagedKvPool::layer_bytes(const LayerCache& lc) const {
  return lc.k_table.size() * k_.block_bytes + lc.v_table.size() * v_.block_bytes +
         lc.kr_table.size() * kr_.block_bytes + lc.vw_table.size() * vw_.block_bytes;
}

std::uint64_t PagedKvPool::bytes_held(std::uint32_t seq, std::uint32_t layer) const {
  return check(seq, layer).ok() ? layer_bytes(seqs_[seq].layers[layer]) : 0;
}

std::uint64_t PagedKvPool::bytes_held(std::uint32_t seq) const {
  if (!check(seq, 0).ok()) return 0;
  std::uint64_t total = 0;
  for (const LayerCache& lc : seqs_[seq].layers) total += layer_bytes(lc);
  return total;
}

std::uint64_t PagedKvPool::bytes_held() const {
  return k_.in_use * k_.block_bytes + v_.in_use * v_.block_bytes + kr_.in_use * kr_.block_bytes +
         vw_.in_use * vw_.block_bytes;
}

std::uint64_t PagedKvPool::blocks_in_use() const {
  return std::uint64_t{k_.in_use} + v_.in_use + kr_.in_use + vw_.in_use;
}

std::uint64_t PagedKvPool::bytes_reserved() const {
  return k_.storage.size() + v_.storage.size() + kr_.storage.size() + vw_.storage.size();
}

}  // namespace kvplan::kernels
