// Weight bytes of a Hugging Face checkpoint directory, read from the safetensors headers only
// (never the tensors): each header is an 8-byte little-endian length and a JSON object of
// {"name": {"dtype", "shape", "data_offsets": [begin, end]}} (the safetensors format,
// https://github.com/huggingface/safetensors#format). Without shard files, the index's
// metadata.total_size stands in.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string>

#include "hf_config.hpp"
#include "json_read.hpp"
#include "kvplan/checked.hpp"
#include "kvplan/error.hpp"

namespace kvplan::detail {

namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t kMaxHeader = std::uint64_t{100} << 20;  // safetensors' own limit: 100 MB

bool is_expert(const std::string& name) { return name.find(".experts.") != std::string::npos; }

// Bytes per element of the safetensors dtypes (the format's Dtype enum); 0 = unknown.
std::uint64_t dtype_bytes(const std::string& d) {
  if (d == "F64" || d == "I64" || d == "U64") return 8;
  if (d == "F32" || d == "I32" || d == "U32") return 4;
  if (d == "F16" || d == "BF16" || d == "I16" || d == "U16") return 2;
  if (d == "F8_E4M3" || d == "F8_E5M2" || d == "F8_E8M0" || d == "I8" || d == "U8" || d == "BOOL")
    return 1;
  return 0;
}

bool is_vision(const std::string& name) {
  for (const char* p : {"vision_tower", "vision_model", "visual.", "multi_modal_projector",
                        "vision_embed", "mm_projector", "vision_encoder"})
    if (name.find(p) != std::string::npos) return true;
  return false;
}

void add_header(const fs::path& file, CheckpointWeights& out) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec))
    throw Error(file.string(), "", "not a regular file (a safetensors shard was expected)");
  const auto size = fs::file_size(file, ec);
  std::ifstream in(file, std::ios::binary);
  unsigned char len[8];
  if (ec || !in.read(reinterpret_cast<char*>(len), 8))
    throw Error(file.string(), "header", "cannot read the 8-byte safetensors header length");
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | len[i];
  if (n > kMaxHeader || n > size - 8)
    throw Error(file.string(), "header",
                "header length " + std::to_string(n) + " exceeds the file or the 100 MB limit");
  std::string text(n, '\0');
  if (!in.read(text.data(), static_cast<std::streamsize>(n)))
    throw Error(file.string(), "header", "the file ends inside its header");
  const auto j = parse_json_text(text, file.string());
  if (!j.is_object()) throw Error(file.string(), "header", "expected a JSON object");
  const std::uint64_t data = size - 8 - n;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "__metadata__") continue;
    const auto& t = it.value();
    const auto* off = t.is_object() && t.contains("data_offsets") ? &t["data_offsets"] : nullptr;
    if (!off || !off->is_array() || off->size() != 2 || !(*off)[0].is_number_unsigned() ||
        !(*off)[1].is_number_unsigned())
      throw Error(file.string(), "/" + it.key() + "/data_offsets",
                  "expected [begin, end] byte offsets");
    const auto b = (*off)[0].get<std::uint64_t>(), e = (*off)[1].get<std::uint64_t>();
    if (b > e || e > data)
      throw Error(file.string(), "/" + it.key() + "/data_offsets",
                  "offsets [" + std::to_string(b) + ", " + std::to_string(e) +
                      "] lie outside the " + std::to_string(data) + " data bytes");
    // The byte span must be what the dtype and shape say (safetensors requires it), so a header
    // cannot claim a weight count its data does not hold.
    const std::string dtype =
        t.contains("dtype") && t["dtype"].is_string() ? t["dtype"].get<std::string>() : "";
    const std::uint64_t elem = dtype_bytes(dtype);
    if (elem == 0)
      throw Error(file.string(), "/" + it.key() + "/dtype",
                  "unknown safetensors dtype \"" + dtype + "\"");
    if (!t.contains("shape") || !t["shape"].is_array())
      throw Error(file.string(), "/" + it.key() + "/shape", "expected an array of dimensions");
    std::uint64_t count = 1;
    for (const auto& dim : t["shape"]) {
      if (!dim.is_number_unsigned())
        throw Error(file.string(), "/" + it.key() + "/shape", "expected non-negative dimensions");
      if (__builtin_mul_overflow(count, dim.get<std::uint64_t>(), &count))
        throw Error(file.string(), "/" + it.key() + "/shape", "the element count overflows");
    }
    std::uint64_t span = 0;
    if (__builtin_mul_overflow(count, elem, &span) || span != e - b)
      throw Error(file.string(), "/" + it.key() + "/shape",
                  "shape and dtype " + dtype + " give " +
                      (span == 0 && count ? std::string("an overflowing size")
                                          : std::to_string(span) + " bytes") +
                      ", the offsets " + std::to_string(e - b));
    out.bytes = add(out.bytes, e - b, "checkpoint bytes");
    if (is_expert(it.key())) out.expert_bytes += e - b;
    if (is_vision(it.key())) out.vision_bytes += e - b;
  }
}

