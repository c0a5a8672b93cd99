// Internal to kvplan_kernels_cuda: the one CUDA error-checking macro, host/device pointer
// staging, the per-stream workspace, and uploading a host PagedKvView. Host-only C++.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kvplan/kernels/cuda.hpp"

namespace kvplan::kernels::cuda_detail {

Status error_status(cudaError_t e, const char* expr, const char* file, int line);

// Every CUDA runtime call goes through this: on failure the enclosing function returns a Status
// naming the call, the CUDA error and the place.
#define KVPLAN_CUDA_CHECK(expr)                                                                  \
  do {                                                                                           \
    const cudaError_t kvplan_e_ = (expr);                                                        \
    if (kvplan_e_ != cudaSuccess)                                                                \
      return ::kvplan::kernels::cuda_detail::error_status(kvplan_e_, #expr, __FILE__, __LINE__); \
  } while (0)
// After a launch: configuration errors surface here.
#define KVPLAN_CUDA_CHECK_LAUNCH() KVPLAN_CUDA_CHECK(cudaGetLastError())

inline cudaStream_t to_cuda(CudaStream s) { return reinterpret_cast<cudaStream_t>(s); }

// True for device (or managed) memory, false for host memory and null.
bool is_device_pointer(const void* p);

// Stages host buffers through device memory for one launcher call; device pointers pass through.
// finish() copies outputs back and synchronizes when anything was staged.
class Stage {
 public:
  explicit Stage(cudaStream_t s) : stream_(s) {}
  ~Stage();
  Stage(const Stage&) = delete;
  Stage& operator=(const Stage&) = delete;
  Status in(const void* p, std::uint64_t bytes, const void** dev);
  // copy_in: the kernel reads the buffer too (accumulates in place).
  Status out(void* p, std::uint64_t bytes, void** dev, bool copy_in = false);
  Status alloc(std::uint64_t bytes, void** dev);
  Status finish();
  bool staged() const { return staged_; }

  template <class T>
  Status in(const T* p, std::uint64_t count, const T** dev) {
    const void* d = nullptr;
    Status s = in(static_cast<const void*>(p), count * sizeof(T), &d);
    *dev = static_cast<const T*>(d);
    return s;
  }
  template <class T>
  Status out(T* p, std::uint64_t count, T** dev, bool copy_in = false) {
    void* d = nullptr;
    Status s = out(static_cast<void*>(p), count * sizeof(T), &d, copy_in);
    *dev = static_cast<T*>(d);
    return s;
  }

 private:
  struct Back {
    void* host;
    void* dev;
    std::uint64_t bytes;
  };
  cudaStream_t stream_;
  std::vector<void*> owned_;
  std::vector<Back> back_;
  bool staged_ = false;
};

// Table lengths a view of n tokens references (k, v, kr, vw), from the shared index helpers.
struct TableLengths {
  std::uint32_t k = 0, v = 0, kr = 0, vw = 0;
};
TableLengths table_lengths(const KvFormat& f, std::uint32_t block_size, std::uint32_t n);

// A device-resident copy of `v`: v itself when v.k_base is device memory, else its referenced
// blocks uploaded (tables renumbered) and positions [H, n], owned by `stage`.
Status stage_view(const PagedKvView& v, Stage& stage, PagedKvView* dev);

// Scratch memory for one stream, grown on demand, kept for the process (decode split-K partials).
Status workspace(cudaStream_t s, std::uint64_t bytes, void** out);

int sm_count();

}  // namespace kvplan::kernels::cuda_detail
