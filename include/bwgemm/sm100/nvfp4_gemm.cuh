// bwgemm's Blackwell (sm_100a) NVFP4 GEMM, fp32 accumulation (the qkv, o and down projections of an NVFP4
// model; the GPU MODE nvfp4_gemm task):
//
//   D[m, n, l] = alpha * sum_k A[m,k,l] B[n,k,l] + beta * C[m,n,l]      (epi::LinearCombination, default)
//
// The arguments are bwgemm::Nvfp4GemmArguments (arguments/nvfp4_gemm.hpp: the NVFP4 dual GEMM's operands,
// packed e2m1 data and 128x4 blocked e4m3 scales; M >= 1, N a multiple of 16, K a multiple of 64; C and D
// fp16, bf16 or fp32).
//
//   bwgemm::Nvfp4GemmArguments<__half> args;  ...
//   args.epilogue = {alpha, beta};                                  // alpha: the per-tensor scale
//   bwgemm::Status s = bwgemm::sm100::nvfp4_gemm(args, stream);     // picks a kernel from the shape
//   using Cfg = bwgemm::sm100::Nvfp4GemmConfig<128, 8, 2, bwgemm::sched::ClcWorkStealing>;
//   s = bwgemm::sm100::Nvfp4Gemm<Cfg>::run(args, stream);           // or an explicit kernel
//
// The call validates everything first and launches nothing on error; it is asynchronous on `stream`,
// allocates nothing and does not synchronize. The kernels need a GPU of compute capability 10.0 exactly;
// bwgemm::gemm_nvfp4 (gemm.cuh) dispatches between devices.
//
// NVFP4 D: bwgemm::Nvfp4GemmArguments<bwgemm::Nvfp4Output> (d: an Nvfp4OutputTensor, d_global_scale and its
// device part d_global_scale_ptr; no C) and Configs with Out = Nvfp4Output (Nvfp4GemmSmallM<Nvfp4Output>,
// Nvfp4GemmLargeM<Nvfp4Output>): the epilogue writes packed e2m1 data and blocked e4m3 scales, bit for bit
// bwgemm::quantize_nvfp4 of its fp32 values; the default entry point takes the tiled kernels for every M.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "bwgemm/arguments/nvfp4_gemm.hpp"
#include "bwgemm/base/diagnostics.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/host/launch.hpp"
#include "bwgemm/host/operand_maps.hpp"
#include "bwgemm/host/tuning_device.hpp"
#include "bwgemm/kernels/sm100/nvfp4_gemm_config.cuh"
#include "bwgemm/kernels/sm100/nvfp4_gemm_kernel.cuh"
#include "bwgemm/sm100/nvfp4_gemm_swap_ab.cuh"
#include "bwgemm/sm100/tuning.hpp"
#include "bwgemm/tuning/key.hpp"

namespace bwgemm::sm100 {

template <class Cfg>
struct Nvfp4Gemm {
  using Out = typename Cfg::Out;
  using Epilogue = typename Cfg::Epilogue;
  using Arguments = Nvfp4GemmArguments<Out, Epilogue>;
  using Params = Nvfp4GemmParams<Cfg>;

  // Host-side checks only (no device access): the operation's rules, then this Config's tile count.
  static Status can_implement(const Arguments& a) { return ::bwgemm::detail::can_implement_config<Cfg>(a); }

