// Pieces shared by the sm_90a (Hopper) kernels: hardware limits, warpgroup register budgets, the pipeline of
// the warp-specialized kernels (barrier set-up, consumer warpgroup roles, the producer's and the consumers'
// walks over the K blocks of a tile), and the stores of a wgmma accumulator fragment: pairs of adjacent
// columns to global memory, or a warpgroup's slice through shared memory and TMA stores.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "bwgemm/base/hardware.hpp"
#include "bwgemm/base/int_math.hpp"
#include "bwgemm/base/macros.hpp"
#include "bwgemm/epilogue/device_scale.cuh"
#include "bwgemm/epilogue/store.cuh"
#include "bwgemm/isa/descriptors_sm90.hpp"
#include "bwgemm/pipeline/pipeline_state.cuh"
#include "bwgemm/ptx/cluster.cuh"
#include "bwgemm/ptx/mbarrier.cuh"
#include "bwgemm/ptx/misc.cuh"
#include "bwgemm/ptx/tma.cuh"
#include "bwgemm/ptx/wgmma.cuh"
#include "bwgemm/scheduler/tile_order.cuh"  // sched::TileCoord

// Refuse a device pass whose stubs of these kernels a GPU could launch (base/macros.hpp says which passes
// and why), once per translation unit when both architectures' kernels are included.
#if BWGEMM_STUBS_ONLY_DEVICE_PASS && !defined(BWGEMM_DETAIL_DEVICE_PASS_REFUSED)
#define BWGEMM_DETAIL_DEVICE_PASS_REFUSED
BWGEMM_REFUSE_DEVICE_PASS()
#endif

