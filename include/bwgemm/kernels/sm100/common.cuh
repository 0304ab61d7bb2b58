// Pieces shared by the sm_100a kernels (dual GEMM and GEMM): hardware limits, tensor-memory column
// budgeting, the shared-memory tail of barriers every kernel places after its stages, the CTA-group helpers
// for barriers that live in the even CTA of a pair, and the tile stream that walks a scheduler's tiles
// (including the Cluster Launch Control response pipeline); ConfigList for the lists of shipped kernels.
#pragma once

#include <cstdint>

#include "bwgemm/base/hardware.hpp"
#include "bwgemm/base/int_math.hpp"
#include "bwgemm/base/macros.hpp"
#include "bwgemm/pipeline/pipeline_state.cuh"
#include "bwgemm/ptx/ptx.cuh"
#include "bwgemm/scheduler/grouped_tiles.cuh"  // sched::first_row
#include "bwgemm/scheduler/schedulers.cuh"

// Refuse a device pass whose stubs of these kernels a GPU could launch (base/macros.hpp says which passes
// and why), once per translation unit when both architectures' kernels are included.
#if BWGEMM_STUBS_ONLY_DEVICE_PASS && !defined(BWGEMM_DETAIL_DEVICE_PASS_REFUSED)
#define BWGEMM_DETAIL_DEVICE_PASS_REFUSED
BWGEMM_REFUSE_DEVICE_PASS()
#endif

