// The sm_100a small-M ("decode") FP16/BF16 kernels' Config and everything derived from its knobs. One Config
// type serves the GEMM (Weights = 1: D = alpha·A·B + beta·C) and the dual GEMM (Weights = 2: C =
// epilogue(alpha1·A·B1ᵀ, alpha2·A·B2ᵀ)), as Nvfp4SwapAbConfig does for NVFP4 (nvfp4_swap_ab_config.cuh);
// the names a caller writes are GemmSwapAbConfig (gemm_swap_ab_config.cuh) and DualSwapAbConfig
// (dual_swap_ab_config.cuh).
//
//   using Cfg = bwgemm::sm100::GemmSwapAbConfig<16, 10>;   // tiles of 128 weight rows x 16 tokens
//   using Cfg = bwgemm::sm100::DualSwapAbConfig<16, 6>;    // the same tile for the dual GEMM
//
// Swap AB: the kernels of gemm_config.cuh and dual_gemm_config.cuh put M (tokens) on the tcgen05.mma's
// 128/256-row side, so at M = 1 127 of 128 rows are padding. Here the weights (B, N x K or K x N; dual: B1
// and B2, N x K) are the MMA's A: 128 weight rows (output columns n) per CTA, the 128 tensor-memory lanes,
// cta_group::1; the tokens (A, M x K row-major) are the MMA's B, K-major: BlockTokens columns. Each MMA
// computes a 128 x BlockTokens tile of the output's transpose into tensor memory (lanes n, columns m; dual:
// gate = B1·Aᵀ and up = B2·Aᵀ into two accumulators in the same lanes, both MMAs reading the stage's one
// token tile); the epilogue stores out[m][n], a warp's stores 32 consecutive n.
//
// Both B layouts (the GEMM; the dual's B1 and B2 are N x K, arguments/dual_gemm.hpp): N x K
// (BLayout::kColumnMajorKxN, nn.Linear weights) is a K-major A (128-byte swizzle rows, as the tiled kernels
// load A); K x N (BLayout::kRowMajorKxN) is an MN-major A, which kind::f16 allows (instruction descriptor bit
// 15, "transpose A"): two 64-column chunks of 64 K rows, each one 128-byte swizzle span wide (the layout the
// tiled kernels use for an MN-major B, seed 004).
//
// BlockTokens: 16, 32 or 64 (an MMA N the emulator models for M = 128: steps of 16; the PTX ISA allows steps
// of 8). Split K as for the NVFP4 swap-AB kernels (gemm_swap_ab_split_kernel, dual_swap_ab_split_kernel,
// swap_ab_split_k.cuh). The kernels: f16_swap_ab_kernel.cuh.
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

// The weight operand's shared-memory descriptor (start address 0) and how far its start moves per MMA K step.
struct F16SwapAbWeightOperand {
  uint64_t desc_base = 0;
  uint32_t k_step_bytes = 0;
};

// The knobs and everything derived; the named Configs (GemmSwapAbConfig, DualSwapAbConfig) add WithEpilogue /
// WithOut and keep the kernels' names per operation.
template <int BlockTokens_, int Stages_, int Weights_, class Scheduler_, class Epilogue_, class Out_>
struct F16SwapAbConfig : WarpRoles<1, 1> {  // one TMA producer warp, one CTA
  using Scheduler = Scheduler_;
  using Epilogue = Epilogue_;
  using Out = Out_;

  // ---- knobs -------------------------------------------------------------------------------------------
  static constexpr int kBlockTokens = BlockTokens_;  // tokens (output rows M) per tile: the MMA's N
  static constexpr int kStages = Stages_;            // shared-memory pipeline depth
  static constexpr int kWeights = Weights_;          // 1: GEMM (B); 2: dual GEMM (B1 gate, B2 up)

  // ---- tile shape --------------------------------------------------------------------------------------
  static constexpr int kBlockWeights = kTmemLanes;  // 128 weight rows (output columns N) per tile: MMA M
  // The names roles.cuh walks (its rows are tensor-memory lanes, here weight rows; its columns accumulator
  // columns, here tokens): tile grid (N / 128) x (M / BlockTokens), swap_ab_tiles.
  static constexpr int kBlockM = kBlockWeights;
  static constexpr int kClusterBlockM = kBlockWeights;
  static constexpr int kBlockN = kBlockTokens;
  static constexpr int kElementBytes = 2;                    // fp16 / bf16 operands
  static constexpr int kBlockK = 64;                         // elements per stage: one 128-byte row
  static constexpr int kMmaK = 16;                           // K of one kind::f16 MMA
  static constexpr int kMmasPerStage = kBlockK / kMmaK;      // 4
  static constexpr int kRowBytes = kBlockK * kElementBytes;  // 128: one 128B-swizzle row
  static constexpr int kSwizzleSpanBytes = 128;              // the 128-byte swizzle
  static constexpr int kWeightChunkColumns = kSwizzleSpanBytes / kElementBytes;  // 64 (K x N layout)
  static constexpr int kWeightChunks = kBlockWeights / kWeightChunkColumns;      // 2

