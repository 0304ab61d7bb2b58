// Host references for NVFP4 block-scaled GEMM and the gated dual GEMM:
//   D[m, n, l]  = alpha * sum_k A[m, k, l] * B[n, k, l]                              (fp32 out)
//   D[m, n, l]  = alpha * sum_k A*B + beta * C[m, n, l]                             (fp32, fp16, bf16 out)
//   C[m, n, l]  = silu(alpha1 * sum_k A*B1) * (alpha2 * sum_k A*B2),  silu(x) = x / (1 + e^-x)
// Operands are NVFP4 (packed K-major e2m1, element 2i in the low nibble; 128x4 blocked e4m3
// scales; batch outermost), decoded through the formats layer; fp32 accumulation; C in fp16 or
// bf16 (round to nearest even) with row stride ldc and batch stride ldc * m.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "bwgemm/formats/nvfp4.cuh"
#include "bwgemm/reference/gemm.hpp"
#include "bwgemm/reference/parallel.hpp"

namespace bwgemm::ref {

// One NVFP4 operand: `rows` x `k` per batch.
struct Nvfp4Matrix {
  const uint8_t* data = nullptr;    // batch * rows * k / 2 bytes
  const uint8_t* scales = nullptr;  // blocked_scale_bytes(rows, k / 16, batch) bytes
  int64_t rows = 0;
  int64_t k = 0;
};

// Decodes batch l of an NVFP4 operand into rows x k fp32.
inline void decode_nvfp4(const Nvfp4Matrix& x, int64_t l, float* out) {
  for (int64_t r = 0; r < x.rows; ++r)
    for (int64_t kk = 0; kk < x.k; ++kk)
      out[r * x.k + kk] = nvfp4_element(x.data, x.scales, r, kk, l, x.rows, x.k);
}

inline float silu(float x) {
  return x / (1.0f + std::exp(-x));
}

// D (fp32, m x n row-major per batch, row stride n) = alpha * A * B^T.
inline void nvfp4_gemm(const Nvfp4Matrix& a, const Nvfp4Matrix& b, int64_t batch, float alpha, float* d,
                       int threads = 0) {
  const int64_t m = a.rows, n = b.rows, k = a.k;
  std::vector<float> fa(static_cast<size_t>(m * k)), fb(static_cast<size_t>(n * k));
  for (int64_t l = 0; l < batch; ++l) {
    decode_nvfp4(a, l, fa.data());
    decode_nvfp4(b, l, fb.data());
    parallel_for_chunks(m, 16, threads, [&](int64_t r0, int64_t r1) {
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = r0; i < r1; ++i) d[(l * m + i) * n + j] = alpha * dot_f32(&fa[i * k], &fb[j * k], k);
    });
  }
}

// D = alpha * A * B^T + beta * C, TOut = float, __half or __nv_bfloat16 (round to nearest even), D with row
// stride ldd and batch stride ldd * m, C (read only when beta != 0) with ldc and ldc * m. The fp32 value
// alpha * acc + beta * c is formed as two rounded products and a rounded sum.
template <class TOut>
void nvfp4_gemm_linear(const Nvfp4Matrix& a, const Nvfp4Matrix& b, int64_t batch, float alpha, float beta,
                       const TOut* c, int64_t ldc, TOut* d, int64_t ldd, int threads = 0) {
  const int64_t m = a.rows, n = b.rows, k = a.k;
  std::vector<float> fa(static_cast<size_t>(m * k)), fb(static_cast<size_t>(n * k));
  for (int64_t l = 0; l < batch; ++l) {
    decode_nvfp4(a, l, fa.data());
    decode_nvfp4(b, l, fb.data());
    parallel_for_chunks(m, 16, threads, [&](int64_t r0, int64_t r1) {
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = r0; i < r1; ++i) {
          const float scaled = alpha * dot_f32(&fa[i * k], &fb[j * k], k);
          const float source = beta != 0.0f ? beta * to_float(c[(l * m + i) * ldc + j]) : 0.0f;
          d[(l * m + i) * ldd + j] = from_float<TOut>(scaled + source);
        }
    });
  }
}

// C = silu(alpha1 * A B1^T) * (alpha2 * A B2^T), TOut = __half or __nv_bfloat16.
template <class TOut>
void nvfp4_dual_gemm_silu(const Nvfp4Matrix& a, const Nvfp4Matrix& b1, const Nvfp4Matrix& b2, int64_t batch,
                          float alpha1, float alpha2, TOut* c, int64_t ldc, int threads = 0) {
  const int64_t m = a.rows, n = b1.rows, k = a.k;
  std::vector<float> fa(static_cast<size_t>(m * k)), fb1(static_cast<size_t>(n * k)),
      fb2(static_cast<size_t>(n * k));
  for (int64_t l = 0; l < batch; ++l) {
    decode_nvfp4(a, l, fa.data());
    decode_nvfp4(b1, l, fb1.data());
    decode_nvfp4(b2, l, fb2.data());
    parallel_for_chunks(m, 16, threads, [&](int64_t r0, int64_t r1) {
      for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = r0; i < r1; ++i) {
          const float x = alpha1 * dot_f32(&fa[i * k], &fb1[j * k], k);
          const float y = alpha2 * dot_f32(&fa[i * k], &fb2[j * k], k);
          c[(l * m + i) * ldc + j] = from_float<TOut>(silu(x) * y);
        }
      }
    });
  }
}

}  // namespace bwgemm::ref
