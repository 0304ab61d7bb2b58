// Nvfp4SwapAbConfig: every knob of the sm_100a small-M ("decode") NVFP4 kernels and everything derived from
// them. One Config type serves the GEMM (Weights = 1: D = alpha·A·Bᵀ + beta·C) and the dual GEMM (Weights =
// 2: C = epilogue(alpha1·A·B1ᵀ, alpha2·A·B2ᵀ)), as sm90::SwapAbConfig does on Hopper; the names a caller
// writes are Nvfp4GemmSwapAbConfig (nvfp4_gemm_swap_ab_config.cuh) and Nvfp4DualSwapAbConfig
// (nvfp4_dual_swap_ab_config.cuh).
//
//   using Cfg = bwgemm::sm100::Nvfp4DualSwapAbConfig<16, 5>;   // tiles of 128 weight rows x 16 tokens
//   using Cfg = bwgemm::sm100::Nvfp4GemmSwapAbConfig<16, 5>;   // the same tile for the GEMM
//
// Swap AB: the kernels of nvfp4_dual_gemm_config.cuh and nvfp4_gemm_config.cuh put M (tokens) on the
// tcgen05.mma's 128/256-row side, so at M = 1 127 of 128 rows are padding and the tensor cores, not memory,
// set the time. Here the weights' N (the rows of B, or of B1 and B2) is the MMA's M (128 rows, cta_group::1:
// one CTA, the 128 tensor-memory lanes) and the tokens are the MMA's N (BlockTokens columns): each MMA
// computes a 128 x BlockTokens tile of the output's transpose, B·Aᵀ (dual: gate = B1·Aᵀ and up = B2·Aᵀ, into
// two accumulators in the same tensor-memory lanes, so the gate and up values of one output sit in the same
// epilogue thread). The token tile (the MMA's B) is loaded once per stage and read by every weight's MMA;
// the weight tiles (the MMAs' A) stream through the stage ring.
//
// Scale factors swap roles with the operands: the weights' scales are the MMA's SFA (one 128-row atom per 64
// K, the rows of the weight tile), the tokens' scales its SFB. Both are in the same 128x4 blocked layout
// (formats/scale_layout.cuh). A token tile of BlockTokens < 128 rows sits inside one 128-row scale block:
// the MMA reads SFB column n of the tile from tensor-memory lane n % 128, column sfb + n / 32 (the layout
// tcgen05.cp .32x128b.warpx4 makes of an atom, emu/tcgen05.hpp), so the kernel copies the atom's 16-byte
// lines starting at the tile's first row within its 32-row group (n0 % 32) and points the MMA at the tile's
// 32-row column group ((n0 % 128) / 32): lane n then holds token row n0 + n for every n < BlockTokens.
//
// BlockTokens: 16, 32 or 64. The PTX ISA allows N = 8..256 in steps of 8 for kind::mxf4nvf4 with M = 128
// and cta_group::1 (CUTLASS's SM100_MMA_MXF4_SS asserts the same); the emulator models N in steps of 16, and
// what a B200's SFB read is for N = 8 is not established here, so 16 is the smallest shipped.
//
// Split K: where the weight tiles do not fill the SMs, the entry point splits K between the 2 .. 8 CTAs of a
// cluster (nvfp4_dual_swap_ab_split_kernel, nvfp4_gemm_swap_ab_split_kernel, swap_ab_split_k.cuh: a
// deterministic reduction through distributed shared memory, no workspace). The kernels:
// nvfp4_swap_ab_kernel.cuh.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/formats/scale_layout.cuh"
#include "bwgemm/kernels/sm100/common.cuh"
#include "bwgemm/kernels/sm100/roles.cuh"
#include "bwgemm/scheduler/schedulers.cuh"

