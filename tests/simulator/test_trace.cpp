// Trace files: round trips, synthetic traces, malformed files, replay of traces.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "kvplan/error.hpp"
#include "kvplan/sim/replay.hpp"
#include "kvplan/sim/synth.hpp"
#include "kvplan/sim/trace.hpp"
#include "temp_dir.hpp"
#include "test_model_dir.hpp"

namespace kvplan::sim {
namespace {

// Every file of this test process lives in its own directory, removed when the process exits
// (ctest runs each test in a process of its own).
std::string tmp(const std::string& name) {
  static const kvplan::test::TempDir dir;
  return dir.file(name);
}

// Writes a raw safetensors file: 8-byte length, header text, data.
std::string raw(const std::string& name, const std::string& header, std::size_t data_bytes,
                std::int64_t declared_len = -1) {
  const std::string p = tmp(name);
  std::ofstream os(p, std::ios::binary);
  const std::uint64_t n =
      declared_len >= 0 ? static_cast<std::uint64_t>(declared_len) : header.size();
  os.write(reinterpret_cast<const char*>(&n), 8);
  os << header << std::string(data_bytes, '\0');
  return p;
}

const char* kMeta =
    R"("__metadata__":{"format":"kvplan-trace","version":"1","model":"t","rope_theta":"10000","rope_dims":"4","rope_style":"interleaved"})";

// A valid one-layer trace header: T=2, 1 head, d=4, F32 -> q, k, v 32 bytes each.
std::string good_header(
    const std::string& q = R"({"dtype":"F32","shape":[2,1,4],"data_offsets":[0,32]})",
    const std::string& k = R"({"dtype":"F32","shape":[2,1,4],"data_offsets":[32,64]})",
    const std::string& v = R"({"dtype":"F32","shape":[2,1,4],"data_offsets":[64,96]})") {
  return std::string("{") + kMeta + R"(,"layers.0.q":)" + q + R"(,"layers.0.k":)" + k +
         R"(,"layers.0.v":)" + v + "}";
}

void expect_refused(const std::string& path, const std::vector<std::string>& needles) {
  try {
    TraceFile::open(path);
    FAIL() << "accepted a malformed trace " << path;
  } catch (const Error& e) {
    const std::string w = e.what();
    EXPECT_EQ(e.exit_code(), 2) << w;
    EXPECT_NE(w.find(path), std::string::npos) << "error does not name the file: " << w;
    for (const auto& n : needles)
      EXPECT_NE(w.find(n), std::string::npos) << "missing '" << n << "' in: " << w;
  }
}

TEST(TraceFile, AcceptsTheHandWrittenGoodFile) {
  const auto t = TraceFile::open(raw("good.safetensors", good_header(), 96));
  EXPECT_EQ(t.info().tokens, 2u);
  EXPECT_EQ(t.info().layers, 1u);
  EXPECT_EQ(t.info().rope.dims, 4u);
}

TEST(TraceFile, RefusesMalformedFilesNamingFileAndField) {
  expect_refused(raw("truncated.safetensors", good_header(), 90),
                 {"layers.0.v", "data_offsets", "outside"});
  expect_refused(raw("short.safetensors", "", 0, 0).substr(0), {"header"});
  expect_refused(raw("lying.safetensors", good_header(), 96, 1 << 20), {"header length", "follow"});
  expect_refused(raw("hugeheader.safetensors", good_header(), 96, std::int64_t{1} << 40),
                 {"header length", "limit"});
  expect_refused(raw("overlap.safetensors",
                     good_header(R"({"dtype":"F32","shape":[2,1,4],"data_offsets":[0,32]})",
                                 R"({"dtype":"F32","shape":[2,1,4],"data_offsets":[16,48]})",
                                 R"({"dtype":"F32","shape":[2,1,4],"data_offsets":[48,80]})"),
                     96),
                 {"layers.0.k", "overlaps", "layers.0.q"});
  expect_refused(raw("dtype.safetensors",
                     good_header(R"({"dtype":"F64","shape":[2,1,4],"data_offsets":[0,32]})"), 96),
                 {"layers.0.q", "dtype", "F64"});
  expect_refused(raw("i32.safetensors",
                     good_header(R"({"dtype":"I32","shape":[2,1,4],"data_offsets":[0,32]})"), 96),
                 {"layers.0.q", "dtype", "I32"});
  expect_refused(
      raw("huge.safetensors",
          good_header(R"({"dtype":"F32","shape":[2,1,1099511627776],"data_offsets":[0,32]})"), 96),
      {"layers.0.q", "shape", "absurd"});
  expect_refused(
      raw("overflow.safetensors",
          good_header(
              R"({"dtype":"F32","shape":[4294967296,4294967296,4294967296],"data_offsets":[0,32]})"),
          96),
      {"layers.0.q", "shape"});
  expect_refused(raw("outside.safetensors",
                     good_header(R"({"dtype":"F32","shape":[2,1,4],"data_offsets":[0,32]})",
                                 R"({"dtype":"F32","shape":[2,1,4],"data_offsets":[32,64]})",
                                 R"({"dtype":"F32","shape":[2,1,4],"data_offsets":[1000,1032]})"),
                     96),
                 {"layers.0.v", "outside"});
  expect_refused(raw("badjson.safetensors", good_header().substr(0, 60) + "}}", 96),
                 {"header", "JSON"});
  expect_refused(raw("notjson.safetensors", "[1,2]   ", 0), {"header"});
  expect_refused(raw("sizes.safetensors",
                     good_header(R"({"dtype":"F32","shape":[2,1,4],"data_offsets":[0,16]})",
                                 R"({"dtype":"F32","shape":[2,1,4],"data_offsets":[16,48]})",
                                 R"({"dtype":"F32","shape":[2,1,4],"data_offsets":[48,80]})"),
                     80),
                 {"layers.0.q", "need 32"});
  expect_refused(raw("gap.safetensors", good_header(), 104), {"trailing"});
  expect_refused(raw("shape.safetensors",
                     good_header(R"({"dtype":"F32","shape":[2,1,4],"data_offsets":[0,32]})",
                                 R"({"dtype":"F32","shape":[1,2,4],"data_offsets":[32,64]})"),
                     96),
                 {"layers.0.k", "shape", "disagrees"});
  expect_refused(raw("neg.safetensors",
                     good_header(R"({"dtype":"F32","shape":[-2,1,4],"data_offsets":[0,32]})"), 96),
                 {"layers.0.q", "shape"});
  std::string wrong_format = good_header();
  wrong_format.replace(wrong_format.find("kvplan-trace"), 12, "other-trace!");
  expect_refused(raw("format.safetensors", wrong_format, 96), {"__metadata__/format"});
  std::string no_v =
      std::string("{") + kMeta +
      R"(,"layers.0.q":{"dtype":"F32","shape":[2,1,4],"data_offsets":[0,32]},"layers.0.k":{"dtype":"F32","shape":[2,1,4],"data_offsets":[32,64]}})";
  expect_refused(raw("missing.safetensors", no_v, 64), {"layers.0.v", "missing"});
}

// Regression (fuzz_safetensors): a zero-element tensor (shape [0, 4]) read into an empty span
// passed a null pointer to memcpy (undefined behaviour, flagged by UBSan). An empty read is a
// no-op; one element past its end is refused.
TEST(Safetensors, ZeroElementTensorReadsNothing) {
  const std::string p = raw("zero_elements.safetensors",
                            R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                            R"("e":{"dtype":"F32","shape":[0,4],"data_offsets":[8,8]}})",
                            8);
  const auto f = SafetensorsFile::open(p);
  const TensorInfo* e = f.find("e");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->elements(), 0u);
  std::vector<float> none;
  f.read_f32(*e, 0, none);
  std::vector<float> one(1);
  EXPECT_THROW(f.read_f32(*e, 0, one), Error);
}

TEST(TraceFile, BuilderRoundTripsInEveryDtype) {
  TraceInfo info;
  info.model = "roundtrip";
  info.layers = 2;
  info.q_heads = 4;
  info.kv_heads = 2;
  info.head_dim = 8;
  info.rope = {500000.0, 8, RopeStyle::half};
  TraceBuilder b(info);
  std::vector<float> q(32), k(16), v(16);
  for (int t = 0; t < 5; ++t) {
    for (std::uint32_t l = 0; l < 2; ++l) {
      for (std::size_t i = 0; i < q.size(); ++i) q[i] = 0.25f * static_cast<float>(t + i + l);
      for (std::size_t i = 0; i < k.size(); ++i) k[i] = -0.5f * static_cast<float>(t * i + l);
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = 1.0f / static_cast<float>(1 + t + i);
      b.append(l, q, k, v);
    }
    b.append_token(10 + t);
  }
  for (DType dt : {DType::f32, DType::f16, DType::bf16}) {
    const std::string p = tmp(std::string("rt_") + std::string(to_string(dt)) + ".safetensors");
    b.write(p, dt);
    const auto t = TraceFile::open(p);
    EXPECT_EQ(t.info().tokens, 5u);
    EXPECT_EQ(t.info().dtype, dt);
    EXPECT_EQ(t.info().rope.theta, 500000.0);
    EXPECT_EQ(t.info().rope.style, RopeStyle::half);
    EXPECT_EQ(t.tokens(), (std::vector<std::int32_t>{10, 11, 12, 13, 14}));
    std::vector<float> row(16);
    t.read(TraceTensor::k, 1, 3, row);
    for (std::size_t i = 0; i < row.size(); ++i) {
      const float want = -0.5f * static_cast<float>(3 * i + 1);
      EXPECT_NEAR(row[i], want,
                  dt == DType::bf16 ? 0.01 * std::fabs(want) : 1e-3 * std::fabs(want));
    }
    // The header length is a multiple of 8 minus 8 (Python's safetensors pads the same way).
    std::ifstream is(p, std::ios::binary);
    std::uint64_t n = 0;
    is.read(reinterpret_cast<char*>(&n), 8);
    EXPECT_EQ(n % 8, 0u);
  }
}

TEST(TraceFile, HalfConversionsRoundToNearestEven) {
  for (float x : {0.0f, 1.0f, -2.5f, 65504.0f, 6.1035156e-05f, 5.9604645e-08f, 0.333333f}) {
    EXPECT_EQ(half_to_float(float_to_half(x)),
              half_to_float(float_to_half(half_to_float(float_to_half(x)))));
    EXPECT_EQ(float_to_half(x), kernels::float_to_half(x)) << x;
  }
  EXPECT_EQ(float_to_half(1.0f), 0x3C00);
  EXPECT_EQ(half_to_float(0x0001), 5.9604645e-08f);
  EXPECT_EQ(float_to_bf16(1.0f), 0x3F80);
  for (std::uint32_t h = 0; h < 0x7C00; h += 7)
    EXPECT_EQ(float_to_half(half_to_float(static_cast<std::uint16_t>(h))), h);
}

TEST(Synthetic, IsSeededAndReproducible) {
  SynthOptions o;
  o.tokens = 300;
  o.seed = 5;
  write_synthetic_trace(tmp("s1.safetensors"), o);
  write_synthetic_trace(tmp("s2.safetensors"), o);
  o.seed = 6;
  write_synthetic_trace(tmp("s3.safetensors"), o);
  auto bytes = [](const std::string& p) {
    std::ifstream is(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(is)), {});
  };
  EXPECT_EQ(bytes(tmp("s1.safetensors")), bytes(tmp("s2.safetensors")));
  EXPECT_NE(bytes(tmp("s1.safetensors")), bytes(tmp("s3.safetensors")));
  const auto t = TraceFile::open(tmp("s1.safetensors"));
  EXPECT_EQ(t.info().tokens, 300u);
  EXPECT_EQ(t.info().model, "synthetic");
  o.tokens = SynthOptions::max_tokens + 1;
  EXPECT_THROW(write_synthetic_trace(tmp("s4.safetensors"), o), Error);
}

