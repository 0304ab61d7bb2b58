// The small-M (swap-AB) NVFP4 GEMM kernels bwgemm ships, tests (test/kernels/test_nvfp4_gemm_swap_ab.cpp)
// and reports (docs/kernels.md): an explicit list keeps compile time bounded. The default entry point
// (sm100/nvfp4_gemm.cuh) picks from the first three by M. Stages: as many weight tiles in flight as the NVFP4
// dual swap-AB Configs keep (nvfp4_dual_swap_ab_configs.cuh: 5 x 2, 5 x 2, 4 x 2), or the most stages that
// fit in 227 KB (9 at 32 tokens); not tuned (nothing measured on a B200).
#pragma once

#include <cuda_bf16.h>

#include "bwgemm/kernels/sm100/common.cuh"
#include "bwgemm/kernels/sm100/nvfp4_gemm_swap_ab_config.cuh"

namespace bwgemm::sm100 {

using ShippedNvfp4GemmSwapAbConfigs = ConfigList<
    Nvfp4GemmSwapAbConfig<16, 10>,  // default for M <= 16
    Nvfp4GemmSwapAbConfig<32, 9>,   // default for 16 < M <= 32
    Nvfp4GemmSwapAbConfig<64, 8>,   // default for 32 < M <= 64
    Nvfp4GemmSwapAbConfig<16, 10, sched::StaticPersistent, epi::LinearCombination, float>>;  // fp32

}  // namespace bwgemm::sm100
