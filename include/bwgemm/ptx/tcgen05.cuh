// tcgen05 (5th-generation tensor core) wrappers: TMEM allocation, mma (kind::f16, kind::mxf4nvf4 block
// scaled), cp (smem -> TMEM), ld (TMEM -> registers), commit, fences.
//
// Operands: tensor memory as 32-bit TMEM addresses (lane in bits 31-16, column in bits 15-0); shared
// memory as 32-bit shared-window addresses; matrix operands as 64-bit shared memory descriptors and the
// instruction as a 32-bit instruction descriptor (descriptors.hpp builds both).
//
// Inline asm, not cuda::ptx: we pass cta_group and other qualifiers as template parameters of one wrapper,
// the .block16 spelling and the .collector::a::* forms of kind::f16 are not in CCCL's tcgen05 set, and
// the CCCL shipped with CUDA 12.8 cannot be relied on to carry the tcgen05 wrappers at all.
#pragma once

#include <cstdint>

#include <bwgemm/base/macros.hpp>
#include <bwgemm/isa/types.hpp>

#if BWGEMM_EMULATION
#include <bwgemm/emu/backend.hpp>
#endif

// kind::mxf4nvf4 with 16-element scale blocks (NVFP4) is spelled .block_scale.block16 from PTX ISA 8.8
// (CUDA 12.9) on; CUDA 12.8 (PTX ISA 8.7) only knows the equivalent .block_scale.scale_vec::4X.
// Define BWGEMM_PTX_FORCE_SCALE_VEC_4X to emit the old spelling with any toolkit (the compile test does,
// to keep the 12.8 form checked by ptxas).
#if !defined(BWGEMM_PTX_FORCE_SCALE_VEC_4X) && defined(__CUDACC_VER_MAJOR__) && \
    (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 9))
#define BWGEMM_PTX_MXF4NVF4_BLOCK16 ".block16"
#else
#define BWGEMM_PTX_MXF4NVF4_BLOCK16 ".scale_vec::4X"
#endif

namespace bwgemm::ptx {

// ----------------------------------------------------------------------------------------------------
// Allocation (PTX ISA 9.7.16 tcgen05.alloc / tcgen05.dealloc / tcgen05.relinquish_alloc_permit).
// Warp-wide (.sync.aligned): the whole warp executes them. With CtaGroup 2 one warp in each CTA of the pair
// executes them and the allocation is made in both CTAs' tensor memory.
// ----------------------------------------------------------------------------------------------------

// tcgen05.alloc.cta_group::N.sync.aligned.shared::cta.b32 [dst], ncols: allocate `ncols` TMEM columns
// (a power of two >= 32) and write the TMEM address to shared memory at `dst_smem`.
template <int CtaGroup = 1>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void tcgen05_alloc(uint32_t dst_smem, uint32_t ncols) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::tcgen05_alloc<CtaGroup>(dst_smem, ncols);
#else
  static_assert(CtaGroup == 1 || CtaGroup == 2, "cta_group must be 1 or 2");
  asm volatile("tcgen05.alloc.cta_group::%2.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(dst_smem),
               "r"(ncols), "n"(CtaGroup)
               : "memory");
#endif
}

// tcgen05.dealloc.cta_group::N.sync.aligned.b32 taddr, ncols.
template <int CtaGroup = 1>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void tcgen05_dealloc(uint32_t taddr, uint32_t ncols) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::tcgen05_dealloc<CtaGroup>(taddr, ncols);
#else
  static_assert(CtaGroup == 1 || CtaGroup == 2, "cta_group must be 1 or 2");
  asm volatile("tcgen05.dealloc.cta_group::%2.sync.aligned.b32 %0, %1;" ::"r"(taddr), "r"(ncols),
               "n"(CtaGroup)
               : "memory");
#endif
}

