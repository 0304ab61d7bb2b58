// The sm_90a (Hopper) fp16/bf16 GEMM, warp-specialized and persistent:
//
//   D = epilogue(A·B [, C]),  A: M x K (K-major), B: N x K (K-major) or K x N (N-major), C, D: M x N
//
// Roles (384 threads, three warpgroups; sm90::GemmConfig):
//   warpgroup 0    producer: setmaxnreg down to 40; warp 0's elected thread loads the A tile and (its share
//                  of) the B tile of every K block with TMA into a ring of kStages stages (full barrier:
//                  complete_tx of the stage's bytes). With ClusterCtas = 2 the B share (A share with
//                  ClusterAlongN) is multicast to both CTAs of the cluster, and a stage is refilled only once
//                  the consumers of both CTAs freed it.
//   warpgroups 1,2 consumers: setmaxnreg up to 232; consumer c owns rows kWarpgroupM·c.. of the kBlockM-row
//                  tile (64 · RowBlocks rows) and issues RowBlocks wgmma m64n<BlockN>k16 per 16 K (one per
//                  64-row block, the same B, one commit group); it frees a stage (one arrival per consumer on
//                  the empty barrier of every CTA of the cluster) once wgmma.wait_group says the wgmmas that
//                  read it are done, one stage behind the issue; then applies the epilogue functor to the
//                  register fragment (reading C only when the functor needs it) and stores D: with
//                  Cfg::kTmaStore through its 16 KiB shared-memory buffer and TMA stores (one thread issues
//                  them; the warpgroup waits only until the copy engine has read the buffer before it
//                  refills it, so the global writes overlap the next tile's mainloop), otherwise from
//                  registers.
// Both roles walk the same cluster tiles of a sched::TileGrid under Cfg::Scheduler (StaticPersistent: one
// cluster per pair of SMs strides over the tiles, so the producer already loads the next tile while the
// consumers run the epilogue). CTA r of a cluster computes M tile (2·t.m + r) of cluster tile t, or with
// ClusterAlongN N tile (2·t.n + r) (tile_row0, tile_col0).
//
// Split K (p.splits = 2, 4 or 8; one-CTA Configs with RowBlocks = 1 only): grid = tiles · splits CTAs in
// clusters of `splits` along x, one tile per cluster (tile blockIdx.x / splits), CTA rank r loading and
// multiplying only the K blocks split_k_range(k_blocks, splits, r). Then (kernels/sm90/split_k.cuh) the
// consumers write their fp32 accumulators over the stages, cluster barrier, each CTA sums its share of the
// tile's quads (4 adjacent columns of a row) over ranks 0..S-1 in rank order (the same bits on every run),
// applies the epilogue functor as the register-store path does and stores D from registers (pairs, masked),
// cluster barrier.
//
// Stream-K (Cfg::kStreamK, sched::StreamK): one CTA per SM; the whole waves of tiles first (tile t to CTA
// t % CTAs, as the persistent kernels), then each tile of the last, partial wave split into the same K
// ranges over consecutive CTAs (scheduler/schedulers.cuh: StreamK::Work). Both roles walk the units as they
// walk tiles. After a unit's mainloop the consumers: a range that starts past the tile's first K block
// writes its fp32 sums to the CTA's slot of the workspace (write_partials' layout, coalesced), barrier of the
// 256 consumer threads, one thread's release store of the CTA's flag, and no epilogue; the tile's head (its
// first K range) takes the other ranges' sums in K order (one thread's acquire spin on each flag, which it
// then resets to 0, a barrier, every thread adding its peer thread's words) and runs the epilogue. Every CTA
// has as many whole tiles before its range and the ranges are equal, so the head seldom waits; every CTA of
// the grid is resident (one per SM, at most the resident CTAs launched), so every wait ends.
//
// Shared memory (carved from the dynamic buffer, aligned up to 1024 bytes):
//   [stage 0: A kBlockMx64 | B] ... [stage S-1] | D buffer per consumer (kTmaStore) | full[S] | empty[S]
// B is BlockN rows x 64 K (K-major, SBO 1024) or BlockN / 64 chunks of 64 K rows x 64 columns (MN-major,
// chunk stride = LBO 8 KiB, 8 K rows = SBO 1024), every piece 128-byte swizzled as TMA writes it.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <type_traits>

