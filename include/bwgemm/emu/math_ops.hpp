// Approximate math instructions in the emulator (ptx/math.cuh): ex2.approx.ftz.f32 and rcp.approx.ftz.f32,
// and the packed conversions of ptx/global.cuh
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

// cvt.rn.f16x2.f32 / cvt.rn.bf16x2.f32 (ptx/global.cuh): lo in bits 0-15, hi in 16-31, round to nearest even,
// subnormals kept, overflow to infinity, NaN to 0x7FFF; computed on the bits (no host half type).
uint32_t cvt_rn_f16x2_f32(float lo, float hi);
uint32_t cvt_rn_bf16x2_f32(float lo, float hi);

}  // namespace bwgemm::emu
