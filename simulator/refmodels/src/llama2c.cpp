#include "kvplan/sim/llama2c.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "kvplan/checked.hpp"
#include "kvplan/error.hpp"
#include "kvplan/sim/hf_tokenizer.hpp"

namespace kvplan::sim {

namespace {

// A FIFO would block the read forever and a directory reads as garbage sizes: anything but a
// regular file is refused before it is opened.
void require_regular_file(const std::string& path, const std::string& what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return;  // the open below names the error
  if (S_ISREG(st.st_mode)) return;
  const char* kind = S_ISDIR(st.st_mode)    ? "a directory"
                     : S_ISFIFO(st.st_mode) ? "a FIFO"
                     : S_ISCHR(st.st_mode)  ? "a character device"
                     : S_ISBLK(st.st_mode)  ? "a block device"
                     : S_ISSOCK(st.st_mode) ? "a socket"
                                            : "not a regular file";
  throw Error(path, "", "cannot read " + what + ": " + kind + ", not a regular file");
}

std::vector<char> read_file(const std::string& path, std::uint64_t max_bytes) {
  require_regular_file(path, "file");
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) throw Error(path, "", "cannot read: " + ec.message());
  if (size > max_bytes)
    throw Error(path, "",
                "file is " + std::to_string(size) + " bytes, over the limit of " +
                    std::to_string(max_bytes));
  std::ifstream is(path, std::ios::binary);
  if (!is) throw Error(path, "", "cannot open");
  std::vector<char> buf(size);
  is.read(buf.data(), static_cast<std::streamsize>(size));
  if (static_cast<std::uint64_t>(is.gcount()) != size) throw Error(path, "", "short read");
  return buf;
}

// The weights are held in memory as float32: refuse a checkpoint whose weights need more than half
// of this machine's physical memory (the rest is the run's own buffers and everything else),
// naming the file, instead of failing in the allocator (docs/limits.md).
void check_memory_for(const std::string& path, std::uint64_t bytes) {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return;  // unknown: the allocator decides
  const std::uint64_t half =
      static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) / 2;
  if (bytes > half)
    throw Error(path, "weights",
                "need " + std::to_string(bytes) +
                    " bytes of memory as float32, more than half of "
                    "this machine's " +
                    std::to_string(2 * half) +
                    " bytes: too large for the reference model (use a smaller checkpoint, or "
                    "replay a captured trace)");
}

void rmsnorm(float* o, const float* x, const float* w, std::uint32_t n, float eps) {
  float ss = 0.0f;
  for (std::uint32_t j = 0; j < n; ++j) ss += x[j] * x[j];
  ss /= static_cast<float>(n);
  ss += eps;
  ss = 1.0f / sqrtf(ss);
  for (std::uint32_t j = 0; j < n; ++j) o[j] = w[j] * (ss * x[j]);
}

// xout[d] = W[d][n] · x[n] (rows [lo, hi) of it). Each row is summed in llama2.c's order (j = 0, 1,
// ..., n-1, one float accumulator), so the results are bit for bit run.c's; eight rows run side by
// side so the eight independent sums hide the latency of the float adds that bounds llama2.c's
// single-row loop.
constexpr std::uint32_t kRows = 8;
void matmul_rows(float* xout, const float* x, const float* w, std::uint32_t n, std::uint32_t lo,
                 std::uint32_t hi) {
  std::uint32_t i = lo;
  for (; i + kRows <= hi; i += kRows) {
    const float* row = w + static_cast<std::size_t>(i) * n;
    float acc[kRows] = {};
    for (std::uint32_t j = 0; j < n; ++j) {
      const float xj = x[j];
      for (std::uint32_t r = 0; r < kRows; ++r)
        acc[r] += row[r * static_cast<std::size_t>(n) + j] * xj;
    }
    for (std::uint32_t r = 0; r < kRows; ++r) xout[i + r] = acc[r];
  }
  for (; i < hi; ++i) {
    float val = 0.0f;
    const float* row = w + static_cast<std::size_t>(i) * n;
    for (std::uint32_t j = 0; j < n; ++j) val += row[j] * x[j];
    xout[i] = val;
  }
}

}  // namespace

// --------------------------------------------------------------------------------- the model

std::uint64_t Llama2cModel::lay_out(Offsets& o, const Llama2cConfig& c, std::uint64_t hs,
                                    std::uint64_t skip) {
  const std::uint64_t L = c.n_layers, d = c.dim, hid = c.hidden_dim, V = c.vocab_size;
  const std::uint64_t qd = mul(c.n_heads, hs), kvd = mul(c.n_kv_heads, hs);
  std::uint64_t at = 0;
  auto take = [&](std::uint64_t n) {
    const std::uint64_t off = at;
    at = add(at, n, "checkpoint size");
    return static_cast<std::size_t>(off);
  };
  o.emb = take(mul(V, d));
  o.rms_att = take(mul(L, d));
  o.wq = take(mul(mul(L, qd), d));
  o.wk = take(mul(mul(L, kvd), d));
  o.wv = take(mul(mul(L, kvd), d));
  o.wo = take(mul(mul(L, d), qd));
  o.rms_ffn = take(mul(L, d));
  o.w1 = take(mul(mul(L, hid), d));
  o.w2 = take(mul(mul(L, d), hid));
  o.w3 = take(mul(mul(L, hid), d));
  o.rms_final = take(d);
  take(skip);
  o.cls = c.shared_classifier ? o.emb : take(mul(V, d));
  return at;
}

