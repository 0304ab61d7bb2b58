// The warp-specialized sm_100a NVFP4 dual GEMM with a fused epilogue:
//   C[m, n, l] = Epilogue(sum_k A[m,k,l] B1[n,k,l], sum_k A[m,k,l] B2[n,k,l])   (default: SiLU-gated)
//
// Warp roles (per CTA, DualGemmConfig names them):
//   warps 0-3  epilogue: tensor memory -> registers -> functor -> global, one 32-lane quarter each
//   warp 4     operand producer: TMA of the A, B1 and B2 tiles of every stage
//   warp 5     scale producer: TMA of SFA (own rows) and, in the even CTA, SFB1/SFB2 multicast to the pair
//   warp 6     MMA: allocates tensor memory; in the even CTA, copies the scales to tensor memory
//              (tcgen05.cp) and issues both GEMMs' tcgen05.mma, reusing A through the collector buffer
//   warp 7     scheduler: initialises the barriers; with CLC, cancels not-yet-started clusters for work
//
// Pipelines (docs/kernels.md has the diagram):
//   full[s]      even CTA, 2 x CtaGroup arrivals + transaction bytes: stage s has landed in both CTAs
//   empty[s]     every CTA, 1 arrival (tcgen05.commit multicast): the MMAs reading stage s are done
//   acc_full[a]  every CTA, 1 arrival (commit multicast): accumulator stage a holds a finished tile
//   acc_empty[a] even CTA, 4 x CtaGroup arrivals: the epilogue warps have read accumulator stage a
//   clc_full/clc_empty: the Cluster Launch Control response ring (scheduler/ClcWorkStealing)
#pragma once

#include <cuda.h>

#include <cstdint>

#include "bwgemm/epilogue/store.cuh"
#include "bwgemm/formats/bits.cuh"
#include "bwgemm/kernels/sm100/common.cuh"
#include "bwgemm/kernels/sm100/dual_gemm_config.cuh"
#include "bwgemm/ptx/descriptors.hpp"
#include "bwgemm/ptx/ptx.cuh"
#include "bwgemm/scheduler/tile_order.cuh"

