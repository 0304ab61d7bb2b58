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
//   epilogue     per tile (the record thread's tile records, or, without them, its own walk of the tile
//                stream) waits for the accumulator stage, reads it in chunks of kEpilogueColumns columns
//                (Roles::kAccumulators accumulators of BlockN columns each), hands the stage back as soon as
//                the last chunk is in registers (early release), and runs Roles::epilogue_tile(tile, row,
//                scales)(column, values) for rows inside M, where `scales` is what Roles::epilogue_scales()
//                returned once per thread before the first tile (the per-tensor scales with their
//                device-pointer parts read: epilogue/device_scale.cuh); a tile its record puts on the fast
//                path goes through Roles::fast_chunk(row, chunk, values) instead
//   scheduler    with Cluster Launch Control, the even CTA's lane 0 cancels clusters for work; with tile
//                records (Cfg::kTileRecords), lane 1 of every CTA is the record thread (run_tile_records)
// Roles also provides prefetch_tensor_maps() (run by the first producer warp before the start barrier) and,
// for the fast path, fast_output() (FastOutput) and fast_chunk.
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
// cta_group::2 MMAs from the even CTA). Configs derive from it. TileRecords: the epilogue warps read each
// tile from a record the scheduler warp's lane 1 writes (run_tile_records) instead of walking the tiles
// themselves (the tiled kernels, whose epilogue then pays no tile decoding, CLC response or expert walk).
template <int ProducerWarps, int ClusterCtas, bool TileRecords = false>
struct WarpRoles {
  static constexpr int kClusterCtas = ClusterCtas;  // CTAs per cluster = the MMAs' cta_group
  static constexpr bool kTileRecords = TileRecords;
  static constexpr int kEpilogueWarps = kTmemLanes / kTmemLanesPerWarp;  // 4: one per tensor-memory quarter
  static constexpr int kProducerWarps = ProducerWarps;  // each arrives once per stage on the full barrier
  static constexpr int kFirstProducerWarp = kEpilogueWarps;
  static constexpr int kMmaWarp = kFirstProducerWarp + kProducerWarps;  // tcgen05.mma (even CTA), TMEM alloc
  static constexpr int kSchedulerWarp = kMmaWarp + 1;  // CLC try_cancel (even CTA); initialises the barriers
  static constexpr int kWarps = kSchedulerWarp + 1;
  static constexpr int kThreads = kWarps * kWarpSize;
  // Arrivals that release one CLC response: every warp that walks the tile stream reads each response and
  // releases it once, and run_roles gives the stream to exactly these: per CTA the producers and the
  // epilogue warps (with tile records: the record thread instead), plus the MMA warp of the even CTA (the odd
  // CTA's MMA warp issues nothing).
  static constexpr int kClcConsumerArrivals =
      kClusterCtas * (kProducerWarps + (kTileRecords ? 1 : kEpilogueWarps)) + 1;
  static constexpr uint32_t kRecordLane = 1;  // the scheduler warp's lane that writes the tile records
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

// The device values a grouped walk reads at a time (sched::BasicGroupedTileSource): the producers', the MMA
// warp's and the record thread's walks are on the path to the first loads, MMAs and stores of every expert,
// and take 8 (8 registers of the thread); the swap-AB kernels' epilogue warps walk the tiles themselves, in
// threads whose registers hold the accumulator chunks, and take 1.
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

// What the record thread (run_tile_records) hands the epilogue warps of its CTA for one tile, in slot a of
// the records for accumulator stage a: the tile, and what the per-tile fast path needs, computed once per
// tile by that one thread instead of by every epilogue thread.
struct alignas(16) TileRecordHead {  // what the fast path reads, in one 16-byte shared-memory load
  int64_t fast_offset;  // the byte offset of the tile's first column in this CTA's first row of the tile,
                        // from the output's start (FastOutput::base), where the tile takes the fast path
  int32_t fast_rows;    // this CTA's rows of the tile (from its first) that take the fast path: 0 where the
                        // tile does not, else the rows inside M
  int32_t valid;        // 0: the cluster's tiles have ended (no tile, no accumulator)
};
template <class Tile>
struct TileRecord {
  TileRecordHead head;
  uint64_t fast_row_bytes;  // FastOutput::row_bytes (the dual GEMMs read it per tile: run_epilogue says why)
  Tile tile;
};

// How a Roles with a per-tile fast path (its fast_output() and fast_chunk(row, values)) lays out its output:
// the rows of tile column n of a tile whose first row is r start at base + batch · batch_bytes + (r + i) ·
// row_bytes + n · BlockN · element_bytes; the tile columns 0 .. fast_tiles_n - 1 take the fast path (every
// column inside N, and the path's other conditions: the identity functor or unit alphas, aligned rows).
struct FastOutput {
  char* base;
  uint64_t row_bytes, batch_bytes;
  int32_t element_bytes, fast_tiles_n;
};

namespace detail {

template <class Roles, class = void>
struct HasFastOutput : std::false_type {};
template <class Roles>
struct HasFastOutput<Roles, std::void_t<decltype(FastOutput{std::declval<const Roles&>().fast_output()})>>
    : std::true_type {};

}  // namespace detail

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

// The chunks of one tile, read from accumulator stage `acc_index` (tensor-memory columns from acc_tmem, this
// warp's lanes): each stored by store_chunk(chunk, values). The chunk loop is unrolled (BlockN /
// kEpilogueColumns <= 8 chunks), so every tensor-memory and global address is an immediate offset; where two
// chunks fit kEpilogueBufferRegisters the columns alternate between two register buffers and chunk c + 1's
// tensor-memory loads are issued before chunk c's conversions and stores (seed 004's order: they land while
// chunk c is stored; tcgen05.wait::ld waits for them when chunk c + 1 is next). Once the last chunk is in
// registers the accumulator stage goes back to the MMA warp (and, with tile records, the stage's record to
// the record thread).
// `acc_empty`: the stage's acc_empty barrier as pair_barrier maps it.
template <class Cfg, class Roles, class StoreChunk>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void epilogue_chunks(const KernelContext<Cfg>& ctx, uint32_t acc_tmem,
                                                      uint32_t acc_index, uint32_t acc_empty,
                                                      const StoreChunk& store_chunk) {
  using namespace ::bwgemm::ptx;
  constexpr int kColumns = Cfg::kEpilogueColumns;
  constexpr int kChunks = Cfg::kBlockN / kColumns;
  constexpr int kBuffers =
      kChunks > 1 && 2 * Roles::kAccumulators * kColumns <= kEpilogueBufferRegisters ? 2 : 1;
  uint32_t values[kBuffers][Roles::kAccumulators][kColumns];
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
      if (ctx.lane == 0) {
        arrive_on_mapped_pair_barrier<Cfg::kClusterCtas>(acc_empty);
        if constexpr (Cfg::kTileRecords) mbarrier_arrive(ctx.bars.record_empty[acc_index]);
      }
    }
    store_chunk(chunk, values[chunk % kBuffers]);
  }
}

