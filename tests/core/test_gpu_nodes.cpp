// GPU presets in nodes (gpus_per_node, node_dram_gib, each with its source), the node count of
// an order, price files (CSV and JSON) and costs in cents.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "kvplan/error.hpp"
#include "kvplan/gpu.hpp"
#include "kvplan/model.hpp"
#include "kvplan/planner.hpp"
#include "temp_dir.hpp"

namespace {

using kvplan::Error;
using kvplan::GpuSpec;

// The field an Error names ("" when `f` does not throw one).
template <class F>
std::string error_field(F&& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (message) *message = e.what();
    return e.field();
  }
  return "";
}

const std::string kGpu = R"({"kvplan_gpu": 1, "id": "box", "source": "https://example.com/box",
  "memory_bytes": 85899345920, "bandwidth_gbps": 2000)";

TEST(GpuNodes, PresetsCarryTheirReferenceNode) {
  // DGX H100 / H200: eight GPUs and 2 TB of DDR5 (NVIDIA DGX BasePOD reference architecture).
  const GpuSpec h100 = kvplan::load_gpu("h100-sxm-80gb");
  EXPECT_EQ(h100.gpus_per_node, 8u);
  EXPECT_DOUBLE_EQ(h100.node_dram_gib, 2048);
  EXPECT_NE(h100.gpus_per_node_source.find("docs.nvidia.com"), std::string::npos);
  EXPECT_NE(h100.node_dram_source.find("2 TB"), std::string::npos);
  EXPECT_EQ(kvplan::load_gpu("h200-141gb").gpus_per_node, 8u);
  EXPECT_EQ(kvplan::load_gpu("b200").gpus_per_node, 8u);
  // GB200 NVL72: 4 GPUs per compute tray, 72 per NVLink domain.
  const GpuSpec gb200 = kvplan::load_gpu("gb200");
  EXPECT_EQ(gb200.gpus_per_node, 4u);
  EXPECT_EQ(gb200.nvlink_domain_gpus, 72u);
  EXPECT_EQ(gb200.node_dram_gib, 0);  // no public per-tray figure found: unknown
  // Every preset that states a node says where it was read.
  for (const auto& g : kvplan::list_gpu_presets()) {
    if (g.gpus_per_node) {
      EXPECT_FALSE(g.gpus_per_node_source.empty()) << g.id;
    }
    if (g.node_dram_gib > 0) {
      EXPECT_FALSE(g.node_dram_source.empty()) << g.id;
    }
  }
}

TEST(GpuNodes, BadNodeFieldsNameTheFieldAndFile) {
  auto parse = [](const std::string& extra) {
    return [extra] { kvplan::parse_gpu_json(kGpu + extra + "}", "box.json"); };
  };
  const std::string src = R"(, "sources": {"gpus_per_node": "https://example.com/node"})";
  std::string msg;
  EXPECT_EQ(error_field(parse(R"(, "gpus_per_node": 0)" + src), &msg), "/gpus_per_node");
  EXPECT_NE(msg.find("box.json"), std::string::npos) << msg;
  EXPECT_EQ(error_field(parse(R"(, "gpus_per_node": 73)" + src)), "/gpus_per_node");
  EXPECT_EQ(error_field(parse(R"(, "gpus_per_node": "eight")" + src)), "/gpus_per_node");
  EXPECT_EQ(error_field(parse(R"(, "gpus_per_node": 8)")), "/sources/gpus_per_node");
  EXPECT_EQ(error_field(parse(R"(, "gpus_per_node": 8, "node_dram_gib": -1)" + src)),
            "/node_dram_gib");
  EXPECT_EQ(error_field(parse(R"(, "gpus_per_node": 8, "node_dram_gib": 2048)" + src)),
            "/sources/node_dram");
  const std::string both =
      R"(, "sources": {"gpus_per_node": "u1", "node_dram": "u2"}, "node_dram_gib": 512)";
  EXPECT_EQ(error_field(parse(both)), "/node_dram_gib");  // a node's DRAM without its GPUs
  const GpuSpec ok = kvplan::parse_gpu_json(kGpu + R"(, "gpus_per_node": 8, "node_dram_gib": 1024,
      "sources": {"gpus_per_node": "u1", "node_dram": "u2"}})",
                                            "box.json");
  EXPECT_EQ(ok.gpus_per_node, 8u);
  EXPECT_DOUBLE_EQ(ok.node_dram_gib, 1024);
}

