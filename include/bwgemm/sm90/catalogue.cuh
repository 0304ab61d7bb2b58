// The Configs the sm_90a default entry points choose from (sm90/choice.hpp names the choices and holds the
// rules): one Config alias per choice, and per operation one visit function that hands a choice's Configs to
// a callback as types. The names of the choices (gemm_choice_name, dual_gemm_choice_name) are these aliases'
// names, the names tuning files use. Configs outside the choice (tests, the benchmark's candidates) are in
// sm90/candidate_configs.cuh.
//
//   bwgemm::sm90::visit_gemm_choice<__nv_bfloat16>(bwgemm::sm90::GemmChoice::kTile128x256, [](auto entry) {
//     using Cfg = typename decltype(entry)::Config;   // GemmTile128x256<__nv_bfloat16>
//     ...
//   });
#pragma once

#include <cuda_bf16.h>

#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/kernels/sm90/dual_gemm_config.cuh"
#include "bwgemm/kernels/sm90/gemm_config.cuh"
#include "bwgemm/kernels/sm90/swap_ab_config.cuh"
#include "bwgemm/sm90/choice.hpp"

namespace bwgemm::sm90 {

// ---- the GEMM's tiled Configs (a name gives the CTA tile, rows x columns; GemmPingPong*: each consumer
// warpgroup's tile; docs/hopper.md says how each works and which data put it in the choice) ----------------
//   GemmTile128x256     : 128 x 256 tiles (one m64n256k16 wgmma per consumer per 16 K), 4 stages, one CTA per
//                         cluster: the widest tile the registers allow
//   GemmTile128x192     : 128 x 192 tiles, 5 stages, one CTA per cluster
//   GemmTile128x160     : 128 x 160 tiles (one m64n160k16 wgmma per consumer per 16 K), 4 stages (D in one
//                         round of TMA stores, 64-byte boxes): whole tiles of N = 5120 and 10240; with B K x
//                         N its B tile is loaded as three 64-column chunks (the last 32 columns unused)
//   GemmTile128x128     : 128 x 128 tiles, 6 stages: twice the tiles of GemmTile128x256
//   GemmPingPong128x128 : 128 x 128 tiles per consumer warpgroup, the two consumers taking alternate tiles
//                         (one's epilogue under the other's wgmmas), 6 stages
//   GemmPingPong128x160 : 128 x 160 tiles per consumer warpgroup, ping-pong, 4 stages
//   GemmStreamK128x256  : GemmTile128x256's tile under sched::StreamK (the call passes a workspace): whole
//                         waves, then the last partial wave's K blocks split evenly over one CTA per SM
template <class Out>
using GemmTile128x256 = GemmConfig<256, 4, 1, sched::StaticPersistent, epi::LinearCombination, Out>;
template <class Out>
using GemmTile128x192 = GemmConfig<192, 5, 1, sched::StaticPersistent, epi::LinearCombination, Out>;
template <class Out>
using GemmTile128x160 = GemmConfig<160, 4, 1, sched::StaticPersistent, epi::LinearCombination, Out>;
template <class Out>
using GemmTile128x128 = GemmConfig<128, 6, 1, sched::StaticPersistent, epi::LinearCombination, Out>;
template <class Out>
using GemmPingPong128x128 = GemmConfig<128, 6, 1, sched::StaticPersistent, epi::LinearCombination, Out, true,
                                       /*RowBlocks=*/2, /*ClusterAlongN=*/false, /*PingPong=*/true>;
template <class Out>
using GemmPingPong128x160 = GemmConfig<160, 4, 1, sched::StaticPersistent, epi::LinearCombination, Out, true,
                                       /*RowBlocks=*/2, /*ClusterAlongN=*/false, /*PingPong=*/true>;
template <class Out>
using GemmStreamK128x256 = GemmConfig<256, 4, 1, sched::StreamK, epi::LinearCombination, Out>;

// ---- the GEMM's swap-AB Configs (sm90/swap_ab.cuh)
// --------------------------------------------------------- Tiles of 64 weight rows (one consumer warpgroup)
// and 16, 32, 64 or 128 tokens; as many stages as leave about 192 KiB in flight per SM (H200, 2026-12-01,
// docs/data/h200_2026-12-01_paired_decode_candidates.json: tiles of 64 rows with the split of choose_split_k
// came within 2% of the best of {64, 128 rows} x {1, 2, 4, 8 splits}; 32 tokens:
// docs/data/h200_2026-12-01_dual_tiles_swapab32.json). 160 and 192 tokens in tiles of 128 weight rows (two
// consumer warpgroups), 6 stages of 36 KiB and 5 of 40 KiB
// (docs/data/h200_2026-12-02_paired_tokens_candidates_half_tile.json,
// docs/data/h200_2026-12-04_paired_tokens192_splits.json); they run stream-K themselves with a workspace.
template <class Out>
using GemmSwapAbTokens16 = SwapAbConfig<16, 16, 1, epi::LinearCombination, Out, 1>;
template <class Out>
using GemmSwapAbTokens32 = SwapAbConfig<32, 16, 1, epi::LinearCombination, Out, 1>;
template <class Out>
using GemmSwapAbTokens64 = SwapAbConfig<64, 12, 1, epi::LinearCombination, Out, 1>;
template <class Out>
using GemmSwapAbTokens128 = SwapAbConfig<128, 8, 1, epi::LinearCombination, Out, 1>;
template <class Out>
using GemmSwapAbTokens160 = SwapAbConfig<160, 6, 1, epi::LinearCombination, Out, 2>;
template <class Out>
using GemmSwapAbTokens192 = SwapAbConfig<192, 5, 1, epi::LinearCombination, Out, 2>;
// Their stream-K launches (run_stream_k, taken with a workspace where swap_ab_stream_k_pays): tiles of 128
// weight rows, 16 tokens x 12 stages of 18 KiB, 32 x 10 of 20 KiB, 64 x 8 of 24 KiB. With B K x N the 64-row
// tiles under stream-K lost up to 30% (H200, 2026-12-02,
// docs/data/h200_2026-12-02_paired_swapab_streamk_candidates.json: their CTAs at different K offsets read
// 128 bytes of each K row alone; the 128-row tiles read 256).
template <class Out>
using GemmSwapAbStreamKTokens16 = SwapAbConfig<16, 12, 1, epi::LinearCombination, Out, 2>;
template <class Out>
using GemmSwapAbStreamKTokens32 = SwapAbConfig<32, 10, 1, epi::LinearCombination, Out, 2>;
template <class Out>
using GemmSwapAbStreamKTokens64 = SwapAbConfig<64, 8, 1, epi::LinearCombination, Out, 2>;

// ---- the dual GEMM's Configs (a name gives the CTA tile of each weight, rows x columns)
// ---------------------
//   DualGemmTile128x64          : 128 x 64 pairs, 6 stages
//   DualGemmTile128x128         : 128 x 128 pairs, 4 stages: one m64n256k16 wgmma per 16 K covers gate and up
//   DualGemmTile128x128Cluster2 : the same in clusters of two CTAs along M sharing B1/B2 (TMA multicast)
//   DualGemmPingPong64x128      : 64 x 128 pairs per consumer, ping-pong, 5 stages of 40 KiB (4 stages were
//                                 1-2% slower in geomean at every M, H200, 2026-12-02,
//                                 docs/data/h200_2026-12-02_paired_dual_pingpong.json)
//   DualGemmPingPong64x96       : 64 x 96 pairs per consumer (one m64n192k16 wgmma per 16 K), ping-pong, 6
//                                 stages of 32 KiB (docs/data/h200_2026-12-02_paired_dual96_candidates.json)
//   DualGemmSwapAbTokens*       : swap AB, 64 weight rows of each matrix x 16 (11 stages), 64 (8), 128 (6),
//                                 160 tokens (6: two m64n160 accumulators in 160 of a consumer's 232
//                                 registers); they run stream-K themselves with a workspace
template <class Out>
using DualGemmTile128x64 = DualGemmConfig<64, 6, 1, sched::StaticPersistent, epi::SiluMul, Out>;
template <class Out>
using DualGemmTile128x128 = DualGemmConfig<128, 4, 1, sched::StaticPersistent, epi::SiluMul, Out>;
template <class Out>
using DualGemmTile128x128Cluster2 = DualGemmConfig<128, 4, 2, sched::StaticPersistent, epi::SiluMul, Out>;
template <class Out>
using DualGemmPingPong64x128 = DualGemmConfig<128, 5, 1, sched::StaticPersistent, epi::SiluMul, Out,
                                              /*TmaStore=*/true, /*PingPong=*/true>;
template <class Out>
using DualGemmPingPong64x96 = DualGemmConfig<96, 6, 1, sched::StaticPersistent, epi::SiluMul, Out,
                                             /*TmaStore=*/true, /*PingPong=*/true>;
template <class Out>
using DualGemmSwapAbTokens16 = SwapAbConfig<16, 11, 2, epi::SiluMul, Out, 1>;
template <class Out>
using DualGemmSwapAbTokens64 = SwapAbConfig<64, 8, 2, epi::SiluMul, Out, 1>;
template <class Out>
using DualGemmSwapAbTokens128 = SwapAbConfig<128, 6, 2, epi::SiluMul, Out, 1>;
template <class Out>
using DualGemmSwapAbTokens160 = SwapAbConfig<160, 6, 2, epi::SiluMul, Out, 1>;

// ---- the visit functions
// ----------------------------------------------------------------------------------- What a visit hands its
// callback: a tiled choice's Config, or a swap-AB choice's cluster-split Config and its stream-K Config
// (void: the default never runs the choice stream-K).
template <class Cfg>
struct TiledEntry {
  using Config = Cfg;
};
template <class Cfg, class StreamKCfg>
struct SwapAbEntry {
  using Config = Cfg;
  using StreamKConfig = StreamKCfg;
};

// f(entry) for a GEMM choice's Configs with output Out; returns what f returns.
template <class Out, class F>
constexpr decltype(auto) visit_gemm_choice(GemmChoice choice, F&& f) {
  switch (choice) {
    case GemmChoice::kTile128x128:
      return f(TiledEntry<GemmTile128x128<Out>>{});
    case GemmChoice::kTile128x160:
      return f(TiledEntry<GemmTile128x160<Out>>{});
    case GemmChoice::kTile128x192:
      return f(TiledEntry<GemmTile128x192<Out>>{});
    case GemmChoice::kPingPong128x128:
      return f(TiledEntry<GemmPingPong128x128<Out>>{});
    case GemmChoice::kPingPong128x160:
      return f(TiledEntry<GemmPingPong128x160<Out>>{});
    case GemmChoice::kStreamK128x256:
      return f(TiledEntry<GemmStreamK128x256<Out>>{});
    case GemmChoice::kSwapAbTokens16:
      return f(SwapAbEntry<GemmSwapAbTokens16<Out>, GemmSwapAbStreamKTokens16<Out>>{});
    case GemmChoice::kSwapAbTokens32:
      return f(SwapAbEntry<GemmSwapAbTokens32<Out>, GemmSwapAbStreamKTokens32<Out>>{});
    case GemmChoice::kSwapAbTokens64:
      return f(SwapAbEntry<GemmSwapAbTokens64<Out>, GemmSwapAbStreamKTokens64<Out>>{});
    case GemmChoice::kSwapAbTokens128:
      return f(SwapAbEntry<GemmSwapAbTokens128<Out>, void>{});
    case GemmChoice::kSwapAbTokens160:
      return f(SwapAbEntry<GemmSwapAbTokens160<Out>, GemmSwapAbTokens160<Out>>{});
    case GemmChoice::kSwapAbTokens192:
      return f(SwapAbEntry<GemmSwapAbTokens192<Out>, GemmSwapAbTokens192<Out>>{});
    default:
      return f(TiledEntry<GemmTile128x256<Out>>{});
  }
}

// f(entry) for a dual GEMM choice's Configs with output Out.
template <class Out, class F>
constexpr decltype(auto) visit_dual_gemm_choice(DualGemmChoice choice, F&& f) {
  switch (choice) {
    case DualGemmChoice::kTile128x64:
      return f(TiledEntry<DualGemmTile128x64<Out>>{});
    case DualGemmChoice::kTile128x128Cluster2:
      return f(TiledEntry<DualGemmTile128x128Cluster2<Out>>{});
    case DualGemmChoice::kPingPong64x128:
      return f(TiledEntry<DualGemmPingPong64x128<Out>>{});
    case DualGemmChoice::kPingPong64x96:
      return f(TiledEntry<DualGemmPingPong64x96<Out>>{});
    case DualGemmChoice::kSwapAbTokens16:
      return f(SwapAbEntry<DualGemmSwapAbTokens16<Out>, DualGemmSwapAbTokens16<Out>>{});
    case DualGemmChoice::kSwapAbTokens64:
      return f(SwapAbEntry<DualGemmSwapAbTokens64<Out>, DualGemmSwapAbTokens64<Out>>{});
    case DualGemmChoice::kSwapAbTokens128:
      return f(SwapAbEntry<DualGemmSwapAbTokens128<Out>, void>{});
    case DualGemmChoice::kSwapAbTokens160:
      return f(SwapAbEntry<DualGemmSwapAbTokens160<Out>, DualGemmSwapAbTokens160<Out>>{});
    default:
      return f(TiledEntry<DualGemmTile128x128<Out>>{});
  }
}

// ---- the rules' view of the Configs, checked --------------------------------------------------------------
namespace detail {
template <class Cfg, class StreamKCfg>
constexpr bool swap_ab_shape_matches(const SwapAbShape& s) {
  bool ok = s.block_tokens == Cfg::kBlockTokens && s.block_weights == Cfg::kBlockWeights &&
            Cfg::kBlockK == kBlockK &&
            s.heavy_split == (Cfg::kWeights * Cfg::kAccRegs > kSplitLightPartialWords);
  if constexpr (std::is_void_v<StreamKCfg>) {
    ok = ok && s.stream_k_block_weights == 0;
  } else {
    ok = ok && s.stream_k_block_weights == StreamKCfg::kBlockWeights &&
         StreamKCfg::kBlockTokens == Cfg::kBlockTokens && StreamKCfg::kBlockK == kBlockK;
  }
  return ok;
}
template <class Out>
constexpr bool catalogue_matches_rules() {
  bool ok = true;
  for (int i = 0; i < kGemmChoiceCount; ++i) {
    const GemmChoice c = static_cast<GemmChoice>(i);
    ok = ok && visit_gemm_choice<Out>(c, [&](auto entry) {
           using E = decltype(entry);
           using Cfg = typename E::Config;
           if constexpr (std::is_same_v<E, TiledEntry<Cfg>>) {
             return !is_swap_ab_choice(c) && Cfg::kBlockK == kBlockK &&
                    gemm_choice_splits_k(c) == (Cfg::kSplitK && Cfg::kClusterCtas == 1 &&
                                                Cfg::kRowBlocks == 1 && !Cfg::kPingPong && !Cfg::kStreamK) &&
                    gemm_choice_has_stream_k(c) == static_cast<bool>(Cfg::kStreamK);
           } else {
             return is_swap_ab_choice(c) &&
                    swap_ab_shape_matches<Cfg, typename E::StreamKConfig>(gemm_swap_ab_shape(c));
           }
         });
  }
  for (const TiledWidth& w : kTiledWidths)
    ok = ok && visit_gemm_choice<Out>(w.choice, [&](auto entry) {
           using E = decltype(entry);
           using Cfg = typename E::Config;
           if constexpr (std::is_same_v<E, TiledEntry<Cfg>>)
             return Cfg::kBlockN == w.block_n && Cfg::kBlockM == 128 && Cfg::kClusterCtas == 1;
           else
             return false;
         });
  ok = ok && GemmSwapAbTokens192<Out>::kBlockWeights == kTokens192BlockWeights;
  ok = ok && GemmStreamK128x256<Out>::kBlockN == 256 && GemmStreamK128x256<Out>::kBlockK == kBlockK;
  for (int i = 0; i < kDualGemmChoiceCount; ++i) {
    const DualGemmChoice c = static_cast<DualGemmChoice>(i);
    ok = ok && visit_dual_gemm_choice<Out>(c, [&](auto entry) {
           using E = decltype(entry);
           using Cfg = typename E::Config;
           if constexpr (std::is_same_v<E, TiledEntry<Cfg>>) {
             return !is_dual_swap_ab_choice(c);
           } else {
             return is_dual_swap_ab_choice(c) &&
                    swap_ab_shape_matches<Cfg, typename E::StreamKConfig>(dual_gemm_swap_ab_shape(c));
           }
         });
  }
  return ok;
}
static_assert(
    catalogue_matches_rules<__nv_bfloat16>(),
    "sm90/choice.hpp's view of a Config (tile, stream-K tile, split costs) differs from the Config");
}  // namespace detail

}  // namespace bwgemm::sm90
