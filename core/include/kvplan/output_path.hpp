// Output paths that cannot destroy an input: every command that writes a file asks first.
//
// An output that is the same file as one of the command's inputs (same device and inode, after
// symlinks and hard links), or that exists and is not a regular file (a directory, a FIFO, a
// character device such as /dev/null, a socket), is refused with an Error naming the flag, the
// output and, for a clash, the input ("/dev/null: cannot write: not a regular file (a character
// device, given to --calibrate): ..."). "-" is standard output and is never checked.
//
//   kvplan::check_output_path("run.log", {"run.log", "llama-3.1-8b"}, "--calibrate");
//   // throws Error("--calibrate", "calibrate",
//   //              "run.log is the same file as the input run.log: it would be overwritten")
//
// Inputs that do not exist (a preset id, a repo id) are skipped; an input directory (a model
// directory) stands for itself and every file directly inside it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kvplan {

// true when output is "-" (standard output); false for a file path that passed the checks.
bool check_output_path(const std::string& output, const std::vector<std::string>& inputs,
                       std::string_view flag);

}  // namespace kvplan
