// Checkpoint weight bytes from safetensors headers (detail::checkpoint_weights, behind
// load_model(dir)), which reads a directory. The first byte picks the layout:
//  - even: the rest is the directory's model.safetensors;
//  - odd:  the rest is "<model.safetensors.index.json> NUL <shard bytes>": the index, and the
//          shard bytes written under each plain file name its weight_map names (at most 8), so
//          the reader's index path reaches the shard headers.
// The files go to a per-process temporary directory, emptied before each input.
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "fuzz_util.hpp"
#include "hf_config.hpp"

namespace fs = std::filesystem;

namespace {

// The plain file names of the index's weight_map (the target's own lenient reading).
std::set<std::string> shard_names(std::string_view index) {
  std::set<std::string> out;
  const auto j = nlohmann::json::parse(index, nullptr, false);
  if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object()) return out;
  for (const auto& v : j["weight_map"]) {
    if (!v.is_string()) continue;
    const auto s = v.get<std::string>();
    if (s.empty() || s == "." || s == ".." || s.find('/') != std::string::npos ||
        s.find('\0') != std::string::npos || s.size() > 200 || s == "model.safetensors.index.json")
      continue;
    out.insert(s);
    if (out.size() == 8) break;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const fs::path& dir = kvplan::fuzz::temp_dir("ckpt");
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir)) fs::remove_all(e.path(), ec);
  const std::string_view rest = kvplan::fuzz::as_text(data + 1, size - 1);
  if ((data[0] & 1) == 0) {
    kvplan::fuzz::write_file(dir / "model.safetensors", rest);
  } else {
    const auto nul = rest.find('\0');
    const std::string_view index = rest.substr(0, nul);
    kvplan::fuzz::write_file(dir / "model.safetensors.index.json", index);
    if (nul != std::string_view::npos) {
      const std::string_view shard = rest.substr(nul + 1);
      for (const auto& name : shard_names(index)) kvplan::fuzz::write_file(dir / name, shard);
    }
  }
  kvplan::fuzz::refuse_cleanly([&] {
    if (const auto w = kvplan::detail::checkpoint_weights(dir)) {
      kvplan::fuzz::check(w->expert_bytes <= w->bytes, "expert bytes are part of all bytes");
      kvplan::fuzz::check(w->vision_bytes <= w->bytes, "vision bytes are part of all bytes");
    }
  });
  return 0;
}
