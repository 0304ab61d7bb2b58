// The warp roles every sm_100a kernel is made of, written once: a kernel is its Config plus a Roles struct
// that says only what differs (which TMA loads fill a stage, which MMAs consume it, what the epilogue does
// with the accumulator columns it reads).
//
// Warps (WarpRoles): 0-3 epilogue (one per 32-lane quarter of tensor memory), then ProducerWarps TMA
// producers, one MMA warp, one scheduler warp. run_roles below gives each warp its role:
//   producer I   walks the tile stream; per K block waits for the stage to be free, arms the stage's full
//                barrier (in the even CTA) with Roles::producer_tx_bytes<I> and issues the loads of
//                Roles::producer_tile<I>(tile)(stage_base, full_barrier, kb)
//   MMA          in the even CTA, one elected thread walks the tile stream: waits for an accumulator stage
//                the epilogue has drained, then per K block waits for the stage's data, issues
//                Roles::mma_tile(tile, accumulator)(stage_base, kb) and commits the stage back to the
//                producers (multicast to the pair); at the tile's end commits the accumulator stage
//   epilogue     walks the tile stream; per tile waits for the accumulator stage, reads it in chunks of
//                kEpilogueColumns columns (Roles::kAccumulators accumulators of BlockN columns each), hands
//                the stage back as soon as the last chunk is in registers (early release), and runs
//                Roles::epilogue_tile(tile, row, scales)(column, values) for rows inside M, where `scales`
//                is what Roles::epilogue_scales() returned once per thread before the first tile (the
//                per-tensor scales with their device-pointer parts read: epilogue/device_scale.cuh)
//   scheduler    with Cluster Launch Control, the even CTA's elected thread cancels clusters for work
// Roles also provides prefetch_tensor_maps() (run by the first producer warp before the start barrier).
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "bwgemm/kernels/sm100/common.cuh"
#include "bwgemm/pipeline/pipeline_state.cuh"
#include "bwgemm/ptx/ptx.cuh"
#include "bwgemm/scheduler/grouped_tiles.cuh"
#include "bwgemm/scheduler/tile_order.cuh"

namespace bwgemm::sm100 {

// The warp layout of every sm_100a kernel in a cluster of ClusterCtas CTAs (1, or a pair issuing
// cta_group::2 MMAs from the even CTA). Configs derive from it.
template <int ProducerWarps, int ClusterCtas>
struct WarpRoles {
  static constexpr int kClusterCtas = ClusterCtas;  // CTAs per cluster = the MMAs' cta_group
  static constexpr int kEpilogueWarps = kTmemLanes / kTmemLanesPerWarp;  // 4: one per tensor-memory quarter
  static constexpr int kProducerWarps = ProducerWarps;  // each arrives once per stage on the full barrier
  static constexpr int kFirstProducerWarp = kEpilogueWarps;
  static constexpr int kMmaWarp = kFirstProducerWarp + kProducerWarps;  // tcgen05.mma (even CTA), TMEM alloc
  static constexpr int kSchedulerWarp = kMmaWarp + 1;  // CLC try_cancel (even CTA); initialises the barriers
  static constexpr int kWarps = kSchedulerWarp + 1;
  static constexpr int kThreads = kWarps * kWarpSize;
  // Arrivals that release one CLC response: every warp that walks the tile stream reads each response and
  // releases it once, and run_roles gives the stream to exactly these: per CTA the producers and the
  // epilogue warps, plus the MMA warp of the even CTA (the odd CTA's MMA warp issues nothing).
  static constexpr int kClcConsumerArrivals = kClusterCtas * (kProducerWarps + kEpilogueWarps) + 1;
  static_assert(kEpilogueWarps * kTmemLanesPerWarp == kTmemLanes, "the epilogue warps cover tensor memory");
};

// What every role of one CTA knows: its place, its barriers and tensor memory, and the tile stream.
template <class Cfg>
struct KernelContext {
  using Stream = TileStream<typename Cfg::Scheduler, Cfg::kClusterCtas>;
  uint32_t warp, lane, rank;
  bool even_cta;
  uint32_t smem;  // the dynamic shared memory base, aligned up to kSmemAlignment
  KernelBarriers<Cfg> bars;
  uint32_t tmem = 0;  // tensor-memory base address
  int32_t cluster, num_clusters, k_iters;
  sched::FastTileGrid tiles;  // tile coordinates without runtime division (built once per CTA)

