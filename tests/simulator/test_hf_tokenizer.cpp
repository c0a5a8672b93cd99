// HfTokenizer: Hugging Face tokenizer.json BPE tokenizers. Expected ids come from the real
// TinyStories-656K tokenizer.json, traced by hand through its merges (the steps are in the
// comments), from small tokenizer.json files written here whose ids follow by hand, and from
// published splits and ids (huggingface/tokenizers' own tests, GPT-2's vocabulary).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "kvplan/error.hpp"
#include "kvplan/sim/hf_tokenizer.hpp"
#include "temp_dir.hpp"
#include "test_model_dir.hpp"

namespace {

using kvplan::Error;
using kvplan::sim::HfTokenizer;
using kvplan::sim::regex_split;
using kvplan::sim::SplitRegex;
using Ids = std::vector<std::int32_t>;
using Strs = std::vector<std::string>;

Strs split(std::string_view text, SplitRegex re) {
  Strs out;
  for (auto s : regex_split(text, re)) out.emplace_back(s);
  return out;
}

// ------------------------------------------------------------------ fixtures

std::string json_str(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\', out += c;
    } else if (u < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string utf8(char32_t cp) {
  std::string s;
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else if (cp < 0x800) {
    s += static_cast<char>(0xC0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    s += static_cast<char>(0xE0 | (cp >> 12));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return s;
}

struct Spec {
  std::vector<std::pair<std::string, int>> vocab;
  std::vector<std::string> merges;  // "a b"
  bool merges_as_pairs = false;
  std::string model_extra;  // more keys of "model", each ending in ','
  std::string added = "[]", normalizer = "null", pre = "null", post = "null", decoder = "null";

  std::string json() const {
    std::string v = "{";
    for (std::size_t i = 0; i < vocab.size(); ++i)
      v += (i ? "," : "") + json_str(vocab[i].first) + ":" + std::to_string(vocab[i].second);
    v += "}";
    std::string m = "[";
    for (std::size_t i = 0; i < merges.size(); ++i) {
      m += i ? "," : "";
      if (merges_as_pairs) {
        const auto sp = merges[i].find(' ');
        m += "[" + json_str(merges[i].substr(0, sp)) + "," + json_str(merges[i].substr(sp + 1)) +
             "]";
      } else {
        m += json_str(merges[i]);
      }
    }
    m += "]";
    return R"({"version":"1.0","truncation":null,"padding":null,"added_tokens":)" + added +
           R"(,"normalizer":)" + normalizer + R"(,"pre_tokenizer":)" + pre +
           R"(,"post_processor":)" + post + R"(,"decoder":)" + decoder +
           R"(,"model":{"type":"BPE","dropout":null,)" + model_extra + R"("vocab":)" + v +
           R"(,"merges":)" + m + "}}";
  }
};

std::string write(const kvplan::test::TempDir& dir, const std::string& text,
                  const std::string& name = "tokenizer.json") {
  const std::string p = dir.file(name);
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

const std::string kMeta = "\xE2\x96\x81";  // "▁"

// A SentencePiece-style BPE as Llama 2's tokenizer.json has it: <unk> <s> </s> (ids 0-2, not
// normalized), the 256 byte tokens <0x00>..<0xFF> (ids 3..258: byte b is id 3 + b), then
// ▁ 259, a 260, b 261, ▁a 262, ab 263, ▁ab 264; merges ranked "▁ a" 0, "a b" 1, "▁a b" 2.
Spec sentencepiece_spec() {
  Spec s;
  s.vocab = {{"<unk>", 0}, {"<s>", 1}, {"</s>", 2}};
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    s.vocab.emplace_back(name, 3 + b);
  }
  s.vocab.insert(
      s.vocab.end(),
      {{kMeta, 259}, {"a", 260}, {"b", 261}, {kMeta + "a", 262}, {"ab", 263}, {kMeta + "ab", 264}});
  s.merges = {kMeta + " a", "a b", kMeta + "a b"};
  s.model_extra = R"("unk_token":"<unk>","fuse_unk":true,"byte_fallback":true,)";
  s.added =
      R"([{"id":0,"content":"<unk>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},)"
      R"({"id":1,"content":"<s>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},)"
      R"({"id":2,"content":"</s>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true}])";
  s.normalizer = R"({"type":"Sequence","normalizers":[{"type":"Prepend","prepend":"▁"},)"
                 R"({"type":"Replace","pattern":{"String":" "},"content":"▁"}]})";
  s.post = R"({"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<s>","type_id":0}},)"
           R"({"Sequence":{"id":"A","type_id":0}}],"pair":[],"special_tokens":{"<s>":{"id":"<s>",)"
           R"("ids":[1],"tokens":["<s>"]}}})";
  s.decoder =
      R"({"type":"Sequence","decoders":[{"type":"Replace","pattern":{"String":"▁"},"content":" "},)"
      R"({"type":"ByteFallback"},{"type":"Fuse"},{"type":"Strip","content":" ","start":1,"stop":0}]})";
  return s;
}

