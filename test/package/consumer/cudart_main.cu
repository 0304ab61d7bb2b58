// A program written for the GPU (cudaMalloc, cudaMemcpy, bwgemm::gemm), built as host C++ against the
// installed emulated CUDA runtime bwgemm::emu_cudart: the sm_100a GEMM runs in the CPU emulator. Checks D
// against a host loop and that a host pointer is refused; prints "bwgemm emu_cudart: ... 0 wrong, host
// pointer refused".
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <bwgemm/gemm.cuh>

int main() {
  constexpr int m = 128, n = 128, k = 64;
  std::vector<__half> a(m * k), b(n * k), d(m * n);
  for (int i = 0; i < m * k; ++i) a[i] = __float2half(static_cast<float>(i % 7) - 3.0f);
  for (int i = 0; i < n * k; ++i) b[i] = __float2half(static_cast<float>(i % 5) - 2.0f);
  __half *da = nullptr, *db = nullptr, *dd = nullptr;
  if (cudaMalloc(&da, a.size() * sizeof(__half)) != cudaSuccess ||
      cudaMalloc(&db, b.size() * sizeof(__half)) != cudaSuccess ||
      cudaMalloc(&dd, d.size() * sizeof(__half)) != cudaSuccess)
    return std::fprintf(stderr, "cudaMalloc failed\n"), 1;
  cudaMemcpy(da, a.data(), a.size() * sizeof(__half), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), b.size() * sizeof(__half), cudaMemcpyHostToDevice);

  bwgemm::GemmArguments<__half> args;
  args.m = m, args.n = n, args.k = k;
  args.a = da, args.b = db, args.d = dd, args.b_layout = bwgemm::BLayout::kColumnMajorKxN;
  if (bwgemm::Status s = bwgemm::gemm(args); !s.ok())
    return std::fprintf(stderr, "%s\n", s.to_string().c_str()), 1;
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  cudaMemcpy(d.data(), dd, d.size() * sizeof(__half), cudaMemcpyDeviceToHost);

  // Small integers: every product and sum is exact in fp32 and the results (|x| <= 64 * 6 = 384) in fp16.
  int wrong = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float want = 0;
      for (int kk = 0; kk < k; ++kk) want += __half2float(a[i * k + kk]) * __half2float(b[j * k + kk]);
      wrong += __half2float(d[i * n + j]) != want;
    }

  args.a = a.data();  // host memory: refused, as on a GPU
  const bwgemm::Status refused = bwgemm::gemm(args);
  const bool named =
      refused.message().find("A of bwgemm::gemm is not device-accessible") != std::string::npos;
  std::printf("bwgemm emu_cudart: gemm %d x %d x %d, %d wrong, host pointer %s\n", m, n, k, wrong,
              named ? "refused" : "NOT refused");
  cudaFree(da), cudaFree(db), cudaFree(dd);
  return wrong == 0 && named ? 0 : 1;
}
