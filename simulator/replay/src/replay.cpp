#include "kvplan/sim/replay.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <memory>
#include <numeric>
#include <thread>
#include <utility>

#include "kvplan/checked.hpp"
#include "kvplan/error.hpp"
#ifdef KVPLAN_HAVE_CUDA
#include "kvplan/kernels/cuda.hpp"
#endif
#include "kvplan/formula.hpp"

namespace kvplan::sim {

namespace kn = kvplan::kernels;

std::string label(const ReplayConfig& c) {
  return to_string(c.format) + " | " + to_string(c.policy) + " | S=" + std::to_string(c.block_size);
}

ReplayConfig parse_config(const std::string& kv_dtype, const std::string& policy,
                          std::uint32_t block_size) {
  if (block_size == 0) throw Error("--block-size", "block-size", "must be at least 1 token, got 0");
  return {parse_kv_format(kv_dtype), parse_policy(policy), block_size};
}

ModelSpec spec_from_trace(const TraceInfo& info, const std::string& source) {
  ModelSpec s;
  s.id = info.model.empty() ? "trace" : info.model;
  s.name = s.id + " (trace)";
  s.source = source;
  s.layers.assign(info.layers, LayerSpec{});
  s.num_q_heads = info.q_heads;
  s.num_kv_heads = info.kv_heads;
  s.head_dim_k = s.head_dim_v = info.head_dim;
  s.max_context = info.tokens;
  return s;
}

std::uint64_t predicted_bytes(const ModelSpec& spec, const ReplayConfig& cfg, std::uint64_t n,
                              std::uint64_t prefill) {
  KvCostInput in{.context = n,
                 .batch = 1,
                 .format = cfg.format,
                 .policy = cfg.policy,
                 .block_size = cfg.block_size};
  if (cfg.policy.kind == PolicyKind::snapkv) {
    in.prefill = prefill;  // before the prompt ends nothing is compressed (kvplan::retained)
  }
  return kv_cost(spec, in, "replay").bytes_per_request;
}

bool ReplayReport::all_bytes_match() const {
  return std::all_of(configs.begin(), configs.end(), [](const auto& c) { return c.bytes_match; });
}

// ------------------------------------------------------------------------ KernelAttention

KernelAttention::KernelAttention(const ReplayConfig& cfg, std::uint32_t layers,
                                 std::uint32_t q_heads, std::uint32_t kv_heads,
                                 std::uint32_t head_dim, RopeSpec rope, kn::Backend backend,
                                 std::uint64_t prefill, const std::string& source)
    : cfg_(cfg),
      layers_(layers),
      hq_(q_heads),
      hkv_(kv_heads),
      d_(head_dim),
      rope_(rope),
      backend_(backend),
      prefill_(prefill),
      source_(source) {
  kivi_evict_ = cfg.format.dtype == KvDtype::kivi &&
                (cfg.policy.kind == PolicyKind::streaming || cfg.policy.kind == PolicyKind::h2o);
  if (cfg.policy.kind == PolicyKind::snapkv && prefill == 0)
    throw Error(source, "prefill", "snapkv needs a prompt length of at least 1 token");
  validate_stream(cfg.format, StreamRole::key, head_dim, cfg.block_size, source);
  if (backend == kn::Backend::cuda) {
    // The CUDA launchers take the host pool's views (staged to the device), so the same replay
    // runs every kernel on the GPU: a co-simulation against the CPU run.
#ifdef KVPLAN_HAVE_CUDA
    std::string why;
    if (!kn::cuda_available(&why))
      throw Error(source, "backend", "cuda: no usable GPU (" + why + "); use --backend cpu");
#else
    throw Error(source, "backend",
                "cuda: kvplan was built without CUDA kernels (use --backend cpu)");
#endif
  }
  krope_ = kernel_rope(rope);
  // One single-layer pool per layer, so a layer's cache can be rebuilt on its own (SnapKV on
  // a KIVI cache) without touching the others.
  const kn::PoolConfig pc{.format = cfg.format,
                          .num_layers = 1,
                          .num_kv_heads = kv_heads,
                          .head_dim = head_dim,
                          .block_size = cfg.block_size};
  check(kn::validate(pc), "pool config");
  pools_.resize(layers);
  seqs_.resize(layers);
  for (std::uint32_t l = 0; l < layers; ++l) {
    check(pools_[l].init(pc), "pool init");
    seqs_[l] = pools_[l].add_sequence();
  }
  scores_.assign(layers, std::vector<std::vector<float>>(kv_heads));
  shadow_k_.resize(layers);
  shadow_v_.resize(layers);
  obs_q_.resize(layers);
  scratch_.resize(layers);
  for (auto& s : scratch_) s.qr.resize(std::size_t{q_heads} * head_dim);
}

Error kernel_error(const kn::Status& s, const std::string& source, const std::string& field,
                   const std::string& what) {
  ErrorKind kind = ErrorKind::internal;
  switch (s.code) {
    case kn::StatusCode::invalid_argument:
      kind = ErrorKind::invalid_input;
      break;
    case kn::StatusCode::ok:
    case kn::StatusCode::out_of_range:
    case kn::StatusCode::unimplemented:
    case kn::StatusCode::internal:
      break;
  }
  return Error(kind, source, field, what + ": " + s.message);
}

void KernelAttention::check(const kn::Status& s, const char* what) const {
  if (!s.ok()) throw kernel_error(s, source_, label(cfg_), what);
}

std::uint64_t KernelAttention::bytes_held() const {
  std::uint64_t b = 0;
  for (std::uint32_t l = 0; l < layers_; ++l) b += bytes_held(l);
  return b;
}

std::uint64_t KernelAttention::bytes_held(std::uint32_t layer) const {
  return pools_[layer].bytes_held(seqs_[layer]);
}

std::uint32_t KernelAttention::retained(std::uint32_t layer) const {
  return pools_[layer].num_tokens(seqs_[layer], 0);
}

std::span<const std::int32_t> KernelAttention::positions(std::uint32_t layer,
                                                         std::uint32_t h) const {
  return {pools_[layer].positions(seqs_[layer], 0, h), pools_[layer].num_tokens(seqs_[layer], 0)};
}

void KernelAttention::attend(std::uint32_t layer, std::uint64_t pos, std::span<const float> q,
                             std::span<const float> k, std::span<const float> v,
                             std::span<float> out) {
  Scratch& scr = scratch_[layer];
  std::vector<float>& kr = scr.flat;
  kr.assign(k.begin(), k.end());
  for (std::uint32_t h = 0; h < hkv_; ++h) apply_rope(rope_, {kr.data() + h * d_, d_}, pos);
  const RetentionPolicy& P = cfg_.policy;
  const bool snap_prefill = P.kind == PolicyKind::snapkv && pos < prefill_;
  if (snap_prefill || kivi_evict_) {
    shadow_k_[layer].insert(shadow_k_[layer].end(), kr.begin(), kr.end());
    shadow_v_[layer].insert(shadow_v_[layer].end(), v.begin(), v.end());
  }
  check(pools_[layer].append(seqs_[layer], 0, kr.data(), v.data(), static_cast<std::int32_t>(pos)),
        "append");

  // Evict before attending: budgets count the current token.
  std::uint32_t n = pools_[layer].num_tokens(seqs_[layer], 0);
  if (P.kind == PolicyKind::streaming && n > P.sink + P.window) {
    const kn::PagedKvView view = pools_[layer].view(seqs_[layer], 0);
    kn::KeepSet keep;
    check(kn::streaming_select({.num_kv_heads = hkv_,
                                .num_tokens = n,
                                .positions = view.positions,
                                .positions_stride = view.positions_stride,
                                .sink = P.sink,
                                .window = P.window},
                               &keep, backend_),
          "streaming_select");
    apply_keep(layer, keep);
  } else if (P.kind == PolicyKind::h2o) {
    auto& sc = scores_[layer];
    for (auto& s : sc) s.push_back(0.0f);
    kn::H2oSelectParams hp = kn::h2o_params(P, pos + 1);
    if (n > hp.heavy + hp.recent) {
      const kn::PagedKvView view = pools_[layer].view(seqs_[layer], 0);
      std::vector<float> flat(std::size_t{hkv_} * n);
      for (std::uint32_t h = 0; h < hkv_; ++h)
        std::copy(sc[h].begin(), sc[h].end(), flat.begin() + h * n);
      hp.num_kv_heads = hkv_;
      hp.num_tokens = n;
      hp.scores = flat.data();
      hp.positions = view.positions;
      hp.positions_stride = view.positions_stride;
      kn::KeepSet keep;
      check(kn::h2o_select(hp, &keep, backend_), "h2o_select");
      std::vector<float> kept(std::size_t{hkv_} * keep.count);
      kn::gather_slots(flat.data(), n, keep, kept.data());
      apply_keep(layer, keep);
      for (std::uint32_t h = 0; h < hkv_; ++h)
        sc[h].assign(kept.begin() + h * keep.count, kept.begin() + (h + 1) * keep.count);
    }
  }

  n = pools_[layer].num_tokens(seqs_[layer], 0);
  std::copy(q.begin(), q.end(), scr.qr.begin());
  const std::uint64_t qpos = P.positions == PositionMode::cache ? n - 1 : pos;
  for (std::uint32_t h = 0; h < hq_; ++h) apply_rope(rope_, {scr.qr.data() + h * d_, d_}, qpos);
  const bool want_probs = P.kind == PolicyKind::h2o;
  if (want_probs) scr.probs.resize(std::size_t{hq_} * n);
  check(kn::decode_attention({.kv = pools_[layer].view(seqs_[layer], 0),
                              .num_q_heads = hq_,
                              .q = scr.qr.data(),
                              .out = out.data(),
                              .probs = want_probs ? scr.probs.data() : nullptr,
                              .rope = krope_,
                              .positions = P.positions},
                             backend_),
        "decode_attention");
  if (P.kind == PolicyKind::h2o) {
    auto& sc = scores_[layer];
    std::vector<float> flat(std::size_t{hkv_} * n);
    for (std::uint32_t h = 0; h < hkv_; ++h)
      std::copy(sc[h].begin(), sc[h].end(), flat.begin() + h * n);
    check(kn::h2o_accumulate({.num_q_heads = hq_,
                              .num_kv_heads = hkv_,
                              .num_tokens = n,
                              .probs = scr.probs.data(),
                              .scores = flat.data(),
                              .gqa = P.gqa},
                             backend_),
          "h2o_accumulate");
    for (std::uint32_t h = 0; h < hkv_; ++h)
      sc[h].assign(flat.begin() + h * n, flat.begin() + (h + 1) * n);
  }
  if (snap_prefill) {
    // Keep the queries of the observation window, rotated at their original positions.
    std::vector<float> qo(q.begin(), q.end());
    for (std::uint32_t h = 0; h < hq_; ++h) apply_rope(rope_, {qo.data() + h * d_, d_}, pos);
    auto& obs = obs_q_[layer];
    obs.insert(obs.end(), qo.begin(), qo.end());
    const std::size_t keep_rows = std::max<std::uint64_t>(1, P.window);
    if (obs.size() > keep_rows * qo.size())
      obs.erase(obs.begin(), obs.end() - static_cast<std::ptrdiff_t>(keep_rows * qo.size()));
    if (pos + 1 == prefill_) snapkv_compress(layer, prefill_);
  }
}

void KernelAttention::apply_keep(std::uint32_t layer, const kn::KeepSet& keep) {
  if (cfg_.format.dtype != KvDtype::kivi) {
    check(pools_[layer].compact(seqs_[layer], 0, keep), "compact");
    return;
  }
  // KIVI groups keys across G tokens, so the kernels cannot drop single tokens (compact refuses
  // a KIVI pool). Rebuild the layer from the kept tokens' full-precision values, re-quantized in
  // fresh groups: SnapKV does exactly this (it compresses the prompt once, before quantizing).
  // For streaming and H2O it is a model of an engine that re-forms groups on eviction: the bytes
  // are exact, the error does not compound across rebuilds (re-quantizing the dequantized values
  // at every step instead would compound it hundreds of times, which no engine does). The float32
  // rows are bookkeeping, not cache bytes.
  const std::uint32_t m = keep.count;
  std::vector<float> kk(std::size_t{m} * hkv_ * d_), vv(kk.size());
  std::vector<std::int32_t> kp(std::size_t{m} * hkv_);
  for (std::uint32_t h = 0; h < hkv_; ++h)
    for (std::uint32_t i = 0; i < m; ++i) {
      const std::size_t src = static_cast<std::size_t>(keep.slots[std::size_t{h} * m + i]);
      const std::size_t dst = (std::size_t{i} * hkv_ + h) * d_;
      std::copy_n(shadow_k_[layer].data() + (src * hkv_ + h) * d_, d_, kk.data() + dst);
      std::copy_n(shadow_v_[layer].data() + (src * hkv_ + h) * d_, d_, vv.data() + dst);
      kp[std::size_t{i} * hkv_ + h] = keep.positions[std::size_t{h} * m + i];
    }
  check(pools_[layer].free_sequence(seqs_[layer]), "free_sequence");
  seqs_[layer] = pools_[layer].add_sequence();
  check(pools_[layer].append_tokens(seqs_[layer], 0, m, kk.data(), vv.data(), kp.data(), true),
        "append_tokens");
  if (kivi_evict_) {
    shadow_k_[layer] = std::move(kk);
    shadow_v_[layer] = std::move(vv);
  }
}

void KernelAttention::snapkv_compress(std::uint32_t layer, std::uint64_t n64) {
  const RetentionPolicy& P = cfg_.policy;
  const auto n = static_cast<std::uint32_t>(n64);
  const std::size_t qw = std::size_t{hq_} * d_;
  const auto w = static_cast<std::uint32_t>(obs_q_[layer].size() / qw);
  std::vector<std::int32_t> pos(std::size_t{hkv_} * n), qpos(w);
  for (std::uint32_t h = 0; h < hkv_; ++h)
    std::iota(pos.begin() + h * n, pos.begin() + (h + 1) * n, 0);
  std::iota(qpos.begin(), qpos.end(), static_cast<std::int32_t>(n - w));
  const std::uint32_t table = 0;
  const kn::PagedKvView dense = kn::dense_view(shadow_k_[layer].data(), shadow_v_[layer].data(), n,
                                               hkv_, d_, pos.data(), &table);
  std::vector<float> probs(std::size_t{hq_} * w * n);
  check(kn::prefill_attention({.kv = dense,
                               .num_q_heads = hq_,
                               .num_queries = w,
                               .q = obs_q_[layer].data(),
                               .q_positions = qpos.data(),
                               .probs = probs.data(),
                               .rope = krope_},
                              backend_),
        "prefill_attention");
  kn::KeepSet keep;
  check(kn::snapkv_select({.num_q_heads = hq_,
                           .num_kv_heads = hkv_,
                           .num_tokens = n,
                           .num_queries = w,
                           .probs = probs.data(),
                           .positions = pos.data(),
                           .positions_stride = n,
                           .budget = kn::snapkv_budget(P, n),
                           .kernel = P.kernel,
                           .pool = P.pool,
                           .gqa = P.gqa},
                          &keep, backend_),
        "snapkv_select");
  if (keep.count < n) apply_keep(layer, keep);
  shadow_k_[layer].clear();
  shadow_k_[layer].shrink_to_fit();
  shadow_v_[layer].clear();
  shadow_v_[layer].shrink_to_fit();
  obs_q_[layer].clear();
}

// ------------------------------------------------------------------- FullCacheReference

FullCacheReference::FullCacheReference(std::uint32_t layers, std::uint32_t q_heads,
                                       std::uint32_t kv_heads, std::uint32_t head_dim,
                                       RopeSpec rope, std::uint64_t capacity)
    : layers_(layers),
      hq_(q_heads),
      hkv_(kv_heads),
      d_(head_dim),
      rope_(rope),
      cap_(capacity),
      cache_(layers),
      scratch_(layers) {
  for (auto& c : cache_) full_attention::reserve(c, kv_heads, head_dim, capacity);
  for (auto& s : scratch_) {
    s.qr.resize(std::size_t{q_heads} * head_dim);
    s.att.reserve(mul(q_heads, capacity, "reference probabilities"));
  }
}

void FullCacheReference::append(std::uint32_t layer, std::uint64_t pos, std::span<const float> k,
                                std::span<const float> v) {
  if (layer >= layers_ || pos != cache_[layer].len || pos >= cap_)
    throw Error(ErrorKind::internal, "reference attention", "pos",
                "positions must be appended in order below " + std::to_string(cap_) + ", got " +
                    std::to_string(pos));
  full_attention::append(cache_[layer], rope_, k, v, hkv_, d_);
}

void FullCacheReference::attend(std::uint32_t layer, std::uint64_t pos, std::span<const float> q,
                                std::span<const float> k, std::span<const float> v,
                                std::span<float> out) {
  append(layer, pos, k, v);
  Scratch& s = scratch_[layer];
  std::copy(q.begin(), q.end(), s.qr.begin());
  for (std::uint32_t h = 0; h < hq_; ++h)
    apply_rope(rope_, std::span<float>(s.qr.data() + std::size_t{h} * d_, d_), pos);
  s.last_len = pos + 1;
  s.att.resize(std::size_t{hq_} * s.last_len);
  full_attention::attend(cache_[layer], s.qr.data(), hq_, hkv_, d_, s.att.data(), out.data());
}

std::span<const float> FullCacheReference::last_probs(std::uint32_t layer, std::uint32_t h) const {
  const Scratch& s = scratch_[layer];
  return {s.att.data() + h * s.last_len, static_cast<std::size_t>(s.last_len)};
}

// ------------------------------------------------------------------------------ measuring

namespace {

struct FidelityAcc {
  std::vector<double> err, mass;
  std::vector<std::uint64_t> count;
  explicit FidelityAcc(std::uint32_t layers) : err(layers), mass(layers), count(layers) {}
  // probs_of(h): the full cache's probabilities of query head h at this step.
  template <class ProbsOf>
  void add(std::uint32_t layer, std::span<const float> out, std::span<const float> ref,
           const ProbsOf& probs_of, const KernelAttention& K, std::uint32_t hq, std::uint32_t hkv) {
    double num = 0, den = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
      const double dlt = static_cast<double>(out[i]) - ref[i];
      num += dlt * dlt;
      den += static_cast<double>(ref[i]) * ref[i];
    }
    err[layer] += den > 0 ? std::sqrt(num / den) : std::sqrt(num);
    double m = 0;
    const std::uint32_t group = hq / hkv;
    for (std::uint32_t h = 0; h < hq; ++h) {
      const auto probs = probs_of(h);
      for (std::int32_t p : K.positions(layer, h / group))
        if (static_cast<std::size_t>(p) < probs.size()) m += probs[static_cast<std::size_t>(p)];
    }
    mass[layer] += m / hq;
    ++count[layer];
  }
  void finish(ConfigResult& r) const {
    r.layer_rel_error.resize(err.size());
    r.layer_mass.resize(err.size());
    double se = 0, sm = 0;
    for (std::size_t l = 0; l < err.size(); ++l) {
      // A layer with no scored position is not measured (NaN: "-" / null), never 0 error or
      // full attention mass.
      r.layer_rel_error[l] = count[l] ? err[l] / static_cast<double>(count[l]) : std::nan("");
      r.layer_mass[l] = count[l] ? mass[l] / static_cast<double>(count[l]) : std::nan("");
      se += r.layer_rel_error[l];
      sm += r.layer_mass[l];
    }
    r.rel_error = err.empty() ? std::nan("") : se / static_cast<double>(err.size());
    r.attention_mass = err.empty() ? std::nan("") : sm / static_cast<double>(err.size());
  }
};

// Kernel attention of one configuration plus a float32 full-cache shadow fed the same inputs.
class MeasuredAttention final : public AttentionBackend {
 public:
  MeasuredAttention(KernelAttention& k, const Llama2cModel& m)
      : kern_(k),
        shadow_(m),
        acc_(m.config().n_layers),
        hq_(m.config().n_heads),
        hkv_(m.config().n_kv_heads),
        ref_(std::size_t{hq_} * m.config().head_size()) {}
  void attend(std::uint32_t layer, std::uint64_t pos, std::span<const float> q,
              std::span<const float> k, std::span<const float> v, std::span<float> out) override {
    kern_.attend(layer, pos, q, k, v, out);
    shadow_.attend(layer, pos, q, k, v, ref_);
    if (score)
      acc_.add(
          layer, out, ref_, [this](std::uint32_t h) { return shadow_.last_probs(h); }, kern_, hq_,
          hkv_);
  }
  bool score = false;
  const FidelityAcc& acc() const { return acc_; }

