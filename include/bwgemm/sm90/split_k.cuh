// Split K over a cluster, the host side shared by the sm_90a entry points that take it (sm90/swap_ab.cuh's
// swap-AB kernels and sm90/gemm.cuh's tiled GEMM; the device side is kernels/sm90/split_k.cuh): the splits
// a call may ask for and their checks, the resident clusters of each split size, and the launch of one
// cluster of `split` CTAs per tile.
#pragma once

#include <cstdint>
#include <string>

#include "bwgemm/base/int_math.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/host/launch.hpp"  // LaunchOptions, the cluster launch and residency
#include "bwgemm/sm90/choice.hpp"  // kSplitKChoices

namespace bwgemm::sm90 {

// The stream-K workspaces (GemmArguments::workspace: sm90/gemm.cuh's GemmStreamK128x256 and
// sm90/swap_ab.cuh's swap-AB stream-K) start with one 32-bit flag per CTA that hands off sums, rounded up to
// this many bytes so that the partial slots after them start aligned (256: the alignment cudaMalloc gives).
inline constexpr int64_t kStreamKFlagBytesAlign = 256;

namespace detail {

// A split a call asks for: 0 (chosen from the shape), 1, 2, 4 or 8, and not more CTAs than K blocks.
inline Status check_split_k(int split_k, int64_t k_blocks) {
  if (split_k != 0 && split_k != 1 && split_k != 2 && split_k != 4 && split_k != 8)
    return Status::invalid_argument("split_k must be 0 (chosen from the shape), 1, 2, 4 or 8 (got " +
                                    std::to_string(split_k) + ")");
  if (split_k > k_blocks)
    return Status::invalid_argument("split_k (" + std::to_string(split_k) +
                                    ") must not exceed the K blocks of 64 (" + std::to_string(k_blocks) +
                                    ")");
  return Status::success();
}

// resident[i]: the clusters of kSplitKChoices[i] CTAs of `kernel` that fit on the device at once; only the
// one-CTA count (i = 0) unless `every_size`, the others 0. A cluster size the device cannot place (8 may
// not be) gets 0, and is then never chosen; only a failure of the one-CTA query is an error.
template <class Params>
Status split_k_resident_clusters(void (*kernel)(const Params), uint32_t threads, uint32_t smem_bytes,
                                 bool every_size, int64_t (&resident)[kSplitKChoiceCount]) {
  for (int i = 0; i < kSplitKChoiceCount; ++i) {
    resident[i] = 0;
    if (i > 0 && !every_size) continue;
    if (Status s = host::cached_resident_clusters(kernel, threads, static_cast<uint32_t>(kSplitKChoices[i]),
                                                  smem_bytes, &resident[i]);
        !s.ok()) {
      if (i == 0) return s;
      resident[i] = 0;
    }
  }
  return Status::success();
}

// The CTAs a stream-K launch of `kernel` takes (the tiled GemmStreamK128x256 and the swap-AB stream-K):
// `requested`, 0 meaning one per resident CTA; refused below 0 and above the CTAs the device holds at once
// (every CTA of the grid must run at once: a tile's head waits for the others). *ctas: the count, *resident:
// the device's.
template <class Cfg, class Params>
Status stream_k_grid_ctas(void (*kernel)(const Params), int64_t requested, int64_t* ctas, int64_t* resident) {
  if (requested < 0)
    return Status::invalid_argument("stream_k_ctas must be >= 0 (0: one per resident CTA; got " +
                                    std::to_string(requested) + ")");
  *resident = 1;
  if (Status s = host::cached_resident_clusters(kernel, Cfg::kThreads, 1, Cfg::kSmemBytes, resident); !s.ok())
    return s;
  if (requested > *resident)
    return Status::invalid_argument("stream_k_ctas (" + std::to_string(requested) +
                                    ") must not exceed the CTAs this device holds at once (" +
                                    std::to_string(*resident) + "): a tile's head waits for the others");
  *ctas = requested == 0 ? *resident : requested;
  return Status::success();
}

// The CTAs of a launch with one cluster of `split_k` CTAs per tile: tiles · split_k, below 2^31.
inline Status split_k_ctas(int64_t tiles, int split_k, int64_t* ctas) {
  if (!checked_mul(tiles, int64_t{split_k}, ctas) || *ctas > (int64_t{1} << 31) - 1)
    return Status::invalid_argument("too many CTAs for one launch: tiles x split_k must be below 2^31");
  return Status::success();
}

// Launches `ctas` CTAs of `kernel` in clusters of `split_k` along x (one cluster per tile).
template <class Cfg, class Params>
Status launch_split_k(void (*kernel)(const Params), const Params& p, int64_t ctas, int split_k,
                      cudaStream_t stream, const LaunchOptions& options) {
  return host::launch_cluster_kernel(kernel, static_cast<uint32_t>(ctas), Cfg::kThreads,
                                     static_cast<uint32_t>(split_k), Cfg::kSmemBytes, stream, p, options);
}

}  // namespace detail
}  // namespace bwgemm::sm90
