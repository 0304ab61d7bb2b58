// Approximate math instructions in the emulator (ptx/math.cuh): ex2.approx.ftz.f32 and rcp.approx.ftz.f32
// (PTX ISA 9.7.3.21, 9.7.3.14). The emulator computes them with the host's correctly rounded exp2f and
// division and applies the .ftz rule (subnormal inputs and results become zero of the same sign). The GPU's
// approximations have up to 2^-22 relative error, so results may differ from hardware in the last bits.
// The functions are in src/emu/math_ops.cpp.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace bwgemm::emu {
namespace detail {
// Subnormal inputs and results become zero of the same sign (.ftz).
float flush_subnormal(float x);
}  // namespace detail

float ex2_approx(float x);
float rcp_approx(float x);

}  // namespace bwgemm::emu
