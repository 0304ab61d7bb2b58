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
#include "bwgemm/sm90/choice.hpp"
#include "bwgemm/sm90/operand_map.cuh"
#include "bwgemm/sm90/split_k.cuh"

namespace bwgemm::sm90 {

// ---- the split of K ------------------------------------------------------------------------------------
// The splits a swap-AB launch may use: kSplitKChoices (sm90/choice.hpp: 1, 2, 4, 8); split_k 0 takes
// choose_split_k's (sm90/choice.hpp) weighed with the Config's table: the heavy one for more than
// kSplitLightPartialWords accumulator words per consumer thread.
template <class Cfg>
constexpr const int64_t (&swap_ab_split_cost_percent())[4] {
  return Cfg::kWeights * Cfg::kAccRegs > kSplitLightPartialWords ? kHeavySplitCostPercent : kSplitCostPercent;
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

}  // namespace bwgemm::sm90
