// The warp-specialized sm_100a FP16/BF16 GEMM (seed 004's design):
//   D[m, n, l] = Epilogue(sum_k A[m,k,l] B[k,n,l] [, C[m,n,l]])   (default: alpha · A·B + beta · C)
//
// Warp roles (per CTA, GemmConfig names them):
//   warps 0-3  epilogue: tensor memory -> registers -> functor (with C when it reads it) -> global
//   warp 4     producer: TMA of the A and B tiles of every stage
//   warp 5     MMA: allocates tensor memory; in the even CTA issues tcgen05.mma.kind::f16
//   warp 6     scheduler: initialises the barriers; with CLC, cancels not-yet-started clusters for work
//
// Pipelines (the same as the dual GEMM's, dual_gemm_kernel.cuh; docs/kernels.md has the diagram):
//   full[s]      even CTA, CtaGroup arrivals + transaction bytes: stage s has landed in both CTAs
//   empty[s]     every CTA, 1 arrival (tcgen05.commit multicast): the MMAs reading stage s are done
//   acc_full[a]  every CTA, 1 arrival (commit multicast): accumulator stage a holds a finished tile
//   acc_empty[a] even CTA, 4 x CtaGroup arrivals: the epilogue warps have read accumulator stage a
//   clc_full/clc_empty: the Cluster Launch Control response ring (scheduler/ClcWorkStealing)
#pragma once

#include <cuda.h>

#include <cstdint>
#include <type_traits>

#include "bwgemm/epilogue/store.cuh"
#include "bwgemm/formats/bits.cuh"
#include "bwgemm/kernels/sm100/common.cuh"
#include "bwgemm/kernels/sm100/gemm_config.cuh"
#include "bwgemm/ptx/descriptors.hpp"
#include "bwgemm/ptx/ptx.cuh"
#include "bwgemm/scheduler/tile_order.cuh"

