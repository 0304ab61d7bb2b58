#include "cublaslt.hpp"

#include <initializer_list>

namespace bwgemm::bench {
namespace {

std::string describe(const LtMatmulShape& s) {
  return "m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) + " k=" + std::to_string(s.k) +
         " op(A)=" + (s.trans_a == CUBLAS_OP_T ? "T" : "N") +
         " op(B)=" + (s.trans_b == CUBLAS_OP_T ? "T" : "N") + " A/B type " +
         std::to_string(static_cast<int>(s.ab_type)) + ", D type " +
         std::to_string(static_cast<int>(s.d_type)) + (s.vec16_ue4m3_scales ? ", VEC16_UE4M3 scales" : "");
}

template <class T>
void set_desc(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attribute, const T& value) {
  BWGEMM_BENCH_CUBLAS(cublasLtMatmulDescSetAttribute(desc, attribute, &value, sizeof(value)));
}

}  // namespace

LtMatmul::LtMatmul(cublasLtHandle_t handle, const LtMatmulShape& shape, size_t workspace_bytes,
                   const void* a_scales, const void* b_scales)
    : handle_(handle), shape_(shape), workspace_bytes_(workspace_bytes) {
  cublasLtMatmulPreference_t preference = nullptr;
  try {
    BWGEMM_BENCH_CUBLAS(cublasLtMatmulDescCreate(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    set_desc(desc_, CUBLASLT_MATMUL_DESC_TRANSA, shape.trans_a);
    set_desc(desc_, CUBLASLT_MATMUL_DESC_TRANSB, shape.trans_b);
    if (shape.vec16_ue4m3_scales) {
#if BWGEMM_BENCH_HAVE_CUBLASLT_NVFP4
      if (!shape.omit_scale_mode_for_negative_control) {
        const int32_t mode = CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3;
        set_desc(desc_, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, mode);
        set_desc(desc_, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, mode);
      }
      set_scale_pointers(a_scales, b_scales);
#else
      (void)a_scales;
      (void)b_scales;
      throw BenchError("NVFP4 block scales need cuBLAS 12.8 or newer at build time");
#endif
    }
    // Stored (not op()) shapes: op(A) = T means A is stored k x m.
    const bool a_t = shape.trans_a == CUBLAS_OP_T, b_t = shape.trans_b == CUBLAS_OP_T;
    BWGEMM_BENCH_CUBLAS(cublasLtMatrixLayoutCreate(&layout_a_, shape.ab_type, a_t ? shape.k : shape.m,
                                                   a_t ? shape.m : shape.k, shape.lda));
    BWGEMM_BENCH_CUBLAS(cublasLtMatrixLayoutCreate(&layout_b_, shape.ab_type, b_t ? shape.n : shape.k,
                                                   b_t ? shape.k : shape.n, shape.ldb));
    BWGEMM_BENCH_CUBLAS(cublasLtMatrixLayoutCreate(&layout_d_, shape.d_type, shape.m, shape.n, shape.ldd));

    BWGEMM_BENCH_CUBLAS(cublasLtMatmulPreferenceCreate(&preference));
    BWGEMM_BENCH_CUBLAS(cublasLtMatmulPreferenceSetAttribute(
        preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes, sizeof(workspace_bytes)));
    if (shape.min_alignment_bytes > 0) {
      const uint32_t alignment = static_cast<uint32_t>(shape.min_alignment_bytes);
      for (cublasLtMatmulPreferenceAttributes_t attribute :
           {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
            CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES})
        BWGEMM_BENCH_CUBLAS(
            cublasLtMatmulPreferenceSetAttribute(preference, attribute, &alignment, sizeof(alignment)));
    }
    cublasLtMatmulHeuristicResult_t result{};
    int returned = 0;
    BWGEMM_BENCH_CUBLAS(cublasLtMatmulAlgoGetHeuristic(handle, desc_, layout_a_, layout_b_, layout_d_,
                                                       layout_d_, preference, 1, &result, &returned));
    if (returned == 0) throw BenchError("cuBLASLt's heuristic returned no algorithm for " + describe(shape));
    algo_ = result.algo;
    cublasLtMatmulPreferenceDestroy(preference);
  } catch (...) {
    if (preference != nullptr) cublasLtMatmulPreferenceDestroy(preference);
    release();
    throw;
  }
}

LtMatmul::~LtMatmul() {
  release();
}

void LtMatmul::release() {
  if (layout_d_ != nullptr) cublasLtMatrixLayoutDestroy(layout_d_);
  if (layout_b_ != nullptr) cublasLtMatrixLayoutDestroy(layout_b_);
  if (layout_a_ != nullptr) cublasLtMatrixLayoutDestroy(layout_a_);
  if (desc_ != nullptr) cublasLtMatmulDescDestroy(desc_);
  layout_a_ = layout_b_ = layout_d_ = nullptr;
  desc_ = nullptr;
}

void LtMatmul::set_scale_pointers(const void* a_scales, const void* b_scales) const {
#if BWGEMM_BENCH_HAVE_CUBLASLT_NVFP4
  set_desc(desc_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, a_scales);
  set_desc(desc_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, b_scales);
#else
  (void)a_scales;
  (void)b_scales;
#endif
}

void LtMatmul::run(const void* a, const void* b, void* d, void* workspace, cudaStream_t stream,
                   const void* a_scales, const void* b_scales, float alpha) const {
  // The descriptor is host-side state read when cublasLtMatmul enqueues, so the scale pointers of
  // the operand set in use can be set call by call (and are baked into a captured graph).
  if (shape_.vec16_ue4m3_scales) set_scale_pointers(a_scales, b_scales);
  const float beta = 0.0f;
  BWGEMM_BENCH_CUBLAS(cublasLtMatmul(handle_, desc_, &alpha, a, layout_a_, b, layout_b_, &beta, d, layout_d_,
                                     d, layout_d_, &algo_, workspace, workspace_bytes_, stream));
}

}  // namespace bwgemm::bench
