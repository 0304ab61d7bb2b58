// bwgemm's Hopper (sm_90a) FP16/BF16 GEMM, fp32 accumulation:
//
//   D[m, n, l] = alpha * sum_k A[m,k,l] B[k,n,l] + beta * C[m,n,l]      (epi::LinearCombination, default)
//
// The arguments are bwgemm::GemmArguments (arguments/gemm.hpp), the same for every backend: A fp16 or bf16,
// M x K row-major (row stride lda); B of A's type, K x N row-major (BLayout::kRowMajorKxN, ldb >= N) or
// N x K row-major, i.e. K-major (BLayout::kColumnMajorKxN, ldb >= K); C and D M x N row-major in fp16, bf16
// or fp32 (the Config's Out); beta == 0 reads no C (which may then be null); batches at element strides (0:
// packed).
//
//   bwgemm::GemmArguments<__nv_bfloat16> args;               // In = Out = bf16
//   args.m = 4096; args.n = 5120; args.k = 4096;
//   args.a = a; args.b = b; args.b_layout = bwgemm::BLayout::kRowMajorKxN; args.d = d;
//   args.epilogue = {alpha, beta}; args.c = c;               // optional: D = alpha A B + beta C
//   bwgemm::Status s = bwgemm::sm90::gemm(args, stream);     // picks a kernel from the shape
//   // or an explicit kernel:
//   using Cfg = bwgemm::sm90::GemmConfig<256, 4, 2, bwgemm::sched::StaticPersistent,
//                                        bwgemm::epi::LinearCombination, __nv_bfloat16>;
//   s = bwgemm::sm90::Gemm<Cfg>::run(args, stream);
//
// Shapes: any M >= 1; N and K positive multiples of 8 (rows stay 16-byte aligned); tiles past M, N and K are
// masked (loads zero-filled by TMA, stores skipped). Leading dimensions and batch strides keep every row
// 16-byte aligned. The call validates everything first (bwgemm::validate, then the Config's tile count) and
// launches nothing on error; it is asynchronous on `stream`, allocates nothing and does not synchronize. The
// kernels need a GPU of compute capability 9.0; bwgemm::gemm (gemm.cuh) dispatches between backends.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "bwgemm/arguments/gemm.hpp"
#include "bwgemm/base/diagnostics.hpp"
#include "bwgemm/base/int_math.hpp"
#include "bwgemm/base/layout.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/host/launch.hpp"
#include "bwgemm/host/operand_maps.hpp"
#include "bwgemm/kernels/sm90/gemm_config.cuh"
#include "bwgemm/kernels/sm90/gemm_kernel.cuh"
#include "bwgemm/sm90/operand_map.cuh"
#include "bwgemm/sm90/swap_ab.cuh"

namespace bwgemm::sm90 {

template <class Cfg>
struct Gemm {
  using Out = typename Cfg::Out;
  using Epilogue = typename Cfg::Epilogue;
  template <class In>
  using Arguments = GemmArguments<In, Out, Epilogue>;
  using Params = GemmParams<Cfg>;

  // Host-side checks only (no device access): the GEMM's rules, then this Config's tile count.
  template <class In>
  static Status can_implement(const GemmArguments<In, Out, Epilogue>& a) {
    return ::bwgemm::detail::can_implement_config<Cfg>(a);
  }

