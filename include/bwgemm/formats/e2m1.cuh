// e2m1 (FP4): 1 sign, 2 exponent (bias 1), 1 mantissa bit. No infinities, no NaN.
// Values: +-{0, 0.5, 1, 1.5, 2, 3, 4, 6}. Two codes per byte in NVFP4 storage (element 2i in the
// low nibble). OCP Microscaling Formats (MX) v1.0, section 5.3.3; PTX ISA "Packed floating point
// data types" (.e2m1x2).
#pragma once

#include <cstdint>

#include "bwgemm/formats/bits.cuh"

namespace bwgemm {

inline constexpr float kE2m1Max = 6.0f;
inline constexpr uint8_t kE2m1SignBit = 0x8;

// Decode a 4-bit code (the high bits of `code` are ignored).
BWGEMM_HD constexpr float e2m1_decode(uint8_t code) {
  const int c = code & 0x7;
  const int exponent_field = c >> 1;
  const int mantissa = c & 1;
  // exponent field 0 is subnormal: 0.5 * mantissa; otherwise (1 + m/2) * 2^(e - 1).
  const float magnitude = exponent_field == 0
                              ? 0.5f * static_cast<float>(mantissa)
                              : (1.0f + 0.5f * static_cast<float>(mantissa)) * exp2i(exponent_field - 1);
  return (code & kE2m1SignBit) ? -magnitude : magnitude;
}

// Encode with round-to-nearest-even, saturating to +-6. e2m1 has no NaN or infinity: +-inf saturates
// to +-6 and NaN (either sign) encodes to +6 (code 0x7), exactly as the CUDA toolkit's
// __nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundNearest) does. -0 encodes to 0x8.
BWGEMM_HD BWGEMM_FORCEINLINE uint8_t e2m1_encode(float x) {
  const uint32_t bits = f32_to_bits(x);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return 0x7;  // NaN
  const uint8_t sign = (bits >> 31) ? kE2m1SignBit : 0;
  const float magnitude = bits_to_f32(bits & 0x7FFFFFFFu);
  if (!(magnitude < kE2m1Max)) return sign | 0x7;  // >= 6 or inf
  // Grid: 1 mantissa bit, minimum normal exponent 0 (subnormal quantum 0.5).
  float v = round_to_grid_rne(magnitude, /*mantissa_bits=*/1, /*min_exp=*/0);
  if (v > kE2m1Max) v = kE2m1Max;
  // 2v is one of 0, 1, 2, 3, 4, 6, 8, 12: the codes 0..4 are 2v itself, then 3 -> 5, 4 -> 6, 6 -> 7.
  const int twice = static_cast<int>(v * 2.0f);
  uint8_t code = static_cast<uint8_t>(twice);
  if (twice == 6) code = 5;
  if (twice == 8) code = 6;
  if (twice == 12) code = 7;
  return sign | code;
}

}  // namespace bwgemm
