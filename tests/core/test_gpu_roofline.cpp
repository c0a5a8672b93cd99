// The roofline fields of the GPU presets (dense peaks per dtype, interconnect) and the MoE routing
// fields of ModelSpec that the serving simulator's step-time model reads.
//
// Expected peaks are the vendor datasheets' figures (URLs in models/gpus/*.json and
// docs/gpus.md); NVIDIA lists tensor peaks "with sparsity", so the dense figure is half of it.
// Expected expert counts are read by eye from the verbatim configs in tests/data/hf/.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "kvplan/error.hpp"
#include "kvplan/gpu.hpp"
#include "kvplan/model.hpp"
#include "kvplan/report.hpp"

namespace {

std::string hf_path(const std::string& name) {
  return std::string(KVPLAN_TEST_DATA_DIR) + "/hf/" + name + ".json";
}

const char* kHead = R"({"kvplan_gpu": 1, "id": "x", "source": "https://example.com/x", )"
                    R"("memory_bytes": 85899345920, "bandwidth_gbps": 2000)";

std::string gpu_json(const std::string& extra) {
  return std::string(kHead) + (extra.empty() ? "" : ", " + extra) + "}";
}

// The field of the Error parse_gpu_json throws, or "<none>" when it accepts the text.
std::string refused_field(const std::string& text) {
  try {
    kvplan::parse_gpu_json(text, "bad.json");
  } catch (const kvplan::Error& e) {
    EXPECT_EQ(e.source(), "bad.json");
    return e.field();
  }
  return "<none>";
}

TEST(GpuRoofline, H100SxmDatasheetHalved) {
  // H100 SXM datasheet: BF16 Tensor Core 1,979 teraFLOPS*, FP8 3,958*, INT8 3,958 TOPS*
  // (* with sparsity); NVLink 900 GB/s.
  const auto g = kvplan::load_gpu("h100-sxm-80gb");
  EXPECT_DOUBLE_EQ(g.peak_tflops_bf16, 1979.0 / 2);
  EXPECT_DOUBLE_EQ(g.peak_tflops_fp8, 3958.0 / 2);
  EXPECT_DOUBLE_EQ(g.peak_tops_int8, 3958.0 / 2);
  EXPECT_DOUBLE_EQ(g.peak_tflops_fp4, 0);  // Hopper has no FP4 tensor cores
  EXPECT_EQ(g.interconnect, "nvlink");
  EXPECT_DOUBLE_EQ(g.interconnect_gbps, 900);
  EXPECT_DOUBLE_EQ(g.bandwidth_gbps, 3350);  // unchanged
}

TEST(GpuRoofline, OtherPresetsFromTheirDatasheets) {
  // A100 datasheet: BF16 312 / 624* TFLOPS (dense / sparse), no FP8; NVLink 600 GB/s.
  const auto a = kvplan::load_gpu("a100-80gb");
  EXPECT_DOUBLE_EQ(a.peak_tflops_bf16, 312);
  EXPECT_DOUBLE_EQ(a.peak_tflops_fp8, 0);
  EXPECT_DOUBLE_EQ(a.interconnect_gbps, 600);
  // HGX B200, per GPU: FP4 18 PFLOPS*, FP8 9*, BF16 4.5*; NVLink 5 1.8 TB/s.
  const auto b = kvplan::load_gpu("b200");
  EXPECT_DOUBLE_EQ(b.peak_tflops_fp4, 18000.0 / 2);
  EXPECT_DOUBLE_EQ(b.peak_tflops_fp8, 9000.0 / 2);
  EXPECT_DOUBLE_EQ(b.peak_tflops_bf16, 4500.0 / 2);
  EXPECT_DOUBLE_EQ(b.interconnect_gbps, 1800);
  // MI300X: AMD lists dense figures, FP16 1307.4 TFLOPS, FP8 2614.9; 7 Infinity Fabric links of
  // 128 GB/s = 896 GB/s.
  const auto m = kvplan::load_gpu("mi300x");
  EXPECT_DOUBLE_EQ(m.peak_tflops_bf16, 1307.4);
  EXPECT_DOUBLE_EQ(m.peak_tflops_fp8, 2614.9);
  EXPECT_DOUBLE_EQ(m.interconnect_gbps, 7 * 128);
  EXPECT_EQ(m.interconnect, "infinity_fabric");
  // L40S: PCIe Gen4 x16, 64 GB/s bidirectional; FP8 733 / 1,466* TFLOPS.
  const auto l = kvplan::load_gpu("l40s");
  EXPECT_EQ(l.interconnect, "pcie");
  EXPECT_DOUBLE_EQ(l.interconnect_gbps, 64);
  EXPECT_DOUBLE_EQ(l.peak_tflops_fp8, 1466.0 / 2);
}

TEST(GpuRoofline, BlackwellUltraAndGraceBlackwellPerGpu) {
  // ai-dynamo/aiconfigurator systems/*.yaml@095f58a5 (NVIDIA's, citing NVIDIA's Blackwell and
  // Blackwell Ultra datasheets), dense figures per GPU. B300: "2250 TFLOPS (4.5 PFLOPS sparse /
  // 2)", FP8 "4.5 PFLOPS (9 PFLOPS sparse / 2)", FP4 "14 PFLOPS (18 PFLOPS sparse | 14 PFLOPS
  // dense)", INT8 "153.5 TFLOPS (307 TOPS sparse / 2)", HBM "7.75 TB/s (62TB/s / 8 GPUs)", NVLink
  // "1.8 TB/s NVLink bidir"; an HGX B300 joins 8 GPUs over NVLink.
  const auto b = kvplan::load_gpu("b300");
  EXPECT_DOUBLE_EQ(b.peak_tflops_bf16, 4500.0 / 2);
  EXPECT_DOUBLE_EQ(b.peak_tflops_fp8, 9000.0 / 2);
  EXPECT_DOUBLE_EQ(b.peak_tflops_fp4, 14000);
  EXPECT_DOUBLE_EQ(b.peak_tops_int8, 307.0 / 2);
  EXPECT_DOUBLE_EQ(b.bandwidth_gbps, 62000.0 / 8);
  EXPECT_DOUBLE_EQ(b.interconnect_gbps, 1800);
  EXPECT_EQ(b.nvlink_domain_gpus, 8u);
  // GB200: 8 TB/s, BF16 2500, FP8 5000, INT8 5000, FP4 10000 TFLOPS; 72 GPUs per NVL72 rack
  // on NVLink (900 GB/s each way per GPU).
  const auto g2 = kvplan::load_gpu("gb200");
  EXPECT_DOUBLE_EQ(g2.peak_tflops_bf16, 2500);
  EXPECT_DOUBLE_EQ(g2.peak_tflops_fp8, 5000);
  EXPECT_DOUBLE_EQ(g2.peak_tflops_fp4, 10000);
  EXPECT_DOUBLE_EQ(g2.peak_tops_int8, 5000);
  EXPECT_DOUBLE_EQ(g2.bandwidth_gbps, 8000);
  EXPECT_DOUBLE_EQ(g2.interconnect_gbps, 2 * 900);
  EXPECT_EQ(g2.nvlink_domain_gpus, 72u);
  // GB300: 8 TB/s, BF16 2500, FP8 5000, FP4 15000 TFLOPS, INT8 165 TOPS; 72 per rack.
  const auto g3 = kvplan::load_gpu("gb300");
  EXPECT_DOUBLE_EQ(g3.peak_tflops_bf16, 2500);
  EXPECT_DOUBLE_EQ(g3.peak_tflops_fp8, 5000);
  EXPECT_DOUBLE_EQ(g3.peak_tflops_fp4, 15000);
  EXPECT_DOUBLE_EQ(g3.peak_tops_int8, 165);
  EXPECT_EQ(g3.nvlink_domain_gpus, 72u);
  // RTX PRO 6000 Blackwell Server Edition: 1.792 TB/s GDDR7, PCIe Gen5 x16 64 GB/s each way,
  // no NVLink; no peaks (see EveryPresetHasPeaksAndSources).
  const auto r = kvplan::load_gpu("rtx-pro-6000-server");
  EXPECT_DOUBLE_EQ(r.bandwidth_gbps, 1792);
  EXPECT_EQ(r.interconnect, "pcie");
  EXPECT_DOUBLE_EQ(r.interconnect_gbps, 2 * 64);
  EXPECT_EQ(r.nvlink_domain_gpus, 0u);
  // Presets that do not state the domain leave it unknown.
  EXPECT_EQ(kvplan::load_gpu("h100-sxm-80gb").nvlink_domain_gpus, 0u);
}

TEST(GpuRoofline, NvlinkDomainParsedAndValidated) {
  const std::string nv = R"("interconnect": "nvlink", "interconnect_gbps": 1800, )";
  const std::string src = R"("sources": {"interconnect": "u", "nvlink_domain": "u"})";
  EXPECT_EQ(kvplan::parse_gpu_json(gpu_json(nv + R"("nvlink_domain_gpus": 72, )" + src), "x.json")
                .nvlink_domain_gpus,
            72u);
  EXPECT_EQ(refused_field(gpu_json(nv + R"("nvlink_domain_gpus": 0, )" + src)),
            "/nvlink_domain_gpus");
  EXPECT_EQ(refused_field(gpu_json(nv + R"("nvlink_domain_gpus": 577, )" + src)),
            "/nvlink_domain_gpus");
  EXPECT_EQ(refused_field(gpu_json(nv + R"("nvlink_domain_gpus": 8.5, )" + src)),
            "/nvlink_domain_gpus");
  // Without its source; on a card whose link is not NVLink.
  EXPECT_EQ(
      refused_field(gpu_json(nv + R"("nvlink_domain_gpus": 8, "sources": {"interconnect": "u"})")),
      "/sources/nvlink_domain");
  EXPECT_EQ(
      refused_field(gpu_json(
          R"("interconnect": "pcie", "interconnect_gbps": 128, "nvlink_domain_gpus": 8, )" + src)),
      "/nvlink_domain_gpus");
}

TEST(GpuRoofline, EveryPresetHasPeaksAndSources) {
  const auto all = kvplan::list_gpu_presets();
  ASSERT_EQ(all.size(), 14u);
  // The one preset without peaks: the only figures found for the RTX PRO 6000 Blackwell Server
  // Edition were aiconfigurator's, scaled to one node's observed clock, not NVIDIA's datasheet.
  const std::set<std::string> without_peaks = {"rtx-pro-6000-server"};
  for (const auto& g : all) {
    SCOPED_TRACE(g.id);
    EXPECT_GT(g.interconnect_gbps, 0);
    EXPECT_EQ(g.interconnect_source.rfind("https://", 0), 0u);
    if (without_peaks.count(g.id)) {
      EXPECT_EQ(g.peak_tflops_bf16, 0);
      EXPECT_TRUE(g.peaks_source.empty());
      continue;
    }
    EXPECT_GT(g.peak_tflops_bf16, 0);
    EXPECT_EQ(g.peaks_source.rfind("https://", 0), 0u);
    EXPECT_EQ(g.interconnect_source.rfind("https://", 0), 0u);
    // Low precision is never slower than bf16 where it exists.
    if (g.peak_tflops_fp8 > 0) {
      EXPECT_GE(g.peak_tflops_fp8, g.peak_tflops_bf16);
    }
    if (g.peak_tflops_fp4 > 0) {
      EXPECT_GE(g.peak_tflops_fp4, g.peak_tflops_fp8);
    }
  }
}

// `kvplan gpus` is core's renderer: a figure the preset does not know (0, or a NaN that a
// hand-built spec may carry) is "-" in a table and null in JSON, never "nan".
TEST(GpuRoofline, PresetListShowsUnknownFiguresAsMissing) {
  kvplan::GpuSpec g;
  g.id = "test-gpu";
  g.name = "Test GPU";
  g.memory_bytes = 1024;
  g.bandwidth_gbps = 3350;
  g.peak_tflops_bf16 = 989.5;
  g.peak_tflops_fp8 = std::nan("");
  const std::string text = kvplan::render_gpu_presets({g}, kvplan::OutputFormat::table);
  EXPECT_EQ(text.find("nan"), std::string::npos) << text;
  EXPECT_NE(text.find("989.5"), std::string::npos) << text;
  const auto j = nlohmann::json::parse(kvplan::render_gpu_presets({g}, kvplan::OutputFormat::json));
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["id"], "test-gpu");
  EXPECT_EQ(j[0]["memory_bytes"].get<std::uint64_t>(), 1024u);
  EXPECT_EQ(j[0]["bandwidth_gbps"].get<double>(), 3350);
  EXPECT_EQ(j[0]["peak_tflops_bf16"].get<double>(), 989.5);
  EXPECT_TRUE(j[0]["peak_tflops_fp8"].is_null());
  EXPECT_TRUE(j[0]["peak_tflops_fp4"].is_null());
  EXPECT_TRUE(j[0]["interconnect"].is_null());
}

