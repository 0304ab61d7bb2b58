// The epilogues' functor applications the sm_100a kernels share: the GEMM's (gemm_kernel.cuh and the NVFP4
// GEMM, nvfp4_gemm_kernel.cuh: a functor of the fp32 accumulator, and of C where the call reads it) and the
// dual GEMM's (dual_gemm_kernel.cuh and the NVFP4 dual GEMM, nvfp4_dual_gemm_kernel.cuh: a functor of the
// gate and up accumulators, scaled by alpha1 and alpha2).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

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

// The tiled kernels' per-tile fast path (roles.cuh: Roles::fast_chunk) for one chunk of a tile row at `out`
// (32-byte aligned, every column inside N): the GEMM's accumulator as it is (alpha 1, beta 0), the packed
// conversion and 256-bit stores.
template <int Columns, class Out>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void gemm_fast_chunk(Out* out, const uint32_t (&values)[1][Columns]) {
  float f[Columns];
#pragma unroll
  for (int i = 0; i < Columns; ++i) f[i] = bits_to_f32(values[0][i]);
  epi::store_row(out, f, true);
}

// The same for the dual GEMMs: epilogue(gate, up) (both alphas 1).
template <int Columns, class Out, class Params>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void dual_fast_chunk(const Params& p, Out* out,
                                                      const uint32_t (&values)[2][Columns]) {
  float f[Columns];
  dual_apply_unit(p, values, f);
  epi::store_row(out, f, true);
}

// One fp32 value as the 16-bit output type (round to nearest even, as epi::store8's packed conversion).
template <class Out>
BWGEMM_DEVICE BWGEMM_FORCEINLINE Out dual_out_from_f32(float v) {
  if constexpr (std::is_same_v<Out, __half>) {
    return __float2half_rn(v);
  } else {
    return __float2bfloat16_rn(v);
  }
}

}  // namespace bwgemm::sm100::detail

namespace bwgemm::sm100 {

// A dual GEMM's epilogue store of one tile row of its 16-bit C, out = epilogue(alpha1 · gate, alpha2 · up)
// (run_epilogue calls it per chunk of kEpilogueColumns columns), for the 16-bit dual (dual_gemm_kernel.cuh)
// and the NVFP4 dual with a 16-bit C (nvfp4_dual_gemm_kernel.cuh); Params is the kernel's parameter block
// (n, epilogue, unit_alphas, c_aligned32). (The per-tile fast path is the Roles' fast_chunk,
// detail::dual_fast_chunk.) A chunk inside N is stored whole, in 256-bit stores where C's rows are 32-byte
// aligned, without the two multiplies when both alphas are 1 (a uniform branch); a chunk that crosses N is
// stored 8 columns at a time up to N, and, where N need not be a multiple of 8 (AnyN: the 16-bit dual; the
// NVFP4 dual's N is a multiple of 16), the last columns past the final whole vector one by one.
template <class Cfg, class Params, bool AnyN>
struct DualTileStore {
  using Out = typename Cfg::Out;
  static constexpr int kColumns = Cfg::kEpilogueColumns;
  const Params& p;
  epi::DualScales s;  // the alphas with their device parts read (the roles' epilogue_scales)
  Out* out_row;

  BWGEMM_DEVICE BWGEMM_FORCEINLINE void operator()(int32_t col, const uint32_t (&values)[2][kColumns]) const {
    const auto value = [&](int i) {
      return p.unit_alphas
                 ? p.epilogue(bits_to_f32(values[0][i]), bits_to_f32(values[1][i]))
                 : p.epilogue(s.alpha1 * bits_to_f32(values[0][i]), s.alpha2 * bits_to_f32(values[1][i]));
    };
    if (col + kColumns <= p.n) {
      float out[kColumns];
      detail::dual_apply(p, s, values, out);
      epi::store_row(out_row + col, out, p.c_aligned32);
      return;
    }
    if constexpr (AnyN) {
      // Every vector guarded on its own (no early exit), so the loops unroll and every value is a register.
#pragma unroll
      for (int v = 0; v < kColumns; v += epi::kStoreVector) {
        if (col + v + epi::kStoreVector <= p.n) {
          float out[epi::kStoreVector];
#pragma unroll
          for (int i = 0; i < epi::kStoreVector; ++i) out[i] = value(v + i);
          epi::store8(out_row + col + v, out);
        } else if (col + v < p.n) {
          // The last columns of a row whose N is not a multiple of 8: one 16-bit store each.
#pragma unroll
          for (int i = 0; i < epi::kStoreVector - 1; ++i)
            if (col + v + i < p.n) out_row[col + v + i] = detail::dual_out_from_f32<Out>(value(v + i));
        }
      }
    } else {
#pragma unroll
      for (int v = 0; v < kColumns; v += epi::kStoreVector) {
        if (col + v + epi::kStoreVector > p.n) break;  // N is a multiple of 8: whole vectors only
        float out[epi::kStoreVector];
#pragma unroll
        for (int i = 0; i < epi::kStoreVector; ++i) out[i] = value(v + i);
        epi::store8(out_row + col + v, out);
      }
    }
  }
};

}  // namespace bwgemm::sm100
