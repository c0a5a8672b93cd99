// Llama-3 RoPE scaling end to end in the simulator: apply_rope's float RoPE with the scaled
// frequencies, the optional trace metadata keys, and a tiny random llama3-scaled Hugging Face
// checkpoint (written here) replayed through the kernels with predicted = measured bytes.
//
// Hand values: theta 10000, dims 8, rope_scaling {llama3, factor 8, low 1, high 4, original 128}
// gives pair frequencies 1, 0.0427512 (the ramp), 0.00125, 0.000125 (derivation in
// tests/kernels/test_rope_llama3.cpp, from transformers' _compute_llama3_parameters,
// modeling_rope_utils.py, commit 0044e3b3).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "kvplan/error.hpp"
#include "kvplan/sim/llama2c.hpp"
#include "kvplan/sim/replay.hpp"
#include "kvplan/sim/safetensors.hpp"
#include "kvplan/sim/trace.hpp"
#include "temp_dir.hpp"

namespace kvplan::sim {
namespace {

const RopeScaling kScaling{"llama3", 8, 1, 4, 128};

template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ReplayLlama3, ApplyRopeUsesTheScaledFrequencies) {
  // Half pairs (i, i + 4) of (1, 1, 1, 1 | 0.5, ...) at position 100: angles 100, 4.27512, 0.125,
  // 0.0125 rad; x_i -> cos a - 0.5 sin a, x_{i+4} -> sin a + 0.5 cos a (cos 4.27512 = -0.423469,
  // sin 4.27512 = -0.905911 -> 0.029486, -1.117645; the rest as in the kernels' test). Float
  // arithmetic: 100 rad carries float rounding of the angle, so 1e-5.
  std::vector<float> x = {1, 1, 1, 1, 0.5f, 0.5f, 0.5f, 0.5f};
  apply_rope({10000.0, 8, RopeStyle::half, kScaling}, x, 100);
  const double want[8] = {1.115502,  0.029486,  0.929860, 0.993672,
                          -0.075206, -1.117645, 0.620774, 0.512461};
  for (int i = 0; i < 8; ++i) EXPECT_NEAR(x[i], want[i], 1e-5) << i;
  // Without scaling pair 1 turns by 10 rad: cos 10 - 0.5 sin 10 = -0.567061.
  std::vector<float> y = {1, 1, 1, 1, 0.5f, 0.5f, 0.5f, 0.5f};
  apply_rope({10000.0, 8, RopeStyle::half}, y, 100);
  EXPECT_NEAR(y[1], -0.567061, 1e-5);
  // The kernels' description of the same RoPE carries the scaling.
  const auto k = kernel_rope({10000.0, 8, RopeStyle::half, kScaling});
  EXPECT_EQ(k.style, kernels::RopeStyle::half);
  EXPECT_EQ(k.llama3.factor, 8.0);
  EXPECT_EQ(k.llama3.original_max_position_embeddings, 128u);
  EXPECT_EQ(kernel_rope({10000.0, 8, RopeStyle::half}).llama3.factor, 0.0);
}

TraceInfo small_info(RopeScaling s) {
  TraceInfo info;
  info.model = "t";
  info.layers = 1;
  info.q_heads = 2;
  info.kv_heads = 1;
  info.head_dim = 8;
  info.rope = {500000.0, 8, RopeStyle::half, s};
  return info;
}

std::string write_small(const test::TempDir& tmp, const TraceInfo& info,
                        const std::string& name = "t.safetensors") {
  TraceBuilder b(info);
  std::vector<float> q(16, 0.25f), kv(8, -0.5f);
  for (int t = 0; t < 3; ++t) b.append(0, q, kv, kv);
  const std::string p = tmp.file(name);
  b.write(p, DType::f32);
  return p;
}

TEST(ReplayLlama3, TraceMetadataRoundTripsAndOldTracesAreUnchanged) {
  test::TempDir tmp;
  const auto t = TraceFile::open(write_small(tmp, small_info(kScaling)));
  const RopeScaling& s = t.info().rope.scaling;
  EXPECT_EQ(s.type, "llama3");
  EXPECT_EQ(s.factor, 8.0);
  EXPECT_EQ(s.low_freq_factor, 1.0);
  EXPECT_EQ(s.high_freq_factor, 4.0);
  EXPECT_EQ(s.original_max_position_embeddings, 128u);
  EXPECT_EQ(t.info().metadata.at("rope_scaling_type"), "llama3");
  EXPECT_EQ(t.info().metadata.at("rope_scaling_factor"), "8");
  EXPECT_EQ(t.info().metadata.at("rope_scaling_original_max_position_embeddings"), "128");
  // A trace without scaling writes none of the keys and reads back without scaling.
  const auto plain = TraceFile::open(write_small(tmp, small_info({}), "plain.safetensors"));
  EXPECT_TRUE(plain.info().rope.scaling.type.empty());
  for (const auto& [k, v] : plain.info().metadata) EXPECT_NE(k.rfind("rope_scaling", 0), 0u) << k;
  // Rewriting a scaled trace's info without scaling drops the stale keys.
  TraceInfo again = t.info();
  again.rope.scaling = {};
  const auto dropped = TraceFile::open(write_small(tmp, again, "dropped.safetensors"));
  EXPECT_TRUE(dropped.info().rope.scaling.type.empty());
  EXPECT_EQ(dropped.info().metadata.count("rope_scaling_factor"), 0u);
}

// Writes a trace whose metadata is `md` over a valid scaled trace's.
std::string with_metadata(const test::TempDir& tmp, const std::map<std::string, std::string>& md,
                          const std::vector<std::string>& drop = {}) {
  const auto good = TraceFile::open(write_small(tmp, small_info(kScaling), "good.safetensors"));
  std::map<std::string, std::string> m = good.info().metadata;
  for (const auto& [k, v] : md) m[k] = v;
  for (const auto& k : drop) m.erase(k);
  std::vector<float> x(16, 0.25f), kv(8, -0.5f);
  std::vector<float> q3, k3;
  for (int t = 0; t < 3; ++t) {
    q3.insert(q3.end(), x.begin(), x.end());
    k3.insert(k3.end(), kv.begin(), kv.end());
  }
  const std::string p = tmp.file("bad.safetensors");
  write_safetensors(p,
                    {{"layers.0.q", DType::f32, {3, 2, 8}, std::as_bytes(std::span(q3))},
                     {"layers.0.k", DType::f32, {3, 1, 8}, std::as_bytes(std::span(k3))},
                     {"layers.0.v", DType::f32, {3, 1, 8}, std::as_bytes(std::span(k3))}},
                    m);
  return p;
}

TEST(ReplayLlama3, BadScalingMetadataIsRefusedNamingTheKey) {
  test::TempDir tmp;
  const auto open_error = [&](const std::map<std::string, std::string>& md,
                              const std::vector<std::string>& drop = {}) {
    const std::string p = with_metadata(tmp, md, drop);
    return error_of([&] { TraceFile::open(p); });
  };
  // The helper's unmodified file is valid (so the refusals below are about the one key).
  EXPECT_EQ(open_error({}), "");
  std::string e = open_error({{"rope_scaling_type", "yarn"}});
  EXPECT_NE(e.find("bad.safetensors: __metadata__/rope_scaling_type"), std::string::npos) << e;
  e = open_error({}, {"rope_scaling_factor"});
  EXPECT_NE(e.find("__metadata__/rope_scaling_factor"), std::string::npos) << e;
  EXPECT_NE(e.find("missing"), std::string::npos) << e;
  e = open_error({{"rope_scaling_factor", "0.5"}});
  EXPECT_NE(e.find("__metadata__/rope_scaling_factor"), std::string::npos) << e;
  e = open_error({{"rope_scaling_factor", "8x"}});
  EXPECT_NE(e.find("__metadata__/rope_scaling_factor"), std::string::npos) << e;
  e = open_error({{"rope_scaling_high_freq_factor", "1"}});
  EXPECT_NE(e.find("__metadata__/rope_scaling_high_freq_factor"), std::string::npos) << e;
  e = open_error({{"rope_scaling_original_max_position_embeddings", "0"}});
  EXPECT_NE(e.find("__metadata__/rope_scaling_original_max_position_embeddings"), std::string::npos)
      << e;
  e = open_error({{"rope_scaling_original_max_position_embeddings", "-3"}});
  EXPECT_NE(e.find("__metadata__/rope_scaling_original_max_position_embeddings"), std::string::npos)
      << e;
}

// ------------------------------------------------------ a tiny llama3-scaled checkpoint

// A random Llama: hidden 16, 2 layers, 2 query heads and 1 KV head of dim 8, vocab 32; rope_theta
// 10000 with llama3 scaling over an original context of 16 tokens, so that over 80 positions
// pairs 1-3 (wavelengths 62.8, 628, 6283 > 16) are slowed 8x and pair 0 (2π < 16/4) is kept.
std::string write_llama3_checkpoint(const test::TempDir& tmp, bool scaled) {
  namespace fs = std::filesystem;
  const fs::path dir = tmp.path() / (scaled ? "llama3" : "plain");
  fs::create_directories(dir);
  std::ofstream cfg(dir / "config.json");
  cfg << R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 16, "intermediate_size": 32,
  "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 8,
  "vocab_size": 32, "max_position_embeddings": 128, "rms_norm_eps": 1e-5,
  "rope_theta": 10000.0, "hidden_act": "silu", "tie_word_embeddings": false)";
  if (scaled)
    cfg << R"(, "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
  "high_freq_factor": 4.0, "original_max_position_embeddings": 16})";
  cfg << "}\n";
  cfg.close();
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-0.5f, 0.5f), g(0.5f, 1.5f);
  std::vector<std::vector<float>> store;
  std::vector<TensorView> views;
  const auto add = [&](const std::string& name, std::vector<std::uint64_t> shape, bool gain) {
    std::uint64_t n = 1;
    for (auto s : shape) n *= s;
    std::vector<float> x(n);
    for (float& e : x) e = gain ? g(rng) : u(rng);
    store.push_back(std::move(x));
    views.push_back({name, DType::f32, shape, {}});
  };
  add("model.embed_tokens.weight", {32, 16}, false);
  for (int l = 0; l < 2; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    add(p + "input_layernorm.weight", {16}, true);
    add(p + "self_attn.q_proj.weight", {16, 16}, false);
    add(p + "self_attn.k_proj.weight", {8, 16}, false);
    add(p + "self_attn.v_proj.weight", {8, 16}, false);
    add(p + "self_attn.o_proj.weight", {16, 16}, false);
    add(p + "post_attention_layernorm.weight", {16}, true);
    add(p + "mlp.gate_proj.weight", {32, 16}, false);
    add(p + "mlp.up_proj.weight", {32, 16}, false);
    add(p + "mlp.down_proj.weight", {16, 32}, false);
  }
  add("model.norm.weight", {16}, true);
  add("lm_head.weight", {32, 16}, false);
  for (std::size_t i = 0; i < views.size(); ++i) views[i].data = std::as_bytes(std::span(store[i]));
  write_safetensors((dir / "model.safetensors").string(), views, {{"format", "pt"}});
  return dir.string();
}

