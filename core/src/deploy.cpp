#include "kvplan/deploy.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "deploy_slo.hpp"
#include "json_read.hpp"
#include "kvplan/checked.hpp"
#include "kvplan/engine_rules.hpp"
#include "kvplan/error.hpp"
#include "kvplan/model_ref.hpp"
#include "kvplan/text_safe.hpp"
#include "kvplan/validate.hpp"
#include "spec_parse.hpp"

namespace kvplan {

namespace {

constexpr double kGiB = 1073741824.0;

std::uint64_t gib_to_bytes(double gib) {
  return static_cast<std::uint64_t>(std::floor(gib * kGiB));
}

// Re-throws an Error of a library call as one naming the deployment file and a pointer.
template <class F>
auto at_field(const std::string& source, const std::string& pointer, F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::invalid_input) throw;
    // Keep where the inner error was found (a model file's own field) after this file's field.
    // (Flag-style sources such as "--model" add nothing inside a file.)
    if (e.source() == source || e.source().rfind("--", 0) == 0)
      throw Error(source, pointer, e.message());
    std::string where = e.source();
    if (!e.field().empty()) where += (where.empty() ? "" : " ") + e.field();
    throw Error(source, pointer, where.empty() ? e.message() : "in " + where + ": " + e.message());
  }
}

// Checks what the planner would refuse (validate_deployment_shape), naming the fields of the
// file; `gpus_given` is false when /hardware/gpus defaulted to TP × PP.
// tp_field: the field that gave TP when it is not engine.tensor_parallel_size (a disaggregated
// layout's decode side).
void validate_parallelism(const Deployment& d, bool gpus_given, const std::string& tp_field = "") {
  const auto& p = d.plan;
  DeploymentShape shape{.tp = p.tp,
                        .pp = p.pp,
                        .context = p.context,
                        .concurrency = p.concurrency,
                        .draft_layers = p.draft_layers};
  if (gpus_given) shape.gpus = p.gpus;
  if (p.block_size) shape.block_size = p.block_size;
  ShapeFields names = deploy_file_names();
  if (!tp_field.empty()) names.tp = tp_field;
  throw_if_any(d.source, validate_deployment_shape(shape, &d.model, names));
}

}  // namespace

