// Internal to kvplan (target kvplan_core_json, core/CMakeLists.txt): strict reading of JSON
// objects with errors that name the file and the JSON pointer of the field. Unknown keys are
// refused so a typo fails loudly. Its interface is nlohmann types, so it is not a public header
// (STYLE.md rule 8): core and the serving simulator's workload reader link it PRIVATE; the
// definitions are compiled into kvplan_core.
//
//   JsonObject o(j, "deploy.json", "/hardware");
//   auto n = o.uint("gpus", 1, 4096);          // "deploy.json: /hardware/gpus: must be ..."
//   o.finish();                                // throws on keys nobody read
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kvplan::detail {

// Which JSON a file may be written in.
//  - kvplan: kvplan's own formats (model, GPU, deployment files): strict RFC 8259; a duplicate
//    key is an error naming the file, the JSON pointer of the object and the key.
//  - hf_config: Hugging Face config.json, as Python's json module reads it: the literals
//    Infinity, -Infinity and NaN are numbers (published Nemotron-H configs hold Infinity), and a
//    duplicate key keeps its last value (as Python does) with a warning appended to `warnings`.
//  - model_file: a file given to --model, which is either: kvplan rules when the top-level object
//    has "kvplan_model", hf_config rules otherwise.
// Every dialect bounds the nesting (256 levels) and the number of values (2^20), so no input can
// make the DOM allocation fail; read_text_file bounds the bytes.
enum class JsonDialect { kvplan, hf_config, model_file };

// Parses text as JSON; throws Error(source, "", "invalid JSON: ... at byte N"). Warnings (hf
// dialects only) are appended to *warnings when given, each naming source and the key.
nlohmann::json parse_json_text(const std::string& text, const std::string& source,
                               JsonDialect dialect = JsonDialect::kvplan,
                               std::vector<std::string>* warnings = nullptr);
// Reads a whole regular file (limit 64 MiB); throws Error when unreadable, too large, or not a
// regular file (a FIFO, device, directory or socket is refused before anything is read).
std::string read_text_file(const std::string& path, const std::string& what = "file");

class JsonObject {
 public:
  JsonObject(const nlohmann::json& j, std::string source, std::string pointer);

  bool has(const std::string& key) const;
  const nlohmann::json& raw(const std::string& key);  // marks it read; throws if missing
  std::string pointer(const std::string& key) const { return pointer_ + "/" + key; }
  const std::string& source() const { return source_; }

  std::uint64_t uint(const std::string& key, std::uint64_t min, std::uint64_t max);
  std::optional<std::uint64_t> opt_uint(const std::string& key, std::uint64_t min,
                                        std::uint64_t max);
  double number(const std::string& key, double min, double max);
  std::optional<double> opt_number(const std::string& key, double min, double max);
  std::string str(const std::string& key);
  std::optional<std::string> opt_str(const std::string& key);
  std::optional<bool> opt_bool(const std::string& key);
  JsonObject object(const std::string& key);
  std::optional<JsonObject> opt_object(const std::string& key);
  std::vector<std::string> strings(const std::string& key);
  // A list of 1 to max_items entries, each read as uint / number reads one value (its pointer
  // ends in the index); `what` names the entries in the message ("windows (tokens)").
  std::vector<std::uint64_t> uints(const std::string& key, std::uint64_t min, std::uint64_t max,
                                   std::size_t max_items, const std::string& what);
  std::vector<double> numbers(const std::string& key, double min, double max, std::size_t max_items,
                              const std::string& what);

  // Throws naming the first key that was never read.
  void finish() const;

 private:
  [[noreturn]] void fail(const std::string& key, const std::string& message) const;
  const nlohmann::json& list(const std::string& key, std::size_t max_items,
                             const std::string& what);
  const nlohmann::json& j_;
  std::string source_, pointer_;
  std::set<std::string> read_;
};

// Value as text for messages (strings quoted, long values cut).
std::string show(const nlohmann::json& v);

}  // namespace kvplan::detail
