// The warp-specialized sm_100a FP16/BF16 GEMM (seed 004's design):
//   D[m, n, l] = Epilogue(sum_k A[m,k,l] B[k,n,l] [, C[m,n,l]])   (default: alpha · A·B + beta · C)
//
// Warp roles (per CTA; roles.cuh runs them, GemmRoles below says what this kernel's do):
//   warps 0-3  epilogue: tensor memory -> registers -> functor (with C when it reads it) -> global
//   warp 4     producer: TMA of the A and B tiles of every stage
//   warp 5     MMA: allocates tensor memory; in the even CTA issues tcgen05.mma.kind::f16
//   warp 6     scheduler: initialises the barriers; with CLC, cancels not-yet-started clusters for work
//
// Pipelines (the same as the dual GEMM's, nvfp4_dual_gemm_kernel.cuh; docs/kernels.md has the diagram):
//   full[s]      even CTA, ClusterCtas arrivals + transaction bytes: stage s has landed in both CTAs
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
#include "bwgemm/kernels/sm100/gemm_config.cuh"
#include "bwgemm/kernels/sm100/gemm_epilogue.cuh"
#include "bwgemm/kernels/sm100/roles.cuh"
#include "bwgemm/ptx/ptx.cuh"
#include "bwgemm/scheduler/tile_order.cuh"

namespace bwgemm::sm100 {

// Kernel parameters. Passed as a __grid_constant__, so the tensor maps stay in parameter space.
template <class Cfg>
struct GemmParams {
  using Out = typename Cfg::Out;
  CUtensorMap tmap_a;  // (K, M, L), box (64, 128, 1), 128B swizzle
  CUtensorMap tmap_b;  // N x K: (K, N, L), box (64, BlockN / ClusterCtas, 1), 128B swizzle;
                       // K x N: (N, K, L), box (kBChunkColumns, 64, 1), swizzle of kBMnSpanBytes; with
                       // b_one_box (kBChunkColumns, K, N / kBChunkColumns, L), box (kBChunkColumns, 64,
                       // kBChunks, 1)
  Out* d = nullptr;
  const Out* c = nullptr;  // read only when read_c
  int64_t ldd = 0, batch_stride_d = 0;
  int64_t ldc = 0, batch_stride_c = 0;
  int32_t m = 0, n = 0, k = 0;
  sched::TileGrid tiles{};
  int32_t num_clusters = 0;
  uint32_t idesc = 0;        // Cfg::instr_desc(input type, B layout)
  GemmBOperand b{};          // Cfg::b_operand(B layout)
  bool b_mn_major = false;   // B is K x N row-major: loaded in N chunks
  bool b_one_box = false;    // and N is a multiple of kBChunkColumns: all chunks of a stage in one box
  bool read_c = false;       // the epilogue takes C (epi::reads_source)
  bool identity = false;     // the functor returns the accumulator unchanged (epi::is_identity): not called
  bool d_aligned32 = false;  // every row of D starts 32-byte aligned: 256-bit stores
  typename Cfg::Epilogue epilogue{};  // its device-pointer scales read once per CTA (epi::with_device_scales)
};

namespace detail {

// Applies the functor to 8 accumulator columns (and 8 values of C) and stores them to D.
template <class Cfg>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void gemm_epilogue8(const GemmParams<Cfg>& p,
                                                     const typename Cfg::Epilogue& f, const uint32_t* acc,
                                                     typename Cfg::Out* d, const typename Cfg::Out* c) {
  float out[epi::kStoreVector];
  gemm_apply8<Cfg>(p, f, acc, c, out);
  epi::store8(d, out);
}

}  // namespace detail

// The epilogue's store of one tile row (run_epilogue calls it per chunk of kEpilogueColumns columns) off the
// per-tile fast path (GemmRoles::fast_chunk). A chunk inside N is stored whole, without per-vector bounds
// checks, through the functor where it is not the identity, in 256-bit stores where D's rows are 32-byte
// aligned; a chunk that crosses N (the last tile column) is stored 8 columns at a time up to N (a multiple of
// 8). F: how the store holds the functor (a reference to the per-CTA one; the grouped kernels' per-expert one
// by value).
template <class Cfg, class F = const typename Cfg::Epilogue&>
struct GemmTileStore {
  using Out = typename Cfg::Out;
  static constexpr int kColumns = Cfg::kEpilogueColumns;
  const GemmParams<Cfg>& p;
  F f;  // p.epilogue with its device scales read (GemmRoles::epilogue_scales)
  Out* d_row;
  int32_t row, batch;  // the row of D (and C) and the batch, for C's row on the path that reads it

