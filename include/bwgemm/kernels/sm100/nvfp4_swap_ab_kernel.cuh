// The sm_100a small-M NVFP4 kernels (swap AB, nvfp4_swap_ab_config.cuh says why and how), one source for
// both operations (Cfg::kWeights; the dual GEMM's kernels nvfp4_dual_swap_ab_kernel and
// nvfp4_dual_swap_ab_split_kernel, the GEMM's nvfp4_gemm_swap_ab_kernel and nvfp4_gemm_swap_ab_split_kernel):
//   dual GEMM (Weights 2): C[m, n, l] = Epilogue(sum_k A[m,k,l] B1[n,k,l], sum_k A[m,k,l] B2[n,k,l])
//              (default: SiLU-gated), computed as tiles of Cᵀ: gate = B1·Aᵀ and up = B2·Aᵀ
//   GEMM (Weights 1): D[m, n, l] = Epilogue(sum_k A[m,k,l] B[n,k,l] [, C[m,n,l]])
//              (default: alpha · A·Bᵀ + beta · C), computed as tiles of Dᵀ = B·Aᵀ
// in tiles of 128 weight rows x BlockTokens tokens.
//
// Warp roles (per CTA; roles.cuh runs them, Nvfp4SwapAbRoles below says what this kernel's do):
//   warps 0-3  epilogue: tensor-memory lanes 32w .. 32w + 31 = weight rows (output columns) n; each thread
//              holds the accumulators (dual: gate and up) of its n for every token of the tile and stores
//              the output [token][n] (a warp's stores are 32 consecutive n: coalesced along the output's
//              rows), reading C[token][n] where the GEMM's functor does; tokens past M masked
//   warp 4     operand producer: TMA of the weight tiles (W, or W1 and W2; evict-first: streamed once) and
//              the token tile (evict-last: every weight tile re-reads it)
//   warp 5     scale producer: TMA of the weights' scales (SFA, or SFA1 and SFA2) and the tokens' (SFB)
//   warp 6     MMA: allocates tensor memory; copies the scales to tensor memory (tcgen05.cp) and issues one
//              tcgen05.mma.kind::mxf4nvf4 per weight (dual: gate and up) of every K step, all reading the
//              stage's token tile
//   warp 7     scheduler: initialises the barriers; with CLC, cancels not-yet-started CTAs for work
// The pipelines are those of every sm_100a kernel (roles.cuh, docs/kernels.md) with one CTA per cluster.
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
#include "bwgemm/kernels/sm100/nvfp4_swap_ab_config.cuh"
#include "bwgemm/kernels/sm100/roles.cuh"
#include "bwgemm/kernels/sm100/swap_ab_epilogue.cuh"
#include "bwgemm/kernels/sm100/swap_ab_split_k.cuh"
#include "bwgemm/ptx/ptx.cuh"
#include "bwgemm/scheduler/tile_order.cuh"

