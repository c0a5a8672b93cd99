// The reference model: llama2.c checkpoints ("legacy" export, float32) and Hugging Face model
// directories of Llama-shaped decoders (Llama, Mistral, Qwen2, Qwen3; see hf_model.cpp), with
// their tokenizers, and one float32 forward pass whose attention is delegated to an
// AttentionBackend, so the same model runs over llama2.c's own plain cache (ReferenceAttention) or
// over kvplan's block pool and kernels with a compressed cache (see replay.hpp).
//
//   auto m = Llama2cModel::load("stories260K.bin");       // dim 64, 5 layers, 8 heads, 4 KV heads
//   auto tok = Tokenizer::load("tok512.bin", m.config().vocab_size);
//   ReferenceAttention cache(m.config());
//   Llama2cRunner run(m);
//   std::string text = generate(run, cache, tok, {.steps = 256});   // "Once upon a time, ..."
//
//   auto hf = Llama2cModel::load("tinystories-656k");      // a directory: config.json, safetensors
//   hf.config().head_size() == 16; hf.rope().style == RopeStyle::half; hf.config().norm_eps == 1e-6
//
// Files are validated against their length before anything is read; a bad file throws
// kvplan::Error naming the file and the field (for a Hugging Face directory: the tensor).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kvplan/model.hpp"
#include "kvplan/sim/trace.hpp"

namespace kvplan::sim {

struct Llama2cConfig {
  std::uint32_t dim = 0, hidden_dim = 0, n_layers = 0, n_heads = 0, n_kv_heads = 0;
  std::uint32_t vocab_size = 0, seq_len = 0;
  bool shared_classifier = true;  // vocab_size positive in the header; tie_word_embeddings (HF)
  std::uint32_t head_dim = 0;     // 0: dim / n_heads (llama2.c); HF config "head_dim" (Qwen3)
  float norm_eps = 1e-5f;         // RMSNorm epsilon: llama2.c's 1e-5, or HF "rms_norm_eps"
  bool qkv_bias = false;          // q/k/v projections carry a bias (Qwen2, attention_bias)
  bool o_bias = false;            // o projection carries a bias (Llama attention_bias: true)
  bool qk_norm = false;           // RMSNorm per head on q and k before RoPE (Qwen3)
  std::uint32_t head_size() const { return head_dim ? head_dim : dim / n_heads; }
  std::uint32_t q_dim() const { return n_heads * head_size(); }
  std::uint32_t kv_dim() const { return n_kv_heads * head_size(); }
};

// RopeScaling (Hugging Face "rope_scaling", type llama3) is declared in trace.hpp, beside RopeSpec.

// The inverse frequencies of RoPE pair i (i < dims/2), theta^(-2i/dims), adjusted for `scaling`
// as transformers' _compute_llama3_parameters does (modeling_rope_utils.py, commit 0044e3b3):
// wavelength 2π/f above original/low_freq_factor: f / factor; below original/high_freq_factor:
// f; between: (1 - s)·f/factor + s·f with s = (original/wavelength - low)/(high - low).
//   rope_inv_freq(500000, 128, {"llama3", 8, 1, 4, 8192})[63] == 500000^(-126/128) / 8
std::vector<double> rope_inv_freq(double theta, std::uint32_t dims, const RopeScaling& scaling);

class Llama2cModel {
 public:
  // A llama2.c .bin file, or a Hugging Face model directory (config.json with model.safetensors,
  // or shards named by model.safetensors.index.json; F32, BF16 and F16 tensors become float32).
  static Llama2cModel load(const std::string& path);
  const Llama2cConfig& config() const { return cfg_; }
  const std::string& path() const { return path_; }
  bool is_hf() const { return !architecture_.empty(); }
  const std::string& architecture() const { return architecture_; }  // "" for llama2.c
  // The architecture as a core ModelSpec (id = file stem or directory name), for kv_cost.
  ModelSpec spec() const;
  // llama2.c: theta 10000, all head_size channels, interleaved pairs. Hugging Face: rope_theta,
  // rotate-half pairs (i, i + d/2) (HF conversions of Meta and llama2.c checkpoints permute wq/wk
  // so that this matches the original interleaved RoPE), with the config's rope_scaling (llama3
  // or none) in RopeSpec::scaling.
  RopeSpec rope() const;
  const RopeScaling& rope_scaling() const { return rope_scaling_; }

