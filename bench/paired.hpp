// Paired (sample-interleaved) timing: the host-only logic, no CUDA (tested by ctest bench.paired_* without a
// GPU).
//
// With --bwgemm_paired=1, a benchmark <group>/paired_<impl>/<shape> times an implementation and the group's
// baselines in rounds: round r runs one sample of every side, in round_order(r, sides), so the sides see the
// same GPU clock (which drifts with power and temperature by several percent over seconds on the H200), and
// the order reverses every round (ABC, CBA, ABC, ...) so that a linear drift within a pair of rounds moves
// the implementation's and each baseline's samples by equal and opposite amounts: it cancels in `ratio`.
// docs/performance.md, "How the benchmarks measure".
#pragma once

#include <vector>

namespace bwgemm::bench {

// Median of `values` (the mean of the middle two for an even count). Throws std::invalid_argument when empty.
double median_of(std::vector<double> values);

// The order reverses every round, so each order must run equally often: this many rounds for `samples`
// requested (rounded up to a whole number of periods).
inline constexpr int kPairedOrderPeriod = 2;
int paired_rounds(int samples);

// The sides (0 = the implementation, 1.. = the baselines) in the order round `round` runs them: ascending in
// even rounds, descending in odd ones. Throws std::invalid_argument for sides < 1 or round < 0.
std::vector<int> round_order(int round, int sides);

struct PairedStats {
  double us = 0;                // median of the implementation's samples (us per call)
  int best_baseline = -1;       // index into the baselines: the lowest median over all rounds
  double baseline_us = 0;       // that baseline's median
  double ratio = 0;             // median over rounds of (best baseline's sample / implementation's sample)
  double ratio_of_medians = 0;  // baseline_us / us
  double ratio_min = 0;         // extremes of the per-round ratios
  double ratio_max = 0;
  std::vector<double> baseline_medians;  // per baseline, in the given order
};

// Statistics of paired rounds: implementation[r] and baselines[b][r] are the per-call times (us) of round r.
// Throws std::invalid_argument when there are no rounds or no baselines, the counts differ, or a time is not
// positive and finite.
PairedStats paired_stats(const std::vector<double>& implementation,
                         const std::vector<std::vector<double>>& baselines);

}  // namespace bwgemm::bench
