// bwgemm's Hopper (sm_90a) fp16/bf16 dual GEMM with a fused gated epilogue:
//
//   C[m, n, l] = silu(alpha1 · sum_k A[m,k,l] B1[n,k,l]) · (alpha2 · sum_k A[m,k,l] B2[n,k,l])
//
// The arguments are bwgemm::DualGemmArguments (arguments/dual_gemm.hpp), the same for every backend:
// A: M x K row-major (row stride lda), B1, B2: N x K row-major (the nn.Linear weight layout, row stride
// ldb), C: M x N row-major (row stride ldc); batches packed (batch strides M·lda, N·ldb, M·ldc). Inputs
// fp16 or bf16 (both the same type), C fp16 or bf16, fp32 accumulation.
//
//   bwgemm::DualGemmArguments<__nv_bfloat16> args;
//   args.m = 512; args.n = 4096; args.k = 7168;
//   args.a = a; args.b1 = w_gate; args.b2 = w_up; args.c = c;
//   bwgemm::Status s = bwgemm::sm90::dual_gemm(args, stream);        // picks a kernel from the shape
//   // or an explicit kernel:
//   using Cfg = bwgemm::sm90::DualGemmConfig<128, 4, 1, bwgemm::sched::StaticPersistent>;
//   s = bwgemm::sm90::DualGemm<Cfg>::run(args, stream);
//
// Shapes: any M, N, K >= 1 (tiles past the edges read zeros through TMA, stores are masked); lda, ldb
// multiples of 8 (TMA needs 16-byte row strides), ldc a multiple of 8. C goes out through shared memory and
// TMA stores when N % 8 == 0 (configs with TmaStore, the default for BlockN 64 and 128), from registers
// otherwise. The call validates everything first
// and launches nothing on error; it is asynchronous on `stream`, allocates nothing and does not
// synchronize. The kernels need a GPU of compute capability 9.0 (H100/H200) exactly.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "bwgemm/arguments/dual_gemm.hpp"
#include "bwgemm/base/diagnostics.hpp"
#include "bwgemm/base/int_math.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/host/dual_gemm_params.hpp"
#include "bwgemm/host/launch.hpp"
#include "bwgemm/host/operand_maps.hpp"
#include "bwgemm/kernels/sm90/dual_gemm_config.cuh"
#include "bwgemm/kernels/sm90/dual_gemm_kernel.cuh"
#include "bwgemm/sm90/operand_map.cuh"
#include "bwgemm/sm90/swap_ab.cuh"

namespace bwgemm::sm90 {

template <class Cfg>
struct DualGemm {
  using Out = typename Cfg::Out;
  using Epilogue = typename Cfg::Epilogue;
  template <class In>
  using Arguments = DualGemmArguments<In, Out, Epilogue>;
  using Params = DualGemmParams<Cfg>;

  // Host-side checks only (no device access): the operation's rules, then this Config's tile count.
  template <class In>
  static Status can_implement(const DualGemmArguments<In, Out, Epilogue>& a) {
    return ::bwgemm::detail::can_implement_config<Cfg>(a);
  }

