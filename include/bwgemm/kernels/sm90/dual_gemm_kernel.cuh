// The sm_90a (Hopper) fp16/bf16 dual GEMM with a fused gated epilogue, warp-specialized and persistent:
//
//   C = epilogue(alpha1 · A·B1ᵀ, alpha2 · A·B2ᵀ),  A: M x K, B1, B2: N x K (all K-major), C: M x N
//
// Roles (384 threads, three warpgroups; sm90::DualGemmConfig):
//   warpgroup 0   producer: setmaxnreg down to 40; warp 0's elected thread loads A, B1, B2 tiles with TMA
//                 into a ring of kStages stages (full barrier: complete_tx of the stage's bytes)
//   warpgroups 1,2 consumers: setmaxnreg up to 232; consumer c owns rows 64c..64c+63 of the 128-row tile and
//                 issues, per 16 K, one wgmma m64n(2·BlockN)k16 over [B1 tile; B2 tile]; it releases a stage
//                 (one arrival per consumer on the empty barrier) once wgmma.wait_group says the wgmmas that
//                 read it are done, one stage behind the issue; then applies the epilogue functor to the
//                 register fragment and stores C: with Cfg::kTmaStore and p.tma_store through its shared-
//                 memory buffer and TMA stores (sm90::store_slice_with_tma: the global writes overlap the
//                 next tile's mainloop), otherwise (odd N, rows of C not 16-byte aligned) from registers.
// Both roles walk the same tiles of a sched::TileGrid under Cfg::Scheduler (StaticPersistent: one CTA per
// SM strides over the tiles, so the producer already loads the next tile during the epilogue).
//
// Shared memory (carved from the dynamic buffer, aligned up to 1024 bytes):
//   [stage 0: A 128x64 | B1 BlockNx64 | B2 BlockNx64] ... [stage S-1] | C buffer per consumer (kTmaStore)
//   | full[S] | empty[S]
// every tile 128-byte swizzled as TMA writes it and wgmma reads it (K-major, SBO 1024).
#pragma once

#include <cuda.h>

#include <cstdint>

#include "bwgemm/isa/descriptors_sm90.hpp"
#include "bwgemm/kernels/sm90/common.cuh"
#include "bwgemm/kernels/sm90/dual_gemm_config.cuh"
#include "bwgemm/pipeline/pipeline_state.cuh"
#include "bwgemm/ptx/cluster.cuh"
#include "bwgemm/ptx/griddepcontrol.cuh"
#include "bwgemm/ptx/mbarrier.cuh"
#include "bwgemm/ptx/misc.cuh"
#include "bwgemm/ptx/tma.cuh"
#include "bwgemm/ptx/wgmma.cuh"
#include "bwgemm/scheduler/schedulers.cuh"
#include "bwgemm/scheduler/tile_order.cuh"

