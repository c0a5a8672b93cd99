// DevicePagedKv: paged_kv.hpp's block pool in device memory. Host side keeps the authoritative
// block tables and free lists (the same growth and reuse order as PagedKvPool, so the two pools
// hand out the same block ids for the same calls) and mirrors tables and positions to the
// device; kernels encode appended tokens and move records on compaction. Every record address
// comes from paged_kv.hpp's helpers (slot_record, kivi_key_record) through a device view.
// Compiled with --fmad=false: the encoders must round exactly as on the CPU.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "cuda_common.hpp"

namespace kvplan::kernels {
namespace {

constexpr int kThreads = 256;

unsigned blocks_for(std::uint64_t work) {
  return static_cast<unsigned>(std::max<std::uint64_t>(
      1,
      std::min<std::uint64_t>((work + kThreads - 1) / kThreads, cuda_detail::sm_count() * 32ull)));
}

#define KVPLAN_GRID_LOOP(i, count)                                                          \
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < (count); \
       i += std::uint64_t{gridDim.x} * blockDim.x)

__device__ std::uint8_t* dwritable(const std::uint8_t* p) { return const_cast<std::uint8_t*>(p); }

// fp16 round trip, exactly as the CPU pool stores then re-reads a residual / window entry.
__device__ float through_fp16(float x) {
  std::uint8_t h[2];
  plain_encode(KvDtype::fp16, x, 1.f, h);
  return plain_decode(KvDtype::fp16, h, 1.f);
}

// Plain / int8: one thread per (new token, head, K|V) record.
__global__ void paged_kv_append_kernel(PagedKvView v, std::uint32_t n0, std::uint32_t m,
                                       const float* __restrict__ k, const float* __restrict__ val) {
  const std::uint32_t H = v.num_kv_heads, d = v.head_dim, S = v.block_size;
  const std::uint32_t rb = slot_record_bytes(v.format, d);
  KVPLAN_GRID_LOOP(r, std::uint64_t{m} * H * 2) {
    const bool is_k = r % 2 == 0;
    const std::uint64_t ih = r / 2;
    const std::uint32_t i = static_cast<std::uint32_t>(ih / H),
                        h = static_cast<std::uint32_t>(ih % H);
    const float* x = (is_k ? k : val) + ih * d;
    std::uint8_t* rec =
        dwritable(is_k ? slot_record(v.k_base, v.k_table, v.k_block_bytes, S, H, rb, n0 + i, h)
                       : slot_record(v.v_base, v.v_table, v.v_block_bytes, S, H, rb, n0 + i, h));
    if (v.format.dtype == KvDtype::int8) {
      int8_encode_record(x, d, rec);
    } else {
      const std::uint32_t eb = plain_element_bytes(v.format.dtype);
      const float scale = is_k ? v.k_scale : v.v_scale;
      for (std::uint32_t c = 0; c < d; ++c) plain_encode(v.format.dtype, x[c], scale, rec + c * eb);
    }
  }
}

// KIVI keys [kq0, kq1) about to be quantized, as fp16-rounded floats [kq1 - kq0, H, d]: from the
// residual (tokens already appended, residual index t - kq0) or from the new input.
__global__ void paged_kv_kivi_gather_keys_kernel(PagedKvView v, std::uint32_t kq0,
                                                 std::uint32_t kq1, std::uint32_t n0,
                                                 const float* __restrict__ k,
                                                 float* __restrict__ tile) {
  const std::uint32_t H = v.num_kv_heads, d = v.head_dim;
  KVPLAN_GRID_LOOP(e, std::uint64_t{kq1 - kq0} * H * d) {
    const std::uint32_t t = kq0 + static_cast<std::uint32_t>(e / (H * d));
    const std::uint32_t h = static_cast<std::uint32_t>(e / d % H),
                        c = static_cast<std::uint32_t>(e % d);
    tile[e] = t < n0 ? plain_decode(KvDtype::fp16,
                                    slot_record(v.kr_base, v.kr_table, v.kr_block_bytes,
                                                v.block_size, H, 2 * d, t - kq0, h) +
                                        2 * c,
                                    1.f)
                     : through_fp16(k[(std::uint64_t{t - n0} * H + h) * d + c]);
  }
}

__global__ void paged_kv_kivi_encode_keys_kernel(PagedKvView v, std::uint32_t kq0,
                                                 std::uint32_t kq1,
                                                 const float* __restrict__ tile) {
  const std::uint32_t H = v.num_kv_heads, d = v.head_dim, G = v.format.group;
  KVPLAN_GRID_LOOP(r, std::uint64_t{(kq1 - kq0) / G} * H * d) {
    const std::uint32_t g = static_cast<std::uint32_t>(r / (H * d));
    const std::uint32_t h = static_cast<std::uint32_t>(r / d % H),
                        c = static_cast<std::uint32_t>(r % d);
    kivi_encode_record(tile + (std::uint64_t{g} * G * H + h) * d + c, H * d, G, v.format.bits,
                       dwritable(kivi_key_record(v, kq0 / G + g, h, c)));
  }
}

// New tokens [t0, N) into the fp16 key residual at index t - kq.
__global__ void paged_kv_kivi_residual_kernel(PagedKvView v, std::uint32_t t0, std::uint32_t N,
                                              std::uint32_t kq, std::uint32_t n0,
                                              const float* __restrict__ k) {
  const std::uint32_t H = v.num_kv_heads, d = v.head_dim;
  KVPLAN_GRID_LOOP(e, std::uint64_t{N - t0} * H * d) {
    const std::uint32_t t = t0 + static_cast<std::uint32_t>(e / (H * d));
    const std::uint32_t h = static_cast<std::uint32_t>(e / d % H),
                        c = static_cast<std::uint32_t>(e % d);
    std::uint8_t* r = dwritable(
        slot_record(v.kr_base, v.kr_table, v.kr_block_bytes, v.block_size, H, 2 * d, t - kq, h));
    plain_encode(KvDtype::fp16, k[(std::uint64_t{t - n0} * H + h) * d + c], 1.f, r + 2 * c);
  }
}

// KIVI values [vq0, vq1) leaving the window, fp16-rounded [vq1 - vq0, H, d]: from the ring
// (slot t mod C) or from the new input.
__global__ void paged_kv_kivi_gather_values_kernel(PagedKvView v, std::uint32_t vq0,
                                                   std::uint32_t vq1, std::uint32_t n0,
                                                   const float* __restrict__ val,
                                                   float* __restrict__ tile) {
  const std::uint32_t H = v.num_kv_heads, d = v.head_dim;
  const std::uint32_t C = kivi_window_slots(v.block_size, v.format.residual);
  KVPLAN_GRID_LOOP(e, std::uint64_t{vq1 - vq0} * H * d) {
    const std::uint32_t t = vq0 + static_cast<std::uint32_t>(e / (H * d));
    const std::uint32_t h = static_cast<std::uint32_t>(e / d % H),
                        c = static_cast<std::uint32_t>(e % d);
    tile[e] = t < n0 ? plain_decode(KvDtype::fp16,
                                    slot_record(v.vw_base, v.vw_table, v.vw_block_bytes,
                                                v.block_size, H, 2 * d, t % C, h) +
                                        2 * c,
                                    1.f)
                     : through_fp16(val[(std::uint64_t{t - n0} * H + h) * d + c]);
  }
}

__global__ void paged_kv_kivi_encode_values_kernel(PagedKvView v, std::uint32_t vq0,
                                                   std::uint32_t vq1,
                                                   const float* __restrict__ tile) {
  const std::uint32_t H = v.num_kv_heads, d = v.head_dim, G = v.format.group;
  const std::uint32_t P = kivi_record_bytes(G, v.format.bits);
  KVPLAN_GRID_LOOP(r, std::uint64_t{vq1 - vq0} * H * (d / G)) {
    const std::uint32_t t = vq0 + static_cast<std::uint32_t>(r / (H * (d / G)));
    const std::uint32_t h = static_cast<std::uint32_t>(r / (d / G) % H),
                        j = static_cast<std::uint32_t>(r % (d / G));
    std::uint8_t* rec = dwritable(
        slot_record(v.v_base, v.v_table, v.v_block_bytes, v.block_size, H, (d / G) * P, t, h));
    kivi_encode_record(tile + (std::uint64_t{t - vq0} * H + h) * d + j * G, 1, G, v.format.bits,
                       rec + j * P);
  }
}

// New tokens [t0, N) into the value window ring, slot t mod C.
__global__ void paged_kv_kivi_window_kernel(PagedKvView v, std::uint32_t t0, std::uint32_t N,
                                            std::uint32_t n0, const float* __restrict__ val) {
  const std::uint32_t H = v.num_kv_heads, d = v.head_dim;
  const std::uint32_t C = kivi_window_slots(v.block_size, v.format.residual);
  KVPLAN_GRID_LOOP(e, std::uint64_t{N - t0} * H * d) {
    const std::uint32_t t = t0 + static_cast<std::uint32_t>(e / (H * d));
    const std::uint32_t h = static_cast<std::uint32_t>(e / d % H),
                        c = static_cast<std::uint32_t>(e % d);
    std::uint8_t* r = dwritable(
        slot_record(v.vw_base, v.vw_table, v.vw_block_bytes, v.block_size, H, 2 * d, t % C, h));
    plain_encode(KvDtype::fp16, val[(std::uint64_t{t - n0} * H + h) * d + c], 1.f, r + 2 * c);
  }
}

// Compaction in two passes (a record may be read by one kept slot and written by another):
// gather kept records [2 (K|V), H, count, rb] into tmp, then scatter them to slots 0..count-1.
__global__ void paged_kv_compact_kernel(PagedKvView v, const std::int32_t* __restrict__ slots,
                                        std::uint32_t count, std::uint8_t* __restrict__ tmp,
                                        bool gather) {
  const std::uint32_t H = v.num_kv_heads, S = v.block_size;
  const std::uint32_t rb = slot_record_bytes(v.format, v.head_dim);
  KVPLAN_GRID_LOOP(e, std::uint64_t{2} * H * count * rb) {
    const std::uint64_t rec = e / rb;
    const std::uint32_t byte = static_cast<std::uint32_t>(e % rb);
    const bool is_k = rec < std::uint64_t{H} * count;
    const std::uint64_t hi = is_k ? rec : rec - std::uint64_t{H} * count;
    const std::uint32_t h = static_cast<std::uint32_t>(hi / count),
                        i = static_cast<std::uint32_t>(hi % count);
    const std::uint32_t slot = gather ? static_cast<std::uint32_t>(slots[hi]) : i;
    const std::uint8_t* r =
        is_k ? slot_record(v.k_base, v.k_table, v.k_block_bytes, S, H, rb, slot, h)
             : slot_record(v.v_base, v.v_table, v.v_block_bytes, S, H, rb, slot, h);
    if (gather)
      tmp[e] = r[byte];
    else
      dwritable(r)[byte] = tmp[e];
  }
}

}  // namespace

