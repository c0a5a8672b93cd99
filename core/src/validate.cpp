#include "kvplan/validate.hpp"

#include <algorithm>
#include <sstream>
#include <type_traits>

#include "kvplan/engine_rules.hpp"
#include "kvplan/kv_format.hpp"
#include "kvplan/policy.hpp"

namespace kvplan {

namespace {

std::string num(std::uint64_t v) { return std::to_string(v); }

// Adds a problem when v lies outside [lo, hi]; returns whether it is inside.
bool in_range(std::vector<Problem>& out, const std::string& field, const std::string& what,
              std::uint64_t v, std::uint64_t lo, std::uint64_t hi) {
  if (v >= lo && v <= hi) return true;
  out.push_back(
      {field, "must be between " + num(lo) + " and " + num(hi) + " " + what + ", got " + num(v)});
  return false;
}

}  // namespace

ShapeFields cli_flag_names() {
  return {.tp = "--tp",
          .pp = "--pp",
          .dp = "--dp",
          .gpus = "--gpus",
          .block_size = "--block-size",
          .context = "--context",
          .concurrency = "--concurrency",
          .draft_layers = "--draft-layers"};
}

ShapeFields deploy_file_names() {
  return {.tp = "/engine/tensor_parallel_size",
          .pp = "/engine/pipeline_parallel_size",
          .dp = "/engine/data_parallel_size",
          .gpus = "/hardware/gpus",
          .block_size = "/engine/block_size",
          .context = "/engine/max_model_len",
          .concurrency = "/slo/concurrency",
          .draft_layers = "/engine/draft_layers",
          .attention_dp = "/engine/attention_dp",
          .moe_ep = "/engine/moe_ep_size"};
}

ShapeFields engine_flag_names(Engine e) { return engine_rules(e).flag_names(); }

std::vector<Problem> validate_attention_dp(const PlanInput& in, const EngineRules& rules,
                                           bool model_is_dense, const ShapeFields& f) {
  std::vector<Problem> out;
  if (in.attention_dp == 0)
    out.push_back({f.attention_dp, "must be at least 1 (1: no DP attention), got 0"});
  if (in.moe_ep == 0) out.push_back({f.moe_ep, "must be at least 1 (1: experts sharded), got 0"});
  if (!out.empty()) return out;
  if (in.attention_dp == 1) {
    if (in.moe_ep > 1)
      out.push_back({f.moe_ep,
                     "is the expert parallelism of DP attention's MoE layers (attention_dp > 1); "
                     "without DP attention enable_expert_parallel spreads whole experts over the "
                     "TP group"});
    return out;
  }
  const std::string dp = num(in.attention_dp);
  if (!rules.dp_attention_splits_tp())
    out.push_back({f.attention_dp, rules.label() +
                                       " has no DP attention in kvplan's rules (SGLang "
                                       "--enable-dp-attention and TensorRT-LLM "
                                       "enable_attention_dp do; vLLM's DP + EP is "
                                       "enable_expert_parallel over the replicas); got " +
                                       dp});
  else if (rules.dp_attention_groups_of_one_gpu() && in.tp != 1)
    out.push_back({f.tp, rules.label() +
                             "'s attention DP runs one GPU a group (its tp_size GPUs are tp_size "
                             "groups: enable_attention_dp with tp_size T is TP 1 × attention_dp "
                             "T): tensor parallelism " +
                             num(in.tp) + " a group is not a layout it runs"});
  if (model_is_dense)
    out.push_back({f.attention_dp,
                   "DP attention needs an MoE model (routed experts its groups share); a dense "
                   "model's groups are replicas (give the GPUs or replicas instead)"});
  if (in.pp > 1)
    out.push_back({f.pp, "pipeline parallelism " + num(in.pp) +
                             " under DP attention (attention_dp " + dp + ") is not modelled"});
  const std::uint64_t server = std::uint64_t{in.tp} * in.attention_dp;  // 32-bit factors
  const std::string layout = "tp " + num(in.tp) + " × attention_dp " + dp;
  if (server % in.moe_ep != 0)
    out.push_back({f.moe_ep, "expert parallelism " + num(in.moe_ep) + " must divide the server's " +
                                 num(server) + " GPUs (" + layout + ")"});
  if (server > kMaxGpus) {
    out.push_back({f.attention_dp,
                   layout + " = " + num(server) + " GPUs, over the limit of " + num(kMaxGpus)});
  } else if (in.gpus != 0 && in.gpus % server != 0) {
    out.push_back({f.gpus, num(in.gpus) +
                               " GPUs are not a whole number of DP-attention servers "
                               "of " +
                               layout + " = " + num(server) + " GPUs"});
  }
  return out;
}

std::vector<Problem> validate_deployment_shape(const DeploymentShape& s, const ModelSpec* model,
                                               const ShapeFields& f) {
  std::vector<Problem> out;
  const bool tp_ok = in_range(out, f.tp, "ranks", s.tp, 1, kMaxParallel);
  const bool pp_ok = in_range(out, f.pp, "stages", s.pp, 1, kMaxParallel);
  const bool dp_ok = !s.dp || in_range(out, f.dp, "replicas", *s.dp, 1, kMaxParallel);
  const bool gpus_ok = !s.gpus || in_range(out, f.gpus, "GPUs", *s.gpus, 1, kMaxGpus);
  if (s.block_size) in_range(out, f.block_size, "tokens", *s.block_size, 1, kMaxBlockSize);
  if (s.context) in_range(out, f.context, "tokens", *s.context, 1, kMaxContextTokens);
  if (s.concurrency) in_range(out, f.concurrency, "requests", *s.concurrency, 1, kMaxConcurrency);
  in_range(out, f.draft_layers, "layers", s.draft_layers, 0, kMaxDraftLayers);

  // The model's rules first: they say which TP and PP exist at all.
  bool tp_fits = true;  // a TP the model cannot shard makes the replica arithmetic moot
  if (model) {
    tp_fits = !tp_ok || valid_tp(*model, static_cast<std::uint32_t>(s.tp));
    if (!tp_fits)
      out.push_back(
          {f.tp,
           "tensor parallelism " + num(s.tp) + " does not fit the " + num(model->num_q_heads) +
               " attention heads and " + num(model->num_kv_heads) + " KV heads of " + model->id +
               " (it must divide the attention heads and divide or be a multiple "
               "of the KV heads" +
               (model->recurrent_layers() > 0 ? ", and shard the recurrent heads" : "") + ")"});
    if (pp_ok && s.pp > model->layers.size())
      out.push_back({f.pp, "pipeline parallelism " + num(s.pp) + " exceeds the " +
                               num(model->layers.size()) + " layers of " + model->id});
  }
  if (tp_ok && pp_ok && dp_ok) {
    // Each factor is at most 4096, so the product (at most 2^36) cannot wrap in 64 bits.
    const std::uint64_t per_replica = s.tp * s.pp;
    const std::uint64_t all = per_replica * s.dp.value_or(1);
    const std::string product =
        s.dp ? "TP × PP × DP = " + num(s.tp) + " × " + num(s.pp) + " × " + num(*s.dp)
             : "TP × PP = " + num(s.tp) + " × " + num(s.pp);
    if (all > kMaxGpus && !s.gpus) {
      out.push_back({s.dp ? f.dp : f.tp,
                     product + " = " + num(all) + " GPUs, over the limit of " + num(kMaxGpus)});
    } else if (per_replica > kMaxGpus) {
      out.push_back({f.tp, product + " = " + num(per_replica) +
                               " GPUs per replica, over the limit of " + num(kMaxGpus)});
    } else if (s.gpus && gpus_ok && tp_fits) {
      if (*s.gpus % per_replica != 0)
        out.push_back({f.gpus, num(*s.gpus) + " GPUs are not a whole number of replicas of TP " +
                                   num(s.tp) + " × PP " + num(s.pp) + " = " + num(per_replica) +
                                   " GPUs"});
      else if (s.dp && *s.gpus != all)
        out.push_back({f.gpus, num(*s.gpus) + " GPUs disagree with " + product + " = " + num(all) +
                                   " of the command line"});
    }
  }
  return out;
}

std::vector<Problem> validate_plan_input(const ModelSpec* model, const PlanInput& in,
                                         const ShapeFields& names) {
  DeploymentShape s{.tp = in.tp, .pp = in.pp, .draft_layers = in.draft_layers};
  if (in.gpus) s.gpus = in.gpus;
  if (in.block_size) s.block_size = in.block_size;
  s.context = in.context;
  s.concurrency = in.concurrency;
  return validate_deployment_shape(s, model, names);
}

std::vector<Problem> validate_sequence_flags(const SequenceFlags& f) {
  std::vector<Problem> out;
  if (f.temperature) {
    const double t = *f.temperature;
    if (!(t == 0 || (t >= kMinTemperature && t <= kMaxTemperature))) {  // NaN fails every test
      std::ostringstream got;
      got << t;
      out.push_back(
          {"--temperature",
           "must be 0 (greedy) or a number in [1e-06, 1e+06], got " + got.str() +
               (t > 0 && t < kMinTemperature
                    ? " (logits / temperature would overflow and the probabilities be NaN)"
                    : "")});
    }
  }
  if (f.prefill && (*f.prefill == 0 || (f.tokens && *f.prefill > *f.tokens)))
    out.push_back({"--prefill", "must be in [1, " + (f.tokens ? num(*f.tokens) : "T") +
                                    "] (the tokens run), got " + num(*f.prefill) +
                                    (*f.prefill ? " (a longer prompt keeps the full cache)" : "")});
  if (f.eval_from && f.tokens && *f.eval_from >= *f.tokens)
    out.push_back({"--eval-from", num(*f.eval_from) + " leaves no position to score in " +
                                      num(*f.tokens) + " tokens"});
  const std::uint64_t max_block = std::max(kMaxKernelBlockTokens, f.tokens.value_or(0));
  for (const std::uint64_t b : f.block_sizes)
    if (b == 0 || b > max_block) {
      out.push_back({"--block-size", "must be between 1 and " + num(max_block) +
                                         " tokens (a block is allocated whole), got " + num(b)});
      break;
    }
  return out;
}

std::vector<Problem> dedupe_replay_grid(ReplayGrid& g) {
  auto unique = [](auto& list, auto key) {
    std::vector<std::decay_t<decltype(key(list[0]))>> seen;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < list.size(); ++i) {
      auto k = key(list[i]);
      if (std::find(seen.begin(), seen.end(), k) != seen.end()) continue;
      seen.push_back(std::move(k));
      list[kept++] = list[i];
    }
    list.resize(kept);
  };
  if (!g.formats.empty())
    unique(g.formats, [](const std::string& s) { return to_string(parse_kv_format(s)); });
  if (!g.policies.empty())
    unique(g.policies, [](const std::string& s) { return to_string(parse_policy(s)); });
  if (!g.block_sizes.empty()) unique(g.block_sizes, [](std::uint32_t b) { return b; });
  const std::size_t n = std::max<std::size_t>(g.formats.size(), 1) *
                        std::max<std::size_t>(g.policies.size(), 1) *
                        std::max<std::size_t>(g.block_sizes.size(), 1);
  if (n > kMaxReplayConfigs)
    return {{g.block_sizes.size() >= std::max(g.formats.size(), g.policies.size()) ? "--block-size"
             : g.policies.size() >= g.formats.size()                               ? "--policy"
                                                                                   : "--kv-dtype",
             std::to_string(g.formats.size()) + " formats × " + std::to_string(g.policies.size()) +
                 " policies × " + std::to_string(g.block_sizes.size()) +
                 " block sizes = " + std::to_string(n) + " distinct configurations, more than " +
                 std::to_string(kMaxReplayConfigs) + " (each replays the whole run)"}};
  return {};
}

std::uint32_t shape_gpus(const DeploymentShape& s) {
  return static_cast<std::uint32_t>(s.gpus.value_or(s.tp * s.pp * s.dp.value_or(1)));
}

}  // namespace kvplan
