#include "kvplan/sim/safetensors.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "kvplan/checked.hpp"
#include "kvplan/error.hpp"

namespace kvplan::sim {

namespace {

using json = nlohmann::json;

std::uint16_t load_u16(const std::byte* p) {
  std::uint16_t v;
  std::memcpy(&v, p, 2);
  return v;  // little-endian hosts only (static_assert below)
}
static_assert(std::endian::native == std::endian::little, "kvplan assumes a little-endian host");

std::string errno_text() { return std::strerror(errno); }

std::string file_kind(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

// Bounds on the JSON header beyond its byte length: nesting depth (a header of 100 MiB of '['
// built a 7.7 GB DOM), values (each costs a DOM node) and duplicate keys, which are refused as
// in kvplan's own formats (a reader that kept the first and one that kept the last would disagree).
constexpr int kMaxHeaderDepth = 16;
constexpr std::uint64_t kMaxHeaderValues = std::uint64_t{1} << 22;

json parse_header(const char* text, std::size_t n, const std::string& path) {
  std::vector<std::set<std::string>> keys;
  std::uint64_t values = 0;
  const auto cb = [&](int depth, json::parse_event_t ev, json& parsed) {
    if (depth > kMaxHeaderDepth)
      throw Error(
          path, "header",
          "invalid JSON: nested deeper than " + std::to_string(kMaxHeaderDepth) + " levels");
    switch (ev) {
      case json::parse_event_t::object_start:
        keys.emplace_back();
        break;
      case json::parse_event_t::object_end:
        keys.pop_back();
        break;
      case json::parse_event_t::key: {
        const auto& k = parsed.get_ref<const std::string&>();
        if (!keys.back().insert(k).second)
          throw Error(path, "header", "duplicate key \"" + k + "\" in the JSON header");
        break;
      }
      case json::parse_event_t::value:
        if (++values > kMaxHeaderValues)
          throw Error(
              path, "header",
              "JSON header holds more than " + std::to_string(kMaxHeaderValues) + " values");
        break;
      default:
        break;
    }
    return true;
  };
  try {
    return json::parse(text, text + n, cb);
  } catch (const json::exception& e) {
    throw Error(path, "header", std::string("invalid JSON: ") + e.what());
  }
}

}  // namespace

std::string_view to_string(DType d) {
  switch (d) {
    case DType::f32:
      return "F32";
    case DType::f16:
      return "F16";
    case DType::bf16:
      return "BF16";
    case DType::i32:
      return "I32";
  }
  return "?";
}

std::size_t dtype_bytes(DType d) {
  switch (d) {
    case DType::f32:
    case DType::i32:
      return 4;
    case DType::f16:
    case DType::bf16:
      return 2;
  }
  return 0;
}

DType parse_dtype(std::string_view name, const std::string& source, const std::string& field) {
  if (name == "F32") return DType::f32;
  if (name == "F16") return DType::f16;
  if (name == "BF16") return DType::bf16;
  if (name == "I32") return DType::i32;
  throw Error(source, field,
              "unsupported dtype '" + std::string(name) + "' (expected F32, F16, BF16 or I32)");
}

std::uint64_t TensorInfo::elements() const {
  std::uint64_t n = 1;
  for (auto d : shape) n = mul(n, d, "tensor elements");
  return n;
}

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = (h & 0x8000u) << 16;
  std::uint32_t exp = (h >> 10) & 0x1f;
  std::uint32_t mant = h & 0x3ffu;
  std::uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalize
      exp = 127 - 15 + 1;
      while ((mant & 0x400u) == 0) {
        mant <<= 1;
        --exp;
      }
      mant &= 0x3ffu;
      bits = sign | (exp << 23) | (mant << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  return std::bit_cast<float>(bits);
}

std::uint16_t float_to_half(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) {  // inf or nan
    return static_cast<std::uint16_t>(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0));
  }
  if (absx >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // overflow
  if (absx < 0x38800000u) {  // subnormal half or zero
    if (absx < 0x33000000u) return static_cast<std::uint16_t>(sign);
    const std::uint32_t e = absx >> 23;
    const std::uint32_t m = (absx & 0x7fffffu) | 0x800000u;
    const std::uint32_t shift = 126 - e;  // value = m · 2^(e-150) = v · 2^-24
    std::uint32_t v = m >> shift;
    const std::uint32_t rem = m & ((1u << shift) - 1);
    const std::uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (v & 1u))) ++v;
    return static_cast<std::uint16_t>(sign | v);
  }
  std::uint32_t v = ((absx >> 23) - 112) << 10 | ((absx >> 13) & 0x3ffu);
  const std::uint32_t rem = absx & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (v & 1u))) ++v;
  return static_cast<std::uint16_t>(sign | v);
}

