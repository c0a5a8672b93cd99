// The serving simulator's step-time model: a roofline per GPU. One engine step (one forward pass
// over the batch the scheduler picked) takes
//   max(compute, memory) + TP all-reduce + fixed per-step overhead
// where compute = (2 · active parameters · tokens + attention FLOPs) / (peak FLOP/s · efficiency)
// and memory = (weight bytes read + KV bytes read) / (HBM bandwidth · efficiency), per rank.
// The peaks come from the GPU preset (models/gpus/*.json, with sources); the efficiency factors
// have defaults calibrated on public measurements (docs/simulate.md) and can be overridden by a
// calibration file. MoE: compute uses the active parameters per token; the expert weights read
// in a step are those of the experts the batch's tokens touch.
//
// Every term, per rank r of a replica with tensor parallelism tp (docs/simulate.md "Step time"):
//   tokens T           = prefill_tokens + decode_tokens
//   compute FLOPs      = 2 · P_active / tp · T  +  4 · ceil(H_q / tp) · d · pairs · L_attn
//                        (a matmul of an [T, k] input by a [k, n] weight is 2·k·n FLOPs per
//                        token; attention is QKᵀ (2·d_k) plus PV (2·d_v) per query-key pair per
//                        query head: 4·d when d_k = d_v; MLA counts d_k = kv_lora_rank +
//                        qk_rope_head_dim, d_v = kv_lora_rank, the absorbed form vLLM decodes
//                        with)
//   P_active           = P − P_experts + P_experts · k / E
//   memory bytes       = dense weights / tp + experts / tp · (1 − (1 − k/E)^T) + kv_read_bytes
//                        (each step streams every dense weight once; of E experts, the expected
//                        number a batch of T tokens touches, each token picking k uniformly, is
//                        E · (1 − (1 − k/E)^T); activations are negligible next to weights)
//   all-reduce         = 2 · L · T · hidden · 2 bytes · 2(tp − 1)/tp / (link/2 · eff.interconnect)
//                        (two all-reduces per layer, after attention and after the MLP, of the
//                        bf16 hidden state; a ring all-reduce sends 2(tp − 1)/tp of the buffer
//                        through each GPU's link in one direction: half the listed bidirectional
//                        figure)
//   fixed costs        = eff.overhead_s + L · eff.layer_overhead_s
//                        + (GPUs > 1) · 2 · L · eff.allreduce_latency_s + seqs · eff.seq_overhead_s
//                        + L · E · eff.expert_overhead_s                      (MoE)
//                        + L · eff.quant_layer_overhead_s    (8- and 4-bit weights)
//                        (per step; per layer: kernel boundaries and tails a roofline does not
//                        see; per all-reduce call: its latency, which dominates the small
//                        messages of a decode step; per sequence: input preparation, sampling
//                        and output processing of each sequence in the batch)
//   step               = max(compute / (peak · c), memory time) + all-reduce + fixed costs
//                        c = eff.fp8_compute at the fp8 peak, eff.fp4_compute at the fp4 peak,
//                        else eff.compute (0 = eff.compute); memory time = dense weights /
//                        (HBM · m) + touched experts / (HBM · eff.memory) + KV / (HBM ·
//                        eff.memory), m = eff.lowbit_memory for a dense 4-bit checkpoint
//                        (fp4, int4), else eff.memory
//   drafts (spec.)     = tokens include the verified draft tokens (spec_tokens); the drafter
//                        adds draft_passes passes, the first over the step's T tokens, the rest
//                        over B = its sequences: max(compute, memory) of d/L of the weights,
//                        experts, FLOPs and KV read plus the LM head over B rows (2 · vocab ·
//                        hidden / tp bytes, and FLOPs a row), + d · (layer overhead + (GPUs > 1) ·
//                        2 · all-reduce latency), d = draft layers (at least 1)
// and each request's TTFT and E2E add eff.frontend_s, the serving front end's own latency
// (HTTP, tokenization, detokenization, streaming), which no step contains.
//
// Expert parallelism (StepModelInput::ep > 1: the routed experts spread whole over ep ranks of the
// TP group, vLLM --enable-expert-parallel, SGLang --ep-size): the experts' FLOPs and bytes are
// those of the busiest rank, which a step waits for. Its routed tokens and its touched experts are
// each taken as mean + c(ep) · standard deviation, c(ep) the expected largest of ep independent
// standard normal variables (c(2) = 1/sqrt(pi)): tokens routed to one rank ~ Binomial(T · k,
// 1/ep), its touched experts ~ Binomial(ceil(E / ep), 1 − (1 − k/E)^T), each capped at what the
// rank can hold. Uniform routing, the normal approximation: real routers are skewed, so this is a
// lower bound on the imbalance (docs/simulate-step-time.md "Expert parallelism").
//
// DP attention (StepModelInput::attention_dp = D > 1; SGLang --tp T --dp D
// --enable-dp-attention, TensorRT-LLM enable_attention_dp with tp_size T = D): the step is one
// attention group's (tp = T / D ranks, its own requests,
// attention and the other dense weights over tp), and the MoE layers run over all T = tp · D
// ranks on every group's tokens, taken as D times this group's (the simulator deals the arrivals
// round-robin over the groups): each rank holds 1/T of the experts, its routed FLOPs per group
// token are 2 · routed / tp as before, the touched experts are those of D · tokens, and each layer
// gathers every group's hidden states over the T ranks and reduce-scatters them back
// (sglang/srt/layers/dp_attention.py@2aa2e2d0 _dp_gather_via_all_gather, dp_reduce_scatter_tensor;
// TensorRT-LLM fused_moe_cutlass.py@000a01de allgather before the experts, reducescatter after):
// 2 (T − 1)/T · D · tokens · hidden · 2 bytes a rank, plus the attention group's reduce-scatter
// (tp − 1)/tp · tokens · hidden · 2 bytes when tp > 1. With ep > 1 (SGLang --ep-size, TensorRT-LLM
// moe_expert_parallel_size) the experts are whole over ep of the T ranks, the busiest rank's load
// as above over the D groups' tokens; the communication is costed the same (the gather form, not
// an all-to-all).
//
// With StepModelInput::measured_tables (`--measured-moe`) and a measured row for the GPU, engine,
// expert dtype and shape (models/perf/moe/), the routed experts leave compute, memory and the
// per-expert cost, and the step adds moe_layers · layer(T), the measured latency of one MoE layer
// over T tokens (docs/simulate-step-time.md "Measured MoE layers").
//
// Worked example (tests/simulator/test_step_time.cpp): Llama-3.1-8B (bf16, 8,030,261,248
// parameters, 16,060,522,496 weight bytes, 32 layers) on one H100 SXM (3350 GB/s), one decode
// token at batch 1 with the default efficiency (memory 0.822, 30.6 µs per layer, 2.41 µs per
// sequence, fitted on vLLM v0.15.1 runs; docs/simulate-step-time.md):
//   memory  = 16,060,522,496 / (3.35e12 · 0.822) = 5.832 ms   (compute: 16.06e9 FLOPs, 0.03 ms)
//   step    = 5.832 + 32 · 0.0306 + 0.0024        = 6.814 ms   (measured, vLLM: 6.48 ms TPOT)
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "kvplan/engine_log.hpp"
#include "kvplan/gpu.hpp"
#include "kvplan/model.hpp"
#include "kvplan/planner.hpp"

