// The sm_90a grouped (mixture-of-experts) kernels: the tiled GEMM and dual GEMM kernel bodies
// (kernels/sm90/gemm_kernel.cuh, dual_gemm_kernel.cuh) over the experts' tiles (GroupedTiles,
// kernels/sm90/grouped_tiles.cuh):
//
//   grouped_gemm_kernel       D_e = alpha_e · A_e B_eᵀ                                  (FC2)
//   grouped_dual_gemm_kernel  C_e = epilogue(alpha1_e · A_e B1_eᵀ, alpha2_e · A_e B2_eᵀ)  (FC1)
//
// Their parameters are the dense kernels' (the tensor maps of A over the tokens' buffer, B over [E, N, K]
// with the expert as the batch coordinate, the output pointer and row stride, the host scales, the tile
// count as a TileGrid whose total is grouped_tile_bound) plus the grouped fields (GroupedTileParams). The
// grid is static: min(grouped_tile_bound, resident CTAs) persistent CTAs walk linear tile ids cluster,
// cluster + clusters, ... and stop at the first id past the experts' tiles. The Configs: one CTA per cluster,
// no ping-pong, D (C) stored from registers (GroupedTiles::config_supported).
//
// grouped_swap_ab_kernel: the swap-AB kernel body (kernels/sm90/swap_ab_kernel.cuh) over the experts' token
// tiles, for few tokens per expert (decode): the expert's weights (kBlockWeights rows of each of kWeights
// matrices, [E, N, K] K-major, batch e) on the wgmma's 64-row side, kBlockTokens of its tokens from its first
// one as the wgmma's N; the GEMM (kWeights = 1, D_e = alpha_e · A_e B_eᵀ) and the dual GEMM (kWeights = 2).
// A static persistent grid of min(tile bound, resident CTAs) CTAs (the bound: token tiles of kBlockTokens x
// weight tiles of kBlockWeights), whole K per CTA (no split, no stream-K), the output stored from registers,
// only the tokens below the expert's end.
#pragma once

#include <cuda.h>

#include "bwgemm/kernels/sm90/dual_gemm_kernel.cuh"
#include "bwgemm/kernels/sm90/gemm_kernel.cuh"
#include "bwgemm/kernels/sm90/grouped_tiles.cuh"
#include "bwgemm/kernels/sm90/swap_ab_kernel.cuh"

namespace bwgemm::sm90 {

// GemmParams with D's expert stride, the scale array and the metadata in `grouped`; the dense fields m
// (unused), n, k, d, ldd, tiles, num_clusters and epilogue (LinearCombination{alpha, 0}) are filled as for a
// dense call; read_c is false.
template <class Cfg>
struct GroupedGemmParams : GemmParams<Cfg> {
  GroupedTileParams grouped;
};

// DualGemmParams with C's expert stride, the two scale arrays and the metadata in `grouped`; alpha1_ptr and
// alpha2_ptr of the dense fields stay null (the per-expert arrays are grouped.scale_ptr), tma_store false.
template <class Cfg>
struct GroupedDualGemmParams : DualGemmParams<Cfg> {
  GroupedTileParams grouped;
};

template <class Cfg, class In>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    grouped_gemm_kernel(const __grid_constant__ GroupedGemmParams<Cfg> p) {
#if BWGEMM_SM90A_KERNEL_BODY
  static_assert(GroupedTiles<Cfg>::config_supported(),
                "grouped kernels: one CTA per cluster, no ping-pong, no TMA store, sched::StaticPersistent");
  static_assert(std::is_same_v<typename Cfg::Epilogue, epi::LinearCombination>,
                "the grouped GEMM's functor is LinearCombination (alpha_e · acc)");
  gemm_kernel_body<Cfg, In, false>(p, GroupedTiles<Cfg>(p.grouped));
#else
  (void)p;
  ::bwgemm::ptx::trap();  // built for another architecture; the entry points never launch it here
#endif
}

template <class Cfg, class In>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    grouped_dual_gemm_kernel(const __grid_constant__ GroupedDualGemmParams<Cfg> p) {
#if BWGEMM_SM90A_KERNEL_BODY
  static_assert(GroupedTiles<Cfg>::config_supported(),
                "grouped kernels: one CTA per cluster, no ping-pong, no TMA store, sched::StaticPersistent");
  dual_gemm_kernel_body<Cfg, In>(p, GroupedTiles<Cfg>(p.grouped));
#else
  (void)p;
  ::bwgemm::ptx::trap();  // built for another architecture; the entry points never launch it here
#endif
}

// SwapAbParams with the metadata in `grouped` (the output's expert stride, the per-expert scale arrays: [0]
// alpha_ptr of the GEMM or alpha1_ptr of the dual GEMM, [1] alpha2_ptr). The dense fields m (the token map's
// rows), n, k, d, ldd, tiles (total: the tile bound), grid_ctas, the host scales (epilogue
// LinearCombination{alpha, 0} for the GEMM; alpha1, alpha2 and the functor for the dual GEMM) are filled as
// for a dense call; splits 1, sk_ctas 0, read_c false, alpha1_ptr and alpha2_ptr null.
template <class Cfg>
struct GroupedSwapAbParams : SwapAbParams<Cfg> {
  GroupedTileParams grouped;
};

template <class Cfg, class In>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    grouped_swap_ab_kernel(const __grid_constant__ GroupedSwapAbParams<Cfg> p) {
#if BWGEMM_SM90A_KERNEL_BODY
  static_assert(Cfg::kWeights == 2 || std::is_same_v<typename Cfg::Epilogue, epi::LinearCombination>,
                "the grouped GEMM's functor is LinearCombination (alpha_e · acc)");
  swap_ab_kernel_body<Cfg, In, false>(p, GroupedTiles<Cfg>(p.grouped));
#else
  (void)p;
  ::bwgemm::ptx::trap();  // built for another architecture; the entry points never launch it here
#endif
}

}  // namespace bwgemm::sm90