TEST(GpuRoofline, FileWithoutRooflineFieldsStillLoads) {
  const auto g = kvplan::parse_gpu_json(gpu_json(""), "old.json");
  EXPECT_DOUBLE_EQ(g.peak_tflops_bf16, 0);
  EXPECT_DOUBLE_EQ(g.interconnect_gbps, 0);
  EXPECT_EQ(g.memory_bytes, 85899345920u);
}

TEST(GpuRoofline, MalformedValuesRefusedNamingTheField) {
  const std::string src = R"("sources": {"peak_tflops": "u", "interconnect": "u"})";
  EXPECT_EQ(refused_field(gpu_json(R"("peak_tflops_bf16": -1, )" + src)), "/peak_tflops_bf16");
  EXPECT_EQ(refused_field(gpu_json(R"("peak_tflops_fp8": 0.0, "peak_tflops_bf16": -0.5, )" + src)),
            "/peak_tflops_bf16");
  EXPECT_EQ(refused_field(gpu_json(R"("peak_tops_int8": "300", )" + src)), "/peak_tops_int8");
  EXPECT_EQ(refused_field(gpu_json(R"("interconnect_gbps": -64, )" + src)), "/interconnect_gbps");
  EXPECT_EQ(refused_field(gpu_json(R"("peak_tflops_fp4": 1e6, )" + src)), "/peak_tflops_fp4");
  EXPECT_EQ(refused_field(gpu_json(R"("interconnect": "infiniband", )" + src)), "/interconnect");
  // NaN is not JSON, and 1e400 overflows a double: the strict reader refuses the file (naming
  // it, with the byte offset) before any field is read.
  EXPECT_EQ(refused_field(gpu_json(R"("peak_tflops_bf16": NaN, )" + src)), "");
  try {
    kvplan::parse_gpu_json(gpu_json(R"("peak_tflops_bf16": NaN, )" + src), "nan.json");
    ADD_FAILURE() << "NaN accepted";
  } catch (const kvplan::Error& e) {
    // The reader's message quotes the text up to the bad literal, the key included.
    EXPECT_NE(std::string(e.what()).find("peak_tflops_bf16"), std::string::npos) << e.what();
  }
  EXPECT_EQ(refused_field(gpu_json(R"("peak_tflops_fp8": 1e400, )" + src)), "");
  // A figure without its source, a typo inside "sources".
  EXPECT_EQ(refused_field(gpu_json(R"("peak_tflops_bf16": 100)")), "/sources/peak_tflops");
  EXPECT_EQ(refused_field(gpu_json(R"("interconnect_gbps": 64)")), "/sources/interconnect");
  EXPECT_EQ(refused_field(gpu_json(R"("sources": {"peaks": "u"})")), "/sources/peaks");
  // A well-formed file passes.
  EXPECT_EQ(refused_field(gpu_json(R"("peak_tflops_bf16": 100, "interconnect_gbps": 64, )" + src)),
            "<none>");
}