// GPT-2's byte-to-unicode map (openai/gpt-2 src/encoder.py, bytes_to_unicode): the printable
// bytes '!'..'~', 0xA1..0xAC, 0xAE..0xFF keep their code point, the other 68 bytes take U+0100,
// U+0101, ... in byte order. GPT-2's vocabulary starts with these 256 characters in that order
// (printable first): "!" is 0, "Ċ" (byte 0x0A) is 188 + 10 = 198, "Ġ" (the space) 188 + 32 = 220.
std::vector<std::pair<std::string, int>> gpt2_byte_vocab() {
  std::vector<std::pair<std::string, int>> v;
  std::vector<int> rest;
  for (int b = 0; b < 256; ++b) {
    const bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
    if (printable)
      v.emplace_back(utf8(static_cast<char32_t>(b)), static_cast<int>(v.size()));
    else
      rest.push_back(b);
  }
  for (std::size_t n = 0; n < rest.size(); ++n)
    v.emplace_back(utf8(0x100 + static_cast<char32_t>(n)), static_cast<int>(v.size()));
  return v;
}

const std::string kG = utf8(0x120);  // "Ġ", the space

// GPT-2's tokenizer.json shape (ByteLevel pre-tokenizer with its regex, ByteLevel decoder) with
// GPT-2's own ids for the 256 bytes, "Hello" (15496), "Ġworld" (995) and <|endoftext|> (50256),
// so "Hello world" gives GPT-2's published [15496, 995]. The intermediate tokens of the merges
// that build them take made-up ids from 50300 (outside GPT-2's 50257), ranked in this order:
// "H e" 0, "l l" 1, "He ll" 2, "Hell o" 3, "Ġ w" 4, "o r" 5, "l d" 6, "Ġw or" 7, "Ġwor ld" 8,
// and for the digit test "3 4" 9, "1 2" 10, "12 3" 11, "4 5" 12; then "Ġ Hello" 13.
Spec gpt2_spec() {
  Spec s;
  s.vocab = gpt2_byte_vocab();
  s.vocab.insert(s.vocab.end(), {{"He", 50300},
                                 {"ll", 50301},
                                 {"Hell", 50302},
                                 {"Hello", 15496},
                                 {kG + "w", 50303},
                                 {"or", 50304},
                                 {"ld", 50305},
                                 {kG + "wor", 50306},
                                 {kG + "world", 995},
                                 {"34", 50310},
                                 {"12", 50311},
                                 {"123", 50312},
                                 {"45", 50313},
                                 {"abc", 50320},
                                 {kG + "Hello", 18435},
                                 {"<|endoftext|>", 50256}});
  s.merges = {"H e",       "l l",         "He ll", "Hell o", kG + " w", "o r", "l d",
              kG + "w or", kG + "wor ld", "3 4",   "1 2",    "12 3",    "4 5", kG + " Hello"};
  s.added =
      R"([{"id":50256,"content":"<|endoftext|>","single_word":false,"lstrip":false,"rstrip":false,"normalized":true,"special":true}])";
  s.pre = R"({"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":true})";
  s.post = R"({"type":"ByteLevel","add_prefix_space":true,"trim_offsets":false,"use_regex":true})";
  s.decoder =
      R"({"type":"ByteLevel","add_prefix_space":true,"trim_offsets":true,"use_regex":true})";
  return s;
}

// Llama 3's shape: Split with Llama 3's regex, then ByteLevel without its own regex, merges as
// [a, b] pairs, ignore_merges, <|begin_of_text|> added by a TemplateProcessing post-processor.
Spec llama3_spec() {
  Spec s = gpt2_spec();
  s.merges_as_pairs = true;
  s.model_extra = R"("ignore_merges":true,)";
  s.vocab.emplace_back("<|begin_of_text|>", 50400);
  s.added =
      R"([{"id":50400,"content":"<|begin_of_text|>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true}])";
  s.pre =
      R"({"type":"Sequence","pretokenizers":[{"type":"Split","pattern":{"Regex":)"
      R"("(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},)"
      R"("behavior":"Isolated","invert":false},{"type":"ByteLevel","add_prefix_space":false,)"
      R"("trim_offsets":true,"use_regex":false}]})";
  s.post =
      R"({"type":"Sequence","processors":[{"type":"ByteLevel","add_prefix_space":true,"trim_offsets":false,"use_regex":true},)"
      R"({"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<|begin_of_text|>","type_id":0}},)"
      R"({"Sequence":{"id":"A","type_id":0}}],"pair":[],"special_tokens":{"<|begin_of_text|>":)"
      R"({"id":"<|begin_of_text|>","ids":[50400],"tokens":["<|begin_of_text|>"]}}}]})";
  return s;
}

