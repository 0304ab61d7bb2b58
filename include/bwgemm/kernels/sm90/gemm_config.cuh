// sm90::GemmConfig: every knob of the sm_90a (Hopper) fp16/bf16 GEMM and everything derived from them.
//
//   using Cfg = bwgemm::sm90::GemmConfig<256, 4, 2, bwgemm::sched::StaticPersistent>;  // 128 x 256 tiles, 4
//   stages, clusters of 2 CTAs
//
// Tile: 128 · RowBlocks output rows x BlockN output columns per CTA. Two consumer warpgroups split the rows
// (64 · RowBlocks each); each issues RowBlocks m64n<BlockN>k16 wgmmas per 16 K. A producer warpgroup issues
// the TMA loads: per stage A (kBlockM rows x 64 K, K-major) and B (BlockN columns x 64 K), B either K-major
// (an N x K matrix, one box of BlockN rows) or MN-major (a K x N row-major matrix, BlockN / 64 boxes of 64
// columns x 64 K rows, 8 KiB apart). BlockK = 64 16-bit elements = one 128-byte swizzle row.
//
// TmaStore (default): each consumer warpgroup writes its slice of D into a 16 KiB shared-memory buffer
// (128-byte swizzled boxes of 64 rows x 128 bytes) and one thread stores it with TMA (cp.async.bulk.tensor,
// bulk_group); the consumers go on to the next tile's mainloop while the copy engine writes D. Off: D is
// stored from registers (4- or 8-byte stores, rows and columns past M, N masked). With RowBlocks 2 each
// warpgroup stores its two 64-row slices one after the other through the same buffer.
//
// Split K (ClusterCtas = 1 Configs, GemmParams::splits > 1): one cluster of `splits` CTAs per tile, each
// CTA one K range, the fp32 partials reduced in rank order through distributed shared memory
// (kernels/sm90/split_k.cuh) and D stored from registers whatever TmaStore says.
//
// ClusterCtas = 2: the two CTAs of a cluster compute vertically adjacent tiles (the same N columns), so they
// need the same B tile; each loads half of it and multicasts it to both (halves B's L2 -> SM traffic).
// ClusterAlongN (with ClusterCtas = 2): the two CTAs compute horizontally adjacent tiles (the same M rows)
// and share A instead: each loads half of the A tile's rows and multicasts it to both, B is per CTA. The
// cluster tile is then kBlockM x 2·BlockN; with an odd number of N tiles the pair's second CTA computes a
// tile past N (B loads zero-filled, stores masked). The empty-barrier protocol is the same: a stage is
// refilled only once the consumers of both CTAs freed it.
//
// RowBlocks (1 or 2): wgmma row blocks per consumer warpgroup. 2: each consumer owns 128 rows and issues
// two m64n<BlockN>k16 wgmmas per 16 K (rows 0-63 and 64-127 of its half, the same B) into two accumulator
// arrays, one commit group; the tile is 256 x BlockN (cuBLASLt's nvjet_sm90_tst_256x128 shape with BlockN
// 128). The register budget caps RowBlocks · BlockN / 2 accumulators per thread at 160 (kMaxAccRegs:
// RowBlocks 2 takes BlockN <= 160). No split K (kSplitK false: the host refuses splits).
//
// PingPong: the two consumer warpgroups take alternate tiles instead of splitting one: the CTA tile is one
// warpgroup's 64 · RowBlocks rows x BlockN (128 x 128 with RowBlocks 2, 64 x 256 with RowBlocks 1), tile i
// of the CTA's walk goes to consumer i % 2, and the other consumer skips that tile's K blocks in the stage
// ring. The producer loads the tiles in order into the one ring; the consumers' mainloops take turns (a
// named barrier per consumer: a consumer starts a tile once the other has waited on the stages of the tile
// before, which also keeps each consumer's full-barrier waits within one pass of the ring), so one
// consumer's epilogue runs under the other's wgmmas, where the cooperative kernel's tensor pipe waits for
// both consumers' epilogue (CUTLASS's KernelTmaWarpSpecializedPingpong and its ordered math barrier). A stage
// is freed by the one consumer that read it (per CTA of the cluster). No split K.
//
// Scheduler sched::StreamK (one-CTA Configs with RowBlocks 1, not ping-pong): one persistent CTA per SM,
// the whole waves of tiles as StaticPersistent, then the last, partial wave's K blocks cut into equal ranges
// (scheduler/schedulers.cuh), so that wave costs a fraction of a tile instead of a whole one; a tile shared
// by several CTAs is completed by the CTA that holds its first K blocks (its head), which adds the others'
// fp32 partial sums in K order (the same bits on every run for a given CTA count) from the workspace the
// caller passes.
//
// The input type (fp16 or bf16) is not part of the Config: the kernel is instantiated per input type
// (sm90::Gemm<Cfg>::run deduces it from the arguments), as the sm_100a sm100::GemmConfig does.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/kernels/sm90/common.cuh"
#include "bwgemm/kernels/sm90/split_k.cuh"  // kMaxSplitK
#include "bwgemm/scheduler/schedulers.cuh"

