// The sm_100a grouped (mixture-of-experts) kernels: the tiled GEMM, dual GEMM, NVFP4 GEMM and NVFP4 dual GEMM
// kernels, and the swap-AB ones (16-bit and NVFP4, GEMM and dual GEMM: an expert's few tokens as the MMA's
// columns, its weights on the 128-row side), over the tiles of every expert in one persistent launch. Each is
// its dense kernel's Roles with two things changed:
//   - the tiles: a sched::BasicGroupedTileSource per walking thread instead of the tile grid, i.e. the walk
//     over the experts' device offsets or counts (base/grouped.hpp), each value read once per thread, bad
//     values clamped to the caller's buffers; the walk's status bits ORed into the caller's status word once
//     per launch (roles.cuh: run_tile_records' walk, or the swap-AB epilogue's;
//     BasicGroupedTileSource::finish). The dense Roles read a tile through sched::first_row, first_column,
//     row_limit, column_limit, weight_batch, scale_row and output_rows (scheduler/grouped_tiles.cuh): a
//     tile's A rows start at its first row (not a multiple of the tile), the weights are the expert's (batch
//     = expert of the stacked [E, N, K] maps), the epilogue stores the rows before the expert's end, an NVFP4
//     A's scales are the expert's own blocked buffer;
//   - the epilogue's scales: the per-expert ones, alpha · alpha_ptr[e], read when a tile starts (one load per
//     epilogue thread and tile, from L1 after the first).
// The grid is fixed by the host arguments (the static persistent schedule over grouped_tile_bound tiles), so
// a CUDA graph captures a call once and replays it with new device counts.
#pragma once

#include <cstdint>

#include "bwgemm/base/grouped.hpp"
#include "bwgemm/epilogue/device_scale.cuh"
#include "bwgemm/kernels/sm100/common.cuh"
#include "bwgemm/kernels/sm100/dual_gemm_kernel.cuh"
#include "bwgemm/kernels/sm100/f16_swap_ab_kernel.cuh"
#include "bwgemm/kernels/sm100/gemm_kernel.cuh"
#include "bwgemm/kernels/sm100/nvfp4_dual_gemm_kernel.cuh"
#include "bwgemm/kernels/sm100/nvfp4_gemm_kernel.cuh"
#include "bwgemm/kernels/sm100/nvfp4_swap_ab_kernel.cuh"
#include "bwgemm/kernels/sm100/roles.cuh"
#include "bwgemm/scheduler/grouped_tiles.cuh"
#include "bwgemm/scheduler/schedulers.cuh"

namespace bwgemm::sm100 {

// What a grouped launch adds to its dense kernel's parameters.
struct GroupedParams {
  GroupedTokens tokens{};  // the layout, the buffers' rows, the device offsets or counts
  int32_t experts = 0;
  uint32_t* status = nullptr;  // the caller's device status word, or null
  // Per-expert scales: E floats in device memory each, or null (the host scale alone). The GEMM's alpha is
  // scale_ptr[0], the dual GEMM's alpha1 and alpha2 scale_ptr[0] and scale_ptr[1], an NVFP4 output's global
  // scale scale_ptr[2].
  const float* scale_ptr[3] = {nullptr, nullptr, nullptr};
};

template <class Cfg>
struct GroupedGemmParams : GemmParams<Cfg>, GroupedParams {};
template <class Cfg>
struct GroupedDualGemmParams : DualGemmParams<Cfg>, GroupedParams {};
template <class Cfg>
struct GroupedNvfp4GemmParams : Nvfp4GemmParams<Cfg>, GroupedParams {};
template <class Cfg>
struct GroupedNvfp4DualGemmParams : Nvfp4DualGemmParams<Cfg>, GroupedParams {};
template <class Cfg>
struct GroupedF16SwapAbParams : F16SwapAbParams<Cfg>, GroupedParams {};
template <class Cfg>
struct GroupedNvfp4SwapAbParams : Nvfp4SwapAbParams<Cfg>, GroupedParams {};

namespace detail {

// host · scale_ptr[e], or host where no array is given.
BWGEMM_DEVICE BWGEMM_FORCEINLINE float expert_scale(float host, const float* per_expert, int32_t e) {
  return per_expert == nullptr ? host : host * per_expert[e];
}

}  // namespace detail

// Dense Roles (GemmRoles, DualGemmRoles, ...) over the experts' tiles: the tile source below, everything else
// the dense Roles'. Derived Roles add the per-expert epilogue (epilogue_tile).
template <class Cfg, class Dense, class Params>
struct GroupedRoles : Dense {
  const Params& grouped;

