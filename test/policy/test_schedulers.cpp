// Tile order and the schedulers' tile coverage: for every grid and cluster count, the tiles the
// clusters visit are exactly the tiles of the grid, each once.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "bwgemm/scheduler/schedulers.cuh"

namespace {

using bwgemm::sched::kNoTile;
using bwgemm::sched::TileGrid;

TEST(TileOrder, IsABijectionAndGroupsConsecutiveMTiles) {
  for (int32_t group_m : {1, 2, 3, 8}) {
    const TileGrid g{7, 5, 2, group_m};
    std::set<std::tuple<int, int, int>> seen;
    for (int32_t id = 0; id < g.total(); ++id) {
      const auto t = g.tile_at(id);
      ASSERT_GE(t.m, 0);
      ASSERT_LT(t.m, 7);
      ASSERT_GE(t.n, 0);
      ASSERT_LT(t.n, 5);
      ASSERT_EQ(t.batch, id / 35);
      ASSERT_TRUE(seen.insert({t.m, t.n, t.batch}).second) << "tile visited twice, id " << id;
      if (id % 35 > 0) {  // M moves fastest: a step to the next M tile keeps the N tile
        const auto prev = g.tile_at(id - 1);
        if (t.m == prev.m + 1 && t.m / group_m == prev.m / group_m) {
          EXPECT_EQ(prev.n, t.n) << "id " << id;
        }
      }
    }
    EXPECT_EQ(static_cast<int32_t>(seen.size()), g.total());
  }
  // group_m = 1: groups of one M tile, N advancing inside: plain row-major order.
  const TileGrid rm{3, 4, 1, 1};
  for (int32_t id = 0; id < 12; ++id) {
    EXPECT_EQ(rm.tile_at(id).m, id / 4);
    EXPECT_EQ(rm.tile_at(id).n, id % 4);
  }
  // group_m = 2 on a 4x3 grid: (0,0) (1,0) (0,1) (1,1) (0,2) (1,2) (2,0) (3,0) ...
  const TileGrid grouped{4, 3, 1, 2};
  const int want[][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 2}, {1, 2}, {2, 0}, {3, 0}, {2, 1}};
  for (int id = 0; id < 9; ++id) {
    EXPECT_EQ(grouped.tile_at(id).m, want[id][0]) << id;
    EXPECT_EQ(grouped.tile_at(id).n, want[id][1]) << id;
  }
}

template <class S>
std::vector<int> visits(int32_t total, int32_t clusters) {
  std::vector<int> count(static_cast<size_t>(total), 0);
  for (int32_t c = 0; c < clusters; ++c)
    for (int32_t t = S::first_tile(c, clusters, total); t != kNoTile; t = S::next_tile(t, clusters, total))
      ++count[static_cast<size_t>(t)];
  return count;
}

TEST(Schedulers, StaticPersistentCoversEveryTileOnce) {
  for (int32_t total : {1, 7, 74, 148, 1000})
    for (int64_t resident : {1, 3, 74, 148, 2000}) {
      const TileGrid g{total, 1, 1, 1};
      const auto clusters = static_cast<int32_t>(bwgemm::sched::StaticPersistent::grid_clusters(g, resident));
      EXPECT_EQ(clusters, std::min<int64_t>(total, resident));
      for (int c : visits<bwgemm::sched::StaticPersistent>(total, clusters)) ASSERT_EQ(c, 1);
    }
}

TEST(Schedulers, OneTilePerClusterCoversEveryTileOnce) {
  const TileGrid g{9, 4, 2, 1};
  const auto clusters = static_cast<int32_t>(bwgemm::sched::OneTilePerCluster::grid_clusters(g, 10));
  EXPECT_EQ(clusters, 72);
  for (int c : visits<bwgemm::sched::OneTilePerCluster>(g.total(), clusters)) ASSERT_EQ(c, 1);
}

TEST(Schedulers, ClcLaunchesOneClusterPerTileAndDecodesCancelledClusters) {
  const TileGrid g{9, 4, 1, 1};
  EXPECT_EQ(bwgemm::sched::ClcWorkStealing::grid_clusters(g, 10), 36);
  EXPECT_EQ(bwgemm::sched::ClcWorkStealing::first_tile(5, 36, 36), 5);
  EXPECT_EQ(bwgemm::sched::ClcWorkStealing::first_tile(36, 36, 36), kNoTile);
  // 2-CTA clusters along x: CTAs 2c and 2c+1 form cluster c.
  EXPECT_EQ(bwgemm::sched::ClcWorkStealing::tile_of_cancelled(14, 2), 7);
  EXPECT_EQ(bwgemm::sched::ClcWorkStealing::tile_of_cancelled(14, 1), 14);
}

