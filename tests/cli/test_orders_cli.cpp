// kvplan plan's order table in nodes, the Fix over every GPU of the order (issue 26), --gpu
// a,b,c, --prices FILE, and costs in cents with unknown prices as null. Expected values come
// from the arithmetic in the comments, not from kvplan's output.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_run.hpp"
#include "temp_dir.hpp"

namespace {

using Run = kvplan::test::CliRun;
using nlohmann::json;

Run kvplan(const std::string& args) { return kvplan::test::run_kvplan(args); }

// vLLM V1, utilization 0.92 (its default since vllm-project/vllm#38284), --max-num-seqs as the
// plan's launch line states it (requests per
// replica). Llama-3.1-8B: 8,030,261,248 params · 2 B = 16,060,522,496 B of weights; at 32,768
// tokens and up to 64 sequences the forward pass (8192 · (32 · 128 + 2 · 4096 + 3 · 14336) · 2 B
// = 905,969,664) outweighs the sampler, so the activation term is 905,969,664 + 0.04 GiB =
// 948,919,337 B; non-torch 0.13 GiB = 139,586,437 B; CUDA graphs 0.58 GiB = 622,770,258 B.
// fp8 page: 16 tokens · 8 heads · (128 + 128) · 1 B = 32,768 B; 32 layers; a request of 32,768
// tokens takes 2,048 blocks, and one block is vLLM's null block.
//   H100 SXM (CUDA 79.175 GiB = 85,013,508,915 B): floor(· 0.92) = 78,212,428,201
//     − 16,060,522,496 − 948,919,337 − 139,586,437 − 622,770,258 = 60,440,629,673 B
//     // 32,768 // 32 = 57,640 blocks, (57,640 − 1) // 2,048 = 28 requests per GPU:
//     64 requests take ceil(64 / 28) = 3 GPUs (TP 2 on 2 GPUs holds 63: 8,030,261,248 B of
//     weights a rank, activation 8192 · (2048 + 8192 + 21504) · 2 B + 0.04 GiB = 563,043,369,
//     non-torch 590,558,003 and graphs 622,770,258 leave 68,405,795,323 B // 16,384 // 32 =
//     130,473 blocks, (130,473 − 1) // 2,048 = 63: fewer than 64).
//   H200 (CUDA 139.795 GiB = 150,103,738,286 B): floor(· 0.92) = 138,095,439,223
//     − the same terms = 120,323,640,695 B // 32,768 // 32 = 114,749 blocks, 56 requests per
//     GPU: 2 GPUs.
//   Prices 2.49 and 3.50 USD per GPU-hour: H100 3 · 2.49 = 7.47 (7.470000000000001 in binary
//   floating point), H200 2 · 3.50 = 7.00: the H200 order is the cheapest.
const std::string kIssue =
    "plan --model llama-3.1-8b --gpu h100-sxm-80gb --context 32768 --concurrency 64 --kv-dtype "
    "fp8 --price h100-sxm-80gb=2.49 --price h200-141gb=3.50";

TEST(OrdersFix, TheFixIsTheOrderTablesCheapest) {
  const auto r = kvplan(kIssue + " --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = json::parse(r.out);
  const auto& cheapest = j["order"][0];
  EXPECT_EQ(cheapest["gpu"], "h200-141gb");
  EXPECT_EQ(cheapest["gpus"], 2);
  EXPECT_EQ(cheapest["max_requests"], 112);  // 2 · 56
  EXPECT_EQ(cheapest["cost_per_hour"], 7.0);
  EXPECT_EQ(cheapest["nodes"], 1);  // 2 GPUs of an 8-GPU HGX node
  const auto& h100 = j["order"][1];
  EXPECT_EQ(h100["gpu"], "h100-sxm-80gb");
  EXPECT_EQ(h100["gpus"], 3);
  EXPECT_EQ(h100["max_requests"], 84);  // 3 · 28
  ASSERT_GE(j["fixes"].size(), 2u) << r.out;
  // The Fix: the order table's cheapest, not the plan's own GPU.
  const auto& fix = j["fixes"][0];
  EXPECT_EQ(fix["label"], "cheapest");
  EXPECT_EQ(fix["gpu"], cheapest["gpu"]);
  EXPECT_EQ(fix["gpus"], cheapest["gpus"]);
  EXPECT_EQ(fix["cost_per_hour"], cheapest["cost_per_hour"]);
  EXPECT_EQ(fix["kv_dtype"], "fp8");
  EXPECT_FALSE(fix["own_gpu"].get<bool>());
  EXPECT_TRUE(fix["extra_gpus"].is_null());  // another GPU type replaces the plan's
  // The plan's own GPU stays as a labelled alternative, its counts adding up: 1 + 2 = 3.
  const auto& own = j["fixes"][1];
  EXPECT_EQ(own["label"], "or, on the plan's h100-sxm-80gb");
  EXPECT_EQ(own["gpu"], "h100-sxm-80gb");
  EXPECT_EQ(own["plan_gpus"], 1);
  EXPECT_EQ(own["gpus"], 3);
  EXPECT_EQ(own["extra_gpus"], 2);
  EXPECT_EQ(own["fewer_gpus"], 0);
  EXPECT_EQ(own["cost_per_hour"], 7.47);
  // Cents in the JSON text too: no 7.470000000000001.
  EXPECT_EQ(r.out.find("7.470000000000001"), std::string::npos);
  EXPECT_NE(r.out.find("\"cost_per_hour\": 7.47"), std::string::npos);

  const auto t = kvplan(kIssue);
  ASSERT_EQ(t.code, 0);
  const std::string tail = t.out.substr(t.out.rfind("\nFix\n"));
  EXPECT_NE(tail.find("cheapest: 2 × h200-141gb as TP 1 × 2 replicas on 1 node, instead of the "
                      "plan's 1 × h100-sxm-80gb, KV cache fp8 kept: holds 112"),
            std::string::npos)
      << tail;
  EXPECT_NE(tail.find("USD 7.00/h"), std::string::npos) << tail;
  EXPECT_NE(tail.find("2 more h100-sxm-80gb (3 in all), USD 7.47/h"), std::string::npos) << tail;
}

// qwen3-235b-a22b-fp8 at TP 8 on 8 H100s (64 sequences). vLLM cuts its 1,536-wide fp8 experts
// into 192 columns at TP 8, not whole 128-column blocks, and refuses to start
// (Fp8MoEMethod.create_weights, vllm-project/vllm#17569), so the plan takes
// --enable-expert-parallel, as vLLM needs. Within one replica the experts are 1/8 a GPU either way:
// the memory table's terms leave 78,212,428,201 (0.92 of the GPU) − 29,555,678,913 weights −
// 480,615,465 activation − 590,558,003 non-torch − 622,770,258 graphs = 46,962,805,562 B per GPU.
// 94 layers of 4 KV heads × 128: TP 8 > 4 heads, so each rank holds one head; the bf16 page is
// 16 · 1 · 256 · 2 = 8,192 B: 46,962,805,562 // 8,192 // 94 = 60,986 blocks, (60,986 − 1) //
// 2,048 = 29 requests. Keeping TP 8 takes a second replica (16 GPUs, 8 more), and vLLM's two DP
// ranks then share the MoE layers: the routed experts, 94 layers x 128 experts x 3 matrices of
// 4,096 x 1,536 fp8 weights with a 4-byte scale per 128 x 128 block = 227,096,395,776 + 94 x 128 x
// 3 x 384 x 4 = 227,151,839,232 B, spread over 16 GPUs, the other 236,445,431,304 − 227,151,839,232
// = 9,293,592,072 B over 8: 1,161,699,009 + 14,196,989,952 = 15,358,688,961 B a GPU. At 32
// sequences a replica the activation is 295,337,001 B, leaving 78,212,428,201 − 15,358,688,961 −
// 295,337,001 − 590,558,003 − 622,770,258 = 61,345,073,978 B: // 8,192 // 94 = 79,663 blocks,
// (79,663 − 1) // 2,048 = 38 requests a replica, 76 in all, in bf16.
TEST(OrdersFix, TensorParallelEightCountsEightGpus) {
  const std::string plan =
      "plan --model qwen3-235b-a22b-fp8 --gpu h100-sxm-80gb --tp 8 --context 32768 "
      "--concurrency 64 --enable-expert-parallel";
  const auto r = kvplan(plan + " --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = json::parse(r.out);
  EXPECT_EQ(j["gpus"], 8);
  EXPECT_EQ(j["max_requests"], 29);
  ASSERT_FALSE(j["fixes"].empty());
  bool layout_kept = false;
  for (const auto& f : j["fixes"]) {
    EXPECT_EQ(f["plan_gpus"], 8) << f.dump();
    if (!f["own_gpu"].get<bool>()) continue;
    // Counts add up on the plan's GPU: gpus = 8 + extra − fewer.
    EXPECT_EQ(f["gpus"].get<int>(), 8 + f["extra_gpus"].get<int>() - f["fewer_gpus"].get<int>())
        << f.dump();
    // A fix on the plan's 8 GPUs keeps its layout (TP 8); none is "the same" fewer GPUs.
    if (f["gpus"] == 8 && f["extra_gpus"] == 0 && f["fewer_gpus"] == 0)
      EXPECT_EQ(f["tp"], 8) << f.dump();
    if (f["keeps_layout"].get<bool>()) {
      layout_kept = true;
      EXPECT_EQ(f["label"], "or, keeping the plan's layout (TP 8)");
      EXPECT_EQ(f["kv_dtype"], "bf16");
      EXPECT_EQ(f["tp"], 8);
      EXPECT_EQ(f["pp"], 1);
      EXPECT_EQ(f["replicas"], 2);
      EXPECT_EQ(f["gpus"], 16);
      EXPECT_EQ(f["extra_gpus"], 8);
      EXPECT_EQ(f["max_requests"], 76);
      ASSERT_TRUE(f["vllm"].is_string());
      const std::string line = f["vllm"].get<std::string>();
      EXPECT_NE(
          line.find("--tensor-parallel-size 8 --data-parallel-size 2 --enable-expert-parallel"),
          std::string::npos)
          << line;
    }
  }
  EXPECT_TRUE(layout_kept) << r.out;
  const auto t = kvplan(plan);
  ASSERT_EQ(t.code, 0);
  const std::string tail = t.out.substr(t.out.rfind("\nFix\n"));
  EXPECT_NE(tail.find("The plan holds 29 of 64 requests of 32,768 tokens on 8 × h100-sxm-80gb"),
            std::string::npos)
      << tail;
  EXPECT_EQ(tail.find("the same 6"), std::string::npos) << tail;
  EXPECT_NE(tail.find("16 × h100-sxm-80gb as TP 8 × 2 replicas on 2 nodes, KV cache bf16 kept"),
            std::string::npos)
      << tail;
  EXPECT_NE(tail.find("8 more h100-sxm-80gb (16 in all)"), std::string::npos) << tail;
  // Without expert parallelism vLLM does not start it: the plan says so in vLLM's words and
  // names the fix, exit 2.
  const auto refused = kvplan(
      "plan --model qwen3-235b-a22b-fp8 --gpu h100-sxm-80gb --tp 8 --context 32768 "
      "--concurrency 64");
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.err.find("--tp: The output_size of gate's and up's weight = 192 is not "
                             "divisible by weight quantization block_n = 128"),
            std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("(fix: expert parallelism (--enable-expert-parallel"),
            std::string::npos)
      << refused.err;
}

// A plan whose own server is stated (--engine-option data_parallel_size=2: 8 GPUs are one server
// of two TP 4 ranks) still gets its fixes: each fix is a new layout whose replicas are one
// server's data-parallel ranks, as the order sizes them, and its launch line says so. Where the
// count leans on vLLM's ranks sharing the experts, SGLang's --dp (servers that each hold every
// expert) is not offered as holding it.
TEST(OrdersFix, ADeploymentsOwnServerSizeIsNotTheFixes) {
  const std::string plan =
      "plan --model qwen3-235b-a22b --gpu h100-sxm-80gb --context 32768 --concurrency 256 --tp 4 "
      "--gpus 8 --engine-option data_parallel_size=2";
  const auto r = kvplan(plan + " --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = json::parse(r.out);
  ASSERT_FALSE(j["fixes"].empty()) << r.out;
  for (const auto& f : j["fixes"]) {
    EXPECT_GE(f["max_requests"].get<int>(), 256) << f.dump();
    if (f["replicas"].get<int>() < 2 || !f["vllm"].is_string()) continue;
    EXPECT_NE(f["vllm"].get<std::string>().find("--data-parallel-size " +
                                                std::to_string(f["replicas"].get<int>())),
              std::string::npos)
        << f.dump();
  }
  const auto t = kvplan(plan);
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_NE(t.out.find("SGLang: none (SGLang's --dp runs servers that each hold every expert"),
            std::string::npos)
      << t.out;
}

// An order row on another GPU is that GPU as plan sizes it: a plan on L4 (vLLM's default chunk
// there is 2,048 tokens) gives a b300 row whose count is plan's on b300 at that layout, at b300's
// own default of 8,192 (a larger chunk, a larger profile activation: never the L4's smaller one).
TEST(Orders, AnotherGpusRowIsThatGpusPlan) {
  const auto r =
      kvplan("plan --model llama-3.1-70b --gpu l4 --context 32768 --concurrency 300 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  bool seen = false;
  const auto j = json::parse(r.out);
  for (const auto& o : j["order"]) {
    if (o["gpu"] != "b300" || !o["feasible"].get<bool>()) continue;
    seen = true;
    const auto b = kvplan(
        "plan --model llama-3.1-70b --gpu b300 --context 32768 --concurrency 300 "
        "--tp " +
        std::to_string(o["tp"].get<int>()) + " --pp " + std::to_string(o["pp"].get<int>()) +
        " --gpus " + std::to_string(o["gpus"].get<int>()) + " --format json");
    ASSERT_EQ(b.code, 0) << b.err;
    EXPECT_EQ(o["max_requests"], json::parse(b.out)["max_requests"]) << o.dump();
  }
  EXPECT_TRUE(seen) << r.out;
}

// The order table in nodes: HGX nodes hold 8 GPUs, so the h100 row of the TP 8 scenario above,
// TP 1 × PP 9 (nine single-GPU stages), takes ceil(9 / 8) = 2 nodes; the H200's three GPUs one.
TEST(Orders, TableSaysNodesAndGpus) {
  const auto r = kvplan(
      "plan --model qwen3-235b-a22b-fp8 --gpu h100-sxm-80gb --tp 8 --context 32768 "
      "--concurrency 64 --enable-expert-parallel --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = json::parse(r.out);
  for (const auto& o : j["order"]) {
    if (!o["feasible"].get<bool>()) continue;
    if (o["gpus_per_node"].is_null()) {
      EXPECT_TRUE(o["nodes"].is_null()) << o.dump();  // unknown node size: no node count
      continue;
    }
    const int per = o["gpus_per_node"].get<int>(), tp = o["tp"].get<int>();
    const int groups = o["pp"].get<int>() * o["replicas"].get<int>();
    // TP within a node: ceil(groups / (per / tp)); a group wider than a node (NVL72): groups ·
    // ceil(tp / per).
    const int nodes =
        tp <= per ? (groups + per / tp - 1) / (per / tp) : groups * ((tp + per - 1) / per);
    EXPECT_EQ(o["nodes"], nodes) << o.dump();
    if (o["gpu"] == "h100-sxm-80gb") {
      EXPECT_EQ(o["gpus"], 9);
      EXPECT_EQ(o["nodes"], 2);
    }
  }
  const auto t = kvplan(
      "plan --model qwen3-235b-a22b-fp8 --gpu h100-sxm-80gb --tp 8 --context 32768 "
      "--concurrency 64 --enable-expert-parallel");
  EXPECT_NE(t.out.find("2 nodes (9 GPUs)"), std::string::npos) << t.out;
}

// --gpu a,b,c outside SLO sizing: the plan runs on the first, the order considers these only.
TEST(Orders, GpuListIsTheOrdersGpus) {
  const auto r = kvplan(
      "plan --model llama-3.1-8b --gpu h100-sxm-80gb,h200-141gb,l40s --context 32768 "
      "--concurrency 64 --kv-dtype fp8 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = json::parse(r.out);
  EXPECT_EQ(j["gpu"], "h100-sxm-80gb");
  ASSERT_EQ(j["order"].size(), 3u);
  for (const auto& o : j["order"]) {
    const std::string id = o["gpu"];
    EXPECT_TRUE(id == "h100-sxm-80gb" || id == "h200-141gb" || id == "l40s") << id;
    // No price given: unknown is null, not 0.0.
    EXPECT_TRUE(o["cost_per_hour"].is_null()) << o.dump();
    EXPECT_TRUE(o["usd_per_gpu_hour"].is_null()) << o.dump();
  }
  for (const auto& f : j["fixes"]) {
    const std::string id = f["gpu"];
    EXPECT_TRUE(id == "h100-sxm-80gb" || id == "h200-141gb" || id == "l40s") << id;
    EXPECT_TRUE(f["cost_per_hour"].is_null()) << f.dump();
  }
  // Unpriced, the fixes rank by GPU count as the order table does, and the Fix says so.
  const auto t = kvplan(
      "plan --model llama-3.1-8b --gpu h100-sxm-80gb,h200-141gb,l40s --context 32768 "
      "--concurrency 64 --kv-dtype fp8");
  EXPECT_NE(t.out.find("prices unknown"), std::string::npos) << t.out;
  EXPECT_EQ(kvplan("plan --model llama-3.1-8b --gpu h100-sxm-80gb,,l40s").code, 2);
  EXPECT_EQ(kvplan("plan --model llama-3.1-8b --gpu h100-sxm-80gb,no-such-gpu").code, 2);
}

// A price file: the rows price the order and the Fix, each with its date and source.
// 2 H200 · 2.25 = 4.50; 3 H100 · 2.79 = 8.37.
TEST(Orders, PriceFileSetsPricesWithDateAndSource) {
  kvplan::test::TempDir dir;
  const std::string csv = dir.file("prices.csv");
  std::ofstream(csv) << "gpu,usd_per_hour,date,source\n"
                        "h100-sxm-80gb,2.79,2026-11-30,https://example.com/h100\n"
                        "h200-141gb,2.25,2026-11-30,https://example.com/h200\n";
  const std::string args =
      "plan --model llama-3.1-8b --gpu h100-sxm-80gb,h200-141gb --context 32768 --concurrency 64 "
      "--kv-dtype fp8 --prices '" +
      csv + "'";
  const auto r = kvplan(args + " --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = json::parse(r.out);
  ASSERT_EQ(j["order"].size(), 2u);
  EXPECT_EQ(j["order"][0]["gpu"], "h200-141gb");
  EXPECT_EQ(j["order"][0]["cost_per_hour"], 4.5);
  EXPECT_EQ(j["order"][0]["usd_per_gpu_hour"], 2.25);
  EXPECT_EQ(j["order"][0]["price_date"], "2026-11-30");
  EXPECT_EQ(j["order"][0]["price_source"], "https://example.com/h200");
  EXPECT_EQ(j["order"][1]["cost_per_hour"], 8.37);
  EXPECT_EQ(j["fixes"][0]["gpu"], "h200-141gb");
  EXPECT_EQ(j["fixes"][0]["cost_per_hour"], 4.5);
  // --price overrides the file: 3 H100 · 1.40 = 4.20 < 4.50.
  const auto o = kvplan(args + " --price h100-sxm-80gb=1.40 --format json");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto k = json::parse(o.out);
  EXPECT_EQ(k["order"][0]["gpu"], "h100-sxm-80gb");
  EXPECT_EQ(k["order"][0]["cost_per_hour"], 4.2);
  EXPECT_TRUE(k["order"][0]["price_source"].is_null());
  // The text says where each price came from.
  const auto t = kvplan(args);
  EXPECT_NE(
      t.out.find("price h200-141gb: USD 2.25/GPU-hour (2026-11-30, https://example.com/h200)"),
      std::string::npos)
      << t.out;
}

TEST(Orders, BadPriceFilesExitTwoNamingFileAndField) {
  kvplan::test::TempDir dir;
  auto with = [&](const std::string& name, const std::string& text) {
    const std::string p = dir.file(name);
    std::ofstream(p) << text;
    return kvplan("plan --model llama-3.1-8b --gpu h100-sxm-80gb --context 32768 --prices '" + p +
                  "'");
  };
  const std::string head = "gpu,usd_per_hour,date,source\n";
  auto r = with("bad_price.csv", head + "h100-sxm-80gb,free,2026-11-30,https://example.com\n");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("bad_price.csv"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("line 2, usd_per_hour"), std::string::npos) << r.err;
  r = with("bad_date.csv", head + "h100-sxm-80gb,2.49,yesterday,https://example.com\n");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("line 2, date"), std::string::npos) << r.err;
  r = with("unknown.csv", head + "tpu-v9,2.49,2026-11-30,https://example.com\n");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown.csv"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("line 2, gpu"), std::string::npos) << r.err;
  r = with("bad.json", R"({"kvplan_prices": 1, "prices": [{"gpu": "h100-sxm-80gb",
      "usd_per_hour": -2, "date": "2026-11-30", "source": "https://example.com"}]})");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("bad.json"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("/prices/0/usd_per_hour"), std::string::npos) << r.err;
  r = kvplan("plan --model llama-3.1-8b --gpu h100-sxm-80gb --context 32768 --prices '" +
             dir.file("missing.csv") + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("missing.csv"), std::string::npos) << r.err;
}

// examples/prices.csv parses and prices the GPUs it lists.
TEST(Orders, ExamplePriceFileLoads) {
  const std::string root = std::string(KVPLAN_TEST_DATA_DIR) + "/../../";
  const auto r = kvplan(
      "plan --model llama-3.1-8b --gpu h100-sxm-80gb --context 32768 --concurrency 64 "
      "--kv-dtype fp8 --format json --prices '" +
      root + "examples/prices.csv'");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = json::parse(r.out);
  int priced = 0;
  for (const auto& o : j["order"])
    if (!o["usd_per_gpu_hour"].is_null()) {
      ++priced;
      EXPECT_FALSE(o["price_date"].is_null()) << o.dump();
      EXPECT_FALSE(o["price_source"].is_null()) << o.dump();
    }
  EXPECT_GE(priced, 3);
}

// --model a,b,c plans each model in turn: JSON is an array of the reports, in the order given;
// Llama-3.1-8B's row is the one worked out above (28 requests per H100, 3 H100s for 64).
TEST(Orders, ModelListPlansEachModel) {
  const std::string args =
      " --gpu h100-sxm-80gb --context 32768 --concurrency 64 --kv-dtype fp8 --format json";
  const auto r = kvplan("plan --model qwen3-32b,llama-3.1-8b" + args);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = json::parse(r.out);
  ASSERT_TRUE(j.is_array()) << r.out;
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["model"], "qwen3-32b");
  EXPECT_EQ(j[1]["model"], "llama-3.1-8b");
  bool found = false;
  for (const auto& o : j[1]["order"])
    if (o["gpu"] == "h100-sxm-80gb") {
      found = true;
      EXPECT_EQ(o["gpus"], 3);
      EXPECT_EQ(o["max_requests"], 84);
    }
  EXPECT_TRUE(found) << j[1]["order"].dump();
  // Each element is the model's own plan, as a run with that model alone prints it.
  EXPECT_EQ(j[0], json::parse(kvplan("plan --model qwen3-32b" + args).out));
  // The table names each model before its report.
  const auto t = kvplan("plan --model qwen3-32b,llama-3.1-8b --gpu h100-sxm-80gb --brief");
  ASSERT_EQ(t.code, 0) << t.err;
  const auto a = t.out.find("== qwen3-32b ==");
  const auto b = t.out.find("== llama-3.1-8b ==");
  EXPECT_TRUE(a != std::string::npos && b != std::string::npos && a < b) << t.out;
  // A bad item exits 2 and names --model; nothing is printed for the good ones.
  const auto bad = kvplan("plan --model llama-3.1-8b,,qwen3-32b --gpu h100-sxm-80gb");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--model"), std::string::npos) << bad.err;
  const auto unknown = kvplan("plan --model llama-3.1-8b,no-such-model --gpu h100-sxm-80gb");
  EXPECT_EQ(unknown.code, 2);
  EXPECT_TRUE(unknown.out.empty()) << unknown.out;
}

// kvplan gpus prints each preset's node: a DGX H100 holds eight GPUs ("Eight NVIDIA Hopper
// GPUs", the DGX BasePOD reference architecture the preset cites) and "2 TB of DDR5 system
// memory" (2,048 GiB in the preset); an RTX 4090 has no reference server, so null.
TEST(Orders, GpusListsTheNodes) {
  const auto r = kvplan("gpus --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  bool h100 = false, rtx = false;
  for (const auto& g : json::parse(r.out)) {
    if (g["id"] == "h100-sxm-80gb") {
      h100 = true;
      EXPECT_EQ(g["gpus_per_node"], 8);
      EXPECT_EQ(g["node_dram_gib"], 2048);
      EXPECT_NE(g["gpus_per_node_source"].get<std::string>().find("nvidia.com"), std::string::npos);
    }
    if (g["id"] == "rtx-4090") {
      rtx = true;
      EXPECT_TRUE(g["gpus_per_node"].is_null()) << g.dump();
    }
  }
  EXPECT_TRUE(h100 && rtx);
  const auto t = kvplan("gpus");
  EXPECT_NE(t.out.find("GPUs per node"), std::string::npos) << t.out;
}

}  // namespace
