// Split K for the sm_100a swap-AB kernels (nvfp4_swap_ab_kernel.cuh, f16_swap_ab_kernel.cuh): where the
// weight tiles do not fill the SMs (N = 4096: 32 tiles of 128 rows for 148 SMs), the S CTAs of a cluster
// (S = 2 .. kSwapAbMaxSplitK) compute one tile together, CTA s over K blocks [s·B, (s+1)·B) of the tile's
// K (B = k_blocks_per_split; the entry point makes every split non-empty).
//
// Each CTA runs the usual roles (roles.cuh) on its K range for its cluster's one tile, with the epilogue
// writing the fp32 accumulators to its own shared memory (over the stages: after the tile's last MMA has
// completed every stage is idle) instead of to global memory. Then, after a cluster barrier, CTA s reduces
// the weight-row quads q = s, s + S, s + 2S, .. of the tile for every token inside M: it reads the quad of
// every CTA of the cluster through distributed shared memory (ld.shared::cluster) and sums them in rank order
// 0, 1, .., S - 1, the same order, hence the same bits, on every run; then it applies the functor and stores
// four consecutive outputs. A second cluster barrier keeps every CTA alive until its peers have read its
// partials. No workspace and no global-memory atomics: the reduction never leaves the cluster.
//
// The two cluster barriers are the kernels' only GPU-scope fences (barrier.cluster.arrive's .release, which
// the partials written by ordinary stores need before a peer reads them): tools/check_sass_fences.py allows
// these kernels 2 (ctest kernels.sm100_split_k_fences), every other sm_100a kernel none.
#pragma once

#include <cstdint>
#include <utility>

#include "bwgemm/base/macros.hpp"
#include "bwgemm/formats/bits.cuh"
#include "bwgemm/kernels/sm100/common.cuh"
#include "bwgemm/kernels/sm100/roles.cuh"
#include "bwgemm/ptx/ptx.cuh"
#include "bwgemm/scheduler/tile_order.cuh"

