// Host-side plumbing of the CUDA backend: device discovery, pointer staging, workspaces and the
// upload of host-resident paged views. No kernels here (plain C++, compiled by the host compiler).
#include <cuda_runtime.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <string>

#include "cuda_common.hpp"

namespace kvplan::kernels {

bool cuda_available(std::string* why) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    if (why) *why = std::string("cudaGetDeviceCount failed: ") + cudaGetErrorString(e);
    cudaGetLastError();
    return false;
  }
  if (count == 0) {
    if (why) *why = "cudaGetDeviceCount returned 0 devices";
    return false;
  }
  return true;
}

std::string cuda_device_summary() {
  std::string why;
  if (!cuda_available(&why)) return "no CUDA device: " + why;
  int dev = 0;
  cudaGetDevice(&dev);
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, dev) != cudaSuccess) return "CUDA device (no properties)";
  return std::string(prop.name) + " (sm_" + std::to_string(prop.major) +
         std::to_string(prop.minor) + ", " + std::to_string(prop.multiProcessorCount) + " SMs, " +
         std::to_string(prop.totalGlobalMem >> 30) + " GiB)";
}

PagedKvView HostKvCopy::view() const {
  PagedKvView v;
  v.format = config.format;
  v.block_size = config.block_size;
  v.num_kv_heads = config.num_kv_heads;
  v.head_dim = config.head_dim;
  v.num_tokens = num_tokens;
  v.k_scale = config.k_scale;
  v.v_scale = config.v_scale;
  v.k_base = k.data();
  v.k_table = k_table.data();
  v.k_block_bytes = k_block_bytes;
  v.v_base = this->v.data();
  v.v_table = v_table.data();
  v.v_block_bytes = v_block_bytes;
  v.kr_base = kr.data();
  v.kr_table = kr_table.data();
  v.kr_block_bytes = kr_block_bytes;
  v.vw_base = vw.data();
  v.vw_table = vw_table.data();
  v.vw_block_bytes = vw_block_bytes;
  v.positions = positions.data();
  v.positions_stride = num_tokens;
  return v;
}

