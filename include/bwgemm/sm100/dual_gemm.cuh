// bwgemm's Blackwell (sm_100a) fp16/bf16 dual GEMM with a fused gated epilogue, fp32 accumulation:
//
//   C[m, n, l] = silu(alpha1 · sum_k A[m,k,l] B1[n,k,l]) · (alpha2 · sum_k A[m,k,l] B2[n,k,l])
//
// The arguments are bwgemm::DualGemmArguments (arguments/dual_gemm.hpp), the same as the sm_90a backend's:
// A: M x K row-major, B1, B2: N x K row-major (nn.Linear weights), C: M x N row-major; inputs fp16 or bf16,
// C fp16 or bf16; any M, N, K >= 1 (tiles past the edges read zeros through TMA, stores are masked).
//
//   bwgemm::DualGemmArguments<__nv_bfloat16> args;  ...
//   bwgemm::Status s = bwgemm::sm100::dual_gemm(args, stream);        // picks a kernel from the shape
//   using Cfg = bwgemm::sm100::DualGemmConfig<128, 0, 2, bwgemm::sched::ClcWorkStealing>;
//   s = bwgemm::sm100::DualGemm<Cfg>::run(args, stream);              // or an explicit kernel
//   (small M: bwgemm::sm100::DualGemmSwapAb<DualSwapAbConfig<16, 6>>, dual_gemm_swap_ab.cuh)
//
// The call validates everything first and launches nothing on error; it is asynchronous on `stream`,
// allocates nothing and does not synchronize. The kernels need a GPU of compute capability 10.0 exactly;
// bwgemm::dual_gemm (dual_gemm.cuh) dispatches between devices.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "bwgemm/arguments/dual_gemm.hpp"
#include "bwgemm/base/diagnostics.hpp"
#include "bwgemm/base/layout.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/host/dual_gemm_params.hpp"
#include "bwgemm/host/launch.hpp"
#include "bwgemm/host/operand_maps.hpp"
#include "bwgemm/host/tuning_device.hpp"
#include "bwgemm/kernels/sm100/dual_gemm_config.cuh"
#include "bwgemm/kernels/sm100/dual_gemm_kernel.cuh"
#include "bwgemm/kernels/sm100/dual_swap_ab_config.cuh"
#include "bwgemm/sm100/dual_gemm_swap_ab.cuh"
#include "bwgemm/sm100/tuning.hpp"

namespace bwgemm::sm100 {

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
    if (Status s = host::require_compute_capability_100("bwgemm::sm100::DualGemm"); !s.ok()) return s;
    if (Status s = host::require_device_pointers(device_operands(a), "bwgemm::sm100::DualGemm"); !s.ok())
      return s;

    namespace d = ::bwgemm::detail;
    const auto [lda, ldb, ldc] = d::dual_gemm_strides(a);
    constexpr TensorMapDataType type = d::gemm_tensor_map_type<In>();
    Params p;
    if (Status s = d::gemm_operand_map(type, a.a, a.k, a.m, a.batch, lda, a.m * lda, Cfg::kBlockK,
                                       Cfg::kBlockM, TensorMapSwizzle::k128B, &p.tmap_a);
        !s.ok())
      return s;
    if (Status s = d::gemm_operand_map(type, a.b1, a.k, a.n, a.batch, ldb, a.n * ldb, Cfg::kBlockK,
                                       Cfg::kBRowsPerCta, TensorMapSwizzle::k128B, &p.tmap_b1);
        !s.ok())
      return s;
    if (Status s = d::gemm_operand_map(type, a.b2, a.k, a.n, a.batch, ldb, a.n * ldb, Cfg::kBlockK,
                                       Cfg::kBRowsPerCta, TensorMapSwizzle::k128B, &p.tmap_b2);
        !s.ok())
      return s;
    p.c = a.c;
    p.ldc = ldc;
    p.batch_stride_c = a.m * ldc;
    host::fill_common_dual_gemm_params(a, d::config_tile_grid<Cfg>(a.m, a.n, a.batch), &p);
    p.idesc =
        Cfg::instr_desc(std::is_same_v<In, __half> ? ptx::MmaF16Format::kF16 : ptx::MmaF16Format::kBF16);
    p.unit_alphas = ::bwgemm::detail::unit_alphas(a);
    constexpr int64_t kOutBytes = sizeof(Out);
    p.c_aligned32 = reinterpret_cast<uintptr_t>(a.c) % 32 == 0 && ldc * kOutBytes % 32 == 0 &&
                    a.m * ldc * kOutBytes % 32 == 0;
    return host::launch_tile_kernel<Cfg>(&dual_gemm_kernel<Cfg>, p, stream, a.launch);
  }
};