Llama2cModel Llama2cModel::load(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return load_hf(path);
  Llama2cModel m;
  m.path_ = path;
  // The header first: the size it implies is checked against the file and the machine's memory
  // before any weight is read, and the weights are read straight into place (one copy).
  require_regular_file(path, "checkpoint");
  const std::uint64_t file_size = std::filesystem::file_size(path, ec);
  if (ec) throw Error(path, "", "cannot read: " + ec.message());
  if (file_size > (std::uint64_t{1} << 36))
    throw Error(path, "",
                "file is " + std::to_string(file_size) + " bytes, over the limit of " +
                    std::to_string(std::uint64_t{1} << 36));
  if (file_size < 28)
    throw Error(path, "header",
                "file is " + std::to_string(file_size) +
                    " bytes, shorter than the 28-byte llama2.c header");
  std::ifstream is(path, std::ios::binary);
  std::int32_t h[7];
  if (!is.read(reinterpret_cast<char*>(h), 28)) throw Error(path, "header", "cannot read");
  const char* names[7] = {"dim",        "hidden_dim", "n_layers", "n_heads",
                          "n_kv_heads", "vocab_size", "seq_len"};
  const std::int32_t max[7] = {1 << 16, 1 << 18, 1 << 10, 1 << 10, 1 << 10, 1 << 21, 1 << 22};
  for (int i = 0; i < 7; ++i) {
    const std::int64_t v = i == 5 ? std::abs(static_cast<std::int64_t>(h[i])) : h[i];
    if (v <= 0 || v > max[i])
      throw Error(path, std::string("header/") + names[i],
                  "must be in [1, " + std::to_string(max[i]) + "], got " + std::to_string(h[i]) +
                      " (not a llama2.c checkpoint?)");
  }
  Llama2cConfig& c = m.cfg_;
  c.dim = static_cast<std::uint32_t>(h[0]);
  c.hidden_dim = static_cast<std::uint32_t>(h[1]);
  c.n_layers = static_cast<std::uint32_t>(h[2]);
  c.n_heads = static_cast<std::uint32_t>(h[3]);
  c.n_kv_heads = static_cast<std::uint32_t>(h[4]);
  c.shared_classifier = h[5] > 0;
  c.vocab_size = static_cast<std::uint32_t>(std::abs(h[5]));
  c.seq_len = static_cast<std::uint32_t>(h[6]);
  if (c.dim % c.n_heads != 0)
    throw Error(
        path, "header/n_heads",
        "must divide dim (" + std::to_string(c.dim) + "), got " + std::to_string(c.n_heads));
  if (c.n_heads % c.n_kv_heads != 0)
    throw Error(path, "header/n_kv_heads",
                "must divide n_heads (" + std::to_string(c.n_heads) + "), got " +
                    std::to_string(c.n_kv_heads));
  if (c.head_size() % 2 != 0)
    throw Error(
        path, "header/n_heads",
        "head size dim/n_heads must be even for RoPE, got " + std::to_string(c.head_size()));
  const std::uint64_t L = c.n_layers, d = c.dim, hs = c.head_size(), hid = c.hidden_dim;
  // After the final norm: the legacy RoPE table (real and imaginary halves), skipped.
  const std::uint64_t at = lay_out(m.off_, c, hs, mul(c.seq_len, hs));
  const std::uint64_t expect = add(28, mul(at, 4));
  if (file_size != expect)
    throw Error(path, "file size",
                std::to_string(file_size) + " bytes, but the header (dim " + std::to_string(d) +
                    ", hidden " + std::to_string(hid) + ", layers " + std::to_string(L) +
                    ", heads " + std::to_string(c.n_heads) + "/" + std::to_string(c.n_kv_heads) +
                    ", vocab " + std::to_string(h[5]) + ", seq_len " + std::to_string(c.seq_len) +
                    ") needs exactly " + std::to_string(expect) +
                    " (truncated or not legacy format)");
  check_memory_for(path, mul(at, 4));
  m.w_.resize(at);
  if (!is.read(reinterpret_cast<char*>(m.w_.data()), static_cast<std::streamsize>(at * 4)))
    throw Error(path, "weights", "short read");
  for (float x : m.w_)
    if (!std::isfinite(x)) throw Error(path, "weights", "contain a NaN or infinity");
  return m;
}

ModelSpec Llama2cModel::spec() const {
  ModelSpec s;
  const std::filesystem::path p(path_);
  s.id = is_hf() ? (p.has_filename() ? p.filename() : p.parent_path().filename()).string()
                 : p.stem().string();
  s.name = s.id + (is_hf() ? " (" + architecture_ + ")" : " (llama2.c)");
  s.source = path_;
  s.layers.assign(cfg_.n_layers, LayerSpec{});
  s.num_q_heads = cfg_.n_heads;
  s.num_kv_heads = cfg_.n_kv_heads;
  s.head_dim_k = s.head_dim_v = cfg_.head_size();
  s.hidden_size = cfg_.dim;
  s.max_context = cfg_.seq_len;
  s.weight_dtype = "fp32";
  s.num_params = w_.size();
  return s;
}

