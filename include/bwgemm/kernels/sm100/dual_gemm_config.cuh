// DualGemmConfig: every knob of the sm_100a fp16/bf16 dual GEMM and everything derived from them.
//
//   using Cfg = bwgemm::sm100::DualGemmConfig<128, 0, 2, bwgemm::sched::ClcWorkStealing>;
//
// The NVFP4 dual kernel (nvfp4_dual_gemm_config.cuh) without scale factors, with the 16-bit GEMM's operand
// tiles (gemm_config.cuh): each CTA owns 128 output rows (the 128 tensor-memory lanes); a pair of CTAs
// (ClusterCtas 2) issues one M = 256 tcgen05.mma.kind::f16 per product from the even CTA with the B1 and B2
// tiles split between the two CTAs. BlockN output columns per cluster = the MMA's N; BlockK = 64 fp16/bf16
// elements per stage, one 128-byte swizzle row per operand row. B1 and B2 are N x K row-major (K-major, the
// nn.Linear layout of DualGemmArguments). Both fp32 accumulators (gate A·B1ᵀ, up A·B2ᵀ) live in tensor
// memory. One kernel serves fp16 and bf16 inputs: the element type changes only the tensor maps (host) and
// the instruction descriptor, which travels in the kernel parameters.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/isa/descriptors.hpp"
#include "bwgemm/kernels/sm100/common.cuh"
#include "bwgemm/kernels/sm100/roles.cuh"
#include "bwgemm/scheduler/schedulers.cuh"

namespace bwgemm::sm100 {

// Stages_ = 0: as many stages as fit in the 227 KB of shared memory.
template <int BlockN_, int Stages_, int ClusterCtas_, class Scheduler_, class Epilogue_ = epi::SiluMul,
          class Out_ = __half>
struct DualGemmConfig : WarpRoles<1, ClusterCtas_, true> {  // one TMA producer (A, B1, B2), tile records
  using Scheduler = Scheduler_;
  using Epilogue = Epilogue_;
  using Out = Out_;
  // The same kernel with another epilogue functor or output type.
  template <class E>
  using WithEpilogue = DualGemmConfig<BlockN_, Stages_, ClusterCtas_, Scheduler_, E, Out_>;
  template <class O>
  using WithOut = DualGemmConfig<BlockN_, Stages_, ClusterCtas_, Scheduler_, Epilogue_, O>;

  // ---- knobs -------------------------------------------------------------------------------------------
  using WarpRoles<1, ClusterCtas_, true>::kClusterCtas;  // CTAs per cluster = the MMA's cta_group
  static constexpr int kBlockN = BlockN_;                // output columns per cluster tile = MMA N
  static constexpr int kStagesRequested = Stages_;

  // ---- tile shape (the 16-bit GEMM's, gemm_config.cuh) -------------------------------------------------
  static constexpr int kBlockM = 128;                            // output rows per CTA = tensor-memory lanes
  static constexpr int kClusterBlockM = kBlockM * kClusterCtas;  // MMA M: 128 (cta_group::1) or 256 (::2)
  static constexpr int kElementBytes = 2;                        // fp16 / bf16 operands
  static constexpr int kBlockK = 64;                             // elements per stage: 128 bytes per row
  static constexpr int kMmaK = 16;                               // K of one kind::f16 MMA: 32 bytes
  static constexpr int kMmasPerStage = kBlockK / kMmaK;          // 4
  static constexpr int kRowBytes = kBlockK * kElementBytes;      // 128: one 128B-swizzle row
  static constexpr int kBRowsPerCta = kBlockN / kClusterCtas;  // B1/B2 rows each CTA loads (the pair splits)

  // ---- shared memory per stage (offsets from the stage base; every piece 1024-byte aligned) -----------
  // A: 128 rows x 128 bytes; B1, B2: kBRowsPerCta rows x 128 bytes each; all K-major, 128-byte swizzle.
  static constexpr int kABytes = kBlockM * kRowBytes;
  static constexpr int kBBytes = kBRowsPerCta * kRowBytes;
  static constexpr int kAOffset = 0;
  static constexpr int kB1Offset = kAOffset + kABytes;
  static constexpr int kB2Offset = kB1Offset + kBBytes;
  static constexpr int kStageBytes = kB2Offset + kBBytes;
  static constexpr uint32_t kStageTxBytes = kStageBytes;  // per CTA: its three boxes, zero fill included

  // ---- warps: WarpRoles<1, ClusterCtas>, i.e. 4 epilogue warps, the producer, MMA, scheduler ------------

