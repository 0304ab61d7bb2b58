// The device dispatch of the public entry points (docs/api.md, "Dispatch"):
//
//   bwgemm::gemm             10.0: sm_100a kernels   9.0: sm_90a kernels (sm90::gemm)   else: device_mismatch
//   bwgemm::dual_gemm_nvfp4  10.0: sm_100a kernels   9.0: not_supported                 else: device_mismatch
//   bwgemm::gemm_nvfp4       10.0: sm_100a kernels   9.0: not_supported                 else: device_mismatch
//   bwgemm::dual_gemm        10.0: sm_100a kernels   9.0: sm_90a kernels (sm90::dual_gemm) else:
//   device_mismatch
//
// Built twice from this source: test_dispatch for "90a;100a" (every backend in the binary) and
// test_dispatch_100a_only for 100a alone (BWGEMM_TEST_BINARY_HAS_SM90A=0), which on a compute-capability-9.0
// GPU must answer a Hopper launch with the rebuild hint instead of running or crashing. On a machine without
// a GPU the mismatch messages are checked and every GPU case skips with a message.
//
// The GPU cases use exact small-integer data, so the results must equal the host reference (ref::gemm,
// ref::silu) bit for bit: GEMM sums are integers below 2^8 (exact in bf16); the dual GEMM's gate is an
// integer in [64, 256] (silu(gate) == gate in fp32: e^-64 vanishes next to 1) and its up projection is one
// element of A (B2 has a single +-1 per row), so silu(gate) * up is exactly representable in bf16.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bwgemm/dual_gemm.cuh"
#include "bwgemm/gemm.cuh"
#include "bwgemm/reference/gemm.hpp"
#include "bwgemm/reference/nvfp4_gemm.hpp"  // ref::silu

#ifndef BWGEMM_TEST_BINARY_HAS_SM90A
#define BWGEMM_TEST_BINARY_HAS_SM90A 1
#endif

