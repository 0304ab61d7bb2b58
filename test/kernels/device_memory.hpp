// Test helper: "device" buffers that are GPU memory in a native build and host memory in the emulation
// build (where global memory is host memory), with guard bands around outputs.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "bwgemm/common.cuh"
#include "bwgemm/host/launch.hpp"  // host::current_compute_capability

#if !BWGEMM_EMULATION
#include <cuda_runtime.h>
#endif

namespace bwgemm_test {

inline constexpr size_t kGuardBytes = 1024;
inline constexpr uint8_t kGuardByte = 0xA7;

// Whether kernels of compute capability 10.0 can run here (the emulator is such a device); `why` says what
// is missing. The library's own device query (host::current_compute_capability), as the entry points use it.
inline bool can_run_sm100(std::string* why) {
  bwgemm::host::ComputeCapability cc;
  const bwgemm::Status query = bwgemm::host::current_compute_capability(&cc);
  if (query.ok() && cc.is(10, 0)) return true;
  *why = bwgemm::host::describe_current_device(query, cc);
  return false;
}

#define BWGEMM_REQUIRE_SM100()                                                                          \
  do {                                                                                                  \
    std::string why_;                                                                                   \
    if (!::bwgemm_test::can_run_sm100(&why_))                                                           \
      GTEST_SKIP() << "needs a GPU of compute capability 10.0 (B200) or the emulation build: " << why_; \
  } while (0)

// A byte buffer in "device" memory with guard bands of kGuardBytes on both sides.
class DeviceBytes {
 public:
  explicit DeviceBytes(size_t bytes) : bytes_(bytes) {
    const size_t total = bytes + 2 * kGuardBytes;
#if BWGEMM_EMULATION
    storage_.assign(total + 16, kGuardByte);
    base_ = storage_.data() + (16 - reinterpret_cast<uintptr_t>(storage_.data()) % 16) % 16;
#else
    EXPECT_EQ(cudaMalloc(&base_, total), cudaSuccess);
    EXPECT_EQ(cudaMemset(base_, kGuardByte, total), cudaSuccess);
#endif
  }
  ~DeviceBytes() {
#if !BWGEMM_EMULATION
    cudaFree(base_);
#endif
  }
  DeviceBytes(const DeviceBytes&) = delete;
  DeviceBytes& operator=(const DeviceBytes&) = delete;

  uint8_t* data() {
    return base_ + kGuardBytes;
  }
  size_t size() const {
    return bytes_;
  }

  void upload(const void* src, size_t n) {
#if BWGEMM_EMULATION
    std::memcpy(data(), src, n);
#else
    EXPECT_EQ(cudaMemcpy(data(), src, n, cudaMemcpyHostToDevice), cudaSuccess);
#endif
  }
  void fill(uint8_t byte) {
#if BWGEMM_EMULATION
    std::memset(data(), byte, bytes_);
#else
    EXPECT_EQ(cudaMemset(data(), byte, bytes_), cudaSuccess);
#endif
  }
  // The whole buffer including both guard bands.
  std::vector<uint8_t> download_with_guards() const {
    std::vector<uint8_t> out(bytes_ + 2 * kGuardBytes);
#if BWGEMM_EMULATION
    std::memcpy(out.data(), base_, out.size());
#else
    EXPECT_EQ(cudaMemcpy(out.data(), base_, out.size(), cudaMemcpyDeviceToHost), cudaSuccess);
#endif
    return out;
  }
  // Checks both guard bands; returns the payload.
  std::vector<uint8_t> download_checked() const {
    std::vector<uint8_t> all = download_with_guards();
    for (size_t i = 0; i < kGuardBytes; ++i) {
      EXPECT_EQ(all[i], kGuardByte) << "guard band before the buffer overwritten at byte " << i;
      EXPECT_EQ(all[kGuardBytes + bytes_ + i], kGuardByte)
          << "guard band after the buffer overwritten at byte " << i;
      if (all[i] != kGuardByte || all[kGuardBytes + bytes_ + i] != kGuardByte) break;
    }
    return std::vector<uint8_t>(all.begin() + kGuardBytes,
                                all.begin() + kGuardBytes + static_cast<long>(bytes_));
  }

 private:
  size_t bytes_;
  uint8_t* base_ = nullptr;
#if BWGEMM_EMULATION
  std::vector<uint8_t> storage_;
#endif
};

inline void synchronize() {
#if !BWGEMM_EMULATION
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
#endif
}

}  // namespace bwgemm_test
