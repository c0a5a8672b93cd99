// The memory an engine keeps on a GPU outside the weights and the KV cache, term by term, each
// with where its figure comes from. The engine rules fill it (EngineRules::memory_terms); the
// planner subtracts reserve_bytes() from the budget and checks outside_bytes() against what the
// memory fraction leaves out; reports print each term with its basis and source.
//
//   MemoryTerms t = engine_rules(Engine::vllm).memory_terms({model, in});
//   t.activation.how     // "hidden 8192 x 4096 x 2 B + sampler 1024 x 128256 x 4 B x 9.7"
//   t.reserve_bytes()    // activation + non-torch (+ graphs where the engine counts them)
#pragma once

#include <cstdint>
#include <string>

namespace kvplan {

// One term of the memory an engine keeps outside the KV cache, with where its figure comes from:
// derived from the engine's code (the source names file@commit), fitted to logs (the source
// names the fit table in docs/engine-memory.md and its logs), given by the user, or measured: the
// engine's own log, through a calibration (kvplan explain --calibrate).
struct MemoryTerm {
  enum class Basis { derived, fitted, given, measured };
  std::uint64_t bytes = 0;
  Basis basis = Basis::derived;
  std::string how;     // the arithmetic with its numbers, for reports
  std::string source;  // file@commit, or the fit and its logs
};
const char* to_string(MemoryTerm::Basis b);

// The memory of one rank outside its weights and KV cache, term by term (docs/engine-memory.md):
//   activation  the peak of the engine's profile run (vLLM), inside the budget
//   non_torch   CUDA/cuBLAS workspaces and buffers the profile sees grow, inside the budget
//   graphs      CUDA-graph pools; inside the budget only where `graphs_in_budget`
//   context     CUDA context, NCCL and all-reduce buffers taken before the engine's baseline:
//               outside the budget, they must fit in total − budget with the graphs left out
//   sampler_state  buffers the engine allocates after measuring the weights and before the
//               profile (vLLM Model Runner V2's penalty state): in no term of the budget, held
//               for good, so outside it
//   warmup      the peak of what the engine allocates after the KV cache to warm its kernels up
//               (vLLM Model Runner V2's sampler warm-up), reusing the activation peak's memory:
//               what exceeds the activation must fit outside the budget
struct MemoryTerms {
  MemoryTerm activation, non_torch, graphs, context, sampler_state, warmup;
  bool graphs_in_budget = false;
  // SGLang: the fraction applies to the device less the context, so the context is taken before
  // the fraction rather than checked against what the fraction leaves out.
  bool context_before_fraction = false;
  // What the budget subtracts besides the weights.
  std::uint64_t reserve_bytes() const;
  // What must fit in the memory the fraction leaves out (total − total · fraction): the context,
  // graphs outside the budget, the sampler state and the warm-up beyond the activation peak.
  std::uint64_t outside_bytes() const;
  // The warm-up's need beyond the activation peak it reuses (0 when within it).
  std::uint64_t warmup_beyond_activation_bytes() const;
};

// Per-term corrections a calibration carries (kvplan explain --calibrate on a log that prints the
// memory profile): what the log measured less what kvplan's terms gave for the log's own
// settings, added to kvplan's terms for the deployment — so a changed max_num_seqs or
// max_num_batched_tokens still moves the activation — and the CUDA-graph memory the log measured.
struct MemoryCorrections {
  std::int64_t activation_delta_bytes = 0, non_torch_delta_bytes = 0;
  std::int64_t graphs_bytes = -1;  // -1: not measured
  std::string source;              // the calibration file
  bool empty() const {
    return activation_delta_bytes == 0 && non_torch_delta_bytes == 0 && graphs_bytes < 0;
  }
};
// Applies c to t (a term never goes below 0); each corrected term's basis becomes `measured`.
void apply_corrections(MemoryTerms& t, const MemoryCorrections& c);
}  // namespace kvplan