namespace {

ModelSpec read_deploy_model(detail::JsonObject& o, const std::string& source,
                            const std::string& base_dir) {
  const std::string model = o.str("model");
  return at_field(source, "/model", [&] {
    std::error_code ec;
    const auto rel = std::filesystem::path(base_dir) / model;
    if (!base_dir.empty() && std::filesystem::path(model).is_relative() &&
        std::filesystem::is_regular_file(rel, ec))
      return load_model(rel.string());
    return load_model(model);
  });
}

// "hardware": the GPU (a preset or its memory), its price, the GPUs in all. Returns whether
// "gpus" was given.
bool read_deploy_hardware(detail::JsonObject& o, const std::string& source, Deployment& d) {
  auto hw = o.object("hardware");
  const auto gpu_id = hw.opt_str("gpu");
  const auto mem_gib = hw.opt_number("gpu_memory_gib", 1, 16384);
  if (gpu_id && mem_gib)
    throw Error(source, "/hardware/gpu_memory_gib",
                "give either \"gpu\" or \"gpu_memory_gib\", not both");
  if (gpu_id) {
    d.gpu = at_field(source, "/hardware/gpu", [&] { return load_gpu(*gpu_id); });
  } else if (mem_gib) {
    d.gpu.id = "custom";
    d.gpu.name = "custom GPU";
    d.gpu.memory_bytes = gib_to_bytes(*mem_gib);
  } else {
    throw Error(source, "/hardware/gpu", "missing required field (or give \"gpu_memory_gib\")");
  }
  if (auto price = hw.opt_number("price_per_hour", 0, 1e6)) d.gpu.price_per_hour = *price;
  if (auto node = hw.opt_number("node_memory_gib", 1, 1 << 24)) {
    d.node.memory_bytes = gib_to_bytes(*node);
    d.node.memory_source = source + " /hardware/node_memory_gib";
  }
  if (auto per_node = hw.opt_uint("gpus_per_node", 1, 1024))
    d.node.gpus = static_cast<std::uint32_t>(*per_node);
  d.plan.gpus = static_cast<std::uint32_t>(hw.opt_uint("gpus", 1, kMaxGpus).value_or(0));
  hw.finish();
  return d.plan.gpus != 0;
}

// The engine's parallelism, max_model_len, max_num_seqs and memory fraction (its own key only).
void read_engine_shape(detail::JsonObject& en, const std::string& source, Deployment& d) {
  set_engine(d.plan, en.str("name"), source, "/engine/name");
  const EngineRules& rules = engine_rules(d.plan);
  d.plan.tp = static_cast<std::uint32_t>(en.opt_uint("tensor_parallel_size", 1, 4096).value_or(1));
  d.plan.pp =
      static_cast<std::uint32_t>(en.opt_uint("pipeline_parallel_size", 1, 4096).value_or(1));
  if (d.plan.gpus == 0) d.plan.gpus = d.plan.tp * d.plan.pp;
  d.plan.context =
      en.opt_uint("max_model_len", 1, std::uint64_t{1} << 40).value_or(d.model.max_context);
  if (d.plan.context == 0)
    throw Error(source, "/engine/max_model_len",
                "missing, and " + d.model.id + " has no max_context to default to");
  d.max_num_seqs = en.opt_uint("max_num_seqs", 1, std::uint64_t{1} << 32);
  d.setting_fields = {.max_model_len = "/engine/max_model_len",
                      .max_num_seqs = "/engine/max_num_seqs",
                      .max_num_batched_tokens = "/engine/max_num_batched_tokens",
                      .tp = "/engine/tensor_parallel_size"};
  for (const EngineRules* other : all_engine_rules()) {
    const std::string key = other->memory_fraction_key();
    if (other->engine() != d.plan.engine && key != rules.memory_fraction_key() && en.has(key))
      throw Error(source, en.pointer(key),
                  "is a " + other->name() + " setting; engine " + rules.name() + " uses \"" +
                      rules.memory_fraction_key() + "\"");
  }
  if (auto f = en.opt_number(rules.memory_fraction_key(), 0, 1))
    d.plan.memory_fraction_ppm =
        fraction_to_ppm(*f, source, en.pointer(rules.memory_fraction_key()));
}

// The engine's cache settings: block size, chunk, weights, Mamba, DCP, speculative layers,
// reserve, KV dtype.
void read_engine_cache(detail::JsonObject& en, const std::string& source, Deployment& d) {
  if (auto bs = en.opt_uint("block_size", 1, 1u << 20))
    d.plan.block_size = static_cast<std::uint32_t>(*bs);
  // 0 until the GPU is read: then the engine's default for it (load_deploy).
  d.plan.max_num_batched_tokens =
      en.opt_uint("max_num_batched_tokens", 1, std::uint64_t{1} << 40).value_or(0);
  if (auto w = en.opt_str("weight_dtype")) {
    weight_bytes_per_param(*w, source, en.pointer("weight_dtype"));
    d.plan.weight_dtype = *w;
  }
  if (auto eager = en.opt_bool("enforce_eager")) d.cuda_graphs = !*eager;
  d.plan.cuda_graphs = d.cuda_graphs;
  // Speculative layers holding a cache: MTP (num_nextn_predict_layers) or EAGLE draft layers.
  if (auto n = en.opt_uint("draft_layers", 0, 64))
    d.plan.draft_layers = static_cast<std::uint32_t>(*n);
  if (auto r = en.opt_number("reserve_gib", 0, 16384)) d.plan.reserve_bytes = gib_to_bytes(*r);
  // One figure, or one a rank in rank order (stage · tp + TP rank): vLLM sizes each worker by
  // its own (PlanInput::available_kv_bytes_per_rank).
  if (en.has("available_kv_gib") && en.raw("available_kv_gib").is_array()) {
    std::vector<std::uint64_t> ranks;
    for (double gib : en.numbers("available_kv_gib", 0, 16384, 4096, "figures (GiB per rank)"))
      ranks.push_back(gib_to_bytes(gib));
    set_available_per_rank(d.plan, std::move(ranks));
    check_available_per_rank(d.plan, source, en.pointer("available_kv_gib"));
  } else if (auto a = en.opt_number("available_kv_gib", 0, 16384)) {
    d.plan.available_kv_bytes = gib_to_bytes(*a);
  }
  const std::string kv = en.opt_str("kv_cache_dtype").value_or("auto");
  d.plan.format = engine_kv_format(d.plan.engine, kv, d.model, source, en.pointer("kv_cache_dtype"),
                                   "", d.gpu.id);
}

void read_deploy_compression(detail::JsonObject& o, const std::string& source, Deployment& d) {
  if (auto c = o.opt_object("compression")) {
    if (auto f = c->opt_str("kv_format"))
      d.plan.format = parse_kv_format(*f, source, c->pointer("kv_format"));
    if (auto p = c->opt_str("policy"))
      d.plan.policy = parse_policy(*p, source, c->pointer("policy"));
    c->finish();
  }
}

// vLLM's keys (engine_args.cpp reads the same settings from `vllm serve` flags).
void read_vllm_options(detail::JsonObject& en, const std::string& source, VllmOptions& o) {
  if (auto mode = en.opt_str("mamba_cache_mode"))
    o.mamba_cache_mode = parse_mamba_cache_mode(*mode, source, en.pointer("mamba_cache_mode"));
  if (auto off = en.opt_bool("disable_hybrid_kv_cache_manager"))
    o.disable_hybrid_kv_cache_manager = *off;
  if (auto runner = en.opt_str("model_runner")) {
    o.model_runner = parse_model_runner(*runner, source, en.pointer("model_runner"));
    check_model_runner(o, source, en.pointer("model_runner"));
  }
  if (auto k = en.opt_uint("num_speculative_tokens", 0, 1024))
    o.num_speculative_tokens = static_cast<std::uint32_t>(*k);
  if (auto h = en.opt_uint("extract_hidden_states", 0, 4096))
    o.extract_hidden_states = static_cast<std::uint32_t>(*h);
  // One server's --data-parallel-size (VllmOptions::data_parallel_size): its DP ranks share the
  // MoE layers; replicas beyond it are more servers. Absent: every replica is a DP rank of one
  // server, as kvplan's launch lines run them.
  if (auto n = en.opt_uint("data_parallel_size", 1, 4096))
    o.data_parallel_size = static_cast<std::uint32_t>(*n);
  if (auto on = en.opt_bool("async_scheduling")) o.async_scheduling = *on;
  // The drafts' acceptance, for the serving simulator (VllmOptions::spec_acceptance): one rate,
  // one a draft position, or "A1,...,Ak" as --engine-option gives it.
  if (en.has("acceptance_rate")) {
    const std::string at = en.pointer("acceptance_rate");
    const nlohmann::json& v = en.raw("acceptance_rate");
    const std::uint32_t k = o.num_speculative_tokens;
    if (v.is_string())
      o.spec_acceptance = parse_spec_acceptance(v.get<std::string>(), k, source, at);
    else if (v.is_number())
      o.spec_acceptance = spec_acceptance_of({v.get<double>()}, k, source, at);
    else if (v.is_array())
      o.spec_acceptance = spec_acceptance_of(
          en.numbers("acceptance_rate", 0, 1, 1024, "acceptance rates"), k, source, at);
    else
      throw Error(source, at,
                  "expected an acceptance rate, one a draft position, or \"A1,...,Ak\"");
  }
  o.num_gpu_blocks_override = en.opt_uint("num_gpu_blocks_override", 1, std::uint64_t{1} << 40);
  if (auto g = en.opt_uint("attn_group_size", 1, 1u << 20))
    o.attn_group_size = static_cast<std::uint32_t>(*g);
}

// SGLang's keys, as its server_args spell them (--swa-full-tokens-ratio ...).
void read_sglang_options(detail::JsonObject& en, const std::string& source, SglangOptions& o,
                         PlanInput& p) {
  if (auto r = en.opt_number("swa_full_tokens_ratio", 0, 1))
    o.swa_full_tokens_ratio_ppm = fraction_to_ppm(*r, source, en.pointer("swa_full_tokens_ratio"));
  if (auto off = en.opt_bool("disable_hybrid_swa_memory")) o.disable_hybrid_swa_memory = *off;
  // Mamba-state bytes per full-KV byte: above 0, at most 100 (engine_args.cpp's bound).
  if (auto r = en.opt_number("mamba_full_memory_ratio", 0, 100)) {
    if (!(*r > 0)) throw Error(source, en.pointer("mamba_full_memory_ratio"), "must be above 0");
    o.mamba_full_memory_ratio_ppm = static_cast<std::uint32_t>(std::llround(*r * 1e6));
  }
  o.max_mamba_cache_size = en.opt_uint("max_mamba_cache_size", 1, std::uint64_t{1} << 32);
  if (auto n = en.opt_uint("speculative_num_draft_tokens", 0, 1024))
    o.speculative_num_draft_tokens = static_cast<std::uint32_t>(*n);
  // The decode reserve's shape (SglangOptions): the algorithm as --speculative-algorithm names it.
  if (auto a = en.opt_str("speculative_algorithm")) o.speculative_algorithm = ascii_lower(*a);
  if (auto n = en.opt_uint("speculative_num_steps", 0, 1024))
    o.speculative_num_steps = static_cast<std::uint32_t>(*n);
  if (auto n = en.opt_uint("speculative_eagle_topk", 0, 1024))
    o.speculative_eagle_topk = static_cast<std::uint32_t>(*n);
  // 0 and 1 both mean every loop (SchedulerRecvSkipper.maybe_create: none at <= 1).
  if (auto n = en.opt_uint("scheduler_recv_interval", 0, 1u << 20))
    o.scheduler_recv_interval = static_cast<std::uint32_t>(std::max<std::uint64_t>(*n, 1));
  if (auto off = en.opt_bool("disable_overlap_schedule")) o.disable_overlap_schedule = *off;
  if (auto off = en.opt_bool("disable_radix_cache")) o.disable_radix_cache = *off;
  if (auto on = en.opt_bool("enable_linear_replayssm_spec")) o.linear_replayssm_spec = *on;
  if (auto n = en.opt_uint("linear_replayssm_cache_len", 1, 1u << 20))
    o.linear_replayssm_cache_len = static_cast<std::uint32_t>(*n);
  if (auto m = en.opt_str("disaggregation_mode"))
    o.disaggregation_mode =
        parse_sglang_disaggregation_mode(*m, source, en.pointer("disaggregation_mode"));
  if (auto n = en.opt_uint("disaggregation_decode_extra_slots", 0, std::uint64_t{1} << 20))
    o.disaggregation_decode_extra_slots = *n;
  if (auto on = en.opt_bool("disaggregation_decode_enable_radix_cache"))
    o.disaggregation_decode_enable_radix_cache = *on;
  if (auto s = en.opt_str("mamba_radix_cache_strategy"))
    o.mamba_radix_cache_strategy =
        parse_sglang_mamba_strategy(*s, source, en.pointer("mamba_radix_cache_strategy"));
  if (auto t = en.opt_uint("max_total_tokens", 1, std::uint64_t{1} << 40)) p.max_total_tokens = t;
}

// TensorRT-LLM's keys: the backend, kv_cache_config.max_attention_window and max_tokens.
void read_trtllm_options(detail::JsonObject& en, const std::string& source, TrtllmOptions& o,
                         PlanInput& p) {
  if (auto b = en.opt_str("backend"))
    o.backend = parse_trtllm_backend(*b, source, en.pointer("backend"));
  // Windows in tokens, repeated over the layers as TensorRT-LLM repeats them.
  if (en.has("max_attention_window"))
    o.max_attention_window = en.uints("max_attention_window", 1, std::uint64_t{1} << 40, 4096,
                                      "windows (tokens, repeated over the layers)");
  if (auto t = en.opt_uint("max_tokens", 1, std::uint64_t{1} << 40)) p.max_total_tokens = t;
  // kv_cache_config.max_gpu_total_bytes: the pool's bytes per rank instead of the fraction; 0 is
  // TensorRT-LLM's "not set".
  if (auto b = en.opt_uint("max_gpu_total_bytes", 0, std::uint64_t{1} << 50))
    o.max_gpu_total_bytes = *b > 0 ? b : std::nullopt;
  // A hybrid Mamba model's manager: use_kv_cache_manager_v2 true, false or "auto" (unset).
  if (en.has("use_kv_cache_manager_v2")) {
    const nlohmann::json& v = en.raw("use_kv_cache_manager_v2");
    if (v.is_boolean())
      o.kv_cache_manager_v2 = v.get<bool>();
    else if (!(v.is_string() && v.get<std::string>() == "auto"))
      throw Error(source, en.pointer("use_kv_cache_manager_v2"),
                  "expected true, false or \"auto\", got " + detail::show(v));
  }
  if (auto n = en.opt_uint("avg_seq_len", 1, std::uint64_t{1} << 40)) o.avg_seq_len = n;
  // attention_dp_config (TrtllmOptions::adp_enable_balance).
  if (auto on = en.opt_bool("attention_dp_enable_balance")) o.adp_enable_balance = *on;
  if (auto n = en.opt_uint("attention_dp_timeout_iters", 0, 1u << 20))
    o.adp_timeout_iters = static_cast<std::uint32_t>(*n);
  if (auto n = en.opt_uint("attention_dp_batching_wait_iters", 0, 1u << 20))
    o.adp_batching_wait_iters = static_cast<std::uint32_t>(*n);
  // A hybrid Mamba model's state snapshots (kv_cache_config.enable_block_reuse and
  // mamba_state_config, TrtllmOptions).
  if (auto on = en.opt_bool("enable_block_reuse")) o.enable_block_reuse = *on;
  if (auto n = en.opt_uint("periodic_snapshot_interval", 0, std::uint64_t{1} << 40))
    o.snapshot_interval = *n;
  // An empty list is the engine's default (MambaStateConfig iterates both lists as given).
  auto offsets = [&](const std::string& key, std::uint64_t min) -> std::vector<std::uint64_t> {
    if (!en.has(key)) return {};
    const auto& v = en.raw(key);
    if (v.is_array() && v.empty()) return {};
    return en.uints(key, min, std::uint64_t{1} << 40, 4096, "offsets (tokens)");
  };
  o.snapshot_offsets_from_start = offsets("additional_snapshot_offsets_from_start", 1);
  o.snapshot_offsets_from_end = offsets("additional_snapshot_offsets_from_end", 0);
}

// The keys of one engine's options (PlanInput::options): another engine's key is refused by
// name; each reader then finds only its own engine's keys.
void read_engine_options(detail::JsonObject& en, const std::string& source, PlanInput& p) {
  const EngineRules& rules = engine_rules(p);
  const std::vector<std::string> own = rules.option_keys();
  for (const EngineRules* other : all_engine_rules())
    for (const std::string& key : other->option_keys())
      if (en.has(key) && std::find(own.begin(), own.end(), key) == own.end())
        throw Error(
            source, en.pointer(key),
            "is a " + other->label() + " setting; engine " + rules.name() + " does not read it");
  // Each reader fills a copy of its engine's options, kept where it changed them: only the
  // deployment's own engine has keys left, so no other engine's options are written.
  // Expert parallelism, every engine: the routed experts spread whole over the TP group (and
  // over DP replicas, vLLM --enable-expert-parallel with --data-parallel-size).
  if (auto ep = en.opt_bool("enable_expert_parallel")) p.expert_parallel = *ep;
  // DP attention, the engines that have it: attention_dp groups of tensor_parallel_size GPUs a
  // server, the experts over all of them (so expert_parallel's memory), whole over moe_ep_size.
  // Checked with the layout once the shape is read (validate_attention_dp).
  if (auto dp = en.opt_uint("attention_dp", 1, 4096)) {
    p.attention_dp = static_cast<std::uint32_t>(*dp);
    if (*dp > 1) p.expert_parallel = true;
  }
  if (auto ep = en.opt_uint("moe_ep_size", 1, 4096)) p.moe_ep = static_cast<std::uint32_t>(*ep);
  // The recurrent state's dtypes under the engine's own keys (vLLM --mamba-cache-dtype and
  // --mamba-ssm-cache-dtype, SGLang --mamba-ssm-dtype, TensorRT-LLM mamba_ssm_cache_dtype).
  const EngineRules::StateDtypeKeys state = rules.state_dtype_keys();
  for (const auto& [key, out] :
       {std::pair{&state.conv, &p.conv_state_dtype}, std::pair{&state.ssm, &p.ssm_state_dtype}})
    if (const auto d = key->empty() ? std::nullopt : en.opt_str(*key))
      if (const auto t = parse_state_dtype(*d, state.takes_auto, source, en.pointer(*key)))
        *out = t;
  VllmOptions v = p.vllm();
  read_vllm_options(en, source, v);
  SglangOptions s = p.sglang();
  read_sglang_options(en, source, s, p);
  // Decode context parallelism, vLLM's and SGLang's key (each engine's own option).
  if (auto n = en.opt_uint("decode_context_parallel_size", 1, 4096))
    (p.engine == Engine::sglang ? s.dcp_size : v.dcp) = static_cast<std::uint32_t>(*n);
  if (v != p.vllm()) p.edit_vllm() = v;
  if (s != p.sglang()) p.edit_sglang() = s;
  TrtllmOptions t = p.trtllm();
  read_trtllm_options(en, source, t, p);
  if (t != p.trtllm()) p.edit_trtllm() = t;
}

}  // namespace

