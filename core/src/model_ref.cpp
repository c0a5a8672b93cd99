#include "kvplan/model_ref.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <vector>

#include "kvplan/engine_args.hpp"
#include "kvplan/error.hpp"
#include "kvplan/text_safe.hpp"

namespace kvplan {
namespace {

// The last path component of a reference ("/models/Meta-Llama-3.1-8B-Instruct/" -> its folder
// name; "meta-llama/Llama-3.1-8B" -> "Llama-3.1-8B"), lower-cased.
std::string last_component(std::string ref) {
  while (ref.size() > 1 && (ref.back() == '/' || ref.back() == '\\')) ref.pop_back();
  const auto slash = ref.find_last_of("/\\");
  return ascii_lower(slash == std::string::npos ? ref : ref.substr(slash + 1));
}

// The name a preset and a reference are compared by: post-training suffixes removed
// (strip_repo_variant) and Meta's "meta-" prefix of the Llama 3 repos.
std::string name_key(std::string name) {
  name = strip_repo_variant(std::move(name));
  if (name.rfind("meta-", 0) == 0 && name.size() > 5) name = name.substr(5);
  return name;
}

}  // namespace

ResolvedModel resolve_model_reference(const std::string& ref, const std::string& source) {
  try {
    ResolvedModel r{load_model(ref), ""};
    if (!r.model.preset.empty() && r.model.preset != ref)
      r.note = "resolved " + ref + " to preset " + r.model.preset + " (a repo id it lists)";
    return r;
  } catch (const Error& e) {
    if (e.source() != "--model") throw;  // the model was found and is bad: say why
  }
  const std::string key = name_key(last_component(ref));
  std::vector<std::string> matches, near;
  std::string ids;
  for (const auto& p : list_model_presets()) {
    ids += (ids.empty() ? "" : ", ") + p.id;
    std::set<std::string> names = {name_key(ascii_lower(p.id))};
    for (const auto& r : p.hf_repos) names.insert(name_key(last_component(r)));
    names.insert(name_key(last_component(hf_repo_id(load_model(p.id)))));  // its source's repo
    if (!key.empty() && names.count(key))
      matches.push_back(p.id);
    else if (key.size() >= 3 && ascii_lower(p.id).rfind(key, 0) == 0)
      near.push_back(p.id);
  }
  if (matches.size() == 1) {
    ResolvedModel r{load_model(matches[0]), ""};
    r.model.id = ref;
    r.model.preset = matches[0];
    r.note = "resolved " + ref + " to preset " + matches[0] + " by name";
    return r;
  }
  auto list = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  std::string why =
      "\"" + ref +
      "\" is neither a local model directory or config.json, a Hugging Face repo id in the local "
      "hub cache, nor a known preset";
  if (matches.size() > 1)
    why += "; by name it could be " + list(matches);
  else if (!near.empty())
    why += "; by name it could be any of " + list(near);
  else
    why += " (" + ids + ")";
  throw Error(source, "model", why + "; pass --model with a preset id or a config.json");
}

}  // namespace kvplan