namespace bwgemm::sm90 {

template <int BlockN_, int Stages_, int ClusterCtas_, class Scheduler_,
          class Epilogue_ = epi::LinearCombination, class Out_ = __nv_bfloat16, bool TmaStore_ = true,
          int RowBlocks_ = 1, bool ClusterAlongN_ = false, bool PingPong_ = false>
struct GemmConfig {
  using Scheduler = Scheduler_;
  using Epilogue = Epilogue_;
  using Out = Out_;
  // The same kernel with another output type or epilogue functor.
  template <class O>
  using WithOut = GemmConfig<BlockN_, Stages_, ClusterCtas_, Scheduler_, Epilogue_, O, TmaStore_, RowBlocks_,
                             ClusterAlongN_, PingPong_>;
  template <class E>
  using WithEpilogue = GemmConfig<BlockN_, Stages_, ClusterCtas_, Scheduler_, E, Out_, TmaStore_, RowBlocks_,
                                  ClusterAlongN_, PingPong_>;
  // The same kernel with the other D store path.
  template <bool T>
  using WithTmaStore = GemmConfig<BlockN_, Stages_, ClusterCtas_, Scheduler_, Epilogue_, Out_, T, RowBlocks_,
                                  ClusterAlongN_, PingPong_>;

  // ---- knobs -------------------------------------------------------------------------------------------
  static constexpr int kBlockN = BlockN_;            // output columns per CTA tile (the wgmma N)
  static constexpr int kStages = Stages_;            // shared-memory pipeline depth
  static constexpr int kClusterCtas = ClusterCtas_;  // CTAs per cluster, sharing B (along M) or A (along N)
  static constexpr bool kTmaStore = TmaStore_;       // D through shared memory and TMA stores
  static constexpr int kRowBlocks = RowBlocks_;      // 64-row wgmma blocks per consumer warpgroup
  // The pair's CTAs side by side along N sharing A (true) or stacked along M sharing B (false).
  static constexpr bool kClusterAlongN = ClusterAlongN_ && ClusterCtas_ > 1;
  // The consumers take alternate tiles (true) or split each tile's rows (false).
  static constexpr bool kPingPong = PingPong_;

  // ---- tile shape --------------------------------------------------------------------------------------
  static constexpr int kConsumerWarpgroups = 2;
  static constexpr int kWarpgroupM = kWgmmaM * kRowBlocks;                    // rows per consumer
  static constexpr int kTileConsumers = kPingPong ? 1 : kConsumerWarpgroups;  // consumers per tile
  static constexpr int kBlockM = kTileConsumers * kWarpgroupM;              // 128 or 256; ping-pong 64 or 128
  static constexpr int kClusterTilesM = kClusterAlongN ? 1 : kClusterCtas;  // CTA tiles per cluster
  static constexpr int kClusterTilesN = kClusterAlongN ? kClusterCtas : 1;  //   tile, M and N
  static constexpr int kClusterBlockM = kBlockM * kClusterTilesM;           // rows per cluster tile
  static constexpr int kClusterBlockN = kBlockN * kClusterTilesN;           // columns per cluster tile
  static constexpr int kBlockK = static_cast<int>(ptx::kSw128Elements16);   // 64: one 128-byte row
  static constexpr int kMmasPerStage = kBlockK / static_cast<int>(ptx::kWgmmaK16);  // 4
  static constexpr int kAccRegs = kBlockN / 2;  // fp32 accumulator registers per row block per thread
  static constexpr int kAccRegsTotal = kAccRegs * kRowBlocks;  // per consumer thread
  // The register budget: 160 accumulators per consumer thread (two m64n160 fragments: a 256 x 160 tile, or a
  // ping-pong consumer's 128 x 160) leave the descriptors, addresses and epilogue registers within
  // kConsumerRegs: ptxas, CUDA 13.0, on GemmTile256x160 and GemmPingPong128x160 in both B layouts: no
  // spills, R0-R221. 128 x 256 tiles take 128.
  static constexpr int kMaxAccRegs = 160;

