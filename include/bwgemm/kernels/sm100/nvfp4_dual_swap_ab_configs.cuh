// The small-M (swap-AB) NVFP4 dual-GEMM kernels bwgemm ships, tests (test/kernels/test_swap_ab.cpp) and
// reports (docs/kernels.md): an explicit list keeps compile time bounded. The default entry point
// (sm100/nvfp4_dual_gemm.cuh) picks from the first three by M.
#pragma once

#include <cuda_bf16.h>

#include "bwgemm/kernels/sm100/common.cuh"
#include "bwgemm/kernels/sm100/nvfp4_dual_swap_ab_config.cuh"

namespace bwgemm::sm100 {

using ShippedNvfp4DualSwapAbConfigs =
    ConfigList<Nvfp4DualSwapAbConfig<16, 5>,  // default for M <= 16
               Nvfp4DualSwapAbConfig<32, 5>,  // default for 16 < M <= 32
               Nvfp4DualSwapAbConfig<64, 4>,  // default for 32 < M <= 64
               Nvfp4DualSwapAbConfig<16, 5, sched::StaticPersistent, epi::SiluMul, __nv_bfloat16>>;  // bf16

}  // namespace bwgemm::sm100
