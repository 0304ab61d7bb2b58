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
#pragma once

#include <cstdint>

#include "bwgemm/base/macros.hpp"
#include "bwgemm/scheduler/tile_order.cuh"

namespace bwgemm::sched {

inline constexpr int32_t kNoTile = -1;

struct OneTilePerCluster {
  static constexpr const char* kName = "OneTilePerCluster";
  static constexpr bool kUsesClc = false;
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
  static int64_t grid_clusters(const TileGrid& grid, int64_t /*resident_clusters*/) { return grid.total(); }
  BWGEMM_HD static constexpr int32_t first_tile(int32_t cluster, int32_t /*num_clusters*/, int32_t total) {
    return cluster < total ? cluster : kNoTile;
  }
  // The tile of a cancelled cluster, from the %ctaid.x of its first CTA (clusters are 1-D along x).
  BWGEMM_HD static constexpr int32_t tile_of_cancelled(uint32_t first_cta_x, uint32_t cluster_size) {
    return static_cast<int32_t>(first_cta_x / cluster_size);
  }
};

}  // namespace bwgemm::sched