float bf16_to_float(std::uint16_t h) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(h) << 16);
}

std::uint16_t float_to_bf16(float f) {
  std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<std::uint16_t>(x >> 16);
}

// ---------------------------------------------------------------------------------------------

SafetensorsFile::SafetensorsFile(SafetensorsFile&& o) noexcept { *this = std::move(o); }

SafetensorsFile& SafetensorsFile::operator=(SafetensorsFile&& o) noexcept {
  if (this == &o) return *this;
  if (base_) munmap(const_cast<std::byte*>(base_), size_);
  path_ = std::move(o.path_);
  base_ = std::exchange(o.base_, nullptr);
  size_ = std::exchange(o.size_, 0);
  data_start_ = o.data_start_;
  tensors_ = std::move(o.tensors_);
  metadata_ = std::move(o.metadata_);
  return *this;
}

SafetensorsFile::~SafetensorsFile() {
  if (base_) munmap(const_cast<std::byte*>(base_), size_);
}

SafetensorsFile SafetensorsFile::open(const std::string& path, const SafetensorsLimits& limits) {
  SafetensorsFile f;
  f.path_ = path;
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below like any
  // file that is not a regular one.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw Error(path, "", "cannot open: " + errno_text());
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    const std::string msg = errno_text();
    ::close(fd);
    throw Error(path, "", "cannot stat: " + msg);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error(path, "", "cannot read: " + file_kind(st.st_mode) + ", not a regular file");
  }
  f.size_ = static_cast<std::uint64_t>(st.st_size);
  if (f.size_ < 8) {
    ::close(fd);
    throw Error(path, "header length",
                "file is " + std::to_string(f.size_) +
                    " bytes, shorter than the 8-byte header length (truncated?)");
  }
  void* p = mmap(nullptr, f.size_, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) throw Error(path, "", "cannot mmap: " + errno_text());
  f.base_ = static_cast<const std::byte*>(p);
  f.parse(limits);
  return f;
}

