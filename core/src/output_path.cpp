#include "kvplan/output_path.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "kvplan/error.hpp"

namespace kvplan {
namespace {

const char* kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "a special file";
}

struct Input {
  std::string path;
  dev_t dev;
  ino_t ino;
};

// The input and, for a directory, every entry directly inside it (a model directory's
// config.json, model.safetensors, tokenizer.json; a hub snapshot's links to its blobs).
void collect(const std::string& path, std::vector<Input>& into) {
  struct stat st {};
  if (path.empty() || path == "-" || ::stat(path.c_str(), &st) != 0) return;
  into.push_back({path, st.st_dev, st.st_ino});
  if (!S_ISDIR(st.st_mode)) return;
  DIR* d = ::opendir(path.c_str());
  if (!d) return;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    const std::string p = path + (path.back() == '/' ? "" : "/") + name;
    struct stat s {};
    if (::stat(p.c_str(), &s) == 0) into.push_back({p, s.st_dev, s.st_ino});
  }
  ::closedir(d);
}

// A path that does not exist yet as the file it will become: its existing folders resolved
// (symlinks, `..`), the rest normalized; "" when it cannot be resolved.
std::string future_file(const std::string& path) {
  std::error_code ec;
  const auto abs = std::filesystem::absolute(path, ec);
  if (ec) return "";
  const auto p = std::filesystem::weakly_canonical(abs, ec);
  return ec ? "" : p.string();
}

// A new output must not be a path that another of the command's paths will also become (a
// second output of the same run, --kv-series and --requests-out on one file): the second
// write would replace the first with nothing said.
void refuse_shared_new_path(const std::string& output, const std::vector<std::string>& inputs,
                            const std::string& flag, const std::string& field) {
  const std::string target = future_file(output);
  if (target.empty()) return;
  for (const auto& in : inputs) {
    struct stat st {};
    if (in.empty() || in == "-" || ::stat(in.c_str(), &st) == 0) continue;
    if (future_file(in) == target)
      throw Error(flag, field,
                  output + " is also the path " + in +
                      " given to this command: one file would "
                      "overwrite the other; choose another output path");
  }
}

}  // namespace

bool check_output_path(const std::string& output, const std::vector<std::string>& inputs,
                       std::string_view flag) {
  const std::string f(flag);
  const std::string field = f.rfind("--", 0) == 0 ? f.substr(2) : f;
  if (output == "-") return true;
  if (output.empty()) throw Error(f, field, "the output path is empty");
  struct stat out {};
  if (::stat(output.c_str(), &out) != 0) {  // a new file (or a dangling link)
    refuse_shared_new_path(output, inputs, f, field);
    return false;
  }
  if (!S_ISREG(out.st_mode))
    throw Error(output, "cannot write",
                std::string("not a regular file (") + kind_of(out.st_mode) + ", given to " + f +
                    "): kvplan writes only regular files; - is standard output");
  std::vector<Input> all;
  for (const auto& in : inputs) collect(in, all);
  for (const auto& in : all)
    if (in.dev == out.st_dev && in.ino == out.st_ino)
      throw Error(f, field,
                  output + " is the same file as the input " + in.path +
                      ": writing it would destroy the input; choose another output path");
  return false;
}

}  // namespace kvplan
