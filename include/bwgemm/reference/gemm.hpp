// Host reference GEMM: D = alpha * A * B + beta * C, fp32 accumulation.
//   A: m x k row-major (fp16, bf16 or fp32), row stride lda.
//   B: k x n row-major (BLayout::kRowMajorKxN, row stride ldb >= n) or
//      n x k K-major (BLayout::kColumnMajorKxN, i.e. B^T row-major, row stride ldb >= k).
//   C, D: m x n row-major (fp16, bf16 or fp32). beta == 0 (or c == nullptr) reads no C.
// Batches are `batch` problems at the given element strides. Threaded over rows.
#pragma once

#include <cstdint>
#include <vector>

#include "bwgemm/base/layout.hpp"
#include "bwgemm/formats/nvfp4.cuh"
#include "bwgemm/reference/parallel.hpp"

namespace bwgemm::ref {

using ::bwgemm::BLayout;  // bwgemm/base/layout.hpp

inline float to_float(float x) {
  return x;
}
inline float to_float(__half x) {
  return bwgemm::to_f32(x);
}
inline float to_float(__nv_bfloat16 x) {
  return bwgemm::to_f32(x);
}

template <class T>
T from_float(float x);
template <>
inline float from_float<float>(float x) {
  return x;
}
template <>
inline __half from_float<__half>(float x) {
  __half_raw r;
  r.x = f32_to_f16_bits(x);
  return __half(r);
}
template <>
inline __nv_bfloat16 from_float<__nv_bfloat16>(float x) {
  __nv_bfloat16_raw r;
  r.x = f32_to_bf16_bits(x);
  return __nv_bfloat16(r);
}

// The host reference's GEMM arguments: the fields, defaults and zero-means-packed rule of
// bwgemm::GemmArguments (D = alpha A·B + beta C, C read only when beta != 0).
template <class TA, class TB, class TD>
struct GemmArgs {
  int64_t m = 0, n = 0, k = 0, batch = 1;
  const TA* a = nullptr;
  int64_t lda = 0, batch_stride_a = 0;
  const TB* b = nullptr;
  BLayout b_layout = BLayout::kRowMajorKxN;  // GemmArguments' default
  int64_t ldb = 0, batch_stride_b = 0;
  const TD* c = nullptr;
  int64_t ldc = 0, batch_stride_c = 0;
  TD* d = nullptr;
  int64_t ldd = 0, batch_stride_d = 0;
  float alpha = 1.0f, beta = 0.0f;
};

// The fields mean what GemmArguments' mean, zeros included: a leading dimension or batch stride of 0 is the
// packed one (detail::gemm_strides, base/layout.hpp).
template <class TA, class TB, class TD>
void gemm(const GemmArgs<TA, TB, TD>& args, int threads = 0) {
  GemmArgs<TA, TB, TD> p = args;
  const detail::GemmStrides st = detail::gemm_strides(args);
  p.lda = st.lda, p.ldb = st.ldb, p.ldc = st.ldc, p.ldd = st.ldd;
  p.batch_stride_a = st.batch_stride_a, p.batch_stride_b = st.batch_stride_b;
  p.batch_stride_c = st.batch_stride_c, p.batch_stride_d = st.batch_stride_d;
  constexpr int64_t kRowTile = 16;  // rows of A that share one pass over B (keeps B reads cache-friendly)
  std::vector<float> bt(static_cast<size_t>(p.n * p.k));
  for (int64_t l = 0; l < p.batch; ++l) {
    const TB* b = p.b + l * p.batch_stride_b;
    for (int64_t j = 0; j < p.n; ++j)  // B as n x k fp32 rows
      for (int64_t kk = 0; kk < p.k; ++kk)
        bt[j * p.k + kk] =
            to_float(p.b_layout == BLayout::kRowMajorKxN ? b[kk * p.ldb + j] : b[j * p.ldb + kk]);
    parallel_for_chunks(p.m, kRowTile, threads, [&](int64_t row_begin, int64_t row_end) {
      std::vector<float> a_rows(static_cast<size_t>((row_end - row_begin) * p.k));
      for (int64_t i = row_begin; i < row_end; ++i)
        for (int64_t kk = 0; kk < p.k; ++kk)
          a_rows[(i - row_begin) * p.k + kk] = to_float(p.a[l * p.batch_stride_a + i * p.lda + kk]);
      for (int64_t j = 0; j < p.n; ++j) {
        for (int64_t i = row_begin; i < row_end; ++i) {
          const float acc = dot_f32(&a_rows[(i - row_begin) * p.k], &bt[j * p.k], p.k);
          float out = p.alpha * acc;
          if (p.beta != 0.0f && p.c != nullptr)
            out += p.beta * to_float(p.c[l * p.batch_stride_c + i * p.ldc + j]);
          p.d[l * p.batch_stride_d + i * p.ldd + j] = from_float<TD>(out);
        }
      }
    });
  }
}

}  // namespace bwgemm::ref