TEST(Synthetic, SinksAndHeavyHittersShowInTheReplay) {
  SynthOptions o;
  o.tokens = 256;
  o.seed = 3;
  o.heavy_fraction = 0.05;
  const std::string p = tmp("synth_replay.safetensors");
  write_synthetic_trace(p, o);
  const auto t = TraceFile::open(p);
  const std::vector<ReplayConfig> cfgs = {
      parse_config("fp16", "full", 16),
      parse_config("fp16", "streaming:sink=0,window=32", 16),
      parse_config("fp16", "streaming:sink=4,window=28", 16),
      parse_config("fp16", "streaming:sink=4,window=28,positions=cache", 16),
      parse_config("fp16", "h2o:heavy=16,recent=16", 16),
      parse_config("kivi:bits=2,group=32,residual=64", "full", 32),
      parse_config("int8", "snapkv:budget=32,window=8", 5),
  };
  const auto rep = replay_trace(t, cfgs);
  ASSERT_EQ(rep.configs.size(), cfgs.size());
  for (const auto& r : rep.configs) {
    SCOPED_TRACE(r.label);
    EXPECT_TRUE(r.bytes_match) << "step " << r.first_mismatch_step << " predicted "
                               << r.predicted_bytes << " measured " << r.measured_bytes;
    EXPECT_TRUE(std::isnan(r.mean_kl));
    EXPECT_TRUE(std::isfinite(r.rel_error));
  }
  EXPECT_LT(rep.configs[0].rel_error, 1e-2);
  // Sinks carry mass a plain window drops; H2O finds heavy hitters too.
  EXPECT_GT(rep.configs[2].attention_mass, rep.configs[1].attention_mass + 0.05);
  EXPECT_GT(rep.configs[4].attention_mass, rep.configs[1].attention_mass + 0.05);
  // positions=cache re-rotates keys: same tokens kept, different outputs.
  EXPECT_EQ(rep.configs[2].attention_mass, rep.configs[3].attention_mass);
  EXPECT_NE(rep.configs[2].rel_error, rep.configs[3].rel_error);
}