namespace {

using bwgemm::BLayout;
using bwgemm::Status;
using bwgemm::StatusCode;
using bf16 = __nv_bfloat16;
using f16 = __half;
namespace ref = bwgemm::ref;

// The current device's compute capability (major * 10 + minor), or 0 without a usable device.
int device_cc() {
  bwgemm::host::ComputeCapability cc;
  if (!bwgemm::host::current_compute_capability(&cc).ok()) return 0;
  return cc.major * 10 + cc.minor;
}

#define REQUIRE_CC(want, what)                                                                           \
  do {                                                                                                   \
    if (device_cc() != (want))                                                                           \
      GTEST_SKIP() << "needs a GPU of compute capability " << (want) / 10 << "." << (want) % 10 << " ("  \
                   << (what) << "); this machine: "                                                      \
                   << (device_cc() == 0                                                                  \
                           ? std::string("no CUDA device")                                               \
                           : std::to_string(device_cc() / 10) + "." + std::to_string(device_cc() % 10)); \
  } while (0)

#if BWGEMM_TEST_BINARY_HAS_SM90A
#define REQUIRE_SM90A_IN_BINARY() (void)0
#else
#define REQUIRE_SM90A_IN_BINARY() GTEST_SKIP() << "this binary is built without 90a"
#endif

template <class T>
uint16_t bits_of(T x) {
  uint16_t b;
  std::memcpy(&b, &x, 2);
  return b;
}
inline uint32_t bits_of(float x) {
  uint32_t b;
  std::memcpy(&b, &x, 4);
  return b;
}

// A device copy of a host vector (or `count` zeroed elements), freed at scope exit.
template <class T>
class DeviceVector {
 public:
  explicit DeviceVector(const std::vector<T>& host) : count_(host.size()) {
    EXPECT_EQ(cudaMalloc(&ptr_, bytes()), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(ptr_, host.data(), bytes(), cudaMemcpyHostToDevice), cudaSuccess);
  }
  explicit DeviceVector(size_t count) : count_(count) {
    EXPECT_EQ(cudaMalloc(&ptr_, bytes()), cudaSuccess);
    EXPECT_EQ(cudaMemset(ptr_, 0xFF, bytes()), cudaSuccess);  // NaN in fp16/bf16/fp32: must be overwritten
  }
  ~DeviceVector() { cudaFree(ptr_); }
  DeviceVector(const DeviceVector&) = delete;
  DeviceVector& operator=(const DeviceVector&) = delete;
  T* get() const { return ptr_; }
  std::vector<T> download() const {
    std::vector<T> h(count_);
    EXPECT_EQ(cudaMemcpy(h.data(), ptr_, bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
  }

 private:
  size_t bytes() const { return count_ * sizeof(T); }
  T* ptr_ = nullptr;
  size_t count_;
};

template <class T>
std::vector<T> small_integers(size_t count, int lo, int hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<T> v(count);
  for (T& x : v) x = ref::from_float<T>(static_cast<float>(dist(rng)));
  return v;
}

// ---- the GEMM ---------------------------------------------------------------------------------------------

// D = A·B (+ C) through bwgemm::gemm, bitwise against ref::gemm.
template <class In, class Out>
void check_gemm(int64_t m, int64_t n, int64_t k, BLayout layout, float beta) {
  SCOPED_TRACE("M=" + std::to_string(m) + " N=" + std::to_string(n) + " K=" + std::to_string(k) +
               (layout == BLayout::kRowMajorKxN ? " B=KxN" : " B=NxK") + " beta=" + std::to_string(beta));
  const std::vector<In> a = small_integers<In>(static_cast<size_t>(m * k), -2, 2, 1);
  const std::vector<In> b = small_integers<In>(static_cast<size_t>(k * n), -2, 2, 2);
  const std::vector<Out> c = small_integers<Out>(static_cast<size_t>(m * n), -8, 8, 3);
  DeviceVector<In> da(a), db(b);
  DeviceVector<Out> dc(c), dd(static_cast<size_t>(m * n));

  bwgemm::GemmArguments<In, Out> args;
  args.m = m, args.n = n, args.k = k;
  args.a = da.get(), args.b = db.get(), args.b_layout = layout;
  args.c = dc.get(), args.d = dd.get();
  args.epilogue = {1.0f, beta};
  const Status s = bwgemm::gemm(args);
  ASSERT_TRUE(s.ok()) << s.to_string();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  std::vector<Out> want(static_cast<size_t>(m * n));
  ref::GemmArgs<In, In, Out> r;
  r.m = m, r.n = n, r.k = k;
  r.a = a.data(), r.lda = k;
  r.b = b.data(),
  r.b_layout = layout == BLayout::kRowMajorKxN ? ref::BLayout::kRowMajorKxN : ref::BLayout::kColumnMajorKxN;
  r.ldb = layout == BLayout::kRowMajorKxN ? n : k;
  r.c = c.data(), r.ldc = n;
  r.d = want.data(), r.ldd = n;
  r.beta = beta;
  ref::gemm(r);

  const std::vector<Out> got = dd.download();
  int64_t wrong = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (bits_of(got[i]) != bits_of(want[i]) && ++wrong <= 5)
      ADD_FAILURE() << "D[" << i / n << "][" << i % n << "] = " << ref::to_float(got[i]) << ", want "
                    << ref::to_float(want[i]);
  }
  EXPECT_EQ(wrong, 0) << wrong << " of " << got.size() << " elements differ from the host reference";
}

void run_gemm_cases() {
  check_gemm<bf16, bf16>(200, 136, 64, BLayout::kRowMajorKxN, 0.0f);     // M and N tails
  check_gemm<f16, float>(640, 264, 72, BLayout::kColumnMajorKxN, 1.0f);  // K tail, fp32 out, beta
  check_gemm<f16, f16>(1024, 1024, 64, BLayout::kColumnMajorKxN, 0.0f);  // many tiles
}

TEST(DispatchHopper, GemmRunsTheSm90aKernels) {
  REQUIRE_CC(90, "H100/H200");
  REQUIRE_SM90A_IN_BINARY();
  run_gemm_cases();
}

TEST(DispatchBlackwell, GemmRunsTheSm100aKernels) {
  REQUIRE_CC(100, "B200/GB200");
  run_gemm_cases();
}

// ---- the fp16/bf16 dual GEMM ------------------------------------------------------------------------------

// C = silu(A·B1ᵀ) * (A·B2ᵀ) through bwgemm::dual_gemm, bitwise against ref::gemm + ref::silu.
void check_dual_gemm_16bit(int64_t m, int64_t n, int64_t k) {
  SCOPED_TRACE("M=" + std::to_string(m) + " N=" + std::to_string(n) + " K=" + std::to_string(k));
  ASSERT_EQ(k, 64) << "the exact data below needs K = 64";
  const std::vector<bf16> a = small_integers<bf16>(static_cast<size_t>(m * k), 1, 2, 4);
  const std::vector<bf16> b1 = small_integers<bf16>(static_cast<size_t>(n * k), 1, 2, 5);
  std::vector<bf16> b2(static_cast<size_t>(n * k), ref::from_float<bf16>(0.0f));
  for (int64_t j = 0; j < n; ++j)  // one +-1 per row: up[i][j] = +-A[i][j % K]
    b2[static_cast<size_t>(j * k + j % k)] = ref::from_float<bf16>(j % 3 == 0 ? -1.0f : 1.0f);
  DeviceVector<bf16> da(a), db1(b1), db2(b2), dc(static_cast<size_t>(m * n));

  bwgemm::DualGemmArguments<bf16> args;
  args.m = m, args.n = n, args.k = k;
  args.a = da.get(), args.b1 = db1.get(), args.b2 = db2.get(), args.c = dc.get();
  const Status s = bwgemm::dual_gemm(args);
  ASSERT_TRUE(s.ok()) << s.to_string();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  std::vector<float> gate(static_cast<size_t>(m * n)), up(gate.size());
  const auto product = [&](const std::vector<bf16>& b, std::vector<float>& out) {  // out = A·Bᵀ in fp32
    ref::GemmArgs<bf16, bf16, float> r;
    r.m = m, r.n = n, r.k = k;
    r.a = a.data(), r.lda = k;
    r.b = b.data(), r.b_layout = ref::BLayout::kColumnMajorKxN, r.ldb = k;
    r.d = out.data(), r.ldd = n;
    ref::gemm(r);
  };
  product(b1, gate);
  product(b2, up);
  const std::vector<bf16> got = dc.download();
  int64_t wrong = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_GE(gate[i], 64.0f) << "test data: the gate must be >= 64";
    const bf16 want = ref::from_float<bf16>(ref::silu(gate[i]) * up[i]);
    if (bits_of(got[i]) != bits_of(want) && ++wrong <= 5)
      ADD_FAILURE() << "C[" << i / n << "][" << i % n << "] = " << ref::to_float(got[i]) << ", want "
                    << ref::to_float(want) << " (gate " << gate[i] << ", up " << up[i] << ")";
  }
  EXPECT_EQ(wrong, 0) << wrong << " of " << got.size() << " elements differ from the host reference";
}

TEST(DispatchHopper, DualGemm16BitRunsTheSm90aKernels) {
  REQUIRE_CC(90, "H100/H200");
  REQUIRE_SM90A_IN_BINARY();
  check_dual_gemm_16bit(200, 136, 64);  // M * batch <= 256: the BlockN 64 kernel; M and N tails
  check_dual_gemm_16bit(384, 264, 64);  // the BlockN 128 kernel
}

TEST(DispatchBlackwell, DualGemm16BitRunsTheSm100aKernels) {
  REQUIRE_CC(100, "B200/GB200");
  check_dual_gemm_16bit(200, 136, 64);  // M <= 256: the BlockN 64 kernel (sm100::DualGemmSmallM); tails
  check_dual_gemm_16bit(384, 264, 64);  // the BlockN 128 kernel (sm100::DualGemmLargeM)
}

// ---- the NVFP4 dual GEMM ----------------------------------------------------------------------------------

// Operands whose every element is 1.0 (e2m1 code 0x2 in both nibbles, e4m3 scale 0x38 = 1.0 everywhere, so
// the scale layout does not matter): gate = up = K.
struct Nvfp4Ones {
  DeviceVector<uint8_t> data, scales;
  Nvfp4Ones(int64_t rows, int64_t k)
      : data(std::vector<uint8_t>(static_cast<size_t>(rows * k / 2), 0x22)),
        scales(std::vector<uint8_t>(static_cast<size_t>(bwgemm::blocked_scale_bytes(rows, k / 16)), 0x38)) {}
  bwgemm::Nvfp4Tensor tensor() const { return {data.get(), scales.get()}; }
};

TEST(DispatchHopper, Nvfp4IsNotSupported) {
  REQUIRE_CC(90, "H100/H200");
  const Nvfp4Ones a(128, 256), b(128, 256);
  DeviceVector<f16> c(128 * 128);
  bwgemm::Nvfp4DualGemmArguments<f16> args;
  args.m = 128, args.n = 128, args.k = 256;
  args.a = a.tensor(), args.b1 = b.tensor(), args.b2 = b.tensor(), args.c = c.get();
  const Status s = bwgemm::dual_gemm_nvfp4(args);
  EXPECT_EQ(s.code(), StatusCode::kNotSupported) << s.to_string();
  EXPECT_NE(s.message().find("NVFP4 operands need the sm_100a block-scaled tensor cores"), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("bwgemm::dual_gemm with bf16/fp16 operands"), std::string::npos) << s.message();
}

TEST(DispatchBlackwell, Nvfp4RunsTheSm100aKernels) {
  REQUIRE_CC(100, "B200/GB200");
  const int64_t m = 200, n = 128, k = 64;
  const Nvfp4Ones a(m, k), b(n, k);
  DeviceVector<f16> c(static_cast<size_t>(m * n));
  bwgemm::Nvfp4DualGemmArguments<f16> args;
  args.m = m, args.n = n, args.k = k;
  args.a = a.tensor(), args.b1 = b.tensor(), args.b2 = b.tensor(), args.c = c.get();
  const Status s = bwgemm::dual_gemm_nvfp4(args);
  ASSERT_TRUE(s.ok()) << s.to_string();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const f16 want = ref::from_float<f16>(ref::silu(64.0f) * 64.0f);  // 4096
  for (const f16& x : c.download()) ASSERT_EQ(bits_of(x), bits_of(want)) << ref::to_float(x);
}

// The NVFP4 GEMM: not_supported on Hopper, the sm_100a kernels on a B200 (D = 1.0 * A·Bᵀ = K).
TEST(DispatchHopper, Nvfp4GemmIsNotSupported) {
  REQUIRE_CC(90, "H100/H200");
  const Nvfp4Ones a(128, 256), b(128, 256);
  DeviceVector<f16> d(128 * 128);
  bwgemm::Nvfp4GemmArguments<f16> args;
  args.m = 128, args.n = 128, args.k = 256;
  args.a = a.tensor(), args.b = b.tensor(), args.d = d.get();
  const Status s = bwgemm::gemm_nvfp4(args);
  EXPECT_EQ(s.code(), StatusCode::kNotSupported) << s.to_string();
  EXPECT_NE(s.message().find("NVFP4 operands need the sm_100a block-scaled tensor cores"), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("bwgemm::gemm with bf16/fp16 operands"), std::string::npos) << s.message();
}

TEST(DispatchBlackwell, Nvfp4GemmRunsTheSm100aKernels) {
  REQUIRE_CC(100, "B200/GB200");
  const int64_t m = 200, n = 128, k = 64;
  const Nvfp4Ones a(m, k), b(n, k);
  DeviceVector<f16> d(static_cast<size_t>(m * n));
  bwgemm::Nvfp4GemmArguments<f16> args;
  args.m = m, args.n = n, args.k = k;
  args.a = a.tensor(), args.b = b.tensor(), args.d = d.get();
  const Status s = bwgemm::gemm_nvfp4(args);
  ASSERT_TRUE(s.ok()) << s.to_string();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const f16 want = ref::from_float<f16>(64.0f);
  for (const f16& x : d.download()) ASSERT_EQ(bits_of(x), bits_of(want)) << ref::to_float(x);
}

// ---- other devices, no device, binaries without the device's architecture --------------------------------

// Arguments that pass every host check (pointers never dereferenced: no kernel may run).
bwgemm::GemmArguments<bf16> plausible_gemm_args() {
  bwgemm::GemmArguments<bf16> a;
  a.m = a.n = a.k = 128;
  a.a = reinterpret_cast<const bf16*>(uintptr_t{0x10000});
  a.b = reinterpret_cast<const bf16*>(uintptr_t{0x20000});
  a.d = reinterpret_cast<bf16*>(uintptr_t{0x30000});
  return a;
}
bwgemm::Nvfp4DualGemmArguments<f16> plausible_nvfp4_args() {
  bwgemm::Nvfp4DualGemmArguments<f16> a;
  a.m = a.n = 128, a.k = 256;
  const void* p = reinterpret_cast<const void*>(uintptr_t{0x10000});
  a.a = a.b1 = a.b2 = {p, p};
  a.c = reinterpret_cast<f16*>(uintptr_t{0x20000});
  return a;
}

void expect_names_both_backends(const Status& s, const char* entry_point) {
  EXPECT_EQ(s.code(), StatusCode::kDeviceMismatch) << s.to_string();
  for (const char* needle : {entry_point, "compute capability 10.0 (B200/GB200)", "9.0 (H100/H200)"})
    EXPECT_NE(s.message().find(needle), std::string::npos) << "no '" << needle << "' in: " << s.message();
  const int cc = device_cc();
  const std::string device =
      cc == 0 ? "no usable CUDA device" : " is " + std::to_string(cc / 10) + "." + std::to_string(cc % 10);
  EXPECT_NE(s.message().find(device), std::string::npos) << "no '" << device << "' in: " << s.message();
}

TEST(DispatchOtherDevices, EveryEntryPointNamesBothCapabilitiesAndTheDevice) {
  const int cc = device_cc();
  if (cc == 90 || cc == 100) GTEST_SKIP() << "this machine's GPU runs one of the backends";
  expect_names_both_backends(bwgemm::gemm(plausible_gemm_args()), "bwgemm::gemm");
  expect_names_both_backends(bwgemm::dual_gemm_nvfp4(plausible_nvfp4_args()), "bwgemm::dual_gemm_nvfp4");
  expect_names_both_backends(bwgemm::dual_gemm(bwgemm::DualGemmArguments<bf16>{}), "bwgemm::dual_gemm");
  // The explicit sm_100a Configs keep their own check.
  const Status s = bwgemm::sm100::Gemm<bwgemm::sm100::GemmSmallM<bf16>>::run(plausible_gemm_args());
  EXPECT_EQ(s.code(), StatusCode::kDeviceMismatch) << s.to_string();
  EXPECT_NE(s.message().find("compute capability 10.0"), std::string::npos) << s.message();
}

// Bad arguments are reported as such on every machine, before the device is looked at.
TEST(DispatchArguments, CheckedBeforeTheDevice) {
  auto g = plausible_gemm_args();
  g.k = 12;
  Status s = bwgemm::gemm(g);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.to_string();
  EXPECT_NE(s.message().find("K must be"), std::string::npos) << s.message();
  auto d = plausible_nvfp4_args();
  d.n = 20;
  const Status sd = bwgemm::dual_gemm_nvfp4(d);
  EXPECT_EQ(sd.code(), StatusCode::kInvalidArgument) << sd.to_string();
  EXPECT_NE(sd.message().find("N must be"), std::string::npos) << sd.message();
}

// Explicit sm_100a Configs stay sm_100a-only: refused on Hopper, with the capability they need.
TEST(DispatchHopper, ExplicitSm100aConfigIsRefused) {
  REQUIRE_CC(90, "H100/H200");
  const Status s = bwgemm::sm100::Gemm<bwgemm::sm100::GemmSmallM<bf16>>::run(plausible_gemm_args());
  EXPECT_EQ(s.code(), StatusCode::kDeviceMismatch) << s.to_string();
  EXPECT_NE(s.message().find("runs sm_100a kernels, which need a GPU of compute capability 10.0"),
            std::string::npos)
      << s.message();
}

// The status of a launch that finds no code for the device's architecture in the binary.
TEST(DispatchLaunchFailure, NoKernelImageGetsTheRebuildHint) {
  const Status s = bwgemm::host::kernel_call_failure("kernel launch failed", cudaErrorNoKernelImageForDevice);
  EXPECT_EQ(s.code(), StatusCode::kDeviceMismatch) << s.to_string();
  EXPECT_NE(s.message().find("CMAKE_CUDA_ARCHITECTURES"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("90a;100a"), std::string::npos) << s.message();
  const Status other =
      bwgemm::host::kernel_call_failure("kernel launch failed", cudaErrorLaunchOutOfResources);
  EXPECT_EQ(other.code(), StatusCode::kDriverError) << other.to_string();
}

#if !BWGEMM_TEST_BINARY_HAS_SM90A
// This binary carries sm_100a code only: on Hopper the dispatch picks the sm_90a kernels, finds none, and
// must say how to rebuild (without launching anything or breaking the context).
TEST(DispatchHopperWithout90a, LaunchesComeBackWithTheRebuildHint) {
  REQUIRE_CC(90, "H100/H200");
  DeviceVector<bf16> a(128 * 128), b(128 * 128), d(128 * 128);
  auto g = plausible_gemm_args();
  g.a = a.get(), g.b = b.get(), g.d = d.get();
  Status s = bwgemm::gemm(g);
  EXPECT_EQ(s.code(), StatusCode::kDeviceMismatch) << s.to_string();
  EXPECT_NE(s.message().find("rebuild with it in CMAKE_CUDA_ARCHITECTURES"), std::string::npos)
      << s.message();

  bwgemm::DualGemmArguments<bf16> dual;
  dual.m = dual.n = dual.k = 128;
  dual.a = a.get(), dual.b1 = b.get(), dual.b2 = b.get(), dual.c = d.get();
  const Status sdual = bwgemm::dual_gemm(dual);
  EXPECT_EQ(sdual.code(), StatusCode::kDeviceMismatch) << sdual.to_string();
  EXPECT_NE(sdual.message().find("rebuild with it in CMAKE_CUDA_ARCHITECTURES"), std::string::npos)
      << sdual.message();
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess) << "the context must still be usable";

  // The refused launches left no sticky error: the context still allocates, sets, copies and synchronizes.
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  constexpr size_t kBytes = 4096;
  void* buffer = nullptr;
  ASSERT_EQ(cudaMalloc(&buffer, kBytes), cudaSuccess) << "the context must still be usable";
  EXPECT_EQ(cudaMemset(buffer, 0x5A, kBytes), cudaSuccess);
  std::vector<uint8_t> back(kBytes, 0);
  EXPECT_EQ(cudaMemcpy(back.data(), buffer, kBytes, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaFree(buffer), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(back, std::vector<uint8_t>(kBytes, 0x5A)) << "the memset/memcpy round trip must come back";
}
#endif

}  // namespace