// The kernels the default entry point chooses from (docs/api.md has the table), the NVFP4 dual's rule by M:
//   M <= 64       : swap AB (sm100/dual_gemm_swap_ab.cuh): the weights' N on the MMA's 128-row side, the
//                   tokens on its N side in tiles of 16, 32 or 64 (the smallest that holds M); one CTA per
//                   tile, static persistent; K split between the CTAs of a cluster where the weight tiles
//                   do not fill the SMs (choose_swap_ab_split_k)
//   64 < M <= 256 : BlockN 64, CTA pair, static persistent, double-buffered accumulators: more tiles to
//                   spread over the SMs when M is small
//   M > 256       : BlockN 128, CTA pair, Cluster Launch Control work stealing, double-buffered accumulators
// The tiled ones take as many stages as fit in 227 KB (9 and 7 of 24 and 32 KB), the swap-AB ones too (6, 6
// and 5 of 34, 36 and 40 KiB). Not measured: no B200 has run these kernels (they pass in the emulator only).
// The swap-AB bound is the other sm_100a swap-AB defaults' (the sm_90a kernels' measured crossover, M <= 64,
// docs/hopper.md, taken over); a sweep of M = 1 .. 256 of both sides on a B200 (dual_gemm_tiled against
// dual_gemm_swap_ab below) would measure it.
template <class Out>
using DualGemmSmallM = DualGemmConfig<64, 0, 2, sched::StaticPersistent, epi::SiluMul, Out>;
template <class Out>
using DualGemmLargeM = DualGemmConfig<128, 0, 2, sched::ClcWorkStealing, epi::SiluMul, Out>;
template <class Out>
using DualGemmSwapAbTokens16 = DualSwapAbConfig<16, 6, sched::StaticPersistent, epi::SiluMul, Out>;
template <class Out>
using DualGemmSwapAbTokens32 = DualSwapAbConfig<32, 6, sched::StaticPersistent, epi::SiluMul, Out>;
template <class Out>
using DualGemmSwapAbTokens64 = DualSwapAbConfig<64, 5, sched::StaticPersistent, epi::SiluMul, Out>;

// Rows up to which the default takes DualGemmSmallM (the NVFP4 dual's bound, not measured: see above).
inline constexpr int64_t kDualGemmSmallMaxM = 256;
// Tokens up to which the default chooses the swap-AB kernels (not measured: see above).
inline constexpr int64_t kDualGemmSwapAbMaxM = 64;

enum class DualGemmChoice { kSwapAbTokens16, kSwapAbTokens32, kSwapAbTokens64, kSmallM, kLargeM };

// The swap-AB kernel for M tokens: the smallest token tile holding M (more than 64 take several tiles).
constexpr DualGemmChoice dual_gemm_swap_ab_choice(int64_t m) {
  return m <= 16   ? DualGemmChoice::kSwapAbTokens16
         : m <= 32 ? DualGemmChoice::kSwapAbTokens32
                   : DualGemmChoice::kSwapAbTokens64;
}

// The tiled kernel for M tokens (the default choice before the swap-AB kernels).
constexpr DualGemmChoice dual_gemm_tiled_choice(int64_t m) {
  return m <= kDualGemmSmallMaxM ? DualGemmChoice::kSmallM : DualGemmChoice::kLargeM;
}

// The default entry point's kernel for M tokens.
constexpr DualGemmChoice dual_gemm_choice(int64_t m) {
  return m <= kDualGemmSwapAbMaxM ? dual_gemm_swap_ab_choice(m) : dual_gemm_tiled_choice(m);
}

