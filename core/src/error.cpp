#include "kvplan/error.hpp"

#include "kvplan/checked.hpp"

namespace kvplan {

namespace {
std::string compose(const std::string& source, const std::string& field, const std::string& msg) {
  std::string out = source;
  if (!field.empty()) out += (out.empty() ? "" : ": ") + field;
  if (!out.empty()) out += ": ";
  return out + msg;
}
}  // namespace

Error::Error(ErrorKind kind, std::string source, std::string field, std::string message)
    : std::runtime_error(compose(source, field, message)),
      kind_(kind),
      source_(std::move(source)),
      field_(std::move(field)),
      message_(std::move(message)) {}

void throw_if_any(const std::string& source, const std::vector<Problem>& problems) {
  if (problems.empty()) return;
  std::string msg;
  for (const auto& p : problems) {
    if (!msg.empty()) msg += "; ";
    msg += p.field.empty() ? p.message : p.field + ": " + p.message;
  }
  if (problems.size() == 1) throw Error(source, problems[0].field, problems[0].message);
  throw Error(source, "", std::to_string(problems.size()) + " problems: " + msg);
}

void throw_overflow(std::string_view what) {
  throw Error(std::string(what), "", "overflows 64-bit unsigned byte arithmetic");
}

}  // namespace kvplan
