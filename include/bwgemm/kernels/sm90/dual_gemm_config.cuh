// sm90::DualGemmConfig: every knob of the sm_90a (Hopper) fp16/bf16 dual GEMM and everything derived from
// them.
//
//   using Cfg = bwgemm::sm90::DualGemmConfig<128, 4, 1, bwgemm::sched::StaticPersistent>;
//
// Tile: 128 output rows x BlockN output columns per CTA. Two consumer warpgroups split the rows (64 each,
// the M of one wgmma); each issues one m64n(2·BlockN)k16 wgmma per 16 K that reads the B1 tile and the B2
// tile as one operand (they are adjacent in shared memory), so gate and up accumulate in one register
// fragment: columns [0, BlockN) are A·B1ᵀ, [BlockN, 2·BlockN) are A·B2ᵀ, and each A tile is read once for
// both. A producer warpgroup issues the TMA loads (BlockK = 64 16-bit elements = one 128-byte swizzle row
// per operand row and stage).
//
// PingPong: the two consumers take alternate tiles instead (the CTA tile is one consumer's 64 rows x BlockN;
// kernels/sm90/common.cuh, "ping-pong consumers"), one consumer's epilogue under the other's wgmmas, as the
// GEMM's GemmConfig PingPong.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/kernels/sm90/common.cuh"
#include "bwgemm/scheduler/schedulers.cuh"

namespace bwgemm::sm90 {

// One Config serves fp16 and bf16 inputs: the input type is the kernel's second template argument.
template <int BlockN_, int Stages_, int ClusterCtas_, class Scheduler_, class Epilogue_ = epi::SiluMul,
          class Out_ = __nv_bfloat16, bool TmaStore_ = BlockN_ % 64 == 0, bool PingPong_ = false>
struct DualGemmConfig {
  using Scheduler = Scheduler_;
  using Out = Out_;
  using Epilogue = Epilogue_;
  // The same kernel with another epilogue functor or output type.
  template <class E>
  using WithEpilogue =
      DualGemmConfig<BlockN_, Stages_, ClusterCtas_, Scheduler_, E, Out_, TmaStore_, PingPong_>;
  template <class O>
  using WithOut =
      DualGemmConfig<BlockN_, Stages_, ClusterCtas_, Scheduler_, Epilogue_, O, TmaStore_, PingPong_>;
  // The same kernel with the other C store path.
  template <bool T>
  using WithTmaStore =
      DualGemmConfig<BlockN_, Stages_, ClusterCtas_, Scheduler_, Epilogue_, Out_, T, PingPong_>;

  // ---- knobs -------------------------------------------------------------------------------------------
  static constexpr int kBlockN = BlockN_;  // output columns per CTA tile (of each of B1 and B2)
  static constexpr int kStages = Stages_;  // shared-memory pipeline depth
  // CTAs per cluster, stacked along M: they need the same B1/B2 tiles, so each loads half of them and
  // multicasts it to both (TMA .multicast::cluster), halving B's L2 -> SM traffic.
  static constexpr int kClusterCtas = ClusterCtas_;
  // C through shared memory and TMA stores where the call allows it (DualGemm::run: 16-byte rows of C and
  // N % 8 == 0), from registers otherwise; false: always from registers, and no staging buffers.
  static constexpr bool kTmaStore = TmaStore_;
  // The consumers take alternate tiles (true) or split each tile's rows (false).
  static constexpr bool kPingPong = PingPong_;

  // ---- tile shape --------------------------------------------------------------------------------------
  static constexpr int kConsumerWarpgroups = 2;
  static constexpr int kWarpgroupM = kWgmmaM;                                 // 64 rows per consumer
  static constexpr int kTileConsumers = kPingPong ? 1 : kConsumerWarpgroups;  // consumers per tile
  static constexpr int kBlockM = kTileConsumers * kWarpgroupM;                // 128; ping-pong 64
  static constexpr int kClusterTilesM = kClusterCtas;  // CTA tiles per cluster tile along M (tile_row0)
  static constexpr int kClusterTilesN = 1;             //   and along N (tile_col0)
  static constexpr int kClusterBlockM = kBlockM * kClusterCtas;                     // rows per cluster tile
  static constexpr int kMmaN = 2 * kBlockN;                                         // B1 rows then B2 rows
  static constexpr int kBlockK = static_cast<int>(ptx::kSw128Elements16);           // 64: one 128-byte row
  static constexpr int kMmasPerStage = kBlockK / static_cast<int>(ptx::kWgmmaK16);  // 4
  static constexpr int kAccRegs = kMmaN / 2;  // fp32 accumulator registers per consumer thread