DevicePagedKv::~DevicePagedKv() { release(); }

void DevicePagedKv::release() {
  for (Sequence& s : seqs_)
    for (LayerCache& lc : s.layers) {
      cudaFree(lc.d_tables);
      cudaFree(lc.d_pos);
    }
  seqs_.clear();
  for (Arena* a : {&k_, &v_, &kr_, &vw_}) {
    cudaFree(a->data);
    *a = Arena{};
  }
  cudaFree(scratch_);
  scratch_ = nullptr;
  scratch_bytes_ = 0;
}

Status DevicePagedKv::init(const PoolConfig& c, CudaStream stream) {
  if (Status s = validate(c); !s.ok()) return s;
  release();
  cfg_ = c;
  stream_ = stream;
  const std::uint64_t S = c.block_size, H = c.num_kv_heads, d = c.head_dim;
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
    const std::uint64_t bytes = std::uint64_t{c.initial_blocks} * a->block_bytes;
    KVPLAN_CUDA_CHECK(cudaMalloc(&a->data, bytes));
    KVPLAN_CUDA_CHECK(cudaMemsetAsync(a->data, 0, bytes, cuda_detail::to_cuda(stream_)));
    for (std::uint32_t b = c.initial_blocks; b > 0; --b) a->free_list.push_back(b - 1);
    a->capacity = c.initial_blocks;
  }
  return Status::Ok();
}