// tcgen05.relinquish_alloc_permit.cta_group::N.sync.aligned: this CTA will not allocate again (lets a
// co-resident CTA's alloc proceed).
template <int CtaGroup = 1>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void tcgen05_relinquish_alloc_permit() {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::tcgen05_relinquish_alloc_permit<CtaGroup>();
#else
  static_assert(CtaGroup == 1 || CtaGroup == 2, "cta_group must be 1 or 2");
  asm volatile("tcgen05.relinquish_alloc_permit.cta_group::%0.sync.aligned;" ::"n"(CtaGroup) : "memory");
#endif
}

// ----------------------------------------------------------------------------------------------------
// MMA (PTX ISA 9.7.16 tcgen05.mma). Issued by one thread. D (in TMEM) = A * B (+ D when accumulate).
// With CtaGroup 2 the even CTA of the pair issues it: A rows are split between the two CTAs' smem, B
// columns likewise, D lives in both CTAs' TMEM.
// ----------------------------------------------------------------------------------------------------

#if !BWGEMM_EMULATION
// The collector-usage qualifier, prepended/unrolled by the wrappers below (one asm string per usage).
#define BWGEMM_TCGEN05_FOR_EACH_COLLECTOR(STMT)                 \
  if constexpr (Collector == CollectorUsage::kNone) {           \
    STMT("")                                                    \
  } else if constexpr (Collector == CollectorUsage::kFill) {    \
    STMT(".collector::a::fill")                                 \
  } else if constexpr (Collector == CollectorUsage::kUse) {     \
    STMT(".collector::a::use")                                  \
  } else if constexpr (Collector == CollectorUsage::kLastUse) { \
    STMT(".collector::a::lastuse")                              \
  } else {                                                      \
    STMT(".collector::a::discard")                              \
  }
#endif

// tcgen05.mma.cta_group::N.kind::f16[.collector::a::*] [d_tmem], a_desc, b_desc, idesc, enable_input_d:
// f16/bf16 A and B from shared memory, f32 (or f16) accumulator; idesc from InstrDescF16::encode().
template <int CtaGroup = 1, CollectorUsage Collector = CollectorUsage::kNone>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void tcgen05_mma_f16(uint32_t d_tmem, uint64_t a_desc, uint64_t b_desc,
                                                      uint32_t idesc, bool accumulate) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::tcgen05_mma_f16<CtaGroup, Collector>(d_tmem, a_desc, b_desc, idesc, accumulate);
#else
  static_assert(CtaGroup == 1 || CtaGroup == 2, "cta_group must be 1 or 2");
  const uint32_t enable_input_d = accumulate ? 1u : 0u;
#define BWGEMM_MMA_F16_ASM(COLLECTOR)                                                             \
  asm volatile(                                                                                   \
      "{\n\t.reg .pred p;\n\t"                                                                    \
      "setp.ne.b32 p, %4, 0;\n\t"                                                                 \
      "tcgen05.mma.cta_group::%5.kind::f16" COLLECTOR " [%0], %1, %2, %3, p;\n\t}" ::"r"(d_tmem), \
      "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(enable_input_d), "n"(CtaGroup)                    \
      : "memory");
  BWGEMM_TCGEN05_FOR_EACH_COLLECTOR(BWGEMM_MMA_F16_ASM)
#undef BWGEMM_MMA_F16_ASM
#endif
}

// tcgen05.mma.cta_group::N.kind::mxf4nvf4.block_scale.block16[.collector::a::*] [d_tmem], a_desc, b_desc,
// idesc, [sfa_tmem], [sfb_tmem], enable_input_d: NVFP4 (e2m1 with ue4m3 scales per 16 K elements), K = 64
// per instruction; scale factors in TMEM (tcgen05_cp). idesc from InstrDescMxf4Nvf4::encode().
// (.scale_vec::4X with CUDA 12.8, see BWGEMM_PTX_MXF4NVF4_BLOCK16.)
template <int CtaGroup = 1, CollectorUsage Collector = CollectorUsage::kNone>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void tcgen05_mma_mxf4nvf4(uint32_t d_tmem, uint64_t a_desc, uint64_t b_desc,
                                                           uint32_t idesc, uint32_t sfa_tmem,
                                                           uint32_t sfb_tmem, bool accumulate) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::tcgen05_mma_mxf4nvf4<CtaGroup, Collector>(d_tmem, a_desc, b_desc, idesc, sfa_tmem,
                                                                  sfb_tmem, accumulate);
