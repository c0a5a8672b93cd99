// Hugging Face checkpoints in the reference model, checked against an independent forward pass
// written here: the test reads the safetensors files with its own parser, decodes BF16/F16 with
// its own bit arithmetic and runs every operation in double, following transformers'
// modeling_llama.py / modeling_qwen2.py / modeling_qwen3.py (RMSNorm x·rsqrt(mean(x²)+eps)·w,
// rotate_half RoPE with inv_freq = theta^(-2i/d), softmax(q·k/sqrt(hd)), silu(gate)·up, down).
// The tiny checkpoints the tests write (random Llama, Qwen2, Qwen3, as fp32, bf16 shards, fp16)
// are written by the test's own writer, not kvplan's.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "kvplan/error.hpp"
#include "kvplan/sim/hf_tokenizer.hpp"
#include "kvplan/sim/llama2c.hpp"
#include "kvplan/sim/replay.hpp"
#include "temp_dir.hpp"
#include "test_model_dir.hpp"

namespace kvplan::sim {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

// ------------------------------------------------------------- the test's own safetensors I/O

double decode_bf16(std::uint16_t h) {
  const std::uint32_t bits = std::uint32_t{h} << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

double decode_f16(std::uint16_t h) {
  const int sign = h >> 15, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  const double s = sign ? -1.0 : 1.0;
  if (e == 0) return s * std::ldexp(m, -24);  // subnormal: m · 2^-14 · 2^-10
  if (e == 31) return m ? NAN : s * INFINITY;
  return s * std::ldexp(1024 + m, e - 25);  // (1 + m/1024) · 2^(e-15)
}

// Round to nearest even, the way torch's .to(torch.bfloat16) rounds (finite inputs).
std::uint16_t encode_bf16(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  u += 0x7fff + ((u >> 16) & 1);
  return static_cast<std::uint16_t>(u >> 16);
}

// Normal-range values only (the weights written here are kept in [1e-3, 4] in magnitude).
std::uint16_t encode_f16(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  const std::uint32_t sign = (u >> 16) & 0x8000;
  int e = static_cast<int>((u >> 23) & 0xff) - 127 + 15;
  std::uint32_t m = (u & 0x7fffff) >> 13;
  const std::uint32_t rem = u & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (m & 1))) ++m;
  if (m == 0x400) {
    m = 0;
    ++e;
  }
  EXPECT_GT(e, 0);
  EXPECT_LT(e, 31);
  return static_cast<std::uint16_t>(sign | (static_cast<std::uint32_t>(e) << 10) | m);
}

struct Tensor {
  std::vector<std::uint64_t> shape;
  std::vector<float> data;  // float32 values (already rounded when written in a 16-bit dtype)
};
using Tensors = std::map<std::string, Tensor>;

// Reads every tensor of a safetensors file as double; metadata aliases become copies.
std::map<std::string, std::vector<double>> read_safetensors(const std::string& path) {
  std::ifstream is(path, std::ios::binary);
  std::vector<char> buf((std::istreambuf_iterator<char>(is)), std::istreambuf_iterator<char>());
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = n << 8 | static_cast<unsigned char>(buf[i]);
  const json h = json::parse(std::string(buf.data() + 8, n));
  const char* data = buf.data() + 8 + n;
  std::map<std::string, std::vector<double>> out;
  for (auto it = h.begin(); it != h.end(); ++it) {
    if (it.key() == "__metadata__") continue;
    const std::string dt = (*it)["dtype"];
    const std::uint64_t b = (*it)["data_offsets"][0], e = (*it)["data_offsets"][1];
    std::vector<double>& v = out[it.key()];
    if (dt == "F32") {
      for (std::uint64_t o = b; o < e; o += 4) {
        float f;
        std::memcpy(&f, data + o, 4);
        v.push_back(f);
      }
    } else {
      for (std::uint64_t o = b; o < e; o += 2) {
        std::uint16_t x;
        std::memcpy(&x, data + o, 2);
        v.push_back(dt == "BF16" ? decode_bf16(x) : decode_f16(x));
      }
    }
  }
  if (h.contains("__metadata__"))
    for (auto it = h["__metadata__"].begin(); it != h["__metadata__"].end(); ++it)
      if (out.count(it.value().get<std::string>()) && !out.count(it.key()))
        out[it.key()] = out[it.value().get<std::string>()];
  return out;
}

// Writes `names` of `t` as one safetensors file in `dtype` (F32, BF16 or F16).
void write_safetensors_file(const std::string& path, const Tensors& t,
                            const std::vector<std::string>& names, const std::string& dtype,
                            const json& metadata = json::object()) {
  json h = json::object();
  if (!metadata.empty()) h["__metadata__"] = metadata;
  std::string data;
  for (const auto& name : names) {
    const Tensor& x = t.at(name);
    const std::size_t begin = data.size();
    for (float f : x.data) {
      if (dtype == "F32") {
        data.append(reinterpret_cast<const char*>(&f), 4);
      } else {
        const std::uint16_t b = dtype == "BF16" ? encode_bf16(f) : encode_f16(f);
        data.append(reinterpret_cast<const char*>(&b), 2);
      }
    }
    h[name] = {{"dtype", dtype}, {"shape", x.shape}, {"data_offsets", {begin, data.size()}}};
  }
  std::string header = h.dump();
  while ((8 + header.size()) % 8) header += ' ';
  std::ofstream os(path, std::ios::binary);
  std::uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) os.put(static_cast<char>((n >> (8 * i)) & 0xff));
  os << header << data;
}

