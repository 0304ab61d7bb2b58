// The sm_100a small-M FP16/BF16 kernels (swap AB, f16_swap_ab_config.cuh says why and how), one source for
// both operations (Cfg::kWeights; the GEMM's kernels gemm_swap_ab_kernel and gemm_swap_ab_split_kernel, the
// dual GEMM's dual_swap_ab_kernel and dual_swap_ab_split_kernel):
//   GEMM (Weights 1): D[m, n, l] = Epilogue(sum_k A[m,k,l] B[k,n,l] [, C[m,n,l]])
//              (default: alpha · A·B + beta · C), computed as tiles of Dᵀ = Bᵀ·Aᵀ
//   dual GEMM (Weights 2): C[m, n, l] = Epilogue(alpha1 · sum_k A[m,k,l] B1[n,k,l],
//              alpha2 · sum_k A[m,k,l] B2[n,k,l]) (default: SiLU-gated), tiles of gate = B1·Aᵀ and up = B2·Aᵀ
// in tiles of 128 weight rows x BlockTokens tokens.
//
// Warp roles (per CTA; roles.cuh runs them, F16SwapAbRoles below says what this kernel's do):
//   warps 0-3  epilogue: tensor-memory lanes 32w .. 32w + 31 = weight rows (output columns) n; each thread
//              holds its n (dual: its gate and up) for every token of the tile and stores out[token][n] (a
//              warp's stores are 32 consecutive n), reading C[token][n] when the GEMM's functor does; tokens
//              past M masked
//   warp 4     producer: TMA of the weight tiles (B, or B1 and B2; evict-first: streamed once; two
//              64-column chunks each in the K x N layout) and the token tile (evict-last: every weight tile
//              re-reads it)
//   warp 5     MMA: allocates tensor memory; issues tcgen05.mma.kind::f16 (weights as A, tokens as B; dual:
//              the gate and the up MMA of every K step, both reading the stage's token tile)
//   warp 6     scheduler: initialises the barriers; with CLC, cancels not-yet-started CTAs for work
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "bwgemm/epilogue/device_scale.cuh"
#include "bwgemm/epilogue/store.cuh"
#include "bwgemm/formats/bits.cuh"
#include "bwgemm/isa/descriptors.hpp"
#include "bwgemm/kernels/sm100/common.cuh"
#include "bwgemm/kernels/sm100/f16_swap_ab_config.cuh"
#include "bwgemm/kernels/sm100/roles.cuh"
#include "bwgemm/kernels/sm100/swap_ab_epilogue.cuh"
#include "bwgemm/kernels/sm100/swap_ab_split_k.cuh"
#include "bwgemm/ptx/ptx.cuh"
#include "bwgemm/scheduler/tile_order.cuh"

