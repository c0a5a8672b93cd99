// kvplan simulate end to end: the JSON report's keys, ordered percentiles, determinism for a
// seed, the KV pool against hand arithmetic, goodput under an SLO, replicas, the KV series, and
// bad flags or a malformed workload refused with exit 2 naming the flag, file and field.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_run.hpp"
#include "temp_dir.hpp"

namespace {

using Run = kvplan::test::CliRun;

Run kvplan(const std::string& args) { return kvplan::test::run_kvplan(args); }

bool has(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

std::string write(const kvplan::test::TempDir& dir, const std::string& name,
                  const std::string& text) {
  const std::string p = dir.file(name);
  std::ofstream(p) << text;
  return p;
}

// Two stages of Poisson arrivals (2/s for 10 s, then 6/s for 5 s), prompts of 100 shared
// system tokens + 100..400 question tokens from a pool of 20, 16 to 64 output tokens.
const char* kWorkload = R"({"kvplan_workload": 1, "arrival": "poisson",
  "stages": [{"rate": 2, "duration_s": 10}, {"rate": 6, "duration_s": 5}],
  "prompt_tokens": {"dist": "uniform", "min": 100, "max": 400},
  "output_tokens": {"dist": "uniform", "min": 16, "max": 64},
  "prefix": {"groups": 2, "shared_tokens": 100, "prompt_pool": 20}})";

const std::string kBase = "simulate --model llama-3.1-8b --gpu h100-sxm-80gb --max-model-len 4096 ";

class Simulate : public ::testing::Test {
 protected:
  kvplan::test::TempDir dir;
  std::string workload = write(dir, "w.json", kWorkload);
  std::string base = kBase + "--workload '" + workload + "' ";
};

// The header states the scheduling the run assumed, in the engine's words: vLLM's async
// scheduling (on by default, off with --engine-option async_scheduling=false), SGLang's overlap
// scheduler and receive interval; the JSON config carries the same.
TEST_F(Simulate, HeaderStatesTheSchedulingItRan) {
  const auto on = kvplan(base);
  ASSERT_EQ(on.code, 0) << on.err;
  EXPECT_TRUE(has(on.out, "prefix caching on, async scheduling on\n")) << on.out;
  const auto off = kvplan(base + "--engine-option async_scheduling=false");
  ASSERT_EQ(off.code, 0) << off.err;
  EXPECT_TRUE(has(off.out, ", async scheduling off\n")) << off.out;
  const auto j = nlohmann::json::parse(kvplan(base + "--format json").out);
  EXPECT_EQ(j["config"]["async_scheduling"], true);
  const auto sg = kvplan(base +
                         "--engine sglang --engine-option scheduler_recv_interval=10 "
                         "--engine-option disable_overlap_schedule=true");
  ASSERT_EQ(sg.code, 0) << sg.err;
  EXPECT_TRUE(has(sg.out, ", overlap scheduler off, scheduler_recv_interval 10\n")) << sg.out;
  // Pipeline stages run micro-batches without the one-step-ahead admission: the header says so.
  const auto pp = kvplan(base + "--pp 2");
  ASSERT_EQ(pp.code, 0) << pp.err;
  EXPECT_TRUE(has(pp.out, ", async scheduling off\n")) << pp.out;
}