#else
  static_assert(CtaGroup == 1 || CtaGroup == 2, "cta_group must be 1 or 2");
  const uint32_t enable_input_d = accumulate ? 1u : 0u;
#define BWGEMM_MMA_MXF4NVF4_ASM(COLLECTOR)                                                                   \
  asm volatile(                                                                                              \
      "{\n\t.reg .pred p;\n\t"                                                                               \
      "setp.ne.b32 p, %6, 0;\n\t"                                                                            \
      "tcgen05.mma.cta_group::%7.kind::mxf4nvf4.block_scale" BWGEMM_PTX_MXF4NVF4_BLOCK16 COLLECTOR           \
      " [%0], %1, %2, %3, [%4], [%5], p;\n\t}" ::"r"(d_tmem),                                                \
      "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(sfa_tmem), "r"(sfb_tmem), "r"(enable_input_d), "n"(CtaGroup) \
      : "memory");
  BWGEMM_TCGEN05_FOR_EACH_COLLECTOR(BWGEMM_MMA_MXF4NVF4_ASM)
#undef BWGEMM_MMA_MXF4NVF4_ASM
#endif
}

#if !BWGEMM_EMULATION
#undef BWGEMM_TCGEN05_FOR_EACH_COLLECTOR
#endif

// ----------------------------------------------------------------------------------------------------
// Commit (PTX ISA 9.7.16 tcgen05.commit): one arrive::one on `bar` once every tcgen05 operation this
// thread issued before has completed. `bar` is a shared::cluster address (a local barrier's shared address
// is one).
// ----------------------------------------------------------------------------------------------------

// tcgen05.commit.cta_group::N.mbarrier::arrive::one.shared::cluster.b64 [bar].
template <int CtaGroup = 1>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void tcgen05_commit(uint32_t bar) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::tcgen05_commit<CtaGroup>(bar);
#else
  static_assert(CtaGroup == 1 || CtaGroup == 2, "cta_group must be 1 or 2");
  asm volatile("tcgen05.commit.cta_group::%1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(bar),
               "n"(CtaGroup)
               : "memory");
#endif
}

// tcgen05.commit.cta_group::N.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [bar], mask:
// the arrive lands on the barrier at offset `bar` in every CTA whose rank bit is set in cta_mask.
template <int CtaGroup = 1>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void tcgen05_commit_multicast(uint32_t bar, uint16_t cta_mask) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::tcgen05_commit_multicast<CtaGroup>(bar, cta_mask);
#else
  static_assert(CtaGroup == 1 || CtaGroup == 2, "cta_group must be 1 or 2");
  asm volatile(
      "tcgen05.commit.cta_group::%2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;" ::
          "r"(bar),
      "h"(cta_mask), "n"(CtaGroup)
      : "memory");
#endif
}

// ----------------------------------------------------------------------------------------------------
// Fences (PTX ISA 9.7.16 tcgen05.fence): order tcgen05 operations against thread synchronization.
// ----------------------------------------------------------------------------------------------------

// tcgen05.fence::before_thread_sync: prior tcgen05 ops are ordered before a following barrier/sync.
BWGEMM_DEVICE BWGEMM_FORCEINLINE void tcgen05_fence_before_thread_sync() {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::tcgen05_fence_before_thread_sync();
#else
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
#endif
}

// tcgen05.fence::after_thread_sync: following tcgen05 ops are ordered after a preceding barrier/sync.
BWGEMM_DEVICE BWGEMM_FORCEINLINE void tcgen05_fence_after_thread_sync() {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::tcgen05_fence_after_thread_sync();
#else
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
#endif
}