namespace bwgemm::sm100 {

// Hardware facts (base/hardware.hpp defines each once).
using hw::kMaxDynamicSmemBytes;
using hw::kSmemAlignment;
using hw::kTmemLanes;
using hw::kTmemLaneShift;
using hw::kTmemLanesPerWarp;
using hw::kTmemMaxColumns;
using hw::kTmemMinAllocColumns;
using hw::kWarpSize;
inline constexpr int kClcStages = 2;  // CLC requests and responses in flight (seed 004)
inline constexpr int kClcResponseBytes = static_cast<int>(ptx::kClcResponseBytes);  // a .b128 response

// Smallest legal tcgen05.alloc column count holding `used` columns.
BWGEMM_HD constexpr int tmem_alloc_columns(int used) {
  int cols = kTmemMinAllocColumns;
  while (cols < used) cols *= 2;
  return cols;
}

// A shared-memory matrix descriptor moved `bytes` (a multiple of 16) further: its start-address field (bits
// 0-13, the address / 16 of ptx::smem_desc_with_address) gains bytes / 16. Exact while the moved address
// stays inside the 2^18-byte shared window (every stage of every kernel does), so no carry leaves the field;
// the add is done on the low word alone (seed 004 advances its descriptors inside a stage this way). Per MMA
// K step it replaces the shift, mask and merge of re-encoding the address.
BWGEMM_HD constexpr uint64_t smem_desc_advanced(uint64_t desc, uint32_t bytes) {
  return (desc & 0xFFFFFFFF00000000ull) | static_cast<uint32_t>(static_cast<uint32_t>(desc) + (bytes >> 4));
}

// A list of kernel Configs (the shipped kernels of a family: tests, compile report).
template <class... Configs>
struct ConfigList {};

// The tile grid of a swap-AB Config (16-bit or NVFP4, either operation) over an M x N x batch problem: "M"
// tiles of Cfg::kBlockWeights weight rows (N), "N" tiles of Cfg::kBlockTokens tokens (M), in the grouped
// order of sched::TileGrid (roles.cuh walks tensor-memory lanes as its rows: here the weight rows).
template <class Cfg>
constexpr sched::TileGrid swap_ab_tiles(int64_t m, int64_t n, int64_t batch) {
  return sched::grouped_tile_grid(n, Cfg::kBlockWeights, m, Cfg::kBlockTokens, batch);
}

// Bytes of one tile record (roles.cuh's TileRecord: what the record thread hands the epilogue warps per tile;
// 48 bytes for a grouped tile), one per accumulator stage.
inline constexpr int kTileRecordBytes = 64;

// The shared-memory tail every sm_100a kernel places after its operand stages (byte offsets from its
// start): the stage and accumulator barriers, the Cluster Launch Control response ring, the tile records
// with their barriers (TileRecords: the kernels with Cfg::kTileRecords), and the slot tcgen05.alloc writes
// the tensor-memory base address to.
template <int Stages, int AccStages, bool TileRecords = false>
struct BarrierLayout {
  static constexpr int kFullBarriers = 0;                                      // [Stages], even CTA
  static constexpr int kEmptyBarriers = kFullBarriers + 8 * Stages;            // [Stages]
  static constexpr int kAccFullBarriers = kEmptyBarriers + 8 * Stages;         // [AccStages]
  static constexpr int kAccEmptyBarriers = kAccFullBarriers + 8 * AccStages;   // [AccStages], even CTA
  static constexpr int kClcFullBarriers = kAccEmptyBarriers + 8 * AccStages;   // [kClcStages]
  static constexpr int kClcEmptyBarriers = kClcFullBarriers + 8 * kClcStages;  // [kClcStages], even CTA
  static constexpr int kClcResponses = static_cast<int>(round_up_u32(kClcEmptyBarriers + 8 * kClcStages, 16));
  static constexpr int kRecordEmptyBarriers = kClcResponses + kClcResponseBytes * kClcStages;  // [AccStages]
  static constexpr int kTileRecords =
      static_cast<int>(round_up_u32(kRecordEmptyBarriers + (TileRecords ? 8 * AccStages : 0), 16));
  static constexpr int kTmemBaseSlot = kTileRecords + (TileRecords ? kTileRecordBytes * AccStages : 0);
  static constexpr int kBytes = kTmemBaseSlot + 16;
};

// A barrier among the threads of a CTA (one CTA) or of the CTA pair (the cluster).
template <int CtaGroup>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void cta_group_sync() {
  if constexpr (CtaGroup == 2) {
    ptx::cluster_sync();
  } else {
    ptx::sync_threads();
  }
}

// The same without the cluster barrier's release (barrier.cluster.arrive.release compiles to a GPU-scope
// fence, MEMBAR.ALL.GPU: docs/ptx.md), for the two places where no generic-proxy write before it needs to be
// seen by the peer after it (seed 004 uses the relaxed form at both):
//   kernel start: the peer uses this CTA's mbarriers, whose initialisation
//   fence.mbarrier_init.release.cluster already released to the cluster; the tensor-memory address
//   tcgen05.alloc wrote is read by this CTA only, ordered by the CTA barrier (bar.sync) before the cluster
//   one; kernel end: the barrier only keeps a CTA alive until its peer has finished issuing what targets it
//   (remote arrivals, multicast); the peer reads none of this CTA's memory after it.
template <int CtaGroup>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void cta_group_sync_relaxed() {
  ptx::sync_threads();
  if constexpr (CtaGroup == 2) {
    ptx::cluster_arrive_relaxed();
    ptx::cluster_wait();
  }
}

// The mask of every CTA of a CTA pair (or of the single CTA) for multicast arrivals and loads.
template <int CtaGroup>
inline constexpr uint16_t kPairMask = static_cast<uint16_t>((1u << CtaGroup) - 1u);

// A barrier that lives in the even CTA of the pair: its shared::cluster address as seen from any CTA of
// the pair. With one CTA it is the local barrier.
template <int CtaGroup>
BWGEMM_DEVICE BWGEMM_FORCEINLINE uint32_t pair_barrier(uint32_t local_bar) {
  return CtaGroup == 2 ? ptx::even_cta_address(local_bar) : local_bar;
}

// Arrive once on a barrier of the even CTA (or the local one with one CTA).
template <int CtaGroup>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void arrive_on_pair_barrier(uint32_t local_bar) {
  if constexpr (CtaGroup == 2) {
    ptx::mbarrier_arrive_cluster(ptx::even_cta_address(local_bar));
  } else {
    ptx::mbarrier_arrive(local_bar);
  }
}

// Arrive once on a barrier of the even CTA by the address pair_barrier<CtaGroup> gave (mapped once, not per
// arrival).
template <int CtaGroup>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void arrive_on_mapped_pair_barrier(uint32_t pair_bar) {
  if constexpr (CtaGroup == 2) {
    ptx::mbarrier_arrive_cluster(pair_bar);
  } else {
    ptx::mbarrier_arrive(pair_bar);
  }
}

// Arrive with an expected transaction byte count on a barrier of the even CTA (or the local one).
template <int CtaGroup>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void arrive_expect_tx_on_pair_barrier(uint32_t local_bar, uint32_t bytes) {
  if constexpr (CtaGroup == 2) {
    ptx::mbarrier_arrive_expect_tx_cluster(ptx::even_cta_address(local_bar), bytes);
  } else {
    ptx::mbarrier_arrive_expect_tx(local_bar, bytes);
  }
}

// tcgen05.commit to a barrier in every CTA of the pair (multicast) or the local one.
template <int CtaGroup>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void commit_to_pair(uint32_t local_bar) {
  if constexpr (CtaGroup == 2) {
    ptx::tcgen05_commit_multicast<2>(local_bar, kPairMask<2>);
  } else {
    ptx::tcgen05_commit<1>(local_bar);
  }
}

// Barrier addresses of the Cluster Launch Control pipeline of one CTA.
struct ClcBarriers {
  uint32_t full;       // kClcStages barriers: a response landed (complete_tx of 16 bytes)
  uint32_t empty;      // kClcStages barriers in the even CTA: every consumer has read the response
  uint32_t responses;  // kClcStages 16-byte response slots
  BWGEMM_DEVICE uint32_t full_at(uint32_t i) const { return full + 8 * i; }
  BWGEMM_DEVICE uint32_t empty_at(uint32_t i) const { return empty + 8 * i; }
  BWGEMM_DEVICE uint32_t response_at(uint32_t i) const { return responses + kClcResponseBytes * i; }
};

// The barriers and the tensor-memory slot of one CTA of a tcgen05 kernel, at the offsets Cfg derives from
// BarrierLayout. Arrival counts: `full[s]` (in the even CTA) gets Cfg::kProducerWarps arrivals from each
// CTA of the pair; `empty[s]` one tcgen05.commit; `acc_full[a]` one tcgen05.commit, plus, with tile records
// (Cfg::kTileRecords), the record thread's arrival once it wrote the tile's record `records + a ·
// kTileRecordBytes`; `acc_empty[a]` (even CTA) one per epilogue warp of each CTA; `record_empty[a]` one per
// epilogue warp of this CTA (the record is read); the CLC ring as TileStream and run_clc_scheduler use it.
template <class Cfg>
struct KernelBarriers {
  BarrierArray<Cfg::kStages> full;
  BarrierArray<Cfg::kStages> empty;
  BarrierArray<Cfg::kAccStages> acc_full;
  BarrierArray<Cfg::kAccStages> acc_empty;
  ClcBarriers clc;
  BarrierArray<Cfg::kAccStages> record_empty;
  uint32_t records;  // kAccStages tile records of kTileRecordBytes
  uint32_t tmem_base_slot;

