// Model references that name nothing on this machine: the model path or repo id an engine's
// command line or startup log gives ("/models/Meta-Llama-3.1-8B-Instruct", an older repo id such
// as "meta-llama/Meta-Llama-3.1-8B-Instruct"), matched to the preset of the same architecture by
// name, and saying so.
//
//   ResolvedModel r = kvplan::resolve_model_reference("meta-llama/Meta-Llama-3.1-8B-Instruct",
//                                                     "vllm.log");
//   r.model.preset  // "llama-3.1-8b"
//   r.note          // "resolved meta-llama/Meta-Llama-3.1-8B-Instruct to preset llama-3.1-8b
//                   //  by name"
//
// The name is the reference's last path component, lower-cased, without the post-training
// suffixes that keep the architecture and the weights' layout (-Instruct, -Chat, -it, -hf, -Base,
// -Thinking, ...) and without Meta's "Meta-" prefix of the Llama 3.1 repos; it matches a preset's
// id or the name of one of its hf_repos, the same way stripped. Quantized variants (-FP8, -AWQ)
// do not match: their weights differ.
#pragma once

#include <string>

#include "kvplan/model.hpp"

namespace kvplan {

struct ResolvedModel {
  ModelSpec model;   // model.id is the reference as given
  std::string note;  // how a reference was matched to a preset; empty when it named one directly
};

// load_model first (a preset id, a directory, a file, a repo id in the hub cache or listed by a
// preset); when that finds nothing, the name. Throws Error(source, "model") naming the reference
// and, when the name is ambiguous ("./llama"), the presets it could be.
ResolvedModel resolve_model_reference(const std::string& ref, const std::string& source);

}  // namespace kvplan