std::vector<std::int32_t> tokens_of(std::size_t n) {
  std::mt19937 rng(9);
  std::uniform_int_distribution<std::int32_t> t(0, 31);
  std::vector<std::int32_t> out(n);
  for (auto& x : out) x = t(rng);
  return out;
}

TEST(ReplayLlama3, ScaledCheckpointReplaysThroughTheKernelsWithExactBytes) {
  test::TempDir tmp;
  const auto m = Llama2cModel::load(write_llama3_checkpoint(tmp, true));
  const RopeSpec r = m.rope();
  EXPECT_EQ(r.scaling.type, "llama3");
  EXPECT_EQ(r.scaling.factor, 8.0);
  EXPECT_EQ(r.scaling.original_max_position_embeddings, 16u);
  EXPECT_EQ(r.style, RopeStyle::half);
  const auto tokens = tokens_of(80);
  const std::vector<ReplayConfig> cfgs = {
      parse_config("fp32", "full", 16),
      parse_config("fp16", "streaming:sink=4,window=20", 7),
      parse_config("int8", "streaming:sink=4,window=20,positions=cache", 16),
      parse_config("fp16", "h2o:heavy=8,recent=12,positions=cache", 16),
      parse_config("kivi:bits=2,group=8,residual=16", "snapkv:budget=24,window=8", 3),
  };
  ReplayOptions opt;
  opt.eval_from = 32;
  const auto rep = replay_model(m, tokens, cfgs, opt);
  ASSERT_EQ(rep.configs.size(), cfgs.size());
  for (const auto& c : rep.configs) {
    SCOPED_TRACE(c.label);
    EXPECT_TRUE(c.bytes_match) << "first mismatch at step " << c.first_mismatch_step;
    EXPECT_EQ(c.predicted_bytes, c.measured_bytes);
    EXPECT_EQ(c.predicted_peak_bytes, c.measured_peak_bytes);
    EXPECT_GT(c.measured_bytes, 0u);
    EXPECT_TRUE(std::isfinite(c.mean_kl));
  }
  // fp32 + full through the kernels follows the model's own full-cache run exactly, scaled
  // frequencies and all; the evicting ones lose something.
  EXPECT_EQ(rep.configs[0].mean_kl, 0.0);
  EXPECT_EQ(rep.configs[0].top1_agreement, 1.0);
  for (std::size_t i = 1; i < rep.configs.size(); ++i) EXPECT_GT(rep.configs[i].mean_kl, 0.0);
}