  using Layout = typename Cfg::Barriers;
  static_assert(!Cfg::kTileRecords ||
                    Layout::kTmemBaseSlot - Layout::kTileRecords >= kTileRecordBytes * Cfg::kAccStages,
                "a Config with tile records places them (BarrierLayout<..., true>)");

  // `smem`: the (aligned) dynamic shared memory base; the barrier area starts at Cfg::kBarrierOffset.
  BWGEMM_DEVICE explicit KernelBarriers(uint32_t smem)
      : full{smem + Cfg::kBarrierOffset + Layout::kFullBarriers},
        empty{smem + Cfg::kBarrierOffset + Layout::kEmptyBarriers},
        acc_full{smem + Cfg::kBarrierOffset + Layout::kAccFullBarriers},
        acc_empty{smem + Cfg::kBarrierOffset + Layout::kAccEmptyBarriers},
        clc{smem + Cfg::kBarrierOffset + Layout::kClcFullBarriers,
            smem + Cfg::kBarrierOffset + Layout::kClcEmptyBarriers,
            smem + Cfg::kBarrierOffset + Layout::kClcResponses},
        record_empty{smem + Cfg::kBarrierOffset + Layout::kRecordEmptyBarriers},
        records(smem + Cfg::kBarrierOffset + Layout::kTileRecords),
        tmem_base_slot(smem + Cfg::kBarrierOffset + Layout::kTmemBaseSlot) {}

