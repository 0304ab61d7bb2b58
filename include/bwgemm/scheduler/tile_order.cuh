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

// n / d and n % d for a divisor d >= 1 fixed at run time and 0 <= n < 2^31, without a division instruction:
// one 32 x 32 -> 64-bit multiply, an add and a shift (Granlund and Montgomery, "Division by invariant
// integers using multiplication", PLDI 1994, the round-up variant CUTLASS's FastDivmod uses): s = ceil(log2
// d), m = floor(2^32 (2^s - d) / d) + 1, n / d = (hi32(n · m) + n) >> s. Exact for every n < 2^31 (tested
// exhaustively over divisors and against division in test/policy/test_schedulers.cpp).
struct FastDivmod {
  uint32_t divisor = 1, multiplier = 1, shift = 0;

  constexpr FastDivmod() = default;  // host and device: a defaulted constructor is both (nvcc #20012-D)
  BWGEMM_HD constexpr explicit FastDivmod(uint32_t d) : divisor(d) {
    while ((uint64_t{1} << shift) < d) ++shift;
    multiplier = static_cast<uint32_t>(((uint64_t{1} << 32) * ((uint64_t{1} << shift) - d)) / d + 1);
  }
  BWGEMM_HD constexpr int32_t div(int32_t n) const {
    const uint32_t un = static_cast<uint32_t>(n);
    const uint32_t hi = static_cast<uint32_t>((static_cast<uint64_t>(un) * multiplier) >> 32);
    return static_cast<int32_t>((hi + un) >> shift);
  }
  BWGEMM_HD constexpr void divmod(int32_t n, int32_t& q, int32_t& r) const {
    q = div(n);
    r = n - q * static_cast<int32_t>(divisor);
  }
};

// TileGrid::tile_at without runtime divisions: the same ids to the same tiles, through FastDivmods built once
// (a kernel builds it from its TileGrid at start, a few divisions per CTA instead of three per tile; the
// tile coordinates cost about 90 of a GEMM epilogue's per-tile instructions before,
// tools/epilogue_budget.py).
struct FastTileGrid {
  int32_t tiles_m = 0, tiles_n = 0, batch = 1, group_m = 1;
  FastDivmod per_batch, per_group, group_rows, last_group_rows;

  constexpr FastTileGrid() = default;  // host and device, as defaulted
  BWGEMM_HD constexpr explicit FastTileGrid(const TileGrid& g)
      : tiles_m(g.tiles_m),
        tiles_n(g.tiles_n),
        batch(g.batch),
        group_m(g.group_m),
        per_batch(static_cast<uint32_t>(g.tiles_per_batch() > 0 ? g.tiles_per_batch() : 1)),
        per_group(static_cast<uint32_t>(g.group_m * g.tiles_n > 0 ? g.group_m * g.tiles_n : 1)),
        group_rows(static_cast<uint32_t>(g.group_m)),
        last_group_rows(
            static_cast<uint32_t>(g.tiles_m % g.group_m != 0 ? g.tiles_m % g.group_m : g.group_m)) {}

  BWGEMM_HD constexpr int32_t total() const { return tiles_m * tiles_n * batch; }

  BWGEMM_HD constexpr TileCoord tile_at(int32_t id) const {
    int32_t l = 0, t = 0, group = 0, in_group = 0, m_in = 0, n = 0;
    per_batch.divmod(id, l, t);
    per_group.divmod(t, group, in_group);
    const int32_t first_m = group * group_m;
    // Every group has group_m M tiles but the last, which has tiles_m - first_m (< group_m) of them.
    const FastDivmod& rows = tiles_m - first_m < group_m ? last_group_rows : group_rows;
    rows.divmod(in_group, n, m_in);
    return TileCoord{first_m + m_in, n, l};
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