  // ---- shared memory per stage (offsets from the stage base; every piece 1024-byte aligned) -----------
  static constexpr int kRowBytes = static_cast<int>(ptx::kSw128RowBytes);  // 128
  static constexpr int kABytes = kBlockM * kRowBytes;
  static constexpr int kRowBlockABytes = kWgmmaM * kRowBytes;  // 8 KiB: one 64-row wgmma block of A
  // B (kBMnChunks etc. below): K-major, BlockN rows of 128 bytes; MN-major, whole 64-column chunks of 64 K
  // rows (BlockN 160: three, the third's last 32 columns loaded but never read by the wgmma). The stage
  // holds the larger of the two; each layout's kernel waits for the bytes it loads (tx_bytes<BMnMajor>).
  static constexpr int kBMnChunkColumns = static_cast<int>(ptx::kSw128Elements16);        // 64
  static constexpr int kBMnChunks = (kBlockN + kBMnChunkColumns - 1) / kBMnChunkColumns;  // per tile
  static constexpr int kBMnChunkBytes = kBlockK * kRowBytes;                              // 8 KiB = the LBO
  static constexpr int kBKMajorBytes = kBlockN * kRowBytes;
  static constexpr int kBMnMajorBytes = kBMnChunks * kBMnChunkBytes;
  static constexpr int kBBytes = kBMnMajorBytes > kBKMajorBytes ? kBMnMajorBytes : kBKMajorBytes;
  static constexpr int kAOffset = 0;
  static constexpr int kBOffset = kAOffset + kABytes;
  static constexpr int kStageBytes = kBOffset + kBBytes;
  // The bytes one stage's TMA loads write (whole boxes: out-of-bounds parts are zero-filled, still counted).
  template <bool BMnMajor>
  BWGEMM_HD static constexpr uint32_t tx_bytes() {
    return static_cast<uint32_t>(kABytes + (BMnMajor ? kBMnMajorBytes : kBKMajorBytes));
  }

  // The CTAs that share each operand: B over a pair along M, A over a pair along N (1: loaded alone).
  static constexpr int kASharers = kClusterAlongN ? kClusterCtas : 1;
  static constexpr int kBSharers = kClusterAlongN ? 1 : kClusterCtas;
  // A as loaded by one CTA of the cluster: kBlockM / kASharers rows of 128 bytes (one TMA box, <= 256 rows).
  static constexpr int kARowsPerCta = kBlockM / kASharers;
  static constexpr int kASliceBytes = kABytes / kASharers;
  // B as loaded by one CTA of the cluster: K-major, BlockN / kBSharers rows of 128 bytes; MN-major, the
  // 64-column chunks (each 64 K rows x 128 bytes) split between the CTAs that share B.
  static constexpr int kBKMajorRowsPerCta = kBlockN / kBSharers;   // box rows
  static constexpr int kBMnChunksPerCta = kBMnChunks / kBSharers;  // boxes per CTA
  static constexpr int kBSliceBytes = kBKMajorBytes / kBSharers;   // K-major, per CTA

