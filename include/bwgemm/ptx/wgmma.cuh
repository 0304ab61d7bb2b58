// sm_90a (Hopper) warpgroup primitives: wgmma.mma_async with both operands in shared memory, its fence /
// commit_group / wait_group, the accumulator register fence, and setmaxnreg (warpgroup register
// reallocation). PTX ISA 8.x, section 9.7.15 "Asynchronous Warpgroup Level Matrix Multiply-Accumulate
// Instructions" and 9.7.17.1 (setmaxnreg).
//
// Operands: A and B as 64-bit wgmma shared-memory descriptors (descriptors_sm90.hpp builds them); the fp32
// accumulator fragment of one m64nNk16 instruction as `float (&d)[N / 2]` per thread, in the PTX ISA's
// register order (figure "WGMMA .m64nNk16 register fragment layout for accumulator matrix D"): with warp
// w = (thread % 128) / 32 and lane l, d[4j + 2h + e] holds row 16w + l/4 + 8h, column 8j + 2(l%4) + e.
//
// Not in the CPU emulator: the emulator models sm_100a only. This header refuses emulation builds, so no
// kernel that uses wgmma can be compiled there by accident (the sm_90a kernels and their tests are
// native-only; docs/hopper.md).
//
// Inline asm, not cuda::ptx: cuda::ptx has no wgmma.mma_async. A wgmma's accumulator list has N / 2
// registers; nvcc has no symbolic operand names, so the operand numbers inside the asm string are literal
// text. The macros below generate, for each supported N, the list "%0, ..., %<N/2 - 1>" and the matching
// operand list "+f"(d[0]), ... from decades and units (no per-N hand-written asm); one template serves
// every N, both input types and both operand majors.
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <bwgemm/base/macros.hpp>
#include <bwgemm/isa/descriptors_sm90.hpp>  // kWgmmaSupportedN

#if BWGEMM_EMULATION
#error "bwgemm/ptx/wgmma.cuh: the sm_90a wrappers have no CPU emulation (the emulator models sm_100a)"
#endif

