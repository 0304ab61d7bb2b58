// bench/paired.cpp without a GPU: the paired mode's round order and ratio statistics, on synthetic samples.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <stdexcept>
#include <vector>

#include "paired.hpp"

namespace {

using namespace bwgemm::bench;

using Order = std::function<std::vector<int>(int round, int sides)>;

// Samples as time_interleaved takes them: round by round, each side in `order`, one sample after another on
// one clock. Sample number t of the run (counting every side's) takes true_us[side] * (1 + drift * t): the
// GPU clock drifting linearly over the run.
std::vector<std::vector<double>> drifting_samples(const std::vector<double>& true_us, int rounds,
                                                  double drift, const Order& order) {
  std::vector<std::vector<double>> samples(true_us.size());
  int t = 0;
  for (int round = 0; round < rounds; ++round) {
    for (int side : order(round, static_cast<int>(true_us.size()))) {
      samples[static_cast<size_t>(side)].push_back(true_us[static_cast<size_t>(side)] * (1 + drift * t));
      ++t;
    }
  }
  return samples;
}

PairedStats stats_of(const std::vector<std::vector<double>>& samples) {
  return paired_stats(samples[0], std::vector<std::vector<double>>(samples.begin() + 1, samples.end()));
}

TEST(BenchPaired, MedianOfOddAndEvenCounts) {
  EXPECT_EQ(median_of({3.0, 1.0, 2.0}), 2.0);
  EXPECT_EQ(median_of({4.0, 1.0, 3.0, 2.0}), 2.5);  // the mean of the middle two
  EXPECT_EQ(median_of({7.0}), 7.0);
  EXPECT_EQ(median_of({5.0, 1.0}), 3.0);
  EXPECT_THROW(median_of({}), std::invalid_argument);
}

TEST(BenchPaired, OrderReversesEveryRound) {
  EXPECT_EQ(round_order(0, 2), (std::vector<int>{0, 1}));
  EXPECT_EQ(round_order(1, 2), (std::vector<int>{1, 0}));
  EXPECT_EQ(round_order(2, 2), (std::vector<int>{0, 1}));
  EXPECT_EQ(round_order(3, 2), (std::vector<int>{1, 0}));
  EXPECT_EQ(round_order(0, 3), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(round_order(1, 3), (std::vector<int>{2, 1, 0}));
  EXPECT_EQ(round_order(5, 1), (std::vector<int>{0}));  // time_launches: one side
  // Over a period every side runs once per round and the implementation (side 0) runs before and after each
  // baseline equally often.
  for (int sides = 2; sides <= 4; ++sides) {
    for (int b = 1; b < sides; ++b) {
      int before = 0;
      for (int round = 0; round < kPairedOrderPeriod; ++round) {
        const std::vector<int> order = round_order(round, sides);
        ASSERT_EQ(static_cast<int>(order.size()), sides);
        int pos0 = -1, posb = -1;
        for (int i = 0; i < sides; ++i) {
          if (order[static_cast<size_t>(i)] == 0) pos0 = i;
          if (order[static_cast<size_t>(i)] == b) posb = i;
        }
        before += pos0 < posb ? 1 : -1;
      }
      EXPECT_EQ(before, 0) << sides << " sides, baseline " << b;
    }
  }
  EXPECT_THROW(round_order(0, 0), std::invalid_argument);
  EXPECT_THROW(round_order(-1, 2), std::invalid_argument);
}

TEST(BenchPaired, RoundsAreWholePeriods) {
  EXPECT_EQ(paired_rounds(1), 2);
  EXPECT_EQ(paired_rounds(50), 50);
  EXPECT_EQ(paired_rounds(51), 52);
  EXPECT_THROW(paired_rounds(0), std::invalid_argument);
}

TEST(BenchPaired, LinearDriftCancelsInRatio) {
  // 10% drift over the run, as the H200's clock moves between two benchmarks run seconds apart.
  constexpr int kRounds = 50;
  for (const std::vector<double>& true_us :
       {std::vector<double>{100.0, 125.0}, std::vector<double>{100.0, 125.0, 140.0}}) {
    const double drift = 0.10 / (kRounds * static_cast<double>(true_us.size()));
    const double want = true_us[1] / true_us[0];  // the fastest baseline is side 1
    const PairedStats paired = stats_of(drifting_samples(true_us, kRounds, drift, round_order));
    EXPECT_EQ(paired.best_baseline, 0);
    EXPECT_NEAR(paired.ratio / want - 1, 0.0, 1e-5) << true_us.size() << " sides";
    // The control: the same rounds in one fixed order keep a bias of about one sample's drift, and timing
    // the sides one after another (as separate benchmarks do) carries the run's drift into the medians.
    const Order fixed = [](int, int sides) { return round_order(0, sides); };
    const PairedStats unpaired = stats_of(drifting_samples(true_us, kRounds, drift, fixed));
    EXPECT_GT(std::fabs(unpaired.ratio / want - 1), 5e-4);
    std::vector<std::vector<double>> separate(true_us.size());
    for (size_t side = 0; side < true_us.size(); ++side) {
      for (int r = 0; r < kRounds; ++r)
        separate[side].push_back(true_us[side] * (1 + drift * static_cast<double>(side * kRounds + r)));
    }
    EXPECT_GT(stats_of(separate).ratio_of_medians / want - 1, 0.02);
  }
}

TEST(BenchPaired, FastestBaselineByMedianGivesTheRatio) {
  const std::vector<double> impl{10, 10, 10, 10};
  // Baseline 1 has the lower median (12 against 13) although its worst round is the slowest of all.
  const std::vector<std::vector<double>> baselines{{13, 13, 13, 11}, {12, 12, 20, 12}};
  const PairedStats stats = paired_stats(impl, baselines);
  EXPECT_EQ(stats.best_baseline, 1);
  EXPECT_DOUBLE_EQ(stats.us, 10.0);
  EXPECT_DOUBLE_EQ(stats.baseline_us, 12.0);
  EXPECT_DOUBLE_EQ(stats.ratio, 1.2);             // median of 1.2, 1.2, 2.0, 1.2
  EXPECT_DOUBLE_EQ(stats.ratio_of_medians, 1.2);  // 12 / 10
  EXPECT_DOUBLE_EQ(stats.ratio_min, 1.2);
  EXPECT_DOUBLE_EQ(stats.ratio_max, 2.0);
  ASSERT_EQ(stats.baseline_medians.size(), 2u);
  EXPECT_DOUBLE_EQ(stats.baseline_medians[0], 13.0);
  // The per-round ratio is not the ratio of medians: rounds where both sides were slow pair up.
  const PairedStats drifted = paired_stats({10, 20, 10, 20}, {{11, 22, 11, 22}});
  EXPECT_DOUBLE_EQ(drifted.ratio, 1.1);
  EXPECT_DOUBLE_EQ(drifted.ratio_of_medians, 16.5 / 15.0);
}

TEST(BenchPaired, RefusesBadInput) {
  EXPECT_THROW(paired_stats({}, {{}}), std::invalid_argument);
  EXPECT_THROW(paired_stats({1.0}, {}), std::invalid_argument);
  EXPECT_THROW(paired_stats({1.0, 2.0}, {{1.0}}), std::invalid_argument);
  EXPECT_THROW(paired_stats({1.0}, {{0.0}}), std::invalid_argument);
  EXPECT_THROW(paired_stats({-1.0}, {{1.0}}), std::invalid_argument);
  EXPECT_THROW(paired_stats({NAN}, {{1.0}}), std::invalid_argument);
}

}  // namespace
