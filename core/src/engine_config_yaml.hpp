// Private to core: engine config files in YAML (yaml-cpp stays inside engine_config_yaml.cpp).
//
//   auto args = detail::vllm_config_args("serve.yaml", "--vllm");
//   // "tensor-parallel-size: 2\nenforce-eager: true\n" -> {"--tensor-parallel-size", "2",
//   //                                                      "--enforce-eager"}
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kvplan::detail {

// vLLM's FlexibleArgumentParser.load_config_file: a flat YAML map; each key becomes "--key"
// followed by its value (a true boolean: the flag alone; false: nothing; a list: its items; a
// map: its JSON). Keys, merges (<<) and repeats as PyYAML's safe_load reads them; aliases bounded
// (100,000 nodes, 64 levels). list_keys, when given, receives the keys whose value was a list.
// Throws Error(path, key) on a file that is not such a map, Error(path) on unreadable or
// malformed YAML (with the line).
std::vector<std::string> vllm_config_args(const std::string& path,
                                          std::vector<std::string>* list_keys = nullptr);

// A YAML map flattened to dotted keys ("kv_cache_config.max_tokens"), each with its scalar
// values (one for a scalar, the items of a list of scalars). Booleans are "true" / "false".
// Merges, repeats and aliases as vllm_config_args.
struct YamlEntry {
  std::string key;
  std::vector<std::string> values;
  bool list = false;
};
std::vector<YamlEntry> flatten_yaml_map(const std::string& path);

// Every document of a multi-document YAML stream (Kubernetes manifests, Helm values) as JSON: maps,
// lists and scalars as PyYAML's safe_load types them (true/yes/on booleans, unquoted digits
// integers, everything else a string; an empty document is null). Aliases are expanded, bounded to
// 200,000 nodes and 128 levels in all, so an alias bomb or a self-referential anchor is an Error,
// never a hang. Throws Error(path) on malformed YAML (with the line), Error(path, "document N").
std::vector<nlohmann::json> yaml_documents(const std::string& text, const std::string& path);

}  // namespace kvplan::detail