  // ---- warps -------------------------------------------------------------------------------------------
  static constexpr int kProducerWarpgroup = 0;  // warp 0 issues TMA; warp 1 prefetches the tensor maps
  static constexpr int kThreads = (1 + kConsumerWarpgroups) * kWarpgroupThreads;
  static constexpr int kProducerRegs = kProducerRegisters;
  static constexpr int kConsumerRegs = kConsumerRegisters;
  // Arrivals that free a stage: every consumer warpgroup of every CTA that reads bytes this CTA's producer
  // wrote (with multicast, the peer's consumers too).
  // (Ping-pong: the one consumer that read the stage, of every CTA.)
  static constexpr int kEmptyArrivals = kTileConsumers * kClusterCtas;
  // The first tile row of consumer c's rows (ping-pong: every consumer owns the whole tile).
  BWGEMM_HD static constexpr int consumer_row0(uint32_t consumer) {
    return kPingPong ? 0 : static_cast<int>(consumer) * kWarpgroupM;
  }

  // ---- the split-K partials (GemmParams::splits > 1; kernels/sm90/split_k.cuh) ---------------------------
  // One tile per CTA: after the mainloop every wgmma is done and every load landed, so the partials go over
  // the stages: fp32, [register pair][consumer thread] (split_k.cuh's layout with Group 2), so that a quad of
  // the reduction is 4 adjacent columns of one row (a pair of each of two adjacent threads).
  static constexpr int kConsumerThreads = kConsumerWarpgroups * kWarpgroupThreads;  // 256
  static constexpr int kPartialElements = kAccRegs * kConsumerThreads;              // 128 x BlockN
  static constexpr int kPartialBytes = kPartialElements * 4;
  static constexpr int kPartialOffset = 0;
  static constexpr int kPartialQuads = kPartialElements / 4;
  static constexpr int kPartialGroup = 2;  // registers 2p, 2p + 1: columns c, c + 1
  // Whether the Config takes split K: one CTA per cluster (a pair's cluster shares B instead), one row block
  // per consumer (the partials' layout and partial_quad_coord are one 64-row fragment's), both consumers on
  // one tile (not ping-pong) and partials that
  // fit over the stages (e.g. not 128 x 256 tiles with 2 stages); the host refuses a split otherwise.
  static constexpr bool kSplitK = kClusterCtas == 1 && kRowBlocks == 1 && !kPingPong &&
                                  !Scheduler::kStreamK && kPartialBytes <= kStages * kStageBytes;
  // Stream-K (Scheduler sched::StreamK): the CTAs split the tiles' K blocks end to end; a CTA that computes
  // only part of a tile's K blocks hands the fp32 sums of a segment that is not the tile's head to the head's
  // CTA through the caller's workspace (GemmArguments::workspace): kPartialBytes per CTA in the same
  // [register pair][consumer thread] layout, so each thread adds exactly the words its peer thread wrote,
  // and a 32-bit flag per CTA (sm90::stream_k_workspace_bytes has the layout).
  static constexpr bool kStreamK = Scheduler::kStreamK;
  // Quad q of the partials (words 4q..4q+3): registers 2p, 2p + 1 (p = 2q / 256 = 2j + h) of consumer
  // threads t0, t0 + 1 (t0 = 2q % 256, even; consumer t0 / 128, warp w, lane l), i.e. (ptx/wgmma.cuh's
  // fragment) row 64·consumer + 16w + l/4 + 8h of the tile and its columns col..col + 3, col = 8j + 2(l%4).
  struct QuadCoord {
    int row, col;
  };
  BWGEMM_HD static constexpr QuadCoord partial_quad_coord(int q) {
    const int pair = (2 * q) / kConsumerThreads, t0 = (2 * q) % kConsumerThreads;
    const int consumer = t0 / kWarpgroupThreads, warp = (t0 % kWarpgroupThreads) / kWarpSize,
              lane = t0 % kWarpSize;
    const int j = pair / 2, h = pair % 2;
    return {consumer * kWarpgroupM + warp * 16 + lane / 4 + 8 * h, 8 * j + 2 * (lane % 4)};
  }