// The tile record of accumulator stage `index` (Cfg::kTileRecords).
template <class Tile, class Cfg>
BWGEMM_DEVICE BWGEMM_FORCEINLINE TileRecord<Tile>* tile_record(const KernelContext<Cfg>& ctx,
                                                               uint32_t index) {
  static_assert(sizeof(TileRecord<Tile>) <= kTileRecordBytes, "a tile record fits its slot");
  return static_cast<TileRecord<Tile>*>(
      ::bwgemm::ptx::shared_address_to_pointer(ctx.bars.records + index * kTileRecordBytes));
}

}  // namespace detail

// The record thread (lane kRecordLane of the scheduler warp, in every CTA of a kernel with
// Cfg::kTileRecords): walks the tile stream as the other roles do and writes each tile's record (TileRecord:
// the tile and its fast-path row address and rows, decoded here once instead of by every epilogue thread)
// into the slot of the accumulator stage the tile will occupy, once the epilogue warps have read the slot's
// previous record (record_empty), then arrives on the stage's acc_full, which completes once the MMAs'
// commit arrived too. After the last tile, a record with valid = 0 and both of the stage's arrivals (no MMA
// commits there). `m` as run_epilogue's.
template <class Cfg, class Roles>
BWGEMM_DEVICE void run_tile_records(const KernelContext<Cfg>& ctx, const Roles& roles, int32_t m) {
  using namespace ::bwgemm::ptx;
  const auto& bars = ctx.bars;
  PipelineState<Cfg::kAccStages> acc;
  // The launch's first record thread reports what its tile walk found (grouped kernels: the status word).
  auto tiles = tile_source<detail::kIssueWalkReadAhead>(ctx, roles, ctx.cluster == 0 && ctx.rank == 0);
  using Tile = typename decltype(tiles)::Tile;
  FastOutput out{};
  if constexpr (detail::HasFastOutput<Roles>::value) out = roles.fast_output();
  for (auto ts = ctx.tile_stream();; ts.next(true), acc.advance()) {
    Tile t{};
    const bool valid = ts.valid() && tiles.at(ts.tile, &t);
    mbarrier_wait_parity(bars.record_empty[acc.index], acc.producer_parity());
    TileRecord<Tile>* const r = detail::tile_record<Tile>(ctx, acc.index);
    if (!valid) {
      r->head.valid = 0;
      mbarrier_arrive(bars.acc_full[acc.index]);
      mbarrier_arrive(bars.acc_full[acc.index]);
      break;
    }
    // This CTA's first row of the tile; the fast path's rows are those below the tile's row limit.
    const int32_t first =
        sched::first_row(t, Cfg::kClusterBlockM) + static_cast<int32_t>(ctx.rank) * Cfg::kBlockM;
    const bool fast = t.n < out.fast_tiles_n;
    r->head.fast_rows = fast ? sched::row_limit(t, m) - first : 0;
    r->head.fast_offset =
        fast ? static_cast<int64_t>(static_cast<uint64_t>(static_cast<uint32_t>(t.batch)) * out.batch_bytes +
                                    static_cast<uint64_t>(static_cast<uint32_t>(first)) * out.row_bytes +
                                    static_cast<uint64_t>(t.n) * Cfg::kBlockN * out.element_bytes)
             : 0;
    r->head.valid = 1;
    r->fast_row_bytes = out.row_bytes;
    r->tile = t;
    mbarrier_arrive(bars.acc_full[acc.index]);
  }
  tiles.finish();
}

