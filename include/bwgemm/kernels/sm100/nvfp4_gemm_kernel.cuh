// The warp-specialized sm_100a NVFP4 GEMM:
//   D[m, n, l] = Epilogue(sum_k A[m,k,l] B[n,k,l] [, C[m,n,l]])   (default: alpha · A·Bᵀ + beta · C)
//
// The NVFP4 dual GEMM's kernel (nvfp4_dual_gemm_kernel.cuh) with one B operand and one accumulator, and the
// GEMM's epilogue (gemm_kernel.cuh). Warp roles (per CTA; roles.cuh runs them, Nvfp4GemmRoles below says what
// this kernel's do):
//   warps 0-3  epilogue: tensor memory -> registers -> functor (with C when it reads it) -> global; with
//              Out = Nvfp4Output, the functor's values quantized to NVFP4 (nvfp4_output_store.cuh)
//   warp 4     operand producer: TMA of the A and B tiles of every stage
//   warp 5     scale producer: TMA of SFA (own rows) and, in the even CTA, SFB multicast to the pair
//   warp 6     MMA: allocates tensor memory; in the even CTA, copies the scales to tensor memory
//              (tcgen05.cp) and issues the block-scaled tcgen05.mma (kind::mxf4nvf4)
//   warp 7     scheduler: initialises the barriers; with CLC, cancels not-yet-started clusters for work
//
// Pipelines: the dual GEMM's (full / empty per stage, acc_full / acc_empty per accumulator stage, the CLC
// response ring); docs/kernels.md has the diagram.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <type_traits>

#include "bwgemm/epilogue/store.cuh"
#include "bwgemm/formats/bits.cuh"
#include "bwgemm/isa/descriptors.hpp"
#include "bwgemm/kernels/sm100/common.cuh"
#include "bwgemm/kernels/sm100/gemm_epilogue.cuh"
#include "bwgemm/kernels/sm100/nvfp4_gemm_config.cuh"
#include "bwgemm/kernels/sm100/nvfp4_operands.cuh"
#include "bwgemm/kernels/sm100/nvfp4_output_store.cuh"
#include "bwgemm/kernels/sm100/roles.cuh"
#include "bwgemm/ptx/ptx.cuh"
#include "bwgemm/scheduler/tile_order.cuh"

namespace bwgemm::sm100 {

// Kernel parameters. Passed as a __grid_constant__, so the tensor maps stay in parameter space.
template <class Cfg>
struct Nvfp4GemmParams : Nvfp4OutputParams<Cfg::kNvfp4Out> {  // NVFP4 D: its scales and global scale
  using Out = typename Cfg::Out;
  using DElement = typename Cfg::DElement;
  CUtensorMap tmap_a;    // packed e2m1, (K, M, L), box (256, 128, 1), 128B swizzle
  CUtensorMap tmap_b;    // packed e2m1, (K, N, L), box (256, BlockN / ClusterCtas, 1)
  CUtensorMap tmap_sfa;  // blocked scales as u16, (256, K/64 atoms, M/128 blocks, L), box (256, 4, 1, 1)
  CUtensorMap tmap_sfb;  // same for B's N rows
  // m x n row-major per batch, row stride ldd, batch stride batch_stride_d; NVFP4 D: packed bytes, ldd = n /
  // 2
  DElement* d = nullptr;
  const DElement* c = nullptr;  // read only when read_c (never with an NVFP4 D); row stride ldc
  int64_t ldd = 0, ldc = 0;
  int64_t batch_stride_d = 0;  // elements (m · ldd; C's is m · ldc)
  int32_t m = 0, n = 0, k = 0;
  sched::TileGrid tiles{};
  int32_t num_clusters = 0;
  uint64_t cache_hint_a = 0, cache_hint_b = 0;  // ptx::kL2Evict* policies (used when Cfg::kHints != kNone)
  bool read_c = false;                          // the epilogue takes C (epi::reads_source)
  bool identity = false;     // the functor returns the accumulator unchanged (epi::is_identity): not called
  bool d_aligned32 = false;  // every row of D starts 32-byte aligned: 256-bit stores
  typename Cfg::Epilogue epilogue{};  // its device-pointer scales read once per CTA (epi::with_device_scales)
};

// The epilogue's store of one tile row (run_epilogue calls it per chunk of kEpilogueColumns columns), the
// GEMM's (GemmTileStore), off the per-tile fast path (Nvfp4GemmRoles::fast_chunk). A chunk inside N is
// stored whole through the functor (with C where it reads it), in 256-bit stores where D's
// rows are 32-byte aligned; a chunk that crosses N is stored 8 columns at a time up to N (a multiple of 16).
// F: how the store holds the functor (a reference to the per-CTA one; the grouped kernels' per-expert one by
// value).
template <class Cfg, class F = const typename Cfg::Epilogue&>
struct Nvfp4GemmTileStore {
  using Out = typename Cfg::Out;
  static constexpr int kColumns = Cfg::kEpilogueColumns;
  const Nvfp4GemmParams<Cfg>& p;
  F f;  // p.epilogue with its device scales read (Nvfp4GemmRoles::epilogue_scales)
  Out* d_row;
  const Out* c_row;  // C's row where the call reads C, else nullptr

