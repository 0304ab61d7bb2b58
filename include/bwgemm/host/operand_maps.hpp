// The tensor maps of the GEMM operands as the backends load and store them: 16-bit matrices (rank 3: inner,
// outer, batch), outputs for TMA stores, packed e2m1 data and blocked e4m3 scales. Host code; the
// validation in encode_tensor_map (host/tensor_map.hpp) applies to each.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "bwgemm/base/int_math.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/formats/scale_layout.cuh"
#include "bwgemm/host/tensor_map.hpp"

namespace bwgemm::detail {

template <class In>
constexpr TensorMapDataType gemm_tensor_map_type() {
  return std::is_same_v<In, __half> ? TensorMapDataType::kFloat16 : TensorMapDataType::kBFloat16;
}

// A rank-3 tensor map (inner, outer, batch) of 16-bit elements with row stride `ld` and batch stride
// `batch_stride` (elements), box (box_inner, box_outer, 1); out-of-bounds elements (the M, N and K tails)
// read as zero.
inline Status gemm_operand_map(TensorMapDataType type, const void* data, int64_t inner, int64_t outer,
                               int64_t batch, int64_t ld, int64_t batch_stride, uint32_t box_inner,
                               uint32_t box_outer, TensorMapSwizzle swizzle, CUtensorMap* out,
                               TensorMapL2Promotion l2_promotion = TensorMapL2Promotion::kNone) {
  TensorMapDesc d;
  d.data_type = type;
  d.rank = 3;
  d.global_address = data;
  d.global_dims[0] = static_cast<uint64_t>(inner);
  d.global_dims[1] = static_cast<uint64_t>(outer);
  d.global_dims[2] = static_cast<uint64_t>(batch);
  d.global_strides_bytes[0] = static_cast<uint64_t>(ld) * 2;
  d.global_strides_bytes[1] = static_cast<uint64_t>(batch_stride) * 2;
  d.box_dims[0] = box_inner;
  d.box_dims[1] = box_outer;
  d.box_dims[2] = 1;
  d.swizzle = swizzle;
  d.l2_promotion = l2_promotion;
  d.oob_fill = TensorMapOobFill::kZero;
  return encode_tensor_map(d, out);
}

// A K x N row-major operand (N contiguous, row stride ld) as a rank-4 map of column chunks: (chunk_columns,
// K, N / chunk_columns, batch) with strides (ld, chunk_columns, batch_stride) elements and box
// (chunk_columns, box_k, box_chunks, 1), so that one TMA load brings box_chunks chunks of chunk_columns
// columns x box_k rows, one after the other in shared memory (seed 004's B map: the chunk dimension's
// stride, chunk_columns elements, is below the row stride). N must be a multiple of chunk_columns: the
// chunk dimension clips whole chunks only, so a partial chunk would read past the row instead of zeros.
inline Status gemm_mn_chunked_map(TensorMapDataType type, const void* data, int64_t n, int64_t k,
                                  int64_t batch, int64_t ld, int64_t batch_stride, uint32_t chunk_columns,
                                  uint32_t box_k, uint32_t box_chunks, TensorMapSwizzle swizzle,
                                  CUtensorMap* out) {
  TensorMapDesc d;
  d.data_type = type;
  d.rank = 4;
  d.global_address = data;
  d.global_dims[0] = chunk_columns;
  d.global_dims[1] = static_cast<uint64_t>(k);
  d.global_dims[2] = static_cast<uint64_t>(n) / chunk_columns;
  d.global_dims[3] = static_cast<uint64_t>(batch);
  d.global_strides_bytes[0] = static_cast<uint64_t>(ld) * 2;
  d.global_strides_bytes[1] = static_cast<uint64_t>(chunk_columns) * 2;
  d.global_strides_bytes[2] = static_cast<uint64_t>(batch_stride) * 2;
  d.box_dims[0] = chunk_columns;
  d.box_dims[1] = box_k;
  d.box_dims[2] = box_chunks;
  d.box_dims[3] = 1;
  d.swizzle = swizzle;
  d.oob_fill = TensorMapOobFill::kZero;
  return encode_tensor_map(d, out);
}

// The TMA-store map of D: (N, M, batch) of Out with row stride ldd and batch stride batch_stride_d
// (elements), box (box_inner, box_outer, 1), swizzled over `swizzle_bytes` (128, or 64 where the kernel's
// staging boxes are 64-byte rows). Stores clip at N and M.
template <class Out>
Status gemm_output_map(const Out* data, int64_t n, int64_t m, int64_t batch, int64_t ldd,
                       int64_t batch_stride, uint32_t box_inner, uint32_t box_outer, CUtensorMap* out,
                       int swizzle_bytes = 128) {
  TensorMapDesc d;
  d.data_type = std::is_same_v<Out, float>    ? TensorMapDataType::kFloat32
                : std::is_same_v<Out, __half> ? TensorMapDataType::kFloat16
                                              : TensorMapDataType::kBFloat16;
  d.rank = 3;
  d.global_address = data;
  d.global_dims[0] = static_cast<uint64_t>(n);
  d.global_dims[1] = static_cast<uint64_t>(m);
  d.global_dims[2] = static_cast<uint64_t>(batch);
  d.global_strides_bytes[0] = static_cast<uint64_t>(ldd) * sizeof(Out);
  d.global_strides_bytes[1] = static_cast<uint64_t>(batch_stride) * sizeof(Out);
  d.box_dims[0] = box_inner;
  d.box_dims[1] = box_outer;
  d.box_dims[2] = 1;
  d.swizzle = swizzle_bytes == 64 ? TensorMapSwizzle::k64B : TensorMapSwizzle::k128B;
  d.oob_fill = TensorMapOobFill::kZero;
  return encode_tensor_map(d, out);
}

// Packed e2m1 operand of `rows` x k per batch as a rank-3 tensor map (K, rows, batch), the batches
// batch_stride_bytes apart (0: packed, rows · k / 2).
inline Status nvfp4_data_map(const void* data, int64_t rows, int64_t k, int64_t batch, uint32_t box_rows,
                             CUtensorMap* out, int64_t batch_stride_bytes = 0) {
  TensorMapDesc d;
  d.data_type = TensorMapDataType::kFp4E2M1Packed;
  d.rank = 3;
  d.global_address = data;
  d.global_dims[0] = static_cast<uint64_t>(k);
  d.global_dims[1] = static_cast<uint64_t>(rows);
  d.global_dims[2] = static_cast<uint64_t>(batch);
  d.global_strides_bytes[0] = static_cast<uint64_t>(k / 2);
  d.global_strides_bytes[1] =
      static_cast<uint64_t>(batch_stride_bytes != 0 ? batch_stride_bytes : rows * k / 2);
  d.box_dims[0] = 256;  // one 128-byte swizzle row of fp4
  d.box_dims[1] = box_rows;
  d.box_dims[2] = 1;
  d.swizzle = TensorMapSwizzle::k128B;
  return encode_tensor_map(d, out);
}

// Blocked scales of a `rows` x k operand as 16-bit words: (256 words = one 512-byte atom, K/64 atoms,
// row blocks of 128, batch), the batches batch_stride_bytes apart (0: packed, blocked_scale_bytes(rows,
// k / 16)); a box is the 4 atoms (256 K elements) of one row block.
inline Status nvfp4_scale_map(const void* scales, int64_t rows, int64_t k, int64_t batch, CUtensorMap* out,
                              int64_t batch_stride_bytes = 0) {
  const int64_t k_atoms = ceil_div(k / kNvfp4BlockSize, kScaleAtomCols);
  const int64_t row_blocks = ceil_div(rows, kScaleAtomRows);
  TensorMapDesc d;
  d.data_type = TensorMapDataType::kUInt16;
  d.rank = 4;
  d.global_address = scales;
  d.global_dims[0] = kScaleAtomBytes / 2;
  d.global_dims[1] = static_cast<uint64_t>(k_atoms);
  d.global_dims[2] = static_cast<uint64_t>(row_blocks);
  d.global_dims[3] = static_cast<uint64_t>(batch);
  d.global_strides_bytes[0] = kScaleAtomBytes;
  d.global_strides_bytes[1] = static_cast<uint64_t>(k_atoms * kScaleAtomBytes);
  d.global_strides_bytes[2] = static_cast<uint64_t>(
      batch_stride_bytes != 0 ? batch_stride_bytes : row_blocks * k_atoms * kScaleAtomBytes);
  d.box_dims[0] = kScaleAtomBytes / 2;
  d.box_dims[1] = 4;  // 4 atoms = 256 K elements, one stage
  d.box_dims[2] = 1;
  d.box_dims[3] = 1;
  d.swizzle = TensorMapSwizzle::kNone;
  return encode_tensor_map(d, out);
}

}  // namespace bwgemm::detail
