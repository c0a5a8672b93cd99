// DevicePagedKv: paged_kv.hpp's block pool in device memory. The bookkeeping is PagedKvBook's,
// the same as PagedKvPool's (block tables, free lists, the append and compaction plans, bytes
// held), so the two pools hand out the same block ids for the same calls; this file is the
// device storage behind it: arenas grown in device memory, tables and positions mirrored to the
// device, and one kernel per append step running paged_kv.hpp's element helpers (the CPU pool
// loops over the same helpers). Compiled with --fmad=false: the encoders must round exactly as
// on the CPU.
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

// One thread per element of paged_kv.hpp's append helpers.
__global__ void paged_kv_append_kernel(PagedKvView v, std::uint32_t n0, std::uint64_t records,
                                       const float* __restrict__ k, const float* __restrict__ val) {
  KVPLAN_GRID_LOOP(r, records) append_plain_record(v, n0, r, k, val);
}

__global__ void paged_kv_kivi_gather_keys_kernel(PagedKvView v, std::uint32_t kq0, std::uint32_t n0,
                                                 std::uint64_t count, const float* __restrict__ k,
                                                 float* __restrict__ tile) {
  KVPLAN_GRID_LOOP(e, count) tile[e] = kivi_key_to_quantize(v, kq0, n0, k, e);
}

__global__ void paged_kv_kivi_encode_keys_kernel(PagedKvView v, std::uint32_t kq0,
                                                 std::uint64_t records,
                                                 const float* __restrict__ tile) {
  KVPLAN_GRID_LOOP(r, records) kivi_encode_key(v, kq0, tile, r);
}

__global__ void paged_kv_kivi_residual_kernel(PagedKvView v, std::uint32_t r0, std::uint32_t kq,
                                              std::uint32_t n0, std::uint64_t count,
                                              const float* __restrict__ k) {
  KVPLAN_GRID_LOOP(e, count) kivi_write_residual_element(v, r0, kq, n0, k, e);
}

__global__ void paged_kv_kivi_gather_values_kernel(PagedKvView v, std::uint32_t vq0,
                                                   std::uint32_t n0, std::uint64_t count,
                                                   const float* __restrict__ val,
                                                   float* __restrict__ tile) {
  KVPLAN_GRID_LOOP(e, count) tile[e] = kivi_value_to_quantize(v, vq0, n0, val, e);
}

__global__ void paged_kv_kivi_encode_values_kernel(PagedKvView v, std::uint32_t vq0,
                                                   std::uint64_t records,
                                                   const float* __restrict__ tile) {
  KVPLAN_GRID_LOOP(r, records) kivi_encode_value(v, vq0, tile, r);
}

__global__ void paged_kv_kivi_window_kernel(PagedKvView v, std::uint32_t w0, std::uint32_t n0,
                                            std::uint64_t count, const float* __restrict__ val) {
  KVPLAN_GRID_LOOP(e, count) kivi_write_window_element(v, w0, n0, val, e);
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
      writable(r)[byte] = tmp[e];
  }
}

}  // namespace

// ---- the device storage ----

struct DevicePagedKv::DeviceStorage final : PagedKvStorage {
  explicit DeviceStorage(DevicePagedKv* p) : pool(p) {}
  DevicePagedKv* pool;

  Status grow(KvArena a, std::uint32_t old_blocks, std::uint32_t new_blocks) override {
    std::uint8_t*& data = pool->arena_[static_cast<std::uint32_t>(a)];
    const std::uint64_t bb = pool->book_.block_bytes(a);
    const std::uint64_t old_bytes = std::uint64_t{old_blocks} * bb;
    const std::uint64_t new_bytes = std::uint64_t{new_blocks} * bb;
    const cudaStream_t st = cuda_detail::to_cuda(pool->stream_);
    std::uint8_t* grown = nullptr;
    KVPLAN_CUDA_CHECK(cudaMalloc(&grown, new_bytes));
    if (old_bytes)
      KVPLAN_CUDA_CHECK(cudaMemcpyAsync(grown, data, old_bytes, cudaMemcpyDeviceToDevice, st));
    KVPLAN_CUDA_CHECK(cudaMemsetAsync(grown + old_bytes, 0, new_bytes - old_bytes, st));
    KVPLAN_CUDA_CHECK(cudaStreamSynchronize(st));
    KVPLAN_CUDA_CHECK(cudaFree(data));
    data = grown;
    return Status::Ok();
  }

