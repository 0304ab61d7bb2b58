// Integer helpers every layer shares (tile counts, padded sizes, aligned addresses).
#pragma once

#include <cstdint>

#include "bwgemm/base/macros.hpp"

namespace bwgemm {

BWGEMM_HD constexpr int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}
BWGEMM_HD constexpr int64_t round_up(int64_t a, int64_t b) {
  return ceil_div(a, b) * b;
}
BWGEMM_HD constexpr uint32_t round_up_u32(uint32_t x, uint32_t a) {
  return (x + a - 1) / a * a;
}

// Overflow-checked int64 arithmetic for the host-side argument checks: false (and *out untouched) when the
// exact result does not fit int64.
inline bool checked_mul(int64_t a, int64_t b, int64_t* out) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return false;
  *out = r;
  return true;
}
inline bool checked_add(int64_t a, int64_t b, int64_t* out) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return false;
  *out = r;
  return true;
}

// The bytes a strided matrix spans from its first element: `batch` batches `batch_stride` elements apart,
// each `rows` rows `ld` elements apart of `cols` elements of `elem_bytes` bytes:
// ((batch - 1) · batch_stride + (rows - 1) · ld + cols) · elem_bytes. All arguments >= 1 (strides >= 0).
// False when the span does not fit int64.
inline bool span_bytes(int64_t rows, int64_t cols, int64_t ld, int64_t batch, int64_t batch_stride,
                       int64_t elem_bytes, int64_t* out) {
  int64_t batch_part, row_part, elems;
  return checked_mul(batch - 1, batch_stride, &batch_part) && checked_mul(rows - 1, ld, &row_part) &&
         checked_add(batch_part, row_part, &elems) && checked_add(elems, cols, &elems) &&
         checked_mul(elems, elem_bytes, out);
}

}  // namespace bwgemm