namespace kvplan::sim {

// What one step computes, summed over the sequences in the batch, for one replica.
struct StepBatch {
  std::uint64_t prefill_tokens = 0;  // prompt tokens computed this step (chunks of prefills)
  // Σ over prefilling sequences of chunk tokens × (cached tokens before the chunk + (chunk + 1)/2):
  // the query-key pairs of causal attention over the chunk.
  std::uint64_t prefill_pairs = 0;
  std::uint64_t decode_tokens = 0;  // sequences that decode one token this step
  std::uint64_t decode_pairs = 0;   // Σ over decoding sequences of the tokens each attends to
  // Σ over every sequence in the batch of the KV bytes its attention reads on one rank (its
  // retained cache, in its KV format, as the planner's cost model counts it).
  std::uint64_t kv_read_bytes = 0;
  std::uint64_t prefill_seqs = 0;  // sequences computing prompt tokens this step
  // Speculative decoding: the draft tokens verified beside the decode tokens (Σ over decoding
  // sequences of the drafts each carries; their pairs are in decode_pairs), and the drafter's
  // work: draft_passes forward passes through draft_layers layers and the LM head, the first over
  // every token of the step, the others over one token a sequence (vLLM's EAGLE / MTP proposer;
  // docs/simulate.md).
  std::uint64_t spec_tokens = 0;
  std::uint32_t draft_passes = 0;
  std::uint32_t draft_layers = 0;
};

// Efficiency factors and fixed costs; defaults in docs/simulate.md.
struct StepEfficiency {
  double compute = 0;              // achieved / peak FLOP/s, (0, 1]
  double memory = 0;               // achieved / peak HBM bandwidth, (0, 1]
  double interconnect = 0;         // achieved / peak link bandwidth, (0, 1]
  double overhead_s = 0;           // fixed CPU/launch cost per step, seconds, [0, 10]
  double layer_overhead_s = 0;     // per layer per step, seconds, [0, 0.01]
  double allreduce_latency_s = 0;  // per all-reduce call at tp > 1, seconds, [0, 0.01]
  double seq_overhead_s = 0;       // per sequence in the step, seconds, [0, 0.01]
  double frontend_s = 0;           // per request, added to TTFT and E2E, seconds, [0, 10]
  // Defaults only (no calibration field yet); 0 = the term is off or follows the field named.
  double fp8_compute = 0;        // achieved / peak at the fp8 peak, (0, 1]; 0 = compute
  double fp4_compute = 0;        // achieved / peak at the fp4 peak, (0, 1]; 0 = compute
  double lowbit_memory = 0;      // HBM efficiency on 4-bit (fp4, int4) weights, (0, 1]; 0 = memory
  double expert_overhead_s = 0;  // per routed expert per layer per step (MoE), seconds, [0, 1e-4]
  double quant_layer_overhead_s = 0;  // per layer per step, 8- and 4-bit weights, s, [0, 0.01]
};

// The defaults for a GPU and an engine (docs/simulate-step-time.md "Default efficiency factors"):
// memory and the fixed costs fitted by `scripts/sim2real.py --calibrate` on inference-sim's
// sim-to-real train runs (vLLM v0.15.1, H100 SXM); compute per GPU family, the front end per GPU
// family and engine, fp4 compute, 4-bit weight streaming and the MoE per-expert cost fitted on
// the train split of `scripts/inferencex.py` (InferenceX: dense Llama-3.1 and DeepSeek rows).
// Families by preset id: Hopper = h100*, h200*, h20*; Blackwell = b200*, b300*, gb200*, gb300*;
// every other GPU keeps the sim-to-real set.
StepEfficiency default_step_efficiency(const GpuSpec& gpu, Engine engine);
// `base` with the fields a calibration file gives replaced (engine_log.hpp).
StepEfficiency with_calibration(StepEfficiency base, const CalibratedEfficiency& c);
// Throws kvplan::Error naming `source` and the field (efficiency.compute, ...) when a factor is
// outside (0, 1], the overheads outside [0, 10] s (per step, per request) or [0, 0.01] s (per
// layer, all-reduce, sequence), NaN included.
void validate(const StepEfficiency& e, const std::string& source);

struct StepModelInput {
  Engine engine = Engine::vllm;
  std::uint32_t tp = 1;
  std::string
      compute_dtype{};  // "" = the model's weight dtype (bf16/fp16 → 16-bit peak, fp8 → fp8)
  std::optional<StepEfficiency> efficiency;  // absent = the defaults for this GPU and engine
  // Cost an MoE model's routed experts with kvplan's measured per-operation table for this GPU and
  // engine where it has one (models/perf/moe/; `--measured-moe`). Off by default: on the
  // InferenceX train split it made TPOT worse (docs/simulate-step-time.md "Measured MoE layers").
  bool measured_tables = false;
  // Ranks of the MoE layers (the TP group, or tp · attention_dp under DP attention) over which
  // the routed experts are spread whole (expert parallelism; 1 = each expert sharded over all of
  // them). Must divide tp · attention_dp. The measured tables' EP rows are the busiest rank's
  // layer (ranks / ep, ep).
  std::uint32_t ep = 1;
  // DP attention groups sharing the MoE layers (1 = none): the experts over tp · attention_dp
  // ranks, fed attention_dp groups' tokens.
  std::uint32_t attention_dp = 1;
  // Pipeline stages (vLLM --pipeline-parallel-size): a step runs them one after another, each
  // with its share of the layers, and sends the hidden states and the residual ([tokens,
  // hidden] each, 16-bit) from each stage to the next (docs/simulate-step-time.md "Pipeline
  // parallelism").
  std::uint32_t pp = 1;
};

// The step-time input of a deployment: its engine and TP, with a calibration's step-time fields
// (kvplan explain --calibrate) over this GPU's defaults when given. The one set-up `kvplan plan`,
// `simulate`, `check` and the GUI share, so a calibration counts the same on every path.
StepModelInput step_model_input(const GpuSpec& gpu, Engine engine, std::uint32_t tp,
                                const std::optional<CalibratedEfficiency>& calibrated = {});
// The same for a planned deployment: its engine and TP, with PlanInput::expert_parallel the
// experts spread over the whole TP group (ep = tp), and DP attention groups (plan.tp is one
// group's; the experts over all the groups' GPUs: attention_dp, ep = plan.moe_ep).
StepModelInput step_model_input(const GpuSpec& gpu, const PlanInput& plan,
                                const std::optional<CalibratedEfficiency>& calibrated = {});

// The replicas of a deployment whose MoE layers are one: its DP attention groups, vLLM's
// data-parallel replicas (one EP group of tp · DP ranks under expert parallelism, one TP group of
// them without: the experts' memory spreads over them, EngineRules::expert_parallel_replicas),
// else 1. A dense model's StepModel takes them as plain replicas.
std::uint32_t moe_groups(const PlanInput& plan);

// The expected largest of n independent standard normal variables (0 for n = 1; 1/sqrt(pi) for
// n = 2), by numerical integration of x · n · phi(x) · Phi(x)^(n-1).
double expected_max_of_normals(std::uint32_t n);

// What the scheduler asks of a step-time model; tests use hand-made timers.
class StepTimer {
 public:
  virtual ~StepTimer() = default;
  virtual double seconds(const StepBatch& b) const = 0;
  // The front end's latency per request, added to its TTFT and E2E (0 for hand-made timers).
  virtual double frontend_s() const { return 0; }
};

namespace detail {
struct MoeCurve;  // one measured MoE layer curve (src/moe_table.hpp)
}

class StepModel final : public StepTimer {
 public:
  // Throws kvplan::Error (naming `source`) when the GPU preset lacks a peak the model needs
  // (no peak for the compute dtype, no HBM bandwidth, no interconnect at tp > 1), when tp is not
  // valid for the model (valid_tp), when the model has no weight size or an MoE model lacks
  // experts_per_token, and when in.efficiency is out of range.
  StepModel(const ModelSpec& model, const GpuSpec& gpu, const StepModelInput& in,
            const std::string& source = "arguments");
  // Seconds one step over `b` takes; 0 for an empty batch (no tokens: no step). With drafts,
  // the verifying forward plus the drafter's passes (draft_seconds).
  double seconds(const StepBatch& b) const override;
  // The drafter's share of a step: draft_passes passes of draft_layers layers at this model's
  // per-layer cost (the first over the step's tokens and pairs, the others over one token a
  // sequence) plus the LM head over one row a sequence (vocab · hidden bf16 weights per rank),
  // the layers' share of the KV read, per-layer and all-reduce overheads. 0 without passes.
  double draft_seconds(const StepBatch& b) const;
  double frontend_s() const override { return eff_.frontend_s; }
  const StepEfficiency& efficiency() const { return eff_; }
  // How the routed experts are costed, in words for a note: the measured table and row, or why
  // the roofline (no table for this GPU and engine, no row for the shape); "" for a dense model.
  const std::string& moe_source() const { return moe_source_; }
  bool moe_measured() const { return moe_curve_ != nullptr; }

