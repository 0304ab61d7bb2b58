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
// tiles, each streaming the weights again). Split K (run) reduces inside the cluster, in a fixed order,
// with no workspace. The GEMM also runs stream-K (run_stream_k, with GemmArguments::workspace): every CTA
// streams the same number of K blocks whatever the tile count, the tiles' sums handed off through the
// workspace and added in K order. Either way a call gives the same bits on every run (for a given split or
// CTA count, which the default choice takes from the shape, the device and the workspace only).
// Asynchronous on `stream`; allocates nothing; does not synchronize.
//
//   int64_t bytes = 0;
//   bwgemm::sm90::SwapAbGemm<Cfg>::workspace_bytes(args, &bytes);   // zero-filled once, then reused
//   args.workspace = ws, args.workspace_bytes = bytes;
//   s = bwgemm::sm90::SwapAbGemm<Cfg>::run_stream_k(args, stream);  // one CTA per resident CTA
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "bwgemm/arguments/dual_gemm.hpp"
#include "bwgemm/arguments/gemm.hpp"
#include "bwgemm/base/diagnostics.hpp"
#include "bwgemm/base/int_math.hpp"
#include "bwgemm/base/layout.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/host/dual_gemm_params.hpp"
#include "bwgemm/host/launch.hpp"
#include "bwgemm/kernels/sm90/swap_ab_config.cuh"
#include "bwgemm/kernels/sm90/swap_ab_kernel.cuh"
#include "bwgemm/sm90/operand_map.cuh"
#include "bwgemm/sm90/split_k.cuh"