std::string tinystories_dir() {
  if (const char* e = std::getenv("KVPLAN_TEST_HF_MODEL_DIR"); e && *e) return e;
  return (std::filesystem::path(kvplan::test::model_dir()).parent_path() / "tinystories-656k")
      .string();
}

#define REQUIRE_TINYSTORIES()                                                 \
  do {                                                                        \
    if (!std::filesystem::exists(tinystories_dir() + "/tokenizer.json"))      \
      GTEST_SKIP() << "TinyStories-656K not found in " << tinystories_dir()   \
                   << " (set KVPLAN_TEST_HF_MODEL_DIR; download raincandy-u/" \
                      "TinyStories-656K from Hugging Face)";                  \
  } while (0)

std::string streamed(const HfTokenizer& tok, const Ids& ids) {
  std::string out;
  for (std::size_t i = 1; i < ids.size(); ++i) out += tok.decode(ids[i - 1], ids[i]);
  return out;
}

// ------------------------------------------------------------------ the split regexes

// huggingface/tokenizers tokenizers/src/pre_tokenizers/byte_level.rs at
// 3ba8ad0061a885baf052bbb7bbd22857e73e0c4e, tests pre_tokenization, handling_of_newlines and
// handling_of_multiple_whitespaces (their pieces before the byte mapping: Ġ is the space, Ċ "\n").
TEST(HfRegexSplit, Gpt2AsTheTokenizersTests) {
  EXPECT_EQ(split("Hello my friend, how is your day going?", SplitRegex::gpt2),
            (Strs{"Hello", " my", " friend", ",", " how", " is", " your", " day", " going", "?"}));
  EXPECT_EQ(split("Hello there\nHello there", SplitRegex::gpt2),
            (Strs{"Hello", " there", "\n", "Hello", " there"}));
  EXPECT_EQ(split("Hello there       dear", SplitRegex::gpt2),
            (Strs{"Hello", " there", "      ", " dear"}));
}

// meta-pytorch/tokenizers test/test_pre_tokenizer.cpp (commit
// 309b9d171476596fd6cbc8ca29a5ae8f40f173fe), TiktokenExpr and PreTokenizeSplitThenByteLevelNoRegex,
// with Llama 3's regex.
TEST(HfRegexSplit, Llama3AsPublishedSplits) {
  EXPECT_EQ(split("How are you doing?", SplitRegex::llama3),
            (Strs{"How", " are", " you", " doing", "?"}));
  EXPECT_EQ(split("foo(bar", SplitRegex::llama3), (Strs{"foo", "(bar"}));
}

// By hand, alternative by alternative:
//  "I'M 12345": "I" letters; "'M" a contraction ((?i) makes M match m); " " is no letter run
//  (1 follows), no digit, no symbol run (" ?" then 1 is a number), no newline, \s+(?!\S) fails
//  (one space, then \S), so \s+ takes " "; then \p{N}{1,3} takes "123", then "45".
//  "a\n\n  b": "a"; at "\n", letters need [^\r\n...] so fail; \s*[\r\n]+ takes the whitespace run
//  "\n\n  " up to its last newline: "\n\n"; at "  b", \s+(?!\S) backs off one: " "; then " b" is
//  [^\r\n\p{L}\p{N}]?\p{L}+.
//  Qwen2 (\p{N} alone): every digit is its own piece.
//  GPT-2's contractions are lower case only: "DON'T" -> "DON", "'" (a symbol run), "T".
TEST(HfRegexSplit, ByHand) {
  EXPECT_EQ(split("I'M 12345", SplitRegex::llama3), (Strs{"I", "'M", " ", "123", "45"}));
  EXPECT_EQ(split("a\n\n  b", SplitRegex::llama3), (Strs{"a", "\n\n", " ", " b"}));
  EXPECT_EQ(split("12345", SplitRegex::qwen2), (Strs{"1", "2", "3", "4", "5"}));
  EXPECT_EQ(split("12345", SplitRegex::gpt2), (Strs{"12345"}));
  EXPECT_EQ(split("DON'T", SplitRegex::gpt2), (Strs{"DON", "'", "T"}));
  EXPECT_EQ(split("DON'T", SplitRegex::llama3), (Strs{"DON", "'T"}));
  EXPECT_EQ(split("don't", SplitRegex::gpt2), (Strs{"don", "'t"}));
  // "x!!\n\ny": the symbol run takes its trailing newlines in Llama 3's regex, not in GPT-2's.
  EXPECT_EQ(split("x!!\n\ny", SplitRegex::llama3), (Strs{"x", "!!\n\n", "y"}));
  EXPECT_EQ(split("x!!\n\ny", SplitRegex::gpt2), (Strs{"x", "!!", "\n", "\n", "y"}));
  EXPECT_TRUE(split("", SplitRegex::llama3).empty());
}

