// The emulated CUDA runtime (bwgemm::emu_cudart): its allocation registry as the entry points' device-pointer
// check (host, freed and out-of-allocation pointers refused with the operand's name), cudaMemcpy's kind
// checks, cudaMemset, the error state, events, pointer attributes and the device queries.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <bwgemm/emu/cudart.hpp>
#include <bwgemm/gemm.cuh>
#include <bwgemm/quantize.cuh>

namespace {

using bwgemm::emu::cudart::last_error_detail;

// A small fp16 GEMM whose operands all come from cudaMalloc.
struct DeviceGemm {
  static constexpr int64_t kM = 128, kN = 64, kK = 64;
  __half *a = nullptr, *b = nullptr, *d = nullptr;
  DeviceGemm() {
    EXPECT_EQ(cudaMalloc(&a, kM * kK * sizeof(__half)), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&b, kN * kK * sizeof(__half)), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&d, kM * kN * sizeof(__half)), cudaSuccess);
    EXPECT_EQ(cudaMemset(a, 0, kM * kK * sizeof(__half)), cudaSuccess);
    EXPECT_EQ(cudaMemset(b, 0, kN * kK * sizeof(__half)), cudaSuccess);
  }
  ~DeviceGemm() {
    for (void* p : {static_cast<void*>(a), static_cast<void*>(b), static_cast<void*>(d)}) (void)cudaFree(p);
  }
  bwgemm::GemmArguments<__half> args() const {
    bwgemm::GemmArguments<__half> g;
    g.m = kM, g.n = kN, g.k = kK;
    g.a = a, g.b = b, g.d = d;
    g.b_layout = bwgemm::BLayout::kColumnMajorKxN;
    return g;
  }
};

TEST(EmuCudart, EntryPointAcceptsCudaMallocMemory) {
  DeviceGemm g;
  const bwgemm::Status s = bwgemm::gemm(g.args());
  ASSERT_TRUE(s.ok()) << s.to_string();
  // A = B = 0, so D = 0: the kernel ran on the registry's memory.
  std::vector<__half> d(DeviceGemm::kM * DeviceGemm::kN, __float2half(1.0f));
  ASSERT_EQ(cudaMemcpy(d.data(), g.d, d.size() * sizeof(__half), cudaMemcpyDeviceToHost), cudaSuccess);
  for (const __half& v : d) ASSERT_EQ(__half2float(v), 0.0f);
}

TEST(EmuCudart, EntryPointRefusesAHostPointerNamingTheOperand) {
  DeviceGemm g;
  std::vector<__half> host_b(DeviceGemm::kN * DeviceGemm::kK);
  bwgemm::GemmArguments<__half> args = g.args();
  args.b = host_b.data();
  const bwgemm::Status s = bwgemm::gemm(args);
  EXPECT_EQ(s.code(), bwgemm::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("B of bwgemm::gemm is not device-accessible memory"), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("not inside any live allocation of the emulated cudaMalloc"), std::string::npos)
      << s.message();
}

TEST(EmuCudart, EntryPointRefusesAFreedPointer) {
  DeviceGemm g;
  bwgemm::GemmArguments<__half> args = g.args();
  __half* freed = nullptr;
  ASSERT_EQ(cudaMalloc(&freed, DeviceGemm::kM * DeviceGemm::kN * sizeof(__half)), cudaSuccess);
  ASSERT_EQ(cudaFree(freed), cudaSuccess);
  args.d = freed;
  const bwgemm::Status s = bwgemm::gemm(args);
  EXPECT_EQ(s.code(), bwgemm::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("D of bwgemm::gemm is not device-accessible memory"), std::string::npos)
      << s.message();
}

TEST(EmuCudart, QuantizerRefusesAHostInput) {
  constexpr int64_t kRows = 4, kK = 32;
  std::vector<float> host_x(kRows * kK, 1.0f);
  uint8_t *packed = nullptr, *scales = nullptr;
  ASSERT_EQ(cudaMalloc(&packed, kRows * kK / 2), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&scales, bwgemm::blocked_scale_bytes(kRows, kK / 16)), cudaSuccess);
  const bwgemm::Status s = bwgemm::quantize_nvfp4(host_x.data(), kRows, kK, 1, kK, 1.0f, packed, scales);
  EXPECT_EQ(s.code(), bwgemm::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("x of bwgemm::quantize_nvfp4 is not device-accessible memory"),
            std::string::npos)
      << s.message();
  EXPECT_EQ(cudaFree(packed), cudaSuccess);
  EXPECT_EQ(cudaFree(scales), cudaSuccess);
}