// ------------------------------------------------------------------ the double-precision model

struct DoubleModel {
  json cfg;
  std::map<std::string, std::vector<double>> w;
  std::uint32_t dim, hid, layers, heads, kv_heads, hd, vocab;
  double eps, theta;
  bool qkv_bias, qk_norm;

  static DoubleModel load(const fs::path& dir) {
    DoubleModel m;
    m.cfg = json::parse(std::ifstream(dir / "config.json"));
    if (fs::exists(dir / "model.safetensors.index.json")) {
      const json idx = json::parse(std::ifstream(dir / "model.safetensors.index.json"));
      std::map<std::string, bool> files;
      for (const auto& f : idx["weight_map"]) files[f.get<std::string>()] = true;
      for (const auto& [f, _] : files) m.w.merge(read_safetensors((dir / f).string()));
    } else {
      m.w = read_safetensors((dir / "model.safetensors").string());
    }
    const json& c = m.cfg;
    m.dim = c["hidden_size"];
    m.hid = c["intermediate_size"];
    m.layers = c["num_hidden_layers"];
    m.heads = c["num_attention_heads"];
    m.kv_heads = c["num_key_value_heads"];
    m.hd = c.contains("head_dim") ? c["head_dim"].get<std::uint32_t>() : m.dim / m.heads;
    m.vocab = c["vocab_size"];
    m.eps = c["rms_norm_eps"];
    m.theta = c["rope_theta"];
    const std::string arch = c["architectures"][0];
    m.qkv_bias = arch == "Qwen2ForCausalLM";
    m.qk_norm = arch == "Qwen3ForCausalLM";
    if (c.value("tie_word_embeddings", false)) {
      if (!m.w.count("lm_head.weight")) m.w["lm_head.weight"] = m.w.at("model.embed_tokens.weight");
      if (!m.w.count("model.embed_tokens.weight"))
        m.w["model.embed_tokens.weight"] = m.w.at("lm_head.weight");
    }
    return m;
  }

  const std::vector<double>& t(const std::string& n) const { return w.at(n); }
  const std::vector<double>& lt(std::uint32_t l, const std::string& n) const {
    return w.at("model.layers." + std::to_string(l) + "." + n);
  }
  static std::vector<double> matvec(const std::vector<double>& W, const std::vector<double>& x) {
    std::vector<double> y(W.size() / x.size(), 0.0);
    for (std::size_t i = 0; i < y.size(); ++i)
      for (std::size_t j = 0; j < x.size(); ++j) y[i] += W[i * x.size() + j] * x[j];
    return y;
  }
  std::vector<double> rmsnorm(const double* x, const std::vector<double>& g, std::size_t n) const {
    double ss = 0;
    for (std::size_t i = 0; i < n; ++i) ss += x[i] * x[i];
    const double r = 1.0 / std::sqrt(ss / static_cast<double>(n) + eps);
    std::vector<double> y(n);
    for (std::size_t i = 0; i < n; ++i) y[i] = g[i] * x[i] * r;
    return y;
  }
  // rotate_half: x' = x·cos + rotate_half(x)·sin, rotate_half(x) = [-x2, x1].
  void rope(double* x, std::uint64_t pos) const {
    const std::uint32_t h = hd / 2;
    for (std::uint32_t i = 0; i < h; ++i) {
      const double a = static_cast<double>(pos) * std::pow(theta, -2.0 * i / hd);
      const double x1 = x[i], x2 = x[i + h];
      x[i] = x1 * std::cos(a) - x2 * std::sin(a);
      x[i + h] = x2 * std::cos(a) + x1 * std::sin(a);
    }
  }

  // One sequence's cache: per layer, the rotated keys and the values of every position.
  struct Session {
    std::vector<std::vector<std::vector<double>>> K, V;
  };

