// The gated MLP of an LLM layer with bwgemm: C = silu(X·W1ᵀ) ⊙ (X·W2ᵀ) from NVFP4 operands.
//
//  1. fp16 activations X (M x K) and weights W1, W2 (N x K) are quantized to NVFP4 on the GPU
//     (bwgemm::quantize_nvfp4, with per-tensor global scales);
//  2. bwgemm::dual_gemm_nvfp4 computes C in fp16 (alpha = product of the global scales);
//  3. C is checked against the host reference on the same quantized operands;
//  4. on a B200 the kernel is timed (median of CUDA-event timings, L2 not flushed: a quick look, not the
//     benchmark; bench/ has that).
//
// On an H100/H200 (compute capability 9.0: no FP4 tensor cores) the native build runs the same gated MLP
// with bf16 operands through bwgemm::dual_gemm (the sm_90a kernels), checks it against the host reference
// (ref::gemm + ref::silu) and times it. The example prints which backend ran.
//
// Built twice: natively for sm_90a and sm_100a (dual_gemm_nvfp4) and as host C++ against the CPU emulator
// (dual_gemm_nvfp4_emu, a small shape). On a machine without a GPU of compute capability 10.0 or 9.0 the
// native build says so and exits with code 77; `cmake --workflow --preset example` then runs the emulator
// build.
//
//   dual_gemm_nvfp4 [M N K]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "bwgemm/dual_gemm.cuh"
#include "bwgemm/quantize.cuh"
#include "bwgemm/reference/gemm.hpp"
#include "bwgemm/reference/nvfp4_gemm.hpp"

#include "example_memory.hpp"

#if !BWGEMM_EMULATION
#include <cuda_runtime.h>
#endif