namespace bwgemm::sm100 {

// The knobs and everything derived; the named Configs (Nvfp4GemmSwapAbConfig, Nvfp4DualSwapAbConfig) add
// WithEpilogue / WithOut and keep the kernels' names per operation.
template <int BlockTokens_, int Stages_, int Weights_, class Scheduler_, class Epilogue_, class Out_>
struct Nvfp4SwapAbConfig : WarpRoles<2, 1> {  // two TMA producers (operands, scales), one CTA
  using Scheduler = Scheduler_;
  using Epilogue = Epilogue_;
  using Out = Out_;

  // ---- knobs -------------------------------------------------------------------------------------------
  static constexpr int kBlockTokens = BlockTokens_;  // tokens (output rows M) per tile: the MMA's N
  static constexpr int kStages = Stages_;            // shared-memory pipeline depth
  static constexpr int kWeights = Weights_;          // 1: GEMM (B); 2: dual GEMM (B1 gate, B2 up)

  // ---- tile shape --------------------------------------------------------------------------------------
  static constexpr int kBlockWeights = kTmemLanes;  // 128 weight rows (output columns N) per tile: MMA M
  // The names roles.cuh walks (its "rows" are tensor-memory lanes, here weight rows, its "columns" the
  // accumulator columns, here tokens): tile grid (N / 128) x (M / BlockTokens), see swap_ab_tiles.
  static constexpr int kBlockM = kBlockWeights;
  static constexpr int kClusterBlockM = kBlockWeights;
  static constexpr int kBlockN = kBlockTokens;
  static constexpr int kBlockK = 256;                    // fp4 elements per stage: one 128-byte swizzle row
  static constexpr int kMmaK = 64;                       // K of one kind::mxf4nvf4 MMA (32 bytes)
  static constexpr int kMmasPerStage = kBlockK / kMmaK;  // 4 per weight matrix
  static constexpr int kRowBytes = kBlockK / 2;          // 128

  // ---- scale factors (128x4 blocked layout: 512-byte atoms of 128 rows x 64 K elements) ----------------
  static constexpr int kScaleAtomBytes = ::bwgemm::kScaleAtomBytes;          // 512 (formats/scale_layout.cuh)
  static constexpr int kScaleAtomK = kScaleAtomCols * kNvfp4BlockSize;       // 64 K elements per atom
  static constexpr int kScaleAtomRows = ::bwgemm::kScaleAtomRows;            // 128 rows per atom
  static constexpr int kScaleAtomRowGroup = ::bwgemm::kScaleAtomRowGroup;    // 32 rows per 16-byte line
  static constexpr int kScaleLineBytes = 16;                                 // one line: 4 rows x 4 K blocks
  static constexpr int kScaleAtomsPerStage = kBlockK / kScaleAtomK;          // 4
  static constexpr int kScaleBytes = kScaleAtomsPerStage * kScaleAtomBytes;  // one 128-row block: 2 KB

  // ---- shared memory per stage (offsets from the stage base; every piece 1024-byte aligned) -----------
  // Weight w's tile at kW1Offset + w · kWeightBytes, its scales at kSfW1Offset + w · kScaleBytes (the dual's
  // W2 and SFW2 are weight 1's).
  static constexpr int kWeightBytes = kBlockWeights * kRowBytes;  // 16 KiB per weight matrix
  static constexpr int kTokenBytes = kBlockTokens * kRowBytes;
  static constexpr int kW1Offset = 0;
  static constexpr int kTokenOffset = kW1Offset + kWeights * kWeightBytes;
  // The tokens' scales come before the weights': the copy that starts n0 % 32 lines into an atom reads up to
  // 31 lines past the last atom, which must stay inside the stage (those lanes are never read by the MMA).
  static constexpr int kSfTokenOffset = kTokenOffset + kTokenBytes;
  static constexpr int kSfW1Offset = kSfTokenOffset + kScaleBytes;
  static constexpr int kStageBytes = kSfW1Offset + kWeights * kScaleBytes;
  // Transaction bytes of each stage's full barrier, by producer warp (TMA writes whole boxes).
  static constexpr uint32_t kOperandTxBytes = kWeights * kWeightBytes + kTokenBytes;
  static constexpr uint32_t kScaleTxBytes = (kWeights + 1) * kScaleBytes;
  static constexpr int kOperandProducer = 0;
  static constexpr int kScaleProducer = 1;