// Non-ASCII classes (UnicodeData.txt categories): é Ll, Ж Lu, 中 Lo; ٣ (U+0663) Nd, ½ No, Ⅻ Nl;
// € is Sc, U+3000 IDEOGRAPHIC SPACE is White_Space. Invalid UTF-8 is a symbol of its own.
TEST(HfRegexSplit, UnicodeClasses) {
  EXPECT_TRUE(kvplan::sim::is_unicode_letter(0xE9));
  EXPECT_TRUE(kvplan::sim::is_unicode_letter(0x416));
  EXPECT_TRUE(kvplan::sim::is_unicode_letter(0x4E2D));
  EXPECT_FALSE(kvplan::sim::is_unicode_letter('1'));
  EXPECT_FALSE(kvplan::sim::is_unicode_letter(0x20AC));
  EXPECT_TRUE(kvplan::sim::is_unicode_number(0x663));
  EXPECT_TRUE(kvplan::sim::is_unicode_number(0xBD));
  EXPECT_TRUE(kvplan::sim::is_unicode_number(0x216B));
  EXPECT_FALSE(kvplan::sim::is_unicode_number('a'));
  EXPECT_FALSE(kvplan::sim::is_unicode_letter(0x1F600));
  // "café 中文 ½€": " 中文" and " ½" would be one piece each only if the classes are right.
  EXPECT_EQ(split("caf\xC3\xA9 \xE4\xB8\xAD\xE6\x96\x87 \xC2\xBD\xE2\x82\xAC", SplitRegex::gpt2),
            (Strs{"caf\xC3\xA9", " \xE4\xB8\xAD\xE6\x96\x87", " \xC2\xBD", "\xE2\x82\xAC"}));
  EXPECT_EQ(split("a\xE3\x80\x80"
                  "b",
                  SplitRegex::gpt2),
            (Strs{"a", "\xE3\x80\x80", "b"}));
  EXPECT_EQ(split("a\xFF\xFE"
                  "b",
                  SplitRegex::gpt2),
            (Strs{"a", "\xFF\xFE", "b"}));
}

// ------------------------------------------------------------------ TinyStories-656K

// Ids traced by hand through ../shared/models/tinystories-656k/tokenizer.json (vocab ids and the
// 0-based rank of each merge in its "merges" list). Its normalizer makes "a cat" "▁a▁cat"; the
// single characters are ▁ 80, a 53, c 55, t 72; merges by rank: 4 "▁ a" -> ▁a (85),
// 23 "▁a ▁" -> ▁a▁ (104), 151 "a t" -> at (232), 395 "c at" -> cat (476).
TEST(HfTokenizerTinyStories, EncodesAsItsMerges) {
  REQUIRE_TINYSTORIES();
  const auto tok = HfTokenizer::load(tinystories_dir());
  EXPECT_EQ(tok.size(), 2048u);
  EXPECT_EQ(tok.bos_id(), 1);  // <|start_story|>, tokenizer_config.json and the post_processor
  EXPECT_EQ(tok.eos_id(), 2);  // <|end_story|>
  EXPECT_EQ(tok.encode("a cat", true, false), (Ids{1, 104, 476}));
  EXPECT_EQ(tok.encode("a cat", true, true), (Ids{1, 104, 476, 2}));
  // "▁Hi!": ▁ 80, H 33, i 61, ! 4; only "H i" (rank 1077) -> Hi (1158) applies.
  EXPECT_EQ(tok.encode("Hi!", false, false), (Ids{80, 1158, 4}));
  // "▁Lily▁was▁happy.": ranks 6 "y ▁" (87), 8 "s ▁" (89), 14 "w a" (95), 24 "h a" (105),
  // 34 "wa s▁" (115), 48 "i l" (129), 70 "p p" (151), 100 "ha pp" (181), 135 "L il" (216),
  // 222 "Lil y▁" -> Lily▁ (303), 324 "happ y" (405), 1826 "was▁ happy" -> was▁happy (1907);
  // "▁" (80) and "." (10) stay alone.
  EXPECT_EQ(tok.encode("Lily was happy.", false, false), (Ids{80, 303, 1907, 10}));
  // The file has byte_fallback but no <0xXX> tokens, so é falls to <unk> (0), and fuse_unk
  // makes "éé" one <unk>: "▁a", <unk>, "▁", "b" (54).
  EXPECT_EQ(tok.encode("a\xC3\xA9\xC3\xA9 b", false, false), (Ids{85, 0, 80, 54}));
}

