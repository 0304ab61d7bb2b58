// Test helper for the sm_90a (Hopper) suites: the compute-capability-9.0 check, NaN-poisoned device
// buffers with guard bands, and the raw bits of an output element.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "bwgemm/host/launch.hpp"  // host::current_compute_capability
#include "bwgemm/host/status.hpp"

namespace bwgemm_sm90_test {

inline constexpr size_t kGuardBytes = 4096;
inline constexpr uint8_t kGuardByte = 0xA7;
inline constexpr uint8_t kPoisonByte = 0xFF;  // 0xFFFF / 0xFFFFFFFF: a NaN in fp16, bf16 and fp32

// Whether the current device has compute capability 9.0 (H100/H200); `why` says what is missing. The
// library's own device query (host::current_compute_capability), as the entry points use it.
inline bool can_run_sm90(std::string* why) {
  bwgemm::host::ComputeCapability cc;
  const bwgemm::Status query = bwgemm::host::current_compute_capability(&cc);
  if (query.ok() && cc.is(9, 0)) return true;
  *why = bwgemm::host::describe_current_device(query, cc);
  return false;
}

#define BWGEMM_REQUIRE_SM90()                                                                        \
  do {                                                                                               \
    std::string why_;                                                                                \
    if (!::bwgemm_sm90_test::can_run_sm90(&why_))                                                    \
      GTEST_SKIP() << "needs a GPU of compute capability 9.0 (H100/H200) for sm_90a code: " << why_; \
  } while (0)

// Device bytes with guard bands of kGuardBytes on both sides.
class GuardedBytes {
 public:
  GuardedBytes(size_t bytes, uint8_t fill) : bytes_(bytes) {
    EXPECT_EQ(cudaMalloc(&base_, bytes + 2 * kGuardBytes), cudaSuccess);
    EXPECT_EQ(cudaMemset(base_, kGuardByte, bytes + 2 * kGuardBytes), cudaSuccess);
    EXPECT_EQ(cudaMemset(base_ + kGuardBytes, fill, bytes), cudaSuccess);
  }
  ~GuardedBytes() { cudaFree(base_); }
  GuardedBytes(const GuardedBytes&) = delete;
  GuardedBytes& operator=(const GuardedBytes&) = delete;
  uint8_t* data() { return base_ + kGuardBytes; }
  void upload(const void* src, size_t n) {
    EXPECT_EQ(cudaMemcpy(data(), src, n, cudaMemcpyHostToDevice), cudaSuccess);
  }
  // The whole allocation, guard bands included.
  std::vector<uint8_t> download_all() const {
    std::vector<uint8_t> h(bytes_ + 2 * kGuardBytes);
    EXPECT_EQ(cudaMemcpy(h.data(), base_, h.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
  }

 private:
  uint8_t* base_ = nullptr;
  size_t bytes_;
};

// The `elems` elements of `buffer` into *out, after asserting that both guard bands are intact (`name`
// names the matrix in the messages). Call under ASSERT_NO_FATAL_FAILURE.
template <class T>
void download_checked(const GuardedBytes& buffer, size_t elems, const char* name, std::vector<T>* out) {
  const std::vector<uint8_t> all = buffer.download_all();
  for (size_t i = 0; i < kGuardBytes; ++i) {
    ASSERT_EQ(all[i], kGuardByte) << "guard band before " << name << " overwritten at byte " << i;
    ASSERT_EQ(all[kGuardBytes + elems * sizeof(T) + i], kGuardByte)
        << "guard band after " << name << " overwritten at byte " << i;
  }
  out->resize(elems);
  std::memcpy(out->data(), all.data() + kGuardBytes, elems * sizeof(T));
}

// The raw bits of a 16- or 32-bit value.
template <class T>
uint32_t bits_of(T x) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4);
  if constexpr (sizeof(T) == 4) {
    uint32_t b;
    std::memcpy(&b, &x, 4);
    return b;
  } else {
    uint16_t b;
    std::memcpy(&b, &x, 2);
    return b;
  }
}

// `s` is kInvalidArgument and its message contains `needle`.
inline void expect_invalid_argument(const bwgemm::Status& s, const std::string& needle) {
  EXPECT_EQ(s.code(), bwgemm::StatusCode::kInvalidArgument) << s.to_string();
  EXPECT_NE(s.message().find(needle), std::string::npos) << "message: " << s.message();
}

// An sm_90a entry point off its device and with host memory: on anything but compute capability 9.0,
// run(args) must refuse with a device mismatch that names 9.0 (and launch nothing); on an H100/H200,
// run(host_args), whose operands are host memory, must refuse them as invalid arguments.
template <class Run, class Args>
void expect_device_or_host_memory_refused(const Run& run, const Args& args, const Args& host_args) {
  std::string why;
  if (!can_run_sm90(&why)) {
    const bwgemm::Status s = run(args);
    EXPECT_EQ(s.code(), bwgemm::StatusCode::kDeviceMismatch) << s.to_string();
    EXPECT_NE(s.message().find("compute capability 9.0"), std::string::npos) << s.message();
    return;
  }
  const bwgemm::Status s = run(host_args);
  EXPECT_EQ(s.code(), bwgemm::StatusCode::kInvalidArgument) << s.to_string();
}

}  // namespace bwgemm_sm90_test
