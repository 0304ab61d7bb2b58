// An FP16 GEMM with bwgemm: D = alpha · A·B + beta · C, A (M x K) and B (K x N, row-major: the GPU MODE
// matmul_v2 layout) in fp16, C and D in fp16, fp32 accumulation.
//
//  1. random fp16 operands are copied to the GPU;
//  2. bwgemm::gemm picks a kernel from the shape and computes D;
//  3. D is checked against the host reference (bwgemm::ref::gemm) on the same operands;
//  4. on a B200 the call is timed (median of CUDA-event timings, L2 not flushed: a quick look, not the
//     benchmark; bench/ has that).
//
// Built twice: natively for sm_100a (gemm) and as host C++ against the CPU emulator (gemm_emu, a small
// shape). On a machine without a compute-capability-10.0 GPU the native build says so and exits with code
// 77; the `example.gemm` test then runs the emulator build.
//
//   gemm [M N K]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bwgemm/gemm.cuh"
#include "bwgemm/reference/gemm.hpp"

#include "example_memory.hpp"

#if !BWGEMM_EMULATION
#include <cuda_runtime.h>
#endif

namespace {

using example::copy;
using example::device_alloc;
using example::device_free;
using example::kNoSuitableGpu;

}  // namespace

int main(int argc, char** argv) {
#if BWGEMM_EMULATION
  std::printf(
      "bwgemm GEMM example: no B200 here, so the sm_100a kernel runs in the CPU emulator\n"
      "(same kernel source, emulated tcgen05/TMA/mbarrier/CLC) on a small shape; no timing.\n");
  int64_t m = 512, n = 512, k = 256;
#else
  int device = 0, major = 0, minor = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess ||
      major != 10 || minor != 0) {
    std::printf(
        "bwgemm GEMM example: no GPU of compute capability 10.0 (B200) here (found %s); "
        "the sm_100a kernel needs one. Run the emulator build gemm_emu instead.\n",
        major == 0 ? "no CUDA device" : (std::to_string(major) + "." + std::to_string(minor)).c_str());
    return kNoSuitableGpu;
  }
  std::printf("bwgemm GEMM example on device %d (compute capability 10.0)\n", device);
  int64_t m = 4096, n = 4096, k = 4096;
#endif
  if (argc == 4) m = std::atoll(argv[1]), n = std::atoll(argv[2]), k = std::atoll(argv[3]);
  const float alpha = 0.5f, beta = 1.0f;
  std::printf("D[%lld x %lld] = %.1f A B + %.1f C, K = %lld, B K x N row-major, fp16 in and out\n",
              static_cast<long long>(m), static_cast<long long>(n), alpha, beta, static_cast<long long>(k));

  std::mt19937 rng(2026);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  auto random_half = [&](int64_t count) {
    std::vector<__half> v(static_cast<size_t>(count));
    for (auto& x : v) x = bwgemm::ref::from_float<__half>(uniform(rng));
    return v;
  };
  const std::vector<__half> a = random_half(m * k), b = random_half(k * n), c = random_half(m * n);
  void* da = device_alloc(a.size() * sizeof(__half));
  void* db = device_alloc(b.size() * sizeof(__half));
  void* dc = device_alloc(c.size() * sizeof(__half));
  void* dd = device_alloc(c.size() * sizeof(__half));
  if (da == nullptr || db == nullptr || dc == nullptr || dd == nullptr)
    return std::fprintf(stderr, "out of memory\n"), 1;
  copy(da, a.data(), a.size() * sizeof(__half), true);
  copy(db, b.data(), b.size() * sizeof(__half), true);
  copy(dc, c.data(), c.size() * sizeof(__half), true);

  bwgemm::GemmArguments<__half> args;  // fp16 A, B, C, D
  args.m = m, args.n = n, args.k = k;
  args.a = static_cast<const __half*>(da);
  args.b = static_cast<const __half*>(db);
  args.b_layout = bwgemm::BLayout::kRowMajorKxN;
  args.c = static_cast<const __half*>(dc);
  args.d = static_cast<__half*>(dd);
  args.epilogue = {alpha, beta};  // epi::LinearCombination
  const auto t0 = std::chrono::steady_clock::now();
  if (const bwgemm::Status s = bwgemm::gemm(args); !s.ok())
    return std::fprintf(stderr, "bwgemm::gemm: %s\n", s.to_string().c_str()), 1;
#if !BWGEMM_EMULATION
  if (cudaDeviceSynchronize() != cudaSuccess) return std::fprintf(stderr, "kernel failed\n"), 1;
#endif
  const double first_call_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::vector<__half> got(c.size()), want(c.size());
  copy(got.data(), dd, got.size() * sizeof(__half), false);
  bwgemm::ref::GemmArgs<__half, __half, __half> r;
  r.m = m, r.n = n, r.k = k;
  r.a = a.data(), r.lda = k;
  r.b = b.data(), r.b_layout = bwgemm::BLayout::kRowMajorKxN, r.ldb = n;
  r.c = c.data(), r.ldc = n;
  r.d = want.data(), r.ldd = n;
  r.alpha = alpha, r.beta = beta;
  bwgemm::ref::gemm(r);
  // fp32 sums in another order may round to the neighbouring fp16 value: allow two fp16 ulps, plus the
  // accumulation-order difference of K fp32 additions.
  int64_t bad = 0;
  double max_err = 0.0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = bwgemm::ref::to_float(got[i]), w = bwgemm::ref::to_float(want[i]);
    max_err = std::max(max_err, std::fabs(g - w));
    bad += !(std::fabs(g - w) <= 2.0 * 0x1p-11 * std::fabs(w) + 1e-6 * static_cast<double>(k));
  }
  std::printf("check against the host reference: %lld of %lld outside 2 fp16 ulps, max |d| = %.3g\n",
              static_cast<long long>(bad), static_cast<long long>(got.size()), max_err);

#if BWGEMM_EMULATION
  std::printf("emulated run took %.2f s of CPU time (not a performance figure)\n", first_call_s);
#else
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> times;
  for (int i = 0; i < 50; ++i) {
    cudaEventRecord(start);
    (void)bwgemm::gemm(args);  // the same arguments succeeded above
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  const double us = times[times.size() / 2] * 1e3;
  const double flops = 2.0 * static_cast<double>(m) * n * k;
  std::printf("median of 50 calls: %.2f us, %.1f TFLOP/s (L2 warm; see bench/ for the benchmark)\n", us,
              flops / (us * 1e-6) / 1e12);
#endif
  for (void* p : {da, db, dc, dd}) device_free(p);
  return bad == 0 ? 0 : 1;
}