  Status tables_changed(LayerBook& lc) override {
    std::uint32_t need = 0;
    for (const auto& t : lc.tables) need = std::max(need, static_cast<std::uint32_t>(t.size()));
    const cudaStream_t st = cuda_detail::to_cuda(pool->stream_);
    if (need > lc.mirror_table_cap) {
      const std::uint32_t cap =
          std::max<std::uint32_t>(16, std::max(need, 2 * lc.mirror_table_cap));
      KVPLAN_CUDA_CHECK(cudaStreamSynchronize(st));
      KVPLAN_CUDA_CHECK(cudaFree(lc.mirror_tables));
      lc.mirror_tables = nullptr;
      KVPLAN_CUDA_CHECK(cudaMalloc(&lc.mirror_tables, std::uint64_t{cap} * kKvArenas * 4));
      lc.mirror_table_cap = cap;
    }
    for (std::uint32_t i = 0; i < kKvArenas; ++i)
      if (!lc.tables[i].empty())
        KVPLAN_CUDA_CHECK(cudaMemcpyAsync(lc.mirror_tables + std::uint64_t{i} * lc.mirror_table_cap,
                                          lc.tables[i].data(), lc.tables[i].size() * 4,
                                          cudaMemcpyHostToDevice, st));
    return Status::Ok();
  }

  Status positions_changed(LayerBook& lc, std::uint32_t from, std::uint32_t to,
                           bool regrown) override {
    const cudaStream_t st = cuda_detail::to_cuda(pool->stream_);
    const std::uint32_t H = pool->book_.config().num_kv_heads;
    if (regrown || !lc.mirror_pos) {
      KVPLAN_CUDA_CHECK(cudaStreamSynchronize(st));
      KVPLAN_CUDA_CHECK(cudaFree(lc.mirror_pos));
      lc.mirror_pos = nullptr;
      KVPLAN_CUDA_CHECK(cudaMalloc(&lc.mirror_pos, std::uint64_t{H} * lc.pos_stride * 4));
      from = 0;
    }
    if (to <= from) return Status::Ok();
    KVPLAN_CUDA_CHECK(cudaMemcpy2DAsync(lc.mirror_pos + from, lc.pos_stride * 4ull,
                                        lc.pos.data() + from, lc.pos_stride * 4ull,
                                        (to - from) * 4ull, H, cudaMemcpyHostToDevice, st));
    return Status::Ok();
  }

  Status before_free() override {
    KVPLAN_CUDA_CHECK(cudaStreamSynchronize(cuda_detail::to_cuda(pool->stream_)));
    return Status::Ok();
  }

  void layer_released(LayerBook& lc) override {
    cudaFree(lc.mirror_tables);
    cudaFree(lc.mirror_pos);
    lc.mirror_tables = nullptr;
    lc.mirror_pos = nullptr;
    lc.mirror_table_cap = 0;
  }

  Status write_plain(const LayerBook& lc, std::uint32_t n0, std::uint32_t m, const float* k,
                     const float* v) override {
    const std::uint64_t records = std::uint64_t{2} * m * pool->book_.config().num_kv_heads;
    paged_kv_append_kernel<<<blocks_for(records), kThreads, 0,
                             cuda_detail::to_cuda(pool->stream_)>>>(pool->make_view(lc), n0,
                                                                    records, k, v);
    KVPLAN_CUDA_CHECK_LAUNCH();
    return Status::Ok();
  }

  Status kivi_quantize_keys(const LayerBook& lc, std::uint32_t kq0, std::uint32_t kq1,
                            std::uint32_t n0, const float* k) override {
    const PoolConfig& c = pool->book_.config();
    const std::uint64_t e = std::uint64_t{kq1 - kq0} * c.num_kv_heads * c.head_dim;
    void* p = nullptr;
    if (Status s = pool->scratch(e * 4, &p); !s.ok()) return s;
    auto* tile = static_cast<float*>(p);
    const cudaStream_t st = cuda_detail::to_cuda(pool->stream_);
    const PagedKvView view = pool->make_view(lc);
    paged_kv_kivi_gather_keys_kernel<<<blocks_for(e), kThreads, 0, st>>>(view, kq0, n0, e, k, tile);
    KVPLAN_CUDA_CHECK_LAUNCH();
    const std::uint64_t records = e / c.format.group;
    paged_kv_kivi_encode_keys_kernel<<<blocks_for(records), kThreads, 0, st>>>(view, kq0, records,
                                                                               tile);
    KVPLAN_CUDA_CHECK_LAUNCH();
    return Status::Ok();
  }

