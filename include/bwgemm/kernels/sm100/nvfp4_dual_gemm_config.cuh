// Nvfp4DualGemmConfig: every knob of the sm_100a NVFP4 dual GEMM and everything derived from them.
//
//   using Cfg = bwgemm::sm100::Nvfp4DualGemmConfig<128, 5, 2, bwgemm::sched::ClcWorkStealing>;
//
// Tile: each CTA owns 128 output rows (the 128 tensor-memory lanes); a pair of CTAs (ClusterCtas 2) issues
// one M = 256 tcgen05.mma from the even CTA with the B tile split between the two CTAs (seed 000).
// BlockN output columns per cluster; BlockK = 256 fp4 elements per pipeline stage, i.e. one 128-byte
// swizzle row per operand row. Both accumulators (gate A·B1ᵀ and up A·B2ᵀ) live in tensor memory.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/epilogue/nvfp4_output.cuh"
#include "bwgemm/formats/scale_layout.cuh"
#include "bwgemm/kernels/sm100/common.cuh"
#include "bwgemm/kernels/sm100/roles.cuh"
#include "bwgemm/scheduler/schedulers.cuh"

namespace bwgemm {

// L2 eviction hints on the operand loads.
enum class L2CacheHints {
  kNone,     // no .L2::cache_hint
  kByShape,  // keep the operand that is re-read by more tiles (B when M > N, else A) with evict_last and
             // stream the other with evict_first (the GPU MODE winners' rule, seed 000)
};

namespace sm100 {

template <int BlockN_, int Stages_, int ClusterCtas_, class Scheduler_, class Epilogue_ = epi::SiluMul,
          class Out_ = __half, L2CacheHints Hints_ = L2CacheHints::kByShape>
struct Nvfp4DualGemmConfig : WarpRoles<2, ClusterCtas_> {  // two TMA producer warps: operands, scale factors
  using Scheduler = Scheduler_;
  using Epilogue = Epilogue_;
  using Out = Out_;
  // Out = Nvfp4Output: C is NVFP4 (packed e2m1 bytes plus blocked e4m3 scales), quantized in the epilogue.
  static constexpr bool kNvfp4Out = std::is_same_v<Out, Nvfp4Output>;
  using CElement = std::conditional_t<kNvfp4Out, uint8_t, Out>;  // what C's data pointer points to
  static constexpr L2CacheHints kHints = Hints_;
  // The same kernel with another epilogue functor or output type.
  template <class E>
  using WithEpilogue = Nvfp4DualGemmConfig<BlockN_, Stages_, ClusterCtas_, Scheduler_, E, Out_, Hints_>;
  template <class O>
  using WithOut = Nvfp4DualGemmConfig<BlockN_, Stages_, ClusterCtas_, Scheduler_, Epilogue_, O, Hints_>;

  // ---- knobs -------------------------------------------------------------------------------------------
  using WarpRoles<2, ClusterCtas_>::kClusterCtas;  // CTAs per cluster = the MMA's cta_group
  static constexpr int kBlockN = BlockN_;          // output columns per cluster tile = MMA N
  static constexpr int kStages = Stages_;          // shared-memory pipeline depth

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
  static constexpr int kABytes = kBlockM * kRowBytes;
  static constexpr int kBBytes = kBRowsPerCta * kRowBytes;
  static constexpr int kAOffset = 0;
  static constexpr int kB1Offset = kAOffset + kABytes;
  static constexpr int kB2Offset = kB1Offset + kBBytes;
  static constexpr int kSfaOffset = kB2Offset + kBBytes;
  static constexpr int kSfb1Offset = kSfaOffset + kScaleBytes;
  static constexpr int kSfb2Offset = kSfb1Offset + kScaleBytes;
  static constexpr int kStageBytes = kSfb2Offset + kScaleBytes;
  // Transaction bytes each stage's full barrier (in the even CTA) receives per CTA, by producer warp.
  static constexpr uint32_t kOperandTxBytes = kABytes + 2 * kBBytes;
  // SFA of this CTA; the even CTA multicasts SFB1 and SFB2 to the whole pair, and a multicast load counts
  // its bytes once per destination CTA (seed 000's note on complete_tx with .multicast::cluster).
  static constexpr uint32_t kScaleTxBytesEven = kScaleBytes + kClusterCtas * 2 * kScaleBytes;
  static constexpr uint32_t kScaleTxBytesOdd = kScaleBytes;

  // ---- warps: WarpRoles<2, ClusterCtas>, i.e. 4 epilogue warps, producer 0 (TMA of A, B1, B2), producer 1
  // (TMA of SFA, SFB1, SFB2), MMA (tcgen05.cp + tcgen05.mma in the even CTA), scheduler
  // ------------------------
  static constexpr int kOperandProducer = 0;
  static constexpr int kScaleProducer = 1;