  template <class In>
  static Status run(const GemmArguments<In, Out, Epilogue>& a, cudaStream_t stream = nullptr) {
    if (Status s = can_implement(a); !s.ok()) return s;
    if (Status s = host::require_compute_capability_90("bwgemm::sm90::Gemm"); !s.ok()) return s;
    if (Status s = host::require_device_pointers(device_operands(a), "bwgemm::sm90::Gemm"); !s.ok()) return s;

    const ::bwgemm::detail::GemmStrides st = ::bwgemm::detail::gemm_strides(a);
    const bool kxn = a.b_layout == BLayout::kRowMajorKxN;
    Params p;
    if (Status s = detail::operand_map(a.a, a.k, a.m, a.batch, st.lda, st.batch_stride_a, Cfg::kBlockK,
                                       Cfg::kBlockM, &p.tmap_a);
        !s.ok())
      return s;
    if (kxn) {  // (N, K, batch): one box per 64-column chunk
      if (Status s = detail::operand_map(a.b, a.n, a.k, a.batch, st.ldb, st.batch_stride_b,
                                         Cfg::kBMnChunkColumns, Cfg::kBlockK, &p.tmap_b);
          !s.ok())
        return s;
    } else {  // (K, N, batch): this CTA's rows of the B tile
      if (Status s = detail::operand_map(a.b, a.k, a.n, a.batch, st.ldb, st.batch_stride_b, Cfg::kBlockK,
                                         Cfg::kBKMajorRowsPerCta, &p.tmap_b);
          !s.ok())
        return s;
    }
    if constexpr (Cfg::kTmaStore) {
      if (Status s =
              ::bwgemm::detail::gemm_output_map(a.d, a.n, a.m, a.batch, st.ldd, st.batch_stride_d,
                                                Cfg::EpiBuffers::kBoxColumns, Cfg::kWarpgroupM, &p.tmap_d);
          !s.ok())
        return s;
    }
    ::bwgemm::detail::fill_common_gemm_params<Cfg>(a, st, &p);

    auto* kernel = kxn ? &gemm_kernel<Cfg, In, true> : &gemm_kernel<Cfg, In, false>;
    return host::launch_tile_kernel<Cfg>(kernel, p, stream, a.launch);
  }
};

// The kernels the default entry point chooses from (docs/hopper.md):
//   GemmLarge         : 128 x 256 tiles (one m64n256k16 wgmma per consumer per 16 K), 4 stages, one CTA per
//                       cluster: the widest tile the registers allow
//   GemmLargeCluster2 : the GemmLarge tile in clusters of two CTAs along M sharing B through TMA multicast,
//                       for shapes with enough tiles for every pair (prefer_cluster_pair)
//   GemmMedium        : 128 x 192 tiles, 5 stages, one CTA per cluster (its three 64-column B chunks do not
//                       split over a pair)
//   GemmSmall         : 128 x 128 tiles, 6 stages: twice the tiles of GemmLarge
// Which one: the fewest waves of tiles times the tile's width (gemm_tiled_choice).
template <class Out>
using GemmLarge = GemmConfig<256, 4, 1, sched::StaticPersistent, epi::LinearCombination, Out>;
template <class Out>
using GemmMedium = GemmConfig<192, 5, 1, sched::StaticPersistent, epi::LinearCombination, Out>;
template <class Out>
using GemmSmall = GemmConfig<128, 6, 1, sched::StaticPersistent, epi::LinearCombination, Out>;
template <class Out>
using GemmLargeCluster2 = GemmConfig<256, 4, 2, sched::StaticPersistent, epi::LinearCombination, Out>;

// The time of one wave of tiles relative to a wave of 128 x 256 tiles at the same K, in percent of the
// columns it covers: 128 x 192 as fast per column, 128 x 128 5% slower (fitted on the H200 over the model
// sweep at M = 512..16384, both B layouts: sixth session, run 1 in docs/hopper.md).
inline constexpr int64_t kGemmLargeColumnCostPercent = 100;
inline constexpr int64_t kGemmMediumColumnCostPercent = 100;
inline constexpr int64_t kGemmSmallColumnCostPercent = 105;
// The swap-AB kernels (sm90/swap_ab.cuh) for M <= kGemmSwapAbMaxM (tokens), and up to kGemmSwapAbMaxMNarrow
// when N is below kGemmSwapAbMaxNarrowN: the crossover measured on an H200 over the model sweep
// (docs/hopper.md, fifth session, run 6; docs/api.md's choice table). At M = 128 the tiled kernels won where
// their 128 x 128 tiles filled the SMs (N >= 10240) and lost where they did not (N <= 5120; K >= 14336).
inline constexpr int64_t kGemmSwapAbMaxM = 64;
inline constexpr int64_t kGemmSwapAbMaxMNarrow = 128;
inline constexpr int64_t kGemmSwapAbMaxNarrowN = 66 * 128;  // 128 x 128 tiles for half the 132 SMs

enum class GemmChoice { kSmall, kMedium, kLarge, kLargeCluster2, kSwapAb16, kSwapAb32, kSwapAb64, kSwapAb128 };

// The swap-AB kernel for M tokens (whatever M: more than 128 take several token tiles): the token tile
// that holds M, from 16, 32, 64, 128 (32 tokens measured at M = 32: 0.943x of cuBLASLt where 64 tokens gave
// 0.779x, H200, sixth session, run 3; 17 <= M <= 31 take it as the smallest tile that holds them, not
// measured separately).
constexpr GemmChoice gemm_swap_ab_choice(int64_t m) {
  return m <= 16   ? GemmChoice::kSwapAb16
         : m <= 32 ? GemmChoice::kSwapAb32
         : m <= 64 ? GemmChoice::kSwapAb64
                   : GemmChoice::kSwapAb128;
}

// The tiled kernel for a shape: the tile width with the lowest tiled_wave_cost (ties to the wider tile), and
// for 128 x 256 tiles CTA pairs where every pair gets enough tiles (prefer_cluster_pair).
constexpr GemmChoice gemm_tiled_choice(int64_t m, int64_t n, int64_t batch) {
  const int64_t large = tiled_wave_cost(m, n, batch, 256, kGemmLargeColumnCostPercent);
  const int64_t medium = tiled_wave_cost(m, n, batch, 192, kGemmMediumColumnCostPercent);
  const int64_t small = tiled_wave_cost(m, n, batch, 128, kGemmSmallColumnCostPercent);
  if (large <= medium && large <= small)
    return prefer_cluster_pair(ceil_div(m, int64_t{128}), ceil_div(n, int64_t{256}), batch)
               ? GemmChoice::kLargeCluster2
               : GemmChoice::kLarge;
  return medium <= small ? GemmChoice::kMedium : GemmChoice::kSmall;
}

// The default entry point's kernel for a shape.
constexpr GemmChoice gemm_choice(int64_t m, int64_t n, int64_t batch) {
  if (m <= kGemmSwapAbMaxM || (m <= kGemmSwapAbMaxMNarrow && n < kGemmSwapAbMaxNarrowN))
    return gemm_swap_ab_choice(m);
  return gemm_tiled_choice(m, n, batch);
}

namespace detail {
// Runs `choice`'s kernel on the call (and names it with the diagnostic switch on).
template <class In, class Out>
Status run_gemm_choice(GemmChoice choice, const GemmArguments<In, Out>& args, cudaStream_t stream,
                       int split_k = 0) {
  const auto report = [&](const char* name) {
    ::bwgemm::detail::report_choice("bwgemm::sm90::gemm", args.m, args.n, args.k, args.batch, name);
  };
  switch (choice) {
    case GemmChoice::kSwapAb16:
      return report("sm90::GemmSwapAb16 (swap AB, 16 tokens x 64 rows)"),
             SwapAbGemm<GemmSwapAb16<Out>>::run(args, stream, split_k);
    case GemmChoice::kSwapAb32:
      return report("sm90::GemmSwapAb32 (swap AB, 32 tokens x 64 rows)"),
             SwapAbGemm<GemmSwapAb32<Out>>::run(args, stream, split_k);
    case GemmChoice::kSwapAb64:
      return report("sm90::GemmSwapAb64 (swap AB, 64 tokens x 64 rows)"),
             SwapAbGemm<GemmSwapAb64<Out>>::run(args, stream, split_k);
    case GemmChoice::kSwapAb128:
      return report("sm90::GemmSwapAb128 (swap AB, 128 tokens x 64 rows)"),
             SwapAbGemm<GemmSwapAb128<Out>>::run(args, stream, split_k);
    case GemmChoice::kSmall:
      return report("sm90::GemmSmall (128 x 128)"), Gemm<GemmSmall<Out>>::run(args, stream);
    case GemmChoice::kMedium:
      return report("sm90::GemmMedium (128 x 192)"), Gemm<GemmMedium<Out>>::run(args, stream);
    case GemmChoice::kLargeCluster2:
      return report("sm90::GemmLargeCluster2 (128 x 256, CTA pairs)"),
             Gemm<GemmLargeCluster2<Out>>::run(args, stream);
    default:
      return report("sm90::GemmLarge (128 x 256)"), Gemm<GemmLarge<Out>>::run(args, stream);
  }
}
}  // namespace detail

// The sm_90a default entry point: a kernel from the shape (gemm_choice).
template <class In, class Out>
Status gemm(const GemmArguments<In, Out>& args, cudaStream_t stream = nullptr) {
  return detail::run_gemm_choice(gemm_choice(args.m, args.n, args.batch), args, stream);
}

// One side of the crossover whatever the shape, for the benchmark: the tiled kernels only, and the swap-AB
// kernels only (split_k as SwapAbGemm::run takes it, 0: chosen from the shape).
template <class In, class Out>
Status gemm_tiled(const GemmArguments<In, Out>& args, cudaStream_t stream = nullptr) {
  return detail::run_gemm_choice(gemm_tiled_choice(args.m, args.n, args.batch), args, stream);
}
template <class In, class Out>
Status gemm_swap_ab(const GemmArguments<In, Out>& args, cudaStream_t stream = nullptr, int split_k = 0) {
  return detail::run_gemm_choice(gemm_swap_ab_choice(args.m), args, stream, split_k);
}

}  // namespace bwgemm::sm90