RopeSpec Llama2cModel::rope() const {
  if (is_hf()) {
    RopeSpec r = rope_;
    r.scaling = rope_scaling_;
    return r;
  }
  return {10000.0, cfg_.head_size(), RopeStyle::interleaved};
}

std::span<const float> Llama2cModel::optional_span(std::size_t base, std::uint32_t l,
                                                   std::size_t n) const {
  if (base == kAbsent) return {};
  return {w_.data() + base + l * n, n};
}
std::span<const float> Llama2cModel::bq(std::uint32_t l) const {
  return optional_span(off_.bq, l, cfg_.q_dim());
}
std::span<const float> Llama2cModel::bk(std::uint32_t l) const {
  return optional_span(off_.bk, l, cfg_.kv_dim());
}
std::span<const float> Llama2cModel::bv(std::uint32_t l) const {
  return optional_span(off_.bv, l, cfg_.kv_dim());
}
std::span<const float> Llama2cModel::bo(std::uint32_t l) const {
  return optional_span(off_.bo, l, cfg_.dim);
}
std::span<const float> Llama2cModel::q_norm(std::uint32_t l) const {
  return optional_span(off_.q_norm, l, cfg_.head_size());
}
std::span<const float> Llama2cModel::k_norm(std::uint32_t l) const {
  return optional_span(off_.k_norm, l, cfg_.head_size());
}

std::span<const float> Llama2cModel::embedding() const {
  return {w_.data() + off_.emb, std::size_t{cfg_.vocab_size} * cfg_.dim};
}
#define KVPLAN_LAYER_SPAN(fn, base, rows, cols)                    \
  std::span<const float> Llama2cModel::fn(std::uint32_t l) const { \
    const std::size_t n = std::size_t{rows} * (cols);              \
    return {w_.data() + off_.base + l * n, n};                     \
  }
KVPLAN_LAYER_SPAN(rms_att, rms_att, 1, cfg_.dim)
KVPLAN_LAYER_SPAN(wq, wq, cfg_.q_dim(), cfg_.dim)
KVPLAN_LAYER_SPAN(wk, wk, cfg_.kv_dim(), cfg_.dim)
KVPLAN_LAYER_SPAN(wv, wv, cfg_.kv_dim(), cfg_.dim)
KVPLAN_LAYER_SPAN(wo, wo, cfg_.dim, cfg_.q_dim())
KVPLAN_LAYER_SPAN(rms_ffn, rms_ffn, 1, cfg_.dim)
KVPLAN_LAYER_SPAN(w1, w1, cfg_.hidden_dim, cfg_.dim)
KVPLAN_LAYER_SPAN(w2, w2, cfg_.dim, cfg_.hidden_dim)
KVPLAN_LAYER_SPAN(w3, w3, cfg_.hidden_dim, cfg_.dim)
#undef KVPLAN_LAYER_SPAN
std::span<const float> Llama2cModel::rms_final() const {
  return {w_.data() + off_.rms_final, cfg_.dim};
}
std::span<const float> Llama2cModel::classifier() const {
  return {w_.data() + off_.cls, std::size_t{cfg_.vocab_size} * cfg_.dim};
}

// ------------------------------------------------------------------- llama2.c's own attention

// ------------------------------------------------------------ full-cache attention (shared)

