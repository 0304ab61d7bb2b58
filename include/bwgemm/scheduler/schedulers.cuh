// Tile schedulers: which linear tile ids (see tile_order.cuh) a cluster computes, and how many clusters
// to launch. All three share one interface so a kernel is written once:
//
//   for (int32_t t = S::first_tile(cluster, clusters); t != kNoTile; t = <next tile>) { ... }
//
// - OneTilePerCluster: one cluster per tile, each computes exactly its own tile.
// - StaticPersistent: min(tiles, resident clusters) clusters stride over the tiles (tile += clusters).
// - ClcWorkStealing: one cluster per tile like OneTilePerCluster, but a running cluster, after its own
//   tile, cancels a cluster that has not started yet (clusterlaunchcontrol.try_cancel, PTX ISA 9.7.17)
//   and computes that cluster's tile instead; the hardware balances the work (seed 004). The device
//   half of that protocol (the response ring, the scheduler warp) is in kernels/sm100/common.cuh
//   (TileStream, run_clc_scheduler); the mapping from a cancelled cluster's first CTA to its tile is here.
// - StreamK: whole waves of tiles first, one tile per CTA at a time as StaticPersistent (all CTAs at the
//   same K offset of neighbouring tiles, so they share the operands' L2 lines), then the tiles of the last,
//   partial wave with their K blocks laid end to end (tile-major: tile t's K blocks are iterations
//   t·k_blocks .. t·k_blocks + k_blocks - 1) and cut into one contiguous range per CTA, as even as whole
//   iterations allow (Osama et al., "Stream-K: Work-centric Parallel Decomposition for Dense Matrix-Matrix
//   Multiplication on the GPU", 2023; the data-parallel + stream-K hybrid). A CTA's range is a run of
//   segments, each one tile's K blocks [k_begin, k_end): first the tail of a tile it shares with earlier
//   CTAs, then whole tiles, last the head (k_begin = 0) of a tile it shares with later CTAs. The head's CTA
//   adds the others' partial sums to its own and stores the tile (kernels/sm90/gemm_kernel.cuh). Stream-K
//   over every tile measured 0.5-0.85x of the whole-wave kernels on the H200 (tenth session, run 2): CTAs
//   at staggered K offsets of tiles spread over the whole problem share no L2 lines, and the kernel became
//   bound by HBM; the last wave's tiles alone fit in L2.
#pragma once

#include <cstdint>

#include "bwgemm/base/macros.hpp"
#include "bwgemm/scheduler/tile_order.cuh"

namespace bwgemm::sched {

inline constexpr int32_t kNoTile = -1;

struct OneTilePerCluster {
  static constexpr const char* kName = "OneTilePerCluster";
  static constexpr bool kUsesClc = false;
  static constexpr bool kStreamK = false;
  static int64_t grid_clusters(const TileGrid& grid, int64_t /*resident_clusters*/) { return grid.total(); }
  BWGEMM_HD static constexpr int32_t first_tile(int32_t cluster, int32_t /*num_clusters*/, int32_t total) {
    return cluster < total ? cluster : kNoTile;
  }
  BWGEMM_HD static constexpr int32_t next_tile(int32_t /*tile*/, int32_t /*num_clusters*/,
                                               int32_t /*total*/) {
    return kNoTile;
  }
};

struct StaticPersistent {
  static constexpr const char* kName = "StaticPersistent";
  static constexpr bool kUsesClc = false;
  static constexpr bool kStreamK = false;
  static int64_t grid_clusters(const TileGrid& grid, int64_t resident_clusters) {
    return grid.total() < resident_clusters ? grid.total() : resident_clusters;
  }
  BWGEMM_HD static constexpr int32_t first_tile(int32_t cluster, int32_t /*num_clusters*/, int32_t total) {
    return cluster < total ? cluster : kNoTile;
  }
  BWGEMM_HD static constexpr int32_t next_tile(int32_t tile, int32_t num_clusters, int32_t total) {
    return tile + num_clusters < total ? tile + num_clusters : kNoTile;
  }
};

struct ClcWorkStealing {
  static constexpr const char* kName = "ClcWorkStealing";
  static constexpr bool kUsesClc = true;
  static constexpr bool kStreamK = false;
  static int64_t grid_clusters(const TileGrid& grid, int64_t /*resident_clusters*/) { return grid.total(); }
  BWGEMM_HD static constexpr int32_t first_tile(int32_t cluster, int32_t /*num_clusters*/, int32_t total) {
    return cluster < total ? cluster : kNoTile;
  }
  // The tile of a cancelled cluster, from the %ctaid.x of its first CTA (clusters are 1-D along x).
  BWGEMM_HD static constexpr int32_t tile_of_cancelled(uint32_t first_cta_x, uint32_t cluster_size) {
    return static_cast<int32_t>(first_cta_x / cluster_size);
  }
};

struct StreamK {
  static constexpr const char* kName = "StreamK";
  static constexpr bool kUsesClc = false;
  static constexpr bool kStreamK = true;

