#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "kvplan/error.hpp"
#include "kvplan/sim/llama2c.hpp"
#include "temp_dir.hpp"
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

// llama2.c's encode as it was written (and as kvplan had it): the quadratic merge loop, kept here
// as the reference the O(N log N) encode must match id for id.
std::vector<std::int32_t> encode_reference(const std::string& tokenizer_file, std::uint32_t vocab,
                                           const std::string& text) {
  std::ifstream in(tokenizer_file, std::ios::binary);
  std::int32_t max_len = 0;
  in.read(reinterpret_cast<char*>(&max_len), 4);
  std::vector<std::string> pieces(vocab);
  std::vector<float> scores(vocab);
  std::map<std::string, std::int32_t> ids;  // first (lowest) id of each piece, as lookup()
  for (std::uint32_t i = 0; i < vocab; ++i) {
    std::int32_t len = 0;
    in.read(reinterpret_cast<char*>(&scores[i]), 4);
    in.read(reinterpret_cast<char*>(&len), 4);
    pieces[i].resize(static_cast<std::size_t>(len));
    in.read(pieces[i].data(), len);
    ids.emplace(pieces[i], static_cast<std::int32_t>(i));
  }
  const auto lookup = [&](const std::string& s) {
    const auto it = ids.find(s);
    return it == ids.end() ? -1 : it->second;
  };
  std::vector<std::int32_t> tokens{1};
  if (!text.empty() && lookup(" ") >= 0) tokens.push_back(lookup(" "));
  std::string buf;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) != 0x80) buf.clear();
    buf.push_back(static_cast<char>(c));
    if (i + 1 < text.size() && (static_cast<unsigned char>(text[i + 1]) & 0xC0) == 0x80 &&
        buf.size() < 4)
      continue;
    if (const std::int32_t id = lookup(buf); id >= 0) {
      tokens.push_back(id);
    } else {
      for (unsigned char b : buf) tokens.push_back(static_cast<std::int32_t>(b) + 3);
    }
    buf.clear();
  }
  while (true) {
    float best = -1e10f;
    std::int32_t best_id = -1;
    std::size_t best_i = 0;
    for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
      const std::int32_t id = lookup(pieces[tokens[i]] + pieces[tokens[i + 1]]);
      if (id >= 0 && scores[id] > best) {
        best = scores[id];
        best_id = id;
        best_i = i;
      }
    }
    if (best_id < 0) break;
    tokens[best_i] = best_id;
    tokens.erase(tokens.begin() + static_cast<std::ptrdiff_t>(best_i) + 1);
  }
  return tokens;
}

TEST(Llama2c, EncodeMatchesTheQuadraticReference) {
  KVPLAN_REQUIRE_MODEL();
  const auto tok = Tokenizer::load(test::tokenizer_path(), 512);
  for (const std::string& text :
       {std::string(kGreedy), std::string("Once upon a time, there was a little girl named Lily."),
        std::string(""), std::string(" "), std::string("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
        std::string("the the the the the the the the"),
        std::string("Tom and Ben\nwent to the park!\tThey saw a dog. \"Hi,\" said Tom. 123 45."),
        std::string("caf\xc3\xa9 na\xc3\xafve \xf0\x9f\x99\x82 \xe6\x97\xa5\xe6\x9c\xac \xff\xfe")})
    EXPECT_EQ(tok.encode(text, true, false), encode_reference(test::tokenizer_path(), 512, text))
        << text;
  // a longer story: every sentence of the known text, many times over, with varied spacing
  std::string story;
  for (int i = 0; i < 40; ++i) story += std::string(kGreedy) + (i % 3 ? " " : "\n\n");
  EXPECT_EQ(tok.encode(story, true, false), encode_reference(test::tokenizer_path(), 512, story));
}

TEST(Llama2c, EncodeIsNotQuadratic) {
  KVPLAN_REQUIRE_MODEL();
  const auto tok = Tokenizer::load(test::tokenizer_path(), 512);
  std::string prompt;
  while (prompt.size() < 34000) prompt += std::string(kGreedy) + " ";
  const auto t0 = std::chrono::steady_clock::now();
  const auto ids = tok.encode(prompt, true, false);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GT(ids.size(), 5000u);
  EXPECT_LT(secs, 2.0) << "a 34 kB prompt took " << secs << " s to tokenize (was over 20 s)";
  EXPECT_EQ(tok.detokenize(ids), prompt);
}

class BadFile : public ::testing::Test {
 protected:
  kvplan::test::TempDir scratch;  // removed with the fixture
  std::string dir = scratch.path().string();
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

TEST_F(BadFile, ACheckpointLargerThanHalfTheMemoryIsRefusedBeforeItIsRead) {
  // A sparse 37 GiB file with a valid header (issue 30: a 26 GB checkpoint ended in
  // std::bad_alloc). llama2.c's layout (run.c memory_map_weights), shared classifier, in floats:
  //   embedding 32000·8192 = 262,144,000; rms_att + rms_ffn 2·10·8192 = 163,840;
  //   wq + wo 2·10·8192·8192 = 1,342,177,280; wk + wv (kv_dim 8192) 1,342,177,280;
  //   w1 + w2 + w3 3·10·8192·28672 = 7,046,430,720; rms_final 8192; RoPE table 2048·128 =
  //   262,144 — 9,993,363,456 floats, 39,973,453,824 bytes + the 28-byte header.
  const std::uint64_t bytes = 28 + std::uint64_t{9993363456} * 4;
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  const std::uint64_t memory = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
  if (pages <= 0 || page <= 0 || (bytes - 28) <= memory / 2)
    GTEST_SKIP() << "needs a machine with less than " << 2 * (bytes - 28)
                 << " bytes of memory to refuse 37 GiB of weights; this one has " << memory;
  const std::string p = write("sparse.bin", header(8192, 28672, 10, 64, 64, 32000, 2048));
  std::filesystem::resize_file(p, bytes);  // sparse: no disk, no memory
  try {
    Llama2cModel::load(p);
    FAIL() << "loaded 37 GiB of weights";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(p + ": weights: need 39973453824 bytes of memory"),
              std::string::npos)
        << e.what();
  }
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