  // Logits at position `pos` for `token`, attending to the last `window` positions (itself
  // included), or all of them when window is 0.
  std::vector<double> step(Session& st, std::int32_t token, std::uint64_t pos,
                           std::uint64_t window) const {
    auto& K = st.K;
    auto& V = st.V;
    K.resize(layers);
    V.resize(layers);
    {
      const auto& E = t("model.embed_tokens.weight");
      std::vector<double> x(E.begin() + token * dim, E.begin() + (token + 1) * dim);
      for (std::uint32_t l = 0; l < layers; ++l) {
        const auto h = rmsnorm(x.data(), lt(l, "input_layernorm.weight"), dim);
        auto q = matvec(lt(l, "self_attn.q_proj.weight"), h);
        auto k = matvec(lt(l, "self_attn.k_proj.weight"), h);
        auto v = matvec(lt(l, "self_attn.v_proj.weight"), h);
        if (qkv_bias) {
          for (std::size_t i = 0; i < q.size(); ++i) q[i] += lt(l, "self_attn.q_proj.bias")[i];
          for (std::size_t i = 0; i < k.size(); ++i) k[i] += lt(l, "self_attn.k_proj.bias")[i];
          for (std::size_t i = 0; i < v.size(); ++i) v[i] += lt(l, "self_attn.v_proj.bias")[i];
        }
        for (std::uint32_t a = 0; a < heads; ++a) {
          if (qk_norm) {
            const auto n = rmsnorm(q.data() + a * hd, lt(l, "self_attn.q_norm.weight"), hd);
            std::copy(n.begin(), n.end(), q.begin() + a * hd);
          }
          rope(q.data() + a * hd, pos);
        }
        for (std::uint32_t a = 0; a < kv_heads; ++a) {
          if (qk_norm) {
            const auto n = rmsnorm(k.data() + a * hd, lt(l, "self_attn.k_norm.weight"), hd);
            std::copy(n.begin(), n.end(), k.begin() + a * hd);
          }
          rope(k.data() + a * hd, pos);
        }
        K[l].push_back(k);
        V[l].push_back(v);
        const std::uint64_t lo = window && pos + 1 > window ? pos + 1 - window : 0;
        std::vector<double> att(std::size_t{heads} * hd, 0.0);
        for (std::uint32_t a = 0; a < heads; ++a) {
          const std::uint32_t g = a / (heads / kv_heads);
          std::vector<double> s;
          for (std::uint64_t j = lo; j <= pos; ++j) {
            double d = 0;
            for (std::uint32_t i = 0; i < hd; ++i) d += q[a * hd + i] * K[l][j][g * hd + i];
            s.push_back(d / std::sqrt(static_cast<double>(hd)));
          }
          const double mx = *std::max_element(s.begin(), s.end());
          double sum = 0;
          for (double& e : s) sum += (e = std::exp(e - mx));
          for (std::uint64_t j = lo; j <= pos; ++j)
            for (std::uint32_t i = 0; i < hd; ++i)
              att[a * hd + i] += s[j - lo] / sum * V[l][j][g * hd + i];
        }
        const auto o = matvec(lt(l, "self_attn.o_proj.weight"), att);
        for (std::uint32_t i = 0; i < dim; ++i) x[i] += o[i];
        const auto h2 = rmsnorm(x.data(), lt(l, "post_attention_layernorm.weight"), dim);
        const auto gate = matvec(lt(l, "mlp.gate_proj.weight"), h2);
        const auto up = matvec(lt(l, "mlp.up_proj.weight"), h2);
        std::vector<double> act(hid);
        for (std::uint32_t i = 0; i < hid; ++i) act[i] = gate[i] / (1 + std::exp(-gate[i])) * up[i];
        const auto down = matvec(lt(l, "mlp.down_proj.weight"), act);
        for (std::uint32_t i = 0; i < dim; ++i) x[i] += down[i];
      }
      const auto xn = rmsnorm(x.data(), t("model.norm.weight"), dim);
      return matvec(t("lm_head.weight"), xn);
    }
  }

  std::vector<std::vector<double>> run(const std::vector<std::int32_t>& tokens,
                                       std::uint64_t window = 0) const {
    Session st;
    std::vector<std::vector<double>> logits;
    for (std::uint64_t p = 0; p < tokens.size(); ++p)
      logits.push_back(step(st, tokens[p], p, window));
    return logits;
  }

  // BOS, then `steps` argmax tokens (the first maximum on a tie).
  std::vector<std::int32_t> greedy(std::int32_t bos, std::uint32_t steps) const {
    Session st;
    std::vector<std::int32_t> tokens{bos};
    for (std::uint64_t p = 0; p < steps; ++p) {
      const auto l = step(st, tokens.back(), p, 0);
      tokens.push_back(static_cast<std::int32_t>(std::max_element(l.begin(), l.end()) - l.begin()));
    }
    return tokens;
  }
};

// kvplan's logits at every position of `tokens` (full float32 reference cache).
std::vector<std::vector<float>> kvplan_logits(const Llama2cModel& m,
                                              const std::vector<std::int32_t>& tokens) {
  Llama2cRunner run(m);
  ReferenceAttention cache(m);
  std::vector<std::vector<float>> out;
  for (std::size_t p = 0; p < tokens.size(); ++p) {
    const auto l = run.forward(tokens[p], p, cache);
    out.emplace_back(l.begin(), l.end());
  }
  return out;
}

// max |a - b| over every logit, relative to max(1, max |b|).
double max_rel_diff(const std::vector<std::vector<float>>& a,
                    const std::vector<std::vector<double>>& b) {
  double diff = 0, scale = 1;
  for (std::size_t p = 0; p < b.size(); ++p)
    for (std::size_t i = 0; i < b[p].size(); ++i) {
      diff = std::max(diff, std::abs(a[p][i] - b[p][i]));
      scale = std::max(scale, std::abs(b[p][i]));
    }
  return diff / scale;
}

// ---------------------------------------------------------------- tiny random checkpoints

struct Tiny {
  std::string arch = "LlamaForCausalLM";
  std::uint32_t dim = 16, hid = 32, layers = 2, heads = 4, kv_heads = 2, head_dim = 4, vocab = 40;
  bool tied = false;
};

json tiny_config(const Tiny& t) {
  json c = {{"architectures", {t.arch}},      {"hidden_size", t.dim},
            {"intermediate_size", t.hid},     {"num_hidden_layers", t.layers},
            {"num_attention_heads", t.heads}, {"num_key_value_heads", t.kv_heads},
            {"vocab_size", t.vocab},          {"max_position_embeddings", 64},
            {"rms_norm_eps", 1e-5},           {"rope_theta", 10000.0},
            {"hidden_act", "silu"},           {"tie_word_embeddings", t.tied}};
  if (t.head_dim * t.heads != t.dim) c["head_dim"] = t.head_dim;
  return c;
}