  // ---- the D staging buffers (kTmaStore) and the stage barriers after the stages (TiledSmemLayout) ---
  // The staging buffers of the TMA-store epilogue (sm90::TmaStoreBuffers): per consumer warpgroup, boxes of
  // 64 rows x 128 bytes, as many per round as the shared memory left after the stages holds; the
  // warpgroup's 64 x BlockN slice of D goes out in EpiBuffers::kRounds rounds.
  using SmemLayout = TiledSmemLayout<Out, kBlockN, kConsumerWarpgroups, kStages, kStageBytes, kTmaStore>;
  using EpiBuffers = typename SmemLayout::EpiBuffers;
  static constexpr int kEpiOffset = SmemLayout::kEpiOffset;  // [kConsumerWarpgroups][kWarpgroupBytes]
  // [kStages] full barriers (TMA landed), then [kStages] empty ones (all consumers done).
  static constexpr int kFullBarriers = SmemLayout::Barriers::kFullBarriers;
  static constexpr int kEmptyBarriers = SmemLayout::Barriers::kEmptyBarriers;
  static constexpr int kSmemBytes = SmemLayout::kSmemBytes;

  // ---- the limits, explained ---------------------------------------------------------------------------
  static_assert(std::is_same_v<Out, __half> || std::is_same_v<Out, __nv_bfloat16> ||
                    std::is_same_v<Out, float>,
                "Out is __half, __nv_bfloat16 or float");
  static_assert(
      kBlockN == 64 || kBlockN == 128 || kBlockN == 160 || kBlockN == 192 || kBlockN == 256,
      "BlockN must be 64, 128, 160, 192 or 256: a wgmma N of ptx::kWgmmaSupportedN, a multiple of 32 "
      "(whole 64-byte D boxes), and at most 256 (the TMA box and the wgmma limit)");
  static_assert(kBlockN % kBMnChunkColumns == 0 || kClusterCtas == 1,
                "a BlockN that is not whole 64-column chunks (160) takes one CTA per cluster (the chunks and "
                "the K-major rows would split unevenly over a pair)");
  static_assert(ptx::kWgmmaSupportedN<kBlockN>, "BlockN is not a wgmma N ptx::wgmma_ss supports");
  static_assert(kClusterCtas == 1 || kClusterCtas == 2,
                "ClusterCtas is 1 or 2 (a pair of CTAs sharing B, or A with ClusterAlongN)");
  static_assert(!ClusterAlongN_ || kClusterCtas == 2, "ClusterAlongN needs a pair of CTAs (ClusterCtas = 2)");
  static_assert(
      !(kPingPong && kClusterAlongN),
      "PingPong with ClusterAlongN is not built: ping-pong pairs share B (ClusterCtas = 2 along M)");
  static_assert(kRowBlocks == 1 || kRowBlocks == 2,
                "RowBlocks is 1 (64 rows per consumer) or 2 (128 rows: two wgmmas per 16 K)");
  static_assert(kAccRegsTotal <= kMaxAccRegs,
                "RowBlocks * BlockN / 2 accumulators per consumer thread must be at most 160 (the register "
                "budget): RowBlocks 2 takes BlockN <= 160");
  static_assert(kBlockM <= 256 && kARowsPerCta <= 256, "a TMA box has at most 256 rows");
  static_assert(kBMnChunks % kBSharers == 0, "the B chunks must split evenly between the cluster's CTAs");
  static_assert(kBSliceBytes % kSmemAlignment == 0, "each CTA's slice of B must start on a swizzle atom");
  static_assert(kASliceBytes % kSmemAlignment == 0, "each CTA's slice of A must start on a swizzle atom");
  static_assert(kBlockN % EpiBuffers::kBoxColumns == 0, "BlockN must be a whole number of D boxes");
  static_assert(kStages >= 2, "at least two stages: one loading while one is consumed");
  static_assert(kPartialQuads % kMaxSplitK == 0, "the partials must split evenly among kMaxSplitK CTAs");
  static_assert(
      kSmemBytes <= kMaxDynamicSmemBytes,
      "the stages do not fit the 227 KB of shared memory: fewer Stages, a smaller BlockN or RowBlocks 1");
  static_assert(!kStreamK || (kClusterCtas == 1 && kRowBlocks == 1 && !kPingPong),
                "sched::StreamK takes one CTA per cluster, one row block per consumer and no ping-pong (the "
                "partials' layout is the cooperative 128 x BlockN fragment's)");
  static_assert(!Scheduler::kUsesClc,
                "Cluster Launch Control is sm_100 only: OneTilePerCluster or StaticPersistent");
  static_assert(kAccRegsTotal + 64 <= kConsumerRegs, "the accumulators need registers to spare");
};

}  // namespace bwgemm::sm90
