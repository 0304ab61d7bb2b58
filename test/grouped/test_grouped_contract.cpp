// The device-metadata contract of the grouped operations (base/grouped.hpp): the rows each expert owns for
// valid and bad offsets and counts, the status bits, and where each expert's NVFP4 scales sit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "bwgemm/base/grouped.hpp"
#include "bwgemm/base/int_math.hpp"
#include "bwgemm/formats/scale_layout.cuh"

namespace {

using bwgemm::GroupedLayout;
using bwgemm::grouped::ExpertRows;
namespace grouped = bwgemm::grouped;

struct Range {
  int64_t begin, end;
  uint32_t status;
};

std::vector<ExpertRows> scan_all(const std::vector<int32_t>& offs, int64_t total) {
  grouped::ContiguousExpertScan scan(total);
  std::vector<ExpertRows> out;
  for (int32_t o : offs) out.push_back(scan.next(o));
  return out;
}

void expect_ranges(const std::vector<int32_t>& offs, int64_t total, const std::vector<Range>& want) {
  SCOPED_TRACE("total " + std::to_string(total));
  const std::vector<ExpertRows> got = scan_all(offs, total);
  ASSERT_EQ(got.size(), want.size());
  const bwgemm::GroupedTokens t = bwgemm::contiguous_tokens(total, offs.data());
  for (size_t e = 0; e < want.size(); ++e) {
    SCOPED_TRACE("expert " + std::to_string(e));
    EXPECT_EQ(got[e].begin, want[e].begin);
    EXPECT_EQ(got[e].end, want[e].end);
    EXPECT_EQ(got[e].status, want[e].status);
    const ExpertRows direct = grouped::expert_rows(t, static_cast<int64_t>(e));
    EXPECT_EQ(direct.begin, got[e].begin);
    EXPECT_EQ(direct.end, got[e].end);
    EXPECT_EQ(direct.scale_row, got[e].scale_row);
    EXPECT_EQ(direct.status, got[e].status);
  }
}

constexpr uint32_t kDec = grouped::kStatusOffsetDecreasing;
constexpr uint32_t kPast = grouped::kStatusOffsetPastTotal;

TEST(GroupedContract, ValidOffsetsAreTorchCumulativeEnds) {
  // offs = {3, 3, 10, 12}: rows [0,3), [3,3), [3,10), [10,12); rows 12..15 are no expert's.
  expect_ranges({3, 3, 10, 12}, 16, {{0, 3, 0}, {3, 3, 0}, {3, 10, 0}, {10, 12, 0}});
  expect_ranges({16}, 16, {{0, 16, 0}});
}

TEST(GroupedContract, ZeroTokenExpertsFirstMiddleLast) {
  expect_ranges({0, 5, 9}, 9, {{0, 0, 0}, {0, 5, 0}, {5, 9, 0}});  // first
  expect_ranges({4, 4, 9}, 9, {{0, 4, 0}, {4, 4, 0}, {4, 9, 0}});  // middle
  expect_ranges({4, 9, 9}, 9, {{0, 4, 0}, {4, 9, 0}, {9, 9, 0}});  // last
  expect_ranges({0, 0, 0}, 9, {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}});  // all
  const int32_t counts[] = {0, 3, 0, 0, 2, 0};                     // masked: first, middle, last
  for (int64_t e = 0; e < 6; ++e) {
    const ExpertRows r = grouped::masked_expert_rows(e, counts[e], 4);
    EXPECT_EQ(r.begin, 0);
    EXPECT_EQ(r.end, counts[e]);
    EXPECT_EQ(r.status, 0u);
  }
}

TEST(GroupedContract, DecreasingOffsetsEmptyTheExpertAndSetTheBit) {
  // Expert 1's end is below expert 0's: it owns nothing; expert 2 starts where expert 0 ended.
  expect_ranges({10, 5, 20}, 32, {{0, 10, 0}, {10, 10, kDec}, {10, 20, 0}});
  // An offset above the later one but below an earlier maximum: empty too.
  expect_ranges({10, 5, 7, 12}, 32, {{0, 10, 0}, {10, 10, kDec}, {10, 10, kDec}, {10, 12, 0}});
  // A negative first offset: below the implicit 0.
  expect_ranges({-3, 4}, 8, {{0, 0, kDec}, {0, 4, 0}});
}