  BWGEMM_DEVICE explicit GroupedRoles(const Params& p) : Dense{p}, grouped(p) {}

  // The walk over the experts' tiles of ClusterBlockM rows, p.tiles.tiles_n column tiles per row tile.
  template <int ReadAhead>
  BWGEMM_DEVICE sched::GroupedTileSource<ReadAhead> tile_source(
      const KernelContext<Cfg>&, bool reports, std::integral_constant<int, ReadAhead>) const {
    return sched::GroupedTileSource<ReadAhead>(grouped.tokens, grouped.experts, Cfg::kClusterBlockM,
                                               grouped.tiles.tiles_n, grouped.status, reports);
  }
};

// The GEMM's: D_e = alpha_e · A_e B_eᵀ, the functor (LinearCombination, beta 0) with expert e's alpha.
template <class Cfg>
struct GroupedGemmRoles : GroupedRoles<Cfg, GemmRoles<Cfg>, GroupedGemmParams<Cfg>> {
  using GroupedRoles<Cfg, GemmRoles<Cfg>, GroupedGemmParams<Cfg>>::GroupedRoles;
  using Epilogue = typename Cfg::Epilogue;

  BWGEMM_DEVICE GemmTileStore<Cfg, Epilogue> epilogue_tile(const KernelContext<Cfg>& ctx,
                                                           const sched::GroupedTileCoord& t, int32_t row,
                                                           const Epilogue& f) const {
    Epilogue fe = f;
    fe.alpha = detail::expert_scale(f.alpha, this->grouped.scale_ptr[0], t.expert);
    return this->template tile_store<Epilogue>(ctx, t, row, fe);
  }
};

// The dual GEMM's: C_e = epilogue(alpha1_e · A_e B1_eᵀ, alpha2_e · A_e B2_eᵀ).
template <class Cfg>
struct GroupedDualGemmRoles : GroupedRoles<Cfg, DualGemmRoles<Cfg>, GroupedDualGemmParams<Cfg>> {
  using GroupedRoles<Cfg, DualGemmRoles<Cfg>, GroupedDualGemmParams<Cfg>>::GroupedRoles;

  BWGEMM_DEVICE auto epilogue_tile(const KernelContext<Cfg>& ctx, const sched::GroupedTileCoord& t,
                                   int32_t row, const epi::DualScales& s) const {
    const epi::DualScales se{detail::expert_scale(s.alpha1, this->grouped.scale_ptr[0], t.expert),
                             detail::expert_scale(s.alpha2, this->grouped.scale_ptr[1], t.expert)};
    return DualGemmRoles<Cfg>::epilogue_tile(ctx, t, row, se);
  }
};

// The NVFP4 GEMM's (16-bit or fp32 D): as the GEMM's.
template <class Cfg>
struct GroupedNvfp4GemmRoles : GroupedRoles<Cfg, Nvfp4GemmRoles<Cfg>, GroupedNvfp4GemmParams<Cfg>> {
  using GroupedRoles<Cfg, Nvfp4GemmRoles<Cfg>, GroupedNvfp4GemmParams<Cfg>>::GroupedRoles;
  using Epilogue = typename Cfg::Epilogue;
  using Scales = typename Nvfp4GemmRoles<Cfg>::Scales;
  static_assert(!Cfg::kNvfp4Out, "the grouped NVFP4 GEMM writes a 16-bit or fp32 D");

  BWGEMM_DEVICE auto epilogue_tile(const KernelContext<Cfg>&, const sched::GroupedTileCoord& t, int32_t row,
                                   const Scales& s) const {
    Epilogue fe = s.epilogue;
    fe.alpha = detail::expert_scale(s.epilogue.alpha, this->grouped.scale_ptr[0], t.expert);
    return this->template tile_store<Epilogue>(t, row, fe);
  }
};

// The NVFP4 dual GEMM's: as the dual GEMM's; an NVFP4 C quantized with expert e's global scale, its rows and
// scales at the expert's place (nvfp4_output_tile_store, sched::output_rows).
template <class Cfg>
struct GroupedNvfp4DualGemmRoles
    : GroupedRoles<Cfg, Nvfp4DualGemmRoles<Cfg>, GroupedNvfp4DualGemmParams<Cfg>> {
  using GroupedRoles<Cfg, Nvfp4DualGemmRoles<Cfg>, GroupedNvfp4DualGemmParams<Cfg>>::GroupedRoles;
  using Scales = typename Nvfp4DualGemmRoles<Cfg>::Scales;

  BWGEMM_DEVICE auto epilogue_tile(const KernelContext<Cfg>& ctx, const sched::GroupedTileCoord& t,
                                   int32_t row, const Scales& s) const {
    Scales se = s;
    se.alphas.alpha1 = detail::expert_scale(s.alphas.alpha1, this->grouped.scale_ptr[0], t.expert);
    se.alphas.alpha2 = detail::expert_scale(s.alphas.alpha2, this->grouped.scale_ptr[1], t.expert);
    se.out_global_scale = detail::expert_scale(s.out_global_scale, this->grouped.scale_ptr[2], t.expert);
    if constexpr (Cfg::kNvfp4Out) {
      return this->nvfp4_tile_store(ctx, t, row, se);
    } else {
      return this->tile_store(t, row, se);
    }
  }
};

// The swap-AB kernels' (16-bit and NVFP4, GEMM and dual GEMM): token tiles of BlockTokens of each expert's
// tokens, each with the weight tiles of 128 rows of its expert (p.tiles.tiles_m of them); the per-expert
// scales as the tiled kernels'.
template <class Cfg, class Dense, class Params>
struct GroupedSwapAbRoles : Dense {
  using Scales = typename Dense::Scales;
  const Params& grouped;