#include "bwgemm/epilogue/store.cuh"
#include "bwgemm/isa/descriptors_sm90.hpp"
#include "bwgemm/kernels/sm90/common.cuh"
#include "bwgemm/kernels/sm90/gemm_config.cuh"
#include "bwgemm/kernels/sm90/split_k.cuh"
#include "bwgemm/pipeline/pipeline_state.cuh"
#include "bwgemm/ptx/cluster.cuh"
#include "bwgemm/ptx/flags.cuh"
#include "bwgemm/ptx/griddepcontrol.cuh"
#include "bwgemm/ptx/mbarrier.cuh"
#include "bwgemm/ptx/misc.cuh"
#include "bwgemm/ptx/tma.cuh"
#include "bwgemm/ptx/wgmma.cuh"
#include "bwgemm/scheduler/schedulers.cuh"
#include "bwgemm/scheduler/tile_order.cuh"

namespace bwgemm::sm90 {

// Kernel parameters. Passed as a __grid_constant__, so the tensor maps stay in parameter space.
template <class Cfg>
struct GemmParams {
  CUtensorMap tmap_a;  // (K, M, batch), box (64, kARowsPerCta, 1), 128B swizzle
  // The same with box (64, M mod kARowsPerCta, 1): the rows of a box that would cross M (common.cuh, RowBox;
  // unused where kARowsPerCta divides M, and by Configs that share A over a cluster).
  CUtensorMap tmap_a_tail;
  CUtensorMap tmap_b;  // K-major: (K, N, batch), box (64, kBKMajorRowsPerCta, 1); MN-major: (N, K, batch),
                       // box (64, 64, 1); 128B swizzle
  CUtensorMap tmap_d;  // kTmaStore: (N, M, batch) of Out, box (EpiBuffers::kBoxColumns, 64, 1), swizzle
                       // EpiBuffers::kSwizzleBytes
  typename Cfg::Out* d = nullptr;        // m x n per batch, row stride ldd, batch stride batch_stride_d
  const typename Cfg::Out* c = nullptr;  // read only when read_c
  int64_t ldd = 0, batch_stride_d = 0;
  int64_t ldc = 0, batch_stride_c = 0;
  int32_t m = 0, n = 0, k = 0;
  sched::TileGrid tiles{};   // cluster tiles: kClusterBlockM x kClusterBlockN
  int32_t num_clusters = 0;  // splits == 1: the grid in clusters (the scheduler's stride)
  int32_t splits = 1;        // CTAs per tile, splitting its K blocks: 1, or (ClusterCtas = 1 only) 2, 4, 8
  // Stream-K (Cfg::kStreamK): whole waves of tiles, then the rest's K blocks over sk.sk_ctas CTAs
  // (sched::StreamK::Work, k_blocks and ctas = num_clusters filled in too); CTA g's partial sums at
  // sk_partials + g · Cfg::kPartialElements, its flag sk_flags[g] (0 before the launch and after it: the
  // head's CTA resets each flag it waited on).
  sched::StreamK::Work sk{};
  float* sk_partials = nullptr;
  uint32_t* sk_flags = nullptr;
  bool read_c = false;
  typename Cfg::Epilogue epilogue{};  // its device-pointer scales read once per CTA (epi::with_device_scales)
};

// The two 16-bit (or fp32) values of C at src[0], src[1] (4- or 8-byte aligned) as fp32.
template <class Out>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void load_pair(const Out* src, float& v0, float& v1) {
  if constexpr (std::is_same_v<Out, float>) {
    const float2 v = *reinterpret_cast<const float2*>(src);
    v0 = v.x, v1 = v.y;
  } else {
    const uint32_t word = *reinterpret_cast<const uint32_t*>(src);
    v0 = epi::unpack_half<Out>(word, false);
    v1 = epi::unpack_half<Out>(word, true);
  }
}

// The dense GEMM's tile source (kernels/sm90/grouped_tiles.cuh describes the interface): the cluster tiles of
// p.tiles (sched::TileGrid::tile_at), M x N x batch, every id of the scheduler's walk a tile.
template <class Cfg>
struct GemmTiles {
  using Tile = sched::TileCoord;
  struct Walk {
    const GemmParams<Cfg>& p;
    BWGEMM_DEVICE BWGEMM_FORCEINLINE bool seek(int32_t id, Tile* t) const {
      *t = p.tiles.tile_at(id);
      return true;
    }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE int32_t row0(const Tile& t, uint32_t cta_rank) const {
      return tile_row0<Cfg>(t, cta_rank);
    }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE int32_t col0(const Tile& t, uint32_t cta_rank) const {
      return tile_col0<Cfg>(t, cta_rank);
    }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE int32_t a_batch(const Tile& t) const { return t.batch; }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE int32_t b_batch(const Tile& t) const { return t.batch; }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE int32_t a_rows() const { return p.m; }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE int32_t row_end(const Tile& /*t*/) const { return p.m; }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE int64_t out_offset(const Tile& t) const {
      return static_cast<int64_t>(t.batch) * p.batch_stride_d;
    }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE int64_t c_offset(const Tile& t) const {
      return static_cast<int64_t>(t.batch) * p.batch_stride_c;
    }
    template <class Epilogue>
    BWGEMM_DEVICE BWGEMM_FORCEINLINE const Epilogue& epilogue(const Epilogue& f, const Tile& /*t*/) const {
      return f;
    }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE void report(int32_t /*cluster*/) const {}
  };
  const GemmParams<Cfg>& p;
  BWGEMM_DEVICE BWGEMM_FORCEINLINE Walk walk() const { return Walk{p}; }
};

// The kernel's body over the tiles of `source` (GemmTiles: the dense GEMM; GroupedTiles: the grouped GEMM,
// kernels/sm90/grouped_tiles.cuh). BMnMajor: B is K x N row-major (a compile-time choice, so each kernel has
// one wgmma form and no branch between the wgmmas of a stage).
template <class Cfg, class In, bool BMnMajor, class Source>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void gemm_kernel_body(const GemmParams<Cfg>& p, const Source& source) {
  using namespace ::bwgemm::ptx;
  using Scheduler = typename Cfg::Scheduler;
  using Out = typename Cfg::Out;
  using Epilogue = typename Cfg::Epilogue;
  constexpr int kClusterCtas = Cfg::kClusterCtas;
  // A functor that takes (acc, c) reads C (when p.read_c, for one that also takes acc alone).
  constexpr bool kTakesC = std::is_invocable_v<const Epilogue&, float, float>;
  constexpr bool kTakesAccOnly = std::is_invocable_v<const Epilogue&, float>;
  // The consumers' barrier before the partials overwrite the stages (1, 2: the TMA-store epilogue's, 0:
  // __syncthreads).
  constexpr uint32_t kPartialsBarrier = 3;

  const uint32_t warp = warp_idx();
  const uint32_t warpgroup = warp / 4;

  const uint32_t smem = round_up_u32(dynamic_smem_base(), kSmemAlignment);
  const BarrierArray<Cfg::kStages> full{smem + Cfg::kFullBarriers};
  const BarrierArray<Cfg::kStages> empty{smem + Cfg::kEmptyBarriers};
  uint32_t cta_rank = 0;  // rank in the cluster = which M (or, along N, N) tile of the cluster tile
  if constexpr (kClusterCtas > 1) cta_rank = cluster_ctarank();

  // ---- set-up ------------------------------------------------------------------------------------------
  start_pipeline<Cfg>(full, empty, warp, [&] {
    tma_prefetch_descriptor(&p.tmap_a);
    tma_prefetch_descriptor(&p.tmap_b);
    if constexpr (Cfg::kTmaStore) tma_prefetch_descriptor(&p.tmap_d);
  });
  // The set-up above (barrier initialisation, tensor-map prefetch) touches no global memory, so under
  // programmatic dependent launch it overlaps the previous kernel's tail; every thread waits here, before the
  // first TMA load, C or device-scale read or store, for that kernel's completion and memory
  // (ptx/griddepcontrol.cuh; at once without PDL).
  griddepcontrol_wait();

  // splits == 1: both roles walk the scheduler's tiles. splits > 1 (one-CTA Configs only, the host checks):
  // one tile per cluster of `splits` CTAs (tile blockIdx.x / splits in the TileGrid's order), CTA rank r
  // of the cluster taking the K blocks split_k_range(k_blocks, splits, r) (kernels/sm90/split_k.cuh).
  const uint32_t splits = Cfg::kSplitK ? static_cast<uint32_t>(p.splits) : 1u;
  const uint32_t split_rank = splits > 1 ? cluster_ctarank() : 0u;
  const int32_t cluster = static_cast<int32_t>(block_idx().x) / kClusterCtas;
  const int32_t total = p.tiles.total();
  const int32_t k_blocks = (p.k + Cfg::kBlockK - 1) / Cfg::kBlockK;
  const KRange kr = split_k_range(k_blocks, static_cast<int32_t>(splits), static_cast<int32_t>(split_rank));
  // The units both roles walk: tiles (each tile's K blocks kr), or with stream-K whole tiles and then the
  // segments of this CTA's range, each named by the iteration it starts at (sched::StreamK).
  using SK = sched::StreamK;
  using Segment = SK::Segment;
  const SK::Range sk = Cfg::kStreamK ? SK::sk_range(p.sk, cluster) : SK::Range{0, 0};
  const auto first_unit = [&]() -> int32_t {
    if constexpr (Cfg::kStreamK) {
      return SK::first_unit(p.sk, cluster, sk);
    } else {
      return splits > 1 ? static_cast<int32_t>(block_idx().x / splits)
                        : Scheduler::first_tile(cluster, p.num_clusters, total);
    }
  };
  const auto unit_segment = [&](int32_t unit) -> Segment {
    if constexpr (Cfg::kStreamK) {
      return SK::unit_segment(p.sk, sk, unit);
    } else {
      return {unit, kr.begin, kr.end};
    }
  };
  const auto next_unit = [&](int32_t unit) -> int32_t {
    if constexpr (Cfg::kStreamK) {
      return SK::next_unit(p.sk, sk, unit);
    } else {
      return splits > 1 ? sched::kNoTile : Scheduler::next_tile(unit, p.num_clusters, total);
    }
  };

  if (warpgroup == Cfg::kProducerWarpgroup) {
    // ---- producer ------------------------------------------------------------------------------------
    warpgroup_reg_dealloc<Cfg::kProducerRegs>();
    if (warp == 0 && elect_one_sync()) {
      constexpr uint16_t kClusterMask = (1u << kClusterCtas) - 1;  // multicast to every CTA of the cluster
      PipelineState<Cfg::kStages> stage;
      auto tiles = source.walk();
      for (int32_t unit = first_unit(); unit != sched::kNoTile; unit = next_unit(unit)) {
        const Segment seg = unit_segment(unit);
        typename Source::Tile t;
        if (!tiles.seek(seg.tile, &t)) break;  // past the last tile (a grouped walk; dense: never)
        const int32_t m0 = tiles.row0(t, cta_rank);
        const int32_t n0 = tiles.col0(t, cta_rank);
        // This CTA's share of each operand: the whole of one loaded alone, its half of one shared with the
        // peer (multicast to both).
        const uint32_t a_share = Cfg::kASharers > 1 ? cta_rank : 0u;
        const uint32_t b_share = Cfg::kBSharers > 1 ? cta_rank : 0u;
        const auto load = [&](const CUtensorMap* map, bool shared, uint32_t dst, uint32_t bar, int32_t inner,
                              int32_t outer, int32_t batch) {
          if (kClusterCtas > 1 && shared) {
            tma_load_multicast(dst, map, bar, {inner, outer, batch}, kClusterMask);
          } else {
            tma_load(dst, map, bar, {inner, outer, batch});
          }
        };
        const int32_t k_iters = seg.k_end - seg.k_begin;
        // A box that would cross M goes through the tail map (a shared A keeps the full boxes: its peer
        // waits for the bytes of both halves).
        const int32_t a_row0 = m0 + static_cast<int32_t>(a_share) * Cfg::kARowsPerCta;
        const RowBox a_box = Cfg::kASharers > 1 ? RowBox{&p.tmap_a, 0u}
                                                : row_box<Cfg::kARowsPerCta>(a_row0, tiles.a_rows(),
                                                                             &p.tmap_a, &p.tmap_a_tail);
        produce_k_blocks<Cfg, Cfg::template tx_bytes<BMnMajor>()>(
            stage, full, empty, smem, k_iters,
            [&](uint32_t base, uint32_t bar, int32_t k) {
              const int32_t k0 = seg.k_begin * Cfg::kBlockK + k;  // this unit's K blocks
              if (a_box.map != nullptr)
                load(a_box.map, Cfg::kASharers > 1, base + Cfg::kAOffset + a_share * Cfg::kASliceBytes, bar,
                     k0, a_row0, tiles.a_batch(t));
              if constexpr (BMnMajor) {
#pragma unroll
                for (int c = 0; c < Cfg::kBMnChunksPerCta; ++c) {
                  const int chunk = static_cast<int>(b_share) * Cfg::kBMnChunksPerCta + c;
                  load(&p.tmap_b, Cfg::kBSharers > 1, base + Cfg::kBOffset + chunk * Cfg::kBMnChunkBytes, bar,
                       n0 + chunk * Cfg::kBMnChunkColumns, k0, tiles.b_batch(t));
                }
              } else {
                load(&p.tmap_b, Cfg::kBSharers > 1, base + Cfg::kBOffset + b_share * Cfg::kBSliceBytes, bar,
                     k0, n0 + static_cast<int32_t>(b_share) * Cfg::kBKMajorRowsPerCta, tiles.b_batch(t));
              }
            },
            a_box.missing_bytes);
      }
      tiles.report(cluster);  // the grouped walk's status word (dense: nothing)
      // Every load of this CTA is issued: the next kernel of the stream (launched with programmatic
      // dependent launch) may be scheduled once every CTA got here or exited, its set-up overlapping this
      // grid's last wgmmas and stores. Safe for the data at any point: the dependent's griddepcontrol.wait
      // still waits for this grid's completion and memory flush. A no-op without a dependent.
      griddepcontrol_launch_dependents();
    }
    // Split K: the cluster barrier after which the consumers read each other's partials (every thread takes
    // part). The producer wrote nothing a peer reads, so its arrival orders nothing: relaxed, no GPU-scope
    // fence (tools/check_sass_fences.py allows a kernel two: the consumers' arrival here and the exit's).
    if (splits > 1) {
      cluster_arrive_relaxed();
      cluster_wait();
    }
  } else {
    // ---- consumers -----------------------------------------------------------------------------------
    warpgroup_reg_alloc<Cfg::kConsumerRegs>();
    const ConsumerThread me = consumer_thread(warpgroup);
    const uint32_t consumer = me.consumer, thread = me.thread, warp_in_group = me.warp_in_group,
                   lane = me.lane;
    const uint32_t a_offset = Cfg::kAOffset + Cfg::consumer_row0(consumer) * Cfg::kRowBytes;
    // The functor with its device-pointer scales read, once per consumer thread before the tile loop.
    const Epilogue f = epi::with_device_scales(p.epilogue);
    constexpr uint64_t kBDescBase =
        BMnMajor ? wgmma_mn_major_sw128_desc(Cfg::kBMnChunkBytes) : kWgmmaKMajorSw128Desc;
    constexpr uint32_t kBK16Bytes = BMnMajor ? kWgmmaK16BytesMnMajor : kWgmmaK16BytesKMajor;

    PipelineState<Cfg::kStages> stage;
    auto tiles = source.walk();
    uint32_t walk = 0;  // tiles of this CTA's walk so far (ping-pong: tile i is consumer i % 2's)
    for (int32_t unit = first_unit(); unit != sched::kNoTile; unit = next_unit(unit), ++walk) {
      const Segment seg = unit_segment(unit);
      const int32_t k_iters = seg.k_end - seg.k_begin;
      // Ping-pong: the other consumer's tiles pass this one by; the mainloops take turns (common.cuh).
      if (!ping_pong_take_tile<Cfg>(walk, consumer, stage, k_iters)) continue;
      // Past the last tile: a grouped walk's end (its sources take no ping-pong Config); dense: never.
      typename Source::Tile t;
      if (!tiles.seek(seg.tile, &t)) break;

      // One accumulator fragment per 64-row block of the consumer's rows (Cfg::kRowBlocks).
      float acc[Cfg::kRowBlocks][Cfg::kAccRegs];
#pragma unroll
      for (int rb = 0; rb < Cfg::kRowBlocks; ++rb) zero_accumulator(acc[rb]);

      consume_k_blocks<Cfg>(stage, full, empty, smem, k_iters, thread, [&](uint32_t base, bool first) {
        constexpr WgmmaMajor kBMajor = BMnMajor ? WgmmaMajor::kMN : WgmmaMajor::kK;
#pragma unroll
        for (int j = 0; j < Cfg::kMmasPerStage; ++j) {
#pragma unroll
          for (int rb = 0; rb < Cfg::kRowBlocks; ++rb) {
            // Row block rb's 64 rows of A against the same B (the compiler computes b_desc once per j).
            const uint64_t a_desc = wgmma_desc_with_address(
                kWgmmaKMajorSw128Desc, base + a_offset + static_cast<uint32_t>(rb * Cfg::kRowBlockABytes) +
                                           static_cast<uint32_t>(j) * kWgmmaK16BytesKMajor);
            const uint64_t b_desc = wgmma_desc_with_address(
                kBDescBase, base + Cfg::kBOffset + static_cast<uint32_t>(j) * kBK16Bytes);
            wgmma_ss<In, Cfg::kBlockN, WgmmaMajor::kK, kBMajor>(acc[rb], a_desc, b_desc, !first || j > 0);
          }
        }
      });
#pragma unroll
      for (int rb = 0; rb < Cfg::kRowBlocks; ++rb) wgmma_fence_operand(acc[rb]);
      // Ping-pong: the other consumer's turn (its next tile's mainloop runs under this one's epilogue).
      ping_pong_pass_turn<Cfg>(consumer, next_unit(unit) != sched::kNoTile);

      if constexpr (Cfg::kStreamK) {
        // ---- stream-K: hand a segment that is not the tile's head to the head's CTA, or gather ----------
        const uint32_t tid = consumer * kWarpgroupThreads + thread;
        if (seg.k_begin > 0) {
          // Not the head (this CTA's first segment): the sums to this CTA's partial slot, then its flag.
          write_partials<Cfg::kPartialGroup, Cfg::kConsumerThreads>(
              p.sk_partials + static_cast<int64_t>(cluster) * Cfg::kPartialElements, acc[0], tid);
          named_barrier_sync(kPartialsBarrier, Cfg::kConsumerThreads);  // every thread's sums written
          if (tid == 0) st_release_gpu(p.sk_flags + cluster, 1u);
          continue;
        }
        if (seg.k_end < k_blocks) {
          // The head of a shared tile (this CTA's last segment): the later K blocks' sums, CTA by CTA in K
          // order, each once its flag is set (those CTAs computed them as their first segment).
          const SK::Owners owners = SK::head_tail_owners(p.sk, seg);
          for (int32_t c = owners.first; c <= owners.last; ++c) {
            if (tid == 0) {
              while (ld_acquire_gpu(p.sk_flags + c) == 0u) {
              }
              st_relaxed_gpu(p.sk_flags + c, 0u);  // this grid reads it no more: 0 for the next call
            }
            named_barrier_sync(kPartialsBarrier, Cfg::kConsumerThreads);  // the flag seen: the sums visible
            add_partials<Cfg::kPartialGroup, Cfg::kConsumerThreads>(
                acc[0], p.sk_partials + static_cast<int64_t>(c) * Cfg::kPartialElements, tid);
          }
        }
      }

      // ---- epilogue: fragment (+ C) -> functor -> D ---------------------------------------------------
      // Thread (warp w, lane l) holds rows 16w + l/4 (+8) and columns 8j + 2(l%4) (+1) of each 64-row
      // block rb of its rows, at acc[rb][4j + 2h + e] (ptx/wgmma.cuh).
      const int32_t slice_m0 = tiles.row0(t, cta_rank) + Cfg::consumer_row0(consumer);
      const int32_t row0 = slice_m0 + static_cast<int32_t>(warp_in_group * 16 + lane / 4);
      const int32_t tile_n0 = tiles.col0(t, cta_rank);
      const int32_t col0 = tile_n0 + static_cast<int32_t>(2 * (lane % 4));
      const Out* c_batch = p.c + tiles.c_offset(t);
      const auto& ft = tiles.epilogue(f, t);  // the tile's functor (grouped: the expert's alpha)
      // The functor applied to sums a0, a1 (columns col, col + 1 of `row`); C read only in bounds.
      const auto apply = [&](float a0, float a1, int32_t row, int32_t col, float& v0, float& v1) {
        const auto read_c = [&](float& c0, float& c1) {
          c0 = 0.0f, c1 = 0.0f;
          if (row < tiles.row_end(t) && col < p.n)
            load_pair(c_batch + static_cast<int64_t>(row) * p.ldc + col, c0, c1);
        };
        // C when the functor needs it (takes only (acc, c)) or asks for it (p.read_c, for one that takes
        // both).
        if constexpr (kTakesC) {
          if (!kTakesAccOnly || p.read_c) {
            float c0, c1;
            read_c(c0, c1);
            v0 = ft(a0, c0);
            v1 = ft(a1, c1);
            return;
          }
        }
        if constexpr (kTakesAccOnly) {
          v0 = ft(a0);
          v1 = ft(a1);
        }
      };
      Out* d_batch = p.d + tiles.out_offset(t);
      if (splits > 1) {
        // ---- split K: partials, the cluster's rank-order reduction, D from registers ------------------
        // Both consumers are done reading the stages (the partials overwrite them; one tile per CTA).
        named_barrier_sync(kPartialsBarrier, Cfg::kConsumerThreads);
        float* const partials = reinterpret_cast<float*>(static_cast<uint8_t*>(dynamic_smem_ptr()) +
                                                         (smem + Cfg::kPartialOffset - dynamic_smem_base()));
        const uint32_t tid = consumer * kWarpgroupThreads + thread;
        static_assert(!Cfg::kSplitK || Cfg::kRowBlocks == 1, "split K takes one row block per consumer");
        write_partials<Cfg::kPartialGroup, Cfg::kConsumerThreads>(partials, acc[0], tid);
        cluster_sync();  // every CTA's partials are written and visible to the cluster
        const int32_t m0 = tiles.row0(t, 0), n0 = tiles.col0(t, 0);
        for_each_rank_quad_sum<Cfg::kPartialQuads, Cfg::kConsumerThreads, 1, kQuadsInFlight>(
            splits, split_rank, tid, smem + Cfg::kPartialOffset, 0, [&](int q, const Float4(&sums)[1]) {
              // Quad q: one row of the tile, 4 adjacent columns (GemmConfig::partial_quad_coord).
              const typename Cfg::QuadCoord at = Cfg::partial_quad_coord(q);
              const int32_t row = m0 + at.row, col = n0 + at.col;
              const Float4& sum = sums[0];
              if (row >= tiles.row_end(t)) return;
              Out* d_row = d_batch + static_cast<int64_t>(row) * p.ldd;
              float v0, v1;
              if (col < p.n) {
                apply(sum.x, sum.y, row, col, v0, v1);
                store_pair(d_row + col, v0, v1, col + 1 < p.n);
              }
              if (col + 2 < p.n) {
                apply(sum.z, sum.w, row, col + 2, v0, v1);
                store_pair(d_row + col + 2, v0, v1, col + 3 < p.n);
              }
            });
      } else if constexpr (Cfg::kTmaStore) {
        // One 64-row slice per row block, each through the warpgroup's buffer (a row block's rounds after
        // the previous one's: store_slice_with_tma waits until the copy engine has read the buffer).
#pragma unroll
        for (int rb = 0; rb < Cfg::kRowBlocks; ++rb) {
          const int32_t rb_rows = rb * kWgmmaM;
          store_slice_with_tma<Cfg>(&p.tmap_d, smem, me, tile_n0, slice_m0 + rb_rows, tiles.b_batch(t),
                                    [&](int j, int h, float& v0, float& v1) {
                                      const int i = 4 * j + 2 * h;
                                      apply(acc[rb][i], acc[rb][i + 1], row0 + rb_rows + 8 * h, col0 + 8 * j,
                                            v0, v1);
                                    });
        }
      } else {
#pragma unroll
        for (int rb = 0; rb < Cfg::kRowBlocks; ++rb) {
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int32_t row = row0 + rb * kWgmmaM + 8 * h;
            if (row >= tiles.row_end(t)) continue;
            Out* d_row = d_batch + static_cast<int64_t>(row) * p.ldd;
#pragma unroll
            for (int j = 0; j < Cfg::kBlockN / 8; ++j) {
              const int32_t col = col0 + 8 * j;
              if (col >= p.n) continue;
              float v0, v1;
              apply(acc[rb][4 * j + 2 * h], acc[rb][4 * j + 2 * h + 1], row, col, v0, v1);
              store_pair(d_row + col, v0, v1, col + 1 < p.n);
            }
          }
        }
      }
    }
    // D's last TMA stores are complete before the CTA (and its shared memory) goes away.
    if constexpr (Cfg::kTmaStore) finish_tma_stores(me);
  }

  // A CTA must outlive the peer's multicasts into its stages and arrivals on its barriers (ClusterCtas = 2),
  // or the peers' reads of its partials (split K).
  if (kClusterCtas > 1 || splits > 1) cluster_sync();
}

template <class Cfg, class In, bool BMnMajor>
__global__ void __launch_bounds__(Cfg::kThreads, 1) gemm_kernel(const __grid_constant__ GemmParams<Cfg> p) {
#if BWGEMM_SM90A_KERNEL_BODY
  gemm_kernel_body<Cfg, In, BMnMajor>(p, GemmTiles<Cfg>{p});
#else
  (void)p;
  ::bwgemm::ptx::trap();  // built for another architecture; the entry points never launch it here
#endif
}

}  // namespace bwgemm::sm90
