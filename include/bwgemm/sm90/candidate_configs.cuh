// The sm_90a Configs outside the default choice, and the entry points that run one side of the choice
// whatever the shape: what the tests and the benchmark's candidates (bench/candidates_sm90.cu) measure
// against the choice. sm90/catalogue.cuh holds the Configs the default entry points choose from.
#pragma once

#include <string>

#include "bwgemm/sm90/catalogue.cuh"
#include "bwgemm/sm90/choice.hpp"
#include "bwgemm/sm90/dual_gemm.cuh"
#include "bwgemm/sm90/gemm.cuh"

namespace bwgemm::sm90 {

// ---- GEMM tile shapes outside the choice ------------------------------------------------------------------
//   GemmTile128x256Cluster2  : the 128 x 256 tile in clusters of two CTAs along M sharing B through TMA
//                              multicast (not chosen: where every pair gets enough tiles,
//                              prefer_cluster_pair, the ping-pong kernel costs less; bench
//                              bwgemm_sm90_cluster2)
// cuBLASLt's 256 x 128 shape and its pieces (bench candidate bwgemm_sm90_tall_c2n): measured on the H200
// (2026-12-01, docs/data/h200_2026-12-01_paired_tall_candidates.json, paired over the model sweep at M =
// 512..8192): equal to the default within 1% at M >= 4096 and up to 2x slower at M = 512 (half-empty 256-row
// tiles):
//   GemmTile256x128          : 256 x 128 tiles (RowBlocks 2: each consumer owns 128 rows), 4 stages
//   GemmTile256x128Cluster2N : the 256 x 128 tile in pairs side by side along N sharing A
//   GemmTile128x256Cluster2N : the 128 x 256 tile in pairs along N sharing A
// Ping-pong variants (bench candidates bwgemm_sm90_pp_c2, _pp_wide; H200, 2026-12-01,
// docs/data/h200_2026-12-01_paired_pingpong_candidates.json):
//   GemmPingPong128x128Cluster2 : GemmPingPong128x128 in clusters of two CTAs along M sharing B (0.3-0.7%
//                                 behind it in geomean at M >= 2048)
//   GemmPingPong64x256          : 64 x 256 tiles per consumer, 4 stages (2-3% behind)
//   GemmTile256x160             : 256 x 160 tiles, 3 stages of 56 KiB (bench bwgemm_sm90_t160; H200,
//                                 2026-12-02, docs/data/h200_2026-12-02_paired_tiles160_candidates.json:
//                                 ahead of the default only on a few one-wave shapes, 0.68-0.96x per M
//                                 elsewhere)
//   GemmStreamK128x128          : GemmTile128x128's tile under stream-K (bench bwgemm_sm90_sk128)
template <class Out>
using GemmTile128x256Cluster2 = GemmConfig<256, 4, 2, sched::StaticPersistent, epi::LinearCombination, Out>;
template <class Out>
using GemmTile256x128 =
    GemmConfig<128, 4, 1, sched::StaticPersistent, epi::LinearCombination, Out, true, /*RowBlocks=*/2>;
template <class Out>
using GemmTile256x128Cluster2N =
    GemmConfig<128, 4, 2, sched::StaticPersistent, epi::LinearCombination, Out, true,
               /*RowBlocks=*/2, /*ClusterAlongN=*/true>;
template <class Out>
using GemmTile128x256Cluster2N =
    GemmConfig<256, 4, 2, sched::StaticPersistent, epi::LinearCombination, Out, true,
               /*RowBlocks=*/1, /*ClusterAlongN=*/true>;
template <class Out>
using GemmPingPong128x128Cluster2 =
    GemmConfig<128, 6, 2, sched::StaticPersistent, epi::LinearCombination, Out, true,
               /*RowBlocks=*/2, /*ClusterAlongN=*/false, /*PingPong=*/true>;
template <class Out>
using GemmPingPong64x256 = GemmConfig<256, 4, 1, sched::StaticPersistent, epi::LinearCombination, Out, true,
                                      /*RowBlocks=*/1, /*ClusterAlongN=*/false, /*PingPong=*/true>;
template <class Out>
using GemmTile256x160 =
    GemmConfig<160, 3, 1, sched::StaticPersistent, epi::LinearCombination, Out, true, /*RowBlocks=*/2>;
template <class Out>
using GemmStreamK128x128 = GemmConfig<128, 6, 1, sched::StreamK, epi::LinearCombination, Out>;

// ---- dual GEMM tile shapes outside the choice -------------------------------------------------------------
//   DualGemmTile128x64Cluster2 : 128 x 64 pairs in clusters of two CTAs along M (dual_gemm_cluster2)
//   DualGemmTile128x96         : 128 x 96 pairs, 5 stages of 40 KiB: behind the default on 20 of the 21
//   points
//                                measured (H200, 2026-12-02,
//                                docs/data/h200_2026-12-02_paired_dual96_candidates.json)
template <class Out>
using DualGemmTile128x64Cluster2 = DualGemmConfig<64, 6, 2, sched::StaticPersistent, epi::SiluMul, Out>;
template <class Out>
using DualGemmTile128x96 =
    DualGemmConfig<96, 5, 1, sched::StaticPersistent, epi::SiluMul, Out, /*TmaStore=*/true>;

// ---- one side of the choice whatever the shape ------------------------------------------------------------
namespace detail {
// The tiled plan (gemm_tiled_plan) for the call, with stream-K where its workspace holds the launch, or with
// the split forced to forced_split (then never stream-K).
template <class In, class Out>
GemmPlan tiled_plan_for(const GemmArguments<In, Out>& args, int forced_split) {
  const DeviceFacts d = gemm_device_facts(args);
  int64_t stream_k_ctas = 0;
  if (forced_split == 0 && args.workspace != nullptr) {
    int64_t bytes = 0, ctas = 0;
    if (Gemm<GemmStreamK128x256<Out>>::workspace_bytes(args, &bytes, &ctas).ok() &&
        args.workspace_bytes >= bytes)
      stream_k_ctas = ctas;
  }
  const GemmTiledPlan p =
      gemm_tiled_plan(args.m, args.n, args.k, args.batch, args.b_layout, stream_k_ctas, d);
  return {p.choice, forced_split != 0 ? forced_split : p.split_k, p.choice == GemmChoice::kStreamK128x256};
}
}  // namespace detail

// The tiled kernels only (gemm_tiled_plan, stream-K with a workspace as the default takes it).
template <class In, class Out>
Status gemm_tiled(const GemmArguments<In, Out>& args, cudaStream_t stream = nullptr) {
  return run_gemm_plan(detail::tiled_plan_for(args, 0), args, stream);
}
// The tiled kernel gemm_tiled_plan picks with the split forced to split_k (1, 2, 4, 8; refused where that
// kernel or the shape cannot take it, e.g. the ping-pong kernels or more splits than K blocks): for tuning
// the split model.
template <class In, class Out>
Status gemm_tiled_split(const GemmArguments<In, Out>& args, cudaStream_t stream, int split_k) {
  if (split_k < 1)
    return Status::invalid_argument("split_k must be 1, 2, 4 or 8 (got " + std::to_string(split_k) + ")");
  return run_gemm_plan(detail::tiled_plan_for(args, split_k), args, stream);
}
// A swap-AB choice's kernel whatever the shape: split_k 0 the default's split (swap_ab_plan: or stream-K with
// a workspace that holds it, where it pays), 1, 2, 4, 8 forced.
template <class In, class Out>
Status run_gemm_swap_ab(GemmChoice choice, const GemmArguments<In, Out>& args, cudaStream_t stream = nullptr,
                        int split_k = 0) {
  if (!is_swap_ab_choice(choice))
    return Status::invalid_argument(std::string(gemm_choice_name(choice)) + " is not a swap-AB choice");
  if (split_k != 0) return run_gemm_plan(GemmPlan{choice, split_k, false}, args, stream);
  const DeviceFacts d = detail::gemm_device_facts(args);
  const GemmPlan plan = detail::plan_with_workspace(
      args,
      [&](bool has_workspace) {
        const SwapAbPlan p =
            swap_ab_plan(gemm_swap_ab_shape(choice), args.m, args.n, args.k, args.batch, has_workspace, d);
        return GemmPlan{choice, p.split_k, p.stream_k};
      },
      [&](const GemmPlan& p) { return detail::gemm_plan_workspace_bytes(p, args); });
  return run_gemm_plan(plan, args, stream);
}
// The swap-AB kernels only: gemm_swap_ab_choice's kernel (run_gemm_swap_ab).
template <class In, class Out>
Status gemm_swap_ab(const GemmArguments<In, Out>& args, cudaStream_t stream = nullptr, int split_k = 0) {
  return run_gemm_swap_ab(gemm_swap_ab_choice(args.m), args, stream, split_k);
}

template <class In, class Out>
Status dual_gemm_tiled(const DualGemmArguments<In, Out>& args, cudaStream_t stream = nullptr) {
  const DeviceFacts d = detail::dual_gemm_device_facts(args);
  return run_dual_gemm_plan(DualGemmPlan{dual_gemm_tiled_choice(args.m, args.n, args.batch, d), 1, false},
                            args, stream);
}
template <class In, class Out>
Status dual_gemm_swap_ab(const DualGemmArguments<In, Out>& args, cudaStream_t stream = nullptr) {
  const DualGemmChoice choice = dual_gemm_swap_ab_choice(args.m);
  const DeviceFacts d = detail::dual_gemm_device_facts(args);
  const DualGemmPlan plan = detail::plan_with_workspace(
      args,
      [&](bool has_workspace) {
        const SwapAbPlan p = swap_ab_plan(dual_gemm_swap_ab_shape(choice), args.m, args.n, args.k, args.batch,
                                          has_workspace, d);
        return DualGemmPlan{choice, p.split_k, p.stream_k};
      },
      [&](const DualGemmPlan& p) { return detail::dual_gemm_plan_workspace_bytes(p, args); });
  return run_dual_gemm_plan(plan, args, stream);
}
// Both tile shapes in clusters of two CTAs along M, whatever the shape (bench:
// dual_bf16/bwgemm_sm90_cluster2).
template <class In, class Out>
Status dual_gemm_cluster2(const DualGemmArguments<In, Out>& args, cudaStream_t stream = nullptr) {
  if (args.m * args.batch <= 256) return DualGemm<DualGemmTile128x64Cluster2<Out>>::run(args, stream);
  return DualGemm<DualGemmTile128x128Cluster2<Out>>::run(args, stream);
}

}  // namespace bwgemm::sm90
