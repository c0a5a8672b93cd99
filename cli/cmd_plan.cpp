// kvplan plan: KV capacity of a serving deployment, GPU orders, what-if formats and policies.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <ostream>
#include <sstream>

#include "command.hpp"
#include "kvplan/engine_log.hpp"
#include "kvplan/error.hpp"
#include "kvplan/gpu.hpp"
#include "kvplan/kv_format.hpp"
#include "kvplan/planner.hpp"
#include "kvplan/policy.hpp"
#include "kvplan/report.hpp"
#include "kvplan/request.hpp"
#include "kvplan/sim/serving_report.hpp"
#include "kvplan/sim/slo_search.hpp"
#include "kvplan/sim/step_time.hpp"
#include "kvplan/sim/workload.hpp"
#include "kvplan/text_safe.hpp"
#include "kvplan/validate.hpp"

namespace kvplan::cli {
namespace {

// "h100-sxm-80gb=2.49" -> (id, price); throws Error naming --price.
std::pair<std::string, double> parse_price(const std::string& s) {
  const auto eq = s.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
    throw Error("--price", "price", "expected GPU=USD_PER_HOUR, got '" + s + "'");
  const std::string id = s.substr(0, eq), v = s.substr(eq + 1);
  std::size_t used = 0;
  double price = -1;
  try {
    price = std::stod(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != v.size() || !(price >= 0 && price <= 1e6))
    throw Error("--price", id, "expected a price in USD per GPU-hour, got '" + v + "'");
  return {id, price};
}

struct SloFlags {
  std::string workload, slo, gpu;
  std::uint64_t seed = 1, max_num_seqs = sim::kSloDefaultMaxNumSeqs, max_gpus = 64;
  // Disaggregated layouts (--disaggregated): the KV link and the routing (docs/disagg.md).
  std::string kv_link = "nvlink", routing = "round_robin";
  double link_latency_ms = 0, transfer_overhead_ms = 0;
};

// --disaggregated and its link: the link's spec is checked on each line's GPU by the search; the
// link flags without --disaggregated are refused.
void apply_disagg_flags(const po::variables_map& vm, const SloFlags& f, sim::SloSearchInput& s) {
  s.disaggregated = vm.count("disaggregated") > 0;
  for (const char* flag : {"kv-link", "kv-link-latency-ms", "kv-transfer-overhead-ms", "routing"})
    if (!s.disaggregated && !vm[flag].defaulted())
      throw Error(std::string("--") + flag, flag,
                  "is a disaggregated setting: it needs --disaggregated");
  sim::parse_routing(f.routing, "command line", "--routing");  // refused here, not per line
  s.layout.kv_link = f.kv_link;
  s.layout.routing = f.routing;
  s.layout.kv_link_latency_ms = f.link_latency_ms;
  s.layout.kv_transfer_overhead_ms = f.transfer_overhead_ms;
}

// plan --workload F --slo S: the search of sim/slo_search.hpp over the GPU presets (or --gpu's
// list) × TP 1, 2, 4, 8 (or --tp) × the model's dtype, fp8 and two KIVI what-ifs (or --kv-dtype) ×
// full (and --policy's), with the rest of the plan's flags as every candidate's engine settings.
int run_slo_plan(const ModelSpec& m, const PlanInput& in, const po::variables_map& vm,
                 const SloFlags& f, const std::vector<GpuSpec>& presets,
                 const std::optional<CalibratedEfficiency>& calibrated, OutputFormat fmt,
                 std::ostream& out) {
  if (!vm.count("workload") || !vm.count("slo"))
    throw Error(vm.count("slo") ? "--workload" : "--slo", vm.count("slo") ? "workload" : "slo",
                "SLO sizing needs both --workload FILE and --slo ttft_p99_ms=..,tpot_p99_ms=..");
  for (const char* flag : {"gpus", "gpu-memory-gib", "available-kv-gib", "concurrency", "pp"})
    if (vm.count(flag) && !vm[flag].defaulted())
      throw Error("--" + std::string(flag), flag,
                  "does not apply to SLO sizing (the search picks the GPUs; --max-gpus caps them)");
  if (f.max_gpus == 0 || f.max_gpus > 4096)
    throw Error("--max-gpus", "max-gpus",
                "must be between 1 and 4096, got " + std::to_string(f.max_gpus));
  sim::check_simulated_engine(in.engine, "--engine");  // slo_search's own check, named by flag
  sim::SloSearchInput s;
  s.slo = sim::parse_latency_slo(f.slo, "--slo");
  s.base.plan = in;
  s.base.max_num_seqs = f.max_num_seqs;
  s.base.max_num_batched_tokens = in.max_num_batched_tokens;
  s.engine_default_batched_tokens = !vm.count("max-num-batched-tokens");
  // vLLM V1 and SGLang cache prefixes by default; lines where kvplan does not model it (sliding
  // or recurrent groups, an evicting policy) run without it. --no-enable-prefix-caching: none.
  s.base.enable_prefix_caching = !vm.count("no-enable-prefix-caching");
  s.max_gpus = static_cast<std::uint32_t>(f.max_gpus);
  apply_disagg_flags(vm, f, s);
  std::vector<GpuSpec> gpus;
  if (vm.count("gpu")) {
    for (const auto& id : split_list(f.gpu, "--gpu", "gpu")) {
      GpuSpec g = load_gpu(id);
      for (const auto& p : presets)
        if (p.id == g.id) g.price_per_hour = p.price_per_hour;
      gpus.push_back(g);
    }
  } else {
    gpus = presets;
  }
  std::vector<std::uint32_t> tps = {1, 2, 4, 8};
  if (!vm["tp"].defaulted()) tps = {in.tp};
  std::vector<KvFormat> formats;
  if (vm.count("kv-dtype")) {
    formats = {in.format};
  } else {  // in.format is the model's dtype (default_kv_format)
    formats = {in.format};
    for (const char* spec :
         {"fp8", "kivi:bits=4,group=32,residual=128", "kivi:bits=2,group=32,residual=128"})
      formats.push_back(parse_kv_format(spec));
  }
  std::vector<RetentionPolicy> policies = {RetentionPolicy{}};
  if (!vm["policy"].defaulted() && !is_full(in.policy)) policies.push_back(in.policy);
  s.lines = sim::slo_lines(m, gpus, tps, formats, policies);
  s.measured_tables = vm.count("measured-moe") > 0;
  s.calibrated = calibrated;  // its step-time fields over each GPU's defaults
  const sim::Workload w = sim::load_workload(f.workload, f.seed);
  Progress progress("lines");
  s.progress = [&](std::uint64_t d, std::uint64_t t) { progress(d, t); };
  const auto t0 = std::chrono::steady_clock::now();
  const auto rows = sim::slo_search(m, w, s);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!quiet())
    std::cerr << "kvplan plan: searched " << s.lines.size() << " configurations in "
              << static_cast<int>(secs * 10 + 0.5) / 10.0 << " s\n";
  out << for_output(sim::render_slo_search(rows, s.slo, fmt), fmt);
  return 0;
}

// The flags of kvplan plan, as parsed.
struct PlanFlags {
  std::string model, gpu, engine, kv, policy, format, util, weight, reserve, avail, mem_gib,
      calibration, prices_file;
  std::uint64_t context = 0, concurrency = 1, mnbt = kDefaultMaxNumBatchedTokens;
  std::uint64_t gpus = 0, tp = 1, pp = 1, block = 0, draft = 0;
  std::vector<std::string> prices;
  SloFlags slo;
  std::vector<std::string> engine_options;
};

po::options_description plan_options(PlanFlags& f) {
  po::options_description desc("kvplan plan options");
  const std::string kv_help = kv_format_help(
      "default: the model's dtype, or --weight-dtype's; SLO sizing without it compares the "
      "model's dtype, fp8 and two KIVI formats");
  const std::string policies = policy_help();
  auto& [model, gpu, engine, kv, policy, format, util, weight, reserve, avail, mem_gib, calibration,
         prices_file, context, concurrency, mnbt, gpus, tp, pp, block, draft, prices, slo,
         engine_options] = f;
  desc.add_options()("model,m", po::value(&model)->required(),
                     "preset id, HF config.json or kvplan model JSON; a comma-separated list "
                     "a,b,c plans each model in turn (JSON: an array of the reports)")(
      "gpu", po::value(&gpu),
      "GPU preset id or GPU JSON file (kvplan gpus); a comma-separated list a,b,c: the plan "
      "runs on the first, the order table and the Fix consider these GPUs only")(
      "gpu-memory-gib", po::value(&mem_gib), "GPU memory in GiB instead of --gpu")(
      "available-kv-gib", po::value(&avail),
      "measured \"Available KV cache memory\" per GPU (GiB): skips the memory model")(
      "engine", po::value(&engine)->default_value("vllm"),
      "vllm|vllm@0.25|vllm@0.19|vllm@0.10|vllm@0.9|sglang|trtllm: whose arithmetic (vllm@0.25: "
      "dense models on Model Runner V2; vllm@0.19: vLLM 0.17 - 0.19's memory; vllm@0.10: 0.10's, "
      "NCCL inside non-torch; vllm@0.9: the older vLLM rules)")(
      "gpus", po::value(&gpus), "GPUs in all (replicas = gpus / (tp·pp)); default tp·pp")(
      "tp", po::value(&tp)->default_value(1), "tensor-parallel size")(
      "engine-option", po::value(&engine_options)->composing(),
      "KEY=VALUE, repeatable: the engine's own setting with a deployment file's key "
      "(num_gpu_blocks_override=4000, swa_full_tokens_ratio=0.5, backend=tensorrt, "
      "max_attention_window=[128,8192]; docs/deploy.md)")("enable-expert-parallel",
                                                          kExpertParallelHelp)(
      "draft-layers", po::value(&draft)->default_value(0),
      "speculative layers holding a cache (MTP layers, EAGLE draft layers)")(
      "pp", po::value(&pp)->default_value(1), "pipeline-parallel size")(
      "context,n", po::value(&context), "tokens per request (max_model_len); default the model's")(
      "concurrency,B", po::value(&concurrency)->default_value(1), "requests in flight (SLO)")(
      "kv-dtype", po::value(&kv), kv_help.c_str())(
      "policy", po::value(&policy)->default_value("full"), policies.c_str())(
      "gpu-memory-utilization", po::value(&util),
      "fraction of memory (vLLM gpu_memory_utilization 0.9, SGLang mem_fraction_static from the "
      "GPU, "
      "TRT-LLM free_gpu_memory_fraction 0.9)")(
      "block-size", po::value(&block), "tokens per page (default: vLLM 16, SGLang 1, TRT-LLM 32)")(
      "max-num-batched-tokens", po::value(&mnbt),
      "tokens per step (default: the engine's on this GPU; vLLM 8192 on >= 70 GiB GPUs other "
      "than A100s, else 2048)")("weight-dtype", po::value(&weight),
                                "fp32|fp16|bf16|fp8|int8|int4 (default: the model's)")(
      "calibration", po::value(&calibration),
      "a calibration file (kvplan explain --calibrate): its measured reserve (and, for SLO "
      "sizing, its step-time efficiency)")(
      "reserve-gib", po::value(&reserve),
      "GiB per GPU for activations, CUDA graphs, runtime (default 2 for vLLM/TRT-LLM, 0 SGLang)")(
      "price", po::value(&prices)->composing(), "GPU=USD per GPU-hour, repeatable (over --prices)")(
      "prices", po::value(&prices_file),
      "a price file, CSV (gpu,usd_per_hour,date,source) or JSON (docs/plan.md; "
      "examples/prices.csv)")("brief", "capacity only: no order table, no what-if table")(
      "workload", po::value(&slo.workload),
      "SLO sizing: a kvplan_workload JSON or trace the deployment must serve (with --slo)")(
      "slo", po::value(&slo.slo),
      "SLO sizing: ttft_p99_ms=MS,tpot_p99_ms=MS,e2e_p99_ms=MS (with --workload)")(
      "seed", po::value(&slo.seed)->default_value(1), "SLO sizing: workload seed")(
      "max-num-seqs", po::value(&slo.max_num_seqs)->default_value(sim::kSloDefaultMaxNumSeqs),
      "requests per step per replica at most: the SLO search's cap, default 256; otherwise the "
      "engine's max_num_seqs (vLLM --max-num-seqs, SGLang --max-running-requests, TensorRT-LLM "
      "--max_batch_size, which sizes a hybrid model's state slots), default the engine's")(
      "max-gpus", po::value(&slo.max_gpus)->default_value(64),
      "SLO sizing: GPUs in all per configuration at most")(
      "no-enable-prefix-caching", "SLO sizing: simulate without prefix caching")(
      "measured-moe",
      "SLO sizing: cost MoE layers with kvplan's measured per-operation tables, as simulate "
      "--measured-moe (docs/simulate-step-time.md)")(
      "disaggregated", "SLO sizing: search xPyD prefill/decode layouts too (docs/disagg.md)")(
      "kv-link", po::value(&slo.kv_link)->default_value("nvlink"),
      "SLO sizing, disaggregated: nvlink|ndr400|xdr800|GB/s per GPU")(
      "kv-link-latency-ms", po::value(&slo.link_latency_ms)->default_value(0),
      "SLO sizing, disaggregated: latency per transfer")(
      "kv-transfer-overhead-ms", po::value(&slo.transfer_overhead_ms)->default_value(0),
      "SLO sizing, disaggregated: the transfer library's overhead per request")(
      "routing", po::value(&slo.routing)->default_value("round_robin"),
      "SLO sizing, disaggregated: round_robin|least_loaded|prefix_aware")(
      "format", po::value(&format)->default_value("table"), "table|json|md");
  return desc;
}

// The request the flags state (SLO sizing searches the GPUs itself: no GPU in the request).
DeploymentRequest plan_request(const PlanFlags& f, const po::variables_map& vm, bool slo_mode) {
  DeploymentRequest req;
  req.model = f.model;
  if (!slo_mode && vm.count("gpu")) req.gpu = split_list(f.gpu, "--gpu", "gpu").front();
  if (vm.count("gpu-memory-gib")) req.gpu_memory_gib = f.mem_gib;
  if (vm.count("available-kv-gib")) req.available_kv_gib = f.avail;
  req.engine = f.engine;
  req.engine_options = with_expert_parallel(vm, f.engine_options);
  // Given (an empty one refused here, not taken for the default), else the model's dtype.
  if (vm.count("kv-dtype")) req.kv_dtype = to_string(parse_kv_format(f.kv));
  req.policy = f.policy;
  req.tp = f.tp;
  req.pp = f.pp;
  req.draft_layers = f.draft;
  if (vm.count("gpus")) req.gpus = f.gpus;
  if (vm.count("block-size")) req.block_size = f.block;
  if (vm.count("context")) req.context = f.context;
  req.concurrency = f.concurrency;
  if (vm.count("max-num-batched-tokens")) req.max_num_batched_tokens = f.mnbt;
  // The SLO search's per-replica cap; otherwise, when given, the engine's max_num_seqs.
  if (slo_mode || !vm["max-num-seqs"].defaulted()) req.max_num_seqs = f.slo.max_num_seqs;
  if (vm.count("gpu-memory-utilization")) req.memory_fraction = f.util;
  if (vm.count("weight-dtype")) req.weight_dtype = f.weight;
  if (vm.count("reserve-gib")) req.reserve_gib = f.reserve;
  if (vm.count("calibration")) req.calibration = f.calibration;
  req.require_memory = !slo_mode;
  req.launch_sets_max_num_seqs = !slo_mode;
  return req;
}

// The GPUs a price may name: the presets and the GPUs --gpu lists (files included).
struct KnownGpus {
  std::vector<GpuSpec> gpus;
  std::vector<std::string> listed;      // --gpu a,b,c outside SLO sizing: the order's GPUs
  std::vector<std::string> listed_ids;  // each listed GPU's id (a file's own id, not its path)
};

// Adds the GPUs --gpu lists to the presets (a file's GPU by its own id).
KnownGpus listed_gpus(const PlanFlags& f, const po::variables_map& vm,
                      const ResolvedDeployment& resolved, bool slo_mode) {
  KnownGpus r;
  r.gpus = list_gpu_presets();
  if (vm.count("gpu") && !slo_mode) r.listed = split_list(f.gpu, "--gpu", "gpu");
  const auto has = [&](const std::string& id) {
    return std::any_of(r.gpus.begin(), r.gpus.end(), [&](auto& p) { return p.id == id; });
  };
  for (const auto& id : r.listed) {
    const bool preset = has(id);
    GpuSpec one = preset                                   ? GpuSpec{}
                  : id == r.listed.front() && resolved.gpu ? *resolved.gpu
                                                           : load_gpu(id);
    if (preset) one.id = id;
    r.listed_ids.push_back(one.id);
    if (!has(one.id)) r.gpus.push_back(one);
  }
  return r;
}

// --prices FILE, then each --price GPU=USD over it.
void apply_price_flags(const PlanFlags& f, const po::variables_map& vm,
                       std::vector<GpuSpec>& gpus) {
  if (vm.count("prices")) apply_prices(gpus, load_prices(f.prices_file), f.prices_file);
  for (const auto& p : f.prices) {
    const auto [id, price] = parse_price(p);
    bool found = false;
    for (auto& g : gpus)
      if (g.id == id) {
        g.price_per_hour = price, found = true;
        g.price_date.clear();
        g.price_source.clear();
      }
    if (!found) throw Error("--price", id, "unknown GPU \"" + id + "\" (see kvplan gpus)");
  }
}

GpuSpec gpu_by_id(const std::vector<GpuSpec>& gpus, const std::string& id) {
  for (const auto& p : gpus)
    if (p.id == id) return p;
  throw Error(ErrorKind::internal, "--gpu", "gpu", "GPU \"" + id + "\" was not loaded");
}

void refuse_slo_only_flags(const po::variables_map& vm) {
  for (const char* flag :
       {"seed", "max-gpus", "kv-link", "kv-link-latency-ms", "kv-transfer-overhead-ms", "routing"})
    if (!vm[flag].defaulted())
      throw Error("--" + std::string(flag), flag, "applies to SLO sizing (--workload, --slo)");
  for (const char* flag : {"no-enable-prefix-caching", "disaggregated", "measured-moe"})
    if (vm.count(flag))
      throw Error("--" + std::string(flag), flag, "applies to SLO sizing (--workload, --slo)");
}

// The plan's GPU with its price; none for --gpu-memory-gib alone (no GPU to order).
std::optional<GpuSpec> priced_plan_gpu(const po::variables_map& vm,
                                       const ResolvedDeployment& resolved,
                                       const std::vector<GpuSpec>& gpus) {
  std::optional<GpuSpec> g;
  if (!vm.count("gpu")) return g;
  g = resolved.gpu;
  for (const auto& p : gpus)
    if (p.id == g->id) {
      g->price_per_hour = p.price_per_hour;
      g->price_date = p.price_date;
      g->price_source = p.price_source;
    }
  return g;
}

// The order table compares GPU types by the memory model; a measured KV size is one GPU's.
// --gpu a,b,c: those GPUs; otherwise every preset and the plan's GPU.
std::vector<GpuSpec> order_gpus(const KnownGpus& known, const std::optional<GpuSpec>& g) {
  std::vector<GpuSpec> order;
  const auto ordered = [&](const std::string& id) {
    return std::any_of(order.begin(), order.end(), [&](auto& p) { return p.id == id; });
  };
  if (known.listed.size() > 1) {
    for (const auto& id : known.listed_ids) {
      GpuSpec o = id == known.listed_ids.front() ? *g : gpu_by_id(known.gpus, id);
      if (!ordered(o.id)) order.push_back(o);
    }
    return order;
  }
  order = list_gpu_presets();
  for (auto& o : order) o = gpu_by_id(known.gpus, o.id);
  if (g && !ordered(g->id)) order.push_back(*g);
  return order;
}

// The plan of one model: its report (or SLO search) on `out`.
int plan_one(PlanFlags& f, const po::variables_map& vm, OutputFormat fmt, std::ostream& out) {
  const bool slo_mode = vm.count("workload") || vm.count("slo");
  const ResolvedDeployment resolved = resolve(plan_request(f, vm, slo_mode));
  refuse_if_any(resolved);
  const ModelSpec& m = resolved.deploy.model;
  const PlanInput& in = resolved.deploy.plan;
  KnownGpus known = listed_gpus(f, vm, resolved, slo_mode);
  apply_price_flags(f, vm, known.gpus);
  if (slo_mode) {
    f.slo.gpu = f.gpu;
    return run_slo_plan(m, in, vm, f.slo, known.gpus, resolved.efficiency, fmt, out);
  }
  refuse_slo_only_flags(vm);
  const std::optional<GpuSpec> g = priced_plan_gpu(vm, resolved, known.gpus);
  const bool brief = vm.count("brief") > 0;
  const std::vector<GpuSpec> order = brief ? std::vector<GpuSpec>{} : order_gpus(known, g);
  out << for_output(
      render(make_plan_report(m, g, in, order, !brief && (g || in.available_kv_bytes), "arguments"),
             fmt),
      fmt);
  return 0;
}

// --model a,b,c: the models in turn. A name that is a file is one model, commas and all.
std::vector<std::string> model_list(const std::string& s) {
  std::error_code ec;
  if (s.find(',') == std::string::npos || std::filesystem::exists(s, ec)) return {s};
  return split_list(s, "--model", "model");
}

int run_plan(const std::vector<std::string>& args, std::ostream& out) {
  PlanFlags f;
  const po::options_description desc = plan_options(f);
  po::variables_map vm;
  if (!parse_args(args, desc, vm, out,
                  "kvplan plan --model M[,M2,...] (--gpu G | --available-kv-gib X) [options]\n"
                  "       kvplan plan --model M --workload FILE --slo ttft_p99_ms=MS,... "
                  "[--gpu a,b,...] [options]",
                  "kvplan plan --model llama-3.1-8b --gpu h100-sxm-80gb,h200-141gb --context "
                  "32768 --concurrency 64 --kv-dtype fp8 --prices examples/prices.csv"))
    return 0;
  const auto fmt =
      parse_output_format(f.format, {OutputFormat::table, OutputFormat::json, OutputFormat::md});
  const std::vector<std::string> models = model_list(f.model);
  if (models.size() == 1) return plan_one(f, vm, fmt, out);
  // Every model is resolved and planned before anything is printed: a bad one exits 2 alone.
  std::vector<std::string> reports;
  for (const std::string& id : models) {
    f.model = id;
    std::ostringstream one;
    plan_one(f, vm, fmt, one);
    reports.push_back(one.str());
  }
  if (fmt == OutputFormat::json) {
    out << "[\n";
    for (std::size_t i = 0; i < reports.size(); ++i) {
      std::string r = reports[i];
      while (!r.empty() && r.back() == '\n') r.pop_back();
      out << r << (i + 1 < reports.size() ? ",\n" : "\n");
    }
    out << "]\n";
    return 0;
  }
  for (std::size_t i = 0; i < reports.size(); ++i)
    out << (i ? "\n" : "") << (fmt == OutputFormat::md ? "## " : "== ") << models[i]
        << (fmt == OutputFormat::md ? "\n\n" : " ==\n") << reports[i];
  return 0;
}

const Registrar reg{
    {"plan", "capacity of a deployment: concurrency, context, GPU orders, what-if", run_plan}};

}  // namespace
}  // namespace kvplan::cli