namespace full_attention {

void reserve(LayerCache& c, std::uint32_t kv_heads, std::uint32_t head_dim, std::uint64_t cap) {
  if (cap <= c.cap) return;
  const std::uint64_t rows = mul(kv_heads, head_dim, "reference keys");
  std::vector<float> kt(mul(rows, cap, "reference keys"), 0.0f);
  for (std::uint64_t r = 0; r < rows; ++r)
    std::copy_n(c.kt.data() + r * c.cap, c.len, kt.data() + r * cap);
  c.kt = std::move(kt);
  c.cap = cap;
  c.v.reserve(mul(rows, cap, "reference values"));
}

void append(LayerCache& c, const RopeSpec& rope, std::span<const float> k, std::span<const float> v,
            std::uint32_t kv_heads, std::uint32_t head_dim) {
  if (c.len == c.cap)
    reserve(c, kv_heads, head_dim, std::max<std::uint64_t>(64, mul(c.cap, 2, "reference keys")));
  const std::uint64_t pos = c.len;
  c.row.assign(k.begin(), k.end());
  for (std::uint32_t h = 0; h < kv_heads; ++h) {
    apply_rope(rope, std::span<float>(c.row.data() + std::size_t{h} * head_dim, head_dim), pos);
    float* kt = c.kt.data() + std::size_t{h} * head_dim * c.cap;
    for (std::uint32_t i = 0; i < head_dim; ++i)
      kt[i * c.cap + pos] = c.row[std::size_t{h} * head_dim + i];
  }
  c.v.insert(c.v.end(), v.begin(), v.end());
  ++c.len;
}

void attend(const LayerCache& c, const float* qr, std::uint32_t q_heads, std::uint32_t kv_heads,
            std::uint32_t head_dim, float* att_all, float* out) {
  const std::uint64_t n = c.len, cap = c.cap;
  const std::uint32_t d = head_dim;
  const std::size_t kvw = std::size_t{kv_heads} * d;
  std::fill(att_all, att_all + std::size_t{q_heads} * n, 0.0f);
  const std::uint32_t group = q_heads / kv_heads;
  const float scale = sqrtf(static_cast<float>(d));
  for (std::uint32_t h = 0; h < q_heads; ++h) {
    const float* qh = qr + std::size_t{h} * d;
    const float* kt = c.kt.data() + std::size_t{h / group} * d * cap;
    float* att = att_all + std::size_t{h} * n;
    // score_t = ((0 + q_0 k_0t) + q_1 k_1t) + ...: channel by channel, every position at once,
    // four channels per pass over the scores (the same additions in the same order).
    std::uint32_t i = 0;
    for (; i + 4 <= d; i += 4) {
      const float q0 = qh[i], q1 = qh[i + 1], q2 = qh[i + 2], q3 = qh[i + 3];
      const float* r0 = kt + i * cap;
      const float* r1 = r0 + cap;
      const float* r2 = r1 + cap;
      const float* r3 = r2 + cap;
      for (std::uint64_t t = 0; t < n; ++t)
        att[t] = (((att[t] + q0 * r0[t]) + q1 * r1[t]) + q2 * r2[t]) + q3 * r3[t];
    }
    for (; i < d; ++i) {
      const float qi = qh[i];
      const float* row = kt + i * cap;
      for (std::uint64_t t = 0; t < n; ++t) att[t] += qi * row[t];
    }
    for (std::uint64_t t = 0; t < n; ++t) att[t] = att[t] / scale;
    // The largest score through eight running maxima (one chain of compares was the
    // reference's slowest loop). max rounds nothing: the value of the single running max, up to
    // which of +0 / -0 comes back, which exp(att - mx) cannot tell apart; a NaN score makes the
    // sum NaN either way.
    float m8[8];
    std::fill(m8, m8 + 8, att[0]);
    std::uint64_t tm = 0;
    for (; tm + 8 <= n; tm += 8)
      for (int k = 0; k < 8; ++k) m8[k] = std::max(m8[k], att[tm + k]);
    for (; tm < n; ++tm) m8[0] = std::max(m8[0], att[tm]);
    float mx = m8[0];
    for (int k = 1; k < 8; ++k) mx = std::max(mx, m8[k]);
    float sum = 0.0f;
    for (std::uint64_t t = 0; t < n; ++t) {
      att[t] = expf(att[t] - mx);
      sum += att[t];
    }
    for (std::uint64_t t = 0; t < n; ++t) att[t] /= sum;
    float* o = out + std::size_t{h} * d;
    std::fill(o, o + d, 0.0f);
    const std::size_t voff = std::size_t{h / group} * d;
    // o_i = ((0 + a_0 v_0i) + a_1 v_1i) + ...: four positions per pass over o, same order.
    std::uint64_t t = 0;
    for (; t + 4 <= n; t += 4) {
      const float* v0 = c.v.data() + t * kvw + voff;
      const float *v1 = v0 + kvw, *v2 = v1 + kvw, *v3 = v2 + kvw;
      const float a0 = att[t], a1 = att[t + 1], a2 = att[t + 2], a3 = att[t + 3];
      for (std::uint32_t k = 0; k < d; ++k)
        o[k] = (((o[k] + a0 * v0[k]) + a1 * v1[k]) + a2 * v2[k]) + a3 * v3[k];
    }
    for (; t < n; ++t) {
      const float* vt = c.v.data() + t * kvw + voff;
      const float a = att[t];
      for (std::uint32_t k = 0; k < d; ++k) o[k] += a * vt[k];
    }
  }
}

}  // namespace full_attention

// ------------------------------------------------------------------- ReferenceAttention

ReferenceAttention::ReferenceAttention(std::uint32_t layers, std::uint32_t q_heads,
                                       std::uint32_t kv_heads, std::uint32_t head_dim,
                                       RopeSpec rope)
    : layers_(layers), hq_(q_heads), hkv_(kv_heads), d_(head_dim), rope_(rope), cache_(layers) {
  qr_.resize(std::size_t{q_heads} * head_dim);
}

void ReferenceAttention::reset() {
  for (auto& c : cache_) c = full_attention::LayerCache{};
  last_len_ = 0;
}

void ReferenceAttention::append(std::uint32_t layer, std::uint64_t pos, std::span<const float> k,
                                std::span<const float> v) {
  auto& c = cache_.at(layer);
  if (c.len != pos)
    throw Error(ErrorKind::internal, "reference attention", "pos",
                "positions must be appended in order, got " + std::to_string(pos));
  full_attention::append(c, rope_, k, v, hkv_, d_);
}

void ReferenceAttention::attend(std::uint32_t layer, std::uint64_t pos, std::span<const float> q,
                                std::span<const float> k, std::span<const float> v,
                                std::span<float> out) {
  append(layer, pos, k, v);
  std::copy(q.begin(), q.end(), qr_.begin());
  for (std::uint32_t h = 0; h < hq_; ++h)
    apply_rope(rope_, std::span<float>(qr_.data() + std::size_t{h} * d_, d_), pos);
  const std::uint64_t n = pos + 1;
  att_.resize(std::size_t{hq_} * n);
  last_len_ = n;
  full_attention::attend(cache_[layer], qr_.data(), hq_, hkv_, d_, att_.data(), out.data());
}

