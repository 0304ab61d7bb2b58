// Nvfp4GemmConfig: every knob of the sm_100a NVFP4 GEMM and everything derived from them.
//
//   using Cfg = bwgemm::sm100::Nvfp4GemmConfig<128, 8, 2, bwgemm::sched::ClcWorkStealing>;
//
// The NVFP4 dual GEMM's machinery (nvfp4_dual_gemm_config.cuh) with one B operand and one accumulator:
// each CTA owns 128 output rows (the 128 tensor-memory lanes); a pair of CTAs (ClusterCtas 2) issues one
// M = 256 block-scaled tcgen05.mma (kind::mxf4nvf4, e4m3 scales per 16 K) from the even CTA with the B tile
// split between the two CTAs. BlockN output columns per cluster; BlockK = 256 fp4 elements per pipeline
// stage, one 128-byte swizzle row per operand row. The epilogue is the GEMM's (gemm_config.cuh): a functor on
// the fp32 accumulator, with C where it reads it, to fp16, bf16 or fp32.
//
// With one B tile per stage instead of two, a stage is smaller than the dual GEMM's (28 KB against 36 KB at
// BlockN 128 in a pair), so more stages fit, and one accumulator of BlockN columns leaves tensor memory for
// two accumulator stages at every BlockN.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/formats/scale_layout.cuh"
#include "bwgemm/kernels/sm100/common.cuh"
#include "bwgemm/kernels/sm100/nvfp4_dual_gemm_config.cuh"  // L2CacheHints
#include "bwgemm/kernels/sm100/roles.cuh"
#include "bwgemm/scheduler/schedulers.cuh"

namespace bwgemm::sm100 {

template <int BlockN_, int Stages_, int ClusterCtas_, class Scheduler_,
          class Epilogue_ = epi::LinearCombination, class Out_ = __half,
          L2CacheHints Hints_ = L2CacheHints::kByShape>
struct Nvfp4GemmConfig : WarpRoles<2, ClusterCtas_> {  // two TMA producer warps: operands, scale factors
  using Scheduler = Scheduler_;
  using Epilogue = Epilogue_;
  using Out = Out_;
  static constexpr L2CacheHints kHints = Hints_;
  // The same kernel with another epilogue functor or output type.
  template <class E>
  using WithEpilogue = Nvfp4GemmConfig<BlockN_, Stages_, ClusterCtas_, Scheduler_, E, Out_, Hints_>;
  template <class O>
  using WithOut = Nvfp4GemmConfig<BlockN_, Stages_, ClusterCtas_, Scheduler_, Epilogue_, O, Hints_>;

  // ---- knobs -------------------------------------------------------------------------------------------
  using WarpRoles<2, ClusterCtas_>::kClusterCtas;  // CTAs per cluster = the MMA's cta_group
  static constexpr int kBlockN = BlockN_;          // output columns per cluster tile = MMA N
  static constexpr int kStages = Stages_;          // shared-memory pipeline depth

  // ---- tile shape (the dual GEMM's) --------------------------------------------------------------------
  static constexpr int kBlockM = 128;                            // output rows per CTA = tensor-memory lanes
  static constexpr int kClusterBlockM = kBlockM * kClusterCtas;  // MMA M: 128 (cta_group::1) or 256 (::2)
  static constexpr int kBlockK = 256;                            // fp4 elements per stage: 128 bytes per row
  static constexpr int kMmaK = 64;                               // K of one kind::mxf4nvf4 MMA (32 bytes)
  static constexpr int kMmasPerStage = kBlockK / kMmaK;          // 4
  static constexpr int kBRowsPerCta = kBlockN / kClusterCtas;    // B rows each CTA loads (the pair splits B)
  static constexpr int kRowBytes = kBlockK / 2;                  // 128: one 128B-swizzle row

  // ---- scale factors (128x4 blocked layout: 512-byte atoms of 128 rows x 64 K elements) ----------------
  static constexpr int kScaleAtomBytes = ::bwgemm::kScaleAtomBytes;          // 512 (formats/scale_layout.cuh)
  static constexpr int kScaleAtomK = kScaleAtomCols * kNvfp4BlockSize;       // 64 K elements per atom
  static constexpr int kScaleAtomRows = ::bwgemm::kScaleAtomRows;            // 128 rows per atom
  static constexpr int kScaleAtomRowGroup = ::bwgemm::kScaleAtomRowGroup;    // 32 rows per 16-byte line
  static constexpr int kScaleAtomsPerStage = kBlockK / kScaleAtomK;          // 4
  static constexpr int kScaleBytes = kScaleAtomsPerStage * kScaleAtomBytes;  // one 128-row block: 2 KB