Tensors tiny_weights(const Tiny& t, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-0.5f, 0.5f), g(0.5f, 1.5f);
  const auto rnd = [&](bool gain) {
    float x = gain ? g(rng) : u(rng);
    return std::abs(x) < 1e-3f ? 1e-3f : x;  // F16 normal range (see encode_f16)
  };
  Tensors w;
  const auto add = [&](const std::string& n, std::vector<std::uint64_t> shape, bool gain = false) {
    Tensor& x = w[n];
    x.shape = shape;
    std::uint64_t size = 1;
    for (auto d : shape) size *= d;
    for (std::uint64_t i = 0; i < size; ++i) x.data.push_back(rnd(gain));
  };
  const std::uint64_t qd = t.heads * t.head_dim, kvd = t.kv_heads * t.head_dim;
  add("model.embed_tokens.weight", {t.vocab, t.dim});
  for (std::uint32_t l = 0; l < t.layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    add(p + "input_layernorm.weight", {t.dim}, true);
    add(p + "self_attn.q_proj.weight", {qd, t.dim});
    add(p + "self_attn.k_proj.weight", {kvd, t.dim});
    add(p + "self_attn.v_proj.weight", {kvd, t.dim});
    add(p + "self_attn.o_proj.weight", {t.dim, qd});
    add(p + "post_attention_layernorm.weight", {t.dim}, true);
    add(p + "mlp.gate_proj.weight", {t.hid, t.dim});
    add(p + "mlp.up_proj.weight", {t.hid, t.dim});
    add(p + "mlp.down_proj.weight", {t.dim, t.hid});
    if (t.arch == "Qwen2ForCausalLM") {
      add(p + "self_attn.q_proj.bias", {qd});
      add(p + "self_attn.k_proj.bias", {kvd});
      add(p + "self_attn.v_proj.bias", {kvd});
    }
    if (t.arch == "Qwen3ForCausalLM") {
      add(p + "self_attn.q_norm.weight", {t.head_dim}, true);
      add(p + "self_attn.k_norm.weight", {t.head_dim}, true);
    }
  }
  add("model.norm.weight", {t.dim}, true);
  if (!t.tied) add("lm_head.weight", {t.vocab, t.dim});
  return w;
}

std::vector<std::string> names_of(const Tensors& w) {
  std::vector<std::string> n;
  for (const auto& [k, _] : w) n.push_back(k);
  return n;
}

// Writes config.json and one model.safetensors; returns the directory.
fs::path write_tiny(const fs::path& dir, const Tiny& t, const Tensors& w,
                    const std::string& dtype = "F32") {
  fs::create_directories(dir);
  std::ofstream(dir / "config.json") << tiny_config(t).dump(2);
  write_safetensors_file((dir / "model.safetensors").string(), w, names_of(w), dtype);
  return dir;
}

const std::vector<std::int32_t> kTinyTokens = {1, 5, 9, 33, 2, 17, 17, 0, 39, 12, 4, 28};

// The error that `f` throws, as text ("" when it throws none).
template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// ---------------------------------------------------------------------- tinystories-656k

TEST(HfModel, LoadsTinyStoriesConfig) {
  KVPLAN_REQUIRE_HF_MODEL();
  const auto m = Llama2cModel::load(test::hf_model_dir());
  // Figures from the model's config.json and README (tinystories-656k).
  const auto& c = m.config();
  EXPECT_TRUE(m.is_hf());
  EXPECT_EQ(m.architecture(), "LlamaForCausalLM");
  EXPECT_EQ(c.dim, 128u);
  EXPECT_EQ(c.hidden_dim, 384u);
  EXPECT_EQ(c.n_layers, 2u);
  EXPECT_EQ(c.n_heads, 8u);
  EXPECT_EQ(c.n_kv_heads, 4u);
  EXPECT_EQ(c.head_size(), 16u);
  EXPECT_EQ(c.vocab_size, 2048u);
  EXPECT_EQ(c.seq_len, 512u);
  EXPECT_FLOAT_EQ(c.norm_eps, 1e-6f);
  EXPECT_TRUE(c.shared_classifier);
  EXPECT_EQ(m.rope().style, RopeStyle::half);
  EXPECT_EQ(m.rope().dims, 16u);
  EXPECT_DOUBLE_EQ(m.rope().theta, 10000.0);
  const ModelSpec s = m.spec();
  EXPECT_EQ(s.id, fs::path(test::hf_model_dir()).filename().string());
  EXPECT_EQ(s.head_dim_k, 16u);
  EXPECT_EQ(s.num_kv_heads, 4u);
  // The README's 656,000 parameters (lm_head and embed_tokens one tensor):
  // 2048·128 + 2·(2·128 + 128·128 + 2·64·128 + 128·128 + 3·384·128) + 128 = 656,000.
  EXPECT_EQ(s.num_params, 656000u);
}

TEST(HfModel, TinyStoriesLogitsMatchDoubleForward) {
  KVPLAN_REQUIRE_HF_MODEL();
  const auto m = Llama2cModel::load(test::hf_model_dir());
  const auto ref = DoubleModel::load(test::hf_model_dir());
  const std::vector<std::int32_t> tokens = {1, 400, 7, 1200, 33, 2047, 3, 900, 15, 15, 600, 42};
  const auto want = ref.run(tokens);
  EXPECT_LT(max_rel_diff(kvplan_logits(m, tokens), want), 1e-4);
}

