// Conversions and global-memory stores of the epilogues: packed f32x2 -> f16x2 / bf16x2 conversion (PTX ISA
// 9.7.9.21 cvt, `cvt.rn.f16x2.f32` and `cvt.rn.bf16x2.f32`, sm_80+) and 256-bit global stores with an L1
// eviction qualifier (PTX ISA 9.7.9.10 st, `.v8.b32`; seed 004's epilogue stores with
// `st.relaxed.cta.global.L1::no_allocate.v8.b32`). Inline asm: cuda::ptx has neither.
//
// 256-bit vectors need PTX ISA 8.8 (CUDA 12.9); CUDA 12.8's ptxas rejects them ("Vector type too large,
// exceeds 128 bit limit"). With an older toolkit (CUDART_VERSION < 12090, what the CUDA 12.8 compatibility
// test compiles against) st_global_256 issues the same 32 bytes as two 128-bit stores, with the same
// qualifier.
#pragma once

#include <cstdint>

#include <bwgemm/base/macros.hpp>

#if BWGEMM_EMULATION
#include <bwgemm/emu/backend.hpp>
#endif

#if !BWGEMM_EMULATION && defined(CUDART_VERSION) && CUDART_VERSION >= 12090
#define BWGEMM_PTX_HAS_256BIT_GLOBAL 1  // st.global.v8.b32 (PTX ISA 8.8)
#else
#define BWGEMM_PTX_HAS_256BIT_GLOBAL 0
#endif

namespace bwgemm::ptx {

// cvt.rn.f16x2.f32 d, hi, lo: lo (rounded to nearest even) in bits 0-15, hi in bits 16-31; overflow gives
// infinity, NaN the canonical NaN 0x7FFF.
BWGEMM_DEVICE BWGEMM_FORCEINLINE uint32_t cvt_rn_f16x2_f32(float lo, float hi) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::cvt_rn_f16x2_f32(lo, hi);
#else
  uint32_t d;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo));
  return d;
#endif
}

// cvt.rn.bf16x2.f32 d, hi, lo: the same for bfloat16.
BWGEMM_DEVICE BWGEMM_FORCEINLINE uint32_t cvt_rn_bf16x2_f32(float lo, float hi) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::cvt_rn_bf16x2_f32(lo, hi);
#else
  uint32_t d;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo));
  return d;
#endif
}

// The L1 eviction priority of a global store (PTX ISA 9.7.9.10, .level::eviction_priority).
enum class L1Store : int {
  kNormal = 0,      // no qualifier
  kNoAllocate = 1,  // .L1::no_allocate: the stored line is not kept in L1 (an epilogue never reads it back)
};

// 32 bytes v[0..7] to global memory at dst (32-byte aligned): one st.global.v8.b32 where the toolkit has it,
// else two st.global.v4.b32.
template <L1Store Policy = L1Store::kNormal>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void st_global_256(void* dst, const uint32_t (&v)[8]) {
#if BWGEMM_EMULATION
  ::bwgemm::emu::st_global_256(dst, v, Policy == L1Store::kNoAllocate);
#elif BWGEMM_PTX_HAS_256BIT_GLOBAL
  if constexpr (Policy == L1Store::kNoAllocate) {
    asm volatile("st.global.L1::no_allocate.v8.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8};" ::"l"(dst),
                 "r"(v[0]), "r"(v[1]), "r"(v[2]), "r"(v[3]), "r"(v[4]), "r"(v[5]), "r"(v[6]), "r"(v[7])
                 : "memory");
  } else {
    asm volatile("st.global.v8.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8};" ::"l"(dst), "r"(v[0]), "r"(v[1]),
                 "r"(v[2]), "r"(v[3]), "r"(v[4]), "r"(v[5]), "r"(v[6]), "r"(v[7])
                 : "memory");
  }
#else
  auto* p = static_cast<uint32_t*>(dst);
  if constexpr (Policy == L1Store::kNoAllocate) {
    asm volatile("st.global.L1::no_allocate.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v[0]), "r"(v[1]),
                 "r"(v[2]), "r"(v[3])
                 : "memory");
    asm volatile("st.global.L1::no_allocate.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(p + 4), "r"(v[4]),
                 "r"(v[5]), "r"(v[6]), "r"(v[7])
                 : "memory");
  } else {
    asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v[0]), "r"(v[1]), "r"(v[2]),
                 "r"(v[3])
                 : "memory");
    asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(p + 4), "r"(v[4]), "r"(v[5]), "r"(v[6]),
                 "r"(v[7])
                 : "memory");
  }
#endif
}

// *p |= v as one atomic reduction in global memory, relaxed at GPU scope (PTX ISA 9.7.13.6 red,
// `red.relaxed.gpu.global.or.b32`, sm_70+): the grouped operations' device status word (base/grouped.hpp). No
// value comes back, no ordering.
BWGEMM_DEVICE BWGEMM_FORCEINLINE void red_global_or(uint32_t* p, uint32_t v) {
#if BWGEMM_EMULATION
  __atomic_fetch_or(p, v, __ATOMIC_RELAXED);
#else
  asm volatile("red.relaxed.gpu.global.or.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
#endif
}

}  // namespace bwgemm::ptx