// The added tokens are "normalized": true, so they are searched in the normalized text as their
// own normalized form "▁<|end_story|>" (tokenizers' added_vocabulary.rs, refresh_added_tokens):
// after a space it is found ("▁a" 85, then the token 2); glued to a word it is not, and the text
// goes through the merges: ranks 4 ▁a (85), 127 "< |" (208), 102 "en d" (183), 128 "_ story" (209),
// 129 "| >" (210).
TEST(HfTokenizerTinyStories, SpecialTokensInText) {
  REQUIRE_TINYSTORIES();
  const auto tok = HfTokenizer::load(tinystories_dir() + "/tokenizer.json");
  EXPECT_EQ(tok.encode("a <|end_story|>", false, false), (Ids{85, 2}));
  EXPECT_EQ(tok.encode("a<|end_story|>", false, false), (Ids{85, 208, 183, 209, 210}));
}

// The decoder: ▁ -> " ", byte fallback, fuse, strip one leading space.
TEST(HfTokenizerTinyStories, DecodesBack) {
  REQUIRE_TINYSTORIES();
  const auto tok = HfTokenizer::load(tinystories_dir());
  EXPECT_EQ(tok.decode(1, 104), "a ");  // "▁a▁" at the start: " a " less its leading space
  EXPECT_EQ(tok.decode(104, 476), "cat");
  EXPECT_EQ(tok.decode(476, 2), "");  // a special token prints nothing
  EXPECT_EQ(tok.detokenize(Ids{1, 104, 476, 2}), "a cat");
  for (const std::string s : {"Once upon a time, there was a little girl named Lily.",
                              "\"Hi!\" said Tom.\nThey played.", "a  b   c"}) {
    const Ids ids = tok.encode(s, true, false);
    EXPECT_EQ(tok.detokenize(ids), s);
    EXPECT_EQ(streamed(tok, ids), s);
  }
  EXPECT_THROW(tok.decode(1, 2048), Error);
  EXPECT_THROW(tok.decode(1, -3), Error);
}

// ------------------------------------------------------------------ SentencePiece-style, by hand

// "ab é" normalizes to "▁ab▁é": ▁ a b ▁ are tokens, é is not, so its UTF-8 bytes C3 A9 become
// <0xC3> (3 + 195 = 198) and <0xA9> (3 + 169 = 172). Merges: rank 0 "▁ a" -> ▁a; the queued
// "a b" (rank 1) is stale now (its a is gone); rank 2 "▁a b" -> ▁ab (264). The lone ▁ is 259.
TEST(HfTokenizerSentencePiece, ByteFallback) {
  kvplan::test::TempDir dir;
  const auto tok = HfTokenizer::load(write(dir, sentencepiece_spec().json()));
  EXPECT_EQ(tok.size(), 265u);
  EXPECT_EQ(tok.bos_id(), 1);
  EXPECT_EQ(tok.eos_id(), 2);  // "</s>" among the special added tokens
  EXPECT_EQ(tok.encode("ab \xC3\xA9", true, true), (Ids{1, 264, 259, 198, 172, 2}));
  // 😀 is F0 9F 98 80: ids 3 + 240, 3 + 159, 3 + 152, 3 + 128.
  EXPECT_EQ(tok.encode("\xF0\x9F\x98\x80", false, false), (Ids{259, 243, 162, 155, 131}));
  EXPECT_EQ(tok.decode(264, 198), "\xC3");  // one raw byte of the two
  EXPECT_EQ(tok.decode(1, 264), "ab");
  for (const std::string s : {"ab \xC3\xA9", "\xF0\x9F\x98\x80 ab", "b a\tab\n", "z\xE2\x82\xAC"}) {
    const Ids ids = tok.encode(s, true, false);
    EXPECT_EQ(tok.detokenize(ids), s) << s;
    EXPECT_EQ(streamed(tok, ids), s) << s;
  }
  // A lone byte that is no UTF-8 decodes (whole stream) as U+FFFD, as the ByteFallback decoder.
  EXPECT_EQ(tok.detokenize(Ids{1, 264, 3 + 0xC3}), "ab\xEF\xBF\xBD");
}

// "normalized": false tokens are cut from the raw text first and each remaining piece is
// normalized alone, so each gets its own "▁": "ab<s>ab" -> "▁ab", <s>, "▁ab".
TEST(HfTokenizerSentencePiece, RawAddedTokensSplitBeforeNormalizing) {
  kvplan::test::TempDir dir;
  const auto tok = HfTokenizer::load(write(dir, sentencepiece_spec().json()));
  EXPECT_EQ(tok.encode("ab<s>ab", false, false), (Ids{264, 1, 264}));
  EXPECT_EQ(tok.encode("<s>", false, false), (Ids{1}));
  // Leftmost-longest: "</s>" is not "<" + "/s>".
  EXPECT_EQ(tok.encode("</s>", false, false), (Ids{2}));
}