std::span<const float> ReferenceAttention::last_probs(std::uint32_t h) const {
  return {att_.data() + h * last_len_, static_cast<std::size_t>(last_len_)};
}

// ----------------------------------------------------------------------------- forward pass

// Worker threads that each run a share of one matmul's rows: rows [d·t/n, d·(t+1)/n) rounded to
// multiples of kRows for thread t of n, thread 0 being the caller.
struct Llama2cRunner::Pool {
  explicit Pool(unsigned n) : size(n) {
    for (unsigned t = 1; t < n; ++t) workers.emplace_back([this, t] { loop(t); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lk(mu);
      stop = true;
      ++generation;
    }
    wake.notify_all();
    for (auto& w : workers) w.join();
  }
  void share(unsigned t) const {
    const auto cut = [&](unsigned k) {
      return static_cast<std::uint32_t>(std::uint64_t{job.d} * k / size / kRows * kRows);
    };
    matmul_rows(job.xout, job.x, job.w, job.n, cut(t), t + 1 == size ? job.d : cut(t + 1));
  }
  void matmul(float* xout, const float* x, const float* w, std::uint32_t n, std::uint32_t d) {
    {
      std::lock_guard<std::mutex> lk(mu);
      job = {xout, x, w, n, d};
      pending = size - 1;
      ++generation;
    }
    wake.notify_all();
    share(0);
    std::unique_lock<std::mutex> lk(mu);
    done.wait(lk, [&] { return pending == 0; });
  }
  void loop(unsigned t) {
    std::uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lk(mu);
        wake.wait(lk, [&] { return generation != seen; });
        seen = generation;
        if (stop) return;
      }
      share(t);
      std::lock_guard<std::mutex> lk(mu);
      if (--pending == 0) done.notify_one();
    }
  }
  struct Job {
    float* xout;
    const float* x;
    const float* w;
    std::uint32_t n, d;
  };
  const unsigned size;
  std::vector<std::thread> workers;
  std::mutex mu;
  std::condition_variable wake, done;
  Job job{};
  std::uint64_t generation = 0;
  unsigned pending = 0;
  bool stop = false;
};

Llama2cRunner::Llama2cRunner(const Llama2cModel& m, unsigned threads) : m_(m) {
  const auto& c = m.config();
  x_.resize(c.dim);
  xb_.resize(c.dim);
  xb2_.resize(c.dim);
  hb_.resize(c.hidden_dim);
  hb2_.resize(c.hidden_dim);
  q_.resize(c.q_dim());
  att_out_.resize(q_.size());
  k_.resize(c.kv_dim());
  v_.resize(c.kv_dim());
  logits_.resize(c.vocab_size);
  if (threads == 0) {
    const std::uint64_t biggest =
        std::max({std::uint64_t{c.dim} * c.hidden_dim, std::uint64_t{c.dim} * c.q_dim(),
                  std::uint64_t{c.dim} * c.vocab_size});
    threads = biggest >= (std::uint64_t{1} << 20)
                  ? std::clamp(std::thread::hardware_concurrency(), 1u, 16u)
                  : 1u;
  }
  if (threads > 1) pool_ = std::make_unique<Pool>(std::min(threads, 256u));
}

Llama2cRunner::~Llama2cRunner() = default;

unsigned Llama2cRunner::threads() const { return pool_ ? pool_->size : 1u; }

void Llama2cRunner::matmul(float* xout, const float* x, const float* w, std::uint32_t n,
                           std::uint32_t d) {
  if (pool_)
    pool_->matmul(xout, x, w, n, d);
  else
    matmul_rows(xout, x, w, n, 0, d);
}

