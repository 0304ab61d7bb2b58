// Host-side helpers the benchmark problems share (problems.cpp, moe_problems.cpp): copies of device rows, the
// sampled output as fp32, the host reference's dot products, and sampled rows of a device NVFP4 matrix for
// bwgemm::ref::nvfp4_gemm. Compiled by a host C++ compiler against the CUDA runtime (or the emulated one).
#pragma once

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "bwgemm/reference/gemm.hpp"
#include "bwgemm/reference/nvfp4_gemm.hpp"
#include "common.hpp"
#include "validate.hpp"

namespace bwgemm::bench {

inline constexpr uint8_t kNaNByte = 0xFF;           // 0xFFFF is a NaN in fp16 and in bf16
inline constexpr uint8_t kFp4MagnitudeMask = 0x77;  // clears the sign bit of both e2m1 nibbles
inline constexpr uint8_t kE4m3MagnitudeMask = 0x7F;

template <class T>
void copy_to_host(T* dst, const T* src, size_t count) {
  BWGEMM_BENCH_CUDA(cudaMemcpy(dst, src, count * sizeof(T), cudaMemcpyDeviceToHost));
}

// Rows `rows` (each `width` elements at row stride ld) of a device matrix, packed row after row.
template <class T>
std::vector<T> copy_rows(const T* src, int64_t ld, const std::vector<int64_t>& rows, int64_t width) {
  std::vector<T> out(rows.size() * static_cast<size_t>(width));
  for (size_t i = 0; i < rows.size(); ++i)
    copy_to_host(out.data() + i * width, src + rows[i] * ld, static_cast<size_t>(width));
  return out;
}

// The sampled elements of a device output (row-major, row stride ld) as fp32.
template <class T>
std::vector<float> gather_output(const T* d, int64_t ld, const OutputSample& sample) {
  const std::vector<T> rows = copy_rows(d, ld, sample.rows, ld);
  const int64_t cols = sample.cols();
  std::vector<float> out(sample.rows.size() * static_cast<size_t>(cols));
  for (size_t i = 0; i < sample.rows.size(); ++i)
    for (int64_t j = 0; j < cols; ++j) out[i * cols + j] = ref::to_float(rows[i * ld + sample.col(j)]);
  return out;
}

template <class T>
std::vector<float> abs_to_float(const std::vector<T>& x) {
  std::vector<float> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) out[i] = std::fabs(ref::to_float(x[i]));
  return out;
}

// sum_k a[i][k] b[j][k] for host A rows (S x K) and a K-major B block (w x K), via bwgemm::ref::gemm.
template <class T>
std::vector<float> reference_dot(const std::vector<T>& a_rows, const std::vector<T>& b_rows, int64_t s,
                                 int64_t w, int64_t k) {
  std::vector<float> out(static_cast<size_t>(s * w));
  ref::GemmArgs<T, T, float> args;
  args.m = s;
  args.n = w;
  args.k = k;
  args.a = a_rows.data();
  args.lda = k;
  args.b = b_rows.data();
  args.b_layout = ref::BLayout::kColumnMajorKxN;
  args.ldb = k;
  args.d = out.data();
  args.ldd = w;
  ref::gemm(args);
  return out;
}

// Sampled rows of an NVFP4 matrix on the host (sample_nvfp4_rows).
struct SampledNvfp4Rows {
  std::vector<uint8_t> data, scales, data_abs, scales_abs;
  int64_t rows = 0, k = 0;
  ref::Nvfp4Matrix matrix() const { return {data.data(), scales.data(), rows, k}; }
  ref::Nvfp4Matrix abs_matrix() const { return {data_abs.data(), scales_abs.data(), rows, k}; }
};

// The rows `rows` of a device NVFP4 matrix (m x K: packed data of K/2 bytes a row, blocked scales of m rows)
// as an s-row NVFP4 matrix on the host, and its magnitudes. Any rows: the scales are re-laid out through the
// formats layer (blocked -> plain -> pick rows -> blocked).
SampledNvfp4Rows sample_nvfp4_rows(const uint8_t* data, const uint8_t* scales, int64_t m, int64_t k,
                                   const std::vector<int64_t>& rows);

}  // namespace bwgemm::bench