Status DevicePagedKv::take(Arena& a, std::uint32_t* block) {
  if (a.free_list.empty()) {  // grow as PagedKvPool::Arena::take does: by max(capacity, 4)
    const std::uint32_t grow = std::max<std::uint32_t>(a.capacity, 4);
    const std::uint64_t old_bytes = std::uint64_t{a.capacity} * a.block_bytes;
    const std::uint64_t new_bytes = (std::uint64_t{a.capacity} + grow) * a.block_bytes;
    const cudaStream_t st = cuda_detail::to_cuda(stream_);
    std::uint8_t* grown = nullptr;
    KVPLAN_CUDA_CHECK(cudaMalloc(&grown, new_bytes));
    if (old_bytes)
      KVPLAN_CUDA_CHECK(cudaMemcpyAsync(grown, a.data, old_bytes, cudaMemcpyDeviceToDevice, st));
    KVPLAN_CUDA_CHECK(cudaMemsetAsync(grown + old_bytes, 0, new_bytes - old_bytes, st));
    KVPLAN_CUDA_CHECK(cudaStreamSynchronize(st));
    KVPLAN_CUDA_CHECK(cudaFree(a.data));
    a.data = grown;
    for (std::uint32_t b = a.capacity + grow; b > a.capacity; --b) a.free_list.push_back(b - 1);
    a.capacity += grow;
  }
  *block = a.free_list.back();
  a.free_list.pop_back();
  ++a.in_use;
  return Status::Ok();
}

void DevicePagedKv::give(Arena& a, std::uint32_t b) {
  a.free_list.push_back(b);
  --a.in_use;
}

