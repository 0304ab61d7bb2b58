// The steps the sm_100a swap-AB entry points share (sm100::GemmSwapAb, sm100::DualGemmSwapAb,
// sm100::Nvfp4GemmSwapAb, sm100::Nvfp4DualGemmSwapAb): the checks before a launch, the NVFP4 entry points'
// tensor maps, and the launch: the split of K (the caller's, or choose_swap_ab_split_k's from the tiles and
// the resident CTAs), the diagnostic report, then the one-CTA-per-tile kernel or the split kernel over
// clusters of `splits` CTAs. The Params of every one carry `tiles`, `splits`, `k_blocks_per_split` and
// `num_clusters`.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string>

#include "bwgemm/arguments/common.hpp"
#include "bwgemm/base/diagnostics.hpp"
#include "bwgemm/base/int_math.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/host/launch.hpp"
#include "bwgemm/host/operand_maps.hpp"
#include "bwgemm/kernels/sm100/common.cuh"
#include "bwgemm/kernels/sm100/swap_ab_split_k.cuh"

namespace bwgemm::sm100::detail {

// split_k as the swap-AB entry points take it: 0 (chosen), 1 (whole K per CTA) or 2 .. kSwapAbMaxSplitK.
inline Status check_swap_ab_split_k(int split_k) {
  if (split_k < 0 || split_k > kSwapAbMaxSplitK)
    return Status::invalid_argument("split_k must be 0 (chosen) or 1 .. " + std::to_string(kSwapAbMaxSplitK) +
                                    " (got " + std::to_string(split_k) + ")");
  return Status::success();
}

// The default entry points' choice enums (GemmChoice, DualGemmChoice, Nvfp4GemmChoice, Nvfp4DualChoice) list
// their three swap-AB token tiles (16, 32, 64) first, then their tiled Configs (each header static_asserts
// it).
inline constexpr int kSwapAbChoices = 3;
template <class Choice>
constexpr bool choice_is_swap_ab(Choice choice) {
  return static_cast<int>(choice) >= 0 && static_cast<int>(choice) < kSwapAbChoices;
}
// Whether `choice` takes split_k: the swap-AB Configs 0 .. kSwapAbMaxSplitK (check_swap_ab_split_k), the
// tiled ones 0 or 1 (no split).
template <class Choice>
constexpr bool choice_takes_split(Choice choice, int split_k) {
  return split_k >= 0 && split_k <= (choice_is_swap_ab(choice) ? kSwapAbMaxSplitK : 1);
}

// Host-side checks only (no device access), every swap-AB entry point's can_implement: the operation's rules
// (bwgemm::validate), then Config Cfg's tile count (swap_ab_tiles).
template <class Cfg, class Args>
Status swap_ab_can_implement(const Args& a) {
  if (Status s = validate(a); !s.ok()) return s;
  const sched::TileGrid tiles = swap_ab_tiles<Cfg>(a.m, a.n, a.batch);
  return ::bwgemm::detail::validate_tile_count(tiles.tiles_m, tiles.tiles_n, tiles.batch);
}

// Every check a swap-AB entry point's run makes before it touches the arguments' memory: can_implement's,
// split_k's, a device of compute capability 10.0, and device pointers (`entry_point` names the caller in the
// messages).
template <class Cfg, class Args>
Status check_swap_ab_run(const Args& a, int split_k, const char* entry_point) {
  if (Status s = swap_ab_can_implement<Cfg>(a); !s.ok()) return s;
  if (Status s = check_swap_ab_split_k(split_k); !s.ok()) return s;
  if (Status s = host::require_compute_capability_100(entry_point); !s.ok()) return s;
  return host::require_device_pointers(device_operands(a), entry_point);
}

// The NVFP4 swap-AB entry points' tensor maps in p (Nvfp4SwapAbParams): the tokens (A), the Cfg::kWeights
// weight tensors (the GEMM's B; the dual GEMM's B1, B2), and their scales.
template <class Cfg, class Args, class Tensor, class Params>
Status nvfp4_swap_ab_operand_maps(const Args& a, const Tensor* const (&weights)[Cfg::kWeights], Params* p) {
  namespace d = ::bwgemm::detail;
  if (Status s = d::nvfp4_data_map(a.a.data, a.m, a.k, a.batch, Cfg::kBlockTokens, &p->tmap_tokens); !s.ok())
    return s;
  for (int w = 0; w < Cfg::kWeights; ++w)
    if (Status s =
            d::nvfp4_data_map(weights[w]->data, a.n, a.k, a.batch, Cfg::kBlockWeights, &p->tmap_weights[w]);
        !s.ok())
      return s;
  if (Status s = d::nvfp4_scale_map(a.a.scales, a.m, a.k, a.batch, &p->tmap_sf_tokens); !s.ok()) return s;
  for (int w = 0; w < Cfg::kWeights; ++w)
    if (Status s = d::nvfp4_scale_map(weights[w]->scales, a.n, a.k, a.batch, &p->tmap_sf_weights[w]); !s.ok())
      return s;
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
  const SwapAbSplitPlan split = swap_ab_split_plan(k_blocks, splits);
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