void apply_engine_options(const std::vector<std::string>& pairs, PlanInput& p,
                          const std::string& source, const std::string& pointer) {
  nlohmann::json j = nlohmann::json::object();
  for (const std::string& pair : pairs) {
    const auto eq = pair.find('=');
    if (eq == std::string::npos || eq == 0)
      throw Error(source, pair, "expected KEY=VALUE (a deployment file's engine key)");
    const std::string key = pair.substr(0, eq), value = pair.substr(eq + 1);
    nlohmann::json v = nlohmann::json::parse(value, nullptr, false);
    j[key] = v.is_discarded() ? nlohmann::json(value) : std::move(v);
  }
  detail::JsonObject en(j, source, pointer);
  read_engine_options(en, source, p);
  en.finish();                      // a key no engine reads
  check_engine_options(p, source);  // options that cannot go together, named by their key
}

namespace {

// "slo" and "workload": the latency limits need a workload, and a workload needs a limit.
void read_deploy_slo(detail::JsonObject& o, const std::string& source, const std::string& base_dir,
                     Deployment& d) {
  auto slo = o.object("slo");
  d.slo = detail::read_slo_object(slo, d.plan.context, true);
  if (auto w = o.opt_str("workload")) {
    if (w->empty()) throw Error(source, "/workload", "must name a workload file");
    d.workload = *w;
    d.workload_path = std::filesystem::path(*w).is_relative()
                          ? (std::filesystem::path(base_dir) / *w).string()
                          : *w;
  }
  detail::check_slo_workload(d.slo, d.workload, source, "/workload", "/slo",
                             "a kvplan_workload file, relative to this file");
}

}  // namespace

// "offload": the KV tiers beyond the GPU, in the engines' own units (kv_tiers.hpp):
//   {"kv_offloading_size_gib": 100, "kv_offloading_backend": "native",
//    "lmcache": {"local_cpu": true, "max_local_cpu_size": 300, "max_local_disk_size": 0},
//    "hicache": {"ratio": 2.0, "size_gb": 0}, "host_cache_size": 107374182400}
namespace {
void read_deploy_offload(detail::JsonObject& o, Deployment& d) {
  auto off = o.opt_object("offload");
  if (!off) return;
  HostTierArgs& h = d.host_tiers;
  h.kv_offloading_gib = off->opt_number("kv_offloading_size_gib", 0, 1 << 20);
  if (auto b = off->opt_str("kv_offloading_backend")) {
    if (*b != "native" && *b != "lmcache")
      throw Error(d.source, off->pointer("kv_offloading_backend"),
                  "expected native or lmcache, got \"" + *b + "\"");
    h.kv_offloading_backend = *b;
  }
  if (auto lm = off->opt_object("lmcache")) {
    h.lmcache = true;
    h.lmcache_local_cpu = lm->opt_bool("local_cpu");
    h.lmcache_cpu_gib = lm->opt_number("max_local_cpu_size", 0, 1 << 20);
    h.lmcache_disk_gib = lm->opt_number("max_local_disk_size", 0, 1 << 30);
    lm->finish();
  }
  if (auto hc = off->opt_object("hicache")) {
    h.hicache = true;
    h.hicache_ratio = hc->opt_number("ratio", 1e-6, 1000);
    h.hicache_size_gb = hc->opt_number("size_gb", 0, 1 << 20);
    hc->finish();
  }
  h.host_cache_bytes = off->opt_uint("host_cache_size", 0, std::uint64_t{1} << 50);
  off->finish();
}
}  // namespace
namespace detail {

Slo read_slo_object(JsonObject& slo, std::uint64_t default_context, bool concurrency_required) {
  Slo s;
  s.context = slo.opt_uint("context", 1, std::uint64_t{1} << 40).value_or(default_context);
  s.concurrency = concurrency_required
                      ? slo.uint("concurrency", 1, std::uint64_t{1} << 32)
                      : slo.opt_uint("concurrency", 1, std::uint64_t{1} << 32).value_or(1);
  s.mean_context = slo.opt_uint("mean_context", 1, std::uint64_t{1} << 40);
  if (s.context && s.mean_context && *s.mean_context > s.context)
    throw Error(
        slo.source(), slo.pointer("mean_context"),
        std::to_string(*s.mean_context) + " exceeds the SLO context " + std::to_string(s.context));
  s.min_kv_cache_tokens = slo.opt_uint("min_kv_cache_tokens", 1, std::uint64_t{1} << 50);
  s.max_cost_per_hour = slo.opt_number("max_cost_per_hour", 0, 1e9);
  s.ttft_p99_ms = slo.opt_number("ttft_p99_ms", 1e-3, 1e9);
  s.tpot_p99_ms = slo.opt_number("tpot_p99_ms", 1e-3, 1e9);
  s.e2e_p99_ms = slo.opt_number("e2e_p99_ms", 1e-3, 1e9);
  slo.finish();
  return s;
}

void check_slo_workload(const Slo& s, const std::string& workload, const std::string& source,
                        const std::string& workload_field, const std::string& slo_field,
                        const std::string& workload_hint) {
  const bool latency = s.ttft_p99_ms || s.tpot_p99_ms || s.e2e_p99_ms;
  if (latency && workload.empty())
    throw Error(source, workload_field,
                "missing: the latency limits ttft_p99_ms, tpot_p99_ms and e2e_p99_ms are "
                "simulated under a workload (" +
                    workload_hint + ")");
  if (!latency && !workload.empty())
    throw Error(source, slo_field,
                "a workload is given but no latency limit (ttft_p99_ms, tpot_p99_ms, e2e_p99_ms)");
}

}  // namespace detail

namespace {

// "disaggregated": {"prefill": {"replicas": 2, "tensor_parallel_size": 1}, "decode": {...},
// "kv_link": "ndr400", "kv_link_latency_ms": 0, "kv_transfer_overhead_ms": 0, "routing":
// "round_robin"}. Each side's TP defaults to engine.tensor_parallel_size; hardware.gpus, when
// given, must be both sides' GPUs. The plan becomes the decode side's.
void read_deploy_disagg(detail::JsonObject& o, bool gpus_given, Deployment& d) {
  auto dg = o.opt_object("disaggregated");
  if (!dg) return;
  DisaggLayout l;
  const std::string fraction_key = engine_rules(d.plan).memory_fraction_key();
  const auto side = [&](const char* key, std::uint32_t& replicas, std::uint32_t& tp,
                        DisaggSide& own) {
    auto s = dg->object(key);
    replicas = static_cast<std::uint32_t>(s.uint("replicas", 1, 1024));
    tp =
        static_cast<std::uint32_t>(s.opt_uint("tensor_parallel_size", 1, 4096).value_or(d.plan.tp));
    own.max_num_seqs = s.opt_uint("max_num_seqs", 1, std::uint64_t{1} << 32);
    own.max_num_batched_tokens = s.opt_uint("max_num_batched_tokens", 1, kMaxContextTokens);
    if (auto f = s.opt_number(fraction_key, 0, 1))
      own.memory_fraction_ppm = fraction_to_ppm(*f, d.source, s.pointer(fraction_key));
    if (s.has("engine")) {
      const nlohmann::json& en = s.raw("engine");
      if (!en.is_object())
        throw Error(d.source, s.pointer("engine"), "must be an object of engine keys");
      for (const auto& [k, v] : en.items()) own.engine_options.push_back(k + "=" + v.dump());
    }
    s.finish();
  };
  side("prefill", l.prefill_replicas, l.prefill_tp, l.prefill_side);
  side("decode", l.decode_replicas, l.decode_tp, l.decode_side);
  l.kv_link = dg->opt_str("kv_link").value_or(l.kv_link);
  l.routing = dg->opt_str("routing").value_or(l.routing);
  l.kv_link_latency_ms = dg->opt_number("kv_link_latency_ms", 0, 10000).value_or(0);
  l.kv_transfer_overhead_ms = dg->opt_number("kv_transfer_overhead_ms", 0, 10000).value_or(0);
  kv_link(l.kv_link, d.gpu, d.source, dg->pointer("kv_link"));  // a link this GPU has
  parse_routing(l.routing, d.source, dg->pointer("routing"));
  dg->finish();
  if (const auto no = engine_rules(d.plan).disaggregation_refusal())
    throw Error(d.source, "/disaggregated", no->message);
  const std::uint64_t pp = d.plan.pp,
                      prefill = std::uint64_t{l.prefill_replicas} * l.prefill_tp * pp,
                      decode = std::uint64_t{l.decode_replicas} * l.decode_tp * pp;
  if (gpus_given && d.plan.gpus != prefill + decode)
    throw Error(d.source, "/hardware/gpus",
                "the disaggregated layout takes " + std::to_string(prefill + decode) + " GPUs (" +
                    std::to_string(prefill) + " prefill + " + std::to_string(decode) +
                    " decode), got " + std::to_string(d.plan.gpus));
  if (prefill + decode > kMaxGpus)
    throw Error(d.source, "/disaggregated",
                "takes " + std::to_string(prefill + decode) + " GPUs, more than " +
                    std::to_string(kMaxGpus));
  d.plan.tp = l.decode_tp;
  d.plan.gpus = static_cast<std::uint32_t>(decode);
  // Each side's replicas are instances of their own (one `vllm serve` a prefill or decode
  // instance, as docs/disagg.md's launch lines run them): none shares another's MoE layers.
  if (engine_rules(d.plan).data_parallel_shares_moe_layers() && !d.plan.vllm().data_parallel_size)
    d.plan.edit_vllm().data_parallel_size = 1;
  d.disagg = l;
  for (DisaggRole role : {DisaggRole::prefill, DisaggRole::decode})
    disagg_side(d, role);  // each side's engine keys, checked here, named by their pointers
}

}  // namespace

Deployment disagg_side(const Deployment& d, DisaggRole role) {
  if (!d.disagg) return d;
  Deployment s = d;
  const DisaggLayout& l = *d.disagg;
  const bool prefill = role == DisaggRole::prefill;
  const DisaggSide& own = prefill ? l.prefill_side : l.decode_side;
  const std::string base = prefill ? "/disaggregated/prefill" : "/disaggregated/decode";
  if (prefill) {
    s.plan.tp = l.prefill_tp;
    s.plan.gpus = l.prefill_replicas * l.prefill_tp * d.plan.pp;
  }
  if (own.max_num_seqs) {
    s.max_num_seqs = own.max_num_seqs;
    s.plan.max_num_seqs = own.max_num_seqs;  // the side's own pools and rules see it
    s.setting_fields.max_num_seqs = base + "/max_num_seqs";
  }
  if (own.max_num_batched_tokens) {
    s.plan.max_num_batched_tokens = *own.max_num_batched_tokens;
    s.setting_fields.max_num_batched_tokens = base + "/max_num_batched_tokens";
  }
  if (own.memory_fraction_ppm) s.plan.memory_fraction_ppm = *own.memory_fraction_ppm;
  if (!own.engine_options.empty())
    apply_engine_options(own.engine_options, s.plan, d.source, base + "/engine");
  // SGLang runs each side as a --disaggregation-mode prefill / decode worker.
  sglang_set_disaggregation_role(s.plan, prefill ? "prefill" : "decode", d.source,
                                 base + "/engine/disaggregation_mode");
  return s;
}