// Keeps every attention output the inner backend produces, in call order.
class Recording final : public AttentionBackend {
 public:
  explicit Recording(AttentionBackend& inner) : inner_(inner) {}
  void attend(std::uint32_t layer, std::uint64_t pos, std::span<const float> q,
              std::span<const float> k, std::span<const float> v, std::span<float> out) override {
    inner_.attend(layer, pos, q, k, v, out);
    outputs.emplace_back(out.begin(), out.end());
  }
  std::vector<std::vector<float>> outputs;

 private:
  AttentionBackend& inner_;
};

TEST(ReplayLlama3, CapturedTraceCarriesTheScalingAndReplaysTheModelsAttention) {
  test::TempDir tmp;
  const auto m = Llama2cModel::load(write_llama3_checkpoint(tmp, true));
  const auto& c = m.config();
  TraceInfo info;
  info.model = "tiny-llama3";
  info.layers = c.n_layers;
  info.q_heads = c.n_heads;
  info.kv_heads = c.n_kv_heads;
  info.head_dim = c.head_size();
  info.rope = m.rope();
  TraceBuilder b(info);
  Llama2cRunner run(m);
  ReferenceAttention ref(m);
  Recording rec(ref);
  CapturingAttention cap(rec, b);
  const auto tokens = tokens_of(80);
  std::vector<float> scaled_logits, plain_logits;
  for (std::size_t p = 0; p < tokens.size(); ++p) {
    const auto l = run.forward(tokens[p], p, cap);
    if (p + 1 == tokens.size()) scaled_logits.assign(l.begin(), l.end());
  }
  b.write(tmp.file("t.safetensors"), DType::f32);
  const auto t = TraceFile::open(tmp.file("t.safetensors"));
  EXPECT_EQ(t.info().rope.scaling.type, "llama3");
  EXPECT_EQ(t.info().rope.scaling.original_max_position_embeddings, 16u);
  // The replay rotates the stored pre-RoPE q and k with the trace's (scaled) RoPE and reproduces
  // the model's attention outputs (float32 rounding only).
  const auto rep = replay_trace(t, {parse_config("fp32", "full", 16)});
  EXPECT_LT(rep.configs[0].rel_error, 1e-5);
  // The trace's q, k, v through llama2.c-style attention with the RoPE read back from the file
  // give the model's own attention outputs bit for bit; with the scaling dropped they do not.
  const auto attend_trace = [&](RopeSpec rope) {
    ReferenceAttention again(info.layers, info.q_heads, info.kv_heads, info.head_dim, rope);
    std::vector<float> q(t.info().q_width()), k(t.info().kv_width()), v(t.info().kv_width());
    std::vector<std::vector<float>> outs;
    for (std::uint64_t p = 0; p < t.info().tokens; ++p)
      for (std::uint32_t l = 0; l < info.layers; ++l) {
        t.read(TraceTensor::q, l, p, q);
        t.read(TraceTensor::k, l, p, k);
        t.read(TraceTensor::v, l, p, v);
        std::vector<float> o(q.size());
        again.attend(l, p, q, k, v, o);
        outs.push_back(o);
      }
    return outs;
  };
  ASSERT_EQ(rec.outputs.size(), 160u);
  EXPECT_EQ(attend_trace(t.info().rope), rec.outputs);
  RopeSpec unscaled = t.info().rope;
  unscaled.scaling = {};
  EXPECT_NE(attend_trace(unscaled), rec.outputs);
  // The same weights without rope_scaling give other logits at position 79 (the scaling is used).
  const auto plain = Llama2cModel::load(write_llama3_checkpoint(tmp, false));
  EXPECT_TRUE(plain.rope().scaling.type.empty());
  Llama2cRunner run2(plain);
  ReferenceAttention ref2(plain);
  for (std::size_t p = 0; p < tokens.size(); ++p) {
    const auto l = run2.forward(tokens[p], p, ref2);
    if (p + 1 == tokens.size()) plain_logits.assign(l.begin(), l.end());
  }
  double diff = 0;
  for (std::size_t i = 0; i < plain_logits.size(); ++i)
    diff = std::max(diff, static_cast<double>(std::fabs(plain_logits[i] - scaled_logits[i])));
  EXPECT_GT(diff, 1e-3);
}

}  // namespace
}  // namespace kvplan::sim
