// Shared helpers of the libFuzzer targets (fuzz/fuzz_<name>.cpp).
//
//   extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
//     kvplan::fuzz::MemFile f(data, size);                 // loaders that take a path
//     kvplan::fuzz::refuse_cleanly([&] { kvplan::sim::TraceFile::open(f.path()); });
//     return 0;
//   }
//
// Loaders that read a directory write their files into kvplan::fuzz::temp_dir("name") with
// write_file.
//
// The contract every parser is held to: bad input is refused with kvplan::Error (the CLI maps it
// to exit 2 with a message naming the file and the field). Any other exception would reach the
// CLI as an "internal error" (exit 3), so it aborts here and libFuzzer keeps the input as a crash;
// ASan/UBSan findings and allocations past -malloc_limit_mb are crashes by themselves.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "kvplan/error.hpp"

namespace kvplan::fuzz {

// The input as a file without touching the disk: a memfd reachable as /proc/self/fd/N.
class MemFile {
 public:
  MemFile(const std::uint8_t* data, std::size_t size) {
    fd_ = memfd_create("kvplan-fuzz", MFD_CLOEXEC);
    if (fd_ < 0) {
      std::perror("memfd_create");
      std::abort();
    }
    std::size_t done = 0;
    while (done < size) {
      const ssize_t n = ::write(fd_, data + done, size - done);
      if (n <= 0) {
        std::perror("write");
        std::abort();
      }
      done += static_cast<std::size_t>(n);
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~MemFile() { ::close(fd_); }
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

// A temporary directory for loaders that read a whole directory: created by the first call, under
// the system's temporary directory as kvplan-fuzz-<tag>-XXXXXX (the first call's tag names it, one
// directory per process), and removed with its contents when the process exits normally
// (libFuzzer's -max_total_time, -runs). The caller empties it before each input.
inline const std::filesystem::path& temp_dir(const char* tag) {
  struct Dir {
    std::filesystem::path path;
    explicit Dir(const char* name) {
      std::string t = (std::filesystem::temp_directory_path() /
                       ("kvplan-fuzz-" + std::string(name) + "-XXXXXX"))
                          .string();
      if (!mkdtemp(t.data())) {
        std::perror("mkdtemp");
        std::abort();
      }
      path = t;
    }
    ~Dir() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static const Dir dir(tag);
  return dir.path;
}

// Writes bytes to p (replacing it); aborts when it cannot, which is the harness's fault.
inline void write_file(const std::filesystem::path& p, std::string_view bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) {
    std::fprintf(stderr, "cannot write %s\n", p.c_str());
    std::abort();
  }
}

// Runs f; kvplan::Error is the one accepted way to refuse input.
template <class F>
void refuse_cleanly(F&& f) {
  try {
    f();
  } catch (const kvplan::Error& e) {
    if (e.what()[0] == '\0') {
      std::fprintf(stderr, "kvplan::Error with an empty message\n");
      std::abort();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "not a kvplan::Error (the CLI would exit 3): %s\n", e.what());
    std::abort();
  }
}

// A property that must hold for every accepted input.
inline void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "invariant violated: %s\n", what);
    std::abort();
  }
}

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace kvplan::fuzz
