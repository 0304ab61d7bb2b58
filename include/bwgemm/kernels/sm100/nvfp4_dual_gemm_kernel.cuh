// The warp-specialized sm_100a NVFP4 dual GEMM with a fused epilogue:
//   C[m, n, l] = Epilogue(sum_k A[m,k,l] B1[n,k,l], sum_k A[m,k,l] B2[n,k,l])   (default: SiLU-gated)
//
// Warp roles (per CTA; roles.cuh runs them, Nvfp4DualGemmRoles below says what this kernel's do):
//   warps 0-3  epilogue: tensor memory -> registers -> functor -> global, one 32-lane quarter each
//   warp 4     operand producer: TMA of the A, B1 and B2 tiles of every stage
//   warp 5     scale producer: TMA of SFA (own rows) and, in the even CTA, SFB1/SFB2 multicast to the pair
//   warp 6     MMA: allocates tensor memory; in the even CTA, copies the scales to tensor memory
//              (tcgen05.cp) and issues both GEMMs' tcgen05.mma, reusing A through the collector buffer
//   warp 7     scheduler: initialises the barriers; with CLC, cancels not-yet-started clusters for work
//
// Pipelines (docs/kernels.md has the diagram):
//   full[s]      even CTA, 2 x ClusterCtas arrivals + transaction bytes: stage s has landed in both CTAs
//   empty[s]     every CTA, 1 arrival (tcgen05.commit multicast): the MMAs reading stage s are done
//   acc_full[a]  every CTA, 1 arrival (commit multicast): accumulator stage a holds a finished tile
//   acc_empty[a] even CTA, 4 x ClusterCtas arrivals: the epilogue warps have read accumulator stage a
//   clc_full/clc_empty: the Cluster Launch Control response ring (scheduler/ClcWorkStealing)
#pragma once

#include <cuda.h>

#include <cstdint>
#include <type_traits>

#include "bwgemm/epilogue/store.cuh"
#include "bwgemm/formats/bits.cuh"
#include "bwgemm/isa/descriptors.hpp"
#include "bwgemm/kernels/sm100/common.cuh"
#include "bwgemm/kernels/sm100/gemm_epilogue.cuh"
#include "bwgemm/kernels/sm100/nvfp4_dual_gemm_config.cuh"
#include "bwgemm/kernels/sm100/nvfp4_operands.cuh"
#include "bwgemm/kernels/sm100/nvfp4_output_store.cuh"
#include "bwgemm/kernels/sm100/roles.cuh"
#include "bwgemm/ptx/ptx.cuh"
#include "bwgemm/scheduler/tile_order.cuh"

