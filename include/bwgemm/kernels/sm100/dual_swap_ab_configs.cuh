// The small-M (swap-AB) FP16/BF16 dual-GEMM kernels bwgemm ships, tests (test/kernels/test_dual_swap_ab.cpp)
// and reports (docs/kernels.md): an explicit list keeps compile time bounded. The default entry point
// (sm100/dual_gemm.cuh) picks from the first three by M, and their bf16-output twins (the fourth is the
// first's). Stages: the most that fit in 227 KB (stages of 34, 36 and 40 KiB: two 16 KiB weight tiles and the
// token tile); not tuned (nothing measured on a B200).
#pragma once

#include <cuda_bf16.h>

#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/kernels/sm100/common.cuh"
#include "bwgemm/kernels/sm100/dual_swap_ab_config.cuh"

namespace bwgemm::sm100 {

using ShippedDualSwapAbConfigs =
    ConfigList<DualSwapAbConfig<16, 6>,  // default for M <= 16
               DualSwapAbConfig<32, 6>,  // default for 16 < M <= 32
               DualSwapAbConfig<64, 5>,  // default for 32 < M <= 64
               DualSwapAbConfig<16, 6, sched::StaticPersistent, epi::SiluMul, __nv_bfloat16>>;  // bf16

}  // namespace bwgemm::sm100