TEST(GpuNodes, NodesOfAnOrder) {
  GpuSpec hgx;
  hgx.gpus_per_node = 8;
  // TP 1 × PP 9: nine single-GPU stages, eight per node: ceil(9 / 8) = 2 nodes.
  EXPECT_EQ(kvplan::nodes_for(hgx, 1, 9), 2u);
  // TP 2 × 3 replicas: four TP-2 groups fit a node of 8: ceil(3 / 4) = 1 node.
  EXPECT_EQ(kvplan::nodes_for(hgx, 2, 3), 1u);
  // TP 8 × PP 2: one group per node: 2 nodes.
  EXPECT_EQ(kvplan::nodes_for(hgx, 8, 2), 2u);
  EXPECT_EQ(kvplan::max_tp_span(hgx), 8u);
  // GB200 NVL72: 4 GPUs per tray, a TP-8 group spans 2 trays of its 72-GPU NVLink domain:
  // 2 groups · ceil(8 / 4) = 4 nodes; the largest TP group the domain keeps is 72.
  GpuSpec nvl72;
  nvl72.gpus_per_node = 4;
  nvl72.interconnect = "nvlink";
  nvl72.nvlink_domain_gpus = 72;
  EXPECT_EQ(kvplan::nodes_for(nvl72, 8, 2), 4u);
  EXPECT_EQ(kvplan::max_tp_span(nvl72), 72u);
  // Unknown node size: no nodes, no TP limit.
  EXPECT_EQ(kvplan::nodes_for(GpuSpec{}, 1, 9), 0u);
  EXPECT_EQ(kvplan::max_tp_span(GpuSpec{}), 0u);
}

// TP stays inside a node: a GPU whose nodes hold 2 (no NVLink domain beyond them) is never
// ordered at TP 4 or 8, while the same GPU in nodes of 8 may be. llama-3.1-405b in bf16
// (810 GB of weights) needs many 80 GB GPUs, so the search wants large TP groups.
TEST(GpuNodes, OrdersKeepTensorParallelInsideANode) {
  const auto m = kvplan::load_model("llama-3.1-405b");
  kvplan::PlanInput in;
  in.context = 8192;
  in.concurrency = 4;
  GpuSpec g = kvplan::load_gpu("h100-sxm-80gb");
  const auto wide = kvplan::min_gpus(m, in, g);
  ASSERT_TRUE(wide.feasible);
  EXPECT_EQ(wide.nodes, kvplan::nodes_for(g, wide.tp, std::uint64_t{wide.pp} * wide.replicas));
  g.gpus_per_node = 2;
  g.nvlink_domain_gpus = 0;
  const auto narrow = kvplan::min_gpus(m, in, g);
  ASSERT_TRUE(narrow.feasible) << narrow.reason;
  EXPECT_LE(narrow.tp, 2u);
  EXPECT_GE(narrow.gpus, wide.gpus);  // a tighter rule never finds a smaller order
  // ceil(groups / (2 / tp)) nodes: TP 1 packs two groups a node, TP 2 one.
  const std::uint64_t groups = std::uint64_t{narrow.pp} * narrow.replicas;
  EXPECT_EQ(narrow.nodes, narrow.tp == 1 ? (groups + 1) / 2 : groups);
}

TEST(GpuNodes, CostsAreCents) {
  // 12 · 2.49 = 29.880000000000003 in binary floating point; the order says 29.88.
  EXPECT_EQ(12 * 2.49, 29.880000000000003);
  EXPECT_EQ(kvplan::round_cents(12 * 2.49), 29.88);
  EXPECT_EQ(kvplan::round_cents(0.125), 0.13);  // half away from zero
  EXPECT_EQ(kvplan::round_cents(0), 0);
}

TEST(Prices, CsvAndJsonGiveTheSameRows) {
  const std::string csv =
      "# a comment\n"
      "gpu,usd_per_hour,date,source\n"
      "\n"
      "h100-sxm-80gb,2.49,2026-11-30,https://example.com/p?a=1,b=2\n"
      "h200-141gb, 3.50 ,2026-11-30,https://example.com/q\n";
  const auto rows = kvplan::parse_prices(csv, "prices.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].gpu, "h100-sxm-80gb");
  EXPECT_DOUBLE_EQ(rows[0].usd_per_hour, 2.49);
  EXPECT_EQ(rows[0].date, "2026-11-30");
  EXPECT_EQ(rows[0].source, "https://example.com/p?a=1,b=2");  // the source keeps its commas
  EXPECT_DOUBLE_EQ(rows[1].usd_per_hour, 3.5);
  const std::string json = R"({"kvplan_prices": 1, "prices": [
      {"gpu": "h100-sxm-80gb", "usd_per_hour": 2.49, "date": "2026-11-30",
       "source": "https://example.com/p?a=1,b=2"},
      {"gpu": "h200-141gb", "usd_per_hour": 3.5, "date": "2026-11-30",
       "source": "https://example.com/q"}]})";
  const auto j = kvplan::parse_prices(json, "prices.json");
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[1].gpu, "h200-141gb");
  EXPECT_DOUBLE_EQ(j[1].usd_per_hour, 3.5);
  EXPECT_EQ(j[0].source, rows[0].source);

  std::vector<GpuSpec> gpus = {kvplan::load_gpu("h100-sxm-80gb"), kvplan::load_gpu("h200-141gb")};
  kvplan::apply_prices(gpus, rows, "prices.csv");
  EXPECT_DOUBLE_EQ(gpus[0].price_per_hour, 2.49);
  EXPECT_EQ(gpus[0].price_date, "2026-11-30");
  EXPECT_EQ(gpus[1].price_source, "https://example.com/q");
}

