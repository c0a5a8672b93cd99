// Engine command lines: vLLM and SGLang flags read exactly, unknown flags reported, suggestions.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "kvplan/engine_args.hpp"
#include "kvplan/error.hpp"
#include "kvplan/gpu.hpp"

namespace kvplan {
namespace {

TEST(EngineArgs, ReadsVllmServe) {
  const auto a = parse_engine_command(
      Engine::vllm,
      "CUDA_VISIBLE_DEVICES=0,1 vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size "
      "2 "
      "--max-model-len 32768 --kv-cache-dtype fp8 --gpu-memory-utilization 0.92 --max-num-seqs=64 "
      "--port 8000 --enable-prefix-caching --frobnicate 3 --block_size 32",
      "--vllm");
  EXPECT_EQ(a.model, "meta-llama/Llama-3.1-8B-Instruct");
  EXPECT_EQ(*a.tp, 2u);
  EXPECT_EQ(*a.max_model_len, 32768u);
  EXPECT_EQ(*a.kv_cache_dtype, "fp8");
  EXPECT_EQ(*a.memory_fraction_ppm, 920000u);
  EXPECT_EQ(*a.max_num_seqs, 64u);
  EXPECT_EQ(*a.block_size, 32u);
  ASSERT_EQ(a.unknown.size(), 1u);
  EXPECT_EQ(a.unknown[0], "--frobnicate 3");
  EXPECT_EQ(a.ignored.size(), 2u);  // --port 8000, --enable-prefix-caching
}

TEST(EngineArgs, ReadsPythonModuleForms) {
  const auto v = parse_engine_command(
      Engine::vllm,
      "python3 -m vllm.entrypoints.openai.api_server --model 'Qwen/Qwen2.5-7B-Instruct' -tp 4",
      "--vllm");
  EXPECT_EQ(v.model, "Qwen/Qwen2.5-7B-Instruct");
  EXPECT_EQ(*v.tp, 4u);
  const auto s = parse_engine_command(
      Engine::sglang,
      "python -m sglang.launch_server --model-path google/gemma-2-9b-it --tp 2 --context-length "
      "8192 "
      "--mem-fraction-static 0.85 --kv-cache-dtype fp8_e5m2 --max-running-requests 48 \\\n --weird",
      "--sglang");
  EXPECT_EQ(s.model, "google/gemma-2-9b-it");
  EXPECT_EQ(*s.tp, 2u);
  EXPECT_EQ(*s.memory_fraction_ppm, 850000u);
  EXPECT_EQ(*s.max_num_seqs, 48u);
  ASSERT_EQ(s.unknown.size(), 1u);
  EXPECT_EQ(s.unknown[0], "--weird");
}

TEST(EngineArgs, BadValuesNameTheFlag) {
  auto field = [](Engine e, const std::string& line) {
    try {
      parse_engine_command(e, line, "--vllm");
    } catch (const Error& err) {
      return err.field();
    }
    return std::string("parsed");
  };
  EXPECT_EQ(field(Engine::vllm, "vllm serve m --max-model-len lots"), "--max-model-len");
  EXPECT_EQ(field(Engine::vllm, "vllm serve m --gpu-memory-utilization 1.5"),
            "--gpu-memory-utilization");
  EXPECT_EQ(field(Engine::vllm, "vllm serve m --tensor-parallel-size"), "--tensor-parallel-size");
  EXPECT_EQ(field(Engine::vllm, "vllm serve --max-model-len 10"), "--model");
  EXPECT_EQ(field(Engine::vllm, "python -m sglang.launch_server --model-path m"), "");
  EXPECT_EQ(field(Engine::vllm, "vllm serve 'unterminated"), "");
}

TEST(EngineArgs, KvDtypeAndModels) {
  const auto m = load_model("llama-3.1-8b");
  EXPECT_EQ(engine_kv_format(Engine::vllm, "auto", m, "s", "f").dtype, KvDtype::bf16);
  EXPECT_EQ(engine_kv_format(Engine::vllm, "fp8", m, "s", "f").dtype, KvDtype::fp8_e4m3);
  EXPECT_EQ(engine_kv_format(Engine::sglang, "fp8_e5m2", m, "s", "f").dtype, KvDtype::fp8_e5m2);
  EXPECT_THROW(engine_kv_format(Engine::vllm, "int3", m, "s", "f"), Error);
  // The preset stands for the repo; the model keeps the name the command line gave it.
  const auto instruct = resolve_engine_model("meta-llama/Llama-3.1-8B-Instruct", "s");
  EXPECT_EQ(instruct.preset, "llama-3.1-8b");
  EXPECT_EQ(instruct.id, "meta-llama/Llama-3.1-8B-Instruct");
  EXPECT_EQ(hf_repo_id(instruct), "meta-llama/Llama-3.1-8B-Instruct");
  EXPECT_EQ(resolve_engine_model("meta-llama/Meta-Llama-3.1-70B-Instruct", "s").preset,
            "llama-3.1-70b");
  EXPECT_EQ(resolve_engine_model("google/gemma-2-9b-it", "s").preset, "gemma-2-9b");
  EXPECT_EQ(resolve_engine_model("Qwen/Qwen2.5-7B-Instruct", "s").preset, "qwen2.5-7b");
  EXPECT_EQ(resolve_engine_model(std::string(KVPLAN_TEST_DATA_DIR) + "/hf/mixtral-8x7b.json", "s")
                .num_kv_heads,
            8u);
  EXPECT_THROW(resolve_engine_model("acme/unknown-13b", "s"), Error);
  EXPECT_EQ(hf_repo_id(m), "meta-llama/Llama-3.1-8B");
}

TEST(EngineArgs, SuggestionsRealizeThePlan) {
  const auto m = load_model("llama-3.1-8b");
  PlanInput in;
  in.tp = 2;
  in.gpus = 4;
  in.context = 32768;
  in.concurrency = 100;
  in.format = parse_kv_format("fp8");
  in.memory_fraction_ppm = 920000;
  // On an H100 vllm serve's default is 8192 batched tokens (arg_utils.py@99d7eb5d
  // get_batch_defaults), the plan's: the line leaves it out.
  in.gpu_memory_bytes = load_gpu("h100-sxm-80gb").engine_memory_bytes();
  in.gpu_id = "h100-sxm-80gb";
  EXPECT_EQ(*vllm_command(m, in),
            "vllm serve meta-llama/Llama-3.1-8B --tensor-parallel-size 2 --data-parallel-size 2 "
            "--max-model-len 32768 --max-num-seqs 50 --kv-cache-dtype fp8 "
            "--gpu-memory-utilization 0.92");
  EXPECT_EQ(*sglang_command(m, in),
            "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --tp 2 --dp 2 "
            "--context-length 32768 --max-running-requests 50 --kv-cache-dtype fp8_e4m3 "
            "--mem-fraction-static 0.88");
  // The suggestion reads back to the same plan.
  const auto back = parse_engine_command(Engine::vllm, *vllm_command(m, in), "--vllm");
  EXPECT_EQ(*back.tp, 2u);
  EXPECT_EQ(*back.dp, 2u);
  EXPECT_EQ(*back.max_model_len, 32768u);
  EXPECT_TRUE(back.unknown.empty());
  std::string why;
  in.format = parse_kv_format("kivi:bits=2,group=32,residual=128");
  EXPECT_FALSE(vllm_command(m, in, &why));
  EXPECT_NE(why.find("kivi"), std::string::npos);
}

// A plan with expert parallelism launches it: vLLM --enable-expert-parallel, SGLang --ep-size of
// its --tp; each reads back as the same plan. A dense model has no experts to spread.
TEST(EngineArgs, SuggestionsLaunchExpertParallelism) {
  const auto moe = load_model("qwen3-30b-a3b");
  PlanInput in;
  in.tp = 4;
  in.context = 32768;
  in.concurrency = 8;
  in.expert_parallel = true;
  in.gpu_memory_bytes = load_gpu("h100-sxm-80gb").engine_memory_bytes();
  in.gpu_id = "h100-sxm-80gb";
  const std::string v = *vllm_command(moe, in), s = *sglang_command(moe, in);
  EXPECT_NE(v.find(" --tensor-parallel-size 4 --enable-expert-parallel "), std::string::npos) << v;
  EXPECT_NE(s.find(" --tp 4 --ep-size 4 "), std::string::npos) << s;
  EXPECT_TRUE(parse_engine_command(Engine::vllm, v, "--vllm").expert_parallel);
  EXPECT_TRUE(parse_engine_command(Engine::sglang, s, "--sglang").expert_parallel);
  const auto dense = load_model("llama-3.1-8b");
  EXPECT_EQ(vllm_command(dense, in)->find("expert"), std::string::npos);
  EXPECT_EQ(sglang_command(dense, in)->find("--ep-size"), std::string::npos);
}

}  // namespace

// POSIX shell word splitting, as `sh` would split the line (XCU 2.2 / 2.3), no expansions.
TEST(SplitCommandLine, QuotesAndEscapesLikeAShell) {
  using V = std::vector<std::string>;
  const auto split = [](const std::string& s) { return split_command_line(s, "--vllm"); };
  EXPECT_EQ(split(R"(vllm serve "my \"prod\" model")"), (V{"vllm", "serve", "my \"prod\" model"}));
  EXPECT_EQ(split(R"(a 'it'\''s' b)"), (V{"a", "it's", "b"}));
  EXPECT_EQ(split(R"(a "x\\y" "x\$y" "x\`y" "x\ny")"), (V{"a", "x\\y", "x$y", "x`y", "x\\ny"}));
  EXPECT_EQ(split(R"(a 'x\"y' "x'y")"), (V{"a", "x\\\"y", "x'y"}));
  EXPECT_EQ(split("a\\ b c"), (V{"a b", "c"}));
  EXPECT_EQ(split("a \\\n  --b 1 \\\r\n --c"), (V{"a", "--b", "1", "--c"}));
  EXPECT_EQ(split("a \"multi \\\nline\""), (V{"a", "multi line"}));
  EXPECT_EQ(split("a\"b\"'c'd"), (V{"abcd"}));
  EXPECT_EQ(split("a \"\" ''"), (V{"a", "", ""}));
  EXPECT_EQ(split("a # a comment\nb c#d"), (V{"a", "b", "c#d"}));
  EXPECT_EQ(split("a\\"), (V{"a\\"}));
  EXPECT_EQ(split("  \t\n"), V{});
}

TEST(SplitCommandLine, RefusesUnterminatedQuotesAndHugeLines) {
  for (const char* bad : {"a 'b", "a \"b", "a \"b\\\"", "a \"b\\"}) {
    try {
      split_command_line(bad, "--vllm");
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("unterminated"), std::string::npos) << e.what();
    }
  }
  try {
    split_command_line(std::string((1u << 20) + 1, 'a'), "--vllm");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("over the limit of 1048576"), std::string::npos);
  }
}

TEST(SplitCommandLine, LinearTime) {
  // The worst shapes (quotes opening and closing, escapes, spaces) split in time linear in the
  // line. One split of a line 8 times as long against 8 splits of the short line: the same
  // operations when the split is linear, 8 times as many when it is quadratic. Measured linear:
  // 3.2-3.5 on an idle 2-core machine (the long line's words do not stay in cache), so a
  // quadratic split would be about 26; the limit is 8. Both sides are 8 short or 1 long pass so
  // load stretches them alike (a one-short-pass ratio failed on a loaded machine: the short split
  // fits in one scheduler slice), and each of five rounds times the two back to back: the
  // smallest round's ratio is one that no load spike inflated (the ratio of the fastest of each
  // side, taken in different rounds, failed with a build and a test run beside it), while a
  // quadratic split is about 26 in every round.
  auto line = [](std::size_t bytes) {
    std::string s;
    while (s.size() < bytes) s += "\"a\\\"b\" 'c' d\\ e ";
    return s;
  };
  auto timed = [](const std::string& s, int times) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < times; ++i) {
      const auto words = split_command_line(s, "--vllm");
      EXPECT_GT(words.size(), s.size() / 20);
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  const std::string small = line(1u << 17), big = line((1u << 20) - 16);
  double ratio = 1e9, t_small = 0, t_big = 0;
  for (int round = 0; round < 5; ++round) {
    const double s_round = timed(small, 8), b_round = timed(big, 1);
    if (b_round / std::max(s_round, 1e-9) < ratio)
      ratio = b_round / std::max(s_round, 1e-9), t_small = s_round, t_big = b_round;
  }
  EXPECT_LT(ratio, 8.0) << "one split of 8 times the text took " << ratio
                        << " times as long as 8 splits of the text (" << t_big << " s against "
                        << t_small << " s); linear measured 3.2-3.5, quadratic about 26";
}

TEST(EngineArgs, NestedQuotesInAModelName) {
  const auto a = parse_engine_command(
      Engine::vllm,
      R"(vllm serve "my \"prod\" model" --served-model-name 'a b' --max-model-len 4096)", "--vllm");
  EXPECT_EQ(a.model, "my \"prod\" model");
  EXPECT_EQ(*a.max_model_len, 4096u);
}

}  // namespace kvplan