TEST_F(Simulate, JsonHasEveryKeyAndOrderedPercentiles) {
  const auto r = kvplan(base + "--format json --slo ttft_p99_ms=2000,tpot_p99_ms=50");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* k : {"model", "gpu", "engine", "num_gpu_blocks", "block_size", "config",
                        "summary", "stages", "slo", "seed", "replicas"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_EQ(j["model"], "llama-3.1-8b");
  EXPECT_EQ(j["gpu"], "h100-sxm-80gb");
  EXPECT_EQ(j["engine"], "vllm");
  EXPECT_EQ(j["config"]["max_model_len"], 4096);
  EXPECT_EQ(j["slo"]["ttft_p99_ms"], 2000.0);
  ASSERT_EQ(j["stages"].size(), 2u);
  std::vector<nlohmann::json> blocks = {j["summary"], j["stages"][0], j["stages"][1]};
  EXPECT_EQ(j["summary"]["stage"], -1);
  EXPECT_EQ(j["stages"][1]["stage"], 1);
  for (const auto& s : blocks) {
    for (const char* m : {"ttft_ms", "tpot_ms", "itl_ms", "e2e_ms"}) {
      ASSERT_TRUE(s.contains(m)) << m;
      const auto& p = s[m];
      for (const char* q : {"mean", "p50", "p90", "p99"}) ASSERT_TRUE(p[q].is_number()) << m << q;
      EXPECT_GT(p["p50"].get<double>(), 0) << m;
      EXPECT_LE(p["p50"].get<double>(), p["p90"].get<double>()) << m;
      EXPECT_LE(p["p90"].get<double>(), p["p99"].get<double>()) << m;
    }
    // A request's first token comes before its last: TTFT ≤ E2E at every percentile.
    EXPECT_LE(s["ttft_ms"]["p99"].get<double>(), s["e2e_ms"]["p99"].get<double>());
    for (const char* k : {"input_tokens_per_s", "output_tokens_per_s", "requests_per_s"})
      EXPECT_GT(s["throughput"][k].get<double>(), 0) << k;
    for (const char* k : {"preemptions", "prefix_hit_rate", "goodput", "queue", "requests"})
      EXPECT_TRUE(s.contains(k)) << k;
    EXPECT_GE(s["prefix_hit_rate"].get<double>(), 0);
    EXPECT_LE(s["prefix_hit_rate"].get<double>(), 1);
    EXPECT_TRUE(s["queue"]["mean_waiting"].is_number());
    EXPECT_TRUE(s["goodput"]["requests_per_s"].is_number());
  }
  // The stages' requests add up to the whole run's.
  EXPECT_EQ(j["summary"]["requests"].get<int>(),
            j["stages"][0]["requests"].get<int>() + j["stages"][1]["requests"].get<int>());
}

// Llama-3.1-8B on one H100 SXM (CUDA's 79.18 GiB: 85,013,508,915 bytes), vLLM, bf16, 0.92
// utilization (its default since vllm-project/vllm#38284), max_num_seqs and max_num_batched_tokens
// left out: vllm serve's defaults on a GPU of
// >= 70 GiB that is not an A100, 1024 and 8192 (vllm/engine/arg_utils.py@99d7eb5d
// get_batch_defaults). Budget floor(85,013,508,915 · 0.92) = 78,212,428,201; minus the weights
// 16,060,522,496 and vLLM's terms (docs/engine-memory.md): activation = the Triton sampler's
// (3.5 · 1024 + 132) · 128256 · 4 + (8192 + 2048) · 4096 · 2 = 1,990,283,264 (over the forward's
// 8192 · (32 · 128 + 2 · 4096 + 3 · 14336) · 2 = 905,969,664) + 0.04 GiB 42,949,673; non-torch
// 139,586,437; graphs 622,770,258 — 2,795,589,632 in all — = 59,356,316,073 bytes; one block of 16
// tokens over 32 layers = 16 · 8 KV heads · (128 + 128) · 2 bytes · 32 = 2,097,152 bytes;
// 59,356,316,073 // 2,097,152 = 28,303 blocks (28,302 usable: vLLM's null block).
TEST_F(Simulate, PoolAndSeriesByHand) {
  const std::string series = dir.file("kv.csv");
  const auto r = kvplan(base + "--format json --kv-series '" + series + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["num_gpu_blocks"], 28303);
  EXPECT_EQ(j["block_size"], 16);
  std::ifstream f(series);
  std::string header, line;
  std::getline(f, header);
  EXPECT_EQ(header, "t_s,blocks_used,blocks_total,running,waiting,preemptions");
  int rows = 0;
  while (std::getline(f, line)) {
    ++rows;
    std::stringstream ss(line);
    std::string t, used, total;
    std::getline(ss, t, ',');
    std::getline(ss, used, ',');
    std::getline(ss, total, ',');
    EXPECT_EQ(total, "28302") << line;
    EXPECT_LE(std::stoull(used), 28302u) << line;
  }
  // One sample a second over at least the 15 s of arrivals.
  EXPECT_GE(rows, 15);
}

TEST_F(Simulate, DeterministicForASeed) {
  const auto a = kvplan(base + "--format json --seed 7");
  const auto b = kvplan(base + "--format json --seed 7");
  const auto c = kvplan(base + "--format json --seed 8");
  ASSERT_EQ(a.code, 0) << a.err;
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_NE(a.out, c.out);  // other arrivals and lengths
}

// A request-level SLO every request meets gives goodput = throughput; one none can meet
// (a TTFT of 1 µs is below one step) gives 0.
TEST_F(Simulate, GoodputUnderAnSlo) {
  const auto loose = nlohmann::json::parse(kvplan(base + "--format json --slo e2e_p99_ms=1e8").out);
  EXPECT_DOUBLE_EQ(loose["summary"]["goodput"]["requests_per_s"].get<double>(),
                   loose["summary"]["throughput"]["requests_per_s"].get<double>());
  EXPECT_DOUBLE_EQ(loose["summary"]["goodput"]["fraction"].get<double>(), 1.0);
  const auto tight =
      nlohmann::json::parse(kvplan(base + "--format json --slo ttft_p99_ms=0.001").out);
  EXPECT_EQ(tight["summary"]["goodput"]["requests_per_s"].get<double>(), 0.0);
}

// Two replicas: every request is still served once; each replica gets about half the load, so
// the queue cannot be longer than one replica's; the ITL percentiles are not pooled (null).
// Left out, max_num_seqs and max_num_batched_tokens are what the engine runs on the GPU
// (vllm/engine/arg_utils.py@99d7eb5d get_batch_defaults, the OpenAI server: 1024 and 8192 on a
// GPU of >= 70 GiB whose name has no "a100", else 256 and 2048; then max_num_seqs = min(that,
// max_num_batched_tokens)), and simulate sizes the pool as check sizes it for the same vllm serve
// line: one verdict.
TEST_F(Simulate, EngineDefaults) {
  const auto config = [&](const std::string& flags, const std::string& gpu = "h100-sxm-80gb") {
    const auto r =
        kvplan("simulate --model llama-3.1-8b --max-model-len 4096 --format json --gpu " + gpu +
               " --workload '" + workload + "' " + flags);
    EXPECT_EQ(r.code, 0) << flags << "\n" << r.err;
    return r.code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
  };
  const auto h100 = config("");
  EXPECT_EQ(h100["config"]["max_num_seqs"], 1024);
  EXPECT_EQ(h100["config"]["max_num_batched_tokens"], 8192);
  for (const char* small : {"a100-80gb", "l40s", "rtx-4090"}) {
    const auto j = config("", small);
    EXPECT_EQ(j["config"]["max_num_seqs"], 256) << small;
    EXPECT_EQ(j["config"]["max_num_batched_tokens"], 2048) << small;
    const auto c = kvplan(std::string("check --vllm \"vllm serve meta-llama/Llama-3.1-8B "
                                      "--max-model-len 4096\" --format json --gpu ") +
                          small);
    ASSERT_EQ(c.code, 0) << small << "\n" << c.err;
    EXPECT_EQ(nlohmann::json::parse(c.out)["capacity"]["num_gpu_blocks"], j["num_gpu_blocks"])
        << small;
  }
  // vllm serve --max-num-batched-tokens 100 starts with 100 sequences: min(1024, 100).
  EXPECT_EQ(config("--max-num-batched-tokens 100")["config"]["max_num_seqs"], 100);
  // trtllm-serve: max_batch_size 2048, max_num_tokens 8192 (EngineRules::default_max_num_seqs).
  const auto trt = config("--engine trtllm");
  EXPECT_EQ(trt["config"]["max_num_seqs"], 2048);
  EXPECT_EQ(trt["config"]["max_num_batched_tokens"], 8192);
}

TEST_F(Simulate, Replicas) {
  const auto one = nlohmann::json::parse(kvplan(base + "--format json").out);
  const auto r =
      kvplan(base + "--format json --replicas 2 --kv-series '" + dir.file("k2.csv") + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto two = nlohmann::json::parse(r.out);
  EXPECT_EQ(two["replicas"], 2);
  EXPECT_EQ(two["summary"]["requests"], one["summary"]["requests"]);
  EXPECT_TRUE(two["summary"]["itl_ms"]["p99"].is_null());
  EXPECT_TRUE(two["summary"]["itl_ms"]["mean"].is_number());
  EXPECT_EQ(two["summary"]["itl_ms"]["count"], one["summary"]["itl_ms"]["count"]);
  EXPECT_LE(two["summary"]["e2e_ms"]["p50"].get<double>(),
            one["summary"]["e2e_ms"]["p50"].get<double>() * 1.0001);
  std::ifstream f(dir.file("k2.csv"));
  std::string line;
  std::getline(f, line);
  std::getline(f, line);
  EXPECT_EQ(line, "0.000,0,56604,0,0,0");  // two pools of 28,302 usable blocks
}

TEST_F(Simulate, TableCsvMarkdown) {
  const auto t = kvplan(base);
  ASSERT_EQ(t.code, 0) << t.err;
  for (const char* s : {"TTFT p99 ms", "TPOT mean ms", "ITL p90 ms", "E2E p50 ms", "stage 1",
                        "prefix hit rate", "goodput requests/s", "28,303 blocks"})
    EXPECT_TRUE(has(t.out, s)) << s << "\n" << t.out;
  const auto c = kvplan(base + "--format csv");
  EXPECT_EQ(c.out.substr(0, c.out.find('\n')), "metric,all,stage 0,stage 1");
  const auto m = kvplan(base + "--format md");
  EXPECT_EQ(m.out.substr(0, 2), "| ");
}

TEST_F(Simulate, BadFlagsExit2NamingTheFlag) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--tp 3", "--tp"},
      {"--max-num-seqs 0", "--max-num-seqs"},
      {"--max-num-batched-tokens 0", "--max-num-batched-tokens"},
      {"--slo ttft_p99_ms=-1", "ttft_p99_ms"},
      {"--slo p99=5", "p99"},
      {"--engine tgi", "--engine"},
      {"--format junit", "--format"},
      {"--replicas 0", "--replicas"},
      {"--gpu-memory-utilization 1.5", "--gpu-memory-utilization"},
      {"--kv-dtype fp7", "--kv-dtype"},
      {"--cpu-offload-gib 4 --cpu-offload-gbps fast", "--cpu-offload-gbps"},
      // The bandwidth of a CPU tier that was not asked for: refused, not ignored.
      {"--cpu-offload-gbps 5", "--cpu-offload-gbps"},
      // vLLM refuses max_num_batched_tokens < max_num_seqs (SchedulerConfig,
      // vllm/config/scheduler.py@1f8758d584e8f599219d75adf658e182ed809a43); left out,
      // max_num_seqs defaults to at most max_num_batched_tokens (EngineDefaults below).
      {"--max-num-batched-tokens 63 --max-num-seqs 64", "--max-num-batched-tokens"},
      {"--enable-prefix-caching --no-enable-prefix-caching", "--no-enable-prefix-caching"},
      {"--max-model-len 200000", "--max-model-len"},
      {"--bogus 1", "bogus"},
  };
  for (const auto& [flags, name] : cases) {
    const auto r = kvplan(base + flags);
    EXPECT_EQ(r.code, 2) << flags << "\n" << r.out << r.err;
    EXPECT_TRUE(has(r.err, name)) << flags << ": " << r.err;
  }
  const auto missing = kvplan(kBase);
  EXPECT_EQ(missing.code, 2);
  EXPECT_TRUE(has(missing.err, "workload")) << missing.err;
  const auto out = kvplan(base + "--kv-series /nonexistent-dir/kv.csv");
  EXPECT_EQ(out.code, 2);
  EXPECT_TRUE(has(out.err, "/nonexistent-dir/kv.csv")) << out.err;
}

