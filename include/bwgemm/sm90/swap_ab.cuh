// bwgemm's Hopper (sm_90a) small-M kernels (swap AB, split K; kernels/sm90/swap_ab_config.cuh says how they
// work) behind explicit-Config entry points, for the GEMM and the dual GEMM. The default entry points
// (sm90::gemm, sm90::dual_gemm) choose them by shape; call these to pick a Config (and a split) yourself:
//
//   using Cfg = bwgemm::sm90::SwapAbConfig<16, 12>;          // GEMM, tiles of 16 tokens x 128 weight rows
//   bwgemm::Status s = bwgemm::sm90::SwapAbGemm<Cfg>::run(args, stream);       // split chosen per shape
//   s = bwgemm::sm90::SwapAbGemm<Cfg>::run(args, stream, /*split_k=*/4);      // or given: 1, 2, 4 or 8
//   using Dual = bwgemm::sm90::SwapAbConfig<16, 11, 2, bwgemm::epi::SiluMul, __nv_bfloat16, 1>;  // 64 rows
//   s = bwgemm::sm90::SwapAbDualGemm<Dual>::run(dual_args, stream);
//
// The arguments are the operations' own (bwgemm::GemmArguments, bwgemm::DualGemmArguments) with every rule
// of bwgemm::validate; any M >= 1 (M tiles of BlockTokens tokens; more than BlockTokens tokens take several
// tiles, each streaming the weights again). No workspace: split K reduces inside the cluster, in a fixed
// order, so a call gives the same bits on every run (for a given split, which the default choice takes from
// the shape and the device only). Asynchronous on `stream`; allocates nothing; does not synchronize.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string>

#include "bwgemm/arguments/dual_gemm.hpp"
#include "bwgemm/arguments/gemm.hpp"
#include "bwgemm/base/diagnostics.hpp"
#include "bwgemm/base/int_math.hpp"
#include "bwgemm/base/layout.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/host/launch.hpp"
#include "bwgemm/kernels/sm90/swap_ab_config.cuh"
#include "bwgemm/kernels/sm90/swap_ab_kernel.cuh"
#include "bwgemm/sm90/operand_map.cuh"
#include "bwgemm/sm90/split_k.cuh"

namespace bwgemm::sm90 {

// ---- the split of K ------------------------------------------------------------------------------------
// The splits a swap-AB launch may use: kSplitKChoices (sm90/split_k.cuh: 1, 2, 4, 8).
// A split's cost over its K blocks, in percent: every CTA of a split writes, synchronises and reduces its
// partials, and streams a shorter run of each weight row. Measured on an H200 (docs/hopper.md, sixth session,
// runs B-C: 2 CTAs per tile cost 0-15% more than the K blocks alone predict, 4 and 8 CTAs 15-50% more).
inline constexpr int64_t kSplitCostPercent[4] = {100, 115, 150, 200};

// The split the default choice takes: the one that minimises waves · ceil(K blocks / s) · kSplitCostPercent,
// where a wave is as many tiles as clusters of that size fit on the device at once (resident[i] for
// kSplitKChoices[i]); never more CTAs per tile than K blocks; ties go to the smaller split.
constexpr int choose_split_k(int64_t tiles, int64_t k_blocks, const int64_t (&resident)[4]) {
  return lowest_cost_split_k(k_blocks, resident, [&](int i, int s) {
    const int64_t waves = ceil_div(tiles, resident[i] < 1 ? int64_t{1} : resident[i]);
    return waves * ceil_div(k_blocks, int64_t{s}) * kSplitCostPercent[i];
  });
}

namespace detail {

// Fills p.splits (given, or chosen from the device's resident clusters) and launches: without a split a
// persistent grid of min(tiles, resident CTAs) (p.grid_ctas), with one tiles · splits CTAs in clusters of
// p.splits.
template <class Cfg, class Params>
Status launch_swap_ab(void (*kernel)(const Params), Params& p, int split_k, cudaStream_t stream,
                      const LaunchOptions& options) {
  const int64_t tiles = p.tiles.total();
  const int64_t k_blocks = ceil_div(static_cast<int64_t>(p.k), int64_t{Cfg::kBlockK});
  int64_t resident[kSplitKChoiceCount];
  // A forced split needs only the one-CTA count.
  if (Status s = split_k_resident_clusters(kernel, Cfg::kThreads, Cfg::kSmemBytes, split_k == 0, resident);
      !s.ok())
    return s;
  if (split_k == 0) split_k = choose_split_k(tiles, k_blocks, resident);
  ::bwgemm::detail::report_choice(
      "bwgemm::sm90 swap-AB launch", p.m, p.n, p.k, p.tiles.batch,
      "split_k = " + std::to_string(split_k) + " over " + std::to_string(tiles) + " tiles");
  int64_t ctas = 0;
  if (Status s = split_k_ctas(tiles, split_k, &ctas); !s.ok()) return s;
  p.splits = split_k;
  if (split_k == 1) ctas = tiles < resident[0] ? tiles : resident[0];
  p.grid_ctas = static_cast<int32_t>(ctas);
  return launch_split_k<Cfg>(kernel, p, ctas, split_k, stream, options);
}

}  // namespace detail

// ---- the GEMM --------------------------------------------------------------------------------------------
template <class Cfg>
struct SwapAbGemm {
  static_assert(Cfg::kWeights == 1, "SwapAbGemm takes a Config with Weights = 1 (SwapAbDualGemm: 2)");
  using Out = typename Cfg::Out;
  using Epilogue = typename Cfg::Epilogue;
  using Params = SwapAbParams<Cfg>;

