// Fast approximate math instructions used by epilogues (SiLU). PTX ISA 9.7.3 (floating-point
// instructions): ex2.approx.ftz.f32 and rcp.approx.ftz.f32, both with a maximum relative error of
// 2^-22 or better on normal results (PTX ISA 9.7.3.21 ex2, 9.7.3.14 rcp); subnormal inputs and results
// flush to zero. Inline asm: cuda::ptx has no wrappers for these.
#pragma once

#include <bwgemm/base/macros.hpp>

#if BWGEMM_EMULATION
#include <bwgemm/emu/backend.hpp>
#endif

namespace bwgemm::ptx {

// 2^x, approximately.
BWGEMM_DEVICE BWGEMM_FORCEINLINE float ex2_approx(float x) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::ex2_approx(x);
#else
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
#endif
}

// 1/x, approximately.
BWGEMM_DEVICE BWGEMM_FORCEINLINE float rcp_approx(float x) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::rcp_approx(x);
#else
  float y;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
#endif
}

}  // namespace bwgemm::ptx