std::uint64_t deployment_gpus(const Deployment& d) {
  const std::uint64_t unit = std::uint64_t{d.plan.tp} * d.plan.pp;
  const std::uint64_t own = d.plan.gpus ? d.plan.gpus : unit;
  if (!d.disagg) return own;
  return own + std::uint64_t{d.disagg->prefill_replicas} * d.disagg->prefill_tp * d.plan.pp;
}

Deployment parse_deploy_json(const std::string& text, const std::string& source,
                             const std::string& base_dir) {
  const auto j = detail::parse_json_text(text, source);
  if (!j.is_object()) throw Error(source, "", "expected a JSON object");
  detail::JsonObject o(j, source, "");
  const auto version = o.uint("kvplan_deploy", 1, 1000);
  if (version != 1)
    throw Error(source, "/kvplan_deploy",
                "unsupported schema version " + std::to_string(version) + " (this kvplan reads 1)");
  Deployment d;
  d.source = source;
  d.name = o.opt_str("name").value_or(std::filesystem::path(source).stem().string());
  d.model = read_deploy_model(o, source, base_dir);
  const bool gpus_given = read_deploy_hardware(o, source, d);
  auto en = o.object("engine");
  read_engine_shape(en, source, d);
  read_engine_cache(en, source, d);
  read_engine_options(en, source, d.plan);
  en.finish();
  // The planner's DP-attention checks (validate_attention_dp), named by the file's fields.
  // Without /hardware/gpus a DP-attention deployment is one server, every group of it; with it,
  // whole servers.
  if (!gpus_given && d.plan.attention_dp > 1)  // each at most 4096: no overflow
    d.plan.gpus = d.plan.tp * d.plan.attention_dp;
  throw_if_any(source, validate_attention_dp(d.plan, engine_rules(d.plan),
                                             d.model.routed_experts == 0, deploy_file_names()));
  // vLLM servers of engine.data_parallel_size ranks: one without /hardware/gpus, else whole ones.
  if (const std::uint64_t dp = d.plan.vllm().data_parallel_size) {
    const std::uint64_t unit = std::uint64_t{d.plan.tp} * d.plan.pp;  // each at most 4096
    if (!gpus_given) d.plan.gpus = static_cast<std::uint32_t>(std::min(unit * dp, kMaxGpus));
    if ((d.plan.gpus / unit) % dp != 0 || unit * dp > kMaxGpus)
      throw Error(source, "/engine/data_parallel_size",
                  std::to_string(d.plan.gpus / unit) + " replicas of TP " +
                      std::to_string(d.plan.tp) + " × PP " + std::to_string(d.plan.pp) +
                      " are not whole servers of " + std::to_string(dp) + " data-parallel ranks");
  }
  // Engine options that cannot go together (check_engine_options, once the GPUs are known),
  // named by the file's own key.
  try {
    check_engine_options(d.plan, source);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::invalid_input || e.source() != source) throw;
    throw Error(source, "/engine/" + e.field(), e.message());
  }
  read_deploy_compression(o, source, d);
  read_deploy_slo(o, source, base_dir, d);
  read_deploy_offload(o, d);
  read_deploy_disagg(o, gpus_given, d);
  o.finish();
  d.plan.concurrency = d.slo.concurrency;
  d.plan.gpu_memory_bytes = d.gpu.engine_memory_bytes();
  d.plan.gpu_id = d.gpu.id;
  if (d.plan.max_num_batched_tokens == 0)
    d.plan.max_num_batched_tokens = engine_rules(d.plan).default_max_num_batched_tokens(d.plan);
  d.plan.max_num_seqs = d.max_num_seqs;

  validate_parallelism(d, gpus_given || d.disagg,
                       d.disagg ? "/disaggregated/decode/tensor_parallel_size" : "");
  if (d.disagg) {  // the prefill side's TP against the model's heads, named by its field
    DeploymentShape shape{.tp = d.disagg->prefill_tp, .pp = d.plan.pp};
    ShapeFields names = deploy_file_names();
    names.tp = "/disaggregated/prefill/tensor_parallel_size";
    throw_if_any(d.source, validate_deployment_shape(shape, &d.model, names));
  }
  // Format against the model's widths (kivi groups, MLA latents), naming the field.
  const std::string fmt_ptr = j.contains("compression") ? "/compression" : "/engine/kv_cache_dtype";
  at_field(source, fmt_ptr, [&] { return plan_capacity(d.model, d.plan, "plan"); });
  return d;
}

Deployment load_deploy(const std::string& path) {
  const std::string text = detail::read_text_file(path, "deployment file");
  return parse_deploy_json(text, path, std::filesystem::path(path).parent_path().string());
}

namespace {

// TP × PP × DP, GPUs and block size of a command line in 64-bit arithmetic against the
// documented limits (4096³ wrapped to 0 GPUs in 32 bits), and TP against the model's heads.
void engine_shape(const EngineArgs& a, std::uint32_t gpus, const std::string& source,
                  Deployment& d) {
  auto& p = d.plan;
  p.engine = a.engine;
  std::uint64_t tp = a.tp.value_or(1);
  if (engine_rules(a.engine).dp_attention_splits_tp() && a.dp_attention && a.dp && *a.dp > 1) {
    // DP attention: --dp splits the attention of the --tp GPUs into dp groups of tp / dp ranks,
    // each with its own requests and KV pool; the GPUs are --tp, not tp × dp (SGLang
    // server_args.py, enable_dp_attention; TensorRT-LLM enable_attention_dp, a group a GPU), and
    // the MoE experts spread over all of them, whole over --ep-size of them.
    if (tp % *a.dp != 0)
      throw Error(source, "--dp",
                  "DP attention needs --dp to divide --tp " + std::to_string(tp) + ", got " +
                      std::to_string(*a.dp));
    tp /= *a.dp;
    p.expert_parallel = true;
    p.attention_dp = static_cast<std::uint32_t>(*a.dp);
    if (a.ep_size && *a.ep_size > 1) p.moe_ep = *a.ep_size;
  }
  if (a.expert_parallel) p.expert_parallel = true;
  DeploymentShape shape{.tp = tp, .pp = a.pp.value_or(1), .dp = a.dp, .block_size = a.block_size};
  if (gpus) shape.gpus = gpus;
  if (gpus && p.attention_dp > 1) {
    // kvplan's --gpus may run several such DP-attention servers (one launch line each): a whole
    // number of them, every group of each a replica.
    const std::uint64_t server = tp * shape.pp * p.attention_dp;  // each factor at most 4096
    if (gpus % server != 0)
      throw Error(source, "--gpus",
                  std::to_string(gpus) + " GPUs are not a whole number of the command line's " +
                      "DP-attention servers of " + std::to_string(server) + " GPUs");
    shape.dp = gpus / (tp * shape.pp);
  }
  throw_if_any(source, validate_deployment_shape(shape, &d.model, engine_flag_names(a.engine)));
  p.tp = static_cast<std::uint32_t>(shape.tp);
  p.pp = static_cast<std::uint32_t>(shape.pp);
  p.gpus = shape_gpus(shape);
  // vLLM: the command line's own DP ranks share the MoE layers (VllmOptions::data_parallel_size);
  // GPUs beyond them run more servers of the same line, each with every expert.
  if (engine_rules(a.engine).data_parallel_shares_moe_layers() &&
      (a.dp || p.gpus > std::uint64_t{p.tp} * p.pp)) {
    p.edit_vllm().data_parallel_size = a.dp.value_or(1);
  }
  // The planner's DP-attention checks, named by the command line's own flags.
  throw_if_any(source, validate_attention_dp(p, engine_rules(a.engine), d.model.routed_experts == 0,
                                             engine_flag_names(a.engine)));
}

// max_model_len, block, chunk, KV memory and dtype, Mamba, DCP, speculative tokens, pools.
void engine_settings(const EngineArgs& a, const GpuSpec& gpu, const std::string& source,
                     Deployment& d) {
  auto& p = d.plan;
  p.context = a.max_model_len.value_or(d.model.max_context);
  const ShapeFields names = engine_flag_names(a.engine);
  if (p.context == 0)
    throw Error(source, names.context, "not given, and " + d.model.id + " has no max_context");
  p.block_size = a.block_size.value_or(0);
  // --kv-cache-memory-bytes is the exact KV memory per GPU: the memory model is skipped.
  if (a.kv_cache_memory_bytes) p.available_kv_bytes = *a.kv_cache_memory_bytes;
  d.cuda_graphs = !a.enforce_eager;
  p.cuda_graphs = d.cuda_graphs;
  // vLLM's own flags (another engine's table has none of them, so its copy stays the defaults).
  VllmOptions v = p.vllm();
  v.num_gpu_blocks_override = a.num_gpu_blocks_override;
  if (a.attn_group_size) v.attn_group_size = *a.attn_group_size;
  if (a.mamba_cache_mode)
    v.mamba_cache_mode = parse_mamba_cache_mode(*a.mamba_cache_mode, source, "--mamba-cache-mode");
  if (a.dcp && a.engine == Engine::vllm) v.dcp = *a.dcp;
  v.async_scheduling = a.async_scheduling;
  v.disable_hybrid_kv_cache_manager = a.disable_hybrid_kv_cache_manager;
  if (a.model_runner_v2)
    v.model_runner =
        *a.model_runner_v2 ? VllmOptions::ModelRunner::v2 : VllmOptions::ModelRunner::v1;
  // vLLM's speculative tokens hold 1 + k (align: 2 + k) state pages per recurrent group
  // (MambaSpec.num_speculative_blocks); attention layers are unaffected.
  if (engine_rules(a.engine).speculative_tokens_hold_state_pages() && a.speculative_tokens)
    v.num_speculative_tokens = *a.speculative_tokens;
  if (a.extract_hidden_states) v.extract_hidden_states = *a.extract_hidden_states;
  if (v != p.vllm()) p.edit_vllm() = v;
  p.memory_fraction_ppm = a.memory_fraction_ppm.value_or(0);
  p.weight_dtype = a.weight_dtype.value_or("");
  p.format = engine_kv_format(a.engine, a.kv_cache_dtype.value_or("auto"), d.model, source,
                              engine_rules(a.engine).kv_dtype_field(), p.weight_dtype, gpu.id);
  p.gpu_memory_bytes = gpu.engine_memory_bytes();
  p.gpu_id = gpu.id;
  // Not on the command line: what that engine would run on this GPU.
  p.max_num_batched_tokens =
      a.max_num_batched_tokens.value_or(engine_rules(a.engine).default_max_num_batched_tokens(p));
  apply_engine_pool_args(a, p, source);  // SGLang / TensorRT-LLM pool flags
  if (a.max_model_len_auto) {
    // --max-model-len -1 / auto: vLLM fits the longest request the KV memory holds, at most the
    // model's positions (estimate_max_model_len).
    PlanInput probe = p;
    probe.context = d.model.max_context ? d.model.max_context : std::uint64_t{1} << 20;
    const auto fit = plan_capacity(d.model, probe, source).estimated_max_model_len;
    if (fit == 0)
      throw Error(source, "--max-model-len",
                  "auto: not even one token of KV cache fits the memory left after the weights");
    p.context = std::min(fit, probe.context);
    d.warnings.push_back("--max-model-len auto: " + std::to_string(p.context) +
                         " tokens fit the KV memory");
  }
}

// One rule for every engine: a command line alone promises that the engine starts and holds
// one request of max_model_len; a stated SLO adds its concurrency at its lengths.
void engine_slo(const std::optional<Slo>& slo, const std::string& source, Deployment& d) {
  auto& p = d.plan;
  d.slo.context = p.context;
  d.slo.concurrency = 1;
  if (slo) {
    d.slo = *slo;
    if (d.slo.context == 0) d.slo.context = p.context;
    if (d.slo.mean_context && *d.slo.mean_context > d.slo.context)
      throw Error(source, "mean_context",
                  std::to_string(*d.slo.mean_context) + " exceeds the SLO context " +
                      std::to_string(d.slo.context));
  }
  p.concurrency = d.slo.concurrency;
}

}  // namespace