namespace bwgemm::sm90 {

// Hardware facts (base/hardware.hpp defines each once).
using hw::kMaxDynamicSmemBytes;
using hw::kSmemAlignment;
using hw::kWarpgroupThreads;
using hw::kWarpSize;
inline constexpr int kWgmmaM = static_cast<int>(ptx::kWgmmaM);  // M of every wgmma.mma_async
// Register budgets after setmaxnreg, per thread: a producer warpgroup that only issues TMA and two consumer
// warpgroups that hold the accumulators. 128·40 + 256·232 = 64512 <= the 65536 registers of an SM.
// (CUTLASS's sm90 warp-specialized cooperative kernel: LoadRegisterRequirement 40, MmaRegisterRequirement
// 232.)
inline constexpr int kProducerRegisters = 40;
inline constexpr int kConsumerRegisters = 232;

// ---- the staging buffers of the TMA-store epilogue (store_slice_with_tma) --------------------------------
// A consumer warpgroup's 64 x BlockN slice of the output goes out in boxes of 64 rows x 128 bytes (128-byte
// swizzled, 8 KiB each; where BlockN is not a whole number of 128-byte rows, BlockN 160 of a 16-bit Out, 64
// rows x 64 bytes, 64-byte swizzled, 4 KiB), kBoxesPerRound at a time through a buffer of its own. A round
// refills the buffer only after the copy engine has read the previous one, so the fewer the rounds the less a
// warpgroup waits inside an epilogue: the buffer takes as many boxes as the shared memory left after
// `SmemTaken` bytes (stages, barriers, alignment) holds for all `Warpgroups` consumers, the whole slice when
// it fits, else half of it, and so on.
template <class Out, int BlockN, int Warpgroups, int SmemTaken, bool Enabled>
struct TmaStoreBuffers {
  static constexpr int kSwizzleBytes =
      BlockN * static_cast<int>(sizeof(Out)) % static_cast<int>(ptx::kSw128RowBytes) == 0 ? 128 : 64;
  static constexpr int kBoxRowBytes = kSwizzleBytes;  // one box row: one swizzle span
  static constexpr int kBoxColumns = kBoxRowBytes / static_cast<int>(sizeof(Out));
  // A box is one 64-row wgmma block of rows (whatever rows a warpgroup owns: RowBlocks 2 stores two
  // slices): the D tensor map's box is (kBoxColumns, kBoxRows), its swizzle kSwizzleBytes.
  static constexpr int kBoxRows = kWgmmaM;
  static constexpr int kBoxBytes = kBoxRows * kBoxRowBytes;  // 8 KiB (4 KiB)
  static constexpr int kBoxes = BlockN / kBoxColumns;        // boxes per warpgroup slice of a tile
  static constexpr int boxes_per_round() {
    for (int b = kBoxes; b > 1; b /= 2)
      if (kBoxes % b == 0 && SmemTaken + Warpgroups * b * kBoxBytes <= kMaxDynamicSmemBytes) return b;
    return 1;
  }
  static constexpr int kBoxesPerRound = Enabled ? boxes_per_round() : 1;
  static constexpr int kRounds = kBoxes / kBoxesPerRound;
  static constexpr int kWarpgroupBytes = Enabled ? kBoxesPerRound * kBoxBytes : 0;  // per consumer
};

// ---- the shared memory after the stages -----------------------------------------------------------------
// Each stage has two mbarriers (bwgemm::BarrierArray, 8 bytes each: an mbarrier object is 64 bits), full (its
// TMA loads landed) and empty (its consumers are done with it): [Stages] full ones at kFullBarriers, then
// [Stages] empty ones at kEmptyBarriers, from byte `Offset` of the dynamic buffer; kEnd is the byte after
// them.
inline constexpr int kBarrierBytes = static_cast<int>(BarrierArray<1>::kBytesPerBarrier);  // 8
inline constexpr int kStageBarrierBytes = 2 * kBarrierBytes;  // a stage's full and empty barriers: 16
template <int Stages, int Offset>
struct StageBarriers {
  static constexpr int kFullBarriers = Offset;
  static constexpr int kEmptyBarriers = kFullBarriers + kBarrierBytes * Stages;
  static constexpr int kEnd = kEmptyBarriers + kBarrierBytes * Stages;
};

// The shared-memory layout of the tiled kernels (sm90::GemmConfig, sm90::DualGemmConfig) after their Stages
// stages of StageBytes: the TMA-store staging buffers of the ConsumerWarpgroups consumers at kEpiOffset
// (TmaStoreBuffers: as many boxes per round as the 227 KB leave after the stages, their barriers and the
// alignment), then the stage barriers (StageBarriers). kSmemBytes adds kSmemAlignment: the kernel aligns the
// dynamic buffer's start up to 1024 bytes itself.
template <class Out, int BlockN, int ConsumerWarpgroups, int Stages, int StageBytes, bool TmaStore>
struct TiledSmemLayout {
  static constexpr int kStagesBytes = Stages * StageBytes;
  using EpiBuffers = TmaStoreBuffers<Out, BlockN, ConsumerWarpgroups,
                                     kStagesBytes + kStageBarrierBytes * Stages + kSmemAlignment, TmaStore>;
  static constexpr int kEpiOffset = kStagesBytes;  // [ConsumerWarpgroups][EpiBuffers::kWarpgroupBytes]
  using Barriers = StageBarriers<Stages, kEpiOffset + ConsumerWarpgroups * EpiBuffers::kWarpgroupBytes>;
  static constexpr int kSmemBytes = Barriers::kEnd + kSmemAlignment;
};

// ---- pipeline of the warp-specialized kernels -------------------------------------------------------------
// Cfg provides kStages, kClusterCtas, kEmptyArrivals, kStageBytes, kTxBytes (or produce_k_blocks' caller its
// own) and kBlockK; full[s] and empty[s] are the stage barriers (bwgemm::BarrierArray) at Cfg::kFullBarriers
// and Cfg::kEmptyBarriers.

// Set-up before the roles split: warp 0's elected thread initialises the stage barriers (full[s]: one
// arrival, the producer's arrive.expect_tx; empty[s]: Cfg::kEmptyArrivals, every consumer warpgroup of the
// cluster), warp 1's elected thread runs `prefetch_tensor_maps`. Then the CTA syncs; with a cluster the
// whole cluster does, since the peer multicasts into this CTA's stages and arrives on its barriers.
template <class Cfg, class PrefetchTensorMaps>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void start_pipeline(const BarrierArray<Cfg::kStages>& full,
                                                     const BarrierArray<Cfg::kStages>& empty, uint32_t warp,
                                                     const PrefetchTensorMaps& prefetch_tensor_maps) {
  using namespace ::bwgemm::ptx;
  if (warp == 0 && elect_one_sync()) {
    for (uint32_t s = 0; s < Cfg::kStages; ++s) {
      mbarrier_init(full[s], 1);
      mbarrier_init(empty[s], Cfg::kEmptyArrivals);
    }
    fence_mbarrier_init();
  }
  if (warp == 1 && elect_one_sync()) prefetch_tensor_maps();
  if constexpr (Cfg::kClusterCtas > 1) {
    cluster_sync();
  } else {
    sync_threads();
  }
}

// The first output row and column of this CTA's tile of cluster tile `t`: a cluster tile is
// Cfg::kClusterTilesM x Cfg::kClusterTilesN CTA tiles (one of them 1), CTA `cta_rank` of the cluster takes
// M tile t.m · kClusterTilesM + cta_rank (pairs along M) or N tile t.n · kClusterTilesN + cta_rank (along N).
template <class Cfg>
BWGEMM_DEVICE BWGEMM_FORCEINLINE int32_t tile_row0(const sched::TileCoord& t, uint32_t cta_rank) {
  const int32_t rank = Cfg::kClusterTilesM > 1 ? static_cast<int32_t>(cta_rank) : 0;
  return (t.m * Cfg::kClusterTilesM + rank) * Cfg::kBlockM;
}
template <class Cfg>
BWGEMM_DEVICE BWGEMM_FORCEINLINE int32_t tile_col0(const sched::TileCoord& t, uint32_t cta_rank) {
  const int32_t rank = Cfg::kClusterTilesN > 1 ? static_cast<int32_t>(cta_rank) : 0;
  return (t.n * Cfg::kClusterTilesN + rank) * Cfg::kBlockN;
}

// ---- ragged M: the last rows through a box of their own -------------------------------------------------
// A TMA box that reaches past the tensor's M zero-fills the rows past it, and on an H200 those rows cost
// more than rows in bounds: at N = 65536, K = 5120 the GEMM's default took 441 us for M = 129 (two 128-row
// boxes, the second holding one row) where M = 256 took 256 us, falling as the rows past M did (160: 396 us,
// 192: 319, 224: 256); the swap-AB kernels alike (M = 65 in 128-token boxes: 52 us against 35 at M = 128,
// N = 3584, K = 14336). So every sm_90a kernel has a second map of its M-side operand (A, or the swap-AB
// kernels' tokens) whose box holds only the rows of the last box (M mod the box's rows: sm90/operand_map.cuh,
// operand_maps_with_tail), and the producer loads a box that would cross M through it, arming the stage for
// the bytes it leaves out; a box wholly past M (the idle tile of a CTA pair past an odd last row tile) is not
// loaded. With it M = 129 took 231 us and M = 65 33 us (H200, 2026-12-02,
// docs/data/h200_2026-12-02_paired_ragged_m_before.json and _after.json). The shared-memory rows past M keep
// what an earlier stage left there: they reach only accumulator rows past M, which no epilogue stores (each
// output row depends on its own row of A alone). The same for B's rows past N (the weights) was measured the
// same day and not kept: no difference outside the run-to-run spread. The map a box of BoxRows rows starting
// at row0 loads through (null: none, the box lies wholly past M) and the bytes of the full box it leaves out.
struct RowBox {
  const CUtensorMap* map;
  uint32_t missing_bytes;
};
template <int BoxRows>
BWGEMM_DEVICE BWGEMM_FORCEINLINE RowBox row_box(int32_t row0, int32_t m, const CUtensorMap* full,
                                                const CUtensorMap* tail) {
  constexpr uint32_t kRowBytes = ::bwgemm::ptx::kSw128RowBytes;
  if (row0 >= m) return {nullptr, BoxRows * kRowBytes};
  if (row0 + BoxRows <= m) return {full, 0u};
  return {tail, static_cast<uint32_t>(row0 + BoxRows - m) * kRowBytes};
}

// The producer's walk over the K blocks of one tile: per block it waits until every consumer of the cluster
// freed the stage, arms the stage's full barrier with TxBytes (the bytes load_stage's TMA loads write) and
// runs `load_stage(stage_base, full_barrier, k0)` (the TMA loads into the stage at shared address
// stage_base).
// `missing_bytes`: what this tile's loads leave out of TxBytes (RowBox: the rows of a box past M).
template <class Cfg, uint32_t TxBytes = Cfg::kTxBytes, class LoadStage>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void produce_k_blocks(PipelineState<Cfg::kStages>& stage,
                                                       const BarrierArray<Cfg::kStages>& full,
                                                       const BarrierArray<Cfg::kStages>& empty, uint32_t smem,
                                                       int32_t k_iters, const LoadStage& load_stage,
                                                       uint32_t missing_bytes = 0) {
  using namespace ::bwgemm::ptx;
  for (int32_t kb = 0; kb < k_iters; ++kb, stage.advance()) {
    mbarrier_wait_parity(empty[stage.index], stage.producer_parity());
    const uint32_t bar = full[stage.index];
    mbarrier_arrive_expect_tx(bar, TxBytes - missing_bytes);
    load_stage(smem + stage.index * Cfg::kStageBytes, bar, kb * Cfg::kBlockK);
  }
}

// A consumer thread's place: consumer warpgroup c (rows kWarpgroupM·c.. of the tile: 64 rows of a 128-row
// tile, 128 of a 256-row one), and the thread, warp and lane within it.
struct ConsumerThread {
  uint32_t consumer, thread, warp_in_group, lane;
};

BWGEMM_DEVICE BWGEMM_FORCEINLINE ConsumerThread consumer_thread(uint32_t warpgroup) {
  const uint32_t thread = ::bwgemm::ptx::thread_idx().x % kWarpgroupThreads;
  return {warpgroup - 1, thread, thread / kWarpSize, thread % kWarpSize};
}

// Frees stage `s` in every CTA of the cluster (their producers' B reached this CTA's stage s): one arrival
// per consumer warpgroup, by its thread 0.
template <class Cfg>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void release_stage(const BarrierArray<Cfg::kStages>& empty, uint32_t s,
                                                    uint32_t thread) {
  using namespace ::bwgemm::ptx;
  if (thread != 0) return;
  if constexpr (Cfg::kClusterCtas > 1) {
#pragma unroll
    for (uint32_t r = 0; r < static_cast<uint32_t>(Cfg::kClusterCtas); ++r)
      mbarrier_arrive_cluster(mapa_shared_cluster(empty[s], r));
  } else {
    mbarrier_arrive(empty[s]);
  }
}

// A tile's accumulator fragment set to zero (what a tile with no K block stores), fenced so that the
// compiler keeps the zeros ahead of the wgmmas that accumulate into it.
template <int R>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void zero_accumulator(float (&acc)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) acc[i] = 0.0f;
  ::bwgemm::ptx::wgmma_fence_operand(acc);
}

