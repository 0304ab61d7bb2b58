// The tiles a kernel's roles walk, as a tile source: for every linear tile id the scheduler hands a cluster,
// the tile's coordinates, or the end of the cluster's tiles. The dense kernels' source is their tile grid
// (GridTileSource: every id of the stream is a tile); the grouped (mixture-of-experts) kernels' is the walk
// over the experts' device counts (GroupedTileSource, base/grouped.hpp's BasicGroupedTileWalk), whose ids
// end where the experts' tiles do.
//
// The roles read a tile through the overloads below (first_row, weight_batch, row_limit, scale_block), so one
// Roles body serves both kinds of tile:
//   dense:   rows t.m · cluster_block_m .., batch t.batch for every operand, rows up to the problem's M
//   grouped: rows t.row .. t.row_end - 1 of the expert's rows (contiguous: rows of A and of the output;
//            masked: rows of the expert's slab, batch t.batch = the expert), the weights of expert t.expert
#pragma once

#include <cstdint>

#include "bwgemm/base/grouped.hpp"
#include "bwgemm/base/macros.hpp"
#include "bwgemm/ptx/global.cuh"
#include "bwgemm/scheduler/tile_order.cuh"

namespace bwgemm::sched {

// ---- dense tiles ------------------------------------------------------------------------------------------

// The first row of dense cluster tile t (tiles of cluster_block_m rows).
BWGEMM_HD constexpr int32_t first_row(const TileCoord& t, int32_t cluster_block_m) {
  return t.m * cluster_block_m;
}
// The batch of the weights (B) of tile t: the problem's batch.
BWGEMM_HD constexpr int32_t weight_batch(const TileCoord& t) {
  return t.batch;
}
// The rows of tile t that are stored: those below the problem's M.
BWGEMM_HD constexpr int32_t row_limit(const TileCoord& /*t*/, int32_t m) {
  return m;
}
// The 128-row block of an NVFP4 A's blocked scales that holds row `row` (a CTA's first row, a multiple of
// 128) of tile t.
BWGEMM_HD constexpr int32_t scale_block(const TileCoord& /*t*/, int32_t row) {
  return row / static_cast<int32_t>(grouped::kScaleRowAlign);
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

BWGEMM_HD constexpr int32_t first_row(const GroupedTileCoord& t, int32_t /*cluster_block_m*/) {
  return t.row;
}
BWGEMM_HD constexpr int32_t weight_batch(const GroupedTileCoord& t) {
  return t.expert;
}
BWGEMM_HD constexpr int32_t row_limit(const GroupedTileCoord& t, int32_t /*m*/) {
  return t.row_end;
}
// The expert's scale rows start at a 128-row block and its tiles' rows at multiples of the tile's rows
// inside it, so a CTA's first row is a whole block into them.
BWGEMM_HD constexpr int32_t scale_block(const GroupedTileCoord& t, int32_t row) {
  return t.scale_block + (row - t.expert_row) / static_cast<int32_t>(grouped::kScaleRowAlign);
}

// The expert's rows (its scales: the expert's own blocked buffer from its scale block).
BWGEMM_HD constexpr OutputRows output_rows(const GroupedTileCoord& t, int32_t /*m*/) {
  return OutputRows{t.expert_row, t.expert_row + t.rows, t.scale_block};
}

// The tiles of a grouped launch for one walking thread: the walk over the experts' device offsets or counts
// (every role of every CTA walks them alike, reading each value once, so all stop at the same id). The
// thread that reports (one per launch) ORs the walk's status bits into the status word at the end: every
// CTA reads every expert's value (finish()), so one report covers the launch.
class GroupedTileSource {
 public:
  using Tile = GroupedTileCoord;

  BWGEMM_DEVICE GroupedTileSource(const GroupedTokens& tokens, int32_t experts, int32_t block_m,
                                  int32_t n_tiles, uint32_t* status, bool reports)
      : walk_(tokens, experts, block_m, n_tiles),
        masked_(tokens.layout == GroupedLayout::kMasked),
        status_(reports ? status : nullptr) {}

  // The tile of id `id` (ids in increasing order), or false past the experts' tiles.
  BWGEMM_DEVICE bool at(int32_t id, GroupedTileCoord* t) {
    grouped::GroupedTile g;
    if (!walk_.seek(id, &g)) return false;
    t->n = static_cast<int32_t>(g.n_tile);
    t->expert = static_cast<int32_t>(g.expert);
    t->batch = masked_ ? t->expert : 0;
    t->row = static_cast<int32_t>(g.row_begin);
    t->row_end = static_cast<int32_t>(g.row_end);
    t->expert_row = static_cast<int32_t>(g.rows.begin);
    t->rows = static_cast<int32_t>(g.rows.rows());
    // Masked: the expert's scales are batch `expert` of the map (its blocks from 0); contiguous: its first
    // scale row's block of the one batch.
    t->scale_block = masked_ ? 0 : static_cast<int32_t>(g.rows.scale_row / grouped::kScaleRowAlign);
    return true;
  }

  // After the thread's last tile: the reporting thread reads the rest of the values and reports the bits.
  BWGEMM_DEVICE void finish() {
    if (status_ == nullptr) return;
    walk_.finish();
    if (walk_.status() != 0) ptx::red_global_or(status_, walk_.status());
  }

 private:
  grouped::BasicGroupedTileWalk<int32_t> walk_;
  bool masked_;
  uint32_t* status_;
};

}  // namespace bwgemm::sched