namespace bwgemm::sm100 {

// Kernel parameters. Passed as a __grid_constant__, so the tensor maps stay in parameter space.
template <class Cfg>
struct DualGemmParams {
  CUtensorMap tmap_a;   // packed e2m1, (K, M, L), box (256, 128, 1), 128B swizzle
  CUtensorMap tmap_b1;  // packed e2m1, (K, N, L), box (256, BlockN / CtaGroup, 1)
  CUtensorMap tmap_b2;
  CUtensorMap tmap_sfa;   // blocked scales as u16, (256, K/64 atoms, M/128 blocks, L), box (256, 4, 1, 1)
  CUtensorMap tmap_sfb1;  // same for B1's N rows
  CUtensorMap tmap_sfb2;
  typename Cfg::Out* c = nullptr;  // m x n row-major per batch, row stride ldc, batch stride m * ldc
  int64_t ldc = 0;
  int32_t m = 0, n = 0, k = 0;
  sched::TileGrid tiles{};
  int32_t num_clusters = 0;
  uint64_t cache_hint_a = 0, cache_hint_b = 0;  // ptx::kL2Evict* policies (used when Cfg::kHints != kNone)
  float alpha1 = 1.0f, alpha2 = 1.0f;           // per-tensor scales of the two products
  typename Cfg::Epilogue epilogue{};            // out = epilogue(alpha1 * A·B1ᵀ, alpha2 * A·B2ᵀ)
};

namespace detail {

// Shared-memory matrix descriptor of a K-major operand tile whose rows are 128-byte swizzle rows:
// 8-row core groups 1024 bytes apart (SBO), LBO unused for swizzled K-major layouts (seed 000).
inline constexpr uint64_t kOperandDescBase =
    ptx::SmemDescriptor{0, 0, 8 * 128, 0, false, ptx::SmemSwizzle::k128B}.encode();
// Descriptor of a 512-byte scale atom as tcgen05.cp .32x128b reads it: 16-byte rows, 8-row groups 128 bytes
// apart, no swizzle (seed 000's SF_desc_base).
inline constexpr uint64_t kScaleDescBase =
    ptx::SmemDescriptor{0, 0, 8 * 16, 0, false, ptx::SmemSwizzle::kNone}.encode();

}  // namespace detail

template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    dual_gemm_kernel(const __grid_constant__ DualGemmParams<Cfg> p) {
#if BWGEMM_SM100A_KERNEL_BODY
  using namespace ::bwgemm::ptx;
  constexpr int kCtaGroup = Cfg::kCtaGroup;
  using Scheduler = typename Cfg::Scheduler;

  const uint32_t warp = warp_idx();
  const uint32_t lane = lane_idx();
  const uint32_t rank = kCtaGroup == 2 ? cluster_ctarank() : 0;
  const bool even_cta = rank == 0;

  // Shared memory: everything is carved from the dynamic buffer, aligned up to 1024 bytes.
  const uint32_t smem = round_up_u32(dynamic_smem_base(), kSmemAlignment);
  const KernelBarriers<Cfg> bars(smem);
  const auto& [full, empty, acc_full, acc_empty, clc, tmem_base_slot] = bars;

  // ---- set-up ------------------------------------------------------------------------------------------
  if (warp == Cfg::kOperandWarp && elect_one_sync()) {
    tma_prefetch_descriptor(&p.tmap_a);
    tma_prefetch_descriptor(&p.tmap_b1);
    tma_prefetch_descriptor(&p.tmap_b2);
  }
  const uint32_t tmem = start_kernel<Cfg>(warp, bars);

  const int32_t cluster = static_cast<int32_t>(block_idx().x / kCtaGroup);
  const int32_t k_iters = (p.k + Cfg::kBlockK - 1) / Cfg::kBlockK;
  const uint64_t hint_a = p.cache_hint_a, hint_b = p.cache_hint_b;

  // ---- warp roles --------------------------------------------------------------------------------------
  if (warp == Cfg::kOperandWarp) {
    if (elect_one_sync()) {
      PipelineState<Cfg::kStages> stage;
      for (TileStream<Scheduler, kCtaGroup> ts(cluster, p.num_clusters, p.tiles.total(), clc); ts.valid();
           ts.next(true)) {
        const sched::TileCoord t = p.tiles.tile_at(ts.tile);
        const int32_t m0 = t.m * Cfg::kClusterM + static_cast<int32_t>(rank) * Cfg::kBlockM;
        const int32_t nb = t.n * Cfg::kBlockN + static_cast<int32_t>(rank) * Cfg::kBRowsPerCta;
        for (int32_t kb = 0; kb < k_iters; ++kb, stage.advance()) {
          mbarrier_wait_parity(empty[stage.index], stage.producer_parity());
          const uint32_t bar = pair_barrier<kCtaGroup>(full[stage.index]);
          arrive_expect_tx_on_pair_barrier<kCtaGroup>(full[stage.index], Cfg::kOperandTxBytes);
          const uint32_t base = smem + stage.index * Cfg::kStageBytes;
          const int32_t k0 = kb * Cfg::kBlockK;
          if constexpr (Cfg::kHints == L2CacheHints::kNone) {
            tma_load<kCtaGroup>(base + Cfg::kAOffset, &p.tmap_a, bar, {k0, m0, t.batch});
            tma_load<kCtaGroup>(base + Cfg::kB1Offset, &p.tmap_b1, bar, {k0, nb, t.batch});
            tma_load<kCtaGroup>(base + Cfg::kB2Offset, &p.tmap_b2, bar, {k0, nb, t.batch});
          } else {
            tma_load<kCtaGroup>(base + Cfg::kAOffset, &p.tmap_a, bar, {k0, m0, t.batch}, hint_a);
            tma_load<kCtaGroup>(base + Cfg::kB1Offset, &p.tmap_b1, bar, {k0, nb, t.batch}, hint_b);
            tma_load<kCtaGroup>(base + Cfg::kB2Offset, &p.tmap_b2, bar, {k0, nb, t.batch}, hint_b);
          }
        }
      }
    }
  } else if (warp == Cfg::kScaleWarp) {
    if (elect_one_sync()) {
      PipelineState<Cfg::kStages> stage;
      for (TileStream<Scheduler, kCtaGroup> ts(cluster, p.num_clusters, p.tiles.total(), clc); ts.valid();
           ts.next(true)) {
        const sched::TileCoord t = p.tiles.tile_at(ts.tile);
        const int32_t m_block = (t.m * Cfg::kClusterM + static_cast<int32_t>(rank) * Cfg::kBlockM) / 128;
        const int32_t n_block = (t.n * Cfg::kBlockN) / 128;  // the 128-row scale block holding this N tile
        for (int32_t kb = 0; kb < k_iters; ++kb, stage.advance()) {
          mbarrier_wait_parity(empty[stage.index], stage.producer_parity());
          const uint32_t bar = pair_barrier<kCtaGroup>(full[stage.index]);
          arrive_expect_tx_on_pair_barrier<kCtaGroup>(
              full[stage.index], even_cta ? Cfg::kScaleTxBytesEven : Cfg::kScaleTxBytesOdd);
          const uint32_t base = smem + stage.index * Cfg::kStageBytes;
          const int32_t atom = kb * Cfg::kScaleAtomsPerStage;
          tma_load<kCtaGroup>(base + Cfg::kSfaOffset, &p.tmap_sfa, bar, {0, atom, m_block, t.batch});
          if (even_cta) {
            if constexpr (kCtaGroup == 2) {
              tma_load_multicast<2>(base + Cfg::kSfb1Offset, &p.tmap_sfb1, bar, {0, atom, n_block, t.batch},
                                    kPairMask<2>);
              tma_load_multicast<2>(base + Cfg::kSfb2Offset, &p.tmap_sfb2, bar, {0, atom, n_block, t.batch},
                                    kPairMask<2>);
            } else {
              tma_load<1>(base + Cfg::kSfb1Offset, &p.tmap_sfb1, bar, {0, atom, n_block, t.batch});
              tma_load<1>(base + Cfg::kSfb2Offset, &p.tmap_sfb2, bar, {0, atom, n_block, t.batch});
            }
          }
        }
      }
    }
  } else if (warp == Cfg::kMmaWarp) {
    if (even_cta && elect_one_sync()) {
      constexpr uint32_t idesc =
          InstrDescMxf4Nvf4{MmaF4Format::kE2M1,    MmaF4Format::kE2M1, false,          false,
                            MmaMajor::kK,          MmaMajor::kK,       Cfg::kClusterM, Cfg::kBlockN,
                            MmaScaleFormat::kUE4M3}
              .encode();
      PipelineState<Cfg::kStages> stage;
      PipelineState<Cfg::kAccStages> acc;
      for (TileStream<Scheduler, kCtaGroup> ts(cluster, p.num_clusters, p.tiles.total(), clc); ts.valid();
           ts.next(true), acc.advance()) {
        const sched::TileCoord t = p.tiles.tile_at(ts.tile);
        // SFB holds 128 N rows per atom in 32-row column groups: start at this tile's group.
        const uint32_t sfb_group = static_cast<uint32_t>((t.n * Cfg::kBlockN) % 128 / 32);
        const uint32_t acc1 = tmem + acc.index * Cfg::kAccColumnsPerStage;
        const uint32_t acc2 = acc1 + Cfg::kBlockN;
        mbarrier_wait_parity(acc_empty[acc.index], acc.producer_parity());
        tcgen05_fence_after_thread_sync();
        for (int32_t kb = 0; kb < k_iters; ++kb, stage.advance()) {
          mbarrier_wait_parity(full[stage.index], stage.consumer_parity());
          tcgen05_fence_after_thread_sync();
          const uint32_t base = smem + stage.index * Cfg::kStageBytes;
          for (uint32_t j = 0; j < Cfg::kScaleAtomsPerStage; ++j) {
            const uint32_t atom_offset = j * Cfg::kScaleAtomBytes;
            tcgen05_cp<kCtaGroup>(
                tmem + Cfg::kSfaColumn + j * Cfg::kScaleColumnsPerAtomA,
                smem_desc_with_address(detail::kScaleDescBase, base + Cfg::kSfaOffset + atom_offset));
            tcgen05_cp<kCtaGroup>(
                tmem + Cfg::kSfb1Column + j * Cfg::kScaleColumnsPerAtomB,
                smem_desc_with_address(detail::kScaleDescBase, base + Cfg::kSfb1Offset + atom_offset));
            tcgen05_cp<kCtaGroup>(
                tmem + Cfg::kSfb2Column + j * Cfg::kScaleColumnsPerAtomB,
                smem_desc_with_address(detail::kScaleDescBase, base + Cfg::kSfb2Offset + atom_offset));
          }
          for (uint32_t j = 0; j < Cfg::kMmasPerStage; ++j) {
            const uint32_t k_bytes = j * (Cfg::kMmaK / 2);  // advance 32 bytes inside the swizzled rows
            const uint64_t a_desc =
                smem_desc_with_address(detail::kOperandDescBase, base + Cfg::kAOffset + k_bytes);
            const uint64_t b1_desc =
                smem_desc_with_address(detail::kOperandDescBase, base + Cfg::kB1Offset + k_bytes);
            const uint64_t b2_desc =
                smem_desc_with_address(detail::kOperandDescBase, base + Cfg::kB2Offset + k_bytes);
            const uint32_t sfa = tmem + Cfg::kSfaColumn + j * Cfg::kScaleColumnsPerAtomA;
            const uint32_t sfb1 = tmem + Cfg::kSfb1Column + j * Cfg::kScaleColumnsPerAtomB + sfb_group;
            const uint32_t sfb2 = tmem + Cfg::kSfb2Column + j * Cfg::kScaleColumnsPerAtomB + sfb_group;
            const bool accumulate = kb > 0 || j > 0;
            // The gate GEMM loads A into the collector buffer, the up GEMM reuses it and releases it.
            tcgen05_mma_mxf4nvf4<kCtaGroup, CollectorUsage::kFill>(acc1, a_desc, b1_desc, idesc, sfa, sfb1,
                                                                   accumulate);
            tcgen05_mma_mxf4nvf4<kCtaGroup, CollectorUsage::kLastUse>(acc2, a_desc, b2_desc, idesc, sfa, sfb2,
                                                                      accumulate);
          }
          commit_to_pair<kCtaGroup>(empty[stage.index]);  // the stage is free once these MMAs are done
        }
        commit_to_pair<kCtaGroup>(acc_full[acc.index]);  // the tile's accumulators are final
      }
    }
  } else if (warp == Cfg::kSchedulerWarp) {
    scheduler_warp<Scheduler, kCtaGroup>(even_cta, clc);
  } else {  // epilogue warps 0..3: tensor-memory lanes 32 * warp .. + 31 hold rows 32 * warp .. + 31
    PipelineState<Cfg::kAccStages> acc;
    const uint32_t lane_base = (warp * kWarpSize) << 16;  // TMEM address: lane in bits 31-16
    for (TileStream<Scheduler, kCtaGroup> ts(cluster, p.num_clusters, p.tiles.total(), clc); ts.valid();
         ts.next(lane == 0), acc.advance()) {
      const sched::TileCoord t = p.tiles.tile_at(ts.tile);
      const int32_t row = epilogue_row<Cfg>(t, rank, warp, lane);
      const int32_t col0 = t.n * Cfg::kBlockN;
      typename Cfg::Out* out_row = p.c + (static_cast<int64_t>(t.batch) * p.m + row) * p.ldc;
      const uint32_t acc1 = tmem + lane_base + acc.index * Cfg::kAccColumnsPerStage;
      const uint32_t acc2 = acc1 + Cfg::kBlockN;

      mbarrier_wait_parity(acc_full[acc.index], acc.consumer_parity());
      tcgen05_fence_after_thread_sync();
#pragma unroll 1
      for (int chunk = 0; chunk < Cfg::kBlockN / Cfg::kEpilogueColumns; ++chunk) {
        uint32_t gate[Cfg::kEpilogueColumns], up[Cfg::kEpilogueColumns];
        tcgen05_ld_32x32b(acc1 + chunk * Cfg::kEpilogueColumns, gate);
        tcgen05_ld_32x32b(acc2 + chunk * Cfg::kEpilogueColumns, up);
        tcgen05_wait_ld();
        if (chunk == Cfg::kBlockN / Cfg::kEpilogueColumns - 1) {
          // Everything is in registers: hand the accumulator stage back to the MMA warp.
          tcgen05_fence_before_thread_sync();
          if (lane == 0) arrive_on_pair_barrier<kCtaGroup>(acc_empty[acc.index]);
        }
        if (row < p.m) {
          const int32_t c0 = col0 + chunk * Cfg::kEpilogueColumns;
#pragma unroll
          for (int v = 0; v < Cfg::kEpilogueColumns; v += epi::kStoreVector) {
            if (c0 + v + epi::kStoreVector > p.n) break;  // N is a multiple of 8: whole vectors only
            float out[epi::kStoreVector];
#pragma unroll
            for (int i = 0; i < epi::kStoreVector; ++i)
              out[i] = p.epilogue(p.alpha1 * bits_to_f32(gate[v + i]), p.alpha2 * bits_to_f32(up[v + i]));
            epi::store8(out_row + c0 + v, out);
          }
        }
      }
    }
  }

  finish_kernel<Cfg>(warp, tmem);
#else
  (void)p;
  ::bwgemm::ptx::trap();  // built for another architecture; the entry points never launch it here
#endif
}

}  // namespace bwgemm::sm100