Status DevicePagedKv::ensure(Arena& a, std::vector<std::uint32_t>& table, std::uint64_t blocks) {
  while (table.size() < blocks) {
    std::uint32_t b = 0;
    if (Status s = take(a, &b); !s.ok()) return s;
    table.push_back(b);
  }
  return Status::Ok();
}

void DevicePagedKv::shrink(Arena& a, std::vector<std::uint32_t>& table, std::uint64_t blocks) {
  while (table.size() > blocks) {
    give(a, table.back());
    table.pop_back();
  }
}

Status DevicePagedKv::sync_tables(LayerCache& lc) {
  const std::uint32_t need =
      static_cast<std::uint32_t>(std::max(std::max(lc.k_table.size(), lc.v_table.size()),
                                          std::max(lc.kr_table.size(), lc.vw_table.size())));
  const cudaStream_t st = cuda_detail::to_cuda(stream_);
  if (need > lc.table_cap) {
    const std::uint32_t cap = std::max<std::uint32_t>(16, std::max(need, 2 * lc.table_cap));
    KVPLAN_CUDA_CHECK(cudaStreamSynchronize(st));
    KVPLAN_CUDA_CHECK(cudaFree(lc.d_tables));
    lc.d_tables = nullptr;
    KVPLAN_CUDA_CHECK(cudaMalloc(&lc.d_tables, std::uint64_t{cap} * 4 * 4));
    lc.table_cap = cap;
  }
  const std::vector<std::uint32_t>* tables[] = {&lc.k_table, &lc.v_table, &lc.kr_table,
                                                &lc.vw_table};
  for (int i = 0; i < 4; ++i)
    if (!tables[i]->empty())
      KVPLAN_CUDA_CHECK(cudaMemcpyAsync(lc.d_tables + static_cast<std::uint64_t>(i) * lc.table_cap,
                                        tables[i]->data(), tables[i]->size() * 4,
                                        cudaMemcpyHostToDevice, st));
  return Status::Ok();
}

Status DevicePagedKv::grow_positions(LayerCache& lc, std::uint32_t need) {
  if (need <= lc.pos_stride) return Status::Ok();
  const std::uint32_t H = cfg_.num_kv_heads;
  std::uint32_t cap = std::max<std::uint32_t>(16, 2 * lc.pos_stride);
  while (cap < need) cap *= 2;
  std::vector<std::int32_t> grown(std::uint64_t{H} * cap);
  for (std::uint32_t h = 0; h < H; ++h)
    std::copy_n(lc.pos.begin() + std::uint64_t{h} * lc.pos_stride, lc.n,
                grown.begin() + std::uint64_t{h} * cap);
  lc.pos.swap(grown);
  lc.pos_stride = cap;
  KVPLAN_CUDA_CHECK(cudaStreamSynchronize(cuda_detail::to_cuda(stream_)));
  KVPLAN_CUDA_CHECK(cudaFree(lc.d_pos));
  lc.d_pos = nullptr;
  KVPLAN_CUDA_CHECK(cudaMalloc(&lc.d_pos, std::uint64_t{H} * cap * 4));
  return upload_positions(lc, 0, lc.n);
}

Status DevicePagedKv::upload_positions(LayerCache& lc, std::uint32_t from, std::uint32_t to) {
  if (to <= from) return Status::Ok();
  KVPLAN_CUDA_CHECK(cudaMemcpy2DAsync(lc.d_pos + from, lc.pos_stride * 4ull, lc.pos.data() + from,
                                      lc.pos_stride * 4ull, (to - from) * 4ull, cfg_.num_kv_heads,
                                      cudaMemcpyHostToDevice, cuda_detail::to_cuda(stream_)));
  return Status::Ok();
}

Status DevicePagedKv::scratch(std::uint64_t bytes, void** out) {
  if (bytes > scratch_bytes_) {
    KVPLAN_CUDA_CHECK(cudaStreamSynchronize(cuda_detail::to_cuda(stream_)));
    KVPLAN_CUDA_CHECK(cudaFree(scratch_));
    scratch_ = nullptr;
    KVPLAN_CUDA_CHECK(cudaMalloc(&scratch_, bytes));
    scratch_bytes_ = bytes;
  }
  *out = scratch_;
  return Status::Ok();
}

std::uint32_t DevicePagedKv::add_sequence() {
  std::uint32_t id = 0;
  while (id < seqs_.size() && seqs_[id].live) ++id;
  if (id == seqs_.size()) seqs_.emplace_back();
  seqs_[id].live = true;
  seqs_[id].layers.assign(cfg_.num_layers, LayerCache{});
  return id;
}