std::span<const float> Llama2cRunner::forward(std::int32_t token, std::uint64_t pos,
                                              AttentionBackend& attn) {
  const auto& c = m_.config();
  if (token < 0 || static_cast<std::uint32_t>(token) >= c.vocab_size)
    throw Error(m_.path(), "token",
                "id " + std::to_string(token) + " outside the vocabulary of " +
                    std::to_string(c.vocab_size));
  if (pos >= c.seq_len)
    throw Error(m_.path(), "seq_len",
                "position " + std::to_string(pos) + " beyond the model's context of " +
                    std::to_string(c.seq_len) + " tokens");
  const std::uint32_t dim = c.dim, hid = c.hidden_dim, qd = c.q_dim(), hs = c.head_size();
  const float eps = c.norm_eps;
  const auto add_bias = [](std::vector<float>& x, std::span<const float> b) {
    for (std::size_t i = 0; i < b.size(); ++i) x[i] += b[i];
  };
  // Qwen3: RMSNorm over each head's channels of q and k, before RoPE (the backend's).
  const auto norm_heads = [&](std::vector<float>& x, std::span<const float> w) {
    if (w.empty()) return;
    for (std::size_t h = 0; h * hs < x.size(); ++h)
      rmsnorm(x.data() + h * hs, x.data() + h * hs, w.data(), hs, eps);
  };
  std::copy_n(m_.embedding().data() + static_cast<std::size_t>(token) * dim, dim, x_.data());
  for (std::uint32_t l = 0; l < c.n_layers; ++l) {
    rmsnorm(xb_.data(), x_.data(), m_.rms_att(l).data(), dim, eps);
    matmul(q_.data(), xb_.data(), m_.wq(l).data(), dim, qd);
    matmul(k_.data(), xb_.data(), m_.wk(l).data(), dim, c.kv_dim());
    matmul(v_.data(), xb_.data(), m_.wv(l).data(), dim, c.kv_dim());
    add_bias(q_, m_.bq(l));
    add_bias(k_, m_.bk(l));
    add_bias(v_, m_.bv(l));
    norm_heads(q_, m_.q_norm(l));
    norm_heads(k_, m_.k_norm(l));
    attn.attend(l, pos, q_, k_, v_, att_out_);
    matmul(xb2_.data(), att_out_.data(), m_.wo(l).data(), qd, dim);
    add_bias(xb2_, m_.bo(l));
    for (std::uint32_t i = 0; i < dim; ++i) x_[i] += xb2_[i];
    rmsnorm(xb_.data(), x_.data(), m_.rms_ffn(l).data(), dim, eps);
    matmul(hb_.data(), xb_.data(), m_.w1(l).data(), dim, hid);
    matmul(hb2_.data(), xb_.data(), m_.w3(l).data(), dim, hid);
    for (std::uint32_t i = 0; i < hid; ++i) {
      float val = hb_[i];
      val *= (1.0f / (1.0f + expf(-val)));
      val *= hb2_[i];
      hb_[i] = val;
    }
    matmul(xb_.data(), hb_.data(), m_.w2(l).data(), hid, dim);
    for (std::uint32_t i = 0; i < dim; ++i) x_[i] += xb_[i];
  }
  rmsnorm(x_.data(), x_.data(), m_.rms_final().data(), dim, eps);
  matmul(logits_.data(), x_.data(), m_.classifier().data(), dim, c.vocab_size);
  return logits_;
}

// -------------------------------------------------------------------------------- tokenizer

Tokenizer Tokenizer::load(const std::string& path, std::uint32_t vocab_size) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec) ||
      std::filesystem::path(path).extension() == ".json") {
    Tokenizer t;
    t.hf_ = std::make_shared<const HfTokenizer>(HfTokenizer::load(path));
    if (t.hf_->size() > vocab_size)
      throw Error(path, "vocab_size",
                  "the tokenizer has " + std::to_string(t.hf_->size()) +
                      " token ids, more than the model's vocabulary of " +
                      std::to_string(vocab_size) + " (a tokenizer for another model?)");
    return t;
  }
  const auto buf = read_file(path, std::uint64_t{1} << 30);
  Tokenizer t;
  std::size_t at = 0;
  auto need = [&](std::size_t n, const std::string& field) {
    if (buf.size() - at < n)
      throw Error(path, field,
                  "file ends at byte " + std::to_string(buf.size()) + " (truncated tokenizer, or " +
                      "its vocabulary is smaller than the model's " + std::to_string(vocab_size) +
                      ")");
  };
  need(4, "max_token_length");
  std::int32_t max_len = 0;
  std::memcpy(&max_len, buf.data(), 4);
  at = 4;
  if (max_len <= 0 || max_len > (1 << 16))
    throw Error(path, "max_token_length", "must be in [1, 65536], got " + std::to_string(max_len));
  t.vocab_.reserve(vocab_size);
  t.scores_.reserve(vocab_size);
  for (std::uint32_t i = 0; i < vocab_size; ++i) {
    const std::string field = "token " + std::to_string(i);
    need(8, field);
    float score;
    std::int32_t len;
    std::memcpy(&score, buf.data() + at, 4);
    std::memcpy(&len, buf.data() + at + 4, 4);
    at += 8;
    if (len < 0 || len > max_len)
      throw Error(path, field + " /length",
                  "must be in [0, max_token_length " + std::to_string(max_len) + "], got " +
                      std::to_string(len));
    need(static_cast<std::size_t>(len), field + " /bytes");
    t.vocab_.emplace_back(buf.data() + at, static_cast<std::size_t>(len));
    t.scores_.push_back(score);
    at += static_cast<std::size_t>(len);
  }
  if (at != buf.size())
    throw Error(path, "file size",
                std::to_string(buf.size() - at) + " trailing bytes after " +
                    std::to_string(vocab_size) + " tokens (tokenizer for another vocabulary?)");
  // encode() uses BOS 1, EOS 2 and falls back to the byte tokens 3..258 (<0x00>..<0xFF>) as
  // llama2.c's tokenizers lay them out; a smaller vocabulary would be indexed past its end.
  if (vocab_size < 259)
    throw Error(path, "vocab_size",
                "a llama2.c tokenizer needs at least 259 tokens (3 special + 256 byte tokens), the "
                "model has " +
                    std::to_string(vocab_size));
  for (std::uint32_t i = 0; i < vocab_size; ++i) t.sorted_.emplace_back(t.vocab_[i], i);
  std::stable_sort(t.sorted_.begin(), t.sorted_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  return t;
}

std::int32_t Tokenizer::lookup(const std::string& s) const {
  auto it = std::lower_bound(sorted_.begin(), sorted_.end(), s,
                             [](const auto& e, const std::string& k) { return e.first < k; });
  return it != sorted_.end() && it->first == s ? it->second : -1;
}

