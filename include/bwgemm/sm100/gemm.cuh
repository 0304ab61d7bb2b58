// bwgemm's Blackwell (sm_100a) FP16/BF16 GEMM, fp32 accumulation:
//
//   D[m, n, l] = alpha * sum_k A[m,k,l] B[k,n,l] + beta * C[m,n,l]      (epi::LinearCombination, default)
//
// The arguments are bwgemm::GemmArguments (arguments/gemm.hpp), the same for every backend. A is fp16 or
// bf16, M x K row-major (row stride lda); B has A's type and is K x N row-major (BLayout::kRowMajorKxN, the
// GPU MODE matmul_v2 layout, seed 004) or N x K row-major, i.e. K-major (BLayout::kColumnMajorKxN;
// nn.Linear weights); C and D are M x N row-major in fp16, bf16 or fp32 (the Config's Out).
//
//   bwgemm::GemmArguments<__half> args;  ...
//   bwgemm::Status s = bwgemm::sm100::gemm(args, stream);         // picks a kernel from the shape
//   using Cfg = bwgemm::sm100::GemmConfig<256, 0, 2, bwgemm::sched::ClcWorkStealing>;
//   s = bwgemm::sm100::Gemm<Cfg>::run(args, stream);              // or an explicit kernel
//   (small M: bwgemm::sm100::GemmSwapAb<GemmSwapAbConfig<16, 10>>, gemm_swap_ab.cuh)
//
// The call validates everything first (bwgemm::validate, then the Config's tile count) and launches nothing
// on error; it is asynchronous on `stream`, allocates nothing and does not synchronize. The kernels need a
// GPU of compute capability 10.0 (B200/GB200) exactly; bwgemm::gemm (gemm.cuh) dispatches between backends.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "bwgemm/arguments/gemm.hpp"
#include "bwgemm/base/diagnostics.hpp"
#include "bwgemm/base/layout.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/host/launch.hpp"
#include "bwgemm/host/operand_maps.hpp"
#include "bwgemm/host/tuning_device.hpp"
#include "bwgemm/kernels/sm100/gemm_config.cuh"
#include "bwgemm/kernels/sm100/gemm_kernel.cuh"
#include "bwgemm/kernels/sm100/gemm_swap_ab_config.cuh"
#include "bwgemm/sm100/gemm_swap_ab.cuh"
#include "bwgemm/sm100/tuning.hpp"

namespace bwgemm::sm100 {

template <class Cfg>
struct Gemm {
  using Out = typename Cfg::Out;
  using Epilogue = typename Cfg::Epilogue;
  template <class In>
  using Arguments = GemmArguments<In, Out, Epilogue>;

  // Host-side checks only (no device access): the GEMM's rules, then this Config's tile count.
  template <class In>
  static Status can_implement(const GemmArguments<In, Out, Epilogue>& a) {
    return ::bwgemm::detail::can_implement_config<Cfg>(a);
  }