Deployment deploy_from_engine(const EngineArgs& a, const GpuSpec& gpu, std::uint32_t gpus,
                              const std::string& model_override, const std::string& source,
                              const std::optional<Slo>& slo) {
  Deployment d;
  d.source = source;
  d.setting_fields = engine_rules(a.engine).settings_flag_names();
  // A path or an older repo id on the command line resolves to the preset of its name, saying so.
  std::string model_note;
  if (model_override.empty()) {
    ResolvedModel r = resolve_model_reference(a.model, source);
    d.model = std::move(r.model);
    model_note = std::move(r.note);
  } else {
    d.model = load_model(model_override);
    if (!d.model.preset.empty() && d.model.preset != d.model.id)
      model_note =
          "resolved " + d.model.id + " to preset " + d.model.preset + " (a repo id it lists)";
  }
  if (a.hf_overrides) {
    // vLLM changes the config before it derives the model's positions (ModelConfig.__post_init__).
    for (const auto& k : apply_hf_overrides(d.model, *a.hf_overrides, source, a.hf_overrides_flag))
      d.warnings.push_back(a.hf_overrides_flag + " " + k +
                           ": not applied by kvplan (it applies the keys that set the positions)");
    d.warnings.push_back("model positions: " + std::to_string(d.model.max_context) + " (" +
                         d.model.positions_basis + ")");
  }
  d.name = hf_repo_id(d.model);
  d.gpu = gpu;
  engine_shape(a, gpus, source, d);
  engine_settings(a, gpu, source, d);
  // The engine's default when the command line leaves it out (vLLM 256, trtllm-serve 2048; SGLang
  // derives it from the pool): engine_rules.
  d.max_num_seqs =
      a.max_num_seqs ? a.max_num_seqs : engine_rules(a.engine).default_max_num_seqs(d.plan);
  // Under SGLang's DP attention --max-running-requests is the server's; a group runs its share.
  if (a.max_num_seqs && d.plan.attention_dp > 1 &&
      engine_rules(a.engine).dp_attention_divides_max_num_seqs()) {
    const std::uint64_t per_group = *a.max_num_seqs / d.plan.attention_dp;
    if (per_group == 0)
      throw Error(source, d.setting_fields.max_num_seqs,
                  std::to_string(*a.max_num_seqs) + " divided over " +
                      std::to_string(d.plan.attention_dp) +
                      " DP attention groups leaves none a group (SGLang: \"max_running_request "
                      "is zero\")");
    d.max_num_seqs = per_group;
  }
  d.plan.max_num_seqs = d.max_num_seqs;
  engine_slo(slo, source, d);
  auto& p = d.plan;
  std::string spec_note;
  p.draft_layers = speculative_draft_layers(a, d.model, &spec_note);
  if (!spec_note.empty()) d.warnings.push_back("speculative decoding: " + spec_note);
  if (!model_note.empty()) d.warnings.push_back(model_note);
  for (const auto& f : a.unknown)
    d.warnings.push_back("unknown flag " + f + " (not read by kvplan)");
  for (const auto& f : a.not_modelled)
    d.warnings.push_back("flag " + f + " changes memory in a way kvplan does not model");
  // The image's tag names the release (vllm/vllm-openai:v0.25.1, vLLM's own repository under any
  // registry): its rules where kvplan has a set of their own (--vllm-version, applied after, still
  // chooses). Other images' tags are their own versions (lmcache/vllm-openai: LMCache's).
  const std::string repo = image_repository(a.image);
  const bool vllm_image =
      repo == "vllm/vllm-openai" || (repo.size() > 17 && repo.ends_with("/vllm/vllm-openai"));
  if (a.engine == Engine::vllm && vllm_image) {
    if (const auto v = image_release(a.image)) {
      if (const auto r = vllm_release_rules(*v)) {
        p.edit_vllm().rules = *r;
        check_model_runner(p.vllm(), source, "image");
      } else {
        d.warnings.push_back("image " + a.image + ": vLLM " + *v +
                             " has no rule set of its own in kvplan; the current source's rules "
                             "apply (--vllm-version chooses others)");
      }
    }
  }
  d.host_tiers = a.host_tiers;
  plan_capacity(d.model, p, source);  // validates the rest
  return d;
}

bool CheckReport::passed() const { return failures() == 0; }
std::size_t CheckReport::failures() const {
  return static_cast<std::size_t>(
      std::count_if(items.begin(), items.end(), [](const CheckItem& i) { return !i.passed; }));
}