namespace bwgemm::sm100 {

// The output's parameters, per operation.
template <class Cfg, int Weights = Cfg::kWeights>
struct Nvfp4SwapAbOutput;
// Dual GEMM: C = epilogue(alpha1 · A·B1ᵀ, alpha2 · A·B2ᵀ).
template <class Cfg>
struct Nvfp4SwapAbOutput<Cfg, 2> {
  typename Cfg::Out* c = nullptr;  // m x n row-major per batch, row stride ldc, batch stride batch_stride_c
  int64_t ldc = 0, batch_stride_c = 0;
  float alpha1 = 1.0f, alpha2 = 1.0f;  // per-tensor scales of the two products
  const float* alpha1_ptr = nullptr;  // device scales, read once per CTA: alpha1 · *alpha1_ptr (null: alpha1)
  const float* alpha2_ptr = nullptr;
  bool unit_alphas = false;  // alpha1 == alpha2 == 1 and no device scale: the epilogue skips the multiplies
  typename Cfg::Epilogue epilogue{};  // out = epilogue(alpha1 * A·B1ᵀ, alpha2 * A·B2ᵀ)
};
// GEMM: D = epilogue(A·Bᵀ [, C]) (alpha, the per-tensor scale, is the functor's).
template <class Cfg>
struct Nvfp4SwapAbOutput<Cfg, 1> {
  typename Cfg::Out* d = nullptr;  // m x n row-major per batch, row stride ldd, batch stride batch_stride_d
  const typename Cfg::Out* c = nullptr;  // the same with ldc, batch_stride_c; read only when read_c
  int64_t ldd = 0, ldc = 0;
  int64_t batch_stride_d = 0, batch_stride_c = 0;
  bool read_c = false;                // the functor takes C (epi::reads_source)
  bool identity = false;              // the functor returns the accumulator (epi::is_identity): not called
  typename Cfg::Epilogue epilogue{};  // its device-pointer scales read once per CTA (epi::with_device_scales)
};

// Kernel parameters. Passed as a __grid_constant__, so the tensor maps stay in parameter space.
template <class Cfg>
struct Nvfp4SwapAbParams : Nvfp4SwapAbOutput<Cfg> {
  CUtensorMap tmap_tokens;  // A: packed e2m1, (K, M, L), box (256, BlockTokens, 1), 128B swizzle
  // B (dual: B1, B2): packed e2m1, (K, N, L), box (256, 128, 1), 128B swizzle
  CUtensorMap tmap_weights[Cfg::kWeights];
  CUtensorMap
      tmap_sf_tokens;  // A's blocked scales as u16, (256, K/64 atoms, M/128 blocks, L), box (256, 4, 1, 1)
  CUtensorMap tmap_sf_weights[Cfg::kWeights];  // B's (B1's, B2's), (256, K/64, N/128, L)
  int32_t m = 0, n = 0, k = 0;
  sched::TileGrid tiles{};  // swap_ab_tiles
  int32_t num_clusters = 0;
  // Split K (the split kernels only): the CTAs per cluster and the K blocks of each.
  uint32_t splits = 1;
  int32_t k_blocks_per_split = 0;
};
// The dual GEMM's name for its parameters.
template <class Cfg>
using Nvfp4DualSwapAbParams = Nvfp4SwapAbParams<Cfg>;

namespace detail {

// Shared-memory descriptor of a K-major operand tile of 128-byte swizzle rows: 8-row core groups (one
// swizzle atom, 1024 bytes) apart (SBO); LBO unused for swizzled K-major layouts.
inline constexpr uint32_t kSwapAbSwizzleAtomRows = 8;
inline constexpr uint32_t kSwapAbSw128RowBytes = 128;
inline constexpr uint64_t kSwapAbOperandDescBase =
    ptx::SmemDescriptor{0, 0, kSwapAbSwizzleAtomRows* kSwapAbSw128RowBytes, 0, false, ptx::SmemSwizzle::k128B}
        .encode();
// Descriptor of scale lines as tcgen05.cp .32x128b reads them: 16-byte rows, 8-row groups 128 bytes apart,
// no swizzle.
inline constexpr uint32_t kSwapAbScaleLineBytes = 16;
inline constexpr uint64_t kSwapAbScaleDescBase =
    ptx::SmemDescriptor{0, 0,     kSwapAbSwizzleAtomRows* kSwapAbScaleLineBytes,
                        0, false, ptx::SmemSwizzle::kNone}
        .encode();

}  // namespace detail

template <class Cfg>
struct Nvfp4SwapAbRoles {
  static constexpr int kWeights = Cfg::kWeights;
  static constexpr int kAccumulators =
      kWeights;  // one per weight (dual: gate, up), BlockTokens columns apart
  using Partials = SwapAbPartials<Cfg, kAccumulators>;
  const Nvfp4SwapAbParams<Cfg>& p;
  int32_t kb_begin = 0;      // the first K block of this CTA's split
  bool to_partials = false;  // split K: the epilogue writes fp32 partials to shared memory

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

