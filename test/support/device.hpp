// Test helpers shared by every suite that runs kernels: whether the current device can run a backend (with
// the message a skipped test prints), and "device" buffers that are GPU memory in a native build and host
// memory in the emulation build (where global memory is host memory), with guard bands around them.
// Header-only: it depends on BWGEMM_EMULATION, which differs between the suites' two builds.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "bwgemm/base/macros.hpp"
#include "bwgemm/host/launch.hpp"  // host::current_compute_capability

#if !BWGEMM_EMULATION
#include <cuda_runtime.h>
#endif

namespace bwgemm_test {

inline constexpr size_t kGuardBytes = 4096;
inline constexpr size_t kDeviceAlignment = 256;  // cudaMalloc's alignment, kept by the emulated buffers
inline constexpr uint8_t kGuardByte = 0xA7;

inline constexpr uint8_t kPoisonByte = 0xFF;  // 0xFFFF / 0xFFFFFFFF: a NaN in fp16, bf16 and fp32

// Whether kernels of compute capability major.minor can run here (the emulator is a 10.0 device); `why` says
// what is missing. The library's own device query (host::current_compute_capability), as the entry points
// use it.
inline bool can_run(int major, int minor, std::string* why) {
  bwgemm::host::ComputeCapability cc;
  const bwgemm::Status query = bwgemm::host::current_compute_capability(&cc);
  if (query.ok() && cc.is(major, minor)) return true;
  *why = bwgemm::host::describe_current_device(query, cc);
  return false;
}
inline bool can_run_sm100(std::string* why) {
  return can_run(10, 0, why);
}
inline bool can_run_sm90(std::string* why) {
  return can_run(9, 0, why);
}

#define BWGEMM_REQUIRE_SM100()                                                                          \
  do {                                                                                                  \
    std::string why_;                                                                                   \
    if (!::bwgemm_test::can_run_sm100(&why_))                                                           \
      GTEST_SKIP() << "needs a GPU of compute capability 10.0 (B200) or the emulation build: " << why_; \
  } while (0)

#define BWGEMM_REQUIRE_SM90()                                                                        \
  do {                                                                                               \
    std::string why_;                                                                                \
    if (!::bwgemm_test::can_run_sm90(&why_))                                                         \
      GTEST_SKIP() << "needs a GPU of compute capability 9.0 (H100/H200) for sm_90a code: " << why_; \
  } while (0)

// A byte buffer in "device" memory with guard bands of kGuardBytes on both sides.
class DeviceBytes {
 public:
  explicit DeviceBytes(size_t bytes) : bytes_(bytes) {
    const size_t total = bytes + 2 * kGuardBytes;
#if BWGEMM_EMULATION
    // 256-byte aligned, as cudaMalloc's memory is (the kernels take 32-byte-aligned paths where they can).
    storage_.assign(total + kDeviceAlignment, kGuardByte);
    base_ = storage_.data() +
            (kDeviceAlignment - reinterpret_cast<uintptr_t>(storage_.data()) % kDeviceAlignment) %
                kDeviceAlignment;
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

  const uint8_t* data() const {
    return base_ + kGuardBytes;
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

// The payload of a buffer as elements of T, after checking its guard bands.
template <class T>
std::vector<T> download_as(const DeviceBytes& buffer) {
  const std::vector<uint8_t> bytes = buffer.download_checked();
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

// Waits for the launches so far; a failed kernel fails the test with the runtime's message.
inline void synchronize() {
#if !BWGEMM_EMULATION
  const cudaError_t err = cudaDeviceSynchronize();
  EXPECT_EQ(err, cudaSuccess) << cudaGetErrorString(err);
#endif
}

// An entry point for compute capability major.minor off its device and with host memory: elsewhere
// run(args) must refuse with a device mismatch whose message names `device` (and launch nothing); on such a
// device run(host_args), whose operands are host memory, must refuse them as invalid arguments.
template <class Run, class Args>
void expect_device_or_host_memory_refused(const Run& run, const Args& args, const Args& host_args, int major,
                                          int minor, const char* device) {
  std::string why;
  if (!can_run(major, minor, &why)) {
    const bwgemm::Status s = run(args);
    EXPECT_EQ(s.code(), bwgemm::StatusCode::kDeviceMismatch) << s.to_string();
    EXPECT_NE(s.message().find(device), std::string::npos) << s.message();
    return;
  }
  const bwgemm::Status s = run(host_args);
  EXPECT_EQ(s.code(), bwgemm::StatusCode::kInvalidArgument) << s.to_string();
}

}  // namespace bwgemm_test
