// The vocabulary of a disaggregated layout: KV links and routing (disagg_layout.hpp).
#include "kvplan/disagg_layout.hpp"

#include <charconv>
#include <cmath>

#include "kvplan/error.hpp"
#include "kvplan/text_safe.hpp"

namespace kvplan {

namespace {

struct LinkPreset {
  const char* name;
  double gbps;
  const char* source;
};
// One NIC per GPU, as on a DGX / HGX node: a DGX H100's InfiniBand compute fabric uses eight
// single-port ConnectX-7 at up to 400 Gb/s (docs.nvidia.com/dgx-basepod/
// reference-architecture-infrastructure-foundation-enterprise-ai/latest/core-components.html).
// 400 Gb/s = 50 GB/s, 800 Gb/s = 100 GB/s: line rates, the most a transfer can reach.
constexpr LinkPreset kLinkPresets[] = {
    {"ndr400", 50,
     "ConnectX-7, NDR 400 Gb/s single port, "
     "docs.nvidia.com/networking/display/ConnectX7VPI/Introduction"},
    {"xdr800", 100,
     "ConnectX-8 SuperNIC, up to 800 Gb/s, "
     "docs.nvidia.com/networking/display/connectx8supernic/introduction"},
};

}  // namespace

Routing parse_routing(const std::string& text, const std::string& source,
                      const std::string& field) {
  const std::string t = ascii_lower(text);
  if (t == "round_robin" || t == "round-robin") return Routing::round_robin;
  if (t == "least_loaded" || t == "least-loaded") return Routing::least_loaded;
  if (t == "prefix_aware" || t == "prefix-aware") return Routing::prefix_aware;
  throw Error(
      source, field,
      "unknown routing \"" + text + "\" (expected round_robin, least_loaded or prefix_aware)");
}

std::string to_string(Routing r) {
  switch (r) {
    case Routing::round_robin:
      return "round_robin";
    case Routing::least_loaded:
      return "least_loaded";
    case Routing::prefix_aware:
      return "prefix_aware";
  }
  return "round_robin";
}

std::vector<std::string> kv_link_presets() {
  std::vector<std::string> out{"nvlink"};
  for (const auto& p : kLinkPresets) out.emplace_back(p.name);
  return out;
}

KvLink kv_link(const std::string& spec, const GpuSpec& decode_gpu, const std::string& source,
               const std::string& field) {
  const std::string s = ascii_lower(spec);
  if (s == "nvlink") {
    if (decode_gpu.interconnect != "nvlink" || !(decode_gpu.interconnect_gbps > 0))
      throw Error(source, field,
                  decode_gpu.name + " has no NVLink in its preset (interconnect \"" +
                      decode_gpu.interconnect + "\"); use a network link or GB/s");
    return {.name = "nvlink",
            .gbps = decode_gpu.interconnect_gbps / 2,
            .source = decode_gpu.name + " interconnect_gbps / 2 (both directions / 2)"};
  }
  for (const auto& p : kLinkPresets)
    if (s == p.name) return {.name = p.name, .gbps = p.gbps, .source = p.source};
  double gbps = 0;
  const char* end = spec.data() + spec.size();
  const auto [p, ec] = std::from_chars(spec.data(), end, gbps);
  if (spec.empty() || ec != std::errc() || p != end || !(gbps > 0) || !(gbps <= 1e6)) {
    std::string names;
    for (const auto& n : kv_link_presets()) names += (names.empty() ? "" : ", ") + n;
    throw Error(source, field,
                "\"" + spec + "\" is neither a link (" + names +
                    ") nor a bandwidth in GB/s per GPU in (0, 1e6]");
  }
  return {.name = "custom", .gbps = gbps, .source = "given"};
}

}  // namespace kvplan