// The boundary of vLLM's check: max_num_batched_tokens == max_num_seqs is accepted; SGLang has
// no such rule.
TEST_F(Simulate, BatchedTokensAtLeastSeqsForVllmOnly) {
  EXPECT_EQ(kvplan(base + "--max-num-batched-tokens 64 --max-num-seqs 64 --format json").code, 0);
  const auto s = kvplan(base + "--engine sglang --max-num-batched-tokens 100 --format json");
  EXPECT_EQ(s.code, 0) << s.err;
}

// Three requests of 5000 prompt tokens under max_model_len 4096 are all refused: counted, the
// latencies null / "-" (nothing measured), not 0.
TEST_F(Simulate, RefusedRequestsCounted) {
  const std::string huge = write(dir, "huge.json", R"({"kvplan_workload": 1, "arrival": "constant",
    "stages": [{"rate": 1, "duration_s": 3}],
    "prompt_tokens": {"dist": "fixed", "mean": 5000}, "output_tokens": {"dist": "fixed", "mean": 10}})");
  const auto r = kvplan(kBase + "--workload '" + huge + "' --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["summary"]["refused"], 3);
  EXPECT_EQ(j["summary"]["requests"], 0);
  EXPECT_EQ(j["stages"][0]["refused"], 3);
  EXPECT_TRUE(j["summary"]["ttft_ms"]["p99"].is_null());
  EXPECT_TRUE(j["stages"][0]["e2e_ms"]["mean"].is_null());
  const auto t = kvplan(kBase + "--workload '" + huge + "'");
  EXPECT_TRUE(has(t.out, "refused 3 of 3 requests")) << t.out;
  const auto c = kvplan(kBase + "--workload '" + huge + "' --format csv");
  EXPECT_TRUE(has(c.out, "\nrefused,3,3\n")) << c.out;
  EXPECT_TRUE(has(c.out, "\nTTFT p99 ms,-,-\n")) << c.out;
  // The small workload refuses none.
  const auto ok = nlohmann::json::parse(kvplan(base + "--format json").out);
  EXPECT_EQ(ok["summary"]["refused"], 0);
}

// A front end of 0.5 s (a calibration's frontend_s) is in TTFT with one replica and with two.
TEST_F(Simulate, ReplicasKeepTheFrontEnd) {
  const std::string cal = write(dir, "fe.json",
                                R"({"kvplan_calibration": 1, "engine": "vllm", "gpu": )"
                                R"("h100-sxm-80gb", "model": "llama-3.1-8b", "tp": 1, )"
                                R"("efficiency": {"frontend_s": 0.5}})");
  for (const char* replicas : {"1", "2"}) {
    const auto r =
        kvplan(base + "--format json --calibration '" + cal + "' --replicas " + replicas);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_GE(j["summary"]["ttft_ms"]["p50"].get<double>(), 500.0) << replicas;
    EXPECT_GE(j["summary"]["e2e_ms"]["p50"].get<double>(), 500.0) << replicas;
  }
}

