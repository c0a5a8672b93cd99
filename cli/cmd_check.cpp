// kvplan check: a deployment file or an engine command line against its SLOs, for CI.
// Exit 0 when every check holds, 1 when one fails, 2 for an invalid file or command line.
#include <iostream>
#include <ostream>

#include "command.hpp"
#include "kvplan/deploy.hpp"
#include "kvplan/engine_args.hpp"
#include "kvplan/engine_log.hpp"
#include "kvplan/error.hpp"
#include "kvplan/manifest.hpp"
#include "kvplan/planner.hpp"
#include "kvplan/request.hpp"
#include "kvplan/sim/serving_check.hpp"
#include "kvplan/text_safe.hpp"
#include "kvplan/validate.hpp"

namespace kvplan::cli {
namespace {

// check's flags, as given.
struct CheckFlags {
  std::string file, vllm, sglang, trtllm, gpu, mem_gib, model, format;
  std::uint32_t gpus = 0;
  std::uint64_t context = 0, concurrency = 0;
  std::string slo_spec, calibration, workload, node_gib, vllm_version;
  std::uint64_t per_node = 0;
};

void add_check_options(po::options_description& desc, CheckFlags& f) {
  desc.add_options()("deploy", po::value(&f.file),
                     "deployment file (kvplan_deploy JSON, docs/deploy.md)")(
      "vllm", po::value(&f.vllm), "a vLLM command line: \"vllm serve MODEL --flags ...\"")(
      "vllm-version", po::value(&f.vllm_version),
      "the vLLM release the --vllm line runs: 0.25 runs dense models on Model Runner V2 "
      "(vllm@0.25), 0.17 - 0.19 cost that release's memory (vllm@0.19), 0.10 with NCCL inside "
      "non-torch (vllm@0.10), 0.9 the older rules (default: the current source's)")(
      "sglang", po::value(&f.sglang),
      "an SGLang command line: \"python -m sglang.launch_server --model-path M ...\"")(
      "trtllm", po::value(&f.trtllm),
      "a TensorRT-LLM command line: \"trtllm-serve MODEL --tp_size N ... "
      "[--extra_llm_api_options cfg.yaml]\"")(
      "gpu", po::value(&f.gpu), "GPU preset or file, with --vllm / --sglang / --trtllm")(
      "gpu-memory-gib", po::value(&f.mem_gib), "GPU memory in GiB instead of --gpu")(
      "gpus", po::value(&f.gpus), "GPUs in all (default TP × PP × DP of the command line)")(
      "model", po::value(&f.model), "model preset or config.json, overriding the command line's")(
      "context", po::value(&f.context), "SLO tokens per request (default --max-model-len)")(
      "concurrency", po::value(&f.concurrency),
      "SLO requests in flight (default: 1, the engine starts and holds one request of "
      "max_model_len)")(
      "slo", po::value(&f.slo_spec),
      "the SLO as KEY=VALUE pairs, the deployment file's slo keys: concurrency=N,context=N,"
      "mean_context=N (the typical length),min_kv_cache_tokens=N,max_cost_per_hour=USD, and "
      "the latency limits ttft_p99_ms=MS,tpot_p99_ms=MS,e2e_p99_ms=MS (with --workload)")(
      "workload", po::value(&f.workload),
      "the workload the latency limits are simulated under (kvplan_workload JSON or a trace), "
      "with --vllm / --sglang / --trtllm")(
      "strict", "unknown engine flags are errors (exit 2), not warnings")(
      "node-memory-gib", po::value(&f.node_gib),
      "host memory of one node in GiB: the KV tiers beyond the GPU (LMCache, HiCache, vLLM "
      "offloading) must fit in it")("gpus-per-node", po::value(&f.per_node),
                                    "GPUs (ranks) per node (default 8)")(
      "calibration", po::value(&f.calibration),
      "a calibration file (kvplan explain --calibrate): its measured reserve (if it has one) "
      "and, for the latency limits, its step-time efficiency")(
      "format", po::value(&f.format)->default_value("text"), "text|json|md|junit");
}

// Kubernetes manifests and Helm values (docs/k8s.md): each deployment states its own engine
// command, GPUs and replicas.
int check_manifest_file(const CheckFlags& f, const po::variables_map& vm, OutputFormat fmt,
                        std::ostream& out) {
  for (const char* flag : {"gpu", "gpu-memory-gib", "gpus", "model", "context", "concurrency",
                           "slo", "calibration", "workload", "node-memory-gib", "gpus-per-node"})
    if (vm.count(flag))
      throw Error("--" + std::string(flag), flag, "does not apply to a manifest (docs/k8s.md)");
  const ManifestReport r = check_manifests(load_manifests(f.file), vm.count("strict") > 0);
  for (const auto& c : r.checks)
    for (const auto& w : c.report.deploy.warnings)
      std::cerr << "kvplan check: warning: " << terminal_safe(c.report.deploy.name + ": " + w)
                << "\n";
  out << for_output(render(r, fmt), fmt);
  return r.passed() ? 0 : 1;
}

// The deployment the flags describe: a deployment file, or an engine's command line.
DeploymentRequest check_request(const CheckFlags& f, const po::variables_map& vm) {
  DeploymentRequest req;
  if (vm.count("deploy")) {
    req.source = DeploymentRequest::Source::deploy_file;
    req.path = f.file;
  } else {
    // One rule for every engine: the command line is read as the engine reads it, and judged on
    // one request of max_model_len unless --slo states a load (docs/check.md).
    req.source = DeploymentRequest::Source::engine_command;
    req.command_engine = vm.count("vllm")     ? Engine::vllm
                         : vm.count("sglang") ? Engine::sglang
                                              : Engine::trtllm;
    req.command_line = vm.count("vllm") ? f.vllm : vm.count("sglang") ? f.sglang : f.trtllm;
    req.strict = vm.count("strict") > 0;
    if (vm.count("vllm-version")) {
      if (!vm.count("vllm"))
        throw Error("--vllm-version", "vllm-version", "is the release of a --vllm command line");
      req.engine_version = f.vllm_version;
    }
  }
  req.model = f.model;
  req.gpu = f.gpu;
  if (vm.count("gpu-memory-gib")) req.gpu_memory_gib = f.mem_gib;
  if (vm.count("gpus")) req.gpus = f.gpus;
  if (vm.count("slo")) req.slo = f.slo_spec;
  if (vm.count("context")) req.slo_context = f.context;
  if (vm.count("concurrency")) req.slo_concurrency = f.concurrency;
  if (vm.count("calibration")) req.calibration = f.calibration;
  if (vm.count("node-memory-gib")) req.node_memory_gib = f.node_gib;
  if (vm.count("gpus-per-node")) req.gpus_per_node = f.per_node;
  if (vm.count("workload")) req.workload = f.workload;
  return req;
}

int run_check_cmd(const std::vector<std::string>& args, std::ostream& out) {
  po::options_description desc("kvplan check options");
  CheckFlags f;
  add_check_options(desc, f);
  po::positional_options_description pos;
  pos.add("deploy", 1);
  po::variables_map vm;
  if (!parse_args(
          args, desc, vm, out,
          "kvplan check DEPLOY.json | kvplan check --vllm|--sglang|--trtllm \"...\" --gpu G",
          "kvplan check --vllm \"vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768 "
          "--kv-cache-dtype fp8 --max-num-seqs 64\" --gpu h100-sxm-80gb",
          &pos))
    return 0;
  const auto fmt = parse_output_format(
      f.format, {OutputFormat::table, OutputFormat::json, OutputFormat::md, OutputFormat::junit});
  const int sources = (vm.count("deploy") ? 1 : 0) + (vm.count("vllm") ? 1 : 0) +
                      (vm.count("sglang") ? 1 : 0) + (vm.count("trtllm") ? 1 : 0);
  if (sources != 1)
    throw Error("command line", "deploy",
                "give exactly one of DEPLOY.json, --vllm \"...\", --sglang \"...\" or --trtllm "
                "\"...\"");
  if (vm.count("deploy") && is_manifest_file(f.file)) return check_manifest_file(f, vm, fmt, out);
  const ResolvedDeployment resolved = resolve(check_request(f, vm));
  const Deployment& d = resolved.deploy;
  for (const auto& w : d.warnings)
    std::cerr << "kvplan check: warning: " << terminal_safe(w) << "\n";
  CheckReport r = run_check(d);
  sim::check_serving_slo(d, r,
                         resolved.efficiency);  // the latency limits under the workload, if any
  out << for_output(render(r, fmt), fmt);
  return r.passed() ? 0 : 1;
}

const Registrar reg{
    {"check", "check a deployment file or engine command line against its SLOs", run_check_cmd}};

}  // namespace
}  // namespace kvplan::cli
