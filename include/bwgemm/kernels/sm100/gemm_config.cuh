// GemmConfig: every knob of the sm_100a FP16/BF16 GEMM and everything derived from them.
//
//   using Cfg = bwgemm::sm100::GemmConfig<256, 0, 2, bwgemm::sched::ClcWorkStealing>;  // seed 004
//
// Tile: each CTA owns 128 output rows (the 128 tensor-memory lanes); a pair of CTAs (ClusterCtas 2) issues
// one M = 256 tcgen05.mma.kind::f16 from the even CTA with the B tile split between the two CTAs along N
// (seed 004). BlockN output columns per cluster = the MMA's N; BlockK = 64 fp16/bf16 elements per stage,
// one 128-byte swizzle row per row of A. The accumulator is fp32 in tensor memory.
//
// One kernel serves fp16 and bf16 inputs and both B layouts: the element type and B's major-ness only
// change the tensor maps (host) and the instruction / B descriptors, which travel in the kernel parameters.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "bwgemm/base/layout.hpp"
#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/isa/descriptors.hpp"
#include "bwgemm/kernels/sm100/common.cuh"
#include "bwgemm/kernels/sm100/roles.cuh"
#include "bwgemm/scheduler/schedulers.cuh"

namespace bwgemm::sm100 {

// The B operand's shared-memory descriptor (start address 0) and how far its start moves per MMA K step.
struct GemmBOperand {
  uint64_t desc_base = 0;
  uint32_t k_step_bytes = 0;
};

// Stages_ = 0: as many stages as fit in the 227 KB of shared memory.
template <int BlockN_, int Stages_, int ClusterCtas_, class Scheduler_,
          class Epilogue_ = epi::LinearCombination, class Out_ = __half>
struct GemmConfig : WarpRoles<1, ClusterCtas_, true> {  // one TMA producer warp (A and B), tile records
  using Scheduler = Scheduler_;
  using Epilogue = Epilogue_;
  using Out = Out_;
  // The same kernel with another epilogue functor or output type.
  template <class E>
  using WithEpilogue = GemmConfig<BlockN_, Stages_, ClusterCtas_, Scheduler_, E, Out_>;
  template <class O>
  using WithOut = GemmConfig<BlockN_, Stages_, ClusterCtas_, Scheduler_, Epilogue_, O>;

  // ---- knobs -------------------------------------------------------------------------------------------
  using WarpRoles<1, ClusterCtas_, true>::kClusterCtas;  // CTAs per cluster = the MMA's cta_group
  static constexpr int kBlockN = BlockN_;                // output columns per cluster tile = MMA N
  static constexpr int kStagesRequested = Stages_;

  // ---- tile shape --------------------------------------------------------------------------------------
  static constexpr int kBlockM = 128;                            // output rows per CTA = tensor-memory lanes
  static constexpr int kClusterBlockM = kBlockM * kClusterCtas;  // MMA M: 128 (cta_group::1) or 256 (::2)
  static constexpr int kElementBytes = 2;                        // fp16 / bf16 operands
  static constexpr int kBlockK = 64;                     // elements per stage: 128 bytes per row (seed 004)
  static constexpr int kMmaK = 16;                       // K of one kind::f16 MMA: 32 bytes (seed 004)
  static constexpr int kMmasPerStage = kBlockK / kMmaK;  // 4
  static constexpr int kRowBytes = kBlockK * kElementBytes;       // 128: one 128B-swizzle row
  static constexpr int kBColumnsPerCta = kBlockN / kClusterCtas;  // N columns of B each CTA loads

  // ---- shared memory per stage (offsets from the stage base; every piece 1024-byte aligned) -----------
  // A: 128 rows x 128 bytes, K-major, 128-byte swizzle (TMA box {64, 128, 1}).
  // B, N x K K-major:  kBColumnsPerCta rows x 128 bytes, the same scheme as A.
  // B, K x N row-major (MN-major in shared memory, seed 004): chunks of kBChunkColumns N columns, each
  //   64 K rows of one swizzle span (128 bytes, or 64 when a CTA holds only 32 columns), chunk after chunk.
  static constexpr int kABytes = kBlockM * kRowBytes;
  static constexpr int kBBytes = kBColumnsPerCta * kRowBytes;
  static constexpr int kAOffset = 0;
  static constexpr int kBOffset = kAOffset + kABytes;
  static constexpr int kStageBytes = kBOffset + kBBytes;
  static constexpr uint32_t kStageTxBytes = kStageBytes;  // per CTA: its A and B boxes, zero fill included
  static constexpr int kBMnSpanBytes = kBColumnsPerCta * kElementBytes >= 128 ? 128 : 64;
  static constexpr int kBChunkColumns = kBMnSpanBytes / kElementBytes;
  static constexpr int kBChunks = kBColumnsPerCta / kBChunkColumns;
  static constexpr int kBChunkBytes = kBlockK * kBMnSpanBytes;

  // ---- warps: WarpRoles<1, ClusterCtas>, i.e. 4 epilogue warps, the producer, MMA, scheduler (seed 004's 7
  // warps) --

  // ---- accumulators and tensor memory ------------------------------------------------------------------
  static constexpr bool kPersistent = !std::is_same_v<Scheduler, sched::OneTilePerCluster>;
  static constexpr int kAccColumnsPerStage = kBlockN;  // fp32, one column per output column
  // Double-buffer the accumulator when a cluster computes several tiles (2 x 256 = 512 columns at most).
  static constexpr int kAccStages = (kPersistent && 2 * kAccColumnsPerStage <= kTmemMaxColumns) ? 2 : 1;
  static constexpr int kTmemColumnsUsed = kAccStages * kAccColumnsPerStage;
  static constexpr int kTmemColumns = tmem_alloc_columns(kTmemColumnsUsed);

