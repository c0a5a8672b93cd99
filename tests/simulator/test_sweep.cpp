// The concurrency sweep (sweep.hpp) against a timeline worked out by hand. The step timer makes a
// step last 10 ms plus 1 ms per sequence in it, whatever each computes; prompts are one token and
// outputs 11, so a request takes 11 steps (its prefill step gives its first token, then 10
// decodes). With c closed-loop clients and no think time every step holds all c sequences (a
// finished request's client sends its next at the step's end, and it joins the next step):
//   step = 10 + c ms;  TPOT = (11 steps - 1) x (10 + c) / 10 = 10 + c ms;  1000 / (10 + c) tok/s
//   per user;  c tokens a step, so c x 1000 / (10 + c) tok/s in all.
// The knee, the largest (tok/s per GPU) x (tok/s per user), goes as c / (10 + c)^2:
//   c = 1: 1/121 = 0.00826, 2: 2/144 = 0.01389, 4: 4/196 = 0.02041, 8: 8/324 = 0.02469,
//   16: 16/676 = 0.02367, 32: 32/1764 = 0.01814  ->  the knee is c = 8.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "kvplan/error.hpp"
#include "kvplan/kv_format.hpp"
#include "kvplan/model.hpp"
#include "kvplan/sim/sweep.hpp"

