// bwgemm::quantize_nvfp4 on the GPU must be bit-identical to the host quantizer, write the padding of
// the blocked scales as zero, and touch nothing outside its outputs. Needs a GPU of compute capability
// 8.0 or newer whose architecture is in CMAKE_CUDA_ARCHITECTURES (verified on an H200 with 90a).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "bwgemm/quantize.cuh"

namespace {

constexpr size_t kGuardBytes = 4096;
constexpr uint8_t kGuardByte = 0xA5;

// Skips the current test unless a GPU that can run this binary's quantizer is present.
#define REQUIRE_GPU()                                                  \
  do {                                                                 \
    std::string why;                                                   \
    if (!gpu_available(&why))                                          \
      GTEST_SKIP() << "needs a CUDA GPU of compute capability >= 8.0 " \
                      "built into CMAKE_CUDA_ARCHITECTURES: "          \
                   << why;                                             \
  } while (0)

bool gpu_available(std::string* why) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    *why = "no CUDA device";
    return false;
  }
  cudaFuncAttributes attr;
  if (cudaFuncGetAttributes(&attr, bwgemm::detail::quantize_nvfp4_kernel<float>) != cudaSuccess) {
    *why = std::string("kernel not loadable on this device: ") + cudaGetErrorString(cudaGetLastError());
    return false;
  }
  return true;
}