namespace bwgemm::sm100 {

// Kernel parameters. Passed as a __grid_constant__, so the tensor maps stay in parameter space.
template <class Cfg>
struct Nvfp4DualGemmParams : Nvfp4OutputParams<Cfg::kNvfp4Out> {  // NVFP4 C: its scales, global scale
  CUtensorMap tmap_a;   // packed e2m1, (K, M, L), box (256, 128, 1), 128B swizzle
  CUtensorMap tmap_b1;  // packed e2m1, (K, N, L), box (256, BlockN / ClusterCtas, 1)
  CUtensorMap tmap_b2;
  CUtensorMap tmap_sfa;   // blocked scales as u16, (256, K/64 atoms, M/128 blocks, L), box (256, 4, 1, 1)
  CUtensorMap tmap_sfb1;  // same for B1's N rows
  CUtensorMap tmap_sfb2;
  // m x n row-major per batch, row stride ldc, batch stride batch_stride_c; NVFP4 C: packed bytes, ldc = n /
  // 2
  typename Cfg::CElement* c = nullptr;
  int64_t ldc = 0;
  int64_t batch_stride_c = 0;  // elements (m · ldc)
  int32_t m = 0, n = 0, k = 0;
  sched::TileGrid tiles{};
  int32_t num_clusters = 0;
  uint64_t cache_hint_a = 0, cache_hint_b = 0;  // ptx::kL2Evict* policies (used when Cfg::kHints != kNone)
  float alpha1 = 1.0f, alpha2 = 1.0f;           // per-tensor scales of the two products
  const float* alpha1_ptr = nullptr;  // device scales, read once per CTA: alpha1 · *alpha1_ptr (null: alpha1)
  const float* alpha2_ptr = nullptr;
  bool unit_alphas = false;  // alpha1 == alpha2 == 1 and no device scale: the epilogue skips the multiplies
  bool c_aligned32 = false;  // every row of C starts 32-byte aligned: 256-bit stores
  typename Cfg::Epilogue epilogue{};  // out = epilogue(alpha1 * A·B1ᵀ, alpha2 * A·B2ᵀ)
};

// The epilogue's store of one tile row of a 16-bit C: the dual GEMMs' DualTileStore (gemm_epilogue.cuh), N a
// multiple of 8.
template <class Cfg>
using Nvfp4DualTileStore = DualTileStore<Cfg, Nvfp4DualGemmParams<Cfg>, false>;

// NVFP4 C (Cfg::kNvfp4Out; nvfp4_output_store.cuh quantizes and stores): output column i of a chunk is
// epilogue(alpha1 · gate, alpha2 · up) with the alphas `s` (their device parts read once per CTA), without
// the two multiplies when both alphas are 1 and no device scale is given (p.unit_alphas).
struct Nvfp4DualQuantizeValue {
  template <class Params, int Columns>
  BWGEMM_DEVICE static BWGEMM_FORCEINLINE float at(const Params& p, const epi::DualScales& s,
                                                   const uint32_t (&values)[2][Columns], int i) {
    const float gate = bits_to_f32(values[0][i]), up = bits_to_f32(values[1][i]);
    return p.unit_alphas ? p.epilogue(gate, up) : p.epilogue(s.alpha1 * gate, s.alpha2 * up);
  }
};

// What the NVFP4 dual GEMM's roles do (roles.cuh runs them): producer 0 loads A, B1 and B2, producer 1 the
// three scale tiles; the MMA warp copies the scales to tensor memory and issues both products, reusing A
// through the collector buffer; the epilogue applies the functor to the gate and up accumulators.
template <class Cfg>
struct Nvfp4DualGemmRoles {
  static constexpr int kAccumulators = 2;  // gate (A·B1ᵀ) then up (A·B2ᵀ), BlockN columns apart
  const Nvfp4DualGemmParams<Cfg>& p;

  BWGEMM_DEVICE void prefetch_tensor_maps() const {
    ptx::tma_prefetch_descriptor(&p.tmap_a);
    ptx::tma_prefetch_descriptor(&p.tmap_b1);
    ptx::tma_prefetch_descriptor(&p.tmap_b2);
  }

  template <int I>
  BWGEMM_DEVICE uint32_t producer_tx_bytes(const KernelContext<Cfg>& ctx) const {
    if constexpr (I == Cfg::kOperandProducer) return Cfg::kOperandTxBytes;
    return ctx.even_cta ? Cfg::kScaleTxBytesEven : Cfg::kScaleTxBytesOdd;
  }

  template <int I, class Tile>
  BWGEMM_DEVICE auto producer_tile(const KernelContext<Cfg>& ctx, const Tile& t) const {
    constexpr int kCtaGroup = Cfg::kClusterCtas;
    const int32_t m0 =
        sched::first_row(t, Cfg::kClusterBlockM) + static_cast<int32_t>(ctx.rank) * Cfg::kBlockM;
    const int32_t ab = t.batch, wb = sched::weight_batch(t);  // A's batch, the weights'
    if constexpr (I == Cfg::kOperandProducer) {
      // This CTA's A rows and its half of the B rows of the cluster tile.
      const int32_t nb = t.n * Cfg::kBlockN + static_cast<int32_t>(ctx.rank) * Cfg::kBRowsPerCta;
      const uint64_t hint_a = p.cache_hint_a, hint_b = p.cache_hint_b;
      return [this, m0, nb, ab, wb, hint_a, hint_b](uint32_t base, uint32_t bar, int32_t kb) {
        const int32_t k0 = kb * Cfg::kBlockK;
        if constexpr (Cfg::kHints == L2CacheHints::kNone) {
          ptx::tma_load<kCtaGroup>(base + Cfg::kAOffset, &p.tmap_a, bar, {k0, m0, ab});
          ptx::tma_load<kCtaGroup>(base + Cfg::kB1Offset, &p.tmap_b1, bar, {k0, nb, wb});
          ptx::tma_load<kCtaGroup>(base + Cfg::kB2Offset, &p.tmap_b2, bar, {k0, nb, wb});
        } else {
          ptx::tma_load<kCtaGroup>(base + Cfg::kAOffset, &p.tmap_a, bar, {k0, m0, ab}, hint_a);
          ptx::tma_load<kCtaGroup>(base + Cfg::kB1Offset, &p.tmap_b1, bar, {k0, nb, wb}, hint_b);
          ptx::tma_load<kCtaGroup>(base + Cfg::kB2Offset, &p.tmap_b2, bar, {k0, nb, wb}, hint_b);
        }
      };
    } else {
      // SFA of this CTA's rows; the even CTA multicasts SFB1/SFB2 of the 128-row scale block holding the
      // tile's N columns to the pair.
      const int32_t m_block = sched::scale_row(t, m0) / Cfg::kScaleAtomRows;
      const int32_t n_block = (t.n * Cfg::kBlockN) / Cfg::kScaleAtomRows;
      const bool even_cta = ctx.even_cta;
      const uint64_t hint_a = p.cache_hint_a, hint_b = p.cache_hint_b;
      return [this, m_block, n_block, ab, wb, even_cta, hint_a, hint_b](uint32_t base, uint32_t bar,
                                                                        int32_t kb) {
        const int32_t atom = kb * Cfg::kScaleAtomsPerStage;
        nvfp4_load_sfa<Cfg>(base + Cfg::kSfaOffset, &p.tmap_sfa, bar, atom, m_block, ab, hint_a);
        if (even_cta) {
          nvfp4_load_sfb<Cfg>(base + Cfg::kSfb1Offset, &p.tmap_sfb1, bar, atom, n_block, wb, hint_b);
          nvfp4_load_sfb<Cfg>(base + Cfg::kSfb2Offset, &p.tmap_sfb2, bar, atom, n_block, wb, hint_b);
        }
      };
    }
  }