namespace bwgemm::sm100 {

// The largest split of K: the portable cluster size (CUDA programming guide, "Thread Block Clusters": 8 CTAs
// is the portable maximum).
inline constexpr int kSwapAbMaxSplitK = 8;

// Weight rows per quad of the reduction: one 16-byte distributed-shared-memory load of fp32 partials.
inline constexpr int kSwapAbQuadRows = 4;

// The split a launch runs for `requested` CTAs per tile: S CTAs of B K blocks each, every one non-empty
// (B = ceil(K blocks / requested), S = ceil(K blocks / B) <= requested). sm90's SwapAbSplitRequest is the
// other side: what a caller asks of a swap-AB launch.
struct SwapAbSplitPlan {
  int splits = 1;
  int32_t k_blocks_per_split = 0;
};
BWGEMM_HD constexpr SwapAbSplitPlan swap_ab_split_plan(int32_t k_blocks, int requested) {
  const int32_t want = requested < 1 ? 1 : requested;
  const int32_t per = (k_blocks + want - 1) / want;
  return SwapAbSplitPlan{static_cast<int>((k_blocks + per - 1) / per), per};
}

// K blocks each split keeps at least when the entry point chooses: a guess (nothing measured on a B200),
// so that a split's pipeline still overlaps loads and MMAs and its reduction stays small against its K.
inline constexpr int32_t kSwapAbMinKBlocksPerSplit = 4;

// The split the entry points choose: the largest power of two up to kSwapAbMaxSplitK with tiles · S CTAs no
// more than the `sms` that run at once and at least kSwapAbMinKBlocksPerSplit K blocks per split. 1 when the
// tiles fill the SMs already. Not measured (no B200): the sm_90a kernels measure their split per size.
BWGEMM_HD constexpr int choose_swap_ab_split_k(int64_t tiles, int64_t sms, int32_t k_blocks) {
  int splits = 1;
  while (splits * 2 <= kSwapAbMaxSplitK && tiles * splits * 2 <= sms &&
         k_blocks >= kSwapAbMinKBlocksPerSplit * splits * 2)
    splits *= 2;
  return splits;
}

// The partials of a tile in shared memory (fp32, offset 0 from the aligned dynamic base, over the stages):
// accumulator a, token j, tile weight row r at word (a · BlockTokens + j) · 128 + r, so a warp's writes (32
// consecutive r) are consecutive words and a quad is 16 contiguous bytes.
template <class Cfg, int Accumulators>
struct SwapAbPartials {
  static constexpr int kWords = Accumulators * Cfg::kBlockTokens * Cfg::kBlockWeights;
  static constexpr int kBytes = kWords * 4;
  static_assert(kBytes <= Cfg::kStages * Cfg::kStageBytes, "the partials must fit over the stages");
  BWGEMM_DEVICE static constexpr uint32_t word(int a, int token, int row) {
    return static_cast<uint32_t>((a * Cfg::kBlockTokens + token) * Cfg::kBlockWeights + row);
  }
};

// The epilogue's write of weight row `row` of a chunk to this CTA's partials (split K): every accumulator's
// values (tensor-memory bits) as fp32, from token 0 of the chunk. Written once for every swap-AB kernel.
template <class Partials, int Accumulators, int N>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void write_swap_ab_partials(float* partials, int32_t row,
                                                             const uint32_t (&values)[Accumulators][N]) {
#pragma unroll
  for (int a = 0; a < Accumulators; ++a)
#pragma unroll
    for (int i = 0; i < N; ++i) partials[Partials::word(a, i, row)] = bits_to_f32(values[a][i]);
}

// The kernel body of a split: the roles on K blocks [split · k_blocks_per_split, ..) of the cluster's tile
// (Roles::kb_begin says where its producers start), then the reduction. `reduce(tile, split, splits)` runs
// in the epilogue warps between the two cluster barriers. `rows` is the problem's N (weight rows past it are
// neither written nor stored).
template <class Cfg, class Roles, class Reduce>
BWGEMM_DEVICE void run_swap_ab_split_k(const Roles& roles, const sched::TileGrid& tiles, int32_t rows,
                                       int32_t k_blocks, uint32_t splits, const Reduce& reduce) {
  using namespace ::bwgemm::ptx;
  static_assert(Cfg::kClusterCtas == 1, "split K runs cta_group::1 MMAs in every CTA of the cluster");
  const uint32_t warp = warp_idx();
  const uint32_t smem = round_up_u32(dynamic_smem_base(), kSmemAlignment);
  const int32_t tile = static_cast<int32_t>(block_idx().x / splits);  // one tile per cluster
  // rank 0 and even_cta in every CTA: each issues its own MMAs into its own tensor memory (cta_group::1).
  KernelContext<Cfg> ctx{warp,
                         lane_idx(),
                         0,
                         true,
                         smem,
                         KernelBarriers<Cfg>(smem),
                         0,
                         tile,
                         tiles.total(),
                         k_blocks,
                         sched::FastTileGrid(tiles)};

  if (warp == Cfg::kFirstProducerWarp && elect_one_sync()) roles.prefetch_tensor_maps();
  ctx.tmem = start_kernel<Cfg>(warp, ctx.bars);
  // After the prologue, before any global memory access: as run_roles (roles.cuh).
  griddepcontrol_wait();
  if (warp < static_cast<uint32_t>(Cfg::kEpilogueWarps)) {
    run_epilogue<Cfg>(ctx, roles, rows);
  } else if (warp < static_cast<uint32_t>(Cfg::kMmaWarp)) {
    run_producers<Cfg>(ctx, roles, std::make_integer_sequence<int, Cfg::kProducerWarps>{});
  } else if (warp == static_cast<uint32_t>(Cfg::kMmaWarp)) {
    run_mma<Cfg>(ctx, roles);
  }
  cluster_sync();  // every CTA's partials are in its shared memory, visible to the cluster
  if (warp < static_cast<uint32_t>(Cfg::kEpilogueWarps))
    reduce(tiles.tile_at(tile), cluster_ctarank(), splits);
  cluster_sync();  // no CTA leaves (taking its shared memory) while a peer still reads its partials
  finish_kernel<Cfg>(warp, ctx.tmem);
}

// The reduction's work of CTA `split` for one tile, for the epilogue thread `tid` (0 .. 127): calls
// quad(q, token) for the weight-row quads q = split, split + splits, .. below 128 / 4 whose first row is
// inside N, and the tokens 0 .. tokens - 1; consecutive threads take consecutive quads (coalesced stores).
template <class Cfg, class Quad>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void for_each_reduction_quad(uint32_t tid, uint32_t split, uint32_t splits,
                                                              int32_t quads_in_n, int32_t tokens,
                                                              const Quad& quad) {
  constexpr int kQuads = Cfg::kBlockWeights / kSwapAbQuadRows;
  const int32_t my_quads = (kQuads - static_cast<int32_t>(split) + static_cast<int32_t>(splits) - 1) /
                           static_cast<int32_t>(splits);
  const int32_t items = my_quads * tokens;
  constexpr int32_t kThreads = Cfg::kEpilogueWarps * kWarpSize;
  for (int32_t item = static_cast<int32_t>(tid); item < items; item += kThreads) {
    const int32_t q = static_cast<int32_t>(split) + (item % my_quads) * static_cast<int32_t>(splits);
    if (q < quads_in_n) quad(q, item / my_quads);
  }
}

// This CTA's K blocks of the cluster's tile: [begin, begin + count), CTA s taking k_blocks_per_split blocks
// from s · k_blocks_per_split (the last CTA what is left).
struct CtaKBlocks {
  int32_t begin, count;
};
template <class Cfg>
BWGEMM_DEVICE BWGEMM_FORCEINLINE CtaKBlocks cta_k_blocks(int32_t k, int32_t k_blocks_per_split) {
  const int32_t begin = static_cast<int32_t>(ptx::cluster_ctarank()) * k_blocks_per_split;
  const int32_t total = (k + Cfg::kBlockK - 1) / Cfg::kBlockK;
  return {begin, total - begin < k_blocks_per_split ? total - begin : k_blocks_per_split};
}

// The reduction of tile `t` (an m x n problem) by CTA `split` of `splits`: calls quad(smem, q, token, col,
// row) for each of its weight-row quads q inside N and tokens inside M (for_each_reduction_quad), with the
// CTA's aligned shared-memory base and the quad's first output column and row.
template <class Cfg, class Quad>
BWGEMM_DEVICE BWGEMM_FORCEINLINE void reduce_tile_quads(const sched::TileCoord& t, uint32_t split,
                                                        uint32_t splits, int32_t m, int32_t n,
                                                        const Quad& quad) {
  using namespace ::bwgemm::ptx;
  const uint32_t smem = round_up_u32(dynamic_smem_base(), kSmemAlignment);
  const int32_t w0 = t.m * Cfg::kBlockWeights, m0 = t.n * Cfg::kBlockTokens;
  const int32_t quads_in_n = (n - w0 + kSwapAbQuadRows - 1) / kSwapAbQuadRows;
  const int32_t tokens = m - m0 < Cfg::kBlockTokens ? m - m0 : Cfg::kBlockTokens;
  const uint32_t tid = warp_idx() * kWarpSize + lane_idx();
  for_each_reduction_quad<Cfg>(tid, split, splits, quads_in_n, tokens, [&](int32_t q, int32_t token) {
    quad(smem, q, token, static_cast<int64_t>(w0) + q * kSwapAbQuadRows, static_cast<int64_t>(m0) + token);
  });
}

// The sum, in rank order, of the quad at `word` (SwapAbPartials::word) of every CTA of the cluster.
BWGEMM_DEVICE BWGEMM_FORCEINLINE ptx::Float4 sum_cluster_quad(uint32_t smem, uint32_t word, uint32_t splits) {
  using namespace ::bwgemm::ptx;
  const uint32_t local = smem + word * 4;
  Float4 part[kSwapAbMaxSplitK];
  // Every rank's quad first (the remote loads in flight together), then the sum in rank order.
#pragma unroll
  for (uint32_t r = 0; r < static_cast<uint32_t>(kSwapAbMaxSplitK); ++r)
    if (r < splits) part[r] = ld_shared_cluster_v4_f32(mapa_shared_cluster(local, r));
  Float4 sum = part[0];
#pragma unroll
  for (uint32_t r = 1; r < static_cast<uint32_t>(kSwapAbMaxSplitK); ++r) {
    if (r < splits) sum.x += part[r].x, sum.y += part[r].y, sum.z += part[r].z, sum.w += part[r].w;
  }
  return sum;
}

}  // namespace bwgemm::sm100
