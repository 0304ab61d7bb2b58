// The NVFP4 GEMM kernels bwgemm ships, tests (test/kernels) and reports (docs/kernels.md): an explicit list
// keeps compile time bounded. The default entry point (sm100/nvfp4_gemm.cuh) picks from the first two, for
// every output type (the bf16 and fp32 rows).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/kernels/sm100/common.cuh"
#include "bwgemm/kernels/sm100/nvfp4_gemm_config.cuh"

namespace bwgemm::sm100 {

using ShippedNvfp4GemmConfigs =
    ConfigList<Nvfp4GemmConfig<64, 9, 2, sched::StaticPersistent>,    // default for M <= 256
               Nvfp4GemmConfig<128, 8, 2, sched::ClcWorkStealing>,    // default for M > 256
               Nvfp4GemmConfig<128, 6, 1, sched::OneTilePerCluster>,  // one CTA per tile, M = 128
               Nvfp4GemmConfig<64, 9, 2, sched::StaticPersistent, epi::LinearCombination, __nv_bfloat16>,
               Nvfp4GemmConfig<128, 8, 2, sched::ClcWorkStealing, epi::LinearCombination, __nv_bfloat16>,
               Nvfp4GemmConfig<64, 9, 2, sched::StaticPersistent, epi::LinearCombination, float>,
               Nvfp4GemmConfig<128, 8, 2, sched::ClcWorkStealing, epi::LinearCombination, float>>;

}  // namespace bwgemm::sm100

namespace bwgemm::sm100 {

// The NVFP4-output GEMM kernels (Out = Nvfp4Output: D quantized in the epilogue), a list of their own: their
// arguments differ from the other Configs' (test/kernels/test_nvfp4_gemm_nvfp4_out.cpp). The two the
// NVFP4-output entry point (sm100::nvfp4_gemm on Nvfp4GemmArguments<Nvfp4Output>) chooses from.
using ShippedNvfp4GemmNvfp4OutConfigs = ConfigList<
    Nvfp4GemmConfig<64, 9, 2, sched::StaticPersistent, epi::LinearCombination, Nvfp4Output>,   // M <= 256
    Nvfp4GemmConfig<128, 8, 2, sched::ClcWorkStealing, epi::LinearCombination, Nvfp4Output>>;  // M > 256

}  // namespace bwgemm::sm100