// A consumer warpgroup's walk over the K blocks of one tile: per block it waits for the stage's data, runs
// `issue_mmas(stage_base, first)` (the wgmmas that read the stage; `first`: the tile's first block, so the
// accumulator starts from zero) as one commit group, and frees the stage of the block before once
// wgmma.wait_group says the wgmmas that read it are done, one stage behind the issue. Returns with every
// wgmma of the tile done and every stage freed; the caller fences the accumulator before reading it.
template <class Cfg, class IssueMmas>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void consume_k_blocks(PipelineState<Cfg::kStages>& stage,
                                                       const BarrierArray<Cfg::kStages>& full,
                                                       const BarrierArray<Cfg::kStages>& empty, uint32_t smem,
                                                       int32_t k_iters, uint32_t thread,
                                                       const IssueMmas& issue_mmas) {
  using namespace ::bwgemm::ptx;
  uint32_t previous = 0;  // the stage the last batch of wgmmas read
  for (int32_t kb = 0; kb < k_iters; ++kb) {
    mbarrier_wait_parity(full[stage.index], stage.consumer_parity());
    wgmma_fence();
    issue_mmas(smem + stage.index * Cfg::kStageBytes, kb == 0);
    wgmma_commit_group();
    // The batch before this one is done: its stage can be refilled.
    wgmma_wait_group<1>();
    if (kb > 0) release_stage<Cfg>(empty, previous, thread);
    previous = stage.index;
    stage.advance();
  }
  wgmma_wait_group<0>();
  release_stage<Cfg>(empty, previous, thread);
}