  BWGEMM_DEVICE void prefetch_tensor_maps() const {
    ptx::tma_prefetch_descriptor(&p.tmap_tokens);
#pragma unroll
    for (int w = 0; w < kWeights; ++w) ptx::tma_prefetch_descriptor(&p.tmap_weights[w]);
    ptx::tma_prefetch_descriptor(&p.tmap_sf_tokens);
#pragma unroll
    for (int w = 0; w < kWeights; ++w) ptx::tma_prefetch_descriptor(&p.tmap_sf_weights[w]);
  }

  template <int I>
  BWGEMM_DEVICE uint32_t producer_tx_bytes(const KernelContext<Cfg>&) const {
    return I == Cfg::kOperandProducer ? Cfg::kOperandTxBytes : Cfg::kScaleTxBytes;
  }

  // Tile t: weight rows w0 = t.m · 128 .., tokens m0 = t.n · BlockTokens .. (a grouped tile: its expert's
  // tokens and weights, sched/grouped_tiles.cuh).
  template <int I, class Tile>
  BWGEMM_DEVICE auto producer_tile(const KernelContext<Cfg>&, const Tile& t) const {
    const int32_t w0 = sched::first_row(t, Cfg::kBlockWeights);
    const int32_t m0 = sched::first_column(t, Cfg::kBlockTokens);
    const int32_t wb = sched::weight_batch(t), tb = t.batch;  // the weights' batch, the tokens'
    const int32_t kb_begin = this->kb_begin;
    if constexpr (I == Cfg::kOperandProducer) {
      return [this, w0, m0, wb, tb, kb_begin](uint32_t base, uint32_t bar, int32_t kb) {
        const int32_t k0 = (kb_begin + kb) * Cfg::kBlockK;
#pragma unroll
        for (int w = 0; w < kWeights; ++w)
          ptx::tma_load<1>(base + Cfg::kW1Offset + w * Cfg::kWeightBytes, &p.tmap_weights[w], bar,
                           {k0, w0, wb}, ptx::kL2EvictFirst);
        ptx::tma_load<1>(base + Cfg::kTokenOffset, &p.tmap_tokens, bar, {k0, m0, tb}, ptx::kL2EvictLast);
      };
    } else {
      // The 4 atoms (256 K) of the 128-row scale block of the weight tile and of the one holding the tokens.
      const int32_t w_block = w0 / Cfg::kScaleAtomRows;
      const int32_t m_block = sched::scale_row(t, m0) / Cfg::kScaleAtomRows;
      return [this, w_block, m_block, wb, tb, kb_begin](uint32_t base, uint32_t bar, int32_t kb) {
        const int32_t atom = (kb_begin + kb) * Cfg::kScaleAtomsPerStage;
#pragma unroll
        for (int w = 0; w < kWeights; ++w)
          ptx::tma_load<1>(base + Cfg::kSfW1Offset + w * Cfg::kScaleBytes, &p.tmap_sf_weights[w], bar,
                           {0, atom, w_block, wb}, ptx::kL2EvictFirst);
        ptx::tma_load<1>(base + Cfg::kSfTokenOffset, &p.tmap_sf_tokens, bar, {0, atom, m_block, tb},
                         ptx::kL2EvictLast);
      };
    }
  }