static_assert(kDualGemmChoiceCount == static_cast<int>(DualGemmChoice::kLargeM) + 1,
              "sm100/tuning.hpp names every DualGemmChoice, in order");

namespace detail {
// Runs `choice`'s kernel on the call with split_k (the swap-AB kernels': 0 their own choice; the tiled ones
// take none) and names it with the diagnostic switch on.
template <class In, class Out>
Status run_dual_gemm_choice(DualGemmChoice choice, const DualGemmArguments<In, Out>& args,
                            cudaStream_t stream, int split_k = 0) {
  const auto report = [&](const char* name) {
    ::bwgemm::detail::report_choice("bwgemm::sm100::dual_gemm", args.m, args.n, args.k, args.batch, name);
  };
  switch (choice) {
    case DualGemmChoice::kSwapAbTokens16:
      return report("sm100::DualGemmSwapAbTokens16 (swap AB, 128 weight rows x 16 tokens)"),
             DualGemmSwapAb<DualGemmSwapAbTokens16<Out>>::run(args, stream, split_k);
    case DualGemmChoice::kSwapAbTokens32:
      return report("sm100::DualGemmSwapAbTokens32 (swap AB, 128 weight rows x 32 tokens)"),
             DualGemmSwapAb<DualGemmSwapAbTokens32<Out>>::run(args, stream, split_k);
    case DualGemmChoice::kSwapAbTokens64:
      return report("sm100::DualGemmSwapAbTokens64 (swap AB, 128 weight rows x 64 tokens)"),
             DualGemmSwapAb<DualGemmSwapAbTokens64<Out>>::run(args, stream, split_k);
    case DualGemmChoice::kSmallM:
      return report("sm100::DualGemmSmallM (BlockN 64, CTA pairs)"),
             DualGemm<DualGemmSmallM<Out>>::run(args, stream);
    default:
      return report("sm100::DualGemmLargeM (BlockN 128, CTA pairs, CLC)"),
             DualGemm<DualGemmLargeM<Out>>::run(args, stream);
  }
}
static_assert(choice_is_swap_ab(DualGemmChoice::kSwapAbTokens64) &&
                  !choice_is_swap_ab(DualGemmChoice::kSmallM),
              "the swap-AB choices come first (sm100/swap_ab_launch.cuh)");
}  // namespace detail

// The sm_100a default entry point: the tuning registry's choice for the call (sm100/tuning.hpp) where one
// applies and its Config takes it, else a kernel from M (the table above).
template <class In, class Out>
Status dual_gemm(const DualGemmArguments<In, Out>& args, cudaStream_t stream = nullptr) {
  const tuning::Key key{tuning::Operation::kDualGemm,
                        host::tuning_element<In>(),
                        host::tuning_element<Out>(),
                        BLayout::kColumnMajorKxN,  // B1, B2 are N x K
                        args.m,
                        args.n,
                        args.k,
                        args.batch};
  const TableChoice c = choose_for_current_device(
      key, static_cast<int>(dual_gemm_choice(args.m)), kDualGemmChoiceNames, kDualGemmChoiceCount,
      [](int i, int split_k) { return detail::choice_takes_split(static_cast<DualGemmChoice>(i), split_k); });
  return detail::run_dual_gemm_choice(static_cast<DualGemmChoice>(c.index), args, stream, c.split_k);
}

// One side of the crossover whatever M, for the benchmark and the tests: the tiled kernels only, and the
// swap-AB kernels only.
template <class In, class Out>
Status dual_gemm_tiled(const DualGemmArguments<In, Out>& args, cudaStream_t stream = nullptr) {
  return detail::run_dual_gemm_choice(dual_gemm_tiled_choice(args.m), args, stream);
}
template <class In, class Out>
Status dual_gemm_swap_ab(const DualGemmArguments<In, Out>& args, cudaStream_t stream = nullptr) {
  return detail::run_dual_gemm_choice(dual_gemm_swap_ab_choice(args.m), args, stream);
}

}  // namespace bwgemm::sm100
