// The sm_90a (Hopper) small-M kernel ("swap AB", sm90::SwapAbConfig), for the GEMM and the dual GEMM:
//
//   GEMM (kWeights = 1): D = epilogue(A·B [, C]), A: M x K (K-major, the tokens), B: N x K (K-major) or K x N
//                        (N-major), the weights
//   dual (kWeights = 2): C = epilogue(alpha1 · A·B1ᵀ, alpha2 · A·B2ᵀ), B1, B2: N x K (K-major)
//
// Without a split (splits == 1) the CTAs are persistent: each walks the tiles blockIdx.x, + gridDim.x, ...
// (kBlockWeights output columns x kBlockTokens output rows each) with the stage ring running on across tiles,
// and stores each tile from registers. With a split, one cluster computes one tile: its `splits` CTAs take
// one K range each and reduce through distributed shared memory (swap_ab_config.cuh; the partial writes
// and the rank-order reduction are split_k.cuh's, shared with the tiled GEMM). With stream-K (sk_ctas > 0,
// a workspace given) every CTA streams one contiguous range of the tiles' K blocks laid end to end
// (sched::StreamKRanges), the ring running on across its segments: a segment that is not its tile's head
// goes as fp32 sums to the CTA's slot of the workspace (then the CTA's flag, a release store), the head
// adds those of the tile's other CTAs in K order (an acquire spin on each flag, which it resets to 0) and
// stores the tile.
//
// Roles (384 threads):
//   warpgroup 0     producer: warp 0's elected thread loads, per K block of the CTA's range, the weight tile
//                   (each of kWeights) and the token tile with TMA into a ring of kStages stages.
//   warpgroups 1, 2 consumers: consumer c owns weight rows 64c..64c+63; per 16 K it issues one wgmma
//                   m64n<BlockTokens>k16 per weight matrix, the weight tile as the wgmma's A operand
//                   (K-major, or MN-major with the transpose bit for K x N weights) and the token tile as its
//                   B operand (K-major); it frees a stage one behind the issue (common.cuh consume_k_blocks).
// Then, without a split, each consumer thread stores its fragment (scalar stores, masked) and goes on to its
// next tile. With a split, the reduction and the epilogue (every thread takes part in the cluster barriers;
// the consumers do the work): consumers write their fp32 accumulators to this CTA's partial buffer (over the
// stages), cluster barrier, each CTA sums quads [rank·Q/S, (rank+1)·Q/S) of the tile's partials over ranks
// 0..S-1 in order, applies the epilogue functor and stores D (scalar stores, rows past M and columns past N
// masked: the output of a decode step is small next to the weights it streams), cluster barrier (no CTA
// leaves while a peer reads its buffer).
//
// Accumulator fragment (ptx/wgmma.cuh): thread (warp w, lane l) of consumer c holds, at acc[4j + 2h + e],
// weight row 64c + 16w + l/4 + 8h (an output column) and token 8j + 2(l%4) + e (an output row).
#pragma once

#include <cuda.h>

#include <cstdint>
#include <type_traits>