  BWGEMM_DEVICE explicit GroupedSwapAbRoles(const Params& p) : Dense{p}, grouped(p) {}

  template <int ReadAhead>
  BWGEMM_DEVICE sched::GroupedSwapTileSource<ReadAhead> tile_source(
      const KernelContext<Cfg>&, bool reports, std::integral_constant<int, ReadAhead>) const {
    return sched::GroupedSwapTileSource<ReadAhead>(grouped.tokens, grouped.experts, Cfg::kBlockTokens,
                                                   grouped.tiles.tiles_m, grouped.status, reports);
  }

  BWGEMM_DEVICE auto epilogue_tile(const KernelContext<Cfg>& ctx, const sched::GroupedSwapTileCoord& t,
                                   int32_t n, const Scales& s) const {
    Scales se = s;
    if constexpr (Cfg::kWeights == 2) {
      se.alpha1 = detail::expert_scale(s.alpha1, grouped.scale_ptr[0], t.expert);
      se.alpha2 = detail::expert_scale(s.alpha2, grouped.scale_ptr[1], t.expert);
    } else {
      se.alpha = detail::expert_scale(s.alpha, grouped.scale_ptr[0], t.expert);
    }
    return Dense::epilogue_tile(ctx, t, n, se);
  }
};

template <class Cfg>
using GroupedF16SwapAbRoles = GroupedSwapAbRoles<Cfg, F16SwapAbRoles<Cfg>, GroupedF16SwapAbParams<Cfg>>;
template <class Cfg>
using GroupedNvfp4SwapAbRoles = GroupedSwapAbRoles<Cfg, Nvfp4SwapAbRoles<Cfg>, GroupedNvfp4SwapAbParams<Cfg>>;

template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    grouped_gemm_kernel(const __grid_constant__ GroupedGemmParams<Cfg> p) {
  run_kernel<Cfg, GroupedGemmRoles<Cfg>>(p);
}
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    grouped_dual_gemm_kernel(const __grid_constant__ GroupedDualGemmParams<Cfg> p) {
  run_kernel<Cfg, GroupedDualGemmRoles<Cfg>>(p);
}
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    grouped_nvfp4_gemm_kernel(const __grid_constant__ GroupedNvfp4GemmParams<Cfg> p) {
  run_kernel<Cfg, GroupedNvfp4GemmRoles<Cfg>>(p);
}
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    grouped_nvfp4_dual_gemm_kernel(const __grid_constant__ GroupedNvfp4DualGemmParams<Cfg> p) {
  run_kernel<Cfg, GroupedNvfp4DualGemmRoles<Cfg>>(p);
}

// The swap-AB kernels' rows are weight rows (masked at N), their columns tokens (roles.cuh).
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    grouped_f16_swap_ab_kernel(const __grid_constant__ GroupedF16SwapAbParams<Cfg> p) {
#if BWGEMM_SM100A_KERNEL_BODY
  run_roles<Cfg>(GroupedF16SwapAbRoles<Cfg>{p}, p.tiles, p.num_clusters, p.n, p.k);
#else
  (void)p;
  ::bwgemm::ptx::trap();
#endif
}
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    grouped_nvfp4_swap_ab_kernel(const __grid_constant__ GroupedNvfp4SwapAbParams<Cfg> p) {
#if BWGEMM_SM100A_KERNEL_BODY
  run_roles<Cfg>(GroupedNvfp4SwapAbRoles<Cfg>{p}, p.tiles, p.num_clusters, p.n, p.k);
#else
  (void)p;
  ::bwgemm::ptx::trap();
#endif
}

}  // namespace bwgemm::sm100
