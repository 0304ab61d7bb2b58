// sm90::SwapAbConfig: every knob of the sm_90a (Hopper) small-M ("decode") kernels and everything derived
// from them. One Config type serves the GEMM (Weights = 1: D = epilogue(A·B)) and the dual GEMM (Weights = 2:
// C = epilogue(alpha1·A·B1ᵀ, alpha2·A·B2ᵀ)).
//
//   using Cfg = bwgemm::sm90::SwapAbConfig<64, 8, 1>;   // tiles of 64 tokens x 128 weight rows, 8 stages
//
// Swap AB: at small M (tokens) the kernels of gemm_config.cuh put M on the wgmma's 64-row side, so at
// M = 1 63 of 64 rows are padding and the tensor cores, not memory, set the time. Here the weights' N is
// the wgmma's M (each consumer warpgroup owns 64 weight rows, the "A" operand of wgmma) and the tokens are
// the wgmma's N (BlockTokens = 16, 32, 64, 128 or 160 columns in the shipped Configs, the "B" operand):
// the MMA computes Dᵀ = Bᵀ·Aᵀ for a tile of kBlockWeights weight rows x BlockTokens tokens, and padding is
// at most BlockTokens - 1 tokens.
// The weights stream through a deep TMA ring; the token tile of a stage is shared by both consumers (and,
// in the dual GEMM, by the gate and the up wgmma).
//
// Split K: a shape whose weight tiles do not fill the SMs (N = 4096: 32 tiles of 128 rows for 132 SMs)
// splits K between the CTAs of a cluster (1, 2, 4 or 8 CTAs, chosen per call by the entry point). Each CTA
// computes its K range into registers, writes its fp32 partials to its own shared memory, and after a
// cluster barrier each CTA reduces 1/S of the tile, reading the partials of every CTA of the cluster through
// distributed shared memory in rank order 0..S-1 (the same order, hence the same bits, on every run), and
// stores that part. No workspace and no global-memory atomics: the reduction never leaves the cluster.
//
// The input type (fp16 or bf16) is the kernel's template argument, as for the other sm_90a Configs.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/kernels/sm90/common.cuh"
#include "bwgemm/kernels/sm90/split_k.cuh"  // kMaxSplitK

namespace bwgemm::sm90 {

template <int BlockTokens_, int Stages_, int Weights_ = 1, class Epilogue_ = epi::LinearCombination,
          class Out_ = __nv_bfloat16, int WeightWarpgroups_ = 2>
struct SwapAbConfig {
  using Epilogue = Epilogue_;
  using Out = Out_;
  template <class O>
  using WithOut = SwapAbConfig<BlockTokens_, Stages_, Weights_, Epilogue_, O, WeightWarpgroups_>;
  template <class E>
  using WithEpilogue = SwapAbConfig<BlockTokens_, Stages_, Weights_, E, Out_, WeightWarpgroups_>;

  // ---- knobs -------------------------------------------------------------------------------------------
  static constexpr int kBlockTokens = BlockTokens_;  // tokens (output rows M) per tile: the wgmma N
  static constexpr int kStages = Stages_;            // shared-memory pipeline depth
  static constexpr int kWeights = Weights_;          // 1: GEMM (B); 2: dual GEMM (B1 gate, B2 up)

  // ---- tile shape --------------------------------------------------------------------------------------
  // Consumer warpgroups, each owning 64 weight rows: 2 (tiles of 128 weight rows) or 1 (64: twice the tiles).
  static constexpr int kConsumerWarpgroups = WeightWarpgroups_;
  static constexpr int kWarpgroupWeights = kWgmmaM;  // 64 weight rows per consumer
  static constexpr int kBlockWeights = kConsumerWarpgroups * kWarpgroupWeights;     // output columns (N)
  static constexpr int kBlockK = static_cast<int>(ptx::kSw128Elements16);           // 64: one 128-byte row
  static constexpr int kMmasPerStage = kBlockK / static_cast<int>(ptx::kWgmmaK16);  // 4 per weight matrix
  static constexpr int kAccRegs = kBlockTokens / 2;  // fp32 accumulator registers per thread and weight
  // The tile grid's names (arguments/common.hpp config_tile_grid): M tiles of kBlockTokens tokens, N tiles
  // of kBlockWeights weight rows; a "cluster" here is the CTAs splitting one tile's K.
  static constexpr int kClusterBlockM = kBlockTokens;
  static constexpr int kBlockN = kBlockWeights;
  static constexpr int kClusterCtas = 1;  // no operand sharing between CTAs (pipeline functions)

