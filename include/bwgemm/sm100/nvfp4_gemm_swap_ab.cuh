// The sm_100a small-M ("decode") NVFP4 GEMM, swap AB (kernels/sm100/nvfp4_swap_ab_config.cuh: the NVFP4
// dual GEMM's swap-AB kernels with one weight operand, Weights = 1): the same operation and arguments as
// sm100::Nvfp4Gemm (bwgemm::Nvfp4GemmArguments, D = alpha·A·Bᵀ + beta·C), with the weights' N on the MMA's
// 128-row side and the tokens on its N side.
//
//   using Cfg = bwgemm::sm100::Nvfp4GemmSwapAbConfig<16, 5>;
//   bwgemm::Status s = bwgemm::sm100::Nvfp4GemmSwapAb<Cfg>::run(args, stream);
//
// sm100::nvfp4_gemm (nvfp4_gemm.cuh) chooses it at M <= 64. The call validates everything first
// (bwgemm::validate, then the Config's tile count) and launches nothing on error; it is asynchronous on
// `stream`, allocates nothing (no workspace: a split of K reduces inside the cluster) and does not
// synchronize.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "bwgemm/arguments/common.hpp"
#include "bwgemm/arguments/nvfp4_gemm.hpp"
#include "bwgemm/base/status.hpp"
#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/host/launch.hpp"
#include "bwgemm/host/operand_maps.hpp"
#include "bwgemm/kernels/sm100/nvfp4_gemm_swap_ab_config.cuh"
#include "bwgemm/kernels/sm100/nvfp4_swap_ab_kernel.cuh"
#include "bwgemm/sm100/swap_ab_launch.cuh"

namespace bwgemm::sm100 {

template <class Cfg>
struct Nvfp4GemmSwapAb {
  static_assert(Cfg::kWeights == 1, "Nvfp4GemmSwapAb takes an Nvfp4GemmSwapAbConfig (Weights = 1)");
  using Out = typename Cfg::Out;
  using Epilogue = typename Cfg::Epilogue;
  using Arguments = Nvfp4GemmArguments<Out, Epilogue>;
  using Params = Nvfp4SwapAbParams<Cfg>;

  // Host-side checks only (no device access): the operation's rules, then this Config's tile count.
  static Status can_implement(const Arguments& a) { return detail::swap_ab_can_implement<Cfg>(a); }

  // split_k: 0 lets the entry point choose (choose_swap_ab_split_k), 1 computes whole K per CTA, 2 .. 8
  // splits K between the CTAs of a cluster with a deterministic reduction (swap_ab_split_k.cuh).
  static Status run(const Arguments& a, cudaStream_t stream = nullptr, int split_k = 0) {
    if (Status s = detail::check_swap_ab_run<Cfg>(a, split_k, "bwgemm::sm100::Nvfp4GemmSwapAb"); !s.ok())
      return s;
    Params p;
    if (Status s = detail::nvfp4_swap_ab_operand_maps<Cfg>(a, {&a.b}, &p); !s.ok()) return s;
    p.m = static_cast<int32_t>(a.m);
    p.n = static_cast<int32_t>(a.n);
    p.k = static_cast<int32_t>(a.k);
    p.tiles = swap_ab_tiles<Cfg>(a.m, a.n, a.batch);
    const bool read_c = epi::reads_source(a.epilogue);
    p.d = a.d;
    p.c = read_c ? a.c : nullptr;
    p.ldd = a.ldd == 0 ? a.n : a.ldd;
    p.ldc = a.ldc == 0 ? a.n : a.ldc;
    p.batch_stride_d = a.m * p.ldd, p.batch_stride_c = a.m * p.ldc;
    p.read_c = read_c;
    p.identity = epi::is_identity(a.epilogue);
    p.epilogue = a.epilogue;
    return detail::launch_swap_ab<Cfg>(&nvfp4_gemm_swap_ab_kernel<Cfg>, &nvfp4_gemm_swap_ab_split_kernel<Cfg>,
                                       p, split_k, a.m, a.n, a.k, a.batch, stream, a.launch);
  }
};

}  // namespace bwgemm::sm100