TEST(HfModel, TinyStoriesGreedyTextMatchesDoubleForward) {
  KVPLAN_REQUIRE_HF_MODEL();
  const auto m = Llama2cModel::load(test::hf_model_dir());
  const auto ref = DoubleModel::load(test::hf_model_dir());
  const auto want = ref.greedy(1, 64);
  // kvplan: the runner over the reference cache, argmax (lowest id on a tie) for 64 steps.
  Llama2cRunner run(m);
  ReferenceAttention cache(m);
  Sampler greedy(0.0f, 0);
  std::vector<std::int32_t> got{1};
  for (std::uint64_t p = 0; p < 64; ++p)
    got.push_back(greedy.sample(run.forward(got.back(), p, cache)));
  EXPECT_EQ(got, want);
  const auto tok = HfTokenizer::load(test::hf_model_dir());
  const std::string text = tok.detokenize(got);
  EXPECT_EQ(text, tok.detokenize(want));
  // The model's README: greedy decoding from BOS begins with this sentence.
  EXPECT_EQ(text.rfind("Once upon a time, there was a little girl named Lily. She had a toy car "
                       "that she loved very much.",
                       0),
            0u)
      << text;
}

TEST(HfModel, TinyStoriesWindowKlMatchesDoubleForward) {
  KVPLAN_REQUIRE_HF_MODEL();
  const auto m = Llama2cModel::load(test::hf_model_dir());
  const auto ref = DoubleModel::load(test::hf_model_dir());
  const auto tokens = ref.greedy(1, 63);  // 64 tokens: positions 32..62 lose their start
  const auto full = ref.run(tokens), win = ref.run(tokens, 32);
  // KL(full ‖ window) of the next-token distribution, mean over positions 0..62 (as replay
  // scores: every position with a next token).
  double kl = 0;
  for (std::size_t p = 0; p + 1 < tokens.size(); ++p) {
    const auto logp = [](const std::vector<double>& l) {
      const double mx = *std::max_element(l.begin(), l.end());
      double s = 0;
      for (double x : l) s += std::exp(x - mx);
      std::vector<double> out;
      for (double x : l) out.push_back(x - mx - std::log(s));
      return out;
    };
    const auto a = logp(full[p]), b = logp(win[p]);
    for (std::size_t i = 0; i < a.size(); ++i) kl += std::exp(a[i]) * (a[i] - b[i]);
  }
  kl /= static_cast<double>(tokens.size() - 1);
  ASSERT_GT(kl, 1e-3);  // the window really hurts (the README: greedy text copies from far back)
  const auto rep = replay_model(
      m, tokens,
      {parse_config("fp32", "full", 16), parse_config("fp32", "streaming:sink=0,window=32", 16)},
      ReplayOptions{});  // eval_from 0: every position with a next token
  ASSERT_EQ(rep.configs.size(), 2u);
  EXPECT_EQ(rep.configs[1].scored, tokens.size() - 1);
  EXPECT_NEAR(rep.configs[0].mean_kl, 0.0, 1e-9);
  EXPECT_NEAR(rep.configs[1].mean_kl, kl, 1e-3 * kl);
}

TEST(HfModel, TokenizerFacadeGeneratesTheDoubleForwardsText) {
  KVPLAN_REQUIRE_HF_MODEL();
  const auto m = Llama2cModel::load(test::hf_model_dir());
  const auto tok = Tokenizer::load(tokenizer_for(m, ""), m.config().vocab_size);
  EXPECT_TRUE(tok.is_hf());
  EXPECT_EQ(tok.size(), 2048u);
  EXPECT_EQ(tok.bos_id(), 1);  // <|start_story|>, the README
  EXPECT_EQ(tok.eos_id(), 2);  // <|end_story|>
  Llama2cRunner run(m);
  ReferenceAttention cache(m);
  GenerateOptions opt;  // from BOS, greedy
  opt.steps = 64;
  const Generation g = generate(run, cache, tok, opt);
  // The double forward's greedy tokens, cut before an EOS as generation stops there.
  std::vector<std::int32_t> want;
  for (std::int32_t t : DoubleModel::load(test::hf_model_dir()).greedy(1, 64)) {
    if (t == 2) break;
    want.push_back(t);
  }
  EXPECT_EQ(g.tokens, want);
  EXPECT_EQ(g.text, HfTokenizer::load(test::hf_model_dir()).detokenize(want));
  const std::string e = error_of([&] { Tokenizer::load(test::hf_model_dir(), 1000); });
  EXPECT_NE(e.find("vocab_size"), std::string::npos) << e;
}

TEST(HfModel, LlamaTwoCheckpointStillNeedsATokenizerFlag) {
  KVPLAN_REQUIRE_MODEL();
  const auto m = Llama2cModel::load(test::checkpoint_path());
  EXPECT_EQ(tokenizer_for(m, "tok.bin"), "tok.bin");
  const std::string e = error_of([&] { tokenizer_for(m, ""); });
  EXPECT_NE(e.find("--tokenizer"), std::string::npos) << e;
}

