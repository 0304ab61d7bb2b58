// The 16-bit dual-GEMM kernels bwgemm ships for sm_100a, tests (test/kernels) and reports (docs/kernels.md):
// an explicit list keeps compile time bounded. The default entry point (sm100/dual_gemm.cuh) picks from the
// first two (fp16 output) and their bf16-output twins.
#pragma once

#include <cuda_bf16.h>

#include "bwgemm/kernels/sm100/dual_gemm_config.cuh"

namespace bwgemm::sm100 {

using ShippedDualGemmConfigs =
    ConfigList<DualGemmConfig<64, 0, 2, sched::StaticPersistent>,                               // M <= 256
               DualGemmConfig<128, 0, 2, sched::ClcWorkStealing>,                               // M > 256
               DualGemmConfig<64, 0, 2, sched::StaticPersistent, epi::SiluMul, __nv_bfloat16>,  // bf16 out
               DualGemmConfig<128, 0, 2, sched::ClcWorkStealing, epi::SiluMul, __nv_bfloat16>,  //
               DualGemmConfig<128, 0, 2, sched::OneTilePerCluster>,  // one tile per pair
               DualGemmConfig<128, 0, 1, sched::ClcWorkStealing>>;   // one CTA, M = 128

}  // namespace bwgemm::sm100
