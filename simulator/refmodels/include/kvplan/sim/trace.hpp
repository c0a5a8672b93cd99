// Attention traces: one .safetensors file per trace (ARCHITECTURE.md, "Traces"; docs/traces.md).
//
//   layers.{l}.q  [T, H_q, d]    queries before RoPE      F32, F16 or BF16 (one dtype per file)
//   layers.{l}.k  [T, H_kv, d]   keys before RoPE
//   layers.{l}.v  [T, H_kv, d]   values
//   tokens        [T]            I32, optional
//   __metadata__  format=kvplan-trace, version=1, model, rope_theta, rope_dims,
//                 rope_style=interleaved|half, optionally rope_scaling_type=llama3 with
//                 rope_scaling_factor, rope_scaling_low_freq_factor,
//                 rope_scaling_high_freq_factor, rope_scaling_original_max_position_embeddings
//                 (+ any other strings)
//
//   TraceFile t = TraceFile::open("run.safetensors");
//   t.info().layers == 5; t.info().tokens == 512
//   std::vector<float> q(t.info().q_width());
//   t.read(TraceTensor::q, /*layer*/ 0, /*token*/ 7, q);
//
// The replay applies RoPE itself from the metadata, so it can position retained keys either at
// their original position or at their slot in the cache.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kvplan/kernels/attention.hpp"
#include "kvplan/sim/safetensors.hpp"

namespace kvplan::sim {

enum class RopeStyle { interleaved, half };  // pairs (i, i+1) as llama2.c; (i, i+d/2) as HF

// Hugging Face "rope_scaling" of type llama3 (Llama 3.1+): long wavelengths slowed by `factor`,
// short ones kept, a smooth ramp between (kernels::rope_scaled_inv_freq has the formula).
struct RopeScaling {
  std::string type;  // "" (none) or "llama3"
  double factor = 1, low_freq_factor = 1, high_freq_factor = 4;
  std::uint32_t original_max_position_embeddings = 0;
};

struct RopeSpec {
  double theta = 10000.0;
  std::uint32_t dims = 0;  // rotated leading channels per head (0 = none); even, <= head_dim
  RopeStyle style = RopeStyle::interleaved;
  RopeScaling scaling{};  // frequency scaling (type "" = none)
};

// Rotates one head vector `x` (head_dim elements) in place for position `pos`. Uses the float
// arithmetic of llama2.c (freq = 1 / powf(theta, i / dims), cosf/sinf of pos·freq in float), so a
// replay reproduces the reference model bit for bit; with llama3 scaling each freq then goes
// through kernels::rope_scaled_inv_freq in float.
void apply_rope(const RopeSpec& rope, std::span<float> x, std::uint64_t pos);

// The same RoPE as the attention kernels take it (their re-rotation for positions=cache):
// style none when dims is 0, theta, dims and the llama3 scaling.
kernels::RopeParams kernel_rope(const RopeSpec& rope);

struct TraceInfo {
  std::string model;  // metadata "model"
  std::string version = "1";
  std::uint32_t layers = 0;
  std::uint32_t q_heads = 0, kv_heads = 0, head_dim = 0;
  std::uint64_t tokens = 0;  // T
  DType dtype = DType::f32;  // of q, k, v
  RopeSpec rope{};
  std::map<std::string, std::string> metadata;  // every metadata string, as read
  std::size_t q_width() const { return std::size_t{q_heads} * head_dim; }
  std::size_t kv_width() const { return std::size_t{kv_heads} * head_dim; }
};

enum class TraceTensor { q, k, v };

// A validated, memory-mapped trace. Throws Error naming the file and the tensor/field on any
// inconsistency (missing layers, shapes that disagree across layers, mixed dtypes, bad metadata).
class TraceFile {
 public:
  static TraceFile open(const std::string& path);
  const TraceInfo& info() const { return info_; }
  const std::string& path() const { return file_.path(); }
  // One token's row of q ([H_q·d]) or k/v ([H_kv·d]) as float; out.size() must be that width.
  void read(TraceTensor which, std::uint32_t layer, std::uint64_t token,
            std::span<float> out) const;
  const std::vector<std::int32_t>& tokens() const { return tokens_; }  // empty when absent
  std::uint64_t file_bytes() const { return file_.file_bytes(); }

 private:
  explicit TraceFile(SafetensorsFile f) : file_(std::move(f)) {}
  SafetensorsFile file_;
  TraceInfo info_;
  std::vector<const TensorInfo*> q_, k_, v_;
  std::vector<std::int32_t> tokens_;
};

// Collects a trace in memory (float) and writes it in the requested dtype.
class TraceBuilder {
 public:
  explicit TraceBuilder(TraceInfo info);  // info.tokens is ignored; rows are appended
  // Appends one token's rows for one layer; layers of a token may come in any order, but every
  // layer must receive the same number of rows before write().
  void append(std::uint32_t layer, std::span<const float> q, std::span<const float> k,
              std::span<const float> v);
  void append_token(std::int32_t token) { tokens_.push_back(token); }
  std::uint64_t rows(std::uint32_t layer) const { return q_.at(layer).size() / info_.q_width(); }
  const TraceInfo& info() const { return info_; }
  // Writes the file; `dtype` F32, F16 or BF16. Throws Error naming the file.
  void write(const std::string& path, DType dtype) const;

 private:
  TraceInfo info_;
  std::vector<std::vector<float>> q_, k_, v_;
  std::vector<std::int32_t> tokens_;
};

}  // namespace kvplan::sim