// Stream-K proper (sched::StreamKRanges), walked as the swap-AB kernel walks it: every CTA's segments cover
// its range in order, every unit once overall; only a CTA's first segment hands off (k_begin > 0) and only
// its last one is a head with later K blocks elsewhere; each head's tail_owners are exactly the CTAs that
// handed off a segment of its tile, in K order, so every hand-off is taken by one head.
TEST(Schedulers, StreamKRangesCoverEveryUnitOnceAndPairHandOffsWithHeads) {
  using SKR = bwgemm::sched::StreamKRanges;
  for (int32_t tiles : {1, 2, 7, 64, 160, 448})
    for (int32_t k_blocks : {1, 2, 9, 64, 128})
      for (int32_t want : {1, 2, 5, 11, 63, 132}) {
        const int32_t units = tiles * k_blocks;
        const int32_t ctas = want < units ? want : units;
        SCOPED_TRACE(std::to_string(tiles) + " tiles, " + std::to_string(k_blocks) + " K blocks, " +
                     std::to_string(ctas) + " CTAs");
        std::vector<int> covered(static_cast<size_t>(units), 0);
        std::vector<int32_t> handed_off(static_cast<size_t>(ctas), -1);  // the tile CTA c handed off
        std::vector<int> taken(static_cast<size_t>(ctas), 0);
        std::vector<std::pair<int32_t, SKR::Owners>> heads;  // tile, owners
        for (int32_t c = 0; c < ctas; ++c) {
          const SKR::Range r = SKR::cta_range(units, ctas, c);
          ASSERT_LT(r.begin, r.end);
          int32_t next = r.begin, segments = 0;
          for (int32_t u = r.begin; u != kNoTile;
               u = SKR::next_unit(SKR::segment_at(u, r, k_blocks), r, k_blocks)) {
            const SKR::Segment s = SKR::segment_at(u, r, k_blocks);
            ASSERT_EQ(s.tile * k_blocks + s.k_begin, next);
            ASSERT_LT(s.k_begin, s.k_end);
            ASSERT_LE(s.k_end, k_blocks);
            for (int32_t k = s.k_begin; k < s.k_end; ++k)
              ++covered[static_cast<size_t>(s.tile * k_blocks + k)];
            next = s.tile * k_blocks + s.k_end;
            if (s.k_begin > 0) {
              ASSERT_EQ(segments, 0) << "only a CTA's first segment hands off";
              handed_off[static_cast<size_t>(c)] = s.tile;
            } else if (s.k_end < k_blocks) {
              ASSERT_EQ(next, r.end) << "a head with later K blocks elsewhere is the CTA's last segment";
              heads.push_back({s.tile, SKR::tail_owners(units, ctas, c, s, k_blocks)});
              ASSERT_EQ(heads.back().second.first, c + 1);
            }
            ++segments;
          }
          ASSERT_EQ(next, r.end);
          for (int32_t u = r.begin; u < r.end; ++u) ASSERT_EQ(SKR::cta_of(units, ctas, u), c);
        }
        for (int v : covered) ASSERT_EQ(v, 1);
        for (const auto& [tile, owners] : heads) {
          ASSERT_LE(owners.first, owners.last);
          for (int32_t c = owners.first; c <= owners.last; ++c) {
            ASSERT_EQ(handed_off[static_cast<size_t>(c)], tile) << "CTA " << c;
            ++taken[static_cast<size_t>(c)];
          }
        }
        for (int32_t c = 0; c < ctas; ++c)
          ASSERT_EQ(taken[static_cast<size_t>(c)], handed_off[static_cast<size_t>(c)] >= 0 ? 1 : 0)
              << "CTA " << c;
      }
}

// FastDivmod against division: every divisor up to 4096 with numerators at and around each multiple's edges
// and 2^31 - 1; then large divisors.
TEST(FastDivmod, EqualsDivisionForEveryNonNegativeInt32) {
  const int32_t kMax = 2147483647;
  for (uint32_t d = 1; d <= 4096; ++d) {
    const bwgemm::sched::FastDivmod f(d);
    const int32_t di = static_cast<int32_t>(d);
    for (int32_t n :
         {0, 1, di - 1, di, di + 1, 2 * di - 1, 2 * di, 12345 * di + 7, kMax - di, kMax - 1, kMax}) {
      if (n < 0) continue;
      int32_t q = 0, r = 0;
      f.divmod(n, q, r);
      ASSERT_EQ(q, n / di) << n << " / " << d;
      ASSERT_EQ(r, n % di) << n << " % " << d;
    }
  }
  uint64_t state = 7;
  for (int i = 0; i < 200000; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const uint32_t d = 1u + static_cast<uint32_t>(state >> 33) % 0x7FFFFFFFu;
    const int32_t n = static_cast<int32_t>((state >> 1) & 0x7FFFFFFFu);
    const bwgemm::sched::FastDivmod f(d);
    ASSERT_EQ(f.div(n), static_cast<int32_t>(static_cast<uint32_t>(n) / d)) << n << " / " << d;
  }
}

// FastTileGrid visits the same tiles in the same order as TileGrid (the kernels' tile coordinates).
TEST(FastDivmod, FastTileGridMatchesTileGrid) {
  for (int32_t tm : {1, 2, 7, 8, 9, 31, 64})
    for (int32_t tn : {1, 3, 16, 40})
      for (int32_t b : {1, 3})
        for (int32_t gm : {1, 2, 3, 8}) {
          const TileGrid g{tm, tn, b, gm};
          const bwgemm::sched::FastTileGrid f(g);
          ASSERT_EQ(f.total(), g.total());
          for (int32_t id = 0; id < g.total(); ++id) {
            const auto a = g.tile_at(id), c = f.tile_at(id);
            ASSERT_EQ(c.m, a.m) << tm << "x" << tn << "x" << b << " group " << gm << " id " << id;
            ASSERT_EQ(c.n, a.n) << tm << "x" << tn << "x" << b << " group " << gm << " id " << id;
            ASSERT_EQ(c.batch, a.batch) << tm << "x" << tn << "x" << b << " group " << gm << " id " << id;
          }
        }
}

}  // namespace