  // ---- epilogue ----------------------------------------------------------------------------------------
  // Columns per tensor-memory load (tcgen05.ld .32x32b.x64, or .x32 where BlockN is not a multiple of 64):
  // the wider the load, the fewer chunk overheads per output (tools/epilogue_budget.py: the .x32 loop's 46
  // instructions per 32 bf16 outputs against the 16 conversions and 2 stores they need).
  static constexpr int kEpilogueColumns = BlockN_ % 64 == 0 ? 64 : 32;

  // ---- stages and the shared memory layout after them --------------------------------------------------
  // The most stages that fit: each costs kStageBytes plus two 8-byte barriers; the rest of the tail and the
  // 1024-byte alignment slack are fixed.
  static constexpr int kMaxStages =
      (kMaxDynamicSmemBytes - kSmemAlignment - BarrierLayout<0, kAccStages, true>::kBytes - 16) /
      (kStageBytes + 16);
  static constexpr int kStages = kStagesRequested > 0 ? kStagesRequested : kMaxStages;
  static constexpr int kBarrierOffset = kStages * kStageBytes;
  using Barriers = BarrierLayout<kStages, kAccStages, true>;  // with the tile records
  // + kSmemAlignment: the kernel aligns the dynamic buffer's start up to 1024 bytes itself.
  static constexpr int kSmemBytes = kBarrierOffset + Barriers::kBytes + kSmemAlignment;

  // ---- descriptors -------------------------------------------------------------------------------------
  // A (and B in the N x K layout): K-major, 128-byte swizzle rows, 8-row core groups 1024 bytes apart (SBO),
  // LBO unused; the start moves 32 bytes per MMA K step inside the swizzled rows (seed 004's A).
  static constexpr uint64_t kKMajorDescBase =
      ptx::SmemDescriptor{0, 0, 8 * kRowBytes, 0, false, ptx::SmemSwizzle::k128B}.encode();
  static constexpr uint32_t kKMajorStepBytes = kMmaK * kElementBytes;
  // B in the K x N layout: MN-major; LBO = the distance between N chunks, SBO = between 8-row K groups; the
  // start moves 16 K rows per MMA K step (seed 004: LBO = BLOCK_K * 128, SBO = 8 * 128, += 16 * 128).
  static constexpr uint64_t kMnMajorDescBase =
      ptx::SmemDescriptor{
          0, kBChunkBytes, 8 * kBMnSpanBytes,
          0, false,        kBMnSpanBytes == 128 ? ptx::SmemSwizzle::k128B : ptx::SmemSwizzle::k64B}
          .encode();
  static constexpr uint32_t kMnMajorStepBytes = kMmaK * kBMnSpanBytes;

  static constexpr GemmBOperand b_operand(BLayout layout) {
    return layout == BLayout::kRowMajorKxN ? GemmBOperand{kMnMajorDescBase, kMnMajorStepBytes}
                                           : GemmBOperand{kKMajorDescBase, kKMajorStepBytes};
  }
  // The instruction descriptor: fp32 accumulator, A K-major, B as stored.
  static constexpr uint32_t instr_desc(ptx::MmaF16Format ab_format, BLayout layout) {
    return ptx::InstrDescF16{ptx::MmaDFormat::kF32,
                             ab_format,
                             ab_format,
                             false,
                             false,
                             ptx::MmaMajor::kK,
                             layout == BLayout::kRowMajorKxN ? ptx::MmaMajor::kMN : ptx::MmaMajor::kK,
                             static_cast<uint32_t>(kClusterBlockM),
                             static_cast<uint32_t>(kBlockN)}
        .encode();
  }

  // ---- the limits, explained ---------------------------------------------------------------------------
  static_assert(kClusterCtas == 1 || kClusterCtas == 2,
                "ClusterCtas is 1 (one CTA, M = 128) or 2 (a CTA pair, M = 256)");
  static_assert(
      kBlockN >= 64 && kBlockN <= 256 && kBlockN % kEpilogueColumns == 0,
      "BlockN must be a multiple of 32 in [64, 256]: the MMA's N (<= 256), read back by the epilogue "
      "in 32-column loads");
  static_assert(
      kBColumnsPerCta == 32 || kBColumnsPerCta % 64 == 0,
      "BlockN / ClusterCtas must be 32 or a multiple of 64: the K x N layout of B is loaded in whole "
      "swizzle spans of 32 (64-byte swizzle) or 64 (128-byte swizzle) columns");
  static_assert(kStagesRequested == 0 || kStagesRequested >= 2,
                "Stages is 0 (as many as fit) or >= 2 to overlap loads and MMAs");
  static_assert(kStages >= 2, "fewer than two stages of this BlockN fit in shared memory");
  static_assert(kStageBytes % kSmemAlignment == 0 && kBChunkBytes % kSmemAlignment == 0,
                "stages and B chunks must keep 1024-byte alignment");
  static_assert(kSmemBytes <= kMaxDynamicSmemBytes,
                "too many stages: Stages x StageBytes exceeds the 227 KB of shared memory (lower Stages)");
  static_assert(kTmemColumnsUsed <= kTmemMaxColumns, "the accumulators exceed 512 TMEM columns");
  static_assert(std::is_same_v<Out, __half> || std::is_same_v<Out, __nv_bfloat16> ||
                    std::is_same_v<Out, float>,
                "Out (the type of D and C) is __half, __nv_bfloat16 or float");
};

}  // namespace bwgemm::sm100
