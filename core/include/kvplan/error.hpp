// kvplan::Error — the one exception type of core and simulator.
//
// Every error names where the bad input came from (a file, a flag, a spec string), the field
// (a JSON pointer where there is one) and the bad value, so a user fixes it in one pass:
//
//   throw kvplan::Error(kvplan::ErrorKind::invalid_input, "models/x.json", "/num_kv_heads",
//                       "must divide num_attention_heads (32), got 5");
//   // what(): "models/x.json: /num_kv_heads: must divide num_attention_heads (32), got 5"
//
// Only cli/main.cpp and the GUI's top level catch it; ErrorKind maps to the exit codes of
// ARCHITECTURE.md (invalid_input -> 2, internal -> 3).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace kvplan {

enum class ErrorKind { invalid_input, internal };

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, std::string source, std::string field, std::string message);
  // Convenience for invalid input, the common case.
  Error(std::string source, std::string field, std::string message)
      : Error(ErrorKind::invalid_input, std::move(source), std::move(field), std::move(message)) {}

  ErrorKind kind() const noexcept { return kind_; }
  const std::string& source() const noexcept { return source_; }
  const std::string& field() const noexcept { return field_; }
  const std::string& message() const noexcept { return message_; }
  int exit_code() const noexcept { return kind_ == ErrorKind::invalid_input ? 2 : 3; }

 private:
  ErrorKind kind_;
  std::string source_, field_, message_;
};

// One problem found by a validate() function; validation collects all of them.
struct Problem {
  std::string field;
  std::string message;
};

// Throws one Error listing every problem (message joined by "; ") when problems is not empty.
void throw_if_any(const std::string& source, const std::vector<Problem>& problems);

}  // namespace kvplan
