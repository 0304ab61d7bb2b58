// The epilogues' functor applications the sm_100a kernels share: the GEMM's (gemm_kernel.cuh and the NVFP4
// GEMM, nvfp4_gemm_kernel.cuh: a functor of the fp32 accumulator, and of C where the call reads it) and the
// dual GEMM's (dual_gemm_kernel.cuh and the NVFP4 dual GEMM, nvfp4_dual_gemm_kernel.cuh: a functor of the
// gate and up accumulators, scaled by alpha1 and alpha2).
#pragma once

#include <cstdint>
#include <type_traits>

#include "bwgemm/epilogue/device_scale.cuh"
#include "bwgemm/epilogue/store.cuh"
#include "bwgemm/formats/bits.cuh"
#include "bwgemm/kernels/sm100/common.cuh"

namespace bwgemm::sm100::detail {

// The functor `f` over 8 accumulator columns (and 8 values of C when the call reads it) into out[0..7]. f is
// the kernel's Cfg::Epilogue with its device-pointer scales read (epi::with_device_scales, once per CTA);
// Params is the kernel's parameter block: its `read_c` (the call reads C).
template <class Cfg, class Params>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void gemm_apply8(const Params& p, const typename Cfg::Epilogue& f,
                                                  const uint32_t* acc, const typename Cfg::Out* c,
                                                  float* out) {
  using Epilogue = typename Cfg::Epilogue;
  if constexpr (std::is_invocable_v<const Epilogue&, float, float>) {
    if (p.read_c) {
      float src[epi::kStoreVector];
      epi::load8(c, src);
#pragma unroll
      for (int i = 0; i < epi::kStoreVector; ++i) out[i] = f(bits_to_f32(acc[i]), src[i]);
      return;
    }
  }
  if constexpr (std::is_invocable_v<const Epilogue&, float>) {
#pragma unroll
    for (int i = 0; i < epi::kStoreVector; ++i) out[i] = f(bits_to_f32(acc[i]));
  }
}

// The dual GEMM's functor over a whole chunk of the gate (values[0]) and up (values[1]) accumulators into
// out[0 .. Columns - 1]: epilogue(gate, up), the fast path's (both alphas 1).
template <int Columns, class Params>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void dual_apply_unit(const Params& p, const uint32_t (&values)[2][Columns],
                                                      float* out) {
#pragma unroll
  for (int i = 0; i < Columns; ++i) out[i] = p.epilogue(bits_to_f32(values[0][i]), bits_to_f32(values[1][i]));
}

// As above with the alphas `s` (epi::dual_scales: the device-pointer parts read once per CTA):
// epilogue(alpha1 · gate, alpha2 · up), without the two multiplies when both are 1 and no device scale is
// given (p.unit_alphas, decided on the host; a uniform branch).
template <int Columns, class Params>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void dual_apply(const Params& p, const epi::DualScales& s,
                                                 const uint32_t (&values)[2][Columns], float* out) {
  if (p.unit_alphas) {
    dual_apply_unit(p, values, out);
  } else {
#pragma unroll
    for (int i = 0; i < Columns; ++i)
      out[i] = p.epilogue(s.alpha1 * bits_to_f32(values[0][i]), s.alpha2 * bits_to_f32(values[1][i]));
  }
}

}  // namespace bwgemm::sm100::detail
