// The 128x4 blocked layout of NVFP4 block scales (one e4m3 scale per 16 K elements).
//
// cuBLASLt calls it the "1D block scaling factors layout" (CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3),
// CUTLASS Sm1xxBlkScaledConfig, GPU MODE nvfp4 tasks `to_blocked`. A (rows x sf_cols x batch)
// scale matrix, sf_cols = K / 16, is cut into 512-byte atoms of 128 rows x 4 scale columns; the
// atoms are ordered scale-column-fastest, then row block, then batch; inside an atom the byte of
// (r, j) is (r % 32) * 16 + (r % 128) / 32 * 4 + j % 4. Rows pad to 128 and scale columns to 4
// (padding bytes are zero). This is the order tcgen05.cp .32x128b.warpx4 copies into tensor memory.
// docs/formats.md has a diagram.
#pragma once

#include <cstdint>
#include <cstring>

#include "bwgemm/base/int_math.hpp"
#include "bwgemm/base/macros.hpp"

namespace bwgemm {

inline constexpr int kNvfp4BlockSize = 16;  // K elements per e4m3 scale (NVFP4 "block16")
inline constexpr int kScaleAtomRows = 128;  // rows per 512-byte atom
inline constexpr int kScaleAtomCols = 4;    // scale columns (64 K elements) per atom
inline constexpr int kScaleAtomBytes = kScaleAtomRows * kScaleAtomCols;  // 512
inline constexpr int kScaleAtomRowGroup = 32;                            // rows per 16-byte line of an atom

// Byte offset of scale (row, sf_col, batch) in a blocked buffer for a rows x sf_cols matrix.
// The one function every producer and consumer of the layout calls.
BWGEMM_HD constexpr int64_t blocked_scale_offset(int64_t row, int64_t sf_col, int64_t batch, int64_t rows,
                                                 int64_t sf_cols) {
  const int64_t row_blocks = ceil_div(rows, kScaleAtomRows);
  const int64_t col_blocks = ceil_div(sf_cols, kScaleAtomCols);
  const int64_t atom = (batch * row_blocks + row / kScaleAtomRows) * col_blocks + sf_col / kScaleAtomCols;
  const int64_t in_atom = (row % kScaleAtomRowGroup) * 16 +
                          ((row % kScaleAtomRows) / kScaleAtomRowGroup) * kScaleAtomCols +
                          sf_col % kScaleAtomCols;
  return atom * kScaleAtomBytes + in_atom;
}

// Bytes of a blocked scale buffer for `batch` matrices of rows x sf_cols scales (padding included).
BWGEMM_HD constexpr int64_t blocked_scale_bytes(int64_t rows, int64_t sf_cols, int64_t batch = 1) {
  return batch * ceil_div(rows, kScaleAtomRows) * ceil_div(sf_cols, kScaleAtomCols) * kScaleAtomBytes;
}

// Plain (batch, rows, sf_cols) row-major scales -> blocked layout; padding bytes are set to zero.
inline void swizzle_scales_to_blocked(const uint8_t* plain, int64_t rows, int64_t sf_cols, int64_t batch,
                                      uint8_t* blocked) {
  std::memset(blocked, 0, static_cast<size_t>(blocked_scale_bytes(rows, sf_cols, batch)));
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < sf_cols; ++j)
        blocked[blocked_scale_offset(r, j, b, rows, sf_cols)] = plain[(b * rows + r) * sf_cols + j];
}

// Blocked layout -> plain (batch, rows, sf_cols) row-major scales (padding dropped).
inline void unswizzle_scales_from_blocked(const uint8_t* blocked, int64_t rows, int64_t sf_cols,
                                          int64_t batch, uint8_t* plain) {
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < sf_cols; ++j)
        plain[(b * rows + r) * sf_cols + j] = blocked[blocked_scale_offset(r, j, b, rows, sf_cols)];
}

}  // namespace bwgemm