TEST(ModelMoe, RoutedExpertsAndExpertsPerToken) {
  // mixtral-8x7b.json: "num_local_experts": 8, "num_experts_per_tok": 2.
  const auto mixtral = kvplan::load_model(hf_path("mixtral-8x7b"));
  EXPECT_EQ(mixtral.routed_experts, 8u);
  EXPECT_EQ(mixtral.experts_per_token, 2u);
  // qwen3-235b-a22b.json: "num_experts": 128, "num_experts_per_tok": 8.
  const auto qwen = kvplan::load_model(hf_path("qwen3-235b-a22b"));
  EXPECT_EQ(qwen.routed_experts, 128u);
  EXPECT_EQ(qwen.experts_per_token, 8u);
  // deepseek-v3.json: "n_routed_experts": 256, "num_experts_per_tok": 8 (the shared expert,
  // "n_shared_experts": 1, is dense: every token uses it).
  const auto ds = kvplan::load_model(hf_path("deepseek-v3"));
  EXPECT_EQ(ds.routed_experts, 256u);
  EXPECT_EQ(ds.experts_per_token, 8u);
  // gpt-oss-20b.json: "num_local_experts": 32, "experts_per_token": 4 (and num_experts_per_tok 4).
  const auto oss = kvplan::load_model(hf_path("gpt-oss-20b"));
  EXPECT_EQ(oss.routed_experts, 32u);
  EXPECT_EQ(oss.experts_per_token, 4u);
  // A dense model: no routing.
  const auto llama = kvplan::load_model(hf_path("llama-3.1-8b"));
  EXPECT_EQ(llama.routed_experts, 0u);
  EXPECT_EQ(llama.experts_per_token, 0u);
}

