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

namespace bwgemm::sm100 {

// The NVFP4-output dual GEMM kernels (Out = Nvfp4Output: C quantized in the epilogue), a list of their own:
// their arguments differ from the 16-bit Configs' (test/kernels/test_nvfp4_dual_nvfp4_out.cpp). The two the
// NVFP4-output entry point (sm100::dual_gemm_nvfp4 on Nvfp4DualGemmArguments<Nvfp4Output>) chooses from.
using ShippedNvfp4DualNvfp4OutConfigs =
    ConfigList<Nvfp4DualGemmConfig<64, 7, 2, sched::StaticPersistent, epi::SiluMul, Nvfp4Output>,  // M <= 256
               Nvfp4DualGemmConfig<128, 5, 2, sched::ClcWorkStealing, epi::SiluMul, Nvfp4Output>>;  // M > 256

}  // namespace bwgemm::sm100
