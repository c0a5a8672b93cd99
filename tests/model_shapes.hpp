// Hand-built model shapes for the tests that work the KV arithmetic by hand: `layers`
// full-attention layers of `q_heads` query and `kv_heads` KV heads of `head_dim` (K = V).
#pragma once

#include <cstdint>
#include <string>

#include "kvplan/model.hpp"

namespace kvplan::test {

inline ModelSpec full_attention_model(const std::string& id, std::uint32_t layers,
                                      std::uint32_t q_heads, std::uint32_t kv_heads,
                                      std::uint32_t head_dim, std::uint64_t num_params = 0) {
  ModelSpec m;
  m.id = id;
  m.layers.assign(layers, LayerSpec{});
  m.num_q_heads = q_heads;
  m.num_kv_heads = kv_heads;
  m.head_dim_k = m.head_dim_v = head_dim;
  m.num_params = num_params;
  return m;
}

}  // namespace kvplan::test
