// DualSwapAbConfig: the sm_100a small-M ("decode") FP16/BF16 dual GEMM's Config
// (sm100/dual_gemm_swap_ab.cuh), the 16-bit swap-AB Config (f16_swap_ab_config.cuh) with two N x K weight
// operands, gate and up: C = epilogue(alpha1·A·B1ᵀ, alpha2·A·B2ᵀ).
//
//   using Cfg = bwgemm::sm100::DualSwapAbConfig<16, 6>;    // tiles of 128 weight rows x 16 tokens
#pragma once

#include <cuda_fp16.h>

#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/kernels/sm100/f16_swap_ab_config.cuh"
#include "bwgemm/scheduler/schedulers.cuh"

namespace bwgemm::sm100 {

template <int BlockTokens_, int Stages_, class Scheduler_ = sched::StaticPersistent,
          class Epilogue_ = epi::SiluMul, class Out_ = __half>
struct DualSwapAbConfig : F16SwapAbConfig<BlockTokens_, Stages_, 2, Scheduler_, Epilogue_, Out_> {
  template <class E>
  using WithEpilogue = DualSwapAbConfig<BlockTokens_, Stages_, Scheduler_, E, Out_>;
  template <class O>
  using WithOut = DualSwapAbConfig<BlockTokens_, Stages_, Scheduler_, Epilogue_, O>;
};

}  // namespace bwgemm::sm100
