// Faster CPU quantize / dequantize, by format family (quantize_cpu_float.cpp, _fp8, _int8, _kivi):
// the same arithmetic as the _ref spec, restructured for SIMD (branch-free selects instead of
// branches, bit tricks instead of frexp/rint, chunks through small local buffers, int8 and KIVI in
// 8- or 16-lane vector code with KIVI words packed in registers). Every division of the spec stays
// a division: x/s and x·(1/s) can differ by an ulp, which moves a code at a .5 tie. Bit-identical
// to the reference — tests/kernels compare the two byte for byte, and each CPU build
// (KVPLAN_CPU_ISA baseline, avx2, v4) passes the same tests.
#include "kvplan/kernels/quantize.hpp"
#include "quantize_fast.hpp"

namespace kvplan::kernels {

Status quantize_cpu(const QuantizeParams& p) {
  if (Status s = validate(p, false); !s.ok()) return s;
  switch (p.format.dtype) {
    case KvDtype::fp32:
    case KvDtype::fp16:
    case KvDtype::bf16:
      return quantize_fast::quantize_float(p);
    case KvDtype::fp8_e4m3:
    case KvDtype::fp8_e5m2:
      return quantize_fast::quantize_fp8(p);
    case KvDtype::int8:
      return quantize_fast::quantize_int8(p);
    case KvDtype::kivi:
      return quantize_fast::quantize_kivi(p);
  }
  return Status::Invalid("quantize_cpu: unknown KV dtype");
}

Status dequantize_cpu(const QuantizeParams& p) {
  if (Status s = validate(p, true); !s.ok()) return s;
  switch (p.format.dtype) {
    case KvDtype::fp32:
    case KvDtype::fp16:
    case KvDtype::bf16:
      return quantize_fast::dequantize_float(p);
    case KvDtype::fp8_e4m3:
    case KvDtype::fp8_e5m2:
      return quantize_fast::dequantize_fp8(p);
    case KvDtype::int8:
      return quantize_fast::dequantize_int8(p);
    case KvDtype::kivi:
      return quantize_fast::dequantize_kivi(p);
  }
  return Status::Invalid("dequantize_cpu: unknown KV dtype");
}

}  // namespace kvplan::kernels
