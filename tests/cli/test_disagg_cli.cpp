// kvplan simulate --prefill-replicas: a disaggregated prefill/decode run end to end. The
// timelines are worked by hand in tests/simulator/test_disagg.cpp; here the flags, the report
// and the refusals. Llama-3.1-8B in bf16 at TP 1 keeps 2 · 32 layers · 8 KV heads · 128 · 2 bytes
// = 131,072 bytes per token, so a 1,600-token prompt (100 blocks of 16) sends 209,715,200 bytes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_run.hpp"
#include "temp_dir.hpp"

namespace {

bool has(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

// 1,600-token prompts, 8 outputs, 2 new requests a second for 10 s.
std::string workload(kvplan::test::TempDir& dir) {
  const std::string path = dir.file("w.json");
  std::ofstream(path) << R"({"kvplan_workload": 1, "arrival": "poisson",
    "stages": [{"rate": 2, "duration_s": 10}],
    "prompt_tokens": {"dist": "fixed", "mean": 1600},
    "output_tokens": {"dist": "fixed", "mean": 8}})";
  return path;
}

std::string base(kvplan::test::TempDir& dir) {
  return "simulate --model llama-3.1-8b --gpu h100-sxm-80gb --max-model-len 4096 --workload '" +
         workload(dir) + "' ";
}

TEST(DisaggCli, EveryPromptCrossesTheLinkInItsExactBytes) {
  kvplan::test::TempDir dir;
  const auto r = kvplan::test::run_kvplan(
      base(dir) + "--prefill-replicas 2 --decode-replicas 1 --kv-link ndr400 --format json -q");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& d = j["disagg"];
  EXPECT_EQ(d["prefill_replicas"], 2);
  EXPECT_EQ(d["decode_replicas"], 1);
  EXPECT_EQ(d["link"]["name"], "ndr400");
  EXPECT_EQ(d["link"]["gbps"], 50.0);  // 400 Gb/s / 8
  const auto n = j["summary"]["requests"].get<std::uint64_t>();
  ASSERT_GT(n, 0u);
  EXPECT_EQ(d["transfers"], n);
  EXPECT_EQ(d["kv_bytes"], n * 209715200u);
  // On the link: 209,715,200 B / 50e9 B/s = 4.194304 ms each.
  EXPECT_NEAR(d["transfer_ms"]["mean"].get<double>(), 4.194304, 1e-9);
  EXPECT_NEAR(d["transfer_ms"]["p99"].get<double>(), 4.194304, 1e-9);
  // TTFT holds the prefill and the transfer at least.
  EXPECT_GT(j["summary"]["ttft_ms"]["p50"].get<double>(), 4.194304);
}

TEST(DisaggCli, TheTableSaysTheLayoutAndTheLink) {
  kvplan::test::TempDir dir;
  const auto r = kvplan::test::run_kvplan(base(dir) +
                                          "--prefill-replicas 1 --decode-replicas 2 --decode-tp 2 "
                                          "--routing least_loaded --kv-link-latency-ms 0.5");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "disaggregated: 1 prefill x tp 1")) << r.out;
  EXPECT_TRUE(has(r.out, "2 decode x tp 2")) << r.out;
  EXPECT_TRUE(has(r.out, "routing least_loaded")) << r.out;
  // The default link: the H100's NVLink, 900 GB/s both ways = 450 one way.
  EXPECT_TRUE(has(r.out, "KV link nvlink: 450.0 GB/s per GPU, latency 0.500 ms")) << r.out;
  EXPECT_TRUE(has(r.err, "decode side's prefix cache is not modelled")) << r.err;
}

// Pipeline stages are each side's layout too: --pp 2 gives both sides two stages a replica
// (1 · 1 · 2 + 1 · 2 · 2 = 6 GPUs, within the H100's 8-GPU domain).
TEST(DisaggCli, TheLayoutSaysThePipelineStages) {
  kvplan::test::TempDir dir;
  auto r = kvplan::test::run_kvplan(
      base(dir) + "--pp 2 --prefill-replicas 1 --decode-replicas 1 --decode-tp 2");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "disaggregated: 1 prefill x tp 1 pp 2 (")) << r.out;
  EXPECT_TRUE(has(r.out, "1 decode x tp 2 pp 2 (")) << r.out;
  r = kvplan::test::run_kvplan(base(dir) +
                               "--pp 2 --prefill-replicas 1 --decode-replicas 1 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto d = nlohmann::json::parse(r.out)["disagg"];
  EXPECT_EQ(d["prefill_pp"], 2);
  EXPECT_EQ(d["decode_pp"], 2);
  EXPECT_EQ(d["prefill_tp"], 1);
}

