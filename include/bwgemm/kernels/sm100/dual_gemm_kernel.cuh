// The warp-specialized sm_100a fp16/bf16 dual GEMM with a fused epilogue:
//   C[m, n, l] = Epilogue(alpha1 · sum_k A[m,k,l] B1[n,k,l], alpha2 · sum_k A[m,k,l] B2[n,k,l])
//                                                                              (default: SiLU-gated)
//
// The NVFP4 dual kernel (nvfp4_dual_gemm_kernel.cuh) without scale factors: the same roles (roles.cuh), one
// producer and kind::f16 MMAs (the 16-bit GEMM's operand tiles and descriptors, gemm_kernel.cuh).
//   warps 0-3  epilogue: tensor memory -> registers -> functor -> global, one 32-lane quarter each
//   warp 4     producer: TMA of the A, B1 and B2 tiles of every stage
//   warp 5     MMA: allocates tensor memory; in the even CTA issues both GEMMs' tcgen05.mma.kind::f16,
//              reusing A through the collector buffer
//   warp 6     scheduler: initialises the barriers; with CLC, cancels not-yet-started clusters for work
//
// Pipelines: those of the NVFP4 dual kernel with ClusterCtas arrivals on full[s] (one producer per CTA).
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "bwgemm/epilogue/store.cuh"
#include "bwgemm/formats/bits.cuh"
#include "bwgemm/isa/descriptors.hpp"
#include "bwgemm/kernels/sm100/common.cuh"
#include "bwgemm/kernels/sm100/dual_gemm_config.cuh"
#include "bwgemm/kernels/sm100/gemm_epilogue.cuh"
#include "bwgemm/kernels/sm100/roles.cuh"
#include "bwgemm/ptx/ptx.cuh"
#include "bwgemm/scheduler/tile_order.cuh"

namespace bwgemm::sm100 {

// Kernel parameters. Passed as a __grid_constant__, so the tensor maps stay in parameter space.
template <class Cfg>
struct DualGemmParams {
  CUtensorMap tmap_a;   // 16-bit, (K, M, L), box (64, 128, 1), 128B swizzle
  CUtensorMap tmap_b1;  // 16-bit, (K, N, L), box (64, BlockN / ClusterCtas, 1), 128B swizzle
  CUtensorMap tmap_b2;
  typename Cfg::Out* c = nullptr;  // m x n row-major per batch, row stride ldc, batch stride batch_stride_c
  int64_t ldc = 0;
  int64_t batch_stride_c = 0;  // elements (m · ldc)
  int32_t m = 0, n = 0, k = 0;
  sched::TileGrid tiles{};
  int32_t num_clusters = 0;
  uint32_t idesc = 0;                  // Cfg::instr_desc(input type)
  float alpha1 = 1.0f, alpha2 = 1.0f;  // scales of the two products
  const float* alpha1_ptr = nullptr;  // device scales, read once per CTA: alpha1 · *alpha1_ptr (null: alpha1)
  const float* alpha2_ptr = nullptr;
  bool unit_alphas = false;  // alpha1 == alpha2 == 1 and no device scale: the epilogue skips the multiplies
  bool c_aligned32 = false;  // every row of C starts 32-byte aligned: 256-bit stores
  typename Cfg::Epilogue epilogue{};  // out = epilogue(alpha1 * A·B1ᵀ, alpha2 * A·B2ᵀ)
};

// What the 16-bit dual GEMM's roles do (roles.cuh runs them): one producer loads A, B1 and B2; the MMA warp
// issues both products' kind::f16 MMAs, reusing A through the collector buffer; the epilogue applies the
// functor to the gate and up accumulators.
template <class Cfg>
struct DualGemmRoles {
  static constexpr int kAccumulators = 2;  // gate (A·B1ᵀ) then up (A·B2ᵀ), BlockN columns apart
  const DualGemmParams<Cfg>& p;

  BWGEMM_DEVICE void prefetch_tensor_maps() const {
    ptx::tma_prefetch_descriptor(&p.tmap_a);
    ptx::tma_prefetch_descriptor(&p.tmap_b1);
    ptx::tma_prefetch_descriptor(&p.tmap_b2);
  }

  template <int I>
  BWGEMM_DEVICE uint32_t producer_tx_bytes(const KernelContext<Cfg>&) const {
    return Cfg::kStageTxBytes;
  }

  // This CTA's A rows and its share of the B1 and B2 rows of the cluster tile, K block kb.
  template <int I, class Tile>
  BWGEMM_DEVICE auto producer_tile(const KernelContext<Cfg>& ctx, const Tile& t) const {
    constexpr int kCtaGroup = Cfg::kClusterCtas;
    const int32_t m0 =
        sched::first_row(t, Cfg::kClusterBlockM) + static_cast<int32_t>(ctx.rank) * Cfg::kBlockM;
    const int32_t nb = t.n * Cfg::kBlockN + static_cast<int32_t>(ctx.rank) * Cfg::kBRowsPerCta;
    const int32_t ab = t.batch, wb = sched::weight_batch(t);  // A's batch, the weights'
    return [this, m0, nb, ab, wb](uint32_t base, uint32_t bar, int32_t kb) {
      const int32_t k0 = kb * Cfg::kBlockK;
      ptx::tma_load<kCtaGroup>(base + Cfg::kAOffset, &p.tmap_a, bar, {k0, m0, ab});
      ptx::tma_load<kCtaGroup>(base + Cfg::kB1Offset, &p.tmap_b1, bar, {k0, nb, wb});
      ptx::tma_load<kCtaGroup>(base + Cfg::kB2Offset, &p.tmap_b2, bar, {k0, nb, wb});
    };
  }

