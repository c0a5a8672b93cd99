// TensorRT-LLM in the serving simulator: its in-flight batching loop (serving.cpp
// schedule_trtllm, with the sources it follows), what that loop models, and the settings only
// TensorRT-LLM has (capacity_scheduler_policy, chunked context).
#include <nlohmann/json.hpp>

#include "../engine_scheduling.hpp"
#include "kvplan/report.hpp"

namespace kvplan::sim::detail {
namespace {

class TrtllmScheduling final : public EngineScheduling {
 public:
  SchedulerLoop loop() const override { return SchedulerLoop::trtllm_inflight; }
  // scheduler_config.capacity_scheduler_policy and enable_chunked_prefill (the LLM API names,
  // tensorrt_llm/llmapi/llm_args.py).
  bool has(SchedulerSetting s) const override {
    return s == SchedulerSetting::capacity_policy || s == SchedulerSetting::chunked_context;
  }

  // What the loop models: one pool of full-attention blocks (one window of max_seq_len), the
  // full policy, no block reuse.
  void check(const ServingConfig& cfg, const KvPool& pool,
             std::vector<Problem>& pr) const override {
    if (cfg.enable_prefix_caching)
      pr.push_back({"enable_prefix_caching",
                    "TensorRT-LLM's KV cache reuse (kv_cache_config.enable_block_reuse) is not "
                    "modelled; simulate without prefix caching"});
    if (!pool.full_attention_only())
      pr.push_back({"model",
                    "the TensorRT-LLM scheduler is modelled for one full-attention KV pool; this "
                    "model has sliding, chunked or recurrent layers"});
    for (auto w : cfg.plan.trtllm().max_attention_window)
      if (w < cfg.plan.context) {
        pr.push_back({"max_attention_window",
                      "an attention window below max_seq_len (" + std::to_string(w) +
                          " tokens) makes window pools, which the TensorRT-LLM scheduler model "
                          "does not have"});
        break;
      }
    if (!is_full(cfg.plan.policy))
      pr.push_back({"policy", "TensorRT-LLM has no evicting retention policy; simulate full"});
    // A cut chunk is a multiple of tokens_per_block (MicroBatchScheduler), so a smaller
    // max_num_tokens could never cut one.
    if (cfg.enable_chunked_context && cfg.max_num_batched_tokens < pool.block_size)
      pr.push_back({"max_num_batched_tokens",
                    "max_num_tokens " + std::to_string(cfg.max_num_batched_tokens) +
                        " is below tokens_per_block " + std::to_string(pool.block_size) +
                        ": chunked context cuts whole blocks"});
  }

  // Without chunked context a prompt over max_num_tokens is refused
  // (tensorrt_llm/llmapi/llm.py@4c05a74891e4df8066f08ed4ce14b0972abe4e25 _check_arguments: "The
  // sum of prompt length ..., query length ... should not exceed max_num_tokens").
  bool refuses_on_arrival(const ServingConfig& cfg, const SimRequest& r) const override {
    return !cfg.enable_chunked_context && r.prompt_tokens > cfg.max_num_batched_tokens;
  }
  // Disaggregated serving, context first (the default schedule style): the disagg server sends
  // the generation request when the context server has answered
  // (tensorrt_llm/serve/openai_disagg_service.py@00bb903d965ffe9710a457d5848065d7d1b8f60a
  // _send_disagg_request_ctx_first); the generation server's capacity scheduler admits it
  // (DISAGG_GENERATION_INIT), its prompt's blocks are allocated and the cache pulled; with the
  // transfer complete, the request joins the generation batch with the context server's first
  // token (first_gen_tokens), which is streamed before that step's forward pass
  // (_torch/pyexecutor/py_executor.py@00bb903d _prepare_disagg_gen_transmission_complete,
  // _handle_first_token_response).
  RemoteKv remote_kv() const override { return RemoteKv::after_prefill_token_sent; }
  std::string arrival_refusal(const ServingConfig& cfg) const override {
    return cfg.enable_chunked_context ? "" : "a prompt > max_num_tokens without chunked context";
  }

  // A paused request recomputes its prompt and outputs in one context; without chunked context
  // that context can outgrow max_num_tokens, and nothing is ever scheduled again.
  void refuse_empty_step(const ServingConfig& cfg, const std::string& source) const override {
    if (cfg.enable_chunked_context) return;
    throw Error(source, "max_num_batched_tokens",
                "TensorRT-LLM without chunked context cannot schedule the context at the head "
                "of its list (a paused request recomputes its prompt and outputs in one "
                "context): max_num_tokens " +
                    std::to_string(cfg.max_num_batched_tokens) +
                    " is too small; enable chunked context or raise max_num_tokens");
  }

  std::string settings_line(const ServingConfig& c) const override {
    return "TensorRT-LLM: capacity_scheduler_policy " + to_string(c.capacity_policy) +
           ", max_batch_size " + grouped(c.max_num_seqs) + ", max_num_tokens " +
           grouped(c.max_num_batched_tokens) + ", chunked context " +
           (c.enable_chunked_context ? "on" : "off");
  }
  // max_batch_size and max_num_tokens are the config's max_num_seqs and max_num_batched_tokens.
  void settings_json(const ServingConfig& c, nlohmann::json& config) const override {
    config["capacity_scheduler_policy"] = to_string(c.capacity_policy);
    config["enable_chunked_context"] = c.enable_chunked_context;
  }
};

}  // namespace

const EngineScheduling& trtllm_scheduling() {
  static const TrtllmScheduling s;
  return s;
}

}  // namespace kvplan::sim::detail