// The experts' width and the layers that route, as each config states them, and the stored
// weights' format: what the measured MoE tables are looked up by.
TEST(ModelMoe, ExpertWidthMoeLayersAndWeightFormat) {
  struct Case {
    const char* config;
    std::uint32_t width, moe_layers;
    const char* format;
  };
  for (const Case& c : {
           // 61 layers, "first_k_dense_replace": 3, "moe_layer_freq": 1 → layers 3-60 route;
           // "moe_intermediate_size": 2048; quantization_config "weight_block_size": [128, 128].
           Case{"deepseek-v3", 2048, 58, "fp8_block"},
           // 36 layers, every one MoE; no moe_intermediate_size: "intermediate_size": 2880 is the
           // experts' width; "quant_method": "mxfp4".
           Case{"gpt-oss-120b", 2880, 36, "mxfp4"},
           // 94 layers, "decoder_sparse_step": 1, "mlp_only_layers": [] → all 94;
           // "moe_intermediate_size": 1536; "weight_block_size": [128, 128].
           Case{"qwen3-235b-a22b-fp8", 1536, 94, "fp8_block"},
           // 61 layers, "first_k_dense_replace": 1 → 60; "moe_intermediate_size": 2048;
           // compressed-tensors weights "num_bits": 4, "type": "int".
           Case{"kimi-k2.5", 2048, 60, "int4"},
           // 32 layers, all MoE, "intermediate_size": 14336; bf16, unquantized.
           Case{"mixtral-8x7b", 14336, 32, ""},
           // Dense: a GPTQ checkpoint ("bits": 4) and an unquantized one.
           Case{"wizard-vicuna-30b-gptq-4bit-128g", 0, 0, "int4"},
           Case{"llama-3.1-8b", 0, 0, ""},
       }) {
    const auto m = kvplan::load_model(hf_path(c.config));
    EXPECT_EQ(m.moe_intermediate_size, c.width) << c.config;
    EXPECT_EQ(m.moe_layers, c.moe_layers) << c.config;
    EXPECT_EQ(m.weights.format, c.format) << c.config;
  }
}

}  // namespace
