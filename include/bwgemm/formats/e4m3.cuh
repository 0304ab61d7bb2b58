// e4m3 "fn" (FP8): 1 sign, 4 exponent (bias 7), 3 mantissa bits; no infinities; S.1111.111 is NaN;
// max finite 448 (0x7E); subnormals 2^-9 * m. OCP 8-bit Floating Point Specification (OFP8) v1.0,
// section 5.1; PTX ISA "Alternate floating point data formats" (.e4m3). NVFP4 block scales use it
// unsigned (positive codes 0x00..0x7E).
#pragma once

#include <cstdint>

#include "bwgemm/formats/bits.cuh"

namespace bwgemm {

inline constexpr float kE4m3Max = 448.0f;
inline constexpr uint8_t kE4m3MaxCode = 0x7E;
inline constexpr uint8_t kE4m3NaNCode = 0x7F;  // canonical NaN; 0xFF is NaN too
inline constexpr int kE4m3Bias = 7;
inline constexpr int kE4m3MantissaBits = 3;
inline constexpr int kE4m3MinNormalExp = 1 - kE4m3Bias;  // -6

BWGEMM_HD constexpr bool e4m3_is_nan(uint8_t code) {
  return (code & 0x7F) == 0x7F;
}

// Decode any of the 256 codes; NaN codes decode to a quiet fp32 NaN (sign kept).
BWGEMM_HD BWGEMM_FORCEINLINE float e4m3_decode(uint8_t code) {
  const uint32_t sign = static_cast<uint32_t>(code >> 7) << 31;
  if (e4m3_is_nan(code)) return bits_to_f32(sign | 0x7FC00000u);
  const int exponent_field = (code >> 3) & 0xF;
  const int mantissa = code & 0x7;
  const float magnitude =
      exponent_field == 0
          ? static_cast<float>(mantissa) * exp2i(kE4m3MinNormalExp - kE4m3MantissaBits)
          : (1.0f + static_cast<float>(mantissa) * 0.125f) * exp2i(exponent_field - kE4m3Bias);
  return bits_to_f32(sign | f32_to_bits(magnitude));
}

// Decode usable in constant expressions (no NaN codes).
BWGEMM_HD constexpr float e4m3_decode_constexpr(uint8_t code) {
  const int exponent_field = (code >> 3) & 0xF;
  const int mantissa = code & 0x7;
  const float magnitude =
      exponent_field == 0
          ? static_cast<float>(mantissa) * exp2i(kE4m3MinNormalExp - kE4m3MantissaBits)
          : (1.0f + static_cast<float>(mantissa) * 0.125f) * exp2i(exponent_field - kE4m3Bias);
  return (code & 0x80) ? -magnitude : magnitude;
}

// Encode with round-to-nearest-even, saturating to +-448 (infinities saturate too); NaN of either
// sign encodes to 0x7F. This is __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3) of the CUDA
// toolkit, which the tests check over every code boundary.
BWGEMM_HD BWGEMM_FORCEINLINE uint8_t e4m3_encode(float x) {
  const uint32_t bits = f32_to_bits(x);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return kE4m3NaNCode;
  const uint8_t sign = static_cast<uint8_t>((bits >> 31) << 7);
  const float magnitude = bits_to_f32(bits & 0x7FFFFFFFu);
  if (!(magnitude <= kE4m3Max)) return sign | kE4m3MaxCode;  // > 448 or inf
  const float v = round_to_grid_rne(magnitude, kE4m3MantissaBits, kE4m3MinNormalExp);
  if (v > kE4m3Max) return sign | kE4m3MaxCode;
  if (v == 0.0f) return sign;
  const uint32_t vb = f32_to_bits(v);
  const int exp = static_cast<int>((vb >> 23) & 0xFF) - 127;
  if (exp < kE4m3MinNormalExp) {  // subnormal: v = m * 2^-9 with m in 1..7
    return sign | static_cast<uint8_t>(v / exp2i(kE4m3MinNormalExp - kE4m3MantissaBits));
  }
  const uint32_t mantissa = (vb >> (23 - kE4m3MantissaBits)) & 0x7u;
  return sign | static_cast<uint8_t>(((exp + kE4m3Bias) << kE4m3MantissaBits) | mantissa);
}

}  // namespace bwgemm
