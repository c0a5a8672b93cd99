// A test's own temporary directory, removed with everything in it when the object goes away, so
// a test run leaves nothing behind in /tmp:
//
//   kvplan::test::TempDir dir;                       // $TMPDIR/kvplan_test_XXXXXX
//   const std::string p = dir.file("trace.safetensors");
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace kvplan::test {

class TempDir {
 public:
  TempDir() {
    std::string tmpl =
        (std::filesystem::path(::testing::TempDir()) / "kvplan_test_XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed for " + tmpl);
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace kvplan::test
