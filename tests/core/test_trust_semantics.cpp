// Semantics refused for what they are (issue 30, class 5, the parts outside the simulator):
// a kernel block size no pool can hold, thousands of identical replay configurations, an MLA
// RoPE width RoPE cannot use. Expectations by hand from the rules stated in validate.hpp and
// model.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kvplan/error.hpp"
#include "kvplan/model.hpp"
#include "kvplan/validate.hpp"

namespace kvplan {
namespace {

std::string problems(const SequenceFlags& f) {
  std::string s;
  for (const auto& p : validate_sequence_flags(f)) s += p.field + ": " + p.message + "\n";
  return s;
}

TEST(TrustSemantics, KernelBlockSizesAreBoundedByWhatAPoolHolds) {
  EXPECT_EQ(problems({.block_sizes = {1, 16, 65536}}), "");
  // 2^32 - 1 tokens in one block: std::bad_alloc before this bound.
  const std::string m = problems({.block_sizes = {16, 4294967295u}});
  EXPECT_NE(m.find("--block-size: must be between 1 and 65536 tokens"), std::string::npos) << m;
  EXPECT_NE(m.find("got 4294967295"), std::string::npos) << m;
  EXPECT_NE(problems({.block_sizes = {0}}).find("--block-size"), std::string::npos);
  // A run of 100,000 tokens may use one block of all of them (no more than its own cache).
  EXPECT_EQ(problems({.tokens = 100000, .block_sizes = {100000}}), "");
  EXPECT_NE(problems({.tokens = 100000, .block_sizes = {100001}}).find("between 1 and 100000"),
            std::string::npos);
}

TEST(TrustSemantics, ReplayConfigurationsAreDeduplicatedAndBounded) {
  ReplayGrid g;
  g.formats = {"fp16", "fp16", "int8", "fp16"};
  g.policies.assign(3000, "full");
  g.policies.push_back("h2o:heavy=4,recent=4");
  g.policies.push_back("h2o:recent=4,heavy=4");  // the same policy, spelled the other way round
  g.block_sizes = {16, 16, 32};
  EXPECT_TRUE(dedupe_replay_grid(g).empty());
  EXPECT_EQ(g.formats, (std::vector<std::string>{"fp16", "int8"}));
  EXPECT_EQ(g.policies, (std::vector<std::string>{"full", "h2o:heavy=4,recent=4"}));
  EXPECT_EQ(g.block_sizes, (std::vector<std::uint32_t>{16, 32}));
  // 300 distinct block sizes: 300 > 256 configurations, refused naming the count.
  ReplayGrid big{{"fp16"}, {"full"}, {}};
  for (std::uint32_t b = 1; b <= 300; ++b) big.block_sizes.push_back(b);
  const auto p = dedupe_replay_grid(big);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].field, "--block-size");  // the flag given 300 times
  EXPECT_NE(p[0].message.find("= 300 distinct configurations, more than 256"), std::string::npos)
      << p[0].message;
  // A bad spec is an Error naming its flag, as before.
  ReplayGrid bad{{"fp4"}, {"full"}, {16}};
  EXPECT_THROW(dedupe_replay_grid(bad), Error);
}

TEST(TrustSemantics, AnOddMlaRopeWidthIsRefused) {
  auto json = [](int rope) {
    return R"({"kvplan_model": 1, "id": "mla", "source": "test", "num_layers": 2,
      "num_attention_heads": 16, "num_kv_heads": 1, "head_dim": 128, "max_context": 4096,
      "num_params": 1000000, "weight_dtype": "bf16",
      "mla": {"kv_lora_rank": 512, "qk_rope_head_dim": )" +
           std::to_string(rope) + "}}";
  };
  // DeepSeek-V2's 64 loads: one latent of 512 + 64 = 576 values per token per layer.
  EXPECT_EQ(parse_model_json(json(64), "mla.json").qk_rope_head_dim, 64u);
  try {
    parse_model_json(json(63), "mla.json");
    ADD_FAILURE() << "an odd RoPE width was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/mla/qk_rope_head_dim: RoPE rotates pairs"),
              std::string::npos)
        << e.what();
  }
}

TEST(TrustSemantics, BitsandbytesFourAndEightBitsAtOnceAreRefused) {
  // transformers' BitsAndBytesConfig raises "load_in_4bit and load_in_8bit are both True, but
  // only one can be used at the same time" (quantization_config.py@14257688); one of them loads.
  auto config = [](bool four, bool eight) {
    return std::string(R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2,
        "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 128,
        "vocab_size": 100, "max_position_embeddings": 256,
        "quantization_config": {"quant_method": "bitsandbytes", "load_in_4bit": )") +
           (four ? "true" : "false") + R"(, "load_in_8bit": )" + (eight ? "true" : "false") + "}}";
  };
  EXPECT_EQ(parse_model_json(config(true, false), "c.json").weights.quantization, "bitsandbytes");
  EXPECT_EQ(parse_model_json(config(false, true), "c.json").weights.quantization, "bitsandbytes");
  try {
    parse_model_json(config(true, true), "c.json");
    ADD_FAILURE() << "4- and 8-bit at once were accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("c.json: /quantization_config/load_in_8bit: "
                                         "load_in_4bit and load_in_8bit are both true"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kvplan
