// The dual-GEMM kernels bwgemm ships, tests (test/kernels) and reports (docs/kernels.md): an explicit
// list keeps compile time bounded. The default entry point (dual_gemm.cuh) picks from the first two.
#pragma once

#include "bwgemm/kernels/sm100/nvfp4_dual_gemm_config.cuh"

namespace bwgemm::sm100 {

using ShippedNvfp4DualGemmConfigs =
    ConfigList<Nvfp4DualGemmConfig<64, 7, 2, sched::StaticPersistent>,    // default for M <= 256
               Nvfp4DualGemmConfig<128, 5, 2, sched::ClcWorkStealing>,    // default for M > 256
               Nvfp4DualGemmConfig<128, 5, 2, sched::OneTilePerCluster>,  //
               Nvfp4DualGemmConfig<64, 7, 2, sched::ClcWorkStealing>,     //
               Nvfp4DualGemmConfig<64, 7, 2, sched::OneTilePerCluster>,   //
               Nvfp4DualGemmConfig<128, 4, 1, sched::OneTilePerCluster>,  // one CTA per tile, M = 128
               Nvfp4DualGemmConfig<64, 5, 1, sched::StaticPersistent>,    //
               Nvfp4DualGemmConfig<128, 4, 1, sched::ClcWorkStealing>,    //
               Nvfp4DualGemmConfig<64, 7, 2, sched::StaticPersistent, epi::SiluMul, __nv_bfloat16>,  // bf16
                                                                                                     // output
               Nvfp4DualGemmConfig<128, 5, 2, sched::ClcWorkStealing, epi::SiluMul, __nv_bfloat16>>;

}  // namespace bwgemm::sm100