  BWGEMM_DEVICE BWGEMM_FORCEINLINE void operator()(int32_t col, const uint32_t (&values)[1][kColumns]) const {
    const Out* const c = c_row == nullptr ? nullptr : c_row + col;
    if (col + kColumns <= p.n) {
      float out[kColumns];
      if (p.identity) {
#pragma unroll
        for (int i = 0; i < kColumns; ++i) out[i] = bits_to_f32(values[0][i]);
      } else {
#pragma unroll
        for (int v = 0; v < kColumns; v += epi::kStoreVector)
          detail::gemm_apply8<Cfg>(p, f, values[0] + v, c == nullptr ? nullptr : c + v, out + v);
      }
      epi::store_row(d_row + col, out, p.d_aligned32);
      return;
    }
#pragma unroll
    for (int v = 0; v < kColumns; v += epi::kStoreVector) {
      if (col + v + epi::kStoreVector > p.n) break;  // N is a multiple of 16: whole vectors only
      float out[epi::kStoreVector];
      detail::gemm_apply8<Cfg>(p, f, values[0] + v, c == nullptr ? nullptr : c + v, out);
      epi::store8(d_row + col + v, out);
    }
  }
};

// NVFP4 D (Cfg::kNvfp4Out; nvfp4_output_store.cuh quantizes and stores): output column i of a chunk is
// f(acc), f the functor with its device scales read (Nvfp4GemmRoles::epilogue_scales); the accumulator itself
// for the identity functor (epi::is_identity, which a device alpha_ptr rules out).
struct Nvfp4GemmQuantizeValue {
  template <class Params, class Epilogue, int Columns>
  BWGEMM_DEVICE static BWGEMM_FORCEINLINE float at(const Params& p, const Epilogue& f,
                                                   const uint32_t (&values)[1][Columns], int i) {
    const float acc = bits_to_f32(values[0][i]);
    return p.identity ? acc : f(acc);
  }
};

// What the NVFP4 GEMM's roles do (roles.cuh runs them): producer 0 loads A and B, producer 1 the two scale
// tiles; the MMA warp copies the scales to tensor memory and issues the block-scaled MMAs into one
// accumulator; the epilogue applies the functor (with C when it reads it).
template <class Cfg>
struct Nvfp4GemmRoles {
  static constexpr int kAccumulators = 1;
  const Nvfp4GemmParams<Cfg>& p;

  BWGEMM_DEVICE void prefetch_tensor_maps() const {
    ptx::tma_prefetch_descriptor(&p.tmap_a);
    ptx::tma_prefetch_descriptor(&p.tmap_b);
  }

  template <int I>
  BWGEMM_DEVICE uint32_t producer_tx_bytes(const KernelContext<Cfg>& ctx) const {
    if constexpr (I == Cfg::kOperandProducer) return Cfg::kOperandTxBytes;
    return ctx.even_cta ? Cfg::kScaleTxBytesEven : Cfg::kScaleTxBytesOdd;
  }

