// The launch of an sm_100a swap-AB kernel (sm100::GemmSwapAb, sm100::Nvfp4DualGemmSwapAb): the split of K
// (the caller's, or choose_swap_ab_split_k's from the tiles and the resident CTAs), the diagnostic report,
// then the one-CTA-per-tile kernel or the split kernel over clusters of `splits` CTAs. Written once for
// both operations: the Params of either carry `tiles`, `splits`, `k_blocks_per_split` and `num_clusters`.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string>

#include "bwgemm/base/diagnostics.hpp"
#include "bwgemm/base/int_math.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/host/launch.hpp"
#include "bwgemm/kernels/sm100/swap_ab_split_k.cuh"

namespace bwgemm::sm100::detail {

// split_k as the swap-AB entry points take it: 0 (chosen), 1 (whole K per CTA) or 2 .. kSwapAbMaxSplitK.
inline Status check_swap_ab_split_k(int split_k) {
  if (split_k < 0 || split_k > kSwapAbMaxSplitK)
    return Status::invalid_argument("split_k must be 0 (chosen) or 1 .. " + std::to_string(kSwapAbMaxSplitK) +
                                    " (got " + std::to_string(split_k) + ")");
  return Status::success();
}

// Launches `tile_kernel` (split 1) or `split_kernel` for a call of m x n x k x batch with `p` filled but for
// the split's fields; `split_k` already checked (check_swap_ab_split_k).
template <class Cfg, class Params>
Status launch_swap_ab(void (*tile_kernel)(const Params), void (*split_kernel)(const Params), Params& p,
                      int split_k, int64_t m, int64_t n, int64_t k, int64_t batch, cudaStream_t stream,
                      const LaunchOptions& options) {
  const int32_t k_blocks = static_cast<int32_t>(ceil_div(k, int64_t{Cfg::kBlockK}));
  int splits = split_k;
  if (splits == 0) {
    int64_t sms = 1;  // one CTA per SM (its shared memory): the CTAs that run at once
    if (Status s = host::cached_resident_clusters(tile_kernel, Cfg::kThreads, 1, Cfg::kSmemBytes, &sms);
        !s.ok())
      return s;
    splits = choose_swap_ab_split_k(p.tiles.total(), sms, k_blocks);
  }
  const SwapAbSplit split = swap_ab_split(k_blocks, splits);
  ::bwgemm::detail::report_choice(
      "bwgemm::sm100 swap-AB launch", m, n, k, batch,
      "split_k = " + std::to_string(split.splits) + " over " + std::to_string(p.tiles.total()) + " tiles");
  if (static_cast<int64_t>(p.tiles.total()) * split.splits > int64_t{(1u << 31) - 1})
    return Status::invalid_argument("split_k: tiles x split_k CTAs (" + std::to_string(p.tiles.total()) +
                                    " x " + std::to_string(split.splits) +
                                    ") must be below 2^31 (one launch)");
  if (split.splits == 1) return host::launch_tile_kernel<Cfg>(tile_kernel, p, stream, options);
  p.splits = static_cast<uint32_t>(split.splits);
  p.k_blocks_per_split = split.k_blocks_per_split;
  p.num_clusters = p.tiles.total();
  return host::launch_cluster_kernel(split_kernel, static_cast<uint32_t>(p.tiles.total() * split.splits),
                                     Cfg::kThreads, static_cast<uint32_t>(split.splits), Cfg::kSmemBytes,
                                     stream, p, options);
}

}  // namespace bwgemm::sm100::detail