  // ---- shared memory per stage (offsets from the stage base; every piece 1024-byte aligned) -----------
  static constexpr int kABytes = kBlockM * kRowBytes;
  static constexpr int kBBytes = kBRowsPerCta * kRowBytes;
  static constexpr int kAOffset = 0;
  static constexpr int kBOffset = kAOffset + kABytes;
  static constexpr int kSfaOffset = kBOffset + kBBytes;
  static constexpr int kSfbOffset = kSfaOffset + kScaleBytes;
  static constexpr int kStageBytes = kSfbOffset + kScaleBytes;
  // Transaction bytes each stage's full barrier (in the even CTA) receives per CTA, by producer warp.
  static constexpr uint32_t kOperandTxBytes = kABytes + kBBytes;
  // SFA of this CTA; the even CTA multicasts SFB to the whole pair, and a multicast load counts its bytes
  // once per destination CTA (as in the dual GEMM, nvfp4_dual_gemm_config.cuh).
  static constexpr uint32_t kScaleTxBytesEven = kScaleBytes + kClusterCtas * kScaleBytes;
  static constexpr uint32_t kScaleTxBytesOdd = kScaleBytes;

  // ---- warps: WarpRoles<2, ClusterCtas>, i.e. 4 epilogue warps, producer 0 (TMA of A, B), producer 1 (TMA
  // of SFA, SFB), MMA (tcgen05.cp + tcgen05.mma in the even CTA), scheduler
  static constexpr int kOperandProducer = 0;
  static constexpr int kScaleProducer = 1;

  // ---- accumulator and tensor memory -------------------------------------------------------------------
  static constexpr bool kPersistent = !std::is_same_v<Scheduler, sched::OneTilePerCluster>;
  static constexpr int kAccColumnsPerStage = kBlockN;  // one fp32 accumulator
  // Scale columns as the dual GEMM reserves them: 8 per SFA atom in a pair (seed 000's M = 256 layout), 4 per
  // SFB atom (tcgen05.cp .32x128b.warpx4: 4 columns of 32 bits per 128-row atom).
  static constexpr int kScaleColumnsPerAtomA = kClusterCtas == 2 ? 8 : 4;
  static constexpr int kScaleColumnsPerAtomB = 4;
  static constexpr int kScaleColumns = kScaleAtomsPerStage * (kScaleColumnsPerAtomA + kScaleColumnsPerAtomB);
  // Double-buffer the accumulator when a cluster computes several tiles and both fit with the scales.
  static constexpr int kAccStages =
      (kPersistent && 2 * kAccColumnsPerStage + kScaleColumns <= kTmemMaxColumns) ? 2 : 1;
  static constexpr int kAccColumns = kAccStages * kAccColumnsPerStage;
  static constexpr int kSfaColumn = kAccColumns;
  static constexpr int kSfbColumn = kSfaColumn + kScaleAtomsPerStage * kScaleColumnsPerAtomA;
  static constexpr int kTmemColumnsUsed = kSfbColumn + kScaleAtomsPerStage * kScaleColumnsPerAtomB;
  static constexpr int kTmemColumns = tmem_alloc_columns(kTmemColumnsUsed);

  // ---- epilogue ----------------------------------------------------------------------------------------
  // Columns per tensor-memory load (tcgen05.ld .32x32b.x64, or .x32 where BlockN is 32), as for the GEMM.
  static constexpr int kEpilogueColumns = BlockN_ % 64 == 0 ? 64 : 32;

  // ---- shared memory layout after the stages -----------------------------------------------------------
  static constexpr int kBarrierOffset = kStages * kStageBytes;
  using Barriers = BarrierLayout<kStages, kAccStages>;
  // + kSmemAlignment: the kernel aligns the dynamic buffer's start up to 1024 bytes itself.
  static constexpr int kSmemBytes = kBarrierOffset + Barriers::kBytes + kSmemAlignment;

  // ---- the limits, explained ---------------------------------------------------------------------------
  static_assert(kClusterCtas == 1 || kClusterCtas == 2,
                "ClusterCtas is 1 (one CTA, M = 128) or 2 (a CTA pair, M = 256)");
  static_assert(
      kBlockN == 32 || kBlockN == 64 || kBlockN == 128,
      "BlockN must be 32, 64 or 128: the tile's N columns must sit inside one 128-row SFB atom, whose "
      "32-row group the MMA's SFB column offset selects");
  static_assert(kBRowsPerCta >= 8, "each CTA's B tile needs at least one 8-row swizzle atom");
  static_assert(kStages >= 2, "at least two pipeline stages are needed to overlap loads and MMAs");
  static_assert(kStageBytes % kSmemAlignment == 0, "stages must keep 1024-byte alignment");
  static_assert(kSmemBytes <= kMaxDynamicSmemBytes,
                "too many stages: Stages x StageBytes exceeds the 227 KB of shared memory (lower Stages)");
  static_assert(kTmemColumnsUsed <= kTmemMaxColumns,
                "accumulators and scale factors exceed 512 TMEM columns");
  static_assert(kBlockN % kEpilogueColumns == 0, "BlockN must be a multiple of the epilogue's 32 columns");
  static_assert(std::is_same_v<Out, __half> || std::is_same_v<Out, __nv_bfloat16> ||
                    std::is_same_v<Out, float>,
                "Out (the type of D and C) is __half, __nv_bfloat16 or float");
};

}  // namespace bwgemm::sm100