  template <int I, class Tile>
  BWGEMM_DEVICE auto producer_tile(const KernelContext<Cfg>& ctx, const Tile& t) const {
    constexpr int kCtaGroup = Cfg::kClusterCtas;
    constexpr bool kHinted = Cfg::kHints != L2CacheHints::kNone;
    const int32_t m0 =
        sched::first_row(t, Cfg::kClusterBlockM) + static_cast<int32_t>(ctx.rank) * Cfg::kBlockM;
    const int32_t ab = t.batch, wb = sched::weight_batch(t);  // A's batch, B's
    const uint64_t hint_a = p.cache_hint_a, hint_b = p.cache_hint_b;
    if constexpr (I == Cfg::kOperandProducer) {
      // This CTA's A rows and its half of the B rows of the cluster tile.
      const int32_t nb = t.n * Cfg::kBlockN + static_cast<int32_t>(ctx.rank) * Cfg::kBRowsPerCta;
      return [this, m0, nb, ab, wb, hint_a, hint_b](uint32_t base, uint32_t bar, int32_t kb) {
        const int32_t k0 = kb * Cfg::kBlockK;
        if constexpr (kHinted) {
          ptx::tma_load<kCtaGroup>(base + Cfg::kAOffset, &p.tmap_a, bar, {k0, m0, ab}, hint_a);
          ptx::tma_load<kCtaGroup>(base + Cfg::kBOffset, &p.tmap_b, bar, {k0, nb, wb}, hint_b);
        } else {
          ptx::tma_load<kCtaGroup>(base + Cfg::kAOffset, &p.tmap_a, bar, {k0, m0, ab});
          ptx::tma_load<kCtaGroup>(base + Cfg::kBOffset, &p.tmap_b, bar, {k0, nb, wb});
        }
      };
    } else {
      // SFA of this CTA's rows; the even CTA multicasts SFB of the 128-row scale block holding the tile's N
      // columns to the pair.
      const int32_t m_block = sched::scale_row(t, m0) / Cfg::kScaleAtomRows;
      const int32_t n_block = (t.n * Cfg::kBlockN) / Cfg::kScaleAtomRows;
      const bool even_cta = ctx.even_cta;
      return [this, m_block, n_block, ab, wb, even_cta, hint_a, hint_b](uint32_t base, uint32_t bar,
                                                                        int32_t kb) {
        const int32_t atom = kb * Cfg::kScaleAtomsPerStage;
        nvfp4_load_sfa<Cfg>(base + Cfg::kSfaOffset, &p.tmap_sfa, bar, atom, m_block, ab, hint_a);
        if (!even_cta) return;
        nvfp4_load_sfb<Cfg>(base + Cfg::kSfbOffset, &p.tmap_sfb, bar, atom, n_block, wb, hint_b);
      };
    }
  }

  // Per stage: the scale atoms into tensor memory (tcgen05.cp), then kMmasPerStage block-scaled MMAs; the
  // first of the tile overwrites the accumulator.
  template <class Tile>
  BWGEMM_DEVICE auto mma_tile(const KernelContext<Cfg>& ctx, const Tile& t, uint32_t acc) const {
    using namespace ::bwgemm::ptx;
    constexpr int kCtaGroup = Cfg::kClusterCtas;
    constexpr uint32_t idesc = kNvfp4MmaInstrDesc<Cfg>;
    const uint32_t sfb_group = nvfp4_sfb_group<Cfg>(t);
    const uint32_t tmem = ctx.tmem;
    return [tmem, sfb_group, acc](uint32_t base, int32_t kb) {
      nvfp4_copy_scales<Cfg>(tmem, base,
                             Nvfp4ScaleCopy{Cfg::kSfaOffset, Cfg::kSfaColumn, Cfg::kScaleColumnsPerAtomA},
                             Nvfp4ScaleCopy{Cfg::kSfbOffset, Cfg::kSfbColumn, Cfg::kScaleColumnsPerAtomB});
      const uint64_t a_desc = smem_desc_with_address(detail::kOperandDescBase, base + Cfg::kAOffset);
      const uint64_t b_desc = smem_desc_with_address(detail::kOperandDescBase, base + Cfg::kBOffset);
#pragma unroll
      for (uint32_t j = 0; j < Cfg::kMmasPerStage; ++j) {
        const uint32_t k_bytes = j * (Cfg::kMmaK / 2);  // advance 32 bytes (64 fp4) inside the swizzled rows
        const uint32_t sfa = tmem + Cfg::kSfaColumn + j * Cfg::kScaleColumnsPerAtomA;
        const uint32_t sfb = tmem + Cfg::kSfbColumn + j * Cfg::kScaleColumnsPerAtomB + sfb_group;
        tcgen05_mma_mxf4nvf4<kCtaGroup>(acc, smem_desc_advanced(a_desc, k_bytes),
                                        smem_desc_advanced(b_desc, k_bytes), idesc, sfa, sfb,
                                        kb > 0 || j > 0);
      }
    };
  }

