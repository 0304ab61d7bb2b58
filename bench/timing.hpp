// Timing: CUDA events around batches of back-to-back calls that rotate over operand sets.
//
// Method (docs/performance.md, "How the benchmarks measure"):
//  - L2 is kept cold by rotation, not by flushing: a problem holds `sets` independent copies of its
//    operands, together more than kL2RotationFactor x the L2 size, and consecutive calls use
//    consecutive sets, so each call's inputs were last touched at least 3 x L2 bytes earlier.
//  - A sample is `calls` back-to-back calls (a multiple of `sets`, lasting at least
//    TimingConfig::min_sample_seconds) between two CUDA events on one stream; by default the calls are
//    captured once into a CUDA graph so host launch overhead cannot leak into the GPU time.
//  - Untimed warm-up first (TimingConfig::warmup_seconds), then TimingConfig::samples samples;
//    the reported time per call is the median sample divided by `calls`.
//  - Paired mode (--bwgemm_paired=1, paired.hpp): the same batches and warm-up for an implementation and
//    its baselines, whose samples then alternate (time_interleaved).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "common.hpp"
#include "paired.hpp"  // median_of, round_order

namespace bwgemm::bench {

// Enqueues one call of an implementation on `stream`, using operand set `set`. Must not
// synchronize or allocate (it may be captured into a CUDA graph).
using Launch = std::function<void(int set, cudaStream_t stream)>;

// Operand sets together exceed this many times the L2 size (reference/performance.md: "rotating
// input buffers whose total exceeds 3x L2").
inline constexpr double kL2RotationFactor = 3.0;
inline constexpr int kMinRotationSets = 2;
// Rotation may use at most this fraction of the device memory that was free at start-up.
inline constexpr double kRotationMemoryFraction = 0.5;

// Number of operand sets for a problem whose one set (inputs and outputs) takes bytes_per_set.
// Throws BenchError when even kMinRotationSets sets do not fit the memory budget.
int rotation_sets(int64_t bytes_per_set, const DeviceInfo& device);

struct Timing {
  double median_us = 0;  // per call
  double min_us = 0;
  double max_us = 0;
  int samples = 0;
  int calls_per_sample = 0;
  int sets = 0;
};

Timing time_launches(const Launch& launch, int sets, const Context& context);

// Samples of several implementations of one problem, interleaved (the paired mode, paired.hpp): each launch
// gets its own batch, sized and warmed up as time_launches does (time_launches is this with one launch), then
// `rounds` rounds each time one sample of every launch, in round_order(round, launches.size()).
struct InterleavedTiming {
  std::vector<std::vector<double>> per_call_us;  // [launch][round], us per call
  std::vector<int> calls_per_sample;             // per launch
  int sets = 0;
};
InterleavedTiming time_interleaved(const std::vector<Launch>& launches, int sets, int rounds,
                                   const Context& context);

}  // namespace bwgemm::bench
