// Test helper for the sm_90a (Hopper) suites: the compute-capability-9.0 check, NaN-poisoned device
// buffers with guard bands, and the raw bits of an output element.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace bwgemm_sm90_test {

inline constexpr size_t kGuardBytes = 4096;
inline constexpr uint8_t kGuardByte = 0xA7;
inline constexpr uint8_t kPoisonByte = 0xFF;  // 0xFFFF / 0xFFFFFFFF: a NaN in fp16, bf16 and fp32

// Whether device 0 has compute capability 9.0 (H100/H200); `why` says what is missing.
inline bool can_run_sm90(std::string* why) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    *why = "no CUDA device";
    return false;
  }
  int major = 0, minor = 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0);
  if (major != 9 || minor != 0) {
    *why = "device 0 has compute capability " + std::to_string(major) + "." + std::to_string(minor);
    return false;
  }
  return true;
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

}  // namespace bwgemm_sm90_test