TEST_F(Simulate, MalformedWorkloadExit2NamingFileAndField) {
  const std::string bad = write(dir, "bad.json", R"({"kvplan_workload": 1, "arrival": "poisson",
    "stages": [{"rate": -2, "duration_s": 10}],
    "prompt_tokens": {"dist": "fixed", "mean": 100}, "output_tokens": {"dist": "fixed", "mean": 8}})");
  const auto r = kvplan(kBase + "--workload '" + bad + "'");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r.err, bad)) << r.err;
  EXPECT_TRUE(has(r.err, "/stages/0/rate")) << r.err;
  const auto missing = kvplan(kBase + "--workload '" + dir.file("absent.json") + "'");
  EXPECT_EQ(missing.code, 2);
  EXPECT_TRUE(has(missing.err, "absent.json")) << missing.err;
}

TEST_F(Simulate, HelpAndCompletion) {
  const auto h = kvplan("simulate --help");
  EXPECT_EQ(h.code, 0);
  EXPECT_TRUE(has(h.out, "--kv-series")) << h.out;
  const auto c = kvplan("completion bash");
  EXPECT_EQ(c.code, 0);
  EXPECT_TRUE(has(c.out, "simulate")) << c.out;
  EXPECT_TRUE(has(c.out, "--enable-prefix-caching")) << c.out;
}

}  // namespace

namespace {

// plan --workload --slo: a two-GPU, one-TP, one-format search of the small workload; every
// candidate holds the load on one GPU, so the winner is one GPU with its engine flags.
TEST_F(Simulate, PlanSloSearch) {
  const std::string cmd = "plan --model llama-3.1-8b --context 4096 --workload '" + workload +
                          "' --slo ttft_p99_ms=2000,tpot_p99_ms=50 --gpu h100-sxm-80gb,a100-80gb "
                          "--tp 1 --kv-dtype bf16 --price h100-sxm-80gb=2.49 "
                          "--price a100-80gb=1.79 --format json";
  const auto r = kvplan(cmd);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["rows"].size(), 2u);
  ASSERT_TRUE(j["winner"].is_object());
  // Both meet on one GPU; the cheaper GPU-hour wins.
  EXPECT_EQ(j["winner"]["gpu"], "a100-80gb");
  EXPECT_EQ(j["winner"]["gpus"], 1);
  EXPECT_DOUBLE_EQ(j["winner"]["cost_per_hour"].get<double>(), 1.79);
  EXPECT_LE(j["winner"]["ttft_p99_ms"].get<double>(), 2000);
  EXPECT_LE(j["winner"]["tpot_p99_ms"].get<double>(), 50);
  EXPECT_EQ(j["winner"]["vllm"].get<std::string>().rfind("vllm serve meta-llama/Llama-3.1-8B", 0),
            0u);
  EXPECT_EQ(j["rows"][1]["gpu"], "h100-sxm-80gb");
  const auto t = kvplan(cmd.substr(0, cmd.find(" --format")));
  EXPECT_EQ(t.code, 0) << t.err;
  EXPECT_TRUE(has(t.out, "cheapest meeting the SLO: 1 x a100-80gb")) << t.out;

  // A calibration's step-time efficiency reaches every candidate: half the default HBM
  // efficiency (0.41 of 0.82) doubles the memory-bound decode term and leaves the fixed costs,
  // so the TPOT p99 grows by more than 1.5x and at most 2x.
  const std::string cal = write(dir, "cal.json",
                                R"({"kvplan_calibration": 1, "engine": "vllm", "gpu": )"
                                R"("h100-sxm-80gb", "model": "llama-3.1-8b", "tp": 1, )"
                                R"("efficiency": {"memory": 0.41}})");
  const auto c = kvplan(cmd + " --calibration '" + cal + "'");
  ASSERT_EQ(c.code, 0) << c.err;
  const auto cj = nlohmann::json::parse(c.out);
  double base_tpot = 0, slow_tpot = 0;
  for (const auto& row : j["rows"])
    if (row["gpu"] == "h100-sxm-80gb") base_tpot = row["tpot_p99_ms"].get<double>();
  for (const auto& row : cj["rows"])
    if (row["gpu"] == "h100-sxm-80gb") slow_tpot = row["tpot_p99_ms"].get<double>();
  EXPECT_GT(slow_tpot, 1.5 * base_tpot);
  EXPECT_LE(slow_tpot, 2.0 * base_tpot);

  // A workload with a request longer than --context: no line meets the SLO, each says why.
  const std::string longw =
      write(dir, "long.jsonl",
            "{\"arrival_s\": 0, \"prompt_tokens\": 100, \"output_tokens\": 8}\n"
            "{\"arrival_s\": 0.5, \"prompt_tokens\": 5000, \"output_tokens\": 8}\n");
  const auto lr = kvplan("plan --model llama-3.1-8b --context 4096 --workload '" + longw +
                         "' --slo ttft_p99_ms=2000 --gpu h100-sxm-80gb --tp 1 --kv-dtype bf16 "
                         "--format json");
  ASSERT_EQ(lr.code, 0) << lr.err;
  const auto lj = nlohmann::json::parse(lr.out);
  EXPECT_TRUE(lj["winner"].is_null()) << lr.out;
  ASSERT_EQ(lj["rows"].size(), 1u);
  EXPECT_TRUE(has(lj["rows"][0]["reason"].get<std::string>(), "1 of 2 requests refused")) << lr.out;

  // An efficiency-only calibration keeps --reserve-gib: the same plan with and without it.
  const std::string eff = write(dir, "eff.json",
                                R"({"kvplan_calibration": 1, "engine": "vllm", "gpu": )"
                                R"("h100-sxm-80gb", "model": "llama-3.1-8b", "tp": 1, )"
                                R"("efficiency": {"memory": 0.5}})");
  const std::string p =
      "plan --model llama-3.1-8b --gpu h100-sxm-80gb --context 4096 --brief "
      "--reserve-gib 20 --format json";
  const auto without = kvplan(p), with = kvplan(p + " --calibration '" + eff + "'");
  ASSERT_EQ(without.code, 0) << without.err;
  ASSERT_EQ(with.code, 0) << with.err;
  EXPECT_EQ(with.out, without.out);
  EXPECT_NE(kvplan("plan --model llama-3.1-8b --gpu h100-sxm-80gb --context 4096 --brief "
                   "--format json")
                .out,
            without.out);  // the 20 GiB reserve does change the plan