namespace {

CheckItem item(std::string id, std::string title) {
  CheckItem i;
  i.id = std::move(id);
  i.title = std::move(title);
  return i;
}

// "1 request", "2 requests": a count with its noun, singular or plural.
std::string count_of(std::uint64_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

std::string pct(std::uint64_t part, std::uint64_t whole) {
  if (whole == 0) return "";
  char b[32];
  std::snprintf(b, sizeof b, " (%.1f%%)",
                100.0 * static_cast<double>(part) / static_cast<double>(whole));
  return b;
}

std::string kv_flag(Engine e) { return engine_rules(e).kv_fp8_flag(); }

std::string fraction_flag(Engine e, std::uint32_t ppm) {
  return engine_rules(e).memory_fraction_flag(ppm);
}

struct Eval {
  Capacity at_mml;
  std::uint64_t at_slo = 0;              // requests of slo.context, all replicas
  std::optional<std::uint64_t> at_mean;  // requests of slo.mean_context, when stated
  // What the concurrency SLO is judged on: the typical length when stated, else the worst case.
  std::uint64_t judged() const { return at_mean.value_or(at_slo); }
};

Eval evaluate(const Deployment& d, const PlanInput& p) {
  Eval e;
  e.at_mml = plan_capacity(d.model, p, d.source);
  PlanInput s = p;
  s.context = d.slo.context;
  e.at_slo = plan_capacity(d.model, s, d.source).max_requests;
  if (d.slo.mean_context) {
    s.context = *d.slo.mean_context;
    e.at_mean = plan_capacity(d.model, s, d.source).max_requests;
  }
  return e;
}

// The capacity checks a fix must repair together.
bool capacity_ok(const Deployment& d, const Eval& e) {
  if (e.at_mml.memory.shortfall_bytes > 0) return false;
  if (e.at_mml.memory.outside_shortfall_bytes > 0) return false;
  if (!e.at_mml.fits_one_request) return false;
  if (e.judged() < d.slo.concurrency) return false;
  if (d.slo.min_kv_cache_tokens && e.at_mml.kv_cache_tokens < *d.slo.min_kv_cache_tokens)
    return false;
  return true;
}

// Cheapest first: settings that cost nothing, then more GPUs of the same type.
// `now`: the deployment's own memory budget, as its checks evaluated it.
std::string find_fix(const Deployment& d, const MemoryBudget& now) {
  const auto& p = d.plan;
  struct Try {
    PlanInput in;
    std::string says;
  };
  std::vector<Try> tries;
  const bool sixteen = p.format.dtype == KvDtype::fp16 || p.format.dtype == KvDtype::bf16 ||
                       p.format.dtype == KvDtype::fp32;
  const std::uint32_t f = p.memory_fraction_ppm
                              ? p.memory_fraction_ppm
                              : engine_rules(p).default_memory_fraction_ppm(p, &d.model);
  PlanInput fp8 = p;
  fp8.format = KvFormat{.dtype = KvDtype::fp8_e4m3};
  PlanInput more = p;
  more.memory_fraction_ppm = 950000;
  PlanInput both = fp8;
  both.memory_fraction_ppm = 950000;
  // What the fraction leaves out is short (the context, graphs, vLLM Model Runner V2's sampler
  // state and warm-up): the largest fraction that leaves them room, and more GPUs at a few lower
  // fractions below.
  const bool outside_short = !p.available_kv_bytes && now.outside_shortfall_bytes > 0;
  if (const auto ppm = outside_short ? fraction_that_starts(now) : std::nullopt) {
    PlanInput less = p;
    less.memory_fraction_ppm = *ppm;
    tries.push_back({less, "starts with " + fraction_flag(p.engine, *ppm)});
  }
  if (sixteen && is_full(p.policy)) tries.push_back({fp8, "fits with " + kv_flag(p.engine)});
  if (f < 950000 && !p.available_kv_bytes)
    tries.push_back({more, "fits with " + fraction_flag(p.engine, 950000)});
  if (sixteen && is_full(p.policy) && f < 950000 && !p.available_kv_bytes)
    tries.push_back(
        {both, "fits with " + kv_flag(p.engine) + " " + fraction_flag(p.engine, 950000)});
  for (const auto& t : tries)
    if (capacity_ok(d, evaluate(d, t.in))) return t.says;

  // More GPUs at the deployment's fraction; where what it leaves out is short (the engine would
  // not start), also at a few lower fractions, the highest first: more GPUs and a lower fraction
  // together.
  std::vector<std::uint32_t> fractions{f};
  if (outside_short)
    for (std::uint32_t less : {20000u, 50000u, 100000u, 150000u, 200000u})
      if (f > less + 500000) fractions.push_back(f - less);
  for (const std::uint32_t fraction : fractions) {
    PlanInput want = p;
    want.memory_fraction_ppm = fraction;
    want.context = std::max(d.slo.context, p.context);
    want.available_kv_bytes.reset();
    want.available_kv_bytes_per_rank.clear();
    for (std::uint64_t ctx : {d.slo.context, want.context}) {
      want.context = ctx;
      const OrderOption o = min_gpus(d.model, want, d.gpu, 4096, d.source);
      if (!o.feasible) continue;
      PlanInput got = p;
      got.memory_fraction_ppm = fraction;
      got.tp = o.tp;
      got.pp = o.pp;
      got.gpus = o.gpus;
      got.available_kv_bytes.reset();
      got.available_kv_bytes_per_rank.clear();
      // A new layout runs as kvplan's launch lines run one, its replicas the DP ranks of one
      // server, whatever the deployment's own server size was (min_gpus sized it so).
      run_as_one_server(got);
      if (moe_cut_refusal(d.model, got, "tp") || !capacity_ok(d, evaluate(d, got))) continue;
      std::string s = o.gpus > p.gpus
                          ? "needs " + std::to_string(o.gpus - p.gpus) + " more " + d.gpu.id +
                                " (" + std::to_string(o.gpus) + " in all: "
                          : "fits on " + std::to_string(o.gpus) + " " + d.gpu.id + " as ";
      s += "TP " + std::to_string(o.tp) + (o.pp > 1 ? " × PP " + std::to_string(o.pp) : "") +
           " × " + std::to_string(o.replicas) + " replica" + (o.replicas > 1 ? "s" : "") +
           (o.gpus > p.gpus ? ")" : "");
      if (fraction != f) s += " with " + fraction_flag(p.engine, fraction);
      return s;
    }
  }
  return "no fix found with fp8, a memory fraction or up to 4096 " + d.gpu.id;
}

// What every check reads: the deployment, its evaluation at max_model_len and the SLO, and the
// one fix that the failing capacity checks share (searched for once, on the first failure).
struct CheckContext {
  const Deployment& d;
  const Eval& e;
  std::string fix = {};
  const std::string& capacity_fix() {
    if (fix.empty()) fix = find_fix(d, e.at_mml.memory);
    return fix;
  }
};

std::optional<CheckItem> check_weights_fit(CheckContext& x) {
  const auto& m = x.e.at_mml.memory;
  CheckItem i = item("weights_fit", "weights and reserve fit in the GPU memory budget");
  i.passed = m.shortfall_bytes == 0;
  // "weights W + reserve R", then what they leave, or what they (and a fixed pool) exceed.
  const std::string used =
      "weights " + human_bytes(m.weight_bytes) + " + reserve " + human_bytes(m.reserve_bytes);
  if (m.measured)
    i.detail = "measured available KV cache memory " + human_bytes(m.available_bytes);
  else if (m.fixed_pool_bytes)
    i.detail = used + " + the KV pool's max_gpu_total_bytes " + human_bytes(m.fixed_pool_bytes) +
               (i.passed ? " fit in " + human_bytes(m.total_bytes)
                         : " exceed the GPU's " + human_bytes(m.total_bytes) + " by " +
                               human_bytes(m.shortfall_bytes)) +
               " per GPU";
  else
    i.detail = used +
               (i.passed ? " leave " + human_bytes(m.available_bytes) + " for the KV cache"
                         : " exceed the budget by " + human_bytes(m.shortfall_bytes)) +
               " per GPU";
  if (!i.passed) i.fix = x.capacity_fix();
  return i;
}

// Why an engine fails to start when what it keeps outside its budget does not fit the memory the
// fraction leaves out, in its words: vLLM >= 0.9 refuses at init when free memory is below
// total · utilization (gpu_worker.py@35d5cda1 init_device: "Free memory on device ... on startup
// is less than desired GPU memory utilization"); graphs captured after the KV cache run out of
// memory during capture (log vllm-v1-0.11.0-qwen3-vl-...-graph-oom-fail.log).
std::string outside_budget_failure(const MemoryBudget& m, const PlanInput& p) {
  const std::uint64_t left_out = m.total_bytes - m.requested_bytes;
  const std::string label = engine_rules(p).label();
  const MemoryTerms& t = m.outside_terms;  // the stage that needs the most beside the budget
  if (t.context.bytes > left_out)
    return label + " refuses to start: \"Free memory on device (" +
           human_bytes(m.total_bytes - t.context.bytes) + "/" + human_bytes(m.total_bytes) +
           ") on startup is less than desired GPU memory utilization (" +
           human_bytes(m.requested_bytes) + ")\" — " + t.context.how + " takes " +
           human_bytes(t.context.bytes) + " of the " + human_bytes(left_out) +
           " the fraction leaves out";
  std::string what = t.context.how + " (" + human_bytes(t.context.bytes) + ")";
  if (!t.graphs_in_budget && t.graphs.bytes)
    what += ", " + t.graphs.how + " (" + human_bytes(t.graphs.bytes) + ")";
  if (t.sampler_state.bytes)
    what += ", the sampler state (" + human_bytes(t.sampler_state.bytes) + ")";
  if (const std::uint64_t w = t.warmup_beyond_activation_bytes())
    what += ", the sampler warm-up beyond the profiled activation peak (" + human_bytes(w) +
            " of its " + human_bytes(t.warmup.bytes) + ")";
  return label + " runs out of memory after sizing the KV cache: " + what + " need " +
         human_bytes(t.outside_bytes()) + " beside the budget, the fraction leaves " +
         human_bytes(left_out);
}

std::optional<CheckItem> check_engine_starts(CheckContext& x) {
  const Deployment& d = x.d;
  const Capacity& c = x.e.at_mml;
  CheckItem i =
      item("engine_starts", "one request of max_model_len " + std::to_string(d.plan.context) +
                                " tokens fits (the engine starts)");
  i.passed = c.fits_one_request;
  // vLLM ≥ 0.20 (PR #38270, CompilationConfig.resolve_cudagraph_mode_and_sizes): with full
  // CUDA graphs, a model with Mamba layers needs one state block per decode sequence.
  const bool mamba_short = engine_rules(d.plan).graphs_need_a_state_block_per_sequence() &&
                           d.model.recurrent_layers() > 0 && d.cuda_graphs && d.max_num_seqs &&
                           c.paged && *d.max_num_seqs > c.num_gpu_blocks;
  const MemoryBudget& m = c.memory;
  // TensorRT-LLM's max_attention_window: each window has its own pool and a request takes the
  // blocks of its window in each, not the bytes of full attention; the detail says blocks.
  const bool windowed = engine_rules(d.plan).pools_per_attention_window() &&
                        !d.plan.trtllm().max_attention_window.empty() && c.paged;
  std::string windows = "max_attention_window [";
  for (std::size_t k = 0; k < d.plan.trtllm().max_attention_window.size(); ++k)
    windows += (k ? ", " : "") + std::to_string(d.plan.trtllm().max_attention_window[k]);
  windows += "]";
  // A table allocated once the pool is sized (SGLang's req_to_token) must fit in what the
  // fraction leaves out, beside activations and CUDA graphs kvplan does not cost for that engine:
  // a table alone beyond it is a start that fails for certain.
  const EngineRules& rules = engine_rules(d.plan);
  std::optional<MemoryTerm> table;
  std::uint64_t table_room = 0;
  if (m.shortfall_bytes == 0 && !c.attention_free && c.kv_cache_tokens > 0) {
    const std::uint64_t base = rules.fraction_of_free_memory()
                                   ? m.total_bytes - std::min(m.total_bytes, m.terms.context.bytes)
                                   : m.total_bytes;
    table_room = base > m.requested_bytes ? base - m.requested_bytes : 0;
    if (auto t = request_table_of(c, d.plan); t && t->bytes > table_room) table = t;
  }
  if (m.shortfall_bytes == 0 && m.outside_shortfall_bytes > 0) {
    i.passed = false;
    i.detail = outside_budget_failure(m, d.plan);
    i.fix = x.capacity_fix();
  } else if (table) {
    i.passed = false;
    i.detail =
        rules.label() +
        " runs out of memory allocating its request table after sizing the KV pool: " + table->how +
        " = " + human_bytes(table->bytes) + ", where " +
        rules.memory_fraction_flag(m.fraction_ppm) + " leaves " + human_bytes(table_room) +
        " beside the pool (before activations and CUDA graphs)";
    // The most requests whose rows fit: (R + 1) · (context + 4) · 4 bytes <= the room.
    const std::uint64_t row = mul(add(d.plan.context, 4, "request table"), 4, "request table");
    const std::uint64_t reqs = table_room / row;
    i.fix = reqs >= 2 ? "set " + rules.settings_flag_names().max_num_seqs + " to at most " +
                            std::to_string(reqs - 1) +
                            " (the table alone then fits), or a shorter context"
                      : "a shorter context (each request's row takes " + human_bytes(row) + ")";
  } else if (const TrtllmStatePool* slots = binding_state_pool(c.stages);
             slots && slots->shortfall_bytes > 0 && m.shortfall_bytes == 0) {
    i.passed = false;
    const std::string batch = rules.settings_flag_names().max_num_seqs;
    i.detail = rules.label() + " stops at start-up: its Mamba state slots, " +
               grouped(slots->live_slots) + " live (" + batch + " × pp) + " +
               std::to_string(slots->dummy_slots) + " dummy of " + human_bytes(slots->slot_bytes) +
               ", take " + human_bytes(slots->bytes) + " of the " +
               human_bytes(slots->budget_bytes) + " KV budget and leave no attention block" +
               (slots->v2 ? " (\"The V2 Mamba GPU cache quota is too small for live recurrent "
                            "states and attention pages\")"
                          : "");
    // The most resident sequences whose slots leave one attention block: the budget less the
    // block and the dummies, in slots, over pp.
    const std::uint64_t block = slots->shortfall_bytes + slots->budget_bytes - slots->bytes;
    const std::uint64_t fixed =
        add(block, mul(slots->dummy_slots, slots->slot_bytes, "dummy slots"), "fixed");
    const std::uint64_t most = slots->budget_bytes > fixed && slots->slot_bytes > 0
                                   ? (slots->budget_bytes - fixed) / slots->slot_bytes /
                                         std::max<std::uint32_t>(d.plan.pp, 1)
                                   : 0;
    i.fix = most > 0 ? "set " + batch + " to at most " + std::to_string(most) +
                           " (fewer state slots), or more GPUs: " + x.capacity_fix()
                     : x.capacity_fix();
  } else if (c.attention_free) {
    // Nothing is cached: it starts when the weights load (vLLM's KV check returns at once).
    i.detail = i.passed ? "no KV cache: the engine's one block, nothing a request needs"
                        : "the weights do not load (weights_fit); no KV cache is needed";
    if (!i.passed) i.fix = x.capacity_fix();
  } else if (i.passed && mamba_short) {
    i.passed = false;
    i.detail = "vLLM refuses to start: \"max_num_seqs (" + std::to_string(*d.max_num_seqs) +
               ") exceeds available Mamba cache blocks (" + std::to_string(c.num_gpu_blocks) +
               ")\" — each decode sequence needs one Mamba cache block for CUDA graph capture";
    i.fix = "set max_num_seqs to at most " + std::to_string(c.num_gpu_blocks) +
            " (or raise the memory fraction, or --enforce-eager)";
  } else if (i.passed && windowed) {
    i.detail = "one request of " + std::to_string(d.plan.context) + " tokens takes " +
               count_of(c.blocks_per_request, "block") + " under " + windows + " of the " +
               std::to_string(c.num_gpu_blocks) + " its window pools hold in " +
               human_bytes(c.memory.available_bytes) + " per GPU";
  } else if (i.passed) {
    i.detail = "one request takes " + human_bytes(c.bytes_per_request) + " of " +
               human_bytes(c.memory.available_bytes) + " per GPU";
  } else if (c.paged && (windowed || c.bytes_per_request <= c.memory.available_bytes)) {
    // The memory would hold it, the pool's blocks do not (num_gpu_blocks_override, vLLM's null
    // block): say it in blocks, which is what is checked.
    const bool null_block = engine_rules(d.plan).keeps_null_block();
    i.detail =
        "one request of " + std::to_string(d.plan.context) + " tokens needs " +
        count_of(c.blocks_per_request, "block") + ", the pool has " +
        std::to_string(c.num_gpu_blocks) +
        (d.plan.vllm().num_gpu_blocks_override
             ? " (set by num_gpu_blocks_override, whatever the " +
                   human_bytes(c.memory.available_bytes) + " available would hold)"
             : "") +
        (null_block ? ", one of them " + engine_rules(d.plan).label() + "'s null block" : "") +
        (windowed ? " (under " + windows + ")" : "") + "; the longest that fits is " +
        std::to_string(c.estimated_max_model_len) + " tokens";
    i.fix = d.plan.vllm().num_gpu_blocks_override
                ? "set num_gpu_blocks_override to at least " +
                      std::to_string(c.blocks_per_request + (null_block ? 1 : 0)) +
                      ", or leave it out"
                : x.capacity_fix();
  } else {
    i.detail = "one request of " + std::to_string(d.plan.context) + " tokens needs " +
               human_bytes(c.bytes_per_request) + ", only " +
               human_bytes(c.memory.available_bytes) + " is available; the longest that fits is " +
               std::to_string(c.estimated_max_model_len) + " tokens";
    i.fix = x.capacity_fix();
  }
  return i;
}

// The settings the engine checks before it allocates anything (engine_refusals).
std::optional<CheckItem> check_engine_settings(CheckContext& x) {
  const Deployment& d = x.d;
  const EngineRules& rules = engine_rules(d.plan);
  CheckItem i = item("engine_settings", rules.label() +
                                            " accepts max_model_len, max_num_seqs, "
                                            "max_num_batched_tokens and the experts' cut (it "
                                            "starts)");
  const auto refusals = engine_refusals(d);
  i.passed = refusals.empty();
  if (i.passed) i.detail = "none refused";
  for (const auto& r : refusals) {
    i.detail += (i.detail.empty() ? "" : "; ") + r.field + ": " + r.message;
    i.fix += (i.fix.empty() ? "" : "; ") + r.fix;
  }
  return i;
}

std::optional<CheckItem> check_context(CheckContext& x) {
  const Deployment& d = x.d;
  CheckItem i = item("context", "SLO context " + std::to_string(d.slo.context) +
                                    " tokens within max_model_len and the model's limit");
  const bool engine_ok = d.slo.context <= d.plan.context;
  const bool model_ok = d.model.max_context == 0 || d.slo.context <= d.model.max_context;
  // A max_model_len beyond the model's positions is the engine's refusal (engine_settings).
  i.passed = engine_ok && model_ok;
  if (!engine_ok) {
    i.detail = "max_model_len " + std::to_string(d.plan.context) + " is " +
               std::to_string(d.slo.context - d.plan.context) + " tokens short of the SLO";
    i.fix = "set max_model_len to " + std::to_string(d.slo.context);
  } else if (!model_ok) {
    i.detail = d.model.id + " supports " + std::to_string(d.model.max_context) +
               " positions, the SLO asks " + std::to_string(d.slo.context);
    i.fix = "lower the SLO context to " + std::to_string(d.model.max_context) +
            " or use a long-context model";
  } else {
    i.detail = "max_model_len " + std::to_string(d.plan.context) + ", model limit " +
               (d.model.max_context ? std::to_string(d.model.max_context) : "unknown");
  }
  return i;
}

std::optional<CheckItem> check_concurrency(CheckContext& x) {
  const Deployment& d = x.d;
  const Eval& e = x.e;
  const std::string gpus =
      " on " + std::to_string(d.plan.gpus) + " GPU" + (d.plan.gpus > 1 ? "s" : "");
  // Without a KV cache nothing is fitted into it: max_num_seqs × replicas bounds the requests.
  const bool no_cache = e.at_mml.attention_free;
  CheckItem i = item(
      "concurrency",
      no_cache
          ? count_of(d.slo.concurrency, "concurrent request") +
                " run at once (no KV cache: max_num_seqs × replicas bounds them)"
          : count_of(d.slo.concurrency, "concurrent request") + " of " +
                (d.slo.mean_context ? "typically " + std::to_string(*d.slo.mean_context) +
                                          " (at most " + std::to_string(d.slo.context) + ")"
                                    : std::to_string(d.slo.context)) +
                (d.slo.concurrency == 1 ? " tokens fits" : " tokens fit") + " in the KV cache");
  i.passed = e.judged() >= d.slo.concurrency;
  i.detail = "holds " + count_of(e.at_slo, "request") + " of " + std::to_string(d.slo.context) +
             " tokens" + gpus;
  if (e.at_mean) {
    i.detail += " (the worst case) and " + std::to_string(*e.at_mean) + " of the typical " +
                std::to_string(*d.slo.mean_context) + " tokens";
    if (i.passed && e.at_slo < d.slo.concurrency)
      i.detail += ": the typical load fits, " + count_of(d.slo.concurrency, "request") +
                  " all at " + std::to_string(d.slo.context) + " tokens would not";
  }
  if (no_cache) i.detail += " (max_num_seqs; no KV cache)";
  if (!i.passed) {
    const auto short_by = d.slo.concurrency - e.judged();
    i.detail += ", needs " + std::to_string(d.slo.concurrency) + ": short by " +
                std::to_string(short_by) + pct(short_by, d.slo.concurrency);
    // Without a KV cache the flag, not the GPUs, bounds the requests once the weights load.
    const std::uint32_t replicas = e.at_mml.replicas;
    i.fix = no_cache && e.at_mml.fits_one_request
                ? "set max_num_seqs to " + std::to_string(ceil_div(d.slo.concurrency, replicas))
                : x.capacity_fix();
  }
  return i;
}

// The fix that sets max_num_seqs to `per_replica`: under SGLang's DP attention its
// --max-running-requests is the server's, each group running 1/D of it (TpModelWorker).
std::string max_num_seqs_fix(const Deployment& d, std::uint64_t per_replica) {
  const EngineRules& rules = engine_rules(d.plan);
  if (d.plan.attention_dp > 1 && rules.dp_attention_divides_max_num_seqs())
    return "set " + rules.settings_flag_names().max_num_seqs + " to " +
           std::to_string(per_replica * d.plan.attention_dp) +
           " (the server's: " + std::to_string(per_replica) + " a DP-attention group)";
  return "set max_num_seqs to " + std::to_string(per_replica);
}

// Only with max_num_seqs set.
std::optional<CheckItem> check_max_num_seqs(CheckContext& x) {
  const Deployment& d = x.d;
  if (!d.max_num_seqs) return std::nullopt;
  const std::uint32_t replicas = x.e.at_mml.replicas;
  const std::uint64_t cap = *d.max_num_seqs * replicas;
  CheckItem i = item("max_num_seqs", "the engine admits " + count_of(d.slo.concurrency, "request") +
                                         " (max_num_seqs × replicas)");
  i.passed = cap >= d.slo.concurrency;
  i.detail = "max_num_seqs " + std::to_string(*d.max_num_seqs) + " × " + std::to_string(replicas) +
             " replica" + (replicas > 1 ? "s" : "") + " = " + std::to_string(cap);
  // max_num_seqs caps admission; it does not promise that many requests of max_model_len.
  if (x.e.at_mml.max_requests < cap)
    i.detail += "; the KV cache holds " + count_of(x.e.at_mml.max_requests, "request") + " of " +
                std::to_string(d.plan.context) + " tokens at once, more only when shorter";
  if (!i.passed) {
    i.detail += ", short by " + std::to_string(d.slo.concurrency - cap);
    i.fix = max_num_seqs_fix(d, ceil_div(d.slo.concurrency, replicas));
  }
  return i;
}

// Only with slo.min_kv_cache_tokens set.
std::optional<CheckItem> check_kv_cache_tokens(CheckContext& x) {
  if (!x.d.slo.min_kv_cache_tokens) return std::nullopt;
  const auto want = *x.d.slo.min_kv_cache_tokens;
  const std::uint64_t held = x.e.at_mml.kv_cache_tokens;
  CheckItem i =
      item("kv_cache_tokens", "the KV cache holds at least " + std::to_string(want) + " tokens");
  i.passed = held >= want;
  i.detail = "holds " + std::to_string(held) + " tokens per replica";
  if (!i.passed) {
    i.detail += ", short by " + std::to_string(want - held) + pct(want - held, want);
    i.fix = x.capacity_fix();
  }
  return i;
}

// Only with slo.max_cost_per_hour set.
std::optional<CheckItem> check_cost(CheckContext& x) {
  const Deployment& d = x.d;
  if (!d.slo.max_cost_per_hour) return std::nullopt;
  CheckItem i = item("cost", "the GPUs cost at most the budget per hour");
  if (d.gpu.price_per_hour <= 0) {
    i.passed = false;
    i.detail = "no price for " + d.gpu.id;
    i.fix = "set hardware.price_per_hour";
    return i;
  }
  const std::uint64_t gpus = deployment_gpus(d);
  const double cost = static_cast<double>(gpus) * d.gpu.price_per_hour;
  i.passed = cost <= *d.slo.max_cost_per_hour;
  char b[160];
  std::snprintf(b, sizeof b, "%llu × %s at $%.2f/h = $%.2f/h, budget $%.2f/h",
                static_cast<unsigned long long>(gpus), d.gpu.id.c_str(), d.gpu.price_per_hour, cost,
                *d.slo.max_cost_per_hour);
  i.detail = b;
  if (!i.passed) {
    std::snprintf(b, sizeof b, ": over by $%.2f/h", cost - *d.slo.max_cost_per_hour);
    i.detail += b;
    i.fix = "use fewer GPUs (fp8 or a smaller SLO) or a cheaper GPU type (kvplan plan --price)";
  }
  return i;
}

// The node the deployment's ranks share: as the file or flags state it, else the GPU preset's
// reference node (gpus_per_node, node_dram_gib with their sources; docs/gpus.md).
NodeSpec node_of(const Deployment& d) {
  NodeSpec n = d.node;
  if (!n.memory_bytes && d.gpu.node_dram_gib > 0) {
    n.memory_bytes = gib_to_bytes(d.gpu.node_dram_gib);
    n.memory_source = "the " + d.gpu.id + " preset's node: " + d.gpu.node_dram_source;
  }
  if (!n.gpus && d.gpu.gpus_per_node > 0) n.gpus = d.gpu.gpus_per_node;
  return n;
}

// The KV tiers beyond the GPU against the node's memory: the pinned host memory of the node's
// ranks (kv_tiers.hpp) must fit in its DRAM; SGLang also refuses a rank's pool larger than its
// share of the host's memory less 10 GiB (pool_host/base.py, host_memory_budget_bytes).
CheckItem check_host_memory(const HostMemory& h, const NodeSpec& n) {
  CheckItem i = item("host_memory", "the KV tiers beyond the GPU fit in the node's memory");
  std::string tiers;
  for (const HostTier& t : h.tiers)
    tiers += (tiers.empty() ? "" : "; ") + t.name + " (" + t.setting +
             "): " + (t.exact ? "" : "at most ") + human_bytes(t.bytes_per_rank) + " per rank (" +
             t.rule + ")";
  const std::string ranks = std::to_string(h.ranks_per_node) + " ranks per node";
  i.detail = tiers + "; " + ranks + ": " + human_bytes(h.pinned_per_node) + " pinned per node";
  if (h.disk_per_node > 0) i.detail += ", " + human_bytes(h.disk_per_node) + " on local disk";
  for (const std::string& n : h.notes) i.detail += "; " + n;
  if (!n.memory_bytes) {
    i.passed = true;
    i.detail +=
        "; the node's memory is unknown: give hardware.node_memory_gib (or "
        "--node-memory-gib) to check it";
    return i;
  }
  const std::uint64_t node = *n.memory_bytes;
  i.passed = h.pinned_per_node <= node;
  i.detail += " of " + human_bytes(node) + " (" + n.memory_source + ")";
  if (!i.passed) {
    i.detail += ": over by " + human_bytes(h.pinned_per_node - node);
    const std::uint64_t fits = node / h.ranks_per_node;
    i.fix = "at most " + human_bytes(fits) + " pinned per rank (" +
            std::to_string(h.ranks_per_node) + " ranks share the node)";
    return i;
  }
  const bool sglang_pool = std::any_of(h.tiers.begin(), h.tiers.end(),
                                       [](const HostTier& t) { return t.host_share_checked; });
  if (sglang_pool && node > kSglangHostReserveBytes) {
    const std::uint64_t share = (node - kSglangHostReserveBytes) / h.ranks_per_node;
    if (h.pinned_per_rank > share) {
      i.passed = false;
      i.detail += ": SGLang refuses " + human_bytes(h.pinned_per_rank) + " on a rank whose share " +
                  "of the host less 10 GiB is " + human_bytes(share) +
                  " (\"Not enough host memory available\")";
      i.fix = "a smaller --hicache-size or --hicache-ratio";
    }
  }
  return i;
}

}  // namespace

VllmOptions::MambaCacheMode parse_mamba_cache_mode(const std::string& v, const std::string& source,
                                                   const std::string& field) {
  if (v == "none") return VllmOptions::MambaCacheMode::none;
  if (v == "align") return VllmOptions::MambaCacheMode::align;
  if (v == "all") return VllmOptions::MambaCacheMode::all;
  throw Error(source, field, "expected none, align or all, got \"" + v + "\"");
}

VllmOptions::ModelRunner parse_model_runner(const std::string& v, const std::string& source,
                                            const std::string& field) {
  if (v == "auto") return VllmOptions::ModelRunner::auto_;
  if (v == "v1") return VllmOptions::ModelRunner::v1;
  if (v == "v2") return VllmOptions::ModelRunner::v2;
  throw Error(source, field,
              "expected auto (the release's default), v1 or v2 (VLLM_USE_V2_MODEL_RUNNER 0 or 1), "
              "got \"" +
                  v + "\"");
}

const char* model_runner_name(VllmOptions::ModelRunner r) {
  switch (r) {
    case VllmOptions::ModelRunner::v1:
      return "v1";
    case VllmOptions::ModelRunner::v2:
      return "v2";
    case VllmOptions::ModelRunner::auto_:
      break;
  }
  return "auto";
}

const char* mamba_cache_mode_name(VllmOptions::MambaCacheMode m) {
  switch (m) {
    case VllmOptions::MambaCacheMode::align:
      return "align";
    case VllmOptions::MambaCacheMode::all:
      return "all";
    case VllmOptions::MambaCacheMode::none:
      break;
  }
  return "none";
}

// trtllm-serve --backend: ChoiceWithAlias(["pytorch", "tensorrt", "_autodeploy"],
// {"trt": "tensorrt"}) in NVIDIA/TensorRT-LLM tensorrt_llm/commands/serve.py (main, 2026).
// _autodeploy runs on the PyTorch runtime's KV cache manager and sizes as pytorch.
TrtllmOptions::Backend parse_trtllm_backend(const std::string& v, const std::string& source,
                                            const std::string& field) {
  if (v == "pytorch" || v == "_autodeploy") return TrtllmOptions::Backend::pytorch;
  if (v == "tensorrt" || v == "trt") return TrtllmOptions::Backend::tensorrt;
  throw Error(source, field,
              "unknown TensorRT-LLM backend \"" + v +
                  "\" (expected pytorch, tensorrt, trt or _autodeploy)");
}

const char* trtllm_backend_name(TrtllmOptions::Backend b) {
  return b == TrtllmOptions::Backend::tensorrt ? "tensorrt" : "pytorch";
}

Slo parse_slo_spec(const std::string& spec, const std::string& source) {
  // KEY=VALUE pairs become the deployment file's "slo" object, read by its one reader
  // (detail::read_slo_object): the same keys, bounds and messages.
  nlohmann::json j = nlohmann::json::object();
  std::size_t start = 0;
  while (start <= spec.size()) {
    const auto end = std::min(spec.find(',', start), spec.size());
    const std::string item = spec.substr(start, end - start);
    start = end + 1;
    if (item.empty()) {
      if (end == spec.size()) break;
      throw Error(source, "slo", "empty item in \"" + spec + "\"");
    }
    const auto eq = item.find('=');
    if (eq == std::string::npos)
      throw Error(source, item,
                  "expected KEY=VALUE (the deployment file's slo keys: concurrency, context, "
                  "mean_context, min_kv_cache_tokens, max_cost_per_hour, ttft_p99_ms, "
                  "tpot_p99_ms, e2e_p99_ms)");
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (j.contains(key)) throw Error(source, key, "given twice in \"" + spec + "\"");
    if (key == "context" || key == "mean_context") {
      // 32k / 128K, as vLLM reads lengths
      j[key] = parse_human_int(value, 1, std::uint64_t{1} << 40, source, key);
    } else {
      // A plain number, as JSON writes it; the reader checks its range and the key.
      nlohmann::json v;
      try {
        v = nlohmann::json::parse(value);
      } catch (const nlohmann::json::exception&) {
      }
      if (!v.is_number())
        throw Error(source, key, "expected a number, got \"" + value.substr(0, 40) + "\"");
      j[key] = v;
    }
    if (end == spec.size()) break;
  }
  detail::JsonObject o(j, source, "");
  return detail::read_slo_object(o, 0, false);
}

namespace {

// A disaggregated deployment: every item above is the decode side's (it holds the running
// requests); the prefill side's own settings must be ones its engine takes, and it must load its
// weights and start with one request of max_model_len on its own TP, as any replica.
void check_prefill_side(const Deployment& p, CheckReport& r) {
  for (auto& i : r.items)
    if (i.id != "cost" && i.id != "engine_settings") i.title = "decode side: " + i.title;
  const Eval e = evaluate(p, p.plan);
  CheckContext x{.d = p, .e = e};
  for (auto check : {check_engine_settings, check_weights_fit, check_engine_starts})
    if (auto i = check(x)) {
      i->id = "prefill_" + i->id;
      i->title = "prefill side: " + i->title;
      r.items.push_back(std::move(*i));
    }
}

}  // namespace

CheckReport run_check(const Deployment& shared) {
  // Disaggregated: the items below are the decode side's, with its own settings.
  const Deployment d = disagg_side(shared, DisaggRole::decode);
  CheckReport r;
  r.deploy = d;
  const Eval e = evaluate(d, d.plan);
  r.capacity = e.at_mml;
  r.requests_at_slo = e.at_slo;
  r.requests_at_mean = e.at_mean;
  CheckContext x{.d = d, .e = e};
  using Check = std::optional<CheckItem> (*)(CheckContext&);
  // In report order; the last three only when the deployment asks for them.
  for (Check check : {check_engine_settings, check_weights_fit, check_engine_starts, check_context,
                      check_concurrency, check_max_num_seqs, check_kv_cache_tokens, check_cost})
    if (auto i = check(x)) r.items.push_back(std::move(*i));
  if (d.host_tiers.any()) {
    const NodeSpec node = node_of(d);
    r.host = host_memory(d.host_tiers, d.model, d.plan, e.at_mml, node, d.source);
    r.items.push_back(check_host_memory(*r.host, node));
  }
  if (d.disagg) check_prefill_side(disagg_side(shared, DisaggRole::prefill), r);
  return r;
}

std::vector<Refusal> engine_refusals(const Deployment& d) {
  // An unstated max_num_seqs is the engine's default for this GPU (vLLM: 1024 on an H100).
  const EngineSettings s{.max_model_len = d.plan.context,
                         .max_num_seqs = d.max_num_seqs
                                             ? d.max_num_seqs
                                             : engine_rules(d.plan).default_max_num_seqs(d.plan),
                         .max_num_batched_tokens = d.plan.max_num_batched_tokens,
                         .model_positions = d.model.max_context,
                         .positions_basis = d.model.positions_basis,
                         .model_id = d.model.id};
  std::vector<Refusal> out = engine_rules(d.plan).settings_problems(s, d.setting_fields);
  for (auto& r : engine_rules(d.plan).pool_problems(d.model, d.plan)) out.push_back(std::move(r));
  if (auto r = moe_cut_refusal(d.model, d.plan, d.setting_fields.tp)) out.push_back(std::move(*r));
  return out;
}

const char* memory_fraction_key(Engine e) { return engine_rules(e).memory_fraction_key(); }

}  // namespace kvplan