namespace bwgemm::sm100 {

// The output's parameters, per operation.
template <class Cfg, int Weights = Cfg::kWeights>
struct F16SwapAbOutput;
// GEMM: D = epilogue(A·B [, C]) (alpha and beta are the functor's).
template <class Cfg>
struct F16SwapAbOutput<Cfg, 1> {
  using Out = typename Cfg::Out;
  Out* d = nullptr;
  const Out* c = nullptr;  // read only when read_c
  int64_t ldd = 0, batch_stride_d = 0;
  int64_t ldc = 0, batch_stride_c = 0;
  bool read_c = false;                // the epilogue takes C (epi::reads_source)
  bool identity = false;              // the functor returns the accumulator (epi::is_identity): not called
  typename Cfg::Epilogue epilogue{};  // its device-pointer scales read once per CTA (epi::with_device_scales)
};
// Dual GEMM: C = epilogue(alpha1 · A·B1ᵀ, alpha2 · A·B2ᵀ).
template <class Cfg>
struct F16SwapAbOutput<Cfg, 2> {
  typename Cfg::Out* c = nullptr;  // m x n row-major per batch, row stride ldc, batch stride batch_stride_c
  int64_t ldc = 0, batch_stride_c = 0;
  float alpha1 = 1.0f, alpha2 = 1.0f;  // scales of the two products
  const float* alpha1_ptr = nullptr;  // device scales, read once per CTA: alpha1 · *alpha1_ptr (null: alpha1)
  const float* alpha2_ptr = nullptr;
  bool unit_alphas = false;  // alpha1 == alpha2 == 1 and no device scale: the epilogue skips the multiplies
  typename Cfg::Epilogue epilogue{};  // out = epilogue(alpha1 * A·B1ᵀ, alpha2 * A·B2ᵀ)
};

// Kernel parameters. Passed as a __grid_constant__, so the tensor maps stay in parameter space.
template <class Cfg>
struct F16SwapAbParams : F16SwapAbOutput<Cfg> {
  CUtensorMap tmap_tokens;  // A: (K, M, L), box (64, BlockTokens, 1), 128B swizzle
  // B (dual: B1, B2) N x K: (K, N, L), box (64, 128, 1); K x N: (N, K, L), box (64, 64, 1); 128B swizzle
  CUtensorMap tmap_weights[Cfg::kWeights];
  int32_t m = 0, n = 0, k = 0;
  sched::TileGrid tiles{};  // swap_ab_tiles
  int32_t num_clusters = 0;
  uint32_t idesc = 0;                // Cfg::instr_desc(input type, B layout)
  F16SwapAbWeightOperand weights{};  // Cfg::weight_operand(B layout)
  bool weights_mn_major = false;     // B is K x N row-major: loaded in 64-column chunks
  // Split K (the split kernels only): the CTAs per cluster and the K blocks of each.
  uint32_t splits = 1;
  int32_t k_blocks_per_split = 0;
};
// The operations' names for their parameters.
template <class Cfg>
using GemmSwapAbParams = F16SwapAbParams<Cfg>;
template <class Cfg>
using DualSwapAbParams = F16SwapAbParams<Cfg>;

template <class Cfg>
struct F16SwapAbRoles {
  static constexpr int kWeights = Cfg::kWeights;
  // One accumulator per weight (dual: gate, up), BlockTokens columns apart.
  static constexpr int kAccumulators = kWeights;
  using Partials = SwapAbPartials<Cfg, kAccumulators>;
  const F16SwapAbParams<Cfg>& p;
  int32_t kb_begin = 0;      // the first K block of this CTA's split
  bool to_partials = false;  // split K: the epilogue writes fp32 partials to shared memory

  BWGEMM_DEVICE void prefetch_tensor_maps() const {
    ptx::tma_prefetch_descriptor(&p.tmap_tokens);
#pragma unroll
    for (int w = 0; w < kWeights; ++w) ptx::tma_prefetch_descriptor(&p.tmap_weights[w]);
  }

  // The per-tensor scales with their device-pointer parts read (once per epilogue thread, before the tile
  // loop): the dual GEMM's alphas, the GEMM's functor. Split K writes partials, and the reduction reads the
  // scales itself.
  using Scales = std::conditional_t<kWeights == 2, epi::DualScales, typename Cfg::Epilogue>;
  BWGEMM_DEVICE Scales epilogue_scales() const {
    if constexpr (kWeights == 2) {
      return to_partials ? epi::DualScales{p.alpha1, p.alpha2} : epi::dual_scales(p);
    } else {
      return to_partials ? p.epilogue : epi::with_device_scales(p.epilogue);
    }
  }

  template <int I>
  BWGEMM_DEVICE uint32_t producer_tx_bytes(const KernelContext<Cfg>&) const {
    return Cfg::kStageTxBytes;
  }

  // Tile t: weight rows w0 = t.m · 128 .., tokens m0 = t.n · BlockTokens .. (a grouped tile: its expert's
  // tokens and weights, sched/grouped_tiles.cuh), K block kb.
  template <int I, class Tile>
  BWGEMM_DEVICE auto producer_tile(const KernelContext<Cfg>&, const Tile& tile) const {
    const int32_t w0 = sched::first_row(tile, Cfg::kBlockWeights);
    const int32_t m0 = sched::first_column(tile, Cfg::kBlockTokens);
    const int32_t kb_begin = this->kb_begin;
    const int32_t wb = sched::weight_batch(tile),
                  token_batch = tile.batch;  // the weights' batch, the tokens'
    return [this, w0, m0, wb, token_batch, kb_begin](uint32_t base, uint32_t bar, int32_t kb) {
      const int32_t k0 = (kb_begin + kb) * Cfg::kBlockK;
#pragma unroll
      for (int w = 0; w < kWeights; ++w) {
        const uint32_t weight_base = base + Cfg::kWeightOffset + w * Cfg::kWeightBytes;
        if (p.weights_mn_major) {
          for (int32_t c = 0; c < Cfg::kWeightChunks; ++c)
            ptx::tma_load<1>(weight_base + c * Cfg::kWeightChunkBytes, &p.tmap_weights[w], bar,
                             {w0 + c * Cfg::kWeightChunkColumns, k0, wb}, ptx::kL2EvictFirst);
        } else {
          ptx::tma_load<1>(weight_base, &p.tmap_weights[w], bar, {k0, w0, wb}, ptx::kL2EvictFirst);
        }
      }
      ptx::tma_load<1>(base + Cfg::kTokenOffset, &p.tmap_tokens, bar, {k0, m0, token_batch},
                       ptx::kL2EvictLast);
    };
  }

