// Report rendering shared by every subcommand and the GUI: output formats, human units, tables.
//
//   human_bytes(1073741824) == "1.00 GiB (1.07 GB)"
//   Table t{{"term", "value"}, {{"L", "32"}}};  render(t, OutputFormat::md) == "| term | value
//   |\n..."
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kvplan/formula.hpp"
#include "kvplan/gpu.hpp"

namespace kvplan {

enum class OutputFormat { table, json, md, csv, junit };

// Parses "table", "text" (= table), "json", "md"/"markdown", "csv", "junit"; `allowed` lists the
// ones a subcommand supports. Throws Error naming --format.
OutputFormat parse_output_format(const std::string& name, const std::vector<OutputFormat>& allowed);
std::string to_string(OutputFormat f);

// "1.00 GiB (1.07 GB)"; below 1 KiB: "512 B".
std::string human_bytes(std::uint64_t bytes);
// "12.3K", "1.05M" style compact counts are avoided: integers are printed with thin grouping
// "1,048,576".
std::string grouped(std::uint64_t n);

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};
std::string render_text(const Table& t);      // aligned columns, numbers right-aligned
std::string render_markdown(const Table& t);  // GitHub table, | escaped
std::string render_csv(const Table& t);       // RFC 4180 quoting

// `kvplan size`: the formula's factors, per-token / per-request / total bytes.
// The layers of a model in a few words, for lists and headers: "full", "sliding 4,096",
// "52 sliding 1,024 + 10 full", "36 chunked 8,192 + 12 full", "12 full + 36 gated_delta_net
// state", "MLA latent 576 + indexer 128".
std::string describe_layers(const ModelSpec& model);

struct SizeReport {
  ModelSpec model;
  KvCostInput input;
  KvCost cost;
};
SizeReport make_size_report(const ModelSpec& model, const KvCostInput& input,
                            const std::string& source = "arguments");
// Refuses a context beyond the model's positions (as plan and check do).
// JSON keys: model, kv_dtype, policy, context, batch, block_size, bytes_per_token (the marginal
// rate of the layers growing with n), bytes_per_request (the total), growing_bytes_per_request,
// capped_bytes_per_request (sliding / chunked layers), state_bytes_per_request (recurrent
// state), draft_layers, total_bytes, factors{L, n, H_kv, d_k, d_v, b, B}, groups[...] (kind:
// full, sliding, chunked, mla, indexer, recurrent; recurrent groups add mixer,
// conv_bytes_per_layer, ssm_bytes_per_layer).
std::string render(const SizeReport& r, OutputFormat f);

// `kvplan gpus`: id, memory, HBM bandwidth, the dense tensor-core peaks per dtype and the
// GPU-to-GPU link, "-" where a preset does not know a figure. JSON: an array of objects with
// id, name, memory_bytes, bandwidth_gbps, peak_tflops_{bf16,fp8,fp4}, peak_tops_int8,
// interconnect, interconnect_gbps and the three source URLs, unknown figures as null:
//   [{"id": "h100-sxm-80gb", ..., "peak_tflops_bf16": 989.5, "peak_tflops_fp4": null, ...}]
std::string render_gpu_presets(const std::vector<GpuSpec>& gpus, OutputFormat f);

}  // namespace kvplan
