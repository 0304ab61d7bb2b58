// Nvfp4DualSwapAbConfig: the sm_100a small-M ("decode") NVFP4 dual GEMM's Config
// (sm100/nvfp4_dual_swap_ab.cuh), the NVFP4 swap-AB Config (nvfp4_swap_ab_config.cuh) with two weight
// operands, gate and up: C = epilogue(alpha1·A·B1ᵀ, alpha2·A·B2ᵀ).
//
//   using Cfg = bwgemm::sm100::Nvfp4DualSwapAbConfig<16, 5>;   // tiles of 128 weight rows x 16 tokens
#pragma once

#include <cuda_fp16.h>

#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/kernels/sm100/nvfp4_swap_ab_config.cuh"
#include "bwgemm/scheduler/schedulers.cuh"

namespace bwgemm::sm100 {

template <int BlockTokens_, int Stages_, class Scheduler_ = sched::StaticPersistent,
          class Epilogue_ = epi::SiluMul, class Out_ = __half>
struct Nvfp4DualSwapAbConfig : Nvfp4SwapAbConfig<BlockTokens_, Stages_, 2, Scheduler_, Epilogue_, Out_> {
  template <class E>
  using WithEpilogue = Nvfp4DualSwapAbConfig<BlockTokens_, Stages_, Scheduler_, E, Out_>;
  template <class O>
  using WithOut = Nvfp4DualSwapAbConfig<BlockTokens_, Stages_, Scheduler_, Epilogue_, O>;
};

}  // namespace bwgemm::sm100
