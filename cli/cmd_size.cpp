// kvplan size: the formula's factors and the bytes of one model's KV cache.
#include <ostream>

#include "command.hpp"
#include "kvplan/formula.hpp"
#include "kvplan/kv_format.hpp"
#include "kvplan/policy.hpp"
#include "kvplan/report.hpp"
#include "kvplan/validate.hpp"

namespace kvplan::cli {
namespace {

int run_size(const std::vector<std::string>& args, std::ostream& out) {
  po::options_description desc("kvplan size options");
  std::string model, kv, policy, format;
  std::uint64_t context = 0, batch = 1, prefill = 0;
  std::uint64_t block = 1, tp = 1, draft = 0;
  const std::string kv_help = kv_format_help("default: the model's dtype");
  const std::string policies = policy_help();
  desc.add_options()("model,m", po::value(&model)->required(),
                     "preset id, HF config.json or kvplan model JSON")(
      "context,n", po::value(&context)->required(), "tokens per sequence (n)")(
      "batch,B", po::value(&batch)->default_value(1), "sequences in flight (B)")(
      "kv-dtype", po::value(&kv), kv_help.c_str())(
      "policy", po::value(&policy)->default_value("full"), policies.c_str())(
      "prefill", po::value(&prefill), "prompt length for snapkv (default: the context)")(
      "block-size", po::value(&block)->default_value(1), "tokens per cache block (1 = unpaged)")(
      "tp", po::value(&tp)->default_value(1), "tensor-parallel ranks (bytes are per rank)")(
      "draft-layers", po::value(&draft)->default_value(0),
      "speculative layers holding a cache (MTP layers, EAGLE draft layers)")(
      "format", po::value(&format)->default_value("table"), "table|json|md|csv");
  po::variables_map vm;
  if (!parse_args(args, desc, vm, out, "kvplan size --model M --context N [options]",
                  "kvplan size --model llama-3.1-8b --context 8192 --batch 16 --kv-dtype fp8"))
    return 0;
  const auto fmt = parse_output_format(
      format, {OutputFormat::table, OutputFormat::json, OutputFormat::md, OutputFormat::csv});
  const ModelSpec m = load_model(model);
  // The same shape rules as plan and check: TP that fits the heads, block size, draft layers.
  throw_if_any("command line",
               validate_deployment_shape({.tp = tp, .block_size = block, .draft_layers = draft}, &m,
                                         cli_flag_names()));
  KvCostInput in{.context = context,
                 .batch = batch,
                 .format = vm.count("kv-dtype") ? parse_kv_format(kv) : default_kv_format(m),
                 .policy = parse_policy(policy),
                 .block_size = static_cast<std::uint32_t>(block),
                 .tp = static_cast<std::uint32_t>(tp),
                 .draft_layers = static_cast<std::uint32_t>(draft)};
  if (vm.count("prefill")) in.prefill = prefill;
  out << for_output(render(make_size_report(m, in), fmt), fmt);
  return 0;
}

const Registrar reg{
    {"size", "KV-cache bytes of a model: every factor of 2·L·n·H_kv·d_h·b·B", run_size}};

}  // namespace
}  // namespace kvplan::cli