TEST(GroupedContract, OffsetsPastTheTotalStopAtTheTotalAndSetTheBit) {
  expect_ranges({4, 40, 50}, 16, {{0, 4, 0}, {4, 16, kPast}, {16, 16, kPast}});
  expect_ranges({120, 110}, 100, {{0, 100, kPast}, {100, 100, kDec | kPast}});
  // int32 extremes: no overflow.
  const int32_t hi = std::numeric_limits<int32_t>::max(), lo = std::numeric_limits<int32_t>::min();
  expect_ranges({hi, lo, hi}, 64, {{0, 64, kPast}, {64, 64, kDec}, {64, 64, kPast}});
}

TEST(GroupedContract, MaskedCountsClampToTheSlab) {
  const int32_t hi = std::numeric_limits<int32_t>::max(), lo = std::numeric_limits<int32_t>::min();
  const struct {
    int32_t count;
    int64_t rows;
    uint32_t status;
  } cases[] = {
      {-1, 0, grouped::kStatusCountNegative}, {lo, 0, grouped::kStatusCountNegative}, {0, 0, 0}, {8, 8, 0},
      {9, 8, grouped::kStatusCountAboveMax},  {hi, 8, grouped::kStatusCountAboveMax}};
  for (const auto& c : cases) {
    const ExpertRows r = grouped::masked_expert_rows(3, c.count, 8);
    EXPECT_EQ(r.rows(), c.rows) << c.count;
    EXPECT_EQ(r.begin, 0);
    EXPECT_EQ(r.status, c.status) << c.count;
    EXPECT_EQ(r.scale_row, 3 * 128);  // batch 3 of a blocked buffer of 8 rows
  }
  const int32_t counts[] = {2, -5, 300};
  const bwgemm::GroupedTokens t = bwgemm::masked_tokens(200, counts);
  EXPECT_EQ(grouped::expert_rows(t, 2).rows(), 200);
  EXPECT_EQ(grouped::expert_rows(t, 2).scale_row, 2 * 256);
  EXPECT_EQ(grouped::expert_rows(t, 1).status, grouped::kStatusCountNegative);
}

// Random offsets, valid and not: the ranges are disjoint, in expert order, inside [0, total), and follow
// the prefix-maximum rule; valid offsets give exactly [offs[e-1], offs[e]).
TEST(GroupedContract, RandomOffsetsStayInsideTheBuffer) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 2000; ++iter) {
    const int64_t experts = 1 + rng() % 40, total = 1 + rng() % 300;
    const bool valid = iter % 2 == 0;
    std::vector<int32_t> offs(static_cast<size_t>(experts));
    if (valid) {
      for (auto& o : offs) o = static_cast<int32_t>(rng() % (total + 1));
      std::sort(offs.begin(), offs.end());
    } else {
      for (auto& o : offs) o = static_cast<int32_t>(static_cast<int64_t>(rng() % (2 * total + 40)) - 20);
    }
    const std::vector<ExpertRows> got = scan_all(offs, total);
    int64_t high = 0, previous_end = 0, scale_row = 0;
    uint32_t status = 0;
    for (int64_t e = 0; e < experts; ++e) {
      const int64_t o = offs[static_cast<size_t>(e)];
      const ExpertRows& r = got[static_cast<size_t>(e)];
      ASSERT_EQ(r.begin, previous_end);
      ASSERT_LE(r.begin, r.end);
      ASSERT_LE(r.end, total);
      ASSERT_GE(r.begin, 0);
      ASSERT_EQ(r.end, std::min(std::max(high, o), total));
      ASSERT_EQ(r.status, (o < high ? kDec : 0u) | (o > total ? kPast : 0u));
      ASSERT_EQ(r.scale_row, scale_row);
      if (valid) {
        ASSERT_EQ(r.begin, e == 0 ? 0 : offs[static_cast<size_t>(e - 1)]);
        ASSERT_EQ(r.end, o);
        ASSERT_EQ(r.status, 0u);
      }
      high = std::max(high, o);
      previous_end = r.end;
      scale_row += bwgemm::round_up(r.rows(), 128);
      status |= r.status;
    }
    // Every expert's scale rows fit the buffer sized for the worst case.
    ASSERT_LE(scale_row, grouped::grouped_scale_rows(total, experts));
    if (valid) {
      ASSERT_EQ(status, 0u);
    }
  }
}