  // C's row, where the call reads C (only off the fast path: the identity reads no C), else nullptr.
  BWGEMM_DEVICE BWGEMM_FORCEINLINE const Out* c_row() const {
    return p.read_c ? p.c + batch * p.batch_stride_c + static_cast<int64_t>(row) * p.ldc : nullptr;
  }

  BWGEMM_DEVICE BWGEMM_FORCEINLINE void operator()(int32_t col, const uint32_t (&values)[1][kColumns]) const {
    const Out* const c = c_row();
    if (col + kColumns <= p.n) {
      float out[kColumns];
      if (p.identity) {
#pragma unroll
        for (int i = 0; i < kColumns; ++i) out[i] = bits_to_f32(values[0][i]);
      } else {
#pragma unroll
        for (int v = 0; v < kColumns; v += epi::kStoreVector)
          detail::gemm_apply8<Cfg>(p, f, values[0] + v, c == nullptr ? nullptr : c + col + v, out + v);
      }
      epi::store_row(d_row + col, out, p.d_aligned32);
      return;
    }
#pragma unroll
    for (int v = 0; v < kColumns; v += epi::kStoreVector) {
      if (col + v + epi::kStoreVector > p.n) break;  // N is a multiple of 8: whole vectors only
      detail::gemm_epilogue8<Cfg>(p, f, values[0] + v, d_row + col + v, c == nullptr ? nullptr : c + col + v);
    }
  }
};

// What the GEMM's roles do (roles.cuh runs them): one producer loads A and B, the MMA warp issues
// kind::f16 MMAs into one accumulator, the epilogue applies the functor (with C when it reads it).
template <class Cfg>
struct GemmRoles {
  static constexpr int kAccumulators = 1;
  const GemmParams<Cfg>& p;

  BWGEMM_DEVICE void prefetch_tensor_maps() const {
    ptx::tma_prefetch_descriptor(&p.tmap_a);
    ptx::tma_prefetch_descriptor(&p.tmap_b);
  }

  template <int I>
  BWGEMM_DEVICE uint32_t producer_tx_bytes(const KernelContext<Cfg>&) const {
    return Cfg::kStageTxBytes;
  }

  // This CTA's A rows and B columns of the cluster tile, K block kb (Tile: a dense or a grouped tile,
  // sched/grouped_tiles.cuh).
  template <int I, class Tile>
  BWGEMM_DEVICE auto producer_tile(const KernelContext<Cfg>& ctx, const Tile& tile) const {
    constexpr int kCtaGroup = Cfg::kClusterCtas;
    const int32_t m0 =
        sched::first_row(tile, Cfg::kClusterBlockM) + static_cast<int32_t>(ctx.rank) * Cfg::kBlockM;
    const int32_t n0 = tile.n * Cfg::kBlockN + static_cast<int32_t>(ctx.rank) * Cfg::kBColumnsPerCta;
    const int32_t ab = tile.batch, wb = sched::weight_batch(tile);  // A's batch, B's
    return [this, m0, n0, ab, wb](uint32_t base, uint32_t bar, int32_t kb) {
      const int32_t k0 = kb * Cfg::kBlockK;
      ptx::tma_load<kCtaGroup>(base + Cfg::kAOffset, &p.tmap_a, bar, {k0, m0, ab});
      if (p.b_mn_major) {
        if (p.b_one_box) {  // the stage's kBChunks chunks as one box of the rank-4 chunk map
          ptx::tma_load<kCtaGroup>(base + Cfg::kBOffset, &p.tmap_b, bar,
                                   {0, k0, n0 / Cfg::kBChunkColumns, wb});
        } else {
          for (int32_t c = 0; c < Cfg::kBChunks; ++c)
            ptx::tma_load<kCtaGroup>(base + Cfg::kBOffset + c * Cfg::kBChunkBytes, &p.tmap_b, bar,
                                     {n0 + c * Cfg::kBChunkColumns, k0, wb});
        }
      } else {
        ptx::tma_load<kCtaGroup>(base + Cfg::kBOffset, &p.tmap_b, bar, {k0, n0, wb});
      }
    };
  }