Status DevicePagedKv::check(std::uint32_t seq, std::uint32_t layer) const {
  if (seq >= seqs_.size() || !seqs_[seq].live)
    return Status::OutOfRange("no live sequence " + std::to_string(seq));
  if (layer >= cfg_.num_layers)
    return Status::OutOfRange("layer " + std::to_string(layer) + " >= num_layers " +
                              std::to_string(cfg_.num_layers));
  return Status::Ok();
}

Status DevicePagedKv::free_sequence(std::uint32_t seq) {
  if (Status s = check(seq, 0); !s.ok()) return s;
  KVPLAN_CUDA_CHECK(cudaStreamSynchronize(cuda_detail::to_cuda(stream_)));
  for (LayerCache& lc : seqs_[seq].layers) {
    shrink(k_, lc.k_table, 0);
    shrink(v_, lc.v_table, 0);
    shrink(kr_, lc.kr_table, 0);
    shrink(vw_, lc.vw_table, 0);
    KVPLAN_CUDA_CHECK(cudaFree(lc.d_tables));
    KVPLAN_CUDA_CHECK(cudaFree(lc.d_pos));
  }
  seqs_[seq].live = false;
  seqs_[seq].layers.clear();
  return Status::Ok();
}

PagedKvView DevicePagedKv::make_view(const LayerCache& lc) const {
  PagedKvView v;
  v.format = cfg_.format;
  v.block_size = cfg_.block_size;
  v.num_kv_heads = cfg_.num_kv_heads;
  v.head_dim = cfg_.head_dim;
  v.num_tokens = lc.n;
  v.k_scale = cfg_.k_scale;
  v.v_scale = cfg_.v_scale;
  v.k_base = k_.data;
  v.v_base = v_.data;
  v.kr_base = kr_.data;
  v.vw_base = vw_.data;
  v.k_block_bytes = k_.block_bytes;
  v.v_block_bytes = v_.block_bytes;
  v.kr_block_bytes = kr_.block_bytes;
  v.vw_block_bytes = vw_.block_bytes;
  if (lc.d_tables) {
    v.k_table = lc.d_tables;
    v.v_table = lc.d_tables + lc.table_cap;
    v.kr_table = lc.d_tables + 2ull * lc.table_cap;
    v.vw_table = lc.d_tables + 3ull * lc.table_cap;
  }
  v.positions = lc.d_pos;
  v.positions_stride = lc.pos_stride;
  return v;
}

PagedKvView DevicePagedKv::view(std::uint32_t seq, std::uint32_t layer) const {
  if (!check(seq, layer).ok()) return PagedKvView{};
  return make_view(seqs_[seq].layers[layer]);
}

Status DevicePagedKv::append(std::uint32_t seq, std::uint32_t layer, const float* k, const float* v,
                             std::int32_t position) {
  return append_tokens(seq, layer, 1, k, v, &position, false);
}

