// The outputs of the sm_100a swap-AB kernels, written once for the four of them (16-bit and NVFP4, GEMM and
// dual GEMM; f16_swap_ab_kernel.cuh, nvfp4_swap_ab_kernel.cuh): the epilogue's stores of one weight row for
// the tokens of a tile, and split K's reduction of a tile (swap_ab_split_k.cuh) with its stores of four
// consecutive outputs. The Params of either kernel carry the fields these read (m, n, the output pointers and
// strides, the functor, and the GEMM's identity / read_c or the dual GEMM's alphas and unit_alphas).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "bwgemm/base/macros.hpp"
#include "bwgemm/epilogue/device_scale.cuh"
#include "bwgemm/epilogue/store.cuh"
#include "bwgemm/formats/bits.cuh"
#include "bwgemm/kernels/sm100/swap_ab_split_k.cuh"
#include "bwgemm/ptx/ptx.cuh"
#include "bwgemm/scheduler/tile_order.cuh"

namespace bwgemm::sm100::detail {

// One fp32 value as the output type (round to nearest even), and one output-typed value as fp32.
template <class Out>
BWGEMM_DEVICE BWGEMM_FORCEINLINE Out gemm_swap_ab_out(float v) {
  if constexpr (std::is_same_v<Out, float>) {
    return v;
  } else if constexpr (std::is_same_v<Out, __half>) {
    return __float2half_rn(v);
  } else {
    return __float2bfloat16_rn(v);
  }
}
template <class T>
BWGEMM_DEVICE BWGEMM_FORCEINLINE float gemm_swap_ab_in(T v) {
  if constexpr (std::is_same_v<T, float>) {
    return v;
  } else if constexpr (std::is_same_v<T, __half>) {
    return __half2float(v);
  } else {
    return __bfloat162float(v);
  }
}

// The GEMM's functor on a run of fp32 accumulators, written once for both swap-AB GEMMs (16-bit and NVFP4):
// the identity functor (alpha 1, beta 0) passes them through, else epilogue(acc, C) where C is read (`c`
// not null), else epilogue(acc). `c` is indexed c[i · c_stride]. False where the functor takes neither form
// (a functor of (acc, c) without C): `out` is then not written.
template <class Out, class Epilogue, int N>
BWGEMM_DEVICE BWGEMM_FORCEINLINE bool gemm_swap_ab_apply(bool identity, const Epilogue& epilogue,
                                                         const Out* c, int64_t c_stride,
                                                         const float (&acc)[N], float (&out)[N]) {
  if (identity) {
#pragma unroll
    for (int i = 0; i < N; ++i) out[i] = acc[i];
    return true;
  }
  if constexpr (std::is_invocable_v<const Epilogue&, float, float>) {
    if (c != nullptr) {
#pragma unroll
      for (int i = 0; i < N; ++i) out[i] = epilogue(acc[i], gemm_swap_ab_in(c[i * c_stride]));
      return true;
    }
  }
  if constexpr (std::is_invocable_v<const Epilogue&, float>) {
#pragma unroll
    for (int i = 0; i < N; ++i) out[i] = epilogue(acc[i]);
    return true;
  }
  return false;
}

// One weight row's outputs for the tokens first_token .. first_token + tokens - 1 from the accumulator bits
// of a chunk: d_column / c_column at token 0 (c_column null: C not read), rows ldd and ldc apart.
template <class Out, class Epilogue, int N>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void gemm_swap_ab_store_tokens(bool identity, const Epilogue& epilogue,
                                                                Out* d_column, int64_t ldd,
                                                                const Out* c_column, int64_t ldc,
                                                                int32_t first_token, int32_t tokens,
                                                                const uint32_t (&bits)[N]) {
  Out* d = d_column + static_cast<int64_t>(first_token) * ldd;
  // Three loops, each storing straight from the accumulator bits (not through gemm_swap_ab_apply's
  // arrays): the layout of the hot path tools/swap_ab_hot_loops.py reads.
  if (identity) {
#pragma unroll
    for (int i = 0; i < N; ++i)
      if (i < tokens) d[i * ldd] = gemm_swap_ab_out<Out>(bits_to_f32(bits[i]));
    return;
  }
  if constexpr (std::is_invocable_v<const Epilogue&, float, float>) {
    if (c_column != nullptr) {
      const Out* c = c_column + static_cast<int64_t>(first_token) * ldc;
#pragma unroll
      for (int i = 0; i < N; ++i)
        if (i < tokens)
          d[i * ldd] = gemm_swap_ab_out<Out>(epilogue(bits_to_f32(bits[i]), gemm_swap_ab_in(c[i * ldc])));
      return;
    }
  }
  if constexpr (std::is_invocable_v<const Epilogue&, float>) {
#pragma unroll
    for (int i = 0; i < N; ++i)
      if (i < tokens) d[i * ldd] = gemm_swap_ab_out<Out>(epilogue(bits_to_f32(bits[i])));
  }
}

// The dual GEMM's outputs of one weight row for the tokens first_token .. first_token + tokens - 1 from the
// gate (bits[0]) and up (bits[1]) accumulator bits of a chunk: epilogue(alpha1 · gate, alpha2 · up) with the
// scales `s` (epi::dual_scales: their device-pointer parts read once per CTA), without the two multiplies
// when both alphas are 1 and no device scale is given (p.unit_alphas, a uniform branch); out_column at token
// 0, rows p.ldc apart. Written once for both dual swap-AB GEMMs (16-bit and NVFP4): Params is either's.
template <class Out, class Params, int N>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void dual_swap_ab_store_tokens(const Params& p, const epi::DualScales& s,
                                                                Out* out_column, int32_t first_token,
                                                                int32_t tokens,
                                                                const uint32_t (&bits)[2][N]) {
  Out* out = out_column + static_cast<int64_t>(first_token) * p.ldc;
  // Each loop stores straight from the accumulator bits: the layout of the hot path
  // tools/swap_ab_hot_loops.py reads.
  if (p.unit_alphas) {
#pragma unroll
    for (int i = 0; i < N; ++i)
      if (i < tokens)
        out[i * p.ldc] = gemm_swap_ab_out<Out>(p.epilogue(bits_to_f32(bits[0][i]), bits_to_f32(bits[1][i])));
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i)
      if (i < tokens)
        out[i * p.ldc] = gemm_swap_ab_out<Out>(
            p.epilogue(s.alpha1 * bits_to_f32(bits[0][i]), s.alpha2 * bits_to_f32(bits[1][i])));
  }
}