  BWGEMM_DEVICE Stream tile_stream() const { return Stream(cluster, num_clusters, tiles.total(), bars.clc); }
  // The shared-memory address of pipeline stage s.
  BWGEMM_DEVICE uint32_t stage_base(uint32_t s) const { return smem + s * Cfg::kStageBytes; }
};

namespace detail {

// Whether Roles brings its own tile source (roles.tile_source(ctx, reports, read_ahead): the grouped
// kernels' walk over the experts' counts) instead of the kernel's tile grid.
template <class Roles, class Ctx, class = void>
struct HasTileSource : std::false_type {};
template <class Roles, class Ctx>
struct HasTileSource<Roles, Ctx,
                     std::void_t<decltype(std::declval<const Roles&>().tile_source(
                         std::declval<const Ctx&>(), false, std::integral_constant<int, 1>{}))>>
    : std::true_type {};

// The device values a grouped walk reads at a time (sched::BasicGroupedTileSource): the producers' and the
// MMA warp's walks are on the path to the first loads and MMAs of every expert, and take 8 (8 registers of
// the thread); the epilogue's runs while the MMAs of its tile are in flight, in threads whose registers hold
// the accumulator chunks, and takes 1.
inline constexpr int kIssueWalkReadAhead = 8;
inline constexpr int kEpilogueWalkReadAhead = 1;

}  // namespace detail

// The tiles a role of this CTA walks: Roles's own source where it has one (reading ReadAhead device values
// at a time), else the kernel's tile grid (every id of the stream a tile). `reports`: the one thread of the
// launch that reports what the walk found (sched::BasicGroupedTileSource::finish).
template <int ReadAhead, class Cfg, class Roles>
BWGEMM_DEVICE BWGEMM_FORCEINLINE auto tile_source(const KernelContext<Cfg>& ctx, const Roles& roles,
                                                  bool reports) {
  if constexpr (detail::HasTileSource<Roles, KernelContext<Cfg>>::value) {
    return roles.tile_source(ctx, reports, std::integral_constant<int, ReadAhead>{});
  } else {
    (void)roles, (void)reports;
    return sched::GridTileSource{ctx.tiles};
  }
}

// Producer I: per K block of every tile, wait for the stage, arm the full barrier, load.
template <class Cfg, int I, class Roles>
BWGEMM_DEVICE void run_producer(const KernelContext<Cfg>& ctx, const Roles& roles) {
  using namespace ::bwgemm::ptx;
  constexpr int kCtaGroup = Cfg::kClusterCtas;
  if (!elect_one_sync()) return;
  const auto& bars = ctx.bars;
  const uint32_t tx_bytes = roles.template producer_tx_bytes<I>(ctx);
  PipelineState<Cfg::kStages> stage;
  auto tiles = tile_source<detail::kIssueWalkReadAhead>(ctx, roles, false);
  for (auto ts = ctx.tile_stream(); ts.valid(); ts.next(true)) {
    typename decltype(tiles)::Tile t;
    if (!tiles.at(ts.tile, &t)) break;
    const auto load = roles.template producer_tile<I>(ctx, t);
    for (int32_t kb = 0; kb < ctx.k_iters; ++kb, stage.advance()) {
      mbarrier_wait_parity(bars.empty[stage.index], stage.producer_parity());
      arrive_expect_tx_on_pair_barrier<kCtaGroup>(bars.full[stage.index], tx_bytes);
      load(ctx.stage_base(stage.index), pair_barrier<kCtaGroup>(bars.full[stage.index]), kb);
    }
  }
  // Every load of this CTA is issued: the next kernel of the stream (launched with programmatic dependent
  // launch) may be scheduled once every CTA got here or exited, its prologue overlapping this grid's MMAs and
  // epilogue. Safe for the data whatever the point: the dependent's griddepcontrol.wait still waits for this
  // grid's completion and memory flush (ptx/griddepcontrol.cuh). A no-op without a dependent.
  griddepcontrol_launch_dependents();
}

// Runs the producer role of the calling warp (warp kFirstProducerWarp + I runs producer I).
template <class Cfg, class Roles, int... I>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void run_producers(const KernelContext<Cfg>& ctx, const Roles& roles,
                                                    std::integer_sequence<int, I...>) {
  ((ctx.warp == static_cast<uint32_t>(Cfg::kFirstProducerWarp + I) ? run_producer<Cfg, I>(ctx, roles)
                                                                   : void()),
   ...);
}

// The MMA warp: in the even CTA one thread issues every tile's MMAs into a free accumulator stage.
template <class Cfg, class Roles>
BWGEMM_DEVICE void run_mma(const KernelContext<Cfg>& ctx, const Roles& roles) {
  using namespace ::bwgemm::ptx;
  constexpr int kCtaGroup = Cfg::kClusterCtas;
  if (!ctx.even_cta || !elect_one_sync()) return;
  const auto& bars = ctx.bars;
  PipelineState<Cfg::kStages> stage;
  PipelineState<Cfg::kAccStages> acc;
  auto tiles = tile_source<detail::kIssueWalkReadAhead>(ctx, roles, false);
  for (auto ts = ctx.tile_stream(); ts.valid(); ts.next(true), acc.advance()) {
    typename decltype(tiles)::Tile t;
    if (!tiles.at(ts.tile, &t)) break;
    const auto issue = roles.mma_tile(ctx, t, ctx.tmem + acc.index * Cfg::kAccColumnsPerStage);
    mbarrier_wait_parity(bars.acc_empty[acc.index], acc.producer_parity());
    tcgen05_fence_after_thread_sync();
    for (int32_t kb = 0; kb < ctx.k_iters; ++kb, stage.advance()) {
      mbarrier_wait_parity(bars.full[stage.index], stage.consumer_parity());
      tcgen05_fence_after_thread_sync();
      issue(ctx.stage_base(stage.index), kb);
      commit_to_pair<kCtaGroup>(bars.empty[stage.index]);  // the stage is free once these MMAs are done
    }
    commit_to_pair<kCtaGroup>(bars.acc_full[acc.index]);  // the tile's accumulators are final
  }
}

namespace detail {

// Registers an epilogue thread may spend on the accumulator columns of two chunks at once (chunk c + 1
// loading while chunk c is stored): half of the 255 a thread can address, the other half for addresses, the
// functor and the packed outputs (the dual GEMM's two 64-column accumulators, 128 registers a chunk, are
// loaded one chunk at a time).
inline constexpr int kEpilogueBufferRegisters = 128;

// Whether the tile store Roles::epilogue_tile returns has a fast path decided once per tile: a `fast` flag
// and fast_store(column, values), which the epilogue calls instead of store(column, values) for every chunk
// of a tile whose flag is set (and whose warp's rows are all inside M). Stores without one are called chunk
// by chunk.
template <class Store, class Values, class = void>
struct HasFastStore : std::false_type {};
template <class Store, class Values>
struct HasFastStore<
    Store, Values,
    std::void_t<decltype(std::declval<const Store&>().fast_store(0, std::declval<const Values&>())),
                decltype(bool{std::declval<const Store&>().fast})>> : std::true_type {};

}  // namespace detail

// An epilogue warp: tensor-memory lanes 32w .. 32w + 31 hold rows 32w .. + 31 of the CTA's tile. Each lane
// reads its row of Roles::kAccumulators accumulators (BlockN columns apart), kEpilogueColumns at a time. The
// chunk loop is unrolled (BlockN / kEpilogueColumns <= 8 chunks), so every tensor-memory and global address
// is an immediate offset; where two chunks fit detail::kEpilogueBufferRegisters the columns alternate between
// two register buffers and chunk c + 1's tensor-memory loads are issued before chunk c's conversions and
// stores (seed 004's order: they land while chunk c is stored; tcgen05.wait::ld waits for them when chunk c +
// 1 is next). A store with a per-tile fast path (detail::HasFastStore) is decided once per tile, not per
// chunk, and per warp (a warp with rows past M takes the per-chunk path, whose loads every lane runs).
template <class Cfg, class Roles>
BWGEMM_DEVICE void run_epilogue(const KernelContext<Cfg>& ctx, const Roles& roles, int32_t m) {
  using namespace ::bwgemm::ptx;
  constexpr int kCtaGroup = Cfg::kClusterCtas;
  constexpr int kColumns = Cfg::kEpilogueColumns;
  constexpr int kChunks = Cfg::kBlockN / kColumns;
  constexpr int kBuffers =
      kChunks > 1 && 2 * Roles::kAccumulators * kColumns <= detail::kEpilogueBufferRegisters ? 2 : 1;
  using Values = uint32_t[Roles::kAccumulators][kColumns];
  const auto& bars = ctx.bars;
  const uint32_t lane_base = (ctx.warp * kTmemLanesPerWarp) << kTmemLaneShift;
  PipelineState<Cfg::kAccStages> acc;
  // The per-tensor scales, once per thread (device-pointer scales are read here, not per tile).
  const auto scales = roles.epilogue_scales();
  // The launch's first epilogue thread reports what its tile walk found (grouped kernels: the status word).
  auto tiles = tile_source<detail::kEpilogueWalkReadAhead>(
      ctx, roles, ctx.cluster == 0 && ctx.rank == 0 && ctx.warp == 0 && ctx.lane == 0);
  for (auto ts = ctx.tile_stream(); ts.valid(); ts.next(ctx.lane == 0), acc.advance()) {
    typename decltype(tiles)::Tile t;
    if (!tiles.at(ts.tile, &t)) break;
    const int32_t row = epilogue_row<Cfg>(t, ctx.rank, ctx.warp, ctx.lane);
    // The tile's rows that are stored: those below M (a grouped tile: below the expert's end).
    const int32_t row_end = sched::row_limit(t, m);
    const bool row_in = row < row_end;
    // Rows past the end store nothing; their row clamped to the last one (a minimum) keeps every pointer
    // inside the output.
    const auto store = roles.epilogue_tile(ctx, t, row < row_end - 1 ? row : row_end - 1, scales);
    const uint32_t acc_tmem = ctx.tmem + lane_base + acc.index * Cfg::kAccColumnsPerStage;
    const int32_t tile_col = sched::first_column(t, Cfg::kBlockN);
    mbarrier_wait_parity(bars.acc_full[acc.index], acc.consumer_parity());
    tcgen05_fence_after_thread_sync();
    // The tile's chunks, each stored by store_chunk(column, values).
    const auto chunks = [&](const auto& store_chunk) {
      Values values[kBuffers];
      const auto load = [&](int chunk) {
#pragma unroll
        for (int i = 0; i < Roles::kAccumulators; ++i)
          tcgen05_ld_32x32b(acc_tmem + i * Cfg::kBlockN + chunk * kColumns, values[chunk % kBuffers][i]);
      };
      if constexpr (kBuffers == 2) load(0);
#pragma unroll
      for (int chunk = 0; chunk < kChunks; ++chunk) {
        if constexpr (kBuffers == 1) load(chunk);
        tcgen05_wait_ld();  // this chunk's loads (the only ones in flight)
        if (chunk + 1 < kChunks) {
          if constexpr (kBuffers == 2) load(chunk + 1);  // ahead of this chunk's stores
        } else {
          // Everything is in registers: hand the accumulator stage back to the MMA warp.
          tcgen05_fence_before_thread_sync();
          if (ctx.lane == 0) arrive_on_pair_barrier<kCtaGroup>(bars.acc_empty[acc.index]);
        }
        store_chunk(tile_col + chunk * kColumns, values[chunk % kBuffers]);
      }
    };
    if constexpr (detail::HasFastStore<decltype(store), Values>::value) {
      // Taken by the whole warp or not at all (every row of the warp inside M): the tensor-memory loads are
      // .sync.aligned, every lane of the warp must run the same one. Lane 0's answer, broadcast: the same in
      // every lane, and a branch the compiler knows is uniform (no reconvergence barrier around the paths).
      const bool warp_rows_in = row - static_cast<int32_t>(ctx.lane) + kWarpSize <= row_end;
      if (shfl_sync(kFullWarpMask, static_cast<uint32_t>(warp_rows_in && store.fast), 0) != 0) {
        chunks([&](int32_t col, const Values& v) { store.fast_store(col, v); });
        continue;
      }
    }
    chunks([&](int32_t col, const Values& v) {
      if (row_in) store(col, v);
    });
  }
  tiles.finish();
}

// The whole kernel body: set-up, the calling warp's role, the common end. `m` and `k` are the problem's
// (rows past M are not stored; K blocks past K read zeros through TMA).
template <class Cfg, class Roles>
BWGEMM_DEVICE void run_roles(const Roles& roles, const sched::TileGrid& tiles, int32_t num_clusters,
                             int32_t m, int32_t k) {
  using namespace ::bwgemm::ptx;
  constexpr int kCtaGroup = Cfg::kClusterCtas;
  const uint32_t warp = warp_idx();
  const uint32_t rank = kCtaGroup == 2 ? cluster_ctarank() : 0;
  const uint32_t smem = round_up_u32(dynamic_smem_base(), kSmemAlignment);
  KernelContext<Cfg> ctx{warp,
                         lane_idx(),
                         rank,
                         rank == 0,
                         smem,
                         KernelBarriers<Cfg>(smem),
                         0,
                         static_cast<int32_t>(block_idx().x / kCtaGroup),
                         num_clusters,
                         (k + Cfg::kBlockK - 1) / Cfg::kBlockK,
                         sched::FastTileGrid(tiles)};

  if (warp == Cfg::kFirstProducerWarp && elect_one_sync()) roles.prefetch_tensor_maps();
  ctx.tmem = start_kernel<Cfg>(warp, ctx.bars);
  // The prologue above (tensor-map prefetch, barrier initialisation, tensor-memory allocation) touches no
  // global memory, so under programmatic dependent launch it overlaps the previous kernel's tail; every
  // thread waits here, before the first TMA load, C read, device-scale read or store, for that kernel's
  // completion and memory (ptx/griddepcontrol.cuh; at once without PDL).
  griddepcontrol_wait();

  if (warp < static_cast<uint32_t>(Cfg::kEpilogueWarps)) {
    run_epilogue<Cfg>(ctx, roles, m);
  } else if (warp < static_cast<uint32_t>(Cfg::kMmaWarp)) {
    run_producers<Cfg>(ctx, roles, std::make_integer_sequence<int, Cfg::kProducerWarps>{});
  } else if (warp == static_cast<uint32_t>(Cfg::kMmaWarp)) {
    run_mma<Cfg>(ctx, roles);
  } else {
    scheduler_warp<typename Cfg::Scheduler, kCtaGroup>(ctx.even_cta, ctx.bars.clc);
  }

  finish_kernel<Cfg>(warp, ctx.tmem);
}

// What every sm_100a __global__ function runs: Roles over the kernel parameters `p` (which carry tiles,
// num_clusters, m and k). Built for another architecture (a multi-architecture build's other device pass),
// the body is a trap: the entry points check the device before they launch, so it is never run.
template <class Cfg, class Roles, class Params>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void run_kernel(const Params& p) {
#if BWGEMM_SM100A_KERNEL_BODY
  run_roles<Cfg>(Roles{p}, p.tiles, p.num_clusters, p.m, p.k);
#else
  (void)p;
  ::bwgemm::ptx::trap();
#endif
}

}  // namespace bwgemm::sm100