Status DevicePagedKv::append_tokens(std::uint32_t seq, std::uint32_t layer, std::uint32_t m,
                                    const float* k, const float* v, const std::int32_t* positions,
                                    bool per_head) {
  if (Status s = check(seq, layer); !s.ok()) return s;
  if (m == 0) return Status::Ok();
  if (!k || !v) return Status::Invalid("append: k and v must not be null");
  LayerCache& lc = seqs_[seq].layers[layer];
  const std::uint32_t H = cfg_.num_kv_heads, d = cfg_.head_dim, S = cfg_.block_size;
  const std::uint32_t n0 = lc.n, N = n0 + m;
  // Positions first (as PagedKvPool: a refused append changes nothing).
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
  const cudaStream_t st = cuda_detail::to_cuda(stream_);
  cuda_detail::Stage stage(st);
  const float *dk = nullptr, *dv = nullptr;
  if (Status s = stage.in(k, std::uint64_t{m} * H * d, &dk); !s.ok()) return s;
  if (Status s = stage.in(v, std::uint64_t{m} * H * d, &dv); !s.ok()) return s;
  if (Status s = grow_positions(lc, N); !s.ok()) return s;
  for (std::uint32_t h = 0; h < H; ++h)
    std::copy_n(newpos.begin() + std::uint64_t{h} * m, m,
                lc.pos.begin() + std::uint64_t{h} * lc.pos_stride + n0);

  const KvFormat& f = cfg_.format;
  if (f.dtype != KvDtype::kivi) {
    if (Status s = ensure(k_, lc.k_table, ceil_div(N, S)); !s.ok()) return s;
    if (Status s = ensure(v_, lc.v_table, ceil_div(N, S)); !s.ok()) return s;
    if (Status s = sync_tables(lc); !s.ok()) return s;
    paged_kv_append_kernel<<<blocks_for(std::uint64_t{m} * H * 2), kThreads, 0, st>>>(
        make_view(lc), n0, m, dk, dv);
    KVPLAN_CUDA_CHECK_LAUNCH();
  } else {
    const std::uint32_t G = f.group, R = f.residual;
    const std::uint32_t kq0 = kivi_key_quant_tokens(n0, R), kq1 = kivi_key_quant_tokens(N, R);
    const std::uint32_t vq0 = kivi_value_quant_tokens(n0, R), vq1 = kivi_value_quant_tokens(N, R);
    const std::uint32_t C = kivi_window_slots(S, R);
    const std::uint64_t tile_elems = std::uint64_t{std::max(kq1 - kq0, vq1 - vq0)} * H * d;
    float* tile = nullptr;
    if (tile_elems) {
      void* p = nullptr;
      if (Status s = scratch(tile_elems * 4, &p); !s.ok()) return s;
      tile = static_cast<float*>(p);
    }
    // Keys: whole residual chunks of R are quantized; the rest lands in the residual.
    if (kq1 > kq0) {
      if (Status s = ensure(k_, lc.k_table, ceil_div(kq1, kivi_key_block_tokens(S, G))); !s.ok())
        return s;
      if (Status s = sync_tables(lc); !s.ok()) return s;
      const std::uint64_t e = std::uint64_t{kq1 - kq0} * H * d;
      paged_kv_kivi_gather_keys_kernel<<<blocks_for(e), kThreads, 0, st>>>(make_view(lc), kq0, kq1,
                                                                           n0, dk, tile);
      KVPLAN_CUDA_CHECK_LAUNCH();
      paged_kv_kivi_encode_keys_kernel<<<blocks_for(e / G), kThreads, 0, st>>>(make_view(lc), kq0,
                                                                               kq1, tile);
      KVPLAN_CUDA_CHECK_LAUNCH();
      shrink(kr_, lc.kr_table, 0);
    }
    const std::uint32_t r0 = std::max(n0, kq1);
    if (N > r0) {
      if (Status s = ensure(kr_, lc.kr_table, ceil_div(N - kq1, S)); !s.ok()) return s;
      if (Status s = sync_tables(lc); !s.ok()) return s;
      paged_kv_kivi_residual_kernel<<<blocks_for(std::uint64_t{N - r0} * H * d), kThreads, 0, st>>>(
          make_view(lc), r0, N, kq1, n0, dk);
      KVPLAN_CUDA_CHECK_LAUNCH();
    }
    // Values: tokens leaving the window are quantized (read before the ring is overwritten).
    if (vq1 > vq0) {
      if (Status s = ensure(v_, lc.v_table, ceil_div(vq1, S)); !s.ok()) return s;
      if (Status s = sync_tables(lc); !s.ok()) return s;
      const std::uint64_t e = std::uint64_t{vq1 - vq0} * H * d;
      paged_kv_kivi_gather_values_kernel<<<blocks_for(e), kThreads, 0, st>>>(make_view(lc), vq0,
                                                                             vq1, n0, dv, tile);
      KVPLAN_CUDA_CHECK_LAUNCH();
      paged_kv_kivi_encode_values_kernel<<<blocks_for(e / G), kThreads, 0, st>>>(make_view(lc), vq0,
                                                                                 vq1, tile);
      KVPLAN_CUDA_CHECK_LAUNCH();
    }
    const std::uint32_t w0 = std::max(n0, N > C ? N - C : 0u);
    if (Status s = ensure(vw_, lc.vw_table, ceil_div(std::min(N, C), S)); !s.ok()) return s;
    if (Status s = sync_tables(lc); !s.ok()) return s;
    paged_kv_kivi_window_kernel<<<blocks_for(std::uint64_t{N - w0} * H * d), kThreads, 0, st>>>(
        make_view(lc), w0, N, n0, dv);
    KVPLAN_CUDA_CHECK_LAUNCH();
  }
  lc.n = N;
  if (Status s = upload_positions(lc, n0, N); !s.ok()) return s;
  // Staged inputs are freed when `stage` dies: the kernels must have read them by then.
  if (stage.staged()) KVPLAN_CUDA_CHECK(cudaStreamSynchronize(st));
  return Status::Ok();
}