  // One thread per CTA.
  BWGEMM_DEVICE void init() const {
    for (uint32_t s = 0; s < Cfg::kStages; ++s) {
      ptx::mbarrier_init(full[s], Cfg::kProducerWarps * Cfg::kClusterCtas);
      ptx::mbarrier_init(empty[s], 1);
    }
    for (uint32_t a = 0; a < Cfg::kAccStages; ++a) {
      ptx::mbarrier_init(acc_full[a], Cfg::kTileRecords ? 2 : 1);
      ptx::mbarrier_init(acc_empty[a], Cfg::kEpilogueWarps * Cfg::kClusterCtas);
      if (Cfg::kTileRecords) ptx::mbarrier_init(record_empty[a], Cfg::kEpilogueWarps);
    }
    for (uint32_t i = 0; i < kClcStages; ++i) {
      ptx::mbarrier_init(clc.full_at(i), 1);
      ptx::mbarrier_init(clc.empty_at(i), Cfg::kClcConsumerArrivals);
    }
    ptx::fence_mbarrier_init();
  }
};

// The start every tcgen05 kernel shares, run by all threads: the scheduler warp initialises the barriers,
// the MMA warp allocates Cfg::kTmemColumns of tensor memory (in both CTAs of a pair), then the CTA
// pair synchronizes. Returns the tensor-memory base address.
template <class Cfg>
BWGEMM_DEVICE uint32_t start_kernel(uint32_t warp, const KernelBarriers<Cfg>& bars) {
  if (warp == Cfg::kSchedulerWarp && ptx::elect_one_sync()) bars.init();
  if (warp == Cfg::kMmaWarp) {
    ptx::tcgen05_alloc<Cfg::kClusterCtas>(bars.tmem_base_slot, Cfg::kTmemColumns);
    ptx::tcgen05_relinquish_alloc_permit<Cfg::kClusterCtas>();
  }
  ptx::tcgen05_fence_before_thread_sync();
  cta_group_sync_relaxed<Cfg::kClusterCtas>();  // barriers and tensor memory of both CTAs are ready
  ptx::tcgen05_fence_after_thread_sync();
  return *static_cast<volatile uint32_t*>(ptx::shared_address_to_pointer(bars.tmem_base_slot));
}

// The end every tcgen05 kernel shares, run by all threads: no CTA leaves while its peer may still signal
// its barriers or read its memory; then the MMA warp frees the tensor memory.
template <class Cfg>
BWGEMM_DEVICE void finish_kernel(uint32_t warp, uint32_t tmem) {
  ptx::tcgen05_fence_before_thread_sync();
  cta_group_sync_relaxed<Cfg::kClusterCtas>();
  if (warp == Cfg::kMmaWarp) {
    ptx::tcgen05_fence_after_thread_sync();
    ptx::tcgen05_dealloc<Cfg::kClusterCtas>(tmem, Cfg::kTmemColumns);
  }
}

// The sequence of linear tile ids one cluster computes under scheduler S. Every warp role that walks the
// tiles owns one. With CLC, next() reads the next response and, when `consumer` is set, releases it (one
// arrival per consuming warp; the kernel sizes the empty barrier to match).
template <class Scheduler, int CtaGroup>
struct TileStream {
  static_assert(!Scheduler::kStreamK, "sched::StreamK is built for the sm_90a GEMM only (sm90::GemmConfig)");
  int32_t tile = sched::kNoTile;
  int32_t num_clusters = 0;
  int32_t total = 0;
  ClcBarriers clc{};
  PipelineState<kClcStages> clc_state{};

  BWGEMM_DEVICE TileStream(int32_t cluster, int32_t clusters, int32_t tiles, ClcBarriers barriers)
      : tile(Scheduler::first_tile(cluster, clusters, tiles)),
        num_clusters(clusters),
        total(tiles),
        clc(barriers) {}