TEST(GroupedContract, ScaleBufferRows) {
  EXPECT_EQ(grouped::grouped_scale_rows(1, 1), 128);
  EXPECT_EQ(grouped::grouped_scale_rows(128, 1), 256);  // round_up(128 + 127, 128)
  EXPECT_EQ(grouped::grouped_scale_rows(300, 4), 896);  // round_up(808, 128)
  // The worst case is reached: every expert one row past a multiple of 128 needs all of it (E experts of
  // 129 rows: E * 256 rows <= round_up(129 E + 127 E, 128) = 256 E).
  for (int64_t experts : {1, 3, 32}) {
    grouped::ContiguousExpertScan scan(129 * experts);
    ExpertRows r;
    for (int64_t e = 0; e < experts; ++e) r = scan.next(static_cast<int32_t>(129 * (e + 1)));
    EXPECT_EQ(r.scale_row + bwgemm::round_up(r.rows(), 128),
              grouped::grouped_scale_rows(129 * experts, experts));
  }
}

// From its scale row on, an expert's scales are a blocked buffer of its own: the byte of its (r, j) in the
// whole buffer's layout is scale_byte_offset(scale_row) + its byte in a buffer of its rows alone; in the
// masked layout, batch e's.
TEST(GroupedContract, EachExpertsScalesAreABlockedBufferOfItsOwn) {
  for (int64_t sf_cols : {1, 4, 6, 8, 448}) {
    const std::vector<int64_t> rows = {1, 127, 128, 129, 300, 0, 5};
    const int64_t total = 1 + 127 + 128 + 129 + 300 + 5;
    const int64_t capacity = grouped::grouped_scale_rows(total, static_cast<int64_t>(rows.size()));
    grouped::ContiguousExpertScan scan(total);
    int64_t end = 0;
    for (int64_t m : rows) {
      end += m;
      const ExpertRows r = scan.next(static_cast<int32_t>(end));
      ASSERT_EQ(r.rows(), m);
      ASSERT_EQ(r.scale_row % 128, 0);
      const int64_t base = grouped::scale_byte_offset(r.scale_row, sf_cols);
      for (int64_t i = 0; i < m; i += 7)
        for (int64_t j = 0; j < sf_cols; j += 3)
          ASSERT_EQ(bwgemm::blocked_scale_offset(r.scale_row + i, j, 0, capacity, sf_cols),
                    base + bwgemm::blocked_scale_offset(i, j, 0, m, sf_cols));
      ASSERT_LE(base + bwgemm::blocked_scale_bytes(m, sf_cols),
                bwgemm::blocked_scale_bytes(capacity, sf_cols));
    }
    for (int64_t max_tokens : {1, 128, 200}) {
      for (int64_t e = 0; e < 5; ++e) {
        const ExpertRows r = grouped::masked_expert_rows(e, static_cast<int32_t>(max_tokens), max_tokens);
        const int64_t base = grouped::scale_byte_offset(r.scale_row, sf_cols);
        ASSERT_EQ(base, e * bwgemm::blocked_scale_bytes(max_tokens, sf_cols));
        for (int64_t i = 0; i < max_tokens; i += 11)
          for (int64_t j = 0; j < sf_cols; j += 5)
            ASSERT_EQ(bwgemm::blocked_scale_offset(i, j, e, max_tokens, sf_cols),
                      base + bwgemm::blocked_scale_offset(i, j, 0, max_tokens, sf_cols));
      }
    }
  }
}

TEST(GroupedContract, StatusWordInWords) {
  EXPECT_EQ(grouped::describe_status(0), "no bad offset or count");
  EXPECT_EQ(grouped::describe_status(grouped::kStatusOffsetPastTotal), "offsets past total_tokens");
  const std::string both =
      grouped::describe_status(grouped::kStatusCountNegative | grouped::kStatusCountAboveMax);
  EXPECT_EQ(both, "negative counts; counts above max_tokens");
  EXPECT_NE(grouped::describe_status(1u << 7).find("unknown bits"), std::string::npos);
  EXPECT_EQ(grouped::kStatusAllBits, 0xFu);
}