  // One CTA's iterations [begin, end) of `iterations` split over `ctas`: the first iterations % ctas CTAs
  // take one more.
  struct Range {
    int32_t begin, end;
  };
  BWGEMM_HD static constexpr Range cta_range(int32_t iterations, int32_t ctas, int32_t cta) {
    const int32_t base = iterations / ctas, extra = iterations % ctas;
    const int32_t begin = cta * base + (cta < extra ? cta : extra);
    return {begin, begin + base + (cta < extra ? 1 : 0)};
  }
  // The CTA whose range holds iteration `it` (cta_range's inverse).
  BWGEMM_HD static constexpr int32_t owner(int32_t it, int32_t iterations, int32_t ctas) {
    const int32_t base = iterations / ctas, extra = iterations % ctas;
    const int32_t long_span = extra * (base + 1);  // the iterations of the CTAs that take one more
    return it < long_span ? it / (base + 1) : extra + (it - long_span) / base;
  }
  // The segment that starts at iteration `it` of a range ending at `end`: its tile, K blocks
  // [k_begin, k_end) of that tile.
  struct Segment {
    int32_t tile, k_begin, k_end;
  };
  BWGEMM_HD static constexpr Segment segment_at(int32_t it, int32_t end, int32_t k_blocks) {
    const int32_t tile = it / k_blocks, k_begin = it - tile * k_blocks;
    const int32_t left = end - it;
    return {tile, k_begin, k_blocks - k_begin < left ? k_blocks : k_begin + left};
  }
  // The CTAs that hold the rest of a head segment's tile (the head ending at K block k_end < k_blocks;
  // `tile` counted from the first stream-K tile): first .. last, in K order.
  struct Owners {
    int32_t first, last;
  };
  BWGEMM_HD static constexpr Owners tail_owners(int32_t tile, int32_t k_end, int32_t k_blocks,
                                                int32_t iterations, int32_t ctas) {
    return {owner(tile * k_blocks + k_end, iterations, ctas),
            owner(tile * k_blocks + k_blocks - 1, iterations, ctas)};
  }

  // A launch's work (host: plan): the first dp_tiles tiles whole, `ctas` at a time (tile t to CTA
  // t % ctas: whole waves), then the other tiles' sk_iterations K blocks over the first sk_ctas CTAs.
  // Every CTA walks units, each named by the iteration it starts at (tile · k_blocks + K block).
  struct Work {
    int32_t k_blocks = 1, ctas = 1, dp_tiles = 0, sk_iterations = 0, sk_ctas = 0;
  };
  // The work of `tiles` tiles of k_blocks K blocks on `ctas` CTAs: whole waves, then the rest over as many
  // CTAs as give each at least min_k_blocks iterations (at most ctas, at least 1). The caller checks that
  // (tiles + ctas) · k_blocks fits in 32 bits.
  BWGEMM_HD static constexpr Work plan(int32_t tiles, int32_t k_blocks, int32_t ctas, int32_t min_k_blocks) {
    Work w;
    w.k_blocks = k_blocks, w.ctas = ctas;
    w.dp_tiles = tiles / ctas * ctas;
    w.sk_iterations = (tiles - w.dp_tiles) * k_blocks;
    const int32_t by_work = w.sk_iterations / (min_k_blocks < 1 ? 1 : min_k_blocks);
    w.sk_ctas = w.sk_iterations == 0 ? 0 : by_work < 1 ? 1 : by_work < ctas ? by_work : ctas;
    return w;
  }
  // CTA cta's stream-K range in iterations of the whole problem (empty for cta >= sk_ctas).
  BWGEMM_HD static constexpr Range sk_range(const Work& w, int32_t cta) {
    if (cta >= w.sk_ctas) return {0, 0};
    const Range r = cta_range(w.sk_iterations, w.sk_ctas, cta);
    const int32_t base = w.dp_tiles * w.k_blocks;
    return {base + r.begin, base + r.end};
  }
  BWGEMM_HD static constexpr int32_t first_unit(const Work& w, int32_t cta, const Range& sk) {
    if (cta < w.dp_tiles) return cta * w.k_blocks;
    return sk.begin < sk.end ? sk.begin : kNoTile;
  }
  BWGEMM_HD static constexpr Segment unit_segment(const Work& w, const Range& sk, int32_t unit) {
    if (unit < w.dp_tiles * w.k_blocks) return {unit / w.k_blocks, 0, w.k_blocks};
    return segment_at(unit, sk.end, w.k_blocks);
  }
  BWGEMM_HD static constexpr int32_t next_unit(const Work& w, const Range& sk, int32_t unit) {
    const int32_t base = w.dp_tiles * w.k_blocks;
    if (unit < base) {
      const int32_t next = unit + w.ctas * w.k_blocks;  // < (tiles + ctas) · k_blocks: no overflow
      if (next < base) return next;
      return sk.begin < sk.end ? sk.begin : kNoTile;
    }
    const Segment seg = segment_at(unit, sk.end, w.k_blocks);
    const int32_t next = unit + (seg.k_end - seg.k_begin);
    return next < sk.end ? next : kNoTile;
  }
  // The CTAs that hold the rest of head segment `seg`'s tile (seg.k_begin = 0, seg.k_end < k_blocks).
  BWGEMM_HD static constexpr Owners head_tail_owners(const Work& w, const Segment& seg) {
    return tail_owners(seg.tile - w.dp_tiles, seg.k_end, w.k_blocks, w.sk_iterations, w.sk_ctas);
  }
};

}  // namespace bwgemm::sched