TEST(EmuCudart, PinnedHostMemoryIsDeviceAccessible) {
  void* pinned = nullptr;
  ASSERT_EQ(cudaMallocHost(&pinned, 64), cudaSuccess);
  EXPECT_TRUE(bwgemm::emu::cudart::is_device_accessible(pinned, 64));
  EXPECT_FALSE(bwgemm::emu::cudart::is_device_accessible(pinned, 65));  // past the allocation
  EXPECT_EQ(cudaFree(pinned), cudaErrorInvalidValue);                   // not a cudaMalloc allocation
  EXPECT_EQ(cudaFreeHost(pinned), cudaSuccess);
}

TEST(EmuCudart, AllocationsAre256ByteAlignedAndCounted) {
  const bwgemm::emu::cudart::AllocationTotals before = bwgemm::emu::cudart::live_allocations();
  void *p = nullptr, *q = nullptr;
  ASSERT_EQ(cudaMalloc(&p, 3), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&q, 1000), cudaSuccess);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 256, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(q) % 256, 0u);
  EXPECT_EQ(bwgemm::emu::cudart::live_allocations().count, before.count + 2);
  EXPECT_EQ(bwgemm::emu::cudart::live_allocations().bytes, before.bytes + 1003);
  EXPECT_EQ(cudaFree(p), cudaSuccess);
  EXPECT_EQ(cudaFree(q), cudaSuccess);
  EXPECT_EQ(bwgemm::emu::cudart::live_allocations().count, before.count);
  EXPECT_EQ(cudaFree(q), cudaErrorInvalidValue);  // twice
  EXPECT_NE(last_error_detail().find("is not the start of a live cudaMalloc allocation"), std::string::npos);
  (void)cudaGetLastError();
  void* zero = &p;
  EXPECT_EQ(cudaMalloc(&zero, 0), cudaSuccess);
  EXPECT_EQ(zero, nullptr);
}