namespace bwgemm::sm100 {

// Kernel parameters. Passed as a __grid_constant__, so the tensor maps stay in parameter space.
template <class Cfg>
struct GemmParams {
  using Out = typename Cfg::Out;
  CUtensorMap tmap_a;  // (K, M, L), box (64, 128, 1), 128B swizzle
  CUtensorMap tmap_b;  // N x K: (K, N, L), box (64, BlockN / CtaGroup, 1), 128B swizzle;
                       // K x N: (N, K, L), box (kBChunkColumns, 64, 1), swizzle of kBMnSpanBytes
  Out* d = nullptr;
  const Out* c = nullptr;  // read only when read_c
  int64_t ldd = 0, batch_stride_d = 0;
  int64_t ldc = 0, batch_stride_c = 0;
  int32_t m = 0, n = 0, k = 0;
  sched::TileGrid tiles{};
  int32_t num_clusters = 0;
  uint32_t idesc = 0;       // Cfg::instr_desc(input type, B layout)
  GemmBOperand b{};         // Cfg::b_operand(B layout)
  bool b_mn_major = false;  // B is K x N row-major: loaded in N chunks
  bool read_c = false;      // the epilogue takes C (epi::reads_source)
  typename Cfg::Epilogue epilogue{};
};

namespace detail {

// Applies the functor to 8 accumulator columns (and 8 values of C) and stores them to D.
template <class Cfg>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void gemm_epilogue8(const GemmParams<Cfg>& p, const uint32_t* acc,
                                                     typename Cfg::Out* d, const typename Cfg::Out* c) {
  using Epilogue = typename Cfg::Epilogue;
  float out[epi::kStoreVector];
  if constexpr (std::is_invocable_v<const Epilogue&, float, float>) {
    if (p.read_c) {
      float src[epi::kStoreVector];
      epi::load8(c, src);
#pragma unroll
      for (int i = 0; i < epi::kStoreVector; ++i) out[i] = p.epilogue(bits_to_f32(acc[i]), src[i]);
      epi::store8(d, out);
      return;
    }
  }
  if constexpr (std::is_invocable_v<const Epilogue&, float>) {
#pragma unroll
    for (int i = 0; i < epi::kStoreVector; ++i) out[i] = p.epilogue(bits_to_f32(acc[i]));
    epi::store8(d, out);
  }
}

}  // namespace detail

template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1) gemm_kernel(const __grid_constant__ GemmParams<Cfg> p) {
#if BWGEMM_SM100A_KERNEL_BODY
  using namespace ::bwgemm::ptx;
  constexpr int kCtaGroup = Cfg::kCtaGroup;
  using Scheduler = typename Cfg::Scheduler;
  using Out = typename Cfg::Out;

  const uint32_t warp = warp_idx();
  const uint32_t lane = lane_idx();
  const uint32_t rank = kCtaGroup == 2 ? cluster_ctarank() : 0;
  const bool even_cta = rank == 0;

  // Shared memory: everything is carved from the dynamic buffer, aligned up to 1024 bytes.
  const uint32_t smem = round_up_u32(dynamic_smem_base(), kSmemAlignment);
  const KernelBarriers<Cfg> bars(smem);
  const auto& [full, empty, acc_full, acc_empty, clc, tmem_base_slot] = bars;

  // ---- set-up ------------------------------------------------------------------------------------------
  if (warp == Cfg::kProducerWarp && elect_one_sync()) {
    tma_prefetch_descriptor(&p.tmap_a);
    tma_prefetch_descriptor(&p.tmap_b);
  }
  const uint32_t tmem = start_kernel<Cfg>(warp, bars);

  const int32_t cluster = static_cast<int32_t>(block_idx().x / kCtaGroup);
  const int32_t k_iters = (p.k + Cfg::kBlockK - 1) / Cfg::kBlockK;  // the K tail reads as zero (TMA fill)

  // ---- warp roles --------------------------------------------------------------------------------------
  if (warp == Cfg::kProducerWarp) {
    if (elect_one_sync()) {
      PipelineState<Cfg::kStages> stage;
      for (TileStream<Scheduler, kCtaGroup> ts(cluster, p.num_clusters, p.tiles.total(), clc); ts.valid();
           ts.next(true)) {
        const sched::TileCoord t = p.tiles.tile_at(ts.tile);
        const int32_t m0 = t.m * Cfg::kClusterM + static_cast<int32_t>(rank) * Cfg::kBlockM;
        const int32_t n0 = t.n * Cfg::kBlockN + static_cast<int32_t>(rank) * Cfg::kBColumnsPerCta;
        for (int32_t kb = 0; kb < k_iters; ++kb, stage.advance()) {
          mbarrier_wait_parity(empty[stage.index], stage.producer_parity());
          const uint32_t bar = pair_barrier<kCtaGroup>(full[stage.index]);
          arrive_expect_tx_on_pair_barrier<kCtaGroup>(full[stage.index], Cfg::kStageTxBytes);
          const uint32_t base = smem + stage.index * Cfg::kStageBytes;
          const int32_t k0 = kb * Cfg::kBlockK;
          tma_load<kCtaGroup>(base + Cfg::kAOffset, &p.tmap_a, bar, {k0, m0, t.batch});
          if (p.b_mn_major) {
            for (int32_t c = 0; c < Cfg::kBChunks; ++c)
              tma_load<kCtaGroup>(base + Cfg::kBOffset + c * Cfg::kBChunkBytes, &p.tmap_b, bar,
                                  {n0 + c * Cfg::kBChunkColumns, k0, t.batch});
          } else {
            tma_load<kCtaGroup>(base + Cfg::kBOffset, &p.tmap_b, bar, {k0, n0, t.batch});
          }
        }
      }
    }
  } else if (warp == Cfg::kMmaWarp) {
    if (even_cta && elect_one_sync()) {
      const uint32_t idesc = p.idesc;
      const GemmBOperand b = p.b;
      PipelineState<Cfg::kStages> stage;
      PipelineState<Cfg::kAccStages> acc;
      for (TileStream<Scheduler, kCtaGroup> ts(cluster, p.num_clusters, p.tiles.total(), clc); ts.valid();
           ts.next(true), acc.advance()) {
        const uint32_t d_tmem = tmem + acc.index * Cfg::kAccColumnsPerStage;
        mbarrier_wait_parity(acc_empty[acc.index], acc.producer_parity());
        tcgen05_fence_after_thread_sync();
        for (int32_t kb = 0; kb < k_iters; ++kb, stage.advance()) {
          mbarrier_wait_parity(full[stage.index], stage.consumer_parity());
          tcgen05_fence_after_thread_sync();
          const uint32_t base = smem + stage.index * Cfg::kStageBytes;
#pragma unroll
          for (uint32_t j = 0; j < Cfg::kMmasPerStage; ++j) {
            const uint64_t a_desc = smem_desc_with_address(Cfg::kKMajorDescBase,
                                                           base + Cfg::kAOffset + j * Cfg::kKMajorStepBytes);
            const uint64_t b_desc =
                smem_desc_with_address(b.desc_base, base + Cfg::kBOffset + j * b.k_step_bytes);
            tcgen05_mma_f16<kCtaGroup>(d_tmem, a_desc, b_desc, idesc, kb > 0 || j > 0);
          }
          commit_to_pair<kCtaGroup>(empty[stage.index]);  // the stage is free once these MMAs are done
        }
        commit_to_pair<kCtaGroup>(acc_full[acc.index]);  // the tile's accumulator is final
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
      const bool row_in = row < p.m;
      const int64_t row_clamped = row_in ? row : 0;  // no pointer past D is ever formed
      Out* d_row = p.d + t.batch * p.batch_stride_d + row_clamped * p.ldd;
      const Out* c_row = p.read_c ? p.c + t.batch * p.batch_stride_c + row_clamped * p.ldc : nullptr;
      const uint32_t acc_tmem = tmem + lane_base + acc.index * Cfg::kAccColumnsPerStage;

      mbarrier_wait_parity(acc_full[acc.index], acc.consumer_parity());
      tcgen05_fence_after_thread_sync();
#pragma unroll 1
      for (int chunk = 0; chunk < Cfg::kBlockN / Cfg::kEpilogueColumns; ++chunk) {
        uint32_t values[Cfg::kEpilogueColumns];
        tcgen05_ld_32x32b(acc_tmem + chunk * Cfg::kEpilogueColumns, values);
        tcgen05_wait_ld();
        if (chunk == Cfg::kBlockN / Cfg::kEpilogueColumns - 1) {
          // Everything is in registers: hand the accumulator stage back to the MMA warp.
          tcgen05_fence_before_thread_sync();
          if (lane == 0) arrive_on_pair_barrier<kCtaGroup>(acc_empty[acc.index]);
        }
        if (row_in) {
          const int32_t c0 = col0 + chunk * Cfg::kEpilogueColumns;
#pragma unroll
          for (int v = 0; v < Cfg::kEpilogueColumns; v += epi::kStoreVector) {
            if (c0 + v + epi::kStoreVector > p.n) break;  // N is a multiple of 8: whole vectors only
            detail::gemm_epilogue8<Cfg>(p, values + v, d_row + c0 + v,
                                        c_row == nullptr ? nullptr : c_row + c0 + v);
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
