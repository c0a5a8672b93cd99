// The weights vLLM holds beyond the checkpoint's bytes after loading: gpt-oss's MXFP4 experts, as
// each MoE backend lays them out in process_weights_after_loading. "Model loading took W GiB" is
// the torch memory still allocated after that step
// (vllm/utils/mem_utils.py@a6d5c39009eb73797b276cc557ca9659c396ca14 DeviceMemoryProfiler;
// vllm/platforms/cuda.py@1c0d9ecf5bad600df3e001bf642dd48c5ed25cc6 get_current_memory_usage), so
// padding and copies kept count, temporaries do not.
//
// Checkpoint, per expert and layer (hidden H, expert width I): gate/up and down as fp4 pairs,
// one uint8 scale per 32 values, bf16 biases:
//   2I·H/2 + H·I/2 + (2I·H + H·I)/32 + (2I + H)·2
// Marlin (GPUs below SM 9.0; fused_moe/oracle/mxfp4.py@045335ce635d2cb8968d4a8362b0473f49b36dd3
// mxfp4_round_up_hidden_size_and_intermediate_size: I to a multiple of 128, H of 256; repacked
// in place, scales to one e8m0 byte per 32 on the padded shape, biases bf16 —
// utils/marlin_utils_fp4.py@de5f26d5923e2b31dbb3d80efc45d5fd41f09946):
//   1.5·Ip·Hp + 3·Ip·Hp/32 + (2Ip + Hp)·2
// Triton matmul_ogs (SM 9.0 and up but SM 10.x; I to a multiple of 64, H as is): values as
// stored, scales swizzled with rows padded to 256 (triton_kernels
// hopper_scale.py@57af0d623c97ff02fc0c8642f8b070e7a62b9cc7 SWIZZLE_ALIGN_M = 256 at 8 warps) while
// the original uint8 scales stay referenced by the layer
// (quantization/mxfp4.py@afdb4a4ff429377d0fcfac3752e814ffc36ea41d: only the weights and biases
// are replaced; the swizzled scales live in the PrecisionConfig), biases widened to fp32:
//   2I·H/2 + H·I/2 + round_up(2I, 256)·H/32 + round_up(H, 256)·I/32 + 3·I·H/32 + (2I + H)·4
// FlashInfer TRT-LLM (SM 10.x): I and H to multiples of 256, scales reshuffled (same count),
// biases fp32: 1.5·Ip·Hp + 3·Ip·Hp/32 + (2Ip + Hp)·4 — from the same padding rule; no log of it
// was available to check.
// Against logs at TP 1 (GiB): gpt-oss-20b Triton 13.44 vs 13.47 (H100, llm-d-benchmark), Marlin
// 13.70 vs 13.72 (A100, vLLM 0.19.0); gpt-oss-120b Triton 64.33 vs 64.38, Marlin 65.93 vs 65.97
// (docs/engine-memory.md). Under TP the expert width splits in blocks of 32
// (gpt_oss.py: per_rank_intermediate_size_block = cdiv(intermediate_size_block, tp_size)).
#include <algorithm>
#include <string>

#include "kvplan/checked.hpp"
#include "vllm.hpp"

namespace kvplan::engines {
namespace {

enum class Mxfp4Backend { marlin, triton, trtllm, none };

// The backend vLLM's oracle picks on the GPU: by preset id (the presets carry no compute
// capability). AMD takes its own path (not modelled: the checkpoint's bytes); an unknown GPU the
// larger of the two logged layouts, Marlin's.
Mxfp4Backend backend_for(const std::string& gpu) {
  for (const char* sm100 : {"b200", "b300", "gb200", "gb300"})
    if (gpu.rfind(sm100, 0) == 0) return Mxfp4Backend::trtllm;
  for (const char* sm90 : {"h100", "h200", "h20", "rtx-pro-6000"})
    if (gpu.rfind(sm90, 0) == 0) return Mxfp4Backend::triton;
  if (gpu.rfind("mi", 0) == 0) return Mxfp4Backend::none;
  return Mxfp4Backend::marlin;
}

std::uint64_t round_up(std::uint64_t x, std::uint64_t m) { return (x + m - 1) / m * m; }

// One expert of one layer on one rank, bytes.
std::uint64_t checkpoint_expert(std::uint64_t h, std::uint64_t i) {
  return 2 * i * h / 2 + h * i / 2 + (2 * i * h + h * i) / 32 + (2 * i + h) * 2;
}

std::uint64_t held_expert(Mxfp4Backend b, std::uint64_t h, std::uint64_t i) {
  switch (b) {
    case Mxfp4Backend::marlin: {
      const std::uint64_t ip = round_up(i, 128), hp = round_up(h, 256);
      return 3 * ip * hp / 2 + 3 * ip * hp / 32 + (2 * ip + hp) * 2;
    }
    case Mxfp4Backend::triton: {
      const std::uint64_t ip = round_up(i, 64);
      return 2 * ip * h / 2 + h * ip / 2 + round_up(2 * ip, 256) * (h / 32) +
             round_up(h, 256) * (ip / 32) + 3 * ip * h / 32 + (2 * ip + h) * 4;
    }
    case Mxfp4Backend::trtllm: {
      const std::uint64_t ip = round_up(i, 256), hp = round_up(h, 256);
      return 3 * ip * hp / 2 + 3 * ip * hp / 32 + (2 * ip + hp) * 4;
    }
    case Mxfp4Backend::none:
      break;
  }
  return checkpoint_expert(h, i);
}

}  // namespace

std::uint64_t Vllm::held_weight_extra_bytes(const ModelSpec& model, const PlanInput& in,
                                            std::uint32_t layers) const {
  if (model.weights.quantization != "mxfp4" || model.routed_experts == 0 ||
      model.hidden_size == 0 || model.intermediate_size == 0 || layers == 0)
    return 0;
  const Mxfp4Backend b = backend_for(in.gpu_id);
  const std::uint64_t tp = std::max<std::uint32_t>(in.tp, 1);
  const std::uint64_t h = model.hidden_size;
  // The expert width a rank holds: blocks of 32 split over TP.
  const std::uint64_t i_rank = (model.intermediate_size / 32 + tp - 1) / tp * 32;
  const std::uint64_t held = held_expert(b, h, i_rank);
  // kvplan's stage weights hold the checkpoint's experts split evenly over TP.
  const std::uint64_t ckpt = checkpoint_expert(h, model.intermediate_size) / tp;
  if (held <= ckpt) return 0;
  const std::uint64_t experts = model.routed_experts;
  return mul(mul(held - ckpt, experts, "weight bytes"), layers, "weight bytes");
}

}  // namespace kvplan::engines
