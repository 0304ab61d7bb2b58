// NVFP4: e2m1 values with one e4m3 scale per 16 consecutive K elements, plus an optional per-tensor
// fp32 global scale g. An element decodes as  e2m1(code) * e4m3(block scale) * g.
//
// Block quantization (what the host quantizer here and bwgemm::quantize_nvfp4 on the GPU both do,
// bit for bit):
//   amax  = max |x_i| over the 16 elements (NaN if any element is NaN)
//   scale = e4m3_encode(amax / (6 * g))          round to nearest even, saturating to 448
//   s     = e4m3_decode(scale) * g               the decoded scale the codes are rounded against
//   code_i = s == 0 ? 0 : e2m1_encode(x_i / s)   round to nearest even, saturating to +-6
// An all-zero block (or one whose scale underflows e4m3) gets scale 0 and codes 0. g is any positive finite
// fp32, FLT_MAX included: where 6 * g overflows fp32 (g > FLT_MAX / 6), amax / (6 * g) is formed as
// (amax / 8) / (6 * (g / 8)), the same fp32 value an unbounded exponent would give (scaling by 2^-3 is
// exact there), so quantizing x with g gives the codes and scales of x / 2^k with g / 2^k.
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "bwgemm/base/int_math.hpp"
#include "bwgemm/base/operand_span.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/formats/e2m1.cuh"
#include "bwgemm/formats/e4m3.cuh"
#include "bwgemm/formats/fp16.cuh"
#include "bwgemm/formats/scale_layout.cuh"