  Status kivi_write_residual(const LayerBook& lc, std::uint32_t r0, std::uint32_t N,
                             std::uint32_t kq1, std::uint32_t n0, const float* k) override {
    const PoolConfig& c = pool->book_.config();
    const std::uint64_t e = std::uint64_t{N - r0} * c.num_kv_heads * c.head_dim;
    paged_kv_kivi_residual_kernel<<<blocks_for(e), kThreads, 0,
                                    cuda_detail::to_cuda(pool->stream_)>>>(pool->make_view(lc), r0,
                                                                           kq1, n0, e, k);
    KVPLAN_CUDA_CHECK_LAUNCH();
    return Status::Ok();
  }

  Status kivi_quantize_values(const LayerBook& lc, std::uint32_t vq0, std::uint32_t vq1,
                              std::uint32_t n0, const float* v) override {
    const PoolConfig& c = pool->book_.config();
    const std::uint64_t e = std::uint64_t{vq1 - vq0} * c.num_kv_heads * c.head_dim;
    void* p = nullptr;
    if (Status s = pool->scratch(e * 4, &p); !s.ok()) return s;
    auto* tile = static_cast<float*>(p);
    const cudaStream_t st = cuda_detail::to_cuda(pool->stream_);
    const PagedKvView view = pool->make_view(lc);
    paged_kv_kivi_gather_values_kernel<<<blocks_for(e), kThreads, 0, st>>>(view, vq0, n0, e, v,
                                                                           tile);
    KVPLAN_CUDA_CHECK_LAUNCH();
    const std::uint64_t records = e / c.format.group;
    paged_kv_kivi_encode_values_kernel<<<blocks_for(records), kThreads, 0, st>>>(view, vq0, records,
                                                                                 tile);
    KVPLAN_CUDA_CHECK_LAUNCH();
    return Status::Ok();
  }

  Status kivi_write_window(const LayerBook& lc, std::uint32_t w0, std::uint32_t N, std::uint32_t n0,
                           const float* v) override {
    const PoolConfig& c = pool->book_.config();
    const std::uint64_t e = std::uint64_t{N - w0} * c.num_kv_heads * c.head_dim;
    paged_kv_kivi_window_kernel<<<blocks_for(e), kThreads, 0,
                                  cuda_detail::to_cuda(pool->stream_)>>>(pool->make_view(lc), w0,
                                                                         n0, e, v);
    KVPLAN_CUDA_CHECK_LAUNCH();
    return Status::Ok();
  }

  Status move_kept(const LayerBook& lc, const KeepSet& keep) override {
    const PoolConfig& c = pool->book_.config();
    const cudaStream_t st = cuda_detail::to_cuda(pool->stream_);
    const std::uint32_t rb = slot_record_bytes(c.format, c.head_dim);
    const std::uint64_t slot_bytes = keep.slots.size() * 4;
    const std::uint64_t moved = std::uint64_t{2} * c.num_kv_heads * keep.count * rb;
    void* p = nullptr;
    if (Status s = pool->scratch(slot_bytes + moved, &p); !s.ok()) return s;
    auto* d_slots = static_cast<std::int32_t*>(p);
    auto* tmp = static_cast<std::uint8_t*>(p) + slot_bytes;
    KVPLAN_CUDA_CHECK(
        cudaMemcpyAsync(d_slots, keep.slots.data(), slot_bytes, cudaMemcpyHostToDevice, st));
    const PagedKvView view = pool->make_view(lc);
    paged_kv_compact_kernel<<<blocks_for(moved), kThreads, 0, st>>>(view, d_slots, keep.count, tmp,
                                                                    true);
    KVPLAN_CUDA_CHECK_LAUNCH();
    paged_kv_compact_kernel<<<blocks_for(moved), kThreads, 0, st>>>(view, d_slots, keep.count, tmp,
                                                                    false);
    KVPLAN_CUDA_CHECK_LAUNCH();
    return Status::Ok();
  }
};