// Four consecutive outputs from fp32 values (N is a multiple of 8, so a quad of 4 weight rows is inside it
// or past it; D's rows are 16-byte aligned).
template <class Out>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void gemm_swap_ab_store4(Out* dst, const float (&v)[kSwapAbQuadRows]) {
  if constexpr (std::is_same_v<Out, float>) {
    *reinterpret_cast<float4*>(dst) = float4{v[0], v[1], v[2], v[3]};
  } else {
    *reinterpret_cast<uint2*>(dst) = uint2{epi::pack2<Out>(v[0], v[1]), epi::pack2<Out>(v[2], v[3])};
  }
}

// The dual GEMM's four consecutive outputs of a reduced quad, epilogue(alpha1 · gate, alpha2 · up) with the
// scales `s` (epi::dual_scales, read by the reduction), of which the first `columns` are inside N: one 8-byte
// store when all four are (C's rows are 16-byte aligned, the quad's first column a multiple of 4), else one
// store per column inside N (the 16-bit dual takes any N; the NVFP4 dual's N, a multiple of 16, always passes
// 4). Written once for both dual swap-AB GEMMs.
template <class Out, class Params>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void dual_swap_ab_store_quad(const Params& p, const epi::DualScales& s,
                                                              Out* dst, const ptx::Float4& g,
                                                              const ptx::Float4& u, int32_t columns) {
  const float a1 = s.alpha1, a2 = s.alpha2;
  const float v[kSwapAbQuadRows] = {p.epilogue(a1 * g.x, a2 * u.x), p.epilogue(a1 * g.y, a2 * u.y),
                                    p.epilogue(a1 * g.z, a2 * u.z), p.epilogue(a1 * g.w, a2 * u.w)};
  if (columns >= kSwapAbQuadRows) {
    *reinterpret_cast<uint2*>(dst) = uint2{epi::pack2<Out>(v[0], v[1]), epi::pack2<Out>(v[2], v[3])};
  } else {
#pragma unroll
    for (int i = 0; i < kSwapAbQuadRows; ++i)
      if (i < columns) dst[i] = gemm_swap_ab_out<Out>(v[i]);
  }
}

