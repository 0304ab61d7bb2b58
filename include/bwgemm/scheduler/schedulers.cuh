// Tile schedulers: which linear tile ids (see tile_order.cuh) a cluster computes, and how many clusters
// to launch. The first three share one interface so a kernel is written once (StreamK and StreamKRanges,
// below, walk K ranges of tiles instead):
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
// - StreamK: the data-parallel + stream-K hybrid with the last wave split evenly: whole waves of tiles
//   first, one tile per CTA at a time as StaticPersistent (all CTAs at the same K offset of neighbouring
//   tiles, so they share the operands' L2 lines), then each tile of the last, partial wave split into the
//   same `splits` K ranges over `splits` consecutive CTAs, as many as the idle CTAs allow (CUTLASS's stream-K
//   scheduler with its split-K decomposition for the last wave; Osama et al., "Stream-K: Work-centric
//   Parallel Decomposition for Dense Matrix-Matrix Multiplication on the GPU", 2023). The CTA of a tile's
//   first K range (its head) adds the others' partial sums to its own and stores the tile
//   (kernels/sm90/gemm_kernel.cuh). Why not stream-K proper (every CTA one contiguous range of the tiles' K
//   blocks laid end to end): measured 0.5-0.85x of the whole-wave kernels on the H200 (2026-12-02,
//   docs/data/h200_2026-12-02_paired_streamk_every_tile.json), its CTAs at staggered K offsets of tiles
//   spread over the problem shared no L2 lines and the kernel became bound by HBM; equal K ranges keep every
//   CTA of the split part at the same few K offsets.
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

  // Range r of n items split into `parts` as evenly as whole items allow (the first n % parts take one
  // more): [begin, end).
  struct Range {
    int32_t begin, end;
  };
  BWGEMM_HD static constexpr Range even_range(int32_t n, int32_t parts, int32_t r) {
    const int32_t base = n / parts, extra = n % parts;
    const int32_t begin = r * base + (r < extra ? r : extra);
    return {begin, begin + base + (r < extra ? 1 : 0)};
  }
  // One tile's K blocks [k_begin, k_end).
  struct Segment {
    int32_t tile, k_begin, k_end;
  };
  // The CTAs that hold a split tile's other K ranges: first .. last, in K order.
  struct Owners {
    int32_t first, last;
  };

  // A launch's work (host: plan): the first dp_tiles tiles whole, `ctas` at a time (tile t to CTA t % ctas),
  // then each of the other sk_tiles tiles split into sk_splits K ranges, tile dp_tiles + i's range j on CTA
  // i · sk_splits + j (sk_ctas = sk_tiles · sk_splits of them). Every CTA walks units, each named by the
  // iteration it starts at (tile · k_blocks + K block).
  struct Work {
    int32_t k_blocks = 1, ctas = 1, dp_tiles = 0, sk_tiles = 0, sk_splits = 0, sk_ctas = 0;
  };
  // The work of `tiles` tiles of k_blocks K blocks on `ctas` CTAs: whole waves; the tiles of a last,
  // partial wave split as many ways as the CTAs allow (ctas / those tiles) and as keep min_k_blocks K blocks
  // in each range; with fewer than 2 ways that wave runs whole (dp_tiles = tiles, no split part). The
  // caller checks that (tiles + ctas) · k_blocks fits in 32 bits.
  BWGEMM_HD static constexpr Work plan(int32_t tiles, int32_t k_blocks, int32_t ctas, int32_t min_k_blocks) {
    Work w;
    w.k_blocks = k_blocks, w.ctas = ctas;
    const int32_t whole = tiles / ctas * ctas, rest = tiles - whole;
    const int32_t by_ctas = rest > 0 ? ctas / rest : 0;
    const int32_t by_k = k_blocks / (min_k_blocks < 1 ? 1 : min_k_blocks);
    const int32_t splits = by_ctas < by_k ? by_ctas : by_k;
    if (splits < 2) {
      w.dp_tiles = tiles;
      return w;
    }
    w.dp_tiles = whole, w.sk_tiles = rest, w.sk_splits = splits, w.sk_ctas = rest * splits;
    return w;
  }
  // The CTAs a launch of this work needs: the whole waves' (at most ctas) or the split part's.
  BWGEMM_HD static constexpr int32_t grid(const Work& w) {
    const int32_t whole = w.dp_tiles < w.ctas ? w.dp_tiles : w.ctas;
    return whole > w.sk_ctas ? whole : w.sk_ctas;
  }
  // CTA cta's K range of the split part in iterations of the whole problem (empty for cta >= sk_ctas).
  BWGEMM_HD static constexpr Range sk_range(const Work& w, int32_t cta) {
    if (cta >= w.sk_ctas) return {0, 0};
    const int32_t tile = w.dp_tiles + cta / w.sk_splits;
    const Range r = even_range(w.k_blocks, w.sk_splits, cta % w.sk_splits);
    return {tile * w.k_blocks + r.begin, tile * w.k_blocks + r.end};
  }
  BWGEMM_HD static constexpr int32_t first_unit(const Work& w, int32_t cta, const Range& sk) {
    if (cta < w.dp_tiles) return cta * w.k_blocks;
    return sk.begin < sk.end ? sk.begin : kNoTile;
  }
  BWGEMM_HD static constexpr Segment unit_segment(const Work& w, const Range& sk, int32_t unit) {
    if (unit < w.dp_tiles * w.k_blocks) return {unit / w.k_blocks, 0, w.k_blocks};
    const int32_t tile = unit / w.k_blocks;
    return {tile, unit - tile * w.k_blocks, sk.end - tile * w.k_blocks};
  }
  BWGEMM_HD static constexpr int32_t next_unit(const Work& w, const Range& sk, int32_t unit) {
    const int32_t base = w.dp_tiles * w.k_blocks;
    if (unit < base) {
      const int32_t next = unit + w.ctas * w.k_blocks;  // < (tiles + ctas) · k_blocks: no overflow
      if (next < base) return next;
      return sk.begin < sk.end ? sk.begin : kNoTile;
    }
    return kNoTile;  // a split part's CTA has one range
  }
  // The CTAs that hold the other K ranges of head segment `seg`'s tile (seg.k_begin = 0, seg.k_end <
  // k_blocks): the next sk_splits - 1.
  BWGEMM_HD static constexpr Owners head_tail_owners(const Work& w, const Segment& seg) {
    const int32_t head = (seg.tile - w.dp_tiles) * w.sk_splits;
    return {head + 1, head + w.sk_splits - 1};
  }
};

