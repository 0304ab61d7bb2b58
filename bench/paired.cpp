#include "paired.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace bwgemm::bench {

double median_of(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("median_of: no values");
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
  return 0.5 * (lower + upper);
}

int paired_rounds(int samples) {
  if (samples < 1) throw std::invalid_argument("paired_rounds: samples must be >= 1");
  return (samples + kPairedOrderPeriod - 1) / kPairedOrderPeriod * kPairedOrderPeriod;
}

std::vector<int> round_order(int round, int sides) {
  if (sides < 1) throw std::invalid_argument("round_order: sides must be >= 1");
  if (round < 0) throw std::invalid_argument("round_order: round must be >= 0");
  std::vector<int> order(static_cast<size_t>(sides));
  for (int i = 0; i < sides; ++i)
    order[static_cast<size_t>(i)] = round % kPairedOrderPeriod == 0 ? i : sides - 1 - i;
  return order;
}

namespace {

void check_times(const std::vector<double>& times, size_t rounds, const std::string& what) {
  if (times.size() != rounds) {
    throw std::invalid_argument("paired_stats: " + what + " has " + std::to_string(times.size()) +
                                " samples, the implementation " + std::to_string(rounds));
  }
  for (double t : times) {
    if (!(std::isfinite(t) && t > 0))
      throw std::invalid_argument("paired_stats: " + what + ": a time is not > 0");
  }
}

}  // namespace

PairedStats paired_stats(const std::vector<double>& implementation,
                         const std::vector<std::vector<double>>& baselines) {
  if (implementation.empty()) throw std::invalid_argument("paired_stats: no rounds");
  if (baselines.empty()) throw std::invalid_argument("paired_stats: no baselines");
  const size_t rounds = implementation.size();
  check_times(implementation, rounds, "the implementation");
  PairedStats stats;
  stats.us = median_of(implementation);
  for (size_t b = 0; b < baselines.size(); ++b) {
    check_times(baselines[b], rounds, "baseline " + std::to_string(b));
    stats.baseline_medians.push_back(median_of(baselines[b]));
    if (stats.best_baseline < 0 || stats.baseline_medians[b] < stats.baseline_us) {
      stats.best_baseline = static_cast<int>(b);
      stats.baseline_us = stats.baseline_medians[b];
    }
  }
  const std::vector<double>& best = baselines[static_cast<size_t>(stats.best_baseline)];
  std::vector<double> ratios(rounds);
  for (size_t r = 0; r < rounds; ++r) ratios[r] = best[r] / implementation[r];
  stats.ratio = median_of(ratios);
  stats.ratio_min = *std::min_element(ratios.begin(), ratios.end());
  stats.ratio_max = *std::max_element(ratios.begin(), ratios.end());
  stats.ratio_of_medians = stats.baseline_us / stats.us;
  return stats;
}

}  // namespace bwgemm::bench
