// Nvfp4DualGemmConfig: every knob of the sm_100a NVFP4 dual GEMM and everything derived from them.
//
//   using Cfg = bwgemm::sm100::Nvfp4DualGemmConfig<128, 5, 2, bwgemm::sched::ClcWorkStealing>;
//
// Tile: each CTA owns 128 output rows (the 128 tensor-memory lanes); a pair of CTAs (ClusterCtas 2) issues
// one M = 256 tcgen05.mma from the even CTA with the B tile split between the two CTAs (seed 000).
// BlockN output columns per cluster; BlockK = 256 fp4 elements per pipeline stage, i.e. one 128-byte
// swizzle row per operand row. Both accumulators (gate A·B1ᵀ and up A·B2ᵀ) live in tensor memory.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "bwgemm/epilogue/functors.cuh"
#include "bwgemm/epilogue/nvfp4_output.cuh"
#include "bwgemm/kernels/sm100/nvfp4_config_base.cuh"

namespace bwgemm {

// L2 eviction hints on the operand loads.
enum class L2CacheHints {
  kNone,     // no .L2::cache_hint
  kByShape,  // keep the operand that is re-read by more tiles (B when M > N, else A) with evict_last and
             // stream the other with evict_first (the GPU MODE winners' rule, seed 000)
};

namespace sm100 {

template <int BlockN_, int Stages_, int ClusterCtas_, class Scheduler_, class Epilogue_ = epi::SiluMul,
          class Out_ = __half, L2CacheHints Hints_ = L2CacheHints::kByShape>
struct Nvfp4DualGemmConfig : Nvfp4ConfigBase<BlockN_, Stages_, ClusterCtas_, Scheduler_, 2> {
  using Base = Nvfp4ConfigBase<BlockN_, Stages_, ClusterCtas_, Scheduler_, 2>;
  using Epilogue = Epilogue_;
  using Out = Out_;
  // Out = Nvfp4Output: C is NVFP4 (packed e2m1 bytes plus blocked e4m3 scales), quantized in the epilogue.
  static constexpr bool kNvfp4Out = std::is_same_v<Out, Nvfp4Output>;
  using CElement = std::conditional_t<kNvfp4Out, uint8_t, Out>;  // what C's data pointer points to
  static constexpr L2CacheHints kHints = Hints_;
  // The same kernel with another epilogue functor or output type.
  template <class E>
  using WithEpilogue = Nvfp4DualGemmConfig<BlockN_, Stages_, ClusterCtas_, Scheduler_, E, Out_, Hints_>;
  template <class O>
  using WithOut = Nvfp4DualGemmConfig<BlockN_, Stages_, ClusterCtas_, Scheduler_, Epilogue_, O, Hints_>;

  // ---- the two B operands' pieces (Nvfp4ConfigBase lays them out; ACC1, the gate, then ACC2, the up) ----
  static constexpr int kB1Offset = Base::kFirstBOffset;
  static constexpr int kB2Offset = kB1Offset + Base::kBBytes;
  static constexpr int kSfb1Offset = Base::kFirstSfbOffset;
  static constexpr int kSfb2Offset = kSfb1Offset + Base::kScaleBytes;
  static constexpr int kSfb1Column = Base::kFirstSfbColumn;
  static constexpr int kSfb2Column = kSfb1Column + Base::kScaleAtomsPerStage * Base::kScaleColumnsPerAtomB;

  // ---- the limits, explained (Nvfp4ConfigBase has the shared ones) -------------------------------------
  static_assert(std::is_same_v<Out, __half> || std::is_same_v<Out, __nv_bfloat16> || kNvfp4Out,
                "Out is __half, __nv_bfloat16 or Nvfp4Output");
  // NVFP4 output: one scale line per epilogue chunk (Nvfp4ConfigBase::kNvfp4OutChunks).
  static_assert(!kNvfp4Out || Base::kNvfp4OutChunks,
                "NVFP4 output needs BlockN a multiple of 64 (one 64-column chunk per 4 scale columns)");
};

}  // namespace sm100
}  // namespace bwgemm
