// The tiles a kernel's roles walk, as a tile source: for every linear tile id the scheduler hands a cluster,
// the tile's coordinates, or the end of the cluster's tiles. The dense kernels' source is their tile grid
// (GridTileSource: every id of the stream is a tile); the grouped (mixture-of-experts) kernels' is the walk
// over the experts' device counts (BasicGroupedTileSource, base/grouped.hpp's BasicGroupedTileWalk), whose
// ids end where the experts' tiles do.
//
// The roles read a tile through the overloads below (first_row, first_column, row_limit, column_limit,
// weight_batch, scale_row, output_rows), so one Roles body serves every kind of tile:
//   dense:        rows t.m · block_m .., columns t.n · block_n .., batch t.batch for every operand, rows up
//                 to the problem's M
//   grouped:      rows t.row .. t.row_end - 1 of the expert's rows (contiguous: rows of A and of the output;
//                 masked: rows of the expert's slab, batch t.batch = the expert), the weights of expert
//                 t.expert
//   grouped swap: the swap-AB kernels' tiles (weight rows on the MMA's M side, tokens as its columns):
//                 weight rows t.m · 128 .. of expert t.expert for its tokens t.token .. t.token_end - 1
#pragma once

#include <cstdint>
#include <type_traits>

#include "bwgemm/base/grouped.hpp"
#include "bwgemm/base/macros.hpp"
#include "bwgemm/ptx/global.cuh"
#include "bwgemm/scheduler/tile_order.cuh"

namespace bwgemm::sched {

inline constexpr int32_t kScaleRows = static_cast<int32_t>(grouped::kScaleRowAlign);  // one scale atom's rows

// ---- dense tiles ------------------------------------------------------------------------------------------

// The first row of dense tile t (tiles of block_m rows) and the rows that are stored: those below M (for the
// swap-AB kernels, whose rows are weight rows: below N, the `m` they are given).
BWGEMM_HD constexpr int32_t first_row(const TileCoord& t, int32_t block_m) {
  return t.m * block_m;
}
BWGEMM_HD constexpr int32_t row_limit(const TileCoord& /*t*/, int32_t m) {
  return m;
}
// The first column of dense tile t (tiles of block_n columns) and the columns that are stored (the swap-AB
// kernels' columns are tokens: those below M).
BWGEMM_HD constexpr int32_t first_column(const TileCoord& t, int32_t block_n) {
  return t.n * block_n;
}
BWGEMM_HD constexpr int32_t column_limit(const TileCoord& /*t*/, int32_t m) {
  return m;
}
// The batch of the weights (B) of tile t: the problem's batch.
BWGEMM_HD constexpr int32_t weight_batch(const TileCoord& t) {
  return t.batch;
}
// The row of an NVFP4 operand of the tokens' blocked scales (in batch t.batch) that holds token row `row`.
BWGEMM_HD constexpr int32_t scale_row(const TileCoord& /*t*/, int32_t row) {
  return row;
}

// The rows of the output (its batch) that tile t's rows belong to, as an NVFP4 output places them: rows
// first .. end - 1 hold values, and their scales are a blocked buffer of their own starting at 128-row block
// scale_block of batch t.batch (so row r's scales sit at row r - first of it). Dense: the problem's M rows.
struct OutputRows {
  int32_t first = 0, end = 0, scale_block = 0;
};
BWGEMM_HD constexpr OutputRows output_rows(const TileCoord& /*t*/, int32_t m) {
  return OutputRows{0, m, 0};
}

// Every id of a dense kernel's tile stream is a tile of its grid.
struct GridTileSource {
  using Tile = TileCoord;
  const FastTileGrid& grid;
  BWGEMM_HD bool at(int32_t id, TileCoord* t) const {
    *t = grid.tile_at(id);
    return true;
  }
  BWGEMM_HD void finish() const {}
};

// ---- grouped tiles ----------------------------------------------------------------------------------------

// One cluster tile of a grouped operation: rows row .. row_end - 1 (at most the tile's rows) of expert
// `expert`, column tile n.
struct GroupedTileCoord {
  int32_t n = 0;            // column tile
  int32_t expert = 0;       // the expert: the weights' batch, its per-expert scales
  int32_t batch = 0;        // A's and the output's batch: the expert (masked) or 0 (contiguous)
  int32_t row = 0;          // the tile's first row (contiguous: of A and of the output; masked: of the slab)
  int32_t row_end = 0;      // the expert's rows end here or earlier: rows from row_end on are not stored
  int32_t expert_row = 0;   // the expert's first row (row - expert_row: the tile's row inside the expert)
  int32_t rows = 0;         // the expert's rows
  int32_t scale_block = 0;  // NVFP4: the 128-row block of the expert's first scale row in its batch
};

BWGEMM_HD constexpr int32_t first_row(const GroupedTileCoord& t, int32_t /*block_m*/) {
  return t.row;
}
BWGEMM_HD constexpr int32_t row_limit(const GroupedTileCoord& t, int32_t /*m*/) {
  return t.row_end;
}
BWGEMM_HD constexpr int32_t first_column(const GroupedTileCoord& t, int32_t block_n) {
  return t.n * block_n;
}
BWGEMM_HD constexpr int32_t weight_batch(const GroupedTileCoord& t) {
  return t.expert;
}
// The expert's scales are a blocked buffer of its own from its scale block: its row r at scale row
// scale_block · 128 + (r - expert_row).
BWGEMM_HD constexpr int32_t scale_row(const GroupedTileCoord& t, int32_t row) {
  return t.scale_block * kScaleRows + (row - t.expert_row);
}
// The expert's rows (its scales: the expert's own blocked buffer from its scale block).
BWGEMM_HD constexpr OutputRows output_rows(const GroupedTileCoord& t, int32_t /*m*/) {
  return OutputRows{t.expert_row, t.expert_row + t.rows, t.scale_block};
}

// One tile of a grouped swap-AB launch: weight rows m · block_m .. (the MMA's M side) of expert `expert` for
// its tokens token .. token_end - 1 (the MMA's columns).
struct GroupedSwapTileCoord {
  int32_t m = 0;            // weight-row tile
  int32_t expert = 0;       // the weights' batch, the per-expert scales
  int32_t batch = 0;        // the tokens' and the output's batch: the expert (masked) or 0 (contiguous)
  int32_t token = 0;        // the tile's first token (contiguous: row of A; masked: row of the slab)
  int32_t token_end = 0;    // tokens from token_end on are not stored
  int32_t expert_row = 0;   // the expert's first token
  int32_t scale_block = 0;  // NVFP4: the 128-row block of the expert's first scale row in its batch
};

BWGEMM_HD constexpr int32_t first_row(const GroupedSwapTileCoord& t, int32_t block_m) {
  return t.m * block_m;
}
BWGEMM_HD constexpr int32_t row_limit(const GroupedSwapTileCoord& /*t*/, int32_t n) {
  return n;
}
BWGEMM_HD constexpr int32_t first_column(const GroupedSwapTileCoord& t, int32_t /*block_n*/) {
  return t.token;
}
BWGEMM_HD constexpr int32_t column_limit(const GroupedSwapTileCoord& t, int32_t /*m*/) {
  return t.token_end;
}
BWGEMM_HD constexpr int32_t weight_batch(const GroupedSwapTileCoord& t) {
  return t.expert;
}
BWGEMM_HD constexpr int32_t scale_row(const GroupedSwapTileCoord& t, int32_t token) {
  return t.scale_block * kScaleRows + (token - t.expert_row);
}

// The tiles of a grouped launch for one walking thread: the walk over the experts' device offsets or counts
// (every role of every CTA walks them alike, reading each value once, so all stop at the same id). The
// thread that reports (one per launch) ORs the walk's status bits into the status word at the end: every
// CTA reads every expert's value (finish()), so one report covers the launch.
//   Tile = GroupedTileCoord:     the tiled kernels': row tiles of block_m token rows, n_tiles column tiles
//   Tile = GroupedSwapTileCoord: the swap-AB kernels': token tiles of block_m tokens, n_tiles weight tiles
// ReadAhead: the values the walk reads at a time (BasicGroupedTileWalk).
template <class TileType, int ReadAhead>
class BasicGroupedTileSource {
 public:
  using Tile = TileType;