#include "bwgemm/isa/descriptors_sm90.hpp"
#include "bwgemm/kernels/sm90/common.cuh"
#include "bwgemm/kernels/sm90/split_k.cuh"
#include "bwgemm/kernels/sm90/swap_ab_config.cuh"
#include "bwgemm/pipeline/pipeline_state.cuh"
#include "bwgemm/ptx/cluster.cuh"
#include "bwgemm/ptx/flags.cuh"
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
struct SwapAbParams {
  CUtensorMap tmap_tokens;               // A: (K, M, batch), box (64, BlockTokens, 1), 128B swizzle
  CUtensorMap tmap_tokens_tail;          // box (64, M mod BlockTokens, 1): a box that would cross M
                                         // (common.cuh, RowBox; unset where BlockTokens divides M)
  CUtensorMap tmap_w[Cfg::kWeights];     // K-major: (K, N, batch), box (64, kBlockWeights, 1); MN-major
                                         // (GEMM, B K x N): (N, K, batch), box (64, 64, 1); 128B swizzle
  typename Cfg::Out* d = nullptr;        // M x N per batch, row stride ldd, batch stride batch_stride_d
  const typename Cfg::Out* c = nullptr;  // GEMM: read only when read_c
  int64_t ldd = 0, batch_stride_d = 0;
  int64_t ldc = 0, batch_stride_c = 0;
  int32_t m = 0, n = 0, k = 0;
  sched::TileGrid tiles{};  // M tiles of BlockTokens x N tiles of kBlockWeights
  int32_t splits = 1;       // CTAs per cluster, splitting each tile's K blocks
  int32_t grid_ctas = 0;    // splits == 1: the persistent grid (the tile stride)
  // Stream-K (splits == 1, sk_ctas = grid_ctas > 0; 0: off): CTA g's sums at sk_partials + g ·
  // Cfg::kPartialBytes / 4, its flag sk_flags[g] (0 before the launch and after it: the head resets each
  // flag it waited on). tiles · K blocks < 2^31 (the host checks).
  int32_t sk_ctas = 0;
  uint32_t* sk_flags = nullptr;
  float* sk_partials = nullptr;
  bool read_c = false;
  float alpha1 = 1.0f, alpha2 = 1.0f;  // dual GEMM: scales of A·B1ᵀ and A·B2ᵀ
  const float* alpha1_ptr = nullptr;   // dual GEMM: device scales, read once per CTA: alpha1 · *alpha1_ptr
  const float* alpha2_ptr = nullptr;
  typename Cfg::Epilogue epilogue{};  // GEMM: its device-pointer scales read once per CTA
};

// The dense tile source of the swap-AB body (swap_ab_kernel_body): the tiles of p.tiles, M tiles of
// BlockTokens tokens (output rows) by N tiles of kBlockWeights weight rows (output columns). A source
// answers, per role's walk (source.walk()):
//   seek(id, &tile)                     the tile of linear id `id` (ids increasing per walk); false ends the
//                                       role's loop (the dense source: always true)
//   row0(tile, 0), col0(tile, 0)        the tile's first token (A's and the output's row) and first weight
//                                       row (the output's column)
//   a_batch(tile), b_batch(tile)        the third TMA coordinate of the tokens and of the weights
//   a_rows()                            the token rows past which a box goes through the tail map (RowBox)
//   row_end(tile)                       the tokens below it are stored (and C read)
//   out_offset(tile, stride), c_offset  elements from D's (C's) pointer to the tile's batch
//   epilogue(f, tile) / scales(s, tile) the GEMM's functor / the dual GEMM's two scales for the tile
//   report(cta)                         after the producer's loop: the status word
// and kSplitK: whether the launch may split K (a cluster split or stream-K; false: splits 1, no stream-K,
// and the code of both compiled out). The grouped source is kernels/sm90/grouped_tiles.cuh's GroupedTiles.
template <class Cfg>
struct SwapAbTiles {
  using Tile = sched::TileCoord;
  static constexpr bool kSplitK = true;
  struct Walk {
    const SwapAbParams<Cfg>& p;
    BWGEMM_DEVICE BWGEMM_FORCEINLINE bool seek(int32_t id, Tile* t) const {
      *t = p.tiles.tile_at(id);
      return true;
    }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE int32_t row0(const Tile& t, uint32_t /*cta_rank*/) const {
      return t.m * Cfg::kBlockTokens;
    }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE int32_t col0(const Tile& t, uint32_t /*cta_rank*/) const {
      return t.n * Cfg::kBlockWeights;
    }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE int32_t a_batch(const Tile& t) const { return t.batch; }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE int32_t b_batch(const Tile& t) const { return t.batch; }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE int32_t a_rows() const { return p.m; }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE int32_t row_end(const Tile& /*t*/) const { return p.m; }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE int64_t out_offset(const Tile& t, int64_t batch_stride) const {
      return static_cast<int64_t>(t.batch) * batch_stride;
    }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE int64_t c_offset(const Tile& t) const {
      return static_cast<int64_t>(t.batch) * p.batch_stride_c;
    }
    template <class Epilogue>
    BWGEMM_DEVICE BWGEMM_FORCEINLINE const Epilogue& epilogue(const Epilogue& f, const Tile& /*t*/) const {
      return f;
    }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE const epi::DualScales& scales(const epi::DualScales& s,
                                                                   const Tile& /*t*/) const {
      return s;
    }
    BWGEMM_DEVICE BWGEMM_FORCEINLINE void report(int32_t /*cta*/) const {}
  };
  const SwapAbParams<Cfg>& p;
  BWGEMM_DEVICE BWGEMM_FORCEINLINE Walk walk() const { return Walk{p}; }
};

