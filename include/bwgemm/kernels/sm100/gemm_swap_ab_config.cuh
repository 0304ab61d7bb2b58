// GemmSwapAbConfig: the sm_100a small-M ("decode") FP16/BF16 GEMM's Config (sm100/gemm_swap_ab.cuh), the
// 16-bit swap-AB Config (f16_swap_ab_config.cuh) with one weight operand: D = alpha·A·B + beta·C.
//
//   using Cfg = bwgemm::sm100::GemmSwapAbConfig<16, 10>;   // tiles of 128 weight rows x 16 tokens
#pragma once

#include <cuda_fp16.h>

#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/kernels/sm100/f16_swap_ab_config.cuh"
#include "bwgemm/scheduler/schedulers.cuh"

namespace bwgemm::sm100 {

template <int BlockTokens_, int Stages_, class Scheduler_ = sched::StaticPersistent,
          class Epilogue_ = epi::LinearCombination, class Out_ = __half>
struct GemmSwapAbConfig : F16SwapAbConfig<BlockTokens_, Stages_, 1, Scheduler_, Epilogue_, Out_> {
  template <class E>
  using WithEpilogue = GemmSwapAbConfig<BlockTokens_, Stages_, Scheduler_, E, Out_>;
  template <class O>
  using WithOut = GemmSwapAbConfig<BlockTokens_, Stages_, Scheduler_, Epilogue_, O>;
};

}  // namespace bwgemm::sm100
