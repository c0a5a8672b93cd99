// How a kernel Status reaches the exit code: a runtime failure (a CUDA error, out of device memory
// included) is internal and exits 3; only wrong parameters exit 2 as invalid input.
#include <gtest/gtest.h>

#include "kvplan/sim/replay.hpp"

namespace kvplan::sim {
namespace {

namespace kn = kvplan::kernels;

TEST(KernelStatus, RuntimeFailuresAreInternalAndExit3) {
  const Error e = kernel_error(kn::Status::Internal("CUDA error cudaErrorMemoryAllocation"),
                               "trace.safetensors", "fp16 full b16", "pool init");
  EXPECT_EQ(e.kind(), ErrorKind::internal);
  EXPECT_EQ(e.exit_code(), 3);
  EXPECT_NE(std::string(e.what()).find("pool init: CUDA error cudaErrorMemoryAllocation"),
            std::string::npos)
      << e.what();
}

TEST(KernelStatus, OnlyInvalidArgumentsAreInvalidInput) {
  EXPECT_EQ(kernel_error(kn::Status::Invalid("block_size must be >= 1"), "s", "f", "w").exit_code(),
            2);
  EXPECT_EQ(kernel_error(kn::Status::OutOfRange("no live sequence 3"), "s", "f", "w").exit_code(),
            3);
  EXPECT_EQ(kernel_error(kn::Status::Unimplemented("GQA group 64"), "s", "f", "w").exit_code(), 3);
}

}  // namespace
}  // namespace kvplan::sim
