// Output-tile grids and the order tiles are visited in.
//
// A GEMM's output is cut into tiles of (cluster) BLOCK_M x BLOCK_N; `tiles_m x tiles_n x batch` of them.
// Schedulers hand out linear tile ids; `tile_at` maps an id to (m, n, batch) in a grouped order that keeps
// `group_m` consecutive M tiles sweeping the same N tiles together, so the B tiles they share stay in L2
// (the "swizzle" / supergrouping of CUTLASS and ThunderKittens). group_m = 1 is plain row-major order.
#pragma once

#include <cstdint>

#include "bwgemm/base/macros.hpp"

namespace bwgemm::sched {

struct TileCoord {
  int32_t m = 0;      // tile row
  int32_t n = 0;      // tile column
  int32_t batch = 0;  // batch index
};

struct TileGrid {
  int32_t tiles_m = 0;
  int32_t tiles_n = 0;
  int32_t batch = 1;
  int32_t group_m = 1;  // M tiles per group of the L2-friendly order

  BWGEMM_HD constexpr int32_t tiles_per_batch() const { return tiles_m * tiles_n; }
  BWGEMM_HD constexpr int32_t total() const { return tiles_m * tiles_n * batch; }

  // Tile with linear id `id` in [0, total()): batch outermost, then groups of group_m M tiles; inside a
  // group the M index moves fastest, so consecutive ids share their N tile.
  BWGEMM_HD constexpr TileCoord tile_at(int32_t id) const {
    const int32_t l = id / tiles_per_batch();
    const int32_t t = id % tiles_per_batch();
    const int32_t group_size = group_m * tiles_n;  // ids per full group
    const int32_t group = t / group_size;
    const int32_t first_m = group * group_m;
    const int32_t rows_in_group = (tiles_m - first_m) < group_m ? (tiles_m - first_m) : group_m;
    const int32_t in_group = t % group_size;
    return TileCoord{first_m + in_group % rows_in_group, in_group / rows_in_group, l};
  }
};

// The grid of `block_m x block_n` (cluster) tiles covering an m x n output per batch, in the grouped order
// with groups of kDefaultGroupM M tiles (what every bwgemm kernel walks).
inline constexpr int32_t kDefaultGroupM = 8;
BWGEMM_HD constexpr TileGrid grouped_tile_grid(int64_t m, int64_t block_m, int64_t n, int64_t block_n,
                                               int64_t batch) {
  return TileGrid{static_cast<int32_t>((m + block_m - 1) / block_m),
                  static_cast<int32_t>((n + block_n - 1) / block_n), static_cast<int32_t>(batch),
                  kDefaultGroupM};
}

}  // namespace bwgemm::sched
