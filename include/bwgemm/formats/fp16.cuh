// fp16 (IEEE binary16) and bf16 bit conversions that need no CUDA header, for host references,
// the emulator and tests. Round-to-nearest-even, as __float2half_rn / __float2bfloat16_rn.
#pragma once

#include <cstdint>

#include "bwgemm/formats/bits.cuh"

namespace bwgemm {

BWGEMM_HD BWGEMM_FORCEINLINE float f16_bits_to_f32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h >> 15) << 31;
  const uint32_t exponent = (h >> 10) & 0x1F;
  const uint32_t mantissa = h & 0x3FF;
  if (exponent == 0x1F) return bits_to_f32(sign | 0x7F800000u | (mantissa << 13));  // inf / NaN
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24, exact in fp32
    const float magnitude = static_cast<float>(mantissa) * exp2i(-24);
    return bits_to_f32(sign | f32_to_bits(magnitude));
  }
  return bits_to_f32(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

BWGEMM_HD BWGEMM_FORCEINLINE uint16_t f32_to_f16_bits(float x) {
  const uint32_t bits = f32_to_bits(x);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t abs_bits = bits & 0x7FFFFFFFu;
  if (abs_bits > 0x7F800000u) return sign | 0x7E00u | static_cast<uint16_t>((abs_bits >> 13) & 0x3FF);  // NaN
  if (abs_bits >= 0x477FF000u) return sign | 0x7C00u;  // >= 65520 rounds to infinity (and inf itself)
  const float magnitude = bits_to_f32(abs_bits);
  // 10 mantissa bits, minimum normal exponent -14 (subnormal quantum 2^-24).
  const float v = round_to_grid_rne(magnitude, 10, -14);
  const uint32_t vb = f32_to_bits(v);
  const int exp = static_cast<int>(vb >> 23) - 127;
  if (v == 0.0f) return sign;
  if (exp < -14) return sign | static_cast<uint16_t>(v / exp2i(-24));
  return sign | static_cast<uint16_t>(((exp + 15) << 10) | ((vb >> 13) & 0x3FF));
}

BWGEMM_HD BWGEMM_FORCEINLINE float bf16_bits_to_f32(uint16_t h) {
  return bits_to_f32(static_cast<uint32_t>(h) << 16);
}

BWGEMM_HD BWGEMM_FORCEINLINE uint16_t f32_to_bf16_bits(float x) {
  const uint32_t bits = f32_to_bits(x);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);  // quiet NaN
  const uint32_t rounding = 0x7FFFu + ((bits >> 16) & 1u);  // round half to even on the dropped 16 bits
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

}  // namespace bwgemm