  // Per stage: the scale atoms into tensor memory, then per K step of 64 one MMA per weight (dual: the gate,
  // then the up MMA), all with the token tile as B and the tokens' scales as SFB.
  template <class Tile>
  BWGEMM_DEVICE auto mma_tile(const KernelContext<Cfg>& ctx, const Tile& t, uint32_t acc1) const {
    using namespace ::bwgemm::ptx;
    constexpr uint32_t idesc = InstrDescMxf4Nvf4{MmaF4Format::kE2M1,
                                                 MmaF4Format::kE2M1,
                                                 false,
                                                 false,
                                                 MmaMajor::kK,
                                                 MmaMajor::kK,
                                                 Cfg::kBlockWeights,
                                                 Cfg::kBlockTokens,
                                                 MmaScaleFormat::kUE4M3}
                                   .encode();
    // The token tile's first row inside its 128-row scale block: its 32-row group selects the SFB column
    // group, its row inside the group the first line the copy takes (nvfp4_swap_ab_config.cuh).
    const int32_t row_in_block =
        sched::scale_row(t, sched::first_column(t, Cfg::kBlockTokens)) % Cfg::kScaleAtomRows;
    const uint32_t sfb_group = static_cast<uint32_t>(row_in_block / Cfg::kScaleAtomRowGroup);
    const uint32_t sfb_line_bytes =
        static_cast<uint32_t>(row_in_block % Cfg::kScaleAtomRowGroup) * Cfg::kScaleLineBytes;
    const uint32_t tmem = ctx.tmem;
    return [tmem, sfb_group, sfb_line_bytes, acc1](uint32_t base, int32_t kb) {
      // The stage's descriptors encoded once, then moved per scale atom / K step (smem_desc_advanced).
      uint64_t sf_weights[kWeights];
#pragma unroll
      for (int w = 0; w < kWeights; ++w)
        sf_weights[w] = smem_desc_with_address(detail::kSwapAbScaleDescBase,
                                               base + Cfg::kSfW1Offset + w * Cfg::kScaleBytes);
      const uint64_t sf_tokens =
          smem_desc_with_address(detail::kSwapAbScaleDescBase, base + Cfg::kSfTokenOffset + sfb_line_bytes);
#pragma unroll
      for (uint32_t j = 0; j < Cfg::kScaleAtomsPerStage; ++j) {
        const uint32_t atom_offset = j * Cfg::kScaleAtomBytes;
        const uint32_t column = j * Cfg::kScaleColumnsPerAtom;
#pragma unroll
        for (int w = 0; w < kWeights; ++w)
          tcgen05_cp<1>(tmem + Cfg::kSfW1Column + w * Cfg::kScaleColumnsPerStage + column,
                        smem_desc_advanced(sf_weights[w], atom_offset));
        tcgen05_cp<1>(tmem + Cfg::kSfTokenColumn + column, smem_desc_advanced(sf_tokens, atom_offset));
      }
      uint64_t weights[kWeights];
#pragma unroll
      for (int w = 0; w < kWeights; ++w)
        weights[w] = smem_desc_with_address(detail::kSwapAbOperandDescBase,
                                            base + Cfg::kW1Offset + w * Cfg::kWeightBytes);
      const uint64_t tokens =
          smem_desc_with_address(detail::kSwapAbOperandDescBase, base + Cfg::kTokenOffset);
#pragma unroll
      for (uint32_t j = 0; j < Cfg::kMmasPerStage; ++j) {
        const uint32_t k_bytes = j * (Cfg::kMmaK / 2);  // advance 32 bytes (64 fp4) inside the swizzled rows
        const uint64_t tokens_desc = smem_desc_advanced(tokens, k_bytes);
        const uint32_t column = j * Cfg::kScaleColumnsPerAtom;
        const uint32_t sfb = tmem + Cfg::kSfTokenColumn + column + sfb_group;
        const bool accumulate = kb > 0 || j > 0;
#pragma unroll
        for (int w = 0; w < kWeights; ++w)
          tcgen05_mma_mxf4nvf4<1, CollectorUsage::kNone>(
              acc1 + w * Cfg::kBlockTokens, smem_desc_advanced(weights[w], k_bytes), tokens_desc, idesc,
              tmem + Cfg::kSfW1Column + w * Cfg::kScaleColumnsPerStage + column, sfb, accumulate);
      }
    };
  }