// ---- ping-pong consumers (Cfg::kPingPong)
// ------------------------------------------------------------------ The two consumer warpgroups take
// alternate tiles of the CTA's walk (tile i to consumer i % 2), the other one advancing its pipeline state
// past that tile's K blocks; the producer loads every tile in order into the one ring. The mainloops take
// turns: a consumer starts a tile only once the other has waited on every stage of the tile before (named
// barrier kMainloopTurnBarrier + c), and hands the turn over after its own mainloop, so its epilogue runs
// under the other's wgmmas. The turn is needed for correctness too: a consumer that skipped K blocks could
// otherwise wait on a stage's full barrier one or more passes ahead of it, and try_wait.parity, which sees
// only the barrier's current phase, would take an older phase of the same parity for the one it waits on (PTX
// ISA, mbarrier phase completion). Named barriers 4 and 5 (0: __syncthreads, 1-2: the TMA-store epilogue, 3:
// the split-K partials).
inline constexpr uint32_t kMainloopTurnBarrier = 4;

// Whether tile `walk` of the CTA's walk is this consumer's (always, without ping-pong). If not, `stage`
// moves past its `k_iters` K blocks; if so, and it is not the walk's first tile, the consumer waits for its
// turn.
template <class Cfg>
BWGEMM_DEVICE BWGEMM_FORCEINLINE bool ping_pong_take_tile(uint32_t walk, uint32_t consumer,
                                                          PipelineState<Cfg::kStages>& stage,
                                                          int32_t k_iters) {
  if constexpr (Cfg::kPingPong) {
    if ((walk & 1u) != consumer) {
      stage.advance(static_cast<uint32_t>(k_iters));
      return false;
    }
    if (walk > 0) ::bwgemm::ptx::named_barrier_sync(kMainloopTurnBarrier + consumer, 2 * kWarpgroupThreads);
  }
  return true;
}