namespace {

using example::copy;
using example::device_alloc;
using example::device_free;
using example::kNoSuitableGpu;

bool check(const bwgemm::Status& s, const char* what) {
  if (!s.ok()) std::fprintf(stderr, "%s: %s\n", what, s.to_string().c_str());
  return s.ok();
}

// One NVFP4 operand quantized from fp16 on the device, with its global scale and a host copy.
struct Quantized {
  int64_t rows = 0, k = 0;
  float global_scale = 1.0f;
  void* data = nullptr;
  void* scales = nullptr;
  std::vector<uint8_t> host_data, host_scales;
};

bool quantize(const std::vector<__half>& x, int64_t rows, int64_t k, Quantized* q) {
  float amax = 0.0f;
  for (const __half& v : x) amax = std::max(amax, std::fabs(bwgemm::to_f32(v)));
  q->rows = rows, q->k = k;
  // Global scale so that the largest block scale is e4m3's maximum: g = amax / (6 * 448).
  q->global_scale = amax > 0.0f ? amax / (bwgemm::kE2m1Max * bwgemm::kE4m3Max) : 1.0f;
  const size_t data_bytes = static_cast<size_t>(rows * k / 2);
  const size_t scale_bytes = static_cast<size_t>(bwgemm::blocked_scale_bytes(rows, k / 16));
  void* dx = device_alloc(x.size() * sizeof(__half));
  q->data = device_alloc(data_bytes);
  q->scales = device_alloc(scale_bytes);
  if (dx == nullptr || q->data == nullptr || q->scales == nullptr) return false;
  copy(dx, x.data(), x.size() * sizeof(__half), true);
  const bool ok =
      check(bwgemm::quantize_nvfp4(static_cast<const __half*>(dx), rows, k, 1, k, q->global_scale,
                                   static_cast<uint8_t*>(q->data), static_cast<uint8_t*>(q->scales)),
            "quantize_nvfp4");
  q->host_data.resize(data_bytes);
  q->host_scales.resize(scale_bytes);
  copy(q->host_data.data(), q->data, data_bytes, false);
  copy(q->host_scales.data(), q->scales, scale_bytes, false);
  device_free(dx);
  return ok;
}

// Median time of 50 calls of `launch` (L2 warm: a quick look, not the benchmark; bench/ has that).
template <class Launch>
double median_us(Launch launch) {
#if BWGEMM_EMULATION
  (void)launch;
  return 0.0;
#else
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> times;
  for (int i = 0; i < 50; ++i) {
    cudaEventRecord(start);
    launch();
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    times.push_back(ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2] * 1e3;
#endif
}

// The NVFP4 gated MLP on a B200 (or in the emulator): quantize, run, check, time.
int run_nvfp4(int64_t m, int64_t n, int64_t k) {
  std::printf("C[%lld x %lld] = silu(X W1^T) * (X W2^T), K = %lld, NVFP4 in, fp16 out\n",
              static_cast<long long>(m), static_cast<long long>(n), static_cast<long long>(k));
  std::mt19937 rng(2026);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  auto random_half = [&](int64_t count, float scale) {
    std::vector<__half> v(static_cast<size_t>(count));
    for (auto& x : v) x = bwgemm::ref::from_float<__half>(normal(rng) * scale);
    return v;
  };
  Quantized x, w1, w2;
  if (!quantize(random_half(m * k, 1.0f), m, k, &x) || !quantize(random_half(n * k, 0.02f), n, k, &w1) ||
      !quantize(random_half(n * k, 0.02f), n, k, &w2))
    return 1;

  void* c = device_alloc(static_cast<size_t>(m * n) * sizeof(__half));
  bwgemm::Nvfp4DualGemmArguments<__half> args;
  args.m = m, args.n = n, args.k = k;
  args.a = {x.data, x.scales};
  args.b1 = {w1.data, w1.scales};
  args.b2 = {w2.data, w2.scales};
  args.c = static_cast<__half*>(c);
  args.alpha1 = x.global_scale * w1.global_scale;
  args.alpha2 = x.global_scale * w2.global_scale;
  const auto t0 = std::chrono::steady_clock::now();
  if (!check(bwgemm::dual_gemm_nvfp4(args), "dual_gemm_nvfp4")) return 1;
#if !BWGEMM_EMULATION
  if (cudaDeviceSynchronize() != cudaSuccess) return std::fprintf(stderr, "kernel failed\n"), 1;
#endif
  const double first_call_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::vector<__half> got(static_cast<size_t>(m * n)), want(got.size());
  copy(got.data(), c, got.size() * sizeof(__half), false);
  bwgemm::ref::nvfp4_dual_gemm_silu(
      bwgemm::ref::Nvfp4Matrix{x.host_data.data(), x.host_scales.data(), m, k},
      bwgemm::ref::Nvfp4Matrix{w1.host_data.data(), w1.host_scales.data(), n, k},
      bwgemm::ref::Nvfp4Matrix{w2.host_data.data(), w2.host_scales.data(), n, k}, 1, args.alpha1, args.alpha2,
      want.data(), n);
  int64_t bad = 0;
  double max_err = 0.0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = bwgemm::ref::to_float(got[i]), w = bwgemm::ref::to_float(want[i]);
    max_err = std::max(max_err, std::fabs(g - w));
    bad += !(std::fabs(g - w) <= 1e-3 + 1e-3 * std::fabs(w));
  }
  std::printf(
      "check against the host reference: %lld of %lld outside |d| <= 1e-3 + 1e-3 |ref|, max |d| = %.3g\n",
      static_cast<long long>(bad), static_cast<long long>(got.size()), max_err);

#if BWGEMM_EMULATION
  std::printf("emulated run took %.2f s of CPU time (not a performance figure)\n", first_call_s);
#else
  const double us = median_us([&] { (void)bwgemm::dual_gemm_nvfp4(args); });  // succeeded above
  const double flops = 2.0 * 2.0 * static_cast<double>(m) * n * k;
  std::printf("median of 50 calls: %.2f us, %.1f TFLOP/s (L2 warm; see bench/ for the benchmark)\n", us,
              flops / (us * 1e-6) / 1e12);
#endif
  device_free(c);
  for (Quantized* q : {&x, &w1, &w2}) device_free(q->data), device_free(q->scales);
  return bad == 0 ? 0 : 1;
}

#if !BWGEMM_EMULATION
// The gated MLP on an H100/H200: bf16 operands through bwgemm::dual_gemm, checked against ref::gemm +
// ref::silu, timed.
int run_bf16_on_hopper(int64_t m, int64_t n, int64_t k) {
  using bf16 = __nv_bfloat16;
  std::printf("C[%lld x %lld] = silu(X W1^T) * (X W2^T), K = %lld, bf16 in, bf16 out\n",
              static_cast<long long>(m), static_cast<long long>(n), static_cast<long long>(k));
  std::mt19937 rng(2026);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  auto random_bf16 = [&](int64_t count, float scale) {
    std::vector<bf16> v(static_cast<size_t>(count));
    for (auto& x : v) x = bwgemm::ref::from_float<bf16>(normal(rng) * scale);
    return v;
  };
  const std::vector<bf16> x = random_bf16(m * k, 1.0f), w1 = random_bf16(n * k, 0.02f),
                          w2 = random_bf16(n * k, 0.02f);
  void* dx = device_alloc(x.size() * sizeof(bf16));
  void* dw1 = device_alloc(w1.size() * sizeof(bf16));
  void* dw2 = device_alloc(w2.size() * sizeof(bf16));
  void* dc = device_alloc(static_cast<size_t>(m * n) * sizeof(bf16));
  if (dx == nullptr || dw1 == nullptr || dw2 == nullptr || dc == nullptr)
    return std::fprintf(stderr, "cudaMalloc failed\n"), 1;
  copy(dx, x.data(), x.size() * sizeof(bf16), true);
  copy(dw1, w1.data(), w1.size() * sizeof(bf16), true);
  copy(dw2, w2.data(), w2.size() * sizeof(bf16), true);

  bwgemm::DualGemmArguments<bf16> args;
  args.m = m, args.n = n, args.k = k;
  args.a = static_cast<const bf16*>(dx);
  args.b1 = static_cast<const bf16*>(dw1);
  args.b2 = static_cast<const bf16*>(dw2);
  args.c = static_cast<bf16*>(dc);
  if (!check(bwgemm::dual_gemm(args), "dual_gemm")) return 1;
  if (cudaDeviceSynchronize() != cudaSuccess) return std::fprintf(stderr, "kernel failed\n"), 1;

  std::vector<bf16> got(static_cast<size_t>(m * n));
  copy(got.data(), dc, got.size() * sizeof(bf16), false);
  std::vector<float> gate(got.size()), up(got.size());
  const auto product = [&](const std::vector<bf16>& w, std::vector<float>& out) {  // out = X W^T in fp32
    bwgemm::ref::GemmArgs<bf16, bf16, float> r;
    r.m = m, r.n = n, r.k = k;
    r.a = x.data(), r.lda = k;
    r.b = w.data(), r.b_layout = bwgemm::ref::BLayout::kColumnMajorKxN, r.ldb = k;
    r.d = out.data(), r.ldd = n;
    bwgemm::ref::gemm(r);
  };
  product(w1, gate);
  product(w2, up);
  std::vector<double> want(got.size());
  double sum_sq = 0.0;
  for (size_t i = 0; i < got.size(); ++i) {
    want[i] = static_cast<double>(bwgemm::ref::silu(gate[i])) * up[i];
    sum_sq += want[i] * want[i];
  }
  const double rms = std::sqrt(sum_sq / static_cast<double>(got.size()));
  // The bf16 rounding of C (twice its unit roundoff 2^-8, for slack) plus a small term for the fp32
  // summation order and SiLU's ex2/rcp approximations.
  int64_t bad = 0;
  double max_err = 0.0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double d = std::fabs(bwgemm::ref::to_float(got[i]) - want[i]);
    max_err = std::max(max_err, d);
    bad += !(d <= 0x1p-7 * std::fabs(want[i]) + 1e-3 * rms);
  }
  std::printf(
      "check against the host reference: %lld of %lld outside |d| <= 2^-7 |ref| + 1e-3 rms(ref), "
      "max |d| = %.3g\n",
      static_cast<long long>(bad), static_cast<long long>(got.size()), max_err);