// The newer shape: no normalizer, a Metaspace pre-tokenizer (prepend_scheme "first", split off)
// and Metaspace in the decoder; the same ids as the normalizer shape.
TEST(HfTokenizerSentencePiece, MetaspaceShape) {
  Spec s = sentencepiece_spec();
  s.normalizer = "null";
  s.pre = R"({"type":"Metaspace","replacement":"▁","prepend_scheme":"first","split":false})";
  s.decoder =
      R"({"type":"Sequence","decoders":[{"type":"Metaspace","replacement":"▁","prepend_scheme":"first","split":false},)"
      R"({"type":"ByteFallback"},{"type":"Fuse"}]})";
  kvplan::test::TempDir dir;
  const auto tok = HfTokenizer::load(write(dir, s.json()));
  EXPECT_EQ(tok.encode("ab \xC3\xA9", false, false), (Ids{264, 259, 198, 172}));
  // "first": only the piece at the start of the text is prepended to: "<s>" then "ab" -> a b.
  EXPECT_EQ(tok.encode("<s>ab", false, false), (Ids{1, 263}));
  EXPECT_EQ(tok.detokenize(Ids{1, 264, 259, 198, 172}), "ab \xC3\xA9");
}

// ------------------------------------------------------------------ byte-level, by hand

// "Hello world" -> "Hello", " world" -> "Hello", "Ġworld". Hello: H e l l o, rank 0 He, rank 1
// ll, rank 2 Hell, rank 3 Hello (15496). Ġworld: rank 4 Ġw, 5 or, 6 ld, 7 Ġwor, 8 Ġworld (995).
// " Hello world": "ĠHello" is Ġ then Hello as above, then rank 13 "Ġ Hello" (18435). GPT-2's
// published ids: "Hello world" -> [15496, 995], " Hello world" -> [18435, 995] (the GPT2Tokenizer
// docstring of huggingface/transformers, src/transformers/models/gpt2/tokenization_gpt2.py).
TEST(HfTokenizerByteLevel, Gpt2HelloWorld) {
  kvplan::test::TempDir dir;
  const auto tok = HfTokenizer::load(write(dir, gpt2_spec().json()));
  EXPECT_EQ(tok.encode("Hello world", false, false), (Ids{15496, 995}));
  EXPECT_EQ(tok.encode(" Hello world", false, false), (Ids{18435, 995}));
  EXPECT_EQ(tok.eos_id(), 50256);  // <|endoftext|>
  EXPECT_EQ(tok.bos_id(), -1);     // GPT-2's file names none
  EXPECT_EQ(tok.encode("Hello world<|endoftext|>", false, false), (Ids{15496, 995, 50256}));
  EXPECT_EQ(tok.encode(" ", false, false), (Ids{220}));
  EXPECT_EQ(tok.encode("\n", false, false), (Ids{198}));
  // é is C3 A9: 0xC3 is in the third printable range 0xAE..0xFF, id 94 + 12 + (0xC3 - 0xAE) = 127;
  // 0xA9 in the second, 0xA1..0xAC: id 94 + (0xA9 - 0xA1) = 102.
  EXPECT_EQ(tok.encode("\xC3\xA9", false, false), (Ids{127, 102}));
  // GPT-2's regex keeps "12345" whole: rank 9 "3 4", rank 10 "1 2", then no merge joins 12 34 5.
  EXPECT_EQ(tok.encode("12345", false, false), (Ids{50311, 50310, 20}));  // "5" is 0x35 - 0x21
  // Without ignore_merges a word in the vocab still goes through the merges: a b c.
  EXPECT_EQ(tok.encode("abc", false, false), (Ids{64, 65, 66}));
  EXPECT_EQ(tok.detokenize(Ids{15496, 995, 50256}), "Hello world");
  EXPECT_EQ(tok.decode(15496, 995), " world");
}

// Llama 3's shape: its regex cuts "12345" into "123" (ranks 10 "1 2", 11 "12 3") and "45" (rank
// 12), and ignore_merges takes "abc" (50320) straight from the vocabulary.
TEST(HfTokenizerByteLevel, Llama3Shape) {
  kvplan::test::TempDir dir;
  const auto tok = HfTokenizer::load(write(dir, llama3_spec().json()));
  EXPECT_EQ(tok.bos_id(), 50400);
  EXPECT_EQ(tok.encode("12345", true, false), (Ids{50400, 50312, 50313}));
  EXPECT_EQ(tok.encode("abc", false, false), (Ids{50320}));
  EXPECT_EQ(tok.encode("Hello world", false, false), (Ids{15496, 995}));
}