// After a consumer's mainloop: the other consumer's turn, unless this was the walk's last tile (so that every
// arrival meets the other consumer's wait). Nothing without ping-pong.
template <class Cfg>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void ping_pong_pass_turn(uint32_t consumer, bool more_tiles) {
  if constexpr (Cfg::kPingPong) {
    if (more_tiles)
      ::bwgemm::ptx::named_barrier_arrive(kMainloopTurnBarrier + (consumer ^ 1u), 2 * kWarpgroupThreads);
  }
}

// Stores out[0], out[1] to dst[0], dst[1] (two adjacent columns of one row; dst 4-byte aligned for 16-bit
// outputs, 8-byte for fp32), or only out[0] when `both` is false (the last, odd column of C).
template <class Out>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void store_pair(Out* dst, float v0, float v1, bool both) {
  if constexpr (std::is_same_v<Out, float>) {
    if (both) {
      *reinterpret_cast<float2*>(dst) = float2{v0, v1};
    } else {
      dst[0] = v0;
    }
  } else {
    const uint32_t packed = epi::pack_two<Out>(v0, v1);
    if (both) {
      *reinterpret_cast<uint32_t*>(dst) = packed;
    } else {
      *reinterpret_cast<uint16_t*>(dst) = static_cast<uint16_t>(packed & 0xFFFFu);
    }
  }
}

// One value of a 16-bit (or fp32) output at dst, from fp32; and one of C at src, as fp32 (the scattered
// stores and loads of the swap-AB epilogue, whose tiles are transposed against D's rows).
template <class Out>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void store_one(Out* dst, float v) {
  if constexpr (std::is_same_v<Out, float>) {
    *dst = v;
  } else {
    *reinterpret_cast<uint16_t*>(dst) = static_cast<uint16_t>(epi::pack_two<Out>(v, 0.0f) & 0xFFFFu);
  }
}
template <class Out>
BWGEMM_DEVICE BWGEMM_FORCEINLINE float load_one(const Out* src) {
  if constexpr (std::is_same_v<Out, float>) {
    return *src;
  } else {
    return epi::unpack_half<Out>(static_cast<uint32_t>(*reinterpret_cast<const uint16_t*>(src)), false);
  }
}

