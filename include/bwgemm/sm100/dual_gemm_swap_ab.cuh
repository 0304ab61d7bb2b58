// The sm_100a small-M ("decode") FP16/BF16 dual GEMM, swap AB (kernels/sm100/f16_swap_ab_config.cuh): the
// same operation and arguments as sm100::DualGemm (bwgemm::DualGemmArguments: B1 and B2 N x K), with the
// weights' N on the MMA's 128-row side and the tokens on its N side.
//
//   using Cfg = bwgemm::sm100::DualSwapAbConfig<16, 6>;
//   bwgemm::Status s = bwgemm::sm100::DualGemmSwapAb<Cfg>::run(args, stream);
//
// sm100::dual_gemm (dual_gemm.cuh) chooses it at small M. The call validates everything first
// (bwgemm::validate, then the Config's tile count) and launches nothing on error; it is asynchronous on
// `stream`, allocates nothing (no workspace: a split of K reduces inside the cluster) and does not
// synchronize.
#pragma once

#include <cuda.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "bwgemm/arguments/common.hpp"
#include "bwgemm/arguments/dual_gemm.hpp"
#include "bwgemm/base/layout.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/host/dual_gemm_params.hpp"
#include "bwgemm/host/launch.hpp"
#include "bwgemm/host/operand_maps.hpp"
#include "bwgemm/kernels/sm100/dual_swap_ab_config.cuh"
#include "bwgemm/kernels/sm100/f16_swap_ab_kernel.cuh"
#include "bwgemm/sm100/swap_ab_launch.cuh"

namespace bwgemm::sm100 {

template <class Cfg>
struct DualGemmSwapAb {
  static_assert(Cfg::kWeights == 2, "DualGemmSwapAb takes a DualSwapAbConfig");
  using Out = typename Cfg::Out;
  using Epilogue = typename Cfg::Epilogue;
  template <class In>
  using Arguments = DualGemmArguments<In, Out, Epilogue>;
  using Params = DualSwapAbParams<Cfg>;

  // Host-side checks only (no device access): the operation's rules, then this Config's tile count.
  template <class In>
  static Status can_implement(const DualGemmArguments<In, Out, Epilogue>& a) {
    return detail::swap_ab_can_implement<Cfg>(a);
  }

  // split_k: 0 lets the entry point choose (choose_swap_ab_split_k), 1 computes whole K per CTA, 2 .. 8
  // splits K between the CTAs of a cluster with a deterministic reduction (swap_ab_split_k.cuh).
  template <class In>
  static Status run(const DualGemmArguments<In, Out, Epilogue>& a, cudaStream_t stream = nullptr,
                    int split_k = 0) {
    if (Status s = detail::check_swap_ab_run<Cfg>(a, split_k, "bwgemm::sm100::DualGemmSwapAb"); !s.ok())
      return s;

    namespace d = ::bwgemm::detail;
    const auto [lda, ldb, ldc] = d::dual_gemm_strides(a);
    constexpr TensorMapDataType type = d::gemm_tensor_map_type<In>();
    Params p;
    if (Status s = d::gemm_operand_map(type, a.a, a.k, a.m, a.batch, lda, a.m * lda, Cfg::kBlockK,
                                       Cfg::kBlockTokens, TensorMapSwizzle::k128B, &p.tmap_tokens);
        !s.ok())
      return s;
    // B1 (gate) and B2 (up), N x K: 128 weight rows x 64 K per box (clipped at N and K).
    const In* const weights[2] = {a.b1, a.b2};
    for (int w = 0; w < 2; ++w)
      if (Status s = d::gemm_operand_map(type, weights[w], a.k, a.n, a.batch, ldb, a.n * ldb, Cfg::kBlockK,
                                         Cfg::kBlockWeights, TensorMapSwizzle::k128B, &p.tmap_weights[w]);
          !s.ok())
        return s;
    p.c = a.c;
    p.ldc = ldc;
    p.batch_stride_c = a.m * ldc;
    host::fill_common_dual_gemm_params(a, swap_ab_tiles<Cfg>(a.m, a.n, a.batch), &p);
    p.idesc = Cfg::instr_desc(std::is_same_v<In, __half> ? ptx::MmaF16Format::kF16 : ptx::MmaF16Format::kBF16,
                              BLayout::kColumnMajorKxN);
    p.weights = Cfg::weight_operand(BLayout::kColumnMajorKxN);
    p.weights_mn_major = false;
    p.unit_alphas = ::bwgemm::detail::unit_alphas(a);
    return detail::launch_swap_ab<Cfg>(&dual_swap_ab_kernel<Cfg>, &dual_swap_ab_split_kernel<Cfg>, p, split_k,
                                       a.m, a.n, a.k, a.batch, stream, a.launch);
  }
};

}  // namespace bwgemm::sm100