  template <class In>
  static Status can_implement(const GemmArguments<In, Out, Epilogue>& a, int split_k = 0) {
    if (Status s = ::bwgemm::detail::can_implement_config<Cfg>(a); !s.ok()) return s;
    return detail::check_split_k(split_k, ceil_div(a.k, int64_t{Cfg::kBlockK}));
  }

  // split_k: 0 chooses from the shape and the device (choose_split_k); 1, 2, 4 or 8 forces it.
  template <class In>
  static Status run(const GemmArguments<In, Out, Epilogue>& a, cudaStream_t stream = nullptr,
                    int split_k = 0) {
    if (Status s = can_implement(a, split_k); !s.ok()) return s;
    if (Status s = host::require_compute_capability_90("bwgemm::sm90::SwapAbGemm"); !s.ok()) return s;
    if (Status s = host::require_device_pointers(device_operands(a), "bwgemm::sm90::SwapAbGemm"); !s.ok())
      return s;
    const ::bwgemm::detail::GemmStrides st = ::bwgemm::detail::gemm_strides(a);
    const bool kxn = a.b_layout == BLayout::kRowMajorKxN;
    Params p;
    if (Status s = detail::operand_map(a.a, a.k, a.m, a.batch, st.lda, st.batch_stride_a, Cfg::kBlockK,
                                       Cfg::kBlockTokens, &p.tmap_tokens);
        !s.ok())
      return s;
    if (Status s = kxn ? detail::operand_map(a.b, a.n, a.k, a.batch, st.ldb, st.batch_stride_b,
                                             Cfg::kWarpgroupWeights, Cfg::kBlockK, &p.tmap_w[0])
                       : detail::operand_map(a.b, a.k, a.n, a.batch, st.ldb, st.batch_stride_b, Cfg::kBlockK,
                                             Cfg::kBlockWeights, &p.tmap_w[0]);
        !s.ok())
      return s;
    ::bwgemm::detail::fill_common_gemm_params<Cfg>(a, st, &p);
    auto* kernel = kxn ? &swap_ab_kernel<Cfg, In, true> : &swap_ab_kernel<Cfg, In, false>;
    return detail::launch_swap_ab<Cfg>(kernel, p, split_k, stream, a.launch);
  }
};

// ---- the dual GEMM ---------------------------------------------------------------------------------------
template <class Cfg>
struct SwapAbDualGemm {
  static_assert(Cfg::kWeights == 2, "SwapAbDualGemm takes a Config with Weights = 2 (SwapAbGemm: 1)");
  using Out = typename Cfg::Out;
  using Epilogue = typename Cfg::Epilogue;
  using Params = SwapAbParams<Cfg>;

