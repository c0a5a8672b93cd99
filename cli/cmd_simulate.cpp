// kvplan simulate: a workload through the request-level serving simulator (one engine replica,
// or N identical replicas sharing the arrivals round-robin): TTFT, TPOT, ITL and E2E
// percentiles, throughput, goodput, preemptions, prefix hits, queue length, KV usage over time.
#include <cmath>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
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
#include "kvplan/sim/disagg.hpp"
#include "kvplan/sim/serving.hpp"
#include "kvplan/sim/serving_report.hpp"
#include "kvplan/sim/step_time.hpp"
#include "kvplan/sim/sweep.hpp"
#include "kvplan/sim/workload.hpp"
#include "kvplan/text_safe.hpp"
#include "kvplan/validate.hpp"

namespace kvplan::cli {
namespace {

// simulate's flags, as given.
struct SimulateFlags {
  std::string model, gpu, engine, kv, policy, util, workload, calibration, slo, series, format,
      offload_gib, offload_gbps, reserve, requests_out, capacity_policy, acceptance;
  std::uint64_t tp = 1, pp = 1, context = 0, seqs = 0, mnbt = 0, seed = 1;  // seqs, mnbt: given
  std::uint64_t replicas = 1, block = 0, batch_size = 0, num_tokens = 0, draft = 0;
  // Disaggregated prefill/decode (--prefill-replicas): each side's replicas and TP, the KV link.
  std::uint32_t prefill_replicas = 0, decode_replicas = 1, prefill_tp = 0, decode_tp = 0;
  std::string kv_link = "nvlink", routing = "round_robin";
  double link_latency_ms = 0, transfer_overhead_ms = 0;
  std::string command = "simulate";  // or "sweep": the name its notes give
  std::string tp_flag = "--tp";      // the flag that gave tp (--prefill-tp, --decode-tp)
  bool notes = true;  // print the notes on stderr (one side of a disaggregated run does)
  std::vector<std::string> engine_options;  // --engine-option KEY=VALUE
  // One side of a disaggregated run: its --prefill-* / --decode-* settings, over the shared ones
  // (its engine options after --engine-option's, so a key given for the side wins).
  struct Side {
    std::string name;  // "prefill" or "decode"
    std::vector<std::string> engine_options;
    std::uint64_t seqs = 0, mnbt = 0;  // as given (seqs_given, mnbt_given)
    std::string util;
    bool seqs_given = false, mnbt_given = false, util_given = false;
  };
  Side prefill_side, decode_side;
  const Side* side = nullptr;  // the side this copy of the flags resolves, or none
};

// The deployment and its scheduler: what simulate and sweep share.
void add_serving_options(po::options_description& desc, SimulateFlags& f) {
  static const std::string kv_help =
      kv_format_help("default: the model's dtype; KIVI formats have no paged pool: refused");
  static const std::string policies = policy_help();
  desc.add_options()("model,m", po::value(&f.model)->required(),
                     "preset id, Hugging Face id, HF config.json or kvplan model JSON")(
      "gpu", po::value(&f.gpu)->required(), "GPU preset id or GPU JSON file (kvplan gpus)")(
      "tp", po::value(&f.tp)->default_value(1), "tensor-parallel size per replica")(
      "pp", po::value(&f.pp)->default_value(1),
      "vllm, sglang: pipeline stages per replica, up to that many micro-batches in flight "
      "(docs/simulate-step-time.md)")(
      "engine", po::value(&f.engine)->default_value("vllm"),
      "vllm|sglang|trtllm (vllm@V: a release's memory rules, as plan's --engine): whose "
      "scheduler")("engine-option", po::value(&f.engine_options)->composing(),
                   "KEY=VALUE, repeatable: the engine's own setting with a deployment file's key "
                   "(docs/deploy.md)")("enable-expert-parallel", kExpertParallelHelp)(
      "max-model-len", po::value(&f.context), "tokens per request at most (default: the model's)")(
      "max-num-seqs", po::value(&f.seqs),
      "requests per step at most (default: the engine's on this GPU; vLLM 1024 on >= 70 GiB "
      "GPUs other than A100s, else 256)")(
      "max-num-batched-tokens", po::value(&f.mnbt),
      "tokens per step at most, chunked prefill (default: the engine's; vLLM 8192 on >= 70 GiB "
      "GPUs other than A100s, else 2048)")(
      "max-batch-size", po::value(&f.batch_size),
      "trtllm: max_batch_size, its --max-num-seqs (default 2048)")(
      "max-num-tokens", po::value(&f.num_tokens),
      "trtllm: max_num_tokens, its --max-num-batched-tokens (default 8192)")(
      "capacity-scheduler-policy", po::value(&f.capacity_policy),
      "trtllm: guaranteed_no_evict|max_utilization (guaranteed_no_evict)")(
      "enable-chunked-context", "trtllm: cut contexts to fit max_num_tokens (off)")(
      "gpu-memory-utilization", po::value(&f.util),
      "fraction of GPU memory (vLLM default 0.9, SGLang mem_fraction_static from the GPU)")(
      "kv-dtype", po::value(&f.kv), kv_help.c_str())(
      "policy", po::value(&f.policy)->default_value("full"), policies.c_str())(
      "block-size", po::value(&f.block), "tokens per page (default: vLLM 16, SGLang 1)")(
      "enable-prefix-caching", "cache prompt prefixes (the default where it is modelled)")(
      "no-enable-prefix-caching", "no prefix caching")(
      "cpu-offload-gib", po::value(&f.offload_gib), "GiB of CPU memory holding evicted KV blocks")(
      "cpu-offload-gbps", po::value(&f.offload_gbps)->default_value("25"),
      "host<->device GB/s for the CPU tier (default 25, PCIe 4.0 x16)")(
      "seed", po::value(&f.seed)->default_value(1), "workload seed")(
      "calibration", po::value(&f.calibration),
      "a calibration file: its measured reserve and step-time efficiency")(
      "reserve-gib", po::value(&f.reserve), "GiB per GPU for activations, CUDA graphs, runtime")(
      "slo", po::value(&f.slo), "goodput limits: ttft_p99_ms=MS,tpot_p99_ms=MS,e2e_p99_ms=MS")(
      "draft-layers", po::value(&f.draft)->default_value(0),
      "speculative layers holding a cache (MTP layers, EAGLE draft layers); with drafts, the "
      "drafter's layers (default: 1 when drafts run)")(
      "acceptance-rate", po::value(&f.acceptance),
      "vllm with num_speculative_tokens K: A (draft i accepted with A^i) or A1,...,AK (vLLM's "
      "per-position acceptance rates)")(
      "measured-moe",
      "cost an MoE model's routed experts with kvplan's measured per-operation table for this "
      "GPU and engine (models/perf/moe/, aiconfigurator's data) instead of the roofline "
      "(docs/simulate-step-time.md)");
}

void add_simulate_options(po::options_description& desc, SimulateFlags& f) {
  add_serving_options(desc, f);
  desc.add_options()("replicas", po::value(&f.replicas)->default_value(1),
                     "identical replicas; arrivals dealt round-robin (a session stays on one)")(
      "workload", po::value(&f.workload)->required(),
      "kvplan_workload JSON, or a trace (.jsonl / .csv)")(
      "kv-series", po::value(&f.series),
      "write the KV usage series (t_s,blocks_used,...) as CSV to FILE")(
      "requests-out", po::value(&f.requests_out),
      "write one JSON line per request (arrival, queued, scheduled, first token, finish, "
      "tokens) to FILE ('-': standard output)")(
      "format", po::value(&f.format)->default_value("table"), "table|json|csv|md")(
      "prefill-replicas", po::value(&f.prefill_replicas),
      "disaggregated prefill/decode: prefill replicas (docs/disagg.md)")(
      "decode-replicas", po::value(&f.decode_replicas)->default_value(1),
      "disaggregated: decode replicas")("prefill-tp", po::value(&f.prefill_tp),
                                        "disaggregated: TP of a prefill replica (--tp)")(
      "decode-tp", po::value(&f.decode_tp), "disaggregated: TP of a decode replica (--tp)")(
      "kv-link", po::value(&f.kv_link)->default_value("nvlink"),
      "disaggregated: nvlink|ndr400|xdr800|GB/s per GPU, the path of the KV")(
      "kv-link-latency-ms", po::value(&f.link_latency_ms)->default_value(0),
      "disaggregated: latency per transfer")(
      "kv-transfer-overhead-ms", po::value(&f.transfer_overhead_ms)->default_value(0),
      "disaggregated: the transfer library's overhead per request")(
      "routing", po::value(&f.routing)->default_value("round_robin"),
      "disaggregated: round_robin|least_loaded|prefix_aware over each side's replicas");
  for (auto [side, s] : {std::pair{"prefill", &f.prefill_side}, {"decode", &f.decode_side}}) {
    const std::string p = std::string(side) + "-";
    desc.add_options()((p + "engine-option").c_str(), po::value(&s->engine_options)->composing(),
                       (std::string("disaggregated: KEY=VALUE, repeatable: the ") + side +
                        " side's own engine setting, over --engine-option's")
                           .c_str())(
        (p + "max-num-seqs").c_str(), po::value(&s->seqs),
        (std::string("disaggregated: the ") + side + " side's --max-num-seqs").c_str())(
        (p + "max-num-batched-tokens").c_str(), po::value(&s->mnbt),
        (std::string("disaggregated: the ") + side + " side's --max-num-batched-tokens").c_str())(
        (p + "gpu-memory-utilization").c_str(), po::value(&s->util),
        (std::string("disaggregated: the ") + side + " side's --gpu-memory-utilization").c_str());
  }
}

// The flags of one side of a disaggregated run ("prefill" or "decode") that were given.
void mark_side_flags(const po::variables_map& vm, const char* side, SimulateFlags::Side& s) {
  const std::string p = side;
  s.name = side;
  s.seqs_given = vm.count(p + "-max-num-seqs") > 0;
  s.mnbt_given = vm.count(p + "-max-num-batched-tokens") > 0;
  s.util_given = vm.count(p + "-gpu-memory-utilization") > 0;
}

// The disaggregated flags are refused without --prefill-replicas, and --replicas with it.
void check_disagg_flags(const po::variables_map& vm) {
  const bool disagg = vm.count("prefill-replicas") > 0;
  for (const char* flag :
       {"decode-replicas", "prefill-tp", "decode-tp", "kv-link", "kv-link-latency-ms",
        "kv-transfer-overhead-ms", "routing", "prefill-engine-option", "decode-engine-option",
        "prefill-max-num-seqs", "decode-max-num-seqs", "prefill-max-num-batched-tokens",
        "decode-max-num-batched-tokens", "prefill-gpu-memory-utilization",
        "decode-gpu-memory-utilization"})
    if (!disagg && vm.count(flag) && !vm[flag].defaulted())
      throw Error(std::string("--") + flag, flag,
                  "is a disaggregated setting: it needs --prefill-replicas");
  if (disagg && !vm["replicas"].defaulted())
    throw Error("--replicas", "replicas",
                "is for aggregated replicas; a disaggregated run takes --prefill-replicas and "
                "--decode-replicas");
}

// Where the KV series and the per-request lines go; at most one of them to standard output.
struct SimulateOutputs {
  bool series = false, requests = false;                // given
  bool series_stdout = false, requests_stdout = false;  // given as '-'
};

// The outputs never replace an input (the workload, a model or GPU file, the calibration).
SimulateOutputs check_outputs(const SimulateFlags& f, const po::variables_map& vm) {
  SimulateOutputs o{.series = vm.count("kv-series") > 0, .requests = vm.count("requests-out") > 0};
  o.series_stdout =
      o.series &&
      check_output_path(f.series, {f.workload, f.model, f.gpu, f.calibration}, "--kv-series");
  o.requests_stdout =
      o.requests &&
      check_output_path(f.requests_out, {f.workload, f.model, f.gpu, f.calibration, f.series},
                        "--requests-out");
  if (o.series_stdout && o.requests_stdout)
    throw Error("--requests-out", "requests-out",
                "--kv-series and --requests-out cannot both be standard output ('-')");
  return o;
}

// The deployment the flags describe, for resolve(): max-num-seqs and max-num-batched-tokens
// (TensorRT-LLM's spellings included) when given, else the engine's defaults.
DeploymentRequest deployment_request(const SimulateFlags& f, const po::variables_map& vm) {
  DeploymentRequest req;
  req.model = f.model;
  req.gpu = f.gpu;
  req.engine = f.engine;
  req.engine_options = with_expert_parallel(vm, f.engine_options);
  // Given (an empty one refused here, not taken for the default), else the model's dtype.
  if (vm.count("kv-dtype")) req.kv_dtype = to_string(parse_kv_format(f.kv));
  req.policy = f.policy;
  req.tp = f.tp;
  req.pp = f.pp;
  if (vm.count("block-size")) req.block_size = f.block;
  req.draft_layers = f.draft;
  if (vm.count("max-model-len")) req.context = f.context;
  if (vm.count("max-num-batched-tokens")) req.max_num_batched_tokens = f.mnbt;
  if (vm.count("max-num-seqs")) req.max_num_seqs = f.seqs;
  // TensorRT-LLM's names for those two (trtllm-serve --max_batch_size, --max_num_tokens);
  // resolve() refuses them with another engine. Left out, each is the engine's default.
  if (vm.count("max-batch-size")) req.engine_named.push_back({"--max-batch-size", f.batch_size});
  if (vm.count("max-num-tokens")) req.engine_named.push_back({"--max-num-tokens", f.num_tokens});
  if (vm.count("gpu-memory-utilization")) req.memory_fraction = f.util;
  if (vm.count("reserve-gib")) req.reserve_gib = f.reserve;
  if (vm.count("calibration")) req.calibration = f.calibration;
  req.names.context = "--max-model-len";
  req.names.tp = f.tp_flag;
  req.setting_names.max_model_len = "--max-model-len";
  req.setting_names.tp = f.tp_flag;
  if (const SimulateFlags::Side* s = f.side) {  // one side of a disaggregated run
    req.side_flag_prefix = "--" + s->name + "-";
    req.side_engine_options = s->engine_options;
    // The side's value replaces the shared one, under whichever name that was given
    // (TensorRT-LLM's --max-batch-size and --max-num-tokens included).
    const auto drop_named = [&](const char* flag) {
      std::erase_if(req.engine_named, [&](const auto& n) { return n.flag == flag; });
    };
    if (s->seqs_given) {
      drop_named("--max-batch-size");
      req.max_num_seqs = s->seqs;
      req.setting_names.max_num_seqs = req.side_flag_prefix + "max-num-seqs";
    }
    if (s->mnbt_given) {
      drop_named("--max-num-tokens");
      req.max_num_batched_tokens = s->mnbt;
      req.setting_names.max_num_batched_tokens = req.side_flag_prefix + "max-num-batched-tokens";
    }
    if (s->util_given) req.memory_fraction = s->util, req.side_memory_fraction = true;
  }
  return req;
}

// vLLM V1 and SGLang cache prefixes unless told not to; where kvplan does not model it (sliding
// or recurrent groups, evicting policies) the default is off, with a note.
bool prefix_caching(const po::variables_map& vm, const ModelSpec& m, const PlanInput& in,
                    const std::string& command) {
  if (vm.count("enable-prefix-caching") && vm.count("no-enable-prefix-caching"))
    throw Error("--no-enable-prefix-caching", "no-enable-prefix-caching",
                "give --enable-prefix-caching or --no-enable-prefix-caching, not both");
  if (vm.count("enable-prefix-caching")) return true;
  if (vm.count("no-enable-prefix-caching")) return false;
  const std::string why = sim::prefix_caching_unmodelled(m, in);
  if (!why.empty() && !quiet() && !command.empty())
    std::cerr << "kvplan " << command << ": note: " << why << ": simulated without it\n";
  return why.empty();
}

// The CPU tier for evicted prefix blocks, --cpu-offload-gib at --cpu-offload-gbps.
void apply_cpu_offload(const SimulateFlags& f, const po::variables_map& vm,
                       sim::ServingConfig& cfg) {
  if (vm.count("cpu-offload-gib")) {
    cfg.cpu_offload_bytes = parse_gib(f.offload_gib, "--cpu-offload-gib", "cpu-offload-gib");
    cfg.cpu_offload_gbps = sim::parse_offload_gbps(f.offload_gbps, "--cpu-offload-gbps");
    if (cfg.cpu_offload_bytes > 0 && !cfg.enable_prefix_caching)
      throw Error("--cpu-offload-gib", "cpu-offload-gib",
                  "the CPU tier holds evicted prefix blocks: it needs prefix caching");
  } else if (!vm["cpu-offload-gbps"].defaulted()) {
    throw Error("--cpu-offload-gbps", "cpu-offload-gbps",
                "is the CPU tier's bandwidth: it needs --cpu-offload-gib");
  }
}

// The scheduler's configuration: the resolved plan and the scheduler's own flags.
sim::ServingConfig serving_config(const SimulateFlags& f, const po::variables_map& vm,
                                  const ResolvedDeployment& resolved) {
  sim::check_simulated_engine(resolved.deploy.plan.engine, "--engine");  // named by flag
  sim::ServingConfig cfg =
      sim::serving_config_of(resolved.deploy.plan, resolved.deploy.max_num_seqs);
  PlanInput& in = cfg.plan;
  // The fraction the pool is sized with, stated in the report (SGLang's depends on the model).
  if (!in.memory_fraction_ppm)
    in.memory_fraction_ppm = memory_budget(resolved.deploy.model, in).fraction_ppm;
  if (vm.count("capacity-scheduler-policy"))
    cfg.capacity_policy =
        sim::parse_capacity_policy(f.capacity_policy, "--capacity-scheduler-policy");
  cfg.enable_chunked_context = vm.count("enable-chunked-context") > 0;
  cfg.enable_prefix_caching =
      prefix_caching(vm, resolved.deploy.model, in, f.notes ? f.command : std::string());
  apply_cpu_offload(f, vm, cfg);
  if (vm.count("acceptance-rate")) {
    if (!in.vllm().spec_acceptance.empty())
      throw Error("--acceptance-rate", "acceptance-rate",
                  "give --acceptance-rate or --engine-option acceptance_rate, not both");
    const std::uint32_t k = in.vllm().num_speculative_tokens;
    in.edit_vllm().spec_acceptance =
        parse_spec_acceptance(f.acceptance, k, "--acceptance-rate", "acceptance-rate");
  }
  if (const std::string why = sim::speculative_decoding_unmodelled(in);
      !why.empty() && !quiet() && f.notes)
    std::cerr << "kvplan " << f.command << ": note: " << why << "\n";
  return cfg;
}

// The deployment the flags describe, resolved and refused as plan and check refuse it, with its
// scheduler, SLO and step timer: what simulate and sweep both run.
struct ServingRun {
  ResolvedDeployment resolved;
  sim::ServingConfig cfg;
  sim::SimOptions opt;
  std::optional<sim::StepModel> step;
  const ModelSpec& model() const { return resolved.deploy.model; }
  const GpuSpec& gpu() const { return *resolved.gpu; }
};

ServingRun serving_run(SimulateFlags& f, const po::variables_map& vm) {
  ServingRun r{.resolved = resolve(deployment_request(f, vm)), .cfg = {}, .opt = {}, .step = {}};
  // TensorRT-LLM's scheduler settings, refused with another engine before any refusal of the
  // deployment itself.
  for (const auto& [flag, setting] :
       {std::pair{"--capacity-scheduler-policy", sim::SchedulerSetting::capacity_policy},
        {"--enable-chunked-context", sim::SchedulerSetting::chunked_context},
        {"--acceptance-rate", sim::SchedulerSetting::speculative_decoding}})
    if (vm.count(flag + 2))
      sim::check_scheduler_setting(r.resolved.deploy.plan.engine, setting, flag);
  refuse_if_any(r.resolved);
  r.cfg = serving_config(f, vm, r.resolved);
  if (vm.count("slo")) r.opt.slo = sim::parse_latency_slo(f.slo, "--slo");
  const PlanInput& in = r.cfg.plan;
  sim::StepModelInput si = sim::step_model_input(r.gpu(), in, r.resolved.efficiency);
  si.measured_tables = vm.count("measured-moe") > 0;
  r.step.emplace(r.model(), r.gpu(), si, "--gpu");
  if (const std::string& moe = r.step->moe_source(); !moe.empty() && f.notes && !quiet())
    std::cerr << "kvplan " << f.command << ": note: MoE layers' step time: " << moe << "\n";
  return r;
}

// Writes the file a flag names, or fails naming it.
void write_file(const std::string& path, const char* flag, const char* what,
                const std::function<void(std::ostream&)>& write) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  write(file);
  file.close();
  if (!file) throw Error(path, flag, std::string("cannot write ") + what + " to this path");
}

// The report, the KV series and the request lines, each where its flag sends it.
void write_outputs(const sim::ServingReport& rep, double frontend_s, const SimulateFlags& f,
                   const SimulateOutputs& o, OutputFormat fmt, std::ostream& out) {
  const auto requests = [&](std::ostream& s) {
    sim::write_requests_jsonl(rep.result, frontend_s, s);
  };
  if (o.requests_stdout)  // --requests-out -: the requests are the output
    requests(out);
  else if (o.requests)
    write_file(f.requests_out, "requests-out", "the requests", requests);
  const auto series = [&](std::ostream& s) { s << sim::render_kv_series(rep.result); };
  if (o.series_stdout) {  // --kv-series -: the series is the output
    series(out);
    return;
  }
  if (o.series) write_file(f.series, "kv-series", "the KV usage series", series);
  if (o.requests_stdout) return;
  out << for_output(sim::render(rep, fmt), fmt);
}

// x prefill and y decode replicas, each side resolved with its own TP as simulate resolves one.
int run_disaggregated(SimulateFlags& f, const po::variables_map& vm, const SimulateOutputs& o,
                      OutputFormat fmt, std::ostream& out) {
  SimulateFlags pf = f, df = f;
  if (vm.count("prefill-tp")) pf.tp = f.prefill_tp, pf.tp_flag = "--prefill-tp";
  if (vm.count("decode-tp")) df.tp = f.decode_tp, df.tp_flag = "--decode-tp";
  mark_side_flags(vm, "prefill", f.prefill_side);
  mark_side_flags(vm, "decode", f.decode_side);
  pf.side = &f.prefill_side;
  df.side = &f.decode_side;
  df.notes = false;  // the prefill side's notes speak for both
  ServingRun p = serving_run(pf, vm), d = serving_run(df, vm);
  if (d.cfg.enable_prefix_caching && !quiet())
    std::cerr << "kvplan simulate: note: the decode side's prefix cache is not modelled: "
                 "simulated without it (the prefill side keeps it)\n";
  // Each side's MoE row (their tp may differ): the decode side's said where it is another.
  const std::string &prefill_moe = p.step->moe_source(), &decode_moe = d.step->moe_source();
  if (decode_moe != prefill_moe && !quiet())
    std::cerr << "kvplan simulate: note: the decode side's MoE layers' step time: " << decode_moe
              << "\n";
  DisaggLayout layout;  // each side's own settings are already in p and d
  layout.prefill_replicas = f.prefill_replicas;
  layout.decode_replicas = f.decode_replicas;
  layout.prefill_tp = static_cast<std::uint32_t>(pf.tp);
  layout.decode_tp = static_cast<std::uint32_t>(df.tp);
  layout.kv_link = f.kv_link;
  layout.routing = f.routing;
  layout.kv_link_latency_ms = f.link_latency_ms;
  layout.kv_transfer_overhead_ms = f.transfer_overhead_ms;
  const sim::DisaggConfig c = sim::disagg_config(
      p.cfg, d.cfg, d.gpu(), layout,
      {.source = "command line", .kv_link = "--kv-link", .routing = "--routing"});
  sim::check_disagg(c, "kvplan simulate");
  const sim::Workload w = sim::load_workload(f.workload, f.seed);
  Progress progress("requests");
  const std::uint64_t total = w.requests.size();
  p.opt.progress = [&](double x) { progress(static_cast<std::uint64_t>(x * total), total); };
  const sim::DisaggResult r = sim::simulate_disagg(p.model(), c, *p.step, *d.step, w, p.opt);
  sim::ServingReport rep{.model = p.model().id,
                         .gpu = d.gpu().id,
                         .engine = engine_rules(c.decode.plan).name(),
                         .workload = f.workload,
                         .seed = f.seed,
                         .replicas = f.prefill_replicas + f.decode_replicas,
                         .config = c.decode,
                         .slo = p.opt.slo,
                         .result = r.run,
                         .refused = {},
                         .disagg = sim::summarize_disagg(c, r),
                         .moe_step = {}};
  rep.refused = sim::refused_per_stage(w, rep.result);
  rep.moe_step = decode_moe == prefill_moe ? prefill_moe
                                           : "prefill: " + prefill_moe + "; decode: " + decode_moe;
  write_outputs(rep, p.step->frontend_s(), f, o, fmt, out);
  return 0;
}

int run_simulate(const std::vector<std::string>& args, std::ostream& out) {
  po::options_description desc("kvplan simulate options");
  SimulateFlags f;
  add_simulate_options(desc, f);
  po::variables_map vm;
  if (!parse_args(args, desc, vm, out,
                  "kvplan simulate --model M --gpu G --workload FILE [options]",
                  "kvplan simulate --model llama-3.1-8b --gpu h100-sxm-80gb --workload "
                  "examples/workload-chat.json --slo ttft_p99_ms=2000,tpot_p99_ms=50"))
    return 0;
  const auto fmt = parse_output_format(
      f.format, {OutputFormat::table, OutputFormat::json, OutputFormat::csv, OutputFormat::md});
  const SimulateOutputs outputs = check_outputs(f, vm);
  check_disagg_flags(vm);
  if (vm.count("prefill-replicas")) return run_disaggregated(f, vm, outputs, fmt, out);
  if (f.replicas == 0 || f.replicas > 1024)
    throw Error("--replicas", "replicas",
                "must be between 1 and 1024, got " + std::to_string(f.replicas));
  ServingRun run = serving_run(f, vm);
  const ModelSpec& m = run.model();
  const sim::ServingConfig& cfg = run.cfg;
  const PlanInput& in = cfg.plan;
  sim::SimOptions& opt = run.opt;
  const sim::StepModel& step = *run.step;
  const sim::Workload w = sim::load_workload(f.workload, f.seed);
  Progress progress("requests");
  const std::uint64_t total = w.requests.size();
  opt.progress = [&](double p) { progress(static_cast<std::uint64_t>(p * total), total); };
  const auto replicas = vm["replicas"].defaulted() ? sim::default_replicas(in)
                                                   : static_cast<std::uint32_t>(f.replicas);
  sim::ServingReport rep{.model = m.id,
                         .gpu = run.gpu().id,
                         .engine = engine_rules(in).name(),
                         .workload = f.workload,
                         .seed = f.seed,
                         .replicas = replicas,
                         .config = cfg,
                         .slo = opt.slo,
                         .result = sim::simulate_replicas(m, cfg, step, w, replicas, opt),
                         .refused = {},
                         .disagg = {},
                         .moe_step = {}};
  rep.refused = sim::refused_per_stage(w, rep.result);
  rep.moe_step = step.moe_source();
  write_outputs(rep, step.frontend_s(), f, outputs, fmt, out);
  return 0;
}

// sweep's own flags: the concurrencies, the lengths, the chart.
struct SweepFlags {
  std::string concurrency, svg;
  std::uint64_t isl = 0, osl = 0, per_client = 8;
  double range_ratio = 0;
};

void add_sweep_options(po::options_description& desc, SimulateFlags& f, SweepFlags& s) {
  add_serving_options(desc, f);
  desc.add_options()("concurrency", po::value(&s.concurrency)->required(),
                     "closed-loop clients at each point: 1,2,4,... or FIRST-LAST (the powers of "
                     "two from FIRST, then LAST)")(
      "isl", po::value(&s.isl), "prompt tokens of each request (with --osl; or --workload)")(
      "osl", po::value(&s.osl), "output tokens of each request")(
      "range-ratio", po::value(&s.range_ratio)->default_value(0),
      "with --isl/--osl: lengths uniform in [L(1-r), L(1+r)], as vLLM's random dataset draws")(
      "workload", po::value(&f.workload),
      "instead of --isl/--osl: a kvplan_workload JSON whose lengths (and think time) each "
      "point draws; its arrival is replaced by the closed loop")(
      "requests-per-client", po::value(&s.per_client)->default_value(8),
      "requests each client sends at each point")(
      "svg", po::value(&s.svg),
      "write the chart (tokens/s per GPU against tokens/s per user) as SVG to FILE ('-': "
      "standard output)")("format", po::value(&f.format)->default_value("table"),
                          "table|json|csv|md");
}

// One length: L tokens, or uniform in [L(1-r), L(1+r)] (docs/simulate.md, `range_ratio`).
sim::LengthDist sweep_length(std::uint64_t tokens, double ratio) {
  sim::LengthDist d = sim::fixed_tokens(static_cast<double>(tokens));
  if (ratio > 0) {
    d.dist = "uniform";
    d.range_ratio = ratio;
  }
  return d;
}

// The lengths each point draws: --workload's, or --isl/--osl; checked by the workload reader.
sim::WorkloadSpec sweep_lengths(const SimulateFlags& f, const SweepFlags& s,
                                const po::variables_map& vm) {
  const bool lengths = vm.count("isl") || vm.count("osl");
  if (vm.count("workload") && lengths)
    throw Error("--workload", "workload", "give --workload or --isl and --osl, not both");
  if (vm.count("workload")) return sim::load_workload_spec(f.workload);
  if (!vm.count("isl") || !vm.count("osl"))
    throw Error("--isl", "isl", "give --isl and --osl (tokens a request), or --workload FILE");
  sim::WorkloadSpec spec;
  spec.prompt = sweep_length(s.isl, s.range_ratio);
  spec.output = sweep_length(s.osl, s.range_ratio);
  spec.arrival = "closed";  // the reader checks the lengths as a closed loop's
  spec.concurrency = spec.requests = 1;
  sim::parse_workload_spec(sim::to_json(spec), "--isl/--osl");
  return spec;
}

// The deployments a sweep compares: each --gpu of a comma list on each --engine of one, in the
// order given (at most 16), every other flag the same.
std::vector<SimulateFlags> each_deployment(const SimulateFlags& f) {
  const auto gpus = split_list(f.gpu, "--gpu", "gpu");
  const auto engines = split_list(f.engine, "--engine", "engine");
  if (gpus.size() * engines.size() > 16)
    throw Error("--gpu", "gpu",
                std::to_string(gpus.size() * engines.size()) +
                    " deployments (GPUs x engines): a sweep compares at most 16");
  std::vector<SimulateFlags> out;
  for (const auto& gpu : gpus)
    for (const auto& engine : engines) {
      SimulateFlags one = f;
      one.gpu = gpu;
      one.engine = engine;
      out.push_back(one);
    }
  return out;
}

int run_sweep(const std::vector<std::string>& args, std::ostream& out) {
  po::options_description desc("kvplan sweep options");
  SimulateFlags f;
  f.command = "sweep";
  SweepFlags s;
  add_sweep_options(desc, f, s);
  po::variables_map vm;
  if (!parse_args(args, desc, vm, out,
                  "kvplan sweep --model M --gpu G[,G2...] [--engine E[,E2...]] --concurrency "
                  "LIST (--isl N --osl N | --workload FILE) [options]",
                  "kvplan sweep --model llama-3.1-8b --gpu h100-sxm-80gb --isl 1024 --osl 1024 "
                  "--concurrency 1-256 --slo tpot_p99_ms=50 --svg sweep.svg"))
    return 0;
  const auto fmt = parse_output_format(
      f.format, {OutputFormat::table, OutputFormat::json, OutputFormat::csv, OutputFormat::md});
  std::vector<std::string> inputs{f.workload, f.model, f.calibration};
  for (const auto& gpu : split_list(f.gpu, "--gpu", "gpu")) inputs.push_back(gpu);
  const bool svg_stdout = vm.count("svg") && check_output_path(s.svg, inputs, "--svg");
  const std::vector<std::uint64_t> clients =
      sim::parse_concurrency_list(s.concurrency, "--concurrency", "concurrency");
  if (s.per_client == 0 || s.per_client > 10000)
    throw Error("--requests-per-client", "requests-per-client",
                "must be between 1 and 10,000, got " + std::to_string(s.per_client));
  const sim::WorkloadSpec spec = sweep_lengths(f, s, vm);
  std::vector<sim::SweepResult> sweeps;
  for (const SimulateFlags& one : each_deployment(f)) {
    SimulateFlags g = one;
    const ServingRun run = serving_run(g, vm);
    const PlanInput& in = run.cfg.plan;
    const sim::SweepInput sweep_in{.concurrencies = clients,
                                   .requests_per_client = s.per_client,
                                   .gpus = sim::default_replica_gpus(in),
                                   .seed = f.seed};
    sweeps.push_back(sim::sweep(run.model(), run.cfg, *run.step, spec, sweep_in, run.opt));
  }
  const auto svg = [&](std::ostream& o) { o << sim::render_sweep_svg(sweeps); };
  if (svg_stdout) {  // --svg -: the chart is the output
    svg(out);
    return 0;
  }
  if (vm.count("svg")) write_file(s.svg, "svg", "the chart", svg);
  out << for_output(sim::render_sweeps(sweeps, fmt), fmt);
  return 0;
}

const Registrar reg{{"simulate",
                     "serving latency (TTFT, TPOT, ITL, E2E) and KV usage under a workload",
                     run_simulate}};

const Registrar sweep_reg{{"sweep",
                           "throughput per GPU against tokens/s per user over a concurrency sweep "
                           "(closed-loop clients)",
                           run_sweep}};

}  // namespace
}  // namespace kvplan::cli