  const std::vector<std::pair<std::string, std::string>> bad = {
      {"plan --model llama-3.1-8b --workload '" + workload +
           "' --slo ttft_p99_ms=5 --max-num-batched-tokens 100",
       "--max-num-batched-tokens"},
      {"plan --model llama-3.1-8b --slo ttft_p99_ms=5", "--workload"},
      {"plan --model llama-3.1-8b --workload '" + workload + "'", "--slo"},
      {"plan --model llama-3.1-8b --workload '" + workload + "' --slo ttft_p99_ms=5 --gpus 4",
       "--gpus"},
      {"plan --model llama-3.1-8b --workload '" + workload + "' --slo ttft_p99_ms=5 --gpu a,,b",
       "--gpu"},
      {"plan --model llama-3.1-8b --workload '" + workload + "' --slo ttft_p99_ms=5 --max-gpus 0",
       "--max-gpus"},
      {"plan --model llama-3.1-8b --gpu h100-sxm-80gb --max-gpus 8", "--max-gpus"},
  };
  for (const auto& [c, name] : bad) {
    const auto b = kvplan(c);
    EXPECT_EQ(b.code, 2) << c << "\n" << b.out;
    EXPECT_TRUE(has(b.err, name)) << c << ": " << b.err;
  }
}

}  // namespace

namespace {

// kvplan check with latency limits under a workload (relative to the deployment file): one test
// case per limit, exit 0 when all hold and 1 when one fails. The limits are far from what the
// small workload measures on 2 × H100 (every TPOT of an unloaded Llama-3.1-8B decode is above
// 2 ms: one step reads its 16 GB of weights, 16.06e9 / 3.35e12 = 4.8 ms at the full HBM rate),
// so the verdicts do not depend on the step model's fitted factors.
TEST_F(Simulate, CheckLatencySlo) {
  const std::string head = R"({"kvplan_deploy": 1, "model": "llama-3.1-8b",
    "hardware": {"gpu": "h100-sxm-80gb", "gpus": 2},
    "engine": {"name": "vllm", "max_model_len": 4096, "max_num_seqs": 64},
    "workload": "w.json", "slo": {"concurrency": 1, )";
  const auto pass = write(
      dir, "pass.json", head + R"("ttft_p99_ms": 2000, "tpot_p99_ms": 50, "e2e_p99_ms": 60000}})");
  const auto fail = write(dir, "fail.json", head + R"("ttft_p99_ms": 2000, "tpot_p99_ms": 2}})");
  const auto p = kvplan("check '" + pass + "' --format junit");
  EXPECT_EQ(p.code, 0) << p.out << p.err;
  for (const char* id : {"name=\"ttft_p99\"", "name=\"tpot_p99\"", "name=\"e2e_p99\""})
    EXPECT_TRUE(has(p.out, id)) << id << "\n" << p.out;
  EXPECT_TRUE(has(p.out, "failures=\"0\"")) << p.out;
  EXPECT_TRUE(has(p.out, "on 2 replicas")) << p.out;
  const auto f = kvplan("check '" + fail + "' --format json");
  EXPECT_EQ(f.code, 1) << f.out << f.err;
  const auto j = nlohmann::json::parse(f.out);
  int found = 0;
  for (const auto& item : j["checks"]) {
    if (item["id"] == "tpot_p99") {
      ++found;
      EXPECT_FALSE(item["passed"].get<bool>());
    }
    if (item["id"] == "ttft_p99") {
      ++found;
      EXPECT_TRUE(item["passed"].get<bool>());
    }
    EXPECT_NE(item["id"], "e2e_p99");  // no limit, no test case
  }
  EXPECT_EQ(found, 2) << f.out;

  // A calibration's step-time efficiency reaches the check: at a twentieth of the default HBM
  // efficiency (0.041 of 0.822) every decode step reads the 16 GB of weights at about 0.14 TB/s,
  // 16.06e9 / (3.35e12 · 0.041) = 117 ms > the 50 ms TPOT limit the default passes.
  const std::string slow = write(dir, "slow.json",
                                 R"({"kvplan_calibration": 1, "engine": "vllm", "gpu": )"
                                 R"("h100-sxm-80gb", "model": "llama-3.1-8b", "tp": 1, )"
                                 R"("efficiency": {"memory": 0.041}})");
  const auto cs = kvplan("check '" + pass + "' --format json --calibration '" + slow + "'");
  EXPECT_EQ(cs.code, 1) << cs.out << cs.err;
  int tpot_items = 0;
  const auto csj = nlohmann::json::parse(cs.out);
  for (const auto& item : csj["checks"]) {
    if (item["id"] != "tpot_p99") continue;
    ++tpot_items;
    EXPECT_FALSE(item["passed"].get<bool>()) << cs.out;
  }
  EXPECT_EQ(tpot_items, 1) << cs.out;
  // An efficiency-only calibration keeps the deployment's reserve (engine.reserve_gib 60: the
  // weights, 16.06 GB, and 60 GiB exceed 0.9 of 79.6 GiB, so weights_fit fails either way).
  const auto big =
      write(dir, "big.json",
            std::string(head).replace(head.find("\"max_num_seqs\""), 0, "\"reserve_gib\": 60, ") +
                R"("ttft_p99_ms": 2000}})");
  const auto eff = write(dir, "eff.json",
                         R"({"kvplan_calibration": 1, "engine": "vllm", "gpu": )"
                         R"("h100-sxm-80gb", "model": "llama-3.1-8b", "tp": 1, )"
                         R"("efficiency": {"overhead_s": 0.001}})");
  const auto b0 = kvplan("check '" + big + "' --format json");
  const auto b1 = kvplan("check '" + big + "' --format json --calibration '" + eff + "'");
  EXPECT_EQ(b0.code, 1) << b0.out << b0.err;
  EXPECT_EQ(b1.code, 1) << b1.out << b1.err;
  for (const auto* o : {&b0, &b1}) {
    int fit_items = 0;
    const auto oj = nlohmann::json::parse(o->out);
    for (const auto& item : oj["checks"]) {
      if (item["id"] != "weights_fit") continue;
      ++fit_items;
      EXPECT_FALSE(item["passed"].get<bool>()) << o->out;
    }
    EXPECT_EQ(fit_items, 1) << o->out;
  }

  // A request longer than max_model_len is refused: the latency items fail, saying so, even
  // though the request that ran meets every limit.
  write(dir, "long.jsonl",
        "{\"arrival_s\": 0, \"prompt_tokens\": 100, \"output_tokens\": 8}\n"
        "{\"arrival_s\": 0.5, \"prompt_tokens\": 5000, \"output_tokens\": 8}\n");
  const auto longd = write(dir, "longd.json",
                           std::string(head).replace(head.find("w.json"), 6, "long.jsonl") +
                               R"("ttft_p99_ms": 2000, "e2e_p99_ms": 60000}})");
  const auto lc = kvplan("check '" + longd + "' --format json");
  EXPECT_EQ(lc.code, 1) << lc.out << lc.err;
  int refused_items = 0;
  const auto lcj = nlohmann::json::parse(lc.out);
  for (const auto& item : lcj["checks"])
    if (item["id"] == "ttft_p99" || item["id"] == "e2e_p99") {
      EXPECT_FALSE(item["passed"].get<bool>()) << lc.out;
      EXPECT_TRUE(has(item["detail"].get<std::string>(), "1 of 2 requests refused")) << lc.out;
      ++refused_items;
    }
  EXPECT_EQ(refused_items, 2) << lc.out;

  // Limits without a workload, a workload without limits, a malformed workload: exit 2.
  const auto no_w = write(dir, "no_w.json", R"({"kvplan_deploy": 1, "model": "llama-3.1-8b",
    "hardware": {"gpu": "h100-sxm-80gb"}, "engine": {"name": "vllm", "max_model_len": 4096},
    "slo": {"concurrency": 1, "ttft_p99_ms": 100}})");
  auto r = kvplan("check '" + no_w + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "/workload")) << r.err;
  const auto no_l = write(dir, "no_l.json", R"({"kvplan_deploy": 1, "model": "llama-3.1-8b",
    "hardware": {"gpu": "h100-sxm-80gb"}, "engine": {"name": "vllm", "max_model_len": 4096},
    "workload": "w.json", "slo": {"concurrency": 1}})");
  r = kvplan("check '" + no_l + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "/slo")) << r.err;
  const auto neg = write(dir, "neg.json", head + R"("ttft_p99_ms": -5}})");
  r = kvplan("check '" + neg + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "/slo/ttft_p99_ms")) << r.err;
  write(dir, "bad_w.json", R"({"kvplan_workload": 1, "arrival": "sometimes"})");
  const auto bad = write(
      dir, "bad.json",
      std::string(head).replace(head.find("w.json"), 6, "bad_w.json") + R"("ttft_p99_ms": 100}})");
  r = kvplan("check '" + bad + "'");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r.err, "bad_w.json")) << r.err;
}

}  // namespace