namespace {

// "__metadata__": an object of strings.
void read_metadata(const json& v, const std::string& path,
                   std::map<std::string, std::string>& out) {
  if (!v.is_object()) throw Error(path, "__metadata__", "must be an object of strings");
  for (auto m = v.begin(); m != v.end(); ++m) {
    if (!m.value().is_string())
      throw Error(path, "__metadata__/" + m.key(),
                  "metadata values must be strings, got " + std::string(m.value().type_name()));
    out[m.key()] = m.value().get<std::string>();
  }
}

// A tensor's "shape": non-negative dimensions within the limits.
std::vector<std::uint64_t> read_shape(const json& v, const std::string& path,
                                      const std::string& where, const SafetensorsLimits& lim) {
  if (!v.contains("shape") || !v["shape"].is_array())
    throw Error(path, where + " /shape", "missing or not an array");
  const json& shape = v["shape"];
  if (shape.size() > lim.max_rank)
    throw Error(path, where + " /shape",
                "rank " + std::to_string(shape.size()) + " over the limit of " +
                    std::to_string(lim.max_rank));
  std::vector<std::uint64_t> dims;
  for (const auto& d : shape) {
    if (!d.is_number_unsigned())
      throw Error(path, where + " /shape",
                  "dimensions must be non-negative integers, got " +
                      (d.is_primitive() ? d.dump() : std::string(d.type_name())));
    const auto dim = d.get<std::uint64_t>();
    if (dim > lim.max_dim)
      throw Error(path, where + " /shape",
                  "dimension " + std::to_string(dim) + " over the limit of " +
                      std::to_string(lim.max_dim) + " (absurd size)");
    dims.push_back(dim);
  }
  return dims;
}

// One tensor's entry: dtype, shape and data_offsets, whose span must be what shape and dtype
// need and lie inside the data section of `data_len` bytes.
TensorInfo read_tensor(const std::string& name, const json& v, std::uint64_t data_len,
                       const std::string& path, const SafetensorsLimits& lim) {
  const std::string where = "tensor '" + name + "'";
  if (!v.is_object()) throw Error(path, where, "must be an object with dtype, shape, data_offsets");
  for (auto f = v.begin(); f != v.end(); ++f) {
    if (f.key() != "dtype" && f.key() != "shape" && f.key() != "data_offsets")
      throw Error(path, where + " /" + f.key(),
                  "unknown field (expected dtype, shape, data_offsets)");
  }
  TensorInfo t;
  t.name = name;
  if (!v.contains("dtype") || !v["dtype"].is_string())
    throw Error(path, where + " /dtype", "missing or not a string");
  t.dtype = parse_dtype(v["dtype"].get<std::string>(), path, where + " /dtype");
  t.shape = read_shape(v, path, where, lim);
  if (!v.contains("data_offsets") || !v["data_offsets"].is_array() ||
      v["data_offsets"].size() != 2 || !v["data_offsets"][0].is_number_unsigned() ||
      !v["data_offsets"][1].is_number_unsigned())
    throw Error(path, where + " /data_offsets", "must be [begin, end], two non-negative integers");
  t.begin = v["data_offsets"][0].get<std::uint64_t>();
  t.end = v["data_offsets"][1].get<std::uint64_t>();
  if (t.begin > t.end)
    throw Error(path, where + " /data_offsets",
                "begin " + std::to_string(t.begin) + " after end " + std::to_string(t.end));
  if (t.end > data_len)
    throw Error(path, where + " /data_offsets",
                "[" + std::to_string(t.begin) + ", " + std::to_string(t.end) +
                    ") lies outside the data section of " + std::to_string(data_len) +
                    " bytes (truncated file or bad offsets)");
  std::uint64_t bytes = 0;
  try {
    bytes = mul(t.elements(), dtype_bytes(t.dtype), "tensor bytes");
  } catch (const Error&) {
    throw Error(path, where + " /shape", "size overflows 64-bit arithmetic (absurd shape)");
  }
  if (bytes > lim.max_tensor_bytes)
    throw Error(path, where + " /shape",
                std::to_string(bytes) + " bytes, over the limit of " +
                    std::to_string(lim.max_tensor_bytes));
  if (bytes != t.end - t.begin)
    throw Error(path, where + " /data_offsets",
                "spans " + std::to_string(t.end - t.begin) + " bytes but shape and dtype " +
                    std::string(to_string(t.dtype)) + " need " + std::to_string(bytes));
  return t;
}

// Tensors must tile the data section exactly: sorted by offset, each begins where the previous
// ended, the last ends at the end of the file.
void check_tiling(const std::vector<TensorInfo>& tensors, std::uint64_t data_len,
                  const std::string& path) {
  std::vector<const TensorInfo*> order;
  order.reserve(tensors.size());
  for (const auto& t : tensors) order.push_back(&t);
  std::sort(order.begin(), order.end(), [](const TensorInfo* a, const TensorInfo* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  std::uint64_t at = 0;
  const TensorInfo* prev = nullptr;
  for (const TensorInfo* t : order) {
    if (t->begin < at)
      throw Error(path, "tensor '" + t->name + "' /data_offsets",
                  "[" + std::to_string(t->begin) + ", " + std::to_string(t->end) +
                      ") overlaps tensor '" + prev->name + "' [" + std::to_string(prev->begin) +
                      ", " + std::to_string(prev->end) + ")");
    if (t->begin > at)
      throw Error(path, "tensor '" + t->name + "' /data_offsets",
                  "begins at " + std::to_string(t->begin) + ", leaving a gap of " +
                      std::to_string(t->begin - at) + " bytes after " +
                      (prev ? "tensor '" + prev->name + "'" : std::string("the header")));
    at = t->end;
    prev = t;
  }
  if (at != data_len)
    throw Error(path, "data section",
                std::to_string(data_len - at) +
                    " trailing bytes not covered by any tensor (data section is " +
                    std::to_string(data_len) + " bytes, tensors cover " + std::to_string(at) + ")");
}

}  // namespace

void SafetensorsFile::parse(const SafetensorsLimits& lim) {
  std::uint64_t n = 0;
  std::memcpy(&n, base_, 8);
  if (n > lim.max_header_bytes)
    throw Error(path_, "header length",
                "declares a " + std::to_string(n) + "-byte JSON header, over the limit of " +
                    std::to_string(lim.max_header_bytes) + " bytes (not a safetensors file?)");
  if (n > size_ - 8)
    throw Error(path_, "header length",
                "declares a " + std::to_string(n) + "-byte JSON header but only " +
                    std::to_string(size_ - 8) + " bytes follow (truncated or lying header)");
  if (n < 2) throw Error(path_, "header", "JSON header of " + std::to_string(n) + " bytes");
  data_start_ = 8 + n;
  const std::uint64_t data_len = size_ - data_start_;
  const char* hb = reinterpret_cast<const char*>(base_ + 8);
  if (hb[0] != '{')
    throw Error(path_, "header", "JSON header must start with '{' (not a safetensors file?)");
  const json h = parse_header(hb, n, path_);
  if (!h.is_object()) throw Error(path_, "header", "JSON header must be an object");
  if (h.size() > lim.max_tensors + 1)
    throw Error(path_, "header",
                std::to_string(h.size()) + " entries, over the limit of " +
                    std::to_string(lim.max_tensors) + " tensors");

  for (auto it = h.begin(); it != h.end(); ++it) {
    if (it.key() == "__metadata__")
      read_metadata(it.value(), path_, metadata_);
    else
      tensors_.push_back(read_tensor(it.key(), it.value(), data_len, path_, lim));
  }
  check_tiling(tensors_, data_len, path_);
  std::sort(tensors_.begin(), tensors_.end(),
            [](const TensorInfo& a, const TensorInfo& b) { return a.name < b.name; });
}

const TensorInfo* SafetensorsFile::find(std::string_view name) const {
  auto it = std::lower_bound(tensors_.begin(), tensors_.end(), name,
                             [](const TensorInfo& t, std::string_view n) { return t.name < n; });
  return it != tensors_.end() && it->name == name ? &*it : nullptr;
}

const TensorInfo& SafetensorsFile::at(std::string_view name) const {
  if (const TensorInfo* t = find(name)) return *t;
  throw Error(path_, "tensor '" + std::string(name) + "'", "missing");
}

std::span<const std::byte> SafetensorsFile::bytes(const TensorInfo& t) const {
  return {base_ + data_start_ + t.begin, static_cast<std::size_t>(t.end - t.begin)};
}

void SafetensorsFile::read_f32(const TensorInfo& t, std::uint64_t first,
                               std::span<float> out) const {
  const std::uint64_t n = t.elements();
  if (first > n || out.size() > n - first)
    throw Error(path_, "tensor '" + t.name + "'",
                "read of elements [" + std::to_string(first) + ", " +
                    std::to_string(first + out.size()) + ") outside its " + std::to_string(n));
  if (out.empty()) return;  // a zero-element tensor: nothing to copy (and memcpy of null is UB)
  const std::byte* p = base_ + data_start_ + t.begin + first * dtype_bytes(t.dtype);
  switch (t.dtype) {
    case DType::f32:
      std::memcpy(out.data(), p, out.size() * 4);
      break;
    case DType::f16:
      for (std::size_t i = 0; i < out.size(); ++i) out[i] = half_to_float(load_u16(p + 2 * i));
      break;
    case DType::bf16:
      for (std::size_t i = 0; i < out.size(); ++i) out[i] = bf16_to_float(load_u16(p + 2 * i));
      break;
    case DType::i32:
      for (std::size_t i = 0; i < out.size(); ++i) {
        std::int32_t v;
        std::memcpy(&v, p + 4 * i, 4);
        out[i] = static_cast<float>(v);
      }
      break;
  }
}

// ---------------------------------------------------------------------------------------------

namespace {

// Outputs are written to "<path>.kvplan-tmp.<pid>" beside the destination and renamed over it
// once every byte is on disk, so a full disk or a crash never truncates an existing trace. The
// name is derived (not stored) because SafetensorsStreamWriter keeps only path_ and f_.
std::string temp_path(const std::string& path) {
  return path + ".kvplan-tmp." + std::to_string(::getpid());
}

std::FILE* open_temp(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw Error(path, "", "cannot write: not a regular file (a directory, FIFO or device)");
  const std::string tmp = temp_path(path);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) throw Error(path, "", "cannot open for writing: " + errno_text());
  std::FILE* f = ::fdopen(fd, "wb");
  if (!f) {
    const std::string msg = errno_text();
    ::close(fd);
    ::unlink(tmp.c_str());
    throw Error(path, "", "cannot open for writing: " + msg);
  }
  return f;
}

void abandon_temp(std::FILE* f, const std::string& path) {
  if (f) std::fclose(f);
  ::unlink(temp_path(path).c_str());
}

void write_all(std::FILE* f, const std::string& path, const void* data, std::size_t n) {
  if (n && std::fwrite(data, 1, n, f) != n) {
    const std::string msg = errno_text();
    abandon_temp(f, path);
    throw Error(path, "", "write failed: " + msg);
  }
}

// Flushes, syncs and closes f, then renames the temporary file over path. Closes f either way.
void commit_temp(std::FILE* f, const std::string& path) {
  bool ok = std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
  std::string msg = ok ? "" : errno_text();
  if (std::fclose(f) != 0 && ok) ok = false, msg = errno_text();
  const std::string tmp = temp_path(path);
  if (ok && std::rename(tmp.c_str(), path.c_str()) != 0) ok = false, msg = errno_text();
  if (!ok) {
    ::unlink(tmp.c_str());
    throw Error(path, "", "write failed: " + msg);
  }
}

// The header's JSON; metadata that is not valid UTF-8 is written with U+FFFD, not refused.
std::string padded_header(const json& h) {
  std::string header = h.dump(-1, ' ', false, json::error_handler_t::replace);
  header.append((8 - header.size() % 8) % 8, ' ');
  return header;
}

}  // namespace

void write_safetensors(const std::string& path, const std::vector<TensorView>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  json h = json::object();
  if (!metadata.empty()) {
    json m = json::object();
    for (const auto& [k, v] : metadata) m[k] = v;
    h["__metadata__"] = m;
  }
  std::uint64_t at = 0;
  for (const auto& t : tensors) {
    std::uint64_t n = 1;
    for (auto d : t.shape) n = mul(n, d, "tensor elements");
    const std::uint64_t bytes = mul(n, dtype_bytes(t.dtype));
    if (bytes != t.data.size())
      throw Error(path, "tensor '" + t.name + "'",
                  "has " + std::to_string(t.data.size()) + " bytes of data, shape needs " +
                      std::to_string(bytes));
    if (h.contains(t.name)) throw Error(path, "tensor '" + t.name + "'", "written twice");
    h[t.name] = {{"dtype", std::string(to_string(t.dtype))},
                 {"shape", t.shape},
                 {"data_offsets", {at, at + bytes}}};
    at += bytes;
  }
  const std::string header = padded_header(h);
  std::FILE* f = open_temp(path);
  const std::uint64_t n = header.size();
  write_all(f, path, &n, 8);
  write_all(f, path, header.data(), header.size());
  for (const auto& t : tensors) write_all(f, path, t.data.data(), t.data.size());
  commit_temp(f, path);
}

SafetensorsStreamWriter::SafetensorsStreamWriter(std::string path, const std::vector<Decl>& tensors,
                                                 const std::map<std::string, std::string>& metadata)
    : path_(std::move(path)) {
  json h = json::object();
  if (!metadata.empty()) h["__metadata__"] = metadata;
  for (const auto& t : tensors) {
    std::uint64_t n = 1;
    for (auto d : t.shape) n = mul(n, d, "tensor elements");
    const std::uint64_t bytes = mul(n, dtype_bytes(t.dtype));
    h[t.name] = {{"dtype", std::string(to_string(t.dtype))},
                 {"shape", t.shape},
                 {"data_offsets", {expected_, expected_ + bytes}}};
    expected_ = add(expected_, bytes);
  }
  const std::string header = padded_header(h);
  std::FILE* f = open_temp(path_);
  const std::uint64_t n = header.size();
  write_all(f, path_, &n, 8);
  write_all(f, path_, header.data(), n);
  f_ = f;
}

void SafetensorsStreamWriter::write(std::span<const std::byte> bytes) {
  if (!f_ || written_ + bytes.size() > expected_)
    throw Error(ErrorKind::internal, path_, "", "more data than the declared tensors");
  std::FILE* f = std::exchange(f_, nullptr);  // write_all closes it on failure
  write_all(f, path_, bytes.data(), bytes.size());
  f_ = f;
  written_ += bytes.size();
}

void SafetensorsStreamWriter::finish() {
  if (!f_ || written_ != expected_)
    throw Error(ErrorKind::internal, path_, "", "data ends before the declared tensors");
  commit_temp(std::exchange(f_, nullptr), path_);
}

SafetensorsStreamWriter::~SafetensorsStreamWriter() {
  if (f_) abandon_temp(f_, path_);
}

}  // namespace kvplan::sim