Status DevicePagedKv::compact(std::uint32_t seq, std::uint32_t layer, const KeepSet& keep) {
  if (Status s = check(seq, layer); !s.ok()) return s;
  if (cfg_.format.dtype == KvDtype::kivi)
    return Status::Invalid(
        "compact: KIVI groups keys across tokens, so a quantized cache cannot evict single "
        "tokens; select before quantizing (append only the kept tokens) or use another format");
  LayerCache& lc = seqs_[seq].layers[layer];
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
  const cudaStream_t st = cuda_detail::to_cuda(stream_);
  const std::uint32_t rb = slot_record_bytes(cfg_.format, cfg_.head_dim);
  const std::uint64_t slot_bytes = keep.slots.size() * 4;
  const std::uint64_t moved = std::uint64_t{2} * H * keep.count * rb;
  if (keep.count > 0) {
    void* p = nullptr;
    if (Status s = scratch(slot_bytes + moved, &p); !s.ok()) return s;
    auto* d_slots = static_cast<std::int32_t*>(p);
    auto* tmp = static_cast<std::uint8_t*>(p) + slot_bytes;
    KVPLAN_CUDA_CHECK(
        cudaMemcpyAsync(d_slots, keep.slots.data(), slot_bytes, cudaMemcpyHostToDevice, st));
    paged_kv_compact_kernel<<<blocks_for(moved), kThreads, 0, st>>>(make_view(lc), d_slots,
                                                                    keep.count, tmp, true);
    KVPLAN_CUDA_CHECK_LAUNCH();
    paged_kv_compact_kernel<<<blocks_for(moved), kThreads, 0, st>>>(make_view(lc), d_slots,
                                                                    keep.count, tmp, false);
    KVPLAN_CUDA_CHECK_LAUNCH();
  }
  for (std::uint32_t h = 0; h < H; ++h) {
    std::int32_t* pos = lc.pos.data() + std::uint64_t{h} * lc.pos_stride;
    for (std::uint32_t i = 0; i < keep.count; ++i)
      pos[i] = pos[keep.slots[std::uint64_t{h} * keep.count + i]];
  }
  lc.n = keep.count;
  if (Status s = upload_positions(lc, 0, lc.n); !s.ok()) return s;
  KVPLAN_CUDA_CHECK(cudaStreamSynchronize(st));  // freed blocks may be handed out next
  shrink(k_, lc.k_table, ceil_div(lc.n, S));
  shrink(v_, lc.v_table, ceil_div(lc.n, S));
  return sync_tables(lc);
}

Status DevicePagedKv::assign(std::uint32_t seq, std::uint32_t layer, const PagedKvView& host) {
  if (Status s = check(seq, layer); !s.ok()) return s;
  if (!(host.format == cfg_.format) || host.block_size != cfg_.block_size ||
      host.num_kv_heads != cfg_.num_kv_heads || host.head_dim != cfg_.head_dim)
    return Status::Invalid(
        "assign: the host view's format, block size, heads or head dim differ "
        "from this pool's config");
  if (host.num_tokens > 0 && !host.positions)
    return Status::Invalid("assign: host view has no positions");
  LayerCache& lc = seqs_[seq].layers[layer];
  const cudaStream_t st = cuda_detail::to_cuda(stream_);
  KVPLAN_CUDA_CHECK(cudaStreamSynchronize(st));
  shrink(k_, lc.k_table, 0);
  shrink(v_, lc.v_table, 0);
  shrink(kr_, lc.kr_table, 0);
  shrink(vw_, lc.vw_table, 0);
  lc.n = 0;
  const cuda_detail::TableLengths len =
      cuda_detail::table_lengths(cfg_.format, cfg_.block_size, host.num_tokens);
  struct Part {
    Arena* a;
    std::vector<std::uint32_t>* table;
    std::uint32_t len;
    const std::uint8_t* base;
    const std::uint32_t* host_table;
  };
  Part parts[] = {{&k_, &lc.k_table, len.k, host.k_base, host.k_table},
                  {&v_, &lc.v_table, len.v, host.v_base, host.v_table},
                  {&kr_, &lc.kr_table, len.kr, host.kr_base, host.kr_table},
                  {&vw_, &lc.vw_table, len.vw, host.vw_base, host.vw_table}};
  for (Part& p : parts) {
    if (Status s = ensure(*p.a, *p.table, p.len); !s.ok()) return s;
    for (std::uint32_t i = 0; i < p.len; ++i)
      KVPLAN_CUDA_CHECK(cudaMemcpyAsync(p.a->data + (*p.table)[i] * p.a->block_bytes,
                                        p.base + std::uint64_t{p.host_table[i]} * p.a->block_bytes,
                                        p.a->block_bytes, cudaMemcpyHostToDevice, st));
  }
  if (Status s = grow_positions(lc, host.num_tokens); !s.ok()) return s;
  for (std::uint32_t h = 0; h < cfg_.num_kv_heads; ++h)
    std::copy_n(host.positions + std::uint64_t{h} * host.positions_stride, host.num_tokens,
                lc.pos.begin() + std::uint64_t{h} * lc.pos_stride);
  lc.n = host.num_tokens;
  if (Status s = upload_positions(lc, 0, lc.n); !s.ok()) return s;
  if (Status s = sync_tables(lc); !s.ok()) return s;
  KVPLAN_CUDA_CHECK(cudaStreamSynchronize(st));
  return Status::Ok();
}