  // kMmasPerStage MMAs of K = 16 per stage into the tile's accumulator; the first of the tile overwrites it.
  template <class Tile>
  BWGEMM_DEVICE auto mma_tile(const KernelContext<Cfg>&, const Tile&, uint32_t d_tmem) const {
    const uint32_t idesc = p.idesc;
    const GemmBOperand b = p.b;
    return [d_tmem, idesc, b](uint32_t base, int32_t kb) {
      // The stage's descriptors once; each K step moves them by its bytes (smem_desc_advanced).
      const uint64_t a_desc = ptx::smem_desc_with_address(Cfg::kKMajorDescBase, base + Cfg::kAOffset);
      const uint64_t b_desc = ptx::smem_desc_with_address(b.desc_base, base + Cfg::kBOffset);
#pragma unroll
      for (uint32_t j = 0; j < Cfg::kMmasPerStage; ++j) {
        ptx::tcgen05_mma_f16<Cfg::kClusterCtas>(d_tmem, smem_desc_advanced(a_desc, j * Cfg::kKMajorStepBytes),
                                                smem_desc_advanced(b_desc, j * b.k_step_bytes), idesc,
                                                kb > 0 || j > 0);
      }
    };
  }

  // The functor with its device-pointer scales read (once per epilogue thread, before the tile loop).
  BWGEMM_DEVICE typename Cfg::Epilogue epilogue_scales() const {
    return epi::with_device_scales(p.epilogue);
  }

  // Row `row` of the tile (inside M), kEpilogueColumns columns at a time: GemmTileStore.
  template <class Tile>
  BWGEMM_DEVICE GemmTileStore<Cfg> epilogue_tile(const KernelContext<Cfg>& ctx, const Tile& t, int32_t row,
                                                 const typename Cfg::Epilogue& f) const {
    return tile_store<const typename Cfg::Epilogue&>(ctx, t, row, f);
  }

  // The store of row `row` of tile t with the functor f, held as F.
  template <class F, class Tile>
  BWGEMM_DEVICE GemmTileStore<Cfg, F> tile_store(const KernelContext<Cfg>&, const Tile& t, int32_t row,
                                                 const typename Cfg::Epilogue& f) const {
    using Out = typename Cfg::Out;
    // The byte offset as unsigned wide multiply-adds of the non-negative 32-bit row and batch indices by the
    // byte strides (computed once, below): no sign extension, no scaling by the element size per tile.
    Out* const d_row =
        reinterpret_cast<Out*>(d_bytes + static_cast<uint64_t>(static_cast<uint32_t>(row)) * ldd_bytes +
                               static_cast<uint64_t>(static_cast<uint32_t>(t.batch)) * batch_stride_d_bytes);
    return GemmTileStore<Cfg, F>{p, f, d_row, row, t.batch};
  }

  // The per-tile fast path (roles.cuh): D's layout for the record thread, and chunk `chunk` of a tile row
  // whose first column is at `row`.
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
  // is inside N when D = A·B and D's rows are 32-byte aligned (the path's other conditions), none otherwise.
  const int32_t fast_tiles_n = p.identity && p.d_aligned32 ? p.n / Cfg::kBlockN : 0;
  // D's address and strides in bytes.
  char* const d_bytes = reinterpret_cast<char*>(p.d);
  const uint64_t ldd_bytes = static_cast<uint64_t>(p.ldd) * sizeof(typename Cfg::Out);
  const uint64_t batch_stride_d_bytes = static_cast<uint64_t>(p.batch_stride_d) * sizeof(typename Cfg::Out);
};

template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1) gemm_kernel(const __grid_constant__ GemmParams<Cfg> p) {
  run_kernel<Cfg, GemmRoles<Cfg>>(p);
}

}  // namespace bwgemm::sm100
