// Engine option files and command lines read as their engines read them (issue 30, class 2).
// Expected values follow the engines' parsers, by hand:
// - PyYAML safe_load (yaml/constructor.py, flatten_mapping / construct_mapping): a repeated key
//   keeps its last value; a plain `<<` merges a mapping, or a list of mappings where the first
//   wins, under the mapping's own keys.
// - argparse keeps the last of a repeated flag; click keeps the last --extra_llm_api_options.
// - vLLM's --block-size choices 1, 8, 16, 32, 64, 128, 256 (vllm/config/cache.py, BlockSize).
// - A shell runs `A && B` as two commands.
// Alias bombs and self-referential aliases end in an Error naming the file, in bounded time and
// memory.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <string>

#include "error_message.hpp"
#include "kvplan/engine_args.hpp"
#include "kvplan/error.hpp"
#include "temp_dir.hpp"

namespace kvplan {
namespace {

EngineArgs vllm(const std::string& line) {
  return parse_engine_command(Engine::vllm, line, "--vllm");
}
EngineArgs trtllm(const std::string& line) {
  return parse_engine_command(Engine::trtllm, line, "--trtllm");
}

std::string message(const std::function<void()>& f) { return test::error_message(f); }

struct Files {
  test::TempDir dir;
  std::string put(const std::string& name, const std::string& text) {
    const std::string p = dir.file(name);
    std::ofstream(p) << text;
    return p;
  }
};

// Nine levels of nine aliases each: 9^9 = 387,420,489 leaves if expanded.
std::string billion_laughs(const std::string& leaf_key) {
  std::string y = "a0: &a0 {" + leaf_key + ": lol}\n";
  for (int l = 1; l <= 9; ++l) {
    // Appended piece by piece (GCC 12 warns, wrongly, of overlap in "a" + std::to_string(l)).
    y.append("a").append(std::to_string(l)).append(": &a").append(std::to_string(l)).append(" {");
    for (int k = 0; k < 9; ++k)
      y.append(k ? ", k" : "k")
          .append(std::to_string(k))
          .append(": *a")
          .append(std::to_string(l - 1));
    y.append("}\n");
  }
  return y;
}

TEST(EngineYaml, AliasBombsAreRefusedNamingTheFile) {
  Files f;
  const auto start = std::chrono::steady_clock::now();
  const std::string v = f.put("bomb.yaml", billion_laughs("x"));
  std::string m = message([&] { vllm("vllm serve m --config " + v); });
  EXPECT_NE(m.find("bomb.yaml"), std::string::npos) << m;
  EXPECT_NE(m.find("100,000 YAML nodes"), std::string::npos) << m;
  const std::string t = f.put("bomb.yml", billion_laughs("x"));
  m = message([&] { trtllm("trtllm-serve m --extra_llm_api_options " + t); });
  EXPECT_NE(m.find("bomb.yml"), std::string::npos) << m;
  // Flattened to dotted keys, the 4,096-key bound is reached first.
  EXPECT_NE(m.find("more than 4096 keys"), std::string::npos) << m;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(EngineYaml, SelfReferentialAliasesAreRefusedNotACrash) {
  Files f;
  for (const std::string& text :
       {std::string("&a {x: *a}\n"), std::string("kv_cache_config: &a {x: *a}\n"),
        std::string("&a {<<: *a}\n"), std::string("a: &a [1, *a]\n")}) {
    const std::string v = f.put("self.yaml", text);
    std::string m = message([&] { vllm("vllm serve m --config " + v); });
    EXPECT_NE(m.find("self.yaml"), std::string::npos) << text << ": " << m;
    m = message([&] { trtllm("trtllm-serve m --extra_llm_api_options " + v); });
    EXPECT_NE(m.find("self.yaml"), std::string::npos) << text << ": " << m;
  }
}

TEST(EngineYaml, MergeKeysAsPyYamlMergesThem) {
  Files f;
  // kv_cache_config = {free_gpu_memory_fraction: 0.5 (merged), tokens_per_block: 32 (stated, wins
  // over the merged 64)}.
  std::string y = f.put("merge.yml",
                        "defaults: &kv\n  free_gpu_memory_fraction: 0.5\n  tokens_per_block: 64\n"
                        "kv_cache_config:\n  <<: *kv\n  tokens_per_block: 32\n");
  auto a = trtllm("trtllm-serve m --extra_llm_api_options " + y);
  EXPECT_EQ(a.memory_fraction_ppm.value_or(0), 500000u);
  EXPECT_EQ(a.block_size.value_or(0), 32u);
  // A list of mappings: the first one wins (tokens_per_block 16), keys only the second has come
  // from it (max_tokens 1000).
  y = f.put("merge-list.yml",
            "a: &a {tokens_per_block: 16}\nb: &b {tokens_per_block: 64, max_tokens: 1000}\n"
            "kv_cache_config:\n  <<: [*a, *b]\n");
  a = trtllm("trtllm-serve m --extra_llm_api_options " + y);
  EXPECT_EQ(a.block_size.value_or(0), 16u);
  EXPECT_EQ(a.max_total_tokens.value_or(0), 1000u);
  // vLLM: a merge at the top level sets the flags; the stated key wins (max-num-seqs 32).
  y = f.put("merge.yaml",
            "base: &b\n  tensor-parallel-size: 2\n  max-num-seqs: 64\n"
            "<<: *b\nmax-num-seqs: 32\n");
  const auto v = vllm("vllm serve m --config " + y);
  EXPECT_EQ(v.tp.value_or(0), 2u);
  EXPECT_EQ(v.max_num_seqs.value_or(0), 32u);
  // A quoted "<<" is an ordinary key (PyYAML merges only the plain one): an unknown flag.
  y = f.put("quoted.yaml", "\"<<\": 1\n");
  EXPECT_FALSE(vllm("vllm serve m --config " + y).unknown.empty());
  // A merge of a scalar is PyYAML's ConstructorError.
  y = f.put("bad-merge.yaml", "<<: 3\n");
  const std::string m = message([&] { vllm("vllm serve m --config " + y); });
  EXPECT_NE(m.find("bad-merge.yaml"), std::string::npos) << m;
  EXPECT_NE(m.find("merge key"), std::string::npos) << m;
}

TEST(EngineYaml, RepeatedKeysKeepTheLastValue) {
  Files f;
  // vLLM: tensor-parallel-size 4, and enforce-eager false (the flag is not passed at all).
  std::string y = f.put("dup.yaml",
                        "tensor-parallel-size: 2\nenforce-eager: true\ntensor-parallel-size: 4\n"
                        "enforce-eager: false\n");
  const auto v = vllm("vllm serve m --config " + y);
  EXPECT_EQ(v.tp.value_or(0), 4u);
  EXPECT_FALSE(v.enforce_eager);
  // TensorRT-LLM: the last kv_cache_config mapping replaces the first whole (no fraction left).
  y = f.put("dup.yml",
            "kv_cache_config:\n  free_gpu_memory_fraction: 0.5\n"
            "kv_cache_config:\n  tokens_per_block: 64\n");
  const auto t = trtllm("trtllm-serve m --extra_llm_api_options " + y);
  EXPECT_FALSE(t.memory_fraction_ppm.has_value());
  EXPECT_EQ(t.block_size.value_or(0), 64u);
}

// Found by the engine_yaml fuzz target: a map value holding an ill-formed UTF-8 byte reached
// nlohmann's dump() and threw a non-kvplan exception (exit 3). PyYAML stops at the byte.
TEST(EngineYaml, IllFormedUtf8IsRefusedNamingTheOffset) {
  Files f;
  const std::string y = f.put("bad.yaml", "base: &b\n  ten\x8d\x90: 2\n<<: *b\n");
  const std::string m = message([&] { vllm("vllm serve m --config " + y); });
  // "base: &b\n" is bytes 0-8, "  ten" 9-13: the 0x8d is byte 14.
  EXPECT_NE(m.find("bad.yaml: is not UTF-8 text (an ill-formed byte at offset 14)"),
            std::string::npos)
      << m;
}

// Found by the engine_yaml fuzz target: a digit-only value with a leading zero inside a map was
// handed to nlohmann's JSON parser (exit 3). PyYAML reads 0500 as the octal int 320 and 0589 as
// a string, so the map vLLM receives is {"a": 320, "b": "0589"}.
TEST(EngineYaml, LeadingZerosAreOctalAsInPyYaml) {
  Files f;
  const std::string y = f.put("oct.yaml", "custom-map: {a: 0500, b: 0589, c: 7}\n");
  const auto a = vllm("vllm serve m --config " + y);
  // An unknown flag is named with its value: the JSON the file's map became.
  ASSERT_EQ(a.unknown.size(), 1u);
  EXPECT_EQ(a.unknown[0], "--custom-map {\"a\":320,\"b\":\"0589\",\"c\":7}");
}

// Found by the engine_yaml fuzz target: a `config:` key inside a vLLM config file was recorded
// as a second config file. vLLM reads only the command line's --config; the key is ignored.
TEST(EngineYaml, AConfigKeyInsideAConfigFileIsNotASecondFile) {
  Files f;
  const std::string y = f.put("nested.yaml", "tensor-parallel-size: 2\nconfig: other.yaml\n");
  const auto a = vllm("vllm serve m --config " + y);
  EXPECT_EQ(a.config_files, std::vector<std::string>{y});
  EXPECT_EQ(a.tp.value_or(0), 2u);
  ASSERT_EQ(a.ignored.size(), 1u);
  EXPECT_EQ(a.ignored[0], "--config other.yaml (a config key inside the config file)");
}

TEST(EngineYaml, ClickKeepsTheLastExtraLlmApiOptions) {
  Files f;
  const std::string a = f.put("a.yml", "kv_cache_config:\n  free_gpu_memory_fraction: 0.5\n");
  const std::string b = f.put("b.yml", "kv_cache_config:\n  tokens_per_block: 64\n");
  const auto t =
      trtllm("trtllm-serve m --extra_llm_api_options " + a + " --extra_llm_api_options " + b);
  EXPECT_FALSE(t.memory_fraction_ppm.has_value()) << "a.yml is not read";
  EXPECT_EQ(t.block_size.value_or(0), 64u);
  EXPECT_EQ(t.config_files, std::vector<std::string>{b});
}

TEST(EngineYaml, AListWhereArgparseWantsOneValueIsRefused) {
  Files f;
  const std::string y = f.put("list.yaml", "tensor-parallel-size: [2, 4]\n");
  const std::string m = message([&] { vllm("vllm serve m --config " + y); });
  EXPECT_NE(m.find("list.yaml: tensor-parallel-size"), std::string::npos) << m;
  EXPECT_NE(m.find("got a list"), std::string::npos) << m;
}

TEST(EngineYaml, VllmBlockSizeChoices) {
  for (const char* ok : {"1", "8", "16", "32", "64", "128", "256"})
    EXPECT_EQ(vllm(std::string("vllm serve m --block-size ") + ok).block_size.value_or(0),
              std::stoul(ok));
  for (const char* bad : {"2", "4", "24", "48", "512", "2048"}) {
    const std::string m = message([&] { vllm(std::string("vllm serve m --block-size ") + bad); });
    EXPECT_NE(m.find("--block-size: invalid choice " + std::string(bad)), std::string::npos) << m;
  }
  Files f;
  const std::string y = f.put("bs.yaml", "block-size: 24\n");
  EXPECT_NE(message([&] { vllm("vllm serve m --config " + y); }).find("invalid choice 24"),
            std::string::npos);
  // SGLang's --page-size has no such list.
  EXPECT_EQ(parse_engine_command(Engine::sglang,
                                 "python -m sglang.launch_server --model-path m --page-size 24",
                                 "--sglang")
                .block_size.value_or(0),
            24u);
}

TEST(EngineYaml, ChainedCommandsAreRefused) {
  for (const std::string& line :
       {std::string("vllm serve m --tp 2 && echo done"), std::string("vllm serve m; vllm serve n"),
        std::string("vllm serve m | tee log"), std::string("vllm serve m --tp 2 &"),
        std::string("vllm serve m || true")}) {
    const std::string m = message([&] { vllm(line); });
    EXPECT_NE(m.find("more than one command"), std::string::npos) << line << ": " << m;
  }
  // Quoted, an operator is text; `2>&1` is a redirection, not a command.
  EXPECT_EQ(vllm("vllm serve m --served-model-name 'a&&b' -tp 2").tp.value_or(0), 2u);
  EXPECT_EQ(vllm("vllm serve m -tp 2 2>&1").tp.value_or(0), 2u);
}

// vLLM's SpeculativeConfig validates its fields: a method or model that is not a string was
// silently read as "no speculative decoding".
TEST(EngineYaml, SpeculativeConfigOfTheWrongTypeIsRefused) {
  for (const std::string& json :
       {std::string(R"({"method": 5, "num_speculative_tokens": 2})"),
        std::string(R"({"method": ["eagle"], "num_speculative_tokens": 2})"),
        std::string(R"({"model": {"x": 1}, "method": "eagle"})")}) {
    const std::string m =
        message([&] { vllm("vllm serve m --speculative-config '" + json + "'"); });
    EXPECT_NE(m.find("--speculative-config"), std::string::npos) << json << ": " << m;
    EXPECT_NE(m.find("must be a string (or null)"), std::string::npos) << json << ": " << m;
  }
  EXPECT_FALSE(vllm(R"(vllm serve m --speculative-config '{"method": null, "model": null}')")
                   .speculative_method.has_value());
}

}  // namespace
}  // namespace kvplan
