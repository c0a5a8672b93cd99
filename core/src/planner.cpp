#include "kvplan/planner.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>
#include <variant>

#include "kvplan/checked.hpp"
#include "kvplan/engine_rules.hpp"
#include "kvplan/error.hpp"
#include "kvplan/kv_format.hpp"
#include "kvplan/text_safe.hpp"
#include "planner_eval.hpp"
#include "spec_parse.hpp"

namespace kvplan {

namespace {
constexpr std::uint64_t kMaxTokens = std::uint64_t{1} << 40;  // kv_cost's context limit
constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;
using detail::u128;
}  // namespace

std::optional<VllmRules> vllm_release_rules(const std::string& v) {
  if (v == "current" || v == "latest") return VllmRules::current;
  auto release = [&](const std::string& minor) {
    return v == minor || v.rfind(minor + ".", 0) == 0;
  };
  if (release("0.9")) return VllmRules::v0_9;
  // 0.10: NCCL created after the memory baseline, inside non-torch (before
  // vllm-project/vllm#25359).
  if (release("0.10")) return VllmRules::v0_10;
  // 0.17 - 0.19: graphs outside the budget (the estimate is deducted from 0.20,
  // vllm-project/vllm#38284).
  for (const char* minor : {"0.17", "0.18", "0.19"})
    if (release(minor)) return VllmRules::v0_19;
  // 0.25: Model Runner V2 the default for dense models (vllm-project/vllm#44443, "became the
  // default for dense models in 0.25.1", vllm-project/vllm#49224).
  if (release("0.25")) return VllmRules::v0_25;
  return std::nullopt;
}

Engine parse_engine(const std::string& name, const std::string& source, const std::string& field,
                    VllmRules& rules) {
  rules = VllmRules::current;
  if (name.rfind("vllm@", 0) == 0) {
    const std::string v = name.substr(5);
    if (const auto r = vllm_release_rules(v)) {
      rules = *r;
      return Engine::vllm;
    }
    throw Error(
        source, field,
        "vLLM version \"" + v +
            "\" has no rule set of its own in kvplan (known: vllm = the current rules, "
            "vllm@0.9, vllm@0.10, vllm@0.19 for 0.17 - 0.19, vllm@0.25; for 0.11 - 0.16, "
            "vllm@0.9's memory terms are theirs, its pool rules mid-2025's; 0.20 - 0.24 deduct "
            "the CUDA-graph estimate as vllm does, with gpu_memory_utilization 0.92 by "
            "default); docs/deploy.md lists what changed when");
  }
  if (const auto at = name.find('@'); at != std::string::npos) {
    const Engine e = parse_engine(name.substr(0, at), source, field);
    throw Error(source, field,
                engine_rules(e).label() +
                    " has one rule set in kvplan: no version can be given for it (only vLLM's "
                    "rules have versions)");
  }
  return parse_engine(name, source, field);
}

std::string to_string(Engine e, VllmRules rules) { return engine_rules(e, rules).name(); }

std::optional<MemoryTerm> request_table_of(const Capacity& c, const PlanInput& in) {
  std::uint64_t rows = 0;                 // the largest table a rank allocates
  const StageCapacity* raised = nullptr;  // the stage whose decode state slots take the most
  for (const auto& s : c.stages) {
    rows = std::max(rows, s.sglang_max_num_reqs);
    if (!raised || s.sglang_decode_extra_state_bytes > raised->sglang_decode_extra_state_bytes)
      raised = &s;
  }
  // resolve_max_num_reqs reads the pool's final tokens (SGLang's PP ranks agree on the fewest).
  auto t = engine_rules(in).request_table(in, c.kv_cache_tokens, rows);
  // A hybrid Mamba decode worker's state slots beyond the budget come with the table
  // (SglangPools::decode_extra_state_bytes).
  if (t && raised && raised->sglang_decode_extra_state_bytes > 0) {
    t->bytes = add(t->bytes, raised->sglang_decode_extra_state_bytes, "request table");
    t->how += "; and " + std::to_string(raised->sglang_decode_extra_state_slots) +
              " Mamba state slots a decode worker's HybridMambaDecodeReqToTokenPool adds past "
              "the pool's (disaggregation/decode.py@382343f860c7df8dc43ecefd7902c940d81c99a9)";
  }
  return t;
}

Engine parse_engine(const std::string& name, const std::string& source, const std::string& field) {
  if (name == "vllm") return Engine::vllm;
  if (name == "sglang") return Engine::sglang;
  if (name == "trtllm" || name == "tensorrt-llm") return Engine::trtllm;
  throw Error(source, field, "unknown engine \"" + name + "\" (expected vllm, sglang or trtllm)");
}

std::string to_string(Engine e) {
  switch (e) {
    case Engine::vllm:
      return "vllm";
    case Engine::sglang:
      return "sglang";
    case Engine::trtllm:
      return "trtllm";
  }
  return "?";
}

std::uint32_t default_block_size(Engine e) { return engine_rules(e).default_block_size({}); }

std::uint32_t default_memory_fraction_ppm(Engine e) {
  return engine_rules(e).default_memory_fraction_ppm();
}

std::vector<double> spec_acceptance_of(std::vector<double> rates, std::uint32_t k,
                                       const std::string& source, const std::string& field) {
  if (k == 0)
    throw Error(source, field,
                "acceptance rates need speculative decoding: num_speculative_tokens is 0 "
                "(--engine-option num_speculative_tokens=K)");
  for (const double v : rates)
    if (!(v >= 0 && v <= 1))
      throw Error(source, field, "an acceptance rate is in [0, 1], got " + std::to_string(v));
  // One rate: each draft accepted with probability A once the one before it was, so position i
  // is accepted with A^i.
  if (rates.size() == 1)
    for (std::uint32_t i = 1; i < k; ++i) rates.push_back(rates.back() * rates.front());
  if (rates.size() != k)
    throw Error(source, field,
                std::to_string(rates.size()) + " rates for " + std::to_string(k) +
                    " speculative tokens: give one rate or one per draft position");
  for (std::size_t i = 1; i < rates.size(); ++i)
    if (rates[i] > rates[i - 1])
      throw Error(source, field,
                  "position " + std::to_string(i + 1) + "'s rate is above position " +
                      std::to_string(i) + "'s: a draft is accepted only after the one before it");
  return rates;
}

std::vector<double> parse_spec_acceptance(const std::string& text, std::uint32_t k,
                                          const std::string& source, const std::string& field) {
  std::vector<double> rates;
  for (const std::string& part : split_list(text, source, field)) {
    double v = 0;
    const char* end = part.data() + part.size();
    const auto [p, ec] = std::from_chars(part.data(), end, v);
    if (ec != std::errc() || p != end)  // the range is spec_acceptance_of's to check
      throw Error(source, field,
                  "expected a rate in [0, 1] or one per draft position separated by commas, "
                  "got '" +
                      part + "'");
    rates.push_back(v);
  }
  return spec_acceptance_of(std::move(rates), k, source, field);
}

std::uint32_t parse_fraction_ppm(const std::string& text, const std::string& source,
                                 const std::string& field) {
  return detail::parse_ppm(text, source, field);
}

std::uint32_t fraction_to_ppm(double v, const std::string& source, const std::string& field) {
  if (!(v > 0 && v <= 1))
    throw Error(source, field, "must be a fraction in (0, 1], got " + std::to_string(v));
  const auto ppm = static_cast<std::uint32_t>(std::llround(v * 1e6));
  if (ppm == 0) throw Error(source, field, "rounds to 0 at 6 decimals");
  return ppm;
}

std::uint64_t parse_gib(const std::string& text, const std::string& source,
                        const std::string& field) {
  auto bad = [&](const std::string& why) {
    return Error(source, field, why + ", got '" + text + "'");
  };
  const auto dot = text.find('.');
  const std::string whole = text.substr(0, dot);
  const std::string frac = dot == std::string::npos ? "" : text.substr(dot + 1);
  if (whole.empty() && frac.empty()) throw bad("expected a number of GiB");
  if (frac.size() > 9) throw bad("at most 9 decimals");
  for (char c : whole + frac)
    if (c < '0' || c > '9') throw bad("expected a non-negative decimal number of GiB");
  const std::uint64_t w =
      whole.empty() ? 0 : detail::parse_uint(whole, 0, std::uint64_t{1} << 20, source, field);
  std::uint64_t f = 0, scale = 1;
  for (char c : frac) f = f * 10 + static_cast<std::uint64_t>(c - '0'), scale *= 10;
  // f < 10^9 and 2^30 < 1.1e9: the product stays below 2^60.
  return w * kGiB + f * kGiB / scale;
}

bool valid_tp(const ModelSpec& model, std::uint32_t tp) {
  if (tp == 0) return false;
  if (model.num_q_heads % tp != 0) return false;
  if (model.recurrent_layers() > 0) {
    try {
      recurrent_state(model.recurrent, tp);  // the mixer's heads must shard too
    } catch (const Error&) {
      return false;
    }
  }
  if (model.is_mla()) return true;
  auto fits = [&](std::uint32_t h) {
    return h == 0 ? false : (tp <= h ? h % tp == 0 : tp % h == 0);
  };
  for (const auto& l : model.layers)
    if (l.kv_heads && l.kind != AttentionKind::none && !fits(l.kv_heads)) return false;
  return fits(model.num_kv_heads);
}

bool engine_supports(Engine, const KvFormat& f, const RetentionPolicy& p) {
  if (!is_full(p)) return false;
  switch (f.dtype) {
    case KvDtype::fp32:
    case KvDtype::fp16:
    case KvDtype::bf16:
    case KvDtype::fp8_e4m3:
    case KvDtype::fp8_e5m2:
      return true;
    case KvDtype::int8:
    case KvDtype::kivi:
      return false;
  }
  return false;
}

namespace {

// Layers per pipeline stage, vLLM's get_pp_indices: L // pp each, the remainder to the stages
// before the last (L = 10, pp = 4: 2, 3, 3, 2).
std::vector<std::uint32_t> stage_layer_counts(std::uint32_t layers, std::uint32_t pp) {
  std::vector<std::uint32_t> counts(pp, layers / pp);
  for (std::uint32_t i = 2; i < layers % pp + 2; ++i) ++counts[pp - i];
  return counts;
}

// Weight bytes of the whole checkpoint as the deployment loads it (a --dtype override scales an
// unquantized checkpoint; a quantized one keeps its stored layout).
std::uint64_t loaded_weights(const ModelSpec& model, const PlanInput& in,
                             const std::string& source) {
  if (model.quantized()) return model.weight_bytes();
  // --dtype auto loads a float32 checkpoint in bf16 ("Downcast for float32 models",
  // _resolve_auto_dtype in vllm/config/model.py), as default_kv_format stores its cache.
  const bool downcast = in.weight_dtype.empty() && model.weight_dtype == "fp32" && model.num_params;
  if (in.weight_dtype.empty() && !downcast) return model.weight_bytes();
  const std::string served = downcast ? std::string("bf16") : in.weight_dtype;
  const double bpp = weight_bytes_per_param(served, source, "weight_dtype");
  const auto half_bytes = static_cast<std::uint64_t>(std::llround(bpp * 2));  // int4 = 1
  return ceil_div(mul(model.num_params, half_bytes, "weight bytes"), 2);
}

// The weights of one rank of each pipeline stage. Layers split as vLLM's get_pp_indices
// (stage_layer_counts); the embedding sits on the first stage and lm_head on the last — a tied
// lm_head is a copy of the embedding there when PP > 1 (the models' PPMissingLayer /
// is_first_rank / is_last_rank placement, docs/engine-memory.md) — each split over TP
// (VocabParallelEmbedding, ParallelLMHead). Under expert parallelism the routed experts shard over
// the replicas the engine spreads them over too (EngineRules::expert_parallel_replicas).
std::vector<std::uint64_t> stage_weights(const ModelSpec& model, const PlanInput& in,
                                         const std::string& source) {
  const std::uint64_t all = loaded_weights(model, in, source);
  const double scale = model.weight_bytes() ? static_cast<double>(all) / model.weight_bytes() : 1;
  auto scaled = [&](std::uint64_t b) {
    return static_cast<std::uint64_t>(static_cast<double>(b) * scale);
  };
  const std::uint64_t embed = scaled(model.weights.embed_bytes);
  const std::uint64_t head = scaled(model.weights.head_bytes);
  const std::uint64_t tables = embed + head <= all ? embed + head : 0;
  std::uint64_t layer_part = ceil_div(all - tables, in.tp);  // one TP rank, every layer
  const EngineRules& rules = engine_rules(in);
  if ((in.expert_parallel || rules.data_parallel_shares_moe_layers()) &&
      model.weights.expert_bytes > 0 && scaled(model.weights.expert_bytes) <= all - tables) {
    // Within one replica the experts are 1/tp per GPU either way; the engines that spread them
    // over data-parallel replicas too (vLLM with or without EP, SGLang's DP attention groups)
    // divide by those.
    const std::uint64_t dp = rules.expert_parallel_replicas(in);
    const std::uint64_t experts = scaled(model.weights.expert_bytes);
    layer_part = add(ceil_div(all - tables - experts, in.tp), ceil_div(experts, mul(in.tp, dp)),
                     "weight bytes");
  }
  const auto layers = static_cast<std::uint32_t>(model.layers.size());
  const std::vector<std::uint32_t> counts = stage_layer_counts(layers, in.pp);
  std::vector<std::uint64_t> out;
  for (std::uint32_t s = 0; s < in.pp; ++s) {
    std::uint64_t w = static_cast<std::uint64_t>(
        std::ceil(static_cast<long double>(layer_part) * counts[s] / std::max(layers, 1u)));
    // What the engine's own layout adds after loading (vLLM's MXFP4 experts).
    w = add(w, rules.held_weight_extra_bytes(model, in, counts[s]), "weight bytes");
    if (tables == 0) {
      out.push_back(w);
      continue;
    }
    if (s == 0) w = add(w, ceil_div(embed, in.tp), "weight bytes");
    if (s + 1 == in.pp) {
      const std::uint64_t h = head ? head : (in.pp > 1 ? embed : 0);
      w = add(w, ceil_div(h, in.tp), "weight bytes");
    }
    out.push_back(w);
  }
  return out;
}

// The held options when they are `engine`'s, else T's defaults.
template <class T>
const T& options_of(const PlanInput& in, Engine engine) {
  static const T defaults{};
  const T* held = std::get_if<T>(&in.options);
  return held && in.engine == engine ? *held : defaults;
}

template <class T>
T& edit_options(PlanInput& in) {
  if (!std::holds_alternative<T>(in.options)) in.options.emplace<T>();
  return std::get<T>(in.options);
}

// EngineOptions holding its alternative `index`'s defaults.
template <std::size_t... I>
EngineOptions default_options(std::size_t index, std::index_sequence<I...>) {
  EngineOptions o;
  ((index == I ? void(o.emplace<I>()) : void()), ...);
  return o;
}

}  // namespace

const VllmOptions& PlanInput::vllm() const { return options_of<VllmOptions>(*this, Engine::vllm); }
const SglangOptions& PlanInput::sglang() const {
  return options_of<SglangOptions>(*this, Engine::sglang);
}
const TrtllmOptions& PlanInput::trtllm() const {
  return options_of<TrtllmOptions>(*this, Engine::trtllm);
}
VllmOptions& PlanInput::edit_vllm() { return edit_options<VllmOptions>(*this); }
SglangOptions& PlanInput::edit_sglang() { return edit_options<SglangOptions>(*this); }
TrtllmOptions& PlanInput::edit_trtllm() { return edit_options<TrtllmOptions>(*this); }

void check_model_runner(const VllmOptions& o, const std::string& source, const std::string& field) {
  if (o.model_runner == VllmOptions::ModelRunner::v2 &&
      (o.rules == VllmRules::v0_9 || o.rules == VllmRules::v0_10))
    throw Error(source, field,
                "v2: kvplan's " + to_string(Engine::vllm, o.rules) +
                    " rules predate Model Runner V2 (vllm/v1/worker/gpu/); give a later release");
}

void check_engine_options(const PlanInput& in, const std::string& source) {
  if (in.engine == Engine::vllm) check_model_runner(in.vllm(), source, "model_runner");
  // A layout this SGLang does not start: SchedulerRecvSkipper.__init__ asserts not
  // enable_dp_attention (python/sglang/srt/managers/scheduler_recv_skipper.py
  // @70310f051068e3ea8dbaaecd4e408919cd431417), and the skipper exists at an interval above 1.
  if (in.engine == Engine::sglang && in.sglang().scheduler_recv_interval > 1 && in.attention_dp > 1)
    throw Error(source, "scheduler_recv_interval",
                "--scheduler-recv-interval " + std::to_string(in.sglang().scheduler_recv_interval) +
                    " beside --enable-dp-attention does not start: SGLang's "
                    "SchedulerRecvSkipper asserts not enable_dp_attention "
                    "(scheduler_recv_skipper.py@70310f05); use an interval of 1 or no DP "
                    "attention");
  // Whole servers of data_parallel_size DP ranks (VllmOptions::data_parallel_size).
  const std::uint64_t unit = std::uint64_t{in.tp} * in.pp;
  if (const std::uint32_t dp = in.vllm().data_parallel_size;
      dp && in.gpus && unit && (in.gpus / unit) % dp != 0)
    throw Error(source, "data_parallel_size",
                std::to_string(in.gpus / unit) + " replicas of TP " + std::to_string(in.tp) +
                    " × PP " + std::to_string(in.pp) + " are not whole servers of " +
                    std::to_string(dp) + " data-parallel ranks");
  const auto held = static_cast<Engine>(in.options.index());
  if (held == in.engine) return;
  const bool defaults =
      std::visit([](const auto& o) { return o == std::decay_t<decltype(o)>{}; }, in.options);
  if (defaults) return;
  throw Error(source, "engine",
              to_string(held) + " options given to a " + to_string(in.engine) +
                  " deployment: they are not read by " + to_string(in.engine));
}

void set_engine(PlanInput& in, Engine e) {
  in.engine = e;
  const auto index = static_cast<std::size_t>(e);
  if (in.options.index() != index) {
    in.options =
        default_options(index, std::make_index_sequence<std::variant_size_v<EngineOptions>>{});
    // The settings an engine states under its own keys, in its own sense (the state dtypes,
    // the pool's token cap): the new engine's defaults, as its launch line states them.
    in.conv_state_dtype.reset();
    in.ssm_state_dtype.reset();
    in.max_total_tokens.reset();
  }
}

void set_engine(PlanInput& in, const std::string& name, const std::string& source,
                const std::string& field) {
  VllmRules rules{};
  set_engine(in, parse_engine(name, source, field, rules));
  if (auto* v = std::get_if<VllmOptions>(&in.options)) v->rules = rules;
}

void set_available_per_rank(PlanInput& in, std::vector<std::uint64_t> ranks) {
  in.available_kv_bytes =
      ranks.empty() ? std::nullopt
                    : std::optional<std::uint64_t>(*std::min_element(ranks.begin(), ranks.end()));
  in.available_kv_bytes_per_rank = std::move(ranks);
}

void check_available_per_rank(const PlanInput& in, const std::string& source,
                              const std::string& field) {
  const std::size_t n = in.available_kv_bytes_per_rank.size();
  if (n == 0 || n == std::uint64_t{in.tp} * in.pp) return;
  throw Error(source, field,
              std::to_string(n) + " figures for " + std::to_string(in.tp) + " x " +
                  std::to_string(in.pp) +
                  " ranks (TP x PP): give one figure, or one a rank in rank order (stage · tp + "
                  "TP rank)");
}

std::uint64_t gpus_of(const PlanInput& in) {
  if (in.gpus) return in.gpus;
  return std::uint64_t{in.tp} * in.pp * std::max<std::uint32_t>(in.attention_dp, 1);
}

std::uint64_t requests_per_replica(const PlanInput& in) {
  const std::uint64_t unit = std::uint64_t{in.tp} * in.pp;
  const std::uint64_t replicas = unit ? std::max<std::uint64_t>(gpus_of(in) / unit, 1) : 1;
  return ceil_div(std::max<std::uint64_t>(in.concurrency, 1), replicas);
}

MemoryBudget memory_budget(const ModelSpec& model, const PlanInput& in, const std::string& source) {
  MemoryBudget m;
  m.total_bytes = in.gpu_memory_bytes;
  m.fraction_ppm = in.memory_fraction_ppm
                       ? in.memory_fraction_ppm
                       : engine_rules(in).default_memory_fraction_ppm(in, &model);
  if (in.memory_fraction_ppm > 1000000)
    throw Error(source, "gpu_memory_utilization", "must be at most 1.0");
  if (in.tp == 0) throw Error(source, "tp", "must be at least 1, got 0");
  if (in.pp == 0) throw Error(source, "pp", "must be at least 1, got 0");
  if (in.available_kv_bytes) {
    m.measured = true;
    m.available_bytes = *in.available_kv_bytes;
    return m;
  }
  if (in.gpu_memory_bytes == 0)
    throw Error(source, "gpu",
                "no GPU memory to plan with: give a GPU preset, the GPU memory in GiB, or the "
                "measured available KV cache memory");
  if (model.num_params == 0 && model.weights.bytes == 0)
    throw Error(source, "model",
                model.id +
                    " has no num_params, so its weight memory is unknown: give the "
                    "measured available KV cache memory instead");
  if (in.pp > model.layers.size())
    throw Error(source, "pp",
                "pipeline parallelism " + std::to_string(in.pp) + " exceeds the " +
                    std::to_string(model.layers.size()) + " layers of " + model.id);
  const EngineRules& rules = engine_rules(in);
  const std::vector<std::uint64_t> weights = stage_weights(model, in, source);
  // The engine sizes every stage by the smallest budget (vLLM: the minimum over the workers'
  // available memory; SGLang: min over PP ranks).
  bool first = true;
  for (std::uint32_t s = 0; s < in.pp; ++s) {
    MemoryTerms terms = rules.memory_terms({model, in, s + 1 == in.pp});
    if (in.memory_corrections) apply_corrections(terms, *in.memory_corrections);
    if (in.reserve_bytes) {
      terms = MemoryTerms{};
      terms.activation = {*in.reserve_bytes, MemoryTerm::Basis::given, "the reserve given", ""};
      terms.graphs_in_budget = true;
    }
    if (s == 0 || terms.outside_bytes() > m.outside_terms.outside_bytes()) m.outside_terms = terms;
    // SGLang's fraction is of the memory free before the weights: the device less the context.
    const std::uint64_t base =
        rules.fraction_of_free_memory() && terms.context.bytes < m.total_bytes
            ? m.total_bytes - terms.context.bytes
            : m.total_bytes;
    const BudgetSplit b = rules.budget(base, m.fraction_ppm, weights[s], terms.reserve_bytes());
    const bool worse =
        first || b.available_bytes < m.available_bytes ||
        (b.available_bytes == m.available_bytes && b.shortfall_bytes > m.shortfall_bytes);
    if (!worse) continue;
    first = false;
    m.stage = s;
    m.weight_bytes = weights[s];
    m.terms = terms;
    m.reserve_bytes = terms.reserve_bytes();
    m.requested_bytes = b.requested_bytes;
    m.available_bytes = b.available_bytes;
    m.shortfall_bytes = b.shortfall_bytes;
  }
  // A pool of given bytes (TensorRT-LLM max_gpu_total_bytes) replaces the fraction's; the
  // allocation fails when weights, reserve and the pool exceed the GPU.
  if (const auto fixed = rules.fixed_pool_bytes(in)) {
    const std::uint64_t used = add(add(m.weight_bytes, m.reserve_bytes, "weights and reserve"),
                                   *fixed, "weights, reserve and KV pool");
    m.fixed_pool_bytes = *fixed;
    m.available_bytes = *fixed;
    m.shortfall_bytes = used > m.total_bytes ? used - m.total_bytes : 0;
  }
  // What the fraction leaves out must hold the context (and graphs captured outside the budget).
  const std::uint64_t left_out =
      rules.fraction_after_weights() ? m.total_bytes : m.total_bytes - m.requested_bytes;
  const std::uint64_t outside = m.outside_terms.outside_bytes();
  if (!rules.fraction_after_weights() && !rules.fraction_of_free_memory() && outside > left_out)
    m.outside_shortfall_bytes = outside - left_out;
  return m;
}

std::optional<std::uint32_t> fraction_that_starts(const MemoryBudget& m) {
  if (m.outside_shortfall_bytes == 0 || m.total_bytes == 0) return std::nullopt;
  const double room = 1.0 - static_cast<double>(m.outside_terms.outside_bytes()) /
                                static_cast<double>(m.total_bytes);
  if (room <= 0) return std::nullopt;
  const auto ppm = static_cast<std::uint32_t>(std::floor(room * 100 + 1e-9)) * 10000u;
  if (ppm == 0 || ppm >= m.fraction_ppm) return std::nullopt;
  return ppm;
}

namespace detail {

namespace {

using LayerType = PlanEval::LayerType;
using Stage = PlanEval::Stage;

// The cache block in tokens: the one asked for, or the engine's default (vLLM 16).
std::uint32_t block_size_of(const PlanInput& in, const std::string& source) {
  const std::uint32_t bs = in.block_size ? in.block_size : engine_rules(in).default_block_size(in);
  if (bs > (1u << 20))
    throw Error(source, "block_size", "must be at most 1048576 tokens, got " + std::to_string(bs));
  return bs;
}

// KV heads per rank, once TP divides the query heads (and shards or replicates the KV heads) and
// PP gives every stage at least one layer.
std::uint32_t kv_heads_checked(const ModelSpec& model, const PlanInput& in,
                               const std::string& source) {
  if (in.tp == 0) throw Error(source, "tp", "must be at least 1, got 0");
  if (in.pp == 0) throw Error(source, "pp", "must be at least 1, got 0");
  if (model.num_q_heads % in.tp != 0)
    throw Error(source, "tp",
                "tensor parallelism " + std::to_string(in.tp) + " does not divide the " +
                    std::to_string(model.num_q_heads) + " attention heads of " + model.id);
  const std::uint32_t heads = kv_heads_per_rank(model, engine_rules(in).kv_head_tp(in), source);
  if (in.pp > model.layers.size())
    throw Error(source, "pp",
                "pipeline parallelism " + std::to_string(in.pp) + " exceeds the " +
                    std::to_string(model.layers.size()) + " layers of " + model.id);
  return heads;
}

// Replicas of TP × PP GPUs in the deployment (gpus 0: one, or one DP-attention server's groups).
std::uint32_t replicas_of(const PlanInput& in, const std::string& source) {
  if (in.gpus == 0) return std::max<std::uint32_t>(in.attention_dp, 1);
  const std::uint64_t per_replica = mul(in.tp, in.pp);
  if (in.gpus % per_replica != 0)
    throw Error(source, "gpus",
                std::to_string(in.gpus) + " GPUs are not a whole number of replicas of TP " +
                    std::to_string(in.tp) + " × PP " + std::to_string(in.pp) + " = " +
                    std::to_string(per_replica) + " GPUs");
  return static_cast<std::uint32_t>(in.gpus / per_replica);
}

void check_context(const PlanInput& in, const std::string& source) {
  if (in.context == 0) throw Error(source, "context", "must be at least 1 token, got 0");
  if (in.context > kMaxTokens)
    throw Error(source, "context",
                "must be at most 2^40 tokens, got " + std::to_string(in.context));
}

// The stage's layers that hold an attention cache, its draft layers after them.
std::vector<LayerSpec> attention_layers(const ModelSpec& model, const ModelSpec& sub,
                                        std::uint32_t drafts) {
  std::vector<LayerSpec> cached;
  for (const auto& l : sub.layers)
    if (l.kind != AttentionKind::none) cached.push_back(l);
  for (std::uint32_t d = 0; d < drafts; ++d)
    cached.push_back({model.is_mla() ? AttentionKind::mla : AttentionKind::full, 0});
  return cached;
}

// The stage's KV-cache spec types with their layer counts, the recurrent state last. A type is
// a kind, a window and a geometry (KV heads per rank, K and V widths).
std::vector<LayerType> layer_types(const ModelSpec& model, const std::vector<LayerSpec>& cached,
                                   std::uint32_t state_layers, const PlanInput& in,
                                   std::uint32_t heads, const std::string& source) {
  std::vector<LayerType> types;
  for (const auto& l : cached) {
    // vLLM groups by spec type (SlidingWindowSpec, ChunkedLocalAttentionSpec, full); SGLang and
    // TensorRT-LLM give every attention layer a full-attention cache.
    const bool own = (l.kind == AttentionKind::sliding || l.kind == AttentionKind::chunked) &&
                     engine_rules(in).local_layers_own_groups(model, in);
    LayerType t{own ? l.kind : AttentionKind::full, own ? l.window : 0, 1};
    t.kv_heads = l.kv_heads ? kv_heads_per_rank(model, l, in.tp, source) : heads;
    t.k_width = l.head_dim_k ? l.head_dim_k : model.head_dim_k;
    t.v_width = l.head_dim_v ? l.head_dim_v : model.head_dim_v;
    auto it = std::find_if(types.begin(), types.end(), [&](const LayerType& x) {
      return x.kind == t.kind && x.window == t.window && x.kv_heads == t.kv_heads &&
             x.k_width == t.k_width && x.v_width == t.v_width;
    });
    if (it == types.end())
      types.push_back(t);
    else
      ++it->count;
  }
  if (state_layers > 0) types.push_back({AttentionKind::none, 0, state_layers});
  return types;
}

// Sets st.group_size and st.group_types from st.types.
void group_layer_types(Stage& st, const PlanInput& in) {
  const std::uint32_t typed = st.cached + st.state_layers;
  if (typed == 0) return;
  // Each type splits into ceil(count / group_size) groups (the last one padded).
  st.group_size = typed;
  if (st.types.size() > 1) {
    std::uint32_t fewest = std::numeric_limits<std::uint32_t>::max(), most = 0;
    for (const auto& t : st.types)
      fewest = std::min(fewest, t.count), most = std::max(most, t.count);
    st.group_size = engine_rules(in).kv_group_size(in, fewest, most);
  }
  for (std::size_t t = 0; t < st.types.size(); ++t)
    for (std::uint32_t g = 0; g < ceil_div(st.types[t].count, st.group_size); ++g)
      st.group_types.push_back(t);
}

// Stage `s` of ev.in.pp: `count` layers from `first`, the draft layers on the last stage.
Stage make_stage(const PlanEval& ev, std::uint32_t s, std::uint32_t first, std::uint32_t count) {
  Stage st;
  st.sub = ev.model;
  st.sub.layers.assign(ev.model.layers.begin() + first, ev.model.layers.begin() + first + count);
  const std::uint32_t drafts = s + 1 == ev.in.pp ? ev.in.draft_layers : 0;  // after the last layer
  const std::vector<LayerSpec> cached = attention_layers(ev.model, st.sub, drafts);
  st.draft_layers = drafts;
  st.state_layers = st.sub.recurrent_layers();
  st.cached = static_cast<std::uint32_t>(cached.size());
  // Validates the format against the widths and gives the byte-exact cost (kivi mode).
  st.kv = kv_cost(st.sub, ev.make_cost_input(ev.in.context, drafts), ev.source);
  st.types = layer_types(ev.model, cached, st.state_layers, ev.in, ev.heads, ev.source);
  group_layer_types(st, ev.in);
  return st;
}

std::vector<Stage> split_stages(const PlanEval& ev) {
  std::vector<Stage> stages;
  const auto counts =
      stage_layer_counts(static_cast<std::uint32_t>(ev.model.layers.size()), ev.in.pp);
  std::uint32_t first = 0;
  for (std::uint32_t s = 0; s < ev.in.pp; ++s) {
    stages.push_back(make_stage(ev, s, first, counts[s]));
    first += counts[s];
  }
  bool any = false;
  for (const auto& st : stages) any = any || st.cached + st.state_layers > 0;
  if (!any && !ev.model.attention_free)
    throw Error(ev.source, "model",
                ev.model.id + " has no layer with a KV cache or a recurrent state");
  return stages;
}

// One layer's recurrent state, one sequence, one rank: the state group of a stage's kv_cost
// (make_layout's state; every stage shares the model's mixer). 0 without recurrent layers.
std::uint64_t state_bytes_of(const std::vector<Stage>& stages) {
  for (const auto& st : stages)
    for (const auto& g : st.kv.groups)
      if (g.role == GroupRole::state) return g.bytes_per_layer;
  return 0;
}

// One block of `tokens` tokens of one attention layer on one rank: kv_cache_interface.py
// page_size_bytes, plus the per-token-head scales of int8. 0 without attention layers.
// A sparse-attention (DSA) MLA layer also holds its indexer's keys, index_head_dim fp8 values and
// one fp32 scale per 128 a token (formula.hpp indexer_bytes_per_token), whatever the KV format,
// and every engine sizes its pool by the two together:
// - vLLM: DeepseekV32IndexerCache is an MLAAttentionSpec of head index_head_dim + … · 4, uint8,
//   beside each MLA layer (vllm/model_executor/models/deepseek_v2.py); one group of both
//   (UniformTypeKVCacheSpecs) whose block costs the sum of their pages.
// - SGLang: get_cell_size_per_token adds (index_head_dim + index_head_dim // 128 · 4) · layers
//   for is_deepseek_nsa models (python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py
//   @226149ac457bd1a1b5d450f55c01f72f604320d6).
// - TensorRT-LLM: DSACacheManager counts the indexer's elements at the KV dtype's size
//   (EngineRules::indexer_token_bytes, engines/trtllm.cpp).
std::uint64_t attention_page(const ModelSpec& model, const PlanInput& in, std::uint32_t heads,
                             std::uint32_t tokens, std::uint32_t k_width, std::uint32_t v_width) {
  if (model.is_mla()) {
    const EngineRules& rules = engine_rules(in);
    const auto own = rules.latent_token_bytes(model, in);
    const std::uint64_t latent =
        own ? mul(tokens, *own, "latent bytes")
            : stream_bytes(in.format, StreamRole::latent, model.latent_width(), tokens, tokens);
    if (model.index_head_dim == 0) return latent;
    const std::uint64_t indexer = rules.indexer_token_bytes(model.index_head_dim, in.format);
    return add(latent, mul(model.indexer_keys(tokens), indexer, "indexer bytes"), "page bytes");
  }
  return mul(heads,
             add(stream_bytes(in.format, StreamRole::key, k_width, tokens, tokens),
                 stream_bytes(in.format, StreamRole::value, v_width, tokens, tokens)),
             "page bytes");
}

// The same with the model's own geometry; 0 without attention layers.
std::uint64_t attention_page(const ModelSpec& model, const PlanInput& in, std::uint32_t heads,
                             std::uint32_t tokens) {
  if (model.cached_layers() == 0 && in.draft_layers == 0) return 0;
  return attention_page(model, in, heads, tokens, model.head_dim_k, model.head_dim_v);
}

bool own_geometry(const ModelSpec& model, const LayerType& t, std::uint32_t heads) {
  return t.kind != AttentionKind::none && !model.is_mla() &&
         (t.kv_heads != heads || t.k_width != model.head_dim_k || t.v_width != model.head_dim_v);
}

struct PageSize {
  std::uint32_t block_size = 0;  // tokens, after hybrid alignment
  std::uint64_t page = 0;        // bytes of one block of one layer on one rank
};

// The uniform page of a paged pool, attention and recurrent state alike.
PageSize page_size(const PlanEval& ev) {
  PageSize p{ev.bs, attention_page(ev.model, ev.in, ev.heads, ev.bs)};
  if (ev.state_bytes == 0) return p;
  if (ev.rules->pages_recurrent_state() && p.page > 0) {
    // Hybrid page unification (vLLM Platform._align_hybrid_block_size, formerly
    // HybridAttentionMambaModelConfig.verify_and_update_config): the attention block grows
    // to align · cdiv(state page, align · attention bytes per token), align = max(16, the
    // block size asked for), and the state page is padded to that attention page.
    const std::uint64_t one = attention_page(ev.model, ev.in, ev.heads, 1);
    const std::uint64_t align = std::max<std::uint64_t>(16, ev.bs);
    const std::uint64_t want = mul(align, ceil_div(ev.state_bytes, mul(align, one)), "block size");
    if (want > (1u << 24))
      throw Error(
          ev.source, "block_size",
          "the recurrent state needs attention blocks of " + std::to_string(want) + " tokens");
    p.block_size = std::max<std::uint32_t>(ev.bs, static_cast<std::uint32_t>(want));
    p.page = attention_page(ev.model, ev.in, ev.heads, p.block_size);
  } else if (p.page == 0) {
    p.page = ev.state_bytes;  // attention-free: the pool holds state pages only
  }
  return p;
}

// vLLM's UniformTypeKVCacheSpecs: a stage's attention layers of one kind as one type of count 1
// in one group, whose block costs `extra` bytes plus each type's layers' pages (`page_of`).
// Returns that page.
template <class PageOf>
std::uint64_t one_group_of(PlanStage& st, std::uint32_t bs, std::uint64_t extra, PageOf page_of) {
  PlanLayerType all = st.types.empty() ? PlanLayerType{} : st.types[0];
  all.count = 1;
  all.block_size = bs;
  all.page = extra;
  for (const auto& t : st.types)
    all.page = add(all.page, mul(page_of(t), t.count, "page bytes"), "page bytes");
  st.types = {all};
  st.group_size = 1;
  st.group_types = {0};
  return all.page;
}

// Layers whose pages differ (their own KV heads or head dims, vLLM only). With one attention kind
// and window and no recurrent state they form one group of all layers whose block costs the sum
// of their pages (get_kv_cache_groups -> UniformTypeKVCacheSpecs.from_specs,
// get_kv_cache_config_from_groups: available // that sum). Otherwise the pages are unified to the
// largest (unify_kv_cache_spec_page_size): an attention type whose page divides it takes a block
// size that many times larger; a recurrent state (MambaSpec) and a non-MLA attention page that
// does not divide it are padded to it (kv_cache_utils.py and tests/v1/core/test_kv_cache_utils.py
// @ 002f10e0cfa1373a19a0d2756598a34b700d20e5). Only an MLA page would raise NotImplementedError
// there, and own_geometry() never holds for MLA (one latent width in every layer). The older
// kv_cache_utils.py @ 001cabc1 refused any page that does not divide; kvplan follows 002f10e0, the
// commit of the tests it mirrors. Sets ev.page to the common page.
void unify_pages(PlanEval& ev) {
  bool differs = false;
  for (const auto& st : ev.stages)
    for (const auto& t : st.types) differs = differs || own_geometry(ev.model, t, ev.heads);
  if (!differs) return;
  if (const auto no = ev.rules->own_layer_geometry_refusal())
    throw Error(ev.source, no->field, no->message);
  auto real_page = [&](const LayerType& t) {
    return t.kind == AttentionKind::none
               ? ev.page
               : attention_page(ev.model, ev.in, t.kv_heads, ev.bs, t.k_width, t.v_width);
  };
  // vLLM groups the layers of all workers at once, then projects the groups on each worker.
  bool one_kind = true;
  std::uint64_t largest = 0;
  const LayerType* first = nullptr;
  for (const auto& st : ev.stages) {
    for (const auto& t : st.types) {
      if (!first) first = &t;
      one_kind = one_kind && t.kind != AttentionKind::none && t.kind == first->kind &&
                 t.window == first->window;
      largest = std::max(largest, real_page(t));
    }
  }
  if (one_kind) {
    std::uint64_t common = 0;
    for (auto& st : ev.stages) {
      if (st.types.empty()) continue;
      common = std::max(common, one_group_of(st, ev.bs, 0, real_page));
    }
    ev.page = common;
    return;
  }
  for (auto& st : ev.stages) {
    for (auto& t : st.types) {
      const std::uint64_t p = real_page(t);
      t.block_size = ev.bs;
      if (t.kind != AttentionKind::none && largest % p == 0) {
        const std::uint64_t b = mul(ev.bs, largest / p, "block size");
        if (b > (1u << 24))
          throw Error(
              ev.source, "block_size",
              "unifying the pages needs attention blocks of " + std::to_string(b) + " tokens");
        t.block_size = static_cast<std::uint32_t>(b);
      }
      t.page = largest;
    }
  }
  ev.page = largest;
}

// vLLM's extract_hidden_states: one cache-only layer after the last stage's layers holding
// in.vllm().extract_hidden_states hidden states of hidden_size a token at the model dtype
// (HiddenStateCacheSpec, an MLAAttentionSpec: no V; a quantized KV dtype is replaced by "auto",
// vllm/model_executor/models/extract_hidden_states.py@055e47c28003156421365af985d676fc921cb075).
// get_kv_cache_groups (vllm/v1/core/kv_cache_utils.py@002f10e0cfa1373a19a0d2756598a34b700d20e5):
// - beside attention layers of one type and block (full or MLA, UniformTypeKVCacheSpecs.from_specs)
//   it joins their one group and its page adds to the block;
// - otherwise it keeps a group of its own, padded to the common page, whose block is the largest
//   divisor of the groups' blocks' gcd whose hidden states fit that page
//   (_largest_divisor_at_most); where one token's hidden states exceed the page, every group's
//   block first grows cdiv(per token, page) times (_ensure_min_page_size).
// Vllm::check_pool_layout has refused what this does not model (older rules, kivi, no hidden_size,
// a kpool indexer); another engine's plan reads vLLM's options as their defaults (none).
void add_hidden_states(PlanEval& ev) {
  const std::uint32_t n = ev.in.vllm().extract_hidden_states;
  if (n == 0) return;
  const char* field = "extract_hidden_states";
  const auto dtype = static_cast<std::uint64_t>(
      nominal_bytes_per_element(default_kv_format(ev.model, ev.in.weight_dtype)));
  const std::uint64_t per_token = mul(mul(n, ev.model.hidden_size, field), dtype, field);
  bool one_type = true;
  for (const auto& st : ev.stages)
    for (const auto& t : st.types)
      one_type = one_type && t.kind == AttentionKind::full && ev.block_of(t) == ev.bs;
  PlanStage& last = ev.stages.back();
  if (one_type) {
    const std::uint64_t page = one_group_of(last, ev.bs, mul(ev.bs, per_token, "page bytes"),
                                            [&](const PlanLayerType& t) { return ev.page_of(t); });
    if (ev.stages.size() == 1) ev.page = page;
    return;
  }
  if (per_token > ev.page) {
    const std::uint64_t scale = ceil_div(per_token, ev.page);
    const std::uint64_t bs = mul(ev.bs, scale, "block size");
    if (bs > (1u << 24))
      throw Error(ev.source, "block_size",
                  "the hidden states need blocks of " + std::to_string(bs) + " tokens");
    ev.bs = static_cast<std::uint32_t>(bs);
    ev.page = mul(ev.page, scale, "page bytes");
    for (auto& st : ev.stages)
      for (auto& t : st.types) {
        if (t.block_size) t.block_size = static_cast<std::uint32_t>(t.block_size * scale);
        if (t.page) t.page = mul(t.page, scale, "page bytes");
      }
  }
  std::uint64_t g = 0;
  for (const auto& st : ev.stages)
    for (auto t : st.group_types) g = std::gcd(g, std::uint64_t{ev.block_of(st.types[t])});
  const std::uint64_t fit = std::max<std::uint64_t>(ev.page / per_token, 1);
  std::uint64_t block = std::min(g, fit);
  while (g % block != 0) --block;
  PlanLayerType hidden{.kind = AttentionKind::full,
                       .count = 1,
                       .kv_heads = n,
                       .k_width = ev.model.hidden_size,
                       .block_size = static_cast<std::uint32_t>(block),
                       .page = ev.page};
  last.types.push_back(hidden);
  last.group_types.push_back(last.types.size() - 1);
}

// Decode context parallelism, checked for every format (a kivi format holds no paged pool but
// vLLM refuses these deployments all the same). vLLM reuses the TP ranks for the DCP group:
// The measured memory of each stage's ranks, the least of them; empty without a per-rank list.
std::vector<std::uint64_t> stage_available(const PlanInput& in, const std::string& source) {
  const std::vector<std::uint64_t>& ranks = in.available_kv_bytes_per_rank;
  check_available_per_rank(in, source, "available_kv_gib");
  if (ranks.empty()) return {};
  std::vector<std::uint64_t> stages(in.pp, std::numeric_limits<std::uint64_t>::max());
  for (std::size_t r = 0; r < ranks.size(); ++r)
    stages[r / in.tp] = std::min(stages[r / in.tp], ranks[r]);
  return stages;
}

// Sets each cached stage's num_blocks (available // page // group_size, or the override) and
// returns the minimum over them.
std::uint64_t assign_blocks(std::vector<Stage>& stages, std::uint64_t available, std::uint64_t page,
                            std::uint32_t bs, const PlanInput& in, const std::string& source) {
  std::uint64_t least = std::numeric_limits<std::uint64_t>::max();
  // vLLM sizes each worker by its own memory and layers; the others by the least memory.
  const std::vector<std::uint64_t> per_stage = engine_rules(in).sizes_stages_by_own_memory()
                                                   ? stage_available(in, source)
                                                   : std::vector<std::uint64_t>{};
  for (std::size_t s = 0; s < stages.size(); ++s) {
    Stage& st = stages[s];
    if (st.cached + st.state_layers == 0) continue;
    if (!per_stage.empty()) available = per_stage.at(s);
    st.block_bytes = mul(page, st.group_size, "block bytes");
    for (auto t : st.group_types)
      if (st.types[t].page)
        st.block_bytes =
            std::max(st.block_bytes, mul(st.types[t].page, st.group_size, "block bytes"));
    st.num_blocks = available / st.block_bytes;
    if (st.sglang) {
      // SGLang: the full pool's pages (the SWA pool's when every layer is SWA).
      st.num_blocks =
          (st.sglang->full_tokens ? st.sglang->full_tokens : st.sglang->swa_tokens) / bs;
    }
    if (!st.trtllm.empty())
      st.num_blocks = st.trtllm.back().primary_blocks;  // largest window
    else if (st.trtllm_states)
      st.num_blocks = 0;  // a rank of Mamba layers alone: slots only
    if (const auto fixed = engine_rules(in).blocks_override(in)) st.num_blocks = *fixed;
    least = std::min(least, st.num_blocks);
  }
  return least;
}

}  // namespace

void PlanEval::attach_engine_pools() {
  if (page == 0) return;
  for (auto& st : stages) {
    if (st.cached + st.state_layers == 0) continue;
    rules->attach_stage_pools(*this, st);
  }
}

PlanEval::PlanEval(const ModelSpec& m, const PlanInput& input, const std::string& src)
    : model(m), in(input), source(src), rules(&engine_rules(input)) {
  check_engine_options(in, source);
  if (const auto no = rules->kpool_indexer_refusal(); no && model.index_kpool > 1)
    throw Error(source, no->field, no->message);
  bs = rules->forced_block_size(model, in.block_size).value_or(block_size_of(in, source));
  heads = kv_heads_checked(model, in, source);
  rules->check_pool_layout(model, in, source);
  throw_if_any(source, validate_attention_dp(in, *rules, model.routed_experts == 0));
  replicas = replicas_of(in, source);
  check_context(in, source);
  mem = memory_budget(model, in, source);
  paged = in.format.dtype != KvDtype::kivi;
  stages = split_stages(*this);
  state_bytes = state_bytes_of(stages);
  rules->check_context_parallel(*this);
  if (model.attention_free) {
    // Nothing to page: the engine's fixed block count, whatever the memory and the KV format.
    if (const auto refusal = rules->attention_free_refusal())
      throw Error(source, refusal->field, refusal->message);
    const auto blocks = rules->attention_free_blocks();
    if (in.draft_layers > 0)
      throw Error(source, "draft_layers",
                  "a model without a KV cache has no draft cache kvplan models (speculative "
                  "decoding with " +
                      std::to_string(in.draft_layers) + " draft layer(s))");
    paged = true;
    min_blocks = *blocks;
    return;
  }
  if (!paged) return;
  const PageSize p = page_size(*this);
  bs = p.block_size;
  page = p.page;
  unify_pages(*this);
  add_hidden_states(*this);
  attach_engine_pools();
  min_blocks = assign_blocks(stages, mem.available_bytes, page, bs, in, source);
}

KvCostInput PlanEval::make_cost_input(std::uint64_t n, std::uint32_t drafts) const {
  KvCostInput c = plan_cost_input(model, in, n, 1, bs);
  c.draft_layers = drafts;
  return c;
}

std::uint64_t PlanEval::pages(const LayerType& t, std::uint64_t n) const {
  if (t.kind == AttentionKind::none) {
    // A recurrent state: vLLM one padded page per sequence (two with mamba_cache_mode align,
    // one per block of the request with all); the other engines' state in whole pages.
    if (!rules->pages_recurrent_state()) return ceil_div(state_bytes, page);
    return rules->recurrent_state_pages(in, n, bs);
  }
  const std::uint32_t b = block_of(t);  // this type's block, after page unification
  const std::uint64_t r = retained(in.policy, n);
  if (t.kind == AttentionKind::chunked) {
    // ChunkedLocalAttentionSpec.max_memory_usage_bytes: one chunk of computed tokens plus the
    // newly scheduled ones, never more than max_model_len.
    if (is_full(in.policy)) {
      const std::uint64_t c = add(t.window, in.max_num_batched_tokens, "chunked tokens");
      return ceil_div(std::min(c, n), b);
    }
    return ceil_div(std::min(r, t.window), b);
  }
  // Full attention and MLA under DCP: each rank keeps cdiv(n, dcp) of the tokens.
  if (t.kind != AttentionKind::sliding) return sharded_blocks(r, b);
  if (is_full(in.policy)) {
    // SlidingWindowSpec.max_memory_usage_bytes: the last W − 1 computed tokens plus one
    // chunk of newly scheduled tokens, never more than max_model_len; +1 because the window
    // need not start at a block boundary.
    const std::uint64_t w = add(t.window - 1, in.max_num_batched_tokens, "sliding tokens");
    return ceil_div(std::min(w, n), b) + 1;
  }
  return ceil_div(std::min(r, t.window), b);
}

std::uint64_t PlanEval::sharded_blocks(std::uint64_t n, std::uint64_t block) const {
  return ceil_div(ceil_div(n, rules->context_shards(in)), block);
}

std::uint64_t PlanEval::blocks_per_request(const Stage& st, std::uint64_t n) const {
  // SGLang: the full pool's pages, each rank a request's every dcp-th token (SWA / Mamba:
  // pool_ratio).
  if (st.sglang) return sharded_blocks(n, bs);
  if (st.trtllm_states && st.trtllm.empty()) return 0;  // Mamba layers alone: a state slot
  if (!st.trtllm.empty()) {
    std::uint64_t b = 0;
    for (const auto& w : st.trtllm)
      b = add(b, trtllm_blocks_per_sequence(n, w.window, bs), "blocks");
    return b;
  }
  std::uint64_t b = st.tail_blocks;
  for (auto t : st.group_types) b = add(b, pages(st.types[t], n), "blocks per request");
  return b;
}

std::uint64_t PlanEval::startup_bytes(const Stage& st, std::uint64_t n) const {
  // Shared slots: "every block id is charged the full per-block sum" (_max_memory_usage_bytes_
  // from_groups, vllm/v1/core/kv_cache_utils.py@002f10e0cfa1373a19a0d2756598a34b700d20e5).
  if (st.shares_slots) return mul(blocks_per_request(st, n), st.block_bytes, "bytes per request");
  std::uint64_t b = 0;
  for (const auto& t : st.types)
    b = add(b, mul(mul(pages(t, n), t.count, "pages"), page_of(t), "bytes per request"),
            "bytes per request");
  return b;
}

std::uint64_t PlanEval::request_bytes(const Stage& st, std::uint64_t n) const {
  if (st.cached + st.state_layers == 0) return 0;
  if (paged) return startup_bytes(st, n);
  return kv_cost(st.sub, make_cost_input(n, st.draft_layers), source).bytes_per_request;
}

bool PlanEval::loads() const {
  return mem.shortfall_bytes == 0 && mem.outside_shortfall_bytes == 0;
}

std::uint64_t PlanEval::attention_free_seqs() const {
  const auto seqs = in.max_num_seqs ? in.max_num_seqs : rules->default_max_num_seqs(in);
  if (!seqs)
    throw Error(source, "max_num_seqs",
                "a model without a KV cache needs max_num_seqs to bound its requests");
  return *seqs;
}

std::uint64_t PlanEval::usable_blocks() const {
  if (!rules->keeps_null_block()) return min_blocks;
  return min_blocks > 0 ? min_blocks - 1 : 0;
}

bool PlanEval::starts(std::uint64_t n) const {
  // An engine that fails before serving (weights beyond the budget, or what it allocates beside
  // the budget beyond what the fraction leaves out) holds no request at all.
  if (!loads()) return false;
  if (!paged || !rules->startup_check_by_bytes()) return fits(n, 1);
  for (const auto& st : stages) {
    if (st.cached + st.state_layers == 0) continue;
    if (blocks_per_request(st, n) > min_blocks) return false;
    if (startup_bytes(st, n) > mem.available_bytes) return false;
  }
  return true;
}

bool PlanEval::fits(std::uint64_t n, std::uint64_t per_replica) const {
  if (per_replica == 0) return true;
  // Without a KV cache: the weights must load, and max_num_seqs bounds the requests at once.
  if (model.attention_free) return loads() && per_replica <= attention_free_seqs();
  for (const auto& st : stages) {
    if (st.cached + st.state_layers == 0) continue;
    if (paged && st.engine_pools()) {
      const auto [num, den] = pool_ratio(st, n);
      if (mul(per_replica, den, "pool need") > num) return false;
    } else if (paged) {
      // The block pool: every rank uses the minimum block count over all ranks.
      const std::uint64_t need = mul(per_replica, blocks_per_request(st, n), "blocks");
      if (need > usable_blocks()) return false;
    } else {
      if (mul(per_replica, request_bytes(st, n), "bytes") > mem.available_bytes) return false;
    }
  }
  return true;
}

std::pair<std::uint64_t, std::uint64_t> PlanEval::pool_ratio(const Stage& st,
                                                             std::uint64_t n) const {
  std::pair<std::uint64_t, std::uint64_t> best{0, 0};
  auto consider = [&](std::uint64_t num, std::uint64_t den) {
    if (den == 0) return;
    // num / den < best.first / best.second, exactly (both below 2^64 / 2^24 in practice).
    if (best.second == 0 ||
        static_cast<u128>(num) * best.second < static_cast<u128>(best.first) * den)
      best = {num, den};
  };
  if (st.sglang) {
    const SglangPools& p = *st.sglang;
    if (!st.sglang_all_swa) consider(p.full_tokens / bs, sharded_blocks(n, bs));
    if (st.swa_window > 0) {
      // The SWA pool keeps the window's tokens plus the page being written once a request
      // outgrows it (SGLang frees the pages that slide out of the window).
      const std::uint64_t need =
          n <= st.swa_window ? ceil_div(n, bs) : ceil_div(st.swa_window, bs) + 1;
      consider(p.swa_tokens / bs, need);
    }
    if (st.state_layers > 0) consider(p.max_running, 1);
  }
  for (const auto& w : st.trtllm)
    consider(w.primary_blocks, trtllm_blocks_per_sequence(n, w.window, bs));
  if (const auto& s = st.trtllm_states) {
    // A hybrid Mamba model: a state slot per live request, none when the engine does not start.
    consider(s->shortfall_bytes > 0 ? 0 : s->live_slots, 1);
  }
  if (best.second == 0) best = {0, 1};
  return best;
}

std::uint64_t PlanEval::requests_at(std::uint64_t n) const {
  std::uint64_t least = std::numeric_limits<std::uint64_t>::max();
  for (const auto& st : stages) {
    if (st.cached + st.state_layers == 0) continue;
    if (st.engine_pools()) {
      const auto [num, den] = pool_ratio(st, n);
      least = std::min(least, num / den);
    } else {
      least =
          std::min(least, usable_blocks() / std::max<std::uint64_t>(blocks_per_request(st, n), 1));
    }
  }
  return least == std::numeric_limits<std::uint64_t>::max() ? 0 : least;
}

std::uint64_t PlanEval::longest(std::uint64_t per_replica, std::uint64_t cap, bool startup) const {
  if (cap == 0) cap = kMaxTokens;
  cap = std::min(cap, kMaxTokens);
  auto ok = [&](std::uint64_t n) { return startup ? starts(n) : fits(n, per_replica); };
  if (!ok(1)) return 0;
  std::uint64_t lo = 1, hi = cap;  // ok(lo) holds
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo + 1) / 2;
    if (ok(mid))
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

}  // namespace detail

KvCostInput plan_cost_input(const ModelSpec& model, const PlanInput& in, std::uint64_t context,
                            std::uint64_t batch, std::uint32_t block_size) {
  return KvCostInput{
      .context = context,
      .batch = batch,
      .format = in.format,
      .policy = in.policy,
      .block_size = block_size,
      .tp = in.tp,
      .draft_layers = in.draft_layers,
      .conv_state_dtype = in.conv_state_dtype,
      .ssm_state_dtype = in.ssm_state_dtype
                             ? in.ssm_state_dtype
                             : engine_rules(in).default_ssm_state_dtype(model.recurrent)};
}

namespace {

// SGLang's and TensorRT-LLM's own figures: the pool's tokens as the engine logs them
// ("max_total_num_tokens", "Allocated ... for max tokens in paged KV cache (N)") and the binding
// pool's ratio as the maximum concurrency.
void engine_pool_figures(const detail::PlanEval& ev, const detail::PlanEval::Stage& st,
                         std::uint64_t n, Capacity& c) {
  if (st.sglang) {
    c.kv_cache_tokens = st.sglang_all_swa ? st.sglang->swa_tokens : st.sglang->full_tokens;
  } else {
    std::uint64_t blocks = 0;
    for (const auto& w : st.trtllm) blocks = add(blocks, w.primary_blocks, "blocks");
    c.num_gpu_blocks = blocks;
    c.kv_cache_tokens =
        st.trtllm.empty() ? 0 : mul(st.trtllm.back().primary_blocks, ev.bs, "kv cache tokens");
  }
  const auto [num, den] = ev.pool_ratio(st, n);
  c.concurrency_numerator = num;
  c.concurrency_denominator = den;
  c.max_concurrency = static_cast<double>(num) / static_cast<double>(den);
}

// A model without a KV cache (PlanEval refuses every other model without a cached stage): the
// engine's block count, no bytes a request, every request of any length starts (vLLM's
// check_enough_kv_cache_memory returns at once for an empty spec), and max_num_seqs alone bounds
// the requests a replica runs.
Capacity attention_free_capacity(const detail::PlanEval& ev, Capacity& c) {
  c.attention_free = true;
  c.page_bytes = 0;
  c.num_gpu_blocks = ev.min_blocks;
  c.kv_cache_tokens = 0;
  // Weights and reserve beyond the budget: it does not load, and nothing runs.
  const std::uint64_t seqs = ev.loads() ? ev.attention_free_seqs() : 0;
  c.fits_one_request = seqs > 0;
  c.concurrency_numerator = seqs;
  c.concurrency_denominator = 1;
  c.max_concurrency = static_cast<double>(seqs);
  c.max_requests_per_replica = seqs;
  c.max_requests = mul(seqs, ev.replicas, "requests");
  c.estimated_max_model_len =
      seqs ? ev.longest(1, std::max(ev.in.context, ev.model.max_context), true) : 0;
  return c;
}

}  // namespace

Capacity plan_capacity(const ModelSpec& model, const PlanInput& in, const std::string& source) {
  const detail::PlanEval ev(model, in, source);
  Capacity c;
  c.engine = in.engine;
  c.block_size = ev.bs;
  c.replicas = ev.replicas;
  c.memory = ev.mem;
  c.paged = ev.paged;
  c.page_bytes = ev.page;
  const std::uint64_t n = in.context;
  std::uint64_t worst_den = 0;
  const detail::PlanEval::Stage* worst = nullptr;
  for (const auto& st : ev.stages) {
    StageCapacity s;
    s.stage = static_cast<std::uint32_t>(c.stages.size());
    s.cached_layers = st.cached;
    s.state_layers = st.state_layers;
    s.group_size = st.group_size;
    s.kv_cache_groups = static_cast<std::uint32_t>(st.group_types.size() + (st.tail_blocks > 0));
    s.shares_slots = st.shares_slots;
    s.num_blocks = st.num_blocks;
    s.trtllm_pools = st.trtllm;
    s.trtllm_requested = st.trtllm_requested;
    s.trtllm_states = st.trtllm_states;
    if (st.sglang) {
      s.sglang_profiled_tokens = st.sglang->profiled_tokens;
      s.sglang_max_num_reqs = st.sglang->max_num_reqs;
      s.sglang_max_running = st.sglang->max_running_requests;
      s.sglang_device_pools = detail::sglang_device_pools(ev, st);
      s.sglang_decode_extra_state_slots = st.sglang->decode_extra_state_slots;
      s.sglang_decode_extra_state_bytes = st.sglang->decode_extra_state_bytes;
    }
    if (st.cached + st.state_layers > 0) {
      s.bytes_per_request = ev.request_bytes(st, n);
      if (ev.paged) {
        s.blocks_per_request = ev.blocks_per_request(st, n);
        s.startup_bytes = ev.startup_bytes(st, n);
      } else {
        s.startup_bytes = s.bytes_per_request;
      }
      const std::uint64_t den = ev.paged ? s.blocks_per_request : s.bytes_per_request;
      if (!worst || den > worst_den) worst = &st, worst_den = den;
    }
    c.stages.push_back(s);
  }
  if (!worst) return attention_free_capacity(ev, c);
  const auto& ws = c.stages[static_cast<std::size_t>(worst - ev.stages.data())];
  c.blocks_per_request = ws.blocks_per_request;
  c.bytes_per_request = ws.bytes_per_request;
  if (ev.paged) {
    c.num_gpu_blocks = ev.min_blocks;
    c.concurrency_numerator = ev.min_blocks;  // the log counts the null block too
    c.concurrency_denominator = std::max<std::uint64_t>(worst_den, 1);
    if (ev.rules->kv_tokens_from_concurrency()) {
      // update_kv_cache_capacity: int(max_concurrency · max_model_len).
      c.kv_cache_tokens = static_cast<std::uint64_t>(
          static_cast<double>(ev.min_blocks) / static_cast<double>(c.concurrency_denominator) *
          static_cast<double>(n));
    } else {
      c.kv_cache_tokens = mul(ev.min_blocks / std::max<std::uint32_t>(ws.kv_cache_groups, 1), ev.bs,
                              "kv cache tokens");
    }
  } else {
    // kivi has no uniform page: the pool holds available / (marginal bytes per token) tokens.
    std::uint64_t per_token = 0;
    for (const auto& st : ev.stages) per_token = std::max(per_token, st.kv.bytes_per_token);
    c.kv_cache_tokens = per_token ? ev.mem.available_bytes / per_token : 0;
    c.concurrency_numerator = ev.mem.available_bytes;
    c.concurrency_denominator = std::max<std::uint64_t>(worst_den, 1);
  }
  c.max_concurrency =
      static_cast<double>(c.concurrency_numerator) / static_cast<double>(c.concurrency_denominator);
  // floor(blocks / blocks_per_request of the worst stage) passes the pool check of every stage;
  // vLLM also refuses to start when one request at max_model_len does not fit.
  c.fits_one_request = ev.starts(n);
  c.state_bytes_per_layer = ev.state_bytes;
  c.state_layers = model.recurrent_layers();
  c.max_requests_per_replica = !c.fits_one_request ? 0
                               : ev.paged          ? ev.requests_at(n)
                                          : c.concurrency_numerator / c.concurrency_denominator;
  if (ev.paged && worst->engine_pools()) engine_pool_figures(ev, *worst, n, c);
  c.max_requests = mul(c.max_requests_per_replica, ev.replicas, "requests");
  c.estimated_max_model_len = ev.longest(1, std::max(n, model.max_context), true);
  return c;
}

std::uint64_t max_context_at_concurrency(const ModelSpec& model, const PlanInput& in,
                                         std::uint64_t concurrency, std::uint64_t cap,
                                         const std::string& source) {
  const detail::PlanEval ev(model, in, source);
  return ev.longest(ceil_div(concurrency, ev.replicas), cap);
}

void run_as_one_server(PlanInput& in) {
  if (in.vllm().data_parallel_size) in.edit_vllm().data_parallel_size = 0;
}

bool replicas_share_experts(const ModelSpec& model, const PlanInput& in) {
  return model.weights.expert_bytes > 0 && engine_rules(in).data_parallel_shares_moe_layers();
}

std::uint64_t fewest_replicas(const ModelSpec& model, const PlanInput& in, std::uint64_t want,
                              std::uint64_t hi, const std::string& source) {
  const std::uint64_t unit =
      std::uint64_t{std::max<std::uint32_t>(in.tp, 1)} * std::max<std::uint32_t>(in.pp, 1);
  PlanInput d = in;
  run_as_one_server(d);
  const auto holds = [&](std::uint64_t r) {
    d.gpus = static_cast<std::uint32_t>(mul(r, unit, "GPUs"));
    return plan_capacity(model, d, source).max_requests >= want;
  };
  if (hi == 0 || mul(hi, unit, "GPUs") > std::numeric_limits<std::uint32_t>::max() || !holds(hi))
    return 0;
  return least_where(1, hi, holds);
}

OrderOption min_gpus(const ModelSpec& model, const PlanInput& in, const GpuSpec& gpu,
                     std::uint32_t max_gpus, const std::string& source) {
  OrderOption best;
  best.gpu = gpu;
  // A TP group stays inside a node (or the NVLink domain where that spans nodes).
  const std::uint32_t span = max_tp_span(gpu);
  best.reason = "no TP size in {1, 2, 4, 8}" +
                (span && span < 8 ? " (at most " + std::to_string(span) + ": one node)" : "") +
                " × PP 1..16 up to " + std::to_string(max_gpus) + " GPUs holds one request of " +
                std::to_string(in.context) + " tokens";
  const std::uint64_t want = std::max<std::uint64_t>(in.concurrency, 1);
  // Under DP attention the unit is a server of attention_dp groups of TP tp (no PP), its MoE
  // layers' EP dividing the server's GPUs.
  const std::uint32_t groups = std::max<std::uint32_t>(in.attention_dp, 1);
  bool cut_refused = false;  // a layout held them but would not start
  for (std::uint32_t pp = 1; pp <= 16 && pp <= model.layers.size(); ++pp) {
    if (groups > 1 && pp > 1) break;
    for (std::uint32_t tp : {1u, 2u, 4u, 8u}) {
      if (!valid_tp(model, tp) || (span && tp > span)) continue;
      if (groups > 1 && (std::uint64_t{tp} * groups) % std::max<std::uint32_t>(in.moe_ep, 1) != 0)
        continue;
      if (groups > 1 && tp > 1 && engine_rules(in).dp_attention_groups_of_one_gpu()) continue;
      const std::uint64_t unit64 = std::uint64_t{tp} * pp * groups;
      if (unit64 > max_gpus || (best.feasible && unit64 > best.gpus)) continue;
      const auto unit = static_cast<std::uint32_t>(unit64);
      PlanInput c = in;
      c.tp = tp;
      c.pp = pp;
      c.gpus = 0;
      c.gpu_memory_bytes = gpu.engine_memory_bytes();
      c.gpu_id = gpu.id;
      c.available_kv_bytes.reset();
      c.available_kv_bytes_per_rank.clear();
      // Another GPU runs its engine's default chunk where that is the larger (vLLM: 2048 tokens
      // below 70 GiB, 8192 above): its profile run's activation grows with it, so a row never
      // counts on a smaller chunk than the engine would take there unless told.
      if (gpu.id != in.gpu_id)
        c.max_num_batched_tokens = std::max<std::uint64_t>(
            in.max_num_batched_tokens, engine_rules(c).default_max_num_batched_tokens(c));
      // A new layout: its replicas are the DP ranks of one server, as its launch line runs them.
      run_as_one_server(c);
      const Capacity cap = plan_capacity(model, c, source);
      // vLLM's DP ranks of an MoE model share its MoE layers: each of s ranks holds 1/s of the
      // routed experts (stage_weights), so s ranks hold at least s times one replica's requests,
      // and fewer than the one-replica count may do; several may load what one cannot.
      const bool shared = groups == 1 && replicas_share_experts(model, c);
      if (cap.max_requests_per_replica == 0 && !shared) continue;
      // Whole servers: each holds groups replicas (1 without DP attention), sized by one
      // replica alone.
      const std::uint64_t most = (best.feasible ? best.gpus : max_gpus) / unit;
      std::uint64_t servers = cap.max_requests_per_replica
                                  ? ceil_div(want, mul(cap.max_requests_per_replica, groups))
                                  : most;
      if (shared && (servers > 1 || cap.max_requests_per_replica == 0)) {
        servers = fewest_replicas(model, c, want, std::min(servers, most), source);
        if (servers == 0) continue;
      }
      if (servers > max_gpus / unit) continue;
      const std::uint64_t replicas = servers * groups;
      const auto total = static_cast<std::uint32_t>(servers * unit);
      // A layout whose cut of the fp8 experts the engine refuses does not start
      // (moe_cut_refusal; vLLM's data-parallel replicas count in the cut).
      c.gpus = total;
      if (moe_cut_refusal(model, c, "tp")) {
        cut_refused = true;
        continue;
      }
      // Fewest GPUs; then fewer pipeline stages; then smaller TP (fewer all-reduces).
      if (!best.feasible || total < best.gpus) {
        best.feasible = true;
        best.gpus = total;
        best.tp = tp;
        best.pp = pp;
        best.replicas = static_cast<std::uint32_t>(replicas);
        best.max_requests = plan_capacity(model, c, source).max_requests;
        best.reason.clear();
      }
    }
  }
  if (!best.feasible && cut_refused)
    best.reason = "each TP × PP's smallest order up to " + std::to_string(max_gpus) +
                  " GPUs cuts the fp8 experts into part blocks, which vLLM refuses "
                  "(--enable-expert-parallel)";
  if (best.feasible) {
    best.nodes = nodes_for(gpu, best.tp, std::uint64_t{best.pp} * best.replicas);
    best.cost_per_hour = round_cents(best.gpus * gpu.price_per_hour);
  }
  return best;
}

std::vector<OrderOption> order_table(const ModelSpec& model, const PlanInput& in,
                                     const std::vector<GpuSpec>& gpus, const std::string& source) {
  std::vector<OrderOption> rows;
  for (const auto& g : gpus) rows.push_back(min_gpus(model, in, g, 1024, source));
  bool priced = false;
  for (const auto& r : rows) priced = priced || (r.feasible && r.gpu.price_per_hour > 0);
  std::stable_sort(rows.begin(), rows.end(), [&](const OrderOption& a, const OrderOption& b) {
    if (a.feasible != b.feasible) return a.feasible;
    if (!a.feasible) return a.gpu.id < b.gpu.id;
    if (priced) {
      // Priced rows first, cheapest first; unpriced rows after them.
      const bool ap = a.gpu.price_per_hour > 0, bp = b.gpu.price_per_hour > 0;
      if (ap != bp) return ap;
      if (ap && a.cost_per_hour != b.cost_per_hour) return a.cost_per_hour < b.cost_per_hour;
    }
    if (a.gpus != b.gpus) return a.gpus < b.gpus;
    return a.gpu.id < b.gpu.id;
  });
  return rows;
}

std::vector<WhatIf> what_if(const ModelSpec& model, const PlanInput& in,
                            const std::optional<GpuSpec>& gpu, const std::string& source) {
  // The unquantized rows in the plan's own format where it is unquantized (fp32, fp16, bf16),
  // else in the one the engine picks by itself (the model's dtype).
  const bool plain = in.format.dtype == KvDtype::fp32 || in.format.dtype == KvDtype::fp16 ||
                     in.format.dtype == KvDtype::bf16;
  const std::string base = to_string(plain ? in.format : default_kv_format(model, in.weight_dtype));
  std::vector<std::pair<std::string, std::string>> combos = {
      {base, "full"},
      {"fp8", "full"},
      {"int8", "full"},
      {"kivi:bits=4,group=32,residual=128", "full"},
      {"kivi:bits=2,group=32,residual=128", "full"},
      {base, "streaming:sink=4,window=4092"},
      {base, "h2o:keep=0.2,recent=0.1"},
      {base, "snapkv:budget=2048"}};
  const std::pair<std::string, std::string> own{to_string(in.format), to_string(in.policy)};
  if (std::find(combos.begin(), combos.end(), own) == combos.end())
    combos.insert(combos.begin(), own);
  std::vector<WhatIf> rows;
  for (const auto& [f, p] : combos) {
    PlanInput c = in;
    c.format = parse_kv_format(f, source, "what-if format");
    c.policy = parse_policy(p, source, "what-if policy");
    WhatIf w{
        .format = f, .policy = p, .engine_native = engine_supports(in.engine, c.format, c.policy)};
    try {
      const Capacity cap = plan_capacity(model, c, source);
      w.bytes_per_request = cap.bytes_per_request;
      w.max_requests = cap.max_requests;
      w.kv_cache_tokens = cap.kv_cache_tokens;
      w.max_context = max_context_at_concurrency(
          model, c, std::max<std::uint64_t>(in.concurrency, 1), model.max_context, source);
      if (gpu) {
        const OrderOption o = min_gpus(model, c, *gpu, 1024, source);
        w.min_gpus = o.feasible ? o.gpus : 0;
      }
    } catch (const Error&) {
      continue;  // the format does not apply to this model (e.g. kivi on an MLA latent)
    }
    rows.push_back(w);
  }
  return rows;
}

}  // namespace kvplan
