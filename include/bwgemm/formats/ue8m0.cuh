// ue8m0 (E8M0): an unsigned power of two, value 2^(code - 127); code 0xFF is NaN. The scale type
// of MXFP formats. OCP Microscaling Formats (MX) v1.0, section 5.4.1.
#pragma once

#include <cstdint>

#include "bwgemm/formats/bits.cuh"

namespace bwgemm {

inline constexpr uint8_t kUe8m0NaNCode = 0xFF;
inline constexpr uint8_t kUe8m0MaxCode = 0xFE;  // 2^127
inline constexpr int kUe8m0Bias = 127;

enum class Ue8m0Rounding {
  kNearestEven,   // nearest power of two (midpoint 1.5 * 2^e), ties to the even code
  kTowardZero,    // largest power of two <= |x|     (CUDA: cudaRoundZero)
  kTowardPosInf,  // smallest power of two >= |x|    (CUDA: cudaRoundPosInf)
};

// 2^(code - 127); NaN for 0xFF. Code 0 is 2^-127, an fp32 subnormal.
BWGEMM_HD BWGEMM_FORCEINLINE float ue8m0_decode(uint8_t code) {
  if (code == kUe8m0NaNCode) return bits_to_f32(0x7FC00000u);
  if (code == 0) return bits_to_f32(0x00400000u);  // 2^-127
  return bits_to_f32(static_cast<uint32_t>(code) << 23);
}

// Encode |x| (the format has no sign): saturating to 2^127 (infinities too) and to 2^-127 at the
// bottom; NaN -> 0xFF. The toward-zero and toward-+inf modes equal the CUDA toolkit's
// __nv_cvt_float_to_e8m0(x, __NV_SATFINITE, ...), which the tests check.
BWGEMM_HD BWGEMM_FORCEINLINE uint8_t ue8m0_encode(float x, Ue8m0Rounding mode = Ue8m0Rounding::kNearestEven) {
  const uint32_t bits = f32_to_bits(x) & 0x7FFFFFFFu;
  if (bits > 0x7F800000u) return kUe8m0NaNCode;
  if (bits >= 0x7F800000u) return kUe8m0MaxCode;  // infinity saturates
  const uint32_t exponent_field = bits >> 23;
  const uint32_t mantissa = bits & 0x7FFFFFu;
  if (exponent_field == 0) {
    // Subnormal fp32: |x| = mantissa * 2^-149 < 2^-126; 2^-127 is mantissa 0x400000.
    constexpr uint32_t kTwoPowMinus127 = 0x400000u;
    switch (mode) {
      case Ue8m0Rounding::kTowardZero:
        return 0;  // below 2^-126: floor is 2^-127 or saturates there
      case Ue8m0Rounding::kTowardPosInf:
        return mantissa > kTwoPowMinus127 ? 1 : 0;
      case Ue8m0Rounding::kNearestEven:
        return mantissa > 0x600000u ? 1 : 0;  // midpoint 1.5 * 2^-127
    }
  }
  uint32_t code = exponent_field;  // |x| = (1 + f) * 2^(code - 127)
  switch (mode) {
    case Ue8m0Rounding::kTowardZero:
      break;
    case Ue8m0Rounding::kTowardPosInf:
      code += mantissa != 0;
      break;
    case Ue8m0Rounding::kNearestEven: {
      constexpr uint32_t kHalf = 0x400000u;  // mantissa of 1.5
      if (mantissa > kHalf || (mantissa == kHalf && (code & 1u))) ++code;
      break;
    }
  }
  return static_cast<uint8_t>(code > kUe8m0MaxCode ? kUe8m0MaxCode : code);
}

}  // namespace bwgemm