TEST(Capture, ModelTraceReplaysLikeTheModel) {
  KVPLAN_REQUIRE_MODEL();
  const auto m = Llama2cModel::load(test::checkpoint_path());
  const auto tok = Tokenizer::load(test::tokenizer_path(), m.config().vocab_size);
  TraceInfo info{.model = "stories260K",
                 .version = "1",
                 .layers = m.config().n_layers,
                 .q_heads = m.config().n_heads,
                 .kv_heads = m.config().n_kv_heads,
                 .head_dim = m.config().head_size(),
                 .tokens = 0,
                 .dtype = DType::f32,
                 .rope = m.rope(),
                 .metadata = {}};
  TraceBuilder b(info);
  Llama2cRunner run(m);
  ReferenceAttention ref(m);
  CapturingAttention cap(ref, b);
  const auto g = generate(run, cap, tok, {.prompt = "", .steps = 64});
  for (std::size_t i = 0; i < b.rows(0); ++i) b.append_token(g.tokens[i]);
  const std::string p = tmp("capture.safetensors");
  b.write(p, DType::f32);
  const auto t = TraceFile::open(p);
  EXPECT_EQ(t.info().tokens, 64u);
  EXPECT_EQ(t.info().rope.style, RopeStyle::interleaved);
  const auto rep = replay_trace(
      t, {parse_config("fp32", "full", 16), parse_config("fp16", "streaming:sink=4,window=12", 4)});
  EXPECT_LT(rep.configs[0].rel_error, 1e-5);
  EXPECT_NEAR(rep.configs[0].attention_mass, 1.0, 1e-5);
  EXPECT_GT(rep.configs[1].rel_error, 1e-3);
  EXPECT_TRUE(rep.all_bytes_match());
}

}  // namespace
}  // namespace kvplan::sim
