// The tuner's decision for one key (docs/tuning.md, "Choosing"): given each candidate's measured time and the
// built-in choice, which candidate the table names. A candidate replaces the built-in choice only where it is
// faster by more than the noise of both measurements; otherwise the built-in choice stays. Pure functions,
// host C++17.
#pragma once

#include <cmath>
#include <vector>

namespace bwgemm::tuning {

// One candidate's time: the median over the repetitions and an estimate of its noise (e.g. half the
// interquartile range), in one unit for all candidates. A candidate not measured (it cannot run the shape,
// or failed): a NaN or negative median, or a NaN or negative noise.
struct Timing {
  double median = 0;
  double noise = 0;
};

struct Selection {
  int index = -1;             // the chosen candidate; -1 where none has a usable time
  bool kept_builtin = false;  // the built-in choice was kept (no candidate beat it by more than the noise)
};

inline bool usable_timing(const Timing& t) {
  return std::isfinite(t.median) && t.median > 0 && std::isfinite(t.noise) && t.noise >= 0;
}

// Candidate i beats the built-in choice b where b.median - i.median > i.noise + b.noise (their noise
// intervals do not overlap) and, with min_relative_gain > 0, by more than that fraction of b.median too.
// The winner is the candidate of lowest median among those that beat b (ties to the lower index); none:
// b stays. Where b is not a usable time (out of range, not measured), the lowest median wins outright (ties
// to the lower index).
inline Selection select_candidate(const Timing* timings, int count, int builtin,
                                  double min_relative_gain = 0) {
  Selection best;
  const bool have_builtin = builtin >= 0 && builtin < count && usable_timing(timings[builtin]);
  if (!have_builtin) {
    for (int i = 0; i < count; ++i)
      if (usable_timing(timings[i]) && (best.index < 0 || timings[i].median < timings[best.index].median))
        best.index = i;
    return best;
  }
  const Timing& b = timings[builtin];
  const double min_gain = min_relative_gain > 0 ? min_relative_gain * b.median : 0;
  best = {builtin, true};
  for (int i = 0; i < count; ++i) {
    if (i == builtin || !usable_timing(timings[i])) continue;
    const double gain = b.median - timings[i].median;
    if (gain > timings[i].noise + b.noise && gain > min_gain &&
        (best.kept_builtin || timings[i].median < timings[best.index].median))
      best = {i, false};
  }
  return best;
}

inline Selection select_candidate(const std::vector<Timing>& timings, int builtin,
                                  double min_relative_gain = 0) {
  return select_candidate(timings.data(), static_cast<int>(timings.size()), builtin, min_relative_gain);
}

}  // namespace bwgemm::tuning