  // Weight row `n` of the tile (inside N): column n of the output for every token of the tile inside M. The
  // tokens are the same for every lane of a warp, so the mask at M is a uniform branch and each store
  // instruction writes 32 consecutive n of one row of the output.
  // With split K the row's fp32 accumulators go to this CTA's partials instead (swap_ab_split_k.cuh).
  template <class Tile>
  BWGEMM_DEVICE auto epilogue_tile(const KernelContext<Cfg>& ctx, const Tile& t, int32_t n,
                                   const Scales& s) const {
    if constexpr (kWeights == 2) {
      return dual_epilogue_tile(ctx, t, n, s);
    } else {
      return gemm_epilogue_tile(ctx, t, n, s);
    }
  }

  // Dual GEMM: C = epilogue(alpha1 · gate, alpha2 · up).
  template <class Tile>
  BWGEMM_DEVICE auto dual_epilogue_tile(const KernelContext<Cfg>& ctx, const Tile& t, int32_t n,
                                        const epi::DualScales& s) const {
    using Out = typename Cfg::Out;
    constexpr int kColumns = Cfg::kEpilogueColumns;
    Out* out_column = p.c + static_cast<int64_t>(t.batch) * p.batch_stride_c + n;
    float* partials = to_partials ? static_cast<float*>(ptx::shared_address_to_pointer(ctx.smem)) : nullptr;
    const int32_t row = n - sched::first_row(t, Cfg::kBlockWeights);
    const int32_t token_end =
        sched::column_limit(t, p.m);  // the tokens stored: below M (or the expert's end)
    return [this, s, out_column, partials, row, token_end](int32_t first_token,
                                                           const uint32_t(&values)[2][kColumns]) {
      if (partials != nullptr) return write_swap_ab_partials<Partials>(partials, row, values);
      const int32_t tokens = token_end - first_token < kColumns ? token_end - first_token : kColumns;
      detail::dual_swap_ab_store_tokens<Out>(p, s, out_column, first_token, tokens, values);
    };
  }