TEST(HfModel, CapturedTraceCarriesHalfRopeAndReplaysExactly) {
  KVPLAN_REQUIRE_HF_MODEL();
  test::TempDir tmp;
  const auto m = Llama2cModel::load(test::hf_model_dir());
  const auto& c = m.config();
  TraceInfo info;
  info.model = m.spec().id;
  info.layers = c.n_layers;
  info.q_heads = c.n_heads;
  info.kv_heads = c.n_kv_heads;
  info.head_dim = c.head_size();
  info.rope = m.rope();
  TraceBuilder b(info);
  Llama2cRunner run(m);
  ReferenceAttention ref(m);
  CapturingAttention cap(ref, b);
  const auto tokens = DoubleModel::load(test::hf_model_dir()).greedy(1, 47);
  for (std::size_t p = 0; p < tokens.size(); ++p) {
    run.forward(tokens[p], p, cap);
    b.append_token(tokens[p]);
  }
  b.write(tmp.file("t.safetensors"), DType::f32);
  const auto t = TraceFile::open(tmp.file("t.safetensors"));
  EXPECT_EQ(t.info().rope.style, RopeStyle::half);
  EXPECT_EQ(t.info().rope.dims, 16u);
  EXPECT_DOUBLE_EQ(t.info().rope.theta, 10000.0);
  EXPECT_EQ(t.info().tokens, 48u);
  // The replay rotates the stored pre-RoPE q and k itself; with the trace's RoPE it reproduces
  // the model's attention outputs (float32 rounding only).
  const auto rep = replay_trace(t, {parse_config("fp32", "full", 16)});
  EXPECT_LT(rep.configs[0].rel_error, 1e-5);
}

// ------------------------------------------------------------------ tiny random checkpoints

TEST(HfModel, TinyLlamaFp32MatchesDoubleForward) {
  test::TempDir tmp;
  const Tiny t;
  const auto dir = write_tiny(tmp.path() / "llama", t, tiny_weights(t, 1));
  const auto m = Llama2cModel::load(dir.string());
  EXPECT_LT(max_rel_diff(kvplan_logits(m, kTinyTokens), DoubleModel::load(dir).run(kTinyTokens)),
            1e-5);
}

TEST(HfModel, Bf16ShardsWithIndexMatchFp32WithinBf16Rounding) {
  test::TempDir tmp;
  const Tiny t;
  const Tensors w = tiny_weights(t, 2);
  const auto f32 = write_tiny(tmp.path() / "f32", t, w);
  // The same weights as BF16 in two shards named by an index (layer 0 and the embedding in the
  // first, the rest in the second), as transformers' save_pretrained shards them.
  const fs::path sh = tmp.path() / "bf16";
  fs::create_directories(sh);
  std::ofstream(sh / "config.json") << tiny_config(t).dump();
  std::vector<std::string> a, b;
  json map = json::object();
  for (const auto& n : names_of(w)) {
    const bool first = n.rfind("model.layers.0.", 0) == 0 || n == "model.embed_tokens.weight";
    (first ? a : b).push_back(n);
    map[n] = first ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors";
  }
  write_safetensors_file((sh / "model-00001-of-00002.safetensors").string(), w, a, "BF16");
  write_safetensors_file((sh / "model-00002-of-00002.safetensors").string(), w, b, "BF16");
  std::ofstream(sh / "model.safetensors.index.json")
      << json{{"metadata", {{"total_size", 0}}}, {"weight_map", map}}.dump();
  const auto m32 = Llama2cModel::load(f32.string());
  const auto m16 = Llama2cModel::load(sh.string());
  const auto l32 = kvplan_logits(m32, kTinyTokens), l16 = kvplan_logits(m16, kTinyTokens);
  // Exact against the double forward of the rounded weights...
  EXPECT_LT(max_rel_diff(l16, DoubleModel::load(sh).run(kTinyTokens)), 1e-5);
  // ...and near fp32: each weight moves by at most 2^-9 relative (bf16 keeps 8 significant
  // bits); through two random layers of 16-term sums, RMSNorm and softmax that becomes a few
  // percent of the largest logit (0.055 measured); a wrong decode fails the exact check above.
  const auto d32 = DoubleModel::load(f32).run(kTinyTokens);
  const double drift = max_rel_diff(l16, d32);
  EXPECT_GT(drift, 1e-6);  // the weights were really rounded
  EXPECT_LT(drift, 0.1);
  EXPECT_LT(max_rel_diff(l32, d32), 1e-5);
}

TEST(HfModel, Fp16CheckpointMatchesDoubleForward) {
  test::TempDir tmp;
  const Tiny t;
  const auto dir = write_tiny(tmp.path() / "f16", t, tiny_weights(t, 3), "F16");
  const auto m = Llama2cModel::load(dir.string());
  EXPECT_LT(max_rel_diff(kvplan_logits(m, kTinyTokens), DoubleModel::load(dir).run(kTinyTokens)),
            1e-5);
}

TEST(HfModel, TiedEmbeddingsWithoutLmHead) {
  test::TempDir tmp;
  Tiny t;
  t.tied = true;
  const auto dir = write_tiny(tmp.path() / "tied", t, tiny_weights(t, 4));
  const auto m = Llama2cModel::load(dir.string());
  EXPECT_TRUE(m.config().shared_classifier);
  EXPECT_EQ(m.classifier().data(), m.embedding().data());
  EXPECT_LT(max_rel_diff(kvplan_logits(m, kTinyTokens), DoubleModel::load(dir).run(kTinyTokens)),
            1e-5);
}

