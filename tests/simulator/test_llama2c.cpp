#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "kvplan/error.hpp"
#include "kvplan/sim/llama2c.hpp"
#include "test_model_dir.hpp"

namespace kvplan::sim {
namespace {

constexpr const char* kGreedy =
    "Once upon a time, there was a little girl named Lily. She loved to play outside in the park. "
    "One day, she saw a big, red ball. She wanted to play with it, but it was too high.";

TEST(Llama2c, LoadsStories260KHeader) {
  KVPLAN_REQUIRE_MODEL();
  const auto m = Llama2cModel::load(test::checkpoint_path());
  const auto& c = m.config();
  EXPECT_EQ(c.dim, 64u);
  EXPECT_EQ(c.hidden_dim, 172u);
  EXPECT_EQ(c.n_layers, 5u);
  EXPECT_EQ(c.n_heads, 8u);
  EXPECT_EQ(c.n_kv_heads, 4u);
  EXPECT_EQ(c.vocab_size, 512u);
  EXPECT_EQ(c.seq_len, 512u);
  EXPECT_TRUE(c.shared_classifier);
  EXPECT_EQ(c.head_size(), 8u);
}

TEST(Llama2c, GreedyFromBosReproducesTheKnownText) {
  KVPLAN_REQUIRE_MODEL();
  const auto m = Llama2cModel::load(test::checkpoint_path());
  const auto tok = Tokenizer::load(test::tokenizer_path(), m.config().vocab_size);
  Llama2cRunner run(m);
  ReferenceAttention cache(m);
  const auto g = generate(run, cache, tok, {.prompt = "", .steps = 256});
  // The README's text is the first paragraph; greedy decoding then continues after a newline.
  ASSERT_NE(g.text.find('\n'), std::string::npos) << g.text;
  EXPECT_EQ(g.text.substr(0, g.text.find('\n')), kGreedy);
  EXPECT_EQ(g.tokens[0], 1);
}

TEST(Llama2c, EncodeThenDetokenizeRoundTrips) {
  KVPLAN_REQUIRE_MODEL();
  const auto tok = Tokenizer::load(test::tokenizer_path(), 512);
  const std::string text = "Once upon a time, there was a little girl named Lily.";
  const auto ids = tok.encode(text, true, false);
  ASSERT_GT(ids.size(), 3u);
  EXPECT_EQ(ids[0], 1);
  EXPECT_EQ(tok.detokenize(ids), text);
  // A byte outside the vocabulary falls back to <0xXX> tokens and decodes back to the byte.
  const auto bytes = tok.encode("\xc3\xa9", false, false);
  std::string back;
  for (std::size_t i = 0; i < bytes.size(); ++i) back += tok.decode(i ? bytes[i - 1] : 0, bytes[i]);
  EXPECT_EQ(back, " \xc3\xa9");
}

class BadFile : public ::testing::Test {
 protected:
  std::string dir = ::testing::TempDir();
  std::string write(const std::string& name, const std::string& bytes) {
    const std::string p = dir + "/" + name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
};

std::string header(std::int32_t dim, std::int32_t hid, std::int32_t L, std::int32_t H,
                   std::int32_t Hkv, std::int32_t V, std::int32_t seq) {
  std::int32_t h[7] = {dim, hid, L, H, Hkv, V, seq};
  return std::string(reinterpret_cast<const char*>(h), 28);
}

TEST_F(BadFile, CheckpointsAreRefusedWithTheFieldNamed) {
  auto expect = [&](const std::string& bytes, const std::string& what) {
    const std::string p = write("bad.bin", bytes);
    try {
      Llama2cModel::load(p);
      FAIL() << "accepted a bad checkpoint (" << what << ")";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  expect("abc", "header");
  expect(header(64, 172, 5, 8, 4, 512, 512), "file size");   // no weights
  expect(header(64, 172, 5, 8, 3, 512, 512), "n_kv_heads");  // 3 does not divide 8
  expect(header(64, 172, -5, 8, 4, 512, 512), "n_layers");   // negative
  expect(header(1 << 30, 172, 5, 8, 4, 512, 512), "dim");    // absurd
  expect(header(64, 172, 5, 8, 4, 512, 512) + std::string(1000, '\0'), "file size");
  if (test::have_model()) {  // a truncated real checkpoint
    std::ifstream is(test::checkpoint_path(), std::ios::binary);
    std::string all((std::istreambuf_iterator<char>(is)), {});
    expect(all.substr(0, all.size() - 4), "file size");
  }
}

TEST_F(BadFile, TokenizersAreRefusedWithTheFieldNamed) {
  std::string t;
  std::int32_t max_len = 4, len = 9;
  float score = 0;
  t.append(reinterpret_cast<const char*>(&max_len), 4);
  t.append(reinterpret_cast<const char*>(&score), 4);
  t.append(reinterpret_cast<const char*>(&len), 4);
  const std::string p = write("bad_tok.bin", t);
  try {
    Tokenizer::load(p, 2);
    FAIL() << "accepted a bad tokenizer";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("token 0 /length"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Tokenizer::load(write("short_tok.bin", "ab"), 2), Error);
}

TEST_F(BadFile, TokenFilesNameTheLine) {
  const std::string p = write("tokens.txt", "1 2 3\n4 x 5\n");
  try {
    read_token_file(p, 512);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_token_file(write("ok.txt", " 1 2\n\n3 "), 512),
            (std::vector<std::int32_t>{1, 2, 3}));
  EXPECT_THROW(read_token_file(write("big.txt", "1 600"), 512), Error);
}

}  // namespace
}  // namespace kvplan::sim