  BWGEMM_DEVICE BasicGroupedTileSource(const GroupedTokens& tokens, int32_t experts, int32_t block_m,
                                       int32_t n_tiles, uint32_t* status, bool reports)
      : walk_(tokens, experts, block_m, n_tiles),
        masked_(tokens.layout == GroupedLayout::kMasked),
        status_(reports ? status : nullptr) {}

  // The tile of id `id` (ids in increasing order), or false past the experts' tiles.
  BWGEMM_DEVICE bool at(int32_t id, Tile* t) {
    grouped::GroupedTile g;
    if (!walk_.seek(id, &g)) return false;
    const int32_t expert = static_cast<int32_t>(g.expert);
    const int32_t batch = masked_ ? expert : 0;
    const int32_t row = static_cast<int32_t>(g.row_begin), row_end = static_cast<int32_t>(g.row_end);
    const int32_t expert_row = static_cast<int32_t>(g.rows.begin);
    // Masked: the expert's scales are batch `expert` of the map (its blocks from 0); contiguous: its first
    // scale row's block of the one batch.
    const int32_t scale_block = masked_ ? 0 : static_cast<int32_t>(g.rows.scale_row / kScaleRows);
    const int32_t column = static_cast<int32_t>(g.n_tile);
    if constexpr (std::is_same_v<Tile, GroupedSwapTileCoord>) {
      *t = GroupedSwapTileCoord{column, expert, batch, row, row_end, expert_row, scale_block};
    } else {
      *t = GroupedTileCoord{
          column, expert, batch, row, row_end, expert_row, static_cast<int32_t>(g.rows.rows()), scale_block};
    }
    return true;
  }

  // After the thread's last tile: the reporting thread reads the rest of the values and reports the bits.
  BWGEMM_DEVICE void finish() {
    if (status_ == nullptr) return;
    walk_.finish();
    if (walk_.status() != 0) ptx::red_global_or(status_, walk_.status());
  }

 private:
  grouped::BasicGroupedTileWalk<int32_t, ReadAhead> walk_;
  bool masked_;
  uint32_t* status_;
};

template <int ReadAhead>
using GroupedTileSource = BasicGroupedTileSource<GroupedTileCoord, ReadAhead>;
template <int ReadAhead>
using GroupedSwapTileSource = BasicGroupedTileSource<GroupedSwapTileCoord, ReadAhead>;

}  // namespace bwgemm::sched