  // The per-tensor scales with their device-pointer parts read (once per epilogue thread, before the tile
  // loop): the functor (epi::with_device_scales: alpha_ptr, beta_ptr) and, for an NVFP4 D, D's global scale
  // (nvfp4_output_global_scale).
  struct Scales {
    typename Cfg::Epilogue epilogue;
    float out_global_scale;
  };
  BWGEMM_DEVICE Scales epilogue_scales() const {
    if constexpr (Cfg::kNvfp4Out) {
      return Scales{epi::with_device_scales(p.epilogue), nvfp4_output_global_scale(p)};
    } else {
      return Scales{epi::with_device_scales(p.epilogue), 1.0f};
    }
  }

  // Row `row` of the tile (inside M): Nvfp4GemmTileStore, or the NVFP4 output's store for an NVFP4 D
  // (nvfp4_output_tile_store, which also writes the scale padding of rows past M).
  template <class Tile>
  BWGEMM_DEVICE auto epilogue_tile(const KernelContext<Cfg>& ctx, const Tile& t, int32_t row,
                                   const Scales& s) const {
    if constexpr (Cfg::kNvfp4Out) {
      return nvfp4_output_tile_store<Nvfp4GemmQuantizeValue, 1>(ctx, p, s.epilogue, s.out_global_scale,
                                                                reinterpret_cast<uint8_t*>(d_bytes), t, row);
    } else {
      return tile_store<const typename Cfg::Epilogue&>(t, row, s.epilogue);
    }
  }

  // The store of row `row` of tile t with the functor f, held as F.
  template <class F, class Tile>
  BWGEMM_DEVICE Nvfp4GemmTileStore<Cfg, F> tile_store(const Tile& t, int32_t row,
                                                      const typename Cfg::Epilogue& f) const {
    using Out = typename Cfg::Out;
    // The byte offsets as unsigned wide multiply-adds of the non-negative 32-bit row and batch indices by the
    // byte strides (computed once, below): no sign extension, no scaling by the element size per tile.
    const uint64_t r = static_cast<uint32_t>(row), l = static_cast<uint32_t>(t.batch);
    Out* const d_row = reinterpret_cast<Out*>(d_bytes + r * ldd_bytes + l * batch_stride_d_bytes);
    const Out* const c_row =
        p.read_c ? reinterpret_cast<const Out*>(c_bytes + r * ldc_bytes + l * batch_stride_c_bytes) : nullptr;
    return Nvfp4GemmTileStore<Cfg, F>{p, f, d_row, c_row};
  }

  // The per-tile fast path (roles.cuh), a 16-bit or fp32 D only: D's layout for the record thread, and chunk
  // `chunk` of a tile row whose first column is at `row`.
  template <bool B = !Cfg::kNvfp4Out, std::enable_if_t<B, int> = 0>
  BWGEMM_DEVICE FastOutput fast_output() const {
    return {d_bytes, ldd_bytes, batch_stride_d_bytes, static_cast<int32_t>(sizeof(typename Cfg::Out)),
            fast_tiles_n};
  }
  BWGEMM_DEVICE BWGEMM_FORCEINLINE void fast_chunk(char* row, int chunk,
                                                   const uint32_t (&values)[1][Cfg::kEpilogueColumns]) const {
    detail::gemm_fast_chunk(reinterpret_cast<typename Cfg::Out*>(row) + chunk * Cfg::kEpilogueColumns,
                            values);
  }

  // Per CTA, once: the tile columns that take the fast path, 0 .. fast_tiles_n - 1: those whose every column
  // is inside N when D = A·Bᵀ and D's rows are 32-byte aligned (the path's other conditions), none otherwise.
  const int32_t fast_tiles_n = p.identity && p.d_aligned32 ? p.n / Cfg::kBlockN : 0;
  // D's and C's addresses and strides in bytes (C's batches are M rows apart).
  char* const d_bytes = reinterpret_cast<char*>(p.d);
  const char* const c_bytes = reinterpret_cast<const char*>(p.c);
  const uint64_t ldd_bytes = static_cast<uint64_t>(p.ldd) * sizeof(typename Cfg::DElement);
  const uint64_t ldc_bytes = static_cast<uint64_t>(p.ldc) * sizeof(typename Cfg::DElement);
  const uint64_t batch_stride_d_bytes =
      static_cast<uint64_t>(p.batch_stride_d) * sizeof(typename Cfg::DElement);
  const uint64_t batch_stride_c_bytes = static_cast<uint64_t>(p.m) * ldc_bytes;
};

template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    nvfp4_gemm_kernel(const __grid_constant__ Nvfp4GemmParams<Cfg> p) {
  run_kernel<Cfg, Nvfp4GemmRoles<Cfg>>(p);
}

}  // namespace bwgemm::sm100