  // The terms of one step, before efficiency and overhead, for reports and tests.
  struct Terms {
    double flops = 0;            // per rank
    double bytes = 0;            // HBM bytes read per rank
    double expert_bytes = 0;     // of which the routed experts' (the busiest rank's)
    double allreduce_bytes = 0;  // sent through one rank's link, one direction
    double measured_s = 0;       // the MoE layers' time from the measured table (then the
                                 // experts are in neither flops nor bytes)
  };
  Terms terms(const StepBatch& b) const;
  double peak_flops() const { return peak_flops_; }             // FLOP/s used for compute
  double active_params() const { return active_params_; }       // whole model, per token
  double dense_weight_bytes() const { return weight_bytes_; }   // per rank, read every step
  double expert_weight_bytes() const { return expert_bytes_; }  // per rank, all experts

  // The busiest rank's share of the routed experts' work in a step of `tokens` tokens, as
  // multiples of what the TP-sharded experts cost (both 1 without expert parallelism): its routed
  // FLOPs, and the fraction of its experts' bytes it reads (the TP form: 1 − (1 − k/E)^T).
  struct ExpertLoad {
    double compute = 1;  // busiest rank's routed FLOPs / the mean rank's
    double touched = 0;  // fraction of the rank's expert bytes read
  };
  ExpertLoad expert_load(double tokens) const;

