// A user's program written for the GPU, with nothing emulator-specific in it: the CUDA runtime's memory
// calls, streams and events, bwgemm's entry points (bwgemm::gemm, bwgemm::quantize_nvfp4,
// bwgemm::dual_gemm_nvfp4), and a check of the results against bwgemm's host references. The test builds it
// as host C++ against bwgemm::emu_cudart (the emulated CUDA runtime), where it runs the sm_100a kernels in
// the CPU emulator; natively (nvcc, sm_100a, libcudart) the same file runs on a B200.
//
//   gpu_style_program [M N K]      (default 256 512 256; the NVFP4 part runs M x N/2 x K)
//
// Prints one line per operation, "<operation>: <bad> of <count> outside <tolerance> ...", and exits 0 when
// both checks pass.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <bwgemm/dual_gemm.cuh>
#include <bwgemm/gemm.cuh>
#include <bwgemm/quantize.cuh>
#include <bwgemm/reference/gemm.hpp>
#include <bwgemm/reference/nvfp4_gemm.hpp>

#define CHECK_CUDA(call)                                                                            \
  do {                                                                                              \
    const cudaError_t err_ = (call);                                                                \
    if (err_ != cudaSuccess) {                                                                      \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
      std::exit(1);                                                                                 \
    }                                                                                               \
  } while (0)

