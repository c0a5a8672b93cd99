#include "kvplan/sim/step_time.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "engine_scheduling.hpp"
#include "kvplan/engine_rules.hpp"
#include "kvplan/error.hpp"
#include "moe_table.hpp"

namespace kvplan::sim {

namespace {

std::string show(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

// The tensor peak (FLOP/s) a step computes at. Weight-only quantization (int4 AWQ/GPTQ, fp8 or
// fp4 on a GPU without those tensor cores: vLLM's Marlin kernels on Ampere) dequantizes to 16 bits
// and computes at the 16-bit peak; an explicit compute_dtype the GPU lacks is refused.
double peak_for(const GpuSpec& gpu, const std::string& weight_dtype, const std::string& asked,
                const std::string& source) {
  const std::string dtype = asked.empty() ? weight_dtype : asked;
  const bool explicit_dtype = !asked.empty();
  auto need = [&](double tflops, const char* field) {
    if (tflops > 0) return tflops * 1e12;
    if (explicit_dtype || gpu.peak_tflops_bf16 <= 0)
      throw Error(source, "compute_dtype",
                  "GPU " + gpu.id + " has no " + field + " peak (" + dtype +
                      " compute): give compute_dtype bf16 or a GPU file with " + field);
    return gpu.peak_tflops_bf16 * 1e12;  // weight-only quantization: 16-bit math
  };
  if (dtype == "bf16" || dtype == "fp16") {
    if (gpu.peak_tflops_bf16 <= 0)
      throw Error(source, "compute_dtype",
                  "GPU " + gpu.id + " has no peak_tflops_bf16: the step-time model needs it");
    return gpu.peak_tflops_bf16 * 1e12;
  }
  if (dtype == "fp8") return need(gpu.peak_tflops_fp8, "peak_tflops_fp8");
  if (dtype == "fp4") return need(gpu.peak_tflops_fp4, "peak_tflops_fp4");
  if (dtype == "int8") return need(gpu.peak_tops_int8, "peak_tops_int8");
  if (dtype == "int4" && !explicit_dtype) return need(0, "int4");  // weight-only: 16-bit math
  throw Error(source, "compute_dtype",
              "expected bf16, fp16, fp8, fp4 or int8, got \"" + dtype + "\"");
}

}  // namespace

StepEfficiency default_step_efficiency(const GpuSpec& gpu, Engine engine) {
  // memory and the fixed costs: fitted by `python3 scripts/sim2real.py --calibrate`
  // (docs/simulate-step-time.md "Default efficiency factors"): Nelder-Mead over memory and the
  // fixed costs, minimizing the mean APE of E2E mean, TTFT mean and ITL mean over the 6 train/val
  // runs of inference-sim's sim-to-real data with a published workload (vLLM v0.15.1, H100 SXM:
  // Llama-4-Scout FP8 tp 2 codegen and roleplay, Llama-3.1-70B tp 4 codegen, Mistral-Nemo tp 1
  // codegen, Qwen2.5-7B tp 1 roleplay, Llama-2-7B tp 1 codegen; tests/data/sim2real), objective
  // 4.86 %. The test runs were not used. compute and interconnect are not observable in those
  // runs (prefixes hit whole prompts; decode all-reduces are latency-bound).
  StepEfficiency e{.compute = 0.6,
                   .memory = 0.822,
                   .interconnect = 0.7,
                   .overhead_s = 0,
                   .layer_overhead_s = 30.6e-6,
                   .allreduce_latency_s = 18.3e-6,
                   .seq_overhead_s = 2.41e-6,
                   .frontend_s = 7.72e-3};
  // The rest: fitted by grids of `python3 scripts/inferencex.py --split train` (each value run
  // over the rows it concerns, the one with the smallest |bias| and MAPE kept, ties to the
  // pessimistic side) on the TRAIN split of InferenceX only: dense Llama-3.1-70B FP8 (vLLM, H100,
  // H200, B200), Llama-3.1-70B NVFP4 (vLLM, B200), Llama-3.1-8B FP8 (vLLM, SGLang, H200) and
  // DeepSeek-R1/V3 FP8 and NVFP4 (SGLang, H200, B200). docs/simulate-step-time.md lists the grids.
  //
  // Compute per GPU family and dtype: Llama-3.1-70B FP8 prefills (TTFT) at 0.45 of the fp8 peak
  // on Hopper (H100, H200: TTFT bias −0.5 % and +2.6 %) and 0.4 on B200 (0.3: +14 %, 0.5:
  // −44 % with the old front end); NVFP4 at 0.3 of the fp4 peak (grid 0.25 / 0.3 / 0.35: TTFT
  // bias +13.6 / +4.0 / −2.9 %). Hopper's 16-bit compute keeps 0.6 (sim-to-real, unobserved).
  // Blackwell's 16-bit compute takes the fp8 fraction (no bf16 train row on B200: an assumption).
  //
  // 4-bit dense weights (NVFP4, INT4 AWQ/GPTQ in a dense model): Llama-3.1-70B NVFP4 on one B200
  // decodes at 4 concurrent requests in 13.07 ms where its 40 GB at 8 TB/s · 0.822 give 6.1 ms:
  // the dequantizing GEMMs do not stream 4-bit weights at the 8-bit rate. 0.55 fits its TPOT
  // (bias +4.1 %). Not applied to 4-bit experts: DeepSeek-V3 NVFP4 (experts NVFP4) decodes
  // within −5.0 % without it and +9.7 % with it.
  e.lowbit_memory = 0.55;
  // Quantized weights (8 and 4 bits): the activation quantization and scale handling each linear
  // layer adds, 10 µs per layer per step (grid 0 / 5 / 10 µs on Llama-3.1-70B FP8: TPOT bias on
  // H100 −5.9 / −3.5 / −1.0 %, H200 −5.8 / −3.3 / −0.8 %, B200 −5.0 / −1.6 / +1.7 %).
  e.quant_layer_overhead_s = 10e-6;
  // MoE: a cost per routed expert per layer per step (routing, the grouped GEMM's per-expert
  // tiles and scatter): DeepSeek-V3 FP8 on 8 H200 (SGLang) decodes at 4 and 16 concurrent
  // requests about 2.9 ms slower than the roofline (10.29 ms measured at 4): a fixed cost of
  // 2.9 ms / (61 layers · 256 experts) = 0.19 µs. Mixtral's 8 experts make it negligible there.
  e.expert_overhead_s = 0.19e-6;
  const std::string& id = gpu.id;
  auto starts = [&](const char* p) { return id.rfind(p, 0) == 0; };
  const bool hopper = starts("h100") || starts("h200") || starts("h20");
  const bool blackwell = starts("b200") || starts("b300") || starts("gb200") || starts("gb300");
  if (hopper) e.fp8_compute = 0.45;
  if (blackwell) {
    e.compute = 0.4;
    e.fp8_compute = 0.4;
    e.fp4_compute = 0.3;
    // vLLM on B200: Llama-3.1-70B FP8 at tp 8 and 8 requests reaches its first token about
    // 100 ms later than the step model; grid 30 / 60 ms with fp8 compute 0.4: TTFT bias −17.9
    // / −3.4 %.
    e.frontend_s = 0.06;
  }
  const auto family = hopper      ? detail::GpuFamily::hopper
                      : blackwell ? detail::GpuFamily::blackwell
                                  : detail::GpuFamily::other;
  if (const auto f = detail::engine_scheduling(engine).frontend_s(family)) e.frontend_s = *f;
  return e;
}

StepEfficiency with_calibration(StepEfficiency base, const CalibratedEfficiency& c) {
  auto set = [](double& field, const std::optional<double>& v) {
    if (v) field = *v;
  };
  set(base.compute, c.compute), set(base.memory, c.memory);
  // A measured compute or memory efficiency is the deployment's own: it replaces the per-dtype
  // defaults as well.
  if (c.compute) base.fp8_compute = base.fp4_compute = 0;
  if (c.memory) base.lowbit_memory = 0;
  set(base.interconnect, c.interconnect), set(base.overhead_s, c.overhead_s);
  set(base.layer_overhead_s, c.layer_overhead_s);
  set(base.allreduce_latency_s, c.allreduce_latency_s);
  set(base.seq_overhead_s, c.seq_overhead_s), set(base.frontend_s, c.frontend_s);
  return base;
}

void validate(const StepEfficiency& e, const std::string& source) {
  auto fraction = [&](double v, const char* field) {
    if (!(v > 0 && v <= 1))
      throw Error(source, std::string("efficiency.") + field, "must be in (0, 1], got " + show(v));
  };
  fraction(e.compute, "compute");
  fraction(e.memory, "memory");
  fraction(e.interconnect, "interconnect");
  if (e.fp8_compute != 0) fraction(e.fp8_compute, "fp8_compute");
  if (e.fp4_compute != 0) fraction(e.fp4_compute, "fp4_compute");
  if (e.lowbit_memory != 0) fraction(e.lowbit_memory, "lowbit_memory");
  auto seconds = [&](double v, const char* field, double max) {
    if (!(v >= 0 && v <= max))
      throw Error(source, std::string("efficiency.") + field,
                  "must be in [0, " + show(max) + "] seconds, got " + show(v));
  };
  seconds(e.overhead_s, "overhead_s", 10);
  seconds(e.layer_overhead_s, "layer_overhead_s", 0.01);
  seconds(e.allreduce_latency_s, "allreduce_latency_s", 0.01);
  seconds(e.seq_overhead_s, "seq_overhead_s", 0.01);
  seconds(e.frontend_s, "frontend_s", 10);
  seconds(e.expert_overhead_s, "expert_overhead_s", 1e-4);
  seconds(e.quant_layer_overhead_s, "quant_layer_overhead_s", 0.01);
}

StepModelInput step_model_input(const GpuSpec& gpu, Engine engine, std::uint32_t tp,
                                const std::optional<CalibratedEfficiency>& calibrated) {
  StepModelInput si;
  si.engine = engine;
  si.tp = tp;
  if (calibrated)
    si.efficiency = with_calibration(default_step_efficiency(gpu, engine), *calibrated);
  return si;
}

StepModelInput step_model_input(const GpuSpec& gpu, const PlanInput& plan,
                                const std::optional<CalibratedEfficiency>& calibrated) {
  StepModelInput si = step_model_input(gpu, plan.engine, plan.tp, calibrated);
  si.pp = plan.pp;
  // DP attention: plan.tp is one group's, its MoE layers span every group of the server, whole
  // experts over moe_ep of its GPUs (expert_parallel comes with it: the experts' memory). vLLM's
  // DP is the same layout: its replicas' MoE layers are one EP group of tp · DP ranks with EP,
  // one TP group of them without (ep 1).
  const std::uint32_t groups = moe_groups(plan);
  if (plan.attention_dp > 1) {
    si.attention_dp = plan.attention_dp;
    si.ep = plan.moe_ep;
  } else if (groups > 1 || plan.expert_parallel) {
    si.attention_dp = groups;
    si.ep = plan.expert_parallel ? plan.tp * groups : 1;
  }
  return si;
}

std::uint32_t moe_groups(const PlanInput& plan) {
  if (plan.attention_dp > 1) return plan.attention_dp;
  if (!plan.expert_parallel && !engine_rules(plan).data_parallel_shares_moe_layers()) return 1;
  return static_cast<std::uint32_t>(
      std::max<std::uint64_t>(engine_rules(plan).expert_parallel_replicas(plan), 1));
}

double expected_max_of_normals(std::uint32_t n) {
  if (n <= 1) return 0;
  // E[max] = ∫ x · n · φ(x) · Φ(x)^(n−1) dx; the integrand is below 1e-20 outside ±10.
  constexpr double step = 1e-3, pi = 3.14159265358979323846;
  double sum = 0;
  for (double x = -10; x <= 10; x += step) {
    const double phi = std::exp(-x * x / 2) / std::sqrt(2 * pi);
    const double cdf = 0.5 * std::erfc(-x / std::sqrt(2.0));
    sum += x * n * phi * std::pow(cdf, n - 1) * step;
  }
  return sum;
}

StepModel::StepModel(const ModelSpec& model, const GpuSpec& gpu, const StepModelInput& given,
                     const std::string& source) {
  // A dense model has no MoE layers to share or spread: its groups run as plain replicas.
  StepModelInput in = given;
  if (model.routed_experts == 0) in.attention_dp = 1, in.ep = 1;
  if (in.tp == 0 || !valid_tp(model, in.tp))
    throw Error(source, "tp",
                "tensor parallelism " + std::to_string(in.tp) + " does not divide model " +
                    model.id + "'s heads (" + std::to_string(model.num_q_heads) + " query, " +
                    std::to_string(model.num_kv_heads) + " KV)");
  if (in.attention_dp == 0)
    throw Error(source, "attention_dp", "DP attention groups: at least 1, got 0");
  // The ranks the routed experts and the MoE layers span: the TP group, or every DP attention
  // group's GPUs.
  const std::uint64_t moe_ranks = std::uint64_t{in.tp} * in.attention_dp;
  if (in.ep == 0 || moe_ranks % in.ep != 0)
    throw Error(source, "ep",
                "expert parallelism " + std::to_string(in.ep) + " must divide the " +
                    std::to_string(moe_ranks) +
                    " GPUs of the MoE layers (tensor parallelism × DP attention groups)");
  ep_ = in.ep;
  ep_spread_ = expected_max_of_normals(in.ep);
  moe_token_groups_ = in.attention_dp;
  multi_rank_ = moe_ranks > 1;
  eff_ = in.efficiency.value_or(default_step_efficiency(gpu, in.engine));
  validate(eff_, source);

  peak_flops_ = peak_for(gpu, model.weight_dtype, in.compute_dtype, source);
  const std::string dtype = in.compute_dtype.empty() ? model.weight_dtype : in.compute_dtype;
  compute_eff_ = eff_.compute;  // bf16 and the weight-only paths that compute at 16 bits
  if (dtype == "fp8" && gpu.peak_tflops_fp8 > 0 && eff_.fp8_compute > 0)
    compute_eff_ = eff_.fp8_compute;
  if (dtype == "fp4" && gpu.peak_tflops_fp4 > 0 && eff_.fp4_compute > 0)
    compute_eff_ = eff_.fp4_compute;
  if (!(gpu.bandwidth_gbps > 0))
    throw Error(source, "gpu", "GPU " + gpu.id + " has no bandwidth_gbps");
  bandwidth_ = gpu.bandwidth_gbps * 1e9;
  if (moe_ranks > 1 && !(gpu.interconnect_gbps > 0))
    throw Error(source, "tp",
                "GPU " + gpu.id + " has no interconnect_gbps: a step over " +
                    std::to_string(moe_ranks) + " GPUs needs the GPU-to-GPU bandwidth");
  link_bandwidth_ = gpu.interconnect_gbps * 1e9 / 2;  // one direction of the listed figure
  // Pipeline stages: each boundary sends IntermediateTensors {hidden_states, residual}, [tokens,
  // hidden] each in the 16-bit model dtype (docs/simulate-step-time.md "Pipeline parallelism"),
  // over the GPUs' own link (NVLink or PCIe, one direction) when the replica's tp · pp GPUs
  // share a node or NVLink domain (max_tp_span), else over one NIC per GPU at 400 Gb/s, 50 GB/s
  // (ConnectX-7 NDR, the disaggregated KV link's ndr400 preset, core/src/disagg_layout.cpp),
  // and no faster than the GPU's own link.
  if (in.pp == 0) throw Error(source, "pp", "pipeline stages: at least 1, got 0");
  pp_ = in.pp;
  if (in.pp > 1) {
    if (model.hidden_size == 0)
      throw Error(source, "model",
                  "model " + model.id + " has no hidden_size: the pipeline's transfers need it");
    const std::uint64_t span = max_tp_span(gpu);
    const bool within = span > 0 && std::uint64_t{in.tp} * in.pp <= span;
    constexpr double kNic = 50e9;
    pp_link_bandwidth_ =
        link_bandwidth_ > 0 ? (within ? link_bandwidth_ : std::min(link_bandwidth_, kNic)) : kNic;
    pp_bytes_per_token_ = 2.0 * static_cast<double>(model.hidden_size) * 2;
  }

  // Weights: the checkpoint's bytes split evenly over the TP ranks (planner memory_budget; pipeline
  // stages take shares of them one after another, so a step reads them all); the
  // vision tower does not run in a text step.
  const double all = static_cast<double>(model.weight_bytes());
  if (!(all > 0))
    throw Error(source, "model", "model " + model.id + " has no num_params or weight bytes");
  const double vision = static_cast<double>(model.weights.vision_bytes);
  double experts = static_cast<double>(model.weights.expert_bytes);
  if (experts + vision > all) experts = std::max(0.0, all - vision);
  const bool moe = model.routed_experts > 0 && experts > 0;
  if (moe && (model.experts_per_token == 0 || model.experts_per_token > model.routed_experts))
    throw Error(source, "model",
                "MoE model " + model.id + " (" + std::to_string(model.routed_experts) +
                    " routed experts) has no valid experts_per_token (num_experts_per_tok)");
  experts_ = moe ? model.routed_experts : 0;
  experts_per_token_ = moe ? model.experts_per_token : 0;
  if (!moe) experts = 0;  // no routing known: every weight is read every step
  const double tp = static_cast<double>(in.tp);
  weight_bytes_ = (all - vision - experts) / tp;
  expert_bytes_ = experts / static_cast<double>(moe_ranks);

  // Parameters: the published or estimated count, else bytes / bytes per weight. Expert and
  // vision parameters from their bytes at the checkpoint's nominal bytes per weight, which
  // overestimates them by the scales of quantized formats (mxfp4: 4.25 bits a weight, not 4). A
  // second bound tightens that: the other weights take at most 2 bytes each (bf16), so they are at
  // least (all − experts) / 2 parameters (gpt-oss: bf16 attention beside mxfp4 experts).
  const double bpp = weight_bytes_per_param(model.weight_dtype, source, "weight_dtype");
  const double params = model.num_params > 0 ? static_cast<double>(model.num_params) : all / bpp;
  const double expert_params =
      std::clamp(std::min(experts / bpp, params - (all - experts) / 2), 0.0, params);
  const double vision_params = std::min(vision / bpp, params - expert_params);
  active_params_ = params - vision_params - expert_params;
  const double routed_params = moe ? expert_params * experts_per_token_ / experts_ : 0;
  active_params_ += routed_params;
  flops_per_token_ = 2 * active_params_ / tp;
  routed_flops_per_token_ = 2 * routed_params / tp;
  roofline_expert_bytes_ = expert_bytes_;

  // The routed experts from a measured per-operation table where kvplan has one for this GPU,
  // engine, shape, dtype and tp: its time replaces their FLOPs, bytes and per-expert overhead.
  // With expert parallelism the row is the busiest rank's (the tables' ep column).
  if (moe && in.measured_tables) {
    auto found =
        detail::find_moe_curve(model, gpu, in.engine, static_cast<std::uint32_t>(moe_ranks), in.ep);
    moe_source_ = found.curve ? found.why : "roofline: " + found.why;
    if (found.curve) {
      moe_curve_ = std::make_shared<const detail::MoeCurve>(std::move(*found.curve));
      moe_layers_ = model.moe_layers;
      flops_per_token_ = 2 * (active_params_ - routed_params) / tp;
      routed_flops_per_token_ = 0;
      roofline_expert_bytes_ = 0;
    }
  }

  // Attention: QKᵀ and PV, 2·(d_k + d_v) FLOPs per pair per query head on this rank.
  double dk = model.head_dim_k, dv = model.head_dim_v;
  if (model.is_mla()) {
    dk = model.latent_width();
    dv = model.kv_lora_rank;
  }
  const double q_heads_per_rank = std::ceil(static_cast<double>(model.num_q_heads) / tp);
  flops_per_pair_ = 2 * (dk + dv) * q_heads_per_rank * model.cached_layers();

  // The bf16 hidden state through one rank's link per token of the step, each layer: two
  // all-reduces over the TP group (attention out, MLP out; a ring sends 2(tp − 1)/tp of the
  // buffer); under DP attention the attention group's reduce-scatter, then every group's tokens
  // gathered over the moe_ranks and reduce-scattered back (see the header).
  const double layers = static_cast<double>(model.layers.size());
  const double hidden_bytes = static_cast<double>(model.hidden_size) * 2;
  const double ranks = static_cast<double>(moe_ranks), groups = in.attention_dp;
  if (in.attention_dp == 1)
    comm_bytes_per_token_ = in.tp > 1 ? 2 * layers * hidden_bytes * 2 * (tp - 1) / tp : 0;
  else
    comm_bytes_per_token_ =
        layers * hidden_bytes * ((tp - 1) / tp + 2 * (ranks - 1) / ranks * groups);
  layers_ = std::max<double>(1, layers);
  lm_head_bytes_ = static_cast<double>(model.vocab_size) * model.hidden_size * 2 / tp;
  if (moe_ranks > 1 && model.hidden_size == 0)
    throw Error(source, "model",
                "model " + model.id + " has no hidden_size: the TP all-reduce needs it");
  fixed_s_ = eff_.overhead_s + layers * eff_.layer_overhead_s +
             (moe_ranks > 1 ? 2 * layers * eff_.allreduce_latency_s : 0) +
             (moe_curve_ ? 0 : layers * experts_ * eff_.expert_overhead_s);
  const std::string& wd = model.weight_dtype;
  if (wd == "fp8" || wd == "fp4" || wd == "int4" || wd == "int8")
    fixed_s_ += layers * eff_.quant_layer_overhead_s;
  // 4-bit checkpoints (NVFP4, MXFP4, INT4 AWQ/GPTQ): a dense model's weights stream at
  // lowbit_memory. In an MoE model the 4-bit part is the experts (gpt-oss, Kimi-K2.5 keep
  // attention in 16 or 8 bits), and they keep memory: the train split's DeepSeek-V3 NVFP4 fits
  // better without the 4-bit rate (default_step_efficiency).
  const bool lowbit =
      (model.weight_dtype == "fp4" || model.weight_dtype == "int4") && eff_.lowbit_memory > 0;
  dense_memory_eff_ = lowbit && !moe ? eff_.lowbit_memory : eff_.memory;
  expert_memory_eff_ = eff_.memory;
}

namespace {

double step_tokens(const StepBatch& b) {
  return static_cast<double>(b.prefill_tokens) + static_cast<double>(b.decode_tokens) +
         static_cast<double>(b.spec_tokens);
}

}  // namespace

StepModel::ExpertLoad StepModel::expert_load(double step_tokens) const {
  if (experts_ == 0 || !(step_tokens > 0)) return {};
  // Under DP attention an MoE layer sees every group's tokens (the header's assumption: D times
  // this group's).
  const double tokens = step_tokens * moe_token_groups_;
  // Each expert is missed by all T tokens with (1 − k/E)^T.
  const double touched = 1 - std::pow(1 - experts_per_token_ / experts_, tokens);
  if (ep_ == 1) return {.compute = 1, .touched = touched};
  const double ep = ep_, k = experts_per_token_;
  const double local = std::ceil(experts_ / ep);  // the busiest rank's experts
  // Routed tokens: T · k picks, each on this rank with 1/ep; at most min(k, local) a token.
  const double picks = tokens * k, mean = picks / ep;
  const double busiest = std::min(mean + ep_spread_ * std::sqrt(picks * (1 / ep) * (1 - 1 / ep)),
                                  tokens * std::min(k, local));
  // Touched experts of the rank: each of `local` with probability `touched`.
  const double hit =
      std::min(local * touched + ep_spread_ * std::sqrt(local * touched * (1 - touched)), local);
  // As a fraction of the rank's share of the expert bytes (E / ep experts' worth).
  return {.compute = busiest / mean, .touched = hit / (experts_ / ep)};
}

StepModel::Terms StepModel::terms(const StepBatch& b) const {
  const double tokens = step_tokens(b);
  const double pairs = static_cast<double>(b.prefill_pairs) + static_cast<double>(b.decode_pairs);
  const ExpertLoad load = expert_load(tokens);
  Terms t;
  t.flops = flops_per_token_ * tokens + routed_flops_per_token_ * tokens * (load.compute - 1) +
            flops_per_pair_ * pairs;
  t.expert_bytes = roofline_expert_bytes_ * load.touched;
  t.bytes = weight_bytes_ + t.expert_bytes + static_cast<double>(b.kv_read_bytes);
  if (moe_curve_) t.measured_s = moe_layers_ * moe_curve_->seconds(tokens * moe_token_groups_);
  t.allreduce_bytes = comm_bytes_per_token_ * tokens;
  return t;
}

double StepModel::seconds(const StepBatch& b) const {
  if (b.prefill_tokens == 0 && b.decode_tokens == 0) return 0;
  const Terms t = terms(b);
  const double compute = t.flops / (peak_flops_ * compute_eff_);
  // The same bytes as terms(), each part at its own efficiency.
  const double memory = weight_bytes_ / (bandwidth_ * dense_memory_eff_) +
                        t.expert_bytes / (bandwidth_ * expert_memory_eff_) +
                        static_cast<double>(b.kv_read_bytes) / (bandwidth_ * eff_.memory);
  const double allreduce =
      t.allreduce_bytes > 0 ? t.allreduce_bytes / (link_bandwidth_ * eff_.interconnect) : 0;
  const double seqs = static_cast<double>(b.decode_tokens) + static_cast<double>(b.prefill_seqs);
  // Pipeline stages one after another: the same layers, weights and KV in pp shares, plus the
  // hidden states across each of the pp − 1 boundaries.
  const double pipeline = pp_ > 1 ? (pp_ - 1) * step_tokens(b) * pp_bytes_per_token_ /
                                        (pp_link_bandwidth_ * eff_.interconnect)
                                  : 0;
  return std::max(compute, memory) + t.measured_s + allreduce + fixed_s_ +
         seqs * eff_.seq_overhead_s + pipeline + draft_seconds(b);
}

double StepModel::draft_seconds(const StepBatch& b) const {
  const double rows = static_cast<double>(b.decode_tokens) + static_cast<double>(b.prefill_seqs);
  if (b.draft_passes == 0 || rows == 0) return 0;
  const double d = std::max<std::uint32_t>(b.draft_layers, 1);
  const double share = std::min(d / layers_, 1.0);
  // The LM head: vocab · hidden multiply-adds a sampled row, 2 FLOPs each; its bf16 bytes are
  // 2 · vocab · hidden too (both per rank).
  const double lm_head_flops = lm_head_bytes_;
  // One pass: `tokens` through the draft layers (`pairs` of their attention), `rows` through the
  // LM head.
  const auto pass = [&](double tokens, double pairs) {
    const ExpertLoad load = expert_load(tokens);
    const double flops =
        (flops_per_token_ * tokens + routed_flops_per_token_ * tokens * (load.compute - 1) +
         flops_per_pair_ * pairs) *
            share +
        lm_head_flops * rows;
    const double memory =
        (weight_bytes_ * share + lm_head_bytes_) / (bandwidth_ * dense_memory_eff_) +
        roofline_expert_bytes_ * share * load.touched / (bandwidth_ * expert_memory_eff_) +
        static_cast<double>(b.kv_read_bytes) * share / (bandwidth_ * eff_.memory);
    double s = std::max(flops / (peak_flops_ * compute_eff_), memory) + d * eff_.layer_overhead_s;
    if (moe_curve_) s += share * moe_layers_ * moe_curve_->seconds(tokens * moe_token_groups_);
    if (multi_rank_)
      s += comm_bytes_per_token_ * share * tokens / (link_bandwidth_ * eff_.interconnect) +
           2 * d * eff_.allreduce_latency_s;
    return s;
  };
  // The first pass takes every token of the step (the drafter's cache follows the target's),
  // the other k − 1 one token a request (llm_base_proposer.py@00c4f22d propose).
  const double first = pass(step_tokens(b), static_cast<double>(b.prefill_pairs + b.decode_pairs));
  const double next = pass(rows, static_cast<double>(b.decode_pairs));
  return first + (b.draft_passes - 1) * next;
}

}  // namespace kvplan::sim