  // ---- shared memory per stage (offsets from the stage base; every piece 1024-byte aligned) -----------
  static constexpr int kRowBytes = static_cast<int>(ptx::kSw128RowBytes);  // 128
  // A weight tile: K-major (B is N x K), kBlockWeights rows of 128 bytes; MN-major (B is K x N), one
  // 64-row x 128-byte chunk (64 K rows of 64 weight columns) per consumer, kWeightChunkBytes apart.
  static constexpr int kWeightBytes = kBlockWeights * kRowBytes;           // 16 KiB
  static constexpr int kWeightChunkBytes = kWarpgroupWeights * kRowBytes;  // 8 KiB: a consumer's share
  static constexpr int kTokenBytes = kBlockTokens * kRowBytes;
  static constexpr int kWeightOffset = 0;  // [kWeights][kWeightBytes]
  static constexpr int kTokenOffset = kWeights * kWeightBytes;
  static constexpr int kStageBytes = kTokenOffset + kTokenBytes;
  static constexpr uint32_t kTxBytes = kStageBytes;  // TMA writes whole boxes (out-of-bounds zero-filled)

  // ---- warps -------------------------------------------------------------------------------------------
  static constexpr int kProducerWarpgroup = 0;  // warp 0 issues TMA; warp 1 prefetches the tensor maps
  static constexpr int kConsumerThreads = kConsumerWarpgroups * kWarpgroupThreads;
  static constexpr int kThreads = kWarpgroupThreads + kConsumerThreads;
  // Producer registers after setmaxnreg: with one consumer warpgroup 64 (at 40 ptxas spills the dual GEMM's
  // producer loop of three TMA loads per stage); with two the common 40, which leaves the consumers' increase
  // to 232 its slack: at 48 (128 · (48 + 2 · 232) = 65536 exactly) the increase never completed on an H200
  // and the kernel hung (2026-12-01, docs/hopper.md's small-M kernels).
  static constexpr int kProducerRegs = kConsumerWarpgroups == 1 ? 64 : kProducerRegisters;
  static constexpr int kConsumerRegs = kConsumerRegisters;
  static constexpr int kEmptyArrivals = kConsumerWarpgroups;  // both consumers free a stage

  // ---- the split-K partials (after the mainloop, over the stages: every TMA write has landed) --------
  // fp32, [kWeights][kAccRegs][kConsumerThreads]: consumer thread t's register i of weight w at
  // (w·kAccRegs + i)·kConsumerThreads + t, so the writes of a warp are consecutive words. A tile's
  // kPartialElements values per weight matrix.
  static constexpr int kPartialElements = kAccRegs * kConsumerThreads;
  static constexpr int kPartialBytes = kWeights * kPartialElements * 4;
  static constexpr int kPartialOffset = 0;

  // ---- shared memory layout after the stages -----------------------------------------------------------
  using Barriers = StageBarriers<kStages, kStages * kStageBytes>;
  static constexpr int kFullBarriers = Barriers::kFullBarriers;    // [kStages]: TMA landed
  static constexpr int kEmptyBarriers = Barriers::kEmptyBarriers;  // [kStages]: both consumers done
  // + kSmemAlignment: the kernel aligns the dynamic buffer's start up to 1024 bytes itself.
  static constexpr int kSmemBytes = Barriers::kEnd + kSmemAlignment;

  // ---- the limits, explained ---------------------------------------------------------------------------
  static_assert(std::is_same_v<Out, __half> || std::is_same_v<Out, __nv_bfloat16> ||
                    std::is_same_v<Out, float>,
                "Out is __half, __nv_bfloat16 or float");
  static_assert(kWeights == 1 || kWeights == 2, "Weights is 1 (GEMM) or 2 (dual GEMM)");
  static_assert(kConsumerWarpgroups == 1 || kConsumerWarpgroups == 2, "WeightWarpgroups is 1 or 2");
  static_assert(
      kBlockTokens % 16 == 0,
      "BlockTokens is a multiple of 16 (16, 32, 48, 64, 96, 128, 160, 192, 256): a wgmma N whose "
      "partials split evenly among up to kMaxSplitK CTAs in quads (kAccRegs a multiple of kMaxSplitK)");
  static_assert(ptx::kWgmmaSupportedN<kBlockTokens>, "BlockTokens is not a wgmma N ptx::wgmma_ss supports");
  static_assert(kAccRegs % kMaxSplitK == 0, "the partials must split evenly among kMaxSplitK CTAs");
  static_assert(kWeights * kAccRegs + 64 <= kConsumerRegs, "the accumulators need registers to spare");
  static_assert(kWarpgroupThreads * (kProducerRegs + kConsumerWarpgroups * kConsumerRegs) < 65536,
                "the warpgroups' register budgets must stay below the SM's 64K registers: at exactly 65536 "
                "the consumers' setmaxnreg increase never completed on an H200 and the kernel hung");
  static_assert(kStages >= 2, "at least two stages: one loading while one is consumed");
  static_assert(kPartialBytes <= kStages * kStageBytes, "the partials must fit over the stages");
  static_assert(kSmemBytes <= kMaxDynamicSmemBytes,
                "the stages do not fit the 227 KB of shared memory: fewer Stages or a smaller BlockTokens");
};

}  // namespace bwgemm::sm90
