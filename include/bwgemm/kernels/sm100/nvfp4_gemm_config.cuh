// Nvfp4GemmConfig: every knob of the sm_100a NVFP4 GEMM and everything derived from them.
//
//   using Cfg = bwgemm::sm100::Nvfp4GemmConfig<128, 8, 2, bwgemm::sched::ClcWorkStealing>;
//
// The NVFP4 dual GEMM's machinery (nvfp4_dual_gemm_config.cuh) with one B operand and one accumulator:
// each CTA owns 128 output rows (the 128 tensor-memory lanes); a pair of CTAs (ClusterCtas 2) issues one
// M = 256 block-scaled tcgen05.mma (kind::mxf4nvf4, e4m3 scales per 16 K) from the even CTA with the B tile
// split between the two CTAs. BlockN output columns per cluster; BlockK = 256 fp4 elements per pipeline
// stage, one 128-byte swizzle row per operand row. The epilogue is the GEMM's (gemm_config.cuh): a functor on
// the fp32 accumulator, with C where it reads it, to fp16, bf16 or fp32; or, with Out = Nvfp4Output, D
// quantized to NVFP4 in the epilogue (the NVFP4 dual GEMM's NVFP4 output, nvfp4_output_store.cuh; no C).
//
// With one B tile per stage instead of two, a stage is smaller than the dual GEMM's (28 KB against 36 KB at
// BlockN 128 in a pair), so more stages fit, and one accumulator of BlockN columns leaves tensor memory for
// two accumulator stages at every BlockN.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/epilogue/nvfp4_output.cuh"
#include "bwgemm/kernels/sm100/nvfp4_config_base.cuh"
#include "bwgemm/kernels/sm100/nvfp4_dual_gemm_config.cuh"  // L2CacheHints

namespace bwgemm::sm100 {

template <int BlockN_, int Stages_, int ClusterCtas_, class Scheduler_,
          class Epilogue_ = epi::LinearCombination, class Out_ = __half,
          L2CacheHints Hints_ = L2CacheHints::kByShape>
struct Nvfp4GemmConfig : Nvfp4ConfigBase<BlockN_, Stages_, ClusterCtas_, Scheduler_, 1> {
  using Base = Nvfp4ConfigBase<BlockN_, Stages_, ClusterCtas_, Scheduler_, 1>;
  using Epilogue = Epilogue_;
  using Out = Out_;
  // Out = Nvfp4Output: D is NVFP4 (packed e2m1 bytes plus blocked e4m3 scales), quantized in the epilogue.
  static constexpr bool kNvfp4Out = std::is_same_v<Out, Nvfp4Output>;
  using DElement = std::conditional_t<kNvfp4Out, uint8_t, Out>;  // what D's data pointer points to
  static constexpr L2CacheHints kHints = Hints_;
  // The same kernel with another epilogue functor or output type.
  template <class E>
  using WithEpilogue = Nvfp4GemmConfig<BlockN_, Stages_, ClusterCtas_, Scheduler_, E, Out_, Hints_>;
  template <class O>
  using WithOut = Nvfp4GemmConfig<BlockN_, Stages_, ClusterCtas_, Scheduler_, Epilogue_, O, Hints_>;

  // ---- the one B operand's pieces (Nvfp4ConfigBase lays them out) --------------------------------------
  static constexpr int kBOffset = Base::kFirstBOffset;      // B's tile in the stage
  static constexpr int kSfbOffset = Base::kFirstSfbOffset;  // SFB's tile in the stage
  static constexpr int kSfbColumn = Base::kFirstSfbColumn;  // SFB's first tensor-memory column

  // ---- the limits, explained (Nvfp4ConfigBase has the shared ones) -------------------------------------
  static_assert(std::is_same_v<Out, __half> || std::is_same_v<Out, __nv_bfloat16> ||
                    std::is_same_v<Out, float> || kNvfp4Out,
                "Out (the type of D and C) is __half, __nv_bfloat16 or float, or Nvfp4Output (D only)");
  // NVFP4 output: one scale line per epilogue chunk (Nvfp4ConfigBase::kNvfp4OutChunks), and no C to read.
  static_assert(!kNvfp4Out || Base::kNvfp4OutChunks,
                "NVFP4 output needs BlockN a multiple of 64 (one 64-column chunk per 4 scale columns)");
  static_assert(!kNvfp4Out || std::is_invocable_v<const Epilogue&, float>,
                "NVFP4 output takes no C: the epilogue must be a functor of the accumulator alone, f(acc)");
};

}  // namespace bwgemm::sm100