TEST(HfModel, Qwen2BiasMatchesDoubleForward) {
  test::TempDir tmp;
  Tiny t;
  t.arch = "Qwen2ForCausalLM";
  const auto dir = write_tiny(tmp.path() / "qwen2", t, tiny_weights(t, 5));
  const auto m = Llama2cModel::load(dir.string());
  EXPECT_TRUE(m.config().qkv_bias);
  EXPECT_FALSE(m.config().o_bias);
  EXPECT_LT(max_rel_diff(kvplan_logits(m, kTinyTokens), DoubleModel::load(dir).run(kTinyTokens)),
            1e-5);
}

TEST(HfModel, Qwen3QkNormWithOwnHeadDimMatchesDoubleForward) {
  test::TempDir tmp;
  Tiny t;
  t.arch = "Qwen3ForCausalLM";
  t.head_dim = 8;  // 4 heads · 8 = 32 != hidden 16: head_dim from config.json
  const auto dir = write_tiny(tmp.path() / "qwen3", t, tiny_weights(t, 6));
  const auto m = Llama2cModel::load(dir.string());
  EXPECT_TRUE(m.config().qk_norm);
  EXPECT_EQ(m.config().head_size(), 8u);
  EXPECT_EQ(m.rope().dims, 8u);
  EXPECT_LT(max_rel_diff(kvplan_logits(m, kTinyTokens), DoubleModel::load(dir).run(kTinyTokens)),
            1e-5);
}

TEST(HfModel, ThreadCountDoesNotChangeLogits) {
  test::TempDir tmp;
  Tiny t;
  t.hid = 100;  // rows that do not split evenly into threads of 8-row blocks
  t.vocab = 45;
  const auto dir = write_tiny(tmp.path() / "m", t, tiny_weights(t, 13));
  const auto m = Llama2cModel::load(dir.string());
  std::vector<std::vector<float>> by_threads;
  for (unsigned threads : {1u, 2u, 3u, 7u}) {
    Llama2cRunner run(m, threads);
    EXPECT_EQ(run.threads(), threads);
    ReferenceAttention cache(m);
    std::vector<float> all;
    for (std::size_t p = 0; p < kTinyTokens.size(); ++p) {
      const auto l = run.forward(kTinyTokens[p], p, cache);
      all.insert(all.end(), l.begin(), l.end());
    }
    by_threads.push_back(all);
  }
  for (std::size_t i = 1; i < by_threads.size(); ++i) EXPECT_EQ(by_threads[i], by_threads[0]);
  EXPECT_LT(max_rel_diff(kvplan_logits(m, kTinyTokens), DoubleModel::load(dir).run(kTinyTokens)),
            1e-5);
  EXPECT_EQ(Llama2cRunner(m).threads(), 1u);  // automatic: a tiny model runs on one thread
}

// ------------------------------------------------------------------------------ bad input

TEST(HfModel, MissingTensorNamesFileAndTensor) {
  test::TempDir tmp;
  const Tiny t;
  Tensors w = tiny_weights(t, 7);
  w.erase("model.layers.1.mlp.up_proj.weight");
  const auto dir = write_tiny(tmp.path() / "m", t, w);
  const std::string e = error_of([&] { Llama2cModel::load(dir.string()); });
  EXPECT_NE(e.find("model.safetensors"), std::string::npos) << e;
  EXPECT_NE(e.find("model.layers.1.mlp.up_proj.weight"), std::string::npos) << e;
}

TEST(HfModel, ShapeMismatchNamesTensorAndShapes) {
  test::TempDir tmp;
  const Tiny t;
  Tensors w = tiny_weights(t, 8);
  w["model.layers.0.self_attn.k_proj.weight"].shape = {4, 32};  // 128 elements, not [8, 16]
  const auto dir = write_tiny(tmp.path() / "m", t, w);
  const std::string e = error_of([&] { Llama2cModel::load(dir.string()); });
  EXPECT_NE(e.find("model.layers.0.self_attn.k_proj.weight /shape"), std::string::npos) << e;
  EXPECT_NE(e.find("expected [8, 16]"), std::string::npos) << e;
  EXPECT_NE(e.find("got [4, 32]"), std::string::npos) << e;
}

TEST(HfModel, UnsupportedArchitectureAndConfigFieldsAreRefused) {
  test::TempDir tmp;
  const Tiny t;
  const auto dir = write_tiny(tmp.path() / "m", t, tiny_weights(t, 9));
  const auto with = [&](const std::string& key, const json& value) {
    json c = tiny_config(t);
    c[key] = value;
    std::ofstream(dir / "config.json") << c.dump();
    return error_of([&] { Llama2cModel::load(dir.string()); });
  };
  std::string e = with("architectures", json::array({"GPT2LMHeadModel"}));
  EXPECT_NE(e.find("config.json: architectures"), std::string::npos) << e;
  EXPECT_NE(e.find("GPT2LMHeadModel"), std::string::npos) << e;
  e = with("hidden_act", "gelu");
  EXPECT_NE(e.find("config.json: hidden_act"), std::string::npos) << e;
  e = with("num_key_value_heads", 3);
  EXPECT_NE(e.find("config.json: num_key_value_heads"), std::string::npos) << e;
  e = with("rope_scaling", {{"rope_type", "yarn"}, {"factor", 4.0}});
  EXPECT_NE(e.find("rope_scaling/rope_type"), std::string::npos) << e;
  e = with("hidden_size", -16);
  EXPECT_NE(e.find("config.json: hidden_size"), std::string::npos) << e;
  e = with("vocab_size", nullptr);
  EXPECT_NE(e.find("config.json: vocab_size: missing"), std::string::npos) << e;
}