namespace bwgemm {

// Element types a matrix may hold before quantization.
BWGEMM_HD BWGEMM_FORCEINLINE float to_f32(float x) {
  return x;
}
BWGEMM_HD BWGEMM_FORCEINLINE float to_f32(__half x) {
  return f16_bits_to_f32(__half_raw(x).x);
}
BWGEMM_HD BWGEMM_FORCEINLINE float to_f32(__nv_bfloat16 x) {
  return bf16_bits_to_f32(__nv_bfloat16_raw(x).x);
}

// One 16-element block: writes the e4m3 scale code and 16 e2m1 codes (one per byte, low nibble).
// x_stride is the distance between consecutive elements (1 for K-contiguous data).
template <class T>
BWGEMM_HD BWGEMM_FORCEINLINE void quantize_nvfp4_block(const T* x, float global_scale, uint8_t* scale_code,
                                                       uint8_t* codes) {
  float amax = 0.0f;
  bool has_nan = false;
#pragma unroll
  for (int i = 0; i < kNvfp4BlockSize; ++i) {
    const float magnitude = bits_to_f32(f32_to_bits(to_f32(x[i])) & 0x7FFFFFFFu);
    has_nan |= is_nan_f32(magnitude);
    amax = magnitude > amax ? magnitude : amax;
  }
  if (has_nan) amax = bits_to_f32(0x7FC00000u);
  const float six_g = mul_rn(kE2m1Max, global_scale);
  const float block_scale = (f32_to_bits(six_g) & 0x7FFFFFFFu) == 0x7F800000u  // 6 g overflowed
                                ? div_rn(mul_rn(amax, 0.125f), mul_rn(kE2m1Max, mul_rn(global_scale, 0.125f)))
                                : div_rn(amax, six_g);
  const uint8_t scale = e4m3_encode(block_scale);
  const float s = mul_rn(e4m3_decode(scale), global_scale);
  *scale_code = scale;
#pragma unroll
  for (int i = 0; i < kNvfp4BlockSize; ++i) codes[i] = s == 0.0f ? 0 : e2m1_encode(div_rn(to_f32(x[i]), s));
}

// Decoded value of element (row, k) of batch b of an NVFP4 matrix: packed K-major e2m1 data
// (rows x k/2 bytes per batch, batch outermost, element 2i in the low nibble) with blocked scales.
BWGEMM_HD BWGEMM_FORCEINLINE float nvfp4_element(const uint8_t* packed, const uint8_t* blocked_scales,
                                                 int64_t row, int64_t k_index, int64_t batch, int64_t rows,
                                                 int64_t k, float global_scale = 1.0f) {
  const uint8_t byte = packed[(batch * rows + row) * (k / 2) + k_index / 2];
  const uint8_t code = (k_index & 1) ? (byte >> 4) : (byte & 0xF);
  const uint8_t scale =
      blocked_scales[blocked_scale_offset(row, k_index / kNvfp4BlockSize, batch, rows, k / kNvfp4BlockSize)];
  return e2m1_decode(code) * e4m3_decode(scale) * global_scale;
}

// Checks shared by the host quantizer and the GPU one: K must split into 16-element blocks.
inline Status validate_nvfp4_shape(int64_t rows, int64_t k, int64_t batch, int64_t ld) {
  if (rows < 1) return Status::invalid_argument("rows must be >= 1 (got " + std::to_string(rows) + ")");
  if (batch < 1) return Status::invalid_argument("batch must be >= 1 (got " + std::to_string(batch) + ")");
  if (k < kNvfp4BlockSize || k % kNvfp4BlockSize != 0)
    return Status::invalid_argument("K must be a positive multiple of 16, the NVFP4 block size (got " +
                                    std::to_string(k) + ")");
  if (ld < k)
    return Status::invalid_argument("ld must be >= K (got ld = " + std::to_string(ld) +
                                    ", K = " + std::to_string(k) + ")");
  return Status::success();
}

namespace detail {
// The checks every quantizer shares (quantize_nvfp4, quantize_nvfp4_grouped): the global scale any positive
// finite fp32; x, packed and scales given; x aligned to its element; x's row stride below 2^40 bytes.
template <class T>
Status check_quantize_operands(const T* x, int64_t ld, float global_scale, const uint8_t* packed,
                               const uint8_t* scales) {
  // (f32_to_bits(g) & 0x7FFFFFFF) < 0x7F800000: finite and not NaN; > 0 excludes 0, -0 and negatives.
  if (!(global_scale > 0.0f) || (f32_to_bits(global_scale) & 0x7FFFFFFFu) >= 0x7F800000u)
    return Status::invalid_argument("global_scale must be finite and > 0 (got " +
                                    std::to_string(global_scale) + ")");
  const struct {
    const void* p;
    const char* name;
  } buffers[] = {{x, "x"}, {packed, "packed"}, {scales, "scales"}};
  for (const auto& b : buffers)
    if (b.p == nullptr) return Status::invalid_argument(std::string(b.name) + " is null");
  if (reinterpret_cast<uintptr_t>(x) % alignof(T) != 0)
    return Status::invalid_argument("x must be aligned to its element size");
  return check_stride_limit("ld", ld, static_cast<int64_t>(sizeof(T)));
}
}  // namespace detail

// Every argument check of a quantizer call (host or GPU): the shape, the global scale (any positive finite
// fp32), each buffer (named), the strides below 2^40 bytes as for every operand of every operation (x's ld
// and rows · ld; one batch of packed and of scales, the GEMMs' NVFP4 operands), and with overflow-checked
// arithmetic the spans every offset the quantizer forms stays inside -- x: (batch · rows - 1) · ld + K
// elements; packed: batch · rows · K / 2 bytes; scales: blocked_scale_bytes -- and that neither output
// overlaps x or the other output.
template <class T>
Status validate_nvfp4_quantize(const T* x, int64_t rows, int64_t k, int64_t batch, int64_t ld,
                               float global_scale, const uint8_t* packed, const uint8_t* scales) {
  if (Status s = validate_nvfp4_shape(rows, k, batch, ld); !s.ok()) return s;
  if (Status s = detail::check_quantize_operands(x, ld, global_scale, packed, scales); !s.ok()) return s;
  const int64_t elem_bytes = static_cast<int64_t>(sizeof(T));
  int64_t x_batch = 0, scale_batch = 0;
  if (!checked_mul(rows, ld, &x_batch))
    return Status::invalid_argument("the batch stride of x (rows · ld) overflows int64");
  if (Status s = detail::check_stride_limit("the batch stride of x (rows · ld)", x_batch, elem_bytes);
      !s.ok())
    return s;
  // One batch of packed (rows · K / 2 bytes) is at most a quarter of x's (rows · ld elements of 2 or 4
  // bytes): below 2^40 with it. The blocked scales pad rows to 128: with few rows and a long K they may not.
  const bool scales_overflow = !checked_mul(ceil_div(rows, kScaleAtomRows),
                                            ceil_div(k / kNvfp4BlockSize, kScaleAtomCols), &scale_batch) ||
                               !checked_mul(scale_batch, kScaleAtomBytes, &scale_batch);
  if (Status s = detail::check_batch_bytes_limit("scales", "one batch of blocked scales", scale_batch,
                                                 scales_overflow);
      !s.ok())
    return s;
  int64_t total_rows = 0, packed_bytes = 0, row_blocks_x_cols = 0, scale_bytes = 0;
  const auto too_large = [](const char* what) {
    return Status::invalid_argument(std::string(what) + " overflows: rows, K and batch are too large");
  };
  if (!checked_mul(batch, rows, &total_rows)) return too_large("batch x rows");
  if (!checked_mul(total_rows, k / 2, &packed_bytes)) return too_large("packed (batch x rows x K / 2 bytes)");
  if (!checked_mul(ceil_div(rows, kScaleAtomRows), ceil_div(k / kNvfp4BlockSize, kScaleAtomCols),
                   &row_blocks_x_cols) ||
      !checked_mul(row_blocks_x_cols, batch, &row_blocks_x_cols) ||
      !checked_mul(row_blocks_x_cols, kScaleAtomBytes, &scale_bytes))
    return too_large("scales (blocked_scale_bytes)");
  detail::OperandSpan span_x, span_packed, span_scales;
  if (Status s =
          detail::strided_span("x", x, total_rows, k, ld, 1, 0, static_cast<int64_t>(sizeof(T)), &span_x);
      !s.ok())
    return s;
  if (Status s = detail::strided_span("packed", packed, 1, packed_bytes, packed_bytes, 1, 0, 1, &span_packed);
      !s.ok())
    return s;
  if (Status s = detail::strided_span("scales", scales, 1, scale_bytes, scale_bytes, 1, 0, 1, &span_scales);
      !s.ok())
    return s;
  if (Status s = detail::check_no_overlap(span_packed, {span_x, span_scales}); !s.ok()) return s;
  return detail::check_no_overlap(span_scales, {span_x});
}

// Host quantizer. x: `batch` row-major rows x k matrices, row stride ld elements, batch stride
// rows * ld. packed: batch * rows * k / 2 bytes. scales: blocked_scale_bytes(rows, k / 16, batch)
// bytes in the 128x4 blocked layout (padding zeroed).
template <class T>
Status quantize_nvfp4_host(const T* x, int64_t rows, int64_t k, int64_t batch, int64_t ld, float global_scale,
                           uint8_t* packed, uint8_t* scales) {
  if (Status s = validate_nvfp4_quantize(x, rows, k, batch, ld, global_scale, packed, scales); !s.ok())
    return s;
  const int64_t sf_cols = k / kNvfp4BlockSize;
  std::memset(scales, 0, static_cast<size_t>(blocked_scale_bytes(rows, sf_cols, batch)));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t r = 0; r < rows; ++r) {
      const T* row = x + (b * rows + r) * ld;
      uint8_t* out = packed + (b * rows + r) * (k / 2);
      for (int64_t j = 0; j < sf_cols; ++j) {
        uint8_t codes[kNvfp4BlockSize];
        uint8_t scale;
        quantize_nvfp4_block(row + j * kNvfp4BlockSize, global_scale, &scale, codes);
        scales[blocked_scale_offset(r, j, b, rows, sf_cols)] = scale;
        for (int i = 0; i < kNvfp4BlockSize; i += 2)
          out[(j * kNvfp4BlockSize + i) / 2] = static_cast<uint8_t>(codes[i] | (codes[i + 1] << 4));
      }
    }
  }
  return Status::success();
}

// Host dequantizer: the inverse view, out is batch x rows x k fp32 (row stride k).
inline Status dequantize_nvfp4_host(const uint8_t* packed, const uint8_t* scales, int64_t rows, int64_t k,
                                    int64_t batch, float global_scale, float* out) {
  if (Status s = validate_nvfp4_shape(rows, k, batch, k); !s.ok()) return s;
  if (packed == nullptr || scales == nullptr || out == nullptr)
    return Status::invalid_argument("packed, scales and out must not be null");
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t i = 0; i < k; ++i)
        out[(b * rows + r) * k + i] = nvfp4_element(packed, scales, r, i, b, rows, k, global_scale);
  return Status::success();
}

}  // namespace bwgemm