  // Weights, row-major float32 (shapes as the README of stories260K lists them).
  std::span<const float> embedding() const;               // [vocab][dim]
  std::span<const float> rms_att(std::uint32_t l) const;  // [dim]
  std::span<const float> wq(std::uint32_t l) const;       // [H·hs][dim]
  std::span<const float> wk(std::uint32_t l) const;       // [Hkv·hs][dim]
  std::span<const float> wv(std::uint32_t l) const;       // [Hkv·hs][dim]
  std::span<const float> wo(std::uint32_t l) const;       // [dim][H·hs]
  std::span<const float> rms_ffn(std::uint32_t l) const;
  std::span<const float> w1(std::uint32_t l) const;  // [hidden][dim]
  std::span<const float> w2(std::uint32_t l) const;  // [dim][hidden]
  std::span<const float> w3(std::uint32_t l) const;  // [hidden][dim]
  std::span<const float> rms_final() const;          // [dim]
  std::span<const float> classifier() const;         // [vocab][dim]
  // Present only where the config says so (empty spans otherwise).
  std::span<const float> bq(std::uint32_t l) const;      // [H·hs]     qkv_bias
  std::span<const float> bk(std::uint32_t l) const;      // [Hkv·hs]   qkv_bias
  std::span<const float> bv(std::uint32_t l) const;      // [Hkv·hs]   qkv_bias
  std::span<const float> bo(std::uint32_t l) const;      // [dim]      o_bias
  std::span<const float> q_norm(std::uint32_t l) const;  // [hs]       qk_norm
  std::span<const float> k_norm(std::uint32_t l) const;  // [hs]       qk_norm

 private:
  static constexpr std::size_t kAbsent = static_cast<std::size_t>(-1);
  struct Offsets {
    std::size_t emb, rms_att, wq, wk, wv, wo, rms_ffn, w1, w2, w3, rms_final, cls;
    std::size_t bq = kAbsent, bk = kAbsent, bv = kAbsent, bo = kAbsent;
    std::size_t q_norm = kAbsent, k_norm = kAbsent;
  };
  static Llama2cModel load_hf(const std::string& dir);
  // The weights in llama2.c's order from float offset 0 (embedding; per-layer attention norm, wq,
  // wk, wv, wo, ffn norm, w1, w2, w3; final norm; then `skip` floats; the classifier unless
  // shared), head size `hs`: the offsets to `o`, the floats used returned. Overflow-checked.
  static std::uint64_t lay_out(Offsets& o, const Llama2cConfig& c, std::uint64_t hs,
                               std::uint64_t skip);
  std::span<const float> optional_span(std::size_t base, std::uint32_t l, std::size_t n) const;
  std::string path_;
  std::string architecture_;  // HF "architectures"[0]
  Llama2cConfig cfg_;
  RopeSpec rope_{};
  RopeScaling rope_scaling_{};
  std::vector<float> w_;
  Offsets off_{};
};

// The attention of one layer for one new token: q [H·hs], k and v [Hkv·hs], all before RoPE;
// writes the attention output [H·hs]. Positions are 0, 1, 2, ... per sequence.
class AttentionBackend {
 public:
  virtual ~AttentionBackend() = default;
  virtual void attend(std::uint32_t layer, std::uint64_t pos, std::span<const float> q,
                      std::span<const float> k, std::span<const float> v, std::span<float> out) = 0;
};

// llama2.c's float32 attention over a full cache: the one implementation ReferenceAttention (the
// model's own cache) and FullCacheReference (replay.hpp: what a trace replay measures fidelity
// against) share.
//
// The arithmetic is run.c's (karpathy/llama2.c@350e04f run.c `forward`, its attention loop):
// per query head, score_t = (Σ_i q_i k_ti, summed in i order from 0) / sqrtf(d); softmax with the
// maximum subtracted, expf, the sum in t order, each divided by the sum; o_i = Σ_t a_t v_ti in t
// order from 0. Keys are stored transposed per KV head ([kv head][d][cap]) so the scores of all
// positions form channel by channel, vectorized across positions: the same operations per
// position in the same order, so the results are those of the plain per-position loops bit for bit
// (tests/simulator/test_replay_reference.cpp compares with such loops written in the test).
//
//   full_attention::LayerCache c;                              // one layer, 2 KV heads, d 64
//   full_attention::append(c, rope, k, v, 2, 64);              // position 0
//   full_attention::attend(c, qr, /*hq=*/8, 2, 64, att, out);  // att [8][1], out [8][64]
namespace full_attention {

// One layer's cache. Positions are appended in order from 0.
struct LayerCache {
  std::vector<float> kt;   // [kv head][d][cap], RoPE applied
  std::vector<float> v;    // [len][kv head · d]
  std::vector<float> row;  // scratch: one token's keys [kv head · d] while rotating
  std::uint64_t cap = 0;   // positions kt has room for
  std::uint64_t len = 0;   // positions appended
};

// Makes room for `cap` positions (>= len), moving the keys already stored.
void reserve(LayerCache& c, std::uint32_t kv_heads, std::uint32_t head_dim, std::uint64_t cap);

// Appends position c.len: k [kv head · d] before RoPE (rotated here at that position), v as is.
// Grows the cache (doubling) when full.
void append(LayerCache& c, const RopeSpec& rope, std::span<const float> k, std::span<const float> v,
            std::uint32_t kv_heads, std::uint32_t head_dim);

// Attention of the rotated queries qr [q head · d] over positions [0, c.len): probabilities to
// att [q head][c.len], outputs to out [q head · d].
void attend(const LayerCache& c, const float* qr, std::uint32_t q_heads, std::uint32_t kv_heads,
            std::uint32_t head_dim, float* att, float* out);

}  // namespace full_attention

// llama2.c's attention, exactly: RoPE on q and k, a float32 cache per layer (full_attention's,
// growing as positions are appended), scores scaled by 1/sqrtf(hs), softmax with max subtraction,
// weighted sum of values.
class ReferenceAttention final : public AttentionBackend {
 public:
  ReferenceAttention(std::uint32_t layers, std::uint32_t q_heads, std::uint32_t kv_heads,
                     std::uint32_t head_dim, RopeSpec rope);
  explicit ReferenceAttention(const Llama2cModel& m)
      : ReferenceAttention(m.config().n_layers, m.config().n_heads, m.config().n_kv_heads,
                           m.config().head_size(), m.rope()) {}
  void attend(std::uint32_t layer, std::uint64_t pos, std::span<const float> q,
              std::span<const float> k, std::span<const float> v, std::span<float> out) override;
  // Appends k, v at `pos` without computing attention (steps a replay does not score).
  void append(std::uint32_t layer, std::uint64_t pos, std::span<const float> k,
              std::span<const float> v);
  // Softmax probabilities of the last attend() call for query head h, positions [0, pos].
  std::span<const float> last_probs(std::uint32_t h) const;
  void reset();

