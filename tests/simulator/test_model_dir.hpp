// Where the simulator tests find stories260K ($KVPLAN_TEST_MODEL_DIR) and the Hugging Face format
// model tinystories-656k ($KVPLAN_TEST_HF_MODEL_DIR), else the build's defaults.
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

inline std::string hf_model_dir() {
  if (const char* e = std::getenv("KVPLAN_TEST_HF_MODEL_DIR"); e && *e) return e;
  return KVPLAN_TEST_HF_MODEL_DIR_DEFAULT;
}
inline bool have_hf_model() {
  for (const char* f : {"config.json", "model.safetensors", "tokenizer.json"})
    if (!std::filesystem::exists(hf_model_dir() + "/" + f)) return false;
  return true;
}

}  // namespace kvplan::test

#define KVPLAN_REQUIRE_MODEL()                                                                 \
  do {                                                                                         \
    if (!kvplan::test::have_model())                                                           \
      GTEST_SKIP() << "stories260K not found in " << kvplan::test::model_dir()                 \
                   << " (set KVPLAN_TEST_MODEL_DIR to the folder holding stories260K.bin and " \
                      "tok512.bin; download from huggingface.co/karpathy/tinyllamas)";         \
  } while (0)

#define KVPLAN_REQUIRE_HF_MODEL()                                                           \
  do {                                                                                      \
    if (!kvplan::test::have_hf_model())                                                     \
      GTEST_SKIP()                                                                          \
          << "tinystories-656k not found in " << kvplan::test::hf_model_dir()               \
          << " (set KVPLAN_TEST_HF_MODEL_DIR to the folder holding its config.json, "       \
             "model.safetensors and tokenizer.json; download raincandy-u/TinyStories-656K " \
             "from huggingface.co)";                                                        \
  } while (0)