  // ---- accumulators and tensor memory ------------------------------------------------------------------
  static constexpr bool kPersistent = !std::is_same_v<Scheduler, sched::OneTilePerCluster>;
  static constexpr int kAccColumnsPerStage = 2 * kBlockN;  // ACC1 (gate) then ACC2 (up), fp32
  // Double-buffer the accumulators when a cluster computes several tiles and they fit with the scales.
  static constexpr int kScaleColumnsPerAtomA = kClusterCtas == 2 ? 8 : 4;  // seed 000 reserves 8 for M = 256
  static constexpr int kScaleColumnsPerAtomB = 4;  // 32x128b.warpx4: 4 columns of 32-bit per 128-row atom
  static constexpr int kScaleColumns =
      kScaleAtomsPerStage * (kScaleColumnsPerAtomA + 2 * kScaleColumnsPerAtomB);
  static constexpr int kAccStages =
      (kPersistent && 2 * kAccColumnsPerStage + kScaleColumns <= kTmemMaxColumns) ? 2 : 1;
  static constexpr int kAccColumns = kAccStages * kAccColumnsPerStage;
  static constexpr int kSfaColumn = kAccColumns;
  static constexpr int kSfb1Column = kSfaColumn + kScaleAtomsPerStage * kScaleColumnsPerAtomA;
  static constexpr int kSfb2Column = kSfb1Column + kScaleAtomsPerStage * kScaleColumnsPerAtomB;
  static constexpr int kTmemColumnsUsed = kSfb2Column + kScaleAtomsPerStage * kScaleColumnsPerAtomB;
  static constexpr int kTmemColumns = tmem_alloc_columns(kTmemColumnsUsed);

  // ---- epilogue ----------------------------------------------------------------------------------------
  // Columns per tensor-memory load of each accumulator (tcgen05.ld .32x32b.x64, or .x32 where BlockN is 32):
  // the wider the load, the fewer chunk overheads per output (tools/epilogue_budget.py).
  static constexpr int kEpilogueColumns = BlockN_ % 64 == 0 ? 64 : 32;

  // ---- shared memory layout after the stages -----------------------------------------------------------
  static constexpr int kBarrierOffset = kStages * kStageBytes;
  using Barriers = BarrierLayout<kStages, kAccStages>;
  // + kSmemAlignment: the kernel aligns the dynamic buffer's start up to 1024 bytes itself.
  static constexpr int kSmemBytes = kBarrierOffset + Barriers::kBytes + kSmemAlignment;

  // ---- the limits, explained ---------------------------------------------------------------------------
  static_assert(kClusterCtas == 1 || kClusterCtas == 2,
                "ClusterCtas is 1 (one CTA, M = 128) or 2 (a CTA pair, M = 256)");
  static_assert(kBlockN == 32 || kBlockN == 64 || kBlockN == 128,
                "BlockN must be 32, 64 or 128: two fp32 accumulators of N columns plus the scale factors "
                "must fit the 512 tensor-memory columns, and the SFB column offset selects 32-row groups");
  static_assert(kBRowsPerCta >= 8, "each CTA's B tile needs at least one 8-row swizzle atom");
  static_assert(kStages >= 2, "at least two pipeline stages are needed to overlap loads and MMAs");
  static_assert(kStageBytes % kSmemAlignment == 0, "stages must keep 1024-byte alignment");
  static_assert(kSmemBytes <= kMaxDynamicSmemBytes,
                "too many stages: Stages x StageBytes exceeds the 227 KB of shared memory (lower Stages)");
  static_assert(kTmemColumnsUsed <= kTmemMaxColumns,
                "accumulators and scale factors exceed 512 TMEM columns");
  static_assert(kBlockN % kEpilogueColumns == 0, "BlockN must be a multiple of the epilogue's 32 columns");
  static_assert(std::is_same_v<Out, __half> || std::is_same_v<Out, __nv_bfloat16> || kNvfp4Out,
                "Out is __half, __nv_bfloat16 or Nvfp4Output");
  // NVFP4 output: each epilogue chunk is one 4-column group of an output row's blocked scales (64 columns,
  // 4 contiguous scale bytes), so N's padding to a multiple of 64 lies inside the last tile column.
  static_assert(!kNvfp4Out || kEpilogueColumns == kScaleAtomK,
                "NVFP4 output needs BlockN a multiple of 64 (one 64-column chunk per 4 scale columns)");
};

}  // namespace sm100
}  // namespace bwgemm