namespace bwgemm::ptx {

// ---- operand-number text -----------------------------------------------------------------------------
// "%<t><u>": operand reference with tens `t` (empty for 0-9) and units `u`.
#define BWGEMM_WGMMA_REF(t, u) "%" #t #u
#define BWGEMM_WGMMA_UNITS2(t) BWGEMM_WGMMA_REF(t, 0) ", " BWGEMM_WGMMA_REF(t, 1)
#define BWGEMM_WGMMA_UNITS4(t) BWGEMM_WGMMA_UNITS2(t) ", " BWGEMM_WGMMA_REF(t, 2) ", " BWGEMM_WGMMA_REF(t, 3)
#define BWGEMM_WGMMA_UNITS6(t) BWGEMM_WGMMA_UNITS4(t) ", " BWGEMM_WGMMA_REF(t, 4) ", " BWGEMM_WGMMA_REF(t, 5)
#define BWGEMM_WGMMA_UNITS8(t) BWGEMM_WGMMA_UNITS6(t) ", " BWGEMM_WGMMA_REF(t, 6) ", " BWGEMM_WGMMA_REF(t, 7)
#define BWGEMM_WGMMA_DECADE(t) BWGEMM_WGMMA_UNITS8(t) ", " BWGEMM_WGMMA_REF(t, 8) ", " BWGEMM_WGMMA_REF(t, 9)
// The first 10 t references, "%0" .. "%<10t - 1>".
#define BWGEMM_WGMMA_D1 BWGEMM_WGMMA_DECADE()
#define BWGEMM_WGMMA_D2 BWGEMM_WGMMA_D1 ", " BWGEMM_WGMMA_DECADE(1)
#define BWGEMM_WGMMA_D3 BWGEMM_WGMMA_D2 ", " BWGEMM_WGMMA_DECADE(2)
#define BWGEMM_WGMMA_D4 BWGEMM_WGMMA_D3 ", " BWGEMM_WGMMA_DECADE(3)
#define BWGEMM_WGMMA_D5 BWGEMM_WGMMA_D4 ", " BWGEMM_WGMMA_DECADE(4)
#define BWGEMM_WGMMA_D6 BWGEMM_WGMMA_D5 ", " BWGEMM_WGMMA_DECADE(5)
#define BWGEMM_WGMMA_D7 BWGEMM_WGMMA_D6 ", " BWGEMM_WGMMA_DECADE(6)
#define BWGEMM_WGMMA_D8 BWGEMM_WGMMA_D7 ", " BWGEMM_WGMMA_DECADE(7)
#define BWGEMM_WGMMA_D9 BWGEMM_WGMMA_D8 ", " BWGEMM_WGMMA_DECADE(8)
#define BWGEMM_WGMMA_D10 BWGEMM_WGMMA_D9 ", " BWGEMM_WGMMA_DECADE(9)
#define BWGEMM_WGMMA_D11 BWGEMM_WGMMA_D10 ", " BWGEMM_WGMMA_DECADE(10)
#define BWGEMM_WGMMA_D12 BWGEMM_WGMMA_D11 ", " BWGEMM_WGMMA_DECADE(11)

// ---- accumulator operand lists -----------------------------------------------------------------------
// A comma that survives as one macro argument (joins two operand lists).
#define BWGEMM_WGMMA_COMMA ,
#define BWGEMM_WGMMA_OPS4(d, b) "+f"(d[(b) + 0]), "+f"(d[(b) + 1]), "+f"(d[(b) + 2]), "+f"(d[(b) + 3])
#define BWGEMM_WGMMA_OPS8(d, b) BWGEMM_WGMMA_OPS4(d, b), BWGEMM_WGMMA_OPS4(d, (b) + 4)
#define BWGEMM_WGMMA_OPS16(d, b) BWGEMM_WGMMA_OPS8(d, b), BWGEMM_WGMMA_OPS8(d, (b) + 8)
#define BWGEMM_WGMMA_OPS32(d, b) BWGEMM_WGMMA_OPS16(d, b), BWGEMM_WGMMA_OPS16(d, (b) + 16)
#define BWGEMM_WGMMA_OPS64(d, b) BWGEMM_WGMMA_OPS32(d, b), BWGEMM_WGMMA_OPS32(d, (b) + 32)

// One wgmma.mma_async for N (R = N / 2 accumulator registers %0..%R-1, then desc-a %R, desc-b %R+1,
// scale-d %R+2, and the immediates scale-a, scale-b, tnsp-a, tnsp-b %R+3..%R+6). `ACC_REFS` is the text
// "%0, ..., %R-1", `ACC_OPS` the matching operand list; n0..n6 are the literal numbers R..R+6.
#define BWGEMM_WGMMA_SS_ASM(TYPES, N, ACC_REFS, ACC_OPS, n0, n1, n2, n3, n4, n5, n6)             \
  asm volatile(                                                                                  \
      "{\n\t.reg .pred p;\n\t"                                                                   \
      "setp.ne.b32 p, %" #n2                                                                     \
      ", 0;\n\t"                                                                                 \
      "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TYPES " {" ACC_REFS "}, %" #n0 ", %" #n1 \
      ", p, %" #n3 ", %" #n4 ", %" #n5 ", %" #n6 ";\n\t}"                                        \
      : ACC_OPS                                                                                  \
      : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(1), "n"(1), "n"(kTransA), "n"(kTransB))

// Every N of kWgmmaSupportedN (descriptors_sm90.hpp) for one input-type string.
#define BWGEMM_WGMMA_SS_ALL_N(T)                                                                           \
  if constexpr (N == 8) {                                                                                  \
    BWGEMM_WGMMA_SS_ASM(T, 8, BWGEMM_WGMMA_UNITS4(), BWGEMM_WGMMA_OPS4(d, 0), 4, 5, 6, 7, 8, 9, 10);       \
  } else if constexpr (N == 16) {                                                                          \
    BWGEMM_WGMMA_SS_ASM(T, 16, BWGEMM_WGMMA_UNITS8(), BWGEMM_WGMMA_OPS8(d, 0), 8, 9, 10, 11, 12, 13, 14);  \
  } else if constexpr (N == 32) {                                                                          \
    BWGEMM_WGMMA_SS_ASM(T, 32, BWGEMM_WGMMA_D1 ", " BWGEMM_WGMMA_UNITS6(1), BWGEMM_WGMMA_OPS16(d, 0), 16,  \
                        17, 18, 19, 20, 21, 22);                                                           \
  } else if constexpr (N == 48) {                                                                          \
    BWGEMM_WGMMA_SS_ASM(T, 48, BWGEMM_WGMMA_D2 ", " BWGEMM_WGMMA_UNITS4(2),                                \
                        BWGEMM_WGMMA_OPS16(d, 0) BWGEMM_WGMMA_COMMA BWGEMM_WGMMA_OPS8(d, 16), 24, 25, 26,  \
                        27, 28, 29, 30);                                                                   \
  } else if constexpr (N == 64) {                                                                          \
    BWGEMM_WGMMA_SS_ASM(T, 64, BWGEMM_WGMMA_D3 ", " BWGEMM_WGMMA_UNITS2(3), BWGEMM_WGMMA_OPS32(d, 0), 32,  \
                        33, 34, 35, 36, 37, 38);                                                           \
  } else if constexpr (N == 96) {                                                                          \
    BWGEMM_WGMMA_SS_ASM(T, 96, BWGEMM_WGMMA_D4 ", " BWGEMM_WGMMA_UNITS8(4),                                \
                        BWGEMM_WGMMA_OPS32(d, 0) BWGEMM_WGMMA_COMMA BWGEMM_WGMMA_OPS16(d, 32), 48, 49, 50, \
                        51, 52, 53, 54);                                                                   \
  } else if constexpr (N == 128) {                                                                         \
    BWGEMM_WGMMA_SS_ASM(T, 128, BWGEMM_WGMMA_D6 ", " BWGEMM_WGMMA_UNITS4(6), BWGEMM_WGMMA_OPS64(d, 0), 64, \
                        65, 66, 67, 68, 69, 70);                                                           \
  } else if constexpr (N == 160) {                                                                         \
    BWGEMM_WGMMA_SS_ASM(T, 160, BWGEMM_WGMMA_D8,                                                           \
                        BWGEMM_WGMMA_OPS64(d, 0) BWGEMM_WGMMA_COMMA BWGEMM_WGMMA_OPS16(d, 64), 80, 81, 82, \
                        83, 84, 85, 86);                                                                   \
  } else if constexpr (N == 192) {                                                                         \
    BWGEMM_WGMMA_SS_ASM(T, 192, BWGEMM_WGMMA_D9 ", " BWGEMM_WGMMA_UNITS6(9),                               \
                        BWGEMM_WGMMA_OPS64(d, 0) BWGEMM_WGMMA_COMMA BWGEMM_WGMMA_OPS32(d, 64), 96, 97, 98, \
                        99, 100, 101, 102);                                                                \
  } else if constexpr (N == 256) {                                                                         \
    BWGEMM_WGMMA_SS_ASM(T, 256, BWGEMM_WGMMA_D12 ", " BWGEMM_WGMMA_UNITS8(12),                             \
                        BWGEMM_WGMMA_OPS64(d, 0) BWGEMM_WGMMA_COMMA BWGEMM_WGMMA_OPS64(d, 64), 128, 129,   \
                        130, 131, 132, 133, 134);                                                          \
  }

// Operand major-ness of a wgmma operand in shared memory (the imm-trans-a / imm-trans-b operands).
enum class WgmmaMajor : int {
  kK = 0,   // K-major: consecutive K elements contiguous (no transpose)
  kMN = 1,  // MN-major (transpose; 16-bit inputs only)
};

// PTX ISA 9.7.15.5.2 wgmma.mma_async (both operands from shared memory):
//   wgmma.mma_async.sync.aligned.m64n<N>k16.f32.<T>.<T> d, desc-a, desc-b, scale-d, 1, 1, tnsp-a, tnsp-b;
// d = A·B + (accumulate ? d : 0) for the 64 x N tile of this warpgroup, T = __half or __nv_bfloat16.
// Executed by all 128 threads of a warpgroup (.sync.aligned). Asynchronous: call wgmma_fence() before the
// first wgmma that touches registers other instructions wrote, close a batch with wgmma_commit_group() and
// read d only after wgmma_wait_group().
template <class T, int N, WgmmaMajor AMajor = WgmmaMajor::kK, WgmmaMajor BMajor = WgmmaMajor::kK>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void wgmma_ss(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b,
                                               bool accumulate) {
  static_assert(std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>,
                "wgmma_ss takes fp16 or bf16 operands (fp32 accumulation)");
  static_assert(kWgmmaSupportedN<N>, "wgmma_ss: N must be one of 8, 16, 32, 48, 64, 96, 128, 160, 192, 256");
  constexpr int kTransA = static_cast<int>(AMajor);
  constexpr int kTransB = static_cast<int>(BMajor);
  const uint32_t scale_d = accumulate ? 1u : 0u;
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    BWGEMM_WGMMA_SS_ALL_N("bf16.bf16")
  } else {
    BWGEMM_WGMMA_SS_ALL_N("f16.f16")
  }
}

