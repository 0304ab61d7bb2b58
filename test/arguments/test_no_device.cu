// Without a usable CUDA device, the entry points say so plainly: "no usable CUDA device here: no CUDA driver
// is installed or loaded (...)" or "... the CUDA driver sees no GPU (...)", the CUDA error as the detail
// (never a bare "CUDA driver version is insufficient for CUDA runtime version"). ctest runs this binary with
// CUDA_VISIBLE_DEVICES=-1 (test/arguments/CMakeLists.txt), so it meets no device on any machine: on one
// without a driver the runtime reports cudaErrorInsufficientDriver, on one with GPUs cudaErrorNoDevice.
// bwgemm::gemm, dual_gemm and dual_gemm_nvfp4 end their messages with the same reason
// (host::no_backend_for_device; test/dispatch, DispatchOtherDevices, runs them where no backend's GPU is).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "bwgemm/host/launch.hpp"
#include "bwgemm/quantize.cuh"

namespace {

using bwgemm::Status;
using bwgemm::StatusCode;

// The reason, for either way of having no device.
void expect_plain_reason(const std::string& message) {
  EXPECT_NE(message.find("no usable CUDA device here: "), std::string::npos) << message;
  const bool no_driver = message.find("no CUDA driver is installed or loaded") != std::string::npos;
  const bool old_driver =
      message.find("is older than the CUDA runtime this program was built with") != std::string::npos;
  const bool hidden = message.find(
                          "the CUDA driver sees no GPU (none installed, or CUDA_VISIBLE_DEVICES "
                          "hides them)") != std::string::npos;
  EXPECT_TRUE(no_driver || old_driver || hidden) << message;
  EXPECT_NE(message.find("(cudaError"), std::string::npos) << "the CUDA error as the detail: " << message;
}

TEST(NoDevice, TheDeviceQuerySaysWhy) {
  bwgemm::host::ComputeCapability cc;
  const Status s = bwgemm::host::current_compute_capability(&cc);
  ASSERT_EQ(s.code(), StatusCode::kDeviceMismatch) << "a device is visible: " << s.to_string();
  EXPECT_EQ(cc.major, 0);
  expect_plain_reason(s.message());
}

// What bwgemm::gemm returns here: its name, the GPUs it runs on, then the reason.
TEST(NoDevice, TheDefaultEntryPointsMessage) {
  bwgemm::host::ComputeCapability cc;
  const Status query = bwgemm::host::current_compute_capability(&cc);
  const Status s = bwgemm::host::no_backend_for_device("bwgemm::gemm", query, cc);
  EXPECT_EQ(s.code(), StatusCode::kDeviceMismatch);
  EXPECT_EQ(s.to_string().rfind("device mismatch: bwgemm::gemm runs sm_100a kernels on a GPU of compute "
                                "capability 10.0 (B200/GB200) and sm_90a kernels on one of compute "
                                "capability 9.0 (H100/H200); no usable CUDA device here: ",
                                0),
            0u)
      << s.to_string();
  expect_plain_reason(s.message());
}

// The quantizer checks the device before its pointers: the reason is the missing device, not "x is not
// device-accessible memory".
TEST(NoDevice, TheQuantizerSaysWhy) {
  const auto* x = reinterpret_cast<const float*>(uintptr_t{0x100000});
  auto* packed = reinterpret_cast<uint8_t*>(uintptr_t{0x200000});
  auto* scales = reinterpret_cast<uint8_t*>(uintptr_t{0x300000});
  const Status s = bwgemm::quantize_nvfp4(x, 128, 64, 1, 64, 1.0f, packed, scales);
  EXPECT_EQ(s.code(), StatusCode::kDeviceMismatch) << s.to_string();
  EXPECT_EQ(s.message().rfind("bwgemm::quantize_nvfp4 needs a GPU of compute capability 8.0 or newer; ", 0),
            0u)
      << s.message();
  expect_plain_reason(s.message());
}

}  // namespace
