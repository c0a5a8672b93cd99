// Safetensors files: a memory-mapped, fully validated reader and a writer whose output the Python
// `safetensors` package reads.
//
// Layout (https://github.com/huggingface/safetensors):
//   bytes [0, 8)        N, the JSON header length, unsigned 64-bit little-endian
//   bytes [8, 8 + N)    JSON object: {"__metadata__": {"key": "string", ...},
//                        "name": {"dtype": "F32", "shape": [T, H, d], "data_offsets": [b, e]}, ...}
//                       padded with spaces so that 8 + N is a multiple of 8 (the writer does this)
//   bytes [8 + N, end)  the data section; offsets are relative to its start, the tensors cover it
//                       exactly, without gaps or overlaps; row-major, little-endian
//
//   auto f = kvplan::sim::SafetensorsFile::open("trace.safetensors");
//   const TensorInfo& k = f.at("layers.0.k");        // dtype F16, shape [512, 4, 8]
//   std::vector<float> row(4 * 8);
//   f.read_f32(k, 7 * 32, row);                       // token 7, all heads, as float
//
// Every check happens before anything is allocated from the header's numbers; limits are in
// SafetensorsLimits. A bad file throws kvplan::Error naming the file, the tensor and the field.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kvplan::sim {

enum class DType { f32, f16, bf16, i32 };

std::string_view to_string(DType d);  // "F32", "F16", "BF16", "I32" (safetensors names)
std::size_t dtype_bytes(DType d);     // 4, 2, 2, 4
// Parses a safetensors dtype name; throws Error(source, field) naming the accepted ones.
DType parse_dtype(std::string_view name, const std::string& source, const std::string& field);

struct SafetensorsLimits {
  std::uint64_t max_header_bytes = 100u << 20;     // the Python reader's own limit (100 MiB)
  std::uint64_t max_tensors = 1u << 16;            // tensors in one file
  std::uint32_t max_rank = 8;                      // dimensions of one tensor
  std::uint64_t max_dim = std::uint64_t{1} << 32;  // elements along one dimension
  std::uint64_t max_tensor_bytes = std::uint64_t{1} << 40;  // 1 TiB
};

struct TensorInfo {
  std::string name;
  DType dtype = DType::f32;
  std::vector<std::uint64_t> shape;
  std::uint64_t begin = 0, end = 0;  // byte offsets inside the data section, [begin, end)
  std::uint64_t elements() const;    // product of shape (1 for a scalar)
};

// A read-only memory-mapped safetensors file. Move-only.
class SafetensorsFile {
 public:
  static SafetensorsFile open(const std::string& path, const SafetensorsLimits& limits = {});
  SafetensorsFile(SafetensorsFile&& other) noexcept;
  SafetensorsFile& operator=(SafetensorsFile&& other) noexcept;
  SafetensorsFile(const SafetensorsFile&) = delete;
  SafetensorsFile& operator=(const SafetensorsFile&) = delete;
  ~SafetensorsFile();

  const std::string& path() const { return path_; }
  const std::vector<TensorInfo>& tensors() const { return tensors_; }  // sorted by name
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  const TensorInfo* find(std::string_view name) const;          // nullptr when absent
  const TensorInfo& at(std::string_view name) const;            // throws Error naming the tensor
  std::span<const std::byte> bytes(const TensorInfo& t) const;  // raw little-endian data
  std::uint64_t file_bytes() const { return size_; }

  // Converts `out.size()` elements starting at element `first` of an F32/F16/BF16 tensor to float
  // (I32 is converted too). Throws Error when the range is outside the tensor.
  void read_f32(const TensorInfo& t, std::uint64_t first, std::span<float> out) const;

 private:
  SafetensorsFile() = default;
  void parse(const SafetensorsLimits& limits);
  std::string path_;
  const std::byte* base_ = nullptr;  // the mapping
  std::uint64_t size_ = 0;
  std::uint64_t data_start_ = 0;  // 8 + N
  std::vector<TensorInfo> tensors_;
  std::map<std::string, std::string> metadata_;
};

// One tensor to write: raw little-endian bytes, shape elements · dtype_bytes long.
struct TensorView {
  std::string name;
  DType dtype = DType::f32;
  std::vector<std::uint64_t> shape;
  std::span<const std::byte> data;
};

// Writes a safetensors file (tensors laid out in the given order, header padded with spaces to a
// multiple of 8 bytes). Throws Error naming the file when a size does not match or on I/O errors.
void write_safetensors(const std::string& path, const std::vector<TensorView>& tensors,
                       const std::map<std::string, std::string>& metadata);

// Streams a safetensors file whose tensors are known up front but whose data is produced piece by
// piece (synthetic traces of 128K tokens are never held in memory whole). write() takes the
// tensors' bytes in declaration order; finish() checks every byte arrived.
class SafetensorsStreamWriter {
 public:
  struct Decl {
    std::string name;
    DType dtype = DType::f32;
    std::vector<std::uint64_t> shape;
  };
  SafetensorsStreamWriter(std::string path, const std::vector<Decl>& tensors,
                          const std::map<std::string, std::string>& metadata);
  void write(std::span<const std::byte> bytes);
  void finish();

 private:
  std::string path_;
  std::FILE* f_ = nullptr;
  std::uint64_t expected_ = 0, written_ = 0;

 public:
  ~SafetensorsStreamWriter();
  SafetensorsStreamWriter(const SafetensorsStreamWriter&) = delete;
  SafetensorsStreamWriter& operator=(const SafetensorsStreamWriter&) = delete;
};

// IEEE half and bfloat16 conversions (round to nearest even), used by readers and writers.
float half_to_float(std::uint16_t h);
std::uint16_t float_to_half(float f);
float bf16_to_float(std::uint16_t h);
std::uint16_t float_to_bf16(float f);

}  // namespace kvplan::sim
