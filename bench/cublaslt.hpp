// One cuBLASLt matmul configuration: operation descriptor, matrix layouts, workspace limit and the
// algorithm cuBLASLt's heuristic ranks first (what a framework calling cuBLASLt gets by default).
//
// cuBLASLt is column-major: D (m x n, leading dimension ldd) = op(A) * op(B) with op(A) m x k and
// op(B) k x n. The benchmarks keep everything row-major (C is M x N with row stride N), which is
// the column-major N x M matrix C^T = B^T A^T; so every caller passes cuBLASLt m = N, n = M and
// swaps the operands: cuBLASLt's A is bwgemm's B, cuBLASLt's B is bwgemm's A (see baselines.cpp).
#pragma once

#include <cublasLt.h>

#include <cstdint>
#include <string>

#include "common.hpp"

// CUDA_R_4F_E2M1, CUBLASLT_MATMUL_DESC_{A,B}_SCALE_MODE and CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3
// appeared in cuBLAS 12.8.
#if CUBLAS_VERSION >= 120800
#define BWGEMM_BENCH_HAVE_CUBLASLT_NVFP4 1
#else
#define BWGEMM_BENCH_HAVE_CUBLASLT_NVFP4 0
#endif

namespace bwgemm::bench {

// cuBLAS documentation (cublasSetWorkspace): 32 MiB is the recommended workspace on Hopper and newer.
inline constexpr size_t kCublasWorkspaceBytes = size_t{32} << 20;

struct LtMatmulShape {
  cublasOperation_t trans_a = CUBLAS_OP_N;
  cublasOperation_t trans_b = CUBLAS_OP_N;
  int64_t m = 0, n = 0, k = 0;
  cudaDataType_t ab_type = CUDA_R_16F;  // A and B element type
  cudaDataType_t d_type = CUDA_R_16F;   // C (unused, beta = 0) and D element type
  int64_t lda = 0, ldb = 0, ldd = 0;    // in elements (fp4 elements for CUDA_R_4F_E2M1)
  // NVFP4: A and B carry one e4m3 scale per 16 consecutive K elements in the 128x4 blocked layout
  // (CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3). Without this mode cuBLASLt reads a scale pointer as
  // one fp32 scalar and silently computes something else (reference/performance.md).
  bool vec16_ue4m3_scales = false;
  // Negative control only: set the scale pointers but not the scale mode (the silent failure above).
  bool omit_scale_mode_for_negative_control = false;
  // The least alignment (bytes) of the A, B and D pointers run() will get; 0: cuBLASLt's default assumption
  // (256). The heuristic then ranks only algorithms that work with it (CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_*):
  // the mixture-of-experts loops pass pointers into the middle of a buffer (bench/moe_baselines.cpp).
  int64_t min_alignment_bytes = 0;
};

class LtMatmul {
 public:
  // a_scales / b_scales: any valid scale buffers of the right size (the heuristic sees them);
  // run() sets the ones to use for each call.
  LtMatmul(cublasLtHandle_t handle, const LtMatmulShape& shape, size_t workspace_bytes,
           const void* a_scales = nullptr, const void* b_scales = nullptr);
  LtMatmul(const LtMatmul&) = delete;
  LtMatmul& operator=(const LtMatmul&) = delete;
  ~LtMatmul();

  // D = alpha A * B (beta 0) on `stream`. workspace: at least the bytes given to the constructor.
  void run(const void* a, const void* b, void* d, void* workspace, cudaStream_t stream,
           const void* a_scales = nullptr, const void* b_scales = nullptr, float alpha = 1.0f) const;

 private:
  void set_scale_pointers(const void* a_scales, const void* b_scales) const;
  void release();

  cublasLtHandle_t handle_;
  LtMatmulShape shape_;
  size_t workspace_bytes_;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t layout_a_ = nullptr, layout_b_ = nullptr, layout_d_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
};

}  // namespace bwgemm::bench