namespace bwgemm::sm90 {

// Kernel parameters. Passed as a __grid_constant__, so the tensor maps stay in parameter space.
template <class Cfg>
struct DualGemmParams {
  CUtensorMap tmap_a;       // (K, M, batch), box (64, 128, 1), 128B swizzle
  CUtensorMap tmap_a_tail;  // box (64, M mod 128, 1): a box that would cross M (common.cuh, RowBox)
  CUtensorMap tmap_b1;      // (K, N, batch), box (64, BlockN, 1), 128B swizzle
  CUtensorMap tmap_b2;
  CUtensorMap tmap_c;  // read only when tma_store: (N, M, batch) of Out, box (EpiBuffers::kBoxColumns, 64,
                       // 1), swizzle EpiBuffers::kSwizzleBytes
  typename Cfg::Out* c = nullptr;  // m x n per batch, row stride ldc, batch stride m * ldc
  int64_t ldc = 0;
  bool tma_store = false;  // Cfg::kTmaStore and the call allows it: C through shared memory and TMA stores
  int32_t m = 0, n = 0, k = 0;
  sched::TileGrid tiles{};
  int32_t num_clusters = 0;  // the grid in clusters (the scheduler's stride)
  float alpha1 = 1.0f, alpha2 = 1.0f;
  const float* alpha1_ptr = nullptr;  // device scales, read once per CTA: alpha1 · *alpha1_ptr (null: alpha1)
  const float* alpha2_ptr = nullptr;
  typename Cfg::Epilogue epilogue{};  // out = epilogue(alpha1 * A·B1ᵀ, alpha2 * A·B2ᵀ)
};

// The dense dual GEMM's tile source (kernels/sm90/grouped_tiles.cuh describes the interface): the tiles of
// p.tiles (sched::TileGrid::tile_at), M x N x batch, every id of the scheduler's walk a tile.
template <class Cfg>
struct DualGemmTiles {
  using Tile = sched::TileCoord;
  struct Walk {
    const DualGemmParams<Cfg>& p;
    BWGEMM_DEVICE BWGEMM_FORCEINLINE bool seek(int32_t id, Tile* t) const {
      *t = p.tiles.tile_at(id);
      return true;
    }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE int32_t row0(const Tile& t, uint32_t cta_rank) const {
      return tile_row0<Cfg>(t, cta_rank);
    }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE int32_t col0(const Tile& t, uint32_t /*cta_rank*/) const {
      return t.n * Cfg::kBlockN;
    }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE int32_t a_batch(const Tile& t) const { return t.batch; }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE int32_t b_batch(const Tile& t) const { return t.batch; }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE int32_t a_rows() const { return p.m; }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE int32_t row_end(const Tile& /*t*/) const { return p.m; }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE int64_t out_offset(const Tile& t) const {
      return static_cast<int64_t>(t.batch) * p.m * p.ldc;
    }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE const epi::DualScales& scales(const epi::DualScales& s,
                                                                   const Tile& /*t*/) const {
      return s;
    }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE void report(int32_t /*cluster*/) const {}
  };
  const DualGemmParams<Cfg>& p;
  BWGEMM_DEVICE BWGEMM_FORCEINLINE Walk walk() const { return Walk{p}; }
};

// The kernel's body over the tiles of `source` (DualGemmTiles: the dense dual GEMM; GroupedTiles: the
// grouped dual GEMM, kernels/sm90/grouped_tiles.cuh). In: the type of A, B1 and B2 (__half or
// __nv_bfloat16).
template <class Cfg, class In, class Source>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void dual_gemm_kernel_body(const DualGemmParams<Cfg>& p,
                                                            const Source& source) {
  using namespace ::bwgemm::ptx;
  using Scheduler = typename Cfg::Scheduler;

  const uint32_t warp = warp_idx();
  const uint32_t warpgroup = warp / 4;

  const uint32_t smem = round_up_u32(dynamic_smem_base(), kSmemAlignment);
  const BarrierArray<Cfg::kStages> full{smem + Cfg::kFullBarriers};
  const BarrierArray<Cfg::kStages> empty{smem + Cfg::kEmptyBarriers};
  constexpr int kClusterCtas = Cfg::kClusterCtas;
  uint32_t cta_rank = 0;  // rank in the cluster = which M tile of the cluster tile
  if constexpr (kClusterCtas > 1) cta_rank = cluster_ctarank();

  // ---- set-up ------------------------------------------------------------------------------------------
  start_pipeline<Cfg>(full, empty, warp, [&] {
    tma_prefetch_descriptor(&p.tmap_a);
    tma_prefetch_descriptor(&p.tmap_b1);
    tma_prefetch_descriptor(&p.tmap_b2);
    if constexpr (Cfg::kTmaStore) {
      if (p.tma_store) tma_prefetch_descriptor(&p.tmap_c);
    }
  });
  // The set-up above (barrier initialisation, tensor-map prefetch) touches no global memory, so under
  // programmatic dependent launch it overlaps the previous kernel's tail; every thread waits here, before the
  // first TMA load, C or device-scale read or store, for that kernel's completion and memory
  // (ptx/griddepcontrol.cuh; at once without PDL).
  griddepcontrol_wait();

  const int32_t cluster = static_cast<int32_t>(block_idx().x) / kClusterCtas;
  const int32_t total = p.tiles.total();
  const int32_t k_iters = (p.k + Cfg::kBlockK - 1) / Cfg::kBlockK;

  if (warpgroup == Cfg::kProducerWarpgroup) {
    // ---- producer ------------------------------------------------------------------------------------
    warpgroup_reg_dealloc<Cfg::kProducerRegs>();
    if (warp == 0 && elect_one_sync()) {
      PipelineState<Cfg::kStages> stage;
      auto tiles = source.walk();
      for (int32_t tile = Scheduler::first_tile(cluster, p.num_clusters, total); tile != sched::kNoTile;
           tile = Scheduler::next_tile(tile, p.num_clusters, total)) {
        typename Source::Tile t;
        if (!tiles.seek(tile, &t)) break;  // past the last tile (a grouped walk; dense: never)
        const int32_t m0 = tiles.row0(t, cta_rank);
        const int32_t n0 = tiles.col0(t, cta_rank);
        const RowBox a_box = row_box<Cfg::kBlockM>(m0, tiles.a_rows(), &p.tmap_a, &p.tmap_a_tail);
        produce_k_blocks<Cfg>(
            stage, full, empty, smem, k_iters,
            [&](uint32_t base, uint32_t bar, int32_t k0) {
              if (a_box.map != nullptr)
                tma_load(base + Cfg::kAOffset, a_box.map, bar, {k0, m0, tiles.a_batch(t)});
              if constexpr (kClusterCtas > 1) {
                constexpr uint16_t kClusterMask = (1u << kClusterCtas) - 1;  // every CTA of the cluster
                const uint32_t slice = cta_rank * Cfg::kBSliceBytes;
                const int32_t n_slice = n0 + static_cast<int32_t>(cta_rank) * Cfg::kBRowsPerCta;
                tma_load_multicast(base + Cfg::kB1Offset + slice, &p.tmap_b1, bar,
                                   {k0, n_slice, tiles.b_batch(t)}, kClusterMask);
                tma_load_multicast(base + Cfg::kB2Offset + slice, &p.tmap_b2, bar,
                                   {k0, n_slice, tiles.b_batch(t)}, kClusterMask);
              } else {
                tma_load(base + Cfg::kB1Offset, &p.tmap_b1, bar, {k0, n0, tiles.b_batch(t)});
                tma_load(base + Cfg::kB2Offset, &p.tmap_b2, bar, {k0, n0, tiles.b_batch(t)});
              }
            },
            a_box.missing_bytes);
      }
      tiles.report(cluster);  // the grouped walk's status word (dense: nothing)
      // Every load of this CTA is issued: the next kernel of the stream (launched with programmatic
      // dependent launch) may be scheduled once every CTA got here or exited, its set-up overlapping this
      // grid's last wgmmas and stores. Safe for the data at any point: the dependent's griddepcontrol.wait
      // still waits for this grid's completion and memory flush. A no-op without a dependent.
      griddepcontrol_launch_dependents();
    }
  } else {
    // ---- consumers -----------------------------------------------------------------------------------
    warpgroup_reg_alloc<Cfg::kConsumerRegs>();
    const ConsumerThread me = consumer_thread(warpgroup);
    const uint32_t consumer = me.consumer, thread = me.thread, warp_in_group = me.warp_in_group,
                   lane = me.lane;
    const uint32_t a_offset = Cfg::kAOffset + Cfg::consumer_row0(consumer) * Cfg::kRowBytes;
    // The alphas with their device-pointer parts read, once per consumer thread before the tile loop.
    const epi::DualScales s = epi::dual_scales(p);

    PipelineState<Cfg::kStages> stage;
    auto tiles = source.walk();
    uint32_t walk = 0;  // tiles of this CTA's walk so far (ping-pong: tile i is consumer i % 2's)
    for (int32_t tile = Scheduler::first_tile(cluster, p.num_clusters, total); tile != sched::kNoTile;
         tile = Scheduler::next_tile(tile, p.num_clusters, total), ++walk) {
      // Ping-pong: the other consumer's tiles pass this one by; the mainloops take turns (common.cuh).
      if (!ping_pong_take_tile<Cfg>(walk, consumer, stage, k_iters)) continue;
      // Past the last tile: a grouped walk's end (its sources take no ping-pong Config); dense: never.
      typename Source::Tile t;
      if (!tiles.seek(tile, &t)) break;

      float acc[Cfg::kAccRegs];
      zero_accumulator(acc);

      consume_k_blocks<Cfg>(stage, full, empty, smem, k_iters, thread, [&](uint32_t base, bool first) {
#pragma unroll
        for (int j = 0; j < Cfg::kMmasPerStage; ++j) {
          const uint32_t k_bytes = static_cast<uint32_t>(j) * kWgmmaK16BytesKMajor;
          const uint64_t a_desc = wgmma_desc_with_address(kWgmmaKMajorSw128Desc, base + a_offset + k_bytes);
          const uint64_t b_desc =
              wgmma_desc_with_address(kWgmmaKMajorSw128Desc, base + Cfg::kB1Offset + k_bytes);
          wgmma_ss<In, Cfg::kMmaN>(acc, a_desc, b_desc, !first || j > 0);
        }
      });
      wgmma_fence_operand(acc);
      ping_pong_pass_turn<Cfg>(consumer, Scheduler::next_tile(tile, p.num_clusters, total) != sched::kNoTile);

      // ---- epilogue: fragment -> functor -> C --------------------------------------------------------
      // Thread (warp w, lane l) holds rows 16w + l/4 (+8) and columns 8j + 2(l%4) (+1) of its 64-row slice:
      // gate at acc[4j + 2h + e], up at acc[kBlockN / 2 + 4j + 2h + e] (ptx/wgmma.cuh).
      const int32_t slice_m0 = tiles.row0(t, cta_rank) + Cfg::consumer_row0(consumer);
      const int32_t row0 = slice_m0 + static_cast<int32_t>(warp_in_group * 16 + lane / 4);
      const int32_t col0 = tiles.col0(t, cta_rank) + static_cast<int32_t>(2 * (lane % 4));
      const auto& ts = tiles.scales(s, t);  // the tile's scales (grouped: the expert's alphas)
      // The functor applied to the pair of columns 8j + 2(l%4) (+1) of row 16w + l/4 + 8h.
      const auto apply = [&](int j, int h, float& v0, float& v1) {
        const int g = 4 * j + 2 * h;
        const int u = Cfg::kBlockN / 2 + g;
        v0 = p.epilogue(ts.alpha1 * acc[g], ts.alpha2 * acc[u]);
        v1 = p.epilogue(ts.alpha1 * acc[g + 1], ts.alpha2 * acc[u + 1]);
      };
      const auto store_from_registers = [&] {
        typename Cfg::Out* c_batch = p.c + tiles.out_offset(t);
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int32_t row = row0 + 8 * h;
          if (row >= tiles.row_end(t)) continue;
          typename Cfg::Out* c_row = c_batch + static_cast<int64_t>(row) * p.ldc;
#pragma unroll
          for (int j = 0; j < Cfg::kBlockN / 8; ++j) {
            const int32_t col = col0 + 8 * j;
            if (col >= p.n) continue;
            float v0, v1;
            apply(j, h, v0, v1);
            store_pair(c_row + col, v0, v1, col + 1 < p.n);
          }
        }
      };
      if constexpr (Cfg::kTmaStore) {
        if (p.tma_store) {
          store_slice_with_tma<Cfg>(&p.tmap_c, smem, me, tiles.col0(t, cta_rank), slice_m0, tiles.b_batch(t),
                                    apply);
        } else {
          store_from_registers();
        }
      } else {
        store_from_registers();
      }
    }
    // C's last TMA stores are complete before the CTA (and its shared memory) goes away.
    if constexpr (Cfg::kTmaStore) {
      if (p.tma_store) finish_tma_stores(me);
    }
  }

  // A CTA must outlive the peer's multicasts into its stages and arrivals on its barriers.
  if constexpr (kClusterCtas > 1) cluster_sync();
}

template <class Cfg, class In>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    dual_gemm_kernel(const __grid_constant__ DualGemmParams<Cfg> p) {
#if BWGEMM_SM90A_KERNEL_BODY
  dual_gemm_kernel_body<Cfg, In>(p, DualGemmTiles<Cfg>{p});
#else
  (void)p;
  ::bwgemm::ptx::trap();  // built for another architecture; the entry points never launch it here
#endif
}

}  // namespace bwgemm::sm90
