#include "launch_line.hpp"

#include "kvplan/policy.hpp"

namespace kvplan::engines {

std::string replicas_and_seqs(const PlanInput& in, std::uint64_t* seqs) {
  const std::uint32_t unit = in.tp * in.pp;
  const std::uint64_t replicas = unit ? gpus_of(in) / unit : 1;
  *seqs = requests_per_replica(in);
  return replicas > 1 ? std::to_string(replicas) : "";
}

std::optional<std::string> kv_cache_dtype_flag(const std::string& engine, const char* fp8_name,
                                               const PlanInput& in, std::string* why) {
  auto no = [&](const std::string& w) -> std::optional<std::string> {
    if (why) *why = w;
    return std::nullopt;
  };
  if (!is_full(in.policy))
    return no(engine + " does not implement the " + to_string(in.policy) + " retention policy");
  switch (in.format.dtype) {
    case KvDtype::fp16:
    case KvDtype::bf16:
      return "auto";
    case KvDtype::fp8_e4m3:
      return fp8_name;
    case KvDtype::fp8_e5m2:
      return "fp8_e5m2";
    default:
      return no(engine + " has no " + to_string(in.format) + " KV cache");
  }
}

bool draft_layers_by_method(const std::string& engine, const ModelSpec& model, const PlanInput& in,
                            std::string* why) {
  if (in.draft_layers == 0 || in.draft_layers == model.mtp_layers) return true;
  if (why)
    *why = "the plan's " + std::to_string(in.draft_layers) + " draft layer(s) are not " + model.id +
           "'s own MTP layers (" + std::to_string(model.mtp_layers) + "): " + engine +
           " would need the draft model's name, which the plan does not hold";
  return false;
}

std::string decimal(std::uint32_t ppm) {
  std::string s =
      std::to_string(ppm / 1000000) + "." + std::to_string(1000000 + ppm % 1000000).substr(1);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s += '0';
  return s;
}

}  // namespace kvplan::engines