  template <class In>
  static Status run(const DualGemmArguments<In, Out, Epilogue>& a, cudaStream_t stream = nullptr) {
    if (Status s = can_implement(a); !s.ok()) return s;
    if (Status s = host::require_compute_capability_90("bwgemm::sm90::DualGemm"); !s.ok()) return s;
    if (Status s = host::require_device_pointers(device_operands(a), "bwgemm::sm90::DualGemm"); !s.ok())
      return s;
    const auto [lda, ldb, ldc] = ::bwgemm::detail::dual_gemm_strides(a);

    Params p;
    if (Status s =
            detail::operand_maps_with_tail(a.a, a.k, a.m, a.batch, lda, a.m * lda, ptx::kSw128Elements16,
                                           Cfg::kBlockM, &p.tmap_a, &p.tmap_a_tail);
        !s.ok())
      return s;
    if (Status s = detail::operand_map(a.b1, a.k, a.n, a.batch, ldb, a.n * ldb, ptx::kSw128Elements16,
                                       Cfg::kBRowsPerCta, &p.tmap_b1);
        !s.ok())
      return s;
    if (Status s = detail::operand_map(a.b2, a.k, a.n, a.batch, ldb, a.n * ldb, ptx::kSw128Elements16,
                                       Cfg::kBRowsPerCta, &p.tmap_b2);
        !s.ok())
      return s;
    p.c = a.c;
    p.ldc = ldc;
    // C through TMA stores needs 16-byte rows (the tensor map's stride) and whole 16-byte units per row
    // (N % 8 == 0); otherwise the kernel stores from registers.
    p.tma_store = Cfg::kTmaStore && a.n % 8 == 0 && p.ldc * static_cast<int64_t>(sizeof(Out)) % 16 == 0;
    if (p.tma_store) {
      if (Status s = ::bwgemm::detail::gemm_output_map(
              a.c, a.n, a.m, a.batch, p.ldc, a.m * p.ldc, Cfg::EpiBuffers::kBoxColumns,
              Cfg::EpiBuffers::kBoxRows, &p.tmap_c, Cfg::EpiBuffers::kSwizzleBytes);
          !s.ok())
        return s;
    }
    host::fill_common_dual_gemm_params(a, ::bwgemm::detail::config_tile_grid<Cfg>(a.m, a.n, a.batch), &p);

    return host::launch_tile_kernel<Cfg>(&dual_gemm_kernel<Cfg, In>, p, stream, a.launch);
  }
};

// The kernels the default entry point chooses from (docs/hopper.md); a tiled Config's name gives its CTA
// tile of each weight, rows x columns (DualGemmPingPong*: each consumer warpgroup's tile):
//   M·batch <= 256 : DualGemmTile128x64, 6 stages: a 128 x 64 tile pair doubles the tiles, filling the 132
//   SMs otherwise      : DualGemmTile128x128, 4 stages: one m64n256k16 wgmma per 16 K covers gate and up (as
//   a
//                    128 x 256 GEMM tile), the widest tile the registers allow; DualGemmTile128x128Cluster2
//                    in clusters of two CTAs along M that share B1/B2 through TMA multicast when the shape
//                    has enough tiles for every pair (prefer_cluster_pair); DualGemmTile128x64 instead where
//                    its waves cost less (dual_gemm_tiled_choice)
//   many tiles     : DualGemmPingPong64x128, 64 x 128 tile pairs per consumer, the two consumers taking
//                    alternate tiles, where it has more than kDualPingPongMinWaves waves of them;
//                    DualGemmPingPong64x96 (64 x 96 pairs) where its waves cost less (dual_gemm_tiled_choice)
template <class Out>
using DualGemmTile128x64 = DualGemmConfig<64, 6, 1, sched::StaticPersistent, epi::SiluMul, Out>;
template <class Out>
using DualGemmTile128x128 = DualGemmConfig<128, 4, 1, sched::StaticPersistent, epi::SiluMul, Out>;
template <class Out>
using DualGemmTile128x128Cluster2 = DualGemmConfig<128, 4, 2, sched::StaticPersistent, epi::SiluMul, Out>;
// Ping-pong consumers (DualGemmConfig PingPong: 64 x 128 tile pairs per consumer, the consumers taking
// alternate tiles, one's epilogue under the other's wgmmas; 5 stages of 40 KiB: 4 stages were 1-2% slower in
// geomean at every M, H200, 2026-12-02, docs/data/h200_2026-12-02_paired_dual_pingpong.json, bench
// dual_bf16/bwgemm_sm90_pp).
template <class Out>
using DualGemmPingPong64x128 = DualGemmConfig<128, 5, 1, sched::StaticPersistent, epi::SiluMul, Out,
                                              /*TmaStore=*/true, /*PingPong=*/true>;
// BlockN 64 in pairs: tested and benchmarked (dual_gemm_cluster2), never the default's choice.
template <class Out>
using DualGemmTile128x64Cluster2 = DualGemmConfig<64, 6, 2, sched::StaticPersistent, epi::SiluMul, Out>;
// 96-column tile pairs (one m64n192k16 wgmma per 16 K: gate and up 96 columns each; C in 64-byte boxes), for
// N where 96 quantizes into fuller waves than 128 (e.g. 27648 = 288 x 96; bench candidates
// dual_bf16/bwgemm_sm90_pp96, _n96; H200, 2026-12-02,
// docs/data/h200_2026-12-02_paired_dual96_candidates.json):
//   DualGemmPingPong64x96 : 64 x 96 pairs per consumer, ping-pong, 6 stages of 32 KiB: in the default choice
//   DualGemmTile128x96    : 128 x 96 pairs, 5 stages of 40 KiB: behind the default on 20 of the 21 points
//                           measured (0.79-1.05x of the faster unfused variant; 512 x 27648 x 5120 0.992x
//                           against 0.989x): not in the choice
template <class Out>
using DualGemmPingPong64x96 = DualGemmConfig<96, 6, 1, sched::StaticPersistent, epi::SiluMul, Out,
                                             /*TmaStore=*/true, /*PingPong=*/true>;
template <class Out>
using DualGemmTile128x96 =
    DualGemmConfig<96, 5, 1, sched::StaticPersistent, epi::SiluMul, Out, /*TmaStore=*/true>;

// Rows (tokens) up to which the swap-AB kernels (sm90/swap_ab.cuh) are chosen: the crossover measured on an
// H200 over the model sweep (2026-12-01, docs/data/h200_2026-12-01_decode.json: at M = 128 the tiled kernels
// were 0.97-1.0x of the faster unfused variant, the swap-AB ones 0.87-0.90x; docs/api.md's choice table).
inline constexpr int64_t kDualGemmSwapAbMaxM = 64;
// kDualGemmSwapAbTokens160MinM <= M <= kDualGemmSwapAbTokens160MaxM (one row past a 128-row tile up to 160):
// one swap-AB tile of 160 tokens (DualGemmSwapAbTokens160) holds every row, where the tiled kernels compute a
// second row tile of 1-32 rows whole (the GEMM's kGemmSwapAbTokens160MaxM carried over; measured on the
// H200, 2026-12-03, docs/data/h200_2026-12-03_paired_dual_tokens160.json).
inline constexpr int64_t kDualGemmSwapAbTokens160MinM = 129;
inline constexpr int64_t kDualGemmSwapAbTokens160MaxM = 160;

// kSwapAbTokens128 only through dual_gemm_swap_ab: the default takes the tiled kernels for 64 < M <= 128.
enum class DualGemmChoice {
  kTile128x64,
  kTile128x128,
  kTile128x128Cluster2,
  kPingPong64x128,
  kPingPong64x96,
  kSwapAbTokens16,
  kSwapAbTokens64,
  kSwapAbTokens128,
  kSwapAbTokens160
};

// The swap-AB kernel for M tokens (whatever M: more than 160 take several 128-token tiles).
constexpr DualGemmChoice dual_gemm_swap_ab_choice(int64_t m) {
  return m <= 16                             ? DualGemmChoice::kSwapAbTokens16
         : m <= 64                           ? DualGemmChoice::kSwapAbTokens64
         : m < kDualGemmSwapAbTokens160MinM  ? DualGemmChoice::kSwapAbTokens128
         : m <= kDualGemmSwapAbTokens160MaxM ? DualGemmChoice::kSwapAbTokens160
                                             : DualGemmChoice::kSwapAbTokens128;
}

// The cost per column of a wave of 128 x 64 dual tiles relative to 128 x 128 ones, in percent: 106, the
// geomean over the model sweep's gate/up projections at M = 512..4096 on the H200 (2026-12-01,
// docs/data/h200_2026-12-01_dual_tiles_swapab32.json: 1.00-1.10 per shape, 1.22 once). The 128 x 128 tiles
// are the reference (100).
inline constexpr int64_t kDualTile128x128ColumnCostPercent = 100;
inline constexpr int64_t kDualTile128x64ColumnCostPercent = 106;
// The ping-pong kernel (DualGemmPingPong64x128) where it has more than kDualPingPongMinWaves waves of its 64
// x 128 tile pairs: fitted on the H200, paired over the model sweep's gate/up projections at M = 256..16384
// (2026-12-02, docs/data/h200_2026-12-02_paired_dual_pingpong.json, in-sample): above 4 waves it was at or
// above the cooperative kernels on 17 of 18 shapes (-1.5% at 16384 x 28672 x 8192; M >= 512 geomean 1.056x of
// the faster unfused variant against 1.030x), at 3.4 waves (256 x 14336) 1.5% behind.
inline constexpr int64_t kDualPingPongMinWaves = 4;
// 64 x 96 ping-pong tile pairs (DualGemmPingPong64x96): per column 101% of the 64 x 128 pairs' time, fitted
// on the H200 (2026-12-02, docs/data/h200_2026-12-02_paired_dual96_candidates.json: both forced on the
// sweep's gate/up projections at M = 256..16384, the time ratio over the ratio of waves x widths: 99.5-102.3
// per shape, 100.8 in geomean). Where both ping-pong kernels have more than kDualPingPongMinWaves waves of
// their tiles the choice takes the fewer waves times the width (e.g. N = 27648 = 288 x 96: at M = 512, 1728
// tiles of 128 in 14 waves, 2304 of 96 in 18, 1792 against 1745; paired 1.012x of the faster unfused variant
// against 0.980x), where only the 96-column one has, that one (M = 128..256 with N >= about 25000, and 256 x
// 14336: 1.013-1.090x against 0.929-1.013x).
inline constexpr int64_t kDualPingPong64x128ColumnCostPercent = 100;
inline constexpr int64_t kDualPingPong64x96ColumnCostPercent = 101;

// The waves of 64 x block_n ping-pong tile pairs times the width in percent of a column
// (tiled_wave_cost's units for 64-row tiles), or INT64_MAX where they are not more than kDualPingPongMinWaves
// waves.
constexpr int64_t dual_ping_pong_cost(int64_t m, int64_t n, int64_t batch, int64_t block_n, int64_t percent) {
  const int64_t tiles = ceil_div(m, int64_t{64}) * ceil_div(n, block_n) * batch;
  if (tiles <= kDualPingPongMinWaves * kResidentTiles) return INT64_MAX;
  return ceil_div(tiles, kResidentTiles) * block_n * percent;
}

// The tiled kernel for a shape: a ping-pong kernel where one has more than kDualPingPongMinWaves waves of its
// tiles (64 x 128 or 64 x 96 pairs; of two, the lower dual_ping_pong_cost, ties to 128); else BlockN 64 for
// M·batch <= 256 and wherever its waves cost less than BlockN 128's (tiled_wave_cost: e.g. M = 1152, N =
// 4096: 288 tiles of 128 = 3 waves, 576 of 64 = 5 waves, 38400 against 33920), else BlockN 128, in CTA
// pairs where every pair gets enough tiles.
constexpr DualGemmChoice dual_gemm_tiled_choice(int64_t m, int64_t n, int64_t batch) {
  const int64_t ping_pong = dual_ping_pong_cost(m, n, batch, 128, kDualPingPong64x128ColumnCostPercent);
  const int64_t ping_pong96 = dual_ping_pong_cost(m, n, batch, 96, kDualPingPong64x96ColumnCostPercent);
  if (ping_pong96 < ping_pong) return DualGemmChoice::kPingPong64x96;
  if (ping_pong != INT64_MAX) return DualGemmChoice::kPingPong64x128;
  if (m * batch <= 256) return DualGemmChoice::kTile128x64;
  if (tiled_wave_cost(m, n, batch, 64, kDualTile128x64ColumnCostPercent) <
      tiled_wave_cost(m, n, batch, 128, kDualTile128x128ColumnCostPercent))
    return DualGemmChoice::kTile128x64;
  return prefer_cluster_pair(ceil_div(m, int64_t{128}), ceil_div(n, int64_t{128}), batch)
             ? DualGemmChoice::kTile128x128Cluster2
             : DualGemmChoice::kTile128x128;
}

// The default entry point's kernel for a shape.
constexpr DualGemmChoice dual_gemm_choice(int64_t m, int64_t n, int64_t batch) {
  const bool swap_ab =
      m <= kDualGemmSwapAbMaxM || (m >= kDualGemmSwapAbTokens160MinM && m <= kDualGemmSwapAbTokens160MaxM);
  return swap_ab ? dual_gemm_swap_ab_choice(m) : dual_gemm_tiled_choice(m, n, batch);
}

namespace detail {
// Whether `choice` is one of the swap-AB pairs.
constexpr bool is_dual_swap_ab_choice(DualGemmChoice choice) {
  return choice == DualGemmChoice::kSwapAbTokens16 || choice == DualGemmChoice::kSwapAbTokens64 ||
         choice == DualGemmChoice::kSwapAbTokens128 || choice == DualGemmChoice::kSwapAbTokens160;
}
// The kernels of a swap-AB choice, as types: f(SplitOp{}, StreamKOp{}, name) (sm90/gemm.cuh's
// visit_swap_ab_choice for the dual GEMM: its 64-row pairs run stream-K themselves, kSwapAbTokens128 never).
template <class Out, class F>
auto visit_dual_swap_ab_choice(DualGemmChoice choice, F&& f) {
  switch (choice) {
    case DualGemmChoice::kSwapAbTokens16:
      return f(SwapAbDualGemm<DualGemmSwapAbTokens16<Out>>{}, SwapAbDualGemm<DualGemmSwapAbTokens16<Out>>{},
               "sm90::DualGemmSwapAbTokens16 (swap AB, 16 tokens x 64 rows; stream-K with a workspace)");
    case DualGemmChoice::kSwapAbTokens64:
      return f(SwapAbDualGemm<DualGemmSwapAbTokens64<Out>>{}, SwapAbDualGemm<DualGemmSwapAbTokens64<Out>>{},
               "sm90::DualGemmSwapAbTokens64 (swap AB, 64 tokens x 64 rows; stream-K with a workspace)");
    case DualGemmChoice::kSwapAbTokens160:
      return f(SwapAbDualGemm<DualGemmSwapAbTokens160<Out>>{}, SwapAbDualGemm<DualGemmSwapAbTokens160<Out>>{},
               "sm90::DualGemmSwapAbTokens160 (swap AB, 160 tokens x 64 rows; stream-K with a workspace)");
    default:
      return f(SwapAbDualGemm<DualGemmSwapAbTokens128<Out>>{}, NoStreamK{},
               "sm90::DualGemmSwapAbTokens128 (swap AB, 128 tokens x 64 rows)");
  }
}

// Runs `choice`'s kernel on the call (and names it with the diagnostic switch on).
template <class In, class Out>
Status run_dual_gemm_choice(DualGemmChoice choice, const DualGemmArguments<In, Out>& args,
                            cudaStream_t stream) {
  const auto report = [&](const char* name) {
    ::bwgemm::detail::report_choice("bwgemm::sm90::dual_gemm", args.m, args.n, args.k, args.batch, name);
  };
  if (is_dual_swap_ab_choice(choice))
    return visit_dual_swap_ab_choice<Out>(choice, [&](auto split, auto stream_k, const char* name) -> Status {
      report(name);
      return run_default_swap_ab<decltype(split), decltype(stream_k)>(args, stream, 0);
    });
  switch (choice) {
    case DualGemmChoice::kTile128x64:
      return report("sm90::DualGemmTile128x64 (gate and up pairs)"),
             DualGemm<DualGemmTile128x64<Out>>::run(args, stream);
    case DualGemmChoice::kTile128x128Cluster2:
      return report("sm90::DualGemmTile128x128Cluster2 (gate and up pairs, CTA pairs)"),
             DualGemm<DualGemmTile128x128Cluster2<Out>>::run(args, stream);
    case DualGemmChoice::kPingPong64x128:
      return report("sm90::DualGemmPingPong64x128 (pairs per consumer, ping-pong)"),
             DualGemm<DualGemmPingPong64x128<Out>>::run(args, stream);
    case DualGemmChoice::kPingPong64x96:
      return report("sm90::DualGemmPingPong64x96 (pairs per consumer, ping-pong)"),
             DualGemm<DualGemmPingPong64x96<Out>>::run(args, stream);
    default:
      return report("sm90::DualGemmTile128x128 (gate and up pairs)"),
             DualGemm<DualGemmTile128x128<Out>>::run(args, stream);
  }
}
}  // namespace detail

template <class In, class Out>
Status dual_gemm(const DualGemmArguments<In, Out>& args, cudaStream_t stream = nullptr) {
  return detail::run_dual_gemm_choice(dual_gemm_choice(args.m, args.n, args.batch), args, stream);
}

// The workspace bytes sm90::dual_gemm takes for `args` on the current device (DualGemmArguments::workspace):
// with a swap-AB choice (M <= 64, 129 <= M <= 160) its stream-K launch's where swap_ab_stream_k_pays (the
// 64-row pairs themselves run stream-K: the dual GEMM's weights are N x K, where 64- and 128-row tiles
// streamed alike, and its 128-row pairs spill), else 0. A call with less (or none) runs the cluster split.
// Validates args.
template <class In, class Out>
Status dual_gemm_workspace_bytes(const DualGemmArguments<In, Out>& args, int64_t* bytes) {
  *bytes = 0;
  if (Status s = validate(args); !s.ok()) return s;
  const DualGemmChoice choice = dual_gemm_choice(args.m, args.n, args.batch);
  if (detail::is_dual_swap_ab_choice(choice))
    *bytes = detail::visit_dual_swap_ab_choice<Out>(choice, [&](auto split, auto stream_k, const char*) {
      return detail::default_stream_k_bytes<decltype(split), decltype(stream_k)>(args);
    });
  return Status::success();
}

// One side of the crossover whatever the shape, for the benchmark: the tiled kernels only, and the swap-AB
// kernels only.
template <class In, class Out>
Status dual_gemm_tiled(const DualGemmArguments<In, Out>& args, cudaStream_t stream = nullptr) {
  return detail::run_dual_gemm_choice(dual_gemm_tiled_choice(args.m, args.n, args.batch), args, stream);
}
template <class In, class Out>
Status dual_gemm_swap_ab(const DualGemmArguments<In, Out>& args, cudaStream_t stream = nullptr) {
  return detail::run_dual_gemm_choice(dual_gemm_swap_ab_choice(args.m), args, stream);
}

// Both tile shapes in clusters of two CTAs along M, whatever the shape (bench:
// dual_bf16/bwgemm_sm90_cluster2).
template <class In, class Out>
Status dual_gemm_cluster2(const DualGemmArguments<In, Out>& args, cudaStream_t stream = nullptr) {
  if (args.m * args.batch <= 256) return DualGemm<DualGemmTile128x64Cluster2<Out>>::run(args, stream);
  return DualGemm<DualGemmTile128x128Cluster2<Out>>::run(args, stream);
}

}  // namespace bwgemm::sm90