  // ---- shared memory per stage (offsets from the stage base; every piece 1024-byte aligned) -----------
  // Weight w's tile at kWeightOffset + w · kWeightBytes (the dual's B2 is weight 1), then the token tile.
  static constexpr int kWeightBytes = kBlockWeights * kRowBytes;         // 16 KiB either layout
  static constexpr int kWeightChunkBytes = kBlockK * kSwizzleSpanBytes;  // 8 KiB: 64 K rows of 64 columns
  static constexpr int kTokenBytes = kBlockTokens * kRowBytes;
  static constexpr int kWeightOffset = 0;
  static constexpr int kTokenOffset = kWeightOffset + kWeights * kWeightBytes;
  static constexpr int kStageBytes = kTokenOffset + kTokenBytes;
  static constexpr uint32_t kStageTxBytes = kStageBytes;  // TMA writes whole boxes (zero fill included)

  // ---- accumulators and tensor memory ------------------------------------------------------------------
  static constexpr bool kPersistent = !std::is_same_v<Scheduler, sched::OneTilePerCluster>;
  // One accumulator per weight (dual: gate then up), fp32, lanes = weight rows, BlockTokens columns each.
  static constexpr int kAccColumnsPerStage = kWeights * kBlockTokens;
  static constexpr int kAccStages = kPersistent ? 2 : 1;
  static constexpr int kTmemColumnsUsed = kAccStages * kAccColumnsPerStage;
  static constexpr int kTmemColumns = tmem_alloc_columns(kTmemColumnsUsed);

  // ---- epilogue: one tensor-memory load per accumulator per tile (tcgen05.ld .32x32b.x<BlockTokens>) ----
  static constexpr int kEpilogueColumns = kBlockTokens;

  // ---- shared memory layout after the stages -----------------------------------------------------------
  static constexpr int kBarrierOffset = kStages * kStageBytes;
  using Barriers = BarrierLayout<kStages, kAccStages>;
  static constexpr int kSmemBytes = kBarrierOffset + Barriers::kBytes + kSmemAlignment;

  // ---- descriptors -------------------------------------------------------------------------------------
  // K-major tiles (the tokens; the weights in the N x K layout): 128-byte swizzle rows, 8-row core groups
  // 1024 bytes apart (SBO), LBO unused; the start moves 32 bytes per MMA K step inside the swizzled rows.
  static constexpr uint64_t kKMajorDescBase =
      ptx::SmemDescriptor{0, 0, 8 * kRowBytes, 0, false, ptx::SmemSwizzle::k128B}.encode();
  static constexpr uint32_t kKMajorStepBytes = kMmaK * kElementBytes;
  // The weights in the K x N layout, MN-major: LBO = the distance between the 64-column chunks, SBO = between
  // 8-row K groups; the start moves 16 K rows per MMA K step.
  static constexpr uint64_t kMnMajorDescBase =
      ptx::SmemDescriptor{0, kWeightChunkBytes, 8 * kSwizzleSpanBytes, 0, false, ptx::SmemSwizzle::k128B}
          .encode();
  static constexpr uint32_t kMnMajorStepBytes = kMmaK * kSwizzleSpanBytes;

  static constexpr F16SwapAbWeightOperand weight_operand(BLayout layout) {
    return layout == BLayout::kRowMajorKxN ? F16SwapAbWeightOperand{kMnMajorDescBase, kMnMajorStepBytes}
                                           : F16SwapAbWeightOperand{kKMajorDescBase, kKMajorStepBytes};
  }
  // The instruction descriptor: fp32 accumulator, the weights (A) as stored, the tokens (B) K-major.
  static constexpr uint32_t instr_desc(ptx::MmaF16Format ab_format, BLayout layout) {
    return ptx::InstrDescF16{ptx::MmaDFormat::kF32,
                             ab_format,
                             ab_format,
                             false,
                             false,
                             layout == BLayout::kRowMajorKxN ? ptx::MmaMajor::kMN : ptx::MmaMajor::kK,
                             ptx::MmaMajor::kK,
                             static_cast<uint32_t>(kBlockWeights),
                             static_cast<uint32_t>(kBlockTokens)}
        .encode();
  }

  // ---- the limits, explained ---------------------------------------------------------------------------
  static_assert(kBlockTokens == 16 || kBlockTokens == 32 || kBlockTokens == 64,
                "BlockTokens is 16, 32 or 64: an MMA N the emulator models for M = 128 (steps of 16)");
  static_assert(kStages >= 2, "at least two pipeline stages are needed to overlap loads and MMAs");
  static_assert(kTokenBytes % kSmemAlignment == 0 && kWeightChunkBytes % kSmemAlignment == 0,
                "the tiles and weight chunks must keep 1024-byte alignment");
  static_assert(kStageBytes % kSmemAlignment == 0, "stages must keep 1024-byte alignment");
  static_assert(kSmemBytes <= kMaxDynamicSmemBytes,
                "too many stages: Stages x StageBytes exceeds the 227 KB of shared memory (lower Stages)");
  static_assert(kTmemColumnsUsed <= kTmemMaxColumns, "the accumulators exceed 512 TMEM columns");
  static_assert(kWeights == 1 || kWeights == 2, "Weights is 1 (GEMM) or 2 (dual GEMM)");
  static_assert(std::is_same_v<Out, __half> || std::is_same_v<Out, __nv_bfloat16> ||
                    (kWeights == 1 && std::is_same_v<Out, float>),
                "Out is __half or __nv_bfloat16 (the GEMM's D and C also float)");
};

}  // namespace bwgemm::sm100
