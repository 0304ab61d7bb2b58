// Nvfp4ConfigBase: what the sm_100a NVFP4 kernels' Configs share (Nvfp4GemmConfig, nvfp4_gemm_config.cuh,
// with one B operand; Nvfp4DualGemmConfig, nvfp4_dual_gemm_config.cuh, with two): the tile shape, the
// scale-factor atoms, the stage layout, the transaction bytes, tensor memory and the shared-memory budget,
// all derived from BlockN, Stages, ClusterCtas, the Scheduler and the number of B operands. Each Config adds
// its knobs' types (epilogue, output, hints), the names of its pieces (kBOffset, kSfb1Column, ...) and its
// own limits.
//
// Tile: each CTA owns 128 output rows (the 128 tensor-memory lanes); a pair of CTAs (ClusterCtas 2) issues
// one M = 256 block-scaled tcgen05.mma (kind::mxf4nvf4, e4m3 scales per 16 K) from the even CTA with the B
// tile split between the two CTAs (seed 000). BlockN output columns per cluster; BlockK = 256 fp4 elements
// per pipeline stage, one 128-byte swizzle row per operand row. Per B operand one fp32 accumulator of BlockN
// columns lives in tensor memory.
#pragma once

#include <cstdint>
#include <type_traits>

#include "bwgemm/formats/scale_layout.cuh"
#include "bwgemm/kernels/sm100/common.cuh"
#include "bwgemm/kernels/sm100/roles.cuh"
#include "bwgemm/scheduler/schedulers.cuh"

