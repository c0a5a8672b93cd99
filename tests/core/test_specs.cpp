// Spec strings (formats, policies) and kvplan model JSON: what parses, what is refused and how the
// refusal names the field.
#include <gtest/gtest.h>

#include <string>

#include "kvplan/error.hpp"
#include "kvplan/kv_format.hpp"
#include "kvplan/model.hpp"
#include "kvplan/policy.hpp"
#include "kvplan/report.hpp"

namespace kvplan {
namespace {

// Runs f, expects an Error, returns its message.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 2);
    return e.what();
  }
  ADD_FAILURE() << "no Error thrown";
  return "";
}

TEST(KvFormatSpec, ParsesEveryName) {
  EXPECT_EQ(parse_kv_format("fp32").dtype, KvDtype::fp32);
  EXPECT_EQ(parse_kv_format("bf16").dtype, KvDtype::bf16);
  EXPECT_EQ(parse_kv_format("fp8").dtype, KvDtype::fp8_e4m3);
  EXPECT_EQ(parse_kv_format("fp8_e5m2").dtype, KvDtype::fp8_e5m2);
  EXPECT_EQ(parse_kv_format("int8").dtype, KvDtype::int8);
  const auto k = parse_kv_format("kivi:bits=4,group=64,residual=256");
  EXPECT_EQ(k.dtype, KvDtype::kivi);
  EXPECT_EQ(k.bits, 4u);
  EXPECT_EQ(k.group, 64u);
  EXPECT_EQ(k.residual, 256u);
  EXPECT_EQ(to_string(k), "kivi:bits=4,group=64,residual=256");
  EXPECT_EQ(parse_kv_format(to_string(k)), k);
  // defaults: bits 2, group 32, residual 128
  EXPECT_EQ(to_string(parse_kv_format("kivi")), "kivi:bits=2,group=32,residual=128");
}

TEST(KvFormatSpec, RefusesBadSpecsNamingTheField) {
  EXPECT_NE(error_of([] { parse_kv_format("fp12"); }).find("unknown KV format 'fp12'"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_kv_format("kivi:bits=3"); }).find("kv-dtype.bits"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse_kv_format("kivi:bits=2,group=32,residual=100");
            }).find("kv-dtype.residual"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_kv_format("kivi:group=0"); }).find("kv-dtype.group"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_kv_format("kivi:bits=2,bits=4"); }).find("given twice"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_kv_format("kivi:colour=red"); }).find("unknown kivi option"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_kv_format("fp16:bits=2"); }).find("takes no options"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_kv_format("kivi:bits=-2"); }).find("whole number"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_kv_format("kivi:bits=2,"); }).find("trailing"), std::string::npos);
}

TEST(KvFormatSpec, StreamValidation) {
  const auto k = parse_kv_format("kivi:bits=2,group=32,residual=128");
  EXPECT_NE(error_of([&] {
              validate_stream(k, StreamRole::value, 48, 16, "m.json");
            }).find("must divide the head dim"),
            std::string::npos);
  EXPECT_NE(
      error_of([&] { validate_stream(k, StreamRole::latent, 576, 16, "m.json"); }).find("MLA"),
      std::string::npos);
  EXPECT_NE(error_of([] {
              validate_stream(KvFormat{}, StreamRole::key, 128, 0, "x");
            }).find("block_size"),
            std::string::npos);
  EXPECT_NO_THROW(validate_stream(k, StreamRole::key, 128, 16, "x"));
}

TEST(PolicySpec, RetainedCounts) {
  EXPECT_EQ(retained(parse_policy("full"), 12345), 12345u);
  EXPECT_EQ(retained(parse_policy("streaming:sink=4,window=1020"), 8192), 1024u);
  EXPECT_EQ(retained(parse_policy("streaming:sink=4,window=1020"), 100), 100u);
  EXPECT_EQ(retained(parse_policy("h2o:heavy=64,recent=64"), 1000), 128u);
  // keep 0.2 · 1000 = 200, recent 0.1 · 1000 = 100 (exact decimals, no float rounding)
  EXPECT_EQ(retained(parse_policy("h2o:keep=0.2,recent=0.1"), 1000), 300u);
  // 0.3 · 10 = 3 exactly: a binary double would give 2.9999... for some inputs
  EXPECT_EQ(retained(parse_policy("h2o:keep=0.3,recent=0.0001"), 10), 3u);
  // tiny fractions still keep the current token
  EXPECT_EQ(retained(parse_policy("h2o:keep=0.0001,recent=0.0001"), 10), 1u);
  EXPECT_EQ(retained(parse_policy("snapkv:budget=1024"), 8192), 1024u);
  EXPECT_EQ(retained(parse_policy("snapkv:budget=1024"), 8192, 8000), 1024u + 192);
  EXPECT_EQ(retained(parse_policy("snapkv:budget=1024"), 500, 400), 500u);
  // before the prompt ends nothing is compressed
  EXPECT_EQ(retained(parse_policy("snapkv:budget=64"), 100, 200), 100u);
  EXPECT_EQ(retained(parse_policy("snapkv:budget=64"), 200, 200), 64u);
  // Regression (fuzz_policy): keep=1.0 plus recent tokens at n near 2^64 wrapped the sum to 0.
  constexpr std::uint64_t kHuge = ~std::uint64_t{0};
  EXPECT_EQ(retained(parse_policy("h2o:heavy=1.,recent=1"), kHuge), kHuge);
  EXPECT_EQ(retained(parse_policy("h2o:keep=0.5,recent=1099511627776"), kHuge),
            kHuge / 2 + 1099511627776u);
  EXPECT_EQ(retained(parse_policy("h2o:heavy=1.,recent=1"), 5), 5u);
}