namespace {

// An output never replaces an input (issue 30): --kv-series onto the workload is refused naming
// both, and the workload is left as it was; "-" writes the series to standard output.
TEST_F(Simulate, TheSeriesNeverReplacesTheWorkload) {
  const auto r = kvplan(base + "--kv-series '" + workload + "'");
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "--kv-series")) << r.err;
  EXPECT_TRUE(has(r.err, workload)) << r.err;
  std::ifstream f(workload);
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_EQ(ss.str(), kWorkload);
  const auto out = kvplan(base + "--kv-series -");
  EXPECT_EQ(out.code, 0) << out.err;
  EXPECT_EQ(out.out.rfind("t_s,blocks_used,blocks_total,running,waiting,preemptions\n", 0), 0u)
      << out.out.substr(0, 200);
}

// A closed loop of 4 clients and 40 requests: --requests-out writes 40 lines, one per request in
// id order, with every key; never more than 4 requests are between arrival and finish; the file
// never replaces an input, and '-' writes the lines in place of the report.
TEST_F(Simulate, ClosedLoopRequestsOut) {
  const std::string closed = write(dir, "closed.json", R"({"kvplan_workload": 1,
    "arrival": {"process": "closed", "concurrency": 4, "requests": 40},
    "prompt_tokens": {"dist": "uniform", "mean": 500, "range_ratio": 0.5},
    "output_tokens": {"dist": "fixed", "mean": 32}})");
  const std::string out = dir.file("requests.jsonl");
  const std::string cmd = kBase + "--workload '" + closed + "' ";
  const auto r = kvplan(cmd + "--requests-out '" + out + "' --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["summary"]["requests"], 40);
  std::ifstream f(out);
  std::vector<std::pair<double, int>> ev;
  std::string line;
  std::uint64_t n = 0;
  while (std::getline(f, line)) {
    const auto j = nlohmann::json::parse(line);
    EXPECT_EQ(j["id"], n++);
    for (const char* k :
         {"arrival_s", "queued_s", "scheduled_s", "first_token_s", "finish_s", "input_tokens",
          "output_tokens", "cached_tokens", "preemptions", "finished", "ttft_ms", "e2e_ms"})
      EXPECT_TRUE(j.contains(k)) << k << ": " << line;
    EXPECT_EQ(j["output_tokens"], 32);
    EXPECT_GE(j["input_tokens"].get<int>(), 250);  // [floor(500 · 0.5), ceil(500 · 1.5)]
    EXPECT_LE(j["input_tokens"].get<int>(), 750);
    EXPECT_LE(j["arrival_s"].get<double>(), j["queued_s"].get<double>());
    EXPECT_LE(j["queued_s"].get<double>(), j["scheduled_s"].get<double>());
    EXPECT_LT(j["scheduled_s"].get<double>(), j["first_token_s"].get<double>());
    EXPECT_LE(j["first_token_s"].get<double>(), j["finish_s"].get<double>());
    ev.push_back({j["arrival_s"].get<double>(), +1});
    ev.push_back({j["finish_s"].get<double>(), -1});
  }
  EXPECT_EQ(n, 40u);
  std::sort(ev.begin(), ev.end());
  int now = 0, most = 0;
  for (const auto& e : ev) most = std::max(most, now += e.second);
  EXPECT_EQ(most, 4);
  const auto clash = kvplan(cmd + "--requests-out '" + closed + "'");
  EXPECT_EQ(clash.code, 2) << clash.out;
  EXPECT_TRUE(has(clash.err, "--requests-out")) << clash.err;
  const auto dash = kvplan(cmd + "--requests-out -");
  EXPECT_EQ(dash.code, 0) << dash.err;
  EXPECT_EQ(dash.out.rfind("{\"id\":0,\"arrival_s\":0.000000,", 0), 0u) << dash.out.substr(0, 200);
  const auto both = kvplan(cmd + "--requests-out - --kv-series -");
  EXPECT_EQ(both.code, 2) << both.out;
  EXPECT_TRUE(has(both.err, "--requests-out")) << both.err;
}