  // ---- accumulators and tensor memory ------------------------------------------------------------------
  static constexpr bool kPersistent = !std::is_same_v<Scheduler, sched::OneTilePerCluster>;
  // One accumulator per weight (dual: gate then up), fp32, lanes = weight rows, BlockTokens columns each.
  static constexpr int kAccColumnsPerStage = kWeights * kBlockTokens;
  static constexpr int kScaleColumnsPerAtom = 4;  // .32x128b.warpx4: 4 columns of 32 bits per 128-row atom
  static constexpr int kScaleColumnsPerStage = kScaleAtomsPerStage * kScaleColumnsPerAtom;  // one operand's
  static constexpr int kScaleColumns = (kWeights + 1) * kScaleColumnsPerStage;  // SFA per weight, SFB
  static constexpr int kAccStages =
      (kPersistent && 2 * kAccColumnsPerStage + kScaleColumns <= kTmemMaxColumns) ? 2 : 1;
  static constexpr int kAccColumns = kAccStages * kAccColumnsPerStage;
  // Weight w's scales at kSfW1Column + w · kScaleColumnsPerStage, then the tokens'.
  static constexpr int kSfW1Column = kAccColumns;
  static constexpr int kSfTokenColumn = kSfW1Column + kWeights * kScaleColumnsPerStage;
  static constexpr int kTmemColumnsUsed = kSfTokenColumn + kScaleAtomsPerStage * kScaleColumnsPerAtom;
  static constexpr int kTmemColumns = tmem_alloc_columns(kTmemColumnsUsed);

  // ---- epilogue: one tensor-memory load per accumulator per tile (tcgen05.ld .32x32b.x<BlockTokens>) ----
  static constexpr int kEpilogueColumns = kBlockTokens;

  // ---- shared memory layout after the stages -----------------------------------------------------------
  static constexpr int kBarrierOffset = kStages * kStageBytes;
  using Barriers = BarrierLayout<kStages, kAccStages>;
  static constexpr int kSmemBytes = kBarrierOffset + Barriers::kBytes + kSmemAlignment;

  // ---- the limits, explained ---------------------------------------------------------------------------
  static_assert(
      kBlockTokens == 16 || kBlockTokens == 32 || kBlockTokens == 64,
      "BlockTokens is 16, 32 or 64: an MMA N the emulator models (steps of 16) whose tile lies in one "
      "128-row scale block and, below 32, in one 32-row group of it");
  static_assert(kScaleAtomRows % kBlockTokens == 0, "a token tile must not straddle two scale blocks");
  static_assert(kStages >= 2, "at least two pipeline stages are needed to overlap loads and MMAs");
  static_assert(kTokenBytes % kSmemAlignment == 0, "the token tile must keep 1024-byte alignment");
  static_assert(kStageBytes % kSmemAlignment == 0, "stages must keep 1024-byte alignment");
  static_assert(kSmemBytes <= kMaxDynamicSmemBytes,
                "too many stages: Stages x StageBytes exceeds the 227 KB of shared memory (lower Stages)");
  static_assert(kTmemColumnsUsed <= kTmemMaxColumns,
                "accumulators and scale factors exceed 512 TMEM columns");
  static_assert(kWeights == 1 || kWeights == 2, "Weights is 1 (GEMM) or 2 (dual GEMM)");
  static_assert(std::is_same_v<Out, __half> || std::is_same_v<Out, __nv_bfloat16> ||
                    (kWeights == 1 && std::is_same_v<Out, float>),
                "Out is __half or __nv_bfloat16 (the GEMM also float)");
};

}  // namespace bwgemm::sm100
