// Where the simulator tests find stories260K: $KVPLAN_TEST_MODEL_DIR, else the build's default.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace kvplan::test {

inline std::string model_dir() {
  if (const char* e = std::getenv("KVPLAN_TEST_MODEL_DIR"); e && *e) return e;
  return KVPLAN_TEST_MODEL_DIR_DEFAULT;
}
inline std::string checkpoint_path() { return model_dir() + "/stories260K.bin"; }
inline std::string tokenizer_path() { return model_dir() + "/tok512.bin"; }
inline bool have_model() {
  return std::filesystem::exists(checkpoint_path()) && std::filesystem::exists(tokenizer_path());
}

}  // namespace kvplan::test

#define KVPLAN_REQUIRE_MODEL()                                                                 \
  do {                                                                                         \
    if (!kvplan::test::have_model())                                                           \
      GTEST_SKIP() << "stories260K not found in " << kvplan::test::model_dir()                 \
                   << " (set KVPLAN_TEST_MODEL_DIR to the folder holding stories260K.bin and " \
                      "tok512.bin; download from huggingface.co/karpathy/tinyllamas)";         \
  } while (0)