 private:
  KernelAttention& kern_;
  ReferenceAttention shadow_;
  FidelityAcc acc_;
  std::uint32_t hq_, hkv_;
  std::vector<float> ref_;
};

void log_softmax(std::span<const float> logits, std::vector<double>& out) {
  out.resize(logits.size());
  double mx = -std::numeric_limits<double>::infinity();
  for (float x : logits) mx = std::max(mx, static_cast<double>(x));
  double sum = 0;
  for (float x : logits) sum += std::exp(static_cast<double>(x) - mx);
  const double lse = mx + std::log(sum);
  for (std::size_t i = 0; i < logits.size(); ++i) out[i] = static_cast<double>(logits[i]) - lse;
}

std::size_t argmax(std::span<const float> x) {
  std::size_t b = 0;
  for (std::size_t i = 1; i < x.size(); ++i)
    if (x[i] > x[b]) b = i;
  return b;
}

void track_bytes(ConfigResult& r, std::uint64_t step, std::uint64_t predicted,
                 std::uint64_t measured) {
  r.predicted_bytes = predicted;
  r.measured_bytes = measured;
  r.predicted_peak_bytes = std::max(r.predicted_peak_bytes, predicted);
  r.measured_peak_bytes = std::max(r.measured_peak_bytes, measured);
  if (predicted != measured && r.bytes_match) {
    r.bytes_match = false;
    r.first_mismatch_step = static_cast<std::int64_t>(step);
  }
}

// A given prefill must lie inside the sequence (a prompt longer than the replay would silently
// turn SnapKV into the full cache); the default is clamped to [1, T].
std::uint64_t resolve_prefill(const ReplayOptions& opt, std::uint64_t T) {
  if (opt.prefill) {
    if (*opt.prefill == 0 || *opt.prefill > T)
      throw Error("--prefill", "prefill",
                  "must be in [1, " + std::to_string(T) + "] (the tokens replayed), got " +
                      std::to_string(*opt.prefill));
    return *opt.prefill;
  }
  const std::uint64_t p = opt.eval_from > 0 ? opt.eval_from : T / 2;
  return std::clamp<std::uint64_t>(p, 1, std::max<std::uint64_t>(T, 1));
}

// Worker threads for a trace replay: --threads, or the hardware's, never more than the layers;
// one for CUDA, whose launchers share one stream.
std::uint32_t replay_workers(const ReplayOptions& opt, std::uint32_t layers) {
  if (opt.backend != kn::Backend::cpu) return 1;
  const std::uint32_t hw = std::max(1u, std::thread::hardware_concurrency());
  return std::clamp<std::uint32_t>(opt.threads ? opt.threads : hw, 1, std::max(1u, layers));
}

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

ReplayReport replay_model(const Llama2cModel& model, std::span<const std::int32_t> tokens,
                          const std::vector<ReplayConfig>& configs, const ReplayOptions& opt) {
  const auto& c = model.config();
  std::uint64_t T = std::min<std::uint64_t>(tokens.size(), c.seq_len);
  if (opt.max_tokens) T = std::min(T, opt.max_tokens);
  if (T < 2)
    throw Error(model.path(), "tokens",
                "need at least 2 tokens to score, got " + std::to_string(T));
  if (opt.eval_from + 1 >= T)
    throw Error("--eval-from", "eval-from",
                std::to_string(opt.eval_from) + " leaves no position to score in " +
                    std::to_string(T) + " tokens");
  if (configs.empty()) throw Error("replay", "configs", "no configuration to replay");
  ReplayReport rep;
  rep.source = model.path();
  rep.model = model.spec().id;
  rep.tokens = T;
  rep.eval_from = opt.eval_from;
  rep.prefill = resolve_prefill(opt, T);
  rep.model_in_loop = true;
  const ModelSpec spec = model.spec();
  const std::uint32_t hs = c.head_size();

  ReplayConfig base_cfg{.format = KvFormat{.dtype = KvDtype::fp32}, .policy = {}, .block_size = 1};
  KernelAttention base(base_cfg, c.n_layers, c.n_heads, c.n_kv_heads, hs, model.rope(), opt.backend,
                       rep.prefill, model.path());
  Llama2cRunner base_run(model);
  struct Slot {
    std::unique_ptr<KernelAttention> kern;
    std::unique_ptr<MeasuredAttention> meas;
    std::unique_ptr<Llama2cRunner> run;
    ConfigResult r;
    double nll = 0, kl = 0;
    std::uint64_t agree = 0;
  };
  std::vector<Slot> slots;
  for (const auto& cfg : configs) {
    Slot s;
    s.kern =
        std::make_unique<KernelAttention>(cfg, c.n_layers, c.n_heads, c.n_kv_heads, hs,
                                          model.rope(), opt.backend, rep.prefill, model.path());
    s.meas = std::make_unique<MeasuredAttention>(*s.kern, model);
    s.run = std::make_unique<Llama2cRunner>(model);
    s.r.config = cfg;
    s.r.label = label(cfg);
    s.r.model_in_loop = true;
    slots.push_back(std::move(s));
  }
  std::vector<float> base_logits;
  std::vector<double> lp_base, lp;
  double base_nll = 0;
  std::uint64_t scored = 0;
  for (std::uint64_t t = 0; t < T; ++t) {
    const bool score = t >= opt.eval_from && t + 1 < T;
    const auto bl = base_run.forward(tokens[t], t, base);
    base_logits.assign(bl.begin(), bl.end());
    log_softmax(base_logits, lp_base);
    const std::size_t base_top = argmax(base_logits);
    if (score) {
      base_nll -= lp_base[static_cast<std::size_t>(tokens[t + 1])];
      ++scored;
    }
    for (auto& s : slots) {
      const auto t0 = Clock::now();
      s.meas->score = score;
      const auto logits = s.run->forward(tokens[t], t, *s.meas);
      s.r.seconds += since(t0);
      track_bytes(s.r, t, predicted_bytes(spec, s.r.config, t + 1, rep.prefill),
                  s.kern->bytes_held());
      if (!score) continue;
      log_softmax(logits, lp);
      double kl = 0;
      for (std::size_t i = 0; i < lp.size(); ++i) {
        const double p = std::exp(lp_base[i]);
        if (p > 0) kl += p * (lp_base[i] - lp[i]);
      }
      s.kl += kl;
      s.r.max_kl = std::max(s.r.max_kl, kl);
      s.agree += argmax(logits) == base_top ? 1 : 0;
      s.nll -= lp[static_cast<std::size_t>(tokens[t + 1])];
    }
    if (opt.progress) opt.progress(t + 1, T);
  }
  rep.baseline_perplexity = std::exp(base_nll / static_cast<double>(scored));
  for (auto& s : slots) {
    s.r.steps = T;
    s.r.scored = scored;
    s.r.mean_kl = s.kl / static_cast<double>(scored);
    s.r.top1_agreement = static_cast<double>(s.agree) / static_cast<double>(scored);
    s.r.perplexity = std::exp(s.nll / static_cast<double>(scored));
    s.r.retained_tokens = s.kern->retained(0);
    s.r.tokens_per_second = s.r.seconds > 0 ? static_cast<double>(T) / s.r.seconds : 0;
    s.meas->acc().finish(s.r);
    rep.configs.push_back(std::move(s.r));
  }
  return rep;
}

ReplayReport replay_trace(const TraceFile& trace, const std::vector<ReplayConfig>& configs,
                          const ReplayOptions& opt) {
  const TraceInfo& info = trace.info();
  std::uint64_t T = info.tokens;
  if (opt.max_tokens) T = std::min(T, opt.max_tokens);
  if (T == 0) throw Error(trace.path(), "tokens", "the trace holds no tokens");
  // Position T - 1 is the last one scored: from there on nothing would be measured.
  if (opt.eval_from >= T)
    throw Error("--eval-from", "eval-from",
                std::to_string(opt.eval_from) + " leaves no position to score in " +
                    std::to_string(T) + " tokens");
  if (configs.empty()) throw Error("replay", "configs", "no configuration to replay");
  ReplayReport rep;
  rep.source = trace.path();
  rep.model = info.model;
  rep.tokens = T;
  rep.eval_from = opt.eval_from;
  rep.prefill = resolve_prefill(opt, T);
  const ModelSpec spec = spec_from_trace(info, trace.path());
  const std::uint64_t every = std::max<std::uint64_t>(1, opt.fidelity_every);
  FullCacheReference ref(info.layers, info.q_heads, info.kv_heads, info.head_dim, info.rope, T);
  std::vector<std::unique_ptr<KernelAttention>> kerns;
  std::vector<ConfigResult> results;
  std::vector<FidelityAcc> accs;
  for (const auto& cfg : configs) {
    kerns.push_back(std::make_unique<KernelAttention>(cfg, info.layers, info.q_heads, info.kv_heads,
                                                      info.head_dim, info.rope, opt.backend,
                                                      rep.prefill, trace.path()));
    ConfigResult r;
    r.config = cfg;
    r.label = label(cfg);
    r.mean_kl = r.max_kl = r.top1_agreement = r.perplexity = std::nan("");
    results.push_back(std::move(r));
    accs.emplace_back(info.layers);
  }
  // Layers are independent here (q, k, v come from the trace), so each worker replays a share of
  // them (layer l on worker l mod workers), a chunk of steps at a time; every sum a layer forms
  // (FidelityAcc's per-layer sums, its caches) sees the same operations in the same order as
  // with one worker, and the per-layer bytes of each step are summed afterwards in layer order.
  const std::uint32_t workers = replay_workers(opt, info.layers);
  constexpr std::uint64_t kChunk = 64;  // steps between joins
  struct Worker {
    std::vector<float> q, k, v, ref_out, out;
    std::vector<double> seconds;  // per configuration
    std::exception_ptr error;
    std::uint64_t error_step = 0;
    std::uint32_t error_layer = 0;
  };
  std::vector<Worker> ws(workers);
  for (auto& w : ws) {
    w.q.resize(info.q_width());
    w.k.resize(info.kv_width());
    w.v.resize(info.kv_width());
    w.ref_out.resize(info.q_width());
    w.out.resize(info.q_width());
    w.seconds.assign(kerns.size(), 0.0);
  }
  // bytes[((t - t0) · layers + l) · configs + i]: layer l's bytes for configuration i after step t.
  std::vector<std::uint64_t> bytes(kChunk * info.layers * kerns.size());
  const auto is_scored = [&](std::uint64_t t) {
    return t >= opt.eval_from && ((t - opt.eval_from) % every == 0 || t + 1 == T);
  };
  const auto step = [&](Worker& w, std::uint64_t t, std::uint64_t t0, std::uint32_t l) {
    const bool score = is_scored(t);
    trace.read(TraceTensor::q, l, t, w.q);
    trace.read(TraceTensor::k, l, t, w.k);
    trace.read(TraceTensor::v, l, t, w.v);
    if (score) {
      ref.attend(l, t, w.q, w.k, w.v, w.ref_out);
    } else {
      ref.append(l, t, w.k, w.v);
    }
    const auto probs_of = [&ref, l](std::uint32_t h) { return ref.last_probs(l, h); };
    for (std::size_t i = 0; i < kerns.size(); ++i) {
      const auto c0 = Clock::now();
      kerns[i]->attend(l, t, w.q, w.k, w.v, w.out);
      w.seconds[i] += since(c0);
      if (score) accs[i].add(l, w.out, w.ref_out, probs_of, *kerns[i], info.q_heads, info.kv_heads);
      bytes[((t - t0) * info.layers + l) * kerns.size() + i] = kerns[i]->bytes_held(l);
    }
  };
  for (std::uint64_t t0 = 0; t0 < T; t0 += kChunk) {
    const std::uint64_t t1 = std::min(T, t0 + kChunk);
    const auto run = [&](std::uint32_t wi) {
      Worker& w = ws[wi];
      try {
        for (std::uint64_t t = t0; t < t1; ++t)
          for (std::uint32_t l = wi; l < info.layers; l += workers) {
            w.error_step = t;
            w.error_layer = l;
            step(w, t, t0, l);
          }
      } catch (...) {
        w.error = std::current_exception();
      }
    };
    if (workers == 1) {
      run(0);
    } else {
      std::vector<std::jthread> threads;
      for (std::uint32_t wi = 1; wi < workers; ++wi) threads.emplace_back(run, wi);
      run(0);
    }  // joined here
    // The error one worker would have met first: the earliest step, then the lowest layer.
    const Worker* failed = nullptr;
    for (const auto& w : ws)
      if (w.error && (!failed || std::pair(w.error_step, w.error_layer) <
                                     std::pair(failed->error_step, failed->error_layer)))
        failed = &w;
    if (failed) std::rethrow_exception(failed->error);
    for (std::uint64_t t = t0; t < t1; ++t) {
      for (std::size_t i = 0; i < kerns.size(); ++i) {
        std::uint64_t held = 0;
        for (std::uint32_t l = 0; l < info.layers; ++l)
          held += bytes[((t - t0) * info.layers + l) * kerns.size() + i];
        track_bytes(results[i], t, predicted_bytes(spec, configs[i], t + 1, rep.prefill), held);
      }
      if (opt.progress) opt.progress(t + 1, T);
    }
  }
  for (const auto& w : ws)
    for (std::size_t i = 0; i < kerns.size(); ++i) results[i].seconds += w.seconds[i];
  for (std::size_t i = 0; i < kerns.size(); ++i) {
    ConfigResult& r = results[i];
    r.steps = T;
    r.retained_tokens = kerns[i]->retained(0);
    r.tokens_per_second = r.seconds > 0 ? static_cast<double>(T) / r.seconds : 0;
    accs[i].finish(r);
    rep.configs.push_back(std::move(r));
  }
  return rep;
}

// ------------------------------------------------------------------------ run_replay

std::vector<ReplayConfig> expand_configs(const ReplayRequest& r) {
  std::vector<ReplayConfig> cfgs;
  for (const auto& spec : r.configs) {
    ReplayConfig c = parse_config(spec.kv_dtype, spec.policy, spec.block_size);
    cfgs.push_back(c);
    if (r.positions_twins && !r.trace.empty() && c.policy.kind != PolicyKind::full &&
        spec.policy.find("positions=") == std::string::npos) {
      c.policy.positions = PositionMode::cache;
      cfgs.push_back(c);
    }
  }
  return cfgs;
}

std::uint64_t auto_fidelity_every(std::uint64_t tokens) {
  return std::max<std::uint64_t>(1, tokens / 256);
}

ReplayReport run_replay(const ReplayRequest& r) {
  if (r.trace.empty() == r.checkpoint.empty())
    throw Error("replay", "trace", "give exactly one of a trace or a checkpoint");
  if (r.configs.empty()) throw Error("replay", "configs", "no configuration to replay");
  const std::vector<ReplayConfig> cfgs = expand_configs(r);
  ReplayOptions opt;
  opt.eval_from = r.eval_from;
  opt.prefill = r.prefill;
  opt.max_tokens = r.max_tokens;
  opt.backend = r.backend;
  opt.threads = r.threads;
  opt.progress = r.progress;
  if (!r.trace.empty()) {
    const auto trace = TraceFile::open(r.trace);
    const std::uint64_t T =
        r.max_tokens ? std::min(r.max_tokens, trace.info().tokens) : trace.info().tokens;
    opt.fidelity_every = r.fidelity_every ? r.fidelity_every : auto_fidelity_every(T);
    return replay_trace(trace, cfgs, opt);
  }
  const auto model = Llama2cModel::load(r.checkpoint);
  return replay_model(model, r.tokens, cfgs, opt);
}

}  // namespace kvplan::sim
