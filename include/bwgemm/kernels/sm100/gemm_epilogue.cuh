// The GEMM epilogue's functor application, shared by the sm_100a GEMM (gemm_kernel.cuh) and the NVFP4 GEMM
// (nvfp4_gemm_kernel.cuh): both apply a functor of the fp32 accumulator, and of C where the call reads it, to
// the accumulator columns before the store.
#pragma once

#include <cstdint>
#include <type_traits>

#include "bwgemm/epilogue/store.cuh"
#include "bwgemm/formats/bits.cuh"
#include "bwgemm/kernels/sm100/common.cuh"

namespace bwgemm::sm100::detail {

// The functor over 8 accumulator columns (and 8 values of C when the call reads it) into out[0..7]. Params
// is the kernel's parameter block: its `epilogue` (a Cfg::Epilogue) and `read_c` (the call reads C).
template <class Cfg, class Params>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void gemm_apply8(const Params& p, const uint32_t* acc,
                                                  const typename Cfg::Out* c, float* out) {
  using Epilogue = typename Cfg::Epilogue;
  if constexpr (std::is_invocable_v<const Epilogue&, float, float>) {
    if (p.read_c) {
      float src[epi::kStoreVector];
      epi::load8(c, src);
#pragma unroll
      for (int i = 0; i < epi::kStoreVector; ++i) out[i] = p.epilogue(bits_to_f32(acc[i]), src[i]);
      return;
    }
  }
  if constexpr (std::is_invocable_v<const Epilogue&, float>) {
#pragma unroll
    for (int i = 0; i < epi::kStoreVector; ++i) out[i] = p.epilogue(bits_to_f32(acc[i]));
  }
}

}  // namespace bwgemm::sm100::detail