namespace bwgemm::sm100 {

template <int BlockN_, int Stages_, int ClusterCtas_, class Scheduler_, int BOperands_>
struct Nvfp4ConfigBase
    : WarpRoles<2, ClusterCtas_, true> {  // two TMA producer warps (operands, scale factors), tile records
  using Scheduler = Scheduler_;

  // ---- knobs -------------------------------------------------------------------------------------------
  using WarpRoles<2, ClusterCtas_, true>::kClusterCtas;  // CTAs per cluster = the MMA's cta_group
  static constexpr int kBlockN = BlockN_;                // output columns per cluster tile = MMA N
  static constexpr int kStages = Stages_;                // shared-memory pipeline depth
  static constexpr int kBOperands = BOperands_;          // B tiles per stage = accumulators per tile (1 or 2)

  // ---- tile shape --------------------------------------------------------------------------------------
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
  // A, then the kBOperands B tiles, then SFA, then the kBOperands SFB tiles.
  static constexpr int kABytes = kBlockM * kRowBytes;
  static constexpr int kBBytes = kBRowsPerCta * kRowBytes;
  static constexpr int kAOffset = 0;
  static constexpr int kFirstBOffset = kAOffset + kABytes;
  static constexpr int kSfaOffset = kFirstBOffset + kBOperands * kBBytes;
  static constexpr int kFirstSfbOffset = kSfaOffset + kScaleBytes;
  static constexpr int kStageBytes = kFirstSfbOffset + kBOperands * kScaleBytes;
  // Transaction bytes each stage's full barrier (in the even CTA) receives per CTA, by producer warp.
  static constexpr uint32_t kOperandTxBytes = kABytes + kBOperands * kBBytes;
  // SFA of this CTA; the even CTA multicasts every SFB to the whole pair, and a multicast load counts its
  // bytes once per destination CTA (seed 000's note on complete_tx with .multicast::cluster).
  static constexpr uint32_t kScaleTxBytesEven = kScaleBytes + kClusterCtas * kBOperands * kScaleBytes;
  static constexpr uint32_t kScaleTxBytesOdd = kScaleBytes;

  // ---- warps: WarpRoles<2, ClusterCtas>, i.e. 4 epilogue warps, producer 0 (TMA of A and the B tiles),
  // producer 1 (TMA of SFA and the SFB tiles), MMA (tcgen05.cp + tcgen05.mma in the even CTA), scheduler
  static constexpr int kOperandProducer = 0;
  static constexpr int kScaleProducer = 1;

  // ---- accumulators and tensor memory ------------------------------------------------------------------
  static constexpr bool kPersistent = !std::is_same_v<Scheduler, sched::OneTilePerCluster>;
  static constexpr int kAccColumnsPerStage =
      kBOperands * kBlockN;  // one fp32 accumulator per B, in B's order
  // Scale columns: 8 per SFA atom in a pair (seed 000 reserves 8 for M = 256), 4 per SFB atom
  // (tcgen05.cp .32x128b.warpx4: 4 columns of 32 bits per 128-row atom).
  static constexpr int kScaleColumnsPerAtomA = kClusterCtas == 2 ? 8 : 4;
  static constexpr int kScaleColumnsPerAtomB = 4;
  static constexpr int kScaleColumns =
      kScaleAtomsPerStage * (kScaleColumnsPerAtomA + kBOperands * kScaleColumnsPerAtomB);
  // Double-buffer the accumulators when a cluster computes several tiles and they fit with the scales.
  static constexpr int kAccStages =
      (kPersistent && 2 * kAccColumnsPerStage + kScaleColumns <= kTmemMaxColumns) ? 2 : 1;
  static constexpr int kAccColumns = kAccStages * kAccColumnsPerStage;
  static constexpr int kSfaColumn = kAccColumns;
  static constexpr int kFirstSfbColumn = kSfaColumn + kScaleAtomsPerStage * kScaleColumnsPerAtomA;
  static constexpr int kTmemColumnsUsed = kSfaColumn + kScaleColumns;
  static constexpr int kTmemColumns = tmem_alloc_columns(kTmemColumnsUsed);

  // ---- epilogue ----------------------------------------------------------------------------------------
  // Columns per tensor-memory load of each accumulator (tcgen05.ld .32x32b.x64, or .x32 where BlockN is 32):
  // the wider the load, the fewer chunk overheads per output (tools/epilogue_budget.py).
  static constexpr int kEpilogueColumns = BlockN_ % 64 == 0 ? 64 : 32;
  // NVFP4 output (Out = Nvfp4Output, nvfp4_output_store.cuh) needs each epilogue chunk to be one 4-column
  // group of an output row's blocked scales (64 columns, 4 contiguous scale bytes), so that N's padding to a
  // multiple of 64 lies inside the last tile column: BlockN a multiple of 64. Each Config asserts it.
  static constexpr bool kNvfp4OutChunks = kEpilogueColumns == kScaleAtomK;

  // ---- shared memory layout after the stages -----------------------------------------------------------
  static constexpr int kBarrierOffset = kStages * kStageBytes;
  using Barriers = BarrierLayout<kStages, kAccStages, true>;  // with the tile records
  // + kSmemAlignment: the kernel aligns the dynamic buffer's start up to 1024 bytes itself.
  static constexpr int kSmemBytes = kBarrierOffset + Barriers::kBytes + kSmemAlignment;

  // ---- the limits, explained ---------------------------------------------------------------------------
  static_assert(kBOperands == 1 || kBOperands == 2, "one B operand (the GEMM) or two (the dual GEMM)");
  static_assert(kClusterCtas == 1 || kClusterCtas == 2,
                "ClusterCtas is 1 (one CTA, M = 128) or 2 (a CTA pair, M = 256)");
  static_assert(kBlockN == 32 || kBlockN == 64 || kBlockN == 128,
                "BlockN must be 32, 64 or 128: the tile's N columns must sit inside one 128-row SFB atom, "
                "whose 32-row group the MMA's SFB column offset selects, and the accumulators plus the scale "
                "factors must fit the 512 tensor-memory columns");
  static_assert(kBRowsPerCta >= 8, "each CTA's B tile needs at least one 8-row swizzle atom");
  static_assert(kStages >= 2, "at least two pipeline stages are needed to overlap loads and MMAs");
  static_assert(kStageBytes % kSmemAlignment == 0, "stages must keep 1024-byte alignment");
  static_assert(kSmemBytes <= kMaxDynamicSmemBytes,
                "too many stages: Stages x StageBytes exceeds the 227 KB of shared memory (lower Stages)");
  static_assert(kTmemColumnsUsed <= kTmemMaxColumns,
                "accumulators and scale factors exceed 512 TMEM columns");
  static_assert(kBlockN % kEpilogueColumns == 0, "BlockN must be a multiple of the epilogue's 32 columns");
};

}  // namespace bwgemm::sm100