// Speculative decoding through the binary: --engine-option num_speculative_tokens=3 with
// --acceptance-rate (or the engine key acceptance_rate) simulates the drafts (2.8 tokens a
// verifying step at 0.8, 0.6, 0.4), so the same closed loop decodes in fewer steps and at a lower
// TPOT; the report states the setting. Drafts without rates run without drafts, with a note;
// rates without drafts, both spellings at once, and rates for another engine exit 2.
TEST_F(Simulate, SpeculativeDecoding) {
  const std::string closed = write(dir, "spec.json", R"({"kvplan_workload": 1,
    "arrival": {"process": "closed", "concurrency": 8, "requests": 32},
    "prompt_tokens": {"dist": "fixed", "mean": 512},
    "output_tokens": {"dist": "fixed", "mean": 64}})");
  const std::string cmd = kBase + "--workload '" + closed + "' --format json ";
  const std::string k3 = "--engine-option num_speculative_tokens=3 ";
  const auto plain = kvplan(cmd);
  const auto spec = kvplan(cmd + k3 + "--acceptance-rate 0.8,0.6,0.4");
  const auto key = kvplan(cmd + k3 + "--engine-option acceptance_rate=0.8,0.6,0.4");
  const auto none = kvplan(cmd + k3);
  for (const auto* r : {&plain, &spec, &key, &none}) ASSERT_EQ(r->code, 0) << r->err;
  const auto p = nlohmann::json::parse(plain.out), q = nlohmann::json::parse(spec.out);
  EXPECT_EQ(q["summary"]["requests"], 32);
  EXPECT_LT(q["steps"].get<double>(), p["steps"].get<double>());
  EXPECT_LT(q["summary"]["tpot_ms"]["mean"].get<double>(),
            p["summary"]["tpot_ms"]["mean"].get<double>());
  EXPECT_EQ(q["config"]["num_speculative_tokens"], 3);
  EXPECT_EQ(q["config"]["spec_acceptance"], nlohmann::json({0.8, 0.6, 0.4}));
  EXPECT_FALSE(p["config"].contains("num_speculative_tokens"));
  EXPECT_EQ(key.out, spec.out);  // the flag and the engine key are one input
  // Two draft layers: the same drafts and steps, each draft pass twice the layers.
  const auto two = kvplan(cmd + k3 + "--acceptance-rate 0.8,0.6,0.4 --draft-layers 2");
  ASSERT_EQ(two.code, 0) << two.err;
  const auto t = nlohmann::json::parse(two.out);
  EXPECT_EQ(t["config"]["draft_layers"], 2);
  EXPECT_EQ(q["config"]["draft_layers"], 1);
  EXPECT_EQ(t["steps"], q["steps"]);
  EXPECT_GT(t["summary"]["tpot_ms"]["mean"].get<double>(),
            q["summary"]["tpot_ms"]["mean"].get<double>());
  EXPECT_TRUE(has(none.err, "without acceptance rates")) << none.err;
  EXPECT_EQ(nlohmann::json::parse(none.out)["steps"], p["steps"]);
  const auto text = kvplan(kBase + "--workload '" + closed +
                           "' --engine-option num_speculative_tokens=2 --acceptance-rate 0.5");
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_TRUE(has(text.out, "2 draft tokens a step")) << text.out;
  EXPECT_TRUE(has(text.out, "0.500, 0.250 (1.750 tokens a verifying step)")) << text.out;
  // check's latency limit simulates the same drafts from a deployment file's engine key, and
  // says when drafts run without rates.
  const auto deploy = [&](const std::string& rates) {
    return write(dir, "d" + std::to_string(rates.size()) + ".json",
                 R"({"kvplan_deploy": 1, "model": "llama-3.1-8b",
      "hardware": {"gpu": "h100-sxm-80gb"}, "engine": {"name": "vllm", "max_model_len": 4096,
      "max_num_seqs": 8, "num_speculative_tokens": 3)" +
                     rates + R"(}, "slo": {"concurrency": 8, "tpot_p99_ms": 1000},
      "workload": ")" +
                     closed + "\"}");
  };
  const auto with = kvplan("check '" + deploy(R"(, "acceptance_rate": [0.8, 0.6, 0.4])") + "'");
  const auto without = kvplan("check '" + deploy("") + "'");
  ASSERT_EQ(with.code, 0) << with.out << with.err;
  ASSERT_EQ(without.code, 0) << without.out << without.err;
  EXPECT_TRUE(has(without.out, "without acceptance rates")) << without.out;
  EXPECT_FALSE(has(with.out, "without acceptance rates")) << with.out;
  char mean[64];  // check's figure is simulate's: one verdict
  std::snprintf(mean, sizeof mean, ", mean %.1f ms", q["summary"]["tpot_ms"]["mean"].get<double>());
  EXPECT_TRUE(has(with.out, mean)) << mean << "\n" << with.out;
  for (const std::string bad :
       {std::string("--acceptance-rate 0.5"), std::string("--engine sglang --acceptance-rate 0.5"),
        k3 + "--acceptance-rate 0.5,0.7,0.2",
        k3 + "--acceptance-rate 0.5 --engine-option acceptance_rate=0.5"}) {
    const auto r = kvplan(cmd + bad);
    EXPECT_EQ(r.code, 2) << bad << "\n" << r.out;
    EXPECT_TRUE(has(r.err, "--acceptance-rate")) << bad << ": " << r.err;
  }
}

// Four closed-loop clients, eight requests of 1,024 prompt and 32 output tokens: the MoE runs
// below.
constexpr const char* kClosedMoeWorkload = R"({"kvplan_workload": 1,
    "arrival": {"process": "closed", "concurrency": 4, "requests": 8},
    "prompt_tokens": {"dist": "fixed", "mean": 1024},
    "output_tokens": {"dist": "fixed", "mean": 32}})";

