// The parts of the engine rules every engine shares unless it says otherwise.
#include "kvplan/engine_rules.hpp"

#include <cstdio>

#include "kvplan/checked.hpp"

namespace kvplan {

std::string EngineRules::memory_fraction_flag(std::uint32_t ppm) const {
  char b[16];
  std::snprintf(b, sizeof b, "%u.%02u", ppm / 1000000u, ppm % 1000000u / 10000u);
  return memory_fraction_flag_name() + " " + b;
}

BudgetSplit EngineRules::budget(std::uint64_t total_bytes, std::uint32_t fraction_ppm,
                                std::uint64_t weight_bytes, std::uint64_t reserve_bytes) const {
  // vLLM and SGLang: the fraction of the whole device, less weights and the reserve.
  // total <= 2^44 (16 TiB) and ppm <= 10^6 keep the product below 2^64; mul() checks it.
  BudgetSplit b;
  b.requested_bytes = mul(total_bytes, fraction_ppm, "memory fraction") / 1000000u;
  const std::uint64_t needed = add(weight_bytes, reserve_bytes, "weights and reserve");
  if (b.requested_bytes >= needed)
    b.available_bytes = b.requested_bytes - needed;
  else
    b.shortfall_bytes = needed - b.requested_bytes;
  return b;
}

const char* to_string(MemoryTerm::Basis b) {
  switch (b) {
    case MemoryTerm::Basis::derived:
      return "derived";
    case MemoryTerm::Basis::fitted:
      return "fitted";
    case MemoryTerm::Basis::given:
      return "given";
    case MemoryTerm::Basis::measured:
      return "measured";
  }
  return "derived";
}

namespace {

std::string signed_gib(std::int64_t b) {
  char s[32];
  std::snprintf(s, sizeof s, "%+.2f", static_cast<double>(b) / 1073741824.0);
  return s;
}

void correct(MemoryTerm& t, std::int64_t delta, const std::string& source) {
  if (delta == 0) return;
  const std::uint64_t magnitude =
      delta < 0 ? static_cast<std::uint64_t>(-(delta + 1)) + 1 : static_cast<std::uint64_t>(delta);
  t.bytes = delta < 0 ? (t.bytes > magnitude ? t.bytes - magnitude : 0)
                      : add(t.bytes, magnitude, "memory correction");
  t.basis = MemoryTerm::Basis::measured;
  t.how += " " + signed_gib(delta) + " GiB measured";
  t.source = source + " (kvplan explain --calibrate); " + t.source;
}

}  // namespace

void apply_corrections(MemoryTerms& t, const MemoryCorrections& c) {
  correct(t.activation, c.activation_delta_bytes, c.source);
  correct(t.non_torch, c.non_torch_delta_bytes, c.source);
  if (c.graphs_bytes >= 0 && t.graphs.bytes > 0) {  // graphs captured: the logged pool
    t.graphs = {static_cast<std::uint64_t>(c.graphs_bytes), MemoryTerm::Basis::measured,
                "CUDA graphs as the calibration's log measured them",
                c.source + " (kvplan explain --calibrate)"};
  }
}

std::uint64_t MemoryTerms::reserve_bytes() const {
  std::uint64_t r = add(activation.bytes, non_torch.bytes, "memory terms");
  return graphs_in_budget ? add(r, graphs.bytes, "memory terms") : r;
}

std::uint64_t MemoryTerms::warmup_beyond_activation_bytes() const {
  return warmup.bytes > activation.bytes ? warmup.bytes - activation.bytes : 0;
}

std::uint64_t MemoryTerms::outside_bytes() const {
  std::uint64_t r = add(context.bytes, sampler_state.bytes, "memory terms");
  r = add(r, warmup_beyond_activation_bytes(), "memory terms");
  return graphs_in_budget ? r : add(r, graphs.bytes, "memory terms");
}

std::optional<std::string> EngineRules::launch_line(const ModelSpec&, const PlanInput&,
                                                    std::string* why) const {
  if (why) *why = "kvplan writes no " + label() + " launch line";
  return std::nullopt;
}

MemoryTerms EngineRules::memory_terms(const MemoryModelInput&) const {
  MemoryTerms t;
  t.activation = {default_reserve_bytes(), MemoryTerm::Basis::fitted,
                  "one reserve for activations, CUDA graphs and runtime buffers",
                  "docs/deploy.md (the reserve)"};
  t.graphs_in_budget = true;
  return t;
}

std::optional<Refusal> EngineRules::own_layer_geometry_refusal() const {
  return Refusal{"model",
                 "layers with their own KV heads or head dims are modelled for vLLM only (" +
                     name() + " sizes its pools from one layer geometry)",
                 ""};
}

std::optional<Refusal> EngineRules::dcp_refusal() const {
  return Refusal{"decode_context_parallel_size",
                 "decode context parallelism is modelled for vLLM only", ""};
}

std::optional<Refusal> EngineRules::kpool_indexer_refusal() const {
  return Refusal{"model",
                 "a kpool sparse-attention indexer (GLM-5.3-Flash, index_kpool) is modelled for "
                 "vLLM only (its layout, vllm-project/vllm#53906); " +
                     name() + "'s pools for it are not",
                 ""};
}

std::optional<Refusal> EngineRules::attention_free_refusal() const {
  if (attention_free_blocks()) return std::nullopt;
  return Refusal{"engine",
                 label() +
                     " serving a model without a KV cache (\"attention\": {\"type\": \"none\"}) "
                     "is not modelled; vLLM's rule is (one block, no KV cache group)",
                 ""};
}

std::optional<Refusal> EngineRules::disaggregation_refusal() const {
  return Refusal{"engine", "disaggregated serving is not modelled for " + name(), ""};
}

// An fp8 block-quantized checkpoint whose weights the engine cuts into pieces that are not whole
// scale blocks: vLLM refuses it while it creates the weights.
//   Routed experts, over the MoE layers' TP (tp · DP without expert parallelism, none with it):
//     Fp8MoEMethod.create_weights, vllm/model_executor/layers/quantization/fp8.py@
//     1436674bcb3f46f4c960d09334cf7dd1534943ca ("The output_size of gate's and up's weight =
//     {intermediate_size_per_partition} is not divisible by weight quantization block_n =
//     {block_n}", then block_k for down's input at TP > 1); Qwen3-235B-A22B-FP8 at TP 8, 1536 /
//     8 = 192, vllm-project/vllm#17569. A width the GPUs do not divide is not whole blocks either
//     (FusedMoEConfig asserts intermediate_size % tp_size == 0, fused_moe/config.py@002d6073).
//   The shared experts' and dense MLP layers' down_proj, a RowParallelLinear over the attention
//     TP whatever the experts do: validate_fp8_block_shape, quantization/utils/fp8_utils.py@
//     364d01925de309b50c726941ad93a2c0a2487df8 ("Weight input_size_per_partition = {…} is not
//     divisible by weight quantization block_k = {block_k}"); Qwen3-Next-80B-A3B-FP8's 512-wide
//     shared expert at TP 8 (64), reported with --enable-expert-parallel too.
std::optional<Refusal> moe_cut_refusal(const ModelSpec& m, const PlanInput& in,
                                       const std::string& tp_field) {
  const std::uint64_t bn = m.weights.block_n, bk = m.weights.block_k;
  const std::uint64_t moe_tp = engine_rules(in).moe_tensor_parallel(in);
  if (bn == 0 || moe_tp == 0) return std::nullopt;  // no blocks, or an engine not checked
  const std::uint64_t tp = std::max<std::uint32_t>(in.tp, 1);
  const std::string blocks = std::to_string(bn) + " × " + std::to_string(bk);
  // The shared experts' and dense layers' down_proj, over the attention TP: expert parallelism
  // does not change their cut.
  std::optional<Refusal> linear;
  for (const auto& [w, what] : {std::pair{m.weights.block_shared_width, "shared experts"},
                                std::pair{m.weights.block_dense_width, "dense MLP layers"}}) {
    if (w == 0 || tp <= 1 || bk == 0 || linear) continue;
    const std::string why =
        w % tp != 0 ? std::to_string(w) + " is not divisible by " + std::to_string(tp)
        : (w / tp) % bk != 0
            ? "Weight input_size_per_partition = " + std::to_string(w / tp) +
                  " is not divisible by weight quantization block_k = " + std::to_string(bk)
            : std::string();
    if (!why.empty())
      linear = Refusal{tp_field,
                       why + ": " + m.id + "'s " + what + " are " + std::to_string(w) +
                           " columns wide, in fp8 blocks of " + blocks + ", cut over TP " +
                           std::to_string(tp) + " (expert parallelism does not change that)",
                       "a tensor parallelism that leaves " + std::to_string(w) +
                           " / TP a multiple of " + std::to_string(bk)};
  }
  // Routed experts, over the MoE layers' GPUs.
  if (const std::uint64_t w = m.weights.block_expert_width; w && moe_tp > 1) {
    std::string why;
    const std::uint64_t part = w / moe_tp;
    if (w % moe_tp != 0)
      why = "intermediate_size " + std::to_string(w) + " is not divisible by the MoE layers' " +
            "tensor-parallel size " + std::to_string(moe_tp);
    else if (part % bn != 0)
      why = "The output_size of gate's and up's weight = " + std::to_string(part) +
            " is not divisible by weight quantization block_n = " + std::to_string(bn);
    else if (bk != 0 && tp > 1 && part % bk != 0)
      why = "The input_size of down's weight = " + std::to_string(part) +
            " is not divisible by weight quantization block_k = " + std::to_string(bk);
    if (!why.empty()) {
      const std::string gpus =
          moe_tp == tp ? "TP " + std::to_string(moe_tp)
                       : "TP " + std::to_string(tp) + " × DP " + std::to_string(moe_tp / tp);
      // Expert parallelism keeps the experts whole, unless the TP itself cuts the shared
      // experts or dense layers into part blocks too: then only a smaller TP starts.
      return Refusal{tp_field,
                     why + ": " + m.id + "'s routed experts are " + std::to_string(w) +
                         " columns wide, in fp8 blocks of " + blocks + ", cut over the " + gpus +
                         " GPUs of its MoE layers",
                     linear ? linear->fix + " (with expert parallelism vLLM still refuses: " +
                                  linear->message.substr(0, linear->message.find(':')) + ")"
                            : "expert parallelism (--enable-expert-parallel, "
                              "engine.enable_expert_parallel: whole experts a GPU), or fewer GPUs "
                              "a server"};
    }
  }
  return linear;
}

std::vector<Problem> as_problems(const std::vector<Refusal>& refusals) {
  std::vector<Problem> out;
  for (const auto& r : refusals)
    out.push_back({r.field, r.fix.empty() ? r.message : r.message + " (fix: " + r.fix + ")"});
  return out;
}

std::vector<Refusal> EngineRules::settings_problems(const EngineSettings& s,
                                                    const SettingsFields& names) const {
  std::vector<Refusal> out;
  // Every engine derives its longest request from the model's positions and refuses a longer
  // max_model_len unless told to allow it (vLLM: ModelConfig.get_and_verify_max_len,
  // VLLM_ALLOW_LONG_MAX_MODEL_LEN; SGLang: SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN).
  if (s.model_positions != 0 && s.max_model_len > s.model_positions)
    out.push_back({names.max_model_len,
                   std::to_string(s.max_model_len) + " tokens exceed the " +
                       std::to_string(s.model_positions) + " positions of " + s.model_id + " (" +
                       (s.positions_basis.empty() ? "max_position_embeddings" : s.positions_basis) +
                       "): " + label() + " refuses to start",
                   "set " + names.max_model_len + " to " + std::to_string(s.model_positions)});
  return out;
}

}  // namespace kvplan