std::uint32_t Tokenizer::size() const {
  return hf_ ? hf_->size() : static_cast<std::uint32_t>(vocab_.size());
}
const std::string& Tokenizer::piece(std::int32_t id) const {
  return hf_ ? hf_->piece(id) : vocab_.at(static_cast<std::size_t>(id));
}
std::int32_t Tokenizer::bos_id() const { return hf_ ? hf_->bos_id() : 1; }
std::int32_t Tokenizer::eos_id() const { return hf_ ? hf_->eos_id() : 2; }
bool Tokenizer::stops(std::int32_t id) const { return hf_ ? id == hf_->eos_id() : id == 1; }

std::string tokenizer_for(const Llama2cModel& model, const std::string& flag) {
  if (!flag.empty()) return flag;
  if (model.is_hf()) return model.path();
  throw Error("--tokenizer", "tokenizer",
              "required for a llama2.c checkpoint (" + model.path() +
                  "); a Hugging Face model directory brings its own tokenizer.json");
}

std::string Tokenizer::decode(std::int32_t prev, std::int32_t token) const {
  if (hf_) return hf_->decode(prev, token);
  const std::string& p = piece(token);
  std::string_view piece_view = p;
  if (prev == 1 && !piece_view.empty() && piece_view[0] == ' ') piece_view.remove_prefix(1);
  unsigned int byte = 0;
  char tail = 0;
  if (piece_view.size() == 6 && piece_view.substr(0, 3) == "<0x" && piece_view[5] == '>' &&
      std::sscanf(std::string(piece_view).c_str(), "<0x%02X%c", &byte, &tail) == 2 && tail == '>')
    return std::string(1, static_cast<char>(byte));
  return std::string(piece_view);
}

namespace {

// llama2.c's merge loop, in O(N log N) instead of O(N^2): repeatedly merge the adjacent pair whose
// merged piece has the highest score (above -1e10, llama2.c's starting best), the leftmost pair on
// a tie, until no pair merges. The sequence is a linked list over the initial positions (their
// order is the sequence's order, so "leftmost" is "smallest left position"), and candidates sit in
// a heap; a popped candidate is used only if both its tokens are still adjacent and unchanged, so
// the merges and their order are exactly llama2.c's.
template <typename Lookup>
void merge_pairs_fast(std::vector<std::int32_t>& tokens, const std::vector<float>& scores,
                      const Lookup& merged_id) {
  const std::size_t n = tokens.size();
  if (n < 2) return;
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::vector<std::size_t> next(n), prev(n);
  std::vector<bool> alive(n, true);
  for (std::size_t i = 0; i < n; ++i) {
    next[i] = i + 1 < n ? i + 1 : kNone;
    prev[i] = i ? i - 1 : kNone;
  }
  struct Cand {
    float score;
    std::size_t left, right;
    std::int32_t left_id, right_id, merged;
  };
  const auto worse = [](const Cand& a, const Cand& b) {
    return a.score != b.score ? a.score < b.score : a.left > b.left;
  };
  std::vector<Cand> heap;
  const auto push = [&](std::size_t l) {
    if (l == kNone || next[l] == kNone) return;
    const std::size_t r = next[l];
    const std::int32_t id = merged_id(tokens[l], tokens[r]);
    if (id < 0 || !(scores[static_cast<std::size_t>(id)] > -1e10f)) return;
    heap.push_back({scores[static_cast<std::size_t>(id)], l, r, tokens[l], tokens[r], id});
    std::push_heap(heap.begin(), heap.end(), worse);
  };
  for (std::size_t i = 0; i + 1 < n; ++i) push(i);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), worse);
    const Cand c = heap.back();
    heap.pop_back();
    if (!alive[c.left] || !alive[c.right] || next[c.left] != c.right ||
        tokens[c.left] != c.left_id || tokens[c.right] != c.right_id)
      continue;  // stale: one side merged since
    tokens[c.left] = c.merged;
    alive[c.right] = false;
    next[c.left] = next[c.right];
    if (next[c.right] != kNone) prev[next[c.right]] = c.left;
    push(prev[c.left]);
    push(c.left);
  }
  std::size_t out = 0;
  for (std::size_t i = 0; i != kNone; i = next[i]) tokens[out++] = tokens[i];
  tokens.resize(out);
}

}  // namespace

std::vector<std::int32_t> Tokenizer::encode(const std::string& text, bool bos, bool eos) const {
  if (hf_) return hf_->encode(text, bos, eos);
  const auto merge_pairs = [this](std::vector<std::int32_t>& t) {
    std::string both;
    merge_pairs_fast(t, scores_, [&](std::int32_t a, std::int32_t b) {
      both.assign(vocab_[static_cast<std::size_t>(a)]).append(vocab_[static_cast<std::size_t>(b)]);
      return lookup(both);
    });
  };
  std::vector<std::int32_t> tokens;
  if (bos) tokens.push_back(1);
  if (!text.empty()) {
    const std::int32_t sp = lookup(" ");
    if (sp >= 0) tokens.push_back(sp);
  }
  std::string buf;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) != 0x80) buf.clear();
    buf.push_back(static_cast<char>(c));
    if (i + 1 < text.size() && (static_cast<unsigned char>(text[i + 1]) & 0xC0) == 0x80 &&
        buf.size() < 4)
      continue;
    const std::int32_t id = lookup(buf);
    if (id >= 0) {
      tokens.push_back(id);
    } else {
      for (unsigned char b : buf) tokens.push_back(static_cast<std::int32_t>(b) + 3);
    }
    buf.clear();
  }
  merge_pairs(tokens);
  if (eos) tokens.push_back(2);
  return tokens;
}

