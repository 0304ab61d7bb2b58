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
// - StreamK: the tiles' K blocks laid end to end (tile-major: tile t's K blocks are iterations
//   t·k_blocks .. t·k_blocks + k_blocks - 1) and cut into one contiguous range per CTA, as even as whole
//   iterations allow (Osama et al., "Stream-K: Work-centric Parallel Decomposition for Dense Matrix-Matrix
//   Multiplication on the GPU", 2023). A CTA's range is a run of segments, each one tile's K blocks
//   [k_begin, k_end): first the tail of a tile it shares with earlier CTAs, then whole tiles, last the head
//   (k_begin = 0) of a tile it shares with later CTAs. The head's CTA adds the others' partial sums to its
//   own and stores the tile (the kernels with this scheduler: kernels/sm90/gemm_kernel.cuh). It is not
//   walked with first_tile / next_tile (the kernels ask `kStreamK`).
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
  // The CTAs that hold the rest of a head segment's tile (the head ending at K block k_end < k_blocks):
  // first_owner .. last_owner, in K order.
  struct Owners {
    int32_t first, last;
  };
  BWGEMM_HD static constexpr Owners tail_owners(int32_t tile, int32_t k_end, int32_t k_blocks,
                                                int32_t iterations, int32_t ctas) {
    return {owner(tile * k_blocks + k_end, iterations, ctas),
            owner(tile * k_blocks + k_blocks - 1, iterations, ctas)};
  }
};

}  // namespace bwgemm::sched
