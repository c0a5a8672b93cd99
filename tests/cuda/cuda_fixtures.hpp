// Shared fixtures of the CUDA parity tests: deterministic data, the skip-without-GPU fixture,
// device buffers, and the comparison helpers (bitwise, normalized MSE).
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kvplan/kernels/cuda.hpp"

namespace kvplan::kernels::testing {

// Every GPU test derives from this: GTEST_SKIP with the reason where there is no device.
template <class Base>
class CudaFixture : public Base {
 protected:
  void SetUp() override {
    std::string why;
    if (!cuda_available(&why)) GTEST_SKIP() << "no CUDA device: " << why;
  }
};
using CudaTest = CudaFixture<::testing::Test>;
template <class P>
using CudaParamTest = CudaFixture<::testing::TestWithParam<P>>;

// Deterministic values in [-scale, scale) (a 64-bit LCG; the same on every machine).
inline std::vector<float> fixture_values(std::uint64_t n, std::uint64_t seed, float scale = 1.f) {
  std::vector<float> x(n);
  std::uint64_t s = seed * 6364136223846793005ull + 1442695040888963407ull;
  for (auto& v : x) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    v = (static_cast<float>(s >> 40) / 16777216.f * 2.f - 1.f) * scale;
  }
  return x;
}

template <class T>
struct DeviceBuffer {
  T* ptr = nullptr;
  std::size_t count = 0;
  explicit DeviceBuffer(std::size_t n) : count(n) {
    if (n) {
      EXPECT_EQ(cudaMalloc(&ptr, n * sizeof(T)), cudaSuccess);
    }
  }
  DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) {
    if (count) {
      EXPECT_EQ(cudaMemcpy(ptr, host.data(), count * sizeof(T), cudaMemcpyHostToDevice),
                cudaSuccess);
    }
  }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  std::vector<T> host() const {
    std::vector<T> h(count);
    if (count) {
      EXPECT_EQ(cudaMemcpy(h.data(), ptr, count * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    }
    return h;
  }
};

// Index of the first differing element (bitwise), or -1.
template <class T>
long long first_bit_difference(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0) return static_cast<long long>(i);
  return -1;
}

// Normalized MSE of got against want: sum (got - want)^2 / sum want^2.
inline double nmse(const std::vector<float>& got, const std::vector<float>& want) {
  double err = 0, norm = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    err += (double(got[i]) - want[i]) * (double(got[i]) - want[i]);
    norm += double(want[i]) * want[i];
  }
  return err / std::max(norm, 1e-300);
}
inline bool any_nan(const std::vector<float>& x) {
  for (float v : x)
    if (std::isnan(v)) return true;
  return false;
}
inline double norm2(const std::vector<float>& x) {
  double s = 0;
  for (float v : x) s += double(v) * v;
  return s;
}

// Attention tolerance (normalized MSE) of the CUDA kernels against the double-precision
// reference: float accumulation, split-K merge order and FMA contraction.
constexpr double kAttentionNmse = 1e-8;

}  // namespace kvplan::kernels::testing
