// Hugging Face tokenizers (`tokenizer.json`, the file the `tokenizers` library writes) for the
// reference models: BPE models only, in the two shapes the reference models use.
//  - SentencePiece-style BPE with byte fallback (Llama 2, TinyStories-656K): the normalizer
//    prepends "▁" and replaces " " with "▁" (or a Metaspace pre-tokenizer does it), characters
//    outside the vocabulary become <0xXX> byte tokens, the decoder undoes both.
//  - byte-level BPE (GPT-2, Llama 3, Qwen2): the text is split by the model's regex (GPT-2's, or
//    Llama 3's / Qwen2's with case-insensitive contractions and digit groups), each byte becomes
//    one character of GPT-2's byte-to-unicode map, the decoder maps them back.
// Added tokens are cut out of the text before the model runs, as the library does (its
// tokenizers/src/tokenizer/added_vocabulary.rs): tokens with "normalized": false are found in the
// raw text, the others in the normalized text (as their own normalized form), leftmost-longest.
//
//   auto tok = HfTokenizer::load("../shared/models/tinystories-656k");   // or .../tokenizer.json
//   tok.size();                                   // 2048
//   tok.encode("a cat", true, false);             // {1, 104, 476}: <|start_story|> "▁a▁" "cat"
//   tok.detokenize(std::vector<int32_t>{1, 104, 476});   // "a cat"
//
// The behaviour follows huggingface/tokenizers at commit 3ba8ad0061a885baf052bbb7bbd22857e73e0c4e;
// the source files are cited where each rule is implemented (hf_tokenizer.cpp). Anything the file
// asks for that is not implemented here (WordPiece, Unigram, other normalizers, a split regex other
// than the three known ones, BPE dropout) is refused with kvplan::Error naming the file and the
// JSON pointer of the field, never approximated. Encoding is O(n log n) in the text length.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kvplan::sim {

// The split regexes of byte-level BPE tokenizers, matched by hand (hf_tokenizer.cpp):
//  gpt2:   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//  llama3: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
//          ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//  qwen2:  llama3's with \p{N} (one digit) instead of \p{N}{1,3}
enum class SplitRegex { gpt2, llama3, qwen2 };

// `text` (UTF-8; an invalid byte counts as one code point of category "other") cut into the
// regex's matches, in order; their concatenation is `text`.
std::vector<std::string_view> regex_split(std::string_view text, SplitRegex re);

// Unicode general category tests behind \p{L} and \p{N} (tables derived from the Unicode
// Character Database 14.0 via Python's unicodedata; see hf_tokenizer.cpp).
bool is_unicode_letter(char32_t cp);
bool is_unicode_number(char32_t cp);

class HfTokenizer {
 public:
  // `path` is a tokenizer.json file or a directory holding one (and perhaps tokenizer_config.json,
  // which then names BOS and EOS). Files over 64 MiB, or of more than 2^23 JSON values, are
  // refused. Throws kvplan::Error naming the file and the field.
  static HfTokenizer load(const std::string& path);

  HfTokenizer(HfTokenizer&&) noexcept;
  HfTokenizer& operator=(HfTokenizer&&) noexcept;
  ~HfTokenizer();

  // Vocabulary size in tokens: one past the largest id of the model's vocab and added tokens.
  std::uint32_t size() const;
  // BOS / EOS ids, -1 when the files name none. BOS: tokenizer_config.json's bos_token, else the
  // first special token of the post_processor's single template; EOS: tokenizer_config.json's
  // eos_token, else the added token "</s>", "<|endoftext|>" or "<|end_of_text|>".
  std::int32_t bos_id() const;
  std::int32_t eos_id() const;
  // Token ids of `text` (UTF-8), with BOS first / EOS last when asked and the files name one.
  std::vector<std::int32_t> encode(const std::string& text, bool bos, bool eos) const;
  // The bytes `token` adds to the text after `prev` (-1 or BOS: the start of the text, where the
  // decoder's leading-space strip applies). A byte token gives its one byte (perhaps part of a
  // UTF-8 sequence); a special added token gives "". An id outside the vocabulary throws.
  std::string decode(std::int32_t prev, std::int32_t token) const;
  // The text of a token stream, as the library's decode(ids, skip_special_tokens=True): special
  // tokens are skipped, the whole decoder chain runs, invalid UTF-8 becomes U+FFFD.
  std::string detokenize(std::span<const std::int32_t> tokens) const;
  // The token string of `id` as the vocabulary holds it (e.g. "▁the", "Ġworld", "<0x0A>").
  const std::string& piece(std::int32_t id) const;

  struct Impl;  // opaque: defined and used in hf_tokenizer.cpp only

 private:
  explicit HfTokenizer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kvplan::sim