// ----------------------------------------------------------------------------------------------------
// Copy shared memory -> TMEM (PTX ISA 9.7.16 tcgen05.cp). Issued by one thread; asynchronous, ordered
// before later tcgen05.mma of the same thread. `s_desc` is a shared memory descriptor of the source.
// ----------------------------------------------------------------------------------------------------

// tcgen05.cp.cta_group::N.<shape> [taddr], s_desc. Seed 000 copies its scale factors with
// TmemCopyShape::k32x128bWarpx4 (each 32x128b block is replicated to the four 32-lane quarters).
template <int CtaGroup = 1, TmemCopyShape Shape = TmemCopyShape::k32x128bWarpx4>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void tcgen05_cp(uint32_t taddr, uint64_t s_desc) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::tcgen05_cp<CtaGroup, Shape>(taddr, s_desc);
#else
  static_assert(CtaGroup == 1 || CtaGroup == 2, "cta_group must be 1 or 2");
#define BWGEMM_TCGEN05_CP_ASM(SHAPE)                                                                   \
  asm volatile("tcgen05.cp.cta_group::%2." SHAPE " [%0], %1;" ::"r"(taddr), "l"(s_desc), "n"(CtaGroup) \
               : "memory")
  if constexpr (Shape == TmemCopyShape::k128x256b) {
    BWGEMM_TCGEN05_CP_ASM("128x256b");
  } else if constexpr (Shape == TmemCopyShape::k4x256b) {
    BWGEMM_TCGEN05_CP_ASM("4x256b");
  } else if constexpr (Shape == TmemCopyShape::k128x128b) {
    BWGEMM_TCGEN05_CP_ASM("128x128b");
  } else if constexpr (Shape == TmemCopyShape::k64x128bWarpx2_02_13) {
    BWGEMM_TCGEN05_CP_ASM("64x128b.warpx2::02_13");
  } else if constexpr (Shape == TmemCopyShape::k64x128bWarpx2_01_23) {
    BWGEMM_TCGEN05_CP_ASM("64x128b.warpx2::01_23");
  } else {
    BWGEMM_TCGEN05_CP_ASM("32x128b.warpx4");
  }
#undef BWGEMM_TCGEN05_CP_ASM
#endif
}

// ----------------------------------------------------------------------------------------------------
// Load TMEM -> registers (PTX ISA 9.7.16 tcgen05.ld, tcgen05.wait).
// ----------------------------------------------------------------------------------------------------