  BWGEMM_DEVICE bool valid() const { return tile != sched::kNoTile; }

  // Moves to the next tile. `release` is true in exactly one thread of each consuming warp.
  BWGEMM_DEVICE void next(bool release) {
    if constexpr (Scheduler::kUsesClc) {
      ptx::mbarrier_wait_parity(clc.full_at(clc_state.index), clc_state.consumer_parity());
      const ptx::ClcResponse r = ptx::clc_query(clc.response_at(clc_state.index));
      if (release) arrive_on_pair_barrier<CtaGroup>(clc.empty_at(clc_state.index));
      clc_state.advance();
      tile = r.is_canceled ? Scheduler::tile_of_cancelled(r.first_cta.x, CtaGroup) : sched::kNoTile;
    } else {
      tile = Scheduler::next_tile(tile, num_clusters, total);
    }
  }
};

// The scheduler warp of the even CTA (CLC only, one elected thread): keeps kClcStages try_cancel requests in
// flight (seed 004's scheme), each into a response slot the consumers have released, and stops issuing at the
// first "none left" answer; then waits for the requests still in flight, so that no response lands in a CTA
// that has gone. The consumers read the slots in issue order and stop at that same first "none left": they
// lose no tile because one CTA's requests complete in issue order (every later answer is "none left" too),
// which the hardware does (seed 004 ran correctly on a B200 this way) and the emulator models
// (emu::LaunchConfig::clc_in_issue_order).
template <int CtaGroup>
BWGEMM_DEVICE void run_clc_scheduler(const ClcBarriers& clc) {
  PipelineState<kClcStages> issue, answer;
  int in_flight = 0;
  bool none_left = false;
  for (;;) {
    while (!none_left && in_flight < kClcStages) {
      ptx::mbarrier_wait_parity(clc.empty_at(issue.index), issue.producer_parity());
      // Each CTA's copy of the response completes 16 bytes on its own barrier at the same offset.
      for (uint32_t rank = 0; rank < static_cast<uint32_t>(CtaGroup); ++rank)
        ptx::mbarrier_arrive_expect_tx_cluster(ptx::mapa_shared_cluster(clc.full_at(issue.index), rank),
                                               kClcResponseBytes);
      if constexpr (CtaGroup == 2) {
        ptx::clc_try_cancel_multicast(clc.response_at(issue.index), clc.full_at(issue.index));
      } else {
        ptx::clc_try_cancel(clc.response_at(issue.index), clc.full_at(issue.index));
      }
      issue.advance();
      ++in_flight;
    }
    if (in_flight == 0) break;
    // The oldest request's answer.
    ptx::mbarrier_wait_parity(clc.full_at(answer.index), answer.consumer_parity());
    if (!ptx::clc_query(clc.response_at(answer.index)).is_canceled) none_left = true;
    answer.advance();
    --in_flight;
  }
}

// The scheduler warp's Cluster Launch Control job: the even CTA's lane 0 runs run_clc_scheduler; under the
// static schedulers there is none. (Lane 1 writes the tile records where the kernel has them: roles.cuh.)
template <class Scheduler, int CtaGroup>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void scheduler_warp(bool even_cta, uint32_t lane, const ClcBarriers& clc) {
  if constexpr (Scheduler::kUsesClc) {
    if (even_cta && lane == 0) run_clc_scheduler<CtaGroup>(clc);
  }
}

// The output row an epilogue thread stores for cluster tile `t`: CTA `rank` of the pair holds rows
// rank·BlockM .. + BlockM - 1 of the cluster tile, and epilogue warp w lane l holds its row 32w + l (the
// tensor-memory lane it reads).
template <class Cfg, class Tile>
BWGEMM_DEVICE BWGEMM_FORCEINLINE int32_t epilogue_row(const Tile& t, uint32_t rank, uint32_t warp,
                                                      uint32_t lane) {
  return sched::first_row(t, Cfg::kClusterBlockM) + static_cast<int32_t>(rank) * Cfg::kBlockM +
         static_cast<int32_t>(warp * kWarpSize + lane);
}

}  // namespace bwgemm::sm100
