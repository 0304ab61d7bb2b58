// The NVFP4 pieces the sm_100a block-scaled kernels share (the NVFP4 GEMM, nvfp4_gemm_kernel.cuh, and the
// NVFP4 dual GEMM, nvfp4_dual_gemm_kernel.cuh): the shared-memory descriptors of the e2m1 operand tiles and
// the scale atoms, the block-scaled MMA's instruction descriptor, the scale producer's TMA loads and the MMA
// warp's copies of the scale atoms to tensor memory. Each kernel's Roles keeps only what differs (how many
// B operands and accumulators it has).
#pragma once

#include <cuda.h>

#include <cstdint>

#include "bwgemm/isa/descriptors.hpp"
#include "bwgemm/kernels/sm100/common.cuh"
#include "bwgemm/ptx/ptx.cuh"
#include "bwgemm/scheduler/tile_order.cuh"

namespace bwgemm::sm100 {

namespace detail {

// Shared-memory matrix descriptor of a K-major operand tile whose rows are 128-byte swizzle rows: 8-row core
// groups (one swizzle atom) kSw128AtomBytes apart (SBO), LBO unused for swizzled K-major layouts (seed 000).
inline constexpr uint32_t kSwizzleAtomRows = 8;
inline constexpr uint32_t kSw128RowBytes = 128;
inline constexpr uint64_t kOperandDescBase =
    ptx::SmemDescriptor{0, 0, kSwizzleAtomRows* kSw128RowBytes, 0, false, ptx::SmemSwizzle::k128B}.encode();
// Descriptor of a 512-byte scale atom as tcgen05.cp .32x128b reads it: 16-byte rows, 8-row groups 128 bytes
// apart, no swizzle (seed 000's SF_desc_base).
inline constexpr uint32_t kScaleAtomLineBytes = 16;
inline constexpr uint64_t kScaleDescBase =
    ptx::SmemDescriptor{0, 0, kSwizzleAtomRows* kScaleAtomLineBytes, 0, false, ptx::SmemSwizzle::kNone}
        .encode();

}  // namespace detail

// The instruction descriptor of the kernels' block-scaled MMA (kind::mxf4nvf4): e2m1 A and B, both K-major,
// not negated, ue4m3 scales, a ClusterBlockM x BlockN accumulator.
template <class Cfg>
inline constexpr uint32_t kNvfp4MmaInstrDesc = ptx::InstrDescMxf4Nvf4{ptx::MmaF4Format::kE2M1,
                                                                      ptx::MmaF4Format::kE2M1,
                                                                      false,
                                                                      false,
                                                                      ptx::MmaMajor::kK,
                                                                      ptx::MmaMajor::kK,
                                                                      Cfg::kClusterBlockM,
                                                                      Cfg::kBlockN,
                                                                      ptx::MmaScaleFormat::kUE4M3}
                                                   .encode();

// SFB holds 128 N rows per atom in 32-row column groups: the group of tile t's first N row, the column
// offset of its scales inside each SFB atom in tensor memory.
template <class Cfg, class Tile>
BWGEMM_DEVICE BWGEMM_FORCEINLINE uint32_t nvfp4_sfb_group(const Tile& t) {
  return static_cast<uint32_t>((t.n * Cfg::kBlockN) % Cfg::kScaleAtomRows / Cfg::kScaleAtomRowGroup);
}

// The scale producer's load of SFA: scale atoms atom .. + kScaleAtomsPerStage - 1 of 128-row block m_block
// into this CTA's stage at `dst`, with A's L2 hint where Cfg::kHints asks for one (the scales are re-read
// exactly as often as their operand).
template <class Cfg>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void nvfp4_load_sfa(uint32_t dst, const CUtensorMap* map, uint32_t bar,
                                                     int32_t atom, int32_t m_block, int32_t batch,
                                                     uint64_t hint_a) {
  if constexpr (Cfg::kHints != L2CacheHints::kNone) {
    ptx::tma_load<Cfg::kClusterCtas>(dst, map, bar, {0, atom, m_block, batch}, hint_a);
  } else {
    ptx::tma_load<Cfg::kClusterCtas>(dst, map, bar, {0, atom, m_block, batch});
  }
}

// The even CTA's load of one SFB (the 128-row scale block n_block holding the tile's N columns), multicast
// to the pair when the cluster is one, with B's L2 hint where Cfg::kHints asks for one.
template <class Cfg>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void nvfp4_load_sfb(uint32_t dst, const CUtensorMap* map, uint32_t bar,
                                                     int32_t atom, int32_t n_block, int32_t batch,
                                                     uint64_t hint_b) {
  constexpr bool kHinted = Cfg::kHints != L2CacheHints::kNone;
  if constexpr (Cfg::kClusterCtas == 2 && kHinted) {
    ptx::tma_load_multicast<2>(dst, map, bar, {0, atom, n_block, batch}, kPairMask<2>, hint_b);
  } else if constexpr (Cfg::kClusterCtas == 2) {
    ptx::tma_load_multicast<2>(dst, map, bar, {0, atom, n_block, batch}, kPairMask<2>);
  } else if constexpr (kHinted) {
    ptx::tma_load<1>(dst, map, bar, {0, atom, n_block, batch}, hint_b);
  } else {
    ptx::tma_load<1>(dst, map, bar, {0, atom, n_block, batch});
  }
}

// One scale operand of a stage as the MMA warp copies it: its offset in the stage, its first tensor-memory
// column and the columns each of its atoms takes there.
struct Nvfp4ScaleCopy {
  uint32_t smem_offset;
  uint32_t tmem_column;
  uint32_t columns_per_atom;
};

// The MMA warp's copies of a stage's scale atoms to tensor memory (tcgen05.cp), atom by atom and per atom
// in the order of `scales` (SFA first, then each SFB). The stage's descriptors are built once; each atom
// moves them by its bytes.
template <class Cfg, class... Scales>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void nvfp4_copy_scales(uint32_t tmem, uint32_t base,
                                                        const Scales&... scales) {
  const uint64_t descs[] = {
      ptx::smem_desc_with_address(detail::kScaleDescBase, base + scales.smem_offset)...};
#pragma unroll
  for (uint32_t j = 0; j < Cfg::kScaleAtomsPerStage; ++j) {
    const uint32_t atom_offset = j * Cfg::kScaleAtomBytes;
    int i = 0;
    (ptx::tcgen05_cp<Cfg::kClusterCtas>(tmem + scales.tmem_column + j * scales.columns_per_atom,
                                        smem_desc_advanced(descs[i++], atom_offset)),
     ...);
  }
}

}  // namespace bwgemm::sm100