  template <class In>
  static Status can_implement(const DualGemmArguments<In, Out, Epilogue>& a, int split_k = 0) {
    if (Status s = ::bwgemm::detail::can_implement_config<Cfg>(a); !s.ok()) return s;
    return detail::check_split_k(split_k, ceil_div(a.k, int64_t{Cfg::kBlockK}));
  }

  template <class In>
  static Status run(const DualGemmArguments<In, Out, Epilogue>& a, cudaStream_t stream = nullptr,
                    int split_k = 0) {
    if (Status s = can_implement(a, split_k); !s.ok()) return s;
    if (Status s = host::require_compute_capability_90("bwgemm::sm90::SwapAbDualGemm"); !s.ok()) return s;
    if (Status s = host::require_device_pointers(device_operands(a), "bwgemm::sm90::SwapAbDualGemm"); !s.ok())
      return s;
    const auto [lda, ldb, ldc] = ::bwgemm::detail::dual_gemm_strides(a);
    Params p;
    if (Status s = detail::operand_map(a.a, a.k, a.m, a.batch, lda, a.m * lda, Cfg::kBlockK,
                                       Cfg::kBlockTokens, &p.tmap_tokens);
        !s.ok())
      return s;
    const In* weights[2] = {a.b1, a.b2};
    for (int w = 0; w < 2; ++w) {
      if (Status s = detail::operand_map(weights[w], a.k, a.n, a.batch, ldb, a.n * ldb, Cfg::kBlockK,
                                         Cfg::kBlockWeights, &p.tmap_w[w]);
          !s.ok())
        return s;
    }
    p.d = a.c;
    p.ldd = ldc;
    p.batch_stride_d = a.m * ldc;
    p.m = static_cast<int32_t>(a.m);
    p.n = static_cast<int32_t>(a.n);
    p.k = static_cast<int32_t>(a.k);
    p.tiles = ::bwgemm::detail::config_tile_grid<Cfg>(a.m, a.n, a.batch);
    p.alpha1 = a.alpha1;
    p.alpha2 = a.alpha2;
    p.alpha1_ptr = a.alpha1_ptr;  // device scales (arguments/common.hpp, check_device_scale)
    p.alpha2_ptr = a.alpha2_ptr;
    p.epilogue = a.epilogue;
    return detail::launch_swap_ab<Cfg>(&swap_ab_kernel<Cfg, In, false>, p, split_k, stream, a.launch);
  }
};

// ---- the Configs the default entry points choose from ----------------------------------------------------
// Tiles of 64 weight rows (one consumer warpgroup) and 16 (M <= 16), 64 or 128 tokens; as many stages as
// leave about 192 KiB in flight per SM. Measured on an H200 (docs/hopper.md, fifth session, run 5): tiles of
// 64 rows with the split of choose_split_k came within 2% of the best of {64, 128 rows} x {1, 2, 4, 8
// splits} on every projection tried, and 128-row tiles lost up to 35% where their tiles left SMs idle (N =
// 4096: 32 tiles for 132 SMs).
template <class Out>
using GemmSwapAb16 = SwapAbConfig<16, 16, 1, epi::LinearCombination, Out, 1>;
template <class Out>
using GemmSwapAb64 = SwapAbConfig<64, 12, 1, epi::LinearCombination, Out, 1>;
template <class Out>
using GemmSwapAb128 = SwapAbConfig<128, 8, 1, epi::LinearCombination, Out, 1>;
// 32 tokens (16 stages of 12 KiB), for 16 < M <= 32: 0.943x of cuBLASLt at M = 32 over 24 projections where
// GemmSwapAb64 is 0.779x (H200, sixth session, run 3: the bench's validated bwgemm_sm90_swapab32).
template <class Out>
using GemmSwapAb32 = SwapAbConfig<32, 16, 1, epi::LinearCombination, Out, 1>;
template <class Out>
using DualGemmSwapAb16 = SwapAbConfig<16, 11, 2, epi::SiluMul, Out, 1>;
template <class Out>
using DualGemmSwapAb64 = SwapAbConfig<64, 8, 2, epi::SiluMul, Out, 1>;
template <class Out>
using DualGemmSwapAb128 = SwapAbConfig<128, 6, 2, epi::SiluMul, Out, 1>;

}  // namespace bwgemm::sm90