 private:
  std::uint32_t layers_, hq_, hkv_, d_;
  RopeSpec rope_;
  std::vector<full_attention::LayerCache> cache_;  // per layer
  std::vector<float> qr_, att_;
  std::uint64_t last_len_ = 0;
};

// Records the pre-RoPE q, k, v of every layer into a TraceBuilder, then forwards to `inner`.
class CapturingAttention final : public AttentionBackend {
 public:
  CapturingAttention(AttentionBackend& inner, TraceBuilder& out) : inner_(inner), out_(out) {}
  void attend(std::uint32_t layer, std::uint64_t pos, std::span<const float> q,
              std::span<const float> k, std::span<const float> v, std::span<float> out) override {
    out_.append(layer, q, k, v);
    inner_.attend(layer, pos, q, k, v, out);
  }

 private:
  AttentionBackend& inner_;
  TraceBuilder& out_;
};

// The forward pass (activation buffers of one sequence).
// The forward pass (activation buffers of one sequence, allocated once: forward() allocates
// nothing). `threads`: 0 = automatic (every hardware thread, at most 16, when a matmul of the model
// has at least 2^20 multiply-adds, else 1); each matmul's rows are split among the threads and
// every row is summed in the same order, so the logits do not depend on the thread count.
class Llama2cRunner {
 public:
  explicit Llama2cRunner(const Llama2cModel& m, unsigned threads = 0);
  ~Llama2cRunner();
  Llama2cRunner(const Llama2cRunner&) = delete;
  Llama2cRunner& operator=(const Llama2cRunner&) = delete;
  // Logits [vocab] for `token` at position `pos` (pos < seq_len).
  std::span<const float> forward(std::int32_t token, std::uint64_t pos, AttentionBackend& attn);
  const Llama2cModel& model() const { return m_; }
  unsigned threads() const;