namespace bwgemm::sm90 {

// ---- the split of K ------------------------------------------------------------------------------------
// The splits a swap-AB launch may use: kSplitKChoices (sm90/split_k.cuh: 1, 2, 4, 8).
// A split's cost over its K blocks, in percent: every CTA of a split writes, synchronises and reduces its
// partials, and streams a shorter run of each weight row. Measured on an H200 (2026-12-01, the swap-AB split
// forced to 1, 2, 4, 8; docs/hopper.md's small-M kernels: 2 CTAs per tile cost 0-15% more than the K blocks
// alone predict, 4 and 8 CTAs 15-50% more).
inline constexpr int64_t kSplitCostPercent[4] = {100, 115, 150, 200};
// Configs whose consumer threads each hold more than kSplitLightPartialWords accumulator words (Weights x
// kAccRegs: the 160-token dual pairs' 2 x 80; every other shipped Config 128 or fewer) split at
// kHeavySplitCostPercent: fitted on an H200 (2026-12-03,
// docs/data/h200_2026-12-03_paired_dual_tokens160_splits.json: DualGemmSwapAbTokens160 forced to 1, 2 and 4
// CTAs per tile at M = 136 and 160 on 12 models' gate/up projections, the time ratio to one CTA over the
// ratio of waves x K blocks): 2 CTAs 145 (123-184 per shape), 4 CTAs 195 (148-270); 8 not measured (260: the
// light table's ratio of 8 to 4 carried over). With the light table the default split these pairs in two at N
// = 8960-12288 and ran 1.2-1.6x slower than one CTA per tile or stream-K.
inline constexpr int kSplitLightPartialWords = 128;
inline constexpr int64_t kHeavySplitCostPercent[4] = {100, 145, 195, 260};
// The split-cost table choose_split_k and swap_ab_stream_k_pays weigh a Config's splits with.
template <class Cfg>
constexpr const int64_t (&swap_ab_split_cost_percent())[4] {
  return Cfg::kWeights * Cfg::kAccRegs > kSplitLightPartialWords ? kHeavySplitCostPercent : kSplitCostPercent;
}

// The split the default choice takes: the one that minimises waves · ceil(K blocks / s) · kSplitCostPercent,
// where a wave is as many tiles as clusters of that size fit on the device at once (resident[i] for
// kSplitKChoices[i]); never more CTAs per tile than K blocks; ties go to the smaller split.
// `cost` is the Config's table (swap_ab_split_cost_percent).
constexpr int64_t swap_ab_split_cost(int64_t tiles, int64_t k_blocks, const int64_t (&resident)[4], int i,
                                     const int64_t (&cost)[4] = kSplitCostPercent) {
  const int64_t waves = ceil_div(tiles, resident[i] < 1 ? int64_t{1} : resident[i]);
  return waves * ceil_div(k_blocks, int64_t{kSplitKChoices[i]}) * cost[i];
}
constexpr int choose_split_k(int64_t tiles, int64_t k_blocks, const int64_t (&resident)[4],
                             const int64_t (&cost)[4] = kSplitCostPercent) {
  return lowest_cost_split_k(
      k_blocks, resident, [&](int i, int) { return swap_ab_split_cost(tiles, k_blocks, resident, i, cost); });
}

// Stream-K against the cluster split, for the default choice (a call with a workspace): stream-K costs
// (ceil(tiles · K blocks / resident CTAs) + kSwapAbStreamKFixedKBlocks) · 100, the tiles those of the 64-row
// Configs (the stream-K Configs' 128-row tiles move the same bytes per K block in two), and is taken only
// above one wave of tiles where that is below choose_split_k's cost. Measured on an H200 (2026-12-02,
// docs/data/h200_2026-12-02_paired_swapab_streamk_candidates.json and _sweep.json; bf16 and fp16, M = 1..64,
// both B layouts, the model sweep and six other models' projections): stream-K won by 2-36% where the tiles'
// last wave was short (N = 10240, 18944, 28672, 37888, 55296 in 64-row tiles), lost 3-8% at N = 14336 with K
// = 3584 (224 tiles: two waves, the second 70% full) and 1.5-20% at one wave or less (N <= 8192): its CTAs at
// staggered K offsets stream the weights about 8% slower than whole tiles do (3.3-3.5 against 3.6-3.9 TB/s)
// and the last hand-off's round trip through L2 ends the call. The fixed 20 K blocks lie between the 16 at
// which N = 14336 ties and the 28 at which N = 37888 (stream-K 1-7% ahead) would flip: a boundary fitted on
// those two files, not checked on other data.
inline constexpr int64_t kSwapAbStreamKFixedKBlocks = 20;
constexpr bool swap_ab_stream_k_pays(int64_t tiles, int64_t k_blocks, const int64_t (&resident)[4],
                                     const int64_t (&cost)[4] = kSplitCostPercent) {
  if (resident[0] < 1 || tiles <= resident[0]) return false;
  const int split = choose_split_k(tiles, k_blocks, resident, cost);
  int i = 0;
  while (kSplitKChoices[i] != split) ++i;
  return (ceil_div(tiles * k_blocks, resident[0]) + kSwapAbStreamKFixedKBlocks) * 100 <
         swap_ab_split_cost(tiles, k_blocks, resident, i, cost);
}

// ---- stream-K (GemmArguments::workspace) -----------------------------------------------------------------
// The workspace of a swap-AB stream-K launch on `ctas` CTAs: a 32-bit flag per CTA, rounded up to
// kStreamKFlagBytesAlign bytes, then each CTA's slot of Cfg::kPartialBytes (the fp32 sums of the one
// segment it may hand off). Only the flags must be zero before a call, and a call leaves them zero.
template <class Cfg>
constexpr int64_t swap_ab_stream_k_workspace_bytes(int64_t ctas) {
  return round_up(ctas * 4, kStreamKFlagBytesAlign) + ctas * int64_t{Cfg::kPartialBytes};
}

// What a caller asks of a swap-AB launch's split of K: a cluster split (split_k 0: choose_split_k; 1, 2, 4,
// 8: forced), or stream-K on a given number of CTAs (0: one per resident CTA) over the workspace.
struct SwapAbSplitRequest {
  int split_k = 0;            // 0: chosen; 1, 2, 4, 8: forced (ignored with stream_k)
  bool stream_k = false;      // stream-K instead
  int64_t stream_k_ctas = 0;  // with stream_k: 0 one per resident CTA, else that many
  void* workspace = nullptr;  // with stream_k: GemmArguments::workspace
  int64_t workspace_bytes = 0;
};

namespace detail {

// The stream-K CTAs and workspace bytes of a launch of `kernel` for p (its tiles and K), or an error naming
// what does not fit: more CTAs than the device holds at once (a head waits for the others), units >= 2^31.
template <class Cfg, class Params>
Status swap_ab_stream_k_plan(void (*kernel)(const Params), const Params& p, int64_t requested, int64_t* ctas,
                             int64_t* bytes) {
  int64_t want = 0, resident = 0;
  if (Status s = stream_k_grid_ctas<Cfg>(kernel, requested, &want, &resident); !s.ok()) return s;
  const int64_t units = p.tiles.total() * ceil_div(static_cast<int64_t>(p.k), int64_t{Cfg::kBlockK});
  if (units > INT32_MAX)
    return Status::invalid_argument("stream-K: tiles x K blocks must be below 2^31 (got " +
                                    std::to_string(units) + ")");
  *ctas = want < units ? want : units;  // every CTA at least one K block
  *bytes = swap_ab_stream_k_workspace_bytes<Cfg>(*ctas);
  return Status::success();
}

// Fills p's split (given, chosen from the device's resident clusters, or stream-K) and launches: without a
// split a persistent grid of min(tiles, resident CTAs) (p.grid_ctas), with one tiles · splits CTAs in
// clusters of p.splits, with stream-K p.sk_ctas CTAs over the workspace.
template <class Cfg, class Params>
Status launch_swap_ab(void (*kernel)(const Params), Params& p, const SwapAbSplitRequest& how,
                      cudaStream_t stream, const LaunchOptions& options) {
  const int64_t tiles = p.tiles.total();
  const int64_t k_blocks = ceil_div(static_cast<int64_t>(p.k), int64_t{Cfg::kBlockK});
  if (how.stream_k) {
    int64_t ctas = 0, need = 0;
    if (Status s = swap_ab_stream_k_plan<Cfg>(kernel, p, how.stream_k_ctas, &ctas, &need); !s.ok()) return s;
    if (how.workspace == nullptr || how.workspace_bytes < need)
      return Status::invalid_argument("workspace: this swap-AB stream-K launch (" + std::to_string(ctas) +
                                      " CTAs) takes " + std::to_string(need) + " bytes (got " +
                                      std::to_string(how.workspace_bytes) +
                                      "; SwapAbGemm::workspace_bytes says how many)");
    ::bwgemm::detail::report_choice(
        "bwgemm::sm90 swap-AB launch", p.m, p.n, p.k, p.tiles.batch,
        "stream-K on " + std::to_string(ctas) + " CTAs over " + std::to_string(tiles) + " tiles");
    p.splits = 1;
    p.grid_ctas = static_cast<int32_t>(ctas);
    p.sk_ctas = static_cast<int32_t>(ctas);
    p.sk_flags = static_cast<uint32_t*>(how.workspace);
    p.sk_partials = reinterpret_cast<float*>(static_cast<char*>(how.workspace) +
                                             round_up(ctas * 4, kStreamKFlagBytesAlign));
    return launch_split_k<Cfg>(kernel, p, ctas, 1, stream, options);
  }
  int split_k = how.split_k;
  int64_t resident[kSplitKChoiceCount];
  // A forced split needs only the one-CTA count.
  if (Status s = split_k_resident_clusters(kernel, Cfg::kThreads, Cfg::kSmemBytes, split_k == 0, resident);
      !s.ok())
    return s;
  if (split_k == 0) split_k = choose_split_k(tiles, k_blocks, resident, swap_ab_split_cost_percent<Cfg>());
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

// The stream-K entry points of the swap-AB GEMM and dual GEMM (Op: SwapAbGemm<Cfg>, SwapAbDualGemm<Cfg>,
// which provide can_implement, kernel_of(args) and launch(args, stream, SwapAbSplitRequest)).
template <class Cfg, class Op>
struct SwapAbStreamKEntry {
  // Stream-K whatever the shape, on `ctas` CTAs (0: one per resident CTA; at most those, since a tile's
  // head waits for the other CTAs of its tile), with a.workspace of workspace_bytes(a, ..., ctas) or more.
  template <class Args>
  static Status run_stream_k(const Args& a, cudaStream_t stream = nullptr, int64_t ctas = 0) {
    if (Status s = Op::can_implement(a); !s.ok()) return s;
    SwapAbSplitRequest how;
    how.stream_k = true;
    how.stream_k_ctas = ctas;
    how.workspace = a.workspace_bytes > 0 ? a.workspace : nullptr;
    how.workspace_bytes = how.workspace != nullptr ? a.workspace_bytes : 0;
    return Op::launch(a, stream, how);
  }

  // The workspace bytes of a stream-K launch of `a` on the current device (run_stream_k with `ctas`), and
  // its CTA count in *ctas_out if given. Validates a.
  template <class Args>
  static Status workspace_bytes(const Args& a, int64_t* bytes, int64_t* ctas_out = nullptr,
                                int64_t ctas = 0) {
    *bytes = 0;
    if (ctas_out != nullptr) *ctas_out = 0;
    if (Status s = Op::can_implement(a); !s.ok()) return s;
    if (Status s = host::require_compute_capability_90("bwgemm::sm90 swap-AB stream-K"); !s.ok()) return s;
    SwapAbParams<Cfg> p;
    p.k = static_cast<int32_t>(a.k);
    p.tiles = ::bwgemm::detail::config_tile_grid<Cfg>(a.m, a.n, a.batch);
    int64_t n = 0;
    if (Status s = detail::swap_ab_stream_k_plan<Cfg>(Op::kernel_of(a), p, ctas, &n, bytes); !s.ok())
      return s;
    if (ctas_out != nullptr) *ctas_out = n;
    return Status::success();
  }
};

// ---- the GEMM --------------------------------------------------------------------------------------------
template <class Cfg>
struct SwapAbGemm : SwapAbStreamKEntry<Cfg, SwapAbGemm<Cfg>> {
  static_assert(Cfg::kWeights == 1, "SwapAbGemm takes a Config with Weights = 1 (SwapAbDualGemm: 2)");
  using Config = Cfg;
  using Out = typename Cfg::Out;
  using Epilogue = typename Cfg::Epilogue;
  using Params = SwapAbParams<Cfg>;

  template <class In>
  static Status can_implement(const GemmArguments<In, Out, Epilogue>& a, int split_k = 0) {
    if (Status s = ::bwgemm::detail::can_implement_config<Cfg>(a); !s.ok()) return s;
    return detail::check_split_k(split_k, ceil_div(a.k, int64_t{Cfg::kBlockK}));
  }

  // The cluster split of K: split_k 0 chooses from the shape and the device (choose_split_k); 1, 2, 4 or
  // 8 forces it. No workspace (a.workspace is not used).
  template <class In>
  static Status run(const GemmArguments<In, Out, Epilogue>& a, cudaStream_t stream = nullptr,
                    int split_k = 0) {
    if (Status s = can_implement(a, split_k); !s.ok()) return s;
    SwapAbSplitRequest how;
    how.split_k = split_k;
    return launch(a, stream, how);
  }

  template <class In>
  static auto kernel_for(BLayout b_layout) {
    return b_layout == BLayout::kRowMajorKxN ? &swap_ab_kernel<Cfg, In, true>
                                             : &swap_ab_kernel<Cfg, In, false>;
  }
  template <class In>
  static auto kernel_of(const GemmArguments<In, Out, Epilogue>& a) {
    return kernel_for<In>(a.b_layout);
  }

 private:
  friend SwapAbStreamKEntry<Cfg, SwapAbGemm<Cfg>>;
  template <class In>
  static Status launch(const GemmArguments<In, Out, Epilogue>& a, cudaStream_t stream,
                       const SwapAbSplitRequest& how) {
    if (Status s = host::require_compute_capability_90("bwgemm::sm90::SwapAbGemm"); !s.ok()) return s;
    if (Status s = host::require_device_pointers(device_operands(a), "bwgemm::sm90::SwapAbGemm"); !s.ok())
      return s;
    const ::bwgemm::detail::GemmStrides st = ::bwgemm::detail::gemm_strides(a);
    const bool kxn = a.b_layout == BLayout::kRowMajorKxN;
    Params p;
    if (Status s =
            detail::operand_maps_with_tail(a.a, a.k, a.m, a.batch, st.lda, st.batch_stride_a, Cfg::kBlockK,
                                           Cfg::kBlockTokens, &p.tmap_tokens, &p.tmap_tokens_tail);
        !s.ok())
      return s;
    if (Status s = kxn ? detail::operand_map(a.b, a.n, a.k, a.batch, st.ldb, st.batch_stride_b,
                                             Cfg::kWarpgroupWeights, Cfg::kBlockK, &p.tmap_w[0])
                       : detail::operand_map(a.b, a.k, a.n, a.batch, st.ldb, st.batch_stride_b, Cfg::kBlockK,
                                             Cfg::kBlockWeights, &p.tmap_w[0]);
        !s.ok())
      return s;
    ::bwgemm::detail::fill_common_gemm_params<Cfg>(a, st, &p);
    return detail::launch_swap_ab<Cfg>(kernel_for<In>(a.b_layout), p, how, stream, a.launch);
  }
};

// ---- the dual GEMM ---------------------------------------------------------------------------------------
template <class Cfg>
struct SwapAbDualGemm : SwapAbStreamKEntry<Cfg, SwapAbDualGemm<Cfg>> {
  static_assert(Cfg::kWeights == 2, "SwapAbDualGemm takes a Config with Weights = 2 (SwapAbGemm: 1)");
  using Config = Cfg;
  using Out = typename Cfg::Out;
  using Epilogue = typename Cfg::Epilogue;
  using Params = SwapAbParams<Cfg>;

  template <class In>
  static Status can_implement(const DualGemmArguments<In, Out, Epilogue>& a, int split_k = 0) {
    if (Status s = ::bwgemm::detail::can_implement_config<Cfg>(a); !s.ok()) return s;
    return detail::check_split_k(split_k, ceil_div(a.k, int64_t{Cfg::kBlockK}));
  }

  // The cluster split of K: split_k 0 chooses from the shape and the device (choose_split_k); 1, 2, 4 or
  // 8 forces it. No workspace (a.workspace is not used; run_stream_k, inherited, takes it).
  template <class In>
  static Status run(const DualGemmArguments<In, Out, Epilogue>& a, cudaStream_t stream = nullptr,
                    int split_k = 0) {
    if (Status s = can_implement(a, split_k); !s.ok()) return s;
    SwapAbSplitRequest how;
    how.split_k = split_k;
    return launch(a, stream, how);
  }
  template <class In>
  static auto kernel_of(const DualGemmArguments<In, Out, Epilogue>&) {
    return &swap_ab_kernel<Cfg, In, false>;
  }

 private:
  friend SwapAbStreamKEntry<Cfg, SwapAbDualGemm<Cfg>>;
  template <class In>
  static Status launch(const DualGemmArguments<In, Out, Epilogue>& a, cudaStream_t stream,
                       const SwapAbSplitRequest& how) {
    if (Status s = host::require_compute_capability_90("bwgemm::sm90::SwapAbDualGemm"); !s.ok()) return s;
    if (Status s = host::require_device_pointers(device_operands(a), "bwgemm::sm90::SwapAbDualGemm"); !s.ok())
      return s;
    const auto [lda, ldb, ldc] = ::bwgemm::detail::dual_gemm_strides(a);
    Params p;
    if (Status s = detail::operand_maps_with_tail(a.a, a.k, a.m, a.batch, lda, a.m * lda, Cfg::kBlockK,
                                                  Cfg::kBlockTokens, &p.tmap_tokens, &p.tmap_tokens_tail);
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
    host::fill_common_dual_gemm_params(a, ::bwgemm::detail::config_tile_grid<Cfg>(a.m, a.n, a.batch), &p);
    return detail::launch_swap_ab<Cfg>(kernel_of(a), p, how, stream, a.launch);
  }
};

// ---- the default entry points' swap-AB step (sm90::gemm, sm90::dual_gemm) ---------------------------------
namespace detail {
// StreamKOp for a choice the default never runs stream-K (kSwapAbTokens128: its narrow shapes have at most
// one wave of tiles): no workspace, the cluster split only.
struct NoStreamK {};

// The workspace bytes of the stream-K launch the default takes for the call: StreamKOp's
// (SwapAbGemm / SwapAbDualGemm of the stream-K Config), where swap_ab_stream_k_pays on SplitOp's tiles and
// resident clusters (the cluster-split Config's), else 0 (also where the device cannot say, or the shape
// does not fit a stream-K launch).
template <class SplitOp, class StreamKOp, class Args>
int64_t default_stream_k_bytes(const Args& args) {
  if constexpr (std::is_same_v<StreamKOp, NoStreamK>) {
    return 0;
  } else {
    using Cfg = typename SplitOp::Config;
    int64_t resident[kSplitKChoiceCount];
    if (!split_k_resident_clusters(SplitOp::kernel_of(args), Cfg::kThreads, Cfg::kSmemBytes, true, resident)
             .ok())
      return 0;
    const int64_t tiles = ::bwgemm::detail::config_tile_grid<Cfg>(args.m, args.n, args.batch).total();
    if (!swap_ab_stream_k_pays(tiles, ceil_div(args.k, int64_t{Cfg::kBlockK}), resident,
                               swap_ab_split_cost_percent<Cfg>()))
      return 0;
    int64_t bytes = 0;
    return StreamKOp::workspace_bytes(args, &bytes).ok() ? bytes : 0;
  }
}
// The default's swap-AB kernel: StreamKOp's stream-K where default_stream_k_bytes says so and the call's
// workspace holds it, else SplitOp's cluster split (split_k as run takes it; a forced split never stream-K).
template <class SplitOp, class StreamKOp, class Args>
Status run_default_swap_ab(const Args& args, cudaStream_t stream, int split_k) {
  if constexpr (!std::is_same_v<StreamKOp, NoStreamK>) {
    if (split_k == 0 && args.workspace != nullptr && args.workspace_bytes > 0) {
      const int64_t bytes = default_stream_k_bytes<SplitOp, StreamKOp>(args);
      if (bytes > 0 && args.workspace_bytes >= bytes) return StreamKOp::run_stream_k(args, stream);
    }
  }
  return SplitOp::run(args, stream, split_k);
}
}  // namespace detail

// ---- the Configs the default entry points choose from ----------------------------------------------------
// Tiles of 64 weight rows (one consumer warpgroup) and 16 (M <= 16), 64 or 128 tokens; as many stages as
// leave about 192 KiB in flight per SM. Measured on an H200 (2026-12-01, docs/hopper.md's small-M kernels):
// tiles of 64 rows with the split of choose_split_k came within 2% of the best of {64, 128 rows} x {1, 2, 4,
// 8 splits} on every projection tried, and 128-row tiles lost up to 35% where their tiles left SMs idle (N =
// 4096: 32 tiles for 132 SMs).
template <class Out>
using GemmSwapAbTokens16 = SwapAbConfig<16, 16, 1, epi::LinearCombination, Out, 1>;
template <class Out>
using GemmSwapAbTokens64 = SwapAbConfig<64, 12, 1, epi::LinearCombination, Out, 1>;
template <class Out>
using GemmSwapAbTokens128 = SwapAbConfig<128, 8, 1, epi::LinearCombination, Out, 1>;
// 160 tokens x 128 weight rows (two consumer warpgroups), 6 stages of 36 KiB: for 128 < M <= 160, one token
// tile holding every row (kGemmSwapAbTokens160MaxM in sm90/gemm.cuh; H200, 2026-12-02,
// docs/data/h200_2026-12-02_paired_tokens_candidates_half_tile.json: the bench's bwgemm_sm90_swapab_t160,
// 1.092x the tiled default at M = 136 and 160); with a workspace the default runs it stream-K where
// swap_ab_stream_k_pays (H200, 2026-12-03,
// docs/data/h200_2026-12-03_paired_gemm_tokens160_streamk_validation.json: 1.20x the cluster split there).
template <class Out>
using GemmSwapAbTokens160 = SwapAbConfig<160, 6, 1, epi::LinearCombination, Out, 2>;
// 192 tokens x 128 weight rows, 5 stages of 40 KiB (168 registers, no spills): the default's for 160 < M <=
// 192 over 9 to 28 tiles (kGemmSwapAbTokens192MinTiles, ...MaxTiles in sm90/gemm.cuh), split by
// choose_split_k; stream-K with a workspace where swap_ab_stream_k_pays (never over so few tiles;
// gemm_swap_ab's wider shapes).
template <class Out>
using GemmSwapAbTokens192 = SwapAbConfig<192, 5, 1, epi::LinearCombination, Out, 2>;
// 32 tokens (16 stages of 12 KiB), for 16 < M <= 32: 0.943x of cuBLASLt at M = 32 over 24 projections where
// GemmSwapAbTokens64 is 0.779x (H200, 2026-12-01, docs/data/h200_2026-12-01_dual_tiles_swapab32.json: the
// bench's validated bwgemm_sm90_swapab32).
template <class Out>
using GemmSwapAbTokens32 = SwapAbConfig<32, 16, 1, epi::LinearCombination, Out, 1>;
// Stream-K (run_stream_k; the default takes them with a workspace where swap_ab_stream_k_pays): tiles of
// 128 weight rows (two consumer warpgroups), 16 tokens x 12 stages of 18 KiB, 32 x 10 of 20 KiB, 64 x 8 of
// 24 KiB. Measured on an H200 (2026-12-02, docs/data/h200_2026-12-02_paired_swapab_streamk_candidates.json):
// with B K x N the 64-row tiles under stream-K
// lost up to 30% (0.67-0.69x of cuBLASLt at N = 28672-57344, against 0.88-0.96x for the cluster split):
// their CTAs at different K offsets read 128 bytes of each K row alone; the 128-row tiles read 256 and
// came to 0.91-0.97x there; with B N x K the two were within 1-3%.
template <class Out>
using GemmSwapAbStreamKTokens16 = SwapAbConfig<16, 12, 1, epi::LinearCombination, Out, 2>;
template <class Out>
using GemmSwapAbStreamKTokens32 = SwapAbConfig<32, 10, 1, epi::LinearCombination, Out, 2>;
template <class Out>
using GemmSwapAbStreamKTokens64 = SwapAbConfig<64, 8, 1, epi::LinearCombination, Out, 2>;
template <class Out>
using DualGemmSwapAbTokens16 = SwapAbConfig<16, 11, 2, epi::SiluMul, Out, 1>;
template <class Out>
using DualGemmSwapAbTokens64 = SwapAbConfig<64, 8, 2, epi::SiluMul, Out, 1>;
template <class Out>
using DualGemmSwapAbTokens128 = SwapAbConfig<128, 6, 2, epi::SiluMul, Out, 1>;
// 160 tokens x 64 weight rows of each matrix (one consumer warpgroup: two m64n160 accumulators, 160 of its
// 232 registers; two warpgroups would have 168), 6 stages of 36 KiB: for 128 < M <= 160, one token tile
// holding every row (kDualGemmSwapAbTokens160MaxM in sm90/dual_gemm.cuh; the GEMM's GemmSwapAbTokens160
// carried over).
template <class Out>
using DualGemmSwapAbTokens160 = SwapAbConfig<160, 6, 2, epi::SiluMul, Out, 1>;

}  // namespace bwgemm::sm90
