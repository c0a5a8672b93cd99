// The vocabulary of a disaggregated prefill/decode layout (docs/disagg.md): the layout as a
// deployment file or flags state it, the KV link between the sides, the routing over replicas.
// The serving simulator runs it (sim/disagg.hpp); core reads it from deployment files.
//
//   KvLink l = kv_link("ndr400", load_gpu("h100-sxm-80gb"), "flags", "--kv-link");  // 50 GB/s
//   parse_routing("least_loaded", "flags", "--routing") == Routing::least_loaded
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kvplan/gpu.hpp"

namespace kvplan {

// One side's own settings over the deployment's (a file's "disaggregated": {"prefill": {...}}
// keys; `kvplan simulate`'s --prefill-* / --decode-* flags set the same): its max_num_seqs,
// max_num_batched_tokens and memory fraction, and engine keys applied after the deployment's.
struct DisaggSide {
  std::optional<std::uint64_t> max_num_seqs, max_num_batched_tokens;
  std::optional<std::uint32_t> memory_fraction_ppm;
  std::vector<std::string> engine_options;  // KEY=VALUE, a deployment file's engine keys
  bool any() const {
    return max_num_seqs || max_num_batched_tokens || memory_fraction_ppm || !engine_options.empty();
  }
  bool operator==(const DisaggSide&) const = default;
};

// A disaggregated prefill/decode layout: the deployment file's "disaggregated" (docs/disagg.md,
// docs/deploy.md). The link and routing as written; the file's reader checks both (kv_link,
// parse_routing) and the serving simulator resolves them.
struct DisaggLayout {
  std::uint32_t prefill_replicas = 1, decode_replicas = 1, prefill_tp = 1, decode_tp = 1;
  std::string kv_link = "nvlink", routing = "round_robin";
  double kv_link_latency_ms = 0, kv_transfer_overhead_ms = 0;
  DisaggSide prefill_side, decode_side;
  bool operator==(const DisaggLayout&) const = default;
};

// prefix_aware routes a request to the prefill replica whose prefix cache holds the most of its
// prompt (decode replicas keep no prefix cache here: least loaded for them).
enum class Routing { round_robin, least_loaded, prefix_aware };
// "round_robin" | "least_loaded" | "prefix_aware"; throws Error(source, field) naming the
// choices otherwise.
Routing parse_routing(const std::string& text, const std::string& source,
                      const std::string& field = "routing");
std::string to_string(Routing r);

// The path a request's KV takes from its prefill replica to its decode replica.
struct KvLink {
  std::string name;          // the preset's name, or "custom"
  double gbps = 0;           // GB/s (1e9 bytes/s) per decode GPU, one direction
  double latency_s = 0;      // once per request
  double per_request_s = 0;  // the transfer library's own overhead per request
  std::string source;        // where gbps comes from
};

// A link by preset name or as a number of GB/s per GPU:
//   nvlink  the decode GPU's NVLink, one direction (GpuSpec::interconnect_gbps / 2, which is
//           both directions together); both sides must fit one NVLink domain (the serving
//           simulator's check_disagg)
//   ndr400  InfiniBand NDR / 400 Gb/s Ethernet, one NIC per GPU (ConnectX-7): 50 GB/s
//   xdr800  InfiniBand XDR / 800 Gb/s Ethernet, one NIC per GPU (ConnectX-8): 100 GB/s
// Throws Error(source, field) for an unknown name, a GPU without NVLink, or a bandwidth outside
// (0, 1e6] GB/s.
KvLink kv_link(const std::string& spec, const GpuSpec& decode_gpu, const std::string& source,
               const std::string& field = "kv_link");
std::vector<std::string> kv_link_presets();

}  // namespace kvplan