// A device buffer with guard bands on both sides, filled with a known byte.
struct GuardedBuffer {
  uint8_t* base = nullptr;
  size_t bytes = 0;
  explicit GuardedBuffer(size_t n) : bytes(n) {
    EXPECT_EQ(cudaMalloc(&base, n + 2 * kGuardBytes), cudaSuccess);
    EXPECT_EQ(cudaMemset(base, kGuardByte, n + 2 * kGuardBytes), cudaSuccess);
  }
  ~GuardedBuffer() { cudaFree(base); }
  uint8_t* data() { return base + kGuardBytes; }
  std::vector<uint8_t> all() const {
    std::vector<uint8_t> h(bytes + 2 * kGuardBytes);
    EXPECT_EQ(cudaMemcpy(h.data(), base, h.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
  }
};

template <class T>
T make(float v);
template <>
float make<float>(float v) {
  return v;
}
template <>
__half make<__half>(float v) {
  return __float2half_rn(v);
}
template <>
__nv_bfloat16 make<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

template <class T>
void check_bit_identical(int64_t rows, int64_t k, int64_t batch, int64_t ld, float g, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<T> x(static_cast<size_t>(batch * rows * ld));
  for (auto& v : x) v = make<T>(normal(rng) * std::exp(2.0f * normal(rng)) * g);
  if (x.size() > 40) {  // specials: a zero block, a NaN, an infinity, a huge value
    for (int i = 0; i < 16; ++i) x[static_cast<size_t>(i)] = make<T>(0.0f);
    x[20] = make<T>(std::numeric_limits<float>::quiet_NaN());
    x[37] = make<T>(std::numeric_limits<float>::infinity());
  }
  const size_t packed_bytes = static_cast<size_t>(batch * rows * k / 2);
  const size_t scale_bytes = static_cast<size_t>(bwgemm::blocked_scale_bytes(rows, k / 16, batch));
  std::vector<uint8_t> want_packed(packed_bytes), want_scales(scale_bytes);
  ASSERT_TRUE(
      bwgemm::quantize_nvfp4_host(x.data(), rows, k, batch, ld, g, want_packed.data(), want_scales.data())
          .ok());

  T* dx = nullptr;
  ASSERT_EQ(cudaMalloc(&dx, x.size() * sizeof(T)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(dx, x.data(), x.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  GuardedBuffer packed(packed_bytes), scales(scale_bytes);
  cudaStream_t stream;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  const bwgemm::Status s =
      bwgemm::quantize_nvfp4(dx, rows, k, batch, ld, g, packed.data(), scales.data(), stream);
  ASSERT_TRUE(s.ok()) << s.to_string();
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  cudaStreamDestroy(stream);
  cudaFree(dx);

  for (auto* buf : {&packed, &scales}) {
    const std::vector<uint8_t> h = buf->all();
    const std::vector<uint8_t>& want = buf == &packed ? want_packed : want_scales;
    for (size_t i = 0; i < kGuardBytes; ++i) {
      ASSERT_EQ(h[i], kGuardByte) << "guard band before the output overwritten at " << i;
      ASSERT_EQ(h[kGuardBytes + buf->bytes + i], kGuardByte)
          << "guard band after the output overwritten at " << i;
    }
    for (size_t i = 0; i < buf->bytes; ++i)
      ASSERT_EQ(h[kGuardBytes + i], want[i]) << (buf == &packed ? "packed" : "scales") << " byte " << i;
  }
}

TEST(QuantizeGpu, FloatMatchesHostBitForBit) {
  REQUIRE_GPU();
  check_bit_identical<float>(256, 1024, 1, 1024, 1.0f, 1);
}
TEST(QuantizeGpu, HalfWithTailRowsAndPaddedScaleColumns) {
  REQUIRE_GPU();
  check_bit_identical<__half>(300, 80, 1, 80, 1.0f, 2);  // rows pad to 384, K/16 = 5 pads to 8
}
TEST(QuantizeGpu, BfloatBatchedWithRowStride) {
  REQUIRE_GPU();
  check_bit_identical<__nv_bfloat16>(100, 256, 3, 272, 1.0f, 3);
}
TEST(QuantizeGpu, GlobalScale) {
  REQUIRE_GPU();
  check_bit_identical<float>(129, 512, 2, 512, 1.0f / 1024.0f, 4);
  check_bit_identical<float>(64, 7168, 1, 7168, 37.5f, 5);
  // Where 6 g overflows fp32 (g > FLT_MAX / 6) the block scale is formed without the overflow
  // (formats/nvfp4.cuh): the GPU's way must match the host's there too.
  check_bit_identical<float>(64, 512, 1, 512, std::numeric_limits<float>::max() / 4.0f, 6);
  check_bit_identical<float>(64, 512, 1, 512, std::numeric_limits<float>::max(), 7);
}

TEST(QuantizeGpu, RejectsBadArgumentsWithoutLaunching) {
  // Validation needs no GPU: these fail before anything is launched.
  uint8_t* p = reinterpret_cast<uint8_t*>(0x1000);
  const float* x = reinterpret_cast<const float*>(0x2000);
  auto code = [](const bwgemm::Status& s) { return s.code(); };
  EXPECT_EQ(code(bwgemm::quantize_nvfp4(x, 4, 24, 1, 24, 1.0f, p, p)), bwgemm::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(bwgemm::quantize_nvfp4(x, 0, 32, 1, 32, 1.0f, p, p)), bwgemm::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(bwgemm::quantize_nvfp4(x, 4, 32, 1, 16, 1.0f, p, p)), bwgemm::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(bwgemm::quantize_nvfp4(x, 4, 32, 1, 32, -1.0f, p, p)), bwgemm::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(bwgemm::quantize_nvfp4<float>(nullptr, 4, 32, 1, 32, 1.0f, p, p)),
            bwgemm::StatusCode::kInvalidArgument);
  EXPECT_EQ(code(bwgemm::quantize_nvfp4(reinterpret_cast<const float*>(0x2002), 4, 32, 1, 32, 1.0f, p, p)),
            bwgemm::StatusCode::kInvalidArgument);
}

// Plain host memory is refused with a message instead of faulting on the device. (Without a device the call
// says that instead, before it looks at pointers: test/arguments/test_no_device.cu.)
TEST(QuantizeGpu, HostMemoryIsRefusedByName) {
  REQUIRE_GPU();
  std::vector<float> host(128, 1.0f);
  std::vector<uint8_t> hp(64), hs(512);
  const bwgemm::Status s = bwgemm::quantize_nvfp4(host.data(), 1, 128, 1, 128, 1.0f, hp.data(), hs.data());
  EXPECT_EQ(s.code(), bwgemm::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("device-accessible"), std::string::npos) << s.message();
}

}  // namespace