// ---- the pool: the book's calls with the device storage ----

DevicePagedKv::~DevicePagedKv() { release(); }

void DevicePagedKv::release() {
  DeviceStorage st(this);
  book_.for_each_layer([&](LayerBook& lc) { st.layer_released(lc); });
  for (std::uint8_t*& a : arena_) {
    cudaFree(a);
    a = nullptr;
  }
  cudaFree(scratch_);
  scratch_ = nullptr;
  scratch_bytes_ = 0;
}

Status DevicePagedKv::init(const PoolConfig& c, CudaStream stream) {
  if (Status s = validate(c); !s.ok()) return s;
  release();
  stream_ = stream;
  DeviceStorage st(this);
  return book_.init(c, st);
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

Status DevicePagedKv::free_sequence(std::uint32_t seq) {
  DeviceStorage st(this);
  return book_.free_sequence(seq, st);
}

PagedKvView DevicePagedKv::make_view(const LayerBook& lc) const {
  PagedKvView v = book_.view_shape(lc);
  v.k_base = arena_[0];
  v.v_base = arena_[1];
  v.kr_base = arena_[2];
  v.vw_base = arena_[3];
  if (lc.mirror_tables) {
    v.k_table = lc.mirror_tables;
    v.v_table = lc.mirror_tables + lc.mirror_table_cap;
    v.kr_table = lc.mirror_tables + 2ull * lc.mirror_table_cap;
    v.vw_table = lc.mirror_tables + 3ull * lc.mirror_table_cap;
  }
  v.positions = lc.mirror_pos;
  return v;
}

PagedKvView DevicePagedKv::view(std::uint32_t seq, std::uint32_t layer) const {
  if (!book_.check(seq, layer).ok()) return PagedKvView{};
  return make_view(book_.layer(seq, layer));
}

Status DevicePagedKv::append_tokens(std::uint32_t seq, std::uint32_t layer, std::uint32_t m,
                                    const float* k, const float* v, const std::int32_t* positions,
                                    bool per_head) {
  if (Status s = book_.check(seq, layer); !s.ok()) return s;
  if (m == 0) return Status::Ok();
  if (!k || !v) return Status::Invalid("append: k and v must not be null");
  const std::uint64_t elems = std::uint64_t{m} * config().num_kv_heads * config().head_dim;
  const cudaStream_t st = cuda_detail::to_cuda(stream_);
  cuda_detail::Stage stage(st);
  const float *dk = nullptr, *dv = nullptr;
  if (Status s = stage.in(k, elems, &dk); !s.ok()) return s;
  if (Status s = stage.in(v, elems, &dv); !s.ok()) return s;
  DeviceStorage storage_(this);
  if (Status s = book_.append(seq, layer, m, dk, dv, positions, per_head, storage_); !s.ok())
    return s;
  // Staged inputs are freed when `stage` dies: the kernels must have read them by then.
  if (stage.staged()) KVPLAN_CUDA_CHECK(cudaStreamSynchronize(st));
  return Status::Ok();
}

Status DevicePagedKv::compact(std::uint32_t seq, std::uint32_t layer, const KeepSet& keep) {
  DeviceStorage st(this);
  return book_.compact(seq, layer, keep, st);
}

Status DevicePagedKv::assign(std::uint32_t seq, std::uint32_t layer, const PagedKvView& host) {
  if (Status s = book_.check(seq, layer); !s.ok()) return s;
  const PoolConfig& c = config();
  if (!(host.format == c.format) || host.block_size != c.block_size ||
      host.num_kv_heads != c.num_kv_heads || host.head_dim != c.head_dim)
    return Status::Invalid(
        "assign: the host view's format, block size, heads or head dim differ "
        "from this pool's config");
  if (host.num_tokens > 0 && !host.positions)
    return Status::Invalid("assign: host view has no positions");
  LayerBook& lc = book_.layer(seq, layer);
  const cudaStream_t st = cuda_detail::to_cuda(stream_);
  DeviceStorage storage_(this);
  if (Status s = storage_.before_free(); !s.ok()) return s;
  for (std::uint32_t a = 0; a < kKvArenas; ++a) book_.shrink(lc, static_cast<KvArena>(a), 0);
  lc.n = 0;
  const cuda_detail::TableLengths len =
      cuda_detail::table_lengths(c.format, c.block_size, host.num_tokens);
  const std::uint32_t lengths[kKvArenas] = {len.k, len.v, len.kr, len.vw};
  const std::uint8_t* bases[kKvArenas] = {host.k_base, host.v_base, host.kr_base, host.vw_base};
  const std::uint32_t* tables[kKvArenas] = {host.k_table, host.v_table, host.kr_table,
                                            host.vw_table};
  for (std::uint32_t a = 0; a < kKvArenas; ++a) {
    const auto arena = static_cast<KvArena>(a);
    if (Status s = book_.ensure(lc, arena, lengths[a], storage_); !s.ok()) return s;
    const std::uint64_t bb = book_.block_bytes(arena);
    for (std::uint32_t i = 0; i < lengths[a]; ++i)
      KVPLAN_CUDA_CHECK(cudaMemcpyAsync(arena_[a] + lc.tables[a][i] * bb,
                                        bases[a] + std::uint64_t{tables[a][i]} * bb, bb,
                                        cudaMemcpyHostToDevice, st));
  }
  const bool regrown = book_.reserve_positions(lc, host.num_tokens);
  for (std::uint32_t h = 0; h < c.num_kv_heads; ++h)
    std::copy_n(host.positions + std::uint64_t{h} * host.positions_stride, host.num_tokens,
                lc.pos.begin() + std::uint64_t{h} * lc.pos_stride);
  lc.n = host.num_tokens;
  if (Status s = storage_.positions_changed(lc, 0, lc.n, regrown); !s.ok()) return s;
  if (Status s = storage_.tables_changed(lc); !s.ok()) return s;
  KVPLAN_CUDA_CHECK(cudaStreamSynchronize(st));
  return Status::Ok();
}

Status DevicePagedKv::download(std::uint32_t seq, std::uint32_t layer, HostKvCopy* out) const {
  if (Status s = book_.check(seq, layer); !s.ok()) return s;
  const LayerBook& lc = book_.layer(seq, layer);
  const PoolConfig& c = config();
  KVPLAN_CUDA_CHECK(cudaStreamSynchronize(cuda_detail::to_cuda(stream_)));
  *out = HostKvCopy{};
  out->config = c;
  out->num_tokens = lc.n;
  const cuda_detail::TableLengths len = cuda_detail::table_lengths(c.format, c.block_size, lc.n);
  const std::uint32_t lengths[kKvArenas] = {len.k, len.v, len.kr, len.vw};
  std::vector<std::uint8_t>* bytes[kKvArenas] = {&out->k, &out->v, &out->kr, &out->vw};
  std::vector<std::uint32_t>* tables[kKvArenas] = {&out->k_table, &out->v_table, &out->kr_table,
                                                   &out->vw_table};
  std::uint64_t* block_bytes[kKvArenas] = {&out->k_block_bytes, &out->v_block_bytes,
                                           &out->kr_block_bytes, &out->vw_block_bytes};
  for (std::uint32_t a = 0; a < kKvArenas; ++a) {
    const std::uint64_t bb = book_.block_bytes(static_cast<KvArena>(a));
    *block_bytes[a] = bb;
    bytes[a]->resize(std::uint64_t{lengths[a]} * bb);
    for (std::uint32_t i = 0; i < lengths[a]; ++i) {
      tables[a]->push_back(i);
      KVPLAN_CUDA_CHECK(cudaMemcpy(bytes[a]->data() + std::uint64_t{i} * bb,
                                   arena_[a] + lc.tables[a][i] * bb, bb, cudaMemcpyDeviceToHost));
    }
  }
  out->positions.resize(std::uint64_t{c.num_kv_heads} * lc.n);
  for (std::uint32_t h = 0; h < c.num_kv_heads; ++h)
    std::copy_n(lc.pos.begin() + std::uint64_t{h} * lc.pos_stride, lc.n,
                out->positions.begin() + std::uint64_t{h} * lc.n);
  return Status::Ok();
}

}  // namespace kvplan::kernels