  // kMmasPerStage K steps of 16 per stage, each one MMA per weight (dual: the gate, then the up MMA, both
  // reading the token tile) into the tile's accumulators; the first of the tile overwrites them.
  template <class Tile>
  BWGEMM_DEVICE auto mma_tile(const KernelContext<Cfg>&, const Tile&, uint32_t d_tmem) const {
    const uint32_t idesc = p.idesc;
    const F16SwapAbWeightOperand w = p.weights;
    return [d_tmem, idesc, w](uint32_t base, int32_t kb) {
      // The stage's descriptors encoded once, then moved per K step (smem_desc_advanced).
      uint64_t weights[kWeights];
#pragma unroll
      for (int i = 0; i < kWeights; ++i)
        weights[i] =
            ptx::smem_desc_with_address(w.desc_base, base + Cfg::kWeightOffset + i * Cfg::kWeightBytes);
      const uint64_t tokens = ptx::smem_desc_with_address(Cfg::kKMajorDescBase, base + Cfg::kTokenOffset);
#pragma unroll
      for (uint32_t j = 0; j < Cfg::kMmasPerStage; ++j) {
        const uint64_t tokens_desc = smem_desc_advanced(tokens, j * Cfg::kKMajorStepBytes);
#pragma unroll
        for (int i = 0; i < kWeights; ++i)
          ptx::tcgen05_mma_f16<1>(d_tmem + i * Cfg::kBlockTokens,
                                  smem_desc_advanced(weights[i], j * w.k_step_bytes), tokens_desc, idesc,
                                  kb > 0 || j > 0);
      }
    };
  }