  // GEMM: D = epilogue(acc [, C]); the identity functor (alpha 1, beta 0) stores the accumulator.
  template <class Tile>
  BWGEMM_DEVICE auto gemm_epilogue_tile(const KernelContext<Cfg>& ctx, const Tile& t, int32_t n,
                                        const typename Cfg::Epilogue& f) const {
    using Out = typename Cfg::Out;
    constexpr int kColumns = Cfg::kEpilogueColumns;
    Out* d_column = p.d + static_cast<int64_t>(t.batch) * p.batch_stride_d + n;
    const Out* c_column = p.read_c ? p.c + static_cast<int64_t>(t.batch) * p.batch_stride_c + n : nullptr;
    float* partials = to_partials ? static_cast<float*>(ptx::shared_address_to_pointer(ctx.smem)) : nullptr;
    const int32_t row = n - sched::first_row(t, Cfg::kBlockWeights);
    const int32_t token_end =
        sched::column_limit(t, p.m);  // the tokens stored: below M (or the expert's end)
    return [this, f, d_column, c_column, partials, row, token_end](int32_t first_token,
                                                                   const uint32_t(&values)[1][kColumns]) {
      if (partials != nullptr) return write_swap_ab_partials<Partials>(partials, row, values);
      const int32_t tokens = token_end - first_token < kColumns ? token_end - first_token : kColumns;
      detail::gemm_swap_ab_store_tokens<Out>(p.identity, f, d_column, p.ldd, c_column, p.ldc, first_token,
                                             tokens, values[0]);
    };
  }
};

// The dual GEMM's name for its roles.
template <class Cfg>
using Nvfp4DualSwapAbRoles = Nvfp4SwapAbRoles<Cfg>;

namespace detail {

// The kernels' bodies, shared by both operations (their __global__ entries below keep one name per
// operation). roles.cuh's rows are tensor-memory lanes: here weight rows, masked at N.
template <class Cfg>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void nvfp4_swap_ab_tiles_body(const Nvfp4SwapAbParams<Cfg>& p) {
  run_roles<Cfg>(Nvfp4SwapAbRoles<Cfg>{p}, p.tiles, p.num_clusters, p.n, p.k);
}

// Split K (swap_ab_split_k.cuh): clusters of p.splits CTAs, one tile per cluster; CTA s computes K blocks
// [s · p.k_blocks_per_split, ..), then reduces its quads of the tile and stores them (swap_ab_epilogue.cuh;
// N is a multiple of 16: every quad's four columns are inside it).
template <class Cfg>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void nvfp4_swap_ab_split_body(const Nvfp4SwapAbParams<Cfg>& p) {
  using Roles = Nvfp4SwapAbRoles<Cfg>;
  const CtaKBlocks kb = cta_k_blocks<Cfg>(p.k, p.k_blocks_per_split);
  using Out = typename Cfg::Out;
  if constexpr (Cfg::kWeights == 2) {
    const auto reduce = [&p](const sched::TileCoord& t, uint32_t rank, uint32_t splits) {
      reduce_dual_swap_ab_tile<Cfg, /*QuadsInsideN=*/true>(p, t, rank, splits, [&p](int32_t batch) -> Out* {
        return p.c + static_cast<int64_t>(batch) * p.batch_stride_c;
      });
    };
    run_swap_ab_split_k<Cfg>(Roles{p, kb.begin, true}, p.tiles, p.n, kb.count, p.splits, reduce);
  } else {
    const auto reduce = [&p](const sched::TileCoord& t, uint32_t rank, uint32_t splits) {
      reduce_gemm_swap_ab_tile<Cfg>(
          p, t, rank, splits,
          [&p](int32_t batch) -> Out* { return p.d + static_cast<int64_t>(batch) * p.batch_stride_d; },
          [&p](int32_t batch) -> const Out* { return p.c + static_cast<int64_t>(batch) * p.batch_stride_c; });
    };
    run_swap_ab_split_k<Cfg>(Roles{p, kb.begin, true}, p.tiles, p.n, kb.count, p.splits, reduce);
  }
}

}  // namespace detail

// The dual GEMM's kernels: one CTA per tile (persistent) and split K.
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    nvfp4_dual_swap_ab_kernel(const __grid_constant__ Nvfp4SwapAbParams<Cfg> p) {
  static_assert(Cfg::kWeights == 2, "the dual GEMM's kernel takes a Weights = 2 Config");
#if BWGEMM_SM100A_KERNEL_BODY
  detail::nvfp4_swap_ab_tiles_body<Cfg>(p);
#else
  (void)p;
  ::bwgemm::ptx::trap();
#endif
}
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    nvfp4_dual_swap_ab_split_kernel(const __grid_constant__ Nvfp4SwapAbParams<Cfg> p) {
  static_assert(Cfg::kWeights == 2, "the dual GEMM's kernel takes a Weights = 2 Config");
#if BWGEMM_SM100A_KERNEL_BODY
  detail::nvfp4_swap_ab_split_body<Cfg>(p);
#else
  (void)p;
  ::bwgemm::ptx::trap();
#endif
}

// The GEMM's kernels: the same bodies with one weight operand.
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    nvfp4_gemm_swap_ab_kernel(const __grid_constant__ Nvfp4SwapAbParams<Cfg> p) {
  static_assert(Cfg::kWeights == 1, "the GEMM's kernel takes a Weights = 1 Config");
#if BWGEMM_SM100A_KERNEL_BODY
  detail::nvfp4_swap_ab_tiles_body<Cfg>(p);
#else
  (void)p;
  ::bwgemm::ptx::trap();
#endif
}
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    nvfp4_gemm_swap_ab_split_kernel(const __grid_constant__ Nvfp4SwapAbParams<Cfg> p) {
  static_assert(Cfg::kWeights == 1, "the GEMM's kernel takes a Weights = 1 Config");
#if BWGEMM_SM100A_KERNEL_BODY
  detail::nvfp4_swap_ab_split_body<Cfg>(p);
#else
  (void)p;
  ::bwgemm::ptx::trap();
#endif
}

}  // namespace bwgemm::sm100