// Split K's reduction of the GEMM's tile t by CTA `rank` of the cluster's `splits` (run_swap_ab_split_k's
// `reduce`): each of the CTA's weight-row quads inside N, for each token inside M (reduce_tile_quads), summed
// over the cluster's partials (SwapAbPartials with one accumulator) in rank order, then D = epilogue(sum
// [, C]) as four consecutive outputs. d_of(batch) and c_of(batch): D and C of a batch (C read where
// p.read_c). N is a multiple of 8 (16-bit) or 16 (NVFP4), so a quad's four columns are inside it; D's rows
// are 16-byte aligned.
template <class Cfg, class Params, class DOf, class COf>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void reduce_gemm_swap_ab_tile(const Params& p, const sched::TileCoord& t,
                                                               uint32_t rank, uint32_t splits,
                                                               const DOf& d_of, const COf& c_of) {
  using namespace ::bwgemm::ptx;
  using Out = typename Cfg::Out;
  using Partials = SwapAbPartials<Cfg, 1>;
  const auto f = epi::with_device_scales(p.epilogue);  // once: the CTA reduces one tile
  Out* d = d_of(t.batch);
  reduce_tile_quads<Cfg>(
      t, rank, splits, p.m, p.n, [&](uint32_t smem, int32_t q, int32_t token, int64_t col, int64_t row) {
        const Float4 acc = sum_cluster_quad(smem, Partials::word(0, token, q * kSwapAbQuadRows), splits);
        const float a[kSwapAbQuadRows] = {acc.x, acc.y, acc.z, acc.w};
        float out[kSwapAbQuadRows];
        gemm_swap_ab_apply<Out>(p.identity, f, p.read_c ? c_of(t.batch) + row * p.ldc + col : nullptr, 1, a,
                                out);
        gemm_swap_ab_store4(d + row * p.ldd + col, out);
      });
}

// Split K's reduction of the dual GEMM's tile t by CTA `rank` of `splits`: as reduce_gemm_swap_ab_tile, with
// the gate's and the up's partials (SwapAbPartials with two accumulators) summed and stored as
// epilogue(alpha1 · gate, alpha2 · up) (dual_swap_ab_store_quad). c_of(batch): C of a batch. QuadsInsideN:
// N is a multiple of 4 (the NVFP4 dual's, a multiple of 16), so every quad's four columns are inside it;
// otherwise (the 16-bit dual takes any N) the quad's columns past N are not stored.
template <class Cfg, bool QuadsInsideN, class Params, class COf>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void reduce_dual_swap_ab_tile(const Params& p, const sched::TileCoord& t,
                                                               uint32_t rank, uint32_t splits,
                                                               const COf& c_of) {
  using namespace ::bwgemm::ptx;
  using Out = typename Cfg::Out;
  using Partials = SwapAbPartials<Cfg, 2>;
  const epi::DualScales s = epi::dual_scales(p);  // once: the CTA reduces one tile
  Out* c = c_of(t.batch);
  reduce_tile_quads<Cfg>(
      t, rank, splits, p.m, p.n, [&](uint32_t smem, int32_t q, int32_t token, int64_t col, int64_t row) {
        const Float4 g = sum_cluster_quad(smem, Partials::word(0, token, q * kSwapAbQuadRows), splits);
        const Float4 u = sum_cluster_quad(smem, Partials::word(1, token, q * kSwapAbQuadRows), splits);
        if constexpr (QuadsInsideN) {
          dual_swap_ab_store_quad<Out>(p, s, c + row * p.ldc + col, g, u, kSwapAbQuadRows);
        } else {
          dual_swap_ab_store_quad<Out>(p, s, c + row * p.ldc + col, g, u, static_cast<int32_t>(p.n - col));
        }
      });
}

}  // namespace bwgemm::sm100::detail