#define CHECK_BWGEMM(call)                                                                        \
  do {                                                                                            \
    const bwgemm::Status s_ = (call);                                                             \
    if (!s_.ok()) {                                                                               \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, s_.to_string().c_str()); \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

namespace {

template <class T>
T* device_copy_of(const std::vector<T>& host) {
  T* p = nullptr;
  CHECK_CUDA(cudaMalloc(&p, host.size() * sizeof(T)));
  CHECK_CUDA(cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return p;
}

template <class T>
std::vector<T> host_copy_of(const T* device, size_t count) {
  std::vector<T> host(count);
  CHECK_CUDA(cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

// Values outside `rel` relative (plus `abs_tol` absolute) difference from the reference.
template <class T>
int64_t count_outside(const std::vector<T>& got, const std::vector<T>& want, double rel, double abs_tol,
                      double* max_err) {
  int64_t bad = 0;
  *max_err = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = bwgemm::ref::to_float(got[i]), w = bwgemm::ref::to_float(want[i]);
    *max_err = std::max(*max_err, std::fabs(g - w));
    bad += !(std::fabs(g - w) <= rel * std::fabs(w) + abs_tol);
  }
  return bad;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t m = 256, n = 512, k = 256;
  if (argc == 4) m = std::atoll(argv[1]), n = std::atoll(argv[2]), k = std::atoll(argv[3]);

  int device = 0;
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDevice(&device));
  CHECK_CUDA(cudaGetDeviceProperties(&prop, device));
  std::printf("device %d: %s, compute capability %d.%d\n", device, prop.name, prop.major, prop.minor);

  cudaStream_t stream;
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaStreamCreate(&stream));
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));

  std::mt19937 rng(17);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  auto random_half = [&](int64_t count) {
    std::vector<__half> v(static_cast<size_t>(count));
    for (auto& x : v) x = __float2half(uniform(rng));
    return v;
  };

  // ---- 1. FP16 GEMM: D = A B, A M x K, B N x K (nn.Linear weights), fp16 out ----------------------------
  const std::vector<__half> a = random_half(m * k), b = random_half(n * k);
  __half* da = device_copy_of(a);
  __half* db = device_copy_of(b);
  __half* dd = nullptr;
  CHECK_CUDA(cudaMalloc(&dd, static_cast<size_t>(m * n) * sizeof(__half)));
  CHECK_CUDA(cudaMemsetAsync(dd, 0, static_cast<size_t>(m * n) * sizeof(__half), stream));

  bwgemm::GemmArguments<__half> gemm_args;
  gemm_args.m = m, gemm_args.n = n, gemm_args.k = k;
  gemm_args.a = da, gemm_args.b = db, gemm_args.d = dd;
  gemm_args.b_layout = bwgemm::BLayout::kColumnMajorKxN;
  CHECK_CUDA(cudaEventRecord(start, stream));
  CHECK_BWGEMM(bwgemm::gemm(gemm_args, stream));
  CHECK_CUDA(cudaEventRecord(stop, stream));
  CHECK_CUDA(cudaEventSynchronize(stop));
  CHECK_CUDA(cudaGetLastError());
  float gemm_ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&gemm_ms, start, stop));

  std::vector<__half> want(static_cast<size_t>(m * n));
  bwgemm::ref::GemmArgs<__half, __half, __half> r;
  r.m = m, r.n = n, r.k = k;
  r.a = a.data(), r.b = b.data(), r.b_layout = bwgemm::BLayout::kColumnMajorKxN, r.d = want.data();
  bwgemm::ref::gemm(r);
  double gemm_err = 0;
  // fp32 sums in another order may round to the neighbouring fp16 value: two fp16 ulps (2 * 2^-11) plus K
  // fp32 additions' worth of absolute difference.
  const int64_t gemm_bad = count_outside(host_copy_of(dd, want.size()), want, 2.0 * 0x1p-11,
                                         1e-6 * static_cast<double>(k), &gemm_err);
  std::printf("gemm %lld x %lld x %lld: %lld of %lld outside 2 fp16 ulps, max |d| = %.3g, %.1f ms\n",
              static_cast<long long>(m), static_cast<long long>(n), static_cast<long long>(k),
              static_cast<long long>(gemm_bad), static_cast<long long>(want.size()), gemm_err, gemm_ms);

  // ---- 2. NVFP4 dual GEMM + SiLU: quantize on the device, run, compare with the host reference -----------
  const int64_t dual_n = n / 2;  // [gate; up] of width N/2 each
  const std::vector<__half> x = random_half(m * k), w1 = random_half(dual_n * k),
                            w2 = random_half(dual_n * k);
  const float x_global = 1.0f, w_global = 0.5f;  // decoded value = e2m1 * e4m3 scale * global scale
  struct Quantized {
    uint8_t* data;
    uint8_t* scales;
    int64_t rows;
  };
  auto quantize = [&](const std::vector<__half>& host, int64_t rows, float global_scale) {
    __half* src = device_copy_of(host);
    Quantized q{nullptr, nullptr, rows};
    CHECK_CUDA(cudaMalloc(&q.data, static_cast<size_t>(rows * k / 2)));
    CHECK_CUDA(cudaMalloc(&q.scales, static_cast<size_t>(bwgemm::blocked_scale_bytes(rows, k / 16))));
    CHECK_BWGEMM(bwgemm::quantize_nvfp4(src, rows, k, 1, k, global_scale, q.data, q.scales, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_CUDA(cudaFree(src));
    return q;
  };
  const Quantized qx = quantize(x, m, x_global), qw1 = quantize(w1, dual_n, w_global),
                  qw2 = quantize(w2, dual_n, w_global);
  __half* dc = nullptr;
  CHECK_CUDA(cudaMalloc(&dc, static_cast<size_t>(m * dual_n) * sizeof(__half)));

  bwgemm::Nvfp4DualGemmArguments<__half> dual_args;
  dual_args.m = m, dual_args.n = dual_n, dual_args.k = k;
  dual_args.a = {qx.data, qx.scales}, dual_args.b1 = {qw1.data, qw1.scales},
  dual_args.b2 = {qw2.data, qw2.scales};
  dual_args.c = dc;
  dual_args.alpha1 = dual_args.alpha2 = x_global * w_global;
  CHECK_CUDA(cudaEventRecord(start, stream));
  CHECK_BWGEMM(bwgemm::dual_gemm_nvfp4(dual_args, stream));
  CHECK_CUDA(cudaEventRecord(stop, stream));
  CHECK_CUDA(cudaDeviceSynchronize());
  float dual_ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&dual_ms, start, stop));

  // The reference reads the quantized operands the device produced.
  auto host_matrix = [&](const Quantized& q, std::vector<uint8_t>* data, std::vector<uint8_t>* scales) {
    *data = host_copy_of(q.data, static_cast<size_t>(q.rows * k / 2));
    *scales = host_copy_of(q.scales, static_cast<size_t>(bwgemm::blocked_scale_bytes(q.rows, k / 16)));
    return bwgemm::ref::Nvfp4Matrix{data->data(), scales->data(), q.rows, k};
  };
  std::vector<uint8_t> hx, hxs, hw1, hw1s, hw2, hw2s;
  const bwgemm::ref::Nvfp4Matrix rx = host_matrix(qx, &hx, &hxs), rw1 = host_matrix(qw1, &hw1, &hw1s),
                                 rw2 = host_matrix(qw2, &hw2, &hw2s);
  std::vector<__half> want_c(static_cast<size_t>(m * dual_n));
  bwgemm::ref::nvfp4_dual_gemm_silu(rx, rw1, rw2, 1, dual_args.alpha1, dual_args.alpha2, want_c.data(),
                                    dual_n);
  double dual_err = 0;
  // Products of e2m1 x e4m3 values are exact in fp32; only the summation order differs: as for the GEMM.
  const int64_t dual_bad = count_outside(host_copy_of(dc, want_c.size()), want_c, 2.0 * 0x1p-11,
                                         1e-6 * static_cast<double>(k), &dual_err);
  std::printf(
      "nvfp4 dual gemm %lld x %lld x %lld: %lld of %lld outside 2 fp16 ulps, max |d| = %.3g, %.1f ms\n",
      static_cast<long long>(m), static_cast<long long>(dual_n), static_cast<long long>(k),
      static_cast<long long>(dual_bad), static_cast<long long>(want_c.size()), dual_err, dual_ms);

  for (void* p :
       {static_cast<void*>(da), static_cast<void*>(db), static_cast<void*>(dd), static_cast<void*>(dc),
        static_cast<void*>(qx.data), static_cast<void*>(qx.scales), static_cast<void*>(qw1.data),
        static_cast<void*>(qw1.scales), static_cast<void*>(qw2.data), static_cast<void*>(qw2.scales)})
    CHECK_CUDA(cudaFree(p));
  CHECK_CUDA(cudaEventDestroy(start));
  CHECK_CUDA(cudaEventDestroy(stop));
  CHECK_CUDA(cudaStreamDestroy(stream));
  return gemm_bad == 0 && dual_bad == 0 ? 0 : 1;
}