TEST(PolicySpec, FractionalH2oBudgetGrowsAtMostOneTokenPerStep) {
  // floor(0.2 n) + floor(0.1 n) would jump by 2 at n = 10 (1 + 0 -> 2 + 1); a cache that gets one
  // token per step could not follow. The total is floor(0.3 n) instead.
  const auto p = parse_policy("h2o:keep=0.2,recent=0.1");
  std::uint64_t prev = retained(p, 1);
  for (std::uint64_t n = 2; n < 5000; ++n) {
    const std::uint64_t r = retained(p, n);
    ASSERT_LE(r, prev + 1) << n;
    ASSERT_GE(r, prev) << n;
    const auto b = h2o_budget(p, n);
    ASSERT_EQ(b.heavy, n / 5) << n;  // floor(0.2 n)
    ASSERT_EQ(b.heavy + b.recent, std::max<std::uint64_t>(1, n * 3 / 10)) << n;
    prev = r;
  }
  EXPECT_THROW(parse_policy("h2o:keep=0.7,recent=0.4"), Error);
}

TEST(PolicySpec, OptionsAndRoundTrip) {
  const auto p =
      parse_policy("snapkv:budget=256,window=16,kernel=5,pool=avg,gqa=max,positions=cache");
  EXPECT_EQ(p.kind, PolicyKind::snapkv);
  EXPECT_EQ(p.window, 16u);
  EXPECT_EQ(p.kernel, 5u);
  EXPECT_EQ(p.pool, PoolKind::avg);
  EXPECT_EQ(p.gqa, GqaReduce::max);
  EXPECT_EQ(p.positions, PositionMode::cache);
  EXPECT_EQ(parse_policy(to_string(p)), p);
  const auto h = parse_policy("h2o:keep=0.25,recent=0.05,gqa=mean");
  EXPECT_EQ(to_string(h), "h2o:keep=0.25,recent=0.05,gqa=mean");
  EXPECT_EQ(parse_policy(to_string(h)), h);
  EXPECT_EQ(parse_policy("snapkv:budget=64").window, 32u);
  EXPECT_EQ(parse_policy("snapkv:budget=64").kernel, 7u);
}

TEST(PolicySpec, RefusesBadSpecs) {
  EXPECT_NE(error_of([] { parse_policy("lru"); }).find("unknown retention policy"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_policy("h2o:heavy=4"); }).find("recent"), std::string::npos);
  EXPECT_NE(error_of([] { parse_policy("h2o:heavy=4,keep=0.1,recent=2"); }).find("not both"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_policy("h2o:keep=1.5,recent=2"); }).find("policy.keep"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_policy("snapkv:budget=16"); }).find("observation window"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_policy("snapkv:budget=64,kernel=4"); }).find("odd"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_policy("streaming:sink=0,window=0"); }).find("current token"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_policy("full:window=3"); }).find("takes no options"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_policy("streaming:gqa=sum"); }).find("unknown option"),
            std::string::npos);
}

const char* kGood = R"({"kvplan_model": 1, "id": "tiny", "source": "test", "num_layers": 4,
  "num_attention_heads": 8, "num_kv_heads": 2, "head_dim": 64, "max_context": 4096,
  "num_params": 1000000, "weight_dtype": "bf16",
  "attention": {"type": "pattern", "window": 512, "pattern": ["sliding", "sliding", "full"]}})";

TEST(ModelJson, ParsesPatterns) {
  const auto m = parse_model_json(kGood, "tiny.json");
  ASSERT_EQ(m.layers.size(), 4u);
  EXPECT_EQ(m.layers[0].kind, AttentionKind::sliding);
  EXPECT_EQ(m.layers[1].kind, AttentionKind::sliding);
  EXPECT_EQ(m.layers[2].kind, AttentionKind::full);
  EXPECT_EQ(m.layers[3].kind, AttentionKind::sliding);
  EXPECT_EQ(m.layers[3].window, 512u);
  EXPECT_EQ(m.head_dim_v, 64u);
}

std::string with(const std::string& from, const std::string& to) {
  std::string s = kGood;
  const auto pos = s.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  return s.replace(pos, from.size(), to);
}

