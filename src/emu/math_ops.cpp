// Approximate math instructions in the emulator (include/bwgemm/emu/math_ops.hpp).
#include <bwgemm/emu/math_ops.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>

namespace bwgemm::emu {
namespace detail {
float flush_subnormal(float x) {
  return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x;
}
}  // namespace detail

float ex2_approx(float x) {
  return detail::flush_subnormal(std::exp2(detail::flush_subnormal(x)));
}
float rcp_approx(float x) {
  return detail::flush_subnormal(1.0f / detail::flush_subnormal(x));
}

namespace {
uint32_t f32_bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof(x));
  return x;
}

// IEEE binary16, round to nearest even.
uint16_t f32_to_f16_rn(float f) {
  const uint32_t x = f32_bits(f);
  const uint32_t sign = (x >> 16) & 0x8000u, abs = x & 0x7FFFFFFFu;
  if (abs > 0x7F800000u) return 0x7FFF;                                  // NaN: the canonical NaN
  if (abs >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // >= 65520 rounds to infinity
  if (abs >= 0x38800000u) {  // a normal half (>= 2^-14): rebias the exponent by 127 - 15, round 13 bits away
    const uint32_t rounded = abs + 0x0FFFu + ((abs >> 13) & 1u);
    return static_cast<uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
  }
  // A subnormal half or zero: a multiple of 2^-24 (the scaling is exact), rounded to nearest even.
  float a;
  std::memcpy(&a, &abs, sizeof(a));
  return static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(a * 16777216.0f)));
}

// bfloat16 (the top 16 bits of binary32), round to nearest even.
uint16_t f32_to_bf16_rn(float f) {
  const uint32_t x = f32_bits(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FFF;  // NaN: the canonical NaN
  return static_cast<uint16_t>((x + 0x7FFFu + ((x >> 16) & 1u)) >> 16);
}
}  // namespace

uint32_t cvt_rn_f16x2_f32(float lo, float hi) {
  return static_cast<uint32_t>(f32_to_f16_rn(lo)) | (static_cast<uint32_t>(f32_to_f16_rn(hi)) << 16);
}
uint32_t cvt_rn_bf16x2_f32(float lo, float hi) {
  return static_cast<uint32_t>(f32_to_bf16_rn(lo)) | (static_cast<uint32_t>(f32_to_bf16_rn(hi)) << 16);
}

}  // namespace bwgemm::emu
