// Bit-level access to fp32 that works on host, device and in the emulator.
#pragma once

#include <cstdint>
#include <cstring>

#include "bwgemm/base/macros.hpp"

namespace bwgemm {

BWGEMM_HD BWGEMM_FORCEINLINE uint32_t f32_to_bits(float x) {
#if BWGEMM_DEVICE_PASS
  return __float_as_uint(x);
#else
  uint32_t u;
  std::memcpy(&u, &x, sizeof(u));
  return u;
#endif
}

BWGEMM_HD BWGEMM_FORCEINLINE float bits_to_f32(uint32_t u) {
#if BWGEMM_DEVICE_PASS
  return __uint_as_float(u);
#else
  float x;
  std::memcpy(&x, &u, sizeof(x));
  return x;
#endif
}

// 2^e for integer e in [-149, 127], exact, usable in constant expressions.
BWGEMM_HD constexpr float exp2i(int e) {
  float r = 1.0f;
  for (; e > 0; --e) r *= 2.0f;
  for (; e < 0; ++e) r *= 0.5f;
  return r;
}

// IEEE round-to-nearest division and multiplication, also under nvcc --use_fast_math: the GPU
// quantizer must give the same bits as the host one.
BWGEMM_HD BWGEMM_FORCEINLINE float div_rn(float a, float b) {
#if BWGEMM_DEVICE_PASS
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}

BWGEMM_HD BWGEMM_FORCEINLINE float mul_rn(float a, float b) {
#if BWGEMM_DEVICE_PASS
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}

BWGEMM_HD BWGEMM_FORCEINLINE bool is_nan_f32(float x) {
  return (f32_to_bits(x) & 0x7FFFFFFFu) > 0x7F800000u;
}

// Round-to-nearest-even of an fp32 value to `mantissa_bits` explicit mantissa bits with a minimum
// normal exponent `min_exp` (values below 2^min_exp are rounded on the subnormal grid 2^(min_exp -
// mantissa_bits)). Returns the rounded magnitude as a float (exact: every result fits in fp32).
// Shared by the small-float encoders below; |x| must be finite.
BWGEMM_HD BWGEMM_FORCEINLINE float round_to_grid_rne(float magnitude, int mantissa_bits, int min_exp) {
  const uint32_t bits = f32_to_bits(magnitude);
  int exp = static_cast<int>((bits >> 23) & 0xFF) - 127;  // unbiased exponent of an fp32 normal
  if (((bits >> 23) & 0xFF) == 0) exp = -127;             // fp32 zero/subnormal: far below any grid here
  if (exp < min_exp) exp = min_exp;
  // Quantum of the target grid at this exponent: 2^(exp - mantissa_bits).
  const float quantum = exp2i(exp - mantissa_bits);
  const float scaled = magnitude / quantum;  // exact: division by a power of two (no fp32 underflow here)
  // Round half to even on an integer grid; scaled < 2^24 so the float arithmetic below is exact.
  float whole = static_cast<float>(static_cast<uint32_t>(scaled));
  const float frac = scaled - whole;
  if (frac > 0.5f || (frac == 0.5f && (static_cast<uint32_t>(whole) & 1u))) whole += 1.0f;
  return whole * quantum;
}

}  // namespace bwgemm
