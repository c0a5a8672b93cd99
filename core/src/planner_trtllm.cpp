// TensorRT-LLM's per-window KV pools. Sources:
//   cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp @ NVIDIA/TensorRT-LLM
//     b35ac1b64368513d215c57d2ed01d62d910df8da: BaseKVCacheManager::calculateMaxNumBlocks
//     (maxTokens = uint64(memory · share / bytesPerToken), blocks = ceilDiv(maxTokens,
//     tokensPerBlock), max_tokens only with one window, equal shares unless
//     TRTLLM_WINDOW_SIZE_SHARES), BlockManager::calculateWindowSizeToShare (the proportional
//     rule, kept but "not used for calculateMaxNumBlocks"), groupLayersByWindowSize (the window
//     vector repeats over the layers), KVCacheManager::calculateMaxBlockRequirementsPerBeam.
//   cpp/include/tensorrt_llm/batch_manager/kvCacheManager.h: kSWAExtraBlock = 1.
//   tensorrt_llm/_torch/pyexecutor/resource_manager.py @ d2a5560abdadfbdf496ce057696103e0509a71ed:
//     adjust_window_sizes_for_vswa (tested by tests/unittest/_torch/executor/
//     test_resource_manager.py @ c20322ffd3dc0740ca530c9fad989b22e64f6e06).
#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "kvplan/checked.hpp"
#include "kvplan/planner.hpp"
#include "planner_eval.hpp"

namespace kvplan {

std::vector<double> trtllm_window_shares(const std::vector<TrtllmWindow>& windows,
                                         TrtllmOptions::WindowShares rule) {
  std::vector<double> shares(windows.size(), 0.0);
  if (windows.empty()) return shares;
  if (windows.size() == 1 || rule == TrtllmOptions::WindowShares::equal) {
    std::fill(shares.begin(), shares.end(), 1.0 / static_cast<double>(windows.size()));
    return shares;
  }
  // calculateWindowSizeToShare: weight = bytes_w / Σ bytes, times the window, normalised.
  double bytes = 0, sum = 0;
  for (const auto& w : windows) bytes += static_cast<double>(w.bytes_per_token);
  for (std::size_t i = 0; i < windows.size(); ++i) {
    shares[i] = static_cast<double>(windows[i].bytes_per_token) / bytes *
                static_cast<double>(windows[i].window);
    sum += shares[i];
  }
  for (auto& s : shares) s /= sum;
  return shares;
}

void trtllm_window_blocks(std::vector<TrtllmWindow>& windows, std::uint64_t memory,
                          std::uint32_t tokens_per_block, TrtllmOptions::WindowShares rule,
                          std::optional<std::uint64_t> max_tokens) {
  const auto shares = trtllm_window_shares(windows, rule);
  const bool vswa = windows.size() > 1;
  for (std::size_t i = 0; i < windows.size(); ++i) {
    auto& w = windows[i];
    if (w.bytes_per_token == 0) continue;
    std::uint64_t tokens =
        vswa ? static_cast<std::uint64_t>(static_cast<double>(memory) * shares[i] /
                                          static_cast<double>(w.bytes_per_token))
             : memory / w.bytes_per_token;  // share 1: exact
    if (max_tokens && !vswa) tokens = std::min(tokens, *max_tokens);
    w.primary_blocks = ceil_div(tokens, tokens_per_block);
  }
}

std::vector<std::uint64_t> trtllm_adjust_windows(const std::vector<TrtllmWindow>& windows,
                                                 std::uint64_t memory,
                                                 std::optional<std::uint64_t> max_tokens) {
  std::vector<std::uint64_t> out;
  std::uint64_t required = 0;
  for (const auto& w : windows)
    required = add(required, mul(w.window, w.bytes_per_token, "bytes per sequence"), "bytes");
  if (required < memory) {
    for (const auto& w : windows) out.push_back(w.window);
    return out;
  }
  // Ascending windows: each takes what the layers of it and all larger windows can still hold,
  // at most the step to its own window; once the tokens fall short of a window, the larger ones
  // get the same count.
  std::uint64_t remaining = memory, accum = 0, prev = 0, remaining_bytes = 0;
  for (const auto& w : windows) remaining_bytes += w.bytes_per_token;
  for (const auto& w : windows) {
    if (remaining > 0 && remaining_bytes > 0) {
      const std::uint64_t take = std::min(remaining / remaining_bytes, w.window - prev);
      remaining -= take * remaining_bytes;
      accum += take;
      if (accum < w.window) remaining = 0;
      if (max_tokens) {
        accum = std::min(accum, *max_tokens);
        if (accum == *max_tokens) remaining = 0;
      }
    }
    out.push_back(accum);
    remaining_bytes -= w.bytes_per_token;
    prev = w.window;
  }
  return out;
}

std::uint64_t trtllm_blocks_per_sequence(std::uint64_t n, std::uint64_t window,
                                         std::uint32_t tokens_per_block) {
  const std::uint64_t b = ceil_div(std::min(n, window), tokens_per_block);
  return n > window ? b + 1 : b;
}

namespace detail {

void trtllm_stage_pools(const PlanEval& ev, PlanEval::Stage& st) {
  const std::uint64_t cell = ev.page / ev.bs;  // one layer's K + V bytes per token on this rank
  if (cell == 0) return;
  const auto& vec = ev.in.trtllm().max_attention_window;
  const std::uint64_t n = ev.in.context;  // max_seq_len
  // groupLayersByWindowSize: layer i of the rank gets vec[i % |vec|], capped at max_seq_len.
  std::map<std::uint64_t, std::uint32_t> layers;
  std::uint32_t i = 0;
  const std::uint32_t attention = st.cached;  // drafts included
  for (; i < attention; ++i) {
    const std::uint64_t w = vec.empty() ? n : std::min<std::uint64_t>(n, vec[i % vec.size()]);
    ++layers[std::max<std::uint64_t>(w, 1)];
  }
  // Each pool with the windows asked for that settled on it (the report's): each its own,
  // unless the adjustment below moves them.
  std::vector<TrtllmWindow> windows;
  std::vector<std::vector<std::uint64_t>> requested;
  for (const auto& [w, count] : layers) {
    windows.push_back({w, count, mul(cell, count, "bytes per token"), 0});
    requested.push_back({w});
  }
  const std::uint64_t memory = ev.mem.available_bytes;
  if (windows.size() > 1 && ev.in.trtllm().backend == TrtllmOptions::Backend::pytorch) {
    // PyTorch: windows shrink until one sequence fits; equal windows merge.
    const auto adjusted = trtllm_adjust_windows(windows, memory, ev.in.max_total_tokens);
    std::map<std::uint64_t, std::pair<std::uint32_t, std::vector<std::uint64_t>>> merged;
    for (std::size_t k = 0; k < windows.size(); ++k) {
      auto& [count, asked] = merged[adjusted[k]];
      count += windows[k].layers;
      asked.push_back(windows[k].window);
    }
    windows.clear();
    requested.clear();
    for (const auto& [w, pool] : merged) {
      windows.push_back({w, pool.first, mul(cell, pool.first, "bytes per token"), 0});
      requested.push_back(pool.second);
    }
  }
  trtllm_window_blocks(windows, memory, ev.bs, ev.in.trtllm().window_shares,
                       ev.in.max_total_tokens);
  st.trtllm = windows;
  st.trtllm_requested = std::move(requested);
}

}  // namespace detail

}  // namespace kvplan
