// Flags in global memory between CTAs of one grid (the sm_90a stream-K GEMM's hand-off of partial sums,
// kernels/sm90/gemm_kernel.cuh): a release store, an acquire load and a relaxed store of one 32-bit word
// (PTX ISA 9.7.9.8 ld, 9.7.9.10 st: `.acquire` / `.release` / `.relaxed` at `.gpu` scope; the memory
// consistency model, PTX ISA 8). The writer's pattern: every thread writes its data, a barrier of the
// threads that wrote (bar.sync orders their writes before it at CTA scope), then one thread's
// st_release_gpu of the flag, which is cumulative: it makes the others' writes visible before the flag at
// GPU scope. The reader's: one thread spins on ld_acquire_gpu until it sees the flag, then a barrier, after
// which every thread's ordinary loads see the data. ptxas emits the release as MEMBAR.ALL.GPU + a store:
// one GPU-scope fence per hand-off (within the two tools/check_sass_fences.py allows a kernel).
//
// Inline asm: cuda::ptx of CUDA 12.8 has no ld/st with these qualifiers. No CPU emulation: only the sm_90a
// kernels use them, and the emulator models sm_100a.
#pragma once

#include <cstdint>

#include <bwgemm/base/macros.hpp>

#if BWGEMM_EMULATION
#error \
    "bwgemm/ptx/flags.cuh: no CPU emulation (only the sm_90a stream-K GEMM uses it; the emulator models sm_100a)"
#endif

namespace bwgemm::ptx {

// ld.acquire.gpu.global.u32: the word at `flag`, later loads of this thread ordered after it.
BWGEMM_DEVICE BWGEMM_FORCEINLINE uint32_t ld_acquire_gpu(const uint32_t* flag) {
  uint32_t v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
  return v;
}

// st.release.gpu.global.u32: `value` to `flag`, every earlier write of this thread (and, cumulatively, those
// ordered before it by a barrier) visible at GPU scope first.
BWGEMM_DEVICE BWGEMM_FORCEINLINE void st_release_gpu(uint32_t* flag, uint32_t value) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(flag), "r"(value) : "memory");
}

// st.relaxed.gpu.global.u32: `value` to `flag`, no ordering (a reset that no thread of this grid reads
// again; the next grid on the stream sees it at its start).
BWGEMM_DEVICE BWGEMM_FORCEINLINE void st_relaxed_gpu(uint32_t* flag, uint32_t value) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(flag), "r"(value) : "memory");
}

}  // namespace bwgemm::ptx