  // ---- accumulators and tensor memory ------------------------------------------------------------------
  static constexpr bool kPersistent = !std::is_same_v<Scheduler, sched::OneTilePerCluster>;
  static constexpr int kAccColumnsPerStage = 2 * kBlockN;  // ACC1 (gate) then ACC2 (up), fp32
  // Double-buffer the accumulators when a cluster computes several tiles and two stages fit 512 columns.
  static constexpr int kAccStages = (kPersistent && 2 * kAccColumnsPerStage <= kTmemMaxColumns) ? 2 : 1;
  static constexpr int kTmemColumnsUsed = kAccStages * kAccColumnsPerStage;
  static constexpr int kTmemColumns = tmem_alloc_columns(kTmemColumnsUsed);

  // ---- epilogue ----------------------------------------------------------------------------------------
  // Columns per tensor-memory load of each accumulator (tcgen05.ld .32x32b.x64, or .x32 where BlockN is not
  // a multiple of 64), as in the NVFP4 dual kernel.
  static constexpr int kEpilogueColumns = BlockN_ % 64 == 0 ? 64 : 32;

  // ---- stages and the shared memory layout after them --------------------------------------------------
  // The most stages that fit: each costs kStageBytes plus two 8-byte barriers (full, empty); the rest of
  // the tail and the 1024-byte alignment slack are fixed (the GEMM's rule, gemm_config.cuh).
  static constexpr int kMaxStages =
      (kMaxDynamicSmemBytes - kSmemAlignment - BarrierLayout<0, kAccStages, true>::kBytes - 16) /
      (kStageBytes + 16);
  static constexpr int kStages = kStagesRequested > 0 ? kStagesRequested : kMaxStages;
  static constexpr int kBarrierOffset = kStages * kStageBytes;
  using Barriers = BarrierLayout<kStages, kAccStages, true>;  // with the tile records
  // + kSmemAlignment: the kernel aligns the dynamic buffer's start up to 1024 bytes itself.
  static constexpr int kSmemBytes = kBarrierOffset + Barriers::kBytes + kSmemAlignment;

  // ---- descriptors -------------------------------------------------------------------------------------
  // A, B1, B2: K-major, 128-byte swizzle rows, 8-row core groups 8 x 128 bytes apart (SBO), LBO unused; the
  // start moves 32 bytes (16 elements) per MMA K step inside the swizzled rows (the GEMM's A).
  static constexpr uint64_t kKMajorDescBase =
      ptx::SmemDescriptor{0, 0, 8 * kRowBytes, 0, false, ptx::SmemSwizzle::k128B}.encode();
  static constexpr uint32_t kKMajorStepBytes = kMmaK * kElementBytes;
  // The instruction descriptor: fp32 accumulators, A and B K-major, M = kClusterBlockM, N = kBlockN.
  static constexpr uint32_t instr_desc(ptx::MmaF16Format ab_format) {
    return ptx::InstrDescF16{ptx::MmaDFormat::kF32,
                             ab_format,
                             ab_format,
                             false,
                             false,
                             ptx::MmaMajor::kK,
                             ptx::MmaMajor::kK,
                             static_cast<uint32_t>(kClusterBlockM),
                             static_cast<uint32_t>(kBlockN)}
        .encode();
  }

  // ---- the limits, explained ---------------------------------------------------------------------------
  static_assert(kClusterCtas == 1 || kClusterCtas == 2,
                "ClusterCtas is 1 (one CTA, M = 128) or 2 (a CTA pair, M = 256)");
  static_assert(kBlockN == 64 || kBlockN == 128 || kBlockN == 256,
                "BlockN must be 64, 128 or 256: the MMA's N (<= 256), two fp32 accumulators of N columns in "
                "the 512 tensor-memory columns, read back in 32- or 64-column loads");
  static_assert(kBRowsPerCta % 8 == 0, "each CTA's B tiles are whole 8-row swizzle atoms");
  static_assert(kStagesRequested == 0 || kStagesRequested >= 2,
                "Stages is 0 (as many as fit) or >= 2 to overlap loads and MMAs");
  static_assert(kStages >= 2, "fewer than two stages of this BlockN fit in shared memory");
  static_assert(kStageBytes % kSmemAlignment == 0, "stages must keep 1024-byte alignment");
  static_assert(kSmemBytes <= kMaxDynamicSmemBytes,
                "too many stages: Stages x StageBytes exceeds the 227 KB of shared memory (lower Stages)");
  static_assert(kTmemColumnsUsed <= kTmemMaxColumns, "the two accumulators exceed 512 TMEM columns");
  static_assert(kBlockN % kEpilogueColumns == 0, "BlockN must be a multiple of the epilogue's columns");
  static_assert(std::is_same_v<Out, __half> || std::is_same_v<Out, __nv_bfloat16>,
                "Out is __half or __nv_bfloat16 (the 16-bit dual GEMM's C, arguments/dual_gemm.hpp)");
};

}  // namespace bwgemm::sm100
