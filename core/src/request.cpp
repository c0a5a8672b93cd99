#include "kvplan/request.hpp"

#include <algorithm>

#include "deploy_slo.hpp"
#include "kvplan/engine_rules.hpp"
#include "kvplan/error.hpp"
#include "kvplan/kv_format.hpp"
#include "kvplan/model.hpp"
#include "kvplan/policy.hpp"
#include "kvplan/text_safe.hpp"
#include "kvplan/validate.hpp"

namespace kvplan {
namespace {

constexpr std::uint64_t kMaxNumSeqs = 1'000'000;

std::optional<GpuSpec> request_gpu(const DeploymentRequest& r) {
  if (!r.gpu.empty() && r.gpu_memory_gib)
    throw Error("--gpu-memory-gib", "gpu-memory-gib", "give either --gpu or --gpu-memory-gib");
  if (!r.gpu.empty()) return load_gpu(r.gpu);
  if (!r.gpu_memory_gib) return std::nullopt;
  GpuSpec g;
  g.id = "custom";
  g.memory_bytes = parse_gib(*r.gpu_memory_gib, "--gpu-memory-gib", "gpu-memory-gib");
  return g;
}

void check_step_limits(const DeploymentRequest& r) {
  const std::string& mnbt = r.setting_names.max_num_batched_tokens;
  if (r.max_num_batched_tokens &&
      (*r.max_num_batched_tokens == 0 || *r.max_num_batched_tokens > kMaxContextTokens))
    throw Error(mnbt, mnbt.substr(2),
                "must be between 1 and " + std::to_string(kMaxContextTokens) + ", got " +
                    std::to_string(*r.max_num_batched_tokens));
  const std::string& seqs = r.setting_names.max_num_seqs;
  if (r.max_num_seqs && (*r.max_num_seqs == 0 || *r.max_num_seqs > kMaxNumSeqs))
    throw Error(seqs, seqs.substr(2),
                "must be between 1 and " + std::to_string(kMaxNumSeqs) + ", got " +
                    std::to_string(*r.max_num_seqs));
}

// Two spellings of one flag: '-' and '_' alike after the leading dashes.
bool same_flag(std::string a, std::string b) {
  std::replace(a.begin(), a.end(), '_', '-');
  std::replace(b.begin(), b.end(), '_', '-');
  return a == b;
}

// r with its engine-named settings (DeploymentRequest::engine_named) moved into the generic
// fields, each then named by the flag that gave it.
DeploymentRequest with_engine_named(DeploymentRequest r) {
  if (r.engine_named.empty()) return r;
  VllmRules version{};
  const EngineRules& rules = engine_rules(parse_engine(r.engine, "--engine", "engine", version));
  for (const auto& s : r.engine_named) {
    const std::string field = s.flag.substr(std::min<std::size_t>(2, s.flag.size()));
    auto take = [&](const std::string& own, std::optional<std::uint64_t>& value,
                    std::string& name) {
      if (!same_flag(s.flag, own)) return false;
      if (value) throw Error(s.flag, field, "give " + s.flag + " or " + name + ", not both");
      value = s.value;
      name = s.flag;
      return true;
    };
    const SettingsFields own = rules.settings_flag_names();
    if (take(own.max_num_seqs, r.max_num_seqs, r.setting_names.max_num_seqs) ||
        take(own.max_num_batched_tokens, r.max_num_batched_tokens,
             r.setting_names.max_num_batched_tokens))
      continue;
    std::string whose;
    for (const EngineRules* e : all_engine_rules()) {
      const SettingsFields n = e->settings_flag_names();
      if (same_flag(s.flag, n.max_num_seqs) || same_flag(s.flag, n.max_num_batched_tokens))
        whose = e->label() + "'s name for " +
                (same_flag(s.flag, n.max_num_seqs) ? "max_num_seqs" : "max_num_batched_tokens") +
                ": it needs --engine " + to_string(e->engine());
    }
    throw Error(s.flag, field, whose.empty() ? "is no engine's name for a setting" : "is " + whose);
  }
  return r;
}

// A model, a GPU and settings as plan, simulate and the GUI's form take them.
Deployment from_flags(const DeploymentRequest& given, std::optional<GpuSpec>& gpu) {
  const DeploymentRequest r = with_engine_named(given);
  Deployment d;
  d.source = "command line";
  d.model = load_model(r.model);
  d.name = d.model.id;
  d.setting_fields = r.setting_names;
  PlanInput& in = d.plan;
  set_engine(in, r.engine, "--engine", "engine");
  apply_engine_options(r.engine_options, in);
  if (!r.side_engine_options.empty())
    apply_engine_options(r.side_engine_options, in, r.side_flag_prefix + "engine-option");
  // No format given: what the engine's --kv-cache-dtype auto stores, the model's dtype (or the
  // --weight-dtype it is told to run in).
  in.format = r.kv_dtype.empty() ? default_kv_format(d.model, r.weight_dtype.value_or(""))
                                 : parse_kv_format(r.kv_dtype);
  in.policy = parse_policy(r.policy);
  in.context = r.context.value_or(d.model.max_context);
  if (in.context == 0)
    throw Error(r.names.context, r.names.context.substr(2),
                d.model.id + " has no max_context: give " + r.names.context);
  DeploymentShape shape{.tp = r.tp,
                        .pp = r.pp,
                        .gpus = r.gpus,
                        .block_size = r.block_size,
                        .context = in.context,
                        .concurrency = r.concurrency,
                        .draft_layers = r.draft_layers};
  throw_if_any("command line", validate_deployment_shape(shape, &d.model, r.names));
  check_step_limits(r);
  in.tp = static_cast<std::uint32_t>(r.tp);
  in.pp = static_cast<std::uint32_t>(r.pp);
  in.gpus = static_cast<std::uint32_t>(r.gpus.value_or(0));
  in.draft_layers = static_cast<std::uint32_t>(r.draft_layers);
  in.block_size = static_cast<std::uint32_t>(r.block_size.value_or(0));
  d.max_num_seqs = r.max_num_seqs;
  in.max_num_seqs = r.max_num_seqs;
  in.max_num_seqs_is_concurrency = r.launch_sets_max_num_seqs && !r.max_num_seqs;
  if (r.memory_fraction)
    in.memory_fraction_ppm = parse_fraction_ppm(
        *r.memory_fraction,
        r.side_memory_fraction ? r.side_flag_prefix + "gpu-memory-utilization"
                               : std::string("--gpu-memory-utilization"),
        r.side_memory_fraction ? r.side_flag_prefix.substr(2) + "gpu-memory-utilization"
                               : std::string("gpu-memory-utilization"));
  if (r.weight_dtype) {
    weight_bytes_per_param(*r.weight_dtype, "--weight-dtype", "weight-dtype");
    in.weight_dtype = *r.weight_dtype;
  }
  if (r.reserve_gib) in.reserve_bytes = parse_gib(*r.reserve_gib, "--reserve-gib", "reserve-gib");
  if (r.available_kv_gib) {
    // One figure, or one a rank ("3.18,20.5"): the least is the figure the memory table shows.
    const std::string& text = *r.available_kv_gib;
    if (text.find(',') == std::string::npos) {
      in.available_kv_bytes = parse_gib(text, "--available-kv-gib", "available-kv-gib");
    } else {
      std::vector<std::uint64_t> ranks;
      for (const auto& item : split_list(text, "--available-kv-gib", "available-kv-gib"))
        ranks.push_back(parse_gib(item, "--available-kv-gib", "available-kv-gib"));
      set_available_per_rank(in, std::move(ranks));
    }
  }
  gpu = request_gpu(r);
  if (gpu) {
    d.gpu = *gpu;
    in.gpu_memory_bytes = gpu->engine_memory_bytes();
    in.gpu_id = gpu->id;
  } else if (r.require_memory && !in.available_kv_bytes) {
    throw Error("command line", "gpu", "give --gpu, --gpu-memory-gib or --available-kv-gib");
  }
  // Not given: the engine's default for this GPU (vLLM: 2048 below 70 GiB, and on A100s).
  in.max_num_batched_tokens =
      r.max_num_batched_tokens.value_or(engine_rules(in).default_max_num_batched_tokens(in));
  d.slo.context = in.context;
  d.slo.concurrency = r.concurrency;
  if (r.slo) {
    d.slo = parse_slo_spec(*r.slo, "--slo");
    if (d.slo.context == 0) d.slo.context = in.context;
  }
  return d;
}

Deployment from_engine_command(const DeploymentRequest& r, std::optional<GpuSpec>& gpu) {
  const std::string src = "--" + to_string(r.command_engine);
  DeploymentShape flags;  // kvplan's own --gpus, before the command line's parallelism
  flags.gpus = r.gpus;
  throw_if_any("command line", validate_deployment_shape(flags, nullptr, cli_flag_names()));
  const EngineArgs a = parse_engine_command(r.command_engine, r.command_line, src);
  if (r.strict && !a.unknown.empty()) {
    std::string list;
    for (const auto& u : a.unknown) list += (list.empty() ? "" : ", ") + u;
    throw Error(src, a.unknown.front(), "unknown flags: " + list);
  }
  gpu = request_gpu(r);
  if (!gpu) throw Error("--gpu", "gpu", "give --gpu (or --gpu-memory-gib) with " + src);
  std::optional<Slo> slo;
  if (r.slo) slo = parse_slo_spec(*r.slo, "--slo");
  Deployment d = deploy_from_engine(a, *gpu, static_cast<std::uint32_t>(r.gpus.value_or(0)),
                                    r.model, src, slo);
  if (r.engine_version)  // ENGINE@VERSION: only an engine with versioned rules takes one
    set_engine(d.plan, to_string(r.command_engine) + "@" + *r.engine_version, "--vllm-version", "");
  return d;
}

Deployment from_deploy_file(const DeploymentRequest& r, std::optional<GpuSpec>& gpu) {
  for (auto [given, flag] : {std::pair{!r.gpu.empty(), "gpu"},
                             {r.gpu_memory_gib.has_value(), "gpu-memory-gib"},
                             {r.gpus.has_value(), "gpus"},
                             {!r.model.empty(), "model"},
                             {r.slo.has_value(), "slo"},
                             {r.workload.has_value(), "workload"}})
    if (given)
      throw Error("--" + std::string(flag), flag,
                  "applies to --vllm / --sglang / --trtllm; the deployment file says its own");
  Deployment d = load_deploy(r.path);
  gpu = d.gpu;
  return d;
}

Deployment from_form(const DeploymentRequest& r, std::optional<GpuSpec>& gpu) {
  if (!r.form) throw Error(ErrorKind::internal, "form", "deployment", "no deployment given");
  Deployment d = *r.form;
  if (d.source.empty()) d.source = "form";
  throw_if_any(d.source, validate_plan_input(&d.model, d.plan, r.names));
  gpu = d.gpu;
  if (d.slo.context == 0) d.slo.context = d.plan.context;
  if (d.slo.concurrency == 0) d.slo.concurrency = d.plan.concurrency;
  return d;
}

// --context / --concurrency over the source's SLO, then the rules that relate them.
void apply_slo_overrides(const DeploymentRequest& r, Deployment& d) {
  DeploymentShape flags;
  flags.context = r.slo_context;
  flags.concurrency = r.slo_concurrency;
  throw_if_any("command line", validate_deployment_shape(flags, nullptr, cli_flag_names()));
  if (r.slo_context) d.slo.context = *r.slo_context;
  if (r.slo_concurrency) d.slo.concurrency = *r.slo_concurrency;
  d.plan.concurrency = d.slo.concurrency;
  if (d.slo.mean_context && *d.slo.mean_context > d.slo.context)
    throw Error(r.slo ? "--slo" : d.source, "mean_context",
                std::to_string(*d.slo.mean_context) + " exceeds the SLO context " +
                    std::to_string(d.slo.context));
}

}  // namespace

ResolvedDeployment resolve(const DeploymentRequest& r) {
  if (!r.engine_named.empty() && r.source != DeploymentRequest::Source::flags)
    throw Error(r.engine_named.front().flag, "engine_named",
                "is a flag for a deployment given by flags; a deployment file or an engine "
                "command line states the engine's settings under its own keys");
  ResolvedDeployment out;
  switch (r.source) {
    case DeploymentRequest::Source::flags:
      out.deploy = from_flags(r, out.gpu);
      break;
    case DeploymentRequest::Source::engine_command:
      out.deploy = from_engine_command(r, out.gpu);
      break;
    case DeploymentRequest::Source::deploy_file:
      out.deploy = from_deploy_file(r, out.gpu);
      break;
    case DeploymentRequest::Source::form:
      out.deploy = from_form(r, out.gpu);
      break;
  }
  apply_slo_overrides(r, out.deploy);
  if (r.node_memory_gib) {
    out.deploy.node.memory_bytes =
        parse_gib(*r.node_memory_gib, "--node-memory-gib", "node-memory-gib");
    out.deploy.node.memory_source = "--node-memory-gib";
  }
  if (r.gpus_per_node) {
    if (*r.gpus_per_node == 0 || *r.gpus_per_node > 1024)
      throw Error("--gpus-per-node", "gpus-per-node",
                  "must be between 1 and 1024, got " + std::to_string(*r.gpus_per_node));
    out.deploy.node.gpus = static_cast<std::uint32_t>(*r.gpus_per_node);
  }
  if (r.source == DeploymentRequest::Source::engine_command ||
      r.source == DeploymentRequest::Source::flags) {
    // The latency limits of --slo run under --workload, as a deployment file's under its own.
    if (r.workload) {
      if (r.workload->empty()) throw Error("--workload", "workload", "must name a workload file");
      out.deploy.workload = out.deploy.workload_path = *r.workload;
    }
    detail::check_slo_workload(out.deploy.slo, out.deploy.workload, "command line", "--workload",
                               "--slo",
                               "give --workload: a kvplan_workload JSON or a request trace");
  }
  if (r.calibration) {
    const Calibration cal = load_calibration(*r.calibration);
    // Per-term corrections where the log printed its profile: kvplan's terms for this
    // deployment, corrected; else the one measured reserve (else the source's).
    // The corrections are deltas to kvplan's terms under the rules the log was explained by:
    // under another vLLM rule set a term means another thing (vllm@0.10's non-torch memory
    // holds NCCL, the later releases' does not), so the two must agree.
    const PlanInput& p = out.deploy.plan;
    if (cal.terms && p.engine == Engine::vllm && !cal.version.empty()) {
      const VllmRules measured =
          engine_rules(Engine::vllm).rules_of_log(cal.version, false).value_or(VllmRules::current);
      if (measured != p.vllm().rules)
        throw Error(*r.calibration, "/version",
                    "the per-term corrections were measured on a vLLM " + cal.version +
                        " log against " + to_string(Engine::vllm, measured) +
                        "'s terms; this plan uses " + to_string(Engine::vllm, p.vllm().rules) +
                        "'s: plan with --engine " + to_string(Engine::vllm, measured) +
                        ", or calibrate on a log of the release you plan for");
    }
    if (cal.terms)
      out.deploy.plan.memory_corrections = *cal.terms;
    else if (cal.reserve_bytes)
      out.deploy.plan.reserve_bytes = cal.reserve_bytes;
    out.efficiency = cal.efficiency;
  }
  out.refusals = engine_refusals(out.deploy);
  return out;
}

void refuse_if_any(const ResolvedDeployment& d, const std::string& source) {
  throw_if_any(source, as_problems(d.refusals));
}

}  // namespace kvplan