  // Weight row `n` of the tile (inside N): column n of the output for every token of the tile inside M. The
  // tokens are the same for every lane of a warp, so the mask at M is a uniform branch and each store
  // instruction writes 32 consecutive n of one row of the output.
  // With split K the row's fp32 accumulators go to this CTA's partials instead (swap_ab_split_k.cuh).
  // `s`: epilogue_scales().
  template <class Tile>
  BWGEMM_DEVICE auto epilogue_tile(const KernelContext<Cfg>& ctx, const Tile& t, int32_t n,
                                   const Scales& s) const {
    using Out = typename Cfg::Out;
    constexpr int kColumns = Cfg::kEpilogueColumns;
    float* partials = to_partials ? static_cast<float*>(ptx::shared_address_to_pointer(ctx.smem)) : nullptr;
    const int32_t row = n - sched::first_row(t, Cfg::kBlockWeights);
    const int32_t token_end =
        sched::column_limit(t, p.m);  // the tokens stored: below M (or the expert's end)
    if constexpr (kWeights == 2) {
      // Dual GEMM: C = epilogue(alpha1 · gate, alpha2 · up).
      Out* out_column = p.c + t.batch * p.batch_stride_c + n;
      return [this, s, out_column, partials, row, token_end](int32_t first_token,
                                                             const uint32_t(&values)[2][kColumns]) {
        if (partials != nullptr) return write_swap_ab_partials<Partials>(partials, row, values);
        const int32_t tokens = token_end - first_token < kColumns ? token_end - first_token : kColumns;
        detail::dual_swap_ab_store_tokens<Out>(p, s, out_column, first_token, tokens, values);
      };
    } else {
      // GEMM: D = epilogue(acc [, C]); the identity functor (alpha 1, beta 0) stores the accumulator.
      Out* d_column = p.d + t.batch * p.batch_stride_d + n;
      const Out* c_column = p.read_c ? p.c + t.batch * p.batch_stride_c + n : nullptr;
      return [this, s, d_column, c_column, partials, row, token_end](int32_t first_token,
                                                                     const uint32_t(&values)[1][kColumns]) {
        if (partials != nullptr) return write_swap_ab_partials<Partials>(partials, row, values);
        const int32_t tokens = token_end - first_token < kColumns ? token_end - first_token : kColumns;
        detail::gemm_swap_ab_store_tokens<Out>(p.identity, s, d_column, p.ldd, c_column, p.ldc, first_token,
                                               tokens, values[0]);
      };
    }
  }
};

namespace detail {
// The kernels' bodies, shared by both operations (their __global__ entries below keep one name per
// operation). roles.cuh's rows are tensor-memory lanes: here weight rows, masked at N.
template <class Cfg>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void f16_swap_ab_tiles_body(const F16SwapAbParams<Cfg>& p) {
  run_roles<Cfg>(F16SwapAbRoles<Cfg>{p}, p.tiles, p.num_clusters, p.n, p.k);
}

// Split K (swap_ab_split_k.cuh): clusters of p.splits CTAs, one tile per cluster; CTA s computes K blocks
// [s · p.k_blocks_per_split, ..), then reduces its quads of the tile and stores them (swap_ab_epilogue.cuh).
template <class Cfg>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void f16_swap_ab_split_body(const F16SwapAbParams<Cfg>& p) {
  using Roles = F16SwapAbRoles<Cfg>;
  const CtaKBlocks kb = cta_k_blocks<Cfg>(p.k, p.k_blocks_per_split);
  using Out = typename Cfg::Out;
  if constexpr (Cfg::kWeights == 2) {
    const auto reduce = [&p](const sched::TileCoord& t, uint32_t rank, uint32_t splits) {
      reduce_dual_swap_ab_tile<Cfg, /*QuadsInsideN=*/false>(
          p, t, rank, splits, [&p](int32_t batch) -> Out* { return p.c + batch * p.batch_stride_c; });
    };
    run_swap_ab_split_k<Cfg>(Roles{p, kb.begin, true}, p.tiles, p.n, kb.count, p.splits, reduce);
  } else {
    const auto reduce = [&p](const sched::TileCoord& t, uint32_t rank, uint32_t splits) {
      reduce_gemm_swap_ab_tile<Cfg>(
          p, t, rank, splits, [&p](int32_t batch) -> Out* { return p.d + batch * p.batch_stride_d; },
          [&p](int32_t batch) -> const Out* { return p.c + batch * p.batch_stride_c; });
    };
    run_swap_ab_split_k<Cfg>(Roles{p, kb.begin, true}, p.tiles, p.n, kb.count, p.splits, reduce);
  }
}

}  // namespace detail

// The GEMM's kernels: one CTA per tile (persistent) and split K.
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    gemm_swap_ab_kernel(const __grid_constant__ F16SwapAbParams<Cfg> p) {
  static_assert(Cfg::kWeights == 1, "the GEMM's kernel takes a Weights = 1 Config");
#if BWGEMM_SM100A_KERNEL_BODY
  detail::f16_swap_ab_tiles_body<Cfg>(p);
#else
  (void)p;
  ::bwgemm::ptx::trap();
#endif
}
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    gemm_swap_ab_split_kernel(const __grid_constant__ F16SwapAbParams<Cfg> p) {
  static_assert(Cfg::kWeights == 1, "the GEMM's kernel takes a Weights = 1 Config");
#if BWGEMM_SM100A_KERNEL_BODY
  detail::f16_swap_ab_split_body<Cfg>(p);
#else
  (void)p;
  ::bwgemm::ptx::trap();
#endif
}

// The dual GEMM's kernels: the same bodies with two weight operands.
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    dual_swap_ab_kernel(const __grid_constant__ F16SwapAbParams<Cfg> p) {
  static_assert(Cfg::kWeights == 2, "the dual GEMM's kernel takes a Weights = 2 Config");
#if BWGEMM_SM100A_KERNEL_BODY
  detail::f16_swap_ab_tiles_body<Cfg>(p);
#else
  (void)p;
  ::bwgemm::ptx::trap();
#endif
}
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    dual_swap_ab_split_kernel(const __grid_constant__ F16SwapAbParams<Cfg> p) {
  static_assert(Cfg::kWeights == 2, "the dual GEMM's kernel takes a Weights = 2 Config");
#if BWGEMM_SM100A_KERNEL_BODY
  detail::f16_swap_ab_split_body<Cfg>(p);
#else
  (void)p;
  ::bwgemm::ptx::trap();
#endif
}

}  // namespace bwgemm::sm100
