// Approximate math instructions in the emulator (ptx/math.cuh): ex2.approx.ftz.f32 and rcp.approx.ftz.f32
// (PTX ISA 9.7.3.21, 9.7.3.14). The emulator computes them with the host's correctly rounded exp2f and
// division and applies the .ftz rule (subnormal inputs and results become zero of the same sign). The GPU's
// approximations have up to 2^-22 relative error, so results may differ from hardware in the last bits.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace bwgemm::emu {
namespace detail {
inline float flush_subnormal(float x) {
  return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x;
}
}  // namespace detail

inline float ex2_approx(float x) {
  return detail::flush_subnormal(std::exp2(detail::flush_subnormal(x)));
}
inline float rcp_approx(float x) {
  return detail::flush_subnormal(1.0f / detail::flush_subnormal(x));
}

}  // namespace bwgemm::emu