TEST(DisaggCli, RefusesWhatDoesNotFitOrBelong) {
  kvplan::test::TempDir dir;
  // 4 · 2 + 2 = 10 GPUs: not one 8-GPU NVLink domain of H100s.
  auto r = kvplan::test::run_kvplan(base(dir) +
                                    "--prefill-replicas 4 --prefill-tp 2 --decode-replicas 2");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "kv_link") && has(r.err, "10 GPUs, the domain joins 8")) << r.err;
  r = kvplan::test::run_kvplan(base(dir) + "--kv-link ndr400");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--kv-link") && has(r.err, "needs --prefill-replicas")) << r.err;
  r = kvplan::test::run_kvplan(base(dir) + "--prefill-replicas 1 --replicas 2");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--replicas")) << r.err;
  r = kvplan::test::run_kvplan(base(dir) + "--prefill-replicas 1 --kv-link infiniband");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--kv-link") && has(r.err, "nvlink, ndr400, xdr800")) << r.err;
  // Every engine's order is modelled; two engines on the two sides are not.
  r = kvplan::test::run_kvplan(base(dir) + "--prefill-replicas 1 --engine trtllm");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "(trtllm, tp 1")) << r.out;
  // A side's budget replaces TensorRT-LLM's shared --max-batch-size on that side alone.
  r = kvplan::test::run_kvplan(base(dir) +
                               "--prefill-replicas 1 --engine trtllm --max-batch-size 8 "
                               "--prefill-max-num-seqs 4 --format json -q");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["disagg"]["prefill_max_num_seqs"], 4);
  EXPECT_EQ(j["config"]["max_num_seqs"], 8);
  // Each side's TP is checked as --tp is, and the error names the side's flag.
  r = kvplan::test::run_kvplan(base(dir) + "--prefill-replicas 1 --decode-tp 3");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--decode-tp") && has(r.err, "32 attention heads")) << r.err;
  r = kvplan::test::run_kvplan(base(dir) + "--prefill-replicas 1 --kv-link-latency-ms nan");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "kv_link_latency_ms")) << r.err;
  r = kvplan::test::run_kvplan(base(dir) + "--prefill-replicas 0");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "prefill_replicas")) << r.err;
}