// PTX ISA 9.7.15.7.1 wgmma.fence.sync.aligned: orders this warpgroup's earlier register and shared-memory
// accesses before the wgmma.mma_async operations that follow.
BWGEMM_DEVICE BWGEMM_FORCEINLINE void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}

// PTX ISA 9.7.15.7.2 wgmma.commit_group.sync.aligned: closes the current wgmma-group of this warpgroup.
BWGEMM_DEVICE BWGEMM_FORCEINLINE void wgmma_commit_group() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}

// PTX ISA 9.7.15.7.3 wgmma.wait_group.sync.aligned N: waits until at most MaxPending wgmma-groups of this
// warpgroup are pending (their accumulators and shared-memory reads then complete).
template <int MaxPending = 0>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void wgmma_wait_group() {
  static_assert(MaxPending >= 0 && MaxPending <= 7, "wgmma.wait_group takes an immediate in [0, 7]");
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(MaxPending) : "memory");
}

// Keeps the compiler from moving reads or writes of an accumulator fragment across the asynchronous
// wgmma (CUTLASS's warpgroup_fence_operand): an empty asm that "modifies" every register of it.
template <int R>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void wgmma_fence_operand(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// PTX ISA 9.7.17.1 setmaxnreg.{inc,dec}.sync.aligned.u32: raise (consumer warpgroups) or lower (producer
// warpgroup) this warpgroup's per-thread register budget to `Regs` (a multiple of 8 in [24, 256]). Takes
// effect only in a kernel with a register cap at entry (__launch_bounds__(threads, 1)), executed by all
// threads of the warpgroup.
template <int Regs>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void warpgroup_reg_alloc() {
  static_assert(Regs % 8 == 0 && Regs >= 24 && Regs <= 256, "setmaxnreg: a multiple of 8 in [24, 256]");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(Regs));
}
template <int Regs>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void warpgroup_reg_dealloc() {
  static_assert(Regs % 8 == 0 && Regs >= 24 && Regs <= 256, "setmaxnreg: a multiple of 8 in [24, 256]");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(Regs));
}

}  // namespace bwgemm::ptx