// The kernel's body over the tiles of `source` (SwapAbTiles: the dense GEMM and dual GEMM; GroupedTiles:
// the grouped ones, kernels/sm90/grouped_kernels.cuh). BMnMajor: the GEMM's B is K x N row-major (weights
// MN-major in shared memory).
template <class Cfg, class In, bool BMnMajor, class Source>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void swap_ab_kernel_body(const SwapAbParams<Cfg>& p, const Source& source) {
  using namespace ::bwgemm::ptx;
  using Out = typename Cfg::Out;
  using Epilogue = typename Cfg::Epilogue;
  constexpr int kWeights = Cfg::kWeights;
  static_assert(kWeights == 1 || !BMnMajor, "the dual GEMM's weights are N x K (K-major)");
  // The consumers' named barrier (ID 0 is __syncthreads'): the hand-off of the split-K and stream-K sums.
  constexpr uint32_t kPartialsBarrier = 1;
  // The stream-K sums go to the workspace and back in pairs of registers (8-byte words; the slots are 8-byte
  // aligned): with single words ptxas spilled 288 bytes in the 160-token dual pairs (two m64n160 accumulators
  // in 232 registers) and none with pairs (ptxas, CUDA 13.0).
  constexpr int kStreamKPartialGroup = 2;

  const uint32_t warp = warp_idx();
  const uint32_t warpgroup = warp / 4;
  const uint32_t smem = round_up_u32(dynamic_smem_base(), kSmemAlignment);
  const BarrierArray<Cfg::kStages> full{smem + Cfg::kFullBarriers};
  const BarrierArray<Cfg::kStages> empty{smem + Cfg::kEmptyBarriers};

  start_pipeline<Cfg>(full, empty, warp, [&] {
    tma_prefetch_descriptor(&p.tmap_tokens);
#pragma unroll
    for (int w = 0; w < kWeights; ++w) tma_prefetch_descriptor(&p.tmap_w[w]);
  });
  // The set-up above (barrier initialisation, tensor-map prefetch) touches no global memory, so under
  // programmatic dependent launch it overlaps the previous kernel's tail; every thread waits here, before the
  // first TMA load, C or device-scale read or store, for that kernel's completion and memory
  // (ptx/griddepcontrol.cuh; at once without PDL).
  griddepcontrol_wait();

  // Both roles walk the same segments (a tile and its K blocks [k_begin, k_end)), the ring of stages running
  // on across them, so the producer loads the next segment while the consumers store this one:
  //   splits == 1: persistent CTAs stride over the tiles (tile blockIdx.x, + grid_ctas, ...), each whole;
  //   splits > 1: one tile per cluster, one K range per CTA (split_k_range);
  //   stream-K: this CTA's range of the units (sched::StreamKRanges), one segment per tile it touches.
  using SKR = sched::StreamKRanges;
  using Segment = SKR::Segment;
  using Tile = typename Source::Tile;
  using Walk = decltype(source.walk());
  const uint32_t splits = Source::kSplitK ? static_cast<uint32_t>(p.splits) : 1u;
  const uint32_t rank = splits > 1 ? cluster_ctarank() : 0u;
  const int32_t total = p.tiles.total();
  const int32_t k_blocks = (p.k + Cfg::kBlockK - 1) / Cfg::kBlockK;
  const int32_t cta = static_cast<int32_t>(block_idx().x);
  const bool stream_k = Source::kSplitK && p.sk_ctas > 0;
  const int32_t units = stream_k ? total * k_blocks : 0;
  const SKR::Range sk = stream_k ? SKR::cta_range(units, p.sk_ctas, cta) : SKR::Range{0, 0};
  const KRange kr = split_k_range(k_blocks, static_cast<int32_t>(splits), static_cast<int32_t>(rank));
  const auto first_segment = [&]() -> Segment {
    if (stream_k) return SKR::segment_at(sk.begin, sk, k_blocks);  // never empty: sk_ctas <= units
    if (splits > 1) return {cta / static_cast<int32_t>(splits), kr.begin, kr.end};
    return {cta, 0, k_blocks};  // cta < grid_ctas <= tiles
  };
  const auto next_segment = [&](const Segment& s) -> Segment {
    if (stream_k) {
      const int32_t unit = SKR::next_unit(s, sk, k_blocks);
      return unit == sched::kNoTile ? Segment{sched::kNoTile, 0, 0} : SKR::segment_at(unit, sk, k_blocks);
    }
    const int32_t tile = splits > 1 ? total : s.tile + p.grid_ctas;
    return tile < total ? Segment{tile, 0, k_blocks} : Segment{sched::kNoTile, 0, 0};
  };

  const bool consumer_role = warpgroup != Cfg::kProducerWarpgroup;
  // The per-tensor scales with their device-pointer parts read, once per consumer thread (the producer
  // reads none): the dual GEMM's alphas, the GEMM's functor.
  epi::DualScales alphas{p.alpha1, p.alpha2};
  Epilogue f = p.epilogue;
  if (consumer_role) {
    if constexpr (kWeights == 2) {
      alphas = epi::dual_scales(p);
    } else {
      f = epi::with_device_scales(p.epilogue);
    }
  }

  // The functor (GEMM) and the scales (dual GEMM) of a tile: the source's (per expert for the grouped one;
  // the dense source answers f and alphas).
  const auto tile_functor = [&](Walk& walk, const Tile& t) -> Epilogue {
    if constexpr (kWeights == 1) {
      return walk.epilogue(f, t);
    } else {
      return f;
    }
  };
  const auto tile_scales = [&](Walk& walk, const Tile& t) -> epi::DualScales {
    if constexpr (kWeights == 2) {
      return walk.scales(alphas, t);
    } else {
      return alphas;
    }
  };

  // The output value at (row, col) from the accumulator sums of each weight matrix (alpha, beta, C and the
  // gate as the tile's functor ft and scales s say); the tile t of `walk` places its batch in D and C.
  Out* const d = p.d;
  const auto output = [&](const Epilogue& ft, const epi::DualScales& s, const Walk& walk, const Tile& t,
                          const float(&v)[kWeights], int32_t row, int32_t col) {
    float out;
    if constexpr (kWeights == 2) {
      out = ft(s.alpha1 * v[0], s.alpha2 * v[1]);
    } else {
      constexpr bool kTakesC = std::is_invocable_v<const Epilogue&, float, float>;
      constexpr bool kTakesAccOnly = std::is_invocable_v<const Epilogue&, float>;
      const Out* c = p.c + walk.c_offset(t) + static_cast<int64_t>(row) * p.ldc + col;
      if constexpr (kTakesC && kTakesAccOnly) {
        out = p.read_c ? ft(v[0], load_one(c)) : ft(v[0]);
      } else if constexpr (kTakesC) {
        out = ft(v[0], load_one(c));
      } else {
        out = ft(v[0]);
      }
    }
    store_one(d + walk.out_offset(t, p.batch_stride_d) + static_cast<int64_t>(row) * p.ldd + col, out);
  };

  if (!consumer_role) {
    // ---- producer ------------------------------------------------------------------------------------
    warpgroup_reg_dealloc<Cfg::kProducerRegs>();
    if (warp == 0 && elect_one_sync()) {
      PipelineState<Cfg::kStages> stage;
      auto walk = source.walk();
      for (Segment seg = first_segment(); seg.tile != sched::kNoTile; seg = next_segment(seg)) {
        Tile t;
        if (!walk.seek(seg.tile, &t)) break;
        const int32_t m0 = walk.row0(t, 0);  // first token (output row)
        const int32_t n0 = walk.col0(t, 0);  // first weight row (output column)
        const int32_t a_batch = walk.a_batch(t), b_batch = walk.b_batch(t);
        const int32_t k_iters = seg.k_end - seg.k_begin;
        // m0 < a_rows always (the token tiles start inside the rows), so the box is the full map's or the
        // tail map's.
        const RowBox box = row_box<Cfg::kBlockTokens>(m0, walk.a_rows(), &p.tmap_tokens, &p.tmap_tokens_tail);
        produce_k_blocks<Cfg>(
            stage, full, empty, smem, k_iters,
            [&](uint32_t base, uint32_t bar, int32_t k) {
              const int32_t k0 = seg.k_begin * Cfg::kBlockK + k;
              tma_load(base + Cfg::kTokenOffset, box.map, bar, {k0, m0, a_batch});
#pragma unroll
              for (int w = 0; w < kWeights; ++w) {
                const uint32_t dst = base + Cfg::kWeightOffset + static_cast<uint32_t>(w * Cfg::kWeightBytes);
                if constexpr (BMnMajor) {
#pragma unroll
                  for (int c = 0; c < Cfg::kConsumerWarpgroups; ++c)
                    tma_load(dst + c * Cfg::kWeightChunkBytes, &p.tmap_w[w], bar,
                             {n0 + c * Cfg::kWarpgroupWeights, k0, b_batch});
                } else {
                  tma_load(dst, &p.tmap_w[w], bar, {k0, n0, b_batch});
                }
              }
            },
            box.missing_bytes);
      }
      walk.report(cta);
      // Every load of this CTA is issued: the next kernel of the stream (launched with programmatic
      // dependent launch) may be scheduled once every CTA got here or exited, its set-up overlapping this
      // grid's last wgmmas and stores. Safe for the data at any point: the dependent's griddepcontrol.wait
      // still waits for this grid's completion and memory flush. A no-op without a dependent.
      griddepcontrol_launch_dependents();
    }
  } else {
    // ---- consumers: the mainloop, then the stores (splits == 1) or the partials (splits > 1) ----------
    warpgroup_reg_alloc<Cfg::kConsumerRegs>();
    const ConsumerThread me = consumer_thread(warpgroup);
    // Consumer c's weight rows: K-major, 64 rows into the tile; MN-major, its own 64-column chunk.
    const uint32_t w_offset =
        Cfg::kWeightOffset +
        me.consumer * (BMnMajor ? Cfg::kWeightChunkBytes : Cfg::kWarpgroupWeights * Cfg::kRowBytes);
    constexpr WgmmaMajor kWMajor = BMnMajor ? WgmmaMajor::kMN : WgmmaMajor::kK;
    constexpr uint64_t kWDescBase =
        BMnMajor ? wgmma_mn_major_sw128_desc(Cfg::kWeightChunkBytes) : kWgmmaKMajorSw128Desc;
    constexpr uint32_t kWK16Bytes = BMnMajor ? kWgmmaK16BytesMnMajor : kWgmmaK16BytesKMajor;
    PipelineState<Cfg::kStages> stage;
    const uint32_t tid = me.consumer * kWarpgroupThreads + me.thread;  // of the consumer threads
    auto walk = source.walk();
    for (Segment seg = first_segment(); seg.tile != sched::kNoTile; seg = next_segment(seg)) {
      Tile t;
      if (!walk.seek(seg.tile, &t)) break;
      const Epilogue ft = tile_functor(walk, t);
      const epi::DualScales st = tile_scales(walk, t);
      const int32_t k_iters = seg.k_end - seg.k_begin;
      float acc[kWeights][Cfg::kAccRegs];
#pragma unroll
      for (int w = 0; w < kWeights; ++w) zero_accumulator(acc[w]);
      consume_k_blocks<Cfg>(stage, full, empty, smem, k_iters, me.thread, [&](uint32_t base, bool first) {
#pragma unroll
        for (int j = 0; j < Cfg::kMmasPerStage; ++j) {
          const uint64_t tok_desc = wgmma_desc_with_address(
              kWgmmaKMajorSw128Desc,
              base + Cfg::kTokenOffset + static_cast<uint32_t>(j) * kWgmmaK16BytesKMajor);
#pragma unroll
          for (int w = 0; w < kWeights; ++w) {
            const uint64_t w_desc = wgmma_desc_with_address(
                kWDescBase, base + w_offset + static_cast<uint32_t>(w * Cfg::kWeightBytes) +
                                static_cast<uint32_t>(j) * kWK16Bytes);
            wgmma_ss<In, Cfg::kBlockTokens, kWMajor, WgmmaMajor::kK>(acc[w], w_desc, tok_desc,
                                                                     !first || j > 0);
          }
        }
      });
#pragma unroll
      for (int w = 0; w < kWeights; ++w) wgmma_fence_operand(acc[w]);

      if (stream_k && seg.k_begin > 0) {
        // Not the tile's head (this CTA's first segment): the sums to this CTA's slot, then its flag.
        // In float2 groups (kStreamKPartialGroup), as the head reads them back.
        float* const slot = p.sk_partials + static_cast<int64_t>(cta) * (Cfg::kPartialBytes / 4);
#pragma unroll
        for (int w = 0; w < kWeights; ++w)
          write_partials<kStreamKPartialGroup, Cfg::kConsumerThreads>(slot + w * Cfg::kPartialElements,
                                                                      acc[w], tid);
        named_barrier_sync(kPartialsBarrier, Cfg::kConsumerThreads);  // every consumer thread's sums written
        if (tid == 0) st_release_gpu(p.sk_flags + cta, 1u);
        continue;
      }
      if (stream_k && seg.k_end < k_blocks) {
        // The head of a shared tile (this CTA's last segment): the later K blocks' sums, CTA by CTA in K
        // order, each once its flag is set (those CTAs computed them as their first segment).
        const SKR::Owners owners = SKR::tail_owners(units, p.sk_ctas, cta, seg, k_blocks);
        for (int32_t c = owners.first; c <= owners.last; ++c) {
          if (tid == 0) {
            while (ld_acquire_gpu(p.sk_flags + c) == 0u) {
            }
            st_relaxed_gpu(p.sk_flags + c, 0u);  // this grid reads it no more: 0 for the next call
          }
          named_barrier_sync(kPartialsBarrier, Cfg::kConsumerThreads);  // the flag seen: the sums visible
          const float* const slot = p.sk_partials + static_cast<int64_t>(c) * (Cfg::kPartialBytes / 4);
#pragma unroll
          for (int w = 0; w < kWeights; ++w)
            add_partials<kStreamKPartialGroup, Cfg::kConsumerThreads>(acc[w],
                                                                      slot + w * Cfg::kPartialElements, tid);
        }
      }
      if (splits == 1) {
        // acc[w][4j + 2h + e]: weight row 16w' + l/4 + 8h of this consumer (warp w', lane l), token
        // 8j + 2(l%4) + e.
        const int32_t col_base = walk.col0(t, 0) +
                                 static_cast<int32_t>(me.consumer) * Cfg::kWarpgroupWeights +
                                 static_cast<int32_t>(me.warp_in_group * 16 + me.lane / 4);
        const int32_t row_base = walk.row0(t, 0) + static_cast<int32_t>(2 * (me.lane % 4));
        const int32_t row_end = walk.row_end(t);
#pragma unroll
        for (int i = 0; i < Cfg::kAccRegs; ++i) {
          const int32_t col = col_base + 8 * ((i / 2) % 2), row = row_base + 8 * (i / 4) + i % 2;
          if (col >= p.n || row >= row_end) continue;
          float v[kWeights];
#pragma unroll
          for (int w = 0; w < kWeights; ++w) v[w] = acc[w][i];
          output(ft, st, walk, t, v, row, col);
        }
      } else {
        // Both consumers are done reading the stages (the partials overwrite them; one tile per CTA here).
        named_barrier_sync(kPartialsBarrier, Cfg::kConsumerThreads);
        float* const partials = reinterpret_cast<float*>(static_cast<uint8_t*>(dynamic_smem_ptr()) +
                                                         (smem + Cfg::kPartialOffset - dynamic_smem_base()));
#pragma unroll
        for (int w = 0; w < kWeights; ++w)
          write_partials<1, Cfg::kConsumerThreads>(partials + w * Cfg::kPartialElements, acc[w], tid);
      }
    }
  }
  if (!Source::kSplitK || splits == 1) return;

  // ---- split K: every CTA's partials are written and visible to the cluster -------------------------
  cluster_sync();
  if (consumer_role) {
    // This CTA's share of the tile: quads [rank·Q/S, (rank+1)·Q/S) of the partials, summed over the ranks.
    auto walk = source.walk();
    Tile t;
    walk.seek(first_segment().tile, &t);  // one tile per cluster here: the dense source's
    const int32_t m0 = walk.row0(t, 0), n0 = walk.col0(t, 0);
    const Epilogue ft = tile_functor(walk, t);
    const epi::DualScales st = tile_scales(walk, t);

    const uint32_t tid = thread_idx().x - kWarpgroupThreads;
    constexpr int kQuads = Cfg::kPartialElements / 4;  // per weight matrix
    for_each_rank_quad_sum<kQuads, Cfg::kConsumerThreads, kWeights, 1>(
        splits, rank, tid, smem + Cfg::kPartialOffset, static_cast<uint32_t>(Cfg::kPartialElements * 4),
        [&](int q, const Float4(&sum)[kWeights]) {
          // Quad q: elements 4q..4q+3 = register i of consumer threads t0..t0+3 (lanes l0..l0+3 of a warp).
          const int i = (4 * q) / Cfg::kConsumerThreads;
          const int t0 = (4 * q) % Cfg::kConsumerThreads;
          const int consumer = t0 / kWarpgroupThreads, warp_in_group = (t0 % kWarpgroupThreads) / kWarpSize,
                    lane0 = t0 % kWarpSize;
          const int j = i / 4, h = (i / 2) % 2, e = i % 2;
          const int32_t col = n0 + consumer * Cfg::kWarpgroupWeights + warp_in_group * 16 + lane0 / 4 + 8 * h;
          const int32_t row_first = m0 + 8 * j + e;  // the quad's tokens: row_first + 2·(0..3)
          if (col >= p.n) return;
#pragma unroll
          for (int k = 0; k < 4; ++k) {
            const int32_t row = row_first + 2 * k;
            if (row >= walk.row_end(t)) continue;
            float v[kWeights];
#pragma unroll
            for (int w = 0; w < kWeights; ++w) {
              const float s4[4] = {sum[w].x, sum[w].y, sum[w].z, sum[w].w};
              v[w] = s4[k];
            }
            output(ft, st, walk, t, v, row, col);
          }
        });
  }
  // No CTA leaves (taking its shared memory) while a peer still reads its partials.
  cluster_sync();
}

// BMnMajor: the GEMM's B is K x N row-major (weights MN-major in shared memory).
template <class Cfg, class In, bool BMnMajor>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    swap_ab_kernel(const __grid_constant__ SwapAbParams<Cfg> p) {
#if BWGEMM_SM90A_KERNEL_BODY
  swap_ab_kernel_body<Cfg, In, BMnMajor>(p, SwapAbTiles<Cfg>{p});
#else
  (void)p;
  ::bwgemm::ptx::trap();  // built for another architecture; the entry points never launch it here
#endif
}

}  // namespace bwgemm::sm90
