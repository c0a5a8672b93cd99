// Disaggregated prefill/decode serving against timelines worked out by hand (each in the comment
// above its test). Both sides use test_serving.cpp's step timer, 10 ms per step + 0.1 ms per
// prefill token, and Llama-3.1-8B's fp16 pool at TP 1: one block of all 32 layers is
// 16 tokens · 8 KV heads · (128 + 128) · 2 bytes · 32 layers = 2 MiB, so a 1,600-token prompt
// (100 blocks) sends 100 · 2 MiB = 209,715,200 bytes. Async scheduling is off on both sides, so
// a step takes what arrived by its start.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>

#include "error_message.hpp"
#include "kvplan/error.hpp"
#include "kvplan/gpu.hpp"
#include "kvplan/sim/disagg.hpp"
#include "kvplan/sim/serving_report.hpp"
#include "kvplan/sim/slo_search.hpp"
#include "serving_fixture.hpp"

namespace kvplan::sim {
namespace {

constexpr std::uint64_t MiB = std::uint64_t{1} << 20;
constexpr double kPromptBytes = 209715200;  // 100 blocks · 2 MiB

class LinearTimer final : public StepTimer {
 public:
  double seconds(const StepBatch& b) const override {
    return 0.010 + 1e-4 * static_cast<double>(b.prefill_tokens);
  }
};

ServingConfig side(std::uint64_t usable_blocks) {
  ServingConfig c;
  c.plan.format = parse_kv_format("fp16");
  c.plan.context = 2048;
  c.plan.available_kv_bytes = (usable_blocks + 1) * 2 * MiB;  // + vLLM's null block
  c.async_scheduling = false;
  return c;
}

DisaggConfig config(std::uint32_t prefill, std::uint32_t decode, double gbps,
                    std::uint64_t decode_blocks = 1000) {
  DisaggConfig c;
  c.prefill = side(1000);
  c.decode = side(decode_blocks);
  c.prefill_replicas = prefill;
  c.decode_replicas = decode;
  c.link.name = "custom";
  c.link.gbps = gbps;
  return c;
}

const ModelSpec& llama() {
  static const ModelSpec m = load_model("llama-3.1-8b");
  return m;
}

// The call throws an input error whose message names `field` and says `what`.
void expect_error(const std::function<void()>& f, const std::string& field,
                  const std::string& what) {
  const std::string m = test::error_message(f);
  EXPECT_NE(m.find(field), std::string::npos) << m;
  EXPECT_NE(m.find(what), std::string::npos) << m;
}

DisaggResult run(const DisaggConfig& cfg, std::vector<SimRequest> rs) {
  return simulate_disagg(llama(), cfg, LinearTimer{}, LinearTimer{},
                         fixture::workload(std::move(rs)));
}

// 2P1D on a 1 GB/s link with 1 ms latency; A (id 0) and B (id 1), 1,600-token prompts, 3 outputs,
// both at t = 0. Round robin: A on P0, B on P1, each prefilled in one step of
// 0.010 + 1600 · 1e-4 = 0.170 s. At 0.170 the decode replica allocates both prompts' blocks and
// the transfers queue on its link, 209,715,200 B / 1e9 B/s = 0.2097152 s each:
//   A  on the link 0.170 .. 0.3797152, in place at +1 ms = 0.3807152; its last prompt token
//      (0.010 + 1e-4 = 0.0101 s) gives its first token at 0.3908152; two decodes of 10 ms:
//      done at 0.4108152
//   B  waits for the link until 0.3797152, on it until 0.5894304, in place at 0.5904304; first
//      token 0.6005304; done at 0.6205304
// TTFT: A 390.8152 ms, of which the link 209.7 ms and the prefill 170 ms; B 600.5304 ms, of which
// 419.4 ms on or waiting for the link. Both transfers: 209,715,200 bytes; KV bandwidth over the
// run 2 · 209,715,200 / 0.6205304 s.
TEST(Disagg, TransferTimeDominatesTimeToFirstToken) {
  DisaggConfig cfg = config(2, 1, 1.0);
  cfg.link.latency_s = 0.001;
  const auto r = run(cfg, {fixture::req(0, 0, 1600, 3), fixture::req(1, 0, 1600, 3)});
  ASSERT_EQ(r.run.requests.size(), 2u);
  const auto &A = r.run.requests[0], &B = r.run.requests[1];
  ASSERT_TRUE(A.finished && B.finished);
  EXPECT_NEAR(A.first_token_s, 0.3908152, 1e-9);
  EXPECT_NEAR(A.finish_s, 0.4108152, 1e-9);
  EXPECT_NEAR(B.first_token_s, 0.6005304, 1e-9);
  EXPECT_NEAR(B.finish_s, 0.6205304, 1e-9);
  EXPECT_NEAR(r.run.summary.ttft_ms.mean, (390.8152 + 600.5304) / 2, 1e-6);
  // TPOT: both decode two tokens at 10 ms.
  EXPECT_NEAR(r.run.summary.tpot_ms.mean, 10.0, 1e-9);
  ASSERT_EQ(r.transfers.size(), 2u);
  EXPECT_EQ(r.transfers[0].prefill, 0u);
  EXPECT_EQ(r.transfers[1].prefill, 1u);
  for (const auto& t : r.transfers) {
    EXPECT_EQ(t.bytes, 209715200u);
    EXPECT_NEAR(t.handoff_s, 0.170, 1e-12);
    EXPECT_NEAR(t.allocated_s, 0.170, 1e-12);
  }
  EXPECT_NEAR(r.transfers[1].start_s, 0.3797152, 1e-9);
  EXPECT_NEAR(r.transfers[1].ready_s, 0.5904304, 1e-9);
  EXPECT_NEAR(r.link_wait_ms.mean, (0 + 209.7152) / 2, 1e-6);
  EXPECT_NEAR(r.transfer_ms.mean, 210.7152, 1e-6);  // on the link + 1 ms latency
  EXPECT_NEAR(r.admission_wait_ms.mean, 0, 1e-9);
  EXPECT_EQ(r.kv_bytes, 2 * 209715200u);
  EXPECT_NEAR(r.kv_gbps, 2 * kPromptBytes / 0.6205304 / 1e9, 1e-9);
  EXPECT_NEAR(r.run.simulated_s, 0.6205304, 1e-9);
  // Each side's own run: the prefill replicas took one request each, the decode replica both.
  ASSERT_EQ(r.prefill.size(), 2u);
  ASSERT_EQ(r.decode.size(), 1u);
  EXPECT_EQ(r.prefill[0].requests.size(), 1u);
  EXPECT_EQ(r.decode[0].requests.size(), 2u);
  EXPECT_EQ(r.decode[0].summary.requests, 2u);
  // The transfer queue every 0.1 s (the run ends at 0.6205304: samples 0 .. 0.6). From 0.170 A is
  // on the link and B waits for it; A is in place at 0.3807152 and B on the link from 0.3797152
  // to 0.5904304.
  const auto q = transfer_series(r, 0.1);
  ASSERT_EQ(q.size(), 7u);
  const std::uint64_t on[] = {0, 0, 1, 1, 1, 1, 0}, waiting[] = {0, 0, 1, 1, 0, 0, 0};
  for (std::size_t k = 0; k < q.size(); ++k) {
    EXPECT_NEAR(q[k].t_s, 0.1 * static_cast<double>(k), 1e-12);
    EXPECT_EQ(q[k].on_link, on[k]) << k;
    EXPECT_EQ(q[k].waiting_link, waiting[k]) << k;
    EXPECT_EQ(q[k].waiting_blocks, 0u) << k;
  }
}

// Decode-side backpressure: the decode pool has 150 usable blocks, a 1,600-token prompt takes
// 100, so B cannot be admitted while A holds its blocks. Link 1,000 GB/s, no latency: a transfer
// is 0.0002097152 s.
//   0.170        both prefills done (2 prefill replicas); A's 100 blocks allocated, B's 100 do
//                not fit beside them (50 free): B waits at the head of the queue
//   0.1702097152 A in place; first token at +0.0101 = 0.1803097152 (101 blocks once it decodes)
//   0.2003097152 A done after two decodes; its blocks are freed
//   the next turn, at 0.2003097152: B's blocks, in place at 0.2005194304, first token
//                0.2106194304, done 0.2306194304
// B waited 0.0303097152 s for the decode side's blocks; A none.
TEST(Disagg, AFullDecodePoolHoldsTheTransferBack) {
  const auto r =
      run(config(2, 1, 1000.0, 150), {fixture::req(0, 0, 1600, 3), fixture::req(1, 0, 1600, 3)});
  const auto &A = r.run.requests[0], &B = r.run.requests[1];
  ASSERT_TRUE(A.finished && B.finished);
  EXPECT_NEAR(A.first_token_s, 0.1803097152, 1e-9);
  EXPECT_NEAR(A.finish_s, 0.2003097152, 1e-9);
  EXPECT_NEAR(B.first_token_s, 0.2106194304, 1e-9);
  EXPECT_NEAR(B.finish_s, 0.2306194304, 1e-9);
  ASSERT_EQ(r.transfers.size(), 2u);
  EXPECT_NEAR(r.transfers[0].allocated_s, 0.170, 1e-12);
  EXPECT_NEAR(r.transfers[1].allocated_s, 0.2003097152, 1e-9);
  EXPECT_NEAR(r.admission_wait_ms.p50, (0 + 30.3097152) / 2, 1e-6);  // two values: the midpoint
  EXPECT_NEAR(r.link_wait_ms.mean, 0, 1e-9);
  // B waits for the decode side's blocks from 0.170 to 0.2003097152: of the samples 0.015 s
  // apart, those at 0.180 and 0.195 count it (0.165 is before, 0.210 after).
  const auto q = transfer_series(r, 0.015);
  ASSERT_EQ(q.size(), 16u);  // 0 .. 0.225 within the run's 0.2306194304 s
  std::uint64_t waiting = 0;
  for (const auto& s : q) waiting += s.waiting_blocks;
  EXPECT_EQ(waiting, 2u);
  EXPECT_EQ(q[12].waiting_blocks, 1u);
  EXPECT_EQ(q[13].waiting_blocks, 1u);
  // The decode replica never held more than its 150 usable blocks.
  for (const auto& k : r.decode[0].kv_series) EXPECT_LE(k.blocks_used, 150u);
}

// SGLang's order (sgl-project/sglang python/sglang/srt/disaggregation/decode.py@0035ca42c2d6,
// prefill.py@000c2b942308): the decode replica preallocates each prompt before its prefill may
// start, the first token comes with the KV, and nothing is recomputed. Both sides SGLang, page
// size 1, 100,000 tokens a pool (131,072 bytes a token), --disable-overlap-schedule, 1P1D on a
// 1 GB/s link with 1 ms latency. A (id 0) and B (id 1), 1,600-token prompts, 3 outputs, at 0:
//   t = 0      the decode replica takes both in and preallocates them: A with 100,000 tokens free
//              (1,600 + 512 fit), B with 98,400 − 512 · 1 held request = 97,888 (1,600 + 512
//              fit); only then does the prefill replica see them
//   t = 0      the prefill replica prefills A and B in one step (3,200 tokens within the 8,192
//              chunk): 0.010 + 3,200 · 1e-4 = 0.330 s; both first tokens sampled at 0.330
//   0.330      A on the link until 0.330 + 0.2097152 = 0.5397152, in place at 0.5407152;
//              B behind it on the link until 0.7494304, in place at 0.7504304
//   A          first token streamed at 0.5407152 (no recomputed prompt token), 2nd and 3rd
//              decoded at 0.5507152 and 0.5607152: done
//   B          first token 0.7504304, done 0.7704304
// vLLM's order on the same layout recomputes the last prompt token (0.0101 s) before the first
// token, and allocates only after the prefill.
TEST(Disagg, SglangPreallocatesBeforeThePrefillAndSendsTheFirstTokenWithTheKv) {
  DisaggConfig cfg = config(1, 1, 1.0);
  cfg.link.latency_s = 0.001;
  for (auto* c : {&cfg.prefill, &cfg.decode}) {
    c->plan.engine = Engine::sglang;
    c->plan.available_kv_bytes = std::uint64_t{100000} * 131072;
  }
  const auto r = run(cfg, {fixture::req(0, 0, 1600, 3), fixture::req(1, 0, 1600, 3)});
  ASSERT_EQ(r.run.requests.size(), 2u);
  const auto &A = r.run.requests[0], &B = r.run.requests[1];
  ASSERT_TRUE(A.finished && B.finished);
  EXPECT_NEAR(A.first_token_s, 0.5407152, 1e-9);
  EXPECT_NEAR(A.finish_s, 0.5607152, 1e-9);
  EXPECT_NEAR(B.first_token_s, 0.7504304, 1e-9);
  EXPECT_NEAR(B.finish_s, 0.7704304, 1e-9);
  EXPECT_NEAR(r.run.summary.tpot_ms.mean, 10.0, 1e-9);
  ASSERT_EQ(r.transfers.size(), 2u);
  for (const auto& t : r.transfers) {
    EXPECT_EQ(t.bytes, 209715200u);  // 1,600 tokens · 131,072 bytes
    EXPECT_NEAR(t.requested_s, 0, 1e-12);
    EXPECT_NEAR(t.allocated_s, 0, 1e-12);  // before the prefill
    EXPECT_NEAR(t.handoff_s, 0.330, 1e-12);
  }
  EXPECT_NEAR(r.transfers[1].start_s, 0.5397152, 1e-9);
  EXPECT_NEAR(r.admission_wait_ms.mean, 0, 1e-9);
  EXPECT_NEAR(r.link_wait_ms.mean, (0 + 209.7152) / 2, 1e-6);
  EXPECT_EQ(r.decode[0].num_gpu_blocks, 100000u);
  // vLLM's order on the same timer: allocated at the handoff, first token a step after the KV.
  const auto v = run(config(1, 1, 1.0), {fixture::req(0, 0, 1600, 3)});
  EXPECT_NEAR(v.transfers[0].allocated_s, 0.170, 1e-12);
  EXPECT_NEAR(v.run.requests[0].first_token_s, 0.170 + 0.2097152 + 0.0101, 1e-9);
}

// SGLang's decode loop polls finished transfers on every pass (process_decode_queue), whatever
// --scheduler-recv-interval holds back of new requests. The timeline of the test above with A
// decoding 30 tokens and a receive interval of 1,000 on the decode side: A's passes run at
// 0.5407152 + 0.010 · k; B's KV is in place at 0.7504304, so B joins at the pass of k = 21,
// 0.7507152, its first token then. (Were transfers held with new requests, B would wait for A's
// last token at 0.5407152 + 0.29 = 0.8307152, when the loop idles.)
TEST(Disagg, SglangTakesTransfersOnEveryPassOfItsLoop) {
  DisaggConfig cfg = config(1, 1, 1.0);
  cfg.link.latency_s = 0.001;
  for (auto* c : {&cfg.prefill, &cfg.decode}) {
    c->plan.engine = Engine::sglang;
    c->plan.available_kv_bytes = std::uint64_t{100000} * 131072;
  }
  cfg.decode.plan.edit_sglang().scheduler_recv_interval = 1000;
  const auto r = run(cfg, {fixture::req(0, 0, 1600, 30), fixture::req(1, 0, 1600, 3)});
  const auto &A = r.run.requests[0], &B = r.run.requests[1];
  ASSERT_TRUE(A.finished && B.finished);
  EXPECT_NEAR(A.first_token_s, 0.5407152, 1e-9);
  EXPECT_NEAR(A.finish_s, 0.8307152, 1e-9);
  EXPECT_NEAR(B.first_token_s, 0.7507152, 1e-9);
}

// A full SGLang decode pool holds the prefill back, not only the transfer. The decode pool holds
// 2,700 tokens; A and B (1,600-token prompts, 3 outputs) at 0:
//   t = 0      A preallocated (2,700 free: 1,600 + 512 fit); B not: 1,100 free − 512 · 1 held
//              request = 588 < 1,600 + 512. B's prefill does not start.
//   A          prefill 0 .. 0.170, link 0.170 .. 0.3797152, in place 0.3807152: first token
//              0.3807152, decodes 0.3907152 and 0.4007152: done, its 1,602 tokens freed
//   0.3807152 and 0.3907152: passes with A running: 1,100 (1,099) free − max(512, the largest
//              running need 1,600 + 3 − A's 1,601 (1,602) retractable tokens) = 588 (587): B waits
//   0.4007152  B preallocated (2,700 free); prefill 0.4007152 .. 0.5707152; link until
//              0.7804304, in place 0.7814304: first token 0.7814304, done 0.8014304
// B waited 400.7152 ms for the decode side's blocks (admission), before its prefill.
TEST(Disagg, SglangFullDecodePoolHoldsThePrefillBack) {
  DisaggConfig cfg = config(1, 1, 1.0);
  cfg.link.latency_s = 0.001;
  for (auto* c : {&cfg.prefill, &cfg.decode}) {
    c->plan.engine = Engine::sglang;
    c->plan.available_kv_bytes = std::uint64_t{100000} * 131072;
  }
  cfg.decode.plan.available_kv_bytes = std::uint64_t{2700} * 131072;
  const auto r = run(cfg, {fixture::req(0, 0, 1600, 3), fixture::req(1, 0, 1600, 3)});
  const auto &A = r.run.requests[0], &B = r.run.requests[1];
  ASSERT_TRUE(A.finished && B.finished);
  EXPECT_NEAR(A.first_token_s, 0.3807152, 1e-9);
  EXPECT_NEAR(A.finish_s, 0.4007152, 1e-9);
  EXPECT_NEAR(B.scheduled_s, 0.4007152, 1e-9);  // its prefill's first step
  EXPECT_NEAR(B.first_token_s, 0.7814304, 1e-9);
  EXPECT_NEAR(B.finish_s, 0.8014304, 1e-9);
  ASSERT_EQ(r.transfers.size(), 2u);
  EXPECT_NEAR(r.transfers[1].requested_s, 0, 1e-12);
  EXPECT_NEAR(r.transfers[1].allocated_s, 0.4007152, 1e-9);
  EXPECT_NEAR(r.transfers[1].handoff_s, 0.5707152, 1e-9);
  EXPECT_NEAR(r.admission_wait_ms.mean, (0 + 400.7152) / 2, 1e-6);
  EXPECT_NEAR(r.link_wait_ms.mean, 0, 1e-9);
  // Its latency counts from its arrival at the router, the wait for blocks included.
  EXPECT_NEAR(B.arrival_s, 0, 1e-12);
  EXPECT_NEAR(B.queued_s, 0, 1e-12);
  EXPECT_NEAR(r.run.summary.ttft_ms.mean, (380.7152 + 781.4304) / 2, 1e-6);
  // The transfer queue: B waits for blocks from 0 to 0.4007152 (samples at 0.1, 0.2, 0.3, 0.4).
  const auto series = transfer_series(r, 0.1);
  ASSERT_GE(series.size(), 5u);
  EXPECT_EQ(series[1].waiting_blocks, 1u);
  EXPECT_EQ(series[4].waiting_blocks, 1u);
  EXPECT_EQ(series[5].waiting_blocks, 0u);
  // A decode pool of 2,000 tokens (max_model_len 1,700 fits it) never holds a 1,600-token prompt
  // + 512: refused on arrival, not left at the head of the queue.
  cfg.decode.plan.available_kv_bytes = std::uint64_t{2000} * 131072;
  cfg.prefill.plan.context = cfg.decode.plan.context = 1700;
  const auto small = run(cfg, {fixture::req(0, 0, 1600, 3)});
  ASSERT_EQ(small.run.requests.size(), 1u);
  EXPECT_FALSE(small.run.requests[0].finished);
  EXPECT_TRUE(small.transfers.empty());
}

// TensorRT-LLM's order (context first): the generation request follows the context response,
// its capacity scheduler admits it (DISAGG_GENERATION_INIT) before any context, its prompt's
// blocks are allocated and the cache pulled; the first token comes with the KV and is streamed
// before the next step, which decodes the second (tensorrt_llm/serve/openai_disagg_service.py,
// _torch/pyexecutor/py_executor.py@00bb903d965ffe9710a457d5848065d7d1b8f60a). Both sides
// TensorRT-LLM at 16 tokens a block (2 MiB), GUARANTEED_NO_EVICT, 1P1D on a 1 GB/s link with 1 ms
// latency; A and B, 1,600-token prompts, 3 outputs, at 0:
//   0 .. 0.330  the context server runs both contexts in one step (3,200 tokens within the 8,192
//               of max_num_tokens): 0.010 + 3,200 · 1e-4
//   0.330       both reach the generation server; each needs its blocks to completion,
//               ceil(1,603 / 16) = 101 of the 1,000 free: both admitted, 100 blocks each
//               allocated; A on the link until 0.5397152, in place 0.5407152; B until 0.7494304,
//               in place 0.7504304
//   A           first token 0.5407152 (no recomputed prompt token), done 0.5607152
//   B           first token 0.7504304, done 0.7704304
// With 150 blocks on the generation side, B does not fit beside A (150 − 100 held − 1 more A
// needs to completion = 49 < 101) until A finishes at 0.5607152: B's blocks at 0.5607152, its KV
// in place at 0.5607152 + 0.2097152 + 0.001 = 0.7714304, its first token then, done 0.7914304.
// MAX_UTILIZATION asks only the prompt's blocks (100): with 201 blocks both are admitted at
// 0.330, where GUARANTEED_NO_EVICT (101 each to completion) admits B only when A is done.
TEST(Disagg, TensorRtLlmAdmitsTheGenerationRequestAfterTheContext) {
  const auto trtllm = [](std::uint64_t decode_blocks, CapacityPolicy policy) {
    DisaggConfig cfg = config(1, 1, 1.0);
    cfg.link.latency_s = 0.001;
    for (auto* c : {&cfg.prefill, &cfg.decode}) {
      c->plan.engine = Engine::trtllm;
      c->plan.block_size = 16;
      c->plan.available_kv_bytes = std::uint64_t{1000} * 2 * MiB;
      c->capacity_policy = policy;
    }
    cfg.decode.plan.available_kv_bytes = decode_blocks * 2 * MiB;
    return run(cfg, {fixture::req(0, 0, 1600, 3), fixture::req(1, 0, 1600, 3)});
  };
  auto r = trtllm(1000, CapacityPolicy::guaranteed_no_evict);
  EXPECT_EQ(r.decode[0].num_gpu_blocks, 1000u);
  ASSERT_EQ(r.transfers.size(), 2u);
  for (const auto& t : r.transfers) {
    EXPECT_NEAR(t.handoff_s, 0.330, 1e-12);
    EXPECT_NEAR(t.requested_s, 0.330, 1e-12);
    EXPECT_NEAR(t.allocated_s, 0.330, 1e-12);
  }
  EXPECT_NEAR(r.run.requests[0].first_token_s, 0.5407152, 1e-9);
  EXPECT_NEAR(r.run.requests[0].finish_s, 0.5607152, 1e-9);
  EXPECT_NEAR(r.run.requests[1].first_token_s, 0.7504304, 1e-9);
  EXPECT_NEAR(r.run.requests[1].finish_s, 0.7704304, 1e-9);
  r = trtllm(150, CapacityPolicy::guaranteed_no_evict);
  ASSERT_TRUE(r.run.requests[1].finished);
  EXPECT_NEAR(r.transfers[1].allocated_s, 0.5607152, 1e-9);
  EXPECT_NEAR(r.admission_wait_ms.mean, (0 + 230.7152) / 2, 1e-6);
  EXPECT_NEAR(r.run.requests[1].first_token_s, 0.7714304, 1e-9);
  EXPECT_NEAR(r.run.requests[1].finish_s, 0.7914304, 1e-9);
  r = trtllm(201, CapacityPolicy::max_utilization);
  ASSERT_EQ(r.transfers.size(), 2u);
  EXPECT_NEAR(r.transfers[1].allocated_s, 0.330, 1e-12);
  r = trtllm(201, CapacityPolicy::guaranteed_no_evict);
  EXPECT_NEAR(r.transfers[1].allocated_s, 0.5607152, 1e-9);
}

// A generation request whose cache is being pulled keeps its blocks to completion set aside
// (kvplan's choice, disagg.hpp): a later one is not admitted into them. 160-token prompts (10
// blocks) and 160 outputs (20 blocks to completion), a 45-block generation pool, a 0.1 GB/s
// link (10 · 2 MiB = 20,971,520 bytes: 0.2097152 s). A and B at 0: one context step of
// 0.010 + 320 · 1e-4 = 0.042 s, both admitted (45 − 20 − 20 = 5 left), A in place 0.2517152,
// B after it 0.4614304. C at 0.05: its context 0.05 .. 0.076; while A and B are alive the free
// blocks less their remaining needs are 45 − 20 − 20 = 5 < 20, so C waits until A's last token,
// 0.2517152 + 159 · 0.010 = 1.8417152, and is admitted then. Admitting C into the blocks A and B
// still need would run the pool dry once all three decode.
TEST(Disagg, TensorRtLlmSetsAsideTheBlocksOfAPull) {
  DisaggConfig cfg = config(1, 1, 0.1);
  for (auto* c : {&cfg.prefill, &cfg.decode}) {
    c->plan.engine = Engine::trtllm;
    c->plan.block_size = 16;
    c->plan.available_kv_bytes = std::uint64_t{1000} * 2 * MiB;
    c->plan.context = 320;  // 20 blocks: one request fits the 45
  }
  cfg.decode.plan.available_kv_bytes = std::uint64_t{45} * 2 * MiB;
  const auto r = run(cfg, {fixture::req(0, 0, 160, 160), fixture::req(1, 0, 160, 160),
                           fixture::req(2, 0.05, 160, 160)});
  ASSERT_EQ(r.transfers.size(), 3u);
  for (const auto& q : r.run.requests) EXPECT_TRUE(q.finished);
  EXPECT_NEAR(r.run.requests[0].finish_s, 1.8417152, 1e-9);
  EXPECT_NEAR(r.transfers[2].handoff_s, 0.076, 1e-12);
  EXPECT_NEAR(r.transfers[2].allocated_s, 1.8417152, 1e-9);
}

// Preemptions on the decode side are counted once: 1P1D, a decode pool of 5 blocks, two
// requests of 32-token prompts (2 blocks each) and 40 outputs (72 tokens, 5 blocks each at the
// end): both cannot grow to 5 blocks together, so the decode side preempts. The run's count is
// each side's engine count summed (as a colocated run reports its engine's), and every preemption
// here is of a finished request, so it is also the requests' sum and the one stage's count.
TEST(Disagg, PreemptionsAreCountedOnce) {
  DisaggConfig c = config(1, 1, 1000.0, 5);
  c.decode.plan.context = 80;
  const auto r = run(c, {fixture::req(0, 0, 32, 40), fixture::req(1, 0, 32, 40)});
  std::uint64_t by_request = 0, by_side = 0;
  for (const auto& q : r.run.requests) {
    EXPECT_TRUE(q.finished) << q.id;
    by_request += q.preemptions;
  }
  for (const auto& side : {r.prefill, r.decode})
    for (const auto& x : side) by_side += x.summary.preemptions;
  EXPECT_GT(by_side, 0u);
  EXPECT_EQ(r.run.summary.preemptions, by_side);
  EXPECT_EQ(r.run.summary.preemptions, by_request);
  ASSERT_EQ(r.run.stages.size(), 1u);
  EXPECT_EQ(r.run.stages[0].preemptions, by_request);
}

// Routing, one prefill and two decode replicas: A (200 outputs) and B (2) at t = 0, C (2) at
// t = 1. Prefill steps: A and B together (0.010 + 3200 · 1e-4 = 0.330 s), C alone (0.170 s,
// done at 1.170). Round robin sends A, B, C to decode replicas 0, 1, 0; least loaded sends C to
// replica 1, which finished B long before while A is still decoding on 0 (its 200 tokens take
// about 2 s).
TEST(Disagg, RoutingRoundRobinOrLeastLoaded) {
  const std::vector<SimRequest> rs = {fixture::req(0, 0, 1600, 200), fixture::req(1, 0, 1600, 2),
                                      fixture::req(2, 1.0, 1600, 2)};
  DisaggConfig cfg = config(1, 2, 1000.0);
  auto rr = run(cfg, rs);
  ASSERT_EQ(rr.transfers.size(), 3u);
  EXPECT_NEAR(rr.transfers[0].handoff_s, 0.330, 1e-12);
  EXPECT_NEAR(rr.transfers[2].handoff_s, 1.170, 1e-12);
  EXPECT_EQ(rr.transfers[0].decode, 0u);
  EXPECT_EQ(rr.transfers[1].decode, 1u);
  EXPECT_EQ(rr.transfers[2].decode, 0u);
  cfg.routing = Routing::least_loaded;
  auto ll = run(cfg, rs);
  EXPECT_EQ(ll.transfers[0].decode, 0u);
  EXPECT_EQ(ll.transfers[1].decode, 1u);
  EXPECT_EQ(ll.transfers[2].decode, 1u);
  EXPECT_TRUE(ll.run.requests[2].finished);
  EXPECT_EQ(ll.decode[1].requests.size(), 2u);
  EXPECT_EQ(rr.decode[1].requests.size(), 1u);
}

// Prefix-aware routing: A (id 0) at t = 0 and A' (id 1) at t = 1 share a 1,600-token prompt
// (one content), two prefill replicas with prefix caching. At 1 s A's prefill is done and its
// 100 blocks stay cached on replica 0. Round robin sends A' to replica 1 (nothing cached:
// 0 tokens hit); prefix aware sends it to replica 0, which holds the prompt's first 99 whole
// blocks within its 1,599 tokens a hit may cover: 99 · 16 = 1,584 tokens.
TEST(Disagg, PrefixAwareRoutingFollowsTheCache) {
  const std::vector<SimRequest> rs = {fixture::req(0, 0, 1600, 2, 7),
                                      fixture::req(1, 1.0, 1600, 2, 7)};
  DisaggConfig cfg = config(2, 1, 1000.0);
  cfg.prefill.enable_prefix_caching = true;
  const auto rr = run(cfg, rs);
  EXPECT_EQ(rr.transfers[1].prefill, 1u);
  EXPECT_EQ(rr.run.requests[1].cached_tokens, 0u);
  cfg.routing = Routing::prefix_aware;
  const auto pa = run(cfg, rs);
  EXPECT_EQ(pa.transfers[1].prefill, 0u);
  EXPECT_EQ(pa.run.requests[1].cached_tokens, 1584u);
  // Only 16 tokens left to prefill: 0.010 + 16 · 1e-4 = 0.0116 s instead of 0.170.
  EXPECT_NEAR(pa.transfers[1].handoff_s - 1.0, 0.0116, 1e-9);
  EXPECT_NEAR(rr.transfers[1].handoff_s - 1.0, 0.170, 1e-9);
}

TEST(Disagg, LinksByPresetOrBandwidth) {
  const GpuSpec h100 = load_gpu("h100-sxm-80gb");
  // H100 SXM: NVLink 900 GB/s both directions together (its preset's datasheet figure).
  EXPECT_DOUBLE_EQ(kv_link("nvlink", h100, "t").gbps, 450);
  EXPECT_DOUBLE_EQ(kv_link("ndr400", h100, "t").gbps, 50);  // 400 Gb/s / 8
  EXPECT_DOUBLE_EQ(kv_link("xdr800", h100, "t").gbps, 100);
  EXPECT_DOUBLE_EQ(kv_link("12.5", h100, "t").gbps, 12.5);
  expect_error([&] { kv_link("infiniband", h100, "flags", "--kv-link"); }, "--kv-link",
               "neither a link (nvlink, ndr400, xdr800)");
  expect_error([&] { kv_link("0", h100, "flags", "--kv-link"); }, "--kv-link", "(0, 1e6]");
  expect_error([&] { parse_routing("random", "flags", "--routing"); }, "--routing",
               "round_robin, least_loaded or prefix_aware");
}

TEST(Disagg, RefusesWhatItDoesNotModel) {
  DisaggConfig cfg = config(4, 4, 1.0);
  cfg.link = kv_link("nvlink", load_gpu("h100-sxm-80gb"), "t");
  cfg.prefill.plan.tp = 2;
  cfg.nvlink_domain_gpus = 8;
  // 4 · 2 + 4 · 1 = 12 GPUs do not fit one 8-GPU NVLink domain.
  expect_error([&] { check_disagg(cfg, "flags"); }, "kv_link", "12 GPUs, the domain joins 8");
  cfg = config(1, 1, 1.0);
  cfg.decode.plan.engine = Engine::sglang;
  expect_error([&] { check_disagg(cfg, "flags"); }, "decode.engine",
               "the prefill side runs vllm, the decode side sglang");
  cfg = config(1, 1, 1.0);
  cfg.decode.enable_prefix_caching = true;
  expect_error([&] { check_disagg(cfg, "flags"); }, "decode.enable_prefix_caching", "not modelled");
  cfg = config(1, 1, 1.0);
  cfg.decode.plan.format = parse_kv_format("fp8");
  expect_error([&] { check_disagg(cfg, "flags"); }, "decode.kv_dtype", "KV format");
  // Latency past 10 s, and NaN, are refused by name.
  cfg = config(1, 1, 1.0);
  cfg.link.latency_s = 11;
  expect_error([&] { check_disagg(cfg, "flags"); }, "kv_link_latency_ms", "0 to 10,000 ms");
  cfg.link.latency_s = 0;
  cfg.link.per_request_s = std::nan("");
  expect_error([&] { check_disagg(cfg, "flags"); }, "kv_transfer_overhead_ms", "0 to 10,000 ms");
  // 2,048 replicas × 4,097 requests = 8,390,656 slots > 2^23 = 8,388,608.
  cfg = config(1024, 1024, 1.0);
  std::vector<SimRequest> many;
  for (std::uint64_t i = 0; i < 4097; ++i) many.push_back(fixture::req(i, 0, 16, 1));
  expect_error([&] { run(cfg, many); }, "requests", "at most 8,388,608 requests × replicas");
  cfg = config(0, 1, 1.0);
  expect_error([&] { check_disagg(cfg, "flags"); }, "prefill_replicas", "got 0");
}

// plan --slo --disaggregated: the xPyD row is the fewest replicas meeting the SLO. Checked by
// brute force: every split of fewer replicas, simulated on its own with simulate_disagg, fails,
// and the row's split meets it with the p99s the row reports. 40 requests 50 ms apart, 1,000-
// token prompts (0.110 s of prefill alone), 30 outputs; SLO TTFT p99 ≤ 400 ms, TPOT p99 ≤ 14 ms.
TEST(DisaggSloSearch, TheFewestReplicasThatMeetTheSlo) {
  std::vector<SimRequest> rs;
  for (std::uint64_t i = 0; i < 40; ++i) rs.push_back(fixture::req(i, 0.05 * i, 1000, 30));
  const Workload w = fixture::workload(rs);
  GpuSpec g;
  g.id = "a";
  g.memory_bytes = std::uint64_t{80} << 30;
  SloSearchInput in;
  in.base.plan.context = 2048;
  in.slo = {.ttft_p99_ms = 400, .tpot_p99_ms = 14};
  in.lines = slo_lines(llama(), {g}, {1}, {parse_kv_format("bf16")}, {{}});
  in.timer = [](const ModelSpec&, const GpuSpec&, std::uint32_t, Engine) {
    return std::make_unique<LinearTimer>();
  };
  in.max_gpus = 8;
  in.disaggregated = true;
  in.layout.kv_link = "10";  // GB/s: 1,000 tokens · 131,072 B = 131 MB take 13.1 ms
  const auto rows = slo_search(llama(), w, in);
  ASSERT_EQ(rows.size(), 2u);
  const SloRow* d = rows[0].disaggregated() ? &rows[0] : &rows[1];
  ASSERT_TRUE(d->meets) << d->reason;
  EXPECT_EQ(d->gpus, d->prefill_replicas + d->decode_replicas);
  ASSERT_TRUE(d->prefill_command && d->decode_command);
  EXPECT_NE(d->prefill_command->find("\"kv_role\":\"kv_producer\""), std::string::npos);
  EXPECT_NE(d->decode_command->find("\"kv_role\":\"kv_consumer\""), std::string::npos);
  EXPECT_NE(d->decode_command->find("--no-enable-prefix-caching"), std::string::npos);

  DisaggConfig c;
  c.prefill = in.base;
  c.prefill.plan.gpu_memory_bytes = g.memory_bytes;
  c.prefill.plan.gpu_id = "a";
  c.prefill.plan.format = parse_kv_format("bf16");
  c.decode = c.prefill;
  c.link.name = "custom";
  c.link.gbps = 10;
  const auto meets = [&](std::uint32_t x, std::uint32_t y, DisaggResult* out = nullptr) {
    c.prefill_replicas = x, c.decode_replicas = y;
    const DisaggResult r = simulate_disagg(llama(), c, LinearTimer{}, LinearTimer{}, w);
    if (out) *out = r;
    const auto& s = r.run.summary;
    return s.requests == 40 && s.ttft_ms.p99 <= 400 && s.tpot_ms.p99 <= 14;
  };
  DisaggResult found;
  EXPECT_TRUE(meets(d->prefill_replicas, d->decode_replicas, &found));
  EXPECT_DOUBLE_EQ(found.run.summary.ttft_ms.p99, d->ttft_p99_ms);
  EXPECT_DOUBLE_EQ(found.run.summary.tpot_ms.p99, d->tpot_p99_ms);
  for (std::uint32_t n = 2; n < d->replicas; ++n)
    for (std::uint32_t x = 1; x < n; ++x) EXPECT_FALSE(meets(x, n - x)) << x << "P" << n - x << "D";
  // The aggregated row needs more GPUs here (its decodes share steps with 110 ms prefills), so
  // the xPyD row ranks first; aggregated replicas as many as the xPyD row's fail the TPOT limit.
  EXPECT_TRUE(rows[0].disaggregated());
  EXPECT_GT(rows[1].gpus, rows[0].gpus);
  const SimResult agg = simulate_replicas(llama(), c.prefill, LinearTimer{}, w, d->replicas);
  EXPECT_GT(agg.summary.tpot_ms.p99, 14);
}

TEST(DisaggSloSearch, TensorRtLlmIsNotSearchedDisaggregated) {
  SloSearchInput in;
  in.base.plan.engine = Engine::trtllm;
  in.base.plan.context = 2048;
  in.slo.ttft_p99_ms = 100;
  GpuSpec g;
  g.id = "a";
  g.memory_bytes = std::uint64_t{80} << 30;
  in.lines = slo_lines(llama(), {g}, {1}, {parse_kv_format("bf16")}, {{}});
  in.disaggregated = true;
  expect_error([&] { slo_search(llama(), fixture::workload({fixture::req(0, 0, 10, 2)}), in); },
               "engine", "are not written");
}

}  // namespace
}  // namespace kvplan::sim