// --measured-moe: the routed experts from kvplan's measured table (models/perf/moe/), named in the
// note and in the JSON; a dense model is untouched, and without the flag nothing changes. plan
// --slo --measured-moe does the same for every candidate.
TEST_F(Simulate, MeasuredMoeNamesItsTable) {
  const std::string closed = write(dir, "moe.json", kClosedMoeWorkload);
  const std::string cmd =
      "simulate --model gpt-oss-120b --gpu h200-141gb --max-model-len 2048 "
      "--workload '" +
      closed + "' --format json ";
  const auto plain = kvplan(cmd), measured = kvplan(cmd + "--measured-moe");
  ASSERT_EQ(plain.code, 0) << plain.err;
  ASSERT_EQ(measured.code, 0) << measured.err;
  EXPECT_TRUE(has(measured.err,
                  "note: MoE layers' step time: measured per-operation table "
                  "models/perf/moe/h200-141gb.vllm.txt:"))
      << measured.err;
  EXPECT_FALSE(has(plain.err, "MoE layers")) << plain.err;
  const auto p = nlohmann::json::parse(plain.out), q = nlohmann::json::parse(measured.out);
  EXPECT_FALSE(p.contains("moe_step"));
  EXPECT_TRUE(has(q["moe_step"].get<std::string>(), "vllm_mxfp4_moe")) << q.dump();
  EXPECT_NE(q["summary"]["tpot_ms"]["mean"], p["summary"]["tpot_ms"]["mean"]);
  // A dense model: the same run with and without the flag.
  const auto dense = kvplan(base + "--format json"),
             dense_m = kvplan(base + "--format json --measured-moe");
  ASSERT_EQ(dense_m.code, 0) << dense_m.err;
  EXPECT_EQ(dense.out, dense_m.out);
  // plan --slo --measured-moe costs every candidate's MoE layers with the tables, as simulate
  // --measured-moe does, so its TPOT p99 is not the roofline's; the flag belongs to SLO sizing.
  const std::string slo =
      "plan --model gpt-oss-120b --gpu h200-141gb --tp 1 --context 2048 "
      "--workload '" +
      closed + "' --slo tpot_p99_ms=1000 --format json";
  const auto slo_plain = kvplan(slo), slo_measured = kvplan(slo + " --measured-moe");
  ASSERT_EQ(slo_plain.code, 0) << slo_plain.err;
  ASSERT_EQ(slo_measured.code, 0) << slo_measured.err;
  const auto sp = nlohmann::json::parse(slo_plain.out),
             sq = nlohmann::json::parse(slo_measured.out);
  ASSERT_EQ(sp["rows"].size(), sq["rows"].size());
  // One line a KV format the search tries; those it simulated (a number) differ.
  int simulated = 0;
  for (std::size_t i = 0; i < sp["rows"].size(); ++i) {
    EXPECT_EQ(sp["rows"][i]["kv_dtype"], sq["rows"][i]["kv_dtype"]);
    if (!sp["rows"][i]["tpot_p99_ms"].is_number()) continue;
    ++simulated;
    EXPECT_NE(sp["rows"][i]["tpot_p99_ms"], sq["rows"][i]["tpot_p99_ms"]) << i << slo_measured.out;
  }
  EXPECT_GE(simulated, 1);
  const auto refused = kvplan("plan --model gpt-oss-120b --gpu h200-141gb --measured-moe");
  EXPECT_EQ(refused.code, 2);
  EXPECT_TRUE(has(refused.err, "--measured-moe")) << refused.err;
}

// --enable-expert-parallel on simulate and plan is the engine option enable_expert_parallel=true:
// the same output byte for byte, and not the TP run's (Qwen3-30B-A3B's 128 experts at tp 2: the
// step waits for the busiest rank; plan's vLLM DP + EP over 4 GPUs holds a quarter of them).
TEST_F(Simulate, EnableExpertParallelIsTheEngineOption) {
  const std::string closed = write(dir, "ep.json", kClosedMoeWorkload);
  const std::string sim =
      "simulate --model qwen3-30b-a3b --gpu h100-sxm-80gb --tp 2 "
      "--max-model-len 2048 --workload '" +
      closed + "' --format json";
  const std::string plan =
      "plan --model qwen3-30b-a3b --gpu h100-sxm-80gb --tp 2 --gpus 4 --context 2048 --brief "
      "--format json";
  for (const std::string& cmd : {sim, plan}) {
    const auto flag = kvplan(cmd + " --enable-expert-parallel"),
               option = kvplan(cmd + " --engine-option enable_expert_parallel=true"),
               tp = kvplan(cmd);
    ASSERT_EQ(flag.code, 0) << flag.err;
    EXPECT_EQ(flag.out, option.out);
    EXPECT_NE(flag.out, tp.out);
  }
}

// Issue 30, classes 5 and 7 through the binary: a TPOT limit on one-token outputs, an absurd
// offload bandwidth, a BOM before a CSV header, --gpu X,X.
TEST_F(Simulate, SemanticsAndEverydayInputs) {
  const std::string one =
      write(dir, "one.csv", "arrival_s,prompt_tokens,output_tokens\n0,100,1\n1,100,1\n");
  const auto tpot = kvplan(
      "plan --model llama-3.1-8b --context 4096 --gpu h100-sxm-80gb "
      "--workload '" +
      one + "' --slo tpot_p99_ms=50");
  EXPECT_EQ(tpot.code, 2) << tpot.out;
  EXPECT_TRUE(has(tpot.err, "--slo: tpot_p99_ms: " + one +
                                ": no request produced more than one "
                                "token: no TPOT to measure"))
      << tpot.err;
  const auto gbps = kvplan(base + "--cpu-offload-gib 1 --cpu-offload-gbps 1e-305");
  EXPECT_EQ(gbps.code, 2) << gbps.out;
  EXPECT_TRUE(has(gbps.err, "--cpu-offload-gbps")) << gbps.err;
  const std::string csv = "arrival_s,prompt_tokens,output_tokens\n0,100,4\n0.5,200,8\n";
  const std::string plain = write(dir, "plain.csv", csv);
  const std::string bom = write(dir, "bom.csv", "\xEF\xBB\xBF" + csv);
  const auto a = kvplan(kBase + "--workload '" + plain + "' --format csv");
  const auto b = kvplan(kBase + "--workload '" + bom + "' --format csv");
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(a.out, b.out);
  const std::string slo =
      "plan --model llama-3.1-8b --context 4096 --tp 1 --kv-dtype bf16 "
      "--workload '" +
      plain + "' --slo ttft_p99_ms=5000 --format json ";
  const auto once = kvplan(slo + "--gpu h100-sxm-80gb");
  const auto twice = kvplan(slo + "--gpu h100-sxm-80gb,h100-sxm-80gb");
  ASSERT_EQ(twice.code, 0) << twice.err;
  EXPECT_EQ(nlohmann::json::parse(twice.out)["rows"].size(), 1u);
  EXPECT_EQ(once.out, twice.out);
}

}  // namespace
