// The small-M (swap-AB) FP16/BF16 GEMM kernels bwgemm ships, tests (test/kernels/test_swap_ab.cpp) and
// reports (docs/kernels.md): an explicit list keeps compile time bounded. The default entry point
// (sm100/gemm.cuh) picks from the first three by M; the output variants are the third's with D and C in
// bf16 and fp32.
#pragma once

#include <cuda_bf16.h>

#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/kernels/sm100/common.cuh"
#include "bwgemm/kernels/sm100/gemm_swap_ab_config.cuh"

namespace bwgemm::sm100 {

using ShippedGemmSwapAbConfigs = ConfigList<GemmSwapAbConfig<16, 10>,  // default for M <= 16
                                            GemmSwapAbConfig<32, 10>,  // default for 16 < M <= 32
                                            GemmSwapAbConfig<64, 8>>;  // default for 32 < M <= 64
using ShippedGemmSwapAbOutputVariants =
    ConfigList<GemmSwapAbConfig<16, 10, sched::StaticPersistent, epi::LinearCombination, __nv_bfloat16>,
               GemmSwapAbConfig<16, 10, sched::StaticPersistent, epi::LinearCombination, float>>;

}  // namespace bwgemm::sm100