// The contract is constexpr (the kernels evaluate it on the device, the tests at compile time too).
constexpr int32_t kOffsets[] = {10, 5, 20};
static_assert(grouped::expert_rows(bwgemm::contiguous_tokens(15, kOffsets), 2).begin == 10);
static_assert(grouped::expert_rows(bwgemm::contiguous_tokens(15, kOffsets), 2).end == 15);
static_assert(grouped::expert_rows(bwgemm::contiguous_tokens(15, kOffsets), 2).status == kPast);
static_assert(grouped::expert_rows(bwgemm::contiguous_tokens(15, kOffsets), 2).scale_row == 128);

}  // namespace

namespace {

// ---- the tile walk (GroupedTileWalk) ----------------------------------------------------------------------

// Every tile of a fresh walk from index 0 until it ends.
std::vector<grouped::GroupedTile> all_tiles(const bwgemm::GroupedTokens& t, int64_t experts, int64_t block_m,
                                            int64_t n_tiles) {
  grouped::GroupedTileWalk walk(t, experts, block_m, n_tiles);
  std::vector<grouped::GroupedTile> out;
  grouped::GroupedTile tile;
  while (walk.seek(static_cast<int64_t>(out.size()), &tile)) out.push_back(tile);
  return out;
}

// The walk over random metadata, valid and not, both layouts: every row each expert owns (expert_rows) is in
// exactly one row tile per column tile, no tile crosses its expert's rows or holds more than block_m rows,
// the tiles run expert by expert, and the walk's status is the OR of the experts' bits. A strided walk (the
// tiles a persistent CTA takes) gives the same tiles as the fresh one.
TEST(GroupedTileWalk, CoversEachExpertsRowsOncePerColumnTile) {
  std::mt19937 rng(11);
  for (int iter = 0; iter < 600; ++iter) {
    const bool masked = iter % 2 == 1, valid = iter % 3 != 0;
    const int64_t experts = 1 + rng() % 16, block_m = int64_t{16} << (rng() % 4), n_tiles = 1 + rng() % 3;
    const int64_t total = rng() % 700, max_tokens = rng() % 300;
    std::vector<int32_t> values(static_cast<size_t>(experts));
    for (auto& v : values) {
      const int64_t span = masked ? max_tokens : total;
      v = static_cast<int32_t>(valid ? static_cast<int64_t>(rng() % (span + 1))
                                     : static_cast<int64_t>(rng() % (2 * span + 41)) - 20);
      if (rng() % 4 == 0) v = valid && !masked ? v : 0;  // zero-token experts
    }
    if (!masked && valid) std::sort(values.begin(), values.end());
    const bwgemm::GroupedTokens t = masked ? bwgemm::masked_tokens(max_tokens, values.data())
                                           : bwgemm::contiguous_tokens(total, values.data());
    SCOPED_TRACE("iteration " + std::to_string(iter));
    const std::vector<grouped::GroupedTile> tiles = all_tiles(t, experts, block_m, n_tiles);

    uint32_t status = 0;
    size_t next = 0;
    for (int64_t e = 0; e < experts; ++e) {
      const ExpertRows r = grouped::expert_rows(t, e);
      status |= r.status;
      for (int64_t row = r.begin; row < r.end; row += block_m)
        for (int64_t n = 0; n < n_tiles; ++n, ++next) {
          ASSERT_LT(next, tiles.size());
          const grouped::GroupedTile& g = tiles[next];
          ASSERT_EQ(g.expert, e);
          ASSERT_EQ(g.row_begin, row);
          ASSERT_EQ(g.row_end, std::min(row + block_m, r.end));
          ASSERT_EQ(g.n_tile, n);
          ASSERT_EQ(g.rows.scale_row, r.scale_row);
        }
    }
    ASSERT_EQ(next, tiles.size());  // no tile beyond the experts' rows (and none for an empty expert)

    grouped::GroupedTileWalk full(t, experts, block_m, n_tiles);
    grouped::GroupedTile probe;
    EXPECT_FALSE(full.seek(static_cast<int64_t>(tiles.size()), &probe));
    EXPECT_EQ(full.status(), status);

    const int64_t grid = 1 + rng() % 7;
    for (int64_t cta = 0; cta < grid; ++cta) {
      grouped::GroupedTileWalk walk(t, experts, block_m, n_tiles);
      // The kernels' form: 32-bit tile arithmetic, the values read 8 at a time.
      grouped::BasicGroupedTileWalk<int32_t, 8> kernel_walk(t, experts, static_cast<int32_t>(block_m),
                                                            static_cast<int32_t>(n_tiles));
      grouped::GroupedTile g, k;
      int64_t index = cta;
      for (; walk.seek(index, &g); index += grid) {
        const grouped::GroupedTile& want = tiles[static_cast<size_t>(index)];
        ASSERT_EQ(g.expert, want.expert);
        ASSERT_EQ(g.row_begin, want.row_begin);
        ASSERT_EQ(g.row_end, want.row_end);
        ASSERT_EQ(g.n_tile, want.n_tile);
        ASSERT_TRUE(kernel_walk.seek(static_cast<int32_t>(index), &k));
        ASSERT_EQ(k.expert, want.expert);
        ASSERT_EQ(k.row_begin, want.row_begin);
        ASSERT_EQ(k.row_end, want.row_end);
        ASSERT_EQ(k.n_tile, want.n_tile);
        ASSERT_EQ(k.rows.scale_row, want.rows.scale_row);
      }
      ASSERT_GE(index, static_cast<int64_t>(tiles.size()));
      ASSERT_FALSE(kernel_walk.seek(static_cast<int32_t>(index), &k));
      kernel_walk.finish();  // every expert read: the launch's status bits
      EXPECT_EQ(kernel_walk.status(), status);
    }
  }
}

TEST(GroupedTileWalk, ZeroTokenExpertsAndNoTiles) {
  // Experts 0, 2 and 4 have no rows: the tiles are expert 1's two row tiles and expert 3's one.
  const std::vector<int32_t> offs = {0, 100, 100, 130, 130};
  const bwgemm::GroupedTokens t = bwgemm::contiguous_tokens(130, offs.data());
  const std::vector<grouped::GroupedTile> tiles = all_tiles(t, 5, 64, 1);
  ASSERT_EQ(tiles.size(), 3u);
  EXPECT_EQ(tiles[0].expert, 1);
  EXPECT_EQ(tiles[0].row_begin, 0);
  EXPECT_EQ(tiles[0].row_end, 64);
  EXPECT_EQ(tiles[1].row_end, 100);
  EXPECT_EQ(tiles[2].expert, 3);
  EXPECT_EQ(tiles[2].row_begin, 100);
  EXPECT_EQ(tiles[2].row_end, 130);
  // No rows at all, and a walk with no column tiles: no tile.
  const std::vector<int32_t> none = {0, 0, 0};
  EXPECT_TRUE(all_tiles(bwgemm::contiguous_tokens(64, none.data()), 3, 64, 2).empty());
  EXPECT_TRUE(all_tiles(bwgemm::masked_tokens(64, none.data()), 3, 64, 2).empty());
  EXPECT_TRUE(all_tiles(t, 5, 64, 0).empty());
}

TEST(GroupedTileWalk, BadValuesStayInsideAndSetTheBits) {
  // Contiguous: 40, then 20 (decreasing: empty), then 500 past the total of 100 (ends at 100).
  const std::vector<int32_t> offs = {40, 20, 500};
  grouped::GroupedTileWalk walk(bwgemm::contiguous_tokens(100, offs.data()), 3, 32, 1);
  grouped::GroupedTile g;
  int64_t index = 0, last_row = 0;
  while (walk.seek(index, &g)) {
    EXPECT_GE(g.row_begin, 0);
    EXPECT_LE(g.row_end, 100);
    EXPECT_NE(g.expert, 1);
    last_row = g.row_end;
    ++index;
  }
  EXPECT_EQ(index, 2 + 2);  // expert 0: 40 rows in 2 tiles; expert 2: rows 40..100 in 2
  EXPECT_EQ(last_row, 100);
  EXPECT_EQ(walk.status(), grouped::kStatusOffsetDecreasing | grouped::kStatusOffsetPastTotal);
  // Masked: a negative count and one above max_tokens.
  const std::vector<int32_t> counts = {-5, 1000, 10};
  grouped::GroupedTileWalk masked(bwgemm::masked_tokens(64, counts.data()), 3, 32, 1);
  index = 0;
  while (masked.seek(index, &g)) {
    EXPECT_NE(g.expert, 0);
    EXPECT_LE(g.row_end, 64);
    ++index;
  }
  EXPECT_EQ(index, 2 + 1);
  EXPECT_EQ(masked.status(), grouped::kStatusCountNegative | grouped::kStatusCountAboveMax);
}

}  // namespace