  // ---- shared memory per stage (offsets from the stage base; every piece 1024-byte aligned) -----------
  static constexpr int kRowBytes = static_cast<int>(ptx::kSw128RowBytes);
  static constexpr int kABytes = kBlockM * kRowBytes;
  static constexpr int kBBytes = kBlockN * kRowBytes;
  static constexpr int kAOffset = 0;
  static constexpr int kB1Offset = kAOffset + kABytes;
  static constexpr int kB2Offset = kB1Offset + kBBytes;  // directly after B1: one N = 2·BlockN operand
  static constexpr int kStageBytes = kB2Offset + kBBytes;
  static constexpr uint32_t kTxBytes = kStageBytes;  // TMA writes whole boxes (out-of-bounds zero-filled)
  static constexpr int kBRowsPerCta = kBlockN / kClusterCtas;    // B1/B2 box rows one CTA loads
  static constexpr int kBSliceBytes = kBRowsPerCta * kRowBytes;  // its offset in each B tile
  // Arrivals that free a stage: every consumer warpgroup of every CTA its producer's multicast wrote to.
  // (Ping-pong: the one consumer that read the stage, of every CTA.)
  static constexpr int kEmptyArrivals = kTileConsumers * kClusterCtas;
  // The first tile row of consumer c's rows (ping-pong: every consumer owns the whole tile).
  BWGEMM_HD static constexpr int consumer_row0(uint32_t consumer) {
    return kPingPong ? 0 : static_cast<int>(consumer) * kWarpgroupM;
  }

  // ---- warps -------------------------------------------------------------------------------------------
  static constexpr int kProducerWarpgroup = 0;  // warp 0 issues TMA; warp 1 prefetches the tensor maps
  static constexpr int kThreads = (1 + kConsumerWarpgroups) * kWarpgroupThreads;
  static constexpr int kProducerRegs = kProducerRegisters;
  static constexpr int kConsumerRegs = kConsumerRegisters;

  // ---- the C staging buffers (kTmaStore) and the stage barriers after the stages (TiledSmemLayout) ---
  // The staging buffers of the TMA-store epilogue (sm90::TmaStoreBuffers): per consumer warpgroup, boxes of
  // 64 rows x 128 bytes, as many per round as the shared memory left after the stages holds; the
  // warpgroup's 64 x BlockN slice of C goes out in EpiBuffers::kRounds rounds.
  using SmemLayout = TiledSmemLayout<Out, kBlockN, kConsumerWarpgroups, kStages, kStageBytes, kTmaStore>;
  using EpiBuffers = typename SmemLayout::EpiBuffers;
  static constexpr int kEpiOffset = SmemLayout::kEpiOffset;  // [kConsumerWarpgroups][kWarpgroupBytes]
  // [kStages] full barriers (TMA landed), then [kStages] empty ones (both consumers done).
  static constexpr int kFullBarriers = SmemLayout::Barriers::kFullBarriers;
  static constexpr int kEmptyBarriers = SmemLayout::Barriers::kEmptyBarriers;
  static constexpr int kSmemBytes = SmemLayout::kSmemBytes;

  // ---- the limits, explained ---------------------------------------------------------------------------
  static_assert(std::is_same_v<Out, __half> || std::is_same_v<Out, __nv_bfloat16>,
                "Out is __half or __nv_bfloat16");
  static_assert(kBlockN == 32 || kBlockN == 64 || kBlockN == 96 || kBlockN == 128,
                "BlockN must be 32, 64, 96 or 128: the wgmma N = 2·BlockN must be <= 256 and one of "
                "ptx::kWgmmaSupportedN, and the TMA box of B (BlockN rows) at most 256 rows");
  static_assert(ptx::kWgmmaSupportedN<kMmaN>, "2·BlockN is not a wgmma N ptx::wgmma_ss supports");
  static_assert(kClusterCtas == 1 || kClusterCtas == 2,
                "ClusterCtas is 1 or 2 (a pair of CTAs sharing B1/B2)");
  static_assert(kBSliceBytes % kSmemAlignment == 0, "each CTA's slice of B must start on a swizzle atom");
  static_assert(!kTmaStore || kBlockN % EpiBuffers::kBoxColumns == 0,
                "TmaStore needs BlockN to be a whole number of C boxes (64-byte boxes for 16-bit C)");
  static_assert(kStages >= 2, "at least two stages: one loading while one is consumed");
  static_assert(kSmemBytes <= kMaxDynamicSmemBytes,
                "the stages do not fit the 227 KB of shared memory: fewer Stages or a smaller BlockN");
  static_assert(!Scheduler::kStreamK, "sched::StreamK is built for the GEMM only (sm90::GemmConfig)");
  static_assert(!Scheduler::kUsesClc,
                "Cluster Launch Control is sm_100 only: OneTilePerCluster or StaticPersistent");
  static_assert(kAccRegs + 64 <= kConsumerRegs, "the accumulators need registers to spare");
};

}  // namespace bwgemm::sm90