// Added-token options (added_vocabulary.rs, find_matches): "[X]" (lstrip, rstrip, not special)
// takes the spaces beside it; "XY" (single_word) is found only between non-word characters.
// Byte ids: a 0x61 - 0x21 = 64, b 65, X 0x58 - 0x21 = 55, Y 56.
TEST(HfTokenizerByteLevel, AddedTokenOptions) {
  Spec s = gpt2_spec();
  s.vocab.insert(s.vocab.end(), {{"[X]", 50500}, {"XY", 50501}});
  s.added =
      R"([{"id":50500,"content":"[X]","single_word":false,"lstrip":true,"rstrip":true,"normalized":false,"special":false},)"
      R"({"id":50501,"content":"XY","single_word":true,"lstrip":false,"rstrip":false,"normalized":false,"special":false}])";
  kvplan::test::TempDir dir;
  const auto tok = HfTokenizer::load(write(dir, s.json()));
  EXPECT_EQ(tok.encode("a  [X]  b", false, false), (Ids{64, 50500, 65}));
  EXPECT_EQ(tok.detokenize(Ids{64, 50500, 65}), "a[X]b");  // not special: it is printed
  EXPECT_EQ(tok.encode("XY", false, false), (Ids{50501}));
  EXPECT_EQ(tok.encode("aXY", false, false), (Ids{64, 55, 56}));
}

// Qwen2's shape: the NFC normalizer and Qwen2's regex (one digit a piece: 1 2 3 4 5, then no
// merge since the pieces are single characters; "1" is 0x31 - 0x21 = 16). NFC is applied to text
// it leaves unchanged (precomposed é, U+00E9: C3 A9 -> 127 102 as in Gpt2HelloWorld); e followed
// by U+0301 COMBINING ACUTE ACCENT, which NFC would compose, is refused naming the normalizer.
TEST(HfTokenizerByteLevel, Qwen2ShapeWithNfc) {
  Spec s = gpt2_spec();
  s.normalizer = R"({"type":"NFC"})";
  s.pre =
      R"({"type":"Sequence","pretokenizers":[{"type":"Split","pattern":{"Regex":)"
      R"("(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},)"
      R"("behavior":"Isolated","invert":false},{"type":"ByteLevel","add_prefix_space":false,)"
      R"("trim_offsets":false,"use_regex":false}]})";
  kvplan::test::TempDir dir;
  const std::string p = write(dir, s.json());
  const auto tok = HfTokenizer::load(p);
  EXPECT_EQ(tok.encode("12345", false, false), (Ids{16, 17, 18, 19, 20}));
  EXPECT_EQ(tok.encode("\xC3\xA9", false, false), (Ids{127, 102}));
  try {
    tok.encode("e\xCC\x81", false, false);
    ADD_FAILURE() << "a combining accent went through NFC unchanged";
  } catch (const Error& e) {
    EXPECT_EQ(e.source(), p);
    EXPECT_EQ(e.field(), "/normalizer");
    EXPECT_NE(std::string(e.what()).find("U+0301"), std::string::npos) << e.what();
  }
}

TEST(HfTokenizerByteLevel, RoundTrips) {
  kvplan::test::TempDir dir;
  for (const Spec& spec : {gpt2_spec(), llama3_spec()}) {
    const auto tok = HfTokenizer::load(write(dir, spec.json()));
    for (const std::string s :
         {"Hello world", "  leading and trailing  ", "caf\xC3\xA9 \xE4\xB8\xAD\xE6\x96\x87",
          "\xF0\x9F\x98\x80\xF0\x9F\x91\x8D!", "tabs\tand\r\nnewlines\n\n", "I'M 12345 don't"}) {
      const Ids ids = tok.encode(s, true, false);
      EXPECT_EQ(tok.detokenize(ids), s) << s;
      std::string bytes;
      for (std::size_t i = 0; i < ids.size(); ++i) bytes += tok.decode(i ? ids[i - 1] : -1, ids[i]);
      EXPECT_EQ(bytes, s) << s;
    }
    // Invalid UTF-8 in the text: every byte has a token (0xFF is in the third printable range:
    // 106 + 0xFF - 0xAE = 187), and the decoder gives U+FFFD for it, as from_utf8_lossy.
    const Ids bad = tok.encode("a\xFF", false, false);
    EXPECT_EQ(bad, (Ids{64, 187}));
    EXPECT_EQ(tok.detokenize(bad), "a\xEF\xBF\xBD");
  }
}

// ------------------------------------------------------------------ speed

