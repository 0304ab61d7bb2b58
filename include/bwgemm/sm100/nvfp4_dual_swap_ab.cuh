// The sm_100a small-M ("decode") NVFP4 dual GEMM, swap AB (kernels/sm100/nvfp4_swap_ab_config.cuh):
// the same operation and arguments as sm100::Nvfp4DualGemm (bwgemm::Nvfp4DualGemmArguments), with the
// weights' N on the MMA's 128-row side and the tokens on its N side.
//
//   using Cfg = bwgemm::sm100::Nvfp4DualSwapAbConfig<16, 5>;
//   bwgemm::Status s = bwgemm::sm100::Nvfp4DualGemmSwapAb<Cfg>::run(args, stream);
//
// sm100::dual_gemm_nvfp4 (nvfp4_dual_gemm.cuh) chooses it at small M. The call validates everything first
// (bwgemm::validate, then the Config's tile count) and launches nothing on error; it is asynchronous on
// `stream`, allocates nothing (no workspace: a split of K reduces inside the cluster) and does not
// synchronize.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "bwgemm/arguments/common.hpp"
#include "bwgemm/arguments/nvfp4_dual_gemm.hpp"
#include "bwgemm/base/diagnostics.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/host/dual_gemm_params.hpp"
#include "bwgemm/host/launch.hpp"
#include "bwgemm/host/operand_maps.hpp"
#include "bwgemm/kernels/sm100/nvfp4_dual_swap_ab_config.cuh"
#include "bwgemm/kernels/sm100/nvfp4_swap_ab_kernel.cuh"
#include "bwgemm/kernels/sm100/swap_ab_split_k.cuh"
#include "bwgemm/sm100/swap_ab_launch.cuh"

namespace bwgemm::sm100 {

template <class Cfg>
struct Nvfp4DualGemmSwapAb {
  using Arguments = Nvfp4DualGemmArguments<typename Cfg::Out, typename Cfg::Epilogue>;
  using Params = Nvfp4DualSwapAbParams<Cfg>;

  // Host-side checks only (no device access): the operation's rules, then this Config's tile count.
  static Status can_implement(const Arguments& a) { return detail::swap_ab_can_implement<Cfg>(a); }

  // split_k: 0 lets the entry point choose (choose_swap_ab_split_k), 1 computes whole K per CTA, 2 .. 8
  // splits K between the CTAs of a cluster with a deterministic reduction (swap_ab_split_k.cuh).
  static Status run(const Arguments& a, cudaStream_t stream = nullptr, int split_k = 0) {
    if (Status s = detail::check_swap_ab_run<Cfg>(a, split_k, "bwgemm::sm100::Nvfp4DualGemmSwapAb"); !s.ok())
      return s;
    Params p;
    if (Status s = detail::nvfp4_swap_ab_operand_maps<Cfg>(a, {&a.b1, &a.b2}, &p); !s.ok()) return s;
    host::fill_common_dual_gemm_params(a, swap_ab_tiles<Cfg>(a.m, a.n, a.batch), &p);
    p.c = a.c;
    p.ldc = a.ldc == 0 ? a.n : a.ldc;
    p.batch_stride_c = a.m * p.ldc;
    p.unit_alphas = ::bwgemm::detail::unit_alphas(a);
    return detail::launch_swap_ab<Cfg>(&nvfp4_dual_swap_ab_kernel<Cfg>, &nvfp4_dual_swap_ab_split_kernel<Cfg>,
                                       p, split_k, a.m, a.n, a.k, a.batch, stream, a.launch);
  }
};

}  // namespace bwgemm::sm100
