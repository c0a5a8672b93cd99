// The CUDA backend of every kernel family: launchers that take the same parameter structs as the
// CPU reference (quantize.hpp, attention.hpp, eviction.hpp), and DevicePagedKv, the paged block
// pool of paged_kv.hpp in device memory. Includable without CUDA headers (the stream is a forward
// declared CUstream_st*, which is what cudaStream_t is); defined only where KVPLAN_HAVE_CUDA.
//
// Pointers: every launcher accepts device pointers (the fast path, asynchronous on `stream`) or
// host pointers, which it stages through device memory and copies back before returning
// (synchronous), so the dispatchers can route Backend::cuda for host callers unchanged.
// A PagedKvView is device-resident when its k_base is a device pointer (DevicePagedKv::view);
// otherwise it is uploaded block by block through its tables (a PagedKvPool::view).
//
//   DevicePagedKv kv;
//   kv.init({.format = fmt, .num_layers = 1, .num_kv_heads = 8, .head_dim = 128,
//            .block_size = 16});
//   std::uint32_t seq = kv.add_sequence();
//   kv.append_tokens(seq, 0, n, k_host, v_host);            // [n, 8, 128] floats, host or device
//   decode_attention_cuda({.kv = kv.view(seq, 0), .num_q_heads = 32, .q = d_q, .out = d_out});
//   HostKvCopy back; kv.download(seq, 0, &back);             // load_key(back.view(), h, t, row)
//
// Results against the CPU reference (tests/cuda): quantize/dequantize and every cache byte are
// bit-identical; attention outputs and probabilities within normalized MSE 1e-10 (fp32
// accumulation and split-K order); eviction selections identical given identical scores.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kvplan/kernels/attention.hpp"
#include "kvplan/kernels/common.hpp"
#include "kvplan/kernels/eviction.hpp"
#include "kvplan/kernels/paged_kv.hpp"
#include "kvplan/kernels/quantize.hpp"

struct CUstream_st;

namespace kvplan::kernels {

using CudaStream = CUstream_st*;  // == cudaStream_t; nullptr is the default stream

// True when a CUDA device is usable; otherwise `why` (if given) says why not (no driver, no
// device, error text). Never throws, safe to call on machines without a GPU.
bool cuda_available(std::string* why = nullptr);
// "NVIDIA H200 (sm_90, 132 SMs, 141 GiB)" or the reason there is none.
std::string cuda_device_summary();

// ---- quantize.hpp ----
// in/out/codes/dequant: device or host pointers (see above). Bit-identical to quantize_ref.
Status quantize_cuda(const QuantizeParams& p, CudaStream stream = nullptr);
Status dequantize_cuda(const QuantizeParams& p, CudaStream stream = nullptr);

// ---- attention.hpp ----
// Flash-decoding: the sequence is split across thread blocks (partial softmax per split), then a
// reduction kernel merges the splits; probs (optional) are normalized in a third pass.
Status decode_attention_cuda(const DecodeAttentionParams& p, CudaStream stream = nullptr);
// `count` sequences in one launch (e.g. a decode batch); every kv view device-resident and every
// q/out/probs pointer a device pointer.
Status decode_attention_batch_cuda(const DecodeAttentionParams* params, std::uint32_t count,
                                   CudaStream stream = nullptr);
// Dequantizes (and, for positions=cache, re-rotates) the prompt's keys and values once, then one
// thread block per (query, query head); for SnapKV's observation window.
Status prefill_attention_cuda(const PrefillAttentionParams& p, CudaStream stream = nullptr);

// ---- eviction.hpp ----
// Selections fill a host KeepSet (as the CPU reference does); scores/probs/positions may live on
// either side. Top-k on the device: an exact k-th key search over (score desc, position asc)
// keys, so ties go to the lower position exactly as in the reference.
Status streaming_select_cuda(const StreamingSelectParams& p, KeepSet* keep,
                             CudaStream stream = nullptr);
Status h2o_accumulate_cuda(const H2oAccumulateParams& p, CudaStream stream = nullptr);
Status h2o_select_cuda(const H2oSelectParams& p, KeepSet* keep, CudaStream stream = nullptr);
Status snapkv_select_cuda(const SnapKvSelectParams& p, KeepSet* keep, CudaStream stream = nullptr);

// A host copy of one (sequence, layer) of a DevicePagedKv: the referenced blocks, renumbered
// 0..m-1 in table order, and the positions [H, n]. view() reads it with load_key / load_value.
struct HostKvCopy {
  PoolConfig config{};
  std::uint32_t num_tokens = 0;
  std::vector<std::uint8_t> k, v, kr, vw;  // [table length, block bytes] each
  std::vector<std::uint32_t> k_table, v_table, kr_table, vw_table;
  std::uint64_t k_block_bytes = 0, v_block_bytes = 0, kr_block_bytes = 0, vw_block_bytes = 0;
  std::vector<std::int32_t> positions;  // [H, num_tokens]
  PagedKvView view() const;
};

// The paged block pool of paged_kv.hpp in device memory (cudaMalloc, no managed memory): the
// same PoolConfig, block layouts, block tables, append semantics (KIVI residual chunks and value
// window ring included), compaction and byte accounting, so bytes_held() equals PagedKvPool's
// and a cache written on one side reads bit-identically on the other (download / assign).
class DevicePagedKv : public PagedKvPoolBase {
 public:
  DevicePagedKv() = default;
  ~DevicePagedKv();
  DevicePagedKv(const DevicePagedKv&) = delete;
  DevicePagedKv& operator=(const DevicePagedKv&) = delete;

  Status init(const PoolConfig& config, CudaStream stream = nullptr);

  Status free_sequence(std::uint32_t seq) override;
  // As PagedKvPoolBase: k, v [n, H, d] floats on the host or the device, positions on the host;
  // the encoding and (compact) the moves run on the device.
  Status append_tokens(std::uint32_t seq, std::uint32_t layer, std::uint32_t n, const float* k,
                       const float* v, const std::int32_t* positions = nullptr,
                       bool per_head = false) override;
  Status compact(std::uint32_t seq, std::uint32_t layer, const KeepSet& keep) override;

  // Replaces (seq, layer) with the contents of a host view of the same format and geometry
  // (e.g. PagedKvPool::view): a cache written on the CPU, read on the GPU.
  Status assign(std::uint32_t seq, std::uint32_t layer, const PagedKvView& host);
  // Copies (seq, layer) back to the host: a cache written on the GPU, read on the CPU.
  Status download(std::uint32_t seq, std::uint32_t layer, HostKvCopy* out) const;

  // Device-pointer view; valid until the next append, compact, assign or free. num_tokens,
  // positions (a host copy), bytes_held and book() come from PagedKvPoolBase: the same
  // bookkeeping, and so the same block ids, as PagedKvPool.
  PagedKvView view(std::uint32_t seq, std::uint32_t layer) const;

 private:
  // The device storage behind book_ (paged_kv.cu): arenas in device memory, the steps as
  // kernels over paged_kv.hpp's element helpers, tables and positions mirrored to the device.
  struct DeviceStorage;
  Status scratch(std::uint64_t bytes, void** out);
  PagedKvView make_view(const LayerBook& lc) const;
  void release();

  CudaStream stream_ = nullptr;
  std::uint8_t* arena_[kKvArenas] = {nullptr, nullptr, nullptr, nullptr};  // device
  void* scratch_ = nullptr;
  std::uint64_t scratch_bytes_ = 0;
};

}  // namespace kvplan::kernels