// 100 kB of text in well under half a second: TinyStories' file has no pre-tokenizer, so the
// whole text is one word of 100,000 symbols for the merges.
TEST(HfTokenizerSpeed, HundredKilobytes) {
  kvplan::test::TempDir dir;
  std::string text;
  while (text.size() < 100000) text += "Hello world, 12345 ab\xC3\xA9 \xF0\x9F\x98\x80 abc. ";
  std::vector<std::string> files = {write(dir, gpt2_spec().json(), "g.json"),
                                    write(dir, sentencepiece_spec().json(), "s.json")};
  if (std::filesystem::exists(tinystories_dir() + "/tokenizer.json"))
    files.push_back(tinystories_dir());
  for (const auto& f : files) {
    const auto tok = HfTokenizer::load(f);
    const auto t0 = std::chrono::steady_clock::now();
    const Ids ids = tok.encode(text, false, false);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(s, 0.5) << f << ": " << ids.size() << " tokens";
    EXPECT_GT(ids.size(), 1000u);
  }
}

// ------------------------------------------------------------------ malformed files

void expect_refused(const std::string& text, const std::string& field, const std::string& words) {
  kvplan::test::TempDir dir;
  const std::string p = write(dir, text);
  try {
    HfTokenizer::load(p);
    ADD_FAILURE() << "accepted; expected an error at " << field;
  } catch (const Error& e) {
    EXPECT_EQ(e.source(), p);
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(HfTokenizerMalformed, RefusedNamingFileAndField) {
  expect_refused(R"({"version":"1.0"})", "/model", "missing");
  expect_refused(R"({"model":{"vocab":{},"merges":[]}})", "/model/type", "missing");
  expect_refused(R"({"model":{"type":"WordPiece","vocab":{}}})", "/model/type", "not supported");
  expect_refused(R"({"model":{"type":"Unigram","vocab":[]}})", "/model/type", "not supported");
  expect_refused(R"({"model":{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":["a b","a c"]}})",
                 "/model/merges/1", "\"c\" is not in the vocabulary");
  expect_refused(R"({"model":{"type":"BPE","vocab":{"a":0,"b":1},"merges":["a b"]}})",
                 "/model/merges/0", "\"ab\" is not in the vocabulary");
  expect_refused(R"({"model":{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":["a  b"]}})",
                 "/model/merges/0", "one space");
  expect_refused(R"({"model":{"type":"BPE","vocab":{"a":0,"b":0},"merges":[]}})", "/model/vocab/b",
                 "also the id of");
  expect_refused(R"({"model":{"type":"BPE","vocab":{"a":-1},"merges":[]}})", "/model/vocab/a",
                 "whole number");
  expect_refused(R"({"model":{"type":"BPE","dropout":0.1,"vocab":{},"merges":[]}})",
                 "/model/dropout", "not supported");
  expect_refused(R"({"normalizer":{"type":"NFKC"},"model":{"type":"BPE","vocab":{},"merges":[]}})",
                 "/normalizer/type", "not supported");
  expect_refused(
      R"({"pre_tokenizer":{"type":"Sequence","pretokenizers":[{"type":"Split","pattern":{"Regex":"\\w+"},"behavior":"Isolated","invert":false}]},"model":{"type":"BPE","vocab":{},"merges":[]}})",
      "/pre_tokenizer/pretokenizers/0/pattern/Regex", "not supported");
  expect_refused(R"({"added_tokens":[{"id":5}],"model":{"type":"BPE","vocab":{},"merges":[]}})",
                 "/added_tokens/0/content", "missing");
  expect_refused(R"({"model":{"type":"BPE","unk_token":"<unk>","vocab":{},"merges":[]}})",
                 "/model/unk_token", "not in the vocabulary");
  expect_refused(R"({"model":)", "", "invalid JSON");
  expect_refused(std::string(200, '[') + std::string(200, ']'), "", "nested deeper");
  expect_refused("[1, 2]", "", "must be a JSON object");
}

TEST(HfTokenizerMalformed, FilesAndDirectories) {
  kvplan::test::TempDir dir;
  EXPECT_THROW(HfTokenizer::load(dir.file("absent.json")), Error);
  EXPECT_THROW(HfTokenizer::load(dir.path().string()), Error);  // a directory without the file
  // A file past 64 MiB is refused by its size before anything is read (a sparse file).
  const std::string big = dir.file("big.json");
  std::ofstream(big) << "{}";
  std::filesystem::resize_file(big, (64ull << 20) + 1);
  try {
    HfTokenizer::load(big);
    ADD_FAILURE() << "a 64 MiB + 1 file was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("over the limit"), std::string::npos) << e.what();
  }
  // tokenizer_config.json beside it naming a BOS nobody has.
  write(dir, sentencepiece_spec().json());
  write(dir, R"({"bos_token":{"content":"<nope>"}})", "tokenizer_config.json");
  try {
    HfTokenizer::load(dir.path().string());
    ADD_FAILURE() << "a BOS outside the vocabulary was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.source(), dir.file("tokenizer_config.json"));
    EXPECT_EQ(e.field(), "/bos_token");
  }
}

}  // namespace
