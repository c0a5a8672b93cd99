// kvplan simulate: a workload through the request-level serving simulator (one engine replica,
// or N identical replicas sharing the arrivals round-robin): TTFT, TPOT, ITL and E2E
// percentiles, throughput, goodput, preemptions, prefix hits, queue length, KV usage over time.
#include <cmath>
#include <fstream>
#include <iostream>
#include <ostream>

#include "command.hpp"
#include "kvplan/engine_log.hpp"
#include "kvplan/engine_rules.hpp"
#include "kvplan/error.hpp"
#include "kvplan/gpu.hpp"
#include "kvplan/kv_format.hpp"
#include "kvplan/output_path.hpp"
#include "kvplan/planner.hpp"
#include "kvplan/policy.hpp"
#include "kvplan/report.hpp"
#include "kvplan/request.hpp"
#include "kvplan/sim/serving.hpp"
#include "kvplan/sim/serving_report.hpp"
#include "kvplan/sim/step_time.hpp"
#include "kvplan/sim/workload.hpp"
#include "kvplan/validate.hpp"

namespace kvplan::cli {
namespace {

// TensorRT-LLM's spellings: --max-batch-size and --max-num-tokens are --max-num-seqs and
// --max-num-batched-tokens (trtllm-serve's --max_batch_size and --max_num_tokens), defaults 2048
// (EngineRules::default_max_num_seqs) and 8192 (llm_args.py max_num_tokens); the TensorRT-LLM
// flags are refused with another engine.
void apply_trtllm_flags(const po::variables_map& vm, bool trtllm, DeploymentRequest& req,
                        std::uint64_t& seqs, std::uint64_t& mnbt) {
  for (const char* f :
       {"max-batch-size", "max-num-tokens", "capacity-scheduler-policy", "enable-chunked-context"})
    if (vm.count(f) && !trtllm)
      throw Error(std::string("--") + f, f, "is a TensorRT-LLM setting: it needs --engine trtllm");
  if (!trtllm) return;
  if (vm.count("max-batch-size") && !vm["max-num-seqs"].defaulted())
    throw Error("--max-batch-size", "max-batch-size", "give --max-batch-size or --max-num-seqs");
  if (vm.count("max-num-tokens") && !vm["max-num-batched-tokens"].defaulted())
    throw Error("--max-num-tokens", "max-num-tokens",
                "give --max-num-tokens or --max-num-batched-tokens");
  if (vm.count("max-batch-size")) {
    seqs = vm["max-batch-size"].as<std::uint64_t>();
    req.setting_names.max_num_seqs = "--max-batch-size";
  } else if (vm["max-num-seqs"].defaulted()) {
    seqs = engine_rules(Engine::trtllm).default_max_num_seqs().value_or(seqs);
  }
  if (vm.count("max-num-tokens")) {
    mnbt = vm["max-num-tokens"].as<std::uint64_t>();
    req.setting_names.max_num_batched_tokens = "--max-num-tokens";
  }
}

int run_simulate(const std::vector<std::string>& args, std::ostream& out) {
  po::options_description desc("kvplan simulate options");
  std::string model, gpu, engine, kv, policy, util, workload, calibration, slo, series, format,
      offload_gib, offload_gbps, reserve, requests_out, capacity_policy;
  std::uint64_t tp = 1, context = 0, seqs = 256, mnbt = kDefaultMaxNumBatchedTokens, seed = 1;
  std::uint64_t replicas = 1, block = 0, batch_size = 0, num_tokens = 0;
  const std::string kv_help =
      kv_format_help("default: the model's dtype; KIVI formats have no paged pool: refused");
  const std::string policies = policy_help();
  desc.add_options()("model,m", po::value(&model)->required(),
                     "preset id, Hugging Face id, HF config.json or kvplan model JSON")(
      "gpu", po::value(&gpu)->required(), "GPU preset id or GPU JSON file (kvplan gpus)")(
      "tp", po::value(&tp)->default_value(1), "tensor-parallel size per replica")(
      "replicas", po::value(&replicas)->default_value(1),
      "identical replicas; arrivals dealt round-robin (a session stays on one)")(
      "engine", po::value(&engine)->default_value("vllm"), "vllm|sglang|trtllm: whose scheduler")(
      "max-model-len", po::value(&context), "tokens per request at most (default: the model's)")(
      "max-num-seqs", po::value(&seqs)->default_value(256), "requests per step at most")(
      "max-num-batched-tokens", po::value(&mnbt)->default_value(kDefaultMaxNumBatchedTokens),
      "tokens per step at most (chunked prefill)")(
      "max-batch-size", po::value(&batch_size),
      "trtllm: max_batch_size, its --max-num-seqs (default 2048)")(
      "max-num-tokens", po::value(&num_tokens),
      "trtllm: max_num_tokens, its --max-num-batched-tokens (default 8192)")(
      "capacity-scheduler-policy", po::value(&capacity_policy),
      "trtllm: guaranteed_no_evict|max_utilization (guaranteed_no_evict)")(
      "enable-chunked-context", "trtllm: cut contexts to fit max_num_tokens (off)")(
      "gpu-memory-utilization", po::value(&util),
      "fraction of GPU memory (vLLM default 0.9, SGLang mem_fraction_static 0.88)")(
      "kv-dtype", po::value(&kv), kv_help.c_str())(
      "policy", po::value(&policy)->default_value("full"), policies.c_str())(
      "block-size", po::value(&block), "tokens per page (default: vLLM 16, SGLang 1)")(
      "enable-prefix-caching", "cache prompt prefixes (the default where it is modelled)")(
      "no-enable-prefix-caching", "no prefix caching")(
      "cpu-offload-gib", po::value(&offload_gib), "GiB of CPU memory holding evicted KV blocks")(
      "cpu-offload-gbps", po::value(&offload_gbps)->default_value("25"),
      "host<->device GB/s for the CPU tier (default 25, PCIe 4.0 x16)")(
      "workload", po::value(&workload)->required(),
      "kvplan_workload JSON, or a trace (.jsonl / .csv)")(
      "seed", po::value(&seed)->default_value(1), "workload seed")(
      "calibration", po::value(&calibration),
      "a calibration file: its measured reserve and step-time efficiency")(
      "reserve-gib", po::value(&reserve), "GiB per GPU for activations, CUDA graphs, runtime")(
      "slo", po::value(&slo), "goodput limits: ttft_p99_ms=MS,tpot_p99_ms=MS,e2e_p99_ms=MS")(
      "kv-series", po::value(&series),
      "write the KV usage series (t_s,blocks_used,...) as CSV to FILE")(
      "requests-out", po::value(&requests_out),
      "write one JSON line per request (arrival, queued, scheduled, first token, finish, "
      "tokens) to FILE ('-': standard output)")(
      "format", po::value(&format)->default_value("table"), "table|json|csv|md");
  po::variables_map vm;
  if (!parse_args(args, desc, vm, out,
                  "kvplan simulate --model M --gpu G --workload FILE [options]",
                  "kvplan simulate --model llama-3.1-8b --gpu h100-sxm-80gb --workload "
                  "examples/workload-chat.json --slo ttft_p99_ms=2000,tpot_p99_ms=50"))
    return 0;
  const auto fmt = parse_output_format(
      format, {OutputFormat::table, OutputFormat::json, OutputFormat::csv, OutputFormat::md});
  // The series never replaces an input (the workload, a model or GPU file, the calibration).
  const bool series_stdout =
      vm.count("kv-series") &&
      check_output_path(series, {workload, model, gpu, calibration}, "--kv-series");
  const bool requests_stdout =
      vm.count("requests-out") &&
      check_output_path(requests_out, {workload, model, gpu, calibration, series},
                        "--requests-out");
  if (series_stdout && requests_stdout)
    throw Error("--requests-out", "requests-out",
                "--kv-series and --requests-out cannot both be standard output ('-')");
  if (replicas == 0 || replicas > 1024)
    throw Error("--replicas", "replicas",
                "must be between 1 and 1024, got " + std::to_string(replicas));
  DeploymentRequest req;
  req.model = model;
  req.gpu = gpu;
  req.engine = engine;
  // Given (an empty one refused here, not taken for the default), else the model's dtype.
  if (vm.count("kv-dtype")) req.kv_dtype = to_string(parse_kv_format(kv));
  req.policy = policy;
  req.tp = tp;
  if (vm.count("block-size")) req.block_size = block;
  if (vm.count("max-model-len")) req.context = context;
  VllmRules rules{};
  const bool trtllm = parse_engine(engine, "--engine", "engine", rules) == Engine::trtllm;
  apply_trtllm_flags(vm, trtllm, req, seqs, mnbt);
  req.max_num_batched_tokens = mnbt;
  req.max_num_seqs = seqs;
  if (vm.count("gpu-memory-utilization")) req.memory_fraction = util;
  if (vm.count("reserve-gib")) req.reserve_gib = reserve;
  if (vm.count("calibration")) req.calibration = calibration;
  req.names.context = "--max-model-len";
  req.setting_names.max_model_len = "--max-model-len";
  const ResolvedDeployment resolved = resolve(req);
  refuse_if_any(resolved);
  const ModelSpec& m = resolved.deploy.model;
  const GpuSpec& g = *resolved.gpu;
  sim::ServingConfig cfg;
  PlanInput& in = cfg.plan;
  in = resolved.deploy.plan;
  sim::check_simulated_engine(in.engine, "--engine");        // simulate's own check, named by flag
  cfg.async_scheduling = sim::default_async_scheduling(in);  // vLLM >= 0.14 only
  cfg.max_num_batched_tokens = mnbt;
  cfg.max_num_seqs = seqs;
  if (vm.count("capacity-scheduler-policy"))
    cfg.capacity_policy =
        sim::parse_capacity_policy(capacity_policy, "--capacity-scheduler-policy");
  cfg.enable_chunked_context = vm.count("enable-chunked-context") > 0;
  const std::optional<CalibratedEfficiency>& calibrated = resolved.efficiency;
  if (vm.count("enable-prefix-caching") && vm.count("no-enable-prefix-caching"))
    throw Error("--no-enable-prefix-caching", "no-enable-prefix-caching",
                "give --enable-prefix-caching or --no-enable-prefix-caching, not both");
  // vLLM V1 and SGLang cache prefixes unless told not to; where kvplan does not model it
  // (sliding or recurrent groups, evicting policies) the default is off, with a note.
  if (vm.count("enable-prefix-caching")) {
    cfg.enable_prefix_caching = true;
  } else if (!vm.count("no-enable-prefix-caching")) {
    cfg.enable_prefix_caching = sim::prefix_caching_modelled(m, in);
    if (in.engine == Engine::trtllm) {
      if (!quiet())
        std::cerr << "kvplan simulate: note: TensorRT-LLM's KV cache reuse is not modelled: "
                     "simulated without it\n";
    } else if (!cfg.enable_prefix_caching && !quiet())
      std::cerr << "kvplan simulate: note: prefix caching is not modelled for this deployment "
                   "(sliding, chunked or recurrent layers, or an evicting policy): simulated "
                   "without it\n";
  }
  if (vm.count("cpu-offload-gib")) {
    cfg.cpu_offload_bytes = parse_gib(offload_gib, "--cpu-offload-gib", "cpu-offload-gib");
    cfg.cpu_offload_gbps = sim::parse_offload_gbps(offload_gbps, "--cpu-offload-gbps");
    if (cfg.cpu_offload_bytes > 0 && !cfg.enable_prefix_caching)
      throw Error("--cpu-offload-gib", "cpu-offload-gib",
                  "the CPU tier holds evicted prefix blocks: it needs prefix caching");
  } else if (!vm["cpu-offload-gbps"].defaulted()) {
    throw Error("--cpu-offload-gbps", "cpu-offload-gbps",
                "is the CPU tier's bandwidth: it needs --cpu-offload-gib");
  }
  sim::SimOptions opt;
  if (vm.count("slo")) opt.slo = sim::parse_latency_slo(slo, "--slo");
  const sim::Workload w = sim::load_workload(workload, seed);
  const sim::StepModel step(m, g, sim::step_model_input(g, in.engine, in.tp, calibrated), "--gpu");
  Progress progress("requests");
  const std::uint64_t total = w.requests.size();
  opt.progress = [&](double f) { progress(static_cast<std::uint64_t>(f * total), total); };
  sim::ServingReport rep{
      .model = m.id,
      .gpu = g.id,
      .engine = to_string(in.engine, in.vllm_rules),
      .workload = workload,
      .seed = seed,
      .replicas = static_cast<std::uint32_t>(replicas),
      .config = cfg,
      .slo = opt.slo,
      .result = sim::simulate_replicas(m, cfg, step, w, static_cast<std::uint32_t>(replicas), opt),
      .refused = {}};
  rep.refused = sim::refused_per_stage(w, rep.result);
  if (requests_stdout) {  // --requests-out -: the requests are the output
    sim::write_requests_jsonl(rep.result, step.frontend_s(), out);
  } else if (vm.count("requests-out")) {
    std::ofstream f(requests_out, std::ios::binary | std::ios::trunc);
    sim::write_requests_jsonl(rep.result, step.frontend_s(), f);
    f.close();
    if (!f) throw Error(requests_out, "requests-out", "cannot write the requests to this path");
  }
  if (series_stdout) {  // --kv-series -: the series is the output
    out << sim::render_kv_series(rep.result);
    return 0;
  }
  if (vm.count("kv-series")) {
    std::ofstream f(series, std::ios::binary | std::ios::trunc);
    f << sim::render_kv_series(rep.result);
    f.close();
    if (!f) throw Error(series, "kv-series", "cannot write the KV usage series to this path");
  }
  if (requests_stdout) return 0;
  out << for_output(sim::render(rep, fmt), fmt);
  return 0;
}

const Registrar reg{{"simulate",
                     "serving latency (TTFT, TPOT, ITL, E2E) and KV usage under a workload",
                     run_simulate}};

}  // namespace
}  // namespace kvplan::cli