namespace kvplan::sim {
namespace {

class PerSequenceTimer final : public StepTimer {
 public:
  double seconds(const StepBatch& b) const override {
    return 0.010 + 0.001 * static_cast<double>(b.prefill_seqs + b.decode_tokens);
  }
};

ServingConfig config() {
  ServingConfig c;
  c.plan.format = parse_kv_format("fp16");
  c.plan.context = 4096;
  c.plan.available_kv_bytes = std::uint64_t{8} << 30;  // far more blocks than 32 requests take
  c.plan.gpu_id = "test-gpu";
  c.async_scheduling = false;
  c.enable_prefix_caching = false;
  return c;
}

WorkloadSpec one_token_prompts() {
  WorkloadSpec s;
  s.prompt = fixed_tokens(1);
  s.output = fixed_tokens(11);
  return s;
}

const ModelSpec& llama() {
  static const ModelSpec m = load_model("llama-3.1-8b");
  return m;
}

TEST(Sweep, HandWorkedClosedLoopTimeline) {
  const PerSequenceTimer timer;
  SimOptions opt;
  opt.slo.tpot_p99_ms = 20;  // 10 + c <= 20: c = 1, 2, 4, 8 meet it
  const SweepInput in{.concurrencies = {1, 2, 4, 8, 16, 32}, .requests_per_client = 3, .gpus = 2};
  const SweepResult r = sweep(llama(), config(), timer, one_token_prompts(), in, opt);
  ASSERT_EQ(r.points.size(), 6u);
  for (const SweepPoint& p : r.points) {
    const double c = static_cast<double>(p.concurrency);
    EXPECT_EQ(p.requests, p.concurrency * 3);
    EXPECT_EQ(p.refused, 0u);
    EXPECT_NEAR(p.tpot_ms.mean, 10 + c, 1e-6) << c;
    EXPECT_NEAR(p.tokens_per_s_per_user, 1000 / (10 + c), 1e-6) << c;
    EXPECT_NEAR(p.output_tokens_per_s, c * 1000 / (10 + c), 1e-6) << c;
    EXPECT_NEAR(p.tokens_per_s_per_gpu, c * 1000 / (10 + c) / 2, 1e-6) << c;
    EXPECT_NEAR(p.ttft_ms.mean, 10 + c, 1e-6) << c;  // one step
    EXPECT_EQ(p.meets_slo, c <= 10) << c;
  }
  ASSERT_TRUE(r.knee.has_value());
  EXPECT_EQ(r.points[*r.knee].concurrency, 8u);
  EXPECT_DOUBLE_EQ(r.slo_tokens_per_s_per_user, 50.0);
}

// While the product still grows at the last point there is no knee (c = 1, 2, 4 above).
TEST(Sweep, NoKneeWhileStillScaling) {
  const PerSequenceTimer timer;
  const SweepInput in{.concurrencies = {1, 2, 4}, .requests_per_client = 2};
  const SweepResult r = sweep(llama(), config(), timer, one_token_prompts(), in);
  EXPECT_FALSE(r.knee.has_value());
  EXPECT_NE(render_sweep(r, OutputFormat::table).find("no knee"), std::string::npos);
}

TEST(Sweep, RendersEveryFormatWithTheKneeAndTheSlo) {
  const PerSequenceTimer timer;
  SimOptions opt;
  opt.slo.tpot_p99_ms = 20;
  const SweepInput in{.concurrencies = {1, 2, 4, 8, 16, 32}, .requests_per_client = 1};
  const SweepResult r = sweep(llama(), config(), timer, one_token_prompts(), in, opt);
  EXPECT_NE(render_sweep(r, OutputFormat::table).find("knee at concurrency 8"), std::string::npos);
  const std::string csv = render_sweep(r, OutputFormat::csv);
  EXPECT_EQ(csv.rfind("concurrency,tok/s/GPU,tok/s/user", 0), 0u) << csv;
  EXPECT_NE(csv.find("\n8,"), std::string::npos) << csv;
  const std::string json = render_sweep(r, OutputFormat::json);
  EXPECT_NE(json.find("\"knee_concurrency\": 8"), std::string::npos) << json;
  EXPECT_NE(json.find("\"slo_tokens_per_s_per_user\": 50.0"), std::string::npos) << json;
  const std::string svg = render_sweep_svg(r);
  EXPECT_EQ(svg.rfind("<svg ", 0), 0u);
  std::size_t points = 0;
  for (auto at = svg.find("class=\"point\""); at != std::string::npos;
       at = svg.find("class=\"point\"", at + 1))
    ++points;
  EXPECT_EQ(points, 6u);
  EXPECT_NE(svg.find("class=\"knee\""), std::string::npos);
  EXPECT_NE(svg.find("class=\"slo\""), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
}

// Several deployments: one table with a first "deployment" column, a JSON array, one curve and
// legend entry each on the chart.
TEST(Sweep, SeveralDeploymentsShareOneTableAndOneChart) {
  const PerSequenceTimer timer;
  const SweepInput in{.concurrencies = {1, 2}, .requests_per_client = 1};
  SweepResult a = sweep(llama(), config(), timer, one_token_prompts(), in);
  SweepResult b = a;
  b.gpu = "other-gpu";
  b.gpus = 2;
  const std::string table = render_sweeps({a, b}, OutputFormat::table);
  EXPECT_NE(table.find("deployment"), std::string::npos) << table;
  EXPECT_NE(table.find("2 x other-gpu (vllm)"), std::string::npos) << table;
  const std::string csv = render_sweeps({a, b}, OutputFormat::csv);
  EXPECT_EQ(csv.rfind("deployment,concurrency,", 0), 0u) << csv;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5);  // the header and 2 x 2 rows
  const std::string json = render_sweeps({a, b}, OutputFormat::json);
  EXPECT_EQ(json.front(), '[');
  EXPECT_EQ(render_sweeps({a}, OutputFormat::json), render_sweep(a, OutputFormat::json));
  const std::string svg = render_sweep_svg(std::vector<SweepResult>{a, b});
  std::size_t legends = 0;
  for (auto at = svg.find("class=\"legend\""); at != std::string::npos;
       at = svg.find("class=\"legend\"", at + 1))
    ++legends;
  EXPECT_EQ(legends, 2u);
  EXPECT_NE(svg.find("<polyline"), svg.rfind("<polyline"));  // two curves
}

TEST(Sweep, ConcurrencyListsAndBadInput) {
  EXPECT_EQ(parse_concurrency_list("1,2,4", "--concurrency", "concurrency"),
            (std::vector<std::uint64_t>{1, 2, 4}));
  EXPECT_EQ(parse_concurrency_list("1-512", "--concurrency", "concurrency"),
            (std::vector<std::uint64_t>{1, 2, 4, 8, 16, 32, 64, 128, 256, 512}));
  EXPECT_EQ(parse_concurrency_list("4-100", "--concurrency", "concurrency"),
            (std::vector<std::uint64_t>{4, 8, 16, 32, 64, 100}));
  for (const char* bad : {"", "0", "4,2", "2,2", "1,,2", "x", "1-0", "8-4", "100001", "1.5"}) {
    try {
      parse_concurrency_list(bad, "--concurrency", "concurrency");
      ADD_FAILURE() << "'" << bad << "' was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("concurrency"), std::string::npos) << e.what();
    }
  }
  const PerSequenceTimer timer;
  EXPECT_THROW(sweep(llama(), config(), timer, one_token_prompts(), SweepInput{}), Error);
  EXPECT_THROW(sweep(llama(), config(), timer, one_token_prompts(),
                     SweepInput{.concurrencies = {1}, .gpus = 0}),
               Error);
}

}  // namespace
}  // namespace kvplan::sim