 private:
  struct Pool;
  void matmul(float* xout, const float* x, const float* w, std::uint32_t n, std::uint32_t d);
  const Llama2cModel& m_;
  std::vector<float> x_, xb_, xb2_, hb_, hb2_, q_, k_, v_, att_out_, logits_;
  std::unique_ptr<Pool> pool_;  // null: one thread
};

class HfTokenizer;

// One tokenizer for the reference model's two kinds of checkpoint: llama2.c's tokenizer.bin, or
// a Hugging Face tokenizer.json (a path to it or to the model directory holding it), which
// HfTokenizer (hf_tokenizer.hpp) implements.
class Tokenizer {
 public:
  // `vocab_size`: the model's; a llama2.c file holds exactly that many tokens, a tokenizer.json at
  // most that many (HF models may pad their embedding past the tokenizer's ids).
  static Tokenizer load(const std::string& path, std::uint32_t vocab_size);
  bool is_hf() const { return hf_ != nullptr; }
  std::uint32_t size() const;
  const std::string& piece(std::int32_t id) const;
  std::int32_t bos_id() const;  // llama2.c: 1; HF: the files' BOS, -1 when none
  std::int32_t eos_id() const;  // llama2.c: 2; HF: the files' EOS, -1 when none
  // Whether generation stops when the model emits `id`: llama2.c stops at BOS (1), as run.c
  // does; a Hugging Face model at its EOS (generation_config's eos_token_id convention).
  bool stops(std::int32_t id) const;
  // llama2.c's decode: after BOS (1) a leading space is dropped; "<0xXX>" pieces become that byte.
  // HF: HfTokenizer::decode.
  std::string decode(std::int32_t prev, std::int32_t token) const;
  // llama2.c's BPE encode (dummy-prefix space, UTF-8 codepoints, byte fallback, merges by score).
  // HF: HfTokenizer::encode.
  std::vector<std::int32_t> encode(const std::string& text, bool bos, bool eos) const;
  // Decodes a token stream (first token usually BOS) into printable text, as llama2.c prints it
  // (safe_printf drops single non-printable bytes); HF: HfTokenizer::detokenize.
  std::string detokenize(std::span<const std::int32_t> tokens) const;
  // What generate() prints for `token` after `prev`: llama2.c's safe_printf filter on decode();
  // HF pieces unfiltered (a byte token may be one byte of a UTF-8 sequence).
  std::string printable_piece(std::int32_t prev, std::int32_t token) const;

 private:
  std::vector<std::string> vocab_;
  std::vector<float> scores_;
  std::vector<std::pair<std::string, std::int32_t>> sorted_;
  std::shared_ptr<const HfTokenizer> hf_;
  std::int32_t lookup(const std::string& s) const;
};

// The tokenizer a command uses: `flag` when given, else the model's own directory for a Hugging
// Face checkpoint (its tokenizer.json); a llama2.c checkpoint needs the flag (Error naming
// --tokenizer).
std::string tokenizer_for(const Llama2cModel& model, const std::string& flag);

// llama2.c's sampler: temperature 0 = argmax (lowest index wins ties); otherwise softmax(logits/T)
// sampled with llama2.c's xorshift RNG from `seed`.
class Sampler {
 public:
  Sampler(float temperature, std::uint64_t seed) : temperature_(temperature), state_(seed) {}
  std::int32_t sample(std::span<const float> logits);

 private:
  float temperature_;
  std::uint64_t state_;
  std::vector<float> probs_;
};

struct GenerateOptions {
  std::string prompt;         // empty: start from BOS alone
  std::uint32_t steps = 256;  // positions to run (llama2.c's -n), clamped to seq_len
  float temperature = 0.0f;   // 0 = greedy; finite and >= 0, or generate() throws
  std::uint64_t seed = 42;
};

struct Generation {
  std::vector<std::int32_t> tokens;  // BOS, prompt, generated (up to the stop)
  std::string text;                  // what llama2.c prints
};

// llama2.c's generate loop: forces the prompt, then samples; stops after `steps` or where
// tok.stops() (llama2.c: BOS; HF: EOS). A tokenizer without BOS needs a prompt (Error otherwise).
// `on_piece` (optional) receives each printed piece as it is produced.
Generation generate(Llama2cRunner& run, AttentionBackend& attn, const Tokenizer& tok,
                    const GenerateOptions& opt,
                    const std::function<void(const std::string&)>& on_piece = {});

// Whitespace-separated token ids; throws Error naming the file and the line on a bad id.
std::vector<std::int32_t> read_token_file(const std::string& path, std::uint32_t vocab_size);

}  // namespace kvplan::sim
