// Private to core: the models/ JSON files compiled into the binary (generated at configure time).
#pragma once

#include <span>

namespace kvplan::detail {

struct EmbeddedFile {
  const char* path;  // relative to models/, e.g. "models/llama-3.1-8b.json"
  const char* text;
};

std::span<const EmbeddedFile> embedded_files();

}  // namespace kvplan::detail