  static Status run(const Arguments& a, cudaStream_t stream = nullptr) {
    if (Status s = can_implement(a); !s.ok()) return s;
    if (Status s = host::require_compute_capability_100("bwgemm::sm100::Nvfp4Gemm"); !s.ok()) return s;
    if (Status s = host::require_device_pointers(device_operands(a), "bwgemm::sm100::Nvfp4Gemm"); !s.ok())
      return s;

    namespace d = ::bwgemm::detail;
    Params p;
    if (Status s = d::nvfp4_data_map(a.a.data, a.m, a.k, a.batch, Cfg::kBlockM, &p.tmap_a); !s.ok()) return s;
    if (Status s = d::nvfp4_data_map(a.b.data, a.n, a.k, a.batch, Cfg::kBRowsPerCta, &p.tmap_b); !s.ok())
      return s;
    if (Status s = d::nvfp4_scale_map(a.a.scales, a.m, a.k, a.batch, &p.tmap_sfa); !s.ok()) return s;
    if (Status s = d::nvfp4_scale_map(a.b.scales, a.n, a.k, a.batch, &p.tmap_sfb); !s.ok()) return s;
    if constexpr (Cfg::kNvfp4Out) {
      // NVFP4 D: packed rows of N / 2 bytes, the blocked scales and the global scale; no C (validate refuses
      // an epilogue that reads one).
      p.d = static_cast<uint8_t*>(a.d.data);
      p.ldd = a.n / 2;
      p.batch_stride_d = a.m * p.ldd;
      p.out_scales = static_cast<uint8_t*>(a.d.scales);
      p.out_global_scale = a.d_global_scale;
      p.out_global_scale_ptr = a.d_global_scale_ptr;  // its device part (null: d_global_scale alone)
    } else {
      const bool read_c = epi::reads_source(a.epilogue);
      p.d = a.d;
      p.c = read_c ? a.c : nullptr;
      p.ldd = a.ldd == 0 ? a.n : a.ldd;
      p.ldc = a.ldc == 0 ? a.n : a.ldc;
      p.batch_stride_d = a.m * p.ldd;
      p.read_c = read_c;
      constexpr int64_t kOutBytes = sizeof(Out);
      p.d_aligned32 = reinterpret_cast<uintptr_t>(a.d) % 32 == 0 && p.ldd * kOutBytes % 32 == 0 &&
                      a.m * p.ldd * kOutBytes % 32 == 0;
    }
    p.m = static_cast<int32_t>(a.m);
    p.n = static_cast<int32_t>(a.n);
    p.k = static_cast<int32_t>(a.k);
    p.tiles = d::config_tile_grid<Cfg>(a.m, a.n, a.batch);
    p.identity = epi::is_identity(a.epilogue);
    p.epilogue = a.epilogue;
    // Keep the operand more tiles re-read (B when M > N) in L2; stream the other (the dual GEMM's rule).
    const bool keep_b = a.m > a.n;
    p.cache_hint_a = keep_b ? ptx::kL2EvictFirst : ptx::kL2EvictLast;
    p.cache_hint_b = keep_b ? ptx::kL2EvictLast : ptx::kL2EvictFirst;

    return host::launch_tile_kernel<Cfg>(&nvfp4_gemm_kernel<Cfg>, p, stream, a.launch);
  }
};

// The kernels the default entry point chooses from (docs/api.md has the table and the reasoning):
//   M <= 64  : swap AB (sm100/nvfp4_gemm_swap_ab.cuh): the weights' N on the MMA's 128-row side, the tokens
//              on its N side in tiles of 16, 32 or 64 (the smallest holding M), K split inside a cluster
//              where the weight tiles do not fill the SMs; the NVFP4 dual GEMM's bound and tiles
//   M <= 256 : BlockN 64, 9 stages, CTA pair, static persistent, double-buffered accumulators: at small M
//              the tiles are few, and narrower ones spread over more SMs (the NVFP4 dual GEMM's small-M rule)
//   M > 256  : BlockN 128, 8 stages, CTA pair, Cluster Launch Control work stealing
// The tiled two are the most stages that fit in 227 KB. Not measured: no B200 has run these kernels (they
// pass in the emulator only), so where swap AB starts to lose to the tiled kernel is the dual GEMM's guess
// (M = 64), not a measurement.
template <class Out>
using Nvfp4GemmSwapAbTokens16 =
    Nvfp4GemmSwapAbConfig<16, 10, sched::StaticPersistent, epi::LinearCombination, Out>;
template <class Out>
using Nvfp4GemmSwapAbTokens32 =
    Nvfp4GemmSwapAbConfig<32, 9, sched::StaticPersistent, epi::LinearCombination, Out>;
template <class Out>
using Nvfp4GemmSwapAbTokens64 =
    Nvfp4GemmSwapAbConfig<64, 8, sched::StaticPersistent, epi::LinearCombination, Out>;
template <class Out>
using Nvfp4GemmSmallM = Nvfp4GemmConfig<64, 9, 2, sched::StaticPersistent, epi::LinearCombination, Out>;
template <class Out>
using Nvfp4GemmLargeM = Nvfp4GemmConfig<128, 8, 2, sched::ClcWorkStealing, epi::LinearCombination, Out>;

// Rows up to which the default chooses swap AB (the NVFP4 dual GEMM's bound, kNvfp4DualSwapAbMaxM; not
// measured), and Nvfp4GemmSmallM (the NVFP4 dual GEMM's tiled bound; not measured).
inline constexpr int64_t kNvfp4GemmSwapAbMaxM = 64;
inline constexpr int64_t kNvfp4GemmSmallMaxM = 256;

enum class Nvfp4GemmChoice { kSwapAbTokens16, kSwapAbTokens32, kSwapAbTokens64, kSmallM, kLargeM };
static_assert(kNvfp4GemmChoiceCount == static_cast<int>(Nvfp4GemmChoice::kLargeM) + 1,
              "sm100/tuning.hpp names every Nvfp4GemmChoice, in order");

// The swap-AB kernel for M tokens: the smallest token tile that holds them (64 for any larger M).
constexpr Nvfp4GemmChoice nvfp4_gemm_swap_ab_choice(int64_t m) {
  return m <= 16   ? Nvfp4GemmChoice::kSwapAbTokens16
         : m <= 32 ? Nvfp4GemmChoice::kSwapAbTokens32
                   : Nvfp4GemmChoice::kSwapAbTokens64;
}

// The tiled kernel for M rows.
constexpr Nvfp4GemmChoice nvfp4_gemm_tiled_choice(int64_t m) {
  return m <= kNvfp4GemmSmallMaxM ? Nvfp4GemmChoice::kSmallM : Nvfp4GemmChoice::kLargeM;
}

// The default entry point's kernel for M rows.
constexpr Nvfp4GemmChoice nvfp4_gemm_choice(int64_t m) {
  return m <= kNvfp4GemmSwapAbMaxM ? nvfp4_gemm_swap_ab_choice(m) : nvfp4_gemm_tiled_choice(m);
}

namespace detail {
// Runs `choice`'s kernel on the call with split_k (the swap-AB kernels': 0 their own choice; the tiled ones
// take none) and names it with the diagnostic switch on.
template <class Out>
Status run_nvfp4_gemm_choice(Nvfp4GemmChoice choice, const Nvfp4GemmArguments<Out>& args, cudaStream_t stream,
                             int split_k = 0) {
  const auto report = [&](const char* name) {
    ::bwgemm::detail::report_choice("bwgemm::sm100::nvfp4_gemm", args.m, args.n, args.k, args.batch, name);
  };
  switch (choice) {
    case Nvfp4GemmChoice::kSwapAbTokens16:
      return report("sm100::Nvfp4GemmSwapAbTokens16 (swap AB, 128 weight rows x 16 tokens)"),
             Nvfp4GemmSwapAb<Nvfp4GemmSwapAbTokens16<Out>>::run(args, stream, split_k);
    case Nvfp4GemmChoice::kSwapAbTokens32:
      return report("sm100::Nvfp4GemmSwapAbTokens32 (swap AB, 128 weight rows x 32 tokens)"),
             Nvfp4GemmSwapAb<Nvfp4GemmSwapAbTokens32<Out>>::run(args, stream, split_k);
    case Nvfp4GemmChoice::kSwapAbTokens64:
      return report("sm100::Nvfp4GemmSwapAbTokens64 (swap AB, 128 weight rows x 64 tokens)"),
             Nvfp4GemmSwapAb<Nvfp4GemmSwapAbTokens64<Out>>::run(args, stream, split_k);
    case Nvfp4GemmChoice::kSmallM:
      return report("sm100::Nvfp4GemmSmallM"), Nvfp4Gemm<Nvfp4GemmSmallM<Out>>::run(args, stream);
    case Nvfp4GemmChoice::kLargeM:
      break;
  }
  return report("sm100::Nvfp4GemmLargeM"), Nvfp4Gemm<Nvfp4GemmLargeM<Out>>::run(args, stream);
}

static_assert(choice_is_swap_ab(Nvfp4GemmChoice::kSwapAbTokens64) &&
                  !choice_is_swap_ab(Nvfp4GemmChoice::kSmallM),
              "the swap-AB choices come first (sm100/swap_ab_launch.cuh)");
// The tuning key of a call (B is N x K).
template <class Out>
tuning::Key nvfp4_gemm_key(const Nvfp4GemmArguments<Out>& args, tuning::Element out) {
  return tuning::Key{tuning::Operation::kNvfp4Gemm,
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
Status nvfp4_gemm(const Nvfp4GemmArguments<Out>& args, cudaStream_t stream = nullptr) {
  const TableChoice c = choose_for_current_device(
      detail::nvfp4_gemm_key(args, host::tuning_element<Out>()), static_cast<int>(nvfp4_gemm_choice(args.m)),
      kNvfp4GemmChoiceNames, kNvfp4GemmChoiceCount, [](int i, int split_k) {
        return detail::choice_takes_split(static_cast<Nvfp4GemmChoice>(i), split_k);
      });
  return detail::run_nvfp4_gemm_choice(static_cast<Nvfp4GemmChoice>(c.index), args, stream, c.split_k);
}

// One side of the crossover whatever M, for the benchmark and the tests: the tiled kernels only, and the
// swap-AB kernels only (16-bit and fp32 outputs; NVFP4 D always runs tiled, below).
template <class Out>
Status nvfp4_gemm_tiled(const Nvfp4GemmArguments<Out>& args, cudaStream_t stream = nullptr) {
  return detail::run_nvfp4_gemm_choice(nvfp4_gemm_tiled_choice(args.m), args, stream);
}
template <class Out>
Status nvfp4_gemm_swap_ab(const Nvfp4GemmArguments<Out>& args, cudaStream_t stream = nullptr) {
  return detail::run_nvfp4_gemm_choice(nvfp4_gemm_swap_ab_choice(args.m), args, stream);
}

// NVFP4 D (Out = Nvfp4Output): the tiled kernels whatever M (the swap-AB kernels write fp16 / bf16 / fp32
// only), as the NVFP4 dual GEMM's NVFP4 output: BlockN 64 with a CTA pair, static persistent, for M <= 256;
// BlockN 128, CLC work stealing, above; a table's entry (out "nvfp4") may name either.
inline Status nvfp4_gemm(const Nvfp4GemmArguments<Nvfp4Output>& args, cudaStream_t stream = nullptr) {
  const TableChoice c = choose_for_current_device(
      detail::nvfp4_gemm_key(args, tuning::Element::kNvfp4),
      static_cast<int>(nvfp4_gemm_tiled_choice(args.m)), kNvfp4GemmChoiceNames, kNvfp4GemmChoiceCount,
      [](int i, int split_k) {
        return !detail::choice_is_swap_ab(static_cast<Nvfp4GemmChoice>(i)) &&
               detail::choice_takes_split(static_cast<Nvfp4GemmChoice>(i), split_k);
      },
      "its Config cannot write an NVFP4 output or cannot run that split");
  const bool small_m = static_cast<Nvfp4GemmChoice>(c.index) == Nvfp4GemmChoice::kSmallM;
  ::bwgemm::detail::report_choice(
      "bwgemm::sm100::nvfp4_gemm", args.m, args.n, args.k, args.batch,
      small_m ? "sm100::Nvfp4GemmSmallM<Nvfp4Output>" : "sm100::Nvfp4GemmLargeM<Nvfp4Output>");
  return small_m ? Nvfp4Gemm<Nvfp4GemmSmallM<Nvfp4Output>>::run(args, stream)
                 : Nvfp4Gemm<Nvfp4GemmLargeM<Nvfp4Output>>::run(args, stream);
}

}  // namespace bwgemm::sm100
