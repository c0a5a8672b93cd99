// The message of the kvplan::Error a call throws (and that it is an input error, exit code 2),
// or "no error": for tests that check what an error names.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "kvplan/error.hpp"

namespace kvplan::test {

inline std::string error_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2);
    return e.what();
  }
  return "no error";
}

}  // namespace kvplan::test