// Each side's own settings (--prefill-*, --decode-*) apply to that side alone, over the shared
// ones. The prefill side at --prefill-gpu-memory-utilization 0.5 holds the pool that
// --gpu-memory-utilization 0.5 gives both sides, while the decode side keeps the default's; a
// key given to one side's --*-engine-option wins over --engine-option's there.
TEST(DisaggCli, EachSidesOwnSettingsApplyToThatSideAlone) {
  kvplan::test::TempDir dir;
  const auto run = [&](const std::string& flags) {
    const auto r =
        kvplan::test::run_kvplan(base(dir) + "--prefill-replicas 1 " + flags + " --format json -q");
    EXPECT_EQ(r.code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  };
  const auto plain = run(""), half = run("--gpu-memory-utilization 0.5");
  const auto sides =
      run("--prefill-gpu-memory-utilization 0.5 --engine-option async_scheduling=false "
          "--decode-engine-option async_scheduling=true");
  EXPECT_EQ(sides["disagg"]["prefill_blocks"], half["disagg"]["prefill_blocks"]);
  EXPECT_EQ(sides["disagg"]["decode_blocks"], plain["disagg"]["decode_blocks"]);
  EXPECT_LT(half["disagg"]["prefill_blocks"].get<std::uint64_t>(),
            plain["disagg"]["prefill_blocks"].get<std::uint64_t>());
  EXPECT_EQ(sides["config"]["async_scheduling"], true);  // the report's config: the decode side
  // The budgets move each side's activation reserve, so its pool: as the shared flag would.
  const auto budgets = run("--prefill-max-num-batched-tokens 2048 --decode-max-num-seqs 3");
  EXPECT_EQ(budgets["disagg"]["prefill_max_num_batched_tokens"], 2048);
  EXPECT_EQ(budgets["disagg"]["prefill_max_num_seqs"], plain["disagg"]["prefill_max_num_seqs"]);
  EXPECT_EQ(budgets["config"]["max_num_seqs"], 3);
  EXPECT_EQ(budgets["config"]["max_num_batched_tokens"], plain["config"]["max_num_batched_tokens"]);
  EXPECT_EQ(budgets["disagg"]["prefill_blocks"],
            run("--max-num-batched-tokens 2048")["disagg"]["prefill_blocks"]);
  EXPECT_EQ(budgets["disagg"]["decode_blocks"], run("--max-num-seqs 3")["disagg"]["decode_blocks"]);
  EXPECT_EQ(run("--engine-option async_scheduling=false")["config"]["async_scheduling"], false);
  // A side's setting needs a disaggregated run, and is checked as the shared flag is.
  auto r = kvplan::test::run_kvplan(base(dir) + "--decode-max-num-seqs 4");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--decode-max-num-seqs") && has(r.err, "needs --prefill-replicas"))
      << r.err;
  r = kvplan::test::run_kvplan(base(dir) + "--prefill-replicas 1 --prefill-engine-option bogus=1");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--prefill-engine-option") && has(r.err, "bogus")) << r.err;
  r = kvplan::test::run_kvplan(base(dir) + "--prefill-replicas 1 --decode-max-num-seqs 0");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--decode-max-num-seqs")) << r.err;
  r = kvplan::test::run_kvplan(base(dir) +
                               "--prefill-replicas 1 --decode-gpu-memory-utilization 2");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--decode-gpu-memory-utilization")) << r.err;
}

// plan --slo --disaggregated: each line gets an aggregated and an xPyD row, both searched; the
// search itself is checked against brute force in tests/simulator/test_disagg.cpp.
TEST(DisaggCli, PlanSearchesBothLayouts) {
  kvplan::test::TempDir dir;
  const auto r = kvplan::test::run_kvplan(
      "plan --model llama-3.1-8b --gpu h100-sxm-80gb --tp 1 --kv-dtype bf16 --context 4096 "
      "--workload '" +
      workload(dir) + "' --slo ttft_p99_ms=2000 --disaggregated --kv-link ndr400 --format json -q");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["rows"].size(), 2u);
  int aggregated = 0, split = 0;
  for (const auto& row : j["rows"]) {
    if (row["layout"] == "aggregated") {
      ++aggregated;
      EXPECT_TRUE(row["kv_link"].is_null());
    } else {
      ++split;
      EXPECT_EQ(row["kv_link"], "ndr400");
      EXPECT_EQ(row["replicas"],
                row["prefill_replicas"].get<int>() + row["decode_replicas"].get<int>());
      EXPECT_EQ(row["layout"], std::to_string(row["prefill_replicas"].get<int>()) + "P" +
                                   std::to_string(row["decode_replicas"].get<int>()) + "D");
      if (row["meets"] == true) {
        EXPECT_TRUE(has(row["prefill_command"].get<std::string>(), "NixlConnector"));
        EXPECT_TRUE(has(row["decode_command"].get<std::string>(), "kv_consumer"));
      }
    }
  }
  EXPECT_EQ(aggregated, 1);
  EXPECT_EQ(split, 1);
}

TEST(DisaggCli, PlanRefusesTheLinkWithoutTheLayout) {
  kvplan::test::TempDir dir;
  const std::string base = "plan --model llama-3.1-8b --gpu h100-sxm-80gb --tp 1 --context 4096 ";
  auto r = kvplan::test::run_kvplan(base + "--workload '" + workload(dir) +
                                    "' --slo ttft_p99_ms=2000 --kv-link ndr400");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--kv-link") && has(r.err, "needs --disaggregated")) << r.err;
  r = kvplan::test::run_kvplan(base + "--disaggregated");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "--disaggregated") && has(r.err, "SLO sizing")) << r.err;
  r = kvplan::test::run_kvplan(base + "--engine trtllm --workload '" + workload(dir) +
                               "' --slo ttft_p99_ms=2000 --disaggregated");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r.err, "are not written")) << r.err;
}