// tcgen05.ld.sync.aligned.32x32b.xN.b32 {out...}, [taddr]: warp-wide; lane i of the warp receives N
// consecutive 32-bit columns of TMEM lane (taddr's lane + i), starting at taddr's column. The warp may only
// address its own quarter of the lanes (32 * (warp_id % 4) ...). N = 1, 2, 4, ..., 128. The values are
// not usable before tcgen05_wait_ld(); read them only after it.
template <int N>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void tcgen05_ld_32x32b(uint32_t taddr, uint32_t (&out)[N]) {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::tcgen05_ld_32x32b<N>(taddr, out);
#else
  static_assert(N == 1 || N == 2 || N == 4 || N == 8 || N == 16 || N == 32 || N == 64 || N == 128,
                "tcgen05.ld .32x32b takes .x1 .. .x128 (powers of two)");
  if constexpr (N == 1) {
    asm volatile(
        "tcgen05.ld.sync.aligned.32x32b.x1.b32 {"
        "%0"
        "}, [%1];"
        : "=r"(out[0])
        : "r"(taddr));
  } else if constexpr (N == 2) {
    asm volatile(
        "tcgen05.ld.sync.aligned.32x32b.x2.b32 {"
        "%0, %1"
        "}, [%2];"
        : "=r"(out[0]), "=r"(out[1])
        : "r"(taddr));
  } else if constexpr (N == 4) {
    asm volatile(
        "tcgen05.ld.sync.aligned.32x32b.x4.b32 {"
        "%0, %1, %2, %3"
        "}, [%4];"
        : "=r"(out[0]), "=r"(out[1]), "=r"(out[2]), "=r"(out[3])
        : "r"(taddr));
  } else if constexpr (N == 8) {
    asm volatile(
        "tcgen05.ld.sync.aligned.32x32b.x8.b32 {"
        "%0, %1, %2, %3, %4, %5, %6, %7"
        "}, [%8];"
        : "=r"(out[0]), "=r"(out[1]), "=r"(out[2]), "=r"(out[3]), "=r"(out[4]), "=r"(out[5]), "=r"(out[6]),
          "=r"(out[7])
        : "r"(taddr));
  } else if constexpr (N == 16) {
    asm volatile(
        "tcgen05.ld.sync.aligned.32x32b.x16.b32 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15"
        "}, [%16];"
        : "=r"(out[0]), "=r"(out[1]), "=r"(out[2]), "=r"(out[3]), "=r"(out[4]), "=r"(out[5]), "=r"(out[6]),
          "=r"(out[7]), "=r"(out[8]), "=r"(out[9]), "=r"(out[10]), "=r"(out[11]), "=r"(out[12]),
          "=r"(out[13]), "=r"(out[14]), "=r"(out[15])
        : "r"(taddr));
  } else if constexpr (N == 32) {
    asm volatile(
        "tcgen05.ld.sync.aligned.32x32b.x32.b32 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
        "}, [%32];"
        : "=r"(out[0]), "=r"(out[1]), "=r"(out[2]), "=r"(out[3]), "=r"(out[4]), "=r"(out[5]), "=r"(out[6]),
          "=r"(out[7]), "=r"(out[8]), "=r"(out[9]), "=r"(out[10]), "=r"(out[11]), "=r"(out[12]),
          "=r"(out[13]), "=r"(out[14]), "=r"(out[15]), "=r"(out[16]), "=r"(out[17]), "=r"(out[18]),
          "=r"(out[19]), "=r"(out[20]), "=r"(out[21]), "=r"(out[22]), "=r"(out[23]), "=r"(out[24]),
          "=r"(out[25]), "=r"(out[26]), "=r"(out[27]), "=r"(out[28]), "=r"(out[29]), "=r"(out[30]),
          "=r"(out[31])
        : "r"(taddr));
  } else if constexpr (N == 64) {
    asm volatile(
        "tcgen05.ld.sync.aligned.32x32b.x64.b32 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
        "}, [%64];"
        : "=r"(out[0]), "=r"(out[1]), "=r"(out[2]), "=r"(out[3]), "=r"(out[4]), "=r"(out[5]), "=r"(out[6]),
          "=r"(out[7]), "=r"(out[8]), "=r"(out[9]), "=r"(out[10]), "=r"(out[11]), "=r"(out[12]),
          "=r"(out[13]), "=r"(out[14]), "=r"(out[15]), "=r"(out[16]), "=r"(out[17]), "=r"(out[18]),
          "=r"(out[19]), "=r"(out[20]), "=r"(out[21]), "=r"(out[22]), "=r"(out[23]), "=r"(out[24]),
          "=r"(out[25]), "=r"(out[26]), "=r"(out[27]), "=r"(out[28]), "=r"(out[29]), "=r"(out[30]),
          "=r"(out[31]), "=r"(out[32]), "=r"(out[33]), "=r"(out[34]), "=r"(out[35]), "=r"(out[36]),
          "=r"(out[37]), "=r"(out[38]), "=r"(out[39]), "=r"(out[40]), "=r"(out[41]), "=r"(out[42]),
          "=r"(out[43]), "=r"(out[44]), "=r"(out[45]), "=r"(out[46]), "=r"(out[47]), "=r"(out[48]),
          "=r"(out[49]), "=r"(out[50]), "=r"(out[51]), "=r"(out[52]), "=r"(out[53]), "=r"(out[54]),
          "=r"(out[55]), "=r"(out[56]), "=r"(out[57]), "=r"(out[58]), "=r"(out[59]), "=r"(out[60]),
          "=r"(out[61]), "=r"(out[62]), "=r"(out[63])
        : "r"(taddr));
  } else if constexpr (N == 128) {
    asm volatile(
        "tcgen05.ld.sync.aligned.32x32b.x128.b32 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
        "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
        "}, [%128];"
        : "=r"(out[0]), "=r"(out[1]), "=r"(out[2]), "=r"(out[3]), "=r"(out[4]), "=r"(out[5]), "=r"(out[6]),
          "=r"(out[7]), "=r"(out[8]), "=r"(out[9]), "=r"(out[10]), "=r"(out[11]), "=r"(out[12]),
          "=r"(out[13]), "=r"(out[14]), "=r"(out[15]), "=r"(out[16]), "=r"(out[17]), "=r"(out[18]),
          "=r"(out[19]), "=r"(out[20]), "=r"(out[21]), "=r"(out[22]), "=r"(out[23]), "=r"(out[24]),
          "=r"(out[25]), "=r"(out[26]), "=r"(out[27]), "=r"(out[28]), "=r"(out[29]), "=r"(out[30]),
          "=r"(out[31]), "=r"(out[32]), "=r"(out[33]), "=r"(out[34]), "=r"(out[35]), "=r"(out[36]),
          "=r"(out[37]), "=r"(out[38]), "=r"(out[39]), "=r"(out[40]), "=r"(out[41]), "=r"(out[42]),
          "=r"(out[43]), "=r"(out[44]), "=r"(out[45]), "=r"(out[46]), "=r"(out[47]), "=r"(out[48]),
          "=r"(out[49]), "=r"(out[50]), "=r"(out[51]), "=r"(out[52]), "=r"(out[53]), "=r"(out[54]),
          "=r"(out[55]), "=r"(out[56]), "=r"(out[57]), "=r"(out[58]), "=r"(out[59]), "=r"(out[60]),
          "=r"(out[61]), "=r"(out[62]), "=r"(out[63]), "=r"(out[64]), "=r"(out[65]), "=r"(out[66]),
          "=r"(out[67]), "=r"(out[68]), "=r"(out[69]), "=r"(out[70]), "=r"(out[71]), "=r"(out[72]),
          "=r"(out[73]), "=r"(out[74]), "=r"(out[75]), "=r"(out[76]), "=r"(out[77]), "=r"(out[78]),
          "=r"(out[79]), "=r"(out[80]), "=r"(out[81]), "=r"(out[82]), "=r"(out[83]), "=r"(out[84]),
          "=r"(out[85]), "=r"(out[86]), "=r"(out[87]), "=r"(out[88]), "=r"(out[89]), "=r"(out[90]),
          "=r"(out[91]), "=r"(out[92]), "=r"(out[93]), "=r"(out[94]), "=r"(out[95]), "=r"(out[96]),
          "=r"(out[97]), "=r"(out[98]), "=r"(out[99]), "=r"(out[100]), "=r"(out[101]), "=r"(out[102]),
          "=r"(out[103]), "=r"(out[104]), "=r"(out[105]), "=r"(out[106]), "=r"(out[107]), "=r"(out[108]),
          "=r"(out[109]), "=r"(out[110]), "=r"(out[111]), "=r"(out[112]), "=r"(out[113]), "=r"(out[114]),
          "=r"(out[115]), "=r"(out[116]), "=r"(out[117]), "=r"(out[118]), "=r"(out[119]), "=r"(out[120]),
          "=r"(out[121]), "=r"(out[122]), "=r"(out[123]), "=r"(out[124]), "=r"(out[125]), "=r"(out[126]),
          "=r"(out[127])
        : "r"(taddr));
  }
#endif
}

// tcgen05.wait::ld.sync.aligned: wait until all prior tcgen05.ld of this thread have completed.
BWGEMM_DEVICE BWGEMM_FORCEINLINE void tcgen05_wait_ld() {
#if BWGEMM_EMULATION
  return ::bwgemm::emu::tcgen05_wait_ld();
#else
  asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
#endif
}

}  // namespace bwgemm::ptx