TEST(ModelJson, RefusalsNameFileAndField) {
  auto msg = [](const std::string& text) {
    return error_of([&] { parse_model_json(text, "tiny.json"); });
  };
  EXPECT_NE(
      msg(with("\"num_kv_heads\": 2", "\"num_kv_heads\": 3")).find("tiny.json: /num_kv_heads"),
      std::string::npos);
  EXPECT_NE(msg(with("\"num_layers\": 4,", "")).find("/num_layers: missing required field"),
            std::string::npos);
  EXPECT_NE(
      msg(with("\"head_dim\": 64", "\"head_dim\": \"64\"")).find("/head_dim: expected a whole"),
      std::string::npos);
  EXPECT_NE(
      msg(with("\"head_dim\": 64", "\"head_dim\": -64")).find("/head_dim: must not be negative"),
      std::string::npos);
  EXPECT_NE(msg(with("\"head_dim\": 64", "\"head_dim\": 0")).find("/head_dim"), std::string::npos);
  EXPECT_NE(msg(with("\"head_dim\": 64", "\"head_dim\": 64, \"head_dm\": 3"))
                .find("/head_dm: unknown field"),
            std::string::npos);
  EXPECT_NE(msg(with("\"bf16\"", "\"bf15\"")).find("/weight_dtype"), std::string::npos);
  EXPECT_NE(
      msg(with("\"sliding\", \"sliding\"", "\"sliding\", \"slidng\"")).find("/attention/pattern/1"),
      std::string::npos);
  EXPECT_NE(msg(with("\"window\": 512,", "")).find("/attention/window: missing"),
            std::string::npos);
  EXPECT_NE(msg(with("\"kvplan_model\": 1", "\"kvplan_model\": 2")).find("unsupported schema"),
            std::string::npos);
  EXPECT_NE(msg("{\"kvplan_model\": 1,").find("invalid JSON"), std::string::npos);
  EXPECT_NE(msg("[1, 2]").find("expected a JSON object"), std::string::npos);
  EXPECT_NE(msg("{}").find("/kvplan_model"), std::string::npos);
  EXPECT_NE(msg(with("\"num_params\": 1000000", "\"num_params\": 1e400")).find("invalid JSON"),
            std::string::npos);
  EXPECT_NE(msg(with("\"max_context\": 4096", "\"max_context\": 4096.5")).find("whole number"),
            std::string::npos);
}

// A model without a KV cache is said so ("attention": {"type": "none"}); the same layers given
// any other way are refused, and "none" beside a cache is a contradiction.
TEST(ModelJson, AttentionFreeOnlyWhenDeclared) {
  const std::string none = R"("attention": {"type": "none"})";
  const std::string pattern =
      R"("attention": {"type": "pattern", "window": 512, "pattern": ["sliding", "sliding", "full"]})";
  const auto m = parse_model_json(with(pattern, none), "tiny.json");
  EXPECT_TRUE(m.attention_free);
  ASSERT_EQ(m.layers.size(), 4u);
  for (const auto& l : m.layers) EXPECT_EQ(l.kind, AttentionKind::none);
  EXPECT_FALSE(parse_model_json(kGood, "tiny.json").attention_free);
  auto msg = [](const std::string& text) {
    return error_of([&] { parse_model_json(text, "tiny.json"); });
  };
  const std::string all_none = R"("attention": {"type": "pattern", "pattern": ["none"]})";
  const std::string refused = msg(with(pattern, all_none));
  EXPECT_NE(refused.find("tiny.json: /attention: no layer holds a KV cache"), std::string::npos)
      << refused;
  EXPECT_NE(refused.find("\"type\": \"none\""), std::string::npos) << refused;
  EXPECT_NE(msg(with(pattern, none + R"(, "mtp_layers": 1)")).find("/attention: declared"),
            std::string::npos);
  EXPECT_NE(msg(with(pattern, R"("mla": {"kv_lora_rank": 512, "qk_rope_head_dim": 64}, )" + none))
                .find("/attention/type: an MLA model caches its latent"),
            std::string::npos);
}

TEST(ModelJson, UnknownPresetListsTheKnownOnes) {
  const auto m = error_of([] { load_model("llama-9"); });
  EXPECT_NE(m.find("llama-3.1-8b"), std::string::npos);
}

TEST(Report, HumanUnitsAndTables) {
  EXPECT_EQ(human_bytes(512), "512 B");
  EXPECT_EQ(human_bytes(1073741824), "1.00 GiB (1.07 GB)");
  EXPECT_EQ(grouped(1048576), "1,048,576");
  EXPECT_EQ(grouped(999), "999");
  Table t{{"a", "b"}, {{"x|y", "1,2"}}};
  EXPECT_EQ(render_markdown(t), "| a | b |\n| --- | ---: |\n| x\\|y | 1,2 |\n");
  EXPECT_EQ(render_csv(t), "a,b\nx|y,\"1,2\"\n");
  EXPECT_THROW(parse_output_format("yaml", {OutputFormat::table}), Error);
}

}  // namespace
}  // namespace kvplan