  const double us = median_us([&] { (void)bwgemm::dual_gemm(args); });  // succeeded above
  const double flops = 2.0 * 2.0 * static_cast<double>(m) * n * k;
  std::printf("median of 50 calls: %.2f us, %.1f TFLOP/s (L2 warm; see bench/ for the benchmark)\n", us,
              flops / (us * 1e-6) / 1e12);
  for (void* p : {dx, dw1, dw2, dc}) device_free(p);
  return bad == 0 ? 0 : 1;
}
#endif

}  // namespace

int main(int argc, char** argv) {
#if BWGEMM_EMULATION
  std::printf(
      "bwgemm dual GEMM example: no B200 here, so the sm_100a kernel runs in the CPU emulator\n"
      "(same kernel source, emulated tcgen05/TMA/mbarrier) on a small shape; no timing.\n");
  std::printf("backend: sm_100a kernels in the CPU emulator, NVFP4 operands\n");
  int64_t m = 256, n = 512, k = 512;
  if (argc == 4) m = std::atoll(argv[1]), n = std::atoll(argv[2]), k = std::atoll(argv[3]);
  return run_nvfp4(m, n, k);
#else
  int64_t m = 512, n = 4096, k = 7168;  // a ranked GPU MODE shape
  if (argc == 4) m = std::atoll(argv[1]), n = std::atoll(argv[2]), k = std::atoll(argv[3]);
  bwgemm::host::ComputeCapability cc;
  const bwgemm::Status query = bwgemm::host::current_compute_capability(&cc);
  if (query.ok() && cc.is(10, 0)) {
    std::printf("bwgemm dual GEMM example on device %d (compute capability 10.0)\n", cc.device);
    std::printf("backend: sm_100a (Blackwell), NVFP4 operands\n");
    return run_nvfp4(m, n, k);
  }
  if (query.ok() && cc.is(9, 0)) {
    std::printf("bwgemm dual GEMM example on device %d (compute capability 9.0)\n", cc.device);
    std::printf("backend: sm_90a (Hopper), bf16 operands: NVFP4 needs a B200\n");
    return run_bf16_on_hopper(m, n, k);
  }
  std::printf(
      "bwgemm dual GEMM example: no GPU of compute capability 10.0 (B200) or 9.0 (H100/H200) here (%s); "
      "the sm_100a and sm_90a kernels need one. Run the emulator build dual_gemm_nvfp4_emu instead.\n",
      bwgemm::host::describe_current_device(query, cc).c_str());
  return kNoSuitableGpu;
#endif
}