 private:
  StepEfficiency eff_{};
  double active_params_ = 0;          // P_active (see the header comment)
  double flops_per_token_ = 0;        // 2 · active parameters / tp
  double flops_per_pair_ = 0;         // attention FLOPs per query-key pair per rank, all layers
  double weight_bytes_ = 0;           // dense weights read per step per rank
  double expert_bytes_ = 0;           // all routed experts per rank (0 = dense)
  double roofline_expert_bytes_ = 0;  // expert_bytes_, or 0 when the table costs the experts
  std::shared_ptr<const detail::MoeCurve> moe_curve_;  // null: the experts on the roofline
  double moe_layers_ = 0;                              // layers that route (with the curve)
  std::string moe_source_;
  double experts_ = 0, experts_per_token_ = 0;
  double peak_flops_ = 0, bandwidth_ = 0, link_bandwidth_ = 0;  // link: one direction, bytes/s
  double comm_bytes_per_token_ = 0;  // hidden-state bytes through one rank's link per step token
  bool multi_rank_ = false;          // the step spans more than one GPU (TP or DP attention)
  // Pipeline stages: the bytes a step token sends from one stage to the next, and the link's
  // bytes/s (one direction); a step crosses pp − 1 stage boundaries.
  double pp_ = 1, pp_bytes_per_token_ = 0, pp_link_bandwidth_ = 0;
  double layers_ = 1;             // the model's layers (draft passes take a share)
  double lm_head_bytes_ = 0;      // vocab · hidden · 2 bytes / tp (0 when unknown)
  double fixed_s_ = 0;            // per-step overhead + per-layer + all-reduce latency + per-expert
  double compute_eff_ = 0;        // eff.compute, or eff.fp8_compute / fp4_compute at those peaks
  double dense_memory_eff_ = 0;   // eff.memory, or eff.lowbit_memory for a 4-bit dense model
  double expert_memory_eff_ = 0;  // eff.memory, or eff.lowbit_memory for 4-bit experts
  std::uint32_t ep_ = 1;
  double moe_token_groups_ = 1;        // attention_dp: the groups whose tokens an MoE layer sees
  double routed_flops_per_token_ = 0;  // the routed experts' part of flops_per_token_
  double ep_spread_ = 0;               // c(ep): expected largest of ep standard normals
};

}  // namespace kvplan::sim
