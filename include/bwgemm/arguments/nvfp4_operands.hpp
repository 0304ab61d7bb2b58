// The NVFP4 inputs every NVFP4 operation shares (the NVFP4 GEMM, arguments/nvfp4_gemm.hpp; the NVFP4 dual
// GEMM, arguments/nvfp4_dual_gemm.hpp): the operand (bwgemm::Nvfp4Tensor, bwgemm::nvfp4_tensor), its spans
// and the shape rule. Host code only. (An NVFP4 output's tensor and checks: arguments/nvfp4_output.hpp.)
//
// An operand is packed e2m1 K-major data (two per byte, element 2i in the low nibble; row r of a rows x K
// matrix is K/2 contiguous bytes; batch outermost) plus e4m3 scales, one per 16 K elements, in the 128x4
// blocked layout (docs/formats.md; bwgemm::quantize_nvfp4 produces both).
#pragma once

#include <cuda_fp4.h>
#include <cuda_fp8.h>

#include <cstdint>
#include <string>

#include "bwgemm/arguments/common.hpp"
#include "bwgemm/base/int_math.hpp"
#include "bwgemm/base/operand_span.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/formats/scale_layout.cuh"

namespace bwgemm {

// One NVFP4 operand in device memory.
struct Nvfp4Tensor {
  const void* data = nullptr;    // rows x K/2 bytes per batch (16-byte aligned)
  const void* scales = nullptr;  // blocked_scale_bytes(rows, K/16, batch) bytes (16-byte aligned)
};

// An Nvfp4Tensor from the toolkit's element types: packed e2m1 pairs (cuda_fp4.h, __nv_fp4x2_e2m1: element
// 2i in the low nibble, as bwgemm stores them) and e4m3 scales (cuda_fp8.h, __nv_fp8_e4m3) in the 128x4
// blocked layout. Any other pointer type (the scales and the data swapped, fp16 data, ue8m0 scales) does not
// compile (test/arguments/typed_operands). The aggregate form takes raw bytes (e.g. PyTorch's uint8 views).
inline Nvfp4Tensor nvfp4_tensor(const __nv_fp4x2_e2m1* data, const __nv_fp8_e4m3* scales) {
  return Nvfp4Tensor{data, scales};
}
template <class D, class S>
Nvfp4Tensor nvfp4_tensor(const D*, const S*) = delete;  // not e2m1 pairs and e4m3 scales

namespace detail {

// The spans of one NVFP4 operand of `rows` x k per batch (packed data: rows · K / 2 bytes; blocked scales:
// 512-byte atoms of 128 rows x 64 K), each batch's bytes a TMA stride below 2^40.
inline Status nvfp4_operand_spans(const Nvfp4Tensor& t, int64_t rows, int64_t k, int64_t batch,
                                  const char* data_name, const char* scales_name, OperandSpan* data,
                                  OperandSpan* scales) {
  int64_t data_batch = 0, atoms = 0, scale_batch = 0;
  const bool data_overflow = !checked_mul(rows, k / 2, &data_batch);
  if (Status s =
          check_batch_bytes_limit(data_name, "one batch (rows x K / 2 bytes)", data_batch, data_overflow);
      !s.ok())
    return s;
  const bool scales_overflow =
      !checked_mul(ceil_div(rows, kScaleAtomRows), ceil_div(k / kNvfp4BlockSize, kScaleAtomCols), &atoms) ||
      !checked_mul(atoms, kScaleAtomBytes, &scale_batch);
  if (Status s =
          check_batch_bytes_limit(scales_name, "one batch of blocked scales", scale_batch, scales_overflow);
      !s.ok())
    return s;
  if (Status s = strided_span(data_name, t.data, 1, data_batch, data_batch, batch, data_batch, 1, data);
      !s.ok())
    return s;
  return strided_span(scales_name, t.scales, 1, scale_batch, scale_batch, batch, scale_batch, 1, scales);
}

// M, N, K and the batch of every NVFP4 GEMM, dual or not: M >= 1, N a positive multiple of 16, K a positive
// multiple of 64, each within the extent limits.
inline Status validate_nvfp4_gemm_shape(int64_t m, int64_t n, int64_t k, int64_t batch) {
  if (m < 1) return Status::invalid_argument("M must be >= 1 (got " + str(m) + ")");
  if (n < 16 || n % 16 != 0)
    return Status::invalid_argument("N must be a positive multiple of 16 (got " + str(n) + ")");
  if (k < 64 || k % 64 != 0)
    return Status::invalid_argument("K must be a positive multiple of 64 (got " + str(k) + ")");
  return check_extents(m, n, k, batch);
}

}  // namespace detail
}  // namespace bwgemm