// Stream-K proper, for the memory-bound small-M kernels (kernels/sm90/swap_ab_kernel.cuh): the tiles' K
// blocks laid end to end (unit u = tile · k_blocks + K block), CTA c of `ctas` taking the contiguous units
// StreamK::even_range(units, ctas, c), so every CTA streams the same number of K blocks (±1) whatever the
// tile count; a range crosses tile boundaries and its pieces of one tile are its segments. A tile split
// between CTAs has one head, the CTA holding its K block 0 (the head's last segment); the CTAs holding its
// later K blocks hold them as their first segment (each CTA hands off at most one), so the head finds their
// sums ready when it gets there, and adds them in K order (the same bits on every run). Why here and not in
// the tiled GEMM (StreamK's note: 0.5-0.85x there): a decode tile's weights are read by that tile alone (one
// M tile of tokens), so CTAs at staggered K offsets lose no L2 sharing; the token operand is a few MB and
// stays in L2. The caller checks units = tiles · k_blocks < 2^31 and 1 <= ctas <= units.
struct StreamKRanges {
  using Range = StreamK::Range;
  using Segment = StreamK::Segment;
  using Owners = StreamK::Owners;

  BWGEMM_HD static constexpr Range cta_range(int32_t units, int32_t ctas, int32_t cta) {
    return StreamK::even_range(units, ctas, cta);
  }
  // The segment of range r that starts at unit `unit` (a unit of r): its tile and K blocks, up to the end of
  // the tile or of r.
  BWGEMM_HD static constexpr Segment segment_at(int32_t unit, const Range& r, int32_t k_blocks) {
    const int32_t tile = unit / k_blocks, tile_begin = tile * k_blocks;
    const int32_t end = r.end - tile_begin < k_blocks ? r.end - tile_begin : k_blocks;
    return {tile, unit - tile_begin, end};
  }
  // The unit after segment s of r: the next tile's K block 0, or kNoTile at the end of r.
  BWGEMM_HD static constexpr int32_t next_unit(const Segment& s, const Range& r, int32_t k_blocks) {
    const int32_t next = s.tile * k_blocks + s.k_end;  // <= r.end: no overflow
    return next < r.end ? next : kNoTile;
  }
  // The CTA whose range holds unit u (the inverse of even_range: the first units % ctas CTAs hold one more).
  BWGEMM_HD static constexpr int32_t cta_of(int32_t units, int32_t ctas, int32_t u) {
    const int32_t base = units / ctas, extra = units % ctas;
    const int32_t big = extra * (base + 1);  // the units of the CTAs that hold one more
    return u < big ? u / (base + 1) : extra + (u - big) / base;
  }
  // Head segment s of CTA `cta` (s.k_begin = 0, s.k_end < k_blocks): the CTAs holding its tile's later K
  // blocks, cta + 1 .. the holder of the tile's last unit, in K order.
  BWGEMM_HD static constexpr Owners tail_owners(int32_t units, int32_t ctas, int32_t cta, const Segment& s,
                                                int32_t k_blocks) {
    return {cta + 1, cta_of(units, ctas, s.tile * k_blocks + k_blocks - 1)};
  }
};

}  // namespace bwgemm::sched