// The TMA-store epilogue of one consumer warpgroup: its 64 x BlockN slice of the output, whose rows
// 16w + l/4 + 8h and columns 8j + 2(l%4) (+1) (warp w, lane l) hold the pair values(j, h, v0, v1), goes
// out in kRounds rounds of kBoxesPerRound boxes through the warpgroup's shared-memory buffer
// (kWarpgroupBytes at Cfg::kEpiOffset; the k* names are Cfg::EpiBuffers', a TmaStoreBuffers). Box b holds
// columns [b·kBoxColumns, (b+1)·kBoxColumns) of the 64 rows, one kBoxRowBytes row each, 16-byte units
// XOR-swizzled as TMA's swizzle expects (128-byte rows by row % 8, 64-byte rows by (row / 2) % 4; thread
// row % 8 = lane / 4, so a warp's 8 rows hit 8 different 16-byte bank groups either way: no bank conflicts).
// Thread 0 issues the stores to `tmap` at (n0 + b·kBoxColumns, m0, batch); before a round refills the
// buffer the warpgroup waits only until the copy engine has read it, so the global writes overlap whatever
// follows. Named barrier 1 + consumer (0 is __syncthreads). Pair with
// finish_tma_stores.
template <class Cfg, class Values>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void store_slice_with_tma(const CUtensorMap* tmap, uint32_t smem,
                                                           const ConsumerThread& me, int32_t n0, int32_t m0,
                                                           int32_t batch, const Values& values) {
  using namespace ::bwgemm::ptx;
  using Out = typename Cfg::Out;
  using Buffers = typename Cfg::EpiBuffers;
  const uint32_t buffer = smem + Cfg::kEpiOffset + me.consumer * Buffers::kWarpgroupBytes;
  uint8_t* const buffer_ptr = static_cast<uint8_t*>(dynamic_smem_ptr()) + (buffer - dynamic_smem_base());
  const uint32_t row_in_slice = me.warp_in_group * 16 + me.lane / 4;
  const uint32_t epi_barrier = 1 + me.consumer;
#pragma unroll
  for (int r = 0; r < Buffers::kRounds; ++r) {
    // The previous round's (or tile's) TMA stores have read the buffer.
    if (me.thread == 0) tma_store_wait_read<0>();
    named_barrier_sync(epi_barrier, kWarpgroupThreads);
#pragma unroll
    for (int bb = 0; bb < Buffers::kBoxesPerRound; ++bb) {
      const int b = r * Buffers::kBoxesPerRound + bb;
#pragma unroll
      for (int jj = 0; jj < Buffers::kBoxColumns / 8; ++jj) {
        const int j = b * (Buffers::kBoxColumns / 8) + jj;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const uint32_t srow = row_in_slice + 8 * h;
          float v0, v1;
          values(j, h, v0, v1);
          const uint32_t byte = static_cast<uint32_t>((8 * jj + 2 * (me.lane % 4)) * sizeof(Out));
          // TMA's swizzle (PTX ISA 5.5.7, "Tensor swizzling modes"; the buffers start on 1024-byte
          // boundaries): the 16-byte unit XOR the row's phase, row % 8 for 128-byte rows, (row / 2) % 4 for
          // 64-byte ones.
          const uint32_t phase = Buffers::kSwizzleBytes == 128 ? (srow & 7) : ((srow >> 1) & 3);
          const uint32_t offset = bb * Buffers::kBoxBytes + srow * Buffers::kBoxRowBytes +
                                  ((((byte >> 4) ^ phase) << 4) | (byte & 15));
          if constexpr (std::is_same_v<Out, float>) {
            *reinterpret_cast<float2*>(buffer_ptr + offset) = float2{v0, v1};
          } else {
            *reinterpret_cast<uint32_t*>(buffer_ptr + offset) = epi::pack_two<Out>(v0, v1);
          }
        }
      }
    }
    fence_proxy_async_shared_cta();  // the writes above before the copy engine reads them
    named_barrier_sync(epi_barrier, kWarpgroupThreads);
    if (me.thread == 0) {
#pragma unroll
      for (int bb = 0; bb < Buffers::kBoxesPerRound; ++bb) {
        const int b = r * Buffers::kBoxesPerRound + bb;
        tma_store(tmap, buffer + bb * Buffers::kBoxBytes, {n0 + b * Buffers::kBoxColumns, m0, batch});
      }
      tma_store_commit_group();
    }
  }
}

// After a consumer warpgroup's last store_slice_with_tma: its TMA stores are complete before the CTA (and
// its shared memory) goes away.
BWGEMM_DEVICE BWGEMM_FORCEINLINE void finish_tma_stores(const ConsumerThread& me) {
  if (me.thread == 0) ::bwgemm::ptx::tma_store_wait<0>();
}

}  // namespace bwgemm::sm90
