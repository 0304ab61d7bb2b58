// The FP16/BF16 GEMM kernels bwgemm ships, tests (test/kernels) and reports (docs/kernels.md): an explicit
// list keeps compile time bounded. Each kernel serves fp16 and bf16 inputs and both B layouts. The default
// entry point (gemm.cuh) picks from the first three, for every output type (ShippedGemmOutputVariants).
#pragma once

#include "bwgemm/kernels/sm100/common.cuh"
#include "bwgemm/kernels/sm100/gemm_config.cuh"

namespace bwgemm::sm100 {

// Stages 0: as many as fit in 227 KB.
using ShippedGemmConfigs =
    ConfigList<GemmConfig<256, 0, 2, sched::ClcWorkStealing>,     // default for M > 512 (seed 004)
               GemmConfig<128, 0, 2, sched::ClcWorkStealing>,     // default for 128 < M <= 512
               GemmConfig<64, 0, 1, sched::StaticPersistent>,     // default for M <= 128
               GemmConfig<256, 0, 2, sched::OneTilePerCluster>,   //
               GemmConfig<128, 0, 2, sched::StaticPersistent>,    //
               GemmConfig<64, 0, 2, sched::ClcWorkStealing>,      // 32 B columns per CTA: 64-byte swizzle
               GemmConfig<256, 0, 1, sched::StaticPersistent>,    // one CTA, 4 B chunks per stage
               GemmConfig<192, 0, 1, sched::ClcWorkStealing>,     // 384 TMEM columns (allocates 512)
               GemmConfig<128, 4, 1, sched::OneTilePerCluster>>;  // explicit stages

// The default entry point's kernels with the other output types.
using ShippedGemmOutputVariants =
    ConfigList<GemmConfig<256, 0, 2, sched::ClcWorkStealing, epi::LinearCombination, __nv_bfloat16>,
               GemmConfig<128, 0, 2, sched::ClcWorkStealing, epi::LinearCombination, __nv_bfloat16>,
               GemmConfig<64, 0, 1, sched::StaticPersistent, epi::LinearCombination, __nv_bfloat16>,
               GemmConfig<256, 0, 2, sched::ClcWorkStealing, epi::LinearCombination, float>,
               GemmConfig<128, 0, 2, sched::ClcWorkStealing, epi::LinearCombination, float>,
               GemmConfig<64, 0, 1, sched::StaticPersistent, epi::LinearCombination, float>>;

}  // namespace bwgemm::sm100