namespace {
std::string printable(const std::string& piece) {
  if (piece.empty()) return piece;
  if (piece.size() == 1) {
    const unsigned char b = static_cast<unsigned char>(piece[0]);
    if (!(std::isprint(b) || std::isspace(b))) return {};
  }
  return piece;
}
}  // namespace

std::string Tokenizer::printable_piece(std::int32_t prev, std::int32_t token) const {
  return hf_ ? hf_->decode(prev, token) : printable(decode(prev, token));
}

std::string Tokenizer::detokenize(std::span<const std::int32_t> tokens) const {
  if (hf_) return hf_->detokenize(tokens);
  std::string out;
  for (std::size_t i = 1; i < tokens.size(); ++i)
    out += printable(decode(tokens[i - 1], tokens[i]));
  return out;
}

// ------------------------------------------------------------------------- sampling, generate

std::int32_t Sampler::sample(std::span<const float> logits) {
  if (temperature_ <= 0.0f) {
    std::size_t best = 0;
    for (std::size_t i = 1; i < logits.size(); ++i)
      if (logits[i] > logits[best]) best = i;
    return static_cast<std::int32_t>(best);
  }
  probs_.resize(logits.size());
  float mx = logits[0] / temperature_;
  for (std::size_t i = 0; i < logits.size(); ++i) mx = std::max(mx, logits[i] / temperature_);
  float sum = 0.0f;
  for (std::size_t i = 0; i < logits.size(); ++i) {
    probs_[i] = expf(logits[i] / temperature_ - mx);
    sum += probs_[i];
  }
  // llama2.c's random_f32: xorshift* on a 64-bit state.
  state_ ^= state_ >> 12;
  state_ ^= state_ << 25;
  state_ ^= state_ >> 27;
  const auto r = static_cast<std::uint32_t>((state_ * 0x2545F4914F6CDD1Dull) >> 32);
  const float coin = static_cast<float>(r >> 8) / 16777216.0f;
  float cdf = 0.0f;
  for (std::size_t i = 0; i < probs_.size(); ++i) {
    cdf += probs_[i] / sum;
    if (coin < cdf) return static_cast<std::int32_t>(i);
  }
  return static_cast<std::int32_t>(probs_.size() - 1);
}

Generation generate(Llama2cRunner& run, AttentionBackend& attn, const Tokenizer& tok,
                    const GenerateOptions& opt,
                    const std::function<void(const std::string&)>& on_piece) {
  // 0 (greedy) or in [1e-6, 1e6]; a NaN or negative one is refused, not sampled from, and so is
  // one below 1e-6, where logits / temperature overflow float and the softmax is NaN.
  if (!(opt.temperature == 0.f ||
        (opt.temperature >= 1e-6f && opt.temperature <= 1e6f))) {  // NaN fails every test
    std::ostringstream got;
    got << opt.temperature;
    throw Error("--temperature", "temperature",
                "must be 0 (greedy) or a number in [1e-06, 1e+06], got " + got.str());
  }
  Generation g;
  const std::vector<std::int32_t> prompt = tok.encode(opt.prompt, true, false);
  Sampler sampler(opt.temperature, opt.seed);
  const std::uint64_t steps = std::min<std::uint64_t>(opt.steps, run.model().config().seq_len);
  if (prompt.empty())
    throw Error("--prompt", "prompt",
                "the tokenizer names no BOS token, so generation needs a prompt to start from");
  std::int32_t token = prompt[0];
  g.tokens.push_back(token);
  for (std::uint64_t pos = 0; pos < steps; ++pos) {
    const auto logits = run.forward(token, pos, attn);
    const std::int32_t next = pos + 1 < prompt.size() ? prompt[pos + 1] : sampler.sample(logits);
    if (tok.stops(next)) break;
    const std::string piece = tok.printable_piece(token, next);
    g.text += piece;
    if (on_piece) on_piece(piece);
    g.tokens.push_back(next);
    token = next;
  }
  return g;
}

std::vector<std::int32_t> read_token_file(const std::string& path, std::uint32_t vocab_size) {
  require_regular_file(path, "token file");
  std::ifstream is(path);
  if (!is) throw Error(path, "", "cannot open token file");
  std::vector<std::int32_t> out;
  std::string line;
  std::uint64_t lineno = 0;
  while (std::getline(is, line)) {
    ++lineno;
    std::istringstream ls(line);
    std::string word;
    while (ls >> word) {
      std::int64_t v = -1;
      try {
        std::size_t used = 0;
        v = std::stoll(word, &used);
        if (used != word.size()) v = -1;
      } catch (const std::exception&) {
        v = -1;
      }
      if (v < 0 || v >= vocab_size)
        throw Error(path, "line " + std::to_string(lineno),
                    "token '" + word + "' is not an id in [0, " + std::to_string(vocab_size) + ")");
      out.push_back(static_cast<std::int32_t>(v));
    }
  }
  if (out.empty()) throw Error(path, "", "no token ids (expected whitespace-separated integers)");
  return out;
}

}  // namespace kvplan::sim
