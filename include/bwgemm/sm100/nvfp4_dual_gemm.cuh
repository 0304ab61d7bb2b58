// bwgemm's Blackwell (sm_100a) NVFP4 dual GEMM with a fused gated epilogue, the gated MLP of modern LLMs:
//
//   C[m, n, l] = silu(alpha1 * sum_k A[m,k,l] B1[n,k,l]) * (alpha2 * sum_k A[m,k,l] B2[n,k,l])
//
// The arguments are bwgemm::Nvfp4DualGemmArguments (arguments/nvfp4_dual_gemm.hpp: packed e2m1 data and
// 128x4 blocked e4m3 scales; M >= 1, N a multiple of 16, K a multiple of 64).
//
//   bwgemm::Nvfp4DualGemmArguments<__half> args;  ...
//   bwgemm::Status s = bwgemm::sm100::dual_gemm_nvfp4(args, stream);   // picks a kernel from the shape
//   using Cfg = bwgemm::sm100::Nvfp4DualGemmConfig<128, 5, 2, bwgemm::sched::ClcWorkStealing>;
//   s = bwgemm::sm100::Nvfp4DualGemm<Cfg>::run(args, stream);          // or an explicit kernel
//   (small M: bwgemm::sm100::Nvfp4DualGemmSwapAb<Nvfp4DualSwapAbConfig<16, 5>>, nvfp4_dual_swap_ab.cuh)
//
// The call validates everything first and launches nothing on error; it is asynchronous on `stream`,
// allocates nothing and does not synchronize. The kernels need a GPU of compute capability 10.0 exactly;
// bwgemm::dual_gemm_nvfp4 (dual_gemm.cuh) dispatches between devices.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "bwgemm/arguments/nvfp4_dual_gemm.hpp"
#include "bwgemm/base/diagnostics.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/host/dual_gemm_params.hpp"
#include "bwgemm/host/launch.hpp"
#include "bwgemm/host/operand_maps.hpp"
#include "bwgemm/host/tuning_device.hpp"
#include "bwgemm/kernels/sm100/nvfp4_dual_gemm_config.cuh"
#include "bwgemm/kernels/sm100/nvfp4_dual_gemm_kernel.cuh"
#include "bwgemm/kernels/sm100/nvfp4_dual_swap_ab_config.cuh"
#include "bwgemm/sm100/nvfp4_dual_swap_ab.cuh"
#include "bwgemm/sm100/tuning.hpp"
#include "bwgemm/tuning/key.hpp"

namespace bwgemm::sm100 {

template <class Cfg>
struct Nvfp4DualGemm {
  using Arguments = Nvfp4DualGemmArguments<typename Cfg::Out, typename Cfg::Epilogue>;
  using Params = Nvfp4DualGemmParams<Cfg>;

  // Host-side checks only (no device access): the operation's rules, then this Config's tile count.
  static Status can_implement(const Arguments& a) { return ::bwgemm::detail::can_implement_config<Cfg>(a); }

