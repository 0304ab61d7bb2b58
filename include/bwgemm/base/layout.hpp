// Operand layouts shared by the public GEMM API (gemm.cuh), the host reference (reference/gemm.hpp) and the
// benchmarks. Pure C++17.
#pragma once

#include <cstdint>

namespace bwgemm {

// How the K x N operand B of a GEMM D = A·B is stored.
enum class BLayout {
  kRowMajorKxN,     // B[k][n] at b[k * ldb + n], ldb >= N: N-major (GPU MODE matmul_v2, seed 004)
  kColumnMajorKxN,  // B[k][n] at b[n * ldb + k], ldb >= K: K-major, i.e. an N x K row-major matrix (the
                    // nn.Linear weight, "TN"; the NVFP4 and cuBLASLt FP4 layout)
};

namespace detail {

// A GEMM's leading dimensions and batch strides (elements) with the zeros of its arguments resolved, the
// one rule the entry points and the host reference share: 0 means packed (lda = K; ldb = N for K x N B, K for
// N x K; ldc = ldd = N; a batch stride = rows x leading dimension). Args has the fields of GemmArguments.
struct GemmStrides {
  int64_t lda, ldb, ldc, ldd, batch_stride_a, batch_stride_b, batch_stride_c, batch_stride_d;
};

template <class Args>
GemmStrides gemm_strides(const Args& a) {
  GemmStrides s{};
  const bool kxn = a.b_layout == BLayout::kRowMajorKxN;
  s.lda = a.lda == 0 ? a.k : a.lda;
  s.ldb = a.ldb == 0 ? (kxn ? a.n : a.k) : a.ldb;
  s.ldc = a.ldc == 0 ? a.n : a.ldc;
  s.ldd = a.ldd == 0 ? a.n : a.ldd;
  s.batch_stride_a = a.batch_stride_a == 0 ? a.m * s.lda : a.batch_stride_a;
  s.batch_stride_b = a.batch_stride_b == 0 ? (kxn ? a.k : a.n) * s.ldb : a.batch_stride_b;
  s.batch_stride_c = a.batch_stride_c == 0 ? a.m * s.ldc : a.batch_stride_c;
  s.batch_stride_d = a.batch_stride_d == 0 ? a.m * s.ldd : a.batch_stride_d;
  return s;
}

}  // namespace detail

}  // namespace bwgemm