Status DevicePagedKv::download(std::uint32_t seq, std::uint32_t layer, HostKvCopy* out) const {
  if (Status s = check(seq, layer); !s.ok()) return s;
  const LayerCache& lc = seqs_[seq].layers[layer];
  const cudaStream_t st = cuda_detail::to_cuda(stream_);
  KVPLAN_CUDA_CHECK(cudaStreamSynchronize(st));
  *out = HostKvCopy{};
  out->config = cfg_;
  out->num_tokens = lc.n;
  const cuda_detail::TableLengths len =
      cuda_detail::table_lengths(cfg_.format, cfg_.block_size, lc.n);
  struct Part {
    const Arena* a;
    const std::vector<std::uint32_t>* table;
    std::uint32_t len;
    std::vector<std::uint8_t>* bytes;
    std::vector<std::uint32_t>* out_table;
    std::uint64_t* block_bytes;
  };
  const Part parts[] = {
      {&k_, &lc.k_table, len.k, &out->k, &out->k_table, &out->k_block_bytes},
      {&v_, &lc.v_table, len.v, &out->v, &out->v_table, &out->v_block_bytes},
      {&kr_, &lc.kr_table, len.kr, &out->kr, &out->kr_table, &out->kr_block_bytes},
      {&vw_, &lc.vw_table, len.vw, &out->vw, &out->vw_table, &out->vw_block_bytes}};
  for (const Part& p : parts) {
    *p.block_bytes = p.a->block_bytes;
    p.bytes->resize(std::uint64_t{p.len} * p.a->block_bytes);
    for (std::uint32_t i = 0; i < p.len; ++i) {
      p.out_table->push_back(i);
      KVPLAN_CUDA_CHECK(cudaMemcpy(p.bytes->data() + std::uint64_t{i} * p.a->block_bytes,
                                   p.a->data + (*p.table)[i] * p.a->block_bytes, p.a->block_bytes,
                                   cudaMemcpyDeviceToHost));
    }
  }
  out->positions.resize(std::uint64_t{cfg_.num_kv_heads} * lc.n);
  for (std::uint32_t h = 0; h < cfg_.num_kv_heads; ++h)
    std::copy_n(lc.pos.begin() + std::uint64_t{h} * lc.pos_stride, lc.n,
                out->positions.begin() + std::uint64_t{h} * lc.n);
  return Status::Ok();
}

std::uint32_t DevicePagedKv::num_tokens(std::uint32_t seq, std::uint32_t layer) const {
  return check(seq, layer).ok() ? seqs_[seq].layers[layer].n : 0;
}

const std::int32_t* DevicePagedKv::positions(std::uint32_t seq, std::uint32_t layer,
                                             std::uint32_t h) const {
  if (!check(seq, layer).ok() || h >= cfg_.num_kv_heads) return nullptr;
  const LayerCache& lc = seqs_[seq].layers[layer];
  return lc.pos.data() + std::uint64_t{h} * lc.pos_stride;
}

std::uint64_t DevicePagedKv::layer_bytes(const LayerCache& lc) const {
  return lc.k_table.size() * k_.block_bytes + lc.v_table.size() * v_.block_bytes +
         lc.kr_table.size() * kr_.block_bytes + lc.vw_table.size() * vw_.block_bytes;
}

std::uint64_t DevicePagedKv::bytes_held(std::uint32_t seq, std::uint32_t layer) const {
  return check(seq, layer).ok() ? layer_bytes(seqs_[seq].layers[layer]) : 0;
}

std::uint64_t DevicePagedKv::bytes_held(std::uint32_t seq) const {
  if (!check(seq, 0).ok()) return 0;
  std::uint64_t total = 0;
  for (const LayerCache& lc : seqs_[seq].layers) total += layer_bytes(lc);
  return total;
}

std::uint64_t DevicePagedKv::bytes_held() const {
  return k_.in_use * k_.block_bytes + v_.in_use * v_.block_bytes + kr_.in_use * kr_.block_bytes +
         vw_.in_use * vw_.block_bytes;
}

std::uint64_t DevicePagedKv::blocks_in_use() const {
  return std::uint64_t{k_.in_use} + v_.in_use + kr_.in_use + vw_.in_use;
}

std::uint64_t DevicePagedKv::bytes_reserved() const {
  return (std::uint64_t{k_.capacity} * k_.block_bytes) +
         (std::uint64_t{v_.capacity} * v_.block_bytes) +
         (std::uint64_t{kr_.capacity} * kr_.block_bytes) +
         (std::uint64_t{vw_.capacity} * vw_.block_bytes);
}

}  // namespace kvplan::kernels