TEST(Prices, BadRowsNameTheFileLineAndField) {
  const std::string head = "gpu,usd_per_hour,date,source\n";
  auto csv = [](const std::string& text) {
    return [text] { kvplan::parse_prices(text, "prices.csv"); };
  };
  std::string msg;
  EXPECT_EQ(error_field(csv(head + "h100-sxm-80gb,cheap,2026-11-30,u\n"), &msg),
            "line 2, usd_per_hour");
  EXPECT_NE(msg.find("prices.csv"), std::string::npos) << msg;
  EXPECT_EQ(error_field(csv(head + "h100-sxm-80gb,0,2026-11-30,u\n")), "line 2, usd_per_hour");
  EXPECT_EQ(error_field(csv(head + "h100-sxm-80gb,-1,2026-11-30,u\n")), "line 2, usd_per_hour");
  EXPECT_EQ(error_field(csv(head + "h100-sxm-80gb,nan,2026-11-30,u\n")), "line 2, usd_per_hour");
  EXPECT_EQ(error_field(csv(head + "h100-sxm-80gb,2.49,30/11/2026,u\n")), "line 2, date");
  EXPECT_EQ(error_field(csv(head + "h100-sxm-80gb,2.49,2026-13-01,u\n")), "line 2, date");
  EXPECT_EQ(error_field(csv(head + "h100-sxm-80gb,2.49,2026-11-30,\n")), "line 2, source");
  EXPECT_EQ(error_field(csv(head + ",2.49,2026-11-30,u\n")), "line 2, gpu");
  EXPECT_EQ(error_field(csv(head + "h100-sxm-80gb,2.49\n")), "line 2");
  EXPECT_EQ(error_field(csv(head + "a,1,2026-11-30,u\na,2,2026-11-30,u\n")), "line 3, gpu");
  EXPECT_EQ(error_field(csv("gpu,price\n")), "line 1");
  EXPECT_EQ(error_field(csv("")), "line 1");
  EXPECT_EQ(error_field(csv(head)), "gpu");
  auto json = [](const std::string& text) {
    return [text] { kvplan::parse_prices(text, "prices.json"); };
  };
  EXPECT_EQ(error_field(json(R"({"kvplan_prices": 1, "prices": [{"gpu": "a", "usd_per_hour": 0,
      "date": "2026-11-30", "source": "u"}]})")),
            "/prices/0/usd_per_hour");
  EXPECT_EQ(error_field(json(R"({"kvplan_prices": 1, "prices": [{"gpu": "a", "usd_per_hour": 1,
      "date": "2026-11-30", "source": "u", "vendor": "x"}]})")),
            "/prices/0/vendor");
  EXPECT_EQ(error_field(json(R"({"kvplan_prices": 1, "prices": []})")), "/prices");
  EXPECT_EQ(error_field(json(R"({"kvplan_prices": 2, "prices": []})")), "/kvplan_prices");
  // A GPU no preset (nor --gpu) names: the row's gpu field.
  std::vector<GpuSpec> gpus = {kvplan::load_gpu("h100-sxm-80gb")};
  const auto rows = kvplan::parse_prices(head +
                                             "h100-sxm-80gb,2,2026-11-30,u\n"
                                             "tpu-v9,2,2026-11-30,u\n",
                                         "prices.csv");
  EXPECT_EQ(error_field([&] { kvplan::apply_prices(gpus, rows, "prices.csv"); }, &msg),
            "line 3, gpu");
  EXPECT_NE(msg.find("tpu-v9"), std::string::npos) << msg;
}

TEST(Prices, LoadReadsAFileAndNamesAMissingOne) {
  kvplan::test::TempDir dir;
  const std::string p = dir.file("prices.csv");
  std::ofstream(p) << "gpu,usd_per_hour,date,source\nl4,0.80,2026-11-30,https://example.com\n";
  const auto rows = kvplan::load_prices(p);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_DOUBLE_EQ(rows[0].usd_per_hour, 0.8);
  std::string msg;
  EXPECT_THROW(kvplan::load_prices(dir.file("missing.csv")), Error);
}

}  // namespace