// A weights file that is there but is no regular file (a folder, a FIFO, a dangling link) is a
// broken checkpoint that no engine loads (safetensors cannot open it), not a missing download
// that metadata.total_size may stand in for.
void refuse_unreadable_weights(const fs::path& file, const std::string& source) {
  std::error_code ec;
  const auto link = fs::symlink_status(file, ec);
  if (ec || !fs::exists(link)) return;
  if (!fs::is_regular_file(fs::status(file, ec)))
    throw Error(source, file.filename().string(),
                "names " + file.string() + ", which is there but is not a readable regular file");
}

}  // namespace

std::optional<CheckpointWeights> checkpoint_weights(const fs::path& dir) {
  std::error_code ec;
  CheckpointWeights out;
  const auto index = dir / "model.safetensors.index.json";
  if (fs::is_regular_file(index, ec)) {
    const auto j =
        parse_json_text(read_text_file(index.string(), "safetensors index"), index.string());
    JsonObject o(j, index.string(), "");
    std::set<std::string> shards;
    if (o.has("weight_map")) {
      const auto& map = o.raw("weight_map");
      if (!map.is_object()) throw Error(index.string(), "/weight_map", "expected an object");
      for (auto it = map.begin(); it != map.end(); ++it) {
        if (!it.value().is_string())
          throw Error(index.string(), "/weight_map/" + it.key(), "expected a file name");
        const auto name = it.value().get<std::string>();
        if (name.find('/') != std::string::npos || name.find("..") != std::string::npos)
          throw Error(index.string(), "/weight_map/" + it.key(),
                      "a shard name must be a file in the directory, got \"" + name + "\"");
        shards.insert(name);
      }
    }
    bool all_present = !shards.empty();
    for (const auto& s : shards) {
      refuse_unreadable_weights(dir / s, index.string());
      all_present = all_present && fs::is_regular_file(dir / s, ec);
    }
    if (all_present) {
      for (const auto& s : shards) add_header(dir / s, out);
      return out;
    }
    // Shards not downloaded (a config-only snapshot): the index's total.
    if (j.contains("metadata") && j["metadata"].is_object() &&
        j["metadata"].contains("total_size")) {
      const auto& t = j["metadata"]["total_size"];
      if (!t.is_number_unsigned() || t.get<std::uint64_t>() == 0 ||
          t.get<std::uint64_t>() > (std::uint64_t{1} << 50))
        throw Error(index.string(), "/metadata/total_size",
                    "expected a byte count between 1 and 2^50, got " + show(t));
      out.bytes = t.get<std::uint64_t>();
      return out;
    }
    return std::nullopt;
  }
  const auto single = dir / "model.safetensors";
  refuse_unreadable_weights(single, dir.string());
  if (fs::is_regular_file(single, ec)) {
    add_header(single, out);
    return out;
  }
  return std::nullopt;
}

}  // namespace kvplan::detail