TEST(EmuCudart, MemcpyMovesBytesBothWays) {
  const std::vector<uint8_t> src = {1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<uint8_t> back(8, 0);
  uint8_t *d1 = nullptr, *d2 = nullptr;
  ASSERT_EQ(cudaMalloc(&d1, 8), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d2, 8), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(d1, src.data(), 8, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpyAsync(d2, d1, 8, cudaMemcpyDeviceToDevice, nullptr), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(back.data(), d2, 8, cudaMemcpyDefault), cudaSuccess);
  EXPECT_EQ(back, src);
  EXPECT_EQ(cudaMemset(d2 + 2, 0xAB, 4), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(back.data(), d2, 8, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back, (std::vector<uint8_t>{1, 2, 0xAB, 0xAB, 0xAB, 0xAB, 7, 8}));
  EXPECT_EQ(cudaFree(d1), cudaSuccess);
  EXPECT_EQ(cudaFree(d2), cudaSuccess);
}

TEST(EmuCudart, MemcpyWithTheWrongKindOrUnknownPointersFails) {
  std::vector<uint8_t> host(16, 0), other(16, 0);
  uint8_t* dev = nullptr;
  ASSERT_EQ(cudaMalloc(&dev, 16), cudaSuccess);
  (void)cudaGetLastError();

  // Host-to-device into host memory.
  EXPECT_EQ(cudaMemcpy(other.data(), host.data(), 16, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_NE(last_error_detail().find("cudaMemcpy (cudaMemcpyHostToDevice, 16 bytes): dst"), std::string::npos)
      << last_error_detail();
  EXPECT_NE(last_error_detail().find("should be device memory"), std::string::npos) << last_error_detail();
  // Device-to-host with the directions swapped.
  EXPECT_EQ(cudaMemcpy(dev, host.data(), 16, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  EXPECT_NE(last_error_detail().find("dst"), std::string::npos) << last_error_detail();
  // Host-to-device whose host side is device memory.
  EXPECT_EQ(cudaMemcpy(dev, dev, 16, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_NE(last_error_detail().find("src"), std::string::npos) << last_error_detail();
  // Past the end of the allocation.
  EXPECT_EQ(cudaMemcpy(dev + 8, host.data(), 16, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_NE(last_error_detail().find("partly outside"), std::string::npos) << last_error_detail();
  // Not a cudaMemcpyKind.
  EXPECT_EQ(cudaMemcpy(dev, host.data(), 16, static_cast<cudaMemcpyKind>(7)),
            cudaErrorInvalidMemcpyDirection);
  // A freed allocation.
  ASSERT_EQ(cudaFree(dev), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(host.data(), dev, 16, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  EXPECT_NE(last_error_detail().find("src"), std::string::npos) << last_error_detail();
  EXPECT_EQ(cudaMemset(dev, 0, 16), cudaErrorInvalidValue);  // cudaMemset of freed memory

  // The error state: peek keeps it, get returns and clears it.
  EXPECT_EQ(cudaPeekAtLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_STREQ(cudaGetErrorString(cudaErrorInvalidValue), "invalid argument");
  EXPECT_STREQ(cudaGetErrorName(cudaErrorInvalidValue), "cudaErrorInvalidValue");
}

TEST(EmuCudart, PointerAttributesSayWhereMemoryIs) {
  uint8_t* dev = nullptr;
  ASSERT_EQ(cudaMalloc(&dev, 32), cudaSuccess);
  int on_stack = 0;
  cudaPointerAttributes attr{};
  ASSERT_EQ(cudaPointerGetAttributes(&attr, dev + 31), cudaSuccess);
  EXPECT_EQ(attr.type, cudaMemoryTypeDevice);
  ASSERT_EQ(cudaPointerGetAttributes(&attr, &on_stack), cudaSuccess);
  EXPECT_EQ(attr.type, cudaMemoryTypeUnregistered);
  EXPECT_EQ(cudaFree(dev), cudaSuccess);
}

TEST(EmuCudart, EventsMeasureHostTime) {
  cudaEvent_t start, stop, untimed;
  ASSERT_EQ(cudaEventCreate(&start), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&stop), cudaSuccess);
  ASSERT_EQ(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming), cudaSuccess);
  float ms = -1;
  EXPECT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaErrorInvalidResourceHandle);  // never recorded
  ASSERT_EQ(cudaEventRecord(start), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(stop), cudaSuccess);
  ASSERT_EQ(cudaEventSynchronize(stop), cudaSuccess);
  ASSERT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaSuccess);
  EXPECT_GE(ms, 0.0f);
  EXPECT_LT(ms, 1000.0f);
  ASSERT_EQ(cudaEventRecord(untimed), cudaSuccess);
  EXPECT_EQ(cudaEventElapsedTime(&ms, start, untimed), cudaErrorInvalidResourceHandle);
  for (cudaEvent_t e : {start, stop, untimed}) EXPECT_EQ(cudaEventDestroy(e), cudaSuccess);
  (void)cudaGetLastError();
}

TEST(EmuCudart, TheDeviceIsOneComputeCapability100Gpu) {
  int count = 0, device = -1, major = 0, minor = -1;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  EXPECT_EQ(count, 1);
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  EXPECT_EQ(device, 0);
  cudaDeviceProp prop{};
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  EXPECT_EQ(prop.major, 10);
  EXPECT_EQ(prop.minor, 0);
  EXPECT_STREQ(prop.name, "bwgemm CPU emulator (sm_100a)");
  ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0), cudaSuccess);
  EXPECT_EQ(major, 10);
  EXPECT_EQ(minor, 0);
  EXPECT_EQ(cudaSetDevice(1), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaGetDeviceProperties(&prop, 1), cudaErrorInvalidDevice);
  (void)cudaGetLastError();
}

// What a benchmark sizes its buffers by: no cache to rotate past, and the reported capacity less what is
// held.
TEST(EmuCudart, MemGetInfoCountsLiveAllocationsAndTheL2IsZero) {
  int l2 = -1;
  ASSERT_EQ(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0), cudaSuccess);
  EXPECT_EQ(l2, 0);
  size_t free_before = 0, total = 0, free_after = 0, total_after = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_before, &total), cudaSuccess);
  cudaDeviceProp prop{};
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  EXPECT_EQ(total, prop.totalGlobalMem);
  EXPECT_LE(free_before, total);
  void* p = nullptr;
  ASSERT_EQ(cudaMalloc(&p, 1 << 20), cudaSuccess);
  ASSERT_EQ(cudaMemGetInfo(&free_after, &total_after), cudaSuccess);
  EXPECT_EQ(total_after, total);
  EXPECT_EQ(free_before - free_after, size_t{1} << 20);
  ASSERT_EQ(cudaFree(p), cudaSuccess);
  ASSERT_EQ(cudaMemGetInfo(&free_after, &total_after), cudaSuccess);
  EXPECT_EQ(free_after, free_before);
  EXPECT_EQ(cudaMemGetInfo(nullptr, &total), cudaErrorInvalidValue);
  (void)cudaGetLastError();
}

}  // namespace