namespace cuda_detail {

Status error_status(cudaError_t e, const char* expr, const char* file, int line) {
  cudaGetLastError();  // clear a sticky-free error so the next call starts clean
  return Status::Internal(std::string("CUDA error ") + cudaGetErrorName(e) + " (" +
                          cudaGetErrorString(e) + ") in " + expr + " at " + file + ":" +
                          std::to_string(line));
}

bool is_device_pointer(const void* p) {
  if (!p) return false;
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

Stage::~Stage() {
  for (void* p : owned_) cudaFree(p);
}

Status Stage::alloc(std::uint64_t bytes, void** dev) {
  *dev = nullptr;
  if (bytes == 0) return Status::Ok();
  KVPLAN_CUDA_CHECK(cudaMalloc(dev, bytes));
  owned_.push_back(*dev);
  return Status::Ok();
}

Status Stage::in(const void* p, std::uint64_t bytes, const void** dev) {
  *dev = p;
  if (!p || bytes == 0 || is_device_pointer(p)) return Status::Ok();
  void* d = nullptr;
  if (Status s = alloc(bytes, &d); !s.ok()) return s;
  KVPLAN_CUDA_CHECK(cudaMemcpyAsync(d, p, bytes, cudaMemcpyHostToDevice, stream_));
  *dev = d;
  staged_ = true;
  return Status::Ok();
}

Status Stage::out(void* p, std::uint64_t bytes, void** dev, bool copy_in) {
  *dev = p;
  if (!p || bytes == 0 || is_device_pointer(p)) return Status::Ok();
  void* d = nullptr;
  if (Status s = alloc(bytes, &d); !s.ok()) return s;
  if (copy_in) KVPLAN_CUDA_CHECK(cudaMemcpyAsync(d, p, bytes, cudaMemcpyHostToDevice, stream_));
  back_.push_back({p, d, bytes});
  *dev = d;
  staged_ = true;
  return Status::Ok();
}

Status Stage::finish() {
  for (const Back& b : back_)
    KVPLAN_CUDA_CHECK(cudaMemcpyAsync(b.host, b.dev, b.bytes, cudaMemcpyDeviceToHost, stream_));
  back_.clear();
  if (staged_) KVPLAN_CUDA_CHECK(cudaStreamSynchronize(stream_));
  return Status::Ok();
}

TableLengths table_lengths(const KvFormat& f, std::uint32_t S, std::uint32_t n) {
  TableLengths t;
  if (f.dtype != KvDtype::kivi) {
    t.k = t.v = static_cast<std::uint32_t>(ceil_div(n, S));
    return t;
  }
  const std::uint32_t kq = kivi_key_quant_tokens(n, f.residual);
  const std::uint32_t vq = kivi_value_quant_tokens(n, f.residual);
  const std::uint32_t C = kivi_window_slots(S, f.residual);
  t.k = static_cast<std::uint32_t>(ceil_div(kq, kivi_key_block_tokens(S, f.group)));
  t.kr = static_cast<std::uint32_t>(ceil_div(n - kq, S));
  t.v = static_cast<std::uint32_t>(ceil_div(vq, S));
  t.vw = static_cast<std::uint32_t>(ceil_div(std::min(n, C), S));
  return t;
}

namespace {
// Uploads the blocks `table[0..len)` of `base` into a fresh device buffer, renumbered 0..len-1.
Status upload_arena(Stage& stage, const std::uint8_t* base, const std::uint32_t* table,
                    std::uint32_t len, std::uint64_t block_bytes, const std::uint8_t** dbase,
                    const std::uint32_t** dtable) {
  *dbase = nullptr;
  *dtable = nullptr;
  if (len == 0 || block_bytes == 0) return Status::Ok();
  std::vector<std::uint8_t> packed(len * block_bytes);
  for (std::uint32_t i = 0; i < len; ++i)
    std::copy_n(base + table[i] * block_bytes, block_bytes, packed.begin() + i * block_bytes);
  std::vector<std::uint32_t> ids(len);
  for (std::uint32_t i = 0; i < len; ++i) ids[i] = i;
  void *d = nullptr, *dt = nullptr;
  if (Status s = stage.alloc(packed.size(), &d); !s.ok()) return s;
  if (Status s = stage.alloc(len * 4ull, &dt); !s.ok()) return s;
  // Synchronous copies: `packed` and `ids` die with this frame.
  KVPLAN_CUDA_CHECK(cudaMemcpy(d, packed.data(), packed.size(), cudaMemcpyHostToDevice));
  KVPLAN_CUDA_CHECK(cudaMemcpy(dt, ids.data(), len * 4ull, cudaMemcpyHostToDevice));
  *dbase = static_cast<const std::uint8_t*>(d);
  *dtable = static_cast<const std::uint32_t*>(dt);
  return Status::Ok();
}
}  // namespace

Status stage_view(const PagedKvView& v, Stage& stage, PagedKvView* dev) {
  *dev = v;
  if (is_device_pointer(v.k_base) || is_device_pointer(v.kr_base)) return Status::Ok();
  const TableLengths len = table_lengths(v.format, v.block_size, v.num_tokens);
  if (Status s = upload_arena(stage, v.k_base, v.k_table, len.k, v.k_block_bytes, &dev->k_base,
                              &dev->k_table);
      !s.ok())
    return s;
  if (Status s = upload_arena(stage, v.v_base, v.v_table, len.v, v.v_block_bytes, &dev->v_base,
                              &dev->v_table);
      !s.ok())
    return s;
  if (Status s = upload_arena(stage, v.kr_base, v.kr_table, len.kr, v.kr_block_bytes, &dev->kr_base,
                              &dev->kr_table);
      !s.ok())
    return s;
  if (Status s = upload_arena(stage, v.vw_base, v.vw_table, len.vw, v.vw_block_bytes, &dev->vw_base,
                              &dev->vw_table);
      !s.ok())
    return s;
  if (v.positions && v.num_tokens > 0) {
    std::vector<std::int32_t> pos(std::uint64_t{v.num_kv_heads} * v.num_tokens);
    for (std::uint32_t h = 0; h < v.num_kv_heads; ++h)
      std::copy_n(v.positions + std::uint64_t{h} * v.positions_stride, v.num_tokens,
                  pos.begin() + std::uint64_t{h} * v.num_tokens);
    void* d = nullptr;
    if (Status s = stage.alloc(pos.size() * 4, &d); !s.ok()) return s;
    KVPLAN_CUDA_CHECK(cudaMemcpy(d, pos.data(), pos.size() * 4, cudaMemcpyHostToDevice));
    dev->positions = static_cast<const std::int32_t*>(d);
    dev->positions_stride = v.num_tokens;
  }
  return Status::Ok();
}

Status workspace(cudaStream_t s, std::uint64_t bytes, void** out) {
  static std::mutex mu;
  static std::map<std::pair<int, cudaStream_t>, std::pair<void*, std::uint64_t>> cache;
  std::lock_guard<std::mutex> lock(mu);
  int dev = 0;
  KVPLAN_CUDA_CHECK(cudaGetDevice(&dev));
  auto& slot = cache[{dev, s}];
  if (slot.second < bytes) {
    if (slot.first) {
      KVPLAN_CUDA_CHECK(cudaStreamSynchronize(s));
      KVPLAN_CUDA_CHECK(cudaFree(slot.first));
      slot = {nullptr, 0};
    }
    const std::uint64_t grown = std::max<std::uint64_t>(bytes, 1 << 20);
    KVPLAN_CUDA_CHECK(cudaMalloc(&slot.first, grown));
    slot.second = grown;
  }
  *out = slot.first;
  return Status::Ok();
}

int sm_count() {
  static int count = [] {
    int dev = 0, n = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
      cudaGetLastError();
      return 100;
    }
    return n;
  }();
  return count;
}

}  // namespace cuda_detail
}  // namespace kvplan::kernels