  static Status run(const Arguments& a, cudaStream_t stream = nullptr) {
    if (Status s = can_implement(a); !s.ok()) return s;
    if (Status s = host::require_compute_capability_100("bwgemm::sm100::Nvfp4DualGemm"); !s.ok()) return s;
    if (Status s = host::require_device_pointers(device_operands(a), "bwgemm::sm100::Nvfp4DualGemm"); !s.ok())
      return s;

    namespace d = ::bwgemm::detail;
    Params p;
    if (Status s = d::nvfp4_data_map(a.a.data, a.m, a.k, a.batch, Cfg::kBlockM, &p.tmap_a); !s.ok()) return s;
    if (Status s = d::nvfp4_data_map(a.b1.data, a.n, a.k, a.batch, Cfg::kBRowsPerCta, &p.tmap_b1); !s.ok())
      return s;
    if (Status s = d::nvfp4_data_map(a.b2.data, a.n, a.k, a.batch, Cfg::kBRowsPerCta, &p.tmap_b2); !s.ok())
      return s;
    if (Status s = d::nvfp4_scale_map(a.a.scales, a.m, a.k, a.batch, &p.tmap_sfa); !s.ok()) return s;
    if (Status s = d::nvfp4_scale_map(a.b1.scales, a.n, a.k, a.batch, &p.tmap_sfb1); !s.ok()) return s;
    if (Status s = d::nvfp4_scale_map(a.b2.scales, a.n, a.k, a.batch, &p.tmap_sfb2); !s.ok()) return s;
    if constexpr (Cfg::kNvfp4Out) {
      // NVFP4 C: packed rows of N / 2 bytes, the blocked scales and the global scale.
      p.c = static_cast<uint8_t*>(a.c.data);
      p.ldc = a.n / 2;
      p.batch_stride_c = a.m * p.ldc;
      p.out_scales = static_cast<uint8_t*>(a.c.scales);
      p.out_global_scale = a.c_global_scale;
      p.out_global_scale_ptr = a.c_global_scale_ptr;
    } else {
      p.c = a.c;
      p.ldc = a.ldc == 0 ? a.n : a.ldc;
      p.batch_stride_c = a.m * p.ldc;
      constexpr int64_t kOutBytes = sizeof(typename Cfg::Out);
      p.c_aligned32 = reinterpret_cast<uintptr_t>(a.c) % 32 == 0 && p.ldc * kOutBytes % 32 == 0 &&
                      a.m * p.ldc * kOutBytes % 32 == 0;
    }
    host::fill_common_dual_gemm_params(a, ::bwgemm::detail::config_tile_grid<Cfg>(a.m, a.n, a.batch), &p);
    p.unit_alphas = ::bwgemm::detail::unit_alphas(a);
    // Keep the operand more tiles re-read (B when M > N) in L2; stream the other.
    const bool keep_b = a.m > a.n;
    p.cache_hint_a = keep_b ? ptx::kL2EvictFirst : ptx::kL2EvictLast;
    p.cache_hint_b = keep_b ? ptx::kL2EvictLast : ptx::kL2EvictFirst;

    return host::launch_tile_kernel<Cfg>(&nvfp4_dual_gemm_kernel<Cfg>, p, stream, a.launch);
  }
};

// The kernels the default entry point chooses from (docs/api.md has the table and the reasoning):
//   M <= 64       : swap AB (sm100/nvfp4_dual_swap_ab.cuh): the weights' N on the MMA's 128-row side, the
//                   tokens on its N side in tiles of 16, 32 or 64 (the smallest that holds M); one CTA per
//                   tile, static persistent
//   64 < M <= 256 : BlockN 64, 7 stages, CTA pair, static persistent, double-buffered accumulators: more
//   tiles
//                   to spread over the SMs when M is small (seed 000's persistent kernel for M = 256).
//   M > 256       : BlockN 128, 5 stages, CTA pair, Cluster Launch Control work stealing.
// The swap-AB bound is not measured: no B200 has run these kernels (they pass in the emulator only). It is
// the sm_90a kernels' measured crossover (M <= 64, docs/hopper.md) taken over; a sweep of M = 1 .. 256 of
// both sides on a B200 (bench: dual_gemm_nvfp4_tiled against dual_gemm_nvfp4_swap_ab) would measure it.
template <class Out>
using Nvfp4DualGemmSmallM = Nvfp4DualGemmConfig<64, 7, 2, sched::StaticPersistent, epi::SiluMul, Out>;
template <class Out>
using Nvfp4DualGemmLargeM = Nvfp4DualGemmConfig<128, 5, 2, sched::ClcWorkStealing, epi::SiluMul, Out>;
template <class Out>
using Nvfp4DualGemmSwapAbTokens16 = Nvfp4DualSwapAbConfig<16, 5, sched::StaticPersistent, epi::SiluMul, Out>;
template <class Out>
using Nvfp4DualGemmSwapAbTokens32 = Nvfp4DualSwapAbConfig<32, 5, sched::StaticPersistent, epi::SiluMul, Out>;
template <class Out>
using Nvfp4DualGemmSwapAbTokens64 = Nvfp4DualSwapAbConfig<64, 4, sched::StaticPersistent, epi::SiluMul, Out>;

// Tokens up to which the default chooses the swap-AB kernels (not measured: see above).
inline constexpr int64_t kNvfp4DualSwapAbMaxM = 64;

enum class Nvfp4DualChoice { kSwapAbTokens16, kSwapAbTokens32, kSwapAbTokens64, kSmallM, kLargeM };
static_assert(kNvfp4DualGemmChoiceCount == static_cast<int>(Nvfp4DualChoice::kLargeM) + 1,
              "sm100/tuning.hpp names every Nvfp4DualChoice, in order");

// The swap-AB kernel for M tokens: the smallest token tile holding M (more than 64 take several tiles).
constexpr Nvfp4DualChoice nvfp4_dual_swap_ab_choice(int64_t m) {
  return m <= 16   ? Nvfp4DualChoice::kSwapAbTokens16
         : m <= 32 ? Nvfp4DualChoice::kSwapAbTokens32
                   : Nvfp4DualChoice::kSwapAbTokens64;
}

// The tiled kernel for M tokens (the default choice before the swap-AB kernels).
constexpr Nvfp4DualChoice nvfp4_dual_tiled_choice(int64_t m) {
  return m <= 256 ? Nvfp4DualChoice::kSmallM : Nvfp4DualChoice::kLargeM;
}

// The default entry point's kernel for M tokens.
constexpr Nvfp4DualChoice nvfp4_dual_choice(int64_t m) {
  return m <= kNvfp4DualSwapAbMaxM ? nvfp4_dual_swap_ab_choice(m) : nvfp4_dual_tiled_choice(m);
}

namespace detail {
// Runs `choice`'s kernel on the call with split_k (the swap-AB kernels': 0 their own choice; the tiled ones
// take none) and names it with the diagnostic switch on.
template <class Out>
Status run_nvfp4_dual_choice(Nvfp4DualChoice choice, const Nvfp4DualGemmArguments<Out>& args,
                             cudaStream_t stream, int split_k = 0) {
  const auto report = [&](const char* name) {
    ::bwgemm::detail::report_choice("bwgemm::sm100::dual_gemm_nvfp4", args.m, args.n, args.k, args.batch,
                                    name);
  };
  switch (choice) {
    case Nvfp4DualChoice::kSwapAbTokens16:
      return report("sm100::Nvfp4DualGemmSwapAbTokens16 (swap AB, 128 weight rows x 16 tokens)"),
             Nvfp4DualGemmSwapAb<Nvfp4DualGemmSwapAbTokens16<Out>>::run(args, stream, split_k);
    case Nvfp4DualChoice::kSwapAbTokens32:
      return report("sm100::Nvfp4DualGemmSwapAbTokens32 (swap AB, 128 weight rows x 32 tokens)"),
             Nvfp4DualGemmSwapAb<Nvfp4DualGemmSwapAbTokens32<Out>>::run(args, stream, split_k);
    case Nvfp4DualChoice::kSwapAbTokens64:
      return report("sm100::Nvfp4DualGemmSwapAbTokens64 (swap AB, 128 weight rows x 64 tokens)"),
             Nvfp4DualGemmSwapAb<Nvfp4DualGemmSwapAbTokens64<Out>>::run(args, stream, split_k);
    case Nvfp4DualChoice::kSmallM:
      return report("sm100::Nvfp4DualGemmSmallM"), Nvfp4DualGemm<Nvfp4DualGemmSmallM<Out>>::run(args, stream);
    default:
      return report("sm100::Nvfp4DualGemmLargeM"), Nvfp4DualGemm<Nvfp4DualGemmLargeM<Out>>::run(args, stream);
  }
}

static_assert(choice_is_swap_ab(Nvfp4DualChoice::kSwapAbTokens64) &&
                  !choice_is_swap_ab(Nvfp4DualChoice::kSmallM),
              "the swap-AB choices come first (sm100/swap_ab_launch.cuh)");
// The tuning key of a call (B1 and B2 are N x K).
template <class Out>
tuning::Key nvfp4_dual_key(const Nvfp4DualGemmArguments<Out>& args, tuning::Element out) {
  return tuning::Key{tuning::Operation::kNvfp4DualGemm,
                     tuning::Element::kNvfp4,
                     out,
                     BLayout::kColumnMajorKxN,
                     args.m,
                     args.n,
                     args.k,
                     args.batch};
}
}  // namespace detail

// The sm_100a default entry point: the tuning registry's choice for the call (sm100/tuning.hpp) where one
// applies and its Config takes it, else a kernel from the shape (the table above).
template <class Out>
Status dual_gemm_nvfp4(const Nvfp4DualGemmArguments<Out>& args, cudaStream_t stream = nullptr) {
  const TableChoice c = choose_for_current_device(
      detail::nvfp4_dual_key(args, host::tuning_element<Out>()), static_cast<int>(nvfp4_dual_choice(args.m)),
      kNvfp4DualGemmChoiceNames, kNvfp4DualGemmChoiceCount, [](int i, int split_k) {
        return detail::choice_takes_split(static_cast<Nvfp4DualChoice>(i), split_k);
      });
  return detail::run_nvfp4_dual_choice(static_cast<Nvfp4DualChoice>(c.index), args, stream, c.split_k);
}

// NVFP4 C (Out = Nvfp4Output): the tiled kernels whatever M (the swap-AB kernels write fp16 / bf16 only):
// BlockN 64 with a CTA pair, static persistent, for M <= 256; BlockN 128, CLC work stealing, above; a table's
// entry (out "nvfp4") may name either.
inline Status dual_gemm_nvfp4(const Nvfp4DualGemmArguments<Nvfp4Output>& args,
                              cudaStream_t stream = nullptr) {
  const TableChoice c = choose_for_current_device(
      detail::nvfp4_dual_key(args, tuning::Element::kNvfp4),
      static_cast<int>(nvfp4_dual_tiled_choice(args.m)), kNvfp4DualGemmChoiceNames, kNvfp4DualGemmChoiceCount,
      [](int i, int split_k) {
        return !detail::choice_is_swap_ab(static_cast<Nvfp4DualChoice>(i)) &&
               detail::choice_takes_split(static_cast<Nvfp4DualChoice>(i), split_k);
      },
      "its Config cannot write an NVFP4 output or cannot run that split");
  const bool small_m = static_cast<Nvfp4DualChoice>(c.index) == Nvfp4DualChoice::kSmallM;
  ::bwgemm::detail::report_choice(
      "bwgemm::sm100::dual_gemm_nvfp4", args.m, args.n, args.k, args.batch,
      small_m ? "sm100::Nvfp4DualGemmSmallM<Nvfp4Output>" : "sm100::Nvfp4DualGemmLargeM<Nvfp4Output>");
  return small_m ? Nvfp4DualGemm<Nvfp4DualGemmSmallM<Nvfp4Output>>::run(args, stream)
                 : Nvfp4DualGemm<Nvfp4DualGemmLargeM<Nvfp4Output>>::run(args, stream);
}

// One side of the crossover whatever M, for the benchmark and the tests: the tiled kernels only, and the
// swap-AB kernels only.
template <class Out>
Status dual_gemm_nvfp4_tiled(const Nvfp4DualGemmArguments<Out>& args, cudaStream_t stream = nullptr) {
  return detail::run_nvfp4_dual_choice(nvfp4_dual_tiled_choice(args.m), args, stream);
}
template <class Out>
Status dual_gemm_nvfp4_swap_ab(const Nvfp4DualGemmArguments<Out>& args, cudaStream_t stream = nullptr) {
  return detail::run_nvfp4_dual_choice(nvfp4_dual_swap_ab_choice(args.m), args, stream);
}

}  // namespace bwgemm::sm100