  template <class In>
  static Status run(const GemmArguments<In, Out, Epilogue>& a, cudaStream_t stream = nullptr) {
    if (Status s = can_implement(a); !s.ok()) return s;
    if (Status s = host::require_compute_capability_100("bwgemm::sm100::Gemm"); !s.ok()) return s;
    if (Status s = host::require_device_pointers(device_operands(a), "bwgemm::sm100::Gemm"); !s.ok())
      return s;

    const ::bwgemm::detail::GemmStrides st = ::bwgemm::detail::gemm_strides(a);
    const bool kxn = a.b_layout == BLayout::kRowMajorKxN;
    constexpr TensorMapDataType type = ::bwgemm::detail::gemm_tensor_map_type<In>();
    GemmParams<Cfg> p;
    if (Status s = ::bwgemm::detail::gemm_operand_map(type, a.a, a.k, a.m, a.batch, st.lda, st.batch_stride_a,
                                                      Cfg::kBlockK, Cfg::kBlockM, TensorMapSwizzle::k128B,
                                                      &p.tmap_a);
        !s.ok())
      return s;
    if (kxn) {
      const TensorMapSwizzle swizzle =
          Cfg::kBMnSpanBytes == 128 ? TensorMapSwizzle::k128B : TensorMapSwizzle::k64B;
      // One box per stage (seed 004) where N is whole chunks; otherwise one box per chunk, which clips the
      // last chunk at N.
      p.b_one_box = a.n % Cfg::kBChunkColumns == 0;
      if (Status s = p.b_one_box ? ::bwgemm::detail::gemm_mn_chunked_map(
                                       type, a.b, a.n, a.k, a.batch, st.ldb, st.batch_stride_b,
                                       Cfg::kBChunkColumns, Cfg::kBlockK, Cfg::kBChunks, swizzle, &p.tmap_b)
                                 : ::bwgemm::detail::gemm_operand_map(type, a.b, a.n, a.k, a.batch, st.ldb,
                                                                      st.batch_stride_b, Cfg::kBChunkColumns,
                                                                      Cfg::kBlockK, swizzle, &p.tmap_b);
          !s.ok())
        return s;
    } else {
      if (Status s = ::bwgemm::detail::gemm_operand_map(type, a.b, a.k, a.n, a.batch, st.ldb,
                                                        st.batch_stride_b, Cfg::kBlockK, Cfg::kBColumnsPerCta,
                                                        TensorMapSwizzle::k128B, &p.tmap_b);
          !s.ok())
        return s;
    }
    ::bwgemm::detail::fill_common_gemm_params<Cfg>(a, st, &p);
    p.idesc = Cfg::instr_desc(std::is_same_v<In, __half> ? ptx::MmaF16Format::kF16 : ptx::MmaF16Format::kBF16,
                              a.b_layout);
    p.b = Cfg::b_operand(a.b_layout);
    p.b_mn_major = kxn;
    p.identity = epi::is_identity(a.epilogue);
    constexpr int64_t kOutBytes = sizeof(Out);
    p.d_aligned32 = reinterpret_cast<uintptr_t>(a.d) % 32 == 0 && st.ldd * kOutBytes % 32 == 0 &&
                    st.batch_stride_d * kOutBytes % 32 == 0;
    return host::launch_tile_kernel<Cfg>(&gemm_kernel<Cfg>, p, stream, a.launch);
  }
};

// The kernels the default entry point chooses from (docs/api.md has the table and the reasoning):
//   M <= 64        : swap AB (sm100/gemm_swap_ab.cuh): the weights' N on the MMA's 128-row side, the tokens
//   on
//                    its N side in tiles of 16, 32 or 64 (the smallest that holds M), static persistent.
//   64 < M <= 128  : BlockN 64, one CTA (M = 128), static persistent: many N tiles to spread over the SMs.
//   128 < M <= 512 : BlockN 128, CTA pair (M = 256), Cluster Launch Control work stealing.
//   M > 512        : BlockN 256, CTA pair, CLC work stealing: seed 004's kernel.
// Every tiled one takes as many stages as fit in 227 KB. The swap-AB bound is not measured: no B200 has run
// these kernels (they pass in the emulator only); it is the sm_90a kernels' measured crossover (M <= 64,
// docs/hopper.md) taken over. A sweep of M = 1 .. 256 of both sides on a B200 (gemm_tiled against
// gemm_swap_ab below) would measure it.
template <class Out>
using GemmSmallM = GemmConfig<64, 0, 1, sched::StaticPersistent, epi::LinearCombination, Out>;
template <class Out>
using GemmMediumM = GemmConfig<128, 0, 2, sched::ClcWorkStealing, epi::LinearCombination, Out>;
template <class Out>
using GemmLargeM = GemmConfig<256, 0, 2, sched::ClcWorkStealing, epi::LinearCombination, Out>;
template <class Out>
using GemmSwapAbTokens16 = GemmSwapAbConfig<16, 10, sched::StaticPersistent, epi::LinearCombination, Out>;
template <class Out>
using GemmSwapAbTokens32 = GemmSwapAbConfig<32, 10, sched::StaticPersistent, epi::LinearCombination, Out>;
template <class Out>
using GemmSwapAbTokens64 = GemmSwapAbConfig<64, 8, sched::StaticPersistent, epi::LinearCombination, Out>;

// Tokens up to which the default chooses the swap-AB kernels (not measured: see above).
inline constexpr int64_t kGemmSwapAbMaxM = 64;

enum class GemmChoice { kSwapAbTokens16, kSwapAbTokens32, kSwapAbTokens64, kSmallM, kMediumM, kLargeM };

// The swap-AB kernel for M tokens: the smallest token tile holding M (more than 64 take several tiles).
constexpr GemmChoice gemm_swap_ab_choice(int64_t m) {
  return m <= 16   ? GemmChoice::kSwapAbTokens16
         : m <= 32 ? GemmChoice::kSwapAbTokens32
                   : GemmChoice::kSwapAbTokens64;
}

// The tiled kernel for M tokens (the default choice before the swap-AB kernels).
constexpr GemmChoice gemm_tiled_choice(int64_t m) {
  return m <= 128 ? GemmChoice::kSmallM : m <= 512 ? GemmChoice::kMediumM : GemmChoice::kLargeM;
}

// The default entry point's kernel for M tokens.
constexpr GemmChoice gemm_choice(int64_t m) {
  return m <= kGemmSwapAbMaxM ? gemm_swap_ab_choice(m) : gemm_tiled_choice(m);
}

static_assert(kGemmChoiceCount == static_cast<int>(GemmChoice::kLargeM) + 1,
              "sm100/tuning.hpp names every GemmChoice, in order");

namespace detail {
// Runs `choice`'s kernel on the call with split_k (the swap-AB kernels': 0 their own choice; the tiled ones
// take none) and names it with the diagnostic switch on.
template <class In, class Out>
Status run_gemm_choice(GemmChoice choice, const GemmArguments<In, Out>& args, cudaStream_t stream,
                       int split_k = 0) {
  const auto report = [&](const char* name) {
    ::bwgemm::detail::report_choice("bwgemm::sm100::gemm", args.m, args.n, args.k, args.batch, name);
  };
  switch (choice) {
    case GemmChoice::kSwapAbTokens16:
      return report("sm100::GemmSwapAbTokens16 (swap AB, 128 weight rows x 16 tokens)"),
             GemmSwapAb<GemmSwapAbTokens16<Out>>::run(args, stream, split_k);
    case GemmChoice::kSwapAbTokens32:
      return report("sm100::GemmSwapAbTokens32 (swap AB, 128 weight rows x 32 tokens)"),
             GemmSwapAb<GemmSwapAbTokens32<Out>>::run(args, stream, split_k);
    case GemmChoice::kSwapAbTokens64:
      return report("sm100::GemmSwapAbTokens64 (swap AB, 128 weight rows x 64 tokens)"),
             GemmSwapAb<GemmSwapAbTokens64<Out>>::run(args, stream, split_k);
    case GemmChoice::kSmallM:
      return report("sm100::GemmSmallM"), Gemm<GemmSmallM<Out>>::run(args, stream);
    case GemmChoice::kMediumM:
      return report("sm100::GemmMediumM"), Gemm<GemmMediumM<Out>>::run(args, stream);
    default:
      return report("sm100::GemmLargeM"), Gemm<GemmLargeM<Out>>::run(args, stream);
  }
}
static_assert(choice_is_swap_ab(GemmChoice::kSwapAbTokens64) && !choice_is_swap_ab(GemmChoice::kSmallM),
              "the swap-AB choices come first (sm100/swap_ab_launch.cuh)");
}  // namespace detail

// The sm_100a default entry point: the tuning registry's choice for the call (sm100/tuning.hpp: the installed
// table or BWGEMM_TUNING_FILE's, the built-in tables for this device) where one applies and its Config takes
// it, else a kernel from the shape (the table above).
template <class In, class Out>
Status gemm(const GemmArguments<In, Out>& args, cudaStream_t stream = nullptr) {
  const tuning::Key key{tuning::Operation::kGemm,
                        host::tuning_element<In>(),
                        host::tuning_element<Out>(),
                        args.b_layout,
                        args.m,
                        args.n,
                        args.k,
                        args.batch};
  const TableChoice c = choose_for_current_device(
      key, static_cast<int>(gemm_choice(args.m)), kGemmChoiceNames, kGemmChoiceCount,
      [](int i, int split_k) { return detail::choice_takes_split(static_cast<GemmChoice>(i), split_k); });
  return detail::run_gemm_choice(static_cast<GemmChoice>(c.index), args, stream, c.split_k);
}

// One side of the crossover whatever M, for the benchmark and the tests: the tiled kernels only, and the
// swap-AB kernels only.
template <class In, class Out>
Status gemm_tiled(const GemmArguments<In, Out>& args, cudaStream_t stream = nullptr) {
  return detail::run_gemm_choice(gemm_tiled_choice(args.m), args, stream);
}
template <class In, class Out>
Status gemm_swap_ab(const GemmArguments<In, Out>& args, cudaStream_t stream = nullptr) {
  return detail::run_gemm_choice(gemm_swap_ab_choice(args.m), args, stream);
}

}  // namespace bwgemm::sm100