// One verdict: check on a disaggregated deployment file simulates what simulate runs for the
// same layout, flags for fields, and reports the same p99s: under vLLM's order and SGLang's.
double expect_check_and_simulate_agree(const std::string& engine,
                                       const std::string& prefill = R"({"replicas": 2})",
                                       const std::string& decode = R"({"replicas": 1})",
                                       const std::string& side_flags = "") {
  SCOPED_TRACE(engine + " " + side_flags);
  kvplan::test::TempDir dir;
  const std::string w = workload(dir), deploy = dir.file("d.json");
  std::ofstream(deploy) << R"({"kvplan_deploy": 1, "model": "llama-3.1-8b",
    "hardware": {"gpu": "h100-sxm-80gb", "gpus": 3},
    "engine": {"name": ")" + engine +
                               R"(", "max_model_len": 4096, "max_num_seqs": 256},
    "disaggregated": {"prefill": )" +
                               prefill + R"(, "decode": )" + decode + R"(,
                      "kv_link": "ndr400", "kv_link_latency_ms": 0.5},
    "workload": ")" + w + R"(",
    "slo": {"concurrency": 8, "ttft_p99_ms": 5000, "tpot_p99_ms": 1000}})";
  const auto c = kvplan::test::run_kvplan("check '" + deploy + "' --format json");
  EXPECT_EQ(c.code, 0) << c.out << c.err;
  if (c.code != 0) return std::nan("");
  const auto cj = nlohmann::json::parse(c.out);
  EXPECT_EQ(cj["gpus"], 3);
  EXPECT_EQ(cj["disaggregated"]["prefill_replicas"], 2);
  const auto s = kvplan::test::run_kvplan(
      "simulate --model llama-3.1-8b --gpu h100-sxm-80gb --engine " + engine +
      " --max-model-len 4096 --max-num-seqs 256 --workload '" + w +
      "' --prefill-replicas 2 --decode-replicas 1 --kv-link ndr400 --kv-link-latency-ms 0.5 " +
      side_flags + " --format json -q");
  EXPECT_EQ(s.code, 0) << s.err;
  if (s.code != 0) return std::nan("");
  const auto sj = nlohmann::json::parse(s.out);
  char ttft[64], tpot[64];
  std::snprintf(ttft, sizeof ttft, "simulated p99 %.1f ms",
                sj["summary"]["ttft_ms"]["p99"].get<double>());
  std::snprintf(tpot, sizeof tpot, "simulated p99 %.1f ms",
                sj["summary"]["tpot_ms"]["p99"].get<double>());
  int seen = 0;
  for (const auto& i : cj["checks"]) {
    const std::string detail = i["detail"].get<std::string>();
    if (i["id"] == "ttft_p99") {
      EXPECT_TRUE(has(detail, ttft)) << detail << " vs " << ttft;
      EXPECT_TRUE(has(detail, "on 2P1D over ndr400")) << detail;
      ++seen;
    } else if (i["id"] == "tpot_p99") {
      EXPECT_TRUE(has(detail, tpot)) << detail << " vs " << tpot;
      ++seen;
    }
  }
  EXPECT_EQ(seen, 2);
  return sj["summary"]["ttft_ms"]["p99"].get<double>();
}

TEST(DisaggCli, CheckAndSimulateAgreeOnADisaggregatedDeployment) {
  const double plain = expect_check_and_simulate_agree("vllm");
  expect_check_and_simulate_agree("sglang");
  // Each side's own settings: the file's keys and simulate's --prefill-* / --decode-* flags. A
  // 1,024-token prefill budget cuts each 1,600-token prompt in two steps: a later first token.
  const double sides = expect_check_and_simulate_agree(
      "vllm", R"({"replicas": 2, "max_num_batched_tokens": 1024, "gpu_memory_utilization": 0.5})",
      R"({"replicas": 1, "max_num_seqs": 8, "engine": {"async_scheduling": false}})",
      "--prefill-max-num-batched-tokens 1024 --prefill-gpu-memory-utilization 0.5 "
      "--decode-max-num-seqs 8 --decode-engine-option async_scheduling=false");
  EXPECT_GT(sides, plain);
}

}  // namespace