  // Per stage: the scale atoms into tensor memory (tcgen05.cp), then kMmasPerStage pairs of block-scaled
  // MMAs; the gate MMA loads A into the collector buffer, the up MMA reuses it and releases it.
  template <class Tile>
  BWGEMM_DEVICE auto mma_tile(const KernelContext<Cfg>& ctx, const Tile& t, uint32_t acc1) const {
    using namespace ::bwgemm::ptx;
    constexpr int kCtaGroup = Cfg::kClusterCtas;
    constexpr uint32_t idesc = kNvfp4MmaInstrDesc<Cfg>;
    const uint32_t sfb_group = nvfp4_sfb_group<Cfg>(t);
    const uint32_t acc2 = acc1 + Cfg::kBlockN;
    const uint32_t tmem = ctx.tmem;
    return [tmem, sfb_group, acc1, acc2](uint32_t base, int32_t kb) {
      nvfp4_copy_scales<Cfg>(tmem, base,
                             Nvfp4ScaleCopy{Cfg::kSfaOffset, Cfg::kSfaColumn, Cfg::kScaleColumnsPerAtomA},
                             Nvfp4ScaleCopy{Cfg::kSfb1Offset, Cfg::kSfb1Column, Cfg::kScaleColumnsPerAtomB},
                             Nvfp4ScaleCopy{Cfg::kSfb2Offset, Cfg::kSfb2Column, Cfg::kScaleColumnsPerAtomB});
      const uint64_t a_desc = smem_desc_with_address(detail::kOperandDescBase, base + Cfg::kAOffset);
      const uint64_t b1_desc = smem_desc_with_address(detail::kOperandDescBase, base + Cfg::kB1Offset);
      const uint64_t b2_desc = smem_desc_with_address(detail::kOperandDescBase, base + Cfg::kB2Offset);
#pragma unroll
      for (uint32_t j = 0; j < Cfg::kMmasPerStage; ++j) {
        const uint32_t k_bytes = j * (Cfg::kMmaK / 2);  // advance 32 bytes (64 fp4) inside the swizzled rows
        const uint32_t sfa = tmem + Cfg::kSfaColumn + j * Cfg::kScaleColumnsPerAtomA;
        const uint32_t sfb1 = tmem + Cfg::kSfb1Column + j * Cfg::kScaleColumnsPerAtomB + sfb_group;
        const uint32_t sfb2 = tmem + Cfg::kSfb2Column + j * Cfg::kScaleColumnsPerAtomB + sfb_group;
        const bool accumulate = kb > 0 || j > 0;
        const uint64_t a = smem_desc_advanced(a_desc, k_bytes);
        tcgen05_mma_mxf4nvf4<kCtaGroup, CollectorUsage::kFill>(acc1, a, smem_desc_advanced(b1_desc, k_bytes),
                                                               idesc, sfa, sfb1, accumulate);
        tcgen05_mma_mxf4nvf4<kCtaGroup, CollectorUsage::kLastUse>(
            acc2, a, smem_desc_advanced(b2_desc, k_bytes), idesc, sfa, sfb2, accumulate);
      }
    };
  }