// An epilogue warp: tensor-memory lanes 32w .. 32w + 31 hold rows 32w .. + 31 of the CTA's tile. Each lane
// reads its row of Roles::kAccumulators accumulators (BlockN columns apart), kEpilogueColumns at a time
// (detail::epilogue_chunks), and stores the rows inside M through Roles::epilogue_tile. With tile records
// (Cfg::kTileRecords) the tiles come from the record thread's records; a tile whose record says the fast path
// and whose warp's rows are all inside it stores through Roles::fast_chunk at the record's row address (a
// per-warp decision: the tensor-memory loads are .sync.aligned, every lane of the warp runs the same ones).
// Without them (the swap-AB kernels) the warps walk the tile stream themselves.
template <class Cfg, class Roles>
BWGEMM_DEVICE void run_epilogue(const KernelContext<Cfg>& ctx, const Roles& roles, int32_t m) {
  using namespace ::bwgemm::ptx;
  constexpr int kColumns = Cfg::kEpilogueColumns;
  const auto& bars = ctx.bars;
  const uint32_t lane_base = (ctx.warp * kTmemLanesPerWarp) << kTmemLaneShift;
  PipelineState<Cfg::kAccStages> acc;
  // The per-tensor scales, once per thread (device-pointer scales are read here, not per tile).
  const auto scales = roles.epilogue_scales();
  // The acc_empty barrier of the current stage as this CTA arrives on it (the even CTA's), mapped per tile (a
  // register less held across the tiles than mapping it once: the 256-column fp32 GEMM's epilogue is at the
  // 255-register limit with CUDA 12.8's ptxas).
  const auto acc_empty_at = [&] { return pair_barrier<Cfg::kClusterCtas>(bars.acc_empty[acc.index]); };
  // The store of tile t's chunks through Roles::epilogue_tile, rows inside M (the per-chunk path), once
  // wait() has waited for the accumulator stage (after the store is built, which needs no accumulator).
  const auto store_tile = [&](const auto& t, const auto& wait) {
    const int32_t row = epilogue_row<Cfg>(t, ctx.rank, ctx.warp, ctx.lane);
    // The tile's rows that are stored: those below M (a grouped tile: below the expert's end).
    const int32_t row_end = sched::row_limit(t, m);
    const bool row_in = row < row_end;
    // Rows past the end store nothing; their row clamped to the last one (a minimum) keeps every pointer
    // inside the output.
    const auto store = roles.epilogue_tile(ctx, t, row < row_end - 1 ? row : row_end - 1, scales);
    const int32_t tile_col = sched::first_column(t, Cfg::kBlockN);
    const uint32_t acc_tmem = ctx.tmem + lane_base + acc.index * Cfg::kAccColumnsPerStage;
    wait();
    detail::epilogue_chunks<Cfg, Roles>(ctx, acc_tmem, acc.index, acc_empty_at(),
                                        [&](int chunk, const auto& v) {
                                          if (row_in) store(tile_col + chunk * kColumns, v);
                                        });
  };
  if constexpr (Cfg::kTileRecords) {
    using Tile = typename decltype(tile_source<detail::kIssueWalkReadAhead>(ctx, roles, false))::Tile;
    // The fast path's row address of this thread's row of a tile, less the tile's offset (the record's):
    // formed once, except for the dual GEMMs (two accumulators), whose epilogues use every register a thread
    // has (255) and spill when it is held across tiles: theirs is formed per tile from the row stride the
    // record carries (read per tile, so the compiler cannot hoist the product out of the loop; a
    // shared-memory load and two multiply-adds of the ~440 instructions per 64 columns).
    const uint32_t cta_row = ctx.warp * kWarpSize + ctx.lane;
    constexpr bool kHoldFastRow = Roles::kAccumulators == 1;
    char* fast_row = nullptr;
    if constexpr (detail::HasFastOutput<Roles>::value && kHoldFastRow) {
      const FastOutput out = roles.fast_output();
      fast_row = out.base + static_cast<uint64_t>(cta_row) * out.row_bytes;
    }
    for (;; acc.advance()) {
      mbarrier_wait_parity(bars.acc_full[acc.index], acc.consumer_parity());
      const TileRecord<Tile>* const r = detail::tile_record<Tile>(ctx, acc.index);
      const TileRecordHead head = r->head;
      if (head.valid == 0) break;
      tcgen05_fence_after_thread_sync();
      const uint32_t acc_tmem = ctx.tmem + lane_base + acc.index * Cfg::kAccColumnsPerStage;
      if constexpr (detail::HasFastOutput<Roles>::value) {
        // The whole warp or none of it (every row of the warp on the fast path): the record's value and the
        // warp index are the same in every lane, so the branch is uniform (no reconvergence barrier).
        if (static_cast<int32_t>((ctx.warp + 1) * kWarpSize) <= head.fast_rows) {
          char* row = fast_row + head.fast_offset;
          if constexpr (!kHoldFastRow)
            row = roles.fast_output().base + static_cast<uint64_t>(cta_row) * r->fast_row_bytes +
                  head.fast_offset;
          detail::epilogue_chunks<Cfg, Roles>(
              ctx, acc_tmem, acc.index, acc_empty_at(),
              [&](int chunk, const auto& v) { roles.fast_chunk(row, chunk, v); });
          continue;
        }
      }
      const Tile t = r->tile;
      store_tile(t, [] {});
    }
  } else {
    // The launch's first epilogue thread reports what its tile walk found (grouped kernels: the status word).
    auto tiles = tile_source<detail::kEpilogueWalkReadAhead>(
        ctx, roles, ctx.cluster == 0 && ctx.rank == 0 && ctx.warp == 0 && ctx.lane == 0);
    for (auto ts = ctx.tile_stream(); ts.valid(); ts.next(ctx.lane == 0), acc.advance()) {
      typename decltype(tiles)::Tile t;
      if (!tiles.at(ts.tile, &t)) break;
      store_tile(t, [&] {
        mbarrier_wait_parity(bars.acc_full[acc.index], acc.consumer_parity());
        tcgen05_fence_after_thread_sync();
      });
    }
    tiles.finish();
  }
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
    scheduler_warp<typename Cfg::Scheduler, kCtaGroup>(ctx.even_cta, ctx.lane, ctx.bars.clc);
    // Alongside (another lane), the tile records of the kernels that have them.
    if constexpr (Cfg::kTileRecords) {
      if (ctx.lane == Cfg::kRecordLane) run_tile_records<Cfg>(ctx, roles, m);
    }
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