TEST(HfModel, UnsupportedDtypeIsRefused) {
  test::TempDir tmp;
  const Tiny t;
  const auto dir = write_tiny(tmp.path() / "m", t, tiny_weights(t, 10));
  // Relabel one F32 tensor as F64 (half as many elements fit): the header names the dtype.
  std::ifstream is(dir / "model.safetensors", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(is)), std::istreambuf_iterator<char>());
  is.close();
  const std::string from = "\"dtype\":\"F32\"";
  const auto at = bytes.find(from);
  ASSERT_NE(at, std::string::npos);
  bytes.replace(at, from.size(), "\"dtype\":\"F64\"");
  std::ofstream(dir / "model.safetensors", std::ios::binary) << bytes;
  const std::string e = error_of([&] { Llama2cModel::load(dir.string()); });
  EXPECT_NE(e.find("model.safetensors"), std::string::npos) << e;
  EXPECT_NE(e.find("F64"), std::string::npos) << e;
}

TEST(HfModel, IndexNamingAnAbsentShardIsRefused) {
  test::TempDir tmp;
  const Tiny t;
  const Tensors w = tiny_weights(t, 11);
  const auto dir = write_tiny(tmp.path() / "m", t, w);
  fs::rename(dir / "model.safetensors", dir / "model-00001-of-00002.safetensors");
  json map = json::object();
  for (const auto& n : names_of(w))
    map[n] = n == "model.norm.weight" ? "model-00002-of-00002.safetensors"
                                      : "model-00001-of-00002.safetensors";
  std::ofstream(dir / "model.safetensors.index.json") << json{{"weight_map", map}}.dump();
  const std::string e = error_of([&] { Llama2cModel::load(dir.string()); });
  EXPECT_NE(e.find("model.safetensors.index.json: weight_map/model.norm.weight"), std::string::npos)
      << e;
  EXPECT_NE(e.find("model-00002-of-00002.safetensors"), std::string::npos) << e;
}

TEST(HfModel, DirectoryWithoutWeightsIsRefused) {
  test::TempDir tmp;
  const Tiny t;
  fs::create_directories(tmp.path() / "m");
  std::ofstream(tmp.path() / "m" / "config.json") << tiny_config(t).dump();
  const std::string e = error_of([&] { Llama2cModel::load((tmp.path() / "m").string()); });
  EXPECT_NE(e.find("model.safetensors"), std::string::npos) << e;
  EXPECT_NE(error_of([&] { Llama2cModel::load(tmp.path().string()); }).find("config.json"),
            std::string::npos);
}

// ------------------------------------------------------------------------------ llama3 RoPE

TEST(HfModel, Llama3RopeFrequencies) {
  // Llama 3.1's rope_scaling (factor 8, low 1, high 4, original 8192; theta 500000, head_dim
  // 128). Wavelength 2π/f: below 8192/4 = 2048 unchanged, above 8192/1 slowed 8x, between a ramp.
  const RopeScaling s{"llama3", 8, 1, 4, 8192};
  const auto f = rope_inv_freq(500000, 128, s);
  ASSERT_EQ(f.size(), 64u);
  EXPECT_DOUBLE_EQ(f[0], 1.0);                                      // wavelength 2π
  EXPECT_NEAR(f[63], std::pow(500000.0, -126.0 / 128) / 8, 1e-15);  // 3.0689e-7
  // Pair 30: f = 500000^(-60/128) = 0.00213112, wavelength 2948.30, between 2048 and 8192:
  // s = (8192/2948.30 - 1)/3 = 0.592849, (1 - s)·f/8 + s·f = 0.00137189 (python, by hand).
  EXPECT_NEAR(f[30], 0.0013718935677611381, 1e-12);
  // Without scaling: theta^(-2i/d).
  EXPECT_NEAR(rope_inv_freq(500000, 128, {})[30], 0.0021311195369119653, 1e-12);
}

TEST(HfModel, Llama3ScaledCheckpointCarriesItsScalingIntoTheRope) {
  test::TempDir tmp;
  const Tiny t;
  const auto dir = write_tiny(tmp.path() / "m", t, tiny_weights(t, 12));
  json c = tiny_config(t);
  c["rope_scaling"] = {{"rope_type", "llama3"},
                       {"factor", 8.0},
                       {"low_freq_factor", 1.0},
                       {"high_freq_factor", 4.0},
                       {"original_max_position_embeddings", 32}};
  std::ofstream(dir / "config.json") << c.dump();
  const auto m = Llama2cModel::load(dir.string());
  EXPECT_EQ(m.rope_scaling().type, "llama3");
  EXPECT_DOUBLE_EQ(m.rope_scaling().factor, 8.0);
  // RopeSpec carries the scaling to the replay and the kernels (tests/simulator/
  // test_replay_llama3.cpp runs such a checkpoint through them).
  EXPECT_EQ(m.rope().scaling.type, "llama3");
  EXPECT_EQ(m.rope().scaling.original_max_position_embeddings, 32u);
}

}  // namespace
}  // namespace kvplan::sim