  // The per-tensor scales with their device-pointer parts read (once per epilogue thread, before the tile
  // loop): the alphas and, for an NVFP4 C, C's global scale (nvfp4_output_global_scale).
  struct Scales {
    epi::DualScales alphas;
    float out_global_scale;
  };
  BWGEMM_DEVICE Scales epilogue_scales() const {
    if constexpr (Cfg::kNvfp4Out) {
      return Scales{epi::dual_scales(p), nvfp4_output_global_scale(p)};
    } else {
      return Scales{epi::dual_scales(p), 1.0f};
    }
  }

  // Row `row` of the tile (inside M): Nvfp4DualTileStore, or the NVFP4 output's store for an NVFP4 C.
  template <class Tile>
  BWGEMM_DEVICE auto epilogue_tile(const KernelContext<Cfg>& ctx, const Tile& t, int32_t row,
                                   const Scales& s) const {
    if constexpr (Cfg::kNvfp4Out) {
      return nvfp4_tile_store(ctx, t, row, s);
    } else {
      return tile_store(t, row, s);
    }
  }

  template <class Tile>
  BWGEMM_DEVICE Nvfp4DualTileStore<Cfg> tile_store(const Tile& t, int32_t row, const Scales& s) const {
    // The byte offset as unsigned wide multiply-adds of the non-negative 32-bit row and batch indices by the
    // byte strides (computed once, below): no sign extension, no scaling by the element size per tile.
    auto* const out_row = reinterpret_cast<typename Cfg::Out*>(
        c_bytes + static_cast<uint64_t>(static_cast<uint32_t>(row)) * ldc_bytes +
        static_cast<uint64_t>(static_cast<uint32_t>(t.batch)) * batch_stride_bytes);
    return Nvfp4DualTileStore<Cfg>{p, s.alphas, out_row};
  }

  // The per-tile fast path (roles.cuh), a 16-bit C only: C's layout for the record thread, and chunk `chunk`
  // of a tile row whose first column is at `row`.
  template <bool B = !Cfg::kNvfp4Out, std::enable_if_t<B, int> = 0>
  BWGEMM_DEVICE FastOutput fast_output() const {
    return {c_bytes, ldc_bytes, batch_stride_bytes, static_cast<int32_t>(sizeof(typename Cfg::CElement)),
            fast_tiles_n};
  }
  BWGEMM_DEVICE BWGEMM_FORCEINLINE void fast_chunk(char* row, int chunk,
                                                   const uint32_t (&values)[2][Cfg::kEpilogueColumns]) const {
    detail::dual_fast_chunk(p, reinterpret_cast<typename Cfg::Out*>(row) + chunk * Cfg::kEpilogueColumns,
                            values);
  }

  // NVFP4 C: nvfp4_output_tile_store (which also writes the scale padding of rows past M).
  template <class Tile>
  BWGEMM_DEVICE auto nvfp4_tile_store(const KernelContext<Cfg>& ctx, const Tile& t, int32_t row,
                                      const Scales& s) const {
    return nvfp4_output_tile_store<Nvfp4DualQuantizeValue, 2>(ctx, p, s.alphas, s.out_global_scale,
                                                              reinterpret_cast<uint8_t*>(c_bytes), t, row);
  }

  // Per CTA, once: the tile columns that take the fast path, 0 .. fast_tiles_n - 1: those whose every column
  // is inside N when both alphas are 1 and C's rows are 32-byte aligned (the path's other conditions), none
  // otherwise.
  const int32_t fast_tiles_n = p.unit_alphas && p.c_aligned32 ? p.n / Cfg::kBlockN : 0;
  // C's address and strides in bytes.
  char* const c_bytes = reinterpret_cast<char*>(p.c);
  const uint64_t ldc_bytes = static_cast<uint64_t>(p.ldc) * sizeof(typename Cfg::CElement);
  const uint64_t batch_stride_bytes =
      static_cast<uint64_t>(p.batch_stride_c) * sizeof(typename Cfg::CElement);
};

template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    nvfp4_dual_gemm_kernel(const __grid_constant__ Nvfp4DualGemmParams<Cfg> p) {
  run_kernel<Cfg, Nvfp4DualGemmRoles<Cfg>>(p);
}

}  // namespace bwgemm::sm100