  // Per stage kMmasPerStage pairs of K = 16 MMAs; the gate MMA loads A into the collector buffer, the up
  // MMA reuses it and releases it. The first pair of the tile overwrites the accumulators.
  template <class Tile>
  BWGEMM_DEVICE auto mma_tile(const KernelContext<Cfg>&, const Tile&, uint32_t acc1) const {
    using namespace ::bwgemm::ptx;
    constexpr int kCtaGroup = Cfg::kClusterCtas;
    const uint32_t idesc = p.idesc;
    const uint32_t acc2 = acc1 + Cfg::kBlockN;
    return [idesc, acc1, acc2](uint32_t base, int32_t kb) {
      // The stage's descriptors once; each K step moves them by its bytes (smem_desc_advanced).
      const uint64_t a_desc = smem_desc_with_address(Cfg::kKMajorDescBase, base + Cfg::kAOffset);
      const uint64_t b1_desc = smem_desc_with_address(Cfg::kKMajorDescBase, base + Cfg::kB1Offset);
      const uint64_t b2_desc = smem_desc_with_address(Cfg::kKMajorDescBase, base + Cfg::kB2Offset);
#pragma unroll
      for (uint32_t j = 0; j < Cfg::kMmasPerStage; ++j) {
        const uint32_t k_bytes = j * Cfg::kKMajorStepBytes;
        const bool accumulate = kb > 0 || j > 0;
        const uint64_t a = smem_desc_advanced(a_desc, k_bytes);
        tcgen05_mma_f16<kCtaGroup, CollectorUsage::kFill>(acc1, a, smem_desc_advanced(b1_desc, k_bytes),
                                                          idesc, accumulate);
        tcgen05_mma_f16<kCtaGroup, CollectorUsage::kLastUse>(acc2, a, smem_desc_advanced(b2_desc, k_bytes),
                                                             idesc, accumulate);
      }
    };
  }

  // The alphas with their device-pointer parts read (once per epilogue thread, before the tile loop).
  BWGEMM_DEVICE epi::DualScales epilogue_scales() const {
    return epi::dual_scales(p);
  }

  // Row `row` of the tile (inside M): DualTileStore (gemm_epilogue.cuh; N need not be a multiple of 8).
  template <class Tile>
  BWGEMM_DEVICE DualTileStore<Cfg, DualGemmParams<Cfg>, true> epilogue_tile(const KernelContext<Cfg>&,
                                                                            const Tile& t, int32_t row,
                                                                            const epi::DualScales& s) const {
    // The byte offset as unsigned wide multiply-adds of the non-negative 32-bit row and batch indices by the
    // byte strides (computed once, below).
    auto* const out_row = reinterpret_cast<typename Cfg::Out*>(
        c_bytes + static_cast<uint64_t>(static_cast<uint32_t>(row)) * ldc_bytes +
        static_cast<uint64_t>(static_cast<uint32_t>(t.batch)) * batch_stride_bytes);
    return DualTileStore<Cfg, DualGemmParams<Cfg>, true>{p, s, out_row};
  }

  // The per-tile fast path (roles.cuh): C's layout for the record thread, and chunk `chunk` of a tile row
  // whose first column is at `row`.
  BWGEMM_DEVICE FastOutput fast_output() const {
    return {c_bytes, ldc_bytes, batch_stride_bytes, static_cast<int32_t>(sizeof(typename Cfg::Out)),
            fast_tiles_n};
  }
  BWGEMM_DEVICE BWGEMM_FORCEINLINE void fast_chunk(char* row, int chunk,
                                                   const uint32_t (&values)[2][Cfg::kEpilogueColumns]) const {
    detail::dual_fast_chunk(p, reinterpret_cast<typename Cfg::Out*>(row) + chunk * Cfg::kEpilogueColumns,
                            values);
  }

  // Per CTA, once: the tile columns that take the fast path, 0 .. fast_tiles_n - 1: those whose every column
  // is inside N when both alphas are 1 and C's rows are 32-byte aligned, none otherwise.
  const int32_t fast_tiles_n = p.unit_alphas && p.c_aligned32 ? p.n / Cfg::kBlockN : 0;
  // C's address and strides in bytes.
  char* const c_bytes = reinterpret_cast<char*>(p.c);
  const uint64_t ldc_bytes = static_cast<uint64_t>(p.ldc) * sizeof(typename Cfg::Out);
  const uint64_t batch_stride_bytes = static_cast<uint64_t>(p.batch_stride_c) * sizeof(typename Cfg::Out);
};

template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    dual_gemm_kernel(const __grid_constant__ DualGemmParams<Cfg> p) {
  run_kernel<Cfg, DualGemmRoles<Cfg>>(p);
}

}  // namespace bwgemm::sm100
